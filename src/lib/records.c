/*
 * records.c: a table, CSV or TSV artifact as a stream of records, one
 * object a row keyed by the header, for jq filters (extract-jq.c) and for
 * comparing rows (diff.c).  One pass first finds each column's type: a
 * column whose every non-empty cell is a number gives numbers (its empty
 * cells give null), any other gives strings.  kubectl's restart count
 * with the time since the last restart, "5 (3m ago)", is the number 5.
 * The types are found from the first RECORDS_SCAN bytes; a later cell
 * that is not a number is given as a string.  Lines over 64 KiB are cut;
 * a table ends at its first blank line.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define RECORDS_SCAN	(64ULL * 1024 * 1024)	/* bytes the types read */
#define RECORDS_REC	(1024 * 1024)		/* a CSV record at most */
#define RECORDS_COLS	1024			/* columns at most */

struct ofl_records {
	const struct ofl_src	*src;
	int			 kind;
	int			 delim;
	struct ofl_fmt_table	 t;
	size_t			 ncols;
	char			**names;
	size_t			*namelen;	/* a name may hold a NUL */
	size_t			 named;		/* names taken so far */
	int			*type;
	struct ofl_fmt_table_rd	 rd;
	int			 rd_open;
	uint64_t		 lineno;	/* lines read */
	uint64_t		 recline;	/* the current record's */
	int			 done;
	const char		*pend;		/* a line read ahead */
	size_t			 pendn;
	struct ofl_buf		 rec;
	struct ofl_buf		 cells;
	const char		*base;
	size_t			*off;
	size_t			*len;
	size_t			 nf;
	uint64_t		 cut;		/* records cut (CSV, TSV) */
};

int
ofl_records_supports(int kind)
{
	return kind == OFL_KIND_CSV || kind == OFL_KIND_TSV ||
	    kind == OFL_KIND_TABLE;
}

/*
 * The length of the number a cell is, 0 if none: as a table's cell is
 * (fmt-table.c), without the leading zeros JSON does not allow.
 */
static size_t
num_len(const char *s, size_t n, int *integer)
{
	size_t	k, d = 0;

	if ((k = ofl_fmt_table_number(s, n, integer)) == 0)
		return 0;
	if (s[0] == '-' || s[0] == '+')
		d = 1;
	if (s[d] == '0' && d + 1 < k && s[d + 1] >= '0' && s[d + 1] <= '9')
		return 0;
	return k;
}

static int
rd_start(struct ofl_records *r, uint64_t max)
{
	if (r->rd_open)
		ofl_fmt_table_rd_free(&r->rd);
	r->rd_open = 0;
	if (ofl_src_seek(r->src, 0) == -1)
		return -1;
	ofl_fmt_table_rd_init(&r->rd, r->src, max);
	r->rd_open = 1;
	r->lineno = 0;
	r->done = 0;
	r->pend = NULL;
	return 0;
}

/*
 * The next record's cells (base, off, len, nf): 1, 0 at the end, -1.
 * The header is a record too, the first.
 */
static int
rec_next(struct ofl_records *r)
{
	const char	*p;
	size_t		 n, k;
	int		 rv;

	for (;;) {
		if (r->done)
			return 0;
		if ((rv = ofl_fmt_table_rd_next(&r->rd, &p, &n)) != 1)
			return rv;
		r->lineno++;
		if (r->kind == OFL_KIND_TABLE) {
			if (ofl_fmt_table_over(&r->t, r->lineno))
				continue;
			if (ofl_blank(p, n)) {
				r->done = 1;
				return 0;
			}
			r->recline = r->lineno;
			ofl_fmt_table_split(&r->t, p, n, r->off, r->len);
			r->base = p;
			r->nf = r->t.ncols;
			return 1;
		}
		if (ofl_blank(p, n))
			continue;
		r->recline = r->lineno;
		ofl_buf_reset(&r->rec);
		ofl_buf_add(&r->rec, p, n);
		while (!ofl_fmt_csv_complete(r->rec.data, r->rec.len,
		    r->delim) && r->rec.len < RECORDS_REC) {
			if ((rv = ofl_fmt_table_rd_next(&r->rd, &p, &n)) == -1)
				return -1;
			if (rv == 0)
				break;
			r->lineno++;
			ofl_buf_addc(&r->rec, '\n');
			ofl_buf_add(&r->rec, p, n);
		}
		/* A byte order mark (Excel's CSV) is no part of the data. */
		if (r->recline == 1 && (k = ofl_bom(r->rec.data,
		    r->rec.len)) > 0) {
			memmove(r->rec.data, r->rec.data + k, r->rec.len - k);
			r->rec.len -= k;
		}
		r->nf = ofl_fmt_csv_split(r->rec.data, r->rec.len, r->delim,
		    &r->cells, r->off, r->len, RECORDS_COLS);
		if (r->nf > RECORDS_COLS || (r->rec.len >= RECORDS_REC &&
		    !ofl_fmt_csv_complete(r->rec.data, r->rec.len, r->delim)))
			r->cut++;
		if (r->nf > RECORDS_COLS)
			r->nf = RECORDS_COLS;
		r->base = r->cells.data != NULL ? r->cells.data : "";
		return 1;
	}
}

