# npm.sh: test peers from the npm registry, sourced after lib.sh.
#
# npm_modules SRC prints a node_modules directory that holds the pinned
# packages of SRC/package-lock.json: SRC/node_modules when
# "npm ci --prefix SRC" ran there, else a cache under $TMPDIR keyed by the
# user and the lock file's hash, filled with npm ci on first use.  One
# installer at a time; the others wait for it.  The cache holds only what
# npm installed, so checkouts with the same lock file share it safely;
# what a test runs next to it is copied into the test's own directory.
# Without node and npm, or when npm ci fails, it fails with the reason on
# stderr: the caller skips.

npm_modules() {
	_src=$1
	if [ -f "$_src/node_modules/.package-lock.json" ]; then
		echo "$_src/node_modules"
		return 0
	fi
	if ! command -v node >/dev/null 2>&1 ||
	    ! command -v npm >/dev/null 2>&1; then
		echo "node and npm are needed" >&2
		return 1
	fi
	_sum=$(cksum <"$_src/package-lock.json" | tr ' ' '-')
	_dir=${TMPDIR:-/tmp}/ofl-npm-$(id -u)-$_sum
	_n=0
	until mkdir "$_dir.lock" 2>/dev/null; do
		_n=$((_n + 1))
		if [ $_n -gt 600 ]; then
			echo "timed out waiting for $_dir.lock" >&2
			return 1
		fi
		sleep 1
	done
	if [ ! -f "$_dir/.installed" ]; then
		rm -rf "$_dir"
		mkdir -p "$_dir" &&
		cp "$_src/package.json" "$_src/package-lock.json" "$_dir/" &&
		npm ci --prefix "$_dir" --no-audit --no-fund \
		    >"$_dir.log" 2>&1 &&
		touch "$_dir/.installed"
	fi
	rmdir "$_dir.lock"
	if [ ! -f "$_dir/.installed" ]; then
		echo "npm ci failed (see $_dir.log):" >&2
		tail -n 5 "$_dir.log" >&2
		return 1
	fi
	echo "$_dir/node_modules"
}
