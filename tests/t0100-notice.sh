#!/bin/sh
# Golden notices: what ofl-capture prints for offloaded output of each
# kind, compared byte for byte with tests/data/capture/NAME.notice (the
# artifact ID replaced by ID, a command's duration by DURATION).  After a
# deliberate change to the notice, regenerate them with
#	OFL_REGEN=1 make check TESTS=tests/t0100-notice.sh
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

GOLDEN="$DATA/capture"

# normalize FILE: the ID of the reference line becomes ID everywhere,
# the duration on the reference line DURATION, the test directory TMP.
normalize() {
	id=$(sed -n '1s/^ofl:\([0-9a-z][0-9a-z]*\)[ :].*/\1/p' "$1")
	sed -e "${id:+s/$id/ID/g}" \
	    -e '1s/  exit \([0-9][0-9]*\)  [0-9][0-9.]* [a-z]*\( [0-9]* s\)*$/  exit \1  DURATION/' \
	    -e "s|$TEST_DIR|TMP|g" "$1"
}

# golden NAME: compare the normalized notice in NAME.out with the golden
# file (or write the golden file when OFL_REGEN is set).
golden() {
	normalize "$1.out" >"$1.got" || return 1
	if [ -n "$OFL_REGEN" ]; then
		cp "$1.got" "$GOLDEN/$1.notice"
		return 0
	fi
	test_cmp "$GOLDEN/$1.notice" "$1.got"
}

# Inputs, generated so that they are the same everywhere.
awk 'BEGIN { for (i = 1; i <= 3000; i++)
	printf "row %d of the table\n", i }' >text.in
awk 'BEGIN { for (i = 1; i <= 3000; i++) {
	t = sprintf("2024-01-01 12:%02d:%02d", int(i / 60) % 60, i % 60);
	if (i % 500 == 0)
		printf "%s ERROR db: connection refused (attempt %d)\n", t, i;
	else if (i % 300 == 0)
		printf "%s WARN slow query took %d ms\n", t, i;
	else
		printf "%s INFO request %d served in %d ms\n", t, i, i % 97;
} }' >log.in
awk 'BEGIN { printf "{\"apiVersion\":\"v1\",\"items\":[";
	for (i = 0; i < 1500; i++) {
		if (i) printf ",";
		printf "{\"metadata\":{\"name\":\"pod-%d\",\"namespace\":\"ns-%d\"},", i, i % 3;
		printf "\"status\":{\"phase\":\"%s\",\"restarts\":%d}}",
		    i % 7 ? "Running" : "Failed", i % 5;
	}
	printf "],\"kind\":\"List\"}\n" }' >json.in
awk 'BEGIN { for (i = 1; i <= 1200; i++)
	printf "{\"ts\":%d,\"level\":\"%s\",\"msg\":\"event %d\",\"ok\":%s}\n",
	    1700000000 + i, i % 100 ? "info" : "error", i, i % 2 ? "true" : "false" }' >ndjson.in
awk 'BEGIN { print "id,name,city,score";
	for (i = 1; i <= 2000; i++)
		printf "%d,user%d,%s,%d.%d\n", i, i, i % 2 ? "Oslo" : "Lima", i % 100, i % 10 }' >csv.in
awk 'BEGIN { print "# Manual"; print "";
	for (s = 1; s <= 30; s++) {
		printf "## Section %d\n\n", s;
		for (p = 1; p <= 3; p++) {
			printf "### Part %d.%d\n\n", s, p;
			for (l = 0; l < 12; l++)
				printf "Text of part %d.%d, line %d, about the topic.\n", s, p, l;
			print "";
			print "```sh"; printf "run --part %d.%d\n", s, p; print "```"; print "";
		}
	} }' >markdown.in
awk 'BEGIN { for (i = 0; i < 40000; i++) printf "%c", (i * 7 + int(i / 256)) % 256 }' \
	>binary.in
