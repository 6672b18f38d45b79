#!/bin/sh
# t3070-diff: ofl-diff says what changed between two artifacts by kind:
# rows of tables by key, JSON paths, failing tests and error lines of
# logs, else a unified diff; exit 0 same, 1 different, 2 trouble.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

GEN="$OFL_SRCDIR/tests/gen-table.sh"

# cap FILE: store FILE whatever its size and print its ID.
cap() {
	ofl-capture -j -T 0 <"$1" | sed 's/^{"id":"\([0-9a-z]*\)".*/\1/'
}

# norm: the two IDs of a report as OLD and NEW.
norm() {
	sed -e "s/$1/OLD/g" -e "s/$2/NEW/g"
}

test_expect_success 'tables: rows added, removed and changed, by NAMESPACE/NAME' '
	"$GEN" pods 3000 >a.txt &&
	sed -e "5s/Running /Error   /" -e 100d a.txt >b.txt &&
	echo "default          new-pod-1                                        1/1    Running            0              1m" >>b.txt &&
	a=$(cap a.txt) && b=$(cap b.txt) &&
	echo "$a" >a.id && echo "$b" >b.id &&
	test_expect_code 1 ofl-diff "$a" "$b" >out &&
	norm "$a" "$b" <out >actual &&
	cat >expect <<-\EOT &&
	ofl:OLD table -> ofl:NEW table
	rows: 1 added, 1 removed, 1 changed (key: NAMESPACE/NAME)
	+ default/new-pod-1 (line 3001): NAMESPACE default, NAME new-pod-1, READY 1/1, STATUS Running, RESTARTS 0, AGE 1m
	- logging/db-98-e3480 (line 100): NAMESPACE logging, NAME db-98-e3480, READY 1/1, STATUS Running, RESTARTS 8 (17m ago), AGE 5d
	~ payments/worker-3-8d480 (line 5): STATUS Running -> Error
	EOT
	test_cmp expect actual
'

test_expect_success 'tables: --json, one change a line' '
	a=$(cat a.id) && b=$(cat b.id) &&
	test_expect_code 1 ofl-diff -j "$a" "$b" >out &&
	sed -n 2p out >actual &&
	echo "{\"kind\":\"rows\",\"key\":\"NAMESPACE/NAME\",\"added\":1,\"removed\":1,\"changed\":1}" >expect &&
	test_cmp expect actual &&
	grep -F "{\"change\":\"changed\",\"key\":\"payments/worker-3-8d480\",\"line\":5,\"cells\":{\"STATUS\":[\"Running\",\"Error\"]}}" out
'

test_expect_success 'the same artifact: exit 0' '
	a=$(cat a.id) &&
	ofl-diff "$a" "$a" >out &&
	tail -n 1 out >actual &&
	echo "same content" >expect &&
	test_cmp expect actual
'

test_expect_success 'CSV: keyed by the first column' '
	printf "id,state\n1,up\n2,up\n3,down\n" >a.csv &&
	printf "id,state\n1,up\n2,down\n4,up\n" >b.csv &&
	test_expect_code 1 ofl-diff "$(cap a.csv)" "$(cap b.csv)" >out &&
	sed 1d out >actual &&
	cat >expect <<-\EOT &&
	rows: 1 added, 1 removed, 1 changed (key: id)
	+ 4 (line 4): id 4, state up
	- 3 (line 4): id 3, state down
	~ 2 (line 3): state up -> down
	EOT
	test_cmp expect actual
'

test_expect_success 'JSON: paths added, removed and changed' '
	printf "{\"a\":1,\"b\":{\"c\":[1,2,3]},\"d\":\"x\"}\n" >a.json &&
	printf "{\"a\":2,\"b\":{\"c\":[1,2]},\"e\":true,\"d\":\"x\"}\n" >b.json &&
	test_expect_code 1 ofl-diff "$(cap a.json)" "$(cap b.json)" >out &&
	sed 1d out >actual &&
	cat >expect <<-\EOT &&
	paths: 1 added, 1 removed, 1 changed
	+ .e: true
	- .b.c[2]: 3
	~ .a: 1 -> 2
	EOT
	test_cmp expect actual
'

