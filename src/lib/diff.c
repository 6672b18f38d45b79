/*
 * diff.c: what changed between two artifacts, said by kind, for ofl-diff
 * and for the notice of a rerun (ofl-capture --changes).
 *
 *   tables, CSV, TSV  rows added, removed and changed, matched by a key:
 *                     NAMESPACE and NAME when the header has both, else
 *                     the first column (records.c reads the rows)
 *   JSON, NDJSON      paths added, removed and changed (scalars; the
 *                     values of NDJSON are [0], [1], ...)
 *   logs, text        tests newly failing, still failing and newly
 *                     passing; error lines (masked as the notice masks
 *                     them) that are new, gone or counted differently;
 *                     then the lines, as a unified diff
 *   anything else     a unified diff (Myers' algorithm over line hashes)
 *
 * Memory: a key or a path costs its bytes, a line 16 bytes; past
 * DIFF_ROWS rows, DIFF_PATHS paths or DIFF_LINES lines, the unified diff
 * or its fallback (the first and last differing lines) is said instead.
 * Myers' search stops after DIFF_MAXD differences, and the region
 * between the common head and tail is given as replaced.
 */
#include "config.h"

#include <sys/types.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "fmt-log.h"
#include "banned.h"

#define DIFF_ROWS	200000		/* rows kept of a table */
#define DIFF_PATHS	200000		/* paths kept of a JSON value */
#define DIFF_LINES	(4 * 1024 * 1024) /* lines hashed for a line diff */
#define DIFF_MAXD	1500		/* differences Myers looks for */
#define DIFF_CTX	3		/* context lines of a hunk */
#define DIFF_LINEMAX	200		/* bytes of a line shown */
#define DIFF_VALMAX	80		/* bytes of a value shown */
#define DIFF_JSONMAX	1024		/* of a value in JSON, whole */
#define DIFF_MASKMORE	512		/* and read past it to mask */
#define DIFF_SIGS	50000		/* error signatures kept */

/* A set of strings with two counts and a value each. */
struct sent {
	char		*key;
	size_t		 klen;
	uint64_t	 hash;
	uint64_t	 n[2];		/* occurrences: old, new */
	uint64_t	 line[2];	/* the first's line */
	char		*val[2];	/* a value, or NULL */
	size_t		 vlen[2];
};
struct sset {
	struct sent	*e;
	size_t		 n;
	size_t		 cap;		/* a power of two */
	size_t		 max;
	int		 full;
};

/* One comparison. */
struct dctx {
	struct ofl_store		*st;
	const struct ofl_diff_opts	*o;
	struct ofl_buf			*out;
	const struct ofl_meta		*m[2];
	struct ofl_src			 src[2];
	size_t				 budget;
	int				 differ;	/* the bytes are known to */
	int				 cut;		/* something left out */
	int				 showcr;	/* line ends differ */
	uint64_t			 changes;
	struct ofl_buf			 mask;		/* emit()'s */
	struct ofl_redactor		*sred;		/* masks what is read */
};

