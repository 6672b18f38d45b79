# gc-lib.sh: helpers of the gc tests (t5000, t8020), sourced after lib.sh.
#
# cap FILE [ARGS]: capture FILE quietly with ARGS, print its ID.
cap() {
	f=$1
	shift
	ofl-capture -q -T 0 "$@" <"$f" | sed -n 's/^ofl:\([0-9a-z]*\).*/\1/p'
}

# count: the artifacts in the store.
count() {
	ofl-search -a -q 2>/dev/null | wc -l | tr -d ' '
}
