/*
 * chunk.c: split an artifact into the units a reader needs, by kind, for
 * the full-text index.
 *
 * Every chunker streams: it reads through a source (the artifact's reader
 * or an archive member) and keeps no more than a window of a few
 * kilobytes, or HARD_MAX bytes at worst, before it calls back with each
 * chunk in order.  Ranges are exact: [byte_start, byte_end) are the raw
 * bytes a chunk stands for, and line_start and line_end are the 1-based
 * lines that hold its first and its last byte.  A line ends with "\n",
 * so a CRLF line is one line and a bare CR is no break, as the store
 * counts them.  Only a line longer than LINE_CAP can be shared by two
 * chunks (it is cut into pieces); otherwise the chunks of a line-based
 * kind cover the artifact without gaps or overlaps.
 *
 * Titles, by kind:
 *	markdown	heading path, "Install > From source > Debian"
 *	html		heading path; before the first heading, <title>
 *	json		a jq filter: ".items[17].status"; ".items[3:8]" for
 *			elements 3 to 7 (a slice, the end excluded); or
 *			".metadata | {name, namespace}" for a group of
 *			members of one object ("to_entries[i:j]" when the
 *			keys would make it too long)
 *	ndjson		"line 12" or "lines 12-15"
 *	csv, tsv	"rows 1-40": data rows, the header being row 0; the
 *			text starts with the header line, the ranges do not
 *	diff		"path/to/file @@ -12,7 +12,9 @@ func name"
 *	log, text	the headline of the first stack trace, traceback or
 *			panic in the window ("ValueError: bad input"),
 *			timestamps stripped; empty when there is none.
 *			Titles weigh more than bodies in ranking: the first
 *			line of an arbitrary window would only add noise,
 *			while a crash's own message is what people look for.
 *	binary, empty	no chunks: strings of a binary are noise, and line
 *			numbers mean nothing there.
 * A part of a section or hunk too long for one chunk keeps its title.
 *
 * Archives and compressed streams are read with libarchive, straight from
 * the reader (nothing touches the disk); each regular member is chunked by
 * its own kind, with ranges relative to the member and chunk.member set
 * to its path (for a single compressed stream, the name its header keeps,
 * else "data", as libarchive names it; "outer.tar/inner.log" one level
 * down).  The decompressed total and the number of members are capped
 * against decompression bombs: hitting a cap is an error.  A damaged or
 * truncated archive is not: what could be read is chunked.
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "ofl.h"
#include "chunk.h"
#include "banned.h"

#define READ_SIZE	(64 * 1024)	/* bytes asked of a source at once */
#define HEAD_SIZE	(64 * 1024)	/* what kind detection sees */

#define MD_SPLIT	4096		/* split a section at a paragraph */
#define CSV_TARGET	2048
#define CSV_ROWS	50
#define CSV_RECORD_MAX	(64 * 1024)	/* an unbalanced quote ends here */
#define JSON_TARGET	2048		/* descend into anything larger */
#define JSON_DEPTH	128		/* deeper containers stay whole */
#define JSON_KEYS_MAX	120		/* keys in a title, else to_entries */
#define HTML_SPLIT	4096
#define ARCHIVE_DEPTH	2		/* archives inside archives */

#define ARCHIVE_MAX_BYTES	OFL_ARCHIVE_MAX
#define ARCHIVE_MAX_MEMBERS	100000

/* Heading paths (Markdown, HTML). */
struct heads {
	char		 t[6][TITLE_MAX];
	size_t		 len[6];
	int		 has[6];
};

struct md;
struct html;
struct jlevel;
struct jck;

static uint64_t	chunk_max_bytes = ARCHIVE_MAX_BYTES;
static uint64_t	chunk_max_members = ARCHIVE_MAX_MEMBERS;

static void	 heads_set(struct heads *, int, const char *, size_t);
static void	 heads_path(const struct heads *, struct ofl_buf *);
static int	 chunk_markdown(struct ck *, struct src *);
static int	 chunk_ndjson(struct ck *, struct src *);
static int	 chunk_csv(struct ck *, struct src *, int);
static int	 chunk_html(struct ck *, struct src *);
static int	 chunk_json(struct ck *, struct src *);
static int	 chunk_archive(struct ck *, struct src *, struct ofl_reader *);
static int	 chunk_src(struct ck *, struct src *, int, struct ofl_reader *);
static int	 md_atx(const char *, size_t, const char **, size_t *);
static int	 md_fence(const char *, size_t, size_t *);
static int	 md_fence_close(const struct md *, const char *, size_t);
static int	 md_setext(const char *, size_t);
static int	 md_para_line(const char *, size_t);
static int	 md_emit(struct ck *, struct md *);
static void	 md_heading(struct md *, int, const char *, size_t);
static int	 ndjson_emit(struct ck *, struct win *, struct ofl_buf *);
static int	 csv_emit(struct ck *, struct win *, struct ofl_buf *, uint64_t,
		    uint64_t);
static void	 html_char(struct html *, int);
static size_t	 utf8_put(char *, unsigned);
static void	 html_cp(struct html *, unsigned);
static long	 html_entity_cp(const char *);
static int	 html_entity(struct html *);
static void	 html_title_entities(struct ofl_buf *);
static void	 html_block(struct html *);
static int	 html_part(struct html *, uint64_t, uint64_t, uint64_t);
static int	 html_isblock(const char *);
static int	 html_tag(struct html *);
static int	 html_byte(struct html *, int);
static uint64_t	 json_line(struct jck *, uint64_t);
static uint64_t	 json_mstart(struct jck *, const struct jlevel *, uint64_t);
static int	 jq_ident(const char *, size_t);
static void	 jq_key(struct ofl_buf *, const char *, size_t);
static int	 json_emit(struct jck *, const char *, size_t, uint64_t,
		    uint64_t, uint64_t);
static int	 json_flush(struct jck *, struct jlevel *);
static int	 json_descend(struct jck *, uint64_t);
static int	 json_add(struct jck *, struct jlevel *, uint64_t, uint64_t,
		    const char *, size_t, uint64_t);
static int	 json_begin(struct jck *, struct ofl_json *,
		    const struct ofl_json_event *);
static int	 json_end(struct jck *, const struct ofl_json_event *);
static int	 json_scalar(struct jck *, struct ofl_json *,
		    const struct ofl_json_event *);
static int	 json_event(struct ofl_json *, const struct ofl_json_event *,
		    void *);
static void	 json_trim(struct jck *);
static int	 json_fallback(struct jck *, struct src *);
static ssize_t	 member_read(void *, void *, size_t);
static int	 chunk_member(struct ck *, struct ofl_arc *, const char *);

/*
 * Heading paths.
 */

static void
heads_set(struct heads *h, int level, const char *p, size_t n)
{
	int	i;

	if (level < 1 || level > 6)
		return;
	if (n > TITLE_MAX - 1)
		n = ofl_chunk_utf8_cut(p, TITLE_MAX - 1);
	memcpy(h->t[level - 1], p, n);
	h->len[level - 1] = n;
	h->has[level - 1] = 1;
	for (i = level; i < 6; i++)
		h->has[i] = 0;
}

static void
heads_path(const struct heads *h, struct ofl_buf *b)
{
	int	i, any = 0;

	ofl_buf_reset(b);
	for (i = 0; i < 6; i++) {
		if (!h->has[i])
			continue;
		if (any)
			ofl_buf_adds(b, " > ");
		ofl_buf_add(b, h->t[i], h->len[i]);
		any = 1;
	}
	ofl_buf_str(b);
}

/*
 * Markdown: a chunk per section, from its heading to the next, titled by
 * the heading path.  ATX headings ("## Title") and setext headings
 * ("Title" over "===" or "---") count; nothing inside a fenced code block
 * or a front matter does.  A long section is cut at a paragraph; if no
 * paragraph is in sight (no blank line in the last MD_SPLIT / 2 bytes) at
 * a line that starts an item (indented by 4 at most: a list item, an
 * option); past 2 * MD_SPLIT at any line; never inside a fence (below
 * HARD_MAX).
 */

