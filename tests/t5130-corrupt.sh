#!/bin/sh
# A damaged store: a corrupted database file and missing, truncated or
# damaged content files give clear one-line errors (exit 3), never a
# crash; ofl-gc --check finds the damage and --repair makes the store
# consistent again without touching the healthy artifacts.
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$OFL_SRCDIR/tests/lib.sh"
test_needs STOREDIR
. "$OFL_SRCDIR/tests/stress/proof.lib"

# every_binary: run each reader and writer once; print "CMD => STATUS
# LINES" per command to results, stderr to errs.
every_binary() {
	tried=$(cat tried 2>/dev/null || echo 0)
	: >results
	for cmd in "ofl-extract $ida" "ofl-extract -n 5 $ida" \
	    "ofl-search $ida 300" "ofl-search -a 300" "ofl-search" \
	    "ofl-index -f $ida" "ofl-schema $idb" "ofl-gc --check" "ofl-gc" \
	    "ofl-index --check"; do
		$cmd >out 2>err
		rc=$?
		echo "$cmd => $rc $(wc -l <err | tr -d " ")" >>results
		cat err >>errs
		tried=$((tried + 1))
	done
	echo $tried >tried
}

# sane: no crash, a known status, at most one line of error each (the
# checks excepted: they report what they find).
sane() {
	! awk "\$(NF - 1) >= 128 || \$(NF - 1) == 2 ||
	    (\$NF > 1 && !/--check/)" results | grep . >&2 &&
	no_sanitizer errs
}

restore() {
	rm -rf "$OFL_STORE" &&
	cp -a pristine "$OFL_STORE"
}

echo 0 >tried
test_expect_success 'setup: three artifacts, indexed, a pristine copy' '
	ofl-gc --set auto-gc=off &&
	seq 1 30000 >a && printf "{\"a\":[1,2,3]}\n" >b &&
	head -c 100000 /dev/urandom | base64 >c &&
	ida=$(cap a) && idb=$(cap b) && idc=$(cap c) &&
	echo "$ida $idb $idc" >ids &&
	ofl-index -q "$ida" "$idb" "$idc" &&
	if command -v sqlite3 >/dev/null; then
		sqlite3 "$OFL_STORE/ofl.db" "PRAGMA wal_checkpoint(TRUNCATE)"
	fi &&
	cp -a "$OFL_STORE" pristine
'
read -r ida idb idc <ids
blob() {
	echo "$OFL_STORE/blobs/$(echo "$1" | cut -c1-2)/$1"
}

test_expect_success 'a database with a garbage header: exit 3, one line, every binary' '
	printf "garbage garbage!" |
	    dd of="$OFL_STORE/ofl.db" conv=notrunc bs=1 seek=0 2>/dev/null &&
	: >errs && every_binary &&
	cat results >&2 &&
	test "$(grep -c " => 3 1$" results)" -eq "$(wc -l <results)" &&
	grep -c "file is not a database" errs >n &&
	test "$(cat n)" -eq "$(wc -l <results)"
'

test_expect_success 'a capture into that store runs the command, says why it kept nothing' '
	ofl-capture -- echo hello >out 2>err
	rc=$?
	test $rc -eq 0 && echo hello | cmp - out &&
	test "$(wc -l <err)" -eq 1 && grep "not a database" err &&
	ofl-capture -- seq 1 100000 >out 2>err
	rc=$?
	test $rc -eq 0 &&
	grep "^ofl: output not stored (589 kB): .*not a database" out &&
	grep "^1$" out && grep "^100000$" out &&
	test "$(wc -c <out)" -lt 8000
'

test_open_bug 'with -T 0 a capture that cannot store still shows a preview' '
	ofl-capture -T 0 -- echo hello >out 2>err
	cat out
	grep "^hello$" out
'

test_expect_success 'a database that is a directory, or empty: clear errors' '
	restore && rm -f "$OFL_STORE"/ofl.db* && mkdir "$OFL_STORE/ofl.db" &&
	test_expect_code 3 ofl-extract "$ida" 2>err &&
	test "$(wc -l <err)" -eq 1 &&
	test_expect_code 3 ofl-search -a x 2>err &&
	test "$(wc -l <err)" -eq 1 &&
	rmdir "$OFL_STORE/ofl.db" && : >"$OFL_STORE/ofl.db" &&
	test_expect_code 3 ofl-extract "$ida" 2>err &&
	test "$(wc -l <err)" -eq 1 && grep "empty" err
