# peers.sh: the real MCP peers of the ofl-mcp tests, sourced after lib.sh.
#
# mcp_peers sets MCP to a directory that holds the test scripts (client.mjs,
# hostile.mjs, ...) next to node_modules with the pinned packages of
# package-lock.json: tests/mcp itself when "npm ci --prefix tests/mcp" ran
# there, else a cache under $TMPDIR keyed by the lock file's hash, filled
# with npm ci on first use.  Without node and npm, or when npm ci fails,
# the whole script is skipped with a message.

mcp_peers() {
	MCPSRC=$OFL_SRCDIR/tests/mcp
	if ! command -v node >/dev/null 2>&1 ||
	    ! command -v npm >/dev/null 2>&1; then
		test_skip_all "node and npm are needed for the real MCP peers"
	fi
	if [ -f "$MCPSRC/node_modules/@modelcontextprotocol/sdk/package.json" ] &&
	    [ -f "$MCPSRC/node_modules/@modelcontextprotocol/server-everything/package.json" ]; then
		MCP=$MCPSRC
	else
		sum=$(cksum <"$MCPSRC/package-lock.json" | tr ' ' '-')
		MCP=${TMPDIR:-/tmp}/ofl-mcp-peers-$(id -u)-$sum
		# One installer at a time; the others wait for it.
		n=0
		until mkdir "$MCP.lock" 2>/dev/null; do
			n=$((n + 1))
			if [ $n -gt 600 ]; then
				test_skip_all "timed out waiting for $MCP.lock"
			fi
			sleep 1
		done
		if [ ! -f "$MCP/.installed" ]; then
			rm -rf "$MCP"
			mkdir -p "$MCP" &&
			cp "$MCPSRC/package.json" "$MCPSRC/package-lock.json" \
			    "$MCP/" &&
			npm ci --prefix "$MCP" --no-audit --no-fund \
			    >"$MCP.log" 2>&1 &&
			touch "$MCP/.installed"
		fi
		rmdir "$MCP.lock"
		if [ ! -f "$MCP/.installed" ]; then
			echo "# npm ci failed:" >&2
			sed 's/^/# /' "$MCP.log" | tail -n 5 >&2
			test_skip_all "cannot install the MCP peers with npm ci (see $MCP.log)"
		fi
		for f in "$MCPSRC"/*.mjs; do
			cp "$f" "$MCP/.${f##*/}.$$" &&
			mv -f "$MCP/.${f##*/}.$$" "$MCP/${f##*/}"
		done
	fi
	EVERYTHING=$MCP/node_modules/@modelcontextprotocol/server-everything/dist/index.js
	FILESYSTEM=$MCP/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
	export MCP EVERYTHING FILESYSTEM
}

# mcp_client [client options] -- SERVER ARGS: the SDK client; ops on stdin.
mcp_client() {
	timeout 300 node "$MCP/client.mjs" "$@"
}
