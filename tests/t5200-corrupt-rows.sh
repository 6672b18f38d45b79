#!/bin/sh
# t5170: damaged rows of a sound database.  A frame row with a negative or
# huge length is a clear corruption error (exit 3), never "out of memory";
# --check reports it and --repair keeps the sound part.  A blob row whose
# file name is damaged or forged is never followed outside blobs/: no
# reader opens it, no gc unlinks it, and --repair points the row back at
# the intact file instead of deleting that file.
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$OFL_SRCDIR/tests/lib.sh"
test_needs STOREDIR
. "$OFL_SRCDIR/tests/stress/proof.lib"

command -v sqlite3 >/dev/null || test_skip_all "sqlite3 is needed"

# sql STATEMENT: run it on the store's database.
sql() {
	sqlite3 "$OFL_STORE/ofl.db" "$1"
}

restore() {
	rm -rf "$OFL_STORE" &&
	cp -a pristine "$OFL_STORE"
}

# blob ID: the content file of an artifact, as ofl names it.
blob() {
	echo "$OFL_STORE/blobs/$(echo "$1" | cut -c1-2)/$1"
}

# second ID: where the second frame of an artifact starts (a frame ends
# at a line's end, so not at 1 MiB exactly).
second() {
	sql "SELECT raw_off FROM frame WHERE blob = (SELECT blob FROM artifact
	    WHERE id = '$1') ORDER BY raw_off LIMIT 1 OFFSET 1"
}

# frame ID SET: change the second frame row of an artifact.
frame() {
	sql "UPDATE frame SET $2 WHERE blob = (SELECT blob FROM artifact
	    WHERE id = '$1') AND raw_off = $(second "$1")"
}

# file ID NAME: the file name of an artifact's blob row.
file() {
	sql "UPDATE blob SET file = '$2' WHERE id = (SELECT blob FROM
	    artifact WHERE id = '$1')"
}

test_expect_success 'setup: two artifacts, one of several frames' '
	ofl-gc --set auto-gc=off &&
	seq 1 400000 >a && seq 5 50 >b &&
	ida=$(cap a) && idb=$(cap b) &&
	echo "$ida $idb" >ids &&
	test "$(sql "SELECT count(*) FROM frame f JOIN artifact a ON
	    a.blob = f.blob WHERE a.id = '\''$ida'\''")" -ge 2 &&
	sql "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	cp -a "$OFL_STORE" pristine
'
read -r ida idb <ids

# every_reader: each reader once, "CMD => STATUS LINES-OF-STDERR" each.
every_reader() {
	: >results
	: >errs
	for cmd in "ofl-extract $ida" "ofl-extract -n 5 $ida" \
	    "ofl-extract -n -1 $ida" "ofl-search $ida 300" \
	    "ofl-search -a 300" "ofl-schema -k csv $ida" "ofl-index -f $ida"
	do
		$cmd >out 2>err
		echo "$cmd => $? $(wc -l <err | tr -d " ")" >>results
		cat err >>errs
	done
}

for bad in "comp_len = -1" "comp_len = 1000000000000000" \
    "raw_len = -5" "comp_off = -1" "comp_len = 'many'" "nl = 9999999"; do
	test_expect_success "a frame row with $bad: exit 3, one line each" "
		restore && frame \$ida \"$bad\" &&
		every_reader &&
		cat results >&2 &&
		test \$(grep -c ' => 3 1\$' results) -eq \$(wc -l <results) &&
		test \$(grep -c 'frame table is damaged' errs) -eq \$(wc -l <results) &&
		! grep -i 'out of memory' errs &&
		ofl-extract \$idb | cmp - b
	"
done

test_expect_success 'gc and --check with a damaged frame row: no abort' '
	restore && frame $ida "comp_len = -1" &&
	ofl-gc >out 2>err &&
	! grep -i "out of memory" err &&
	test_expect_code 3 ofl-gc --check >chk 2>err &&
	cat >expect <<-EOF &&
	ofl:$ida: frame table is damaged (run ofl-gc --check)
	$OFL_STORE: 1 problem
	EOF
	test_cmp expect chk
'

