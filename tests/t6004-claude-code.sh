#!/bin/sh
# t6004: ofl-claude-hook inside the real Claude Code binary, run headless
# (claude -p) against a stand-in for the model API on loopback
# (tests/mcp/claude-mock.mjs) that makes the model call the Bash tool with
# given commands.  Each case runs once with the hook installed and once
# without: permission rules, the shell and failing commands must come out
# the same, and large output must be stored and replaced by the notice.

. "$(dirname "$0")/lib.sh"

test_have_prereq JQ || test_skip_all "jq is needed"
# The run drives shell scripts and the real binary for minutes; the gate
# runs it once, in the plain make check, not again under the sanitizers
# or in make distcheck.
test_once
command -v node >/dev/null 2>&1 ||
    test_skip_all "node is needed for the stand-in model API"
# Claude Code is a pinned peer of tests/mcp (a devDependency), installed
# like the MCP peers (tests/npm.sh); OFL_TEST_CLAUDE names another binary.
. "$OFL_SRCDIR/tests/mcp/peers.sh"
mcp_peers
CLAUDE=${OFL_TEST_CLAUDE:-$MCP/node_modules/.bin/claude}
[ -x "$CLAUDE" ] || test_skip_all "no Claude Code binary at $CLAUDE" \
    "(set OFL_TEST_CLAUDE)"
"$CLAUDE" --version >/dev/null 2>&1 ||
    test_skip_all "$CLAUDE --version fails: the binary does not run here"
MOCK=$MCP/claude-mock.mjs
BASH=$(command -v bash) || BASH=

# run_claude NAME ADAPTER SETTINGS COMMAND...: one headless session in
# $TEST_DIR/NAME (its own HOME with SETTINGS as settings.json, and the
# work directory work/, made from $TEST_DIR/seed), with the hook installed
# when ADAPTER is "with".  The model calls the Bash tool with each COMMAND
# in turn (a COMMAND that starts with { is another tool, see the mock).
# Leaves NAME/out.json (claude's result), NAME/log (the requests) and
# NAME/results (the tool results the model got, each ending in a line
# "=== end").  Extra claude arguments come from $CLAUDE_ARGS, its shell
# from $RUN_SHELL (/bin/sh when empty), its PATH from $RUN_PATH, and the
# user's ~/.bashrc from $RUN_BASHRC.
run_claude() {
	name=$1 adapter=$2 settings=$3
	shift 3
	d=$TEST_DIR/$name
	rm -rf "$d" && mkdir -p "$d/home/.claude" &&
	cp -R "$TEST_DIR/seed" "$d/work" &&
	printf "%s\n" "$settings" >"$d/home/.claude/settings.json" || return 1
	if [ -n "${RUN_BASHRC-}" ]; then
		printf "%s\n" "$RUN_BASHRC" >"$d/home/.bashrc" || return 1
	fi
	if [ "$adapter" = with ]; then
		HOME=$d/home ofl-claude-hook --install >/dev/null || return 1
	fi
	node "$MOCK" "$d/port" "$d/log" "$@" 2>"$d/mock.err" &
	mock=$!
	tries=0
	while [ ! -s "$d/port" ]; do
		tries=$((tries + 1))
		[ $tries -le 100 ] || { kill $mock; echo "the mock did not start"; return 1; }
		sleep 0.1
	done
	# Any traffic that is not for the stand-in goes to a dead proxy.
	(cd "$d/work" && env -u ANTHROPIC_AUTH_TOKEN -u CLAUDE_CONFIG_DIR \
	    -u ANTHROPIC_MODEL -u CLAUDE_CODE_USE_BEDROCK \
	    -u CLAUDE_CODE_USE_VERTEX HOME="$d/home" PATH="${RUN_PATH:-$PATH}" \
	    SHELL="${RUN_SHELL:-/bin/sh}" \
	    ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$d/port")" \
	    ANTHROPIC_API_KEY=sk-ant-test-0000 \
	    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
	    DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
	    HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 \
	    NO_PROXY=127.0.0.1,localhost \
	    timeout 120 "$CLAUDE" -p "Run the commands." --output-format json \
	    ${CLAUDE_ARGS:-} </dev/null >"$d/out.json" 2>"$d/err")
	rc=$?
	kill $mock 2>/dev/null
	wait $mock 2>/dev/null
	[ $rc -eq 0 ] || { echo "claude exited $rc"; cat "$d/err"; return 1; }
	# The last request holds the whole conversation.
	jq -s -r '[.[] | select(.url | startswith("/v1/messages"))
	    | select(any(.body.tools[]?; .name == "Bash"))] | last
	    | .body.messages[] | select(.role == "user") | .content
	    | arrays | .[] | select(.type == "tool_result")
	    | (.content | if type == "array" then map(.text // "") | join("\n")
		else . end) + "\n=== end"' "$d/log" >"$d/results"
}

