#!/bin/sh
# t6001: ofl-mcp between real peers: the official TypeScript SDK client and
# the reference filesystem and "everything" servers from npm.

. "$(dirname "$0")/lib.sh"
. "$OFL_SRCDIR/tests/mcp/peers.sh"

test_have_prereq JQ || test_skip_all "jq is needed"
mcp_peers

# data NAME: a corpus file, from tests/data or ../shared/corpus.
data() {
	f=$(find "$DATA" -name "$1" -type f 2>/dev/null | head -n 1)
	[ -z "$f" ] && f=$(find "$CORPUS" -name "$1" -type f 2>/dev/null |
	    grep -v /logs/ | head -n 1)
	[ -n "$f" ] && cp "$f" "$TEST_DIR/files/$1"
}

mkdir files
data dependabot-github-commits.json
data treeherder-taskcluster-timeout.log
data yt-dlp-README.md
data gotestsum-v1.10.0..v1.13.0.diff
echo "hello, world" >files/hello.txt
# Three results that fit the threshold alone but not the budget together.
awk 'BEGIN { for (i = 0; i < 180; i++) printf "a%098d\n", i }' >files/a.txt
awk 'BEGIN { for (i = 0; i < 160; i++) printf "b%098d\n", i }' >files/b.txt
awk 'BEGIN { for (i = 0; i < 140; i++) printf "c%098d\n", i }' >files/c.txt
FILES=$TEST_DIR/files

fs() {
	mcp_client -- "$@" node "$FILESYSTEM" "$FILES"
}
ev() {
	mcp_client -- "$@" node "$EVERYTHING" stdio
}

# op NAME ARGS: a call op line.
op() {
	printf '{"op":"call","name":"%s","arguments":%s}\n' "$1" "${2:-{\}}"
}

# calls FILE: the results of the call ops in FILE, one per line.
results() {
	jq -cS 'select(.op == "call") | .result // .error' "$1"
}

# jqe FILE SELECT TEST: some lines of FILE match SELECT, and TEST holds
# for each of them.
jqe() {
	jq -c "select($2)" "$1" >.jqe && test -s .jqe &&
	jq -s -e "all(.[]; $3)" .jqe >/dev/null
}

# notice_id FILE N: the artifact ID in the text of the N-th call result.
notice_id() {
	jq -r 'select(.op == "call") | .result.content[0].text' "$1" |
	sed -n 's/^ofl:\([a-z0-9]*\) .*/\1/p' | sed -n "${2:-1}p"
}

test_expect_success 'tools/list: the server tools as they are, output schemas too, then ours' '
	echo "{\"op\":\"list\"}" | fs >direct 2>/dev/null &&
	echo "{\"op\":\"list\"}" | fs ofl-mcp -- >proxied 2>err &&
	jq -r "select(.op == \"list\") | .tools[].name" direct >d &&
	jq -r "select(.op == \"list\") | .tools[].name" proxied >p &&
	{ cat d && printf "%s\n" ofl_search ofl_extract ofl_schema ofl_list; } >expect &&
	test_cmp expect p &&
	jqe direct ".op == \"list\"" "[.tools[] | has(\"outputSchema\")] | any" &&
	jq -cS "select(.op == \"list\") | .tools[:-4]" proxied >p2 &&
	jq -cS "select(.op == \"list\") | .tools" direct >d2 &&
	test_cmp d2 p2 &&
	! grep "output schema" err
'

test_expect_success '--no-tools: the server tools alone, the list byte for byte' '
	{
		echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
		echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
		echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"
	} >wire &&
	{ cat wire; sleep 3; } | node "$FILESYSTEM" "$FILES" >direct 2>/dev/null &&
	{ cat wire; sleep 3; } | ofl-mcp --no-tools -- node "$FILESYSTEM" "$FILES" >proxied 2>/dev/null &&
	grep "\"id\":2}$" direct >d &&
	grep "\"id\":2}$" proxied >p &&
	test $(wc -l <p) -eq 1 &&
	test_cmp d p &&
	echo "{\"op\":\"list\"}" |
	mcp_client -- ofl-mcp --no-tools -- node "$MCP/hostile.mjs" --no-tools >out 2>/dev/null &&
	jqe out ".op == \"connected\"" ".capabilities == {prompts: {}}" &&
	jq -r "select(.op == \"list\") | .tools[].name" out >names &&
	grep "^echo$" names &&
	! grep "ofl_" names
