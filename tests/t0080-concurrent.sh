#!/bin/sh
# Concurrent captures into one store: all succeed and read back
# byte-identical, identical content included (deduplicated in a race).
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

test_expect_success 'setup: eight inputs, two of them identical' '
	i=1 &&
	while [ $i -le 6 ]; do
		seq -f "capture $i line %g" 1 $((30000 * i)) >in$i &&
		i=$((i + 1))
	done &&
	head -c 2500000 /dev/urandom >in7 &&
	cp in7 in8
'

test_expect_success '8 concurrent captures from stdin all succeed' '
	i=1 &&
	while [ $i -le 8 ]; do
		{ ofl-capture -q -T 0 <in$i >id$i 2>err$i; echo $? >rc$i; } &
		i=$((i + 1))
	done &&
	wait &&
	i=1 &&
	while [ $i -le 8 ]; do
		test "$(cat rc$i)" -eq 0 || { echo "capture $i: rc $(cat rc$i)"; cat err$i; exit 1; }
		test ! -s err$i || { cat err$i; exit 1; }
		grep -x "ofl:[0-9a-z]\{8\}" id$i || exit 1
		i=$((i + 1))
	done &&
	test "$(cat id1 id2 id3 id4 id5 id6 id7 id8 | sort -u | wc -l)" -eq 8
'

test_expect_success 'and all read back byte-identical' '
	i=1 &&
	while [ $i -le 8 ]; do
		ofl-extract "$(sed "s/^ofl://" id$i)" >back$i &&
		cmp in$i back$i || exit 1
		i=$((i + 1))
	done
'

test_expect_success '8 concurrent -- captures with exit statuses' '
	i=1 &&
	while [ $i -le 8 ]; do
		{ ofl-capture -j -T 0 -- sh -c "cat in$i; exit $i" >j$i 2>err$i;
		  echo $? >rc$i; } &
		i=$((i + 1))
	done &&
	wait &&
	i=1 &&
	while [ $i -le 8 ]; do
		test "$(cat rc$i)" -eq $i || { echo "capture $i: rc $(cat rc$i)"; cat err$i; exit 1; }
		grep "\"exit\":$i," j$i || exit 1
		id=$(sed -n "s/^{\"id\":\"\([0-9a-z]*\)\".*/\1/p" j$i) &&
		ofl-extract "$id" >back$i &&
		cmp in$i back$i || exit 1
		i=$((i + 1))
	done
'

test_expect_success '16 artifacts listed, none left writing' '
	ofl_listing >list &&
	test "$(wc -l <list)" -eq 16 &&
	test "$(cut -f 7 list | sort -u)" = "-"
'

test_expect_success sqlite3,STOREDIR 'the store is consistent' '
	sqlite3 "$OFL_STORE/ofl.db" "PRAGMA integrity_check" >check &&
	echo ok >expect && test_cmp expect check
'

test_expect_success sqlite3,STOREDIR 'identical content is stored once' '
	n=$(sqlite3 "$OFL_STORE/ofl.db" "SELECT count(DISTINCT blob) FROM artifact") &&
	test "$n" -eq 7 &&
	test "$(find "$OFL_STORE/blobs" -type f | wc -l)" -eq 7
'

test_expect_success 'captures while another reads' '
	ofl-extract "$(sed "s/^ofl://" id6)" >/dev/null &
	seq 1 50000 | ofl-capture -q -T 0 >idr &&
	wait &&
	ofl-extract "$(sed "s/^ofl://" idr)" >back &&
	seq 1 50000 >expect && cmp expect back
'

test_done
