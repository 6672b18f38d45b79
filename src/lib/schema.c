/*
 * schema.c: the structure of JSON, NDJSON, CSV and TSV content.
 *
 * One streaming pass builds a tree of nodes, one per distinct position
 * (".items[].metadata.name"), each holding what was seen there: counts
 * by type, how many of the parent objects hold the key, numeric ranges,
 * array lengths, a few distinct strings (enum candidates) and the string
 * formats every value matched.  Memory is bounded by the number of
 * distinct positions (OFL_SCHEMA_MAX_NODES) and the nesting depth kept
 * (OFL_SCHEMA_MAX_DEPTH), never by the size of the input.
 *
 * From the tree come three outputs: a JSON Schema that equals what
 * Python genson (SchemaBuilder) produces for the same values, printed as
 * jq prints JSON; a compact text shape for people and models; and the
 * shape as JSON Lines.
 *
 * genson's rules, followed here: "integer" and "number" are one type,
 * "number" once any value has a fraction or an exponent; the types seen
 * at one position form a sorted list; "required" lists, sorted, the keys
 * present in every object seen at that position; an object schema with
 * properties or an array schema with items cannot join a type list, so
 * they meet the other types in "anyOf" (in the order first seen).
 */

#include "config.h"

#include <arpa/inet.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

/* Value types, in the order the shape shows them. */
enum {
	T_OBJ, T_ARR, T_STR, T_INT, T_REAL, T_BOOL, T_NULL, T_COUNT
};

/* String formats. */
enum {
	F_DATETIME = 1 << 0,
	F_DATE = 1 << 1,
	F_TIME = 1 << 2,
	F_UUID = 1 << 3,
	F_EMAIL = 1 << 4,
	F_URI = 1 << 5,
	F_IPV4 = 1 << 6,
	F_IPV6 = 1 << 7,
	F_ALL = (1 << 8) - 1
};
static const char *fmtnames[] = {
	"date-time", "date", "time", "uuid", "email", "uri", "ipv4", "ipv6"
};

/* CSV column types (a column keeps the ones every value matched). */
enum {
	C_INT = 1 << 0,
	C_NUM = 1 << 1,
	C_BOOL = 1 << 2,
	C_DATE = 1 << 3,
	C_DATETIME = 1 << 4,
	C_TIME = 1 << 5,
	C_ALL = (1 << 6) - 1
};

#define ENUM_MAX	8	/* distinct strings kept per position */
#define ENUM_LEN	40	/* longest string kept */
#define SECRET_MASK	"[redacted: secret]"
#define EXAMPLES	3	/* CSV examples per column */
#define EXAMPLE_WHOLE	64	/* longest example shown whole */
#define MAX_COLS	1000
#define FIELD_MAX	1024	/* CSV field bytes kept for typing */
#define MAP_KEYS	24	/* shape: more keys than this may be a map */
#define ENUM_SHOW	6	/* shape: most values of an enum shown */
#define ENUM_SHOW_BYTES	80	/* and their total length */

/* A few distinct short strings in first-seen order. */
struct strset {
	size_t		 n;
	int		 over;		/* more, or longer, were seen */
	uint64_t	 count[ENUM_MAX];
	unsigned char	 len[ENUM_MAX];
	unsigned short	 off[ENUM_MAX];
	char		*data;		/* the strings, one after another */
};
#define SS_STR(e, i)	((e)->data + (e)->off[i])

struct snode {
	struct snode	*parent;
	struct snode	*props;		/* properties in first-seen order */
	struct snode	*lastprop;
	struct snode	*next;
	struct snode	*items;
	struct snode	*hnext;		/* hash chain */
	char		*key;
	size_t		 keylen;
	uint32_t	 hash;
	size_t		 nprops;
	uint64_t	 present;	/* parent objects holding this key */
	uint64_t	 lastobj;
	uint64_t	 n[T_COUNT];
	uint64_t	 ntrue;
	int		 arrfirst;	/* arrays were seen before objects */
	int		 cut;		/* children beyond the depth limit */
	double		 min;
	double		 max;
	uint64_t	 lmin;		/* array lengths */
	uint64_t	 lmax;
	unsigned int	 fmt;
	struct strset	*en;
	int		 secret;	/* 0 not known, 1 no, 2 a secret's key */
};

