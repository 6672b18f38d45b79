#!/bin/sh
# faults.sh: kill -9 of ofl-capture, ofl-index and ofl-gc at random points.
#
# Each round captures two more artifacts to completion (the "finished"
# set), then starts one of
#   - ofl-capture reading a slow pipe, or running a slow command;
#   - ofl-index -f of every finished artifact (drop and index again);
#   - ofl-gc -v --label victim, with victims indexed and not;
# and kills it with SIGKILL after a random delay.  After every kill:
#   - ofl-gc --check is clean, or --repair makes it clean, and
#     ofl-index --check is clean;
#   - every finished artifact reads back byte-identical (sha256);
#   - a killed capture's artifact, if one was made, holds a prefix of its
#     input and is marked incomplete;
#   - search and index work.
# At the end the content files are aged so that --check looks at files
# no row names (a gc killed between its commit and its unlink leaves
# one): --repair removes them and --check is clean.
#
# Settings: KILLS (default 2 x STRESS_SECONDS, else 9), VERIFY_EVERY
# (every N kills check every finished artifact; 1, or 10 in stress).
: "${OFL_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$OFL_SRCDIR/tests/lib.sh"
test_needs STOREDIR
. "$OFL_SRCDIR/tests/stress/proof.lib"

: "${KILLS:=$(( ${STRESS_SECONDS:-0} > 0 ? STRESS_SECONDS * 2 : 9 ))}"
: "${VERIFY_EVERY:=$(( ${STRESS_SECONDS:-0} > 0 ? 10 : 1 ))}"

W=$TEST_DIR/faults
mkdir -p "$W/pool"

make_pool() {
	p=$W/pool
	seq 1 20000 | sed 's/^/line /' >"$p/a.txt"
	head -c 1200000 /dev/urandom | base64 >"$p/b.txt"
	i=0
	while [ $i -lt 400 ]; do
		printf '{"n":%d,"s":"item %d error"}\n' $i $i
		i=$((i + 1))
	done >"$p/c.ndjson"
	head -c 300000 /dev/urandom >"$p/d.bin"
}

# finish FILE [ARGS]: capture to the end; record the finished artifact.
finish() {
	_f=$1
	shift
	_id=$(ofl-capture -q -T 0 "$@" <"$_f" 2>>"$W/err" | ofl_id)
	if [ -z "$_id" ]; then
		echo "capture of $_f failed" >>"$W/fail"
		return 1
	fi
	echo "$_id $(sha "$_f")" >>"$W/finished"
}

# verify: every finished artifact reads back identical.
verify() {
	_bad=0
	while read -r _id _sum; do
		_got=$(ofl-extract "$_id" 2>>"$W/err" | sha256sum | cut -c1-64)
		if [ "$_got" != "$_sum" ]; then
			echo "LOST ofl:$_id after kill $1" >>"$W/lost"
			_bad=1
		fi
	done <"$W/finished"
	return $_bad
}

# check_store N: --check clean, or --repair then --check clean.
check_store() {
	if ofl-gc --check --wait >"$W/check.out" 2>&1; then
		echo clean >>"$W/checks"
		return 0
	fi
	sed "s/^/kill $1: /" "$W/check.out" >>"$W/repairs"
	ofl-gc --repair --wait >>"$W/repairs" 2>&1
	if ofl-gc --check --wait >"$W/check.out" 2>&1; then
		echo repaired >>"$W/checks"
		return 0
	fi
	sed "s/^/kill $1, after repair: /" "$W/check.out" >>"$W/fail"
	return 1
}

