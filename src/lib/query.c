/*
 * query.c: search artifacts.
 *
 * Any text is a valid query.  It is cut into terms here (words, and
 * phrases in double quotes); each term becomes an FTS5 string, so no
 * character the user types is ever FTS5 syntax.  The terms are asked for
 * all together first (AND), then any of them (OR), ranked by BM25 with
 * titles weighted above bodies.  When nothing matches, the raw text of
 * the artifacts is scanned for the terms as substrings, then the index's
 * vocabulary gives close spellings (edit distance 2 at most).  The hits
 * of one artifact that overlap are merged; snippet.c shows them.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ofl.h"
#include "search.h"
#include "banned.h"

#define PER_BLOB_MAX	32		/* more blobs: one query, filtered */
#define SCAN_LINES_MAX	5000		/* substring: lines collected */
#define MERGE_LINES_MAX	400		/* hits merged up to this span */
#define SCAN_BUDGET_MS	2000		/* substring scan of the store */
#define SCAN_PIECE	(64 * 1024)	/* of a longer line, a hit's bytes */
#define FLAT_SCORE	0.01		/* below: the scores tell nothing */
#define FLAT_K		256		/* then hits fetched, JSON */
#define RANK_CAP	20000		/* chunks a search of the store or a
					   filter ranks, the newest
					   (OFL_SEARCH_CAP) */

/* Running the substring scan over an archive's chunks. */
struct rescan {
	int64_t		 seq;
	struct search	*s;
	size_t		 art;
};

/* One query's rows made hits. */
struct fts_ctx {
	struct search	*s;
	int		 phase;
};

/* Looking for a close spelling in the index's vocabulary. */
struct near {
	const char	*tok;
	size_t		 k;
	int		 max;
	int		 bestd;
	int64_t		 bestdf;
	char		**spell;
};

static int	 scope_add(struct search *, const char *, int,
		    const struct ofl_ref *);
static int	 scope_range(struct search *, struct hit *);
static int	 in_ranges(const struct art *, uint64_t);
static int	 scope_cb(const struct ofl_meta *, void *);
static size_t	*art_slot(struct search *, int64_t);
static void	 art_index(struct search *, size_t);
static int	 art_by_blob(struct search *, int64_t);
static int	 hit_seen(struct search *, size_t, int64_t);
static struct hit *hit_new(struct search *);
static void	 hit_free(struct hit *);
static int	 hit_load(struct search *, struct hit *, int64_t);
static int	 fts_hit(int64_t, int64_t, double, void *);
static int	 fts_query(struct search *, const char *, int, ssize_t,
		    size_t);
static int	 scope_table(struct search *);
static int	 fts_run(struct search *, const char *, int, size_t);
static int	 hit_cmp(const void *, const void *);
static int	 hit_pos_cmp(const void *, const void *);
static void	 merge_hits(struct search *);
static size_t	 rank_cap(void);
static int	 rescan_cb(const struct ofl_chunk *, void *);
static int	 scan_text(struct search *, size_t, const char *, size_t,
		    uint64_t, uint64_t, const char *, int64_t);
static int	 substring_scan(struct search *, size_t);
static uint64_t	 count_lines(const char *, size_t);
static int	 edit_distance(const char *, size_t, const char *, size_t,
		    int);
static int	 index_word(struct search *, size_t, char *, size_t);
static void	 near_cb(const char *, int64_t, void *);
static int	 spell_fix(struct search *);
static int	 art_gone(struct ofl_store *, const char *);
static int	 filter_empty(const struct ofl_filter *);
static int	 search_scope(struct search *, const char *const *, size_t);
static int	 search_index(struct search *, size_t);
static int	 search_fts(struct search *, int, size_t, size_t);
static int	 search_substr(struct search *, size_t);
static int	 search_terms(struct search *, size_t, size_t, size_t);
static int	 search_flat(struct search *);
static void	 search_free(struct search *);
static int	 scope_lazy(struct search *, int64_t);
static int	 scope_list(struct search *);
static int	 unindexed_cb(const char *, int64_t, void *);
static int	 search_index_lazy(struct search *);
static void	 search_note(struct search *);
static int	 index_busy(struct search *, size_t);
static int	 scan_pending(struct search *);

static int
scope_add(struct search *s, const char *id, int named,
    const struct ofl_ref *range)
{
	struct ofl_meta	 m;
	struct art	*a;
	int64_t		 blob;
	int		 n;

	if (ofl_store_meta(s->st, id, &m) == -1)
		return named ? -1 : 0;	/* gone since it was listed */
	if (m.state != OFL_STATE_COMPLETE) {
		ofl_meta_free(&m);
		if (!named)
			return 0;
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: still being written", id);
		return -1;
	}
	if ((blob = ofl_store_blob(s->st, id)) < 0) {
		ofl_meta_free(&m);
		return named ? -1 : 0;
	}
	if ((n = art_by_blob(s, blob)) < 0) {
		if ((s->na & (s->na - 1)) == 0)	/* 0, 1, 2, 4...: double */
			s->a = ofl_xrealloc(s->a, (s->na == 0 ? 1 :
			    s->na * 2) * sizeof *s->a);
		a = &s->a[s->na++];
		memset(a, 0, sizeof *a);
		snprintf(a->id, sizeof a->id, "%s", m.id);
		a->blob = blob;
		a->kind = m.kind;
		a->bytes = m.bytes;
		a->created = m.created;
		art_index(s, s->na - 1);
	} else
		a = &s->a[n];
	ofl_meta_free(&m);
	/* Lines A-B of it (ofl:ID:A-B), unless it is named whole too. */
	if (range == NULL || range->from == 0) {
		a->all = 1;
		free(a->rg);
		a->rg = NULL;
		a->nrg = 0;
	} else if (!a->all) {
		a->rg = ofl_xrealloc(a->rg, (a->nrg + 1) * sizeof *a->rg);
		a->rg[a->nrg][0] = range->from;
		a->rg[a->nrg][1] = range->to;
		a->nrg++;
	}
	return 0;
}

