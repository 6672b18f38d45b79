/*
 * schema-out.c: the three writers of a schema tree (schema.c builds it),
 * the JSON Schema, the compact text shape and the shape as JSON Lines,
 * and ofl_schema_shape, which reads an artifact and writes its shape.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "schema-int.h"
#include "banned.h"

static const char *fmtnames[] = {
	"date-time", "date", "time", "uuid", "email", "uri", "ipv4", "ipv6"
};

static void	add_num(struct ofl_buf *, double, int);
static void	add_str(struct ofl_buf *, const char *, size_t);
static void	add_example(struct ofl_buf *, const char *, size_t, int);
static void	add_key(struct ofl_buf *, const char *, size_t);
static void	add_count(struct ofl_buf *, uint64_t);

static void	js_indent(struct ofl_buf *, int, int);
static void	js_node(struct ofl_buf *, struct snode *, int, int, int);
static void	js_object(struct ofl_buf *, struct snode *, int, int);
static void	js_csv(struct ofl_schema *, struct ofl_buf *, int);

struct render {
	struct ofl_buf	*out;
	size_t		 maxdepth;
	size_t		 maxkeys;	/* keys shown per object, 0: all */
	size_t		 width;
	size_t		 linestart;
	uint64_t	 elided;	/* containers shown as {...} */
	uint64_t	 shown;		/* nodes shown */
};
static void	sh_wrap(struct render *);
static void	sh_node(struct render *, struct snode *, size_t);
static void	sh_object(struct render *, struct snode *, size_t);
static void	enum_order(const struct strset *, size_t *);
static int	enum_ok(const struct strset *, uint64_t);
static void	sh_strings(struct ofl_buf *, const struct strset *,
		    uint64_t, unsigned int, const char *);
static size_t	tree_depth(struct snode *);
static int	is_map(struct snode *);
static struct snode *map_merge(struct snode *);
static void	merge(struct snode *, struct snode *);
static size_t	count_lines(const char *, size_t);
static void	render_json(struct ofl_schema *, struct render *,
		    struct ofl_buf *, struct ofl_buf *);
static void	shape_json(struct ofl_schema *, size_t, size_t,
		    struct ofl_buf *);
static void	shape_csv(struct ofl_schema *, size_t, size_t,
		    struct ofl_buf *);
static void	jl_node(struct ofl_buf *, struct snode *, struct ofl_buf *,
		    uint64_t);

static void
add_num(struct ofl_buf *b, double v, int prec)
{
	if (v == floor(v) && fabs(v) < 1e15)
		ofl_buf_addf(b, "%.0f", v);
	else if (isfinite(v))
		ofl_buf_addf(b, "%.*g", prec, v);
	else
		ofl_buf_adds(b, v < 0 ? "-1.7976931348623157e+308" :
		    "1.7976931348623157e+308");
}

/* A JSON string as jq 1.6 writes it. */
static void
add_str(struct ofl_buf *b, const char *s, size_t n)
{
	ofl_buf_add_json_str(b, s, n);
}

/*
 * A value shown as an example: whole when it is short, else its first
 * ENUM_LEN bytes (never half a character) with "..." after the closing
 * quote, outside the value, so a cut cannot pass for the value itself.
 */
static void
add_example(struct ofl_buf *b, const char *s, size_t n, int cut)
{
	size_t	k = n;

	if (n > EXAMPLE_WHOLE) {
		k = ENUM_LEN;
		while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
			k--;
		cut = 1;
	}
	add_str(b, s, k);
	if (cut)
		ofl_buf_adds(b, "...");
}

/* A key in the shape: bare when it is a plain word, else quoted. */
static void
add_key(struct ofl_buf *b, const char *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') ||
		    (k[i] >= 'A' && k[i] <= 'Z') || k[i] == '_' ||
		    (i > 0 && ((k[i] >= '0' && k[i] <= '9') || k[i] == '-'))))
			break;
	if (n > 0 && i == n)
		ofl_buf_add(b, k, n);
	else
		add_str(b, k, n);
}

static void
add_count(struct ofl_buf *b, uint64_t n)
{
	char s[32];

	ofl_fmt_count(s, sizeof(s), n);
	ofl_buf_adds(b, s);
}

/* JSON Schema. */

static void
js_indent(struct ofl_buf *b, int compact, int level)
{
	if (compact)
		return;
	ofl_buf_addc(b, '\n');
	while (level-- > 0)
		ofl_buf_adds(b, "  ");
}

