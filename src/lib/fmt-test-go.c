/*
 * fmt-test-go.c: go test, as text (with or without -v) and as -json
 * events.  The failing top-level tests of each package, the packages
 * that did not build, and a rerun per package:
 * go test -run '^(TestA|TestB)$' PKG, the names anchored and escaped.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fmt-test.h"
#include "banned.h"

#define STARTS(s, n, p)	OFL_TEST_STARTS(s, n, p)
#define RUN_MAX		256	/* tests running at once, tracked */

/* A test seen running: where its output starts, its first message. */
struct run {
	char		*name;		/* "pkg\0Test" as a key */
	size_t		 len;
	uint64_t	 from;
	char		*msg;
	uint64_t	 msgno;
};

struct gost {
	struct run	 runs[RUN_MAX];
	size_t		 nrun;
	size_t		 pend;		/* failures not yet given a package */
	int		 verbose;	/* --- PASS: lines seen */
	struct ofl_testcase *cur;	/* text: the failure being read */
};

static struct run *
run_find(struct gost *st, const char *k, size_t kn, int make)
{
	size_t	i;

	for (i = 0; i < st->nrun; i++)
		if (st->runs[i].len == kn &&
		    memcmp(st->runs[i].name, k, kn) == 0)
			return &st->runs[i];
	if (!make)
		return NULL;
	if (st->nrun == RUN_MAX) {
		free(st->runs[0].name);
		free(st->runs[0].msg);
		memmove(st->runs, st->runs + 1, (RUN_MAX - 1) *
		    sizeof st->runs[0]);
		st->nrun--;
	}
	memset(&st->runs[st->nrun], 0, sizeof st->runs[0]);
	st->runs[st->nrun].name = ofl_xmalloc(kn + 1);
	memcpy(st->runs[st->nrun].name, k, kn);
	st->runs[st->nrun].name[kn] = '\0';
	st->runs[st->nrun].len = kn;
	return &st->runs[st->nrun++];
}

static void
run_drop(struct gost *st, struct run *r)
{
	size_t	i = (size_t)(r - st->runs);

	free(r->name);
	free(r->msg);
	memmove(r, r + 1, (st->nrun - i - 1) * sizeof *r);
	st->nrun--;
}

static void
go_free(void *v)
{
	struct gost	*st = v;

	while (st->nrun > 0)
		run_drop(st, &st->runs[st->nrun - 1]);
}

/* The test's message and where it is: "    x_test.go:21: text". */
static void
set_msg(struct ofl_testcase *tc, const char *s, size_t n)
{
	const char	*path;
	size_t		 pn;
	uint64_t	 ln;

	ofl_fmt_test_util_set(&tc->message, s, n);
	if (tc->file == NULL && ofl_fmt_test_util_loc(s, n, &path, &pn, &ln)) {
		ofl_fmt_test_util_set(&tc->file, path, pn);
		tc->line = ln;
	}
}

/* "--- FAIL: Name (0.00s)": the name. */
static size_t
result_name(const char *s, size_t n, size_t at, const char **name)
{
	size_t	e;

	*name = s + at;
	for (e = at; e < n && s[e] != ' '; e++)
		;
	return e - at;
}