static uint64_t
fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char	*u = p;
	size_t			 i;

	for (i = 0; i < n; i++) {
		h ^= u[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}
#define FNV0	0xcbf29ce484222325ULL

static void
sset_init(struct sset *s, size_t max)
{
	memset(s, 0, sizeof *s);
	s->cap = 1024;
	s->e = ofl_xcalloc(s->cap, sizeof *s->e);
	s->max = max;
}

static void
sset_free(struct sset *s)
{
	size_t	i;

	for (i = 0; i < s->cap; i++) {
		free(s->e[i].key);
		free(s->e[i].val[0]);
		free(s->e[i].val[1]);
	}
	free(s->e);
}

static void
sset_grow(struct sset *s)
{
	struct sent	*old = s->e;
	size_t		 oc = s->cap, i, j;

	s->cap *= 2;
	s->e = ofl_xcalloc(s->cap, sizeof *s->e);
	for (i = 0; i < oc; i++) {
		if (old[i].key == NULL)
			continue;
		for (j = old[i].hash & (s->cap - 1); s->e[j].key != NULL;
		    j = (j + 1) & (s->cap - 1))
			;
		s->e[j] = old[i];
	}
	free(old);
}

/* The entry of key, made if need be (NULL when the set is full). */
static struct sent *
sset_get(struct sset *s, const char *key, size_t klen)
{
	uint64_t	h = fnv(key, klen, FNV0);
	size_t		i;

	for (i = h & (s->cap - 1); s->e[i].key != NULL;
	    i = (i + 1) & (s->cap - 1))
		if (s->e[i].hash == h && s->e[i].klen == klen &&
		    memcmp(s->e[i].key, key, klen) == 0)
			return &s->e[i];
	if (s->n >= s->max) {
		s->full = 1;
		return NULL;
	}
	if ((s->n + 1) * 2 > s->cap) {
		sset_grow(s);
		return sset_get(s, key, klen);
	}
	s->e[i].key = ofl_xmalloc(klen + 1);
	memcpy(s->e[i].key, key, klen);
	s->e[i].key[klen] = '\0';
	s->e[i].klen = klen;
	s->e[i].hash = h;
	s->n++;
	return &s->e[i];
}

static void
sent_val(struct sent *e, int side, const char *v, size_t n)
{
	free(e->val[side]);
	e->val[side] = ofl_xmalloc(n + 1);
	memcpy(e->val[side], v, n);
	e->val[side][n] = '\0';
	e->vlen[side] = n;
}

/* The entries in the order of their first line in new (or old). */
static int
sent_cmp(const void *a, const void *b)
{
	const struct sent	*x = *(struct sent *const *)a;
	const struct sent	*y = *(struct sent *const *)b;
	uint64_t		 lx = x->line[1] ? x->line[1] : x->line[0];
	uint64_t		 ly = y->line[1] ? y->line[1] : y->line[0];

	return lx < ly ? -1 : lx > ly;
}

static struct sent **
sset_sorted(struct sset *s)
{
	struct sent	**v;
	size_t		  i, k = 0;

	v = ofl_xcalloc(s->n + 1, sizeof *v);
	for (i = 0; i < s->cap; i++)
		if (s->e[i].key != NULL)
			v[k++] = &s->e[i];
	qsort(v, k, sizeof *v, sent_cmp);
	return v;
}

/*
 * Secrets are masked in whatever is printed (o->red), and in what is
 * read before it is cut to the width shown (sred, add_safe()): two
 * redactors, as a key's BEGIN line read must not make the lines printed
 * after it masked whole.
 */
static const struct ofl_buf *
masked(struct dctx *d, const struct ofl_buf *line)
{
	if (d->o->red == NULL)
		return line;
	ofl_buf_reset(&d->mask);
	ofl_redact(d->o->red, line->data, line->len, &d->mask);
	return &d->mask;
}

/*
 * Output under the budget: a line that does not fit is counted, and the
 * last line says how many were left out and how to see them.
 */
static int
emit(struct dctx *d, const struct ofl_buf *line)
{
	line = masked(d, line);
	/*
	 * Once a line does not fit, none after it is shown either: the
	 * output is a head of the whole, not lines picked from it.  The
	 * first line, which names the two, always is.
	 */
	if (d->cut > 0 || (d->budget != 0 && d->out->len > 0 &&
	    d->out->len + line->len + 120 > d->budget)) {
		d->cut++;
		return 0;
	}
	ofl_buf_add(d->out, line->data, line->len);
	return 1;
}

/*
 * Text of an artifact, rendered on one line and cut at max bytes: its
 * secrets masked before the cut, so that none is shown in part.
 */
static void
add_safe(struct dctx *d, struct ofl_buf *b, const char *s, size_t n,
    size_t max)
{
	struct ofl_buf	m;
	size_t		used;

	ofl_buf_init(&m);
	if (d->sred != NULL && n > 0) {
		ofl_redact_line(d->sred, s, n, &m);
		s = m.data != NULL ? m.data : "";
		n = m.len;
	}
	ofl_render(b, (const unsigned char *)s, n, max, OFL_RENDER_ONELINE,
	    &used);
	if (used < n)
		ofl_buf_adds(b, "...");
	ofl_buf_free(&m);
}

/* A JSON Lines record: {"change":C,"key":K,...}. */
static void
json_begin(struct ofl_buf *b, const char *change, const char *what,
    const char *key, size_t klen)
{
	ofl_buf_adds(b, "{\"change\":");
	ofl_buf_add_json_cstr(b, change);
	ofl_buf_addf(b, ",\"%s\":", what);
	ofl_buf_add_json_str(b, key, klen);
}

/*
 * ,"name":VALUE, a JSON value's text as it is; one over DIFF_JSONMAX
 * bytes, which would take the budget alone, as a string of its first
 * DIFF_VALMAX, with ,"name_cut":true.
 */
static void
json_val(struct dctx *d, struct ofl_buf *b, const char *name,
    const char *val, size_t n)
{
	struct ofl_buf	t;

	ofl_buf_addf(b, ",\"%s\":", name);
	if (val == NULL) {
		ofl_buf_adds(b, "null");
		return;
	}
	if (n <= DIFF_JSONMAX) {
		ofl_buf_add(b, val, n);
		return;
	}
	ofl_buf_init(&t);
	add_safe(d, &t, val, n, DIFF_VALMAX);
	ofl_buf_add_json_str(b, t.data != NULL ? t.data : "", t.len);
	ofl_buf_addf(b, ",\"%s_cut\":true", name);
	ofl_buf_free(&t);
}

/*
 * Lines: hashes and offsets, read once.
 */
struct lines {
	uint64_t	*h;
	uint64_t	*off;
	size_t		 n;
	size_t		 cap;
	size_t		 cr;		/* lines that end in CR LF */
	int		 over;
};

static int
lines_read(const struct ofl_src *src, struct lines *l)
{
	unsigned char	 buf[65536];
	uint64_t	 pos = 0, h = FNV0;
	ssize_t		 k;
	ssize_t		 i;
	int		 open = 0, prev = 0;

	memset(l, 0, sizeof *l);
	if (ofl_src_seek(src, 0) == -1)
		return -1;
	while ((k = ofl_src_read(src, buf, sizeof buf)) > 0) {
		for (i = 0; i < k; i++, pos++) {
			if (!open) {
				if (l->n == l->cap) {
					if (l->n >= DIFF_LINES) {
						l->over = 1;
						return 0;
					}
					l->cap = l->cap ? l->cap * 2 : 1024;
					l->h = ofl_xrealloc(l->h, l->cap *
					    sizeof *l->h);
					l->off = ofl_xrealloc(l->off, l->cap *
					    sizeof *l->off);
				}
				l->off[l->n] = pos;
				h = FNV0;
				open = 1;
			}
			if (buf[i] == '\n') {
				l->h[l->n++] = h;
				l->cr += prev == '\r';
				open = 0;
			} else
				h = fnv(buf + i, 1, h);
			prev = buf[i];
		}
	}
	if (k == -1)
		return -1;
	if (open)
		l->h[l->n++] = h;
	return 0;
}

static void
lines_free(struct lines *l)
{
	free(l->h);
	free(l->off);
}

/*
 * Line i of a source (without its newline), rendered, into b; its
 * secrets masked first, over more of it than is shown, so that a secret
 * across the cut is masked whole.
 */
static void
line_text(struct dctx *d, const struct ofl_src *src, const struct lines *l,
    size_t i, struct ofl_buf *b)
{
	char		buf[DIFF_LINEMAX + DIFF_MASKMORE];
	ssize_t		k;
	size_t		n;
	char		*nl;

	if ((k = ofl_src_pread(src, buf, sizeof buf, l->off[i])) <= 0)
		return;
	n = (size_t)k;
	if ((nl = memchr(buf, '\n', n)) != NULL)
		n = (size_t)(nl - buf);
	if (n > 0 && buf[n - 1] == '\r' && !d->showcr)
		n--;
	add_safe(d, b, buf, n, DIFF_LINEMAX);
}

/*
 * A line of a hunk as JSON: {"change":"line","op":"-","old":N,"new":M,
 * "text":T}, "old" for a line of the old artifact, "new" of the new.
 */
static void
line_json(struct dctx *d, const struct lines *la, const struct lines *lb,
    char op, size_t x, size_t y, struct ofl_buf *l)
{
	struct ofl_buf	t;

	ofl_buf_init(&t);
	if (op == 'I')
		line_text(d, &d->src[1], lb, y, &t);
	else
		line_text(d, &d->src[0], la, x, &t);
	ofl_buf_addf(l, "{\"change\":\"line\",\"op\":\"%c\"",
	    op == 'E' ? ' ' : op == 'D' ? '-' : '+');
	if (op != 'I')
		ofl_buf_addf(l, ",\"old\":%zu", x + 1);
	if (op != 'D')
		ofl_buf_addf(l, ",\"new\":%zu", y + 1);
	ofl_buf_adds(l, ",\"text\":");
	ofl_buf_add_json_str(l, t.data != NULL ? t.data : "", t.len);
	ofl_buf_adds(l, "}\n");
	ofl_buf_free(&t);
}

/* The hunks of an edit script, as diff -u prints them. */
static void
unified_hunks(struct dctx *d, const struct lines *la, const struct lines *lb,
    size_t a0, size_t b0, const char *ops, size_t nops)
{
	struct ofl_buf	 l;
	size_t		 s = 0, e, i, j, k, c, run, x = a0, y = b0, prevj = 0;
	size_t		 an, bn;

	ofl_buf_init(&l);
	for (;;) {
		while (s < nops && ops[s] == 'E') {
			s++;
			x++;
			y++;
		}
		if (s >= nops)
			break;
		/* The hunk: changes closer than twice the context. */
		e = s + 1;
		for (k = s, run = 0; k < nops; k++) {
			if (ops[k] != 'E') {
				e = k + 1;
				run = 0;
			} else if (++run > 2 * DIFF_CTX)
				break;
		}
		c = s - prevj < DIFF_CTX ? s - prevj : DIFF_CTX;
		i = s - c;
		x -= c;
		y -= c;
		j = e + DIFF_CTX < nops ? e + DIFF_CTX : nops;
		for (an = bn = 0, k = i; k < j; k++) {
			an += ops[k] != 'I';
			bn += ops[k] != 'D';
		}
		ofl_buf_reset(&l);
		if (d->o->json)
			ofl_buf_addf(&l, "{\"change\":\"hunk\",\"old\":%zu,"
			    "\"old_lines\":%zu,\"new\":%zu,\"new_lines\":%zu}"
			    "\n", an ? x + 1 : x, an, bn ? y + 1 : y, bn);
		else
			ofl_buf_addf(&l, "@@ -%zu,%zu +%zu,%zu @@\n",
			    an ? x + 1 : x, an, bn ? y + 1 : y, bn);
		emit(d, &l);
		for (k = i; k < j; k++) {
			ofl_buf_reset(&l);
			if (d->o->json)
				line_json(d, la, lb, ops[k], x, y, &l);
			else {
				ofl_buf_addc(&l, ops[k] == 'E' ? ' ' :
				    ops[k] == 'D' ? '-' : '+');
				if (ops[k] == 'I')
					line_text(d, &d->src[1], lb, y, &l);
				else
					line_text(d, &d->src[0], la, x, &l);
				ofl_buf_addc(&l, '\n');
			}
			if (ops[k] != 'I')
				x++;
			if (ops[k] != 'D')
				y++;
			if (ops[k] != 'E')
				d->changes++;
			emit(d, &l);
		}
		s = prevj = j;
	}
	ofl_buf_free(&l);
}

static void
lines_said(struct dctx *, struct ofl_buf *, const char *, ...)
    OFL_PRINTF(3, 4);

/* A line of diff_lines' own, as text or as {"change":"lines",...}. */
static void
lines_said(struct dctx *d, struct ofl_buf *l, const char *fmt, ...)
{
	char	t[512];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(t, sizeof t, fmt, ap);
	va_end(ap);
	ofl_buf_reset(l);
	if (d->o->json) {
		ofl_buf_adds(l, "{\"change\":\"lines\",\"text\":");
		ofl_buf_add_json_cstr(l, t);
		ofl_buf_adds(l, "}\n");
	} else {
		ofl_buf_adds(l, t);
		ofl_buf_addc(l, '\n');
	}
}

/*
 * The lines, as a unified diff: the common head and tail are skipped
 * first; past DIFF_MAXD differences or DIFF_LINES lines the region
 * between them is said as replaced.  0 same, 1 different, -1.
 */
static int
diff_lines(struct dctx *d)
{
	struct lines	 la, lb;
	struct ofl_buf	 l;
	size_t		 p = 0, sa, sb, k, nops = 0;
	char		*ops = NULL;
	int		 rv = -1;

	ofl_buf_init(&l);
	memset(&la, 0, sizeof la);
	memset(&lb, 0, sizeof lb);
	if (lines_read(&d->src[0], &la) == -1 ||
	    lines_read(&d->src[1], &lb) == -1)
		goto out;
	/*
	 * A CR before the newline is left out of the lines shown when
	 * every line of both ends so; else it is shown (\x0d), or a line
	 * that differs by it alone would look the same on both sides.
	 */
	d->showcr = la.cr != la.n || lb.cr != lb.n;
	if (la.over || lb.over) {
		lines_said(d, &l, "lines: over %d, too many to compare line "
		    "by line: the content differs", DIFF_LINES);
		d->changes++;
		goto coarse;
	}
	while (p < la.n && p < lb.n && la.h[p] == lb.h[p])
		p++;
	sa = la.n;
	sb = lb.n;
	while (sa > p && sb > p && la.h[sa - 1] == lb.h[sb - 1]) {
		sa--;
		sb--;
	}
	if (p == la.n && p == lb.n) {
		/* Lines alike, bytes not: the last newline, or a CR. */
		if (d->differ) {
			lines_said(d, &l, "lines: the same, but not their "
			    "ends (a CR, or the newline after the last)");
			d->changes++;
			goto coarse;
		}
		rv = 0;
		goto out;
	}
	/* Context from the common head and tail. */
	p = p > DIFF_CTX ? p - DIFF_CTX : 0;
	k = la.n - sa < lb.n - sb ? la.n - sa : lb.n - sb;
	k = k < DIFF_CTX ? k : DIFF_CTX;
	sa += k;
	sb += k;
	if (ofl_diff_myers(la.h + p, sa - p, lb.h + p, sb - p, DIFF_MAXD, &ops,
	    &nops) == -1) {
		lines_said(d, &l, "lines: over %d differ: lines %zu-%zu of "
		    "ofl:%s are replaced by lines %zu-%zu of ofl:%s",
		    DIFF_MAXD, p + 1, sa, d->m[0]->id, p + 1, sb,
		    d->m[1]->id);
		emit(d, &l);
		d->changes += (sa - p) + (sb - p);
		rv = 1;
		goto out;
	}
	if (!d->o->json) {
		ofl_buf_addf(&l, "--- ofl:%s\n+++ ofl:%s\n", d->m[0]->id,
		    d->m[1]->id);
		emit(d, &l);
	}
	unified_hunks(d, &la, &lb, p, p, ops, nops);
	rv = 1;
	goto out;
coarse:
	emit(d, &l);
	rv = 1;
out:
	free(ops);
	lines_free(&la);
	lines_free(&lb);
	ofl_buf_free(&l);
	return rv;
}

/*
 * Tables, CSV and TSV: rows by key.
 */

/* The key's columns: NAMESPACE and NAME, else the first. */
static size_t
table_key(struct ofl_records *r, size_t *kc)
{
	size_t	i, ns = SIZE_MAX, nm = SIZE_MAX;

	for (i = 0; i < ofl_records_ncols(r); i++) {
		if (strcasecmp(ofl_records_name(r, i), "NAMESPACE") == 0)
			ns = i;
		else if (strcasecmp(ofl_records_name(r, i), "NAME") == 0)
			nm = i;
	}
	if (ns != SIZE_MAX && nm != SIZE_MAX) {
		kc[0] = ns;
		kc[1] = nm;
		return 2;
	}
	kc[0] = 0;
	return 1;
}

/* A row's key ("ns/name") and its cells joined by US into b. */
static void
row_key(struct ofl_records *r, const size_t *kc, size_t nk, struct ofl_buf *k,
    struct ofl_buf *cells)
{
	const char	*c;
	size_t		 i, n;

	ofl_buf_reset(k);
	ofl_buf_reset(cells);
	for (i = 0; i < nk; i++) {
		if (i > 0)
			ofl_buf_addc(k, '/');
		if ((c = ofl_records_cell(r, kc[i], &n)) != NULL)
			ofl_buf_add(k, c, n);
	}
	for (i = 0; i < ofl_records_ncols(r); i++) {
		if (i > 0)
			ofl_buf_addc(cells, '\037');
		if ((c = ofl_records_cell(r, i, &n)) != NULL)
			ofl_buf_add(cells, c, n);
	}
}

/* The next cell of a US-joined row, from *p. */
static const char *
next_cell(const char **p, const char *end, size_t *n)
{
	const char	*s = *p, *e;

	if (s > end)
		return NULL;
	e = memchr(s, '\037', (size_t)(end - s));
	if (e == NULL)
		e = end;
	*n = (size_t)(e - s);
	*p = e + 1;
	return s;
}

/* "COL old -> new, ..." or "COL value, ..." (added). */
static void
row_changes(struct dctx *d, struct ofl_records *r, const struct sent *e,
    struct ofl_buf *b, int json)
{
	const char	*po, *pn, *eo, *en, *co, *cn;
	size_t		 i, no = 0, nn = 0, shown = 0;

	po = e->val[0];
	eo = po != NULL ? po + e->vlen[0] : NULL;
	pn = e->val[1];
	en = pn != NULL ? pn + e->vlen[1] : NULL;
	for (i = 0; i < ofl_records_ncols(r); i++) {
		co = po != NULL ? next_cell(&po, eo, &no) : NULL;
		cn = pn != NULL ? next_cell(&pn, en, &nn) : NULL;
		if (co != NULL && cn != NULL && no == nn &&
		    memcmp(co, cn, no) == 0)
			continue;
		if (po != NULL && pn != NULL && co == NULL && cn == NULL)
			continue;
		if (json) {
			ofl_buf_adds(b, shown ? "," : "");
			ofl_buf_add_json_cstr(b, ofl_records_name(r, i));
			ofl_buf_adds(b, ":[");
			if (co != NULL)
				ofl_buf_add_json_str(b, co, no);
			else
				ofl_buf_adds(b, "null");
			ofl_buf_addc(b, ',');
			if (cn != NULL)
				ofl_buf_add_json_str(b, cn, nn);
			else
				ofl_buf_adds(b, "null");
			ofl_buf_addc(b, ']');
		} else {
			ofl_buf_adds(b, shown ? ", " : " ");
			ofl_buf_adds(b, ofl_records_name(r, i));
			ofl_buf_addc(b, ' ');
			if (co != NULL && cn != NULL) {
				add_safe(d, b, co, no, DIFF_VALMAX);
				ofl_buf_adds(b, " -> ");
			}
			if (cn != NULL)
				add_safe(d, b, cn, nn, DIFF_VALMAX);
			else if (co != NULL)
				add_safe(d, b, co, no, DIFF_VALMAX);
		}
		shown++;
	}
}

/*
 * Read one side's rows into the set; -1, 0, 1 if the set is full, 2 if
 * the new side's columns are not the old side's (cols: the old side's
 * names, then " -> " and the new side's).
 */
static int
table_side(struct dctx *d, int side, struct sset *s, struct ofl_records **rp,
    size_t *kc, size_t *nk, struct ofl_buf *cols)
{
	struct ofl_records	*r;
	struct ofl_buf		 k, c;
	struct sent		*e;
	uint64_t		 line;
	size_t			 i;
	int			 rv;

	if ((r = ofl_records_open(&d->src[side], d->m[side]->kind)) == NULL)
		return -1;
	if (side == 0)
		*nk = table_key(r, kc);
	/* The columns, by name: rows are compared only under one header. */
	ofl_buf_init(&k);
	for (i = 0; i < ofl_records_ncols(r); i++) {
		ofl_buf_addc(&k, '\037');
		ofl_buf_adds(&k, ofl_records_name(r, i));
	}
	if (side == 0)
		ofl_buf_add(cols, k.data, k.len);
	else if (k.len != cols->len || (k.len > 0 &&
	    memcmp(k.data, cols->data, k.len) != 0)) {
		ofl_buf_adds(cols, "\036");
		ofl_buf_add(cols, k.data, k.len);
		ofl_buf_free(&k);
		ofl_records_close(r);
		return 2;
	}
	ofl_buf_free(&k);
	ofl_buf_init(&k);
	ofl_buf_init(&c);
	while ((rv = ofl_records_next(r, &line)) == 1) {
		row_key(r, kc, *nk, &k, &c);
		if ((e = sset_get(s, k.data ? k.data : "", k.len)) == NULL)
			break;
		if (e->n[side]++ == 0) {
			e->line[side] = line;
			sent_val(e, side, c.data ? c.data : "", c.len);
		}
	}
	ofl_buf_free(&k);
	ofl_buf_free(&c);
	if (rv == -1) {
		ofl_records_close(r);
		return -1;
	}
	if (side == 0)
		ofl_records_close(r);
	else
		*rp = r;
	return s->full;
}

/*
 * "columns: A B -> C A B: the rows compared as lines", from the names
 * of both sides (each after a US, the sides apart by an RS).
 */
static void
columns_said(struct dctx *d, struct ofl_buf *l, const struct ofl_buf *cols)
{
	struct ofl_buf	t;
	const char	*p = cols->data, *e = cols->data + cols->len;
	size_t		 n;

	ofl_buf_init(&t);
	ofl_buf_adds(&t, "columns:");
	for (; p < e; p += n) {
		if (*p == '\036') {
			ofl_buf_adds(&t, " ->");
			n = 1;
			continue;
		}
		p++;		/* the US */
		for (n = 0; p + n < e && p[n] != '\037' && p[n] != '\036'; n++)
			;
		ofl_buf_addc(&t, ' ');
		add_safe(d, &t, p, n, DIFF_VALMAX);
	}
	ofl_buf_adds(&t, ": the rows compared as lines");
	lines_said(d, l, "%.400s", ofl_buf_str(&t));
	emit(d, l);
	ofl_buf_free(&t);
}

static int
diff_table(struct dctx *d)
{
	struct sset		 s;
	struct ofl_records	*r = NULL;
	struct sent		**v = NULL;
	struct ofl_buf		 l, cols;
	size_t			 kc[2], nk = 1, i, pass;
	uint64_t		 add = 0, del = 0, chg = 0;
	int			 rv = -1, t;

	sset_init(&s, DIFF_ROWS);
	ofl_buf_init(&l);
	ofl_buf_init(&cols);
	if ((t = table_side(d, 0, &s, &r, kc, &nk, &cols)) == -1)
		goto out;
	if (t == 1 || (t = table_side(d, 1, &s, &r, kc, &nk, &cols)) != 0) {
		if (t == -1)
			goto out;
		if (t == 2)
			columns_said(d, &l, &cols);
		rv = diff_lines(d);	/* too many rows to key */
		goto out;
	}
	v = sset_sorted(&s);
	for (i = 0; i < s.n; i++) {
		if (v[i]->n[0] == 0)
			add++;
		else if (v[i]->n[1] == 0)
			del++;
		else if (v[i]->vlen[0] != v[i]->vlen[1] || memcmp(v[i]->val[0],
		    v[i]->val[1], v[i]->vlen[0]) != 0)
			chg++;
	}
	d->changes = add + del + chg;
	if (d->o->json) {
		ofl_buf_addf(&l, "{\"kind\":\"rows\",\"key\":");
		ofl_buf_add_json_cstr(&l, nk == 2 ? "NAMESPACE/NAME" :
		    ofl_records_name(r, kc[0]));
		ofl_buf_addf(&l, ",\"added\":%" PRIu64 ",\"removed\":%"
		    PRIu64 ",\"changed\":%" PRIu64 "}\n", add, del, chg);
	} else {
		ofl_buf_addf(&l, "rows: %" PRIu64 " added, %" PRIu64
		    " removed, %" PRIu64 " changed (key: ", add, del, chg);
		if (nk == 2)
			ofl_buf_adds(&l, "NAMESPACE/NAME)\n");
		else {
			ofl_buf_adds(&l, ofl_records_name(r, kc[0]));
			ofl_buf_adds(&l, ")\n");
		}
	}
	emit(d, &l);
	/* Added, then removed, then changed: the new first. */
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < s.n; i++) {
			struct sent	*e = v[i];
			int		 kind = e->n[0] == 0 ? 0 :
					    e->n[1] == 0 ? 1 : 2;

			if ((size_t)kind != pass || (kind == 2 &&
			    e->vlen[0] == e->vlen[1] && memcmp(e->val[0],
			    e->val[1], e->vlen[0]) == 0))
				continue;
			ofl_buf_reset(&l);
			if (d->o->json) {
				json_begin(&l, kind == 0 ? "added" : kind == 1 ?
				    "removed" : "changed", "key", e->key,
				    e->klen);
				ofl_buf_addf(&l, ",\"line\":%" PRIu64 ",\"cells\":{",
				    e->line[kind == 1 ? 0 : 1]);
				row_changes(d, r, e, &l, 1);
				ofl_buf_adds(&l, "}}\n");
			} else {
				ofl_buf_adds(&l, kind == 0 ? "+ " : kind == 1 ?
				    "- " : "~ ");
				add_safe(d, &l, e->key, e->klen, DIFF_VALMAX);
				ofl_buf_addf(&l, " (line %" PRIu64 "):",
				    e->line[kind == 1 ? 0 : 1]);
				row_changes(d, r, e, &l, 0);
				ofl_buf_addc(&l, '\n');
			}
			emit(d, &l);
		}
	}
	rv = d->changes > 0;
