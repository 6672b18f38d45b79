/*
 * notice.c: what ofl-capture prints instead of a large output.  About a
 * kilobyte: the reference line, a summary that fits the kind, a fenced
 * preview of the head and the tail, and the next commands to run, with
 * the real ID in them.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ofl.h"
#include "notice-int.h"
#include "banned.h"


/* render() flags. */
#define R_ONELINE	OFL_RENDER_ONELINE

/* A piece of a line shown in the preview. */
struct piece {
	uint64_t	 line;
	uint64_t	 a;		/* bytes shown: [a, b) */
	uint64_t	 b;
	uint64_t	 cut_before;	/* bytes left out before a */
	uint64_t	 cut_after;	/* and after b */
	struct ofl_buf	 text;		/* a..b rendered */
	struct ofl_buf	 raw;		/* a..b as they are */
};

struct section {
	struct piece	*p;
	size_t		 n;
	size_t		 cap;
	uint64_t	 resume;	/* where the next section may start */
	int		 midline;	/* resume is inside a line */
};


static size_t	 render(struct ofl_buf *, const unsigned char *, size_t,
		    size_t, int, size_t *);
static ssize_t	 read_at(struct ctx *, uint64_t, unsigned char *, size_t);
static int64_t	 line_end(struct ctx *, uint64_t);
static int64_t	 line_start(struct ctx *, uint64_t);
static struct piece *add_piece(struct section *);
static void	 section_free(struct section *);
static int	 pick_head(struct ctx *, size_t, size_t, struct section *);
static int	 pick_tail(struct ctx *, size_t, size_t,
		    const struct section *, struct section *);
static void	 put_section(struct ctx *, struct ofl_buf *, const char *,
		    const struct section *, int);
static void	 put_section_json(struct ofl_buf *, const char *,
		    const char *, const struct section *);
static int	 pick_error(struct ctx *, const struct section *,
		    const struct section *, struct section *);
static int	 preview_text(struct ctx *, struct ofl_buf *, struct ofl_buf *,
		    struct ofl_buf *);
static int	 preview_hex(struct ctx *, size_t, struct ofl_buf *,
		    struct ofl_buf *, struct ofl_buf *);
static void	 hexdump(struct ofl_buf *, const unsigned char *, size_t,
		    uint64_t);
static struct ofl_next *add_step(struct ofl_notice_next *, int);
static void	 next_steps(struct ctx *, struct ofl_notice_next *);
static void	 put_next(const struct ofl_notice_next *, struct ofl_buf *,
		    struct ofl_buf *);
static int	 notice_open(struct ctx *, struct ofl_store *,
		    const struct ofl_meta *, const struct ofl_notice_opts *);
static void	 shrink_budgets(const struct ctx *,
		    const struct ofl_notice_opts *, struct ofl_notice_opts *);
static int	 intent_hits(struct ctx *, struct ofl_buf *, struct ofl_buf *);
static int	 preview(struct ctx *, struct ofl_buf *, struct ofl_buf *,
		    struct ofl_buf *);
static void	 put_json(struct ctx *, struct ofl_buf *,
		    const struct ofl_buf *, const struct ofl_buf *,
		    const struct ofl_buf *);
static void	 put_range(struct ofl_buf *, const struct section *, uint64_t);
static void	 put_piece(struct ofl_buf *, struct ofl_redactor *,
		    const struct piece *);
static size_t	 digits(uint64_t);
static void	 put_byterange(struct ofl_buf *, const char *, uint64_t,
		    uint64_t, uint64_t);
static void	 notice_changes(struct ctx *, struct ofl_store *,
		    const struct ofl_meta *);

void
ofl_notice_opts_init(struct ofl_notice_opts *o)
{
	o->head_bytes = 600;
	o->tail_bytes = 400;
	o->json = 0;
	o->intent = NULL;
	o->intent_bytes = 1000;
	o->changes = 0;
}

/* The base layer's rendering, as the summaries here call it. */
static size_t
render(struct ofl_buf *out, const unsigned char *p, size_t n, size_t max,
    int flags, size_t *used)
{
	return ofl_render(out, p, n, max, flags, used);
}


void
ofl_notice_refline(struct ofl_buf *out, const struct ofl_meta *m)
{
	char	s[64];
	size_t	used;

	ofl_buf_addf(out, "ofl:%s %s ", m->id, ofl_kind_name(m->kind));
	ofl_buf_add_size(out, m->bytes);
	ofl_buf_addc(out, ' ');
	ofl_buf_add_count(out, m->lines);
	ofl_buf_adds(out, m->lines == 1 ? " line" : " lines");
	if (m->incomplete)
		ofl_buf_adds(out, " (incomplete)");
	if (m->command != NULL && m->command[0] != '\0') {
		struct ofl_buf t;

		ofl_buf_init(&t);
		ofl_meta_mask(m->command, &t);
		ofl_buf_adds(out, "  $ ");
		render(out, (const unsigned char *)t.data, t.len, CMD_MAX,
		    R_ONELINE, &used);
		if (used < t.len)
			ofl_buf_adds(out, "...");
		ofl_buf_free(&t);
		if (m->has_exit)
			ofl_buf_addf(out, "  exit %d", m->exit_status);
		if (m->duration_ms >= 0) {
			ofl_fmt_duration(s, sizeof s, m->duration_ms);
			ofl_buf_addf(out, "  %s", s);
		}
	}
}