/* 1 if line lineno of an artifact is in the scope. */
static int
in_ranges(const struct art *a, uint64_t lineno)
{
	size_t	i;

	if (a->nrg == 0)
		return 1;
	for (i = 0; i < a->nrg; i++)
		if (lineno >= a->rg[i][0] && lineno <= a->rg[i][1])
			return 1;
	return 0;
}

/*
 * A hit of an artifact searched within line ranges: 0 if it lies outside
 * them, else 1, cut down to the range it overlaps (-1 on error).
 */
static int
scope_range(struct search *s, struct hit *h)
{
	struct art		*a = &s->a[h->art];
	struct ofl_reader	*r;
	uint64_t		 from, to;
	int64_t			 off;
	size_t			 i;

	if (a->nrg == 0)
		return 1;
	for (i = 0; i < a->nrg; i++)
		if (h->line_start <= a->rg[i][1] && h->line_end >= a->rg[i][0])
			break;
	if (i == a->nrg)
		return 0;
	from = a->rg[i][0];
	to = a->rg[i][1];
	if (h->member != NULL || (from <= h->line_start && to >= h->line_end))
		return 1;
	if ((r = ofl_snippet_reader(s, h->art)) == NULL)
		return -1;
	if (from > h->line_start) {
		if ((off = ofl_reader_seek_line(r, from)) < 0)
			return -1;
		h->byte_start = (uint64_t)off;
		h->line_start = h->text_line = from;
	}
	if (to < h->line_end) {
		if ((off = ofl_reader_seek_line(r, to + 1)) < 0)
			return -1;
		h->byte_end = (uint64_t)off;
		h->line_end = to;
	}
	return 1;
}

struct scope_ctx {
	struct search	*s;
	char		**ids;
	size_t		 n;
};

static int
scope_cb(const struct ofl_meta *m, void *arg)
{
	struct scope_ctx	*c = arg;

	if (m->state != OFL_STATE_COMPLETE)
		return 0;
	c->ids = ofl_xrealloc(c->ids, (c->n + 1) * sizeof *c->ids);
	c->ids[c->n++] = ofl_xstrdup(m->id);
	return 0;
}

/*
 * The scope's artifacts by content, hashed: a search of the store may
 * list every artifact, and each must be looked up in the scope.
 */
static size_t *
art_slot(struct search *s, int64_t blob)
{
	size_t	i, *p;

	i = (size_t)((uint64_t)blob * 0x9e3779b97f4a7c15ULL) &
	    (s->abcap - 1);
	for (;; i = (i + 1) & (s->abcap - 1)) {
		p = &s->abix[i];
		if (*p == 0 || s->a[*p - 1].blob == blob)
			return p;
	}
}

/* a[i] entered in the hash, which grows to stay at most half full. */
static void
art_index(struct search *s, size_t i)
{
	size_t	j;

	if (s->na * 2 > s->abcap) {
		free(s->abix);
		s->abcap = s->abcap == 0 ? 64 : s->abcap * 2;
		while (s->na * 2 > s->abcap)
			s->abcap *= 2;
		s->abix = ofl_xcalloc(s->abcap, sizeof *s->abix);
		for (j = 0; j < s->na; j++)
			*art_slot(s, s->a[j].blob) = j + 1;
		return;
	}
	*art_slot(s, s->a[i].blob) = i + 1;
}

static int
art_by_blob(struct search *s, int64_t blob)
{
	size_t	*p;

	if (s->abcap == 0)
		return -1;
	p = art_slot(s, blob);
	return *p == 0 ? -1 : (int)(*p - 1);
}

static struct hit *
hit_new(struct search *s)
{
	struct hit	*h;

	if (s->nh == s->caph) {
		s->caph = s->caph == 0 ? 32 : s->caph * 2;
		s->h = ofl_xrealloc(s->h, s->caph * sizeof *s->h);
	}
	h = &s->h[s->nh++];
	memset(h, 0, sizeof *h);
	h->seq = -1;
	return h;
}

static void
hit_free(struct hit *h)
{
	free(h->member);
	free(h->title);
	h->member = h->title = NULL;
}

static int
hit_seen(struct search *s, size_t art, int64_t seq)
{
	size_t	i;

	for (i = 0; i < s->nh; i++)
		if (s->h[i].art == art && s->h[i].seq == seq)
			return 1;
	return 0;
}

/* Fill a hit from its chunk row; 0 if the row is gone. */
static int
hit_load(struct search *s, struct hit *h, int64_t blob)
{
	struct ofl_fts_row	row;
	int			rc;

	if ((rc = ofl_store_fts_chunk(s->st, blob, h->seq, &row)) != 1)
		return rc;
	h->member = row.member;
	h->title = row.title;
	h->byte_start = row.byte_start;
	h->byte_end = row.byte_end;
	h->line_start = row.line_start;
	h->line_end = row.line_end;
	h->text_line = h->line_start;
	return 1;
}

/* A row of a query: a new hit, unless it is out of scope or seen. */
static int
fts_hit(int64_t blob, int64_t seq, double score, void *arg)
{
	struct fts_ctx	*c = arg;
	struct search	*s = c->s;
	struct hit	*h;
	int		 art, got;

	if ((art = art_by_blob(s, blob)) < 0 &&
	    (art = scope_lazy(s, blob)) < 0)
		return art == -2 ? -1 : 0;
	if (hit_seen(s, (size_t)art, seq))
		return 0;
	h = hit_new(s);
	h->art = (size_t)art;
	h->seq = seq;
	h->score = score;
	h->phase = c->phase;
	if ((got = hit_load(s, h, blob)) == 1)
		got = scope_range(s, h);
	if (got != 1) {
		hit_free(h);
		s->nh--;
	}
	return got == -1 ? -1 : 0;
}

/* The chunks a search of the store or a filter ranks: OFL_SEARCH_CAP. */
static size_t
rank_cap(void)
{
	uint64_t	 n;

	if (ofl_env_size("OFL_SEARCH_CAP", &n) == 1)
		return n > (uint64_t)INT64_MAX / 2 ? 0 : (size_t)n;
	return RANK_CAP;
}

/*
 * One FTS5 query, over artifact art (-1: the whole scope), adding up to
 * k new hits.  Returns the number of rows seen, -1 on error.
 */
