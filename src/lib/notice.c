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
#include "banned.h"

#define SCAN_SMALL	(64 * 1024)	/* JSON shape, CSV header */
#define SCAN_LARGE	(256 * 1024)	/* Markdown headings, diff files */
#define SUMMARY_MAX	300		/* bytes of one summary line */
#define SIG_LINES	3		/* error signatures in a notice */
#define SIG_WIDTH	100		/* bytes of one signature */
#define SUMMARY_FREE	250		/* summary bytes that cost no preview */
#define HEAD_MIN	200		/* the head keeps at least this */
#define SHAPE_INPUT	(8 * 1024 * 1024) /* JSON read for the shape */
#define MARK_RESERVE	24		/* room for " [... 123,456 bytes]" */
#define HEX_BINARY	128		/* bytes of hex at each end */
#define HEX_ARCHIVE	64
#define CMD_MAX		80		/* bytes of the command shown */
#define ERRLINE_MAX	240		/* bytes of the first error line */
#define LINE_AVG	30		/* preview budget per line shown */
#define NEXT_ERRORS	40		/* "      ofl-extract ID --errors" */

/* render() flags. */
#define R_ONELINE	0x1	/* escape newline and tab as well */

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

struct ctx {
	struct ofl_store	*st;
	const struct ofl_meta	*m;
	const struct ofl_notice_opts *o;
	struct ofl_reader	*r;
	const char		*id;
	uint64_t		 total;
	uint64_t		 lines;
	int			 lastnl;	/* content ends with '\n' */
	size_t			 width;		/* digits of the last line */