# The artifacts a killed capture left: incomplete ones not seen before.
check_salvage() {
	_input=$1
	ofl-search -j -n 1000000 2>/dev/null |
	    sed -n 's/.*"id":"\([0-9a-z]*\)".*"incomplete":true.*/\1/p' |
	    while read -r _id; do
		grep -qx "$_id" "$W/salvaged" 2>/dev/null && continue
		echo "$_id" >>"$W/salvaged"
		ofl-extract "$_id" >"$W/got" 2>>"$W/err" || {
			echo "salvaged ofl:$_id unreadable" >>"$W/fail"
			continue
		}
		_n=$(wc -c <"$W/got")
		if ! head -c "$_n" "$_input" | cmp -s - "$W/got"; then
			echo "salvaged ofl:$_id ($_n bytes) is not a prefix of" \
			    "its input" >>"$W/fail"
		fi
	done
}

kill_capture() {
	k=$1
	rm -f "$W/fifo"
	mkfifo "$W/fifo"
	p=$W/pool
	cat "$p/a.txt" "$p/b.txt" "$p/c.ndjson" >"$W/stream"
	if [ $((k % 2)) -eq 0 ]; then
		# A slow pipe: the capture reads stdin.
		{
			cat "$p/a.txt"
			sleep 0.3
			cat "$p/b.txt"
			sleep 0.3
			cat "$p/c.ndjson"
		} >"$W/fifo" 2>/dev/null &
		ppid_=$!
		ofl-capture -q -T 0 <"$W/fifo" >"$W/cap.out" 2>>"$W/err" &
		cpid=$!
	else
		# A slow command run by the capture.
		ofl-capture -q -T 0 -- sh -c "cat '$p/a.txt'; sleep 0.3;
		    cat '$p/b.txt'; sleep 0.3; cat '$p/c.ndjson'" \
		    >"$W/cap.out" 2>>"$W/err" </dev/null &
		cpid=$!
		ppid_=
	fi
	random_sleep "$T_CAPTURE"
	kill -9 "$cpid" 2>/dev/null
	wait "$cpid"
	st=$?
	[ -n "$ppid_" ] && { kill "$ppid_" 2>/dev/null; wait "$ppid_"; }
	if [ $st -eq 0 ]; then
		# It finished first: a finished artifact like any other.
		id=$(ofl_id <"$W/cap.out")
		[ -n "$id" ] && echo "$id $(sha "$W/stream")" >>"$W/finished"
		echo "capture $k finished before the kill" >>"$W/notes"
	else
		echo "capture $k killed" >>"$W/killed"
	fi
}

kill_index() {
	k=$1
	ofl-index -f -q $(cut -d' ' -f1 "$W/finished") \
	    >/dev/null 2>>"$W/err.index" &
	ipid=$!
	random_sleep "$T_INDEX"
	kill -9 "$ipid" 2>/dev/null
	wait "$ipid"
	if [ $? -eq 137 ]; then
		echo "index $k killed" >>"$W/killed"
	else
		echo "index $k finished before the kill" >>"$W/notes"
	fi
}

kill_gc() {
	k=$1
	v1=$(cap "$W/pool/a.txt" -l victim)
	printf 'victim %d\n' "$k" >"$W/v.txt"
	v2=$(cap "$W/v.txt" -l victim)
	v3=$(cap "$W/pool/b.txt" -l victim)
	ofl-index -q "$v1" "$v3" 2>>"$W/err"
	sleep 0.01
	ofl-gc -v --label victim >"$W/gc.out" 2>>"$W/err.gc" &
	gpid=$!
	random_sleep "$T_GC"
	kill -9 "$gpid" 2>/dev/null
	wait "$gpid"
	if [ $? -eq 137 ]; then
		echo "gc $k killed" >>"$W/killed"
	else
		echo "gc $k finished before the kill" >>"$W/notes"
	fi
}

# ms MS_START: milliseconds since MS_START (from date +%s%N).
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000 + 1))
}

test_expect_success 'setup: pool, auto-gc off, first finished artifacts' '
	make_pool &&
	ofl-gc --set auto-gc=off &&
	: >"$W/finished" && : >"$W/killed" && : >"$W/checks" &&
	: >"$W/salvaged" &&
	finish "$W/pool/a.txt" &&
	finish "$W/pool/b.txt" -l keep &&
	finish "$W/pool/c.ndjson" &&
	ofl-index -q $(cut -d" " -f1 "$W/finished")