/* Read up to n bytes at off; short only at the end. */
static ssize_t
read_at(struct ctx *c, uint64_t off, unsigned char *buf, size_t n)
{
	if (ofl_reader_seek(c->r, off) == -1)
		return -1;
	return ofl_reader_read_full(c->r, buf, n);
}

/* The offset where a line starts; the end of the content past the last. */
static int64_t
line_start(struct ctx *c, uint64_t line)
{
	if (line > c->lines)
		return (int64_t)c->total;
	return ofl_reader_seek_line(c->r, line);
}

/* The offset where a line's content ends (at its newline). */
static int64_t
line_end(struct ctx *c, uint64_t line)
{
	int64_t	o;

	if (line >= c->lines)
		return (int64_t)(c->total - (c->lastnl ? 1 : 0));
	if ((o = ofl_reader_seek_line(c->r, line + 1)) == -1)
		return -1;
	return o - 1;
}

static struct piece *
add_piece(struct section *s)
{
	struct piece	*p;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->p = ofl_xrealloc(s->p, s->cap * sizeof *s->p);
	}
	p = &s->p[s->n++];
	memset(p, 0, sizeof *p);
	ofl_buf_init(&p->text);
	ofl_buf_init(&p->raw);
	return p;
}

static void
section_free(struct section *s)
{
	size_t	i;

	for (i = 0; i < s->n; i++) {
		ofl_buf_free(&s->p[i].text);
		ofl_buf_free(&s->p[i].raw);
	}
	free(s->p);
	memset(s, 0, sizeof *s);
}

/*
 * The head: whole lines from the start while they fit in budget bytes of
 * output (line number prefixes included) and maxlines; a line that does
 * not fit is cut, with a marker, if it is the first or there is room.
 */
static int
pick_head(struct ctx *c, size_t budget, size_t maxlines, struct section *s)
{
	unsigned char	*buf;
	const unsigned char *nl;
	struct piece	*pc;
	size_t		 len, want, avail, ovh = c->width + 3, used = 0;
	size_t		 cons, sz;
	uint64_t	 off = 0, line = 1, lend = 0, next = 0, dend;
	int64_t		 e;
	ssize_t		 k;
	int		 known;

	s->resume = 0;
	s->midline = 0;
	want = budget + 2;
	if (want > c->total)
		want = (size_t)c->total;
	buf = ofl_xmalloc(want + 1);
	if ((k = read_at(c, 0, buf, want)) == -1) {
		free(buf);
		return -1;
	}
	len = (size_t)k;
	while (off < c->total && s->n < maxlines) {
		if (used + ovh + 8 > budget)
			break;
		avail = budget - used - ovh;
		nl = off < len ? memchr(buf + off, '\n', len - off) : NULL;
		known = 1;
		if (nl != NULL) {
			lend = (uint64_t)(nl - buf);
			next = lend + 1;
		} else if (len == c->total) {
			lend = next = c->total;
		} else
			known = 0;
		if (known) {
			dend = lend;
			if (dend > off && buf[dend - 1] == '\r')
				dend--;
			sz = render(NULL, buf + off, dend - off, avail, 0,
			    &cons);
			if (cons == dend - off) {
				pc = add_piece(s);
				pc->line = line;
				pc->a = off;
				pc->b = dend;
				render(&pc->text, buf + off, dend - off, avail,
				    0, NULL);
				ofl_buf_add(&pc->raw, buf + off, dend - off);
				used += sz + ovh;
				off = next;
				line++;
				continue;
			}
		} else
			dend = len;
		/* The line does not fit: cut it, if that is worth it. */
		if (s->n > 0 && avail < 80)
			break;
		if (avail > 2 * MARK_RESERVE)
			avail -= MARK_RESERVE;
		pc = add_piece(s);
		pc->line = line;
		pc->a = off;
		render(&pc->text, buf + off, dend - off, avail, 0, &cons);
		ofl_buf_add(&pc->raw, buf + off, cons);
		pc->b = off + cons;
		if (!known) {
			if ((e = line_end(c, line)) == -1) {
				free(buf);
				return -1;
			}
			lend = (uint64_t)e;
		}
		pc->cut_after = (known ? dend : lend) - pc->b;
		s->resume = pc->b;
		s->midline = 1;
		free(buf);
		return 0;
	}
	s->resume = off;
	free(buf);
	return 0;
}

/*
 * The tail: whole lines back from the end while they fit; a last line
 * that does not fit shows its end after a marker.  Nothing before where
 * the head stopped.
 */