# same A B: the two sessions gave the model the same tool results and the
# same permission denials, up to their directory names and the name of
# the file where Claude Code keeps a large output.
same() {
	sed -e "s#$TEST_DIR/$1#DIR#g" -e "s#\(Full output saved to: \).*#\1FILE#" \
	    "$TEST_DIR/$1/results" >a.results &&
	sed -e "s#$TEST_DIR/$2#DIR#g" -e "s#\(Full output saved to: \).*#\1FILE#" \
	    "$TEST_DIR/$2/results" >b.results &&
	test_cmp a.results b.results &&
	jq -S "[.permission_denials[] | .tool_input]" "$TEST_DIR/$1/out.json" >a.denied &&
	jq -S "[.permission_denials[] | .tool_input]" "$TEST_DIR/$2/out.json" >b.denied &&
	test_cmp a.denied b.denied
}

# count: how many artifacts the store holds.
count() {
	ofl-search -q -n 100000 </dev/null | wc -l
}

mkdir -p seed/x &&
echo keep >seed/x/file &&
echo "some notes" >seed/notes.txt

test_expect_success 'a deny rule Bash(rm:*) blocks rm -rf x, as without the hook' '
	s="{\"permissions\": {\"allow\": [\"Bash\"], \"deny\": [\"Bash(rm:*)\"]}}" &&
	run_claude deny-without without "$s" "rm -rf x" &&
	run_claude deny-with with "$s" "rm -rf x" &&
	test -f deny-without/work/x/file &&
	test -f deny-with/work/x/file &&
	jq -e "[.permission_denials[].tool_input.command] == [\"rm -rf x\"]" \
	    deny-with/out.json &&
	same deny-without deny-with
'

test_expect_success 'the deny rule holds in bypassPermissions mode too' '
	s="{\"permissions\": {\"deny\": [\"Bash(rm:*)\"]}}" &&
	# Claude Code takes bypassPermissions from root only in a sandbox.
	if [ "$(id -u)" -eq 0 ]; then IS_SANDBOX=1 && export IS_SANDBOX; fi &&
	CLAUDE_ARGS="--permission-mode bypassPermissions" &&
	run_claude bypass-without without "$s" "rm -rf x" &&
	run_claude bypass-with with "$s" "rm -rf x" &&
	CLAUDE_ARGS= &&
	unset IS_SANDBOX &&
	test -f bypass-without/work/x/file &&
	test -f bypass-with/work/x/file &&
	same bypass-without bypass-with
'

