/*
 * store-pg-write.c: the PostgreSQL engine's writer, the small updates
 * of an artifact's row, and the salvage of artifacts whose writer died.
 *
 * A writer records its blob and its artifact (state "writing") and
 * takes a session advisory lock on the artifact's number, then cuts the
 * content into frames of FRAME_MAX bytes, compresses each (zstd, with a
 * checksum, as the SQLite engine does) and inserts it as a row of the
 * frame table, one statement each, so a frame in the table is whole.
 * Finishing hashes the content and shares a blob of the same owner with
 * the same bytes.  A writer whose session ends (its process or machine
 * died) loses its lock; the next read-write open takes it and salvages
 * the frames (store_pg_recover()).
 *
 * Compression runs in the caller's thread here; the SQLite writer's
 * worker threads are not used yet.
 */
#include "config.h"

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "pq.h"

#include "ofl.h"
#include "store-int.h"
#include "banned.h"


struct store_pg_writer {
	struct ofl_store	*st;
	char			 id[OFL_ID_MAX + 1];
	int64_t			 seq;
	int64_t			 blob;
	ZSTD_CCtx		*cctx;
	struct store_intake	 in;		/* the bytes given */
	unsigned char		*cbuf;
	uint64_t		 raw_off;
	uint64_t		 comp_off;
	uint64_t		 nl_committed;
	int			 failed;
};

static int	 pg_lock(struct ofl_store *, const char *, int64_t);
static int	 pg_finalize(struct ofl_store *, const char *, int64_t,
		    const unsigned char *, const char *, uint64_t, uint64_t,
		    const struct ofl_meta *);

static void
pg_set(struct ofl_store *st, const char *sql, const char *id, int64_t v)
{
	struct store_pg_args	a;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, v);
	store_pg_arg_text(&a, id);
	(void)store_pg_do(st, sql, &a, "update");
}

void
store_pg_touch(struct ofl_store *st, const char *id)
{
	pg_set(st, "UPDATE ofl.artifact SET used = $1 WHERE id = $2", id,
	    ofl_now_ms());
}

void
store_pg_set_printed(struct ofl_store *st, const char *id, uint64_t n)
{
	pg_set(st, "UPDATE ofl.artifact SET printed = $1 WHERE id = $2", id,
	    (int64_t)n);
}

int
store_pg_changed_set(struct ofl_store *st, const char *id,
    const struct ofl_changed *ch)
{
	struct store_pg_args	 a;
	struct ofl_buf		 b;
	int			 rv;

	if (ch->n == 0)
		return 0;
	ofl_buf_init(&b);
	ofl_changed_join(ch, &b);
	store_pg_args_init(&a);
	store_pg_arg_text(&a, id);
	store_pg_arg_text(&a, ofl_buf_str(&b));
	rv = store_pg_do(st, "INSERT INTO ofl.changed (id, files) VALUES"
	    " ($1, $2) ON CONFLICT (id) DO UPDATE SET files = excluded.files",
	    &a, "changed files");
	ofl_buf_free(&b);
	return rv;
}

/* Take (fn "pg_advisory_lock") or drop a session lock on seq. */
static int
pg_lock(struct ofl_store *st, const char *sql, int64_t seq)
{
	struct store_pg_args	a;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, seq);
	return store_pg_do(st, sql, &a, "lock");
}

/*
 * The blob and artifact rows, state "writing", under a new ID, and the
 * writer's lock, in one transaction.  0, 1 when the ID is taken, -1.
 */
static int
pg_rows(struct store_pg_writer *w, const struct ofl_meta *init)
{
	struct ofl_store	*st = w->st;
	struct store_pg_args	 a;
	PGresult		*res;
	int64_t			 now = ofl_now_ms();
	int			 taken;

	if (store_pg_do(st, "BEGIN", NULL, "new artifact") == -1)
		return -1;
	store_pg_args_init(&a);
	store_pg_arg_int(&a, now);
	if ((res = store_pg_run(st, "INSERT INTO ofl.blob (created) VALUES"
	    " ($1) RETURNING id", &a, 0, "new blob")) == NULL)
		goto rollback;
	w->blob = store_pg_int(res, 0, 0);
	PQclear(res);
	store_pg_args_init(&a);
	store_pg_arg_text(&a, w->id);
	store_pg_arg_int(&a, w->blob);
	store_pg_arg_int(&a, now);
	if (init != NULL && init->expires > 0)
		store_pg_arg_int(&a, init->expires);
	else
		store_pg_arg_text(&a, NULL);
	store_pg_arg_text(&a, init != NULL ? init->label : NULL);
	store_pg_arg_text(&a, init != NULL ? init->command : NULL);
	store_pg_arg_text(&a, init != NULL ? init->cwd : NULL);
	store_pg_arg_text(&a, init != NULL ? init->session : NULL);
	if ((res = store_pg_run(st, "INSERT INTO ofl.artifact (id, blob,"
	    " state, created, used, expires, label, command, cwd, session)"
	    " VALUES ($1, $2, 0, $3, $3, $4, $5, $6, $7, $8)"
	    " ON CONFLICT (id) DO NOTHING RETURNING seq", &a, 0,
	    "new artifact")) == NULL)
		goto rollback;
	if ((taken = PQntuples(res) == 0) == 0)
		w->seq = store_pg_int(res, 0, 0);
	PQclear(res);
	if (taken) {
		store_pg_rollback(st);
		return 1;
	}
	if (pg_lock(st, "SELECT pg_advisory_lock($1::bigint)", w->seq) == -1 ||
	    store_pg_do(st, "COMMIT", NULL, "new artifact") == -1)
		goto rollback;
	return 0;
rollback:
	store_pg_rollback(st);
	return -1;
}

