#!/bin/sh
# ofl-gc: expiry, budget, purges, locking, check and repair, stats.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
. "$OFL_SRCDIR/tests/gc-lib.sh"

test_expect_success 'setup: three artifacts of random data' '
	head -c 300000 /dev/urandom >r1 &&
	head -c 300000 /dev/urandom >r2 &&
	head -c 300000 /dev/urandom >r3 &&
	ofl-gc --set auto-gc=off &&
	id1=$(cap r1) && id2=$(cap r2) && id3=$(cap r3) &&
	echo "$id1 $id2 $id3" >ids &&
	test "$(count)" = 3
'
read id1 id2 id3 <ids 2>/dev/null

test_expect_success 'dry run removes nothing and says what would go' '
	ofl-gc -n --all >out &&
	grep "^would remove 3 artifacts" out &&
	test "$(count)" = 3
'

test_expect_success '--purge removes one artifact; the others read back' '
	ofl-gc --purge "$id2" >out &&
	grep "^removed 1 artifact " out &&
	test_expect_code 3 ofl-extract "$id2" >/dev/null 2>err &&
	grep "unknown artifact" err &&
	ofl-extract "$id1" >back1 && cmp back1 r1 &&
	ofl-extract "$id3" >back3 && cmp back3 r3
'

test_expect_success 'a purge reference that is a usage error removes nothing' '
	n=$(count) &&
	test_expect_code 2 ofl-gc --purge @ --purge @0 >out 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep "@0: not an artifact reference" err &&
	test ! -s out &&
	test "$(count)" = "$n" &&
	test_expect_code 2 ofl-gc --all --purge @0 >out 2>err &&
	test "$(count)" = "$n" &&
	ofl-extract "$id1" >back1 && cmp back1 r1
'

test_expect_success 'a purge of an ID that is gone: said, the rest done, status 3' '
	x=$(printf "gone soon\n" | ofl-capture -q -T 0 | sed "s/^ofl://") &&
	y=$(printf "another\n" | ofl-capture -q -T 0 | sed "s/^ofl://") &&
	ofl-gc --purge "$x" >/dev/null &&
	test_expect_code 3 ofl-gc --purge "$x" --purge "$y" >out 2>err &&
	grep "$x" err &&
	grep "^removed 1 artifact " out &&
	test_expect_code 3 ofl-extract "$y" >/dev/null 2>&1
'

test_expect_success 'shared content survives the purge of one of its artifacts' '
	a=$(cap r1 -l twin) &&
	ofl-gc --purge "$id1" >/dev/null &&
	ofl-extract "$a" >back && cmp back r1 &&
	echo "$a" >twin
'

test_expect_success 'the size budget removes the least recently used first' '
	b=$(cap r2) && c=$(cap r1 -l fresh) &&
	sleep 1 &&
	ofl-extract "$b" >/dev/null &&
	ofl-gc --max-size 700k --grace 0 -v >out &&
	grep "budget" out &&
	ofl-extract "$b" >back && cmp back r2 &&
	test "$(count)" -le 3
'

test_expect_success 'TTL expiry' '
	d=$(cap r3 --ttl 1s -l short) &&
	sleep 2 &&
	ofl-gc -v --max-size 1G >out &&
	grep "ofl:$d	expired" out &&
	test_expect_code 3 ofl-extract "$d" >/dev/null 2>&1
'

test_expect_success '--label and --session purge' '
	printf "one\n" | ofl-capture -q -T 0 -l L1 >/dev/null &&
	printf "two\n" | ofl-capture -q -T 0 -S S1 >/dev/null &&
	ofl-gc --label L1 --max-size 1G >out && grep "^removed 1 " out &&
	ofl-gc --session S1 --max-size 1G >out && grep "^removed 1 " out &&
	test_expect_code 1 ofl-search -l L1 >/dev/null
'

test_expect_success STOREDIR 'a second gc does not run while one holds the lock' '
	if ! command -v flock >/dev/null; then exit 0; fi
	(flock "$OFL_STORE/gc.lock" sleep 3 &) &&
	sleep 0.5 &&
	ofl-gc --all >out 2>err &&
	grep "another gc is running" err &&
	test ! -s out
'

test_expect_success 'an artifact being written is never removed' '
	ofl-gc --wait -n >/dev/null &&
	(printf "partial\n"; sleep 2; printf "rest\n") |
	    ofl-capture -q -T 0 >slow.out &
	sleep 1 &&
	ofl-gc --all --wait >/dev/null &&
	wait &&
	id=$(sed -n "s/^ofl:\([0-9a-z]*\).*/\1/p" slow.out) &&
	ofl-extract "$id" >back &&
	printf "partial\nrest\n" >expect &&
	test_cmp expect back
