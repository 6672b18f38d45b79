#!/bin/sh
#
# bench-templates.sh: the log template miner (src/lib/fmt-log-tmpl.c).
#
# 1. Grouping Accuracy (GA) on every loghub sample found: for each
#    *_structured.csv in $OFL_CORPUS (default ../shared/corpus/logs beside
#    the source tree), the miner reads the log (never told which one) and
#    a line counts as right when the set of lines of its template is
#    exactly the set of lines of its true template (EventId).  With
#    OFL_BRAIN set to a directory of Brain's published parse results
#    (the Parseresult/NAMEresult.csv files of github.com/gaiusyu/Brain),
#    Brain's GA on the same file, by the same scorer, is printed beside
#    ofl's: the tuned reference the templates issue measures against.
#    Logs this project was not developed on: the other loghub samples
#    (Android, HPC, Hadoop, HealthApp, Mac, Proxifier, Thunderbird,
#    Windows: the *_2k.log* files of github.com/logpai/loghub) put in a
#    directory of their own and named by OFL_CORPUS.
#    Then the same messages behind the headers of other loggers
#    (tests/bench-headers.py): a miner never told the format should
#    score the same with any of them.
# 2. Speed: the samples concatenated and repeated to 1 GiB (in a
#    temporary directory), mined in one pass, against wc -l.
# 3. Capture: ofl-capture of that file against tee, then what mining
#    adds (ofl-schema on the captured log, mined cold).
#
# The loghub files are read where they are, never copied into the repo.
# Skipped with a message when they are absent.  The miner is driven by
# tests/unit/tmpl-ids (built by make, not installed).
#
# usage: tests/bench-templates.sh [MiB]    (run from the build directory)

set -e
MIB=${1:-1024}
BUILD=${OFL_BUILDDIR:-$(pwd)}
SRC=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
CORPUS=${OFL_CORPUS:-$SRC/../shared/corpus/logs}
TMPL=$BUILD/tests/unit/tmpl-ids
PATH="$BUILD:$PATH"
export LC_ALL=C

