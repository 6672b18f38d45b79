/*
 * snippet-snap.c: the order of a search's hits in browser snapshots.
 * BM25 ranks an element subtree by how often it says the words asked
 * for; an agent asks for one element by what it is called.  So when
 * every artifact searched is a snapshot, each hit is weighed again by
 * its element best named by the question (fmt-snapshot-name.c): a short
 * list item with the link "debounce" answers "debounce function" better
 * than a section of prose that says "debounce" and "function" twenty
 * times.  A hit that holds only some of the words asked for (the OR
 * query) comes after one that holds them all, unless it names the
 * element.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "search.h"
#include "banned.h"

#define SNAP_READ_MAX	(256 * 1024)	/* bytes of a hit read for it */
#define SNAP_OWNERS	3		/* element lines added to a hit */
#define SNAP_OWNER_SHOW	400		/* bytes of one shown */
#define SNAP_FOLLOW_SHOW 200		/* bytes of the block a line leads to */
#define SNAP_NAME_W	3.0		/* a name that is the question */
#define SNAP_SOME	0.5		/* a hit with some of the words */
#define SNAP_FLOOR	0.05		/* of the best score, to every hit */
#define SNAP_EPS	0.01		/* when every score is 0 */
#define SNAP_HEAD_MAX	100		/* bytes of its head kept on a cut */
#define SNAP_NAME_HEAD	40		/* of a long name, its first bytes */
#define SNAP_NAME_TAIL	24		/* and at least so many of its end */
#define SNAP_WEAK	0.33		/* of the best hit's score, at least */
#define SNAP_AS_NAMED	0.9		/* of the best hit's name: not weak */
#define SNAP_NAV	2.0		/* a hit in the navigation asked for */
#define HEAD_OVER	3		/* lines shown under one heading that
					   bring it */

/* A hit and its new score, for the sort. */
struct rank {
	struct hit	h;
	double		key;
};

static int	 rank_cmp(const void *, const void *);
static size_t	 common_heading(const struct line *, size_t, const char **,
		    const size_t *);
static void	 lines_of(const struct line *, size_t, const char ***,
		    size_t **);
static void	 show(struct line *, size_t);
static double	 hit_named(struct search *, const struct hit *,
		    struct ofl_buf *);

/* 1 if every artifact searched is a browser snapshot. */
int
ofl_snippet_snap_scope(const struct search *s)
{
	size_t	i;

	if (s->na == 0 || s->lazy || s->whole)
		return 0;
	for (i = 0; i < s->na; i++)
		if (s->a[i].kind != OFL_KIND_SNAPSHOT)
			return 0;
	return 1;
}

/* The question's words, made once (NULL: none). */
const struct ofl_fmt_snapshot_words *
ofl_snippet_snap_words(struct search *s)
{
	size_t	i;

	if (s->snapq == NULL) {
		s->snapq = ofl_xcalloc(1, sizeof *s->snapq);
		for (i = 0; i < s->nt; i++)
			ofl_fmt_snapshot_words_add(s->snapq, s->t[i].text,
			    s->t[i].len, s->t[i].stop);
	}
	return s->snapq->nw > 0 ? s->snapq : NULL;
}

void
ofl_snippet_snap_free(struct search *s)
{
	if (s->snapq == NULL)
		return;
	ofl_fmt_snapshot_words_free(s->snapq);
	free(s->snapq);
	s->snapq = NULL;
}

