#!/bin/sh
# load.sh: writers, readers and gc at once on one store.
#
# WRITERS processes capture in a loop (sizes from 100 B to over 2 MiB, so
# that content crosses the 1 MiB frames; half the captures repeat content
# that is stored already, half are unique), READERS processes search,
# index and extract what was stored, and `ofl-gc -v --max-size GC_MAX`
# runs every second or two with a budget far below what is written, so it
# removes artifacts while they are being read.  Afterwards:
#   - every artifact a writer was told was stored (it printed ofl:ID) and
#     that no gc reported removing reads back byte-identical (sha256);
#   - every extract that succeeded during the load was byte-identical;
#   - a reader that found an artifact gone found one that gc removed;
#   - no command failed, and none said "locked" or "busy";
#   - ofl-gc --check finds nothing wrong.
# Each writer and reader has a home of its own, as if on a machine of its
# own.  On the PostgreSQL engine (OFL_TEST_ENGINE=postgresql) the store
# is one database for all of them.
#
# Settings (environment): LOAD_SECONDS (default STRESS_SECONDS or 120),
# WRITERS (8), READERS (4), GC_MAX (20M), LOAD_BIG (1: include 2 MiB
# inputs).  tests/t5100-load.sh runs it briefly in make check.
: "${OFL_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$OFL_SRCDIR/tests/lib.sh"
. "$OFL_SRCDIR/tests/stress/proof.lib"

: "${LOAD_SECONDS:=${STRESS_SECONDS:-120}}"
: "${WRITERS:=8}"
: "${READERS:=4}"
: "${GC_MAX:=20M}"
: "${LOAD_BIG:=1}"

W=$TEST_DIR/load
mkdir -p "$W/pool"

# The pool of inputs: several kinds and sizes.
make_pool() {
	p=$W/pool
	printf 'small text, error: nothing\n' >"$p/00-small.txt"
	i=0
	while [ $i -lt 200 ]; do
		echo "2024-01-01 12:00:$((i % 60)) INFO request $i served in ${i}ms"
		[ $((i % 17)) -eq 0 ] && echo "2024-01-01 12:00:00 ERROR code $i"
		i=$((i + 1))
	done >"$p/01-log.log"
	{
		printf '{"items":['
		i=0
		while [ $i -lt 600 ]; do
			printf '{"name":"pod-%d","phase":"Running","n":%d},' $i $i
			i=$((i + 1))
		done
		printf '{"name":"last"}],"kind":"List"}\n'
	} >"$p/02-pods.json"
	{
		i=0
		while [ $i -lt 300 ]; do
			printf '## Section %d\n\nSome text about topic %d.\n\n' \
			    $i $i
			i=$((i + 1))
		done
	} >"$p/03-doc.md"
	head -c 90000 /dev/urandom | base64 >"$p/04-b64.txt"
	head -c 900000 /dev/urandom | base64 >"$p/05-1M2.txt"
	if [ "$LOAD_BIG" = 1 ]; then
		head -c 1700000 /dev/urandom | base64 >"$p/06-2M3.txt"
		head -c 1500000 /dev/urandom >"$p/07-bin"
	fi
	ls "$p" >"$W/pool.list"
}

# writer N: capture until the stop file appears.
writer() {
	n=$1
	k=0
	HOME=$W/home.w$n
	mkdir -p "$HOME"
	npool=$(wc -l <"$W/pool.list")
	while [ ! -f "$W/stop" ]; do
		k=$((k + 1))
		f=$W/pool/$(sed -n "$(((n + k) % npool + 1))p" "$W/pool.list")
		in=$f
		if [ $((k % 2)) -eq 0 ]; then
			in=$W/in.$n
			{ echo "writer $n capture $k"; cat "$f"; } >"$in"
		fi
		sum=$(sha256sum <"$in" | cut -c1-64)
		t0=$(date +%s%N)
		if [ $((k % 3)) -eq 0 ]; then
			out=$(ofl-capture -q -T 0 -l "w$n" -- cat "$in" \
			    2>>"$W/err.w$n")
		else
			out=$(ofl-capture -q -T 0 -l "w$n" <"$in" \
			    2>>"$W/err.w$n")
		fi
		rc=$?
		echo $((($(date +%s%N) - t0) / 1000000)) >>"$W/ms.w$n"
		case $rc:$out in
		0:ofl:*)
			echo "${out#ofl:} $sum $(wc -c <"$in")" >>"$W/stored.w$n"
			;;
		*)
			echo "writer $n capture $k: exit $rc: $out:" \
			    "$(tail -n 1 "$W/err.w$n")" >>"$W/fail.w$n"
			;;
		esac
	done
	echo $k >"$W/ops.w$n"
}

