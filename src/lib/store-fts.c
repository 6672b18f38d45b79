/*
 * store-fts.c: the full-text index's part of the store.
 *
 * The index lives in the store's SQLite database, next to the metadata:
 *
 *	ix_blob		one row per indexed content (blob): its state
 *	ix_chunk	one row per chunk: title, member, byte and line range
 *	ix_fts		FTS5, contentless (content=''), columns title and body
 *
 * The index is keyed by content: two artifacts with the same bytes share
 * one blob and so one set of chunks.  A chunk's row id is the blob's id
 * shifted left by CHUNK_BITS plus the chunk's sequence number, so the
 * chunks of one blob are one range of row ids and FTS5 can restrict a
 * query to an artifact cheaply.  Only this file knows the row ids: the
 * rest of the library speaks of blobs and sequence numbers.
 *
 * Here too are the tokenizer "ofl" (tok.c's rules over FTS5's porter)
 * and the ranking function "oflrank", registered with SQLite, and every
 * statement the indexer (index.c), the search (query.c, snippet.c) and
 * the notice's suggestions (suggest.c) run.  Every write re-checks,
 * inside its transaction, that the blob is still there and still its
 * writer's: a gc that removes an artifact while it is indexed leaves no
 * rows behind.
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

/* What a PostgreSQL store cannot do yet (store-pg.c). */
#define FTS_PG	"the full-text index (ofl-index, ofl-search QUERY)"

#define CHUNK_BITS	24		/* OFL_FTS_CHUNK_MAX is 1 << 24 */
#define STALE_MS	30000		/* an indexer silent so long is dead */
#define RANK_PHRASES	64		/* phrases ranked */
#define RANK_K1		1.2
#define RANK_CHEAP	4000		/* rows matched: count columns only */

/* tok.c speaks FTS5's flags. */
#if OFL_TOK_QUERY != FTS5_TOKENIZE_QUERY || \
    OFL_TOK_DOCUMENT != FTS5_TOKENIZE_DOCUMENT || \
    OFL_TOK_PREFIX != FTS5_TOKENIZE_PREFIX || \
    OFL_TOK_AUX != FTS5_TOKENIZE_AUX || \
    OFL_TOK_COLOCATED != FTS5_TOKEN_COLOCATED || OFL_TOK_OK != SQLITE_OK
#error "tok.c flags differ from FTS5's"
#endif

#define CHUNK_MAX	OFL_FTS_CHUNK_MAX

/* FTS5's porter, the word tokenizer under tok.c's rules. */
struct words {
	fts5_tokenizer	 m;
	Fts5Tokenizer	*inner;
};

struct ofl_fts_vocab {
	sqlite3		*db;
	sqlite3_stmt	*has;
	sqlite3_stmt	*near;
};

static int	 words_run(void *, void *, int, const char *, int,
		    int (*)(void *, int, const char *, int, int, int));
static void	 words_free(void *);
static struct ofl_tok *words_tok(fts5_api *);
static int	 otok_create(void *, const char **, int, Fts5Tokenizer **);
static void	 otok_delete(Fts5Tokenizer *);
static int	 otok_tokenize(Fts5Tokenizer *, void *, int, const char *,
		    int, int (*)(void *, int, const char *, int, int, int));
struct rank_aux;
struct rank_blob;
static struct rank_blob *rank_probe(struct rank_aux *, int64_t);
static struct rank_blob *rank_slot(struct rank_aux *, int64_t, int);
static void	 rank_aux_free(void *);
static int	 rank_count(const Fts5ExtensionApi *, Fts5Context *, void *);
static void	 rank_blob_stats(struct rank_aux *, struct rank_blob *);
static struct rank_aux *rank_aux_get(const Fts5ExtensionApi *, Fts5Context *,
		    int);
static void	 rank_func(const Fts5ExtensionApi *, Fts5Context *,
		    sqlite3_context *, int, sqlite3_value **);
static fts5_api	*fts5_get(sqlite3 *);
static int	 tok_register(sqlite3 *);
static int	 db_err(sqlite3 *, const char *);
static int	 db_exec(sqlite3 *, const char *);
static int	 prep(sqlite3 *, const char *, sqlite3_stmt **);
static int64_t	 rowid(int64_t, int64_t);
static int	 owner_alive(int64_t);
static int	 blob_live(sqlite3 *, int64_t);
static int	 claim_row(sqlite3 *, int64_t, int64_t *, int *);
static int	 write_check(sqlite3 *, int64_t, const char *);
static int	 write_rows(sqlite3 *, int64_t, const struct ofl_fts_chunk *,
		    size_t);
static int	 delete_rows(sqlite3 *, int64_t, const struct ofl_fts_chunk *,
		    size_t);
static const char *query_sql(const struct ofl_fts_query *);

static const char *ix_schema =
	"CREATE TABLE IF NOT EXISTS ix_blob ("
	" blob INTEGER PRIMARY KEY,"
	" state INTEGER NOT NULL,"		/* 0 building, 1 done */
	" next_seq INTEGER NOT NULL,"		/* chunks committed */
	" owner INTEGER,"			/* pid of the indexer */
	" heartbeat INTEGER,"			/* ms, last sign of life */
	" id TEXT,"				/* an artifact it was read as */
	" bytes INTEGER,"
	" tokver INTEGER,"
	" truncated INTEGER NOT NULL DEFAULT 0,"
	" finished INTEGER);"
	"CREATE TABLE IF NOT EXISTS ix_chunk ("
	" id INTEGER PRIMARY KEY,"		/* blob << 24 | seq */
	" member TEXT,"
	" title TEXT,"
	" byte_start INTEGER NOT NULL,"
	" byte_end INTEGER NOT NULL,"
	" line_start INTEGER NOT NULL,"
	" line_end INTEGER NOT NULL);"
	"CREATE VIRTUAL TABLE IF NOT EXISTS ix_fts USING fts5("
	" title, body, content='', tokenize='ofl');";

/* The tokenizer: tok.c's rules over porter (unicode61, no diacritics). */

