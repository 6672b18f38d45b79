/*
 * fmt-test-misc.c: the runners of compiled projects and of TAP.  cargo
 * test (test NAME ... FAILED, a rerun with --exact), prove and raw TAP
 * (the failing scripts of the Test Summary Report; prove reruns them),
 * automake's make check (FAIL: lines and the # TOTAL: summary; a rerun
 * with TESTS=), ctest (the FAILED list; a rerun with an anchored -R) and
 * make itself (the failing target and the first compiler error; a rerun
 * of make TARGET).
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

static size_t
word_len(const char *s, size_t n)
{
	size_t	e = 0;

	while (e < n && s[e] != ' ' && s[e] != '\t')
		e++;
	return e;
}

static int
in_list(const char **l, const char *w)
{
	for (; *l != NULL; l++)
		if (strcmp(*l, w) == 0)
			return 1;
	return 0;
}

static void
add_num(int64_t *v, int64_t k)
{
	if (k < 0)
		return;
	*v = (*v < 0 ? 0 : *v) + k;
}

static void
set_loc(struct ofl_testcase *tc, const char *s, size_t n)
{
	const char	*path;
	size_t		 pn;
	uint64_t	 ln;

	if (tc->file == NULL && ofl_fmt_test_util_loc(s, n, &path, &pn, &ln)) {
		ofl_fmt_test_util_set(&tc->file, path, pn);
		tc->line = ln;
	}
}

/* cargo test */

struct cgst {
	char			*bin;		/* "src/lib.rs" of Running */
	struct ofl_testcase	*cur;		/* ---- NAME stdout ---- */
	int			 panicked;
};

static void
cargo_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct cgst	*st = v;
	const char	*p;
	size_t		 k, e;

	k = 0;
	while (k < n && s[k] == ' ')
		k++;
	if (STARTS(s + k, n - k, "Running ") && k > 0) {
		p = s + k + 8;
		e = word_len(p, (size_t)(s + n - p));
		if (STARTS(p, e, "unittests") && p + e < s + n) {
			p += e + 1;
			e = word_len(p, (size_t)(s + n - p));
		}
		free(st->bin);
		st->bin = NULL;
		ofl_fmt_test_util_set(&st->bin, p, e);
		return;
	}
	if (STARTS(s, n, "running ") && ofl_fmt_test_util_count(s, n,
	    "test") >= 0) {
		r->score += 2;
		return;
	}
	if (STARTS(s, n, "test ") && n > 16 &&
	    memcmp(s + n - 11, " ... FAILED", 11) == 0) {
		ofl_fmt_test_util_add(r, s + 5, n - 16, st->bin, st->bin ?
		    strlen(st->bin) : 0, no, 0);
		return;
	}
	if (STARTS(s, n, "test result: ")) {
		r->score += 5;
		add_num(&r->passed, ofl_fmt_test_util_count(s, n, "passed"));
		add_num(&r->failed, ofl_fmt_test_util_count(s, n, "failed"));
		add_num(&r->skipped, ofl_fmt_test_util_count(s, n, "ignored"));
		st->cur = NULL;
		return;
	}
	if (STARTS(s, n, "---- ") && n > 17 &&
	    memcmp(s + n - 12, " stdout ----", 12) == 0) {
		st->cur = ofl_fmt_test_util_find(r, s + 5, n - 17);
		st->panicked = 0;
		if (st->cur != NULL)
			st->cur->from = st->cur->to = no;
		return;
	}
	if (STARTS(s, n, "failures:")) {
		st->cur = NULL;
		return;
	}
	if (st->cur == NULL)
		return;
	st->cur->to = no;
	if ((p = memmem(s, n, "' panicked at ", 14)) != NULL ||
	    (p = memmem(s, n, ") panicked at ", 14)) != NULL) {
		p += 14;
		if (*p == '\'') {
			/* Before Rust 1.73: panicked at 'msg', file:1:2 */
			ofl_fmt_test_util_set(&st->cur->message, p + 1,
			    (size_t)(s + n - p - 1));
		} else
			st->panicked = 1;
		set_loc(st->cur, p, (size_t)(s + n - p));
		return;
	}
	if (st->panicked) {
		ofl_fmt_test_util_set(&st->cur->message, s, n);
		st->panicked = 0;
	}
}