test_expect_success 'a test rerun with one new failure leads with it' '
	{ for i in 1 2 3 4 5; do echo "ok $i - case $i"; done;
	  echo "not ok 6 - parses dates"; echo "1..6"; } >run1.tap &&
	{ for i in 1 2 3; do echo "ok $i - case $i"; done;
	  echo "not ok 4 - case 4"; echo "ok 5 - case 5";
	  echo "not ok 6 - parses dates"; echo "1..6"; } >run2.tap &&
	test_expect_code 1 ofl-diff "$(cap run1.tap)" "$(cap run2.tap)" >out &&
	sed -n 2,4p out >actual &&
	cat >expect <<-\EOT &&
	tests: 1 newly failing, 1 still failing, 0 newly passing
	  new failure: not ok - case  (line 4)
	  still failing: not ok - parses dates  (line 6)
	EOT
	test_cmp expect actual
'

test_expect_success 'go test and automake: newly passing too' '
	printf "=== RUN   TestA\n--- FAIL: TestA (0.01s)\n=== RUN   TestB\n--- FAIL: TestB (0.02s)\nFAIL\n" >go1.log &&
	printf "=== RUN   TestA\n--- PASS: TestA (0.01s)\n=== RUN   TestB\n--- FAIL: TestB (0.03s)\nFAIL\n" >go2.log &&
	test_expect_code 1 ofl-diff "$(cap go1.log)" "$(cap go2.log)" >out &&
	sed -n 2,4p out >actual &&
	cat >expect <<-\EOT &&
	tests: 0 newly failing, 1 still failing, 1 newly passing
	  still failing: --- FAIL: TestB  (line 4)
	  now passing: --- FAIL: TestA  (line 2 of the old)
	EOT
	test_cmp expect actual
'

test_expect_success 'logs: new error lines, masked' '
	printf "2024-01-01 10:00:0%d INFO ok\n" 1 2 3 >l1.log &&
	printf "2024-01-01 10:00:01 INFO ok\n2024-01-01 10:00:02 ERROR db: connection refused (attempt 7)\n2024-01-01 10:00:03 INFO ok\n" >l2.log &&
	test_expect_code 1 ofl-diff "$(cap l1.log)" "$(cap l2.log)" >out &&
	sed -n 2p out >actual &&
	echo "error lines: 1 new, 0 gone, 0 counted differently" >expect &&
	test_cmp expect actual &&
	grep "^  new: .*ERROR db: connection refused (attempt <\*>)  (line 2)$" out
'

test_expect_success 'text: a unified diff with context' '
	seq 1 100 >s1 &&
	{ seq 1 50; echo inserted; seq 51 70; seq 72 100; } >s2 &&
	test_expect_code 1 ofl-diff "$(cap s1)" "$(cap s2)" >out &&
	sed 1,3d out >actual &&
	cat >expect <<-\EOT &&
	@@ -48,6 +48,7 @@
	 48
	 49
	 50
	+inserted
	 51
	 52
	 53
	@@ -68,7 +69,6 @@
	 68
	 69
	 70
	-71
	 72
	 73
	 74
	EOT
	test_cmp expect actual &&
	diff -u s1 s2 | sed 1,2d >gnu &&
	test_cmp gnu actual
'

test_expect_success 'the budget: the rest is one command away' '
	seq 1 3000 >big1 && seq 1 3000 | sed "s/5$/five/" >big2 &&
	o=$(cap big1) && n=$(cap big2) &&
	test_expect_code 1 ofl-diff "$o" "$n" >out &&
	test "$(wc -c <out)" -le 2000 &&
	tail -n 1 out | grep "^\[\.\.\. [0-9]* more lines not shown: ofl-diff -m 0 $o $n\]$" &&
	ofl-diff -m 0 "$o" "$n" >all;
	test $? -eq 1 &&
	test "$(grep -c "^+.*five$" all)" -eq 300
'

test_expect_success 'over 1,500 differences: the region that differs' '
	seq 1 5000 >r1 && seq 1 5000 | sed "s/$/x/" >r2 &&
	o=$(cap r1) && n=$(cap r2) &&
	test_expect_code 1 ofl-diff "$o" "$n" >out &&
	sed 1d out | norm "$o" "$n" >actual &&
	echo "lines: over 1500 differ: lines 1-5000 of ofl:OLD are replaced by lines 1-5000 of ofl:NEW" >expect &&
	test_cmp expect actual
'