static int
pick_tail(struct ctx *c, size_t budget, size_t maxlines,
    const struct section *head, struct section *s)
{
	unsigned char	*buf;
	const unsigned char *q;
	struct piece	*pc, tmp;
	uint64_t	 lo = head->resume, w0, end, lstart = 0, from, line;
	uint64_t	 tstart;
	size_t		 len, avail, ovh = c->width + 3, used = 0, cons, sz, i;
	int64_t		 e;
	ssize_t		 k;
	int		 known, tries;

	if (lo >= c->total || budget == 0)
		return 0;
	len = budget + 2;
	if (len > c->total - lo)
		len = (size_t)(c->total - lo);
	w0 = c->total - len;
	buf = ofl_xmalloc(len + 1);
	if ((k = read_at(c, w0, buf, len)) == -1 || (size_t)k != len) {
		if (k != -1)
			ofl_seterr(OFL_EXIT_FAIL, "%s: content shorter than "
			    "recorded", c->id);
		free(buf);
		return -1;
	}
	end = c->total;
	if (c->lastnl)
		end--;
	line = c->lines;
	while (end >= lo && s->n < maxlines) {
		if (used + ovh + 8 > budget)
			break;
		avail = budget - used - ovh;
		q = end > w0 ? memrchr(buf, '\n', end - w0) : NULL;
		known = 1;
		if (q != NULL)
			lstart = w0 + (uint64_t)(q - buf) + 1;
		else if (w0 == 0 || (w0 == lo && !head->midline))
			lstart = w0;
		else if (w0 == lo && head->midline && (head->n == 0 ||
		    head->p[head->n - 1].line == line))
			lstart = w0;	/* the rest of the head's last line */
		else
			known = 0;
		tstart = end;
		if (tstart > w0 && tstart > (known ? lstart : w0) &&
		    buf[tstart - 1 - w0] == '\r')
			tstart--;
		if (known) {
			sz = render(NULL, buf + lstart - w0, tstart - lstart,
			    avail, 0, &cons);
			if (cons == tstart - lstart) {
				pc = add_piece(s);
				pc->line = line;
				pc->a = lstart;
				pc->b = tstart;
				render(&pc->text, buf + lstart - w0,
				    tstart - lstart, avail, 0, NULL);
				ofl_buf_add(&pc->raw, buf + lstart - w0,
				    tstart - lstart);
				used += sz + ovh;
				if (lstart <= lo || lstart == 0)
					break;
				end = lstart - 1;
				line--;
				continue;
			}
		}
		/*
		 * A line that does not fit: the last line shows its end, an
		 * earlier one its start.
		 */
		if (s->n > 0 && (avail < 80 || !known))
			break;
		if (avail > 2 * MARK_RESERVE)
			avail -= MARK_RESERVE;
		if (s->n > 0) {
			pc = add_piece(s);
			pc->line = line;
			pc->a = lstart;
			render(&pc->text, buf + lstart - w0, tstart - lstart,
			    avail, 0, &cons);
			ofl_buf_add(&pc->raw, buf + lstart - w0, cons);
			pc->b = lstart + cons;
			pc->cut_after = tstart - pc->b;
			break;
		}
		from = known ? lstart : w0;
		if (tstart - from > avail)
			from = tstart - avail;
		for (tries = 0; tries < 8; tries++) {
			for (i = 0; i < 3 && from < tstart &&
			    (buf[from - w0] & 0xc0) == 0x80; i++)
				from++;
			render(NULL, buf + from - w0, tstart - from, avail, 0,
			    &cons);
			if (cons == tstart - from)
				break;
			from += tstart - from - cons;
		}
		pc = add_piece(s);
		pc->line = line;
		pc->a = from;
		pc->b = from + cons;
		render(&pc->text, buf + from - w0, cons, avail, 0, NULL);
		ofl_buf_add(&pc->raw, buf + from - w0, cons);
		if (!known) {
			if (head->midline && head->n > 0 &&
			    head->p[head->n - 1].line == line)
				lstart = lo;
			else {
				if ((e = line_start(c, line)) == -1) {
					free(buf);
					return -1;
				}
				lstart = (uint64_t)e;
			}
		}
		pc->cut_before = from - (lstart > lo ? lstart : lo);
		break;
	}
	free(buf);
	/* Pieces were added from the end. */
	for (i = 0; i < s->n / 2; i++) {
		tmp = s->p[i];
		s->p[i] = s->p[s->n - 1 - i];
		s->p[s->n - 1 - i] = tmp;
	}
	return 0;
}

static void
put_range(struct ofl_buf *b, const struct section *s, uint64_t total)
{
	uint64_t	a = s->p[0].line, z = s->p[s->n - 1].line;

	if (a == z) {
		ofl_buf_adds(b, "line ");
		ofl_buf_add_count(b, a);
	} else {
		ofl_buf_adds(b, "lines ");
		ofl_buf_add_count(b, a);
		ofl_buf_addc(b, '-');
		ofl_buf_add_count(b, z);
	}
	ofl_buf_adds(b, " of ");
	ofl_buf_add_count(b, total);
}

/*
 * A piece as shown: masked for secrets (red is not NULL) and rendered
 * safely, with markers for what was left out.
 */
static void
put_piece(struct ofl_buf *b, struct ofl_redactor *red, const struct piece *p)
{
	struct ofl_buf	t;

	if (p->cut_before > 0) {
		ofl_buf_adds(b, "[... ");
		ofl_buf_add_count(b, p->cut_before);
		ofl_buf_adds(b, " bytes] ");
	}
	if (red != NULL) {
		ofl_buf_init(&t);
		ofl_redact_line(red, p->raw.data != NULL ? p->raw.data : "",
		    p->raw.len, &t);
		render(b, (const unsigned char *)t.data, t.len, 4 * t.len + 16,
		    0, NULL);
		ofl_buf_free(&t);
	} else
		ofl_buf_add(b, p->text.data, p->text.len);
	if (p->cut_after > 0) {
		ofl_buf_adds(b, " [... ");
		ofl_buf_add_count(b, p->cut_after);
		ofl_buf_adds(b, " bytes]");
	}
}

