#!/bin/sh
# Interrupted captures: ofl-capture killed with SIGKILL while its input
# is still coming (the next capture salvages what was committed), and a
# reader that closes the pipe early.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

seq 1 200 >expect200

# killed_capture ARGS: start a slow producer (200 lines, then a pause)
# into ofl-capture ARGS, kill -9 ofl-capture after the idle flush, stop
# the producer.
killed_capture() {
	rm -f prod.pid
	sh -c 'echo $$ >prod.pid; seq 1 200; exec sleep 30' |
	ofl-capture "$@" >out 2>err &
	pid=$!
	sleep 2
	kill -9 $pid
	kill "$(cat prod.pid)" 2>/dev/null
	wait $pid
	rc=$?
	test "$rc" -eq 137
}

test_expect_success 'ofl-capture killed with SIGKILL midway' '
	killed_capture -T 0 &&
	test ! -s out &&
	ofl-search -q >ids &&
	test "$(wc -l <ids)" -eq 1
'
id=$(head -n 1 ids 2>/dev/null)

test_expect_success sqlite3,STOREDIR 'the store stays consistent' '
	sqlite3 "$OFL_STORE/ofl.db" "PRAGMA integrity_check" >check &&
	echo ok >expect && test_cmp expect check
'

# A database notices a killed client when its socket closes: soon, not
# at once.
test_expect_success 'before salvage, the listing says its writer is gone' '
	n=0 &&
	until ofl_listing >list &&
	    grep "^ofl:$id	" list | cut -f 7 >flags &&
	    echo incomplete >expect && test_cmp expect flags >/dev/null; do
		n=$((n + 1)) &&
		[ $n -lt 100 ] || exit 1
		sleep 0.1
	done
'

test_expect_success JQ 'and --json says not writing, incomplete' '
	ofl-search -j >list.json 2>/dev/null &&
	jq -c "select(.id == \"$id\") | [.writing, .incomplete]" \
	    list.json >meta &&
	echo "[false,true]" >expect && test_cmp expect meta
'

test_expect_success 'with the size and lines committed so far' '
	grep "^ofl:$id	text	692 B	200	" list
'

test_expect_success 'the next capture salvages it: incomplete, prefix kept' '
	echo next | ofl-capture >out &&
	echo next >expect && test_cmp expect out &&
	ofl_listing >list &&
	grep "^ofl:$id	text	692 B	200	" list | cut -f 7 >flags &&
	echo incomplete >expect && test_cmp expect flags &&
	ofl-extract "$id" >back &&
	test_cmp expect200 back
'

test_expect_success JQ 'and --json listing says incomplete' '
	ofl-search -j >list.json 2>/dev/null || exit 0
	jq -e "select(.id == \"$id\") | .incomplete == true and .bytes == 692" \
	    list.json
'

test_expect_success sqlite3,STOREDIR 'the store is still consistent' '
	sqlite3 "$OFL_STORE/ofl.db" "PRAGMA integrity_check" >check &&
	echo ok >expect && test_cmp expect check
'

test_expect_success 'killed in -- mode too: the prefix is salvaged' '
	rm -f child.pid
	ofl-capture -T 0 -- sh -c "echo \$\$ >child.pid; seq 1 200;
	    exec sleep 30" >out 2>err &
	pid=$!
	sleep 2
	kill -9 $pid
	kill "$(cat child.pid)" 2>/dev/null
	wait $pid
	rc=$?
	test "$rc" -eq 137 &&
	kid=$(ofl-search -q | head -n 1) &&
	test "$kid" != "$id" &&
	echo x | ofl-capture >/dev/null &&
	ofl-extract "$kid" >back &&
	test_cmp expect200 back &&
	ofl_listing >list &&
	grep "^ofl:$kid	" list | cut -f 7 >flags &&
	echo incomplete >expect && test_cmp expect flags
'

test_expect_success 'the reader closes the pipe early: stored whole' '
	seq 1 1000000 >expect &&
	seq 1 1000000 | ofl-capture -T 100000000 | head -n 1 >out &&
	echo 1 >one && test_cmp one out &&
	ofl_listing >list &&
	head -n 1 list | grep "^ofl:[0-9a-z]*	text	6.9 MB	1000000	[0-9]*s	-	-	" &&
	ofl-extract @ >back &&
	cmp expect back
'

test_expect_success 'a command whose output pipe closes early' '
	ofl-capture -- sh -c "seq 1 100000; exec 1>&- 2>&-; sleep 0.5" >out &&
	grep "^ofl:[0-9a-z]* text 589 kB 100,000 lines  " out &&
	ofl-extract @ >back &&
	seq 1 100000 >expect && cmp expect back
'

test_expect_success 'a background child holding the pipe does not hang it' '
	start=$(date +%s) &&
	ofl-capture -- sh -c "echo hi; sleep 10 &" >out 2>err &&
	end=$(date +%s) &&
	echo hi >expect && head -n 1 out >got && test_cmp expect got &&
	grep "^ofl:[0-9a-z]* text 3 B 1 line (incomplete)  " out &&
	grep "incomplete: stopped reading 200 ms after the command exited" err &&
	test $((end - start)) -lt 5
'

test_done
