#!/bin/sh
# t6002: ofl-mcp around a hostile server (tests/mcp/hostile.mjs) that
# crashes, hangs, writes garbage and huge lines: the client always gets an
# answer, and no artifact is lost.

. "$(dirname "$0")/lib.sh"
. "$OFL_SRCDIR/tests/mcp/peers.sh"

test_have_prereq JQ || test_skip_all "jq is needed"
mcp_peers

# jqe FILE SELECT TEST: some lines of FILE match SELECT, and TEST holds
# for each of them.
jqe() {
	jq -c "select($2)" "$1" >.jqe && test -s .jqe &&
	jq -s -e "all(.[]; $3)" .jqe >/dev/null
}

op() {
	printf '{"op":"call","name":"%s","arguments":%s}\n' "$1" "${2:-{\}}"
}

# hostile [ofl-mcp options]: the SDK client, ofl-mcp, the hostile server.
hostile() {
	mcp_client -- ofl-mcp "$@" -- node "$MCP/hostile.mjs"
}

# texts FILE: the first text of each call result, or its error message.
texts() {
	jq -r 'select(.op == "call") |
	    .result.content[0].text // ("error " + (.error.code | tostring) +
	    ": " + .error.message)' "$1"
}

test_expect_success 'a crash in the middle of a call: an error, at once' '
	{
		op echo "{\"text\":\"before\"}"
		op crash
	} | hostile >out 2>err &&
	texts out >t &&
	sed -n 1p t | grep "^echo: before$" &&
	sed -n 2p t | grep "^error -32000: .*ofl-mcp: the MCP server hostile exited with status 3 before answering tools/call crash" &&
	grep "ofl-mcp: the MCP server hostile exited with status 3" err
'

test_expect_success 'ofl-mcp exits with the status of a crashed server' '
	{
		echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"crash\"}}"
		sleep 10
	} | test_expect_code 3 ofl-mcp -- node "$MCP/hostile.mjs" >out 2>err &&
	jq -e ".id == 1 and .error.code == -32000" out
'

test_expect_success 'a call never answered: an error after --timeout' '
	{
		op hang
		op echo "{\"text\":\"still alive\"}"
	} | hostile --timeout 3 >out 2>err &&
	texts out >t &&
	sed -n 1p t | grep "^error -32001: .*ofl-mcp: no answer to tools/call hang from hostile within 3 s; the request was cancelled" &&
	sed -n 2p t | grep "^echo: still alive$"
'

# --timeout 3, not 1: the same wait holds initialize, which a node
# server slow to start on a busy machine answered after a second.
test_expect_success 'progress keeps a slow call alive past --timeout' '
	{
		echo "{\"op\":\"call\",\"name\":\"slow\",\"arguments\":{\"ms\":5000},\"progress\":true}"
		op slow "{\"ms\":5000}"
	} | hostile --timeout 3 >out 2>err &&
	texts out >t &&
	sed -n 1p t | grep "^slow: done$" &&
	sed -n 2p t | grep "^error -32001:"
'

test_expect_success 'a call the client gives up on is cancelled, and dropped' '
	{
		echo "{\"op\":\"call\",\"name\":\"slow\",\"arguments\":{\"ms\":1500},\"timeout\":500}"
		echo "{\"op\":\"sleep\",\"ms\":1500}"
		op echo "{\"text\":\"next\"}"
	} | hostile >out 2>err &&
	texts out >t &&
	sed -n 1p t | grep "^error -32001: .*timed out" &&
	sed -n 2p t | grep "^echo: next$" &&
	test $(jq -c "select(.op == \"call\")" out | wc -l) -eq 2
'

test_expect_success 'a line that is not JSON is dropped, with a warning' '
	op garbage | hostile >out 2>err &&
	texts out >t &&
	echo "garbage: done" >expect &&
	test_cmp expect t &&
	grep "^ofl-mcp: dropped a line of the server that is not JSON (18 B): this is not JSON {$" err
'

test_expect_success 'a 50 MB line that is not JSON is dropped' '
	{
		op huge_garbage
		op echo "{\"text\":\"after\"}"
	} | hostile >out 2>err &&
	texts out >t &&
	printf "%s\n" "huge_garbage: done" "echo: after" >expect &&
	test_cmp expect t &&
	grep "^ofl-mcp: dropped a line of the server that is not JSON (50 MB): <ggg" err
