#!/bin/sh
# bench-scale.sh: how ofl's costs grow with the number of artifacts.
#
#	tests/bench-scale.sh [N ...]		(default: 1000)
#
# For each N, builds a store of N generated artifacts (tests/bench-scale-
# gen.py: log-normal sizes from 100 B to 2 MB, unique content) with
# parallel captures, and reports, one line each:
#
#	build		captures per second while building it
#	first search	the first whole-store search on the fresh store (s),
#			against rg over the raw files, right after the build
#
# Then, once what each build left running has finished (the background
# indexer, the writing back of the page cache), the rows that should not
# grow with the store, every size side by side ("a | b"), so that they
# see the same machine:
#
#	capture		one 1 KiB capture into the full store (ms), the
#			sizes taking turns
#	list -n 20	the first 20 lines of the listing (ms)
#	meta by ID	one artifact's metadata (ofl-search --meta -j ID) (ms)
#	search one	a search inside one artifact, the same 390 kB CI log
#			at every size (ms)
#	rare / common	a repeated whole-store search for a rare word and for
#			a common one, against rg over the same raw texts
#
# And last, size by size, what removes artifacts:
#
#	bytes/raw	store and index bytes per raw byte, and where they are:
#			content files, ofl.db, the index, directories and logs
#	gc -n		ofl-gc --dry-run over the store (ms)
#	ttl gc old	removing the oldest 10% (backdated) (s, ms per
#			removal, and CPU seconds where /usr/bin/time is found)
#	ttl gc spread	removing every tenth of the rest, spread over the
#			store (the same figures)
#	budget gc	removing about 10% more by size budget (ms per removal)
#
# Timings are hyperfine medians (warm cache) unless said otherwise; a
# search that finds nothing (exit 1) is timed like one that does.
# 1k runs in about two minutes, 10k in about four; 100k needs about 2 GB
# of disk for the raw texts and the store and about 40 minutes, 25 of
# them building it (about 70 captures a second on two cores), so 1M
# needs about four hours for its build alone.  Every size's texts and
# store are kept until its gc rows, so the disk must hold them all at once:
#
#	tests/bench-scale.sh 100 10000 100000
#	BENCH_DIR=/big/disk tests/bench-scale.sh 1000000	(1M: 16 GB raw)
#
# BENCH_KEEP=1 keeps the generated texts and stores in $BENCH_DIR for a
# second look.  Run from a build directory (or set OFL_BUILDDIR).  Needs
# python3, hyperfine, rg and the sqlite3 shell.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${OFL_BUILDDIR:-$(pwd)}
PATH="$build:$top/bin:$PATH"
export PATH
for t in python3 hyperfine rg sqlite3 ofl-capture ofl-search ofl-gc; do
	command -v "$t" >/dev/null 2>&1 ||
	    { echo "bench-scale: $t missing" >&2; exit 2; }
