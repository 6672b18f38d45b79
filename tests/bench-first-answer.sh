#!/bin/sh
# bench-first-answer.sh: the time to the first answer about a log just
# captured, against rg on the raw file, side by side in one run.
#
#	tests/bench-first-answer.sh [SIZE_MB]	(default 200)
#
# Generates a log of SIZE_MB MiB whose last line holds a rare word,
# captures it (background indexing on, as by default), and at once
# searches the artifact for that word: the index answers for what it has
# and the rest of the compressed text is scanned.  Then rg on the raw
# file.  Reported: capture time, ofl-search time, rg time, the ratio, and
# the line ofl-search said on stderr.  Run from a build directory (or set
# OFL_BUILDDIR).  Needs python3 and rg.
set -eu
size_mb=${1:-200}
top=$(cd "$(dirname "$0")/.." && pwd)
build=${OFL_BUILDDIR:-$(pwd)}
PATH="$build:$top/bin:$PATH"
export PATH
for t in python3 rg ofl-capture ofl-search; do
	command -v "$t" >/dev/null 2>&1 ||
	    { echo "bench-first-answer: $t missing" >&2; exit 2; }
done
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/ofl-first.XXXXXX")
trap 'rm -rf "$work"' EXIT
OFL_STORE=$work/store
export OFL_STORE
unset OFL_SESSION OFL_INTENT OFL_INDEX_BG

python3 - "$size_mb" "$work/big.log" <<'PY'
import random, sys
size = int(sys.argv[1]) * 1024 * 1024
r = random.Random(11)
w = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "zeta"]
with open(sys.argv[2], "w") as f:
    got = i = 0
    while got < size:
        line = "2026-11-01 12:%02d:%02d INFO worker-%d request %s %s id=%d\n" % (
            i // 60 % 60, i % 60, i % 17, r.choice(w), r.choice(w), i)
        f.write(line)
        got += len(line)
        i += 1
    f.write("2026-11-01 13:00:00 ERROR the final zebrafault happened\n")
PY
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.3f", $2 - $1 }'; }

rg zebrafault "$work/big.log" >/dev/null	# the file in the page cache
t0=$(now)
id=$(ofl-capture -q <"$work/big.log" | sed 's/^ofl://')
t1=$(now)
ofl-search --no-pager "$id" zebrafault >"$work/out" 2>"$work/err" || true
t2=$(now)
rg zebrafault "$work/big.log" >"$work/rg"
t3=$(now)
o=$(secs "$t1" "$t2")
r=$(secs "$t2" "$t3")
echo "log          $size_mb MiB"
echo "capture      $(secs "$t0" "$t1") s"
echo "first search $o s  ($(grep -c zebrafault "$work/out") line(s) with the word)"
echo "rg           $r s"
echo "ratio        $(echo "$o $r" | awk '{ printf "%.2f", $1 / $2 }')"
echo "said         $(cat "$work/err")"
