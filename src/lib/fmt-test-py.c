/*
 * fmt-test-py.c: Python's runners.  pytest: the failing node IDs of the
 * short summary (or of -v's result lines), the report sections of the
 * FAILURES and ERRORS parts, the closing counts; a rerun names the node
 * IDs.  unittest: the FAIL: and ERROR: headers, "Ran N tests" and the
 * closing counts; a rerun names the dotted test IDs.
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
#define SECT_MAX	OFL_TEST_KEEP

/* A report section of pytest's FAILURES or ERRORS parts. */
struct sect {
	char		*title;
	uint64_t	 from;
	uint64_t	 to;
	char		*msg;
	char		*file;
	uint64_t	 line;
};

struct pyst {
	int		 part;		/* 1: FAILURES/ERRORS, 2: summary */
	struct sect	*sc;
	size_t		 nsc;
	int		 open;		/* the last section is open */
};

/* "===== TITLE =====": 1, and the title. */
static int
banner(const char *s, size_t n, const char **t, size_t *tn)
{
	size_t	a = 0, e = n;

	if (n < 7 || s[0] != '=' || s[n - 1] != '=')
		return 0;
	while (a < n && s[a] == '=')
		a++;
	while (e > a && s[e - 1] == '=')
		e--;
	while (a < e && s[a] == ' ')
		a++;
	while (e > a && s[e - 1] == ' ')
		e--;
	*t = s + a;
	*tn = e - a;
	return 1;
}

/* "_____ title _____" */
static int
sect_header(const char *s, size_t n, const char **t, size_t *tn)
{
	size_t	a = 0, e = n;

	if (n < 7 || memcmp(s, "___", 3) != 0 ||
	    memcmp(s + n - 3, "___", 3) != 0)
		return 0;
	while (a < n && s[a] == '_')
		a++;
	while (e > a && s[e - 1] == '_')
		e--;
	while (a < e && s[a] == ' ')
		a++;
	while (e > a && s[e - 1] == ' ')
		e--;
	if (a == e)
		return 0;
	*t = s + a;
	*tn = e - a;
	return 1;
}

static void
pytest_counts(struct tres *r, const char *s, size_t n)
{
	int64_t	v;

	r->failed = ofl_fmt_test_util_count(s, n, "failed");
	r->passed = ofl_fmt_test_util_count(s, n, "passed");
	r->skipped = ofl_fmt_test_util_count(s, n, "skipped");
	if ((v = ofl_fmt_test_util_count(s, n, "errors")) < 0)
		v = ofl_fmt_test_util_count(s, n, "error");
	r->errors = v;
	if (r->failed < 0)
		r->failed = 0;
	if (r->passed < 0)
		r->passed = 0;
	if (r->skipped < 0)
		r->skipped = 0;
	if (r->errors < 0)
		r->errors = 0;
	r->score += 5;
}

/* "FAILED id - msg" or "ERROR id - msg" of the summary. */
static void
pytest_result(struct tres *r, const char *s, size_t n, uint64_t no,
    size_t skip, int error)
{
	struct ofl_testcase	*tc;
	const char		*m;
	size_t			 e;

	s += skip;
	n -= skip;
	m = memmem(s, n, " - ", 3);
	e = m != NULL ? (size_t)(m - s) : n;
	if (e == 0 || memchr(s, ' ', e) != NULL)
		return;
	if ((tc = ofl_fmt_test_util_add(r, s, e, NULL, 0, 0, error)) == NULL)
		return;
	if (m != NULL && tc->message == NULL)
		ofl_fmt_test_util_set(&tc->message, m + 3, (size_t)(s + n - m - 3));
	(void)no;
}

/* "path::name FAILED   [ 20%]" of -v. */
static void
pytest_verbose(struct tres *r, const char *s, size_t n, uint64_t no)
{
	const char	*p;
	size_t		 e;
	int		 error = 0;

	/* "... FAILED", "... FAILED [ 20%]": cheap tests first. */
	n = ofl_fmt_test_util_trim(s, n);
	if (n < 10 || (s[n - 1] != ']' && s[n - 1] != 'D' && s[n - 1] != 'R'))
		return;
	if ((p = memmem(s, n, " FAILED", 7)) == NULL &&
	    (error = 1, p = memmem(s, n, " ERROR", 6)) == NULL)
		return;
	e = (size_t)(p - s);
	if (e < 5 || memchr(s, ' ', e) != NULL ||
	    memmem(s, e, "::", 2) == NULL)
		return;
	ofl_fmt_test_util_add(r, s, e, NULL, 0, no, error);
}

