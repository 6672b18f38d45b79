/*
 * fmt-test-java.c: Maven Surefire's console output (the <<< FAILURE! and
 * <<< ERROR! lines, the Tests run: totals; a rerun with
 * -Dtest=Class#a+b) and JUnit XML reports, whoever wrote them (each
 * <testcase> with a <failure> or an <error>, its suite, name, message
 * and the first lines of its text; no rerun, as the report does not say
 * which runner made it).
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
#define TAG_MAX		8192	/* bytes of a start tag kept */

static int	attr(const char *, size_t, const char *, struct ofl_buf *);

/* Surefire */

struct sfst {
	struct ofl_testcase	*cur;
	int			 seen;
};

/* The number after key ("Failures: 1"), or -1. */
static int64_t
num_after(const char *s, size_t n, const char *key)
{
	const char	*p;
	size_t		 l = strlen(key);
	int64_t		 v = 0;

	if ((p = memmem(s, n, key, l)) == NULL)
		return -1;
	for (p += l; p < s + n && isdigit((unsigned char)*p); p++)
		v = v * 10 + (*p - '0');
	return v;
}

static void
add_num(int64_t *v, int64_t k)
{
	if (k >= 0)
		*v = (*v < 0 ? 0 : *v) + k;
}

static void
sf_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct sfst	*st = v;
	const char	*p, *q, *e, *path;
	size_t		 k, pn;
	uint64_t	 ln;
	int64_t		 run;
	int		 err;

	/* Maven's lines start with a level, or are a report's body. */
	if (st->cur == NULL && (n == 0 || (s[0] != '[' && s[0] != 'T' &&
	    s[0] != '-')))
		return;
	k = 0;
	if (STARTS(s, n, "[ERROR] ") || STARTS(s, n, "[INFO] "))
		k = s[1] == 'E' ? 8 : 7;
	if (memmem(s, n, "T E S T S", 9) != NULL) {
		r->score += 5;
		return;
	}
	if ((run = num_after(s, n, "Tests run: ")) >= 0) {
		if (memmem(s, n, "Time elapsed", 12) == NULL) {
			r->score += 5;
			add_num(&r->failed, num_after(s, n, "Failures: "));
			add_num(&r->errors, num_after(s, n, "Errors: "));
			add_num(&r->skipped, num_after(s, n, "Skipped: "));
			add_num(&r->passed, run - num_after(s, n,
			    "Failures: ") - num_after(s, n, "Errors: ") -
			    num_after(s, n, "Skipped: "));
		}
		st->cur = NULL;
		return;
	}
	if ((p = memmem(s, n, "<<< FAILURE!", 12)) != NULL)
		err = 0;
	else if ((p = memmem(s, n, "<<< ERROR!", 10)) != NULL)
		err = 1;
	else {
		if (st->cur == NULL)
			return;
		if (n == 0 || STARTS(s, n, "[")) {
			st->cur = NULL;
			return;
		}
		st->cur->to = no;
		if (st->cur->message == NULL)
			ofl_fmt_test_util_set(&st->cur->message, s, n);
		else if (st->cur->file == NULL &&
		    (q = memchr(s, '(', n)) != NULL &&
		    ofl_fmt_test_util_loc(q + 1, (size_t)(s + n - q - 1), &path,
		    &pn, &ln)) {
			ofl_fmt_test_util_set(&st->cur->file, path, pn);
			st->cur->line = ln;
		}
		return;
	}
	s += k;
	n -= k;
	e = s;
	while (e < s + n && *e != ' ' && *e != '(')
		e++;
	if (e < s + n && *e == '(') {
		/* 2.x: method(pkg.Class)  Time elapsed */
		q = memchr(e, ')', (size_t)(s + n - e));
		if (q == NULL)
			return;
		st->cur = ofl_fmt_test_util_add(r, s, (size_t)(e - s), e + 1,
		    (size_t)(q - e - 1), no, err);
	} else {
		/* 3.x: pkg.Class.method -- Time elapsed */
		for (q = e; q > s && q[-1] != '.'; q--)
			;
		if (q == s)
			return;
		st->cur = ofl_fmt_test_util_add(r, q, (size_t)(e - q), s,
		    (size_t)(q - s - 1), no, err);
	}
}

