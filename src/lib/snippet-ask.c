/*
 * snippet-ask.c: what a question asks for, read off its words, and the
 * lines of a hit that give it: a number by the thing counted for "how
 * many", a time taken for "how long".  snippet-lines.c weighs a hit's
 * lines with it.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "search.h"
#include "banned.h"

#define COUNT_NEAR	2.0		/* "how many": a number by a match;
					   "how long": a time taken */
#define COUNT_AFTER	16		/* bytes after a match looked through */
#define WHY_ERROR	1.5		/* "why did it fail": an error line */
#define WHY_AFTER	4		/* lines after the best one looked
					   through for the error it led to */

static int	 count_question(const struct search *);
static int	 time_question(const struct search *);
static int	 why_question(const struct search *);
static int	 error_line(const struct line *);
static size_t	 error_after(const struct line *, size_t, size_t);
static int	 time_in(const struct line *);
static int	 count_near(const struct search *, const struct line *,
		    size_t);

/* A question of how many: its answer is a number. */
static int
count_question(const struct search *s)
{
	static const char *const forms[] = { "how many", "how often",
		"number of", "count of", NULL };

	return ofl_snippet_asks(s, forms, 0);
}

/* 1 if the query asks how long something took. */
static int
time_question(const struct search *s)
{
	static const char *const forms[] = { "how long", "how much time",
		"duration", "time taken", "elapsed", NULL };

	return ofl_snippet_asks(s, forms, 0);
}

/*
 * 1 if the query asks why something failed: its answer is an error.
 * Forms start words ("failed", "refused"), but "broke" is a whole word:
 * a broker is no failure.
 */
static int
why_question(const struct search *s)
{
	static const char *const forms[] = { "why", "what went wrong",
		"wrong", "fail", "error", "cause", "reason", "couldn't",
		"could not", "cannot", "can't", "unable", "refus", "reject",
		"denied", "crash", "abort", NULL };
	static const char *const whole[] = { "broke", "broken", "breaks",
		NULL };

	return ofl_snippet_asks(s, forms, 0) || ofl_snippet_asks(s, whole, 1);
}

/* 1 if line l says an error, as the notice counts them. */
static int
error_line(const struct line *l)
{
	struct ofl_linestat	ls;

	memset(&ls, 0, sizeof ls);
	ofl_linestat_line(&ls, l->s, l->n, 1);
	return ls.errors > 0;
}

/* 1 if the query holds one of forms, starting a word (a whole one if whole). */
int
ofl_snippet_asks(const struct search *s, const char *const *forms, int whole)
{
	const char	*q = s->o != NULL ? s->o->query : NULL;
	size_t		 i, k, n;

	if (q == NULL)
		return 0;
	for (i = 0; forms[i] != NULL; i++) {
		n = strlen(forms[i]);
		for (k = 0; q[k] != '\0'; k++)
			if (strncasecmp(q + k, forms[i], n) == 0 &&
			    (k == 0 || !isalnum((unsigned char)q[k - 1])) &&
			    (!whole || !isalnum((unsigned char)q[k + n])))
				return 1;
	}
	return 0;
}

/*
 * 1 if line l gives a time taken: a number with a unit of time right
 * after it ("(0.01s)", "took=242ms", "in 3 minutes"), or a number after
 * "elapsed" ("Elapsed":0.02).  A clock's time or a date is not one.
 */