static int	name_taken(void *, const char *, size_t);

/* The header's names: empty ones "column N", repeated ones "NAME_N". */
static void
take_names(struct ofl_records *r)
{
	size_t	i;

	r->ncols = r->nf;
	r->names = ofl_xcalloc(r->ncols, sizeof *r->names);
	r->namelen = ofl_xcalloc(r->ncols, sizeof *r->namelen);
	r->type = ofl_xcalloc(r->ncols, sizeof *r->type);
	for (r->named = 0; r->named < r->ncols; r->named++) {
		struct ofl_buf	nb;

		i = r->named;
		ofl_buf_init(&nb);
		if (r->kind == OFL_KIND_TABLE && r->t.named)
			ofl_records_colname(&nb, r->t.name[i],
			    strlen(r->t.name[i]), i + 1, name_taken, r);
		else
			ofl_records_colname(&nb, r->base + r->off[i],
			    r->len[i], i + 1, name_taken, r);
		r->namelen[i] = nb.len;
		r->names[i] = ofl_buf_str(&nb);
		r->type[i] = OFL_RECORDS_INTEGER;
	}
}

/* Whether a column before the one being named has the name. */
static int
name_taken(void *arg, const char *s, size_t n)
{
	struct ofl_records	*r = arg;
	size_t			 i;

	for (i = 0; i < r->named; i++)
		if (r->namelen[i] == n && memcmp(r->names[i], s, n) == 0)
			return 1;
	return 0;
}

void
ofl_records_colname(struct ofl_buf *nb, const char *s, size_t n, size_t col,
    int (*taken)(void *, const char *, size_t), void *arg)
{
	size_t	start = nb->len;

	if (n == 0)
		ofl_buf_addf(nb, "column %zu", col);
	else
		ofl_buf_add(nb, s, n);
	if (taken(arg, ofl_buf_str(nb) + start, nb->len - start))
		ofl_buf_addf(nb, "_%zu", col);
}

/* The types: one pass over the rows. */
static int
find_types(struct ofl_records *r)
{
	size_t	i;
	int	rv, integer;
	int	seen[RECORDS_COLS];

	memset(seen, 0, sizeof seen);
	while ((rv = rec_next(r)) == 1) {
		for (i = 0; i < r->ncols && i < r->nf; i++) {
			if (r->len[i] == 0 || r->type[i] == OFL_RECORDS_STRING)
				continue;
			seen[i] = 1;
			if (num_len(r->base + r->off[i], r->len[i],
			    &integer) == 0)
				r->type[i] = OFL_RECORDS_STRING;
			else if (!integer)
				r->type[i] = OFL_RECORDS_NUMBER;
		}
	}
	for (i = 0; i < r->ncols; i++)
		if (!seen[i])
			r->type[i] = OFL_RECORDS_STRING;
	return rv;
}