test_expect_success 'hostile: empty, binary, NUL, invalid UTF-8, a huge line' '
	printf "" >empty && printf "a\0b\n" >nul && printf "\377\376\n" >bad &&
	awk "BEGIN { for (i = 0; i < 300000; i++) printf \"z\"; print \"\" }" >huge &&
	head -c 3000 /dev/urandom >rnd 2>/dev/null || dd if=/dev/urandom of=rnd bs=1000 count=3 2>/dev/null;
	for x in empty nul bad huge rnd; do
		cap $x >$x.id || return 1
	done &&
	for x in empty nul bad huge rnd; do
		for y in empty nul bad huge rnd; do
			ofl-diff "$(cat $x.id)" "$(cat $y.id)" >out 2>err
			rc=$?
			if [ "$x" = "$y" ]; then want=0; else want=1; fi
			test $rc -eq $want || { echo "$x $y: $rc"; return 1; }
			test ! -s err || return 1
			test "$(wc -c <out)" -le 2000 || return 1
		done
	done
'

test_expect_success JQ 'a line diff with --json: JSON Lines, a record a line' '
	printf "a\n1\nb\n" >l1 && printf "a\n2\nb\n" >l2 &&
	a=$(cap l1) && b=$(cap l2) &&
	test_expect_code 1 ofl-diff -j "$a" "$b" >out &&
	jq -c "del(.old_kind, .new_kind) | del(select(.new | type == \"string\") | .old, .new)" out >actual &&
	cat >expect <<-\EOT &&
	{}
	{"change":"hunk","old":1,"old_lines":3,"new":1,"new_lines":3}
	{"change":"line","op":" ","old":1,"new":1,"text":"a"}
	{"change":"line","op":"-","old":2,"text":"1"}
	{"change":"line","op":"+","new":2,"text":"2"}
	{"change":"line","op":" ","old":3,"new":3,"text":"b"}
	EOT
	test_cmp expect actual
'

test_expect_success 'tables under other columns: said, and compared as lines' '
	printf "NAME    STATUS   AGE\nweb-1   Running  3d\nweb-2   Running  1d\n" >h1 &&
	printf "NAMESPACE  NAME    STATUS   AGE\ndefault    web-1   Running  3d\ndefault    web-2   Running  1d\n" >h2 &&
	a=$(cap h1) && b=$(cap h2) &&
	test_expect_code 1 ofl-diff "$a" "$b" >out &&
	sed -n 2p out >actual &&
	echo "columns: NAME STATUS AGE -> NAMESPACE NAME STATUS AGE: the rows compared as lines" >expect &&
	test_cmp expect actual &&
	grep -x "+default    web-2   Running  1d" out
'

test_expect_success 'bytes that differ are never "same content"' '
	printf "{\"a\":1,\"b\":[]}\n" >j1 && printf "{\"a\":1}\n" >j2 &&
	a=$(cap j1) && b=$(cap j2) &&
	test_expect_code 1 ofl-diff "$a" "$b" >out &&
	grep -x "no change by json; the text differs:" out &&
	grep -x "+{\"a\":1}" out &&
	! grep "same content" out &&
	printf "x\ny\n" >n1 && printf "x\ny" >n2 &&
	a=$(cap n1) && b=$(cap n2) &&
	test_expect_code 1 ofl-diff "$a" "$b" >out &&
	grep -x "lines: the same, but not their ends (a CR, or the newline after the last)" out &&
	! grep "same content" out
'

test_expect_success 'the budget: a head of the report, cut at the first line that does not fit' '
	{ printf "a\nb\n"; printf "%0190d\n" 0; printf "c\nd\n"; } >c1 &&
	printf "a\nb\nshort\nc\nd\n" >c2 &&
	a=$(cap c1) && b=$(cap c2) &&
	test_expect_code 1 ofl-diff -m 300 "$a" "$b" >out &&
	! grep "^+short" out &&
	tail -n 1 out | grep "^\[\.\.\. [0-9]* more lines not shown: ofl-diff -m 0 $a $b\]$" &&
	test_expect_code 1 ofl-diff -m 1 "$a" "$b" >out &&
	test "$(wc -l <out)" -eq 2 &&
	head -n 1 out | grep "^ofl:$a text -> ofl:$b text$"
'