out:
	free(v);
	ofl_records_close(r);
	sset_free(&s);
	ofl_buf_free(&l);
	ofl_buf_free(&cols);
	return rv;
}

/*
 * JSON and NDJSON: scalars by path.
 */
struct jside {
	struct dctx	*d;
	struct sset	*s;
	int		 side;
	uint64_t	 top;		/* top-level values so far */
	int		 nd;
	struct ofl_buf	 path;
	struct ofl_buf	 val;
};

static int
json_cb(struct ofl_json *j, const struct ofl_json_event *ev, void *arg)
{
	struct jside	*js = arg;
	struct sent	*e;

	if (ev->type == OFL_JSON_OBJECT_BEGIN ||
	    ev->type == OFL_JSON_ARRAY_BEGIN)
		return 0;
	if (ev->type == OFL_JSON_OBJECT_END ||
	    ev->type == OFL_JSON_ARRAY_END) {
		if (ev->depth == 0)
			js->top++;
		return 0;
	}
	ofl_buf_reset(&js->path);
	if (js->nd)
		ofl_buf_addf(&js->path, "[%" PRIu64 "]", js->top);
	ofl_json_path(j, &js->path);
	if (js->nd && js->path.len > 1 && js->path.data[js->path.len - 1] ==
	    '.' )
		js->path.len--;
	ofl_buf_reset(&js->val);
	switch (ev->type) {
	case OFL_JSON_STRING:
		ofl_buf_add_json_str(&js->val, ev->str, ev->len);
		break;
	case OFL_JSON_NUMBER:
		ofl_buf_add(&js->val, ev->str, ev->len);
		break;
	case OFL_JSON_TRUE:
		ofl_buf_adds(&js->val, "true");
		break;
	case OFL_JSON_FALSE:
		ofl_buf_adds(&js->val, "false");
		break;
	default:
		ofl_buf_adds(&js->val, "null");
		break;
	}
	if (ev->depth == 0)
		js->top++;
	if ((e = sset_get(js->s, js->path.data, js->path.len)) == NULL)
		return 1;
	if (e->n[js->side]++ == 0) {
		e->line[js->side] = ev->line;
		sent_val(e, js->side, js->val.data, js->val.len);
	}
	return 0;
}