awk 'BEGIN { for (i = 1; i <= 1500; i++)
	printf "line %d \033[31mred\033[0m tab\there nul%cx bad%c%c bell\007\n",
	    i, 0, 255, 254 }' >hostile.in
awk 'BEGIN { for (i = 1; i <= 1500; i++)
	printf "line %d \033[31mred\033[0m \033]0;title\007 bad%c%c cr\r end\n",
	    i, 255, 254 }' >escapes.in

for k in text log json ndjson csv markdown binary hostile escapes; do
	test_expect_success "notice for $k input" "
		ofl-capture <$k.in >$k.out 2>$k.err &&
		test ! -s $k.err &&
		golden $k
	"
done

# Records nested past what the shape shows: their states, counted.
test_expect_success 'JSON records: the values of their states, counted' '
	cat >pods.awk <<-\EOF &&
	BEGIN {
		q = "\""
		printf "{%skind%s:%sList%s,%sitems%s:[", q, q, q, q, q, q
		for (i = 0; i < 40; i++) {
			printf "%s{%smetadata%s:{%sname%s:%spod-%d%s,", i ? "," : "",
			    q, q, q, q, q, i, q
			printf "%slabels%s:{%sapp%s:%sweb%s,%stier%s:%sfront%s,", q, q,
			    q, q, q, q, q, q, q, q
			printf "%steam%s:%sa%s,%szone%s:%sz1%s},", q, q, q, q, q, q,
			    q, q
			printf "%suid%s:%su-%d%s,%sversion%s:%s%d%s},", q, q, q, i,
			    q, q, q, q, i * 7, q
			printf "%sspec%s:{%snode%s:%sn-%d%s,%simage%s:%si:%d%s,", q,
			    q, q, q, q, i % 3, q, q, q, q, i, q
			printf "%saccount%s:%sdefault-%d%s,%sports%s:[%d]},", q, q,
			    q, i, q, q, q, 8000 + i
			printf "%sstatus%s:{%sphase%s:%s%s%s,%sreason%s:%s%s%s}}",
			    q, q, q, q, q, i % 8 ? "Running" : "Failed", q, q, q,
			    q, i % 8 ? "Scheduled" : "Evicted\\u001b[31m", q
		}
		print "]}"
		for (i = 0; i < 40; i++)
			printf "{%slevel%s:%s%s%s}\n", q, q, q,
			    i % 4 ? "info" : "error", q >"lv.ndjson"
	}
	EOF
	awk -f pods.awk >pods.json &&
	jq -e ".items | length == 40" pods.json &&
	ofl-capture -T 0 <pods.json >pods.out &&
	grep "^counts: " pods.out >got &&
	echo "counts: .items[].status.phase: Running 35, Failed 5; .items[].status.reason: Scheduled 35, \"Evicted\\u001b[31m\" 5" >expect &&
	test_cmp expect got &&
	ofl-capture -T 0 --json <pods.json >pods.json.out &&
	jq -r .notice pods.json.out |
	    grep -q "^counts: .items\[\].status.phase: Running 35, Failed 5;" &&
	ofl-capture -T 0 <lv.ndjson >lv.out &&
	grep -F "\"info\" (30)|\"error\" (10)" lv.out &&
	! grep "^counts:" lv.out
'

test_expect_success 'the notices are small' '
	for k in text log json ndjson csv markdown binary hostile escapes; do
		test "$(wc -c <$k.out)" -lt 2500 ||
		{ echo "$k: $(wc -c <$k.out) bytes"; exit 1; }
	done
'

test_expect_success 'notice for a command: command, exit status, duration' '
	test_expect_code 3 ofl-capture -- sh -c "cat log.in; exit 3" >command.out &&
	golden command
'

test_expect_success 'notice with a smaller preview (-H 100 --tail 60)' '
	ofl-capture -H 100 --tail 60 <text.in >small-preview.out &&
	golden small-preview
'

