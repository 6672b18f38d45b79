#!/bin/sh
#
# t2003-fallback: when no word matches, ofl-search looks inside words,
# then for close spellings, and says so on its first line.

. "$(dirname "$0")/lib.sh"

capture() {
	ofl-capture -q -T 0 <"$1" | sed 's/^ofl://'
}

test_expect_success 'setup' '
	capture "$DATA/docs/yt-dlp-README.md" >id.md &&
	capture "$DATA/ci/treeherder-taskcluster-timeout.log" >id.log &&
	printf "%s\n" "connect failed: ECONNREFUSED" \
	    "block blk_-1608999687919862906 lost" \
	    "calling formatDurationAsSeconds now" >t.txt &&
	capture t.txt >id.txt &&
	ofl-index -q $(cat id.md id.log id.txt)
'

test_expect_success 'a word match: no note' '
	ofl-search --color=always "$(cat id.txt)" "ECONNREFUSED" | marked >out &&
	head -n 1 out | grep "^ofl:$(cat id.txt):1-3  (" &&
	grep "^  1: connect failed: >>ECONNREFUSED<<\$" out
'

test_expect_success 'inside a word: the substring, and a note' '
	ofl-search --color=always "$(cat id.txt)" "CONNREFUSED" | marked >out &&
	cat >expect <<-EOF &&
	no match for "CONNREFUSED"; showing matches for "CONNREFUSED" inside words
	ofl:ID:1  (substring)
	  1: connect failed: E>>CONNREFUSED<<
	EOF
	sed "s/$(cat id.txt)/ID/" out >actual &&
	test_cmp expect actual
'

test_expect_success 'inside an identifier: camelCase and numbers' '
	ofl-search --color=always "$(cat id.txt)" "DurationAs" | marked >out &&
	grep "^  3: calling format>>DurationAs<<Seconds now\$" out &&
	ofl-search --color=always "$(cat id.txt)" "99968791" | marked >out &&
	grep "^  2: block blk_-1608>>99968791<<9862906 lost\$" out
'

test_expect_success 'the words of a CamelCase identifier match, and so does the whole' '
	printf "%s\n" "worker: ConnectionPoolTimeoutException after 30s" \
	    "config maxRetries=5 backoff=2s" "nothing here" >camel.txt &&
	capture camel.txt >id.camel &&
	ofl-search --color=always "$(cat id.camel)" "connection pool timeout" |
	    marked >out &&
	head -n 1 out | grep "^ofl:$(cat id.camel):1-3  (" &&
	grep "^  1: worker: >>Connection<<>>Pool<<>>Timeout<<Exception after 30s\$" out &&
	! grep "no match" out &&
	ofl-search --color=always "$(cat id.camel)" "max retries" | marked >out &&
	grep "^  2: config >>maxRetries<<=5 backoff=2s\$" out &&
	ofl-search --color=always "$(cat id.camel)" "maxretries" | marked >out &&
	grep "^  2: config >>maxRetries<<=5 backoff=2s\$" out &&
	ofl-search "$(cat id.camel)" "ConnectionPoolTimeoutException" >out &&
	grep "^  1: worker: ConnectionPoolTimeoutException after 30s\$" out
'

test_expect_success 'the lexicon: the log'"'"'s words for the words typed, ranked below them' '
	{
		printf "%s\n" "write /var/tmp/x: No space left on device"
		i=0; while [ $i -lt 40 ]; do echo "filler line $i"; i=$((i + 1)); done
		printf "%s\n" "kernel: Out of memory: Killed process 4242 (java)"
		i=0; while [ $i -lt 40 ]; do echo "filler line $i"; i=$((i + 1)); done
		printf "%s\n" "monitor: disk full at 95%"
	} >lex.txt &&
	capture lex.txt >id.lex &&
	ofl-search -j "$(cat id.lex)" "disk full" >out &&
	jq -r "[.match, .snippet] | @tsv" out >got &&
	head -n 1 got | grep "^all	.*monitor: disk full at 95%" &&
	grep "^related	write /var/tmp/x: No space left on device" got &&
	ofl-search "$(cat id.lex)" "OOM" >out &&
	grep "^  42: kernel: Out of memory: Killed process 4242 (java)\$" out &&
	! grep "no match" out
'

test_expect_success 'the lexicon: how many skipped, of a mocha run, is how many pending' '
	capture "$OFL_SRCDIR/tests/data/eval/fresh5/mocha-shelf.out" >id.mocha &&
	ofl-search "$(cat id.mocha)" "how many tests were skipped" >out &&
	grep "^  164: *6 pending\$" out
'

