#!/bin/sh
# A full disk: writes that fail (a file size limit, or a small tmpfs when
# it can be mounted) give one clear error, a small safe output instead of
# a raw dump, and leave what was stored before intact.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

# refid FILE: the ID on the first reference line in FILE (a notice
# comes after the output that passed through live).
refid() {
	sed -n 's/^ofl:\([0-9a-z]\{8\}\) .*/\1/p' "$1" | head -n 1
}

test_expect_success 'setup: earlier artifacts, 4 MB of random data' '
	seq 1 20000 >s1 &&
	head -c 300000 /dev/urandom >r1 &&
	ofl-capture -q -T 0 <s1 >id1 &&
	ofl-capture -q -T 0 <r1 >id2 &&
	head -c 4000000 /dev/urandom >rnd
'
id1=$(sed 's/^ofl://' id1 2>/dev/null)
id2=$(sed 's/^ofl://' id2 2>/dev/null)

test_expect_success STOREDIR 'file size limit: the capture fails cleanly' '
	(
		ulimit -f 3000 &&
		ofl-capture <rnd >out 2>err
	)
	rc=$?
	test "$rc" -eq 3 &&
	test "$(wc -c <out)" -lt 24000 &&
	test -s err &&
	test "$(wc -l <err)" -le 2 &&
	grep -i "too large\|no space\|disk full" err
'

test_expect_success 'nothing stored before is damaged' '
	ofl-extract "$id1" >back && cmp s1 back &&
	ofl-extract "$id2" >back && cmp r1 back
'

test_expect_success STOREDIR 'what was stored of the failed capture is a true prefix' '
	id=$(ofl-search -q | head -n 1) &&
	test "$id" != "$id1" && test "$id" != "$id2" &&
	ofl-extract "$id" >part &&
	n=$(wc -c <part) &&
	test "$n" -lt 4000000 &&
	cmp -n "$n" part rnd &&
	ofl_listing >list &&
	grep "^ofl:$id	" list | cut -f 7 >flags &&
	echo incomplete >expect && test_cmp expect flags
'

test_expect_success sqlite3,STOREDIR 'the database is consistent' '
	sqlite3 "$OFL_STORE/ofl.db" "PRAGMA integrity_check" >check &&
	echo ok >expect && test_cmp expect check
'

test_expect_success 'the next capture works' '
	seq 1 30000 >s3 &&
	ofl-capture -q <s3 >id3 &&
	ofl-extract "$(sed "s/^ofl://" id3)" >back && cmp s3 back
'

test_expect_success STOREDIR '-- CMD under the limit: the command status is kept' '
	(
		ulimit -f 3000 &&
		ofl-capture -- sh -c "cat rnd; exit 6" >out 2>err
	)
	rc=$?
	test "$rc" -eq 6 &&
	test "$(wc -c <out)" -lt 24000 &&
	test -s err
'

# A small tmpfs, when this machine lets us mount one.
mounted=
if [ "$(id -u)" -eq 0 ] && mkdir -p mnt &&
    mount -t tmpfs -o size=2m tmpfs mnt 2>/dev/null; then
	mounted=1
	trap 'cd /; umount "$TEST_DIR/mnt" 2>/dev/null; test_cleanup' EXIT
fi