static int
json_side(struct dctx *d, int side, struct sset *s)
{
	struct jside	 js;
	struct ofl_json	*j;
	char		 buf[65536];
	ssize_t		 k;
	int		 r = 0;

	memset(&js, 0, sizeof js);
	js.d = d;
	js.s = s;
	js.side = side;
	js.nd = d->m[side]->kind == OFL_KIND_NDJSON;
	ofl_buf_init(&js.path);
	ofl_buf_init(&js.val);
	if ((j = ofl_json_new(OFL_JSON_MULTI, json_cb, &js)) == NULL ||
	    ofl_src_seek(&d->src[side], 0) == -1) {
		r = -1;
		goto out;
	}
	while ((k = ofl_src_read(&d->src[side], buf, sizeof buf)) > 0)
		if ((r = ofl_json_feed(j, buf, (size_t)k)) != 0)
			break;
	if (k == -1)
		r = -1;
	else if (r == 0)
		r = ofl_json_finish(j);
out:
	ofl_json_free(j);
	ofl_buf_free(&js.path);
	ofl_buf_free(&js.val);
	if (r == 1)
		return 1;	/* too many paths */
	return r == 0 ? 0 : -1;
}

static int
diff_json(struct dctx *d)
{
	struct sset	 s;
	struct sent	**v = NULL;
	struct ofl_buf	 l;
	size_t		 i, pass;
	uint64_t	 add = 0, del = 0, chg = 0;
	int		 rv = -1, t;

	sset_init(&s, DIFF_PATHS);
	ofl_buf_init(&l);
	if ((t = json_side(d, 0, &s)) == 0)
		t = json_side(d, 1, &s);
	if (t != 0) {
		/* Not JSON after all, or too big: the lines. */
		ofl_clearerr();
		rv = diff_lines(d);
		goto out;
	}
	v = sset_sorted(&s);
	for (i = 0; i < s.n; i++) {
		if (v[i]->n[0] == 0)
			add++;
		else if (v[i]->n[1] == 0)
			del++;
		else if (strcmp(v[i]->val[0], v[i]->val[1]) != 0)
			chg++;
	}
	d->changes = add + del + chg;
	if (d->o->json)
		ofl_buf_addf(&l, "{\"kind\":\"paths\",\"added\":%" PRIu64
		    ",\"removed\":%" PRIu64 ",\"changed\":%" PRIu64 "}\n",
		    add, del, chg);
	else
		ofl_buf_addf(&l, "paths: %" PRIu64 " added, %" PRIu64
		    " removed, %" PRIu64 " changed\n", add, del, chg);
	emit(d, &l);
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < s.n; i++) {
			struct sent	*e = v[i];
			int		 kind = e->n[0] == 0 ? 0 :
					    e->n[1] == 0 ? 1 : 2;

			if ((size_t)kind != pass || (kind == 2 &&
			    strcmp(e->val[0], e->val[1]) == 0))
				continue;
			ofl_buf_reset(&l);
			if (d->o->json) {
				json_begin(&l, kind == 0 ? "added" : kind == 1 ?
				    "removed" : "changed", "path", e->key,
				    e->klen);
				json_val(d, &l, "old", e->val[0], e->vlen[0]);
				json_val(d, &l, "new", e->val[1], e->vlen[1]);
				ofl_buf_adds(&l, "}\n");
			} else {
				ofl_buf_adds(&l, kind == 0 ? "+ " : kind == 1 ?
				    "- " : "~ ");
				add_safe(d, &l, e->key, e->klen, DIFF_LINEMAX);
				ofl_buf_adds(&l, ": ");
				if (kind == 2) {
					add_safe(d, &l, e->val[0], e->vlen[0],
					    DIFF_VALMAX);
					ofl_buf_adds(&l, " -> ");
				}
				add_safe(d, &l, e->val[kind == 1 ? 0 : 1],
				    e->vlen[kind == 1 ? 0 : 1], DIFF_VALMAX);
				ofl_buf_addc(&l, '\n');
			}
			emit(d, &l);
		}
	}
	rv = d->changes > 0;