/* The best name among the elements of a hit's lines; 0 if unread. */
static double
hit_named(struct search *s, const struct hit *h, struct ofl_buf *b)
{
	const struct ofl_fmt_snapshot_words *q;
	struct ofl_reader	*r;
	uint64_t		 want;
	ssize_t			 n;
	const char		*p, *e, *nl, *prev = NULL;
	size_t			 pn = 0;
	double			 best = 0, v;

	if (h->member != NULL || (q = ofl_snippet_snap_words(s)) == NULL)
		return 0;
	/* Opened once, kept for snippet.c (which snippet-lines.c calls). */
	if (s->a[h->art].r == NULL)
		s->a[h->art].r = ofl_reader_open(s->st, s->a[h->art].id);
	if ((r = s->a[h->art].r) == NULL ||
	    ofl_reader_seek(r, h->byte_start) == -1)
		return 0;
	want = h->byte_end - h->byte_start;
	if (want > SNAP_READ_MAX)
		want = SNAP_READ_MAX;
	ofl_buf_reset(b);
	if (b->cap < want + 1) {
		b->cap = (size_t)want + 1;
		b->data = ofl_xrealloc(b->data, b->cap);
	}
	while (b->len < want) {
		if ((n = ofl_reader_read(r, b->data + b->len,
		    (size_t)want - b->len)) <= 0)
			break;
		b->len += (size_t)n;
	}
	for (p = b->data, e = b->data + b->len; p < e; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(e - p))) == NULL)
			nl = e;
		v = ofl_fmt_snapshot_named(p, (size_t)(nl - p), q);
		if (v > best)
			best = v;
		if (prev != NULL && (v = ofl_fmt_snapshot_named_by(prev, pn,
		    p, (size_t)(nl - p), q)) > best)
			best = v;
		prev = p;
		pn = (size_t)(nl - p);
	}
	return best;
}

static int
rank_cmp(const void *x, const void *y)
{
	const struct rank	*a = x, *b = y;

	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	if (a->h.art != b->h.art)
		return a->h.art < b->h.art ? -1 : 1;
	return a->h.line_start < b->h.line_start ? -1 :
	    a->h.line_start > b->h.line_start;
}

/*
 * 1 if the question asks for a page's navigation: "the contents link
 * to", "the sidebar entry for", "the TOC link".
 */
static int
nav_asked(const struct search *s)
{
	static const char *const words[] = { "contents", "toc", "sidebar",
	    "menu", "navigation", "nav", NULL };
	size_t	i, k;

	for (i = 0; i < s->nt; i++)
		for (k = 0; words[k] != NULL; k++)
			if (s->t[i].len == strlen(words[k]) &&
			    strncasecmp(s->t[i].text, words[k],
			    s->t[i].len) == 0)
				return 1;
	return 0;
}

/* 1 if a hit is in a navigation landmark or under a contents heading. */
static int
nav_hit(const struct hit *h)
{
	const char	*p;

	for (p = h->title; p != NULL && *p != '\0'; p++)
		if (strncasecmp(p, "navigation", 10) == 0 ||
		    strncasecmp(p, "contents", 8) == 0)
			return 1;
	return 0;
}

/*
 * Weigh the first hits again by the element they name best, and sort
 * them: score times 1 + SNAP_NAME_W times the name's worth, times
 * SNAP_SOME for a hit with only some of the words, times SNAP_NAV for
 * a hit in the navigation the question asks for.  Substring hits and
 * archive members keep their place.
 */
void
ofl_snippet_snap_rank(struct search *s)
{
	struct ofl_buf	 b;
	struct rank	*rk;
	size_t		 n, i;
	double		 named, top = 0;
	int		 nav;

	if (!ofl_snippet_snap_scope(s) || s->nh < 2 ||
	    ofl_snippet_snap_words(s) == NULL)
		return;
	for (n = 0; n < s->nh && n < OFL_SNAP_RANK_MAX; n++)
		if (s->h[n].phase == PHASE_SUBSTR || s->h[n].member != NULL)
			return;
	for (i = 0; i < n; i++)
		if (s->h[i].score > top)
			top = s->h[i].score;
	nav = nav_asked(s);
	rk = ofl_xcalloc(n, sizeof *rk);
	ofl_buf_init(&b);
	for (i = 0; i < n; i++) {
		rk[i].h = s->h[i];
		named = hit_named(s, &s->h[i], &b);
		/* BM25 says nothing of words on every line: 0 for each. */
		rk[i].key = (s->h[i].score + top * SNAP_FLOOR + SNAP_EPS) *
		    (1 + SNAP_NAME_W * named);
		if (s->h[i].phase == PHASE_ANY)
			rk[i].key *= SNAP_SOME;
		if (nav && nav_hit(&s->h[i]))
			rk[i].key *= SNAP_NAV;
		rk[i].h.rank = rk[i].key;
		rk[i].h.named = named;
	}
	ofl_buf_free(&b);
	qsort(rk, n, sizeof *rk, rank_cmp);
	for (i = 0; i < n; i++)
		s->h[i] = rk[i].h;
	free(rk);
}

/*
 * The lines shown beside a hit's chosen ones.
 */