struct store_pg_writer *
store_pg_writer_begin(struct ofl_store *st, const struct ofl_meta *init)
{
	struct store_pg_writer	*w;
	int			 tries, rc = 1;

	if (!st->rdwr) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: opened read-only",
		    store_pg_shown(st));
		return NULL;
	}
	w = ofl_xcalloc(1, sizeof *w);
	w->st = st;
	for (tries = 0; tries < 16 && rc == 1; tries++) {
		ofl_id_new(w->id);
		rc = pg_rows(w, init);
	}
	if (rc != 0) {
		if (rc == 1)
			ofl_seterr(OFL_EXIT_FAIL, "store %s: cannot make a "
			    "new ID", store_pg_shown(st));
		free(w);
		return NULL;
	}
	if ((w->cctx = ZSTD_createCCtx()) == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "out of memory");
		free(w);
		return NULL;
	}
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, st->level);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	w->cbuf = ofl_xmalloc(ZSTD_compressBound(FRAME_MAX));
	store_intake_init(&w->in);
	return w;
}

const char *
store_pg_writer_id(struct store_pg_writer *w)
{
	return w->id;
}

uint64_t
store_pg_writer_bytes(struct store_pg_writer *w)
{
	return w->in.bytes;
}

/* Compress the pending bytes and insert them as the next frame. */
static int
pg_frame(struct store_pg_writer *w)
{
	struct store_pg_args	a;
	size_t			clen;

	if (w->in.len == 0)
		return 0;
	clen = ZSTD_compress2(w->cctx, w->cbuf, ZSTD_compressBound(FRAME_MAX),
	    w->in.buf, w->in.len);
	if (ZSTD_isError(clen)) {
		ofl_seterr(OFL_EXIT_FAIL, "compress: %s",
		    ZSTD_getErrorName(clen));
		return -1;
	}
	store_pg_args_init(&a);
	store_pg_arg_int(&a, w->blob);
	store_pg_arg_int(&a, (int64_t)w->raw_off);
	store_pg_arg_int(&a, (int64_t)w->in.len);
	store_pg_arg_int(&a, (int64_t)w->nl_committed);
	store_pg_arg_int(&a, (int64_t)w->in.nl_pending);
	store_pg_arg_int(&a, (int64_t)w->comp_off);
	store_pg_arg_int(&a, (int64_t)clen);
	store_pg_arg_bin(&a, w->cbuf, clen);
	if (store_pg_do(w->st, "INSERT INTO ofl.frame (blob, raw_off,"
	    " raw_len, line_off, nl, comp_off, comp_len, data) VALUES ($1, $2,"
	    " $3, $4, $5, $6, $7, $8)", &a, "write frame") == -1)
		return -1;
	w->raw_off += w->in.len;
	w->comp_off += clen;
	w->nl_committed += w->in.nl_pending;
	w->in.nl_pending = 0;
	w->in.len = 0;
	return 0;
}

/* The frame function of the intake (store-intake.c). */
static int
pg_frame_cb(void *arg)
{
	return pg_frame(arg);
}

int
store_pg_writer_write(struct store_pg_writer *w, const void *data, size_t n)
{
	if (w->failed)
		return -1;
	if (store_intake(&w->in, data, n, pg_frame_cb, w) == -1) {
		w->failed = 1;
		return -1;
	}
	return 0;
}

int
store_pg_writer_flush(struct store_pg_writer *w)
{
	if (w->failed)
		return -1;
	if (pg_frame(w) == -1) {
		w->failed = 1;
		return -1;
	}
	return 0;
}