struct sframe {
	struct snode	*node;		/* NULL: not recorded */
	int		 obj;
	uint64_t	 serial;	/* which object of node this is */
	uint64_t	 len;		/* array elements so far */
};

struct column {
	char		*name;
	size_t		 namelen;
	uint64_t	 count;		/* non-empty, non-null values */
	uint64_t	 empty;
	uint64_t	 nulls;
	unsigned int	 types;		/* C_* every value matched */
	double		 min;
	double		 max;
	size_t		 maxlen;
	struct strset	 en;
	size_t		 nex;
	char		*ex[EXAMPLES];
	unsigned int	 excut;		/* bit i: ex[i] kept in part */
	int		 secret;	/* the name says its values are secrets */
};

struct ofl_schema {
	int		 kind;
	uint64_t	 values;
	int		 failed;
	int		 redact;	/* mask the values of secrets' keys */

	/* JSON */
	struct ofl_json	*parser;
	struct snode	*root;
	struct sframe	 stack[OFL_SCHEMA_MAX_DEPTH + 1];
	struct snode	**htab;
	size_t		 hsize;
	size_t		 nnodes;
	size_t		 open;		/* containers open */
	uint64_t	 cutdepth;	/* values left out: too deep */
	uint64_t	 cutkeys;	/* values left out: too many paths */

	/* CSV, TSV */
	int		 sep;
	int		 cst;
	struct ofl_buf	 field;
	size_t		 fieldlen;	/* whole length, kept or not */
	size_t		 col;
	int		 header;	/* the header row is done */
	int		 rowempty;
	struct column	*cols;
	size_t		 ncols;
	uint64_t	 ragged;
	uint64_t	 extracols;

	struct ofl_buf	 warning;
};

/* CSV states. */
enum {
	CS_START, CS_UNQ, CS_Q, CS_QQ, CS_CR
};

static struct snode *node_new(struct ofl_schema *, struct snode *,
		    const char *, size_t, uint32_t);
static void	node_free(struct snode *);
static uint32_t	hash_key(const struct snode *, const char *, size_t);
static struct snode *child(struct ofl_schema *, struct snode *,
		    const char *, size_t, uint64_t);
static struct snode *items(struct ofl_schema *, struct snode *);
static int	json_event(struct ofl_json *, const struct ofl_json_event *,
		    void *);
static void	record(struct snode *, const struct ofl_json_event *);
static int	secret_node(struct snode *);
static void	array_len(struct snode *, uint64_t);
static void	close_open(struct ofl_schema *);
static void	strset_add(struct strset *, const char *, size_t, uint64_t);
static void	strset_free(struct strset *);
static unsigned int formats(const char *, size_t, unsigned int);
static int	digits(const char *, size_t);
static int	is_date(const char *, size_t);
static int	is_time(const char *, size_t, int);
static double	num_value(const char *, size_t);

static void	csv_feed(struct ofl_schema *, const unsigned char *, size_t);
static void	csv_field(struct ofl_schema *);
static void	csv_endrow(struct ofl_schema *);
static void	column_value(struct column *, const char *, size_t, size_t);
static unsigned int csv_types(const char *, size_t);

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

int
ofl_schema_supports(int kind)
{
	return kind == OFL_KIND_JSON || kind == OFL_KIND_NDJSON ||
	    kind == OFL_KIND_CSV || kind == OFL_KIND_TSV;
}

struct ofl_schema *
ofl_schema_new(int kind)
{
	struct ofl_schema *s;

	if (!ofl_schema_supports(kind)) {
		ofl_seterr(OFL_EXIT_FAIL, "no schema for %s content: "
		    "only JSON, NDJSON, CSV and TSV have one",
		    ofl_kind_name(kind));
		return NULL;
	}
	s = ofl_xcalloc(1, sizeof(*s));
	s->kind = kind;
	s->redact = ofl_redact_wanted();
	ofl_buf_init(&s->field);
	ofl_buf_init(&s->warning);
	if (kind == OFL_KIND_CSV || kind == OFL_KIND_TSV) {
		s->sep = kind == OFL_KIND_CSV ? ',' : '\t';
		s->rowempty = 1;
		return s;
	}
	/* Whitespace-separated values are read as genson's CLI does. */
	s->parser = ofl_json_new(OFL_JSON_MULTI, json_event, s);
	if (s->parser == NULL) {
		free(s);
		return NULL;
	}
	s->hsize = 1024;
	s->htab = ofl_xcalloc(s->hsize, sizeof(*s->htab));
	s->root = node_new(s, NULL, NULL, 0, 0);
	return s;
}

