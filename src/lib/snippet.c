/*
 * snippet.c: the lines of each hit shown, and the output of a search.
 *
 * Snippets are cut from the artifact itself: the lines of the best
 * matching chunk that carry the most query terms, byte for byte, each
 * prefixed with its number (":" for a line with a match, "-" for
 * context, as grep -n does), within a byte budget.  Matches are never
 * marked in the text, which would change the evidence: a terminal sees
 * them in color (escapes left out of the budget, so it sees the same
 * lines as a pipe), JSON gives their byte offsets in each line.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "search.h"
#include "banned.h"

#define LINE_SHOW_MAX	400		/* bytes of one snippet line */
#define TOP_SHARES	2		/* of the budget, the first hit's */
#define WIDE_MIN	150		/* bytes left that widen the first */
#define WEAK_FILL	500		/* bytes under which weak hits show */
#define SNIP_BEFORE	64		/* bytes read before a hit's first */
#define TITLE_MAX	120
#define HEADER_SHOW	200		/* bytes of a table's header shown */
#define MORE_QUERY_MAX	512		/* a query repeated in "more:" */
#define SNAP_LINE_MAX	150		/* bytes of a snapshot's line shown */
#define ADJ_GAP		3		/* bytes between words of a phrase */
/* Colors as grep uses them: matches, line numbers, references. */
#define COLOR_MATCH	"\033[01;31m"
#define COLOR_LINENO	"\033[32m"
#define COLOR_REF	"\033[35m"

/* The chunk text of an archive member (the chunker run again). */
struct member {
	int64_t		 want;
	int64_t		 seq;
	struct ofl_buf	*out;
	int		 found;
};

static int	 member_cb(const struct ofl_chunk *, void *);
static void	 substring_titles(struct search *, size_t);
static void	 note_readerr(struct search *, struct hit *);
static int	 hit_text(struct search *, struct hit *, struct ofl_buf *,
		    int *);
static size_t	 utf8_back(const char *, size_t);
static void	 hit_kind(struct search *, const struct hit *);
static struct ofl_schema_log_map *hit_tmpl(struct search *,
		    const struct hit *);
static size_t	 split_lines(struct search *, const struct hit *,
		    const struct ofl_buf *, struct line **);
static size_t	 line_window(struct search *, const struct line *, size_t,
		    size_t *, size_t *);
static size_t	 snap_skip(const struct search *, const struct line *);
static void	 render_line(struct ofl_buf *, struct search *,
		    const struct line *, size_t, size_t);
static void	 hits_prepare(struct search *, size_t);
static size_t	 digits(uint64_t);
static int	 select_lines(struct search *, struct line *, size_t, size_t,
		    size_t);
static void	 render_hit(struct search *, struct hit *, size_t,
		    struct ofl_buf *, size_t *, int *);
static size_t	 render_hits(struct search *, struct ofl_buf *, size_t, size_t,
		    size_t, size_t, size_t, int *, size_t *);
static void	 widen_first(struct search *, struct ofl_buf *, size_t, size_t,
		    size_t, size_t, int *);
static void	 add_name(struct ofl_buf *, struct search *, const char *,
		    size_t);
static void	 add_ref(struct ofl_buf *, const struct search *,
		    const struct hit *);
static void	 add_member(struct ofl_buf *, struct search *,
		    const struct hit *);
static void	 add_note(struct ofl_buf *, struct search *);
static void	 add_json_str_safe(struct ofl_buf *, const char *, size_t);
static void	 output_json_hit(struct ofl_buf *, struct search *,
		    struct hit *, size_t);
static void	 add_more_search(struct ofl_buf *, struct search *,
		    const char *const *, size_t, int, size_t);

/* The text of chunk want, at most SNIP_READ_MAX bytes of it. */
static int
member_cb(const struct ofl_chunk *c, void *arg)
{
	struct member	*mc = arg;
	int64_t		 seq = mc->seq++;

	if (seq < mc->want)
		return 0;
	/* Its lines, not the header a table's chunk is led by. */
	ofl_buf_add(mc->out, c->text + c->head, c->len - c->head >
	    SNIP_READ_MAX ? SNIP_READ_MAX : c->len - c->head);
	mc->found = 1;
	return 1;
}

/* Titles of substring hits: the chunk that holds the line. */
static void
substring_titles(struct search *s, size_t upto)
{
	struct ofl_fts_title	*t;
	struct hit		*h;
	size_t			 i, n = 0;

	t = ofl_xcalloc(upto + 1, sizeof *t);
	for (i = 0; i < s->nh && i < upto; i++) {
		h = &s->h[i];
		if (h->title != NULL || (h->member != NULL && h->seq < 0))
			continue;
		t[n].blob = s->a[h->art].blob;
		t[n].seq = h->member != NULL ? h->seq : -1;
		t[n].line = h->line_start;
		n++;
	}
	ofl_store_fts_titles(s->st, t, n);
	for (i = 0, n = 0; i < s->nh && i < upto; i++) {
		h = &s->h[i];
		if (h->title != NULL || (h->member != NULL && h->seq < 0))
			continue;
		h->title = t[n++].title;
	}
	free(t);
}

struct ofl_reader *
ofl_snippet_reader(struct search *s, size_t art)
{
	if (s->a[art].r == NULL)
		s->a[art].r = ofl_reader_open(s->st, s->a[art].id);
	return s->a[art].r;
}

/*
 * A hit whose text cannot be read: the artifact was removed since the
 * query (gc), which is no error, or its content is damaged or missing,
 * which is, once the rest is printed.
 */
static void
note_readerr(struct search *s, struct hit *h)
{
	struct ofl_meta	m;
	char		msg[512];

	snprintf(msg, sizeof msg, "%s", ofl_errmsg());
	if (ofl_store_meta(s->st, s->a[h->art].id, &m) == -1)
		return;
	ofl_meta_free(&m);
	if (s->readerr++ == 0)
		snprintf(s->readmsg, sizeof s->readmsg, "%s", msg);
}

