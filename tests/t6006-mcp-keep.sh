#!/bin/sh
# t6006: ofl-mcp keeps every byte of a result it offloads, with the SDK
# client and tests/mcp/hostile.mjs: structured content stored with the
# text, output schemas kept (and honoured), resources/read, tasks/result
# and batches offloaded, members unknown to MCP kept, no answer held for
# another call.

. "$(dirname "$0")/lib.sh"
. "$OFL_SRCDIR/tests/mcp/peers.sh"

test_have_prereq JQ || test_skip_all "jq is needed"
mcp_peers

op() {
	printf '{"op":"call","name":"%s","arguments":%s}\n' "$1" "${2:-{\}}"
}

# hostile [ofl-mcp options]: the SDK client, ofl-mcp, the hostile server;
# unwrapped with the option -.
hostile() {
	if [ "${1-}" = - ]; then
		mcp_client -- node "$MCP/hostile.mjs"
	else
		mcp_client -- ofl-mcp "$@" -- node "$MCP/hostile.mjs"
	fi
}

# jqe FILE SELECT TEST: some lines of FILE match SELECT, and TEST holds
# for each of them.
jqe() {
	jq -c "select($2)" "$1" >.jqe && test -s .jqe &&
	jq -s -e "all(.[]; $3)" .jqe >/dev/null
}

