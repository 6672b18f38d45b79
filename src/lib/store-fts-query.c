/*
 * store-fts-query.c: searching the full-text index, and its vocabulary.
 *
 * A query runs on every generation of the index (store-gen.c) that may
 * hold what it asks for, leaving buried rows out, and the hits of all
 * are merged by score.  The ranking's statistics are each artifact's
 * own, so a hit scores the same whichever generation holds it and
 * whatever else is stored.  A query of the store or of a filter that
 * matches more rows than its cap ranks those of the newest contents
 * only: their row ids are counted first, highest first, which reads at
 * most the cap's rows of each generation, where ranking all would score
 * every row.  A generation that keeps no places of words is queried
 * through store-fts-pos.c.
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

#define CHUNK_MAX	OFL_FTS_CHUNK_MAX
/* Rows of a generation without places ranked again on their text. */
#define RETEXT_MAX	1024
/* Rows ranked again for each asked for: in one content, in many. */
#define RETEXT_ONE	8
#define RETEXT_MANY	2

/* Searching. */

int
ofl_store_fts_scope(struct ofl_store *st, const int64_t *blobs, size_t n)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	size_t		 i;

	if (sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS ix_scope"
	    " (blob INTEGER PRIMARY KEY); DELETE FROM temp.ix_scope", NULL,
	    NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO temp.ix_scope"
	    " VALUES(?1)", -1, &q, NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
		return -1;
	}
	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(q, 1, blobs[i]);
		(void)sqlite3_step(q);
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	return 0;
}

/* The artifacts of a filter that are complete, as SQL (store-int.h). */
#define FILTER_SQL	" a.state = 1 AND" STORE_FILTER_SQL

/* A row a query found, in any generation. */
struct hit {
	int64_t		 id;
	double		 score;
};

struct hits {
	struct hit	*v;
	size_t		 n;
	size_t		 cap;
};

static int	 hit_cmp(const void *, const void *);

/*
 * The statement of fq on generation gen, in buf: ranked, or with scan
 * set, its rows by row id, highest first.  Row ids from ?7 to below ?8.
 */
static void
query_sql(const struct ofl_fts_query *fq, int64_t gen, int buried,
    int scan, char *buf, size_t size)
{
	const char	*where, *rank;
	char		 t[32];

	ix_gen_name(gen, t, sizeof t);
	if (fq->blob >= 0 && fq->lines)
		/* Only the chunks that overlap the lines. */
		where = " AND rowid BETWEEN ?2 AND ?3 AND rowid IN (SELECT id"
		    " FROM ix_chunk WHERE id BETWEEN ?2 AND ?3 AND"
		    " line_start <= ?6 AND line_end >= ?5)";
	else if (fq->blob >= 0)
		where = " AND rowid BETWEEN ?2 AND ?3";
	else if (fq->scoped || fq->filter != NULL)
		where = " AND rowid / ?5 IN (SELECT blob FROM temp.ix_scope)";
	else
		where = "";
	rank = scan == 1 ? "" : scan == 2 ? " AND rank MATCH '" IX_RANK_KEEP
	    "'" : scan == 3 ? " AND rank MATCH '" IX_RANK_ROWS "'" :
	    " AND rank MATCH '" OFL_INDEX_RANK "'";
	snprintf(buf, size, "SELECT rowid%s FROM %s WHERE %s MATCH ?1"
	    " AND rowid >= ?7 AND rowid < ?8%s%s%s ORDER BY %s LIMIT ?4",
	    scan == 1 ? "" : ", -rank", t, t, rank, where, buried ?
	    " AND rowid / ?5 NOT IN (SELECT blob FROM ix_dead WHERE gen ="
	    " ?12)" : "", scan == 1 ? "rowid DESC" : "rank, rowid");
}