static int
cmp_keys(const void *a, const void *b)
{
	const struct snode *x = *(struct snode *const *)a;
	const struct snode *y = *(struct snode *const *)b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	int r;

	if ((r = memcmp(x->key, y->key, n)) != 0)
		return r;
	return x->keylen < y->keylen ? -1 : x->keylen > y->keylen;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
js_object(struct ofl_buf *b, struct snode *n, int compact, int level)
{
	struct snode *c, **req;
	size_t nreq = 0, i;
	const char *sep = compact ? "," : ",";

	ofl_buf_adds(b, "\"type\":");
	ofl_buf_adds(b, compact ? "\"object\"" : " \"object\"");
	ofl_buf_adds(b, sep);
	js_indent(b, compact, level);
	ofl_buf_adds(b, compact ? "\"properties\":{" : "\"properties\": {");
	for (c = n->props; c != NULL; c = c->next) {
		js_indent(b, compact, level + 1);
		add_str(b, c->key, c->keylen);
		ofl_buf_adds(b, compact ? ":" : ": ");
		js_node(b, c, compact, level + 1, 0);
		if (c->next != NULL)
			ofl_buf_addc(b, ',');
		if (c->present == n->n[T_OBJ])
			nreq++;
	}
	js_indent(b, compact, level);
	ofl_buf_addc(b, '}');
	if (nreq == 0)
		return;
	req = ofl_xcalloc(nreq, sizeof(*req));
	nreq = 0;
	for (c = n->props; c != NULL; c = c->next)
		if (c->present == n->n[T_OBJ])
			req[nreq++] = c;
	qsort(req, nreq, sizeof(*req), cmp_keys);
	ofl_buf_addc(b, ',');
	js_indent(b, compact, level);
	ofl_buf_adds(b, compact ? "\"required\":[" : "\"required\": [");
	for (i = 0; i < nreq; i++) {
		js_indent(b, compact, level + 1);
		add_str(b, req[i]->key, req[i]->keylen);
		if (i + 1 < nreq)
			ofl_buf_addc(b, ',');
	}
	js_indent(b, compact, level);
	ofl_buf_addc(b, ']');
	free(req);
}

/*
 * One schema node as genson's SchemaNode.to_schema() builds it.  The
 * root carries "$schema" first.
 */
static void
js_node(struct ofl_buf *b, struct snode *n, int compact, int level,
    int root)
{
	const char *types[T_COUNT];
	struct snode *complex[2];
	size_t ntypes = 0, ncomplex = 0, i, entries;
	int obj, arr, l;

	obj = n->n[T_OBJ] > 0 && n->nprops > 0;
	arr = n->n[T_ARR] > 0 && n->items != NULL;
	if (n->n[T_OBJ] > 0 && !obj)
		types[ntypes++] = "object";
	if (n->n[T_ARR] > 0 && !arr)
		types[ntypes++] = "array";
	if (n->n[T_STR] > 0)
		types[ntypes++] = "string";
	if (n->n[T_REAL] > 0)
		types[ntypes++] = "number";
	else if (n->n[T_INT] > 0)
		types[ntypes++] = "integer";
	if (n->n[T_BOOL] > 0)
		types[ntypes++] = "boolean";
	if (n->n[T_NULL] > 0)
		types[ntypes++] = "null";
	qsort(types, ntypes, sizeof(types[0]), cmp_str);
	if (arr && (n->arrfirst || !obj))
		complex[ncomplex++] = NULL;	/* NULL: the array */
	if (obj)
		complex[ncomplex++] = n;
	if (arr && !n->arrfirst && obj)
		complex[ncomplex++] = NULL;
	entries = (ntypes > 0) + ncomplex;

	ofl_buf_addc(b, '{');
	if (root) {
		js_indent(b, compact, level + 1);
		ofl_buf_adds(b, compact ? "\"$schema\":" : "\"$schema\": ");
		ofl_buf_adds(b, "\"http://json-schema.org/schema#\"");
		if (entries > 0)
			ofl_buf_addc(b, ',');
	}
	if (entries == 0) {
		if (root)
			js_indent(b, compact, level);
		ofl_buf_addc(b, '}');
		return;
	}
	l = level + 1;
	if (entries > 1) {
		js_indent(b, compact, l);
		ofl_buf_adds(b, compact ? "\"anyOf\":[" : "\"anyOf\": [");
		js_indent(b, compact, l + 1);
		ofl_buf_addc(b, '{');
		l += 2;
	}
	if (ntypes > 0) {
		js_indent(b, compact, l);
		ofl_buf_adds(b, compact ? "\"type\":" : "\"type\": ");
		if (ntypes == 1) {
			add_str(b, types[0], strlen(types[0]));
		} else {
			ofl_buf_addc(b, '[');
			for (i = 0; i < ntypes; i++) {
				js_indent(b, compact, l + 1);
				add_str(b, types[i], strlen(types[i]));
				if (i + 1 < ntypes)
					ofl_buf_addc(b, ',');
			}
			js_indent(b, compact, l);
			ofl_buf_addc(b, ']');
		}
	}
	for (i = 0; i < ncomplex; i++) {
		if (entries > 1) {
			if (i > 0 || ntypes > 0) {
				js_indent(b, compact, l - 1);
				ofl_buf_addc(b, '}');
				ofl_buf_addc(b, ',');
				js_indent(b, compact, l - 1);
				ofl_buf_addc(b, '{');
			}
		}
		js_indent(b, compact, l);
		if (complex[i] != NULL) {
			js_object(b, n, compact, l);
			continue;
		}
		ofl_buf_adds(b, compact ? "\"type\":\"array\"," :
		    "\"type\": \"array\",");
		js_indent(b, compact, l);
		ofl_buf_adds(b, compact ? "\"items\":" : "\"items\": ");
		js_node(b, n->items, compact, l, 0);
	}
	if (entries > 1) {
		js_indent(b, compact, l - 1);
		ofl_buf_addc(b, '}');
		js_indent(b, compact, l - 2);
		ofl_buf_addc(b, ']');
	}
	js_indent(b, compact, level);
	ofl_buf_addc(b, '}');
}

/* CSV rows as an array of objects, one property per column. */
static void
js_csv(struct ofl_schema *s, struct ofl_buf *b, int compact)
{
	struct column *c;
	const char **req;
	size_t i, nreq = 0, nt;
	const char *t;

	ofl_buf_addc(b, '{');
	js_indent(b, compact, 1);
	ofl_buf_adds(b, compact ? "\"$schema\":" : "\"$schema\": ");
	ofl_buf_adds(b, "\"http://json-schema.org/schema#\",");
	js_indent(b, compact, 1);
	ofl_buf_adds(b, compact ? "\"type\":\"array\"," :
	    "\"type\": \"array\",");
	js_indent(b, compact, 1);
	ofl_buf_adds(b, compact ? "\"items\":{" : "\"items\": {");
	js_indent(b, compact, 2);
	ofl_buf_adds(b, compact ? "\"type\":\"object\"" :
	    "\"type\": \"object\"");
	req = ofl_xcalloc(s->ncols + 1, sizeof(*req));
	if (s->ncols > 0) {
		ofl_buf_addc(b, ',');
		js_indent(b, compact, 2);
		ofl_buf_adds(b, compact ? "\"properties\":{" :
		    "\"properties\": {");
	}
	for (i = 0; i < s->ncols; i++) {
		c = &s->cols[i];
		js_indent(b, compact, 3);
		add_str(b, c->name, c->namelen);
		ofl_buf_adds(b, compact ? ":{" : ": {");
		js_indent(b, compact, 4);
		ofl_buf_adds(b, compact ? "\"type\":" : "\"type\": ");
		if (c->count == 0)
			t = "null";
		else if (c->types & C_INT)
			t = "integer";
		else if (c->types & C_NUM)
			t = "number";
		else if (c->types & C_BOOL)
			t = "boolean";
		else
			t = "string";
		nt = c->count > 0 && (c->empty + c->nulls) > 0;
		if (nt) {
			ofl_buf_addc(b, '[');
			js_indent(b, compact, 5);
			add_str(b, t, strlen(t));
			ofl_buf_addc(b, ',');
			js_indent(b, compact, 5);
			ofl_buf_adds(b, "\"null\"");
			js_indent(b, compact, 4);
			ofl_buf_addc(b, ']');
		} else
			add_str(b, t, strlen(t));
		if (c->count > 0 && !(c->types & (C_INT | C_NUM | C_BOOL)) &&
		    (c->types & (C_DATE | C_DATETIME | C_TIME))) {
			ofl_buf_addc(b, ',');
			js_indent(b, compact, 4);
			ofl_buf_adds(b, compact ? "\"format\":" :
			    "\"format\": ");
			ofl_buf_adds(b, c->types & C_DATE ? "\"date\"" :
			    c->types & C_DATETIME ? "\"date-time\"" :
			    "\"time\"");
		}
		js_indent(b, compact, 3);
		ofl_buf_addc(b, '}');
		if (i + 1 < s->ncols)
			ofl_buf_addc(b, ',');
		if (c->empty + c->nulls == 0)
			req[nreq++] = c->name;
	}
	if (s->ncols > 0) {
		js_indent(b, compact, 2);
		ofl_buf_addc(b, '}');
	}
	if (nreq > 0) {
		qsort(req, nreq, sizeof(*req), cmp_str);
		ofl_buf_addc(b, ',');
		js_indent(b, compact, 2);
		ofl_buf_adds(b, compact ? "\"required\":[" :
		    "\"required\": [");
		for (i = 0; i < nreq; i++) {
			js_indent(b, compact, 3);
			add_str(b, req[i], strlen(req[i]));
			if (i + 1 < nreq)
				ofl_buf_addc(b, ',');
		}
		js_indent(b, compact, 2);
		ofl_buf_addc(b, ']');
	}
	free(req);
	js_indent(b, compact, 1);
	ofl_buf_addc(b, '}');
	js_indent(b, compact, 0);
	ofl_buf_addc(b, '}');
}

void
ofl_schema_json_schema(struct ofl_schema *s, int compact, struct ofl_buf *b)
{
	if (s->parser == NULL)
		js_csv(s, b, compact);
	else
		js_node(b, s->root, compact, 0, 1);
	ofl_buf_addc(b, '\n');
}

/* The shape. */

static void
sh_wrap(struct render *r)
{
	if (r->width > 0 && r->out->len - r->linestart > r->width) {
		ofl_buf_adds(r->out, ",\n  ");
		r->linestart = r->out->len - 2;
	} else
		ofl_buf_adds(r->out, ", ");
}

/* The indexes of e's strings, the most counted first, ties as seen. */
static void
enum_order(const struct strset *e, size_t *ord)
{
	size_t i, j;

	for (i = 0; i < e->n; i++) {
		for (j = i; j > 0 && e->count[ord[j - 1]] < e->count[i]; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
	}
}

/* A few distinct strings that repeat, or a single one, make an enum. */
static int
enum_ok(const struct strset *e, uint64_t count)
{
	size_t i, total = 0;

	if (e == NULL || e->over || e->n == 0 || e->n > ENUM_SHOW ||
	    (e->n > 1 && e->n * 2 > count))
		return 0;
	for (i = 0; i < e->n; i++)
		total += e->len[i] + 3;
	return e->n == 1 || total <= ENUM_SHOW_BYTES;
}

/* Strings: an enum of a few values, a format, or just "string". */
static void
sh_strings(struct ofl_buf *b, const struct strset *e, uint64_t count,
    unsigned int fmt, const char *plain)
{
	size_t i, ord[ENUM_MAX];

	if (enum_ok(e, count)) {
		/* Of several, how many of each, the most first. */
		enum_order(e, ord);
		for (i = 0; i < e->n; i++) {
			if (i > 0)
				ofl_buf_addc(b, '|');
			add_str(b, SS_STR(e, ord[i]), e->len[ord[i]]);
			if (e->n > 1)
				ofl_buf_addf(b, " (%llu)",
				    (unsigned long long)e->count[ord[i]]);
		}
		return;
	}
	ofl_buf_adds(b, plain);
	for (i = 0; i < 8; i++)
		if (fmt & (1U << i)) {
			ofl_buf_addf(b, "(%s)", fmtnames[i]);
			break;
		}
}

static void
sh_node(struct render *r, struct snode *n, size_t depth)
{
	struct ofl_buf *b = r->out;
	struct snode *m;
	int alts = 0;

	r->shown++;
	if (n->n[T_OBJ] > 0) {
		alts++;
		if (n->nprops == 0)
			ofl_buf_adds(b, n->cut ? "{...}" : "{}");
		else if (depth >= r->maxdepth) {
			ofl_buf_adds(b, "{...}");
			r->elided++;
		} else if (is_map(n)) {
			m = map_merge(n);
			ofl_buf_adds(b, "{");
			add_count(b, n->nprops);
			ofl_buf_adds(b, " keys like ");
			add_example(b, n->props->key, n->props->keylen, 0);
			ofl_buf_adds(b, ": ");
			sh_node(r, m, depth + 1);
			ofl_buf_addc(b, '}');
			ofl_schema_node_free(m);
		} else
			sh_object(r, n, depth);
	}
	if (n->n[T_ARR] > 0) {
		if (alts++)
			ofl_buf_addc(b, '|');
		if (n->items == NULL)
			ofl_buf_adds(b, n->cut ? "[...]" : "[]");
		else if (depth >= r->maxdepth) {
			ofl_buf_adds(b, "[...]");
			r->elided++;
		} else {
			ofl_buf_addc(b, '[');
			sh_node(r, n->items, depth + 1);
			ofl_buf_addc(b, ']');
		}
		if (n->lmax > 0 && !n->cut) {
			ofl_buf_adds(b, " x");
			if (n->lmin != n->lmax) {
				add_count(b, n->lmin);
				ofl_buf_adds(b, "..");
			}
			add_count(b, n->lmax);
		}
	}
	if (n->n[T_STR] > 0) {
		if (alts++)
			ofl_buf_addc(b, '|');
		sh_strings(b, n->en, n->n[T_STR], n->fmt, "string");
	}
	if (n->n[T_INT] + n->n[T_REAL] > 0) {
		if (alts++)
			ofl_buf_addc(b, '|');
		ofl_buf_adds(b, n->n[T_REAL] > 0 ? "number " : "integer ");
		add_num(b, n->min, 6);
		if (n->max != n->min) {
			ofl_buf_adds(b, "..");
			add_num(b, n->max, 6);
		}
	}
	if (n->n[T_BOOL] > 0) {
		if (alts++)
			ofl_buf_addc(b, '|');
		ofl_buf_adds(b, n->ntrue == n->n[T_BOOL] ? "true" :
		    n->ntrue == 0 ? "false" : "boolean");
	}
	if (n->n[T_NULL] > 0) {
		if (alts++)
			ofl_buf_addc(b, '|');
		ofl_buf_adds(b, "null");
	}
	if (alts == 0)
		ofl_buf_adds(b, "?");
}

static void
sh_object(struct render *r, struct snode *n, size_t depth)
{
	struct ofl_buf *b = r->out;
	struct snode *c;
	uint64_t pct;
	size_t k = 0;

	ofl_buf_addc(b, '{');
	for (c = n->props; c != NULL; c = c->next) {
		if (c != n->props)
			sh_wrap(r);
		if (r->maxkeys != 0 && k++ == r->maxkeys) {
			ofl_buf_addf(b, "+%zu more", n->nprops - r->maxkeys);
			break;
		}
		add_key(b, c->key, c->keylen);
		if (c->present < n->n[T_OBJ])
			ofl_buf_addc(b, '?');
		ofl_buf_adds(b, ": ");
		sh_node(r, c, depth + 1);
		if (c->present < n->n[T_OBJ]) {
			pct = (c->present * 100 + n->n[T_OBJ] / 2) /
			    n->n[T_OBJ];
			if (pct == 0)
				ofl_buf_adds(b, " <1%");
			else
				ofl_buf_addf(b, " %llu%%",
				    (unsigned long long)(pct > 99 ? 99 : pct));
		}
	}
	ofl_buf_addc(b, '}');
}

/*
 * An object with many keys that are not words (versions, IDs, hashes,
 * dates) is a map: the shape shows the merged values once.
 */
static int
is_map(struct snode *n)
{
	struct snode *c;
	size_t odd = 0, i;

	if (n->nprops <= MAP_KEYS)
		return 0;
	for (c = n->props; c != NULL; c = c->next) {
		for (i = 0; i < c->keylen; i++)
			if (!((c->key[i] >= 'a' && c->key[i] <= 'z') ||
			    (c->key[i] >= 'A' && c->key[i] <= 'Z') ||
			    c->key[i] == '_'))
				break;
		if (i < c->keylen || c->keylen == 0)
			odd++;
	}
	return odd * 2 >= n->nprops || n->nprops > 200;
}

/* Add the statistics of src into dst, recursively (depth is bounded by
 * OFL_SCHEMA_MAX_DEPTH). */
static void
merge(struct snode *dst, struct snode *src)
{
	struct snode *c, *d;
	size_t i;
	int first = dst->n[T_INT] + dst->n[T_REAL] == 0;

	if (src->n[T_INT] + src->n[T_REAL] > 0) {
		if (first || src->min < dst->min)
			dst->min = src->min;
		if (first || src->max > dst->max)
			dst->max = src->max;
	}
	if (src->n[T_ARR] > 0) {
		if (dst->n[T_ARR] == 0 || src->lmin < dst->lmin)
			dst->lmin = src->lmin;
		if (src->lmax > dst->lmax)
			dst->lmax = src->lmax;
		if (dst->n[T_ARR] == 0 && dst->n[T_OBJ] == 0)
			dst->arrfirst = src->arrfirst;
	}
	if (src->n[T_STR] > 0) {
		dst->fmt = dst->n[T_STR] > 0 ? dst->fmt & src->fmt : src->fmt;
		if (dst->en == NULL)
			dst->en = ofl_xcalloc(1, sizeof(*dst->en));
		if (src->en->over)
			dst->en->over = 1;
		for (i = 0; i < src->en->n; i++)
			ofl_schema_strset_add(dst->en, SS_STR(src->en, i),
			    src->en->len[i], src->en->count[i]);
	}
	for (i = 0; i < T_COUNT; i++)
		dst->n[i] += src->n[i];
	dst->ntrue += src->ntrue;
	dst->cut |= src->cut;
	for (c = src->props; c != NULL; c = c->next) {
		for (d = dst->props; d != NULL; d = d->next)
			if (d->keylen == c->keylen &&
			    memcmp(d->key, c->key, c->keylen) == 0)
				break;
		if (d == NULL) {
			d = ofl_xcalloc(1, sizeof(*d));
			d->key = ofl_xmalloc(c->keylen + 1);
			memcpy(d->key, c->key, c->keylen + 1);
			d->keylen = c->keylen;
			d->fmt = F_ALL;
			if (dst->lastprop != NULL)
				dst->lastprop->next = d;
			else
				dst->props = d;
			dst->lastprop = d;
			dst->nprops++;
		}
		d->present += c->present;
		merge(d, c);
	}
	if (src->items != NULL) {
		if (dst->items == NULL) {
			dst->items = ofl_xcalloc(1, sizeof(*dst->items));
			dst->items->fmt = F_ALL;
		}
		merge(dst->items, src->items);
	}
}

/* The values of a map merged into one fresh node (free with node_free). */
static struct snode *
map_merge(struct snode *n)
{
	struct snode *m, *c;

	m = ofl_xcalloc(1, sizeof(*m));
	m->fmt = F_ALL;
	for (c = n->props; c != NULL; c = c->next)
		merge(m, c);
	return m;
}

static size_t
tree_depth(struct snode *n)
{
	struct snode *c;
	size_t d = 0, k;

	/* Bounded by OFL_SCHEMA_MAX_DEPTH. */
	if (n->items != NULL && (k = tree_depth(n->items) + 1) > d)
		d = k;
	for (c = n->props; c != NULL; c = c->next)
		if ((k = tree_depth(c) + 1) > d)
			d = k;
	return d;
}

static size_t
count_lines(const char *s, size_t n)
{
	size_t i, l = 0;

	for (i = 0; i < n; i++)
		if (s[i] == '\n')
			l++;
	return l;
}

/* One rendering of the shape within r's limits, and its note. */
static void
render_json(struct ofl_schema *s, struct render *r, struct ofl_buf *b,
    struct ofl_buf *note)
{
	ofl_buf_reset(b);
	ofl_buf_reset(note);
	r->out = b;
	r->width = 100;
	r->linestart = 0;
	r->elided = 0;
	r->shown = 0;
	sh_node(r, s->root, 0);
	if (s->values > 1) {
		ofl_buf_adds(b, " x");
		add_count(b, s->values);
		ofl_buf_adds(b, " values");
	}
	ofl_buf_addc(b, '\n');
	if (r->elided > 0)
		ofl_buf_addf(note, "(cut at depth %zu: %llu container%s "
		    "elided)\n", r->maxdepth, (unsigned long long)r->elided,
		    r->elided == 1 ? "" : "s");
}

/*
 * The shape, whole if it fits; else the rendering that fits and shows
 * the most, trying shallower depths and fewer keys per object.
 */
static void
shape_json(struct ofl_schema *s, size_t max_out, size_t max_lines,
    struct ofl_buf *out)
{
	static const size_t caps[] = { 0, 16, 8, 4, 2 };
	struct ofl_buf b, note, best;
	struct render r;
	size_t depth, full, cut, i, l, c, top;
	uint64_t bestshown = 0;

	ofl_buf_init(&b);
	ofl_buf_init(&note);
	ofl_buf_init(&best);
	full = tree_depth(s->root) + 1;
	depth = 0;
	for (c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		top = full > 10 ? 10 : full;
		for (i = 0; i <= top; i++) {
			/* The whole depth first, then from 10 levels up. */
			if (i == 0 && c > 0)
				continue;
			memset(&r, 0, sizeof(r));
			r.maxdepth = i == 0 ? full : top + 1 - i;
			r.maxkeys = caps[c];
			if (i > 0 && r.maxdepth >= full)
				continue;
			render_json(s, &r, &b, &note);
			if ((max_out != 0 && b.len + note.len > max_out) ||
			    (max_lines != 0 && count_lines(b.data, b.len) +
			    (note.len > 0) > max_lines) ||
			    r.shown <= bestshown)
				continue;
			bestshown = r.shown;
			depth = r.maxdepth;
			ofl_buf_reset(&best);
			ofl_buf_add(&best, b.data, b.len);
			ofl_buf_add(&best, note.data, note.len);
			if (i == 0 && c == 0)
				break;
		}
		if (depth == full && c == 0)
			break;
	}
	if (depth != 0) {
		ofl_buf_add(out, best.data, best.len);
		ofl_buf_free(&best);
		ofl_buf_free(&b);
		ofl_buf_free(&note);
		return;
	}
	ofl_buf_free(&best);
	/* Nothing fits: the last one tried (depth 1, fewest keys). */
	ofl_buf_reset(&note);
	if (depth == 0) {
		/* Even the outline is too long: cut it on a character. */
		ofl_buf_reset(&note);
		ofl_buf_addf(&note, " ... (cut to fit %zu bytes)\n", max_out);
		cut = b.len;
		if (max_out != 0)
			cut = max_out > note.len ? max_out - note.len : 0;
		if (cut > b.len)
			cut = b.len;
		for (i = 0, l = 0; max_lines != 0 && i < cut; i++)
			if (b.data[i] == '\n' && ++l >= max_lines) {
				cut = i;
				break;
			}
		while (cut > 0 && cut < b.len &&
		    ((unsigned char)b.data[cut] & 0xc0) == 0x80)
			cut--;
		/* Rather at the end of an entry. */
		for (i = cut; i > cut / 2; i--)
			if (i + 1 < b.len && b.data[i] == ',' &&
			    (b.data[i + 1] == ' ' || b.data[i + 1] == '\n')) {
				cut = i + 1;
				break;
			}
		while (cut > 0 && b.data[cut - 1] == '\n')
			cut--;
		b.len = cut;
	}
	ofl_buf_add(out, b.data, b.len);
	ofl_buf_add(out, note.data, note.len);
	ofl_buf_free(&b);
	ofl_buf_free(&note);
}

/*
 * A column with few values (every one of them kept, at most half as
 * many as the cells): "string: Running 2628, Error 19", each value's
 * exact count, the most frequent first.  0 if it has more.
 */
static int
col_counts(struct ofl_buf *b, const struct column *c)
{
	const struct strset	*e = &c->en;
	size_t			 i, ord[ENUM_MAX];

	if (e->over || e->n == 0 || (e->n > 1 && e->n * 2 > c->count))
		return 0;
	enum_order(e, ord);
	ofl_buf_adds(b, c->types & C_DATE ? "date: " : c->types &
	    C_DATETIME ? "date-time: " : c->types & C_TIME ? "time: " :
	    "string: ");
	for (i = 0; i < e->n; i++) {
		if (i > 0)
			ofl_buf_adds(b, ", ");
		add_str(b, SS_STR(e, ord[i]), e->len[ord[i]]);
		ofl_buf_addf(b, " %llu", (unsigned long long)e->count[ord[i]]);
	}
	return 1;
}

static void
shape_csv(struct ofl_schema *s, size_t max_out, size_t max_lines,
    struct ofl_buf *out)
{
	struct ofl_buf line;
	struct column *c;
	size_t i, j, start = out->len, lines = 1;

	ofl_buf_init(&line);
	ofl_buf_adds(out, s->kind == OFL_KIND_CSV ? "csv: " :
	    s->kind == OFL_KIND_TABLE ? "table: " : "tsv: ");
	add_count(out, s->values);
	ofl_buf_adds(out, s->values == 1 ? " row, " : " rows, ");
	add_count(out, s->ncols);
	ofl_buf_adds(out, s->ncols == 1 ? " column" : " columns");
	if (s->ragged > 0) {
		ofl_buf_adds(out, ", ");
		add_count(out, s->ragged);
		ofl_buf_adds(out, " ragged rows");
	}
	ofl_buf_addc(out, '\n');
	for (i = 0; i < s->ncols; i++) {
		int	counted = 0;

		c = &s->cols[i];
		ofl_buf_reset(&line);
		ofl_buf_adds(&line, "  ");
		add_key(&line, c->name, c->namelen);
		ofl_buf_adds(&line, ": ");
		if (c->count == 0)
			ofl_buf_adds(&line, "empty");
		else if (c->types & (C_INT | C_NUM)) {
			ofl_buf_adds(&line, c->types & C_INT ? "integer " :
			    "number ");
			add_num(&line, c->min, 6);
			if (c->max != c->min) {
				ofl_buf_adds(&line, "..");
				add_num(&line, c->max, 6);
			}
		} else if (c->types & C_BOOL)
			ofl_buf_adds(&line, "boolean");
		else if ((counted = col_counts(&line, c)))
			;
		else
			sh_strings(&line, &c->en, c->count, 0,
			    c->types & C_DATE ? "date" :
			    c->types & C_DATETIME ? "date-time" :
			    c->types & C_TIME ? "time" : "string");
		if (c->empty > 0) {
			ofl_buf_adds(&line, ", ");
			add_count(&line, c->empty);
			ofl_buf_adds(&line, " empty");
		}
		if (c->nulls > 0) {
			ofl_buf_adds(&line, ", ");
			add_count(&line, c->nulls);
			ofl_buf_adds(&line, " null");
		}
		if (c->count > 0 && !counted && !enum_ok(&c->en, c->count) &&
		    !(c->types & (C_INT | C_NUM | C_BOOL))) {
			ofl_buf_adds(&line, ", e.g. ");
			for (j = 0; j < c->nex; j++) {
				if (j > 0)
					ofl_buf_adds(&line, ", ");
				add_example(&line, c->ex[j], strlen(c->ex[j]),
				    (c->excut >> j) & 1);
			}
		}
		ofl_buf_addc(&line, '\n');
		if ((max_out != 0 && out->len - start + line.len + 40 >
		    max_out) || (max_lines != 0 && lines + 2 > max_lines)) {
			ofl_buf_addf(out, "  ... (cut: %zu more columns)\n",
			    s->ncols - i);
			break;
		}
		ofl_buf_add(out, line.data, line.len);
		lines++;
	}
	ofl_buf_free(&line);
}

void
ofl_schema_shape_text(struct ofl_schema *s, size_t max_out,
    size_t max_lines, struct ofl_buf *out)
{
	if (s->parser == NULL)
		shape_csv(s, max_out, max_lines, out);
	else
		shape_json(s, max_out, max_lines, out);
}

/* The shape as data. */

static void
jl_node(struct ofl_buf *b, struct snode *n, struct ofl_buf *path,
    uint64_t parents)
{
	static const char *tn[] = {
		"object", "array", "string", "integer", "number", "boolean",
		"null"
	};
	struct snode *c;
	size_t plen = path->len, i, k;
	uint64_t total = 0;
	int first = 1;

	for (i = 0; i < T_COUNT; i++)
		total += n->n[i];
	ofl_buf_adds(b, "{\"path\":");
	add_str(b, path->len ? path->data : ".", path->len ? path->len : 1);
	ofl_buf_addf(b, ",\"count\":%llu", (unsigned long long)total);
	if (n->key != NULL)
		ofl_buf_addf(b, ",\"present\":%llu,\"parents\":%llu",
		    (unsigned long long)n->present,
		    (unsigned long long)parents);
	ofl_buf_adds(b, ",\"types\":{");
	for (i = 0; i < T_COUNT; i++) {
		if (n->n[i] == 0)
			continue;
		if (!first)
			ofl_buf_addc(b, ',');
		first = 0;
		ofl_buf_addf(b, "\"%s\":%llu", tn[i],
		    (unsigned long long)n->n[i]);
	}
	ofl_buf_addc(b, '}');
	if (n->n[T_INT] + n->n[T_REAL] > 0) {
		ofl_buf_adds(b, ",\"min\":");
		add_num(b, n->min, 17);
		ofl_buf_adds(b, ",\"max\":");
		add_num(b, n->max, 17);
	}
	if (n->n[T_ARR] > 0 && !n->cut)
		ofl_buf_addf(b, ",\"min_items\":%llu,\"max_items\":%llu",
		    (unsigned long long)n->lmin, (unsigned long long)n->lmax);
	if (n->n[T_OBJ] > 0)
		ofl_buf_addf(b, ",\"keys\":%zu", n->nprops);
	if (n->n[T_STR] > 0) {
		for (i = 0; i < 8; i++)
			if (n->fmt & (1U << i)) {
				ofl_buf_addf(b, ",\"format\":\"%s\"",
				    fmtnames[i]);
				break;
			}
		if (n->en != NULL && !n->en->over) {
			ofl_buf_adds(b, ",\"values\":{");
			for (i = 0; i < n->en->n; i++) {
				if (i > 0)
					ofl_buf_addc(b, ',');
				add_str(b, SS_STR(n->en, i), n->en->len[i]);
				ofl_buf_addf(b, ":%llu",
				    (unsigned long long)n->en->count[i]);
			}
			ofl_buf_addc(b, '}');
		}
	}
	if (n->cut)
		ofl_buf_adds(b, ",\"cut\":true");
	ofl_buf_adds(b, "}\n");
	for (c = n->props; c != NULL; c = c->next) {
		k = 0;
		for (i = 0; i < c->keylen; i++)
			if (!((c->key[i] >= 'a' && c->key[i] <= 'z') ||
			    (c->key[i] >= 'A' && c->key[i] <= 'Z') ||
			    c->key[i] == '_' ||
			    (i > 0 && c->key[i] >= '0' && c->key[i] <= '9')))
				k = 1;
		if (c->keylen == 0 || k) {
			if (path->len == 0)
				ofl_buf_addc(path, '.');
			ofl_buf_addc(path, '[');
			add_str(path, c->key, c->keylen);
			ofl_buf_addc(path, ']');
		} else {
			ofl_buf_addc(path, '.');
			ofl_buf_add(path, c->key, c->keylen);
		}
		jl_node(b, c, path, n->n[T_OBJ]);
		path->len = plen;
	}
	if (n->items != NULL) {
		ofl_buf_adds(path, path->len ? "[]" : ".[]");
		jl_node(b, n->items, path, 0);
		path->len = plen;
	}
}

void
ofl_schema_jsonl(struct ofl_schema *s, struct ofl_buf *b)
{
	struct ofl_buf path;
	struct column *c;
	size_t i, j;

	if (s->parser != NULL) {
		ofl_buf_init(&path);
		jl_node(b, s->root, &path, 0);
		ofl_buf_free(&path);
		return;
	}
	for (i = 0; i < s->ncols; i++) {
		c = &s->cols[i];
		ofl_buf_adds(b, "{\"column\":");
		add_str(b, c->name, c->namelen);
		ofl_buf_addf(b, ",\"index\":%zu,\"type\":\"%s\"", i + 1,
		    c->count == 0 ? "null" : c->types & C_INT ? "integer" :
		    c->types & C_NUM ? "number" : c->types & C_BOOL ?
		    "boolean" : c->types & C_DATE ? "date" :
		    c->types & C_DATETIME ? "date-time" : c->types & C_TIME ?
		    "time" : "string");
		ofl_buf_addf(b, ",\"count\":%llu,\"empty\":%llu,\"null\":%llu",
		    (unsigned long long)c->count,
		    (unsigned long long)c->empty,
		    (unsigned long long)c->nulls);
		if (c->count > 0 && (c->types & C_NUM)) {
			ofl_buf_adds(b, ",\"min\":");
			add_num(b, c->min, 17);
			ofl_buf_adds(b, ",\"max\":");
			add_num(b, c->max, 17);
		}
		ofl_buf_addf(b, ",\"max_length\":%zu", c->maxlen);
		if (!c->en.over && c->en.n > 0) {
			ofl_buf_adds(b, ",\"values\":{");
			for (j = 0; j < c->en.n; j++) {
				if (j > 0)
					ofl_buf_addc(b, ',');
				add_str(b, SS_STR(&c->en, j), c->en.len[j]);
				ofl_buf_addf(b, ":%llu",
				    (unsigned long long)c->en.count[j]);
			}
			ofl_buf_addc(b, '}');
		}
		ofl_buf_adds(b, ",\"examples\":[");
		for (j = 0; j < c->nex; j++) {
			if (j > 0)
				ofl_buf_addc(b, ',');
			add_str(b, c->ex[j], strlen(c->ex[j]));
		}
		ofl_buf_adds(b, "]}\n");
	}
}

/*
 * The enums of records, for the notice: the string members of objects
 * in arrays that take 2 to ENUM_SHOW values, each repeated, in
 * ENUM_RECS records or more, as ".items[].type: Normal 52, Warning 4",
 * the exact count of each value, the most first, unless the shape shows
 * them counted.  Those of a key that names a state (status, phase,
 * severity, ...) go first, then those of the most records, then the
 * shallowest; ENUMS_SHOW of them at most, in max_out bytes.
 */
#define ENUM_RECS	10
#define ENUMS_SHOW	3
#define ENUMS_SCAN	64

struct enumc {
	struct snode	*n;
	int		 named;
	uint64_t	 recs;
	size_t		 depth;
};

static int
enum_named(const struct snode *n)
{
	static const char *const k[] = { "status", "phase", "severity",
		"state", "level", "health", "result", "conclusion", "outcome",
		"reason", "type", "kind", NULL };
	size_t	i;

	for (i = 0; k[i] != NULL; i++)
		if (n->keylen == strlen(k[i]) &&
		    strncasecmp(n->key, k[i], n->keylen) == 0)
			return (int)(sizeof(k) / sizeof(k[0])) - (int)i;
	return 0;
}

static void
enum_walk(struct snode *n, int inarr, size_t depth, struct enumc *c,
    size_t *nc)
{
	struct snode	*p;

	if (n == NULL)
		return;
	if (inarr && n->key != NULL && n->n[T_STR] >= ENUM_RECS &&
	    n->en != NULL && n->en->n >= 2 && enum_ok(n->en, n->n[T_STR]) &&
	    *nc < ENUMS_SCAN) {
		c[*nc].n = n;
		c[*nc].named = enum_named(n);
		c[*nc].recs = n->n[T_STR];
		c[*nc].depth = depth;
		(*nc)++;
	}
	for (p = n->props; p != NULL; p = p->next)
		enum_walk(p, inarr, depth + 1, c, nc);
	enum_walk(n->items, 1, depth + 1, c, nc);
}

static int
enum_cmp(const void *a, const void *b)
{
	const struct enumc *x = a, *y = b;

	if (x->named != y->named)
		return x->named > y->named ? -1 : 1;
	if (x->recs != y->recs)
		return x->recs > y->recs ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return 0;
}

/*
 * A value of an enum as the counts show it: bare when it is plain, else
 * quoted as JSON (a control character, a quote, the separators).
 */
static void
enum_value(struct ofl_buf *b, const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f ||
		    strchr("\"\\,;", s[i]) != NULL)
			break;
	if (n > 0 && i == n && s[0] != ' ' && s[n - 1] != ' ')
		ofl_buf_add(b, s, n);
	else
		add_str(b, s, n);
}

/* The jq path of n: ".items[].type". */
static void
enum_path(struct ofl_buf *b, const struct snode *n)
{
	if (n->parent == NULL)
		return;
	enum_path(b, n->parent);
	if (n->parent->items == n)
		ofl_buf_adds(b, n->parent->parent == NULL ? ".[]" : "[]");
	else {
		ofl_buf_addc(b, '.');
		add_key(b, n->key, n->keylen);
	}
}

void
ofl_schema_enums(struct ofl_schema *s, const struct ofl_buf *shape,
    size_t max_out, struct ofl_buf *out)
{
	struct enumc	 c[ENUMS_SCAN];
	struct ofl_buf	 one;
	size_t		 nc = 0, i, k, shown = 0, ord[ENUM_MAX];
	const struct strset *e;

	if (s->root == NULL)
		return;
	enum_walk(s->root, s->kind == OFL_KIND_NDJSON, 0, c, &nc);
	qsort(c, nc, sizeof c[0], enum_cmp);
	ofl_buf_init(&one);
	for (i = 0; i < nc && shown < ENUMS_SHOW; i++) {
		e = c[i].n->en;
		enum_order(e, ord);
		/* Not one the shape shows counted already. */
		ofl_buf_reset(&one);
		add_str(&one, SS_STR(e, ord[0]), e->len[ord[0]]);
		ofl_buf_addf(&one, " (%llu)",
		    (unsigned long long)e->count[ord[0]]);
		if (shape != NULL && shape->len > 0 && memmem(shape->data,
		    shape->len, one.data, one.len) != NULL)
			continue;
		ofl_buf_reset(&one);
		if (shown > 0)
			ofl_buf_adds(&one, "; ");
		enum_path(&one, c[i].n);
		ofl_buf_adds(&one, ": ");
		for (k = 0; k < e->n; k++) {
			if (k > 0)
				ofl_buf_adds(&one, ", ");
			enum_value(&one, SS_STR(e, ord[k]), e->len[ord[k]]);
			ofl_buf_addf(&one, " %llu",
			    (unsigned long long)e->count[ord[k]]);
		}
		if (out->len + one.len > max_out)
			continue;
		ofl_buf_add(out, one.data, one.len);
		shown++;
	}
	ofl_buf_free(&one);
}

/* For the notice. */

int
ofl_schema_shape(struct ofl_reader *r, int kind, size_t max_input,
    size_t max_out, struct ofl_buf *out, struct ofl_buf *enums)
{
	struct ofl_schema *s;
	struct ofl_buf tmp;
	int cut = 0, rv, bad = 0;
	char sz[32];

	if ((s = ofl_schema_new(kind)) == NULL)
		return -1;
	rv = ofl_schema_read(s, r, max_input, &cut);
	if (rv == -1) {
		if (s->values == 0 && s->ncols == 0) {
			ofl_schema_free(s);
			return -1;
		}
		bad = !cut;
	}
	ofl_buf_init(&tmp);
	if (cut || bad) {
		ofl_fmt_size(sz, sizeof(sz), max_input);
		ofl_buf_addf(&tmp, "%s", bad ? "(invalid after the part "
		    "shown) " : "");
		if (cut)
			ofl_buf_addf(&tmp, "(first %s only) ", sz);
	}
	ofl_schema_shape_text(s, max_out > tmp.len ? max_out - tmp.len : 1,
	    3, out);
	if (enums != NULL && s->kind != OFL_KIND_CSV && s->kind !=
	    OFL_KIND_TSV)
		ofl_schema_enums(s, out, max_out, enums);
	if (tmp.len > 0 && out->len > 0 && out->data[out->len - 1] == '\n') {
		out->len--;
		ofl_buf_addc(out, ' ');
		ofl_buf_add(out, tmp.data, tmp.len - 1);
		ofl_buf_addc(out, '\n');
	}
	ofl_buf_free(&tmp);
	ofl_schema_free(s);
	return 0;
}
