#!/bin/sh
#
# bench-records.sh: jq filters over a table's records, against awk on
# the table and against jq on the same records as NDJSON.
#
#   awk '$4 != "Running"' FILE      vs  ofl-extract ID 'select(.STATUS != "Running") | .NAME'
#   jq 'select(...)' FILE.ndjson    vs  the same
#   awk '$5 > 5' FILE               vs  ofl-extract ID 'select(.RESTARTS > 5) | .NAME'
#
# The table is a kubectl get pods -A of OFL_BENCH_ROWS rows (default
# 30000) from tests/gen-table.sh; the NDJSON is what ofl-extract -c '.'
# gives of it, so jq reads the same objects.  Uses hyperfine when it is
# installed, else one timed run.  Run from the build directory or with
# the ofl binaries on PATH.

set -eu
LC_ALL=C
export LC_ALL
rows=${OFL_BENCH_ROWS:-30000}
src=$(cd "$(dirname "$0")/.." && pwd)
PATH="$(pwd):$PATH"
export PATH
for t in ofl-capture ofl-extract jq awk; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "bench-records: $t not found" >&2
		exit 2
	}
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/ofl-bench-records.XXXXXX")
trap 'rm -rf "$dir"' EXIT
OFL_STORE=$dir/store
OFL_INDEX_BG=0
export OFL_STORE OFL_INDEX_BG
cd "$dir"
"$src/tests/gen-table.sh" pods "$rows" 5 >pods.txt
id=$(ofl-capture -q -T 0 <pods.txt | sed 's/^ofl://')
ofl-extract -m 0 -c "$id" . >pods.ndjson
# The same answers first: a benchmark of wrong answers says nothing.
a=$(awk 'NR > 1 && $4 != "Running" { print $2 }' pods.txt | cksum)
o=$(ofl-extract -m 0 -r "$id" 'select(.STATUS != "Running") | .NAME' | cksum)
j=$(jq -r 'select(.STATUS != "Running") | .NAME' pods.ndjson | cksum)
[ "$a" = "$o" ] && [ "$a" = "$j" ] || {
	echo "bench-records: the answers differ" >&2
	exit 1
}
echo "$rows rows, $(wc -c <pods.txt) bytes; load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
run() {
	if command -v hyperfine >/dev/null 2>&1; then
		hyperfine -N -w 1 -r 10 "$@"
	else
		for c in "$@"; do
			echo "$c"
			time sh -c "$c" >/dev/null
		done
	fi
}
run "awk 'NR > 1 && \$4 != \"Running\" { print \$2 }' pods.txt" \
    "ofl-extract -m 0 -r $id 'select(.STATUS != \"Running\") | .NAME'" \
    "jq -r 'select(.STATUS != \"Running\") | .NAME' pods.ndjson"
run "awk 'NR > 1 && \$5 + 0 > 5 { print \$2 }' pods.txt" \
    "ofl-extract -m 0 -r $id 'select(.RESTARTS > 5) | .NAME'" \
    "jq -r 'select(.RESTARTS > 5) | .NAME' pods.ndjson"
