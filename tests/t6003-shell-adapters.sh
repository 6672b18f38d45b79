#!/bin/sh
# t6003: the shell-tool adapters: ofl-claude-hook (a PreToolUse hook for
# Claude Code's Bash tool) on hook payloads in the documented format with
# golden outputs, its install into settings.json, and ofl-sh.

. "$(dirname "$0")/lib.sh"

test_have_prereq JQ || test_skip_all "jq is needed"

HOOK=$DATA/mcp/hook

test_expect_success 'golden outputs: wrapped commands and those left alone' '
	n=0 &&
	for f in "$HOOK"/*.json; do
		b=${f%.json} &&
		ofl-claude-hook <"$f" >out 2>err &&
		test ! -s err &&
		test_cmp "$b.out" out || { echo "failed: $f"; return 1; }
		n=$((n + 1))
	done &&
	test $n -ge 20
'

test_expect_success 'every payload that is wrapped has an answer, the others none' '
	for f in "$HOOK"/wrap-*.out; do
		test -s "$f" &&
		jq -e ".hookSpecificOutput.hookEventName == \"PreToolUse\" and
		    (.hookSpecificOutput.updatedInput.command |
		    test(\"ofl-capture -- sh -c \"))" "$f" >/dev/null || return 1
	done &&
	for f in "$HOOK"/keep-*.out; do
		test ! -s "$f" || return 1
	done
'

test_expect_success 'the rest of tool_input is kept' '
	jq -e ".hookSpecificOutput.updatedInput | .timeout == 600000 and
	    .description == \"Run the command\"" "$HOOK/wrap-pipe.out"
'

# A stand-in ofl-capture that runs its command, to check the quoting.
mkdir fake &&
cat >fake/ofl-capture <<-\EOF
	#!/bin/sh
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
	shift
	exec "$@"
EOF
chmod +x fake/ofl-capture

test_expect_success 'a rewritten command does what the command did' '
	mkdir -p proj/build src &&
	echo "all: ; @echo built in \$(CURDIR)" >proj/build/Makefile &&
	printf "%s\n" "it'\''s here" "not this" >src/a.txt &&
	for c in "grep -rn \"it'\''s\" src | head -n 50" \
	    "cat <<'\''EOF'\'' | wc -l
one
two
EOF" \
	    "echo \"\$HOME\" \$(echo sub) \`echo tick\` \\\\ done" \
	    "printf \"%s\\n\" a\"b\"c '\''d e'\''" \
	    "cd proj/build && make" ; do
		jq -n --arg c "$c" "{hook_event_name: \"PreToolUse\",
		    tool_name: \"Bash\", permission_mode: \"default\",
		    tool_input: {command: \$c}}" >p.json &&
		ofl-claude-hook <p.json >a.json &&
		new=$(jq -r ".hookSpecificOutput.updatedInput.command" a.json) &&
		test "$new" != "$c" &&
		sh -c "$c" >want 2>&1 &&
		PATH=$TEST_DIR/fake:$PATH sh -c "$new" >got 2>&1 &&
		test_cmp want got || { echo "failed: $c"; return 1; }
	done
'

test_expect_success 'the wrapped command keeps its exit status, and is stored' '
	jq -n "{hook_event_name: \"PreToolUse\", tool_name: \"Bash\",
	    tool_input: {command: \"echo out; echo err >&2; exit 7\"}}" |
	ofl-claude-hook >a.json &&
	new=$(jq -r ".hookSpecificOutput.updatedInput.command" a.json) &&
	test_expect_code 7 sh -c "$new" >out 2>&1 &&
	printf "%s\n" out err >expect &&
	test_cmp expect out &&
	ofl-search -n 1 | grep "echo out; echo err"
'

test_expect_success '--decision and --shell' '
	ofl-claude-hook --decision allow <"$HOOK/wrap-make.json" >out &&
	jq -e ".hookSpecificOutput.permissionDecision == \"allow\"" out &&
	ofl-claude-hook --decision ask <"$HOOK/wrap-make.json" >out &&
	jq -e ".hookSpecificOutput.permissionDecision == \"ask\"" out &&
	ofl-claude-hook --decision none <"$HOOK/wrap-bypass.json" >out &&
	jq -e ".hookSpecificOutput | has(\"permissionDecision\") | not" out &&
	ofl-claude-hook --shell bash <"$HOOK/keep-bashism.json" >out &&
	jq -e ".hookSpecificOutput.updatedInput.command ==
	    \"ofl-capture -- bash -c '\''[[ -f setup.py ]] && python setup.py test'\''\"" out &&
	test_expect_code 2 ofl-claude-hook --decision maybe </dev/null &&
	test_expect_code 2 ofl-claude-hook --shell zsh </dev/null &&
	test_expect_code 2 ofl-claude-hook --bogus </dev/null
'

test_expect_success 'install: a new settings file' '
	ofl-claude-hook --install >msg &&
	grep "installed in $HOME/.claude/settings.json" msg &&
	jq -e ".hooks.PreToolUse == [{matcher: \"Bash\", hooks: [{type: \"command\",
	    command: \"$OFL_SRCDIR/bin/ofl-claude-hook\", timeout: 10}]}]" \
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

test_expect_success 'install into settings with other hooks: merged, backed up' '
	cat >settings.json <<-\EOF &&
	{
	  "model": "opus",
	  "permissions": {"allow": ["Bash(git status:*)"]},
	  "hooks": {
	    "PreToolUse": [
	      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/audit-bash"}]},
	      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/old/place/ofl-claude-hook --decision allow"}]}
	    ],
	    "Stop": [{"hooks": [{"type": "command", "command": "notify-done"}]}]
	  }
	}
	EOF
	cp settings.json orig.json &&
	ofl-claude-hook --install --settings settings.json --decision ask >msg &&
	grep "backed up settings.json to settings.json.bak." msg &&
	test_cmp orig.json settings.json.bak.* &&
	jq -e ".model == \"opus\" and .permissions.allow == [\"Bash(git status:*)\"] and
	    .hooks.Stop == [{hooks: [{type: \"command\", command: \"notify-done\"}]}] and
	    (.hooks.PreToolUse | length) == 2 and
	    .hooks.PreToolUse[0].hooks[0].command == \"/usr/local/bin/audit-bash\" and
	    .hooks.PreToolUse[1].hooks[0].command ==
	    \"$OFL_SRCDIR/bin/ofl-claude-hook --decision ask\"" settings.json
'

test_expect_success 'uninstall: ours removed, the rest kept' '
	ofl-claude-hook --uninstall --settings settings.json >msg &&
	grep "removed from settings.json" msg &&
	jq -e ".model == \"opus\" and (.hooks.PreToolUse | length) == 1 and
	    .hooks.PreToolUse[0].hooks[0].command == \"/usr/local/bin/audit-bash\" and
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