struct md {
	struct win	 w;
	struct heads	 h;
	struct ofl_buf	 title;
	struct ofl_buf	 tmp;
	int		 fence;		/* '`' or '~' inside a fence */
	size_t		 fencelen;
	int		 front;		/* inside a front matter */
	int		 prevblank;
	int		 prevbreak;	/* last line ended a paragraph */
	int		 prevpara;	/* last line may be a setext heading */
	size_t		 blankat;	/* part's size at its last blank line */
};

#define MD_NOBLANK	((size_t)-1)
#define MD_FRONT_MAX	200	/* an unclosed front matter ends here */

/* An ATX heading: its level, and its text in *tp, *tn. */
static int
md_atx(const char *p, size_t n, const char **tp, size_t *tn)
{
	size_t	i = 0, lv = 0, e, k;

	n = ofl_chunk_body_len(p, n);
	while (i < n && i < 3 && p[i] == ' ')
		i++;
	while (i < n && p[i] == '#' && lv < 7) {
		i++;
		lv++;
	}
	if (lv == 0 || lv > 6 || (i < n && p[i] != ' ' && p[i] != '\t'))
		return 0;
	i += ofl_chunk_ws_len(p + i, n - i);
	e = n;
	while (e > i && (p[e - 1] == ' ' || p[e - 1] == '\t'))
		e--;
	for (k = e; k > i && p[k - 1] == '#'; k--)
		;
	if (k < e && (k == i || p[k - 1] == ' ' || p[k - 1] == '\t')) {
		e = k;
		while (e > i && (p[e - 1] == ' ' || p[e - 1] == '\t'))
			e--;
	}
	*tp = p + i;
	*tn = e - i;
	return (int)lv;
}

/* A fence line: its character and length, or 0. */
static int
md_fence(const char *p, size_t n, size_t *len)
{
	size_t	i = 0, k;
	char	c;

	n = ofl_chunk_body_len(p, n);
	while (i < n && i < 3 && p[i] == ' ')
		i++;
	if (i >= n || (p[i] != '`' && p[i] != '~'))
		return 0;
	c = p[i];
	for (k = i; k < n && p[k] == c; k++)
		;
	if (k - i < 3)
		return 0;
	if (c == '`' && memchr(p + k, '`', n - k) != NULL)
		return 0;
	*len = k - i;
	return c;
}

static int
md_fence_close(const struct md *m, const char *p, size_t n)
{
	size_t	i = 0, k;

	n = ofl_chunk_body_len(p, n);
	while (i < n && i < 3 && p[i] == ' ')
		i++;
	for (k = i; k < n && p[k] == m->fence; k++)
		;
	return k - i >= m->fencelen && ofl_chunk_ws_len(p + k, n - k) == n - k;
}

/* A setext underline: 1 for "===", 2 for "---", else 0. */
static int
md_setext(const char *p, size_t n)
{
	size_t	i = 0, k;
	char	c;

	n = ofl_chunk_body_len(p, n);
	while (i < n && i < 3 && p[i] == ' ')
		i++;
	if (i >= n || (p[i] != '=' && p[i] != '-'))
		return 0;
	c = p[i];
	for (k = i; k < n && p[k] == c; k++)
		;
	if (ofl_chunk_ws_len(p + k, n - k) != n - k || (c == '-' && k - i < 2))
		return 0;
	return c == '=' ? 1 : 2;
}

/* Could this line be the text of a setext heading? */
static int
md_para_line(const char *p, size_t n)
{
	size_t	i;

	n = ofl_chunk_body_len(p, n);
	i = ofl_chunk_ws_len(p, n);
	if (i >= n || i > 3 || n > TITLE_MAX)
		return 0;
	p += i;
	n -= i;
	if (strchr(">|<#", p[0]) != NULL)
		return 0;
	if (n >= 2 && strchr("-*+", p[0]) != NULL && (p[1] == ' ' ||
	    p[1] == '\t'))
		return 0;
	for (i = 0; i < n && p[i] >= '0' && p[i] <= '9'; i++)
		;
	return !(i > 0 && i + 1 < n && (p[i] == '.' || p[i] == ')') &&
	    p[i + 1] == ' ');
}

static int
md_emit(struct ck *ck, struct md *m)
{
	m->blankat = MD_NOBLANK;
	return ofl_chunk_win_emit(ck, &m->w, m->title.data, m->title.len);
}

static void
md_heading(struct md *m, int level, const char *p, size_t n)
{
	heads_set(&m->h, level, p, n);
	heads_path(&m->h, &m->title);
}

static int
chunk_markdown(struct ck *ck, struct src *s)
{
	struct lineit	 it;
	struct line	 l, pl;
	struct md	 m;
	const char	*tp;
	size_t		 tn, raw, flen;
	int		 r, lv, blank, rv = 0;

	ofl_chunk_lineit_init(&it, s, 0, 1, 0);
	memset(&m, 0, sizeof m);
	ofl_chunk_win_init(&m.w);
	ofl_buf_init(&m.title);
	ofl_buf_init(&m.tmp);
	m.prevbreak = 1;
	m.blankat = MD_NOBLANK;
	while ((r = ofl_chunk_lineit_next(&it, &l)) == 1) {
		raw = ofl_chunk_win_raw(&m.w);
		if (!l.first || m.front || m.fence) {
			if (m.w.nlines > 0 && raw + l.len > HARD_MAX &&
			    md_emit(ck, &m))
				goto stop;
			ofl_chunk_win_add(&m.w, &l);
			if (!l.first)
				continue;
			if (m.front && l.lineno > 1 &&
			    (md_setext(l.p, l.len) == 2 ||
			    HAS(l.p, ofl_chunk_body_len(l.p, l.len), "...") ||
			    l.lineno > MD_FRONT_MAX))
				m.front = 0;
			else if (m.fence && md_fence_close(&m, l.p, l.len))
				m.fence = 0;
			m.prevblank = m.prevbreak = 1;
			m.prevpara = 0;
			continue;
		}
		blank = ofl_chunk_is_blank(l.p, l.len);
		if (l.lineno == 1 && l.off == 0 &&
		    ofl_chunk_body_len(l.p, l.len) == 3 && HAS(l.p, l.len,
		    "---")) {
			m.front = 1;
			ofl_chunk_win_add(&m.w, &l);
			continue;
		}
		if ((lv = md_atx(l.p, l.len, &tp, &tn)) > 0) {
			if (md_emit(ck, &m))
				goto stop;
			md_heading(&m, lv, tp, tn);
			ofl_chunk_win_add(&m.w, &l);
			m.prevblank = 0;
			m.prevbreak = 1;
			m.prevpara = 0;
			continue;
		}
		if (m.prevpara && m.w.nlines > 0 &&
		    (lv = md_setext(l.p, l.len)) > 0) {
			/* The last line was a heading: take it back. */
			ofl_buf_reset(&m.tmp);
			ofl_buf_add(&m.tmp, m.w.text.data + m.w.last,
			    m.w.text.len - m.w.last);
			pl.p = m.tmp.data;
			pl.len = m.tmp.len;
			pl.off = m.w.bstart + (m.w.last - m.w.hdr);
			pl.lineno = m.w.lend;
			pl.first = pl.eol = 1;
			m.w.text.len = m.w.last;
			m.w.lend = m.w.prevlend;
			if (--m.w.nlines > 0 && md_emit(ck, &m))
				goto stop;
			m.w.nlines = 0;
			m.w.text.len = m.w.hdr;
			tn = ofl_chunk_body_len(pl.p, pl.len);
			tp = pl.p + ofl_chunk_ws_len(pl.p, tn);
			tn -= (size_t)(tp - pl.p);
			while (tn > 0 && (tp[tn - 1] == ' ' ||
			    tp[tn - 1] == '\t'))
				tn--;
			md_heading(&m, lv, tp, tn);
			ofl_chunk_win_add(&m.w, &pl);
			ofl_chunk_win_add(&m.w, &l);
			m.prevblank = 0;
			m.prevbreak = 1;
			m.prevpara = 0;
			continue;
		}
		if (m.w.nlines > 0 && ((m.prevblank && !blank &&
		    raw >= MD_SPLIT / 2 && raw + l.len > MD_SPLIT) ||
		    (!blank && raw + l.len > MD_SPLIT &&
		    ofl_chunk_ws_len(l.p, l.len) <= 4 &&
		    (m.blankat == MD_NOBLANK ||
		    raw - m.blankat > MD_SPLIT / 2)) ||
		    raw + l.len > 2 * MD_SPLIT)) {
			if (md_emit(ck, &m))
				goto stop;
		}
		if ((m.fence = md_fence(l.p, l.len, &flen)) != 0)
			m.fencelen = flen;
		ofl_chunk_win_add(&m.w, &l);
		if (blank)
			m.blankat = ofl_chunk_win_raw(&m.w);
		m.prevpara = !m.fence && m.prevbreak && !blank &&
		    md_para_line(l.p, l.len);
		m.prevblank = blank;
		m.prevbreak = blank || m.fence;
	}
	if (r < 0)
		rv = -1;
	else if (md_emit(ck, &m))
		rv = 1;
	goto out;
stop:
	rv = 1;
out:
	ofl_buf_free(&m.tmp);
	ofl_buf_free(&m.title);
	ofl_chunk_win_free(&m.w);
	ofl_chunk_lineit_free(&it);
	return rv;
}