static int
fts_query(struct search *s, const char *match, int phase, ssize_t art,
    size_t k)
{
	struct ofl_fts_query	 fq;
	struct fts_ctx		 c;
	struct art		*qa;
	size_t			 i;

	memset(&fq, 0, sizeof fq);
	fq.match = match;
	fq.raw = s->o->fts;
	fq.limit = k;
	fq.blob = -1;
	fq.scoped = !s->whole && !s->lazy;
	if (s->lazy && !s->whole)
		fq.filter = &s->o->filter;
	/* The whole store or a filter; artifacts named are all ranked. */
	if (!fq.scoped) {
		fq.cap = rank_cap();
		fq.capped = &s->capped;
	}
	if (art >= 0) {
		qa = &s->a[art];
		fq.blob = qa->blob;
		if (qa->nrg > 0) {
			/* Only the chunks that overlap the ranges. */
			fq.lines = 1;
			fq.line_from = qa->rg[0][0];
			fq.line_to = qa->rg[0][1];
			for (i = 1; i < qa->nrg; i++) {
				if (qa->rg[i][0] < fq.line_from)
					fq.line_from = qa->rg[i][0];
				if (qa->rg[i][1] > fq.line_to)
					fq.line_to = qa->rg[i][1];
			}
		}
	}
	c.s = s;
	c.phase = phase;
	return ofl_store_fts_query(s->st, &fq, fts_hit, &c);
}

/* The blobs of a large scope, for one query to filter by. */
static int
scope_table(struct search *s)
{
	int64_t	*blobs;
	size_t	 i;
	int	 rc;

	if (s->scoped)
		return 0;
	blobs = ofl_xcalloc(s->na + 1, sizeof *blobs);
	for (i = 0; i < s->na; i++)
		blobs[i] = s->a[i].blob;
	rc = ofl_store_fts_scope(s->st, blobs, s->na);
	free(blobs);
	if (rc == -1)
		return -1;
	s->scoped = 1;
	return 0;
}

/* Run a query over the scope; more is set if there may be more rows. */
static int
fts_run(struct search *s, const char *match, int phase, size_t k)
{
	size_t	i;
	int	rows;

	if (s->whole || s->lazy || s->na > PER_BLOB_MAX) {
		if (!s->whole && !s->lazy && scope_table(s) == -1)
			return -1;
		if ((rows = fts_query(s, match, phase, -1, k)) == -1)
			return -1;
		if ((size_t)rows >= k)
			s->more = 1;
		return 0;
	}
	for (i = 0; i < s->na; i++) {
		rows = fts_query(s, match, phase, (ssize_t)i, k);
		if (rows == -1)
			return -1;
		if ((size_t)rows >= k)
			s->more = 1;
	}
	return 0;
}

/* Best first: all terms before some, then by score, then position. */
static int
hit_cmp(const void *x, const void *y)
{
	const struct hit	*a = x, *b = y;

	if (a->phase != b->phase)
		return a->phase < b->phase ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	if (a->art != b->art)
		return a->art < b->art ? -1 : 1;
	return a->line_start < b->line_start ? -1 :
	    a->line_start > b->line_start;
}

static int
hit_pos_cmp(const void *x, const void *y)
{
	const struct hit	*a = x, *b = y;
	int			 c;

	if (a->art != b->art)
		return a->art < b->art ? -1 : 1;
	if ((a->member == NULL) != (b->member == NULL))
		return a->member == NULL ? -1 : 1;
	if (a->member != NULL && (c = strcmp(a->member, b->member)) != 0)
		return c;
	if (a->line_start != b->line_start)
		return a->line_start < b->line_start ? -1 : 1;
	return 0;
}

/* Merge hits of one artifact that overlap or touch, then rank them. */
static void
merge_hits(struct search *s)
{
	struct hit	*a, *b;
	size_t		 i, j;

	if (s->nh == 0)
		return;
	qsort(s->h, s->nh, sizeof *s->h, hit_pos_cmp);
	for (i = 0, j = 1; j < s->nh; j++) {
		a = &s->h[i];
		b = &s->h[j];
		if (a->art == b->art && b->line_start <= a->line_end + 1 &&
		    b->line_end - a->line_start < MERGE_LINES_MAX &&
		    ((a->member == NULL && b->member == NULL &&
		    b->byte_start <= a->byte_end) ||
		    (a->member != NULL && b->member != NULL &&
		    a->seq == b->seq && a->text_line == b->text_line &&
		    strcmp(a->member, b->member) == 0))) {
			if (b->line_end > a->line_end) {
				a->line_end = b->line_end;
				a->byte_end = b->byte_end;
			}
			if (b->phase < a->phase ||
			    (b->phase == a->phase && b->score > a->score)) {
				a->phase = b->phase;
				a->score = b->score;
			}
			if (b->order < a->order)
				a->order = b->order;
			if (a->title == NULL && b->title != NULL) {
				a->title = b->title;
				b->title = NULL;
			}
			hit_free(b);
			continue;
		}
		s->h[++i] = *b;
	}
	s->nh = i + 1;
	qsort(s->h, s->nh, sizeof *s->h, hit_cmp);
}

/* The substring scan of an archive's chunks (the chunker run again). */
static int
rescan_cb(const struct ofl_chunk *c, void *arg)
{
	struct rescan	*rc = arg;
	int64_t		 seq = rc->seq++;

	/* Its lines, not the header a table's chunk is led by. */
	if (c->len == c->head)
		return 0;
	if (scan_text(rc->s, rc->art, c->text + c->head, c->len - c->head,
	    c->line_start, 0, c->member, seq) == -1)
		return 1;
	return rc->s->nh >= SCAN_LINES_MAX;
}

/*
 * Find the query terms in text (the bytes from offset off, line lineno
 * on); each line holding one becomes a hit.
 */
