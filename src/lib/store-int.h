/*
 * store-int.h: what the files of the store share and nothing above the
 * store sees: the store's and a reader's structs, a frame of the frame
 * table, and the few helpers that run SQL for them.  The store is
 * store.c (open, schema, settings, size, locks), store-write.c (the
 * writer, blob numbers, recovery), store-read.c (metadata and the
 * reader) and store-gc.c (what expiry and checking need); they alone
 * include sqlite3.h.
 */
#ifndef OFL_STORE_INT_H
#define OFL_STORE_INT_H

#include <sqlite3.h>
#include <zstd.h>

struct store_pg;

#define FRAME_MAX	(1024 * 1024)	/* raw bytes per frame */
#define HEAD_MAX	(64 * 1024)	/* bytes kept for kind detection */
#define BUSY_MS		30000
#define WAL_PAGES	128		/* checkpoint the WAL at this size */

struct ofl_store {
	char		*path;
	char		*dbpath;
	char		*blobdir;
	sqlite3		*db;
	int		 rdwr;
	int		 level;		/* zstd level */
	int		 fast;		/* level when behind, or level */
	int		 writers;	/* writers open on db */
	int		 batch;		/* in ofl_store_batch_begin() */
	int		 batch_failed;	/* a step of it rolled back */
	int		 gclock;	/* gc.lock, held; -1 */
	struct store_pg	*pg;		/* the PostgreSQL engine, or NULL */
	sqlite3_stmt	*meta;		/* ofl_store_meta()'s, kept */
	int		 ix;		/* index reachable (store-ixdb.c) */
	ZSTD_DCtx	*dctx;		/* a closed reader's, for the next */
	int64_t		 fts_missing;	/* a blob a query found no file of */
};

/* A row of the frame table: one zstd frame of a blob file. */
struct frame {
	uint64_t	raw_off;
	uint64_t	raw_len;
	uint64_t	line_off;	/* newlines before this frame */
	uint64_t	nl;		/* newlines in this frame */
	uint64_t	comp_off;
	uint64_t	comp_len;
};

struct ofl_reader {
	struct ofl_store	*st;
	struct ofl_meta		 meta;
	int			 fd;
	struct frame		*frames;
	size_t			 nframes;
	uint64_t		 bytes;
	uint64_t		 newlines;
	ZSTD_DCtx		*dctx;
	unsigned char		*fbuf;		/* decompressed frame */
	size_t			 fcap;
	ssize_t			 cur;		/* frame in fbuf, -1: none */
	unsigned char		*cbuf;
	size_t			 ccap;
	uint64_t		 pos;
	int64_t			 blob;		/* PostgreSQL: frames' blob */
};

/*
 * The SQLite helpers, inline so that every file of the store can use
 * them without depending on another: store.c opens the store and
 * recovers dead writers (store-write.c), which read back content
 * (store-read.c).
 */
static inline int
store_fail(struct ofl_store *st, const char *what)
{
	int	code = sqlite3_errcode(st->db);

	if (code == SQLITE_FULL)
		ofl_seterr(OFL_EXIT_FAIL, "store %s: disk full (%s)", st->path,
		    what);
	else
		ofl_seterr(OFL_EXIT_FAIL, "store %s: %s: %s", st->path, what,
		    sqlite3_errmsg(st->db));
	return -1;
}

static inline int
store_exec(struct ofl_store *st, const char *sql)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, "database");
	return 0;
}

static inline int
store_prepare(struct ofl_store *st, const char *sql, sqlite3_stmt **stmt)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK) {
		*stmt = NULL;
		return store_fail(st, "database");
	}
	return 0;
}

/* Column i of the current row as a string to free, or NULL. */
static inline char *
store_col_strdup(sqlite3_stmt *stmt, int i)
{
	const unsigned char	*s;

	if (sqlite3_column_type(stmt, i) == SQLITE_NULL)
		return NULL;
	s = sqlite3_column_text(stmt, i);
	return s == NULL ? NULL : ofl_xstrdup((const char *)s);
}

/*
 * The file name of a blob, to free, in *file (NULL when there is no such
 * row); -1 on error.
 */
static inline int
store_blob_file(struct ofl_store *st, int64_t blob, char **file)
{
	sqlite3_stmt	*stmt;

	*file = NULL;
	if (store_prepare(st, "SELECT file FROM blob WHERE id = ?1",
	    &stmt) == -1)
		return -1;
	sqlite3_bind_int64(stmt, 1, blob);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		*file = store_col_strdup(stmt, 0);
	sqlite3_finalize(stmt);
	return 0;
}

