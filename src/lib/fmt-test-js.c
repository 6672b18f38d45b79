/*
 * fmt-test-js.c: JavaScript's runners.  jest (FAIL file, "● a › b", the
 * Tests: line) and vitest (" FAIL  file > a > b", the Tests line); a
 * rerun per file, the names anchored in a -t pattern.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fmt-test.h"
#include "banned.h"

#define STARTS(s, n, p)	OFL_TEST_STARTS(s, n, p)
#define SEP_JEST	" \xe2\x80\xba "	/* " › " */
#define BULLET		"\xe2\x97\x8f "		/* "● " */
#define SUITE_FAILED	"Test suite failed to run"

struct jsst {
	char			*file;
	struct ofl_testcase	*cur;
	int			 body;		/* lines since the header */
	int			 vitest_fail;	/* in the Failed Tests part */
};

/* name with sep replaced by a space, into b. */
static void
join_name(struct ofl_buf *b, const char *s, size_t n, const char *sep)
{
	size_t	l = strlen(sep);
	const char *p;

	ofl_buf_reset(b);
	while ((p = memmem(s, n, sep, l)) != NULL) {
		ofl_buf_add(b, s, (size_t)(p - s));
		ofl_buf_addc(b, ' ');
		n -= (size_t)(p - s) + l;
		s = p + l;
	}
	ofl_buf_add(b, s, n);
}

static void
js_body(struct jsst *st, const char *s, size_t n, uint64_t no)
{
	struct ofl_testcase	*tc = st->cur;
	const char		*path;
	size_t			 k, pn;
	uint64_t		 ln;

	if (tc == NULL)
		return;
	for (k = 0; k < n && s[k] == ' '; k++)
		;
	if (k == n)
		return;
	tc->to = no;
	if (tc->message == NULL) {
		ofl_fmt_test_util_set(&tc->message, s + k, n - k);
		return;
	}
	if (tc->file == NULL && (STARTS(s + k, n - k, "at ") ||
	    STARTS(s + k, n - k, "\xe2\x9d\xaf ")) &&
	    ofl_fmt_test_util_loc(s + k, n - k, &path, &pn, &ln)) {
		ofl_fmt_test_util_set(&tc->file, path, pn);
		tc->line = ln;
	}
}

static void
jest_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct jsst	*st = v;
	struct ofl_buf	 name;
	size_t		 e;

	if (STARTS(s, n, "FAIL ") || STARTS(s, n, "PASS ")) {
		st->cur = NULL;
		free(st->file);
		st->file = NULL;
		e = 5;
		while (e < n && s[e] != ' ')
			e++;
		ofl_fmt_test_util_set(&st->file, s + 5, e - 5);
		return;
	}
	if (STARTS(s, n, "  " BULLET) && st->file != NULL) {
		ofl_buf_init(&name);
		join_name(&name, s + 6, n - 6, SEP_JEST);
		if (strcmp(ofl_buf_str(&name), SUITE_FAILED) == 0)
			st->cur = ofl_fmt_test_util_add(r, st->file,
			    strlen(st->file), st->file, strlen(st->file), no,
			    1);
		else
			st->cur = ofl_fmt_test_util_add(r, name.data, name.len,
			    st->file, strlen(st->file), no, 0);
		ofl_buf_free(&name);
		return;
	}
	if (STARTS(s, n, "Tests:") && memmem(s, n, " total", 6) != NULL) {
		r->score += 10;
		r->failed = ofl_fmt_test_util_count(s, n, "failed");
		r->passed = ofl_fmt_test_util_count(s, n, "passed");
		r->skipped = ofl_fmt_test_util_count(s, n, "skipped");
		if (r->failed < 0)
			r->failed = 0;
		if (r->passed < 0)
			r->passed = 0;
		if (r->skipped < 0)
			r->skipped = 0;
		st->cur = NULL;
		return;
	}
	if (STARTS(s, n, "Test Suites:") || STARTS(s, n,
	    "Summary of all failing tests")) {
		st->cur = NULL;
		return;
	}
	js_body(st, s, n, no);
}

static void
js_end(struct tres *r, void *v)
{
	(void)v;
	if (r->score < 10)
		r->score = 0;
}

static void
js_free(void *v)
{
	struct jsst	*st = v;

	free(st->file);
}

/* The words up to the runner; npm/yarn/pnpm test with a "--" after. */
static int
js_cmd_any(struct tcmd *c, const char *name)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		if (ofl_fmt_test_util_base(c->w[i], name)) {
			c->at = i + 1;
			if (strcmp(name, "vitest") == 0 && i + 1 < c->n &&
			    strcmp(c->w[i + 1], "run") == 0)
				c->at++;
			return 1;
		}
	}
	return 0;
}

static int
jest_cmd(struct tcmd *c)
{
	return js_cmd_any(c, "jest");
}

static int
vitest_cmd(struct tcmd *c)
{
	return js_cmd_any(c, "vitest");
}

static const char *js_valued[] = {
	"-t", "--testNamePattern", "--testPathPattern", "--config", "-c",
	"--reporter", "--maxWorkers", "-w", "--project", "--environment",
	"--root", "-r", "--dir", "--shard", "--testTimeout", NULL
};
static const char *js_select[] = {
	"-t", "--testNamePattern", "--testPathPattern", "-o",
	"--onlyChanged", "--findRelatedTests", "--changedSince", "--shard",
	"--lastCommit", "--runTestsByPath", NULL
};

static int
in_list(const char **l, const char *w)
{
	for (; *l != NULL; l++)
		if (strcmp(*l, w) == 0)
			return 1;
	return 0;
}