static int
words_run(void *ctx, void *arg, int flags, const char *text, int len,
    int (*cb)(void *, int, const char *, int, int, int))
{
	struct words	*w = ctx;

	return w->m.xTokenize(w->inner, arg, flags, text, len, cb);
}

static void
words_free(void *ctx)
{
	struct words	*w = ctx;

	if (w == NULL)
		return;
	if (w->inner != NULL)
		w->m.xDelete(w->inner);
	sqlite3_free(w);
}

static struct ofl_tok *
words_tok(fts5_api *api)
{
	static const char	*args[] = { "unicode61", "remove_diacritics",
				    "2" };
	struct ofl_tok_words	 tw;
	struct words		*w;
	void			*ud;
	int			 rc;

	if ((w = sqlite3_malloc(sizeof *w)) == NULL)
		return NULL;
	memset(w, 0, sizeof *w);
	rc = api->xFindTokenizer(api, "porter", &ud, &w->m);
	if (rc == SQLITE_OK)
		rc = w->m.xCreate(ud, args, 3, &w->inner);
	if (rc != SQLITE_OK) {
		sqlite3_free(w);
		return NULL;
	}
	tw.run = words_run;
	tw.free = words_free;
	tw.ctx = w;
	return ofl_tok_new(&tw);
}

static int
otok_create(void *ctx, const char **argv, int argc, Fts5Tokenizer **out)
{
	struct ofl_tok	*tk;

	if ((tk = words_tok(ctx)) == NULL)
		return SQLITE_ERROR;
	*out = (Fts5Tokenizer *)tk;
	return SQLITE_OK;
}

static void
otok_delete(Fts5Tokenizer *p)
{
	ofl_tok_free((struct ofl_tok *)p);
}

static int
otok_tokenize(Fts5Tokenizer *p, void *ctx, int flags, const char *text,
    int len, int (*xtoken)(void *, int, const char *, int, int, int))
{
	return ofl_tok_tokenize((struct ofl_tok *)p, ctx, flags, text, len,
	    xtoken);
}

/* Ranking. */

/*
 * The statistics of BM25 are an artifact's own: the number of its chunks
 * and, for each phrase, the number of its chunks that hold it.  So a
 * chunk scores the same whether it is searched alone, with other
 * artifacts or in the whole store, and whatever else the store holds.
 * One pass over each phrase's rows counts them per blob, the first time
 * the query ranks a row; the chunks of a blob are read from ix_blob.
 */
struct rank_blob {
	int64_t		 blob;		/* -1: a free slot */
	int64_t		 nrow;		/* -1: not read yet */
	int		 cheap;
	sqlite3_int64	*nhit;		/* per phrase */
	double		*idf;
};

struct rank_aux {
	int		  nphrase;
	size_t		  cap;		/* slots, a power of two */
	size_t		  n;
	struct rank_blob *tab;
	sqlite3		 *db;
	sqlite3_stmt	 *nrow;
	int		  phrase;	/* counting this one */
};

/* The slot of blob in ra's table, or the empty slot where it would go. */
static struct rank_blob *
rank_probe(struct rank_aux *ra, int64_t blob)
{
	struct rank_blob	*b;
	size_t			 i;

	i = (size_t)((uint64_t)blob * 0x9e3779b97f4a7c15ULL) & (ra->cap - 1);
	for (;; i = (i + 1) & (ra->cap - 1)) {
		b = &ra->tab[i];
		if (b->blob == blob || b->blob < 0)
			return b;
	}
}

static struct rank_blob *
rank_slot(struct rank_aux *ra, int64_t blob, int add)
{
	struct rank_blob	*old, *b;
	size_t			 i, ocap;

	if (add && (ra->n + 1) * 2 > ra->cap) {
		old = ra->tab;
		ocap = ra->cap;
		ra->cap = ocap == 0 ? 64 : ocap * 2;
		ra->tab = ofl_xcalloc(ra->cap, sizeof *ra->tab);
		for (i = 0; i < ra->cap; i++)
			ra->tab[i].blob = -1;
		/* The entries move with their counts; nothing is allocated. */
		for (i = 0; i < ocap; i++) {
			if (old[i].blob >= 0)
				*rank_probe(ra, old[i].blob) = old[i];
		}
		free(old);
	}
	if (ra->cap == 0)
		return NULL;
	b = rank_probe(ra, blob);
	if (b->blob == blob)
		return b;
	if (!add)
		return NULL;
	b->blob = blob;
	b->nrow = -1;
	b->nhit = ofl_xcalloc((size_t)ra->nphrase + 1, sizeof *b->nhit);
	b->idf = ofl_xcalloc((size_t)ra->nphrase + 1, sizeof *b->idf);
	ra->n++;
	return b;
}

static void
rank_aux_free(void *p)
{
	struct rank_aux	*ra = p;
	size_t		 i;

	if (ra == NULL)
		return;
	for (i = 0; i < ra->cap; i++) {
		free(ra->tab[i].nhit);
		free(ra->tab[i].idf);
	}
	free(ra->tab);
	sqlite3_finalize(ra->nrow);
	free(ra);
}

static int
rank_count(const Fts5ExtensionApi *api, Fts5Context *fts, void *arg)
{
	struct rank_aux		*ra = arg;
	struct rank_blob	*b;

	b = rank_slot(ra, api->xRowid(fts) >> CHUNK_BITS, 1);
	b->nhit[ra->phrase]++;
	return SQLITE_OK;
}

