#!/bin/sh
#
# t3000-extract: the content whole, line and byte ranges, IDs, standard
# input, exit codes.

. "$(dirname "$0")/lib.sh"

# cap: store stdin, print the full ID.
cap() {
	ofl-capture -T 0 -q | sed -n 's/^ofl:\([a-z0-9]*\).*/\1/p'
}

test_expect_success 'setup: a file of numbered lines and binary data' '
	seq 1 1000 | sed "s/^/line /" >lines.txt &&
	printf "a\000b\377\376c\r\nd\200\n\000\000tail" >bin.dat &&
	id=$(cap <lines.txt) &&
	test -n "$id" &&
	echo "$id" >id &&
	bid=$(cap <bin.dat) &&
	test -n "$bid" &&
	echo "$bid" >bid
'
id=$(cat id 2>/dev/null)
bid=$(cat bid 2>/dev/null)

test_expect_success 'the whole content comes back byte for byte' '
	ofl-extract "$id" >out &&
	test_cmp lines.txt out
'

test_expect_success 'binary content (NUL, invalid UTF-8) round-trips' '
	ofl-extract "$bid" >out &&
	cmp bin.dat out
'

test_expect_success 'a large content has no budget in the plain form' '
	seq 1 200000 >big.txt &&
	big=$(cap <big.txt) &&
	ofl-extract "$big" >out &&
	test_cmp big.txt out
'

test_expect_success 'ofl:ID, prefixes and @ name the artifact' '
	ofl-extract "ofl:$id" -n 3 >a &&
	ofl-extract "$(echo "$id" | cut -c1-6)" -n 3 >b &&
	ofl-extract @3 -n 3 >c &&
	printf "3\tline 3\n" >expect &&
	test_cmp expect a &&
	test_cmp expect b &&
	test_cmp expect c
'

test_expect_success '-n A-B prints numbered lines' '
	printf "120\tline 120\n121\tline 121\n122\tline 122\n" >expect &&
	ofl-extract "$id" -n 120-122 >out &&
	test_cmp expect out &&
	ofl-extract "$id" --lines=120-122 >out &&
	test_cmp expect out
'

test_expect_success '-n A+N, -N, A- and A' '
	printf "500\tline 500\n501\tline 501\n" >expect &&
	ofl-extract "$id" -n 500+2 >out &&
	test_cmp expect out &&
	printf "999\tline 999\n1000\tline 1000\n" >expect &&
	ofl-extract "$id" -n -2 >out &&
	test_cmp expect out &&
	ofl-extract "$id" -n 999- >out &&
	test_cmp expect out &&
	printf "7\tline 7\n" >expect &&
	ofl-extract "$id" -n 7 >out &&
	test_cmp expect out
'

test_expect_success 'several -n print in the order given' '
	printf "9\tline 9\n2\tline 2\n3\tline 3\n9\tline 9\n" >expect &&
	ofl-extract "$id" -n 9 -n 2-3 -n 9 >out &&
	test_cmp expect out
'

test_expect_success 'a range past the end is clamped, and stderr says so' '
	printf "999\tline 999\n1000\tline 1000\n" >expect &&
	ofl-extract "$id" -n 999-1200 >out 2>err &&
	test_cmp expect out &&
	echo "ofl-extract: lines 999-1200: clamped to 999-1000 (ofl:$id has 1000 lines)" >expect &&
	test_cmp expect err
'

test_expect_success 'nothing in range: a warning and exit 1' '
	test_expect_code 1 ofl-extract "$id" -n 2000-2100 >out 2>err &&
	test ! -s out &&
	echo "ofl-extract: lines 2000-2100: out of range (ofl:$id has 1000 lines)" >expect &&
	test_cmp expect err &&
	test_expect_code 1 ofl-extract "$id" -n 1001- >out 2>err &&
	test ! -s out
'

test_expect_success 'one range in, one out: exit 0' '
	printf "1\tline 1\n" >expect &&
	ofl-extract "$id" -n 5000 -n 1 >out 2>err &&
	test_cmp expect out &&
	grep -q "lines 5000-5000: out of range" err
'

