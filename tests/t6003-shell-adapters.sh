#!/bin/sh
# t6003: the shell-tool adapters: ofl-claude-hook (a PostToolUse hook for
# Claude Code's Bash tool and MCP tools) on hook payloads in the format
# Claude Code sends, its install into settings.json, and ofl-sh.  The
# hook inside the real Claude Code binary is t6004.

. "$(dirname "$0")/lib.sh"

test_have_prereq JQ || test_skip_all "jq is needed"

# Payloads of the PreToolUse hook of older versions.
OLD=$DATA/mcp/hook

# post_bash CMD STDOUT [EXTRA]: a PostToolUse payload of the Bash tool,
# with EXTRA (a jq object) merged into tool_response.
post_bash() {
	jq -n --arg c "$1" --arg o "$2" --argjson x "${3:-{\}}" --arg cwd "$PWD" '{
	    session_id: "5b1f0c6e-2f7a-4c1e-9a53-0d3e6f1b2c4d",
	    transcript_path: "/home/u/.claude/projects/p/5b1f.jsonl",
	    cwd: $cwd, permission_mode: "default",
	    hook_event_name: "PostToolUse", tool_name: "Bash",
	    tool_input: {command: $c, description: "Run it"},
	    tool_response: ({stdout: $o, stderr: "", interrupted: false,
		isImage: false, noOutputExpected: false} + $x),
	    tool_use_id: "toolu_01", duration_ms: 12}'
}

# post_mcp TOOL RESPONSE: a PostToolUse payload of an MCP tool.
post_mcp() {
	jq -n --arg t "$1" --argjson r "$2" --arg cwd "$PWD" '{
	    session_id: "5b1f0c6e", cwd: $cwd, permission_mode: "default",
	    hook_event_name: "PostToolUse", tool_name: $t,
	    tool_input: {message: "x"}, tool_response: $r,
	    tool_use_id: "toolu_02"}'
}

# stored ID: the content of the artifact, raw.
stored() {
	ofl-extract "$1" --max-bytes 0
}

seq 1 20000 >big.txt

test_expect_success 'small Bash output: stored under the command, result left alone' '
	post_bash "printf \"%s\\n\" one two" "one
two" >p.json &&
	ofl-claude-hook <p.json >out 2>err &&
	test_cmp /dev/null out &&
	test_cmp /dev/null err &&
	ofl-search -j -n 1 >list &&
	jq -e ".label == \"printf \\\"%s\\\\n\\\" one two\" and .bytes == 7" list &&
	printf "one\ntwo" >expect &&
	stored @ >got &&
	test_cmp expect got
'

