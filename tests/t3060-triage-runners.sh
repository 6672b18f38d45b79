#!/bin/sh
#
# t3060-triage-runners: real test runners through ofl-capture.  For each
# runner a small project (tests/runners/NAME) with passing, failing,
# erroring and skipped tests: ofl lists exactly the failing tests, and the
# rerun command ofl printed, run, runs exactly those and nothing else.  A
# runner that is not installed is skipped with the reason.

REAL_HOME=$HOME
. "$(dirname "$0")/lib.sh"
. "$OFL_SRCDIR/tests/npm.sh"

R=$OFL_SRCDIR/tests/runners
# The toolchains keep their state under the real home.
: "${RUSTUP_HOME:=$REAL_HOME/.rustup}"
: "${CARGO_HOME:=$REAL_HOME/.cargo}"
GOCACHE=$TEST_DIR/gocache
GOPATH=$TEST_DIR/gopath
GOFLAGS=-mod=mod
export RUSTUP_HOME CARGO_HOME GOCACHE GOPATH GOFLAGS
# make check runs this script: its make is not the projects' parent.
unset MAKELEVEL MAKEFLAGS MFLAGS
# The runners take minutes and the sanitizers do not change them: the
# gate runs this once, in the plain make check; what ofl makes of their
# output is read again under the sanitizers by t3061, from the same
# runners' output kept in tests/data/triage.
test_once

# project NAME [MODULES]: a copy of its project to run in (the tree may
# be read-only), with MODULES (from npm_modules) as its node_modules.
project() {
	rm -rf "$TEST_DIR/p-$1" &&
	cp -R "$R/$1" "$TEST_DIR/p-$1" &&
	if [ -n "$2" ]; then
		rm -rf "$TEST_DIR/p-$1/node_modules" &&
		ln -s "$2" "$TEST_DIR/p-$1/node_modules"
	fi
}

# capture DIR CMD...: run CMD in DIR through ofl-capture; print the ID.
capture() {
	(cd "$1" && shift && ofl-capture -T 0 -q -- "$@") |
	    sed -n 's/^ofl:\([a-z0-9]*\).*/\1/p'
}

# errors_of ID: ofl-extract --errors of ID, asked once (an artifact
# never changes).
errors_of() {
	[ -f "$TEST_DIR/errors.$1" ] || ofl-extract "$1" --errors \
	    --max-bytes 0 >"$TEST_DIR/errors.$1"
	cat "$TEST_DIR/errors.$1"
}

# failing ID: the failing tests ofl names, sorted.
failing() {
	errors_of "$1" |
	    sed -n -e 's/^\[failed\] \([^	]*\).*/\1/p' \
	    -e 's/^\[errored\] \([^	]*\).*/\1/p' | sort
}

rerun_of() {
	errors_of "$1" | sed -n 's/^\[rerun\] //p'
}

counts_of() {
	errors_of "$1" | sed -n 's/^\[test-run [^]]*\] //p'
}

# check NAME DIR WANT CMD...: the failing list of CMD is WANT (a file);
# the rerun ofl prints, run in DIR, fails those same tests and passes
# none (no test that passed the first time ran again).
check() {
	name=$1 dir=$2 want=$3
	shift 3
	id=$(capture "$dir" "$@") &&
	check_id "$name" "$dir" "$want" "$want" "$id"
}

# check_id NAME DIR WANT FWANT ID: the failing list of ID is FWANT; the
# rerun ofl prints, run in DIR, fails the tests of WANT and passes none.
check_id() {
	name=$1 dir=$2 want=$3
	test -n "$5" &&
	failing "$5" >"$name.got" &&
	test_cmp "$4" "$name.got" &&
	rerun=$(rerun_of "$5") &&
	test -n "$rerun" &&
	echo "$rerun" >"$name.rerun" &&
	id2=$(capture "$dir" sh -c "$rerun") &&
	failing "$id2" >"$name.got2" &&
	test_cmp "$want" "$name.got2" &&
	counts_of "$id2" >"$name.counts" &&
	! grep -Eq "(^|, )[1-9][0-9]* passed" "$name.counts"
}

