/*
 * extract-regex.c: ofl-extract --regex, the lines that match a regular
 * expression, with context, cut to the budget.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "extract.h"
#include "banned.h"


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
	const char	*oom;
	char		 msg[256];
	size_t		 i;
	int		 rc;

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
	if (rc == REG_ESPACE && (oom = ofl_extract_oom_msg()) != NULL) {
		/* Out of memory under the limit: say which limit. */
		ofl_seterr(OFL_EXIT_FAIL, "%s", oom);
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
	/*
	 * A copy that ends in a NUL: the line in the read buffer is
	 * followed by the next ones, and what reads it as a C string (a
	 * regexec without REG_STARTEND, or a sanitizer's, which ignores
	 * it) would run on past the buffer.
	 */
	ofl_buf_reset(&rx->low);
	ofl_buf_add(&rx->low, p, len);
#ifdef REG_STARTEND
	/* And NUL bytes in the line are bytes like any other. */
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)len;
	return regexec(&rx->re, ofl_buf_str(&rx->low), 1, m,
	    REG_STARTEND) == 0;
#else
	(void)m;
	return regexec(&rx->re, ofl_buf_str(&rx->low), 0, NULL, 0) == 0;
#endif
}

/* " -e RE [-i] [-C N]" */
static void
regex_args(struct ex *x, struct ofl_buf *b)
{
	ofl_buf_adds(b, " -e");
	ofl_extract_cmd_word(b, x->o->regex);
	if (x->o->icase)
		ofl_buf_adds(b, " -i");
	if (x->o->context > 0)
		ofl_buf_addf(b, " -C %u", x->o->context);
}

/* The before-context kept, c lines; NULL for none. */
static struct kept *
ring_new(unsigned c)
{
	struct kept	*ring;
	unsigned	 j;

	if (c == 0)
		return NULL;
	ring = ofl_xcalloc(c, sizeof *ring);
	for (j = 0; j < c; j++)
		ofl_buf_init(&ring[j].text);
	return ring;
}

static void
ring_free(struct kept *ring, unsigned c)
{
	unsigned	j;

	if (ring == NULL)
		return;
	for (j = 0; j < c; j++)
		ofl_buf_free(&ring[j].text);
	free(ring);
}

/*
 * The first line of the group of a match on line no: c lines before it,
 * not before the span's first line a, nor on a line printed already.
 */
static uint64_t
group_start(uint64_t no, unsigned c, uint64_t a, uint64_t last)
{
	uint64_t	start = no > c ? no - c : 1;

	if (start < a)
		start = a;
	if (start <= last)
		start = last + 1;
	return start;
}

/*
 * Before a match: the kept lines of its before-context not printed yet.
 * 1, 0 when the budget cut it, -1 on a write error.
 */
static int
emit_before(struct ex *x, struct kept *ring, unsigned c, size_t nring,
    size_t head, uint64_t *last)
{
	struct kept	*k;
	size_t		 j;
	int		 r;

	for (j = 0; j < nring; j++) {
		k = &ring[(head + c - nring + j) % c];
		if (k->no <= *last)
			continue;
		r = ofl_extract_emit_line(x, k->no, "-", k->text.data,
		    k->text.len, 0);
		if (r != 1)
			return r;
		*last = k->no;
	}
	return 1;
}

/*
 * The mark for the kept lines of a match's before-context (it is line
 * no) not printed, which the budget left out.
 */
static int
mark_before(struct ex *x, struct kept *ring, unsigned c, size_t nring,
    size_t head, uint64_t last, uint64_t no)
{
	struct rspan	ctx;
	size_t		j;
	uint64_t	a = 0;

	for (j = 0; j < nring && a == 0; j++)
		if (ring[(head + c - nring + j) % c].no > last)
			a = ring[(head + c - nring + j) % c].no;
	if (a == 0 || a >= no)
		return 0;
	memset(&ctx, 0, sizeof ctx);
	ctx.unit = OFL_SPAN_LINES;
	ctx.a = a;
	ctx.b = no - 1;
	return ofl_extract_mark_rest(x, &ctx, 1, 0, a, "");
}

/*
 * The mark for the rem matching lines (rem_first to rem_last) the budget
 * left out, and the command that prints them: the scope from the first
 * of them (less its context, but for lines to shown, printed already) on,
 * rs being its n spans from there.
 */
