#!/bin/sh
# The full-text index in generations: a store whose index spans several
# answers like one of one generation; a gc buries removed content, drops
# a generation whose content is all gone, and indexes anew what is left
# of one that keeps little; a store made before generations is taken on.
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$OFL_SRCDIR/tests/lib.sh"

# text I: about 6 kB with a word no other text has and common ones.
text() {
	awk -v i="$1" 'BEGIN { printf "artifact %d\n", i
	    for (l = 0; l < 120; l++)
	    printf "line %d of text %d: uniqword%dx and common words %d\n",
	    l, i, i, (l * 7 + i) % 13 }'
}

sql() {
	store_sql "$1"
}

# fill STORE: texts 0 to 23, captured in order and indexed.
fill() {
	OFL_STORE=$1 &&
	export OFL_STORE &&
	ofl-gc --set auto-gc=off &&
	i=0 &&
	while [ $i -lt 24 ]; do
		text $i | ofl-capture -q -T 0 >/dev/null || return 1
		i=$((i + 1))
	done &&
	ofl-index -q --pending
}

# hits QUERY: what a whole-store search prints, IDs left out.
hits() {
	ofl-search -a --no-pager "$@" | sed -E 's/(ofl:|ofl-extract )[0-9a-z]+/\1ID/g'
}

if ! test_have_prereq sqlite3; then
	test_skip_all "sqlite3 shell missing"
fi

test_expect_success 'setup: one store in one generation, one in many' '
	fill "$TEST_DIR/one" &&
	test "$(sql "SELECT count(*) FROM ix_gen")" = 1 &&
	OFL_INDEX_GEN=16k && export OFL_INDEX_GEN &&
	fill "$TEST_DIR/many" &&
	OFL_STORE=$TEST_DIR/many &&
	test "$(sql "SELECT count(*) FROM ix_gen")" -ge 6 &&
	test "$(sql "SELECT count(*) FROM ix_gen WHERE open = 1")" = 1 &&
	test "$(sql "SELECT count(*) FROM ix.sqlite_master WHERE
	    sql LIKE '\''CREATE VIRTUAL TABLE%fts5%'\''")" = \
	    "$(sql "SELECT count(*) FROM ix_gen")"
'

test_expect_success 'a whole-store search prints the same in both' '
	for q in common "uniqword5x" "words 3" "line 7 of text"; do
		OFL_STORE=$TEST_DIR/one hits "$q" >one.out &&
		OFL_STORE=$TEST_DIR/many hits "$q" >many.out &&
		test_cmp one.out many.out || return 1
	done &&
	OFL_STORE=$TEST_DIR/one hits -n 40 -q common | sort >one.ids &&
	test "$(wc -l <one.ids)" = 24
'

test_expect_success 'a search inside one artifact prints the same' '
	id1=$(OFL_STORE=$TEST_DIR/one ofl-search -q -n 24 | sed -n 9p) &&
	id2=$(OFL_STORE=$TEST_DIR/many ofl-search -q -n 24 | sed -n 9p) &&
	OFL_STORE=$TEST_DIR/one ofl-search --no-pager "$id1" "common words" |
	    sed "s/$id1/ID/" >one.out &&
	OFL_STORE=$TEST_DIR/many ofl-search --no-pager "$id2" "common words" |
	    sed "s/$id2/ID/" >many.out &&
	test_cmp one.out many.out
'

test_expect_success 'a close spelling is found across generations' '
	OFL_STORE=$TEST_DIR/one hits artifcat >one.out 2>&1 &&
	OFL_STORE=$TEST_DIR/many hits artifcat >many.out 2>&1 &&
	grep "^  1: artifact 23" many.out &&
	test_cmp one.out many.out
'

# Each test runs in a subshell: what follows is on the store of many.
OFL_STORE=$TEST_DIR/many
OFL_INDEX_GEN=16k
export OFL_STORE OFL_INDEX_GEN

test_expect_success 'TTL of the oldest: their generations are dropped whole' '
	sql "SELECT count(*) FROM ix_gen" >gens.before &&
	sql "UPDATE artifact SET created = created - 2592000000,
	    used = used - 2592000000 WHERE seq <= 12" &&
	ofl-gc --older-than 20d >out &&
	grep "^removed 12 artifacts" out &&
	test "$(sql "SELECT count(*) FROM ix_gen")" -lt "$(cat gens.before)" &&
	test "$(sql "SELECT count(*) FROM ix.sqlite_master WHERE
	    sql LIKE '\''CREATE VIRTUAL TABLE%fts5%'\''")" = \
	    "$(sql "SELECT count(*) FROM ix_gen")" &&
	test "$(sql "SELECT count(*) FROM ix_dead WHERE gen NOT IN
	    (SELECT gen FROM ix_gen)")" = 0 &&
	test "$(sql "SELECT count(*) FROM ix_blob")" = 12
'

test_expect_success 'what was removed is not found, the rest is' '
	test_expect_code 1 ofl-search -a -q uniqword3x &&
	ofl-search -a -q uniqword20x >hit && test "$(wc -l <hit)" = 1 &&
	ofl-search -a -q -n 40 common >all && test "$(wc -l <all)" = 12
'

test_expect_success 'a scattered removal buries; compaction indexes anew' '
	sql "UPDATE artifact SET created = created - 2592000000,
	    used = used - 2592000000 WHERE seq IN (14, 15, 17, 20, 23)" &&
	ofl-gc --older-than 20d >out &&
	grep "^removed 5 artifacts" out &&
	test "$(sql "SELECT count(*) FROM ix_blob")" = 7 &&
	test "$(sql "SELECT count(*) FROM ix_dead")" -gt 0 &&
	test "$(sql "SELECT count(*) FROM ix_blob b JOIN ix_gen g
	    ON g.gen = b.gen WHERE g.open = 0 AND g.bytes - g.dead < 8192")" = 0 &&
	test_expect_code 1 ofl-search -a -q uniqword19x &&
	ofl-search -a -q -n 40 common >all && test "$(wc -l <all)" = 7 &&
	for i in 12 15 18 21; do
		ofl-search -a -q "uniqword${i}x" >hit &&
		test "$(wc -l <hit)" = 1 || return 1
	done
'

test_expect_success 'the checks find nothing wrong' '
	ofl-gc --check >chk && grep " 0 problems" chk &&
	ofl-index --check
'

test_expect_success 'all removed: every generation goes, a new one opens' '
	ofl-gc --all >out &&
	test "$(sql "SELECT count(*) FROM ix_gen")" = 1 &&
	test "$(sql "SELECT count(*) FROM ix_dead")" = 0 &&
	text 99 | ofl-capture -q -T 0 >/dev/null &&
	ofl-index -q --pending &&
	ofl-search -a -q uniqword99x >hit && test "$(wc -l <hit)" = 1
'

test_expect_success 'a store indexed before generations is taken on' '
	OFL_STORE=$TEST_DIR/one && export OFL_STORE &&
	hits common >before &&
	sql "DROP TABLE ix_gen; DROP TABLE ix_dead;
	    ALTER TABLE ix_blob DROP COLUMN gen" &&
	hits common >after &&
	test_cmp before after &&
	test "$(sql "SELECT gen, open FROM ix_gen")" = "0|1" &&
	sql "UPDATE artifact SET created = created - 2592000000,
	    used = used - 2592000000 WHERE seq <= 20" &&
	ofl-gc --older-than 20d >out &&
	grep "^removed 20 artifacts" out &&
	ofl-search -a -q -n 40 common >all && test "$(wc -l <all)" = 4 &&
	ofl-gc --check >chk && grep " 0 problems" chk
'

test_done