test_expect_success 'notices under -e: headers, pass-through, notice' '
	ofl-capture -e "head -n 3 text.in" -e "cat csv.in" >exec.out &&
	sed -n "1,5p" exec.out >exec.head &&
	printf "==> head -n 3 text.in <== exit 0\nrow 1 of the table\nrow 2 of the table\nrow 3 of the table\n==> cat csv.in <== exit 0\n" \
	    >expect && test_cmp expect exec.head &&
	sed 1,5d exec.out >exec-csv.out &&
	golden exec-csv
'

test_expect_success 'the output when the store is refused' '
	mkdir -p gw && chmod 770 gw &&
	test_expect_code 3 ofl-capture -s "$TEST_DIR/gw" <text.in \
	    >refused.out 2>refused.err &&
	golden refused
'

test_expect_success 'file names are not error lines; next: has --errors only with errors' '
	awk "BEGIN { for (i = 1; i <= 300; i++) printf \"./src/d%d/f%d.c\\n\", i, i }" >names.in &&
	printf "%s\n" ./llvm/include/AddressSanitizer.h AddressSanitizer.h \
	    src/error.c src/ErrorHandler.java lib/libfailure.so Traceback.py \
	    fatal.c FAILED.txt "Segmentation fault.txt" "x/TEST-UNEXPECTED-FAIL.log" \
	    ERROR.md >>names.in &&
	ofl-capture -T 0 <names.in >names.out &&
	id=$(sed -n "1s/^ofl:\([a-z0-9]*\) .*/\1/p" names.out) &&
	test -n "$id" &&
	! grep -q "^errors:" names.out &&
	! grep -q -- "--errors" names.out &&
	test_expect_code 1 ofl-extract "$id" --errors >out &&
	test ! -s out
'

test_expect_success 'real error lines are counted, and next: says --errors' '
	cp names.in errs.in &&
	printf "%s\nplain words\n" "Traceback (most recent call last):" \
	    "error: linker failed" "FAILED tests/test_x.py::test_y" \
	    "fatal: not a git repository" \
	    "==12==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020" \
	    >>errs.in &&
	ofl-capture -T 0 <errs.in >errs.out &&
	id=$(sed -n "1s/^ofl:\([a-z0-9]*\) .*/\1/p" errs.out) &&
	grep -q "^errors: 5 lines (first at line 312)" errs.out &&
	grep -q "^next: ofl-extract $id --errors\$" errs.out &&
	ofl-extract "$id" --errors >out &&
	grep "^\[" out | sort >got &&
	printf "%s\n" "[error] line 314" "[error] line 318" \
	    "[python-traceback] lines 312-313" "[sanitizer] lines 320-321" \
	    "[test-summary] line 316" >expect &&
	test_cmp expect got
'

# Code quoted in a log (a stack's code frame, a function) calls or
# defines error() and fail(): no error line; "2 error(s)" is one.
test_expect_success 'code that calls error() is no error line' '
	printf "%s\n" "/app/server.js:5" \
	    "    throw new Error('\''port 8080 in use'\'');" "    ^" "" \
	    "Error: port 8080 in use" \
	    "    at Object.<anonymous> (/app/server.js:5:11)" \
	    "def error(self, msg):" "fail() {" "Build failed: 2 error(s)" >code.in &&
	ofl-capture -j -T 0 <code.in >code.json &&
	grep -q "\"errors\":2,\"warnings\":0,\"first_error\":5," code.json
'