done
[ $# -gt 0 ] || set -- 1000
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/ofl-scale.XXXXXX")
[ -n "${BENCH_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
unset OFL_SESSION OFL_INTENT
jobs=${BENCH_JOBS:-4}

now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.3f", $2 - $1 }'; }
# median N CMD...: hyperfine's median in ms.
median() {
	runs=$1; shift
	hyperfine -N -i -w 1 -r "$runs" --export-json "$work/h.json" "$@" \
	    >/dev/null 2>&1 || { echo "nan"; return; }
	python3 -c 'import json,sys; print("%.1f" % (1000 * json.load(open(sys.argv[1]))["results"][0]["median"]))' "$work/h.json"
}
# The store's bytes: the database and the content, not the reserve file.
# The write-ahead log is checkpointed first: its size (up to 4 MiB kept
# between checkpoints) says when the last checkpoint was, not what is
# stored.
store_bytes() {
	for f in "$OFL_STORE"/ofl.db "$OFL_STORE"/ofl-ix.db; do
		test -f "$f" || continue
		sqlite3 -cmd ".timeout 10000" "$f" \
		    "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
	done
	du -sbc "$OFL_STORE"/ofl*.db* "$OFL_STORE"/blobs | tail -1 | cut -f1
}
# The index's bytes: its own file (ofl-ix.db), or its tables in ofl.db in
# a store made before it had one.
index_bytes() {
	if [ -f "$OFL_STORE/ofl-ix.db" ]; then
		wc -c <"$OFL_STORE/ofl-ix.db"
	else
		sqlite3 "$OFL_STORE/ofl.db" "SELECT coalesce(sum(pgsize), 0)
		    FROM dbstat WHERE name LIKE 'ix_%' OR
		    name LIKE 'sqlite_autoindex_ix_%'"
	fi
}
# parts STORE INDEX RAW: where the store's bytes are, per raw byte: the
# content files, ofl.db, the index, and the rest (the directories of
# blobs/, each a block or more, and the write-ahead logs).
parts() {
	cb=$(find "$OFL_STORE/blobs" -type f -printf '%s\n' |
	    awk '{ n += $1 } END { print n + 0 }')
	mb=$(wc -c <"$OFL_STORE/ofl.db")
	echo "$1 $2 $3 $cb $mb" | awk '{ printf "content %.3f, ofl.db %.3f, index %.3f, directories and logs %.3f", $4 / $3, $5 / $3, $2 / $3, ($1 - $2 - $4 - $5) / $3 }'
}
# The store's size as gc measures it against a budget (the WAL and free
# pages left out): a budget taken from store_bytes may already be met.
gc_bytes() {
	ofl-gc --dry-run --json --older-than 36500d |
	    sed -n 's/.*"size":\([0-9]*\).*/\1/p'
}
row() { printf '%-14s %s\n' "$1" "$2"; }
# cpu CMD...: run CMD, keeping its CPU seconds (user + system) when
# /usr/bin/time can say them: on a loaded machine the wall time of a
# long run says more about the load than about the run.
cpu() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -o "$work/cpu" -f '%U %S' "$@"
	else
		rm -f "$work/cpu"
		"$@"
	fi
}
cpu_said() {
	[ -s "$work/cpu" ] || return 0
	awk '{ printf " (%.2f s CPU)", $1 + $2 }' "$work/cpu"
}

for n in "$@"; do
	raw=$work/raw-$n
	OFL_STORE=$work/store-$n
	export OFL_STORE
	python3 "$top/tests/bench-scale-gen.py" "$n" "$raw"
	rawbytes=$(du -sb "$raw" | cut -f1)
	echo "== $n artifacts, $(echo "$rawbytes" | awk '{ printf "%.1f MB", $1 / 1e6 }') raw"
	# No budget and no automatic gc while it is built: the default
	# budget (1G) would remove the oldest of a store past 1 GB.
	ofl-gc --set auto-gc=off --set max-size=none

	t0=$(now)
	ls "$raw" | sed "s|^|$raw/|" | xargs -P "$jobs" -n 64 sh -c \
	    'for f; do ofl-capture -q <"$f" >/dev/null || exit 255; done' sh
	t1=$(now)
	row build "$(echo "$n $(secs "$t0" "$t1")" |
	    awk '{ printf "%.0f captures/s (%.1f s)", $1 / $2, $2 }'); $(sqlite3 "$OFL_STORE/ofl.db" "SELECT count(*) FROM artifact") artifacts kept"

	# The first whole-store search, right after the build.
	t0=$(now)
	ofl-search -a --no-pager quokkafrost >"$work/first" 2>"$work/first.err" || true
	t1=$(now)
	first=$(secs "$t0" "$t1")
	t0=$(now)
	rg -i quokkafrost "$raw" >/dev/null || true
	t1=$(now)
	row "first search" "$first s (rg cold-ish $(secs "$t0" "$t1") s); $(grep -c '^ofl:' "$work/first" || true) hit(s); $(tr '\n' ' ' <"$work/first.err" | cut -c1-120)"

	# Then what the build left running is let finish (the background
	# indexer, the page cache's writing back), so that the rows below
	# time the commands and not what a build of this size leaves behind.
	# One artifact of the same content at every size: a 390 kB CI log of
	# the repo, captured into the full store and indexed.
	ofl-index -q --pending
	ofl-capture -q <"$top/tests/data/ci/treeherder-taskcluster-timeout.log" |
	    sed 's/^ofl://' >"$work/one-$n"
	ofl-index -q "$(cat "$work/one-$n")"
	ofl-search -q -n 1000000 | sed -n "$((n / 2 + 20))p" >"$work/id-$n"
	sync
done

# The rows that should not grow with the store, side by side: each is
# timed on every size in one go, so that the sizes see the same machine.
unset OFL_STORE
echo "== side by side: $(echo "$@" | sed 's/ / | /g') artifacts"
# each CMD: CMD with N for every size, as hyperfine's medians "a | b".
each() {
	runs=$1 cmd=$2
	set --
	for n in $sizes; do
		set -- "$@" "env OFL_STORE=$work/store-$n $(echo "$cmd" |
		    sed "s|@ONE@|$(cat "$work/one-$n")|; s|@ID@|$(cat "$work/id-$n")|")"
	done
	hyperfine -N -i -w 1 -r "$runs" --export-json "$work/h.json" "$@" \
	    >/dev/null 2>&1 || { echo "nan"; return; }
	python3 -c 'import json,sys; print(" | ".join("%.1f ms" % (1000 * r["median"]) for r in json.load(open(sys.argv[1]))["results"]))' "$work/h.json"
}
sizes="$*"
# Capture: 20 unique 1 KiB inputs per size, the sizes taking turns.
i=0
for n in $sizes; do
	echo 0 >"$work/cap-$n"