test_expect_success '--repair keeps the frames before the damaged row' '
	restore && n=$(second $ida) && frame $ida "comp_len = -1" &&
	ofl-gc --repair >rep &&
	grep "ofl:$ida: frame table is damaged .*(kept the sound part, marked incomplete)" rep &&
	ofl-gc --check >chk &&
	grep " 0 problems" chk &&
	head -c "$n" a >expect &&
	ofl-extract $ida >out &&
	test_cmp expect out &&
	ofl-extract $idb | cmp - b
'

test_expect_success 'a damaged row at offset -1 goes with --repair too' '
	restore &&
	sql "UPDATE frame SET raw_off = -1 WHERE blob = (SELECT blob FROM
	    artifact WHERE id = '\''$ida'\'') AND raw_off = 0" &&
	test_expect_code 3 ofl-extract $ida >out 2>err &&
	grep "frame table is damaged" err &&
	ofl-gc --repair >rep &&
	ofl-gc --check >chk &&
	grep " 0 problems" chk
'

for name in "zz/zzzzzzzz" "garbage/.." "/etc/passwd"; do
	test_expect_success "a file name damaged to $name: --repair relinks, deletes nothing" "
		restore && touch -d '2 hours ago' \"\$(blob \$ida)\" &&
		file \$ida '$name' &&
		test_expect_code 3 ofl-extract \$ida >out 2>err &&
		test ! -s out && test \$(wc -l <err) -eq 1 &&
		test_expect_code 3 ofl-gc --check >chk &&
		grep \"^ofl:\$ida: \" chk &&
		ofl-gc --repair >rep &&
		grep \"(its content is blobs/\$(echo \$ida | cut -c1-2)/\$ida: relinked)\" rep &&
		! grep 'removed' rep &&
		ofl-gc --check >chk &&
		grep ' 0 problems' chk &&
		ofl-extract \$ida | cmp - a
	"
done

test_expect_success 'an unverifiable file is kept, not deleted, when its row is lost' '
	restore && touch -d "2 hours ago" "$(blob $ida)" &&
	file $ida "zz/zzzzzzzz" &&
	sql "UPDATE blob SET hash = NULL WHERE file = '\''zz/zzzzzzzz'\''" &&
	ofl-gc --repair >rep &&
	grep "ofl:$ida: content missing.*(artifact removed)" rep &&
	grep "blobs/.*/$ida: file of no content row (kept: " rep &&
	test -f "$(blob $ida)"
'

test_expect_success 'a forged file name is never read or unlinked' '
	restore && echo precious >precious.txt &&
	file $idb "../../precious.txt" &&
	test_expect_code 3 ofl-extract $idb >out 2>err &&
	test ! -s out &&
	grep "the name of its content file is damaged" err &&
	test_expect_code 3 ofl-search $idb precious >out 2>&1 &&
	! grep precious out &&
	{ ofl-gc --purge $idb >out 2>&1; test $? -le 3; } &&
	test "$(cat precious.txt)" = precious &&
	restore && file $idb "../../precious.txt" &&
	{ ofl-gc --all >out 2>&1; test $? -le 3; } &&
	test "$(cat precious.txt)" = precious &&
	restore && file $idb "../../precious.txt" &&
	ofl-gc --purge $idb >out 2>&1 &&
	grep "removed 1 artifact" out &&
	test "$(cat precious.txt)" = precious &&
	restore && file $idb "../../precious.txt" &&
	ofl-gc --repair >rep &&
	test "$(cat precious.txt)" = precious
'

test_expect_success 'a file under blobs/ with a name ofl does not make is left alone' '
	restore && echo notes >"$OFL_STORE/blobs/$(echo $ida | cut -c1-2)/notes.txt" &&
	touch -d "2 hours ago" "$OFL_STORE/blobs/$(echo $ida | cut -c1-2)/notes.txt" &&
	test_expect_code 3 ofl-gc --check >chk &&
	grep "notes.txt: not a name ofl makes (left alone)" chk &&
	ofl-gc --repair >rep &&
	test -f "$OFL_STORE/blobs/$(echo $ida | cut -c1-2)/notes.txt"
'

test_done