# No line holds both words, nor "project" at all: the hits that hold
# some of them count the lexicon's other forms too (homepage for
# website), and a word of a form of several ("session" of "session
# opened") is no match alone.
test_expect_success 'some words: the lexicon'"'"'s forms count, a form'"'"'s word alone does not' '
	printf "%s\n" "{" "  \"name\": \"lodash\"," \
	    "  \"description\": \"Lodash modular utilities.\"," \
	    "  \"homepage\": \"https://lodash.com/\"," \
	    "  \"license\": \"MIT\"" "}" >pkg.json &&
	capture pkg.json >id.pkg &&
	ofl-search -j "$(cat id.pkg)" "project website" >out &&
	test "$(jq -r .match out)" = any &&
	ofl-search "$(cat id.pkg)" "project website" >out &&
	grep -x "  4:   \"homepage\": \"https://lodash.com/\"," out &&
	! grep "^  [0-9]*:" out | grep -v "^  4:" &&
	printf "%s\n" "sshd[1]: Accepted password for alice" \
	    "sshd[2]: session closed for bob" "cron[3]: job done" >ssh.txt &&
	capture ssh.txt >id.ssh &&
	ofl-search "$(cat id.ssh)" "successful logins" >out &&
	sed "s/$(cat id.ssh)/ID/" out >actual &&
	cat >expect <<-EOF &&
	ofl:ID:1-3  (0.0)
	  1: sshd[1]: Accepted password for alice
	  2- sshd[2]: session closed for bob
	  3- cron[3]: job done
	EOF
	test_cmp expect actual
'

# Two words a file name or a key writes as one: "error summary" finds
# errorsummary.log, "user name" a username key, below the lines that
# hold the words apart.
test_expect_success 'two words in a row find them written as one word' '
	printf "%s\n" "start" "Uploading artifact public/logs/errorsummary.log" \
	    "Uploading artifact public/logs/live.log" "username=alice" \
	    "the user wrote her name" "done" >compound.txt &&
	capture compound.txt >id.comp &&
	ofl-search "$(cat id.comp)" "error summary uploaded" >out &&
	grep -x "  2: Uploading artifact public/logs/errorsummary.log" out &&
	ofl-search -j "$(cat id.comp)" "user name" >out &&
	jq -r .match out >got &&
	test "$(head -n 1 got)" = all &&
	ofl-search "$(cat id.comp)" "user name" >out &&
	grep -x "  4: username=alice" out &&
	grep -x "  5: the user wrote her name" out
'

# "not" and a word: the word with a prefix that denies it, though other
# lines hold the word itself.
test_expect_success '"not signed" finds unsigned, "not valid" invalid' '
	{
		echo "\"reason\": \"unsigned\","
		i=0; while [ $i -lt 20 ]; do echo "filler $i"; i=$((i + 1)); done
		echo "signed off by bob"
		i=0; while [ $i -lt 20 ]; do echo "filler $i"; i=$((i + 1)); done
		echo "token invalid for user bob"
		i=0; while [ $i -lt 20 ]; do echo "filler $i"; i=$((i + 1)); done
		echo "token valid until noon"
	} >neg.txt &&
	capture neg.txt >id.neg &&
	ofl-search "$(cat id.neg)" "not signed" >out &&
	grep -x "  1: \"reason\": \"unsigned\"," out &&
	ofl-search "$(cat id.neg)" "token not valid" >out &&
	grep -x "  43: token invalid for user bob" out
'

test_expect_success 'a part of a hyphenated word in a log' '
	ofl-search --color=always -n 1 "$(cat id.log)" "UNEXPECTED-TIMEOU" | marked >out &&
	head -n 1 out >note &&
	echo "no match for \"UNEXPECTED-TIMEOU\"; showing matches for \"UNEXPECTED-TIMEOU\" inside words" >expect &&
	test_cmp expect note &&
	grep -- "- TEST->>UNEXPECTED-TIMEOU<<T |" out
'

test_expect_success 'a misspelling: the closest word of the artifact' '
	ofl-search --color=always -n 1 "$(cat id.md)" "thumbnale" | marked >out &&
	head -n 1 out >note &&
	echo "no match for \"thumbnale\"; showing matches for \"thumbnail\"" \
	    >expect &&
	test_cmp expect note &&
	grep ">>[Tt]humbnail<<" out
'

test_expect_success 'two misspellings' '
	ofl-search -n 1 "$(cat id.md)" "downlod subtitels" >out &&
	head -n 1 out >note &&
	echo "no match for \"downlod subtitels\"; showing matches for \"download subtitle\"" \
	    >expect &&
	test_cmp expect note
'

test_expect_success JQ '--json says which fallback matched' '
	ofl-search -j -n 1 "$(cat id.txt)" "CONNREFUSED" >out &&
	jq -e ".match == \"substring\" and .rank == null" out &&
	ofl-search -j -n 1 "$(cat id.md)" "thumbnale" >out &&
	jq -e ".match == \"spelling\"" out &&
	ofl-search -j -n 1 "$(cat id.md)" "thumbnail" >out &&
	jq -e ".match == \"all\"" out
'

test_expect_success 'nothing close: exit 1, no output' '
	test_expect_code 1 ofl-search "$(cat id.md)" "qqqqzzzzxxxx" >out &&
	test ! -s out
'

test_expect_success 'short words are not respelled' '
	test_expect_code 1 ofl-search "$(cat id.txt)" "zq" >out &&
	test ! -s out
'

