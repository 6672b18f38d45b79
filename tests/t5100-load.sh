#!/bin/sh
# Load, briefly: 8 writers, 4 readers and a gc with a tiny budget at once;
# nothing a writer was told was stored is lost unless gc said it removed
# it, nothing is locked or busy.  tests/stress/load.sh (make stress) is
# the long version; this runs it for LOAD_SECONDS (8).
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
: "${LOAD_SECONDS:=8}"
: "${LOAD_BIG:=0}"
: "${GC_MAX:=8M}"
export OFL_SRCDIR
. "$OFL_SRCDIR/tests/stress/load.sh"
