#!/bin/sh
# t0140-table: whitespace-aligned tables (kubectl get, docker ps, ps aux,
# df, systemctl list-units) are kind table; the notice gives the columns
# and the exact count of each value of the columns with few values,
# checked against counts that awk makes from the same generated input.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

GEN="$OFL_SRCDIR/tests/gen-table.sh"

# kind FILE: the kind ofl-capture records for FILE.
kind() {
	ofl-capture -q -T 0 <"$1" >/dev/null &&
	ofl-search -j -n 1 2>/dev/null | head -n 1 |
	    sed -n 's/.*"kind":"\([a-z]*\)".*/\1/p'
}

test_expect_success 'a 3,000-pod kubectl get pods -A is a table' '
	"$GEN" pods 3000 >pods.txt &&
	test "$(wc -l <pods.txt)" -eq 3001 &&
	ofl-capture <pods.txt >notice &&
	head -n 1 notice | grep "^ofl:[0-9a-z]* table "
'

test_expect_success 'the notice gives the per-STATUS counts exactly' '
	awk "NR > 1 { c[\$4]++ } END { for (k in c) print c[k], k }" pods.txt |
	    sort -k1,1nr -k2 | awk "BEGIN { ORS = \"\" } { printf \"%s%s %s\", NR == 1 ? \"STATUS: \" : \", \", \$2, \$1 } END { print \"\\n\" }" >expect &&
	grep "^STATUS: " notice >actual &&
	test_cmp expect actual &&
	echo "STATUS: Running 2628, Completed 246, CrashLoopBackOff 50, Pending 30, Error 19, ImagePullBackOff 16, OOMKilled 11" >golden &&
	test_cmp golden actual
'

test_expect_success 'the columns, their types and the READY counts' '
	grep "^table: " notice >actual &&
	echo "table: 6 columns, 3,000 rows: NAMESPACE, NAME, READY, STATUS, RESTARTS (integer), AGE" >expect &&
	test_cmp expect actual &&
	ready=$(awk "NR > 1 && \$3 == \"1/1\"" pods.txt | wc -l) &&
	notready=$(awk "NR > 1 && \$3 == \"0/1\"" pods.txt | wc -l) &&
	echo "READY: 1/1 $ready, 0/1 $notready" >expect &&
	grep "^READY: " notice >actual &&
	test_cmp expect actual
'

test_expect_success 'the notice suggests a filter on the status' '
	grep -F "ofl-extract $(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" notice) '"'"'select(.STATUS != \"Running\")'"'"'" notice
'

test_expect_success 'the notice stays within its budget' '
	test "$(wc -c <notice)" -le 2000
'

test_expect_success 'docker ps: cells with spaces stay whole' '
	"$GEN" docker >docker.txt &&
	ofl-capture -T 0 <docker.txt >notice &&
	head -n 1 notice | grep " table " &&
	grep "^table: " notice >actual &&
	echo "table: 7 columns, 4 rows: CONTAINER ID, IMAGE, COMMAND, CREATED, STATUS, PORTS, NAMES" >expect &&
	test_cmp expect actual
'

test_expect_success 'ps aux: right-aligned numbers, a wider value, the command' '
	"$GEN" ps >ps.txt &&
	ofl-capture -T 0 <ps.txt >notice &&
	grep "^table: " notice >actual &&
	echo "table: 11 columns, 6 rows: USER, PID (integer), %CPU (number), %MEM (number), VSZ (integer), RSS (integer), TTY, STAT, START, TIME, COMMAND" >expect &&
	test_cmp expect actual
'

test_expect_success 'df: "Mounted on" is one column' '
	"$GEN" df >df.txt &&
	ofl-capture -T 0 <df.txt >notice &&
	grep "^table: " notice >actual &&
	echo "table: 6 columns, 5 rows: Filesystem, Size, Used, Avail, Use%, Mounted on" >expect &&
	test_cmp expect actual
'

test_expect_success 'systemctl: the legend after the blank line is not a row' '
	"$GEN" systemctl >units.txt &&
	ofl-capture -T 0 <units.txt >notice &&
	grep "^table: \|^ACTIVE: " notice >actual &&
	cat >expect <<-\EOT &&
	table: 5 columns, 5 rows: UNIT, LOAD, ACTIVE, SUB, DESCRIPTION
	ACTIVE: active 4, failed 1
	EOT
	test_cmp expect actual
'

