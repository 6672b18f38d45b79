/*
 * fmt-test-util.c: what the test runners (fmt-test-*.c) and their
 * dispatcher (fmt-test.c) share: failing tests kept once and capped,
 * counts read from summary lines, commands split into words and rerun
 * commands built from them, source locations found in a line.
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

#define NAME_MAX_LEN	1024		/* bytes of a test's name */

/*
 * A command as a shell would split it, for the simple commands ofl-capture
 * records: words, quotes and backslashes.  0 for anything a shell would
 * do more with (operators, substitutions, globs): no rerun is built from
 * those words.
 */
int
ofl_fmt_test_util_split(const char *s, struct tcmd *c)
{
	struct ofl_buf	w;
	int		inword = 0, ok = 1;

	memset(c, 0, sizeof *c);
	ofl_buf_init(&w);
	for (;; s++) {
		if (*s == '\0' || *s == ' ' || *s == '\t' || *s == '\n') {
			if (inword) {
				c->w = ofl_xrealloc(c->w, (c->n + 2) *
				    sizeof *c->w);
				c->w[c->n++] = ofl_xstrdup(ofl_buf_str(&w));
				c->w[c->n] = NULL;
				ofl_buf_reset(&w);
				inword = 0;
			}
			if (*s == '\0')
				break;
			continue;
		}
		inword = 1;
		if (*s == '\'') {
			for (s++; *s != '\0' && *s != '\''; s++)
				ofl_buf_addc(&w, *s);
			if (*s == '\0') {
				ok = 0;
				break;
			}
		} else if (*s == '"') {
			for (s++; *s != '\0' && *s != '"'; s++) {
				if (*s == '$' || *s == '`') {
					ok = 0;
					break;
				}
				if (*s == '\\' && strchr("\"\\$`", s[1]) != NULL)
					s++;
				ofl_buf_addc(&w, *s);
			}
			if (*s != '"') {
				ok = 0;
				break;
			}
		} else if (*s == '\\' && s[1] != '\0') {
			ofl_buf_addc(&w, *++s);
		} else if (strchr(";&|<>()$`*?[]{}~#!", *s) != NULL) {
			ok = 0;
			break;
		} else
			ofl_buf_addc(&w, *s);
	}
	ofl_buf_free(&w);
	return ok && c->n > 0;
}

void
ofl_fmt_test_util_free(struct tcmd *c)
{
	size_t	i;

	for (i = 0; i < c->n; i++)
		free(c->w[i]);
	free(c->w);
	memset(c, 0, sizeof *c);
}

void
ofl_fmt_test_util_cases_free(struct ofl_testcase *tc, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(tc[i].name);
		free(tc[i].group);
		free(tc[i].file);
		free(tc[i].message);
	}
	free(tc);
}

struct ofl_testcase *
ofl_fmt_test_util_find(struct tres *r, const char *name, size_t n)
{
	size_t	i;

	for (i = r->n; i > 0; i--)
		if (strlen(r->tc[i - 1].name) == n &&
		    memcmp(r->tc[i - 1].name, name, n) == 0)
			return &r->tc[i - 1];
	return NULL;
}

/*
 * A failing test (or an erroring one), once: the same name in the same
 * group is the test seen again.  NULL when it is over the cap.
 */
struct ofl_testcase *
ofl_fmt_test_util_add(struct tres *r, const char *name, size_t n,
    const char *group, size_t gn, uint64_t no, int error)
{
	return ofl_fmt_test_util_take(r, name, n, group, gn, no, error, 1);
}

/*
 * The same, the test seen again looked for only if same: a report's
 * element is a test of its own whatever its name (jest-junit names two
 * tests of two files alike).
 */
struct ofl_testcase *
ofl_fmt_test_util_take(struct tres *r, const char *name, size_t n,
    const char *group, size_t gn, uint64_t no, int error, int same)
{
	struct ofl_testcase	*tc;
	size_t			 i;

	if (n == 0 || n > NAME_MAX_LEN)
		return NULL;
	for (i = same ? r->n : 0; i > 0; i--) {
		tc = &r->tc[i - 1];
		if (strlen(tc->name) == n && memcmp(tc->name, name, n) == 0 &&
		    (tc->group == NULL ? gn == 0 : (strlen(tc->group) == gn &&
		    memcmp(tc->group, group, gn) == 0)))
			return tc;
	}
	if (r->n == OFL_TEST_KEEP) {
		r->more++;
		return NULL;
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->tc = ofl_xrealloc(r->tc, r->cap * sizeof *r->tc);
	}
	tc = &r->tc[r->n++];
	memset(tc, 0, sizeof *tc);
	tc->name = ofl_xstrndup(name, n);
	if (gn > 0)
		tc->group = ofl_xstrndup(group, gn);
	tc->from = tc->to = no;
	tc->error = error;
	return tc;
}

