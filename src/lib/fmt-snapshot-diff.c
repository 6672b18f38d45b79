/*
 * fmt-snapshot-diff.c: what changed between two browser snapshots of a
 * page, for an agent that acted on it: the regions added and removed and
 * the elements changed, matched without their refs, which a browser
 * driver renumbers after a navigation.  The walk over the tree is
 * fmt-snapshot.c's.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fmt-snapshot.h"
#include "banned.h"

/*
 * Comparison of two snapshots.
 */

/*
 * Each line of the tree becomes an entry keyed by its role, its name and
 * the key of its parent, and by how many entries before it have the same
 * (the third listitem of a list): refs are no part of it, so a snapshot
 * whose refs were all renumbered ("e123" to "f1e123" after a navigation)
 * matches its old self.  An entry whose key is in both but whose line
 * (refs left out) differs is changed; the others were added or removed,
 * reported by the top of each added or removed subtree: the region.
 */
#define DIFF_PREVIEW	2		/* lines of a region shown */
#define DIFF_LINE	160		/* bytes of a line shown */

struct dent {
	uint64_t	 key;
	uint64_t	 content;
	uint64_t	 lineno;
	uint64_t	 last;		/* the last line of its subtree */
	size_t		 parent;	/* DIFF_NONE: a root */
	size_t		 size;		/* entries under it */
	size_t		 match;		/* its entry on the other side */
	int		 st;		/* '=', '+', '-', '~' */
};
#define DIFF_NONE	((size_t)-1)

struct dside {
	struct dent	*e;
	size_t		 n, cap;
	char		 url[256];	/* the page's, from the wrapper */
	char		 title[256];
	uint64_t	*occ;		/* open addressing: base keys */
	size_t		*occn;
	size_t		 occcap, occused;
};

/* A region or a changed element in the report. */
struct ditem {
	int		 st;
	int		 old;		/* on the old side */
	size_t		 ent;
	struct ofl_buf	 text;		/* line, path, preview */
};

static uint64_t	 fnv(uint64_t, const void *, size_t);
static size_t	 occurrence(struct dside *, uint64_t);
static int	 diff_read(struct ofl_src *, struct dside *);
static int	 key_cmp(const void *, const void *);
static void	 diff_match(struct dside *, struct dside *);
static void	 diff_line(struct ofl_buf *, const struct walk *);
static int	 diff_fill(struct ofl_src *, const struct dside *,
		    struct ditem *, size_t, int);
static size_t	 diff_items(const struct dside *, const struct dside *,
		    struct ditem **, size_t *);

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t	i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

/* The how-many-th time base is seen on this side. */
static size_t
occurrence(struct dside *d, uint64_t base)
{
	size_t	i, j, ncap;
	uint64_t *ok;
	size_t	*on;

	if (base == 0)
		base = 1;
	if (d->occused * 2 >= d->occcap) {
		ncap = d->occcap ? d->occcap * 2 : 1024;
		ok = ofl_xcalloc(ncap, sizeof *ok);
		on = ofl_xcalloc(ncap, sizeof *on);
		for (i = 0; i < d->occcap; i++) {
			if (d->occ[i] == 0)
				continue;
			for (j = d->occ[i] & (ncap - 1); ok[j] != 0;
			    j = (j + 1) & (ncap - 1))
				;
			ok[j] = d->occ[i];
			on[j] = d->occn[i];
		}
		free(d->occ);
		free(d->occn);
		d->occ = ok;
		d->occn = on;
		d->occcap = ncap;
	}
	for (j = base & (d->occcap - 1); d->occ[j] != 0 && d->occ[j] != base;
	    j = (j + 1) & (d->occcap - 1))
		;
	if (d->occ[j] == 0) {
		d->occ[j] = base;
		d->occused++;
	}
	return d->occn[j]++;
}

