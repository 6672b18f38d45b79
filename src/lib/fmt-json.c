/*
 * fmt-json.c: JSON and NDJSON.  How they are told from other texts (the
 * first bytes parse, by json.c, as objects or arrays; one per line makes
 * NDJSON), how they are cut into chunks (by structure, titled by jq
 * filters; NDJSON by records) and what the notice says of them (the shape
 * of the first values and a jq filter to try).
 */
#include "config.h"

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "banned.h"

#define JSON_TARGET	2048		/* descend into anything larger */
#define JSON_DEPTH	128		/* deeper containers stay whole */
#define JSON_KEYS_MAX	120		/* keys in a title, else to_entries */
#define SCAN_SMALL	(64 * 1024)	/* the skim reads this much */
#define SUMMARY_MAX	300		/* bytes of one summary line */

struct jdet;
struct jlevel;
struct jck;

static int	 det_event(struct ofl_json *, const struct ofl_json_event *,
		    void *);
static int	 ndjson_emit(struct ofl_chunker *, struct ofl_chunk_win *,
		    struct ofl_buf *);
static uint64_t	 json_line(struct jck *, uint64_t);
static uint64_t	 json_mstart(struct jck *, const struct jlevel *, uint64_t);
static int	 jq_ident(const char *, size_t);
static void	 jq_key(struct ofl_buf *, const char *, size_t);
static int	 json_emit(struct jck *, const char *, size_t, uint64_t,
		    uint64_t, uint64_t);
static int	 json_flush(struct jck *, struct jlevel *);
static int	 json_descend(struct jck *, uint64_t);
static int	 json_add(struct jck *, struct jlevel *, uint64_t, uint64_t,
		    const char *, size_t, uint64_t);
static int	 json_begin(struct jck *, struct ofl_json *,
		    const struct ofl_json_event *);
static int	 json_end(struct jck *, const struct ofl_json_event *);
static int	 json_scalar(struct jck *, struct ofl_json *,
		    const struct ofl_json_event *);
static int	 json_event(struct ofl_json *, const struct ofl_json_event *,
		    void *);
static void	 json_trim(struct jck *);
static int	 json_fallback(struct jck *, struct ofl_chunk_in *);
static void	 j_ws(const unsigned char *, size_t, size_t *);
static int	 j_string(const unsigned char *, size_t, size_t *);
static int	 j_skip(const unsigned char *, size_t, size_t *, uint64_t *);
static const char *j_type(unsigned char);
static void	 j_array(struct ofl_buf *, const unsigned char *, size_t,
		    size_t *);
static char	*jq_filter(const unsigned char *, size_t, const char *);
static void	 j_object(struct ofl_buf *, size_t, const unsigned char *,
		    size_t, size_t *, char **);
static char	*nd_filter(const unsigned char *, size_t);

/*
 * Detection: json.c's parser over the first bytes, quietly, taking only
 * objects and arrays at the top.  The first bytes may stop anywhere
 * inside a value when they are not the whole content: the value cut
 * short counts, unless the cut falls after the digits of a number.
 * Values that span lines make JSON (jq '.[]' prints those), which jq
 * reads one value after another just the same; two or more values each
 * on one line make NDJSON.
 */
struct jdet {
	const unsigned char	*p;
	size_t			 nvalues;
	uint64_t		 vstart;	/* where the last value began */
	int			 multiline;
};

static int
det_event(struct ofl_json *j, const struct ofl_json_event *ev, void *arg)
{
	struct jdet	*d = arg;

	(void)j;
	if (ev->depth != 0)
		return 0;
	if (ev->type == OFL_JSON_OBJECT_BEGIN ||
	    ev->type == OFL_JSON_ARRAY_BEGIN) {
		d->vstart = ev->offset;
		return 0;
	}
	d->nvalues++;
	if (!d->multiline && memchr(d->p + ev->offset, '\n',
	    (size_t)(ev->end - ev->offset)) != NULL)
		d->multiline = 1;
	return 0;
}