static void
sf_end(struct tres *r, void *v)
{
	(void)v;
	if (r->score < 5)
		r->score = 0;
}

static int
sf_cmd(struct tcmd *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		if (ofl_fmt_test_util_base(c->w[i], "mvn") ||
		    ofl_fmt_test_util_base(c->w[i], "mvnw")) {
			c->at = i + 1;
			return 1;
		}
	}
	return 0;
}

/* mvn OPTIONS GOALS -Dtest=Class#a+b,Other#c */
static void
sf_rerun(const struct tres *r, const struct tcmd *c, struct ofl_testrun *t)
{
	struct ofl_testargv	*a;
	struct ofl_buf		 b;
	const char		*cls, *g;
	size_t			 i, j;
	int			 goal = 0, done;

	a = ofl_fmt_test_util_argv(t, c, "mvn");
	for (i = c != NULL ? c->at : 0; c != NULL && i < c->n; i++) {
		if (strncmp(c->w[i], "-Dtest=", 7) == 0 ||
		    strncmp(c->w[i], "-Dit.test=", 10) == 0)
			continue;
		if (c->w[i][0] != '-')
			goal = 1;
		ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		if ((strcmp(c->w[i], "-pl") == 0 || strcmp(c->w[i], "-f") ==
		    0 || strcmp(c->w[i], "-P") == 0 || strcmp(c->w[i], "-s")
		    == 0) && i + 1 < c->n) {
			i++;
			ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		}
	}
	if (!goal)
		ofl_fmt_test_util_arg(a, "test", 4);
	ofl_buf_init(&b);
	ofl_buf_adds(&b, "-Dtest=");
	for (i = 0; i < r->n; i++) {
		g = r->tc[i].group != NULL ? r->tc[i].group : "";
		for (done = 0, j = 0; j < i; j++)
			if (strcmp(g, r->tc[j].group != NULL ?
			    r->tc[j].group : "") == 0)
				done = 1;
		if (done)
			continue;
		cls = strrchr(g, '.') != NULL ? strrchr(g, '.') + 1 : g;
		if (b.len > 7)
			ofl_buf_addc(&b, ',');
		ofl_buf_adds(&b, cls);
		for (j = i; j < r->n; j++) {
			if (strcmp(g, r->tc[j].group != NULL ?
			    r->tc[j].group : "") != 0)
				continue;
			ofl_buf_addc(&b, j == i ? '#' : '+');
			ofl_buf_adds(&b, r->tc[j].name);
		}
	}
	ofl_fmt_test_util_arg(a, b.data, b.len);
	ofl_fmt_test_util_arg(a, "-Dsurefire.failIfNoSpecifiedTests=false", 39);
	ofl_buf_free(&b);
}

/*
 * With no failure open, sf_line reads Maven's lines, which start with a
 * level ("[INFO] ", "[ERROR] "), and a report's "Tests run:" and
 * "-----" lines; a log's "[Sun Dec 04 ...]" or "[2024-05-01 ...]" is
 * none of them.
 */
static int
sf_want(const void *v, const char *s, size_t n)
{
	const struct sfst	*st = v;
	size_t			 k;

	if (st->cur != NULL)
		return 1;
	if (n == 0)
		return 0;
	if (s[0] == 'T' || s[0] == '-')
		return 1;
	if (s[0] != '[')
		return 0;
	for (k = 1; k < n && isupper((unsigned char)s[k]); k++)
		;
	return k > 1 && k < n && s[k] == ']';
}

const struct trunner ofl_fmt_test_java_surefire = {
	"maven surefire", sizeof(struct sfst), sf_cmd, sf_line, sf_end, NULL,
	sf_rerun, sf_want
};

