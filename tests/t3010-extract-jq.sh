#!/bin/sh
#
# t3010-extract-jq: jq filters through libjq, without the environment or
# the file system, on JSON and NDJSON, within the budget.

. "$(dirname "$0")/lib.sh"

D=$DATA/extract/jq

cap() {
	ofl-capture -T 0 -q | sed -n 's/^ofl:\([a-z0-9]*\).*/\1/p'
}

test_expect_success 'setup' '
	cap <"$D/pods.json" >pods &&
	cap <"$D/events.ndjson" >events &&
	test -s pods && test -s events
'
pods=$(cat pods 2>/dev/null)
events=$(cat events 2>/dev/null)
F='.items[] | select(.status.phase != "Running") | .metadata'

test_expect_success 'a filter prints what jq prints' '
	ofl-extract "$pods" "$F" >out &&
	test_cmp "$D/not-running.expect" out
'

test_expect_success JQ 'the same bytes as the jq program' '
	jq "$F" "$D/pods.json" >expect &&
	ofl-extract "$pods" "$F" >out &&
	test_cmp expect out &&
	jq -c ".items[].status" "$D/pods.json" >expect &&
	ofl-extract "$pods" -c ".items[].status" >out &&
	test_cmp expect out &&
	jq -r ".items[].status.message // empty" "$D/pods.json" >expect &&
	ofl-extract "$pods" -r ".items[].status.message // empty" >out &&
	test_cmp expect out
'

test_expect_success '-r prints strings raw, -c one result per line' '
	printf "web-2\ndb-0\njob-x\n" >expect &&
	ofl-extract "$pods" -r "$F | .name" >out &&
	test_cmp expect out &&
	printf "{\"app\":\"web\"}\n{\"app\":\"web\"}\n" >expect &&
	ofl-extract "$pods" -c ".items[0:2][].metadata.labels" >out &&
	test_cmp expect out
'

test_expect_success '--arg and --argjson bind variables' '
	printf "[\"prod\",{\"n\":2}]\n" >expect &&
	ofl-extract "$pods" -c --arg ns prod --argjson o "{\"n\":2}" \
	    "[\$ns, \$o]" >out &&
	test_cmp expect out &&
	printf "db-0\n" >expect &&
	ofl-extract "$pods" --arg p Failed -r \
	    ".items[] | select(.status.phase == \$p) | .metadata.name" >out &&
	test_cmp expect out
'

test_expect_success 'bad --argjson: exit 2' '
	test_expect_code 2 ofl-extract "$pods" --argjson x "{bad" . >out 2>err &&
	test ! -s out &&
	grep -q "^ofl-extract: --argjson x: invalid JSON text" err
'

test_expect_success 'env and $ENV are empty objects' '
	SECRET_TOKEN=hunter2 HOME=/nonexistent ofl-extract "$pods" -c \
	    "[env, \$ENV, env.PATH, \$ENV.SECRET_TOKEN]" >out &&
	echo "[{},{},null,null]" >expect &&
	test_cmp expect out
'

test_expect_success 'import and include are refused (exit 2)' '
	mkdir -p lib &&
	echo "{\"leak\":1}" >lib/data.json &&
	echo "def leak: 1;" >lib/m.jq &&
	for f in "import \"data\" as \$d {search: \"$PWD/lib\"}; \$d" \
	    "include \"m\" {search: \"$PWD/lib\"}; leak" \
	    "import \"m\" as m; m::leak" \
	    "  # comment
	     include \"m\"; ." \
	    "module {a: 1}; import \"m\" as m; ."; do
		test_expect_code 2 ofl-extract "$pods" "$f" >out 2>err &&
		test ! -s out &&
		grep -q "is not allowed: filters run without access to the file system" err || return 1
	done
'

test_expect_success 'no module search path, no ~/.jq' '
	mkdir -p home &&
	echo "def secret: \"leak\";" >home/.jq &&
	test_expect_code 2 env HOME="$PWD/home" ofl-extract "$pods" secret \
	    >out 2>err &&
	test ! -s out &&
	grep -q "secret/0 is not defined" err &&
	test_expect_code 3 ofl-extract "$pods" "\"m\" | modulemeta" >out 2>err &&
	test ! -s out
'