/* The path of blob file name ("ab/abcd2345"), to free. */
static inline char *
store_blob_path(struct ofl_store *st, const char *name)
{
	struct ofl_buf	b;

	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s/%s", st->blobdir, name);
	return ofl_buf_str(&b);
}

/*
 * A reference, as both engines read it: "@" or "@N" (ofl: or not) sets
 * *latest to N (1 for "@"); an ID prefix sets *latest to 0 and lower to
 * the prefix in lower case, hi to the end of its range (lower and '~',
 * past every ID character).  -1 with a usage error if it is neither.
 */
static inline int
store_ref_parse(const char *ref, long long *latest,
    char lower[OFL_ID_MAX + 2], char hi[OFL_ID_MAX + 2])
{
	const char	*s = ref, *errstr = NULL;
	size_t		 len, i;

	if (strncmp(s, "ofl:", 4) == 0)
		s += 4;
	*latest = 0;
	if (*s == '@') {
		*latest = 1;
		if (s[1] == '\0')
			return 0;
		if (s[1] < '0' || s[1] > '9')
			errstr = "invalid";
		else
			*latest = strtonum(s + 1, 1, 1000000, &errstr);
		if (errstr != NULL) {
			ofl_seterr(OFL_EXIT_USAGE, "%s: not an artifact "
			    "reference (use @ or @N, N >= 1)", ref);
			return -1;
		}
		return 0;
	}
	len = strlen(s);
	if (!ofl_id_valid(s, len)) {
		ofl_seterr(OFL_EXIT_USAGE, "%s: not an artifact ID", ref);
		return -1;
	}
	for (i = 0; i < len; i++)
		lower[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	lower[len] = '\0';
	memcpy(hi, lower, len);
	hi[len] = '~';
	hi[len + 1] = '\0';
	return 0;
}

/*
 * A listing filter (label, session, kind, age) as SQL on table artifact
 * aliased a, with parameters 7 to 11 so that a statement keeps 1 to 6
 * for its own; store_filter_bind() gives them their values.
 */
#define STORE_FILTER_SQL \
	" (?7 IS NULL OR a.label = ?7)" \
	" AND (?8 IS NULL OR a.session = ?8) AND (?9 IS NULL OR a.kind = ?9)" \
	" AND (?10 = 0 OR a.created >= ?10) AND (?11 = 0 OR a.created < ?11)"

static inline void
store_filter_bind(sqlite3_stmt *q, const struct ofl_filter *f)
{
	int64_t	now = ofl_now_ms();

	if (f->label != NULL)
		sqlite3_bind_text(q, 7, f->label, -1, SQLITE_STATIC);
	if (f->session != NULL)
		sqlite3_bind_text(q, 8, f->session, -1, SQLITE_STATIC);
	if (f->kind >= 0)
		sqlite3_bind_text(q, 9, ofl_kind_name(f->kind), -1,
		    SQLITE_STATIC);
	sqlite3_bind_int64(q, 10, f->newer_ms > 0 ? now - f->newer_ms : 0);
	sqlite3_bind_int64(q, 11, f->older_ms > 0 ? now - f->older_ms : 0);
}

/*
 * The engines.  A store is SQLite (pg NULL) or PostgreSQL (store-pg*.c,
 * built when configure finds libpq).  Every public function of the
 * store keeps its SQLite body and begins with STORE_PG(st, call): on a
 * PostgreSQL store it returns what call returns, the engine's own
 * implementation or store_pg_unsupported()'s one-line error.  Without
 * libpq the dispatch compiles to nothing.  STORE_PG_VOID is for the
 * functions that return nothing.
 */
#ifdef HAVE_LIBPQ
#include "store-pg-int.h"
#define STORE_PG(st, call) do {						\
	if ((st)->pg != NULL)						\
		return (call);						\
} while (0)
#define STORE_PG_VOID(st, call) do {					\
	if ((st)->pg != NULL) {						\
		call;							\
		return;							\
	}								\
} while (0)
#else
#define STORE_PG(st, call)	do { } while (0)
#define STORE_PG_VOID(st, call)	do { } while (0)
#endif


/*
 * The full-text index (store-fts.c, store-fts-query.c, store-gen.c).  A
 * chunk's row id is its blob's number shifted left by IX_CHUNK_BITS plus
 * its sequence number, so a blob's chunks are one range of row ids.
 */
#define IX_CHUNK_BITS	24		/* OFL_FTS_CHUNK_MAX is 1 << 24 */
#define IX_STALE_MS	30000		/* an indexer silent so long is dead */

