#!/bin/sh
# ofl-capture passes output through live while it is under the threshold:
# whole lines as they arrive, masked; past the threshold the rest is
# withheld and a line says so before the notice; a capture cut short
# (the command killed, ofl-capture interrupted, a background process
# holding the pipe) ends with the reference of what was stored.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

# first_line SECS CMD...: run CMD, print the first line of its stdout and
# how many seconds it took to arrive, as "LINE<TAB>SECONDS"; reads the
# rest of the output so that the command is not cut short.
# first.py CMD...: run CMD; print the first line of its stdout (or the
# first five bytes, for a line that has no end yet) and how many seconds
# they took to arrive, as "LINE<TAB>SECONDS"; then read the rest.
cat >first.py <<'EOF'
import os, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
data = b""
while b"\n" not in data and len(data) < 5:
    b = os.read(p.stdout.fileno(), 4096)
    if not b:
        break
    data += b
t1 = time.monotonic()
p.stdout.read()
p.wait()
print("%s\t%.3f" % (data.split(b"\n")[0][:5].decode(), t1 - t0))
EOF

# arrives_early OUT: the first line came, and long before the 5 s sleep
# that follows it in the command had ended.
arrives_early() {
	cut -f 1 "$1" >first.got &&
	echo first >first.want && test_cmp first.want first.got &&
	awk -F '\t' '{ exit !($2 < 2.5) }' "$1"
}

# normalize FILE: IDs and durations of reference lines become ID, DURATION.
normalize() {
	sed -e 's/ofl:[0-9a-z]\{8\}/ofl:ID/g' \
	    -e 's/  [0-9][0-9.]* [a-z]*\( [0-9]* s\)*$/  DURATION/' "$1"
}

test_expect_success python3 '-- CMD: the first line arrives while CMD runs' '
	python3 first.py ofl-capture -- sh -c "echo first; sleep 5; echo last" \
	    >t.out &&
	arrives_early t.out
'

test_expect_success python3 'stdin: the first line arrives while input runs' '
	python3 first.py sh -c "(echo first; sleep 5; echo last) |
	    ofl-capture" >t.out &&
	arrives_early t.out
'

test_expect_success python3 'one -e: the first line arrives while it runs' '
	python3 first.py ofl-capture -e "echo first; sleep 5; echo last" \
	    >t.out &&
	arrives_early t.out
'

test_expect_success python3 'a prompt without a newline passes after a pause' '
	python3 first.py ofl-capture -- sh -c "printf first; sleep 5; echo" \
	    >t.out &&
	arrives_early t.out
'

test_expect_success 'the output still passes whole and in order' '
	ofl-capture -- sh -c "echo a; sleep 0.6; printf b; sleep 0.6;
	    printf c; echo d; printf e" >out &&
	printf "a\nbcd\ne" >expect && test_cmp expect out &&
	ofl-extract @ >back && test_cmp expect back
'

seq 1 10000 >seq.in
# The pause is long enough for ofl-capture to be reading before it ends,
# even when it starts slowly (a busy machine, a PostgreSQL store).
test_expect_success 'over the threshold: the lines under it, a line, the notice' '
	(echo 1; sleep 1; seq 2 10000) | ofl-capture >out &&
	head -n 5021 seq.in >expect &&
	head -n 5021 out >got && test_cmp expect got &&
	sed -n 5022,5023p out | normalize /dev/stdin >got &&
	cat >expect <<-\EOF &&
	--- ofl: output over 6,000 tokens: lines 1-5,021 passed through above, the rest withheld; the notice below covers the whole output ---
	ofl:ID text 49 kB 10,000 lines
	EOF
	test_cmp expect got &&
	id=$(sed -n "5023s/^ofl:\([0-9a-z]*\) .*/\1/p" out) &&
	ofl-extract "$id" >back && test_cmp seq.in back
'

test_expect_success 'the cut does not depend on how the lines arrive' '
	ofl-capture -T 10 -- sh -c "echo 1; sleep 0.3; for i in \$(seq 2 100);
	    do echo \$i; sleep 0.01; done" >slow &&
	ofl-capture -T 10 -- sh -c "echo 1; sleep 0.3; seq 2 100" >fast &&
	seq 1 16 >expect &&
	head -n 16 slow >got && test_cmp expect got &&
	head -n 16 fast >got && test_cmp expect got &&
	sed -n 17p slow >a && sed -n 17p fast >b && test_cmp a b &&
	grep "^--- ofl: output over 10 tokens: lines 1-16 passed through above" a
'