done
while [ $i -lt 20 ]; do
	for n in $sizes; do
		head -c 1024 "$work/raw-$n/0000001.txt" |
		    sed "1s/^/cap $i $n $(now) /" >"$work/cap-in"
		t0=$(now)
		OFL_STORE=$work/store-$n ofl-capture -q <"$work/cap-in" >/dev/null
		t1=$(now)
		echo "$(cat "$work/cap-$n") $(secs "$t0" "$t1")" |
		    awk '{ print $1 + $2 }' >"$work/cap-$n.new"
		mv "$work/cap-$n.new" "$work/cap-$n"
	done
	i=$((i + 1))
done
row capture "$(for n in $sizes; do awk '{ printf "%.1f ms\n", $1 * 1000 / 20 }' "$work/cap-$n"; done | paste -sd'|' | sed 's/|/ | /g')"
row "list -n 20" "$(each 30 "ofl-search --no-pager -n 20")"
row "meta by ID" "$(each 30 "ofl-search --meta -j @ID@")"
row "search one" "$(each 30 "ofl-search --no-pager @ONE@ timeout")"
for w in quokkafrost request; do
	line=
	for n in $sizes; do
		o=$(median 5 "env OFL_STORE=$work/store-$n ofl-search -a --no-pager $w")
		r=$(median 5 "rg -i $w $work/raw-$n")
		line="$line${line:+ | }ofl $o ms, rg $r ms, ratio $(echo "$o $r" | awk '{ printf "%.2f", $1 / $2 }')"
	done
	row "all: $w" "$line"
done

# What removes artifacts last, size by size.
for n in $sizes; do
	raw=$work/raw-$n
	OFL_STORE=$work/store-$n
	export OFL_STORE
	rawbytes=$(du -sb "$raw" | cut -f1)
	echo "== $n artifacts: bytes and gc"
	db=$OFL_STORE/ofl.db
	sb=$(store_bytes)
	ib=$(index_bytes)
	row bytes/raw "$(echo "$sb $ib $rawbytes" | awk '{ printf "store %.3f (index %.3f) per raw byte", $1 / $3, $2 / $3 }')"
	row "  of which" "$(parts "$sb" "$ib" "$rawbytes")"

	gb=$(gc_bytes)
	row "gc -n" "$(median 3 "ofl-gc --dry-run --grace 0s --max-size $((gb * 9 / 10))") ms"

	# TTL: the oldest tenth goes (backdated by 30 days), then every
	# tenth of the rest, spread over the whole store.
	for ttl in old spread; do
		if [ $ttl = old ]; then
			where="seq <= (SELECT min(seq) FROM artifact) + $n / 10"
		else
			where="seq % 10 = 5"
		fi
		sqlite3 -cmd ".timeout 10000" "$db" "UPDATE artifact SET created = created - 2592000000, used = used - 2592000000 WHERE $where"
		before=$(sqlite3 "$db" "SELECT count(*) FROM artifact")
		sb=$(store_bytes)
		t0=$(now)
		cpu ofl-gc --older-than 20d >/dev/null
		t1=$(now)
		after=$(sqlite3 "$db" "SELECT count(*) FROM artifact")
		gone=$((before - after))
		row "ttl gc $ttl" "$(echo "$(secs "$t0" "$t1") $gone" | awk '{ printf "%d removed in %.2f s, %.2f ms each", $2, $1, $2 ? $1 * 1000 / $2 : 0 }')$(cpu_said); store $(store_bytes | awk -v s="$sb" '{ printf "%.0f%%", 100 * $1 / s }') of before"
	done

	gb=$(gc_bytes)
	before=$after
	t0=$(now)
	cpu ofl-gc --grace 0s --max-size $((gb * 9 / 10)) >/dev/null
	t1=$(now)
	after=$(sqlite3 "$db" "SELECT count(*) FROM artifact")
	gone=$((before - after))
	row "budget gc" "$(echo "$(secs "$t0" "$t1") $gone" | awk '{ printf "%d removed in %.2f s, %.2f ms each", $2, $1, $2 ? $1 * 1000 / $2 : 0 }')$(cpu_said)"
	[ -n "${BENCH_KEEP:-}" ] || rm -rf "$raw" "$OFL_STORE"
done
[ -z "${BENCH_KEEP:-}" ] || echo "kept: $work"
