#!/bin/sh
# gc gives space back: removing an indexed artifact removes its index
# rows and the database shrinks, so that the size budget measures what
# is kept, and a budget well above what is kept removes nothing.
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$OFL_SRCDIR/tests/lib.sh"
. "$OFL_SRCDIR/tests/stress/proof.lib"

size() {
	du -sk "$OFL_STORE" | cut -f1
}

test_expect_success 'setup: an empty store, its size' '
	ofl-gc --set auto-gc=off &&
	echo seed | ofl-capture -T 0 >/dev/null &&
	ofl-gc --all >/dev/null &&
	size >empty && cat empty >&2
'

test_expect_success 'a purge removes the index rows with the artifact' '
	head -c 4500000 /dev/urandom | base64 >big &&
	word=$(sed -n 1000p big | cut -c1-20) &&
	id=$(cap big) && ofl-index -q "$id" &&
	ofl-search -a "$word" >hits && grep "^ofl:$id" hits &&
	ofl-gc --purge "$id" >/dev/null &&
	test_expect_code 1 ofl-search -a "$word" &&
	ofl-index --check &&
	ofl-gc --check >chk && grep " 0 problems" chk
'

test_expect_success STOREDIR 'the store shrinks back after an indexed artifact is purged' '
	size >after && cat after &&
	du -k "$OFL_STORE"/ofl.db* &&
	test "$(cat after)" -lt $(($(cat empty) + 2048))
'

test_expect_success STOREDIR 'a budget far above what is kept removes nothing' '
	a=$(echo "hello a" | ofl-capture -q -T 0 | ofl_id) &&
	b=$(seq 1 1000 | ofl-capture -q -T 0 | ofl_id) &&
	sleep 1.1 &&
	ofl-gc -v --max-size 4M >out &&
	cat out &&
	ofl-extract "$a" >/dev/null && ofl-extract "$b" >/dev/null
'

test_done