static int
scan_text(struct search *s, size_t art, const char *text, size_t len,
    uint64_t lineno, uint64_t off, const char *member, int64_t seq)
{
	const char	*p = text, *end = text + len, *nl, *at, *from, *to;
	const char	*q;
	struct hit	*h;
	uint64_t	 first = lineno;
	size_t		 i, *next;
	int		 found;

	/* Where each target is next found: the lines between, skipped. */
	next = ofl_xcalloc(s->ntg + 1, sizeof *next);
	for (i = 0; i < s->ntg; i++)
		next[i] = SIZE_MAX;
	for (; p < end; p = nl + 1, lineno++) {
		at = end;
		for (i = 0; i < s->ntg; i++) {
			if (next[i] == SIZE_MAX || text + next[i] < p) {
				if ((q = ofl_snippet_find_ci(p, (size_t)(end -
				    p), s->tg[i].s, s->tg[i].n)) == NULL)
					q = end;
				next[i] = (size_t)(q - text);
			}
			if (text + next[i] < at)
				at = text + next[i];
		}
		if (at == end)
			break;
		if ((q = memrchr(p, '\n', (size_t)(at - p))) != NULL) {
			lineno += count_lines(p, (size_t)(q + 1 - p));
			p = q + 1;
		}
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		/* The targets in the line (none that runs past its end). */
		for (i = 0, found = 0, at = nl; i < s->ntg; i++)
			if (next[i] + s->tg[i].n <= (size_t)(nl - text)) {
				found++;
				if (text + next[i] < at)
					at = text + next[i];
			}
		if (found == 0 || !in_ranges(&s->a[art], lineno))
			continue;
		if (s->nh >= SCAN_LINES_MAX) {
			s->more = 1;
			break;
		}
		h = hit_new(s);
		h->art = art;
		h->seq = seq;
		h->phase = PHASE_SUBSTR;
		h->score = (double)found;
		h->order = s->nh;
		if (member != NULL)
			h->member = ofl_xstrdup(member);
		h->text_line = first;
		h->line_start = h->line_end = lineno;
		/*
		 * Of a line longer than a piece of the index's, the piece
		 * around the first match, as a hit of the index would be:
		 * the snippet shows the match, its cuts marked.
		 */
		from = p;
		to = nl < end ? nl + 1 : nl;
		if ((size_t)(nl - p) > SCAN_PIECE) {
			if ((size_t)(at - p) > SCAN_PIECE / 2)
				from = at - SCAN_PIECE / 2;
			while (from > p && ((unsigned char)*from & 0xc0) ==
			    0x80)
				from--;
			if ((size_t)(to - from) > SCAN_PIECE) {
				to = from + SCAN_PIECE;
				while (to > at && ((unsigned char)*to &
				    0xc0) == 0x80)
					to--;
			}
		}
		h->byte_start = off + (uint64_t)(from - text);
		h->byte_end = off + (uint64_t)(to - text);
	}
	free(next);
	return 0;
}

/* The newlines in p[0..n). */
static uint64_t
count_lines(const char *p, size_t n)
{
	const char	*end = p + n, *q;
	uint64_t	 k = 0;

	for (; p < end && (q = memchr(p, '\n', (size_t)(end - p))) != NULL;
	    p = q + 1)
		k++;
	return k;
}

/*
 * The lines of bytes [off, end) of a text (end UINT64_MAX: to its end),
 * line lineno first, scanned whole lines at a time, 1 MiB or so, in a
 * buffer no bigger than the artifact needs: most are small, and a fresh
 * megabyte each costs more than their scan.  The buffer grows (doubling)
 * only for a line longer than it.
 */
static int
scan_range(struct search *s, size_t art, struct ofl_reader *r,
    uint64_t off, uint64_t lineno, uint64_t end)
{
	struct ofl_buf		 b;
	size_t			 keep, want, room;
	ssize_t			 n;
	int			 ret = -1;

	ofl_buf_init(&b);
	want = SNIP_READ_MAX;
	if (end > off && end - off < want)
		want = (size_t)(end - off);
	if (s->a[art].bytes > off && s->a[art].bytes - off < want)
		want = (size_t)(s->a[art].bytes - off);
	if (want < 4096)
		want = 4096;
	if (ofl_reader_seek(r, (int64_t)off) == -1)
		goto out;
	for (;;) {
		if (b.cap < b.len + want / 2 + 1) {
			b.cap = b.len + want + 1 > b.cap * 2 ?
			    b.len + want + 1 : b.cap * 2;
			b.data = ofl_xrealloc(b.data, b.cap);
		}
		room = b.cap - b.len - 1;
		if (end - off - b.len < room)
			room = (size_t)(end - off - b.len);
		n = room > 0 ? ofl_reader_read(r, b.data + b.len, room) : 0;
		if (n == -1)
			goto out;
		b.len += (size_t)n;
		if (n == 0) {
			if (b.len > 0 && scan_text(s, art, b.data, b.len,
			    lineno, off, NULL, -1) == -1)
				goto out;
			break;
		}
		for (keep = b.len; keep > 0 && b.data[keep - 1] != '\n'; keep--)
			;
		if (keep == 0 && b.len < 16 * SNIP_READ_MAX)
			continue;	/* a long line: read more of it */
		if (keep == 0)
			keep = b.len;
		if (scan_text(s, art, b.data, keep, lineno, off, NULL, -1) ==
		    -1)
			goto out;
		lineno += count_lines(b.data, keep);
		off += keep;
		memmove(b.data, b.data + keep, b.len - keep);
		b.len -= keep;
		if (s->nh >= SCAN_LINES_MAX)
			break;
	}
	ret = 0;
out:
	ofl_buf_free(&b);
	return ret;
}

/*
 * The frames of a text to read: those whose sketch (store-sketch.c) may
 * hold a target, and those without one, in runs of adjacent frames.  A
 * frame with a sketch starts and ends at a line's end, so every run but
 * the first (from where the index ends) starts a line.
 */
struct scan_run {
	uint64_t	 off;
	uint64_t	 end;
	uint64_t	 line;
};

struct sketch_walk {
	const struct search	*s;
	uint64_t		 from;
	uint64_t		 from_line;
	struct scan_run		*run;
	size_t			 n;
	size_t			 cap;
	int			 open;		/* the last run goes on */
	int			 skipped;	/* frames left unread */
};