	struct ofl_buf		 sum;		/* summary lines */
	struct ofl_buf		 sumj;		/* summary members, JSON */
	char			*filter;	/* a jq filter for next */
	char			*member;	/* an archive member for next */
	uint64_t		 head_last;	/* last line of the head */
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
static int	 sum_errors(struct ctx *);
static int	 sum_headings(struct ctx *);
static int	 sum_json(struct ctx *, int);
static int	 sum_columns(struct ctx *, int);
static int	 sum_fmt(struct ctx *, int (*)(const struct ofl_src *,
		    const struct ofl_meta *, struct ofl_summary *));
static void	 next_cmds(struct ctx *, struct ofl_buf *, struct ofl_buf *);
static void	 meta_fields(struct ofl_buf *, const struct ofl_meta *);
static void	 put_count(struct ofl_buf *, uint64_t);
static void	 put_size(struct ofl_buf *, uint64_t);
static void	 command_text(const char *, struct ofl_buf *);
static void	 put_time(struct ofl_buf *, int64_t);
static void	 put_jstr(struct ofl_buf *, const char *);
static void	 put_range(struct ofl_buf *, const struct section *, uint64_t);
static void	 put_piece(struct ofl_buf *, struct ofl_redactor *,
		    const struct piece *);
static size_t	 digits(uint64_t);
static void	 put_byterange(struct ofl_buf *, const char *, uint64_t,
		    uint64_t, uint64_t);
static unsigned char *read_head(struct ctx *, size_t, size_t *);
static void	 sum_json_key(struct ctx *, const char *);
static void	 j_ws(const unsigned char *, size_t, size_t *);
static int	 j_string(const unsigned char *, size_t, size_t *);
static int	 j_skip(const unsigned char *, size_t, size_t *, uint64_t *);
static const char *j_type(unsigned char);
static void	 j_array(struct ofl_buf *, const unsigned char *, size_t,
		    size_t *);
static char	*jq_key(const unsigned char *, size_t, const char *);
static void	 j_object(struct ofl_buf *, size_t, const unsigned char *,
		    size_t, size_t *, char **);
static char	*nd_filter(const unsigned char *, size_t);

void
ofl_notice_opts_init(struct ofl_notice_opts *o)
{
	o->head_bytes = 600;
	o->tail_bytes = 400;
	o->json = 0;
	o->intent = NULL;
	o->intent_bytes = 1000;
}

/*
 * Render n bytes safely into out (or only measure, if out is NULL):
 * valid UTF-8 passes, and so do tab and newline unless R_ONELINE;
 * anything else becomes \xNN.  Stops before max output bytes, never
 * inside a sequence or an escape.  Returns the output length; *used
 * (if not NULL) gets the input bytes consumed.
 */
static size_t
render(struct ofl_buf *out, const unsigned char *p, size_t n, size_t max,
    int flags, size_t *used)
{
	static const char	hex[] = "0123456789abcdef";
	size_t			i = 0, len = 0, run = 0, l;
	unsigned char		c;

	while (i < n) {
		c = p[i];
		if ((c >= 0x20 && c < 0x7f) || (!(flags & R_ONELINE) &&
		    (c == '\t' || c == '\n')))
			l = 1;
		else if (c >= 0x80)
			l = ofl_utf8_len(p + i, n - i);
		else
			l = 0;
		if (l > 0) {
			if (len + l > max)
				break;
			len += l;
			i += l;
			run += l;
			continue;
		}
		if (len + 4 > max)
			break;
		if (out != NULL) {
			ofl_buf_add(out, p + i - run, run);
			ofl_buf_addc(out, '\\');
			ofl_buf_addc(out, 'x');
			ofl_buf_addc(out, hex[c >> 4]);
			ofl_buf_addc(out, hex[c & 0xf]);
		}
		run = 0;
		len += 4;
		i++;
	}
	if (out != NULL)
		ofl_buf_add(out, p + i - run, run);
	if (used != NULL)
		*used = i;
	return len;
}

void
ofl_render_safe(struct ofl_buf *out, const unsigned char *p, size_t n,
    size_t max)
{
	render(out, p, n, max, 0, NULL);
}

size_t
ofl_render_oneline(struct ofl_buf *out, const unsigned char *p, size_t n,
    size_t max)
{
	size_t	used;

	render(out, p, n, max, R_ONELINE, &used);
	return used;
}

static void
put_count(struct ofl_buf *b, uint64_t n)
{
	char	s[32];

	ofl_fmt_count(s, sizeof s, n);
	ofl_buf_adds(b, s);
}

static void
put_size(struct ofl_buf *b, uint64_t n)
{
	char	s[32];

	ofl_fmt_size(s, sizeof s, n);
	ofl_buf_adds(b, s);
}

/* The command, masked for secrets unless that is turned off. */
static void
command_text(const char *cmd, struct ofl_buf *t)
{
	struct ofl_redactor	*red;

	if (ofl_redact_wanted() && (red = ofl_redactor_new()) != NULL) {
		ofl_redact(red, cmd, strlen(cmd), t);
		ofl_redactor_free(red);
	} else
		ofl_buf_adds(t, cmd);
}

void
ofl_notice_refline(struct ofl_buf *out, const struct ofl_meta *m)
{
	char	s[64];
	size_t	used;

	ofl_buf_addf(out, "ofl:%s %s ", m->id, ofl_kind_name(m->kind));
	put_size(out, m->bytes);
	ofl_buf_addc(out, ' ');
	put_count(out, m->lines);
	ofl_buf_adds(out, m->lines == 1 ? " line" : " lines");
	if (m->incomplete)
		ofl_buf_adds(out, " (incomplete)");
	if (m->command != NULL && m->command[0] != '\0') {
		struct ofl_buf t;

		ofl_buf_init(&t);
		command_text(m->command, &t);
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

static void
put_time(struct ofl_buf *b, int64_t ms)
{
	struct tm	tm;
	time_t		t;
	char		s[32];

	if (ms <= 0) {
		ofl_buf_adds(b, "null");
		return;
	}
	t = (time_t)(ms / 1000);
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
		ofl_buf_adds(b, "null");
		return;
	}
	ofl_buf_addf(b, "\"%s\"", s);
}

static void
put_jstr(struct ofl_buf *b, const char *s)
{
	if (s == NULL)
		ofl_buf_adds(b, "null");
	else
		ofl_buf_add_json_str(b, s, strlen(s));
}

/* The metadata as JSON object members, without the braces. */
static void
meta_fields(struct ofl_buf *b, const struct ofl_meta *m)
{
	ofl_buf_adds(b, "\"id\":");
	put_jstr(b, m->id);
	ofl_buf_addf(b, ",\"ref\":\"ofl:");
	ofl_buf_add(b, m->id, strlen(m->id));
	ofl_buf_adds(b, "\",\"kind\":");
	put_jstr(b, ofl_kind_name(m->kind));
	ofl_buf_addf(b, ",\"bytes\":%llu,\"lines\":%llu,\"stored\":%llu",
	    (unsigned long long)m->bytes, (unsigned long long)m->lines,
	    (unsigned long long)m->stored);
	ofl_buf_adds(b, ",\"hash\":");
	put_jstr(b, m->hash[0] != '\0' ? m->hash : NULL);
	ofl_buf_adds(b, ",\"created\":");
	put_time(b, m->created);
	ofl_buf_adds(b, ",\"used\":");
	put_time(b, m->used);
	ofl_buf_adds(b, ",\"expires\":");
	put_time(b, m->expires);
	ofl_buf_adds(b, ",\"label\":");
	put_jstr(b, m->label);
	ofl_buf_adds(b, ",\"command\":");
	if (m->command != NULL) {
		struct ofl_buf t;

		ofl_buf_init(&t);
		command_text(m->command, &t);
		ofl_buf_add_json_str(b, t.data != NULL ? t.data : "", t.len);
		ofl_buf_free(&t);
	} else
		ofl_buf_adds(b, "null");
	ofl_buf_adds(b, ",\"cwd\":");
	put_jstr(b, m->cwd);
	ofl_buf_adds(b, ",\"session\":");
	put_jstr(b, m->session);
	if (m->has_exit)
		ofl_buf_addf(b, ",\"exit\":%d", m->exit_status);
	else
		ofl_buf_adds(b, ",\"exit\":null");
	if (m->duration_ms >= 0)
		ofl_buf_addf(b, ",\"duration_ms\":%lld",
		    (long long)m->duration_ms);
	else
		ofl_buf_adds(b, ",\"duration_ms\":null");
	ofl_buf_addf(b, ",\"incomplete\":%s,\"errors\":%llu,\"warnings\":%llu",
	    m->incomplete ? "true" : "false", (unsigned long long)m->errors,
	    (unsigned long long)m->warnings);
	if (m->first_error > 0)
		ofl_buf_addf(b, ",\"first_error\":%llu",
		    (unsigned long long)m->first_error);
	else
		ofl_buf_adds(b, ",\"first_error\":null");
}

void
ofl_meta_json(struct ofl_buf *b, const struct ofl_meta *m)
{
	ofl_buf_addc(b, '{');
	meta_fields(b, m);
	ofl_buf_adds(b, "}\n");
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
		put_count(b, a);
	} else {
		ofl_buf_adds(b, "lines ");
		put_count(b, a);
		ofl_buf_addc(b, '-');
		put_count(b, z);
	}
	ofl_buf_adds(b, " of ");
	put_count(b, total);
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
		put_count(b, p->cut_before);
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
		put_count(b, p->cut_after);
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
	uint64_t	 fe = c->m->first_error, start;
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
	put_count(b, a);
	ofl_buf_addc(b, '-');
	put_count(b, z);
	ofl_buf_adds(b, " of ");
	put_count(b, total);
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

/* Read the first n bytes (fewer if the content is shorter). */
static unsigned char *
read_head(struct ctx *c, size_t n, size_t *len)
{
	unsigned char	*buf;
	ssize_t		 k;

	if (n > c->total)
		n = (size_t)c->total;
	buf = ofl_xmalloc(n + 1);
	if ((k = read_at(c, 0, buf, n)) == -1) {
		free(buf);
		return NULL;
	}
	*len = (size_t)k;
	return buf;
}

static void
sum_json_key(struct ctx *c, const char *k)
{
	if (c->sumj.len > 0)
		ofl_buf_addc(&c->sumj, ',');
	ofl_buf_add_json_str(&c->sumj, k, strlen(k));
	ofl_buf_addc(&c->sumj, ':');
}

/* Logs and texts: how many lines look like errors and warnings. */
/*
 * At most SIG_LINES signatures, each cut to SIG_WIDTH bytes before its
 * "(line N)", then the line of search terms: a notice stays near a
 * kilobyte.
 */
static void
put_signatures(struct ofl_buf *out, const char *p, size_t n)
{
	const char	*end = p + n, *nl, *at;
	size_t		 len, shown = 0;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		len = (size_t)(nl - p);
		if (len > 3 && memcmp(p, "  x", 3) == 0) {
			if (shown++ >= SIG_LINES)
				continue;
			at = len > 8 ? memmem(p, len, "  (line ", 8) : NULL;
			if (at != NULL && (size_t)(at - p) > SIG_WIDTH) {
				size_t	 cut = SIG_WIDTH;

				/* Never inside a UTF-8 sequence. */
				while (cut > 0 &&
				    ((unsigned char)p[cut] & 0xc0) == 0x80)
					cut--;
				ofl_buf_add(out, p, cut);
				ofl_buf_adds(out, "...");
				ofl_buf_add(out, at, (size_t)(nl - at));
			} else
				ofl_buf_add(out, p, len);
		} else
			ofl_buf_add(out, p, len);
		ofl_buf_addc(out, '\n');
		if (nl == end)
			break;
	}
}

static int
sum_errors(struct ctx *c)
{
	const struct ofl_meta	*m = c->m;

	ofl_buf_adds(&c->sum, "errors: ");
	if (m->errors == 0)
		ofl_buf_adds(&c->sum, "none");
	else {
		put_count(&c->sum, m->errors);
		ofl_buf_adds(&c->sum, m->errors == 1 ? " line" : " lines");
		if (m->first_error > 0) {
			ofl_buf_adds(&c->sum, " (first at line ");
			put_count(&c->sum, m->first_error);
			ofl_buf_addc(&c->sum, ')');
		}
	}
	ofl_buf_adds(&c->sum, ", warnings: ");
	if (m->warnings == 0)
		ofl_buf_adds(&c->sum, "none");
	else {
		put_count(&c->sum, m->warnings);
		ofl_buf_adds(&c->sum, m->warnings == 1 ? " line" : " lines");
	}
	ofl_buf_addc(&c->sum, '\n');
	/* The most frequent error signatures and words worth a search. */
	if (m->errors > 0 && !c->o->json) {
		struct ofl_buf	sig;

		ofl_buf_init(&sig);
		if (ofl_index_suggest(c->st, m->id, &sig) == 0)
			put_signatures(&c->sum, sig.data, sig.len);
		ofl_buf_free(&sig);
	}
	sum_json_key(c, "errors");
	ofl_buf_addf(&c->sumj, "%llu", (unsigned long long)m->errors);
	sum_json_key(c, "warnings");
	ofl_buf_addf(&c->sumj, "%llu", (unsigned long long)m->warnings);
	sum_json_key(c, "first_error");
	if (m->first_error > 0)
		ofl_buf_addf(&c->sumj, "%llu",
		    (unsigned long long)m->first_error);
	else
		ofl_buf_adds(&c->sumj, "null");
	return 0;
}

/*
 * Markdown: the outline from the first 256 KiB, outside code fences.
 * When all headings do not fit, only the upper levels are shown, so the
 * line reads as a table of contents: "# A | ## B | # C (+40 more)".
 */
struct heading {
	int	level;
	size_t	off;		/* in the texts buffer */
	size_t	len;
};

static int
sum_headings(struct ctx *c)
{
	unsigned char	*buf;
	const unsigned char *p, *nl, *end;
	struct ofl_buf	 texts, js;
	struct heading	*hd = NULL;
	size_t		 len, n, i, h, k, used, nhd = 0, cap = 0, total = 0;
	size_t		 fence = 0, size, budget, shown = 0;
	unsigned char	 fch = 0;
	int		 lvl, minlvl = 7, top;

	if ((buf = read_head(c, SCAN_LARGE, &len)) == NULL)
		return -1;
	ofl_buf_init(&texts);
	ofl_buf_init(&js);
	end = buf + len;
	for (p = buf; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL) {
			if (len < c->total)
				break;	/* a partial line */
			nl = end;
		}
		n = nl - p;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		for (i = 0; i < n && i < 3 && p[i] == ' '; i++)
			;
		/*
		 * Fences: ``` or ~~~; closed by the same character, at least
		 * as many times, and nothing else on the line.
		 */
		if (i + 3 <= n && (p[i] == '`' || p[i] == '~') &&
		    p[i + 1] == p[i] && p[i + 2] == p[i]) {
			for (h = i; h < n && p[h] == p[i]; h++)
				;
			if (fence == 0) {
				fence = h - i;
				fch = p[i];
			} else if (p[i] == fch && h - i >= fence &&
			    ofl_blank(p + h, n - h))
				fence = 0;
			continue;
		}
		if (fence > 0)
			continue;
		for (h = 0; i < n && p[i] == '#'; i++)
			h++;
		if (h < 1 || h > 6 || (i < n && p[i] != ' ' && p[i] != '\t'))
			continue;
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		/* Drop a closing sequence of '#'. */
		while (n > i && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		for (k = n; k > i && p[k - 1] == '#'; k--)
			;
		if (k < n && (k == i || p[k - 1] == ' ' || p[k - 1] == '\t')) {
			n = k;
			while (n > i && (p[n - 1] == ' ' || p[n - 1] == '\t'))
				n--;
		}
		total++;
		if (nhd == 4096)
			continue;
		if (nhd == cap) {
			cap = cap ? cap * 2 : 64;
			hd = ofl_xrealloc(hd, cap * sizeof *hd);
		}
		hd[nhd].level = (int)h;
		hd[nhd].off = texts.len;
		for (k = 0; k < h; k++)
			ofl_buf_addc(&texts, '#');
		ofl_buf_addc(&texts, ' ');
		render(&texts, p + i, n - i, 48, R_ONELINE, &used);
		if (used < n - i)
			ofl_buf_adds(&texts, "...");
		hd[nhd].len = texts.len - hd[nhd].off;
		if ((int)h < minlvl)
			minlvl = (int)h;
		nhd++;
	}
	free(buf);
	if (nhd == 0)
		goto out;

	/* The deepest level at which the outline still fits. */
	budget = SUMMARY_MAX - 30;
	top = minlvl;
	for (lvl = 6; lvl > minlvl; lvl--) {
		for (size = 0, i = 0; i < nhd; i++) {
			if (hd[i].level <= lvl)
				size += hd[i].len + 3;
		}
		if (size <= budget) {
			top = lvl;
			break;
		}
	}
	ofl_buf_adds(&c->sum, "headings: ");
	for (size = 0, i = 0; i < nhd; i++) {
		if (hd[i].level > top)
			continue;
		if (shown > 0 && size + hd[i].len + 3 > budget)
			break;
		if (shown > 0)
			ofl_buf_adds(&c->sum, " | ");
		ofl_buf_add(&c->sum, texts.data + hd[i].off, hd[i].len);
		ofl_buf_adds(&js, shown > 0 ? "," : "[");
		ofl_buf_add_json_str(&js, texts.data + hd[i].off, hd[i].len);
		size += hd[i].len + 3;
		shown++;
	}
	if (total > shown) {
		ofl_buf_adds(&c->sum, " (+");
		put_count(&c->sum, total - shown);
		ofl_buf_adds(&c->sum, " more)");
	}
	ofl_buf_addc(&c->sum, '\n');
	ofl_buf_addc(&js, ']');
	sum_json_key(c, "headings");
	ofl_buf_add(&c->sumj, js.data, js.len);
	sum_json_key(c, "headings_total");
	ofl_buf_addf(&c->sumj, "%zu", total);
out:
	free(hd);
	ofl_buf_free(&texts);
	ofl_buf_free(&js);
	return 0;
}

/* JSON scanning for the shape: no validation, just enough to skip. */
static void
j_ws(const unsigned char *p, size_t n, size_t *i)
{
	while (*i < n && (p[*i] == ' ' || p[*i] == '\t' || p[*i] == '\n' ||
	    p[*i] == '\r'))
		(*i)++;
}

/* Skip a string starting at the quote; 0 when it ends in the buffer. */
static int
j_string(const unsigned char *p, size_t n, size_t *i)
{
	size_t	j;

	for (j = *i + 1; j < n; j++) {
		if (p[j] == '\\')
			j++;
		else if (p[j] == '"') {
			*i = j + 1;
			return 0;
		}
	}
	*i = n;
	return -1;
}

/*
 * Skip any value; 0 when it ends in the buffer.  If count is not NULL
 * and the value is an array, count its elements.
 */
static int
j_skip(const unsigned char *p, size_t n, size_t *i, uint64_t *count)
{
	size_t		depth = 0;
	uint64_t	elems = 0;
	int		any = 0;

	j_ws(p, n, i);
	if (*i >= n)
		return -1;
	if (p[*i] == '"')
		return j_string(p, n, i);
	if (p[*i] != '{' && p[*i] != '[') {
		while (*i < n && strchr(",]} \t\r\n", p[*i]) == NULL)
			(*i)++;
		return *i < n ? 0 : -1;
	}
	while (*i < n) {
		unsigned char ch = p[*i];

		if (ch == '"') {
			if (depth == 1 && !any) {
				any = 1;
				elems++;
			}
			if (j_string(p, n, i) == -1)
				return -1;
			continue;
		}
		if (ch == '{' || ch == '[') {
			if (depth == 1 && !any) {
				any = 1;
				elems++;
			}
			depth++;
		} else if (ch == '}' || ch == ']') {
			if (--depth == 0) {
				(*i)++;
				if (count != NULL)
					*count = elems;
				return 0;
			}
		} else if (ch == ',' && depth == 1)
			any = 0;
		else if (depth == 1 && !any && ch != ' ' && ch != '\t' &&
		    ch != '\n' && ch != '\r') {
			any = 1;
			elems++;
		}
		(*i)++;
	}
	return -1;
}

static const char *
j_type(unsigned char ch)
{
	switch (ch) {
	case '"':
		return "string";
	case '{':
		return "{...}";
	case '[':
		return "[...]";
	case 't':
	case 'f':
		return "bool";
	case 'n':
		return "null";
	default:
		return "number";
	}
}

/* "[...]" for an array value: "[{...}] x312", "[string] x3", "[]". */
static void
j_array(struct ofl_buf *b, const unsigned char *p, size_t n, size_t *i)
{
	uint64_t	count = 0;
	size_t		j = *i + 1;
	int		done;

	j_ws(p, n, &j);
	if (j < n && p[j] == ']') {
		ofl_buf_adds(b, "[]");
		*i = j + 1;
		return;
	}
	ofl_buf_addc(b, '[');
	ofl_buf_adds(b, j < n ? j_type(p[j]) : "...");
	ofl_buf_addc(b, ']');
	done = j_skip(p, n, i, &count) == 0;
	if (done) {
		ofl_buf_adds(b, " x");
		put_count(b, count);
	}
}

/* A key for a jq filter: .key, or .["key"] if it needs quoting. */
static char *
jq_key(const unsigned char *k, size_t n, const char *suffix)
{
	struct ofl_buf	b;
	size_t		i;
	int		plain = n > 0 && !(k[0] >= '0' && k[0] <= '9');

	for (i = 0; i < n && plain; i++) {
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' &&
		    k[i] <= 'Z') || (k[i] >= '0' && k[i] <= '9') ||
		    k[i] == '_'))
			plain = 0;
	}
	ofl_buf_init(&b);
	if (plain) {
		ofl_buf_addc(&b, '.');
		ofl_buf_add(&b, k, n);
	} else {
		ofl_buf_adds(&b, ".[");
		ofl_buf_add_json_str(&b, (const char *)k, n);
		ofl_buf_addc(&b, ']');
	}
	ofl_buf_adds(&b, suffix);
	return ofl_buf_str(&b);
}

