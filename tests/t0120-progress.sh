#!/bin/sh
# Progress on stderr when it is a terminal (issue 13): one line, redrawn,
# erased at the end; none when stderr is not a terminal, with
# --no-progress or OFL_PROGRESS=off, nor while output passes through live
# to the same terminal.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

test_have_prereq python3 || test_skip_all "python3 is needed for a pty"

# term.py OUT WHICH CMD...: run CMD with WHICH ("err" or "both") of its
# stdout and stderr on a new terminal, stdout to OUT otherwise; write
# what the terminal received to stdout.
cat >term.py <<'EOF'
import os, pty, subprocess, sys
out, which, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
master, slave = pty.openpty()
f = open(out, "wb")
p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
    stdout=slave if which == "both" else f, stderr=slave)
os.close(slave)
got = b""
while True:
    try:
        b = os.read(master, 65536)
    except OSError:
        break
    if not b:
        break
    got += b
p.wait()
sys.stdout.buffer.write(got)
sys.exit(p.returncode)
EOF

# A command that is quiet for 2 s after its first lines.
slow='seq 1 3; sleep 2; echo end'

test_expect_success 'stderr a terminal: a progress line, erased at the end' '
	python3 term.py out err ofl-capture -T 0 -- sh -c "$slow" >tty &&
	grep "^ofl:[0-9a-z]* text 10 B 4 lines  " out &&
	grep "ofl-capture: 6 B, 3 lines, [0-9.]* s, [0-9.]* [kMG]*B/s" tty &&
	printf "\\r\\033[K" >tail.want &&
	tail -c 4 tty >tail.got && cmp tail.want tail.got &&
	test "$(tr -cd "\\r" <tty | wc -c)" -ge 4
'

test_expect_success 'redrawn at most four times a second' '
	n=$(tr -cd "\\r" <tty | wc -c) &&
	test "$n" -le 12
'

test_expect_success '--no-progress and OFL_PROGRESS=off: nothing' '
	python3 term.py out err ofl-capture --no-progress -T 0 -- \
	    sh -c "$slow" >tty &&
	test ! -s tty &&
	OFL_PROGRESS=off python3 term.py out err ofl-capture -T 0 -- \
	    sh -c "$slow" >tty &&
	test ! -s tty
'

test_expect_success 'stderr not a terminal: nothing' '
	ofl-capture -T 0 -- sh -c "$slow" >out 2>err &&
	test ! -s err
'

test_expect_success 'output passing to the same terminal: no progress' '
	python3 term.py out both ofl-capture -- sh -c "$slow" >tty &&
	printf "1\\r\\n2\\r\\n3\\r\\nend\\r\\n" >want &&
	cmp want tty
'

test_expect_success 'once it is withheld, the progress shows, then goes' '
	python3 term.py out both ofl-capture -T 2 -- \
	    sh -c "echo 1; sleep 0.3; seq 2 5; sleep 2" >tty &&
	printf "1\\r\\n2\\r\\n3\\r\\n4\\r\\n\\rofl-capture: 10 B, 5 lines" >want &&
	head -c $(wc -c <want) tty >got && cmp want got &&
	tr "\\r\\033" "\\n\\n" <tty >lines &&
	grep "^\\[K--- ofl: output over 2 tokens: lines 1-4 passed through above" lines
'

test_expect_success 'ofl-index --rebuild: a count on a terminal, erased at the end; none on a file' '
	for i in $(seq 1 40); do
		echo "artifact $i says hello$i" | ofl-capture -q -T 0 \
		    >/dev/null || return 1
	done &&
	python3 term.py out err ofl-index --rebuild >tty &&
	grep "^[0-9]* artifacts indexed$" out &&
	grep "ofl-index: [0-9]* of [0-9]* artifacts" tty &&
	printf "\\r\\033[K" >tail.want &&
	tail -c 4 tty >tail.got && cmp tail.want tail.got &&
	ofl-index --rebuild >out 2>err &&
	test ! -s err
'

test_done