out:
	free(v);
	sset_free(&s);
	ofl_buf_free(&l);
	return rv;
}

/*
 * Logs and test output.
 */

/*
 * The failing tests and the error lines of one side: each line that
 * ofl_diff_failing_test() names a test of goes to tests, each error line
 * (fmt-log.c's rule) to sigs by its masked text.
 */
static int
log_side(struct dctx *d, int side, struct sset *tests, struct sset *sigs)
{
	struct ofl_fmt_table_rd	 rd;
	struct ofl_buf		 b;
	struct sent		*e;
	const char		*p;
	size_t			 n;
	uint64_t		 no = 0;
	int			 rv;

	if (ofl_src_seek(&d->src[side], 0) == -1)
		return -1;
	ofl_fmt_table_rd_init(&rd, &d->src[side], 0);
	ofl_buf_init(&b);
	while ((rv = ofl_fmt_table_rd_next(&rd, &p, &n)) == 1) {
		no++;
		ofl_buf_reset(&b);
		if (ofl_diff_failing_test(p, n, &b) &&
		    (e = sset_get(tests, b.data, b.len)) != NULL) {
			if (e->n[side]++ == 0)
				e->line[side] = no;
			continue;
		}
		if (!ofl_fmt_log_is_error(p, n, no))
			continue;
		ofl_buf_reset(&b);
		ofl_fmt_log_mask(&b, p, n);
		if ((e = sset_get(sigs, b.data ? b.data : "", b.len)) != NULL &&
		    e->n[side]++ == 0)
			e->line[side] = no;
	}
	ofl_fmt_table_rd_free(&rd);
	ofl_buf_free(&b);
	return rv;
}