test_expect_success 'logs, prose, CSV, TSV and diffs are not tables' '
	printf "2024-01-01 12:00:0%d INFO  worker  started job %d\n" 1 1 2 2 3 3 4 4 >log.txt &&
	printf "The quick brown fox jumps over the lazy dog.\nIt was the best of times, it was the worst of times.\nCall me Ishmael.  Some years ago, never mind how long.\n" >prose.txt &&
	printf "NAME,STATUS,AGE\na,Running,1d\nb,Error,2d\n" >t.csv &&
	printf "NAME\tSTATUS\tAGE\na\tRunning\t1d\nb\tError\t2d\n" >t.tsv &&
	printf "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-NAME   STATUS\n+NAME   STATE\n a      b\n" >d.diff &&
	for f in log.txt prose.txt t.csv t.tsv d.diff; do
		echo "$f $(kind $f)"
	done >actual &&
	cat >expect <<-\EOT &&
	log.txt log
	prose.txt text
	t.csv csv
	t.tsv tsv
	d.diff diff
	EOT
	test_cmp expect actual
'

test_expect_success 'hostile tables: NUL, invalid UTF-8, a huge line (cut), a header alone' '
	printf "NAME    STATUS\na\0b    Running\nc       Error\n" >nul.txt &&
	printf "NAME    STATUS\n\377\376    Running\nc       Error\nd       Error\n" >bad.txt &&
	{ printf "NAME    STATUS\na       Running\nb       Error\n"; awk "BEGIN { for (i = 0; i < 200000; i++) printf \"x\"; print \"    Running\" }"; printf "c       Error\n"; } >huge.txt &&
	printf "NAME    STATUS\n" >hdr.txt &&
	for f in nul.txt bad.txt huge.txt hdr.txt; do
		echo "$f $(kind $f)"
	done >actual &&
	cat >expect <<-\EOT &&
	nul.txt binary
	bad.txt table
	huge.txt table
	hdr.txt text
	EOT
	test_cmp expect actual &&
	ofl-capture -T 0 <bad.txt >notice &&
	grep "^STATUS: Error 2, Running 1$" notice &&
	ofl-capture -T 0 <huge.txt >notice &&
	grep "^STATUS: Error 2, Running 1$" notice &&
	test "$(wc -c <notice)" -le 4000
'

test_expect_success 'a table is chunked by rows, each chunk led by the header' '
	ofl-capture -q <pods.txt >ref &&
	ofl-search "$(cat ref)" CrashLoopBackOff >hits &&
	grep "rows [0-9]*-[0-9]*" hits
'

# netstat -tlnp: a line over the header says what the table is, and
# the second word of "PID/Program name" is over no cell: one column.
test_expect_success 'a line over the header: still a table, its rows counted' '
	{
		echo "Active Internet connections (only servers)"
		printf "%-6s%-7s%-7s%-24s%-24s%-12s%s\n" Proto Recv-Q Send-Q \
		    "Local Address" "Foreign Address" State "PID/Program name"
		i=0
		while [ $i -lt 30 ]; do
			case $((i % 3)) in
			0) p=tcp s=LISTEN ;;
			1) p=tcp6 s=LISTEN ;;
			2) p=udp s= ;;
			esac
			printf "%-6s%-7s%-7s%-24s%-24s%-12s%s\n" $p 0 0 \
			    "0.0.0.0:$((8000 + i))" "0.0.0.0:*" "$s" \
			    "$((100 + i))/app"
			i=$((i + 1))
		done
	} >netstat.txt &&
	test "$(kind netstat.txt)" = table &&
	ofl-capture -T 0 <netstat.txt >notice &&
	grep -x "table: 7 columns, 30 rows: Proto, Recv-Q (integer), Send-Q (integer), Local Address, Foreign Address, State, PID/Program name" notice &&
	grep -x "Proto: tcp 10, tcp6 10, udp 10" notice &&
	grep -x "State: LISTEN 20" notice &&
	ofl-capture -q -T 0 <netstat.txt | sed "s/^ofl://" >id.ns &&
	ofl-extract "$(cat id.ns)" "select(.Proto == \"udp\") | .\"Local Address\"" >actual &&
	awk "NR > 2 && \$1 == \"udp\" { print \"\\\"\" \$4 \"\\\"\" }" netstat.txt >expect &&
	test_cmp expect actual &&
	ofl-schema "$(cat id.ns)" >schema &&
	grep -x "table: 30 rows, 7 columns" schema
'

