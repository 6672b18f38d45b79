# lib.sh: the shell test library.  Each test script sources it, runs
# test_expect_success blocks and ends with test_done; the output is TAP.
#
# Every script gets a private temporary directory (its working directory)
# and a private store in $OFL_STORE, LC_ALL=C, and cleanup on exit.

LC_ALL=C
LANG=C
export LC_ALL LANG
unset OFL_SESSION OFL_THRESHOLD OFL_COMBINED OFL_HEAD OFL_TAIL OFL_INTENT \
	XDG_CACHE_HOME

: "${OFL_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${OFL_BUILDDIR:=$OFL_SRCDIR}"
export OFL_SRCDIR OFL_BUILDDIR
DATA="$OFL_SRCDIR/tests/data"
CORPUS="$OFL_SRCDIR/../shared/corpus"
PATH="$OFL_BUILDDIR:$OFL_SRCDIR/bin:$PATH"
export PATH

test_count=0
test_failed=0
test_skipped=0

TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ofl-test.XXXXXX") || exit 99
# test_cleanup: the end of every script, the trap on EXIT; a script that
# sets a trap of its own calls it there: the cluster of pg-cluster.sh, if
# one runs, is stopped, and the test directory goes.
test_cleanup() {
	if [ -n "${PG_DIR:-}" ]; then
		pg_cluster_stop
	fi
	cd / || return
	chmod -R u+rwx "$TEST_DIR" 2>/dev/null
	# A detached gc or indexer a capture started may still be writing.
	rm -rf "$TEST_DIR" 2>/dev/null || { sleep 1; rm -rf "$TEST_DIR"; }
}
trap test_cleanup EXIT
cd "$TEST_DIR" || exit 99
HOME="$TEST_DIR/home"
mkdir -p "$HOME"
OFL_STORE="$TEST_DIR/store"
export HOME OFL_STORE
# No background indexing after a capture: tests index when they mean to.
OFL_INDEX_BG=0
export OFL_INDEX_BG
# Under AddressSanitizer, LeakSanitizer costs every process about 25 ms
# at its exit (it scans the globals and the heap), as much as a test's
# own work: with OFL_TEST_LEAKS set, only the scripts it names
# (t0000-basic ...) check for leaks, the others run with detect_leaks=0
# (.ci/run).
if [ -n "${OFL_TEST_LEAKS:-}" ]; then
	# One name a word, however the list is spaced.
	case " $(printf '%s ' $OFL_TEST_LEAKS)" in
	*" $(basename "$0" .sh) "*)
		;;
	*)
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
		export ASAN_OPTIONS
		;;
	esac
fi

