#!/bin/sh
# bench-secrets.sh [BINDIR]: how well ofl masks secrets, channel by
# channel, on the synthetic table tests/data/secrets/table.tsv: recall
# (secrets masked / secrets) and false positives (near-misses changed /
# near-misses).  BINDIR (default: the build directory) holds the ofl
# binaries to measure, so two builds can be compared.  Needs jq.

. "$(dirname "$0")/lib.sh"
. "$OFL_SRCDIR/tests/secrets-channels.sh"

command -v jq >/dev/null 2>&1 || { echo "bench-secrets: jq is needed" >&2; exit 2; }
if [ $# -gt 0 ]; then
	PATH=$(cd "$1" && pwd):$PATH
	export PATH
fi

secrets_run "$TEST_DIR/r"
printf '%-16s %8s %8s\n' channel recall fp
for c in $SECRETS_CHANNELS; do
	awk -v c="$c" '
	$2 == "S" && $1 != "skip" { s++; if ($1 == "pass") sp++ }
	$2 == "N" && $1 != "skip" { n++; if ($1 == "fail") nf++ }
	$1 == "fail" { bad = bad " " $3 }
	END {
		printf "%-16s %3d/%-4d %3d/%-4d%s\n", c, sp, s, nf, n,
		    bad != "" ? "  wrong:" bad : ""
	}' "$TEST_DIR/r/$c"
done