/*
 * The keys of the object at *i with the type of each value, within the
 * summary budget.  Sets *filter to a jq filter for a good key if filter
 * is not NULL and it is still NULL.
 */
static void
j_object(struct ofl_buf *b, size_t budget, const unsigned char *p,
    size_t n, size_t *i, char **filter)
{
	const unsigned char	*key, *first = NULL, *arr = NULL, *obj = NULL;
	size_t			 klen, flen = 0, alen = 0, olen = 0, more = 0;
	size_t			 used;
	size_t			 start = b->len;
	int			 ended = 0, nkeys = 0;

	ofl_buf_addc(b, '{');
	(*i)++;
	for (;;) {
		j_ws(p, n, i);
		if (*i >= n)
			break;
		if (p[*i] == '}') {
			(*i)++;
			ended = 1;
			break;
		}
		if (p[*i] == ',') {
			(*i)++;
			continue;
		}
		if (p[*i] != '"')
			break;
		key = p + *i + 1;
		if (j_string(p, n, i) == -1)
			break;
		klen = (size_t)(p + *i - 1 - key);
		j_ws(p, n, i);
		if (*i >= n || p[*i] != ':')
			break;
		(*i)++;
		j_ws(p, n, i);
		if (*i >= n)
			break;
		if (first == NULL) {
			first = key;
			flen = klen;
		}
		if (arr == NULL && p[*i] == '[') {
			arr = key;
			alen = klen;
		}
		if (obj == NULL && p[*i] == '{') {
			obj = key;
			olen = klen;
		}
		if (more > 0 || b->len - start + klen + 16 > budget) {
			more++;
			if (j_skip(p, n, i, NULL) == -1)
				break;
			continue;
		}
		if (nkeys++ > 0)
			ofl_buf_adds(b, ", ");
		render(b, key, klen, 40, R_ONELINE, &used);
		if (used < klen)
			ofl_buf_adds(b, "...");
		ofl_buf_adds(b, ": ");
		if (p[*i] == '[')
			j_array(b, p, n, i);
		else {
			ofl_buf_adds(b, j_type(p[*i]));
			if (j_skip(p, n, i, NULL) == -1)
				break;
		}
	}
	if (more > 0) {
		ofl_buf_adds(b, ", ... +");
		put_count(b, more);
		ofl_buf_adds(b, more == 1 ? " key" : " keys");
	}
	if (!ended)
		ofl_buf_adds(b, nkeys > 0 || more > 0 ? ", ..." : "...");
	ofl_buf_addc(b, '}');
	if (filter != NULL && *filter == NULL) {
		if (arr != NULL)
			*filter = jq_key(arr, alen, "[0]");
		else if (obj != NULL)
			*filter = jq_key(obj, olen, " | keys");
		else if (first != NULL)
			*filter = jq_key(first, flen, "");
	}
}