/* A blob's chunks, and so its phrases' weights. */
static void
rank_blob_stats(struct rank_aux *ra, struct rank_blob *b)
{
	sqlite3_int64	total = 0;
	int		i;

	b->nrow = 0;
	if (ra->nrow == NULL && sqlite3_prepare_v2(ra->db, "SELECT next_seq"
	    " FROM ix_blob WHERE blob = ?1", -1, &ra->nrow, NULL) !=
	    SQLITE_OK)
		ra->nrow = NULL;
	if (ra->nrow != NULL) {
		sqlite3_bind_int64(ra->nrow, 1, b->blob);
		if (sqlite3_step(ra->nrow) == SQLITE_ROW)
			b->nrow = sqlite3_column_int64(ra->nrow, 0);
		sqlite3_reset(ra->nrow);
	}
	for (i = 0; i < ra->nphrase; i++) {
		if (b->nrow < b->nhit[i])
			b->nrow = b->nhit[i];
		total += b->nhit[i];
	}
	for (i = 0; i < ra->nphrase; i++) {
		b->idf[i] = log(((double)b->nrow - (double)b->nhit[i] + 0.5) /
		    ((double)b->nhit[i] + 0.5));
		if (b->idf[i] <= 0.0)
			b->idf[i] = 1e-6;
	}
	b->cheap = total > RANK_CHEAP;
}

static struct rank_aux *
rank_aux_get(const Fts5ExtensionApi *api, Fts5Context *fts, int nphrase)
{
	struct rank_aux	*ra;
	int		 i;

	if ((ra = api->xGetAuxdata(fts, 0)) != NULL)
		return ra;
	ra = ofl_xcalloc(1, sizeof *ra);
	ra->nphrase = nphrase;
	ra->db = api->xUserData(fts);
	for (i = 0; i < nphrase; i++) {
		ra->phrase = i;
		(void)api->xQueryPhrase(fts, i, ra, rank_count);
	}
	if (api->xSetAuxdata(fts, ra, rank_aux_free) != SQLITE_OK)
		return NULL;
	return ra;
}

/*
 * oflrank(w0, w1, ...): BM25 without length normalization (b = 0), each
 * column's matches weighted by its argument, with the artifact's own
 * statistics.  Chunks are of similar sizes, and leaving the lengths out
 * spares a lookup per matching row.  When the phrases match many rows
 * of the artifact, a phrase counts once per column it occurs in, not
 * once per occurrence: far cheaper, and term frequency saturates
 * quickly anyway.
 */
static void
rank_func(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
    int nval, sqlite3_value **val)
{
	struct rank_aux		*ra;
	struct rank_blob	*b;
	Fts5PhraseIter		 it;
	double			 tf[RANK_PHRASES], score = 0.0, w;
	int			 nphrase, ninst, i, ph, col, off;

	nphrase = api->xPhraseCount(fts);
	if (nphrase > RANK_PHRASES)
		nphrase = RANK_PHRASES;
	if ((ra = rank_aux_get(api, fts, nphrase)) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	b = rank_slot(ra, api->xRowid(fts) >> CHUNK_BITS, 1);
	if (b->nrow < 0)
		rank_blob_stats(ra, b);
	for (i = 0; i < nphrase; i++)
		tf[i] = 0.0;
	if (b->cheap) {
		for (i = 0; i < nphrase; i++)
			for (api->xPhraseFirstColumn(fts, i, &it, &col);
			    col >= 0; api->xPhraseNextColumn(fts, &it, &col))
				tf[i] += col < nval ?
				    sqlite3_value_double(val[col]) : 1.0;
	} else {
		if (api->xInstCount(fts, &ninst) != SQLITE_OK)
			ninst = 0;
		for (i = 0; i < ninst; i++) {
			if (api->xInst(fts, i, &ph, &col, &off) != SQLITE_OK ||
			    ph >= nphrase)
				continue;
			w = col < nval ? sqlite3_value_double(val[col]) : 1.0;
			tf[ph] += w;
		}
	}
	for (i = 0; i < nphrase; i++)
		score += b->idf[i] * tf[i] * (RANK_K1 + 1.0) /
		    (tf[i] + RANK_K1);
	sqlite3_result_double(ctx, -score);
}

static fts5_api *
fts5_get(sqlite3 *db)
{
	sqlite3_stmt	*s;
	fts5_api	*api = NULL;

	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &s, NULL) !=
	    SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search index: FTS5 is not "
		    "available in this SQLite");
		return NULL;
	}
	sqlite3_bind_pointer(s, 1, (void *)&api, "fts5_api_ptr", NULL);
	(void)sqlite3_step(s);
	sqlite3_finalize(s);
	if (api == NULL)
		ofl_seterr(OFL_EXIT_FAIL, "search index: FTS5 is not "
		    "available in this SQLite");
	return api;
}

static int
tok_register(sqlite3 *db)
{
	static fts5_tokenizer	 methods = {
		otok_create, otok_delete, otok_tokenize
	};
	fts5_tokenizer		 have;
	fts5_api		*api;
	void			*ud;

	if ((api = fts5_get(db)) == NULL)
		return -1;
	if (api->xFindTokenizer(api, "ofl", &ud, &have) == SQLITE_OK)
		return 0;
	if (api->xCreateTokenizer(api, "ofl", api, &methods, NULL) !=
	    SQLITE_OK ||
	    api->xCreateFunction(api, "oflrank", db, rank_func, NULL) !=
	    SQLITE_OK)
		return db_err(db, "cannot register the tokenizer");
	return 0;
}

struct ofl_tok *
ofl_store_fts_tok(struct ofl_store *st)
{
	sqlite3		*db = ofl_store_db(st);
	fts5_api	*api;
	struct ofl_tok	*tk;

	if (tok_register(db) == -1)
		return NULL;
	if ((api = fts5_get(db)) == NULL || (tk = words_tok(api)) == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "search index: cannot create the "
		    "tokenizer");
		return NULL;
	}
	return tk;
}

/* Database helpers. */

static int
db_err(sqlite3 *db, const char *what)
{
	ofl_seterr(OFL_EXIT_FAIL, "search index: %s: %s", what,
	    sqlite3_errmsg(db));
	return -1;
}

static int
db_exec(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_err(db, "database");
	return 0;
}

static int
prep(sqlite3 *db, const char *sql, sqlite3_stmt **s)
{
	if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK) {
		*s = NULL;
		return db_err(db, "database");
	}
	return 0;
}

static int64_t
rowid(int64_t blob, int64_t seq)
{
	return blob << CHUNK_BITS | seq;
}