static void
text_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct gost		*st = v;
	struct ofl_testcase	*tc;
	struct run		*ru;
	const char		*name, *pkg;
	size_t			 nn, pn, i;

	if (STARTS(s, n, "=== RUN   ")) {
		st->cur = NULL;
		nn = result_name(s, n, 10, &name);
		if (memchr(name, '/', nn) == NULL &&
		    (ru = run_find(st, name, nn, 1)) != NULL)
			ru->from = no;
		return;
	}
	if (STARTS(s, n, "--- FAIL: ")) {
		r->score += 1;
		nn = result_name(s, n, 10, &name);
		tc = ofl_fmt_test_util_add(r, name, nn, NULL, 0, no, 0);
		st->cur = tc;
		if (tc == NULL)
			return;
		if (tc->group == NULL && tc->from == no)
			st->pend++;
		if ((ru = run_find(st, name, nn, 0)) != NULL) {
			tc->from = ru->from;
			if (ru->msg != NULL)
				set_msg(tc, ru->msg, strlen(ru->msg));
			run_drop(st, ru);
		}
		return;
	}
	if (STARTS(s, n, "--- PASS: ") || STARTS(s, n, "--- SKIP: ")) {
		st->verbose = 1;
		st->cur = NULL;
		nn = result_name(s, n, 10, &name);
		if ((ru = run_find(st, name, nn, 0)) != NULL)
			run_drop(st, ru);
		if (s[4] == 'P')
			r->passed = (r->passed < 0 ? 0 : r->passed) + 1;
		else
			r->skipped = (r->skipped < 0 ? 0 : r->skipped) + 1;
		return;
	}
	if (STARTS(s, n, "FAIL\t") || STARTS(s, n, "ok  \t")) {
		r->score += 3;
		st->cur = NULL;
		pkg = s + 5;
		for (pn = 0; pkg + pn < s + n && pkg[pn] != '\t' &&
		    pkg[pn] != ' '; pn++)
			;
		if (s[0] == 'F' && st->pend == 0 && memmem(s, n,
		    "failed]", 7) != NULL) {
			ofl_fmt_test_util_add(r, pkg, pn, pkg, pn, no, 1);
			return;
		}
		for (i = r->n - st->pend; s[0] == 'F' && i < r->n; i++)
			if (r->tc[i].group == NULL)
				ofl_fmt_test_util_set(&r->tc[i].group, pkg, pn);
		st->pend = 0;
		go_free(st);
		return;
	}
	if (n > 4 && (s[0] == ' ' || s[0] == '\t')) {
		if (st->cur != NULL) {
			st->cur->to = no;
			for (nn = 0; nn < n && (s[nn] == ' ' ||
			    s[nn] == '\t'); nn++)
				;
			if (st->cur->message == NULL &&
			    !STARTS(s + nn, n - nn, "--- "))
				set_msg(st->cur, s, n);
			return;
		}
		/* -v: a message before its --- FAIL: line. */
		if (st->nrun > 0 && st->runs[st->nrun - 1].msg == NULL &&
		    memmem(s, n, ".go:", 4) != NULL) {
			ru = &st->runs[st->nrun - 1];
			ofl_fmt_test_util_set(&ru->msg, s, n);
			ru->msgno = no;
		}
		return;
	}
	st->cur = NULL;
}

static void
go_end(struct tres *r, void *v)
{
	struct gost	*st = v;

	(void)st;
	if (r->score < 3)
		r->score = 0;
	r->failed = (int64_t)(r->n + r->more);
	if (!st->verbose)
		r->passed = r->skipped = -1;
}

static int
go_cmd_any(struct tcmd *c, int json)
{
	size_t	i, j;

	for (i = 0; i + 1 < c->n; i++) {
		if (!ofl_fmt_test_util_base(c->w[i], "go") ||
		    strcmp(c->w[i + 1], "test") != 0)
			continue;
		for (j = i + 2; j < c->n; j++)
			if (strcmp(c->w[j], "-json") == 0 ||
			    strcmp(c->w[j], "--json") == 0)
				break;
		if ((j < c->n) != json)
			return 0;
		c->at = i + 2;
		return 1;
	}
	return 0;
}

static int
go_cmd(struct tcmd *c)
{
	return go_cmd_any(c, 0);
}

static const char *go_valued[] = {
	"-run", "-skip", "-count", "-timeout", "-tags", "-p", "-parallel",
	"-coverprofile", "-bench", "-cpu", "-o", "-exec", "-covermode",
	"-coverpkg", "-ldflags", "-gcflags", "-mod", "-shuffle", NULL
};

static int
go_valued_opt(const char *w)
{
	size_t	i;

	if (strchr(w, '=') != NULL)
		return 0;
	for (i = 0; go_valued[i] != NULL; i++)
		if (strcmp(w, go_valued[i]) == 0 ||
		    (w[0] == '-' && w[1] == '-' &&
		    strcmp(w + 1, go_valued[i]) == 0))
			return 1;
	return 0;
}

static int
go_select_opt(const char *w)
{
	const char	*p = w[1] == '-' ? w + 1 : w;

	return strncmp(p, "-run", 4) == 0 && (p[4] == '\0' || p[4] == '=');
}