/*
 * A jq filter for a sequence of records: a key of the first record that
 * tells records apart (level, status, action, ...), else its first key.
 */
static char *
nd_filter(const unsigned char *p, size_t n)
{
	static const char *pref[] = { "level", "severity", "status", "state",
	    "action", "event", "type", "kind", "name", "msg", "message" };
	const unsigned char	*key, *first = NULL, *best = NULL;
	size_t			 i = 0, klen, flen = 0, blen = 0, k;
	size_t			 rank = sizeof pref / sizeof pref[0];

	j_ws(p, n, &i);
	if (i >= n || p[i] != '{')
		return ofl_xstrdup(".");
	i++;
	for (;;) {
		j_ws(p, n, &i);
		if (i < n && p[i] == ',') {
			i++;
			continue;
		}
		if (i >= n || p[i] != '"')
			break;
		key = p + i + 1;
		if (j_string(p, n, &i) == -1)
			break;
		klen = (size_t)(p + i - 1 - key);
		if (first == NULL) {
			first = key;
			flen = klen;
		}
		for (k = 0; k < rank; k++) {
			if (strlen(pref[k]) == klen && strncasecmp(
			    (const char *)key, pref[k], klen) == 0) {
				best = key;
				blen = klen;
				rank = k;
				break;
			}
		}
		j_ws(p, n, &i);
		if (i >= n || p[i] != ':')
			break;
		i++;
		if (j_skip(p, n, &i, NULL) == -1)
			break;
	}
	if (best != NULL)
		return jq_key(best, blen, "");
	if (first != NULL)
		return jq_key(first, flen, "");
	return ofl_xstrdup(".");
}

