#!/bin/sh
# bench-mcp.sh: figures for ofl-mcp with real peers.
#
#	tests/bench-mcp.sh [CALLS]	(latency calls per round, default 2000)
#
# 1. For real tool results (GitHub API JSON, a large log, a long Markdown
#    page, a CI log, a diff) read through the reference filesystem server:
#    the bytes the client receives unwrapped and through ofl-mcp, and
#    whether a follow-up ofl_search or ofl_extract call returns the
#    evidence a person would look for.
# 2. The latency ofl-mcp adds to a small passthrough tools/call (median of
#    five rounds, each the median of CALLS round trips).
#
# Run from a build directory (or set OFL_BUILDDIR).  Needs node, npm and
# jq; the corpus files come from tests/data or ../shared/corpus.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${OFL_BUILDDIR:-$(pwd)}
calls=${1:-2000}
PATH="$build:$top/bin:$PATH"
export PATH
for t in node npm jq ofl-mcp; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench-mcp: $t missing" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/ofl-bench-mcp.XXXXXX")
trap 'rm -rf "$work"' EXIT
OFL_STORE=$work/store
OFL_SRCDIR=$top
DATA=$top/tests/data
CORPUS=$top/../shared/corpus
TEST_DIR=$work
export OFL_STORE OFL_SRCDIR
test_skip_all() { echo "bench-mcp: $1" >&2; exit 2; }
. "$top/tests/mcp/peers.sh"
mcp_peers

# The files, copied where the filesystem server may read them.
mkdir "$work/files"
for f in dependabot-github-commits.json treeherder-taskcluster-timeout.log \
    yt-dlp-README.md gotestsum-v1.10.0..v1.13.0.diff HDFS_2k.log \
    holmesgpt-list_prometheus_rules.txt; do
	p=$(find "$DATA" "$CORPUS" -name "$f" -type f 2>/dev/null | head -n 1)
	if [ -n "$p" ]; then
		cp "$p" "$work/files/"
	else
		echo "bench-mcp: $f not found, left out" >&2
	fi
done

cat >"$work/spec.json" <<'EOF'
[
 {"name": "GitHub API JSON (commit list)",
  "file": "dependabot-github-commits.json",
  "call": {"name": "ofl_extract", "arguments": {"id": "ID",
   "filter": ".[] | select(.commit.author.name == \"Tim Rogers\") | .sha"}},
  "evidence": ["^\"?[0-9a-f]{40}\"?$"]},
 {"name": "Prometheus rules (agent tool JSON)",
  "file": "holmesgpt-list_prometheus_rules.txt",
  "call": {"name": "ofl_search", "arguments": {"ids": ["ID"],
   "query": "KubePodCrashLooping"}},
  "evidence": ["KubePodCrashLooping"]},
 {"name": "Large log (HDFS datanode)",
  "file": "HDFS_2k.log",
  "call": {"name": "ofl_search", "arguments": {"ids": ["ID"],
   "query": "Got exception while serving"}},
  "evidence": ["Got[^a-z]+exception", "blk_"]},
 {"name": "Long Markdown page (yt-dlp README)",
  "file": "yt-dlp-README.md",
  "call": {"name": "ofl_search", "arguments": {"ids": ["ID"],
   "query": "merge output format"}},
  "evidence": ["Video Format Options", "merge[^ ]*-[^ ]*output[^ ]*-[^ ]*format"]},
 {"name": "CI log (Firefox mochitest timeout)",
  "file": "treeherder-taskcluster-timeout.log",
  "call": {"name": "ofl_extract", "arguments": {"id": "ID", "errors": true}},
  "evidence": ["TEST-UNEXPECTED-TIMEOUT", "max run time exceeded"]},
 {"name": "Unified diff (gotestsum v1.10.0..v1.13.0)",
  "file": "gotestsum-v1.10.0..v1.13.0.diff",
  "call": {"name": "ofl_search", "arguments": {"ids": ["ID"],
   "query": "go.mod golang.org/x/sys"}},
  "evidence": ["go\\.mod", "golang.org/x/sys"]}
]
EOF
# Keep the cases whose file is there.
jq --arg d "$work/files" '[.[] | select(.file as $f |
    ($d + "/" + $f) as $p | $p | ltrimstr("") | length > 0)]' \
    "$work/spec.json" >"$work/spec.all"
: >"$work/spec.keep"
jq -c '.[]' "$work/spec.all" | while read -r c; do
	f=$(printf '%s' "$c" | jq -r .file)
	[ -f "$work/files/$f" ] && printf '%s\n' "$c" >>"$work/spec.keep"
done
jq -s . "$work/spec.keep" >"$work/spec.json"

echo "== Tool results through ofl-mcp (read_text_file of the reference filesystem server)"
node "$MCP/bench.mjs" sizes "$(command -v ofl-mcp)" "$FILESYSTEM" \
    "$work/files" "$work/spec.json" >"$work/sizes" || exit 3
printf '%-44s %10s %9s %7s  %s\n' case unwrapped wrapped ratio "follow-up: evidence"
jq -r '[.case, (.unwrapped | tostring), (.wrapped | tostring),
    ((.wrapped / .unwrapped * 1000 | round) / 10 | tostring + "%"),
    (.follow_up + " -> " + (if .found then "found" else "NOT found" end) +
     " (" + (.follow_up_bytes | tostring) + " B)")] | @tsv' "$work/sizes" |
while IFS="$(printf '\t')" read -r c u w r f; do
	printf '%-44s %10s %9s %7s  %s\n' "$c" "$u" "$w" "$r" "$f"
done

echo
echo "== Added latency of a small passthrough tools/call ($calls calls x 5 rounds)"
node "$MCP/bench.mjs" latency "$(command -v ofl-mcp)" "$MCP/hostile.mjs" \
    "$calls" | jq -r '"unwrapped median \(.direct_median_ms) ms, through ofl-mcp \(.wrapped_median_ms) ms: added \(.added_ms) ms"'
