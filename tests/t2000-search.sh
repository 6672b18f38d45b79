#!/bin/sh
#
# t2000-search: ranked snippets for every kind, against golden files in
# tests/data/search/ (the artifact IDs written as ID), the budget, JSON
# Lines, the operands and stdin.

. "$(dirname "$0")/lib.sh"

GOLD=$DATA/search

capture() {
	ofl-capture -q -T 0 <"$1" | sed 's/^ofl://'
}

# golden NAME ID ARGS...: ofl-search ARGS on ID, IDs made "ID", compared
# with $GOLD/NAME.out (written instead when OFL_REGEN is set: after a
# change of the chunkers or the ranking, regenerate and review the diff).
golden() {
	name=$1 id=$2
	shift 2
	ofl-search "$id" "$@" >raw &&
	sed "s/$id/ID/g" raw >actual &&
	if [ -n "${OFL_REGEN:-}" ]; then
		cp actual "$GOLD/$name.out"
	fi &&
	test_cmp "$GOLD/$name.out" actual
}

test_expect_success 'setup: one artifact of each kind' '
	capture "$DATA/docs/yt-dlp-README.md" >id.md &&
	capture "$DATA/json/dependabot-github-commits.json" >id.json &&
	capture "$DATA/diff/gotestsum-v1.10.0..v1.13.0.diff" >id.diff &&
	capture "$DATA/ci/treeherder-taskcluster-timeout.log" >id.log &&
	for k in md json diff log; do test -s id.$k || exit 1; done &&
	ofl-index $(cat id.md id.json id.diff id.log) >/dev/null
'

test_expect_success 'markdown: heading paths as titles' '
	golden markdown "$(cat id.md)" "embed thumbnail"
'

test_expect_success 'json: jq paths as titles' '
	golden json "$(cat id.json)" "author committer email"
'

test_expect_success 'diff: file and hunk as titles' '
	golden diff "$(cat id.diff)" "hide empty packages"
'

test_expect_success 'CI log: the timeouts' '
	golden log "$(cat id.log)" "application timed out"
'

test_expect_success 'the output stays within the budget' '
	for b in 300 800 1500 3000; do
		for q in "embed thumbnail" "format selection" "cookies"; do
			ofl-search -b $b "$(cat id.md)" "$q" >out || exit 1
			n=$(wc -c <out)
			test "$n" -le "$b" || { echo "$b $q: $n bytes"; exit 1; }
		done
	done
'

test_expect_success '-n: the number of hits, then how to get more' '
	id=$(cat id.log) &&
	ofl-search -n 2 "$id" "Marionette" >out &&
	test "$(grep -c "^ofl:" out)" -eq 2 &&
	tail -n 1 out >last &&
	echo "more: ofl-search $id Marionette -n 4" >expect &&
	test_cmp expect last
'

test_expect_success 'hits of one message with other numbers: one, and where the others are' '
	id=$(cat id.log) &&
	ofl-search -n 2 "$id" "TEST-UNEXPECTED-TIMEOUT" >out &&
	test "$(grep -c "^ofl:" out)" -eq 1 &&
	grep "^ofl:$id:1521-1536 " out &&
	grep -x "  x6 similar: lines 1698, 1854, 2024, 2196, ..." out &&
	! grep "^more: ofl-search" out
'

# sshd.log: an sshd log made here, whose "Invalid user NAME from IP" lines
# differ in a user name without digits, among other messages.
sshd_log() {
	awk 'BEGIN {
	    split("admin oracle test guest postgres ubuntu nagios ftpuser", u, " ")
	    split("alpha bravo charlie delta echo foxtrot golf hotel", w, " ")
	    for (i = 0; i < 1200; i++) {
		t = sprintf("Dec 10 09:%02d:%02d gateway", int(i / 60) % 60, i % 60)
		p = 20000 + i * 7
		if (i % 150 == 75)
			printf "%s sshd[%d]: Invalid user %s from 10.0.%d.%d\n",
			    t, p, u[1 + int(i / 150)], i % 7, (i * 13) % 250
		else if (i % 3 == 0)
			printf "%s CRON[%d]: pam_unix(cron:session): session " \
			    "opened for user root by (uid=0)\n", t, p
		else if (i % 3 == 1)
			printf "%s sshd[%d]: Accepted publickey for git from " \
			    "10.1.%d.%d port %d ssh2\n", t, p, i % 5, i % 200,
			    40000 + i
		else
			printf "%s systemd[1]: Started job %s-%s.service for " \
			    "session %d.\n", t, w[1 + i % 8], w[1 + (i * 3) % 8], i
	    } }'
}