static void
log_entry(struct dctx *d, const char *what, const char *change,
    const struct sent *e, int counts)
{
	struct ofl_buf	l;
	int		side = e->n[1] > 0 ? 1 : 0;

	ofl_buf_init(&l);
	if (d->o->json) {
		json_begin(&l, strcmp(change, "new failure:") == 0 ?
		    "failing" : strcmp(change, "still failing:") == 0 ?
		    "still" : strcmp(change, "now passing:") == 0 ? "passing" :
		    strcmp(change, "new:") == 0 ? "new" : strcmp(change,
		    "gone:") == 0 ? "gone" : "recounted", what, e->key,
		    e->klen);
		ofl_buf_addf(&l, ",\"line\":%" PRIu64 ",\"old\":%" PRIu64
		    ",\"new\":%" PRIu64 "}\n", e->line[side], e->n[0], e->n[1]);
	} else {
		ofl_buf_addf(&l, "  %s ", change);
		add_safe(d, &l, e->key, e->klen, DIFF_LINEMAX);
		if (counts)
			ofl_buf_addf(&l, "  (x%" PRIu64 " -> x%" PRIu64 ")",
			    e->n[0], e->n[1]);
		ofl_buf_addf(&l, "  (line %" PRIu64 "%s)\n", e->line[side],
		    side == 0 ? " of the old" : "");
	}
	emit(d, &l);
	ofl_buf_free(&l);
}