/* Bind fq's parameters to q, a statement of query_sql(). */
static void
query_bind(sqlite3_stmt *q, const struct ofl_fts_query *fq, int64_t gen,
    int64_t low, int64_t high, int64_t limit)
{
	sqlite3_bind_text(q, 1, fq->match, -1, SQLITE_STATIC);
	if (fq->blob >= 0) {
		sqlite3_bind_int64(q, 2, ix_rowid(fq->blob, 0));
		sqlite3_bind_int64(q, 3, ix_rowid(fq->blob + 1, 0) - 1);
	}
	sqlite3_bind_int64(q, 4, limit);
	if (fq->blob >= 0 && fq->lines) {
		sqlite3_bind_int64(q, 5, (int64_t)fq->line_from);
		sqlite3_bind_int64(q, 6, (int64_t)fq->line_to);
	} else if (fq->blob < 0)
		sqlite3_bind_int64(q, 5, ix_rowid(1, 0));
	sqlite3_bind_int64(q, 7, low);
	sqlite3_bind_int64(q, 8, high);
	sqlite3_bind_int64(q, 12, gen);
}

/*
 * The statement of fq on generation gen (query_sql()), bound: rows from
 * low to below high, at most limit of them.
 */
static sqlite3_stmt *
query_prep(sqlite3 *db, const struct ofl_fts_query *fq, int64_t gen,
    int buried, int scan, int64_t low, int64_t high, int64_t limit)
{
	sqlite3_stmt	*q;
	char		 sql[512];

	query_sql(fq, gen, buried, scan, sql, sizeof sql);
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
		return NULL;
	}
	query_bind(q, fq, gen, low, high, limit);
	return q;
}

/* The error of a query's statement, as the user's when it is theirs. */
static int
query_err(sqlite3 *db, const struct ofl_fts_query *fq)
{
	return ix_match_err(db, fq->match, fq->raw);
}

static void
hit_add(struct hits *h, int64_t id, double score)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 64;
		h->v = ofl_xrealloc(h->v, h->cap * sizeof *h->v);
	}
	h->v[h->n].id = id;
	h->v[h->n].score = score;
	h->n++;
}

/*
 * Run fq on generation gen, its rows from low on, adding them to h;
 * keep: ranked to be ranked again, on a generation that keeps no places
 * (1) or no columns either (2).
 */
static int
query_gen(sqlite3 *db, const struct ofl_fts_query *fq, int64_t gen,
    int buried, int64_t low, struct hits *h, int keep)
{
	sqlite3_stmt	*q;
	int		 rc;

	if ((q = query_prep(db, fq, gen, buried, keep ? keep + 1 : 0, low,
	    INT64_MAX, (int64_t)fq->limit)) == NULL)
		return -1;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		hit_add(h, sqlite3_column_int64(q, 0),
		    sqlite3_column_double(q, 1));
	if (rc != SQLITE_DONE) {
		query_err(db, fq);
		sqlite3_finalize(q);
		return -1;
	}
	sqlite3_finalize(q);
	return 0;
}

/*
 * Run fq on the generations of g that keep no places of words, as rq
 * (fq, or fq relaxed: store-fts-pos.c): the best rows of all, more than
 * fq's limit, are ranked again on their text and checked by fq itself
 * when rq is fq relaxed; more are asked for while too few pass.  The
 * rows ranked again are the best of all the generations, so that how
 * the index is cut into generations changes nothing.
 */
