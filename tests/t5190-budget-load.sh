#!/bin/sh
# The size budget under load, with faults, briefly: captures, searches and
# budget gcs (some killed, some stopped) at once; after every round every
# artifact of the grace period reads back identical.
# tests/stress/budget.sh (make stress) is the long version; this runs it
# for BUDGET_SECONDS (14).
OFL_SRCDIR=${OFL_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
: "${BUDGET_SECONDS:=14}"
: "${ROUND:=5}"
: "${GRACE:=4}"
: "${GC_MAX:=256k}"
export OFL_SRCDIR
. "$OFL_SRCDIR/tests/stress/budget.sh"
