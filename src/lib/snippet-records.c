/*
 * snippet-records.c: the lines a line of a record brings when it is
 * shown: the failure a Python traceback or a test's report ends with,
 * the message a log line is a field of, the error a compiler's note goes
 * on.  snippet-lines.c asks; these read only the hit's lines.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "search.h"
#include "banned.h"

#define TB_SCAN		64		/* lines of a traceback looked through */
#define DETAIL_SCAN	160		/* bytes of a line looked through for
					   its field name ("DETAIL:") */
#define DETAIL_UP	12		/* lines looked up for its error */

static int	 traceback(const struct line *);
static int	 indented(const struct line *);
static size_t	 lead(const struct line *);
static int	 pytest_rule(const struct line *);
static int	 pytest_raised(const struct line *);
static size_t	 pytest_end(const struct line *, size_t, size_t);
static int	 detail(const struct line *);
static int	 diagnostic(const struct line *);
static size_t	 gotest_end(const struct line *, size_t, size_t);
static int	 jest_head(const struct line *);
static int	 jest_received(const struct line *);
static size_t	 jest_end(const struct line *, size_t, size_t);

/* 1 if p[0..n) holds a letter or a digit. */
int
ofl_snippet_has_alnum(const char *p, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (isalnum((unsigned char)p[i]))
			return 1;
	return 0;
}

/* A line that says nothing: blank, or a bracket or a comma alone. */
int
ofl_snippet_records_blank(const struct line *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		if (!ofl_in_set(l->s[i], " \t{}[](),;"))
			return 0;
	return 1;
}

/* A Python traceback's first line. */
static int
traceback(const struct line *l)
{
	static const char tb[] = "Traceback (most recent call last):";

	return l->n >= sizeof tb - 1 && memcmp(l->s, tb, sizeof tb - 1) == 0;
}

static int
indented(const struct line *l)
{
	return l->n > 0 && (l->s[0] == ' ' || l->s[0] == '\t');
}

/* The spaces line l starts with. */
static size_t
lead(const struct line *l)
{
	size_t	k;

	for (k = 0; k < l->n && l->s[k] == ' '; k++)
		;
	return k;
}

/* A line of pytest's: a failure's head ("____ test_x ____") or a rule. */
static int
pytest_rule(const struct line *l)
{
	return l->n >= 7 && (memcmp(l->s, "___", 3) == 0 ||
	    memcmp(l->s, "=====", 5) == 0) && l->s[l->n - 1] == l->s[0] &&
	    memchr(l->s, ' ', l->n) != NULL;
}

/* A line of what a failing test raised: "E       AssertionError: ...". */
static int
pytest_raised(const struct line *l)
{
	return l->n > 2 && l->s[0] == 'E' && l->s[1] == ' ';
}

/*
 * In pytest's report of a failure (its head, the test's source, the
 * frames below it), the first line of what was raised ("E   ValueError:
 * ..."), which says what failed: from line c down to the next failure's
 * head.  nl if c is not in such a report or there is no such line.
 */
static size_t
pytest_end(const struct line *l, size_t nl, size_t c)
{
	size_t	i;

	if (pytest_raised(&l[c]))
		return nl;
	if (!pytest_rule(&l[c]) || l[c].s[0] != '_') {
		/* In a failure's report: a rule above, its head. */
		for (i = c; i > 0 && c - i < TB_SCAN; i--)
			if (pytest_rule(&l[i - 1]))
				break;
		if (i == 0 || c - i >= TB_SCAN || l[i - 1].s[0] != '_')
			return nl;
	}
	for (i = c + 1; i < nl && i <= c + TB_SCAN; i++) {
		if (pytest_rule(&l[i]))
			return nl;
		if (pytest_raised(&l[i]))
			return i;
	}
	return nl;
}

/*
 * For go test's verdict on a test ("--- FAIL: TestWrite (0.00s)"), the
 * first line the test logged ("    writer_test.go:65: got ..."): up from
 * line c through the test's indented output to its "=== RUN" or
 * "=== CONT" line.  nl if c is no such verdict or the test logged none.
 */
static size_t
gotest_end(const struct line *l, size_t nl, size_t c)
{
	static const char fail[] = "--- FAIL: ";
	size_t	i, k, first = nl;

	k = lead(&l[c]);
	if (l[c].n - k < sizeof fail - 1 || memcmp(l[c].s + k, fail,
	    sizeof fail - 1) != 0)
		return nl;
	for (i = c; i > 0 && c - i < TB_SCAN; i--) {
		if (!indented(&l[i - 1]))
			break;
		first = i - 1;
	}
	if (first == nl || i == 0 || l[i - 1].n < 8 ||
	    (memcmp(l[i - 1].s, "=== RUN ", 8) != 0 &&
	    memcmp(l[i - 1].s, "=== CONT", 8) != 0))
		return nl;
	return first;
}

/* 1 if line l heads a failure in a jest or vitest report: "  ● A › b". */
static int
jest_head(const struct line *l)
{
	static const char dot[] = "\xe2\x97\x8f ";	/* U+25CF and a space */
	size_t	k = lead(l);

	return l->n - k > sizeof dot - 1 && memcmp(l->s + k, dot,
	    sizeof dot - 1) == 0;
}

/* 1 if line l gives what a jest test received: "Received length: 4". */
static int
jest_received(const struct line *l)
{
	size_t	k = lead(l);

	return l->n - k > 9 && memcmp(l->s + k, "Received", 8) == 0 &&
	    memchr(l->s + k, ':', l->n - k) != NULL;
}

/*
 * In a jest or vitest report of a failure (its head, the matcher, the
 * values, the test's source), what the test received ("Received: 4",
 * "Received length: 4"), which says what went wrong: from the failure's
 * head down to the next one.  nl if line c is not in such a report, is
 * such a line, or there is none.
 */
