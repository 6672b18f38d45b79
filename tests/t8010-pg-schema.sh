#!/bin/sh
#
# t8010-pg-schema: the PostgreSQL engine's own rules, on a throwaway
# cluster: ofl makes its schema (once, when many start at once) and
# refuses a newer one; each role sees only its own rows (row-level
# security); a writer that dies is salvaged through its advisory lock;
# what the engine cannot do yet fails with one line and exit status 3.

. "$(dirname "$0")/lib.sh"
. "$OFL_SRCDIR/tests/pg-cluster.sh"

pg_cluster_start
OFL_STORE=$PG_URL
shown=$PG_URL

# q SQL: run SQL as the superuser in the database ofl.
q() {
	pg_sql "$1" ofl
}

test_expect_success 'a read-only command on an empty database: exit 3' '
	test_expect_code 3 ofl-search >out 2>err &&
	test ! -s out &&
	echo "ofl-search: no store at $shown (nothing captured yet)" >expect &&
	test_cmp expect err &&
	test "$(q "SELECT to_regclass('"'"'ofl.version'"'"') IS NULL")" = t
'

test_expect_success 'four captures at once make the schema once' '
	for i in 1 2 3 4; do
		seq 1 $((i * 1000)) | ofl-capture --threshold 0 \
		    >out$i 2>err$i &
	done &&
	wait &&
	cat err1 err2 err3 err4 >err &&
	test_cmp /dev/null err &&
	test "$(q "SELECT version FROM ofl.version")" = 3 &&
	test "$(q "SELECT count(*) FROM ofl.artifact WHERE state = 1")" = 4 &&
	ofl-search -j -a | jq -r .lines | sort -n >lines &&
	printf "1000\n2000\n3000\n4000\n" >expect &&
	test_cmp expect lines
'

test_expect_success 'every table is in schema ofl, under forced RLS' '
	q "SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity
	    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	    WHERE n.nspname = '"'"'ofl'"'"' AND c.relkind = '"'"'r'"'"'
	    ORDER BY 1" >tables &&
	cat >expect <<-\EOT &&
	artifact|t|t
	blob|t|t
	changed|t|t
	frame|t|t
	ix_blob|t|t
	ix_chunk|t|t
	ix_term|t|t
	log_tmpl|t|t
	setting|t|t
	version|f|f
	EOT
	test_cmp expect tables
'

test_expect_success 'frames are zstd bytea, one row a frame' '
	test "$(q "SELECT count(*) FROM ofl.frame f JOIN ofl.artifact a
	    ON a.blob = f.blob WHERE substr(f.data, 1, 4) =
	    '"'"'\\x28b52ffd'"'"'::bytea")" = 4 &&
	test "$(q "SELECT count(*) FROM ofl.frame")" = 4
'

test_expect_success 'a newer schema is refused' '
	q "UPDATE ofl.version SET version = 99" &&
	test_expect_code 3 ofl-search >out 2>err &&
	echo "ofl-search: store $shown: made by a newer ofl (schema 99)" \
	    >expect &&
	test_cmp expect err &&
	q "UPDATE ofl.version SET version = 3"
'

test_expect_success 'settings are kept in the database' '
	ofl-gc --set ttl=2d &&
	ofl-gc --settings | grep "^ttl	2d	" &&
	test "$(q "SELECT owner || '"'"' '"'"' || value FROM ofl.setting
	    WHERE key = '"'"'ttl'"'"'")" = "ofl 2d"
'

# unsupported WHAT CMD...: exit 3 and one line that says WHAT.
unsupported() {
	what=$1
	shift
	test_expect_code 3 "$@" >out 2>err &&
	test ! -s out &&
	echo "$1: store $shown: $what is not supported on PostgreSQL yet" \
	    >expect &&
	test_cmp expect err
}

test_expect_success 'what is not built yet: one line, exit 3' '
	unsupported "repairing the store (--repair)" ofl-gc --repair
'