/* A test name as a regular expression that matches only it. */
static void
re_quote(struct ofl_buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (strchr("\\.+*?()|[]{}^$", *s) != NULL)
			ofl_buf_addc(b, '\\');
		ofl_buf_addc(b, *s);
	}
}

/* One go test per package, with the flags of the original. */
static void
go_rerun(const struct tres *r, const struct tcmd *c, struct ofl_testrun *t)
{
	struct ofl_testargv	*a;
	struct ofl_buf		 re;
	size_t			 i, j, k;
	int			 done, first;

	ofl_buf_init(&re);
	for (i = 0; i < r->n; i++) {
		const char *g = r->tc[i].group;

		for (done = 0, j = 0; j < i; j++)
			if ((g == NULL) == (r->tc[j].group == NULL) &&
			    (g == NULL || strcmp(g, r->tc[j].group) == 0))
				done = 1;
		if (done)
			continue;
		a = ofl_fmt_test_util_argv(t, c, "go test");
		for (k = c != NULL ? c->at : 0; c != NULL && k < c->n; k++) {
			if (c->w[k][0] != '-')
				continue;
			if (!go_select_opt(c->w[k])) {
				ofl_fmt_test_util_arg(a, c->w[k], strlen(c->w[k]));
				if (go_valued_opt(c->w[k]) && k + 1 < c->n)
					ofl_fmt_test_util_arg(a, c->w[k + 1],
					    strlen(c->w[k + 1]));
			}
			if (go_valued_opt(c->w[k]))
				k++;
		}
		ofl_buf_reset(&re);
		for (first = 1, j = i; j < r->n; j++) {
			const char *h = r->tc[j].group;

			if ((g == NULL) != (h == NULL) || (g != NULL &&
			    strcmp(g, h) != 0))
				continue;
			if (g != NULL && strcmp(r->tc[j].name, g) == 0)
				continue;	/* the package did not build */
			ofl_buf_adds(&re, first ? "^(" : "|");
			re_quote(&re, r->tc[j].name);
			first = 0;
		}
		if (!first) {
			ofl_buf_adds(&re, ")$");
			ofl_fmt_test_util_arg(a, "-run", 4);
			ofl_fmt_test_util_arg(a, re.data, re.len);
		}
		if (g != NULL)
			ofl_fmt_test_util_arg(a, g, strlen(g));
	}
	ofl_buf_free(&re);
}

/* Idle, text_line acts only on its result lines. */
static int
text_want(const void *v, const char *s, size_t n)
{
	const struct gost	*st = v;

	if (st->cur != NULL || (st->nrun > 0 && n > 4 && (s[0] == ' ' ||
	    s[0] == '\t')))
		return 1;
	return n > 0 && (s[0] == '=' || s[0] == '-' || s[0] == 'F' ||
	    s[0] == 'o');
}

const struct trunner ofl_fmt_test_go_text = {
	"go test", sizeof(struct gost), go_cmd, text_line, go_end, go_free,
	go_rerun, text_want
};

/* go test -json */

/* A string field of an event, unescaped into b; 0 if absent. */
static int
field(const char *s, size_t n, const char *key, struct ofl_buf *b)
{
	char		 pat[32];
	const char	*p, *e = s + n;
	int		 k;

	ofl_buf_reset(b);
	k = snprintf(pat, sizeof pat, "\"%s\":\"", key);
	if ((p = memmem(s, n, pat, (size_t)k)) == NULL)
		return 0;
	for (p += k; p < e && *p != '"'; p++) {
		if (*p == '\\' && p + 1 < e) {
			p++;
			if (*p == 'n' || *p == 'r')
				continue;
			ofl_buf_addc(b, *p == 't' ? '\t' : *p);
			continue;
		}
		ofl_buf_addc(b, *p);
	}
	return p < e;
}

struct gjst {
	struct gost	 g;
	struct ofl_buf	 act, pkg, test, out, key;
};