/* The entries of one snapshot. */
static int
diff_read(struct ofl_src *src, struct dside *d)
{
	struct ofl_chunk_in	 in;
	struct walk		 w;
	struct ofl_buf		 tmp;
	struct dent		*de;
	size_t			 stack[WALK_DEPTH + 1], par, i, occ;
	uint64_t		 base;
	int			 r;

	if (ofl_src_seek(src, 0) == -1)
		return -1;
	memset(&in, 0, sizeof in);
	in.read = ofl_fmt_snapshot_read;
	in.arg = src;
	ofl_fmt_snapshot_walk_init(&w, &in);
	ofl_buf_init(&tmp);
	while ((r = ofl_fmt_snapshot_walk_next(&w)) == 1) {
		if (!w.elem)
			continue;
		par = w.nst > 0 ? stack[w.nst - 1] : DIFF_NONE;
		base = fnv(par == DIFF_NONE ? UINT64_C(14695981039346656037) :
		    d->e[par].key, w.e.role, w.e.rolelen);
		base = fnv(base, "\"", 1);
		if (w.e.prop || w.e.text)
			base = fnv(base, w.e.value, w.e.valuelen);
		else if (w.e.name != NULL)
			base = fnv(base, w.e.name, w.e.namelen);
		occ = occurrence(d, base);
		if (d->n == d->cap) {
			d->cap = d->cap ? d->cap * 2 : 1024;
			d->e = ofl_xrealloc(d->e, d->cap * sizeof *d->e);
		}
		de = &d->e[d->n];
		memset(de, 0, sizeof *de);
		de->key = fnv(base, &occ, sizeof occ);
		ofl_buf_reset(&tmp);
		ofl_fmt_snapshot_clean(&tmp, w.l.p, w.l.len, &w.e, 1);
		de->content = fnv(UINT64_C(14695981039346656037), tmp.data,
		    tmp.len);
		de->lineno = de->last = w.l.lineno;
		de->parent = par;
		de->match = DIFF_NONE;
		if (!w.e.prop && !w.e.text && w.nst < WALK_DEPTH)
			stack[w.nst] = d->n;
		d->n++;
	}
	/* Subtree sizes and ends: children come after their parents. */
	for (i = d->n; i > 0; i--) {
		de = &d->e[i - 1];
		if (de->parent == DIFF_NONE)
			continue;
		d->e[de->parent].size += de->size + 1;
		if (de->last > d->e[de->parent].last)
			d->e[de->parent].last = de->last;
	}
	memcpy(d->url, w.url, sizeof d->url);
	memcpy(d->title, w.title, sizeof d->title);
	ofl_buf_free(&tmp);
	ofl_fmt_snapshot_walk_free(&w);
	return r == 0 ? 0 : -1;
}

/* "title: OLD -> NEW" when the page's title (or URL) changed. */
static void
diff_page(struct ofl_buf *out, const char *what, const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return;
	ofl_buf_addf(out, "%s: ", what);
	ofl_render(out, (const unsigned char *)a, strlen(a), DIFF_LINE,
	    OFL_RENDER_ONELINE, NULL);
	ofl_buf_adds(out, " -> ");
	ofl_render(out, (const unsigned char *)b, strlen(b), DIFF_LINE,
	    OFL_RENDER_ONELINE, NULL);
	ofl_buf_addc(out, '\n');
}

static int
key_cmp(const void *a, const void *b)
{
	const struct dent *const *x = a, *const *y = b;

	if ((*x)->key != (*y)->key)
		return (*x)->key < (*y)->key ? -1 : 1;
	return 0;
}

/* Match the entries of a and b by key; mark each '=', '~', '+' or '-'. */
static void
diff_match(struct dside *a, struct dside *b)
{
	struct dent	**ix, key, *kp, **hit;
	size_t		  i;

	ix = ofl_xcalloc(a->n + 1, sizeof *ix);
	for (i = 0; i < a->n; i++) {
		ix[i] = &a->e[i];
		a->e[i].st = '-';
	}
	qsort(ix, a->n, sizeof *ix, key_cmp);
	for (i = 0; i < b->n; i++) {
		key.key = b->e[i].key;
		kp = &key;
		hit = bsearch(&kp, ix, a->n, sizeof *ix, key_cmp);
		if (hit == NULL) {
			b->e[i].st = '+';
			continue;
		}
		b->e[i].match = (size_t)(*hit - a->e);
		(*hit)->match = i;
		b->e[i].st = (*hit)->content == b->e[i].content ? '=' : '~';
		(*hit)->st = b->e[i].st;
	}
	free(ix);
}

/* One line shown in a report: no indent, cut to DIFF_LINE bytes. */
static void
diff_line(struct ofl_buf *b, const struct walk *w)
{
	size_t	n = ofl_chunk_body_len(w->l.p, w->l.len);

	ofl_render(b, (const unsigned char *)w->l.p + w->e.depth,
	    n - w->e.depth, DIFF_LINE, OFL_RENDER_ONELINE, NULL);
}

/*
 * Fill the items of one side (old: the removed regions and what the
 * changed elements were) with their lines, paths and previews, walking
 * the snapshot again: the entries are its element lines in order.
 */
static int
diff_fill(struct ofl_src *src, const struct dside *d, struct ditem *it,
    size_t nit, int old)
{
	struct ofl_chunk_in	 in;
	struct walk		 w;
	size_t			 ent = 0, k, j, prev = 0;
	struct ditem		*cur = NULL;
	const struct dent	*ce = NULL;
	int			 r;

	if (ofl_src_seek(src, 0) == -1)
		return -1;
	memset(&in, 0, sizeof in);
	in.read = ofl_fmt_snapshot_read;
	in.arg = src;
	ofl_fmt_snapshot_walk_init(&w, &in);
	while ((r = ofl_fmt_snapshot_walk_next(&w)) == 1) {
		if (!w.elem)
			continue;
		if (cur != NULL && ent <= (size_t)(ce - d->e) + ce->size &&
		    prev < DIFF_PREVIEW) {
			ofl_buf_adds(&cur->text, "\n    | ");
			diff_line(&cur->text, &w);
			prev++;
		}
		for (k = 0; k < nit; k++) {
			j = it[k].st == '~' && old ? d->e[it[k].ent].match :
			    it[k].ent;
			if (it[k].old != old && !(it[k].st == '~' && old))
				continue;
			if (j != ent)
				continue;
			if (it[k].st == '~' && old) {
				ofl_buf_adds(&it[k].text, "\n    was: ");
				diff_line(&it[k].text, &w);
				continue;
			}
			diff_line(&it[k].text, &w);
			ofl_buf_adds(&it[k].text, "\n    in: ");
			j = it[k].text.len;
			ofl_fmt_snapshot_path(&w, &it[k].text, 1);
			if (it[k].text.len == j)
				ofl_buf_adds(&it[k].text, "(the page)");
			if (it[k].st != '~') {
				cur = &it[k];
				ce = &d->e[ent];
				prev = 0;
			}
		}
		ent++;
	}
	ofl_fmt_snapshot_walk_free(&w);
	return r == 0 ? 0 : -1;
}

