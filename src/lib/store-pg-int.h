/*
 * store-pg-int.h: the PostgreSQL engine of the store, as the SQLite
 * files of the store call it (store-int.h includes this when configure
 * found libpq).  store-pg.c connects, makes and migrates the schema and
 * runs statements; store-pg-read.c answers metadata and reads frames;
 * store-pg-write.c writes artifacts.  Only these files name libpq.
 */
#ifndef OFL_STORE_PG_INT_H
#define OFL_STORE_PG_INT_H

struct ofl_writer;
struct store_pg_writer;

/* store-pg.c */
/* 1 if s names a PostgreSQL database: postgresql:// or postgres://. */
int		 store_pg_url(const char *);
/* The URL as shown in messages, its password masked. */
const char	*store_pg_shown(struct ofl_store *);
/* Advisory locks: this class, and a key in it (or a role's hash). */
#define PG_LOCK_CLASS		0x6f666c00	/* "ofl\0" */
#define PG_LOCK_SCHEMA		1
/* A class of its own: a blob's indexing, keyed by the blob's number. */
#define PG_LOCK_INDEX		(PG_LOCK_CLASS | 1)
/* Connect st (st->path is the URL), make or migrate the schema. */
int		 store_pg_open(struct ofl_store *);
void		 store_pg_close(struct ofl_store *);
/* What the engine cannot do yet: -1 and a one-line message. */
int		 store_pg_unsupported(struct ofl_store *, const char *);
/* ofl-index --rebuild: every content's index rows (store-pg-fts.c). */
int		 store_pg_ix_forget_all(struct ofl_store *);
int		 store_pg_begin(struct ofl_store *);
int		 store_pg_commit(struct ofl_store *);
void		 store_pg_rollback(struct ofl_store *);
/* A setting's value (def when unset), to free. */
char		*store_pg_setting_get(struct ofl_store *, const char *,
		    const char *);
int		 store_pg_setting_set(struct ofl_store *, const char *,
		    const char *);
uint64_t	 store_pg_size(struct ofl_store *);
int64_t		 store_pg_blob(struct ofl_store *, const char *);

/*
 * Arrays as parameters, in PostgreSQL's text form: each element added
 * (bytes as bytea, NULL as SQL NULL), then the array closed, as a string.
 */
void		 store_pg_arr_sep(struct ofl_buf *);
void		 store_pg_arr_bytes(struct ofl_buf *, const void *, size_t);
void		 store_pg_arr_text(struct ofl_buf *, const char *);
void		 store_pg_arr_int(struct ofl_buf *, int64_t);
const char	*store_pg_arr_end(struct ofl_buf *);

/* store-pg-read.c */
int		 store_pg_resolve(struct ofl_store *, const char *,
		    char [OFL_ID_MAX + 1]);
int		 store_pg_meta(struct ofl_store *, const char *,
		    struct ofl_meta *);
int		 store_pg_expired(struct ofl_store *, int64_t);
int		 store_pg_list(struct ofl_store *, const struct ofl_filter *,
		    int (*)(const struct ofl_meta *, void *), void *);
int64_t		 store_pg_count(struct ofl_store *,
		    const struct ofl_filter *);
int		 store_pg_frames_good(struct ofl_store *, const char *,
		    uint64_t *);
struct ofl_reader *store_pg_reader_open(struct ofl_store *, const char *);
/* Frame k of the reader, compressed, into r->cbuf. */
int		 store_pg_fetch(struct ofl_reader *, size_t);
int		 store_pg_previous(struct ofl_store *, const struct ofl_meta *,
		    char [OFL_ID_MAX + 1]);
int		 store_pg_changed(struct ofl_store *, const char *,
		    struct ofl_changed *);

/* store-pg-write.c */
void		 store_pg_touch(struct ofl_store *, const char *);
void		 store_pg_set_printed(struct ofl_store *, const char *,
		    uint64_t);
int		 store_pg_changed_set(struct ofl_store *, const char *,
		    const struct ofl_changed *);
struct store_pg_writer *store_pg_writer_begin(struct ofl_store *,
		    const struct ofl_meta *);
const char	*store_pg_writer_id(struct store_pg_writer *);
uint64_t	 store_pg_writer_bytes(struct store_pg_writer *);
int		 store_pg_writer_write(struct store_pg_writer *, const void *,
		    size_t);
int		 store_pg_writer_flush(struct store_pg_writer *);
/* Finish and free the writer, as ofl_writer_finish() does. */
int		 store_pg_writer_finish(struct store_pg_writer *,
		    const struct ofl_meta *, struct ofl_meta *);
/* Salvage the artifacts whose writer's session is gone. */
void		 store_pg_recover(struct ofl_store *);

/* store-pg-fts.c: as store-fts.c's calls of the same names. */
int		 store_pg_fts_state(struct ofl_store *, int64_t);
int		 store_pg_fts_claim(struct ofl_store *, int64_t, const char *,
		    int64_t *);
/* The tokenizer of the index is the caller's to make (store-fts.c). */
int		 store_pg_fts_write(struct ofl_store *, struct ofl_tok *,
		    int64_t, const char *, const struct ofl_fts_chunk *, size_t,
		    int64_t, int, int, uint64_t);
int		 store_pg_fts_forget(struct ofl_store *, int64_t);
int		 store_pg_fts_check(struct ofl_store *, struct ofl_buf *);
int64_t		 store_pg_fts_unindexed(struct ofl_store *,
		    const struct ofl_filter *,
		    int (*)(const char *, int64_t, void *), void *);
