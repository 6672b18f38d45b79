/*
 * snippet-mark.c: where the query's words are in a hit's text (the
 * marks), and which of them count for their term.
 *
 * A hit's text is tokenized as the index was, and every token that is a
 * target of the query (query-terms.c: a term's word, a stem's prefix, a
 * lexicon form) is a mark, by byte offsets, in order.  A mark of a term
 * of several words counts only in a run that makes the term, and one of
 * a lexicon phrase only where the phrase is spelled whole.  Marks choose
 * the lines shown (snippet-lines.c) and are never printed: a terminal
 * sees them in color, JSON as offsets.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "search.h"
#include "banned.h"

#define RUN_MAX		32		/* marks of a term spelled out */

static int	 mark_cmp(const void *, const void *);
static void	 mark_push(struct search *, size_t, size_t, int);
static int	 mark_cb(void *, int, const char *, int, int, int);
static int	 run_spells(const char *, const char *, const char *, size_t);
static int	 mark_at(const struct search *, size_t, size_t, size_t,
		    size_t);
static int	 lex_whole(const struct search *, const char *, size_t,
		    size_t, size_t);

/* Marks in order of their start; of two at one place, the longer first. */
static int
mark_cmp(const void *x, const void *y)
{
	const struct mark	*a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end > b->end ? -1 : a->end < b->end;
}

static void
mark_push(struct search *s, size_t start, size_t end, int target)
{
	if (s->nm == s->capm) {
		s->capm = s->capm == 0 ? 256 : s->capm * 2;
		s->m = ofl_xrealloc(s->m, s->capm * sizeof *s->m);
	}
	s->m[s->nm].start = start;
	s->m[s->nm].end = end;
	s->m[s->nm].target = target;
	s->m[s->nm].counts = 0;
	s->nm++;
}

/* A token of the text: a mark if it is a target (one at most). */
static int
mark_cb(void *arg, int flags, const char *tok, int n, int start, int end)
{
	struct search	*s = arg;
	struct target	*g;
	size_t		 i;
	int		 exact = (flags & OFL_TOK_COLOCATED) != 0 &&
			    ofl_tok_is_ident(tok, n);

	for (i = 0; i < s->ntg; i++) {
		g = &s->tg[i];
		if (g->exact != exact)
			continue;
		if (g->n == (size_t)n ? memcmp(g->s, tok, g->n) == 0 :
		    (g->prefix && g->n < (size_t)n &&
		    memcmp(g->s, tok, g->n) == 0)) {
			mark_push(s, (size_t)start, (size_t)end, (int)i);
			if (g->surface == NULL && end - start < 64) {
				g->surface = ofl_xmalloc((size_t)(end - start) +
				    1);
				memcpy(g->surface, s->mtext + start,
				    (size_t)(end - start));
				g->surface[end - start] = '\0';
			}
			break;
		}
	}
	return OFL_TOK_OK;
}

/*
 * The marks of text (by substring when the search is by substring); no
 * text (NULL, as an empty buffer's data) has none.
 */
void
ofl_snippet_mark_text(struct search *s, const char *text, size_t len)
{
	const char	*p, *q;
	size_t		 i;

	if (text == NULL)
		text = "";
	s->nm = 0;
	s->mtext = text;
	if (s->substr) {
		for (i = 0; i < s->ntg; i++) {
			p = text;
			while ((q = ofl_snippet_find_ci(p,
			    (size_t)(text + len - p), s->tg[i].s,
			    s->tg[i].n)) != NULL) {
				mark_push(s, (size_t)(q - text),
				    (size_t)(q - text) + s->tg[i].n, (int)i);
				p = q + s->tg[i].n;
			}
		}
	} else
		(void)ofl_tok_run(s->tk, 0, text, len, mark_cb, s);
	if (s->nm > 0)
		qsort(s->m, s->nm, sizeof *s->m, mark_cmp);
}

/*
 * 1 if mark j (of a line from byte lstart to end of text, whose marks
 * start at mark0) counts for its term: a word of a term of several words
 * ("4.0.0", a quoted phrase) counts only next to another of its words,
 * so that a lone "0" is not "4.0.0"; and a term with digits counts only
 * where its marks spell it, so that "4.17.17" is not "4.17.4".
 */