static inline int64_t
ix_rowid(int64_t blob, int64_t seq)
{
	return blob << IX_CHUNK_BITS | seq;
}

/* A generation of the index, as ix_gen_list() gives it. */
struct ix_gen {
	int64_t		 gen;
	int		 open;		/* takes new content */
	int		 buried;	/* has tombstones */
	int64_t		 bytes;		/* content indexed into it */
	int64_t		 dead;		/* of which removed */
	int64_t		 blobs;		/* blobs in it now */
	int		 nopos;		/* keeps no places of words (1), no
					   columns either (2) */
};

static inline int
ix_err(sqlite3 *db, const char *what)
{
	ofl_seterr(OFL_EXIT_FAIL, "search index: %s: %s", what,
	    sqlite3_errmsg(db));
	return -1;
}

static inline int
ix_prep(sqlite3 *db, const char *sql, sqlite3_stmt **s)
{
	if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK) {
		*s = NULL;
		return ix_err(db, "database");
	}
	return 0;
}

/* The one integer of a one-row query, or def (on an error too). */
static inline int64_t
store_query_int(sqlite3 *db, const char *sql, int64_t def)
{
	sqlite3_stmt	*s;
	int64_t		 v = def;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return def;
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/*
 * Artifact a's content, ix_blob b, not indexed (or only in part, or by
 * another tokenizer than t): what the mark of what is indexed leaves out
 * (store-fts-chunk.c).
 */
#define UNSETTLED_SQL(t) \
	" (b.blob IS NULL OR b.state != 1 OR b.tokver != " t ")"

/* The tokenizer's version as SQL text, for statements kept literal. */
#define IX_STR_(x)	#x
#define IX_STR(x)	IX_STR_(x)
#define IX_TOKVER_SQL	IX_STR(OFL_TOK_VERSION)

/* Run sql; a failure is said as what's (ix_err()). */
static inline int
ix_exec(sqlite3 *db, const char *sql, const char *what)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return ix_err(db, what);
	return 0;
}

/* store-fts.c */
int	 ix_owner_alive(int64_t);

/* store-fts-pos.c */
int	 ix_match_err(sqlite3 *, const char *, int);

/* store-ixdb.c */
const char *ix_sch(sqlite3 *);
int	 store_ix_attach(struct ofl_store *, int);
int	 store_ix_own(struct ofl_store *);
int	 store_ix_schemas(struct ofl_store *, const char **);
int	 store_vacuum_step(struct ofl_store *);
int	 ix_ddl(sqlite3 *, const char *const *);
uint64_t ix_file_bytes(sqlite3 *);

/* store-gen.c */
uint64_t ix_gen_limit(void);
void	 ix_gen_name(int64_t, char *, size_t);
int	 ix_gen_setup(sqlite3 *);
int64_t	 ix_gen_take(sqlite3 *, int64_t, uint64_t);
int	 ix_gen_bury(sqlite3 *, int64_t);
int	 ix_gen_list(sqlite3 *, int, struct ix_gen **, size_t *);
int64_t	 ix_gen_of(sqlite3 *, int64_t);
int	 ix_gen_drop(sqlite3 *, int64_t);
int	 ix_gen_close(sqlite3 *, int64_t);
void	 ix_gen_merge(sqlite3 *, int64_t);
int64_t	 ix_gen_rows(sqlite3 *, int64_t, int);
uint64_t ix_gen_index_bytes(sqlite3 *);
int	 ix_gen_nopos(sqlite3 *, int64_t);

/*
 * store-fts-pos.c: queries that need places of words, on generations
 * that keep none.  A query relaxed to find a superset of its rows (1 and
 * the new query, 0: it needs no places); the rows of those it matches as
 * written, by their text chunked again (ok[i] set for rows[i]).
 */
struct fts_phrase {
	char		*q;		/* as written */
	char		*and;		/* its words' AND */
	size_t		 ntok;
};
struct fts_relaxed {
	char		*match;		/* the query relaxed */
	struct fts_phrase *p;		/* the query's phrases, in order */
	size_t		 n;
};
int	 store_fts_relax(struct ofl_tok *, const char *,
	    struct fts_relaxed *);
void	 store_fts_relaxed_free(struct fts_relaxed *);
char	*store_fts_file_missing(struct ofl_store *, int64_t);
int	 store_fts_keep(struct ofl_store *, const char *,
	    const struct fts_relaxed *, int, const int64_t *, size_t,
	    unsigned char *, double *);
