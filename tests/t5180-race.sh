#!/bin/sh
# gc against the indexer and the write lock: a purge while the artifact is
# indexed leaves no index rows behind (none that a later capture could
# take for its own), --check finds rows of no content and --repair
# clears them, blob numbers are never used twice, and a capture waits
# for a write lock held longer than the busy timeout instead of losing
# its output.
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$OFL_SRCDIR/tests/lib.sh"
. "$OFL_SRCDIR/tests/stress/proof.lib"

db() {
	store_sql "$@"
}

test_expect_success 'setup: auto-gc off; a log that takes a while to index' '
	ofl-gc --set auto-gc=off &&
	awk "BEGIN { for (i = 0; i < 1200000; i++) printf \"line %d \
	    host%d req=%x zeta%d\\n\", i, i % 17, i * 7919, i }" >big.log
'

# The indexer is stopped between two of its batches (not inside a write
# transaction: the lock is free), the artifact is purged, and it goes on.
test_expect_success sqlite3 'a purge while the artifact is indexed leaves no rows behind' '
	a=$(cap big.log) &&
	{ ofl-index -q "$a" 2>index.err & } &&
	pid=$! &&
	i=0 && while [ $i -lt 600 ]; do
		n=$(db "SELECT count(*) FROM ix_chunk" 2>/dev/null)
		if [ -n "$n" ] && [ "$n" -gt 0 ]; then
			kill -STOP $pid
			sqlite3 "$OFL_STORE/ofl.db" "BEGIN IMMEDIATE; ROLLBACK;" \
			    2>/dev/null && break
			kill -CONT $pid
		fi
		sleep 0.05; i=$((i + 1))
	done &&
	test $i -lt 600 &&
	ofl-gc --purge "$a" >out &&
	grep "^removed 1 artifact " out &&
	kill -CONT $pid &&
	{ wait $pid; true; } &&
	seq 1 3000 | sed "s/^/unrelated line /" >other.txt &&
	b=$(cap other.txt -l other) && echo "$b" >b.id &&
	test_expect_code 1 ofl-search -l other zeta1199999 >hits 2>err &&
	test ! -s err &&
	test_expect_code 1 ofl-search -a zeta1199999 >hits 2>err &&
	test ! -s err &&
	ofl-search "$b" "unrelated line 42" >hits && grep "^ofl:$b:" hits &&
	ofl-gc --check >chk && grep " 0 problems" chk &&
	test "$(db "SELECT count(*) FROM ix_chunk WHERE id >> 24 NOT IN
	    (SELECT blob FROM artifact)")" = 0
'

test_expect_success sqlite3,STOREDIR 'blob numbers are never used twice' '
	x=$(echo "first content" | ofl-capture -q -T 0 | ofl_id) &&
	bx=$(db "SELECT blob FROM artifact WHERE id = '\''$x'\''") &&
	ofl-gc --purge "$x" >/dev/null &&
	y=$(echo "second content" | ofl-capture -q -T 0 | ofl_id) &&
	by=$(db "SELECT blob FROM artifact WHERE id = '\''$y'\''") &&
	test "$by" -gt "$bx"
'

test_expect_success sqlite3,STOREDIR '--check finds index rows of no content; --repair clears the index' '
	db "INSERT INTO ix_chunk (id, byte_start, byte_end, line_start,
	    line_end) VALUES (999 << 24, 0, 10, 1, 1)" &&
	test_expect_code 3 ofl-gc --check >chk &&
	grep "^index: 1 chunk of no indexed content$" chk &&
	ofl-gc --repair >chk &&
	grep "^index: cleared (searches index again)$" chk &&
	ofl-gc --check >chk && grep " 0 problems" chk &&
	ofl-search -l other "unrelated line 42" >hits && grep "^ofl:" hits
'

# The busy timeout is 30 s of sleeps asked for; under load they take
# longer, so the lock is held well past it.
test_expect_success sqlite3,STOREDIR 'a capture waits out a write lock held past the busy timeout' '
	head -c 3000000 /dev/urandom | base64 >in.txt &&
	{ (echo "BEGIN IMMEDIATE;"; sleep 50; echo "COMMIT;") |
	    sqlite3 "$OFL_STORE/ofl.db" & } &&
	sleep 1 &&
	c=$(ofl-capture -q -T 0 <in.txt 2>err | ofl_id) &&
	wait &&
	test ! -s err &&
	test -n "$c" &&
	ofl-extract "$c" >back && cmp back in.txt &&
	ofl-gc --check >chk && grep " 0 problems" chk
'

