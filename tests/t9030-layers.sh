#!/bin/sh
#
# t9030-layers: libofl keeps to the layers of src/lib/README.  nm of the
# built library shows who calls whom: no file calls a layer above its own,
# no files call each other around a loop, only the store names SQLite,
# and no file or function outgrows the limits the README gives.  A helper
# run on a made-up library shows that each rule can fail.  Only the
# PostgreSQL engine's files (store-pg*) name libpq.

. "$(dirname "$0")/lib.sh"

# Who calls whom does not change under the sanitizers: the gate runs
# this once, in the plain make check.
test_once

SRC=$OFL_SRCDIR
LIB=$OFL_BUILDDIR/src/lib/libofl.a

if ! test_have_prereq nm,python3,cc; then
	test_skip_all "nm, python3 and cc are needed"
fi
if ! [ -f "$LIB" ]; then
	test_skip_all "libofl.a is not built"
fi

test_expect_success 'libofl.a keeps to its layers' '
	python3 "$SRC/tests/layers.py" "$SRC" "$LIB" >out 2>err
	rc=$?
	cat out err
	test $rc -eq 0 && ! test -s out
'

# A made-up library and table: lo.o calls hi.o (an arrow up), a.o and b.o
# call each other, lo.o calls sqlite3_open and libpq's PQconnectdb, and
# x.o is in no layer.
mkdir -p fake/src/lib
cat >fake/src/lib/README <<-\EOT
    layer base: lo a b
    layer store: st
    layer services: hi
EOT
cat >fake/lo.c <<-\EOT
	int hi(void); int sqlite3_open(void); int PQconnectdb(void);
	int lo(void) { return hi() + sqlite3_open() + PQconnectdb(); }
EOT
cat >fake/hi.c <<-\EOT
	int lo(void); int hi(void) { return lo(); }
EOT
cat >fake/a.c <<-\EOT
	int b(void); int a(void) { return b(); }
EOT
cat >fake/b.c <<-\EOT
	int a(void); int b(void) { return a(); }
EOT
cat >fake/x.c <<-\EOT
	int x(void) { return 0; }
EOT

test_expect_success 'an arrow up, a cycle, SQL, libpq and an unknown file fail' '
	(cd fake && for f in lo hi a b x; do cc -c $f.c || exit 1; done &&
	    ar rc libfake.a lo.o hi.o a.o b.o x.o) &&
	test_expect_code 1 python3 "$SRC/tests/layers.py" fake \
	    fake/libfake.a >out &&
	cat >expect <<-\EOT &&
	up lo -> hi
	sql lo
	libpq lo
	unknown x
	cycle a b
	cycle hi lo
	EOT
	test_cmp expect out
'

test_done
