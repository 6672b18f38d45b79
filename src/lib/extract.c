/*
 * extract.c: exact evidence from one artifact, for ofl-extract.
 *
 * The content whole, line and byte spans, lines that match a regular
 * expression with context, the error blocks of a log (tracebacks, stack
 * traces, panics, compiler diagnostics, sanitizer reports, failing tests),
 * an archive member, or the results of a jq filter.  Everything streams
 * through the reader (or through libarchive reading from the reader), so
 * a large artifact is never loaded whole.
 *
 * Output is cut to a budget of bytes.  Whatever a cut leaves out is named
 * by a mark on a line of its own, with the command that prints it:
 *
 *	[... lines 120-4031 of ofl:ab12cd34 not shown:
 *	    ofl-extract ab12cd34 -n 120-4031]
 *
 * (all on one line).
 *
 * Every other line printed is a line of the artifact (or a result of the
 * filter), prefixed by its line number.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jv.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "extract.h"
#include "banned.h"

extern char	**environ;

/* What a child run under limits sends back. */
struct lim_result {
	int	rv;
	int	code;
	char	msg[1024];
};

static int	lim_fd = -1;		/* the child's end of the pipe */
static struct lim_result lim_oom;	/* what running out of memory says */

static int	 parse_u64(const char *, size_t, uint64_t *);
static int	 member_open(struct src *, const char *);
static int	 src_open(struct ex *);
static void	 src_close(struct src *);
static int	 src_seek(struct src *, uint64_t);
static int	 src_totals(struct src *, uint64_t *, uint64_t *);
static int	 out_unit(struct ex *, const char *, size_t);
static void	 cmd_base(struct ex *, struct ofl_buf *);
static int	 run_raw(struct ex *);

void
ofl_extract_init(struct ofl_extract *o)
{
	memset(o, 0, sizeof *o);
	o->max_bytes = OFL_EXTRACT_BUDGET;
	o->time_limit = OFL_EXTRACT_TIME;
	o->mem_limit = OFL_EXTRACT_MEMORY;
	o->out = stdout;
}

void
ofl_extract_warnf(struct ex *x, const char *fmt, ...)
{
	char	msg[1024];
	va_list	ap;

	if (x->o->warn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	x->o->warn(x->o->warn_arg, msg);
}

/* Spans. */

static int
parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t	v = 0;
	size_t		i;

	if (n == 0 || n > 19)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v >= SPAN_MAX)
		return -1;
	*out = v;
	return 0;
}

int
ofl_span_parse(const char *s, int unit, struct ofl_span *sp)
{
	const char	*what = unit == OFL_SPAN_LINES ? "line" : "byte";
	size_t		 n = strlen(s), k;
	uint64_t	 min = unit == OFL_SPAN_LINES ? 1 : 0;

	memset(sp, 0, sizeof *sp);
	sp->unit = unit;
	if (n > 0 && s[0] == '-') {
		sp->form = OFL_SPAN_LAST;
		if (parse_u64(s + 1, n - 1, &sp->b) == -1 || sp->b == 0)
			goto bad;
		return 0;
	}
	k = strcspn(s, "-+");
	if (parse_u64(s, k, &sp->a) == -1 || sp->a < min)
		goto bad;
	if (k == n) {
		sp->form = OFL_SPAN_RANGE;
		sp->b = sp->a;
		return 0;
	}
	if (s[k] == '-' && k + 1 == n) {
		sp->form = OFL_SPAN_FROM;
		return 0;
	}
	if (parse_u64(s + k + 1, n - k - 1, &sp->b) == -1)
		goto bad;
	if (s[k] == '+') {
		sp->form = OFL_SPAN_COUNT;
		if (sp->b == 0)
			goto bad;
		return 0;
	}
	sp->form = OFL_SPAN_RANGE;
	if (sp->b < sp->a)
		goto bad;
	return 0;
bad:
	ofl_seterr(OFL_EXIT_USAGE, "bad %s range '%s' (use A-B, A+N, -N, A- "
	    "or A; %ss count from %d)", what, s, what,
	    unit == OFL_SPAN_LINES ? 1 : 0);
	return -1;
}

/*
 * Resolve the spans against the source's size; clamp what goes past the
 * end and say so.  With scope set, no spans means the whole source.
 */
