/*
 * fmt-log-tmpl-match.c: a log line's template from the templates alone.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fmt-log-tmpl.h"
#include "banned.h"

/*
 * A matcher from templates alone (their text, as cached): a line is
 * tokenized as the miner does (its header set aside, digits masked), and
 * has a template when it has as many tokens and each token equals the
 * template's, "<*>" there matching any text.  Of the templates that
 * match, the one with the most constant bytes wins, then the most
 * frequent.  No pass over the log: search classifies its hits with it.
 */
struct mt_tmpl {
	char		 id[OFL_TMPL_ID];
	char		*text;		/* tokens, NUL-separated */
	uint32_t	*toff;		/* token starts, ntok + 1 */
	int		 ntok;
	size_t		 nconst;	/* bytes not in "<*>" */
	size_t		 rank;		/* its place, most frequent first */
	int		 level;		/* its lines' level, 0 none */
};

struct ofl_fmt_log_tmpl_match {
	struct mt_tmpl	*t;		/* by ntok, then rank */
	size_t		 n;
};

static int
mt_cmp(const void *a, const void *b)
{
	const struct mt_tmpl	*x = a, *y = b;

	if (x->ntok != y->ntok)
		return x->ntok < y->ntok ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

struct ofl_fmt_log_tmpl_match *
ofl_fmt_log_tmpl_match_new(const struct ofl_fmt_log_tmpl_info *t, size_t n)
{
	struct ofl_fmt_log_tmpl_match	*mt;
	struct mt_tmpl			*o;
	size_t				 i, k, ntok;

	mt = ofl_xcalloc(1, sizeof(*mt));
	mt->t = ofl_xcalloc(n + 1, sizeof(*mt->t));
	for (i = 0; i < n; i++) {
		o = &mt->t[mt->n++];
		memcpy(o->id, t[i].id, OFL_TMPL_ID);
		o->rank = i;
		o->level = t[i].level != NULL ? ofl_fmt_log_head_level(
		    t[i].level, strlen(t[i].level)) : 0;
		o->text = ofl_xmalloc(t[i].len + 1);
		memcpy(o->text, t[i].text, t[i].len);
		o->text[t[i].len] = '\0';
		for (k = 0, ntok = 1; k < t[i].len; k++)
			ntok += o->text[k] == ' ';
		o->toff = ofl_xcalloc(ntok + 1, sizeof(*o->toff));
		if (t[i].len == 0)
			continue;	/* a message of no tokens */
		for (k = 0, ntok = 0; k < t[i].len; k++)
			if (o->text[k] == ' ') {
				o->text[k] = '\0';
				o->toff[++ntok] = (uint32_t)k + 1;
			}
		o->toff[++ntok] = (uint32_t)t[i].len + 1;
		o->ntok = (int)ntok;
		o->nconst = ofl_fmt_log_tmpl_nconst(t[i].text, t[i].len);
	}
	qsort(mt->t, mt->n, sizeof(*mt->t), mt_cmp);
	return mt;
}

size_t
ofl_fmt_log_tmpl_nconst(const char *p, size_t n)
{
	const char	*w;
	size_t		 i, k = n;

	for (i = 0; i < n; i++)
		k -= p[i] == ' ';
	for (w = p; (w = memmem(w, (size_t)(p + n - w), "<*>", 3)) != NULL;
	    w += 3)
		k -= 3;
	return k;
}

void
ofl_fmt_log_tmpl_match_free(struct ofl_fmt_log_tmpl_match *mt)
{
	size_t	i;

	if (mt == NULL)
		return;
	for (i = 0; i < mt->n; i++) {
		free(mt->t[i].text);
		free(mt->t[i].toff);
	}
	free(mt->t);
	free(mt);
}

/* 1 if s (n bytes) has the shape of pattern p, "<*>" in p any text. */
static int
glob(const char *p, size_t pn, const char *s, size_t sn)
{
	size_t	pi = 0, si = 0, star = SIZE_MAX, mark = 0;

	while (si < sn) {
		if (pi + 3 <= pn && memcmp(p + pi, "<*>", 3) == 0) {
			star = pi += 3;
			mark = si;
		} else if (pi < pn && p[pi] == s[si]) {
			pi++;
			si++;
		} else if (star != SIZE_MAX) {
			pi = star;
			si = ++mark;
		} else
			return 0;
	}
	while (pi + 3 <= pn && memcmp(p + pi, "<*>", 3) == 0)
		pi += 3;
	return pi == pn;
}

/* Of the templates of n tokens, the one that has the text's. */
static const struct mt_tmpl *
match_text(const struct ofl_fmt_log_tmpl_match *mt, const char *text,
    const uint32_t *off, int n)
{
	const struct mt_tmpl	*t, *best = NULL;
	size_t			 lo = 0, hi = mt->n, mid;
	int			 i;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (mt->t[mid].ntok < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < mt->n && mt->t[lo].ntok == n; lo++) {
		t = &mt->t[lo];
		if (best != NULL && t->nconst <= best->nconst)
			continue;
		for (i = 0; i < n; i++)
			if (!glob(t->text + t->toff[i],
			    t->toff[i + 1] - t->toff[i] - 1, text + off[i],
			    off[i + 1] - off[i] - 1))
				break;
		if (i == n)
			best = t;
	}
	return best;
}

/*
 * The template of the most constant bytes with the line's tokens; then
 * with its text cut at blanks, for a template with a constant quoted
 * value of words ("tag=\"View Lock\"," is one token).
 */
static const struct mt_tmpl *
match_line(const struct ofl_fmt_log_tmpl_match *mt, const struct line *l)
{
	struct ofl_buf		 b;
	uint32_t		*off;
	const struct mt_tmpl	*best;
	uint64_t		 hmask;
	size_t			 k;
	int			 i, n;

	hmask = ofl_fmt_log_tmpl_hmask();
	ofl_buf_init(&b);
	off = ofl_xcalloc((size_t)l->ntok + 1, sizeof(*off));
	for (i = 0; i < l->ntok; i++) {
		if (i > 0)
			ofl_buf_addc(&b, ' ');
		off[i] = (uint32_t)b.len;
		if (l->th[i] == H_TAIL || l->th[i] == hmask)
			ofl_buf_adds(&b, "<*>");
		else
			ofl_fmt_log_tmpl_tok_text(&b, l->tp[i], l->tl[i],
			    i > 0 && l->th[i - 1] == hmask);
	}
	off[i] = (uint32_t)b.len + 1;
	best = match_text(mt, b.data, off, l->ntok);
	free(off);
	if (best == NULL && l->ntok > 0) {
		off = ofl_xcalloc(b.len + 2, sizeof(*off));
		for (k = 0, n = 0; k < b.len; k++)
			if (b.data[k] == ' ')
				off[++n] = (uint32_t)k + 1;
		off[++n] = (uint32_t)b.len + 1;
		if (n > l->ntok)
			best = match_text(mt, b.data, off, n);
		free(off);
	}
	ofl_buf_free(&b);
	return best;
}

/* The template of a line, with or without a header of columns. */
static const struct mt_tmpl *
match_cols(const struct ofl_fmt_log_tmpl_match *mt, const struct line *l)
{
	struct line		 s;
	uint64_t		 hmask;
	const struct mt_tmpl	*best;
	int			 k;

	hmask = ofl_fmt_log_tmpl_hmask();
	best = match_line(mt, l);
	for (k = TM_MAXHDR; best == NULL && k > 0; k--) {
		if (l->ntok <= k || l->th[k - 1] != hmask)
			continue;
		s = *l;
		ofl_fmt_log_tmpl_colhdr(&s, k);
		best = match_line(mt, &s);
	}
	return best;
}

/*
 * The template of a line taken as the first line of a record: 1 with its
 * ID, 0 when none of the templates has the line.  A line none has is
 * tried again without a header of columns, the last first (the miner
 * set aside the words up to a column of numbers).  A line with a name
 * ending in ':' after its header is tried without it too (the miner set
 * it aside when nearly every line had one): the match of the line's
 * level wins, then the one with the most constant bytes.  2 for a
 * template of variables alone ("<*> <*>"): lines of two words each
 * ("http3: False", "'enabled': True,") share it but say no one thing.
 */
int
ofl_fmt_log_tmpl_match(const struct ofl_fmt_log_tmpl_match *mt,
    const char *p, size_t n, char id[OFL_TMPL_ID])
{
	struct line		 l, s;
	const struct mt_tmpl	*best, *alt;

	ofl_fmt_log_tmpl_tokenize(&l, p, n);
	best = match_cols(mt, &l);
	if (ofl_fmt_log_tmpl_compw(&l)) {
		s = l;
		ofl_fmt_log_tmpl_shift(&s, 1);
		alt = match_cols(mt, &s);
		if (alt != NULL && (best == NULL ||
		    (alt->level == l.level) > (best->level == l.level) ||
		    ((alt->level == l.level) == (best->level == l.level) &&
		    alt->nconst > best->nconst)))
			best = alt;
	}
	if (best == NULL)
		return 0;
	memcpy(id, best->id, OFL_TMPL_ID);
	return best->nconst > 0 ? 1 : 2;
}
