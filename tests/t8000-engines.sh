#!/bin/sh
#
# t8000-engines: the same capture, extraction, listing and metadata on
# both engines of the store: SQLite (a directory) and PostgreSQL (a
# database named by a postgresql:// URL, here a throwaway cluster; its
# tests skip with the reason when the engine is not built or PostgreSQL
# is not installed).  Each engine's answers are exact, and the two
# engines give the same bytes.

. "$(dirname "$0")/lib.sh"
. "$OFL_SRCDIR/tests/pg-cluster.sh"

seq 1 200000 >big.txt
# Over three frames of 1 MiB: line ranges across frame boundaries.
awk 'BEGIN { for (i = 1; i <= 90000; i++)
	printf "line %06d of a longer artifact, to fill frames\n", i }' \
	>frames.txt
printf '5\t5\n6\t6\n7\t7\n' >expect-5-7

# The fields of the listing that do not depend on when or where.
fields() {
	jq -c '{kind: .kind, bytes: .bytes, lines: .lines, hash: .hash,
	    exit: .exit, command: .command, label: .label,
	    incomplete: .incomplete, errors: .errors, warnings: .warnings,
	    first_error: .first_error}'
}

# engine_tests NAME: the tests, on the store in $OFL_STORE.
engine_tests() {
	e=$1
	mkdir -p "$e"

	test_expect_success "$e: capture prints a notice, keeps the exit status" '
		test_expect_code 3 ofl-capture --threshold 1000 -- \
		    sh -c "cat big.txt; echo error: it broke; exit 3" \
		    >$e/notice 2>$e/err &&
		test ! -s $e/err &&
		head -n 1 $e/notice >$e/ref &&
		grep -q "^ofl:[0-9a-z]* text 1.3 MB 200,001 lines" $e/ref
	'

	test_expect_success "$e: extract by ID gives the bytes back" '
		id=$(sed "s/^ofl:\([0-9a-z]*\) .*/\1/" $e/ref) &&
		ofl-extract "$id" >$e/all &&
		{ cat big.txt; echo "error: it broke"; } >$e/want &&
		cmp $e/want $e/all
	'

	test_expect_success "$e: extract a line range, by @ and by ID:A-B" '
		id=$(sed "s/^ofl:\([0-9a-z]*\) .*/\1/" $e/ref) &&
		ofl-extract @ -n 5-7 >$e/r1 &&
		test_cmp expect-5-7 $e/r1 &&
		ofl-extract "ofl:$id:5-7" >$e/r2 &&
		test_cmp expect-5-7 $e/r2 &&
		ofl-extract "$(echo "$id" | cut -c1-6):200001-200001" >$e/r3 &&
		printf "200001\terror: it broke\n" >$e/want3 &&
		test_cmp $e/want3 $e/r3
	'

	test_expect_success "$e: content over several frames, ranges across them" '
		ofl-capture --threshold 0 <frames.txt >/dev/null &&
		ofl-extract @ >$e/frames &&
		cmp frames.txt $e/frames &&
		ofl-extract @ -n 22000-22001 >$e/across &&
		awk "NR >= 22000 && NR <= 22001 { printf \"%d\t%s\n\", NR, \$0 }" \
		    frames.txt >$e/want-across &&
		test_cmp $e/want-across $e/across &&
		ofl-extract @ -n 89999-90000 >$e/tail &&
		awk "NR >= 89999 { printf \"%d\t%s\n\", NR, \$0 }" \
		    frames.txt >$e/want-tail &&
		test_cmp $e/want-tail $e/tail
	'

	test_expect_success JQ "$e: the listing and its metadata" '
		echo small | ofl-capture --threshold 0 --label tiny >/dev/null &&
		ofl-search -j >$e/list &&
		test "$(wc -l <$e/list)" -eq 3 &&
		fields <$e/list >$e/fields &&
		cat >$e/want-fields <<-\EOT &&
		{"kind":"text","bytes":6,"lines":1,"hash":"HASH0","exit":null,"command":null,"label":"tiny","incomplete":false,"errors":0,"warnings":0,"first_error":null}
		{"kind":"text","bytes":4410000,"lines":90000,"hash":"HASH2","exit":null,"command":null,"label":null,"incomplete":false,"errors":0,"warnings":0,"first_error":null}
		{"kind":"text","bytes":1288911,"lines":200001,"hash":"HASH1","exit":3,"command":"sh -c '"'"'cat big.txt; echo error: it broke; exit 3'"'"'","label":null,"incomplete":false,"errors":1,"warnings":0,"first_error":200001}
		EOT
		h1=$(xxh128sum $e/want | cut -d" " -f1) &&
		h2=$(xxh128sum frames.txt | cut -d" " -f1) &&
		h0=$(echo small | xxh128sum | cut -d" " -f1) &&
		sed -i "s/HASH0/$h0/; s/HASH1/$h1/; s/HASH2/$h2/" $e/want-fields &&
		test_cmp $e/want-fields $e/fields &&
		ofl-search --label tiny -j | fields >$e/tiny &&
		head -n 1 $e/want-fields >$e/want-tiny &&
		test_cmp $e/want-tiny $e/tiny
	'

	test_expect_success "$e: the text listing" '
		ofl_listing >$e/table &&
		cut -f2-4 $e/table >$e/cols &&
		cat >$e/want-cols <<-\EOT &&
		text	6 B	1
		text	4.4 MB	90000
		text	1.3 MB	200001
		EOT
		test_cmp $e/want-cols $e/cols
	'

	test_expect_success "$e: the same bytes twice share one content" '
		ofl-capture --threshold 0 <frames.txt >/dev/null &&
		ofl-search -j -a >$e/list2 &&
		jq -r "select(.bytes == 4410000) | .hash" $e/list2 >$e/hashes &&
		h2=$(xxh128sum frames.txt | cut -d" " -f1) &&
		printf "%s\n%s\n" $h2 $h2 >$e/want-hashes &&
		test_cmp $e/want-hashes $e/hashes &&
		ofl-extract @ | cmp frames.txt -
	'

	test_expect_success "$e: searches of three artifacts and of the store" '
		for f in docs/yt-dlp-README.md ci/treeherder-taskcluster-timeout.log \
		    json/dependabot-github-releases.json; do
			ofl-capture -q -T 0 <"$DATA/$f" >>$e/sref || exit 1
		done &&
		md=$(sed -n "1s/^ofl:\([0-9a-z]*\).*/\1/p" $e/sref) &&
		: >$e/search &&
		for q in "install with pip" timeout "release notes" \
		    "connection refused" "format selection" "exit code" tag_name
		do
			ofl-search -a "$q" >>$e/search 2>&1
			echo "exit $?" >>$e/search
			ofl-search -j "$md" "$q" >>$e/search 2>&1
			echo "exit $?" >>$e/search
		done &&
		ofl-search --fts "$md" "\"output template\" OR thumbnail*" \
		    >>$e/search 2>&1 &&
		grep -c "^ofl:" $e/search >$e/nhits &&
		test "$(cat $e/nhits)" -gt 20
	'

	test_expect_success "$e: a search of the store past the cap ranks the newest" '
		i=1 &&
		while [ $i -le 12 ]; do
			echo "pelican sighting number $i" |
			    ofl-capture -q -T 0 >>$e/pref || exit 1
			i=$((i + 1))
		done &&
		OFL_SEARCH_CAP=5 ofl-search -n 20 -q -a pelican >$e/pout \
		    2>$e/perr &&
		grep -q "^ofl-search: the query matches more than 5 chunks" \
		    $e/perr &&
		test "$(wc -l <$e/pout)" -eq 5 &&
		newest=$(tail -n 1 $e/pref | sed "s/^ofl:\([0-9a-z]*\).*/\1/") &&
		oldest=$(head -n 1 $e/pref | sed "s/^ofl:\([0-9a-z]*\).*/\1/") &&
		grep -q "^ofl:$newest:" $e/pout &&
		! grep -q "^ofl:$oldest:" $e/pout &&
		OFL_SEARCH_CAP=0 ofl-search -n 20 -q -a pelican >$e/pall &&
		test "$(wc -l <$e/pall)" -eq 12
	'

	test_expect_success "$e: an unknown ID: exit 3, one line" '
		test_expect_code 3 ofl-extract zzzzzzzz >$e/out 2>$e/err &&
		test ! -s $e/out &&
		echo "ofl-extract: zzzzzzzz: unknown artifact" >$e/want-err &&
		test_cmp $e/want-err $e/err
	'
}