/* JUnit XML */

struct jxst {
	struct ofl_buf		 tag;		/* a start tag being read */
	int			 intag;
	int			 incase;	/* inside a <testcase> */
	int			 failed;	/* it has a failure or error */
	int			 skipped;
	int			 body;		/* inside <failure>...</failure> */
	char			*cname;
	char			*cclass;
	char			*suite;
	uint64_t		 cfrom;
	struct ofl_testcase	*cur;
	int			 said;		/* suites gave their totals */
	int64_t			 tests, failures, errors, skips;
	int			 by;		/* the runner that wrote it */
	char			*cfile;		/* the testcase's file= */
	char			*tfile[OFL_TEST_KEEP];	/* file= of r->tc[i] */
};

/* Who wrote a report, as its content says. */
#define JX_PYTEST	1	/* <testsuite name="pytest" */
#define JX_SUREFIRE	2	/* Surefire's schema, its properties */
#define JX_JEST		3	/* <testsuites name="jest tests" */

/* A number attribute of a suite, added to *v. */
static int
attr_num(const char *t, size_t tn, const char *name, struct ofl_buf *b,
    int64_t *v)
{
	int64_t	k = 0;
	size_t	i;

	if (!attr(t, tn, name, b) || b->len == 0)
		return 0;
	for (i = 0; i < b->len; i++) {
		if (!isdigit((unsigned char)b->data[i]))
			return 0;
		k = k * 10 + (b->data[i] - '0');
	}
	*v += k;
	return 1;
}

/* An attribute's value, XML entities decoded, into out; 0 if absent. */
static int
attr(const char *t, size_t tn, const char *name, struct ofl_buf *out)
{
	const char	*p = t, *e = t + tn, *q;
	size_t		 l = strlen(name);
	char		 quote;

	ofl_buf_reset(out);
	for (; (p = memmem(p, (size_t)(e - p), name, l)) != NULL; p += l) {
		if (p == t || !isspace((unsigned char)p[-1]) ||
		    p + l + 1 >= e || p[l] != '=' ||
		    (p[l + 1] != '"' && p[l + 1] != '\''))
			continue;
		quote = p[l + 1];
		for (q = p + l + 2; q < e && *q != quote; q++) {
			if (*q != '&') {
				ofl_buf_addc(out, *q);
				continue;
			}
			if (STARTS(q, (size_t)(e - q), "&lt;"))
				ofl_buf_addc(out, '<'), q += 3;
			else if (STARTS(q, (size_t)(e - q), "&gt;"))
				ofl_buf_addc(out, '>'), q += 3;
			else if (STARTS(q, (size_t)(e - q), "&amp;"))
				ofl_buf_addc(out, '&'), q += 4;
			else if (STARTS(q, (size_t)(e - q), "&quot;"))
				ofl_buf_addc(out, '"'), q += 5;
			else if (STARTS(q, (size_t)(e - q), "&apos;"))
				ofl_buf_addc(out, '\''), q += 5;
			else if (STARTS(q, (size_t)(e - q), "&#10;"))
				ofl_buf_addc(out, ' '), q += 4;
			else
				ofl_buf_addc(out, '&');
		}
		return 1;
	}
	return 0;
}

static void
set_str(char **dst, struct ofl_buf *b)
{
	free(*dst);
	*dst = NULL;
	ofl_fmt_test_util_set(dst, b->data != NULL ? b->data : "", b->len);
}

static int
tag_is(const char *t, size_t tn, const char *name)
{
	size_t	l = strlen(name);

	return tn >= l && memcmp(t, name, l) == 0 && (tn == l ||
	    isspace((unsigned char)t[l]) || t[l] == '/');
}

