#!/bin/sh
#
# t1020-index-file: the full-text index lives in a file of its own,
# ofl-ix.db, which capture, listings and metadata never open; it is
# private, checked like the store's other files, and made again when it
# is lost or damaged; a store whose index is in ofl.db keeps it there,
# until ofl-index --rebuild moves it.

. "$(dirname "$0")/lib.sh"

test_needs STOREDIR
if ! test_have_prereq sqlite3; then
	test_skip_all "sqlite3 shell missing"
fi

# log N: N lines, each with a word of its own.
log() {
	awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++)
	    printf "2026-12-04 10:%02d:%02d worker %d handled job%dx\n",
	    (i / 60) % 60, i % 60, i % 7, i }'
}

# hits QUERY: what a whole-store search prints.
hits() {
	ofl-search -a --no-pager "$@"
}

test_expect_success 'capture, listing, metadata and extraction make no index file' '
	ofl-gc --set auto-gc=off &&
	log 3000 >a.log &&
	ofl-capture -q -T 0 <a.log | sed "s/^ofl://" >id &&
	id=$(cat id) &&
	ofl-search >list && grep "^ofl:$id " list &&
	ofl-search --meta -j "$id" >meta && jq -e ".lines == 3000" meta &&
	ofl-extract "$id" -n 2999 >line &&
	printf "2999\t%s\n" "$(sed -n 2999p a.log)" >expect &&
	test_cmp expect line &&
	! test -e "$OFL_STORE/ofl-ix.db"
'

test_expect_success 'a search makes it: private, and ofl.db holds no index table' '
	id=$(cat id) &&
	ofl-search "$id" job2999x >out &&
	grep "^  2999: .*job2999x" out &&
	test "$(stat -c %a "$OFL_STORE/ofl-ix.db")" = 600 &&
	test "$(sqlite3 "$OFL_STORE/ofl.db" "SELECT count(*) FROM
	    sqlite_master WHERE name LIKE '\''ix%'\''")" = 0 &&
	test "$(sqlite3 "$OFL_STORE/ofl-ix.db" "SELECT count(*) FROM
	    sqlite_master WHERE name IN ('\''ix_blob'\'', '\''ix_fts'\'')")" = 2 &&
	test "$(sqlite3 "$OFL_STORE/ofl-ix.db" "PRAGMA auto_vacuum")" = 2 &&
	test "$(sqlite3 "$OFL_STORE/ofl-ix.db" "PRAGMA journal_mode")" = wal &&
	ofl-gc --check >chk && grep " 0 problems" chk
'

test_expect_success 'a group-writable index file is refused' '
	chmod 660 "$OFL_STORE/ofl-ix.db" &&
	test_expect_code 3 ofl-search >out 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep "ofl-ix.db: writable by group or others" err &&
	chmod 600 "$OFL_STORE/ofl-ix.db"
'

test_expect_success 'a damaged index file: all but search works; --repair removes it' '
	id=$(cat id) &&
	hits job1234x >before &&
	cp "$OFL_STORE/ofl-ix.db" ix.keep &&
	head -c 65536 /dev/urandom >"$OFL_STORE/ofl-ix.db" &&
	rm -f "$OFL_STORE/ofl-ix.db-wal" "$OFL_STORE/ofl-ix.db-shm" &&
	ofl-search >list && grep "^ofl:$id " list &&
	ofl-extract "$id" -n 2999 >line && test_cmp expect line &&
	echo more | ofl-capture -q -T 0 >/dev/null &&
	test_expect_code 3 ofl-search "$id" job2999x >out 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep "^ofl-search: .*index database: file is not a database" err &&
	test_expect_code 3 ofl-gc --check >chk &&
	grep "^index file: .*file is not a database$" chk &&
	ofl-gc --repair >rep &&
	grep "^index file: .*file is not a database (removed)$" rep &&
	hits job1234x >after &&
	test_cmp before after &&
	ofl-gc --check >chk && grep " 0 problems" chk
'