static void
pytest_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct pyst	*st = v;
	struct sect	*sc;
	const char	*t, *path;
	size_t		 tn, pn;
	uint64_t	 ln;

	if (banner(s, n, &t, &tn)) {
		st->open = 0;
		if (tn == 8 && memcmp(t, "FAILURES", 8) == 0)
			st->part = 1;
		else if (tn == 6 && memcmp(t, "ERRORS", 6) == 0)
			st->part = 1;
		else if (STARTS(t, tn, "short test summary info")) {
			st->part = 2;
			r->score += 5;
		} else if (STARTS(t, tn, "test session starts")) {
			st->part = 0;
			r->score += 3;
		} else
			st->part = 0;
		if (memmem(t, tn, " in ", 4) != NULL && tn > 0 &&
		    isdigit((unsigned char)t[0]) && (memmem(t, tn,
		    "passed", 6) || memmem(t, tn, "failed", 6) ||
		    memmem(t, tn, "error", 5) || memmem(t, tn, "skipped", 7)))
			pytest_counts(r, t, tn);
		return;
	}
	if (st->part == 2) {
		if (STARTS(s, n, "FAILED "))
			pytest_result(r, s, n, no, 7, 0);
		else if (STARTS(s, n, "ERROR "))
			pytest_result(r, s, n, no, 6, 1);
		else if (n > 0 && isdigit((unsigned char)s[0]) &&
		    memmem(s, n, " in ", 4) != NULL)
			pytest_counts(r, s, n);	/* -q: no banner */
		return;
	}
	if (st->part == 1) {
		if (sect_header(s, n, &t, &tn)) {
			if (st->nsc == SECT_MAX)
				return;
			st->sc = ofl_xrealloc(st->sc, (st->nsc + 1) *
			    sizeof *st->sc);
			sc = &st->sc[st->nsc++];
			memset(sc, 0, sizeof *sc);
			ofl_fmt_test_util_set(&sc->title, t, tn);
			sc->from = sc->to = no;
			st->open = 1;
			return;
		}
		if (!st->open)
			return;
		sc = &st->sc[st->nsc - 1];
		sc->to = no;
		if (sc->msg == NULL && n > 2 && s[0] == 'E' && s[1] == ' ')
			ofl_fmt_test_util_set(&sc->msg, s + 1, n - 1);
		if (sc->file == NULL && ofl_fmt_test_util_loc(s, n, &path, &pn,
		    &ln) && path == s && pn + 1 < n && ln > 0) {
			ofl_fmt_test_util_set(&sc->file, path, pn);
			sc->line = ln;
		}
		return;
	}
	pytest_verbose(r, s, n, no);
}

/* Does section title t name node ID id?  "TestA.test_b" for a::TestA::test_b. */
static int
title_is(const char *t, const char *id)
{
	const char	*p = strstr(id, "::"), *q;

	if ((q = strstr(t, " of ")) != NULL && strncmp(t, "ERROR", 5) == 0)
		t = q + 4;
	else if (strncmp(t, "ERROR collecting ", 17) == 0)
		return strcmp(t + 17, id) == 0;
	if (p == NULL)
		return 0;
	for (p += 2; *p != '\0' && *t != '\0'; p++, t++) {
		if (p[0] == ':' && p[1] == ':' && *t == '.')
			p++;
		else if (*p != *t)
			return 0;
	}
	return *p == '\0' && *t == '\0';
}

static void
pytest_end(struct tres *r, void *v)
{
	struct pyst		*st = v;
	struct ofl_testcase	*tc;
	size_t			 i, j;

	if (r->n == 0 && r->score < 5)
		r->score = 0;
	for (i = 0; i < r->n; i++) {
		tc = &r->tc[i];
		for (j = 0; j < st->nsc; j++) {
			if (!title_is(st->sc[j].title, tc->name))
				continue;
			tc->from = st->sc[j].from;
			tc->to = st->sc[j].to;
			if (st->sc[j].msg != NULL) {
				free(tc->message);
				tc->message = NULL;
				ofl_fmt_test_util_set(&tc->message, st->sc[j].msg,
				    strlen(st->sc[j].msg));
			}
			if (st->sc[j].file != NULL) {
				ofl_fmt_test_util_set(&tc->file, st->sc[j].file,
				    strlen(st->sc[j].file));
				tc->line = st->sc[j].line;
			}
			break;
		}
	}
}

static void
pytest_free(void *v)
{
	struct pyst	*st = v;
	size_t		 i;

	for (i = 0; i < st->nsc; i++) {
		free(st->sc[i].title);
		free(st->sc[i].msg);
		free(st->sc[i].file);
	}
	free(st->sc);
}

