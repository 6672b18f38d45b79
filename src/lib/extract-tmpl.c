/*
 * extract-tmpl.c: ofl-extract --template, the lines of one log template
 * as -n prints them (NUMBER<TAB>LINE), a stack trace under its first
 * line included.  Two passes over the content: the first mines it (the
 * IDs are those of the whole log, as ofl-schema prints them), the second
 * gives each line its template.  Under the budget, the rest is marked
 * with the command that prints it.
 */
#include "config.h"

#include <sys/types.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "extract.h"
#include "banned.h"

/* Pass one: the miner over the whole content, finished; NULL on error. */
static struct ofl_fmt_log_tmpl *
mine(struct ex *x)
{
	struct ofl_fmt_log_tmpl	*m;
	struct lr		 lr;
	struct line		 ln;
	int			 r;

	m = ofl_fmt_log_tmpl_new();
	if (ofl_extract_lr_init(&lr, &x->src, 1, UINT64_MAX,
	    PIECE_MAX) == -1) {
		ofl_extract_lr_free(&lr);
		ofl_fmt_log_tmpl_free(m);
		return NULL;
	}
	while ((r = ofl_extract_lr_next(&lr, &ln)) > 0)
		if (!ln.cont)
			ofl_fmt_log_tmpl_add(m, ln.p, ln.len);
	ofl_extract_lr_free(&lr);
	if (r == -1) {
		ofl_fmt_log_tmpl_free(m);
		return NULL;
	}
	ofl_fmt_log_tmpl_finish(m);
	ofl_fmt_log_tmpl_rewind(m);
	return m;
}

static int
known(const struct ofl_fmt_log_tmpl *m, const char *tid)
{
	const struct ofl_fmt_log_tmpl_info	*t;
	size_t					 i;

	for (i = 0; (t = ofl_fmt_log_tmpl_get(m, i)) != NULL; i++)
		if (strcmp(t->id, tid) == 0)
			return 1;
	return 0;
}

/* The span of the scope a line is in, or -1. */
static ssize_t
in_scope(const struct rspan *rs, size_t n, uint64_t no)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (no >= rs[i].a && no <= rs[i].b)
			return (ssize_t)i;
	return -1;
}

/* The mark for the lines the budget left out, from first on. */
static int
mark_rest(struct ex *x, const struct rspan *rs, size_t n, size_t i,
    uint64_t rem, uint64_t first, uint64_t last)
{
	struct rspan	*rest;
	struct ofl_buf	 what, args, w2;
	size_t		 j;
	int		 r;

	ofl_buf_init(&what);
	ofl_buf_init(&args);
	ofl_buf_init(&w2);
	rest = ofl_xcalloc(n - i, sizeof(*rest));
	for (j = i; j < n; j++)
		rest[j - i] = rs[j];
	rest[0].a = first;
	ofl_buf_addf(&what, "%" PRIu64 " more line%s of template %s (line%s "
	    "%" PRIu64, rem, rem > 1 ? "s" : "", x->o->tmpl,
	    rem > 1 ? "s" : "", first);
	if (rem > 1)
		ofl_buf_addf(&what, "-%" PRIu64, last);
	ofl_buf_addf(&what, ") of ofl:%s", x->id);
	ofl_buf_addf(&args, " --template %s", x->o->tmpl);
	ofl_extract_spans_text(&w2, &args, rest, n - i);
	r = ofl_extract_mark(x, ofl_buf_str(&what), ofl_buf_str(&args));
	ofl_buf_free(&what);
	ofl_buf_free(&args);
	ofl_buf_free(&w2);
	free(rest);
	return r;
}

/* A line that streams through, piece by piece (no budget). */
static int
stream_piece(struct ex *x, const struct line *ln)
{
	char		 pre[32];
	const char	*t;
	size_t		 tl;

	if (!ln->cont) {
		snprintf(pre, sizeof(pre), "%" PRIu64 "\t", ln->no);
		if (ofl_extract_out_unit(x, pre, strlen(pre)) == -1)
			return -1;
	}
	t = ofl_extract_mask_text(x, ln->p, ln->len, &tl);
	if (ofl_extract_out_write(x, t, tl) == -1 ||
	    (!ln->more && ofl_extract_out_write(x, "\n", 1) == -1))
		return -1;
	x->printed = 1;
	return 0;
}

int
ofl_extract_tmpl(struct ex *x)
{
	struct ofl_fmt_log_tmpl	*m;
	struct rspan		*rs = NULL;
	struct lr		 lr;
	struct line		 ln;
	char			 id[OFL_TMPL_ID];
	uint64_t		 rem = 0, first = 0, last = 0;
	size_t			 n = 0, span = 0;
	ssize_t			 sp;
	int			 r, match = 0, cut = 0, stream, rv = -1;

	if ((m = mine(x)) == NULL)
		return -1;
	if (!known(m, x->o->tmpl)) {
		/* ofl-schema lists a log's templates, not another kind's. */
		if (x->src.member == NULL &&
		    ofl_reader_meta(x->src.r)->kind == OFL_KIND_LOG)
			ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: no template %s "
			    "(ofl-schema %s lists them)", x->id, x->o->tmpl,
			    x->id);
		else
			ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: no template %s",
			    x->id, x->o->tmpl);
		ofl_fmt_log_tmpl_free(m);
		return -1;
	}
	if (ofl_extract_resolve(x, &n, &rs, 1) == -1)
		goto out;
	stream = x->max == 0 && !x->o->json;
	if (ofl_extract_lr_init(&lr, &x->src, 1, UINT64_MAX, PIECE_MAX) == -1)
		goto out_lr;
	while ((r = ofl_extract_lr_next(&lr, &ln)) > 0) {
		if (ln.cont) {
			if (match && stream && stream_piece(x, &ln) == -1)
				goto out_lr;
			continue;
		}
		ofl_fmt_log_tmpl_line(m, ln.p, ln.len, id);
		sp = in_scope(rs, n, ln.no);
		match = strcmp(id, x->o->tmpl) == 0 && sp != -1;
		if (!match)
			continue;
		if (cut) {
			if (rem++ == 0) {
				first = ln.no;
				span = (size_t)sp;
			}
			last = ln.no;
			continue;
		}
		if (stream) {
			if (stream_piece(x, &ln) == -1)
				goto out_lr;
			continue;
		}
		if (!ln.more && (r = ofl_extract_emit_line(x, ln.no, "", ln.p,
		    ln.len, -1)) != 0) {
			if (r == -1)
				goto out_lr;
			continue;
		}
		/* It does not fit: what fits of a first line, then a mark. */
		cut = 1;
		if (!x->printed) {
			if (ofl_extract_emit_partial(x, &lr, &ln, "", -1) == -1)
				goto out_lr;
			continue;
		}
		rem = 1;
		first = last = ln.no;
		span = (size_t)sp;
		match = 0;
	}
	if (r == -1)
		goto out_lr;
	if (rem > 0 && mark_rest(x, rs, n, span, rem, first, last) == -1)
		goto out_lr;
	rv = 0;
out_lr:
	ofl_extract_lr_free(&lr);
out:
	free(rs);
	x->scope = NULL;
	ofl_fmt_log_tmpl_free(m);
	return rv;
}
