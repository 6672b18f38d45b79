/*
 * store-pg-fts.c: the full-text index of the PostgreSQL engine.
 *
 * Three tables (schema version 3), which a gc's removal of a blob empties
 * by cascade:
 *
 *	ix_blob		a content's indexing: how far, by which tokenizer
 *	ix_chunk	its chunks: where each lies, its title, its text
 *			(a zstd frame)
 *	ix_term		postings: each distinct term of a batch of chunks,
 *			as the tokenizer's bytes, with the chunks that
 *			hold it
 *
 * A query takes two steps.  The postings name the chunks of the scope
 * that hold any term of the query; those chunks go into an FTS5 table of
 * the in-memory SQLite connection the store keeps for the tokenizer, and
 * the query runs there as it runs on the SQLite engine (store-fts-query.c):
 * the same tokenizer, the same FTS5 syntax, the same ranking.  That
 * ranking's statistics are each artifact's own, its number of chunks and
 * how many of them hold each phrase, and every chunk that holds a term is
 * loaded, so a chunk scores on either engine what it scores on the other.
 *
 * One indexer per content: a session advisory lock on the blob's number,
 * taken by the claim and let go when the last batch is written or the
 * session ends, however it ends.  Row-level security: ix_blob and
 * ix_chunk carry their owner as the store's other tables do; a posting is
 * visible when its ix_blob row is.
 */
#include "config.h"

#include <sys/types.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq.h"
#include <sqlite3.h>
#include <zstd.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

/*
 * Longer terms are kept as their first TERM_MAX bytes (an index entry of
 * PostgreSQL has a size limit); a query's are cut alike, so the chunks
 * found are never fewer, and FTS5 decides.
 */
#define TERM_MAX	200

/*
 * What a row costs on disk beyond its bytes, as measured on PostgreSQL 15
 * (the tuple's header, alignment, its entries in the indexes): the size
 * budget counts ix_blob.ixsize, the rows written so added up.
 */
#define CHUNK_COST	128
#define TERM_COST	144

/* The blob's indexing lock: its class, and the blob's number as a key. */
#define LOCK_SQL(fn)	"SELECT " fn "(" "$1::int4, $2::int4)::int"

static void
lock_args(struct store_pg_args *a, int64_t blob)
{
	store_pg_args_init(a);
	store_pg_arg_int(a, PG_LOCK_INDEX);
	store_pg_arg_int(a, blob & 0x7fffffff);
}

static int
blob_lock(struct ofl_store *st, int64_t blob)
{
	struct store_pg_args	a;
	int64_t			got = 0;

	lock_args(&a, blob);
	if (store_pg_value(st, LOCK_SQL("pg_try_advisory_lock"), &a,
	    "index lock", &got) == -1)
		return -1;
	return got == 1;
}

static void
blob_unlock(struct ofl_store *st, int64_t blob)
{
	struct store_pg_args	a;
	int64_t			got;

	lock_args(&a, blob);
	(void)store_pg_value(st, LOCK_SQL("pg_advisory_unlock"), &a,
	    "index lock", &got);
}

/* Column c of row r of a binary result, as a string to free (or NULL). */
static char *
bin_str(const PGresult *res, int r, int c)
{
	char	*s;
	int	 n;

	if (PQgetisnull(res, r, c))
		return NULL;
	n = PQgetlength(res, r, c);
	s = ofl_xmalloc((size_t)n + 1);
	memcpy(s, PQgetvalue(res, r, c), (size_t)n);
	s[n] = '\0';
	return s;
}

/* State. */

int
store_pg_fts_state(struct ofl_store *st, int64_t blob)
{
	struct store_pg_args	a;
	int64_t			done = 0;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	store_pg_arg_int(&a, OFL_TOK_VERSION);
	if (store_pg_value(st, "SELECT (state = 1 AND tokver = $2)::int"
	    " FROM ofl.ix_blob WHERE blob = $1", &a, "index state",
	    &done) == -1)
		return -1;
	return done == 1;
}

/* 1 if blob is the content of a finished artifact, 0 if not, -1. */
static int
blob_live(struct ofl_store *st, int64_t blob)
{
	struct store_pg_args	a;
	int64_t			v;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	return store_pg_value(st, "SELECT 1 FROM ofl.artifact WHERE"
	    " blob = $1 AND state = 1 LIMIT 1", &a, "index state", &v);
}