int
ofl_fmt_json_detect(const unsigned char *p, size_t n, int complete)
{
	struct ofl_json	*j;
	struct jdet	 d;
	int		 r, where;

	memset(&d, 0, sizeof d);
	d.p = p;
	if ((j = ofl_json_new(OFL_JSON_MULTI | OFL_JSON_CONTAINERS |
	    OFL_JSON_QUIET, det_event, &d)) == NULL)
		return -1;
	r = ofl_json_feed(j, p, n);
	if (r == 0 && complete)
		r = ofl_json_finish(j);
	where = ofl_json_where(j);
	ofl_json_free(j);
	if (r != 0)
		return -1;
	if (!complete && where != OFL_JSON_AT_TOP) {
		if (where == OFL_JSON_IN_VALUE)
			d.nvalues++;
		if (memchr(p + d.vstart, '\n', n - (size_t)d.vstart) != NULL)
			d.multiline = 1;
	} else if (d.nvalues == 0)
		return -1;
	return d.nvalues >= 2 && !d.multiline ? OFL_KIND_NDJSON :
	    OFL_KIND_JSON;
}

/*
 * Chunking.
 */

/*
 * NDJSON: whole lines (records), grouped up to OFL_CHUNK_TEXT_TARGET bytes.
 */

static int
ndjson_emit(struct ofl_chunker *ck, struct ofl_chunk_win *w, struct ofl_buf *t)
{
	ofl_buf_reset(t);
	if (w->lstart == w->lend)
		ofl_buf_addf(t, "line %llu", (unsigned long long)w->lstart);
	else
		ofl_buf_addf(t, "lines %llu-%llu",
		    (unsigned long long)w->lstart,
		    (unsigned long long)w->lend);
	return ofl_chunk_win_emit(ck, w, t->data, t->len);
}

int
ofl_fmt_json_chunk_nd(struct ofl_chunker *ck, struct ofl_chunk_in *s)
{
	struct ofl_chunk_lines	 it;
	struct ofl_chunk_line	 l;
	struct ofl_chunk_win	 w;
	struct ofl_buf	 t;
	size_t		 raw;
	int		 r, rv = 0;

	ofl_chunk_lines_init(&it, s, 0, 1, 0);
	ofl_chunk_win_init(&w);
	ofl_buf_init(&t);
	while ((r = ofl_chunk_lines_next(&it, &l)) == 1) {
		raw = ofl_chunk_win_raw(&w);
		if (w.nlines > 0 && ((l.first &&
		    raw + l.len > OFL_CHUNK_TEXT_TARGET) ||
		    raw + l.len > OFL_CHUNK_HARD_MAX) &&
		    ndjson_emit(ck, &w, &t)) {
			rv = 1;
			goto out;
		}
		ofl_chunk_win_add(&w, &l);
	}
	if (r < 0)
		rv = -1;
	else if (w.nlines > 0 && ndjson_emit(ck, &w, &t))
		rv = 1;
out:
	ofl_buf_free(&t);
	ofl_chunk_win_free(&w);
	ofl_chunk_lines_free(&it);
	return rv;
}

/*
 * JSON: chunks follow the structure.  A value of at most JSON_TARGET
 * bytes is a chunk (with its key, for an object member); a larger
 * container is descended into, and its small children are grouped into
 * chunks of about JSON_TARGET bytes.  Titles are jq filters (see the top
 * of the file).
 *
 * Streaming: the parser reports where each value starts and ends; a
 * container is "undecided" until it grows past JSON_TARGET (then it is
 * descended into) or ends (then it is a leaf).  Only the bytes of pending
 * groups and of the outermost undecided container are kept, so memory is
 * about 2 * JSON_TARGET per level, plus the longest single scalar.
 * Containers nested deeper than JSON_DEPTH stay whole.  If the content is
 * not valid JSON after all (say, cut short), what parsed is emitted and
 * the rest is chunked as text.
 */