test_expect_success JQ 'JSON values over 1 KB: cut in --json too, the others shown' '
	{ printf "{\"a\":\""; head -c 100000 /dev/zero | tr "\\000" x;
	  printf "\",\"b\":1}\n"; } >bigv1.json &&
	sed "s/x/y/g; s/:1}/:2}/" bigv1.json >bigv2.json &&
	v1=$(cap bigv1.json) && v2=$(cap bigv2.json) &&
	test_expect_code 1 ofl-diff -j "$v1" "$v2" >out &&
	jq -c "select(.path == \".b\")" out >b &&
	echo "{\"change\":\"changed\",\"path\":\".b\",\"old\":1,\"new\":2}" >expect &&
	test_cmp expect b &&
	jq -c "select(.path == \".a\") | [.old_cut, .new_cut,
	    (.old | length) < 100]" out >a &&
	echo "[true,true,true]" >expect &&
	test_cmp expect a
'

test_expect_success 'an unknown ID or bad usage: exit 2, one line' '
	test_expect_code 2 ofl-diff zzzzzzzz "$(cap s1)" >out 2>err &&
	test ! -s out &&
	echo "ofl-diff: zzzzzzzz: unknown artifact" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-diff "$(cap s1)" >out 2>err &&
	test_expect_code 2 ofl-diff --bogus a b >out 2>err &&
	test_expect_code 2 ofl-diff -m -1 "$(cap s1)" "$(cap s1)" >out 2>err &&
	echo "ofl-diff: --max-bytes -1: not a size (use 512, 64k, 2M, 1G)" >expect &&
	test_cmp expect err
'

test_expect_success 'a line range: exit 2, said, not ignored' '
	a=$(cap s1) &&
	test_expect_code 2 ofl-diff "$a:1-2" "$a" >out 2>err &&
	test ! -s out &&
	echo "ofl-diff: $a:1-2: ofl-diff compares whole artifacts, not line ranges" >expect &&
	test_cmp expect err
'

test_expect_success 'secrets are masked in lines, values and JSON records; --no-redact shows them' '
	S=$DATA/secrets &&
	grep "^S	" "$S/table.tsv" | cut -f 3 | grep -v "^@" >secrets &&
	grep "^S	" "$S/table.tsv" | grep -v "	@" | cut -f 4 >needles &&
	test $(wc -l <secrets) -ge 20 &&
	awk "{ print \"old \" NR \": \" \$0 }" secrets >s.old &&
	awk "{ print \"new \" NR \": \" \$0 }" secrets >s.new &&
	a=$(cap s.old) && b=$(cap s.new) &&
	test_expect_code 1 ofl-diff -m 0 "$a" "$b" >out 2>err &&
	test $(grep -c "^-old" out) -eq $(wc -l <secrets) &&
	! grep -F -f needles out &&
	grep "^ofl-diff: [0-9]* secrets masked (OFL_REDACT=off shows them)\$" err &&
	test_expect_code 1 ofl-diff -j -m 0 "$a" "$b" >out 2>err &&
	! grep -F -f needles out &&
	jq -c . out >/dev/null &&
	test_expect_code 1 ofl-diff --no-redact -m 0 "$a" "$b" >out 2>err &&
	grep -c -F -f needles out >n &&
	test $(cat n) -ge 20 &&
	test ! -s err &&
	jq -Rn "{rows: [inputs]}" <secrets >j.old &&
	jq "{rows: [.rows[] | \"v: \" + .]}" j.old >j.new &&
	a=$(cap j.old) && b=$(cap j.new) &&
	test_expect_code 1 ofl-diff -m 0 "$a" "$b" >out 2>err &&
	grep "^~ .rows\[0\]" out &&
	! grep -F -f needles out &&
	test_expect_code 1 ofl-diff -j -m 0 "$a" "$b" >out 2>err &&
	! grep -F -f needles out &&
	jq -c . out >/dev/null
'

test_expect_success 'the body of a private key in a hunk that starts inside it is masked' '
	key=$DATA/secrets/fake-rsa.pem &&
	{ seq 1 40; cat "$key"; seq 41 80; } >k.old &&
	{ seq 1 40; sed "20s/^./x/" "$key"; seq 41 80; } >k.new &&
	a=$(cap k.old) && b=$(cap k.new) &&
	test_expect_code 1 ofl-diff -m 0 "$a" "$b" >out 2>err &&
	grep "^@@" out &&
	grep -v -e "^-----" -e BEGIN -e END "$key" >body &&
	! grep -F -f body out &&
	grep "redacted" out
'