'

test_expect_success STOREDIR '--check is clean on a healthy store' '
	ofl-gc --check >out &&
	grep ": 0 problems" out
'

test_expect_success STOREDIR '--check finds a missing content file; --repair makes it clean' '
	id=$(cap r1 -l victim) &&
	file=$(sqlite3 "$OFL_STORE/ofl.db" "SELECT b.file FROM blob b JOIN artifact a ON a.blob = b.id WHERE a.id = '\''$id'\''") &&
	rm "$OFL_STORE/blobs/$file" &&
	test_expect_code 3 ofl-gc --check >out &&
	grep "ofl:$id: content missing" out &&
	test_expect_code 3 ofl-extract "$id" >/dev/null 2>err &&
	grep "content missing" err &&
	ofl-gc --repair >out &&
	grep "ofl:$id: content missing.*(artifact removed)" out &&
	ofl-gc --check >out &&
	grep ": 0 problems" out &&
	test_expect_code 3 ofl-extract "$id" >/dev/null 2>err &&
	grep "unknown artifact" err
'

# Never searched, a store has no index: neither --check nor a --repair
# that drops an artifact's index rows makes one.
test_expect_success sqlite3,STOREDIR '--check and --repair on a store never indexed make no index' '
	store=$TEST_DIR/noix &&
	seq 1 50000 | OFL_STORE=$store ofl-capture -q -T 0 >id1 &&
	seq 2 50000 | OFL_STORE=$store ofl-capture -q -T 0 >id2 &&
	seq 1 200000 | OFL_STORE=$store ofl-capture -q -T 0 >id3 &&
	test ! -e "$store/ofl-ix.db" &&
	id=$(sed "s/^ofl://" id1) &&
	file=$(sqlite3 "$store/ofl.db" "SELECT b.file FROM blob b JOIN artifact a ON a.blob = b.id WHERE a.id = '\''$id'\''") &&
	rm "$store/blobs/$file" &&
	id3=$(sed "s/^ofl://" id3) &&
	file=$(sqlite3 "$store/ofl.db" "SELECT b.file FROM blob b JOIN artifact a ON a.blob = b.id WHERE a.id = '\''$id3'\''") &&
	truncate -s 250000 "$store/blobs/$file" &&
	OFL_STORE=$store test_expect_code 3 ofl-gc --check >out &&
	grep "ofl:$id: content missing" out &&
	grep "ofl:$id3: content truncated" out &&
	OFL_STORE=$store ofl-gc --repair >out &&
	grep "ofl:$id: content missing.*(artifact removed)" out &&
	grep "ofl:$id3: content truncated.*(kept the readable part" out &&
	OFL_STORE=$store ofl-gc --check >out &&
	grep ": 0 problems" out &&
	test ! -e "$store/ofl-ix.db" &&
	seq 2 50000 >expect &&
	OFL_STORE=$store ofl-extract "$(sed "s/^ofl://" id2)" >back &&
	test_cmp expect back
'

test_expect_success STOREDIR '--repair removes orphan files; then --check is clean' '
	mkdir -p "$OFL_STORE/blobs/zz" &&
	echo junk >"$OFL_STORE/blobs/zz/zz234567" &&
	touch -d "2 hours ago" "$OFL_STORE/blobs/zz/zz234567" &&
	ofl-gc --repair >out &&
	grep "blobs/zz/zz234567: file of no content row (removed)" out &&
	test ! -e "$OFL_STORE/blobs/zz/zz234567"
'

# half_removed ID: what a gc killed between its commit of ofl.db and its
# commit of ofl-ix.db leaves: the artifact and its content gone, its
# index rows kept.
half_removed() {
	_b=$(store_sql "SELECT blob FROM artifact WHERE id = '$1'") &&
	_f=$(store_sql "SELECT file FROM blob WHERE id = $_b") &&
	store_sql "BEGIN; DELETE FROM artifact WHERE blob = $_b;
	    DELETE FROM frame WHERE blob = $_b;
	    DELETE FROM log_tmpl WHERE blob = $_b;
	    DELETE FROM blob WHERE id = $_b; COMMIT" &&
	rm "$OFL_STORE/blobs/$_f"
}