int
ofl_store_fts_init(struct ofl_store *st)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int		 have = 0;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	if (tok_register(db) == -1)
		return -1;
	if (prep(db, "SELECT 1 FROM sqlite_master WHERE name = 'ix_fts'",
	    &s) == -1)
		return -1;
	have = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	if (have)
		return 0;
	if (db_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	if (db_exec(db, ix_schema) == -1 ||
	    db_exec(db, "INSERT INTO ix_fts(ix_fts, rank)"
	    " VALUES('rank', '" OFL_INDEX_RANK "')") == -1 ||
	    db_exec(db, "COMMIT") == -1) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

int
ofl_store_fts_state(struct ofl_store *st, int64_t blob)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int		 rc, state = 0;

	/* Nothing is indexed on PostgreSQL yet. */
	STORE_PG(st, 0);
	if (ofl_store_fts_init(st) == -1)
		return -1;
	if (prep(db, "SELECT state, tokver FROM ix_blob WHERE blob = ?1",
	    &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, blob);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		state = sqlite3_column_int(s, 0) == 1 &&
		    sqlite3_column_int(s, 1) == OFL_TOK_VERSION;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(db, "index state");
	return state;
}

/* Writing. */

static int
owner_alive(int64_t pid)
{
	if (pid <= 0 || pid > INT32_MAX)
		return 0;
	if ((pid_t)pid == getpid())
		return 1;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/*
 * 1 if blob is the content of a finished artifact, 0 if not (removed by a
 * gc), -1 on error.  Called inside a write transaction, so the answer
 * holds until it commits.
 */
static int
blob_live(sqlite3 *db, int64_t blob)
{
	sqlite3_stmt	*s;
	int		 rc;

	if (prep(db, "SELECT 1 FROM artifact WHERE blob = ?1 AND state = 1"
	    " LIMIT 1", &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, blob);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(db, "index state");
	return rc == SQLITE_ROW;
}

/* How blob's row stands, in a transaction: OFL_FTS_*, or -1. */
static int
claim_row(sqlite3 *db, int64_t blob, int64_t *resume, int *found)
{
	sqlite3_stmt	*s;
	int64_t		 now = ofl_now_ms(), owner, beat;
	int		 rc, state, tokver, ret = OFL_FTS_MINE;

	*found = 0;
	if (prep(db, "SELECT state, owner, heartbeat, next_seq, tokver"
	    " FROM ix_blob WHERE blob = ?1", &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, blob);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*found = 1;
		state = sqlite3_column_int(s, 0);
		owner = sqlite3_column_int64(s, 1);
		beat = sqlite3_column_int64(s, 2);
		tokver = sqlite3_column_int(s, 4);
		if (state == 1 && tokver == OFL_TOK_VERSION)
			ret = OFL_FTS_DONE;
		else if (state != 1 && owner != (int64_t)getpid() &&
		    owner_alive(owner) && now - beat < STALE_MS)
			ret = OFL_FTS_BUSY;
		else if (state == 0 && tokver == OFL_TOK_VERSION)
			*resume = sqlite3_column_int64(s, 3);
		else if (state != 0)
			ret = OFL_FTS_STALE;
	} else if (rc != SQLITE_DONE)
		ret = db_err(db, "index state");
	sqlite3_finalize(s);
	return ret;
}

int
ofl_store_fts_claim(struct ofl_store *st, int64_t blob, const char *id,
    int64_t *resume)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s = NULL;
	int		 ret, live, found;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	*resume = 0;
	if (db_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	/* A gc may have removed it since it was looked up. */
	if ((live = blob_live(db, blob)) != 1) {
		if (live == 0)
			ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
		goto fail;
	}
	if ((ret = claim_row(db, blob, resume, &found)) == -1)
		goto fail;
	if (ret != OFL_FTS_MINE)
		goto done;
	if (prep(db, "INSERT OR REPLACE INTO ix_blob(blob, state, next_seq,"
	    " owner, heartbeat, id, tokver) VALUES(?1, 0, ?2, ?3, ?4, ?5, ?6)",
	    &s) == -1)
		goto fail;
	sqlite3_bind_int64(s, 1, blob);
	sqlite3_bind_int64(s, 2, *resume);
	sqlite3_bind_int64(s, 3, (int64_t)getpid());
	sqlite3_bind_int64(s, 4, ofl_now_ms());
	sqlite3_bind_text(s, 5, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 6, OFL_TOK_VERSION);
	if (sqlite3_step(s) != SQLITE_DONE) {
		db_err(db, "index state");
		goto fail;
	}
done:
	sqlite3_finalize(s);
	if (db_exec(db, "COMMIT") == -1) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return ret;
fail:
	sqlite3_finalize(s);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/*
 * Write only while the blob is there and the job still ours: a gc may
 * have removed the artifact, or be dropping the blob's rows, since the
 * last batch.  Rows written then would outlive it.
 */
static int
write_check(sqlite3 *db, int64_t blob, const char *id)
{
	sqlite3_stmt	*s;
	int		 rc;

	if ((rc = blob_live(db, blob)) != 1) {
		if (rc == 0)
			ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact "
			    "(removed while it was indexed)", id);
		return -1;
	}
	if (prep(db, "SELECT 1 FROM ix_blob WHERE blob = ?1 AND state = 0"
	    " AND owner = ?2", &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, blob);
	sqlite3_bind_int64(s, 2, (int64_t)getpid());
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		ofl_seterr(OFL_EXIT_FAIL, "%s: its index is being dropped or "
		    "made by another process", id);
	else
		db_err(db, "indexing");
	return -1;
}

static int
write_rows(sqlite3 *db, int64_t blob, const struct ofl_fts_chunk *c,
    size_t n)
{
	sqlite3_stmt	*ins_fts = NULL, *ins_chunk = NULL;
	const struct ofl_fts_chunk *p;
	size_t		 i;
	int		 ret = -1;

	if (prep(db, "INSERT INTO ix_fts(rowid, title, body) VALUES(?1, ?2,"
	    " ?3)", &ins_fts) == -1 ||
	    prep(db, "INSERT OR REPLACE INTO ix_chunk(id, member, title,"
	    " byte_start, byte_end, line_start, line_end) VALUES(?1, ?2, ?3,"
	    " ?4, ?5, ?6, ?7)", &ins_chunk) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		p = &c[i];
		sqlite3_bind_int64(ins_fts, 1, rowid(blob, p->seq));
		sqlite3_bind_text(ins_fts, 2, p->title, (int)p->title_len,
		    SQLITE_STATIC);
		sqlite3_bind_text(ins_fts, 3, p->len > 0 ? p->text : "",
		    (int)p->len, SQLITE_STATIC);
		if (sqlite3_step(ins_fts) != SQLITE_DONE) {
			db_err(db, "indexing");
			goto out;
		}
		sqlite3_reset(ins_fts);
		sqlite3_bind_int64(ins_chunk, 1, rowid(blob, p->seq));
		if (p->member != NULL)
			sqlite3_bind_text(ins_chunk, 2, p->member, -1,
			    SQLITE_STATIC);
		else
			sqlite3_bind_null(ins_chunk, 2);
		if (p->title_len > 0)
			sqlite3_bind_text(ins_chunk, 3, p->title,
			    (int)p->title_len, SQLITE_STATIC);
		else
			sqlite3_bind_null(ins_chunk, 3);
		sqlite3_bind_int64(ins_chunk, 4, (int64_t)p->byte_start);
		sqlite3_bind_int64(ins_chunk, 5, (int64_t)p->byte_end);
		sqlite3_bind_int64(ins_chunk, 6, (int64_t)p->line_start);
		sqlite3_bind_int64(ins_chunk, 7, (int64_t)p->line_end);
		if (sqlite3_step(ins_chunk) != SQLITE_DONE) {
			db_err(db, "indexing");
			goto out;
		}
		sqlite3_reset(ins_chunk);
	}
	ret = 0;
out:
	sqlite3_finalize(ins_fts);
	sqlite3_finalize(ins_chunk);
	return ret;
}

int
ofl_store_fts_write(struct ofl_store *st, int64_t blob, const char *id,
    const struct ofl_fts_chunk *c, size_t n, int64_t next_seq, int last,
    int truncated, uint64_t bytes)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*upd = NULL;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	if (db_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	if (write_check(db, blob, id) == -1 ||
	    prep(db, "UPDATE ix_blob SET next_seq = ?2, heartbeat = ?3,"
	    " state = ?4, truncated = ?5, finished = ?6, bytes = ?7"
	    " WHERE blob = ?1", &upd) == -1 ||
	    write_rows(db, blob, c, n) == -1)
		goto fail;
	sqlite3_bind_int64(upd, 1, blob);
	sqlite3_bind_int64(upd, 2, next_seq > CHUNK_MAX ? CHUNK_MAX :
	    next_seq);
	sqlite3_bind_int64(upd, 3, ofl_now_ms());
	sqlite3_bind_int(upd, 4, last ? 1 : 0);
	sqlite3_bind_int(upd, 5, truncated);
	if (last)
		sqlite3_bind_int64(upd, 6, ofl_now_ms());
	else
		sqlite3_bind_null(upd, 6);
	sqlite3_bind_int64(upd, 7, (int64_t)bytes);
	if (sqlite3_step(upd) != SQLITE_DONE) {
		db_err(db, "indexing");
		goto fail;
	}
	sqlite3_finalize(upd);
	if (db_exec(db, "COMMIT") == -1) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
fail:
	sqlite3_finalize(upd);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* Dropping. */

int
ofl_store_fts_drop_begin(struct ofl_store *st, int64_t blob, int64_t *nseq,
    char **hint)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s = NULL;
	int64_t		 now = ofl_now_ms(), owner, beat;
	int		 rc, state;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	*nseq = 0;
	*hint = NULL;
	if (store_tx_begin(st) == -1)
		return -1;
	if (prep(db, "SELECT next_seq, id, state, owner, heartbeat FROM"
	    " ix_blob WHERE blob = ?1", &s) == -1)
		goto rollback;
	sqlite3_bind_int64(s, 1, blob);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*nseq = sqlite3_column_int64(s, 0);
		if (sqlite3_column_type(s, 1) != SQLITE_NULL)
			*hint = ofl_xstrdup((const char *)
			    sqlite3_column_text(s, 1));
		state = sqlite3_column_int(s, 2);
		owner = sqlite3_column_int64(s, 3);
		beat = sqlite3_column_int64(s, 4);
		if (state == 2 && owner != (int64_t)getpid() &&
		    owner_alive(owner) && now - beat < STALE_MS)
			rc = SQLITE_DONE;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (rc == SQLITE_DONE) {
		if (store_tx_commit(st) == -1)
			store_tx_rollback(st);
		free(*hint);
		*hint = NULL;
		return 0;	/* not indexed, or dropped by another */
	}
	if (rc != SQLITE_ROW) {
		db_err(db, "dropping");
		goto rollback;
	}
	if (prep(db, "UPDATE ix_blob SET state = 2, owner = ?2, heartbeat = ?3"
	    " WHERE blob = ?1", &s) == -1)
		goto rollback;
	sqlite3_bind_int64(s, 1, blob);
	sqlite3_bind_int64(s, 2, (int64_t)getpid());
	sqlite3_bind_int64(s, 3, now);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		db_err(db, "dropping");
		goto rollback;
	}
	if (store_tx_commit(st) == -1)
		goto rollback;
	return 1;
rollback:
	store_tx_rollback(st);
	free(*hint);
	*hint = NULL;
	return -1;
}

static int
delete_rows(sqlite3 *db, int64_t blob, const struct ofl_fts_chunk *c,
    size_t n)
{
	sqlite3_stmt	*chk = NULL, *del = NULL, *delc = NULL;
	const struct ofl_fts_chunk *p;
	size_t		 i;
	int64_t		 id;
	int		 rc, ret = -1;

	if (prep(db, "SELECT 1 FROM ix_chunk WHERE id = ?1", &chk) == -1 ||
	    prep(db, "INSERT INTO ix_fts(ix_fts, rowid, title, body)"
	    " VALUES('delete', ?1, ?2, ?3)", &del) == -1 ||
	    prep(db, "DELETE FROM ix_chunk WHERE id = ?1", &delc) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		p = &c[i];
		id = rowid(blob, p->seq);
		/* No chunk row: never written, or dropped before. */
		sqlite3_bind_int64(chk, 1, id);
		rc = sqlite3_step(chk);
		sqlite3_reset(chk);
		if (rc == SQLITE_DONE)
			continue;
		if (rc != SQLITE_ROW) {
			db_err(db, "dropping");
			goto out;
		}
		sqlite3_bind_int64(del, 1, id);
		sqlite3_bind_text(del, 2, p->title, (int)p->title_len,
		    SQLITE_STATIC);
		sqlite3_bind_text(del, 3, p->len > 0 ? p->text : "",
		    (int)p->len, SQLITE_STATIC);
		if (sqlite3_step(del) != SQLITE_DONE) {
			db_err(db, "dropping");
			goto out;
		}
		sqlite3_reset(del);
		sqlite3_bind_int64(delc, 1, id);
		if (sqlite3_step(delc) != SQLITE_DONE) {
			db_err(db, "dropping");
			goto out;
		}
		sqlite3_reset(delc);
	}
	ret = 0;
out:
	sqlite3_finalize(chk);
	sqlite3_finalize(del);
	sqlite3_finalize(delc);
	return ret;
}

/*
 * Delete a batch of chunks from the FTS table and ix_chunk, together, in
 * one short transaction, if the drop is still ours.
 */
int
ofl_store_fts_delete(struct ofl_store *st, int64_t blob,
    const struct ofl_fts_chunk *c, size_t n)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*own = NULL;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	if (n == 0)
		return 0;
	if (store_tx_begin(st) == -1)
		return -1;
	if (prep(db, "UPDATE ix_blob SET heartbeat = ?3 WHERE blob = ?1 AND"
	    " state = 2 AND owner = ?2", &own) == -1)
		goto fail;
	sqlite3_bind_int64(own, 1, blob);
	sqlite3_bind_int64(own, 2, (int64_t)getpid());
	sqlite3_bind_int64(own, 3, ofl_now_ms());
	if (sqlite3_step(own) != SQLITE_DONE) {
		db_err(db, "dropping");
		goto fail;
	}
	sqlite3_finalize(own);
	own = NULL;
	if (sqlite3_changes(db) == 0) {
		store_tx_rollback(st);
		return 1;
	}
	if (delete_rows(db, blob, c, n) == -1)
		goto fail;
	if (store_tx_commit(st) == -1) {
		store_tx_rollback(st);
		return -1;
	}
	return 0;
fail:
	sqlite3_finalize(own);
	store_tx_rollback(st);
	return -1;
}

int
ofl_store_fts_forget(struct ofl_store *st, int64_t blob)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int		 rc, have;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	if (prep(db, "SELECT 1 FROM sqlite_master WHERE name = 'ix_blob'",
	    &s) == -1)
		return -1;
	have = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	if (!have)
		return 0;
	if (prep(db, "DELETE FROM ix_chunk WHERE id BETWEEN ?1 AND ?2",
	    &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, rowid(blob, 0));
	sqlite3_bind_int64(s, 2, rowid(blob, CHUNK_MAX - 1));
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return db_err(db, "dropping");
	if (prep(db, "DELETE FROM ix_blob WHERE blob = ?1", &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, blob);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return db_err(db, "dropping");
	return 0;
}

int
ofl_store_fts_forget_tx(struct ofl_store *st, int64_t blob)
{
	sqlite3	*db = ofl_store_db(st);

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	if (db_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	if (ofl_store_fts_forget(st, blob) == -1 ||
	    db_exec(db, "COMMIT") == -1) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

/* Checking. */

int
ofl_store_fts_check(struct ofl_store *st, struct ofl_buf *report)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int64_t		 chunks = -1, docs = -1, orphans = -1;
	int		 problems = 0;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	if (ofl_store_fts_init(st) == -1)
		return -1;
	if (sqlite3_exec(db, "INSERT INTO ix_fts(ix_fts)"
	    " VALUES('integrity-check')", NULL, NULL, NULL) != SQLITE_OK) {
		ofl_buf_addf(report, "full-text index: %s\n",
		    sqlite3_errmsg(db));
		problems++;
	}
	if (prep(db, "SELECT (SELECT count(*) FROM ix_chunk),"
	    " (SELECT count(*) FROM ix_fts_docsize),"
	    " (SELECT count(*) FROM ix_chunk c WHERE NOT EXISTS"
	    " (SELECT 1 FROM ix_blob b WHERE b.blob = c.id >> 24))", &s) == -1)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW) {
		chunks = sqlite3_column_int64(s, 0);
		docs = sqlite3_column_int64(s, 1);
		orphans = sqlite3_column_int64(s, 2);
	}
	sqlite3_finalize(s);
	if (chunks != docs) {
		ofl_buf_addf(report, "chunks: %lld, rows of the full-text "
		    "index: %lld\n", (long long)chunks, (long long)docs);
		problems++;
	}
	if (orphans != 0) {
		ofl_buf_addf(report, "chunks of no indexed content: %lld\n",
		    (long long)orphans);
		problems++;
	}
	return problems;
}

/* Searching. */

int
ofl_store_fts_scope(struct ofl_store *st, const int64_t *blobs, size_t n)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	size_t		 i;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
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

static const char *
query_sql(const struct ofl_fts_query *fq)
{
	if (fq->blob >= 0 && fq->lines)
		/* Only the chunks that overlap the lines. */
		return "SELECT rowid, -rank FROM ix_fts WHERE ix_fts MATCH ?1"
		    " AND rank MATCH '" OFL_INDEX_RANK "'"
		    " AND rowid BETWEEN ?2 AND ?3 AND rowid IN (SELECT id"
		    " FROM ix_chunk WHERE id BETWEEN ?2 AND ?3 AND"
		    " line_start <= ?6 AND line_end >= ?5)"
		    " ORDER BY rank LIMIT ?4";
	if (fq->blob >= 0)
		return "SELECT rowid, -rank FROM ix_fts WHERE ix_fts MATCH ?1"
		    " AND rank MATCH '" OFL_INDEX_RANK "'"
		    " AND rowid BETWEEN ?2 AND ?3 ORDER BY rank LIMIT ?4";
	if (fq->scoped)
		return "SELECT rowid, -rank FROM ix_fts WHERE ix_fts MATCH ?1"
		    " AND rank MATCH '" OFL_INDEX_RANK "'"
		    " AND rowid / ?5 IN (SELECT blob FROM temp.ix_scope)"
		    " ORDER BY rank LIMIT ?4";
	if (fq->filter != NULL)
		/* The store narrowed: one query, the filter in it. */
		return "SELECT rowid, -rank FROM ix_fts WHERE ix_fts MATCH ?1"
		    " AND rank MATCH '" OFL_INDEX_RANK "'"
		    " AND rowid / ?5 IN (SELECT a.blob FROM artifact a WHERE"
		    FILTER_SQL ") ORDER BY rank LIMIT ?4";
	return "SELECT rowid, -rank FROM ix_fts WHERE ix_fts MATCH ?1"
	    " AND rank MATCH '" OFL_INDEX_RANK "'"
	    " ORDER BY rank LIMIT ?4";
}

int
ofl_store_fts_query(struct ofl_store *st, const struct ofl_fts_query *fq,
    int (*cb)(int64_t, int64_t, double, void *), void *arg)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	int64_t		 id;
	int		 rc, rows = 0;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	if (sqlite3_prepare_v2(db, query_sql(fq), -1, &q, NULL) !=
	    SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_text(q, 1, fq->match, -1, SQLITE_STATIC);
	if (fq->blob >= 0) {
		sqlite3_bind_int64(q, 2, rowid(fq->blob, 0));
		sqlite3_bind_int64(q, 3, rowid(fq->blob + 1, 0) - 1);
	}
	sqlite3_bind_int64(q, 4, (int64_t)fq->limit);
	if (fq->blob >= 0 && fq->lines) {
		sqlite3_bind_int64(q, 5, (int64_t)fq->line_from);
		sqlite3_bind_int64(q, 6, (int64_t)fq->line_to);
	}
	if (fq->blob < 0 && (fq->scoped || fq->filter != NULL))
		sqlite3_bind_int64(q, 5, rowid(1, 0));
	if (fq->blob < 0 && !fq->scoped && fq->filter != NULL)
		store_filter_bind(q, fq->filter);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		rows++;
		id = sqlite3_column_int64(q, 0);
		if (cb(id >> CHUNK_BITS, id & (CHUNK_MAX - 1),
		    sqlite3_column_double(q, 1), arg) == -1) {
			sqlite3_finalize(q);
			return -1;
		}
	}
	if (rc != SQLITE_DONE) {
		if (fq->raw)
			ofl_seterr(OFL_EXIT_USAGE, "--fts: %s",
			    sqlite3_errmsg(db));
		else
			ofl_seterr(OFL_EXIT_FAIL, "search: %s",
			    sqlite3_errmsg(db));
		sqlite3_finalize(q);
		return -1;
	}
	sqlite3_finalize(q);
	return rows;
}

/*
 * The newest finished artifact of blob that the filter (NULL: any)
 * lets through: 1 and its ID in id, 0 if there is none, -1 on error.
 */
int
ofl_store_fts_blob_art(struct ofl_store *st, int64_t blob,
    const struct ofl_filter *f, char *id, size_t size)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	struct ofl_filter any;
	int		 rc;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	if (f == NULL) {
		ofl_filter_init(&any);
		f = &any;
	}
	if (prep(db, "SELECT a.id FROM artifact a WHERE a.blob = ?1 AND"
	    FILTER_SQL " ORDER BY a.seq DESC LIMIT 1", &q) == -1)
		return -1;
	sqlite3_bind_int64(q, 1, blob);
	store_filter_bind(q, f);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW)
		snprintf(id, size, "%s", (const char *)sqlite3_column_text(q,
		    0));
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_err(db, "search");
}