# check_report NAME DIR WANT RWANT REPORT CMD...: CMD, run in DIR, writes
# the JUnit XML report REPORT (one or more files); ofl reads the report
# as cat prints it: its failing list is RWANT; the rerun ofl prints, run
# in DIR, fails the tests of WANT and passes none.
check_report() {
	name=$1 dir=$2 want=$3 rwant=$4 report=$5
	shift 5
	(cd "$dir" && "$@" >"../$name.run" 2>&1)
	id=$(capture "$dir" sh -c "cat $report") &&
	check_id "$name" "$dir" "$want" "$rwant" "$id"
}

PY=
for p in python3 /usr/bin/python3; do
	if "$p" -m pytest --version >/dev/null 2>&1; then
		PY=$p
		break
	fi
done

if [ -n "$PY" ]; then
	test_expect_success 'pytest: node IDs; the rerun runs just them' '
		project pytest &&
		cat >want <<-\EOF &&
		tests/test_calc.py::test_div
		tests/test_calc.py::test_err
		tests/test_calc.py::test_mul
		tests/test_more.py::TestWords::test_lower
		tests/test_more.py::test_even[2]
		EOF
		check pytest p-pytest want "$PY" -m pytest -q -p no:cacheprovider &&
		grep -q -- "-p no:cacheprovider" pytest.rerun &&
		grep -q "^4 failed, 0 passed, 1 error" pytest.counts
	'
	test_expect_success 'pytest --junitxml: the report'\''s rerun runs just them' '
		project pytest &&
		cat >want <<-\EOF &&
		tests/test_calc.py::test_div
		tests/test_calc.py::test_err
		tests/test_calc.py::test_mul
		tests/test_more.py::TestWords::test_lower
		tests/test_more.py::test_even[2]
		EOF
		cat >rwant <<-\EOF &&
		test_div (tests.test_calc)
		test_err (tests.test_calc)
		test_even[2] (tests.test_more)
		test_lower (tests.test_more.TestWords)
		test_mul (tests.test_calc)
		EOF
		mkdir -p bin &&
		ln -sf "$(command -v "$PY")" bin/python3 &&
		PATH="$PWD/bin:$PATH" check_report pytestxml p-pytest want rwant \
		    report.xml "$PY" -m pytest -q -p no:cacheprovider \
		    --junitxml=report.xml
	'
	test_expect_success 'unittest: dotted IDs; the rerun runs just them' '
		project unittest &&
		cat >want <<-\EOF &&
		test_shapes.TestShapes.test_broken
		test_shapes.TestShapes.test_circle
		EOF
		check unittest p-unittest want "$PY" -m unittest
	'
else
	test_skip 'pytest' 'no python3 with pytest (python3-pytest)'
	test_skip 'pytest --junitxml' 'no python3 with pytest (python3-pytest)'
	test_skip 'unittest' 'no python3 with pytest to pick the interpreter'
fi

if test_have_prereq go; then
	test_expect_success 'go test -v: per package, anchored -run' '
		project go &&
		cat >want <<-\EOF &&
		TestDiv (example.com/triage/calc)
		TestTable (example.com/triage/calc)
		TestUpper (example.com/triage/strs)
		EOF
		check go p-go want go test -v ./... &&
		grep -q "'\''\^(TestUpper)\$'\'' example.com/triage/strs" \
		    go.rerun
	'
	test_expect_success 'go test -json: the same tests' '
		project go &&
		cat >want <<-\EOF &&
		TestDiv (example.com/triage/calc)
		TestTable (example.com/triage/calc)
		TestUpper (example.com/triage/strs)
		EOF
		check gojson p-go want go test -json ./...
	'
else
	test_skip 'go test' 'no go (golang-go)'
	test_skip 'go test -json' 'no go (golang-go)'
fi

CARGO=
if command -v cargo >/dev/null 2>&1; then
	CARGO=cargo
elif [ -x "$CARGO_HOME/bin/cargo" ]; then
	CARGO=$CARGO_HOME/bin/cargo
fi
# cargo runs tests in parallel: the failures come, and are named in the
# rerun command, in either order.
if [ -n "$CARGO" ] && "$CARGO" --version >/dev/null 2>&1; then
	test_expect_success 'cargo test: --exact names' '
		project cargo &&
		printf "%s (src/lib.rs)\n" tests::add_bad tests::div_bad >want &&
		check cargo p-cargo want "$CARGO" test --offline &&
		grep -Eq -- "--exact tests::(add_bad tests::div_bad|div_bad tests::add_bad)\$" \
		    cargo.rerun
	'
