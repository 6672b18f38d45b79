#!/bin/sh
# bombs.sh: decompression bombs too slow to make in make check.
#
#   - gzip -1 of 2 GiB of zeros (9 MB): libarchive reads a stream of
#     zeros as an empty tar archive, so nothing is decompressed far; every
#     tool must still answer quickly and cleanly;
#   - gzip -1 of 2 GiB of a pattern: stopped at the 1 GiB limit;
#   - a zip of a 1.2 GiB file: stopped at the limit;
#   - a tar.gz holding a gzip bomb (two levels): stopped at the limit.
# Needs about 1.5 GB of free space in $TMPDIR for the zip.
: "${OFL_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$OFL_SRCDIR/tests/lib.sh"
. "$OFL_SRCDIR/tests/stress/proof.lib"

# every_tool ID: index, search, extract; each within 120 s, no crash, a
# status of 0, 1 or 3 and at most one line of error.
every_tool() {
	: >results
	for cmd in "ofl-index $1" "ofl-search $1 AB" "ofl-schema $1" \
	    "ofl-extract $1 --member data -n 1" "ofl-extract $1 --errors"; do
		timeout 120 $cmd >out 2>err
		rc=$?
		echo "$cmd => $rc $(grep -c . err): $(head -n 1 err)" >>results
	done
	cat results >&2
	! awk '{ for (i = 1; i <= NF; i++) if ($i == "=>") {
	    if ($(i + 1) >= 4 || $(i + 2) + 0 > 1) print } }' results | grep .
}

test_expect_success 'gzip of 2 GiB of zeros: every tool answers cleanly' '
	ofl-gc --set auto-gc=off &&
	head -c 2147483648 /dev/zero | gzip -1 >zeros.gz &&
	id=$(cap zeros.gz) && test -n "$id" &&
	every_tool "$id"
'

test_expect_success 'gzip of 2 GiB of a pattern: index stops at the limit' '
	yes "$(printf "AB\001\002")" | head -c 2147483648 | gzip -1 >pat.gz &&
	id=$(cap pat.gz) && test -n "$id" &&
	every_tool "$id" &&
	grep "ofl-index .* => 3 1: .*expands to more than" results
'

test_expect_success 'zip of a 1.2 GiB file: index stops at the limit' '
	yes "$(printf "CD\003\004")" | head -c 1288490188 >big.bin &&
	zip -q -1 big.zip big.bin && rm -f big.bin &&
	id=$(cap big.zip) && test -n "$id" &&
	every_tool "$id" &&
	grep "ofl-index .* => 3 1: .*expands to more than" results
'

test_expect_success 'a tar.gz holding a gzip bomb is stopped at the limit' '
	yes "$(printf "EF\005\006")" | head -c 1288490188 | gzip -1 >inner.gz &&
	tar -czf nested.tgz inner.gz &&
	id=$(cap nested.tgz) && test -n "$id" &&
	every_tool "$id" &&
	grep "ofl-index .* => 3 1: .*expands to more than" results
'

test_done