# Another process holds the write lock (here until it has seen the
# capture's first line pass through, or for 30 s): the capture's rows wait
# for its first commit, and its output is not held up meanwhile.
test_expect_success sqlite3,STOREDIR 'a capture streams while another process holds the write lock' '
	rm -f held.out && : >pass.out &&
	{ { echo ".bail on"; echo ".timeout 60000"; echo "BEGIN IMMEDIATE;";
	    echo ".print held";
	    i=0; while [ $i -lt 300 ] && ! grep -q "^abc$" pass.out; do
		sleep 0.1; i=$((i + 1)); done
	    if [ $i -lt 300 ]; then echo ".print saw"; fi
	    echo "COMMIT;"; echo ".print released"; } |
	    sqlite3 "$OFL_STORE/ofl.db" >held.out & } &&
	i=0 && while [ $i -lt 300 ] && ! grep -q held held.out; do
		sleep 0.1; i=$((i + 1)); done &&
	test $i -lt 300 &&
	{ echo abc
	  i=0; while [ $i -lt 300 ] && ! grep -q released held.out; do
		sleep 0.1; i=$((i + 1)); done
	  echo def; } | ofl-capture -l late --ttl 1h >pass.out 2>err &&
	wait &&
	test ! -s err &&
	printf "held\nsaw\nreleased\n" >expect && test_cmp expect held.out &&
	printf "abc\ndef\n" >expect && test_cmp expect pass.out &&
	id=$(db "SELECT id FROM artifact ORDER BY rowid DESC LIMIT 1") &&
	ofl-extract "$id" >back && test_cmp expect back &&
	db "SELECT state, label, cwd, expires - created BETWEEN 3590000 AND
	    3600000 FROM artifact WHERE id = '\''$id'\''" >row &&
	echo "1|late|$PWD|1" >expect && test_cmp expect row &&
	ofl-gc --check >chk && grep " 0 problems" chk
'

# A writer killed before it could record its rows (the lock held by
# another process all along) leaves an empty file that names nothing:
# --check notes it, not as a problem, and --repair removes it; nothing
# stored is touched.
test_expect_success sqlite3,STOREDIR 'an empty file a killed writer left is noted and repaired' '
	a=$(echo kept | ofl-capture -q -T 0 | ofl_id) &&
	ls "$OFL_STORE"/blobs/*/* | sort >files.before &&
	: >pass7.out &&
	{ { echo ".bail on"; echo ".timeout 60000"; echo "BEGIN IMMEDIATE;";
	    echo ".print held";
	    i=0; while [ $i -lt 300 ] && [ ! -f killed ]; do
		sleep 0.1; i=$((i + 1)); done
	    echo "COMMIT;"; } | sqlite3 "$OFL_STORE/ofl.db" >held7.out & } &&
	i=0 && while [ $i -lt 300 ] && ! grep -q held held7.out; do
		sleep 0.1; i=$((i + 1)); done &&
	test $i -lt 300 &&
	{ { echo abc; i=0; while [ $i -lt 300 ] && [ ! -f killed ]; do
		sleep 0.1; i=$((i + 1)); done; } | ofl-capture >pass7.out & } &&
	cpid=$! &&
	i=0 && while [ $i -lt 300 ] && ! grep -q "^abc$" pass7.out; do
		sleep 0.1; i=$((i + 1)); done &&
	test $i -lt 300 &&
	kill -KILL $cpid && : >killed && wait &&
	ls "$OFL_STORE"/blobs/*/* | sort | comm -13 files.before - >new &&
	test "$(wc -l <new)" -eq 1 &&
	f=$(cat new) && test ! -s "$f" &&
	touch -d "1 hour ago" "$f" &&
	ofl-gc --check >chk &&
	grep " 0 problems" chk &&
	grep "^blobs/.*: an empty file of no content row" chk &&
	ofl-gc --check --repair >chk &&
	grep "left by a writer stopped before its first commit (removed)" chk &&
	test ! -e "$f" &&
	echo kept >expect && ofl-extract "$a" >back && test_cmp expect back
'

# Past its first frames a writer hands frames to threads that commit
# them; a quiet moment commits what is pending.  While another process
# holds the write lock, that commit waits: the capture must not wait
# with it, or it stops reading, and the command, its pipe full, stops
# too until the lock is free.
test_expect_success sqlite3,STOREDIR 'past its first frames, a capture reads on while the write lock is held' '
	rm -f held8.out wrote8 &&
	awk "BEGIN { for (i = 0; i < 80000; i++)
	    printf \"line %06d of the first frames\\n\", i }" >big8 &&
	head -c 300000 big8 >more8 &&
	size=$(wc -c <big8) &&
	{ { cat big8
	    i=0; while [ $i -lt 300 ] &&
	        ! grep -q held held8.out 2>/dev/null; do
		sleep 0.1; i=$((i + 1)); done
	    echo pending; sleep 2; cat more8; : >wrote8
	    i=0; while [ $i -lt 300 ] && ! grep -q released held8.out; do
		sleep 0.1; i=$((i + 1)); done
	    echo end; } | ofl-capture -q -l late8 >id8 2>err8 & } &&
	i=0 && while [ $i -lt 300 ] && [ "$(db "SELECT coalesce(sum(f.raw_len),
	    0) FROM frame f JOIN artifact a ON a.blob = f.blob WHERE
	    a.label = '\''late8'\''")" != "$size" ]; do
		sleep 0.1; i=$((i + 1)); done &&
	test $i -lt 300 &&
	{ { echo ".bail on"; echo ".timeout 60000"; echo "BEGIN IMMEDIATE;";
	    echo ".print held";
	    i=0; while [ $i -lt 100 ] && [ ! -f wrote8 ]; do
		sleep 0.1; i=$((i + 1)); done
	    if [ $i -lt 100 ]; then echo ".print read"; fi
	    echo "COMMIT;"; echo ".print released"; } |
	    sqlite3 "$OFL_STORE/ofl.db" >held8.out & } &&
	wait &&
	test ! -s err8 &&
	printf "held\nread\nreleased\n" >expect && test_cmp expect held8.out &&
	{ cat big8; echo pending; cat more8; echo end; } >expect &&
	ofl-extract "$(ofl_id <id8)" >back && test_cmp expect back
'

test_done
