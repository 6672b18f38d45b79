#!/bin/sh
#
# t2004-concurrent: searches run while other processes capture and index;
# none fails, none sees half an artifact, and the index stays sound.

. "$(dirname "$0")/lib.sh"

ROUNDS=15

test_expect_success 'setup' '
	ofl-capture -q -T 0 <"$DATA/docs/yt-dlp-README.md" >id.md &&
	ofl-index -q "$(sed "s/^ofl://" id.md)"
'

test_expect_success 'search while capturing and indexing' '
	# Writers: new artifacts, each indexed as soon as it is stored.
	(
		i=0
		while [ $i -lt $ROUNDS ]; do
			i=$((i + 1))
			awk -v r=$i "BEGIN { for (n = 1; n <= 3000; n++)
			    printf \"round%d line %d kumquat %d\\n\", r, n, n * r }" |
			    ofl-capture -q -T 0 | ofl-index -q || echo "writer $i: $?"
		done
	) >writer.err 2>&1 &
	w1=$!
	# A slow capture, still being written while searches run.
	( { echo "slow kumquat start"; sleep 3; echo "slow end"; } |
	    ofl-capture -q -T 0 >slow.id ) 2>slow.err &
	w2=$!
	# Readers: the whole store, again and again.
	(
		i=0
		while [ $i -lt $ROUNDS ]; do
			i=$((i + 1))
			ofl-search -a -q thumbnail >/dev/null 2>>reader.log ||
			    echo "thumbnail $i: $?"
			ofl-search -a -q kumquat >/dev/null 2>>reader.log
			rc=$?
			[ $rc -le 1 ] || echo "kumquat $i: $rc"
			ofl-search -a -q >/dev/null 2>>reader.log ||
			    echo "list $i: $?"
		done
	) >reader.err 2>&1 &
	r1=$!
	(
		i=0
		while [ $i -lt $ROUNDS ]; do
			i=$((i + 1))
			ofl-search -a -j "round$i" >/dev/null 2>>reader.log
			rc=$?
			[ $rc -le 1 ] || echo "round $i: $rc"
		done
	) >reader2.err 2>&1 &
	r2=$!
	wait $w1 $w2 $r1 $r2 &&
	cat writer.err reader.err reader2.err slow.err >problems &&
	test_cmp /dev/null problems &&
	touch reader.log && test_cmp /dev/null reader.log
'

test_expect_success 'every artifact is complete and found' '
	n=$(ofl-search -a -q | wc -l) &&
	test "$n" -eq $((ROUNDS + 2)) &&
	i=1 &&
	while [ $i -le $ROUNDS ]; do
		ofl-search -a -q -n 50 "round$i line 2999" >hits || exit 1
		test -s hits || exit 1
		i=$((i + 1))
	done &&
	ofl-search --color=always -a -n 1 "slow kumquat" | marked >hits &&
	grep "^  1: >>slow<< >>kumquat<< start\$" hits
'

test_expect_success 'the index is sound' '
	ofl-index --check >out &&
	echo ok >expect &&
	test_cmp expect out
'

test_done
