#!/bin/sh
# t6004: tools/call of the ofl_* tools with arguments absent, null or of
# the wrong JSON type: each call gets one answer (an MCP tool error or a
# JSON-RPC error), ofl-mcp never aborts, and a wrapped server lives on.

. "$(dirname "$0")/lib.sh"

test_have_prereq JQ || test_skip_all "jq is needed"

# rpc ID METHOD [PARAMS]: one request line.
rpc() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"%s","params":%s}\n' \
	    "$1" "$2" "${3:-{\}}"
}

# answer ID FILE: the answer to request ID, one line.
answer() {
	jq -c --argjson id "$1" 'select(.id == $id)' "$2"
}

# text ID FILE: the text of the answer to tools/call ID.
text() {
	jq -r --argjson id "$1" 'select(.id == $id) | .result.content[0].text' "$2"
}

test_expect_success 'capture an artifact to work on' '
	printf "{\"a\":1}\n" | ofl-capture -T 0 >notice &&
	sed -n "1s/^ofl:\([a-z0-9]*\) .*/\1/p" notice >id &&
	test -s id
'

test_expect_success 'ofl_list without arguments lists the store' '
	{
		rpc 1 tools/call "{\"name\":\"ofl_list\"}"
		rpc 2 ping
	} | ofl-mcp >out 2>err &&
	answer 1 out | jq -e ".result.isError == false" &&
	text 1 out | grep "^ofl:$(cat id)  *json  " &&
	test "$(answer 2 out)" = "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}" &&
	test ! -s err
'

test_expect_success 'arguments: null is no arguments, [] and 1 are errors' '
	{
		rpc 1 tools/call "{\"name\":\"ofl_list\",\"arguments\":null}"
		rpc 2 tools/call "{\"name\":\"ofl_list\",\"arguments\":[]}"
		rpc 3 tools/call "{\"name\":\"ofl_extract\",\"arguments\":1}"
		rpc 4 tools/call "{\"name\":\"ofl_schema\"}"
		rpc 5 tools/call "{\"name\":\"ofl_search\"}"
		rpc 6 tools/call "{\"name\":\"ofl_extract\"}"
	} | ofl-mcp >out 2>err &&
	text 1 out | grep "^ofl:$(cat id)  *json  " &&
	cat >expect <<-\EOF &&
	true	ofl_list: arguments must be an object
	true	ofl_extract: arguments must be an object
	true	ofl_schema: missing argument "id"
	true	ofl_search: missing argument "query"
	true	ofl_extract: missing argument "id"
	EOF
	jq -r -s "sort_by(.id)[] | select(.id > 1) |
	    [.result.isError, .result.content[0].text] | @tsv" out >actual &&
	test_cmp expect actual &&
	test ! -s err
'

test_expect_success 'params absent, null or not an object: Invalid params' '
	{
		echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}"
		rpc 2 tools/call null
		rpc 3 tools/call "[\"ofl_list\"]"
		rpc 4 tools/call "\"ofl_list\""
		rpc 5 tools/call "{\"name\":7}"
		rpc 6 ping
	} | ofl-mcp >out 2>err &&
	for i in 1 2 3 4 5; do
		answer $i out | jq -e ".error.code == -32602 and .error.message ==
		    \"Invalid params: tools/call needs the name of a tool\"" ||
		return 1
	done &&
	test "$(answer 6 out)" = "{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}"
'

test_expect_success 'no method, or one that is not a string: Invalid Request; an answer: dropped' '
	{
		echo "{\"jsonrpc\":\"2.0\",\"id\":22}"
		echo "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":7}"
		echo "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}"
		rpc 4 ping
	} | ofl-mcp >out 2>err &&
	cat >expect <<-\EOF &&
	{"jsonrpc":"2.0","id":22,"error":{"code":-32600,"message":"Invalid Request"}}
	{"jsonrpc":"2.0","id":10,"error":{"code":-32600,"message":"Invalid Request"}}
	{"jsonrpc":"2.0","id":4,"result":{}}
	EOF
	test_cmp expect out &&
	test ! -s err
'

test_expect_success 'a bad reference among ids: said once, whole' '
	rpc 1 tools/call "{\"name\":\"ofl_search\",\"arguments\":{\"query\":\"x\",\"ids\":[\"zz z\"]}}" |
	    ofl-mcp >out 2>err &&
	text 1 out >actual &&
	echo "ofl_search: ids: \"zz z\": not an artifact reference (ofl:ID, ID, @ or @N)" \
	    >expect &&
	test_cmp expect actual
'

# calls [BASE]: every tool with every kind of bad arguments, with the
# ids BASE+1 on.
calls() {
	i=${1:-0}
	for tool in ofl_search ofl_extract ofl_schema ofl_list; do
		for a in - null "[]" "\"x\"" 1 true "{}" "{\"id\":null}" \
		    "{\"id\":[1]}" "{\"id\":{}}" "{\"query\":{}}" \
		    "{\"ids\":[1]}" "{\"lines\":[null]}" "{\"limit\":\"x\"}" \
		    "{\"limit\":1e300}" "{\"id\":\"@\",\"filter\":{}}" \
		    "{\"id\":\"@\",\"regex\":1}" "{\"id\":\"@\",\"format\":[]}" \
		    "{\"id\":\"@\",\"raw\":2}" "{\"id\":\"@\",\"context\":-1}"
		do
			i=$((i + 1))
			if [ "$a" = - ]; then
				rpc $i tools/call "{\"name\":\"$tool\"}"
			else
				rpc $i tools/call \
				    "{\"name\":\"$tool\",\"arguments\":$a}"
			fi
		done
	done
	echo $((i - ${1:-0})) >ncalls
}

test_expect_success 'every tool, every bad argument: one answer each' '
	calls | ofl-mcp >out 2>err &&
	n=$(cat ncalls) &&
	test $n -eq 80 &&
	test $(wc -l <out) -eq $n &&
	jq -s -e "(map(.id) | sort) == [range(1; $n + 1)] and
	    all(.[]; .result.isError == true or .result.isError == false)" \
	    out &&
	test ! -s err
'

test_expect_success 'proxy: a call without arguments leaves the server up' '
	{
		rpc 1 initialize "{\"protocolVersion\":\"2025-06-18\"}"
		rpc 2 tools/call "{\"name\":\"ofl_list\"}"
		calls 10
		rpc 100 ping
	} | ofl-mcp -- ofl-mcp >out 2>err &&
	text 2 out | grep "^ofl:$(cat id)  *json  " &&
	test "$(answer 100 out)" = "{\"jsonrpc\":\"2.0\",\"id\":100,\"result\":{}}" &&
	test $(wc -l <out) -eq 83 &&
	test ! -s err
'

test_expect_success 'proxy: a tools/list answer without a list gets through' '
	cat >server.sh <<-\EOF &&
	while read -r line; do
		id=$(printf "%s" "$line" | jq -c ".id // empty")
		test -n "$id" || continue
		echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"tools\":\"x\"}}"
	done
	EOF
	{
		rpc 1 initialize "{\"protocolVersion\":\"2025-06-18\"}"
		rpc 2 tools/list
	} | ofl-mcp -- sh server.sh >out 2>err &&
	test "$(answer 2 out)" = "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":\"x\"}}"
'

test_done