static int
query_gens_pos(struct ofl_store *st, const struct ofl_fts_query *fq,
    const struct ofl_fts_query *rq, const struct fts_relaxed *rx,
    const struct ix_gen *g, size_t ng, int64_t low, struct hits *h)
{
	struct ofl_fts_query	 aq = *rq;
	struct hits		 c = { NULL, 0, 0 };
	unsigned char		*ok = NULL;
	int64_t			*rows = NULL;
	double			*score = NULL;
	size_t			 lim, i, j, kept, got;
	int			 relaxed = rq->match != fq->match, ret = -1;

	lim = fq->limit > (size_t)INT32_MAX ? (size_t)INT64_MAX : fq->blob >= 0 ?
	    fq->limit * RETEXT_ONE + 64 : fq->limit * RETEXT_MANY + 16;
	for (;;) {
		c.n = 0;
		aq.limit = lim;
		/* No statistics of another query (or connection) are left. */
		store_fts_rank_forget();
		for (j = 0; j < ng; j++)
			if (g[j].nopos && query_gen(ofl_store_db(st), &aq,
			    g[j].gen, g[j].buried, low, &c, g[j].nopos) == -1)
				goto out;
		got = c.n;
		if (c.n > 1)
			qsort(c.v, c.n, sizeof *c.v, hit_cmp);
		if (c.n > lim)
			c.n = lim;
		if (!relaxed && c.n > RETEXT_MAX) {
			/* So many: each word counts once a column. */
			for (i = 0; i < c.n; i++)
				hit_add(h, c.v[i].id, c.v[i].score);
			ret = 0;
			goto out;
		}
		rows = ofl_xrealloc(rows, (c.n + 1) * sizeof *rows);
		score = ofl_xrealloc(score, (c.n + 1) * sizeof *score);
		ok = ofl_xrealloc(ok, c.n + 1);
		for (i = 0; i < c.n; i++) {
			rows[i] = c.v[i].id;
			score[i] = c.v[i].score;
		}
		if (store_fts_keep(st, fq->match, relaxed ? rx : NULL, fq->raw,
		    rows, c.n, ok, c.n <= RETEXT_MAX ? score : NULL) == -1)
			goto out;
		for (i = kept = 0; i < c.n; i++)
			kept += ok[i];
		if (got <= lim || kept >= fq->limit || lim >= (size_t)INT64_MAX)
			break;
		lim = lim > (size_t)INT64_MAX / 4 ? (size_t)INT64_MAX : lim * 4;
	}
	for (i = 0; i < c.n; i++)
		if (ok[i])
			hit_add(h, c.v[i].id, score[i]);
	ret = 0;
out:
	store_fts_rank_forget();
	free(c.v);
	free(rows);
	free(ok);
	free(score);
	return ret;
}

/*
 * Which generations of g keep no places of words, and, when one does and
 * the query needs places, the query relaxed for them in rx.  Returns
 * whether one does, -1 on error.
 */
static int
gens_pos(struct ofl_store *st, struct ix_gen *g, size_t ng,
    const char *match, struct fts_relaxed *rx)
{
	struct ofl_tok	*tk;
	size_t		 i;
	int		 any = 0, rc;

	memset(rx, 0, sizeof *rx);
	for (i = 0; i < ng; i++) {
		if ((rc = ix_gen_nopos(ofl_store_db(st), g[i].gen)) == -1)
			return -1;
		any |= g[i].nopos = rc;
	}
	if (!any)
		return 0;
	if ((tk = ofl_store_fts_tok(st)) == NULL)
		return -1;
	rc = store_fts_relax(tk, match, rx);
	ofl_tok_free(tk);
	return rc == -1 ? -1 : 1;
}

/* The scan's next row id in *row, -1 there at its end; -1 on error. */
static int
scan_step(sqlite3 *db, const struct ofl_fts_query *fq, sqlite3_stmt *q,
    int64_t *row)
{
	int	rc;

	*row = -1;
	if ((rc = sqlite3_step(q)) == SQLITE_ROW)
		*row = sqlite3_column_int64(q, 0);
	else if (rc != SQLITE_DONE)
		return query_err(db, fq);
	return 0;
}

/*
 * The lowest row id to rank when more than fq->cap rows of fq match in
 * the generations g[0..ng): the first row of the content of the cap'th
 * highest row id, so that every content ranked is ranked with all its
 * rows (its statistics are its own); 0 when no row below that is left
 * out (or there is no cap); rq is fq relaxed, for the generations that
 * keep no places.  The generations' row ids, highest first,
 * are merged: contents are numbered as they come, and a generation may
 * hold any (a rebuild indexes the newest first).
 */