static int
sketch_cb(uint64_t off, uint64_t len, uint64_t line_off,
    const unsigned char *bits, void *arg)
{
	struct sketch_walk	*k = arg;
	struct scan_run		*r;
	size_t			 i;

	for (i = 0; bits != NULL && i < k->s->ntg; i++)
		if (ofl_sketch_may_have(bits, k->s->tg[i].s, k->s->tg[i].n))
			break;
	if (bits != NULL && i == k->s->ntg) {
		k->open = 0;
		k->skipped = 1;
		return 0;
	}
	if (k->open) {
		k->run[k->n - 1].end = off + len;
		return 0;
	}
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 16;
		k->run = ofl_xrealloc(k->run, k->cap * sizeof *k->run);
	}
	r = &k->run[k->n++];
	r->off = off > k->from ? off : k->from;
	r->line = off > k->from ? line_off + 1 : k->from_line;
	r->end = off + len;
	k->open = 1;
	return 0;
}

static int
substring_scan(struct search *s, size_t art)
{
	struct ofl_reader	*r;
	struct rescan		 rc;
	struct sketch_walk	 k;
	uint64_t		 off, lineno;
	size_t			 i;
	int			 ret = 0;

	if ((r = ofl_snippet_reader(s, art)) == NULL)
		return -1;
	if (s->a[art].kind == OFL_KIND_ARCHIVE ||
	    s->a[art].kind == OFL_KIND_COMPRESSED) {
		memset(&rc, 0, sizeof rc);
		rc.s = s;
		rc.art = art;
		if (ofl_reader_seek(r, 0) == -1 ||
		    ofl_reader_chunks(r, s->a[art].kind, rescan_cb, &rc) < 0)
			return -1;
		return 0;
	}
	off = s->a[art].scan_from;
	lineno = s->a[art].scan_line > 0 ? s->a[art].scan_line : 1;
	/* Only the frames that may hold a target, when sketched. */
	memset(&k, 0, sizeof k);
	k.s = s;
	k.from = off;
	k.from_line = lineno;
	if (s->ntg > 0 && ofl_store_frame_sketches(s->st, s->a[art].blob,
	    off, sketch_cb, &k) == 1 && k.skipped) {
		for (i = 0; i < k.n && ret == 0 && s->nh < SCAN_LINES_MAX; i++)
			ret = scan_range(s, art, r, k.run[i].off,
			    k.run[i].line, k.run[i].end);
		free(k.run);
		return ret;
	}
	free(k.run);
	return scan_range(s, art, r, off, lineno, UINT64_MAX);
}

/* Levenshtein distance, or max + 1 once it is sure to exceed max. */
static int
edit_distance(const char *a, size_t n, const char *b, size_t m, int max)
{
	int	 row[64], prev, cur, best, v;
	size_t	 i, j;

	if (n >= 64 || m >= 64)
		return max + 1;
	if ((n > m ? n - m : m - n) > (size_t)max)
		return max + 1;
	for (j = 0; j <= m; j++)
		row[j] = (int)j;
	for (i = 1; i <= n; i++) {
		prev = row[0];
		row[0] = (int)i;
		best = row[0];
		for (j = 1; j <= m; j++) {
			cur = row[j];
			v = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			prev = cur;
			if (v < best)
				best = v;
		}
		if (best > max)
			return max + 1;
	}
	return row[m];
}

/* The word of term i as the index has it (stemmed, lowercased). */
static int
index_word(struct search *s, size_t i, char *tok, size_t size)
{
	struct target_ctx	 c;
	struct term		*t = &s->t[i];
	size_t			 before = s->ntg;

	c.s = s;
	c.prefix = 0;
	c.term = (int)i;
	(void)ofl_tok_run(s->tk, 1, t->text, t->len,
	    ofl_query_terms_target_cb, &c);
	if (s->ntg == before)
		return 0;
	snprintf(tok, size, "%s", s->tg[s->ntg - 1].s);
	/* Drop it again: targets are made later. */
	while (s->ntg > before) {
		free(s->tg[s->ntg - 1].s);
		s->ntg--;
	}
	return 1;
}

/* A word of the index near the one looked for: the closest, most used. */
static void
near_cb(const char *w, int64_t df, void *arg)
{
	struct near	*n = arg;
	int		 d;

	d = edit_distance(n->tok, n->k, w, strlen(w), n->max);
	if (d > n->max)
		return;
	if (d < n->bestd || (d == n->bestd && df > n->bestdf)) {
		n->bestd = d;
		n->bestdf = df;
		free(*n->spell);
		*n->spell = ofl_xstrdup(w);
	}
}

/*
 * Replace each single-word term the index does not know by the closest
 * word it does know.  Returns the number of terms changed.
 */
static int
spell_fix(struct search *s)
{
	struct ofl_fts_vocab	*v;
	struct near		 n;
	struct term		*t;
	char			 tok[64], lo[8], hi[8];
	size_t			 i, k;
	int			 changed = 0;

	if ((v = ofl_store_fts_vocab(s->st)) == NULL)
		return 0;
	for (i = 0; i < s->nt; i++) {
		t = &s->t[i];
		if (t->ntok != 1 || t->phrase || t->prefix || t->stop)
			continue;
		if (!index_word(s, i, tok, sizeof tok))
			continue;
		k = strlen(tok);
		if (k < 3 || strspn(tok, "abcdefghijklmnopqrstuvwxyz") != k)
			continue;
		if (ofl_store_fts_vocab_doc(v, tok, k) > 0)
			continue;
		memset(&n, 0, sizeof n);
		n.tok = tok;
		n.k = k;
		n.max = k >= 5 ? 2 : 1;
		n.bestd = n.max + 1;
		n.spell = &t->spell;
		t->spell = NULL;
		snprintf(lo, sizeof lo, "%c", tok[0]);
		snprintf(hi, sizeof hi, "%c", tok[0] + 1);
		ofl_store_fts_vocab_range(v, lo, hi, near_cb, &n);
		if (t->spell != NULL)
			changed++;
	}
	ofl_store_fts_vocab_free(v);
	return changed;
}