void
ofl_schema_free(struct ofl_schema *s)
{
	size_t i, j;

	if (s == NULL)
		return;
	ofl_json_free(s->parser);
	node_free(s->root);
	free(s->htab);
	for (i = 0; i < s->ncols; i++) {
		free(s->cols[i].name);
		strset_free(&s->cols[i].en);
		for (j = 0; j < s->cols[i].nex; j++)
			free(s->cols[i].ex[j]);
	}
	free(s->cols);
	ofl_buf_free(&s->field);
	ofl_buf_free(&s->warning);
	free(s);
}

uint64_t
ofl_schema_values(struct ofl_schema *s)
{
	return s->values;
}

const char *
ofl_schema_warning(struct ofl_schema *s)
{
	ofl_buf_reset(&s->warning);
	if (s->cutdepth > 0)
		ofl_buf_addf(&s->warning, "%llu values nested deeper than %d "
		    "levels left out", (unsigned long long)s->cutdepth,
		    OFL_SCHEMA_MAX_DEPTH);
	if (s->cutkeys > 0)
		ofl_buf_addf(&s->warning, "%s%llu values beyond %d distinct "
		    "paths left out", s->warning.len ? "; " : "",
		    (unsigned long long)s->cutkeys, OFL_SCHEMA_MAX_NODES);
	if (s->extracols > 0)
		ofl_buf_addf(&s->warning, "%s%llu fields beyond %d columns "
		    "left out", s->warning.len ? "; " : "",
		    (unsigned long long)s->extracols, MAX_COLS);
	return s->warning.len ? ofl_buf_str(&s->warning) : NULL;
}

/* The tree. */

static struct snode *
node_new(struct ofl_schema *s, struct snode *parent, const char *key,
    size_t keylen, uint32_t hash)
{
	struct snode *n;

	n = ofl_xcalloc(1, sizeof(*n));
	n->parent = parent;
	if (key != NULL) {
		n->key = ofl_xmalloc(keylen + 1);
		memcpy(n->key, key, keylen);
		n->key[keylen] = '\0';
		n->keylen = keylen;
	}
	n->hash = hash;
	n->fmt = F_ALL;
	s->nnodes++;
	return n;
}

/* Free a tree without recursion: children are spliced into a list. */
static void
node_free(struct snode *n)
{
	struct snode *todo = n, *c;

	while (todo != NULL) {
		n = todo;
		todo = n->hnext;
		if (n->items != NULL) {
			n->items->hnext = todo;
			todo = n->items;
		}
		for (c = n->props; c != NULL; c = c->next) {
			c->hnext = todo;
			todo = c;
		}
		free(n->key);
		strset_free(n->en);
		free(n->en);
		free(n);
	}
}

static uint32_t
hash_key(const struct snode *parent, const char *k, size_t len)
{
	uint64_t h = 1469598103934665603ULL ^ (uintptr_t)parent;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)k[i];
		h *= 1099511628211ULL;
	}
	return (uint32_t)(h ^ (h >> 32));
}