/* Tests: newly failing, still failing, newly passing. */
static void
log_tests(struct dctx *d, struct sset *t)
{
	struct sent		**v = sset_sorted(t);
	struct ofl_buf		 l;
	uint64_t		 c[3] = { 0, 0, 0 };
	size_t			 i, pass;

	for (i = 0; i < t->n; i++)
		c[v[i]->n[0] == 0 ? 0 : v[i]->n[1] > 0 ? 1 : 2]++;
	d->changes += c[0] + c[2];
	ofl_buf_init(&l);
	if (d->o->json)
		ofl_buf_addf(&l, "{\"kind\":\"tests\",\"newly_failing\":%"
		    PRIu64 ",\"still_failing\":%" PRIu64 ",\"newly_passing\":%"
		    PRIu64 "}\n", c[0], c[1], c[2]);
	else
		ofl_buf_addf(&l, "tests: %" PRIu64 " newly failing, %" PRIu64
		    " still failing, %" PRIu64 " newly passing\n", c[0], c[1],
		    c[2]);
	emit(d, &l);
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < t->n; i++) {
			int k = v[i]->n[0] == 0 ? 0 : v[i]->n[1] > 0 ? 1 : 2;

			if ((size_t)k == pass)
				log_entry(d, "test", pass == 0 ?
				    "new failure:" : pass == 1 ?
				    "still failing:" : "now passing:", v[i], 0);
		}
	}
	ofl_buf_free(&l);
	free(v);
}

/* Error lines: new ones, then gone ones, then counted differently. */
static void
log_errors(struct dctx *d, struct sset *s)
{
	struct sent	**v = sset_sorted(s);
	struct ofl_buf	 l;
	uint64_t	 c[3] = { 0, 0, 0 };
	size_t		 i, pass;

	for (i = 0; i < s->n; i++)
		if (v[i]->n[0] != v[i]->n[1])
			c[v[i]->n[0] == 0 ? 0 : v[i]->n[1] == 0 ? 1 : 2]++;
	d->changes += c[0] + c[1] + c[2];
	ofl_buf_init(&l);
	if (d->o->json)
		ofl_buf_addf(&l, "{\"kind\":\"errors\",\"new\":%" PRIu64
		    ",\"gone\":%" PRIu64 ",\"recounted\":%" PRIu64 "}\n",
		    c[0], c[1], c[2]);
	else
		ofl_buf_addf(&l, "error lines: %" PRIu64 " new, %" PRIu64
		    " gone, %" PRIu64 " counted differently\n", c[0], c[1],
		    c[2]);
	emit(d, &l);
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < s->n; i++) {
			int k;

			if (v[i]->n[0] == v[i]->n[1])
				continue;
			k = v[i]->n[0] == 0 ? 0 : v[i]->n[1] == 0 ? 1 : 2;
			if ((size_t)k == pass)
				log_entry(d, "error", pass == 0 ? "new:" :
				    pass == 1 ? "gone:" : "recounted:", v[i],
				    pass == 2);
		}
	ofl_buf_free(&l);
	free(v);
}

static int
diff_log(struct dctx *d)
{
	struct sset	tests, sigs;
	int		rv = -1, lines;

	sset_init(&tests, DIFF_SIGS);
	sset_init(&sigs, DIFF_SIGS);
	if (log_side(d, 0, &tests, &sigs) == -1 ||
	    log_side(d, 1, &tests, &sigs) == -1)
		goto out;
	if (tests.n > 0)
		log_tests(d, &tests);
	if (sigs.n > 0)
		log_errors(d, &sigs);
	/* Then the lines themselves, in what the budget leaves. */
	if (!d->o->json || (tests.n == 0 && sigs.n == 0)) {
		uint64_t c = d->changes;

		if ((lines = diff_lines(d)) == -1)
			goto out;
		if (lines > 0 && c == 0 && d->changes == 0)
			d->changes = 1;
		rv = lines > 0 || d->changes > 0;
	} else
		rv = d->changes > 0;
out:
	sset_free(&tests);
	sset_free(&sigs);
	return rv;
}

/*
 * The entry point.
 */