/* A whole start or end tag (without its < and >) at line no. */
static void
jx_tag(struct tres *r, struct jxst *st, const char *t, size_t tn,
    uint64_t no)
{
	struct ofl_buf	v;
	int		selfc = tn > 0 && t[tn - 1] == '/';

	ofl_buf_init(&v);
	if (tag_is(t, tn, "testsuite")) {
		r->score = 10;
		if (memmem(t, tn, "surefire", 8) != NULL)
			st->by = JX_SUREFIRE;
		/* A suite's totals count what its testcases leave out. */
		if (attr_num(t, tn, "tests", &v, &st->tests)) {
			st->said = 1;
			attr_num(t, tn, "failures", &v, &st->failures);
			attr_num(t, tn, "errors", &v, &st->errors);
			attr_num(t, tn, "skipped", &v, &st->skips);
		}
		if (attr(t, tn, "name", &v)) {
			set_str(&st->suite, &v);
			if (strcmp(st->suite, "pytest") == 0)
				st->by = JX_PYTEST;
		}
	} else if (tag_is(t, tn, "testsuites")) {
		r->score = 10;
		if (attr(t, tn, "name", &v) && memmem(v.data, v.len,
		    "jest", 4) != NULL)
			st->by = JX_JEST;
	} else if (tag_is(t, tn, "property")) {
		if (memmem(t, tn, "surefire", 8) != NULL)
			st->by = JX_SUREFIRE;
	} else if (tag_is(t, tn, "testcase")) {
		st->incase = !selfc;
		st->failed = st->skipped = 0;
		st->cur = NULL;
		st->cfrom = no;
		if (attr(t, tn, "name", &v))
			set_str(&st->cname, &v);
		else
			set_str(&st->cname, &v);
		free(st->cfile);
		st->cfile = NULL;
		if (attr(t, tn, "file", &v) && v.len > 0)
			set_str(&st->cfile, &v);
		if (attr(t, tn, "classname", &v) && v.len > 0)
			set_str(&st->cclass, &v);
		else if (st->suite != NULL) {
			ofl_buf_reset(&v);
			ofl_buf_adds(&v, st->suite);
			set_str(&st->cclass, &v);
		} else
			set_str(&st->cclass, &v);
		if (selfc)
			add_num(&r->passed, 1);
	} else if (st->incase && (tag_is(t, tn, "failure") ||
	    tag_is(t, tn, "error"))) {
		/*
		 * Each testcase is a test of its own, whatever its name; a
		 * second failure of one is the same test.
		 */
		if (!st->failed)
			st->cur = ofl_fmt_test_util_take(r, st->cname,
			    strlen(st->cname), st->cclass, strlen(st->cclass),
			    st->cfrom, t[0] == 'e', 0);
		st->failed = 1;
		if (st->cur != NULL && st->cfile != NULL &&
		    st->tfile[st->cur - r->tc] == NULL)
			st->tfile[st->cur - r->tc] = ofl_xstrdup(st->cfile);
		if (st->cur != NULL) {
			if (attr(t, tn, "message", &v) && v.len > 0)
				set_str(&st->cur->message, &v);
			st->cur->to = no;
		}
		if (t[0] == 'e')
			add_num(&r->errors, 1);
		else
			add_num(&r->failed, 1);
		st->body = !selfc;
	} else if (st->incase && tag_is(t, tn, "skipped")) {
		st->skipped = 1;
		add_num(&r->skipped, 1);
	} else if (tn >= 9 && memcmp(t, "/testcase", 9) == 0) {
		if (st->incase && !st->failed && !st->skipped)
			add_num(&r->passed, 1);
		if (st->cur != NULL)
			st->cur->to = no;
		st->incase = 0;
		st->cur = NULL;
	} else if (STARTS(t, tn, "/failure") || STARTS(t, tn, "/error")) {
		st->body = 0;
		if (st->cur != NULL)
			st->cur->to = no;
	}
	ofl_buf_free(&v);
}

