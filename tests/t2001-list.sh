#!/bin/sh
#
# t2001-list: ofl-search with no query lists artifacts, newest first,
# under a header in aligned columns, filtered by label, session, kind and
# age.

. "$(dirname "$0")/lib.sh"

TAB=$(printf '\t')

# list ARGS: the listing with the ages (right-aligned under AGE, 3 wide
# while they are below 100 s) made "AGE".
list() {
	ofl-search "$@" >.list || return
	at=$(head -n 1 .list | awk '{ print index($0, "  AGE  ") + 1 }')
	sed -E "2,\$ s/^(.{$at})[ 0-9][0-9]s/\\1AGE/" .list
}

# row ID KIND SIZE LINES EXIT STATE LABEL COMMAND: a line of the table,
# as wide as the header and the rows of the setup make each column.
row() {
	printf "%-12s  %-4s  %4s  %5s  %3s  %4s  %-5s  %-5s  %s\n" \
	    "$1" "$2" "$3" "$4" AGE "$5" "$6" "$7" "$8"
}

test_expect_success STOREDIR 'no store yet: nothing listed, exit 1' '
	test_expect_code 1 ofl-search >out 2>err &&
	test ! -s out && test ! -s err &&
	test_expect_code 1 ofl-search -q >out &&
	test ! -s out
'

test_expect_success 'setup' '
	printf "alpha\nbeta\n" | ofl-capture -q -T 0 -l first >id1 &&
	{ OFL_SESSION=s1 ofl-capture -q -T 0 -- sh -c "echo one; exit 3" \
	    >id2; test $? -eq 3; } &&
	printf "{\"a\": [1, 2]}\n" |
	    OFL_SESSION=s2 ofl-capture -q -T 0 -l data >id3 &&
	for f in id1 id2 id3; do sed -i "s/^ofl://" $f; done &&
	test -s id3
'

test_expect_success 'a header, then aligned columns, numbers to the right' '
	{
		printf "%-12s  %-4s  %4s  %5s  %3s  %4s  %-5s  %-5s  %s\n" \
		    ID KIND SIZE LINES AGE EXIT STATE LABEL COMMAND &&
		row "ofl:$(cat id3)" json "14 B" 1 - - data - &&
		row "ofl:$(cat id2)" text "4 B" 1 3 - - \
		    "sh -c '"'"'echo one; exit 3'"'"'" &&
		row "ofl:$(cat id1)" text "11 B" 2 - - first -
	} >expect &&
	list >actual &&
	test_cmp expect actual
'

test_expect_success 'the header on a pipe too; -j and -q have none' '
	ofl-search | head -n 1 >h &&
	grep -q "^ID  *KIND  *SIZE  *LINES  *AGE  *EXIT  *STATE  *LABEL  *COMMAND\$" h &&
	ofl-search -q | head -n 1 | grep -q "^[0-9a-z]*\$" &&
	ofl-search -j | head -n 1 | grep -q "^{"
'

test_expect_success 'the README shows the listing as it is printed' '
	grep -q "^ID  *KIND  *SIZE  *LINES  *AGE  *EXIT  *STATE  *LABEL  *COMMAND\$" \
	    "$OFL_SRCDIR/README.md" &&
	grep -q "ID, KIND, SIZE, LINES, AGE, EXIT, STATE, LABEL, COMMAND" \
	    "$OFL_SRCDIR/README.md"
'

test_expect_success 'the age is short: 0s, 5m, 2h, 3d' '
	ofl_listing | cut -f 5 >ages &&
	! grep -v -E "^[0-9]+[smhd]\$" ages
'

test_expect_success '-q: IDs only, newest first' '
	cat id3 id2 id1 >expect &&
	ofl-search -q >actual &&
	test_cmp expect actual
'

test_expect_success '-n: the newest N' '
	cat id3 id2 >expect &&
	ofl-search -q -n 2 >actual &&
	test_cmp expect actual
'

test_expect_success '-l, -S, -k: filters' '
	cat id1 >expect && ofl-search -q -l first >actual &&
	test_cmp expect actual &&
	cat id2 >expect && ofl-search -q -S s1 >actual &&
	test_cmp expect actual &&
	cat id3 >expect && ofl-search -q --kind json >actual &&
	test_cmp expect actual &&
	cat id2 >expect && ofl-search -q -k text -S s1 >actual &&
	test_cmp expect actual
'

test_expect_success 'a filter that matches nothing: exit 1' '
	test_expect_code 1 ofl-search -l nosuchlabel >out &&
	test ! -s out &&
	test_expect_code 1 ofl-search -k csv >out &&
	test ! -s out
'

test_expect_success '--since and --before' '
	cat id3 id2 id1 >expect &&
	ofl-search -q --since 1h >actual &&
	test_cmp expect actual &&
	test_expect_code 1 ofl-search -q --before 1h >actual &&
	test ! -s actual
'

test_expect_success 'a bad kind or age: usage error, exit 2' '
	test_expect_code 2 ofl-search -k nosuchkind >out 2>err &&
	test ! -s out &&
	grep "^ofl-search: nosuchkind: unknown kind" err &&
	test_expect_code 2 ofl-search --since yesterday >out 2>err &&
	test ! -s out
'

test_expect_success JQ '-j: one JSON object per artifact' '
	ofl-search -j >out &&
	test "$(wc -l <out)" -eq 3 &&
	jq -r .id out >ids &&
	cat id3 id2 id1 >expect &&
	test_cmp expect ids &&
	jq -e -s "map(select(.id == \"$(cat id2)\"))[0].exit == 3" out