'

# How long each takes when left alone: kills land within that.
t0=$(date +%s%N)
ofl-index -f -q $(cut -d" " -f1 "$W/finished") 2>/dev/null
T_INDEX=$(ms_since "$t0")
cap "$W/pool/a.txt" -l victim >/dev/null
cap "$W/pool/b.txt" -l victim >/dev/null
t0=$(date +%s%N)
ofl-gc --label victim >/dev/null 2>&1
T_GC=$(ms_since "$t0")
T_CAPTURE=800
echo "# uninterrupted: index ${T_INDEX} ms, gc ${T_GC} ms, capture ~${T_CAPTURE} ms"

test_expect_success "$KILLS rounds of kill -9 (capture, index, gc)" '
	k=1
	while [ $k -le $KILLS ]; do
		finish "$W/pool/d.bin"
		printf "round %d\n" $k >"$W/r.txt"
		finish "$W/r.txt" -l "round$k"
		case $((k % 3)) in
		1) kill_capture $k ;;
		2) kill_index $k ;;
		0) kill_gc $k ;;
		esac
		check_store $k
		if ! ofl-index --check >"$W/icheck" 2>&1; then
			sed "s/^/kill $k: index --check: /" "$W/icheck" \
			    >>"$W/fail"
		fi
		[ $((k % 3)) -eq 1 ] && check_salvage "$W/stream"
		if [ $((k % VERIFY_EVERY)) -eq 0 ] || [ $k -eq $KILLS ]; then
			verify $k
		fi
		ofl-search -a "line" >/dev/null 2>>"$W/err"
		[ $? -le 1 ] || echo "search after kill $k failed" >>"$W/fail"
		k=$((k + 1))
	done
	true
'

test_expect_success 'after every kill the store checked clean or was repaired' '
	cat "$W/fail" >&2 2>/dev/null
	test ! -s "$W/fail"
'

test_expect_success 'no finished artifact was lost' '
	cat "$W/lost" >&2 2>/dev/null
	test ! -s "$W/lost" &&
	verify end
'

test_expect_success 'files left by a killed gc are found and removed' '
	find "$OFL_STORE/blobs" -type f -exec touch -d "10 minutes ago" {} + &&
	ofl-gc --check >"$W/final.check"
	ofl-gc --repair >"$W/final.repair" &&
	ofl-gc --check >"$W/final.check2" &&
	grep " 0 problems" "$W/final.check2" &&
	verify final
'

test_expect_success 'no crash and no sanitizer report in any stderr' '
	! grep -h -E "AddressSanitizer|runtime error:|Segmentation" \
	    "$W"/err* 2>/dev/null
'

killed=$(wc -l <"$W/killed" | tr -d ' ')
clean=$(grep -c clean "$W/checks")
repaired=$(grep -c repaired "$W/checks")
finished=$(wc -l <"$W/finished" | tr -d ' ')
salvaged=$(wc -l <"$W/salvaged" 2>/dev/null | tr -d ' ')
orphans=$(grep -c "file of no content row" "$W/final.repair" 2>/dev/null)
lost=$(cat "$W/lost" 2>/dev/null | wc -l | tr -d ' ')
echo "# faults: $KILLS rounds, $killed processes killed mid-run" \
    "($(grep -c capture "$W/killed") capture, $(grep -c index "$W/killed")" \
    "index, $(grep -c gc "$W/killed") gc); store clean after $clean," \
    "repaired after $repaired; $finished finished artifacts, $lost lost;" \
    "${salvaged:-0} salvaged captures checked; ${orphans:-0} orphan files" \
    "removed at the end"
if [ -s "$W/repairs" ]; then
	sort "$W/repairs" | sed 's/^kill [0-9]*: //' | sort | uniq -c |
	    sort -rn | head -n 5 | sed 's/^/# repaired: /'
fi
test_done