/*
 * The artifacts the filter lets through whose content is not indexed
 * (or only in part), one per content, newest first: cb(id, blob, arg)
 * for each, until it returns non-zero.  Returns how many there are.
 */
int64_t
ofl_store_fts_unindexed(struct ofl_store *st, const struct ofl_filter *f,
    int (*cb)(const char *, int64_t, void *), void *arg)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	int64_t		 n = 0;
	int		 rc, stop = 0;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	if (prep(db, "SELECT a.id, a.blob FROM artifact a LEFT JOIN ix_blob b"
	    " ON b.blob = a.blob WHERE" FILTER_SQL " AND (b.blob IS NULL OR"
	    " b.state != 1 OR b.tokver != ?6) GROUP BY a.blob"
	    " ORDER BY max(a.seq) DESC", &q) == -1)
		return -1;
	sqlite3_bind_int(q, 6, OFL_TOK_VERSION);
	store_filter_bind(q, f);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		n++;
		if (!stop && cb != NULL)
			stop = cb((const char *)sqlite3_column_text(q, 0),
			    sqlite3_column_int64(q, 1), arg);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return db_err(db, "search");
	return n;
}

int
ofl_store_fts_chunk(struct ofl_store *st, int64_t blob, int64_t seq,
    struct ofl_fts_row *row)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	int		 rc;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	memset(row, 0, sizeof *row);
	if (sqlite3_prepare_v2(db, "SELECT member, title, byte_start,"
	    " byte_end, line_start, line_end FROM ix_chunk WHERE id = ?1", -1,
	    &q, NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(q, 1, rowid(blob, seq));
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (sqlite3_column_type(q, 0) != SQLITE_NULL)
			row->member = ofl_xstrdup((const char *)
			    sqlite3_column_text(q, 0));
		if (sqlite3_column_type(q, 1) != SQLITE_NULL)
			row->title = ofl_xstrdup((const char *)
			    sqlite3_column_text(q, 1));
		row->byte_start = (uint64_t)sqlite3_column_int64(q, 2);
		row->byte_end = (uint64_t)sqlite3_column_int64(q, 3);
		row->line_start = (uint64_t)sqlite3_column_int64(q, 4);
		row->line_end = (uint64_t)sqlite3_column_int64(q, 5);
	}
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
	return -1;
}

