#!/bin/sh
#
# t4001-schema-input: where ofl-schema takes its artifacts from (IDs,
# prefixes, @, ofl: reference lines on stdin, raw data on stdin), and its
# exit codes.

. "$(dirname "$0")/lib.sh"

# id_of: the artifact ID in the first -j line on stdin.
id_of() {
	sed -n '1s/^{"id":"\([^"]*\)".*/\1/p'
}

test_expect_success '--help: usage on stdout, exit 0' '
	ofl-schema --help >out 2>err &&
	test ! -s err &&
	grep -q "^usage: ofl-schema \[-cJjl\] \[--no-pager\] \[--shape\]" out &&
	ofl-schema -h >out2 &&
	test_cmp out out2
'

test_expect_success 'bad usage: usage on stderr, exit 2' '
	test_expect_code 2 ofl-schema --bogus >out 2>err &&
	test ! -s out &&
	grep -q "^usage: ofl-schema " err &&
	test_expect_code 2 ofl-schema --kind log @ 2>err &&
	grep -q "^ofl-schema: --kind log: use json, ndjson, csv, tsv or table" err &&
	test_expect_code 2 ofl-schema -m lots @ 2>err &&
	grep -q "^ofl-schema: --max-bytes lots: " err
'

test_expect_success 'raw data on stdin is captured, then described' '
	echo "{\"a\":1}" | ofl-schema >out &&
	echo "{a: integer 1}" >expect &&
	test_cmp expect out &&
	echo "[true]" | ofl-schema -j >out &&
	id=$(id_of <out) &&
	test -n "$id" &&
	echo "$id" >first
'

test_expect_success 'an ID, a prefix, ofl:ID, @ and @2' '
	id=$(cat first) &&
	echo "[true] x1" >expect &&
	ofl-schema "$id" >a && test_cmp expect a &&
	ofl-schema "$(echo "$id" | cut -c1-6)" >b && test_cmp expect b &&
	ofl-schema "ofl:$id" >c && test_cmp expect c &&
	ofl-schema @ >d && test_cmp expect d &&
	echo "{a: integer 1}" >expect &&
	ofl-schema @2 >e && test_cmp expect e
'

test_expect_success 'reference lines on stdin name the artifacts' '
	id=$(cat first) &&
	ofl-schema -j @2 | id_of >second &&
	printf "ofl:%s json 6 B 1 line\nshape: [true]\nofl:%s json 8 B 1 line\n" \
	    "$id" "$(cat second)" | ofl-schema >out &&
	cat >expect <<-EOT &&
	ofl:$id json
	[true] x1
	ofl:$(cat second) json
	{a: integer 1}
	EOT
	test_cmp expect out
'

test_expect_success 'several IDs: a header line before each shape' '
	ofl-schema @ @2 >out &&
	grep -c "^ofl:[a-z0-9]* json\$" out >n &&
	echo 2 >expect &&
	test_cmp expect n
'

test_expect_success 'one bad ID among several: message, go on, exit 3' '
	test_expect_code 3 ofl-schema @ zzzzzzzz @2 >out 2>err &&
	echo "ofl-schema: zzzzzzzz: unknown artifact" >expect &&
	test_cmp expect err &&
	grep -c "^ofl:" out >n &&
	echo 2 >expect &&
	test_cmp expect n
'

test_expect_success 'an unknown ID alone: no output, exit 3' '
	test_expect_code 3 ofl-schema zzzzzzzz >out 2>err &&
	test ! -s out &&
	grep -q "^ofl-schema: zzzzzzzz: " err
'

test_expect_success 'a kind without a schema: a clear error, exit 3' '
	printf "hello\nworld\n" | test_expect_code 3 ofl-schema >out 2>err &&
	test ! -s out &&
	grep -q "^ofl-schema: [a-z0-9]*: text content has no schema (only JSON, NDJSON, CSV, TSV and tables" err
'

test_expect_success '--kind reads content as another kind' '
	printf "a;b\n" | ofl-schema --kind csv >out &&
	printf "csv: 0 rows, 1 column\n  \"a;b\": empty\n" >expect &&
	test_cmp expect out
'

test_expect_success 'NDJSON: one schema merged over all lines' '
	printf "{\"a\":1}\n{\"a\":\"x\",\"b\":null}\n{\"a\":2.5}\n" >in.ndjson &&
	ofl-schema -J -c <in.ndjson >out &&
	echo "{\"\$schema\":\"http://json-schema.org/schema#\",\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"number\",\"string\"]},\"b\":{\"type\":\"null\"}},\"required\":[\"a\"]}" >expect &&
	test_cmp expect out &&
	ofl-schema @ >out &&
	echo "{a: \"x\"|number 1..2.5, b?: null 33%} x3 values" >expect &&
	test_cmp expect out
'

