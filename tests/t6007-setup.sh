#!/bin/sh
# t6007: ofl setup writes the MCP configuration of Codex CLI, Gemini CLI,
# Cursor and OpenCode in a private HOME; the files it writes are parsed
# as their harness reads them (TOML with python3's tomllib, JSON with
# python3's json and jq, the OpenCode plugin with node when node is
# there), and set-up is idempotent, backed up and undone.  Then ofl-hook,
# run by the very command the setting names, on payloads shaped as each
# harness documents them: the notice for a large output, the output
# itself for a small one, exit 0 either way.

. "$(dirname "$0")/lib.sh"

# The set-up's files and the hook's shell are what this checks, python3
# and node most of its work: the gate runs it once, in the plain make
# check; the ofl-capture the hook ends in runs under the sanitizers in
# the capture tests.
test_once

test_have_prereq JQ || test_skip_all "jq is needed"
command -v python3 >/dev/null 2>&1 || test_skip_all "python3 is needed"
python3 -c 'import tomllib' 2>/dev/null ||
    test_skip_all "python3 has no tomllib (3.11 or later is needed)"

HOME=$TEST_DIR/home
XDG_CONFIG_HOME=
CODEX_HOME=
export HOME XDG_CONFIG_HOME CODEX_HOME
unset XDG_CONFIG_HOME CODEX_HOME
mkdir -p "$HOME"
SETUP=$OFL_SRCDIR/bin/ofl-setup
MCP=$(command -v ofl-mcp)

# servers HARNESS FILE: the servers FILE defines, one a line, as
# NAME<TAB>ARGV in JSON, parsed the way the harness reads the file.
servers() {
	python3 - "$1" "$2" <<'EOF'
import json, sys, tomllib
h, f = sys.argv[1], sys.argv[2]
if h == "codex":
    with open(f, "rb") as fp:
        s = {k: [v["command"]] + v.get("args", [])
             for k, v in tomllib.load(fp).get("mcp_servers", {}).items()}
elif h == "opencode":
    with open(f) as fp:
        d = json.load(fp)
    assert d["$schema"] == "https://opencode.ai/config.json"
    s = {}
    for k, v in d.get("mcp", {}).items():
        assert v["type"] == "local" and v["enabled"] is True
        s[k] = v["command"]
else:
    with open(f) as fp:
        s = {k: [v["command"]] + v["args"]
             for k, v in json.load(fp).get("mcpServers", {}).items()}
for k in sorted(s):
    print(k + "\t" + json.dumps(s[k]))
EOF
}

# expect_servers [NAME ARGV]...: the expected lines of servers.
expect_alone() {
	printf 'ofl\t["%s"]\n' "$MCP"
}
expect_fs() {
	printf 'fs\t["%s", "--no-tools", "--name", "fs", "--", "node", "server.js", "/data/a b", "it'"'"'s \\"q\\""]\n' "$MCP"
}

# hooks HARNESS: the hooks the harness's file defines, one a line, as
# EVENT<TAB>MATCHER<TAB>TYPE<TAB>COMMAND.
hooks() {
	case $1 in
	codex)	jq -r '(.hooks // {}) | to_entries[] | .key as $e
		    | .value[] | .matcher as $m | .hooks[]
		    | [$e, $m, .type, .command] | @tsv' \
		    "$HOME/.codex/hooks.json" ;;
	gemini)	jq -r '(.hooks // {}) | to_entries[] | .key as $e
		    | .value[] | .matcher as $m | .hooks[]
		    | [$e, $m, .type, .command, .name] | @tsv' \
		    "$HOME/.gemini/settings.json" ;;
	esac
}
PLUGIN=$HOME/.config/opencode/plugins/ofl.js
HOOK=$OFL_SRCDIR/bin/ofl-hook
# The hook of HARNESS as written: its command runs ofl-hook HARNESS.
expect_hook() {
	case $1 in
	codex)	printf 'PostToolUse\tBash\tcommand\t%s codex\n' "'$HOOK'" ;;
	gemini)	printf 'AfterTool\trun_shell_command\tcommand\t%s gemini\tofl\n' \
		    "'$HOOK'" ;;
	esac
}
# plugin_ok: the plugin is a module node can load, naming ofl-hook.
plugin_ok() {
	test -f "$PLUGIN" &&
	grep -q "^const HOOK = \"$HOOK\";\$" "$PLUGIN" &&
	if command -v node >/dev/null 2>&1; then
		cp "$PLUGIN" plugin.mjs && node --check plugin.mjs
	fi
}