void
ofl_store_fts_row_free(struct ofl_fts_row *row)
{
	free(row->member);
	free(row->title);
	row->member = row->title = NULL;
}

/* Titles of the chunks that hold lines; left NULL where none is found. */
void
ofl_store_fts_titles(struct ofl_store *st, struct ofl_fts_title *t, size_t n)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	size_t		 i;

	STORE_PG_VOID(st, (void)store_pg_unsupported(st, FTS_PG));
	if (n == 0 || sqlite3_prepare_v2(db, "SELECT id, title FROM ix_chunk"
	    " WHERE id BETWEEN ?1 AND ?2 AND line_start <= ?3 AND"
	    " line_end >= ?3 ORDER BY id LIMIT 1", -1, &q, NULL) != SQLITE_OK)
		return;
	for (i = 0; i < n; i++) {
		if (t[i].seq >= 0) {
			/* The very chunk, found by its number. */
			sqlite3_bind_int64(q, 1, rowid(t[i].blob, t[i].seq));
			sqlite3_bind_int64(q, 2, rowid(t[i].blob, t[i].seq));
		} else {
			sqlite3_bind_int64(q, 1, rowid(t[i].blob, 0));
			sqlite3_bind_int64(q, 2, rowid(t[i].blob + 1, 0) - 1);
		}
		sqlite3_bind_int64(q, 3, (int64_t)t[i].line);
		if (sqlite3_step(q) == SQLITE_ROW &&
		    sqlite3_column_type(q, 1) != SQLITE_NULL)
			t[i].title = ofl_xstrdup((const char *)
			    sqlite3_column_text(q, 1));
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
}

