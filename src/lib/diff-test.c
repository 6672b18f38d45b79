/*
 * diff-test.c: the test a failure line names, for ofl-diff's comparison
 * of test runs (diff.c) and the notice of a rerun.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <string.h>

#include "ofl.h"
#include "fmt-log.h"
#include "banned.h"

/* 1 if a word is a number or a duration: "3", "(0.01s)", "12ms". */
static int
test_noise(const char *w, size_t n)
{
	size_t	i = 0, d = 0;

	if (i < n && (w[i] == '(' || w[i] == '['))
		i++;
	for (; i < n && ((w[i] >= '0' && w[i] <= '9') || w[i] == '.'); i++)
		d++;
	if (d == 0)
		return 0;
	if (i < n && w[i] == 'm')
		i++;
	if (i < n && w[i] == 's')
		i++;
	if (i < n && (w[i] == ')' || w[i] == ']'))
		i++;
	return i == n;
}

/*
 * A test's name from its failure line: the words without numbers and
 * durations, so that "not ok 3 - parses (0.01s)" and "not ok 4 - parses
 * (0.02s)" name one test.
 */
static void
test_name(struct ofl_buf *out, const char *p, size_t n)
{
	size_t	i = 0, s;

	while (i < n) {
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		for (s = i; i < n && p[i] != ' ' && p[i] != '\t'; i++)
			;
		if (i > s && !test_noise(p + s, i - s)) {
			if (out->len > 0)
				ofl_buf_addc(out, ' ');
			ofl_buf_add(out, p + s, i - s);
		}
	}
}

/*
 * The one test-failure rule ofl-diff uses: a line that reports a failed
 * test (the error-block starts of fmt-log-trace.c of the test runners'
 * kinds: go test, pytest, jest, vitest, TAP, JUnit, unittest, automake's
 * FAIL:) gives the test's name, masked as error lines are, in out.
 */
int
ofl_diff_failing_test(const char *p, size_t n, struct ofl_buf *out)
{
	struct start	st;

	if (!ofl_fmt_log_find_start(p, n, &st))
		return 0;
	switch (st.kind) {
	case K_GO_TEST:
	case K_PYTEST:
	case K_JEST:
	case K_VITEST:
	case K_TAP:
	case K_JUNIT:
	case K_UNITTEST:
	case K_TEST_UNEXPECTED:
		break;
	default:
		return 0;
	}
	if (st.margin > n)
		st.margin = 0;
	test_name(out, p + st.margin, n - st.margin);
	return 1;
}
