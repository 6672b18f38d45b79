/*
 * fmt-text.c: plain text, and the text of a log: chunks are windows of
 * OFL_CHUNK_TEXT_TARGET bytes or TEXT_LINES lines, cut where the log's rules
 * (ofl_fmt_log_class(), fmt-log.c) allow, so that no stack trace,
 * traceback or panic is split and each titles its chunk.  Text is what
 * detection falls back to (kind.c); it has no summary of its own.  Text
 * (not a log) that has the outline of a manual page or of a --help
 * page is cut at its sections and items, titled by them.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "ofl.h"
#include "chunk.h"
#include "banned.h"

#define TEXT_LINES	40		/* a window's lines at most */
#define SOFT_MAX	(16 * 1024)	/* split a block only at a sub-block */
#define RECORD_MIN	4		/* lines of a window a record closes */
#define HEAD_MAX	48		/* bytes of a section's heading */
#define HEAD_INDENT	2		/* columns in of a heading with a colon */
#define ITEM_INDENT	8		/* an item's name: indented this much
					   at most */
#define ITEM_DEEPER	3		/* its text: this much more */
#define ITEM_TITLE	60		/* bytes of an item's name in a title */

struct outline {
	struct ofl_buf	 sect;		/* the section's heading */
	struct ofl_buf	 name;		/* the item's name */
	size_t		 pind;		/* the line before: its indent */
	int		 pblank;	/* it is blank */
	size_t		 item;		/* indent of the item's name, or 0 */
	size_t		 body;		/* lines of the window but headings
					   and blank ones */
};

static int	 text_chunk(struct ofl_chunker *, struct ofl_chunk_in *,
		    uint64_t, uint64_t, int, int);
static size_t	 outline_heading(const char *, size_t);
static int	 outline_line(struct ofl_chunker *, struct ofl_chunk_win *,
		    struct outline *, struct ofl_buf *,
		    const struct ofl_chunk_line *, int, size_t);
static void	 outline_title(struct ofl_buf *, const struct outline *);
static void	 outline_name(struct outline *, const char *, size_t);

/*
 * Logs and plain text: windows of OFL_CHUNK_TEXT_TARGET bytes or TEXT_LINES lines
 * that do not end inside a stack trace, a traceback or a panic.  The
 * log's rules (ofl_fmt_log_class(), fmt-log.c) say how much each line
 * holds on to the line before: OFL_BRK_FREE lines may start a window,
 * OFL_BRK_PARA and OFL_BRK_BLOCK lines start one early (a block always
 * when the window holds one already, so that each crash gets a chunk
 * and a title of its own), an OFL_BRK_RECORD line starts one when the
 * window holds RECORD_MIN lines (a record's head and its body stay in
 * one chunk: a commit's message with its author and date), an
 * OFL_BRK_SOFT line splits only past
 * SOFT_MAX and an OFL_BRK_HARD line only past OFL_CHUNK_HARD_MAX.  The first frame
 * of a Java-like trace splits before the line above it, the exception's
 * own line.
 */

int
ofl_fmt_text_chunk(struct ofl_chunker *ck, struct ofl_chunk_in *s, uint64_t off, uint64_t lineno,
    int midline)
{
	return text_chunk(ck, s, off, lineno, midline, 0);
}

/* Text, not a log: its outline's sections and items cut it too. */
int
ofl_fmt_text_chunk_outline(struct ofl_chunker *ck, struct ofl_chunk_in *s)
{
	return text_chunk(ck, s, 0, 1, 0, 1);
}

/*
 * A section's heading: words in capitals at the margin ("DESCRIPTION",
 * "SEE ALSO", as a manual page has them), or a few words and a colon at
 * most HEAD_INDENT columns in ("Options:", " Main operation mode:",
 * "positional arguments:", as --help pages have them); it starts with a
 * letter ("-----BEGIN RSA PRIVATE KEY-----" is none).  Returns where its
 * words start, plus one; 0 for none.
 */