static void
gj_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct gjst		*st = v;
	struct ofl_testcase	*tc;
	struct run		*ru;
	const char		*a;
	size_t			 i;
	int			 found;

	if (n < 12 || s[0] != '{' || !field(s, n, "Action", &st->act))
		return;
	if (r->score == 0)
		r->score = 10;
	a = ofl_buf_str(&st->act);
	if (!field(s, n, "Package", &st->pkg))
		field(s, n, "ImportPath", &st->pkg);
	field(s, n, "Test", &st->test);
	ofl_buf_reset(&st->key);
	ofl_buf_add(&st->key, st->pkg.data, st->pkg.len);
	ofl_buf_addc(&st->key, '\n');
	ofl_buf_add(&st->key, st->test.data, st->test.len);
	if (st->test.len > 0 && memchr(st->test.data, '/',
	    st->test.len) != NULL)
		return;		/* a subtest: its parent is what fails */
	if (strcmp(a, "run") == 0 && st->test.len > 0) {
		if ((ru = run_find(&st->g, st->key.data, st->key.len, 1)))
			ru->from = no;
	} else if (strcmp(a, "output") == 0 && st->test.len > 0) {
		ru = run_find(&st->g, st->key.data, st->key.len, 0);
		if (ru != NULL && ru->msg == NULL &&
		    field(s, n, "Output", &st->out) &&
		    memmem(st->out.data, st->out.len, ".go:", 4) != NULL) {
			ofl_fmt_test_util_set(&ru->msg, st->out.data, st->out.len);
			ru->msgno = no;
		}
	} else if (strcmp(a, "pass") == 0 || strcmp(a, "skip") == 0) {
		if (st->test.len == 0)
			return;
		if ((ru = run_find(&st->g, st->key.data, st->key.len, 0)))
			run_drop(&st->g, ru);
		if (a[1] == 'a')
			r->passed = (r->passed < 0 ? 0 : r->passed) + 1;
		else
			r->skipped = (r->skipped < 0 ? 0 : r->skipped) + 1;
	} else if (strcmp(a, "fail") == 0 && st->test.len > 0) {
		tc = ofl_fmt_test_util_add(r, st->test.data, st->test.len,
		    st->pkg.data, st->pkg.len, no, 0);
		ru = run_find(&st->g, st->key.data, st->key.len, 0);
		if (tc != NULL && ru != NULL) {
			tc->from = ru->from != 0 ? ru->from : no;
			if (ru->msg != NULL)
				set_msg(tc, ru->msg, strlen(ru->msg));
		}
		if (ru != NULL)
			run_drop(&st->g, ru);
	} else if (strcmp(a, "fail") == 0 || strcmp(a, "build-fail") == 0) {
		/* A package that failed with no failing test: a build. */
		for (found = 0, i = 0; i < r->n; i++)
			if (r->tc[i].group != NULL && st->pkg.len ==
			    strlen(r->tc[i].group) && memcmp(r->tc[i].group,
			    st->pkg.data, st->pkg.len) == 0)
				found = 1;
		if (!found && st->pkg.len > 0)
			ofl_fmt_test_util_add(r, st->pkg.data, st->pkg.len,
			    st->pkg.data, st->pkg.len, no, 1);
	}
}

static void
gj_end(struct tres *r, void *v)
{
	(void)v;
	if (r->score > 0) {
		r->failed = (int64_t)(r->n + r->more);
		if (r->passed < 0)
			r->passed = 0;
		if (r->skipped < 0)
			r->skipped = 0;
	}
}

static void
gj_free(void *v)
{
	struct gjst	*st = v;

	go_free(&st->g);
	ofl_buf_free(&st->act);
	ofl_buf_free(&st->pkg);
	ofl_buf_free(&st->test);
	ofl_buf_free(&st->out);
	ofl_buf_free(&st->key);
}

static int
gj_cmd(struct tcmd *c)
{
	return go_cmd_any(c, 1);
}

static void
gj_line0(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	gj_line(r, v, s, n, no);
}

/* An event is a JSON object on its line. */
static int
gj_want(const void *v, const char *s, size_t n)
{
	(void)v;
	return n >= 12 && s[0] == '{';
}

const struct trunner ofl_fmt_test_go_json = {
	"go test -json", sizeof(struct gjst), gj_cmd, gj_line0, gj_end,
	gj_free, go_rerun, gj_want
};
