#!/bin/sh
#
# bench-extract.sh: time ofl-extract against the tools it stands in for.
#
#   jq FILTER FILE            vs  ofl-extract ID FILTER       (200 MiB JSON)
#   grep -n error FILE        vs  ofl-extract ID --errors     (1 GiB log)
#   grep -c -i error FILE     vs  ofl-extract ID --errors     (the same)
#   sed -n A,Bp FILE          vs  ofl-extract ID -n A-B       (near the end)
#
# The inputs are generated in a temporary directory (about 1.3 GiB, plus
# the store).  Uses hyperfine when it is installed, else one timed run.
# Environment: OFL_BENCH_LOG_MB and OFL_BENCH_JSON_MB (sizes, default
# 1024 and 200; a JSON size of 0 leaves the jq rows out),
# OFL_BENCH_DIR (where to work, default $TMPDIR).  The log is not a
# test run: --errors must not pay for the test runners' rules on it
# (OFL_BENCH_LOG_MB=64 OFL_BENCH_JSON_MB=0 is a quick check of that).
# Run from the build directory or with the ofl binaries on PATH.

set -eu
LC_ALL=C
export LC_ALL

log_mb=${OFL_BENCH_LOG_MB:-1024}
json_mb=${OFL_BENCH_JSON_MB:-200}
here=$(pwd)
PATH="$here:$PATH"
export PATH

for t in ofl-capture ofl-extract jq python3; do
	command -v "$t" >/dev/null 2>&1 || {
		echo "bench-extract: $t not found" >&2
		exit 2
	}
done

