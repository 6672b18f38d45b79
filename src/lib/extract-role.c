/*
 * extract-role.c: ofl-extract --role and --name, the elements of a
 * browser snapshot by role and name, one a line with its ref and the
 * path it sits under, cut to the budget.  The tree is read by
 * fmt-snapshot.c; this file prints and keeps the budget.
 */
#include "config.h"

#include <sys/types.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "extract.h"
#include "banned.h"

struct roleq {
	struct ex	*x;
	struct ofl_buf	 b;
	uint64_t	 seen;		/* matches so far */
	uint64_t	 shown;
	uint64_t	 first_left;	/* the first match not shown */
	int		 full;		/* the budget is spent */
};

#define TEXT_MAX	300		/* bytes of an element's line shown */
#define TEXT_HEAD	150		/* of a longer one, its start */

static int	 role_cb(void *, const struct ofl_fmt_snapshot_match *);
static void	 add_text(struct ofl_buf *, const char *, size_t);

/*
 * An element's line, on one line, cut to about TEXT_MAX bytes with "..."
 * where it is cut: when its ref would be cut off, the name before it in
 * its middle, so that the ref, what the line is for, is shown.
 */
static void
add_text(struct ofl_buf *b, const char *t, size_t n)
{
	size_t		 f, x, tail = TEXT_MAX - TEXT_HEAD - 6;

	if (ofl_render(NULL, (const unsigned char *)t, n, SIZE_MAX,
	    OFL_RENDER_ONELINE, NULL) <= TEXT_MAX) {
		(void)ofl_render_oneline(b, (const unsigned char *)t, n,
		    TEXT_MAX);
		return;
	}
	x = ofl_fmt_snapshot_ref_end(t, n);
	if (x <= TEXT_MAX - 3 || x <= TEXT_HEAD + tail) {
		(void)ofl_render_oneline(b, (const unsigned char *)t, n,
		    TEXT_MAX - 3);
		ofl_buf_adds(b, "...");
		return;
	}
	(void)ofl_render_oneline(b, (const unsigned char *)t, n, TEXT_HEAD);
	ofl_buf_adds(b, "...");
	for (f = x - tail; f < x && ((unsigned char)t[f] & 0xC0) == 0x80;
	    f++)
		;
	(void)ofl_render_oneline(b, (const unsigned char *)t + f, x - f,
	    SIZE_MAX);
	if (x < n)
		ofl_buf_adds(b, "...");
}

/* "N<TAB>line<TAB>path", or a JSON object. */
static int
role_cb(void *arg, const struct ofl_fmt_snapshot_match *mt)
{
	struct roleq	*q = arg;
	struct ex	*x = q->x;
	const struct ofl_extract *o = x->o;
	const char	*t;
	size_t		 tn;

	if (q->seen++ < o->skip)
		return 0;
	if (q->full || (o->limit > 0 && q->shown >= o->limit)) {
		if (q->first_left == 0)
			q->first_left = q->seen;
		q->full = 1;
		return 0;
	}
	ofl_buf_reset(&q->b);
	t = ofl_extract_mask_text(x, mt->line, mt->len, &tn);
	if (o->json) {
		ofl_buf_addf(&q->b, "{\"id\":");
		ofl_extract_json_str(&q->b, x->id, strlen(x->id));
		ofl_buf_addf(&q->b, ",\"line\":%" PRIu64 ",\"text\":",
		    mt->lineno);
		ofl_extract_json_str(&q->b, t, tn);
		ofl_buf_adds(&q->b, ",\"path\":");
		ofl_extract_json_str(&q->b, mt->path, mt->pathlen);
		ofl_buf_adds(&q->b, "}\n");
	} else {
		ofl_buf_addf(&q->b, "%" PRIu64 "\t", mt->lineno);
		add_text(&q->b, t, tn);
		ofl_buf_addc(&q->b, '\t');
		ofl_render_safe(&q->b, (const unsigned char *)mt->path,
		    mt->pathlen, 220);
		ofl_buf_addc(&q->b, '\n');
	}
	if (!ofl_extract_out_fits(x, q->b.len)) {
		q->first_left = q->seen;
		q->full = 1;
		return 0;
	}
	if (ofl_extract_out_unit(x, q->b.data, q->b.len) == -1)
		return 1;
	x->printed = 1;
	q->shown++;
	return 0;
}

int
ofl_extract_role(struct ex *x)
{
	const struct ofl_extract *o = x->o;
	const struct ofl_meta *m = ofl_reader_meta(x->src.r);
	struct roleq	 q;
	struct ofl_buf	 what, args;
	int		 rv = -1;

	if (m != NULL && m->kind != OFL_KIND_SNAPSHOT &&
	    m->kind != OFL_KIND_HTML) {
		ofl_seterr(OFL_EXIT_USAGE, "%s: --role and --name need a "
		    "browser snapshot or an HTML page; this artifact is %s",
		    x->id, ofl_kind_name(m->kind));
		return -1;
	}
	memset(&q, 0, sizeof q);
	q.x = x;
	ofl_buf_init(&q.b);
	ofl_buf_init(&what);
	ofl_buf_init(&args);
	if ((m != NULL && m->kind == OFL_KIND_HTML ?
	    ofl_fmt_html_find(&x->src.rsrc, o->role, o->name, role_cb, &q) :
	    ofl_fmt_snapshot_find(&x->src.rsrc, o->role, o->name, role_cb,
	    &q)) == -1 || x->werr)
		goto out;
	if (q.first_left > 0) {
		ofl_buf_addf(&what, "%" PRIu64 " more element%s",
		    q.seen - q.first_left + 1, q.seen - q.first_left > 0 ?
		    "s" : "");
		if (o->role != NULL) {
			ofl_buf_adds(&args, " --role");
			ofl_extract_cmd_word(&args, o->role);
		}
		if (o->name != NULL) {
			ofl_buf_adds(&args, " --name");
			ofl_extract_cmd_word(&args, o->name);
		}
		ofl_buf_addf(&args, " --skip %" PRIu64, q.first_left - 1);
		if (ofl_extract_mark(x, ofl_buf_str(&what),
		    ofl_buf_str(&args)) == -1)
			goto out;
	}
	rv = q.shown > 0 ? 0 : 1;
out:
	ofl_buf_free(&q.b);
	ofl_buf_free(&what);
	ofl_buf_free(&args);
	return rv;
}