static int
cap_low(sqlite3 *db, const struct ofl_fts_query *fq,
    const struct ofl_fts_query *rq, const struct ix_gen *g, size_t ng,
    int64_t *low)
{
	sqlite3_stmt	**q;
	int64_t		 *cur, n = 0, last = 0, lo, cap = (int64_t)fq->cap;
	size_t		  i, best;
	int		  ret = -1;

	*low = 0;
	if (fq->blob >= 0 || cap <= 0 || ng == 0)
		return 0;
	q = ofl_xcalloc(ng, sizeof *q);
	cur = ofl_xcalloc(ng, sizeof *cur);
	for (i = 0; i < ng; i++)
		if ((q[i] = query_prep(db, g[i].nopos ? rq : fq, g[i].gen,
		    g[i].buried, 1, 0, INT64_MAX, cap)) == NULL ||
		    scan_step(db, fq, q[i], &cur[i]) == -1)
			goto out;
	while (n < cap) {
		for (i = 0, best = ng; i < ng; i++)
			if (cur[i] >= 0 && (best == ng || cur[i] > cur[best]))
				best = i;
		if (best == ng) {
			ret = 0;	/* no more than the cap match */
			goto out;
		}
		last = cur[best];
		n++;
		if (scan_step(db, fq, q[best], &cur[best]) == -1)
			goto out;
	}
	/* Capped only if a row below the cap'th content's matches. */
	lo = ix_rowid(last >> IX_CHUNK_BITS, 0);
	for (i = 0; i < ng && *low == 0; i++) {
		sqlite3_finalize(q[i]);
		if ((q[i] = query_prep(db, g[i].nopos ? rq : fq, g[i].gen,
		    g[i].buried, 1, 0, lo, 1)) == NULL ||
		    scan_step(db, fq, q[i], &cur[i]) == -1)
			goto out;
		if (cur[i] >= 0) {
			*low = lo;
			if (fq->capped != NULL)
				*fq->capped = 1;
		}
	}
	ret = 0;
out:
	for (i = 0; i < ng; i++)
		sqlite3_finalize(q[i]);
	free(q);
	free(cur);
	return ret;
}

