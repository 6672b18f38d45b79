#!/bin/sh
#
# t9020-setup: the README's set-up command installs the packages of
# .ci/packages, the list that .ci/run installs, for a user with sudo and
# for root without it; the README names every package of the list; the
# notice's next: commands work from the build tree with the PATH line of
# the README.  The commands run here with stubs for sudo, apt-get and the
# build, so nothing is installed.

. "$(dirname "$0")/lib.sh"

# The README and the package list do not change under the sanitizers:
# the gate runs this once, in the plain make check.
test_once

SRC=$OFL_SRCDIR
BUILD=$OFL_BUILDDIR

# setup_section: the README's "Set up" section.
sed -n '/^## Set up on Debian 12$/,/^## /p' "$SRC/README.md" | sed '$d' \
    >setup.md

# block N: the N-th code block of the set-up section.
block() {
	awk -v n="$1" '
		/^```/ { if (on) exit; if (!inside && ++k == n) on = 1
			inside = !inside; next }
		on { print }' setup.md
}

# packages: the list, one a line, as .ci/run reads it.
packages() {
	sed -n 's/^packages=\(\$(.*)\)$/\1/p' "$SRC/.ci/run" >ci-expr &&
	test "$(wc -l <ci-expr)" -eq 1 &&
	(cd "$SRC" && eval "printf '%s\n' $(cat "$TEST_DIR/ci-expr")")
}

# stubs DIR [sudo]: commands that log their arguments to $TEST_DIR/calls
# and do nothing else; sed and cat are the real ones.
stubs() {
	mkdir -p "$1" &&
	for c in apt-get autoreconf make ofl-capture ${2-}; do
		printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\n' \
		    "$c" "$TEST_DIR" >"$1/$c" &&
		chmod +x "$1/$c" || return 1
	done
	if [ "${2-}" = sudo ]; then
		# sudo logs itself, then runs the command.
		printf '#!/bin/sh\necho "sudo" >>"%s/calls"\nexec "$@"\n' \
		    "$TEST_DIR" >"$1/sudo"
	fi
	ln -sf "$(command -v sed)" "$1/sed" &&
	ln -sf "$(command -v cat)" "$1/cat"
}

# run_setup SHELL PATH: run the set-up line with SHELL in a copy of the
# list, with a configure stub, and PATH as given.
run_setup() {
	rm -rf tree calls &&
	mkdir -p tree/.ci &&
	cp "$SRC/.ci/packages" tree/.ci/ &&
	printf '#!/bin/sh\necho "configure $*" >>"%s/calls"\n' "$TEST_DIR" \
	    >tree/configure &&
	chmod +x tree/configure &&
	block 1 >setup-line &&
	test "$(wc -l <setup-line)" -eq 1 &&
	sh=$(command -v "$1") &&
	(cd tree && PATH=$2 "$sh" "$TEST_DIR/setup-line")
}

test_expect_success '.ci/packages lists packages, and .ci/run reads it' '
	packages >list &&
	test "$(wc -l <list)" -ge 10 &&
	grep -qx build-essential list &&
	! grep -v "^[a-z0-9][a-z0-9.+-]*\$" list &&
	grep -q "apt-get install .*\$packages" "$SRC/.ci/run"
'

# CI is no greener than the README: .ci/run installs the list and
# nothing else, by apt-get or by npm (the tests install their npm peers
# themselves, from a README set-up as from CI).
test_expect_success '.ci/run installs nothing the list does not name' '
	sed "s/#.*//" "$SRC/.ci/run" >ci-code &&
	test "$(grep -c "apt-get install" ci-code)" -eq 1 &&
	sed -n "s/.*apt-get install\(.*\)/\1/p" ci-code |
	    sed -e "s/ -[-a-z]*//g" -e "s/ *>.*//" >ci-install &&
	echo " \$packages" >want &&
	test_cmp want ci-install &&
	! grep -q -e "npm ci" -e "npm install" -e "pip install" ci-code
'

test_expect_success 'README: the set-up line installs exactly that list (sudo)' '
	packages >list &&
	stubs stubs-sudo sudo &&
	run_setup sh "$TEST_DIR/stubs-sudo" &&
	{
		echo sudo
		echo "apt-get update"
		echo sudo
		echo "apt-get install -y --no-install-recommends $(tr "\n" " " <list | sed "s/ \$//")"
		echo "autoreconf -fi"
		echo "configure "
		echo "make "
		echo "ofl-capture -- cat tests/data/json/dependabot-github-commits.json"
	} >expect &&
	test_cmp expect calls
'

test_expect_success 'README: the set-up line works for root without sudo' '
	packages >list &&
	stubs stubs-root &&
	run_setup sh "$TEST_DIR/stubs-root" &&
	{
		echo "apt-get update"
		echo "apt-get install -y --no-install-recommends $(tr "\n" " " <list | sed "s/ \$//")"
		echo "autoreconf -fi"
		echo "configure "
		echo "make "
		echo "ofl-capture -- cat tests/data/json/dependabot-github-commits.json"
	} >expect &&
	test_cmp expect calls
'

test_expect_success bash 'README: the set-up line works in bash too' '
	packages >list &&
	stubs stubs-bash sudo &&
	run_setup bash "$TEST_DIR/stubs-bash" &&
	grep -qx "apt-get install -y --no-install-recommends $(tr "\n" " " <list | sed "s/ \$//")" calls &&
	test "$(grep -cx sudo calls)" -eq 2
'

test_expect_success 'README: the set-up section names every package' '
	packages >list &&
	while read -r p; do
		grep -qF -e "\`$p\`" setup.md || echo "README lacks $p"
	done <list >missing &&
	test_cmp /dev/null missing
'

# The lists of apt are there once apt-get update has run.
if command -v apt-cache >/dev/null 2>&1 &&
    ls /var/lib/apt/lists/ 2>/dev/null | grep -q '_Packages'; then
	apt_lists=apt-cache
else
	apt_lists=apt-lists
fi
test_expect_success "$apt_lists" 'every package of the list is known to apt' '
	packages >list &&
	# One call for all (one a package took half a minute): a name apt
	# does not know is left out of what it shows.
	{ apt-cache show --no-all-versions $(cat list) 2>/dev/null || true; } |
	    sed -n "s/^Package: //p" | sort -u >known &&
	sort -u list | comm -23 - known | sed "s/^/apt does not know /" \
	    >missing &&
	test_cmp /dev/null missing
'

# The notice of the example names commands (next: ofl-extract ID ...)
# that work with the README's PATH line, from the top of a build tree.
need=sh
test -x "$BUILD/ofl-capture" || need=ofl-capture-built
test_expect_success "$need" 'README: next: commands work with its PATH line' '
	block 1 | sed -n "s/.* && \(PATH=[^ ]*\) && .*/\1/p" >pathline &&
	block 3 >pathline2 &&
	test_cmp pathline pathline2 &&
	export SYSPATH="/usr/local/bin:/usr/bin:/bin" &&
	(cd "$BUILD" && PATH=$SYSPATH && eval "$(cat "$TEST_DIR/pathline")" &&
	    ofl-capture <"$SRC/tests/data/json/dependabot-github-commits.json" \
	    >"$TEST_DIR/notice" &&
	    sed -n "s/^next: //p; s/^      \(ofl-\)/\1/p" "$TEST_DIR/notice" |
	    sed "s/QUERY/sinatra/" >"$TEST_DIR/next" &&
	    test "$(wc -l <"$TEST_DIR/next")" -ge 3 &&
	    while read -r c; do
		eval "$c" >/dev/null 2>"$TEST_DIR/next.err" ||
		    { echo "failed: $c" >&2; cat "$TEST_DIR/next.err" >&2; exit 1; }
	    done <"$TEST_DIR/next")
'

# The README's way to read a manual page from the build tree.
test_expect_success man 'README: man -l reads a page from the tree' '
	sed -n "s/.*\(man -l man\/[a-z-]*\.[1-9]\).*/\1/p" "$SRC/README.md" \
	    >manline &&
	test "$(wc -l <manline)" -eq 1 &&
	(cd "$SRC" && eval "$(cat "$TEST_DIR/manline")") >page 2>err &&
	test ! -s err &&
	grep -q "^NAME" page &&
	grep -q "^SYNOPSIS" page
'

test_done
