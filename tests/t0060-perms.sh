#!/bin/sh
# The store is private: directories 0700 and files 0600 whatever the
# umask; a store another user owns or others can write to is refused
# with one clear line, and the output is not dumped raw.
. "${OFL_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"

# gen N FILE: N bytes of text in lines of 50.
gen() {
	awk -v n="$1" 'BEGIN {
		s = "the quick brown fox jumps over the lazy dog 01234\n";
		for (i = 0; i + 50 <= n; i += 50) printf "%s", s;
		printf "%s", substr(s, 1, n - i);
	}' >"$2"
}

gen 100000 large

test_expect_success 'under umask 000: dirs 0700, files 0600' '
	(
		umask 000 &&
		echo x | ofl-capture -s "$TEST_DIR/new/deep/store" >/dev/null &&
		ofl-capture -s "$TEST_DIR/new/deep/store" -T 0 <large >/dev/null &&
		ofl-capture -s "$TEST_DIR/new/deep/store" -- sh -c "seq 1 10"
	) >/dev/null &&
	find "$TEST_DIR/new" -type d ! -perm 700 >bad &&
	find "$TEST_DIR/new/deep/store" ! -type d ! -perm 600 >>bad &&
	test ! -s bad &&
	test "$(find "$TEST_DIR/new/deep/store" -type f | wc -l)" -ge 3
'

test_expect_success 'a group-writable store is refused' '
	echo x | ofl-capture -s "$TEST_DIR/gw" >/dev/null &&
	chmod 770 gw &&
	test_expect_code 3 ofl-capture -s "$TEST_DIR/gw" <large >out 2>err &&
	test "$(wc -l <err)" -eq 1 &&
	grep "^ofl-capture: .*gw.*writable by group or others" err &&
	test "$(wc -c <out)" -lt $((24000 + 4096))
'

test_expect_success 'small output still passes through, the failure said' '
	echo small | test_expect_code 3 ofl-capture -s "$TEST_DIR/gw" >out 2>err &&
	echo small >expect && test_cmp expect out &&
	test "$(wc -l <err)" -eq 1
'

test_expect_success 'the other tools refuse it too' '
	test_expect_code 3 ofl-search -s "$TEST_DIR/gw" >out 2>err ||
	test_expect_code 3 env OFL_STORE="$TEST_DIR/gw" ofl-search >out 2>err &&
	test ! -s out &&
	grep "writable by group or others" err
'

test_expect_success 'a world-writable store is refused' '
	chmod 707 gw &&
	test_expect_code 3 ofl-capture -s "$TEST_DIR/gw" <large >out 2>err &&
	grep "writable by group or others" err
'

test_expect_success 'a group-readable store is fine' '
	chmod 750 gw &&
	echo ok | ofl-capture -s "$TEST_DIR/gw" >out &&
	echo ok >expect && test_cmp expect out
'

test_expect_success 'a group-writable ofl.db is refused' '
	chmod 700 gw && chmod 660 gw/ofl.db &&
	test_expect_code 3 ofl-capture -s "$TEST_DIR/gw" <large >out 2>err &&
	grep "ofl.db.*writable by group or others" err &&
	chmod 600 gw/ofl.db
'

test_expect_success '-- CMD with a refused store: the command still runs' '
	chmod 770 gw &&
	test_expect_code 4 ofl-capture -s "$TEST_DIR/gw" -- sh -c "echo ran; exit 4" \
	    >out 2>err &&
	echo ran >expect && test_cmp expect out &&
	grep "writable by group or others" err &&
	chmod 700 gw
'

test_expect_success ROOT 'a store owned by another user is refused' '
	echo x | ofl-capture -s "$TEST_DIR/other" >/dev/null &&
	chown -R nobody other &&
	test_expect_code 3 ofl-capture -s "$TEST_DIR/other" <large >out 2>err &&
	test "$(wc -l <err)" -eq 1 &&
	grep "^ofl-capture: .*other.*owned by uid [0-9]*, not by you" err &&
	test "$(wc -c <out)" -lt $((24000 + 4096)) &&
	test_expect_code 3 env OFL_STORE="$TEST_DIR/other" ofl-search >out 2>err &&
	test ! -s out && grep "owned by uid" err
'

test_expect_success ROOT 'as root: the store owned by someone else is untouched' '
	test "$(find other -newer err | wc -l)" -eq 0 &&
	test "$(find other ! -user nobody | wc -l)" -eq 0
'

test_expect_success 'a file where the store should be' '
	echo notadir >afile &&
	test_expect_code 3 ofl-capture -s "$TEST_DIR/afile" <large >out 2>err &&
	test "$(wc -l <err)" -eq 1 &&
	grep "afile" err &&
	test "$(wc -c <out)" -lt $((24000 + 4096))
'

test_done