/* The lines' texts and lengths, as fmt-snapshot.c reads them. */
static void
lines_of(const struct line *l, size_t nl, const char ***pp, size_t **np)
{
	size_t	i;

	*pp = ofl_xcalloc(nl + 1, sizeof **pp);
	*np = ofl_xcalloc(nl + 1, sizeof **np);
	for (i = 0; i < nl; i++) {
		(*pp)[i] = l[i].s;
		(*np)[i] = l[i].n;
	}
}

/* Line l chosen whole, or its first max bytes. */
static void
show(struct line *l, size_t max)
{
	size_t	to = l->n;

	if (to > max)
		for (to = max; to > 0 && ((unsigned char)l->s[to] & 0xc0) ==
		    0x80; to--)
			;
	l->chosen = 1;
	l->from = 0;
	l->to = to;
}

/*
 * A chosen line with a match that is a child line ("/url:", "text:")
 * comes with the element that holds it and its ref (fmt-snapshot-hit.c
 * says which), then a line inside a block of prose with the block (and
 * the block that holds that one), at most SNAP_OWNERS lines more a hit.
 */
void
ofl_snippet_snap_owners(struct line *l, size_t nl)
{
	const char	**p;
	size_t		 *n, i, k, j, own[3], added = 0;

	lines_of(l, nl, &p, &n);
	for (i = 0; i < nl && added < SNAP_OWNERS; i++) {
		if (l[i].chosen != 1 || l[i].nmarks == 0)
			continue;
		k = ofl_fmt_snapshot_owners(p, n, nl, i, own);
		for (j = 0; j < k && added < SNAP_OWNERS; j++) {
			if (l[own[j]].chosen)
				continue;
			show(&l[own[j]], SNAP_OWNER_SHOW);
			added++;
		}
	}
	/* Then the blocks of prose shown only by their children. */
	for (i = 0; i < nl && added < SNAP_OWNERS; i++) {
		if (l[i].chosen != 1 || l[i].nmarks == 0)
			continue;
		for (j = i, k = 0; k < 2 && added < SNAP_OWNERS &&
		    (j = ofl_fmt_snapshot_prose(p, n, j)) < nl; k++)
			if (!l[j].chosen) {
				show(&l[j], SNAP_OWNER_SHOW);
				added++;
			}
	}
	/*
	 * The heading over HEAD_OVER lines shown or more names what they
	 * have in common ("Styles for Nodes" over filled, dashed, bold).
	 */
	if ((i = common_heading(l, nl, p, n)) < nl)
		show(&l[i], SNAP_OWNER_SHOW);
	free(p);
	free(n);
}

/*
 * The heading right above HEAD_OVER chosen lines with matches or more,
 * when it is not shown; nl if none.
 */
static size_t
common_heading(const struct line *l, size_t nl, const char **p,
    const size_t *n)
{
	size_t	i, h, last = nl;
	int	count = 0;

	for (i = 0; i < nl; i++) {
		if (l[i].chosen != 1 || l[i].nmarks == 0)
			continue;
		h = ofl_fmt_snapshot_heading_above(p, n, i);
		if (h >= nl || h == i || l[h].chosen) {
			last = nl;
			count = 0;
			continue;
		}
		if (h == last)
			count++;
		else {
			last = h;
			count = 1;
		}
		if (count >= HEAD_OVER)
			return h;
	}
	return nl;
}

/*
 * The block that the hit's best line introduces (fmt-snapshot.c says
 * which: the command after "compiled with the command line", a term's
 * definition), its first SNAP_FOLLOW_SHOW bytes: of the lines shown for
 * their matches, best first, the first that leads to one not shown.
 */
void
ofl_snippet_snap_follow(struct line *l, size_t nl)
{
	const char	**p;
	size_t		 *n, i, best, f = nl;
	int		 rank, next = 0;

	lines_of(l, nl, &p, &n);
	for (;;) {
		/* The next line by rank. */
		for (i = 0, best = nl, rank = 0; i < nl; i++)
			if (l[i].chosen == 1 && l[i].nmarks > 0 &&
			    l[i].rank > next && (best == nl ||
			    l[i].rank < rank)) {
				best = i;
				rank = l[i].rank;
			}
		if (best == nl)
			break;
		next = rank;
		/*
		 * When it is shown already, the block after it (under a
		 * function's heading its signature, then what it does).
		 */
		if ((f = ofl_fmt_snapshot_follower(p, n, nl, best, 0)) < nl &&
		    l[f].chosen)
			f = ofl_fmt_snapshot_follower(p, n, nl, f, 1);
		if (f < nl && !l[f].chosen)
			break;
		f = nl;
	}
	if (f < nl)
		show(&l[f], SNAP_FOLLOW_SHOW);
	free(p);
	free(n);
}