test_expect_success 'bad ranges are usage errors (exit 2)' '
	for r in 0 0-5 5-3 abc 3+0 -0 "" 1-2-3 +5 99999999999999999999; do
		test_expect_code 2 ofl-extract "$id" -n "$r" >out 2>err &&
		test ! -s out &&
		grep -q "^ofl-extract: bad line range" err || return 1
	done
'

test_expect_success 'a bad range in ID:A-B: a usage error, nothing read or stored' '
	n=$(ofl-search -q | wc -l) &&
	for r in 5-3 0-5 "" 5- -5 1-99999999999999999999; do
		echo "{\"a\":1}" |
		test_expect_code 2 ofl-extract "$id:$r" >out 2>err &&
		test ! -s out &&
		test "$(wc -l <err)" = 1 &&
		grep -q "^ofl-extract: $id:$r: bad line range" err || return 1
	done &&
	test "$(ofl-search -q | wc -l)" = "$n"
'

test_expect_success 'a long line, with no budget, comes whole' '
	awk "BEGIN { for (i = 0; i < 300000; i++) printf \"x\"; print \"\" }" \
	    >long.txt &&
	echo after >>long.txt &&
	lid=$(cap <long.txt) &&
	ofl-extract "$lid" -n 1-2 --max-bytes 0 >out &&
	{ printf "1\t"; sed -n 1p long.txt; printf "2\tafter\n"; } >expect &&
	test_cmp expect out
'

test_expect_success 'binary lines print as they are with -n' '
	printf "1\ta\000b\377\376c\r\n" >expect &&
	ofl-extract "$bid" -n 1 >out &&
	cmp expect out
'

test_expect_success '-b prints raw bytes, offsets from 0, B included' '
	printf "\000b\377" >expect &&
	ofl-extract "$bid" -b 1-3 >out &&
	cmp expect out &&
	printf "tail" >expect &&
	ofl-extract "$bid" -b -4 >out &&
	cmp expect out &&
	printf "line 2\n" >expect &&
	ofl-extract "$id" -b 7+7 >out &&
	test_cmp expect out &&
	printf "line 1000\n" >expect &&
	ofl-extract "$id" -b 8883- >out &&
	test_cmp expect out
'

test_expect_success '-b past the end is clamped' '
	printf "tail" >expect &&
	ofl-extract "$bid" -b 13-100 >out 2>err &&
	cmp expect out &&
	grep -q "bytes 13-100: clamped to 13-16" err
'

test_expect_success 'unknown ID: exit 3' '
	test_expect_code 3 ofl-extract zzzzzzzz >out 2>err &&
	test ! -s out &&
	grep -q "^ofl-extract: zzzzzzzz: unknown artifact" err
'

test_expect_success 'ambiguous prefix: exit 2' '
	# More artifacts than ID characters: two share a first character.
	i=0 &&
	while [ $i -lt 40 ]; do
		echo "content $i" | cap >>ids || return 1
		i=$((i + 1))
	done &&
	p=$(cut -c1 ids | sort | uniq -d | head -n 1) &&
	test -n "$p" &&
	test_expect_code 2 ofl-extract "$p" -n 1 >out 2>err &&
	test ! -s out &&
	grep -q "ambiguous" err
'

test_expect_success 'stdin with an ofl: reference line names the artifact' '
	printf "ofl:%s text 4 kB 1,000 lines\nmore notice\n" "$id" |
	    ofl-extract -n 10 >out &&
	printf "10\tline 10\n" >expect &&
	test_cmp expect out &&
	printf "ofl:%s\n" "$id" | ofl-extract - -n 11 >out &&
	printf "11\tline 11\n" >expect &&
	test_cmp expect out
'

test_expect_success 'stdin that is data is captured first' '
	printf "alpha\nbeta\ngamma\n" | ofl-extract -n 2 >out &&
	printf "2\tbeta\n" >expect &&
	test_cmp expect out &&
	ofl-extract @ >out &&
	printf "alpha\nbeta\ngamma\n" >expect &&
	test_cmp expect out
'

test_expect_success 'binary stdin is captured byte for byte' '
	ofl-extract <bin.dat >out &&
	cmp bin.dat out
'