OFL_STORE=$TEST_DIR/store
engine_tests sqlite

if pg_cluster_try; then
	OFL_STORE=$PG_URL
	engine_tests postgresql

	test_expect_success 'both engines give the same bytes' '
		for f in notice all r1 r2 r3 frames across tail fields cols; do
			test -f postgresql/$f && test -f sqlite/$f || exit 1
		done &&
		for f in all r1 r2 r3 frames across tail fields cols; do
			cmp sqlite/$f postgresql/$f || exit 1
		done &&
		sed 1d sqlite/notice | sed "s/ofl:[0-9a-z]*/ofl:ID/g; s/ofl-extract [0-9a-z]*/ofl-extract ID/g; s/ofl-search [0-9a-z]*/ofl-search ID/g" >notice-s &&
		sed 1d postgresql/notice | sed "s/ofl:[0-9a-z]*/ofl:ID/g; s/ofl-extract [0-9a-z]*/ofl-extract ID/g; s/ofl-search [0-9a-z]*/ofl-search ID/g" >notice-p &&
		test_cmp notice-s notice-p
	'

	test_expect_success 'both engines find the same lines in the same order' '
		for e in sqlite postgresql; do
			paste -d" " $e/sref - <<-EOT >$e/names || exit 1
			md
			log
			json
			EOT
			sed "s/^ofl:\([0-9a-z]*\).* \([a-z]*\)$/s|\1|\2|g/" \
			    $e/names >$e/ids.sed &&
			sed -f $e/ids.sed $e/search >$e/search.n || exit 1
		done &&
		test_cmp sqlite/search.n postgresql/search.n
	'
else
	test_skip "postgresql: the engine tests" "$PG_SKIP"
fi

test_done