/*
 * NDJSON: whole lines (records), grouped up to TEXT_TARGET bytes.
 */

static int
ndjson_emit(struct ck *ck, struct win *w, struct ofl_buf *t)
{
	ofl_buf_reset(t);
	if (w->lstart == w->lend)
		ofl_buf_addf(t, "line %llu", (unsigned long long)w->lstart);
	else
		ofl_buf_addf(t, "lines %llu-%llu",
		    (unsigned long long)w->lstart,
		    (unsigned long long)w->lend);
	return ofl_chunk_win_emit(ck, w, t->data, t->len);
}

static int
chunk_ndjson(struct ck *ck, struct src *s)
{
	struct lineit	 it;
	struct line	 l;
	struct win	 w;
	struct ofl_buf	 t;
	size_t		 raw;
	int		 r, rv = 0;

	ofl_chunk_lineit_init(&it, s, 0, 1, 0);
	ofl_chunk_win_init(&w);
	ofl_buf_init(&t);
	while ((r = ofl_chunk_lineit_next(&it, &l)) == 1) {
		raw = ofl_chunk_win_raw(&w);
		if (w.nlines > 0 && ((l.first && raw + l.len > TEXT_TARGET) ||
		    raw + l.len > HARD_MAX) && ndjson_emit(ck, &w, &t)) {
			rv = 1;
			goto out;
		}
		ofl_chunk_win_add(&w, &l);
	}
	if (r < 0)
		rv = -1;
	else if (w.nlines > 0 && ndjson_emit(ck, &w, &t))
		rv = 1;
out:
	ofl_buf_free(&t);
	ofl_chunk_win_free(&w);
	ofl_chunk_lineit_free(&it);
	return rv;
}

/*
 * CSV and TSV: groups of CSV_ROWS records or CSV_TARGET bytes, each
 * chunk's text starting with the header record.  A quoted CSV field may
 * hold newlines: records are kept whole.
 */

static int
csv_emit(struct ck *ck, struct win *w, struct ofl_buf *t, uint64_t a,
    uint64_t b)
{
	ofl_buf_reset(t);
	if (a == b)
		ofl_buf_addf(t, "row %llu", (unsigned long long)a);
	else
		ofl_buf_addf(t, "rows %llu-%llu", (unsigned long long)a,
		    (unsigned long long)b);
	return ofl_chunk_win_emit(ck, w, t->data, t->len);
}

static int
chunk_csv(struct ck *ck, struct src *s, int sep)
{
	struct lineit	 it;
	struct line	 l;
	struct win	 w;
	struct ofl_buf	 t;
	const char	*q, *e;
	uint64_t	 row = 0, first = 0, hoff = 0, hline = 1, hlend = 1;
	size_t		 rows = 0, rec = 0, hlen = 0;
	int		 r, inq = 0, header = 1, rv = 0;

	ofl_chunk_lineit_init(&it, s, 0, 1, 0);
	ofl_chunk_win_init(&w);
	ofl_buf_init(&t);
	while ((r = ofl_chunk_lineit_next(&it, &l)) == 1) {
		if (l.first && !inq) {
			rec = 0;
			if (header && hlen > 0) {
				header = 0;
				w.hdr = w.text.len;
			}
			if (!header) {
				if (rows > 0 && (ofl_chunk_win_raw(&w) + l.len >
				    CSV_TARGET || rows >= CSV_ROWS)) {
					if (csv_emit(ck, &w, &t, first, row))
						goto stop;
					rows = 0;
				}
				row++;
				if (rows++ == 0)
					first = row;
			}
		} else if (!header && w.nlines > 0 &&
		    ofl_chunk_win_raw(&w) + l.len > HARD_MAX) {
			if (csv_emit(ck, &w, &t, first, row))
				goto stop;
			rows = 1;
			first = row;
		}
		if (header) {
			/* The header goes to the text only, at most 16 KB. */
			if (hlen == 0) {
				hoff = l.off;
				hline = l.lineno;
			}
			hlend = l.lineno;
			hlen += l.len;
			if (w.text.len < 16384)
				ofl_buf_add(&w.text, l.p, l.len < 16384 -
				    w.text.len ? l.len : 16384 - w.text.len);
		} else
			ofl_chunk_win_add(&w, &l);
		rec += l.len;
		if (sep == ',') {
			for (q = l.p, e = l.p + l.len; q < e &&
			    (q = memchr(q, '"', (size_t)(e - q))) != NULL; q++)
				inq = !inq;
			if (inq && rec > CSV_RECORD_MAX)
				inq = 0;
		}
	}
	if (r < 0) {
		rv = -1;
		goto out;
	}
	if (rows > 0) {
		if (csv_emit(ck, &w, &t, first, row))
			goto stop;
	} else if (header && hlen > 0) {
		/* A header and no rows: the header is all there is. */
		if (ofl_chunk_emit(ck, "header", 6, w.text.data, w.text.len,
		    hoff,
		    hoff + hlen, hline, hlend))
			goto stop;
	}
	goto out;
stop:
	rv = 1;
out:
	ofl_buf_free(&t);
	ofl_chunk_win_free(&w);
	ofl_chunk_lineit_free(&it);
	return rv;
}

/*
 * HTML: the text (no tags, no script or style, entities decoded) of each
 * heading section, titled by the heading path, with the byte and line
 * range of its source.  A section with more than HTML_SPLIT bytes of text
 * is cut at the next block element.  Sections without text are skipped.
 */

enum {
	H_TEXT, H_LT, H_TAGNAME, H_TAG, H_TAGQ, H_ENDNAME, H_ENDTAG,
	H_BANG, H_COMMENT, H_DECL, H_RAW, H_ENT
};

struct html {
	struct ck	*ck;
	int		 st;
	char		 tag[16];
	size_t		 taglen;
	int		 end;		/* an end tag */
	int		 quote;
	int		 bang;
	int		 dashes;
	int		 raw;		/* 1 script or style, 2 title */
	const char	*rawpat;	/* "</script" */
	size_t		 rawm;
	char		 ent[16];
	size_t		 entlen;
	struct ofl_buf	 text;
	int		 sp;		/* a space is pending */
	int		 pre;		/* inside <pre>: newlines stay */
	uint64_t	 off;		/* of the current byte */
	uint64_t	 line;
	int		 lastnl;	/* the byte before was a newline */
	uint64_t	 soff;		/* the current part */
	uint64_t	 sline;
	uint64_t	 toff;		/* the current tag's '<' */
	uint64_t	 tline;
	uint64_t	 tprev;		/* line of the byte before it */
	int		 inh;		/* inside <hN> */
	int		 anyh;
	struct ofl_buf	 htext;
	struct heads	 h;
	struct ofl_buf	 title;
	struct ofl_buf	 doctitle;
};

