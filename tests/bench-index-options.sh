#!/bin/sh
# bench-index-options.sh: the search index's bytes per raw byte with the
# FTS5 options ofl could choose, on a store of generated artifacts.
#
#	tests/bench-index-options.sh [N]	(default: 1000 artifacts)
#
# Builds a store of N generated artifacts as tests/bench-scale.sh does
# (tests/bench-scale-gen.py: log-normal sizes, unique content), indexes
# it, and reports its content and its index per raw byte; then the index
# rebuilt from its own terms and positions (tests/unit/ix-options, which
# reads FTS5's instances back) with each of detail=full, column and
# none, with and without columnsize=0, and with the rowids as the store
# has them (artifact << 24 | chunk) or dense.  The rebuild with the
# store's own options (detail=none, artifact << 24) is the check: it
# should weigh what the index weighs.  The index keeps no places of words
# nor columns now, so the other rebuilds put every word in the body at
# one place and weigh less than an index that kept them; an index built
# by ofl before the index kept no places (0.636 of raw with places on
# 1,000 artifacts, README) reads them back whole.  Run from a build directory (or set
# OFL_BUILDDIR); needs python3 and the sqlite3 shell.  1,000 artifacts
# take about a minute.
set -eu
n=${1:-1000}
top=$(cd "$(dirname "$0")/.." && pwd)
build=${OFL_BUILDDIR:-$(pwd)}
PATH="$build:$top/bin:$PATH"
export PATH
for t in python3 sqlite3 ofl-capture ofl-index "$build/tests/unit/ix-options"
do
	command -v "$t" >/dev/null 2>&1 ||
	    { echo "bench-index-options: $t missing (make first)" >&2; exit 2; }
done
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/ofl-ixopt.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset OFL_SESSION OFL_INTENT
OFL_STORE=$work/store
OFL_INDEX_BG=0
export OFL_STORE OFL_INDEX_BG

python3 "$top/tests/bench-scale-gen.py" "$n" "$work/raw"
raw=$(du -sb "$work/raw" | cut -f1)
ofl-gc --set auto-gc=off --set max-size=none
ls "$work/raw" | sed "s|^|$work/raw/|" | xargs -P 4 -n 64 sh -c \
    'for f; do ofl-capture -q <"$f" >/dev/null || exit 255; done' sh
ofl-index -q --pending
for f in "$OFL_STORE"/ofl.db "$OFL_STORE"/ofl-ix.db; do
	sqlite3 -cmd ".timeout 10000" "$f" "PRAGMA wal_checkpoint(TRUNCATE)" \
	    >/dev/null
done
per() { echo "$1 $raw" | awk '{ printf "%.3f", $1 / $2 }'; }
echo "== $n artifacts, $(echo "$raw" | awk '{ printf "%.1f MB", $1 / 1e6 }') raw"
echo "content (blobs)      $(per "$(du -sb "$OFL_STORE/blobs" | cut -f1)")"
echo "metadata (ofl.db)    $(per "$(wc -c <"$OFL_STORE/ofl.db")")"
echo "index (ofl-ix.db)    $(per "$(wc -c <"$OFL_STORE/ofl-ix.db")")"
fts=$(sqlite3 "$OFL_STORE/ofl-ix.db" "SELECT coalesce(sum(pgsize), 0) FROM
    dbstat WHERE name LIKE 'ix_fts%'")
echo "  its FTS5 tables    $(per "$fts")"
echo "  their rebuilds:"
"$build/tests/unit/ix-options" "$OFL_STORE/ofl-ix.db" "$work/scratch.db" |
while IFS='	' read -r opts rowids bytes; do
	printf '    %-30s %-13s %s\n' "$opts" "$rowids" "$(per "$bytes")"
done