/* Best first; among equal scores, by row id (stable across runs). */
static int
hit_cmp(const void *a, const void *b)
{
	const struct hit	*x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* A filter's artifacts into temp.ix_scope, once for all generations. */
static int
scope_filter(sqlite3 *db, const struct ofl_filter *f)
{
	sqlite3_stmt	*q;
	int		 rc;

	if (sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS ix_scope"
	    " (blob INTEGER PRIMARY KEY); DELETE FROM temp.ix_scope", NULL,
	    NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO temp.ix_scope"
	    " SELECT a.blob FROM artifact a WHERE" FILTER_SQL, -1, &q,
	    NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
		return -1;
	}
	store_filter_bind(q, f);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

/*
 * One blob's rows are in its generation; a query of many runs on each
 * generation, in one read transaction so that a gc dropping one meanwhile
 * changes nothing, and the best rows of all are kept.
 */
int
ofl_store_fts_query(struct ofl_store *st, const struct ofl_fts_query *fq,
    int (*cb)(int64_t, int64_t, double, void *), void *arg)
{
	sqlite3		*db = ofl_store_db(st);
	struct ix_gen	*g = NULL, one;
	struct hits	 h = { NULL, 0, 0 };
	struct ofl_fts_query rq;
	struct fts_relaxed rx;
#ifdef HAVE_LIBPQ
	struct ofl_fts_query pq;
	struct ofl_tok	*tk;
	int		 rc;
#endif
	size_t		 ng = 0, i;
	int64_t		 low;
	char		*path;
	int		 tx = 0, pg = 0, nopos = 0, ret = -1;

	memset(&rx, 0, sizeof rx);
	if (sqlite3_get_autocommit(db)) {
		if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
			ofl_seterr(OFL_EXIT_FAIL, "search: %s",
			    sqlite3_errmsg(db));
			return -1;
		}
		tx = 1;
	}
#ifdef HAVE_LIBPQ
	if (st->pg != NULL) {
		/*
		 * The chunks the query may match, from the server, make
		 * generation 0 of an index in memory, already limited to
		 * the scope.
		 */
		if ((tk = ofl_store_fts_tok(st)) == NULL)
			goto out;
		rc = store_pg_fts_load(st, tk, fq);
		ofl_tok_free(tk);
		if (rc == -1)
			goto out;
		pg = 1;
		pq = *fq;
		pq.scoped = 0;
		pq.filter = NULL;
		fq = &pq;
		memset(&one, 0, sizeof one);
		g = ofl_xmalloc(sizeof *g);
		g[ng++] = one;
	} else
#endif
	if (fq->blob >= 0) {
		memset(&one, 0, sizeof one);
		if ((one.gen = ix_gen_of(db, fq->blob)) == -2)
			goto out;
		if (one.gen >= 0) {
			g = ofl_xmalloc(sizeof *g);
			g[ng++] = one;
		}
	} else if (ix_gen_list(db, 0, &g, &ng) == -1 ||
	    (!fq->scoped && fq->filter != NULL &&
	    scope_filter(db, fq->filter) == -1))
		goto out;
	if (!pg && (nopos = gens_pos(st, g, ng, fq->match, &rx)) == -1)
		goto out;
	rq = *fq;
	if (rx.match != NULL)
		rq.match = rx.match;
	if (cap_low(db, fq, &rq, g, ng, &low) == -1)
		goto out;
	for (i = 0; i < ng; i++)
		if (!g[i].nopos && query_gen(db, fq, g[i].gen, g[i].buried,
		    low, &h, 0) == -1)
			goto out;
	if (nopos && query_gens_pos(st, fq, &rq, &rx, g, ng, low, &h) == -1)
		goto out;
	if (h.n > 1)
		qsort(h.v, h.n, sizeof *h.v, hit_cmp);
	if (h.n > fq->limit)
		h.n = fq->limit;
	for (i = 0; i < h.n; i++)
		if (cb(h.v[i].id >> IX_CHUNK_BITS, h.v[i].id & (CHUNK_MAX - 1),
		    h.v[i].score, arg) == -1)
			goto out;
	ret = (int)h.n;
out:
	if (tx) {
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		if (st->fts_missing > 0 && ret >= 0 && (path =
		    store_fts_file_missing(st, st->fts_missing)) != NULL) {
			ofl_seterr(OFL_EXIT_FAIL, "content missing: %s: %s "
			    "(run ofl-gc --check)", path, strerror(ENOENT));
			free(path);
			ret = -1;
		}
	}
	st->fts_missing = 0;
	free(g);
	free(h.v);
	store_fts_relaxed_free(&rx);
	return ret;
}

/*
 * The vocabulary: an fts5vocab table on each generation, their counts
 * summed, their terms merged in order.
 */

struct ofl_fts_vocab {
	struct ofl_store *pg;		/* a PostgreSQL store's */
	sqlite3		 *db;
	size_t		  n;
	sqlite3_stmt	**has;
	sqlite3_stmt	**near;
	int		 *more;		/* near[i] has a row */
};

struct ofl_fts_vocab *
ofl_store_fts_vocab(struct ofl_store *st)
{
	struct ofl_fts_vocab	*v;
	sqlite3			*db = ofl_store_db(st);
	struct ix_gen		*g;
	size_t			 ng, i;
	char			 t[32], sql[160];

#ifdef HAVE_LIBPQ
	if (st->pg != NULL) {
		v = ofl_xcalloc(1, sizeof *v);
		v->pg = st;
		return v;
	}
#endif
	if (ix_gen_list(db, 0, &g, &ng) == -1)
		return NULL;
	v = ofl_xcalloc(1, sizeof *v);
	v->db = db;
	v->has = ofl_xcalloc(ng + 1, sizeof *v->has);
	v->near = ofl_xcalloc(ng + 1, sizeof *v->near);
	v->more = ofl_xcalloc(ng + 1, sizeof *v->more);
	for (i = 0; i < ng; i++) {
		ix_gen_name(g[i].gen, t, sizeof t);
		snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE IF NOT EXISTS"
		    " temp.%s_v USING fts5vocab(%s, '%s', 'row')", t,
		    ix_sch(db), t);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
			goto fail;
		snprintf(sql, sizeof sql, "SELECT doc FROM temp.%s_v WHERE"
		    " term = ?1", t);
		if (ix_prep(db, sql, &v->has[v->n]) == -1)
			goto fail;
		snprintf(sql, sizeof sql, "SELECT term, doc FROM temp.%s_v"
		    " WHERE term >= ?1 AND term < ?2", t);
		if (ix_prep(db, sql, &v->near[v->n++]) == -1)
			goto fail;
	}
	free(g);
	return v;
fail:
	ix_err(db, "vocabulary");
	free(g);
	ofl_store_fts_vocab_free(v);
	return NULL;
}

void
ofl_store_fts_vocab_free(struct ofl_fts_vocab *v)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; i <= v->n && v->has != NULL; i++) {
		sqlite3_finalize(v->has[i]);
		sqlite3_finalize(v->near[i]);
	}
	free(v->has);
	free(v->near);
	free(v->more);
	free(v);
}