static int
mark_more(struct ex *x, const struct rspan *rs, size_t n, unsigned c,
    uint64_t rem, uint64_t rem_first, uint64_t rem_last, uint64_t shown)
{
	struct rspan	*rest;
	struct ofl_buf	 pre, what, w2, args;
	uint64_t	 start;
	size_t		 j;
	int		 r;

	ofl_buf_init(&pre);
	ofl_buf_init(&what);
	ofl_buf_init(&w2);
	ofl_buf_init(&args);
	rest = ofl_xcalloc(n, sizeof *rest);
	start = rem_first > c ? rem_first - c : 1;
	/* Not its context again: the command would print only that. */
	if (start <= shown && shown < rem_first)
		start = shown + 1;
	if (start < rs[0].a)
		start = rs[0].a;
	for (j = 0; j < n; j++)
		rest[j] = rs[j];
	rest[0].a = start;
	regex_args(x, &pre);
	ofl_buf_addf(&what, "%" PRIu64 " more matching line%s (line%s "
	    "%" PRIu64, rem, rem > 1 ? "s" : "", rem > 1 ? "s" : "",
	    rem_first);
	if (rem > 1)
		ofl_buf_addf(&what, "-%" PRIu64, rem_last);
	ofl_buf_addf(&what, ") of ofl:%s", x->id);
	ofl_extract_spans_text(&w2, &args, rest, n);
	ofl_buf_add(&pre, args.data, args.len);
	r = ofl_extract_mark(x, ofl_buf_str(&what), ofl_buf_str(&pre));
	ofl_buf_free(&w2);
	ofl_buf_free(&args);
	ofl_buf_free(&pre);
	ofl_buf_free(&what);
	free(rest);
	return r;
}

/* Say once that a line is too long to be searched whole. */
static void
warn_long(struct ex *x, uint64_t no, int *warned)
{
	if (*warned)
		return;
	ofl_extract_warnf(x, "ofl:%s: line %" PRIu64 " is longer than %d MiB: "
	    "only its start is searched", x->id, no, LINE_MAX_REGEX >> 20);
	*warned = 1;
}

int
ofl_extract_regex(struct ex *x)
{
	const struct ofl_extract	*o = x->o;
	struct rx			 rx;
	struct rspan			*rs = NULL;
	struct kept			*ring = NULL;
	struct lr			 lr;
	struct line			 ln;
	size_t				 n = 0, i, nring = 0, head = 0;
	uint64_t			 matches = 0, last = 0, after = 0;
	uint64_t			 rem = 0, rem_first = 0, rem_last = 0;
	uint64_t			 ctx_a = 0, ctx_b = 0, start;
	size_t				 rem_span = 0;
	unsigned			 c = o->context;
	int				 cut = 0, warned = 0, m, r, rv = -1;

	memset(&lr, 0, sizeof lr);
	if (rx_compile(&rx, o->regex, o->icase) == -1)
		return -1;
	if (ofl_extract_resolve(x, &n, &rs, 1) == -1)
		goto out;
	x->scope = rs;
	x->nscope = n;
	ring = ring_new(c);
	for (i = 0; i < n; i++) {
		if (ofl_extract_lr_init(&lr, &x->src, rs[i].a, rs[i].b,
		    LINE_MAX_REGEX) == -1)
			goto out;
		nring = 0;
		after = 0;
		while ((r = ofl_extract_lr_next(&lr, &ln)) > 0) {
			if (ln.cont)
				continue;
			if (ln.more)
				warn_long(x, ln.no, &warned);
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
				start = group_start(ln.no, c, rs[i].a, last);
				if (c > 0 && last > 0 && start > last + 1 &&
				    !o->json) {
					if (!ofl_extract_out_fits(x, 3))
						goto cut_match;
					if (ofl_extract_out_write(x, "--\n",
					    3) == -1)
						goto out;
				}
				r = emit_before(x, ring, c, nring, head, &last);
				if (r == -1)
					goto out;
				if (r == 0 && x->printed)
					goto cut_match;
				/* Nothing shown: the match, not its context. */
				if (r == 0 && mark_before(x, ring, c, nring,
				    head, last, ln.no) == -1)
					goto out;
				r = ofl_extract_emit_line(x, ln.no, ":", ln.p,
				    ln.len, 1);
				if (r == -1)
					goto out;
				if (r == 0) {
					if (!x->printed) {
						if (ofl_extract_emit_partial(x,
						    &lr, &ln,
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
					goto cut_match;
				}
				last = ln.no;
				after = c;
			} else if (after > 0) {
				r = ofl_extract_emit_line(x, ln.no, "-", ln.p,
				    ln.len, 0);
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
			cut = 1;
			rem = 1;
			rem_first = rem_last = ln.no;
			rem_span = i;
		}
		ofl_extract_lr_free(&lr);
		if (r == -1)
			goto out;
	}
	if (cut && rem > 0) {
		if (mark_more(x, rs + rem_span, n - rem_span, c, rem,
		    rem_first, rem_last, last) == -1)
			goto out;
	} else if (cut && ctx_a != 0 && ctx_a <= ctx_b) {
		struct rspan	ctx;

		ctx.unit = OFL_SPAN_LINES;
		ctx.a = ctx_a;
		ctx.b = ctx_b;
		if (ofl_extract_mark_rest(x, &ctx, 1, 0, ctx_a, "") == -1)
			goto out;
	}
	rv = matches > 0 ? 0 : 1;
out:
	ofl_extract_lr_free(&lr);
	rx_free(&rx);
	ring_free(ring, c);
	return rv;
}

/* Compile the regex of o, to see that it is one, and can be compiled. */
int
ofl_extract_regex_check(void *arg)
{
	const struct ofl_extract	*o = arg;
	struct rx			 rx;

	if (rx_compile(&rx, o->regex, o->icase) == -1)
		return -1;
	rx_free(&rx);
	return 0;
}
