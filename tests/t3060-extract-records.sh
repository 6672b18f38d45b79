#!/bin/sh
# t3060-extract-records: a jq filter reads a table, CSV or TSV artifact as
# a stream of objects keyed by the header, numbers where the whole column
# is numeric; ofl-schema gives the columns' types and value counts.  The
# answers are checked against awk over the same generated input.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

GEN="$OFL_SRCDIR/tests/gen-table.sh"

test_expect_success 'setup: the same 3,000 pods as a table, CSV and TSV' '
	"$GEN" pods 3000 >pods.txt &&
	awk "NR == 1 { print \"NAMESPACE,NAME,READY,STATUS,RESTARTS,AGE\"; next }
	    { r = \$5; if (\$6 ~ /^\\(/) { r = \$5 \" \" \$6 \" \" \$7; a = \$8 } else a = \$6
	      printf \"%s,%s,%s,%s,%s,%s\\n\", \$1, \$2, \$3, \$4, r, a }" pods.txt >pods.csv &&
	tr , "\\t" <pods.csv >pods.tsv &&
	ofl-capture -q <pods.txt >t && ofl-capture -q <pods.csv >c &&
	ofl-capture -q <pods.tsv >v &&
	for f in t c v; do
		ofl-search -j -n 1 "$(cat $f)" x 2>/dev/null; :
	done &&
	test "$(ofl-search -q -k table | wc -l)" -eq 1 &&
	test "$(ofl-search -q -k csv | wc -l)" -eq 1 &&
	test "$(ofl-search -q -k tsv | wc -l)" -eq 1
'

test_expect_success 'not Running: the same names as awk finds, on all three' '
	awk "NR > 1 && \$4 != \"Running\" { print \$2 }" pods.txt >expect &&
	test "$(wc -l <expect)" -eq 372 &&
	for f in t c v; do
		ofl-extract -m 0 -r "$(cat $f)" "select(.STATUS != \"Running\") | .NAME" >got.$f &&
		test_cmp expect got.$f || return 1
	done
'

test_expect_success 'restarts > 5: "5 (3m ago)" is the number 5' '
	awk "NR > 1 && \$5 + 0 > 5 { print \$2 }" pods.txt >expect &&
	test "$(wc -l <expect)" -eq 927 &&
	for f in t c v; do
		ofl-extract -m 0 -r "$(cat $f)" "select(.RESTARTS > 5) | .NAME" >got.$f &&
		test_cmp expect got.$f || return 1
	done
'

test_expect_success 'a row as an object; --json gives its line' '
	ofl-extract -c "$(cat t)" "select(.NAME == \"api-1-eb100\")" >out &&
	echo "{\"NAMESPACE\":\"default\",\"NAME\":\"api-1-eb100\",\"READY\":\"1/1\",\"STATUS\":\"Running\",\"RESTARTS\":5,\"AGE\":\"11d\"}" >expect &&
	test_cmp expect out &&
	ofl-extract -j "$(cat t)" "select(.NAME == \"api-1-eb100\") | .STATUS" >out &&
	id=$(cat t) &&
	echo "{\"id\":\"${id#ofl:}\",\"line\":3,\"path\":\".STATUS\",\"value\":\"Running\"}" >expect &&
	test_cmp expect out
'

test_expect_success 'numbers only where the whole column is; empty cells' '
	printf "id,zip,score,note\n1,02139,1.5,\n2,10001,,x\n3,94105,-2,\n" | ofl-capture -q -T 0 >id &&
	ofl-extract -c "$(cat id)" . >out &&
	cat >expect <<-\EOT &&
	{"id":1,"zip":"02139","score":1.5,"note":""}
	{"id":2,"zip":"10001","score":null,"note":"x"}
	{"id":3,"zip":"94105","score":-2,"note":""}
	EOT
	test_cmp expect out
'

test_expect_success 'CSV: quoted fields with commas, quotes and newlines' '
	printf "a,b\n\"x, y\",\"say \"\"hi\"\"\"\n\"two\nlines\",3\n" | ofl-capture -q -T 0 >id &&
	ofl-extract -c "$(cat id)" . >out &&
	cat >expect <<-\EOT &&
	{"a":"x, y","b":"say \"hi\""}
	{"a":"two\nlines","b":"3"}
	EOT
	test_cmp expect out
'

test_expect_success 'hostile: invalid UTF-8; a line over 128 KiB is cut, not read whole' '
	{ printf "NAME    STATUS\n\377\376    Running\nb       Error\n"; awk "BEGIN { for (i = 0; i < 300000; i++) printf \"y\"; print \"  Error\" }"; } >bad.txt &&
	ofl-capture -q -T 0 <bad.txt >id &&
	ofl-extract -m 0 -r "$(cat id)" ".STATUS" >out &&
	printf "Running\nError\n\n" >expect &&
	test_cmp expect out
'

test_expect_success 'an unknown ID: exit 3, one line' '
	test_expect_code 3 ofl-extract zzzzzzzz ".NAME" >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 1
'

test_expect_success 'ofl-schema on a table: types and exact value counts' '
	ofl-schema "$(cat t)" >out &&
	st=$(awk "NR > 1 { c[\$4]++ } END { for (k in c) print c[k], k }" pods.txt |
	    sort -k1,1nr -k2 | awk "BEGIN { ORS = \"\" } { printf \"%s\\\"%s\\\" %s\", NR == 1 ? \"\" : \", \", \$2, \$1 }") &&
	grep -F "  STATUS: string: $st" out &&
	grep "^  RESTARTS: integer 0\.\.14$" out &&
	head -n 1 out >first &&
	echo "table: 3,000 rows, 6 columns" >expect &&
	test_cmp expect first &&
	ofl-schema "$(cat c)" >csvout &&
	grep -F "  STATUS: string: $st" csvout &&
	ofl-schema -j "$(cat t)" | grep "\"column\":\"STATUS\"" | grep -F "\"Running\":2628"
'

test_expect_success 'a CSV that starts with a byte order mark: its first column named without it' '
	printf "\357\273\277id,name\r\n1,a\r\n2,b\r\n" | ofl-capture -q -T 0 >bom &&
	ofl-extract -c "$(cat bom)" ".id" >out &&
	printf "1\n2\n" >expect &&
	test_cmp expect out &&
	ofl-schema "$(cat bom)" >out &&
	grep "^  id: integer 1\.\.2$" out &&
	printf "\357\273\277\"id\",name\r\n1,a\r\n2,b\r\n" | ofl-capture -q -T 0 >bomq &&
	ofl-extract -c "$(cat bomq)" ".id" >out &&
	test_cmp expect out &&
	ofl-schema "$(cat bomq)" >out &&
	grep "^  id: integer 1\.\.2$" out
'

test_expect_success 'records cut (fields past the 1,024th, a line over 64 KiB) are said' '
	awk "BEGIN { for (r = 0; r < 6; r++) { for (i = 0; i < 1100; i++)
	    printf \"%s%s\", i ? \",\" : \"\", r ? r * 10000 + i : \"c\" i;
	    print \"\" } }" >wide.csv &&
	id=$(ofl-capture -q -T 0 <wide.csv) &&
	ofl-extract -c "$id" ".c1" >out 2>err &&
	test "$(wc -l <out)" -eq 5 &&
	echo "ofl-extract: 6 records cut: a line over 64 KiB, a record over 1 MiB or fields past the 1,024th are left out" >expect &&
	test_cmp expect err &&
	ofl-extract -c "$(cat t)" ".NAME" >out 2>err &&
	test ! -s err
'

test_done
