#!/bin/sh
# ofl-gc removes in batches (many removals to a transaction): every
# removed artifact's chunks and content go with it, and its index rows
# with their generation, the kept ones indexed anew (store-gen.c);
# shared content stays, the kept ones are still found, and the store
# checks clean.
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$OFL_SRCDIR/tests/lib.sh"

# text I: a small text with a word no other one has.
text() {
	awk -v i="$1" 'BEGIN { printf "artifact %d\n", i
	    for (l = 0; l < 40; l++)
	    printf "line %d of text %d: uniqword%dx and common words\n",
	    l, i, i }'
}

# sql QUERY: one answer of the store's database.
sql() {
	store_sql "$1"
}

# fts_rows: the rows of the full-text index, in every one of its
# generations (ix_fts, ix_fts1, ...), buried or not: the count FTS5 keeps
# for its statistics, the first varint of each table's averages record.
fts_rows() {
	sql "SELECT gen FROM ix_gen" | while read -r g; do
		t=ix_fts && [ "$g" = 0 ] || t=ix_fts$g
		sql "SELECT hex(substr(block, 1, 9)) FROM ${t}_data WHERE id = 1"
	done | awk '
	function hexval(c) { return index("0123456789ABCDEF", c) - 1 }
	{
		v = 0
		for (i = 1; i <= length($0); i += 2) {
			b = hexval(substr($0, i, 1)) * 16 + hexval(substr($0, i + 1, 1))
			v = v * 128 + b % 128
			if (b < 128)
				break
		}
		n += v
	}
	END { print n + 0 }'
}

if ! test_have_prereq sqlite3; then
	test_skip_all "sqlite3 shell missing"
fi

test_expect_success 'setup: 300 expiring artifacts, 20 kept, 10 sharing content' '
	ofl-gc --set auto-gc=off &&
	i=0 &&
	while [ $i -lt 300 ]; do
		text $i >t$i &&
		ofl-capture -q -T 0 --ttl 1s <t$i >/dev/null || exit 1
		i=$((i + 1))
	done &&
	i=300 &&
	while [ $i -lt 320 ]; do
		text $i >t$i &&
		ofl-capture -q -T 0 <t$i >/dev/null || exit 1
		i=$((i + 1))
	done &&
	i=0 &&
	while [ $i -lt 10 ]; do
		ofl-capture -q -T 0 -l twin <t$i | cut -f1 >>twins || exit 1
		i=$((i + 1))
	done &&
	ofl-index -q --pending &&
	test "$(sql "SELECT count(*) FROM ix_blob WHERE state = 1")" = 320 &&
	test "$(fts_rows)" = "$(sql "SELECT count(*) FROM ix_chunk")" &&
	sql "SELECT count(*) FROM ix_chunk" >chunks &&
	test "$(cat chunks)" -ge 320 &&
	sleep 1.2
'

test_expect_success 'one TTL run removes the 300 in batches' '
	ofl-gc >out &&
	grep "^removed 300 artifacts" out &&
	test "$(sql "SELECT count(*) FROM artifact")" = 30
'

test_expect_success 'the index rows of removed content are gone, not only unreachable' '
	test "$(sql "SELECT count(*) FROM ix_blob WHERE blob
	    NOT IN (SELECT blob FROM artifact)")" = 0 &&
	test "$(sql "SELECT count(*) FROM ix_chunk WHERE id >> 24
	    NOT IN (SELECT blob FROM artifact)")" = 0 &&
	test "$(fts_rows)" = "$(sql "SELECT count(*) FROM ix_chunk")" &&
	test "$(sql "SELECT count(*) FROM ix_blob WHERE state = 1")" = 30 &&
	test "$(sql "SELECT count(*) FROM ix_dead")" = 0
'

test_expect_success 'shared content stays, indexed and found' '
	ofl-search -a -q uniqword3x >hit &&
	test "$(wc -l <hit)" = 1 &&
	grep -F "$(sed -n 4p twins)" hit &&
	ofl-extract "$(sed -n 4p twins)" >back && cmp back t3
'

test_expect_success 'the kept ones are found; the removed ones are not' '
	ofl-search -a -q uniqword310x >hit && test "$(wc -l <hit)" = 1 &&
	test_expect_code 1 ofl-search -a -q uniqword200x >hit &&
	! test -s hit
'

test_expect_success 'the content files left are those of the blobs left' '
	find "$OFL_STORE/blobs" -type f >files &&
	test "$(wc -l <files)" = 30 &&
	test "$(sql "SELECT count(*) FROM blob")" = 30 &&
	ofl-gc --check >chk && grep " 0 problems" chk
'

test_expect_success 'the bytes stored, kept by triggers, are the sum of the contents left' '
	test "$(sql "SELECT n FROM blob_stored")" = \
	    "$(sql "SELECT sum(stored) FROM blob")" &&
	test "$(sql "SELECT count(*) FROM sqlite_master WHERE name IN
	    ('\''artifact_created'\'', '\''artifact_expires'\'')")" = 2
'

test_expect_success 'a store without them gets them at its next capture, with the right sum' '
	sql "DROP TRIGGER blob_stored_add; DROP TRIGGER blob_stored_set;
	    DROP TRIGGER blob_stored_del; DROP TABLE blob_stored;
	    DROP INDEX artifact_created; DROP INDEX artifact_expires" &&
	text 400 | ofl-capture -q -T 0 >/dev/null &&
	test "$(sql "SELECT n FROM blob_stored")" = \
	    "$(sql "SELECT sum(stored) FROM blob")" &&
	test "$(sql "SELECT count(*) FROM blob")" = 31 &&
	test "$(sql "SELECT count(*) FROM sqlite_master WHERE name IN
	    ('\''artifact_created'\'', '\''artifact_expires'\'')")" = 2
'

test_expect_success 'a capture finds a due gc by those indexes: an expired artifact starts one' '
	ofl-gc --set auto-gc=on &&
	text 401 | ofl-capture -q -T 0 --ttl 1s >/dev/null &&
	sleep 1.2 &&
	rm -f "$OFL_STORE/gc.lock" &&
	text 402 | OFL_INDEX_BG=0 ofl-capture -q -T 0 >/dev/null &&
	n=0 && while test "$(sql "SELECT count(*) FROM artifact")" != 32 &&
	    test $n -lt 100; do
		sleep 0.1; n=$((n + 1))
	done &&
	test "$(sql "SELECT count(*) FROM artifact")" = 32 &&
	test_expect_code 1 ofl-search -a -q uniqword401x &&
	test "$(sql "SELECT n FROM blob_stored")" = \
	    "$(sql "SELECT sum(stored) FROM blob")"
'

test_done