static void
put_section(struct ctx *c, struct ofl_buf *out, const char *name,
    const struct section *s, int width)
{
	struct ofl_redactor	*red;
	size_t			 i;

	if (s->n == 0)
		return;
	red = ofl_redact_wanted() ? ofl_redactor_new() : NULL;
	ofl_buf_addf(out, "--- %s (", name);
	put_range(out, s, c->lines);
	ofl_buf_adds(out, ") ---\n");
	for (i = 0; i < s->n; i++) {
		ofl_buf_addf(out, "%*llu| ", width,
		    (unsigned long long)s->p[i].line);
		put_piece(out, red, &s->p[i]);
		ofl_buf_addc(out, '\n');
	}
	ofl_redactor_free(red);
}

static void
put_section_json(struct ofl_buf *out, const char *name, const char *lname,
    const struct section *s)
{
	struct ofl_redactor	*red;
	struct ofl_buf		 t;
	size_t			 i;

	red = ofl_redact_wanted() ? ofl_redactor_new() : NULL;
	ofl_buf_init(&t);
	for (i = 0; i < s->n; i++) {
		put_piece(&t, red, &s->p[i]);
		if (i + 1 < s->n)
			ofl_buf_addc(&t, '\n');
	}
	ofl_redactor_free(red);
	ofl_buf_addf(out, ",\"%s\":", name);
	ofl_buf_add_json_str(out, t.data != NULL ? t.data : "", t.len);
	if (s->n > 0)
		ofl_buf_addf(out, ",\"%s\":[%llu,%llu]", lname,
		    (unsigned long long)s->p[0].line,
		    (unsigned long long)s->p[s->n - 1].line);
	else
		ofl_buf_addf(out, ",\"%s\":null", lname);
	ofl_buf_free(&t);
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

/*
 * The first line that looks like an error, when neither the head nor the
 * tail shows it: the line a reader wants first.
 */
static int
pick_error(struct ctx *c, const struct section *head,
    const struct section *tail, struct section *s)
{
	unsigned char	 buf[ERRLINE_MAX];
	struct piece	*pc;
	uint64_t	 fe = c->first_error, start;
	int64_t		 o, e;
	ssize_t		 k;
	size_t		 n, cons;
	unsigned char	*nl;

	if (fe == 0 || fe > c->lines)
		return 0;
	if (head->n > 0 && fe <= head->p[head->n - 1].line)
		return 0;
	if (tail->n > 0 && fe >= tail->p[0].line)
		return 0;
	if ((o = ofl_reader_seek_line(c->r, fe)) == -1)
		return -1;
	start = (uint64_t)o;
	if ((k = read_at(c, start, buf, sizeof buf)) == -1)
		return -1;
	n = (size_t)k;
	if ((nl = memchr(buf, '\n', n)) != NULL)
		n = (size_t)(nl - buf);
	if (nl != NULL && n > 0 && buf[n - 1] == '\r')
		n--;
	pc = add_piece(s);
	pc->line = fe;
	pc->a = start;
	render(&pc->text, buf, n, ERRLINE_MAX - MARK_RESERVE, 0, &cons);
	ofl_buf_add(&pc->raw, buf, cons);
	pc->b = start + cons;
	if (nl == NULL || cons < n) {
		if ((e = line_end(c, fe)) == -1)
			return -1;
		pc->cut_after = (uint64_t)e - pc->b;
	}
	return 0;
}

/*
 * The preview of a text: head and tail, or the whole content once when
 * it fits in both budgets together.
 */
static int
preview_text(struct ctx *c, struct ofl_buf *out, struct ofl_buf *jhead,
    struct ofl_buf *jtail)
{
	struct section	 head, tail, err;
	size_t		 hb = c->o->head_bytes, tb = c->o->tail_bytes;
	size_t		 i, hl, tl;
	int		 width, rv = -1, all = 0;
	uint64_t	 maxline = 0;

	memset(&head, 0, sizeof head);
	memset(&tail, 0, sizeof tail);
	memset(&err, 0, sizeof err);
	c->width = digits(c->lines);
	if (hb + tb == 0)
		return 0;
	/* Many short lines make a long preview: cap the lines too. */
	hl = hb / LINE_AVG > 3 ? hb / LINE_AVG : 3;
	tl = tb / LINE_AVG > 2 ? tb / LINE_AVG : 2;
	if (hb > 0 && tb > 0) {
		if (pick_head(c, hb + tb, hl + tl, &head) == -1)
			goto out;
		if (head.resume >= c->total && !head.midline)
			all = 1;
		else
			section_free(&head);
	}
	if (!all) {
		if (hb > 0 && pick_head(c, hb, hl, &head) == -1)
			goto out;
		if (tb > 0 && pick_tail(c, tb, tl, &head, &tail) == -1)
			goto out;
	}
	/* A head cut inside the line the tail goes on with. */
	if (head.n > 0 && tail.n > 0 && head.midline &&
	    head.p[head.n - 1].line == tail.p[0].line) {
		head.p[head.n - 1].cut_after = tail.p[0].a -
		    head.p[head.n - 1].b;
		tail.p[0].cut_before = 0;
	}
	if ((c->m->kind == OFL_KIND_LOG || c->m->kind == OFL_KIND_TEXT) &&
	    !all && pick_error(c, &head, &tail, &err) == -1)
		goto out;
	for (i = 0; i < head.n; i++)
		maxline = head.p[i].line;
	for (i = 0; i < err.n; i++)
		maxline = err.p[i].line;
	for (i = 0; i < tail.n; i++)
		maxline = tail.p[i].line;
	width = (int)digits(maxline);
	c->head_last = head.n > 0 ? head.p[head.n - 1].line : 0;
	if (out != NULL) {
		put_section(c, out, all ? "all" : "head", &head, width);
		put_section(c, out, "first error", &err, width);
		put_section(c, out, "tail", &tail, width);
		if (head.n + tail.n + err.n > 0)
			ofl_buf_adds(out, "--- end of preview ---\n");
	} else {
		put_section_json(jhead, "head", "head_lines", &head);
		put_section_json(jtail, "tail", "tail_lines", &tail);
		if (err.n > 0)
			put_section_json(jtail, "first_error_text",
			    "first_error_lines", &err);
	}
	rv = 0;
out:
	section_free(&head);
	section_free(&tail);
	section_free(&err);
	return rv;
}

/* One xxd-like line per 16 bytes. */
static void
hexdump(struct ofl_buf *b, const unsigned char *p, size_t n, uint64_t off)
{
	size_t	i, j;

	for (i = 0; i < n; i += 16) {
		ofl_buf_addf(b, "%08llx:", (unsigned long long)(off + i));
		for (j = 0; j < 16; j++) {
			if (j % 2 == 0)
				ofl_buf_addc(b, ' ');
			if (i + j < n)
				ofl_buf_addf(b, "%02x", p[i + j]);
			else
				ofl_buf_adds(b, "  ");
		}
		ofl_buf_adds(b, "  ");
		for (j = 0; j < 16 && i + j < n; j++)
			ofl_buf_addc(b, p[i + j] >= 0x20 && p[i + j] < 0x7f ?
			    p[i + j] : '.');
		ofl_buf_addc(b, '\n');
	}
}

static void
put_byterange(struct ofl_buf *b, const char *name, uint64_t a, uint64_t z,
    uint64_t total)
{
	ofl_buf_addf(b, "--- %s (bytes ", name);
	ofl_buf_add_count(b, a);
	ofl_buf_addc(b, '-');
	ofl_buf_add_count(b, z);
	ofl_buf_adds(b, " of ");
	ofl_buf_add_count(b, total);
	ofl_buf_adds(b, ") ---\n");
}

/* The preview of binary content: hex of each end, or all if it is small. */
static int
preview_hex(struct ctx *c, size_t each, struct ofl_buf *out,
    struct ofl_buf *jhead, struct ofl_buf *jtail)
{
	unsigned char	 h[HEX_BINARY], t[HEX_BINARY];
	struct ofl_buf	 hb, tb;
	size_t		 nh, nt = 0;
	ssize_t		 k;

	if (c->o->head_bytes + c->o->tail_bytes == 0 || c->total == 0)
		return 0;
	nh = c->total < 2 * each ? (size_t)c->total : each;
	if ((k = read_at(c, 0, h, nh)) == -1)
		return -1;
	nh = (size_t)k;
	if (c->total > nh) {
		nt = each;
		if ((k = read_at(c, c->total - nt, t, nt)) == -1)
			return -1;
		nt = (size_t)k;
	}
	ofl_buf_init(&hb);
	ofl_buf_init(&tb);
	hexdump(&hb, h, nh, 0);
	if (nt > 0)
		hexdump(&tb, t, nt, c->total - nt);
	if (out != NULL) {
		put_byterange(out, nt > 0 ? "head" : "all", 0, nh - 1,
		    c->total);
		ofl_buf_add(out, hb.data, hb.len);
		if (nt > 0) {
			put_byterange(out, "tail", c->total - nt,
			    c->total - 1, c->total);
			ofl_buf_add(out, tb.data, tb.len);
		}
		ofl_buf_adds(out, "--- end of preview ---\n");
	} else {
		ofl_buf_adds(jhead, ",\"head\":");
		ofl_buf_add_json_str(jhead, hb.data ? hb.data : "", hb.len);
		ofl_buf_adds(jhead, ",\"head_lines\":null");
		ofl_buf_adds(jtail, ",\"tail\":");
		ofl_buf_add_json_str(jtail, tb.data ? tb.data : "", tb.len);
		ofl_buf_adds(jtail, ",\"tail_lines\":null");
	}
	ofl_buf_free(&hb);
	ofl_buf_free(&tb);
	return 0;
}
/* A step more, if there is room. */
static struct ofl_next *
add_step(struct ofl_notice_next *nx, int step)
{
	struct ofl_next	*s;

	if (nx->n == OFL_NEXT_MAX)
		return NULL;
	s = &nx->step[nx->n++];
	memset(s, 0, sizeof *s);
	s->step = step;
	return s;
}

/* Suggested next steps, with the real ID and real arguments. */
static void
next_steps(struct ctx *c, struct ofl_notice_next *nx)
{
	struct ofl_next	*s;
	uint64_t	 a, z;
	int		 kind = c->m->kind;

	if (kind != OFL_KIND_BINARY && kind != OFL_KIND_ARCHIVE &&
	    kind != OFL_KIND_COMPRESSED && kind != OFL_KIND_EMPTY &&
	    !c->snapshot && c->lines > 0) {
		/* The error lines counted above, as whole blocks. */
		if ((kind == OFL_KIND_LOG || kind == OFL_KIND_TEXT) &&
		    c->errors > 0)
			add_step(nx, OFL_NEXT_ERRORS);
		if ((kind == OFL_KIND_LOG || kind == OFL_KIND_TEXT) &&
		    c->first_error > 0 && c->first_error <= c->lines) {
			a = c->first_error > 20 ? c->first_error - 20 : 1;
			z = c->first_error + 20;
		} else {
			a = c->head_last + 1;
			if (a > c->lines)
				a = 1;
			z = a + 39;
		}
		if (z > c->lines)
			z = c->lines;
		if ((s = add_step(nx, OFL_NEXT_LINES)) != NULL) {
			s->from = a;
			s->to = z;
		}
	}
	if (kind != OFL_KIND_EMPTY)
		add_step(nx, OFL_NEXT_SEARCH);
	if (kind == OFL_KIND_JSON || kind == OFL_KIND_NDJSON ||
	    kind == OFL_KIND_CSV || kind == OFL_KIND_TSV ||
	    kind == OFL_KIND_TABLE)
		add_step(nx, OFL_NEXT_SCHEMA);
	if ((kind == OFL_KIND_JSON || kind == OFL_KIND_NDJSON ||
	    kind == OFL_KIND_TABLE) &&
	    c->filter != NULL && (s = add_step(nx, OFL_NEXT_FILTER)) != NULL)
		s->arg = ofl_xstrdup(c->filter);
	if (c->snapshot && c->filter != NULL &&
	    (s = add_step(nx, OFL_NEXT_ROLE)) != NULL)
		s->arg = ofl_xstrdup(c->filter);
	if (kind == OFL_KIND_ARCHIVE && c->member != NULL &&
	    (s = add_step(nx, OFL_NEXT_MEMBER)) != NULL)
		s->arg = ofl_xstrdup(c->member);
}

void
ofl_notice_next_text(const char *id, const struct ofl_next *s,
    struct ofl_buf *b)
{
	char	*q;

	switch (s->step) {
	case OFL_NEXT_ERRORS:
		ofl_buf_addf(b, "ofl-extract %s --errors", id);
		break;
	case OFL_NEXT_LINES:
		ofl_buf_addf(b, "ofl-extract %s -n %llu-%llu", id,
		    (unsigned long long)s->from, (unsigned long long)s->to);
		break;
	case OFL_NEXT_SEARCH:
		ofl_buf_addf(b, "ofl-search %s 'QUERY'", id);
		break;
	case OFL_NEXT_SCHEMA:
		ofl_buf_addf(b, "ofl-schema %s", id);
		break;
	case OFL_NEXT_FILTER:
		q = ofl_shquote(s->arg);
		ofl_buf_addf(b, "ofl-extract %s %s", id, q);
		free(q);
		break;
	case OFL_NEXT_ROLE:
		q = ofl_shquote(s->arg);
		ofl_buf_addf(b, "ofl-extract %s --role %s", id, q);
		free(q);
		break;
	case OFL_NEXT_MEMBER:
		q = ofl_shquote(s->arg);
		ofl_buf_addf(b, "ofl-extract %s --member ", id);
		/* A member name is shown safely, never raw. */
		render(b, (const unsigned char *)q, strlen(q), 200, R_ONELINE,
		    NULL);
		free(q);
		break;
	}
}

void
ofl_notice_next_free(struct ofl_notice_next *nx)
{
	size_t	i;

	for (i = 0; i < nx->n; i++)
		free(nx->step[i].arg);
	nx->n = 0;
}

/* The steps as the notice's next: lines (out), or a JSON array (js). */
static void
put_next(const struct ofl_notice_next *nx, struct ofl_buf *out,
    struct ofl_buf *js)
{
	struct ofl_buf	t;
	size_t		i;

	ofl_buf_init(&t);
	for (i = 0; i < nx->n; i++) {
		ofl_buf_reset(&t);
		ofl_notice_next_text(nx->id, &nx->step[i], &t);
		if (out != NULL) {
			ofl_buf_adds(out, i == 0 ? "next: " : "      ");
			ofl_buf_add(out, t.data, t.len);
			ofl_buf_addc(out, '\n');
		} else {
			ofl_buf_adds(js, i == 0 ? "[" : ",");
			ofl_buf_add_json_str(js, t.data, t.len);
		}
	}
	if (out == NULL)
		ofl_buf_adds(js, nx->n == 0 ? "[]" : "]");
	ofl_buf_free(&t);
}

/* Open the artifact for a notice. */
static int
notice_open(struct ctx *c, struct ofl_store *st, const struct ofl_meta *m,
    const struct ofl_notice_opts *o)
{
	unsigned char	last;

	memset(c, 0, sizeof *c);
	c->st = st;
	c->m = m;
	c->o = o;
	c->id = m->id;
	ofl_buf_init(&c->sum);
	ofl_buf_init(&c->sumj);
	if ((c->r = ofl_reader_open(st, m->id)) == NULL)
		return -1;
	c->total = ofl_reader_bytes(c->r);
	c->lines = ofl_reader_lines(c->r);
	if (c->total > 0) {
		if (read_at(c, c->total - 1, &last, 1) != 1) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: cannot read the content",
			    m->id);
			return -1;
		}
		c->lastnl = last == '\n';
	}
	return 0;
}