/* 1 if an artifact listed in the scope was removed since (by a gc). */
static int
art_gone(struct ofl_store *st, const char *id)
{
	struct ofl_meta	m;

	if (ofl_store_meta(st, id, &m) == -1)
		return 1;
	ofl_meta_free(&m);
	return 0;
}

void
ofl_search_opts_init(struct ofl_search_opts *o)
{
	memset(o, 0, sizeof *o);
	ofl_filter_init(&o->filter);
}

static int
filter_empty(const struct ofl_filter *f)
{
	return f->label == NULL && f->session == NULL && f->kind < 0 &&
	    f->newer_ms == 0 && f->older_ms == 0;
}

/* The artifacts searched: those named, else the store narrowed. */
static int
search_scope(struct search *s, const char *const *ids, size_t nids)
{
	const struct ofl_search_opts	*o = s->o;
	struct scope_ctx		 sc;
	struct ofl_filter		 f;
	size_t				 i;
	int				 ret = -1;

	memset(&sc, 0, sizeof sc);
	if (nids > 0) {
		for (i = 0; i < nids; i++)
			if (scope_add(s, ids[i], 1, o->ranges != NULL ?
			    &o->ranges[i] : NULL) == -1)
				return -1;
		return 0;
	}
	if (!s->listed) {
		/* The store: one query, artifacts added as rows name them. */
		s->whole = filter_empty(&o->filter);
		s->lazy = 1;
		return 0;
	}
	f = o->filter;
	f.limit = 0;
	s->whole = filter_empty(&f);
	sc.s = s;
	if (ofl_store_list(s->st, &f, scope_cb, &sc) == -1)
		goto out;
	for (i = 0; i < sc.n; i++)
		if (scope_add(s, sc.ids[i], 0, NULL) == -1)
			goto out;
	ret = 0;
out:
	for (i = 0; i < sc.n; i++)
		free(sc.ids[i]);
	free(sc.ids);
	return ret;
}

/* Index what the scope holds that is not indexed yet. */
static int
search_index(struct search *s, size_t nids)
{
	size_t	i;
	int	state;

	if (s->lazy)
		return search_index_lazy(s);
	for (i = 0; i < s->na; i++) {
		if ((state = ofl_index_state(s->st, s->a[i].blob)) == -1)
			return -1;
		if (state == 0 && (state = index_busy(s, i)) == -1)
			return -1;
		/* Removed by a gc since it was listed: no error. */
		if (state == 0 && ofl_index_artifact(s->st, s->a[i].id,
		    s->o->progress, s->o->progress_arg, NULL) == -1 &&
		    (nids > 0 || !art_gone(s->st, s->a[i].id)))
			return -1;
	}
	return 0;
}

/* All the terms, then any of them; any: how many terms count. */
static int
search_fts(struct search *s, int any, size_t limit, size_t k)
{
	free(s->fts_and);
	free(s->fts_or);
	free(s->fts_lex);
	s->fts_and = ofl_query_terms_fts(s, " AND ");
	ofl_query_terms_lex_find(s);
	s->fts_lex = ofl_query_terms_lex(s, 0);
	/* Any of the terms, in other words too ("project website"). */
	if ((s->fts_or = ofl_query_terms_lex(s, 1)) == NULL)
		s->fts_or = ofl_query_terms_fts(s, " OR ");
	if (s->fts_and != NULL && fts_run(s, s->fts_and, PHASE_ALL, k) == -1)
		return -1;
	if (s->fts_lex != NULL && s->nh <= limit * 2 &&
	    fts_run(s, s->fts_lex, PHASE_LEX, k) == -1)
		return -1;
	/* Hits that touch are merged, and of one message folded: room. */
	if (any > 1 && (s->nh <= limit * 2 || ofl_snippet_snap_scope(s)) &&
	    s->fts_or != NULL &&
	    fts_run(s, s->fts_or, PHASE_ANY, k) == -1)
		return -1;
	return 0;
}

/* Nothing matched: the terms as substrings of the artifacts' text. */
static int
search_substr(struct search *s, size_t nids)
{
	char	*lc;
	size_t	 i, j;

	if (s->lazy && scope_list(s) == -1)
		return -1;
	s->substr = 1;
	for (i = 0; i < s->nt; i++) {
		lc = ofl_xstrdup(s->t[i].text);
		for (j = 0; lc[j] != '\0'; j++)
			lc[j] = (char)tolower((unsigned char)lc[j]);
		ofl_query_terms_target_add(s, lc, strlen(lc), 0, 0, (int)i);
		free(lc);
	}
	for (i = 0; i < s->na && s->ntg > 0; i++)
		if (s->listed && i > 0 && ofl_now_ms() - s->t0 >=
		    SCAN_BUDGET_MS) {
			s->unreached += s->na - i;
			break;
		} else if (substring_scan(s, i) == -1 &&
		    (nids > 0 || !art_gone(s->st, s->a[i].id)))
			return -1;
	if (s->nh > 0)
		s->fallback = FALLBACK_SUBSTR;
	else {
		for (i = 0; i < s->ntg; i++)
			free(s->tg[i].s);
		s->ntg = 0;
		s->substr = 0;
	}
	return 0;
}

/*
 * Every word of the query is in most chunks of a JSON artifact, so the
 * scores are all but nil and their order says nothing: the chunks whose
 * path ends at a key the query names go first (snippet-rank.c), found
 * among more rows of the same query.
 */
static int
search_flat(struct search *s)
{
	const char	*match;
	size_t		 i;
	int		 phase = PHASE_ANY + 1;

	for (i = 0; i < s->nh; i++)
		if (s->h[i].phase < phase)
			phase = s->h[i].phase;
	for (i = 0; i < s->nh; i++) {
		if (s->h[i].phase != phase)
			continue;
		if (!ofl_snippet_rank_json(s, &s->h[i]) ||
		    s->h[i].score >= FLAT_SCORE)
			return 0;
	}
	match = phase == PHASE_ALL ? s->fts_and : phase == PHASE_LEX ?
	    s->fts_lex : s->fts_or;
	if (match == NULL || fts_run(s, match, phase, FLAT_K) == -1)
		return match == NULL ? 0 : -1;
	for (i = 0; i < s->nh; i++)
		if (s->h[i].phase == phase &&
		    ofl_snippet_rank_named(s, &s->h[i]))
			s->h[i].score += FLAT_SCORE;
	return 0;
}