static void
cargo_free(void *v)
{
	struct cgst	*st = v;

	free(st->bin);
}

static void
cargo_end(struct tres *r, void *v)
{
	(void)v;
	if (r->score < 5)
		r->score = 0;
}

static int
cargo_cmd(struct tcmd *c)
{
	size_t	i;

	for (i = 0; i + 1 < c->n; i++) {
		if (!ofl_fmt_test_util_base(c->w[i], "cargo"))
			continue;
		if (c->w[i + 1][0] == '+' && i + 2 < c->n)
			i++;
		if (strcmp(c->w[i + 1], "test") != 0 &&
		    strcmp(c->w[i + 1], "t") != 0)
			return 0;
		c->at = i + 2;
		return 1;
	}
	return 0;
}

static const char *cargo_valued[] = {
	"-p", "--package", "-F", "--features", "--target", "--manifest-path",
	"-j", "--jobs", "--profile", "--test", "--bench", "--example",
	"--bin", "--target-dir", "--color", "--message-format", "-Z",
	"--exclude", "--config", NULL
};
static const char *libtest_valued[] = {
	"--test-threads", "--skip", "--format", "--color", "-Z", NULL
};

/* cargo test OPTIONS -- LIBTEST-OPTIONS --exact NAME... */
static void
cargo_rerun(const struct tres *r, const struct tcmd *c, struct ofl_testrun *t)
{
	struct ofl_testargv	*a;
	size_t			 i = c != NULL ? c->at : 0, j;
	int			 multi = 0;

	a = ofl_fmt_test_util_argv(t, c, "cargo test");
	for (; c != NULL && i < c->n && strcmp(c->w[i], "--") != 0; i++) {
		if (c->w[i][0] != '-')
			continue;
		ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		if (in_list(cargo_valued, c->w[i]) && i + 1 < c->n) {
			i++;
			ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		}
	}
	for (j = 1; j < r->n; j++)
		if ((r->tc[j].group == NULL) != (r->tc[0].group == NULL) ||
		    (r->tc[0].group != NULL &&
		    strcmp(r->tc[j].group, r->tc[0].group) != 0))
			multi = 1;
	if (multi)
		ofl_fmt_test_util_arg(a, "--no-fail-fast", 14);
	ofl_fmt_test_util_arg(a, "--", 2);
	for (i++; c != NULL && i < c->n; i++) {
		if (c->w[i][0] != '-' || strcmp(c->w[i], "--exact") == 0)
			continue;
		if (strcmp(c->w[i], "--skip") == 0 ||
		    strcmp(c->w[i], "--ignored") == 0 ||
		    strcmp(c->w[i], "--include-ignored") == 0) {
			i += c->w[i][2] == 's';
			continue;
		}
		ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		if (in_list(libtest_valued, c->w[i]) && i + 1 < c->n) {
			i++;
			ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		}
	}
	ofl_fmt_test_util_arg(a, "--exact", 7);
	for (j = 0; j < r->n; j++)
		ofl_fmt_test_util_arg(a, r->tc[j].name, strlen(r->tc[j].name));
}

/* With no failure's output open, cargo_line reads its own lines. */
static int
cargo_want(const void *v, const char *s, size_t n)
{
	const struct cgst	*st = v;

	if (st->cur != NULL)
		return 1;
	return n > 0 && (s[0] == ' ' || s[0] == 'r' || s[0] == 't' ||
	    s[0] == '-' || s[0] == 'f');
}

const struct trunner ofl_fmt_test_misc_cargo = {
	"cargo test", sizeof(struct cgst), cargo_cmd, cargo_line, cargo_end,
	cargo_free, cargo_rerun, cargo_want
};

/* prove, and raw TAP */