int
store_pg_fts_claim(struct ofl_store *st, int64_t blob, const char *id,
    int64_t *resume)
{
	struct store_pg_args	 a;
	PGresult		*res;
	int			 got, ret = OFL_FTS_MINE;

	*resume = 0;
	if ((got = blob_lock(st, blob)) != 1)
		return got == 0 ? OFL_FTS_BUSY : -1;
	/*
	 * Ours while the lock is: each statement may stand alone.  The row,
	 * made if there is none (a gc may have removed the content since it
	 * was looked up: then none is made), then how it stands.
	 */
	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	store_pg_arg_int(&a, OFL_TOK_VERSION);
	if (store_pg_do(st, "INSERT INTO ofl.ix_blob (blob, tokver, bytes)"
	    " SELECT b.id, $2, b.bytes FROM ofl.blob b WHERE b.id = $1 AND"
	    " EXISTS (SELECT 1 FROM ofl.artifact a WHERE a.blob = b.id AND"
	    " a.state = 1) ON CONFLICT (blob) DO NOTHING", &a,
	    "index state") == -1 ||
	    (res = store_pg_run(st, "SELECT x.state, x.next_seq, x.tokver"
	    " FROM ofl.ix_blob x WHERE x.blob = $1 AND $2::int IS NOT NULL"
	    " AND EXISTS (SELECT 1 FROM ofl.artifact a WHERE a.blob = $1 AND"
	    " a.state = 1)", &a, 0, "index state")) == NULL) {
		blob_unlock(st, blob);
		return -1;
	}
	if (PQntuples(res) == 0) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
		ret = -1;
	} else if (store_pg_int(res, 0, 2) != OFL_TOK_VERSION)
		ret = OFL_FTS_STALE;
	else if (store_pg_int(res, 0, 0) == 1)
		ret = OFL_FTS_DONE;
	else
		*resume = store_pg_int(res, 0, 1);
	PQclear(res);
	/* Ours until the last batch is written. */
	if (ret != OFL_FTS_MINE)
		blob_unlock(st, blob);
	return ret;
}

/* Writing. */

/*
 * A batch's terms, as the index's tokenizer makes them: each with the
 * chunk it is in, and its bytes in text.
 */
struct tterm {
	size_t		 off;
	size_t		 len;
	int64_t		 seq;
};

struct terms {
	struct ofl_buf	 text;
	struct tterm	*v;
	size_t		 n;
	size_t		 cap;
	int64_t		 seq;		/* the chunk being read */
};

static int
terms_cb(void *arg, int flags, const char *tok, int len, int start, int end)
{
	struct terms	*t = arg;

	(void)flags;
	(void)start;
	(void)end;
	if (len <= 0)
		return OFL_TOK_OK;
	if (len > TERM_MAX)
		len = TERM_MAX;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->v = ofl_xrealloc(t->v, t->cap * sizeof *t->v);
	}
	t->v[t->n].off = t->text.len;
	t->v[t->n].len = (size_t)len;
	t->v[t->n].seq = t->seq;
	t->n++;
	ofl_buf_add(&t->text, tok, (size_t)len);
	return OFL_TOK_OK;
}

static const char *terms_base;

