#!/bin/sh
#
# t2010-phrase: queries that need the places of words.  The index keeps,
# for each word, the chunks it is in but not where in them nor in which
# column (FTS5's detail=none, about a third of the bytes); a phrase,
# "a + b", NEAR, "^" and a column filter run on it relaxed and are
# checked on the text of the chunks found, so they find what they found
# when the index kept places, and no more.

. "$(dirname "$0")/lib.sh"

capture() {
	ofl-capture -q -T 0 <"$1" | sed 's/^ofl://'
}

# hits QUERY...: the IDs of the hits of ofl-search, sorted, as letters.
hits() {
	ofl-search -q -a -n 50 "$@" >raw
	rc=$?
	sed 's/^ofl:\([^:]*\).*/\1/' raw | while read -r i; do
		for n in adj rev far; do
			[ "$i" = "$(cat id.$n)" ] && echo $n
		done
	done | sort -u | tr '\n' ' '
	return $rc
}

# gens [NOT] DETAIL: how many generations of the index are (not) made
# with detail=DETAIL.
gens() {
	not=
	[ "$1" = NOT ] && { not=NOT; shift; }
	store_sql "SELECT count(*) FROM ix.sqlite_master WHERE name GLOB
	    'ix_fts*' AND type = 'table' AND sql LIKE '%fts5(%' AND
	    sql $not LIKE '%detail=$1%'"
}

test_expect_success 'setup: the same words, next to each other or not' '
	echo "the alpha beta gamma" >adj.txt &&
	echo "beta something alpha gamma" >rev.txt &&
	echo "alpha one two three four beta gamma" >far.txt &&
	for n in adj rev far; do
		capture $n.txt >id.$n || return 1
	done &&
	ofl-index -q $(cat id.adj id.rev id.far)
'

test_expect_success STOREDIR 'the index keeps no places of words, nor columns' '
	test "$(gens none)" -ge 1 &&
	test "$(gens NOT none)" = 0
'

test_expect_success 'words: every content that has them' '
	test "$(hits "alpha beta")" = "adj far rev "
'

test_expect_success 'a phrase: only where its words follow each other' '
	test "$(hits "\"alpha beta\"")" = "adj " &&
	test "$(hits "\"beta something alpha\"")" = "rev " &&
	test "$(hits "\"beta gamma\"")" = "adj far "
'

test_expect_success 'a phrase nowhere: exit 1, nothing printed' '
	test_expect_code 1 ofl-search -a "\"gamma alpha\"" >out &&
	test ! -s out
'

test_expect_success 'a phrase of identifier parts and a prefix phrase (--fts)' '
	test "$(hits --fts "\"alpha be\" *")" = "adj " &&
	test "$(hits --fts "alpha + beta")" = "adj "
'

test_expect_success 'NEAR, by the distance it gives (--fts)' '
	test "$(hits --fts "NEAR(alpha gamma, 0)")" = "rev " &&
	test "$(hits --fts "NEAR(alpha gamma, 1)")" = "adj rev " &&
	test "$(hits --fts "NEAR(alpha beta, 4)")" = "adj far rev "
'

test_expect_success '"^": the first word of a column (--fts)' '
	test "$(hits --fts "^beta")" = "rev " &&
	test "$(hits --fts "^alpha")" = "far "
'

test_expect_success 'NOT a phrase keeps what holds its words apart (--fts)' '
	test "$(hits --fts "gamma NOT \"alpha beta\"")" = "far rev " &&
	test "$(hits --fts "(alpha OR beta) NOT \"beta gamma\"")" = "rev "
'

test_expect_success 'a bad NEAR is a usage error, as before, found or not' '
	test_expect_code 2 ofl-search -a --fts "NEAR(\"alpha\" \"beta\"" \
	    2>err &&
	grep "^ofl-search: --fts .NEAR(.*: fts5: syntax error" err &&
	test_expect_code 2 ofl-search -a --fts "NEAR(zzyzx beta" 2>err &&
	grep "^ofl-search: --fts .NEAR(.*: fts5: syntax error" err
'

# A traceback's headline is its chunk's title, and in its body too.
test_expect_success 'a column filter: the words of that column only (--fts)' '
	printf "%s\n" "2026-01-01 start worker" \
	    "Traceback (most recent call last):" \
	    "  File \"x.py\", line 1, in <module>" \
	    "ValueError: bad quokka input" "2026-01-01 stop worker" >tb.log &&
	capture tb.log >id.tb &&
	ofl-index -q $(cat id.tb) &&
	for q in "title:quokka" "body:worker" "{title}: quokka" \
	    "-title:worker" "- {title} : quokka" "title:(quokka OR worker)" \
	    "quokka NOT title:worker"; do
		ofl-search -q -a --fts "$q" >out &&
		test "$(sed -n "s/^ofl:\([^:]*\):.*/\1/p" out)" = \
		    "$(cat id.tb)" || { echo "failed: $q"; return 1; }
	done &&
	for q in "title:worker" "{title}: start" "worker NOT title:quokka"; do
		test_expect_code 1 ofl-search -q -a --fts "$q" >out &&
		test ! -s out || { echo "failed: $q"; return 1; }
	done
'