static void
re_quote(struct ofl_buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (strchr("\\.+*?()|[]{}^$/", *s) != NULL)
			ofl_buf_addc(b, '\\');
		ofl_buf_addc(b, *s);
	}
}

/* One command per file: the file, and its failing names in -t. */
static void
js_rerun(const struct tres *r, const struct tcmd *c, struct ofl_testrun *t,
    const char *dflt, int jest)
{
	struct ofl_testargv	*a;
	struct ofl_buf		 re;
	size_t			 i, j, k;
	int			 done, first, whole;

	ofl_buf_init(&re);
	for (i = 0; i < r->n; i++) {
		const char *g = r->tc[i].group;

		for (done = 0, j = 0; j < i; j++)
			if (strcmp(g, r->tc[j].group) == 0)
				done = 1;
		if (done)
			continue;
		a = ofl_fmt_test_util_argv(t, c, dflt);
		for (k = c != NULL ? c->at : 0; c != NULL && k < c->n; k++) {
			if (c->w[k][0] != '-')
				continue;
			if (!in_list(js_select, c->w[k]))
				ofl_fmt_test_util_arg(a, c->w[k], strlen(c->w[k]));
			if (in_list(js_valued, c->w[k]) && k + 1 < c->n) {
				k++;
				if (!in_list(js_select, c->w[k - 1]))
					ofl_fmt_test_util_arg(a, c->w[k],
					    strlen(c->w[k]));
			}
		}
		if (jest)
			ofl_fmt_test_util_arg(a, "--runTestsByPath", 16);
		ofl_fmt_test_util_arg(a, g, strlen(g));
		ofl_buf_reset(&re);
		for (whole = 0, first = 1, j = i; j < r->n; j++) {
			if (strcmp(g, r->tc[j].group) != 0)
				continue;
			if (r->tc[j].error && strcmp(r->tc[j].name, g) == 0)
				whole = 1;
			/*
			 * vitest 1 names a test " a b": the file's suite,
			 * named "", and a space before each name.
			 */
			ofl_buf_adds(&re, !first ? "|" : jest ? "^(" : "^ ?(");
			re_quote(&re, r->tc[j].name);
			first = 0;
		}
		if (!whole) {
			ofl_buf_adds(&re, ")$");
			ofl_fmt_test_util_arg(a, "-t", 2);
			ofl_fmt_test_util_arg(a, re.data, re.len);
		}
	}
	ofl_buf_free(&re);
}

static void
jest_rerun(const struct tres *r, const struct tcmd *c, struct ofl_testrun *t)
{
	js_rerun(r, c, t, "npx jest", 1);
}

/* With no failure open, jest_line reads its headers and summaries. */
static int
jest_want(const void *v, const char *s, size_t n)
{
	const struct jsst	*st = v;

	if (st->cur != NULL || n == 0)
		return st->cur != NULL;
	return s[0] == 'F' || s[0] == 'P' || s[0] == 'T' ||
	    (s[0] == ' ' && st->file != NULL);
}

const struct trunner ofl_fmt_test_js_jest = {
	"jest", sizeof(struct jsst), jest_cmd, jest_line, js_end, js_free,
	jest_rerun, jest_want
};

/* vitest */

static void
vitest_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct jsst	*st = v;
	struct ofl_buf	 name;
	const char	*p;
	size_t		 k;

	for (k = 0; k < n && s[k] == ' '; k++)
		;
	if (STARTS(s + k, n - k, "Test Files ")) {
		r->score += 10;
		st->cur = NULL;
		return;
	}
	if (STARTS(s + k, n - k, "Tests ") && k > 0) {
		r->failed = ofl_fmt_test_util_count(s, n, "failed");
		r->passed = ofl_fmt_test_util_count(s, n, "passed");
		r->skipped = ofl_fmt_test_util_count(s, n, "skipped");
		if (r->failed < 0)
			r->failed = 0;
		if (r->passed < 0)
			r->passed = 0;
		if (r->skipped < 0)
			r->skipped = 0;
		return;
	}
	if (STARTS(s + k, n - k, "\xe2\x8e\xaf")) {
		st->cur = NULL;
		st->vitest_fail = memmem(s, n, "Failed Tests", 12) != NULL ||
		    st->vitest_fail;
		return;
	}
	if (k == 1 && STARTS(s + 1, n - 1, "FAIL  ")) {
		s += 7;
		n -= 7;
		if ((p = memmem(s, n, " > ", 3)) == NULL) {
			/* " FAIL  file [ file ]": the file did not load. */
			k = 0;
			while (k < n && s[k] != ' ')
				k++;
			st->cur = ofl_fmt_test_util_add(r, s, k, s, k, no, 1);
			return;
		}
		ofl_buf_init(&name);
		join_name(&name, p + 3, (size_t)(s + n - p - 3), " > ");
		st->cur = ofl_fmt_test_util_add(r, name.data, name.len, s,
		    (size_t)(p - s), no, 0);
		ofl_buf_free(&name);
		return;
	}
	js_body(st, s, n, no);
}

static void
vitest_rerun(const struct tres *r, const struct tcmd *c,
    struct ofl_testrun *t)
{
	js_rerun(r, c, t, "npx vitest run", 0);
}

/* With no failure open, vitest_line reads its headers and summaries. */
static int
vitest_want(const void *v, const char *s, size_t n)
{
	const struct jsst	*st = v;
	size_t			 k;

	if (st->cur != NULL)
		return 1;
	for (k = 0; k < n && s[k] == ' '; k++)
		;
	return k < n && (s[k] == 'T' || s[k] == 'F' || s[k] == '\xe2');
}

const struct trunner ofl_fmt_test_js_vitest = {
	"vitest", sizeof(struct jsst), vitest_cmd, vitest_line, js_end,
	js_free, vitest_rerun, vitest_want
};