struct tapst {
	int			 report;	/* in the Test Summary Report */
	int			 prove;
	char			*file;		/* "t/x.t .. " being run */
	uint64_t		 filefrom;
	uint64_t		 fileto;
	char			*filemsg;
	char			*fileloc;
	struct tres		 raw;		/* not ok lines */
};

/* "t/x.t .. ok", "t/x.t ..... " : the script's name. */
static size_t
prove_file(const char *s, size_t n)
{
	size_t	e = word_len(s, n);

	if (e == 0 || e + 4 > n || s[e] != ' ' || s[e + 1] != '.' ||
	    s[e + 2] != '.' || memchr(s, '.', e) == NULL)
		return 0;
	return e;
}

static void
tap_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct tapst		*st = v;
	struct ofl_testcase	*tc;
	size_t			 e, k;

	if (STARTS(s, n, "Test Summary Report")) {
		st->report = 1;
		st->prove = 1;
		r->score += 10;
		return;
	}
	if (STARTS(s, n, "Files=") && memmem(s, n, "Tests=", 6) != NULL) {
		st->report = 0;
		st->prove = 1;
		r->score += 5;
		return;
	}
	if (st->report) {
		if ((e = word_len(s, n)) > 0 && e + 8 < n &&
		    memcmp(s + e, " (Wstat:", 8) == 0) {
			tc = ofl_fmt_test_util_add(r, s, e, NULL, 0, no, 0);
			if (tc != NULL && st->file != NULL &&
			    strcmp(st->file, tc->name) == 0)
				tc->from = st->filefrom;
		} else if (n > 2 && s[0] == ' ' && r->n > 0) {
			tc = &r->tc[r->n - 1];
			if (STARTS(s + 2, n - 2, "Parse errors"))
				tc->error = 1;
			if (tc->message == NULL)
				ofl_fmt_test_util_set(&tc->message, s, n);
		}
		return;
	}
	if ((e = prove_file(s, n)) > 0) {
		k = e;
		while (k < n && (s[k] == '.' || s[k] == ' '))
			k++;
		if (STARTS(s + k, n - k, "ok"))
			add_num(&r->passed, 1);
		else if (STARTS(s + k, n - k, "skipped"))
			add_num(&r->skipped, 1);
		free(st->file);
		free(st->filemsg);
		st->file = st->filemsg = NULL;
		ofl_fmt_test_util_set(&st->file, s, e);
		st->filefrom = st->fileto = no;
		return;
	}
	if (STARTS(s, n, "not ok") && memmem(s, n, "# TODO", 6) == NULL &&
	    memmem(s, n, "# SKIP", 6) == NULL && st->file == NULL) {
		k = 6;
		while (k < n && (s[k] == ' ' || isdigit((unsigned char)s[k]) ||
		    s[k] == '-'))
			k++;
		ofl_fmt_test_util_add(&st->raw, s + k, n - k, NULL, 0, no, 0);
	}
}

static void
tap_end(struct tres *r, void *v)
{
	struct tapst	*st = v;
	size_t		 i;

	if (!st->prove && st->raw.n > 0 && r->n == 0) {
		/* Raw TAP: the failing points; no script to rerun. */
		r->tc = st->raw.tc;
		r->n = st->raw.n;
		r->cap = st->raw.cap;
		r->more = st->raw.more;
		st->raw.tc = NULL;
		st->raw.n = 0;
		r->score = 1;
	} else if (st->prove) {
		r->failed = (int64_t)(r->n + r->more);
		for (i = 0; i < r->n; i++)
			if (r->passed > 0 && r->tc[i].from != r->tc[i].to)
				r->passed--;
	}
}

static void
tap_free(void *v)
{
	struct tapst	*st = v;

	free(st->file);
	free(st->filemsg);
	free(st->fileloc);
	ofl_fmt_test_util_cases_free(st->raw.tc, st->raw.n);
}

static int
tap_cmd(struct tcmd *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		if (ofl_fmt_test_util_base(c->w[i], "prove")) {
			c->at = i + 1;
			return 1;
		}
	}
	return 0;
}

