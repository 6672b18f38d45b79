#!/bin/sh
#
# t2002-hostile: any text a user types is a valid query.  Each query below
# must exit 0 (hits) or 1 (none), never 2 or 3, and print nothing on
# stderr: no SQL error, no FTS5 syntax error.

. "$(dirname "$0")/lib.sh"

capture() {
	ofl-capture -q -T 0 <"$1" | sed 's/^ofl://'
}

# try LABEL ARGS...: ofl-search ARGS exits 0 or 1 with an empty stderr.
try() {
	label=$1
	shift
	ofl-search "$@" >out 2>err
	rc=$?
	if [ $rc -gt 1 ] || [ -s err ]; then
		echo "$label: exit $rc" >&2
		cat err >&2
		return 1
	fi
	return 0
}

test_expect_success 'setup' '
	capture "$DATA/docs/yt-dlp-README.md" >id.md &&
	capture "$DATA/ci/treeherder-taskcluster-timeout.log" >id.log &&
	printf "%s\n" "CVE-2023-1234 fixed in foo.bar() at a:b" \
	    "it'"'"'s 100% (done) [ok] {x} ^caret \$HOME" \
	    "path src/foo.c and 0x7f3a and blk_-1608999687919862906" >t.txt &&
	capture t.txt >id.txt &&
	test -s id.txt
'

# The table: one query per line of hostile, then the generated ones.
test_expect_success 'the table of hostile queries' '
	cat >hostile <<-\EOF &&
	CVE-2023-1234
	foo.bar()
	"unbalanced
	unbalanced"
	*
	**
	*foo
	foo*
	NEAR
	NEAR(a b)
	-x
	--x
	-
	a:b
	title:install
	body:
	it'"'"'s
	'"'"'
	'"'"'"'"'"'
	AND
	OR
	NOT
	a AND
	OR b
	NOT NOT
	(
	)
	()
	(a OR b
	^
	^foo
	""
	""""
	"a" OR "b"
	'"'"'; DROP TABLE x; --
	"; DROP TABLE ix_fts; --
	%
	_
	\\
	\\"
	`id`
	$(rm -rf /)
	{col1 col2}: x
	+
	:
	::
	.
	...
	/
	@
	#
	[
	]
	?
	|
	&&
	<script>
	0x7f3a
	7f3a
	blk_-1608999687919862906
	-1608999687919862906
	src/foo.c
	foo.c
	10.251.73.220:50010
	é
	日本語
	🙂
	EOF
	id=$(cat id.txt) &&
	while IFS= read -r q; do
		try "$q" "$id" -- "$q" || exit 1
		try "-a $q" -a -- "$q" || exit 1
		try "--json $q" -j "$(cat id.md)" -- "$q" || exit 1
	done <hostile
'

test_expect_success '-x without --: the query, not an option' '
	try "-x" "$(cat id.txt)" -x &&
	try "-" "$(cat id.txt)" -
'

test_expect_success 'an empty query: nothing, exit 1' '
	test_expect_code 1 ofl-search "$(cat id.txt)" "" >out 2>err &&
	test ! -s out && test ! -s err
'

test_expect_success 'white space and control characters' '
	try tab "$(cat id.txt)" "$(printf "foo\tbar")" &&
	try newline "$(cat id.txt)" "$(printf "foo\nbar")" &&
	try ctrl "$(cat id.txt)" "$(printf "\001\002\033[31m\177")" &&
	try spaces "$(cat id.txt)" "     "
'

test_expect_success 'invalid UTF-8' '
	try utf8 "$(cat id.md)" "$(printf "\377\376caf\351 \300\200 x\355\240\200")"
'

test_expect_success 'binary junk, no NUL' '
	awk "BEGIN { srand(7); for (i = 0; i < 3000; i++)
	    printf \"%c\", 1 + int(rand() * 255) }" >junk &&
	try junk "$(cat id.md)" "$(cat junk)" &&
	try junk-a -a "$(cat junk)"
'

test_expect_success 'a 10 KB query' '
	awk "BEGIN { for (i = 0; i < 1300; i++) printf \"word%d \", i }" \
	    >long &&
	test "$(wc -c <long)" -gt 10240 &&
	try long "$(cat id.md)" "$(cat long)" &&
	head -c 10240 "$DATA/docs/yt-dlp-README.md" >readme-head &&
	try readme "$(cat id.md)" "$(cat readme-head)"
'

test_expect_success 'a query over 4 KB: its first whole words, not a word cut' '
	awk "BEGIN { for (i = 0; i < 820; i++) printf \"zzqq \" }" >long4 &&
	test "$(wc -c <long4)" -gt 4096 &&
	test_expect_code 1 ofl-search "$(cat id.log)" "$(cat long4)" >out &&
	test ! -s out &&
	awk "BEGIN { printf \"\\\"\"; for (i = 0; i < 1300; i++)
	    printf \"task \"; printf \"\\\"\" }" >phrase5 &&
	test_expect_code 1 ofl-search "$(cat id.log)" "$(cat phrase5)" >out &&
	test ! -s out &&
	awk "BEGIN { for (i = 0; i < 1300; i++) printf \"task \" }" >long5 &&
	ofl-search "$(cat id.log)" "$(cat long5)" >out &&
	test "$(wc -c <out)" -le 1500 &&
	! grep "^more: ofl-search" out
'

test_expect_success 'one 5000-byte word' '
	awk "BEGIN { for (i = 0; i < 5000; i++) printf \"a\" }" >word &&
	try word "$(cat id.txt)" "$(cat word)"
'

test_expect_success 'punctuation is searched as written' '
	id=$(cat id.txt) &&
	ofl-search --color=always "$id" "foo.bar()" | marked >out &&
	grep ">>foo.bar<<()" out &&
	ofl-search --color=always "$id" "CVE-2023-1234" | marked >out &&
	grep ">>CVE-2023-1234<<" out &&
	ofl-search --color=always "$id" "src/foo.c" | marked >out &&
	grep ">>src/foo.c<<" out &&
	ofl-search --color=always "$id" "blk_-1608999687919862906" | marked >out &&
	grep ">>blk_-1608999687919862906<<" out
'

# A line of one number's words repeated: every mark of it is in one run
# of a term of several words ("4.4.4").  The run is walked only as far as
# a window of the term reaches; walked whole for each mark, each search
# of this 2 MB line took over a minute and a half.  timeout(1) only keeps
# a hang from stalling the suite: the search takes a tenth of a second.
test_expect_success 'a line of 1,000,000 repeats of a number: answered' '
	awk "BEGIN { printf \"start\\n4\"; for (i = 0; i < 1000000; i++) printf \".4\"; printf \"\\nend\\n\" }" >fours &&
	capture fours >id.fours &&
	ofl-index -q "$(cat id.fours)" &&
	timeout 60 ofl-search "$(cat id.fours)" "4.4.4" >out &&
	grep "^  2: 4\.4\.4\.4" out &&
	timeout 60 ofl-search "$(cat id.fours)" "start 4.4" >out &&
	grep "^  1: start" out
'

test_expect_success 'the store is intact after all that' '
	ofl-index --check >out &&
	echo ok >expect &&
	test_cmp expect out &&
	ofl-search -q >ids &&
	test "$(wc -l <ids)" -ge 3
'

test_done