for h in codex gemini cursor opencode; do
	case $h in
	codex)		f=$HOME/.codex/config.toml ;;
	gemini)		f=$HOME/.gemini/settings.json ;;
	cursor)		f=$HOME/.cursor/mcp.json ;;
	opencode)	f=$HOME/.config/opencode/opencode.json ;;
	esac

	test_expect_success "$h: ofl-mcp alone, in $(basename "$f")" '
		ofl setup $h 2>err &&
		servers $h "$f" >got &&
		expect_alone >expect &&
		test_cmp expect got &&
		test ! -e "$f.ofl-backup"
	'

	test_expect_success "$h: the shell hook, where the harness has one" '
		case $h in
		codex|gemini)
			hooks $h >got &&
			expect_hook $h >expect &&
			test_cmp expect got ;;
		opencode)
			plugin_ok ;;
		cursor)
			test ! -e "$HOME/.cursor/hooks.json" &&
			! grep -q hook err ;;
		esac
	'

	test_expect_success "$h: a server wrapped, quoted as given" '
		ofl setup $h --server fs -- node server.js "/data/a b" "it'"'"'s \"q\"" 2>err &&
		servers $h "$f" >got &&
		{ expect_fs; expect_alone; } >expect &&
		test_cmp expect got &&
		test -f "$f.ofl-backup" &&
		servers $h "$f.ofl-backup" >old &&
		expect_alone >expect &&
		test_cmp expect old
	'

	test_expect_success "$h: again: nothing changes" '
		cp "$f" before &&
		ofl setup $h --server fs -- node server.js "/data/a b" "it'"'"'s \"q\"" 2>err &&
		grep "nothing to change" err &&
		cmp before "$f"
	'

	test_expect_success "$h: --print shows, changes nothing" '
		ofl setup $h --print --uninstall --server fs >printed &&
		cmp before "$f" &&
		cp printed p.$h &&
		servers $h p.$h >got &&
		expect_alone >expect &&
		test_cmp expect got
	'

	test_expect_success "$h: --uninstall takes them out, one at a time" '
		ofl setup $h --uninstall --server fs 2>err &&
		servers $h "$f" >got &&
		expect_alone >expect &&
		test_cmp expect got &&
		ofl setup $h --uninstall 2>err &&
		servers $h "$f" >got &&
		test ! -s got &&
		case $h in
		codex)	jq -e ". == {}" "$HOME/.codex/hooks.json" ;;
		gemini)	jq -e "has(\"hooks\") | not" "$f" ;;
		opencode) test ! -e "$PLUGIN" ;;
		esac
	'
done

test_expect_success 'hooks: installed once however often, --no-hook, others kept' '
	mkdir -p "$HOME/.codex" &&
	echo "{\"hooks\":{\"PostToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"my-linter\"}]}],\"Stop\":[]}}" >"$HOME/.codex/hooks.json" &&
	ofl setup codex 2>err &&
	ofl setup codex 2>err &&
	grep "hooks.json: nothing to change" err &&
	hooks codex >got &&
	{ printf "PostToolUse\tBash\tcommand\tmy-linter\n"; expect_hook codex; } >expect &&
	test_cmp expect got &&
	jq -e ".hooks.Stop == []" "$HOME/.codex/hooks.json" &&
	ofl setup codex --uninstall 2>err &&
	hooks codex >got &&
	printf "PostToolUse\tBash\tcommand\tmy-linter\n" >expect &&
	test_cmp expect got &&
	ofl setup gemini --no-hook 2>err &&
	hooks gemini >got &&
	test ! -s got &&
	ofl setup gemini --uninstall 2>err &&
	echo "// my plugin" >"$PLUGIN" &&
	test_expect_code 3 ofl setup opencode 2>err &&
	grep "^ofl-setup: .*plugins/ofl.js is there already, not written by ofl-setup$" err &&
	test "$(cat "$PLUGIN")" = "// my plugin" &&
	rm "$PLUGIN"
'

test_expect_success '--uninstall creates no file' '
	rm -f "$HOME/.codex/hooks.json" &&
	ofl setup codex --uninstall 2>err &&
	grep "hooks.json: nothing to change" err &&
	test ! -e "$HOME/.codex/hooks.json"
'

test_expect_success '--print shows both files of Codex CLI' '
	ofl setup codex --print >printed &&
	test "$(grep "^==> " printed)" = "==> $HOME/.codex/config.toml <==