static size_t
outline_heading(const char *p, size_t n)
{
	size_t	i, a = 0, caps = 0, words = 1;

	while (a < n && a < HEAD_INDENT && p[a] == ' ')
		a++;
	if (n - a < 3 || n - a > HEAD_MAX || !isalpha((unsigned char)p[a]))
		return 0;
	if (p[n - 1] == ':') {
		for (i = a; i + 1 < n; i++) {
			if (p[i] == ' ')
				words++;
			else if (!isalnum((unsigned char)p[i]) &&
			    p[i] != '-' && p[i] != '/' && p[i] != '(' &&
			    p[i] != ')')
				return 0;
		}
		return words <= 4 && p[n - 2] != ' ' ? a + 1 : 0;
	}
	if (a > 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (p[i] >= 'A' && p[i] <= 'Z')
			caps++;
		else if (p[i] != ' ' && p[i] != '-' && p[i] != '/' &&
		    p[i] != '&' && !(p[i] >= '0' && p[i] <= '9'))
			return 0;
	}
	return caps >= 3 && p[n - 1] != '-' && p[n - 1] != ' ' ? 1 : 0;
}

/*
 * The item's name: its line's words up to a gap, cut at ITEM_TITLE
 * bytes.  A line that starts with '-' (an option of its own) never goes
 * on an item.
 */
static void
outline_name(struct outline *o, const char *p, size_t n)
{
	size_t	i;

	ofl_buf_reset(&o->name);
	n = ofl_chunk_body_len(p, n);
	i = ofl_chunk_ws_len(p, n);
	p += i;
	n -= i;
	/*
	 * Up to a gap of blanks, a tab or two spaces: the column where the
	 * item's text starts on its name's line ("-prune  True; if the
	 * file is a directory").
	 */
	for (i = 0; i < n && i < ITEM_TITLE; i++)
		if (p[i] == '\t' || (p[i] == ' ' && i + 1 < n &&
		    p[i + 1] == ' '))
			break;
	/* Cut inside a character: the character goes. */
	if (i < n)
		i = ofl_utf8_cut(p, i);
	while (i > 0 && p[i - 1] == ' ')
		i--;
	ofl_buf_add(&o->name, p, i);
}

/*
 * "SECTION > item name" inside an item, else "SECTION"; NUL-terminated,
 * as a chunk's title is.
 */
static void
outline_title(struct ofl_buf *t, const struct outline *o)
{
	ofl_buf_reset(t);
	ofl_buf_add(t, o->sect.data, o->sect.len);
	if (o->item > 0 && o->name.len > 0) {
		if (t->len > 0)
			ofl_buf_adds(t, " > ");
		ofl_buf_add(t, o->name.data, o->name.len);
	}
	(void)ofl_buf_str(t);
}

/*
 * A line of a text with an outline: 1 when it is added to the window,
 * 0 when the text's own rules are to place it, -1 when the chunker
 * says stop.
 */
static int
outline_line(struct ofl_chunker *ck, struct ofl_chunk_win *w,
    struct outline *o, struct ofl_buf *title,
    const struct ofl_chunk_line *l, int cls, size_t raw)
{
	size_t	n, ind, head;
	int	blank;

	n = ofl_chunk_body_len(l->p, l->len);
	blank = ofl_chunk_blank(l->p, n);
	ind = blank ? 0 : ofl_chunk_ws_len(l->p, n);
	head = blank ? 0 : outline_heading(l->p, n);
	if (head) {
		/* A section: a chunk of its own, titled. */
		if (w->nlines > 0 && ofl_chunk_win_emit(ck, w, title->data,
		    title->len))
			return -1;
		ofl_buf_reset(&o->sect);
		ofl_buf_add(&o->sect, l->p + head - 1, n - (head - 1));
		o->item = 0;
		o->body = 0;
		outline_title(title, o);
	} else if (o->sect.len > 0 && !blank && !o->pblank && o->pind > 0 &&
	    o->pind <= ITEM_INDENT && ind >= o->pind + ITEM_DEEPER &&
	    w->nlines > 0 && l->p[ind] != '-') {
		/*
		 * The line before names an item whose text this one
		 * starts: the item starts a chunk titled by it, unless
		 * only the section's heading is before it.
		 */
		o->item = o->pind;
		outline_name(o, w->text.data + w->last, w->text.len - w->last);
		if (w->nlines > 1 && o->body > 1) {
			if (ofl_chunk_win_emit_last(ck, w, title->data,
			    title->len))
				return -1;
			o->body = 1;
		}
		outline_title(title, o);
	} else if (!blank && o->item > 0 && ind <= o->item)
		o->item = 0;	/* the window keeps its title */
	o->pblank = blank;
	o->pind = ind;
	/* Inside an item: cut only when it is long. */
	if (head || (o->item > 0 && ind > o->item && cls == OFL_BRK_FREE &&
	    raw + l->len <= 2 * OFL_CHUNK_TEXT_TARGET &&
	    w->nlines < TEXT_LINES)) {
		ofl_chunk_win_add(w, l);
		o->body += !blank && !head;
		return 1;
	}
	if (o->sect.len > 0 && cls == OFL_BRK_FREE &&
	    (raw + l->len > OFL_CHUNK_TEXT_TARGET || w->nlines >= TEXT_LINES) &&
	    w->nlines > 0) {
		if (ofl_chunk_win_emit(ck, w, title->data, title->len))
			return -1;
		ofl_chunk_win_add(w, l);
		o->body = !blank;
		return 1;
	}
	o->body += !blank;
	return 0;
}