test_expect_success 'a store whose index is in ofl.db keeps it there' '
	OFL_STORE=$TEST_DIR/old && export OFL_STORE &&
	ofl-gc --set auto-gc=off &&
	for n in 100 200 300; do
		log $n | ofl-capture -q -T 0 >/dev/null || return 1
	done &&
	ofl-index -q --pending &&
	hits job150x >before &&
	hits -n 3 worker >before.common &&
	sqlite3 "$OFL_STORE/ofl-ix.db" "PRAGMA wal_checkpoint(TRUNCATE)" \
	    >/dev/null &&
	sqlite3 "$OFL_STORE/ofl-ix.db" .dump >dump.sql &&
	sqlite3 "$OFL_STORE/ofl.db" <dump.sql &&
	rm "$OFL_STORE"/ofl-ix.db* &&
	hits job150x >after && test_cmp before after &&
	hits -n 3 worker >after.common && test_cmp before.common after.common &&
	log 400 | ofl-capture -q -T 0 >/dev/null &&
	ofl-index -q --pending &&
	hits job350x >new && grep -c "job350x" new &&
	! test -e "$OFL_STORE/ofl-ix.db" &&
	sqlite3 "$OFL_STORE/ofl.db" "UPDATE artifact SET created = created -
	    2592000000, used = used - 2592000000 WHERE seq = 1" &&
	ofl-gc --older-than 20d >out && grep "^removed 1 artifact" out &&
	test "$(sqlite3 "$OFL_STORE/ofl.db" "SELECT count(*) FROM ix_blob")" = 3 &&
	ofl-gc --check >chk && grep " 0 problems" chk
'

test_expect_success 'an index file beside an index in ofl.db: --check says so, --repair removes it' '
	OFL_STORE=$TEST_DIR/old && export OFL_STORE &&
	cp "$TEST_DIR/ix.keep" "$OFL_STORE/ofl-ix.db" &&
	hits job150x >before &&
	test_expect_code 3 ofl-gc --check >chk &&
	grep "^index file: ofl-ix.db not in use: the index is in ofl.db (ofl-index --rebuild moves it)$" chk &&
	ofl-gc --repair >rep &&
	grep "^index file: ofl-ix.db not in use: .* (removed)$" rep &&
	! test -e "$OFL_STORE/ofl-ix.db" &&
	hits job150x >after && test_cmp before after &&
	ofl-gc --check >chk && grep " 0 problems" chk
'

test_expect_success 'ofl-index --rebuild moves an index made in ofl.db into its own file' '
	OFL_STORE=$TEST_DIR/old && export OFL_STORE &&
	hits job150x >before &&
	ofl-index --rebuild >out &&
	echo "3 artifacts indexed" >expect &&
	test_cmp expect out &&
	test -f "$OFL_STORE/ofl-ix.db" &&
	test "$(sqlite3 "$OFL_STORE/ofl.db" "SELECT count(*) FROM
	    sqlite_master WHERE name LIKE '\''ix%'\''")" = 0 &&
	hits job150x >after && test_cmp before after &&
	ofl-gc --check >chk && grep " 0 problems" chk
'

test_expect_success 'ofl-index --rebuild makes its own file again; with anything else, a usage error' '
	hits job150x >before &&
	ofl-index -q --rebuild >out &&
	! test -s out &&
	hits job150x >after && test_cmp before after &&
	test_expect_code 2 ofl-index --rebuild --pending 2>err &&
	test_expect_code 2 ofl-index --rebuild --check 2>>err &&
	test_expect_code 2 ofl-index --rebuild -f 2>>err &&
	test_expect_code 2 ofl-index --rebuild "$(cat "$TEST_DIR/id")" 2>>err &&
	cat >expect <<-\EOF &&
	ofl-index: --check, --pending and --rebuild go one at a time
	ofl-index: --check, --pending and --rebuild go one at a time
	ofl-index: -f goes with IDs, not --rebuild
	ofl-index: --rebuild works on the whole store: no IDs
	EOF
	test_cmp expect err
'

# segments TABLE: the segments of FTS5 table TABLE, from its structure
# record (row 10 of %_data): a 4-byte cookie, the 4-byte mark of the
# second format (newer SQLite, some tables), then varints: the levels,
# the segments.
segments() {
	sqlite3 "$OFL_STORE/ofl-ix.db" \
	    "SELECT hex(substr(block, 1, 32)) FROM $1_data WHERE id = 10" |
	awk '
	function byte(k) { return index("0123456789ABCDEF",
	    substr($0, 2 * k + 1, 1)) * 16 - 16 + index("0123456789ABCDEF",
	    substr($0, 2 * k + 2, 1)) - 1 }
	function varint() { v = 0
		do { b = byte(k++); v = v * 128 + b % 128 } while (b >= 128)
		return v }
	{ k = 4
	  if (byte(4) == 255 && byte(5) == 0 && byte(6) == 0 && byte(7) == 1)
		k = 8
	  varint(); print varint() }'
}

