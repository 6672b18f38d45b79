/*
 * chunk-io.c: the plumbing the formats' chunkers share, apart from the
 * dispatcher in chunk.c so that the formats, which use it, and the
 * dispatcher, which calls the formats, make no cycle: sources that
 * replay bytes first, a line iterator, windows of lines, heading paths
 * and the emitters that hand each chunk to the callback.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define LINE_CAP	(64 * 1024)	/* a longer line comes in pieces */
#define PART_SPLIT	8192		/* a leaf above this is cut ... */
#define PART_SIZE	4096		/* ... into parts of about this */

static ssize_t	 chain_read(void *, void *, size_t);
static int	 emit_head(struct ofl_chunker *, const char *, size_t,
		    const char *, size_t, size_t, uint64_t, uint64_t, uint64_t,
		    uint64_t);

/*
 * Sources.
 */

ssize_t
ofl_chunk_in_read(struct ofl_chunk_in *s, void *buf, size_t n)
{
	size_t	m;

	if (s->prelen > 0) {
		m = n < s->prelen ? n : s->prelen;
		memcpy(buf, s->pre, m);
		s->pre += m;
		s->prelen -= m;
		return (ssize_t)m;
	}
	if (s->read == NULL)
		return 0;
	return s->read(s->arg, buf, n);
}

/* A source that reads another source (after its own replay). */
static ssize_t
chain_read(void *arg, void *buf, size_t n)
{
	return ofl_chunk_in_read(arg, buf, n);
}

void
ofl_chunk_in_chain(struct ofl_chunk_in *in, struct ofl_chunk_in *from,
    const char *pre, size_t prelen)
{
	in->read = chain_read;
	in->arg = from;
	in->pre = pre;
	in->prelen = prelen;
}

/*
 * Emitting.  Returns 0 to go on, 1 when the callback said stop.
 */

int
ofl_chunk_emit(struct ofl_chunker *ck, const char *title, size_t tlen,
    const char *text, size_t len, uint64_t bstart, uint64_t bend,
    uint64_t lstart, uint64_t lend)
{
	return emit_head(ck, title, tlen, text, len, 0, bstart, bend, lstart,
	    lend);
}

/* As ofl_chunk_emit(), the text led by head bytes of the header. */
static int
emit_head(struct ofl_chunker *ck, const char *title, size_t tlen,
    const char *text, size_t len, size_t head, uint64_t bstart,
    uint64_t bend, uint64_t lstart, uint64_t lend)
{
	struct ofl_chunk	c;
	int			rv;

	c.member = ck->member;
	c.title = title != NULL && tlen > 0 ? title : "";
	c.title_len = title != NULL ? tlen : 0;
	c.text = text != NULL ? text : "";
	c.len = len;
	c.head = head < len ? head : len;
	c.byte_start = bstart;
	c.byte_end = bend;
	c.line_start = lstart;
	c.line_end = lend < lstart ? lstart : lend;
	if ((rv = ck->cb(&c, ck->arg)) != 0) {
		ck->rv = rv;
		return 1;
	}
	return 0;
}

/*
 * Emit raw bytes that start on line lstart, cut into parts of about
 * PART_SIZE (at most 1.5 times that) when longer than PART_SPLIT: at a
 * newline or a space if one is near, never inside a UTF-8 sequence.
 */
int
ofl_chunk_emit_parts(struct ofl_chunker *ck, const char *title, size_t tlen,
    const char *text, size_t len, uint64_t bstart, uint64_t lstart)
{
	size_t	n, i, nl;
	int	cut = len > PART_SPLIT;

	while (len > 0) {
		n = len;
		if (cut && len > PART_SIZE + PART_SIZE / 2) {
			n = PART_SIZE;
			for (i = n; i > n - 512; i--)
				if (text[i - 1] == '\n')
					break;
			if (i == n - 512)
				for (i = n; i > n - 512; i--)
					if (text[i - 1] == ' ')
						break;
			n = i > n - 512 ? i : ofl_utf8_cut(text, n);
		}
		nl = ofl_chunk_count_nl(text, n - 1);
		if (ofl_chunk_emit(ck, title, tlen, text, n, bstart, bstart + n,
		    lstart, lstart + nl))
			return 1;
		lstart += nl + (text[n - 1] == '\n');
		text += n;
		len -= n;
		bstart += n;
	}
	return 0;
}