static int
text_chunk(struct ofl_chunker *ck, struct ofl_chunk_in *s, uint64_t off,
    uint64_t lineno, int midline, int outline)
{
	struct ofl_chunk_lines	 it;
	struct ofl_chunk_line	 l;
	struct ofl_chunk_win	 w;
	struct ofl_logst ls;
	struct outline	 o;
	struct ofl_buf	 title;
	size_t		 raw;
	int		 r, cls, split, rv = 0;

	ofl_chunk_lines_init(&it, s, off, lineno, midline);
	ofl_chunk_win_init(&w);
	ofl_buf_init(&title);
	memset(&ls, 0, sizeof ls);
	memset(&o, 0, sizeof o);
	ofl_buf_init(&o.sect);
	ofl_buf_init(&o.name);
	o.pblank = 1;
	ls.prevblank = 1;
	while ((r = ofl_chunk_lines_next(&it, &l)) == 1) {
		cls = l.first ? ofl_fmt_log_class(&ls, l.p, l.len) :
		    OFL_BRK_HARD;
		raw = ofl_chunk_win_raw(&w);
		if (outline && l.first) {
			if ((r = outline_line(ck, &w, &o, &title, &l, cls,
			    raw)) == -1) {
				rv = 1;
				goto out;
			}
			if (r == 1)
				continue;
		}
		switch (cls) {
		case OFL_BRK_FREE:
			split = raw + l.len > OFL_CHUNK_TEXT_TARGET ||
			    w.nlines >= TEXT_LINES;
			break;
		case OFL_BRK_BLOCK:
		case OFL_BRK_PARA:
			split = raw >= OFL_CHUNK_TEXT_TARGET / 2 ||
			    raw + l.len > OFL_CHUNK_TEXT_TARGET ||
			    w.nlines >= TEXT_LINES / 2 ||
			    (cls == OFL_BRK_BLOCK && title.len > 0);
			break;
		case OFL_BRK_RECORD:
			split = w.nlines >= RECORD_MIN ||
			    raw + l.len > OFL_CHUNK_TEXT_TARGET;
			break;
		case OFL_BRK_SOFT:
			split = raw >= SOFT_MAX;
			break;
		default:
			split = raw + l.len > OFL_CHUNK_HARD_MAX;
			break;
		}
		if (ls.hl == 2 && w.nlines > 1 && (title.len > 0 ||
		    w.last >= OFL_CHUNK_TEXT_TARGET / 2)) {
			/* Split before the exception line above the frame. */
			if (ofl_chunk_win_emit_last(ck, &w, title.data,
			    title.len)) {
				rv = 1;
				goto out;
			}
			title.len = 0;
			if (outline) {
				outline_title(&title, &o);
				o.body = 0;
			}
		} else if (w.nlines > 0 && split) {
			if (ofl_chunk_win_emit(ck, &w, title.data, title.len)) {
				rv = 1;
				goto out;
			}
			title.len = 0;
			if (outline) {
				outline_title(&title, &o);
				o.body = 0;
			}
		}
		if (ls.hl == 2 && w.nlines > 0 && title.len == 0)
			ofl_fmt_log_headline(&title, w.text.data + w.last,
			    w.text.len - w.last, 0);
		ofl_chunk_win_add(&w, &l);
		if (ls.hl == 1 && title.len == 0)
			ofl_fmt_log_headline(&title, l.p, l.len, ls.hloff);
	}
	if (r < 0)
		rv = -1;
	else if (ofl_chunk_win_emit(ck, &w, title.data, title.len))
		rv = 1;
out:
	ofl_buf_free(&o.sect);
	ofl_buf_free(&o.name);
	ofl_buf_free(&title);
	ofl_chunk_win_free(&w);
	ofl_chunk_lines_free(&it);
	return rv;
}
