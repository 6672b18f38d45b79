#!/bin/sh
# t5180: what a store must be before ofl uses it.  A store path, blobs/ or
# a store file that is a symbolic link is refused (the user names the
# target); so is a blobs/, WAL or content file that group or others may
# write.  Checks, searches and reports never create a store: "no store at
# PATH", exit 3.  And gc frees space on a disk that another file filled.
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$OFL_SRCDIR/tests/lib.sh"
. "$OFL_SRCDIR/tests/stress/proof.lib"

# readers: run each reader on the store; "CMD => STATUS" lines in results,
# stderr in errs.
readers() {
	: >results
	: >errs
	for cmd in "ofl-extract $id" "ofl-search -a one" "ofl-search $id one" \
	    "ofl-schema -k csv $id" "ofl-index $id" "ofl-gc --check" \
	    "ofl-gc --stats" "ofl-gc"; do
		$cmd >out 2>err </dev/null
		echo "$cmd => $?" >>results
		cat err >>errs
	done
}

test_expect_success 'setup: a store with one artifact' '
	ofl-gc --set auto-gc=off &&
	echo "one two three" >f &&
	id=$(cap f) && test -n "$id" && echo "$id" >id
'
id=$(cat id)

test_expect_success 'a store that is a symbolic link: refused, nothing made there' '
	ln -s "$OFL_STORE" link &&
	for s in "$TEST_DIR/link" "$TEST_DIR/link/" "$TEST_DIR/link//"; do
		OFL_STORE=$s readers &&
		cat results >&2 &&
		test $(grep -c " => 3$" results) -eq 8 &&
		test $(grep -c "^ofl-[a-z]*: store $TEST_DIR/link: a symbolic link (to $OFL_STORE); refusing to follow it: name the directory itself$" errs) -eq 8 ||
		return 1
	done &&
	ofl-extract $id | cmp - f
'

test_expect_success 'a new store through a symbolic link: not made' '
	mkdir -m 700 elsewhere && ln -s elsewhere newlink &&
	echo data | test_expect_code 3 ofl-capture -q -T 0 -s "$TEST_DIR/newlink" >out 2>err &&
	grep "a symbolic link (to elsewhere)" err &&
	test -z "$(ls elsewhere)"
'

test_expect_success STOREDIR 'blobs/ or the database as a symbolic link: refused' '
	cp -a "$OFL_STORE" copy &&
	mv copy/blobs copy/blobs.real && ln -s blobs.real copy/blobs &&
	test_expect_code 3 ofl-extract -s "$TEST_DIR/copy" $id >out 2>err &&
	grep "store $TEST_DIR/copy/blobs: a symbolic link (to blobs.real)" err &&
	rm copy/blobs && mv copy/blobs.real copy/blobs &&
	mv copy/ofl.db copy/db.real && ln -s db.real copy/ofl.db &&
	test_expect_code 3 ofl-extract -s "$TEST_DIR/copy" $id >out 2>err &&
	grep "store $TEST_DIR/copy/ofl.db: a symbolic link (to db.real)" err &&
	rm copy/ofl.db && mv copy/db.real copy/ofl.db &&
	ofl-extract -s "$TEST_DIR/copy" $id | cmp - f
'

test_expect_success STOREDIR 'blobs/ writable by group or others: refused' '
	for m in 720 702 777; do
		chmod $m "$OFL_STORE/blobs" &&
		readers &&
		test $(grep -c " => 3$" results) -eq 8 &&
		test $(grep -c "store $OFL_STORE/blobs: writable by group or others (mode $m); refusing to use it (chmod go-w)$" errs) -eq 8 ||
		return 1
	done &&
	chmod 700 "$OFL_STORE/blobs" &&
	ofl-extract $id | cmp - f
'