static const char *prove_valued[] = {
	"-I", "-M", "-P", "-e", "--exec", "-j", "--jobs", "--ext", "--rc",
	"--harness", "--formatter", "--source", "-a", "--archive", NULL
};

static void
tap_rerun(const struct tres *r, const struct tcmd *c, struct ofl_testrun *t)
{
	struct ofl_testargv	*a;
	size_t			 i;

	if (r->score < 5)
		return;		/* raw TAP: nothing names a script */
	a = ofl_fmt_test_util_argv(t, c, "prove");
	for (i = c != NULL ? c->at : 0; c != NULL && i < c->n; i++) {
		if (c->w[i][0] != '-' || strcmp(c->w[i], "-r") == 0 ||
		    strcmp(c->w[i], "--recurse") == 0)
			continue;
		ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		if (in_list(prove_valued, c->w[i]) && i + 1 < c->n) {
			i++;
			ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		}
	}
	for (i = 0; i < r->n; i++)
		ofl_fmt_test_util_arg(a, r->tc[i].name, strlen(r->tc[i].name));
}

/* Outside prove's report: its headers, a script's line, not ok. */
static int
tap_want(const void *v, const char *s, size_t n)
{
	const struct tapst	*st = v;

	if (st->report)
		return 1;
	if (n > 0 && (s[0] == 'T' || s[0] == 'F' || s[0] == 'n'))
		return 1;
	return prove_file(s, n) > 0;
}

const struct trunner ofl_fmt_test_misc_tap = {
	"tap", sizeof(struct tapst), tap_cmd, tap_line, tap_end, tap_free,
	tap_rerun, tap_want
};

/* automake's make check */

static void
am_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct ofl_testcase	*tc;
	size_t			 k, e;
	int			 err;

	(void)v;
	if (STARTS(s, n, "FAIL: "))
		k = 6, err = 0;
	else if (STARTS(s, n, "ERROR: "))
		k = 7, err = 1;
	else if (STARTS(s, n, "XPASS: "))
		k = 7, err = 0;
	else
		return;
	e = word_len(s + k, n - k);
	if (e == 0 || memchr(s + k, '(', e) != NULL)
		return;
	tc = ofl_fmt_test_util_add(r, s + k, e, NULL, 0, no, err);
	if (tc != NULL && tc->message == NULL && k + e < n)
		ofl_fmt_test_util_set(&tc->message, s + k + e, n - k - e);
}

/* "# FAIL:  1": the number after the colon. */
static int64_t
am_num(const char *s, size_t n)
{
	const char	*p = memchr(s, ':', n);
	int64_t		 v = 0;

	if (p == NULL)
		return -1;
	for (p++; p < s + n && *p == ' '; p++)
		;
	for (; p < s + n && isdigit((unsigned char)*p); p++)
		v = v * 10 + (*p - '0');
	return v;
}

struct amst {
	int	dummy;
};

static void
am_line2(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	if (n > 2 && s[0] == '#' && s[1] == ' ') {
		if (STARTS(s, n, "# PASS:"))
			r->passed = am_num(s, n);
		else if (STARTS(s, n, "# SKIP:"))
			r->skipped = am_num(s, n);
		else if (STARTS(s, n, "# FAIL:"))
			r->failed = am_num(s, n);
		else if (STARTS(s, n, "# ERROR:"))
			r->errors = am_num(s, n);
		else if (STARTS(s, n, "# TOTAL:"))
			r->score += 10;
		return;
	}
	am_line(r, v, s, n, no);
}

static void
am_end(struct tres *r, void *v)
{
	(void)v;
	if (r->score < 10)
		r->score = 0;
}

static int
am_cmd(struct tcmd *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		if (ofl_fmt_test_util_base(c->w[i], "make") ||
		    ofl_fmt_test_util_base(c->w[i], "gmake")) {
			c->at = i + 1;
			for (i++; i < c->n; i++)
				if (strcmp(c->w[i], "check") == 0 ||
				    strcmp(c->w[i], "distcheck") == 0)
					return 1;
			return 0;
		}
	}
	return 0;
}