static int
term_cmp(const struct tterm *x, const struct tterm *y)
{
	size_t	n = x->len < y->len ? x->len : y->len;
	int	c;

	if ((c = memcmp(terms_base + x->off, terms_base + y->off, n)) != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* By term, then by chunk. */
static int
tterm_cmp(const void *a, const void *b)
{
	const struct tterm	*x = a, *y = b;
	int			 c;

	if ((c = term_cmp(x, y)) != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The batch's postings: one row a term, with the chunks that hold it
 * (in order) as an array, into the arrays of terms and of chunk lists.
 * The bytes their rows take.
 */
static uint64_t
batch_terms(struct ofl_tok *tk, const struct ofl_fts_chunk *c, size_t nc,
    struct ofl_buf *term, struct ofl_buf *seqs)
{
	struct terms	t;
	struct ofl_buf	list;
	uint64_t	size = 0;
	size_t		i, j, k;

	memset(&t, 0, sizeof t);
	ofl_buf_init(&t.text);
	ofl_buf_init(&list);
	for (i = 0; i < nc; i++) {
		t.seq = c[i].seq;
		if (c[i].title_len > 0)
			(void)ofl_tok_tokenize(tk, &t, OFL_TOK_DOCUMENT,
			    c[i].title, (int)c[i].title_len, terms_cb);
		if (c[i].len > 0)
			(void)ofl_tok_tokenize(tk, &t, OFL_TOK_DOCUMENT,
			    c[i].text, (int)c[i].len, terms_cb);
	}
	terms_base = t.text.data;
	if (t.n > 1)
		qsort(t.v, t.n, sizeof *t.v, tterm_cmp);
	for (i = 0; i < t.n; i = j) {
		ofl_buf_reset(&list);
		for (j = i, k = 0; j < t.n && term_cmp(&t.v[i], &t.v[j]) == 0;
		    j++) {
			if (j > i && t.v[j].seq == t.v[j - 1].seq)
				continue;
			store_pg_arr_int(&list, t.v[j].seq);
			k++;
		}
		store_pg_arr_bytes(term, t.text.data + t.v[i].off, t.v[i].len);
		store_pg_arr_sep(seqs);
		ofl_buf_addc(seqs, '"');
		ofl_buf_adds(seqs, store_pg_arr_end(&list));
		ofl_buf_addc(seqs, '"');
		/* The row, its key in two indexes, the chunks. */
		size += 2 * t.v[i].len + TERM_COST + 4 * k;
	}
	free(t.v);
	ofl_buf_free(&t.text);
	ofl_buf_free(&list);
	return size;
}

/*
 * A batch in one statement: while the blob's row is there and still
 * being made (it is locked first), its chunks' rows, their postings and
 * how far it is.  1 if written, 0 if the row is gone or finished.
 */
#define WRITE_SQL							\
	"WITH ok AS (SELECT x.blob FROM ofl.ix_blob x WHERE x.blob = $1"\
	" AND x.state = 0 AND EXISTS (SELECT 1 FROM ofl.artifact a WHERE"\
	" a.blob = x.blob AND a.state = 1) FOR UPDATE OF x),"		\
	" c AS (INSERT INTO ofl.ix_chunk (blob, seq, member, title, body,"\
	" byte_start, byte_end, line_start, line_end) SELECT ok.blob, u.*"\
	" FROM ok, unnest($2::int[], $3::bytea[], $4::bytea[],"		\
	" $5::bytea[], $6::bigint[], $7::bigint[], $8::bigint[],"	\
	" $9::bigint[]) AS u ON CONFLICT DO NOTHING),"			\
	" t AS (INSERT INTO ofl.ix_term (term, blob, first, seqs)"	\
	" SELECT u.t, ok.blob, $10, u.s::int[] FROM ok,"		\
	" unnest($11::bytea[], $12::text[]) AS u(t, s)"			\
	" ON CONFLICT DO NOTHING)"					\
	" UPDATE ofl.ix_blob x SET next_seq = $13, state = $14,"	\
	" truncated = $15, finished = nullif($16::bigint, 0), bytes = $17,"\
	" ixsize = x.ixsize + $18 FROM ok WHERE x.blob = ok.blob"	\
	" RETURNING 1"

int
store_pg_fts_write(struct ofl_store *st, struct ofl_tok *tk, int64_t blob,
    const char *id, const struct ofl_fts_chunk *c, size_t n, int64_t next_seq,
    int last, int truncated, uint64_t bytes)
{
	struct store_pg_args	 a;
	struct ofl_buf		 v[10];
	ZSTD_CCtx		*cctx;
	PGresult		*res = NULL;
	unsigned char		*z = NULL;
	uint64_t		 size = 0;
	size_t			 i, k, zcap = 0, zn;
	int			 live, ret = -1;

	for (k = 0; k < 10; k++)
		ofl_buf_init(&v[k]);
	if ((cctx = ZSTD_createCCtx()) == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "indexing: out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (ZSTD_compressBound(c[i].len) > zcap) {
			zcap = ZSTD_compressBound(c[i].len);
			z = ofl_xrealloc(z, zcap);
		}
		zn = ZSTD_compressCCtx(cctx, z, zcap, c[i].text, c[i].len, 1);
		if (ZSTD_isError(zn)) {
			ofl_seterr(OFL_EXIT_FAIL, "indexing: %s",
			    ZSTD_getErrorName(zn));
			goto out;
		}
		size += zn + c[i].title_len + CHUNK_COST;
		store_pg_arr_int(&v[0], c[i].seq);
		store_pg_arr_bytes(&v[1], c[i].member, c[i].member != NULL ?
		    strlen(c[i].member) : 0);
		store_pg_arr_bytes(&v[2], c[i].title_len > 0 ? c[i].title : NULL,
		    c[i].title_len);
		store_pg_arr_bytes(&v[3], z, zn);
		store_pg_arr_int(&v[4], (int64_t)c[i].byte_start);
		store_pg_arr_int(&v[5], (int64_t)c[i].byte_end);
		store_pg_arr_int(&v[6], (int64_t)c[i].line_start);
		store_pg_arr_int(&v[7], (int64_t)c[i].line_end);
	}
	size += batch_terms(tk, c, n, &v[8], &v[9]);
	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	for (k = 0; k < 8; k++)
		store_pg_arg_text(&a, store_pg_arr_end(&v[k]));
	store_pg_arg_int(&a, n > 0 ? c[0].seq : 0);
	store_pg_arg_text(&a, store_pg_arr_end(&v[8]));
	store_pg_arg_text(&a, store_pg_arr_end(&v[9]));
	store_pg_arg_int(&a, next_seq > OFL_FTS_CHUNK_MAX ? OFL_FTS_CHUNK_MAX :
	    next_seq);
	store_pg_arg_int(&a, last ? 1 : 0);
	store_pg_arg_int(&a, truncated);
	store_pg_arg_int(&a, last ? ofl_now_ms() : 0);
	store_pg_arg_int(&a, (int64_t)bytes);
	store_pg_arg_int(&a, (int64_t)size);
	if ((res = store_pg_run(st, WRITE_SQL, &a, 0, "indexing")) == NULL)
		goto out;
	if (PQntuples(res) == 0) {
		/* Why not: the content is gone, or the job is not ours. */
		if ((live = blob_live(st, blob)) == 0)
			ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact "
			    "(removed while it was indexed)", id);
		else if (live == 1)
			ofl_seterr(OFL_EXIT_FAIL, "%s: its index is being "
			    "dropped or made by another process", id);
		goto out;
	}
	if (last)
		blob_unlock(st, blob);
	ret = 0;
out:
	PQclear(res);
	ZSTD_freeCCtx(cctx);
	free(z);
	for (k = 0; k < 10; k++)
		ofl_buf_free(&v[k]);
	return ret;
}

/* Forgetting: the rows of the chunks and postings go by cascade. */

int
store_pg_fts_forget(struct ofl_store *st, int64_t blob)
{
	struct store_pg_args	a;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	return store_pg_do(st, "DELETE FROM ofl.ix_blob WHERE blob = $1", &a,
	    "dropping");
}

int
store_pg_fts_check(struct ofl_store *st, struct ofl_buf *report)
{
	int64_t	n = 0;

	if (store_pg_value(st, "SELECT count(*) FROM ofl.ix_blob b"
	    " WHERE b.state = 1 AND b.next_seq <> (SELECT count(*) FROM"
	    " ofl.ix_chunk c WHERE c.blob = b.blob)", NULL, "index check",
	    &n) == -1)
		return -1;
	if (n > 0)
		ofl_buf_addf(report, "contents indexed in part only: %" PRId64
		    "\n", n);
	return n > 0;
}

/* Reading. */

int64_t
store_pg_fts_unindexed(struct ofl_store *st, const struct ofl_filter *f,
    int (*cb)(const char *, int64_t, void *), void *arg)
{
	struct store_pg_args	 a;
	PGresult		*res;
	int			 r, n, stop = 0;

	store_pg_filter_args(&a, f, OFL_TOK_VERSION);
	/* Only what is not indexed is sorted: usually little. */
	if ((res = store_pg_run(st, "SELECT id, blob FROM (SELECT DISTINCT ON"
	    " (a.blob) a.id, a.blob, a.seq FROM ofl.artifact a WHERE"
	    " a.state = 1 AND" PG_FILTER_SQL " AND NOT EXISTS (SELECT 1 FROM"
	    " ofl.ix_blob b WHERE b.blob = a.blob AND b.state = 1 AND"
	    " b.tokver = $1) ORDER BY a.blob, a.seq DESC) u ORDER BY seq DESC",
	    &a, 0, "index state")) == NULL)
		return -1;
	n = PQntuples(res);
	for (r = 0; r < n && !stop && cb != NULL; r++)
		stop = cb(PQgetvalue(res, r, 0), store_pg_int(res, r, 1), arg);
	PQclear(res);
	return n;
}

int
store_pg_fts_blob_art(struct ofl_store *st, int64_t blob,
    const struct ofl_filter *f, char *id, size_t size)
{
	struct store_pg_args	 a;
	struct ofl_filter	 any;
	PGresult		*res;
	int			 found;

	if (f == NULL) {
		ofl_filter_init(&any);
		f = &any;
	}
	store_pg_filter_args(&a, f, blob);
	if ((res = store_pg_run(st, "SELECT a.id FROM ofl.artifact a WHERE"
	    " a.blob = $1 AND a.state = 1 AND" PG_FILTER_SQL
	    " ORDER BY a.seq DESC LIMIT 1", &a, 0, "search")) == NULL)
		return -1;
	if ((found = PQntuples(res) > 0))
		snprintf(id, size, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	return found;
}

int
store_pg_fts_progress(struct ofl_store *st, int64_t blob, uint64_t *bytes,
    uint64_t *line)
{
	struct store_pg_args	 a;
	PGresult		*res;
	int			 busy;

	*bytes = 0;
	*line = 1;
	lock_args(&a, blob);
	store_pg_arg_int(&a, blob);
	/* Another session holds the blob's lock: it is at it now. */
	if ((res = store_pg_run(st, "SELECT (SELECT max(byte_end) FROM"
	    " ofl.ix_chunk WHERE blob = $3), (SELECT max(line_end) FROM"
	    " ofl.ix_chunk WHERE blob = $3) FROM ofl.ix_blob b WHERE"
	    " b.blob = $3 AND b.state = 0 AND EXISTS (SELECT 1 FROM pg_locks l"
	    " WHERE l.locktype = 'advisory' AND l.classid = $1::int4::oid AND"
	    " l.objid = $2::int4::oid AND l.objsubid = 2 AND l.granted AND"
	    " l.pid <> pg_backend_pid())", &a, 0, "index state")) == NULL)
		return -1;
	if ((busy = PQntuples(res) > 0) && !PQgetisnull(res, 0, 0)) {
		*bytes = (uint64_t)store_pg_int(res, 0, 0);
		*line = (uint64_t)store_pg_int(res, 0, 1) + 1;
	}
	PQclear(res);
	return busy;
}

#define CHUNK_COLS	" member, title, byte_start::text, byte_end::text," \
			" line_start::text, line_end::text"

static void
chunk_row(const PGresult *res, int r, struct ofl_fts_row *row)
{
	row->member = bin_str(res, r, 0);
	row->title = bin_str(res, r, 1);
	row->byte_start = (uint64_t)store_pg_int(res, r, 2);
	row->byte_end = (uint64_t)store_pg_int(res, r, 3);
	row->line_start = (uint64_t)store_pg_int(res, r, 4);
	row->line_end = (uint64_t)store_pg_int(res, r, 5);
}

int
store_pg_fts_chunk(struct ofl_store *st, int64_t blob, int64_t seq,
    struct ofl_fts_row *row)
{
	struct store_pg_args	 a;
	PGresult		*res;
	int			 found;

	memset(row, 0, sizeof *row);
	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	store_pg_arg_int(&a, seq);
	if ((res = store_pg_run(st, "SELECT" CHUNK_COLS " FROM ofl.ix_chunk"
	    " WHERE blob = $1 AND seq = $2", &a, 1, "search")) == NULL)
		return -1;
	if ((found = PQntuples(res) > 0))
		chunk_row(res, 0, row);
	PQclear(res);
	return found;
}

void
store_pg_fts_titles(struct ofl_store *st, struct ofl_fts_title *t, size_t n)
{
	struct store_pg_args	 a;
	PGresult		*res;
	size_t			 i;

	for (i = 0; i < n; i++) {
		store_pg_args_init(&a);
		store_pg_arg_int(&a, t[i].blob);
		store_pg_arg_int(&a, t[i].seq);
		store_pg_arg_int(&a, (int64_t)t[i].line);
		if ((res = store_pg_run(st, "SELECT title FROM ofl.ix_chunk"
		    " WHERE blob = $1 AND ($2::int < 0 OR seq = $2) AND"
		    " line_start <= $3 AND line_end >= $3 ORDER BY seq"
		    " LIMIT 1", &a, 1, "search")) == NULL) {
			ofl_clearerr();
			return;
		}
		if (PQntuples(res) > 0)
			t[i].title = bin_str(res, 0, 0);
		PQclear(res);
	}
}

int64_t
store_pg_fts_chunks(struct ofl_store *st)
{
	int64_t	n = 0;

	if (store_pg_value(st, "SELECT count(*) FROM ofl.ix_chunk", NULL,
	    "search", &n) == -1)
		return -1;
	return n;
}

/* The vocabulary: chunks that hold a term, and the terms in a range. */

int64_t
store_pg_fts_vocab_doc(struct ofl_store *st, const char *term, size_t n)
{
	struct store_pg_args	a;
	int64_t			df = 0;

	store_pg_args_init(&a);
	store_pg_arg_bin(&a, term, n > TERM_MAX ? TERM_MAX : n);
	if (store_pg_value(st, "SELECT coalesce(sum(cardinality(seqs)), 0)"
	    " FROM ofl.ix_term WHERE term = $1", &a, "vocabulary",
	    &df) == -1) {
		ofl_clearerr();
		return 0;
	}
	return df;
}

void
store_pg_fts_vocab_range(struct ofl_store *st, const char *lo,
    const char *hi, void (*cb)(const char *, int64_t, void *), void *arg)
{
	struct store_pg_args	 a;
	PGresult		*res;
	char			*term;
	int			 r, n;

	store_pg_args_init(&a);
	store_pg_arg_bin(&a, lo, strlen(lo));
	store_pg_arg_bin(&a, hi, strlen(hi));
	if ((res = store_pg_run(st, "SELECT term,"
	    " sum(cardinality(seqs))::text FROM ofl.ix_term WHERE"
	    " term >= $1 AND term < $2 GROUP BY term"
	    " ORDER BY term", &a, 1, "vocabulary")) == NULL) {
		ofl_clearerr();
		return;
	}
	n = PQntuples(res);
	for (r = 0; r < n; r++) {
		term = bin_str(res, r, 0);
		cb(term, store_pg_int(res, r, 1), arg);
		free(term);
	}
	PQclear(res);
}

/* Searching. */

/* The terms of a query: exact ones, and prefixes as ranges [lo, hi). */
struct qterms {
	struct ofl_buf	eq;
	struct ofl_buf	lo;
	struct ofl_buf	hi;
	int		prefix;
};

static int
qterms_cb(void *arg, int flags, const char *tok, int len, int start, int end)
{
	struct qterms	*q = arg;
	unsigned char	 up[TERM_MAX];
	size_t		 n;

	(void)flags;
	(void)start;
	(void)end;
	if (len <= 0)
		return OFL_TOK_OK;
	n = len > TERM_MAX ? TERM_MAX : (size_t)len;
	if (!q->prefix && (size_t)len <= TERM_MAX) {
		store_pg_arr_bytes(&q->eq, tok, n);
		return OFL_TOK_OK;
	}
	/* Every term that begins so: below the next string of that length. */
	store_pg_arr_bytes(&q->lo, tok, n);
	memcpy(up, tok, n);
	while (n > 0 && up[n - 1] == 0xff)
		n--;
	if (n == 0)
		store_pg_arr_bytes(&q->hi, NULL, 0);
	else {
		up[n - 1]++;
		store_pg_arr_bytes(&q->hi, up, n);
	}
	return OFL_TOK_OK;
}

/* A byte FTS5 takes as part of a bareword. */
static int
bareword(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || c == '_' || c == 0x1a || c >= 0x80;
}

static const char *
skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/*
 * Every string and bareword of an FTS5 expression, tokenized as FTS5
 * would (a prefix when a '*' follows), but for the operators and the
 * column names.  What else the syntax says is FTS5's to judge.
 */
static void
match_terms(struct ofl_tok *tk, const char *m, struct qterms *q)
{
	struct ofl_buf	 s;
	const char	*p = m, *w;
	size_t		 n;

	ofl_buf_init(&s);
	while (*p != '\0') {
		ofl_buf_reset(&s);
		if (*p == '"') {
			for (p++; *p != '\0'; p++) {
				if (*p == '"' && p[1] != '"') {
					p++;
					break;
				}
				if (*p == '"')
					p++;
				ofl_buf_addc(&s, *p);
			}
		} else if (bareword((unsigned char)*p)) {
			for (w = p; bareword((unsigned char)*p); p++)
				;
			n = (size_t)(p - w);
			if ((n == 3 && (strncmp(w, "AND", 3) == 0 ||
			    strncmp(w, "NOT", 3) == 0)) || (n == 2 &&
			    strncmp(w, "OR", 2) == 0) || (n == 4 &&
			    strncmp(w, "NEAR", 4) == 0) ||
			    *skip_space(p) == ':')
				continue;
			ofl_buf_add(&s, w, n);
		} else {
			p++;
			continue;
		}
		q->prefix = *skip_space(p) == '*';
		if (s.len > 0)
			(void)ofl_tok_tokenize(tk, q, OFL_TOK_QUERY |
			    (q->prefix ? OFL_TOK_PREFIX : 0), s.data,
			    (int)s.len, qterms_cb);
	}
	ofl_buf_free(&s);
}

static int
mem_exec(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

/* The blobs of a scoped query, from the table ofl_store_fts_scope() fills. */
static int
scope_array(sqlite3 *db, struct ofl_buf *b)
{
	sqlite3_stmt	*q;

	if (sqlite3_prepare_v2(db, "SELECT blob FROM temp.ix_scope", -1, &q,
	    NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
		return -1;
	}
	while (sqlite3_step(q) == SQLITE_ROW)
		store_pg_arr_int(b, sqlite3_column_int64(q, 0));
	sqlite3_finalize(q);
	store_pg_arr_end(b);
	return 0;
}

/* The chunks of the result into the in-memory tables. */
static int
load_rows(sqlite3 *db, const PGresult *res)
{
	sqlite3_stmt		*fts = NULL, *chunk = NULL, *blob = NULL;
	ZSTD_DCtx		*dctx;
	unsigned long long	 len;
	char			*text = NULL, t[32], sql[128];
	size_t			 cap = 0, tn;
	int64_t			 id;
	int			 r, n, ret = -1;

	if ((dctx = ZSTD_createDCtx()) == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "search: out of memory");
		return -1;
	}

	ix_gen_name(0, t, sizeof t);
	snprintf(sql, sizeof sql, "INSERT INTO %s(rowid, title, body)"
	    " VALUES(?1, ?2, ?3)", t);
	if (sqlite3_prepare_v2(db, sql, -1, &fts, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO ix_chunk(id, line_start,"
	    " line_end) VALUES(?1, ?2, ?3)", -1, &chunk, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO ix_blob(blob,"
	    " next_seq) VALUES(?1, ?2)", -1, &blob, NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
		goto out;
	}
	n = PQntuples(res);
	for (r = 0; r < n; r++) {
		id = ix_rowid(store_pg_int(res, r, 0), store_pg_int(res, r, 1));
		sqlite3_bind_int64(fts, 1, id);
		if (PQgetisnull(res, r, 2))
			sqlite3_bind_null(fts, 2);
		else
			sqlite3_bind_text(fts, 2, PQgetvalue(res, r, 2),
			    PQgetlength(res, r, 2), SQLITE_STATIC);
		len = ZSTD_getFrameContentSize(PQgetvalue(res, r, 3),
		    (size_t)PQgetlength(res, r, 3));
		if (len == ZSTD_CONTENTSIZE_ERROR ||
		    len == ZSTD_CONTENTSIZE_UNKNOWN || len > INT32_MAX) {
			ofl_seterr(OFL_EXIT_FAIL, "search: a chunk of the "
			    "index is damaged");
			goto out;
		}
		if (len + 1 > cap) {
			cap = (size_t)len + 1;
			text = ofl_xrealloc(text, cap);
		}
		tn = ZSTD_decompressDCtx(dctx, text, cap, PQgetvalue(res, r, 3),
		    (size_t)PQgetlength(res, r, 3));
		if (ZSTD_isError(tn) || tn != len) {
			ofl_seterr(OFL_EXIT_FAIL, "search: a chunk of the "
			    "index is damaged");
			goto out;
		}
		sqlite3_bind_text(fts, 3, text, (int)tn, SQLITE_STATIC);
		sqlite3_bind_int64(chunk, 1, id);
		sqlite3_bind_int64(chunk, 2, store_pg_int(res, r, 4));
		sqlite3_bind_int64(chunk, 3, store_pg_int(res, r, 5));
		sqlite3_bind_int64(blob, 1, store_pg_int(res, r, 0));
		sqlite3_bind_int64(blob, 2, store_pg_int(res, r, 6));
		if (sqlite3_step(fts) != SQLITE_DONE ||
		    sqlite3_step(chunk) != SQLITE_DONE ||
		    sqlite3_step(blob) != SQLITE_DONE) {
			ofl_seterr(OFL_EXIT_FAIL, "search: %s",
			    sqlite3_errmsg(db));
			goto out;
		}
		sqlite3_reset(fts);
		sqlite3_reset(chunk);
		sqlite3_reset(blob);
	}
	ret = 0;
out:
	sqlite3_finalize(fts);
	sqlite3_finalize(chunk);
	sqlite3_finalize(blob);
	ZSTD_freeDCtx(dctx);
	free(text);
	return ret;
}

/* The postings of the terms (and prefixes) asked, in fq's scope. */
#define POSTINGS_SQL(prefixes)						\
	"SELECT p.blob::text, p.seqs::text FROM (SELECT t.blob, t.seqs"	\
	" FROM ofl.ix_term t WHERE t.term = ANY($7::bytea[])" prefixes	\
	") p WHERE ($1::bigint < 0 OR p.blob = $1)"			\
	" AND ($10::bigint[] IS NULL OR p.blob = ANY($10::bigint[]))"	\
	" AND ($11::int = 0 OR p.blob IN (SELECT a.blob FROM"		\
	" ofl.artifact a WHERE a.state = 1 AND" PG_FILTER_SQL "))"

struct chunk_key {
	int64_t	blob;
	int64_t	seq;
};

static int
chunk_key_cmp(const void *a, const void *b)
{
	const struct chunk_key	*x = a, *y = b;

	if (x->blob != y->blob)
		return x->blob < y->blob ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The chunks the postings name, each once, as arrays of blobs and seqs;
 * past fq's cap, those of the contents of the newest cap, each content
 * whole, as store-fts-query.c ranks them.
 */
static int
chunk_keys(const PGresult *res, const struct ofl_fts_query *fq,
    struct ofl_buf *blobs, struct ofl_buf *seqs)
{
	struct chunk_key	*k = NULL;
	const char		*p;
	char			*e;
	size_t			 n = 0, cap = 0, i, u, from = 0;
	int64_t			 blob, seq;
	int			 r, nr = PQntuples(res);

	for (r = 0; r < nr; r++) {
		if (PQgetisnull(res, r, 0))
			continue;
		blob = store_pg_int(res, r, 0);
		for (p = PQgetvalue(res, r, 1); *p != '\0' && *p != '}';) {
			p++;		/* '{' or ',' */
			seq = strtoll(p, &e, 10);
			if (e == p)
				break;
			p = e;
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				k = ofl_xrealloc(k, cap * sizeof *k);
			}
			k[n].blob = blob;
			k[n++].seq = seq;
		}
	}
	if (n > 1)
		qsort(k, n, sizeof *k, chunk_key_cmp);
	for (i = 0, u = 0; i < n; i++)
		if (u == 0 || chunk_key_cmp(&k[u - 1], &k[i]) != 0)
			k[u++] = k[i];
	n = u;
	if (fq->blob < 0 && fq->cap > 0 && n > fq->cap) {
		from = n - fq->cap;
		while (from > 0 && k[from - 1].blob == k[from].blob)
			from--;
		if (from > 0 && fq->capped != NULL)
			*fq->capped = 1;
	}
	for (i = from; i < n; i++) {
		store_pg_arr_int(blobs, k[i].blob);
		store_pg_arr_int(seqs, k[i].seq);
	}
	free(k);
	return 0;
}

/*
 * The chunks of fq's scope that hold any of its terms, with what ranking
 * needs of their blobs, into the tables of the in-memory connection that
 * store-fts-query.c queries as it queries a generation of the SQLite
 * index: generation 0's FTS5 table, ix_chunk and ix_blob.
 */
int
store_pg_fts_load(struct ofl_store *st, struct ofl_tok *tk,
    const struct ofl_fts_query *fq)
{
	sqlite3			*db = st->db;
	struct store_pg_args	 a;
	struct ofl_filter	 any;
	struct qterms		 q;
	struct ofl_buf		 scope, blobs, seqs;
	PGresult		*res = NULL;
	char			 t[32], sql[256];
	int			 prefixes, ret = -1;

	/* The caller made tk, so the tokenizer the table names is there. */
	ix_gen_name(0, t, sizeof t);
	snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE IF NOT EXISTS %s"
	    " USING fts5(title, body, tokenize='ofl'); DELETE FROM %s;", t, t);
	if (mem_exec(db, sql) == -1 || mem_exec(db, "CREATE TABLE IF NOT"
	    " EXISTS ix_chunk (id INTEGER PRIMARY KEY, line_start INTEGER,"
	    " line_end INTEGER); CREATE TABLE IF NOT EXISTS ix_blob"
	    " (blob INTEGER PRIMARY KEY, next_seq INTEGER);"
	    " DELETE FROM ix_chunk; DELETE FROM ix_blob") == -1)
		return -1;
	memset(&q, 0, sizeof q);
	ofl_buf_init(&q.eq);
	ofl_buf_init(&q.lo);
	ofl_buf_init(&q.hi);
	ofl_buf_init(&scope);
	ofl_buf_init(&blobs);
	ofl_buf_init(&seqs);
	match_terms(tk, fq->match, &q);
	if (q.eq.len == 0 && q.lo.len == 0) {
		ret = 0;	/* nothing to find; FTS5 still judges the syntax */
		goto out;
	}
	if (fq->blob < 0 && fq->scoped && scope_array(db, &scope) == -1)
		goto out;
	if (fq->filter == NULL) {
		ofl_filter_init(&any);
		store_pg_filter_args(&a, &any, fq->blob);
	} else
		store_pg_filter_args(&a, fq->filter, fq->blob);
	prefixes = q.lo.len > 0;
	store_pg_arg_text(&a, store_pg_arr_end(&q.eq));
	store_pg_arg_text(&a, store_pg_arr_end(&q.lo));
	store_pg_arg_text(&a, store_pg_arr_end(&q.hi));
	store_pg_arg_text(&a, scope.len > 0 ? scope.data : NULL);
	store_pg_arg_int(&a, fq->blob < 0 && !fq->scoped &&
	    fq->filter != NULL);
	/*
	 * Two steps, so that the planner knows how many chunks the second
	 * fetches: the postings, then the chunks they name.  The prefixes'
	 * ranges only when there are some.
	 */
	if ((res = store_pg_run(st, prefixes ? POSTINGS_SQL(
	    " UNION ALL SELECT t.blob, t.seqs FROM unnest($8::bytea[],"
	    " $9::bytea[]) AS r(lo, hi) JOIN ofl.ix_term t ON t.term >= r.lo"
	    " AND (r.hi IS NULL OR t.term < r.hi)") : POSTINGS_SQL(
	    " UNION ALL SELECT NULL, NULL WHERE $8::text IS NULL AND"
	    " $9::text IS NULL"), &a, 0, "search")) == NULL ||
	    chunk_keys(res, fq, &blobs, &seqs) == -1)
		goto out;
	PQclear(res);
	res = NULL;
	if (blobs.len == 0) {
		ret = 0;
		goto out;
	}
	store_pg_args_init(&a);
	store_pg_arg_text(&a, store_pg_arr_end(&blobs));
	store_pg_arg_text(&a, store_pg_arr_end(&seqs));
	if ((res = store_pg_run(st, "SELECT c.blob::text, c.seq::text,"
	    " c.title, c.body, c.line_start::text, c.line_end::text,"
	    " b.next_seq::text FROM unnest($1::bigint[], $2::int[])"
	    " AS k(blob, seq) JOIN ofl.ix_chunk c ON c.blob = k.blob AND"
	    " c.seq = k.seq JOIN ofl.ix_blob b ON b.blob = k.blob", &a, 1,
	    "search")) == NULL)
		goto out;
	/* In the caller's transaction of the in-memory connection. */
	ret = load_rows(db, res);
out:
	PQclear(res);
	ofl_buf_free(&q.eq);
	ofl_buf_free(&q.lo);
	ofl_buf_free(&q.hi);
	ofl_buf_free(&scope);
	ofl_buf_free(&blobs);
	ofl_buf_free(&seqs);
	return ret;
}