/* The vocabulary. */

struct ofl_fts_vocab *
ofl_store_fts_vocab(struct ofl_store *st)
{
	struct ofl_fts_vocab	*v;
	sqlite3			*db = ofl_store_db(st);

	STORE_PG(st, (store_pg_unsupported(st, FTS_PG), NULL));
	if (db_exec(db, "CREATE VIRTUAL TABLE IF NOT EXISTS"
	    " temp.ix_vocab USING fts5vocab(main, 'ix_fts', 'row')") == -1)
		return NULL;
	v = ofl_xcalloc(1, sizeof *v);
	v->db = db;
	if (prep(db, "SELECT doc FROM temp.ix_vocab WHERE term = ?1",
	    &v->has) == -1) {
		free(v);
		return NULL;
	}
	return v;
}

void
ofl_store_fts_vocab_free(struct ofl_fts_vocab *v)
{
	if (v == NULL)
		return;
	sqlite3_finalize(v->has);
	sqlite3_finalize(v->near);
	free(v);
}

int64_t
ofl_store_fts_vocab_doc(struct ofl_fts_vocab *v, const char *term, size_t n)
{
	int64_t	df = 0;

	sqlite3_bind_text(v->has, 1, term, (int)n, SQLITE_STATIC);
	if (sqlite3_step(v->has) == SQLITE_ROW)
		df = sqlite3_column_int64(v->has, 0);
	sqlite3_reset(v->has);
	return df;
}