'

test_expect_success sqlite3 'random bytes over each page of the database: no crash, one-line errors' '
	restore &&
	pages=$(($(wc -c <"$OFL_STORE/ofl.db") / 4096)) &&
	test "$pages" -ge 3 &&
	: >errs && : >all &&
	p=1 &&
	while [ $p -lt "$pages" ] && [ $p -le 40 ]; do
		restore &&
		head -c 512 /dev/urandom |
		    dd of="$OFL_STORE/ofl.db" conv=notrunc bs=1 \
		    seek=$((p * 4096 + 64)) 2>/dev/null &&
		every_binary &&
		sed "s/^/page $p: /" results >>all
		p=$((p + 1))
	done &&
	cp all results &&
	sane &&
	echo "$p pages" >&2
'

test_expect_success 'a missing content file: exit 3 with "content missing"' '
	restore && rm "$(blob "$ida")" &&
	for cmd in "ofl-extract $ida" "ofl-extract -n 5 $ida" \
	    "ofl-index -f $ida" "ofl-schema -k csv $ida"; do
		$cmd >out 2>err
		rc=$?
		echo "$cmd => $rc" >&2
		test $rc -eq 3 && test "$(wc -l <err)" -eq 1 &&
		grep -q "content missing" err || exit 1
	done
'

test_open_bug 'ofl-search of an artifact whose content is missing says so' '
	restore && rm "$(blob "$ida")" &&
	ofl-search "$ida" 300 >out 2>err
	rc=$?
	echo "exit $rc, $(wc -c <out) bytes out: $(cat err)"
	test $rc -eq 3 && grep "content missing" err
'

test_expect_success '--check reports the missing content, --repair removes it, the rest stays' '
	restore && rm "$(blob "$ida")" &&
	test_expect_code 3 ofl-gc --check >chk &&
	grep "ofl:$ida: content missing" chk &&
	ofl-gc --repair >rep &&
	grep "artifact removed" rep &&
	ofl-gc --check >chk &&
	grep " 0 problems" chk &&
	test_expect_code 3 ofl-extract "$ida" 2>err &&
	grep "unknown artifact" err &&
	ofl-extract "$idb" | cmp - b && ofl-extract "$idc" | cmp - c &&
	ofl-search "$idc" "$(head -c 12 c)" >/dev/null
'

test_expect_success 'a truncated content file: exit 3 with "truncated", --check finds it' '
	restore && truncate -s 20000 "$(blob "$ida")" &&
	test_expect_code 3 ofl-extract "$ida" >out 2>err &&
	grep "content truncated" err && test "$(wc -l <err)" -eq 1 &&
	test_expect_code 3 ofl-extract -n 29990-30000 "$ida" >out 2>err &&
	test_expect_code 3 ofl-index -f "$ida" 2>err &&
	test_expect_code 3 ofl-gc --check >chk &&
	grep "ofl:$ida: content truncated" chk
'

test_open_bug '--repair makes a store with truncated content consistent' '
	restore && truncate -s 20000 "$(blob "$ida")" &&
	ofl-gc --repair >rep
	cat rep
	ofl-gc --check >chk
	rc=$?
	cat chk
	test $rc -eq 0
'

test_expect_success 'damaged content (bytes overwritten): --check says it does not match' '
	restore &&
	printf XXXXXXXX | dd of="$(blob "$idc")" conv=notrunc bs=1 \
	    seek=50000 2>/dev/null &&
	test_expect_code 3 ofl-gc --check >chk &&
	grep -E "ofl:$idc: (content does not match its hash|content damaged)" chk
'

test_open_bug 'ofl-extract never prints damaged content as if it were whole' '
	restore &&
	printf XXXXXXXX | dd of="$(blob "$idc")" conv=notrunc bs=1 \
	    seek=50000 2>/dev/null &&
	ofl-extract "$idc" >out 2>err
	rc=$?
	echo "exit $rc: $(cat err)"
	cmp out c && test $rc -eq 0 || test $rc -eq 3
'

echo "# corrupt: $(cat tried 2>/dev/null || echo 0) commands run on damaged databases"
test_done