int
ofl_extract_resolve(struct ex *x, size_t *np, struct rspan **rp, int scope)
{
	const struct ofl_extract	*o = x->o;
	struct rspan			*rs;
	uint64_t			 bytes, lines, total, a, b;
	size_t				 i, n = 0;
	const char			*unit;

	*rp = NULL;
	*np = 0;
	if (src_totals(&x->src, &bytes, &lines) == -1)
		return -1;
	rs = ofl_xcalloc(o->nspans + 1, sizeof *rs);
	if (o->nspans == 0 && scope) {
		if (lines > 0) {
			rs[0].unit = OFL_SPAN_LINES;
			rs[0].a = 1;
			rs[0].b = lines;
			n = 1;
		}
		*rp = rs;
		*np = n;
		return 0;
	}
	for (i = 0; i < o->nspans; i++) {
		const struct ofl_span *sp = &o->spans[i];
		uint64_t first = sp->unit == OFL_SPAN_LINES ? 1 : 0;

		total = sp->unit == OFL_SPAN_LINES ? lines : bytes;
		unit = sp->unit == OFL_SPAN_LINES ? "lines" : "bytes";
		switch (sp->form) {
		case OFL_SPAN_LAST:
			b = total + first - 1;
			a = sp->b >= total ? first : total - sp->b + first;
			if (total == 0) {
				ofl_extract_warnf(x,
				    "%s -%" PRIu64 ": ofl:%s is empty",
				    unit, sp->b, x->id);
				continue;
			}
			if (sp->b > total)
				ofl_extract_warnf(x,
				    "%s -%" PRIu64 ": clamped to %" PRIu64
				    "-%" PRIu64 " (ofl:%s has %" PRIu64 " %s)",
				    unit, sp->b, a, b, x->id, total, unit);
			break;
		case OFL_SPAN_FROM:
			a = sp->a;
			b = total + first - 1;
			if (a > b || total == 0) {
				ofl_extract_warnf(x,
				    "%s %" PRIu64 "-: out of range "
				    "(ofl:%s "
				    "has %" PRIu64 " %s)", unit, a, x->id,
				    total, unit);
				continue;
			}
			break;
		default:
			a = sp->a;
			b = sp->form == OFL_SPAN_COUNT ? sp->a + sp->b - 1 :
			    sp->b;
			if (total == 0 || a > total + first - 1) {
				ofl_extract_warnf(x,
				    "%s %" PRIu64 "-%" PRIu64 ": out of "
				    "range (ofl:%s has %" PRIu64 " %s)", unit,
				    a, b, x->id, total, unit);
				continue;
			}
			if (b > total + first - 1) {
				ofl_extract_warnf(x,
				    "%s %" PRIu64 "-%" PRIu64 ": clamped "
				    "to %" PRIu64 "-%" PRIu64 " (ofl:%s has %"
				    PRIu64 " %s)", unit, a, b, a,
				    total + first - 1, x->id, total, unit);
				b = total + first - 1;
			}
			break;
		}
		rs[n].unit = sp->unit;
		rs[n].a = a;
		rs[n].b = b;
		n++;
	}
	*rp = rs;
	*np = n;
	return 0;
}

/* The source. */

static int
src_open(struct ex *x)
{
	struct src	*s = &x->src;

	memset(s, 0, sizeof *s);
	if ((s->r = ofl_reader_open(x->st, x->id)) == NULL)
		return -1;
	s->member = x->o->member;
	ofl_reader_src(s->r, &s->rsrc);
	if (s->member != NULL && member_open(s, x->id) == -1)
		return -1;
	return 0;
}

static void
src_close(struct src *s)
{
	if (s->a != NULL)
		ofl_arc_close(&s->arc);
	ofl_reader_close(s->r);
	memset(s, 0, sizeof *s);
}

int
ofl_extract_src_rewind(struct src *s)
{
	char	id[OFL_ID_MAX + 1];

	if (s->member == NULL)
		return ofl_reader_seek(s->r, 0);
	if (s->a != NULL && s->pos == 0)
		return 0;
	if (s->a != NULL)
		ofl_arc_close(&s->arc);
	s->a = NULL;
	snprintf(id, sizeof id, "%s", ofl_reader_meta(s->r)->id);
	return member_open(s, id);
}

ssize_t
ofl_extract_src_read(struct src *s, void *buf, size_t n)
{
	la_ssize_t	got;

	if (s->member == NULL)
		return ofl_reader_read(s->r, buf, n);
	got = archive_read_data(s->a, buf, n);
	if (got < 0) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: %s: %s",
		    ofl_reader_meta(s->r)->id, s->member,
		    archive_error_string(s->a));
		return -1;
	}
	s->pos += (uint64_t)got;
	if (s->pos > OFL_ARCHIVE_MAX) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: %s: more than %llu bytes "
		    "decompressed; stopped (an archive bomb?)",
		    ofl_reader_meta(s->r)->id, s->member,
		    (unsigned long long)OFL_ARCHIVE_MAX);
		return -1;
	}
	return got;
}

/* Position at a byte offset (a member is read up to it). */
static int
src_seek(struct src *s, uint64_t off)
{
	char	buf[65536];
	ssize_t	n;

	if (s->member == NULL)
		return ofl_reader_seek(s->r, off);
	if (off < s->pos && ofl_extract_src_rewind(s) == -1)
		return -1;
	while (s->pos < off) {
		n = ofl_extract_src_read(s, buf, off - s->pos < sizeof buf ?
		    (size_t)(off - s->pos) : sizeof buf);
		if (n <= 0)
			return n == 0 ? 0 : -1;
	}
	return 0;
}

/* Bytes and lines (a member is read through once to count them). */
static int
src_totals(struct src *s, uint64_t *bytes, uint64_t *lines)
{
	char		*buf;
	ssize_t		 n;
	const char	*p, *end;
	int		 last = '\n';

	if (s->member == NULL) {
		*bytes = ofl_reader_bytes(s->r);
		*lines = ofl_reader_lines(s->r);
		return 0;
	}
	if (!s->totals) {
		if (ofl_extract_src_rewind(s) == -1)
			return -1;
		buf = ofl_xmalloc(READ_SIZE);
		s->bytes = s->lines = 0;
		while ((n = ofl_extract_src_read(s, buf, READ_SIZE)) > 0) {
			s->bytes += (uint64_t)n;
			for (p = buf, end = buf + n; p < end; p++) {
				if ((p = memchr(p, '\n', (size_t)(end - p))) ==
				    NULL)
					break;
				s->lines++;
			}
			last = buf[n - 1];
		}
		free(buf);
		if (n < 0)
			return -1;
		if (last != '\n')
			s->lines++;
		s->totals = 1;
		if (ofl_extract_src_rewind(s) == -1)
			return -1;
	}
	*bytes = s->bytes;
	*lines = s->lines;
	return 0;
}