==> $HOME/.codex/hooks.json <==" &&
	sed -n "/^==> .*hooks.json <==\$/,\$p" printed | sed 1d | jq -e \
	    "[.hooks.PostToolUse[].hooks[].command] | last
	    | endswith(\"ofl-hook\u0027 codex\")"
'

# The payloads: a large output (20,000 lines) and a small one, as each
# harness sends them (Codex CLI: its PostToolUse input; Gemini CLI: its
# AfterTool input; OpenCode: what the plugin writes).
seq 1 20000 >big.out
printf "hello\n" >small.out
# payload HARNESS COMMAND FILE
payload() {
	case $1 in
	codex)	jq -n --arg c "$2" --rawfile o "$3" --arg d "$PWD" '{
		    session_id: "s1", turn_id: "t1", cwd: $d,
		    hook_event_name: "PostToolUse", model: "gpt-5",
		    permission_mode: "default", tool_name: "Bash",
		    tool_use_id: "call_1", tool_input: {command: $c},
		    tool_response: $o}' ;;
	gemini)	jq -n --arg c "$2" --rawfile o "$3" --arg d "$PWD" '{
		    session_id: "s1", transcript_path: "/dev/null", cwd: $d,
		    hook_event_name: "AfterTool", timestamp: "2026-12-02T00:00:00Z",
		    tool_name: "run_shell_command",
		    tool_input: {command: $c, description: "run it"},
		    tool_response: {llmContent: $o, returnDisplay: $o}}' ;;
	opencode) jq -n --arg c "$2" --rawfile o "$3" --arg d "$PWD" '{
		    tool_name: "bash", tool_input: {command: $c},
		    tool_response: $o, cwd: $d}' ;;
	esac
}
# run_hook HARNESS: the hook's command as the harness's file names it.
run_hook() {
	case $1 in
	codex)	cmd=$(jq -r ".hooks.PostToolUse[].hooks[].command
		    | select(test(\"ofl-hook\"))" "$HOME/.codex/hooks.json") ;;
	gemini)	cmd=$(jq -r ".hooks.AfterTool[].hooks[].command
		    | select(test(\"ofl-hook\"))" "$HOME/.gemini/settings.json") ;;
	opencode) cmd="$HOOK opencode" ;;
	esac
	sh -c "$cmd"
}

for h in codex gemini opencode; do
	case $h in
	codex)		key=reason want='{"decision":"block","reason":' ;;
	gemini)		key=reason want='{"decision":"deny","reason":' ;;
	opencode)	key=output want='{"output":' ;;
	esac
	test_expect_success "ofl-hook $h: a large output is stored, the notice comes back" '
		ofl setup $h 2>err &&
		n=$(ofl-search -q -a -n 100000 </dev/null | wc -l) &&
		payload $h "seq 1 20000" big.out >p.json &&
		run_hook $h <p.json >out &&
		test "$(wc -l <out)" -eq 1 &&
		case "$(cat out)" in "$want"*) ;; *) false ;; esac &&
		jq -r ".$key" out >notice &&
		id=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" notice) &&
		test -n "$id" &&
		echo "ofl:$id text 109 kB 20,000 lines" >expect &&
		head -n 1 notice >got &&
		test_cmp expect got &&
		printf "%s\n" "next: ofl-extract $id -n 21-60" \
		    "      ofl-search $id '"'"'QUERY'"'"'" >expect &&
		tail -n 2 notice >got &&
		test_cmp expect got &&
		ofl-extract "$id" --max-bytes 0 >got &&
		cmp big.out got &&
		test "$(ofl-search -q -a -n 100000 </dev/null | wc -l)" -eq $((n + 1))
	'

	test_expect_success "ofl-hook $h: a small output is stored and left as it is" '
		payload $h "echo hello" small.out >p.json &&
		n=$(ofl-search -q -a -n 100000 </dev/null | wc -l) &&
		run_hook $h <p.json >out &&
		if [ $h = gemini ]; then echo "{}" >expect; else : >expect; fi &&
		test_cmp expect out &&
		test "$(ofl-search -q -a -n 100000 </dev/null | wc -l)" -eq $((n + 1))
	'

	test_expect_success "ofl-hook $h: what it does not know is left alone" '
		if [ $h = gemini ]; then echo "{}" >expect; else : >expect; fi &&
		n=$(ofl-search -q -a -n 100000 </dev/null | wc -l) &&
		echo "not json" | run_hook $h >out &&
		test_cmp expect out &&
		payload $h "ofl-search x" big.out | run_hook $h >out &&
		test_cmp expect out &&
		payload $h "cat log" notice | run_hook $h >out &&
		test_cmp expect out &&
		payload $h "seq 1 20000" big.out |
		    jq ".tool_name = \"Read\"" | run_hook $h >out &&
		test_cmp expect out &&
		payload $h "seq 1 20000" big.out | (OFL_HOOK_CAPTURE=/nonexistent &&
		    export OFL_HOOK_CAPTURE && run_hook $h) >out &&
		test_cmp expect out &&
		test "$(ofl-search -q -a -n 100000 </dev/null | wc -l)" -eq $n
	'