/* make OPTIONS check TESTS='a b' */
static void
am_rerun(const struct tres *r, const struct tcmd *c, struct ofl_testrun *t)
{
	struct ofl_testargv	*a;
	struct ofl_buf		 tests;
	size_t			 i;

	a = ofl_fmt_test_util_argv(t, c, "make");
	for (i = c != NULL ? c->at : 0; c != NULL && i < c->n; i++) {
		if (strncmp(c->w[i], "TESTS=", 6) == 0 ||
		    strcmp(c->w[i], "check") == 0 ||
		    strcmp(c->w[i], "distcheck") == 0)
			continue;
		if (c->w[i][0] != '-' && strchr(c->w[i], '=') == NULL &&
		    (i == c->at || (strcmp(c->w[i - 1], "-C") != 0 &&
		    strcmp(c->w[i - 1], "-f") != 0)))
			continue;
		ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
	}
	ofl_fmt_test_util_arg(a, "check", 5);
	ofl_buf_init(&tests);
	ofl_buf_adds(&tests, "TESTS=");
	for (i = 0; i < r->n; i++) {
		if (i > 0)
			ofl_buf_addc(&tests, ' ');
		ofl_buf_adds(&tests, r->tc[i].name);
	}
	ofl_fmt_test_util_arg(a, tests.data, tests.len);
	ofl_buf_free(&tests);
}

/* "# PASS:  3" and the like, "FAIL: x", "ERROR: x", "XPASS: x". */
static int
am_want(const void *v, const char *s, size_t n)
{
	(void)v;
	return n > 0 && (s[0] == '#' || s[0] == 'F' || s[0] == 'E' ||
	    s[0] == 'X');
}

const struct trunner ofl_fmt_test_misc_automake = {
	"make check", sizeof(struct amst), am_cmd, am_line2, am_end, NULL,
	am_rerun, am_want
};

/* ctest */

struct ctst {
	int	part;		/* 1: FAILED list, 2: did not run */
	int64_t	total;
};

static void
ctest_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct ctst		*st = v;
	struct ofl_testcase	*tc;
	const char		*p, *q;
	size_t			 k;

	if (n > 0 && isdigit((unsigned char)s[0]) &&
	    (p = memmem(s, n, "% tests passed, ", 16)) != NULL &&
	    (q = memmem(s, n, " out of ", 8)) != NULL) {
		r->score += 10;
		r->failed = ofl_fmt_test_util_count(s, n, "tests failed");
		for (st->total = 0, q += 8; q < s + n &&
		    isdigit((unsigned char)*q); q++)
			st->total = st->total * 10 + (*q - '0');
		return;
	}
	if (STARTS(s, n, "The following tests FAILED:")) {
		st->part = 1;
		return;
	}
	if (STARTS(s, n, "The following tests did not run:")) {
		st->part = 2;
		return;
	}
	if (st->part != 0 && n > 0 && s[0] == '\t') {
		/* "\t  2 - name (Failed)" */
		for (k = 0; k < n && (s[k] == '\t' || s[k] == ' ' ||
		    isdigit((unsigned char)s[k])); k++)
			;
		if (!STARTS(s + k, n - k, "- ") ||
		    (p = memchr(s + k, '(', n - k)) == NULL || p < s + k + 3)
			return;
		if (st->part == 2) {
			add_num(&r->skipped, 1);
			return;
		}
		tc = ofl_fmt_test_util_add(r, s + k + 2, (size_t)(p - s - k - 3),
		    NULL, 0, no, !STARTS(p, (size_t)(s + n - p), "(Failed)"));
		(void)tc;
		return;
	}
	st->part = 0;
}

static void
ctest_end(struct tres *r, void *v)
{
	struct ctst		*st = v;

	if (r->score < 10) {
		r->score = 0;
		return;
	}
	r->passed = st->total - (r->failed < 0 ? 0 : r->failed) -
	    (r->skipped < 0 ? 0 : r->skipped);
	if (r->passed < 0)
		r->passed = 0;
}

