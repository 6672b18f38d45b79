#!/bin/sh
#
# t8020-engines-gc: expiry on both engines of the store, the same tests
# on each: dry runs, purges, shared content, the size budget, TTLs,
# labels and sessions, pins, usage figures, one gc at a time; and on
# PostgreSQL, many writers and a gc at once on one database, as many
# machines share it, losing nothing (its tests skip with the reason when
# the engine is not built or PostgreSQL is not installed).

. "$(dirname "$0")/lib.sh"
. "$OFL_SRCDIR/tests/pg-cluster.sh"
. "$OFL_SRCDIR/tests/gc-lib.sh"

# Random content: the same on both engines, so that sizes match.
head -c 300000 /dev/urandom >r1
head -c 300000 /dev/urandom >r2
head -c 300000 /dev/urandom >r3

# engine_gc NAME: the tests, on the store in $OFL_STORE.
engine_gc() {
	e=$1
	mkdir -p "$e"

	test_expect_success "$e: setup: three artifacts" '
		ofl-gc --set auto-gc=off &&
		id1=$(cap r1) && id2=$(cap r2) && id3=$(cap r3) &&
		echo "$id1 $id2 $id3" >$e/ids &&
		test "$(count)" = 3
	'
	read id1 id2 id3 <$e/ids 2>/dev/null

	test_expect_success "$e: a dry run says what would go, removes nothing" '
		ofl-gc -n --all >$e/dry &&
		sed -n "\$s/ (.*//p" $e/dry >$e/dry1 &&
		echo "would remove 3 artifacts" >$e/want &&
		test_cmp $e/want $e/dry1 &&
		test "$(count)" = 3
	'

	test_expect_success "$e: --purge removes one; the others read back" '
		ofl-gc -v --purge "$id2" >$e/out &&
		grep "	ofl:$id2	purged" $e/out &&
		grep "^removed 1 artifact " $e/out &&
		test_expect_code 3 ofl-extract "$id2" >/dev/null 2>$e/err &&
		echo "ofl-extract: $id2: unknown artifact" >$e/want &&
		test_cmp $e/want $e/err &&
		ofl-extract "$id1" | cmp r1 - &&
		ofl-extract "$id3" | cmp r3 -
	'

	test_expect_success "$e: shared content outlives one of its artifacts" '
		a=$(cap r1 -l twin) &&
		ofl-gc --purge "$id1" >/dev/null &&
		ofl-extract "$a" | cmp r1 - &&
		ofl-gc --purge "$a" >/dev/null &&
		test_expect_code 3 ofl-extract "$a" >/dev/null 2>&1 &&
		test "$(count)" = 1
	'

	test_expect_success "$e: the budget takes the least recently used first" '
		b=$(cap r2 -l b) && c=$(cap r1 -l c) &&
		sleep 1 &&
		ofl-extract "$id3" >/dev/null &&
		ofl-extract "$c" >/dev/null &&
		ofl-gc -v --max-size 750k --grace 0 >$e/out &&
		grep "	ofl:$b	budget" $e/out &&
		test "$(grep -c "	budget" $e/out)" = 1 &&
		ofl-extract "$id3" | cmp r3 - &&
		ofl-extract "$c" | cmp r1 - &&
		echo "$c" >$e/c
	'

	test_expect_success "$e: the grace period keeps what was just captured" '
		d=$(cap r2 -l young) &&
		test_expect_code 1 ofl-gc --max-size 1k >$e/out 2>$e/err &&
		grep "budget 1.0 kB not met" $e/err &&
		ofl-extract "$d" | cmp r2 - &&
		ofl-gc --purge "$d" >/dev/null
	'

	test_expect_success "$e: a TTL expires" '
		t=$(cap r2 --ttl 1s -l short) &&
		sleep 2 &&
		ofl-gc -v --max-size 1G >$e/out &&
		grep "	ofl:$t	expired" $e/out &&
		test_expect_code 3 ofl-extract "$t" >/dev/null 2>&1
	'

	test_expect_success "$e: --label and --session" '
		printf "one\n" | ofl-capture -q -T 0 -l L1 >/dev/null &&
		printf "two\n" | ofl-capture -q -T 0 -S S1 >/dev/null &&
		ofl-gc --label L1 --max-size 1G >$e/out &&
		grep "^removed 1 " $e/out &&
		ofl-gc --session S1 --max-size 1G >$e/out &&
		grep "^removed 1 " $e/out &&
		test_expect_code 1 ofl-search -l L1 >/dev/null
	'

	test_expect_success JQ "$e: the report in JSON" '
		printf "x\n" | ofl-capture -q -T 0 -l J >/dev/null &&
		ofl-gc -j --label J >$e/json &&
		jq -c "{removed, dry_run}" $e/json | tail -n 1 >$e/got &&
		echo "{\"removed\":1,\"dry_run\":false}" >$e/want &&
		test_cmp $e/want $e/got
	'

	test_expect_success "$e: usage per label" '
		ofl-gc --stats >$e/stats &&
		grep "^label  c  *1  *300 kB  *300 kB  " $e/stats
	'

	test_expect_success "$e: what is left reads back" '
		ofl-extract "$id3" | cmp r3 - &&
		ofl-extract "$(cat $e/c)" | cmp r1 - &&
		test "$(count)" = 2
	'
	test_expect_success "$e: a pin keeps an artifact from TTL and budget" '
		p=$(cap r2 --ttl 1s -l pinned) &&
		ofl-gc --pin "$p" &&
		sleep 2 &&
		{ ofl-gc -v --max-size 1k --grace 0 >$e/out 2>$e/err ||
		    test $? = 1; } &&
		! grep "ofl:$p" $e/out &&
		ofl-extract "$p" | cmp r2 - &&
		ofl-gc --unpin "$p" &&
		ofl-gc -v --max-size 1G >$e/out &&
		grep "	ofl:$p	expired" $e/out
	'
}