test_expect_success 'ofl-gc --check reads every content back, and checks the index' '
	printf "check me %s\n" $(seq 1 3000) | ofl-capture -q -T 0 >ref &&
	id=$(cut -d" " -f1 ref | sed "s/^ofl://") &&
	ofl-index -q "$id" &&
	ofl-gc --check >out &&
	echo "$shown: 0 problems" >expect &&
	test_cmp expect out &&
	ofl-gc --check -j | jq -r .problems >n &&
	echo 0 >expect &&
	test_cmp expect n &&
	q "UPDATE ofl.frame SET data = substring(data from 1 for 20)
	    WHERE blob = (SELECT blob FROM ofl.artifact WHERE id = '"'"'$id'"'"')
	    AND raw_off = 0" &&
	q "UPDATE ofl.ix_term SET seqs = seqs || 4000
	    WHERE blob = (SELECT blob FROM ofl.artifact WHERE id = '"'"'$id'"'"')
	    AND term = '"'"'check'"'"'::bytea" &&
	test_expect_code 3 ofl-gc --check >out &&
	cat >expect <<-EOT &&
	ofl:$id: content truncated or unreadable
	index: 1 full-text row of no chunk
	$shown: 2 problems
	EOT
	test_cmp expect out &&
	ofl-gc --purge "$id" >/dev/null &&
	ofl-gc --check >out &&
	echo "$shown: 0 problems" >expect &&
	test_cmp expect out
'

test_expect_success 'a search ranks from the index in the database' '
	{ seq 1 3000 | sed "s/^/step /"; echo "error: disk quota exceeded";
	    seq 3001 4000 | sed "s/^/step /"; } |
	    ofl-capture -q -T 0 >ref &&
	id=$(sed "s/^ofl:\([0-9a-z]*\).*/\1/" ref) &&
	ofl-search "$id" quota >hits 2>err &&
	test_cmp /dev/null err &&
	grep "^  3001: error: disk quota exceeded$" hits &&
	test "$(q "SELECT i.state FROM ofl.ix_blob i JOIN ofl.artifact a
	    ON a.blob = i.blob WHERE a.id = '"'"'$id'"'"'")" = 1 &&
	test "$(q "SELECT count(*) FROM ofl.ix_term t JOIN ofl.artifact a
	    ON a.blob = t.blob WHERE a.id = '"'"'$id'"'"' AND
	    t.term = '"'"'quota'"'"'::bytea")" = 1 &&
	ofl-search -a "disk quota" >hits 2>/dev/null &&
	grep "^ofl:$id:" hits &&
	test_expect_code 1 ofl-search "$id" nowhereword >out 2>/dev/null &&
	test ! -s out &&
	ofl-search --fts "$id" "\"disk quota\" NOT nowhereword" >out &&
	grep "^  3001: error: disk quota exceeded$" out &&
	test_expect_code 2 ofl-search --fts "$id" "quota AND (" >out 2>err &&
	grep "^ofl-search: --fts .*: " err
'

test_expect_success 'a stamp: one capture of many starts a gc, once a minute' '
	pg_sql "DELETE FROM ofl.setting WHERE key LIKE '"'"'stamp %'"'"'" ofl \
	    >/dev/null &&
	for i in 1 2 3 4 5 6; do
		echo "stamp $i" | ofl-capture -q -T 0 >/dev/null &
	done &&
	wait &&
	test "$(q "SELECT count(*) FROM ofl.setting WHERE key = '"'"'stamp gc'"'"'")" = 1 &&
	v=$(q "SELECT value FROM ofl.setting WHERE key = '"'"'stamp gc'"'"'") &&
	echo again | ofl-capture -q -T 0 >/dev/null &&
	test "$(q "SELECT value FROM ofl.setting WHERE key = '"'"'stamp gc'"'"'")" = "$v" &&
	! ofl-gc --settings | grep stamp
'

test_expect_success 'roles alice and bob, no superusers' '
	pg_sql "CREATE ROLE alice LOGIN; CREATE ROLE bob LOGIN" >/dev/null
'