test_expect_success 'ofl-capture | ofl-extract composes' '
	seq 1 50000 | ofl-capture | ofl-extract -n 49999- >out &&
	printf "49999\t49999\n50000\t50000\n" >expect &&
	test_cmp expect out
'

test_expect_success '-s names the store' '
	mkdir other &&
	echo elsewhere | ofl-capture -s "$PWD/other" -T 0 -q >/dev/null &&
	ofl-extract -s "$PWD/other" @ >out &&
	echo elsewhere >expect &&
	test_cmp expect out &&
	ofl-extract --store "$PWD/other" @ -n 1 >out &&
	printf "1\telsewhere\n" >expect &&
	test_cmp expect out
'

test_expect_success 'an empty artifact: the plain form prints nothing, exit 0' '
	ofl-capture </dev/null &&
	ofl-extract @ >out &&
	test ! -s out &&
	test_expect_code 1 ofl-extract @ -n 1- >out 2>err &&
	test ! -s out
'

test_expect_success '--help: usage on stdout, exit 0' '
	ofl-extract --help >out 2>err &&
	test ! -s err &&
	grep -q "^usage: ofl-extract " out
'

test_expect_success 'bad usage: exit 2, usage on stderr' '
	test_expect_code 2 ofl-extract --bogus >out 2>err &&
	test ! -s out &&
	grep -q "^usage: ofl-extract " err &&
	test_expect_code 2 ofl-extract "$id" . x >out 2>err &&
	test_expect_code 2 ofl-extract "$id" -b 1-2 -e x >out 2>err &&
	test_expect_code 2 ofl-extract "$id" -r >out 2>err &&
	test_expect_code 2 ofl-extract "$id" -C 2 >out 2>err &&
	test_expect_code 2 ofl-extract "$id" --errors -e x >out 2>err &&
	test_expect_code 2 ofl-extract "$id" --skip 1 >out 2>err &&
	test_expect_code 2 ofl-extract "$id" --max-bytes x >out 2>err
'

test_expect_success 'a bad value or a mix of options: exit 2, one line' '
	test_expect_code 2 ofl-extract "$id" --time-limit -1 >out 2>err &&
	echo "ofl-extract: --time-limit: bad time '"'"'-1'"'"' (seconds, or 30s, 5m; 0: none)" >expect &&
	test_cmp expect err &&
	test_expect_code 2 env OFL_TIME_LIMIT=abc ofl-extract "$id" . >out \
	    2>err &&
	grep "^ofl-extract: OFL_TIME_LIMIT: bad time" err &&
	test "$(wc -l <err)" = 1 &&
	test_expect_code 2 ofl-extract "$id:1-1" -n 1 >out 2>err &&
	echo "ofl-extract: $id:1-1: a line range in the reference goes without -n and -b" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-extract "$id" -C 2 >out 2>err &&
	echo "ofl-extract: -C and -i go with -e" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-extract "$id" --role "" >out 2>err &&
	test "$(wc -l <err)" = 1 &&
	test ! -s out
'

test_expect_success 'a write error on stdout: exit 3' '
	test -w /dev/full || return 0
	test_expect_code 3 ofl-extract "$id" >/dev/full 2>err &&
	grep -q "^ofl-extract: " err &&
	test_expect_code 3 ofl-extract "$id" -n 1-10 >/dev/full 2>err
'

test_expect_success 'secrets are masked in lines, kept in the raw forms' '
	printf "a\nkey AKIAIOSFODNN7EXAMPLE\n" >sec.txt &&
	sid=$(cap <sec.txt) &&
	ofl-extract "$sid" -n 2 >out 2>err &&
	printf "2\tkey [redacted: aws-access-key]\n" >expect &&
	test_cmp expect out &&
	echo "ofl-extract: 1 secret masked (OFL_REDACT=off shows them)" >expect &&
	test_cmp expect err &&
	OFL_REDACT=off ofl-extract "$sid" -n 2 >out 2>err &&
	printf "2\tkey AKIAIOSFODNN7EXAMPLE\n" >expect &&
	test_cmp expect out &&
	test ! -s err &&
	ofl-extract "$sid" >out &&
	test_cmp sec.txt out &&
	ofl-extract "$sid" -b 6-9 >out &&
	printf "AKIA" >expect &&
	test_cmp expect out
'

test_done