# reader N: search, index and extract stored artifacts until stopped.
reader() {
	n=$1
	k=0
	HOME=$W/home.r$n
	mkdir -p "$HOME"
	while [ ! -f "$W/stop" ]; do
		k=$((k + 1))
		cat "$W"/stored.w* >"$W/all.r$n" 2>/dev/null
		lines=$(wc -l <"$W/all.r$n")
		if [ "$lines" -eq 0 ]; then
			sleep 0.1
			continue
		fi
		set -- $(sed -n "$(((k * 7919 + n * 31) % lines + 1))p" \
		    "$W/all.r$n")
		id=$1 sum=$2
		op=$((k % 5))
		case $op in
		0)
			ofl-extract "$id" >"$W/x.r$n" 2>"$W/e.r$n"
			rc=$?
			if [ $rc -eq 0 ]; then
				got=$(sha256sum <"$W/x.r$n" | cut -c1-64)
				if [ "$got" = "$sum" ]; then
					echo "$id" >>"$W/same.r$n"
				else
					echo "reader $n: ofl:$id read back" \
					    "different bytes" >>"$W/fail.r$n"
				fi
			fi
			;;
		1)
			ofl-search "$id" 'writer capture' >/dev/null \
			    2>"$W/e.r$n"
			rc=$?
			;;
		2)
			ofl-search -a 'error' >/dev/null 2>"$W/e.r$n"
			rc=$?
			# The whole store: nothing to be gone.
			if [ $rc -eq 3 ] &&
			    grep -q "unknown artifact" "$W/e.r$n"; then
				echo "reader $n: ofl-search -a: exit 3:" \
				    "$(head -n 1 "$W/e.r$n")" >>"$W/known.r$n"
				rc=0
			fi
			[ $rc -eq 3 ] && rc=4
			;;
		3)
			ofl-index -q "$id" 2>"$W/e.r$n"
			rc=$?
			;;
		*)
			ofl-extract -n 1-3 "$id" >/dev/null 2>"$W/e.r$n"
			rc=$?
			;;
		esac
		cat "$W/e.r$n" >>"$W/err.r$n"
		case $rc in
		0 | 1) ;;
		3) echo "$id $(head -n 1 "$W/e.r$n")" >>"$W/gone.r$n" ;;
		*)
			echo "reader $n op $op ofl:$id: exit $rc:" \
			    "$(head -n 1 "$W/e.r$n")" >>"$W/fail.r$n"
			;;
		esac
	done
	echo $k >"$W/ops.r$n"
}

# gc_loop: a gc every second or two with a tiny budget, a check now and
# then.
gc_loop() {
	k=0
	while [ ! -f "$W/stop" ]; do
		k=$((k + 1))
		sleep $((k % 2 + 1))
		t0=$(date +%s%N)
		ofl-gc -v --max-size "$GC_MAX" --grace 0 >>"$W/gc.out" \
		    2>>"$W/err.gc"
		rc=$?
		echo $((($(date +%s%N) - t0) / 1000000)) >>"$W/ms.gc"
		# 1: the budget is not met yet (the index not merged yet).
		[ $rc -le 1 ] ||
		    echo "gc $k: exit $rc: $(tail -n 1 "$W/err.gc")" \
		    >>"$W/fail.gc"
		if [ $((k % 4)) -eq 0 ]; then
			ofl-gc --check --wait >"$W/check.$k" 2>>"$W/err.gc"
			rc=$?
			if [ $rc -ne 0 ]; then
				echo "gc --check $k under load: exit $rc:" \
				    "$(head -n 3 "$W/check.$k" | tr '\n' ' ')" \
				    >>"$W/check-fail.gc"
			fi
		fi
	done
	echo $k >"$W/ops.gc"
}

test_expect_success 'setup: pool of inputs, auto-gc off' '
	make_pool &&
	test "$(wc -l <"$W/pool.list")" -ge 6 &&
	ofl-gc --set auto-gc=off
'