static int
pytest_cmd(struct tcmd *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		if (ofl_fmt_test_util_base(c->w[i], "pytest") ||
		    ofl_fmt_test_util_base(c->w[i], "py.test")) {
			c->at = i + 1;
			return 1;
		}
		if (strcmp(c->w[i], "-m") == 0 && i + 1 < c->n &&
		    strcmp(c->w[i + 1], "pytest") == 0) {
			c->at = i + 2;
			return 1;
		}
	}
	return 0;
}

/* Options that take the next word; and those that choose tests. */
static const char *py_valued[] = {
	"-k", "-m", "-p", "-o", "-c", "-n", "-r", "-W", "--rootdir",
	"--deselect", "--ignore", "--ignore-glob", "--junitxml",
	"--junit-xml", "--maxfail", "--tb", "--basetemp", "--confcutdir",
	"--cov", "--cov-report", "--durations", "--log-level", NULL
};
static const char *py_select[] = {
	"-k", "-m", "--deselect", "--lf", "--last-failed", "--ff",
	"--failed-first", "--sw", "--stepwise", "--nf", "--new-first", NULL
};

static int
in_list(const char **l, const char *w)
{
	size_t	n;

	for (; *l != NULL; l++) {
		n = strlen(*l);
		if (strncmp(w, *l, n) == 0 && (w[n] == '\0' ||
		    (w[n] == '=' && w[1] == '-')))
			return 1;
	}
	return 0;
}

/*
 * The options of the original command (those that do not choose tests),
 * then each failing test's ID.
 */
static void
py_rerun(const struct tres *r, const struct tcmd *c, struct ofl_testrun *t,
    const char *dflt)
{
	struct ofl_testargv	*a;
	size_t			 i;
	int			 val;

	a = ofl_fmt_test_util_argv(t, c, dflt);
	for (i = c != NULL ? c->at : 0; c != NULL && i < c->n; i++) {
		if (c->w[i][0] != '-')
			continue;	/* a path or a test: replaced */
		val = in_list(py_valued, c->w[i]) &&
		    strchr(c->w[i], '=') == NULL && i + 1 < c->n;
		if (!in_list(py_select, c->w[i])) {
			ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
			if (val)
				ofl_fmt_test_util_arg(a, c->w[i + 1],
				    strlen(c->w[i + 1]));
		}
		if (val)
			i++;
	}
	for (i = 0; i < r->n; i++)
		ofl_fmt_test_util_arg(a, r->tc[i].name, strlen(r->tc[i].name));
}

static void
pytest_rerun(const struct tres *r, const struct tcmd *c,
    struct ofl_testrun *t)
{
	py_rerun(r, c, t, "python3 -m pytest");
}

/* Outside its parts, pytest_line reads banners and -v result lines. */
static int
pytest_want(const void *v, const char *s, size_t n)
{
	const struct pyst	*st = v;

	if (st->part != 0)
		return 1;
	if (n > 0 && s[0] == '=')
		return 1;
	n = ofl_fmt_test_util_trim(s, n);
	return n >= 10 && (s[n - 1] == ']' || s[n - 1] == 'D' ||
	    s[n - 1] == 'R');
}

const struct trunner ofl_fmt_test_py_pytest = {
	"pytest", sizeof(struct pyst), pytest_cmd, pytest_line, pytest_end,
	pytest_free, pytest_rerun, pytest_want
};

/* unittest. */

struct utst {
	int		 seen;		/* "Ran N tests" */
	int		 sep;		/* after a ===== line */
	struct ofl_testcase *cur;
	int64_t		 ran;
};

/* "FAIL: test_x (mod.Class.test_x)" or "(mod.Class)". */
static void
ut_header(struct tres *r, struct utst *st, const char *s, size_t n,
    uint64_t no, int error)
{
	const char	*m = s, *p, *q, *e = s + n;
	size_t		 mn;
	struct ofl_buf	 id;

	if ((p = memchr(s, ' ', n)) == NULL || p + 1 >= e || p[1] != '(' ||
	    e[-1] != ')')
		return;
	mn = (size_t)(p - m);
	p += 2;
	q = e - 1;
	if (q <= p || memchr(p, ' ', (size_t)(q - p)) != NULL ||
	    memchr(p, '.', (size_t)(q - p)) == NULL)
		return;
	ofl_buf_init(&id);
	ofl_buf_add(&id, p, (size_t)(q - p));
	if (!((size_t)(q - p) > mn && q[-(ptrdiff_t)mn - 1] == '.' &&
	    memcmp(q - mn, m, mn) == 0) && strncmp(m, "test", 4) == 0) {
		ofl_buf_addc(&id, '.');
		ofl_buf_add(&id, m, mn);
	}
	st->cur = ofl_fmt_test_util_add(r, id.data, id.len, NULL, 0, no, error);
	ofl_buf_free(&id);
}