size_t
ofl_chunk_count_nl(const char *p, size_t n)
{
	const char	*e = p + n, *q;
	size_t		 c = 0;

	while (p < e && (q = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		c++;
		p = q + 1;
	}
	return c;
}

/* Length without the trailing newline and carriage returns. */
size_t
ofl_chunk_body_len(const char *p, size_t n)
{
	while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	return n;
}

size_t
ofl_chunk_ws_len(const char *p, size_t n)
{
	size_t	i = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i;
}

int
ofl_chunk_blank(const char *p, size_t n)
{
	n = ofl_chunk_body_len(p, n);
	return ofl_chunk_ws_len(p, n) == n;
}

/*
 * The line iterator.  A line longer than LINE_CAP is returned in pieces;
 * only the first has first set, only the last has eol set.
 */

void
ofl_chunk_lines_init(struct ofl_chunk_lines *it, struct ofl_chunk_in *s,
    uint64_t off, uint64_t lineno, int midline)
{
	it->src = s;
	it->buf = ofl_xmalloc(LINE_CAP + 1);	/* a byte to spare */
	it->pos = it->len = it->scan = 0;
	it->off = off;
	it->lineno = lineno;
	it->midline = midline;
	it->eof = 0;
}

void
ofl_chunk_lines_free(struct ofl_chunk_lines *it)
{
	free(it->buf);
	it->buf = NULL;
}

/* 1: a line, 0: the end, -1: an error. */
int
ofl_chunk_lines_next(struct ofl_chunk_lines *it, struct ofl_chunk_line *l)
{
	const char	*nl;
	size_t		 n, avail;
	ssize_t		 r;
	int		 eol, more = 0;

	for (;;) {
		avail = it->len - it->pos;
		nl = memchr(it->buf + it->scan, '\n', it->len - it->scan);
		if (nl != NULL) {
			n = (size_t)(nl - (it->buf + it->pos)) + 1;
			eol = 1;
			break;
		}
		it->scan = it->len;
		if (it->eof) {
			if (avail == 0)
				return 0;
			n = avail;
			eol = 0;
			break;
		}
		if (avail == LINE_CAP) {
			n = ofl_utf8_whole(it->buf + it->pos, LINE_CAP);
			eol = 0;
			more = 1;
			break;
		}
		if (it->pos > 0) {
			memmove(it->buf, it->buf + it->pos, avail);
			it->scan -= it->pos;
			it->len = avail;
			it->pos = 0;
		}
		r = ofl_chunk_in_read(it->src, it->buf + it->len,
		    LINE_CAP - it->len);
		if (r < 0)
			return -1;
		if (r == 0)
			it->eof = 1;
		it->len += (size_t)r;
	}
	l->p = it->buf + it->pos;
	l->len = n;
	l->off = it->off;
	l->lineno = it->lineno;
	l->first = !it->midline;
	l->eol = eol;
	l->more = more;
	it->pos += n;
	it->scan = it->pos;
	it->off += n;
	if (eol)
		it->lineno++;
	it->midline = !eol;
	return 1;
}

/*
 * Windows.
 */

void
ofl_chunk_win_init(struct ofl_chunk_win *w)
{
	memset(w, 0, sizeof *w);
	ofl_buf_init(&w->text);
}

void
ofl_chunk_win_free(struct ofl_chunk_win *w)
{
	ofl_buf_free(&w->text);
}

void
ofl_chunk_win_add(struct ofl_chunk_win *w, const struct ofl_chunk_line *l)
{
	if (w->nlines == 0) {
		w->bstart = l->off;
		w->lstart = l->lineno;
		w->prevlend = l->lineno;
	} else
		w->prevlend = w->lend;
	w->last = w->text.len;
	ofl_buf_add(&w->text, l->p, l->len);
	w->lend = l->lineno;
	w->nlines++;
}

size_t
ofl_chunk_win_raw(const struct ofl_chunk_win *w)
{
	return w->text.len - w->hdr;
}

int
ofl_chunk_win_emit(struct ofl_chunker *ck, struct ofl_chunk_win *w,
    const char *title, size_t tlen)
{
	int	rv;

	if (w->nlines == 0)
		return 0;
	rv = emit_head(ck, title, tlen, w->text.data, w->text.len, w->hdr,
	    w->bstart, w->bstart + ofl_chunk_win_raw(w), w->lstart, w->lend);
	w->text.len = w->hdr;
	w->nlines = 0;
	return rv;
}

/* Emit all but the last line, which stays as the window's first. */
int
ofl_chunk_win_emit_last(struct ofl_chunker *ck, struct ofl_chunk_win *w,
    const char *title, size_t tlen)
{
	size_t		n = w->text.len - w->last;
	uint64_t	off = w->bstart + (w->last - w->hdr), line = w->lend;
	int		rv;

	if (w->nlines < 2)
		return 0;
	rv = emit_head(ck, title, tlen, w->text.data, w->last, w->hdr,
	    w->bstart, off, w->lstart, w->prevlend);
	memmove(w->text.data + w->hdr, w->text.data + w->last, n);
	w->text.len = w->hdr + n;
	w->last = w->hdr;
	w->nlines = 1;
	w->bstart = off;
	w->lstart = w->lend = w->prevlend = line;
	return rv;
}

/*
 * Heading paths.
 */

void
ofl_chunk_heads_set(struct ofl_chunk_heads *h, int level, const char *p,
    size_t n)
{
	int	i;

	if (level < 1 || level > 6)
		return;
	if (n > OFL_CHUNK_TITLE_MAX - 1)
		n = ofl_utf8_cut(p, OFL_CHUNK_TITLE_MAX - 1);
	memcpy(h->t[level - 1], p, n);
	h->len[level - 1] = n;
	h->has[level - 1] = 1;
	for (i = level; i < 6; i++)
		h->has[i] = 0;
}

void
ofl_chunk_heads_path(const struct ofl_chunk_heads *h, struct ofl_buf *b)
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
 * Not the kind it looked like after all (JSON cut short, say): the rest
 * is chunked as text, by the text chunker the dispatcher set.
 */
int
ofl_chunk_text(struct ofl_chunker *ck, struct ofl_chunk_in *s, uint64_t off,
    uint64_t lineno, int midline)
{
	return ck->text(ck, s, off, lineno, midline);
}