test_expect_success 'allow rules approve exactly what they approve without the hook' '
	s="{\"permissions\": {\"allow\": [\"Bash(ls:*)\", \"Bash(echo:*)\"]}}" &&
	set -- "ls" "echo hi" "touch made" "cat notes.txt" "date >stamp" &&
	run_claude allow-without without "$s" "$@" &&
	run_claude allow-with with "$s" "$@" &&
	test ! -e allow-with/work/made && test ! -e allow-with/work/stamp &&
	test ! -e allow-without/work/made &&
	jq -e "[.permission_denials[].tool_input.command] ==
	    [\"touch made\", \"date >stamp\"]" allow-with/out.json &&
	sed -n 1,3p allow-with/results >head &&
	printf "%s\n" notes.txt x "=== end" >expect &&
	test_cmp expect head &&
	same allow-without allow-with
'

test_expect_success 'bash features and the user functions work as without the hook' '
	test -n "$BASH" || { echo "no bash: skipped"; return 0; }
	s="{\"permissions\": {\"allow\": [\"Bash\"]}}" &&
	c="[ 1 == 1 ] && echo yes; echo -e \"a\\tb\"; let x=2+3; echo \$x; ((x++)); echo \$x; greet" &&
	RUN_SHELL=$BASH &&
	RUN_BASHRC="greet() { echo hello from bashrc; }" &&
	run_claude shell-without without "$s" "$c" &&
	run_claude shell-with with "$s" "$c" &&
	RUN_SHELL= RUN_BASHRC= &&
	printf "yes\na\tb\n5\n6\nhello from bashrc\n=== end\n" >expect &&
	test_cmp expect shell-with/results &&
	same shell-without shell-with
'

seq 1 200000 >seq.out

test_expect_success 'large output: stored byte for byte, the model gets the notice' '
	s="{\"permissions\": {\"allow\": [\"Bash\"]}}" &&
	run_claude big-with with "$s" "seq 1 200000" &&
	id=$(ofl-search -q -n 1) &&
	ofl-search -j -n 1 | jq -e ".label == \"seq 1 200000\"" &&
	ofl-extract "$id" --max-bytes 0 >got &&
	test_cmp seq.out got &&
	head -n 1 big-with/results >line &&
	echo "ofl:$id text 1.3 MB 200,000 lines" >expect &&
	test_cmp expect line &&
	grep -x "      ofl-search $id '\''QUERY'\''" big-with/results &&
	test $(wc -c <big-with/results) -lt 2000 &&
	run_claude big-without without "$s" "seq 1 200000" &&
	head -n 1 big-without/results | grep -x "<persisted-output>"
'

test_expect_success 'no ofl-capture in PATH: the result is what it is without the hook' '
	PATH=/usr/bin:/bin command -v ofl-capture &&
	    { echo "ofl-capture in /usr/bin: skipped"; return 0; }
	n=$(count) &&
	s="{\"permissions\": {\"allow\": [\"Bash\"]}}" &&
	RUN_PATH=/usr/bin:/bin &&
	run_claude nocap with "$s" "seq 1 200000" &&
	RUN_PATH= &&
	jq -e ".hooks.PostToolUse[0].hooks[0].command ==
	    \"$OFL_SRCDIR/bin/ofl-claude-hook\"" nocap/home/.claude/settings.json &&
	test "$(count)" -eq $n &&
	same big-without nocap
'

test_expect_success 'a failing command: the model gets what it gets without the hook' '
	n=$(count) &&
	s="{\"permissions\": {\"allow\": [\"Bash\"]}}" &&
	run_claude fail-with with "$s" "seq 1 200000; exit 3" &&
	run_claude fail-without without "$s" "seq 1 200000; exit 3" &&
	head -n 2 fail-with/results >head &&
	printf "Exit code 3\n1\n" >expect &&
	test_cmp expect head &&
	test "$(count)" -eq $n &&
	same fail-without fail-with
'

test_expect_success 'a large MCP result: stored, the model gets the notice' '
	test -f "$EVERYTHING" || { echo "no server-everything: skipped"; return 0; }
	jq -n --arg s "$EVERYTHING" "{mcpServers: {everything: {type: \"stdio\",
	    command: \"node\", args: [\$s, \"stdio\"]}}}" >mcp.json &&
	msg=$(seq 1 8000 | tr "\n" " ") &&
	call=$(jq -nc --arg m "$msg" "{name: \"mcp__everything__echo\",
	    input: {message: \$m}}") &&
	s="{\"permissions\": {\"allow\": [\"mcp__everything__echo\"]}}" &&
	CLAUDE_ARGS="--mcp-config $TEST_DIR/mcp.json --strict-mcp-config" &&
	run_claude mcp-with with "$s" "$call" &&
	CLAUDE_ARGS= &&
	id=$(ofl-search -q -n 1) &&
	ofl-search -j -n 1 | jq -e ".label == \"mcp__everything__echo\"" &&
	printf "Echo: %s" "$msg" >expect &&
	ofl-extract "$id" --max-bytes 0 >got &&
	test_cmp expect got &&
	head -n 1 mcp-with/results >line &&
	echo "ofl:$id text 39 kB 1 line" >expect &&
	test_cmp expect line
'

test_done