static struct snode *
child(struct ofl_schema *s, struct snode *parent, const char *k, size_t len,
    uint64_t serial)
{
	struct snode *c, **nt, *next;
	uint32_t h;
	size_t i;

	h = hash_key(parent, k, len);
	for (c = s->htab[h & (s->hsize - 1)]; c != NULL; c = c->hnext)
		if (c->hash == h && c->parent == parent && c->keylen == len &&
		    memcmp(c->key, k, len) == 0)
			break;
	if (c == NULL) {
		if (s->nnodes >= OFL_SCHEMA_MAX_NODES)
			return NULL;
		if (s->nnodes >= s->hsize) {
			nt = ofl_xcalloc(s->hsize * 2, sizeof(*nt));
			for (i = 0; i < s->hsize; i++)
				for (c = s->htab[i]; c != NULL; c = next) {
					next = c->hnext;
					c->hnext = nt[c->hash &
					    (s->hsize * 2 - 1)];
					nt[c->hash & (s->hsize * 2 - 1)] = c;
				}
			free(s->htab);
			s->htab = nt;
			s->hsize *= 2;
		}
		c = node_new(s, parent, k, len, h);
		c->hnext = s->htab[h & (s->hsize - 1)];
		s->htab[h & (s->hsize - 1)] = c;
		if (parent->lastprop != NULL)
			parent->lastprop->next = c;
		else
			parent->props = c;
		parent->lastprop = c;
		parent->nprops++;
	}
	if (c->lastobj != serial) {
		c->lastobj = serial;
		c->present++;
	}
	return c;
}

static struct snode *
items(struct ofl_schema *s, struct snode *parent)
{
	if (parent->items == NULL) {
		if (s->nnodes >= OFL_SCHEMA_MAX_NODES)
			return NULL;
		parent->items = node_new(s, parent, NULL, 0, 0);
	}
	return parent->items;
}

static int
json_event(struct ofl_json *p, const struct ofl_json_event *ev, void *arg)
{
	struct ofl_schema *s = arg;
	struct sframe *f;
	struct snode *n;
	const char *k;
	size_t d = ev->depth, klen;

	if (ev->type == OFL_JSON_OBJECT_END ||
	    ev->type == OFL_JSON_ARRAY_END) {
		if (d > OFL_SCHEMA_MAX_DEPTH)
			return 0;
		s->open = d;
		f = &s->stack[d];
		if (f->node != NULL && !f->obj)
			array_len(f->node, f->len);
		return 0;
	}
	if (d > OFL_SCHEMA_MAX_DEPTH) {
		s->cutdepth++;
		return 0;
	}
	if (d == 0) {
		n = s->root;
		s->values++;
	} else {
		f = &s->stack[d - 1];
		if (f->node == NULL)
			n = NULL;
		else if (f->obj) {
			k = ofl_json_key(p, &klen);
			n = child(s, f->node, k, klen, f->serial);
		} else {
			f->len++;
			n = items(s, f->node);
		}
		if (n == NULL && f->node != NULL)
			s->cutkeys++;
	}
	if (n != NULL && ev->type == OFL_JSON_STRING && s->redact &&
	    secret_node(n)) {
		/* Examples and enums of "password" show no password. */
		struct ofl_json_event e = *ev;

		e.str = SECRET_MASK;
		e.len = sizeof(SECRET_MASK) - 1;
		record(n, &e);
	} else if (n != NULL)
		record(n, ev);
	if (ev->type == OFL_JSON_OBJECT_BEGIN ||
	    ev->type == OFL_JSON_ARRAY_BEGIN) {
		f = &s->stack[d];
		f->node = n;
		f->obj = ev->type == OFL_JSON_OBJECT_BEGIN;
		f->serial = n != NULL ? n->n[T_OBJ] : 0;
		f->len = 0;
		if (n != NULL && d == OFL_SCHEMA_MAX_DEPTH)
			n->cut = 1;
		s->open = d + 1;
	}
	return 0;
}

static void
array_len(struct snode *n, uint64_t len)
{
	if (n->cut)
		return;
	if (n->n[T_ARR] == 1 || len < n->lmin)
		n->lmin = len;
	if (len > n->lmax)
		n->lmax = len;
}

/* The input broke off: arrays still open count with what they hold. */
static void
close_open(struct ofl_schema *s)
{
	size_t d;

	for (d = s->open; d > 0; d--)
		if (d - 1 <= OFL_SCHEMA_MAX_DEPTH &&
		    s->stack[d - 1].node != NULL && !s->stack[d - 1].obj)
			array_len(s->stack[d - 1].node, s->stack[d - 1].len);
	s->open = 0;
}

/* Does the node's key name a secret (password, api_key)?  Cached. */
static int
secret_node(struct snode *n)
{
	if (n->secret == 0)
		n->secret = n->key != NULL &&
		    ofl_redact_secret_key(n->key, n->keylen) ? 2 : 1;
	return n->secret == 2;
}

