#!/bin/sh
#
# t3030-extract-errors: error blocks and failing tests, whole, counted and
# ranked; recall on real CI logs against their ground truth.

. "$(dirname "$0")/lib.sh"

E=$DATA/extract/errors
CI=$DATA/ci

cap() {
	ofl-capture -T 0 -q | sed -n 's/^ofl:\([a-z0-9]*\).*/\1/p'
}

for f in "$E"/*.log "$E"/*.xml; do
	name=${f##*/}
	base=${name%.*}
	[ -f "$E/$base.expect" ] || continue
	test_expect_success "--errors on $name" '
		ofl-extract - --errors --max-bytes 0 <"$f" >out &&
		test_cmp "$E/$base.expect" out
	'
done

test_expect_success 'a clean log has no error block: exit 1' '
	test_expect_code 1 ofl-extract - --errors <"$E/clean.log" >out &&
	test ! -s out
'

test_expect_success 'every block line is the line of the artifact' '
	id=$(cap <"$E/go.log") &&
	ofl-extract "$id" --errors --max-bytes 0 | grep -v "^\[" >lines &&
	cut -f2- lines >got &&
	: >want &&
	for n in $(cut -f1 lines); do
		sed -n "${n}p" "$E/go.log" >>want
	done &&
	test_cmp want got
'

test_expect_success 'treeherder log: all 9 ground-truth lines are found' '
	id=$(cap <"$CI/treeherder-taskcluster-timeout.log") &&
	echo "$id" >th &&
	ofl-extract "$id" --errors --max-bytes 0 --json >blocks &&
	# The ground truth numbers lines from 0.
	sed -n "s/.*\"linenumber\": *\([0-9]*\).*/\1/p" \
	    "$CI/treeherder-taskcluster-timeout.logview.json" >truth &&
	test "$(wc -l <truth)" = 9 &&
	sed "s/.*\"occurrences\":\[\(.*\)\],\"text\".*/\1/" blocks |
	    tr "]" "\n" | sed "s/^,*\[//" | grep . >ranges &&
	while read -r n; do
		l=$((n + 1))
		awk -F, -v l="$l" "\$1 <= l && l <= \$2 { f = 1 } END { exit !f }" \
		    ranges || { echo "line $l not covered"; return 1; }
	done <truth
'

test_expect_success 'treeherder log: the summary is short and exact' '
	ofl-extract "$(cat th)" --errors >out &&
	test_cmp "$E/treeherder.expect" out
'

test_expect_success 'go test -json: every failing test is named' '
	id=$(cap <"$CI/gotestsum-go-test-json.out") &&
	echo "$id" >gt &&
	ofl-extract "$id" --errors --max-bytes 0 >out &&
	test "$(grep -c "^\[go-test-fail" out)" = 15 &&
	grep "\"Action\":\"fail\"" "$CI/gotestsum-go-test-json.out" |
	    sed -n "s/.*\"Test\":\"\([^\"]*\)\".*/\1/p" | sort -u >want &&
	test "$(wc -l <want)" = 12 &&
	grep "\"Action\":\"fail\"" out |
	    sed -n "s/.*\"Test\":\"\([^\"]*\)\".*/\1/p" | sort -u >got &&
	test_cmp want got &&
	grep "\"Action\":\"fail\"" "$CI/gotestsum-go-test-json.out" |
	    grep -v "\"Test\"" | wc -l >n &&
	test "$(cat n)" = 3 &&
	test "$(grep "\"Action\":\"fail\"" out | grep -vc "\"Test\"")" = 3
'

test_expect_success 'go test -json: a block holds the test'\''s own output' '
	ofl-extract "$(cat gt)" --errors --max-bytes 0 >out &&
	sed -n "/^\[go-test-fail\] lines 215-217/,/^\[/p" out | grep -v "^\[" |
	    cut -f1 | tr "\n" " " >got &&
	printf "215 216 217 " >want &&
	test_cmp want got
'