/* Per test "N/M Test #N: name ....***Failed": its line, its status. */
struct ctst2 {
	struct ctst	 c;
	struct tres	 lines;
};

static void
ctest_line2(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct ctst2		*st = v;
	struct ofl_testcase	*tc;
	const char		*p, *q;
	size_t			 k;

	for (k = 0; k < n && s[k] == ' '; k++)
		;
	if (k < n && isdigit((unsigned char)s[k]) &&
	    (p = memmem(s, n, " Test #", 7)) != NULL &&
	    (q = memmem(s, n, "***", 3)) != NULL && q > p &&
	    (p = memchr(p, ':', (size_t)(q - p))) != NULL) {
		p += 2;
		tc = ofl_fmt_test_util_add(&st->lines, p, word_len(p,
		    (size_t)(q - p)), NULL, 0, no, 0);
		if (tc != NULL)
			ofl_fmt_test_util_set(&tc->message, q + 3,
			    (size_t)(s + n - q - 3));
		return;
	}
	ctest_line(r, &st->c, s, n, no);
}

static void
ctest_end2(struct tres *r, void *v)
{
	struct ctst2		*st = v;
	struct ofl_testcase	*tc, *l;
	size_t			 i;

	ctest_end(r, &st->c);
	for (i = 0; i < r->n; i++) {
		tc = &r->tc[i];
		if ((l = ofl_fmt_test_util_find(&st->lines, tc->name,
		    strlen(tc->name))) == NULL)
			continue;
		tc->from = tc->to = l->from;
		ofl_fmt_test_util_set(&tc->message, l->message,
		    strlen(l->message));
	}
}

static void
ctest_free(void *v)
{
	struct ctst2	*st = v;

	ofl_fmt_test_util_cases_free(st->lines.tc, st->lines.n);
}

static int
ctest_cmd(struct tcmd *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		if (ofl_fmt_test_util_base(c->w[i], "ctest")) {
			c->at = i + 1;
			return 1;
		}
	}
	return 0;
}

static const char *ctest_valued[] = {
	"--test-dir", "-C", "--build-config", "-j", "--parallel",
	"--timeout", "--repeat", "-O", "--output-log", "--output-junit",
	"--stop-time", "--resource-spec-file", NULL
};
static const char *ctest_select[] = {
	"-R", "--tests-regex", "-E", "--exclude-regex", "-L", "--label-regex",
	"-LE", "--label-exclude", "-I", "--tests-information", "-U",
	"--union", "--rerun-failed", "-FA", "-FS", "-FC", NULL
};

static void
ctest_rerun(const struct tres *r, const struct tcmd *c,
    struct ofl_testrun *t)
{
	struct ofl_testargv	*a;
	struct ofl_buf		 re;
	size_t			 i;
	const char		*p;

	a = ofl_fmt_test_util_argv(t, c, "ctest");
	for (i = c != NULL ? c->at : 0; c != NULL && i < c->n; i++) {
		if (c->w[i][0] != '-')
			continue;
		if (in_list(ctest_select, c->w[i])) {
			if (strcmp(c->w[i], "-U") != 0 &&
			    strcmp(c->w[i], "--union") != 0 &&
			    strcmp(c->w[i], "--rerun-failed") != 0)
				i++;
			continue;
		}
		ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		if (in_list(ctest_valued, c->w[i]) && i + 1 < c->n) {
			i++;
			ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		}
	}
	ofl_buf_init(&re);
	for (i = 0; i < r->n; i++) {
		ofl_buf_adds(&re, i == 0 ? "^(" : "|");
		for (p = r->tc[i].name; *p != '\0'; p++) {
			if (strchr("\\.+*?()|[]{}^$", *p) != NULL)
				ofl_buf_addc(&re, '\\');
			ofl_buf_addc(&re, *p);
		}
	}
	ofl_buf_adds(&re, ")$");
	ofl_fmt_test_util_arg(a, "-R", 2);
	ofl_fmt_test_util_arg(a, re.data, re.len);
	ofl_buf_free(&re);
}