/* The text of a failure: its message if it had none, where it is. */
static void
jx_text(struct jxst *st, const char *s, size_t n, uint64_t no)
{
	const char	*path;
	size_t		 pn, k;
	uint64_t	 ln;

	if (st->cur == NULL)
		return;
	for (k = 0; k < n && isspace((unsigned char)s[k]); k++)
		;
	if (k == n)
		return;
	st->cur->to = no;
	if (st->cur->message == NULL)
		ofl_fmt_test_util_set(&st->cur->message, s + k, n - k);
	if (st->cur->file == NULL && ofl_fmt_test_util_loc(s + k, n - k, &path,
	    &pn, &ln)) {
		ofl_fmt_test_util_set(&st->cur->file, path, pn);
		st->cur->line = ln;
	}
}

static void
jx_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct jxst	*st = v;
	const char	*p = s, *e = s + n, *lt, *gt;

	while (p < e) {
		if (st->intag) {
			gt = memchr(p, '>', (size_t)(e - p));
			if (st->tag.len < TAG_MAX)
				ofl_buf_add(&st->tag, p, gt != NULL ?
				    (size_t)(gt - p) : (size_t)(e - p));
			if (gt == NULL) {
				ofl_buf_addc(&st->tag, ' ');
				return;
			}
			st->intag = 0;
			jx_tag(r, st, st->tag.data, st->tag.len, no);
			p = gt + 1;
			continue;
		}
		lt = memchr(p, '<', (size_t)(e - p));
		if (st->body)
			jx_text(st, p, lt != NULL ? (size_t)(lt - p) :
			    (size_t)(e - p), no);
		if (lt == NULL)
			return;
		if (lt + 1 < e && (lt[1] == '?' || lt[1] == '!')) {
			if (STARTS(lt, (size_t)(e - lt), "<![CDATA[")) {
				p = lt + 9;
				continue;
			}
			if ((gt = memchr(lt, '>', (size_t)(e - lt))) == NULL)
				return;
			p = gt + 1;
			continue;
		}
		ofl_buf_reset(&st->tag);
		st->intag = 1;
		p = lt + 1;
	}
}

static void
jx_end(struct tres *r, void *v)
{
	struct jxst	*st = v;

	if (r->score < 10) {
		r->score = 0;
		return;
	}
	if (st->said) {
		r->failed = st->failures;
		r->errors = st->errors;
		r->skipped = st->skips;
		r->passed = st->tests - st->failures - st->errors -
		    st->skips;
		if (r->passed < 0)
			r->passed = 0;
	}
}

static void
jx_free(void *v)
{
	struct jxst	*st = v;

	size_t		 i;

	ofl_buf_free(&st->tag);
	free(st->cname);
	free(st->cclass);
	free(st->suite);
	free(st->cfile);
	for (i = 0; i < OFL_TEST_KEEP; i++)
		free(st->tfile[i]);
}

static int
jx_cmd(struct tcmd *c)
{
	(void)c;
	return 0;
}

/*
 * pytest's node ID of a testcase: its file= when there is one, else its
 * classname's modules as a path ("tests.test_more" is
 * tests/test_more.py); the classname's parts that start with a capital
 * letter are classes ("TestWords"), then the name.
 */
static void
py_nodeid(const char *cls, const char *file, const char *name,
    struct ofl_buf *b)
{
	const char	*p, *q;
	int		 mod = 1;

	ofl_buf_reset(b);
	if (file != NULL)
		ofl_buf_adds(b, file);
	for (p = cls; p != NULL && *p != '\0'; p = q != NULL ? q + 1 : NULL) {
		q = strchr(p, '.');
		if (mod && isupper((unsigned char)*p)) {
			mod = 0;
			if (file == NULL)
				ofl_buf_adds(b, ".py");
		}
		if (mod && file != NULL)
			continue;
		if (!mod || p != cls)
			ofl_buf_adds(b, mod ? "/" : "::");
		ofl_buf_add(b, p, q != NULL ? (size_t)(q - p) : strlen(p));
	}
	if (mod && file == NULL)
		ofl_buf_adds(b, ".py");
	ofl_buf_adds(b, "::");
	ofl_buf_adds(b, name);
}