if [ -n "$mounted" ]; then
	test_expect_success 'tmpfs of 2 MB: earlier artifacts' '
		ofl-capture -s "$PWD/mnt/store" -q -T 0 <s1 >t1 &&
		ofl-capture -s "$PWD/mnt/store" -q -T 0 <s3 >t2
	'
	test_expect_success 'tmpfs full: a clear error, a small output' '
		test_expect_code 3 ofl-capture -s "$PWD/mnt/store" <rnd >out 2>err &&
		test "$(wc -c <out)" -lt 24000 &&
		grep -i "no space\|disk full" err
	'
	test_expect_success 'tmpfs full: earlier artifacts read back' '
		OFL_STORE="$PWD/mnt/store" ofl-extract "$(sed "s/^ofl://" t1)" >back &&
		cmp s1 back &&
		OFL_STORE="$PWD/mnt/store" ofl-extract "$(sed "s/^ofl://" t2)" >back &&
		cmp s3 back
	'
	test_expect_success sqlite3 'tmpfs full: the database is consistent' '
		sqlite3 mnt/store/ofl.db "PRAGMA integrity_check" >check &&
		echo ok >expect && test_cmp expect check
	'
	test_expect_success 'tmpfs full: a small capture still works' '
		echo after | ofl-capture -s "$PWD/mnt/store" >out &&
		echo after >expect && test_cmp expect out
	'
	# Never searched, the store has no index: gc must not make one
	# there (it did, and failed with "disk I/O error", freeing nothing).
	test_expect_success 'tmpfs full: gc --check makes no index file' '
		head -c 600000 /dev/urandom >fill &&
		{ ofl-capture -s "$PWD/mnt/store" -q -T 0 <fill \
		    >/dev/null 2>&1 || :; } &&
		test "$(df -k mnt | awk "NR == 2 { print \$4 }")" -lt 64 &&
		test ! -e mnt/store/ofl-ix.db &&
		OFL_STORE=$PWD/mnt/store ofl-gc --check >out &&
		grep ": 0 problems" out &&
		test ! -e mnt/store/ofl-ix.db
	'
	test_expect_success 'tmpfs full, never indexed: a budget gc frees' '
		OFL_STORE=$PWD/mnt/store ofl-gc --max-size 300K --grace 0 \
		    >out 2>err &&
		grep "^removed" out &&
		test ! -s err &&
		test ! -e mnt/store/ofl-ix.db &&
		test "$(du -sk mnt | cut -f1)" -lt 1024 &&
		OFL_STORE=$PWD/mnt/store ofl-gc --check >out &&
		grep ": 0 problems" out &&
		echo again | ofl-capture -s "$PWD/mnt/store" >out &&
		echo again >expect && test_cmp expect out
	'
	umount mnt 2>/dev/null

	# An index filling the disk: gc must give its space back there.
	mount -t tmpfs -o size=16m tmpfs mnt 2>/dev/null
	test_expect_success 'tmpfs of 16 MB filled by indexed logs' '
		OFL_STORE=$PWD/mnt/store ofl-gc --set auto-gc=off &&
		i=0 && : >ids &&
		while [ $i -lt 300 ]; do
			i=$((i + 1))
			awk -v s=$i "BEGIN { srand(s); for (j = 0; j < 3000; j++)
			    printf \"line %d word%d tok%x run%d\\n\", j,
			    int(rand() * 100000), int(rand() * 1e9), s }" >log &&
			OFL_STORE=$PWD/mnt/store OFL_INDEX_BG=0 \
			    ofl-capture -q -T 0 <log >>ids 2>err || break
			OFL_STORE=$PWD/mnt/store ofl-index -q --pending \
			    2>/dev/null || break
		done &&
		test $i -lt 300 &&
		test "$(df -k mnt | awk "NR == 2 { print \$4 }")" -lt 1024
	'
	test_expect_success 'a budget gc on the full disk gives the space back' '
		OFL_STORE=$PWD/mnt/store ofl-gc --wait --max-size 4M \
		    --grace 0 >out 2>err &&
		grep "^removed" out &&
		test "$(du -sk mnt | cut -f1)" -lt 8192 || {
			ls -l mnt/store >&2; df -k mnt >&2; cat out err >&2
			false
		}
	'
	test_expect_success 'what is kept reads back, and searches find it' '
		# The newest is the capture the full disk cut short.
		id=$(OFL_STORE=$PWD/mnt/store ofl-search -q | sed -n 2p) &&
		run=$(OFL_STORE=$PWD/mnt/store ofl-extract "$id" -n 1 |
		    sed "s/.* run//") &&
		OFL_STORE=$PWD/mnt/store ofl-search "$id" "run$run" >out &&
		grep -q "run$run" out &&
		OFL_STORE=$PWD/mnt/store ofl-gc --check >out &&
		grep ": 0 problems" out
	'
	umount mnt 2>/dev/null
else
	test_count=$((test_count + 1))
	test_skipped=$((test_skipped + 1))
	if [ "$(id -u)" -eq 0 ]; then
		why="cannot mount one here"
	else
		why="mounting one needs root"
	fi
	echo "ok $test_count # skip a full tmpfs ($why)"
fi

test_done
