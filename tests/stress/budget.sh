#!/bin/sh
# budget.sh: the size budget under load, with faults.
#
# Rounds of ROUND seconds: WRITERS processes capture (logs whose index is
# larger than their content, and random text), SEARCHERS processes search
# and index them, and budget gcs run back to back with a budget far below
# what is written and a short grace period; now and then a gc is killed
# (SIGKILL) or stopped and continued (SIGSTOP, SIGCONT) at a random
# moment.  After every round, with the gcs stopped, every artifact whose
# capture started within the last GRACE seconds must read back
# byte-identical (sha256), and no capture or search may have failed.
# At the end ofl-gc --check finds nothing wrong, and after one more gc
# not even index rows a killed gc left.
#
# Settings (environment): BUDGET_SECONDS (default STRESS_SECONDS or 120),
# ROUND (6), GRACE (3), WRITERS (4), SEARCHERS (2), GC_MAX (1M).
# tests/t5190-budget-load.sh runs it briefly in make check.
: "${OFL_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$OFL_SRCDIR/tests/lib.sh"
. "$OFL_SRCDIR/tests/stress/proof.lib"

: "${BUDGET_SECONDS:=${STRESS_SECONDS:-120}}"
: "${ROUND:=6}"
: "${GRACE:=3}"
: "${WRITERS:=4}"
: "${SEARCHERS:=2}"
: "${GC_MAX:=1M}"

W=$TEST_DIR/budget
mkdir -p "$W"

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# writer N R: capture until the round's stop file appears.
writer() {
	n=$1 r=$2 k=0
	while [ ! -f "$W/wstop.$r" ]; do
		k=$((k + 1))
		in=$W/in.$n
		if [ $((k % 2)) -eq 0 ]; then
			awk -v n=$((k % 7 * 1500 + 500)) -v s="$n.$r.$k" 'BEGIN {
			    for (i = 0; i < n; i++) printf "%s line %d w%s_%d\n",
			    s, i, s, i }' >"$in"
		else
			head -c $((k % 5 * 40000 + 1000)) /dev/urandom |
			    base64 >"$in"
		fi
		sum=$(sha "$in")
		t0=$(now_ms)
		out=$(ofl-capture -q -T 0 <"$in" 2>>"$W/err.w$n")
		rc=$?
		case $rc:$out in
		0:ofl:*) echo "$t0 ${out#ofl:} $sum" >>"$W/stored" ;;
		*) echo "round $r writer $n: exit $rc: $out" >>"$W/fail" ;;
		esac
	done
}

# searcher N R: search and index what was stored.
searcher() {
	n=$1 r=$2 k=0
	while [ ! -f "$W/stop.$r" ]; do
		k=$((k + 1))
		id=$(tail -n $((k % 5 + 1)) "$W/stored" 2>/dev/null |
		    head -n 1 | cut -d' ' -f2)
		if [ -z "$id" ]; then
			sleep 0.1
			continue
		fi
		case $((k % 3)) in
		0) ofl-search -a "line 7" >/dev/null 2>"$W/e.s$n" ;;
		1) ofl-search "$id" "line 3" >/dev/null 2>"$W/e.s$n" ;;
		*) ofl-index -q "$id" 2>"$W/e.s$n" ;;
		esac
		rc=$?
		# 3 with an artifact removed by the budget meanwhile is fine.
		if [ $rc -ge 2 ] && ! { [ $rc -eq 3 ] &&
		    grep -q "unknown artifact" "$W/e.s$n"; }; then
			echo "round $r searcher $n op $((k % 3)) ofl:$id: exit" \
			    "$rc: $(head -n 1 "$W/e.s$n")" >>"$W/fail"
		fi
	done
}

# gcs R: budget gcs back to back; some are killed or stopped.
gcs() {
	r=$1 k=0
	while [ ! -f "$W/stop.$r" ]; do
		k=$((k + 1))
		ofl-gc -v --wait --max-size "$GC_MAX" --grace "${GRACE}s" \
		    >>"$W/gc.out" 2>>"$W/err.gc" &
		pid=$!
		case $((k % 4)) in
		1)
			random_sleep 400
			kill -9 $pid 2>/dev/null
			;;
		2)
			random_sleep 300
			kill -STOP $pid 2>/dev/null
			random_sleep 1500
			kill -CONT $pid 2>/dev/null
			;;
		esac
		wait $pid
		rc=$?
		# No gc of this round ran later than this.
		now_ms >"$W/gcend.$r"
		# 1: not met (what is left is young); 137: killed here.
		case $rc in
		0 | 1 | 137) ;;
		*) echo "round $r gc $k: exit $rc" >>"$W/fail" ;;
		esac
	done
}