'

test_expect_success 'small results: identical to the unwrapped servers' '
	{
		op read_text_file "{\"path\":\"$FILES/hello.txt\"}"
		op list_directory "{\"path\":\"$FILES\"}"
		op get_file_info "{\"path\":\"$FILES/no-such-file\"}"
		op read_text_file "{\"path\":\"/etc/passwd\"}"
	} >ops &&
	fs <ops >direct 2>/dev/null &&
	fs ofl-mcp -- <ops >proxied 2>/dev/null &&
	results direct >d && results proxied >p &&
	test $(wc -l <p) -eq 4 &&
	test_cmp d p &&
	sed -n 1p p | grep "hello, world" &&
	sed -n 3p p | grep "isError" &&
	{
		op echo "{\"message\":\"hi there\"}"
		op get-sum "{\"a\":2,\"b\":40}"
		op get-annotated-message "{\"messageType\":\"error\",\"includeImage\":true}"
		op get-tiny-image
		op get-structured-content "{\"location\":\"Chicago\"}"
		op get-sum "{\"a\":\"x\"}"
		op no-such-tool
	} >ops &&
	ev <ops >direct 2>/dev/null &&
	ev ofl-mcp -- <ops >proxied 2>/dev/null &&
	results direct >d && results proxied >p &&
	test $(wc -l <p) -eq 7 &&
	test_cmp d p &&
	sed -n 2p p | grep "The sum of 2 and 40 is 42"
'

# The wire: the same request lines get the same answer lines, byte for byte.
test_expect_success 'small results: byte for byte on the wire' '
	{
		echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
		echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
		echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"caf\\u00e9 \\\"q\\\" 1.50\"}}}"
		echo "{\"jsonrpc\":\"2.0\",\"id\":\"s-3\",\"method\":\"tools/call\",\"params\":{\"name\":\"get-sum\",\"arguments\":{\"a\":1e2,\"b\":0.25}}}"
		echo "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/get\",\"params\":{\"name\":\"simple-prompt\"}}"
		echo "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/read\",\"params\":{\"uri\":\"demo://resource/static/document/architecture.md\"}}"
	} >wire &&
	{ cat wire; sleep 3; } | node "$EVERYTHING" stdio >direct 2>/dev/null &&
	{ cat wire; sleep 3; } | ofl-mcp -- node "$EVERYTHING" stdio >proxied 2>/dev/null &&
	grep "\"id\":\(2\|\"s-3\"\|4\|5\)}$" direct | sort >d &&
	grep "\"id\":\(2\|\"s-3\"\|4\|5\)}$" proxied | sort >p &&
	test $(wc -l <p) -eq 4 &&
	test_cmp d p
'