/* Line reading. */

/* Open the archive and position it at the member's data. */
static int
member_open(struct src *s, const char *id)
{
	if (ofl_fmt_archive_member(&s->arc, &s->rsrc, id, s->member) == -1)
		return -1;
	s->a = s->arc.a;
	s->pos = 0;
	return 0;
}

/*
 * Start reading at line first (1-based), stopping after line last.
 * Lines longer than maxline come in pieces.
 */
int
ofl_extract_lr_init(struct lr *lr, struct src *s, uint64_t first, uint64_t last,
    size_t maxline)
{
	struct line	ln;
	int64_t		off;
	int		rv = 1;

	memset(lr, 0, sizeof lr[0]);
	lr->src = s;
	lr->cap = READ_SIZE;
	lr->buf = ofl_xmalloc(lr->cap);
	lr->maxline = maxline;
	lr->last = UINT64_MAX;
	lr->no = 1;
	if (first < 1)
		first = 1;
	if (s->member == NULL) {
		if (first > 1) {
			if ((off = ofl_reader_seek_line(s->r, first)) == -1)
				return -1;
			lr->off = (uint64_t)off;
			lr->no = first;
		} else if (ofl_reader_seek(s->r, 0) == -1)
			return -1;
	} else {
		if (ofl_extract_src_rewind(s) == -1)
			return -1;
		/* Skip to the line by reading. */
		lr->last = first - 1;
		while (lr->no < first && (rv = ofl_extract_lr_next(lr,
		    &ln)) > 0)
			;
		if (rv == -1)
			return -1;
		if (lr->no < first) {
			ofl_seterr(OFL_EXIT_NOMATCH, "line %" PRIu64 " is "
			    "beyond the end", first);
			return -1;
		}
	}
	lr->last = last;
	return 0;
}

void
ofl_extract_lr_free(struct lr *lr)
{
	free(lr->buf);
	lr->buf = NULL;
}

/* 1 with a line or a piece, 0 at the end, -1 on error. */
int
ofl_extract_lr_next(struct lr *lr, struct line *ln)
{
	size_t	avail, want;
	char	*nl;
	ssize_t	n;

	if (lr->no > lr->last && !lr->piece)
		return 0;
	for (;;) {
		avail = lr->hi - lr->lo;
		want = avail < lr->maxline + 1 ? avail : lr->maxline + 1;
		nl = want > 0 ? memchr(lr->buf + lr->lo, '\n', want) : NULL;
		ln->p = lr->buf + lr->lo;
		ln->no = lr->no;
		ln->off = lr->off;
		ln->cont = lr->piece;
		ln->more = 0;
		if (nl != NULL) {
			ln->len = (size_t)(nl - ln->p);
			lr->lo += ln->len + 1;
			lr->off += ln->len + 1;
			lr->no++;
			lr->piece = 0;
			return 1;
		}
		if (avail > lr->maxline) {
			ln->len = lr->maxline;
			ln->more = 1;
			lr->lo += ln->len;
			lr->off += ln->len;
			lr->piece = 1;
			return 1;
		}
		if (lr->eof) {
			if (avail == 0 && !lr->piece)
				return 0;
			/* The last line has no newline. */
			ln->len = avail;
			lr->lo = lr->hi;
			lr->off += avail;
			lr->no++;
			lr->piece = 0;
			return 1;
		}
		if (lr->lo > 0) {
			memmove(lr->buf, lr->buf + lr->lo, avail);
			lr->hi = avail;
			lr->lo = 0;
		}
		if (lr->hi == lr->cap) {
			lr->cap *= 2;
			lr->buf = ofl_xrealloc(lr->buf, lr->cap);
		}
		n = ofl_extract_src_read(lr->src, lr->buf + lr->hi,
		    lr->cap - lr->hi);
		if (n < 0)
			return -1;
		if (n == 0)
			lr->eof = 1;
		lr->hi += (size_t)n;
	}
}

/* Output. */

int
ofl_extract_out_write(struct ex *x, const void *p, size_t n)
{
	if (n == 0)
		return 0;
	if (x->werr)
		return -1;
	if (fwrite(p, 1, n, x->fp) != n) {
		x->werr = 1;
		ofl_seterr(OFL_EXIT_FAIL, "stdout: %s", strerror(errno));
		return -1;
	}
	x->used += n;
	x->lastnl = ((const char *)p)[n - 1] == '\n';
	return 0;
}

/*
 * A numbered line's unit: on a terminal, the number in color (as grep
 * -n shows it); the escapes are not counted in the budget.
 */