/*
 * JSON: the top-level shape from the first 64 KiB.  NDJSON, and JSON that
 * is a sequence of values: the distinct shapes of the first values, up
 * to three.
 */
static int
sum_json(struct ctx *c, int nd)
{
	struct ofl_buf	 s, t;
	unsigned char	*buf;
	size_t		 len, i = 0, j, k, nshapes = 0, recs = 0, start;
	size_t		 starts[3], lens[3];
	uint64_t	 count = 0;
	int		 seq = nd;

	if ((buf = read_head(c, SCAN_SMALL, &len)) == NULL)
		return -1;
	ofl_buf_init(&s);
	ofl_buf_init(&t);
	j_ws(buf, len, &i);
	start = i;
	if (!nd && i < len && (buf[i] == '{' || buf[i] == '[')) {
		/* Is there a second value? */
		j = i;
		if (j_skip(buf, len, &j, NULL) == 0) {
			j_ws(buf, len, &j);
			seq = j < len && (buf[j] == '{' || buf[j] == '[');
		}
	}
	if (seq) {
		if (nd)
			c->filter = nd_filter(buf + i, len - i);
		while (i < len && nshapes < 3 && recs++ < 1000) {
			ofl_buf_reset(&t);
			j = i;
			if (buf[i] == '{')
				j_object(&t, SUMMARY_MAX - 16, buf, len, &i,
				    NULL);
			else if (buf[i] == '[')
				j_array(&t, buf, len, &i);
			else
				break;
			/*
			 * A sequence read one value at a time by jq: a key of
			 * the value cut by the window, likely the biggest.
			 */
			if (!nd && i >= len && buf[j] == '{') {
				ofl_buf_reset(&t);
				j_object(&t, SUMMARY_MAX - 16, buf, len, &j,
				    &c->filter);
			}
			for (k = 0; k < nshapes; k++) {
				if (lens[k] == t.len && memcmp(s.data +
				    starts[k], t.data, t.len) == 0)
					break;
			}
			if (k == nshapes) {
				if (nshapes > 0 && s.len + t.len + 3 >
				    SUMMARY_MAX - 16) {
					ofl_buf_adds(&s, " | ...");
					break;
				}
				if (nshapes > 0)
					ofl_buf_adds(&s, " | ");
				starts[nshapes] = s.len;
				lens[nshapes++] = t.len;
				ofl_buf_add(&s, t.data, t.len);
			}
			j_ws(buf, len, &i);
		}
		if (c->filter == NULL)
			c->filter = nd_filter(buf + start, len - start);
	} else if (i < len && buf[i] == '{')
		j_object(&s, SUMMARY_MAX - 16, buf, len, &i, &c->filter);
	else if (i < len && buf[i] == '[') {
		j = i + 1;
		j_ws(buf, len, &j);
		if (j < len && buf[j] == '{') {
			ofl_buf_addc(&s, '[');
			j_object(&s, SUMMARY_MAX - 24, buf, len, &j, NULL);
			ofl_buf_addc(&s, ']');
			if (j_skip(buf, len, &i, &count) == 0) {
				ofl_buf_adds(&s, " x");
				put_count(&s, count);
			}
		} else
			j_array(&s, buf, len, &i);
		c->filter = ofl_xstrdup(".[0]");
	}
	/*
	 * The streaming shape sees the whole value (counts, formats, enums),
	 * up to SHAPE_INPUT bytes; the skim above still picks the filter.
	 */
	if (ofl_reader_seek(c->r, 0) == 0) {
		struct ofl_buf	shape;
		size_t		k2;

		ofl_buf_init(&shape);
		if (ofl_schema_shape(c->r, c->m->kind, SHAPE_INPUT,
		    SUMMARY_MAX, &shape) == 0 && shape.len > 0) {
			while (shape.len > 0 &&
			    shape.data[shape.len - 1] == '\n')
				shape.len--;
			ofl_buf_reset(&s);
			for (k2 = 0; k2 < shape.len; k2++) {
				ofl_buf_addc(&s, shape.data[k2]);
				/* Continuation lines line up after "shape: ". */
				if (shape.data[k2] == '\n')
					ofl_buf_adds(&s, "     ");
			}
			seq = 0;
			nd = 0;
		}
		ofl_buf_free(&shape);
	}
	if (s.len > 0) {
		ofl_buf_adds(&c->sum, nd ? "records: " : seq ? "values: " :
		    "shape: ");
		ofl_buf_add(&c->sum, s.data, s.len);
		ofl_buf_addc(&c->sum, '\n');
		sum_json_key(c, "shape");
		ofl_buf_add_json_str(&c->sumj, s.data, s.len);
	}
	ofl_buf_free(&s);
	ofl_buf_free(&t);
	free(buf);
	return 0;
}

