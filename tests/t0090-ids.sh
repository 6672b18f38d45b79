#!/bin/sh
# References: full IDs, unique prefixes, @ and @N, ofl: in front, any
# case; ambiguous prefixes (exit 2), unknown IDs (exit 3), malformed ones
# (exit 2), as ofl-extract sees them.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

test_expect_success 'setup: artifacts until two IDs share a first character' '
	n=0 && : >ids &&
	while [ $n -lt 40 ]; do
		n=$((n + 1)) &&
		echo "artifact $n" >c$n &&
		ofl-capture -q -T 0 <c$n | sed "s/^ofl://" >>ids || exit 1
		test "$(cut -c 1 ids | sort | uniq -d | wc -l)" -eq 0 || break
	done &&
	test "$(cut -c 1 ids | sort | uniq -d | wc -l)" -eq 1 &&
	echo $n >count
'
n=$(cat count 2>/dev/null)

test_expect_success 'IDs are 8 characters of the ID alphabet' '
	test "$(grep -c "^[0-9abcdefghjkmnpqrstvwxyz]\{8\}$" ids)" -eq "$n"
'

test_expect_success 'a full ID' '
	id=$(sed -n 1p ids) &&
	ofl-extract "$id" >out && test_cmp c1 out
'

test_expect_success 'ofl:ID' '
	id=$(sed -n 1p ids) &&
	ofl-extract "ofl:$id" >out && test_cmp c1 out
'

test_expect_success 'upper case' '
	id=$(sed -n 1p ids | tr a-z A-Z) &&
	ofl-extract "$id" >out && test_cmp c1 out
'

test_expect_success 'the shortest unique prefix' '
	id=$(sed -n 1p ids) &&
	k=1 &&
	while [ $k -le 8 ]; do
		p=$(printf %s "$id" | cut -c 1-$k) &&
		test "$(grep -c "^$p" ids)" -eq 1 && break
		k=$((k + 1))
	done &&
	ofl-extract "$p" >out && test_cmp c1 out &&
	ofl-extract "ofl:$p" >out && test_cmp c1 out
'

test_expect_success '@ is the latest, @2 the one before' '
	ofl-extract @ >out && test_cmp "c$n" out &&
	ofl-extract ofl:@ >out && test_cmp "c$n" out &&
	ofl-extract @1 >out && test_cmp "c$n" out &&
	ofl-extract @2 >out && test_cmp "c$((n - 1))" out &&
	ofl-extract "@$n" >out && test_cmp c1 out
'

test_expect_success 'an ambiguous prefix: exit 2, both candidates named' '
	p=$(cut -c 1 ids | sort | uniq -d) &&
	test_expect_code 2 ofl-extract "$p" >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 1 &&
	grep "^ofl-extract: .*ambiguous" err &&
	for id in $(grep "^$p" ids); do grep "$id" err || exit 1; done
'

test_expect_success 'an unknown ID: exit 3' '
	for c in 0 1 2 3 4 5 6 7 8 9 a b c d e f g h j k m n p q r s t v w x y z; do
		grep -q "^$c" ids || break
	done &&
	test_expect_code 3 ofl-extract "${c}zzzzzzz" >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 1 &&
	grep "^ofl-extract: .*${c}zzzzzzz" err
'

test_expect_success '@N beyond the store: exit 3' '
	test_expect_code 3 ofl-extract "@$((n + 1))" >out 2>err &&
	test ! -s out && test -s err
'

test_expect_success 'malformed references: exit 2' '
	for ref in ../x ../../etc/passwd "a/b" "ab cd" "x;y" 0123456789abc \
	    @0 @-1 @x "ofl:" "abil"; do
		test_expect_code 2 ofl-extract "$ref" </dev/null >out 2>err ||
		{ echo "ref: $ref"; exit 1; }
		test ! -s out || { echo "stdout for $ref"; exit 1; }
		test -s err || { echo "no stderr for $ref"; exit 1; }
	done
'

test_expect_success 'a reference with control characters: one clean error line' '
	esc=$(printf "ofl:ab\033[2J\rcd\n") &&
	test_expect_code 2 ofl-search "$esc" word >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 1 &&
	test "$(tr -d "\011\012\040-\176" <err | wc -c)" -eq 0 &&
	grep -q "^ofl-search: ofl:ab?\[2J cd: not an artifact ID$" err
'

# Data given where an ID was meant (what `ofl-capture -q` prints for
# output small enough to pass whole): one line, its end still the reason.
test_expect_success 'kilobytes given as an ID: one line of 1 kB at most that says why' '
	big=$(printf "%05000d" 0 | tr 0 x) &&
	for cmd in "ofl-schema $big" "ofl-search $big word" \
	    "ofl-diff $big $big" "ofl-gc --purge $big"; do
		test_expect_code 2 $cmd >out 2>err &&
		test ! -s out &&
		test "$(wc -l <err)" -eq 1 &&
		test "$(wc -c <err)" -le 1100 &&
		grep -q "^ofl-[a-z]*: xxxx*x \[\.\.\.\] xxx*: not an artifact ID$" err ||
		{ echo "$cmd" | cut -c 1-40; cat err; return 1; }
	done &&
	e=$(printf "%03000d" 0 | sed "s/0/\xc3\xa9/g") &&
	test_expect_code 2 ofl-schema "$e" 2>err &&
	test "$(wc -l <err)" -eq 1 &&
	iconv -f UTF-8 -t UTF-8 err >/dev/null &&
	grep -q "é \[\.\.\.\] é.*: not an artifact ID$" err
'

test_expect_success '../x touches nothing outside the store' '
	echo secret >x &&
	test_expect_code 2 ofl-extract ../x </dev/null >out 2>&1 &&
	! grep secret out
'

test_expect_success 'ofl-search -q lists the IDs newest first' '
	ofl-search -q -a | grep -F -x -f ids >listed &&
	sed "1!G;h;\$!d" ids >expect &&
	test_cmp expect listed
'

test_expect_success 'the reference line parses back to the same ID' '
	seq 1 10000 | ofl-capture >notice &&
	id=$(sed -n "s/^ofl:\([0-9a-z]*\) .*/\1/p" notice) &&
	test "$id" = "$(ofl-search -q | head -n 1)"
'

test_done