static const char *const html_blocks[] = {
	"address", "article", "aside", "blockquote", "br", "caption", "dd",
	"details", "div", "dl", "dt", "fieldset", "figcaption", "figure",
	"footer", "form", "header", "hr", "li", "main", "nav", "ol", "p",
	"pre", "section", "summary", "table", "tbody", "td", "tfoot", "th",
	"thead", "tr", "ul", NULL
};

static const struct {
	const char	*name;
	unsigned	 cp;
} html_ents[] = {
	{ "amp", '&' }, { "lt", '<' }, { "gt", '>' }, { "quot", '"' },
	{ "apos", '\'' }, { "nbsp", ' ' }, { "copy", 0xa9 }, { "reg", 0xae },
	{ "trade", 0x2122 }, { "hellip", 0x2026 }, { "mdash", 0x2014 },
	{ "ndash", 0x2013 }, { "lsquo", 0x2018 }, { "rsquo", 0x2019 },
	{ "ldquo", 0x201c }, { "rdquo", 0x201d }, { "laquo", 0xab },
	{ "raquo", 0xbb }, { "bull", 0x2022 }, { "middot", 0xb7 },
	{ "times", 0xd7 }, { "divide", 0xf7 }, { "deg", 0xb0 },
	{ "plusmn", 0xb1 }, { "para", 0xb6 }, { "sect", 0xa7 },
	{ "euro", 0x20ac }, { "pound", 0xa3 }, { "yen", 0xa5 },
	{ "cent", 0xa2 }, { "larr", 0x2190 }, { "rarr", 0x2192 },
	{ "uarr", 0x2191 }, { "darr", 0x2193 }, { "le", 0x2264 },
	{ "ge", 0x2265 }, { "ne", 0x2260 }, { "minus", 0x2212 },
	{ "shy", 0 }, { "zwj", 0 }, { "zwnj", 0 }, { NULL, 0 }
};

/* Named entities of U+00C0 to U+00FF, in order. */
static const char *const html_latin1[64] = {
	"Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig",
	"Ccedil", "Egrave", "Eacute", "Ecirc", "Euml", "Igrave", "Iacute",
	"Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute", "Ocirc",
	"Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc",
	"Uuml", "Yacute", "THORN", "szlig", "agrave", "aacute", "acirc",
	"atilde", "auml", "aring", "aelig", "ccedil", "egrave", "eacute",
	"ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
	"ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash",
	"ugrave", "uacute", "ucirc", "uuml", "yacute", "thorn", "yuml"
};

static void
html_char(struct html *h, int c)
{
	if (c == '\n' && h->pre > 0 && !h->inh) {
		html_block(h);
		return;
	}
	if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
		h->sp = 1;
		return;
	}
	if (h->sp) {
		if (h->text.len > 0 && h->text.data[h->text.len - 1] != '\n')
			ofl_buf_addc(&h->text, ' ');
		if (h->inh && h->htext.len > 0)
			ofl_buf_addc(&h->htext, ' ');
		h->sp = 0;
	}
	ofl_buf_addc(&h->text, c);
	if (h->inh && h->htext.len < TITLE_MAX)
		ofl_buf_addc(&h->htext, c);
}

/* Encode cp as UTF-8 into u (4 bytes); returns the length. */
static size_t
utf8_put(char *u, unsigned cp)
{
	size_t	n, i;

	if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80) {
		u[0] = (char)cp;
		return 1;
	}
	n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	u[0] = (char)(n == 2 ? 0xc0 | cp >> 6 : n == 3 ? 0xe0 | cp >> 12 :
	    0xf0 | cp >> 18);
	for (i = 1; i < n; i++)
		u[i] = (char)(0x80 | ((cp >> (6 * (n - 1 - i))) & 0x3f));
	return n;
}

static void
html_cp(struct html *h, unsigned cp)
{
	char	u[4];
	size_t	n, i;

	n = utf8_put(u, cp);
	for (i = 0; i < n; i++)
		html_char(h, (unsigned char)u[i]);
}

/*
 * The code point of an entity's name ("amp", "#39", "#x27"): 0 for one
 * that stands for nothing (&shy;), -1 if unknown.
 */
static long
html_entity_cp(const char *e)
{
	unsigned long	 cp;
	char		*end;
	size_t		 i;

	if (e[0] == '#') {
		if (e[1] == 'x' || e[1] == 'X')
			cp = strtoul(e + 2, &end, 16);
		else
			cp = strtoul(e + 1, &end, 10);
		if (*end != '\0' || end == e + 1 || end == e + 2)
			return -1;
		return cp > 0x10ffff || cp == 0 ? 0xfffd : (long)cp;
	}
	for (i = 0; html_ents[i].name != NULL; i++)
		if (strcmp(html_ents[i].name, e) == 0)
			return (long)html_ents[i].cp;
	for (i = 0; i < 64; i++)
		if (strcmp(html_latin1[i], e) == 0)
			return 0xc0 + (long)i;
	return -1;
}

/* Decode the entity in h->ent into the text: 0 if unknown. */
static int
html_entity(struct html *h)
{
	long	cp;

	h->ent[h->entlen] = '\0';
	if ((cp = html_entity_cp(h->ent)) < 0)
		return 0;
	if (cp > 0)
		html_cp(h, (unsigned)cp);
	return 1;
}

/* Decode the entities of the document's title, in place. */
static void
html_title_entities(struct ofl_buf *b)
{
	char	 e[16];
	size_t	 i, j, k, o = 0;
	long	 cp;

	for (i = 0; i < b->len; i++) {
		if (b->data[i] == '&') {
			for (j = i + 1, k = 0; j < b->len && k < sizeof e - 1 &&
			    b->data[j] != ';'; j++)
				e[k++] = b->data[j];
			e[k] = '\0';
			if (j < b->len && b->data[j] == ';' && k > 0 &&
			    (cp = html_entity_cp(e)) >= 0) {
				/* UTF-8 is never longer than "&...;". */
				if (cp > 0)
					o += utf8_put(b->data + o,
					    (unsigned)cp);
				i = j;
				continue;
			}
		}
		b->data[o++] = b->data[i];
	}
	b->len = o;
}

static void
html_block(struct html *h)
{
	if (h->text.len > 0 && h->text.data[h->text.len - 1] != '\n')
		ofl_buf_addc(&h->text, '\n');
	h->sp = 0;
}

/* End the current part before offset off (whose line is line). */
static int
html_part(struct html *h, uint64_t off, uint64_t lend, uint64_t line)
{
	const char	*t;
	size_t		 tn, i;
	int		 rv = 0;

	for (i = 0; i < h->text.len; i++)
		if (h->text.data[i] != '\n' && h->text.data[i] != ' ')
			break;
	while (h->text.len > 0 && (h->text.data[h->text.len - 1] == '\n' ||
	    h->text.data[h->text.len - 1] == ' '))
		h->text.len--;
	if (i < h->text.len && off > h->soff) {
		if (h->anyh) {
			t = h->title.data;
			tn = h->title.len;
		} else {
			t = ofl_buf_str(&h->doctitle);
			tn = h->doctitle.len;
		}
		rv = ofl_chunk_emit(h->ck, t, tn, h->text.data, h->text.len,
		    h->soff, off,
		    h->sline, lend);
	}
	ofl_buf_reset(&h->text);
	h->sp = 0;
	h->soff = off;
	h->sline = line;
	return rv;
}

