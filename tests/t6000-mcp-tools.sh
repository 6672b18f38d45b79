#!/bin/sh
# t6000: ofl-mcp without a server: an MCP server of the added tools alone,
# spoken to on the wire (one JSON-RPC message a line).

. "$(dirname "$0")/lib.sh"

test_have_prereq JQ || test_skip_all "jq is needed"

COMMITS=$DATA/json/dependabot-github-commits.json

# rpc ID METHOD [PARAMS]: one request line.
rpc() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"%s","params":%s}\n' \
	    "$1" "$2" "${3:-{\}}"
}

# call ID TOOL ARGUMENTS: a tools/call line.
call() {
	rpc "$1" tools/call "{\"name\":\"$2\",\"arguments\":$3}"
}

# answer ID FILE: the answer to request ID, one line.
answer() {
	jq -c --argjson id "$1" 'select(.id == $id)' "$2"
}

# text ID FILE: the text of the answer to tools/call ID.
text() {
	jq -r --argjson id "$1" 'select(.id == $id) | .result.content[0].text' "$2"
}

test_expect_success 'initialize, ping, tools/list' '
	{
		rpc 1 initialize "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}"
		echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
		rpc 2 ping
		rpc 3 tools/list
	} | ofl-mcp >out 2>err &&
	test $(wc -l <out) -eq 3 &&
	answer 1 out | jq -e ".result.protocolVersion == \"2025-06-18\" and
	    .result.serverInfo.name == \"ofl\" and
	    .result.capabilities == {tools: {}}" &&
	test "$(answer 2 out)" = "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}" &&
	answer 3 out | jq -r ".result.tools[].name" >names &&
	printf "%s\n" ofl_search ofl_extract ofl_schema ofl_list >expect &&
	test_cmp expect names &&
	answer 3 out | jq -e "[.result.tools[] | .inputSchema.type == \"object\"
	    and (.description | length) > 40] | all" &&
	answer 3 out | jq -e ".result.tools[1].inputSchema.required == [\"id\"]" &&
	test ! -s err
'

test_expect_success 'an unknown protocol version gets the newest' '
	rpc 1 initialize "{\"protocolVersion\":\"1999-01-01\"}" | ofl-mcp >out &&
	answer 1 out | jq -e ".result.protocolVersion == \"2025-11-25\""
'

