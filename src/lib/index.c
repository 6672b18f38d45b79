/*
 * index.c: the full-text index of artifacts.
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
 * query to an artifact cheaply.
 *
 * The text is not kept twice: FTS5 keeps only the index, and snippets are
 * cut from the artifact itself through a reader.  To remove a blob's rows
 * (FTS5 'delete' needs the indexed values) the chunker runs again over the
 * content, which gives the same chunks.  That is slow for a large blob, so
 * it is done in short transactions, a batch of chunks each, with the blob
 * marked as being dropped (ix_blob.state 2) so that searches leave it
 * alone and an indexer still at it stops; a chunk's FTS row and its
 * ix_chunk row always go together, so a drop cut short resumes.  Every
 * write re-checks, inside its transaction, that the blob is still there
 * and still its writer's: a gc that removes an artifact while it is
 * indexed leaves no rows behind.
 *
 * The tokenizer "ofl" wraps porter (over unicode61, diacritics removed)
 * and adds, at the position of the first word of an identifier, path or
 * id made of several words ("src/foo.c", "blk_-160899", "dfs.DataNode"),
 * the whole of it as a colocated token.  A query can ask for that token
 * exactly by starting its string with OFL_TOK_EXACT.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ofl.h"
#include "banned.h"

#define CHUNK_BITS	24
#define CHUNK_MAX	((int64_t)1 << CHUNK_BITS)
#define BLOB_MAX	((int64_t)1 << (62 - CHUNK_BITS))
#define BATCH_BYTES	(8 * 1024 * 1024)
#define BATCH_CHUNKS	4096
#define BATCH_MS	2000
#define DROP_BYTES	(1024 * 1024)	/* a batch of chunks to drop */
#define DROP_CHUNKS	512
#define DROP_MS		300
#define STALE_MS	30000		/* an indexer silent so long is dead */
#define COMPOUND_MAX	64		/* longest identifier token */
#define TOK_VERSION	1		/* bump when the tokens change */
#define TOK_PLAIN	0x100		/* words only: no identifiers */
#define RANK_PHRASES	64		/* phrases ranked */
#define RANK_K1		1.2
#define RANK_CHEAP	4000		/* rows matched: count columns only */
#define SUGGEST_SCAN	(32 * 1024 * 1024)	/* bytes from head and tail */
#define SUGGEST_TERMS	(4 * 1024 * 1024)	/* bytes scanned for terms */
#define SUGGEST_SIGS	5
#define SUGGEST_WORDS	8
#define HMAP_MAX	(256 * 1024)		/* distinct keys kept */
#define SIG_MAX		120			/* bytes of a signature */

/* The wrapped tokenizer. */
struct otok {
	fts5_tokenizer	 m;
	Fts5Tokenizer	*inner;
};

/* State of one xTokenize call. */
struct otok_run {
	void		*ctx;
	int		(*xtoken)(void *, int, const char *, int, int, int);
	const char	*text;
	int		 len;
	int		 run_end;	/* end of the current identifier */
	int		 doc;		/* emit identifier tokens */
	char		 buf[COMPOUND_MAX];
};

struct ofl_tok {
	struct otok	*t;
	fts5_api	*api;
};

/* One chunk waiting to be written. */
struct pending {
	int64_t		 rowid;
	size_t		 member;	/* offsets into the batch buffer */
	size_t		 title;
	size_t		 title_len;
	size_t		 text;
	size_t		 len;
	int		 has_member;
	uint64_t	 byte_start;
	uint64_t	 byte_end;
	uint64_t	 line_start;
	uint64_t	 line_end;
};

struct indexer {
	struct ofl_store	*st;
	sqlite3			*db;
	const char		*id;
	int64_t			 blob;
	int64_t			 seq;
	int64_t			 resume;
	uint64_t		 total;
	struct ofl_buf		 data;
	struct pending		*p;
	size_t			 np;
	size_t			 cap;
	int64_t			 last_flush;
	int			 failed;
	int			 truncated;
	void			(*progress)(uint64_t, uint64_t, void *);
	void			*arg;
	struct ofl_index_stats	*stats;
};

/* Dropping: the chunks to delete from the FTS table, a batch at a time. */
struct dropper {
	sqlite3		*db;
	int64_t		 blob;
	int64_t		 seq;
	int64_t		 nseq;
	struct ofl_buf	 data;
	struct dpend {
		int64_t	 seq;
		size_t	 title;
		size_t	 title_len;
		size_t	 text;
		size_t	 len;
	}		*p;
	size_t		 np;
	size_t		 cap;
	int64_t		 last_flush;
	int		 failed;
	int		 lost;		/* another process took the drop over */
};

static int	 otok_create(void *, const char **, int, Fts5Tokenizer **);
static void	 otok_delete(Fts5Tokenizer *);
static int	 otok_tokenize(Fts5Tokenizer *, void *, int, const char *,
		    int, int (*)(void *, int, const char *, int, int, int));
static int	 otok_token(void *, int, const char *, int, int, int);
static int	 rank_count(const Fts5ExtensionApi *, Fts5Context *, void *);
static void	 rank_func(const Fts5ExtensionApi *, Fts5Context *,
		    sqlite3_context *, int, sqlite3_value **);
static int	 compound_char(int);
static int	 compound_sep(int);
static int	 compound_end(const char *, int, int, int *);
static fts5_api	*fts5_get(sqlite3 *);
static int	 tok_register(sqlite3 *);
static int	 db_err(sqlite3 *, const char *);
static int	 db_exec(sqlite3 *, const char *);
static int	 prep(sqlite3 *, const char *, sqlite3_stmt **);
static int	 claim(struct ofl_store *, sqlite3 *, int64_t, const char *,
		    int64_t *);
static int	 owner_alive(int64_t);
static int	 index_chunk(const struct ofl_chunk *, void *);
static int	 flush(struct indexer *, int);
static int	 drop_chunk(const struct ofl_chunk *, void *);
static int	 drop_flush(struct dropper *);
static int	 blob_live(sqlite3 *, int64_t);
static int	 find_artifact(struct ofl_store *, int64_t, const char *,
		    char [OFL_ID_MAX + 1]);
static int	 find_cb(const struct ofl_meta *, void *);
static ssize_t	 read_some(int, struct ofl_buf *, size_t);

struct hent {
	char		*key;
	size_t		 klen;
	uint64_t	 count;
	uint64_t	 first;		/* the line it was first seen on */
	char		*surface;
	double		 score;
};

struct hmap {
	struct hent	*v;
	size_t		 cap;
	size_t		 n;
};

struct termscan {
	struct hmap	*h;
	const char	*text;
};

static uint64_t		 hash_bytes(const char *, size_t);
static struct hent	*hmap_get(struct hmap *, const char *, size_t, int);
static void		 hmap_free(struct hmap *);
static int		 hent_cmp(const void *, const void *);
static void		 mask_line(struct ofl_buf *, const char *, size_t);
static int		 is_error_line(const char *, size_t, uint64_t);
static void		 scan_sigs(struct hmap *, const char *, size_t,
			    uint64_t);
static int		 term_cb(void *, int, const char *, int, int, int);
static int		 stopword(const char *, size_t);
static int		 read_range(struct ofl_reader *, uint64_t, size_t,
			    struct ofl_buf *);

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

/* The tokenizer. */

static int
otok_create(void *ctx, const char **argv, int argc, Fts5Tokenizer **out)
{
	static const char	*args[] = { "unicode61", "remove_diacritics",
				    "2" };
	fts5_api		*api = ctx;
	struct otok		*t;
	void			*ud;
	int			 rc;

	if ((t = sqlite3_malloc(sizeof *t)) == NULL)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof *t);
	rc = api->xFindTokenizer(api, "porter", &ud, &t->m);
	if (rc == SQLITE_OK)
		rc = t->m.xCreate(ud, args, 3, &t->inner);
	if (rc != SQLITE_OK) {
		sqlite3_free(t);
		return rc;
	}
	*out = (Fts5Tokenizer *)t;
	return SQLITE_OK;
}