# A line begun passes PARTIAL_MS (500 ms) after its last bytes, and no
# sooner than FLOOD_MAX_MS (200 ms) after the first: the pause before
# "def" is 2 s, room for a slow start (1 s was once too short under the
# sanitizers on a busy machine).
test_expect_success 'a line passed in part: the line says so' '
	(printf abc; sleep 1; seq 1 20) | ofl-capture -T 10 >out &&
	printf "abc" >expect &&
	seq 1 15 >>expect &&
	echo "--- ofl: output over 10 tokens: lines 1-15 passed through above, the rest withheld; the notice below covers the whole output ---" \
	    >>expect &&
	head -n 16 out >got && test_cmp expect got &&
	(printf abc; sleep 2; printf def; seq 1 20) |
	    ofl-capture -T 1 >out &&
	printf "abc\n--- ofl: output over 1 tokens: passed through above up to part of line 1, the rest withheld; the notice below covers the whole output ---\n" \
	    >expect &&
	head -n 2 out >got && test_cmp expect got
'

test_expect_success 'a flood over the threshold at once: only the notice' '
	seq 1 10000 | ofl-capture >out &&
	head -n 1 out | grep "^ofl:[0-9a-z]\{8\} text 49 kB 10,000 lines$" &&
	ofl-capture -- seq 1 10000 >out &&
	head -n 1 out | grep "^ofl:[0-9a-z]\{8\} text 49 kB 10,000 lines  " &&
	ofl-capture <seq.in >out &&
	head -n 1 out | grep "^ofl:[0-9a-z]\{8\} text 49 kB 10,000 lines$"
'

test_expect_success 'one line over the threshold: only the notice' '
	awk "BEGIN { for (i = 0; i < 30000; i++) printf \"x\" }" >x.in &&
	ofl-capture <x.in >out &&
	head -n 1 out | grep "^ofl:[0-9a-z]\{8\} text 30 kB 1 line$"
'

test_expect_success 'a line longer than 64 KiB under -T passes in pieces, whole' '
	awk "BEGIN { for (i = 0; i < 200000; i++) printf \"y\"; print \"\" }" \
	    >long.in &&
	ofl-capture -T 100000 <long.in >out &&
	cmp long.in out &&
	ofl-capture -T 100000 --no-redact <long.in >out &&
	cmp long.in out
'

test_expect_success 'the command killed: the output, then its reference' '
	test_expect_code 137 ofl-capture -- sh -c "echo before; kill -9 \$\$" \
	    >out &&
	normalize out >got &&
	cat >expect <<-\EOF &&
	before
	--- ofl: the command was killed by SIGKILL; the output above is stored as ---
	ofl:ID text 7 B 1 line (incomplete)  $ sh -c '"'"'echo before; kill -9 $$'"'"'  exit 137  DURATION
	EOF
	test_cmp expect got &&
	ofl-extract @ >back && echo before >expect && test_cmp expect back
'

test_expect_success 'killed over the threshold: the line says both' '
	test_expect_code 143 ofl-capture -T 2 -- sh -c "echo 1; sleep 0.3;
	    seq 2 10; kill -15 \$\$" >out &&
	sed -n 5p out >got &&
	echo "--- ofl: output over 2 tokens: lines 1-4 passed through above, the rest withheld; the command was killed by SIGTERM; the notice below covers the whole output ---" \
	    >expect &&
	test_cmp expect got &&
	sed -n 6p out | grep "^ofl:[0-9a-z]* text 21 B 10 lines (incomplete)  "
'

test_expect_success 'ofl-capture interrupted: the output read, its reference' '
	rm -f prod.pid
	sh -c "echo \$\$ >prod.pid; seq 1 3; exec sleep 30" |
	ofl-capture >out 2>err &
	pid=$!
	sleep 1
	kill -INT $pid
	wait $pid
	rc=$?
	kill "$(cat prod.pid)" 2>/dev/null
	test "$rc" -eq 130 &&
	normalize out >got &&
	cat >expect <<-\EOF &&
	1
	2
	3
	--- ofl: interrupted by SIGINT; the output above is stored as ---
	ofl:ID text 6 B 3 lines (incomplete)
	EOF
	test_cmp expect got &&
	id=$(sed -n "5s/^ofl:\([0-9a-z]*\) .*/\1/p" out) &&
	ofl-extract "$id" >back && seq 1 3 >expect && test_cmp expect back
'