# A compiler's warnings quote the source under them (gcc 12 with the
# line number and a bar, gcc 7 and clang the line alone): a quoted line
# that says "error" is no error line, a real error still is one.
test_expect_success 'the source line under a compiler message is no error line' '
	i=0
	while [ $i -lt 20 ]; do
		echo "w$i.c: In function f:"
		echo "w$i.c:3:25: warning: format %d expects argument of type int [-Wformat=]"
		echo "    3 |         printf(\"error: %d\", x);"
		echo "      |                        ~^     ~"
		echo "[Build on an old system] w$i.c:4:9: warning: unused variable [-Wunused]"
		echo "[Build on an old system]    fprintf(stderr, \"fatal error\");"
		echo "[Build on an old system]    ^~~~~~~"
		i=$((i + 1))
	done >build.in &&
	ofl-capture -T 0 <build.in >build.out &&
	grep -x "errors: none, warnings: 40 lines" build.out &&
	grep -x "  x20  <\*>.c:<\*>: warning: format %d expects argument of type int \[-Wformat=\]  (line 2)" build.out &&
	echo "w9.c:8:1: error: expected declaration before } token" >>build.in &&
	echo "    8 | } error" >>build.in &&
	ofl-capture -T 0 <build.in >build.out &&
	grep "^errors: 1 line (first at line 141), warnings: 40 lines" build.out &&
	grep -x "  x1  <\*>.c:<\*>: error: expected declaration before } token  (line 141)" build.out &&
	echo "w9.c:9:1: error: expected declaration" >>build.in &&
	echo "make[2]: *** [Makefile:5: w9.o] Error 1" >>build.in &&
	ofl-capture -j -T 0 <build.in | grep -q "\"errors\":3,\"warnings\":40,\"first_error\":141,"
'

# A diff: its files and lines changed as git diff --stat ends, and the
# files that changed most, however long the diff.
test_expect_success 'a diff: files and lines changed, the most changed files' '
	ofl-capture -T 0 <"$DATA/diff/gotestsum-v1.10.0..v1.13.0.diff" >notice &&
	sed -n 2,3p notice >actual &&
	cat >expect <<-\EOF &&
	files: 102 changed, 3,758 insertions(+), 1,514 deletions(-)
	most changed: testjson/testdata/format/dots-v2.out +1,061 -1,060, testjson/testdata/input/go-test-json-with-cover-go1.20.out +339 -0, testjson/format.go +235 -29, testjson/testdata/format/github-actions.out +213 -0, testjson/execution.go +161 -35, ...
	EOF
	test_cmp expect actual &&
	printf "a\nb\n-- c\nd\n" >old.txt &&
	printf "a\n-- c\nd\ne" >new.txt &&
	{ diff -u old.txt new.txt || :; } >plain.diff &&
	ofl-capture -T 0 <plain.diff >notice &&
	grep -x "files: 1 changed, 1 insertion(+), 1 deletion(-)" notice &&
	grep -x "changed: new.txt +1 -1" notice
'

# terraform plan: its totals and the resources of each action, which
# its "  # ADDRESS will be created" lines name (and which Markdown would
# take for headings).
test_expect_success 'a plan of changes: its totals, the resources of each action' '
	{
		echo "Terraform will perform the following actions:"
		echo
		i=0
		while [ $i -lt 20 ]; do
			echo "  # aws_instance.web[$i] will be created"
			echo "  + resource \"aws_instance\" \"web\" {"
			echo "      + ami           = \"ami-0c55b159cbfafe1f0\""
			echo "    }"
			echo
			i=$((i + 1))
		done
		echo "  # module.db.aws_db_instance.main must be replaced"
		echo "-/+ resource \"aws_db_instance\" \"main\" {"
		echo "      ~ engine_version = \"14.7\" -> \"15.4\" # forces replacement"
		echo "    }"
		echo
		echo "  # aws_s3_bucket.old_logs will be destroyed"
		echo "  - resource \"aws_s3_bucket\" \"old_logs\" {"
		echo "    }"
		echo
		echo "Plan: 21 to add, 0 to change, 2 to destroy."
	} >plan.txt &&
	ofl-capture -T 0 <plan.txt >notice &&
	sed -n 2,5p notice >actual &&
	cat >expect <<-\EOF &&
	plan: 21 to add, 0 to change, 2 to destroy (line 112)
	  create 20: aws_instance.web[0], aws_instance.web[1], aws_instance.web[2], aws_instance.web[3], aws_instance.web[4], aws_instance.web[5], aws_instance.web[6], aws_instance.web[7], aws_instance.web[8], aws_instance.web[9], aws_instance.web[10], aws_instance.web[11], ... (+8 more)
	  replace 1: module.db.aws_db_instance.main
	  destroy 1: aws_s3_bucket.old_logs
	EOF
	test_cmp expect actual