# Every row holds one word, one late row the other too: the index tells
# which rows hold each word, so that row is among the best of the first
# ranking and is ranked again on its text, not only the first rows.
test_expect_success 'the row that holds the rarer word too comes first' '
	awk "BEGIN { for (i = 1; i <= 6000; i++) printf \"blue row %d\n\", i
	    print \"red and blue together\"
	    for (i = 1; i <= 3000; i++) printf \"blue row %d\n\", i }" \
	    >rb.txt &&
	capture rb.txt >id.rb &&
	ofl-index -q $(cat id.rb) &&
	ofl-search -n 1 "$(cat id.rb)" --fts "red OR blue" >out &&
	grep -F "6001: red and blue together" out &&
	ofl-search -n 1 -a --fts "blue OR red" >out &&
	grep -F "6001: red and blue together" out
'

# Many chunks hold both words apart, one late chunk holds the phrase: the
# relaxed query finds more rows than a search keeps, and is asked again.
test_expect_success 'the phrase in the last of many chunks that hold its words' '
	awk "BEGIN { for (i = 1; i <= 4000; i++)
	    printf \"delta row %d epsilon\n\", i
	    print \"the delta epsilon together\" }" >many.txt &&
	capture many.txt >id.many &&
	ofl-index -q $(cat id.many) &&
	ofl-search -n 1 "$(cat id.many)" "\"delta epsilon\"" >out &&
	grep -F "4001: the delta epsilon together" out &&
	test "$(grep -c "^ofl:" out)" = 1
'

# A store indexed by the ofl before this one keeps columns in its
# generations (OFL_INDEX_DETAIL=column makes them so); new ones keep
# rows alone.  A search asks each in its own way and merges the hits.
test_expect_success STOREDIR 'generations with columns and without, searched together' '
	echo "mixone mixed words here mixtwo" >mixa.txt &&
	echo "mixed other words mixone mixtwo" >mixb.txt &&
	printf "%s\n" "2026-01-01 mixone start" \
	    "Traceback (most recent call last):" \
	    "ValueError: mixtitle failed" >mixc.log &&
	capture mixa.txt >id.mixa &&
	capture mixb.txt >id.mixb &&
	capture mixc.log >id.mixc &&
	OFL_INDEX_GEN=1 OFL_INDEX_DETAIL=column ofl-index -q \
	    $(cat id.mixa id.mixc) &&
	OFL_INDEX_GEN=1 ofl-index -q $(cat id.mixb) &&
	test "$(gens column)" -ge 1 &&
	test "$(gens none)" -ge 2 &&
	mixhits() {
		ofl-search -q -a -n 50 "$@" |
		    sed -n "s/^ofl:\([^:]*\).*/\1/p" | sort -u | tr "\n" " "
	} &&
	sorted() { printf "%s\n" "$@" | sort | tr "\n" " "; } &&
	test "$(mixhits mixtwo)" = "$(sorted $(cat id.mixa id.mixb))" &&
	test "$(mixhits mixone)" = \
	    "$(sorted $(cat id.mixa id.mixb id.mixc))" &&
	test "$(mixhits "\"mixed words\"")" = "$(sorted $(cat id.mixa))" &&
	test "$(mixhits --fts "mixone + mixtwo")" = "$(sorted $(cat id.mixb))" &&
	test "$(mixhits --fts "title:mixtitle")" = "$(sorted $(cat id.mixc))" &&
	test "$(mixhits --fts "mixone NOT title:mixtitle")" = \
	    "$(sorted $(cat id.mixa id.mixb))"
'

# A generation of rows alone keeps no size per row (columnsize=0), so
# its rows are counted from FTS5's own count less the buried ones; one
# made with columns keeps sizes and is counted row by row.  Either way
# the checks find every row's chunk, after removals as before them,
# and a chunk row lost is a problem found.  A store of the ofl before
# this one, whose tombstones have no count of rows, gets the column.
test_expect_success STOREDIR 'generations with row sizes and without: the checks count both' '
	test "$(store_sql "SELECT count(*) FROM ix.sqlite_master WHERE
	    name GLOB '\''ix_fts*_docsize'\''")" = "$(gens column)" &&
	ofl-index --check >chk &&
	ofl-gc --check >chk && grep " 0 problems" chk &&
	echo "countone words" >cnt1.txt && capture cnt1.txt >id.cnt1 &&
	echo "counttwo words" >cnt2.txt && capture cnt2.txt >id.cnt2 &&
	ofl-index -q $(cat id.cnt1 id.cnt2) &&
	store_sql "ALTER TABLE ix_dead DROP COLUMN rows" &&
	ofl-gc --purge "$(cat id.cnt1)" --purge "$(cat id.mixa)" >out &&
	test "$(store_sql "SELECT count(*) FROM ix_dead WHERE rows = 1")" = 1 &&
	ofl-index --check >chk &&
	ofl-gc --check >chk && grep " 0 problems" chk &&
	for n in mixc cnt2; do
		store_sql "DELETE FROM ix_chunk WHERE id >> 24 = (SELECT blob
		    FROM artifact WHERE id = '\''$(cat id.$n)'\'')" || return 1
	done &&
	test_expect_code 3 ofl-index --check 2>chk &&
	grep "^chunks: [0-9]*, rows of the full-text index: [0-9]*$" chk &&
	test_expect_code 3 ofl-gc --check >chk &&
	grep "index: 2 full-text rows of no chunk" chk
'

test_done