static int
html_isblock(const char *t)
{
	size_t	i;

	for (i = 0; html_blocks[i] != NULL; i++)
		if (strcmp(html_blocks[i], t) == 0)
			return 1;
	return 0;
}

/* A whole tag was read: h->tag, h->end. */
static int
html_tag(struct html *h)
{
	const char	*t = h->tag;
	int		 lv = 0;

	h->st = H_TEXT;
	if (h->taglen == 0 || h->taglen >= sizeof h->tag)
		return 0;
	if (t[0] == 'h' && t[1] >= '1' && t[1] <= '6' && t[2] == '\0')
		lv = t[1] - '0';
	if (!h->end && (strcmp(t, "script") == 0 || strcmp(t, "style") == 0 ||
	    strcmp(t, "title") == 0)) {
		h->st = H_RAW;
		h->raw = t[1] == 'i' ? 2 : 1;
		h->rawpat = t[1] == 'c' ? "</script" : t[1] == 't' ? "</style" :
		    "</title";
		h->rawm = 0;
		if (h->raw == 2)
			ofl_buf_reset(&h->doctitle);
		return 0;
	}
	if (lv > 0 && !h->end) {
		if (html_part(h, h->toff, h->tprev, h->tline))
			return 1;
		h->inh = lv;
		ofl_buf_reset(&h->htext);
		return 0;
	}
	if (lv > 0 && h->end && h->inh) {
		heads_set(&h->h, h->inh, h->htext.data != NULL ?
		    h->htext.data : "", h->htext.len);
		heads_path(&h->h, &h->title);
		h->inh = 0;
		h->anyh = 1;
		html_block(h);
		return 0;
	}
	if (strcmp(t, "pre") == 0) {
		if (!h->end)
			h->pre++;
		else if (h->pre > 0)
			h->pre--;
	}
	if (html_isblock(t)) {
		if (!h->inh && h->text.len >= HTML_SPLIT &&
		    html_part(h, h->toff, h->tprev, h->tline))
			return 1;
		html_block(h);
	}
	return 0;
}

static int
html_byte(struct html *h, int c)
{
	size_t	i;
	int	lc = c >= 'A' && c <= 'Z' ? c + 32 : c;

again:
	switch (h->st) {
	case H_TEXT:
		if (c == '<') {
			h->st = H_LT;
			h->toff = h->off;
			h->tline = h->line;
			h->tprev = h->lastnl ? h->line - 1 : h->line;
		} else if (c == '&') {
			h->st = H_ENT;
			h->entlen = 0;
		} else {
			/* Long text: cut at a space, or anywhere at last. */
			if ((((c == ' ' || c == '\n') && !h->inh &&
			    h->text.len >= 4 * HTML_SPLIT) ||
			    (h->text.len >= HARD_MAX && (c & 0xc0) != 0x80)) &&
			    html_part(h, h->off, h->lastnl ? h->line - 1 :
			    h->line, h->line))
				return 1;
			html_char(h, c);
		}
		break;
	case H_LT:
		h->taglen = 0;
		h->end = 0;
		if ((lc >= 'a' && lc <= 'z')) {
			h->st = H_TAGNAME;
			h->tag[h->taglen++] = (char)lc;
		} else if (c == '/') {
			h->st = H_ENDNAME;
			h->end = 1;
		} else if (c == '!') {
			h->st = H_BANG;
			h->bang = 0;
		} else if (c == '?') {
			h->st = H_DECL;
		} else {
			h->st = H_TEXT;
			html_char(h, '<');
			goto again;
		}
		break;
	case H_TAGNAME:
	case H_ENDNAME:
		if ((lc >= 'a' && lc <= 'z') || (lc >= '0' && lc <= '9') ||
		    lc == '-' || lc == ':') {
			if (h->taglen < sizeof h->tag)
				h->tag[h->taglen++] = (char)lc;
			break;
		}
		if (h->taglen < sizeof h->tag)
			h->tag[h->taglen] = '\0';
		if (c == '>')
			return html_tag(h);
		h->st = h->st == H_TAGNAME ? H_TAG : H_ENDTAG;
		goto again;
	case H_TAG:
		if (c == '"' || c == '\'') {
			h->quote = c;
			h->st = H_TAGQ;
		} else if (c == '>')
			return html_tag(h);
		break;
	case H_TAGQ:
		if (c == h->quote)
			h->st = H_TAG;
		break;
	case H_ENDTAG:
		if (c == '>')
			return html_tag(h);
		break;
	case H_BANG:
		if (c == '-' && h->bang == 0)
			h->bang = 1;
		else if (c == '-' && h->bang == 1) {
			h->st = H_COMMENT;
			h->dashes = 0;
		} else if (c == '>')
			h->st = H_TEXT;
		else
			h->st = H_DECL;
		break;
	case H_COMMENT:
		if (c == '>' && h->dashes >= 2)
			h->st = H_TEXT;
		else if (c == '-')
			h->dashes++;
		else
			h->dashes = 0;
		break;
	case H_DECL:
		if (c == '>')
			h->st = H_TEXT;
		break;
	case H_RAW:
		if (lc == h->rawpat[h->rawm]) {
			if (h->rawpat[++h->rawm] == '\0') {
				if (h->raw == 2)
					html_title_entities(&h->doctitle);
				memcpy(h->tag, h->rawpat + 2,
				    strlen(h->rawpat + 2) + 1);
				h->taglen = strlen(h->tag);
				h->end = 1;
				h->raw = 0;
				h->st = H_ENDTAG;
			}
			break;
		}
		if (h->raw == 2) {
			if (h->rawm > 0)
				ofl_buf_add(&h->doctitle, h->rawpat, h->rawm);
			if (c != '<' && h->doctitle.len < TITLE_MAX) {
				if (c == '\n' || c == '\r' || c == '\t')
					c = ' ';
				if (c != ' ' || (h->doctitle.len > 0 &&
				    h->doctitle.data[h->doctitle.len - 1] !=
				    ' '))
					ofl_buf_addc(&h->doctitle, c);
			}
		}
		h->rawm = c == '<' ? 1 : 0;
		break;
	case H_ENT:
		if (((lc >= 'a' && lc <= 'z') || (c >= '0' && c <= '9') ||
		    c == '#') && h->entlen < sizeof h->ent - 1) {
			h->ent[h->entlen++] = (char)c;
			break;
		}
		h->st = H_TEXT;
		if (c == ';' && h->entlen > 0 && html_entity(h))
			break;
		html_char(h, '&');
		for (i = 0; i < h->entlen; i++)
			html_char(h, (unsigned char)h->ent[i]);
		goto again;
	}
	return 0;
}

static int
chunk_html(struct ck *ck, struct src *s)
{
	struct html	 h;
	char		*buf;
	ssize_t		 n, i;
	size_t		 k;
	int		 rv = 0;

	memset(&h, 0, sizeof h);
	h.ck = ck;
	h.line = h.sline = 1;
	ofl_buf_init(&h.text);
	ofl_buf_init(&h.htext);
	ofl_buf_init(&h.title);
	ofl_buf_init(&h.doctitle);
	buf = ofl_xmalloc(READ_SIZE);
	for (;;) {
		if ((n = ofl_chunk_src_read(s, buf, READ_SIZE)) < 0) {
			rv = -1;
			goto out;
		}
		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			if (html_byte(&h, (unsigned char)buf[i])) {
				rv = 1;
				goto out;
			}
			h.lastnl = buf[i] == '\n';
			if (h.lastnl)
				h.line++;
			h.off++;
		}
	}
	if (h.st == H_ENT) {
		html_char(&h, '&');
		for (k = 0; k < h.entlen; k++)
			html_char(&h, (unsigned char)h.ent[k]);
	}
	while (h.doctitle.len > 0 && h.doctitle.data[h.doctitle.len - 1] == ' ')
		h.doctitle.len--;
	if (html_part(&h, h.off, h.lastnl ? h.line - 1 : h.line, h.line))
		rv = 1;
