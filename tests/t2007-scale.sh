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

# indexed N: wait (60 s at most) until N contents of $OFL_STORE are indexed.
indexed() {
	_i=0
	until test "$(store_sql \
	    "SELECT count(*) FROM ix_blob WHERE state = 1")" = "$1"; do
		_i=$((_i + 1))
		test $_i -lt 600 || { echo "not indexed after 60 s"; return 1; }
		sleep 0.1
	done
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

# A word in more chunks than the cap: the chunks of the newest contents
# are ranked, each content whole and scored as without the cap, and one
# line on stderr says so and how to reach the rest.
test_expect_success 'a query that matches more than the cap ranks the newest contents' '
	OFL_STORE=$PWD/crowd ofl-search -q -n 100 >listing &&
	oldest=$(tail -n 1 listing) &&
	OFL_STORE=$PWD/crowd OFL_SEARCH_CAP=10 ofl-search -n 100 -q -a \
	    "embed thumbnail" >refs 2>err &&
	echo "ofl-search: the query matches more than 10 chunks: those of the newest contents were ranked (--before AGE for older ones, OFL_SEARCH_CAP=0 for all)" >expect &&
	test_cmp expect err &&
	grep -q "^ofl:$(cat id.crowd):" refs &&
	! grep -q "^ofl:$oldest:" refs &&
	sed "s/:[0-9-]*\$//" refs | sort -u >contents &&
	test "$(wc -l <contents)" -lt 51 &&
	OFL_STORE=$PWD/crowd OFL_SEARCH_CAP=10 ofl-search -n 50 -a \
	    "embed thumbnail" 2>/dev/null | hits "$(cat id.crowd)" >capped &&
	OFL_STORE=$PWD/crowd ofl-search -n 50 -a "embed thumbnail" |
	    hits "$(cat id.crowd)" >all &&
	test -s capped &&
	test_cmp all capped
'

test_expect_success 'no cap, or fewer matches than the cap: every match, no note' '
	OFL_STORE=$PWD/crowd OFL_SEARCH_CAP=0 ofl-search -n 100 -q -a \
	    "embed thumbnail" >refs 2>err &&
	test_cmp /dev/null err &&
	sed "s/:[0-9-]*\$//" refs | sort -u >contents &&
	test "$(wc -l <contents)" -eq 51 &&
	OFL_STORE=$PWD/crowd OFL_SEARCH_CAP=100000 ofl-search -n 100 -q -a \
	    "embed thumbnail" >refs2 2>err &&
	test_cmp /dev/null err &&
	test_cmp refs refs2
'

test_expect_success sqlite3 'the newest contents, wherever a rebuild put them' '
	OFL_STORE=$PWD/crowd OFL_INDEX_GEN=4k ofl-index -q --rebuild &&
	test "$(OFL_STORE=$PWD/crowd store_sql \
	    "SELECT count(*) > 2 FROM ix_gen")" = 1 &&
	oldest=$(tail -n 1 listing) &&
	OFL_STORE=$PWD/crowd OFL_SEARCH_CAP=10 ofl-search -n 100 -q -a \
	    "embed thumbnail" >refs 2>err &&
	test -s err &&
	grep -q "^ofl:$(cat id.crowd):" refs &&
	! grep -q "^ofl:$oldest:" refs
'

test_expect_success sqlite3 'one content past the cap is ranked whole, with no note' '
	OFL_STORE=$PWD/onebig &&
	export OFL_STORE &&
	test_lines "line %d of the one big content: a marmoset here" 1 3000 |
	    capture >id.big &&
	echo "another content, no marmoset" | capture >/dev/null &&
	ofl-index -q $(ofl-search -q -n 10) &&
	test "$(store_sql "SELECT count(*) > 20 FROM ix_chunk")" = 1 &&
	OFL_SEARCH_CAP=5 ofl-search -n 100 -q -a marmoset >refs 2>err &&
	test_cmp /dev/null err &&
	OFL_SEARCH_CAP=0 ofl-search -n 100 -q -a marmoset >all &&
	test_cmp all refs &&
	unset OFL_STORE
'

test_expect_success 'artifacts named are all ranked, however many' '
	OFL_STORE=$PWD/crowd ofl-search -q -n 100 >ids &&
	test "$(wc -l <ids)" -gt 32 &&
	sed "s/^/ofl:/" ids |
	    OFL_STORE=$PWD/crowd OFL_SEARCH_CAP=5 ofl-search -n 100 -q \
	    "embed thumbnail" >refs 2>err &&
	test_cmp /dev/null err &&
	sed "s/:[0-9-]*\$//" refs | sort -u >contents &&
	test "$(wc -l <contents)" -eq 51
'

test_expect_success 'the store: an unindexed artifact is indexed, then found' '
	echo "a new word: zanzibarite" |
	    OFL_STORE=$PWD/crowd capture -l late >id.late &&
	OFL_STORE=$PWD/crowd ofl-search -q -a zanzibarite >refs &&
	grep -q "^ofl:$(cat id.late):" refs
'

test_expect_success sqlite3 'a capture indexes in the background' '
	OFL_STORE=$PWD/bg &&
	export OFL_STORE &&
	awk "BEGIN { for (i = 1; i <= 20000; i++)
	    printf \"line %d of the log, worker %d\\n\", i, i % 7 }" >big &&
	echo "the last line holds a wombatquake" >>big &&
	OFL_INDEX_BG=1 ofl-capture -q <big >ref &&
	id=$(sed "s/^ofl://" ref) &&
	indexed 1 &&
	ofl-search "$id" wombatquake >out 2>err &&
	grep -q "^ofl:$id:20001" out &&
	test ! -s err
'

# busy NAME PID [KEEP]: big captured and indexed in store NAME, then its
# index made to look as if process PID were indexing it now, with its
# first KEEP chunks done (all of them without KEEP).  Sets id and blob.
busy() {
	OFL_STORE=$PWD/$1 &&
	export OFL_STORE &&
	ofl-capture -q <big >ref &&
	id=$(sed "s/^ofl://" ref) &&
	ofl-index -q "$id" &&
	blob=$(store_sql "SELECT blob FROM ix_blob") &&
	if [ -n "$3" ]; then
		store_sql "DELETE FROM ix_chunk
		    WHERE id >= ($blob << 24) + $3"
	fi &&
	store_sql "UPDATE ix_blob SET state = 0, owner = $2,
	    heartbeat = CAST(strftime('%s', 'now') AS INTEGER) * 1000
	    WHERE blob = $blob"
}

# undone PID [SQL]: the index of $blob made to look as if process PID
# were indexing it now and had done nothing yet; then SQL.
undone() {
	store_sql "DELETE FROM ix_chunk
	    WHERE id >= ($blob << 24);
	    UPDATE ix_blob SET state = 0, owner = $1,
	    heartbeat = CAST(strftime('%s', 'now') AS INTEGER) * 1000
	    WHERE blob = $blob; ${2:-}"
}

test_expect_success sqlite3 'output printed in full is indexed in the background too' '
	OFL_STORE=$PWD/small &&
	export OFL_STORE &&
	echo "a small marmotvalley" | OFL_INDEX_BG=1 ofl-capture >out &&
	echo "a small marmotvalley" >expect &&
	test_cmp expect out &&
	indexed 1 &&
	: within the quiet time, the next one is left to the next indexer &&
	echo "another small capture" | OFL_INDEX_BG=1 ofl-capture >/dev/null &&
	sleep 1 &&
	test "$(store_sql "SELECT count(*) FROM ix_blob")" = 1 &&
	: offloaded output always starts one, which drains both &&
	seq 1 20000 | OFL_INDEX_BG=1 ofl-capture -q >/dev/null &&
	indexed 3
'

test_expect_success sqlite3 'setup: a store indexed in the background' '
	OFL_STORE=$PWD/waiting &&
	export OFL_STORE &&
	seq 1 20000 | sed "s/^/first /" | OFL_INDEX_BG=1 ofl-capture -q >/dev/null &&
	indexed 1
'

test_expect_success sqlite3 'no indexer is started while one waits for its turn; it indexes what came' '
	OFL_STORE=$PWD/waiting
	export OFL_STORE
	flock -o "$OFL_STORE/index.wait" sleep 60 &
	pid=$!
	n=0 && while flock -n "$OFL_STORE/index.wait" true; do
		n=$((n + 1)); test $n -lt 100 || break; sleep 0.1
	done &&
	touch -d "2020-01-01 00:00" "$OFL_STORE/index.lock" &&
	seq 1 20000 | sed "s/^/second /" | OFL_INDEX_BG=1 ofl-capture -q >/dev/null &&
	sleep 0.5 &&
	ls -l --time-style=+%Y "$OFL_STORE/index.lock" >stamp;
	kill $pid; wait;
	grep -q " 2020 " stamp &&
	test "$(store_sql "SELECT count(*) FROM ix_blob")" = 1 &&
	: with nobody waiting, the next capture starts one, which finds both &&
	seq 1 20000 | sed "s/^/third /" | OFL_INDEX_BG=1 ofl-capture -q >/dev/null &&
	indexed 3
'

test_expect_success sqlite3 'a search during indexing: the index, then a scan' '
	sleep 60 &
	pid=$!
	: the sleeper plays an indexer that has done two chunks &&
	busy busy $pid 2 &&
	OFL_INDEX_BG=1 ofl-search "$id" wombatquake >out 2>err;
	rc=$?;
	kill $pid;
	test $rc -eq 0 &&
	grep -q "^ofl:$id:20001  (substring)" out &&
	grep -q "^ofl-search: ofl:$id: being indexed ([0-9]*%): lines from [0-9]* on were scanned, not ranked$" err
'

test_expect_success sqlite3 'a small artifact whose indexer ends soon: the index, no scan' '
	sleep 60 &
	pid=$!
	: the sleeper plays an indexer that is done half a second later &&
	busy soon $pid &&
	touch busy-set
	(sleep 0.5; store_sql "UPDATE ix_blob SET
	    state = 1, owner = NULL WHERE blob = $blob") &
	test -f busy-set &&
	OFL_INDEX_BG=1 ofl-search "$id" wombatquake >out 2>err;
	rc=$?;
	kill $pid;
	wait;
	test $rc -eq 0 &&
	grep -q "^ofl:$id:20001" out &&
	! grep -q "(substring)" out &&
	test ! -s err
'

test_expect_success sqlite3 'a scan during indexing reads past a line longer than its buffer' '
	OFL_STORE=$PWD/long &&
	export OFL_STORE &&
	{
		echo "the first line" &&
		awk "BEGIN { for (i = 0; i < 300000; i++) printf \"filler%04d \", i % 10000
		    print \"zebrawhistle\" }" &&
		echo "after the long line, a quillharbour"
	} >longline &&
	ofl-capture -q <longline >ref &&
	id=$(sed "s/^ofl://" ref) &&
	ofl-index -q "$id" &&
	blob=$(store_sql "SELECT blob FROM ix_blob") ||
	exit 1
	sleep 60 &
	pid=$!
	: the sleeper plays an indexer that has done nothing yet &&
	undone $pid &&
	OFL_INDEX_BG=1 ofl-search "$id" zebrawhistle >out1 2>err1;
	rc1=$?;
	OFL_INDEX_BG=1 ofl-search "$id" quillharbour >out2 2>err2;
	rc2=$?;
	kill $pid;
	test $rc1 -eq 0 && test $rc2 -eq 0 &&
	grep -q "^ofl:$id:2  (substring)" out1 &&
	grep -q "^ofl:$id:3  (substring)" out2 &&
	grep -q "^  3: after the long line, a quillharbour$" out2
'

# The frames of a large capture past the first 4 are sketched; a search
# that comes before the index reads only the frames that may hold a term.
test_expect_success sqlite3 'a search before the index: the frames whose sketch may hold a term, the same lines as reading all' '
	OFL_STORE=$PWD/sketch &&
	export OFL_STORE &&
	awk "BEGIN { for (i = 1; i <= 300000; i++) {
	    if (i == 3 || i == 150001 || i == 299999)
		printf \"line %d: the ZebraFault happened here\\n\", i
	    else if (i == 240000)
		printf \"line %d: quillharbour and wombat%06d\\n\", i, i
	    else
		printf \"line %d of the log, worker %d, padding padding\\n\", i, i % 7 } }" >frames &&
	OFL_INDEX_BG=0 ofl-capture -q <frames >ref &&
	id=$(sed "s/^ofl://" ref) &&
	ofl-extract "$id" -n 1-300000 -m 0 | cut -f2- >back &&
	test_cmp frames back &&
	n=$(store_sql "SELECT count(*) FROM frame_sketch") &&
	test "$n" -gt 0 &&
	store_sql "CREATE TABLE keep AS SELECT * FROM frame_sketch" &&
	ofl-index -q "$id" &&
	test "$(store_sql "SELECT count(*) FROM frame_sketch")" = 0 &&
	blob=$(store_sql "SELECT blob FROM ix_blob") ||
	exit 1
	sleep 60 &
	pid=$!
	: the sleeper plays an indexer that has done nothing yet &&
	undone $pid "INSERT INTO frame_sketch SELECT * FROM keep" &&
	for q in zebrafault quillharbour wombat240000 "padding zebrafault"; do
		OFL_INDEX_BG=1 ofl-search -q "$id" "$q" >>sketched 2>>err || return 1
	done &&
	store_sql "DELETE FROM frame_sketch" &&
	for q in zebrafault quillharbour wombat240000 "padding zebrafault"; do
		OFL_INDEX_BG=1 ofl-search -q "$id" "$q" >>whole 2>>err || return 1
	done;
	rc=$?;
	kill $pid;
	test $rc -eq 0 &&
	test_cmp whole sketched &&
	printf "ofl:$id:%s\n" 3 150001 299999 240000 240000 >expect &&
	head -n 5 sketched >first &&
	test_cmp expect first
'

test_expect_success sqlite3 'a cut content file: --repair keeps the sketches of the frames kept, no others' '
	OFL_STORE=$PWD/cut &&
	export OFL_STORE &&
	OFL_INDEX_BG=0 ofl-capture -q <frames >ref &&
	id=$(sed "s/^ofl:\([0-9a-z]*\).*/\1/" ref) &&
	total=$(store_sql "SELECT count(*) FROM frame_sketch") &&
	test "$total" -gt 2 &&
	cut=$(store_sql "SELECT max(comp_off) FROM frame WHERE raw_off IN
	    (SELECT raw_off FROM frame_sketch)") &&
	truncate -s "$cut" "$OFL_STORE/blobs/$(echo "$id" | cut -c1-2)/$id" &&
	ofl-gc --repair >rep &&
	grep "ofl:$id" rep &&
	left=$(store_sql "SELECT count(*) FROM frame_sketch") &&
	test "$left" -gt 0 && test "$left" -lt "$total" &&
	test "$(store_sql "SELECT count(*) FROM frame_sketch k WHERE NOT
	    EXISTS (SELECT 1 FROM frame f WHERE f.blob = k.blob AND
	    f.raw_off = k.raw_off)")" = 0 &&
	ofl-gc --check >chk && grep " 0 problems" chk &&
	OFL_INDEX_BG=1 ofl-search -q "$id" zebrafault >hits &&
	printf "ofl:$id:%s\n" 3 150001 >expect &&
	test_cmp expect hits
'

test_expect_success sqlite3 'a large capture whose indexer has not started: scanned, not indexed by the search' '
	OFL_STORE=$PWD/late &&
	export OFL_STORE &&
	OFL_INDEX_BG=0 ofl-capture -q <frames >ref &&
	id=$(sed "s/^ofl://" ref) &&
	OFL_INDEX_BG=1 ofl-search -q "$id" quillharbour >out 2>err &&
	echo "ofl:$id:240000" >expect &&
	test_cmp expect out &&
	grep -q "^ofl-search: ofl:$id: being indexed (0%): lines from 1 on were scanned, not ranked$" err &&
	test "$(store_sql "SELECT count(*) FROM ix_blob")" = 0
'

test_done
