#!/bin/sh
# Access: a store another user owns, or that others may write to, is
# refused; IDs that look like paths are refused by every binary (exit 2);
# files are made 0600 and directories 0700 whatever the umask.
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$OFL_SRCDIR/tests/lib.sh"
. "$OFL_SRCDIR/tests/stress/proof.lib"

# refused_by_all WHAT: every binary refuses the store with exit 3 and a
# one-line message matching WHAT.
refused_by_all() {
	: >results
	for cmd in "ofl-extract $id" "ofl-search $id x" "ofl-search -a x" \
	    "ofl-search" "ofl-index $id" "ofl-schema $id" "ofl-gc" \
	    "ofl-gc --check" "ofl-gc --stats"; do
		$cmd >out 2>err </dev/null
		rc=$?
		echo "$cmd => $rc $(grep -c . err)" >>results
		if [ $rc -ne 3 ] || [ "$(grep -c . err)" -ne 1 ] ||
		    ! grep -q "$1" err; then
			echo "NOT REFUSED: $cmd => $rc: $(cat err)" >>results
		fi
	done
	printf "some output\n" | ofl-capture -T 0 >out 2>err
	grep -q "$1" err || echo "NOT REFUSED: ofl-capture" >>results
	! grep "NOT REFUSED" results >&2
}

test_expect_success 'setup: a store with one artifact' '
	seq 1 100 >f && id=$(cap f) && test -n "$id" && echo "$id" >id
'
read -r id <id

for m in 770 707 777 1777 720 702; do
	test_expect_success STOREDIR "a store directory of mode $m is refused" "
		chmod $m \"\$OFL_STORE\" &&
		refused_by_all 'writable by group or others' &&
		chmod 700 \"\$OFL_STORE\" &&
		ofl-extract \"\$id\" | cmp - f
	"
done

for m in 660 606 666; do
	test_expect_success STOREDIR "a database of mode $m is refused" "
		chmod $m \"\$OFL_STORE/ofl.db\" &&
		refused_by_all 'writable by group or others' &&
		chmod 600 \"\$OFL_STORE/ofl.db\" &&
		ofl-extract \"\$id\" | cmp - f
	"
done

test_expect_success ROOT,STOREDIR 'a store directory another user owns is refused' '
	chown nobody "$OFL_STORE" &&
	refused_by_all "owned by uid" &&
	chown 0 "$OFL_STORE" &&
	ofl-extract "$id" | cmp - f
'

test_expect_success ROOT,STOREDIR 'a database another user owns is refused' '
	chown nobody "$OFL_STORE/ofl.db" &&
	refused_by_all "owned by uid" &&
	chown 0 "$OFL_STORE/ofl.db" &&
	ofl-extract "$id" | cmp - f
'

# nobody runs a copy of ofl-search that sits in the test directory: the
# build tree itself may be out of its reach (a tree under /root, 0700).
title='another user (nobody) is refused a store root owns'
mkdir -p other && chmod 755 other &&
    cp "$(command -v ofl-search)" other/ofl-search 2>/dev/null
chmod 755 "$TEST_DIR"
if ! test_have_prereq ROOT; then
	reach="missing ROOT"
elif ! test_user_reaches nobody "$TEST_DIR/other/ofl-search"; then
	reach="nobody cannot run $TEST_DIR/other/ofl-search"
else
	reach=
fi
chmod 700 "$TEST_DIR"
if [ -n "$reach" ]; then
	test_skip "$title" "$reach"
else
	test_expect_success "$title" '
		OFL_STORE=$TEST_DIR/other/store ofl-capture -T 0 <f >/dev/null &&
		chmod 755 "$TEST_DIR" &&
		test_as_user nobody env OFL_STORE="$TEST_DIR/other/store" \
		    "$TEST_DIR/other/ofl-search" -a 1 >out 2>err
		rc=$?
		chmod 700 "$TEST_DIR"
		cat err >&2
		test $rc -eq 3 && grep -E "owned by uid 0|Permission denied" err
	'
fi

# nobody's own store, its database made read-only (root ignores modes):
# gc cannot run, and says why in one line, with no report.
title='a store gc cannot write: one line that says why, exit 3'
mkdir -p mine && chmod 777 mine &&
    cp "$(command -v ofl-capture)" "$(command -v ofl-gc)" mine/ 2>/dev/null
chmod 755 "$TEST_DIR"
if [ -n "$reach" ] || ! test_user_reaches nobody "$TEST_DIR/mine/ofl-gc"; then
	chmod 700 "$TEST_DIR"
	test_skip "$title" "${reach:-nobody cannot run $TEST_DIR/mine/ofl-gc}"
