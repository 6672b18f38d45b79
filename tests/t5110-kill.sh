#!/bin/sh
# kill -9 of ofl-capture, ofl-index and ofl-gc at random points, a few
# rounds: the store checks clean or is repaired, no finished artifact is
# lost, a killed capture keeps a prefix of its input.  tests/stress/
# faults.sh (make stress) is the long version.
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
: "${KILLS:=12}"
export OFL_SRCDIR
. "$OFL_SRCDIR/tests/stress/faults.sh"