static size_t
jest_end(const struct line *l, size_t nl, size_t c)
{
	size_t	i;

	if (jest_received(&l[c]))
		return nl;
	for (i = c + 1; i > 0 && c + 1 - i < TB_SCAN; i--)
		if (jest_head(&l[i - 1]))
			break;
	if (i == 0 || c + 1 - i >= TB_SCAN)
		return nl;
	for (; i < nl && i <= c + TB_SCAN; i++) {
		if (i > c && jest_head(&l[i]))
			return nl;
		if (jest_received(&l[i]))
			return i;
	}
	return nl;
}

/*
 * The line that ends the Python traceback line c is in, or that a
 * test's header line heads ("FAIL: test_x (...)", a rule, then the
 * traceback): the exception and its message ("AssertionError: 1500.0
 * != 1628.89"), which says what failed; what a failing go test logged
 * first; what a failing jest test received.  nl if none.
 */
size_t
ofl_snippet_records_end(const struct line *l, size_t nl, size_t c)
{
	size_t	i, tb = nl;

	if (c >= nl)
		return nl;
	if ((i = pytest_end(l, nl, c)) != nl ||
	    (i = gotest_end(l, nl, c)) != nl ||
	    (i = jest_end(l, nl, c)) != nl)
		return i;
	if (traceback(&l[c]))
		tb = c;
	else if (indented(&l[c])) {
		for (i = c; i > 0 && c - i < TB_SCAN; i--) {
			if (traceback(&l[i - 1])) {
				tb = i - 1;
				break;
			}
			if (!indented(&l[i - 1]))
				break;
		}
	} else {
		for (i = c + 1; i < nl && i <= c + 2 && l[i].n > 0 &&
		    strspn(l[i].s, "-=") == l[i].n; i++)
			;
		if (i < nl && i > c + 1 && traceback(&l[i]))
			tb = i;
	}
	if (tb == nl)
		return nl;
	for (i = tb + 1; i < nl && i <= tb + TB_SCAN; i++)
		if (!indented(&l[i]))
			return l[i].n == 0 || traceback(&l[i]) ? nl : i;
	return nl;
}

/*
 * Whether a log line is a field of the message above it rather than a
 * message: PostgreSQL writes an error's detail, hint, statement and
 * context each on a line of its own, with the same header ("... [16251]
 * app@shop DETAIL:  Process 16251 waits for ShareLock ...").
 */
static int
detail(const struct line *l)
{
	static const char *const names[] = { "DETAIL: ", "HINT: ",
		"STATEMENT: ", "CONTEXT: ", "QUERY: ", "LOCATION: ", NULL };
	size_t	i, k, w, n = l->n < DETAIL_SCAN ? l->n : DETAIL_SCAN;

	for (i = 0; i + 1 < n; i++) {
		if (l->s[i] != ' ' || !isupper((unsigned char)l->s[i + 1]))
			continue;
		for (k = 0; names[k] != NULL; k++) {
			w = strlen(names[k]);
			if (i + 1 + w <= n &&
			    memcmp(l->s + i + 1, names[k], w) == 0)
				return 1;
		}
	}
	return 0;
}

/*
 * A compiler's diagnostic ("f.c:135:23: error: 'x' undeclared"): 2 for
 * an error or a warning, 1 for a note that goes on the one above it
 * ("f.c:135:23: note: each undeclared identifier is reported only
 * once"), 0 if the line is neither.  Its place (a file, a line number)
 * comes first.
 */
static int
diagnostic(const struct line *l)
{
	static const struct {
		const char	*s;
		size_t		 n;
		int		 v;
	} kinds[] = {
		{ ": note: ", 8, 1 }, { ": error: ", 9, 2 },
		{ ": warning: ", 11, 2 }, { ": fatal error: ", 15, 2 },
		{ NULL, 0, 0 }
	};
	size_t	i, k, n = l->n < DETAIL_SCAN ? l->n : DETAIL_SCAN;

	if (indented(l))
		return 0;
	for (i = 1; i + 1 < n; i++) {
		if (l->s[i] != ':' || !isdigit((unsigned char)l->s[i - 1]))
			continue;
		for (k = 0; kinds[k].s != NULL; k++)
			if (i + kinds[k].n <= n &&
			    memcmp(l->s + i, kinds[k].s, kinds[k].n) == 0)
				return kinds[k].v;
	}
	return 0;
}

/*
 * The message line c is a field of (the "ERROR:  deadlock detected" of
 * its DETAIL line), or an indented line that goes on a field: up
 * through its other fields and such lines; the error or warning a
 * compiler's note goes on, up through the source lines it quotes and
 * other notes; nl if none, or if c is none of these.
 */
size_t
ofl_snippet_records_head(const struct line *l, size_t nl, size_t c)
{
	size_t	k, f = c;
	int	d;

	if (c < nl && diagnostic(&l[c]) == 1) {
		for (k = c; k > 0 && c - k < DETAIL_UP; k--) {
			if (ofl_snippet_records_blank(&l[k - 1]) || indented(&l[k - 1]))
				continue;
			if ((d = diagnostic(&l[k - 1])) != 1)
				return d == 2 ? k - 1 : nl;
		}
		return nl;
	}

	while (f < nl && f > 0 && c - f < DETAIL_UP && indented(&l[f]))
		f--;
	if (f >= nl || !detail(&l[f]))
		return nl;
	for (k = f; k > 0 && c - k < DETAIL_UP; k--)
		if (!ofl_snippet_records_blank(&l[k - 1]) && !indented(&l[k - 1]) &&
		    !detail(&l[k - 1]))
			return k - 1;
	return nl;
}
