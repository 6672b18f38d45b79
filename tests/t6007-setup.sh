#!/bin/sh
# t6007: ofl setup writes the MCP configuration of Codex CLI, Gemini CLI,
# Cursor and OpenCode in a private HOME; the files it writes are parsed
# as their harness reads them (TOML with python3's tomllib, JSON with
# python3's json), and set-up is idempotent, backed up and undone.

. "$(dirname "$0")/lib.sh"

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
		test ! -s got
	'
done

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
