#!/bin/sh
#
# t4002-schema-errors: invalid, truncated and deeply nested input.

. "$(dirname "$0")/lib.sh"

S='{"$schema":"http://json-schema.org/schema#",'

test_expect_success 'invalid JSON: offset and line, no output, exit 3' '
	printf "{\"a\": 1,\n \"b\": [true,]}\n" >bad.json &&
	test_expect_code 3 ofl-schema -J <bad.json >out 2>err &&
	test ! -s out &&
	grep -q "^ofl-schema: [a-z0-9]*: invalid JSON at byte 21 (line 2): unexpected character '\'']'\'' (--lenient describes what parsed)\$" err
'

test_expect_success '--lenient: a schema of what parsed, exit 0' '
	ofl-schema --lenient -J -c @ >out 2>err &&
	echo "$S\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"array\",\"items\":{\"type\":\"boolean\"}}},\"required\":[\"a\",\"b\"]}" >expect &&
	test_cmp expect out &&
	echo "ofl-schema: @: invalid JSON at byte 21 (line 2): unexpected character '\'']'\''; describing what parsed before it" >expect &&
	test_cmp expect err &&
	ofl-schema -l @ >out 2>/dev/null &&
	echo "{a: integer 1, b: [true] x1}" >expect &&
	test_cmp expect out
'

test_expect_success 'truncated JSON: the error is at the end' '
	head -c 50000 "$DATA/json/dependabot-github-commits.json" >cut.json &&
	test_expect_code 3 ofl-schema <cut.json >out 2>err &&
	test ! -s out &&
	grep -q ": invalid JSON at byte 50000 (line 833): unterminated string" err &&
	ofl-schema -l -m 300 @ >out 2>err &&
	head -n 1 out | grep -q "^\[{sha: string, node_id: string, commit: {" &&
	grep -q "x11\$" out
'

test_expect_success 'truncated NDJSON' '
	printf "{\"a\":1}\n{\"a\":2}\n{\"a\":" >cut.ndjson &&
	test_expect_code 3 ofl-schema --kind ndjson <cut.ndjson 2>err &&
	grep -q ": invalid JSON at byte 21 (line 3): unexpected end of input" err &&
	ofl-schema -l @ >out 2>/dev/null &&
	echo "{a?: integer 1..2 67%} x3 values" >expect &&
	test_cmp expect out
'

test_expect_success 'other kinds refuse JSON errors too: --kind json' '
	printf "hello {\n" >text &&
	test_expect_code 3 ofl-schema <text 2>err &&
	grep -q "text content has no schema" err &&
	test_expect_code 3 ofl-schema --kind json @ 2>err &&
	grep -q ": invalid JSON at byte 0 (line 1): unexpected character '\''h'\''" err
'

test_expect_success 'text whose lines start with [ is text, not broken JSON' '
	printf "[stage one] RUN: make -j 1\n[stage one] Making all in config\n" >stage.txt &&
	printf "[2024-05-01] released\n" >date.txt &&
	printf "[[bin]]\nname = \"x\"\n" >tables.txt &&
	for f in stage.txt date.txt tables.txt; do
		test_expect_code 3 ofl-schema <$f >out 2>err &&
		test ! -s out &&
		grep -q "^ofl-schema: [a-z0-9]*: text content has no schema" err ||
		return 1
	done &&
	printf "[12:00:01] started\n[12:00:02] stopped\n" >clock.log &&
	ofl-schema <clock.log >out &&
	grep -q "^ofl:[a-z0-9]* log: 2 lines, 2 templates" out &&
	printf "[1, 2,\n" >num.json &&
	printf "[ -3.5e+2 ]x" >exp.json &&
	printf "{\"a\": [tru" >lit.json &&
	printf "[\n  {\"id\": 1}," >obj.json &&
	printf "[[1, 2], [3," >nest.json &&
	for f in num.json exp.json lit.json obj.json nest.json; do
		test_expect_code 3 ofl-schema <$f 2>err &&
		grep -q ": invalid JSON at byte" err ||
		return 1
	done
'

test_expect_success 'nesting 100,000 deep: no crash, cut at 256 levels' '
	awk "BEGIN { for (i = 0; i < 100000; i++) printf \"[\";
	    for (i = 0; i < 100000; i++) printf \"]\"; print \"\" }" >deep.json &&
	ofl-schema -J -c <deep.json >out 2>err &&
	grep -q "^ofl-schema: [a-z0-9]*: 99743 values nested deeper than 256 levels left out\$" err &&
	test "$(grep -o "\"items\"" out | wc -l)" -eq 256 &&
	ofl-schema -m 200 @ >shape 2>/dev/null &&
	test "$(wc -c <shape)" -le 200 &&
	grep -q "^(cut at depth" shape
'

test_expect_success 'nesting 100,000 deep, unclosed: an error, no crash' '
	head -c 100000 deep.json >open.json &&
	test_expect_code 3 ofl-schema --kind json <open.json 2>err &&
	grep -q ": invalid JSON at byte 100000 (line 1): unexpected end of input" err
'

test_expect_success 'objects nested 100,000 deep' '
	awk "BEGIN { for (i = 0; i < 100000; i++) printf \"{\\\"k\\\":\";
	    printf \"1\"; for (i = 0; i < 100000; i++) printf \"}\"; print \"\" }" >deepo.json &&
	ofl-schema <deepo.json >out 2>err &&
	grep -q "99744 values nested deeper than 256 levels" err &&
	grep -q "^{k: {k: {k: " out
'

test_expect_success 'invalid UTF-8 in keys and strings becomes U+FFFD' '
	printf "{\"a\\377\":\"x\\300y\"}" >utf.json &&
	ofl-schema --kind json -J -c @ <utf.json >out 2>/dev/null;
	ofl-schema --kind json -J -c <utf.json >out &&
	printf "%s\"type\":\"object\",\"properties\":{\"a\\357\\277\\275\":{\"type\":\"string\"}},\"required\":[\"a\\357\\277\\275\"]}\n" "$S" >expect &&
	test_cmp expect out
'

test_expect_success 'two forms of output: a usage error, not the last one' '
	echo "{\"a\":1}" | ofl-capture -q -T 0 >ref &&
	test_expect_code 2 ofl-schema -J -j "$(cat ref)" >out 2>err &&
	test ! -s out &&
	echo "ofl-schema: --shape, --json-schema and --json go one at a time" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-schema --shape -J "$(cat ref)" 2>err &&
	test_cmp expect err &&
	ofl-schema -j -j "$(cat ref)" >out &&
	test "$(wc -l <out)" -eq 2
'

# An ID with a tab was named twice, once raw ("ab<TAB>c: ab c: ...").
test_expect_success 'a bad ID with control bytes: said once, safely' '
	test_expect_code 2 ofl-schema "$(printf "ab\tc")" >out 2>err &&
	test ! -s out &&
	echo "ofl-schema: ab c: not an artifact ID" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-schema "$(printf "ab\033c")" 2>err &&
	echo "ofl-schema: ab?c: not an artifact ID" >expect &&
	test_cmp expect err
'

test_done