/* The number after key= in "FAILED (failures=1, errors=2)", or 0. */
static int64_t
ut_num(const char *s, size_t n, const char *key)
{
	const char	*p;
	size_t		 l = strlen(key);
	int64_t		 v = 0;

	if ((p = memmem(s, n, key, l)) == NULL ||
	    (p > s && p[-1] != '(' && (p < s + 2 || p[-2] != ',')))
		return 0;
	for (p += l; p < s + n && isdigit((unsigned char)*p); p++)
		v = v * 10 + (*p - '0');
	return v;
}

static void
ut_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct utst	*st = v;
	const char	*path;
	size_t		 pn;
	uint64_t	 ln;
	int64_t		 k;

	if (n >= 20 && s[0] == '=' && s[n - 1] == '=' && s[10] == '=') {
		st->sep = 1;
		st->cur = NULL;
		return;
	}
	if (st->sep && STARTS(s, n, "FAIL: ")) {
		ut_header(r, st, s + 6, n - 6, no, 0);
		st->sep = 0;
		return;
	}
	if (st->sep && STARTS(s, n, "ERROR: ")) {
		ut_header(r, st, s + 7, n - 7, no, 1);
		st->sep = 0;
		return;
	}
	st->sep = 0;
	if (STARTS(s, n, "Ran ") && (k = ofl_fmt_test_util_count(s, n,
	    "test")) >= 0 && memmem(s, n, " in ", 4) != NULL) {
		st->ran = k;
		st->seen = 1;
		st->cur = NULL;
		return;
	}
	if (st->seen && (STARTS(s, n, "FAILED (") || STARTS(s, n, "OK"))) {
		r->score += 10;
		r->failed = ut_num(s, n, "failures=");
		r->errors = ut_num(s, n, "errors=");
		r->skipped = ut_num(s, n, "skipped=");
		r->passed = st->ran - r->failed - r->errors - r->skipped -
		    ut_num(s, n, "expected failures=") -
		    ut_num(s, n, "unexpected successes=");
		if (r->passed < 0)
			r->passed = 0;
		st->cur = NULL;
		return;
	}
	if (st->cur == NULL)
		return;
	st->cur->to = no;
	if (st->cur->file == NULL && ofl_fmt_test_util_loc(s, n, &path, &pn,
	    &ln) && memmem(s, n, "File \"", 6) != NULL) {
		ofl_fmt_test_util_set(&st->cur->file, path, pn);
		st->cur->line = ln;
	}
	if (n > 0 && s[0] != ' ' && s[0] != '-' && !STARTS(s, n,
	    "Traceback ")) {
		free(st->cur->message);
		st->cur->message = NULL;
		ofl_fmt_test_util_set(&st->cur->message, s, n);
	}
}

static void
ut_end(struct tres *r, void *v)
{
	(void)r;
	(void)v;
}

static int
ut_cmd(struct tcmd *c)
{
	size_t	i;

	for (i = 0; i + 1 < c->n; i++) {
		if (strcmp(c->w[i], "-m") == 0 &&
		    strcmp(c->w[i + 1], "unittest") == 0) {
			c->at = i + 2;
			return 1;
		}
	}
	return 0;
}

static void
ut_rerun(const struct tres *r, const struct tcmd *c, struct ofl_testrun *t)
{
	struct ofl_testargv	*a;
	size_t			 i;

	a = ofl_fmt_test_util_argv(t, c, "python3 -m unittest");
	for (i = c != NULL ? c->at : 0; c != NULL && i < c->n; i++)
		if (strcmp(c->w[i], "-v") == 0 || strcmp(c->w[i], "-q") == 0 ||
		    strcmp(c->w[i], "-b") == 0)
			ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
	for (i = 0; i < r->n; i++)
		ofl_fmt_test_util_arg(a, r->tc[i].name, strlen(r->tc[i].name));
}

/* Between reports, ut_line reads separators and its summary lines. */
static int
ut_want(const void *v, const char *s, size_t n)
{
	const struct utst	*st = v;

	if (st->sep || st->cur != NULL)
		return 1;
	return n > 0 && (s[0] == '=' || s[0] == 'R' || (st->seen &&
	    (s[0] == 'F' || s[0] == 'O')));
}

const struct trunner ofl_fmt_test_py_unittest = {
	"unittest", sizeof(struct utst), ut_cmd, ut_line, ut_end, NULL,
	ut_rerun, ut_want
};
