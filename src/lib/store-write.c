/*
 * store-write.c: the writer, which stores one artifact's content as it
 * comes, and the recovery of artifacts whose writer died.
 *
 * A writer creates and locks its blob file, then records the artifact
 * (state "writing"): at once when the write lock is free, else when it
 * next is, before any frame (ofl_writer_begin()).  Content is cut into
 * frames of FRAME_MAX bytes or a little less (at the end of the last
 * line within CUT_MAX of the end), each compressed and appended to the
 * file, then recorded in the frame table, so the frames in the database
 * are always readable.  Past the first SKETCH_FROM, a frame that starts
 * and ends at a line's end is sketched too (store-sketch.c).  Finishing
 * hashes the content and shares an existing blob with the same bytes.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

#define CUT_MAX		(64 * 1024)	/* a frame's end moved to a line's */
#define SKETCH_FROM	4		/* frames before the first sketched */
#define BUSY_STEP_MS	20		/* longest sleep of a waiting writer */
/*
 * zstd levels: the store's level (store.c) normally; its fast level for
 * a frame that came in a flood (less than FLOOD_US after the one before:
 * over 250 MB/s) or while others wait behind it, so that compression
 * does not hold up a fast producer (as zstd --adapt does).
 */
#define FLOOD_US	4000
#define NWORK_MAX	4		/* compressing threads of a writer */
#define FLUSH_WAIT_MS	100		/* a flush waits for their commits */
#define NBUF		(2 * NWORK_MAX + 1)	/* its frame buffers, at most */

/* A zstd context and its output buffer. */
struct cz {
	ZSTD_CCtx	*cctx;
	unsigned char	*cbuf;		/* ZSTD_compressBound(FRAME_MAX) */
};

struct ofl_writer {
	struct ofl_store	*st;
	struct store_pg_writer	*pg;		/* PostgreSQL's, or NULL */
	char			 id[OFL_ID_MAX + 1];
	int64_t			 blob;
	char			*file;
	/*
	 * Rows not recorded yet (another process held the write lock when
	 * the writer began), and what they will say: ofl_writer_begin().
	 */
	int			 unrecorded;
	char			 name[32];	/* the blob file's, XX/ID */
	struct ofl_meta		 init;		/* its own copies, and when
						   it began */
	int			 fd;
	struct store_intake	 in;		/* the bytes given */
	struct cz		 cz;		/* for frames compressed here */
	uint64_t		 raw_off;	/* raw bytes in committed frames */
	uint64_t		 comp_off;
	uint64_t		 nl_committed;	/* newlines in committed frames */
	uint64_t		 nframe;	/* frames cut */
	int			 line_start;	/* buf starts a line */
	unsigned char		*carry;		/* a cut frame's last line */
	unsigned char		*sketch;	/* a frame's sketch, here */
	sqlite3_stmt		*ins_sketch;
	int			 failed;
	sqlite3_stmt		*ins_frame;
	char			 ferr[512];	/* why a frame failed */
	/*
	 * Past the first frame, frames are compressed by worker threads,
	 * one per CPU, while the caller goes on reading, hashing and
	 * counting lines.  Jobs are numbered; a worker that finishes one
	 * commits, in order, every finished job from the oldest on, unless
	 * another worker is doing so, so the file and the frame table stay
	 * in order and no worker waits for another.  Workers share one
	 * database connection of their own, used only by the committer.
	 */
	int			 nwork;		/* workers running, 0: none */
	struct worker {
		struct ofl_writer	*w;
		pthread_t		 thread;
		ZSTD_CCtx		*cctx;
		int			 level;
	}			 work[NWORK_MAX];
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv_job;	/* a job queued, or stop */
	pthread_cond_t		 cv_free;	/* a job committed */
	sqlite3			*tdb;
	struct job {
		unsigned char	*buf;
		size_t		 len;
		uint64_t	 nl;
		int		 flood;
		int		 want_sketch;
		unsigned char	*sketch;	/* this slot's, for good */
		unsigned char	*cbuf;		/* this slot's, for good */
		size_t		 clen;		/* 0: compression failed */
		int		 done;
		char		 err[128];
	}			 q[NBUF];
	size_t			 nq;		/* slots in q */
	uint64_t		 seq_next;	/* the next job queued */
	uint64_t		 seq_take;	/* the next job to take */
	uint64_t		 seq_commit;	/* the next job to commit */
	int64_t			 last_us;	/* when the last job was queued */
	int			 committing;
	unsigned char		*freebuf[NBUF];
	size_t			 nfree;
	int			 stop;
	int			 tfailed;
};

static void	 writer_unbusy(struct ofl_store *);
static int	 cz_init(struct cz *, int);
static int	 writer_frame(struct ofl_writer *);
static int	 finalize(struct ofl_store *, const char *, int64_t,
		    const unsigned char *, const char *, uint64_t, uint64_t,
		    const struct ofl_meta *, int);
#ifdef HAVE_LIBPQ
static struct ofl_writer *writer_pg_begin(struct ofl_store *,
		    const struct ofl_meta *);
static int	 writer_pg_finish(struct ofl_writer *, const struct ofl_meta *,
		    struct ofl_meta *);

/* A writer of the PostgreSQL engine (store-pg-write.c) in this one. */
static struct ofl_writer *
writer_pg_begin(struct ofl_store *st, const struct ofl_meta *init)
{
	struct ofl_writer	*w;

	w = ofl_xcalloc(1, sizeof *w);
	w->st = st;
	w->fd = -1;
	if ((w->pg = store_pg_writer_begin(st, init)) == NULL) {
		free(w);
		return NULL;
	}
	return w;
}

static int
writer_pg_finish(struct ofl_writer *w, const struct ofl_meta *fin,
    struct ofl_meta *out)
{
	int	rv;

	rv = store_pg_writer_finish(w->pg, fin, out);
	free(w);
	return rv;
}
#endif

/*
 * A writer waits for the write lock for as long as it takes, however
 * long another process holds it (a gc, a stopped indexer): its output is
 * in its blob file already and giving up would lose it.  Backoff from
 * 1 ms to BUSY_STEP_MS.
 */
