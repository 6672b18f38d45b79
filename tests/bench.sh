#!/bin/sh
# bench.sh: the capture benchmarks, as ratios against the tools a user
# would otherwise use, in one run.  Needs hyperfine, GNU time and
# sqlite3.
#
#	tests/bench.sh [SIZE_MB]	(default 1024)
#
# Run from a build directory (or set OFL_BUILDDIR).  Generated inputs go
# to $BENCH_DIR (default: a temporary directory), removed at the end.
set -eu
size_mb=${1:-1024}
top=$(cd "$(dirname "$0")/.." && pwd)
build=${OFL_BUILDDIR:-$(pwd)}
PATH="$build:$top/bin:$PATH"
export PATH
for t in hyperfine /usr/bin/time sqlite3 ofl-capture ofl-extract; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench: $t missing" >&2; exit 2; }
done
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/ofl-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
OFL_STORE=$work/store
# No background index: it would still be writing into the store that
# the next run removes, and take a core from the runs after it.
OFL_INDEX_BG=0
export OFL_STORE OFL_INDEX_BG

# A log with timestamps, levels, ids and numbers: realistic entropy.
gen_log() {
	awk -v mb="$1" 'BEGIN {
		srand(42)
		split("INFO INFO INFO INFO DEBUG WARN ERROR", lv, " ")
		split("GET POST PUT DELETE", m, " ")
		target = mb * 1048576
		while (n < target) {
			l = sprintf("2026-11-30T12:%02d:%02d.%03dZ %s [worker-%d] %s /api/v1/items/%d status=%d took=%dms req=%08x\n",
			    int(rand()*60), int(rand()*60), int(rand()*1000),
			    lv[1 + int(rand()*7)], int(rand()*16),
			    m[1 + int(rand()*4)], int(rand()*100000),
			    (rand() < 0.95) ? 200 : 500, int(rand()*2000),
			    int(rand()*4294967295))
			printf "%s", l
			n += length(l)
		}
	}'
}

echo "== generating a ${size_mb} MiB log"
gen_log "$size_mb" >"$work/big.log"
raw=$(wc -c <"$work/big.log")

echo "== 1. capture a ${size_mb} MiB log: ofl-capture vs tee"
hyperfine -w 1 -r 5 -N --export-json "$work/cap.json" \
    -p "rm -rf $work/store $work/tee.out" \
    -n ofl-capture "sh -c 'ofl-capture -q <$work/big.log >/dev/null'" \
    -n tee "sh -c 'tee $work/tee.out <$work/big.log >/dev/null'" 2>&1 |
    grep -E 'Benchmark|Time|±|faster' || true
# tee's time swings with the kernel's page cache: give the ratio to its
# median and to its best run.
awk -F: '/"median"/ { gsub(/[ ,]/, "", $2); med[n++] = $2 }
    /"min"/ { gsub(/[ ,]/, "", $2); min[m++] = $2 }
    END { if (n == 2) printf "medians %.3f s and %.3f s: %.2fx tee'"'"'s median," \
	" %.2fx its best run (%.3f s)\n", med[0], med[1], med[0] / med[1],
	med[0] / min[1], min[1] }' "$work/cap.json"
rm -rf "$work/store" "$work/tee.out"
/usr/bin/time -f '%M' -o "$work/rss" ofl-capture -q <"$work/big.log" >"$work/ref"
# The reserve, room kept free for gc on a full disk, is not stored data.
stored=$(du -sb --exclude=reserve "$work/store" | cut -f1)
echo "peak RSS of ofl-capture: $(cat "$work/rss") KiB"
echo "raw $raw bytes, store $stored bytes, ratio $(awk -v a="$stored" -v b="$raw" 'BEGIN{printf "%.3f", a/b}')"

echo "== 2. per-command cost: ofl-capture -- echo (1 KiB) vs echo"
kib=$(awk 'BEGIN{for(i=0;i<1023;i++)printf "x"}')
hyperfine -w 20 -r 300 -N \
    -n "ofl-capture -- echo" "ofl-capture -- echo $kib" \
    -n echo "echo $kib" 2>&1 | grep -E 'Benchmark|Time|±|faster' || true

echo "== 3. a line range near the end of the ${size_mb} MiB artifact"
id=$(sed -n 's/^ofl:\([0-9a-z]*\).*/\1/p' "$work/ref")
lines=$(ofl-search -j 2>/dev/null | grep "\"id\":\"$id\"" |
    sed -n 's/.*"lines":\([0-9]*\).*/\1/p')
[ -n "$lines" ] || lines=$(wc -l <"$work/big.log")
a=$((lines - 100))
hyperfine -w 3 -r 30 -N \
    "ofl-extract $id -n $a-$((a + 20))" \
    "tail -n 101 $work/big.log" 2>&1 | grep -E 'Benchmark|Time|±|faster' || true

echo "== 4. the first line passed through while another process holds the write lock"
# Another process holds the store's write lock for 2 s; a command prints
# a line, then another a second later.  Both tee and ofl-capture pass
# the first line on at once: ofl-capture records its artifact at its
# first commit, when the lock is free.
ms() {
	date +%s%N | cut -c1-13
}
first_line() {
	t0=$(ms)
	{ echo first; sleep 1; echo second; } | "$@" |
	    { head -n 1 >/dev/null; echo $(($(ms) - t0)); cat >/dev/null; }
}
{ echo "BEGIN IMMEDIATE;"; sleep 2; echo "COMMIT;"; } |
    sqlite3 "$OFL_STORE/ofl.db" &
sleep 0.3
echo "ofl-capture: $(first_line ofl-capture) ms to its first line"
wait
echo "tee: $(first_line tee /dev/null) ms to its first line"

echo "== 5. a command's output past its first megabytes, while another process holds the write lock"
# A command writes 3 MB and pauses a second and a half; half a second
# in, another process takes the lock for 3 s, so the capture's quiet
# moment (a commit of what it holds, after a second) meets the lock; then
# the command writes 1 MB more: the time that last megabyte takes to be
# written, through ofl-capture and through tee.  A capture that waited
# for its commits would stop reading, and the command with it.
head -c 4194304 "$work/big.log" >"$work/mb4"
head -c 3145728 "$work/mb4" >"$work/mb3"
tail -c +3145729 "$work/mb4" >"$work/mb1"
last_mb() {
	{ cat "$work/mb3"; sleep 1.5; t0=$(ms); cat "$work/mb1"
	  echo $(($(ms) - t0)) >"$work/last.ms"; } | "$@" >/dev/null
	cat "$work/last.ms"
}
{ sleep 0.5; echo "BEGIN IMMEDIATE;"; sleep 3; echo "COMMIT;"; } |
    sqlite3 "$OFL_STORE/ofl.db" &
echo "ofl-capture: $(last_mb ofl-capture -q) ms to write the last megabyte"
wait
echo "tee: $(last_mb tee /dev/null) ms to write the last megabyte"