/* All terms, then any, then substrings, then spellings. */
static int
search_terms(struct search *s, size_t nids, size_t limit, size_t k)
{
	size_t	i;
	int	any = 0;

	ofl_query_terms_parse(s, s->o->query);
	for (i = 0; i < s->nt; i++)
		if (s->t[i].ntok > 0 && !s->t[i].stop)
			s->skipstop = 1;
	for (i = 0; i < s->nt; i++)
		if (s->t[i].ntok > 0 && (!s->t[i].stop || !s->skipstop))
			any++;
	if (search_fts(s, any, limit, k) == -1 ||
	    scan_pending(s) == -1 || search_flat(s) == -1)
		return -1;
	/* Without an index, the scan was the substring search. */
	if (s->nh == 0 && search_substr(s, nids) == -1)
		return -1;
	if (s->nh == 0 && any > 0 && spell_fix(s) > 0) {
		if (search_fts(s, any, limit, k) == -1)
			return -1;
		if (s->nh > 0)
			s->fallback = FALLBACK_SPELL;
	}
	if (!s->substr)
		ofl_query_terms_targets(s, NULL);
	return 0;
}

int
ofl_search(struct ofl_store *st, const char *const *ids, size_t nids,
    const struct ofl_search_opts *o, struct ofl_buf *out)
{
	struct search	s;
	size_t		i, k, k0, limit;
	int		ret = -1;

	memset(&s, 0, sizeof s);
	if (o->query == NULL)
		return 0;
	s.st = st;
	s.o = o;
	s.bg = ofl_index_bg();
	limit = o->limit > 0 ? (size_t)o->limit : OFL_SEARCH_LIMIT;
	k = limit * 4 + 4;
	if (ofl_index_init(st) == -1 ||
	    (s.tk = ofl_store_fts_tok(st)) == NULL)
		goto out;
	if (ofl_redact_wanted())
		s.rd = ofl_redactor_new();
	if (search_scope(&s, ids, nids) == -1)
		goto out;
	if (s.na == 0 && !s.lazy) {
		ret = 0;
		goto out;
	}
	if (search_index(&s, nids) == -1)
		goto out;
	/*
	 * A snapshot's answer is found by its name among more hits: the
	 * best k of them by name (snippet-snap.c) are kept.
	 */
	k0 = k;
	if (ofl_snippet_snap_scope(&s) && k < OFL_SNAP_RANK_MAX)
		k = OFL_SNAP_RANK_MAX;
	if (o->fts) {
		ofl_query_terms_targets(&s, o->query);
		if (fts_run(&s, o->query, PHASE_ALL, k) == -1)
			goto out;
	} else if (search_terms(&s, nids, limit, k) == -1)
		goto out;
	if (k > k0 && s.nh > k0) {
		ofl_snippet_snap_rank(&s);
		for (i = k0; i < s.nh; i++)
			hit_free(&s.h[i]);
		s.nh = k0;
	}
	merge_hits(&s);
	ofl_snippet_snap_rank(&s);
	search_note(&s);
	if (s.nh == 0) {
		ret = 0;
		goto out;
	}
	ofl_snippet_output(&s, out, ids, nids);
	for (i = 0; i < s.na; i++)
		if (s.a[i].hit)
			ofl_store_touch(st, s.a[i].id);
	ret = (int)(s.nh < limit ? s.nh : limit);
	if (s.readerr > 0) {
		ofl_seterr(OFL_EXIT_FAIL, "%s", s.readmsg);
		ret = -1;
	}
out:
	search_free(&s);
	return ret;
}

int
ofl_search_intent(struct ofl_store *st, const char *id, const char *intent,
    size_t budget, struct ofl_buf *out)
{
	struct ofl_search_opts	o;
	const char		*ids[1];

	ofl_search_opts_init(&o);
	o.query = intent;
	o.budget = budget;
	ids[0] = id;
	return ofl_search(st, ids, 1, &o, out);
}

/*
 * The search of the store (no IDs) in one query.  The artifacts are not
 * listed up front: the filter is part of the query's SQL, and an
 * artifact enters the scope when a row of its content comes back.  What
 * has to read the artifacts one by one (the substring scan) lists them,
 * newest first, and stops at a time budget.
 */

/* Artifact of blob made part of the scope: its index, -1 if none, -2. */
static int
scope_lazy(struct search *s, int64_t blob)
{
	char	id[OFL_ID_MAX + 1];
	int	rc;

	if (!s->lazy)
		return -1;
	rc = ofl_store_fts_blob_art(s->st, blob, s->whole ? NULL :
	    &s->o->filter, id, sizeof id);
	if (rc != 1)
		return rc == 0 ? -1 : -2;
	if (scope_add(s, id, 0, NULL) == -1)
		return -2;
	return art_by_blob(s, blob);
}

/* The lazy scope listed whole, newest first, for a scan. */
static int
scope_list(struct search *s)
{
	s->listed = 1;
	s->lazy = 0;
	s->t0 = ofl_now_ms();
	return search_scope(s, NULL, 0);
}

struct unindexed {
	char		(*ids)[OFL_ID_MAX + 1];
	size_t		  n;
};

static int
unindexed_cb(const char *id, int64_t blob, void *arg)
{
	struct unindexed	*u = arg;

	(void)blob;
	u->ids = ofl_xrealloc(u->ids, (u->n + 1) * sizeof *u->ids);
	snprintf(u->ids[u->n++], sizeof u->ids[0], "%s", id);
	return 0;
}

/*
 * What the store's scope holds that is not indexed yet.  With indexing
 * in the background (the rule), it is scanned after the query, newest
 * first, within a time budget; without, it is indexed now.
 */