static int
time_in(const struct line *l)
{
	static const char *const units[] = { "ms", "s", "sec", "secs",
		"second", "seconds", "us", "ns", "m", "min", "mins", "minute",
		"minutes", "h", "hr", "hrs", "hour", "hours", NULL };
	const char	*p = l->s;
	size_t		 i, k, u, n;

	for (i = 0; i < l->n; i++) {
		if (i + 7 < l->n && strncasecmp(p + i, "elapsed", 7) == 0) {
			for (k = i + 7; k < l->n && k < i + 11 &&
			    !isdigit((unsigned char)p[k]); k++)
				;
			if (k < l->n && isdigit((unsigned char)p[k]))
				return 1;
		}
		if (!isdigit((unsigned char)p[i]) || (i > 0 &&
		    (isalpha((unsigned char)p[i - 1]) || p[i - 1] == ':')))
			continue;
		for (k = i; k < l->n && (isdigit((unsigned char)p[k]) ||
		    p[k] == '.'); k++)
			;
		/* A clock (12:34) or a date (2022-06-19) goes on. */
		if (k < l->n && (p[k] == ':' || p[k] == '-'))
			continue;
		if (k < l->n && p[k] == ' ')
			k++;
		for (u = 0; units[u] != NULL; u++) {
			n = strlen(units[u]);
			if (k + n <= l->n && strncasecmp(p + k, units[u], n) ==
			    0 && (k + n == l->n || !isalnum((unsigned char)
			    p[k + n])))
				return 1;
		}
		i = k;
	}
	return 0;
}

/*
 * A question of how many or how long: the lines that give a number for
 * what was asked, or a time taken, weigh more.
 */
void
ofl_snippet_ask_weigh(const struct search *s, const struct line *l, size_t nl,
    double *d)
{
	size_t	i;
	int	count = count_question(s), time = time_question(s);
	int	why = why_question(s);

	for (i = 0; (count || time || why) && i < nl && i < ORDER_SCAN; i++) {
		if (l[i].nmarks > 0 && ((count && count_near(s, &l[i],
		    (size_t)(l[i].s - l[0].s))) || (time && time_in(&l[i]))))
			d[i] *= COUNT_NEAR;
		if (why && l[i].nmarks > 0 && error_line(&l[i]))
			d[i] *= WHY_ERROR;
	}
}

/*
 * 1 if a match of line l has a number next to it: before it ("2
 * failed"), or in the few bytes after it, after a space, a colon or an
 * equals sign ("failed: 2", "FAILED (failures=2").
 */
static int
count_near(const struct search *s, const struct line *l, size_t off)
{
	const struct mark	*m;
	size_t			 j, a, z, k;
	const char		*p = l->s;

	for (j = 0; j < (size_t)l->nmarks; j++) {
		m = &s->m[l->mark0 + j];
		if (m->start < off || m->end > off + l->n)
			continue;
		a = m->start - off;
		z = m->end - off;
		if (a >= 2 && p[a - 1] == ' ' &&
		    isdigit((unsigned char)p[a - 2]))
			return 1;
		for (k = z; k < l->n && k < z + COUNT_AFTER; k++)
			if (isdigit((unsigned char)p[k]) && (p[k - 1] == '=' ||
			    p[k - 1] == ':' || p[k - 1] == ' ' ||
			    p[k - 1] == '('))
				return 1;
			else if (isdigit((unsigned char)p[k]))
				break;
	}
	return 0;
}

/*
 * For a question of why something failed, the error line that line b
 * led to within WHY_AFTER lines ("starting" over "Error: Address already
 * in use"); nl if none, or if it is not such a question.
 */
size_t
ofl_snippet_ask_why_after(const struct search *s, const struct line *l,
    size_t nl, size_t b)
{
	return why_question(s) ? error_after(l, nl, b) : nl;
}

/* The first error line within WHY_AFTER lines after line b; nl if none. */
static size_t
error_after(const struct line *l, size_t nl, size_t b)
{
	size_t	i;

	for (i = b + 1; i < nl && i <= b + WHY_AFTER; i++)
		if (error_line(&l[i]))
			return i;
	return nl;
}

/*
 * For a question of why something failed, the best line b, or when no
 * error follows it and a line like it (its signature: the same message,
 * other numbers) is followed by one, that line: of a broker started
 * twice, the start that failed ("starting" over "Error: Address already
 * in use"), not the one that went well.
 */
size_t
ofl_snippet_ask_why_best(const struct search *s, const struct line *l,
    size_t nl, size_t b)
{
	size_t	i;

	if (b >= nl || l[b].sig == 0 || error_after(l, nl, b) < nl ||
	    !why_question(s))
		return b;
	for (i = 0; i < nl; i++)
		if (i != b && l[i].sig == l[b].sig && !l[i].chosen &&
		    error_after(l, nl, i) < nl)
			return i;
	return b;
}