test_expect_success 'a compile error: jq'"'"'s first message, on one line: exit 2' '
	test_expect_code 2 ofl-extract "$pods" ".items[" >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^ofl-extract: jq: error: syntax error, .* line 1: \.items\[\$" err &&
	test_expect_code 2 ofl-extract "$pods" ".a | nosuchfn(1) | also(2)" \
	    >out 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^ofl-extract: jq: error: nosuchfn/1 is not defined" err
'

test_expect_success 'a filter with no result: exit 1' '
	test_expect_code 1 ofl-extract "$pods" ".items[] | select(.x)" >out &&
	test ! -s out &&
	test_expect_code 1 ofl-extract "$pods" empty >out &&
	test ! -s out
'

test_expect_success 'a run-time error: reported, exit 3' '
	test_expect_code 3 ofl-extract "$pods" -c ".items[] | .status.phase | .x" \
	    >out 2>err &&
	test ! -s out &&
	grep -q "^ofl-extract: jq: error (at ofl:$pods): Cannot index string with string \"x\"" err
'

test_expect_success 'run-time errors on many inputs: the first three said, then the count' '
	seq 1 2000 | cap >many &&
	test_expect_code 3 ofl-extract "$(cat many)" ".x" >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 4 &&
	sed -n 3p err | grep -q "^ofl-extract: jq: error (at ofl:$(cat many) line 3): Cannot index number" &&
	tail -n 1 err >last &&
	echo "ofl-extract: jq: the filter failed on 2000 inputs (the first 3 said above)" >expect &&
	test_cmp expect last
'

test_expect_success 'debug: the value on stderr as jq prints it, the result on stdout' '
	echo "{\"a\":1}" | cap >dbg &&
	ofl-extract "$(cat dbg)" -c ".a | debug | . + 1" >out 2>err &&
	echo 2 >expect && test_cmp expect out &&
	echo "ofl-extract: jq: [\"DEBUG:\",1]" >expect && test_cmp expect err &&
	ofl-extract "$(cat dbg)" -c debug >out 2>err &&
	echo "{\"a\":1}" >expect && test_cmp expect out &&
	echo "ofl-extract: jq: [\"DEBUG:\",{\"a\":1}]" >expect && test_cmp expect err
'

test_expect_success 'content that is not JSON: exit 3' '
	printf "{\"a\":\n" | cap >bad &&
	test_expect_code 3 ofl-extract "$(cat bad)" . >out 2>err &&
	grep -q "parse error" err
'

test_expect_success 'NDJSON: the filter runs per line, bad lines skipped' '
	ofl-extract "$events" -r "select(.level == \"error\") | .msg" >out 2>err &&
	printf "disk full\ntimeout\n" >expect &&
	test_cmp expect out &&
	echo "ofl-extract: ofl:$events: 1 line is not JSON (first: line 3: Invalid numeric literal at line 1, column 4): skipped" >expect &&
	test_cmp expect err
'

test_expect_success 'NDJSON: a line nested deeper than jq reads is said so' '
	{ echo "{\"a\":1}" && awk "BEGIN { for (i = 0; i < 300; i++) printf \"[\"; for (i = 0; i < 300; i++) printf \"]\"; print \"\" }" &&
	  echo "{\"a\":2}"; } | cap >deep &&
	ofl-extract "$(cat deep)" -c .a >out 2>err &&
	printf "1\n2\n" >expect &&
	test_cmp expect out &&
	test "$(wc -l <err)" = 1 &&
	grep "1 line is not JSON (first: line 2: Exceeds depth limit for parsing at line 1, column 257): skipped\$" err
'

test_expect_success 'NDJSON of which no line is JSON: an error, exit 3' '
	awk "BEGIN { for (j = 0; j < 3; j++) { for (i = 0; i < 300; i++) printf \"[\"; for (i = 0; i < 300; i++) printf \"]\"; print \"\" } }" |
	    cap >alldeep &&
	test_expect_code 3 ofl-extract "$(cat alldeep)" -c . >out 2>err &&
	test ! -s out &&
	echo "ofl-extract: ofl:$(cat alldeep): no line is JSON (first: line 1: Exceeds depth limit for parsing at line 1, column 257)" >expect &&
	test_cmp expect err
'

test_expect_success 'NUL bytes are no JSON (libjq would read 0)' '
	head -c 1000 /dev/zero | cap >nul &&
	test_expect_code 3 ofl-extract "$(cat nul)" . >out 2>err &&
	test ! -s out &&
	echo "ofl-extract: ofl:$(cat nul): no line is JSON (first: line 1: a NUL byte)" >expect &&
	test_cmp expect err &&
	printf "\0\0[1]" | cap >nul2 &&
	test_expect_code 3 ofl-extract "$(cat nul2)" . >out 2>err &&
	test ! -s out &&
	grep "^ofl-extract: ofl:$(cat nul2) is binary, not JSON" err &&
	printf "{\"a\":1}\n{\"b\":\0}\n{\"a\":3}\n" | cap >nul3 &&
	ofl-extract "$(cat nul3)" -c .a >out 2>err &&
	printf "1\n3\n" >expect &&
	test_cmp expect out &&
	grep "1 line is not JSON (first: line 2: a NUL byte): skipped\$" err
'

test_expect_success 'NDJSON with -n: only those lines' '
	printf "slow\ntimeout\n" >expect &&
	ofl-extract "$events" -n 4- -r .msg >out 2>err &&
	test_cmp expect out
'

test_expect_success 'input and inputs read the values that follow' '
	echo "[\"start\",\"disk full\",\"slow\",\"timeout\"]" >expect &&
	ofl-extract "$events" -c "[.msg, inputs.msg]" >out 2>/dev/null &&
	test_cmp expect out
'

test_expect_success '--json: id, line (NDJSON), jq path and value' '
	ofl-extract "$events" --json "select(.user == \"ann\") | .msg" \
	    >out 2>/dev/null &&
	{
		echo "{\"id\":\"$events\",\"line\":1,\"path\":\".msg\",\"value\":\"start\"}"
		echo "{\"id\":\"$events\",\"line\":4,\"path\":\".msg\",\"value\":\"slow\"}"
	} >expect &&
	test_cmp expect out &&
	ofl-extract "$pods" --json ".items[2].metadata.labels.tier, .kind" >out &&
	{
		echo "{\"id\":\"$pods\",\"path\":\".items[2].metadata.labels.tier\",\"value\":\"data\"}"
		echo "{\"id\":\"$pods\",\"path\":\".kind\",\"value\":\"List\"}"
	} >expect &&
	test_cmp expect out &&
	# Not a path expression: values without paths.
	ofl-extract "$pods" --json ".kind, (.items | length)" >out &&
	{
		echo "{\"id\":\"$pods\",\"value\":\"List\"}"
		echo "{\"id\":\"$pods\",\"value\":4}"
	} >expect &&
	test_cmp expect out
'

test_expect_success 'results over the budget are marked with --skip' '
	ofl-extract "$pods" -c ".items[].metadata.name" --max-bytes 20 >out &&
	{
		printf "\"web-1\"\n\"web-2\"\n"
		echo "[... results 3-4 of 4 of the filter on ofl:$pods not shown: ofl-extract $pods --max-bytes 20 -c --skip 2 '\''.items[].metadata.name'\'']"
	} >expect &&
	test_cmp expect out &&
	ofl-extract "$pods" --max-bytes 20 -c --skip 2 ".items[].metadata.name" >out &&
	printf "\"db-0\"\n\"job-x\"\n" >expect &&
	test_cmp expect out
'

test_expect_success 'a first result over the budget: its head, then how to get it' '
	ofl-extract "$pods" ".items[2]" --max-bytes 60 >out &&
	{
		echo "{"
		echo "  \"metadata\": {"
		echo "    \"name\": \"db-0\","
		echo "[... the rest of result 1 (208 of its 246 bytes) not shown: ofl-extract $pods --max-bytes 0 --limit 1 '\''.items[2]'\'']"
	} >expect &&
	test_cmp expect out &&
	ofl-extract "$pods" --max-bytes 0 --limit 1 ".items[2]" >out &&
	ofl-extract "$pods" --max-bytes 0 ".items[2]" >expect &&
	test_cmp expect out
'

test_expect_success '--skip and --limit' '
	printf "\"web-2\"\n\"db-0\"\n" >expect &&
	ofl-extract "$pods" -c --skip 1 --limit 2 ".items[].metadata.name" >out &&
	head -n 2 out >got &&
	test_cmp expect got &&
	tail -n 1 out | grep -q "result 4 of 4 .*--skip 3 --limit 2" &&
	test_expect_code 1 ofl-extract "$pods" --skip 9 ".items[]" >out &&
	test ! -s out
'

test_expect_success 'a filter on standard input: - as the ID' '
	echo "{\"k\":[1,2,3]}" | ofl-extract - ".k | length" >out &&
	echo 3 >expect &&
	test_cmp expect out &&
	echo "{\"k\":[1,2]}" | ofl-extract ".k[1]" >out &&
	echo 2 >expect &&
	test_cmp expect out
'

test_expect_success 'a filter on CSV reads records; on text: what it is, one line, exit 3' '
	printf "ip,name\n173.234.31.186,alpha\n10.0.0.1,beta\n" | cap >csv &&
	csv=$(cat csv) &&
	ofl-extract -c "$csv" . >out &&
	printf "%s\n" "{\"ip\":\"173.234.31.186\",\"name\":\"alpha\"}" "{\"ip\":\"10.0.0.1\",\"name\":\"beta\"}" >expect &&
	test_cmp expect out &&
	printf "hello\nworld\n" | cap >txt &&
	txt=$(cat txt) &&
	test_expect_code 3 ofl-extract "$txt" ".x" >out 2>err &&
	test ! -s out &&
	echo "ofl-extract: ofl:$txt is text, not JSON: a jq filter cannot read it; try -n A-B for lines, -e REGEX for matching lines" >expect &&
	test_cmp expect err
'

test_done
