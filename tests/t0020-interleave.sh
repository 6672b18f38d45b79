#!/bin/sh
# ofl-capture -- CMD: stdout and stderr share one pipe, so their bytes
# are stored and printed in the order the command wrote them.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

cat >alternate.sh <<'SCRIPT'
i=0
while [ $i -lt "$1" ]; do
	echo "out $i"
	echo "err $i" >&2
	i=$((i + 1))
done
SCRIPT

i=0
while [ $i -lt 500 ]; do
	echo "out $i"
	echo "err $i"
	i=$((i + 1))
done >expect500

test_expect_success 'out, err, out, err: order kept, nothing lost' '
	ofl-capture -- sh -c "echo out1; echo err1 >&2; echo out2; echo err2 >&2" \
	    >out 2>err &&
	printf "out1\nerr1\nout2\nerr2\n" >expect &&
	test_cmp expect out &&
	test ! -s err &&
	ofl-extract @ >back && test_cmp expect back
'

test_expect_success '500 alternating writes pass through in order' '
	ofl-capture -T 100000 -- sh alternate.sh 500 >out 2>err &&
	test_cmp expect500 out &&
	test ! -s err
'

test_expect_success 'and the artifact holds them in order' '
	ofl-extract @ >back &&
	test_cmp expect500 back
'

test_expect_success 'offloaded: the stored order is the written order' '
	ofl-capture -T 10 -- sh alternate.sh 500 >out &&
	grep "^ofl:[0-9a-z]* text 7.8 kB 1,000 lines  " out &&
	ofl-extract @ >back &&
	test_cmp expect500 back
'

test_expect_success 'with pauses between the writes' '
	ofl-capture -- sh -c "echo a; sleep 0.2; echo b >&2; sleep 0.2;
	    echo c; sleep 0.2; printf d >&2" >out &&
	printf "a\nb\nc\nd" >expect &&
	test_cmp expect out
'

test_expect_success 'stderr without a newline, then stdout' '
	ofl-capture -- sh -c "printf E >&2; printf O; printf E >&2" >out &&
	printf "EOE" >expect && test_cmp expect out
'

test_expect_success '-e: each command keeps its own order' '
	ofl-capture -T 100000 -e "sh alternate.sh 200" \
	    -e "sh alternate.sh 300" >out &&
	{
		echo "==> sh alternate.sh 200 <== exit 0" &&
		head -n 400 expect500 &&
		echo "==> sh alternate.sh 300 <== exit 0" &&
		head -n 600 expect500
	} >expect &&
	test_cmp expect out
'

test_done
