#!/bin/sh
# A full disk during capture and during index.  As root the store sits on
# a small tmpfs; otherwise file sizes are limited with ulimit -f (SIGXFSZ
# ignored, so writes fail with EFBIG instead of killing the process).
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$OFL_SRCDIR/tests/lib.sh"
. "$OFL_SRCDIR/tests/stress/proof.lib"

MNT=$TEST_DIR/mnt
mkdir -p "$MNT"
mode=
if [ "$(id -u)" -eq 0 ] &&
    mount -t tmpfs -o size=6m,mode=0700 tmpfs "$MNT" 2>/dev/null; then
	mode=tmpfs
	trap 'cd /; umount "$MNT" 2>/dev/null; chmod -R u+rwx "$TEST_DIR";
	    rm -rf "$TEST_DIR"' EXIT
elif (ulimit -f 4096) 2>/dev/null; then
	mode=ulimit
else
	test_skip_all 'neither a tmpfs nor ulimit -f to fill a disk with'
fi
echo "# full disk by $mode"

# limited CMD...: run CMD with the disk (or the file size) limit.
limited() {
	if [ "$mode" = ulimit ]; then
		(trap '' XFSZ; ulimit -f "$LIMIT_BLOCKS"; "$@")
	else
		"$@"
	fi
}
LIMIT_BLOCKS=10240	# 512-byte blocks: 5 MiB per file

OFL_STORE=$MNT/store
export OFL_STORE

test_expect_success 'setup: two finished artifacts on the small disk' '
	ofl-gc --set auto-gc=off &&
	echo "one small artifact" >f1 &&
	seq 1 3000 >f2 &&
	id1=$(cap f1) && id2=$(cap f2) &&
	test -n "$id1" && test -n "$id2" &&
	echo "$id1 $id2" >ids
'
read -r id1 id2 <ids

test_expect_success 'a capture that fills the disk fails clearly and keeps a prefix' '
	head -c 12000000 /dev/urandom >big &&
	limited ofl-capture -q -T 0 <big >out 2>err
	rc=$?
	cat err >&2
	test $rc -eq 3 &&
	grep -E "No space left|File too large|disk full" err &&
	test "$(wc -l <err)" -eq 1 &&
	test "$(wc -c <out)" -lt 100 &&
	id=$(ofl_id <out) && test -n "$id" &&
	ofl-extract "$id" >part &&
	test -s part &&
	n=$(wc -c <part) &&
	test "$n" -lt 12000000 &&
	head -c "$n" big | cmp - part &&
	ofl-search -j -n 1 | grep "\"incomplete\":true"
'

test_expect_success 'the finished artifacts read back while the disk is full' '
	ofl-extract "$id1" >back1 && cmp back1 f1 &&
	ofl-extract "$id2" >back2 && cmp back2 f2
'

test_expect_success 'a small capture on the full disk fails cleanly or works' '
	seq 1 50000 >f3 &&
	limited ofl-capture -q -T 0 <f3 >out3 2>err3
	rc=$?
	no_crash $rc &&
	case $rc in
	0) id3=$(ofl_id <out3) && ofl-extract "$id3" | cmp - f3 ;;
	3) test "$(wc -l <err3)" -le 2 && test "$(wc -c <out3)" -lt 100 ;;
	*) false ;;
	esac
'

test_expect_success 'after space is freed the store checks clean and captures again' '
	ofl-gc --all >/dev/null &&
	ofl-gc --check >chk || ofl-gc --repair >>chk
	ofl-gc --check >chk2 &&
	grep " 0 problems" chk2 &&
	id4=$(cap f2) && ofl-extract "$id4" | cmp - f2
'

if [ "$mode" = tmpfs ]; then
	umount "$MNT" && mount -t tmpfs -o size=32m,mode=0700 tmpfs "$MNT"
else
	rm -rf "$OFL_STORE"
	LIMIT_BLOCKS=1024	# 512 kB per file: the index outgrows it
fi

test_expect_success 'setup: a 4 MB log that is not indexed yet' '
	ofl-gc --set auto-gc=off &&
	seq 1 100000 | awk "{ print \"line \" \$1 \" request served error code \" \$1 % 97 }" >log &&
	tid=$(cap log) && test -n "$tid" && echo "$tid" >tid
'
read -r tid <tid

fill() {
	if [ "$mode" = tmpfs ]; then
		avail=$(df -k "$MNT" | awk "NR == 2 { print \$4 }")
		head -c $(((avail - 100) * 1024)) /dev/zero >"$MNT/filler" \
		    2>/dev/null
	fi
	return 0
}

test_expect_success 'indexing on a full disk fails with a clear message' '
	fill &&
	limited ofl-index "$tid" >out 2>err
	rc=$?
	cat err >&2
	test $rc -eq 3 &&
	grep -E "disk is full|No space left|File too large|disk full|disk I/O error" err &&
	test "$(wc -l <err)" -eq 1
'

test_expect_success '--pending on a full disk: the artifact it could not index said, exit 3' '
	limited ofl-index --pending >out 2>err
	rc=$?
	cat out err >&2
	test $rc -eq 3 &&
	grep -E "^ofl-index: 1 artifact not indexed: .*(disk is full|No space left|File too large|disk full|disk I/O error)" err &&
	test "$(wc -l <err)" -eq 1
'

test_expect_success 'searching on a full disk fails cleanly, never crashes' '
	limited ofl-search "$tid" "code 42" >out 2>err
	rc=$?
	no_crash $rc && test $rc -le 3 &&
	if [ $rc -eq 3 ]; then test "$(wc -l <err)" -eq 1; fi
'

test_expect_success 'the artifact reads back whole while the disk is full' '
	ofl-extract "$tid" | cmp - log
'

test_expect_success 'after space is freed it indexes and searches, checks clean' '
	rm -f "$MNT/filler" &&
	ofl-index "$tid" >out &&
	grep "^ofl:$tid " out &&
	ofl-search --color=always "$tid" "code 42" | marked >hits &&
	grep "^  42: line >>42<< " hits &&
	ofl-index --check &&
	ofl-gc --check >chk &&
	grep " 0 problems" chk
'

test_expect_success 'no sanitizer report in any output' '
	no_sanitizer err err3 out out3
'

test_done