test_expect_success 'a secret that alone changed is numbered apart; one that did not keeps its number' '
	t1=ghp_abcdefghijklmnopqrstuvwxyz0123456789 &&
	t2=ghp_zyxwvutsrqponmlkjihgfedcba9876543210 &&
	t3=ghp_SAMEabcdefghijklmnopqrstuvwxyz012345 &&
	printf "one\nexport API_TOKEN=%s\nkeep=%s\nthree\n" $t1 $t3 >s.old &&
	printf "one\nexport API_TOKEN=%s\nkeep=%s\nthree\n" $t2 $t3 >s.new &&
	a=$(cap s.old) && b=$(cap s.new) &&
	test_expect_code 1 ofl-diff "$a" "$b" >out 2>err &&
	grep "^-export API_TOKEN=\[redacted: github-token #1\]\$" out &&
	grep "^+export API_TOKEN=\[redacted: github-token #2\]\$" out &&
	grep "^ keep=\[redacted: github-token #3\]\$" out &&
	! grep -e "$t1" -e "$t2" -e "$t3" out &&
	grep "secrets masked" err &&
	printf "{\"token\":\"%s\"}\n" $t1 >j.old &&
	printf "{\"token\":\"%s\"}\n" $t2 >j.new &&
	a=$(cap j.old) && b=$(cap j.new) &&
	test_expect_code 1 ofl-diff "$a" "$b" >out &&
	grep "^~ .token: \"\[redacted: github-token #1\]\" -> \"\[redacted: github-token #2\]\"\$" out
'

test_expect_success 'snapshots: another URL or title is a change, said; refs renumbered alone are not' '
	snap=$DATA/snapshot/bc-manual.txt &&
	a=$(cap "$snap") &&
	sed "s/ref=f4e/ref=f9e/g" "$snap" >renum &&
	b=$(cap renum) &&
	ofl-diff "$a" "$b" >out &&
	sed -n 2p out | grep "^no changes: [0-9]* tree lines, refs left out\$" &&
	sed -e "s|^- Page URL: .*|- Page URL: http://127.0.0.1:8765/bc/bc.html#Variables|" \
	    -e "s|^- Page Title: .*|- Page Title: bc: Variables|" renum >moved &&
	c=$(cap moved) &&
	test_expect_code 1 ofl-diff "$a" "$c" >out &&
	sed -n "3,4p" out >actual &&
	cat >expect <<-\EOT &&
	url: http://127.0.0.1:8765/bc/bc.html -> http://127.0.0.1:8765/bc/bc.html#Variables
	title: bc Command Manual -> bc: Variables
	EOT
	test_cmp expect actual &&
	sed -n 2p out | grep "^changes: 0 regions added, 0 removed, 0 elements changed" &&
	test_expect_code 1 ofl-diff -j "$a" "$c" >out &&
	grep -F "{\"change\":\"snapshot\",\"line\":\"title: bc Command Manual -> bc: Variables\"}" out
'

test_expect_success 'a CR before the newline: shown where the line ends differ, left out where every line has one' '
	printf "a\r\nb\r\nc\r\n" >crlf &&
	printf "a\nb\r\nc\r\n" >mixed &&
	printf "a\r\nB\r\nc\r\n" >crlf2 &&
	a=$(cap crlf) &&
	test_expect_code 1 ofl-diff "$a" "$(cap mixed)" >out &&
	sed -n "5,6p" out >actual &&
	printf "%s\n" "-a\\x0d" "+a" >expect &&
	test_cmp expect actual &&
	test_expect_code 1 ofl-diff "$a" "$(cap crlf2)" >out &&
	sed -n "6,7p" out >actual &&
	printf "%s\n" "-b" "+B" >expect &&
	test_cmp expect actual
'

test_expect_success 'a private key added: its lines masked, each with its + mark, and the lines after it shown' '
	key=$DATA/secrets/fake-rsa.pem &&
	{ seq 1 10; seq 11 100 | sed "s/^/line /"; } >p.old &&
	{ seq 1 5; cat "$key"; seq 6 10; seq 11 100 | sed "s/^/line /" |
	    sed "s/^line 50\$/line fifty/"; } >p.new &&
	a=$(cap p.old) && b=$(cap p.new) &&
	test_expect_code 1 ofl-diff -m 0 "$a" "$b" >out 2>err &&
	grep -v -e "^-----" -e BEGIN -e END "$key" >body &&
	! grep -F -f body out &&
	test $(grep -c "^+\[redacted: private-key\]\$" out) -eq 26 &&
	grep "^+line fifty\$" out &&
	! sed 1,3d out | grep -v "^[-+ @]"
'

test_done
