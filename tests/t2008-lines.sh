#!/bin/sh
#
# t2008-lines: which lines of a hit ofl-search prints.  Of lines that
# hold the same terms, the shorter comes first (more of them fit), and a
# line that opens what answers ("# To install with pip:", a heading, a
# key ending in a colon) comes with the line below it.

. "$(dirname "$0")/lib.sh"

# capture_id FILE IDFILE: FILE captured (stored whatever its size), its
# ID without "ofl:" into IDFILE.
capture_id() {
	ofl-capture -q -T 0 <"$1" | sed "s/^ofl://" >"$2"
}

test_expect_success 'setup: a section whose answer is under a comment' '
	{
		printf "# Tool\n\n## Install\n\n"
		printf "If you installed it with pip, run the same install"
		printf " command again.\n\n"
		printf "Packages from pip are installed"
		i=0
		while [ $i -lt 20 ]; do
			printf " with many more words"
			i=$((i + 1))
		done
		printf " under the install prefix.\n\n"
		printf "\`\`\`\n# To install with pip:\n"
		printf "python -m pip install -U tool\n\`\`\`\n\nOther text.\n"
	} >pip.md &&
	capture_id pip.md id &&
	ofl-index -q $(cat id)
'

test_expect_success 'the comment and the command under it, before a long line' '
	ofl-search "$(cat id)" "install with pip" -m 600 >out &&
	sed "s/$(cat id)/ID/" out >actual &&
	cat >expect <<-EOF &&
	ofl:ID:3-14  Tool > Install  (0.0)
	  3: ## Install
	  5: If you installed it with pip, run the same install command again.
	  9- \`\`\`
	  10: # To install with pip:
	  11: python -m pip install -U tool
	more: ofl-extract ID -n 3-14
	EOF
	test_cmp expect actual
'


test_expect_success 'setup: a test run whose summary says "Ran"' '
	{
		echo "run: all tests of the ledger"
		i=1
		while [ $i -le 12 ]; do
			echo "test_case_$i ... ok"
			i=$((i + 1))
		done
		printf "%s\n" "----" "Ran 12 tests in 2.020s" "" "OK"
	} >ran.txt &&
	capture_id ran.txt id.ran &&
	ofl-index -q $(cat id.ran)
'

# The word asked for matches line 1: the hit is an exact one, and the
# lexicon's form of one word (ran for run) still counts and is marked.
test_expect_success 'an irregular form of the word asked for is shown in an exact hit' '
	ofl-search --color=always "$(cat id.ran)" run | marked >out &&
	sed "s/$(cat id.ran)/ID/" out >actual &&
	cat >expect <<-EOF &&
	ofl:ID:1-17  (0.0)
	  1: >>run<<: all tests of the ledger
	  2- test_case_1 ... ok
	  3- test_case_2 ... ok
	  4- test_case_3 ... ok
	  5- test_case_4 ... ok
	  6- test_case_5 ... ok
	  7- test_case_6 ... ok
	  15: >>Ran<< 12 tests in 2.020s
	more: ofl-extract ID -n 1-17
	EOF
	test_cmp expect actual
'

# A word of a form of several words (the "out" of "timed out", the
# "output" of "no output") is no match alone in an exact hit: line 4 is
# not chosen.
test_expect_success 'a word of a phrase of the lexicon is not marked in an exact hit' '
	printf "%s\n" "the job hang detector armed" "step one" "step two" \
	    "the output went out to the log" "done" >hang.txt &&
	capture_id hang.txt id.hang &&
	ofl-search --color=always "$(cat id.hang)" hang | marked >out &&
	sed "s/$(cat id.hang)/ID/" out >actual &&
	cat >expect <<-EOF &&
	ofl:ID:1-5  (0.0)
	  1: the job >>hang<< detector armed
	  2- step one
	  3- step two
	  4- the output went out to the log
	  5- done
	EOF
	test_cmp expect actual
'

# Both lines hold every word asked for, the first more often; the
# second holds them as words of their own, and says what the question
# asks of: it comes first.
test_expect_success 'a word of its own counts more than the same word inside a name' '
	{
		echo "=== RUN   TestFailedWithStderr TestFailedWithStderr"
		echo "stderr of the failed test: permission denied"
		i=0
		while [ $i -lt 20 ]; do
			echo "other line $i"
			i=$((i + 1))
		done
	} >stderr.txt &&
	capture_id stderr.txt id.err &&
	ofl-search -n 1 -m 100 "$(cat id.err)" "failed test stderr" >out &&
	sed -n 2p out >first &&
	grep "^  2: stderr of the failed test" first
'

# The header of a failing test matches the question; what failed is the
# exception at the end of its traceback, shown with it.
test_expect_success 'a traceback: the exception that ends it comes with the line that matches' '
	{
		echo "test_zero (test_bank.TestTransfer.test_zero) ... ERROR"
		i=0
		while [ $i -lt 20 ]; do
			echo "test_other_$i (test_bank.TestOther.test_other_$i) ... ok"
			i=$((i + 1))
		done
		echo "======================================================================"
		echo "ERROR: test_zero (test_bank.TestTransfer.test_zero)"
		echo "----------------------------------------------------------------------"
		echo "Traceback (most recent call last):"
		echo "  File \"/src/test_bank.py\", line 118, in test_zero"
		echo "    bank.transfer(a, b, 0)"
		echo "  File \"/src/bank.py\", line 27, in deposit"
		echo "    raise ValueError(\"deposit must be positive\")"
		echo "ValueError: deposit must be positive, got 0"
		echo ""
		echo "Ran 21 tests in 0.010s"
	} >tb.txt &&
	capture_id tb.txt id.tb &&
	ofl-search "$(cat id.tb)" "zero transfer" >out &&
	grep -x "  30- ValueError: deposit must be positive, got 0" out &&
	grep -x "  23: ERROR: test_zero (test_bank.TestTransfer.test_zero)" out
'

# A version is its digits in their order: 4.17.17 holds the words of
# 4.17.4, but is not it.
test_expect_success 'a version asked for is the line that spells it, not one with its numbers' '
	printf "%s\n" "\"4.17.17\": \"2020-07-08\"" "\"4.17.4\": \"2016-12-31\"" \
	    "\"4.17.1\": \"2016-08-28\"" "\"4.1.4\": \"2016-02-03\"" >v.txt &&
	capture_id v.txt id.v &&
	ofl-search "$(cat id.v)" "when was 4.17.4 published" >out &&
	grep "^  [0-9]*:" out >matched &&
	echo "  2: \"4.17.4\": \"2016-12-31\"" >expect &&
	test_cmp expect matched
'

# In a diff, what changed is the answer: of two lines with the word
# asked for, the added one comes before the context that says it twice.
test_expect_success 'a diff: the line it adds before the context around it' '
	{
		echo "diff --git a/main.go b/main.go"
		echo "--- a/main.go"
		echo "+++ b/main.go"
		echo "@@ -10,6 +10,7 @@ func setup() {"
		echo "     flags.Bool(\"verbose\", false, \"print the flags and more\")"
		echo "     x := 1"
		echo "+    flags.Bool(\"quiet\", false, \"print less\")"
		echo "     y := 2"
	} >flags.diff &&
	capture_id flags.diff id.diff &&
	ofl-search -m 120 "$(cat id.diff)" "flags" >out &&
	grep "^  [0-9]*:" out >matched &&
	test $(wc -l <matched) = 1 &&
	grep "^  7: +    flags.Bool(" matched
'

# A record of fields between empty lines (apt's history): the line that
# matches comes with where its record starts and ends.
test_expect_success 'a record of fields: its first and last lines with the one that matches' '
	{
		for p in curl nodejs make; do
			echo "Start-Date: 2026-05-20  16:49:20"
			echo "Commandline: apt-get install -y $p"
			echo "Requested-By: admin (1000)"
			echo "Install: $p:amd64 (1.0-1)"
			echo "End-Date: 2026-05-20  16:49:2${#p}"
			echo
		done
	} >history.log &&
	capture_id history.log id.hist &&
	ofl-search "$(cat id.hist)" "nodejs" >out &&
	grep -x "  7- Start-Date: 2026-05-20  16:49:20" out &&
	grep -x "  11- End-Date: 2026-05-20  16:49:26" out
'

# A form of several words of the lexicon counts, in any hit, where the
# line spells it whole: "timed out" for "hang", not "output" alone.
test_expect_success 'a form of several words of the lexicon, spelled whole, is a match in an exact hit' '
	printf "%s\n" "step one" "the job hang detector armed" \
	    "application timed out after 370 seconds with no output" \
	    "the output went out" "done" >hang2.txt &&
	capture_id hang2.txt id.hang2 &&
	ofl-search --color=always "$(cat id.hang2)" "why did the job hang" |
	    marked >out &&
	grep -x "  3: application >>timed<< >>out<< after 370 seconds with no >>output<<" out &&
	grep -x "  4- the output went out" out
'

# An option list: the words asked for are in a description's second
# line; the option it describes, the line it goes on from, is shown.
# (Under a heading, "Download Options:", the option is a chunk of its
# own, titled by its name: see the next test.)
test_expect_success 'an indented line that goes on from another: that line too' '
	{
		echo "    -r, --limit-rate RATE           Maximum download rate in bytes"
		echo "                                    per second"
		echo "    --sleep-interval SECONDS        Number of seconds to sleep"
		echo "                                    before each download, the least"
		echo "                                    time to pause between files"
		echo "    --retries RETRIES               Number of retries (default is"
		echo "                                    10), or \"infinite\""
		i=0
		while [ $i -lt 30 ]; do
			echo "    --option-$i                      Text of option $i"
			i=$((i + 1))
		done
	} >opts.txt &&
	capture_id opts.txt id.opts &&
	ofl-search -m 450 "$(cat id.opts)" "least time between files" >out &&
	grep -x "  5:                                     time to pause between files" out &&
	grep -x "  3-     --sleep-interval SECONDS        Number of seconds to sleep" out
'

test_expect_success 'under a heading, the option is a hit of its own, titled by it' '
	{ echo "Download Options:" && cat opts.txt; } >opts2.txt &&
	capture_id opts2.txt id.opts2 &&
	ofl-search -m 450 "$(cat id.opts2)" "least time between files" >out &&
	sed "s/$(cat id.opts2)/ID/" out >actual &&
	cat >expect <<-\EOF &&
	ofl:ID:4-6  Download Options: > --sleep-interval SECONDS  (2.0)
	  5:                                     before each download, the least
	  6:                                     time to pause between files
	more: ofl-extract ID -n 4-6
	EOF
	test_cmp expect actual
'

# A git log: a line of a commit's message comes with the commit, its
# author and its date, the head of the record it is the body of; each
# commit starts a chunk of its own, so a head is never in the chunk
# before.
test_expect_success 'a line of a record'"'"'s indented body: the head of the record' '
	i=1
	while [ $i -le 30 ]; do
		printf "commit %040d\n" $i
		echo "Author: Dev $i <dev$i@example.org>"
		echo "Date:   Mon Jun $((i % 28 + 1)) 10:00:00 2026 +0000"
		echo
		if [ $i -eq 17 ]; then
			echo "    store: the reserve file is made before the first write"
		else
			echo "    chunk: change number $i of the splitter"
		fi
		echo "    "
		echo "    A body of three lines that says why, in words that"
		echo "    the question does not use, so that the line that"
		echo "    matches is the subject alone."
		echo
		echo " src/lib/chunk.c | 4 ++--"
		echo " 1 file changed, 2 insertions(+), 2 deletions(-)"
		echo
		i=$((i + 1))
	done >gitlog.txt &&
	capture_id gitlog.txt id.git &&
	ofl-index -q $(cat id.git) &&
	ofl-search "$(cat id.git)" "reserve made before the first write" >out &&
	sed -e "s/$(cat id.git)/ID/" -e "s/  ([0-9.]*)\$//" out >actual &&
	cat >expect <<-EOF &&
	ofl:ID:209-221
	  209- commit 0000000000000000000000000000000000000017
	  210- Author: Dev 17 <dev17@example.org>
	  211- Date:   Mon Jun 18 10:00:00 2026 +0000
	  213:     store: the reserve file is made before the first write
	  215-     A body of three lines that says why, in words that
	  216-     the question does not use, so that the line that
	  217-     matches is the subject alone.
	  219-  src/lib/chunk.c | 4 ++--
	more: ofl-extract ID -n 209-221
	EOF
	test_cmp expect actual
'

# A list of events, each a JSON object: the reason matches the question,
# the message a few members above it says why.  And "how many" asks for a count.
test_expect_success 'setup: events, each with a reason, a message and a count' '
	{
		echo "{\"items\": ["
		i=1
		while [ $i -le 12 ]; do
			case $i in
			7) r=FailedScheduling
			   m="0/3 nodes are available: 3 Insufficient cpu." ;;
			9) r=BackOff
			   m="Back-off restarting failed container app" ;;
			*) r=Pulled
			   m="Container image \\\"app:1.$i\\\" already present" ;;
			esac
			[ $i -eq 1 ] || echo "    ,"
			echo "    {"
			echo "        \"count\": $((i * 3)),"
			echo "        \"involvedObject\": {"
			echo "            \"kind\": \"Pod\","
			echo "            \"name\": \"web-$i\""
			echo "        },"
			echo "        \"message\": \"$m\","
			echo "        \"metadata\": {"
			echo "            \"name\": \"web-$i.17f3a\","
			echo "            \"namespace\": \"default\","
			echo "            \"resourceVersion\": \"$((900 + i))\""
			echo "        },"
			echo "        \"reason\": \"$r\","
			echo "        \"type\": \"Normal\""
			echo "    }"
			i=$((i + 1))
		done
		echo "]}"
	} >events.json &&
	jq -e ".items | length == 12" events.json >/dev/null &&
	capture_id events.json id.ev &&
	ofl-index -q $(cat id.ev)
'

test_expect_success 'a JSON member that matches comes with the message of its object' '
	ofl-search "$(cat id.ev)" "why was the pod not scheduled" >out &&
	grep -x "  [0-9]*-         \"message\": \"0/3 nodes are available: 3 Insufficient cpu.\"," out
'

test_expect_success '"how many" finds the count of the object that matches' '
	ofl-search "$(cat id.ev)" "how many times did it back off" >out &&
	grep -x "  [0-9]*:         \"count\": 27," out
'

# dpkg.log: "libsqlite3-dev" answers the question, in the second hit,
# whose lines of one template each bring a note of the others: the note
# must not push the hit out of the budget.
test_expect_success 'a hit whose notes of similar lines pass the room is shown shorter' '
	capture_id "$DATA/eval/dpkg.log" id.dp &&
	ofl-index -q $(cat id.dp) &&
	ofl-search "$(cat id.dp)" "were the sqlite development headers installed" >out &&
	test "$(wc -c <out)" -le 1500 &&
	grep "^  2906: .* install libsqlite3-dev:amd64 " out
'

test_expect_success 'a library without the digits after its name' '
	ofl-search "$(cat id.dp)" "when was libsystemd upgraded" >out &&
	grep "^  2: .* upgrade libsystemd0:amd64 " out
'

test_expect_success 'a name of software finds its package: node, nodejs' '
	capture_id "$DATA/eval/apt-history.log" id.ap &&
	ofl-index -q $(cat id.ap) &&
	ofl-search "$(cat id.ap)" "when did the node install finish" >out &&
	grep -x "  45: Commandline: apt-get install -y nodejs" out &&
	grep -x "  47- End-Date: 2026-05-20  16:49:21" out
'

test_expect_success '"how many": the line with a number next to what was asked' '
	capture_id "$DATA/eval/ledger-unittest.out" id.lu &&
	ofl-index -q $(cat id.lu) &&
	ofl-search "$(cat id.lu)" "how many tests failed" >out &&
	grep -x "  137: FAILED (failures=2, errors=6, skipped=3, expected failures=1)" out
'

# Of lines worth as much, the one whose name holds fewer words the query
# does not ask: the package postgresql-15, not postgresql-client-common.
test_expect_success 'a name with less besides the word asked, first' '
	{
		test_lines "2026-05-20 16:27:%d install postgresql-client-common:all <none> 248+deb12u%d" 10 39 &&
		test_lines "2026-05-20 16:27:%d status unpacked libfoo%d:amd64 1.%d" 10 39 &&
		echo "2026-05-20 16:28:00 install postgresql-15:amd64 <none> 15.13-0+deb12u1"
	} >pg.log &&
	capture_id pg.log id.pg &&
	ofl-search -n 1 "$(cat id.pg)" "when was postgresql installed" >out &&
	grep "^  61: .* install postgresql-15:amd64 " out
'

# The digits of a version end a name: "python3" is python, whole.
test_expect_success 'a version'"'"'s digits end the name of a row' '
	{
		echo "package,version,description" &&
		echo "python3-minimal,3.11.2,minimal subset of the Python language (default python3 version)" &&
		test_lines "libthing%d,1.%d,a library of things" 0 9 &&
		echo "python3,3.11.2,interactive high-level language (default version)"
	} >pk.csv &&
	capture_id pk.csv id.pk &&
	ofl-search -n 1 -m 300 "$(cat id.pk)" "python version" >out &&
	grep "^  13: python3,3.11.2," out
'

# In prose, an option's name is about what it says: "--download-archive"
# answers "skip videos already downloaded".
test_expect_success 'in prose, a word inside an option'"'"'s name is not put behind' '
	capture_id "$DATA/docs/yt-dlp-README.md" id.yt &&
	ofl-index -q $(cat id.yt) &&
	ofl-search "$(cat id.yt)" "skip videos already downloaded" >out &&
	grep "^  536: *--download-archive FILE " out
'

# "How long": the line with a time taken, not the ones with a clock's.
test_expect_success '"how long": the line that gives the time taken' '
	{
		echo "=== RUN   TestAlpha" &&
		test_lines "2022-06-19T13:44:4%d.91 TestBeta: step %d of the beta run at 13:44:4%d" 1 8 &&
		echo "--- PASS: TestAlpha (1.20s)" &&
		test_lines "    other output line %d" 1 12 &&
		echo "--- PASS: TestBeta (0.42s)" &&
		echo "PASS"
	} >beta.out &&
	capture_id beta.out id.beta &&
	ofl-search -n 1 -m 200 "$(cat id.beta)" "how long did TestBeta take" >out &&
	grep -x "  23: --- PASS: TestBeta (0.42s)" out
'

# Five hits, one fact: JSON records that hold the same member with the
# same value fold into one, and the room goes to other facts.
test_expect_success 'JSON records with one member alike fold into one hit' '
	{
		printf "{\n  \"name\": \"pkg\",\n  \"versions\": [\n"
		i=1
		while [ $i -le 30 ]; do
			printf "    {\n      \"version\": \"1.%d.0\",\n" $i
			printf "      \"homepage\": \"http://pkg.example.org/\",\n"
			printf "      \"notes\": \"release %d of the package" $i
			j=0
			while [ $j -lt 12 ]; do
				printf " with words of note %d" $j
				j=$((j + 1))
			done
			printf "\"\n    },\n"
			i=$((i + 1))
		done
		printf "    {\n      \"version\": \"2.0.0\"\n    }\n  ],\n"
		printf "  \"homepage\": \"https://pkg.example.org/\",\n"
		printf "  \"license\": \"MIT\"\n}\n"
	} >pkg.json &&
	capture_id pkg.json id.pkg &&
	ofl-index -q $(cat id.pkg) &&
	ofl-search "$(cat id.pkg)" "homepage" >out &&
	grep -c "\"homepage\": \"http://pkg.example.org/\"" out >n &&
	echo 1 >expect &&
	test_cmp expect n &&
	grep "^  x[0-9]* similar: lines " out &&
	grep "\"homepage\": \"https://pkg.example.org/\"" out
'

# A template of variables alone ("<*> <*>", the two-word lines of a
# config dump) is no one fact: "http3: False" does not fold under
# "'enabled': True," as a similar line.
test_expect_success 'lines of a template of variables alone do not fold' '
	capture_id "$DATA/ci/treeherder-taskcluster-timeout.log" id.tc &&
	ofl-index -q $(cat id.tc) &&
	ofl-search "$(cat id.tc)" "is http3 enabled" -n 10 -m 3000 >out &&
	grep "^  1404: .* INFO -     http3: False$" out &&
	! grep "similar: .*1404" out
'

# In a diff, "new" asks for the lines added, "removed" for those taken
# out: of lines that match as well, those come first.
test_expect_success 'a diff: the side the question asks for comes first' '
	{
		echo "diff --git a/opts.go b/opts.go"
		echo "--- a/opts.go"
		echo "+++ b/opts.go"
		echo "@@ -1,12 +1,12 @@"
		test_lines " 	flags.BoolVar(&opts.keep%d, \"keep\", false)" 1 4
		echo "-	flags.BoolVar(&opts.gone, \"gone\", false)"
		test_lines " 	flags.BoolVar(&opts.keep%d, \"keep\", false)" 5 8
		echo "+	flags.BoolVar(&opts.fresh, \"fresh\", false)"
		test_lines " 	flags.BoolVar(&opts.keep%d, \"keep\", false)" 9 11
	} >opts.diff &&
	capture_id opts.diff id.opts &&
	ofl-search -n 1 -m 300 "$(cat id.opts)" "new flags" >out &&
	sed -n 2p out >first &&
	grep "^  14: +	flags.BoolVar(&opts.fresh" first &&
	ofl-search -n 1 -m 300 "$(cat id.opts)" "removed flags" >out &&
	sed -n 2p out >first &&
	grep "^  9: -	flags.BoolVar(&opts.gone" first
'

test_expect_success 'a log line that is the detail of an error comes with the error' '
	cat >pg.log <<-\EOF &&
	2026-12-05 13:32:52.100 UTC [16198] app@shop LOG:  statement: UPDATE stock SET n = n - 1 WHERE id = 20;
	2026-12-05 13:32:52.150 UTC [16198] app@shop LOG:  process 16198 still waiting for ShareLock on transaction 751 after 200.3 ms
	2026-12-05 13:32:52.374 UTC [16251] app@shop ERROR:  deadlock detected
	2026-12-05 13:32:52.374 UTC [16251] app@shop DETAIL:  Process 16251 waits for ShareLock on transaction 750; blocked by process 16198.
		Process 16198 waits for ShareLock on transaction 751; blocked by process 16251.
	2026-12-05 13:32:52.374 UTC [16251] app@shop HINT:  See server log for query details.
	2026-12-05 13:32:52.380 UTC [16251] app@shop LOG:  disconnection: session time: 0:00:01.2
	2026-12-05 13:32:53.000 UTC [16300] app@shop ERROR:  permission denied for table prices
	2026-12-05 13:32:53.000 UTC [16300] app@shop STATEMENT:  UPDATE prices SET amount = 1 WHERE id = 1;
	2026-12-05 13:32:53.100 UTC [16300] app@shop LOG:  disconnection: session time: 0:00:00.3
	EOF
	capture_id pg.log pgid &&
	ofl-search "$(cat pgid)" "each waits on the other process blocked" \
	    -m 500 >out &&
	grep "^  3[-:] .* ERROR:  deadlock detected\$" out &&
	grep "^  4: .* DETAIL:  Process 16251 waits" out &&
	ofl-search "$(cat pgid)" "why could it not change the prices amount" \
	    -m 500 >out &&
	grep "^  8[-:] .* ERROR:  permission denied for table prices\$" out &&
	grep "^  9: .* STATEMENT:  UPDATE prices" out
'

test_expect_success 'a compiler note comes with the error or warning it goes on' '
	awk "BEGIN { for (i = 1; i <= 30; i++)
	    printf \"cc -Wall -O2 -c -o obj%d.o src/file%d.c\n\", i, i }" >cc.log &&
	cat >>cc.log <<-\EOF &&
	util.c:12:5: warning: unused variable ‘n’ [-Wunused-variable]
	   12 |     int n;
	      |         ^
	cc -Wall -c -o pack.o pack.c
	pack.c: In function ‘run_tests’:
	pack.c:135:23: error: ‘pack_error’ undeclared (first use in this function); did you mean ‘check_error’?
	  135 |     if (json_pack_ex(&pack_error, 0, "s?+", "test", "ing"))
	      |                       ^~~~~~~~~~
	      |                       check_error
	pack.c:135:23: note: each undeclared identifier is reported only once for each function it appears in
	make: *** [Makefile:12: pack.o] Error 1
	EOF
	capture_id cc.log ccid &&
	ofl-search "$(cat ccid)" "identifier reported only once" >out &&
	grep "^  36[-:] pack.c:135:23: error: ‘pack_error’ undeclared" out &&
	grep "^  40: pack.c:135:23: note: each undeclared identifier" out
'

test_expect_success 'a line of a pytest failure report comes with what was raised' '
	{
	printf "tests/test_a.py::test_one PASSED\n" &&
	printf "tests/test_a.py::test_berlin_offset FAILED\n" &&
	printf "%s\n" "=================================== FAILURES ===================================" &&
	printf "%s\n" "_______________________________ test_berlin_offset _______________________________" &&
	printf "\n    def test_berlin_offset():\n" &&
	awk "BEGIN { for (i = 1; i <= 30; i++) printf \"        step%d = prepare(%d)\n\", i, i }" &&
	printf ">       assert t.utcoffset() == timedelta(hours=1)\n" &&
	printf "E       AssertionError: assert datetime.timedelta(seconds=7200) == datetime.timedelta(seconds=3600)\n" &&
	printf "\ntests/test_a.py:40: AssertionError\n" &&
	printf "%s\n" "=========================== short test summary info ============================" &&
	printf "FAILED tests/test_a.py::test_berlin_offset - AssertionError\n"
	} >py.out &&
	capture_id py.out pyid &&
	ofl-search "$(cat pyid)" "berlin offset" -m 400 >out &&
	grep "^  38[-:] E       AssertionError: assert datetime.timedelta(seconds=7200)" out
'

test_expect_success 'a question of versions, of a diff: the hunks of manifests first' '
	capture_id "$DATA/diff/gotestsum-v1.10.0..v1.13.0.diff" verid &&
	ofl-index -q "$(cat verid)" &&
	ofl-search "$(cat verid)" "which fsnotify version now" >out &&
	sed -n 1p out | grep "^ofl:$(cat verid):[0-9-]*  go.mod @@" &&
	grep "^  [0-9]*[-:] +	github.com/fsnotify/fsnotify v1.9.0" out &&
	# Not a question of versions: the order of the index.
	ofl-search "$(cat verid)" "fsnotify watcher event" >out &&
	! sed -n 1p out | grep "go.mod @@"
'

test_expect_success 'a hit that holds a version as typed comes before its pre-releases' '
	capture_id "$DATA/eval/fresh3/npm-view-webpack.json" wpid &&
	ofl-index -q "$(cat wpid)" &&
	ofl-search "$(cat wpid)" "when was 5.0.0 published" >out &&
	grep "^  1573[-:]     \"5.0.0\": \"2024-12-07T08:37:38.482000+00:00\"," out
'

test_expect_success 'a failing go test shows the first line it logged' '
	{
	awk "BEGIN { for (i = 1; i <= 40; i++) printf \"=== RUN   TestRead/Case%d\n    --- PASS: TestRead/Case%d (0.00s)\n\", i, i }" &&
	printf "=== RUN   TestWrite\n" &&
	printf "    writer_test.go:65: #23: out=\"x.\" want \"y.\"\n" &&
	printf "    writer_test.go:70: one more line it logged\n" &&
	printf -- "--- FAIL: TestWrite (0.00s)\n" &&
	printf "=== RUN   TestError\n--- PASS: TestError (0.00s)\n" &&
	printf "FAIL\nFAIL\texample.com/tally/csvx\t0.031s\n"
	} >go.out &&
	capture_id go.out goid &&
	ofl-search "$(cat goid)" "failed" -m 400 >out &&
	grep "^  84: --- FAIL: TestWrite (0.00s)" out &&
	grep "^  82- *writer_test.go:65: #23: out=" out
'

test_expect_success 'a heading inside a Markdown hit comes before a line that names it in passing' '
	cat >g.md <<-\EOF &&
	# Guide

	## Running tests

	To run the tests, use `make test`. The documentation of the test runner
	says more about the options it takes, for those who need them.

	#### Building the documentation

	To build it:

	```
	make doc
	```

	#### Coverage

	Coverage reports go to out/coverage, next to the documentation sources.
	EOF
	capture_id g.md gid &&
	ofl-search "$(cat gid)" documentation -m 300 >out &&
	sed "s/$(cat gid)/ID/" out >actual &&
	cat >expect <<-\EOF &&
	ofl:ID:3-18  Guide > Running tests  (0.0)
	  8: #### Building the documentation
	  10- To build it:
	  13: make doc
	more: ofl-extract ID -n 3-18
	EOF
	test_cmp expect actual
'

test_expect_success 'Markdown: a hit of several sections shows the heading of the one that answers' '
	cat >rel.md <<-\EOF &&
	# Guide

	## Setup

	Install the tools the build needs with the package manager of your
	system, then run the configure script from the top of the tree.  It
	finds the compilers and libraries and writes the makefiles:

	- a C compiler ([gcc](https://gcc.gnu.org/) or clang)
	- make

	#### Releases

	Each release is a tarball and a signature file.  Before you unpack
	one, check the tarball against the keys listed in the KEYS file at
	the top of the tree.

	#### Nightly builds

	Nightly builds are made from the main branch every day at midnight.
	EOF
	capture_id rel.md relid &&
	ofl-search "$(cat relid)" "check the tarball at the top of the tree" \
	    >out &&
	sed "s/$(cat relid)/ID/" out >actual &&
	cat >expect <<-\EOF &&
	ofl:ID:3-17  Guide > Setup  (2.0)
	  6: system, then run the configure script from the top of the tree.  It
	  9- - a C compiler ([gcc](https://gcc.gnu.org/) or clang)
	  10- - make
	  12- #### Releases
	  14: Each release is a tarball and a signature file.  Before you unpack
	  15: one, check the tarball against the keys listed in the KEYS file at
	  16: the top of the tree.
	more: ofl-extract ID -n 3-17
	EOF
	test_cmp expect actual
'

test_expect_success 'CSV: the row whose key holds the term, not one that names it elsewhere' '
	capture_id "$DATA/eval/fresh5/shared-mime-info-types.csv" mid &&
	ofl-search "$(cat mid)" "pdf icon" -m 400 >out &&
	grep -v "^  1- " out | sed -n 2p | cut -c 1-40 >actual &&
	echo "  19: application/pdf,PDF document,PDF,*" >expect &&
	test_cmp expect actual
'

test_expect_success 'JSON: of members that hold the same terms, the one whose key holds them first' '
	cat >scripts.json <<-\EOF &&
	{
	  "name": "bundler",
	  "scripts": {
	    "build": "npm run build:wasm && npm run build:js && npm run build:types && npm run build:docs && npm run build:licenses",
	    "build:js": "rollup -c",
	    "build:wasm": "wasm-pack build rust/bindings --target web",
	    "test": "vitest run"
	  }
	}
	EOF
	capture_id scripts.json sid &&
	ofl-search "$(cat sid)" "wasm build" -m 300 >out &&
	grep "^  6: .*build:wasm.: .wasm-pack build" out &&
	! grep "^  4:" out
'

test_expect_success 'Markdown: the example a paragraph leads to comes with it' '
	cat >redir.md <<-\EOF &&
	# Guide

	## Redirects

	A server may answer with a redirect: a code in the 300s and a new
	address for the page in the Location header ([RFC 9110](rfc.md)).

	The client does not follow such answers by default, but will show
	them as it shows every answer.  It has an option that makes it follow
	them to the end.

	To tell it to do so:

	    fetch --location http://www.example.com

	## Cookies

	Cookies are kept in a [jar](jar.md).
	EOF
	capture_id redir.md rid &&
	ofl-search "$(cat rid)" "option to follow redirects" >out &&
	sed "s/$(cat rid)/ID/" out >actual &&
	grep "^  14-  *fetch --location http://www.example.com$" actual &&
	! grep "^  18:" actual
'

test_expect_success 'a diff: what changed in the file the question names, not lines that name it' '
	{
		printf "diff --git a/go.mod b/go.mod\n--- a/go.mod\n+++ b/go.mod\n"
		printf "@@ -1,6 +1,8 @@\n module example.com/tool\n \n"
		printf "+go 1.22.0\n+\n require (\n"
		printf "+\texample.com/lib/doc v0.2.2\n"
		printf " \texample.com/lib/flag v1.0.7\n )\n"
		printf "diff --git a/go.sum b/go.sum\n--- a/go.sum\n+++ b/go.sum\n"
		printf "@@ -1,2 +1,4 @@\n"
		for m in doc/v0.2.2 flag/v1.0.7 color/v1.13.0 color/v1.18.0; do
			printf "+example.com/lib/%s/go.mod h1:%s=\n" \
			    "${m%%/*} ${m#*/}" AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
		done
	} >mod.diff &&
	capture_id mod.diff did &&
	ofl-search "$(cat did)" "new dependency in go.mod" >out &&
	grep "^  10- +	example.com/lib/doc v0.2.2$" out &&
	grep "^  7- +go 1.22.0$" out &&
	! grep "^  8- +$" out
'

test_expect_success 'a diff: a removed "-- comment" line does not end the file the question names' '
	{
		printf "diff --git a/db/schema.sql b/db/schema.sql\n"
		printf -- "--- a/db/schema.sql\n+++ b/db/schema.sql\n"
		printf "@@ -1,4 +1,5 @@\n"
		printf -- "--- accounts of the site\n"
		printf "+-- accounts of the site, with a role each\n"
		printf " CREATE TABLE accounts (\n"
		printf -- "-  handle text\n+  handle text NOT NULL,\n"
		printf "+  role text\n );\n"
		printf "diff --git a/NOTES b/NOTES\n--- a/NOTES\n+++ b/NOTES\n"
		printf "@@ -1,1 +1,2 @@\n keep schema.sql and the code in step\n"
		printf "+schema.sql: accounts get a role, see schema.sql\n"
	} >sql.diff &&
	capture_id sql.diff sqlid &&
	ofl-search "$(cat sqlid)" "what changed in schema.sql" >out &&
	grep "^  5[-:] --- accounts of the site$" out &&
	grep "^  6[-:] +-- accounts of the site, with a role each$" out &&
	grep "^  8[-:] -  handle text$" out
'

test_expect_success 'with room left, the first hit shows more lines around its best' '
	{
		i=1
		while [ $i -le 29 ]; do
			printf "2026-12-07 10:%02d:00 INFO sync pass %d done\n" $i $i
			i=$((i + 1))
		done
		printf "2026-12-07 10:30:00 ERROR upload of nightly.tar failed\n"
		printf "2026-12-07 10:30:01 INFO heartbeat ok\n"
		printf "2026-12-07 10:30:02 INFO heartbeat ok\n"
		printf "2026-12-07 10:30:03 INFO heartbeat ok\n"
		printf "2026-12-07 10:30:04 WARN cause: bucket quota of 5 GiB reached\n"
		i=31
		while [ $i -le 59 ]; do
			printf "2026-12-07 10:%02d:00 INFO sync pass %d done\n" $i $i
			i=$((i + 1))
		done
	} >up.log &&
	capture_id up.log upid &&
	ofl-search "$(cat upid)" "why did the upload fail" >out &&
	grep "^  30: .* ERROR upload of nightly.tar failed$" out &&
	grep "^  34- .* WARN cause: bucket quota of 5 GiB reached$" out &&
	test $(wc -c <out) -le 1500
'

test_expect_success 'the widened first hit keeps the colors of the hits after it' '
	i=1
	while [ $i -le 300 ]; do
		case $i in
		30) echo "2026-12-07 ERROR upload of nightly.tar failed" ;;
		250) echo "2026-12-07 INFO upload retried later and done" ;;
		*) echo "2026-12-07 INFO sync pass $i done" ;;
		esac
		i=$((i + 1))
	done >two.log &&
	capture_id two.log twoid &&
	ofl-search "$(cat twoid)" upload >plain &&
	grep "^  36- 2026-12-07 INFO sync pass 36 done$" plain &&
	ofl-search --color=always "$(cat twoid)" upload >col &&
	sed "s/$(printf "\033")\[[0-9;]*m//g" col >stripped &&
	test_cmp plain stripped &&
	grep "250$(printf "\033")\[m: 2026-12-07 INFO $(printf "\033")\[01;31mupload$(printf "\033")\[m retried" col
'

test_expect_success 'a line that introduces a list shows the list, past its own introduction' '
	{
		seq 1 40 | sed "s/.*/-- Looking for header&.h - found/"
		echo "-- Configuring done"
		echo "CMake Warning:"
		echo "  Manually-specified variables were not used by the project:"
		echo
		echo "    WITH_FROBNICATOR"
		echo
		echo
		echo "-- Build files have been written to: /tmp/b"
		seq 1 40 | sed "s/.*/[ &%] Building C object obj&.o/"
	} >cm.log &&
	capture_id cm.log cmid &&
	ofl-search -m 350 "$(cat cmid)" "cmake warning" >out &&
	grep "^  42: CMake Warning:$" out &&
	grep "^  45-     WITH_FROBNICATOR$" out
'

test_expect_success 'a doc comment shows what it documents' '
	{
		echo "--- a/lib/quota.js"
		echo "+++ b/lib/quota.js"
		echo "@@ -1,3 +1,240 @@"
		seq 1 100 | sed "s/.*/+var unrelated& = &;/"
		echo "+"
		echo "+/**"
		echo "+ * Limit of a tenant quota in RFC 9999 sec 2"
		echo "+ *"
		for r in a b c d e f g h; do
			echo "+ * rule-$r = 1*DIGIT"
		done
		echo "+ */"
		echo "+"
		echo "+var qre = /^[0-9]+[kmg]$/;"
		seq 1 100 | sed "s/.*/+var other& = &;/"
	} >q.diff &&
	capture_id q.diff qid &&
	ofl-search "$(cat qid)" "tenant quota" >out &&
	grep "^  106: + \* Limit of a tenant quota in RFC 9999 sec 2$" out &&
	grep "^  118- +var qre = /^\[0-9\]+\[kmg\]\$/;$" out
'

test_expect_success 'a line of an indented block under an empty line comes with the block'"'"'s title' '
	{
		echo "FAIL test/client.test.js"
		seq 1 30 | sed "s/.*/  ✓ case & passes (& ms)/"
		echo
		echo "  ● Client › gives up after three attempts"
		echo
		echo "    expect(received).toHaveLength(expected)"
		echo
		echo "    Expected length: 3"
		echo "    Expected value: an array of three calls"
		echo "    Expected order: first, second, third"
		echo "    Received length: 4"
		echo "    Received array:  [1, 2, 3, 4]"
		echo
		seq 1 12 | sed "s/.*/      & |   await step(&);/"
		echo
		echo "      at Object.<anonymous> (test/client.test.js:38:3)"
	} >jest.out &&
	capture_id jest.out jid &&
	ofl-search -m 300 "$(cat jid)" "received length" >out &&
	grep "^  40:     Received length: 4$" out &&
	grep "^  33-   ● Client › gives up after three attempts$" out
'

# capture_around N IDFILE LINE...: the lines given between two runs of N
# lines of a server accepting clients, captured; the ID into IDFILE.
capture_around() {
	n=$1 idf=$2
	shift 2
	{
		seq 11 $((n + 10)) |
		    sed "s/.*/2026-12-07 10:00:& INFO accepted client &/"
		printf "%s\n" "$@"
		seq 11 $((n + 10)) |
		    sed "s/.*/2026-12-07 10:02:& INFO accepted client &/"
	} >"$idf.log" &&
	capture_id "$idf.log" "$idf"
}

test_expect_success 'a question of why shows the error first, of lines with as many terms; a broker is no failure' '
	for w in server broker; do
		capture_around 20 whyid \
		    "2026-12-07 10:01:00 INFO $w going down for the maintenance window" \
		    "2026-12-07 10:01:01 INFO client 21 closed" \
		    "2026-12-07 10:01:02 ERROR $w down: no space left on device" &&
		ofl-search -m 200 "$(cat whyid)" "why is the $w down" >out &&
		grep "^  23: 2026-12-07 10:01:02 ERROR $w down" out &&
		ofl-search -m 200 "$(cat whyid)" "$w down" >out &&
		grep "^  21: .*INFO $w going down" out ||
		return 1
	done
'

test_expect_success 'a question of why shows the error the best line led to, in other words' '
	capture_around 30 rlid \
	    "2026-12-07 10:01:00 NOTICE reloading the proxy" \
	    "2026-12-07 10:01:01 NOTICE proxy version 2.6.12" \
	    "2026-12-07 10:01:02 ERROR parsing [proxy.cfg:14]: balance only supports roundrobin here" &&
	ofl-search -m 350 "$(cat rlid)" "why did the reloading go wrong" >out &&
	grep "^  31: .*NOTICE reloading the proxy" out &&
	grep "^  33- .*ERROR parsing \[proxy.cfg:14\]: balance only supports" out &&
	ofl-search -m 350 "$(cat rlid)" "reloading" >out &&
	! grep "ERROR parsing" out
'

test_expect_success 'a question of why: of a start seen twice, the one an error followed' '
	awk "BEGIN {
		print \"2026-01-01T10:00:00 relay version 1.2 starting\"
		print \"2026-01-01T10:00:00 config loaded from relay.conf\"
		print \"2026-01-01T10:00:00 opening listen socket on port 7000\"
		print \"2026-01-01T10:00:00 relay version 1.2 running\"
		for (i = 0; i < 12; i++)
			printf \"2026-01-01T10:00:%02d accepted connection %d, session opened\\n\", i + 1, i
		print \"2026-01-01T10:00:20 relay version 1.2 starting\"
		print \"2026-01-01T10:00:20 config loaded from relay.conf\"
		print \"2026-01-01T10:00:20 opening listen socket on port 7000\"
		print \"2026-01-01T10:00:20 Error: Address already in use\"
		for (i = 0; i < 12; i++)
			printf \"2026-01-01T10:00:%02d accepted connection %d, session opened\\n\", i + 21, i + 12
	}" >relay.log &&
	id=$(ofl-capture -q -T 0 <relay.log) &&
	ofl-search "$id" "why did the second relay fail to start" >out &&
	grep "^  17: .* relay version 1.2 starting\$" out &&
	grep "^  20- .* Error: Address already in use\$" out &&
	! grep "^  1: " out &&
	ofl-search "$id" "relay starting" >out &&
	grep "^  1: .* relay version 1.2 starting\$" out
'

test_expect_success 'a CSV hit below the header shows the header first, once an artifact' '
	{
		echo "code,country,name,kind"
		seq 100 399 | sed "s/.*/XX-&,Nowhere,Place &,district/"
		echo "FR-75,France,Paris,department"
		seq 400 699 | sed "s/.*/XX-&,Nowhere,Place &,district/"
		echo "FR-13,France,Marseille,department"
	} >places.csv &&
	capture_id places.csv csvid &&
	ofl-search "$(cat csvid)" "france department" >out &&
	grep "^  1- code,country,name,kind\$" out &&
	grep "^  302: FR-75,France,Paris,department\$" out &&
	test "$(grep -c "^  1- " out)" -eq 1 &&
	sed -n 2p out | grep "^  1- code," &&
	tr , "\t" <places.csv >places.tsv &&
	capture_id places.tsv tsvid &&
	ofl-search "$(cat tsvid)" "Marseille" >out &&
	grep "^  1- code	country	name	kind\$" out
'

test_expect_success 'a line of a jest failure brings what the test received' '
	cat >jest.out <<-\EOF &&
	FAIL test/invoice.test.js
	  invoiceNumber()
	    ✕ has six digits (2 ms)
	    ✓ keeps large sequence numbers (1 ms)

	  ● invoiceNumber() › has six digits

	    expect(received).toBe(expected) // Object.is equality

	    Expected: "INV-2026-000123"
	    Received: "INV-2026-00123"

	       9 | describe("invoiceNumber()", () => {
	      10 |   test("has six digits", () => {
	    > 11 |     expect(invoiceNumber(2026, 123)).toBe("INV-2026-000123");
	         |                                      ^
	      12 |   });

	      at Object.toBe (test/invoice.test.js:11:38)

	Tests:       1 failed, 1 passed, 2 total
	EOF
	capture_id jest.out jid &&
	ofl-search -m 400 "$(cat jid)" "invoice number six digits" >out &&
	grep "^  6: .*● invoiceNumber() › has six digits" out &&
	grep "^  11- *Received: \"INV-2026-00123\"" out
'

test_done