# check R: with nothing running, every artifact whose capture started
# within the grace period reads back byte-identical.
check_round() {
	r=$1
	# Young to every gc of the round: begun within the grace period
	# before the last gc ended (no gc's clock was later than that).
	last=$(cat "$W/gcend.$r" 2>/dev/null || now_ms)
	since=$((last - GRACE * 1000))
	n=0
	while read -r t0 id sum; do
		[ "$t0" -ge "$since" ] || continue
		n=$((n + 1))
		got=$(ofl-extract "$id" 2>>"$W/err.x" | sha256sum | cut -c1-64)
		if [ "$got" != "$sum" ]; then
			echo "round $r: LOST ofl:$id (capture began" \
			    "$((($(now_ms) - t0) / 1000)) s ago)" >>"$W/lost"
		fi
	done <"$W/stored"
	echo "$n" >>"$W/checked"
}

test_expect_success 'setup: auto-gc off' '
	ofl-gc --set auto-gc=off && : >"$W/stored" && : >"$W/checked"
'

test_expect_success "$BUDGET_SECONDS s of rounds: captures, searches, budget gcs (killed, stopped)" '
	end=$(($(date +%s) + BUDGET_SECONDS))
	r=0
	# Two rounds at least: in the first, on a slow machine (under the
	# sanitizers, with other tests), no artifact may be past its grace
	# period while a gc runs; in the second those of the first are.
	while [ "$(date +%s)" -lt "$end" ] || [ "$r" -lt 2 ]; do
		r=$((r + 1))
		i=1
		while [ $i -le $WRITERS ]; do
			writer $i $r &
			i=$((i + 1))
		done
		i=1
		while [ $i -le $SEARCHERS ]; do
			searcher $i $r &
			i=$((i + 1))
		done
		gcs $r &
		gcpid=$!
		sleep "$ROUND"
		# The gcs stop first, the writers after them: so there are
		# captures as young as the last gc, for check_round.
		touch "$W/stop.$r"
		wait $gcpid
		touch "$W/wstop.$r"
		wait
		check_round $r
	done
	echo "$r" >"$W/rounds" &&
	test "$r" -ge 1
'

test_expect_success 'no capture, search or gc failed' '
	test ! -s "$W/fail" || { head -n 20 "$W/fail" >&2; false; }
'

test_expect_success 'after every round, every artifact of the grace period read back identical' '
	test ! -s "$W/lost" || { head -n 20 "$W/lost" >&2; false; }
'

test_expect_success 'the budget removed artifacts, and young ones were checked' '
	grep -q "	budget	" "$W/gc.out" &&
	test "$(awk "{ n += \$1 } END { print n + 0 }" "$W/checked")" -gt 0
'

test_expect_success 'no command said the database was locked or busy' '
	cat "$W"/err.* >"$W/stderr" 2>/dev/null
	! grep -i -E "locked|busy" "$W/stderr"
'

test_expect_success 'ofl-gc --check finds nothing wrong' '
	ofl-gc --check --wait >"$W/check" ||
	    { head -n 20 "$W/check" >&2; false; }
'

test_expect_success 'one more gc removes what a killed one left in the index' '
	ofl-gc --wait >/dev/null 2>>"$W/err.gc"
	case $? in 0 | 1) ;; *) false ;; esac &&
	ofl-gc --check >"$W/check" &&
	! grep "no artifact" "$W/check"
'

test_expect_success 'no sanitizer report' '
	no_sanitizer "$W"/err.*
'

echo "# budget: $BUDGET_SECONDS s, $(cat "$W/rounds" 2>/dev/null) rounds;" \
    "$(wc -l <"$W/stored") captures, $(grep -c "	budget	" "$W/gc.out")" \
    "removed by the budget; $(awk '{ n += $1 } END { print n + 0 }' \
    "$W/checked") reads of artifacts of the grace period, $(cat "$W/lost" \
    2>/dev/null | wc -l) lost"
test_done