/* CSV and TSV: the header's fields. */
static int
sum_columns(struct ctx *c, int delim)
{
	unsigned char	*buf;
	struct ofl_buf	 f, js;
	size_t		 len, i = 0, ncols = 0, shown = 0, used;
	int		 inq, more = 0;

	if ((buf = read_head(c, SCAN_SMALL, &len)) == NULL)
		return -1;
	ofl_buf_init(&f);
	ofl_buf_init(&js);
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	ofl_buf_adds(&js, "[");
	while (i < len) {
		/* One field. */
		ofl_buf_reset(&f);
		inq = i < len && buf[i] == '"';
		if (inq)
			i++;
		for (; i < len; i++) {
			if (inq) {
				if (buf[i] == '"') {
					if (i + 1 < len && buf[i + 1] == '"')
						i++;
					else {
						inq = 0;
						continue;
					}
				}
			} else if (buf[i] == delim || buf[i] == '\n' ||
			    buf[i] == '\r')
				break;
			ofl_buf_addc(&f, buf[i]);
		}
		ncols++;
		if (!more && (shown == 0 || c->sum.len + f.len + 32 <=
		    SUMMARY_MAX)) {
			ofl_buf_adds(&c->sum, shown == 0 ? "" : ", ");
			render(&c->sum, (unsigned char *)f.data, f.len, 40,
			    R_ONELINE, &used);
			if (used < f.len)
				ofl_buf_adds(&c->sum, "...");
			if (shown > 0)
				ofl_buf_addc(&js, ',');
			ofl_buf_add_json_str(&js, f.data ? f.data : "", f.len);
			shown++;
		} else
			more = 1;
		if (i >= len || buf[i] != delim)
			break;
		i++;
	}
	ofl_buf_addc(&js, ']');
	if (shown > 0) {
		/* Put the count in front of the names. */
		struct ofl_buf hdr;

		ofl_buf_init(&hdr);
		ofl_buf_addf(&hdr, "columns (%zu): ", ncols);
		ofl_buf_add(&hdr, c->sum.data, c->sum.len);
		if (ncols > shown)
			ofl_buf_addf(&hdr, " (+%zu more)", ncols - shown);
		ofl_buf_addc(&hdr, '\n');
		ofl_buf_free(&c->sum);
		c->sum = hdr;
		sum_json_key(c, "columns");
		ofl_buf_add(&c->sumj, js.data, js.len);
	}
	ofl_buf_free(&f);
	ofl_buf_free(&js);
	free(buf);
	return 0;
}