static int
out_unit(struct ex *x, const char *p, size_t n)
{
	size_t	d = 0;

	if (!x->o->color || x->o->json)
		return ofl_extract_out_write(x, p, n);
	while (d < n && p[d] >= '0' && p[d] <= '9')
		d++;
	if (d == 0)
		return ofl_extract_out_write(x, p, n);
	if (!x->werr && fputs("\033[32m", x->fp) == EOF)
		x->werr = 1;
	if (ofl_extract_out_write(x, p, d) == -1)
		return -1;
	if (fputs("\033[m", x->fp) == EOF) {
		x->werr = 1;
		ofl_seterr(OFL_EXIT_FAIL, "stdout: %s", strerror(errno));
		return -1;
	}
	return ofl_extract_out_write(x, p + d, n - d);
}

int
ofl_extract_out_fits(struct ex *x, uint64_t n)
{
	return x->max == 0 || x->used + n <= x->max;
}

/*
 * A JSON string literal.  JSON holds text, not bytes: a byte that is not
 * part of valid UTF-8 becomes U+FFFD (the plain output keeps every byte).
 */
void
ofl_extract_json_str(struct ofl_buf *b, const char *s, size_t n)
{
	ofl_buf_add_json_str(b, s, n);
}

/* Cut s (longer than n) at most n bytes in, not inside a UTF-8 sequence. */
size_t
ofl_extract_utf8_cut(const char *s, size_t n)
{
	size_t	k = n;

	while (k > 0 && n - k < 3 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	if (((unsigned char)s[k] & 0xc0) == 0x80)
		return n;
	return k;
}

void
ofl_extract_cmd_word(struct ofl_buf *b, const char *s)
{
	char	*q;

	q = ofl_shquote(s);
	ofl_buf_addc(b, ' ');
	ofl_buf_adds(b, q);
	free(q);
}

/* "ofl-extract [-s STORE] ID [--member PATH] [--max-bytes N] [--json]" */
static void
cmd_base(struct ex *x, struct ofl_buf *b)
{
	ofl_buf_adds(b, "ofl-extract");
	if (x->o->store_arg != NULL) {
		ofl_buf_adds(b, " -s");
		ofl_extract_cmd_word(b, x->o->store_arg);
	}
	ofl_buf_addf(b, " %s", x->id);
	if (x->o->member != NULL) {
		ofl_buf_adds(b, " --member");
		ofl_extract_cmd_word(b, x->o->member);
	}
	if (x->max != OFL_EXTRACT_BUDGET)
		ofl_buf_addf(b, " --max-bytes %" PRIu64, x->max);
	if (x->o->json)
		ofl_buf_adds(b, " --json");
}

/*
 * Say what was left out ("lines 5-9 of ofl:ID") and the arguments that
 * print it (" -n 5-9").  Marks do not count against the budget.
 */
int
ofl_extract_mark(struct ex *x, const char *what, const char *args)
{
	struct ofl_buf	b, cmd;
	int		rv;

	ofl_buf_init(&b);
	ofl_buf_init(&cmd);
	cmd_base(x, &cmd);
	ofl_buf_adds(&cmd, args);
	if (x->o->json) {
		ofl_buf_adds(&b, "{\"id\":");
		ofl_extract_json_str(&b, x->id, strlen(x->id));
		ofl_buf_adds(&b, ",\"omitted\":");
		ofl_extract_json_str(&b, what, strlen(what));
		ofl_buf_adds(&b, ",\"command\":");
		ofl_extract_json_str(&b, cmd.data, cmd.len);
		ofl_buf_adds(&b, "}\n");
	} else {
		if (x->used > 0 && !x->lastnl)
			ofl_buf_addc(&b, '\n');
		ofl_buf_addf(&b, "[... %s not shown: %s]\n", what,
		    ofl_buf_str(&cmd));
	}
	rv = ofl_extract_out_write(x, b.data, b.len);
	x->used -= b.len;
	ofl_buf_free(&b);
	ofl_buf_free(&cmd);
	return rv;
}

/* "lines 5-9, 12" and " -n 5-9 -n 12" for a list of spans. */
void
ofl_extract_spans_text(struct ofl_buf *what, struct ofl_buf *args,
    const struct rspan *rs, size_t n)
{
	size_t	i, j;
	int	unit = -1;

	for (i = 0; i < n; i = j) {
		/* Count the spans of this unit for the plural. */
		for (j = i; j < n && rs[j].unit == rs[i].unit; j++)
			;
		for (; i < j; i++) {
			if (rs[i].unit != unit) {
				if (unit != -1)
					ofl_buf_adds(what, ", ");
				unit = rs[i].unit;
				ofl_buf_adds(what, unit == OFL_SPAN_LINES ?
				    "line" : "byte");
				if (j - i > 1 || rs[i].a != rs[i].b)
					ofl_buf_addc(what, 's');
				ofl_buf_addc(what, ' ');
			} else
				ofl_buf_adds(what, ", ");
			ofl_buf_addf(args, " %s ", unit == OFL_SPAN_LINES ?
			    "-n" : "-b");
			if (rs[i].a == rs[i].b) {
				ofl_buf_addf(what, "%" PRIu64, rs[i].a);
				ofl_buf_addf(args, "%" PRIu64, rs[i].a);
			} else {
				ofl_buf_addf(what, "%" PRIu64 "-%" PRIu64,
				    rs[i].a, rs[i].b);
				ofl_buf_addf(args, "%" PRIu64 "-%" PRIu64,
				    rs[i].a, rs[i].b);
			}
		}
	}
}

/* Text with secrets masked (the same text when nothing is masked). */
const char *
ofl_extract_mask_text(struct ex *x, const char *p, size_t len,
    size_t *outlen)
{
	*outlen = len;
	if (x->red == NULL || len == 0)
		return p;
	ofl_buf_reset(&x->rbuf);
	ofl_redact(x->red, p, len, &x->rbuf);
	*outlen = x->rbuf.len;
	return x->rbuf.len > 0 ? x->rbuf.data : "";
}

/* Build the unit for one line into b. */
void
ofl_extract_line_unit(struct ex *x, struct ofl_buf *b, uint64_t no,
    const char *sep, const char *p, size_t len, int match, int cut)
{
	p = ofl_extract_mask_text(x, p, len, &len);
	ofl_buf_reset(b);
	if (x->o->json) {
		ofl_buf_adds(b, "{\"id\":");
		ofl_extract_json_str(b, x->id, strlen(x->id));
		ofl_buf_addf(b, ",\"line\":%" PRIu64 ",\"text\":", no);
		ofl_extract_json_str(b, p, len);
		if (match != -1)
			ofl_buf_addf(b, ",\"match\":%s", match ? "true" :
			    "false");
		if (cut)
			ofl_buf_adds(b, ",\"cut\":true");
		ofl_buf_adds(b, "}\n");
	} else {
		ofl_buf_addf(b, "%" PRIu64 "%s\t", no, sep);
		ofl_buf_add(b, p, len);
		ofl_buf_addc(b, '\n');
	}
}

/*
 * Print one line ("N<sep>\ttext", or its JSON object) if it fits the
 * budget.  1 printed, 0 it does not fit, -1 write error.
 */
int
ofl_extract_emit_line(struct ex *x, uint64_t no, const char *sep, const char *p,
    size_t len, int match)
{
	ofl_extract_line_unit(x, &x->tmp, no, sep, p, len, match, 0);
	if (!ofl_extract_out_fits(x, x->tmp.len))
		return 0;
	if (out_unit(x, x->tmp.data, x->tmp.len) == -1)
		return -1;
	x->printed = 1;
	return 1;
}

/*
 * The first line to print does not fit the budget: print what fits of it
 * and mark the rest of its bytes.  The line reader is left after it.
 */
int
ofl_extract_emit_partial(struct ex *x, struct lr *lr, struct line *ln,
    const char *sep,
    int match)
{
	struct ofl_buf	 what, args;
	uint64_t	 start = ln->off, end, no = ln->no;
	size_t		 k, over;
	struct line	 piece;
	int		 rv = -1, r;

	k = ln->len;
	for (;;) {
		ofl_extract_line_unit(x, &x->tmp, no, sep, ln->p, k, match, 1);
		if (ofl_extract_out_fits(x, x->tmp.len) || k == 0)
			break;
		over = x->tmp.len - (size_t)(x->max - x->used);
		k = over >= k ? 0 : ofl_extract_utf8_cut(ln->p, k - over);
	}
	if (!ofl_extract_out_fits(x, x->tmp.len))
		ofl_extract_line_unit(x, &x->tmp, no, sep, ln->p, 0, match, 1);
	if (out_unit(x, x->tmp.data, x->tmp.len) == -1)
		return -1;
	x->printed = 1;
	/* Find where the line ends. */
	end = ln->off + ln->len;
	if (ln->more) {
		while ((r = ofl_extract_lr_next(lr, &piece)) > 0) {
			end = piece.off + piece.len;
			if (!piece.more)
				break;
		}
		if (r == -1)
			return -1;
	}
	if (start + k >= end)
		return 0;
	ofl_buf_init(&what);
	ofl_buf_init(&args);
	ofl_buf_addf(&what, "bytes %" PRIu64 "-%" PRIu64 " of ofl:%s (the "
	    "rest of line %" PRIu64 ")", start + k, end - 1, x->id, no);
	ofl_buf_addf(&args, " -b %" PRIu64 "-%" PRIu64, start + k, end - 1);
	rv = ofl_extract_mark(x, ofl_buf_str(&what), ofl_buf_str(&args));
	ofl_buf_free(&what);
	ofl_buf_free(&args);
	return rv;
}

/* Raw output: the content whole, or line and byte spans. */

/* Mark the rest of span i (from first on) and the spans after it. */
int
ofl_extract_mark_rest(struct ex *x, const struct rspan *rs, size_t n, size_t i,
    uint64_t first, const char *pre)
{
	struct rspan	*rest;
	struct ofl_buf	 what, args;
	size_t		 k = 0, j;
	int		 rv;

	rest = ofl_xcalloc(n - i + 1, sizeof *rest);
	if (first <= rs[i].b) {
		rest[k] = rs[i];
		rest[k++].a = first;
	}
	for (j = i + 1; j < n; j++)
		rest[k++] = rs[j];
	if (k == 0) {
		free(rest);
		return 0;
	}
	ofl_buf_init(&what);
	ofl_buf_init(&args);
	ofl_extract_spans_text(&what, &args, rest, k);
	ofl_buf_addf(&what, " of ofl:%s", x->id);
	ofl_buf_adds(&args, "");
	{
		struct ofl_buf	all;

		ofl_buf_init(&all);
		ofl_buf_adds(&all, pre);
		ofl_buf_add(&all, args.data, args.len);
		rv = ofl_extract_mark(x, ofl_buf_str(&what), ofl_buf_str(&all));
		ofl_buf_free(&all);
	}
	ofl_buf_free(&what);
	ofl_buf_free(&args);
	free(rest);
	return rv;
}

/* 0 done, 1 cut by the budget (marked), -1 error. */
static int
print_lines(struct ex *x, const struct rspan *rs, size_t n, size_t i)
{
	struct lr	lr;
	struct line	ln;
	char		pre[32];
	size_t		maxline;
	int		r, rv = -1;

	if (x->max == 0)
		maxline = x->o->json ? LINE_MAX_REGEX : PIECE_MAX;
	else
		maxline = x->max + 64 > PIECE_MAX ? (size_t)x->max + 64 :
		    PIECE_MAX;
	if (ofl_extract_lr_init(&lr, &x->src, rs[i].a, rs[i].b, maxline) == -1)
		goto out;
	while ((r = ofl_extract_lr_next(&lr, &ln)) > 0) {
		if (x->max == 0 && !x->o->json) {
			/* No budget: a long line streams through. */
			if (!ln.cont) {
				snprintf(pre, sizeof pre, "%" PRIu64 "\t",
				    ln.no);
				if (out_unit(x, pre, strlen(pre)) == -1)
					goto out;
			}
			{
				size_t		 mlen;
				const char	*m;

				m = ofl_extract_mask_text(x, ln.p, ln.len,
				    &mlen);

				if (ofl_extract_out_write(x, m, mlen) == -1 ||
				    (!ln.more &&
				    ofl_extract_out_write(x, "\n", 1) == -1))
					goto out;
			}
			x->printed = 1;
			continue;
		}
		if (ln.cont)
			continue;
		if (!ln.more) {
			if ((r = ofl_extract_emit_line(x, ln.no, "", ln.p,
			    ln.len, -1)) ==
			    -1)
				goto out;
			if (r == 1)
				continue;
		}
		/* It does not fit. */
		if (!x->printed) {
			if (ofl_extract_emit_partial(x, &lr, &ln, "", -1) == -1)
				goto out;
			r = ofl_extract_mark_rest(x, rs, n, i, ln.no + 1, "");
		} else
			r = ofl_extract_mark_rest(x, rs, n, i, ln.no, "");
		rv = r == -1 ? -1 : 1;
		goto out;
	}
	rv = r == -1 ? -1 : 0;
out:
	ofl_extract_lr_free(&lr);
	return rv;
}

/* 0 done, 1 cut by the budget (marked), -1 error. */
static int
print_bytes(struct ex *x, const struct rspan *rs, size_t n, size_t i)
{
	struct ofl_buf	 acc;
	char		*buf;
	uint64_t	 pos = rs[i].a, allow;
	size_t		 want;
	ssize_t		 k;
	int		 rv = -1, cut = 0;

	if (src_seek(&x->src, pos) == -1)
		return -1;
	buf = ofl_xmalloc(READ_SIZE);
	ofl_buf_init(&acc);
	while (pos <= rs[i].b) {
		want = rs[i].b - pos + 1 < READ_SIZE ?
		    (size_t)(rs[i].b - pos + 1) : READ_SIZE;
		if ((k = ofl_extract_src_read(&x->src, buf, want)) == -1)
			goto out;
		if (k == 0)
			break;
		if (x->o->json) {
			allow = x->max == 0 ? LINE_MAX_REGEX : x->max;
			if (acc.len + (uint64_t)k > allow) {
				k = (ssize_t)(allow - acc.len);
				cut = 1;
			}
			ofl_buf_add(&acc, buf, (size_t)k);
			pos += (uint64_t)k;
			if (cut)
				break;
			continue;
		}
		allow = x->max == 0 ? (uint64_t)k : x->max > x->used ?
		    x->max - x->used : 0;
		if ((uint64_t)k > allow) {
			k = (ssize_t)allow;
			cut = 1;
		}
		if (ofl_extract_out_write(x, buf, (size_t)k) == -1)
			goto out;
		if (k > 0)
			x->printed = 1;
		pos += (uint64_t)k;
		if (cut)
			break;
	}
	if (x->o->json) {
		/* One object per span, its text cut to fit. */
		for (;;) {
			ofl_buf_reset(&x->tmp);
			ofl_buf_adds(&x->tmp, "{\"id\":");
			ofl_extract_json_str(&x->tmp, x->id, strlen(x->id));
			ofl_buf_addf(&x->tmp, ",\"bytes\":[%" PRIu64 ",%" PRIu64
			    "],\"text\":", rs[i].a, rs[i].a + acc.len - 1);
			ofl_extract_json_str(&x->tmp, acc.data, acc.len);
			ofl_buf_adds(&x->tmp, "}\n");
			if (ofl_extract_out_fits(x, x->tmp.len) || acc.len == 0)
				break;
			if (x->printed) {
				pos = rs[i].a;
				cut = 1;
				goto marked;
			}
			want = x->tmp.len - (size_t)(x->max - x->used);
			acc.len = want >= acc.len ? 0 :
			    ofl_extract_utf8_cut(acc.data, acc.len - want);
			pos = rs[i].a + acc.len;
			cut = 1;
		}
		if (acc.len > 0 || !cut) {
			if (ofl_extract_out_write(x, x->tmp.data,
			    x->tmp.len) == -1)
				goto out;
			x->printed = 1;
		}
	}
marked:
	if (cut) {
		rv = ofl_extract_mark_rest(x, rs, n, i, pos, "") == -1 ? -1 : 1;
		goto out;
	}
	rv = 0;
out:
	ofl_buf_free(&acc);
	free(buf);
	return rv;
}

static int
run_raw(struct ex *x)
{
	const struct ofl_extract	*o = x->o;
	struct rspan			*rs = NULL;
	uint64_t			 bytes, lines;
	size_t				 n, i;
	char				*buf;
	ssize_t				 k;
	int				 r, rv = -1;

	if (o->nspans == 0 && x->max == 0 && !o->json) {
		/* The content whole, byte for byte. */
		if (ofl_extract_src_rewind(&x->src) == -1)
			return -1;
		buf = ofl_xmalloc(READ_SIZE);
		while ((k = ofl_extract_src_read(&x->src, buf, READ_SIZE)) > 0)
			if (ofl_extract_out_write(x, buf, (size_t)k) == -1)
				break;
		free(buf);
		return k < 0 || x->werr ? -1 : 0;
	}
	if (o->nspans == 0) {
		/* The whole as one span, cut to the budget. */
		if (src_totals(&x->src, &bytes, &lines) == -1)
			return -1;
		rs = ofl_xcalloc(1, sizeof *rs);
		n = 0;
		if (o->json && lines > 0) {
			rs[0].unit = OFL_SPAN_LINES;
			rs[0].a = 1;
			rs[0].b = lines;
			n = 1;
		} else if (!o->json && bytes > 0) {
			rs[0].unit = OFL_SPAN_BYTES;
			rs[0].a = 0;
			rs[0].b = bytes - 1;
			n = 1;
		}
	} else if (ofl_extract_resolve(x, &n, &rs, 0) == -1)
		return -1;
	if (n == 0) {
		free(rs);
		return o->nspans > 0 ? 1 : 0;
	}
	for (i = 0; i < n; i++) {
		if (rs[i].unit == OFL_SPAN_LINES)
			r = print_lines(x, rs, n, i);
		else
			r = print_bytes(x, rs, n, i);
		if (r == -1)
			goto out;
		if (r == 1)
			break;
	}
	rv = 0;
out:
	free(rs);
	return rv;
}

/*
 * Limits.  Neither libjq nor the C library's regex engine can be stopped
 * or bounded from the inside: [range(1e9)] or ((a{1,100}){1,100}){1,100}
 * runs for minutes and takes gigabytes.  So a filter or a regex runs in a
 * child process under RLIMIT_CPU and RLIMIT_AS; it writes its output to
 * the same stream and sends its result back through a pipe.  The parent
 * turns a child killed for its CPU time, or out of memory, into one line.
 */

static void
lim_send(const struct lim_result *r)
{
	if (lim_fd != -1)
		(void)ofl_write_all(lim_fd, r, sizeof *r);
}

/* libjq calls this when malloc fails; it aborts otherwise. */
static void
lim_nomem(void *arg)
{
	(void)arg;
	lim_send(&lim_oom);
	_exit(0);
}

static void
lim_size(char *buf, size_t len, uint64_t n)
{
	if (n >= (UINT64_C(1) << 30) && n % (UINT64_C(1) << 30) == 0)
		snprintf(buf, len, "%" PRIu64 " GiB", n >> 30);
	else if (n >= (UINT64_C(1) << 20) && n % (UINT64_C(1) << 20) == 0)
		snprintf(buf, len, "%" PRIu64 " MiB", n >> 20);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", n);
}

static void
lim_set(const struct ofl_extract *o)
{
	struct rlimit	rl;

	/* A core file of a filter that ran too long helps no one. */
	rl.rlim_cur = rl.rlim_max = 0;
	(void)setrlimit(RLIMIT_CORE, &rl);
	if (o->time_limit > 0) {
		/* SIGXCPU at the limit, SIGKILL a second later. */
		rl.rlim_cur = o->time_limit;
		rl.rlim_max = (rlim_t)o->time_limit + 1;
		(void)setrlimit(RLIMIT_CPU, &rl);
	}
#ifndef __SANITIZE_ADDRESS__
	/* AddressSanitizer reserves terabytes of address space up front. */
	if (o->mem_limit > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)o->mem_limit;
		(void)setrlimit(RLIMIT_AS, &rl);
	}
#endif
}