out:
	free(buf);
	ofl_buf_free(&h.text);
	ofl_buf_free(&h.htext);
	ofl_buf_free(&h.title);
	ofl_buf_free(&h.doctitle);
	return rv;
}

/*
 * JSON: chunks follow the structure.  A value of at most JSON_TARGET
 * bytes is a chunk (with its key, for an object member); a larger
 * container is descended into, and its small children are grouped into
 * chunks of about JSON_TARGET bytes.  Titles are jq filters (see the top
 * of the file).
 *
 * Streaming: the parser reports where each value starts and ends; a
 * container is "undecided" until it grows past JSON_TARGET (then it is
 * descended into) or ends (then it is a leaf).  Only the bytes of pending
 * groups and of the outermost undecided container are kept, so memory is
 * about 2 * JSON_TARGET per level, plus the longest single scalar.
 * Containers nested deeper than JSON_DEPTH stay whole.  If the content is
 * not valid JSON after all (say, cut short), what parsed is emitted and
 * the rest is chunked as text.
 */

struct jlevel {
	uint64_t	 start;		/* where the member begins (its key) */
	uint64_t	 line;
	size_t		 pathlen;	/* its path is path.data[0, pathlen) */
	int		 array;
	uint64_t	 index;		/* children seen */
	uint64_t	 prev;		/* end of the last child */
	uint64_t	 gcount;	/* the pending group of children */
	uint64_t	 gfirst;
	uint64_t	 gstart;
	uint64_t	 gline;
	uint64_t	 gend;
	struct ofl_buf	 keys;		/* "name, namespace" */
	int		 keysovf;
	struct ofl_buf	 key;		/* this container's key */
};

struct jck {
	struct ck	*ck;
	struct ofl_json	*p;
	char		*raw;
	size_t		 rawlen;
	size_t		 rawcap;
	uint64_t	 rawoff;	/* offset of raw[0] */
	uint64_t	 coff;		/* line cursor */
	uint64_t	 cline;
	struct jlevel	*lv;
	size_t		 nlv;
	size_t		 lvcap;
	size_t		 ndesc;		/* lv[0, ndesc) are descended */
	size_t		 skip;		/* open containers beyond JSON_DEPTH */
	struct ofl_buf	 path;
	struct ofl_buf	 title;
	uint64_t	 lastend;
};

static uint64_t
json_line(struct jck *j, uint64_t off)
{
	uint64_t	 top = j->rawoff + j->rawlen;

	if (off < j->rawoff)
		off = j->rawoff;
	if (off > top)
		off = top;
	if (off >= j->coff)
		j->cline += ofl_chunk_count_nl(j->raw + (j->coff - j->rawoff),
		    (size_t)(off - j->coff));
	else
		j->cline -= ofl_chunk_count_nl(j->raw + (off - j->rawoff),
		    (size_t)(j->coff - off));
	j->coff = off;
	return j->cline;
}

/* Where a member whose value starts at voff begins: at its key. */
static uint64_t
json_mstart(struct jck *j, const struct jlevel *P, uint64_t voff)
{
	uint64_t	o = P->prev;
	char		c;

	if (P->array || o < j->rawoff || o > voff)
		return voff;
	while (o < voff) {
		c = j->raw[o - j->rawoff];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ',')
			break;
		o++;
	}
	return o;
}