test_expect_success STOREDIR 'a WAL or shared-memory file others may write: refused' '
	ls "$OFL_STORE/ofl.db-wal" "$OFL_STORE/ofl.db-shm" &&
	for f in ofl.db-wal ofl.db-shm; do
		chmod 666 "$OFL_STORE/$f" &&
		test_expect_code 3 ofl-extract $id >out 2>err &&
		grep "store $OFL_STORE/$f: writable by group or others (mode 666)" err &&
		test ! -s out &&
		chmod 600 "$OFL_STORE/$f" || return 1
	done &&
	ofl-extract $id | cmp - f
'

test_expect_success STOREDIR 'a content file others may write: not read' '
	b="$OFL_STORE/blobs/$(echo $id | cut -c1-2)/$id" &&
	chmod 666 "$b" &&
	test_expect_code 3 ofl-extract $id >out 2>err &&
	grep "content file .* is not a private file of yours; refusing to read it" err &&
	test ! -s out &&
	chmod 600 "$b" &&
	ofl-extract $id | cmp - f
'

test_expect_success 'checks, searches and reports make no store: exit 3' '
	for cmd in "ofl-gc --check" "ofl-gc --repair" "ofl-gc --stats" \
	    "ofl-gc --settings" "ofl-gc --dry-run" "ofl-gc --pin $id" \
	    "ofl-gc --unpin $id" "ofl-gc --purge $id" \
	    "ofl-search one" "ofl-search -a one" \
	    "ofl-index --check" "ofl-index $id" "ofl-extract $id" \
	    "ofl-schema $id"; do
		test_expect_code 3 $cmd -s "$TEST_DIR/TYPO" >out 2>err </dev/null &&
		echo "${cmd%% *}: no store at $TEST_DIR/TYPO (nothing captured yet)" >expect &&
		test_cmp expect err &&
		test ! -s out &&
		test ! -e TYPO || return 1
	done &&
	test_expect_code 1 ofl-search -s "$TEST_DIR/TYPO" >out 2>err &&
	test ! -e TYPO
'

test_expect_success STOREDIR 'the store and its files are private; a reserve is kept' '
	test "$(stat -c %a "$OFL_STORE")" = 700 &&
	test "$(stat -c %a "$OFL_STORE/reserve")" = 600 &&
	test -s "$OFL_STORE/reserve"
'

# A disk that another file fills: as root, a small tmpfs.
MNT=$TEST_DIR/mnt
if [ "$(id -u)" -eq 0 ] && mkdir -p "$MNT" &&
    mount -t tmpfs -o size=16m,mode=0700 tmpfs "$MNT" 2>/dev/null; then
	trap 'cd /; umount "$MNT" 2>/dev/null; test_cleanup' EXIT
	test_expect_success 'gc removes artifacts on a disk another file filled' '
		S=$MNT/store &&
		ofl-gc -s "$S" --set auto-gc=off &&
		seq 1 3000 >small && head -c 3000000 /dev/urandom >big &&
		a=$(cap small -s "$S") && b=$(cap big -s "$S") &&
		ofl-search -s "$S" -a 2999 >/dev/null &&
		{ dd if=/dev/zero of="$MNT/filler" bs=4096 2>/dev/null; true; } &&
		test "$(df -k "$MNT" | awk "NR == 2 { print \$4 }")" -eq 0 &&
		ofl-gc -s "$S" --all >out 2>err &&
		cat out err >&2 &&
		grep "^removed 2 artifacts" out &&
		test ! -s err &&
		test "$(df -k "$MNT" | awk "NR == 2 { print \$4 }")" -gt 2000 &&
		ofl-gc -s "$S" --check >out &&
		grep " 0 problems" out
	'
	umount "$MNT"
else
	test_count=$((test_count + 1))
	test_skipped=$((test_skipped + 1))
	if [ "$(id -u)" -eq 0 ]; then
		why="no tmpfs here"
	else
		why="mounting a tmpfs needs root"
	fi
	echo "ok $test_count # skip gc on a full disk ($why)"
fi

test_done