struct jlevel {
	uint64_t	 start;		/* where the member begins (its key) */
	uint64_t	 line;
	size_t		 pathlen;	/* its path is path.data[0, pathlen) */
	int		 array;
	uint64_t	 index;		/* children seen */
	uint64_t	 prev;		/* end of the last child */
	uint64_t	 gcount;	/* the pending group of children */
	uint64_t	 gfirst;
	uint64_t	 gstart;
	uint64_t	 gline;
	uint64_t	 gend;
	struct ofl_buf	 keys;		/* "name, namespace" */
	int		 keysovf;
	struct ofl_buf	 key;		/* this container's key */
};

struct jck {
	struct ofl_chunker	*ck;
	struct ofl_json	*p;
	char		*raw;
	size_t		 rawlen;
	size_t		 rawcap;
	uint64_t	 rawoff;	/* offset of raw[0] */
	uint64_t	 coff;		/* line cursor */
	uint64_t	 cline;
	struct jlevel	*lv;
	size_t		 nlv;
	size_t		 lvcap;
	size_t		 ndesc;		/* lv[0, ndesc) are descended */
	size_t		 skip;		/* open containers beyond JSON_DEPTH */
	struct ofl_buf	 path;
	struct ofl_buf	 title;
	uint64_t	 lastend;
};

static uint64_t
json_line(struct jck *j, uint64_t off)
{
	uint64_t	 top = j->rawoff + j->rawlen;

	if (off < j->rawoff)
		off = j->rawoff;
	if (off > top)
		off = top;
	if (off >= j->coff)
		j->cline += ofl_chunk_count_nl(j->raw + (j->coff - j->rawoff),
		    (size_t)(off - j->coff));
	else
		j->cline -= ofl_chunk_count_nl(j->raw + (off - j->rawoff),
		    (size_t)(j->coff - off));
	j->coff = off;
	return j->cline;
}

/* Where a member whose value starts at voff begins: at its key. */
static uint64_t
json_mstart(struct jck *j, const struct jlevel *P, uint64_t voff)
{
	uint64_t	o = P->prev;
	char		c;

	if (P->array || o < j->rawoff || o > voff)
		return voff;
	while (o < voff) {
		c = j->raw[o - j->rawoff];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ',')
			break;
		o++;
	}
	return o;
}

