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

#include "schema-int.h"


/* CSV states. */
enum {
	CS_START, CS_UNQ, CS_Q, CS_QQ, CS_CR
};

static struct snode *node_new(struct ofl_schema *, struct snode *,
		    const char *, size_t, uint32_t);
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
static void	strset_free(struct strset *);
static unsigned int formats(const char *, size_t, unsigned int);
static int	digits(const char *, size_t);
static int	is_date(const char *, size_t);
static int	is_time(const char *, size_t, int);
static double	num_value(const char *, size_t);

static void	csv_feed(struct ofl_schema *, const unsigned char *, size_t);
static void	csv_bytes(struct ofl_schema *, const unsigned char *, size_t);
static void	csv_field(struct ofl_schema *);
static void	csv_endrow(struct ofl_schema *);
static void	column_value(struct column *, const char *, size_t, size_t);
static unsigned int csv_types(const char *, size_t);
static void	table_feed(struct ofl_schema *, const unsigned char *, size_t);
static void	table_finish(struct ofl_schema *);


int
ofl_schema_supports(int kind)
{
	return kind == OFL_KIND_JSON || kind == OFL_KIND_NDJSON ||
	    kind == OFL_KIND_CSV || kind == OFL_KIND_TSV ||
	    kind == OFL_KIND_TABLE;
}

