#!/bin/sh
#
# t2007-scale: a search of the store is one query over the index, ranked
# with each artifact's own statistics: the same query on the same
# artifact ranks the same whatever else the store holds, and a chunk
# scores the same in the whole store as in its artifact alone.

. "$(dirname "$0")/lib.sh"

capture() {
	ofl-capture -q -T 0 "$@" | sed 's/^ofl://'
}

# The hits' first lines and scores, of artifact $1 (merged ranges may
# end elsewhere: the store's query brings fewer rows of each artifact).
hits() {
	sed -n "s/^ofl:$1:\([0-9]*\)-[0-9]* .*(\([0-9.]*\))\$/\1 \2/p"
}

test_expect_success 'setup: one artifact alone, and among 50 others' '
	OFL_STORE=$PWD/alone capture <"$DATA/docs/yt-dlp-README.md" >id.alone &&
	OFL_STORE=$PWD/alone ofl-index -q "$(cat id.alone)" &&
	i=0 &&
	while [ $i -lt 50 ]; do
		{
			echo "neighbour $i"
			j=0
			while [ $j -lt $((i % 7 + 1)) ]; do
				echo "embed the thumbnail $i.$j with format $j"
				echo "other words here, video $i audio $j"
				j=$((j + 1))
			done
		} | OFL_STORE=$PWD/crowd capture -l crowd >/dev/null || exit 1
		i=$((i + 1))
	done &&
	OFL_STORE=$PWD/crowd capture <"$DATA/docs/yt-dlp-README.md" >id.crowd &&
	OFL_STORE=$PWD/crowd ofl-index -q $(OFL_STORE=$PWD/crowd ofl-search -q -n 100)
'

test_expect_success 'the same artifact ranks the same, whatever else is stored' '
	OFL_STORE=$PWD/alone ofl-search "$(cat id.alone)" "embed thumbnail" \
	    >a.raw &&
	OFL_STORE=$PWD/crowd ofl-search "$(cat id.crowd)" "embed thumbnail" \
	    >c.raw &&
	sed "s/$(cat id.alone)/ID/g" a.raw >a &&
	sed "s/$(cat id.crowd)/ID/g" c.raw >c &&
	test -s a &&
	test_cmp a c &&
	OFL_STORE=$PWD/alone ofl-search -j "$(cat id.alone)" "video format" \
	    >a.raw &&
	OFL_STORE=$PWD/crowd ofl-search -j "$(cat id.crowd)" "video format" \
	    >c.raw &&
	sed "s/$(cat id.alone)/ID/g" a.raw >a &&
	sed "s/$(cat id.crowd)/ID/g" c.raw >c &&
	test_cmp a c
'

test_expect_success 'a chunk scores the same in the whole store as alone' '
	OFL_STORE=$PWD/crowd ofl-search -n 50 -a "embed thumbnail" >all &&
	hits "$(cat id.crowd)" <all >all.id &&
	test -s all.id &&
	OFL_STORE=$PWD/crowd ofl-search -n 50 "$(cat id.crowd)" \
	    "embed thumbnail" | hits "$(cat id.crowd)" >one &&
	while read -r line; do
		grep -qxF "$line" one || { echo "not alone: $line"; exit 1; }
	done <all.id
'

test_expect_success 'a filter is part of the one query: only the crowd' '
	OFL_STORE=$PWD/crowd ofl-search -n 100 -l crowd -q "embed thumbnail" \
	    >refs &&
	test "$(wc -l <refs)" -eq 50 &&
	! grep "$(cat id.crowd)" refs &&
	OFL_STORE=$PWD/crowd ofl-search -n 100 -q -a "embed thumbnail" >refs &&
	grep -q "$(cat id.crowd)" refs
'

test_expect_success 'the store: an unindexed artifact is indexed, then found' '
	echo "a new word: zanzibarite" |
	    OFL_STORE=$PWD/crowd capture -l late >id.late &&
	OFL_STORE=$PWD/crowd ofl-search -q -a zanzibarite >refs &&
	grep -q "^ofl:$(cat id.late):" refs
'

test_done