/* The regions and the changed elements, in the order of their lines. */
static size_t
diff_items(const struct dside *a, const struct dside *b, struct ditem **itp,
    size_t *counts)
{
	struct ditem	*it = NULL;
	size_t		 n = 0, cap = 0, i, s;
	const struct dside *d;
	const struct dent *e;

	for (s = 0; s < 2; s++) {
		d = s == 0 ? b : a;
		for (i = 0; i < d->n; i++) {
			e = &d->e[i];
			if (e->st == '=' || (s == 1 && e->st != '-'))
				continue;
			if (e->st != '~' && e->parent != DIFF_NONE &&
			    d->e[e->parent].st == e->st)
				continue;
			counts[e->st == '+' ? 0 : e->st == '-' ? 1 : 2]++;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				it = ofl_xrealloc(it, cap * sizeof *it);
			}
			it[n].st = e->st;
			it[n].old = s == 1;
			it[n].ent = i;
			ofl_buf_init(&it[n].text);
			n++;
		}
	}
	*itp = it;
	return n;
}

int
ofl_fmt_snapshot_diff(struct ofl_src *old, struct ofl_src *new, size_t budget,
    struct ofl_buf *out)
{
	struct dside	 a, b;
	struct ditem	*it = NULL;
	struct ofl_buf	 one;
	size_t		 nit = 0, i, counts[3] = { 0, 0, 0 }, ne[3] = { 0 };
	size_t		 start = out->len, shown = 0;
	const struct dent *e;
	int		 rv = -1;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	ofl_buf_init(&one);
	if (diff_read(old, &a) == -1 || diff_read(new, &b) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "cannot read the snapshots");
		goto out;
	}
	diff_match(&a, &b);
	for (i = 0; i < b.n; i++)
		if (b.e[i].st != '=')
			ne[b.e[i].st == '+' ? 0 : 2]++;
	for (i = 0; i < a.n; i++)
		if (a.e[i].st == '-')
			ne[1]++;
	nit = diff_items(&a, &b, &it, counts);
	if (diff_fill(new, &b, it, nit, 0) == -1 ||
	    diff_fill(old, &a, it, nit, 1) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "cannot read the snapshots");
		goto out;
	}
	if (nit == 0 && strcmp(a.url, b.url) == 0 &&
	    strcmp(a.title, b.title) == 0) {
		ofl_buf_addf(out, "no changes: %zu tree lines, refs left "
		    "out\n", b.n);
		rv = 0;
		goto out;
	}
	ofl_buf_addf(out, "changes: %zu region%s added, %zu removed, %zu "
	    "element%s changed (lines +%zu -%zu ~%zu of %zu -> %zu; refs "
	    "left out)\n", counts[0], counts[0] == 1 ? "" : "s", counts[1],
	    counts[2], counts[2] == 1 ? "" : "s", ne[0], ne[1], ne[2], a.n,
	    b.n);
	/* The page itself: another URL, another title. */
	diff_page(out, "url", a.url, b.url);
	diff_page(out, "title", a.title, b.title);
	for (i = 0; i < nit; i++) {
		e = it[i].old ? &a.e[it[i].ent] : &b.e[it[i].ent];
		ofl_buf_reset(&one);
		if (it[i].st == '~')
			ofl_buf_addf(&one, "~ line %llu: ",
			    (unsigned long long)e->lineno);
		else
			ofl_buf_addf(&one, "%c %slines %llu-%llu (%zu "
			    "element%s): ", it[i].st, it[i].old ? "old " : "",
			    (unsigned long long)e->lineno,
			    (unsigned long long)e->last, e->size + 1,
			    e->size == 0 ? "" : "s");
		ofl_buf_add(&one, it[i].text.data, it[i].text.len);
		ofl_buf_addc(&one, '\n');
		if (budget > 0 && out->len - start + one.len + 40 > budget)
			break;
		ofl_buf_add(out, one.data, one.len);
		shown++;
	}
	if (shown < nit)
		ofl_buf_addf(out, "[... %zu more not shown]\n", nit - shown);
	rv = 0;
out:
	for (i = 0; i < nit; i++)
		ofl_buf_free(&it[i].text);
	free(it);
	free(a.e);
	free(a.occ);
	free(a.occn);
	free(b.e);
	free(b.occ);
	free(b.occn);
	ofl_buf_free(&one);
	return rv;
}