static int
writer_busy(void *arg, int n)
{
	struct timespec	ts;
	long		ms;

	(void)arg;
	ms = n < 8 ? 1L << n : BUSY_STEP_MS;
	if (ms > BUSY_STEP_MS)
		ms = BUSY_STEP_MS;
	ts.tv_sec = 0;
	ts.tv_nsec = ms * 1000000L;
	nanosleep(&ts, NULL);
	return 1;
}

void
ofl_store_touch(struct ofl_store *st, const char *id)
{
	sqlite3_stmt	*stmt;

	STORE_PG_VOID(st, store_pg_touch(st, id));
	if (store_prepare(st, "UPDATE artifact SET used = ?1 WHERE id = ?2",
	    &stmt) == -1)
		return;
	sqlite3_bind_int64(stmt, 1, ofl_now_ms());
	sqlite3_bind_text(stmt, 2, id, -1, SQLITE_STATIC);
	(void)sqlite3_step(stmt);
	sqlite3_finalize(stmt);
}

void
ofl_store_set_printed(struct ofl_store *st, const char *id, uint64_t n)
{
	sqlite3_stmt	*stmt;

	STORE_PG_VOID(st, store_pg_set_printed(st, id, n));
	if (store_prepare(st, "UPDATE artifact SET printed = ?1 WHERE id = ?2",
	    &stmt) == -1)
		return;
	sqlite3_bind_int64(stmt, 1, (int64_t)n);
	sqlite3_bind_text(stmt, 2, id, -1, SQLITE_STATIC);
	(void)sqlite3_step(stmt);
	sqlite3_finalize(stmt);
}

/* Record blob as the last blob number taken (sqlite_sequence). */
static int
blob_seq(struct ofl_store *st, const char *sql, int64_t blob)
{
	sqlite3_stmt	*stmt;

	if (store_prepare(st, sql, &stmt) == -1)
		return -1;
	sqlite3_bind_int64(stmt, 1, blob);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		store_fail(st, "new blob");
		sqlite3_finalize(stmt);
		return -1;
	}
	sqlite3_finalize(stmt);
	return 0;
}

/*
 * A new blob row for file name, created now, inside the caller's
 * transaction; its number (never one used before), or -1.
 */
static int64_t
blob_new(struct ofl_store *st, const char *name, int64_t now)
{
	sqlite3_stmt	*stmt;
	int64_t		 blob;

	/*
	 * Blob numbers are never used twice (AUTOINCREMENT's bookkeeping,
	 * in sqlite_sequence): rows keyed by a removed blob, left by an old
	 * ofl or a crash, must never be taken for a new blob's.
	 */
	if (store_prepare(st, "INSERT INTO blob (id, file, created) VALUES"
	    " (max(coalesce((SELECT max(id) FROM blob), 0), coalesce((SELECT"
	    " max(seq) FROM sqlite_sequence WHERE name = 'blob'), 0)) + 1,"
	    " ?1, ?2)", &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, now);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		store_fail(st, "new blob");
		sqlite3_finalize(stmt);
		return -1;
	}
	sqlite3_finalize(stmt);
	blob = sqlite3_last_insert_rowid(st->db);
	if (blob_seq(st, "UPDATE sqlite_sequence SET seq = ?1 WHERE"
	    " name = 'blob'", blob) == -1 ||
	    (sqlite3_changes(st->db) == 0 && blob_seq(st, "INSERT INTO"
	    " sqlite_sequence (name, seq) VALUES ('blob', ?1)", blob) == -1))
		return -1;
	return blob;
}

/*
 * Make and lock the writer's blob file, under a new ID: blobs/XX/ID.
 * Its name ("XX/ID") goes to name.
 */
static int
writer_file(struct ofl_writer *w, char *name, size_t namelen)
{
	struct ofl_store	*st = w->st;
	char			 dir[8];
	char			*dirpath = NULL;
	int			 tries;

	for (tries = 0; tries < 16; tries++) {
		ofl_id_new(w->id);
		snprintf(dir, sizeof dir, "%.2s", w->id);
		snprintf(name, namelen, "%s/%s", dir, w->id);
		free(dirpath);
		dirpath = store_blob_path(st, dir);
		if (mkdir(dirpath, 0700) == -1 && errno != EEXIST) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: %s", dirpath,
			    strerror(errno));
			goto fail;
		}
		free(w->file);
		w->file = store_blob_path(st, name);
		w->fd = open(w->file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600);
		if (w->fd != -1)
			break;
		if (errno != EEXIST) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: %s", w->file,
			    strerror(errno));
			goto fail;
		}
	}
	free(dirpath);
	if (w->fd == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: cannot make a new ID",
		    st->path);
		return -1;
	}
	if (flock(w->fd, LOCK_EX) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: lock: %s", w->file,
		    strerror(errno));
		return -1;
	}
	return 0;
fail:
	free(dirpath);
	return -1;
}

/*
 * Take the write lock if no other process holds it, without waiting: 1
 * taken (a transaction begun), 0 held elsewhere, -1 an error.
 */
static int
writer_lock_try(struct ofl_store *st)
{
	int	rc;

	sqlite3_busy_handler(st->db, NULL, NULL);
	rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	sqlite3_busy_handler(st->db, writer_busy, NULL);
	if (rc == SQLITE_OK)
		return 1;
	if ((rc & 0xff) == SQLITE_BUSY)
		return 0;
	return store_fail(st, "database");
}

/*
 * Record the writer's blob (its file's name) and its artifact, in state
 * "writing", inside the caller's transaction.
 */