struct ofl_schema *
ofl_schema_new(int kind)
{
	struct ofl_schema *s;

	if (!ofl_schema_supports(kind)) {
		ofl_seterr(OFL_EXIT_FAIL, "no schema for %s content: "
		    "only JSON, NDJSON, CSV, TSV and tables have one",
		    ofl_kind_name(kind));
		return NULL;
	}
	s = ofl_xcalloc(1, sizeof(*s));
	s->kind = kind;
	s->redact = ofl_redact_wanted();
	ofl_buf_init(&s->field);
	ofl_buf_init(&s->warning);
	if (kind == OFL_KIND_CSV || kind == OFL_KIND_TSV ||
	    kind == OFL_KIND_TABLE) {
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
	ofl_schema_node_free(s->root);
	free(s->htab);
	for (i = 0; i < s->ncols; i++) {
		free(s->cols[i].name);
		strset_free(&s->cols[i].en);
		for (j = 0; j < s->cols[i].nex; j++)
			free(s->cols[i].ex[j]);
	}
	free(s->cols);
	if (s->tlayout)
		ofl_fmt_table_free(&s->tab);
	ofl_buf_free(&s->thead);
	ofl_buf_free(&s->tline);
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
	if (s->extrafields > 0)
		ofl_buf_addf(&s->warning, "%s%llu fields past the header's "
		    "%zu left out", s->warning.len ? "; " : "",
		    (unsigned long long)s->extrafields, s->hdrfields);
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
void
ofl_schema_node_free(struct snode *n)
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
		ofl_schema_strset_add(n->en, ev->str, ev->len, 1);
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

void
ofl_schema_strset_add(struct strset *e, const char *str, size_t len, uint64_t count)
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

/*
 * A byte order mark (Excel's CSV) is no part of the data.  It may come
 * in pieces: its bytes are held until they are a mark or are not.
 */
static void
csv_feed(struct ofl_schema *s, const unsigned char *b, size_t n)
{
	static const unsigned char	 bom[] = "\xef\xbb\xbf";

	if (s->bomdone) {
		csv_bytes(s, b, n);
		return;
	}
	while (n > 0 && s->bomheld < 3 && *b == bom[s->bomheld]) {
		s->bomheld++;
		b++;
		n--;
	}
	if (s->bomheld < 3 && n == 0)
		return;
	s->bomdone = 1;
	if (s->bomheld < 3)
		csv_bytes(s, bom, s->bomheld);
	csv_bytes(s, b, n);
}

static void
csv_bytes(struct ofl_schema *s, const unsigned char *b, size_t n)
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

/* Whether a column before the last has the name (which may hold a NUL). */
static int
col_taken(void *arg, const char *name, size_t n)
{
	struct ofl_schema	*s = arg;
	size_t			 i;

	for (i = 0; i + 1 < s->ncols; i++)
		if (s->cols[i].namelen == n &&
		    memcmp(s->cols[i].name, name, n) == 0)
			return 1;
	return 0;
}

/*
 * The name of the header's next column as the records reader gives it
 * to jq (records.c), so that a name ofl-schema prints is one a filter
 * can use: an empty one is "column N", a repeated one NAME_N (N counts
 * from 1).
 */
static void
col_name(struct ofl_schema *s, struct column *c)
{
	struct ofl_buf	nb;

	ofl_buf_init(&nb);
	ofl_records_colname(&nb, s->field.data, s->field.len, s->ncols,
	    col_taken, s);
	c->namelen = nb.len;
	c->name = ofl_buf_str(&nb);	/* the buffer's bytes, now its */
}

static void
csv_field(struct ofl_schema *s)
{
	struct column *c;
	size_t maxlen;

	if (!s->header) {
		s->hdrfields++;
		if (s->ncols == MAX_COLS) {
			s->extracols++;
			goto out;
		}
		s->cols = ofl_xrealloc(s->cols, (s->ncols + 1) *
		    sizeof(*s->cols));
		c = &s->cols[s->ncols++];
		memset(c, 0, sizeof(*c));
		col_name(s, c);
		c->types = C_ALL;
		c->secret = s->redact && ofl_redact_secret_key(c->name,
		    c->namelen);
		goto out;
	}
	if (s->col >= s->ncols) {
		if (s->col >= s->hdrfields)
			s->extrafields++;
		else
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
		if (s->col != s->hdrfields)
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
			if (!ofl_in_set(v[i], "0123456789+-.eE"))
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
	ofl_schema_strset_add(&c->en, v, n < full ? ENUM_LEN + 1 : n, 1);
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

/*
 * Tables: the layout is found from the first 64 KiB (fmt-table.c); then
 * the header's names and each row's cells go through CSV's columns.  A
 * kubectl restart count, "5 (3m ago)", is the number 5, as in records.
 * The table ends at its first blank line; lines over 64 KiB are cut.
 */
#define TABLE_HEAD	(64 * 1024)

static void
table_cell(struct ofl_schema *s, const char *p, size_t n)
{
	ofl_buf_reset(&s->field);
	ofl_buf_add(&s->field, p, n < FIELD_MAX ? n : FIELD_MAX);
	s->fieldlen = n;
	csv_field(s);
}

static void
table_line(struct ofl_schema *s, const char *p, size_t n)
{
	size_t	off[OFL_TABLE_COLS], len[OFL_TABLE_COLS], i, k;
	int	integer;

	while (n > 0 && p[n - 1] == '\r')
		n--;
	s->tlineno++;
	if (s->tdone || ofl_fmt_table_over(&s->tab, s->tlineno))
		return;
	if (s->tlineno == s->tab.hdr_line) {
		for (i = 0; i < s->tab.ncols; i++)
			table_cell(s, s->tab.name[i], strlen(s->tab.name[i]));
		csv_endrow(s);
		return;
	}
	if (ofl_blank(p, n)) {
		s->tdone = 1;
		return;
	}
	ofl_fmt_table_split(&s->tab, p, n, off, len);
	for (i = 0; i < s->tab.ncols; i++) {
		k = ofl_fmt_table_number(p + off[i], len[i], &integer);
		table_cell(s, p + off[i], k > 0 ? k : len[i]);
	}
	csv_endrow(s);
}

/* Lines of b, the last partial one kept in tline. */
static void
table_lines(struct ofl_schema *s, const unsigned char *b, size_t n)
{
	const unsigned char	*nl;
	size_t			 k;

	while (n > 0) {
		nl = memchr(b, '\n', n);
		k = nl == NULL ? n : (size_t)(nl - b);
		if (!s->tcut) {
			if (s->tline.len + k > TABLE_HEAD) {
				k = TABLE_HEAD - s->tline.len;
				s->tcut = 1;
			}
			ofl_buf_add(&s->tline, b, k);
		}
		if (nl == NULL)
			return;
		table_line(s, s->tline.data != NULL ? s->tline.data : "",
		    s->tline.len);
		ofl_buf_reset(&s->tline);
		s->tcut = 0;
		n -= (size_t)(nl - b) + 1;
		b = nl + 1;
	}
}

static void
table_start(struct ofl_schema *s, int complete)
{
	if (!ofl_fmt_table_layout((unsigned char *)s->thead.data,
	    s->thead.len, complete, &s->tab)) {
		ofl_seterr(OFL_EXIT_FAIL, "no table: no header over aligned "
		    "columns");
		s->failed = 1;
		return;
	}
	s->tlayout = 1;
	table_lines(s, (unsigned char *)s->thead.data, s->thead.len);
	ofl_buf_free(&s->thead);
}

static void
table_feed(struct ofl_schema *s, const unsigned char *b, size_t n)
{
	if (s->tlayout) {
		table_lines(s, b, n);
		return;
	}
	ofl_buf_add(&s->thead, b, n);
	if (s->thead.len >= TABLE_HEAD)
		table_start(s, 0);
}

static void
table_finish(struct ofl_schema *s)
{
	if (!s->tlayout)
		table_start(s, 1);
	if (s->tlayout && s->tline.len > 0) {
		table_line(s, s->tline.data, s->tline.len);
		ofl_buf_reset(&s->tline);
	}
}

/* Feeding. */

int
ofl_schema_feed(struct ofl_schema *s, const void *buf, size_t n)
{
	if (s->failed)
		return -1;
	if (s->kind == OFL_KIND_TABLE) {
		table_feed(s, buf, n);
		return s->failed ? -1 : 0;
	}
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
	if (s->kind == OFL_KIND_TABLE) {
		table_finish(s);
		return s->failed ? -1 : 0;
	}
	if (s->parser == NULL) {
		/* The start of a byte order mark, and no more: data. */
		if (!s->bomdone) {
			s->bomdone = 1;
			csv_bytes(s, (const unsigned char *)"\xef\xbb",
			    s->bomheld);
		}
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
