#!/bin/sh
# run.sh: build the libFuzzer harnesses with clang and run each one.
#
# Called by `make fuzz`; every setting comes from the environment:
#   FUZZ_CC        clang (14 or later)
#   FUZZ_SECONDS   seconds per target (20)
#   FUZZ_TARGETS   targets to run (all)
#   FUZZ_JOBS      parallel fuzzing processes per target (1)
#   FUZZ_FLAGS     more libFuzzer flags (e.g. -max_len=65536)
#   FUZZ_NO_SANITIZE  UBSan checks to leave out, e.g. nonnull-attribute
#                  (to fuzz past a known finding)
#   srcdir builddir CPPFLAGS LIBS LIBSRC (set by make)
#
# The library sources are compiled again with clang and the fuzzer's
# instrumentation (not libofl.a, which gcc built).  Each target's corpus
# lives in $builddir/fuzz/corpus/TARGET and starts from
# tests/data/fuzz/TARGET; crashes land in $builddir/fuzz/crashes/TARGET.
# Exit status 1 if any target crashed.
set -u

: "${FUZZ_CC:=clang}"
: "${FUZZ_SECONDS:=20}"
: "${FUZZ_JOBS:=1}"
: "${FUZZ_FLAGS:=}"
: "${FUZZ_NO_SANITIZE:=}"
: "${srcdir:=.}"
: "${builddir:=.}"
: "${CPPFLAGS:=}"
: "${LIBS:=-lsqlite3 -larchive -lzstd -ljq -lm}"
ALL_TARGETS="kind chunk archive query ref schema redact"
: "${FUZZ_TARGETS:=$ALL_TARGETS}"

out=$(cd "$builddir" && pwd)/fuzz
srcdir=$(cd "$srcdir" && pwd)
obj=$out/obj
mkdir -p "$obj" || exit 2

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
[ -n "$FUZZ_NO_SANITIZE" ] && san="$san -fno-sanitize=$FUZZ_NO_SANITIZE"
cflags="-g -O1 -fno-omit-frame-pointer $san -I$builddir -I$srcdir/src/lib \
-I$srcdir/src/compat -I$srcdir/tests/fuzz $CPPFLAGS"