dir=$(mktemp -d "${OFL_BENCH_DIR:-${TMPDIR:-/tmp}}/ofl-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
OFL_STORE="$dir/store"
export OFL_STORE
cd "$dir"

echo "generating ${json_mb} MiB of JSON and a ${log_mb} MiB log in $dir"
python3 - "$json_mb" "$log_mb" <<'EOF'
import random, sys
json_mb, log_mb = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(42)
phases = ["Running"] * 8 + ["Pending", "Failed"]

# A kubectl-like list of pods.
with open("big.json", "w") as f:
    f.write('{"apiVersion":"v1","items":[\n')
    size, i = 0, 0
    while size < json_mb << 20:
        item = ('%s{"metadata":{"name":"pod-%d-%x","namespace":"ns-%d",'
            '"labels":{"app":"app-%d","tier":"t%d"},"uid":"%032x"},'
            '"spec":{"containers":[{"name":"c%d","image":"registry/'
            'img:%d.%d","resources":{"limits":{"cpu":"%dm"}}}]},'
            '"status":{"phase":"%s","restartCount":%d,"podIP":'
            '"10.%d.%d.%d","message":"%s"}}\n' % (
            "," if i else "", i, rnd.getrandbits(24), i % 37, i % 101,
            i % 3, rnd.getrandbits(128), i % 5, i % 9, i % 17,
            rnd.randrange(50, 4000), rnd.choice(phases),
            rnd.randrange(0, 9), i % 256, (i >> 8) % 256, i % 251,
            "x" * rnd.randrange(0, 120)))
        f.write(item)
        size += len(item)
        i += 1
    f.write('],"kind":"List"}\n')

# A CI log with failures scattered through it.
blocks = [
    "Traceback (most recent call last):\n"
    '  File "/src/app/worker.py", line %d, in run\n'
    "    result = job.execute()\n"
    '  File "/src/app/job.py", line 88, in execute\n'
    "    raise ValueError(\"bad input %d\")\n"
    "ValueError: bad input %d\n",
    "--- FAIL: TestParse%d (0.00s)\n"
    "    parse_test.go:%d: got 3, want %d\n",
    "src/lib/store.c:%d:9: error: 'rc%d' undeclared (first use in this "
    "function)\n  %d |   return rc;\n      |          ^~\n",
    "panic: runtime error: index out of range [%d] with length %d\n\n"
    "goroutine 1 [running]:\nmain.main()\n\t/src/main.go:%d +0x1d\n"
    "exit status 2\n",
]
words = ("the quick brown fox jumps over lazy dogs while processing "
         "request handler cache worker queue shard replica").split()
with open("big.log", "w") as f:
    size, n = 0, 0
    buf = []
    while size < log_mb << 20:
        n += 1
        if rnd.random() < 0.00002:
            b = rnd.choice(blocks)
            k = b.count("%d")
            line = b % tuple(rnd.randrange(1, 999) for _ in range(k))
        else:
            line = "2024-05-%02d %02d:%02d:%02d.%03d INFO [w%d] %s\n" % (
                n % 28 + 1, n // 3600 % 24, n // 60 % 60, n % 60, n % 1000,
                n % 16, " ".join(rnd.choice(words) for _ in range(12)))
        buf.append(line)
        size += len(line)
        if len(buf) >= 10000:
            f.write("".join(buf))
            buf = []
    f.write("".join(buf))
EOF

if [ "$json_mb" -gt 0 ]; then
	ofl-capture <big.json >/dev/null
	json=$(ofl-extract @ --json -n 1 | sed 's/^{"id":"\([^"]*\)".*/\1/')
fi
ofl-capture <big.log >/dev/null
log=$(ofl-extract @ --json -n 1 | sed 's/^{"id":"\([^"]*\)".*/\1/')
lines=$(wc -l <big.log)
a=$((lines - 60))
b=$((lines - 1))
filter='.items[] | select(.status.phase != "Running") | .metadata.name'

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

# bench NAME BASELINE-CMD OFL-CMD: mean seconds of each and the ratio.
bench() {
	name=$1
	if command -v hyperfine >/dev/null 2>&1; then
		hyperfine -N --warmup 1 --runs "${OFL_BENCH_RUNS:-3}" \
		    --export-json "$dir/h.json" "$2" "$3" >"$dir/h.out" 2>&1 || {
			cat "$dir/h.out" >&2
			echo "$name: hyperfine failed" >&2
			return 1
		}
		base=$(python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))["results"]
print(r[0]["mean"], r[1]["mean"])' "$dir/h.json")
		t0=${base% *}
		t1=${base#* }
	else
		s=$(date +%s.%N); sh -c "$2" >/dev/null; e=$(date +%s.%N)
		t0=$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')
		s=$(date +%s.%N); sh -c "$3" >/dev/null; e=$(date +%s.%N)
		t1=$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')
	fi
	printf '%-34s %9.3f s %9.3f s   ratio %s\n' "$name" "$t0" "$t1" \
	    "$(ratio "$t1" "$t0")"
}

# Each command goes in a script of its own, so no quoting goes wrong.
n=0
script() {
	n=$((n + 1))
	printf '%s\n' "$1" >"$dir/cmd$n.sh"
	echo "sh $dir/cmd$n.sh"
}
q=$(printf '%s' "$filter" | sed "s/'/'\\\\''/g")

printf '%-34s %11s %11s\n' "" "baseline" "ofl-extract"
if [ "$json_mb" -gt 0 ]; then
	bench "jq filter, ${json_mb} MiB JSON" \
	    "$(script "jq '$q' big.json >/dev/null")" \
	    "$(script "ofl-extract $json --max-bytes 0 '$q' >/dev/null")"
	bench "jq filter, default budget" \
	    "$(script "jq '$q' big.json >/dev/null")" \
	    "$(script "ofl-extract $json '$q' >/dev/null")"
fi
bench "errors, ${log_mb} MiB log (grep -n error)" \
    "$(script "grep -n error big.log >/dev/null")" \
    "$(script "ofl-extract $log --errors >/dev/null")"
bench "errors (grep -c -i error)" \
    "$(script "grep -c -i error big.log >/dev/null")" \
    "$(script "ofl-extract $log --errors >/dev/null")"
bench "lines near the end, ${log_mb} MiB log" \
    "$(script "tail -n 61 big.log | head -n 60 >/dev/null")" \
    "$(script "ofl-extract $log -n $a-$b >/dev/null")"
bench "whole content, ${log_mb} MiB log (cat)" \
    "$(script "cat big.log >/dev/null")" \
    "$(script "ofl-extract $log >/dev/null")"
