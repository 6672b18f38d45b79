#!/bin/sh
#
# t3061-triage-fixtures: the test runs of tests/data/triage, real output
# of the runners on the projects of tests/runners (see t3060), read
# without the runners: the runner, the counts, the failing tests and the
# rerun command of each, against its golden .expect.

. "$(dirname "$0")/lib.sh"

T=$DATA/triage

for f in "$T"/*.log "$T"/*.xml; do
	name=${f##*/}
	base=${name%.*}
	[ -f "$T/$base.expect" ] || continue
	test_expect_success "test run of $name" '
		ofl-extract - --errors --max-bytes 0 <"$f" >out &&
		grep -e "^\[test-run " -e "^\[failed\] " -e "^\[errored\] " \
		    -e "^\[rerun\] " out >got &&
		test_cmp "$T/$base.expect" got
	'
done

test_expect_success '--json: the same run as data' '
	ofl-extract - --errors --json <"$T/pytest.log" | head -n 1 >run.json &&
	grep -q "\"kind\":\"test-run\",\"runner\":\"pytest\",\"passed\":5,\"failed\":4,\"skipped\":1,\"errors\":1," run.json &&
	grep -q "{\"test\":\"tests/test_calc.py::test_div\",\"group\":null,\"file\":\"tests/test_calc.py\",\"line\":20,\"message\":\"ZeroDivisionError: division by zero\",\"error\":false,\"lines\":\[12,26\]}" run.json &&
	grep -q "\"rerun\":\[\[\"python3\",\"-m\",\"pytest\",\"tests/test_calc.py::test_div\",\"tests/test_calc.py::test_mul\",\"tests/test_more.py::TestWords::test_lower\",\"tests/test_more.py::test_even\[2\]\",\"tests/test_calc.py::test_err\"\]\]" run.json
'

test_expect_success 'the rerun keeps the options of the captured command' '
	id=$(ofl-capture -T 0 -q -- sh -c "cat \"$T/go-v.log\"; exit 1" |
	    sed -n "s/^ofl:\([a-z0-9]*\).*/\1/p") &&
	ofl-extract "$id" --errors | grep "^\[rerun\]" >got &&
	echo "[rerun] go test -run '\''^(TestDiv|TestTable)\$'\'' example.com/triage/calc; go test -run '\''^(TestUpper)\$'\'' example.com/triage/strs" >want &&
	test_cmp want got
'

test_expect_success 'a JUnit report: the runner from the command that read it' '
	mkdir -p target/surefire-reports &&
	sed "s/surefire/sf/g" "$T/junit-surefire.xml" \
	    >target/surefire-reports/TEST-triage.CalcTest.xml &&
	ofl-extract - --errors <target/surefire-reports/TEST-triage.CalcTest.xml \
	    >out &&
	grep -q "^\[failed\] divides (triage.CalcTest)" out &&
	! grep -q "^\[rerun\]" out &&
	id=$(ofl-capture -T 0 -q -- \
	    cat target/surefire-reports/TEST-triage.CalcTest.xml |
	    sed -n "s/^ofl:\([a-z0-9]*\).*/\1/p") &&
	ofl-extract "$id" --errors | grep "^\[rerun\]" >got &&
	echo "[rerun] mvn test '\''-Dtest=CalcTest#throwsUp+divides'\'' -Dsurefire.failIfNoSpecifiedTests=false" >want &&
	test_cmp want got
'

# A test script that prints FAIL lines of its own and exits 0 (popt's
# testit.sh): the harness counts it passed, its output names a failure.
test_expect_success 'a summary that counts fewer failures than the output names' '
	{
		echo "make  check-TESTS"
		echo "PASS: test1 - 33"
		echo "FAIL: test1 - 34: \"\" != \"aShort: 12345\""
		echo "PASS: testit.sh"
		echo "# TOTAL: 1"
		echo "# PASS:  1"
		echo "# SKIP:  0"
		echo "# XFAIL: 0"
		echo "# FAIL:  0"
		echo "# XPASS: 0"
		echo "# ERROR: 0"
	} >am.log &&
	ofl-capture -T 0 <am.log >notice &&
	grep -x "tests (make check): 0 failed, 1 passed by its summary; its output names 1 failing" notice &&
	grep -x "failing: test1" notice &&
	ofl-extract - --errors <am.log | grep "^\[test-run " >got &&
	echo "[test-run make check] 0 failed, 1 passed by its summary; its output names 1 failing" >want &&
	test_cmp want got
'

test_expect_success 'failing names with spaces in them: a comma between' '
	ofl-capture -T 0 <"$T/junit-jest.xml" >notice &&
	grep -x "failing: divides, words lower, throws" notice &&
	ofl-capture -T 0 <"$T/go-v.log" >notice &&
	grep -x "failing: TestDiv TestTable TestUpper" notice
'

test_expect_success 'two failing tests of one name in two files: both, with their file' '
	ofl-capture -T 0 <"$T/junit-jest-same-name.xml" >notice &&
	grep -x "failing: parser handles empty input (a.test.js), parser handles empty input (b.test.js)" notice &&
	grep -x "  at Object.toBe (/src/app/src/a.test.js:9:21)" notice &&
	! grep "</failure>" notice
'

test_expect_success 'a JUnit report that does not say who wrote it: no rerun' '
	sed "s/name=\"pytest\"/name=\"suite\"/" "$T/junit-pytest.xml" >r.xml &&
	ofl-extract - --errors --max-bytes 0 <r.xml >out &&
	grep -q "^\[failed\] test_div (tests.test_calc)" out &&
	! grep -q "^\[rerun\]" out
'

test_expect_success 'a log with no test run has no test-run head' '
	ofl-extract - --errors --max-bytes 0 <"$DATA/extract/errors/python.log" >out &&
	! grep -q "^\[test-run" out &&
	! grep -q "^\[rerun\]" out
'

test_done
