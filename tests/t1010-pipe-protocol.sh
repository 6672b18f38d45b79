#!/bin/sh
#
# t1010-pipe-protocol: references with line ranges (ofl:ID:A-B) in
# arguments and on standard input, "-" as standard input for every tool,
# one behaviour on empty standard input, a query the shell cut into
# words, and what counts as a reference line.

. "$(dirname "$0")/lib.sh"

# stored: how many artifacts the store holds.
stored() {
	ofl-search -a -q 2>/dev/null | wc -l | tr -d ' '
}

test_expect_success 'setup' '
	seq 1 3000 | sed "s/^/line /" >lines &&
	ofl-capture -T 0 -q <lines >ref &&
	id=$(sed "s/^ofl://" ref) && test -n "$id" &&
	echo "$id" >id &&
	printf "{\"a\": 1, \"b\": [true]}\n" | ofl-capture -T 0 -q >jref &&
	sed "s/^ofl://" jref >jid
'
id=$(cat id 2>/dev/null)
jid=$(cat jid 2>/dev/null)

# 1. Ranges.

test_expect_success 'ofl-extract ofl:ID:A-B prints those lines, as -n A-B' '
	printf "3\tline 3\n4\tline 4\n5\tline 5\n" >expect &&
	ofl-extract "ofl:$id:3-5" >out &&
	test_cmp expect out &&
	ofl-extract "$id:3-5" >out &&
	test_cmp expect out &&
	ofl-extract "$id" -n 3-5 >out &&
	test_cmp expect out &&
	printf "7\tline 7\n" >expect &&
	ofl-extract "ofl:$id:7" >out &&
	test_cmp expect out
'

test_expect_success 'a range scopes -e as well' '
	ofl-extract "$id:10-20" -e "line 1[0-3]\$" >out &&
	printf "10:\tline 10\n11:\tline 11\n12:\tline 12\n13:\tline 13\n" \
	    >expect &&
	test_cmp expect out
'

test_expect_success 'a bad range: one line, exit 2' '
	test_expect_code 2 ofl-extract "ofl:$id:5-3" >out 2>err &&
	test ! -s out &&
	echo "ofl-extract: ofl:$id:5-3: bad line range (ID:A-B, 1 <= A <= B)" \
	    >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-extract "$id:0-3" >out 2>err &&
	test_expect_code 2 ofl-extract "$id:3-" >out 2>err &&
	test_expect_code 2 ofl-extract "$id:3-5" -n 1-2 >out 2>err &&
	grep "goes without -n and -b" err
'

test_expect_success 'a hit piped into ofl-extract prints its lines only' '
	ofl-search "$id" "line 1500" -q -n 1 >hit &&
	range=$(sed "s/^ofl:$id://" hit) &&
	test "$range" != "1-3000" && test -n "$range" &&
	ofl-extract "$id" -n "$range" >expect &&
	ofl-extract <hit >out &&
	test_cmp expect out &&
	grep "	line 1500\$" out &&
	test "$(wc -l <out)" -lt 100
'

test_expect_success 'a hit line with its score, on stdin, names its lines' '
	ofl-search "$id" "line 1500" -n 1 >hits &&
	head -n 1 hits | grep "^ofl:$id:[0-9-]*  (" &&
	ofl-extract <hits >out &&
	test_cmp expect out
'

test_expect_success 'ofl-search ID:A-B searches only those lines' '
	ofl-search "$id:1490-1495" line -q >out &&
	echo "ofl:$id:1490-1495" >expect &&
	test_cmp expect out &&
	ofl-search "$id" 1500 -q >out &&
	test -s out &&
	test_expect_code 1 ofl-search "$id:2000-2010" 1500 >out &&
	test ! -s out
'