else
	test_skip 'cargo test' 'no cargo'
fi

if test_have_prereq prove,perl; then
	test_expect_success 'prove: the failing scripts' '
		project tap &&
		printf "%s\n" t/die.t t/fail.t >want &&
		check prove p-tap want prove
	'
else
	test_skip 'prove' 'no prove (perl)'
fi

if test_have_prereq autoreconf,automake,make; then
	test_expect_success 'make check: TESTS= the failing scripts' '
		project automake &&
		(cd p-automake && autoreconf -fi && ./configure) >/dev/null 2>&1 &&
		printf "%s\n" fail.sh hard.sh >want &&
		check automake p-automake want make check &&
		grep -q "^make check '\''TESTS=fail.sh hard.sh'\''$" automake.rerun
	'
else
	test_skip 'make check' 'no autoreconf (autoconf, automake)'
fi

if test_have_prereq ctest,cmake; then
	test_expect_success 'ctest: an anchored -R' '
		project ctest &&
		(cd p-ctest && cmake -S . -B build >/dev/null) &&
		printf "%s\n" crash fail_one >want &&
		check ctest p-ctest want ctest --test-dir build &&
		grep -q "^0 failed\|^2 failed, 0 passed" ctest.counts
	'
else
	test_skip 'ctest' 'no ctest (cmake)'
fi

if test_have_prereq make,cc; then
	test_expect_success 'make: the failing target and its first error' '
		project make &&
		echo bad.o >want &&
		id=$(capture p-make make) &&
		failing "$id" >got &&
		test_cmp want got &&
		ofl-extract "$id" --errors | grep "^\[errored\] bad.o" |
		    grep -q "bad.c:3	bad.c:3:16: error: " &&
		test "$(rerun_of "$id")" = "make bad.o" &&
		{ (cd p-make && rm -f good.o && make bad.o) >out 2>&1; true; } &&
		grep -q "bad.c" out && ! grep -q "good.c" out
	'
else
	test_skip 'make' 'no make or cc'
fi

for js in jest vitest; do
	mods=
	if test_have_prereq node &&
	    mods=$(npm_modules "$R/$js" 2>"npm-$js.err") &&
	    [ -x "$mods/.bin/$js" ]; then
		test_expect_success "$js: one command a file, anchored -t" '
			project $js "$mods" &&
			case $js in
			jest) d=./ ;;
			*) d= ;;
			esac &&
			printf "divides (${d}calc.test.js)\nthrows (${d}more.test.js)\nwords lower (${d}calc.test.js)\n" >want &&
			if [ $js = jest ]; then
				check $js p-$js want ./node_modules/.bin/jest --ci
			else
				check $js p-$js want ./node_modules/.bin/vitest run
			fi &&
			grep -q "(divides|words lower)\$'\''" $js.rerun
		'
	else
		test_skip "$js" "not installed: $(head -n 1 "npm-$js.err")"
	fi
done

MREPO=/usr/share/maven-repo
if test_have_prereq mvn,java &&
    [ -d "$MREPO/org/apache/maven/plugins/maven-surefire-plugin/2.22.3" ] &&
    [ -d "$MREPO/junit/junit/4.x" ]; then
	test_expect_success 'maven surefire: -Dtest=Class#a+b' '
		project maven &&
		cat >want <<-\EOF &&
		divides (triage.CalcTest)
		throwsUp (triage.CalcTest)
		upper (triage.WordsTest)
		EOF
		check maven p-maven want \
		    mvn -o -B -Dmaven.repo.local="$MREPO" test &&
		grep -q "'\''-Dtest=CalcTest#throwsUp+divides,WordsTest#upper'\''" \
		    maven.rerun
	'
	# The rerun is a plain mvn: the project's .mvn/maven.config gives
	# it the offline repository.
	test_expect_success 'maven surefire reports: the rerun runs just them' '
		project maven &&
		mkdir -p p-maven/.mvn &&
		printf "%s\n" -o -Dmaven.repo.local="$MREPO" \
		    >p-maven/.mvn/maven.config &&
		cat >want <<-\EOF &&
		divides (triage.CalcTest)
		throwsUp (triage.CalcTest)
		upper (triage.WordsTest)
		EOF
		check_report mavenxml p-maven want want \
		    target/surefire-reports/TEST-*.xml mvn -B test &&
		grep -q "^mvn test '\''-Dtest=CalcTest#throwsUp+divides,WordsTest#upper'\''" \
		    mavenxml.rerun
	'