/*
 * Run fn(arg) under the limits of o, what ("jq: the filter", "regex")
 * naming it in errors.  Output goes to fp, flushed on both sides.  No
 * limits, or an output stream with no descriptor: fn runs here.
 */
static int
limited(const struct ofl_extract *o, FILE *fp, const char *what,
    int (*fn)(void *), void *arg)
{
	struct lim_result	 r;
	char			 size[64];
	size_t			 got = 0;
	ssize_t			 n;
	pid_t			 pid;
	int			 p[2], status, rv;

	if ((o->time_limit == 0 && o->mem_limit == 0) || fp == NULL ||
	    fileno(fp) == -1)
		return fn(arg);
	fflush(fp);
	fflush(stderr);
	if (pipe(p) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		lim_fd = p[1];
		lim_size(size, sizeof size, o->mem_limit);
		memset(&lim_oom, 0, sizeof lim_oom);
		lim_oom.rv = -1;
		lim_oom.code = OFL_EXIT_FAIL;
		snprintf(lim_oom.msg, sizeof lim_oom.msg, "%s needs more than "
		    "%s of memory, the limit (--memory-limit)", what, size);
		jv_nomem_handler(lim_nomem, NULL);
		lim_set(o);
		ofl_clearerr();
		rv = fn(arg);
		memset(&r, 0, sizeof r);
		if (fflush(fp) == EOF || ferror(fp)) {
			if (rv != -1)
				ofl_seterr(OFL_EXIT_FAIL, "write: %s",
				    strerror(errno));
			rv = -1;
		}
		fflush(stderr);
		r.rv = rv;
		if (rv == -1) {
			r.code = ofl_errcode();
			snprintf(r.msg, sizeof r.msg, "%s", ofl_errmsg());
		}
		lim_send(&r);
		_exit(0);
	}
	close(p[1]);
	memset(&r, 0, sizeof r);
	while (got < sizeof r) {
		n = read(p[0], (char *)&r + got, sizeof r - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			ofl_seterr(OFL_EXIT_FAIL, "waitpid: %s",
			    strerror(errno));
			return -1;
		}
	if (got == sizeof r) {
		r.msg[sizeof r.msg - 1] = '\0';
		if (r.rv == -1)
			ofl_seterr(r.code != 0 ? r.code : OFL_EXIT_FAIL, "%s",
			    r.msg);
		return r.rv;
	}
	if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU ||
	    WTERMSIG(status) == SIGKILL) && o->time_limit > 0)
		ofl_seterr(OFL_EXIT_FAIL, "%s used %u s of CPU time, the limit "
		    "(--time-limit)", what, o->time_limit);
	else if (o->mem_limit > 0 && ((WIFSIGNALED(status) &&
	    (WTERMSIG(status) == SIGABRT || WTERMSIG(status) == SIGSEGV)) ||
	    (WIFEXITED(status) && WEXITSTATUS(status) != 0))) {
		lim_size(size, sizeof size, o->mem_limit);
		ofl_seterr(OFL_EXIT_FAIL, "%s needs more than %s of memory, "
		    "the limit (--memory-limit)", what, size);
	} else if (WIFSIGNALED(status))
		ofl_seterr(OFL_EXIT_FAIL, "%s was killed by signal %d", what,
		    WTERMSIG(status));
	else
		ofl_seterr(OFL_EXIT_FAIL, "%s ended with status %d", what,
		    WEXITSTATUS(status));
	return -1;
}