/* A blob other than blob, of this owner, with hash and the same bytes. */
static int64_t
pg_twin(struct ofl_store *st, const char *id, const unsigned char *mem,
    size_t memlen, int64_t blob, const char *hash)
{
	struct store_pg_args	 a;
	PGresult		*res;
	char			*aid = NULL;
	int64_t			 twin = -1;

	store_pg_args_init(&a);
	store_pg_arg_text(&a, hash);
	store_pg_arg_int(&a, blob);
	/* The owner's own: another's blob is another's to expire. */
	if ((res = store_pg_run(st, "SELECT b.id, a.id FROM ofl.blob b JOIN"
	    " ofl.artifact a ON a.blob = b.id WHERE b.owner = current_user"
	    " AND b.hash = $1 AND b.id <> $2 LIMIT 1", &a, 0,
	    "finish")) == NULL)
		return -1;
	if (PQntuples(res) > 0) {
		twin = store_pg_int(res, 0, 0);
		aid = store_pg_str(res, 0, 1);
	}
	PQclear(res);
	if (twin != -1 && !reader_same(st, id, mem, memlen, aid))
		twin = -1;
	free(aid);
	return twin;
}

/* Lock blob against removal, in a transaction: blob, -1 if gone, -2. */
static int64_t
pg_twin_lock(struct ofl_store *st, int64_t blob)
{
	struct store_pg_args	 a;
	int64_t			 one;
	int			 rc;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	if ((rc = store_pg_value(st, "SELECT 1 FROM ofl.blob WHERE id = $1"
	    " FOR KEY SHARE", &a, "finish", &one)) == -1)
		return -2;
	return rc == 1 ? blob : -1;
}

/*
 * Make an artifact complete, in one transaction: on a twin blob with the
 * same bytes (dropping its own), or on its own blob with the hash.  A
 * hash that another blob took meanwhile is left off ours.
 */
static int
pg_finalize(struct ofl_store *st, const char *id, int64_t blob,
    const unsigned char *mem, const char *hash, uint64_t bytes,
    uint64_t lines, const struct ofl_meta *fin)
{
	struct store_pg_args	 a;
	int64_t			 twin, own = blob;
	int			 hashed;

	twin = pg_twin(st, id, mem, (size_t)bytes, blob, hash);
	for (hashed = 1; hashed >= 0; hashed--) {
		if (store_pg_do(st, "BEGIN", NULL, "finish") == -1)
			return -1;
		/*
		 * The twin kept until the commit (a gc that would drop it
		 * waits: store-pg-gc.c), or ours after all if it went.
		 */
		if (twin != -1 && (twin = pg_twin_lock(st, twin)) == -2)
			break;
		store_pg_args_init(&a);
		store_pg_arg_int(&a, own);
		store_pg_arg_text(&a, hashed ? hash : NULL);
		store_pg_arg_int(&a, (int64_t)bytes);
		store_pg_arg_int(&a, (int64_t)lines);
		if (twin == -1 && store_pg_do(st, "UPDATE ofl.blob SET"
		    " hash = $2, bytes = $3, lines = $4, stored = (SELECT"
		    " coalesce(sum(comp_len), 0) FROM ofl.frame WHERE"
		    " blob = $1) WHERE id = $1", &a, "finish") == -1) {
			store_pg_rollback(st);
			continue;
		}
		store_pg_args_init(&a);
		store_pg_arg_text(&a, id);
		store_pg_arg_int(&a, twin != -1 ? twin : own);
		store_pg_arg_int(&a, fin->incomplete ? 1 : 0);
		store_pg_arg_text(&a, ofl_kind_name(fin->kind));
		store_pg_arg_int(&a, (int64_t)bytes);
		store_pg_arg_int(&a, (int64_t)lines);
		if (fin->has_exit)
			store_pg_arg_int(&a, fin->exit_status);
		else
			store_pg_arg_text(&a, NULL);
		if (fin->duration_ms >= 0)
			store_pg_arg_int(&a, fin->duration_ms);
		else
			store_pg_arg_text(&a, NULL);
		store_pg_arg_int(&a, (int64_t)fin->errors);
		store_pg_arg_int(&a, (int64_t)fin->warnings);
		store_pg_arg_int(&a, (int64_t)fin->first_error);
		if (fin->printed >= 0)
			store_pg_arg_int(&a, fin->printed);
		else
			store_pg_arg_text(&a, NULL);
		if (store_pg_do(st, "UPDATE ofl.artifact SET blob = $2,"
		    " state = 1, incomplete = $3, kind = $4, bytes = $5,"
		    " lines = $6, exit_status = $7, duration_ms = $8,"
		    " errors = $9, warnings = $10, first_error = $11,"
		    " printed = $12 WHERE id = $1", &a, "finish") == -1)
			break;
		store_pg_args_init(&a);
		store_pg_arg_int(&a, own);
		if (twin != -1 && store_pg_do(st, "DELETE FROM ofl.blob WHERE"
		    " id = $1", &a, "finish") == -1)
			break;
		if (store_pg_do(st, "COMMIT", NULL, "finish") == 0)
			return 0;
		break;
	}
	store_pg_rollback(st);
	return -1;
}