/*
 * The head of a snapshot's line kept when the line is shown cut: the
 * element up to its ref and attributes ("- generic [ref=e85]"), so that
 * the part that matches comes with what to act on; 0 for a line without
 * a ref or with a long head.
 */
size_t
ofl_snippet_snap_head(const struct line *l)
{
	struct ofl_fmt_snapshot_el e;

	if (!ofl_fmt_snapshot_parse(l->s, l->n, &e) || e.ref == NULL ||
	    e.prop || e.text || e.end > SNAP_HEAD_MAX)
		return 0;
	return e.end;
}

/*
 * A snapshot's line whose ref lies past room bytes after ind (its name
 * long, or the line deep): shown as its element and the start of its
 * name, then the end of the name up to the ref ("- cell "the char value
 * or...bytes used" [ref=f4e648]"), so the ref an agent acts on is never
 * the part cut off.  Sets *head, *from and *to for render_line(); 0 if
 * the line is not such a one.
 */
int
ofl_snippet_snap_name_cut(const struct line *l, size_t ind, size_t room,
    size_t *head, size_t *from, size_t *to)
{
	struct ofl_fmt_snapshot_el e;
	size_t		 h, x, f;

	if (!ofl_fmt_snapshot_parse(l->s, l->n, &e) || e.ref == NULL ||
	    e.name == NULL || e.ref < e.name || e.prop || e.text)
		return 0;
	x = ofl_snippet_snap_ref_end(l);
	h = (size_t)(e.name - l->s) + (e.namelen < SNAP_NAME_HEAD ?
	    e.namelen : SNAP_NAME_HEAD);
	while (h > 0 && ((unsigned char)l->s[h] & 0xC0) == 0x80)
		h--;
	if (x <= ind + room || h < ind || h - ind + 3 + SNAP_NAME_TAIL > room)
		return 0;
	f = x - (room - (h - ind) - 3);
	while (f < x && ((unsigned char)l->s[f] & 0xC0) == 0x80)
		f++;
	if (f <= h)
		return 0;
	*head = h;
	*from = f;
	*to = x;
	return 1;
}

/* Where a snapshot's line's ref ends ("[ref=e85]"); 0 if it has none. */
size_t
ofl_snippet_snap_ref_end(const struct line *l)
{
	return ofl_fmt_snapshot_ref_end(l->s, l->n);
}

/*
 * 1 if a hit after the first is too weak to show in a browser snapshot:
 * under SNAP_WEAK of the best hit's score weighed again by names (BM25
 * alone gives next to nothing to words most of a page's chunks hold,
 * "surface" on the page of SDL_surface.h), unless it names the question
 * about as well as the best (SNAP_AS_NAMED: the same link in the
 * sidebar and in the text).  A page holds the words of any question
 * somewhere; its hits far below the best are elements that name them in
 * passing, and the bytes go to the lines of what answers.
 */
int
ofl_snippet_snap_weak(const struct search *s, const struct hit *h)
{
	const struct hit	*best = &s->h[0];

	if (h->member != NULL || s->a[h->art].kind != OFL_KIND_SNAPSHOT ||
	    h->art != best->art || h->phase == PHASE_SUBSTR ||
	    best->phase == PHASE_SUBSTR || best->score <= 0)
		return 0;
	if (best->rank <= 0)
		return h->score < best->score * SNAP_WEAK;
	return h->rank < best->rank * SNAP_WEAK &&
	    h->named < best->named * SNAP_AS_NAMED;
}

/* The spaces that every line of l[0..nl) with words starts with. */
size_t
ofl_snippet_snap_indent(const struct line *l, size_t nl)
{
	size_t	i, k, min = SIZE_MAX;

	for (i = 0; i < nl; i++) {
		for (k = 0; k < l[i].n && l[i].s[k] == ' '; k++)
			;
		if (k < l[i].n && k < min)
			min = k;
	}
	return min == SIZE_MAX ? 0 : min;
}