static void
record(struct snode *n, const struct ofl_json_event *ev)
{
	double v;

	switch (ev->type) {
	case OFL_JSON_OBJECT_BEGIN:
		n->n[T_OBJ]++;
		break;
	case OFL_JSON_ARRAY_BEGIN:
		if (n->n[T_ARR]++ == 0 && n->n[T_OBJ] == 0)
			n->arrfirst = 1;
		break;
	case OFL_JSON_STRING:
		n->n[T_STR]++;
		if (n->en == NULL)
			n->en = ofl_xcalloc(1, sizeof(*n->en));
		strset_add(n->en, ev->str, ev->len, 1);
		if (n->fmt != 0)
			n->fmt = formats(ev->str, ev->len, n->fmt);
		break;
	case OFL_JSON_NUMBER:
		v = num_value(ev->str, ev->len);
		if (n->n[T_INT] + n->n[T_REAL] == 0 || v < n->min)
			n->min = v;
		if (n->n[T_INT] + n->n[T_REAL] == 0 || v > n->max)
			n->max = v;
		n->n[ev->integer ? T_INT : T_REAL]++;
		break;
	case OFL_JSON_TRUE:
		n->ntrue++;
		/* FALLTHROUGH */
	case OFL_JSON_FALSE:
		n->n[T_BOOL]++;
		break;
	case OFL_JSON_NULL:
		n->n[T_NULL]++;
		break;
	}
}

static void
strset_add(struct strset *e, const char *str, size_t len, uint64_t count)
{
	size_t i, end;

	if (e->over)
		return;
	for (i = 0; i < e->n; i++)
		if (e->len[i] == len && memcmp(SS_STR(e, i), str, len) == 0) {
			e->count[i] += count;
			return;
		}
	if (e->n == ENUM_MAX || len > ENUM_LEN) {
		/* Not an enum: keep nothing. */
		strset_free(e);
		e->over = 1;
		return;
	}
	end = e->n > 0 ? e->off[e->n - 1] + e->len[e->n - 1] : 0;
	e->data = ofl_xrealloc(e->data, end + len + 1);
	memcpy(e->data + end, str, len);
	e->off[e->n] = (unsigned short)end;
	e->len[e->n] = (unsigned char)len;
	e->count[e->n++] = count;
}

static void
strset_free(struct strset *e)
{
	if (e == NULL)
		return;
	free(e->data);
	e->data = NULL;
	e->n = 0;
}

static double
num_value(const char *str, size_t len)
{
	char buf[64], *p;
	double v;

	if (len < sizeof(buf)) {
		memcpy(buf, str, len);
		buf[len] = '\0';
		return strtod(buf, NULL);
	}
	p = ofl_xmalloc(len + 1);
	memcpy(p, str, len);
	p[len] = '\0';
	v = strtod(p, NULL);
	free(p);
	return v;
}

/* String formats. */

static int
digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* YYYY-MM-DD */
static int
is_date(const char *s, size_t n)
{
	int m, d;

	if (n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4) ||
	    !digits(s + 5, 2) || !digits(s + 8, 2))
		return 0;
	m = (s[5] - '0') * 10 + s[6] - '0';
	d = (s[8] - '0') * 10 + s[9] - '0';
	return m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

/* HH:MM:SS[.frac], with a zone (Z, +HH:MM) when zone is 1, optional when
 * zone is 2. */
static int
is_time(const char *s, size_t n, int zone)
{
	size_t i;

	if (n < 8 || !digits(s, 2) || s[2] != ':' || !digits(s + 3, 2) ||
	    s[5] != ':' || !digits(s + 6, 2) || s[0] > '2' || s[3] > '5' ||
	    s[6] > '6')
		return 0;
	i = 8;
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == 9)
			return 0;
	}
	if (i == n)
		return zone != 1;
	if (zone == 0)
		return 0;
	if ((s[i] == 'Z' || s[i] == 'z') && i + 1 == n)
		return 1;
	return (s[i] == '+' || s[i] == '-') && n - i == 6 &&
	    digits(s + i + 1, 2) && s[i + 3] == ':' && digits(s + i + 4, 2);
}