static int
writer_rows(struct ofl_writer *w)
{
	struct ofl_store	*st = w->st;
	const struct ofl_meta	*init = &w->init;
	sqlite3_stmt		*stmt = NULL;

	if ((w->blob = blob_new(st, w->name, init->created)) == -1)
		return -1;
	if (store_prepare(st, "INSERT INTO artifact (id, blob, state, pid,"
	    " created, used, expires, label, command, cwd, session)"
	    " VALUES (?1, ?2, 0, ?3, ?4, ?4, ?5, ?6, ?7, ?8, ?9)",
	    &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, w->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, w->blob);
	sqlite3_bind_int64(stmt, 3, (int64_t)getpid());
	sqlite3_bind_int64(stmt, 4, init->created);
	if (init->expires > 0)
		sqlite3_bind_int64(stmt, 5, init->expires);
	if (init->label != NULL)
		sqlite3_bind_text(stmt, 6, init->label, -1, SQLITE_STATIC);
	if (init->command != NULL)
		sqlite3_bind_text(stmt, 7, init->command, -1, SQLITE_STATIC);
	if (init->cwd != NULL)
		sqlite3_bind_text(stmt, 8, init->cwd, -1, SQLITE_STATIC);
	if (init->session != NULL)
		sqlite3_bind_text(stmt, 9, init->session, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		store_fail(st, "new artifact");
		sqlite3_finalize(stmt);
		return -1;
	}
	sqlite3_finalize(stmt);
	return 0;
}

/*
 * The rows recorded and committed, in the transaction the caller began
 * (begun: 1, writer_lock_try()) or in one begun here when the lock is
 * free.
 */
static int
writer_record(struct ofl_writer *w, int begun)
{
	struct ofl_store	*st = w->st;

	if (!begun && store_exec(st, "BEGIN IMMEDIATE") == -1)
		return -1;
	if (writer_rows(w) == -1 || store_exec(st, "COMMIT") == -1) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	w->unrecorded = 0;
	return 0;
}

/*
 * A writer makes and locks its blob file, then records it and its
 * artifact.  When another process holds the store's write lock (a gc, an
 * indexer, another writer's commit), the rows wait until it is free (an
 * idle flush, the first frame) and the writer starts at once: a
 * command's first output is not held up by someone else's commit.  The
 * file, locked, is no orphan to a gc meanwhile, and an artifact whose
 * rows are not there yet is not listed.
 */
struct ofl_writer *
ofl_writer_begin(struct ofl_store *st, const struct ofl_meta *init)
{
	struct ofl_writer	*w;

	STORE_PG(st, writer_pg_begin(st, init));
	if (!st->rdwr) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: opened read-only",
		    st->path);
		return NULL;
	}
	w = ofl_xcalloc(1, sizeof *w);
	w->st = st;
	w->fd = -1;
	w->line_start = 1;
	w->init.created = ofl_now_ms();
	if (init != NULL) {
		w->init.expires = init->expires;
		store_meta_strings(&w->init, init);
	}
	w->unrecorded = 1;
	if (writer_file(w, w->name, sizeof w->name) == -1)
		goto fail;
	/*
	 * From here on, a wait for the lock lasts as long as needed; the
	 * rows do not wait for it.
	 */
	if (st->writers++ == 0)
		sqlite3_busy_handler(st->db, writer_busy, NULL);
	switch (writer_lock_try(st)) {
	case 1:
		if (writer_record(w, 1) == -1)
			goto fail_busy;
		break;
	case 0:
		break;		/* when the lock is free */
	default:
		goto fail_busy;
	}

	if (store_prepare(st, "INSERT INTO frame (blob, raw_off, raw_len,"
	    " line_off, nl, comp_off, comp_len) VALUES (?1, ?2, ?3, ?4, ?5,"
	    " ?6, ?7)", &w->ins_frame) == -1)
		goto fail_rows;
	store_intake_init(&w->in);
	if (cz_init(&w->cz, st->level) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "out of memory");
		goto fail_rows;
	}
	return w;

fail_busy:
	writer_unbusy(st);
fail:
	if (w->fd != -1) {
		unlink(w->file);
		close(w->fd);
	}
	ofl_meta_free(&w->init);
	free(w->file);
	free(w);
	return NULL;
fail_rows:
	/* Rows recorded are left to recovery, as after a crash. */
	if (w->unrecorded)
		unlink(w->file);
	writer_unbusy(st);
	sqlite3_finalize(w->ins_frame);
	ofl_meta_free(&w->init);
	store_intake_free(&w->in);
	close(w->fd);
	free(w->file);
	free(w);
	return NULL;
}

/* The last writer on db gone: back to the store's usual busy wait. */
static void
writer_unbusy(struct ofl_store *st)
{
	if (st->writers > 0 && --st->writers == 0)
		sqlite3_busy_timeout(st->db, BUSY_MS);
}

const char *
ofl_writer_id(struct ofl_writer *w)
{
	STORE_PG(w->st, store_pg_writer_id(w->pg));
	return w->id;
}

uint64_t
ofl_writer_bytes(struct ofl_writer *w)
{
	STORE_PG(w->st, store_pg_writer_bytes(w->pg));
	return w->in.bytes;
}

static ZSTD_CCtx *
cctx_new(int level)
{
	ZSTD_CCtx	*cctx;

	if ((cctx = ZSTD_createCCtx()) == NULL)
		return NULL;
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	/* Frames carry a checksum: damaged content is found, not read. */
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	return cctx;
}

static int
cz_init(struct cz *z, int level)
{
	if ((z->cctx = cctx_new(level)) == NULL)
		return -1;
	z->cbuf = ofl_xmalloc(ZSTD_compressBound(FRAME_MAX));
	return 0;
}

static void
cz_free(struct cz *z)
{
	ZSTD_freeCCtx(z->cctx);
	free(z->cbuf);
	z->cctx = NULL;
	z->cbuf = NULL;
}

/* Compress one frame into out; its length, or 0 with err set. */
static size_t
cz_frame(ZSTD_CCtx *cctx, unsigned char *out, const unsigned char *buf,
    size_t len, char *err, size_t errlen)
{
	size_t	clen;

	clen = ZSTD_compress2(cctx, out, ZSTD_compressBound(FRAME_MAX), buf,
	    len);
	if (ZSTD_isError(clen)) {
		snprintf(err, errlen, "compress: %s", ZSTD_getErrorName(clen));
		return 0;
	}
	return clen;
}

