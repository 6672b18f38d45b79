/*
 * store-fts.c: the full-text index's part of the store.
 *
 * The index lives in the store's SQLite database, next to the metadata:
 *
 *	ix_blob		one row per indexed content (blob): its state
 *	ix_chunk	one row per chunk: title, member, byte and line range
 *	ix_fts...	FTS5, contentless (content=''), columns title and
 *			body: one table per generation (store-gen.c)
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

#define CHUNK_BITS	IX_CHUNK_BITS
#define STALE_MS	IX_STALE_MS
#define RANK_PHRASES	64		/* phrases ranked */
#define RANK_K1		1.2
#define RANK_CHEAP	4000		/* rows matched: count columns only */
#define RANK_HAS_MAX	(4 * 1024 * 1024) /* rows a phrase's list keeps */

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
struct rank_rows;
static struct rank_blob *rank_probe(struct rank_aux *, int64_t);
static struct rank_blob *rank_slot(struct rank_aux *, int64_t, int);
static void	 rank_aux_free(void *);
static void	 rank_merge(struct rank_aux *, struct rank_aux *);
static int	 rank_count(const Fts5ExtensionApi *, Fts5Context *, void *);
static void	 rank_rows_add(struct rank_rows *, int64_t);
static int	 rank_rows_has(struct rank_rows *, int64_t);
static void	 rank_rows_free(struct rank_aux *);
static void	 rank_blob_stats(struct rank_aux *, struct rank_blob *);
static struct rank_aux *rank_aux_get(const Fts5ExtensionApi *, Fts5Context *,
		    int, int);
static void	 rank_func(const Fts5ExtensionApi *, Fts5Context *,
		    sqlite3_context *, int, sqlite3_value **);
static fts5_api	*fts5_get(sqlite3 *);
static int	 tok_register(sqlite3 *);
static int	 blob_live(sqlite3 *, int64_t);
static int	 claim_row(sqlite3 *, int64_t, int64_t *, int64_t *, int *);
static int	 write_check(sqlite3 *, int64_t, const char *, int64_t *);
static int	 write_rows(sqlite3 *, int64_t, int64_t,
		    const struct ofl_fts_chunk *, size_t);

/* Tables, made in the index's schema (ix_ddl()). */
static const char *const ix_schema[] = {
	"ix_blob ("
	" blob INTEGER PRIMARY KEY,"
	" state INTEGER NOT NULL,"		/* 0 building, 1 done */
	" next_seq INTEGER NOT NULL,"		/* chunks committed */
	" owner INTEGER,"			/* pid of the indexer */
	" heartbeat INTEGER,"			/* ms, last sign of life */
	" id TEXT,"				/* an artifact it was read as */
	" bytes INTEGER,"
	" tokver INTEGER,"
	" truncated INTEGER NOT NULL DEFAULT 0,"
	" finished INTEGER,"
	" gen INTEGER NOT NULL DEFAULT 0)",		/* store-gen.c */
	"ix_chunk ("
	" id INTEGER PRIMARY KEY,"		/* blob << 24 | seq */
	" member TEXT,"
	" title TEXT,"
	" byte_start INTEGER NOT NULL,"
	" byte_end INTEGER NOT NULL,"
	" line_start INTEGER NOT NULL,"
	" line_end INTEGER NOT NULL)",
	"ix_mark ("				/* store-fts-chunk.c */
	" k INTEGER PRIMARY KEY CHECK (k = 0),"
	" seq INTEGER NOT NULL,"		/* artifacts up to it settled */
	" tokver INTEGER NOT NULL)",		/* by this tokenizer */
	"ix_hole ("				/* but these, at or below it */
	" seq INTEGER PRIMARY KEY)",
	NULL
};

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

/* The rows that hold a phrase, in order; all: too many to keep. */
struct rank_rows {
	int64_t		*id;
	size_t		 n;
	size_t		 cap;
	int		 all;
	int		 sorted;
};