/* The formats among want that s matches. */
static unsigned int
formats(const char *s, size_t n, unsigned int want)
{
	unsigned int got = 0;
	unsigned char a[16];
	char buf[64];
	size_t i, at, dot;

	if (n == 0)
		return 0;
	if ((want & F_DATETIME) && n >= 20 && is_date(s, 10) &&
	    (s[10] == 'T' || s[10] == 't') && is_time(s + 11, n - 11, 1))
		got |= F_DATETIME;
	if ((want & F_DATE) && is_date(s, n))
		got |= F_DATE;
	if ((want & F_TIME) && is_time(s, n, 2))
		got |= F_TIME;
	if ((want & F_UUID) && n == 36) {
		for (i = 0; i < n; i++) {
			if (i == 8 || i == 13 || i == 18 || i == 23) {
				if (s[i] != '-')
					break;
			} else if (!((s[i] >= '0' && s[i] <= '9') ||
			    (s[i] >= 'a' && s[i] <= 'f') ||
			    (s[i] >= 'A' && s[i] <= 'F')))
				break;
		}
		if (i == n)
			got |= F_UUID;
	}
	if (want & F_EMAIL) {
		at = dot = 0;
		for (i = 0; i < n; i++) {
			if ((unsigned char)s[i] <= ' ' || s[i] == '<' ||
			    s[i] == '>' || s[i] == ',' || s[i] == '"' ||
			    s[i] == ':' || s[i] == '/')
				break;
			if (s[i] == '@') {
				if (at != 0)
					break;
				at = i;
			} else if (s[i] == '.' && at != 0)
				dot = i;
		}
		if (i == n && at > 0 && dot > at + 1 && dot + 1 < n)
			got |= F_EMAIL;
	}
	if (want & F_URI) {
		for (i = 0; i < n && i < 32; i++)
			if (!((s[i] >= 'a' && s[i] <= 'z') ||
			    (s[i] >= 'A' && s[i] <= 'Z') ||
			    (i > 0 && ((s[i] >= '0' && s[i] <= '9') ||
			    s[i] == '+' || s[i] == '-' || s[i] == '.'))))
				break;
		if (i > 0 && i + 3 < n && s[i] == ':' && s[i + 1] == '/' &&
		    s[i + 2] == '/') {
			for (i += 3; i < n; i++)
				if ((unsigned char)s[i] <= ' ' || s[i] == '"' ||
				    s[i] == '<' || s[i] == '>')
					break;
			if (i == n)
				got |= F_URI;
		}
	}
	if ((want & (F_IPV4 | F_IPV6)) && n < sizeof(buf)) {
		memcpy(buf, s, n);
		buf[n] = '\0';
		if ((want & F_IPV4) && inet_pton(AF_INET, buf, a) == 1)
			got |= F_IPV4;
		if ((want & F_IPV6) && memchr(buf, ':', n) != NULL &&
		    inet_pton(AF_INET6, buf, a) == 1)
			got |= F_IPV6;
	}
	return got & want;
}

/* CSV and TSV. */

static void
csv_feed(struct ofl_schema *s, const unsigned char *b, size_t n)
{
	size_t i, start;
	int c;

	for (i = 0; i < n; i++) {
		c = b[i];
		switch (s->cst) {
		case CS_CR:
			s->cst = CS_START;
			if (c == '\n')
				break;
			/* FALLTHROUGH */
		case CS_START:
			if (c == '"' && s->sep == ',') {
				s->cst = CS_Q;
				s->rowempty = 0;
				break;
			}
			s->cst = CS_UNQ;
			/* FALLTHROUGH */
		case CS_UNQ:
			if (c == s->sep) {
				csv_field(s);
				s->rowempty = 0;
				s->cst = CS_START;
			} else if (c == '\n' || c == '\r') {
				/* A blank line is not a row. */
				if (!s->rowempty) {
					csv_field(s);
					csv_endrow(s);
				}
				s->cst = c == '\r' ? CS_CR : CS_START;
			} else {
				/* A run of plain bytes at once. */
				start = i;
				while (i + 1 < n && b[i + 1] != s->sep &&
				    b[i + 1] != '\n' && b[i + 1] != '\r')
					i++;
				if (s->field.len < FIELD_MAX)
					ofl_buf_add(&s->field, b + start,
					    i + 1 - start <
					    FIELD_MAX - s->field.len ?
					    i + 1 - start :
					    FIELD_MAX - s->field.len);
				s->fieldlen += i + 1 - start;
				s->rowempty = 0;
			}
			break;
		case CS_Q:
			if (c == '"')
				s->cst = CS_QQ;
			else {
				if (s->field.len < FIELD_MAX)
					ofl_buf_addc(&s->field, c);
				s->fieldlen++;
			}
			break;
		case CS_QQ:
			if (c == '"') {
				if (s->field.len < FIELD_MAX)
					ofl_buf_addc(&s->field, c);
				s->fieldlen++;
				s->cst = CS_Q;
				break;
			}
			/* Lenient: text after a closing quote joins the
			 * field. */
			s->cst = CS_UNQ;
			i--;
			break;
		}
	}
}