test_expect_success "load: $WRITERS writers, $READERS readers, gc every 1-2 s for $LOAD_SECONDS s" '
	i=1
	while [ $i -le $WRITERS ]; do
		writer $i &
		i=$((i + 1))
	done
	i=1
	while [ $i -le $READERS ]; do
		reader $i &
		i=$((i + 1))
	done
	gc_loop &
	sleep "$LOAD_SECONDS"
	touch "$W/stop"
	wait
	test -s "$W/gc.out" || echo "gc removed nothing" >>"$W/fail.gc"
	cat "$W"/stored.w* >"$W/stored" &&
	test -s "$W/stored"
'

test_expect_success 'no command failed during the load' '
	cat "$W"/fail.* >"$W/failures" 2>/dev/null
	head -n 20 "$W/failures" >&2
	test ! -s "$W/failures"
'

test_expect_success 'a search of the whole store never fails while gc removes' '
	cat "$W"/known.* >"$W/known" 2>/dev/null
	head -n 5 "$W/known" >&2
	test ! -s "$W/known"
'

test_expect_success 'no command said the database was locked or busy' '
	cat "$W"/err.* >"$W/stderr" 2>/dev/null
	! grep -i -E "locked|busy" "$W/stderr"
'

test_expect_success 'every stored artifact gc did not remove reads back identical' '
	sed -n "s/^removed	ofl:\([0-9a-z]*\)	.*/\1/p" "$W/gc.out" |
	    sort -u >"$W/removed" &&
	: >"$W/lost" &&
	: >"$W/verified" &&
	while read -r id sum size; do
		if grep -qx "$id" "$W/removed"; then
			continue
		fi
		got=$(ofl-extract "$id" 2>>"$W/lost" | sha256sum | cut -c1-64)
		if [ "$got" = "$sum" ]; then
			echo "$id" >>"$W/verified"
		else
			echo "LOST ofl:$id ($size bytes)" >>"$W/lost"
		fi
	done <"$W/stored" &&
	cat "$W/lost" >&2 &&
	test ! -s "$W/lost"
'

test_expect_success 'a reader found gone only what gc removed' '
	cat "$W"/gone.r* >"$W/gone" 2>/dev/null
	: >"$W/bad-gone"
	while read -r id msg; do
		grep -qx "$id" "$W/removed" ||
		    echo "ofl:$id: $msg" >>"$W/bad-gone"
	done <"$W/gone"
	cat "$W/bad-gone" >&2
	test ! -s "$W/bad-gone"
'

test_expect_success 'ofl-gc --check ran clean during the load' '
	cat "$W/check-fail.gc" >&2 2>/dev/null
	test ! -s "$W/check-fail.gc"
'

test_expect_success 'ofl-gc --check is clean afterwards' '
	ofl-gc --check >"$W/check" &&
	grep " 0 problems" "$W/check" || { cat "$W/check" >&2; false; }
'

# The counts, for the report.
sum_ops() {
	cat "$@" 2>/dev/null | awk '{ n += $1 } END { print n + 0 }'
}
captures=$(sum_ops "$W"/ops.w*)
reads=$(sum_ops "$W"/ops.r*)
gcs=$(sum_ops "$W/ops.gc")
stored=$(wc -l <"$W/stored" 2>/dev/null | tr -d ' ')
bytes=$(awk '{ n += $3 } END { printf "%.1f", n / 1048576 }' "$W/stored" \
    2>/dev/null)
removed=$(wc -l <"$W/removed" 2>/dev/null | tr -d ' ')
verified=$(wc -l <"$W/verified" 2>/dev/null | tr -d ' ')
gone=$(wc -l <"$W/gone" 2>/dev/null | tr -d ' ')
lost=$(grep -c LOST "$W/lost" 2>/dev/null)
same=$(cat "$W"/same.r* 2>/dev/null | wc -l | tr -d ' ')
known=$(cat "$W/known" 2>/dev/null | wc -l | tr -d ' ')
test_have_prereq STOREDIR && ls -l "$OFL_STORE" | awk '/ofl.db/ { printf "# store: %s %d kB\n", $9, $5 / 1024 }'
maxcap=$(sort -n "$W"/ms.w* 2>/dev/null | tail -n 1)
maxgc=$(sort -n "$W/ms.gc" 2>/dev/null | tail -n 1)
echo "# load: longest capture ${maxcap:-?} ms, longest gc ${maxgc:-?} ms"
echo "# load: $LOAD_SECONDS s; $captures captures ($stored stored, $bytes MiB)," \
    "$reads reads, $gcs gc runs removing $removed artifacts;" \
    "$verified verified identical at the end, $same extracts identical" \
    "during the load, $gone reads found a removed one, ${known:-0} whole-store" \
    "searches failed, ${lost:-0} lost"
test_done