/*
 * Outside its lists, ctest's lines are "The following tests ...",
 * "  3/10 Test #3: ..." and "90% tests passed, ...": "N/M " or "N%"
 * first, which a log's timestamps ("17/06/09 20:10:40") are not.
 */
static int
ctest_want(const void *v, const char *s, size_t n)
{
	const struct ctst2	*st = v;
	size_t			 k;

	if (st->c.part != 0)
		return 1;
	if (n > 0 && s[0] == 'T')
		return 1;
	for (k = 0; k < n && s[k] == ' '; k++)
		;
	if (k == n || !isdigit((unsigned char)s[k]))
		return 0;
	while (k < n && isdigit((unsigned char)s[k]))
		k++;
	if (k < n && s[k] == '%')
		return 1;
	if (k >= n || s[k] != '/')
		return 0;
	for (k++; k < n && isdigit((unsigned char)s[k]); k++)
		;
	return k < n && s[k] == ' ';
}

const struct trunner ofl_fmt_test_misc_ctest = {
	"ctest", sizeof(struct ctst2), ctest_cmd, ctest_line2, ctest_end2,
	ctest_free, ctest_rerun, ctest_want
};

/* make */

struct mkst {
	char		 dirs[8][1024];	/* make[N]: Entering directory */
	char		*msg;		/* the first error */
	char		*file;
	uint64_t	 line;
	uint64_t	 errno_;	/* its line in the log */
	int		 done;
};

/* "make: *** [Makefile:8: bad.o] Error 1": 1 and the target. */
static int
make_fail(const char *s, size_t n, int *level, const char **tg, size_t *tn)
{
	const char	*p, *q, *e = s + n;

	*level = 0;
	if (!STARTS(s, n, "make") && !STARTS(s, n, "gmake"))
		return 0;
	p = s + (s[0] == 'g' ? 5 : 4);
	if (p < e && *p == '[') {
		for (p++; p < e && isdigit((unsigned char)*p); p++)
			*level = *level * 10 + (*p - '0');
		if (p >= e || *p != ']')
			return 0;
		p++;
	}
	if (e - p < 6 || memcmp(p, ": *** ", 6) != 0)
		return 0;
	p += 6;
	if (p < e && *p == '[') {
		if ((q = memchr(p, ']', (size_t)(e - p))) == NULL)
			return 0;
		*tg = p + 1;
		/* "[Makefile:8: bad.o]" */
		for (p = q; p > *tg && p[-1] != ' '; p--)
			;
		*tg = p;
		*tn = (size_t)(q - p);
		return *tn > 0;
	}
	if (STARTS(p, (size_t)(e - p), "No rule to make target '") ||
	    STARTS(p, (size_t)(e - p), "No rule to make target `")) {
		p += 24;
		if ((q = memchr(p, '\'', (size_t)(e - p))) == NULL)
			return 0;
		*tg = p;
		*tn = (size_t)(q - p);
		return *tn > 0;
	}
	return 0;
}