static int
jq_ident(const char *k, size_t n)
{
	static const char *const kw[] = {
		"and", "or", "not", "if", "then", "elif", "else", "end", "as",
		"def", "reduce", "foreach", "try", "catch", "label", "import",
		"include", "__loc__", NULL
	};
	size_t	i;

	if (n == 0 || !((k[0] >= 'a' && k[0] <= 'z') ||
	    (k[0] >= 'A' && k[0] <= 'Z') || k[0] == '_'))
		return 0;
	for (i = 1; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') ||
		    (k[i] >= 'A' && k[i] <= 'Z') ||
		    (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
			return 0;
	for (i = 0; kw[i] != NULL; i++)
		if (strlen(kw[i]) == n && memcmp(kw[i], k, n) == 0)
			return 0;
	return 1;
}

/* A key as jq writes it after a dot or in {...}: name, or "quoted". */
static void
jq_key(struct ofl_buf *b, const char *k, size_t n)
{
	if (jq_ident(k, n))
		ofl_buf_add(b, k, n);
	else
		ofl_buf_add_json_str(b, k, n);
}

static int
json_emit(struct jck *j, const char *title, size_t tlen, uint64_t start,
    uint64_t end, uint64_t line)
{
	if (end <= start)
		return 0;
	j->lastend = end;
	return ofl_chunk_emit_parts(j->ck, title, tlen,
	    j->raw + (start - j->rawoff),
	    (size_t)(end - start), start, line);
}

/* Emit the pending group of children of P. */
static int
json_flush(struct jck *j, struct jlevel *P)
{
	struct ofl_buf		*t = &j->title;
	unsigned long long	 a = P->gfirst, b = P->gfirst + P->gcount;

	if (P->gcount == 0)
		return 0;
	ofl_buf_reset(t);
	if (P->array) {
		ofl_buf_add(t, j->path.data, P->pathlen);
		if (P->pathlen == 0)
			ofl_buf_addc(t, '.');
		if (P->gcount == 1)
			ofl_buf_addf(t, "[%llu]", a);
		else
			ofl_buf_addf(t, "[%llu:%llu]", a, b);
	} else if (P->gcount == 1) {
		ofl_buf_add(t, j->path.data, P->pathlen);
		ofl_buf_addc(t, '.');
		ofl_buf_add(t, P->keys.data, P->keys.len);
	} else {
		if (P->pathlen > 0) {
			ofl_buf_add(t, j->path.data, P->pathlen);
			ofl_buf_adds(t, " | ");
		}
		if (P->keysovf)
			ofl_buf_addf(t, "to_entries[%llu:%llu]", a, b);
		else {
			ofl_buf_addc(t, '{');
			ofl_buf_add(t, P->keys.data, P->keys.len);
			ofl_buf_addc(t, '}');
		}
	}
	ofl_buf_str(t);
	P->gcount = 0;
	return json_emit(j, t->data, t->len, P->gstart, P->gend, P->gline);
}

/* Descend into the open containers that have grown past the target. */
static int
json_descend(struct jck *j, uint64_t pos)
{
	while (j->ndesc < j->nlv && j->ndesc < JSON_DEPTH - 1) {
		if (pos - j->lv[j->ndesc].start <= JSON_TARGET)
			break;
		/* A big child: its elder siblings go out first. */
		if (j->ndesc > 0 && json_flush(j, &j->lv[j->ndesc - 1]))
			return 1;
		j->ndesc++;
	}
	return 0;
}

static int
json_add(struct jck *j, struct jlevel *P, uint64_t start, uint64_t line,
    const char *key, size_t klen, uint64_t end)
{
	int	desc = P - j->lv < (ptrdiff_t)j->ndesc;

	if (desc && P->gcount > 0 && end - P->gstart > JSON_TARGET &&
	    json_flush(j, P))
		return 1;
	if (P->gcount == 0) {
		P->gstart = start;
		P->gline = line;
		P->gfirst = P->index;
		P->keysovf = 0;
		ofl_buf_reset(&P->keys);
	}
	P->gcount++;
	P->gend = end;
	if (!P->array && !P->keysovf) {
		if (P->gcount > 1 && P->keys.len + klen + 2 > JSON_KEYS_MAX)
			P->keysovf = 1;
		else {
			if (P->gcount > 1)
				ofl_buf_adds(&P->keys, ", ");
			jq_key(&P->keys, key != NULL ? key : "", klen);
		}
	}
	P->index++;
	P->prev = end;
	if (desc && end - P->gstart >= JSON_TARGET)
		return json_flush(j, P);
	return 0;
}

static int
json_begin(struct jck *j, struct ofl_json *p, const struct ofl_json_event *ev)
{
	struct jlevel	*L, *P;
	const char	*key = NULL;
	uint64_t	 start = ev->offset, line;
	size_t		 klen = 0, i;

	if (j->skip > 0 || j->nlv >= JSON_DEPTH) {
		j->skip++;
		return json_descend(j, ev->offset);
	}
	if (j->nlv == j->lvcap) {
		i = j->lvcap;
		j->lvcap = j->lvcap == 0 ? 16 : j->lvcap * 2;
		j->lv = ofl_xrealloc(j->lv, j->lvcap * sizeof *j->lv);
		memset(j->lv + i, 0, (j->lvcap - i) * sizeof *j->lv);
	}
	P = j->nlv > 0 ? &j->lv[j->nlv - 1] : NULL;
	if (P != NULL) {
		start = json_mstart(j, P, ev->offset);
		if (!P->array && (key = ofl_json_key(p, &klen)) == NULL)
			key = "";
	}
	line = json_line(j, start);
	L = &j->lv[j->nlv];
	L->start = start;
	L->line = line;
	L->array = ev->type == OFL_JSON_ARRAY_BEGIN;
	L->index = 0;
	L->prev = ev->offset + 1;
	L->gcount = 0;
	ofl_buf_reset(&L->key);
	if (key != NULL)
		ofl_buf_add(&L->key, key, klen);
	j->path.len = P != NULL ? P->pathlen : 0;
	if (P != NULL && P->array) {
		if (j->path.len == 0)
			ofl_buf_addc(&j->path, '.');
		ofl_buf_addf(&j->path, "[%llu]", (unsigned long long)P->index);
	} else if (P != NULL) {
		ofl_buf_addc(&j->path, '.');
		jq_key(&j->path, key, klen);
	}
	L->pathlen = j->path.len;
	j->nlv++;
	return json_descend(j, ev->offset);
}

static int
json_end(struct jck *j, const struct ofl_json_event *ev)
{
	struct jlevel	*L;

	if (j->skip > 0) {
		j->skip--;
		return 0;
	}
	if (j->nlv == 0)
		return 0;
	L = &j->lv[j->nlv - 1];
	json_line(j, ev->end);
	if (j->nlv - 1 < j->ndesc) {
		if (json_flush(j, L))
			return 1;
		j->nlv--;
		j->ndesc = j->nlv;
		if (j->nlv > 0) {
			j->lv[j->nlv - 1].index++;
			j->lv[j->nlv - 1].prev = ev->end;
		}
		return 0;
	}
	j->nlv--;
	if (j->nlv == 0)
		return json_emit(j, ".", 1, L->start, ev->end, L->line);
	if (json_descend(j, ev->end))
		return 1;
	return json_add(j, &j->lv[j->nlv - 1], L->start, L->line,
	    L->key.data, L->key.len, ev->end);
}

static int
json_scalar(struct jck *j, struct ofl_json *p, const struct ofl_json_event *ev)
{
	struct jlevel	*P;
	const char	*key = NULL;
	uint64_t	 start, line;
	size_t		 klen = 0;

	if (j->skip > 0)
		return 0;
	if (j->nlv == 0) {
		line = json_line(j, ev->offset);
		json_line(j, ev->end);
		return json_emit(j, ".", 1, ev->offset, ev->end, line);
	}
	P = &j->lv[j->nlv - 1];
	start = json_mstart(j, P, ev->offset);
	line = json_line(j, start);
	json_line(j, ev->end);
	if (!P->array && (key = ofl_json_key(p, &klen)) == NULL)
		key = "";
	if (json_descend(j, ev->end))
		return 1;
	return json_add(j, &j->lv[j->nlv - 1], start, line, key, klen,
	    ev->end);
}

static int
json_event(struct ofl_json *p, const struct ofl_json_event *ev, void *arg)
{
	struct jck	*j = arg;

	switch (ev->type) {
	case OFL_JSON_OBJECT_BEGIN:
	case OFL_JSON_ARRAY_BEGIN:
		return json_begin(j, p, ev);
	case OFL_JSON_OBJECT_END:
	case OFL_JSON_ARRAY_END:
		return json_end(j, ev);
	default:
		return json_scalar(j, p, ev);
	}
}

/* Drop the raw bytes nothing needs any more. */
static void
json_trim(struct jck *j)
{
	uint64_t	keep = j->coff;
	size_t		k, drop;

	for (k = 0; k < j->ndesc; k++)
		if (j->lv[k].gcount > 0 && j->lv[k].gstart < keep)
			keep = j->lv[k].gstart;
	if (j->ndesc < j->nlv && j->lv[j->ndesc].start < keep)
		keep = j->lv[j->ndesc].start;
	if (j->nlv > 0 && j->lv[j->nlv - 1].prev < keep)
		keep = j->lv[j->nlv - 1].prev;
	if (keep <= j->rawoff)
		return;
	drop = (size_t)(keep - j->rawoff);
	memmove(j->raw, j->raw + drop, j->rawlen - drop);
	j->rawlen -= drop;
	j->rawoff = keep;
}

/* Not JSON after all: emit what parsed, chunk the rest as text. */
static int
json_fallback(struct jck *j, struct ofl_chunk_in *s)
{
	struct ofl_chunk_in	 rest;
	uint64_t	 from, line;
	size_t		 k, at;

	for (k = 0; k < j->nlv; k++)
		if (json_flush(j, &j->lv[k]))
			return 1;
	from = j->lastend > j->rawoff ? j->lastend : j->rawoff;
	if (from > j->rawoff + j->rawlen)
		from = j->rawoff + j->rawlen;
	line = json_line(j, from);
	at = (size_t)(from - j->rawoff);
	ofl_chunk_in_chain(&rest, s, j->raw + at, j->rawlen - at);
	ofl_clearerr();
	return ofl_chunk_text(j->ck, &rest, from, line,
	    at > 0 && j->raw[at - 1] != '\n');
}

int
ofl_fmt_json_chunk(struct ofl_chunker *ck, struct ofl_chunk_in *s)
{
	struct jck	 j;
	ssize_t		 n;
	size_t		 k;
	int		 r, rv = 0;

	memset(&j, 0, sizeof j);
	j.ck = ck;
	j.cline = 1;
	ofl_buf_init(&j.path);
	ofl_buf_init(&j.title);
	j.p = ofl_json_new(OFL_JSON_MULTI, json_event, &j);
	for (;;) {
		if (j.rawcap - j.rawlen < OFL_CHUNK_READ) {
			j.rawcap = j.rawlen + OFL_CHUNK_READ + j.rawcap / 2;
			j.raw = ofl_xrealloc(j.raw, j.rawcap);
		}
		if ((n = ofl_chunk_in_read(s, j.raw + j.rawlen,
		    OFL_CHUNK_READ)) < 0) {
			rv = -1;
			break;
		}
		if (n == 0) {
			r = ofl_json_finish(j.p);
			if (r == 1)
				rv = 1;
			else if (r < 0)
				rv = json_fallback(&j, s);
			break;
		}
		j.rawlen += (size_t)n;
		r = ofl_json_feed(j.p, j.raw + j.rawlen - n, (size_t)n);
		if (r == 1) {
			rv = 1;
			break;
		}
		if (r < 0) {
			rv = json_fallback(&j, s);
			break;
		}
		json_trim(&j);
	}
	ofl_json_free(j.p);
	for (k = 0; k < j.lvcap; k++) {
		ofl_buf_free(&j.lv[k].keys);
		ofl_buf_free(&j.lv[k].key);
	}
	free(j.lv);
	free(j.raw);
	ofl_buf_free(&j.path);
	ofl_buf_free(&j.title);
	return rv;
}

/*
 * The summary.
 */

/*
 * The skim: no validation, just enough to skip, on json.c's lexing.
 */
static void
j_ws(const unsigned char *p, size_t n, size_t *i)
{
	*i = ofl_json_skip_ws(p, n, *i);
}

/* Skip a string starting at the quote; 0 when it ends in the buffer. */
static int
j_string(const unsigned char *p, size_t n, size_t *i)
{
	return ofl_json_skip_string(p, n, i);
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
		ofl_buf_add_count(b, count);
	}
}

/* A key for a jq filter: .key, or .["key"] if it needs quoting. */
static char *
jq_filter(const unsigned char *k, size_t n, const char *suffix)
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
		ofl_render(b, key, klen, 40, OFL_RENDER_ONELINE, &used);
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
		ofl_buf_add_count(b, more);
		ofl_buf_adds(b, more == 1 ? " key" : " keys");
	}
	if (!ended)
		ofl_buf_adds(b, nkeys > 0 || more > 0 ? ", ..." : "...");
	ofl_buf_addc(b, '}');
	if (filter != NULL && *filter == NULL) {
		if (arr != NULL)
			*filter = jq_filter(arr, alen, "[0]");
		else if (obj != NULL)
			*filter = jq_filter(obj, olen, " | keys");
		else if (first != NULL)
			*filter = jq_filter(first, flen, "");
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
		return jq_filter(best, blen, "");
	if (first != NULL)
		return jq_filter(first, flen, "");
	return ofl_xstrdup(".");
}