static int
jq_ident(const char *k, size_t n)
{
	static const char *const kw[] = {
		"and", "or", "not", "if", "then", "elif", "else", "end", "as",
		"def", "reduce", "foreach", "try", "catch", "label", "import",
		"include", "__loc__", NULL
	};
	size_t	i;

	if (n == 0 || !((k[0] >= 'a' && k[0] <= 'z') ||
	    (k[0] >= 'A' && k[0] <= 'Z') || k[0] == '_'))
		return 0;
	for (i = 1; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') ||
		    (k[i] >= 'A' && k[i] <= 'Z') ||
		    (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
			return 0;
	for (i = 0; kw[i] != NULL; i++)
		if (strlen(kw[i]) == n && memcmp(kw[i], k, n) == 0)
			return 0;
	return 1;
}

/* A key as jq writes it after a dot or in {...}: name, or "quoted". */
static void
jq_key(struct ofl_buf *b, const char *k, size_t n)
{
	if (jq_ident(k, n))
		ofl_buf_add(b, k, n);
	else
		ofl_buf_add_json_str(b, k, n);
}

static int
json_emit(struct jck *j, const char *title, size_t tlen, uint64_t start,
    uint64_t end, uint64_t line)
{
	if (end <= start)
		return 0;
	j->lastend = end;
	return ofl_chunk_emit_parts(j->ck, title, tlen,
	    j->raw + (start - j->rawoff),
	    (size_t)(end - start), start, line);
}

/* Emit the pending group of children of P. */
static int
json_flush(struct jck *j, struct jlevel *P)
{
	struct ofl_buf		*t = &j->title;
	unsigned long long	 a = P->gfirst, b = P->gfirst + P->gcount;

	if (P->gcount == 0)
		return 0;
	ofl_buf_reset(t);
	if (P->array) {
		ofl_buf_add(t, j->path.data, P->pathlen);
		if (P->pathlen == 0)
			ofl_buf_addc(t, '.');
		if (P->gcount == 1)
			ofl_buf_addf(t, "[%llu]", a);
		else
			ofl_buf_addf(t, "[%llu:%llu]", a, b);
	} else if (P->gcount == 1) {
		ofl_buf_add(t, j->path.data, P->pathlen);
		ofl_buf_addc(t, '.');
		ofl_buf_add(t, P->keys.data, P->keys.len);
	} else {
		if (P->pathlen > 0) {
			ofl_buf_add(t, j->path.data, P->pathlen);
			ofl_buf_adds(t, " | ");
		}
		if (P->keysovf)
			ofl_buf_addf(t, "to_entries[%llu:%llu]", a, b);
		else {
			ofl_buf_addc(t, '{');
			ofl_buf_add(t, P->keys.data, P->keys.len);
			ofl_buf_addc(t, '}');
		}
	}
	ofl_buf_str(t);
	P->gcount = 0;
	return json_emit(j, t->data, t->len, P->gstart, P->gend, P->gline);
}

/* Descend into the open containers that have grown past the target. */
static int
json_descend(struct jck *j, uint64_t pos)
{
	while (j->ndesc < j->nlv && j->ndesc < JSON_DEPTH - 1) {
		if (pos - j->lv[j->ndesc].start <= JSON_TARGET)
			break;
		/* A big child: its elder siblings go out first. */
		if (j->ndesc > 0 && json_flush(j, &j->lv[j->ndesc - 1]))
			return 1;
		j->ndesc++;
	}
	return 0;
}

static int
json_add(struct jck *j, struct jlevel *P, uint64_t start, uint64_t line,
    const char *key, size_t klen, uint64_t end)
{
	int	desc = P - j->lv < (ptrdiff_t)j->ndesc;

	if (desc && P->gcount > 0 && end - P->gstart > JSON_TARGET &&
	    json_flush(j, P))
		return 1;
	if (P->gcount == 0) {
		P->gstart = start;
		P->gline = line;
		P->gfirst = P->index;
		P->keysovf = 0;
		ofl_buf_reset(&P->keys);
	}
	P->gcount++;
	P->gend = end;
	if (!P->array && !P->keysovf) {
		if (P->gcount > 1 && P->keys.len + klen + 2 > JSON_KEYS_MAX)
			P->keysovf = 1;
		else {
			if (P->gcount > 1)
				ofl_buf_adds(&P->keys, ", ");
			jq_key(&P->keys, key != NULL ? key : "", klen);
		}
	}
	P->index++;
	P->prev = end;
	if (desc && end - P->gstart >= JSON_TARGET)
		return json_flush(j, P);
	return 0;
}

static int
json_begin(struct jck *j, struct ofl_json *p, const struct ofl_json_event *ev)
{
	struct jlevel	*L, *P;
	const char	*key = NULL;
	uint64_t	 start = ev->offset, line;
	size_t		 klen = 0, i;

	if (j->skip > 0 || j->nlv >= JSON_DEPTH) {
		j->skip++;
		return json_descend(j, ev->offset);
	}
	if (j->nlv == j->lvcap) {
		i = j->lvcap;
		j->lvcap = j->lvcap == 0 ? 16 : j->lvcap * 2;
		j->lv = ofl_xrealloc(j->lv, j->lvcap * sizeof *j->lv);
		memset(j->lv + i, 0, (j->lvcap - i) * sizeof *j->lv);
	}
	P = j->nlv > 0 ? &j->lv[j->nlv - 1] : NULL;
	if (P != NULL) {
		start = json_mstart(j, P, ev->offset);
		if (!P->array && (key = ofl_json_key(p, &klen)) == NULL)
			key = "";
	}
	line = json_line(j, start);
	L = &j->lv[j->nlv];
	L->start = start;
	L->line = line;
	L->array = ev->type == OFL_JSON_ARRAY_BEGIN;
	L->index = 0;
	L->prev = ev->offset + 1;
	L->gcount = 0;
	ofl_buf_reset(&L->key);
	if (key != NULL)
		ofl_buf_add(&L->key, key, klen);
	j->path.len = P != NULL ? P->pathlen : 0;
	if (P != NULL && P->array) {
		if (j->path.len == 0)
			ofl_buf_addc(&j->path, '.');
		ofl_buf_addf(&j->path, "[%llu]", (unsigned long long)P->index);
	} else if (P != NULL) {
		ofl_buf_addc(&j->path, '.');
		jq_key(&j->path, key, klen);
	}
	L->pathlen = j->path.len;
	j->nlv++;
	return json_descend(j, ev->offset);
}

static int
json_end(struct jck *j, const struct ofl_json_event *ev)
{
	struct jlevel	*L;

	if (j->skip > 0) {
		j->skip--;
		return 0;
	}
	if (j->nlv == 0)
		return 0;
	L = &j->lv[j->nlv - 1];
	json_line(j, ev->end);
	if (j->nlv - 1 < j->ndesc) {
		if (json_flush(j, L))
			return 1;
		j->nlv--;
		j->ndesc = j->nlv;
		if (j->nlv > 0) {
			j->lv[j->nlv - 1].index++;
			j->lv[j->nlv - 1].prev = ev->end;
		}
		return 0;
	}
	j->nlv--;
	if (j->nlv == 0)
		return json_emit(j, ".", 1, L->start, ev->end, L->line);
	if (json_descend(j, ev->end))
		return 1;
	return json_add(j, &j->lv[j->nlv - 1], L->start, L->line,
	    L->key.data, L->key.len, ev->end);
}

static int
json_scalar(struct jck *j, struct ofl_json *p, const struct ofl_json_event *ev)
{
	struct jlevel	*P;
	const char	*key = NULL;
	uint64_t	 start, line;
	size_t		 klen = 0;

	if (j->skip > 0)
		return 0;
	if (j->nlv == 0) {
		line = json_line(j, ev->offset);
		json_line(j, ev->end);
		return json_emit(j, ".", 1, ev->offset, ev->end, line);
	}
	P = &j->lv[j->nlv - 1];
	start = json_mstart(j, P, ev->offset);
	line = json_line(j, start);
	json_line(j, ev->end);
	if (!P->array && (key = ofl_json_key(p, &klen)) == NULL)
		key = "";
	if (json_descend(j, ev->end))
		return 1;
	return json_add(j, &j->lv[j->nlv - 1], start, line, key, klen,
	    ev->end);
}

static int
json_event(struct ofl_json *p, const struct ofl_json_event *ev, void *arg)
{
	struct jck	*j = arg;

	switch (ev->type) {
	case OFL_JSON_OBJECT_BEGIN:
	case OFL_JSON_ARRAY_BEGIN:
		return json_begin(j, p, ev);
	case OFL_JSON_OBJECT_END:
	case OFL_JSON_ARRAY_END:
		return json_end(j, ev);
	default:
		return json_scalar(j, p, ev);
	}
}

/* Drop the raw bytes nothing needs any more. */
static void
json_trim(struct jck *j)
{
	uint64_t	keep = j->coff;
	size_t		k, drop;

	for (k = 0; k < j->ndesc; k++)
		if (j->lv[k].gcount > 0 && j->lv[k].gstart < keep)
			keep = j->lv[k].gstart;
	if (j->ndesc < j->nlv && j->lv[j->ndesc].start < keep)
		keep = j->lv[j->ndesc].start;
	if (j->nlv > 0 && j->lv[j->nlv - 1].prev < keep)
		keep = j->lv[j->nlv - 1].prev;
	if (keep <= j->rawoff)
		return;
	drop = (size_t)(keep - j->rawoff);
	memmove(j->raw, j->raw + drop, j->rawlen - drop);
	j->rawlen -= drop;
	j->rawoff = keep;
}

/* Not JSON after all: emit what parsed, chunk the rest as text. */
static int
json_fallback(struct jck *j, struct src *s)
{
	struct src	 rest;
	uint64_t	 from, line;
	size_t		 k, at;

	for (k = 0; k < j->nlv; k++)
		if (json_flush(j, &j->lv[k]))
			return 1;
	from = j->lastend > j->rawoff ? j->lastend : j->rawoff;
	if (from > j->rawoff + j->rawlen)
		from = j->rawoff + j->rawlen;
	line = json_line(j, from);
	at = (size_t)(from - j->rawoff);
	rest.read = ofl_chunk_chain_read;
	rest.arg = s;
	rest.pre = j->raw + at;
	rest.prelen = j->rawlen - at;
	ofl_clearerr();
	return ofl_fmt_text_chunk(j->ck, &rest, from, line,
	    at > 0 && j->raw[at - 1] != '\n');
}

static int
chunk_json(struct ck *ck, struct src *s)
{
	struct jck	 j;
	ssize_t		 n;
	size_t		 k;
	int		 r, rv = 0;

	memset(&j, 0, sizeof j);
	j.ck = ck;
	j.cline = 1;
	ofl_buf_init(&j.path);
	ofl_buf_init(&j.title);
	j.p = ofl_json_new(1, json_event, &j);
	for (;;) {
		if (j.rawcap - j.rawlen < READ_SIZE) {
			j.rawcap = j.rawlen + READ_SIZE + j.rawcap / 2;
			j.raw = ofl_xrealloc(j.raw, j.rawcap);
		}
		if ((n = ofl_chunk_src_read(s, j.raw + j.rawlen,
		    READ_SIZE)) < 0) {
			rv = -1;
			break;
		}
		if (n == 0) {
			r = ofl_json_finish(j.p);
			if (r == 1)
				rv = 1;
			else if (r < 0)
				rv = json_fallback(&j, s);
			break;
		}
		j.rawlen += (size_t)n;
		r = ofl_json_feed(j.p, j.raw + j.rawlen - n, (size_t)n);
		if (r == 1) {
			rv = 1;
			break;
		}
		if (r < 0) {
			rv = json_fallback(&j, s);
			break;
		}
		json_trim(&j);
	}
	ofl_json_free(j.p);
	for (k = 0; k < j.lvcap; k++) {
		ofl_buf_free(&j.lv[k].keys);
		ofl_buf_free(&j.lv[k].key);
	}
	free(j.lv);
	free(j.raw);
	ofl_buf_free(&j.path);
	ofl_buf_free(&j.title);
	return rv;
}

/*
 * Archives and compressed streams.
 */

struct member {
	struct archive	*a;
	struct ofl_arc	*arc;
	struct ck	*ck;
	const char	*name;
};

static ssize_t
member_read(void *arg, void *buf, size_t n)
{
	struct member	*m = arg;
	la_ssize_t	 r;
	const char	*e;

	if (m->ck->damaged)
		return 0;
	r = archive_read_data(m->a, buf, n);
	if (r < 0) {
		e = archive_error_string(m->a);
		ofl_seterr(OFL_EXIT_FAIL, "%s: %s", m->name,
		    e != NULL ? e : "cannot read the member");
		if (m->arc->ioerr)
			m->ck->ioerr = 1;
		if (m->ck->ioerr)
			return -1;
		/* Damaged: the member ends here, what came is chunked. */
		m->ck->damaged = 1;
		return 0;
	}
	m->ck->total += (uint64_t)r;
	if (m->ck->total > chunk_max_bytes) {
		m->ck->bomb = 1;
		ofl_seterr(OFL_EXIT_FAIL, "%s: archive expands to more than "
		    "%llu bytes: stopped (a decompression bomb?)", m->name,
		    (unsigned long long)chunk_max_bytes);
		return -1;
	}
	return r;
}

/* Chunk the member that a has just read the header of. */
static int
chunk_member(struct ck *ck, struct ofl_arc *arc, const char *name)
{
	struct member	 m;
	struct src	 s;
	const char	*old;
	char		*head;
	size_t		 n = 0;
	ssize_t		 r;
	int		 kind, eof = 0, rv = 0;

	m.a = arc->a;
	m.arc = arc;
	m.ck = ck;
	m.name = name;
	head = ofl_xmalloc(HEAD_SIZE);
	while (n < HEAD_SIZE) {
		if ((r = member_read(&m, head + n, HEAD_SIZE - n)) < 0) {
			rv = -1;
			goto out;
		}
		if (r == 0) {
			eof = 1;
			break;
		}
		n += (size_t)r;
	}
	kind = n == 0 ? OFL_KIND_EMPTY :
	    (int)ofl_kind_detect((unsigned char *)head, n, eof);
	s.read = member_read;
	s.arg = &m;
	s.pre = head;
	s.prelen = n;
	old = ck->member;
	ck->member = name;
	rv = chunk_src(ck, &s, kind, NULL);
	ck->member = old;
	if (rv != 0)
		goto out;
	/* Read what the chunker left, so that the limits see it. */
	while ((r = member_read(&m, head, HEAD_SIZE)) > 0)
		;
	if (r < 0)
		rv = -1;
out:
	free(head);
	return rv;
}

static int
chunk_archive(struct ck *ck, struct src *s, struct ofl_reader *r)
{
	struct archive		*a;
	struct archive_entry	*e;
	struct ofl_arc		 x;
	struct ofl_src		 os;
	struct ofl_buf		 name;
	const char		*p, *err;
	int			 ar, rv = 0;

	/* At the top the artifact is seekable; a member is a stream. */
	memset(&os, 0, sizeof os);
	if (r != NULL)
		ofl_reader_src(r, &os);
	else {
		os.read = ofl_chunk_chain_read;
		os.arg = s;
	}
	ofl_buf_init(&name);
	ck->depth++;
	if (ofl_arc_open(&x, &os, OFL_ARC_FILTERS_ALL |
	    (r != NULL ? OFL_ARC_SEEK : 0)) == -1) {
		if (x.ioerr)
			ck->ioerr = 1;
		if (x.a == NULL) {
			ck->bomb = 1;	/* no libarchive: not a damaged one */
			rv = -1;
			goto out;
		}
		goto fail;
	}
	a = x.a;
	for (;;) {
		ar = archive_read_next_header(a, &e);
		if (ar == ARCHIVE_EOF)
			break;
		if (ar != ARCHIVE_OK && ar != ARCHIVE_WARN)
			goto fail;
		if (++ck->members > chunk_max_members) {
			ck->bomb = 1;
			ofl_seterr(OFL_EXIT_FAIL, "archive has more than %llu "
			    "members: stopped", (unsigned long long)
			    chunk_max_members);
			rv = -1;
			goto out;
		}
		if (archive_entry_filetype(e) != AE_IFREG ||
		    archive_entry_is_encrypted(e))
			continue;
		if ((p = archive_entry_pathname_utf8(e)) == NULL &&
		    (p = archive_entry_pathname(e)) == NULL)
			p = "?";
		ofl_buf_reset(&name);
		if (ck->member != NULL) {
			ofl_buf_adds(&name, ck->member);
			ofl_buf_addc(&name, '/');
		}
		ofl_buf_adds(&name, p);
		if ((rv = chunk_member(ck, &x, ofl_buf_str(&name))) != 0)
			goto out;
		if (ck->damaged) {
			rv = -1;
			goto out;
		}
	}
	goto out;
fail:
	if (x.ioerr)
		ck->ioerr = 1;
	err = archive_error_string(x.a);
	ofl_seterr(OFL_EXIT_FAIL, "%s%s%s", ck->member != NULL ? ck->member :
	    "archive", ": ", err != NULL ? err : "cannot read");
	rv = -1;
out:
	ck->depth--;
	ofl_arc_close(&x);
	ofl_buf_free(&name);
	return rv;
}

/*
 * Dispatch.
 */

static int
chunk_src(struct ck *ck, struct src *s, int kind, struct ofl_reader *r)
{
	switch (kind) {
	case OFL_KIND_MARKDOWN:
		return chunk_markdown(ck, s);
	case OFL_KIND_JSON:
		return chunk_json(ck, s);
	case OFL_KIND_NDJSON:
		return chunk_ndjson(ck, s);
	case OFL_KIND_CSV:
		return chunk_csv(ck, s, ',');
	case OFL_KIND_TSV:
		return chunk_csv(ck, s, '\t');
	case OFL_KIND_HTML:
		return chunk_html(ck, s);
	case OFL_KIND_DIFF:
		return ofl_fmt_diff_chunk(ck, s);
	case OFL_KIND_ARCHIVE:
	case OFL_KIND_COMPRESSED:
		if (ck->depth >= ARCHIVE_DEPTH)
			return 0;
		return chunk_archive(ck, s, r);
	case OFL_KIND_BINARY:
	case OFL_KIND_EMPTY:
		return 0;
	default:
		return ofl_fmt_text_chunk(ck, s, 0, 1, 0);
	}
}

/* The artifact, read through the store's reader. */
static ssize_t
reader_read(void *arg, void *buf, size_t n)
{
	return ofl_reader_read(arg, buf, n);
}

void
ofl_chunk_limits(uint64_t bytes, uint64_t members)
{
	chunk_max_bytes = bytes != 0 ? bytes : ARCHIVE_MAX_BYTES;
	chunk_max_members = members != 0 ? members : ARCHIVE_MAX_MEMBERS;
}

int
ofl_chunk_artifact(struct ofl_reader *r, int kind,
    int (*cb)(const struct ofl_chunk *, void *), void *arg)
{
	struct ck		 ck;
	struct src		 s;
	int			 rv;

	if (kind < 0 || kind >= OFL_KIND_COUNT) {
		ofl_seterr(OFL_EXIT_USAGE, "unknown kind %d", kind);
		return -1;
	}
	if (ofl_reader_seek(r, 0) == -1)
		return -1;
	memset(&ck, 0, sizeof ck);
	ck.cb = cb;
	ck.arg = arg;
	memset(&s, 0, sizeof s);
	s.read = reader_read;
	s.arg = r;
	rv = chunk_src(&ck, &s, kind, r);
	if (rv == 1)
		return ck.rv;
	if (rv < 0 && !ck.bomb && !ck.ioerr &&
	    (kind == OFL_KIND_ARCHIVE || kind == OFL_KIND_COMPRESSED)) {
		/*
		 * A truncated or damaged archive (a capture cut short, say):
		 * the members read so far are chunked, and that is that.
		 */
		ofl_clearerr();
		return 0;
	}
	return rv < 0 ? -1 : 0;
}