/*
 * A format's own summary (fmt-*.c), read through the reader as a source,
 * its text and JSON members appended to the notice's.
 */
static int
sum_fmt(struct ctx *c, int (*fn)(const struct ofl_src *,
    const struct ofl_meta *, struct ofl_summary *))
{
	struct ofl_src		src;
	struct ofl_summary	s;
	int			rv;

	ofl_reader_src(c->r, &src);
	ofl_summary_init(&s);
	if ((rv = fn(&src, c->m, &s)) == 0) {
		ofl_buf_add(&c->sum, s.text.data, s.text.len);
		if (s.json.len > 0) {
			if (c->sumj.len > 0)
				ofl_buf_addc(&c->sumj, ',');
			ofl_buf_add(&c->sumj, s.json.data, s.json.len);
		}
		if (c->filter == NULL && s.filter != NULL)
			c->filter = ofl_xstrdup(s.filter);
		if (c->member == NULL && s.member != NULL)
			c->member = ofl_xstrdup(s.member);
	}
	ofl_summary_free(&s);
	return rv;
}

/* Suggested next commands, with the real ID and real arguments. */
static void
next_cmds(struct ctx *c, struct ofl_buf *out, struct ofl_buf *js)
{
	struct ofl_buf	 cmds[5];
	size_t		 n = 0, i;
	uint64_t	 a, z;
	char		*q;
	int		 kind = c->m->kind;

	if (kind != OFL_KIND_BINARY && kind != OFL_KIND_ARCHIVE &&
	    kind != OFL_KIND_COMPRESSED && kind != OFL_KIND_EMPTY &&
	    c->lines > 0) {
		/* The error lines counted above, as whole blocks. */
		if ((kind == OFL_KIND_LOG || kind == OFL_KIND_TEXT) &&
		    c->m->errors > 0) {
			ofl_buf_init(&cmds[n]);
			ofl_buf_addf(&cmds[n++], "ofl-extract %s --errors",
			    c->id);
		}
		if ((kind == OFL_KIND_LOG || kind == OFL_KIND_TEXT) &&
		    c->m->first_error > 0 && c->m->first_error <= c->lines) {
			a = c->m->first_error > 20 ? c->m->first_error - 20 : 1;
			z = c->m->first_error + 20;
		} else {
			a = c->head_last + 1;
			if (a > c->lines)
				a = 1;
			z = a + 39;
		}
		if (z > c->lines)
			z = c->lines;
		ofl_buf_init(&cmds[n]);
		ofl_buf_addf(&cmds[n++], "ofl-extract %s -n %llu-%llu", c->id,
		    (unsigned long long)a, (unsigned long long)z);
	}
	if (kind != OFL_KIND_EMPTY) {
		ofl_buf_init(&cmds[n]);
		ofl_buf_addf(&cmds[n++], "ofl-search %s 'QUERY'", c->id);
	}
	if (kind == OFL_KIND_JSON || kind == OFL_KIND_NDJSON ||
	    kind == OFL_KIND_CSV || kind == OFL_KIND_TSV) {
		ofl_buf_init(&cmds[n]);
		ofl_buf_addf(&cmds[n++], "ofl-schema %s", c->id);
	}
	if ((kind == OFL_KIND_JSON || kind == OFL_KIND_NDJSON) &&
	    c->filter != NULL) {
		q = ofl_shquote(c->filter);
		ofl_buf_init(&cmds[n]);
		ofl_buf_addf(&cmds[n++], "ofl-extract %s %s", c->id, q);
		free(q);
	}
	if (kind == OFL_KIND_ARCHIVE && c->member != NULL) {
		q = ofl_shquote(c->member);
		ofl_buf_init(&cmds[n]);
		ofl_buf_addf(&cmds[n++], "ofl-extract %s --member ", c->id);
		/* A member name is shown safely, never raw. */
		render(&cmds[n - 1], (const unsigned char *)q, strlen(q), 200,
		    R_ONELINE, NULL);
		free(q);
	}
	for (i = 0; i < n; i++) {
		if (out != NULL) {
			ofl_buf_adds(out, i == 0 ? "next: " : "      ");
			ofl_buf_add(out, cmds[i].data, cmds[i].len);
			ofl_buf_addc(out, '\n');
		} else {
			ofl_buf_adds(js, i == 0 ? "[" : ",");
			ofl_buf_add_json_str(js, cmds[i].data, cmds[i].len);
		}
		ofl_buf_free(&cmds[i]);
	}
	if (out == NULL)
		ofl_buf_adds(js, n == 0 ? "[]" : "]");
}