/*
 * Append a compressed frame to the blob file, then record it, and its
 * sketch when it has one (a sketch not kept is no failure).
 */
static int
frame_append(struct ofl_writer *w, const unsigned char *cbuf, size_t clen,
    size_t len, uint64_t nl, const unsigned char *sketch)
{
	const unsigned char	*p = cbuf;
	size_t			 left = clen;
	off_t			 off = (off_t)w->comp_off;
	ssize_t			 n;

	while (left > 0) {
		n = pwrite(w->fd, p, left, off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(w->ferr, sizeof w->ferr, "store %s: %s%s",
			    w->st->path, strerror(errno), errno == ENOSPC ||
			    errno == EFBIG ? " (content so far kept)" : "");
			return -1;
		}
		p += n;
		left -= (size_t)n;
		off += n;
	}
	sqlite3_reset(w->ins_frame);
	sqlite3_bind_int64(w->ins_frame, 1, w->blob);
	sqlite3_bind_int64(w->ins_frame, 2, (int64_t)w->raw_off);
	sqlite3_bind_int64(w->ins_frame, 3, (int64_t)len);
	sqlite3_bind_int64(w->ins_frame, 4, (int64_t)w->nl_committed);
	sqlite3_bind_int64(w->ins_frame, 5, (int64_t)nl);
	sqlite3_bind_int64(w->ins_frame, 6, (int64_t)w->comp_off);
	sqlite3_bind_int64(w->ins_frame, 7, (int64_t)clen);
	if (sqlite3_step(w->ins_frame) != SQLITE_DONE) {
		sqlite3	*db = sqlite3_db_handle(w->ins_frame);

		snprintf(w->ferr, sizeof w->ferr, "store %s: %s: %s",
		    w->st->path, sqlite3_errcode(db) == SQLITE_FULL ?
		    "disk full" : "write frame", sqlite3_errmsg(db));
		sqlite3_reset(w->ins_frame);
		return -1;
	}
	sqlite3_reset(w->ins_frame);
	if (sketch != NULL)
		(void)store_sketch_put(sqlite3_db_handle(w->ins_frame),
		    &w->ins_sketch, w->blob, w->raw_off, sketch);
	w->raw_off += len;
	w->comp_off += clen;
	w->nl_committed += nl;
	return 0;
}

/*
 * Commit the finished jobs from the oldest on, in order.  Called with
 * the lock held, by one worker at a time.
 */
static void
writer_commit(struct ofl_writer *w)
{
	struct job	*j;
	int		 failed;

	w->committing = 1;
	while (w->seq_commit < w->seq_take &&
	    (j = &w->q[w->seq_commit % w->nq])->done) {
		if (!w->tfailed && j->clen == 0) {
			snprintf(w->ferr, sizeof w->ferr, "%s", j->err);
			w->tfailed = 1;
		} else if (!w->tfailed) {
			pthread_mutex_unlock(&w->mu);
			failed = frame_append(w, j->cbuf, j->clen, j->len,
			    j->nl, j->want_sketch ? j->sketch : NULL) == -1;
			pthread_mutex_lock(&w->mu);
			if (failed)
				w->tfailed = 1;
		}
		j->done = 0;
		w->freebuf[w->nfree++] = j->buf;
		w->seq_commit++;
		pthread_cond_broadcast(&w->cv_free);
	}
	w->committing = 0;
}

static void *
writer_work(void *arg)
{
	struct worker		*k = arg;
	struct ofl_writer	*w = k->w;
	struct job		*j;
	size_t			 clen;
	int			 level;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->seq_take == w->seq_next && !w->stop)
			pthread_cond_wait(&w->cv_job, &w->mu);
		if (w->seq_take == w->seq_next)
			break;
		j = &w->q[w->seq_take++ % w->nq];
		level = j->flood || w->seq_take < w->seq_next ?
		    w->st->fast : w->st->level;
		if (level != k->level) {
			ZSTD_CCtx_setParameter(k->cctx,
			    ZSTD_c_compressionLevel, level);
			k->level = level;
		}
		clen = 0;
		if (!w->tfailed) {
			pthread_mutex_unlock(&w->mu);
			clen = cz_frame(k->cctx, j->cbuf, j->buf, j->len,
			    j->err, sizeof j->err);
			if (j->want_sketch)
				ofl_sketch_build(j->buf, j->len, j->sketch);
			pthread_mutex_lock(&w->mu);
		}
		j->clen = clen;
		j->done = 1;
		if (!w->committing)
			writer_commit(w);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/*
 * Go threaded: the workers get a connection of their own, so that they
 * never share one with the caller's transactions.  On any failure, stay
 * synchronous.
 */