static void
otok_delete(Fts5Tokenizer *p)
{
	struct otok	*t = (struct otok *)p;

	if (t == NULL)
		return;
	if (t->inner != NULL)
		t->m.xDelete(t->inner);
	sqlite3_free(t);
}

/* Bytes an identifier is made of: ASCII letters and digits, UTF-8. */
static int
compound_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c >= 0x80 || compound_sep(c);
}

/* Punctuation that joins the words of an identifier, path or id. */
static int
compound_sep(int c)
{
	return c == '_' || c == '-' || c == '.' || c == '/' || c == ':' ||
	    c == '@' || c == '$' || c == '#' || c == '\\' || c == '~';
}

/*
 * The end of the identifier that starts at text[start], trailing
 * punctuation dropped.  Sets *keep when it is worth a token of its own:
 * several words joined by punctuation, with a letter in it.
 */
static int
compound_end(const char *text, int len, int start, int *keep)
{
	const unsigned char	*s = (const unsigned char *)text;
	int			 i, scan, end, seps = 0, word = 0, run = 0;
	int			 other = 0;

	for (scan = start; scan < len && compound_char(s[scan]); scan++)
		;
	end = scan;
	while (end > start && compound_sep(s[end - 1]))
		end--;
	/* A word: a part between separators made of two letters or more. */
	for (i = start; i <= end; i++) {
		if (i == end || compound_sep(s[i])) {
			if (run >= 2 && !other)
				word = 1;
			if (i < end)
				seps++;
			run = other = 0;
		} else if ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')
			run++;
		else
			other = 1;
	}
	*keep = seps > 0 && word && end - start <= COMPOUND_MAX;
	/* Skip what follows too, so its words do not start a new one. */
	return scan;
}

