# pg-cluster.sh: a throwaway PostgreSQL cluster for the tests of the
# store's PostgreSQL engine.  Source it after lib.sh, then call
#
#	pg_cluster_start
#
# which skips the whole script, with the reason, when the engine is not
# built or PostgreSQL is not installed (pg_cluster_try instead returns 1
# with the reason in PG_SKIP, for a script that tests more than it), and
# otherwise starts a cluster
# (initdb and pg_ctl) in a temporary directory, listening on a Unix
# socket only, and stops and removes it when the script exits.  Run as
# root, the cluster runs as an unprivileged user (postgres, else nobody),
# as PostgreSQL refuses to run as root.  It sets
#
#	PG_URL		postgresql:// URL of database "ofl" as superuser "ofl"
#	PG_SOCK		the socket's directory
#	PG_BIN		the directory of initdb, pg_ctl, psql
#
# pg_url ROLE [DB] gives the URL for another role; pg_sql SQL runs SQL as
# the superuser (psql, stopping at the first error).

# Kept when sourced again: lib.sh may have started the cluster already
# (OFL_TEST_ENGINE=postgresql).
PG_DIR=${PG_DIR:-}
PG_SOCK=${PG_SOCK:-}
PG_BIN=${PG_BIN:-}
PG_URL=${PG_URL:-}
PG_AS=${PG_AS:-}
PG_SKIP=

# The directory of initdb, pg_ctl and psql: Debian's newest, else that
# of the initdb on $PATH (its links resolved).
pg_cluster_bin() {
	_d=
	for _b in /usr/lib/postgresql/*/bin; do
		[ -x "$_b/initdb" ] && _d=$_b
	done
	if [ -z "$_d" ] && command -v initdb >/dev/null 2>&1; then
		_d=$(dirname "$(readlink -f "$(command -v initdb)")")
	fi
	[ -n "$_d" ] && [ -x "$_d/pg_ctl" ] && [ -x "$_d/psql" ] && echo "$_d"
}

# pg_as CMD ARGS: run CMD as the cluster's user.
pg_as() {
	if [ -n "$PG_AS" ]; then
		setpriv --reuid="$PG_AS" --regid="$(id -g "$PG_AS")" \
		    --clear-groups "$@"
	else
		"$@"
	fi
}

pg_cluster_stop() {
	[ -n "$PG_DIR" ] || return 0
	if [ -f "$PG_DIR/data/postmaster.pid" ]; then
		pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w \
		    stop >/dev/null 2>&1
	fi
	rm -rf "$PG_DIR"
	PG_DIR=
}

# The data directory as initdb makes it is kept under the build tree
# (tests/pg-template, removed by make clean) and copied by the scripts
# after the first: initdb is most of a cluster's start.
PG_TEMPLATE=$OFL_BUILDDIR/tests/pg-template

# pg_cluster_copy: $PG_DIR/data from the template of this PG_BIN, or 1.
pg_cluster_copy() {
	[ -f "$PG_TEMPLATE/data/PG_VERSION" ] &&
	[ "$(cat "$PG_TEMPLATE/bin" 2>/dev/null)" = "$PG_BIN" ] &&
	cp -Rp "$PG_TEMPLATE/data" "$PG_DIR/data" 2>/dev/null &&
	    { [ -z "$PG_AS" ] || chown -R "$PG_AS" "$PG_DIR/data"; } &&
	    return 0
	rm -rf "$PG_DIR/data"
	return 1
}

# pg_cluster_initdb: $PG_DIR/data anew, then kept as the template unless
# there is one (made by another script meanwhile: ours goes).
pg_cluster_initdb() {
	pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U ofl -A trust \
	    -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1 || return 1
	_t=$(mktemp -d "$PG_TEMPLATE.XXXXXX" 2>/dev/null) || return 0
	if cp -Rp "$PG_DIR/data" "$_t/data" && echo "$PG_BIN" >"$_t/bin" &&
	    mv -T "$_t" "$PG_TEMPLATE" 2>/dev/null; then
		return 0
	fi
	rm -rf "$_t"
	return 0
}

pg_cluster_start() {
	pg_cluster_try || test_skip_all "$PG_SKIP"
}

pg_cluster_try() {
	PG_SKIP=
	# Running already: one cluster a script.
	[ -z "$PG_DIR" ] || return 0
	if ! grep -q '^#define HAVE_LIBPQ 1' "$OFL_BUILDDIR/config.h" \
	    2>/dev/null; then
		PG_SKIP="ofl is built without the PostgreSQL engine (configure found no libpq)"
		return 1
	fi
	if ! PG_BIN=$(pg_cluster_bin); then
		PG_SKIP="PostgreSQL is not installed (initdb and pg_ctl: apt-get install postgresql)"
		return 1
	fi
	if [ "$(id -u)" -eq 0 ]; then
		if id -u postgres >/dev/null 2>&1; then
			PG_AS=postgres
		else
			PG_AS=nobody
		fi
		if ! command -v setpriv >/dev/null 2>&1; then
			PG_SKIP="running as root, and setpriv is missing to start PostgreSQL as $PG_AS"
			return 1
		fi
	fi
	# Not under $TEST_DIR: that is 0700 and root's when run as root.
	PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ofl-pg.XXXXXX") || exit 99
	# Stopped on a signal too (a script killed, or cut off by a pipe).
	trap test_cleanup EXIT
	trap 'exit 1' HUP INT TERM PIPE
	[ -z "$PG_AS" ] || chown "$PG_AS" "$PG_DIR"
	chmod 0755 "$PG_DIR"
	PG_SOCK=$PG_DIR
	if ! pg_cluster_copy && ! pg_cluster_initdb; then
		sed 's/^/# /' "$PG_DIR/initdb.log" | tail -n 20
		PG_SKIP="initdb failed (see above)"
		return 1
	fi
	if ! pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -w -t 60 \
	    -l "$PG_DIR/server.log" -o "-c listen_addresses= -c unix_socket_directories=$PG_SOCK -c fsync=off -c max_connections=60" \
	    start >/dev/null 2>&1; then
		sed 's/^/# /' "$PG_DIR/server.log" | tail -n 20
		PG_SKIP="pg_ctl start failed (see above)"
		return 1
	fi
	PG_URL=$(pg_url ofl)
	pg_sql "CREATE DATABASE ofl" >/dev/null || exit 99
	return 0
}

# pg_url ROLE [DB]: the URL of database DB (ofl) for ROLE, on the socket.
pg_url() {
	_sock=$(printf '%s' "$PG_SOCK" | sed 's,/,%2F,g')
	echo "postgresql://$1@/${2:-ofl}?host=$_sock"
}

# pg_sql SQL [DB]: run SQL as the superuser in database DB (postgres).
pg_sql() {
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -A -t \
	    -h "$PG_SOCK" -U ofl -d "${2:-postgres}" -c "$1"
}