struct ofl_records *
ofl_records_open(const struct ofl_src *src, int kind)
{
	struct ofl_records	*r;
	unsigned char		*head;
	size_t			 hlen;

	if (!ofl_records_supports(kind)) {
		ofl_seterr(OFL_EXIT_FAIL, "%s content has no records: only "
		    "tables, CSV and TSV do", ofl_kind_name(kind));
		return NULL;
	}
	r = ofl_xcalloc(1, sizeof *r);
	r->src = src;
	r->kind = kind;
	r->delim = kind == OFL_KIND_CSV ? ',' : '\t';
	ofl_buf_init(&r->rec);
	ofl_buf_init(&r->cells);
	r->off = ofl_xcalloc(RECORDS_COLS, sizeof *r->off);
	r->len = ofl_xcalloc(RECORDS_COLS, sizeof *r->len);
	if (kind == OFL_KIND_TABLE) {
		if ((head = ofl_src_head(src, 64 * 1024, &hlen)) == NULL)
			goto fail;
		if (!ofl_fmt_table_layout(head, hlen,
		    hlen == ofl_src_bytes(src), &r->t)) {
			free(head);
			ofl_seterr(OFL_EXIT_FAIL, "no table: no header over "
			    "aligned columns");
			goto fail;
		}
		free(head);
	}
	if (rd_start(r, RECORDS_SCAN) == -1)
		goto fail;
	switch (rec_next(r)) {
	case -1:
		goto fail;
	case 0:
		ofl_seterr(OFL_EXIT_FAIL, "no header");
		goto fail;
	}
	take_names(r);
	if (find_types(r) == -1)
		goto fail;
	r->cut = 0;	/* counted again as the rows are read */
	if (rd_start(r, 0) == -1 || rec_next(r) == -1)
		goto fail;
	return r;
fail:
	ofl_records_close(r);
	return NULL;
}

void
ofl_records_close(struct ofl_records *r)
{
	size_t	i;

	if (r == NULL)
		return;
	if (r->rd_open)
		ofl_fmt_table_rd_free(&r->rd);
	for (i = 0; i < r->ncols; i++)
		free(r->names[i]);
	free(r->names);
	free(r->namelen);
	free(r->type);
	free(r->off);
	free(r->len);
	ofl_buf_free(&r->rec);
	ofl_buf_free(&r->cells);
	if (r->kind == OFL_KIND_TABLE)
		ofl_fmt_table_free(&r->t);
	free(r);
}

uint64_t
ofl_records_cut(const struct ofl_records *r)
{
	return r->cut + r->rd.cut;
}

size_t
ofl_records_ncols(const struct ofl_records *r)
{
	return r->ncols;
}

const char *
ofl_records_name(const struct ofl_records *r, size_t i)
{
	return i < r->ncols ? r->names[i] : NULL;
}

int
ofl_records_type(const struct ofl_records *r, size_t i)
{
	return i < r->ncols ? r->type[i] : OFL_RECORDS_STRING;
}

int
ofl_records_next(struct ofl_records *r, uint64_t *line)
{
	int	rv;

	if ((rv = rec_next(r)) == 1 && line != NULL)
		*line = r->recline;
	return rv;
}

const char *
ofl_records_cell(const struct ofl_records *r, size_t i, size_t *len)
{
	if (i >= r->nf) {
		*len = 0;
		return NULL;
	}
	*len = r->len[i];
	return r->base + r->off[i];
}

/*
 * What cell i of the current record gives: OFL_RECORDS_VNULL (past the
 * row's end, or empty in a numeric column), OFL_RECORDS_VNUM with the
 * number's JSON text in *p and *n (no "+"; kubectl's "5 (3m ago)" is
 * "5"), or OFL_RECORDS_VSTR with the cell's bytes.
 */
int
ofl_records_value(const struct ofl_records *r, size_t i, const char **p,
    size_t *n)
{
	const char	*c;
	size_t		 len, k;
	int		 integer;

	*p = NULL;
	*n = 0;
	c = ofl_records_cell(r, i, &len);
	if (c == NULL || (len == 0 && r->type[i] != OFL_RECORDS_STRING))
		return OFL_RECORDS_VNULL;
	if (r->type[i] != OFL_RECORDS_STRING &&
	    (k = num_len(c, len, &integer)) > 0) {
		if (c[0] == '+') {
			c++;
			k--;
		}
		*p = c;
		*n = k;
		return OFL_RECORDS_VNUM;
	}
	*p = c;
	*n = len;
	return OFL_RECORDS_VSTR;
}

/* The current record as one JSON object, appended to out. */
void
ofl_records_json(const struct ofl_records *r, struct ofl_buf *out)
{
	const char	*c;
	size_t		 i, n;

	ofl_buf_addc(out, '{');
	for (i = 0; i < r->ncols; i++) {
		if (i > 0)
			ofl_buf_addc(out, ',');
		ofl_buf_add_json_cstr(out, r->names[i]);
		ofl_buf_addc(out, ':');
		switch (ofl_records_value(r, i, &c, &n)) {
		case OFL_RECORDS_VNULL:
			ofl_buf_adds(out, "null");
			break;
		case OFL_RECORDS_VNUM:
			ofl_buf_add(out, c, n);
			break;
		default:
			ofl_buf_add_json_str(out, c, n);
			break;
		}
	}
	ofl_buf_addc(out, '}');
}
