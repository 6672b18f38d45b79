#!/bin/sh
#
# t3020-extract-regex: -e with context, like grep -n.

. "$(dirname "$0")/lib.sh"

cap() {
	ofl-capture -T 0 -q | sed -n 's/^ofl:\([a-z0-9]*\).*/\1/p'
}

test_expect_success 'setup' '
	cat >app.log <<-\EOF &&
	boot ok
	connect db
	WARN slow query
	ERROR connection refused
	retry 1
	retry 2
	ok
	ok
	ok
	Error: connection reset
	done
	EOF
	cap <app.log >id &&
	test -s id
'
id=$(cat id 2>/dev/null)

test_expect_success '-e prints N:<tab>line' '
	printf "4:\tERROR connection refused\n10:\tError: connection reset\n" >expect &&
	ofl-extract "$id" -e "connection (refused|reset)" >out &&
	test_cmp expect out
'

test_expect_success 'the same lines as grep -n, with a tab' '
	grep -n -E "r.t" app.log | sed "s/:/:\t/" >expect &&
	ofl-extract "$id" -e "r.t" >out &&
	test_cmp expect out
'

test_expect_success '-C adds context as N-<tab>line and -- between groups' '
	cat >expect <<-\EOF &&
	3-	WARN slow query
	4:	ERROR connection refused
	5-	retry 1
	--
	9-	ok
	10:	Error: connection reset
	11-	done
	EOF
	ofl-extract "$id" -e "connection" -C 1 >out &&
	test_cmp expect out
'

test_expect_success 'groups that touch are merged' '
	cat >expect <<-\EOF &&
	4-	ERROR connection refused
	5:	retry 1
	6:	retry 2
	7-	ok
	EOF
	ofl-extract "$id" --regexp "^retry" --context 1 >out &&
	test_cmp expect out
'

test_expect_success '-i ignores case (plain strings and expressions)' '
	printf "4:\tERROR connection refused\n10:\tError: connection reset\n" >expect &&
	ofl-extract "$id" -e error -i >out &&
	test_cmp expect out &&
	ofl-extract "$id" -e "^err" --ignore-case >out &&
	test_cmp expect out
'

test_expect_success '-n limits where to look' '
	printf "10:\tError: connection reset\n" >expect &&
	ofl-extract "$id" -e connection -n 5- >out &&
	test_cmp expect out
'

test_expect_success 'no match: exit 1, nothing printed' '
	test_expect_code 1 ofl-extract "$id" -e "panic" >out &&
	test ! -s out
'

test_expect_success 'a bad expression: exit 2' '
	test_expect_code 2 ofl-extract "$id" -e "a(b" >out 2>err &&
	test ! -s out &&
	grep -q "^ofl-extract: bad regular expression" err
'

test_expect_success 'lines with NUL bytes are searched whole' '
	printf "a\000needle\nplain\n" | cap >nid &&
	printf "1:\ta\000needle\n" >expect &&
	ofl-extract "$(cat nid)" -e "need.e" >out &&
	cmp expect out
'

# The lines of a read buffer run on into the next ones: an expression
# reads each line alone (the sanitizers' regexec reads a C string).
test_expect_success 'an expression over a MiB of lines and one line of a MiB' '
	yes a | head -c 1048576 | cap >mib &&
	test_expect_code 1 ofl-extract "$(cat mib)" -e "z+y" >out &&
	test ! -s out &&
	{ yes a | head -n 100000; echo "the zzy line"; } | cap >mib2 &&
	printf "100001:\tthe zzy line\n" >expect &&
	ofl-extract "$(cat mib2)" -e "z+y" >out &&
	test_cmp expect out &&
	head -c 1048576 /dev/zero | tr "\000" b | cap >line &&
	test_expect_code 1 ofl-extract "$(cat line)" -e "z+y" >out
'

test_expect_success '--json: match true and false' '
	ofl-extract "$id" -e "^done" -C 1 --json >out &&
	{
		echo "{\"id\":\"$id\",\"line\":10,\"text\":\"Error: connection reset\",\"match\":false}"
		echo "{\"id\":\"$id\",\"line\":11,\"text\":\"done\",\"match\":true}"
	} >expect &&
	test_cmp expect out
'

test_expect_success 'over the budget: the rest of the matches is marked' '
	seq 1 3000 | cap >nums &&
	n=$(cat nums) &&
	ofl-extract "$n" -e "^1" -C 1 --max-bytes 40 >out &&
	{
		printf "1:\t1\n2-\t2\n--\n9-\t9\n10:\t10\n11:\t11\n12:\t12\n"
		echo "[... 1107 more matching lines (lines 13-1999) of ofl:$n not shown: ofl-extract $n --max-bytes 40 -e '\''^1'\'' -C 1 -n 13-3000]"
	} >expect &&
	test_cmp expect out
'

test_expect_success 'a context line over the budget: the match first, no loop' '
	awk "BEGIN { for (i = 0; i < 6; i++) { printf \"%d\", i;
	    for (j = 0; j < 5000; j++) printf \"a\"; print \"\" } }" | cap >wide &&
	w=$(cat wide) &&
	ofl-extract "$w" -e "^3" -C 1 >out &&
	head -n 1 out >first &&
	echo "[... line 3 of ofl:$w not shown: ofl-extract $w -n 3]" >expect &&
	test_cmp expect first &&
	sed -n 2p out | cut -c 1-8 >second &&
	printf "4:\t3aaaa\n" >expect &&
	test_cmp expect second &&
	! grep "more matching line" out &&
	awk "BEGIN { for (i = 0; i < 6; i++) printf \"%d%s\n\", i,
	    \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" }" | cap >narrow &&
	w=$(cat narrow) &&
	ofl-extract "$w" -e "^3" -C 1 -m 100 >out &&
	grep "^\[\.\.\. 1 more matching line (line 4) of ofl:$w not shown: ofl-extract $w --max-bytes 100 -e '"'"'^3'"'"' -C 1 -n 4-6\]\$" out &&
	ofl-extract "$w" --max-bytes 100 -e "^3" -C 1 -n 4-6 >out &&
	grep "^4:	3a" out
'

test_expect_success 'following the marks finds every match' '
	n=$(cat nums) &&
	ofl-extract "$n" -e "^1" --max-bytes 0 | cut -f2 >expect &&
	test "$(wc -l <expect)" = 1111 &&
	ofl-extract "$n" -e "^1" --max-bytes 200 >page &&
	: >all &&
	while grep -q "^\[\.\.\." page; do
		grep -v "^\[\.\.\." page | cut -f2 >>all
		cmd=$(sed -n "s/^\[\.\.\. .* not shown: \(ofl-extract .*\)\]$/\1/p" page)
		eval "$cmd" >page || return 1
	done &&
	cut -f2 page >>all &&
	test_cmp expect all
'

test_done