test_expect_success 'errors: parse error, invalid request, unknown method and tool' '
	{
		echo "this is not json"
		echo "[1,2]"
		rpc 4 resources/list
		call 5 no_such_tool "{}"
	} | ofl-mcp >out &&
	sed -n 1p out >line1 &&
	echo "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}" >expect &&
	test_cmp expect line1 &&
	sed -n 2p out | jq -e ".error.code == -32600" &&
	answer 4 out | jq -e ".error.code == -32601" &&
	answer 5 out | jq -e ".error.code == -32602 and
	    (.error.message | test(\"no_such_tool\"))"
'

# The last message, over --max-line and with no newline, went unsaid.
test_expect_success 'a message over --max-line is dropped and said, newline or not' '
	for end in "\n" ""; do
		{
			rpc 1 ping
			head -c 200000 /dev/zero | tr "\0" a
			printf "$end"
		} | ofl-mcp --max-line 100k >out 2>err &&
		answer 1 out | jq -e ".result == {}" &&
		test $(wc -l <out) -eq 1 &&
		echo "ofl-mcp: dropped a message of 200 kB from the client: over the limit of 102400 bytes" >expect &&
		test_cmp expect err || return 1
	done
'

test_expect_success 'capture an artifact to work on' '
	ofl-capture <"$COMMITS" >notice &&
	id=$(sed -n "1s/^ofl:\([a-z0-9]*\) .*/\1/p" notice) &&
	test -n "$id" && echo "$id" >id
'

test_expect_success 'ofl_list names the artifact' '
	call 1 ofl_list "{}" | ofl-mcp >out &&
	answer 1 out | jq -e ".result.isError == false" &&
	text 1 out | grep "^ofl:$(cat id)"
'

test_expect_success 'ofl_search finds the evidence with line numbers' '
	call 1 ofl_search "{\"ids\":[\"$(cat id)\"],\"query\":\"Nick Campbell\"}" |
	ofl-mcp >out &&
	answer 1 out | jq -e ".result.isError == false" &&
	text 1 out >hits &&
	grep "^ofl:$(cat id):[0-9]" hits &&
	grep "Nick" hits
'

test_expect_success 'ofl_extract runs a jq filter' '
	call 1 ofl_extract "{\"id\":\"ofl:$(cat id)\",\"filter\":\".[0].sha\"}" |
	ofl-mcp >out &&
	answer 1 out | jq -e ".result.isError == false" &&
	text 1 out | grep "0618a546d6a1a4199b067b9c723fc2bf560d488f"
'

test_expect_success 'ofl_extract gives line ranges' '
	call 1 ofl_extract "{\"id\":\"@\",\"lines\":[\"3-3\"]}" | ofl-mcp >out &&
	text 1 out | grep "0618a546d6a1a4199b067b9c723fc2bf560d488f"
'

test_expect_success 'ofl_schema describes the JSON' '
	call 1 ofl_schema "{\"id\":\"$(cat id)\"}" | ofl-mcp >out &&
	answer 1 out | jq -e ".result.isError == false" &&
	text 1 out | grep "sha: string"
'

test_expect_success 'bad arguments: isError results that say what is wrong' '
	{
		call 1 ofl_extract "{}"
		call 2 ofl_extract "{\"id\":\"../../etc/passwd\"}"
		call 3 ofl_search "{\"query\":7}"
		call 4 ofl_search "{\"query\":\"x\",\"limit\":0}"
		call 5 ofl_schema "{\"id\":\"@\",\"format\":\"xml\"}"
		call 6 ofl_extract "[1]"
	} | ofl-mcp >out &&
	for i in 1 2 3 4 5 6; do
		answer $i out | jq -e ".result.isError == true" || return 1
	done &&
	text 1 out | grep "missing argument \"id\"" &&
	text 2 out | grep "not an artifact reference" &&
	text 3 out | grep "\"query\" must be a string" &&
	text 4 out | grep "\"limit\" must be an integer from 1 to 100" &&
	text 5 out | grep "shape or json-schema" &&
	text 6 out | grep "must be an object"
'

test_expect_success 'a failing tool: isError with its standard error' '
	call 1 ofl_extract "{\"id\":\"zzzzzzzz\"}" | ofl-mcp >out &&
	answer 1 out | jq -e ".result.isError == true" &&
	text 1 out | grep "zzzzzzzz"
'

test_expect_success 'arguments never reach a shell' '
	call 1 ofl_search "{\"ids\":[\"@\"],\"query\":\"x; touch pwned; \$(touch pwned2) \`touch pwned3\`\"}" |
	ofl-mcp >out &&
	answer 1 out | jq -e ".result" &&
	test ! -e pwned && test ! -e pwned2 && test ! -e pwned3
'

test_expect_success 'an answer over the threshold is offloaded too' '
	call 1 ofl_schema "{\"id\":\"@\",\"format\":\"json-schema\"}" |
	ofl-mcp -T 100 >out &&
	text 1 out >t &&
	grep "^\[ofl\] The result of ofl/ofl_schema is" t &&
	grep "^ofl:[a-z0-9]* json" t &&
	grep "^  ofl_extract {\"id\":\"" t &&
	ofl-search -n 1 | grep "ofl/ofl_schema"
'

test_expect_success '--store reaches the tools' '
	mkdir other &&
	OFL_STORE=$TEST_DIR/other/store ofl-capture <"$COMMITS" >/dev/null &&
	call 1 ofl_list "{}" | ofl-mcp -s "$TEST_DIR/other/store" >out &&
	text 1 out >list &&
	test $(grep -c "^ofl:" list) -eq 1
'

test_expect_success 'usage: --help, bad options, no command after --' '
	ofl-mcp --help >out &&
	grep "^usage: ofl-mcp" out &&
	test_expect_code 2 ofl-mcp --bogus 2>err &&
	grep "^usage: ofl-mcp" err &&
	test_expect_code 2 ofl-mcp -T nan 2>err &&
	test_expect_code 2 ofl-mcp -- </dev/null 2>err &&
	grep "no server command" err
'

test_expect_success 'a server that cannot be run: 127, 126' '
	test_expect_code 127 ofl-mcp -- ./no-such-server </dev/null 2>err &&
	grep "no-such-server" err &&
	echo "#!/bin/sh" >noexec && chmod -x noexec &&
	test_expect_code 126 ofl-mcp -- ./noexec </dev/null 2>err
'

test_expect_success 'calls beyond --jobs wait for a slot, in the order they came' '
	mkdir -p jobs/bin jobs/running &&
	cp "$(command -v ofl-mcp)" jobs/bin/ &&
	cat >jobs/bin/ofl-search <<-EOF &&
	#!/bin/sh
	: >"$PWD/jobs/running/\$\$"
	echo "\$(ls "$PWD/jobs/running" | wc -l) \$*" >>"$PWD/jobs/log"
	sleep 0.2
	rm "$PWD/jobs/running/\$\$"
	echo "found \$*"
	EOF
	chmod +x jobs/bin/ofl-search &&
	for i in 1 2 3 4 5 6; do
		call $i ofl_search "{\"query\":\"q$i\"}"
	done >calls &&
	jobs/bin/ofl-mcp --jobs 1 <calls >out 2>err &&
	test $(wc -l <out) -eq 6 &&
	for i in 1 2 3 4 5 6; do
		text $i out | grep "^found .*q$i\$" || return 1
	done &&
	sed "s/ .* / /" jobs/log >got &&
	printf "1 q%s\n" 1 2 3 4 5 6 >expect &&
	test_cmp expect got &&
	rm jobs/log &&
	jobs/bin/ofl-mcp --jobs 3 <calls >out 2>err &&
	test $(wc -l <out) -eq 6 &&
	cut -d" " -f1 jobs/log | sort -n | tail -n 1 >max &&
	test "$(cat max)" -le 3 && test "$(cat max)" -ge 2 &&
	rm jobs/log &&
	{
		call 1 ofl_search "{\"query\":\"q1\"}"
		call 2 ofl_search "{\"query\":\"q2\"}"
		echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}"
		call 3 ofl_search "{\"query\":\"q3\"}"
	} | jobs/bin/ofl-mcp --jobs 1 >out 2>err &&
	jq -r .id out >ids &&
	printf "%s\n" 1 3 >expect &&
	test_cmp expect ids &&
	sed "s/ .* / /" jobs/log >got &&
	printf "1 q%s\n" 1 3 >expect &&
	test_cmp expect got &&
	test_expect_code 2 ofl-mcp --jobs 0 </dev/null 2>err &&
	grep -- "--jobs" err
'

test_expect_success 'end of input: exits 0 at once' '
	: | ofl-mcp >out &&
	test ! -s out
'

test_done
