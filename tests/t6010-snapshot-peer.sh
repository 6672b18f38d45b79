#!/bin/sh
# t6010: browser snapshots from the real peer: Playwright MCP (npm
# @playwright/mcp) driving Debian's Chromium, wrapped by ofl-mcp and
# driven by the MCP SDK client.  A page served on 127.0.0.1 is
# snapshotted (stored as kind snapshot, its notice a map), an element is
# found with ofl_search, its ref clicked, the page snapshotted again, and
# the two snapshots compared.  Skipped where Chromium is absent.
. "$(dirname "$0")/lib.sh"
. "$OFL_SRCDIR/tests/mcp/peers.sh"

CHROMIUM=${OFL_CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || test_skip_all "no Chromium at $CHROMIUM"
command -v python3 >/dev/null 2>&1 || test_skip_all "python3 is needed"
mcp_peers
PW=$MCP/node_modules/@playwright/mcp/cli.js
[ -f "$PW" ] || test_skip_all "@playwright/mcp is not installed"
DRIVER=$OFL_BUILDDIR/tests/unit/test-snapshot
[ -x "$DRIVER" ] || test_skip_all "tests/unit/test-snapshot is not built"

# The pages, on a port of loopback the system picks.
mkdir www
cp "$DATA/snapshot/pages/tracker.html" www/
python3 -u -m http.server --bind 127.0.0.1 --directory www 0 \
    >http.log 2>&1 &
HTTP=$!
trap 'kill $HTTP 2>/dev/null; test_cleanup' EXIT
n=0
until PORT=$(sed -n 's/.* port \([0-9][0-9]*\).*/\1/p' http.log) &&
    [ -n "$PORT" ]; do
	n=$((n + 1))
	[ $n -gt 100 ] && test_skip_all "the HTTP server did not start"
	sleep 0.1
done

browse() {
	timeout 300 node "$MCP/browse.mjs" "$@" -- ofl-mcp -T 100 -- \
	    node "$PW" --headless --isolated --no-sandbox \
	    --executable-path "$CHROMIUM" --output-dir "$TEST_DIR/pw"
}

test_expect_success 'navigate, snapshot, search, click, snapshot' '
	browse "http://127.0.0.1:$PORT/tracker.html" Filters \
	    "generic \"Filters\" \\[ref=([a-z0-9]+)\\]" >steps 2>err &&
	grep "\"step\":\"done\"" steps >done
'

test_expect_success 'the snapshot is stored as kind snapshot with a map' '
	sed -n 2p steps >snap1 &&
	grep "ofl:[0-9a-z]* snapshot " snap1 &&
	grep "page: Build tracker - runs <http://127.0.0.1:$PORT/tracker.html>" snap1 &&
	grep "search \\[ref=e[0-9]*\\]: searchbox \\\\\"Search runs\\\\\" \\[ref=e[0-9]*\\], button \\\\\"Go\\\\\" \\[ref=e[0-9]*\\]" snap1 &&
	grep "form \\\\\"Sign in\\\\\" \\[ref=e[0-9]*\\]: textbox \\\\\"User name\\\\\" \\[ref=e[0-9]*\\], textbox \\\\\"Password\\\\\"" snap1
'

test_expect_success 'ofl_search shows the element with its ref' '
	sed -n 3p steps >hits &&
	ref=$(sed "s/.*\"ref\":\"\([a-z0-9]*\)\".*/\1/" done) &&
	grep "generic \\\\\"Filters\\\\\" \\[ref=$ref\\]" hits
'

test_expect_success 'the change after the click is the filter form' '
	old=$(sed "s/.*\"old\":\"\([a-z0-9]*\)\".*/\1/" done) &&
	new=$(sed "s/.*\"new\":\"\([a-z0-9]*\)\".*/\1/" done) &&
	"$DRIVER" "$OFL_STORE" "$old" "$new" >report &&
	cat report &&
	head -n 1 report | grep "^changes: [1-9][0-9]* regions\\{0,1\\} added" &&
	grep "^+ lines [0-9]*-[0-9]* ([0-9]* elements): - form \"Filter runs\" \\[ref=e[0-9]*\\]:$" report &&
	test $(wc -c <report) -le 1024
'

test_done