'

# A git log: records led by a head of fields.  The notice counts them,
# the authors (a few, each on many) and where the dates go (one each).
test_expect_success 'a text of records: how many, the counts of a field, first and last' '
	i=1
	while [ $i -le 40 ]; do
		printf "commit %040d\n" $i
		case $((i % 4)) in
		0) a="Ann Lee <ann@example.org>" ;;
		*) a="Bob Roe <bob@example.org>" ;;
		esac
		echo "Author: $a"
		echo "Date:   Mon Jun $((i % 28 + 1)) 10:$((i + 10)):00 2026 +0000"
		echo
		echo "    chunk: change $i of the splitter, and why in many words"
		echo "    that fill the lines of a message with something to read."
		echo
		i=$((i + 1))
	done >gitlog.txt &&
	ofl-capture -T 0 <gitlog.txt >notice &&
	sed -n 2,4p notice >actual &&
	cat >expect <<-\EOF &&
	records: 40 (commit), each with Author, Date
	Author: Bob Roe <bob@example.org> 30, Ann Lee <ann@example.org> 10
	Date: first Mon Jun 2 10:11:00 2026 +0000, last Mon Jun 13 10:50:00 2026 +0000
	EOF
	test_cmp expect actual
'

test_expect_success 'a git log whose messages say error: no errors, a long value cut with ...' '
	i=1
	while [ $i -le 12 ]; do
		printf "commit %040d\n" $i
		echo "Author: A Name Long Enough To Be Cut <someone.with.a.long.address@mail.example.org>"
		echo "Date:   Mon Jun $i 10:00:00 2026 +0000"
		echo
		echo "    fix: the error of the parser on an empty line, which failed"
		echo "    with a fatal exception; the warning stays."
		echo
		echo " src/parse.c | 2 +-"
		echo
		i=$((i + 1))
	done >errlog.txt &&
	ofl-capture -T 0 <errlog.txt >notice &&
	sed -n 3p notice >actual &&
	echo "Author: A Name Long Enough To Be Cut <someone.with.a.long.address@mail.e... 12" >expect &&
	test_cmp expect actual &&
	! grep -e "^errors:" -e "first error" -e "--errors" notice &&
	{ cat errlog.txt && echo "error: the history ends here"; } >errlog2.txt &&
	ofl-capture -T 0 <errlog2.txt >notice &&
	grep "^errors: 25 lines (first at line 5)" notice
'

test_expect_success 'records of fields alone (apt history); prose is no records' '
	for p in curl nodejs make jq; do
		echo "Start-Date: 2026-05-20  16:49:2${#p}"
		echo "Commandline: apt-get install -y $p"
		echo "Install: $p:amd64 (1.0-1)"
		echo "End-Date: 2026-05-20  16:50:2${#p}"
		echo
	done >history.log &&
	i=0
	while [ $i -lt 30 ]; do
		echo "Some prose at the margin, a paragraph of line $i."
		echo "Note: it has a colon, but it is no record of fields"
		echo "and says so in a third line."
		echo
		i=$((i + 1))
	done >prose.txt &&
	ofl-capture -T 0 -H 1 --tail 1 <history.log >notice &&
	grep -x "records: 4, each with Start-Date, Commandline, Install, End-Date" notice &&
	grep -x "Commandline: first apt-get install -y curl, last apt-get install -y jq" notice &&
	ofl-capture -T 0 <prose.txt >notice &&
	! grep "^records" notice
'