static void
csv_field(struct ofl_schema *s)
{
	struct column *c;
	size_t maxlen;

	if (!s->header) {
		if (s->ncols == MAX_COLS) {
			s->extracols++;
			goto out;
		}
		s->cols = ofl_xrealloc(s->cols, (s->ncols + 1) *
		    sizeof(*s->cols));
		c = &s->cols[s->ncols++];
		memset(c, 0, sizeof(*c));
		c->name = ofl_xmalloc(s->field.len + 1);
		memcpy(c->name, s->field.data ? s->field.data : "",
		    s->field.len);
		c->name[s->field.len] = '\0';
		c->namelen = s->field.len;
		c->types = C_ALL;
		c->secret = s->redact && ofl_redact_secret_key(c->name,
		    c->namelen);
		goto out;
	}
	if (s->col >= s->ncols) {
		s->extracols++;
		goto out;
	}
	c = &s->cols[s->col];
	if (c->secret && s->field.len > 0) {
		/* The mask in place of the value; the length is the value's. */
		maxlen = c->maxlen > s->fieldlen ? c->maxlen : s->fieldlen;
		column_value(c, SECRET_MASK, sizeof(SECRET_MASK) - 1,
		    sizeof(SECRET_MASK) - 1);
		c->maxlen = maxlen;
	} else
		column_value(c, s->field.data ? s->field.data : "",
		    s->field.len, s->fieldlen);
out:
	s->col++;
	s->field.len = 0;
	s->fieldlen = 0;
}

static void
csv_endrow(struct ofl_schema *s)
{
	size_t i;

	if (!s->header)
		s->header = 1;
	else {
		s->values++;
		if (s->col != s->ncols)
			s->ragged++;
		for (i = s->col; i < s->ncols; i++)
			s->cols[i].empty++;
	}
	s->col = 0;
	s->rowempty = 1;
}

static unsigned int
csv_types(const char *v, size_t n)
{
	unsigned int t = 0;
	size_t i = 0, ndig = 0;
	char *end, buf[64];

	if (i < n && (v[i] == '-' || v[i] == '+'))
		i++;
	for (; i < n && v[i] >= '0' && v[i] <= '9'; i++)
		ndig++;
	if (i == n && ndig > 0)
		t |= C_INT | C_NUM;
	else if (n < sizeof(buf) && ndig + (n - i) > 0) {
		for (i = 0; i < n; i++)
			if (strchr("0123456789+-.eE", v[i]) == NULL)
				break;
		if (i == n) {
			memcpy(buf, v, n);
			buf[n] = '\0';
			(void)strtod(buf, &end);
			if (*end == '\0' && end != buf)
				t |= C_NUM;
		}
	}
	if ((n == 4 && strncasecmp(v, "true", 4) == 0) ||
	    (n == 5 && strncasecmp(v, "false", 5) == 0))
		t |= C_BOOL;
	if (is_date(v, n))
		t |= C_DATE;
	if (n >= 19 && is_date(v, 10) && (v[10] == 'T' || v[10] == ' ') &&
	    is_time(v + 11, n - 11, 2))
		t |= C_DATETIME;
	if (is_time(v, n, 2))
		t |= C_TIME;
	return t;
}