/*
 * The ranking of a generation that keeps no places counts each word once
 * a column; its statistics are kept (IX_RANK_KEEP) for its rows to be
 * ranked again on their text (IX_RANK_TEXT, IX_RANK_GIVEN), each word as
 * often as it occurs, as on an index with places (store-fts.c).
 */
#define IX_RANK_KEEP	"oflrank(4.0, 1.0, 1)"
#define IX_RANK_TEXT	"oflrank(4.0, 1.0, 2)"
#define IX_RANK_GIVEN	"oflrank(4.0, 1.0, 3)"
/* IX_RANK_KEEP on a generation that keeps no columns either. */
#define IX_RANK_ROWS	"oflrank(4.0, 1.0, 4)"
void	 store_fts_rank_forget(void);
void	 store_fts_rank_give(int64_t, int, const int64_t *);

/* store-stmt.c: statements kept prepared between calls (see there). */
int	 store_stmt(sqlite3 *, const char *, sqlite3_stmt **);
void	 store_stmt_done(sqlite3_stmt *);
void	 store_stmt_forget(sqlite3 *);

/* store-sketch.c */
int	 store_sketch_put(sqlite3 *, sqlite3_stmt **, int64_t, uint64_t,
	    const unsigned char *);
int	 store_sketch_drop(sqlite3 *, int64_t);
int	 store_sketch_sweep(sqlite3 *);

/*
 * store-tmpl.c, store-pg-tmpl.c: of a log's n templates, most frequent
 * first, the cache keeps the TMPL_TOP most frequent and the TMPL_RARE
 * least (what a notice names as rare); a log of many templates (free
 * text) would otherwise cost the store a fraction of its size again.
 * Row 0 says how many were mined.  A list that must be whole
 * (ofl-schema) is mined again.
 */
#define TMPL_TOP	512
#define TMPL_RARE	64

static inline int
tmpl_kept(size_t i, size_t n)
{
	return n <= TMPL_TOP + TMPL_RARE || i < TMPL_TOP ||
	    i >= n - TMPL_RARE;
}

/*
 * store-intake.c: what both engines' writers do with the bytes they are
 * given: keep the first HEAD_MAX (for the kind), hash and count them,
 * gather the lines' error statistics and fill the frame being cut, of
 * FRAME_MAX bytes, which the engine's frame function (called with its
 * argument) writes out and empties.
 */
struct store_intake {
	unsigned char		*head;
	size_t			 headlen;
	struct ofl_hash		 hash;
	uint64_t		 bytes;
	int			 last_byte;
	unsigned char		*buf;		/* pending raw bytes */
	size_t			 len;
	uint64_t		 nl_pending;	/* newlines in buf */
	struct ofl_linefeed	 lf;		/* error and warning lines */
};
void	 store_intake_init(struct store_intake *);
void	 store_intake_free(struct store_intake *);
/* Take n bytes; -1 if a frame could not be written. */
int	 store_intake(struct store_intake *, const void *, size_t,
	    int (*)(void *), void *);
/*
 * At the end of the bytes, with all frames written and lines newlines
 * in them: the content's hash into hash, its kind and error lines into
 * m; returns its lines (a last one without a newline counts).
 */
uint64_t store_intake_end(struct store_intake *, uint64_t, struct ofl_meta *,
	    char *);

/* store-write.c */
/* Salvage the artifacts whose writer died (on a read-write open). */
void	 writer_recover(struct ofl_store *);

/* store-read.c */
/* Into dst, its own copies of src's label, command, cwd and session. */
void	 store_meta_strings(struct ofl_meta *, const struct ofl_meta *);
/* A writer's m from what its caller says at the end (fin, may be NULL). */
void	 store_meta_fin(struct ofl_meta *, const struct ofl_meta *);
/*
 * Into out, what the writer of id committed (m, its strings copied, the
 * content's hash, bytes and lines), read back.  A gc may purge it the
 * moment it is committed (a label it shares, a budget): the capture
 * happened all the same, and out is then what the writer says.
 */
void	 store_meta_committed(struct ofl_store *, const char *,
	    const struct ofl_meta *, const char *, uint64_t, uint64_t,
	    struct ofl_meta *);
/* Make the count of artifacts the triggers keep, when it is missing. */
void	 store_count_init(struct ofl_store *);
/*
 * 1 if artifacts a and b hold the same bytes.  With mem, a's bytes are
 * those (its whole content, as small content is kept in memory).
 */
int	 reader_same(struct ofl_store *, const char *, const unsigned char *,
	    size_t, const char *);

#endif
