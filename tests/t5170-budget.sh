#!/bin/sh
# The size budget takes nothing it must keep: the artifacts of the grace
# period, pinned ones and the current session's; it counts what each
# removal frees (content and its share of the index) instead of
# measuring a database that has not shrunk yet; a dry run lists exactly
# what a real run removes; a budget it cannot meet is said in one line.
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$OFL_SRCDIR/tests/lib.sh"
. "$OFL_SRCDIR/tests/stress/proof.lib"

# A log of many distinct words: its index is larger than its content.
biglog() {
	awk -v n="$1" -v s="$2" 'BEGIN { for (i = 0; i < n; i++)
	    printf "2026-01-01 12:00:%02d host%d req=%x user=u%d w%s%d\n",
	    i % 60, i % 17, i * 7919 + s, i % 5000, s, i }'
}

ids() {
	sed -n 's/^[a-z ]*	ofl:\([0-9a-z]*\)	.*/\1/p' "$1" | sort
}

test_expect_success 'setup: auto-gc off; a large log and a small text' '
	ofl-gc --set auto-gc=off &&
	biglog 60000 a >big.log &&
	head -c 300000 /dev/urandom | base64 >small.txt
'

test_expect_success 'the budget keeps what was captured within the grace period' '
	big=$(cap big.log) && ofl-search "$big" wa777 >/dev/null &&
	sleep 2.5 &&
	small=$(cap small.txt) && echo "$small" >small.id &&
	ofl-gc -v --max-size 2M --grace 2s >out 2>err &&
	cat out err &&
	test "$(ids out)" = "$big" &&
	grep "; 1 kept," out &&
	ofl-extract "$small" >back && cmp back small.txt &&
	ofl-gc --check >chk && grep " 0 problems" chk
'

test_expect_success 'budget not met: one line on stderr says what holds the space, exit 1' '
	test_expect_code 1 ofl-gc --max-size 1k >out 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep "^ofl-gc: budget 1.0 kB not met: store [0-9.]* [kM]B; [0-9.]* [kM]*B held by the index, 1 artifact ([0-9.]* kB) within the grace period$" err &&
	grep "^removed 0 artifacts" out &&
	test_expect_code 1 ofl-gc -j --max-size 1k >out 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep "\"budget_unmet\":\"budget 1.0 kB not met: store " out &&
	ofl-gc -j --max-size 1G >out &&
	grep "\"budget_unmet\":null}$" out &&
	ofl-extract "$(cat small.id)" >back && cmp back small.txt
'

test_expect_success 'a dry run lists exactly what the real run removes' '
	ofl-gc --all >/dev/null &&
	for k in 1 2 3 4 5 6; do
		biglog 8000 "d$k" >d$k.log &&
		id=$(cap d$k.log) || return 1
		if [ $((k % 2)) = 1 ]; then
			ofl-index -q "$id" || return 1
		fi
	done &&
	sleep 1.1 &&
	ofl-gc -n -v --max-size 1500k --grace 1s >dry &&
	ofl-gc -v --max-size 1500k --grace 1s >real &&
	cat dry real &&
	test -s real && ids real >r && ids dry >d &&
	test_cmp d r &&
	test "$(sed -n "s/^would remove \([0-9]*\) .*/\1/p" dry)" = \
	    "$(sed -n "s/^removed \([0-9]*\) .*/\1/p" real)" &&
	test "$(wc -l <r)" -lt 6
'

test_expect_success 'pinned artifacts: neither the budget nor expiry takes them' '
	ofl-gc --all >/dev/null &&
	p=$(cap small.txt) && q=$(seq 1 20000 | ofl-capture -q -T 0 | ofl_id) &&
	ofl-gc --pin "$p" &&
	sleep 1.1 &&
	test_expect_code 1 ofl-gc -v --max-size 200k --grace 0 >out 2>err &&
	cat out err &&
	test "$(ids out)" = "$q" &&
	grep "1 pinned (" err &&
	ofl-gc -v --older-than 1s >out && ! grep "ofl:$p" out &&
	ofl-extract "$p" >back && cmp back small.txt &&
	ofl-gc --unpin "ofl:$p" &&
	ofl-gc -v --max-size 200k --grace 0 >out &&
	test "$(ids out)" = "$p"
'

test_expect_success '--pin of an unknown ID exits 3, of a malformed one 2' '
	test_expect_code 3 ofl-gc --pin zzzzzzzz 2>err &&
	grep "zzzzzzzz: unknown artifact" err &&
	test_expect_code 2 ofl-gc --pin "a/b" 2>err
'

test_expect_success 'the budget keeps the artifacts of the session in $OFL_SESSION' '
	s=$(OFL_SESSION=s1 cap small.txt) &&
	sleep 1.1 &&
	test_expect_code 1 env OFL_SESSION=s1 ofl-gc -v --max-size 200k \
	    --grace 0 >out 2>err &&
	test -z "$(ids out)" && grep "1 of this session (" err &&
	OFL_SESSION=other ofl-gc -v --max-size 200k --grace 0 >out &&
	test "$(ids out)" = "$s"
'

test_expect_success 'an ambiguous --purge prefix is a usage error: exit 2, nothing removed' '
	ofl-gc --all >/dev/null &&
	i=0 && while [ $i -lt 40 ]; do
		echo "tiny $i" | ofl-capture -q -T 0 >/dev/null; i=$((i + 1))
	done &&
	ofl-search -a -q | cut -c1 | sort | uniq -d | head -n 1 >pfx &&
	test -s pfx &&
	test_expect_code 2 ofl-gc --purge "$(cat pfx)" >out 2>err &&
	grep "ambiguous ID prefix" err &&
	test "$(ofl-search -a -q | wc -l)" = 40
'

test_expect_success 'grace: a setting, checked, and shown' '
	ofl-gc --set grace=10m &&
	ofl-gc --settings | grep "^grace	10m	" &&
	test_expect_code 2 ofl-gc --set grace=soon 2>err &&
	test_expect_code 2 ofl-gc --grace soon 2>err
'

test_expect_success 'auto-gc keeps the artifact whose ID the capture just printed' '
	ofl-gc --all >/dev/null &&
	old=$(cap big.log) && ofl-index -q "$old" &&
	sleep 2.5 &&
	ofl-gc --set auto-gc=on --set max-size=2M --set grace=2s &&
	test_stamp_old gc &&
	new=$(cap small.txt) &&
	i=0 && while [ $i -lt 100 ] && ofl-extract -n 1 "$old" >/dev/null 2>&1
	do
		sleep 0.2; i=$((i + 1))
	done &&
	test_expect_code 3 ofl-extract -n 1 "$old" >/dev/null 2>&1 &&
	ofl-extract "$new" >back && cmp back small.txt &&
	ofl-gc --set auto-gc=off
'

test_done