static int
search_index_lazy(struct search *s)
{
	struct ofl_filter	 any;
	struct unindexed	 u;
	size_t			 i, na;
	int			 ret = -1;

	ofl_filter_init(&any);
	memset(&u, 0, sizeof u);
	if (ofl_store_fts_unindexed(s->st, s->whole ? &any : &s->o->filter,
	    unindexed_cb, &u) == -1)
		return -1;
	for (i = 0; i < u.n; i++) {
		if (!s->bg) {
			if (ofl_index_artifact(s->st, u.ids[i],
			    s->o->progress, s->o->progress_arg, NULL) == -1 &&
			    !art_gone(s->st, u.ids[i]))
				goto out;
			continue;
		}
		na = s->na;
		if (scope_add(s, u.ids[i], 0, NULL) == -1)
			goto out;
		if (s->na > na) {
			s->a[na].pending = 1;
			s->npending++;
		}
	}
	ret = 0;
out:
	free(u.ids);
	return ret;
}

/*
 * An artifact not indexed: 0 if nobody indexes it (index it now), 1 if
 * another process does, now or in a moment (a capture has just started
 * it in the background): then what it has indexed is asked of the
 * index and the rest is scanned.  An archive waits for the index; so,
 * for WAIT_MS at most, does an artifact with at most WAIT_BYTES left to
 * index (half a second of work or so): a scan finds lines but does not
 * rank them.
 */
#define WAIT_BYTES	(8 * 1024 * 1024)
#define WAIT_MS		1500

static int
index_busy(struct search *s, size_t i)
{
	struct art	*a = &s->a[i];
	struct timespec	 ts = { 0, 20 * 1000 * 1000 };
	int64_t		 start;
	int		 rc, tries;

	if (a->kind == OFL_KIND_ARCHIVE || a->kind == OFL_KIND_COMPRESSED ||
	    !s->bg || a->nrg > 0)
		return 0;
	for (tries = 0; tries < 15; tries++) {
		rc = ofl_store_fts_progress(s->st, a->blob, &a->scan_from,
		    &a->scan_line);
		if (rc != 0)
			break;
		if (ofl_now_ms() - a->created > 5000)
			return 0;
		nanosleep(&ts, NULL);	/* the indexer is on its way */
	}
	/*
	 * A large artifact just captured whose indexer is slow to start (a
	 * loaded machine): scanned, not indexed here, at 16 MB/s, while the
	 * indexer the capture started comes.
	 */
	if (rc == 0 && a->bytes > WAIT_BYTES &&
	    ofl_now_ms() - a->created <= 5000) {
		a->scan_from = 0;
		a->scan_line = 1;
		rc = 1;
	}
	start = ofl_now_ms();
	while (rc == 1 && (a->bytes <= a->scan_from ||
	    a->bytes - a->scan_from <= WAIT_BYTES) &&
	    ofl_now_ms() - start < WAIT_MS) {
		nanosleep(&ts, NULL);
		rc = ofl_store_fts_progress(s->st, a->blob, &a->scan_from,
		    &a->scan_line);
	}
	if (rc != 1)
		return rc;	/* 0: done now, the index has it */
	a->pending = 1;
	s->npending++;
	if (s->o->note != NULL)
		ofl_buf_addf(s->o->note, "ofl:%s: being indexed (%llu%%): "
		    "lines from %llu on were scanned, not ranked\n", a->id,
		    a->bytes > 0 ? (unsigned long long)(a->scan_from * 100 /
		    a->bytes) : 0ULL, (unsigned long long)a->scan_line);
	return 1;
}

/*
 * Scan what is not indexed for the query's words as substrings, after
 * the index answered for the rest: newest first, until the time budget
 * is spent.  Its hits rank below the index's.
 */
static int
scan_pending(struct search *s)
{
	size_t	i, j, ntg = s->ntg;
	char	*lc;

	if (s->npending == 0)
		return 0;
	for (i = 0; i < s->nt; i++) {
		lc = ofl_xstrdup(s->t[i].text);
		for (j = 0; lc[j] != '\0'; j++)
			lc[j] = (char)tolower((unsigned char)lc[j]);
		ofl_query_terms_target_add(s, lc, strlen(lc), 0, 0, (int)i);
		free(lc);
	}
	s->t0 = ofl_now_ms();
	for (i = 0, j = 0; i < s->na; i++) {
		if (!s->a[i].pending)
			continue;
		if (j++ > 0 && ofl_now_ms() - s->t0 >= SCAN_BUDGET_MS) {
			s->unreached++;
			continue;
		}
		if (substring_scan(s, i) == -1 && !art_gone(s->st, s->a[i].id))
			return -1;
	}
	while (s->ntg > ntg)
		free(s->tg[--s->ntg].s);
	return 0;
}

/* One line for stderr on what the search could not reach. */
static void
search_note(struct search *s)
{
	if (s->o->note != NULL && s->capped)
		ofl_buf_addf(s->o->note, "the query matches more than %zu "
		    "chunks: those of the newest contents were ranked "
		    "(--before AGE for older ones, OFL_SEARCH_CAP=0 for all)\n",
		    rank_cap());
	if (s->o->note == NULL || s->unreached == 0)
		return;
	ofl_buf_addf(s->o->note, "%zu artifacts not searched (time limit): "
	    "%s\n", s->unreached, s->npending > 0 ?
	    "not indexed yet; ofl-index --pending indexes them" :
	    "name them to scan them");
}

static void
search_free(struct search *s)
{
	size_t	i;

	for (i = 0; i < s->na; i++) {
		ofl_reader_close(s->a[i].r);
		ofl_schema_log_map_close(s->a[i].tm);
		free(s->a[i].rg);
	}
	free(s->a);
	free(s->abix);
	ofl_snippet_snap_free(s);
	for (i = 0; i < s->nt; i++) {
		free(s->t[i].text);
		free(s->t[i].exact);
		free(s->t[i].spell);
		free(s->t[i].compound);
	}
	free(s->t);
	for (i = 0; i < s->ntg; i++) {
		free(s->tg[i].s);
		free(s->tg[i].surface);
	}
	free(s->tg);
	for (i = 0; i < s->nh; i++)
		hit_free(&s->h[i]);
	free(s->h);
	free(s->m);
	free(s->sp);
	free(s->fts_and);
	free(s->fts_or);
	free(s->fts_lex);
	ofl_tok_free(s->tk);
	ofl_redactor_free(s->rd);
	ofl_buf_free(&s->rtmp);
}