test_expect_success 'each role sees only its own artifacts' '
	seq 1 500 >shared.txt &&
	OFL_STORE=$(pg_url alice) ofl-capture --threshold 0 --label a \
	    <shared.txt >/dev/null &&
	aid=$(OFL_STORE=$(pg_url alice) ofl-search -j | jq -r .id) &&
	OFL_STORE=$(pg_url alice) ofl-extract "$aid" | cmp shared.txt - &&
	OFL_STORE=$(pg_url bob) test_expect_code 1 ofl-search >out &&
	test ! -s out &&
	OFL_STORE=$(pg_url bob) test_expect_code 3 ofl-extract "$aid" \
	    >out 2>err &&
	echo "ofl-extract: $aid: unknown artifact" >expect &&
	test_cmp expect err &&
	OFL_STORE=$(pg_url alice) ofl-index -q "$aid" &&
	OFL_STORE=$(pg_url alice) ofl-search "$aid" 250 >out &&
	grep "^  250: 250$" out &&
	OFL_STORE=$(pg_url bob) test_expect_code 1 ofl-search -a 250 >out &&
	test ! -s out &&
	for t in artifact blob frame setting changed ix_blob ix_chunk ix_term \
	    log_tmpl
	do
		n=$("$PG_BIN/psql" -X -A -t -h "$PG_SOCK" -U bob -d ofl \
		    -c "SELECT count(*) FROM ofl.$t") &&
		test "$n" = 0 || exit 1
	done &&
	"$PG_BIN/psql" -X -A -t -h "$PG_SOCK" -U bob -d ofl \
	    -c "UPDATE ofl.artifact SET label = '"'"'x'"'"'" >upd &&
	echo "UPDATE 0" >expect &&
	test_cmp expect upd &&
	test "$(q "SELECT label FROM ofl.artifact WHERE id = '"'"'$aid'"'"'")" = a
'

test_expect_success 'content is shared within a role, never across roles' '
	OFL_STORE=$(pg_url bob) ofl-capture --threshold 0 <shared.txt \
	    >/dev/null &&
	OFL_STORE=$(pg_url alice) ofl-capture --threshold 0 <shared.txt \
	    >/dev/null &&
	q "SELECT b.owner, count(DISTINCT b.id), count(a.id) FROM ofl.blob b
	    JOIN ofl.artifact a ON a.blob = b.id
	    WHERE b.owner IN ('"'"'alice'"'"', '"'"'bob'"'"')
	    GROUP BY 1 ORDER BY 1" >blobs &&
	printf "alice|1|2\nbob|1|1\n" >expect &&
	test_cmp expect blobs
'

test_expect_success 'a role expires its own artifacts, never another role'"'"'s' '
	printf "alice 1\n" | OFL_STORE=$(pg_url alice) ofl-capture -q -T 0 \
	    -l gone >/dev/null &&
	printf "bob 1\n" | OFL_STORE=$(pg_url bob) ofl-capture -q -T 0 \
	    -l gone >/dev/null &&
	OFL_STORE=$(pg_url alice) ofl-gc --label gone >out &&
	grep "^removed 1 artifact " out &&
	OFL_STORE=$(pg_url bob) ofl-search -q -l gone >left &&
	test "$(wc -l <left)" = 1 &&
	OFL_STORE=$(pg_url bob) ofl-gc --label gone >out &&
	grep "^removed 1 artifact " out
'

test_expect_success 'a role with BYPASSRLS expires every role'"'"'s, by its own settings' '
	pg_sql "CREATE ROLE fleet LOGIN BYPASSRLS" >/dev/null &&
	OFL_STORE=$(pg_url alice) ofl-gc --set ttl=1s &&
	OFL_STORE=$(pg_url fleet) ofl-gc --set ttl=30d &&
	printf "alice 2\n" | OFL_STORE=$(pg_url alice) ofl-capture -q -T 0 \
	    -l fleet >/dev/null &&
	printf "bob 2\n" | OFL_STORE=$(pg_url bob) ofl-capture -q -T 0 \
	    -l fleet >/dev/null &&
	sleep 2 &&
	OFL_STORE=$(pg_url fleet) ofl-gc >out &&
	grep "^removed 0 artifacts" out &&
	OFL_STORE=$(pg_url fleet) ofl-gc -v --label fleet >out &&
	grep "^removed 2 artifacts" out &&
	test "$(q "SELECT count(*) FROM ofl.artifact WHERE label = '"'"'fleet'"'"'")" = 0 &&
	OFL_STORE=$(pg_url alice) ofl-gc --set ttl=never
'