test_expect_success STOREDIR 'index rows an interrupted gc left: said, no problem; the next gc removes them' '
	keep=$(test_lines "kept %d quinceword" 1 300 | ofl-capture -q -T 0) &&
	gone=$(test_lines "gone %d medlarword" 1 300 | ofl-capture -q -T 0) &&
	ofl-index -q "${keep#ofl:}" "${gone#ofl:}" &&
	half_removed "${gone#ofl:}" &&
	ofl-gc --check >out &&
	grep -x "index: 1 indexed content of no artifact, left by an interrupted gc (the next gc removes it)" out &&
	grep ": 0 problems$" out &&
	ofl-gc --check -j >out &&
	grep "^{\"note\":\"index: 1 indexed content of no artifact" out &&
	! grep "\"problem\":\"" out &&
	test_expect_code 1 ofl-search -a medlarword >out &&
	! grep medlarword out &&
	n=$(store_sql "SELECT count(*) FROM ix_blob") &&
	ofl-gc --wait >/dev/null &&
	ofl-gc --check >out &&
	! grep "no artifact" out &&
	test "$(store_sql "SELECT count(*) FROM ix_blob")" = $((n - 1)) &&
	ofl-search -a quinceword >out &&
	grep -q "kept 1 quinceword" out
'

test_expect_success STOREDIR '--repair removes them, and keeps the rest of the index' '
	gone=$(test_lines "gone %d loquatword" 1 300 | ofl-capture -q -T 0) &&
	ofl-index -q "${gone#ofl:}" &&
	n=$(store_sql "SELECT count(*) FROM ix_blob") &&
	half_removed "${gone#ofl:}" &&
	ofl-gc --repair >out &&
	grep -x "index: 1 indexed content of no artifact, left by an interrupted gc (removed)" out &&
	grep ": 0 problems$" out &&
	test "$(store_sql "SELECT count(*) FROM ix_blob")" = $((n - 1)) &&
	ofl-gc --check >out &&
	! grep "no artifact" out
'

test_expect_success '--stats reports bytes kept out, by day and label' '
	seq 1 20000 | ofl-capture >/dev/null &&
	ofl-gc --stats >out &&
	head -n 1 out | grep "kept out" &&
	grep "^day " out && grep "^label " out
'

test_expect_success JQ '--json output is JSON Lines' '
	ofl-gc --stats -j | jq -e .artifacts >/dev/null &&
	ofl-gc -n --all -j | tail -n 1 | jq -e ".dry_run == true" >/dev/null
'

test_expect_success 'settings: set, show, reject bad ones' '
	ofl-gc --set ttl=3d --set max-size=500M &&
	ofl-gc --settings >out &&
	grep "^ttl	3d	" out && grep "^max-size	500M	" out &&
	test_expect_code 2 ofl-gc --set bogus=1 2>err &&
	grep "unknown setting" err &&
	test_expect_code 2 ofl-gc --set ttl=soon 2>err &&
	test_expect_code 2 ofl-gc --older-than yesterday 2>/dev/null &&
	test_expect_code 2 ofl-gc --dry-run --set ttl=1d 2>err &&
	echo "ofl-gc: --dry-run shows what gc would remove; it does not apply to --set" >expect &&
	test_cmp expect err &&
	ofl-gc --settings >out &&
	grep "^ttl	3d	" out
'

test_expect_success 'modes go one at a time, and none with the options of a gc run' '
	test_expect_code 2 ofl-gc --check --stats 2>err &&
	echo "ofl-gc: --stats and --check go one at a time" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-gc --unpin x --settings 2>err &&
	echo "ofl-gc: --unpin and --settings go one at a time" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-gc --repair --older-than 3d 2>err &&
	echo "ofl-gc: --older-than goes with a gc run, not with --repair" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-gc --stats --label x 2>err &&
	echo "ofl-gc: --label goes with a gc run, not with --stats" >expect &&
	test_cmp expect err &&
	ofl-gc --set ttl=3d --settings >out &&
	grep "^ttl	3d	" out &&
	{ ofl-gc --check --repair >out 2>err; test $? -ne 2; }
'

test_expect_success 'automatic gc after a capture when over budget' '
	ofl-gc --set auto-gc=on --set max-size=1k --set grace=0 &&
	test_stamp_old gc &&
	before=$(count) &&
	seq 1 50000 | ofl-capture -q >/dev/null &&
	i=0 && while [ $i -lt 50 ] && [ "$(count)" -ge "$before" ]; do
		sleep 0.2; i=$((i + 1)); done &&
	test "$(count)" -lt "$before"
'

test_expect_success 'usage errors exit 2' '
	test_expect_code 2 ofl-gc --bogus 2>/dev/null &&
	test_expect_code 2 ofl-gc extra 2>/dev/null &&
	ofl-gc --help | grep "^usage: ofl-gc"
'

test_done