done

test_expect_success node 'the OpenCode plugin: the notice in the output, the command as it was' '
	ofl setup opencode 2>err &&
	cp "$PLUGIN" plugin.mjs &&
	cat >run.mjs <<-\EOF &&
	const m = await import(process.argv[2]);
	const hooks = await m.OflPlugin({ directory: process.cwd() });
	const fs = await import("node:fs");
	for (const [cmd, file] of [["seq 1 20000", "big.out"],
	    ["echo hello", "small.out"]]) {
		const args = { command: cmd, description: "run it" };
		const out = { title: cmd, output: fs.readFileSync(file, "utf8"),
		    metadata: {} };
		await hooks["tool.execute.before"]({ tool: "bash",
		    sessionID: "s1", callID: cmd }, { args });
		await hooks["tool.execute.after"]({ tool: "bash",
		    sessionID: "s1", callID: cmd }, out);
		console.log(JSON.stringify(args));
		console.log(out.output.split("\n")[0]);
	}
	EOF
	node run.mjs "$PWD/plugin.mjs" >got &&
	id=$(sed -n "2s/^ofl:\([0-9a-z]*\) .*/\1/p" got) &&
	test -n "$id" &&
	cat >expect <<-EOF &&
	{"command":"seq 1 20000","description":"run it"}
	ofl:$id text 109 kB 20,000 lines
	{"command":"echo hello","description":"run it"}
	hello
	EOF
	test_cmp expect got
'

test_expect_success 'ofl-hook: bad use' '
	test_expect_code 2 ofl-hook </dev/null 2>err &&
	grep "^usage: ofl-hook" err &&
	test_expect_code 2 ofl-hook cursor </dev/null 2>err &&
	grep "^ofl-hook: unknown argument: cursor$" err
'

test_expect_success 'other settings are kept' '
	mkdir -p "$HOME/.gemini" &&
	echo "{\"theme\":\"dark\",\"mcpServers\":{\"mine\":{\"command\":\"my-server\",\"args\":[]}}}" >"$HOME/.gemini/settings.json" &&
	ofl setup gemini 2>err &&
	jq -e ".theme == \"dark\" and .mcpServers.mine == {command: \"my-server\", args: []} and
	    (.mcpServers.ofl.command | endswith(\"/ofl-mcp\"))" "$HOME/.gemini/settings.json" &&
	ofl setup gemini --uninstall --server mine 2>err &&
	jq -e ".mcpServers.mine" "$HOME/.gemini/settings.json" &&
	printf "model = \"o3\"\n\n[mcp_servers.mine]\ncommand = \"my-server\"\n" >"$HOME/.codex/config.toml" &&
	ofl setup codex 2>err &&
	python3 -c "import tomllib; d = tomllib.load(open(\"$HOME/.codex/config.toml\", \"rb\")); assert d[\"model\"] == \"o3\" and d[\"mcp_servers\"][\"mine\"] == {\"command\": \"my-server\"}, d" &&
	test_expect_code 3 ofl setup codex --server mine -- x 2>err &&
	grep "^ofl-setup: .*: \[mcp_servers.mine\] is there already, not written by ofl-setup$" err
'

test_expect_success 'bad use: exit 2 and a message' '
	test_expect_code 2 ofl setup 2>err &&
	grep "^ofl-setup: which harness" err &&
	test_expect_code 2 ofl setup vim 2>err &&
	grep "^ofl-setup: unknown harness vim" err &&
	test_expect_code 2 ofl setup codex --server "a b" -- x 2>err &&
	test_expect_code 2 ofl setup codex --server fs 2>err &&
	grep "needs the command after --" err &&
	test_expect_code 2 ofl setup codex -- x 2>err &&
	echo "not json" >"$HOME/.cursor/mcp.json" &&
	test_expect_code 3 ofl setup cursor 2>err &&
	grep "^ofl-setup: .*mcp.json: not JSON$" err &&
	test "$(cat "$HOME/.cursor/mcp.json")" = "not json"
'

test_done