test_expect_success 'a log: hits of one template are one, whatever their words' '
	sshd_log >sshd.log &&
	capture sshd.log >id.sshd &&
	ofl-index "$(cat id.sshd)" >/dev/null &&
	ofl-schema "$(cat id.sshd)" >tmpl &&
	grep -q " Invalid user <\*> from <\*>\$" tmpl &&
	golden log-tmpl "$(cat id.sshd)" "invalid user" &&
	test "$(grep -c "^  [0-9]*: .* Invalid user " actual)" -eq 1 &&
	grep -x "  x2 similar: lines 226, 376" actual &&
	grep -x "  x5 similar: lines 526, 676, 826, 976, ..." actual
'

test_expect_success 'a cut hit: the ofl-extract command for all of it' '
	id=$(cat id.md) &&
	ofl-search -n 1 "$id" "format selection" >out &&
	head -n 1 out | sed -n "s/^ofl:$id:\([0-9]*-[0-9]*\) .*/\1/p" >range &&
	test -s range &&
	grep -x "more: ofl-extract $id -n $(cat range)" out
'

test_expect_success JQ '--json: one object per hit, as documented' '
	id=$(cat id.md) &&
	ofl-search -j "$id" "embed thumbnail" >out &&
	test "$(wc -l <out)" -eq 5 &&
	jq -e -s "length == 5 and all(.[];
	    (.id | type) == \"string\" and
	    (.id as \$i | .ref | startswith(\"ofl:\" + \$i + \":\")) and
	    (.lines | length) == 2 and .lines[0] <= .lines[1] and
	    (.title | type) == \"string\" and
	    (.rank | type) == \"number\" and
	    (.snippet | type) == \"string\" and
	    (.snippet_lines | length) >= 1 and
	    .member == null and
	    (.match == \"all\" or .match == \"any\") and
	    (.cut | type) == \"boolean\")" out >/dev/null &&
	jq -r ".ref" out | head -n 1 >ref &&
	sed -n "1s/^\(ofl:[^ ]*\) .*/\1/p" "$GOLD/markdown.out" |
	    sed "s/ID/$id/" >expect &&
	test_cmp expect ref
'

test_expect_success JQ '--json: the snippet is the artifact text' '
	id=$(cat id.diff) &&
	ofl-search -j -n 1 "$id" "hide empty packages" >out &&
	jq -r ".snippet_lines[0]" out >n &&
	jq -r ".snippet" out | head -n 1 >got &&
	sed -n "$(cat n)p" "$DATA/diff/gotestsum-v1.10.0..v1.13.0.diff" >want &&
	test_cmp want got
'

test_expect_success 'snippet lines are the artifact lines, byte for byte' '
	id=$(cat id.log) &&
	ofl-search "$id" "Aborting task" >out &&
	grep "^  [0-9]*: " out | head -n 1 >line &&
	n=$(sed "s/^  \([0-9]*\): .*/\1/" line) &&
	sed "s/^  [0-9]*: //" line >got &&
	sed -n "${n}p" "$DATA/ci/treeherder-taskcluster-timeout.log" >want &&
	test_cmp want got &&
	printf "module go.mod\nuse go.mod here\n" | ofl-search go.mod >out &&
	! grep -q ">>" out &&
	grep -q "^  [12]: .*go\.mod" out
'

test_expect_success JQ '--json: the byte offsets of the matches of each line' '
	printf "alpha beta\nx gamma y gamma\nnone\n" | ofl-capture -q -T 0 >ref &&
	ofl-search -j -n 1 "$(sed s/ofl:// ref)" gamma >out &&
	jq -c "[.snippet_lines, .matches]" out >got &&
	echo "[[1,2,3],[[],[[2,7],[10,15]],[]]]" >expect &&
	test_cmp expect got &&
	jq -r ".snippet | split(\"\n\")[1] | .[2:7] + \" \" + .[10:15]" out >got &&
	echo "gamma gamma" >expect &&
	test_cmp expect got
'

test_expect_success 'several IDs: the last operand is the query' '
	ofl-search -q -n 10 "$(cat id.md)" "$(cat id.diff)" "packages" >out &&
	grep -q "^ofl:$(cat id.md):" out &&
	grep -q "^ofl:$(cat id.diff):" out
'

test_expect_success 'a bad range on an ID: its error alone, no advice to quote' '
	test_expect_code 2 ofl-search "$(cat id.md):3-1" error >out 2>err &&
	test ! -s out &&
	echo "ofl-search: $(cat id.md):3-1: bad line range (ID:A-B, 1 <= A <= B)" \
	    >expect &&
	test_cmp expect err
'

test_expect_success 'no ID, -a: the whole store' '
	ofl-search -a -q -n 20 "timeout" >out &&
	grep -q "^ofl:$(cat id.log):" out
'

test_expect_success 'filters narrow the store: many artifacts' '
	i=0 &&
	while [ $i -lt 40 ]; do
		printf "filler %d common\n" $i | ofl-capture -q -T 0 -l many \
		    >/dev/null || exit 1
		i=$((i + 1))
	done &&
	printf "quokka once\n" | ofl-capture -q -T 0 -l many | sed "s/ofl://" \
	    >id.many &&
	printf "quokka quokka quokka\n" | ofl-capture -q -T 0 -l few \
	    >/dev/null &&
	ofl-search -a -q -l many quokka >out &&
	echo "ofl:$(cat id.many):1" >expect &&
	test_cmp expect out &&
	ofl-search -q -a quokka >out &&
	test "$(wc -l <out)" -eq 2
'

test_expect_success 'a reference stream on stdin gives the IDs' '
	printf "ofl:%s log 12 kB 300 lines\n" "$(cat id.log)" |
	    ofl-search -q "thumbnail" >out;
	test $? -eq 1 && test ! -s out &&
	printf "ofl:%s\n" "$(cat id.md)" |
	    ofl-search -q "thumbnail" >out &&
	! grep -v "^ofl:$(cat id.md):" out
'

test_expect_success 'data on stdin is captured, then searched' '
	n=$(ofl-search -a -q | wc -l) &&
	printf "one fish\ntwo fish\nred herring\n" | ofl-search herring >out &&
	grep "^  3: red herring\$" out &&
	ofl-search --color=always @ herring | marked >out &&
	grep "^  3: red >>herring<<\$" out &&
	test "$(ofl-search -a -q | wc -l)" -eq $((n + 1))
'

test_expect_success 'empty stdin: the whole store' '
	ofl-search -q "thumbnail" </dev/null >out &&
	grep -q "^ofl:$(cat id.md):" out
'

test_expect_success 'options after the operands' '
	ofl-search "$(cat id.md)" "thumbnail" -n 1 -q >out &&
	test "$(wc -l <out)" -eq 1
'

test_expect_success tar 'archive members: searched by their own kinds' '
	mkdir -p arc/docs &&
	printf "alpha\nconnection refused by peer\nomega\n" >arc/app.log &&
	cp "$DATA/docs/yt-dlp-README.md" arc/docs/README.md &&
	tar cf - -C arc app.log docs | gzip >arc.tgz &&
	id=$(capture arc.tgz) &&
	ofl-search -n 1 "$id" "connection refused" >out &&
	cat >expect <<-EOF &&
	ofl:ID:1-3  [app.log]  (SCORE)
	  1- alpha
	  2: connection refused by peer
	  3- omega
	more: ofl-search ID '"'"'connection refused'"'"' -n 2
	EOF
	sed "s/$id/ID/; s/  ([0-9.]*)\$/  (SCORE)/" out >actual &&
	test_cmp expect actual &&
	ofl-search -n 1 "$id" "embed thumbnail" >out &&
	head -n 1 out | grep "^ofl:$id:[0-9-]*  \[docs/README.md\]  USAGE" &&
	grep "^more: ofl-extract $id --member docs/README.md -n [0-9-]*\$" out
'

test_expect_success 'nothing matches: exit 1, no output' '
	test_expect_code 1 ofl-search "$(cat id.md)" "zqxwvy" >out 2>err &&
	test ! -s out && test ! -s err
'

test_expect_success 'an unknown ID argument: reported, nothing searched, exit 3' '
	test_expect_code 3 ofl-search zzzzzzzz "$(cat id.md)" thumbnail \
	    >out 2>err &&
	grep "^ofl-search: zzzzzzzz: unknown artifact" err &&
	test ! -s out
'

test_expect_success 'an unknown ID in a stream: reported, the others searched' '
	printf "ofl:zzzzzzzz\nofl:%s\n" "$(cat id.md)" |
	    test_expect_code 3 ofl-search thumbnail >out 2>err &&
	grep "^ofl-search: zzzzzzzz: unknown artifact" err &&
	grep -q "^ofl:$(cat id.md):" out
'

# In an npm ls of express, "express" and "version" are in most chunks:
# the index's scores are all but nil, and the object the path ends at is
# the answer, not one of the hundred under it.
test_expect_success 'json: every word in most chunks, the object named first' '
	id=$(capture "$DATA/eval/fresh5/npm-ls-intake.json") &&
	ofl-search "$id" "which version of express is installed" >out &&
	head -n 2 out >first &&
	printf "%s\n" "ofl:$id:69-113  .dependencies.express | to_entries[0:12]  (0.0)" \
	    "  69: \"version\": \"4.17.1\"," >expect &&
	test_cmp expect first &&
	ofl-search "$id" "body-parser version" | head -n 1 >first &&
	grep "^ofl:$id:202-226  .dependencies.express.dependencies.\"body-parser\" | to_entries" first
'

# A JSON hit's name line goes first; the line that matches still shows
# (in part), however little room the hits above it left.
test_expect_success 'json: a record named first still shows the line that matches' '
	id=$(capture "$DATA/json/dependabot-github-commits.json") &&
	ofl-search "$id" "latest webmock upgrade" >out &&
	sed -n "/^ofl:$id:981-1010 /,/^ofl:/p" out >hit &&
	sed -n 2,3p hit | cut -c 1-57 >got &&
	printf "%s\n" "  985-         \"name\": \"dependabot[bot]\"," \
	    "  994:       \"message\": \"Bump webmock from 3.2.1 to 3.3.0" >expect &&
	test_cmp expect got
'

test_expect_success 'hits mark their artifacts as used' '
	id=$(cat id.json) &&
	ofl-search -q -n 1 | head -n 1 >before &&
	ofl-search "$id" "email" >/dev/null &&
	ofl-search --meta -j "$id" | jq -r .used >used1 &&
	sleep 1 &&
	ofl-search "$id" "email" >/dev/null &&
	ofl-search --meta -j "$id" | jq -r .used >used2 &&
	! test_cmp used1 used2 2>/dev/null
'

test_expect_success '--fts: FTS5 syntax, and its errors are usage errors' '
	id=$(cat id.md) &&
	ofl-search --fts -q "$id" "title:thumbnail" >out &&
	test -s out &&
	test_expect_code 2 ofl-search --fts "$id" "AND OR (" >out 2>err &&
	test ! -s out &&
	grep "^ofl-search: --fts .*: " err &&
	test_expect_code 2 ofl-search --fts "$id" "*" 2>err &&
	echo "ofl-search: --fts '"'"'*'"'"': unknown special query" >expect &&
	test_cmp expect err
'

test_expect_success 'a bad kind or number: usage error, one line' '
	test_expect_code 2 ofl-search -k nosuchkind 2>err &&
	echo "ofl-search: nosuchkind: unknown kind" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-search --bogus q 2>err &&
	grep "^usage: ofl-search " err &&
	test_expect_code 2 ofl-search -n 0 q 2>err &&
	test_expect_code 2 ofl-search -b lots q 2>err
'

test_done