test_expect_success 'a large log: offloaded with a notice, then searched' '
	test -f files/treeherder-taskcluster-timeout.log &&
	{
		echo "{\"op\":\"list\"}"
		op read_text_file "{\"path\":\"$FILES/treeherder-taskcluster-timeout.log\"}"
	} >ops &&
	fs ofl-mcp -- <ops >proxied 2>/dev/null &&
	jqe proxied ".op == \"call\"" ".result.structuredContent == {content: .result.content[0].text} and
	    (.result | has(\"isError\") | not)" &&
	jq -r "select(.op == \"call\") | .result.content[0].text" proxied >notice &&
	test $(wc -c <notice) -lt 4000 &&
	head -n 1 notice | grep "^\[ofl\] The result of secure-filesystem-server/read_text_file is 390 kB" &&
	grep "^ofl:[a-z0-9]* log 390 kB 2,701 lines" notice &&
	grep "^--- end of preview ---$" notice &&
	grep "^next (MCP tool calls):$" notice &&
	id=$(notice_id proxied) &&
	grep "^  ofl_search {\"ids\":\[\"$id\"\],\"query\":\"QUERY\"}$" notice &&
	op ofl_search "{\"ids\":[\"$id\"],\"query\":\"TEST-UNEXPECTED-TIMEOUT\"}" |
	fs ofl-mcp -- >found 2>/dev/null &&
	jq -r "select(.op == \"call\") | .result.content[0].text" found >hits &&
	grep "^ofl:$id:" hits &&
	grep "TEST-UNEXPECTED-TIMEOUT" hits
'

test_expect_success 'the artifact holds the whole file, labelled server/tool' '
	ofl-search -j >list &&
	jqe list ".label == \"secure-filesystem-server/read_text_file\"" ".bytes == 390024 and .lines == 2701 and
	    (.command | startswith(\"read_text_file {\\\"path\\\":\"))"
'

test_expect_success 'GitHub API JSON: shape, then exact evidence by jq' '
	test -f files/dependabot-github-commits.json &&
	op read_text_file "{\"path\":\"$FILES/dependabot-github-commits.json\"}" |
	fs ofl-mcp -- >proxied 2>/dev/null &&
	jq -r "select(.op == \"call\") | .result.content[0].text" proxied >notice &&
	grep "^shape: \[{sha: string" notice &&
	id=$(notice_id proxied) &&
	grep "^  ofl_schema {\"id\":\"$id\"}$" notice &&
	op ofl_extract "{\"id\":\"$id\",\"filter\":\".[0].sha\"}" |
	fs ofl-mcp -- >x 2>/dev/null &&
	jq -r "select(.op == \"call\") | .result.content[0].text" x |
	grep "0618a546d6a1a4199b067b9c723fc2bf560d488f"
'

test_expect_success 'a long Markdown page: headings, then search' '
	test -f files/yt-dlp-README.md &&
	op read_text_file "{\"path\":\"$FILES/yt-dlp-README.md\"}" |
	fs ofl-mcp -- >proxied 2>/dev/null &&
	jq -r "select(.op == \"call\") | .result.content[0].text" proxied >notice &&
	grep "^ofl:[a-z0-9]* markdown" notice &&
	grep -i "format selection" notice &&
	id=$(notice_id proxied) &&
	op ofl_search "{\"ids\":[\"$id\"],\"query\":\"merge output format\"}" |
	fs ofl-mcp -- >found 2>/dev/null &&
	jq -r "select(.op == \"call\") | .result.content[0].text" found >hits &&
	grep "^ofl:$id:[0-9]*-[0-9]*  USAGE AND OPTIONS > Video Format Options" hits &&
	grep -i "merge[^ ]*-[^ ]*output[^ ]*-[^ ]*format" hits
'

test_expect_success 'a diff: offloaded, then the file found by search' '
	test -f files/gotestsum-v1.10.0..v1.13.0.diff &&
	op read_text_file "{\"path\":\"$FILES/gotestsum-v1.10.0..v1.13.0.diff\"}" |
	fs ofl-mcp -- >proxied 2>/dev/null &&
	jq -r "select(.op == \"call\") | .result.content[0].text" proxied >notice &&
	grep "^ofl:[a-z0-9]* diff" notice &&
	id=$(notice_id proxied) &&
	op ofl_search "{\"ids\":[\"$id\"],\"query\":\"go.mod\"}" |
	fs ofl-mcp -- >found 2>/dev/null &&
	jq -r "select(.op == \"call\") | .result.content[0].text" found |
	grep "go.mod"
'

# The answers come 300, 800 and 1300 ms after the calls: the three are in
# flight together, and each is passed on as it comes, never held for the
# others.  The last, a, no longer fits what is left of the budget.
test_expect_success 'parallel calls: an answer that does not fit the budget left is offloaded' '
	printf "{\"op\":\"parallel\",\"calls\":[%s,%s,%s]}\n" \
	    "{\"name\":\"big\",\"arguments\":{\"bytes\":16000,\"char\":\"b\",\"ms\":300}}" \
	    "{\"name\":\"big\",\"arguments\":{\"bytes\":18000,\"char\":\"a\",\"ms\":1300}}" \
	    "{\"name\":\"big\",\"arguments\":{\"bytes\":14000,\"char\":\"c\",\"ms\":800}}" >ops &&
	mcp_client -- ofl-mcp -- node "$MCP/hostile.mjs" <ops >proxied 2>/dev/null &&
	jq -r "select(.op == \"parallel\") | .results[].result.content[0].text | .[:5]" proxied >heads &&
	printf "%s\n" bbbbb "[ofl]" ccccc >expect &&
	test_cmp expect heads &&
	jq -r "select(.op == \"parallel\") | .results[].arrived" proxied >order &&
	printf "%s\n" 1 3 2 >expect &&
	test_cmp expect order &&
	jq -r "select(.op == \"parallel\") | .results[1].result.content[0].text" proxied |
	grep "^\[ofl\] The result of hostile/big is 18 kB (about 4,500 tokens), over the budget of the calls made together of 10,000 tokens" &&
	jq -j "select(.op == \"parallel\") | .results[0].result.content[0].text" proxied >b &&
	test $(wc -c <b) -eq 16000
'

test_expect_success 'a smaller combined budget offloads more' '
	mcp_client -- ofl-mcp -C 5000 -- node "$MCP/hostile.mjs" <ops >proxied 2>/dev/null &&
	jq -r "select(.op == \"parallel\") | .results[].result.content[0].text | .[:5]" proxied >heads &&
	printf "%s\n" bbbbb "[ofl]" "[ofl]" >expect &&
	test_cmp expect heads
'

test_expect_success 'the same calls one after the other all pass' '
	{
		op big "{\"bytes\":18000,\"char\":\"a\"}"
		op big "{\"bytes\":16000,\"char\":\"b\"}"
		op big "{\"bytes\":14000,\"char\":\"c\"}"
	} | mcp_client -- ofl-mcp -- node "$MCP/hostile.mjs" >proxied 2>/dev/null &&
	jq -r "select(.op == \"call\") | .result.content[0].text | .[:5]" proxied >heads &&
	printf "%s\n" aaaaa bbbbb ccccc >expect &&
	test_cmp expect heads
'

# With a real server an answer may come before the next call is read, so
# which calls were in flight together varies; but the two that come first
# fit together, so at most the last is offloaded, and the others pass
# whole.
test_expect_success 'parallel reads of the filesystem server fit the budget' '
	printf "{\"op\":\"parallel\",\"calls\":[%s,%s,%s]}\n" \
	    "{\"name\":\"read_text_file\",\"arguments\":{\"path\":\"$FILES/b.txt\"}}" \
	    "{\"name\":\"read_text_file\",\"arguments\":{\"path\":\"$FILES/a.txt\"}}" \
	    "{\"name\":\"read_text_file\",\"arguments\":{\"path\":\"$FILES/c.txt\"}}" >ops &&
	fs ofl-mcp -- <ops >proxied 2>/dev/null &&
	jq -r "select(.op == \"parallel\") | .results[] | select(.arrived < 3) | .result.content[0].text | .[:5]" proxied >heads &&
	test $(wc -l <heads) -eq 2 &&
	! grep "ofl" heads &&
	jq -r "select(.op == \"parallel\") | .results[] | select(.arrived == 3) | .result.content[0].text | .[:5]" proxied |
	grep "^\([abc]0000\|\[ofl\]\)$" &&
	jq -j "select(.op == \"parallel\") | .results[0].result.content[0].text" proxied >b &&
	{ test_cmp files/b.txt b || grep "^\[ofl\]" b; }
'

test_expect_success 'progress, resources and prompts pass through' '
	{
		echo "{\"op\":\"request\",\"method\":\"resources/list\"}"
		echo "{\"op\":\"request\",\"method\":\"prompts/list\"}"
		echo "{\"op\":\"request\",\"method\":\"resources/read\",\"params\":{\"uri\":\"demo://resource/static/document/architecture.md\"}}"
		echo "{\"op\":\"call\",\"name\":\"trigger-long-running-operation\",\"arguments\":{\"duration\":1,\"steps\":2},\"progress\":true}"
	} >ops &&
	ev <ops >direct 2>/dev/null &&
	ev ofl-mcp -- <ops >proxied 2>/dev/null &&
	jq -cS "select(.op == \"request\")" direct >d &&
	jq -cS "select(.op == \"request\")" proxied >p &&
	test $(wc -l <p) -eq 3 &&
	test_cmp d p &&
	# The reference server races its last progress notification with
	# the result, unwrapped too: at least one must come through.
	test $(jq -c "select(.progress)" proxied | wc -l) -ge 1 &&
	jqe proxied ".progress" ".progress.total == 2" &&
	jqe proxied ".op == \"call\"" ".result.content[0].text |
	    startswith(\"Long running operation completed\")"
'

test_expect_success 'images pass, unless over --max-binary' '
	op get-tiny-image >ops &&
	ev ofl-mcp -- <ops >small 2>/dev/null &&
	jqe small ".op == \"call\"" ".result.content[1].type == \"image\"" &&
	ev ofl-mcp --max-binary 100 -- <ops >big 2>/dev/null &&
	jq -r "select(.op == \"call\") | .result.content[1].text" big >note &&
	grep "^\[ofl\] An item of type image (image/png, .*) was over the limit of 100 B and is stored as ofl:[a-z0-9]*\. ofl_extract {\"id\":\"[a-z0-9]*\"} hands it back whole\.$" note
'

test_expect_success 'the image comes back whole through ofl_extract, as an image' '
	id=$(sed -n "s/.*stored as ofl:\([a-z0-9]*\)\..*/\1/p" note) &&
	ofl-search -j >list &&
	jqe list ".id == \"$id\"" ".label == \"mcp-servers/everything/get-tiny-image (image image/png)\" and .kind == \"binary\"" &&
	op ofl_extract "{\"id\":\"$id\"}" | ev ofl-mcp --max-binary 100 -- >back 2>/dev/null &&
	jq -cS "select(.op == \"call\") | .result.content" back >got &&
	jq -cS "select(.op == \"call\") | [.result.content[1]]" small >expect &&
	test_cmp expect got &&
	op ofl_extract "{\"id\":\"$id\"}" | mcp_client -- ofl-mcp >alone 2>/dev/null &&
	jq -cS "select(.op == \"call\") | .result.content" alone >got &&
	test_cmp expect got
'

test_expect_success 'audio too: stored whole, handed back as audio' '
	op audio "{\"bytes\":3000}" |
	mcp_client -- ofl-mcp --max-binary 1000 -- node "$MCP/hostile.mjs" >big 2>/dev/null &&
	id=$(jq -r "select(.op == \"call\") | .result.content[0].text" big |
	    sed -n "s/.*audio (audio\/wav, 2.2 kB) .* stored as ofl:\([a-z0-9]*\)\..*/\1/p") &&
	test -n "$id" &&
	op ofl_extract "{\"id\":\"$id\"}" | mcp_client -- ofl-mcp >back 2>/dev/null &&
	jq -e "select(.op == \"call\") | .result.content == [{type: \"audio\", data: (\"UklGRg\" + (\"B\" * 2994)), mimeType: \"audio/wav\"}]" back
'

test_expect_success 'a tool of the server named like ours: ours are renamed' '
	{
		echo "{\"op\":\"list\"}"
		op ofl_search "{\"text\":\"mine\"}"
		op ofl__list
	} | mcp_client -- ofl-mcp -- node "$MCP/hostile.mjs" --clash >out 2>err &&
	jq -r "select(.op == \"list\") | .tools[].name" out | tail -n 5 >names &&
	printf "%s\n" ofl_search ofl__search ofl__extract ofl__schema ofl__list >expect &&
	test_cmp expect names &&
	jq -r "select(.op == \"call\") | .result.content[0].text" out >texts &&
	sed -n 1p texts | grep "^echo: mine$" &&
	grep "ours are ofl__search, ofl__extract, ofl__schema and ofl__list" err
'

test_expect_success 'a server without tools gets ours' '
	{
		echo "{\"op\":\"list\"}"
		echo "{\"op\":\"request\",\"method\":\"prompts/list\"}"
	} | mcp_client -- ofl-mcp -- node "$MCP/hostile.mjs" --no-tools >out 2>/dev/null &&
	jqe out ".op == \"connected\"" ".capabilities == {prompts: {}, tools: {}}" &&
	jq -r "select(.op == \"list\") | .tools[].name" out >names &&
	printf "%s\n" ofl_search ofl_extract ofl_schema ofl_list >expect &&
	test_cmp expect names &&
	jqe out ".op == \"request\"" ".result == {prompts: []}"
'

test_done