static void
pg_writer_free(struct store_pg_writer *w)
{
	ZSTD_freeCCtx(w->cctx);
	store_intake_free(&w->in);
	free(w->cbuf);
	free(w);
}

int
store_pg_writer_finish(struct store_pg_writer *w, const struct ofl_meta *fin,
    struct ofl_meta *out)
{
	struct ofl_meta	 m;
	char		 hash[OFL_HASH_HEX] = "";
	uint64_t	 lines = 0;
	int		 rv = 0, failed = w->failed;

	if (!failed && pg_frame(w) == -1)
		failed = 1;
	store_meta_fin(&m, fin);
	if (!failed) {
		lines = store_intake_end(&w->in, w->nl_committed, &m, hash);
		if (pg_finalize(w->st, w->id, w->blob, w->in.bytes ==
		    w->in.headlen ? w->in.head : NULL, hash, w->in.bytes, lines,
		    &m) == -1)
			failed = 1;
	}
	(void)pg_lock(w->st, "SELECT pg_advisory_unlock($1::bigint)", w->seq);
	if (failed) {
		/* Keep what was committed: salvage it now. */
		char	err[1024];

		snprintf(err, sizeof err, "%s", ofl_errmsg());
		store_pg_recover(w->st);
		ofl_seterr(OFL_EXIT_FAIL, "%s", err);
		rv = -1;
	}
	if (out != NULL && rv == 0)
		store_meta_committed(w->st, w->id, &m, hash, w->in.bytes, lines,
		    out);
	else if (out != NULL)
		(void)ofl_store_meta(w->st, w->id, out);
	pg_writer_free(w);
	return rv;
}

/* Salvage one artifact whose writer is gone: its frames, incomplete. */
static void
pg_salvage(struct ofl_store *st, const char *id, int64_t blob)
{
	struct ofl_reader	*r;
	struct ofl_hash		 h;
	struct ofl_meta		 m;
	char			 hash[OFL_HASH_HEX], buf[65536];
	ssize_t			 got;
	uint64_t		 lines;
	int			 last = -1;

	if ((r = ofl_reader_open(st, id)) == NULL)
		return;
	ofl_hash_init(&h);
	memset(&m, 0, sizeof m);
	m.incomplete = 1;
	m.duration_ms = -1;
	m.printed = -1;
	while ((got = ofl_reader_read(r, buf, sizeof buf)) > 0) {
		ofl_hash_update(&h, buf, (size_t)got);
		last = (unsigned char)buf[got - 1];
	}
	if (got == 0) {
		ofl_hash_final_hex(&h, hash);
		lines = ofl_reader_lines(r) + (ofl_reader_bytes(r) > 0 &&
		    last != '\n');
		(void)ofl_reader_seek(r, 0);
		got = ofl_reader_read(r, buf, sizeof buf);
		m.kind = ofl_kind_detect((unsigned char *)buf,
		    got > 0 ? (size_t)got : 0,
		    (uint64_t)(got > 0 ? got : 0) == ofl_reader_bytes(r));
		(void)pg_finalize(st, id, blob, NULL, hash,
		    ofl_reader_bytes(r), lines, &m);
	}
	ofl_reader_close(r);
}

/*
 * The artifacts still "writing" whose lock this session can take: their
 * writer's session is gone, on whatever machine it ran.
 */
void
store_pg_recover(struct ofl_store *st)
{
	PGresult	*res;
	int		 r, n;

	/* Not the writers of this session: its locks are taken again. */
	if ((res = store_pg_run(st, "WITH c AS MATERIALIZED (SELECT id,"
	    " blob, seq FROM ofl.artifact a WHERE state = 0 AND NOT EXISTS"
	    " (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND"
	    " l.pid = pg_backend_pid() AND l.objsubid = 1 AND"
	    " l.classid::bigint = (a.seq >> 32) AND"
	    " l.objid::bigint = (a.seq & 4294967295)))"
	    " SELECT id, blob, seq FROM c WHERE pg_try_advisory_lock(seq)",
	    NULL, 0, "recover")) == NULL)
		return;
	n = PQntuples(res);
	for (r = 0; r < n; r++) {
		pg_salvage(st, PQgetvalue(res, r, 0), store_pg_int(res, r, 1));
		(void)pg_lock(st, "SELECT pg_advisory_unlock($1::bigint)",
		    store_pg_int(res, r, 2));
	}
	PQclear(res);
}