else
	test_skip 'maven surefire' 'no mvn with the offline repository of libsurefire-java, junit4 and maven-debian-helper'
	test_skip 'maven surefire reports' 'no mvn with the offline repository of libsurefire-java, junit4 and maven-debian-helper'
fi

# Changed-file hints: a frame in the file edited in the work tree comes
# first and is marked.
if [ -n "$PY" ] && test_have_prereq git; then
	test_expect_success 'changed files: the edited file'\''s frame first' '
		mkdir -p hint/lib hint/tests &&
		cd hint &&
		printf "[pytest]\n" >pytest.ini &&
		: Python writes __pycache__ unless PYTHONDONTWRITEBYTECODE is set &&
		printf "__pycache__/\n" >.gitignore &&
		printf "def div(a, b):\n    return a / b\n" >lib/calc.py &&
		printf "import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\nfrom lib.calc import div\n\n\ndef test_div():\n    assert div(1, 0) == 0\n" >tests/test_calc.py &&
		git init -q . &&
		git -c user.name=t -c user.email=t@t add . &&
		git -c user.name=t -c user.email=t@t commit -qm init &&
		printf "def div(a, b):\n    return a // b\n" >lib/calc.py &&
		test_expect_code 1 ofl-capture -T 0 -- \
		    "$PY" -m pytest -q -p no:cacheprovider >../notice &&
		cd .. &&
		sed -n "/^first: /,/^rerun: /p" notice >first &&
		sed -n 3p first >frame &&
		grep -q "^  lib/calc.py:2: ZeroDivisionError  \[changed\]$" frame &&
		sed -n 4p first | grep -q "^  tests/test_calc.py:7: *$" &&
		id=$(sed -n "s/^ofl:\([a-z0-9]*\).*/\1/p" notice) &&
		ofl-extract "$id" --errors --json | head -n 1 >run.json &&
		grep -q "\"changed\":\[\"lib/calc.py\"\]" run.json
	'
	test_expect_success 'notice of 2,000 tests, 3 failing: under 1.5 kB' '
		mkdir -p big &&
		printf "[pytest]\n" >big/pytest.ini &&
		printf "import pytest\n\n\n@pytest.mark.parametrize(\"n\", range(2000))\ndef test_n(n):\n    assert n not in (17, 1203, 1999), \"bad number %%d\" %% n\n" >big/test_big.py &&
		(cd big && test_expect_code 1 ofl-capture -T 0 -- \
		    "$PY" -m pytest -q -p no:cacheprovider) >notice &&
		test "$(wc -c <notice)" -le 1500 &&
		grep -q "^tests (pytest): 3 failed, 1997 passed$" notice &&
		grep -q "^failing: test_big.py::test_n\[17\] test_big.py::test_n\[1203\] test_big.py::test_n\[1999\]$" notice &&
		grep -q "^  AssertionError: bad number 17$" notice &&
		grep -q "^rerun: .* -m pytest -q -p no:cacheprovider '\''test_big.py::test_n\[17\]'\'' '\''test_big.py::test_n\[1203\]'\'' '\''test_big.py::test_n\[1999\]'\''$" notice
	'
	test_expect_success 'no work tree: no hint, no error' '
		mkdir -p nogit &&
		(cd nogit &&
		    test_expect_code 1 ofl-capture -T 0 -- sh -c "echo x; exit 1"
		) >out 2>err &&
		test ! -s err &&
		id=$(sed -n "s/^ofl:\([a-z0-9]*\).*/\1/p" out) &&
		test -n "$id" &&
		ofl-extract "$id" >got &&
		echo x >want &&
		test_cmp want got
	'
else
	test_skip 'changed files' 'no python3 with pytest, or no git'
	test_skip 'no work tree' 'no python3 with pytest, or no git'
fi

test_done
