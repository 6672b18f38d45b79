/*
 * extract-errors.c: ofl-extract --errors, the error blocks of a log.
 *
 * One pass over the lines.  Outside a block, the log's rules
 * (fmt-log-trace.c) say whether a block starts in a line and of which
 * kind.  Inside a block, rules of its kind say whether the
 * next line continues it (stack frames, indented snippet lines, a
 * traceback's exception line...).  A log prefix (a timestamp, a task
 * name) before the block's first line is its margin: later lines may
 * carry a prefix of the same shape.  Closed blocks are hashed with
 * numbers, hex and addresses masked, and counted by hash.
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
#include "fmt-log.h"
#include "banned.h"

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
	struct ofl_buf	 sig;		/* a line's signature */
};

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

/*
 * A block's signature, hashed: each line masked by the log's signature
 * rule (ofl_fmt_log_mask(), the rule of the notice's error groups).
 */
static uint64_t
norm_hash(struct ofl_buf *sig, int kind, const char *s, size_t n)
{
	const char	*e = s + n, *nl;
	uint64_t	 h = UINT64_C(0xcbf29ce484222325);
	size_t		 i;

	h = fnv(h, kind);
	for (; s < e; s = nl + 1) {
		if ((nl = memchr(s, '\n', (size_t)(e - s))) == NULL)
			nl = e;
		ofl_buf_reset(sig);
		ofl_fmt_log_mask(sig, s, (size_t)(nl - s));
		for (i = 0; i < sig->len; i++)
			h = fnv(h, sig->data[i]);
		h = fnv(h, '\n');
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
	h = norm_hash(&d->sig, kind, b->text.data, b->text.len);
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

/* Does the line go on with the open block?  The log's rule says. */
static int
cont(struct det *d, const char *s, size_t n)
{
	struct block		*b = &d->b;
	struct ofl_logblk	 lb;
	const char		*c;
	size_t			 cn;
	int			 r;

	c = after_margin(b, s, n, &cn);
	lb.kind = b->kind;
	lb.mode = b->mode;
	lb.state = b->state;
	lb.frames = b->frames;
	lb.indent = b->indent;
	lb.n = b->n;
	r = ofl_fmt_log_cont(&lb, s, n, c, cn);
	b->kind = lb.kind;
	b->mode = lb.mode;
	b->state = lb.state;
	b->frames = lb.frames;
	b->indent = lb.indent;
	return r;
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
			ofl_fmt_log_set_start(&st, K_PYTEST, M_PYTEST, 0, 0);
			block_open(d, &st, ln);
			goto done;
		}
		if (ofl_fmt_log_pytest_section(s, n, NULL)) {
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
	if (ofl_fmt_log_find_start(s, n, &st)) {
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
	int			 sx, sy;

	sx = ofl_fmt_log_kinds[x->kind].score;
	sy = ofl_fmt_log_kinds[y->kind].score;
	if (sx != sy)
		return sy - sx;
	if (x->occ[0] != y->occ[0])
		return x->occ[0] < y->occ[0] ? -1 : 1;
	return 0;
}

/* "[kind xN] lines A-B, C-D" */
static void
cluster_header(struct ex *x, struct cluster *c, struct ofl_buf *b)
{
	size_t	i;

	ofl_buf_addf(b, "[%s", ofl_fmt_log_kinds[c->kind].name);
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
	ofl_extract_json_str(b, x->id, strlen(x->id));
	ofl_buf_adds(b, ",\"kind\":");
	ofl_extract_json_str(b, ofl_fmt_log_kinds[c->kind].name,
	    strlen(ofl_fmt_log_kinds[c->kind].name));
	ofl_buf_addf(b, ",\"count\":%" PRIu64 ",\"lines\":[%" PRIu64 ",%"
	    PRIu64 "],\"occurrences\":[", c->count, c->occ[0], c->occ[1]);
	for (i = 0; i < c->nocc; i++)
		ofl_buf_addf(b, "%s[%" PRIu64 ",%" PRIu64 "]", i ? "," : "",
		    c->occ[2 * i], c->occ[2 * i + 1]);
	ofl_buf_adds(b, "],\"text\":");
	text = ofl_extract_mask_text(x, text, len, &len);
	ofl_extract_json_str(b, text, len);
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
	rv = ofl_extract_mark_rest(x, rs, n, 0, rs[0].a, "");
	free(rs);
	return rv;
}

/* Mark clusters from index i on (of n) as not shown. */
static int
mark_clusters(struct ex *x, struct cluster *cl, size_t i, size_t n,
    uint64_t skip)
{
	struct ofl_buf	what, args;
	size_t		j, k, cnt[K_COUNT];
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
	for (k = 0; k < K_COUNT; k++) {
		if (cnt[k] == 0)
			continue;
		ofl_buf_addf(&what, "%s%zu %s", first ? "" : ", ", cnt[k],
		    ofl_fmt_log_kinds[k].name);
		first = 0;
	}
	ofl_buf_addf(&what, ") of ofl:%s", x->id);
	ofl_buf_adds(&args, " --errors");
	if (x->o->nspans > 0 && x->nscope > 0) {
		struct ofl_buf	w2;

		/* Keep the scope the blocks were found in. */
		ofl_buf_init(&w2);
		ofl_extract_spans_text(&w2, &args, x->scope, x->nscope);
		ofl_buf_free(&w2);
	}
	ofl_buf_addf(&args, " --skip %" PRIu64, skip + (uint64_t)i);
	rv = ofl_extract_mark(x, ofl_buf_str(&what), ofl_buf_str(&args));
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
			if (ofl_extract_out_fits(x, x->tmp.len)) {
				if (ofl_extract_out_write(x, x->tmp.data,
				    x->tmp.len) == -1)
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
				if (ofl_extract_out_fits(x, x->tmp.len))
					break;
			}
			if (j == 0) {
				len = c->lines[0].len;
				for (;;) {
					cluster_json(x, c, text.data, len, 1,
					    &x->tmp);
					if (ofl_extract_out_fits(x,
					    x->tmp.len) || len == 0)
						break;
					over = x->tmp.len - (size_t)(x->max -
					    x->used);
					len = over >= len ? 0 :
					    ofl_utf8_cut(text.data,
					    len - over);
				}
			}
			if (ofl_extract_out_write(x, x->tmp.data,
			    x->tmp.len) == -1)
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
				r = ofl_extract_mark(x, ofl_buf_str(&w),
				    ofl_buf_str(&a));
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
		ofl_extract_line_unit(x, &x->tmp, c->lines[0].no, "", text.data,
		    c->lines[0].len, -1, 0);
		if (!ofl_extract_out_fits(x, hdr.len + x->tmp.len) &&
		    x->printed)
			break;
		if (ofl_extract_out_write(x, hdr.data, hdr.len) == -1)
			goto out;
		for (j = 0; j < c->n; j++) {
			r = ofl_extract_emit_line(x, c->lines[j].no, "",
			    text.data +
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
				if (ofl_extract_emit_partial(x, &lr, &ln, "",
				    -1) == -1)
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

int
ofl_extract_errors(struct ex *x)
{
	struct det		 d;
	struct rspan		*rs = NULL;
	struct lr		 lr;
	struct line		 ln;
	struct ofl_testrun	 tr;
	struct ofl_meta		 m;
	struct ofl_changed	 ch;
	size_t			 n = 0, i;
	int			 r = 0, rv = -1, tests = 0;

	memset(&d, 0, sizeof d);
	memset(&lr, 0, sizeof lr);
	memset(&tr, 0, sizeof tr);
	memset(&m, 0, sizeof m);
	memset(&ch, 0, sizeof ch);
	/* The test run, when the whole artifact is read from the start. */
	if (x->src.member == NULL && x->o->nspans == 0 && x->o->skip == 0) {
		if (ofl_store_meta(x->st, x->id, &m) == -1)
			memset(&m, 0, sizeof m);
		else
			ofl_store_changed(x->st, x->id, &ch);
		ofl_fmt_test_begin(&tr, m.command);
		tests = 1;
	}
	d.x = x;
	d.ring = ofl_xcalloc(RING_LINES, sizeof *d.ring);
	d.keep_all = x->src.member != NULL;
	ofl_buf_init(&d.b.text);
	ofl_buf_init(&d.sig);
	cluster_grow(&d);
	if (ofl_extract_resolve(x, &n, &rs, 1) == -1)
		goto out;
	x->scope = rs;
	x->nscope = n;
	for (i = 0; i < n; i++) {
		if (ofl_extract_lr_init(&lr, &x->src, rs[i].a, rs[i].b,
		    LINE_MAX_REGEX) ==
		    -1)
			goto out;
		d.rn = 0;
		d.pytest = 0;
		while ((r = ofl_extract_lr_next(&lr, &ln)) > 0) {
			if (tests && !ln.cont)
				ofl_fmt_test_line(&tr, ln.p, ln.len, ln.no);
			det_line(&d, &ln);
		}
		ofl_extract_lr_free(&lr);
		block_close(&d);
		if (r == -1)
			goto out;
	}
	if (tests)
		ofl_fmt_test_end(&tr);
	if (tr.runner != NULL && tr.n > 0 &&
	    ofl_extract_tests_head(x, &tr, &m, &ch) == -1)
		goto out;
	if (d.ncl == 0) {
		rv = tr.runner != NULL && tr.n > 0 ? 0 : 1;
		goto out;
	}
	rv = errors_print(&d);
out:
	ofl_fmt_test_free(&tr);
	ofl_meta_free(&m);
	ofl_changed_free(&ch);
	ofl_extract_lr_free(&lr);
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
	ofl_buf_free(&d.sig);
	return rv;
}