/*
 * The preview's budgets: a long summary (error signatures, a shape)
 * takes from the head, the next: line that suggests --errors from the
 * tail.
 */
static void
shrink_budgets(const struct ctx *c, const struct ofl_notice_opts *o,
    struct ofl_notice_opts *shrunk)
{
	int	kind = c->m->kind;

	*shrunk = *o;
	if (c->snapshot) {
		shrunk->head_bytes = shrunk->tail_bytes = 0;
		return;
	}
	if (c->sum.len > SUMMARY_FREE && o->head_bytes > HEAD_MIN) {
		size_t	take = c->sum.len - SUMMARY_FREE;

		shrunk->head_bytes = o->head_bytes - take > HEAD_MIN &&
		    take < o->head_bytes ? o->head_bytes - take : HEAD_MIN;
	}
	if ((kind == OFL_KIND_LOG || kind == OFL_KIND_TEXT) &&
	    c->errors > 0)
		shrunk->tail_bytes = o->tail_bytes > NEXT_ERRORS ?
		    o->tail_bytes - NEXT_ERRORS : 0;
	/* A test run's summary is in its section already. */
	if (c->tests && shrunk->tail_bytes > TESTS_TAIL)
		shrunk->tail_bytes = TESTS_TAIL;
}

/*
 * With an intent: its top hits instead of the plain preview.  1 if they
 * were shown, 0 if the plain preview is to follow.
 */