test_expect_success 'ofl-search takes ranges from a reference stream' '
	printf "ofl:%s:1490-1495\n" "$id" | ofl-search line -q >out &&
	echo "ofl:$id:1490-1495" >expect &&
	test_cmp expect out &&
	ofl-search "$id" 1500 -q | ofl-search - line -q >out &&
	grep "^ofl:$id:[0-9]*-[0-9]*\$" out >got &&
	test "$(cat got)" = "$(ofl-search "$id" 1500 -q)"
'

test_expect_success 'ofl-schema and ofl-index act on the whole artifact' '
	ofl-schema "$jid" >expect &&
	ofl-schema "ofl:$jid:1-1" >out &&
	test_cmp expect out &&
	ofl-index "$jid" >expect &&
	printf "ofl:%s:1-1\nofl:%s:1\n" "$jid" "$jid" | ofl-index >out &&
	test_cmp expect out &&
	printf "ofl:%s:1-1\nofl:%s:1\n" "$jid" "$jid" | ofl-schema >out &&
	ofl-schema "$jid" >expect &&
	test_cmp expect out
'

test_expect_success 'ofl-gc --purge ID:A-B: refused, nothing removed' '
	test_expect_code 2 ofl-gc --purge "ofl:$id:1-2" >out 2>err &&
	echo "ofl-gc: ofl:$id:1-2: --purge removes whole artifacts: give the ID without a line range" \
	    >expect &&
	test_cmp expect err &&
	ofl-extract "$id" -n 1 >out &&
	printf "1\tline 1\n" >expect &&
	test_cmp expect out
'

# 2. Empty standard input.

for tool in ofl-extract ofl-schema ofl-index "ofl-search - line" \
    "ofl-extract -"; do
	test_expect_success "$tool </dev/null: one line, exit 2, nothing stored" '
		before=$(stored) &&
		test_expect_code 2 $tool </dev/null >out 2>err &&
		test ! -s out &&
		test "$(wc -l <err)" -eq 1 &&
		grep "standard input is empty" err &&
		test "$(stored)" = "$before"
	'
done

test_expect_success 'ofl-search QUERY with an empty pipe: exit 2, stored nothing' '
	before=$(stored) &&
	: | test_expect_code 2 ofl-search line >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 1 &&
	grep "standard input is empty.*-a searches the whole store" err &&
	test "$(stored)" = "$before"
'

test_expect_success 'ofl-search QUERY with /dev/null searches the store' '
	ofl-search "line 1500" -q </dev/null >out &&
	grep "^ofl:$id:" out
'

test_expect_success 'ofl-capture of empty stdin still stores an empty artifact' '
	ofl-capture </dev/null >out 2>err &&
	test ! -s out && test ! -s err &&
	ofl-search -j -n 1 | grep "\"kind\":\"empty\""
'

# 4. "-" is standard input.

test_expect_success '"-" is standard input for ofl-schema, ofl-index, ofl-search' '
	ofl-schema "$jid" >expect &&
	echo "ofl:$jid" | ofl-schema - >out &&
	test_cmp expect out &&
	echo "{\"c\": 2}" | ofl-schema - >out &&
	echo "{c: integer 2}" >expect &&
	test_cmp expect out &&
	ofl-index "$jid" >expect &&
	echo "ofl:$jid" | ofl-index - >out &&
	test_cmp expect out &&
	echo "ofl:$id" | ofl-search - "line 1500" -q >out &&
	grep "^ofl:$id:" out &&
	printf "alpha\nbeta\n" | ofl-search - beta -q >out &&
	grep "^ofl:[0-9a-z]*:1-2\$" out
'