static void
column_value(struct column *c, const char *v, size_t n, size_t full)
{
	static const char *nulls[] = {
		"null", "NULL", "Null", "NA", "N/A", "n/a", "\\N", "None",
		"nil", NULL
	};
	double d;
	size_t i;

	if (full > c->maxlen)
		c->maxlen = full;
	if (n == 0) {
		c->empty++;
		return;
	}
	for (i = 0; nulls[i] != NULL; i++)
		if (strlen(nulls[i]) == n && memcmp(nulls[i], v, n) == 0) {
			c->nulls++;
			return;
		}
	c->types &= n == full ? csv_types(v, n) : 0;
	if (c->types & C_NUM) {
		d = num_value(v, n);
		if (c->count == 0 || d < c->min)
			c->min = d;
		if (c->count == 0 || d > c->max)
			c->max = d;
	}
	c->count++;
	strset_add(&c->en, v, n < full ? ENUM_LEN + 1 : n, 1);
	if (c->nex < EXAMPLES) {
		for (i = 0; i < c->nex; i++)
			if (strlen(c->ex[i]) == n &&
			    memcmp(c->ex[i], v, n) == 0)
				return;
		if (n < full)
			c->excut |= 1U << c->nex;
		c->ex[c->nex] = ofl_xmalloc(n + 1);
		memcpy(c->ex[c->nex], v, n);
		c->ex[c->nex++][n] = '\0';
	}
}

/* Feeding. */

int
ofl_schema_feed(struct ofl_schema *s, const void *buf, size_t n)
{
	if (s->failed)
		return -1;
	if (s->parser == NULL) {
		csv_feed(s, buf, n);
		return 0;
	}
	if (ofl_json_feed(s->parser, buf, n) != 0) {
		s->failed = 1;
		close_open(s);
		return -1;
	}
	return 0;
}

int
ofl_schema_finish(struct ofl_schema *s)
{
	if (s->failed)
		return -1;
	if (s->parser == NULL) {
		if (!s->rowempty) {
			csv_field(s);
			csv_endrow(s);
		}
		s->cst = CS_START;
		return 0;
	}
	if (ofl_json_finish(s->parser) != 0) {
		s->failed = 1;
		close_open(s);
		return -1;
	}
	return 0;
}

int
ofl_schema_read(struct ofl_schema *s, struct ofl_reader *r, uint64_t max,
    int *cut)
{
	const size_t bufsize = 65536;
	char *buf;
	uint64_t total = 0;
	size_t want;
	ssize_t got;
	int rv = 0;

	if (cut != NULL)
		*cut = 0;
	buf = ofl_xmalloc(bufsize);
	for (;;) {
		want = bufsize;
		if (max != 0 && max - total < want)
			want = max - total;
		if (want == 0) {
			if (cut != NULL && ofl_reader_read(r, buf, 1) > 0)
				*cut = 1;
			break;
		}
		if ((got = ofl_reader_read(r, buf, want)) == -1) {
			rv = -1;
			break;
		}
		if (got == 0)
			break;
		total += got;
		if ((rv = ofl_schema_feed(s, buf, got)) == -1)
			break;
	}
	free(buf);
	if (rv == -1)
		return -1;
	return ofl_schema_finish(s);
}

/* Output helpers. */

/* A number as JSON would write it: integers without an exponent. */
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
	size_t i;

	if (enum_ok(e, count)) {
		for (i = 0; i < e->n; i++) {
			if (i > 0)
				ofl_buf_addc(b, '|');
			add_str(b, SS_STR(e, i), e->len[i]);
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
			node_free(m);
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
			strset_add(dst->en, SS_STR(src->en, i),
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

static void
shape_csv(struct ofl_schema *s, size_t max_out, size_t max_lines,
    struct ofl_buf *out)
{
	struct ofl_buf line;
	struct column *c;
	size_t i, j, start = out->len, lines = 1;

	ofl_buf_init(&line);
	ofl_buf_adds(out, s->kind == OFL_KIND_CSV ? "csv: " : "tsv: ");
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
		if (c->count > 0 && !enum_ok(&c->en, c->count) &&
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

/* For the notice. */

int
ofl_schema_shape(struct ofl_reader *r, int kind, size_t max_input,
    size_t max_out, struct ofl_buf *out)
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