static int
intent_hits(struct ctx *c, struct ofl_buf *text, struct ofl_buf *jhead)
{
	const struct ofl_notice_opts *o = c->o;
	struct ofl_buf	hits;
	int		n, kind = c->m->kind;

	if (o->intent == NULL || *o->intent == '\0' || c->total == 0 ||
	    kind == OFL_KIND_BINARY || kind == OFL_KIND_ARCHIVE ||
	    kind == OFL_KIND_COMPRESSED)
		return 0;
	ofl_buf_init(&hits);
	n = ofl_search_intent(c->st, c->m->id, o->intent, o->intent_bytes,
	    &hits);
	if (n > 0) {
		if (o->json) {
			ofl_buf_adds(jhead, ",\"intent\":");
			ofl_buf_add_json_str(jhead, o->intent,
			    strlen(o->intent));
			ofl_buf_adds(jhead, ",\"matches\":");
			ofl_buf_add_json_str(jhead, hits.data, hits.len);
		} else {
			ofl_buf_adds(text, "--- matches for intent: ");
			ofl_meta_mask(o->intent, text);
			ofl_buf_adds(text, " ---\n");
			ofl_buf_add(text, hits.data, hits.len);
			ofl_buf_adds(text, "--- end of matches ---\n");
		}
		ofl_buf_free(&hits);
		return 1;
	}
	if (!o->json) {
		ofl_buf_adds(text, "intent: no match for ");
		ofl_meta_mask(o->intent, text);
		ofl_buf_adds(text, "; the preview follows\n");
	}
	ofl_buf_free(&hits);
	return 0;
}