static int
otok_token(void *p, int flags, const char *tok, int n, int start, int end)
{
	struct otok_run	*r = p;
	int		 rc, e, keep, k, i;

	rc = r->xtoken(r->ctx, flags, tok, n, start, end);
	if (rc != SQLITE_OK || !r->doc || start < r->run_end)
		return rc;
	r->run_end = compound_end(r->text, r->len, start, &keep);
	if (!keep)
		return SQLITE_OK;
	/* The identifier without its trailing punctuation, lowercased. */
	for (e = r->run_end; e > start &&
	    compound_sep((unsigned char)r->text[e - 1]); e--)
		;
	k = e - start;
	for (i = 0; i < k; i++) {
		int c = (unsigned char)r->text[start + i];

		r->buf[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	return r->xtoken(r->ctx, FTS5_TOKEN_COLOCATED, r->buf, k, start, e);
}

static int
otok_tokenize(Fts5Tokenizer *p, void *ctx, int flags, const char *text,
    int len, int (*xtoken)(void *, int, const char *, int, int, int))
{
	struct otok	*t = (struct otok *)p;
	struct otok_run	 r;
	char		 buf[COMPOUND_MAX];
	int		 i, k;

	if ((flags & FTS5_TOKENIZE_QUERY) && !(flags & TOK_PLAIN) &&
	    len > 0 && text[0] == OFL_TOK_EXACT) {
		/* An identifier asked for exactly, as the documents have it. */
		k = 0;
		for (i = 1; i < len && k < COMPOUND_MAX; i++) {
			int c = (unsigned char)text[i];

			buf[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
		}
		if (k == 0)
			return SQLITE_OK;
		return xtoken(ctx, 0, buf, k, 0, len);
	}
	memset(&r, 0, sizeof r);
	r.ctx = ctx;
	r.xtoken = xtoken;
	r.text = text;
	r.len = len;
	r.doc = (flags & (FTS5_TOKENIZE_QUERY | TOK_PLAIN)) == 0;
	return t->m.xTokenize(t->inner, &r, flags & ~TOK_PLAIN, text, len,
	    otok_token);
}

/* Ranking. */

static int
rank_count(const Fts5ExtensionApi *api, Fts5Context *fts, void *arg)
{
	(*(sqlite3_int64 *)arg)++;
	return SQLITE_OK;
}

/*
 * oflrank(w0, w1, ...): BM25 without length normalization (b = 0), each
 * column's matches weighted by its argument.  Chunks are of similar
 * sizes, and leaving the lengths out spares a lookup per matching row.
 * When the phrases match many rows, a phrase counts once per column it
 * occurs in, not once per occurrence: far cheaper, and term frequency
 * saturates quickly anyway.
 */
struct rank_aux {
	int	cheap;
	double	idf[RANK_PHRASES];
};

static void
rank_func(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
    int nval, sqlite3_value **val)
{
	struct rank_aux	*ra;
	Fts5PhraseIter	 it;
	double		 tf[RANK_PHRASES], score = 0.0, w;
	sqlite3_int64	 nrow = 0, nhit, total = 0;
	int		 nphrase, ninst, i, ph, col, off;

	nphrase = api->xPhraseCount(fts);
	if (nphrase > RANK_PHRASES)
		nphrase = RANK_PHRASES;
	if ((ra = api->xGetAuxdata(fts, 0)) == NULL) {
		if ((ra = sqlite3_malloc64(sizeof *ra)) == NULL) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		if (api->xRowCount(fts, &nrow) != SQLITE_OK)
			nrow = 1;
		for (i = 0; i < nphrase; i++) {
			nhit = 0;
			if (api->xQueryPhrase(fts, i, &nhit, rank_count) !=
			    SQLITE_OK)
				nhit = 0;
			total += nhit;
			ra->idf[i] = log(((double)nrow - (double)nhit + 0.5) /
			    ((double)nhit + 0.5));
			if (ra->idf[i] <= 0.0)
				ra->idf[i] = 1e-6;
		}
		ra->cheap = total > RANK_CHEAP;
		if (api->xSetAuxdata(fts, ra, sqlite3_free) != SQLITE_OK) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
	}
	for (i = 0; i < nphrase; i++)
		tf[i] = 0.0;
	if (ra->cheap) {
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
		score += ra->idf[i] * tf[i] * (RANK_K1 + 1.0) /
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
	    api->xCreateFunction(api, "oflrank", NULL, rank_func, NULL) !=
	    SQLITE_OK)
		return db_err(db, "cannot register the tokenizer");
	return 0;
}

struct ofl_tok *
ofl_tok_new(struct ofl_store *st)
{
	sqlite3		*db = ofl_store_db(st);
	struct ofl_tok	*tk;
	Fts5Tokenizer	*t;

	if (tok_register(db) == -1)
		return NULL;
	tk = ofl_xcalloc(1, sizeof *tk);
	if ((tk->api = fts5_get(db)) == NULL ||
	    otok_create(tk->api, NULL, 0, &t) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search index: cannot create the "
		    "tokenizer");
		free(tk);
		return NULL;
	}
	tk->t = (struct otok *)t;
	return tk;
}

void
ofl_tok_free(struct ofl_tok *tk)
{
	if (tk == NULL)
		return;
	otok_delete((Fts5Tokenizer *)tk->t);
	free(tk);
}

int
ofl_tok_run(struct ofl_tok *tk, int query, const char *text, size_t len,
    int (*cb)(void *, int, const char *, int, int, int), void *arg)
{
	if (len > INT32_MAX)
		len = INT32_MAX;
	static const int	flags[] = { FTS5_TOKENIZE_DOCUMENT,
				    FTS5_TOKENIZE_QUERY,
				    FTS5_TOKENIZE_DOCUMENT | TOK_PLAIN };

	if (query < 0 || query > 2)
		query = 2;
	if (otok_tokenize((Fts5Tokenizer *)tk->t, arg, flags[query], text,
	    (int)len, cb) != SQLITE_OK)
		return -1;
	return 0;
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

int
ofl_index_init(struct ofl_store *st)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int		 have = 0;

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

int64_t
ofl_index_rowid(int64_t blob, int64_t seq)
{
	return blob << CHUNK_BITS | seq;
}

int64_t
ofl_index_rowid_blob(int64_t rowid)
{
	return rowid >> CHUNK_BITS;
}

int
ofl_index_state(struct ofl_store *st, int64_t blob)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int		 rc, state = 0;

	if (ofl_index_init(st) == -1)
		return -1;
	if (prep(db, "SELECT state, tokver FROM ix_blob WHERE blob = ?1",
	    &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, blob);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		state = sqlite3_column_int(s, 0) == 1 &&
		    sqlite3_column_int(s, 1) == TOK_VERSION;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(db, "index state");
	return state;
}

/* Indexing. */

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

/*
 * Take the job of indexing blob: 1 if it is indexed already, 0 if it is
 * ours now (*resume: chunks committed before), 2 if another live process
 * is indexing it or dropping its rows.
 */
static int
claim(struct ofl_store *st, sqlite3 *db, int64_t blob, const char *id,
    int64_t *resume)
{
	sqlite3_stmt	*s = NULL;
	int64_t		 now = ofl_now_ms(), owner, beat;
	int		 rc, state, tokver, ret, live;

	*resume = 0;
	if (db_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	/* A gc may have removed it since it was looked up. */
	if ((live = blob_live(db, blob)) != 1) {
		if (live == 0)
			ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
		goto fail;
	}
	if (prep(db, "SELECT state, owner, heartbeat, next_seq, tokver"
	    " FROM ix_blob WHERE blob = ?1", &s) == -1)
		goto fail;
	sqlite3_bind_int64(s, 1, blob);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		state = sqlite3_column_int(s, 0);
		owner = sqlite3_column_int64(s, 1);
		beat = sqlite3_column_int64(s, 2);
		tokver = sqlite3_column_int(s, 4);
		if (state == 1 && tokver == TOK_VERSION) {
			ret = 1;
			goto done;
		}
		if (state != 1 && owner != (int64_t)getpid() &&
		    owner_alive(owner) && now - beat < STALE_MS) {
			ret = 2;
			goto done;
		}
		if (state == 0 && tokver == TOK_VERSION)
			*resume = sqlite3_column_int64(s, 3);
		else if (state != 0) {
			/*
			 * Made by another tokenizer, or a drop left half
			 * done: finish dropping, start over.
			 */
			sqlite3_finalize(s);
			s = NULL;
			if (db_exec(db, "COMMIT") == -1)
				return -1;
			if (ofl_index_drop(st, blob) == -1)
				return -1;
			return claim(st, db, blob, id, resume);
		}
	} else if (rc != SQLITE_DONE) {
		db_err(db, "index state");
		goto fail;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (prep(db, "INSERT OR REPLACE INTO ix_blob(blob, state, next_seq,"
	    " owner, heartbeat, id, tokver) VALUES(?1, 0, ?2, ?3, ?4, ?5, ?6)",
	    &s) == -1)
		goto fail;
	sqlite3_bind_int64(s, 1, blob);
	sqlite3_bind_int64(s, 2, *resume);
	sqlite3_bind_int64(s, 3, (int64_t)getpid());
	sqlite3_bind_int64(s, 4, now);
	sqlite3_bind_text(s, 5, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 6, TOK_VERSION);
	if (sqlite3_step(s) != SQLITE_DONE) {
		db_err(db, "index state");
		goto fail;
	}
	ret = 0;
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

static int
index_chunk(const struct ofl_chunk *c, void *arg)
{
	struct indexer	*ix = arg;
	struct pending	*p;
	int64_t		 seq = ix->seq++;

	if (seq < ix->resume)
		return 0;
	if (seq >= CHUNK_MAX) {
		ix->truncated = 1;
		return 1;
	}
	if (ix->np == ix->cap) {
		ix->cap = ix->cap == 0 ? 256 : ix->cap * 2;
		ix->p = ofl_xrealloc(ix->p, ix->cap * sizeof *ix->p);
	}
	p = &ix->p[ix->np++];
	memset(p, 0, sizeof *p);
	p->rowid = ofl_index_rowid(ix->blob, seq);
	if (c->member != NULL) {
		p->has_member = 1;
		p->member = ix->data.len;
		ofl_buf_adds(&ix->data, c->member);
		ofl_buf_addc(&ix->data, '\0');
	}
	p->title = ix->data.len;
	p->title_len = c->title != NULL ? c->title_len : 0;
	if (p->title_len > 0)
		ofl_buf_add(&ix->data, c->title, c->title_len);
	p->text = ix->data.len;
	p->len = c->len;
	if (c->len > 0)
		ofl_buf_add(&ix->data, c->text, c->len);
	p->byte_start = c->byte_start;
	p->byte_end = c->byte_end;
	p->line_start = c->line_start;
	p->line_end = c->line_end;
	ix->stats->chunks++;
	ix->stats->bytes += c->len;
	if (ix->data.len >= BATCH_BYTES || ix->np >= BATCH_CHUNKS ||
	    ofl_now_ms() - ix->last_flush >= BATCH_MS) {
		if (flush(ix, 0) == -1) {
			ix->failed = 1;
			return 1;
		}
		if (ix->progress != NULL && c->member == NULL)
			ix->progress(c->byte_end, ix->total, ix->arg);
	}
	return 0;
}

/* Write the pending chunks in one transaction; last: mark the blob done. */
static int
flush(struct indexer *ix, int last)
{
	sqlite3		*db = ix->db;
	sqlite3_stmt	*ins_fts = NULL, *ins_chunk = NULL, *upd = NULL;
	struct pending	*p;
	const char	*d;
	size_t		 i;
	int		 rc;

	if (db_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	/*
	 * Write only while the blob is there and the job still ours: a gc
	 * may have removed the artifact, or be dropping the blob's rows,
	 * since the last batch.  Rows written then would outlive it.
	 */
	if ((rc = blob_live(db, ix->blob)) != 1) {
		if (rc == 0)
			ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact "
			    "(removed while it was indexed)", ix->id);
		goto fail;
	}
	if (prep(db, "SELECT 1 FROM ix_blob WHERE blob = ?1 AND state = 0"
	    " AND owner = ?2", &upd) == -1)
		goto fail;
	sqlite3_bind_int64(upd, 1, ix->blob);
	sqlite3_bind_int64(upd, 2, (int64_t)getpid());
	rc = sqlite3_step(upd);
	sqlite3_finalize(upd);
	upd = NULL;
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			ofl_seterr(OFL_EXIT_FAIL, "%s: its index is being "
			    "dropped or made by another process", ix->id);
		else
			db_err(db, "indexing");
		goto fail;
	}
	if (prep(db, "INSERT INTO ix_fts(rowid, title, body) VALUES(?1, ?2,"
	    " ?3)", &ins_fts) == -1 ||
	    prep(db, "INSERT OR REPLACE INTO ix_chunk(id, member, title,"
	    " byte_start, byte_end, line_start, line_end) VALUES(?1, ?2, ?3,"
	    " ?4, ?5, ?6, ?7)", &ins_chunk) == -1 ||
	    prep(db, "UPDATE ix_blob SET next_seq = ?2, heartbeat = ?3,"
	    " state = ?4, truncated = ?5, finished = ?6, bytes = ?7"
	    " WHERE blob = ?1", &upd) == -1)
		goto fail;
	d = ix->data.data;
	for (i = 0; i < ix->np; i++) {
		p = &ix->p[i];
		sqlite3_bind_int64(ins_fts, 1, p->rowid);
		sqlite3_bind_text(ins_fts, 2, d + p->title, (int)p->title_len,
		    SQLITE_STATIC);
		sqlite3_bind_text(ins_fts, 3, p->len > 0 ? d + p->text : "",
		    (int)p->len, SQLITE_STATIC);
		if (sqlite3_step(ins_fts) != SQLITE_DONE) {
			db_err(db, "indexing");
			goto fail;
		}
		sqlite3_reset(ins_fts);
		sqlite3_bind_int64(ins_chunk, 1, p->rowid);
		if (p->has_member)
			sqlite3_bind_text(ins_chunk, 2, d + p->member, -1,
			    SQLITE_STATIC);
		else
			sqlite3_bind_null(ins_chunk, 2);
		if (p->title_len > 0)
			sqlite3_bind_text(ins_chunk, 3, d + p->title,
			    (int)p->title_len, SQLITE_STATIC);
		else
			sqlite3_bind_null(ins_chunk, 3);
		sqlite3_bind_int64(ins_chunk, 4, (int64_t)p->byte_start);
		sqlite3_bind_int64(ins_chunk, 5, (int64_t)p->byte_end);
		sqlite3_bind_int64(ins_chunk, 6, (int64_t)p->line_start);
		sqlite3_bind_int64(ins_chunk, 7, (int64_t)p->line_end);
		if (sqlite3_step(ins_chunk) != SQLITE_DONE) {
			db_err(db, "indexing");
			goto fail;
		}
		sqlite3_reset(ins_chunk);
	}
	sqlite3_bind_int64(upd, 1, ix->blob);
	sqlite3_bind_int64(upd, 2, ix->seq > CHUNK_MAX ? CHUNK_MAX : ix->seq);
	sqlite3_bind_int64(upd, 3, ofl_now_ms());
	sqlite3_bind_int(upd, 4, last ? 1 : 0);
	sqlite3_bind_int(upd, 5, ix->truncated);
	if (last)
		sqlite3_bind_int64(upd, 6, ofl_now_ms());
	else
		sqlite3_bind_null(upd, 6);
	sqlite3_bind_int64(upd, 7, (int64_t)ix->total);
	if (sqlite3_step(upd) != SQLITE_DONE) {
		db_err(db, "indexing");
		goto fail;
	}
	sqlite3_finalize(ins_fts);
	sqlite3_finalize(ins_chunk);
	sqlite3_finalize(upd);
	if (db_exec(db, "COMMIT") == -1) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	ix->np = 0;
	ofl_buf_reset(&ix->data);
	ix->last_flush = ofl_now_ms();
	return 0;
fail:
	sqlite3_finalize(ins_fts);
	sqlite3_finalize(ins_chunk);
	sqlite3_finalize(upd);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int
ofl_index_artifact(struct ofl_store *st, const char *id,
    void (*progress)(uint64_t, uint64_t, void *), void *arg,
    struct ofl_index_stats *stats)
{
	struct ofl_index_stats	 dummy;
	struct indexer		 ix;
	struct ofl_meta		 m;
	struct ofl_reader	*r = NULL;
	sqlite3			*db = ofl_store_db(st);
	int64_t			 blob;
	struct timespec		 ts = { 0, 100 * 1000 * 1000 };
	int			 rc, ret = -1;

	if (stats == NULL)
		stats = &dummy;
	memset(stats, 0, sizeof *stats);
	if (ofl_store_meta(st, id, &m) == -1)
		return -1;
	if (m.state != OFL_STATE_COMPLETE) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: still being written; index "
		    "it when it is complete", id);
		ofl_meta_free(&m);
		return -1;
	}
	if ((blob = ofl_store_blob(st, id)) < 0) {
		ofl_meta_free(&m);
		return -1;
	}
	if (blob >= BLOB_MAX) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: blob number too large for "
		    "the index", id);
		ofl_meta_free(&m);
		return -1;
	}
	if (ofl_index_init(st) == -1) {
		ofl_meta_free(&m);
		return -1;
	}
	memset(&ix, 0, sizeof ix);
	for (;;) {
		rc = claim(st, db, blob, id, &ix.resume);
		if (rc == -1)
			goto out;
		if (rc == 1) {
			stats->cached = 1;
			ret = 0;
			goto out;
		}
		if (rc == 0)
			break;
		/* Another process is at it: wait for it to finish. */
		nanosleep(&ts, NULL);
	}
	if ((r = ofl_reader_open(st, id)) == NULL)
		goto out;
	ix.st = st;
	ix.db = db;
	ix.id = id;
	ix.blob = blob;
	ix.total = m.bytes;
	ix.progress = progress;
	ix.arg = arg;
	ix.stats = stats;
	ix.last_flush = ofl_now_ms();
	ofl_buf_init(&ix.data);
	rc = ofl_chunk_artifact(r, m.kind, index_chunk, &ix);
	if (rc < 0 && !ix.failed && !ix.truncated)
		ix.failed = 1;
	if (!ix.failed && flush(&ix, 1) == 0) {
		ret = 0;
		stats->truncated = ix.truncated;
		if (progress != NULL)
			progress(m.bytes, m.bytes, arg);
	}
	ofl_buf_free(&ix.data);
	free(ix.p);
out:
	ofl_reader_close(r);
	ofl_meta_free(&m);
	return ret;
}

/* Dropping. */

struct finder {
	struct ofl_store	*st;
	int64_t			 blob;
	char			*id;
	int			 found;
};

static int
find_cb(const struct ofl_meta *m, void *arg)
{
	struct finder	*f = arg;

	if (m->state != OFL_STATE_COMPLETE ||
	    ofl_store_blob(f->st, m->id) != f->blob)
		return 0;
	snprintf(f->id, OFL_ID_MAX + 1, "%s", m->id);
	f->found = 1;
	return 1;
}

/* An artifact whose content is blob, to read it through. */
static int
find_artifact(struct ofl_store *st, int64_t blob, const char *hint,
    char id[OFL_ID_MAX + 1])
{
	struct ofl_filter	f;
	struct finder		fd;

	if (hint != NULL && ofl_store_blob(st, hint) == blob) {
		snprintf(id, OFL_ID_MAX + 1, "%s", hint);
		return 0;
	}
	ofl_filter_init(&f);
	memset(&fd, 0, sizeof fd);
	fd.st = st;
	fd.blob = blob;
	fd.id = id;
	if (ofl_store_list(st, &f, find_cb, &fd) == -1)
		return -1;
	return fd.found ? 0 : 1;
}

static int
drop_chunk(const struct ofl_chunk *c, void *arg)
{
	struct dropper	*d = arg;
	struct dpend	*p;
	int64_t		 seq = d->seq++;

	if (seq >= d->nseq)
		return 1;
	if (d->np == d->cap) {
		d->cap = d->cap == 0 ? 256 : d->cap * 2;
		d->p = ofl_xrealloc(d->p, d->cap * sizeof *d->p);
	}
	p = &d->p[d->np++];
	p->seq = seq;
	p->title = d->data.len;
	p->title_len = c->title != NULL ? c->title_len : 0;
	if (p->title_len > 0)
		ofl_buf_add(&d->data, c->title, c->title_len);
	p->text = d->data.len;
	p->len = c->len;
	if (c->len > 0)
		ofl_buf_add(&d->data, c->text, c->len);
	if (d->data.len >= DROP_BYTES || d->np >= DROP_CHUNKS ||
	    ofl_now_ms() - d->last_flush >= DROP_MS) {
		if (drop_flush(d) == -1)
			d->failed = 1;
		if (d->failed || d->lost)
			return 1;
	}
	return 0;
}

/*
 * Delete a batch of chunks from the FTS table and ix_chunk, together, in
 * one short transaction, if the drop is still ours.
 */
static int
drop_flush(struct dropper *d)
{
	sqlite3		*db = d->db;
	sqlite3_stmt	*chk = NULL, *del = NULL, *delc = NULL, *own = NULL;
	const char	*t = d->data.data;
	struct dpend	*p;
	size_t		 i;
	int64_t		 rowid;
	int		 rc;

	if (d->np == 0)
		return 0;
	if (db_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	if (prep(db, "UPDATE ix_blob SET heartbeat = ?3 WHERE blob = ?1 AND"
	    " state = 2 AND owner = ?2", &own) == -1)
		goto fail;
	sqlite3_bind_int64(own, 1, d->blob);
	sqlite3_bind_int64(own, 2, (int64_t)getpid());
	sqlite3_bind_int64(own, 3, ofl_now_ms());
	if (sqlite3_step(own) != SQLITE_DONE) {
		db_err(db, "dropping");
		goto fail;
	}
	if (sqlite3_changes(db) == 0) {
		d->lost = 1;
		sqlite3_finalize(own);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return 0;
	}
	if (prep(db, "SELECT 1 FROM ix_chunk WHERE id = ?1", &chk) == -1 ||
	    prep(db, "INSERT INTO ix_fts(ix_fts, rowid, title, body)"
	    " VALUES('delete', ?1, ?2, ?3)", &del) == -1 ||
	    prep(db, "DELETE FROM ix_chunk WHERE id = ?1", &delc) == -1)
		goto fail;
	for (i = 0; i < d->np; i++) {
		p = &d->p[i];
		rowid = ofl_index_rowid(d->blob, p->seq);
		/* No chunk row: never written, or dropped before. */
		sqlite3_bind_int64(chk, 1, rowid);
		rc = sqlite3_step(chk);
		sqlite3_reset(chk);
		if (rc == SQLITE_DONE)
			continue;
		if (rc != SQLITE_ROW) {
			db_err(db, "dropping");
			goto fail;
		}
		sqlite3_bind_int64(del, 1, rowid);
		sqlite3_bind_text(del, 2, t + p->title, (int)p->title_len,
		    SQLITE_STATIC);
		sqlite3_bind_text(del, 3, p->len > 0 ? t + p->text : "",
		    (int)p->len, SQLITE_STATIC);
		if (sqlite3_step(del) != SQLITE_DONE) {
			db_err(db, "dropping");
			goto fail;
		}
		sqlite3_reset(del);
		sqlite3_bind_int64(delc, 1, rowid);
		if (sqlite3_step(delc) != SQLITE_DONE) {
			db_err(db, "dropping");
			goto fail;
		}
		sqlite3_reset(delc);
	}
	sqlite3_finalize(own);
	sqlite3_finalize(chk);
	sqlite3_finalize(del);
	sqlite3_finalize(delc);
	if (db_exec(db, "COMMIT") == -1) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	d->np = 0;
	ofl_buf_reset(&d->data);
	d->last_flush = ofl_now_ms();
	return 0;
fail:
	sqlite3_finalize(own);
	sqlite3_finalize(chk);
	sqlite3_finalize(del);
	sqlite3_finalize(delc);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int
ofl_index_purge(struct ofl_store *st, int64_t blob)
{
	sqlite3			*db = ofl_store_db(st);
	sqlite3_stmt		*s = NULL;
	struct dropper		 d;
	struct ofl_reader	*r = NULL;
	char			 id[OFL_ID_MAX + 1], *hint = NULL;
	int64_t			 nseq = 0, now = ofl_now_ms(), owner, beat;
	int			 rc, state, found, ret = -1;

	if (ofl_index_init(st) == -1)
		return -1;
	/*
	 * Mark it as being dropped: searches no longer use it, and an
	 * indexer at work on it stops at its next batch.  Another live
	 * process dropping it: leave it to that one.
	 */
	if (db_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	if (prep(db, "SELECT next_seq, id, state, owner, heartbeat FROM"
	    " ix_blob WHERE blob = ?1", &s) == -1)
		goto rollback;
	sqlite3_bind_int64(s, 1, blob);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		nseq = sqlite3_column_int64(s, 0);
		if (sqlite3_column_type(s, 1) != SQLITE_NULL)
			hint = ofl_xstrdup((const char *)
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
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		free(hint);
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
	s = NULL;
	if (rc != SQLITE_DONE) {
		db_err(db, "dropping");
		goto rollback;
	}
	if (db_exec(db, "COMMIT") == -1)
		goto rollback;

	/*
	 * Read the content again, outside any transaction, and delete its
	 * chunks a batch at a time.  Without the content the FTS rows
	 * cannot be deleted; ofl_index_forget() then drops the chunk rows,
	 * which makes them unreachable all the same.
	 */
	memset(&d, 0, sizeof d);
	d.db = db;
	d.blob = blob;
	d.nseq = nseq;
	d.last_flush = ofl_now_ms();
	ofl_buf_init(&d.data);
	if ((found = find_artifact(st, blob, hint, id)) == -1)
		goto out;
	if (found == 0 && nseq > 0 && (r = ofl_reader_open(st, id)) != NULL) {
		rc = ofl_chunk_artifact(r, ofl_reader_meta(r)->kind,
		    drop_chunk, &d);
		if (!d.failed && !d.lost && drop_flush(&d) == -1)
			d.failed = 1;
		if (d.failed)
			goto out;
	}
	ret = 0;
	goto out;
rollback:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(hint);
	return -1;
out:
	ofl_reader_close(r);
	ofl_buf_free(&d.data);
	free(d.p);
	free(hint);
	return ret;
}

int
ofl_index_forget(struct ofl_store *st, int64_t blob)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int		 rc, have;

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
	sqlite3_bind_int64(s, 1, ofl_index_rowid(blob, 0));
	sqlite3_bind_int64(s, 2, ofl_index_rowid(blob, CHUNK_MAX - 1));
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
ofl_index_drop(struct ofl_store *st, int64_t blob)
{
	sqlite3	*db = ofl_store_db(st);

	if (ofl_index_purge(st, blob) == -1)
		return -1;
	if (db_exec(db, "BEGIN IMMEDIATE") == -1)
		return -1;
	if (ofl_index_forget(st, blob) == -1 || db_exec(db, "COMMIT") == -1) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

/* The pipe protocol. */

static ssize_t
read_some(int fd, struct ofl_buf *b, size_t want)
{
	ssize_t	n;

	if (b->cap - b->len < want) {
		b->cap = b->len + want;
		b->data = ofl_xrealloc(b->data, b->cap + 1);
	}
	for (;;) {
		n = read(fd, b->data + b->len, want);
		if (n == -1 && errno == EINTR)
			continue;
		break;
	}
	if (n == -1 && errno == EBADF)
		n = 0;		/* no stdin at all: empty */
	if (n == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "stdin: %s", strerror(errno));
		return -1;
	}
	b->len += (size_t)n;
	return n;
}

/* 1 if the line is the listing's header (OFL_LIST_HEADER, spaced out). */
static int
list_header(const char *p, size_t n)
{
	const char	*h = OFL_LIST_HEADER;
	size_t		 i = 0;

	if (n > 0 && p[n - 1] == '\r')
		n--;
	while (*h != '\0') {
		if (*h == ' ') {
			if (i >= n || p[i] != ' ')
				return 0;
			while (i < n && p[i] == ' ')
				i++;
			h++;
			continue;
		}
		if (i >= n || p[i] != *h)
			return 0;
		i++;
		h++;
	}
	return i == n;
}

/*
 * Data whose start ofl-capture passed through before its notice: the
 * start of a slow large output, or of one cut short, then a line
 * "--- ofl: ... ---" and the notice, whose first line is a reference.
 * The passing stops at the threshold, so the line comes early: look
 * for it in the first INPUT_SCAN bytes, and take the stream from the
 * reference on.  1 if found.
 */
#define INPUT_SCAN	(1024 * 1024)
static int
passed_through(struct ofl_input *in)
{
	static const char	 mark[] = "--- ofl: ";
	struct ofl_ref		 r;
	const char		*p, *end, *nl, *next, *nnl;
	ssize_t			 n;

	while (!in->eof && in->buf.len < INPUT_SCAN) {
		if ((n = read_some(in->fd, &in->buf, 65536)) == -1)
			return -1;
		in->eof = n == 0;
	}
	p = in->buf.data;
	end = p + in->buf.len;
	while ((p = memmem(p, (size_t)(end - p), mark, sizeof mark - 1)) !=
	    NULL) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		next = nl + 1;
		if ((p == in->buf.data || p[-1] == '\n') && nl - p >= 13 &&
		    memcmp(nl - 4, " ---", 4) == 0 && next < end) {
			if ((nnl = memchr(next, '\n', (size_t)(end - next))) ==
			    NULL)
				nnl = end;
			if (ofl_ref_line(next, (size_t)(nnl - next), &r)) {
				n = next - in->buf.data;
				memmove(in->buf.data, next, in->buf.len -
				    (size_t)n);
				in->buf.len -= (size_t)n;
				return 1;
			}
		}
		p = next;
	}
	return 0;
}

int
ofl_input_args(int argc, char **argv, struct ofl_input *in,
    struct ofl_ref **refsp, size_t *nrefsp)
{
	struct ofl_ref	*refs;
	size_t		 i, n = argc > 0 ? (size_t)argc : 0;
	int		 dash = 0;

	memset(in, 0, sizeof *in);
	in->fd = -1;
	refs = ofl_xcalloc(n + 1, sizeof *refs);
	for (i = 0; i < n; i++) {
		if (strcmp(argv[i], "-") == 0) {
			if (dash++) {
				ofl_seterr(OFL_EXIT_USAGE, "-: standard input "
				    "given twice");
				goto fail;
			}
			snprintf(refs[i].ref, sizeof refs[i].ref, "-");
		} else if (ofl_ref_arg(argv[i], &refs[i]) == -1)
			goto fail;
	}
	if (n == 0 || dash) {
		if (ofl_input_open(in, STDIN_FILENO) == -1)
			goto fail;
		if (in->type == OFL_INPUT_EMPTY) {
			ofl_input_close(in);
			ofl_seterr(OFL_EXIT_USAGE, "%s", OFL_INPUT_EMPTY_MSG);
			goto fail;
		}
	}
	*refsp = refs;
	*nrefsp = n;
	return n == 0 || dash;
fail:
	free(refs);
	return -1;
}

int
ofl_input_open(struct ofl_input *in, int fd)
{
	const char	*nl;
	struct ofl_ref	 r;
	ssize_t		 n;

	memset(in, 0, sizeof *in);
	in->fd = fd;
	ofl_buf_init(&in->buf);
	/* Enough to see the first line, or all of a short input. */
	while (in->buf.len == 0 ||
	    memchr(in->buf.data, '\n', in->buf.len) == NULL) {
		if ((n = read_some(fd, &in->buf, 65536)) == -1)
			return -1;
		if (n == 0) {
			in->eof = 1;
			break;
		}
		if (in->buf.len >= 65536)
			break;
	}
	if (in->buf.len == 0) {
		in->type = OFL_INPUT_EMPTY;
		return 0;
	}
	nl = memchr(in->buf.data, '\n', in->buf.len);
	n = nl != NULL ? nl - in->buf.data : (ssize_t)in->buf.len;
	/* A reference line, or the header of a listing. */
	in->type = ofl_ref_line(in->buf.data, (size_t)n, &r) ||
	    list_header(in->buf.data, (size_t)n) ? OFL_INPUT_REFS :
	    OFL_INPUT_DATA;
	if (in->type == OFL_INPUT_DATA) {
		switch (passed_through(in)) {
		case -1:
			return -1;
		case 1:
			in->type = OFL_INPUT_REFS;
			break;
		}
	}
	return 0;
}

void
ofl_input_close(struct ofl_input *in)
{
	ofl_buf_free(&in->buf);
}

static void
add_ref(struct ofl_ref **refs, size_t *nrefs, const struct ofl_ref *r)
{
	*refs = ofl_xrealloc(*refs, (*nrefs + 1) * sizeof **refs);
	(*refs)[(*nrefs)++] = *r;
}

/* Raw data: capture it, as ofl-capture would with no options. */
static int
input_capture(struct ofl_input *in, struct ofl_store *st,
    struct ofl_ref *r)
{
	struct ofl_writer	*w;
	struct ofl_meta		 init, fin;
	char			 cwd[4096], err[1024];
	ssize_t			 n;

	memset(&init, 0, sizeof init);
	init.duration_ms = -1;
	init.session = getenv("OFL_SESSION");
	if (init.session != NULL && *init.session == '\0')
		init.session = NULL;
	if (getcwd(cwd, sizeof cwd) != NULL)
		init.cwd = cwd;
	if ((w = ofl_writer_begin(st, &init)) == NULL)
		return -1;
	for (;;) {
		if (ofl_writer_write(w, in->buf.data, in->buf.len) == -1)
			goto fail;
		ofl_buf_reset(&in->buf);
		if (in->eof)
			break;
		if ((n = read_some(in->fd, &in->buf, 256 * 1024)) == -1)
			goto fail;
		in->eof = n == 0;
	}
	memset(r, 0, sizeof *r);
	snprintf(r->ref, sizeof r->ref, "%s", ofl_writer_id(w));
	memset(&fin, 0, sizeof fin);
	fin.duration_ms = -1;
	return ofl_writer_finish(w, &fin, NULL);
fail:
	/* Keep what was read, marked incomplete, and say what failed. */
	snprintf(err, sizeof err, "%s", ofl_errmsg());
	memset(&fin, 0, sizeof fin);
	fin.duration_ms = -1;
	fin.incomplete = 1;
	(void)ofl_writer_finish(w, &fin, NULL);
	ofl_seterr(OFL_EXIT_FAIL, "%s", err);
	return -1;
}

static int
input_read(struct ofl_input *in, struct ofl_store *st,
    struct ofl_ref **refs, size_t *nrefs)
{
	struct ofl_ref	 r;
	const char	*p, *end, *nl;
	ssize_t		 n;

	switch (in->type) {
	case OFL_INPUT_EMPTY:
		return 0;
	case OFL_INPUT_DATA:
		if (input_capture(in, st, &r) == -1)
			return -1;
		add_ref(refs, nrefs, &r);
		return 0;
	}
	/* A reference stream is short: read all of it. */
	while (!in->eof) {
		if ((n = read_some(in->fd, &in->buf, 65536)) == -1)
			return -1;
		in->eof = n == 0;
	}
	for (p = in->buf.data, end = p + in->buf.len; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (ofl_ref_line(p, (size_t)(nl - p), &r))
			add_ref(refs, nrefs, &r);
	}
	ofl_buf_reset(&in->buf);
	return 0;
}

int
ofl_input_refs(struct ofl_input *in, struct ofl_store *st,
    struct ofl_ref **refs, size_t *nrefs)
{
	struct ofl_ref	*got = NULL, *all;
	size_t		 ngot = 0, i, at;

	if (input_read(in, st, &got, &ngot) == -1) {
		free(got);
		return -1;
	}
	for (at = 0; at < *nrefs; at++)
		if (strcmp((*refs)[at].ref, "-") == 0)
			break;
	if (at == *nrefs) {
		for (i = 0; i < ngot; i++)
			add_ref(refs, nrefs, &got[i]);
		free(got);
		return 0;
	}
	/* In place of "-". */
	all = ofl_xcalloc(*nrefs - 1 + ngot + 1, sizeof *all);
	memcpy(all, *refs, at * sizeof *all);
	memcpy(all + at, got, ngot * sizeof *all);
	memcpy(all + at + ngot, *refs + at + 1,
	    (*nrefs - at - 1) * sizeof *all);
	free(*refs);
	free(got);
	*refs = all;
	*nrefs = *nrefs - 1 + ngot;
	return 0;
}

int
ofl_index_input(struct ofl_store *st, int fd, char ***idsp, size_t *nidsp)
{
	struct ofl_input	 in;
	struct ofl_ref		*refs = NULL;
	size_t			 nrefs = 0, i;
	int			 ret = -1;

	*idsp = NULL;
	*nidsp = 0;
	if (ofl_input_open(&in, fd) == -1 ||
	    ofl_input_refs(&in, st, &refs, &nrefs) == -1)
		goto out;
	if (nrefs > 0)
		*idsp = ofl_xcalloc(nrefs, sizeof **idsp);
	for (i = 0; i < nrefs; i++)
		(*idsp)[i] = ofl_xstrdup(refs[i].ref);
	*nidsp = nrefs;
	ret = 0;
out:
	ofl_input_close(&in);
	free(refs);
	return ret;
}

/* Suggestions for the notice: error signatures and distinctive terms. */

static uint64_t
hash_bytes(const char *s, size_t n)
{
	uint64_t	h = 1469598103934665603ULL;
	size_t		i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* Find key; with create, add it (unless the map is full). */
static struct hent *
hmap_get(struct hmap *h, const char *key, size_t klen, int create)
{
	struct hent	*old, *e;
	size_t		 i, oldcap;

	if (create && (h->n + 1) * 2 > h->cap) {
		if (h->n >= HMAP_MAX)
			create = 0;
		else {
			old = h->v;
			oldcap = h->cap;
			h->cap = h->cap == 0 ? 1024 : h->cap * 2;
			h->v = ofl_xcalloc(h->cap, sizeof *h->v);
			for (i = 0; i < oldcap; i++) {
				size_t j;

				if (old[i].key == NULL)
					continue;
				j = hash_bytes(old[i].key, old[i].klen) &
				    (h->cap - 1);
				while (h->v[j].key != NULL)
					j = (j + 1) & (h->cap - 1);
				h->v[j] = old[i];
			}
			free(old);
		}
	}
	if (h->cap == 0)
		return NULL;
	i = hash_bytes(key, klen) & (h->cap - 1);
	for (;;) {
		e = &h->v[i];
		if (e->key == NULL)
			break;
		if (e->klen == klen && memcmp(e->key, key, klen) == 0)
			return e;
		i = (i + 1) & (h->cap - 1);
	}
	if (!create)
		return NULL;
	e->key = ofl_xmalloc(klen + 1);
	memcpy(e->key, key, klen);
	e->key[klen] = '\0';
	e->klen = klen;
	h->n++;
	return e;
}

static void
hmap_free(struct hmap *h)
{
	size_t	i;

	for (i = 0; i < h->cap; i++) {
		free(h->v[i].key);
		free(h->v[i].surface);
	}
	free(h->v);
	memset(h, 0, sizeof *h);
}

/* Highest score first, then earliest. */
static int
hent_cmp(const void *a, const void *b)
{
	const struct hent	*x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return 0;
}

/*
 * A line with its variable parts masked: numbers, hex, ids become <*>,
 * masks joined only by punctuation and spaces (a timestamp, an address)
 * become one, and runs of blanks one space.
 */
static void
mask_line(struct ofl_buf *out, const char *s, size_t n)
{
	size_t	i = 0, j, k, digits, letters, hex, keep;
	int	c;

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' ||
	    s[n - 1] == '\t'))
		n--;
	while (i < n) {
		c = (unsigned char)s[i];
		if (c == ' ' || c == '\t') {
			/* Runs of blanks, as one space. */
			if (out->len > 0 && out->data[out->len - 1] != ' ')
				ofl_buf_addc(out, ' ');
			i++;
			continue;
		}
		if (!isalnum(c)) {
			ofl_buf_addc(out, c);
			i++;
			continue;
		}
		for (j = i, digits = letters = hex = 0; j < n &&
		    isalnum((unsigned char)s[j]); j++) {
			c = (unsigned char)s[j];
			if (isdigit(c))
				digits++;
			else
				letters++;
			if (isxdigit(c))
				hex++;
		}
		if (digits > 0 && (letters == 0 || digits >= letters ||
		    (hex == j - i && j - i >= 6) ||
		    (j - i > 2 && s[i] == '0' && (s[i + 1] | 0x20) == 'x'))) {
			/* Join with a mask just before, across punctuation. */
			for (k = out->len; k > 0 &&
			    strchr(" -:.,/", out->data[k - 1]) != NULL; k--)
				;
			keep = k >= 3 && memcmp(out->data + k - 3, "<*>",
			    3) == 0;
			if (keep)
				out->len = k;
			else
				ofl_buf_adds(out, "<*>");
		} else
			ofl_buf_add(out, s + i, j - i);
		i = j;
	}
}

static int
is_error_line(const char *s, size_t n, uint64_t lineno)
{
	struct ofl_linestat	ls;

	memset(&ls, 0, sizeof ls);
	ofl_linestat_line(&ls, s, n > 4096 ? 4096 : n, lineno);
	return ls.errors > 0;
}

/* Count the signatures of the error lines in text (lines from lineno). */
static void
scan_sigs(struct hmap *h, const char *text, size_t len, uint64_t lineno)
{
	struct ofl_buf	 sig;
	struct hent	*e;
	const char	*p = text, *end = text + len, *nl;

	ofl_buf_init(&sig);
	for (; p < end; p = nl + 1, lineno++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (!is_error_line(p, (size_t)(nl - p), lineno))
			continue;
		ofl_buf_reset(&sig);
		mask_line(&sig, p, (size_t)(nl - p) > 4096 ? 4096 :
		    (size_t)(nl - p));
		if (sig.len == 0)
			continue;
		if ((e = hmap_get(h, sig.data, sig.len, 1)) == NULL)
			continue;
		if (e->count++ == 0)
			e->first = lineno;
	}
	ofl_buf_free(&sig);
}

static int
stopword(const char *s, size_t n)
{
	static const char *words[] = {
		"about", "after", "again", "also", "and", "are", "been",
		"before", "being", "but", "can", "could", "did", "does",
		"each", "for", "from", "had", "has", "have", "her", "here",
		"his", "how", "into", "its", "just", "more", "most", "not",
		"now", "only", "other", "our", "out", "over", "same", "she",
		"should", "some", "such", "than", "that", "the", "their",
		"them", "then", "there", "these", "they", "this", "those",
		"through", "too", "under", "until", "very", "was", "were",
		"what", "when", "where", "which", "while", "who", "why",
		"will", "with", "would", "you", "your", "null", "true",
		"false", "http", "https", "www", "com", "org", NULL
	};
	size_t	i;

	for (i = 0; words[i] != NULL; i++)
		if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0)
			return 1;
	return 0;
}

static int
term_cb(void *arg, int flags, const char *tok, int n, int start, int end)
{
	struct termscan	*ts = arg;
	struct hent	*e;
	int		 i, letters = 0, digits = 0;

	if (n < 3 || n > 40 || (flags & FTS5_TOKEN_COLOCATED))
		return SQLITE_OK;
	for (i = 0; i < n; i++) {
		if (tok[i] >= '0' && tok[i] <= '9')
			digits++;
		else if ((unsigned char)tok[i] < 0x80)
			letters++;
	}
	if (letters < 3 || digits > 0)
		return SQLITE_OK;
	if ((e = hmap_get(ts->h, tok, (size_t)n, 1)) == NULL)
		return SQLITE_OK;
	if (e->count++ == 0 && end - start <= 40) {
		/* The first surface form, lowercased. */
		e->surface = ofl_xmalloc((size_t)(end - start) + 1);
		for (i = 0; i < end - start; i++)
			e->surface[i] = (char)tolower(
			    (unsigned char)ts->text[start + i]);
		e->surface[end - start] = '\0';
	}
	return SQLITE_OK;
}

/* Read up to n bytes from off into b (replacing its content). */
static int
read_range(struct ofl_reader *r, uint64_t off, size_t n, struct ofl_buf *b)
{
	ssize_t	k;

	ofl_buf_reset(b);
	if (ofl_reader_seek(r, off) == -1)
		return -1;
	while (b->len < n) {
		if (b->cap < n + 1) {
			b->data = ofl_xrealloc(b->data, n + 1);
			b->cap = n + 1;
		}
		k = ofl_reader_read(r, b->data + b->len, n - b->len);
		if (k == -1)
			return -1;
		if (k == 0)
			break;
		b->len += (size_t)k;
	}
	return 0;
}

int
ofl_index_suggest(struct ofl_store *st, const char *id, struct ofl_buf *out)
{
	struct ofl_reader	*r = NULL;
	const struct ofl_meta	*m;
	struct ofl_tok		*tk = NULL;
	struct hmap		 sigs, terms;
	struct termscan		 ts;
	struct ofl_buf		 b;
	struct hent		*v = NULL;
	sqlite3			*db = ofl_store_db(st);
	sqlite3_stmt		*s = NULL;
	uint64_t		 size, off, lineno;
	int64_t			 blob, nchunks = 0;
	size_t			 i, k, nv;
	char			 num[32];
	int			 indexed = 0, ret = -1;

	memset(&sigs, 0, sizeof sigs);
	memset(&terms, 0, sizeof terms);
	ofl_buf_init(&b);
	if ((r = ofl_reader_open(st, id)) == NULL)
		goto out;
	m = ofl_reader_meta(r);
	size = ofl_reader_bytes(r);

	/* Error signatures, for logs and text: head and tail. */
	if (m->kind == OFL_KIND_LOG || m->kind == OFL_KIND_TEXT) {
		k = size > SUGGEST_SCAN ? SUGGEST_SCAN : (size_t)size;
		if (read_range(r, 0, k, &b) == -1)
			goto out;
		/* Only whole lines, unless this is all of it. */
		if (k < size)
			while (b.len > 0 && b.data[b.len - 1] != '\n')
				b.len--;
		scan_sigs(&sigs, b.data, b.len, 1);
		if (size > 2 * (uint64_t)SUGGEST_SCAN) {
			off = size - SUGGEST_SCAN;
			if (read_range(r, off, SUGGEST_SCAN, &b) == -1)
				goto out;
			for (i = 0; i < b.len && b.data[i] != '\n'; i++)
				;
			if (i < b.len) {
				lineno = (uint64_t)ofl_reader_line_of(r,
				    off + i + 1);
				scan_sigs(&sigs, b.data + i + 1,
				    b.len - i - 1, lineno);
			}
		} else if (size > SUGGEST_SCAN) {
			off = b.len;
			lineno = (uint64_t)ofl_reader_line_of(r, off);
			if (read_range(r, off, (size_t)(size - off), &b) == -1)
				goto out;
			scan_sigs(&sigs, b.data, b.len, lineno);
		}
		nv = 0;
		v = ofl_xcalloc(sigs.n == 0 ? 1 : sigs.n, sizeof *v);
		for (i = 0; i < sigs.cap; i++)
			if (sigs.v[i].key != NULL) {
				v[nv] = sigs.v[i];
				v[nv].score = (double)v[nv].count;
				nv++;
			}
		qsort(v, nv, sizeof *v, hent_cmp);
		for (i = 0; i < nv && i < SUGGEST_SIGS; i++) {
			ofl_fmt_count(num, sizeof num, v[i].first);
			ofl_buf_addf(out, "  x%llu  ",
			    (unsigned long long)v[i].count);
			ofl_render_safe(out, (const unsigned char *)v[i].key,
			    v[i].klen, SIG_MAX);
			ofl_buf_addf(out, "  (line %s)\n", num);
		}
		free(v);
		v = NULL;
	}

	/* Distinctive terms: frequent here, rare in the rest of the index. */
	if ((tk = ofl_tok_new(st)) == NULL)
		goto out;
	k = size > SUGGEST_TERMS ? SUGGEST_TERMS : (size_t)size;
	if (read_range(r, 0, k, &b) == -1)
		goto out;
	if (k < size)
		while (b.len > 0 && b.data[b.len - 1] != '\n')
			b.len--;
	ts.h = &terms;
	ts.text = b.data;
	if (b.len > 0 && ofl_tok_run(tk, 2, b.data, b.len, term_cb, &ts) == -1)
		goto out;
	if ((blob = ofl_store_blob(st, id)) >= 0 &&
	    ofl_index_state(st, blob) == 1) {
		indexed = 1;
		if (prep(db, "SELECT count(*) FROM ix_chunk", &s) == -1)
			goto out;
		if (sqlite3_step(s) == SQLITE_ROW)
			nchunks = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
		s = NULL;
		if (db_exec(db, "CREATE VIRTUAL TABLE IF NOT EXISTS"
		    " temp.ix_vocab USING fts5vocab(main, 'ix_fts', 'row')")
		    == -1 || prep(db, "SELECT doc FROM temp.ix_vocab"
		    " WHERE term = ?1", &s) == -1)
			goto out;
	}
	nv = 0;
	v = ofl_xcalloc(terms.n == 0 ? 1 : terms.n, sizeof *v);
	for (i = 0; i < terms.cap; i++) {
		struct hent	*e = &terms.v[i];
		double		 idf = 1.0;

		if (e->key == NULL || e->surface == NULL ||
		    stopword(e->surface, strlen(e->surface)))
			continue;
		if (indexed) {
			int64_t	df = 0;

			sqlite3_bind_text(s, 1, e->key, (int)e->klen,
			    SQLITE_STATIC);
			if (sqlite3_step(s) == SQLITE_ROW)
				df = sqlite3_column_int64(s, 0);
			sqlite3_reset(s);
			idf = log((double)(nchunks + 1) / (double)(df + 1)) +
			    0.1;
		}
		v[nv] = *e;
		v[nv].score = (1.0 + log((double)e->count)) * idf;
		nv++;
	}
	qsort(v, nv, sizeof *v, hent_cmp);
	if (nv > 0) {
		ofl_buf_adds(out, "terms:");
		for (i = 0; i < nv && i < SUGGEST_WORDS; i++) {
			ofl_buf_addc(out, ' ');
			ofl_render_safe(out,
			    (const unsigned char *)v[i].surface,
			    strlen(v[i].surface), 40);
		}
		ofl_buf_addc(out, '\n');
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	free(v);
	hmap_free(&sigs);
	hmap_free(&terms);
	ofl_buf_free(&b);
	ofl_tok_free(tk);
	ofl_reader_close(r);
	return ret;
}

/* Checking. */

int
ofl_index_check(struct ofl_store *st, struct ofl_buf *report)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int64_t		 chunks = -1, docs = -1, orphans = -1;
	int		 problems = 0;

	if (ofl_index_init(st) == -1)
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