# Merging the index's segments frees pages while indexing goes on; the
# indexer gives them back to the file system when it is done.  A full
# generation's segments are merged into one; the open one's are not.
test_expect_success 'a full generation is one segment; no free pages are left' '
	i=0 &&
	while [ $i -lt 60 ]; do
		log $((40 + i)) | sed "s/job/part${i}job/" |
		    OFL_INDEX_BG=0 ofl-capture -q -T 0 | sed "s/^ofl://" >>ids ||
		    return 1
		i=$((i + 1))
	done &&
	for id in $(cat ids); do
		OFL_INDEX_GEN=100K ofl-index -q "$id" || return 1
	done &&
	test "$(sqlite3 "$OFL_STORE/ofl-ix.db" "PRAGMA freelist_count")" = 0 &&
	sqlite3 "$OFL_STORE/ofl-ix.db" "SELECT gen, open FROM ix_gen" >gens &&
	grep -q "|0$" gens && grep -q "|1$" gens &&
	while IFS="|" read -r g open; do
		t=ix_fts && [ "$g" = 0 ] || t=ix_fts$g
		echo "$open $(segments $t)" || return 1
	done <gens >segs &&
	awk "\$1 == 0 && \$2 != 1 { bad = 1 } \$1 == 1 && \$2 > 1 { more = 1 }
	    END { exit bad || !more }" segs &&
	ofl-index --check >chk &&
	hits part59job40x >out && grep -c "^ofl:" out >n && test "$(cat n)" = 1
'