/* The intent's hits, or a preview of the head and tail that fits. */
static int
preview(struct ctx *c, struct ofl_buf *text, struct ofl_buf *jhead,
    struct ofl_buf *jtail)
{
	int	kind = c->m->kind, json = c->o->json;

	if (intent_hits(c, text, jhead))
		return 0;
	if (kind == OFL_KIND_BINARY || kind == OFL_KIND_ARCHIVE ||
	    kind == OFL_KIND_COMPRESSED)
		return preview_hex(c, kind == OFL_KIND_BINARY ? HEX_BINARY :
		    HEX_ARCHIVE, json ? NULL : text, jhead, jtail);
	if (c->total > 0)
		return preview_text(c, json ? NULL : text, jhead, jtail);
	if (!json)
		ofl_buf_adds(text, "(no content)\n");
	return 0;
}

/* The JSON notice: the metadata, the preview, the summary, the steps. */
static void
put_json(struct ctx *c, struct ofl_buf *text, const struct ofl_buf *jhead,
    const struct ofl_buf *jtail, const struct ofl_buf *jnext)
{
	ofl_buf_addc(text, '{');
	ofl_meta_json_fields(text, c->m);
	if (jhead->len == 0)
		ofl_buf_adds(text, ",\"head\":\"\",\"head_lines\":null");
	ofl_buf_add(text, jhead->data, jhead->len);
	if (jtail->len == 0)
		ofl_buf_adds(text, ",\"tail\":\"\",\"tail_lines\":null");
	ofl_buf_add(text, jtail->data, jtail->len);
	ofl_buf_adds(text, ",\"summary\":{");
	ofl_buf_add(text, c->sumj.data, c->sumj.len);
	ofl_buf_adds(text, "},\"next\":");
	ofl_buf_add(text, jnext->data, jnext->len);
	ofl_buf_adds(text, "}\n");
}