test_expect_success '"-" among IDs: stdin refs take its place' '
	k=$(echo "{\"k\": 1}" | ofl-capture -T 0 -q) && k=${k#ofl:} &&
	echo "ofl:$jid" | ofl-schema "$k" - >out &&
	printf "ofl:%s json\n{k: integer 1}\nofl:%s json\n%s\n" "$k" "$jid" \
	    "{a: integer 1, b: [true] x1}" >expect &&
	test_cmp expect out &&
	test_expect_code 2 ofl-schema - - </dev/null >out 2>err &&
	grep "standard input given twice" err
'

test_expect_success 'ofl-capture -: standard input; ofl-capture -- - runs "-"' '
	echo data | ofl-capture - >out &&
	echo data >expect &&
	test_cmp expect out &&
	ofl-extract @ >out &&
	test_cmp expect out &&
	echo data | test_expect_code 127 ofl-capture -- - >out 2>err &&
	echo data | test_expect_code 2 ofl-capture - more >out 2>err &&
	test ! -s out &&
	head -n 1 err >first &&
	echo "ofl-capture: -: standard input takes no more operands; to run a command, give -- CMD" \
	    >expect &&
	test_cmp expect first
'

# 3. A query cut into words.

test_expect_success 'ofl-search ID two words: fails whole, says to quote' '
	test_expect_code 2 ofl-search "$id" tarball 4.17.21 >out 2>err &&
	test ! -s out &&
	printf "%s\n%s\n" "ofl-search: tarball: not an artifact ID" \
	    "ofl-search: the last operand is the query; to search for several words, quote them: ofl-search $id '"'"'tarball 4.17.21'"'"'" \
	    >expect &&
	test_cmp expect err
'

test_expect_success 'an unknown ID before the query: nothing searched' '
	test_expect_code 3 ofl-search "$id" zzzzzzzz line >out 2>err &&
	test ! -s out &&
	grep "zzzzzzzz: unknown artifact" err
'

# 9. What is a reference line.

test_expect_success 'a log line that starts ofl:WORD is data' '
	printf "ofl:abc something happened\nnext\n" >log &&
	ofl-extract <log >out &&
	test_cmp log out &&
	printf "ofl:%s started\n" "$id" >log &&
	before=$(stored) &&
	ofl-extract <log >out &&
	test_cmp log out &&
	test "$(stored)" -eq $((before + 1))
'

test_expect_success 'a log line ofl:ID:WORD is data too' '
	printf "ofl:%s:12 seconds\n" "$id" >log &&
	ofl-extract <log >out &&
	test_cmp log out
'

test_expect_success 'a notice is a reference stream' '
	seq 1 5000 | ofl-capture -T 0 >notice &&
	head -n 1 notice | grep "^ofl:[0-9a-z]* text " &&
	ofl-extract -n 4999-5000 <notice >out &&
	printf "4999\t4999\n5000\t5000\n" >expect &&
	test_cmp expect out
'

test_expect_success 'slow large output: the next tool takes the notice, not the data' '
	n=$(ofl-search -q | wc -l) &&
	{ seq 1 300; sleep 1; seq 1 100000; } | ofl-capture >slow &&
	grep "^--- ofl: output over .* passed through above" slow &&
	head -n 1 slow >first && echo 1 >expect && test_cmp expect first &&
	ofl-extract -n 100299-100300 <slow >out &&
	printf "100299\t99999\n100300\t100000\n" >expect &&
	test_cmp expect out &&
	test "$(ofl-search -q | wc -l)" -eq $((n + 1))
'

test_expect_success 'a line like the mark in data stays data' '
	{ echo "--- ofl: not a mark ---"; echo "hello"; } >fake &&
	ofl-extract -n 1-2 <fake >out &&
	cut -f 2- out >got && test_cmp fake got
'

test_expect_success 'bare references and the listing are reference streams' '
	printf "ofl:%s\n" "$jid" | ofl-schema >out &&
	ofl-schema "$jid" >expect &&
	test_cmp expect out &&
	ofl-search -k json -n 1 >listing &&
	head -n 1 listing | grep "^ID  *KIND  *SIZE" &&
	ofl-schema <listing >out &&
	ofl-schema "$(ofl-search -k json -n 1 -q)" >expect &&
	test_cmp expect out
'

test_done