static void
make_line(struct tres *r, void *v, const char *s, size_t n, uint64_t no)
{
	struct mkst		*st = v;
	struct ofl_testcase	*tc;
	const char		*tg, *p, *path;
	size_t			 tn, pn;
	uint64_t		 ln;
	int			 level;

	if (STARTS(s, n, "make[") && (p = memmem(s, n,
	    "]: Entering directory '", 23)) != NULL) {
		for (level = 0, tg = s + 5; tg < s + n &&
		    isdigit((unsigned char)*tg) && level < 100; tg++)
			level = level * 10 + (*tg - '0');
		if (level >= 0 && level < 8 && n - (size_t)(p + 23 - s) <
		    sizeof st->dirs[0]) {
			tn = n - (size_t)(p + 23 - s) - 1;
			memcpy(st->dirs[level], p + 23, tn);
			st->dirs[level][tn] = '\0';
		}
		return;
	}
	if (st->msg == NULL && (p = memmem(s, n, "error", 5)) != NULL &&
	    ofl_fmt_test_util_loc(s, n, &path, &pn, &ln) && path == s &&
	    p > path && (p[5] == ':' || p[5] == '['))
	{
		ofl_fmt_test_util_set(&st->msg, s, n);
		ofl_fmt_test_util_set(&st->file, path, pn);
		st->line = ln;
		st->errno_ = no;
		return;
	}
	if (st->done || !make_fail(s, n, &level, &tg, &tn))
		return;
	st->done = 1;
	r->score = 1;
	p = level > 0 && level < 8 ? st->dirs[level] : "";
	tc = ofl_fmt_test_util_add(r, tg, tn, p, strlen(p), no, 1);
	if (tc == NULL)
		return;
	if (st->msg != NULL) {
		ofl_fmt_test_util_set(&tc->message, st->msg, strlen(st->msg));
		ofl_fmt_test_util_set(&tc->file, st->file, strlen(st->file));
		tc->line = st->line;
		tc->from = st->errno_;
	} else
		ofl_fmt_test_util_set(&tc->message, s, n);
}

static void
make_end(struct tres *r, void *v)
{
	(void)v;
	r->failed = (int64_t)r->n;
}

static void
make_free(void *v)
{
	struct mkst	*st = v;

	free(st->msg);
	free(st->file);
}

static int
make_cmd(struct tcmd *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		if (ofl_fmt_test_util_base(c->w[i], "make") ||
		    ofl_fmt_test_util_base(c->w[i], "gmake")) {
			c->at = i + 1;
			return 1;
		}
	}
	return 0;
}

/* make OPTIONS [-C DIR] TARGET */
static void
make_rerun(const struct tres *r, const struct tcmd *c,
    struct ofl_testrun *t)
{
	struct ofl_testargv	*a;
	size_t			 i;

	a = ofl_fmt_test_util_argv(t, c, "make");
	for (i = c != NULL ? c->at : 0; c != NULL && i < c->n; i++) {
		if (c->w[i][0] != '-' && strchr(c->w[i], '=') == NULL)
			continue;	/* a target */
		if (r->tc[0].group != NULL && strcmp(c->w[i], "-C") == 0) {
			i++;
			continue;
		}
		ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		if ((strcmp(c->w[i], "-C") == 0 || strcmp(c->w[i], "-f") ==
		    0 || (strcmp(c->w[i], "-j") == 0 && i + 1 < c->n &&
		    isdigit((unsigned char)c->w[i + 1][0]))) && i + 1 < c->n) {
			i++;
			ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		}
	}
	if (r->tc[0].group != NULL) {
		ofl_fmt_test_util_arg(a, "-C", 2);
		ofl_fmt_test_util_arg(a, r->tc[0].group, strlen(r->tc[0].group));
	}
	ofl_fmt_test_util_arg(a, r->tc[0].name, strlen(r->tc[0].name));
}

/*
 * make's own lines, or a compiler's first error, which make_line takes
 * only when the line starts with its location: "path.c:12:...", the
 * line's first colon after a dot and before any blank.
 */
static int
make_want(const void *v, const char *s, size_t n)
{
	const struct mkst	*st = v;
	size_t			 k;
	int			 dot = 0;

	if (n > 0 && (s[0] == 'm' || s[0] == 'g'))
		return 1;
	if (st->msg != NULL)
		return 0;
	for (k = 0; k < n && s[k] != ':' && s[k] != ' ' && s[k] != '\t' &&
	    s[k] != '(' && s[k] != '"' && s[k] != '\'' && s[k] != '['; k++)
		dot |= s[k] == '.';
	if (!dot || k + 1 >= n || s[k] != ':' ||
	    !isdigit((unsigned char)s[k + 1]))
		return 0;
	return memmem(s, n, "error", 5) != NULL;
}

const struct trunner ofl_fmt_test_misc_make = {
	"make", sizeof(struct mkst), make_cmd, make_line, make_end, make_free,
	make_rerun, make_want
};