test_expect_success 'some words match: those hits, no fallback' '
	ofl-search --color=always -n 1 "$(cat id.txt)" "ECONNREFUSED zzzzqqq" | marked >out &&
	! grep "^no match" out &&
	grep ">>ECONNREFUSED<<" out
'

test_expect_success 'the whole store, substring' '
	ofl-search -a -q "CONNREFUSE" >out &&
	grep "^ofl:$(cat id.txt):1\$" out
'


# A line of 2.5 MB, the match past its first megabyte; the index cuts it
# into pieces of 64 KiB, and one of them starts right before the match.
test_expect_success 'setup: a match deep inside a long line' '
	awk "BEGIN { print \"head\"; s = \"abcdefghij\";
	    for (i = 0; i < 17; i++) s = s s; printf \"%s\", s;
	    print \" the ZZ_needle_QQ is here \" s; print \"tail\" }" >big.txt &&
	capture big.txt >id.big &&
	ofl-index -q $(cat id.big)
'

# The run of the filler is shown as <R>: what counts is where the window
# starts and that both cuts are marked.
test_expect_success 'a word deep inside a long line: the window at the match, both cuts marked' '
	ofl-search "$(cat id.big)" needle >out &&
	sed "s/$(cat id.big)/ID/; s/\(abcdefghij\)\{5,\}/<R>/" out >actual &&
	cat >expect <<-EOF &&
	ofl:ID:2  (2.0)
	  2: ... the ZZ_needle_QQ is here <R>abcd...
	more: ofl-extract ID -n 2-2
	EOF
	test_cmp expect actual &&
	test "$(sed -n 2p out | wc -c)" -eq 412
'

test_expect_success 'inside a word deep inside a long line: the same window, line number and cuts' '
	ofl-search "$(cat id.big)" eedle_Q >out &&
	sed "s/$(cat id.big)/ID/; s/\(abcdefghij\)\{5,\}/<R>/" out >actual &&
	cat >expect <<-EOF &&
	no match for "eedle_Q"; showing matches for "eedle_Q" inside words
	ofl:ID:2  (substring)
	  2: ...defghij the ZZ_needle_QQ is here <R>abcdefg...
	more: ofl-extract ID -n 2-2
	EOF
	test_cmp expect actual &&
	test "$(sed -n 3p out | wc -c)" -eq 412
'

test_expect_success 'a long line not yet indexed: the scan shows the match too' '
	ofl-capture -q -T 0 <big.txt | sed "s/^ofl://" >id.big2 &&
	ofl-search "$(cat id.big2)" eedle_Q >out &&
	sed -n 3p out | sed "s/\(abcdefghij\)\{5,\}/<R>/" >actual &&
	echo "  2: ...defghij the ZZ_needle_QQ is here <R>abcdefg..." >expect &&
	test_cmp expect actual
'

# The scan of text not indexed: the lines between matches skipped, their
# numbers counted, the last line without a newline read too.
test_expect_success 'a scan: the line numbers of matches far apart, in any case' '
	awk "BEGIN { for (i = 1; i <= 3000; i++)
	    if (i == 7 || i == 1500) print \"line \" i \" fooXYZZYQbar\";
	    else print \"line \" i \" filler words\";
	    printf \"line 3001 lastxyzzyq\" }" >many.txt &&
	ofl-capture -q -T 0 <many.txt | sed "s/^ofl://" >id.many &&
	ofl-search -q "$(cat id.many)" yzzyq >out &&
	printf "ofl:%s:%s\n" "$(cat id.many)" 7 "$(cat id.many)" 1500 \
	    "$(cat id.many)" 3001 >expect &&
	test_cmp expect out
'

# A package list: the name asked for is inside the package's name
# ("libjq1", "python3"), and other lines hold the other words: the line
# of the package is shown.
test_expect_success 'a name inside a package name: libjq1 for jq, python3 for python' '
	{
		i=0
		while [ $i -lt 40 ]; do
			echo "2026-05-20 16:27:$((i % 60)) status installed libfoo$i:amd64 1.$i-1"
			i=$((i + 1))
		done
		echo "2026-05-20 16:28:00 status installed libjq1:amd64 1.6-2.1"
		echo "2026-05-20 16:28:01 status installed python3:amd64 3.11.2-1"
		i=0
		while [ $i -lt 40 ]; do
			echo "2026-05-20 16:29:$((i % 60)) status installed libbar$i:amd64 2.$i-1"
			i=$((i + 1))
		done
	} >pkgs.log &&
	ofl-capture -q -T 0 <pkgs.log | sed "s/^ofl://" >id.pkgs &&
	ofl-index -q $(cat id.pkgs) &&
	ofl-search "$(cat id.pkgs)" "was the jq library installed" >out &&
	grep -x "  41: 2026-05-20 16:28:00 status installed libjq1:amd64 1.6-2.1" out &&
	ofl-search "$(cat id.pkgs)" "which python is installed" >out &&
	grep -x "  42: 2026-05-20 16:28:01 status installed python3:amd64 3.11.2-1" out
'

test_done
