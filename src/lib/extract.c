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
#include <jq.h>
#include <jv.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "ofl.h"
#include "banned.h"

extern char	**environ;

#define READ_SIZE	(1024 * 1024)	/* bytes read at once */
#define PIECE_MAX	(64 * 1024)	/* pieces of long lines */
#define LINE_MAX_REGEX	(64 * 1024 * 1024) /* longest whole line */
#define SPAN_MAX	(UINT64_C(1) << 62)
#define RING_LINES	32		/* lines kept for looking back */
#define RING_TEXT	4096		/* bytes of each kept */
#define BLOCK_LINES	2000		/* longer blocks are cut */
#define BLOCK_BYTES	(4 * 1024 * 1024)
#define TRACEBACK	"Traceback (most recent call last):"
#define HEAD_OCC	10		/* occurrences in a header */
#define TEXT_KEEP	(256 * 1024 * 1024) /* block text kept in memory */

/* A source of bytes: the artifact, or one member of it (an archive). */
struct src {
	struct ofl_reader	*r;
	const char		*member;
	struct ofl_src		 rsrc;		/* r as a source */
	struct ofl_arc		 arc;		/* reading member */
	struct archive		*a;		/* arc.a once open */
	uint64_t		 pos;		/* member bytes read */
	int			 totals;	/* bytes, lines known */
	uint64_t		 bytes;
	uint64_t		 lines;
};

/* A line, or a piece of a long one. */
struct line {
	char		*p;
	size_t		 len;		/* without the newline */
	uint64_t	 no;		/* 1-based */
	uint64_t	 off;		/* source offset of p[0] */
	int		 more;		/* the line goes on */
	int		 cont;		/* a piece after the first */
};

/* Reads lines from a source. */
struct lr {
	struct src	*src;
	char		*buf;
	size_t		 cap;
	size_t		 lo;		/* unread: buf[lo, hi) */
	size_t		 hi;
	uint64_t	 off;		/* source offset of buf[lo] */
	uint64_t	 no;		/* number of the line at buf[lo] */
	uint64_t	 last;		/* the last line to return */
	size_t		 maxline;	/* longer lines come in pieces */
	int		 eof;
	int		 piece;		/* buf[lo] is inside a line */
};

/* One run of ofl_extract(). */
struct ex {
	const struct ofl_extract *o;
	struct ofl_store	*st;
	const char		*id;
	struct src		 src;
	FILE			*fp;
	uint64_t		 max;		/* budget, 0: none */
	uint64_t		 used;
	int			 lastnl;	/* output ends a line */
	int			 werr;		/* writing failed */
	int			 printed;	/* a unit was printed */
	struct ofl_buf		 tmp;
	struct rspan		*scope;		/* resolved -n */
	size_t			 nscope;
	struct ofl_redactor	*red;		/* or NULL */
	struct ofl_buf		 rbuf;
};

/* What a child run under limits sends back. */
struct lim_result {
	int	rv;
	int	code;
	char	msg[1024];
};

static int	lim_fd = -1;		/* the child's end of the pipe */
static struct lim_result lim_oom;	/* what running out of memory says */

/* A span resolved against the source: first and last, both inclusive. */
struct rspan {
	int		 unit;
	uint64_t	 a;
	uint64_t	 b;
};

static void	 warnf(struct ex *, const char *, ...) OFL_PRINTF(2, 3);
static int	 parse_u64(const char *, size_t, uint64_t *);
static int	 member_open(struct src *, const char *);
static int	 src_open(struct ex *);
static void	 src_close(struct src *);
static int	 src_rewind(struct src *);
static ssize_t	 src_read(struct src *, void *, size_t);
static int	 src_seek(struct src *, uint64_t);
static int	 src_totals(struct src *, uint64_t *, uint64_t *);
static int	 lr_init(struct lr *, struct src *, uint64_t, uint64_t,
		    size_t);
static void	 lr_free(struct lr *);
static int	 lr_next(struct lr *, struct line *);
static int	 out_write(struct ex *, const void *, size_t);
static int	 out_unit(struct ex *, const char *, size_t);
static int	 out_fits(struct ex *, uint64_t);
static void	 json_str(struct ofl_buf *, const char *, size_t);
static size_t	 utf8_cut(const char *, size_t);
static void	 cmd_base(struct ex *, struct ofl_buf *);
static void	 cmd_word(struct ofl_buf *, const char *);
static int	 mark(struct ex *, const char *, const char *);
static void	 spans_text(struct ofl_buf *, struct ofl_buf *,
		    const struct rspan *, size_t);
static int	 mark_rest(struct ex *, const struct rspan *, size_t, size_t,
		    uint64_t, const char *);
static int	 emit_line(struct ex *, uint64_t, const char *, const char *,
		    size_t, int);
static int	 emit_partial(struct ex *, struct lr *, struct line *,
		    const char *, int);
static int	 resolve(struct ex *, size_t *, struct rspan **, int);
static int	 run_raw(struct ex *);
static int	 run_regex(struct ex *);
static int	 run_errors(struct ex *);
static int	 run_jq(struct ex *);

void
ofl_extract_init(struct ofl_extract *o)
{
	memset(o, 0, sizeof *o);
	o->max_bytes = OFL_EXTRACT_BUDGET;
	o->time_limit = OFL_EXTRACT_TIME;
	o->mem_limit = OFL_EXTRACT_MEMORY;
	o->out = stdout;
}