# Other flags than last time: compile everything again.
if [ "$(cat "$obj/flags" 2>/dev/null)" != "$FUZZ_CC $cflags" ]; then
	rm -f "$obj"/*.o
	echo "$FUZZ_CC $cflags" >"$obj/flags"
fi

# Whether $obj/NAME.o (2) is older than FILE.c (1) or the headers.
stale() {
	[ ! -f "$2" ] || [ "$1" -nt "$2" ] ||
	    [ "$builddir/config.h" -nt "$2" ] ||
	    [ "$srcdir/src/lib/ofl.h" -nt "$2" ]
}

# Compile FILE.c to $obj/NAME.o unless it is up to date.
cc_one() {
	src=$1 o=$2 extra=$3
	if stale "$src" "$o"; then
		echo "  CC (fuzz) $src"
		# shellcheck disable=SC2086
		$FUZZ_CC $cflags $extra -c "$src" -o "$o" || exit 2
	fi
}

# The library's sources, one compiler a processor at a time: most of
# a short run's time is this.
libobjs=
: >"$obj/todo"
for f in $LIBSRC; do
	case $f in
	*.c) ;;
	*) continue ;;
	esac
	base=$(basename "$f" .c)
	if stale "$srcdir/$f" "$obj/lib-$base.o"; then
		echo "$srcdir/$f $obj/lib-$base.o" >>"$obj/todo"
	fi
	libobjs="$libobjs $obj/lib-$base.o"
done
FUZZ_CFLAGS="$cflags -fsanitize=fuzzer-no-link"
export FUZZ_CC FUZZ_CFLAGS
# shellcheck disable=SC2016
xargs -r -n 2 -P "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)" \
    sh -c 'echo "  CC (fuzz) $0"; exec $FUZZ_CC $FUZZ_CFLAGS -c "$0" -o "$1"' \
    <"$obj/todo" || exit 2
rm -f "$obj/todo"
cc_one "$srcdir/tests/fuzz/common.c" "$obj/common.o" \
    "-fsanitize=fuzzer-no-link"

status=0
: >"$out/summary.txt"
for t in $FUZZ_TARGETS; do
	cc_one "$srcdir/tests/fuzz/fuzz-$t.c" "$obj/fuzz-$t.o" \
	    "-fsanitize=fuzzer-no-link"
	echo "  LD (fuzz) $out/fuzz-$t"
	# shellcheck disable=SC2086
	$FUZZ_CC $san -fsanitize=fuzzer "$obj/fuzz-$t.o" "$obj/common.o" \
	    $libobjs $LIBS -o "$out/fuzz-$t" || exit 2
done
# fuzz_one TARGET: replay the target's regression inputs, then fuzz it
# for FUZZ_SECONDS.  What it says goes to $out/run-TARGET.out, its line
# of the summary to $out/run-TARGET.sum; its exit status is 1 if it
# found something.  Each target makes its temporary stores in a
# directory of its own (a crash leaves one), so that two can run at once.
fuzz_one() {
	t=$1
	TMPDIR=$out/tmp/$t
	export TMPDIR
	status=0
	rm -rf "$TMPDIR"
	mkdir -p "$TMPDIR"
	corpus=$out/corpus/$t
	crashes=$out/crashes/$t
	mkdir -p "$corpus" "$crashes"
	seeds=$srcdir/tests/data/fuzz/$t
	log=$out/fuzz-$t.log
	jobs=
	if [ "$FUZZ_JOBS" -gt 1 ]; then
		jobs="-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS"
	fi
	# Replay the regression inputs first, each on its own.
	open=0
	fixed=
	for f in "$seeds"/*; do
		[ -f "$f" ] || continue
		name=$(basename "$f")
		if (cd "$out" && "$out/fuzz-$t" -runs=1 "$f") \
		    >"$out/replay-$t.log" 2>&1; then
			case $name in
			open-*) fixed="$fixed $name" ;;
			esac
			continue
		fi
		case $name in
		open-*)
			open=$((open + 1))
			;;
		*)
			status=1
			echo "  fuzz-$t: regression: $name fails again:"
			grep -m 5 -E 'ERROR|runtime error|fuzz-[a-z]+:' \
			    "$out/replay-$t.log" | sed 's/^/    /'
			;;
		esac
	done
	[ "$open" -gt 0 ] && echo "  fuzz-$t: $open open-* inputs still fail"
	[ -n "$fixed" ] && echo "  fuzz-$t: open bugs that pass now:$fixed"
	# The seeds: every input but the open bugs (they would stop the run).
	rm -rf "$out/seeds/$t"
	mkdir -p "$out/seeds/$t"
	for f in "$seeds"/*; do
		case $(basename "$f") in
		open-*) ;;
		*) [ -f "$f" ] && cp "$f" "$out/seeds/$t/" ;;
		esac
	done
	echo "fuzz-$t: $FUZZ_SECONDS s"
	# The harness changes directory: every path given is absolute.
	# shellcheck disable=SC2086
	(cd "$out" && ASAN_OPTIONS=detect_leaks=1 \
	    UBSAN_OPTIONS=print_stacktrace=1 \
	    "$out/fuzz-$t" -max_total_time="$FUZZ_SECONDS" -timeout=30 \
	    -rss_limit_mb=4096 -print_final_stats=1 $jobs \
	    -artifact_prefix="$crashes/" $FUZZ_FLAGS \
	    "$corpus" "$out/seeds/$t") >"$log" 2>&1
	rc=$?
	if [ -n "$jobs" ]; then
		cat "$out"/fuzz-[0-9]*.log >>"$log" 2>/dev/null
		rm -f "$out"/fuzz-[0-9]*.log
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" |
	    awk '{ n += $1 } END { print n + 0 }')
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	found=$(find "$crashes" -type f | wc -l | tr -d ' ')
	line="fuzz-$t: $execs executions, ${cov:-cov: ?}, $found crash files"
	echo "  $line"
	echo "$line" >"$out/run-$t.sum"
	if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then
		status=1
		grep -m 5 -E 'ERROR|runtime error|fuzz-[a-z]+:' "$log" |
		    sed 's/^/    /'
		echo "    log: $log; inputs: $crashes"
		echo "    add each input to tests/data/fuzz/$t/ (open-NAME" \
		    "while the bug is open)"
	fi
	rm -rf "$TMPDIR"
	return $status
}

# The targets, as many at a time as there are processors (one when each
# target runs parallel jobs of its own), each one's report in turn.
# Each runs in a process group of its own (set -m), which an interrupt,
# a hangup or a TERM of this script ends with it: a signal to the script
# alone (a supervisor's TERM, the hangup of its terminal) left the
# fuzzers running for the rest of their time.
pids=
stop() {
	for p in $pids; do
		kill -TERM -- "-$p" 2>/dev/null
	done
	exit "$1"
}
trap 'stop 130' INT
trap 'stop 129' HUP
trap 'stop 143' TERM
set -m
par=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
[ "$FUZZ_JOBS" -gt 1 ] && par=1
# shellcheck disable=SC2086
set -- $FUZZ_TARGETS
while [ $# -gt 0 ]; do
	batch= n=0
	while [ $# -gt 0 ] && [ $n -lt "$par" ]; do
		batch="$batch $1"
		n=$((n + 1))
		shift
	done
	pids=
	for t in $batch; do
		(fuzz_one "$t" >"$out/run-$t.out" 2>&1; echo $? >"$out/run-$t.rc") &
		pids="$pids $!"
	done
	wait
	pids=
	for t in $batch; do
		cat "$out/run-$t.out"
		[ "$(cat "$out/run-$t.rc")" = 0 ] || status=1
		cat "$out/run-$t.sum" >>"$out/summary.txt" 2>/dev/null
		rm -f "$out/run-$t.out" "$out/run-$t.rc" "$out/run-$t.sum"
	done
done
rm -rf "$out/tmp"
echo "summary:"
sed 's/^/  /' "$out/summary.txt"
exit $status