'

test_expect_success 'a 50 MB result: offloaded whole' '
	op huge | hostile >out 2>err &&
	test $(wc -c <out) -lt 10000 &&
	texts out >t &&
	head -n 1 t | grep "^\[ofl\] The result of hostile/huge is 50 MB" &&
	grep "^ofl:[a-z0-9]* text 50 MB 500,000 lines" t &&
	ofl-search -j >list &&
	jqe list ".label == \"hostile/huge\"" ".bytes == 50000000 and .lines == 500000"
'

test_expect_success 'an answer over --max-line is dropped, and answered with an error at once' '
	{
		op big "{\"bytes\":300000}"
		op big "{\"bytes\":300000,\"idlast\":true}"
		op echo "{\"text\":\"after\"}"
	} | hostile --max-line 100k >out 2>err &&
	texts out >t &&
	cat >expect <<-\EOF &&
	error -32002: MCP error -32002: ofl-mcp: the answer of hostile to tools/call big was 303 kB, over the limit of 102400 bytes (ofl-mcp --max-line); it was dropped
	error -32002: MCP error -32002: ofl-mcp: the answer of hostile to tools/call big was 303 kB, over the limit of 102400 bytes (ofl-mcp --max-line); it was dropped
	echo: after
	EOF
	test_cmp expect t &&
	test $(grep -c "^ofl-mcp: dropped a message of 30[0-9] kB from the server: over the limit of 102400 bytes$" err) -eq 2
'

test_expect_success 'a message cut short by a crash is kept, incomplete' '
	op half | hostile >out 2>err &&
	texts out >t &&
	grep "^error -32000: .*exited with status 4 in the middle of a message (505 kB, kept as ofl:[a-z0-9]*, incomplete) before answering tools/call half" t &&
	id=$(sed -n "s/.*kept as ofl:\([a-z0-9]*\),.*/\1/p" t) &&
	ofl-search -j >list &&
	jqe list ".id == \"$id\"" ".incomplete == true and .bytes == 505036 and .label == \"hostile/(message cut short)\""
'

test_expect_success 'error answers and notifications pass through' '
	{
		op fail
		op notify
	} | hostile >out 2>err &&
	jqe out ".op == \"call\" and .name == \"fail\"" ".error.code == -32603 and (.error.message | test(\"failed on purpose\"))" &&
	jqe out ".notification == \"notifications/message\"" ".params.data == \"hostile says hi\""
'

test_expect_success 'the client hangs up: a stubborn server is killed' '
	start=$(date +%s) &&
	echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}" |
	ofl-mcp -- sh -c "trap \"\" TERM; while :; do sleep 0.1; done" \
	    >out 2>err &&
	end=$(date +%s) &&
	test $((end - start)) -ge 4 && test $((end - start)) -le 8 &&
	jq -e ".id == 1 and .error.code == -32000 and
	    (.error.message | test(\"killed by signal 9 before answering ping\"))" out
'

test_expect_success 'SIGTERM: passed on to the server, both end' '
	mkfifo in &&
	{ ofl-mcp -- node "$MCP/hostile.mjs" <in >out 2>err & } &&
	pid=$! &&
	exec 3>in &&
	sleep 1 &&
	spid=$(pgrep -P $pid) &&
	test -n "$spid" &&
	kill -TERM $pid &&
	sleep 1 &&
	exec 3>&- &&
	! kill -0 $pid 2>/dev/null &&
	! kill -0 $spid 2>/dev/null
'

test_expect_success JQ 'calls past the descriptors left: each answered (some with an error), the proxy lives' '
	echo hi | ofl-capture -q -T 0 >/dev/null &&
	i=0 && : >many.jsonl &&
	while [ $i -lt 20 ]; do
		i=$((i + 1))
		printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"ofl_list\",\"arguments\":{\"limit\":5}}}\n" $i >>many.jsonl
	done &&
	(ulimit -n 14 && ofl-mcp <many.jsonl >many.out 2>many.err) &&
	test "$(jq -s length many.out)" -eq 20 &&
	test "$(jq -s "map(select(.result.content[0].text | type ==
	    \"string\")) | length" many.out)" -eq 20 &&
	jq -r "select(.result.isError) | .result.content[0].text" many.out >errs &&
	test -s errs
'

test_done