static void
warnf(struct ex *x, const char *fmt, ...)
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
static int
resolve(struct ex *x, size_t *np, struct rspan **rp, int scope)
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
				warnf(x, "%s -%" PRIu64 ": ofl:%s is empty",
				    unit, sp->b, x->id);
				continue;
			}
			if (sp->b > total)
				warnf(x, "%s -%" PRIu64 ": clamped to %" PRIu64
				    "-%" PRIu64 " (ofl:%s has %" PRIu64 " %s)",
				    unit, sp->b, a, b, x->id, total, unit);
			break;
		case OFL_SPAN_FROM:
			a = sp->a;
			b = total + first - 1;
			if (a > b || total == 0) {
				warnf(x, "%s %" PRIu64 "-: out of range "
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
				warnf(x, "%s %" PRIu64 "-%" PRIu64 ": out of "
				    "range (ofl:%s has %" PRIu64 " %s)", unit,
				    a, b, x->id, total, unit);
				continue;
			}
			if (b > total + first - 1) {
				warnf(x, "%s %" PRIu64 "-%" PRIu64 ": clamped "
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

static int
src_rewind(struct src *s)
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

static ssize_t
src_read(struct src *s, void *buf, size_t n)
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
	if (off < s->pos && src_rewind(s) == -1)
		return -1;
	while (s->pos < off) {
		n = src_read(s, buf, off - s->pos < sizeof buf ?
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
		if (src_rewind(s) == -1)
			return -1;
		buf = ofl_xmalloc(READ_SIZE);
		s->bytes = s->lines = 0;
		while ((n = src_read(s, buf, READ_SIZE)) > 0) {
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
		if (src_rewind(s) == -1)
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
static int
lr_init(struct lr *lr, struct src *s, uint64_t first, uint64_t last,
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
		if (src_rewind(s) == -1)
			return -1;
		/* Skip to the line by reading. */
		lr->last = first - 1;
		while (lr->no < first && (rv = lr_next(lr, &ln)) > 0)
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

static void
lr_free(struct lr *lr)
{
	free(lr->buf);
	lr->buf = NULL;
}

/* 1 with a line or a piece, 0 at the end, -1 on error. */
static int
lr_next(struct lr *lr, struct line *ln)
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
		n = src_read(lr->src, lr->buf + lr->hi, lr->cap - lr->hi);
		if (n < 0)
			return -1;
		if (n == 0)
			lr->eof = 1;
		lr->hi += (size_t)n;
	}
}

/* Output. */

static int
out_write(struct ex *x, const void *p, size_t n)
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
		return out_write(x, p, n);
	while (d < n && p[d] >= '0' && p[d] <= '9')
		d++;
	if (d == 0)
		return out_write(x, p, n);
	if (!x->werr && fputs("\033[32m", x->fp) == EOF)
		x->werr = 1;
	if (out_write(x, p, d) == -1)
		return -1;
	if (fputs("\033[m", x->fp) == EOF) {
		x->werr = 1;
		ofl_seterr(OFL_EXIT_FAIL, "stdout: %s", strerror(errno));
		return -1;
	}
	return out_write(x, p + d, n - d);
}

static int
out_fits(struct ex *x, uint64_t n)
{
	return x->max == 0 || x->used + n <= x->max;
}

/*
 * A JSON string literal.  JSON holds text, not bytes: a byte that is not
 * part of valid UTF-8 becomes U+FFFD (the plain output keeps every byte).
 */
static void
json_str(struct ofl_buf *b, const char *s, size_t n)
{
	ofl_buf_add_json_str(b, s, n);
}

/* Cut s (longer than n) at most n bytes in, not inside a UTF-8 sequence. */
static size_t
utf8_cut(const char *s, size_t n)
{
	size_t	k = n;

	while (k > 0 && n - k < 3 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	if (((unsigned char)s[k] & 0xc0) == 0x80)
		return n;
	return k;
}

static void
cmd_word(struct ofl_buf *b, const char *s)
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
		cmd_word(b, x->o->store_arg);
	}
	ofl_buf_addf(b, " %s", x->id);
	if (x->o->member != NULL) {
		ofl_buf_adds(b, " --member");
		cmd_word(b, x->o->member);
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
static int
mark(struct ex *x, const char *what, const char *args)
{
	struct ofl_buf	b, cmd;
	int		rv;

	ofl_buf_init(&b);
	ofl_buf_init(&cmd);
	cmd_base(x, &cmd);
	ofl_buf_adds(&cmd, args);
	if (x->o->json) {
		ofl_buf_adds(&b, "{\"id\":");
		json_str(&b, x->id, strlen(x->id));
		ofl_buf_adds(&b, ",\"omitted\":");
		json_str(&b, what, strlen(what));
		ofl_buf_adds(&b, ",\"command\":");
		json_str(&b, cmd.data, cmd.len);
		ofl_buf_adds(&b, "}\n");
	} else {
		if (x->used > 0 && !x->lastnl)
			ofl_buf_addc(&b, '\n');
		ofl_buf_addf(&b, "[... %s not shown: %s]\n", what,
		    ofl_buf_str(&cmd));
	}
	rv = out_write(x, b.data, b.len);
	x->used -= b.len;
	ofl_buf_free(&b);
	ofl_buf_free(&cmd);
	return rv;
}

/* "lines 5-9, 12" and " -n 5-9 -n 12" for a list of spans. */
static void
spans_text(struct ofl_buf *what, struct ofl_buf *args,
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
static const char *
mask_text(struct ex *x, const char *p, size_t len, size_t *outlen)
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
static void
line_unit(struct ex *x, struct ofl_buf *b, uint64_t no, const char *sep,
    const char *p, size_t len, int match, int cut)
{
	p = mask_text(x, p, len, &len);
	ofl_buf_reset(b);
	if (x->o->json) {
		ofl_buf_adds(b, "{\"id\":");
		json_str(b, x->id, strlen(x->id));
		ofl_buf_addf(b, ",\"line\":%" PRIu64 ",\"text\":", no);
		json_str(b, p, len);
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
static int
emit_line(struct ex *x, uint64_t no, const char *sep, const char *p,
    size_t len, int match)
{
	line_unit(x, &x->tmp, no, sep, p, len, match, 0);
	if (!out_fits(x, x->tmp.len))
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
static int
emit_partial(struct ex *x, struct lr *lr, struct line *ln, const char *sep,
    int match)
{
	struct ofl_buf	 what, args;
	uint64_t	 start = ln->off, end, no = ln->no;
	size_t		 k, over;
	struct line	 piece;
	int		 rv = -1, r;

	k = ln->len;
	for (;;) {
		line_unit(x, &x->tmp, no, sep, ln->p, k, match, 1);
		if (out_fits(x, x->tmp.len) || k == 0)
			break;
		over = x->tmp.len - (size_t)(x->max - x->used);
		k = over >= k ? 0 : utf8_cut(ln->p, k - over);
	}
	if (!out_fits(x, x->tmp.len))
		line_unit(x, &x->tmp, no, sep, ln->p, 0, match, 1);
	if (out_unit(x, x->tmp.data, x->tmp.len) == -1)
		return -1;
	x->printed = 1;
	/* Find where the line ends. */
	end = ln->off + ln->len;
	if (ln->more) {
		while ((r = lr_next(lr, &piece)) > 0) {
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
	rv = mark(x, ofl_buf_str(&what), ofl_buf_str(&args));
	ofl_buf_free(&what);
	ofl_buf_free(&args);
	return rv;
}

/* Raw output: the content whole, or line and byte spans. */

/* Mark the rest of span i (from first on) and the spans after it. */
static int
mark_rest(struct ex *x, const struct rspan *rs, size_t n, size_t i,
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
	spans_text(&what, &args, rest, k);
	ofl_buf_addf(&what, " of ofl:%s", x->id);
	ofl_buf_adds(&args, "");
	{
		struct ofl_buf	all;

		ofl_buf_init(&all);
		ofl_buf_adds(&all, pre);
		ofl_buf_add(&all, args.data, args.len);
		rv = mark(x, ofl_buf_str(&what), ofl_buf_str(&all));
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
	if (lr_init(&lr, &x->src, rs[i].a, rs[i].b, maxline) == -1)
		goto out;
	while ((r = lr_next(&lr, &ln)) > 0) {
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

				m = mask_text(x, ln.p, ln.len, &mlen);

				if (out_write(x, m, mlen) == -1 || (!ln.more &&
				    out_write(x, "\n", 1) == -1))
					goto out;
			}
			x->printed = 1;
			continue;
		}
		if (ln.cont)
			continue;
		if (!ln.more) {
			if ((r = emit_line(x, ln.no, "", ln.p, ln.len, -1)) ==
			    -1)
				goto out;
			if (r == 1)
				continue;
		}
		/* It does not fit. */
		if (!x->printed) {
			if (emit_partial(x, &lr, &ln, "", -1) == -1)
				goto out;
			r = mark_rest(x, rs, n, i, ln.no + 1, "");
		} else
			r = mark_rest(x, rs, n, i, ln.no, "");
		rv = r == -1 ? -1 : 1;
		goto out;
	}
	rv = r == -1 ? -1 : 0;
out:
	lr_free(&lr);
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
		if ((k = src_read(&x->src, buf, want)) == -1)
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
		if (out_write(x, buf, (size_t)k) == -1)
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
			json_str(&x->tmp, x->id, strlen(x->id));
			ofl_buf_addf(&x->tmp, ",\"bytes\":[%" PRIu64 ",%" PRIu64
			    "],\"text\":", rs[i].a, rs[i].a + acc.len - 1);
			json_str(&x->tmp, acc.data, acc.len);
			ofl_buf_adds(&x->tmp, "}\n");
			if (out_fits(x, x->tmp.len) || acc.len == 0)
				break;
			if (x->printed) {
				pos = rs[i].a;
				cut = 1;
				goto marked;
			}
			want = x->tmp.len - (size_t)(x->max - x->used);
			acc.len = want >= acc.len ? 0 : utf8_cut(acc.data,
			    acc.len - want);
			pos = rs[i].a + acc.len;
			cut = 1;
		}
		if (acc.len > 0 || !cut) {
			if (out_write(x, x->tmp.data, x->tmp.len) == -1)
				goto out;
			x->printed = 1;
		}
	}
marked:
	if (cut) {
		rv = mark_rest(x, rs, n, i, pos, "") == -1 ? -1 : 1;
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
		if (src_rewind(&x->src) == -1)
			return -1;
		buf = ofl_xmalloc(READ_SIZE);
		while ((k = src_read(&x->src, buf, READ_SIZE)) > 0)
			if (out_write(x, buf, (size_t)k) == -1)
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
	} else if (resolve(x, &n, &rs, 0) == -1)
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

/* Lines that match a regular expression, with context. */

struct rx {
	regex_t		 re;
	int		 compiled;
	char		*lit;		/* a plain string */
	size_t		 litlen;
	int		 icase;
	struct ofl_buf	 low;		/* lower case, for -i */
};

/* A line kept for before-context. */
struct kept {
	uint64_t	 no;
	struct ofl_buf	 text;
};

static int
rx_compile(struct rx *rx, const char *pat, int icase)
{
	char	msg[256];
	size_t	i;
	int	rc;

	memset(rx, 0, sizeof *rx);
	rx->icase = icase;
	ofl_buf_init(&rx->low);
	if (*pat != '\0' && strpbrk(pat, ".[]()*+?{}|^$\\") == NULL) {
		rx->lit = ofl_xstrdup(pat);
		rx->litlen = strlen(pat);
		if (icase)
			for (i = 0; i < rx->litlen; i++)
				rx->lit[i] = (char)tolower(
				    (unsigned char)rx->lit[i]);
		return 0;
	}
	rc = regcomp(&rx->re, pat, REG_EXTENDED | REG_NOSUB |
	    (icase ? REG_ICASE : 0));
	if (rc == REG_ESPACE && lim_fd != -1) {
		/* Out of memory under the limit: say which limit. */
		ofl_seterr(OFL_EXIT_FAIL, "%s", lim_oom.msg);
		return -1;
	}
	if (rc != 0) {
		regerror(rc, &rx->re, msg, sizeof msg);
		ofl_seterr(OFL_EXIT_USAGE, "bad regular expression '%s': %s",
		    pat, msg);
		return -1;
	}
	rx->compiled = 1;
	return 0;
}

static void
rx_free(struct rx *rx)
{
	if (rx->compiled)
		regfree(&rx->re);
	free(rx->lit);
	ofl_buf_free(&rx->low);
}

static int
rx_match(struct rx *rx, const char *p, size_t len)
{
	regmatch_t	m[1];
	size_t		i;

	if (rx->lit != NULL) {
		if (rx->icase) {
			ofl_buf_reset(&rx->low);
			ofl_buf_add(&rx->low, p, len);
			for (i = 0; i < len; i++)
				rx->low.data[i] = (char)tolower(
				    (unsigned char)rx->low.data[i]);
			p = rx->low.data;
		}
		return memmem(p, len, rx->lit, rx->litlen) != NULL;
	}
#ifdef REG_STARTEND
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)len;
	return regexec(&rx->re, p, 1, m, REG_STARTEND) == 0;
#else
	ofl_buf_reset(&rx->low);
	ofl_buf_add(&rx->low, p, len);
	(void)m;
	return regexec(&rx->re, ofl_buf_str(&rx->low), 0, NULL, 0) == 0;
#endif
}

/* " -e RE [-i] [-C N]" */
static void
regex_args(struct ex *x, struct ofl_buf *b)
{
	ofl_buf_adds(b, " -e");
	cmd_word(b, x->o->regex);
	if (x->o->icase)
		ofl_buf_adds(b, " -i");
	if (x->o->context > 0)
		ofl_buf_addf(b, " -C %u", x->o->context);
}

static int
run_regex(struct ex *x)
{
	const struct ofl_extract	*o = x->o;
	struct rx			 rx;
	struct rspan			*rs = NULL;
	struct kept			*ring = NULL;
	struct lr			 lr;
	struct line			 ln;
	struct ofl_buf			 pre, what;
	size_t				 n = 0, i, j, nring = 0, head = 0;
	uint64_t			 matches = 0, last = 0, after = 0;
	uint64_t			 rem = 0, rem_first = 0, rem_last = 0;
	uint64_t			 ctx_a = 0, ctx_b = 0, start;
	size_t				 rem_span = 0;
	unsigned			 c = o->context;
	int				 cut = 0, warned = 0, m, r, rv = -1;

	memset(&lr, 0, sizeof lr);
	ofl_buf_init(&pre);
	ofl_buf_init(&what);
	if (rx_compile(&rx, o->regex, o->icase) == -1)
		return -1;
	if (resolve(x, &n, &rs, 1) == -1)
		goto out;
	x->scope = rs;
	x->nscope = n;
	if (c > 0) {
		ring = ofl_xcalloc(c, sizeof *ring);
		for (j = 0; j < c; j++)
			ofl_buf_init(&ring[j].text);
	}
	for (i = 0; i < n; i++) {
		if (lr_init(&lr, &x->src, rs[i].a, rs[i].b, LINE_MAX_REGEX) ==
		    -1)
			goto out;
		nring = 0;
		after = 0;
		while ((r = lr_next(&lr, &ln)) > 0) {
			if (ln.cont)
				continue;
			if (ln.more && !warned) {
				warnf(x, "ofl:%s: line %" PRIu64 " is longer "
				    "than %d MiB: only its start is searched",
				    x->id, ln.no, LINE_MAX_REGEX >> 20);
				warned = 1;
			}
			m = rx_match(&rx, ln.p, ln.len);
			if (cut) {
				if (m) {
					if (rem++ == 0) {
						rem_first = ln.no;
						rem_span = i;
					}
					rem_last = ln.no;
				} else if (ctx_a != 0 && ctx_b == ln.no - 1 &&
				    after > 0) {
					ctx_b = ln.no;
					after--;
				}
				continue;
			}
			if (m) {
				matches++;
				/* The group's first line. */
				start = ln.no > c ? ln.no - c : 1;
				if (start < rs[i].a)
					start = rs[i].a;
				if (start <= last)
					start = last + 1;
				if (c > 0 && last > 0 && start > last + 1 &&
				    !o->json) {
					if (!out_fits(x, 3)) {
						cut = 1;
						goto cut_match;
					}
					if (out_write(x, "--\n", 3) == -1)
						goto out;
				}
				for (j = 0; j < nring; j++) {
					struct kept *k = &ring[(head + c -
					    nring + j) % c];

					if (k->no <= last)
						continue;
					r = emit_line(x, k->no, "-",
					    k->text.data, k->text.len, 0);
					if (r == -1)
						goto out;
					if (r == 0) {
						cut = 1;
						goto cut_match;
					}
					last = k->no;
				}
				r = emit_line(x, ln.no, ":", ln.p, ln.len, 1);
				if (r == -1)
					goto out;
				if (r == 0) {
					if (!x->printed) {
						if (emit_partial(x, &lr, &ln,
						    ":", 1) == -1)
							goto out;
						last = ln.no;
						after = c;
						cut = 1;
						ctx_a = 0;
						if (after > 0) {
							ctx_a = ln.no + 1;
							ctx_b = ln.no;
						}
						continue;
					}
					cut = 1;
					goto cut_match;
				}
				last = ln.no;
				after = c;
			} else if (after > 0) {
				r = emit_line(x, ln.no, "-", ln.p, ln.len, 0);
				if (r == -1)
					goto out;
				if (r == 0) {
					/* Cut inside the after-context. */
					cut = 1;
					ctx_a = ctx_b = ln.no;
					after--;
					continue;
				}
				last = ln.no;
				after--;
			}
			if (c > 0) {
				ring[head].no = ln.no;
				ofl_buf_reset(&ring[head].text);
				ofl_buf_add(&ring[head].text, ln.p, ln.len);
				head = (head + 1) % c;
				if (nring < c)
					nring++;
			}
			continue;
cut_match:
			/* This match and what follows are not shown. */
			rem = 1;
			rem_first = rem_last = ln.no;
			rem_span = i;
		}
		lr_free(&lr);
		if (r == -1)
			goto out;
	}
	if (cut && rem > 0) {
		struct rspan	*rest;
		size_t		 k = 0;

		rest = ofl_xcalloc(n - rem_span, sizeof *rest);
		start = rem_first > c ? rem_first - c : 1;
		if (start < rs[rem_span].a)
			start = rs[rem_span].a;
		for (j = rem_span; j < n; j++)
			rest[k++] = rs[j];
		rest[0].a = start;
		regex_args(x, &pre);
		ofl_buf_addf(&what, "%" PRIu64 " more matching line%s (line%s "
		    "%" PRIu64, rem, rem > 1 ? "s" : "", rem > 1 ? "s" : "",
		    rem_first);
		if (rem > 1)
			ofl_buf_addf(&what, "-%" PRIu64, rem_last);
		ofl_buf_addf(&what, ") of ofl:%s", x->id);
		{
			struct ofl_buf	w2, args;

			ofl_buf_init(&w2);
			ofl_buf_init(&args);
			spans_text(&w2, &args, rest, k);
			ofl_buf_add(&pre, args.data, args.len);
			r = mark(x, ofl_buf_str(&what), ofl_buf_str(&pre));
			ofl_buf_free(&w2);
			ofl_buf_free(&args);
		}
		free(rest);
		if (r == -1)
			goto out;
	} else if (cut && ctx_a != 0 && ctx_a <= ctx_b) {
		struct rspan	ctx;

		ctx.unit = OFL_SPAN_LINES;
		ctx.a = ctx_a;
		ctx.b = ctx_b;
		if (mark_rest(x, &ctx, 1, 0, ctx_a, "") == -1)
			goto out;
	}
	rv = matches > 0 ? 0 : 1;
out:
	lr_free(&lr);
	rx_free(&rx);
	if (ring != NULL)
		for (j = 0; j < c; j++)
			ofl_buf_free(&ring[j].text);
	free(ring);
	ofl_buf_free(&pre);
	ofl_buf_free(&what);
	return rv;
}

/*
 * Error blocks.
 *
 * One pass over the lines.  Outside a block, a line is first scanned for a
 * few 4-byte anchors ("rror", "FAIL", "ceba" of Traceback, ...) with a
 * Wu-Manber shift table, so most lines cost a handful of table lookups;
 * an anchor is then verified by hand-written rules that say which kind of
 * block starts there.  Inside a block, rules of its kind say whether the
 * next line continues it (stack frames, indented snippet lines, a
 * traceback's exception line...).  A log prefix (a timestamp, a task
 * name) before the block's first line is its margin: later lines may
 * carry a prefix of the same shape.  Closed blocks are hashed with
 * numbers, hex and addresses masked, and counted by hash.
 */

enum kind {
	K_SANITIZER,
	K_GO_PANIC,
	K_RUST_PANIC,
	K_CRASH,
	K_COMPILER,
	K_LINKER,
	K_PY_TB,
	K_JAVA,
	K_JS,
	K_GO_TEST,
	K_PYTEST,
	K_JEST,
	K_VITEST,
	K_TAP,
	K_JUNIT,
	K_UNITTEST,
	K_TEST_UNEXPECTED,
	K_EXCEPTION,
	K_ERROR,
	K_SUMMARY
};

static const struct {
	const char	*name;
	int		 score;
} kinds[] = {
	{ "sanitizer", 100 },
	{ "go-panic", 95 },
	{ "rust-panic", 95 },
	{ "crash", 95 },
	{ "compiler-error", 90 },
	{ "linker-error", 90 },
	{ "python-traceback", 80 },
	{ "java-stack-trace", 80 },
	{ "js-stack-trace", 80 },
	{ "go-test-fail", 80 },
	{ "pytest-failure", 80 },
	{ "jest-failure", 80 },
	{ "vitest-failure", 80 },
	{ "tap-not-ok", 80 },
	{ "junit-failure", 80 },
	{ "unittest-failure", 80 },
	{ "test-unexpected", 80 },
	{ "exception", 60 },
	{ "error", 50 },
	{ "test-summary", 40 }
};

/* How a block goes on. */
enum mode {
	M_SINGLE,	/* one line (or becomes a stack trace) */
	M_PY,		/* Python traceback */
	M_EXC,		/* Java or JavaScript exception and its frames */
	M_GO_PANIC,
	M_RUST,
	M_COMPILER,	/* gcc, clang, javac, tsc, go build */
	M_RUSTC,	/* rustc: error[E0308]: ... --> file */
	M_SANITIZER,	/* up to SUMMARY: */
	M_UBSAN,
	M_GO_TEST,	/* --- FAIL: and its indented lines */
	M_PYTEST,
	M_JEST,
	M_VITEST,
	M_TAP,
	M_JUNIT,
	M_UNITTEST
};

/* What a line does to the open block. */
enum { C_END, C_ADD, C_TENT, C_LAST };

/* A line of a block. */
struct bl {
	uint64_t	 no;
	uint64_t	 off;
	size_t		 len;
	size_t		 toff;		/* offset in the text */
};

struct block {
	int		 open;
	int		 kind;
	int		 mode;
	int		 state;
	int		 frames;
	size_t		 indent;
	size_t		 mlen;		/* the margin, or 0 */
	char		 margin[128];
	struct bl	*lines;
	size_t		 n;
	size_t		 cap;
	size_t		 keep;		/* kept if it ends now */
	struct ofl_buf	 text;
};

/* Distinct blocks, counted. */
struct cluster {
	uint64_t	 hash;
	int		 kind;
	uint64_t	 count;
	struct bl	*lines;		/* the first occurrence */
	size_t		 n;
	char		*text;		/* or NULL: read again */
	size_t		 textlen;
	uint64_t	*occ;		/* first and last line of each */
	size_t		 nocc;
	size_t		 occcap;
};

/* A line kept for looking back. */
struct rline {
	uint64_t	 no;
	uint64_t	 off;
	size_t		 len;
	int		 trunc;
	char		 text[RING_TEXT];
};

/* A go test running in a go test -json stream, and its output lines. */
#define GT_LINES	64
struct gline {
	uint64_t	 no;
	uint64_t	 off;
	char		*text;
	size_t		 len;
};
struct gotest {
	char		*key;
	size_t		 keylen;
	struct gline	 lines[GT_LINES];
	size_t		 n;
};

struct det {
	struct ex	*x;
	struct block	 b;
	struct rline	*ring;
	size_t		 rhead;
	size_t		 rn;
	int		 pytest;
	int		 gojson;
	struct gotest	*gt;
	size_t		 ngt;
	struct cluster	*cl;
	size_t		 ncl;
	size_t		*tab;		/* cluster index + 1 */
	size_t		 tabsz;
	uint64_t	 kept;		/* bytes of text kept */
	int		 keep_all;	/* cannot read again */
};

/* Anchors and what verifies them. */
enum {
	V_ERROR, V_EXCEPTION, V_TRACEBACK, V_PANIC, V_FAIL, V_FAILLOW,
	V_UNEXPECTED, V_SANITIZER, V_SEGV, V_CORE, V_NPM, V_ASSERT, V_ABORT,
	V_CRASH, V_GOBUILD, V_UNDEFREF, V_FATAL, V_CRITICAL
};
static const struct {
	const char	*pat;
	int		 verify;
} anchors[] = {
	{ "rror", V_ERROR },
	{ "RROR", V_ERROR },
	{ "xcep", V_EXCEPTION },
	{ "ceba", V_TRACEBACK },
	{ "anic", V_PANIC },
	{ "FAIL", V_FAIL },
	{ "fail", V_FAILLOW },
	{ "EXPE", V_UNEXPECTED },
	{ "itiz", V_SANITIZER },
	{ "Segm", V_SEGV },
	{ "dump", V_CORE },
	{ "ERR!", V_NPM },
	{ "sert", V_ASSERT },
	{ "BORT", V_ABORT },
	{ "RASH", V_CRASH },
	{ ".go:", V_GOBUILD },
	{ "efer", V_UNDEFREF },
	{ "ATAL", V_FATAL },
	{ "atal", V_FATAL },
	{ "RITI", V_CRITICAL }
};
#define NANCHORS	(sizeof anchors / sizeof anchors[0])

static uint8_t		 wm_shift[65536];
static uint32_t		 wm_cand[65536];
static int		 wm_ready;

/* A block start found in a line. */
struct start {
	int		 kind;
	int		 mode;
	size_t		 margin;	/* where its text starts */
	size_t		 indent;
	size_t		 pos;
};

static void
wm_init(void)
{
	size_t		i, j;
	unsigned	bg;

	if (wm_ready)
		return;
	memset(wm_shift, 3, sizeof wm_shift);
	for (i = 0; i < NANCHORS; i++) {
		const unsigned char *p = (const unsigned char *)anchors[i].pat;

		for (j = 1; j < 4; j++) {
			bg = (unsigned)p[j - 1] << 8 | p[j];
			if (wm_shift[bg] > 3 - j)
				wm_shift[bg] = (uint8_t)(3 - j);
		}
		bg = (unsigned)p[2] << 8 | p[3];
		wm_cand[bg] |= UINT32_C(1) << i;
	}
	wm_ready = 1;
}

static int
is_word(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static int
has(const char *s, size_t n, size_t i, const char *lit)
{
	size_t	k = strlen(lit);

	return i + k <= n && memcmp(s + i, lit, k) == 0;
}

static int
starts(const char *s, size_t n, const char *lit)
{
	return has(s, n, 0, lit);
}

static size_t
indent_of(const char *s, size_t n)
{
	size_t	i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static int
contains(const char *s, size_t n, const char *lit)
{
	return memmem(s, n, lit, strlen(lit)) != NULL;
}

/*
 * A location ending just before w: "path:12:5: ", "path:12: ",
 * "path(12,5): ", "path:12:5 - " (with "fatal " allowed after it).
 * Returns where the path starts, or -1.
 */
static ssize_t
loc_before(const char *s, size_t w)
{
	size_t	k = w, d;
	int	nums = 0;

	if (k >= 6 && memcmp(s + k - 6, "fatal ", 6) == 0)
		k -= 6;
	if (k >= 2 && (memcmp(s + k - 2, ": ", 2) == 0 ||
	    memcmp(s + k - 2, "- ", 2) == 0))
		k -= 2;
	else
		return -1;
	while (k > 0 && s[k - 1] == ' ')
		k--;
	if (k > 0 && s[k - 1] == ')') {
		/* path(12,5) */
		k--;
		d = k;
		while (k > 0 && (isdigit((unsigned char)s[k - 1]) ||
		    s[k - 1] == ','))
			k--;
		if (k == d || k == 0 || s[k - 1] != '(')
			return -1;
		k--;
		nums = 1;
	} else {
		/* path:12:5 or path:12 */
		while (nums < 2) {
			d = k;
			while (k > 0 && isdigit((unsigned char)s[k - 1]))
				k--;
			if (k == d || k == 0 || s[k - 1] != ':') {
				if (k == d)
					break;
				return -1;
			}
			k--;
			nums++;
		}
		if (nums == 0)
			return -1;
	}
	d = k;
	while (k > 0 && s[k - 1] != ' ' && s[k - 1] != '\t')
		k--;
	if (k == d)
		return -1;
	return (ssize_t)k;
}

/* A qualified name ending at e: back over [A-Za-z0-9_.$]. */
static size_t
qual_start(const char *s, size_t e)
{
	while (e > 0 && (is_word(s[e - 1]) || s[e - 1] == '.' ||
	    s[e - 1] == '$'))
		e--;
	return e;
}

/*
 * An exception header starts where a message starts: at the start of the
 * line or after its indentation, or after a log prefix that ends in "] ",
 * "- ", ": ", "| " or "> ", or after "Uncaught ".
 */
static int
msg_start(const char *s, size_t q)
{
	size_t	k = q;

	while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t'))
		k--;
	if (k == 0)
		return 1;
	if (k == q)
		return 0;
	if (strchr("]-:|>", s[k - 1]) != NULL)
		return 1;
	return k >= 8 && memcmp(s + k - 8, "Uncaught", 8) == 0;
}

/* "Name: msg" or "Name" where Name ends in Error or Exception. */
static int
exc_header(const char *c, size_t n)
{
	size_t	e = 0;

	while (e < n && (is_word(c[e]) || c[e] == '.' || c[e] == '$'))
		e++;
	if (e == 0 || (e < n && c[e] != ':' && c[e] != '\r'))
		return 0;
	if ((e >= 5 && memcmp(c + e - 5, "Error", 5) == 0) ||
	    (e >= 9 && memcmp(c + e - 9, "Exception", 9) == 0))
		return 1;
	return 0;
}

static int
all_of(const char *s, size_t n, int ch, size_t min)
{
	size_t	i;

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n < min)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] != ch)
			return 0;
	return 1;
}

/* "==== TITLE ====" with the given words inside. */
static int
pytest_section(const char *s, size_t n, const char *title)
{
	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n < 5 || s[0] != '=' || s[n - 1] != '=')
		return 0;
	if (title == NULL)
		return 1;
	return contains(s, n, title);
}

static void
set_start(struct start *st, int kind, int mode, size_t margin, size_t pos)
{
	st->kind = kind;
	st->mode = mode;
	st->margin = margin;
	st->pos = pos;
	st->indent = 0;
}

/* Verify anchor a found at i; fill st and return 1 for a block start. */
static int
verify(int v, const char *s, size_t n, size_t i, struct start *st)
{
	size_t	w, e, q, k;
	ssize_t	loc;
	int	nx;

	switch (v) {
	case V_ERROR:
		for (w = i; w > 0 && isalpha((unsigned char)s[w - 1]); w--)
			;
		for (e = i + 4; e < n && is_word(s[e]); e++)
			;
		if (w > 0 && (isdigit((unsigned char)s[w - 1]) ||
		    s[w - 1] == '_'))
			return 0;
		nx = e < n ? (unsigned char)s[e] : '\0';
		if (e - w == 5 && (memcmp(s + w, "error", 5) == 0 ||
		    memcmp(s + w, "Error", 5) == 0 ||
		    memcmp(s + w, "ERROR", 5) == 0)) {
			if (ofl_word_in_name(s, n, w, e))
				return 0;
			/* ==1234==ERROR: AddressSanitizer: */
			if (s[w] == 'E' && w >= 4 && s[w - 1] == '=' &&
			    s[w - 2] == '=') {
				for (k = w - 2; k > 0 &&
				    isdigit((unsigned char)s[k - 1]); k--)
					;
				if (k >= 2 && k < w - 2 && s[k - 1] == '=' &&
				    s[k - 2] == '=') {
					set_start(st, K_SANITIZER, M_SANITIZER,
					    k - 2, w);
					return 1;
				}
			}
			if (w > 0 && s[w - 1] == '<' && s[w] == 'e' &&
			    (nx == ' ' || nx == '>')) {
				set_start(st, K_JUNIT, M_JUNIT, w - 1, w);
				return 1;
			}
			if (nx == ':') {
				if (w >= 8 && memcmp(s + w - 8, "runtime ",
				    8) == 0 &&
				    (loc = loc_before(s, w - 8)) >= 0) {
					set_start(st, K_SANITIZER, M_UBSAN,
					    (size_t)loc, w);
					return 1;
				}
				if ((loc = loc_before(s, w)) >= 0) {
					set_start(st, K_COMPILER, M_COMPILER,
					    (size_t)loc, w);
					return 1;
				}
				if (w == 6 && memcmp(s, "fatal ", 6) == 0) {
					set_start(st, K_GO_PANIC, M_GO_PANIC, 0,
					    w);
					return 1;
				}
				if (w == 0 && s[0] == 'e') {
					set_start(st, K_ERROR, M_RUSTC, 0, w);
					return 1;
				}
				if (w == 0 && s[0] == 'E' && s[1] == 'R') {
					set_start(st, K_UNITTEST, M_UNITTEST, 0,
					    w);
					return 1;
				}
				/* Not inside quotes: config dumps, code. */
				if (!msg_start(s, w) ||
				    memchr(s, '\'', w) != NULL ||
				    memchr(s, '"', w) != NULL)
					return 0;
				if (s[w] == 'E' && s[w + 1] == 'r') {
					/* Error: message (JavaScript) */
					set_start(st, K_EXCEPTION, M_EXC, w, w);
					return 1;
				}
				set_start(st, K_ERROR, M_SINGLE, 0, w);
				return 1;
			}
			if (nx == '[' && s[w] == 'e' && w == 0) {
				set_start(st, K_COMPILER, M_RUSTC, 0, w);
				return 1;
			}
			if (nx == ']' && w > 0 && (s[w - 1] == ':' ||
			    s[w - 1] == '[')) {
				set_start(st, K_ERROR, M_SINGLE, 0, w);
				return 1;
			}
			if (nx == ' ' && e + 2 < n &&
			    isupper((unsigned char)s[e + 1])) {
				/* error TS2322: / error C2065: */
				for (k = e + 1; k < n &&
				    isupper((unsigned char)s[k]); k++)
					;
				q = k;
				while (k < n && isdigit((unsigned char)s[k]))
					k++;
				if (k > q && k < n && s[k] == ':') {
					loc = loc_before(s, w);
					if (loc >= 0)
						set_start(st, K_COMPILER,
						    M_COMPILER, (size_t)loc, w);
					else
						set_start(st, K_ERROR, M_SINGLE,
						    0, w);
					return 1;
				}
			}
			if (s[w] == 'E' && s[w + 1] == 'r' && nx == ' ' &&
			    e + 1 < n && isdigit((unsigned char)s[e + 1]) &&
			    contains(s, n, "***")) {
				/* make: *** [all] Error 2 */
				set_start(st, K_SUMMARY, M_SINGLE, 0, w);
				return 1;
			}
			if (s[w + 1] == 'R' && (nx == ' ' || nx == '\t' ||
			    nx == '\0' || nx == '\r' || nx == ']' ||
			    nx == '-')) {
				/* A log level. */
				set_start(st, K_ERROR, M_SINGLE, 0, w);
				return 1;
			}
			return 0;
		}
		if (e - w == 6 && memcmp(s + w, "ERRORS", 6) == 0 &&
		    pytest_section(s, n, " ERRORS ")) {
			set_start(st, K_PYTEST, M_PYTEST, 0, w);
			return 1;
		}
		/* TypeError: ..., java.lang.AssertionError */
		if (e - w > 5 && e == i + 4 &&
		    memcmp(s + e - 5, "Error", 5) == 0 &&
		    isupper((unsigned char)s[w]) &&
		    (nx == ':' || nx == '\0' || nx == '\r') &&
		    msg_start(s, qual_start(s, e))) {
			q = qual_start(s, e);
			set_start(st, K_EXCEPTION, M_EXC, q, q);
			return 1;
		}
		return 0;
	case V_EXCEPTION:
		if (i < 1 || memcmp(s + i - 1, "Exception", 9) != 0)
			return 0;
		e = i + 8;
		if (has(s, n, e, "Group"))
			e += 5;
		nx = e < n ? (unsigned char)s[e] : '\0';
		if (nx != ':' && nx != '\0' && nx != '\r' &&
		    !has(s, n, e, " in thread "))
			return 0;
		q = qual_start(s, e);
		if (!msg_start(s, q))
			return 0;
		set_start(st, K_EXCEPTION, M_EXC, q, q);
		return 1;
	case V_TRACEBACK:
		if (i < 3 || !has(s, n, i - 3,
		    "Traceback (most recent call last):"))
			return 0;
		set_start(st, K_PY_TB, M_PY, i - 3, i - 3);
		return 1;
	case V_PANIC:
		if (i >= 1 && has(s, n, i - 1, "panic: ") && (i == 1 ||
		    s[i - 2] == ' ' || s[i - 2] == '\t')) {
			set_start(st, K_GO_PANIC, M_GO_PANIC, i - 1, i - 1);
			return 1;
		}
		if (i >= 1 && has(s, n, i - 1, "panicked at")) {
			const char *t = memmem(s, i, "thread '", 8);

			if (t == NULL)
				return 0;
			set_start(st, K_RUST_PANIC, M_RUST, (size_t)(t - s),
			    (size_t)(t - s));
			return 1;
		}
		return 0;
	case V_FAIL:
		if (i > 0 && is_word(s[i - 1]))
			return 0;
		for (e = i + 4; e < n && is_word(s[e]); e++)
			;
		if (ofl_word_in_name(s, n, i, e))
			return 0;
		nx = e < n ? (unsigned char)s[e] : '\0';
		k = indent_of(s, n);
		if (e == i + 4) {
			if (i >= 4 && memcmp(s + i - 4, "--- ", 4) == 0 &&
			    k == i - 4 && nx == ':') {
				set_start(st, K_GO_TEST, M_GO_TEST, 0, i - 4);
				st->indent = k;
				return 1;
			}
			if (i == 0 && nx == ':') {
				set_start(st, K_UNITTEST, M_UNITTEST, 0, i);
				return 1;
			}
			if (i == k && (nx == ' ' || nx == '\t' ||
			    nx == '\0' || nx == '\r')) {
				if (contains(s + i, n - i, " > "))
					set_start(st, K_VITEST, M_VITEST, 0, i);
				else
					set_start(st, K_SUMMARY, M_SINGLE, 0,
					    i);
				return 1;
			}
			return 0;
		}
		if (e - i == 8 && memcmp(s + i, "FAILURES", 8) == 0 &&
		    pytest_section(s, n, " FAILURES ")) {
			set_start(st, K_PYTEST, M_PYTEST, 0, i);
			return 1;
		}
		if ((e - i == 6 && memcmp(s + i, "FAILED", 6) == 0) ||
		    (e - i == 7 && memcmp(s + i, "FAILURE", 7) == 0)) {
			set_start(st, K_SUMMARY, M_SINGLE, 0, i);
			return 1;
		}
		return 0;
	case V_FAILLOW:
		if (i >= 1 && s[i - 1] == '<' && has(s, n, i, "failure")) {
			set_start(st, K_JUNIT, M_JUNIT, i - 1, i - 1);
			return 1;
		}
		if (pytest_section(s, n, NULL) && (contains(s, n, " failed") ||
		    contains(s, n, " error"))) {
			set_start(st, K_SUMMARY, M_SINGLE, 0, i);
			return 1;
		}
		return 0;
	case V_UNEXPECTED:
		if (i < 7 || !has(s, n, i - 7, "TEST-UNEXPECTED-") ||
		    ofl_word_in_name(s, n, i - 7, i - 7))
			return 0;
		set_start(st, K_TEST_UNEXPECTED, M_SINGLE, i - 7, i - 7);
		return 1;
	case V_SANITIZER:
		if (i < 3 || !has(s, n, i - 3, "Sanitizer"))
			return 0;
		for (w = i - 3; w > 0 && isalpha((unsigned char)s[w - 1]); w--)
			;
		if (w >= 9 && memcmp(s + w - 9, "WARNING: ", 9) == 0) {
			k = w - 9;
			if (k >= 4 && s[k - 1] == '=')
				for (k -= 2; k > 0 && s[k - 1] != ' '; k--)
					;
			set_start(st, K_SANITIZER, M_SANITIZER, k, k);
			return 1;
		}
		if (w >= 9 && memcmp(s + w - 9, "SUMMARY: ", 9) == 0) {
			set_start(st, K_SANITIZER, M_SINGLE, 0, w - 9);
			return 1;
		}
		return 0;
	case V_SEGV:
		if (!has(s, n, i, "Segmentation fault") ||
		    ofl_word_in_name(s, n, i, i + 18))
			return 0;
		set_start(st, K_CRASH, M_SINGLE, 0, i);
		return 1;
	case V_CORE:
		if (i < 5 || !has(s, n, i - 5, "core dumped"))
			return 0;
		set_start(st, K_CRASH, M_SINGLE, 0, i - 5);
		return 1;
	case V_NPM:
		if (i < 4 || !has(s, n, i - 4, "npm ERR!"))
			return 0;
		set_start(st, K_ERROR, M_SINGLE, 0, i - 4);
		return 1;
	case V_ASSERT:
		if (i < 2)
			return 0;
		if (has(s, n, i - 2, "Assertion failure") ||
		    (has(s, n, i - 2, "Assertion `") &&
		    contains(s, n, "' failed"))) {
			set_start(st, K_CRASH, M_SINGLE, 0, i - 2);
			return 1;
		}
		return 0;
	case V_ABORT:
		if (i < 7 || !has(s, n, i - 7, "!!! ABORT"))
			return 0;
		set_start(st, K_CRASH, M_SINGLE, 0, i - 7);
		return 1;
	case V_CRASH:
		if (i < 9 || !has(s, n, i - 9, "PROCESS-CRASH"))
			return 0;
		set_start(st, K_CRASH, M_SINGLE, 0, i - 9);
		return 1;
	case V_GOBUILD:
		/* ./main.go:5:2: undefined: x (at the start of a line) */
		if (memchr(s, ' ', i) != NULL || memchr(s, '\t', i) != NULL)
			return 0;
		k = i + 4;
		for (q = 0; q < 2; q++) {
			e = k;
			while (k < n && isdigit((unsigned char)s[k]))
				k++;
			if (k == e || k >= n || s[k] != ':')
				return 0;
			k++;
		}
		if (k >= n || s[k] != ' ')
			return 0;
		set_start(st, K_COMPILER, M_COMPILER, 0, 0);
		return 1;
	case V_UNDEFREF:
		if (i < 11 || !has(s, n, i - 11, "undefined reference to"))
			return 0;
		set_start(st, K_LINKER, M_COMPILER, 0, i - 11);
		return 1;
	case V_FATAL:
		/* FATAL as a level; fatal: as git and others say it. */
		if (i < 1 || (i >= 2 && is_word(s[i - 2])) ||
		    (i + 4 < n && is_word(s[i + 4])) ||
		    ofl_word_in_name(s, n, i - 1, i + 4))
			return 0;
		if (s[i] == 'A' ? s[i - 1] != 'F' : ((s[i - 1] != 'f' &&
		    s[i - 1] != 'F') || i + 4 >= n || s[i + 4] != ':' ||
		    !msg_start(s, i - 1)))
			return 0;
		set_start(st, K_ERROR, M_SINGLE, 0, i - 1);
		return 1;
	case V_CRITICAL:
		if (i < 2 || !has(s, n, i - 2, "CRITICAL") ||
		    (i >= 3 && is_word(s[i - 3])) ||
		    (i + 6 < n && is_word(s[i + 6])) ||
		    ofl_word_in_name(s, n, i - 2, i + 6))
			return 0;
		set_start(st, K_ERROR, M_SINGLE, 0, i - 2);
		return 1;
	}
	return 0;
}

/*
 * How good a start is: its kind's score, but a test summary that opens
 * the line ("FAILED tests/x.py::t - AssertionError: ...") outranks the
 * exception it quotes.
 */
static int
start_rank(const struct start *st, size_t indent)
{
	if (st->kind == K_SUMMARY && st->pos == indent)
		return kinds[K_EXCEPTION].score + 1;
	return kinds[st->kind].score;
}

/* Find the best block start in a line; 1 if there is one. */
static int
find_start(const char *s, size_t n, struct start *best)
{
	const unsigned char	*u = (const unsigned char *)s;
	struct start		 st;
	size_t			 pos, k;
	unsigned		 bg;
	uint32_t		 mask;
	int			 found = 0, a;

	/* Checks at the start of the line (after its indentation). */
	k = indent_of(s, n);
	if (has(s, n, k, "not ok") && (k + 6 == n || s[k + 6] == ' ' ||
	    s[k + 6] == '\r')) {
		set_start(best, K_TAP, M_TAP, 0, k);
		best->indent = k;
		return 1;
	}
	if (has(s, n, k, "\xe2\x97\x8f ") && !has(s, n, k + 4, "Console")) {
		set_start(best, K_JEST, M_JEST, 0, k);
		best->indent = k;
		return 1;
	}
	if (has(s, n, k, "\xe2\x9c\x95 ") || has(s, n, k, "\xc3\x97 ")) {
		set_start(best, K_SUMMARY, M_SINGLE, 0, k);
		return 1;
	}
	for (pos = 3; pos < n; ) {
		bg = (unsigned)u[pos - 1] << 8 | u[pos];
		if (wm_shift[bg] != 0) {
			pos += wm_shift[bg];
			continue;
		}
		mask = wm_cand[bg];
		while (mask != 0) {
			a = __builtin_ctz(mask);
			mask &= mask - 1;
			if (memcmp(s + pos - 3, anchors[a].pat, 4) != 0)
				continue;
			if (!verify(anchors[a].verify, s, n, pos - 3, &st))
				continue;
			/* Words inside quotes are data (a config dump). */
			if ((st.kind == K_ERROR || st.kind == K_SUMMARY ||
			    st.kind == K_EXCEPTION) &&
			    (memchr(s, '\'', st.pos) != NULL ||
			    memchr(s, '"', st.pos) != NULL))
				continue;
			if (!found || start_rank(&st, k) >
			    start_rank(best, k)) {
				*best = st;
				found = 1;
			}
		}
		pos++;
	}
	return found;
}

/* Blocks. */

static void
ring_push(struct det *d, const struct line *ln)
{
	struct rline	*r = &d->ring[d->rhead];

	r->no = ln->no;
	r->off = ln->off;
	r->len = ln->len;
	r->trunc = ln->len > RING_TEXT || ln->more;
	memcpy(r->text, ln->p, r->trunc ? RING_TEXT : ln->len);
	d->rhead = (d->rhead + 1) % RING_LINES;
	if (d->rn < RING_LINES)
		d->rn++;
}

/* The k-th line back (1: the previous line), or NULL. */
static struct rline *
ring_back(struct det *d, size_t k)
{
	if (k == 0 || k > d->rn)
		return NULL;
	return &d->ring[(d->rhead + RING_LINES - k) % RING_LINES];
}

static void
block_add(struct block *b, uint64_t no, uint64_t off, const char *p,
    size_t len)
{
	struct bl	*l;

	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->lines = ofl_xrealloc(b->lines, b->cap * sizeof *b->lines);
	}
	l = &b->lines[b->n++];
	l->no = no;
	l->off = off;
	l->len = len;
	l->toff = b->text.len;
	ofl_buf_add(&b->text, p, len);
	ofl_buf_addc(&b->text, '\n');
}

static int
block_full(struct block *b, size_t len)
{
	return b->n >= BLOCK_LINES || b->text.len + len > BLOCK_BYTES;
}

/* Same shape: the same bytes, except that digits match digits. */
static int
same_shape(const char *a, const char *b, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (a[i] == b[i])
			continue;
		if (isdigit((unsigned char)a[i]) &&
		    isdigit((unsigned char)b[i]))
			continue;
		return 0;
	}
	return 1;
}

/* The text of a line after the block's margin, if it has one like it. */
static const char *
after_margin(const struct block *b, const char *s, size_t n, size_t *cn)
{
	if (b->mlen > 0 && n >= b->mlen && same_shape(b->margin, s, b->mlen)) {
		*cn = n - b->mlen;
		return s + b->mlen;
	}
	*cn = n;
	return s;
}

static uint64_t
fnv(uint64_t h, int c)
{
	return (h ^ (unsigned char)c) * UINT64_C(0x100000001b3);
}

/* Hash text with numbers, hex strings and addresses masked. */
static uint64_t
norm_hash(int kind, const char *s, size_t n)
{
	uint64_t	h = UINT64_C(0xcbf29ce484222325);
	size_t		i = 0, j;
	int		digit;

	h = fnv(h, kind);
	while (i < n) {
		if (s[i] == '0' && i + 1 < n && (s[i + 1] == 'x' ||
		    s[i + 1] == 'X')) {
			i += 2;
			while (i < n && isxdigit((unsigned char)s[i]))
				i++;
			h = fnv(h, '#');
			continue;
		}
		if (isxdigit((unsigned char)s[i]) && (i == 0 ||
		    !is_word(s[i - 1]))) {
			/* A word of hex digits with digits and letters. */
			digit = 0;
			for (j = i; j < n && isxdigit((unsigned char)s[j]); j++)
				digit |= isdigit((unsigned char)s[j]) ? 1 : 2;
			if (digit == 3 && j - i >= 6 &&
			    (j == n || !is_word(s[j]))) {
				h = fnv(h, '#');
				i = j;
				continue;
			}
		}
		if (isdigit((unsigned char)s[i])) {
			while (i < n && isdigit((unsigned char)s[i]))
				i++;
			h = fnv(h, '0');
			continue;
		}
		h = fnv(h, s[i]);
		i++;
	}
	return h;
}

static void
cluster_grow(struct det *d)
{
	size_t	i, j, sz;

	sz = d->tabsz ? d->tabsz * 2 : 1024;
	free(d->tab);
	d->tab = ofl_xcalloc(sz, sizeof *d->tab);
	d->tabsz = sz;
	for (i = 0; i < d->ncl; i++) {
		for (j = d->cl[i].hash & (sz - 1); d->tab[j] != 0;
		    j = (j + 1) & (sz - 1))
			;
		d->tab[j] = i + 1;
	}
}

/* Count a finished block. */
static void
block_finish(struct det *d, struct block *b)
{
	struct cluster	*c = NULL;
	uint64_t	 h;
	size_t		 j;
	int		 kind = b->kind;

	if (b->n == 0)
		return;
	b->text.len = b->lines[b->n - 1].toff + b->lines[b->n - 1].len + 1;
	switch (b->mode) {
	case M_EXC:
		if (b->frames == 0)
			kind = K_EXCEPTION;
		else if (contains(b->text.data, b->text.len, ".java:") ||
		    contains(b->text.data, b->text.len, "(Native Method)") ||
		    contains(b->text.data, b->text.len, "(Unknown Source)") ||
		    starts(b->text.data, b->text.len, "java.") ||
		    starts(b->text.data + b->mlen, b->text.len - b->mlen,
		    "Exception in thread"))
			kind = K_JAVA;
		else
			kind = K_JS;
		break;
	case M_RUSTC:
		if (b->n > 1)
			kind = K_COMPILER;
		break;
	case M_UNITTEST:
		if (b->n == 1)
			kind = b->text.data[0] == 'F' ? K_SUMMARY : K_ERROR;
		break;
	default:
		break;
	}
	h = norm_hash(kind, b->text.data, b->text.len);
	if (d->ncl * 2 >= d->tabsz)
		cluster_grow(d);
	for (j = h & (d->tabsz - 1); d->tab[j] != 0;
	    j = (j + 1) & (d->tabsz - 1)) {
		if (d->cl[d->tab[j] - 1].hash == h &&
		    d->cl[d->tab[j] - 1].kind == kind) {
			c = &d->cl[d->tab[j] - 1];
			break;
		}
	}
	if (c == NULL) {
		d->cl = ofl_xrealloc(d->cl, (d->ncl + 1) * sizeof *d->cl);
		c = &d->cl[d->ncl];
		memset(c, 0, sizeof *c);
		c->hash = h;
		c->kind = kind;
		c->lines = ofl_xcalloc(b->n, sizeof *c->lines);
		memcpy(c->lines, b->lines, b->n * sizeof *c->lines);
		c->n = b->n;
		if (d->keep_all || d->kept + b->text.len <= TEXT_KEEP) {
			c->text = ofl_xmalloc(b->text.len);
			memcpy(c->text, b->text.data, b->text.len);
			c->textlen = b->text.len;
			d->kept += b->text.len;
		}
		d->ncl++;
		d->tab[j] = d->ncl;
	}
	c->count++;
	if (c->nocc == c->occcap) {
		c->occcap = c->occcap ? c->occcap * 2 : 2;
		c->occ = ofl_xrealloc(c->occ, c->occcap * 2 * sizeof *c->occ);
	}
	c->occ[c->nocc * 2] = b->lines[0].no;
	c->occ[c->nocc * 2 + 1] = b->lines[b->n - 1].no;
	c->nocc++;
}

static void
block_close(struct det *d)
{
	struct block	*b = &d->b;

	if (!b->open)
		return;
	b->n = b->keep;
	block_finish(d, b);
	b->open = 0;
	b->n = b->keep = 0;
	ofl_buf_reset(&b->text);
}

/* Open a block at a line; look back for lines that belong to it. */
static void
block_open(struct det *d, const struct start *st, const struct line *ln)
{
	struct block	*b = &d->b;
	struct rline	*r;
	size_t		 back = 0, k, c;
	const char	*t;
	char		 name[512];

	b->open = 1;
	b->kind = st->kind;
	b->mode = st->mode;
	b->state = 0;
	b->frames = 0;
	b->indent = st->indent;
	b->n = b->keep = 0;
	ofl_buf_reset(&b->text);
	b->mlen = st->margin <= sizeof b->margin ? st->margin : 0;
	memcpy(b->margin, ln->p, b->mlen);

	switch (st->mode) {
	case M_GO_TEST:
		/* From "=== RUN   Name" when it is near. */
		t = ln->p + st->pos + 10;
		c = 0;
		while (t + c < ln->p + ln->len && t[c] != ' ' && c + 1 <
		    sizeof name - 10)
			c++;
		memcpy(name, "=== RUN   ", 10);
		memcpy(name + 10, t, c);
		c += 10;
		for (k = 1; (r = ring_back(d, k)) != NULL && !r->trunc; k++) {
			size_t i = indent_of(r->text, r->len);

			if (r->len - i >= c && memcmp(r->text + i, name, c) ==
			    0 && (r->len - i == c || r->text[i + c] == '\r')) {
				back = k;
				break;
			}
		}
		break;
	case M_RUST:
		if ((r = ring_back(d, 1)) != NULL && !r->trunc &&
		    starts(r->text, r->len, "---- ") &&
		    contains(r->text, r->len, " stdout ----"))
			back = 1;
		break;
	case M_COMPILER:
		for (k = 1; (r = ring_back(d, k)) != NULL && !r->trunc; k++) {
			if (contains(r->text, r->len, ": In function") ||
			    contains(r->text, r->len, ": in function `") ||
			    contains(r->text, r->len, ": In member function") ||
			    contains(r->text, r->len, ": In instantiation") ||
			    contains(r->text, r->len, ": At global scope") ||
			    starts(r->text, r->len, "In file included from") ||
			    starts(r->text, r->len, "                 from "))
				back = k;
			else
				break;
		}
		break;
	case M_SANITIZER:
		if ((r = ring_back(d, 1)) != NULL && !r->trunc &&
		    all_of(r->text, r->len, '=', 10))
			back = 1;
		break;
	case M_JUNIT:
		if ((r = ring_back(d, 1)) != NULL && !r->trunc &&
		    contains(r->text, r->len, "<testcase"))
			back = 1;
		break;
	case M_EXC:
		/* Node: "file.js:3", the line, a caret, a blank line. */
		if ((r = ring_back(d, 1)) != NULL && r->len == 0 &&
		    (r = ring_back(d, 2)) != NULL && !r->trunc &&
		    r->len > 0 && all_of(r->text + indent_of(r->text, r->len),
		    r->len - indent_of(r->text, r->len), '^', 1) &&
		    (r = ring_back(d, 4)) != NULL && !r->trunc &&
		    r->len > 2 && isdigit((unsigned char)r->text[r->len - 1]) &&
		    memchr(r->text, ':', r->len) != NULL)
			back = 4;
		break;
	default:
		break;
	}
	for (k = back; k > 0; k--) {
		r = ring_back(d, k);
		block_add(b, r->no, r->off, r->text, r->len);
	}
	block_add(b, ln->no, ln->off, ln->p, ln->len);
	b->keep = b->n;
}

/* Does the line go on with the open block? */
static int
cont(struct det *d, const char *s, size_t n)
{
	struct block	*b = &d->b;
	const char	*c, *t;
	size_t		 cn, tn, k;

	c = after_margin(b, s, n, &cn);
	if (cn > 0 && c[cn - 1] == '\r')
		cn--;
	k = indent_of(c, cn);
	t = c + k;
	tn = cn - k;
	switch (b->mode) {
	case M_SINGLE:
		if (b->kind == K_ERROR || b->kind == K_TEST_UNEXPECTED) {
			if (starts(c, cn, TRACEBACK)) {
				b->mode = M_PY;
				b->kind = K_PY_TB;
				return C_ADD;
			}
			if (exc_header(c, cn)) {
				b->mode = M_EXC;
				return C_ADD;
			}
		}
		return C_END;
	case M_UNITTEST:
		if (b->state == 0 && all_of(c, cn, '-', 10)) {
			b->state = 1;
			return C_ADD;
		}
		if (b->state == 1 && starts(c, cn,
		    "Traceback (most recent call last):")) {
			b->mode = M_PY;
			b->state = 0;
			return C_ADD;
		}
		return C_END;
	case M_PY:
		switch (b->state) {
		case 0:
			if (cn == 0)
				return C_END;
			if (c[0] == ' ' || c[0] == '\t')
				return C_ADD;
			b->state = 1;
			return C_ADD;
		case 1:
			if (cn == 0)
				return C_TENT;
			if (starts(c, cn, "During handling of the above "
			    "exception") || starts(c, cn, "The above exception "
			    "was the direct cause")) {
				b->state = 2;
				return C_ADD;
			}
			return C_END;
		default:
			if (cn == 0)
				return C_TENT;
			if (starts(c, cn, TRACEBACK)) {
				b->state = 0;
				return C_ADD;
			}
			return C_END;
		}
	case M_EXC:
		if (k > 0 && starts(t, tn, "at ")) {
			b->frames++;
			return C_ADD;
		}
		if (starts(t, tn, "... ") && contains(t, tn, " more"))
			return C_ADD;
		if (starts(t, tn, "Caused by: ") ||
		    starts(t, tn, "Suppressed: ") ||
		    starts(t, tn, "[CIRCULAR"))
			return C_ADD;
		return C_END;
	case M_GO_PANIC:
		if (cn == 0)
			return C_TENT;
		if (starts(c, cn, "goroutine ") || c[0] == '\t' ||
		    starts(c, cn, "[signal ") || starts(c, cn, "created by ") ||
		    starts(c, cn, "runtime stack:") ||
		    starts(c, cn, "panic: ") ||
		    starts(c, cn, "...additional frames") ||
		    starts(c, cn, "fatal error:"))
			return C_ADD;
		if (starts(c, cn, "exit status "))
			return C_LAST;
		if ((isalpha((unsigned char)c[0]) || c[0] == '_') &&
		    c[cn - 1] == ')') {
			const char *paren = memchr(c, '(', cn);
			const char *sp = memchr(c, ' ', cn);

			if (paren != NULL && (sp == NULL || sp > paren))
				return C_ADD;
		}
		return C_END;
	case M_RUST:
		if (b->state == 0) {
			if (starts(c, cn, "note: "))
				return contains(c, cn, "RUST_BACKTRACE") ?
				    C_LAST : C_ADD;
			if (starts(c, cn, "stack backtrace:")) {
				b->state = 1;
				return C_ADD;
			}
			if (cn == 0 || b->n >= 40)
				return C_END;
			return C_ADD;
		}
		if (tn > 0 && isdigit((unsigned char)t[0])) {
			while (tn > 0 && isdigit((unsigned char)t[0])) {
				t++;
				tn--;
			}
			return tn > 0 && t[0] == ':' ? C_ADD : C_END;
		}
		if (k > 0 && starts(t, tn, "at "))
			return C_ADD;
		if (starts(c, cn, "note: "))
			return C_LAST;
		return C_END;
	case M_COMPILER:
	case M_RUSTC:
		if (cn == 0)
			return C_END;
		if (k > 0 || c[0] == '|')
			return C_ADD;
		if (isdigit((unsigned char)c[0])) {
			while (tn > 0 && isdigit((unsigned char)t[0])) {
				t++;
				tn--;
			}
			if (starts(t, tn, " |") || starts(t, tn, "|"))
				return C_ADD;
		}
		if (starts(c, cn, "note: ") || starts(c, cn, "help: ") ||
		    (b->mode == M_COMPILER && (contains(c, cn, ": note: ") ||
		    contains(c, cn, ": required from "))))
			return C_ADD;
		return C_END;
	case M_SANITIZER:
		if (b->n >= 1000)
			return C_END;
		if (contains(c, cn, "SUMMARY: "))
			return C_LAST;
		if (starts(c, cn, "==") && contains(c, cn, "==ABORTING"))
			return C_LAST;
		return C_ADD;
	case M_UBSAN:
		if (tn > 1 && t[0] == '#' && isdigit((unsigned char)t[1]))
			return C_ADD;
		if (contains(c, cn, "SUMMARY: UndefinedBehaviorSanitizer"))
			return C_LAST;
		return C_END;
	case M_GO_TEST:
		k = indent_of(s, n);
		if (n == 0 || k == n)
			return C_END;
		return k > b->indent ? C_ADD : C_END;
	case M_JEST:
		k = indent_of(s, n);
		if (k == n)
			return C_TENT;
		return k > b->indent ? C_ADD : C_END;
	case M_VITEST:
		if (starts(c, cn, "\xe2\x8e\xaf"))
			return C_LAST;
		if (b->n >= 200 || starts(t, tn, "FAIL "))
			return C_END;
		return C_ADD;
	case M_TAP:
		k = indent_of(s, n);
		if (k == n)
			return C_END;
		if (k > b->indent)
			return C_ADD;
		if (k == b->indent && s[k] == '#' &&
		    !starts(s + k, n - k, "# Subtest"))
			return C_ADD;
		return C_END;
	case M_JUNIT:
		if (contains(c, cn, "</failure>") ||
		    contains(c, cn, "</error>"))
			return C_LAST;
		return b->n >= 300 ? C_END : C_ADD;
	default:
		return C_END;
	}
}

/* Fields of a go test -json event: "Key":"value" (raw, escaped). */
static int
json_field(const char *s, size_t n, const char *key, const char **v,
    size_t *vn)
{
	char		 pat[32];
	const char	*p, *e, *end = s + n;
	int		 k;

	k = snprintf(pat, sizeof pat, "\"%s\":\"", key);
	if ((p = memmem(s, n, pat, (size_t)k)) == NULL)
		return 0;
	p += k;
	for (e = p; e < end && *e != '"'; e++)
		if (*e == '\\')
			e++;
	if (e >= end)
		return 0;
	*v = p;
	*vn = (size_t)(e - p);
	return 1;
}

static struct gotest *
gt_find(struct det *d, const char *key, size_t klen, int create)
{
	size_t	i;

	for (i = d->ngt; i > 0; i--)
		if (d->gt[i - 1].keylen == klen &&
		    memcmp(d->gt[i - 1].key, key, klen) == 0)
			return &d->gt[i - 1];
	if (!create)
		return NULL;
	d->gt = ofl_xrealloc(d->gt, (d->ngt + 1) * sizeof *d->gt);
	memset(&d->gt[d->ngt], 0, sizeof d->gt[0]);
	d->gt[d->ngt].key = ofl_xmalloc(klen + 1);
	memcpy(d->gt[d->ngt].key, key, klen);
	d->gt[d->ngt].key[klen] = '\0';
	d->gt[d->ngt].keylen = klen;
	return &d->gt[d->ngt++];
}

static void
gt_drop(struct det *d, struct gotest *g)
{
	size_t	i;

	for (i = 0; i < g->n; i++)
		free(g->lines[i].text);
	free(g->key);
	i = (size_t)(g - d->gt);
	memmove(g, g + 1, (d->ngt - i - 1) * sizeof *g);
	d->ngt--;
}

/* A go test -json event; 0 if the line is not one. */
static int
gojson_line(struct det *d, const struct line *ln)
{
	const char	*act, *pkg, *test, *out;
	size_t		 actn, pkgn, testn = 0, outn, i;
	char		 key[1024];
	size_t		 klen;
	struct gotest	*g;
	struct gline	*gl;
	struct block	 b;

	if (ln->len < 12 || ln->p[0] != '{' ||
	    !json_field(ln->p, ln->len, "Action", &act, &actn))
		return 0;
	if (!json_field(ln->p, ln->len, "Package", &pkg, &pkgn) &&
	    !json_field(ln->p, ln->len, "ImportPath", &pkg, &pkgn))
	{
		pkg = "";
		pkgn = 0;
	}
	if (!json_field(ln->p, ln->len, "Test", &test, &testn))
		test = "";
	klen = pkgn + 1 + testn < sizeof key ? pkgn + 1 + testn : 0;
	if (klen == 0)
		return 1;
	memcpy(key, pkg, pkgn);
	key[pkgn] = '\0';
	memcpy(key + pkgn + 1, test, testn);
	if ((actn == 6 && memcmp(act, "output", 6) == 0) ||
	    (actn == 12 && memcmp(act, "build-output", 12) == 0)) {
		if (json_field(ln->p, ln->len, "Output", &out, &outn) &&
		    (starts(out, outn, "=== RUN") ||
		    starts(out, outn, "=== PAUSE") ||
		    starts(out, outn, "=== CONT") ||
		    starts(out, outn, "=== NAME")))
			return 1;
		g = gt_find(d, key, klen, 1);
		if (g->n == GT_LINES) {
			free(g->lines[0].text);
			memmove(g->lines, g->lines + 1,
			    (GT_LINES - 1) * sizeof g->lines[0]);
			g->n--;
		}
		gl = &g->lines[g->n++];
		gl->no = ln->no;
		gl->off = ln->off;
		gl->len = ln->len;
		gl->text = ofl_xmalloc(ln->len + 1);
		memcpy(gl->text, ln->p, ln->len);
		return 1;
	}
	if ((actn == 4 && (memcmp(act, "pass", 4) == 0 ||
	    memcmp(act, "skip", 4) == 0))) {
		if ((g = gt_find(d, key, klen, 0)) != NULL)
			gt_drop(d, g);
		return 1;
	}
	if ((actn == 4 && memcmp(act, "fail", 4) == 0) ||
	    (actn == 10 && memcmp(act, "build-fail", 10) == 0)) {
		memset(&b, 0, sizeof b);
		ofl_buf_init(&b.text);
		b.kind = K_GO_TEST;
		b.mode = M_GO_TEST;
		if ((g = gt_find(d, key, klen, 0)) != NULL) {
			for (i = 0; i < g->n; i++)
				block_add(&b, g->lines[i].no, g->lines[i].off,
				    g->lines[i].text, g->lines[i].len);
			gt_drop(d, g);
		}
		block_add(&b, ln->no, ln->off, ln->p, ln->len);
		block_finish(d, &b);
		free(b.lines);
		ofl_buf_free(&b.text);
		return 1;
	}
	return 1;
}

/* One line through the detector. */
static void
det_line(struct det *d, const struct line *ln)
{
	struct block	*b = &d->b;
	struct start	 st;
	const char	*s = ln->p;
	size_t		 n = ln->len, k;
	int		 r;

	if (ln->cont)
		return;
	if (ln->more) {
		/* Too long to be part of a block. */
		block_close(d);
		ring_push(d, ln);
		return;
	}
	if (d->pytest) {
		k = n;
		while (k > 0 && (s[k - 1] == '\r' || s[k - 1] == ' '))
			k--;
		if (k >= 7 && memcmp(s, "___", 3) == 0 &&
		    memcmp(s + k - 3, "___", 3) == 0) {
			block_close(d);
			memset(&st, 0, sizeof st);
			set_start(&st, K_PYTEST, M_PYTEST, 0, 0);
			block_open(d, &st, ln);
			goto done;
		}
		if (pytest_section(s, n, NULL)) {
			block_close(d);
			d->pytest = 0;
		} else {
			if (b->open && !block_full(b, n)) {
				block_add(b, ln->no, ln->off, s, n);
				b->keep = b->n;
			}
			goto done;
		}
	}
	if (d->gojson || (n > 12 && s[0] == '{' && s[1] == '"' &&
	    memmem(s, n < 200 ? n : 200, "\"Action\":\"", 10) != NULL)) {
		if (gojson_line(d, ln)) {
			d->gojson = 1;
			goto done;
		}
	}
	if (b->open) {
		r = block_full(b, n) ? C_END : cont(d, s, n);
		if (r != C_END) {
			block_add(b, ln->no, ln->off, s, n);
			if (r != C_TENT)
				b->keep = b->n;
			if (r == C_LAST)
				block_close(d);
			goto done;
		}
		block_close(d);
	}
	if (find_start(s, n, &st)) {
		if (st.mode == M_PYTEST) {
			d->pytest = 1;
			goto done;
		}
		block_open(d, &st, ln);
		if (st.mode == M_JUNIT && (contains(s, n, "</failure>") ||
		    contains(s, n, "/>")))
			block_close(d);
	}
done:
	ring_push(d, ln);
}

/* A cluster's text: kept, or read again. */
static int
cluster_text(struct det *d, struct cluster *c, struct ofl_buf *out)
{
	struct ofl_reader	*r = d->x->src.r;
	char			 tmp[65536];
	size_t			 i, want;
	ssize_t			 k;

	ofl_buf_reset(out);
	if (c->text != NULL) {
		ofl_buf_add(out, c->text, c->textlen);
		return 0;
	}
	for (i = 0; i < c->n; i++) {
		c->lines[i].toff = out->len;
		if (ofl_reader_seek(r, c->lines[i].off) == -1)
			return -1;
		for (want = c->lines[i].len; want > 0; want -= (size_t)k) {
			k = ofl_reader_read(r, tmp, want < sizeof tmp ? want :
			    sizeof tmp);
			if (k <= 0) {
				if (k == 0)
					ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: "
					    "content ends early", d->x->id);
				return -1;
			}
			ofl_buf_add(out, tmp, (size_t)k);
		}
		ofl_buf_addc(out, '\n');
	}
	return 0;
}

static int
cluster_cmp(const void *a, const void *b)
{
	const struct cluster	*x = a, *y = b;

	if (kinds[x->kind].score != kinds[y->kind].score)
		return kinds[y->kind].score - kinds[x->kind].score;
	if (x->occ[0] != y->occ[0])
		return x->occ[0] < y->occ[0] ? -1 : 1;
	return 0;
}

/* "[kind xN] lines A-B, C-D" */
static void
cluster_header(struct ex *x, struct cluster *c, struct ofl_buf *b)
{
	size_t	i;

	ofl_buf_addf(b, "[%s", kinds[c->kind].name);
	if (c->count > 1)
		ofl_buf_addf(b, " x%" PRIu64, c->count);
	ofl_buf_adds(b, "] ");
	ofl_buf_adds(b, c->nocc > 1 || c->occ[0] != c->occ[1] ? "lines " :
	    "line ");
	for (i = 0; i < c->nocc && i < HEAD_OCC; i++) {
		ofl_buf_addf(b, "%s%" PRIu64, i > 0 ? ", " : "", c->occ[2 * i]);
		if (c->occ[2 * i + 1] != c->occ[2 * i])
			ofl_buf_addf(b, "-%" PRIu64, c->occ[2 * i + 1]);
	}
	if (c->nocc > HEAD_OCC)
		ofl_buf_addf(b, " and %zu more", c->nocc - HEAD_OCC);
	ofl_buf_addc(b, '\n');
	(void)x;
}

static void
cluster_json(struct ex *x, struct cluster *c, const char *text, size_t len,
    int cut, struct ofl_buf *b)
{
	size_t	i;

	ofl_buf_reset(b);
	ofl_buf_adds(b, "{\"id\":");
	json_str(b, x->id, strlen(x->id));
	ofl_buf_adds(b, ",\"kind\":");
	json_str(b, kinds[c->kind].name, strlen(kinds[c->kind].name));
	ofl_buf_addf(b, ",\"count\":%" PRIu64 ",\"lines\":[%" PRIu64 ",%"
	    PRIu64 "],\"occurrences\":[", c->count, c->occ[0], c->occ[1]);
	for (i = 0; i < c->nocc; i++)
		ofl_buf_addf(b, "%s[%" PRIu64 ",%" PRIu64 "]", i ? "," : "",
		    c->occ[2 * i], c->occ[2 * i + 1]);
	ofl_buf_adds(b, "],\"text\":");
	text = mask_text(x, text, len, &len);
	json_str(b, text, len);
	if (cut)
		ofl_buf_adds(b, ",\"cut\":true");
	ofl_buf_adds(b, "}\n");
}

/* Mark the lines of a block from line index i on as not shown. */
static int
mark_block_rest(struct ex *x, struct cluster *c, size_t i)
{
	struct rspan	*rs;
	size_t		 n = 0;
	int		 rv;

	if (i >= c->n)
		return 0;
	rs = ofl_xcalloc(c->n - i, sizeof *rs);
	for (; i < c->n; i++) {
		if (n > 0 && rs[n - 1].b + 1 == c->lines[i].no) {
			rs[n - 1].b = c->lines[i].no;
			continue;
		}
		rs[n].unit = OFL_SPAN_LINES;
		rs[n].a = rs[n].b = c->lines[i].no;
		n++;
	}
	rv = mark_rest(x, rs, n, 0, rs[0].a, "");
	free(rs);
	return rv;
}

/* Mark clusters from index i on (of n) as not shown. */
static int
mark_clusters(struct ex *x, struct cluster *cl, size_t i, size_t n,
    uint64_t skip)
{
	struct ofl_buf	what, args;
	size_t		j, k, cnt[sizeof kinds / sizeof kinds[0]];
	int		rv, first = 1;

	if (i >= n)
		return 0;
	memset(cnt, 0, sizeof cnt);
	for (j = i; j < n; j++)
		cnt[cl[j].kind]++;
	ofl_buf_init(&what);
	ofl_buf_init(&args);
	ofl_buf_addf(&what, "%zu more error block%s (", n - i,
	    n - i > 1 ? "s" : "");
	for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		if (cnt[k] == 0)
			continue;
		ofl_buf_addf(&what, "%s%zu %s", first ? "" : ", ", cnt[k],
		    kinds[k].name);
		first = 0;
	}
	ofl_buf_addf(&what, ") of ofl:%s", x->id);
	ofl_buf_adds(&args, " --errors");
	if (x->o->nspans > 0 && x->nscope > 0) {
		struct ofl_buf	w2;

		/* Keep the scope the blocks were found in. */
		ofl_buf_init(&w2);
		spans_text(&w2, &args, x->scope, x->nscope);
		ofl_buf_free(&w2);
	}
	ofl_buf_addf(&args, " --skip %" PRIu64, skip + (uint64_t)i);
	rv = mark(x, ofl_buf_str(&what), ofl_buf_str(&args));
	ofl_buf_free(&what);
	ofl_buf_free(&args);
	return rv;
}

/* Print the clusters, most relevant first, within the budget. */
static int
errors_print(struct det *d)
{
	struct ex		*x = d->x;
	const struct ofl_extract *o = x->o;
	struct ofl_buf		 text, hdr;
	struct cluster		*c;
	size_t			 i, j, end, len = 0, over;
	int			 r, rv = -1;

	ofl_buf_init(&text);
	ofl_buf_init(&hdr);
	qsort(d->cl, d->ncl, sizeof *d->cl, cluster_cmp);
	end = d->ncl;
	if (o->limit > 0 && o->skip + o->limit < end)
		end = (size_t)(o->skip + o->limit);
	for (i = (size_t)o->skip; i < end; i++) {
		c = &d->cl[i];
		if (cluster_text(d, c, &text) == -1)
			goto out;
		if (o->json) {
			cluster_json(x, c, text.data, text.len - 1, 0,
			    &x->tmp);
			if (out_fits(x, x->tmp.len)) {
				if (out_write(x, x->tmp.data, x->tmp.len) == -1)
					goto out;
				x->printed = 1;
				continue;
			}
			if (x->printed)
				break;
			/* The first block alone is over the budget. */
			for (j = c->n - 1; j >= 1; j--) {
				cluster_json(x, c, text.data,
				    c->lines[j].toff - 1, 1, &x->tmp);
				if (out_fits(x, x->tmp.len))
					break;
			}
			if (j == 0) {
				len = c->lines[0].len;
				for (;;) {
					cluster_json(x, c, text.data, len, 1,
					    &x->tmp);
					if (out_fits(x, x->tmp.len) || len == 0)
						break;
					over = x->tmp.len - (size_t)(x->max -
					    x->used);
					len = over >= len ? 0 :
					    utf8_cut(text.data, len - over);
				}
			}
			if (out_write(x, x->tmp.data, x->tmp.len) == -1)
				goto out;
			x->printed = 1;
			if (j == 0 && len < c->lines[0].len) {
				struct ofl_buf	w, a;

				ofl_buf_init(&w);
				ofl_buf_init(&a);
				ofl_buf_addf(&w, "bytes %" PRIu64 "-%" PRIu64
				    " of ofl:%s (the rest of line %" PRIu64 ")",
				    c->lines[0].off + len, c->lines[0].off +
				    c->lines[0].len - 1, x->id, c->lines[0].no);
				ofl_buf_addf(&a, " -b %" PRIu64 "-%" PRIu64,
				    c->lines[0].off + len, c->lines[0].off +
				    c->lines[0].len - 1);
				r = mark(x, ofl_buf_str(&w), ofl_buf_str(&a));
				ofl_buf_free(&w);
				ofl_buf_free(&a);
				if (r == -1)
					goto out;
			}
			if (mark_block_rest(x, c, j == 0 ? 1 : j) == -1)
				goto out;
			i++;
			break;
		}
		ofl_buf_reset(&hdr);
		cluster_header(x, c, &hdr);
		line_unit(x, &x->tmp, c->lines[0].no, "", text.data,
		    c->lines[0].len, -1, 0);
		if (!out_fits(x, hdr.len + x->tmp.len) && x->printed)
			break;
		if (out_write(x, hdr.data, hdr.len) == -1)
			goto out;
		for (j = 0; j < c->n; j++) {
			r = emit_line(x, c->lines[j].no, "", text.data +
			    c->lines[j].toff, c->lines[j].len, -1);
			if (r == -1)
				goto out;
			if (r == 1)
				continue;
			if (!x->printed) {
				struct lr	lr;
				struct line	ln;

				/* The first line alone is over the budget. */
				memset(&lr, 0, sizeof lr);
				memset(&ln, 0, sizeof ln);
				ln.p = text.data + c->lines[j].toff;
				ln.len = c->lines[j].len;
				ln.no = c->lines[j].no;
				ln.off = c->lines[j].off;
				if (emit_partial(x, &lr, &ln, "", -1) == -1)
					goto out;
				j++;
			}
			if (mark_block_rest(x, c, j) == -1)
				goto out;
			break;
		}
		x->printed = 1;
		if (j < c->n) {
			i++;
			break;
		}
	}
	if (i < d->ncl && mark_clusters(x, d->cl, i, d->ncl, 0) == -1)
		goto out;
	rv = end > (size_t)o->skip ? 0 : 1;
out:
	ofl_buf_free(&text);
	ofl_buf_free(&hdr);
	return rv;
}

static int
run_errors(struct ex *x)
{
	struct det	 d;
	struct rspan	*rs = NULL;
	struct lr	 lr;
	struct line	 ln;
	size_t		 n = 0, i;
	int		 r = 0, rv = -1;

	wm_init();
	memset(&d, 0, sizeof d);
	memset(&lr, 0, sizeof lr);
	d.x = x;
	d.ring = ofl_xcalloc(RING_LINES, sizeof *d.ring);
	d.keep_all = x->src.member != NULL;
	ofl_buf_init(&d.b.text);
	cluster_grow(&d);
	if (resolve(x, &n, &rs, 1) == -1)
		goto out;
	x->scope = rs;
	x->nscope = n;
	for (i = 0; i < n; i++) {
		if (lr_init(&lr, &x->src, rs[i].a, rs[i].b, LINE_MAX_REGEX) ==
		    -1)
			goto out;
		d.rn = 0;
		d.pytest = 0;
		while ((r = lr_next(&lr, &ln)) > 0)
			det_line(&d, &ln);
		lr_free(&lr);
		block_close(&d);
		if (r == -1)
			goto out;
	}
	if (d.ncl == 0) {
		rv = 1;
		goto out;
	}
	rv = errors_print(&d);
out:
	lr_free(&lr);
	for (i = 0; i < d.ncl; i++) {
		free(d.cl[i].lines);
		free(d.cl[i].text);
		free(d.cl[i].occ);
	}
	while (d.ngt > 0)
		gt_drop(&d, &d.gt[d.ngt - 1]);
	free(d.gt);
	free(d.cl);
	free(d.tab);
	free(d.ring);
	free(d.b.lines);
	ofl_buf_free(&d.b.text);
	return rv;
}

/*
 * jq filters, through libjq.  A filter runs with an empty environment
 * ($ENV and env are {}; ~/.jq is not read) and no module search path;
 * import and include are refused before compiling, since a module's
 * "search" metadata would otherwise reach the file system.
 */

struct jqin {
	struct ex	*x;
	int		 ndjson;	/* a value per line */
	int		 lines;		/* feed the scope's lines */
	struct lr	 lr;
	int		 lr_open;
	size_t		 span;
	jv_parser	*parser;
	char		*buf;
	int		 eof;
	uint64_t	 line;		/* of the last value */
	uint64_t	 bad;		/* lines that are not JSON */
	uint64_t	 bad_first;
	uint64_t	 values;	/* parsed so far */
	int		 first;		/* first byte not blank, or 0 */
	int		 failed;
	char		 errmsg[512];
};

struct jqrun {
	struct ex	*x;
	jq_state	*jq;
	jq_state	*jqp;		/* path(F) for --json, or NULL */
	struct jqin	 in;
	int		 flags;		/* jv_dump flags */
	uint64_t	 results;	/* all, --skip included */
	uint64_t	 first_hidden;	/* the first result not shown */
	int		 cut;
	uint64_t	 errors;
	char		 compile_msg[256];
};

static int
jq_word(const char *s, const char *w)
{
	size_t	n = strlen(w);

	return strncmp(s, w, n) == 0 && !is_word(s[n]);
}

static const char *
jq_skip_space(const char *s)
{
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (*s != '#')
			return s;
		while (*s != '\0' && *s != '\n')
			s++;
	}
}

/*
 * A module directive, import or include: the word a filter starts with,
 * or NULL.  jq's grammar allows these only at the very start of a program
 * (module first, then imports), so a filter that does not begin with one
 * of the three words cannot hold any, and the word is looked for only
 * there, after blanks and comments: a string or a key that merely says
 * "import" elsewhere is left alone.  A module directive is refused too,
 * as nothing can follow it but imports or an expression that does
 * without.
 */
static const char *
jq_directive(const char *f)
{
	static const char	*words[] = { "module", "import", "include",
				    NULL };
	const char		*s = jq_skip_space(f);
	int			 i;

	for (i = 0; words[i] != NULL; i++)
		if (jq_word(s, words[i]))
			return words[i];
	return NULL;
}

static int
jq_refuse(const char *f)
{
	const char	*w;

	if ((w = jq_directive(f)) == NULL)
		return 0;
	ofl_seterr(OFL_EXIT_USAGE, "jq: error: %s is not allowed: filters run "
	    "without access to the file system (modules, import and include "
	    "are refused)", w);
	return -1;
}

static void
jq_err_cb(void *arg, jv msg)
{
	struct jqrun	*j = arg;
	const char	*s;

	msg = jq_format_error(msg);
	if (jv_get_kind(msg) == JV_KIND_STRING) {
		s = jv_string_value(msg);
		/* The count at the end becomes the error message. */
		if (strncmp(s, "jq: ", 4) == 0 && strstr(s, " compile error") !=
		    NULL && strchr(s, '\n') == NULL)
			snprintf(j->compile_msg, sizeof j->compile_msg, "%s",
			    s);
		else
			warnf(j->x, "%s", s);
	}
	jv_free(msg);
}

static void
jq_quiet_cb(void *arg, jv msg)
{
	(void)arg;
	jv_free(msg);
}

/* The next chunk of bytes of the scope; 0 at the end. */
static ssize_t
jqin_chunk(struct jqin *in)
{
	struct ex	*x = in->x;
	struct line	 ln;
	size_t		 k;
	int		 r;

	if (!in->lines)
		return src_read(&x->src, in->buf, READ_SIZE);
	/* Lines of the -n spans, each with its newline. */
	k = 0;
	for (;;) {
		if (!in->lr_open) {
			if (in->span >= x->nscope)
				return (ssize_t)k;
			if (lr_init(&in->lr, &x->src, x->scope[in->span].a,
			    x->scope[in->span].b, PIECE_MAX) == -1)
				return -1;
			in->lr_open = 1;
		}
		if ((r = lr_next(&in->lr, &ln)) == -1)
			return -1;
		if (r == 0) {
			lr_free(&in->lr);
			in->lr_open = 0;
			in->span++;
			continue;
		}
		memcpy(in->buf, ln.p, ln.len);
		k = ln.len;
		if (!ln.more)
			in->buf[k++] = '\n';
		return (ssize_t)k;
	}
}

static int
blank(const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return 0;
	return 1;
}

/*
 * A filter run on an artifact that was never JSON (CSV, a log, text):
 * the parser's complaint about some column of line 1 does not help, so
 * say what the artifact is and what reads it.  0 for JSON kinds, and
 * for archive members (their kind is not recorded).
 */
static int
not_json(struct ex *x, char *msg, size_t size)
{
	int	kind;

	if (x->src.member != NULL)
		return 0;
	kind = ofl_reader_meta(x->src.r)->kind;
	if (kind == OFL_KIND_JSON || kind == OFL_KIND_NDJSON)
		return 0;
	snprintf(msg, size, "ofl:%s is %s, not JSON: a jq filter cannot "
	    "read it; try -n A-B for lines, -e REGEX for matching lines%s%s",
	    x->id, ofl_kind_name(kind), kind == OFL_KIND_CSV ||
	    kind == OFL_KIND_TSV ? ", or ofl-schema " : "",
	    kind == OFL_KIND_CSV || kind == OFL_KIND_TSV ? x->id : "");
	return 1;
}

/* The next input value; invalid at the end or on a parse error. */
static jv
jqin_next(struct jqin *in)
{
	struct ex	*x = in->x;
	struct line	 ln;
	ssize_t		 n;
	size_t		 i;
	jv		 v;
	int		 r;

	if (in->failed)
		return jv_invalid();
	if (in->ndjson) {
		for (;;) {
			if (!in->lr_open) {
				if (in->span >= x->nscope)
					return jv_invalid();
				if (lr_init(&in->lr, &x->src,
				    x->scope[in->span].a, x->scope[in->span].b,
				    LINE_MAX_REGEX) == -1)
					goto fail;
				in->lr_open = 1;
			}
			if ((r = lr_next(&in->lr, &ln)) == -1)
				goto fail;
			if (r == 0) {
				lr_free(&in->lr);
				in->lr_open = 0;
				in->span++;
				continue;
			}
			if (ln.cont || blank(ln.p, ln.len))
				continue;
			if (ln.more || ln.len > INT32_MAX)
				v = jv_invalid();
			else
				v = jv_parse_sized(ln.p, (int)ln.len);
			if (!jv_is_valid(v)) {
				jv_free(v);
				if (in->bad++ == 0)
					in->bad_first = ln.no;
				continue;
			}
			in->line = ln.no;
			return v;
		}
	}
	for (;;) {
		if (jv_parser_remaining(in->parser) == 0) {
			if (!in->eof) {
				if ((n = jqin_chunk(in)) == -1)
					goto fail;
				if (n == 0)
					in->eof = 1;
				for (i = 0; in->first == 0 && i < (size_t)n;
				    i++)
					if (!isspace((unsigned char)in->buf[i]))
						in->first =
						    (unsigned char)in->buf[i];
				jv_parser_set_buf(in->parser, in->buf, (int)n,
				    n > 0);
			} else
				jv_parser_set_buf(in->parser, "", 0, 0);
		}
		v = jv_parser_next(in->parser);
		if (jv_is_valid(v)) {
			in->values++;
			return v;
		}
		if (jv_invalid_has_msg(jv_copy(v))) {
			jv msg = jv_invalid_get_msg(v);

			/* Broken JSON gets the parser's word for it. */
			if (in->values > 0 || in->first == '{' ||
			    in->first == '[' || !not_json(x, in->errmsg,
			    sizeof in->errmsg))
				snprintf(in->errmsg, sizeof in->errmsg,
				    "ofl:%s: parse error: %s", x->id,
				    jv_get_kind(msg) == JV_KIND_STRING ?
				    jv_string_value(msg) : "bad JSON");
			jv_free(msg);
			in->failed = 1;
			return jv_invalid();
		}
		jv_free(v);
		if (in->eof && jv_parser_remaining(in->parser) == 0)
			return jv_invalid();
	}
fail:
	snprintf(in->errmsg, sizeof in->errmsg, "%s", ofl_errmsg());
	in->failed = 1;
	return jv_invalid();
}

static jv
jqin_cb(jq_state *jq, void *arg)
{
	(void)jq;
	return jqin_next(arg);
}

/* ".items[3].metadata" for a jq path array. */
static void
jq_path_str(struct ofl_buf *b, jv path)
{
	int	i, n = jv_array_length(jv_copy(path));
	jv	k;

	if (n == 0)
		ofl_buf_addc(b, '.');
	for (i = 0; i < n; i++) {
		k = jv_array_get(jv_copy(path), i);
		if (jv_get_kind(k) == JV_KIND_NUMBER)
			ofl_buf_addf(b, "[%.17g]", jv_number_value(k));
		else if (jv_get_kind(k) == JV_KIND_STRING) {
			const char *s = jv_string_value(k);
			size_t len = (size_t)jv_string_length_bytes(jv_copy(k));
			size_t m;

			for (m = 0; m < len && (isalpha((unsigned char)s[m]) ||
			    s[m] == '_' || (m > 0 &&
			    isdigit((unsigned char)s[m]))); m++)
				;
			if (len > 0 && m == len)
				ofl_buf_addf(b, ".%s", s);
			else {
				ofl_buf_adds(b, "[");
				json_str(b, s, len);
				ofl_buf_adds(b, "]");
			}
		} else if (jv_get_kind(k) == JV_KIND_OBJECT) {
			/* A slice: {"start":a,"end":b}. */
			jv a = jv_object_get(jv_copy(k), jv_string("start"));
			jv e = jv_object_get(jv_copy(k), jv_string("end"));

			ofl_buf_addc(b, '[');
			if (jv_get_kind(a) == JV_KIND_NUMBER)
				ofl_buf_addf(b, "%.17g", jv_number_value(a));
			ofl_buf_addc(b, ':');
			if (jv_get_kind(e) == JV_KIND_NUMBER)
				ofl_buf_addf(b, "%.17g", jv_number_value(e));
			ofl_buf_addc(b, ']');
			jv_free(a);
			jv_free(e);
		}
		jv_free(k);
	}
	jv_free(path);
}

/* The filter's own arguments, for the commands in marks. */
static void
jq_args(struct ex *x, struct ofl_buf *b, uint64_t skip)
{
	const struct ofl_extract	*o = x->o;
	struct ofl_buf			 w;
	size_t				 i;

	if (o->raw)
		ofl_buf_adds(b, " -r");
	if (o->compact)
		ofl_buf_adds(b, " -c");
	for (i = 0; i < o->nargs; i++) {
		ofl_buf_adds(b, o->args[i].json ? " --argjson" : " --arg");
		cmd_word(b, o->args[i].name);
		cmd_word(b, o->args[i].value);
	}
	if (o->nspans > 0 && x->nscope > 0) {
		ofl_buf_init(&w);
		spans_text(&w, b, x->scope, x->nscope);
		ofl_buf_free(&w);
	}
	if (skip > 0)
		ofl_buf_addf(b, " --skip %" PRIu64, skip);
	if (o->limit > 0)
		ofl_buf_addf(b, " --limit %" PRIu64, o->limit);
	cmd_word(b, o->filter);
}

/* One result of the filter.  -1 on a write error. */
static int
jq_result(struct jqrun *j, jv v, jv path)
{
	struct ex			*x = j->x;
	const struct ofl_extract	*o = x->o;
	struct ofl_buf			*b = &x->tmp;
	struct ofl_buf			 w, a;
	struct ofl_extract		 one;
	struct ex			 y;
	uint64_t			 no;
	size_t				 k, over;
	jv				 d;
	int				 rv = 0;

	no = ++j->results;
	if (no <= o->skip)
		goto out;
	if (j->cut || (o->limit > 0 && no > o->skip + o->limit)) {
		if (!j->cut)
			j->first_hidden = no;
		j->cut = 1;
		goto out;
	}
	ofl_buf_reset(b);
	if (o->json) {
		ofl_buf_adds(b, "{\"id\":");
		json_str(b, x->id, strlen(x->id));
		if (j->in.ndjson)
			ofl_buf_addf(b, ",\"line\":%" PRIu64, j->in.line);
		if (jv_is_valid(path)) {
			ofl_buf_adds(b, ",\"path\":");
			ofl_buf_init(&w);
			jq_path_str(&w, jv_copy(path));
			json_str(b, w.data, w.len);
			ofl_buf_free(&w);
		}
		d = jv_dump_string(jv_copy(v), 0);
		ofl_buf_adds(b, ",\"value\":");
		ofl_buf_add(b, jv_string_value(d),
		    (size_t)jv_string_length_bytes(jv_copy(d)));
		jv_free(d);
		ofl_buf_adds(b, "}\n");
	} else if (o->raw && jv_get_kind(v) == JV_KIND_STRING) {
		ofl_buf_add(b, jv_string_value(v),
		    (size_t)jv_string_length_bytes(jv_copy(v)));
		ofl_buf_addc(b, '\n');
	} else {
		d = jv_dump_string(jv_copy(v), j->flags);
		ofl_buf_add(b, jv_string_value(d),
		    (size_t)jv_string_length_bytes(jv_copy(d)));
		ofl_buf_addc(b, '\n');
		jv_free(d);
	}
	if (x->red != NULL) {
		size_t		 mlen;
		const char	*m = mask_text(x, b->data, b->len, &mlen);

		if (m != b->data) {
			ofl_buf_reset(b);
			ofl_buf_add(b, x->rbuf.data, mlen);
		}
	}
	if (out_fits(x, b->len)) {
		rv = out_write(x, b->data, b->len);
		x->printed = 1;
		goto out;
	}
	j->cut = 1;
	j->first_hidden = no;
	if (x->printed || o->json)
		goto out;
	/* The first result alone is over the budget: print its head. */
	over = b->len - (size_t)(x->max - x->used);
	k = b->len - over;
	while (k > 0 && b->data[k - 1] != '\n')
		k--;
	if (k == 0)
		k = utf8_cut(b->data, b->len - over);
	if (out_write(x, b->data, k) == -1) {
		rv = -1;
		goto out;
	}
	x->printed = 1;
	j->first_hidden = no + 1;
	/* The command that prints exactly this result, whole. */
	one = *o;
	one.limit = 1;
	y = *x;
	y.o = &one;
	y.max = 0;
	ofl_buf_init(&w);
	ofl_buf_init(&a);
	ofl_buf_addf(&w, "the rest of result %" PRIu64 " (%zu of its %zu "
	    "bytes)", no, b->len - k, b->len);
	jq_args(&y, &a, no - 1);
	rv = mark(&y, ofl_buf_str(&w), ofl_buf_str(&a));
	x->lastnl = y.lastnl;
	ofl_buf_free(&w);
	ofl_buf_free(&a);
out:
	jv_free(v);
	jv_free(path);
	return rv;
}

/* Run the filter on one input value. */
static int
jq_one(struct jqrun *j, jv v)
{
	struct ex	*x = j->x;
	jv		 r, outs, e;
	int		 i, n, failed = 0;
	char		 where[64];

	if (j->in.ndjson)
		snprintf(where, sizeof where, "ofl:%s line %" PRIu64, x->id,
		    j->in.line);
	else
		snprintf(where, sizeof where, "ofl:%s", x->id);
	if (j->jqp != NULL) {
		/* path(F) as $p | [$p, getpath($p)], all or nothing. */
		outs = jv_array();
		jq_start(j->jqp, jv_copy(v), 0);
		while (jv_is_valid(r = jq_next(j->jqp)))
			outs = jv_array_append(outs, r);
		if (jv_invalid_has_msg(jv_copy(r)) || jq_halted(j->jqp))
			failed = 1;
		jv_free(r);
		if (!failed) {
			jv_free(v);
			n = jv_array_length(jv_copy(outs));
			for (i = 0; i < n; i++) {
				e = jv_array_get(jv_copy(outs), i);
				if (jq_result(j, jv_array_get(jv_copy(e), 1),
				    jv_array_get(jv_copy(e), 0)) == -1) {
					jv_free(e);
					jv_free(outs);
					return -1;
				}
				jv_free(e);
			}
			jv_free(outs);
			return 0;
		}
		jv_free(outs);
	}
	jq_start(j->jq, v, 0);
	while (jv_is_valid(r = jq_next(j->jq)))
		if (jq_result(j, r, jv_invalid()) == -1)
			return -1;
	if (jq_halted(j->jq)) {
		jv	m = jq_get_error_message(j->jq);

		if (jv_get_kind(m) == JV_KIND_STRING)
			warnf(x, "%s", jv_string_value(m));
		else if (jv_is_valid(m) && jv_get_kind(m) != JV_KIND_NULL) {
			jv	d = jv_dump_string(jv_copy(m), 0);

			warnf(x, "%s", jv_string_value(d));
			jv_free(d);
		}
		jv_free(m);
		jv_free(r);
		return 1;
	}
	if (jv_invalid_has_msg(jv_copy(r))) {
		jv	m = jv_invalid_get_msg(r);

		j->errors++;
		if (jv_get_kind(m) == JV_KIND_STRING)
			warnf(x, "jq: error (at %s): %s", where,
			    jv_string_value(m));
		else {
			jv	d = jv_dump_string(jv_copy(m), 0);

			warnf(x, "jq: error (at %s) (not a string): %s", where,
			    jv_string_value(d));
			jv_free(d);
		}
		jv_free(m);
		return 0;
	}
	jv_free(r);
	return 0;
}

/*
 * Run the filter per line on NDJSON, and on content whose first line is
 * a whole JSON value although other lines are not JSON (go test -json
 * with build errors, logs of JSON events).
 */
static int
ndjson_like(struct ex *x)
{
	struct lr	lr;
	struct line	ln;
	jv		v;
	int		kind = x->src.member == NULL ?
			    ofl_reader_meta(x->src.r)->kind : -1;
	int		r, yes = 0;

	if (kind == OFL_KIND_NDJSON)
		return 1;
	if (kind == OFL_KIND_JSON || x->nscope == 0)
		return 0;
	if (lr_init(&lr, &x->src, x->scope[0].a, x->scope[0].b,
	    LINE_MAX_REGEX) == -1) {
		lr_free(&lr);
		return 0;
	}
	while ((r = lr_next(&lr, &ln)) > 0) {
		if (ln.cont || blank(ln.p, ln.len))
			continue;
		if (!ln.more && ln.len <= INT32_MAX) {
			v = jv_parse_sized(ln.p, (int)ln.len);
			yes = jv_is_valid(v);
			jv_free(v);
		}
		break;
	}
	lr_free(&lr);
	return yes;
}

static int
run_jq(struct ex *x)
{
	static char			*empty_env[] = { NULL };
	const struct ofl_extract	*o = x->o;
	struct jqrun			 j;
	struct ofl_buf			 prog, what, args;
	char				**saved_env = environ;
	jv				 jargs, v;
	size_t				 i, n;
	int				 r, rv = -1, halted = 0;

	memset(&j, 0, sizeof j);
	j.x = x;
	j.in.x = x;
	ofl_buf_init(&prog);
	ofl_buf_init(&what);
	ofl_buf_init(&args);
	if (jq_refuse(o->filter) == -1)
		return -1;
	environ = empty_env;
	jargs = jv_object();
	for (i = 0; i < o->nargs; i++) {
		if (o->args[i].json) {
			v = jv_parse(o->args[i].value);
			if (!jv_is_valid(v)) {
				jv	m = jv_invalid_get_msg(v);

				ofl_seterr(OFL_EXIT_USAGE, "--argjson %s: "
				    "invalid JSON text: %s", o->args[i].name,
				    jv_get_kind(m) == JV_KIND_STRING ?
				    jv_string_value(m) : "?");
				jv_free(m);
				jv_free(jargs);
				goto out;
			}
		} else
			v = jv_string(o->args[i].value);
		jargs = jv_object_set(jargs, jv_string(o->args[i].name), v);
	}
	if ((j.jq = jq_init()) == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "jq: cannot initialize");
		jv_free(jargs);
		goto out;
	}
	jq_set_error_cb(j.jq, jq_err_cb, &j);
	jq_set_attr(j.jq, jv_string("JQ_LIBRARY_PATH"), jv_array());
	if (!jq_compile_args(j.jq, o->filter, jv_copy(jargs))) {
		ofl_seterr(OFL_EXIT_USAGE, "%s", j.compile_msg[0] != '\0' ?
		    j.compile_msg : "jq: compile error");
		jv_free(jargs);
		goto out;
	}
	if (o->json && strstr(o->filter, "input") == NULL &&
	    strstr(o->filter, "debug") == NULL &&
	    strstr(o->filter, "stderr") == NULL &&
	    strstr(o->filter, "halt") == NULL &&
	    (j.jqp = jq_init()) != NULL) {
		jq_set_error_cb(j.jqp, jq_quiet_cb, NULL);
		jq_set_attr(j.jqp, jv_string("JQ_LIBRARY_PATH"), jv_array());
		ofl_buf_addf(&prog, "path(%s\n) as $__ofl_p | [$__ofl_p, "
		    "getpath($__ofl_p)]", o->filter);
		if (!jq_compile_args(j.jqp, ofl_buf_str(&prog), jv_copy(jargs)))
			jq_teardown(&j.jqp);
	}
	jv_free(jargs);
	j.flags = o->compact ? 0 : JV_PRINT_INDENT_FLAGS(2);

	/* Inputs. */
	if (resolve(x, &n, &x->scope, 1) == -1)
		goto out;
	x->nscope = n;
	j.in.ndjson = ndjson_like(x);
	j.in.lines = o->nspans > 0;
	if (!j.in.ndjson) {
		j.in.buf = ofl_xmalloc(READ_SIZE);
		j.in.parser = jv_parser_new(0);
		if (!j.in.lines && src_rewind(&x->src) == -1)
			goto out;
	}
	jq_set_input_cb(j.jq, jqin_cb, &j.in);
	if (j.jqp != NULL)
		jq_set_input_cb(j.jqp, jqin_cb, &j.in);
	while (jv_is_valid(v = jqin_next(&j.in))) {
		if ((r = jq_one(&j, v)) == -1)
			goto out;
		if (r == 1) {
			halted = 1;
			break;
		}
	}
	jv_free(v);
	if (j.in.failed) {
		ofl_seterr(OFL_EXIT_FAIL, "%s", j.in.errmsg);
		goto marks;
	}
	if (j.in.bad > 0)
		warnf(x, "ofl:%s: %" PRIu64 " line%s not JSON (first: line %"
		    PRIu64 "): skipped", x->id, j.in.bad, j.in.bad > 1 ?
		    "s are" : " is", j.in.bad_first);
marks:
	if (j.cut && j.first_hidden > 0 && j.first_hidden <= j.results) {
		uint64_t	a = j.first_hidden, b = j.results;

		ofl_buf_addf(&what, "result%s %" PRIu64, a == b ? "" : "s", a);
		if (b != a)
			ofl_buf_addf(&what, "-%" PRIu64, b);
		ofl_buf_addf(&what, " of %" PRIu64 " of the filter on ofl:%s",
		    j.results, x->id);
		jq_args(x, &args, a - 1);
		if (mark(x, ofl_buf_str(&what), ofl_buf_str(&args)) == -1)
			goto out;
	}
	if (j.in.failed)
		goto out;
	if (j.errors > 0) {
		ofl_seterr(OFL_EXIT_FAIL, "jq: the filter failed on %" PRIu64
		    " input%s", j.errors, j.errors > 1 ? "s" : "");
		goto out;
	}
	rv = j.results > o->skip ? 0 : 1;
	(void)halted;
out:
	environ = saved_env;
	if (j.in.lr_open)
		lr_free(&j.in.lr);
	if (j.in.parser != NULL)
		jv_parser_free(j.in.parser);
	free(j.in.buf);
	if (j.jq != NULL)
		jq_teardown(&j.jq);
	if (j.jqp != NULL)
		jq_teardown(&j.jqp);
	ofl_buf_free(&prog);
	ofl_buf_free(&what);
	ofl_buf_free(&args);
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

/* The entry point. */

/* Compile the regex of o, to see that it is one, and can be compiled. */
static int
check_regex(void *arg)
{
	const struct ofl_extract	*o = arg;
	struct rx			 rx;

	if (rx_compile(&rx, o->regex, o->icase) == -1)
		return -1;
	rx_free(&rx);
	return 0;
}

int
ofl_extract_check(const struct ofl_extract *o)
{
	size_t		 i;
	jv		 v;

	if (o->mode == OFL_EXTRACT_REGEX && limited(o, o->out != NULL ?
	    o->out : stdout, "regex", check_regex, (void *)o) == -1)
		return -1;
	if (o->mode == OFL_EXTRACT_JQ) {
		if (jq_refuse(o->filter) == -1)
			return -1;
		for (i = 0; i < o->nargs; i++) {
			if (!o->args[i].json)
				continue;
			v = jv_parse(o->args[i].value);
			if (!jv_is_valid(v)) {
				jv_free(v);
				ofl_seterr(OFL_EXIT_USAGE, "--argjson %s: "
				    "invalid JSON text", o->args[i].name);
				return -1;
			}
			jv_free(v);
		}
	}
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
		rv = run_regex(x);
		break;
	case OFL_EXTRACT_ERRORS:
		rv = run_errors(x);
		break;
	case OFL_EXTRACT_JQ:
		rv = run_jq(x);
		break;
	default:
		rv = run_raw(x);
		break;
	}
	if (x->werr)
		rv = -1;
	if (x->red != NULL && ofl_redactor_count(x->red) > 0)
		warnf(x, "%" PRIu64 " secret%s masked (OFL_REDACT=off shows "
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