else
	chmod 700 "$TEST_DIR"
	test_expect_success "$title" '
		chmod 755 "$TEST_DIR" &&
		test_as_user nobody sh -c "
		    export OFL_STORE=\$1/mine/store
		    \$1/mine/ofl-capture -q -T 0 <f >/dev/null &&
		    chmod 0400 \$OFL_STORE/ofl.db &&
		    \$1/mine/ofl-gc --all >\$1/mine/out 2>\$1/mine/err
		    echo \$? >\$1/mine/rc
		    chmod 0600 \$OFL_STORE/ofl.db" sh "$TEST_DIR"
		chmod 700 "$TEST_DIR"
		echo 3 >expect && test_cmp expect mine/rc &&
		test ! -s mine/out &&
		echo "ofl-gc: store $TEST_DIR/mine/store: gc: attempt to write a readonly database" \
		    >expect &&
		test_cmp expect mine/err
	'
	test_expect_success 'a content file gc cannot delete: said in one line, exit 3' '
		chmod 755 "$TEST_DIR" &&
		test_as_user nobody sh -c "
		    export OFL_STORE=\$1/mine/store2
		    id=\$(\$1/mine/ofl-capture -q -T 0 <f) &&
		    chmod 0500 \$OFL_STORE/blobs/* &&
		    \$1/mine/ofl-gc --purge \$id >\$1/mine/out 2>\$1/mine/err
		    echo \$? >\$1/mine/rc
		    chmod 0700 \$OFL_STORE/blobs/*" sh "$TEST_DIR"
		chmod 700 "$TEST_DIR"
		echo 3 >expect && test_cmp expect mine/rc &&
		grep "^removed 1 artifact" mine/out &&
		grep -q "^ofl-gc: store $TEST_DIR/mine/store2: blobs/[a-z0-9/]*: Permission denied (removed from the store; ofl-gc --repair deletes the file)\$" mine/err &&
		test "$(wc -l <mine/err)" -eq 1
	'
	# It said "no store (nothing captured yet)" of a store it holds.
	test_expect_success 'a store its owner cannot read: said so, exit 3' '
		cp "$(command -v ofl-search)" "$(command -v ofl-extract)" \
		    mine/ &&
		chmod 755 "$TEST_DIR" &&
		test_as_user nobody sh -c "
		    export OFL_STORE=\$1/mine/store3
		    \$1/mine/ofl-capture -q -T 0 <f >/dev/null &&
		    chmod 000 \$OFL_STORE &&
		    for t in ofl-search ofl-extract; do
			    \$1/mine/\$t @ >\$1/mine/out.\$t 2>\$1/mine/err.\$t
			    echo \$? >\$1/mine/rc.\$t
		    done
		    \$1/mine/ofl-search -q >\$1/mine/out.list 2>\$1/mine/err.list
		    echo \$? >\$1/mine/rc.list
		    chmod 700 \$OFL_STORE" sh "$TEST_DIR"
		chmod 700 "$TEST_DIR"
		for t in ofl-search ofl-extract list; do
			echo 3 >expect && test_cmp expect mine/rc.$t &&
			test ! -s mine/out.$t || return 1
		done &&
		echo "ofl-search: store $TEST_DIR/mine/store3/ofl.db: Permission denied" >expect &&
		test_cmp expect mine/err.list &&
		test_cmp expect mine/err.ofl-search &&
		sed s/ofl-search/ofl-extract/ expect >expect.x &&
		test_cmp expect.x mine/err.ofl-extract
	'
fi

test_expect_success 'a symbolic link that leads nowhere: listing refuses it too' '
	ln -s "$TEST_DIR/nowhere" dangling &&
	for o in "" -q -j; do
		OFL_STORE=$TEST_DIR/dangling test_expect_code 3 ofl-search $o \
		    >out 2>err &&
		test ! -s out &&
		echo "ofl-search: store $TEST_DIR/dangling: a symbolic link (to $TEST_DIR/nowhere); refusing to follow it: name the directory itself" >expect &&
		test_cmp expect err || return 1
	done &&
	OFL_STORE=$TEST_DIR/nowhere test_expect_code 1 ofl-search >out 2>err &&
	test ! -s out && test ! -s err
'

test_expect_success 'a store path that is a file is refused' '
	: >afile &&
	OFL_STORE=$TEST_DIR/afile ofl-capture -T 0 <f >out 2>err
	grep "not a directory" err &&
	OFL_STORE=$TEST_DIR/afile test_expect_code 3 ofl-search -a 1 2>err &&
	grep "not a directory" err &&
	OFL_STORE=$TEST_DIR/afile test_expect_code 3 ofl-search >out 2>err &&
	test ! -s out &&
	echo "ofl-search: store $TEST_DIR/afile: not a directory" >expect &&
	test_cmp expect err &&
	OFL_STORE=$TEST_DIR/afile ofl-capture -j -- echo hi >out 2>err &&
	jq -e --arg e "store $TEST_DIR/afile: not a directory" "keys_unsorted ==
	    [\"offloaded\", \"stored\", \"error\", \"output\"] and
	    .offloaded == false and .stored == false and .error == \$e and
	    .output == \"hi\\n\"" out
'

# IDs that are paths, or try to be.
cat >bad-ids <<'EOF'
../x
/etc/passwd
..
.
a/b
./a
abc/../def
~
~root
ofl:../x
ofl:/etc/passwd
@/x
@../1
x%
a b
0123456789abc
*
EOF
printf 'ab\001c\nab\\c\n' >>bad-ids
tried=0

test_expect_success 'path-like IDs: ofl-extract, ofl-search, ofl-index, ofl-schema exit 2' '
	: >results &&
	while read -r bad; do
		for cmd in extract:. extract:-n1 search:q index: schema:; do
			b=${cmd%%:*} a=${cmd#*:}
			case $b:$a in
			extract:-n1) ofl-extract -n 1 "$bad" "." ;;
			*:) "ofl-$b" "$bad" ;;
			*) "ofl-$b" "$bad" "$a" ;;
			esac >out 2>err </dev/null
			rc=$?
			printf "%s\n" "ofl-$b $a [$bad] => $rc" >>results
		done
	done <bad-ids &&
	! grep -a -v " => 2$" results >&2 &&
	wc -l <results >tried
'

test_open_bug 'path-like IDs: ofl-gc --purge exits 2 too' '
	: >results &&
	while read -r bad; do
		ofl-gc --purge "$bad" >out 2>err </dev/null
		printf "%s\n" "ofl-gc --purge [$bad] => $?" >>results
	done <bad-ids &&
	! grep -a -v " => 2$" results
'

test_expect_success 'path-like command names: the ofl dispatcher exits 2' '
	for c in ../../bin/sh /bin/sh ../x a/b "capture/../../x" ""; do
		ofl "$c" -c "echo PWNED" >out 2>err </dev/null
		rc=$?
		test $rc -eq 2 || exit 1
		! grep PWNED out || exit 1
	done
'

test_expect_success 'an ofl: line naming a path is data, never opened' '
	printf "ofl:../../etc/passwd\n" | ofl-extract >out 2>err &&
	printf "ofl:../../etc/passwd\n" | cmp - out
'

test_expect_success 'under umask 000 files are 0600 and directories 0700' '
	(
		umask 000 &&
		export OFL_STORE="$TEST_DIR/open/store" &&
		seq 1 100000 | ofl-capture -T 0 >/dev/null &&
		head -c 3000000 /dev/urandom | base64 | ofl-capture -T 0 >/dev/null &&
		ofl-index "@" >/dev/null && ofl-search -a 99 >/dev/null &&
		ofl-gc --max-size 1G >/dev/null && ofl-gc --check >/dev/null &&
		ofl-gc --set ttl=3d
	) &&
	find "$TEST_DIR/open/store" -type d ! -perm 0700 >bad &&
	find "$TEST_DIR/open/store" -type f ! -perm 0600 >>bad &&
	cat bad >&2 &&
	test ! -s bad &&
	test "$(find "$TEST_DIR/open/store" -type f | wc -l)" -ge 4 &&
	test "$(stat -c %a "$TEST_DIR/open")" = 700
'

test_expect_success 'under umask 000 the default store under HOME is private' '
	(
		umask 000 &&
		unset OFL_STORE &&
		HOME=$TEST_DIR/h2 && export HOME &&
		mkdir -p "$HOME" &&
		echo hi | ofl-capture -T 0 >/dev/null
	) &&
	test "$(stat -c %a "$TEST_DIR/h2/.cache/ofl")" = 700 &&
	test "$(stat -c %a "$TEST_DIR/h2/.cache")" = 700 &&
	find "$TEST_DIR/h2/.cache/ofl" -type f ! -perm 0600 >bad &&
	test ! -s bad
'

echo "# access: $(cat tried 2>/dev/null || echo 0) path-like IDs tried"
test_done
