# peers.sh: the real MCP peers of the ofl-mcp tests, sourced after lib.sh.
#
# mcp_peers sets MCP to a directory of the test's own that holds the test
# scripts (client.mjs, hostile.mjs, ...) next to node_modules with the
# pinned packages of package-lock.json (see tests/npm.sh).  Without node
# and npm, or when npm ci fails, the whole script is skipped with a
# message.

. "$OFL_SRCDIR/tests/npm.sh"

mcp_peers() {
	MCPSRC=$OFL_SRCDIR/tests/mcp
	if ! mods=$(npm_modules "$MCPSRC" 2>"$TEST_DIR/npm.err"); then
		sed 's/^/# /' "$TEST_DIR/npm.err" >&2
		test_skip_all "cannot install the MCP peers: $(head -n 1 "$TEST_DIR/npm.err")"
	fi
	MCP=$TEST_DIR/mcp-peers
	mkdir -p "$MCP" &&
	cp "$MCPSRC"/*.mjs "$MCP/" &&
	ln -sfn "$mods" "$MCP/node_modules" ||
	    test_skip_all "cannot set up the MCP peers in $MCP"
	EVERYTHING=$MCP/node_modules/@modelcontextprotocol/server-everything/dist/index.js
	FILESYSTEM=$MCP/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
	export MCP EVERYTHING FILESYSTEM
}

# mcp_client [client options] -- SERVER ARGS: the SDK client; ops on stdin.
mcp_client() {
	timeout 300 node "$MCP/client.mjs" "$@"
}
