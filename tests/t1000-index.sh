#!/bin/sh
#
# t1000-index: ofl-index chunks and indexes artifacts once per content,
# prints their reference lines again, and follows the pipe protocol.

. "$(dirname "$0")/lib.sh"

README=$DATA/docs/yt-dlp-README.md
DIFF=$DATA/diff/gotestsum-v1.10.0..v1.13.0.diff

# capture FILE: store FILE, print its ID.
capture() {
	ofl-capture -q -T 0 <"$1" | sed 's/^ofl://'
}

# rows TABLE: the number of rows of an index table.
rows() {
	store_sql "SELECT count(*) FROM $1"
}

test_expect_success 'setup' '
	capture "$README" >id.md &&
	capture "$DIFF" >id.diff &&
	test -s id.md && test -s id.diff
'

test_expect_success 'an ID: indexed, its reference line printed' '
	id=$(cat id.md) &&
	ofl-index "$id" >out 2>err &&
	test ! -s err &&
	printf "ofl:%s markdown 179 kB 2,501 lines\n" "$id" >expect &&
	test_cmp expect out
'

test_expect_success 'again: nothing to do, the same line' '
	id=$(cat id.md) &&
	ofl-index -v "ofl:$id" >out 2>err &&
	printf "ofl:%s markdown 179 kB 2,501 lines\n" "$id" >expect &&
	test_cmp expect out &&
	printf "ofl-index: ofl:%s: indexed before\n" "$id" >expect &&
	test_cmp expect err
'

test_expect_success sqlite3 'indexing twice gives the same rows' '
	id=$(cat id.diff) &&
	ofl-index -q "$id" &&
	for t in ix_chunk ix_blob ix_fts_docsize ix_fts_data; do
		echo "$t $(rows $t)"
	done >before &&
	ofl-index -q "$id" @ @2 &&
	for t in ix_chunk ix_blob ix_fts_docsize ix_fts_data; do
		echo "$t $(rows $t)"
	done >after &&
	test_cmp before after
'

test_expect_success 'the same content captured again is not indexed again' '
	id=$(capture "$README") &&
	test "$id" != "$(cat id.md)" &&
	ofl-index -v "$id" >/dev/null 2>err &&
	printf "ofl-index: ofl:%s: indexed before\n" "$id" >expect &&
	test_cmp expect err
'

test_expect_success '-f: dropped and made again, same results' '
	id=$(cat id.md) &&
	ofl-search -j "$id" "cookies browser" >before &&
	ofl-index -f -v "$id" >/dev/null 2>err &&
	grep "^ofl-index: ofl:$id: [0-9][0-9]* chunks, " err &&
	ofl-search -j "$id" "cookies browser" >after &&
	test_cmp before after
'

test_expect_success '-f leaves a sound index' '
	id=$(cat id.diff) &&
	ofl-index -f -q "$id" "$(cat id.md)" &&
	ofl-index --check >out &&
	echo ok >expect &&
	test_cmp expect out
'

test_expect_success 'a reference stream on stdin: every ofl: line' '
	a=$(cat id.md) && b=$(cat id.diff) &&
	printf "ofl:%s markdown 179 kB 2,501 lines\nnot a ref\nofl:%s\n" \
	    "$a" "$b" |
	    ofl-index >out &&
	printf "ofl:%s markdown 179 kB 2,501 lines\n" "$a" >expect &&
	printf "ofl:%s diff 348 kB 7,754 lines\n" "$b" >>expect &&
	test_cmp expect out
'

test_expect_success 'a notice on stdin: capture | index | search' '
	ofl-capture -T 0 <"$README" | ofl-index >out &&
	grep "^ofl:[a-z0-9]* markdown 179 kB 2,501 lines\$" out &&
	ofl-capture -T 0 <"$README" | ofl-index | ofl-search thumbnail >hits &&
	grep "^ofl:[a-z0-9]*:[0-9-]*  .*Thumbnail" hits
'

test_expect_success 'raw data on stdin: captured, then indexed' '
	ofl-search -q >before &&
	printf "alpha beta\ngamma delta\n" | ofl-index >out &&
	grep "^ofl:[a-z0-9]* text 23 B 2 lines\$" out &&
	id=$(sed "s/^ofl:\([a-z0-9]*\) .*/\1/" out) &&
	ofl-search -q | head -n 1 >latest &&
	echo "$id" >expect &&
	test_cmp expect latest &&
	ofl-search --color=always "$id" gamma | marked >hits &&
	grep ">>gamma<<" hits
'

test_expect_success 'empty stdin: usage error' '
	test_expect_code 2 ofl-index </dev/null >out 2>err &&
	test ! -s out &&
	grep "^ofl-index: " err