# top -b: five lines of figures over the header, the first with a time
# like a log's, and a column named TIME+.
test_expect_success 'top: a table under its summary lines, TIME+ a column' '
	{
		echo "top - 10:01:02 up 3 days,  2:03,  1 user,  load average: 0.93, 1.32, 1.64"
		echo "Tasks:  40 total,   1 running,  39 sleeping,   0 stopped,   0 zombie"
		echo "%Cpu(s):  0.0 us,  0.0 sy,  0.0 ni,100.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st"
		echo "MiB Mem :  24105.1 total,  22823.9 free,    507.3 used,   1087.4 buff/cache"
		echo "MiB Swap:      0.0 total,      0.0 free,      0.0 used.  23597.9 avail Mem"
		echo
		printf "%5s %-9s%3s %3s %7s %6s %6s %s %5s %5s %9s %s\n" PID USER PR NI \
		    VIRT RES SHR S %CPU %MEM TIME+ COMMAND
		i=1
		while [ $i -le 40 ]; do
			case $i in
			1) st=R ;;
			*[05]) st=I ;;
			*) st=S ;;
			esac
			printf "%5d %-9s%3d %3d %7d %6d %6d %s %5.1f %5.1f %9s %s\n" \
			    $i root 20 0 $((1000 * i)) $((100 * i)) 50 $st 0.0 0.1 \
			    "0:0$((i % 10)).00" "proc$i"
			i=$((i + 1))
		done
	} >top.txt &&
	test "$(kind top.txt)" = table &&
	ofl-capture -T 0 <top.txt >notice &&
	grep -x "table: 12 columns, 40 rows: PID (integer), USER, PR (integer), NI (integer), VIRT (integer), RES (integer), SHR (integer), S, %CPU (number), %MEM (number), TIME+, COMMAND" notice &&
	grep -x "S: S 31, I 8, R 1" notice
'

# pip list: a rule of dashes under the header is no row.
test_expect_success 'a rule under the header is no row' '
	{
		printf "%-20s %s\n" Package Version
		printf "%-20s %s\n" -------------------- -------
		i=0
		while [ $i -lt 12 ]; do
			printf "%-20s %s\n" "pkg-$i" "1.$((i % 2)).0"
			i=$((i + 1))
		done
	} >pip.txt &&
	test "$(kind pip.txt)" = table &&
	ofl-capture -T 0 <pip.txt >notice &&
	grep "^table: 2 columns, 12 rows: " notice &&
	grep -x "Version: 1.0.0 6, 1.1.0 6" notice &&
	ofl-capture -q -T 0 <pip.txt | sed "s/^ofl://" >id.pip &&
	ofl-extract "$(cat id.pip)" ".Package" >actual &&
	test "$(wc -l <actual)" -eq 12 &&
	! grep -e "---" actual &&
	ofl-index -q "$(cat id.pip)" &&
	ofl-search "$(cat id.pip)" pkg-11 >hits &&
	grep "rows " hits
'

# dpkg -l: three lines of legend, then a header whose first column is
# "||/" (the desired, status and error letters), a rule of "+++-===".
test_expect_success 'dpkg -l: a table, its status column "||/"' '
	{
		echo "Desired=Unknown/Install/Remove/Purge/Hold"
		echo "| Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend"
		echo "|/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)"
		printf "%-3s %-20s %-12s %-12s %s\n" "||/" Name Version Architecture Description
		echo "+++-====================-============-============-=============================="
		i=0
		while [ $i -lt 20 ]; do
			st=ii
			[ $i -eq 7 ] && st=rc
			a=amd64
			[ $((i % 4)) -eq 0 ] && a=all
			printf "%-3s %-20s %-12s %-12s %s\n" $st "lib-$i:$a" "1.$i-2" $a "the library number $i"
			i=$((i + 1))
		done
	} >dpkg.txt &&
	test "$(kind dpkg.txt)" = table &&
	ofl-capture -T 0 <dpkg.txt >notice &&
	grep -x "table: 5 columns, 20 rows: ||/, Name, Version, Architecture, Description" notice &&
	grep -x "||/: ii 19, rc 1" notice &&
	grep -x "Architecture: amd64 15, all 5" notice &&
	ofl-capture -q -T 0 <dpkg.txt | sed "s/^ofl://" >id.dpkg &&
	ofl-extract "$(cat id.dpkg)" "select(.[\"||/\"] != \"ii\") | .Name" >actual &&
	echo "\"lib-7:amd64\"" >expect &&
	test_cmp expect actual
'