# say_ok/say_not_ok print one TAP line.
test_expect_success() {
	# usage: test_expect_success [PREREQ] 'title' 'body'
	# PREREQ may name several, separated by commas: "mandoc,col".
	if [ $# -eq 3 ]; then
		if ! test_have_prereq "$1"; then
			test_skip "$2" "missing $(test_missing_prereqs "$1")"
			return 0
		fi
		shift
	fi
	test_count=$((test_count + 1))
	if (test -n "${OFL_TEST_TRACE:-}" && set -x; eval "$2") \
	    >"$TEST_DIR/.log" 2>&1 </dev/null; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$TEST_DIR/.log" | head -n 40
		printf '%s\n' "$2" | sed 's/^/#   > /' | head -n 40
	fi
}

# test_expect_code CODE CMD ARGS: run CMD and require exit status CODE.
test_expect_code() {
	want=$1
	shift
	"$@"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "test_expect_code: '$*' exited $got, expected $want" >&2
		return 1
	fi
	return 0
}

# marked: ofl-search --color=always output with its matches written
# >>so<< and its other colors left out, for tests of where matches are.
marked() {
	_esc=$(printf '\033')
	sed "s/$_esc\[01;31m\([^$_esc]*\)$_esc\[m/>>\1<</g; s/$_esc\[[0-9;]*m//g"
}

# ofl_listing [ARGS]: the listing (ofl-search ARGS) without its header
# and its last line on the rest ("... N more"), its cells tab-separated:
# columns are two or more spaces apart, and no cell but the last has two
# spaces in it.  The exit status is ofl-search's.
ofl_listing() {
	ofl-search "$@" >"$TEST_DIR/.listing" || return $?
	sed '1d; /^\.\.\. [0-9,]* more (/d; s/   */	/g' "$TEST_DIR/.listing"
}

# test_lines FORMAT FROM TO: a line of FORMAT for each number from FROM
# to TO, each %d in it that number.
test_lines() {
	awk -v f="$1" -v a="$2" -v b="$3" \
	    'BEGIN { for (i = a; i <= b; i++) { s = f; gsub(/%d/, i, s); print s } }'
}

# store_sql [-s STORE] SQL...: sqlite3 on a store's ofl.db with the index's
# file (ofl-ix.db) attached as "ix" when it exists, so that the index's
# tables are found by name as ofl finds them.
store_sql() {
	_st=$OFL_STORE
	if [ "$1" = -s ]; then
		_st=$2
		shift 2
	fi
	if [ -f "$_st/ofl-ix.db" ]; then
		sqlite3 -cmd ".timeout 60000" \
		    -cmd "ATTACH '$_st/ofl-ix.db' AS ix" "$_st/ofl.db" "$@"
	else
		sqlite3 -cmd ".timeout 60000" "$_st/ofl.db" "$@"
	fi
}

test_cmp() {
	cmp "$1" "$2" >/dev/null 2>&1 && return 0
	diff -u "$1" "$2" | head -n 60 >&2
	return 1
}

# test_skip TITLE REASON: count a test as skipped and say why.
test_skip() {
	test_count=$((test_count + 1))
	test_skipped=$((test_skipped + 1))
	echo "ok $test_count # skip $1 ($2)"
}

# test_missing_prereqs P1,P2,...: the prerequisites that are missing.
test_missing_prereqs() {
	for _p in $(echo "$1" | tr , ' '); do
		test_have_prereq "$_p" || printf '%s\n' "$_p"
	done | tr '\n' ' ' | sed 's/ $//'
}

# Prerequisites: CORPUS (../shared exists), ROOT, NOTROOT, JQ, STOREDIR
# (the store is a directory), or a command that must be in PATH; several, separated by commas, are
# all needed.
test_have_prereq() {
	case $1 in
	*,*) test -z "$(test_missing_prereqs "$1")" ;;
	CORPUS) [ -d "$CORPUS" ] ;;
	ROOT) [ "$(id -u)" -eq 0 ] ;;
	NOTROOT) [ "$(id -u)" -ne 0 ] ;;
	JQ) command -v jq >/dev/null 2>&1 ;;
	# The store is a directory (SQLite), whose files a test looks at.
	STOREDIR) [ "${OFL_TEST_ENGINE:-sqlite}" != postgresql ] ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}

# test_as_user USER CMD [ARG ...]: run CMD as USER, with USER's group and
# no other, in this environment.  Needs root and setpriv(1).
test_as_user() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$(id -g "$_u")" --clear-groups "$@"
}

# test_user_reaches USER FILE: we are root and USER can execute FILE.  A
# tree in a directory that only its owner may enter (/root, a 0700 home)
# is out of another user's reach, and so are the binaries built there.
test_user_reaches() {
	test_have_prereq ROOT && command -v setpriv >/dev/null 2>&1 &&
	    id -u "$1" >/dev/null 2>&1 &&
	    test_as_user "$1" sh -c 'test -x "$1"' sh "$2" 2>/dev/null
}

# test_stamp_old NAME: the store's stamp NAME ("gc", "index": when a
# capture last started one in the background) made old, so that the next
# capture starts one.
test_stamp_old() {
	if test_have_prereq STOREDIR; then
		touch -d "1 hour ago" "$OFL_STORE/$1.lock"
	else
		pg_sql "DELETE FROM ofl.setting WHERE key = 'stamp $1'" ofl \
		    >/dev/null
	fi
}

# test_needs PREREQ: skip the whole script unless PREREQ holds (STOREDIR:
# it is about what only a directory store has).
test_needs() {
	test_have_prereq "$1" && return 0
	case $1 in
	STOREDIR) test_skip_all "it looks inside a store directory, and the store is PostgreSQL" ;;
	*) test_skip_all "missing $1" ;;
	esac
}

test_skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# test_once: skip the whole script when the gate has run it already
# (.ci/run sets OFL_TEST_ONCE_DONE after the plain make check and make
# distcheck; each script that calls this says why once is enough).
test_once() {
	[ -z "${OFL_TEST_ONCE_DONE-}" ] ||
	    test_skip_all "run once already (OFL_TEST_ONCE_DONE is set)"
}

test_done() {
	echo "1..$test_count"
	[ "$test_failed" -eq 0 ]
	exit $?
}

# OFL_TEST_ENGINE=postgresql: the script's store is a database of a
# throwaway PostgreSQL cluster (tests/pg-cluster.sh) instead of a
# directory; the script skips, with the reason, where that cannot be.
if [ "${OFL_TEST_ENGINE:-sqlite}" = postgresql ] && [ -z "${PG_URL:-}" ]; then
	. "$OFL_SRCDIR/tests/pg-cluster.sh"
	pg_cluster_start
	OFL_STORE=$PG_URL
fi