OFL_STORE=$PWD/store
export OFL_STORE
engine_gc sqlite

test_expect_success 'sqlite: one gc at a time (the store directory'"'"'s lock)' '
	if ! command -v flock >/dev/null; then exit 0; fi
	printf "kept\n" | ofl-capture -q -T 0 >/dev/null &&
	(flock "$OFL_STORE/gc.lock" sleep 3 &) &&
	sleep 0.5 &&
	ofl-gc --all >out 2>err &&
	echo "ofl-gc: another gc is running on $OFL_STORE; leaving it to finish (--wait to wait)" >want &&
	test_cmp want err &&
	test "$(count)" = 1
'

if ! pg_cluster_try; then
	test_skip "postgresql: the gc tests" "$PG_SKIP"
	test_done
fi
OFL_STORE=$PG_URL
engine_gc postgresql

# The role's advisory lock, held by another session for a while.
hold_gc_lock() {
	"$PG_BIN/psql" -X -q -h "$PG_SOCK" -U ofl -d ofl -c \
	    "SELECT pg_advisory_lock(1868983296, hashtext('gc ' || current_user)); SELECT pg_sleep($1)" >/dev/null 2>&1
}

test_expect_success 'postgresql: one gc at a time, for every machine' '
	printf "kept\n" | ofl-capture -q -T 0 >/dev/null &&
	(hold_gc_lock 3 &) &&
	sleep 1 &&
	ofl-gc --all >out 2>err &&
	echo "ofl-gc: another gc is running on $PG_URL; leaving it to finish (--wait to wait)" >want &&
	test_cmp want err &&
	test "$(count)" = 1 &&
	ofl-gc --wait --all >out 2>err &&
	test ! -s err &&
	test "$(count)" = 0
'

test_expect_success 'postgresql: --check is clean; --repair is not supported, one line' '
	ofl-gc --check >out &&
	echo "$PG_URL: 0 problems" >want &&
	test_cmp want out &&
	test_expect_code 3 ofl-gc --repair >out 2>err &&
	test ! -s out &&
	echo "ofl-gc: store $PG_URL: repairing the store (--repair) is not supported on PostgreSQL yet" >want &&
	test_cmp want err
'

test_expect_success 'postgresql: removed content leaves no rows behind' '
	ofl-gc --all >/dev/null &&
	test "$(pg_sql "SELECT count(*) FROM ofl.artifact" ofl)" = 0 &&
	test "$(pg_sql "SELECT count(*) FROM ofl.blob" ofl)" = 0 &&
	test "$(pg_sql "SELECT count(*) FROM ofl.frame" ofl)" = 0
'

# Many machines: writers with homes of their own, one database, a gc
# with a tight budget running all the while.  Every capture succeeds;
# each artifact is either there with its exact bytes or was reported
# removed by a gc.
test_expect_success 'postgresql: writers and gc at once lose nothing' '
	: >removed
	for m in 1 2 3; do
		mkdir -p home$m &&
		(
			HOME=$PWD/home$m &&
			export HOME &&
			i=0 &&
			while [ $i -lt 30 ]; do
				seq -f "m$m line %g" 1 $((2000 + i)) >home$m/in$i &&
				cap home$m/in$i -l m$m >>home$m/ids ||
				    echo fail >>home$m/fail
				i=$((i + 1))
			done
			: >home$m/done
		) &
	done
	# gc all the while, and once more after.
	(
		while [ "$(ls home?/done 2>/dev/null | wc -l)" -lt 3 ]; do
			ofl-gc -v --grace 0 --max-size 40k >>removed 2>/dev/null
		done
		ofl-gc -v --grace 0 --max-size 40k >>removed 2>/dev/null
	) &
	wait
	test ! -e home1/fail && test ! -e home2/fail && test ! -e home3/fail &&
	cat home1/ids home2/ids home3/ids >ids &&
	test "$(wc -l <ids)" = 90 &&
	n=0 &&
	for m in 1 2 3; do
		i=0 &&
		while read id; do
			if ofl-extract "$id" >got 2>/dev/null; then
				cmp home$m/in$i got || exit 1
				n=$((n + 1))
			else
				grep -q "	ofl:$id	budget" removed || exit 1
			fi
			i=$((i + 1))
		done <home$m/ids
	done &&
	echo "$n kept" &&
	test "$(grep -c "	budget" removed)" -gt 0
'

# The same bytes from many writers while a gc purges them: each writer
# shares a content the gc may be dropping, and no capture fails (before
# the writer locked the content it shares, about one in ten did).
test_expect_success 'postgresql: shared content and purges at once' '
	seq 1 5000 >same
	for m in 1 2 3 4; do
		(
			i=0 &&
			while [ $i -lt 40 ]; do
				cap same -l same >>same$m.ids 2>>same$m.err ||
				    echo fail >>same$m.fail
				i=$((i + 1))
			done
			: >same$m.done
		) &
	done
	(
		while [ "$(ls same?.done 2>/dev/null | wc -l)" -lt 4 ]; do
			ofl-gc --label same >>purged 2>>gc.err
		done
	) &
	wait
	cat same?.err gc.err >errs &&
	test_cmp /dev/null errs &&
	test "$(cat same?.ids | wc -l)" = 160 &&
	grep "^removed [1-9]" purged &&
	for id in $(ofl-search -q -l same); do
		ofl-extract "$id" | cmp same - || exit 1
	done &&
	test "$(pg_sql "SELECT count(*) FROM ofl.blob b WHERE NOT EXISTS
	    (SELECT 1 FROM ofl.artifact a WHERE a.blob = b.id)" ofl)" = 0
'

test_done
