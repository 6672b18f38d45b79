#!/bin/sh
# ofl-capture --intent: the notice carries the top hits for the intent;
# without one, a log's notice carries its error signatures.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

LOG="$DATA/ci/treeherder-taskcluster-timeout.log"

test_expect_success '--intent: matches instead of the preview' '
	ofl-capture --intent "test timed out" -- cat "$LOG" >out &&
	head -n 1 out | grep "^ofl:[0-9a-z]* log 390 kB 2,701 lines" &&
	grep "^--- matches for intent: test timed out ---$" out &&
	grep "^--- end of matches ---$" out &&
	! grep "^--- head" out &&
	grep "^ofl:[0-9a-z]*:1521-1536 " out &&
	grep "^  1527: .* - TEST-UNEXPECTED-TIMEOUT | automation.py | application timed out after 370 seconds with no output$" out &&
	grep "^  x6 similar: lines 1698, 1854, 2024, 2196, \.\.\.$" out &&
	test $(wc -c <out) -lt 2500
'

test_expect_success 'every matched line is a line of the artifact' '
	id=$(sed -n "1s/^ofl:\([0-9a-z]*\).*/\1/p" out) &&
	sed -n "s/^  \([0-9][0-9]*\): .*/\1/p" out | sort -u >nums &&
	test -s nums &&
	while read n; do
		ofl-extract "$id" -n "$n" | cut -f2- >want &&
		sed -n "s/^  $n: //p" out | head -n 1 >got &&
		g=$(sed "s/\.\.\.\$//" got) &&
		w=$(cat want) &&
		case $g in
		...*) g=${g#...}; case $w in
			*"$g"*) ;;
			*) echo "line $n: $g" >&2; exit 1 ;;
			esac ;;
		*) case $w in
			"$g"*) ;;
			*) echo "line $n: $g" >&2; exit 1 ;;
			esac ;;
		esac
	done <nums
'

test_expect_success 'OFL_INTENT does the same' '
	OFL_INTENT="application timed out" ofl-capture <"$LOG" >out2 &&
	grep "^--- matches for intent: application timed out ---$" out2
'

test_expect_success 'an intent that matches nothing: said, then the preview' '
	ofl-capture -i "zzqqxx" <"$LOG" >out3 &&
	grep "^intent: no match for zzqqxx; the preview follows$" out3 &&
	grep "^--- head (lines 1-" out3
'

test_expect_success 'small output passes through whatever the intent' '
	printf "hello\n" | ofl-capture -i "hello" >small &&
	printf "hello\n" >expect &&
	test_cmp expect small
'

test_expect_success 'no intent: error templates with counts' '
	ofl-capture <"$LOG" >plain &&
	grep "^errors: 37 lines (first at line 1,527), warnings: 20 lines$" plain &&
	grep "^  error x7  TEST-UNEXPECTED-TIMEOUT.*(line 1,527, [0-9a-f]*)$" plain &&
	grep "^  error x28  failed to kill pid <\*> after <\*>  (line 1,555, " plain &&
	grep "^terms: " plain &&
	test $(grep -c "^  \(error\|warning\) x[0-9]" plain) -le 3 &&
	test $(wc -c <plain) -le 1700
'

test_expect_success JQ '--json with an intent: matches in the object' '
	ofl-capture -j -i "test timed out" <"$LOG" | jq -e ".offloaded" >/dev/null
'

test_done