const char *
ofl_extract_oom_msg(void)
{
	return lim_fd != -1 ? lim_oom.msg : NULL;
}

/* The entry point. */

int
ofl_extract_check(const struct ofl_extract *o)
{
	if (o->mode == OFL_EXTRACT_REGEX && limited(o, o->out != NULL ?
	    o->out : stdout, "regex", ofl_extract_regex_check,
	    (void *)o) == -1)
		return -1;
	if (o->mode == OFL_EXTRACT_JQ)
		return ofl_extract_jq_check(o);
	return 0;
}

/* The run itself, in a child process for a filter or a regex. */
static int
run_limited(void *arg)
{
	struct ex	*x = arg;
	int		 rv;

	switch (x->o->mode) {
	case OFL_EXTRACT_REGEX:
		rv = ofl_extract_regex(x);
		break;
	case OFL_EXTRACT_ERRORS:
		rv = ofl_extract_errors(x);
		break;
	case OFL_EXTRACT_JQ:
		rv = ofl_extract_jq(x);
		break;
	default:
		rv = run_raw(x);
		break;
	}
	if (x->werr)
		rv = -1;
	if (x->red != NULL && ofl_redactor_count(x->red) > 0)
		ofl_extract_warnf(x,
		    "%" PRIu64 " secret%s masked (OFL_REDACT=off shows "
		    "them)", ofl_redactor_count(x->red),
		    ofl_redactor_count(x->red) > 1 ? "s" : "");
	return rv;
}

int
ofl_extract(struct ofl_store *st, const char *id, const struct ofl_extract *o)
{
	struct ex	x;
	int		rv = -1;

	memset(&x, 0, sizeof x);
	x.o = o;
	x.st = st;
	x.id = id;
	x.fp = o->out != NULL ? o->out : stdout;
	x.max = o->max_bytes;
	x.lastnl = 1;
	ofl_buf_init(&x.tmp);
	ofl_buf_init(&x.rbuf);
	if (o->redact)
		x.red = ofl_redactor_new();
	if (src_open(&x) == -1)
		goto out;
	switch (o->mode) {
	case OFL_EXTRACT_REGEX:
		rv = limited(o, x.fp, "regex", run_limited, &x);
		break;
	case OFL_EXTRACT_JQ:
		rv = limited(o, x.fp, "jq: the filter", run_limited, &x);
		break;
	default:
		rv = run_limited(&x);
		break;
	}
out:
	ofl_redactor_free(x.red);
	ofl_buf_free(&x.rbuf);
	src_close(&x.src);
	free(x.scope);
	ofl_buf_free(&x.tmp);
	return rv;
}