int		 store_pg_fts_blob_art(struct ofl_store *, int64_t,
		    const struct ofl_filter *, char *, size_t);
int		 store_pg_fts_progress(struct ofl_store *, int64_t, uint64_t *,
		    uint64_t *);
int		 store_pg_fts_chunk(struct ofl_store *, int64_t, int64_t,
		    struct ofl_fts_row *);
void		 store_pg_fts_titles(struct ofl_store *,
		    struct ofl_fts_title *, size_t);
int64_t		 store_pg_fts_chunks(struct ofl_store *);
int64_t		 store_pg_fts_vocab_doc(struct ofl_store *, const char *,
		    size_t);
void		 store_pg_fts_vocab_range(struct ofl_store *, const char *,
		    const char *, void (*)(const char *, int64_t, void *),
		    void *);
/*
 * The chunks a query may match into the in-memory connection's tables,
 * for store-fts-query.c to query as generation 0 of an index.
 */
int		 store_pg_fts_load(struct ofl_store *, struct ofl_tok *,
		    const struct ofl_fts_query *);

/* store-pg-tmpl.c: as store-tmpl.c's calls, for a blob. */
int		 store_pg_tmpl_get(struct ofl_store *, int64_t,
		    struct ofl_fmt_log_tmpl_info **, size_t *, size_t *,
		    uint64_t *);
int		 store_pg_tmpl_put(struct ofl_store *, int64_t,
		    const struct ofl_fmt_log_tmpl *);

/* store-pg-gc.c: as store-gc.c's calls of the same names. */
int		 store_pg_gc_pin(struct ofl_store *, const char *, int);
int		 store_pg_gc_candidates(struct ofl_store *, int64_t,
		    struct ofl_store_gc_cand **, size_t *);
int		 store_pg_gc_brefs(struct ofl_store *,
		    struct ofl_store_gc_bref **, size_t *);
uint64_t	 store_pg_gc_count(struct ofl_store *);
uint64_t	 store_pg_gc_index_bytes(struct ofl_store *);
int		 store_pg_gc_unused(struct ofl_store *,
		    struct ofl_store_gc_blob **, size_t *);
int		 store_pg_gc_contents(struct ofl_store *,
		    struct ofl_store_gc_content **, size_t *);
int		 store_pg_gc_index_check(struct ofl_store *,
		    struct ofl_store_gc_ixcheck *);
int		 store_pg_gc_row(struct ofl_store *, const char *,
		    struct ofl_store_gc_row *);
int		 store_pg_gc_delete(struct ofl_store *, const char *, int64_t,
		    int *);
int		 store_pg_gc_drop_blob(struct ofl_store *, int64_t);
int		 store_pg_gc_stats(struct ofl_store *, int,
		    struct ofl_store_stat **, size_t *);
int		 store_pg_lock(struct ofl_store *, const char *, int);
void		 store_pg_unlock(struct ofl_store *, const char *);
int		 store_pg_stamp(struct ofl_store *, const char *, int64_t);

/*
 * For the engine's files, which include pq.h first: statements
 * with their parameters, never text spliced into SQL.  Parameters are
 * text, or binary for bytea; results are text unless binary is asked.
 */
#ifdef LIBPQ_FE_H
#define STORE_PG_ARGS	20
struct store_pg_args {
	const char	*v[STORE_PG_ARGS];
	int		 len[STORE_PG_ARGS];
	int		 fmt[STORE_PG_ARGS];
	char		 num[STORE_PG_ARGS][24];
	int		 n;
};
void		 store_pg_args_init(struct store_pg_args *);
/* $n+1: text (NULL: SQL NULL), a number, bytes. */
void		 store_pg_arg_text(struct store_pg_args *, const char *);
void		 store_pg_arg_int(struct store_pg_args *, int64_t);
void		 store_pg_arg_bin(struct store_pg_args *, const void *,
		    size_t);
/*
 * Run sql with args (may be NULL): its result, to PQclear(), or NULL
 * with the error set ("store URL: what: the server's message").
 */
PGresult	*store_pg_run(struct ofl_store *, const char *,
		    const struct store_pg_args *, int, const char *);
/* Run sql with args and drop its result: 0, or -1 with the error set. */
int		 store_pg_do(struct ofl_store *, const char *,
		    const struct store_pg_args *, const char *);
/*
 * Run sql with args: 1 and the first column of its first row in *v (a
 * number), 0 if it gave no row, -1 with the error set.
 */
int		 store_pg_value(struct ofl_store *, const char *,
		    const struct store_pg_args *, const char *, int64_t *);
/* Column c of row r: a number (0 if NULL), a string to free (or NULL). */
int64_t		 store_pg_int(const PGresult *, int, int);
/* A filter of the artifacts "a", as STORE_FILTER_SQL, on $2 to $6. */
#define PG_FILTER_SQL							\
	" ($2::text IS NULL OR a.label = $2)"				\
	" AND ($3::text IS NULL OR a.session = $3)"			\
	" AND ($4::text IS NULL OR a.kind = $4)"			\
	" AND ($5::bigint = 0 OR a.created >= $5)"			\
	" AND ($6::bigint = 0 OR a.created < $6)"
/* $1 for the statement's own use, then the filter's $2 to $6. */
void		 store_pg_filter_args(struct store_pg_args *,
		    const struct ofl_filter *, int64_t);
char		*store_pg_str(const PGresult *, int, int);
#endif

#endif