'

test_expect_success 'an unknown ID: exit 3, the others indexed' '
	a=$(cat id.md) &&
	test_expect_code 3 ofl-index zzzzzzzz "$a" >out 2>err &&
	grep "^ofl-index: zzzzzzzz: unknown artifact" err &&
	printf "ofl:%s markdown 179 kB 2,501 lines\n" "$a" >expect &&
	test_cmp expect out
'

test_expect_success 'a malformed ID: exit 2' '
	test_expect_code 2 ofl-index "no/such" >out 2>err &&
	test ! -s out &&
	grep "^ofl-index: " err
'

test_expect_success 'two indexers of one artifact at once' '
	printf "line %d of a log with words\n" $(seq 1 20000) >big.log &&
	id=$(capture big.log) &&
	{ ofl-index -q "$id" & ofl-index -q "$id" & wait; } &&
	ofl-index -v "$id" >/dev/null 2>err &&
	grep "indexed before" err &&
	ofl-search --color=always -n 1 "$id" "line 19999" | marked >hits &&
	grep "^  19999: >>line<< >>19999<< of" hits &&
	ofl-index --check
'

test_expect_success 'a binary artifact indexes to nothing' '
	printf "\000\001\002anything\377\376\000" >bin &&
	id=$(capture bin) &&
	ofl-index "$id" >out &&
	grep "^ofl:$id binary" out &&
	test_expect_code 1 ofl-search "$id" zebra
'

test_expect_success '--rebuild drops the index and makes it again: the same answers' '
	printf "rebuild one says aardvark\n" | ofl-capture -q -T 0 >r1 &&
	printf "rebuild two says bandicoot\n" | ofl-capture -q -T 0 >r2 &&
	ofl-index --pending -q &&
	ofl-search -a bandicoot >before &&
	ofl-index --rebuild >out 2>err &&
	test ! -s err &&
	grep "^[0-9][0-9]* artifacts indexed$" out &&
	n=$(sed "s/ .*//" out) &&
	test "$n" -ge 2 &&
	ofl-search -a bandicoot >after &&
	test_cmp before after &&
	grep "^$(cat r2):1 " after &&
	ofl-index --check >chk &&
	test_expect_code 2 ofl-index --pending --rebuild 2>err &&
	echo "ofl-index: --check, --pending and --rebuild go one at a time" >expect &&
	test_cmp expect err
'

test_expect_success '--check with IDs, -f with --pending: one line, usage error' '
	test_expect_code 2 ofl-index --check @ 2>err &&
	echo "ofl-index: --check works on the whole store: no IDs" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-index -f --pending 2>err &&
	echo "ofl-index: -f goes with IDs, not --pending" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-index -f --check 2>err &&
	echo "ofl-index: -f goes with IDs, not --check" >expect &&
	test_cmp expect err
'

test_expect_success 'a size in the environment that is no size: usage error' '
	ofl-search -a -q >before &&
	test_expect_code 2 env OFL_INDEX_GEN=1x ofl-index --pending 2>err &&
	echo "ofl-index: OFL_INDEX_GEN: 1x: not a size (use 512, 64k, 2M, 1G)" >expect &&
	test_cmp expect err &&
	echo data | test_expect_code 2 env OFL_INDEX_GEN=zz ofl-capture 2>err &&
	echo "ofl-capture: OFL_INDEX_GEN: zz: not a size (use 512, 64k, 2M, 1G)" >expect &&
	test_cmp expect err &&
	test_expect_code 2 env OFL_SEARCH_CAP=abc ofl-search -a data 2>err &&
	echo "ofl-search: OFL_SEARCH_CAP: abc: not a size (use 512, 64k, 2M, 1G)" >expect &&
	test_cmp expect err &&
	test_expect_code 2 env OFL_INDEX_GEN=-1 ofl-gc 2>err &&
	echo "ofl-gc: OFL_INDEX_GEN: -1: not a size (use 512, 64k, 2M, 1G)" >expect &&
	test_cmp expect err &&
	ofl-search -a -q >after &&
	test_cmp before after &&
	env OFL_INDEX_GEN=zz ofl-index --help >out &&
	grep "^usage: ofl-index " out &&
	env OFL_SEARCH_CAP=zz ofl-search --help >out &&
	grep "^usage: ofl-search " out
'

test_expect_success '--help: usage on stdout' '
	ofl-index --help >out &&
	grep "^usage: ofl-index " out
'

test_expect_success 'a bad option: usage on stderr, exit 2' '
	test_expect_code 2 ofl-index --bogus >out 2>err &&
	test ! -s out &&
	grep "^usage: ofl-index " err
'

test_done