/* A jest test's file: file=, else the first frame in a test file. */
static const char *
jest_file(const struct ofl_testcase *tc, const char *file)
{
	const char	*f = tc->file, *b;

	if (file != NULL)
		return file;
	if (f == NULL)
		return NULL;
	b = strrchr(f, '/') != NULL ? strrchr(f, '/') + 1 : f;
	if (strstr(b, ".test.") != NULL || strstr(b, ".spec.") != NULL ||
	    strstr(f, "__tests__/") != NULL)
		return f;
	return NULL;
}

/* The command names a Surefire report: cat target/surefire-reports/... */
static int
cmd_surefire(const struct tcmd *c)
{
	size_t	i;

	for (i = 0; c != NULL && i < c->n; i++)
		if (strstr(c->w[i], "surefire-reports") != NULL ||
		    strstr(c->w[i], "failsafe-reports") != NULL)
			return 1;
	return 0;
}

/*
 * The rerun of a report, in the syntax of the runner that wrote it: the
 * runner's own rerun, given the failing tests as it names them, and
 * the captured command when that ran the runner.  No runner: none.
 */
static void
jx_rerun(const struct tres *r, const struct tcmd *c, struct ofl_testrun *t)
{
	const struct jxst	*st = r->st;
	const struct trunner	*run = NULL;
	struct tcmd		 cc;
	const struct tcmd	*use = NULL;
	struct tres		 x;
	struct ofl_buf		*ids;
	const char		*g;
	size_t			 i;
	int			 by = st->by;

	if (c != NULL) {
		cc = *c;
		if (ofl_fmt_test_py_pytest.cmd(&cc))
			by = JX_PYTEST, use = &cc;
		else if (ofl_fmt_test_java_surefire.cmd(&cc))
			by = JX_SUREFIRE, use = &cc;
		else if (ofl_fmt_test_js_jest.cmd(&cc))
			by = JX_JEST, use = &cc;
		else if (by == 0 && cmd_surefire(c))
			by = JX_SUREFIRE;
	}
	if (by == JX_PYTEST)
		run = &ofl_fmt_test_py_pytest;
	else if (by == JX_SUREFIRE)
		run = &ofl_fmt_test_java_surefire;
	else if (by == JX_JEST)
		run = &ofl_fmt_test_js_jest;
	else
		return;
	memset(&x, 0, sizeof x);
	x.tc = ofl_xcalloc(r->n, sizeof *x.tc);
	ids = ofl_xcalloc(r->n, sizeof *ids);
	x.n = x.cap = r->n;
	for (i = 0; i < r->n; i++) {
		x.tc[i] = r->tc[i];
		ofl_buf_init(&ids[i]);
		if (by == JX_PYTEST) {
			py_nodeid(r->tc[i].group, st->tfile[i], r->tc[i].name,
			    &ids[i]);
			x.tc[i].name = ofl_buf_str(&ids[i]);
		} else if (by == JX_JEST) {
			/* jest-junit: "{classname} {title}", trimmed. */
			g = jest_file(&r->tc[i], st->tfile[i]);
			if (g == NULL)
				break;
			x.tc[i].group = (char *)g;
			for (g = r->tc[i].name; *g == ' '; g++)
				;
			ofl_buf_adds(&ids[i], g);
			x.tc[i].name = ofl_buf_str(&ids[i]);
			x.tc[i].error = 0;
		}
	}
	if (i == r->n)
		run->rerun(&x, use, t);
	for (i = 0; i < r->n; i++)
		ofl_buf_free(&ids[i]);
	free(ids);
	free(x.tc);
}

const struct trunner ofl_fmt_test_java_junit = {
	"junit xml", sizeof(struct jxst), jx_cmd, jx_line, jx_end, jx_free,
	jx_rerun, NULL
};