# lscpu: labels ending in a colon, their values aligned: no table.
test_expect_success 'aligned labels and values (lscpu) are not a table' '
	for k in Architecture "CPU op-mode(s)" "Address sizes" "Byte Order" \
	    "CPU(s)" "Vendor ID" "Model name" "CPU family" Model \
	    "Thread(s) per core" "Core(s) per socket" "Socket(s)"; do
		printf "%-40s %s\n" "$k:" "value of $k"
	done >lscpu.txt &&
	test "$(kind lscpu.txt)" = text
'

# ls -l: no header, "total N" over rows whose fields ls aligns; the
# columns get the names of its fields.
test_expect_success 'ls -l: a table of named fields, with or without --time-style' '
	{
		echo "total 48"
		printf "%-11s %2d %-5s %-5s %6d %s %s\n" \
		    "drwxr-xr-x" 2 root root 4096 "Dec  4 02:17" "bin" \
		    "-rw-r--r--" 1 ann  staff 120 "Nov 30  2025" "notes.txt" \
		    "-rwxr-xr-x" 1 root root 53248 "Jan  2 10:00" "run me.sh" \
		    "lrwxrwxrwx" 1 ann  staff 11 "Dec  1 09:00" "cur -> bin" \
		    "-rw-r--r--+" 1 root root 7 "Dec  4 02:17" "acl.conf"
	} >ls.txt &&
	test "$(kind ls.txt)" = table &&
	ofl-capture -T 0 <ls.txt >notice &&
	grep -x "table: 9 columns, 5 rows: mode, links (integer), owner, group, size (integer), month, day (integer), time, name" notice &&
	grep -x "owner: root 3, ann 2" notice &&
	ofl-capture -q -T 0 <ls.txt | sed "s/^ofl://" >id.ls &&
	ofl-extract "$(cat id.ls)" "select(.size > 1000) | .name" >actual &&
	printf "\"%s\"\n" bin "run me.sh" >expect &&
	test_cmp expect actual &&
	{
		echo "total 8"
		echo "-rw-r--r-- 1 root root  10 2026-12-04 02:17 a"
		echo "-rw-r--r-- 1 root root 200 2026-11-30 10:00 b"
	} >lsiso.txt &&
	ofl-capture -T 0 <lsiso.txt >notice &&
	grep "^table: 8 columns, 2 rows: mode, links (integer), owner, group, size (integer), date, time, name" notice &&
	{ echo "total 8"; echo "a b c"; echo "d e f"; } >nols.txt &&
	test "$(kind nols.txt)" = text
'

# Prose whose third line looks like a header over two aligned lines:
# the table is not most of the text.
test_expect_success 'a small aligned block in prose is not a table' '
	{
		echo "Notes on the release, written by hand."
		echo "It has a few lines of prose first."
		printf "%-10s %s\n" Name Value a 1 b 2
		i=0
		while [ $i -lt 12 ]; do
			echo "More prose follows here, line $i of it, with words."
			i=$((i + 1))
		done
	} >notes.txt &&
	test "$(kind notes.txt)" = text
'

# ls -l /dev: a device's size is its two numbers, "10, 234".
test_expect_success 'ls -l with devices: the numbers are one size' '
	cat >dev.txt <<-\EOT &&
	total 0
	crw------- 1 root root  10, 234 Dec  3 04:27 btrfs-control
	crw------- 1 root root   5,   1 Dec  3 04:27 console
	drwxr-xr-x 4 root root       80 Dec  3 04:27 cpu
	lrwxrwxrwx 1 root root       13 Dec  3 10:57 fd -> /proc/self/fd
	brw-rw---- 1 root disk   7,   0 Dec  3 04:27 loop0
	crw-rw-rw- 1 root root   1,   3 Dec  3 04:27 null
	drwxrwxrwt 2 root root       40 Dec  3 04:27 shm
	EOT
	test "$(kind dev.txt)" = table &&
	ofl-capture -T 0 <dev.txt >n &&
	grep "^table: 9 columns, 7 rows: mode, links (integer), owner, group, size, month, day (integer), time, name$" n &&
	id=$(sed -n "1s/^ofl:\([0-9a-z]*\) .*/\1/p" n) &&
	ofl-extract "$id" "select(.mode | test(\"^[cb]\")) | \"\(.size)|\(.name)\"" >got &&
	printf "\"10, 234|btrfs-control\"\n\"5,   1|console\"\n\"7,   0|loop0\"\n\"1,   3|null\"\n" >want &&
	test_cmp want got
'

test_done
