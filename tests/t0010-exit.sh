#!/bin/sh
# ofl-capture -- CMD: the exit status is the command's own; 126, 127 and
# 128+N as env(1) and the shell give them; signals to ofl-capture itself.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

test_expect_success 'exit 0' '
	test_expect_code 0 ofl-capture -- sh -c "echo ok" >out &&
	echo ok >expect && test_cmp expect out
'

test_expect_success 'exit 3 and 42 are passed on' '
	test_expect_code 3 ofl-capture -- sh -c "echo three; exit 3" >out &&
	echo three >expect && test_cmp expect out &&
	test_expect_code 42 ofl-capture -- sh -c "exit 42" >out &&
	test ! -s out
'

test_expect_success 'the status is kept when the output is offloaded' '
	test_expect_code 5 ofl-capture -T 1 -- sh -c "seq 1 100; exit 5" >out &&
	grep "^ofl:[0-9a-z]* text 292 B 100 lines  " out &&
	ofl-extract @ >back &&
	seq 1 100 >expect && test_cmp expect back
'

test_expect_success 'exit 255' '
	test_expect_code 255 ofl-capture -- sh -c "exit 255" >/dev/null
'

test_expect_success 'the artifact records the exit status' '
	test_expect_code 42 ofl-capture -- sh -c "echo x; exit 42" >/dev/null &&
	ofl_listing >list &&
	head -n 1 list | grep "^ofl:[0-9a-z]*	text	2 B	1	[0-9]*s	42	-	"
'

test_expect_success 'not found: 127 and a message naming the command' '
	test_expect_code 127 ofl-capture -- no-such-command-ofl >out 2>err &&
	test ! -s out &&
	test "$(wc -l <err)" -eq 1 &&
	grep "^ofl-capture: no-such-command-ofl: " err
'

test_expect_success 'not executable: 126' '
	printf "#!/bin/sh\necho hi\n" >noexec && chmod 644 noexec &&
	test_expect_code 126 ofl-capture -- ./noexec >out 2>err &&
	test ! -s out &&
	grep "^ofl-capture: ./noexec: " err
'

test_expect_success 'a directory: 126' '
	mkdir -p adir &&
	test_expect_code 126 ofl-capture -- ./adir >out 2>err &&
	test ! -s out && grep "adir" err
'

test_expect_success 'killed by SIGKILL: 137, output before it kept' '
	test_expect_code 137 ofl-capture -- sh -c "echo before; kill -9 \$\$" \
	    >out &&
	head -n 1 out >got && echo before >expect && test_cmp expect got &&
	ofl_listing >list &&
	head -n 1 list | grep "	137	incomplete	"
'

test_expect_success 'killed by SIGTERM: 143, its reference printed' '
	test_expect_code 143 ofl-capture -- sh -c "kill -15 \$\$" >out &&
	echo "--- ofl: the command was killed by SIGTERM; the output above is stored as ---" \
	    >expect &&
	head -n 1 out >got && test_cmp expect got &&
	sed -n 2p out | grep "^ofl:[0-9a-z]* empty 0 B 0 lines (incomplete)  "
'

test_expect_success 'stdin mode exits 0 whatever produced the input' '
	(echo data; exit 7) | ofl-capture >out &&
	echo data >expect && test_cmp expect out
'

test_expect_success 'several -e: the highest status' '
	test_expect_code 7 ofl-capture -e "exit 3" -e "exit 7" -e true >out &&
	printf "==> exit 3 <== exit 3\n==> exit 7 <== exit 7\n==> true <== exit 0\n" \
	    >expect &&
	test_cmp expect out
'

test_expect_success '-e with a command not found: 127 from sh' '
	test_expect_code 127 ofl-capture -e no-such-command-ofl >out 2>err &&
	grep "no-such-command-ofl" out &&
	test_expect_code 127 ofl-capture -e no-such-command-ofl -e true \
	    >out 2>err &&
	head -n 1 out | grep -x "==> no-such-command-ofl <== exit 127"
'

test_expect_success 'SIGTERM to ofl-capture: passed to the command' '
	ofl-capture -j -- sh -c "echo started; exec sleep 30" >out 2>err &
	pid=$! &&
	i=0 &&
	while [ $i -lt 50 ] && ! ofl-search -q >/dev/null 2>&1; do
		sleep 0.1; i=$((i + 1))
	done &&
	sleep 0.5 &&
	kill -TERM $pid &&
	{ wait $pid; rc=$?; } &&
	test "$rc" -eq 143 &&
	grep "\"exit\":143" out &&
	grep "\"output\":\"started\\\\n\"" out
'

test_expect_success 'SIGTERM to ofl-capture reading stdin: 143, input kept' '
	sh -c "echo \$\$ >prod.pid; seq 1 100; exec sleep 30" |
	ofl-capture -j >out 2>err &
	pid=$!
	sleep 1
	kill -TERM $pid
	sleep 0.5
	kill "$(cat prod.pid)"
	wait $pid
	rc=$?
	test "$rc" -eq 143 &&
	grep "\"incomplete\":true" out &&
	grep "\"lines\":100," out &&
	ofl-extract @ >back &&
	seq 1 100 >expect && test_cmp expect back
'

test_done