static void
writer_thread_start(struct ofl_writer *w)
{
	sqlite3_stmt	*ins = NULL;
	sigset_t	 all, old;
	long		 ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t		 i;
	int		 want;

	want = ncpu < 1 ? 1 : ncpu > NWORK_MAX ? NWORK_MAX : (int)ncpu;
	if (sqlite3_open_v2(w->st->dbpath, &w->tdb, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_busy_handler(w->tdb, writer_busy, NULL);
	sqlite3_db_config(w->tdb, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_wal_autocheckpoint(w->tdb, WAL_PAGES);
	if (sqlite3_exec(w->tdb, "PRAGMA synchronous = NORMAL", NULL, NULL,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(w->tdb, "INSERT INTO frame (blob, raw_off,"
	    " raw_len, line_off, nl, comp_off, comp_len) VALUES (?1, ?2, ?3,"
	    " ?4, ?5, ?6, ?7)", -1, &ins, NULL) != SQLITE_OK)
		goto fail;
	for (i = 0; i < (size_t)want; i++) {
		if ((w->work[i].cctx = cctx_new(w->st->level)) == NULL)
			break;
		w->work[i].level = w->st->level;
		w->work[i].w = w;
	}
	if (i == 0)
		goto fail;
	want = (int)i;
	/* Two frames per worker, and the one being filled. */
	w->nq = 2 * (size_t)want + 1;
	for (i = 0; i < w->nq; i++) {
		w->q[i].cbuf = ofl_xmalloc(ZSTD_compressBound(FRAME_MAX));
		w->q[i].sketch = ofl_xmalloc(OFL_SKETCH_BYTES);
		if (i > 0)
			w->freebuf[w->nfree++] = ofl_xmalloc(FRAME_MAX);
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv_job, NULL);
	pthread_cond_init(&w->cv_free, NULL);
	w->seq_next = w->seq_take = w->seq_commit = 0;
	/* Signals are for the caller's thread: workers block them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (; w->nwork < want; w->nwork++)
		if (pthread_create(&w->work[w->nwork].thread, NULL,
		    writer_work, &w->work[w->nwork]) != 0)
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (i = (size_t)w->nwork; i < (size_t)want; i++)
		ZSTD_freeCCtx(w->work[i].cctx);
	if (w->nwork > 0) {
		/*
		 * From now on frames (and sketches) are recorded on tdb, by
		 * the workers: none may touch a statement of the caller's
		 * connection.
		 */
		sqlite3_finalize(w->ins_frame);
		w->ins_frame = ins;
		sqlite3_finalize(w->ins_sketch);
		w->ins_sketch = NULL;
		return;
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv_job);
	pthread_cond_destroy(&w->cv_free);
	for (i = 0; i < w->nq; i++) {
		free(w->q[i].cbuf);
		free(w->q[i].sketch);
	}
	while (w->nfree > 0)
		free(w->freebuf[--w->nfree]);
	w->nq = 0;
fail:
	sqlite3_finalize(ins);
	if (w->tdb != NULL)
		sqlite3_close(w->tdb);
	w->tdb = NULL;
}

/* Wait for the workers to commit every frame; -1 if one failed. */
static int
writer_thread_stop(struct ofl_writer *w)
{
	size_t	i;
	int	failed;

	if (w->nwork == 0)
		return 0;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_broadcast(&w->cv_job);
	pthread_mutex_unlock(&w->mu);
	for (i = 0; i < (size_t)w->nwork; i++) {
		pthread_join(w->work[i].thread, NULL);
		ZSTD_freeCCtx(w->work[i].cctx);
	}
	w->nwork = 0;
	failed = w->tfailed;
	sqlite3_finalize(w->ins_frame);
	w->ins_frame = NULL;
	sqlite3_finalize(w->ins_sketch);
	w->ins_sketch = NULL;
	sqlite3_close(w->tdb);
	w->tdb = NULL;
	for (i = 0; i < w->nq; i++) {
		free(w->q[i].cbuf);
		free(w->q[i].sketch);
	}
	w->nq = 0;
	while (w->nfree > 0)
		free(w->freebuf[--w->nfree]);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv_job);
	pthread_cond_destroy(&w->cv_free);
	if (failed) {
		ofl_seterr(OFL_EXIT_FAIL, "%s", w->ferr);
		return -1;
	}
	return 0;
}

/*
 * Cut a frame of the pending bytes: a full one ends at its last line's
 * end when that is within CUT_MAX of it, the rest carried over.
 */
static int
writer_frame(struct ofl_writer *w)
{
	const unsigned char	*nl;
	unsigned char		*sk = NULL;
	int64_t			 now;
	size_t			 clen, len, tail = 0;
	int			 want;

	if (w->in.len == 0)
		return 0;
	if (w->unrecorded && writer_record(w, 0) == -1)
		return -1;
	len = w->in.len;
	if (len == FRAME_MAX && w->in.buf[len - 1] != '\n' &&
	    (nl = memrchr(w->in.buf + len - CUT_MAX, '\n', CUT_MAX)) != NULL) {
		len = (size_t)(nl - w->in.buf) + 1;
		tail = w->in.len - len;
		if (w->carry == NULL)
			w->carry = ofl_xmalloc(CUT_MAX);
		memcpy(w->carry, w->in.buf + len, tail);
	}
	want = w->line_start && w->in.buf[len - 1] == '\n' &&
	    w->nframe >= SKETCH_FROM;
	w->nframe++;
	w->line_start = w->in.buf[len - 1] == '\n';
	if (w->nwork == 0 && w->in.len == FRAME_MAX)
		writer_thread_start(w);
	if (w->nwork > 0) {
		struct job	*j;

		pthread_mutex_lock(&w->mu);
		if (w->tfailed) {
			pthread_mutex_unlock(&w->mu);
			ofl_seterr(OFL_EXIT_FAIL, "%s", w->ferr);
			return -1;
		}
		j = &w->q[w->seq_next++ % w->nq];
		j->buf = w->in.buf;
		j->len = len;
		j->nl = w->in.nl_pending;
		j->want_sketch = want;
		j->done = 0;
		now = ofl_mono_us();
		j->flood = now - w->last_us < FLOOD_US;
		w->last_us = now;
		pthread_cond_signal(&w->cv_job);
		while (w->nfree == 0)
			pthread_cond_wait(&w->cv_free, &w->mu);
		w->in.buf = w->freebuf[--w->nfree];
		pthread_mutex_unlock(&w->mu);
	} else {
		if (want) {
			if (w->sketch == NULL)
				w->sketch = ofl_xmalloc(OFL_SKETCH_BYTES);
			ofl_sketch_build(w->in.buf, len, w->sketch);
			sk = w->sketch;
		}
		if ((clen = cz_frame(w->cz.cctx, w->cz.cbuf, w->in.buf, len,
		    w->ferr, sizeof w->ferr)) == 0 || frame_append(w,
		    w->cz.cbuf, clen, len, w->in.nl_pending, sk) == -1) {
			ofl_seterr(OFL_EXIT_FAIL, "%s", w->ferr);
			return -1;
		}
	}
	w->in.nl_pending = 0;
	w->in.len = tail;
	if (tail > 0)
		memcpy(w->in.buf, w->carry, tail);
	return 0;
}

/* The frame function of the intake (store-intake.c). */
static int
writer_frame_cb(void *arg)
{
	return writer_frame(arg);
}

int
ofl_writer_write(struct ofl_writer *w, const void *data, size_t n)
{
	STORE_PG(w->st, store_pg_writer_write(w->pg, data, n));
	if (w->failed)
		return -1;
	if (store_intake(&w->in, data, n, writer_frame_cb, w) == -1) {
		w->failed = 1;
		return -1;
	}
	return 0;
}

/*
 * 1 if the worker threads committed a job since the count s0 was read
 * (before the lock was found busy), or commit one within ms: a commit
 * holds the lock a moment, another process's lock stops it.  None
 * committing and none committed since: the lock is another process's.
 */
static int
writer_progress(struct ofl_writer *w, uint64_t s0, long ms)
{
	struct timespec	ts;
	int		moved;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->mu);
	while (w->committing && w->seq_commit == s0 &&
	    w->seq_commit < w->seq_next &&
	    !w->tfailed && pthread_cond_timedwait(&w->cv_free, &w->mu,
	    &ts) == 0)
		;
	moved = w->seq_commit != s0;
	pthread_mutex_unlock(&w->mu);
	return moved;
}

/*
 * What is pending, committed now.  A flush is not worth a wait for the
 * lock: while another process holds it, nothing is done (0), and the
 * next flush or the full frame commits it; past the first frames, the
 * worker threads' commits would wait for it too, and the flush with
 * them.  But the lock their own commits hold a moment is waited for,
 * as long as they go on (FLUSH_WAIT_MS at most without a commit): a
 * flush commits all that was written when no other process holds the
 * lock.  The rows of a writer that began while the lock was held are
 * committed first (even with nothing pending: its artifact is listed),
 * so that no frame is ever written to a file no row names.  Frames that
 * worker threads compress are waited for.
 */
int
ofl_writer_flush(struct ofl_writer *w)
{
	struct ofl_store	*st = w->st;
	uint64_t		 s0 = 0;
	int			 behind = 0, rc = 0;

	STORE_PG(st, store_pg_writer_flush(w->pg));
	if (w->failed)
		return -1;
	for (;;) {
		if (w->nwork > 0) {
			pthread_mutex_lock(&w->mu);
			s0 = w->seq_commit;
			behind = s0 < w->seq_next;
			pthread_mutex_unlock(&w->mu);
		}
		if (w->in.len == 0 && !w->unrecorded && !behind)
			break;
		if ((rc = writer_lock_try(st)) != 0)
			break;
		if (!behind || !writer_progress(w, s0, FLUSH_WAIT_MS))
			return 0;
	}
	if (rc == -1) {
		w->failed = 1;
		return -1;
	}
	if (rc == 1) {
		if (!w->unrecorded) {
			/* Free a moment ago: frames are compressed unlocked. */
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		} else if (writer_record(w, 1) == -1) {
			w->failed = 1;
			return -1;
		}
	}
	if (writer_frame(w) == -1) {
		w->failed = 1;
		return -1;
	}
	if (w->nwork > 0) {
		/* Committed means committed: wait for the workers. */
		pthread_mutex_lock(&w->mu);
		while (w->seq_commit < w->seq_next)
			pthread_cond_wait(&w->cv_free, &w->mu);
		if (w->tfailed) {
			pthread_mutex_unlock(&w->mu);
			ofl_seterr(OFL_EXIT_FAIL, "%s", w->ferr);
			w->failed = 1;
			return -1;
		}
		pthread_mutex_unlock(&w->mu);
	}
	return 0;
}

/*
 * A blob other than blob with this hash and the same bytes as artifact
 * id: its id and file (to free), or -1.  The hash finds it; the bytes
 * decide, so a crafted collision never shares content.  *seen is the
 * blob compared, or -1.
 */
static int64_t
find_twin(struct ofl_store *st, const char *id, const unsigned char *mem,
    size_t memlen, int64_t blob, const char *hash, char **file,
    int64_t *seen)
{
	sqlite3_stmt	*stmt;
	char		*aid = NULL;
	int64_t		 twin = -1;

	*file = NULL;
	*seen = -1;
	if (store_prepare(st, "SELECT b.id, b.file, a.id FROM blob b JOIN"
	    " artifact a ON a.blob = b.id WHERE b.hash = ?1 AND b.id != ?2"
	    " LIMIT 1", &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, blob);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		twin = sqlite3_column_int64(stmt, 0);
		*file = store_col_strdup(stmt, 1);
		aid = store_col_strdup(stmt, 2);
	}
	sqlite3_finalize(stmt);
	*seen = twin;
	if (twin != -1 && !reader_same(st, id, mem, memlen, aid)) {
		twin = -1;
		free(*file);
		*file = NULL;
	}
	free(aid);
	return twin;
}

/* Salvage: 1 if the artifact is still being written, 0 if not. */
static int
still_writing(struct ofl_store *st, const char *id)
{
	sqlite3_stmt	*stmt;
	int		 rc, writing;

	if (store_prepare(st, "SELECT state FROM artifact WHERE id = ?1",
	    &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(stmt);
	writing = rc == SQLITE_ROW && sqlite3_column_int(stmt, 0) == 0;
	sqlite3_finalize(stmt);
	return writing;
}

/*
 * Inside the transaction: the blob other than blob that holds hash.
 * Its number when it is the twin that find_twin() compared (share it);
 * -1 when there is none, or when it holds other bytes (then *hashed is
 * 0: keep ours without the hash, which is taken); -2 when it was stored
 * since we looked (compare again); -3 on error.
 */
static int64_t
hash_owner(struct ofl_store *st, const char *hash, int64_t blob,
    int64_t twin, const char *twin_file, int64_t seen, int *tries,
    int *hashed)
{
	sqlite3_stmt	*stmt;
	const char	*file;
	int64_t		 other = -1;
	int		 rc;

	if (store_prepare(st, "SELECT id, file FROM blob WHERE hash = ?1 AND"
	    " id != ?2", &stmt) == -1)
		return -3;
	sqlite3_bind_text(stmt, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, blob);
	if ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		other = sqlite3_column_int64(stmt, 0);
		file = (const char *)sqlite3_column_text(stmt, 1);
		if (other == twin && twin_file != NULL && file != NULL &&
		    strcmp(file, twin_file) == 0)
			;	/* the blob compared: share it */
		else if (other != seen && ++*tries < 4) {
			/*
			 * Stored since we looked (the same output twice
			 * at once): compare again.
			 */
			other = -2;
		} else {
			/* Other bytes with our hash (a collision). */
			other = -1;
			*hashed = 0;
		}
	} else if (rc != SQLITE_DONE) {
		store_fail(st, "finish");
		other = -3;
	}
	sqlite3_finalize(stmt);
	return other;
}

/* Run a statement whose one parameter is blob; -1 if it fails. */
static int
blob_exec(struct ofl_store *st, const char *sql, int64_t blob)
{
	sqlite3_stmt	*stmt;
	int		 rc;

	if (store_prepare(st, sql, &stmt) == -1)
		return -1;
	sqlite3_bind_int64(stmt, 1, blob);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return store_fail(st, "finish");
	return 0;
}

/*
 * Same content stored before: drop our blob's frames and row, and give
 * its file's name (to unlink after the commit).
 */
static int
drop_own_blob(struct ofl_store *st, int64_t blob, char **file)
{
	if (store_blob_file(st, blob, file) == -1)
		return -1;
	if (blob_exec(st, "DELETE FROM frame WHERE blob = ?1", blob) == -1 ||
	    store_sketch_drop(st->db, blob) == -1 ||
	    blob_exec(st, "DELETE FROM blob WHERE id = ?1", blob) == -1)
		return -1;
	return 0;
}

/* Our blob keeps its content: its hash (NULL: none), size, lines. */
static int
blob_done(struct ofl_store *st, int64_t blob, const char *hash,
    uint64_t bytes, uint64_t lines)
{
	sqlite3_stmt	*stmt;
	int		 rc;

	if (store_prepare(st, "UPDATE blob SET hash = ?1, bytes = ?2,"
	    " lines = ?3, stored = (SELECT coalesce(sum(comp_len), 0)"
	    " FROM frame WHERE blob = ?4) WHERE id = ?4", &stmt) == -1)
		return -1;
	if (hash != NULL)
		sqlite3_bind_text(stmt, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, (int64_t)bytes);
	sqlite3_bind_int64(stmt, 3, (int64_t)lines);
	sqlite3_bind_int64(stmt, 4, blob);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return store_fail(st, "finish");
	return 0;
}

/* The artifact complete, on blob, with what fin says of it. */
static int
artifact_done(struct ofl_store *st, const char *id, int64_t blob,
    uint64_t bytes, uint64_t lines, const struct ofl_meta *fin)
{
	sqlite3_stmt	*stmt;
	int		 rc;

	if (store_prepare(st, "UPDATE artifact SET blob = ?2, state = 1,"
	    " pid = NULL, incomplete = ?3, kind = ?4, bytes = ?5, lines = ?6,"
	    " exit_status = ?7, duration_ms = ?8, errors = ?9,"
	    " warnings = ?10, first_error = ?11, printed = ?12 WHERE id = ?1",
	    &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, blob);
	sqlite3_bind_int(stmt, 3, fin->incomplete ? 1 : 0);
	sqlite3_bind_text(stmt, 4, ofl_kind_name(fin->kind), -1,
	    SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 5, (int64_t)bytes);
	sqlite3_bind_int64(stmt, 6, (int64_t)lines);
	if (fin->has_exit)
		sqlite3_bind_int(stmt, 7, fin->exit_status);
	if (fin->duration_ms >= 0)
		sqlite3_bind_int64(stmt, 8, fin->duration_ms);
	sqlite3_bind_int64(stmt, 9, (int64_t)fin->errors);
	sqlite3_bind_int64(stmt, 10, (int64_t)fin->warnings);
	sqlite3_bind_int64(stmt, 11, (int64_t)fin->first_error);
	if (fin->printed >= 0)
		sqlite3_bind_int64(stmt, 12, fin->printed);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return store_fail(st, "finish");
	return 0;
}

/*
 * Make an artifact complete: point it at an existing blob with the same
 * content (and drop its own) or give its blob the hash.  One transaction.
 */
static int
finalize(struct ofl_store *st, const char *id, int64_t blob,
    const unsigned char *mem, const char *hash, uint64_t bytes,
    uint64_t lines, const struct ofl_meta *fin, int salvage)
{
	char		*file = NULL, *path, *twin_file;
	int64_t		 other, twin, seen;
	int		 hashed = 1, tries = 0, w;

again:
	twin = find_twin(st, id, mem, (size_t)bytes, blob, hash, &twin_file,
	    &seen);
	if (store_exec(st, "BEGIN IMMEDIATE") == -1) {
		free(twin_file);
		return -1;
	}
	/* Its writer may have finished since we looked. */
	if (salvage && (w = still_writing(st, id)) != 1) {
		if (w == -1)
			goto rollback;
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		free(twin_file);
		return 0;
	}
	other = hash_owner(st, hash, blob, twin, twin_file, seen, &tries,
	    &hashed);
	if (other == -2) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		free(twin_file);
		goto again;
	}
	if (other == -3)
		goto rollback;
	if (other != -1) {
		/* Same content stored before: share it, drop ours. */
		if (drop_own_blob(st, blob, &file) == -1)
			goto rollback;
		blob = other;
	} else if (blob_done(st, blob, hashed ? hash : NULL, bytes,
	    lines) == -1)
		goto rollback;
	if (artifact_done(st, id, blob, bytes, lines, fin) == -1)
		goto rollback;
	if (store_exec(st, "COMMIT") == -1)
		goto rollback;
	if (file != NULL) {
		path = store_blob_path(st, file);
		unlink(path);
		free(path);
		free(file);
	}
	free(twin_file);
	return 0;
rollback:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	free(file);
	free(twin_file);
	return -1;
}

int
ofl_writer_finish(struct ofl_writer *w, const struct ofl_meta *fin,
    struct ofl_meta *out)
{
	struct ofl_meta	 m;
	char		 hash[OFL_HASH_HEX] = "";
	uint64_t	 lines = 0;
	int		 rv = 0, failed = w->failed;

	STORE_PG(w->st, writer_pg_finish(w, fin, out));
	if (!failed && ((w->unrecorded && writer_record(w, 0) == -1) ||
	    writer_frame(w) == -1))
		failed = 1;
	if (writer_thread_stop(w) == -1)
		failed = 1;
	store_meta_fin(&m, fin);
	if (failed) {
		/*
		 * Keep what was committed: the file stays locked until we
		 * close it, then recovery (the next open) salvages it.  Try
		 * now, while the error is fresh.
		 */
		char	err[1024];

		snprintf(err, sizeof err, "%s", ofl_errmsg());
		sqlite3_finalize(w->ins_frame);
		w->ins_frame = NULL;
		sqlite3_finalize(w->ins_sketch);
		w->ins_sketch = NULL;
		/* No rows name the file: nothing in it to salvage. */
		if (w->unrecorded)
			unlink(w->file);
		close(w->fd);
		w->fd = -1;
		writer_recover(w->st);
		ofl_seterr(OFL_EXIT_FAIL, "%s", err);
		rv = -1;
		goto out;
	}
	lines = store_intake_end(&w->in, w->nl_committed, &m, hash);
	sqlite3_finalize(w->ins_frame);
	w->ins_frame = NULL;
	sqlite3_finalize(w->ins_sketch);
	w->ins_sketch = NULL;
	/* Small content is all in the head: compare it from there. */
	if (finalize(w->st, w->id, w->blob, w->in.bytes == w->in.headlen ? w->in.head :
	    NULL, hash, w->in.bytes, lines, &m, 0) == -1) {
		char	err[1024];

		snprintf(err, sizeof err, "%s", ofl_errmsg());
		close(w->fd);
		w->fd = -1;
		writer_recover(w->st);
		ofl_seterr(OFL_EXIT_FAIL, "%s", err);
		rv = -1;
		goto out;
	}
out:
	/* What it began with (its strings borrowed), should out need it. */
	m.label = w->init.label;
	m.command = w->init.command;
	m.cwd = w->init.cwd;
	m.session = w->init.session;
	m.created = w->init.created;
	m.expires = w->init.expires;
	if (out != NULL && rv == 0)
		store_meta_committed(w->st, w->id, &m, hash, w->in.bytes, lines,
		    out);
	else if (out != NULL && !w->unrecorded)
		(void)ofl_store_meta(w->st, w->id, out);
	if (w->fd != -1)
		close(w->fd);
	writer_unbusy(w->st);
	ofl_meta_free(&w->init);
	cz_free(&w->cz);
	store_intake_free(&w->in);
	free(w->carry);
	free(w->sketch);
	free(w->file);
	free(w);
	return rv;
}

/*
 * Salvage artifacts whose writer died: their blob file is no longer
 * locked.  Keep the committed frames, drop bytes written after the last
 * one, and mark the artifact complete and incomplete.
 */
void
writer_recover(struct ofl_store *st)
{
	sqlite3_stmt	*stmt;
	struct salvage {
		char	 id[OFL_ID_MAX + 1];
		int64_t	 blob;
		char	*file;
	}		*list = NULL;
	size_t		 n = 0, i;
	int		 fd;

	if (store_prepare(st, "SELECT a.id, a.blob, b.file FROM artifact a JOIN"
	    " blob b ON b.id = a.blob WHERE a.state = 0", &stmt) == -1)
		return;
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		list = ofl_xrealloc(list, (n + 1) * sizeof *list);
		snprintf(list[n].id, sizeof list[n].id, "%s",
		    (const char *)sqlite3_column_text(stmt, 0));
		list[n].blob = sqlite3_column_int64(stmt, 1);
		list[n].file = store_col_strdup(stmt, 2);
		n++;
	}
	sqlite3_finalize(stmt);

	for (i = 0; i < n; i++) {
		struct ofl_reader	*r;
		struct ofl_hash		 h;
		struct ofl_meta		 m;
		char			*path, hash[OFL_HASH_HEX], buf[65536];
		ssize_t			 got;
		uint64_t		 lines;
		int			 last = -1;

		path = store_blob_path(st, list[i].file);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd != -1 && flock(fd, LOCK_EX | LOCK_NB) == -1) {
			/* Its writer is alive. */
			close(fd);
			free(path);
			continue;
		}
		if (fd == -1 && errno != ENOENT) {
			free(path);
			continue;
		}
		if ((r = ofl_reader_open(st, list[i].id)) == NULL) {
			if (fd != -1)
				close(fd);
			free(path);
			continue;
		}
		if (fd != -1 && r->nframes > 0)
			(void)!ftruncate(fd, (off_t)(r->frames[r->nframes - 1].
			    comp_off + r->frames[r->nframes - 1].comp_len));
		ofl_hash_init(&h);
		memset(&m, 0, sizeof m);
		m.incomplete = 1;
		m.duration_ms = -1;
		m.printed = -1;
		while ((got = ofl_reader_read(r, buf, sizeof buf)) > 0) {
			ofl_hash_update(&h, buf, (size_t)got);
			last = (unsigned char)buf[got - 1];
		}
		if (got == -1) {
			/* Unreadable frames: keep none of them. */
			ofl_reader_close(r);
			if (fd != -1)
				close(fd);
			free(path);
			continue;
		}
		ofl_hash_final_hex(&h, hash);
		lines = r->newlines + (r->bytes > 0 && last != '\n');
		/* Kind from the head. */
		ofl_reader_seek(r, 0);
		got = ofl_reader_read(r, buf, sizeof buf);
		m.kind = ofl_kind_detect((unsigned char *)buf,
		    got > 0 ? (size_t)got : 0, (uint64_t)(got > 0 ? got : 0) ==
		    r->bytes);
		finalize(st, list[i].id, list[i].blob, NULL, hash, r->bytes,
		    lines, &m, 1);
		ofl_reader_close(r);
		if (fd != -1)
			close(fd);
		free(path);
	}
	for (i = 0; i < n; i++)
		free(list[i].file);
	free(list);
}