test_expect_success 'schema 1 is migrated: pins, the index' '
	q "ALTER TABLE ofl.artifact DROP COLUMN pinned;
	    DROP TABLE ofl.ix_term, ofl.ix_chunk, ofl.ix_blob, ofl.log_tmpl;
	    UPDATE ofl.version SET version = 1" &&
	printf "pin me\n" | ofl-capture -q -T 0 >ref &&
	test "$(q "SELECT version FROM ofl.version")" = 3 &&
	ofl-search -a "pin" | grep "^  1: pin me$" &&
	ofl-gc --pin "$(cut -d" " -f1 ref)" &&
	test "$(q "SELECT count(*) FROM ofl.artifact WHERE pinned")" = 1
'

test_expect_success 'a role cannot write a row as another owner' '
	! "$PG_BIN/psql" -X -q -A -t -h "$PG_SOCK" -U bob -d ofl \
	    -c "INSERT INTO ofl.setting (owner, key, value)
	    VALUES ('"'"'alice'"'"', '"'"'ttl'"'"', '"'"'1s'"'"')" 2>err &&
	grep -q "row-level security" err
'

test_expect_success 'nor index another role'"'"'s content, nor add to its index' '
	printf "alice 3\n" | OFL_STORE=$(pg_url alice) ofl-capture -q -T 0 \
	    >ref &&
	OFL_STORE=$(pg_url alice) ofl-index -q "$(cut -d" " -f1 ref)" &&
	ablob=$(q "SELECT min(blob) FROM ofl.ix_blob WHERE owner = '"'"'alice'"'"'") &&
	test -n "$ablob" &&
	! "$PG_BIN/psql" -X -q -A -t -h "$PG_SOCK" -U bob -d ofl \
	    -c "INSERT INTO ofl.ix_blob (blob, tokver) VALUES ($ablob, 2)" \
	    2>err &&
	grep -q "row-level security" err &&
	! "$PG_BIN/psql" -X -q -A -t -h "$PG_SOCK" -U bob -d ofl \
	    -c "INSERT INTO ofl.ix_term (term, blob, first, seqs)
	    VALUES ('"'"'x'"'"'::bytea, $ablob, 99, '"'"'{99}'"'"')" 2>err &&
	grep -q "row-level security" err
'

test_expect_success 'a killed writer is salvaged by the next open, not before' '
	mkfifo wfifo || exit 1
	ofl-capture --threshold 0 <wfifo >kout 2>kerr &
	pid=$!
	exec 3>wfifo &&
	seq 1 5 >&3 &&
	n=0 &&
	until [ "$(q "SELECT count(*) FROM ofl.frame f JOIN ofl.artifact a
	    ON a.blob = f.blob WHERE a.state = 0")" = 1 ]; do
		n=$((n + 1)) &&
		[ $n -lt 100 ] || exit 1
		sleep 0.1
	done &&
	echo x | ofl-capture --threshold 0 >/dev/null &&
	test "$(q "SELECT count(*) FROM ofl.artifact WHERE state = 0")" = 1 &&
	wid=$(q "SELECT id FROM ofl.artifact WHERE state = 0") &&
	ofl-search -j -a | jq -c "select(.id == \"$wid\") |
	    [.writing, .incomplete]" >meta &&
	echo "[true,false]" >expect &&
	test_cmp expect meta &&
	kill -9 $pid &&
	exec 3>&- &&
	{ wait $pid; true; } &&
	n=0 &&
	until ofl-search -j -a | jq -c "select(.id == \"$wid\") |
	    [.writing, .incomplete]" | grep -qx "\[false,true\]"; do
		n=$((n + 1)) &&
		[ $n -lt 100 ] || exit 1
		sleep 0.1
	done &&
	echo y | ofl-capture --threshold 0 >/dev/null &&
	test "$(q "SELECT count(*) FROM ofl.artifact WHERE state = 0")" = 0 &&
	kid=$(q "SELECT id FROM ofl.artifact WHERE owner = '"'"'ofl'"'"'
	    ORDER BY seq DESC OFFSET 2 LIMIT 1") &&
	ofl-search -j -a | jq -c "select(.id == \"$kid\") |
	    [.lines, .bytes, .incomplete]" >meta &&
	echo "[5,10,true]" >expect &&
	test_cmp expect meta &&
	ofl-extract "$kid" >got &&
	seq 1 5 >expect &&
	test_cmp expect got
'

test_done