struct rank_aux {
	int		  mode;		/* 1: kept when done (rank_kept) */
	int		  nphrase;
	struct rank_rows *has;		/* per phrase, on an index of rows */
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

/*
 * The statistics of the last query ranked with IX_RANK_KEEP, for the
 * query that ranks its rows again with IX_RANK_TEXT (one at a time: the
 * library runs one query at a time).
 */
static struct rank_aux	*rank_kept;

/*
 * Or given (IX_RANK_GIVEN): for each blob, how many of its rows hold
 * each phrase, counted by store-fts-pos.c for a query whose rows are
 * ranked on their text alone.
 */
static struct rank_aux	*rank_given;

/* The blobs of ra whose statistics are read, moved into into; ra freed. */
static void
rank_merge(struct rank_aux *into, struct rank_aux *ra)
{
	struct rank_blob	*b;
	size_t			 i;

	for (i = 0; i < ra->cap; i++) {
		if (ra->tab[i].blob < 0 || ra->tab[i].nrow < 0 ||
		    rank_slot(into, ra->tab[i].blob, 0) != NULL)
			continue;
		b = rank_slot(into, ra->tab[i].blob, 1);
		free(b->nhit);
		free(b->idf);
		*b = ra->tab[i];
		ra->tab[i].nhit = NULL;
		ra->tab[i].idf = NULL;
	}
	rank_aux_free(ra);
}

static void
rank_aux_free(void *p)
{
	struct rank_aux	*ra = p;
	size_t		 i;

	if (ra == NULL)
		return;
	rank_rows_free(ra);
	if (ra->mode == 1) {
		/* Its statement would keep the database from closing. */
		sqlite3_finalize(ra->nrow);
		ra->nrow = NULL;
		ra->mode = 0;
		if (rank_kept != NULL && rank_kept->nphrase == ra->nphrase &&
		    rank_kept->db == ra->db) {
			/* Another generation's: its blobs are others. */
			rank_merge(rank_kept, ra);
			return;
		}
		store_fts_rank_forget();
		rank_kept = ra;
		return;
	}
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
	if (ra->has != NULL)
		rank_rows_add(&ra->has[ra->phrase], api->xRowid(fts));
	return SQLITE_OK;
}

static void
rank_rows_add(struct rank_rows *r, int64_t id)
{
	if (r->all)
		return;
	if (r->n == RANK_HAS_MAX) {
		/* As if every row held it: each row then scores alike. */
		free(r->id);
		memset(r, 0, sizeof *r);
		r->all = 1;
		return;
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->id = ofl_xrealloc(r->id, r->cap * sizeof *r->id);
	}
	if (r->n == 0)
		r->sorted = 1;
	else if (r->id[r->n - 1] >= id)
		r->sorted = 0;
	r->id[r->n++] = id;
}

static int
id_cmp(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether row id holds the phrase of r. */
static int
rank_rows_has(struct rank_rows *r, int64_t id)
{
	size_t	lo = 0, hi, mid;

	if (r->all)
		return 1;
	if (r->n == 0)
		return 0;
	if (!r->sorted) {
		qsort(r->id, r->n, sizeof *r->id, id_cmp);
		r->sorted = 1;
	}
	for (hi = r->n; lo < hi; ) {
		mid = lo + (hi - lo) / 2;
		if (r->id[mid] == id)
			return 1;
		if (r->id[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void
rank_rows_free(struct rank_aux *ra)
{
	int	i;

	if (ra->has == NULL)
		return;
	for (i = 0; i < ra->nphrase; i++)
		free(ra->has[i].id);
	free(ra->has);
	ra->has = NULL;
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

void
store_fts_rank_forget(void)
{
	struct rank_aux	*ra = rank_kept;

	rank_kept = NULL;
	rank_aux_free(ra);
	ra = rank_given;
	rank_given = NULL;
	rank_aux_free(ra);
}

void
store_fts_rank_give(int64_t blob, int nphrase, const int64_t *nhit)
{
	struct rank_blob	*b;
	int			 i;

	if (nphrase > RANK_PHRASES)
		nphrase = RANK_PHRASES;
	if (rank_given == NULL) {
		rank_given = ofl_xcalloc(1, sizeof *rank_given);
		rank_given->nphrase = nphrase;
	}
	if (rank_given->nphrase != nphrase)
		return;
	b = rank_slot(rank_given, blob, 1);
	for (i = 0; i < nphrase; i++)
		b->nhit[i] = nhit[i];
}

static struct rank_aux *
rank_aux_get(const Fts5ExtensionApi *api, Fts5Context *fts, int nphrase,
    int mode)
{
	struct rank_aux	*ra;
	int		 i;

	if ((ra = api->xGetAuxdata(fts, 0)) != NULL)
		return ra;
	if (mode == 2 && rank_kept != NULL && rank_kept->nphrase == nphrase &&
	    rank_kept->db == api->xUserData(fts)) {
		/* The rows' own statistics, from the index. */
		ra = rank_kept;
		rank_kept = NULL;
	} else if (mode == 3 && rank_given != NULL &&
	    rank_given->nphrase == nphrase) {
		ra = rank_given;
		rank_given = NULL;
		ra->db = api->xUserData(fts);
	} else {
		ra = ofl_xcalloc(1, sizeof *ra);
		ra->nphrase = nphrase;
		ra->db = api->xUserData(fts);
		if (mode == 4)
			ra->has = ofl_xcalloc((size_t)nphrase + 1,
			    sizeof *ra->has);
		for (i = 0; i < nphrase; i++) {
			ra->phrase = i;
			(void)api->xQueryPhrase(fts, i, ra, rank_count);
		}
		ra->mode = mode == 1 || mode == 4;
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
 * quickly anyway.  A third argument, 1: so always (a generation that
 * keeps no places of words, where a phrase is in a column or not),
 * keeping the statistics for the rows to be ranked again on their text
 * by the same query with 2, or with 3 by the statistics that
 * store_fts_rank_give() gave (store-fts-pos.c).  With 4, as with 1 on a
 * generation that keeps only which rows hold a word, not in which
 * column: the rows of each phrase are listed as they are counted, and a
 * row scores each phrase it holds as a match in the body.
 */
static void
rank_func(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
    int nval, sqlite3_value **val)
{
	struct rank_aux		*ra;
	struct rank_blob	*b;
	Fts5PhraseIter		 it;
	double			 tf[RANK_PHRASES], score = 0.0, w;
	sqlite3_int64		 row = api->xRowid(fts);
	int			 nphrase, ninst, i, ph, col, off, mode;

	nphrase = api->xPhraseCount(fts);
	if (nphrase > RANK_PHRASES)
		nphrase = RANK_PHRASES;
	mode = nval > 2 ? sqlite3_value_int(val[2]) : 0;
	if ((ra = rank_aux_get(api, fts, nphrase, mode)) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	b = rank_slot(ra, row >> CHUNK_BITS, 1);
	if (b->nrow < 0)
		rank_blob_stats(ra, b);
	for (i = 0; i < nphrase; i++)
		tf[i] = 0.0;
	if (mode == 4) {
		w = nval > 1 ? sqlite3_value_double(val[1]) : 1.0;
		for (i = 0; i < nphrase; i++)
			if (rank_rows_has(&ra->has[i], row))
				tf[i] = w;
	} else if (b->cheap || mode == 1) {
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
		return ix_err(db, "cannot register the tokenizer");
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

int
ofl_store_fts_init(struct ofl_store *st)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int		 have = 0;

	if (tok_register(db) == -1)
		return -1;
	STORE_PG(st, 0);	/* the schema has the tables (store-pg-fts.c) */
	if (store_ix_attach(st, 1) == -1)
		return -1;
	/*
	 * Made, with its generations (store-gen.c), one open, the
	 * tombstones' count of rows and the mark of what is indexed
	 * (store-fts-chunk.c); no table ix_gen or ix_mark (the statement
	 * fails) or no column rows is an index to make or migrate.
	 */
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM ix_gen WHERE open = 1 AND"
	    " EXISTS (SELECT 1 FROM pragma_table_info('ix_dead') WHERE name ="
	    " 'rows') AND EXISTS (SELECT 1 FROM ix_mark)", -1, &s,
	    NULL) == SQLITE_OK) {
		have = sqlite3_step(s) == SQLITE_ROW;
		sqlite3_finalize(s);
	}
	if (have)
		return 0;
	if (ix_exec(db, "BEGIN IMMEDIATE", "database") == -1)
		return -1;
	if (ix_ddl(db, ix_schema) == -1 || ix_gen_setup(db) == -1 ||
	    ix_exec(db, "INSERT OR IGNORE INTO ix_mark(k, seq, tokver)"
	    " VALUES (0, 0, 0)", "database") == -1 ||
	    ix_exec(db, "COMMIT", "database") == -1) {
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

	STORE_PG(st, store_pg_fts_state(st, blob));
	if (ofl_store_fts_init(st) == -1)
		return -1;
	if (ix_prep(db, "SELECT state, tokver FROM ix_blob WHERE blob = ?1",
	    &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, blob);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		state = sqlite3_column_int(s, 0) == 1 &&
		    sqlite3_column_int(s, 1) == OFL_TOK_VERSION;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ix_err(db, "index state");
	return state;
}

/* Writing. */

int
ix_owner_alive(int64_t pid)
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

	if (ix_prep(db, "SELECT 1 FROM artifact WHERE blob = ?1 AND state = 1"
	    " LIMIT 1", &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, blob);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ix_err(db, "index state");
	return rc == SQLITE_ROW;
}

/* The bytes of blob's content, or -1. */
static int64_t
blob_bytes(sqlite3 *db, int64_t blob)
{
	sqlite3_stmt	*s;
	int64_t		 n = 0;
	int		 rc;

	if (ix_prep(db, "SELECT bytes FROM blob WHERE id = ?1", &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, blob);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ix_err(db, "index state");
	return n;
}

/* How blob's row stands, in a transaction: OFL_FTS_*, or -1. */
static int
claim_row(sqlite3 *db, int64_t blob, int64_t *resume, int64_t *gen,
    int *found)
{
	sqlite3_stmt	*s;
	int64_t		 now = ofl_now_ms(), owner, beat;
	int		 rc, state, tokver, ret = OFL_FTS_MINE;

	*found = 0;
	if (ix_prep(db, "SELECT state, owner, heartbeat, next_seq, tokver,"
	    " gen FROM ix_blob WHERE blob = ?1", &s) == -1)
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
		    ix_owner_alive(owner) && now - beat < STALE_MS)
			ret = OFL_FTS_BUSY;
		else if (state == 0 && tokver == OFL_TOK_VERSION) {
			*resume = sqlite3_column_int64(s, 3);
			*gen = sqlite3_column_int64(s, 5);
		}
		else	/* its rows buried first: a row is never written twice */
			ret = OFL_FTS_STALE;
	} else if (rc != SQLITE_DONE)
		ret = ix_err(db, "index state");
	sqlite3_finalize(s);
	return ret;
}

int
ofl_store_fts_claim(struct ofl_store *st, int64_t blob, const char *id,
    int64_t *resume)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s = NULL;
	int64_t		 gen = -1, bytes;
	int		 ret, live, found;

	STORE_PG(st, store_pg_fts_claim(st, blob, id, resume));
	*resume = 0;
	if (ix_exec(db, "BEGIN IMMEDIATE", "database") == -1)
		return -1;
	/* A gc may have removed it since it was looked up. */
	if ((live = blob_live(db, blob)) != 1) {
		if (live == 0)
			ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
		goto fail;
	}
	if ((ret = claim_row(db, blob, resume, &gen, &found)) == -1)
		goto fail;
	if (ret != OFL_FTS_MINE)
		goto done;
	/*
	 * A resumed job goes on in the generation it began in; a new one
	 * goes into the open generation, the content's bytes counted there.
	 */
	if ((bytes = blob_bytes(db, blob)) == -1)
		goto fail;
	if (*resume == 0 || gen < 0) {
		*resume = 0;
		if ((gen = ix_gen_take(db, blob, (uint64_t)bytes)) == -1)
			goto fail;
	}
	if (ix_prep(db, "INSERT OR REPLACE INTO ix_blob(blob, state, next_seq,"
	    " owner, heartbeat, id, tokver, gen, bytes) VALUES(?1, 0, ?2, ?3,"
	    " ?4, ?5, ?6, ?7, ?8)", &s) == -1)
		goto fail;
	sqlite3_bind_int64(s, 1, blob);
	sqlite3_bind_int64(s, 2, *resume);
	sqlite3_bind_int64(s, 3, (int64_t)getpid());
	sqlite3_bind_int64(s, 4, ofl_now_ms());
	sqlite3_bind_text(s, 5, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 6, OFL_TOK_VERSION);
	sqlite3_bind_int64(s, 7, gen);
	sqlite3_bind_int64(s, 8, bytes);
	if (sqlite3_step(s) != SQLITE_DONE) {
		ix_err(db, "index state");
		goto fail;
	}
done:
	sqlite3_finalize(s);
	if (ix_exec(db, "COMMIT", "database") == -1) {
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
write_check(sqlite3 *db, int64_t blob, const char *id, int64_t *gen)
{
	sqlite3_stmt	*s;
	int		 rc;

	if ((rc = blob_live(db, blob)) != 1) {
		if (rc == 0)
			ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact "
			    "(removed while it was indexed)", id);
		return -1;
	}
	if (ix_prep(db, "SELECT gen FROM ix_blob WHERE blob = ?1 AND"
	    " state = 0 AND owner = ?2", &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, blob);
	sqlite3_bind_int64(s, 2, (int64_t)getpid());
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*gen = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		ofl_seterr(OFL_EXIT_FAIL, "%s: its index is being dropped or "
		    "made by another process", id);
	else
		ix_err(db, "indexing");
	return -1;
}

static int
write_rows(sqlite3 *db, int64_t blob, int64_t gen,
    const struct ofl_fts_chunk *c, size_t n)
{
	sqlite3_stmt	*ins_fts = NULL, *ins_chunk = NULL;
	const struct ofl_fts_chunk *p;
	size_t		 i;
	int		 ret = -1;
	char		 name[32], sql[128];

	ix_gen_name(gen, name, sizeof name);
	snprintf(sql, sizeof sql, "INSERT INTO %s(rowid, title, body)"
	    " VALUES(?1, ?2, ?3)", name);
	if (ix_prep(db, sql, &ins_fts) == -1 ||
	    ix_prep(db, "INSERT OR REPLACE INTO ix_chunk(id, member, title,"
	    " byte_start, byte_end, line_start, line_end) VALUES(?1, ?2, ?3,"
	    " ?4, ?5, ?6, ?7)", &ins_chunk) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		p = &c[i];
		sqlite3_bind_int64(ins_fts, 1, ix_rowid(blob, p->seq));
		sqlite3_bind_text(ins_fts, 2, p->title, (int)p->title_len,
		    SQLITE_STATIC);
		sqlite3_bind_text(ins_fts, 3, p->len > 0 ? p->text : "",
		    (int)p->len, SQLITE_STATIC);
		if (sqlite3_step(ins_fts) != SQLITE_DONE) {
			ix_err(db, "indexing");
			goto out;
		}
		sqlite3_reset(ins_fts);
		sqlite3_bind_int64(ins_chunk, 1, ix_rowid(blob, p->seq));
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
			ix_err(db, "indexing");
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

#ifdef HAVE_LIBPQ
/* The PostgreSQL engine's, with the index's tokenizer for the postings. */
static int
pg_write(struct ofl_store *st, int64_t blob, const char *id,
    const struct ofl_fts_chunk *c, size_t n, int64_t next_seq, int last,
    int truncated, uint64_t bytes)
{
	struct ofl_tok	*tk;
	int		 rc;

	if ((tk = ofl_store_fts_tok(st)) == NULL)
		return -1;
	rc = store_pg_fts_write(st, tk, blob, id, c, n, next_seq, last,
	    truncated, bytes);
	ofl_tok_free(tk);
	return rc;
}
#endif

int
ofl_store_fts_write(struct ofl_store *st, int64_t blob, const char *id,
    const struct ofl_fts_chunk *c, size_t n, int64_t next_seq, int last,
    int truncated, uint64_t bytes)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*upd = NULL;
	int64_t		 gen = 0;

	STORE_PG(st, pg_write(st, blob, id, c, n, next_seq, last, truncated,
	    bytes));
	if (ix_exec(db, "BEGIN IMMEDIATE", "database") == -1)
		return -1;
	if (write_check(db, blob, id, &gen) == -1 ||
	    ix_prep(db, "UPDATE ix_blob SET next_seq = ?2, heartbeat = ?3,"
	    " state = ?4, truncated = ?5, finished = ?6, bytes = ?7"
	    " WHERE blob = ?1", &upd) == -1 ||
	    write_rows(db, blob, gen, c, n) == -1)
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
		ix_err(db, "indexing");
		goto fail;
	}
	sqlite3_finalize(upd);
	upd = NULL;
	/* Indexed in full: the frames' sketches have served. */
	if (last && store_sketch_drop(db, blob) == -1) {
		ix_err(db, "indexing");
		goto fail;
	}
	if (ix_exec(db, "COMMIT", "database") == -1) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
fail:
	sqlite3_finalize(upd);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* The generations closed full, merged (ix_gen_merge()); best effort. */
void
ofl_store_fts_merge(struct ofl_store *st, int64_t max_ms)
{
	int64_t	 end = ofl_now_ms() + max_ms;

	STORE_PG_VOID(st, (void)0);	/* no generations there */
	if (store_ix_attach(st, 0) > 0)
		ix_gen_merge(ofl_store_db(st), end);
}

/*
 * Forgetting: a blob's rows are buried in their generation (store-gen.c)
 * and its chunk rows and state deleted, in the caller's transaction.
 */

int
ofl_store_fts_forget(struct ofl_store *st, int64_t blob)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int		 rc, have, gens, holes;

	STORE_PG(st, store_pg_fts_forget(st, blob));
	if ((rc = store_ix_attach(st, 0)) <= 0)
		return rc;	/* no index, or an error said */
	/* Two statements, as store_stmt() keeps one per literal. */
	if (store_stmt(db, strcmp(ix_sch(db), "ix") == 0 ?
	    "SELECT count(*), sum(name = 'ix_gen'), sum(name = 'ix_hole') FROM"
	    " ix.sqlite_master WHERE name IN ('ix_blob', 'ix_gen', 'ix_hole')" :
	    "SELECT count(*), sum(name = 'ix_gen'), sum(name = 'ix_hole') FROM"
	    " main.sqlite_master WHERE name IN ('ix_blob', 'ix_gen',"
	    " 'ix_hole')", &s) == -1)
		return ix_err(db, "database");
	have = gens = holes = 0;
	if (sqlite3_step(s) == SQLITE_ROW) {
		have = sqlite3_column_int(s, 0) > 0;
		gens = sqlite3_column_int(s, 1) > 0;
		holes = sqlite3_column_int(s, 2) > 0;
	}
	store_stmt_done(s);
	if (!have)
		return 0;
	/* An index older than generations: its rows are left unreachable. */
	if (gens && ix_gen_bury(db, blob) == -1)
		return -1;
	if (store_stmt(db, "DELETE FROM ix_chunk WHERE id BETWEEN ?1 AND ?2",
	    &s) == -1)
		return ix_err(db, "database");
	sqlite3_bind_int64(s, 1, ix_rowid(blob, 0));
	sqlite3_bind_int64(s, 2, ix_rowid(blob, CHUNK_MAX - 1));
	rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		return ix_err(db, "dropping");
	if (store_stmt(db, "DELETE FROM ix_blob WHERE blob = ?1", &s) == -1)
		return ix_err(db, "database");
	sqlite3_bind_int64(s, 1, blob);
	rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		return ix_err(db, "dropping");
	/* Its artifacts below the mark are not indexed now: holes. */
	if (!holes)
		return 0;
	if (store_stmt(db, "INSERT OR IGNORE INTO ix_hole(seq) SELECT seq FROM"
	    " artifact WHERE blob = ?1 AND seq <= (SELECT seq FROM ix_mark)",
	    &s) == -1)
		return ix_err(db, "database");
	sqlite3_bind_int64(s, 1, blob);
	rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		return ix_err(db, "dropping");
	return 0;
}

int
ofl_store_fts_forget_tx(struct ofl_store *st, int64_t blob)
{
	sqlite3	*db = ofl_store_db(st);

	/* One statement there: a transaction of its own. */
	STORE_PG(st, store_pg_fts_forget(st, blob));
	if (ix_exec(db, "BEGIN IMMEDIATE", "database") == -1)
		return -1;
	if (ofl_store_fts_forget(st, blob) == -1 ||
	    ix_exec(db, "COMMIT", "database") == -1) {
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
	struct ix_gen	*g;
	size_t		 ng, i;
	int64_t		 chunks = -1, docs = 0, orphans = -1, n;
	int		 problems = 0;
	char		 name[32], sql[128];

	STORE_PG(st, store_pg_fts_check(st, report));
	if (ofl_store_fts_init(st) == -1)
		return -1;
	if (ix_gen_list(db, 0, &g, &ng) == -1)
		return -1;
	for (i = 0; i < ng; i++) {
		ix_gen_name(g[i].gen, name, sizeof name);
		snprintf(sql, sizeof sql, "INSERT INTO %s(%s)"
		    " VALUES('integrity-check')", name, name);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
			ofl_buf_addf(report, "full-text index: %s\n",
			    sqlite3_errmsg(db));
			problems++;
		}
		if ((n = ix_gen_rows(db, g[i].gen, 0)) == -1) {
			free(g);
			return -1;
		}
		docs += n;
	}
	free(g);
	if (ix_prep(db, "SELECT (SELECT count(*) FROM ix_chunk),"
	    " (SELECT count(*) FROM ix_chunk c WHERE NOT EXISTS"
	    " (SELECT 1 FROM ix_blob b WHERE b.blob = c.id >> 24))", &s) == -1)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW) {
		chunks = sqlite3_column_int64(s, 0);
		orphans = sqlite3_column_int64(s, 1);
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