int
ofl_notice(struct ofl_store *st, const struct ofl_meta *m,
    const struct ofl_notice_opts *o, struct ofl_buf *out)
{
	struct ofl_notice_opts	 defo, shrunk;
	struct ctx		 c;
	struct ofl_buf		 text, jhead, jtail, jnext;
	unsigned char		 last;
	int			 rv = -1, kind, json;

	if (o == NULL) {
		ofl_notice_opts_init(&defo);
		o = &defo;
	}
	json = o->json;
	memset(&c, 0, sizeof c);
	c.st = st;
	c.m = m;
	c.o = o;
	c.id = m->id;
	ofl_buf_init(&c.sum);
	ofl_buf_init(&c.sumj);
	ofl_buf_init(&text);
	ofl_buf_init(&jhead);
	ofl_buf_init(&jtail);
	ofl_buf_init(&jnext);
	if ((c.r = ofl_reader_open(st, m->id)) == NULL)
		goto out;
	c.total = ofl_reader_bytes(c.r);
	c.lines = ofl_reader_lines(c.r);
	if (c.total > 0) {
		if (read_at(&c, c.total - 1, &last, 1) != 1) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: cannot read the content",
			    m->id);
			goto out;
		}
		c.lastnl = last == '\n';
	}
	kind = m->kind;

	switch (kind) {
	case OFL_KIND_LOG:
		rv = sum_errors(&c);
		break;
	case OFL_KIND_TEXT:
		rv = m->errors + m->warnings > 0 ? sum_errors(&c) : 0;
		break;
	case OFL_KIND_MARKDOWN:
		rv = sum_headings(&c);
		break;
	case OFL_KIND_JSON:
	case OFL_KIND_NDJSON:
		rv = sum_json(&c, kind == OFL_KIND_NDJSON);
		break;
	case OFL_KIND_CSV:
	case OFL_KIND_TSV:
		rv = sum_columns(&c, kind == OFL_KIND_CSV ? ',' : '\t');
		break;
	case OFL_KIND_DIFF:
		rv = sum_fmt(&c, ofl_fmt_diff_summary);
		break;
	case OFL_KIND_ARCHIVE:
	case OFL_KIND_COMPRESSED:
		rv = sum_fmt(&c, ofl_fmt_archive_summary);
		break;
	default:
		rv = 0;
		break;
	}
	if (rv == -1)
		goto out;

	if (!json) {
		ofl_notice_refline(&text, m);
		ofl_buf_addc(&text, '\n');
		ofl_buf_add(&text, c.sum.data, c.sum.len);
	}
	/* A long summary (error signatures, a shape) takes from the head. */
	shrunk = *o;
	if (c.sum.len > SUMMARY_FREE && o->head_bytes > HEAD_MIN) {
		size_t	take = c.sum.len - SUMMARY_FREE;

		shrunk.head_bytes = o->head_bytes - take > HEAD_MIN &&
		    take < o->head_bytes ? o->head_bytes - take : HEAD_MIN;
	}
	/* The next: line that suggests --errors takes from the tail. */
	if ((kind == OFL_KIND_LOG || kind == OFL_KIND_TEXT) && m->errors > 0)
		shrunk.tail_bytes = o->tail_bytes > NEXT_ERRORS ?
		    o->tail_bytes - NEXT_ERRORS : 0;
	c.o = o = &shrunk;
	/* With an intent: its top hits instead of the plain preview. */
	if (o->intent != NULL && *o->intent != '\0' && c.total > 0 &&
	    kind != OFL_KIND_BINARY && kind != OFL_KIND_ARCHIVE &&
	    kind != OFL_KIND_COMPRESSED) {
		struct ofl_buf	hits;
		int		n;

		ofl_buf_init(&hits);
		n = ofl_search_intent(st, m->id, o->intent, o->intent_bytes,
		    &hits);
		if (n > 0) {
			if (json) {
				ofl_buf_adds(&jhead, ",\"intent\":");
				ofl_buf_add_json_str(&jhead, o->intent,
				    strlen(o->intent));
				ofl_buf_adds(&jhead, ",\"matches\":");
				ofl_buf_add_json_str(&jhead, hits.data,
				    hits.len);
			} else {
				ofl_buf_adds(&text, "--- matches for intent: ");
				command_text(o->intent, &text);
				ofl_buf_adds(&text, " ---\n");
				ofl_buf_add(&text, hits.data, hits.len);
				ofl_buf_adds(&text, "--- end of matches ---\n");
			}
			ofl_buf_free(&hits);
			rv = 0;
			goto preview_done;
		}
		if (!json) {
			ofl_buf_adds(&text, "intent: no match for ");
			command_text(o->intent, &text);
			ofl_buf_adds(&text, "; the preview follows\n");
		}
		ofl_buf_free(&hits);
	}
	if (kind == OFL_KIND_BINARY || kind == OFL_KIND_ARCHIVE ||
	    kind == OFL_KIND_COMPRESSED)
		rv = preview_hex(&c, kind == OFL_KIND_BINARY ? HEX_BINARY :
		    HEX_ARCHIVE, json ? NULL : &text, &jhead, &jtail);
	else if (c.total > 0)
		rv = preview_text(&c, json ? NULL : &text, &jhead, &jtail);
	else {
		if (!json)
			ofl_buf_adds(&text, "(no content)\n");
		rv = 0;
	}
preview_done:
	if (rv == -1)
		goto out;
	next_cmds(&c, json ? NULL : &text, &jnext);
	if (json) {
		ofl_buf_addc(&text, '{');
		meta_fields(&text, m);
		if (jhead.len == 0)
			ofl_buf_adds(&text, ",\"head\":\"\","
			    "\"head_lines\":null");
		ofl_buf_add(&text, jhead.data, jhead.len);
		if (jtail.len == 0)
			ofl_buf_adds(&text, ",\"tail\":\"\","
			    "\"tail_lines\":null");
		ofl_buf_add(&text, jtail.data, jtail.len);
		ofl_buf_adds(&text, ",\"summary\":{");
		ofl_buf_add(&text, c.sumj.data, c.sumj.len);
		ofl_buf_adds(&text, "},\"next\":");
		ofl_buf_add(&text, jnext.data, jnext.len);
		ofl_buf_adds(&text, "}\n");
	}
	ofl_buf_add(out, text.data, text.len);
	rv = 0;
out:
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