void
ofl_store_fts_vocab_range(struct ofl_fts_vocab *v, const char *lo,
    const char *hi, void (*cb)(const char *, int64_t, void *), void *arg)
{
	const char	*w;

	if (v->near == NULL && sqlite3_prepare_v2(v->db, "SELECT term, doc"
	    " FROM temp.ix_vocab WHERE term >= ?1 AND term < ?2", -1,
	    &v->near, NULL) != SQLITE_OK) {
		v->near = NULL;
		return;
	}
	sqlite3_bind_text(v->near, 1, lo, -1, SQLITE_STATIC);
	sqlite3_bind_text(v->near, 2, hi, -1, SQLITE_STATIC);
	while (sqlite3_step(v->near) == SQLITE_ROW) {
		w = (const char *)sqlite3_column_text(v->near, 0);
		if (w != NULL)
			cb(w, sqlite3_column_int64(v->near, 1), arg);
	}
	sqlite3_reset(v->near);
}

int64_t
ofl_store_fts_chunks(struct ofl_store *st)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int64_t		 n = 0;

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	if (prep(db, "SELECT count(*) FROM ix_chunk", &s) == -1)
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

	STORE_PG(st, store_pg_unsupported(st, FTS_PG));
	*bytes = 0;
	*line = 1;
	if (prep(db, "SELECT b.state, b.owner, b.heartbeat, (SELECT"
	    " max(byte_end) FROM ix_chunk WHERE id BETWEEN ?2 AND ?3), (SELECT"
	    " max(line_end) FROM ix_chunk WHERE id BETWEEN ?2 AND ?3) FROM"
	    " ix_blob b WHERE b.blob = ?1", &q) == -1)
		return -1;
	sqlite3_bind_int64(q, 1, blob);
	sqlite3_bind_int64(q, 2, rowid(blob, 0));
	sqlite3_bind_int64(q, 3, rowid(blob + 1, 0) - 1);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		owner = sqlite3_column_int64(q, 1);
		beat = sqlite3_column_int64(q, 2);
		busy = sqlite3_column_int(q, 0) == 0 &&
		    owner != (int64_t)getpid() && owner_alive(owner) &&
		    ofl_now_ms() - beat < STALE_MS;
		if (busy && sqlite3_column_type(q, 3) != SQLITE_NULL) {
			*bytes = (uint64_t)sqlite3_column_int64(q, 3);
			*line = (uint64_t)sqlite3_column_int64(q, 4) + 1;
		}
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(db, "index state");
	return busy;
}