void
ofl_diff_opts_init(struct ofl_diff_opts *o)
{
	memset(o, 0, sizeof *o);
	o->budget = OFL_DIFF_BUDGET;
}

/*
 * Browser snapshots: elements matched by role, name and path, so that
 * refs renumbered are no change (fmt-snapshot-diff.c).  With -j, a
 * record per line of the report.
 */
static int
diff_snapshot(struct dctx *d)
{
	const struct ofl_buf *m;
	struct ofl_buf	 r, l;
	const char	*p, *e, *nl;
	size_t		 more;
	int		 rv = -1;

	ofl_buf_init(&r);
	ofl_buf_init(&l);
	if (ofl_fmt_snapshot_diff(&d->src[0], &d->src[1], d->budget, &r) == -1)
		goto out;
	p = r.data;
	e = r.data + r.len;
	if (r.len > 0 && strncmp(r.data, "no changes", 10) != 0)
		d->changes = 1;
	while (p != NULL && p < e) {
		if ((nl = memchr(p, '\n', e - p)) == NULL)
			nl = e;
		/* Its own cut: said as every other kind's, at the end. */
		if (sscanf(p, "[... %zu more not shown]", &more) == 1) {
			d->cut += (int)more;
			p = nl + 1;
			continue;
		}
		ofl_buf_reset(&l);
		if (d->o->json) {
			json_begin(&l, "snapshot", "line", p, nl - p);
			ofl_buf_adds(&l, "}\n");
		} else {
			ofl_buf_add(&l, p, nl - p);
			ofl_buf_addc(&l, '\n');
		}
		m = masked(d, &l);
		ofl_buf_add(d->out, m->data, m->len);
		p = nl + 1;
	}
	rv = d->changes > 0;
out:
	ofl_buf_free(&r);
	ofl_buf_free(&l);
	return rv;
}

static int
diff_kind(struct dctx *d)
{
	int	a = d->m[0]->kind, b = d->m[1]->kind;

	if (ofl_records_supports(a) && a == b)
		return diff_table(d);
	if ((a == OFL_KIND_JSON || a == OFL_KIND_NDJSON) && a == b)
		return diff_json(d);
	if (a == OFL_KIND_SNAPSHOT && a == b)
		return diff_snapshot(d);
	if (a == OFL_KIND_LOG || a == OFL_KIND_TEXT || b == OFL_KIND_LOG ||
	    b == OFL_KIND_TEXT)
		return diff_log(d);
	return diff_lines(d);
}

int
ofl_diff(struct ofl_store *st, const char *old, const char *new,
    const struct ofl_diff_opts *o, struct ofl_buf *out)
{
	struct ofl_reader	*r[2] = { NULL, NULL };
	struct dctx		 d;
	struct ofl_buf		 l;
	const char		*ids[2] = { old, new };
	int			 i, rv = -1;

	memset(&d, 0, sizeof d);
	d.st = st;
	d.o = o;
	d.out = out;
	ofl_buf_init(&d.mask);
	if (o->red != NULL)
		d.sred = ofl_redactor_new_like(o->red);
	d.budget = o->budget;
	ofl_buf_init(&l);
	for (i = 0; i < 2; i++) {
		if ((r[i] = ofl_reader_open(st, ids[i])) == NULL)
			goto out;
		d.m[i] = ofl_reader_meta(r[i]);
		ofl_reader_src(r[i], &d.src[i]);
	}
	if (o->json) {
		ofl_buf_addf(&l, "{\"old\":\"%s\",\"new\":\"%s\","
		    "\"old_kind\":\"%s\",\"new_kind\":\"%s\"}\n", d.m[0]->id,
		    d.m[1]->id, ofl_kind_name(d.m[0]->kind),
		    ofl_kind_name(d.m[1]->kind));
	} else {
		ofl_buf_addf(&l, "ofl:%s %s -> ofl:%s %s\n", d.m[0]->id,
		    ofl_kind_name(d.m[0]->kind), d.m[1]->id,
		    ofl_kind_name(d.m[1]->kind));
	}
	emit(&d, &l);
	/*
	 * A hash is empty while an artifact is written, or when a repair
	 * kept only part of it: then the sizes alone can tell.
	 */
	d.differ = d.m[0]->bytes != d.m[1]->bytes || (*d.m[0]->hash !=
	    '\0' && *d.m[1]->hash != '\0' && strcmp(d.m[0]->hash,
	    d.m[1]->hash) != 0);
	if (*d.m[0]->hash != '\0' && strcmp(d.m[0]->hash, d.m[1]->hash) ==
	    0 && d.m[0]->bytes == d.m[1]->bytes)
		rv = 0;
	else if ((rv = diff_kind(&d)) == -1)
		goto out;
	else if (rv == 0 && d.differ &&
	    d.m[0]->kind != OFL_KIND_SNAPSHOT) {
		/*
		 * The bytes differ where the kind's comparison saw no change
		 * (an empty array gone, a key twice, rows reordered): the
		 * lines say what.  Not for snapshots, whose refs renumbered
		 * are no change.
		 */
		lines_said(&d, &l, "no change by %s; the text differs:",
		    ofl_kind_name(d.m[0]->kind));
		emit(&d, &l);
		if ((rv = diff_lines(&d)) == -1)
			goto out;
	}
	if (rv == 0 && !o->json && !d.differ) {
		ofl_buf_reset(&l);
		ofl_buf_adds(&l, "same content\n");
		emit(&d, &l);
	}
	if (d.cut > 0) {
		ofl_buf_reset(&l);
		if (o->json)
			ofl_buf_addf(&l, "{\"cut\":%d,\"rest\":\"ofl-diff -m 0 "
			    "%s %s\"}\n", d.cut, d.m[0]->id, d.m[1]->id);
		else
			ofl_buf_addf(&l, "[... %d more lines not shown: "
			    "ofl-diff -m 0 %s %s]\n", d.cut, d.m[0]->id,
			    d.m[1]->id);
		ofl_buf_add(out, l.data, l.len);
	}
out:
	for (i = 0; i < 2; i++)
		ofl_reader_close(r[i]);
	ofl_buf_free(&l);
	ofl_buf_free(&d.mask);
	if (d.sred != NULL) {
		ofl_redactor_add(o->red, ofl_redactor_count(d.sred));
		ofl_redactor_free(d.sred);
	}
	return rv;
}