test_expect_success 'a log past what the notice mines: its error lines by template' '
	awk "BEGIN {
		split(\"alice bob carol dave erin frank grace heidi\", u, \" \")
		d[0] = \"Mon\"; d[1] = \"Tue\"; d[2] = \"Wed\"
		for (i = 0; i < 70000; i++) {
			h = sprintf(\"%s Dec %02d %02d:%02d:%02d web%d sshd[%d]:\",
			    d[i % 3], 1 + i % 28, i % 24, i % 60, (i * 7) % 60,
			    i % 5, 1000 + i % 9000)
			if (i % 10 == 3)
				print h, \"error: Failed password for\", u[1 + i % 8],
				    \"from 10.0.\" (i % 250) \".1 port\", 2000 + i % 5000,
				    \"ssh2\"
			else if (i % 50 == 7)
				print h, \"fatal: cannot bind port\", 20 + i % 7,
				    \"on eth1\"
			else
				print h, \"Accepted publickey for\", u[1 + i % 8],
				    \"from 10.1.\" (i % 250) \".9 port\", 3000 + i % 4000
		}
	}" >big.log &&
	test $(wc -c <big.log) -gt 4194304 &&
	ofl-capture -T 0 <big.log >notice &&
	sed -n 2,4p notice >actual &&
	cat >expect <<-\EOT &&
	errors: 8,400 lines (first at line 4), warnings: none
	  x7000  error: Failed password for <*> from <*> port <*>  (line 4)
	  x1400  fatal: cannot bind port <*> on eth1  (line 8)
	EOT
	test_cmp expect actual &&
	for i in 1 2 3 4 5 6 7 8 9 10 11; do cat big.log; done >bigger.log &&
	ofl-capture -T 0 <bigger.log >notice &&
	sed -n 3,4p notice >actual &&
	cat >expect <<-\EOT &&
	  in the first and last 34 MB:
	  x73273  error: Failed password for <*> from <*> port <*>  (line 4)
	EOT
	test_cmp expect actual
'

test_expect_success 'a large log: a template holds its NUL bytes, a signature alone keeps its text' '
	cat >gen.awk <<-\EOT &&
	BEGIN {
		for (i = 0; i < 70000; i++) {
			h = sprintf("Dec %02d %02d:%02d:%02d web%d app[%d]:",
			    1 + i % 28, i % 24, i % 60, (i * 7) % 60, i % 3,
			    100 + i % 900)
			if (i % 20 == 3 && i > 2000)
				printf "%s ERROR bad%cbyte in record %d\n", h, 0, i
			else if (i % 500 == 9)
				print "Dec 31 23:59:59 web9 app[1]: ERROR lonely failure"
			else
				print h, "INFO request served in", i % 97, "ms"
		}
	}
	EOT
	awk -f gen.awk >nul.log &&
	test $(wc -c <nul.log) -gt 4194304 &&
	ofl-capture -T 0 <nul.log >notice &&
	sed -n 1p notice | grep " log " &&
	sed -n 3,4p notice >actual &&
	cat >expect <<-\EOT &&
	  x3400  ERROR bad\x00byte in record <*>  (line 2,004)
	  x140  Dec <*> web9 app[<*>]: ERROR lonely failure  (line 10)
	EOT
	test_cmp expect actual
'

test_expect_success 'error templates alike to past the cut show where they differ' '
	awk "BEGIN { for (i = 0; i < 60; i++) {
	    printf \"2026-12-07 10:%02d:%02d ERROR sshd[%d]: authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost=10.0.0.%d\\n\", i / 60, i % 60, 100 + i, i
	    if (i % 3 == 0)
	        printf \"2026-12-07 10:%02d:%02d ERROR sshd[%d]: authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost=10.0.0.%d user=root\\n\", i / 60, i % 60, 100 + i, i
	    printf \"2026-12-07 10:%02d:%02d INFO sshd[%d]: connection closed by 10.0.0.%d port 22\\n\", i / 60, i % 60, 100 + i, i
	} }" >alike.log &&
	ofl-capture -T 0 <alike.log >out &&
	grep "^  error x60  authentication failure; .*\\.\\.\\..*rhost=<\\*>  (line 1, " out &&
	grep "^  error x20  authentication failure; .*\\.\\.\\..*rhost=<\\*> user=root  (line 2, " out
'

test_done
