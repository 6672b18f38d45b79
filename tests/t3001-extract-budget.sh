#!/bin/sh
#
# t3001-extract-budget: output cut to --max-bytes is marked with what was
# left out and the command that prints it; following the marks gives
# everything back.

. "$(dirname "$0")/lib.sh"

cap() {
	ofl-capture -T 0 -q | sed -n 's/^ofl:\([a-z0-9]*\).*/\1/p'
}

# follow CMD...: run the command, then every command its marks name, and
# print the output without the marks.
follow() {
	"$@" >page || return 1
	n=0
	while grep -q '^\[\.\.\. .* not shown: ofl-extract ' page; do
		grep -v '^\[\.\.\. .* not shown: ' page >>all
		cmd=$(sed -n 's/^\[\.\.\. .* not shown: \(ofl-extract .*\)\]$/\1/p' \
		    page | head -n 1)
		eval "$cmd" >page || return 1
		n=$((n + 1))
		[ $n -lt 1000 ] || return 1
	done
	cat page >>all
}

test_expect_success 'setup' '
	seq 1 5000 | sed "s/^/row /" >rows.txt &&
	id=$(cap <rows.txt) &&
	echo "$id" >id
'
id=$(cat id 2>/dev/null)

test_expect_success '-n has a budget of 4000 bytes, and a mark' '
	ofl-extract "$id" -n 1- >out &&
	grep -v "^\[\.\.\." out >body &&
	test "$(wc -c <body)" -le 4000 &&
	test "$(wc -c <body)" -gt 3900 &&
	last=$(tail -n 1 body | cut -f1) &&
	next=$((last + 1)) &&
	echo "[... lines $next-5000 of ofl:$id not shown: ofl-extract $id -n $next-5000]" >expect &&
	tail -n 1 out >mark &&
	test_cmp expect mark
'

test_expect_success 'every line printed is a line of the artifact' '
	ofl-extract "$id" -n 1- | grep -v "^\[\.\.\." >body &&
	awk -F "\t" "{ print \$2 }" body >text &&
	head -n "$(wc -l <text)" rows.txt >expect &&
	test_cmp expect text
'

test_expect_success 'following the marks gives every line back' '
	rm -f all &&
	follow ofl-extract "$id" -n 1- &&
	awk "{ printf \"%d\t%s\n\", NR, \$0 }" rows.txt >expect &&
	test_cmp expect all
'

test_expect_success 'the rest of several ranges is marked in one go' '
	ofl-extract "$id" --max-bytes 30 -n 10-20 -n 40 -n 4990- >out &&
	printf "10\trow 10\n11\trow 11\n12\trow 12\n" >expect &&
	echo "[... lines 13-20, 40, 4990-5000 of ofl:$id not shown: ofl-extract $id --max-bytes 30 -n 13-20 -n 40 -n 4990-5000]" >>expect &&
	test_cmp expect out
'

test_expect_success '--max-bytes 0: no budget' '
	ofl-extract "$id" -n 1- --max-bytes 0 >out &&
	awk "{ printf \"%d\t%s\n\", NR, \$0 }" rows.txt >expect &&
	test_cmp expect out
'

test_expect_success 'a first line over the budget: its start, then its bytes' '
	{
		awk "BEGIN { for (i = 0; i < 9000; i++) printf \"%d\", i % 10; print \"\" }"
		echo second
	} >long.txt &&
	lid=$(cap <long.txt) &&
	echo "$lid" >lid &&
	ofl-extract "$lid" -n 1-2 --max-bytes 100 >out &&
	{
		printf "1\t"; head -c 97 long.txt; echo
		echo "[... bytes 97-8999 of ofl:$lid (the rest of line 1) not shown: ofl-extract $lid --max-bytes 100 -b 97-8999]"
		echo "[... line 2 of ofl:$lid not shown: ofl-extract $lid --max-bytes 100 -n 2]"
	} >expect &&
	test_cmp expect out
'

test_expect_success 'a cut never splits a UTF-8 character' '
	{
		awk "BEGIN { for (i = 0; i < 3000; i++) printf \"\303\251\"; print \"\" }"
	} >utf.txt &&
	uid=$(cap <utf.txt) &&
	ofl-extract "$uid" -n 1 --max-bytes 10 >out &&
	printf "1\t\303\251\303\251\303\251\n" >expect &&
	head -n 1 out >first &&
	cmp expect first
'

test_expect_success 'following a cut long line gives it back whole' '
	rm -f all &&
	lid=$(cat lid) &&
	follow ofl-extract "$lid" -b 0-8999 --max-bytes 1000 &&
	head -c 9000 long.txt >expect &&
	tr -d "\n" <all >got &&
	tr -d "\n" <expect >want &&
	cmp want got
'

test_expect_success '-b is cut to the budget and marked on a new line' '
	ofl-extract "$id" -b 0- --max-bytes 12 >out &&
	{
		printf "row 1\nrow 2\n"
		echo "[... bytes 12-43892 of ofl:$id not shown: ofl-extract $id --max-bytes 12 -b 12-43892]"
	} >expect &&
	test_cmp expect out &&
	ofl-extract "$id" -b 0- --max-bytes 8 >out &&
	{
		printf "row 1\nro\n"
		echo "[... bytes 8-43892 of ofl:$id not shown: ofl-extract $id --max-bytes 8 -b 8-43892]"
	} >expect &&
	test_cmp expect out
'

test_expect_success 'the plain form with --max-bytes is cut too' '
	ofl-extract "$id" --max-bytes 6 >out &&
	{
		printf "row 1\n"
		echo "[... bytes 6-43892 of ofl:$id not shown: ofl-extract $id --max-bytes 6 -b 6-43892]"
	} >expect &&
	test_cmp expect out
'

test_expect_success '--json: objects, and the mark as an object' '
	ofl-extract "$id" -n 3-9 --json --max-bytes 100 >out &&
	{
		echo "{\"id\":\"$id\",\"line\":3,\"text\":\"row 3\"}"
		echo "{\"id\":\"$id\",\"line\":4,\"text\":\"row 4\"}"
		echo "{\"id\":\"$id\",\"omitted\":\"lines 5-9 of ofl:$id\",\"command\":\"ofl-extract $id --max-bytes 100 --json -n 5-9\"}"
	} >expect &&
	test_cmp expect out
'

test_expect_success '--json escapes text; invalid UTF-8 becomes U+FFFD' '
	printf "tab\there \"q\" \\\\ \001 \377 \303\251\n" | ofl-extract -n 1 --json >out &&
	id2=$(ofl-extract @ -n 1 --json | sed "s/^{\"id\":\"\([^\"]*\)\".*/\1/") &&
	printf "{\"id\":\"%s\",\"line\":1,\"text\":\"tab\\\\there \\\\\"q\\\\\" \\\\\\\\ \\\\u0001 \\\\ufffd \303\251\"}\n" "$id2" >expect &&
	test_cmp expect out
'

test_done