/* Set a string member once. */
void
ofl_fmt_test_util_set(char **dst, const char *s, size_t n)
{
	if (*dst != NULL)
		return;
	n = ofl_fmt_test_util_trim(s, n);
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (n > 300) {
		/* Never inside a UTF-8 sequence. */
		n = 300;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	*dst = ofl_xstrndup(s, n);
}

/* The length without trailing blanks. */
size_t
ofl_fmt_test_util_trim(const char *s, size_t n)
{
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
	    s[n - 1] == '\r'))
		n--;
	return n;
}

/* The number just before word in s ("3 passed"), or -1. */
int64_t
ofl_fmt_test_util_count(const char *s, size_t n, const char *word)
{
	const char	*p, *e = s + n;
	size_t		 l = strlen(word);
	int64_t		 v;
	size_t		 k;

	for (p = s; (p = memmem(p, (size_t)(e - p), word, l)) != NULL;
	    p += l) {
		if (p + l < e && isalpha((unsigned char)p[l]) &&
		    !(p[l] == 's' && (p + l + 1 == e ||
		    !isalpha((unsigned char)p[l + 1]))))
			continue;
		k = (size_t)(p - s);
		if (k >= 1 && s[k - 1] == ' ')
			k--;
		if (k == 0 || !isdigit((unsigned char)s[k - 1]))
			continue;
		while (k > 0 && isdigit((unsigned char)s[k - 1]))
			k--;
		v = 0;
		for (; isdigit((unsigned char)s[k]) && v < INT64_MAX / 10;
		    k++)
			v = v * 10 + (s[k] - '0');
		return v;
	}
	return -1;
}

struct ofl_testargv *
ofl_fmt_test_util_argv(struct ofl_testrun *t, const struct tcmd *c,
    const char *dflt)
{
	struct ofl_testargv	*a;
	struct tcmd		 d;
	size_t			 i;

	t->rerun = ofl_xrealloc(t->rerun, (t->nrerun + 1) * sizeof *t->rerun);
	a = &t->rerun[t->nrerun++];
	memset(a, 0, sizeof *a);
	if (c != NULL) {
		for (i = 0; i < c->at; i++)
			ofl_fmt_test_util_arg(a, c->w[i], strlen(c->w[i]));
		return a;
	}
	if (ofl_fmt_test_util_split(dflt, &d))
		for (i = 0; i < d.n; i++)
			ofl_fmt_test_util_arg(a, d.w[i], strlen(d.w[i]));
	ofl_fmt_test_util_free(&d);
	return a;
}

void
ofl_fmt_test_util_arg(struct ofl_testargv *a, const char *s, size_t n)
{
	a->v = ofl_xrealloc(a->v, (a->n + 2) * sizeof *a->v);
	a->v[a->n++] = ofl_xstrndup(s, n);
	a->v[a->n] = NULL;
}

/* 1 if the last path element of word w is name. */
int
ofl_fmt_test_util_base(const char *w, const char *name)
{
	const char	*b = strrchr(w, '/');

	return strcmp(b != NULL ? b + 1 : w, name) == 0;
}

/*
 * A source location in a line: "path:12", "path:12:5", "File "path",
 * line 12" or "(path:12)".  The path has a dot and no blank.
 */
int
ofl_fmt_test_util_loc(const char *s, size_t n, const char **path, size_t *pn,
    uint64_t *line)
{
	const char	*p, *e = s + n, *q;
	uint64_t	 v;

	if ((p = memmem(s, n, "File \"", 6)) != NULL) {
		p += 6;
		if ((q = memchr(p, '"', (size_t)(e - p))) != NULL &&
		    e - q > 7 && memcmp(q, "\", line ", 8) == 0 &&
		    isdigit((unsigned char)q[8])) {
			*path = p;
			*pn = (size_t)(q - p);
			for (v = 0, q += 8; q < e &&
			    isdigit((unsigned char)*q); q++)
				v = v * 10 + (uint64_t)(*q - '0');
			*line = v;
			return 1;
		}
	}
	for (p = s; p < e; p++) {
		if (*p != ':' || p + 1 >= e || !isdigit((unsigned char)p[1]))
			continue;
		for (q = p; q > s && q[-1] != ' ' && q[-1] != '\t' &&
		    q[-1] != '(' && q[-1] != '"' && q[-1] != '\'' &&
		    q[-1] != '['; q--)
			;
		if (q == p || memchr(q, '.', (size_t)(p - q)) == NULL ||
		    memchr(q, ':', (size_t)(p - q)) != NULL)
			continue;
		*path = q;
		*pn = (size_t)(p - q);
		for (v = 0, p++; p < e && isdigit((unsigned char)*p); p++)
			v = v * 10 + (uint64_t)(*p - '0');
		*line = v;
		return 1;
	}
	return 0;
}