int64_t
ofl_store_fts_vocab_doc(struct ofl_fts_vocab *v, const char *term, size_t n)
{
	int64_t	df = 0;
	size_t	i;

#ifdef HAVE_LIBPQ
	if (v->pg != NULL)
		return store_pg_fts_vocab_doc(v->pg, term, n);
#endif
	for (i = 0; i < v->n; i++) {
		sqlite3_bind_text(v->has[i], 1, term, (int)n, SQLITE_STATIC);
		if (sqlite3_step(v->has[i]) == SQLITE_ROW)
			df += sqlite3_column_int64(v->has[i], 0);
		sqlite3_reset(v->has[i]);
	}
	return df;
}

void
ofl_store_fts_vocab_range(struct ofl_fts_vocab *v, const char *lo,
    const char *hi, void (*cb)(const char *, int64_t, void *), void *arg)
{
	const char	*w, *min;
	char		*term;
	int64_t		 df;
	size_t		 i;

#ifdef HAVE_LIBPQ
	if (v->pg != NULL) {
		store_pg_fts_vocab_range(v->pg, lo, hi, cb, arg);
		return;
	}
#endif
	for (i = 0; i < v->n; i++) {
		sqlite3_bind_text(v->near[i], 1, lo, -1, SQLITE_STATIC);
		sqlite3_bind_text(v->near[i], 2, hi, -1, SQLITE_STATIC);
		v->more[i] = sqlite3_step(v->near[i]) == SQLITE_ROW;
	}
	/* Each table gives its terms in order: merge them. */
	for (;;) {
		min = NULL;
		for (i = 0; i < v->n; i++) {
			if (!v->more[i])
				continue;
			w = (const char *)sqlite3_column_text(v->near[i], 0);
			if (w != NULL && (min == NULL || strcmp(w, min) < 0))
				min = w;
		}
		if (min == NULL)
			break;
		term = ofl_xstrdup(min);
		df = 0;
		for (i = 0; i < v->n; i++) {
			if (!v->more[i])
				continue;
			w = (const char *)sqlite3_column_text(v->near[i], 0);
			if (w == NULL || strcmp(w, term) != 0)
				continue;
			df += sqlite3_column_int64(v->near[i], 1);
			v->more[i] = sqlite3_step(v->near[i]) == SQLITE_ROW;
		}
		cb(term, df, arg);
		free(term);
	}
	for (i = 0; i < v->n; i++)
		sqlite3_reset(v->near[i]);
}

int64_t
ofl_store_fts_chunks(struct ofl_store *st)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int64_t		 n = 0;

	STORE_PG(st, store_pg_fts_chunks(st));
	if (ix_prep(db, "SELECT count(*) FROM ix_chunk", &s) == -1)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

/*
 * How far another live process has indexed blob: 1 if it is at it now
 * (*bytes, *line: where its committed chunks end), 0 if nobody is (or it
 * is done), -1 on error.
 */
int
ofl_store_fts_progress(struct ofl_store *st, int64_t blob, uint64_t *bytes,
    uint64_t *line)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	int64_t		 owner, beat;
	int		 rc, busy = 0;

	STORE_PG(st, store_pg_fts_progress(st, blob, bytes, line));
	*bytes = 0;
	*line = 1;
	if (ix_prep(db, "SELECT b.state, b.owner, b.heartbeat, (SELECT"
	    " max(byte_end) FROM ix_chunk WHERE id BETWEEN ?2 AND ?3), (SELECT"
	    " max(line_end) FROM ix_chunk WHERE id BETWEEN ?2 AND ?3) FROM"
	    " ix_blob b WHERE b.blob = ?1", &q) == -1)
		return -1;
	sqlite3_bind_int64(q, 1, blob);
	sqlite3_bind_int64(q, 2, ix_rowid(blob, 0));
	sqlite3_bind_int64(q, 3, ix_rowid(blob + 1, 0) - 1);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		owner = sqlite3_column_int64(q, 1);
		beat = sqlite3_column_int64(q, 2);
		busy = sqlite3_column_int(q, 0) == 0 &&
		    owner != (int64_t)getpid() && ix_owner_alive(owner) &&
		    ofl_now_ms() - beat < IX_STALE_MS;
		if (busy && sqlite3_column_type(q, 3) != SQLITE_NULL) {
			*bytes = (uint64_t)sqlite3_column_int64(q, 3);
			*line = (uint64_t)sqlite3_column_int64(q, 4) + 1;
		}
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ix_err(db, "index state");
	return busy;
}