/*
 * A rerun (ofl-capture --changes): what changed since the last run of
 * the same command in the same directory leads the summary, within
 * CHANGES_MAX bytes (diff.c says it by kind: a new failing test first).
 */
#define CHANGES_MAX	800

static void
notice_changes(struct ctx *c, struct ofl_store *st, const struct ofl_meta *m)
{
	struct ofl_diff_opts	 o;
	struct ofl_buf		 d, t;
	char			 prev[OFL_ID_MAX + 1];
	const char		*nl;
	int			 r;

	if (ofl_store_previous(st, m, prev) != 1) {
		ofl_clearerr();
		return;
	}
	ofl_diff_opts_init(&o);
	o.budget = CHANGES_MAX;
	/* Secrets masked as ofl-diff masks them, numbered. */
	if (ofl_redact_wanted()) {
		o.red = ofl_redactor_new();
		ofl_redactor_distinct(o.red);
	}
	ofl_buf_init(&d);
	ofl_buf_init(&t);
	r = ofl_diff(st, prev, m->id, &o, &d);
	ofl_redactor_free(o.red);
	if (r == -1) {
		ofl_clearerr();
		goto out;
	}
	if (r == 0)
		ofl_buf_addf(&t, "changes since ofl:%s (the last run of this "
		    "command here): none\n", prev);
	else {
		ofl_buf_addf(&t, "changes since ofl:%s (the last run of this "
		    "command here):\n", prev);
		/* The diff's first line names the two artifacts: skip it. */
		nl = memchr(d.data, '\n', d.len);
		if (nl != NULL)
			ofl_buf_add(&t, nl + 1, d.len - (size_t)(nl + 1 -
			    d.data));
	}
	ofl_buf_add(&t, c->sum.data, c->sum.len);
	ofl_buf_free(&c->sum);
	c->sum = t;
	ofl_buf_init(&t);
	if (c->sumj.len > 0)
		ofl_buf_addc(&c->sumj, ',');
	ofl_buf_adds(&c->sumj, "\"changes\":{\"since\":");
	ofl_buf_add_json_cstr(&c->sumj, prev);
	ofl_buf_addf(&c->sumj, ",\"differ\":%s}", r ? "true" : "false");
out:
	ofl_buf_free(&d);
	ofl_buf_free(&t);
}

int
ofl_notice(struct ofl_store *st, const struct ofl_meta *m,
    const struct ofl_notice_opts *o, struct ofl_buf *out)
{
	struct ofl_notice_next	nx;
	int			rv;

	rv = ofl_notice_steps(st, m, o, out, &nx);
	ofl_notice_next_free(&nx);
	return rv;
}

int
ofl_notice_steps(struct ofl_store *st, const struct ofl_meta *m,
    const struct ofl_notice_opts *o, struct ofl_buf *out,
    struct ofl_notice_next *nx)
{
	struct ofl_notice_opts	 defo, shrunk;
	struct ctx		 c;
	struct ofl_buf		 text, jhead, jtail, jnext;
	size_t			 at;
	int			 rv = -1, json;

	memset(nx, 0, sizeof *nx);
	snprintf(nx->id, sizeof nx->id, "%s", m->id);
	if (o == NULL) {
		ofl_notice_opts_init(&defo);
		o = &defo;
	}
	json = o->json;
	ofl_buf_init(&text);
	ofl_buf_init(&jhead);
	ofl_buf_init(&jtail);
	ofl_buf_init(&jnext);
	if (notice_open(&c, st, m, o) == -1 || ofl_notice_sum(&c) == -1)
		goto out;
	/* Lines like errors that are words of messages are none here. */
	c.errors = c.prose_errors ? 0 : m->errors;
	c.first_error = c.prose_errors ? 0 : m->first_error;
	if (o->changes)
		notice_changes(&c, st, m);
	if (!json) {
		ofl_notice_refline(&text, m);
		ofl_buf_addc(&text, '\n');
		ofl_buf_add(&text, c.sum.data, c.sum.len);
	}
	shrink_budgets(&c, o, &shrunk);
	c.o = &shrunk;
	if (preview(&c, &text, &jhead, &jtail) == -1)
		goto out;
	next_steps(&c, nx);
	at = text.len;
	put_next(nx, json ? NULL : &text, &jnext);
	if (json) {
		put_json(&c, &text, &jhead, &jtail, &jnext);
		at = text.len;
	}
	nx->at = out->len + at;
	ofl_buf_add(out, text.data, text.len);
	rv = 0;
out:
	if (rv == -1)
		ofl_notice_next_free(nx);
	ofl_reader_close(c.r);
	ofl_buf_free(&c.sum);
	ofl_buf_free(&c.sumj);
	ofl_buf_free(&jhead);
	ofl_buf_free(&jtail);
	ofl_buf_free(&jnext);
	ofl_buf_free(&text);
	free(c.filter);
	free(c.member);
	return rv;
}