test_expect_success 'a background process holds the pipe: marked incomplete' '
	ofl-capture -- sh -c "echo hi; sleep 3 >/dev/null 2>&1 & sleep 3 &" \
	    >out 2>err &&
	normalize out >got &&
	cat >expect <<-\EOF &&
	hi
	--- ofl: stopped reading 200 ms after the command exited: a process it started still holds its output; the output above is stored as ---
	EOF
	head -n 2 got >got2 && test_cmp expect got2 &&
	sed -n 3p got | grep "^ofl:ID text 3 B 1 line (incomplete)  " &&
	grep "^ofl-capture: ofl:[0-9a-z]*: incomplete: stopped reading 200 ms after the command exited" err &&
	ofl_listing >list &&
	head -n 1 list | cut -f 7 >flags &&
	echo incomplete >expect && test_cmp expect flags
'

test_expect_success 'a background process that lets go of the pipe: complete' '
	ofl-capture -- sh -c "echo hi; sleep 3 >/dev/null 2>&1 &" >out 2>err &&
	echo hi >expect && test_cmp expect out &&
	test ! -s err
'

# Secrets in passed-through output (issue 16).
secrets() {
	awk 'BEGIN { for (i = 1; i <= 380; i++)
		printf "build step %d of the release, all fine so far\n", i }'
	echo "aws_key AKIAIOSFODNN7EXAMPLE in the log"
	echo "token ghp_0123456789abcdefghijABCDEFGHIJ012345 used"
	echo "the end"
}
secrets >sec.in
test_expect_success 'setup: 17 kB of output with an AWS key and a GitHub token' '
	test "$(wc -c <sec.in)" -gt 17000 &&
	test "$(wc -c <sec.in)" -lt 24000 &&
	head -n 380 sec.in >masked &&
	cat >>masked <<-\EOF
	aws_key [redacted: aws-access-key] in the log
	token [redacted: github-token] used
	the end
	EOF
'

test_expect_success 'passed-through output is masked (stdin and -- CMD)' '
	ofl-capture <sec.in >out && test_cmp masked out &&
	ofl-capture -- cat sec.in >out && test_cmp masked out &&
	ofl-capture -e "cat sec.in" >out && test_cmp masked out
'

test_expect_success 'and stored raw' '
	ofl-extract @ >back && test_cmp sec.in back
'

test_expect_success 'masked under several -e, in --json and with -q too' '
	ofl-capture -e "cat sec.in" -e "echo x" >out &&
	sed -n "2,384p" out >got && test_cmp masked got &&
	ofl-capture -q <sec.in >out && test_cmp masked out &&
	ofl-capture -j <sec.in >out &&
	! grep AKIAIOSFODNN7EXAMPLE out &&
	grep -c "redacted: aws-access-key" out
'

test_expect_success 'raw on request: --no-redact, OFL_REDACT=off, redact=off' '
	ofl-capture --no-redact <sec.in >out && test_cmp sec.in out &&
	OFL_REDACT=off ofl-capture -- cat sec.in >out && test_cmp sec.in out &&
	ofl-gc --set redact=off &&
	ofl-capture <sec.in >out && test_cmp sec.in out &&
	ofl-gc --set redact=on &&
	ofl-capture <sec.in >out && test_cmp masked out
'

test_expect_success 'a private key over several lines is masked whole' '
	printf "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\nxyz\n-----END RSA PRIVATE KEY-----\nb\n" |
	    ofl-capture >out &&
	! grep -e MIIEabc -e xyz out &&
	head -n 1 out | grep -x a && tail -n 1 out | grep -x b &&
	test "$(wc -l <out)" -eq 6
'

test_expect_success 'not stored: the preview is masked (issue 16)' '
	echo x | ofl-capture -s "$TEST_DIR/gw" >/dev/null &&
	chmod 770 gw &&
	{ echo "key AKIAIOSFODNN7EXAMPLE"; cat seq.in; } >big.in &&
	test_expect_code 3 ofl-capture -q -s "$TEST_DIR/gw" <big.in >out 2>err &&
	grep "^ofl: output not stored" out &&
	! grep AKIAIOSFODNN7EXAMPLE out &&
	grep "key \[redacted: aws-access-key\]" out &&
	test_expect_code 3 ofl-capture -q -s "$TEST_DIR/gw" --no-redact <big.in >out 2>err &&
	grep AKIAIOSFODNN7EXAMPLE out
'

test_expect_success 'a bad OFL_LEVEL is a usage error (2)' '
	test_expect_code 2 env OFL_LEVEL=fast ofl-capture -- echo hi >out 2>err &&
	test ! -s out &&
	grep "^ofl-capture: OFL_LEVEL: " err &&
	test_expect_code 2 env OFL_LEVEL=20 ofl-capture </dev/null >out 2>err &&
	grep "^ofl-capture: OFL_LEVEL: " err &&
	OFL_LEVEL=-5 ofl-capture -- echo hi >out && echo hi >expect &&
	test_cmp expect out
'

test_done
