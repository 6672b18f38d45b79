#!/bin/sh
# bench-engines.sh: capture, extract and expiry on both engines of the
# store, SQLite (a directory) and PostgreSQL (a throwaway cluster on a
# Unix socket, as the tests start it, with fsync off: compare it with a
# server of your own for figures that mean more), in one hyperfine run
# each, with zstd -1 on the same input as the reference.
#
#	tests/bench-engines.sh [SIZE_MB [N]]	(defaults 64 and 10000)
#
# Search and expiry: N captures of about 1 kB into a store of each engine
# (in parallel, 4 at a time), a tenth of them with a TTL of 1 s, one with
# a rare word; a search of the whole store for that word, the first
# (one run: it indexes every artifact, then answers from the index, as
# OFL_INDEX_BG=0 has it) and repeated (hyperfine), then a search for a
# word of every artifact (hyperfine: the PostgreSQL engine takes every
# chunk that holds it from the server to rank them); then a dry run of
# gc (hyperfine), the TTL pass that removes that
# tenth, and a size budget that removes about a tenth more (one run
# each: they remove).
#
# Run from a build directory (or set OFL_BUILDDIR), built with libpq.
# Each capture's input starts with a line of its own, so that no
# capture is a duplicate of the one before.
set -u
size_mb=${1:-64}
gc_n=${2:-10000}
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
OFL_BUILDDIR=${OFL_BUILDDIR:-$(pwd)}
export OFL_SRCDIR OFL_BUILDDIR
. "$OFL_SRCDIR/tests/lib.sh"
. "$OFL_SRCDIR/tests/pg-cluster.sh"
for t in hyperfine zstd; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench: $t missing" >&2; exit 2; }
done
if ! pg_cluster_try; then
	echo "bench: $PG_SKIP" >&2
	exit 2
fi
pg_sql "CREATE DATABASE gc" >/dev/null

awk -v mb="$size_mb" 'BEGIN {
	srand(42)
	split("INFO INFO INFO INFO DEBUG WARN ERROR", lv, " ")
	target = mb * 1048576
	while (n < target) {
		l = sprintf("2026-11-30T12:%02d:%02d.%03dZ %s [worker-%d] /api/v1/items/%d status=%d took=%dms req=%08x\n",
		    int(rand()*60), int(rand()*60), int(rand()*1000),
		    lv[1 + int(rand()*7)], int(rand()*16), int(rand()*100000),
		    (rand() < 0.95) ? 200 : 500, int(rand()*2000),
		    int(rand()*4294967295))
		printf "%s", l
		n += length(l)
	}
}' >in.log
sqlite_store=$TEST_DIR/sqlite
# The artifacts the extracts read.
id_s=$(ofl-capture --threshold 0 -s "$sqlite_store" <in.log |
    sed -n '1s/^ofl:\([0-9a-z]*\) .*/\1/p')
id_p=$(ofl-capture --threshold 0 -s "$PG_URL" <in.log |
    sed -n '1s/^ofl:\([0-9a-z]*\) .*/\1/p')

echo "== capture of $size_mb MB, and of 1 kB (the cost of opening the store)"
hyperfine -N --warmup 1 --runs 5 \
    -n "zstd -1" "zstd -1 -q -c in.log -o /dev/null -f" \
    -n sqlite "sh -c '{ date +%s%N; cat in.log; } | ofl-capture --threshold 0 -s $sqlite_store >/dev/null'" \
    -n postgresql "sh -c '{ date +%s%N; cat in.log; } | ofl-capture --threshold 0 -s \"$PG_URL\" >/dev/null'"
hyperfine -N --warmup 2 --runs 20 \
    -n "sqlite 1 kB" "sh -c '{ date +%s%N; head -c 1000 in.log; } | ofl-capture --threshold 0 -s $sqlite_store >/dev/null'" \
    -n "postgresql 1 kB" "sh -c '{ date +%s%N; head -c 1000 in.log; } | ofl-capture --threshold 0 -s \"$PG_URL\" >/dev/null'"
mid=$(($(wc -l <in.log) / 2))
echo "== extract of 100 lines from line $mid"
hyperfine -N --warmup 2 --runs 20 \
    -n sqlite "ofl-extract -s $sqlite_store $id_s -n $mid-$((mid + 99))" \
    -n postgresql "ofl-extract -s $PG_URL $id_p -n $mid-$((mid + 99))"

# gc_store NAME STORE: N small captures, then the three gc figures.
gc_store() {
	name=$1
	st=$2
	ofl-gc -s "$st" --set auto-gc=off
	t0=$(date +%s.%N)
	seq 1 "$gc_n" | xargs -P 4 -n 100 sh -c '
		st=$1
		shift
		for i; do
			ttl=
			[ $((i % 10)) -eq 0 ] && ttl="--ttl 1s"
			w=
			[ "$i" -eq 4321 ] && w=quokkafrost
			{ echo "artifact $i $$ $w"; head -c 1000 "$0"; } |
			    ofl-capture -q -T 0 $ttl -s "$st" >/dev/null ||
			    exit 255
		done' in.log "$st"
	t1=$(date +%s.%N)
	echo "$name: $gc_n captures in $(echo "$t0 $t1" | awk '{ printf "%.1f s, %.0f/s", $2 - $1, '"$gc_n"' / ($2 - $1) }')"
	t0=$(date +%s.%N)
	ofl-search -s "$st" -a quokkafrost >search.out 2>search.err
	t1=$(date +%s.%N)
	echo "$name first search: $(grep -c "^ofl:" search.out) hit(s) in $(echo "$t0 $t1" | awk '{ printf "%.2f s", $2 - $1 }'); $(head -n 1 search.err)"
	hyperfine -N -i --warmup 1 --runs 5 -n "$name search -a" \
	    "ofl-search -s $st -a quokkafrost"
	hyperfine -N -i --warmup 1 --runs 5 -n "$name search -a, common" \
	    "ofl-search -s $st -a artifact"
	sleep 2
	hyperfine -N --warmup 1 --runs 5 -n "$name gc --dry-run" \
	    "ofl-gc -s $st --dry-run --grace 0s"
	t0=$(date +%s.%N)
	ofl-gc -s "$st" >gc.out
	t1=$(date +%s.%N)
	echo "$name TTL pass: $(head -c 40 gc.out | sed 's/ (.*//') in $(echo "$t0 $t1" | awk '{ printf "%.2f s", $2 - $1 }')"
	size=$(ofl-gc -s "$st" --dry-run -j | sed -n 's/.*"size":\([0-9]*\).*/\1/p')
	t0=$(date +%s.%N)
	ofl-gc -s "$st" --grace 0s --max-size $((size * 9 / 10)) >gc.out
	t1=$(date +%s.%N)
	echo "$name budget pass: $(head -c 40 gc.out | sed 's/ (.*//') in $(echo "$t0 $t1" | awk '{ printf "%.2f s", $2 - $1 }')"
}
echo "== expiry with $gc_n artifacts"
gc_store sqlite "$TEST_DIR/sqlite-gc"
gc_store postgresql "$(pg_url ofl gc)"