/* The text of a hit into b; *cut is set if not all of it was read. */
static int
hit_text(struct search *s, struct hit *h, struct ofl_buf *b, int *cut)
{
	struct ofl_reader	*r;
	struct member		 mc;
	uint64_t		 want;
	ssize_t			 n;
	size_t			 before, i;

	ofl_buf_reset(b);
	if ((r = ofl_snippet_reader(s, h->art)) == NULL)
		return -1;
	if (h->member != NULL) {
		memset(&mc, 0, sizeof mc);
		mc.want = h->seq;
		mc.out = b;
		if (ofl_reader_seek(r, 0) == -1 || ofl_reader_chunks(r,
		    s->a[h->art].kind, member_cb, &mc) < 0 || !mc.found)
			return -1;
		if (h->line_start > h->text_line) {
			/* Only the hit's lines of the chunk's text. */
			uint64_t	 skip = h->line_start - h->text_line;
			uint64_t	 keep = h->line_end - h->line_start + 1;
			char		*p = b->data, *e = b->data + b->len;

			while (skip > 0 && p < e && (p = memchr(p, '\n',
			    (size_t)(e - p))) != NULL) {
				p++;
				skip--;
			}
			if (p == NULL || skip > 0)
				p = e;
			e = p;
			while (keep > 0 && e < b->data + b->len) {
				e = memchr(e, '\n', b->len - (size_t)(e - b->data));
				if (e == NULL) {
					e = b->data + b->len;
					break;
				}
				e++;
				keep--;
			}
			memmove(b->data, p, (size_t)(e - p));
			b->len = (size_t)(e - p);
		}
		return 0;
	}
	want = h->byte_end - h->byte_start;
	if (want > SNIP_READ_MAX) {
		want = SNIP_READ_MAX;
		*cut = 1;
	}
	/*
	 * The bytes before: a hit that starts inside a line (a piece of a
	 * long one) shows that its first line is cut, as the end of one
	 * that stops inside a line does; a JSON member's indentation is
	 * no cut.
	 */
	before = h->byte_start < SNIP_BEFORE ? (size_t)h->byte_start :
	    SNIP_BEFORE;
	want += (uint64_t)before;
	if (ofl_reader_seek(r, h->byte_start - (uint64_t)before) == -1)
		return -1;
	if (b->cap < want + 1) {
		b->cap = (size_t)want + 1;
		b->data = ofl_xrealloc(b->data, b->cap);
	}
	if ((n = ofl_reader_read_full(r, b->data + b->len, (size_t)want -
	    b->len)) == -1)
		return -1;
	b->len += (size_t)n;
	h->cutl = h->cutr = 0;
	if (before > b->len)
		before = b->len;
	for (i = before; i > 0 && b->data[i - 1] != '\n'; i--)
		if (b->data[i - 1] != ' ' && b->data[i - 1] != '\t')
			h->cutl = 1;	/* indentation is no cut */
	b->len -= before;
	memmove(b->data, b->data + before, b->len);
	if (b->len > 0 && b->data[b->len - 1] != '\n' &&
	    h->byte_start + b->len < s->a[h->art].bytes)
		h->cutr = 1;
	return 0;
}