test_expect_success 'large Bash output: the notice replaces stdout, the rest kept' '
	post_bash "seq 1 20000" "$(cat big.txt)" >p.json &&
	ofl-claude-hook <p.json >out &&
	id=$(ofl-search -q -n 1) &&
	jq -e --arg id "$id" ".hookSpecificOutput | keys == [\"hookEventName\",
	    \"updatedToolOutput\"] and .hookEventName == \"PostToolUse\" and
	    (.updatedToolOutput | keys == [\"interrupted\", \"isImage\",
	    \"noOutputExpected\", \"stderr\", \"stdout\"]) and
	    .updatedToolOutput.stderr == \"\" and
	    .updatedToolOutput.interrupted == false and
	    (.updatedToolOutput.stdout | startswith(\"ofl:\" + \$id +
	    \" text 109 kB 20,000 lines\") and endswith(\"QUERY'\''\"))" out &&
	head -c 108893 big.txt >expect &&
	stored "$id" >got &&
	test_cmp expect got
'

test_expect_success 'a persisted Bash output: the whole file is stored, byte for byte' '
	# Claude Code keeps a large output in a file and reports its head.
	seq 1 200000 >persisted.txt &&
	post_bash "seq 1 200000" "$(head -c 30000 persisted.txt)" \
	    "{\"persistedOutputPath\": \"$PWD/persisted.txt\",
	    \"persistedOutputSize\": 1288895}" >p.json &&
	ofl-claude-hook <p.json >out &&
	id=$(ofl-search -q -n 1) &&
	jq -e --arg id "$id" ".hookSpecificOutput.updatedToolOutput |
	    (has(\"persistedOutputPath\") or has(\"persistedOutputSize\") | not)
	    and (.stdout | startswith(\"ofl:\" + \$id +
	    \" text 1.3 MB 200,000 lines\"))" out &&
	stored "$id" >got &&
	test_cmp persisted.txt got
'

test_expect_success 'stderr reported apart is stored after stdout' '
	post_bash "make" "$(head -n 10000 big.txt)" \
	    "{\"stderr\": \"make: *** [all] Error 1\"}" >p.json &&
	ofl-claude-hook <p.json >out &&
	{ head -n 10000 big.txt && printf "make: *** [all] Error 1"; } >expect &&
	stored @ >got &&
	test_cmp expect got
'

test_expect_success 'the artifact gets the working directory of the call' '
	mkdir -p proj &&
	(cd proj && post_bash "seq 1 20000" "$(cat ../big.txt)") >p.json &&
	ofl-claude-hook <p.json >/dev/null &&
	ofl-search -j -n 1 >list &&
	jq -e --arg d "$PWD/proj" ".cwd == \$d" list
'

test_expect_success 'a command too long for exec: stored, the label cut' '
	head -c 300000 /dev/zero | tr "\\0" a >long &&
	jq -n --rawfile c long --rawfile o big.txt "{hook_event_name:
	    \"PostToolUse\", tool_name: \"Bash\", tool_input: {command:
	    (\"echo \" + \$c)}, tool_response: {stdout: \$o, stderr: \"\"}}" \
	    >p.json &&
	ofl-claude-hook <p.json >out &&
	jq -e ".hookSpecificOutput.updatedToolOutput.stdout | startswith(\"ofl:\")" out &&
	ofl-search -j -n 1 >list &&
	jq -e ".label | length == 4003 and startswith(\"echo aaa\") and
	    endswith(\"a...\")" list
'

test_expect_success 'large MCP text result: one text block with the notice' '
	post_mcp mcp__files__read_text_file \
	    "[{\"type\": \"text\", \"text\": $(jq -Rs . big.txt)},
	    {\"type\": \"text\", \"text\": \"second\"}]" >p.json &&
	ofl-claude-hook <p.json >out &&
	id=$(ofl-search -q -n 1) &&
	jq -e --arg id "$id" ".hookSpecificOutput |
	    .updatedToolOutput == .updatedMCPToolOutput and
	    (.updatedToolOutput | length == 1 and .[0].type == \"text\" and
	    (.[0].text | startswith(\"ofl:\" + \$id + \" \")))" out &&
	ofl-search -j -n 1 | jq -e ".label == \"mcp__files__read_text_file\"" &&
	{ cat big.txt && echo && printf second; } >expect &&
	stored "$id" >got &&
	test_cmp expect got
'

test_expect_success 'left alone: nothing printed, nothing stored' '
	n=$(ofl-search -q -n 1000 | wc -l) &&
	big=$(cat big.txt) &&
	for p in \
	    "$(post_bash "ofl-extract @ --max-bytes 0" "$big")" \
	    "$(post_bash "make | ofl-capture" "$big")" \
	    "$(post_bash "seq 1 20000" "ofl:abc12345 text 109 kB 20,000 lines")" \
	    "$(post_bash "seq 1 20000" "$big" "{\"isImage\": true}")" \
	    "$(post_bash "sleep 9" "" "{\"backgroundTaskId\": \"b1\"}")" \
	    "$(post_bash "seq 1 20000" "$big" | jq ".tool_input.run_in_background = true")" \
	    "$(post_bash "seq 1 20000" "$big" | jq ".hook_event_name = \"PostToolUseFailure\"")" \
	    "$(post_bash "seq 1 20000" "$big" | jq ".tool_name = \"Read\"")" \
	    "$(post_bash "seq 1 20000" "$big" | jq ".tool_response = \"text\"")" \
	    "$(post_mcp mcp__ofl__ofl_extract "[{\"type\": \"text\", \"text\": $(jq -Rs . big.txt)}]")" \
	    "$(post_mcp mcp__web__shot "[{\"type\": \"text\", \"text\": $(jq -Rs . big.txt)},
		{\"type\": \"image\", \"data\": \"AAAA\", \"mimeType\": \"image/png\"}]")" \
	    "$(post_mcp mcp__web__get "{\"content\": []}")" \
	    "not json" "[]" ""; do
		printf "%s" "$p" | ofl-claude-hook >out 2>err &&
		test_cmp /dev/null out && test_cmp /dev/null err ||
		{ echo "failed: $p" | head -c 300; return 1; }
	done &&
	test $(ofl-search -q -n 1000 | wc -l) -eq $n
'

test_expect_success 'older PreToolUse entries, with their options: nothing at all' '
	n=0 &&
	for f in "$OLD"/*.json; do
		ofl-claude-hook --decision allow --shell bash <"$f" >out 2>err &&
		test_cmp /dev/null out &&
		test_cmp /dev/null err || { echo "failed: $f"; return 1; }
		n=$((n + 1))
	done &&
	test $n -ge 20
'

test_expect_success 'no ofl-capture to run: nothing printed, nothing stored' '
	n=$(ofl-search -q -n 1000 | wc -l) &&
	post_bash "seq 1 20000" "$(cat big.txt)" >p.json &&
	mkdir -p nocap &&
	ln -s "$(command -v jq)" nocap/jq &&
	PATH=$TEST_DIR/nocap "$(command -v sh)" "$OFL_SRCDIR/bin/ofl-claude-hook" \
	    <p.json >out 2>err &&
	test_cmp /dev/null out && test_cmp /dev/null err &&
	echo "#!/bin/sh" >notexec && chmod 644 notexec &&
	ofl-claude-hook --capture "$TEST_DIR/notexec" <p.json >out 2>err &&
	test_cmp /dev/null out && test_cmp /dev/null err &&
	ofl-claude-hook --capture "$TEST_DIR/missing/ofl-capture" <p.json >out &&
	test_cmp /dev/null out &&
	OFL_HOOK_CAPTURE=no-such-ofl-capture ofl-claude-hook <p.json >out &&
	test_cmp /dev/null out &&
	test $(ofl-search -q -n 1000 | wc -l) -eq $n &&
	ofl-claude-hook --capture "$(command -v ofl-capture)" <p.json >out &&
	test -s out
'

test_expect_success 'a relative --capture still runs from the session directory' '
	mkdir -p rel/sub && ln -s "$(command -v ofl-capture)" rel/cap &&
	(cd rel/sub && post_bash "seq 1 20000" "$(cat ../../big.txt)") >p.json &&
	(cd rel && ofl-claude-hook --capture ./cap <../p.json >../out) &&
	test -s out &&
	ofl-search -j -n 1 >list &&
	jq -e --arg d "$PWD/rel/sub" ".cwd == \$d" list
'

test_expect_success 'usage errors' '
	test_expect_code 2 ofl-claude-hook --bogus </dev/null 2>err &&
	grep "^usage: ofl-claude-hook" err &&
	test_expect_code 2 ofl-claude-hook --capture </dev/null &&
	test_expect_code 2 ofl-claude-hook --decision </dev/null
'

test_expect_success 'install: a new settings file' '
	ofl-claude-hook --install >msg &&
	grep "installed in $HOME/.claude/settings.json: PostToolUse" msg &&
	jq -e ".hooks == {PostToolUse: [{matcher: \"Bash|mcp__.*\",
	    hooks: [{type: \"command\",
	    command: \"$OFL_SRCDIR/bin/ofl-claude-hook\", timeout: 30}]}]}" \
	    "$HOME/.claude/settings.json" &&
	test "$(stat -c %a "$HOME/.claude/settings.json")" = 600
'

test_expect_success 'install again: nothing changes, no backup' '
	cp "$HOME/.claude/settings.json" before &&
	ofl-claude-hook --install >msg &&
	grep "already up to date" msg &&
	test_cmp before "$HOME/.claude/settings.json" &&
	test $(ls "$HOME/.claude" | wc -l) -eq 1
'

test_expect_success 'install over an older version: its PreToolUse entry goes, the rest stays' '
	cat >settings.json <<-\EOF &&
	{
	  "model": "opus",
	  "permissions": {"allow": ["Bash(git status:*)"], "deny": ["Bash(rm:*)"]},
	  "hooks": {
	    "PreToolUse": [
	      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/audit-bash"}]},
	      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/old/place/ofl-claude-hook --decision allow --shell bash"}]}
	    ],
	    "PostToolUse": [
	      {"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt-file"}]}
	    ],
	    "Stop": [{"hooks": [{"type": "command", "command": "notify-done"}]}]
	  }
	}
	EOF
	cp settings.json orig.json &&
	ofl-claude-hook --install --settings settings.json --decision ask \
	    >msg 2>err &&
	grep "backed up settings.json to settings.json.bak." msg &&
	echo "ofl-claude-hook: --decision is obsolete and ignored" >expect &&
	test_cmp expect err &&
	test_cmp orig.json settings.json.bak.* &&
	jq -e ".model == \"opus\" and
	    .permissions == {allow: [\"Bash(git status:*)\"], deny: [\"Bash(rm:*)\"]} and
	    .hooks.Stop == [{hooks: [{type: \"command\", command: \"notify-done\"}]}] and
	    .hooks.PreToolUse == [{matcher: \"Bash\", hooks: [{type: \"command\",
		command: \"/usr/local/bin/audit-bash\"}]}] and
	    .hooks.PostToolUse == [
		{matcher: \"Edit\", hooks: [{type: \"command\", command: \"fmt-file\"}]},
		{matcher: \"Bash|mcp__.*\", hooks: [{type: \"command\",
		command: \"$OFL_SRCDIR/bin/ofl-claude-hook\", timeout: 30}]}]" \
	    settings.json
'

test_expect_success 'install over an older version alone: no PreToolUse left' '
	printf "%s\n" "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\",
	    \"hooks\": [{\"type\": \"command\",
	    \"command\": \"ofl-claude-hook\"}]}]}}" >only.json &&
	ofl-claude-hook --install --settings only.json >msg &&
	jq -e ".hooks | keys == [\"PostToolUse\"]" only.json
'

test_expect_success 'uninstall: ours removed, the rest kept' '
	ofl-claude-hook --uninstall --settings settings.json >msg &&
	grep "removed from settings.json" msg &&
	jq -e ".model == \"opus\" and (.hooks.PreToolUse | length) == 1 and
	    .hooks.PostToolUse == [{matcher: \"Edit\", hooks: [{type: \"command\",
		command: \"fmt-file\"}]}] and
	    (.hooks.Stop | length) == 1" settings.json &&
	ofl-claude-hook --uninstall >msg &&
	jq -e "has(\"hooks\") | not" "$HOME/.claude/settings.json"
'

test_expect_success 'install refuses a settings file that is not JSON' '
	echo "{ not json" >bad.json &&
	cp bad.json bad.orig &&
	test_expect_code 3 ofl-claude-hook --install --settings bad.json 2>err &&
	grep "not a JSON object; left alone" err &&
	test_cmp bad.orig bad.json &&
	test ! -e bad.json.bak.*
'

test_expect_success 'ofl-sh -c: output, exit status, the artifact' '
	test_expect_code 3 ofl-sh -c "echo hello; exit 3" >out &&
	echo hello >expect &&
	test_cmp expect out &&
	ofl-search -n 1 | grep "echo hello; exit 3"
'

test_expect_success 'ofl-sh -c: large output becomes a notice' '
	ofl-sh -c "seq 1 20000" >out &&
	head -n 1 out | grep "^ofl:[a-z0-9]* .* 20,000 lines" &&
	test $(wc -c <out) -lt 4000
'

test_expect_success 'ofl-sh: arguments, -lc style flags, no -c' '
	ofl-sh -c "echo \$0 \$1" name one >out &&
	echo "name one" >expect &&
	test_cmp expect out &&
	OFL_SH_SHELL=bash ofl-sh -ec "[[ 1 == 1 ]] && echo bash" >out &&
	echo bash >expect &&
	test_cmp expect out &&
	echo "echo plain" | ofl-sh >out &&
	echo plain >expect &&
	test_cmp expect out &&
	test_expect_code 2 ofl-sh -c 2>err &&
	grep "requires an argument" err
'

test_done