if [ ! -d "$CORPUS" ] || ! ls "$CORPUS"/*_structured.csv >/dev/null 2>&1
then
	echo "bench-templates: no loghub samples in $CORPUS; skipped"
	exit 0
fi
if [ ! -x "$TMPL" ]; then
	echo "bench-templates: $TMPL is not built (make)" >&2
	exit 1
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ofl-bench-tmpl.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OFL_STORE=$WORK/store
export OFL_STORE

# The column before the last of a CSV line (quoted fields, "" in them):
# a loghub structured CSV's EventId, a Brain result's EventTemplate.
CSVCOL='
	function col(s,    n, i, c, q, f, nf, fl) {
		nf = 0; f = ""; q = 0; n = length(s)
		for (i = 1; i <= n; i++) {
			c = substr(s, i, 1)
			if (q) {
				if (c == "\"") {
					if (substr(s, i + 1, 1) == "\"") {
						f = f c; i++
					} else
						q = 0
				} else
					f = f c
			} else if (c == "\"")
				q = 1
			else if (c == ",") {
				fl[++nf] = f; f = ""
			} else
				f = f c
		}
		fl[++nf] = f
		return fl[nf - 1]
	}
'

# ga PRED CSV: the Grouping Accuracy of one predicted ID per line against
# the EventId column (the one before last) of a loghub structured CSV.
ga() {
	awk "$CSVCOL"'
	FNR == NR { pred[FNR] = $0; np = FNR; next }
	FNR == 1 { next }
	{ sub(/\r$/, ""); truth[FNR - 1] = col($0); nt = FNR - 1 }
	END {
		if (np != nt) {
			printf "lines differ: %d predicted, %d true\n", np, nt
			exit 1
		}
		for (i = 1; i <= nt; i++) {
			pc[pred[i]]++; tc[truth[i]]++
			pt[pred[i] SUBSEP truth[i]]++
		}
		for (k in pt) {
			split(k, a, SUBSEP)
			if (pt[k] == pc[a[1]] && pt[k] == tc[a[2]])
				ok += pt[k]
		}
		printf "%.4f\n", ok / nt
	}' "$1" "$2"
}

# mean FILE WHO: the mean and lowest of the GA figures in FILE.
mean() {
	awk -v who="$2" '{ s += $1; if (NR == 1 || $1 < m) m = $1 }
	    END { printf "%-14s %7s %10.4f (%slowest %.4f, %d logs)\n",
	    "mean", "", s / NR, who, m, NR }' "$1"
}

echo "== Grouping Accuracy (one configuration, never told the log)"
printf '%-14s %7s %10s %10s\n' DATASET LINES GA "${OFL_BRAIN:+BRAIN}" |
    sed 's/ *$//'
: >"$WORK/ga"
: >"$WORK/bga"
for csv in "$CORPUS"/*_structured.csv; do
	log=${csv%_structured.csv}
	[ -f "$log" ] || continue
	name=$(basename "$log" .log)
	"$TMPL" "$log" >"$WORK/pred"
	g=$(ga "$WORK/pred" "$csv")
	b=
	res=${OFL_BRAIN:-/nonexistent}/${name%_2k}result.csv
	if [ -f "$res" ]; then
		awk "$CSVCOL"'NR > 1 { sub(/\r$/, ""); print col($0) }' \
		    "$res" >"$WORK/bpred"
		b=$(ga "$WORK/bpred" "$csv")
		echo "$b" >>"$WORK/bga"
	fi
	printf '%-14s %7d %10s %10s\n' "$name" "$(wc -l <"$log")" "$g" "$b" |
	    sed 's/ *$//'
	echo "$g" >>"$WORK/ga"
	cat "$log" >>"$WORK/one.log"
done
mean "$WORK/ga" ""
[ ! -s "$WORK/bga" ] || mean "$WORK/bga" "Brain; "

echo "== the same messages behind other headers (GA; bare: the messages alone)"
if command -v python3 >/dev/null 2>&1; then
	python3 "$SRC/tests/bench-headers.py" "$TMPL" "$CORPUS"/*_structured.csv
else
	echo "python3 missing; skipped"
fi

echo "== speed: the samples repeated to $MIB MiB"
want=$((MIB * 1024 * 1024))
one=$(wc -c <"$WORK/one.log")
n=$(( (want + one - 1) / one ))
i=0
while [ $i -lt "$n" ]; do
	cat "$WORK/one.log"
	i=$((i + 1))
done >"$WORK/big.log"
bytes=$(wc -c <"$WORK/big.log")
echo "$bytes bytes"
# cpu CMD...: "LINES WALL CPU" of a command (GNU time: user + sys).
cpu() {
	/usr/bin/time -f "%e %U %S" -o "$WORK/t" "$@" >"$WORK/o" 2>&1
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$WORK/t"
}
set -- $(cpu wc -l "$WORK/big.log")
lines=$(awk '{ print $1 }' "$WORK/o")
echo "wc -l:     $lines lines, $1 s wall, $2 s CPU"
set -- $(cpu "$TMPL" -c "$WORK/big.log")
echo "miner:     $(cat "$WORK/o"), $1 s wall, $2 s CPU"
awk -v l="$lines" -v c="$2" -v b="$bytes" 'BEGIN {
    printf "miner:     %.0f lines/s per core, %.0f MB/s\n", l / c,
    b / c / 1e6 }'

echo "== capture: ofl-capture against tee, and mining on top"
set -- $(cpu sh -c 'tee "$1" >/dev/null <"$2"' sh "$WORK/tee.out" \
    "$WORK/big.log")
rm -f "$WORK/tee.out"
tee_w=$1
tee_c=$2
echo "tee:         $1 s wall, $2 s CPU"
set -- $(cpu ofl-capture -q <"$WORK/big.log")
cap_w=$1
cap_c=$2
echo "ofl-capture: $1 s wall, $2 s CPU ($(awk -v a="$cap_w" -v b="$tee_w" \
    -v c="$cap_c" -v d="$tee_c" \
    'BEGIN { printf "%.2fx tee wall, %.2fx CPU", a / b, c / d }'))"
set -- $(cpu ofl-schema -m 0 @)
echo "mining (ofl-schema, cold): $1 s wall, $2 s CPU;" \
    "$(sed -n 1p "$WORK/o")"
awk -v m="$2" -v c="$cap_c" 'BEGIN { printf "mining costs %.0f%% of the" \
    " CPU time of the capture when run after it (ofl-index, ofl-schema,\n" \
    "or the notice of a log of at most 4 MiB); capture itself does not" \
    " mine\n", 100 * m / c }'