# ref FILE: the artifact a notice in FILE names.
ref() {
	jq -r 'select(.op == "call" or .op == "request") |
	    (.result.content // .result.contents)[0].text' "$1" |
	sed -n 's/^ofl:\([a-z0-9]*\) .*/\1/p' | head -n 1
}

test_expect_success 'a short text and a large structured content: both stored' '
	{ echo "{\"op\":\"list\"}"; op structured "{\"bytes\":40000}"; } >ops &&
	hostile - <ops >direct 2>/dev/null &&
	hostile <ops >proxied 2>/dev/null &&
	jqe proxied ".op == \"call\"" "(.result | has(\"structuredContent\") | not) and
	    (.result | has(\"isError\") | not)" &&
	jq -r "select(.op == \"call\") | .result.content[0].text" proxied >notice &&
	head -n 1 notice | grep "It holds both parts of the result, as one JSON object: .text (26 B of text) and .structuredContent (28 kB of structured content)\." &&
	id=$(ref proxied) &&
	grep "^ofl:$id json " notice &&
	ofl-extract "$id" .text >t &&
	echo "\"rows as structured content\"" >expect &&
	test_cmp expect t &&
	ofl-extract --max-bytes 0 -c "$id" .structuredContent >sc &&
	jq -c "select(.op == \"call\") | .result.structuredContent" direct >expect &&
	test_cmp expect sc
'

test_expect_success 'output schemas kept; a small structured result passes as it is' '
	{ echo "{\"op\":\"list\"}"; op structured_schema "{\"bytes\":2000}"; } >ops &&
	hostile - <ops >direct 2>/dev/null &&
	hostile <ops >proxied 2>/dev/null &&
	jq -cS "select(.op == \"list\") | .tools[] | select(.name == \"structured_schema\")" direct >d &&
	jq -cS "select(.op == \"list\") | .tools[] | select(.name == \"structured_schema\")" proxied >p &&
	test_cmp d p &&
	grep outputSchema p &&
	jq -cS "select(.op == \"call\")" direct >d &&
	jq -cS "select(.op == \"call\")" proxied >p &&
	test_cmp d p
'

# The SDK client validates structured content against the schema: the
# reply is an error result, which needs none, and the client takes it.
test_expect_success 'a large result of a tool with an output schema: an error result the client accepts' '
	{ echo "{\"op\":\"list\"}"; op structured_schema "{\"bytes\":40000}"; } >ops &&
	hostile <ops >proxied 2>/dev/null &&
	jqe proxied ".op == \"call\"" "(has(\"error\") | not) and .result.isError == true and
	    (.result | has(\"structuredContent\") | not)" &&
	jq -r "select(.op == \"call\") | .result.content[0].text" proxied >notice &&
	grep "The tool declares an output schema that a notice cannot match, so this reply is marked as an error: the call itself succeeded\." notice &&
	id=$(ref proxied) &&
	test "$(ofl-extract "$id" ".structuredContent.rows | length")" = 667
'

test_expect_success 'members unknown to MCP are kept on offload' '
	op typed "{\"bytes\":40000}" | hostile >proxied 2>/dev/null &&
	jqe proxied ".op == \"call\"" ".result.resultType == \"complete\" and
	    .result.extra == {kept: true} and
	    (.result.content[0].text | startswith(\"[ofl] \"))"
'

test_expect_success 'resources/read: a large text resource is offloaded' '
	echo "{\"op\":\"request\",\"method\":\"resources/read\",\"params\":{\"uri\":\"big://log\"}}" |
	hostile >proxied 2>/dev/null &&
	jqe proxied ".op == \"request\"" ".result.contents | length == 1 and .[0].uri == \"big://log\" and
	    .[0].mimeType == \"text/plain\" and (.[0].text | startswith(\"[ofl] The result of hostile/resources/read is 40 kB\"))" &&
	id=$(ref proxied) &&
	ofl-search -j >list &&
	jqe list ".id == \"$id\"" ".bytes == 40000 and .label == \"hostile/resources/read\" and
	    .command == \"resources/read {\\\"uri\\\":\\\"big://log\\\"}\""
'

test_expect_success 'tasks/result: offloaded, labelled with the tool of its task' '
	{
		op tasked "{\"bytes\":30000}"
		echo "{\"op\":\"request\",\"method\":\"tasks/result\",\"params\":{\"taskId\":\"task-1\"}}"
	} | hostile >proxied 2>/dev/null &&
	jqe proxied ".op == \"request\"" ".result._meta == {\"io.modelcontextprotocol/related-task\": {taskId: \"task-1\"}} and
	    (.result.content[0].text | startswith(\"[ofl] The result of hostile/tasked is 30 kB\"))" &&
	id=$(ref proxied) &&
	ofl-search -j >list &&
	jqe list ".id == \"$id\"" ".bytes == 30000 and .label == \"hostile/tasked\""
'

# The slow call is made first; the quick one must not wait for it.
test_expect_success 'a quick answer is not held while a slow call is in flight' '
	echo "{\"op\":\"parallel\",\"calls\":[{\"name\":\"slow\",\"arguments\":{\"ms\":1500}},{\"name\":\"echo\",\"arguments\":{\"text\":\"quick\"}}]}" |
	hostile >proxied 2>/dev/null &&
	jq -r "select(.op == \"parallel\") | .results[] | \"\(.name) \(.arrived)\"" proxied >order &&
	printf "%s\n" "slow 2" "echo 1" >expect &&
	test_cmp expect order &&
	jq -r "select(.op == \"parallel\") | \"# quick answer after \(.results[1].at) ms, slow one after \(.results[0].at) ms\"" proxied
'

# No SDK sends batches (MCP dropped them in 2025-06-18); older peers may.
# The same request lines unwrapped and wrapped: small answers identical,
# a large one offloaded inside the batch.
test_expect_success 'JSON-RPC batches: calls inside are offloaded' '
	{
		echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
		echo "[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"one\"}}},{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"two\"}}}]"
		echo "[{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"big\",\"arguments\":{\"bytes\":40000}}},{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"three\"}}}]"
	} >wire &&
	{ cat wire; sleep 2; } | node "$MCP/hostile.mjs" >direct 2>/dev/null &&
	{ cat wire; sleep 2; } | ofl-mcp -- node "$MCP/hostile.mjs" >proxied 2>/dev/null &&
	test $(wc -l <proxied) -eq 3 &&
	sed -n 2p direct >d && sed -n 2p proxied >p &&
	test_cmp d p &&
	sed -n 3p proxied >p &&
	jq -e "length == 2 and
	    (.[] | select(.id == 4) | .result.content[0].text | startswith(\"[ofl] The result of hostile/big is 40 kB\")) and
	    (.[] | select(.id == 5)) == {jsonrpc: \"2.0\", id: 5, result: {content: [{type: \"text\", text: \"echo: three\"}]}}" p &&
	id=$(jq -r ".[] | select(.id == 4) | .result.content[0].text" p | sed -n "s/^ofl:\([a-z0-9]*\) .*/\1/p") &&
	test "$(ofl-extract "$id" | wc -c)" -eq 40000
'

# Calls of the ofl tools inside a batch: answered in the batch's array,
# with the server's answers, not as messages of their own.
test_expect_success 'JSON-RPC batches: ofl tools answered inside the batch' '
	{
		echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
		echo "[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"one\"}}},{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ofl_list\",\"arguments\":{}}},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":9,\"progress\":1}}]"
		echo "[{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"ofl_search\",\"arguments\":{\"query\":\"zzzqqq\"}}}]"
		echo "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"after\"}}}"
	} >wire &&
	{ cat wire; sleep 3; } | ofl-mcp -- node "$MCP/hostile.mjs" >proxied 2>/dev/null &&
	jq -c "if type == \"array\" then [.[].id] | sort else .id end" proxied |
	    sort >ids &&
	printf "%s\n" 1 5 "[2,3]" "[4]" >expect &&
	test_cmp expect ids &&
	jq -c "select(type == \"array\" and length == 2)" proxied >p &&
	jq -e "(.[] | select(.id == 2)) == {jsonrpc: \"2.0\", id: 2, result: {content: [{type: \"text\", text: \"echo: one\"}]}} and
	    (.[] | select(.id == 3) | .result.isError == false and (.result.content[0].text | type) == \"string\")" p &&
	jq -c "select(type == \"array\" and length == 1)" proxied >p &&
	jq -e ".[0].result.content[0].text == \"No match.\\n\"" p
'

test_done