'

test_expect_success 'listing never reads stdin' '
	{ sleep 5; echo ofl:xyz; } | ofl-search -q >out &
	pid=$! &&
	sleep 1 && test -s out &&
	kill $pid 2>/dev/null; wait $pid 2>/dev/null;
	cat id3 id2 id1 >expect && test_cmp expect out
'

test_expect_success 'tabs and newlines in a label become spaces' '
	printf "x\n" | ofl-capture -q -T 0 -l "$(printf "a\tb\nc")" >id4 &&
	ofl_listing -n 1 | cut -f 8 >label &&
	echo "a b c" >expect &&
	test_cmp expect label
'

test_expect_success 'an artifact being written is flagged "writing"' '
	{ echo start; sleep 3; echo end; } | ofl-capture -q -T 0 >id5 &
	pid=$! &&
	sleep 1 &&
	ofl_listing -n 1 | cut -f 7 >flags &&
	ofl-search -j -n 1 >live.json 2>/dev/null &&
	wait $pid &&
	grep -q "\"writing\":true,\"incomplete\":false" live.json &&
	echo writing >expect &&
	test_cmp expect flags &&
	ofl_listing -n 1 | cut -f 7 >flags &&
	echo - >expect &&
	test_cmp expect flags
'

test_expect_success 'the newest 20 by default, a last line on the rest, -a all' '
	mkdir many &&
	i=0 &&
	while [ $i -lt 23 ]; do
		echo "item $i" |
		    OFL_STORE=$PWD/many ofl-capture -q -T 0 >>many.ids || exit 1
		i=$((i + 1))
	done &&
	OFL_STORE=$PWD/many ofl-search >out &&
	test "$(wc -l <out)" -eq 22 &&
	test "$(sed -n "\$p" out)" = "... 3 more (-a lists all, -n N the newest N)" &&
	OFL_STORE=$PWD/many ofl-search -q >out 2>err &&
	test "$(wc -l <out)" -eq 20 &&
	echo "ofl-search: ... 3 more (-a lists all, -n N the newest N)" >expect &&
	test_cmp expect err &&
	OFL_STORE=$PWD/many ofl-search -a -q >out 2>err &&
	test "$(wc -l <out)" -eq 23 &&
	test ! -s err &&
	OFL_STORE=$PWD/many ofl-search -n 23 -j >out 2>err &&
	test "$(wc -l <out)" -eq 23 &&
	test ! -s err &&
	OFL_STORE=$PWD/many ofl-search -a -n 3 -q >out 2>err &&
	test "$(wc -l <out)" -eq 3 &&
	echo "ofl-search: ... 20 more (-a lists all, -n N the newest N)" >expect &&
	test_cmp expect err
'

test_expect_success sqlite3,STOREDIR 'the count of the rest is kept by the store: after gc, and in a store made before it' '
	db=$PWD/many/ofl.db &&
	test "$(sqlite3 "$db" "SELECT n FROM artifact_n")" = 23 &&
	OFL_STORE=$PWD/many ofl-gc --purge "$(sed -n 2p many.ids)" >/dev/null &&
	test "$(sqlite3 "$db" "SELECT n FROM artifact_n")" = 22 &&
	OFL_STORE=$PWD/many ofl-search -q 2>err >/dev/null &&
	echo "ofl-search: ... 2 more (-a lists all, -n N the newest N)" >expect &&
	test_cmp expect err &&
	: a store made before the count: a read-write open makes it &&
	sqlite3 "$db" "DROP TRIGGER artifact_n_add; DROP TRIGGER artifact_n_del;
	    DROP TABLE artifact_n" &&
	OFL_STORE=$PWD/many ofl-search -q 2>err >/dev/null &&
	test_cmp expect err &&
	echo "one more" | OFL_STORE=$PWD/many ofl-capture -q -T 0 >/dev/null &&
	test "$(sqlite3 "$db" "SELECT n FROM artifact_n")" = 23 &&
	test "$(sqlite3 "$db" "SELECT count(*) FROM artifact")" = 23
'

test_expect_success JQ '--meta: the artifacts named, by ID, in any store size' '
	first=$(sed -n 1p many.ids | sed "s/^ofl://") &&
	OFL_STORE=$PWD/many ofl-search --meta -j "$first" >out &&
	test "$(jq -r .id <out)" = "$first" &&
	OFL_STORE=$PWD/many ofl-search --meta -q "$first" "ofl:$first" >out &&
	printf "%s\n%s\n" "$first" "$first" >expect &&
	test_cmp expect out &&
	OFL_STORE=$PWD/many ofl-search --meta "$first" >out &&
	test "$(wc -l <out)" -eq 2 &&
	grep -q "^ofl:$first  text" out &&
	test_expect_code 3 env OFL_STORE=$PWD/many ofl-search --meta zzzzzzzz \
	    >out 2>err &&
	grep -q "^ofl-search: zzzzzzzz" err &&
	test_expect_code 2 env OFL_STORE=$PWD/many ofl-search --meta >out 2>err
'

test_expect_success 'the listing is the store at one time: ofl-search -s' '
	mkdir other &&
	OFL_STORE=$PWD/other ofl-capture -q -T 0 </dev/null >/dev/null;
	test_expect_code 1 ofl-search -s "$PWD/nostore" >out &&
	test ! -s out
'

test_done