/*
 * JSON: the top-level shape from the first 64 KiB.  NDJSON, and JSON that
 * is a sequence of values: the distinct shapes of the first values, up
 * to three.  The notice puts the schema's shape in its place when it
 * has one (ofl_fmt_json_summary_shape); the filter stays.
 */
int
ofl_fmt_json_summary(const struct ofl_src *src, const struct ofl_meta *m,
    int nd, struct ofl_summary *sum)
{
	struct ofl_buf	 s, t;
	unsigned char	*buf;
	size_t		 len, i = 0, j, k, nshapes = 0, recs = 0, start;
	size_t		 starts[3], lens[3];
	uint64_t	 count = 0;
	int		 seq = nd;

	(void)m;
	if ((buf = ofl_src_head(src, SCAN_SMALL, &len)) == NULL)
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
			sum->filter = nd_filter(buf + i, len - i);
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
				    &sum->filter);
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
		if (sum->filter == NULL)
			sum->filter = nd_filter(buf + start, len - start);
	} else if (i < len && buf[i] == '{')
		j_object(&s, SUMMARY_MAX - 16, buf, len, &i, &sum->filter);
	else if (i < len && buf[i] == '[') {
		j = i + 1;
		j_ws(buf, len, &j);
		if (j < len && buf[j] == '{') {
			ofl_buf_addc(&s, '[');
			j_object(&s, SUMMARY_MAX - 24, buf, len, &j, NULL);
			ofl_buf_addc(&s, ']');
			if (j_skip(buf, len, &i, &count) == 0) {
				ofl_buf_adds(&s, " x");
				ofl_buf_add_count(&s, count);
			}
		} else
			j_array(&s, buf, len, &i);
		sum->filter = ofl_xstrdup(".[0]");
	}
	if (s.len > 0) {
		ofl_buf_adds(&sum->text, nd ? "records: " : seq ? "values: " :
		    "shape: ");
		ofl_buf_add(&sum->text, s.data, s.len);
		ofl_buf_addc(&sum->text, '\n');
		ofl_summary_key(sum, "shape");
		ofl_buf_add_json_str(&sum->json, s.data, s.len);
	}
	ofl_buf_free(&s);
	ofl_buf_free(&t);
	free(buf);
	return 0;
}

void
ofl_fmt_json_summary_shape(struct ofl_summary *sum, const char *shape,
    size_t n)
{
	struct ofl_buf	s;
	size_t		k;

	while (n > 0 && shape[n - 1] == '\n')
		n--;
	ofl_buf_init(&s);
	for (k = 0; k < n; k++) {
		ofl_buf_addc(&s, shape[k]);
		/* Continuation lines line up after "shape: ". */
		if (shape[k] == '\n')
			ofl_buf_adds(&s, "     ");
	}
	ofl_buf_reset(&sum->text);
	ofl_buf_reset(&sum->json);
	if (s.len > 0) {
		ofl_buf_adds(&sum->text, "shape: ");
		ofl_buf_add(&sum->text, s.data, s.len);
		ofl_buf_addc(&sum->text, '\n');
		ofl_summary_key(sum, "shape");
		ofl_buf_add_json_str(&sum->json, s.data, s.len);
	}
	ofl_buf_free(&s);
}