test_expect_success 'blocks that differ only in numbers are counted once' '
	ofl-extract - --errors --max-bytes 0 <"$E/python.log" | head -n 1 >out &&
	echo "[python-traceback x2] lines 2-14, 17-29" >expect &&
	test_cmp expect out
'

test_expect_success 'the most relevant kinds come first' '
	cat "$E/c.log" "$E/sanitizer.log" "$E/pytest.log" |
	    ofl-extract - --errors --max-bytes 0 | grep "^\[" | cut -d" " -f1 |
	    uniq >got &&
	cat >want <<-\EOF &&
	[test-run
	[failed]
	[rerun]
	[sanitizer]
	[crash]
	[compiler-error]
	[linker-error]
	[compiler-error]
	[pytest-failure]
	[error]
	[test-summary]
	EOF
	test_cmp want got
'

test_expect_success '-n limits where to look' '
	ofl-extract - --errors -n 10- <"$E/go.log" >out &&
	grep "^\[" out | head -n 1 >got &&
	echo "[go-panic] lines 12-21" >want &&
	test_cmp want got &&
	! grep -q "go-test-fail" out
'

test_expect_success 'over the budget: the rest is marked, --skip follows it' '
	id=$(cap <"$E/go.log") &&
	ofl-extract "$id" --errors --max-bytes 700 >out &&
	tail -n 1 out >mark &&
	echo "[... 6 more error blocks (2 compiler-error, 2 go-test-fail, 2 test-summary) of ofl:$id not shown: ofl-extract $id --max-bytes 700 --errors --skip 1]" >expect &&
	test_cmp expect mark &&
	: >all &&
	cp out page &&
	while grep -q "^\[\.\.\." page; do
		grep -v "^\[\.\.\." page >>all
		cmd=$(sed -n "s/^\[\.\.\. .* not shown: \(ofl-extract .*\)\]$/\1/p" page)
		eval "$cmd" >page || return 1
	done &&
	cat page >>all &&
	test_cmp "$E/go.expect" all
'

test_expect_success 'a block over the budget: its lines are marked' '
	id=$(cap <"$E/java.log") &&
	ofl-extract "$id" --errors --max-bytes 200 >out &&
	{
		echo "[java-stack-trace] lines 2-9"
		sed -n 2p "$E/java.log" | sed "s/^/2	/"
		sed -n 3p "$E/java.log" | sed "s/^/3	/"
		echo "[... lines 4-9 of ofl:$id not shown: ofl-extract $id --max-bytes 200 -n 4-9]"
		echo "[... 1 more error block (1 java-stack-trace) of ofl:$id not shown: ofl-extract $id --max-bytes 200 --errors --skip 1]"
	} >expect &&
	test_cmp expect out
'

test_expect_success '--json: kind, count, lines, occurrences, text' '
	ofl-extract - --errors --json <"$E/python.log" >out &&
	id=$(sed -n "1s/^{\"id\":\"\([^\"]*\)\".*/\1/p" out) &&
	printf "{\"id\":\"%s\",\"kind\":\"python-traceback\",\"count\":2,\"lines\":[2,14],\"occurrences\":[[2,14],[17,29]],\"text\":\"" "$id" >expect &&
	sed -n 2,14p "$E/python.log" | awk "{ gsub(/\\\\/, \"\\\\\\\\\"); gsub(/\"/, \"\\\\\\\"\"); printf \"%s%s\", (NR > 1 ? \"\\\\n\" : \"\"), \$0 }" >>expect &&
	printf "\"}\n" >>expect &&
	test_cmp expect out
'

test_expect_success '--limit prints fewer blocks, and says what is left' '
	ofl-extract - --errors --limit 1 <"$E/sanitizer.log" >out &&
	grep -c "^\[sanitizer" out >n &&
	echo 1 >one &&
	test_cmp one n &&
	tail -n 1 out | grep -q "3 more error blocks .*--errors --skip 1\]$"
'

test_done
