/*
 * extract-io.c: what every way of extracting shares (extract.h): spans
 * and their resolution, the source (the artifact or one member of it),
 * line reading, output within the budget, and the marks that name what a
 * cut left out.  Below extract.c and the extract-*.c files that call it.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "extract.h"
#include "banned.h"

static int	 parse_u64(const char *, size_t, uint64_t *);
static int	 member_open(struct src *, const char *);
static int	 member_block(struct src *);
static void	 cmd_base(struct ex *, struct ofl_buf *);

static const char *oom_msg;	/* see ofl_extract_oom_msg() */
static void	(*oom_fn)(void *);	/* see ofl_extract_oom_fn() */

void
ofl_extract_set_oom(const char *msg, void (*fn)(void *))
{
	oom_msg = msg;
	oom_fn = fn;
}

void
(*ofl_extract_oom_fn(void))(void *)
{
	return oom_fn;
}

const char *
ofl_extract_oom_msg(void)
{
	return oom_msg;
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
	if (ofl_extract_src_totals(&x->src, &bytes, &lines) == -1)
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

int
ofl_extract_src_open(struct ex *x)
{
	struct src	*s = &x->src;

	memset(s, 0, sizeof *s);
	s->x = x;
	if ((s->r = ofl_reader_open(x->st, x->id)) == NULL)
		return -1;
	s->member = x->o->member;
	ofl_reader_src(s->r, &s->rsrc);
	if (s->member != NULL && member_open(s, x->id) == -1)
		return -1;
	return 0;
}

void
ofl_extract_src_close(struct src *s)
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

/*
 * The member's next block, from libarchive: 1, 0 at its end, -1 on error
 * (a warning too: a bad CRC).  An archive cut short (or spoilt) inside
 * the member after some of it: what came before is the member's text, as
 * the index has it; said once.
 */
static int
member_block(struct src *s)
{
	const void	*blk;
	size_t		 len;
	la_int64_t	 off;
	int		 r;

	r = archive_read_data_block(s->a, &blk, &len, &off);
	/* A fatal error after some of it: the archive's cut. */
	if (r < ARCHIVE_WARN && s->pos > 0) {
		if (!s->cut)
			ofl_extract_warnf(s->x, "ofl:%s: %s: the archive ends "
			    "inside it (%s): its first %llu bytes",
			    ofl_reader_meta(s->r)->id, s->member,
			    ofl_arc_why(s->a), (unsigned long long)s->pos);
		s->cut = 1;
		return 0;
	}
	/* Else an error, a warning (a bad CRC) or blocks out of order. */
	if (r < ARCHIVE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: %s: %s",
		    ofl_reader_meta(s->r)->id, s->member, ofl_arc_why(s->a));
		return -1;
	}
	if (r == ARCHIVE_OK && off >= 0 && (uint64_t)off < s->pos) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: %s: its blocks are out of "
		    "order", ofl_reader_meta(s->r)->id, s->member);
		return -1;
	}
	/* A hole at the end of a sparse member comes with its end. */
	s->blk = r == ARCHIVE_OK ? blk : NULL;
	s->blklen = r == ARCHIVE_OK ? len : 0;
	s->hole = off > 0 && (uint64_t)off > s->pos ? (uint64_t)off - s->pos :
	    0;
	return r == ARCHIVE_EOF && s->hole == 0 ? 0 : 1;
}

ssize_t
ofl_extract_src_read(struct src *s, void *buf, size_t n)
{
	size_t	got;
	int	r;

	if (s->member == NULL)
		return ofl_reader_read(s->r, buf, n);
	while (s->blklen == 0 && s->hole == 0)
		if ((r = member_block(s)) <= 0)
			return r;
	if (s->hole > 0) {
		got = s->hole < n ? (size_t)s->hole : n;
		memset(buf, 0, got);
		s->hole -= got;
	} else {
		got = s->blklen < n ? s->blklen : n;
		memcpy(buf, s->blk, got);
		s->blk += got;
		s->blklen -= got;
	}
	s->pos += got;
	if (s->pos > OFL_ARCHIVE_MAX) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: %s: more than %llu bytes "
		    "decompressed; stopped (an archive bomb?)",
		    ofl_reader_meta(s->r)->id, s->member,
		    (unsigned long long)OFL_ARCHIVE_MAX);
		return -1;
	}
	return (ssize_t)got;
}

/* Position at a byte offset (a member is read up to it). */
int
ofl_extract_src_seek(struct src *s, uint64_t off)
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
int
ofl_extract_src_totals(struct src *s, uint64_t *bytes, uint64_t *lines)
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
	s->blk = NULL;
	s->blklen = 0;
	s->hole = 0;
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
int
ofl_extract_out_unit(struct ex *x, const char *p, size_t n)
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
	if (ofl_extract_out_unit(x, x->tmp.data, x->tmp.len) == -1)
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
		k = over >= k ? 0 : ofl_utf8_cut(ln->p, k - over);
	}
	if (!ofl_extract_out_fits(x, x->tmp.len))
		ofl_extract_line_unit(x, &x->tmp, no, sep, ln->p, 0, match, 1);
	if (ofl_extract_out_unit(x, x->tmp.data, x->tmp.len) == -1)
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
