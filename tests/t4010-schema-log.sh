#!/bin/sh
#
# t4010-schema-log: the templates of a log.  ofl-schema lists them (golden
# outputs for logs in tests/data), ofl-extract --template prints the lines
# of one, a stack trace belongs to its first line's template, the same
# content always gives the same templates and IDs, memory stays flat on a
# log of millions of distinct lines, and hostile lines (100 MB on one
# line, NUL bytes, invalid UTF-8) are read without harm.

. "$(dirname "$0")/lib.sh"

L="$DATA/schema/log"
TMPL="$OFL_BUILDDIR/tests/unit/tmpl-ids"
# The store keeps the templates of every log here, however small (by
# default those of a log under 64k are mined again when asked for).
OFL_TMPL_KEEP=0
export OFL_TMPL_KEEP

# peak_kb CMD...: run CMD, print its peak RSS in KiB (GNU time).
peak_kb() {
	/usr/bin/time -f "%M" -o rss "$@" >/dev/null 2>&1 || return 1
	tail -n 1 rss
}

test_expect_success 'a log with stack traces: its templates, most frequent first' '
	id=$(ofl-capture -q -T 0 <"$L/trace.log") && id=${id#ofl:} &&
	echo "$id" >trace.id &&
	ofl-schema "$id" | sed "s/$id/ID/" >out &&
	test_cmp "$L/trace.tmpl" out
'

test_expect_success 'a word with many values is a variable, one of two is not' '
	grep -q " session opened for user <\*>\$" out &&
	grep -q " reload requested by root\$" out &&
	grep -q " reload requested by admin\$" out
'

test_expect_success 'ofl-extract --template: its lines, a stack trace included' '
	id=$(cat trace.id) &&
	ofl-extract "$id" --template 7415c15bb666 >out &&
	test_cmp "$L/trace-7415c15bb666.out" out
'

test_expect_success 'ofl-extract --template under a budget: the command for the rest' '
	id=$(cat trace.id) &&
	ofl-extract "$id" --template 7415c15bb666 -m 200 >out &&
	head -n 1 out >first &&
	printf "5\t2024-05-02 10:11:13,001 ERROR [pool-1] c.e.Handler - request failed for user alice\n" >expect &&
	test_cmp expect first &&
	grep -q "^\[\.\.\. .* more lines\{0,1\} of template 7415c15bb666 (lines .*) of ofl:$id not shown: ofl-extract $id --max-bytes 200 --template 7415c15bb666 -n [0-9]*-29\]\$" out &&
	ofl-extract "$id" --template 7415c15bb666 --max-bytes 0 >all &&
	test_cmp "$L/trace-7415c15bb666.out" all
'

test_expect_success 'ofl-extract --template: an unknown ID, a usage error' '
	id=$(cat trace.id) &&
	test_expect_code 3 ofl-extract "$id" --template 000000000000 >out 2>err &&
	test ! -s out &&
	grep -q "no template 000000000000 (ofl-schema $id lists them)" err &&
	jid=$(echo "{\"a\":1}" | ofl-capture -q -T 0 | sed "s/^ofl://") &&
	test_expect_code 3 ofl-extract "$jid" --template 000000000000 2>err &&
	echo "ofl-extract: ofl:$jid: no template 000000000000" >expect &&
	test_cmp expect err &&
	test_expect_code 2 ofl-extract "$id" --template 7415c15bb666 -e x 2>err &&
	grep -q "^ofl-extract: --template goes with no filter, -e or --errors" err
'

test_expect_success 'golden templates of a dpkg log' '
	id=$(ofl-capture -q <"$DATA/eval/dpkg.log") && id=${id#ofl:} &&
	ofl-schema "$id" -m 0 | sed "s/$id/ID/" >out &&
	test_cmp "$L/dpkg.tmpl" out
'

test_expect_success 'the budget: the first templates and the command for the rest' '
	ofl-schema @ -m 300 >out &&
	test "$(wc -c <out)" -lt 420 &&
	id=$(ofl-search -q -n 1) && id=${id#ofl:} &&
	tail -n 1 out >last &&
	echo "[... 9 more templates not shown: ofl-schema $id --max-bytes 0]" >expect &&
	test_cmp expect last
'

test_expect_success '--json: one object per template' '
	ofl-schema --json @ >out &&
	test "$(wc -l <out)" -eq 12 &&
	head -n 1 out >first &&
	id=$(ofl-search -q -n 1) && id=${id#ofl:} &&
	echo "{\"id\":\"$id\",\"template_id\":\"723bb5b3ba68\",\"template\":\"status <*> <*> <*>\",\"count\":4126,\"first_line\":3,\"last_line\":5778,\"level\":null}" >expect &&
	test_cmp expect first &&
	test_expect_code 3 ofl-schema -J @ 2>err &&
	grep -q "log content has no JSON Schema" err
'

test_expect_success 'a log whose lines start with [ is a log, not broken JSON' '
	id=$(ofl-capture -q <"$DATA/ci/treeherder-taskcluster-timeout.log") &&
	id=${id#ofl:} &&
	ofl-search -k log -q | grep -q "$id" &&
	ofl-schema "$id" >out 2>err &&
	test ! -s err &&
	grep -q "^ofl:$id log: 2,701 lines, [0-9]* templates" out
'

test_expect_success 'deterministic: the same content, the same templates and IDs' '
	id=$(cat trace.id) &&
	ofl-schema -m 0 "$id" >one &&
	OFL_STORE=$PWD/other ofl-capture -q -T 0 <"$L/trace.log" |
	    sed "s/^ofl://" >id2 &&
	OFL_STORE=$PWD/other ofl-schema -m 0 "$(cat id2)" | sed "s/$(cat id2)/$id/" >two &&
	test_cmp one two &&
	"$TMPL" "$DATA/eval/dpkg.log" >ids1 &&
	"$TMPL" "$DATA/eval/dpkg.log" >ids2 &&
	test_cmp ids1 ids2 &&
	test "$(wc -l <ids1)" -eq 5778
'

test_expect_success sqlite3,STOREDIR 'ofl-schema keeps the templates it mines' '
	id=$(cat trace.id) &&
	sqlite3 "$OFL_STORE/ofl.db" "DELETE FROM log_tmpl" &&
	ofl-schema "$id" | sed "s/$id/ID/" >out &&
	test_cmp "$L/trace.tmpl" out &&
	n=$(sqlite3 "$OFL_STORE/ofl.db" "SELECT count(*) FROM log_tmpl") &&
	test "$n" -eq 9 &&
	tid=$(sqlite3 "$OFL_STORE/ofl.db" "SELECT tid FROM log_tmpl WHERE rank = 0") &&
	test "$tid" = "miner 2"
'

test_expect_success sqlite3,STOREDIR 'templates kept by another version of the miner are mined again' '
	id=$(cat trace.id) &&
	sqlite3 "$OFL_STORE/ofl.db" "UPDATE log_tmpl SET tid = substr(tid, 1, 0)
	    WHERE rank = 0; UPDATE log_tmpl SET template =
	    CAST(char(115, 116, 97, 108, 101) AS BLOB) WHERE rank > 0" &&
	ofl-schema "$id" | sed "s/$id/ID/" >out &&
	test_cmp "$L/trace.tmpl" out &&
	! sqlite3 "$OFL_STORE/ofl.db" "SELECT template FROM log_tmpl" | grep -q stale
'

# An older ofl made the cache WITHOUT ROWID, keyed by blob and rank: a
# writer makes it again as a table of row ids, its rows dropped.
test_expect_success sqlite3,STOREDIR 'a template cache keyed by blob is made again, its templates mined again' '
	id=$(cat trace.id) &&
	ofl-schema "$id" >/dev/null &&
	sqlite3 "$OFL_STORE/ofl.db" "CREATE TABLE t2 AS SELECT * FROM log_tmpl;
	    DROP TABLE log_tmpl; CREATE TABLE log_tmpl (blob INTEGER NOT NULL,
	    rank INTEGER NOT NULL, tid TEXT NOT NULL, count INTEGER NOT NULL,
	    first_line INTEGER NOT NULL, last_line INTEGER NOT NULL, level TEXT,
	    template BLOB, PRIMARY KEY (blob, rank)) WITHOUT ROWID;
	    INSERT INTO log_tmpl SELECT * FROM t2; DROP TABLE t2" &&
	test "$(sqlite3 "$OFL_STORE/ofl.db" "SELECT count(*) FROM log_tmpl")" -eq 9 &&
	echo "hello" | ofl-capture >/dev/null &&
	sqlite3 "$OFL_STORE/ofl.db" "SELECT sql LIKE \"%WITHOUT ROWID%\" FROM
	    sqlite_master WHERE name = \"log_tmpl\"; SELECT count(*) FROM log_tmpl;
	    SELECT name FROM sqlite_master WHERE tbl_name = \"log_tmpl\"
	    ORDER BY name" >out &&
	printf "0\n0\nlog_tmpl\nlog_tmpl_key\n" >expect &&
	test_cmp expect out &&
	ofl-schema "$id" | sed "s/$id/ID/" >out &&
	test_cmp "$L/trace.tmpl" out &&
	ofl-schema "$id" | sed "s/$id/ID/" >out &&
	test_cmp "$L/trace.tmpl" out &&
	test "$(sqlite3 "$OFL_STORE/ofl.db" "SELECT count(*) FROM log_tmpl WHERE
	    blob = (SELECT blob FROM log_tmpl WHERE rank = 8)")" -eq 9
'

test_expect_success 'indexing mines and keeps the templates; gc drops them' '
	id=$(cat trace.id) &&
	ofl-index "$id" >/dev/null &&
	ofl-schema "$id" | sed "s/$id/ID/" >out &&
	test_cmp "$L/trace.tmpl" out &&
	if test_have_prereq sqlite3,STOREDIR; then
		n=$(sqlite3 "$OFL_STORE/ofl.db" "SELECT count(*) FROM log_tmpl") &&
		test "$n" -gt 8 &&
		ofl-gc --purge "$id" >/dev/null &&
		n2=$(sqlite3 "$OFL_STORE/ofl.db" "SELECT count(*) FROM log_tmpl") &&
		test "$n2" -eq $((n - 9))
	elif ! test_have_prereq STOREDIR; then
		n=$(pg_sql "SELECT count(*) FROM ofl.log_tmpl" ofl) &&
		test "$n" -gt 8 &&
		ofl-gc --purge "$id" >/dev/null &&
		n2=$(pg_sql "SELECT count(*) FROM ofl.log_tmpl" ofl) &&
		test "$n2" -eq $((n - 9))
	fi
'

# tmpl_rows: the rows of the template cache, whatever the engine.
tmpl_rows() {
	if test_have_prereq sqlite3,STOREDIR; then
		sqlite3 "$OFL_STORE/ofl.db" "SELECT count(*) FROM log_tmpl"
	elif ! test_have_prereq STOREDIR; then
		pg_sql "SELECT count(*) FROM ofl.log_tmpl" ofl
	else
		echo "${1:-0}"
	fi
}

test_expect_success 'a log under OFL_TMPL_KEEP bytes: its templates are mined, not kept' '
	n=$(tmpl_rows) &&
	id=$(OFL_TMPL_KEEP=64k ofl-capture -q -T 0 <"$L/trace.log") &&
	id=${id#ofl:} &&
	OFL_TMPL_KEEP=64k ofl-index "$id" >/dev/null &&
	OFL_TMPL_KEEP=64k ofl-schema "$id" | sed "s/$id/ID/" >out &&
	test_cmp "$L/trace.tmpl" out &&
	OFL_TMPL_KEEP= ofl-search "$id" "reload requested" >found &&
	grep -q "reload requested by admin" found &&
	test "$(tmpl_rows $n)" -eq "$n" &&
	# From 1k bytes on (the log holds 1,861), they are kept.
	OFL_TMPL_KEEP=1k ofl-schema "$id" | sed "s/$id/ID/" >out &&
	test_cmp "$L/trace.tmpl" out &&
	test "$(tmpl_rows $((n + 9)))" -eq $((n + 9))
'

# A log of free text: a template a line or so, thousands of them.
test_expect_success 'many templates: the store keeps the most and the least frequent, ofl-schema still lists all' '
	awk "BEGIN { for (i = 0; i < 3000; i++) { s = \"\";
	    for (j = 0; j < 3 + i % 7; j++) { w = i * 7 + j * 3001; t = \"\";
	    do { t = t sprintf(\"%c\", 97 + w % 26); w = int(w / 26) } while (w > 0);
	    s = s \" \" t }
	    printf \"2024-01-01 00:%02d:%02d INFO%s\n\", i / 60 % 60, i % 60, s } }" \
	    >free.log &&
	ofl-capture -T 0 <free.log >n1 &&
	id=$(sed -n "1s/^ofl:\([a-z0-9]*\) .*/\1/p" n1) &&
	ofl-schema -m 0 "$id" >all1 &&
	n=$(sed -n "1s/.* lines, \([0-9,]*\) templates.*/\1/p" all1 | tr -d ,) &&
	test "$n" -gt 1000 &&
	test "$(wc -l <all1)" -eq $((n + 2)) &&
	grep -q "^templates: $(sed -n 1p all1 | sed "s/.* lines, \([0-9,]*\) templates.*/\1/") " n1 &&
	ofl-index "$id" >/dev/null &&
	# Row 0 says how many were mined; 576 are kept.
	q="SELECT count(*) FROM log_tmpl WHERE blob = (SELECT blob FROM
	    log_tmpl WHERE rank = 0 AND first_line = $n)" &&
	if test_have_prereq sqlite3,STOREDIR; then
		sqlite3 "$OFL_STORE/ofl.db" "$q" >rows
	elif ! test_have_prereq STOREDIR; then
		pg_sql "$(echo "$q" | sed "s/log_tmpl/ofl.log_tmpl/g")" ofl >rows
	else
		echo 577 >rows
	fi &&
	echo 577 >expect &&
	test_cmp expect rows &&
	ofl-schema -m 0 "$id" >all2 &&
	test_cmp all1 all2 &&
	ofl-schema -m 0 --json "$id" >json &&
	test "$(wc -l <json)" -eq "$n" &&
	ofl-capture -T 0 <free.log >n2 &&
	id2=$(sed -n "1s/^ofl:\([a-z0-9]*\) .*/\1/p" n2) &&
	sed "s/$id2/$id/g" n2 >n2.same &&
	test_cmp n1 n2.same &&
	ofl-search "$id" "$(sed -n 100p free.log | cut -d" " -f4)" >hits &&
	grep -q "^ofl:$id:" hits
'

test_expect_success 'headers untold: an empty field, a host between dates, a thread of words' '
	awk "BEGIN { for (i = 0; i < 12; i++) {
	    printf \"- %d 2005.11.09 cn%d Nov 9 12:01:%02d cn%d/cn%d ntpd[%d]: synchronized to 10.100.%d.250, stratum %d\\n\", 1131566463 + i, 100 + i, i, 100 + i, 100 + i, 7000 + i, i, 2 + i % 3
	    if (i % 4 == 0)
		printf \"- %d 2005.11.09 admin1 Nov 9 12:02:%02d local@admin1 ntpd[1815]: synchronized to LOCAL(0), stratum 10\\n\", 1131566500 + i, i
	    printf \"2024-05-02 10:11:%02d,001 INFO [IPC Server handler %d on 8020] org.example.Server: served %d bytes%s in %d ms\\n\", i, i, 100 * i + 1, (i % 2 ? sprintf(\" (%.2f KB)\", i / 10.0) : \"\"), i + 1
	    } }" >gen.log &&
	"$TMPL" -t gen.log >out &&
	cat >expect <<-\EOF &&
	83f58a23bc0f 15 1 26 - synchronized to <*>, stratum <*>
	83d1310bd885 12 3 27 INFO served <*> in <*>
	EOF
	test_cmp expect out
'

test_expect_success 'headers untold: the same messages behind the headers of common loggers give the same templates' '
	for style in python rfc5424 glog rails compose logger pdsh nginx; do
		awk -v style=$style "BEGIN { split(\"alpha bravo kilo\", h, \" \")
		    split(\"INFO WARN ERROR\", lv, \" \"); split(\"app.worker sched org.acme.Db\", c, \" \")
		    for (i = 0; i < 18; i++) {
			ts = sprintf(\"2024-05-02 10:11:%02d,%03d\", i, 7 * i)
			iso = sprintf(\"2024-05-02T10:11:%02d.%03dZ\", i, 7 * i)
			l = lv[1 + i % 3]; n = h[1 + i % 3]; k = c[1 + i % 3]
			if (style == \"python\") hd = ts \" - \" k \" - \" l \" - \"
			if (style == \"rfc5424\") hd = \"<\" 130 + i % 3 \">1 \" iso \" \" n \" app \" 100 + i \" - - \"
			if (style == \"glog\") hd = substr(l, 1, 1) sprintf(\"0502 10:11:%02d.%06d %7d pool.go:%d] \", i, i, 300 + i, 40 + i)
			if (style == \"rails\") hd = sprintf(\"%s, [2024-05-02T10:11:%02d.%06d #%d] %5s -- : \", substr(l, 1, 1), i, i, 300 + i, l)
			if (style == \"compose\") hd = sprintf(\"%-9s| \", n \"-1\") iso \" \"
			if (style == \"logger\") hd = ts \" \" 300 + i \" \" l \" \" k \" [req-\" i \" \" n \" - - -] \"
			if (style == \"pdsh\") hd = n \": \" ts \" \" l \" \"
			if (style == \"nginx\") hd = sprintf(\"2024/05/02 10:11:%02d [%s] %d#0: *%d \", i, tolower(l), 300 + i, i)
			printf \"%sworker %s took job %d\\n\", hd, n, i
			printf \"%scache flushed\\n\", hd } }" >$style.log &&
		"$TMPL" -t $style.log | cut -d" " -f1-4,6- >out.$style || return 1
	done &&
	cat >expect <<-\EOF &&
	1759ec108fed 18 1 35 worker <*> took job <*>
	8e876491a5ca 18 2 36 cache flushed
	EOF
	for style in python rfc5424 glog rails compose logger pdsh nginx; do
		test_cmp expect out.$style || return 1
	done
'

test_expect_success 'a log of bare messages: a line that seems to start with a time does not swallow the lines after it' '
	awk "BEGIN { for (i = 0; i < 12; i++) {
	    if (i == 2)
		printf \"[client 10.0.0.%d] Directory index forbidden by rule: /var/www/\\n\", i
	    if (i == 5)
		print \"[10:00:05] backup started\"
	    printf \"child %d found in slot %d\\n\", 100 + i, i } }" >bare.log &&
	"$TMPL" -t bare.log >out &&
	cat >expect <<-\EOF &&
	69bdda2553fa 12 1 14 - child <*> found in slot <*>
	dc552f797ace 1 3 3 - [client <*>] Directory index forbidden by rule: /var/www/
	d62242f3996d 1 7 7 - backup started
	EOF
	test_cmp expect out
'

test_expect_success 'another program'"'"'s lines between timestamped ones are records; an exception goes on its record' '
	awk "BEGIN { for (i = 0; i < 20; i++) {
	    printf \"2024-05-02 10:11:%02d INFO worker %d processed batch %d\\n\", i, i % 3, i
	    if (i % 4 == 1)
		printf \"src/mod%d.c:%d:3: warning: unused variable %c\\n\", i, 10 + i, 97 + i
	    if (i == 6) {
		print \"java.lang.IllegalStateException: pool exhausted\"
		printf \"\\tat com.example.Pool.get(Pool.java:12)\\n\"
		print \"Caused by: java.io.IOException: closed\"
	    } } }" >mixed.log &&
	"$TMPL" -t mixed.log >out &&
	cat >expect <<-\EOF &&
	f1d2e9a22e7d 20 1 28 INFO worker <*> processed batch <*>
	7d29c2f775c5 5 3 26 - <*>:<*>:<*>: warning: unused variable <*>
	EOF
	test_cmp expect out
'

test_expect_success 'a name with a colon after a header, and the same words without one: each line counted where the second pass puts it' '
	awk "BEGIN { for (i = 0; i < 40; i++) {
	    if (i % 8 == 3)
		printf \"2024-05-02 10:11:%02d INFO app: started worker %d\\n\", i, i
	    else
		printf \"app: started worker %d\\n\", i } }" >mixed.log &&
	"$TMPL" -t mixed.log | awk "{ print \$1, \$2 }" | sort >want &&
	"$TMPL" mixed.log | sort | uniq -c | awk "{ print \$2, \$1 }" >got &&
	test_cmp want got &&
	"$TMPL" -m mixed.log | awk "\$1 != \$2" >bad &&
	test ! -s bad
'

test_expect_success 'constants that look variable stay: states after numbers, two shapes, numbers after a word; rare names vary' '
	awk "BEGIN { split(\"normal warning critical\", st, \" \")
	    split(\"admin guest oracle test pi\", nm, \" \"); for (i = 0; i < 30; i++) {
	    printf \"%d gige%d gige temperature %d 1 %s\\n\", 2559971 + i, i % 8, 1073151998 + i, st[i % 10 == 9 ? 3 : 1 + i % 2]
	    printf \"2024-05-02 10:11:%02d sshd[%d]: Failed password for %s from 10.0.%d.1 port %d\\n\", i, 100 + i, (i % 6 ? \"root\" : nm[1 + i / 6]), i, 4000 + i
	    printf \"2024-05-02 10:12:%02d kernel: NIFF: interface %s is down\\n\", i, (i == 7 ? \"SCSI-WWID:0100-08b4\" : \"alt0\")
	    printf \"2024-05-02 10:13:%02d Read %d %d bytes\\n\", i, i, i * 7
	    printf \"2024-05-02 10:13:%02d Wrote %d %d bytes\\n\", i, i, i * 7
	    } }" >gen.log &&
	awk "BEGIN { for (i = 0; i < 6; i++)
	    printf \"- %d items left in queue %d\\n\", i + 1, i }" >list.log &&
	"$TMPL" -t gen.log >out &&
	"$TMPL" -t list.log >>out &&
	cat >expect <<-\EOF &&
	c82b797a04c4 30 2 147 - Failed password for <*> from <*> port <*>
	0d3b2a72c308 30 4 149 - Read <*>
	3d173902bc02 30 5 150 - Wrote <*>
	60fecf1f7868 29 3 148 - kernel: NIFF: interface alt0 is down
	e5b353d9f887 15 1 141 - <*> gige temperature <*> normal
	8be383991c42 12 6 136 - <*> gige temperature <*> warning
	4a5851e40692 3 46 146 - <*> gige temperature <*> critical
	4ec4b3f5aac2 1 38 38 - kernel: NIFF: interface SCSI-WWID:<*> is down
	4f843952c1fa 6 1 6 - - <*> items left in queue <*>
	EOF
	test_cmp expect out
'

test_expect_success 'a header of columns: the words up to a Unix time and its numbers on nearly every line; numbers alone are no header' '
	awk "BEGIN { split(\"node status|unix.hw net.up|switch_module error\", cs, \"|\"); for (i = 0; i < 30; i++)
	    printf \"%d node-%d %s %d %d %s\\n\", 3000 + i, i % 7, cs[1 + i % 3], 1074000000 + 7 * i, i % 4 ? 1 : -1, i % 2 ? \"link up on port \" i : \"running\" }" >col.log &&
	"$TMPL" -t col.log >out &&
	cat >expect <<-\EOF &&
	c950f0eb1de9 15 1 29 - running
	1781073607b7 15 2 30 - link up on port <*>
	EOF
	test_cmp expect out &&
	"$TMPL" -m col.log >pairs &&
	awk "\$1 != \$2 { bad = 1 } END { exit bad }" pairs &&
	head -n 3 col.log >few.log &&
	"$TMPL" -t few.log >out &&
	test "$(wc -l <out)" -eq 3 &&
	grep -q " <\*> node status <\*> running\$" out &&
	awk "BEGIN { split(\"GET POST GET DELETE\", m, \" \"); split(\"/index.html /api/login /img/a.png /api/item\", u, \" \"); for (i = 0; i < 40; i++)
	    printf \"10.0.0.%d - - [02/May/2024:10:11:%02d +0000] \\\"%s %s HTTP/1.1\\\" %d %d\\n\", i % 9, i, m[1 + i % 4], u[1 + i % 4], (i % 5 ? 200 : 404), 100 + i }" >acc.log &&
	"$TMPL" -t acc.log >out &&
	test "$(wc -l <out)" -eq 4 &&
	grep -q " \"GET /index.html <\*>\" <\*>\$" out
'

test_expect_success 'key=value words that vary together are variables, a quoted value of words one token; a small set stays' '
	awk "BEGIN { split(\"Alpha Lock|Beta|Gamma\", tg, \"|\"); split(\"com.a|com.b|com.c\", nm, \"|\")
	    split(\"false true false\", fo, \" \"); split(\"false false true\", de, \" \"); for (i = 0; i < 24; i++) {
	    printf \"2024-05-02 10:11:%02d.%03d D Power: acquire lock=%d, flags=0x1, tag=\\\"%s\\\", name=%s, ws=null, uid=%d\\n\", i, i, 1000 + 37 * i, tg[1 + i % 3], nm[1 + i % 3], 1000 + i % 5
	    printf \"2024-05-02 10:12:%02d.%03d I Bar: collapse: flags=%d, force=%s, delayed=%s\\n\", i, i, i % 2, fo[1 + i % 3], de[1 + i % 3]
	    if (i % 8 == 0) printf \"2024-05-02 10:13:%02d.%03d W Power: lock \\\"Alpha Lock\\\" held %d ms\\n\", i, i, 10 * i } }" >kv.log &&
	"$TMPL" -t kv.log >out &&
	cat >expect <<-\EOF &&
	b3b94bb29837 24 1 50 - acquire lock=<*>, flags=<*>, tag="<*>", name=<*>, ws=null, uid=<*>
	554b500d6889 8 2 47 - collapse: flags=<*>, force=false, delayed=false
	d434142a821f 8 5 49 - collapse: flags=<*>, force=true, delayed=false
	a8cf77648485 8 7 51 - collapse: flags=<*>, force=false, delayed=true
	ac9f4bb3446a 3 3 37 - lock "Alpha Lock" held <*>
	EOF
	test_cmp expect out &&
	"$TMPL" -m kv.log >pairs &&
	awk "\$1 != \$2 { bad = 1 } END { exit bad }" pairs
'

# logfmt: the quoted value of msg= is the message, its words mined as
# words: six messages of a few words each are six templates, not one
# msg="<*>".
test_expect_success 'logfmt: the quoted message of msg= keeps its words' '
	awk "BEGIN { split(\"config reloaded|cache warmed up|Started application|worker pool resized|queue drained|lease renewed\", mg, \"|\")
	    for (i = 0; i < 24; i++)
	    printf \"time=2024-05-02T10:11:%02dZ level=info msg=\\\"%s\\\" took=%dms\\n\", i, mg[1 + i % 6], 10 + i }" >logfmt.log &&
	test "$(sort -u logfmt.log | wc -l)" -eq 24 &&
	"$TMPL" -t logfmt.log >out &&
	sed "s/^[0-9a-f]* //" out >actual &&
	cat >expect <<-\EOF &&
	4 1 19 - time=<*>:<*>:<*> level=info msg="config reloaded" took=<*>
	4 2 20 - time=<*>:<*>:<*> level=info msg="cache warmed up" took=<*>
	4 3 21 - time=<*>:<*>:<*> level=info msg="Started application" took=<*>
	4 4 22 - time=<*>:<*>:<*> level=info msg="worker pool resized" took=<*>
	4 5 23 - time=<*>:<*>:<*> level=info msg="queue drained" took=<*>
	4 6 24 - time=<*>:<*>:<*> level=info msg="lease renewed" took=<*>
	EOF
	test_cmp expect actual
'

test_expect_success 'key=value words of two keys stay apart, a number in one of them or not' '
	awk "BEGIN { for (i = 0; i < 6; i++) {
	    printf \"2024-05-02 10:11:%02d.%03d I Display: stopScanLocked record.scanRequested=false\\n\", i, i
	    printf \"2024-05-02 10:11:%02d.%03d I Display: stopScanLocked scanRequestCount=%d\\n\", i, i + 1, i } }" >key.log &&
	"$TMPL" -t key.log >out &&
	cat >expect <<-\EOF &&
	1716436e32a7 6 1 11 - stopScanLocked record.scanRequested=false
	0768273f492f 6 2 12 - stopScanLocked scanRequestCount=<*>
	EOF
	test_cmp expect out
'

test_expect_success 'names with a number: a few each on many lines stay, many or rare ones vary, a list of them is one value' '
	awk "BEGIN { for (i = 0; i < 36; i++) {
	    printf \"2024-05-02 10:11:%02d kernel: link up on %s\\n\", i, (i < 20 ? \"eth0\" : i < 34 ? \"eth1\" : \"wlan0\")
	    if (i < 9) printf \"2024-05-02 10:12:%02d switch: port ge%d opened\\n\", i, i + 1
	    if (i < 2) printf \"2024-05-02 10:13:%02d kernel: divert for dev%d\\n\", i, i
	    if (i % 12 == 0) printf \"2024-05-02 10:14:%02d gmetad: cannot resolve sources %s\\n\", i, (i % 24 ? \"cn2 cn3 cn4\" : \"an14 an15 an\" i) } }" >nn.log &&
	"$TMPL" -t nn.log >out &&
	cat >expect <<-\EOF &&
	ad983f1e3b13 20 1 33 - link up on eth0
	d7b357c1fcde 14 34 48 - link up on eth1
	ca49be7eebfb 9 2 21 - port <*> opened
	e943e8fc46c9 3 4 39 - cannot resolve sources <*>
	16112a7a3a32 2 3 7 - divert for <*>
	07d54b663140 2 49 50 - link up on wlan0
	EOF
	test_cmp expect out &&
	"$TMPL" -m nn.log >pairs &&
	awk "\$1 != \$2 { bad = 1 } END { exit bad }" pairs
'

test_expect_success 'the templates alone classify every line as mining did' '
	for f in "$L/trace.log" "$DATA/eval/dpkg.log" \
	    "$DATA/ci/treeherder-taskcluster-timeout.log"; do
		"$TMPL" -m "$f" >pairs || return 1
		test -s pairs || return 1
		awk "\$1 != \$2 { print; bad = 1 } END { exit bad }" pairs ||
		    return 1
	done &&
	test "$(wc -l <pairs)" -eq 2701
'

test_expect_success 'hostile lines: invalid UTF-8, a line of 100 MB' '
	{
		i=0 &&
		while [ $i -lt 20 ]; do
			printf "2024-01-01 00:00:%02d INFO job %d started\n" $i $i &&
			i=$((i + 1)) || return 1
		done &&
		printf "2024-01-01 00:00:21 INFO caf\351 \377\376 opened\n" &&
		printf "2024-01-01 00:00:22 INFO " &&
		head -c 100000000 /dev/zero | tr "\000" x &&
		printf "\n2024-01-01 00:00:23 INFO done\n"
	} >hostile.log &&
	id=$(ofl-capture -q -T 0 <hostile.log) && id=${id#ofl:} &&
	ofl-schema -m 0 "$id" >out 2>err &&
	test ! -s err &&
	grep -q "^ofl:$id log: 23 lines, 4 templates" out &&
	grep -qF " INFO   caf\\xe9 \\xff\\xfe opened" out &&
	grep -q " INFO   <\*>\$" out &&
	ofl-schema --json "$id" >json &&
	test "$(wc -l <json)" -eq 4 &&
	grep -qF "\"template\":\"caf\\ufffd \\ufffd\\ufffd opened\"" json &&
	kb=$(peak_kb ofl-schema "$id") &&
	echo "peak RSS $kb KiB" &&
	test "$kb" -lt 65536
'

test_expect_success 'NUL bytes are bytes like any other' '
	printf "2024-01-01 00:00:00 INFO a\000b started\n2024-01-01 00:00:01 INFO a\000b started\n" >nul.log &&
	"$TMPL" -t nul.log | tr "\000" @ >out &&
	echo "abd9f5bbf32e 2 1 2 INFO a@b started" >expect &&
	test_cmp expect out
'

test_expect_success 'words end at blanks only: tab, vertical tab, form feed, CR; control and 8-bit bytes are in words' '
	printf "2024-01-01 00:00:00 INFO open\001\033name\tjob_entries_waiting\vin queue\fq\r\n" >blank.log &&
	printf "2024-01-01 00:00:01 INFO open\001\033name\tjob_entries_waiting\vin queue\fq\r\n" >>blank.log &&
	printf "2024-01-01 00:00:02 INFO stop\302\240now please_do_it_right_away\n" >>blank.log &&
	"$TMPL" -t blank.log | tr "\001\033\302\240" "@#%%" >out &&
	cat >expect <<-\EOF &&
	bae535f86f87 2 1 2 INFO open@#name job_entries_waiting in queue q
	7d7c2ad2d9d8 1 3 3 INFO stop%%now please_do_it_right_away
	EOF
	test_cmp expect out
'

test_expect_success '/usr/bin/time' 'memory stays flat on millions of distinct lines' '
	awk "BEGIN { for (i = 0; i < 500000; i++) {
	    w = i; s = \"\"; while (w > 0) { s = s sprintf(\"%c\", 97 + w % 26); w = int(w / 26) }
	    printf \"2024-01-01 00:00:%02d host app[%d]: %s %s did %s\n\", i % 60, i, s, s \"x\", s \"y\" } }" >small.log &&
	awk "BEGIN { for (i = 0; i < 3000000; i++) {
	    w = i; s = \"\"; while (w > 0) { s = s sprintf(\"%c\", 97 + w % 26); w = int(w / 26) }
	    printf \"2024-01-01 00:00:%02d host app[%d]: %s %s did %s\n\", i % 60, i, s, s \"x\", s \"y\" } }" >big.log &&
	k1=$(peak_kb "$TMPL" -c small.log) &&
	k2=$(peak_kb "$TMPL" -c big.log) &&
	echo "peak RSS $k1 KiB at 500,000 lines, $k2 KiB at 3,000,000" &&
	test "$k2" -lt 65536 &&
	test "$k2" -lt $((k1 + 16384)) &&
	"$TMPL" -t big.log >t &&
	test "$(wc -l <t)" -le 8193
'

test_done