# A job left half done by an ofl with another tokenizer is not resumed
# but started over in another generation, its rows buried first: a row
# is never written twice, and the checks count every row once.
test_expect_success 'a job of an older tokenizer: indexed anew, rows buried first' '
	log 500 | sed "s/job/oldtok/" | OFL_INDEX_BG=0 ofl-capture -q -T 0 |
	    sed "s/^ofl://" >id.old &&
	ofl-index -q "$(cat id.old)" &&
	blob=$(sqlite3 "$OFL_STORE/ofl.db" "SELECT blob FROM artifact WHERE
	    id = '\''$(cat id.old)'\''") &&
	sqlite3 "$OFL_STORE/ofl-ix.db" "UPDATE ix_blob SET state = 0,
	    tokver = 0, owner = NULL, heartbeat = 0 WHERE blob = $blob" &&
	ofl-index -q "$(cat id.old)" &&
	test "$(sqlite3 "$OFL_STORE/ofl-ix.db" "SELECT count(*) FROM ix_dead
	    WHERE blob = $blob AND rows > 0")" = 1 &&
	ofl-index --check &&
	ofl-gc --check >chk && grep " 0 problems" chk &&
	hits oldtok250x >out && test "$(grep -c "^ofl:" out)" = 1
'

# The mark: every artifact up to ix_mark.seq is indexed or a hole, so
# that a pass of the indexer and a whole-store search look at what is
# new and at the holes only, not at the whole store.
ixq() {
	sqlite3 -cmd ".timeout 5000" "$OFL_STORE/ofl-ix.db" "$1"
}
maxseq() {
	sqlite3 "$OFL_STORE/ofl.db" "SELECT max(seq) FROM artifact"
}
seqof() {
	sqlite3 "$OFL_STORE/ofl.db" "SELECT seq FROM artifact WHERE id = '$1'"
}

test_expect_success 'a drained store is marked up to its newest artifact, with no hole' '
	log 200 | sed "s/job/markone/" | OFL_INDEX_BG=0 ofl-capture -q -T 0 \
	    >/dev/null &&
	ofl-index --pending >out &&
	test "$(ixq "SELECT seq FROM ix_mark")" = "$(maxseq)" &&
	test "$(ixq "SELECT count(*) FROM ix_hole")" = 0 &&
	ofl-index --pending >out && grep -q "^0 artifacts indexed" out
'

test_expect_success 'an artifact being written is a hole until it is complete, then indexed' '
	rm -f fifo && mkfifo fifo &&
	{ OFL_INDEX_BG=0 ofl-capture -q -T 0 <fifo >id.hole & } &&
	exec 3>fifo &&
	log 300 | sed "s/job/markhole/" >&3 &&
	n=0 && while test "$(sqlite3 "$OFL_STORE/ofl.db" "SELECT count(*)
	    FROM artifact WHERE state = 0")" != 1 && test $n -lt 100; do
		sleep 0.1; n=$((n + 1))
	done &&
	ofl-index --pending >out && grep -q "^0 artifacts indexed" out &&
	test "$(ixq "SELECT seq FROM ix_mark")" = "$(maxseq)" &&
	test "$(ixq "SELECT count(*) FROM ix_hole")" = 1 &&
	exec 3>&- && wait &&
	id=$(sed "s/^ofl://" id.hole) &&
	test "$(ixq "SELECT seq FROM ix_hole")" = "$(seqof "$id")" &&
	ofl-index --pending >out && grep -q "^1 artifact indexed" out &&
	test "$(ixq "SELECT count(*) FROM ix_hole")" = 0 &&
	hits markhole150x >out && test "$(grep -c "^ofl:$id:" out)" = 1
'

test_expect_success 'an artifact whose index is dropped below the mark becomes a hole' '
	log 300 | sed "s/job/markdrop/" | OFL_INDEX_BG=0 ofl-capture -q -T 0 |
	    sed "s/^ofl://" >id.drop &&
	id=$(cat id.drop) &&
	ofl-index --pending >out && grep -q "^1 artifact indexed" out &&
	blob=$(sqlite3 "$OFL_STORE/ofl.db" "SELECT blob FROM artifact WHERE
	    id = '\''$id'\''") &&
	ixq "UPDATE ix_blob SET tokver = 0 WHERE blob = $blob" &&
	ofl-index -q "$id" &&
	test "$(ixq "SELECT group_concat(seq) FROM ix_hole")" = "$(seqof "$id")" &&
	ofl-index --pending >out && grep -q "^0 artifacts indexed" out &&
	test "$(ixq "SELECT count(*) FROM ix_hole")" = 0 &&
	ofl-gc --check >chk && grep -q " 0 problems" chk
'

test_expect_success 'content not indexed below the mark, no hole: gc --check says so, --repair resets the mark' '
	id=$(cat id.drop) &&
	blob=$(sqlite3 "$OFL_STORE/ofl.db" "SELECT blob FROM artifact WHERE
	    id = '\''$id'\''") &&
	ixq "UPDATE ix_blob SET tokver = 0 WHERE blob = $blob" &&
	ofl-index --pending >out && grep -q "^0 artifacts indexed" out &&
	test_expect_code 3 ofl-gc --check >chk &&
	grep -q "index: 1 artifact below the mark of what is indexed not indexed (--repair resets the mark)" chk &&
	ofl-gc --check --repair >chk &&
	test "$(ixq "SELECT seq FROM ix_mark")" = 0 &&
	ofl-index --pending >out && grep -q "^1 artifact indexed" out &&
	test "$(ixq "SELECT seq FROM ix_mark")" = "$(maxseq)"
'

test_expect_success 'an index without a mark gets one; another tokenizer'\''s mark is 0' '
	ixq "DROP TABLE ix_mark; DROP TABLE ix_hole" &&
	ofl-index --pending >out && grep -q "^0 artifacts indexed" out &&
	test "$(ixq "SELECT seq FROM ix_mark")" = "$(maxseq)" &&
	log 100 | sed "s/job/marktok/" | OFL_INDEX_BG=0 ofl-capture -q -T 0 \
	    >/dev/null &&
	ixq "UPDATE ix_mark SET tokver = 1" &&
	ofl-index --pending >out && grep -q "^1 artifact indexed" out &&
	test "$(ixq "SELECT seq FROM ix_mark")" = "$(maxseq)" &&
	test "$(ixq "SELECT tokver FROM ix_mark")" -gt 1
'

test_expect_success 'an index gc cannot check is a problem it says, not a store without one' '
	ixq "DROP TABLE ix_chunk" &&
	test_expect_code 3 ofl-gc --check >chk 2>err &&
	grep -q "^index: not checked: search index: index check: no such table: ix_chunk$" chk &&
	ofl-index -q --rebuild &&
	ofl-gc --check >chk && grep -q " 0 problems" chk
'

test_done