int
ofl_snippet_mark_counts(const struct search *s, const char *text, size_t j,
    size_t mark0, size_t lstart, size_t end)
{
	const struct target	*g = &s->tg[s->m[j].target];
	const struct mark	*m = s->m;
	const struct term	*t;
	size_t			 need, n = 0, at = 0, k, prev, w, r[RUN_MAX];
	int			 spell;

	if (g->lex == LEX_PHRASE && !s->substr)
		return lex_whole(s, text, j, lstart, end);
	if (g->exact || s->substr || g->term < 0 ||
	    (size_t)g->term >= s->nt || (need = s->t[g->term].ntok) < 2)
		return 1;
	t = &s->t[g->term];
	spell = strpbrk(t->text, "0123456789") != NULL;
	/*
	 * The run of the term's words, in order, that holds mark j: at most
	 * need - 1 of them on each side, all a window holding j can take
	 * (a line of a million "4.4.4" is no quadratic walk).
	 */
	for (prev = j, k = j, w = 0; w + 1 < need && k-- > mark0;) {
		if (s->tg[m[k].target].exact)
			continue;
		if (s->tg[m[k].target].term != g->term || m[k].end >
		    m[prev].start || m[prev].start - m[k].end > 2 ||
		    (!spell && m[k].target > m[prev].target))
			break;
		prev = k;
		w++;
	}
	for (k = prev; k < s->nm && m[k].start < end && n < w + need; k++) {
		if (s->tg[m[k].target].exact)
			continue;
		if (k > prev && (s->tg[m[k].target].term != g->term ||
		    m[prev].end > m[k].start || m[k].start - m[prev].end > 2 ||
		    (!spell && m[k].target < m[prev].target)))
			break;
		if (k == j)
			at = n;
		if (n < RUN_MAX)
			r[n] = k;
		n++;
		prev = k;
	}
	if (!spell || n > RUN_MAX)
		return n >= need;
	/* A window of need marks that holds j and spells the term. */
	for (w = at + 1 >= need ? at + 1 - need : 0; w <= at && w + need <= n;
	    w++)
		if (run_spells(text + m[r[w]].start, text + m[r[w + need -
		    1]].end, t->text, t->len))
			return 1;
	return 0;
}

/*
 * 1 if the letters and digits from p to e are those of the n bytes at
 * q, case aside.
 */
static int
run_spells(const char *p, const char *e, const char *q, size_t n)
{
	size_t	i = 0;

	for (; p < e; p++) {
		if (!isalnum((unsigned char)*p))
			continue;
		while (i < n && !isalnum((unsigned char)q[i]))
			i++;
		if (i >= n || tolower((unsigned char)*p) !=
		    tolower((unsigned char)q[i]))
			return 0;
		i++;
	}
	while (i < n && !isalnum((unsigned char)q[i]))
		i++;
	return i == n;
}

/*
 * 1 if mark j, in the line of text from p to e whose marks start at
 * mark0, is a word of its own, or one of a run of marks that make a
 * word (the parts of HideEmptyPackages, asked as "hide empty
 * packages"): not a part of a word the query names only in part (the
 * "Stderr" of TestFailedWithStderr), which says less of what the line
 * is about.  A snake_case key's words ("published_at") stand alone.
 */
int
ofl_snippet_mark_whole(const struct search *s, const char *text, size_t j,
    size_t mark0, const char *p, const char *e)
{
	const char	*a = text + s->m[j].start, *z = text + s->m[j].end;

	if (a > p && ofl_snippet_lines_word_byte(a[-1]) && !mark_at(s, j,
	    mark0, s->m[j].start - 1, (size_t)(e - text)))
		return 0;
	/* A version's digits end the name ("python3"). */
	if (z > a && isalpha((unsigned char)z[-1]))
		while (z < e && isdigit((unsigned char)*z))
			z++;
	return z >= e || !ofl_snippet_lines_word_byte(*z) || mark_at(s, j,
	    mark0, (size_t)(z - text), (size_t)(e - text));
}

/*
 * 1 if a mark near mark j (of a line whose marks start at mark0 and end
 * before byte end) holds byte off.
 */
static int
mark_at(const struct search *s, size_t j, size_t mark0, size_t off,
    size_t end)
{
	size_t	k;

	for (k = j > mark0 + 2 ? j - 2 : mark0; k < s->nm && k <= j + 2 &&
	    s->m[k].start < end; k++)
		if (k != j && s->m[k].start <= off && off < s->m[k].end)
			return 1;
	return 0;
}

/*
 * 1 if mark j, a word of a lexicon form of several ("timed" of "timed
 * out"), is in the form, spelled whole in the line of text from lstart
 * to end: "session" alone is not "session opened".
 */
static int
lex_whole(const struct search *s, const char *text, size_t j, size_t lstart,
    size_t end)
{
	const struct mark	*m = &s->m[j];
	int			 term = s->tg[m->target].term;

	if (term < 0 || (size_t)term >= s->nt || m->start < lstart ||
	    m->end > end)
		return 0;
	return ofl_lexicon_around(s->t[term].lex, text + lstart, end - lstart,
	    m->start - lstart, m->end - lstart);
}

/*
 * Lowercase ASCII search of needle (lowercase) in hay.  Its first byte,
 * in either case, is looked for with memchr(3): a rare word costs
 * little more than the bytes it is looked for in.
 */
const char *
ofl_snippet_find_ci(const char *hay, size_t n, const char *needle, size_t k)
{
	const char	*p, *end, *a, *b;
	size_t		 j;
	int		 f, fu;

	if (k == 0 || k > n)
		return NULL;
	f = (unsigned char)needle[0];
	fu = toupper(f);
	end = hay + (n - k + 1);
	for (p = hay; p < end; p = a + 1) {
		a = memchr(p, f, (size_t)(end - p));
		if (fu != f && (b = memchr(p, fu, (size_t)((a != NULL ? a :
		    end) - p))) != NULL)
			a = b;
		if (a == NULL)
			return NULL;
		for (j = 1; j < k; j++)
			if (tolower((unsigned char)a[j]) != needle[j])
				break;
		if (j == k)
			return a;
	}
	return NULL;
}