test_expect_success 'CSV: columns with types, counts and examples' '
	printf "id,when,who,ok\n1,2024-01-01T10:00:00Z,ann,true\n2,,bob,false\n3,2024-01-02T11:00:00Z,NULL,true\n" >in.csv &&
	ofl-schema <in.csv >out &&
	cat >expect <<-\EOT &&
	csv: 3 rows, 4 columns
	  id: integer 1..3
	  when: date-time, 1 empty, e.g. "2024-01-01T10:00:00Z", "2024-01-02T11:00:00Z"
	  who: string, 1 null, e.g. "ann", "bob"
	  ok: boolean
	EOT
	test_cmp expect out
'

test_expect_success 'CSV: an example is whole, or cut with ... after its quote' '
	long=$(printf "%070d" 7) &&
	utf=$(printf "%039d\303\251%030d" 1 2) &&
	printf "msg,n\nInvalid user webmaster from 173.234.31.186,1\n%s,2\n%s,3\n" \
	    "$long" "$utf" >in.csv &&
	ofl-schema <in.csv >out &&
	printf "csv: 3 rows, 2 columns\n  msg: string, e.g. \"Invalid user webmaster from 173.234.31.186\", \"%s\"..., \"%s\"...\n  n: integer 1..3\n" \
	    "$(printf "%040d" 0)" "$(printf "%039d" 1)" >expect &&
	test_cmp expect out
'

test_expect_success 'TSV' '
	printf "k\tv\nx\t1\ny\t2\nx\t3\ny\t\n" | ofl-schema >out &&
	printf "tsv: 4 rows, 2 columns\n  k: string: \"x\" 2, \"y\" 2\n  v: integer 1..3, 1 empty\n" >expect &&
	test_cmp expect out
'

test_expect_success 'secrets in values are masked unless OFL_REDACT=off' '
	echo "{\"k\":\"AKIAIOSFODNN7EXAMPLE\"}" | ofl-schema >out &&
	echo "{k: \"[redacted: aws-access-key]\"}" >expect &&
	test_cmp expect out &&
	ofl-schema -j @ >out &&
	! grep -q AKIAIOSFODNN7EXAMPLE out &&
	OFL_REDACT=off ofl-schema @ >out &&
	echo "{k: \"AKIAIOSFODNN7EXAMPLE\"}" >expect &&
	test_cmp expect out
'

test_expect_success 'a full stdout is an error' '
	test_expect_code 3 ofl-schema @ >/dev/full 2>err &&
	grep -q "^ofl-schema: stdout" err
'

test_expect_success '-s names the store' '
	echo "[1]" | ofl-schema -s "$PWD/other" >out &&
	test -d other &&
	echo "[integer 1] x1" >expect &&
	test_cmp expect out &&
	ofl-schema --store "$PWD/other" @ >out &&
	test_cmp expect out
'

test_expect_success 'CSV: rows longer than the header are ragged, and said so' '
	printf "a,b\n1,2,3,4\n5\n6,7\n8,9\n" >r.csv &&
	ofl-schema -k csv <r.csv >out 2>err &&
	echo "ofl-schema: 2 fields past the header'"'"'s 2 left out" >expect &&
	sed "s/^ofl-schema: [0-9a-z]*: /ofl-schema: /" err >actual &&
	test_cmp expect actual &&
	head -n 1 out | grep "^csv: 4 rows, 2 columns, 2 ragged rows$"
'

test_expect_success 'CSV: more columns than kept, and no row ragged' '
	awk "BEGIN { for (r = 0; r < 3; r++) { for (i = 0; i < 1200; i++)
	    printf \"%s%s\", i ? \",\" : \"\", r ? r * 10000 + i : \"c\" i;
	    print \"\" } }" >w.csv &&
	ofl-schema -k csv <w.csv >out 2>err &&
	echo "ofl-schema: 600 fields beyond 1000 columns left out" >expect &&
	sed "s/^ofl-schema: [0-9a-z]*: /ofl-schema: /" err >actual &&
	test_cmp expect actual &&
	head -n 1 out | grep "^csv: 2 rows, 1,000 columns$"
'

test_expect_success 'CSV: a repeated or empty header name is the one a jq filter of ofl-extract uses' '
	printf "id,name,name,\n1,a,b,c\n2,d,e,f\n" >dup.csv &&
	id=$(ofl-capture -q -T 0 <dup.csv | sed "s/^ofl://") &&
	ofl-schema -j "$id" | jq -r .column >names &&
	printf "%s\n" id name name_3 "column 4" >expect &&
	test_cmp expect names &&
	ofl-extract -r "$id" "keys_unsorted[]" | head -n 4 >keys &&
	test_cmp expect keys
'

test_expect_success 'CSV read as CSV: a NUL byte in a number makes it no number' '
	{ echo name,size && echo a,12 && echo b,30 && printf "c,7\000\n"; } >nul.csv &&
	id=$(ofl-capture -q -T 0 <nul.csv) && id=${id#ofl:} &&
	ofl-schema --kind csv "$id" >out &&
	grep "^  size: string" out &&
	{ echo name,size && echo a,12 && echo b,30 && echo c,7; } >num.csv &&
	id=$(ofl-capture -q -T 0 <num.csv) && id=${id#ofl:} &&
	ofl-schema --kind csv "$id" >out &&
	grep "^  size: int" out
'

test_done