/* Back up to the start of a UTF-8 sequence. */
static size_t
utf8_back(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

/* What the hit's text is, for the choice of its lines. */
static void
hit_kind(struct search *s, const struct hit *h)
{
	int	kind = h->member == NULL ? s->a[h->art].kind : -1;

	s->cursnap = kind == OFL_KIND_SNAPSHOT;
	s->curdiff = kind == OFL_KIND_DIFF;
	s->curmd = kind == OFL_KIND_MARKDOWN;
	s->cursep = kind == OFL_KIND_CSV ? ',' : kind == OFL_KIND_TSV ?
	    '\t' : 0;
	s->curprose = kind == OFL_KIND_SNAPSHOT || kind ==
	    OFL_KIND_MARKDOWN || kind == OFL_KIND_HTML;
	s->curtm = hit_tmpl(s, h);
}

/* Split a hit's text into lines and find the marks each holds. */
static size_t
split_lines(struct search *s, const struct hit *h, const struct ofl_buf *text,
    struct line **lp)
{
	struct line	*l = NULL;
	const char	*p, *e, *end;
	size_t		 nl = 0, capl = 0, mk = 0, j, last, pend;
	uint64_t	 no, bit, named;
	int		 t, pt;

	p = text->data;
	end = text->data + text->len;
	for (no = h->line_start; p != NULL && p < end; no++, p = e + 1) {
		if ((e = memchr(p, '\n', (size_t)(end - p))) == NULL)
			e = end;
		if (nl == capl) {
			capl = capl == 0 ? 64 : capl * 2;
			l = ofl_xrealloc(l, capl * sizeof *l);
		}
		memset(&l[nl], 0, sizeof l[nl]);
		l[nl].s = p;
		l[nl].n = (size_t)(e - p);
		while (l[nl].n > 0 && l[nl].s[l[nl].n - 1] == '\r')
			l[nl].n--;
		l[nl].no = no;
		while (mk < s->nm && s->m[mk].start < (size_t)(p - text->data))
			mk++;
		l[nl].mark0 = mk;
		named = 0;
		for (j = mk, last = 0, pt = -1, pend = 0; j < s->nm &&
		    s->m[j].start < (size_t)(e - text->data); j++) {
			l[nl].nmarks++;
			/* The query's words in its order: a phrase. */
			t = s->tg[s->m[j].target].term;
			if (pt >= 0 && t == pt + 1 && s->m[j].start >= pend &&
			    s->m[j].start - pend <= ADJ_GAP &&
			    !ofl_snippet_has_alnum(text->data + pend,
			    s->m[j].start - pend))
				l[nl].adj++;
			if (t != pt || s->m[j].end > pend) {
				pt = t;
				pend = s->m[j].end;
			}
			/* Words of a name and the name: one span. */
			if (j == mk || s->m[j].start >= last)
				l[nl].nspans++;
			if (j == mk || s->m[j].end > last)
				last = s->m[j].end;
			if (!ofl_snippet_mark_counts(s, text->data, j, mk,
			    (size_t)(p - text->data), (size_t)(e - text->data)))
				continue;
			s->m[j].counts = 1;
			bit = (uint64_t)1 << (s->tg[s->m[j].target].term & 63);
			l[nl].mask |= bit;
			if (ofl_snippet_mark_whole(s, text->data, j, mk, p, e))
				l[nl].wmask |= bit;
			/* A term's first mark: names, not mentions. */
			if (!(named & bit))
				l[nl].other += ofl_snippet_lines_other(s,
				    text->data, j, mk, p, e);
			named |= bit;
		}
		nl++;
	}
	if (nl > 0 && h->member == NULL) {
		l[0].cutl = h->cutl;
		l[nl - 1].cutr = h->cutr;
	}
	*lp = l;
	return nl;
}

/*
 * The part of a line to show in about max bytes: all of it if it fits,
 * else the window that holds the most distinct terms.  Returns the bytes
 * it takes to show, elisions included.
 */
static size_t
line_window(struct search *s, const struct line *l, size_t max, size_t *fromp,
    size_t *top)
{
	size_t		 off = (size_t)(l->s - s->mtext), i, j, from, to;
	size_t		 best_from = 0, cost;
	uint64_t	 mask;
	int		 cover, best = -1;

	if (l->n <= max) {
		*fromp = 0;
		*top = l->n;
	} else {
		for (i = 0; i <= (size_t)l->nmarks && i < 64; i++) {
			if (i == 0)
				from = 0;
			else {
				from = s->m[l->mark0 + i - 1].start - off;
				from = from > 16 ? from - 16 : 0;
			}
			to = from + max;
			mask = 0;
			for (j = 0; j < (size_t)l->nmarks; j++)
				if (s->m[l->mark0 + j].start - off >= from &&
				    s->m[l->mark0 + j].end - off <= to)
					mask |= (uint64_t)1 << (s->tg[s->m[
					    l->mark0 + j].target].term & 63);
			cover = __builtin_popcountll(mask);
			if (cover > best) {
				best = cover;
				best_from = from;
			}
		}
		from = best_from;
		to = from + max;
		if (to > l->n) {
			to = l->n;
			from = to > max ? to - max : 0;
		}
		*fromp = utf8_back(l->s, from);
		*top = to < l->n ? utf8_back(l->s, to) : to;
	}
	cost = *top - *fromp;
	if (*fromp > 0)
		cost += 3;
	if (*top < l->n)
		cost += 3;
	return cost;
}

/* The bytes of a snapshot's line left out: the indent all share. */
static size_t
snap_skip(const struct search *s, const struct line *l)
{
	size_t	skip = 0;

	while (skip < s->snapind && skip < l->n && l->s[skip] == ' ')
		skip++;
	return skip;
}

/*
 * Show the part [from, to) of a line, byte for byte (control characters
 * and bytes that are not UTF-8 as \xNN).  With s->record set, each match
 * shown is recorded as a span of out.
 */
static void
render_line(struct ofl_buf *out, struct search *s, const struct line *l,
    size_t from, size_t to)
{
	const char	*base = l->s;
	size_t		 lineoff = (size_t)(l->s - s->mtext), pos, mk, st, en;
	size_t		 at, skip = 0;

	/* A snapshot's hit: the indent all its lines share is left out. */
	if (s->cursnap)
		skip = snap_skip(s, l);
	if (from == 0 && !l->cutl)
		from = skip;
	if (s->rd != NULL) {
		/* A line that holds a secret is shown masked, unmarked. */
		ofl_buf_reset(&s->rtmp);
		ofl_redact_line(s->rd, base + from, to - from, &s->rtmp);
		if (s->rtmp.len != to - from ||
		    memcmp(s->rtmp.data, base + from, to - from) != 0) {
			if (from > skip || l->cutl)
				ofl_buf_adds(out, "...");
			ofl_render_safe(out, (const unsigned char *)
			    s->rtmp.data, s->rtmp.len, SIZE_MAX);
			if (to < l->n || l->cutr)
				ofl_buf_adds(out, "...");
			return;
		}
	}
	if (from > skip && l->head > skip && l->head < from)
		ofl_render_safe(out, (const unsigned char *)base + skip,
		    l->head - skip, SIZE_MAX);
	if (from > skip || l->cutl)
		ofl_buf_adds(out, "...");
	pos = from;
	for (mk = l->mark0; s->record && mk < l->mark0 + (size_t)l->nmarks;
	    mk++) {
		st = s->m[mk].start - lineoff;
		en = s->m[mk].end - lineoff;
		if (en <= pos || !s->m[mk].counts)
			continue;	/* inside a match already shown */
		if (st < pos)
			st = pos;
		if (st >= to)
			break;
		/* Matches that overlap are shown as one. */
		while (mk + 1 < l->mark0 + (size_t)l->nmarks &&
		    s->m[mk + 1].start - lineoff < en) {
			mk++;
			if (s->m[mk].counts && s->m[mk].end - lineoff > en)
				en = s->m[mk].end - lineoff;
		}
		if (en > to)
			en = to;
		ofl_render_safe(out, (const unsigned char *)base + pos,
		    st - pos, SIZE_MAX);
		at = out->len;
		ofl_render_safe(out, (const unsigned char *)base + st,
		    en - st, SIZE_MAX);
		ofl_snippet_span_add(s, at, out->len - at, COLOR_MATCH);
		pos = en;
	}
	if (pos < to)
		ofl_render_safe(out, (const unsigned char *)base + pos,
		    to - pos, SIZE_MAX);
	if (to < l->n || l->cutr)
		ofl_buf_adds(out, "...");
}

static size_t
digits(uint64_t n)
{
	size_t	d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

uint64_t
ofl_snippet_signature(const char *line, size_t n)
{
	struct ofl_buf	b;
	uint64_t	h;

	ofl_buf_init(&b);
	h = ofl_snippet_lines_sig(&b, line, n);
	ofl_buf_free(&b);
	return h;
}

/*
 * The templates of a hit's log, opened once an artifact: the cached ones,
 * or mined now for a log of at most TMPL_MINE bytes; NULL for any other
 * hit (its lines fold by their masked form).
 */
static struct ofl_schema_log_map *
hit_tmpl(struct search *s, const struct hit *h)
{
	struct art	*a = &s->a[h->art];

	if (h->member != NULL || a->kind != OFL_KIND_LOG)
		return NULL;
	if (!a->tmdone) {
		a->tmdone = 1;
		a->tm = ofl_schema_log_map_open(s->st, a->id, TMPL_MINE);
	}
	return a->tm;
}

/*
 * Choose the lines of a hit to show in about avail bytes, in the order
 * of ofl_snippet_lines_order().  Sets each chosen line's window; returns 1 if the
 * hit is shown in part.
 */
static int
select_lines(struct search *s, struct line *l, size_t nl, size_t avail,
    size_t prefix_extra)
{
	struct ofl_buf	 scratch;
	size_t		 order[ORDER_MAX], norder, j, max, cost, prefix;
	size_t		 left = avail, from, to, shown = 0, x, ind;
	struct line	*c;
	int		 cut = 0, first, answered = 0;

	ofl_buf_init(&scratch);
	norder = ofl_snippet_lines_order(s, l, nl, order);
	for (j = 0; j < norder; j++) {
		c = &l[order[j]];
		prefix = digits(c->no) + prefix_extra;
		/*
		 * The first line that matches is shown, in part if need be,
		 * even when a line put before it (a record's name) took
		 * most of the room.
		 */
		first = j == 0 || (!answered && c->mask != 0);
		if (!first && left < prefix + 24) {
			if (answered)
				break;
			continue;
		}
		max = left > prefix ? left - prefix : 0;
		if (max > LINE_SHOW_MAX)
			max = LINE_SHOW_MAX;
		/*
		 * A snapshot's element is its first words and its ref,
		 * after the indent render_line() leaves out.
		 */
		ind = s->cursnap ? snap_skip(s, c) : 0;
		if (s->cursnap && max > SNAP_LINE_MAX + ind)
			max = SNAP_LINE_MAX + ind;
		if (first && max < 40)
			max = 40;
		if (!first && max < (c->n < 60 ? c->n : 60))
			continue;
		(void)line_window(s, c, max, &from, &to);
		/* A snapshot's line cut before its ref: to the ref. */
		if (s->cursnap && (x = ofl_snippet_snap_ref_end(c)) > to &&
		    x - (from > ind ? from : ind) <= SNAP_LINE_MAX)
			to = x;
		if (s->cursnap && from > 0 &&
		    (c->head = ofl_snippet_snap_head(c)) > 0) {
			/* The window that matches after the element's head. */
			if (max >= c->head + 40)
				(void)line_window(s, c, max - c->head, &from,
				    &to);
			if (max < c->head + 40 || from <= c->head) {
				c->head = 0;
				from = 0;
				to = c->n > max ? utf8_back(c->s, max) : c->n;
			}
		}
		/* Its ref cut off still: the name cut in the middle. */
		if (s->cursnap && (x = ofl_snippet_snap_ref_end(c)) > to &&
		    !ofl_snippet_snap_name_cut(c, ind, max > ind ? max - ind : 0,
		    &c->head, &from, &to))
			c->head = 0;
		/* What it really takes, \xNN escapes included. */
		ofl_buf_reset(&scratch);
		render_line(&scratch, s, c, from, to);
		cost = scratch.len + 1;
		if (!first && cost + prefix > left)
			continue;
		if (c->mask != 0)
			answered = 1;
		c->chosen = 1;
		c->from = from;
		c->to = to;
		if (from > 0 || to < c->n || c->cutl || c->cutr)
			cut = 1;
		left = left > cost + prefix ? left - cost - prefix : 0;
		c->rank = (int)++shown;
	}
	if (shown < nl)
		cut = 1;
	ofl_buf_free(&scratch);
	return cut;
}

/* A title or a member's name, safe to print, cut at max bytes. */
static void
add_name(struct ofl_buf *out, struct search *s, const char *title,
    size_t max)
{
	struct ofl_buf	t, r;
	size_t		i;

	ofl_buf_init(&t);
	ofl_buf_init(&r);
	if (s->rd != NULL) {
		ofl_redact_line(s->rd, title, strlen(title), &r);
		title = ofl_buf_str(&r);
	}
	ofl_render_safe(&t, (const unsigned char *)title, strlen(title),
	    max);
	ofl_buf_free(&r);
	for (i = 0; i < t.len; i++)
		if (t.data[i] == '\t' || t.data[i] == '\n')
			t.data[i] = ' ';
	ofl_buf_add(out, t.data, t.len);
	ofl_buf_free(&t);
}

/* A hit's member ("  [a.log]"), whole to a tag's size for ofl-extract. */
static void
add_member(struct ofl_buf *out, struct search *s, const struct hit *h)
{
	if (h->member == NULL)
		return;
	ofl_buf_adds(out, "  [");
	add_name(out, s, h->member, OFL_REF_TAG_MAX - 1);
	ofl_buf_addc(out, ']');
}

static void
add_ref(struct ofl_buf *out, const struct search *s, const struct hit *h)
{
	ofl_buf_addf(out, "ofl:%s:%llu", s->a[h->art].id,
	    (unsigned long long)h->line_start);
	if (h->line_end > h->line_start)
		ofl_buf_addf(out, "-%llu", (unsigned long long)h->line_end);
}

/*
 * Of a CSV or TSV artifact, the header line, before the first of its
 * hits in an output that starts below it: the rows say which value is
 * which ("FR-75,France,Paris,..." under "code,country,name,..."), and a
 * question of which columns there are is answered.
 */
static void
add_header(struct ofl_buf *out, struct search *s, const struct hit *h)
{
	struct ofl_reader	*r;
	char			 buf[HEADER_SHOW + 1], *nl;
	size_t			 len = 0, j, at;
	ssize_t			 n;

	if (s->cursep == 0 || h->member != NULL || h->line_start <= 1)
		return;
	for (j = 0; j < (size_t)(h - s->h); j++)
		if (s->h[j].art == h->art)
			return;
	if ((r = ofl_snippet_reader(s, h->art)) == NULL ||
	    ofl_reader_seek(r, 0) == -1)
		return;
	if ((n = ofl_reader_read_full(r, buf, sizeof buf)) <= 0)
		return;
	len = (size_t)n;
	if ((nl = memchr(buf, '\n', len)) != NULL)
		len = (size_t)(nl - buf);
	while (len > 0 && buf[len - 1] == '\r')
		len--;
	if (len == 0)
		return;
	ofl_buf_adds(out, "  ");
	at = out->len;
	ofl_buf_adds(out, "1");
	ofl_snippet_span_add(s, at, out->len - at, COLOR_LINENO);
	ofl_buf_adds(out, "- ");
	if (nl == NULL && len > HEADER_SHOW)
		len = utf8_back(buf, HEADER_SHOW);
	if (s->rd != NULL) {
		ofl_buf_reset(&s->rtmp);
		ofl_redact_line(s->rd, buf, len, &s->rtmp);
		ofl_render_safe(out, (const unsigned char *)s->rtmp.data,
		    s->rtmp.len, SIZE_MAX);
	} else
		ofl_render_safe(out, (const unsigned char *)buf, len,
		    SIZE_MAX);
	ofl_buf_adds(out, nl == NULL ? "...\n" : "\n");
}

/*
 * Render one hit in about avail bytes into out; *used gets the bytes
 * written, *cut whether the hit was shown only in part.
 */
static void
render_hit(struct search *s, struct hit *h, size_t avail, struct ofl_buf *out,
    size_t *used, int *cut)
{
	struct ofl_buf	 text;
	struct line	*l = NULL;
	size_t		 nl, i, start = out->len, head, at;
	int		 rcut = 0, record;

	*cut = 0;
	*used = 0;
	ofl_buf_init(&text);
	if (hit_text(s, h, &text, &rcut) == -1) {
		note_readerr(s, h);
		ofl_buf_free(&text);
		return;
	}
	ofl_snippet_mark_text(s, text.data, text.len);
	nl = split_lines(s, h, &text, &l);
	s->curjson = ofl_snippet_rank_json(s, h);
	hit_kind(s, h);
	s->snapind = s->cursnap ? ofl_snippet_snap_indent(l, nl) : 0;

	add_ref(out, s, h);
	ofl_snippet_span_add(s, start, out->len - start, COLOR_REF);
	add_member(out, s, h);
	if (h->title != NULL && *h->title != '\0') {
		ofl_buf_adds(out, "  ");
		add_name(out, s, h->title, TITLE_MAX);
	}
	if (h->phase == PHASE_SUBSTR)
		ofl_buf_adds(out, "  (substring)\n");
	else
		ofl_buf_addf(out, "  (%.1f)\n", h->score);
	head = out->len - start;
	/* Like the title, on top of the room the lines have. */
	add_header(out, s, h);

	record = s->record;
	s->record = 0;
	if (nl > 0 && select_lines(s, l, nl, avail > head ? avail - head : 0,
	    5))
		*cut = 1;
	s->record = record;
	if (s->cursnap) {
		ofl_snippet_snap_owners(l, nl);
		ofl_snippet_snap_follow(l, nl);
	}
	ofl_snippet_lines_similar(l, nl, 0);
	for (i = 0; i < nl; i++) {
		if (!l[i].chosen)
			continue;
		ofl_buf_adds(out, "  ");
		at = out->len;
		ofl_buf_addf(out, "%llu", (unsigned long long)l[i].no);
		ofl_snippet_span_add(s, at, out->len - at, COLOR_LINENO);
		ofl_buf_addf(out, "%c ", l[i].mask != 0 ? ':' : '-');
		render_line(out, s, &l[i], l[i].from, l[i].to);
		ofl_buf_addc(out, '\n');
		/* One more like it is shown for less than a note. */
		if (l[i].nsim > 1)
			ofl_snippet_lines_add_similar(out, l[i].nsim, l[i].sim);
	}
	if (h->nsim > 0)
		ofl_snippet_lines_add_similar(out, h->nsim, h->sim);
	if (rcut || h->line_end > h->line_start + nl - 1 || nl == 0)
		*cut = 1;
	*used = out->len - start;
	s->snapind = 0;
	free(l);
	ofl_buf_free(&text);
}

static void
add_note(struct ofl_buf *out, struct search *s)
{
	struct ofl_buf	q;
	size_t		i, j, k;
	int		lower;

	ofl_buf_init(&q);
	ofl_buf_adds(out, "no match for \"");
	ofl_render_safe(out, (const unsigned char *)s->o->query,
	    strlen(s->o->query), 80);
	ofl_buf_adds(out, "\"; showing matches for \"");
	if (s->fallback == FALLBACK_SUBSTR) {
		for (i = 0, k = 0; i < s->ntg; i++) {
			if (k++ > 0)
				ofl_buf_adds(&q, "\" or \"");
			ofl_buf_adds(&q, s->t[s->tg[i].term].text);
		}
	} else {
		for (i = 0, k = 0; i < s->nt; i++) {
			const char *w = s->t[i].text;

			if ((s->t[i].ntok == 0 && s->t[i].spell == NULL) ||
			    (s->t[i].stop && s->skipstop))
				continue;
			if (s->t[i].spell != NULL) {
				w = s->t[i].spell;
				for (j = 0; j < s->ntg; j++)
					if (s->tg[j].term == (int)i &&
					    s->tg[j].surface != NULL)
						w = s->tg[j].surface;
			}
			if (k++ > 0)
				ofl_buf_addc(&q, ' ');
			lower = 1;
			for (j = 0; j < s->t[i].len; j++)
				if (isupper((unsigned char)s->t[i].text[j]))
					lower = 0;
			/* The artifact's word, in the user's case. */
			for (j = 0; w[j] != '\0'; j++)
				ofl_buf_addc(&q, lower ?
				    tolower((unsigned char)w[j]) : w[j]);
		}
	}
	ofl_render_safe(out, (const unsigned char *)q.data, q.len, 120);
	ofl_buf_adds(out, "\"");
	if (s->fallback == FALLBACK_SUBSTR)
		ofl_buf_adds(out, " inside words");
	ofl_buf_addc(out, '\n');
	ofl_buf_free(&q);
}

static void
add_json_str_safe(struct ofl_buf *out, const char *p, size_t n)
{
	struct ofl_buf	t;

	ofl_buf_init(&t);
	ofl_render_safe(&t, (const unsigned char *)p, n, SIZE_MAX);
	ofl_buf_add_json_str(out, t.data != NULL ? t.data : "", t.len);
	ofl_buf_free(&t);
}

static void
output_json_hit(struct ofl_buf *out, struct search *s, struct hit *h,
    size_t avail)
{
	struct ofl_buf	 text, ref, snip, mj;
	struct line	*l = NULL;
	size_t		 nl, i, j, k = 0, at;
	int		 rcut = 0, cut = 0;
	const char	*match;

	ofl_buf_init(&text);
	ofl_buf_init(&ref);
	ofl_buf_init(&snip);
	ofl_buf_init(&mj);
	if (hit_text(s, h, &text, &rcut) == -1) {
		note_readerr(s, h);
		ofl_buf_free(&text);
		return;
	}
	ofl_snippet_mark_text(s, text.data, text.len);
	nl = split_lines(s, h, &text, &l);
	s->curjson = ofl_snippet_rank_json(s, h);
	hit_kind(s, h);
	if (nl > 0)
		cut = select_lines(s, l, nl, avail, 1);
	if (s->cursnap)
		ofl_snippet_snap_owners(l, nl);
	add_ref(&ref, s, h);
	ofl_buf_adds(out, "{\"id\":");
	ofl_buf_add_json_str(out, s->a[h->art].id, strlen(s->a[h->art].id));
	ofl_buf_adds(out, ",\"ref\":");
	ofl_buf_add_json_str(out, ref.data, ref.len);
	ofl_buf_addf(out, ",\"lines\":[%llu,%llu],\"title\":",
	    (unsigned long long)h->line_start, (unsigned long long)h->line_end);
	if (h->title != NULL && s->rd != NULL) {
		struct ofl_buf	r;

		ofl_buf_init(&r);
		ofl_redact_line(s->rd, h->title, strlen(h->title), &r);
		add_json_str_safe(out, r.data != NULL ? r.data : "", r.len);
		ofl_buf_free(&r);
	} else if (h->title != NULL)
		add_json_str_safe(out, h->title, strlen(h->title));
	else
		ofl_buf_adds(out, "null");
	if (h->phase == PHASE_SUBSTR)
		ofl_buf_adds(out, ",\"rank\":null");
	else
		ofl_buf_addf(out, ",\"rank\":%.3f", h->score);
	/* The matches of each line: byte offsets in the line as shown. */
	s->record = 1;
	for (i = 0; i < nl; i++) {
		if (!l[i].chosen)
			continue;
		if (k++ > 0) {
			ofl_buf_addc(&snip, '\n');
			ofl_buf_addc(&mj, ',');
		}
		at = snip.len;
		s->nsp = 0;
		render_line(&snip, s, &l[i], l[i].from, l[i].to);
		ofl_buf_addc(&mj, '[');
		for (j = 0; j < s->nsp; j++)
			ofl_buf_addf(&mj, "%s[%zu,%zu]", j > 0 ? "," : "",
			    s->sp[j].off - at, s->sp[j].off - at +
			    s->sp[j].len);
		ofl_buf_addc(&mj, ']');
	}
	s->record = 0;
	s->nsp = 0;
	ofl_buf_adds(out, ",\"snippet\":");
	ofl_buf_add_json_str(out, snip.data != NULL ? snip.data : "", snip.len);
	ofl_buf_adds(out, ",\"snippet_lines\":[");
	for (i = 0, k = 0; i < nl; i++)
		if (l[i].chosen)
			ofl_buf_addf(out, "%s%llu", k++ > 0 ? "," : "",
			    (unsigned long long)l[i].no);
	ofl_buf_adds(out, "],\"matches\":[");
	ofl_buf_add(out, mj.data, mj.len);
	ofl_buf_adds(out, "],\"member\":");
	if (h->member != NULL)
		add_json_str_safe(out, h->member, strlen(h->member));
	else
		ofl_buf_adds(out, "null");
	if (h->phase == PHASE_SUBSTR)
		match = "substring";
	else if (s->fallback == FALLBACK_SPELL)
		match = "spelling";
	else
		match = h->phase == PHASE_ALL ? "all" : h->phase == PHASE_LEX ?
		    "related" : "any";
	if (rcut || nl == 0 || h->line_end > h->line_start + nl - 1)
		cut = 1;
	ofl_buf_addf(out, ",\"match\":\"%s\",\"cut\":%s}\n", match,
	    cut ? "true" : "false");
	free(l);
	ofl_buf_free(&text);
	ofl_buf_free(&ref);
	ofl_buf_free(&snip);
	ofl_buf_free(&mj);
}

/* The command line that asks for more. */
static void
add_more_search(struct ofl_buf *out, struct search *s, const char *const *ids,
    size_t nids, int limit, size_t budget)
{
	const struct ofl_filter	*f = &s->o->filter;
	char			*q;
	size_t			 i;

	/* A query that would take the budget over: run again as given. */
	if (strlen(s->o->query) > (budget / 4 > MORE_QUERY_MAX ? budget / 4 :
	    MORE_QUERY_MAX))
		return;
	ofl_buf_adds(out, "more: ofl-search");
	if (s->o->fts)
		ofl_buf_adds(out, " --fts");
	if (nids == 0) {
		ofl_buf_adds(out, " -a");
		if (f->label != NULL) {
			q = ofl_shquote(f->label);
			ofl_buf_addf(out, " -l %s", q);
			free(q);
		}
		if (f->session != NULL) {
			q = ofl_shquote(f->session);
			ofl_buf_addf(out, " -S %s", q);
			free(q);
		}
		if (f->kind >= 0)
			ofl_buf_addf(out, " -k %s", ofl_kind_name(f->kind));
	}
	for (i = 0; i < nids && i < 8; i++)
		ofl_buf_addf(out, " %s", ids[i]);
	q = ofl_shquote(s->o->query);
	ofl_buf_addf(out, " %s -n %d", q, limit * 2);
	free(q);
	if (budget != OFL_SEARCH_BUDGET || limit * 2 > OFL_SEARCH_LIMIT)
		ofl_buf_addf(out, " -m %zu", budget * 2);
	ofl_buf_addc(out, '\n');
}

/*
 * Before showing the first k hits: weigh each term by how few of them
 * hold it (a term in every hit tells them apart least), and fold a hit
 * whose best line has the signature of a better hit's best line in the
 * same artifact into that hit ("five hits, one fact"): in a log whose
 * templates are known, a line's template.  The hits left
 * come first; s->nvis counts them.
 */
static void
hits_prepare(struct search *s, size_t k)
{
	struct ofl_buf	 text;
	struct line	*l;
	struct hit	*h, tmp;
	size_t		 df[64], order[ORDER_MAX], nl, i, j, t, n = 0, nv;
	uint64_t	 mask, jsig = 0;
	int		 rcut, json;

	for (t = 0; t < 64; t++)
		s->hitw[t] = 1;
	s->nvis = s->nh;
	if (k > s->nh)
		k = s->nh;
	memset(df, 0, sizeof df);
	ofl_buf_init(&text);
	for (i = 0; i < k; i++) {
		h = &s->h[i];
		h->sig = 0;
		h->typed = 0;
		/* An archive member's text costs a pass over the archive. */
		if (h->member != NULL || hit_text(s, h, &text, &rcut) == -1)
			continue;
		ofl_snippet_mark_text(s, text.data, text.len);
		h->typed = ofl_snippet_rank_typed(s, text.data, text.len);
		l = NULL;
		nl = split_lines(s, h, &text, &l);
		s->curjson = 0;
		hit_kind(s, h);
		for (j = 0, mask = 0; j < nl; j++)
			mask |= l[j].mask;
		for (t = 0; t < 64; t++)
			if (mask & ((uint64_t)1 << t))
				df[t]++;
		n++;
		/*
		 * A JSON record is itself, whatever its lines say, but for
		 * a member the same in many ("homepage": "https://...").
		 */
		json = ofl_snippet_rank_json(s, h);
		if (!s->cursnap && nl > 0 &&
		    ofl_snippet_lines_order(s, l, nl, order) > 0 &&
		    l[order[0]].nmarks > 0 && (!json ||
		    (jsig = ofl_snippet_lines_json_sig(&l[order[0]])) != 0)) {
			h->sig = json ? jsig : l[order[0]].sig;
			h->bestno = l[order[0]].no;
		}
		free(l);
	}
	ofl_buf_free(&text);
	for (t = 0; t < 64 && n > 1; t++) {
		double	r = df[t] > 0 ? (double)n / (double)df[t] : 1, x;

		for (x = 1; r >= 2; r /= 2)
			x++;
		s->hitw[t] = x + (r - 1);
	}
	/* Fold, keeping the order of the hits left. */
	for (i = 1; i < k; i++) {
		h = &s->h[i];
		if (h->sig == 0)
			continue;
		for (j = 0; j < i; j++)
			if (s->h[j].sig == h->sig && s->h[j].art == h->art &&
			    s->h[j].nsim != (size_t)-1)
				break;
		if (j == i)
			continue;
		if (s->h[j].nsim < SIM_SHOW)
			s->h[j].sim[s->h[j].nsim] = h->bestno;
		s->h[j].nsim++;
		h->nsim = (size_t)-1;	/* folded */
	}
	ofl_snippet_rank(s, k);
	for (i = 0, nv = 0; i < s->nh; i++) {
		if (i < k && s->h[i].nsim == (size_t)-1)
			continue;
		if (i != nv) {
			tmp = s->h[i];
			memmove(&s->h[nv + 1], &s->h[nv], (i - nv) *
			    sizeof *s->h);
			s->h[nv] = tmp;
		}
		nv++;
	}
	for (i = nv; i < s->nh; i++)
		s->h[i].nsim = 0;
	s->nvis = nv;
}

/*
 * Hits [0, nshow) in limit bytes from start: the first in first bytes,
 * each other in per, and what one leaves to the next.  When all are
 * shown with WIDE_MIN bytes or more left, the first is shown again with
 * that room and its wider lines (widen_first()).  The first two cut go
 * to cuts[].  Returns how many are shown.
 */
static size_t
render_hits(struct search *s, struct ofl_buf *out, size_t nshow,
    size_t first, size_t per, size_t limit, size_t start, int *cuts,
    size_t *ncut)
{
	size_t	i, k, n, n0 = 0, sp0 = 0, carry = 0, hits = out->len, left;
	int	cut, *cutf;

	cutf = ofl_xcalloc(nshow + 1, sizeof *cutf);
	for (i = 0; i < nshow; i++) {
		size_t	avail = (i == 0 ? first : per) + carry,
			before = out->len, try;
		size_t	room = limit > before - start ?
			    limit - (before - start) : 0;

		if (avail > room)
			avail = room;
		if (i > 0 && avail < 80)
			break;
		/* A weak hit, while the output is short: a second look. */
		if (i > 0 && before - start >= WEAK_FILL &&
		    ofl_snippet_snap_weak(s, &s->h[i]))
			break;
		render_hit(s, &s->h[i], avail, out, &n, &cut);
		for (try = avail; i > 0 && n > room && n - room < try &&
		    try > 80; ) {
			/*
			 * The notes of similar lines took it past the room:
			 * again in that much less, its best lines first.
			 */
			try -= n - room;
			out->len = before;
			ofl_snippet_span_cut(s, out->len);
			render_hit(s, &s->h[i], try, out, &n, &cut);
		}
		if (i > 0 && n > room) {
			/* It does not fit: leave it to the next page. */
			out->len = before;
			ofl_snippet_span_cut(s, out->len);
			break;
		}
		s->a[s->h[i].art].hit = 1;
		cutf[i] = cut;
		if (i == 0) {
			n0 = n;
			sp0 = s->nsp;
		}
		carry = avail > n ? avail - n : 0;
	}
	left = limit > out->len - start ? limit - (out->len - start) : 0;
	if (i == nshow && nshow > 0 && left >= WIDE_MIN &&
	    !ofl_snippet_snap_scope(s))
		widen_first(s, out, hits, hits + n0, sp0, n0 + left, &cutf[0]);
	for (*ncut = 0, k = 0; k < i && *ncut < 2; k++)
		if (cutf[k])
			cuts[(*ncut)++] = (int)k;
	free(cutf);
	return i;
}

/*
 * The first hit, shown in out from at to end0 with the spans before sp0,
 * shown there again in avail bytes with its wider lines (snippet-lines.c);
 * the hits after it keep their bytes and spans, moved after it.
 */
static void
widen_first(struct search *s, struct ofl_buf *out, size_t at, size_t end0,
    size_t sp0, size_t avail, int *cut)
{
	struct ofl_buf	 tail;
	struct span	*tsp = NULL;
	size_t		 ntsp = s->nsp - sp0, n, i;

	ofl_buf_init(&tail);
	ofl_buf_add(&tail, out->data + end0, out->len - end0);
	if (ntsp > 0) {
		tsp = ofl_xcalloc(ntsp, sizeof *tsp);
		memcpy(tsp, s->sp + sp0, ntsp * sizeof *tsp);
	}
	out->len = at;
	ofl_snippet_span_cut(s, at);
	s->curwide = 1;
	render_hit(s, &s->h[0], avail, out, &n, cut);
	s->curwide = 0;
	for (i = 0; i < ntsp; i++)
		ofl_snippet_span_add(s, tsp[i].off - end0 + out->len,
		    tsp[i].len, tsp[i].color);
	ofl_buf_add(out, tail.data, tail.len);
	free(tsp);
	ofl_buf_free(&tail);
}

void
ofl_snippet_output(struct search *s, struct ofl_buf *out, const char *const *ids,
    size_t nids)
{
	struct ofl_buf	 more, note;
	size_t		 budget, limit, nshow, i, per, used, hits;
	size_t		 shares, top;
	size_t		 start = out->len, reserve, ncut = 0, extra = 0;
	int		 cuts[2];

	budget = s->o->budget > 0 ? s->o->budget : OFL_SEARCH_BUDGET;
	limit = s->o->limit > 0 ? (size_t)s->o->limit : OFL_SEARCH_LIMIT;
	s->nvis = s->nh;
	if (!s->o->quiet)
		hits_prepare(s, limit * 4);
	nshow = s->nvis < limit ? s->nvis : limit;
	if (s->nvis > limit)
		s->more = 1;
	if (s->fallback == FALLBACK_SUBSTR)
		substring_titles(s, nshow);
	if (s->o->quiet) {
		for (i = 0; i < nshow; i++) {
			add_ref(out, s, &s->h[i]);
			add_member(out, s, &s->h[i]);
			ofl_buf_addc(out, '\n');
			s->a[s->h[i].art].hit = 1;
		}
		return;
	}
	if (s->o->json) {
		per = budget / (nshow > 0 ? nshow : 1);
		for (i = 0; i < nshow; i++) {
			output_json_hit(out, s, &s->h[i], per);
			s->a[s->h[i].art].hit = 1;
		}
		ofl_buf_free(&s->sigbuf);
		return;
	}
	/* Room for the lines that say how to get more. */
	ofl_buf_init(&more);
	ofl_buf_init(&note);
	add_more_search(&more, s, ids, nids, (int)limit, budget);
	if (s->fallback != FALLBACK_NONE) {
		/* Measured now, written once the hits give the words' forms. */
		add_note(&note, s);
		extra = note.len + 16;
	}
	reserve = more.len + 2 * (40 + OFL_ID_MAX) + extra;
	hits = out->len;
	s->record = s->o->color;
	used = out->len - start;
	/*
	 * The first hit, the likeliest answer, gets TOP_SHARES shares of
	 * the budget, each other hit one: the lines around its best one
	 * (the answer under a heading, next to a field) are shown more
	 * often than a fifth hit's.  Not in browser snapshots, where a
	 * hit is one element and its line: there a larger first share
	 * only crowds out the other elements (146 questions of
	 * eval-snapshots: 0.91 answered at a median of 915 bytes with
	 * equal shares, 0.90 at 995 with two for the first).
	 */
	shares = nshow > 1 && !ofl_snippet_snap_scope(s) ?
	    nshow - 1 + TOP_SHARES : nshow;
	per = budget > used + reserve ? (budget - used - reserve) / shares : 0;
	/*
	 * A snapshot's weak hits are not shown (below): when the second
	 * is one, the first takes TOP_SHARES shares after all, or the
	 * answer's long line is left out for two short ones.
	 */
	top = shares - nshow + 1;
	if (nshow > 1 && ofl_snippet_snap_weak(s, &s->h[1]))
		top = TOP_SHARES;
	i = render_hits(s, out, nshow, per * top, per, budget > reserve ?
	    budget - reserve : 0, start, cuts, &ncut);
	if (i < nshow)
		s->more = 1;
	for (i = 0; i < ncut; i++) {
		struct hit	*h = &s->h[cuts[i]];
		size_t		 before = out->len;

		ofl_buf_addf(out, "more: ofl-extract %s", s->a[h->art].id);
		if (h->member != NULL) {
			char	*q = ofl_shquote(h->member);

			ofl_buf_addf(out, " --member %s", q);
			free(q);
		}
		ofl_buf_addf(out, " -n %llu-%llu\n",
		    (unsigned long long)h->line_start,
		    (unsigned long long)h->line_end);
		/* A tiny budget: the hit's header says as much. */
		if (out->len - start + extra + (s->more ? more.len : 0) >
		    budget)
			out->len = before;
	}
	if (s->more)
		ofl_buf_add(out, more.data, more.len);
	if (s->fallback != FALLBACK_NONE) {
		/* The note goes first. */
		ofl_buf_reset(&note);
		add_note(&note, s);
		for (i = 0; i < s->nsp; i++)
			if (s->sp[i].off >= hits)
				s->sp[i].off += note.len;
		ofl_buf_add(&note, out->data + hits, out->len - hits);
		out->len = hits;
		ofl_buf_add(out, note.data, note.len);
	}
	s->record = 0;
	ofl_snippet_colorize(s, out, start);
	ofl_buf_free(&more);
	ofl_buf_free(&note);
	ofl_buf_free(&s->sigbuf);
}
