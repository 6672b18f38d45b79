/*
 * store.c: the artifact store.
 *
 * Layout of a store directory (0700, files 0600):
 *
 *	ofl.db		SQLite (WAL): artifacts, blobs, frames, indexes
 *	blobs/XX/ID	content of one blob: independent zstd frames
 *	init.lock	taken while a new store gets its schema
 *	reserve		room kept free for gc on a full disk
 *
 * Content is kept as a blob, shared by every artifact with the same
 * BLAKE2b-256 hash.  A blob file is a sequence of zstd frames, each the
 * compression of up to FRAME_MAX bytes; the frame table in the database
 * gives each frame's raw and compressed offsets and the number of
 * newlines before it, so any byte or line is found by decompressing one
 * frame.
 *
 * Crash safety: a writer creates and locks (flock) its blob file before
 * it inserts the artifact row in state "writing"; a frame row is
 * inserted only after the frame's bytes are written.  So the frames in
 * the database are always readable.  A writer that dies leaves its file
 * unlocked: the next read-write open finds it, keeps the committed frames
 * and marks the artifact complete but incomplete (its input was cut).
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <zstd.h>

#include "ofl.h"
#include "banned.h"

#define FRAME_MAX	(1024 * 1024)	/* raw bytes per frame */
#define RESERVE_BYTES	(16 * 1024 * 1024) /* kept free for gc, at most */
#define HEAD_MAX	(64 * 1024)	/* bytes kept for kind detection */
#define LINE_SCAN_MAX	4096		/* bytes of a line seen by linestat */
#define SCHEMA_VERSION	1
#define BUSY_MS		30000
#define BUSY_STEP_MS	20		/* longest sleep of a waiting writer */
#define WAL_PAGES	128		/* checkpoint the WAL at this size */
/*
 * zstd levels: LEVEL normally; LEVEL_FAST for a frame that came in a
 * flood (less than FLOOD_US after the one before: over 250 MB/s) or
 * while others wait behind it, so that compression does not hold up a
 * fast producer (as zstd --adapt does).  OFL_LEVEL fixes one level.
 */
#define LEVEL		1
#define LEVEL_FAST	(-2)
#define FLOOD_US	4000
#define NWORK_MAX	4		/* compressing threads of a writer */
#define NBUF		(2 * NWORK_MAX + 1)	/* its frame buffers, at most */

struct ofl_store {
	char		*path;
	char		*dbpath;
	char		*blobdir;
	sqlite3		*db;
	int		 rdwr;
	int		 level;		/* zstd level */
	int		 fast;		/* level when behind, or level */
	int		 writers;	/* writers open on db */
};

/* A zstd context and its output buffer. */
struct cz {
	ZSTD_CCtx	*cctx;
	unsigned char	*cbuf;		/* ZSTD_compressBound(FRAME_MAX) */
};

struct ofl_writer {
	struct ofl_store	*st;
	char			 id[OFL_ID_MAX + 1];
	int64_t			 blob;
	char			*file;
	int			 fd;
	struct ofl_hash		 hash;
	unsigned char		*buf;		/* pending raw bytes */
	size_t			 len;
	struct cz		 cz;		/* for frames compressed here */
	uint64_t		 raw_off;	/* raw bytes in committed frames */
	uint64_t		 comp_off;
	uint64_t		 nl_committed;	/* newlines in committed frames */
	uint64_t		 nl_pending;	/* newlines in buf */
	uint64_t		 bytes;
	int			 last_byte;
	unsigned char		*head;
	size_t			 headlen;
	char			*line;		/* partial line for linestat */
	size_t			 linelen;
	uint64_t		 lineno;
	struct ofl_linestat	 ls;
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
};

static const char *schema_sql =
	"CREATE TABLE IF NOT EXISTS blob ("
	" id INTEGER PRIMARY KEY,"
	" hash TEXT,"
	" file TEXT NOT NULL,"
	" bytes INTEGER NOT NULL DEFAULT 0,"
	" lines INTEGER NOT NULL DEFAULT 0,"
	" stored INTEGER NOT NULL DEFAULT 0,"
	" created INTEGER NOT NULL);"
	"CREATE UNIQUE INDEX IF NOT EXISTS blob_hash ON blob(hash);"
	"CREATE TABLE IF NOT EXISTS frame ("
	" blob INTEGER NOT NULL,"
	" raw_off INTEGER NOT NULL,"
	" raw_len INTEGER NOT NULL,"
	" line_off INTEGER NOT NULL,"
	" nl INTEGER NOT NULL,"
	" comp_off INTEGER NOT NULL,"
	" comp_len INTEGER NOT NULL,"
	" PRIMARY KEY (blob, raw_off)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS artifact ("
	" seq INTEGER PRIMARY KEY AUTOINCREMENT,"
	" id TEXT NOT NULL UNIQUE,"
	" blob INTEGER NOT NULL,"
	" state INTEGER NOT NULL,"
	" pid INTEGER,"
	" incomplete INTEGER NOT NULL DEFAULT 0,"
	" kind TEXT NOT NULL DEFAULT 'text',"
	" bytes INTEGER NOT NULL DEFAULT 0,"
	" lines INTEGER NOT NULL DEFAULT 0,"
	" created INTEGER NOT NULL,"
	" used INTEGER NOT NULL,"
	" expires INTEGER,"
	" label TEXT,"
	" command TEXT,"
	" cwd TEXT,"
	" session TEXT,"
	" exit_status INTEGER,"
	" duration_ms INTEGER,"
	" errors INTEGER NOT NULL DEFAULT 0,"
	" warnings INTEGER NOT NULL DEFAULT 0,"
	" first_error INTEGER NOT NULL DEFAULT 0,"
	" printed INTEGER);"
	"CREATE INDEX IF NOT EXISTS artifact_blob ON artifact(blob);"
	"CREATE INDEX IF NOT EXISTS artifact_used ON artifact(used);"
	"CREATE INDEX IF NOT EXISTS artifact_writing ON artifact(state)"
	" WHERE state = 0;"
	"CREATE TABLE IF NOT EXISTS setting ("
	" key TEXT PRIMARY KEY,"
	" value TEXT);";

/* While an artifact is written, its size is that of its frames so far. */
#define META_COLUMNS							\
	"a.id, b.hash, a.seq, a.state, a.incomplete, a.kind,"		\
	" CASE a.state WHEN 0 THEN (SELECT coalesce(sum(raw_len), 0)"	\
	" FROM frame WHERE blob = a.blob) ELSE a.bytes END,"		\
	" CASE a.state WHEN 0 THEN (SELECT coalesce(sum(nl), 0)"	\
	" FROM frame WHERE blob = a.blob) ELSE a.lines END,"		\
	" CASE a.state WHEN 0 THEN (SELECT coalesce(sum(comp_len), 0)"	\
	" FROM frame WHERE blob = a.blob) ELSE b.stored END,"		\
	" a.created, a.used, a.expires, a.label,"			\
	" a.command, a.cwd, a.session, a.exit_status, a.duration_ms,"	\
	" a.errors, a.warnings, a.first_error"

static int	 db_exec(struct ofl_store *, const char *);
static int	 db_prepare(struct ofl_store *, const char *, sqlite3_stmt **);
static int	 db_fail(struct ofl_store *, const char *);
static int	 blob_seq(struct ofl_store *, const char *, int64_t);
static int	 check_owner(const char *, int, int);
static int	 check_files(struct ofl_store *);
static int	 mkdir_p(const char *);
static int	 schema_init(struct ofl_store *);
static void	 recover_writers(struct ofl_store *);
static void	 writer_unbusy(struct ofl_store *);
static void	 meta_from_stmt(sqlite3_stmt *, struct ofl_meta *);
static char	*col_strdup(sqlite3_stmt *, int);
static int	 cz_init(struct cz *, int);
static int	 writer_frame(struct ofl_writer *);
static void	 writer_lines(struct ofl_writer *, const unsigned char *,
		    size_t);
static int	 finalize(struct ofl_store *, const char *, int64_t,
		    const unsigned char *, const char *, uint64_t, uint64_t,
		    const struct ofl_meta *, int);
static int	 reader_load(struct ofl_reader *, ssize_t);
static int	 reader_fetch(struct ofl_reader *, ssize_t);
static ssize_t	 frame_at(struct ofl_reader *, uint64_t);

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

static int
db_fail(struct ofl_store *st, const char *what)
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

static int
db_exec(struct ofl_store *st, const char *sql)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(st, "database");
	return 0;
}

static int
db_prepare(struct ofl_store *st, const char *sql, sqlite3_stmt **stmt)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK) {
		*stmt = NULL;
		return db_fail(st, "database");
	}
	return 0;
}

/* Record blob as the last blob number taken (sqlite_sequence). */
static int
blob_seq(struct ofl_store *st, const char *sql, int64_t blob)
{
	sqlite3_stmt	*stmt;

	if (db_prepare(st, sql, &stmt) == -1)
		return -1;
	sqlite3_bind_int64(stmt, 1, blob);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		db_fail(st, "new blob");
		sqlite3_finalize(stmt);
		return -1;
	}
	sqlite3_finalize(stmt);
	return 0;
}

/*
 * Refuse a path another user owns or others may write to: the store holds
 * what its owner chose to keep out of sight.  A symbolic link is refused
 * too, whoever owns its target: root told to use /tmp/x must not follow
 * a link that someone else put there into a directory of root's (as ssh
 * and gpg refuse their directories when others can change them).  The
 * user who means the target names it.  optional: a file that need not
 * exist yet.
 */
static int
check_owner(const char *path, int dir, int optional)
{
	struct stat	sb;
	char		target[1024];
	ssize_t		n;

	if (lstat(path, &sb) == -1) {
		if (optional && errno == ENOENT)
			return 0;
		ofl_seterr(OFL_EXIT_FAIL, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(sb.st_mode)) {
		if ((n = readlink(path, target, sizeof target - 1)) == -1)
			n = 0;
		target[n] = '\0';
		ofl_seterr(OFL_EXIT_FAIL, "store %s: a symbolic link (to %s); "
		    "refusing to follow it: name the directory itself", path,
		    target);
		return -1;
	}
	if (dir && !S_ISDIR(sb.st_mode)) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: not a directory", path);
		return -1;
	}
	if (!dir && !S_ISREG(sb.st_mode)) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: not a regular file",
		    path);
		return -1;
	}
	if (sb.st_uid != geteuid()) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: owned by uid %lu, not by "
		    "you (uid %lu); refusing to use it", path,
		    (unsigned long)sb.st_uid, (unsigned long)geteuid());
		return -1;
	}
	if ((sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: writable by group or "
		    "others (mode %03o); refusing to use it (chmod go-w)", path,
		    (unsigned)(sb.st_mode & 0777));
		return -1;
	}
	return 0;
}

/* The store's own files, each checked as check_owner() does. */
static int
check_files(struct ofl_store *st)
{
	static const char	*files[] = { "ofl.db-wal", "ofl.db-shm",
				    "init.lock", "gc.lock", "reserve", NULL };
	struct ofl_buf		 b;
	int			 i, rv = 0;

	if (check_owner(st->blobdir, 1, 1) == -1)
		return -1;
	ofl_buf_init(&b);
	for (i = 0; rv == 0 && files[i] != NULL; i++) {
		ofl_buf_reset(&b);
		ofl_buf_addf(&b, "%s/%s", st->path, files[i]);
		rv = check_owner(ofl_buf_str(&b), 0, 1);
	}
	ofl_buf_free(&b);
	return rv;
}

/*
 * The reserve: a file that a read-write open makes when there is room,
 * of RESERVE_BYTES or 1/64 of a small file system.  On a full disk SQLite
 * has no room for the WAL pages of a delete, so gc could free nothing;
 * gc drops the reserve first and makes it again when done.  Best effort:
 * no room, no reserve.
 */
int
ofl_store_reserve(struct ofl_store *st, int on)
{
	struct ofl_buf	 b;
	struct stat	 sb;
	struct statvfs	 vfs;
	char		 zero[4096];
	off_t		 size = RESERVE_BYTES, done;
	int		 fd, rv = -1;

	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s/reserve", st->path);
	if (!on) {
		rv = unlink(ofl_buf_str(&b)) == 0 || errno == ENOENT ? 0 : -1;
		goto out;
	}
	if (lstat(ofl_buf_str(&b), &sb) == 0) {
		rv = 0;
		goto out;
	}
	if (statvfs(st->path, &vfs) == -1)
		goto out;
	if ((uint64_t)vfs.f_blocks * vfs.f_frsize / 64 < (uint64_t)size)
		size = (off_t)((uint64_t)vfs.f_blocks * vfs.f_frsize / 64);
	size -= size % (off_t)sizeof zero;
	/* Only where there is room to spare. */
	if (size == 0 || (uint64_t)vfs.f_bavail * vfs.f_frsize <
	    4 * (uint64_t)size)
		goto out;
	fd = open(ofl_buf_str(&b), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd == -1)
		goto out;
	rv = posix_fallocate(fd, 0, size) == 0 ? 0 : -1;
	if (rv == -1) {
		/* A file system without fallocate: write it. */
		memset(zero, 0, sizeof zero);
		for (done = 0, rv = 0; rv == 0 && done < size;
		    done += (off_t)sizeof zero)
			rv = ofl_write_all(fd, zero, sizeof zero);
	}
	if (close(fd) == -1)
		rv = -1;
	if (rv == -1)
		(void)unlink(ofl_buf_str(&b));
out:
	ofl_buf_free(&b);
	return rv;
}

static int
mkdir_p(const char *path)
{
	char	*p, *s;

	s = ofl_xstrdup(path);
	for (p = s + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(s, 0700) == -1 && errno != EEXIST) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: %s", s, strerror(errno));
			free(s);
			return -1;
		}
		*p = '/';
	}
	free(s);
	if (mkdir(path, 0700) == -1 && errno != EEXIST) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
schema_version(struct ofl_store *st, int *version)
{
	sqlite3_stmt	*stmt;

	*version = 0;
	if (db_prepare(st, "PRAGMA user_version", &stmt) == -1)
		return -1;
	if (sqlite3_step(stmt) == SQLITE_ROW)
		*version = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return 0;
}

/*
 * Make the schema of a new store.  Writers that start together on a new
 * store take turns (init.lock): switching to WAL fails, without waiting,
 * while another connection is at it.
 */
static int
schema_init(struct ofl_store *st)
{
	struct ofl_buf	 b;
	int		 version, fd, rv = -1;

	if (schema_version(st, &version) == -1)
		return -1;
	if (version == SCHEMA_VERSION)
		return 0;
	if (version > SCHEMA_VERSION) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: made by a newer ofl "
		    "(schema %d)", st->path, version);
		return -1;
	}
	if (!st->rdwr) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: empty", st->path);
		return -1;
	}
	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s/init.lock", st->path);
	fd = open(ofl_buf_str(&b), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd == -1 || flock(fd, LOCK_EX) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: %s", b.data, strerror(errno));
		goto out;
	}
	/* Another writer may have made it while we waited. */
	if (schema_version(st, &version) == -1)
		goto out;
	if (version == SCHEMA_VERSION) {
		rv = 0;
		goto out;
	}
	if (db_exec(st, "PRAGMA auto_vacuum = INCREMENTAL") == -1 ||
	    db_exec(st, "PRAGMA journal_mode = WAL") == -1 ||
	    db_exec(st, "BEGIN IMMEDIATE") == -1)
		goto out;
	if (db_exec(st, schema_sql) == -1 ||
	    db_exec(st, "PRAGMA user_version = 1") == -1 ||
	    db_exec(st, "COMMIT") == -1) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	rv = 0;
out:
	if (fd != -1)
		close(fd);
	ofl_buf_free(&b);
	return rv;
}

/*
 * A store is a directory named by an absolute path.  A URL is refused
 * rather than taken for a relative directory (no backend but the local
 * one is built in), and so is a relative path: OFL_STORE is read in
 * whatever directory a command runs, and would name a new store in each.
 */
static int
store_path_valid(const char *path, const char *what)
{
	const char	*p = path;

	if (*p >= 'a' && *p <= 'z') {
		while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '+' || *p == '.' || *p == '-')
			p++;
		if (strncmp(p, "://", 3) == 0) {
			ofl_seterr(OFL_EXIT_USAGE, "%s%s: %.*s:// stores are "
			    "not supported (a store is a directory)", what,
			    path, (int)(p - path), path);
			return -1;
		}
	}
	if (*path != '/') {
		ofl_seterr(OFL_EXIT_USAGE, "%s%s: not an absolute path",
		    what, path);
		return -1;
	}
	return 0;
}

char *
ofl_store_where(const char *path)
{
	const char	*e;
	struct ofl_buf	 b;

	if (path != NULL && *path != '\0') {
		if (store_path_valid(path, "--store ") == -1)
			return NULL;
		return ofl_xstrdup(path);
	}
	if ((e = getenv("OFL_STORE")) != NULL && *e != '\0') {
		if (store_path_valid(e, "OFL_STORE=") == -1)
			return NULL;
		return ofl_xstrdup(e);
	}
	ofl_buf_init(&b);
	if ((e = getenv("XDG_CACHE_HOME")) != NULL && *e == '/')
		ofl_buf_addf(&b, "%s/ofl", e);
	else if ((e = getenv("HOME")) != NULL && *e != '\0')
		ofl_buf_addf(&b, "%s/.cache/ofl", e);
	else {
		ofl_seterr(OFL_EXIT_FAIL, "no store: set OFL_STORE or HOME");
		return NULL;
	}
	return ofl_buf_str(&b);
}

struct ofl_store *
ofl_store_open(const char *path, int flags)
{
	struct ofl_store	*st;
	struct ofl_buf		 b;
	struct stat		 sb;
	char			*dbpath = NULL;
	const char		*e;
	int			 oflags, create;
	size_t			 n;

	st = ofl_xcalloc(1, sizeof *st);
	st->rdwr = (flags & OFL_RDWR) != 0;
	st->level = LEVEL;
	st->fast = LEVEL_FAST;
	if ((e = getenv("OFL_LEVEL")) != NULL && *e != '\0') {
		long long	v;

		if (ofl_parse_num(e, -5, 19, &v) == 0)
			st->level = st->fast = (int)v;
	}
	if ((st->path = ofl_store_where(path)) == NULL)
		goto fail;
	/* "link/" would resolve the link before lstat() could see it. */
	for (n = strlen(st->path); n > 1 && st->path[n - 1] == '/'; n--)
		st->path[n - 1] = '\0';
	/* Everything the store creates is private, whatever the umask. */
	umask(077);
	create = st->rdwr && (flags & OFL_NOCREATE) == 0;
	if (create) {
		if (lstat(st->path, &sb) == -1 && mkdir_p(st->path) == -1)
			goto fail;
	} else if (lstat(st->path, &sb) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "no store at %s (nothing captured "
		    "yet)", st->path);
		goto fail;
	}
	if (check_owner(st->path, 1, 0) == -1)
		goto fail;

	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s/blobs", st->path);
	st->blobdir = ofl_buf_str(&b);
	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s/ofl.db", st->path);
	dbpath = ofl_buf_str(&b);
	if (lstat(dbpath, &sb) == 0) {
		if (check_owner(dbpath, 0, 0) == -1)
			goto fail;
	} else if (!create) {
		ofl_seterr(OFL_EXIT_FAIL, "no store at %s (nothing captured "
		    "yet)", st->path);
		goto fail;
	}
	if (check_files(st) == -1)
		goto fail;
	oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
	    SQLITE_OPEN_NOFOLLOW;
	if (create)
		oflags |= SQLITE_OPEN_CREATE;
	st->dbpath = ofl_xstrdup(dbpath);
	if (sqlite3_open_v2(dbpath, &st->db, oflags, NULL) != SQLITE_OK) {
		if (st->db == NULL)
			ofl_seterr(OFL_EXIT_FAIL, "store %s: cannot open "
			    "database", st->path);
		else
			db_fail(st, "cannot open database");
		goto fail;
	}
	sqlite3_busy_timeout(st->db, BUSY_MS);
	/*
	 * Each ofl command is a short process: leave checkpoints to the
	 * automatic ones, so that closing does not checkpoint and sync, and
	 * keep the WAL file instead of making it anew every time.  The
	 * first connection of a process reads the whole WAL to index it:
	 * checkpoint every WAL_PAGES pages, so that costs little (0.5 ms
	 * at the default 1000 pages).
	 */
	{
		int	one = 1;

		sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1,
		    NULL);
		sqlite3_file_control(st->db, "main", SQLITE_FCNTL_PERSIST_WAL,
		    &one);
	}
	sqlite3_extended_result_codes(st->db, 0);
	if (db_exec(st, "PRAGMA synchronous = NORMAL") == -1 ||
	    db_exec(st, "PRAGMA journal_size_limit = 4194304") == -1 ||
	    sqlite3_wal_autocheckpoint(st->db, WAL_PAGES) != SQLITE_OK)
		goto fail;
	if (schema_init(st) == -1)
		goto fail;
	{
		char	*v = ofl_setting_get(st, "redact");

		ofl_redact_store_default(v == NULL || strcmp(v, "off") != 0);
		free(v);
	}
	if (st->rdwr) {
		if (mkdir(st->blobdir, 0700) == -1 && errno != EEXIST) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: %s", st->blobdir,
			    strerror(errno));
			goto fail;
		}
		recover_writers(st);
		(void)ofl_store_reserve(st, 1);
	}
	free(dbpath);
	return st;
fail:
	free(dbpath);
	ofl_store_close(st);
	return NULL;
}

void
ofl_store_close(struct ofl_store *st)
{
	if (st == NULL)
		return;
	if (st->db != NULL)
		sqlite3_close_v2(st->db);
	free(st->blobdir);
	free(st->dbpath);
	free(st->path);
	free(st);
}

const char *
ofl_store_path(struct ofl_store *st)
{
	return st->path;
}

void *
ofl_store_db(struct ofl_store *st)
{
	return st->db;
}

int64_t
ofl_store_blob(struct ofl_store *st, const char *id)
{
	sqlite3_stmt	*stmt;
	int64_t		 blob = -1;

	if (db_prepare(st, "SELECT blob FROM artifact WHERE id = ?1",
	    &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		blob = sqlite3_column_int64(stmt, 0);
	else
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
	sqlite3_finalize(stmt);
	return blob;
}

/* Metadata. */

static char *
col_strdup(sqlite3_stmt *stmt, int i)
{
	const unsigned char	*s;

	if (sqlite3_column_type(stmt, i) == SQLITE_NULL)
		return NULL;
	s = sqlite3_column_text(stmt, i);
	return s == NULL ? NULL : ofl_xstrdup((const char *)s);
}

static void
meta_from_stmt(sqlite3_stmt *stmt, struct ofl_meta *m)
{
	const unsigned char	*s;
	int			 k;

	memset(m, 0, sizeof *m);
	s = sqlite3_column_text(stmt, 0);
	snprintf(m->id, sizeof m->id, "%s", s ? (const char *)s : "");
	s = sqlite3_column_text(stmt, 1);
	snprintf(m->hash, sizeof m->hash, "%s", s ? (const char *)s : "");
	m->seq = sqlite3_column_int64(stmt, 2);
	m->state = sqlite3_column_int(stmt, 3);
	m->incomplete = sqlite3_column_int(stmt, 4);
	s = sqlite3_column_text(stmt, 5);
	k = s != NULL ? ofl_kind_from_name((const char *)s) : -1;
	m->kind = k < 0 ? OFL_KIND_TEXT : k;
	m->bytes = (uint64_t)sqlite3_column_int64(stmt, 6);
	m->lines = (uint64_t)sqlite3_column_int64(stmt, 7);
	m->stored = (uint64_t)sqlite3_column_int64(stmt, 8);
	m->created = sqlite3_column_int64(stmt, 9);
	m->used = sqlite3_column_int64(stmt, 10);
	m->expires = sqlite3_column_int64(stmt, 11);
	m->label = col_strdup(stmt, 12);
	m->command = col_strdup(stmt, 13);
	m->cwd = col_strdup(stmt, 14);
	m->session = col_strdup(stmt, 15);
	m->has_exit = sqlite3_column_type(stmt, 16) != SQLITE_NULL;
	m->exit_status = sqlite3_column_int(stmt, 16);
	m->duration_ms = sqlite3_column_type(stmt, 17) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(stmt, 17);
	m->errors = (uint64_t)sqlite3_column_int64(stmt, 18);
	m->warnings = (uint64_t)sqlite3_column_int64(stmt, 19);
	m->first_error = (uint64_t)sqlite3_column_int64(stmt, 20);
	m->printed = -1;
}

void
ofl_meta_free(struct ofl_meta *m)
{
	if (m == NULL)
		return;
	free(m->label);
	free(m->command);
	free(m->cwd);
	free(m->session);
	m->label = m->command = m->cwd = m->session = NULL;
}

int
ofl_store_resolve(struct ofl_store *st, const char *ref,
    char id[OFL_ID_MAX + 1])
{
	sqlite3_stmt	*stmt;
	char		 lower[OFL_ID_MAX + 2], hi[OFL_ID_MAX + 2];
	const char	*s = ref;
	long long	 n = 1;
	size_t		 len, i;
	int		 rc, found = 0;

	if (strncmp(s, "ofl:", 4) == 0)
		s += 4;
	if (*s == '@') {
		if (s[1] != '\0') {
			const char *errstr = NULL;

			if (s[1] < '0' || s[1] > '9')
				errstr = "invalid";
			else
				n = strtonum(s + 1, 1, 1000000, &errstr);
			if (errstr != NULL) {
				ofl_seterr(OFL_EXIT_USAGE, "%s: not an artifact "
				    "reference (use @ or @N, N >= 1)", ref);
				return -1;
			}
		}
		if (db_prepare(st, "SELECT id FROM artifact ORDER BY seq DESC"
		    " LIMIT 1 OFFSET ?1", &stmt) == -1)
			return -1;
		sqlite3_bind_int64(stmt, 1, n - 1);
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW) {
			snprintf(id, OFL_ID_MAX + 1, "%s",
			    (const char *)sqlite3_column_text(stmt, 0));
			found = 1;
		}
		sqlite3_finalize(stmt);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return db_fail(st, "lookup");
		if (!found) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: no such artifact (the "
			    "store holds fewer)", ref);
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
	if (db_prepare(st, "SELECT id FROM artifact WHERE id >= ?1 AND"
	    " id < ?2 ORDER BY id LIMIT 3", &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, lower, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, hi, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *got = (const char *)sqlite3_column_text(stmt, 0);

		if (strcmp(got, lower) == 0) {
			/* An exact match wins over longer IDs. */
			snprintf(id, OFL_ID_MAX + 1, "%s", got);
			found = 1;
			break;
		}
		if (found == 1) {
			char	second[OFL_ID_MAX + 1];
			int	more;

			/* got is the statement's: copy it before stepping. */
			snprintf(second, sizeof second, "%s", got);
			more = sqlite3_step(stmt) == SQLITE_ROW;
			ofl_seterr(OFL_EXIT_USAGE, "%s: ambiguous ID prefix "
			    "(ofl:%s, ofl:%s%s)", ref, id, second,
			    more ? ", ..." : "");
			sqlite3_finalize(stmt);
			return -1;
		}
		snprintf(id, OFL_ID_MAX + 1, "%s", got);
		found = 1;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(st, "lookup");
	if (!found) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", ref);
		return -1;
	}
	return 0;
}

int
ofl_store_meta(struct ofl_store *st, const char *id, struct ofl_meta *m)
{
	sqlite3_stmt	*stmt;
	int		 rc;

	if (db_prepare(st, "SELECT " META_COLUMNS " FROM artifact a JOIN blob b"
	    " ON b.id = a.blob WHERE a.id = ?1", &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		meta_from_stmt(stmt, m);
	sqlite3_finalize(stmt);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
		return -1;
	}
	return db_fail(st, "lookup");
}

void
ofl_store_touch(struct ofl_store *st, const char *id)
{
	sqlite3_stmt	*stmt;

	if (db_prepare(st, "UPDATE artifact SET used = ?1 WHERE id = ?2",
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

	if (db_prepare(st, "UPDATE artifact SET printed = ?1 WHERE id = ?2",
	    &stmt) == -1)
		return;
	sqlite3_bind_int64(stmt, 1, (int64_t)n);
	sqlite3_bind_text(stmt, 2, id, -1, SQLITE_STATIC);
	(void)sqlite3_step(stmt);
	sqlite3_finalize(stmt);
}

int
ofl_store_expired(struct ofl_store *st, int64_t ttl_ms)
{
	sqlite3_stmt	*stmt;
	int64_t		 now = ofl_now_ms();
	int		 found = 0;

	if (db_prepare(st, "SELECT 1 FROM artifact WHERE state = 1 AND"
	    " ((expires IS NOT NULL AND expires <= ?1) OR (expires IS NULL AND"
	    " ?2 > 0 AND created <= ?1 - ?2)) LIMIT 1", &stmt) == -1)
		return 0;
	sqlite3_bind_int64(stmt, 1, now);
	sqlite3_bind_int64(stmt, 2, ttl_ms);
	found = sqlite3_step(stmt) == SQLITE_ROW;
	sqlite3_finalize(stmt);
	return found;
}

void
ofl_filter_init(struct ofl_filter *f)
{
	memset(f, 0, sizeof *f);
	f->kind = -1;
}

int
ofl_store_list(struct ofl_store *st, const struct ofl_filter *f,
    int (*cb)(const struct ofl_meta *, void *), void *arg)
{
	sqlite3_stmt	*stmt;
	struct ofl_meta	 m;
	int64_t		 now = ofl_now_ms();
	int		 rc, n = 0;

	if (db_prepare(st, "SELECT " META_COLUMNS " FROM artifact a JOIN blob b"
	    " ON b.id = a.blob WHERE (?1 IS NULL OR a.label = ?1)"
	    " AND (?2 IS NULL OR a.session = ?2)"
	    " AND (?3 IS NULL OR a.kind = ?3)"
	    " AND (?4 = 0 OR a.created >= ?4)"
	    " AND (?5 = 0 OR a.created < ?5)"
	    " ORDER BY a.seq DESC LIMIT ?6", &stmt) == -1)
		return -1;
	if (f->label != NULL)
		sqlite3_bind_text(stmt, 1, f->label, -1, SQLITE_STATIC);
	if (f->session != NULL)
		sqlite3_bind_text(stmt, 2, f->session, -1, SQLITE_STATIC);
	if (f->kind >= 0)
		sqlite3_bind_text(stmt, 3, ofl_kind_name(f->kind), -1,
		    SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 4, f->newer_ms > 0 ? now - f->newer_ms : 0);
	sqlite3_bind_int64(stmt, 5, f->older_ms > 0 ? now - f->older_ms : 0);
	sqlite3_bind_int64(stmt, 6, f->limit > 0 ? f->limit : -1);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		meta_from_stmt(stmt, &m);
		n++;
		rc = cb(&m, arg);
		ofl_meta_free(&m);
		if (rc != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return db_fail(st, "list");
	return n;
}

/* Writing. */

static char *
blob_path(struct ofl_store *st, const char *name)
{
	struct ofl_buf	b;

	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s/%s", st->blobdir, name);
	return ofl_buf_str(&b);
}

struct ofl_writer *
ofl_writer_begin(struct ofl_store *st, const struct ofl_meta *init)
{
	struct ofl_writer	*w;
	sqlite3_stmt		*stmt = NULL;
	char			 name[32], dir[8];
	char			*dirpath = NULL;
	int64_t			 now = ofl_now_ms();
	int			 tries, waiting = 0;

	if (!st->rdwr) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: opened read-only",
		    st->path);
		return NULL;
	}
	w = ofl_xcalloc(1, sizeof *w);
	w->st = st;
	w->fd = -1;
	w->last_byte = -1;
	w->lineno = 1;
	for (tries = 0; tries < 16; tries++) {
		ofl_id_new(w->id);
		snprintf(dir, sizeof dir, "%.2s", w->id);
		snprintf(name, sizeof name, "%s/%s", dir, w->id);
		free(dirpath);
		dirpath = blob_path(st, dir);
		if (mkdir(dirpath, 0700) == -1 && errno != EEXIST) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: %s", dirpath,
			    strerror(errno));
			goto fail;
		}
		free(w->file);
		w->file = blob_path(st, name);
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
	if (w->fd == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: cannot make a new ID",
		    st->path);
		goto fail;
	}
	if (flock(w->fd, LOCK_EX) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: lock: %s", w->file,
		    strerror(errno));
		goto fail;
	}

	/* From here on, the writer waits for the lock as long as needed. */
	if (st->writers++ == 0)
		sqlite3_busy_handler(st->db, writer_busy, NULL);
	waiting = 1;
	if (db_exec(st, "BEGIN IMMEDIATE") == -1)
		goto fail;
	/*
	 * Blob numbers are never used twice (AUTOINCREMENT's bookkeeping,
	 * in sqlite_sequence): rows keyed by a removed blob, left by an old
	 * ofl or a crash, must never be taken for a new blob's.
	 */
	if (db_prepare(st, "INSERT INTO blob (id, file, created) VALUES"
	    " (max(coalesce((SELECT max(id) FROM blob), 0), coalesce((SELECT"
	    " max(seq) FROM sqlite_sequence WHERE name = 'blob'), 0)) + 1,"
	    " ?1, ?2)", &stmt) == -1)
		goto rollback;
	sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, now);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		db_fail(st, "new blob");
		goto rollback;
	}
	sqlite3_finalize(stmt);
	stmt = NULL;
	w->blob = sqlite3_last_insert_rowid(st->db);
	if (blob_seq(st, "UPDATE sqlite_sequence SET seq = ?1 WHERE"
	    " name = 'blob'", w->blob) == -1 ||
	    (sqlite3_changes(st->db) == 0 && blob_seq(st, "INSERT INTO"
	    " sqlite_sequence (name, seq) VALUES ('blob', ?1)", w->blob) == -1))
		goto rollback;
	if (db_prepare(st, "INSERT INTO artifact (id, blob, state, pid,"
	    " created, used, expires, label, command, cwd, session)"
	    " VALUES (?1, ?2, 0, ?3, ?4, ?4, ?5, ?6, ?7, ?8, ?9)",
	    &stmt) == -1)
		goto rollback;
	sqlite3_bind_text(stmt, 1, w->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, w->blob);
	sqlite3_bind_int64(stmt, 3, (int64_t)getpid());
	sqlite3_bind_int64(stmt, 4, now);
	if (init != NULL && init->expires > 0)
		sqlite3_bind_int64(stmt, 5, init->expires);
	if (init != NULL) {
		if (init->label != NULL)
			sqlite3_bind_text(stmt, 6, init->label, -1,
			    SQLITE_STATIC);
		if (init->command != NULL)
			sqlite3_bind_text(stmt, 7, init->command, -1,
			    SQLITE_STATIC);
		if (init->cwd != NULL)
			sqlite3_bind_text(stmt, 8, init->cwd, -1,
			    SQLITE_STATIC);
		if (init->session != NULL)
			sqlite3_bind_text(stmt, 9, init->session, -1,
			    SQLITE_STATIC);
	}
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		db_fail(st, "new artifact");
		goto rollback;
	}
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (db_exec(st, "COMMIT") == -1)
		goto rollback;

	if (db_prepare(st, "INSERT INTO frame (blob, raw_off, raw_len,"
	    " line_off, nl, comp_off, comp_len) VALUES (?1, ?2, ?3, ?4, ?5,"
	    " ?6, ?7)", &w->ins_frame) == -1)
		goto fail_rows;
	w->buf = ofl_xmalloc(FRAME_MAX);
	w->head = ofl_xmalloc(HEAD_MAX);
	w->line = ofl_xmalloc(LINE_SCAN_MAX);
	if (cz_init(&w->cz, st->level) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "out of memory");
		goto fail_rows;
	}
	ofl_hash_init(&w->hash);
	free(dirpath);
	return w;

rollback:
	sqlite3_finalize(stmt);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
fail:
	free(dirpath);
	if (w->fd != -1) {
		unlink(w->file);
		close(w->fd);
	}
	if (waiting)
		writer_unbusy(st);
	free(w->file);
	free(w);
	return NULL;
fail_rows:
	/* The rows exist: leave them to recovery, as after a crash. */
	writer_unbusy(st);
	free(dirpath);
	sqlite3_finalize(w->ins_frame);
	free(w->buf);
	free(w->head);
	free(w->line);
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
	return w->id;
}

uint64_t
ofl_writer_bytes(struct ofl_writer *w)
{
	return w->bytes;
}

/* Feed complete lines to the line statistics; keep a partial one. */
static void
writer_lines(struct ofl_writer *w, const unsigned char *p, size_t n)
{
	const unsigned char	*nl, *end = p + n;
	size_t			 take;
	uint64_t		 k;

	if (w->linelen > 0) {
		/* The rest of a line begun before. */
		nl = memchr(p, '\n', n);
		take = (size_t)((nl != NULL ? nl : end) - p);
		if (w->linelen + take > LINE_SCAN_MAX)
			take = LINE_SCAN_MAX - w->linelen;
		memcpy(w->line + w->linelen, p, take);
		w->linelen += take;
		if (nl == NULL)
			return;
		ofl_linestat_line(&w->ls, w->line, w->linelen, w->lineno);
		w->linelen = 0;
		w->lineno++;
		w->nl_pending++;
		p = nl + 1;
	}
	if (p < end && (nl = memrchr(p, '\n', (size_t)(end - p))) != NULL) {
		k = ofl_linestat_lines(&w->ls, (const char *)p,
		    (size_t)(nl + 1 - p), w->lineno, LINE_SCAN_MAX);
		w->lineno += k;
		w->nl_pending += k;
		p = nl + 1;
	}
	if (p < end) {
		take = (size_t)(end - p);
		w->linelen = take > LINE_SCAN_MAX ? LINE_SCAN_MAX : take;
		memcpy(w->line, p, w->linelen);
	}
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

/* Append a compressed frame to the blob file, then record it. */
static int
frame_append(struct ofl_writer *w, const unsigned char *cbuf, size_t clen,
    size_t len, uint64_t nl)
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
			    j->nl) == -1;
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
		/* From now on frames are recorded on tdb. */
		sqlite3_finalize(w->ins_frame);
		w->ins_frame = ins;
		return;
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv_job);
	pthread_cond_destroy(&w->cv_free);
	for (i = 0; i < w->nq; i++)
		free(w->q[i].cbuf);
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
	sqlite3_close(w->tdb);
	w->tdb = NULL;
	for (i = 0; i < w->nq; i++)
		free(w->q[i].cbuf);
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

static int
writer_frame(struct ofl_writer *w)
{
	int64_t	now;
	size_t	clen;

	if (w->len == 0)
		return 0;
	if (w->nwork == 0 && w->len == FRAME_MAX)
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
		j->buf = w->buf;
		j->len = w->len;
		j->nl = w->nl_pending;
		j->done = 0;
		now = ofl_mono_us();
		j->flood = now - w->last_us < FLOOD_US;
		w->last_us = now;
		pthread_cond_signal(&w->cv_job);
		while (w->nfree == 0)
			pthread_cond_wait(&w->cv_free, &w->mu);
		w->buf = w->freebuf[--w->nfree];
		pthread_mutex_unlock(&w->mu);
	} else if ((clen = cz_frame(w->cz.cctx, w->cz.cbuf, w->buf, w->len,
	    w->ferr, sizeof w->ferr)) == 0 || frame_append(w, w->cz.cbuf, clen,
	    w->len, w->nl_pending) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "%s", w->ferr);
		return -1;
	}
	w->nl_pending = 0;
	w->len = 0;
	return 0;
}

int
ofl_writer_write(struct ofl_writer *w, const void *data, size_t n)
{
	const unsigned char	*p = data;
	size_t			 take;

	if (w->failed)
		return -1;
	if (n == 0)
		return 0;
	if (w->headlen < HEAD_MAX) {
		take = HEAD_MAX - w->headlen;
		if (take > n)
			take = n;
		memcpy(w->head + w->headlen, p, take);
		w->headlen += take;
	}
	ofl_hash_update(&w->hash, p, n);
	w->bytes += n;
	w->last_byte = p[n - 1];
	while (n > 0) {
		take = FRAME_MAX - w->len;
		if (take > n)
			take = n;
		memcpy(w->buf + w->len, p, take);
		writer_lines(w, p, take);
		w->len += take;
		p += take;
		n -= take;
		if (w->len == FRAME_MAX && writer_frame(w) == -1) {
			w->failed = 1;
			return -1;
		}
	}
	return 0;
}

int
ofl_writer_flush(struct ofl_writer *w)
{
	if (w->failed)
		return -1;
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
 * Compare two contents frame by frame, when their frames line up (the
 * same raw sizes): frames compressed alike hold the same bytes, as
 * decompressing is deterministic, so only frames compressed differently
 * (at another level) are decompressed.  1 same, 0 not, -1 not lined up.
 */
static int
same_frames(struct ofl_reader *ra, struct ofl_reader *rb)
{
	size_t	k;

	if (ra->nframes != rb->nframes)
		return -1;
	for (k = 0; k < ra->nframes; k++)
		if (ra->frames[k].raw_len != rb->frames[k].raw_len)
			return -1;
	for (k = 0; k < ra->nframes; k++) {
		if (ra->frames[k].comp_len == rb->frames[k].comp_len) {
			if (reader_fetch(ra, (ssize_t)k) == -1 ||
			    reader_fetch(rb, (ssize_t)k) == -1)
				return 0;
			if (memcmp(ra->cbuf, rb->cbuf,
			    ra->frames[k].comp_len) == 0)
				continue;
		}
		if (reader_load(ra, (ssize_t)k) == -1 ||
		    reader_load(rb, (ssize_t)k) == -1 ||
		    memcmp(ra->fbuf, rb->fbuf, ra->frames[k].raw_len) != 0)
			return 0;
	}
	return 1;
}

/*
 * 1 if artifacts a and b hold the same bytes.  With mem, a's bytes are
 * those (its whole content, as small content is kept in memory).
 */
static int
same_content(struct ofl_store *st, const char *a, const unsigned char *mem,
    size_t memlen, const char *b)
{
	struct ofl_reader	*ra = NULL, *rb;
	const unsigned char	*pa;
	unsigned char		*ba, *bb;
	ssize_t			 ka, kb;
	size_t			 off = 0;
	int			 same = 0;

	if ((rb = ofl_reader_open(st, b)) == NULL)
		return 0;
	if (mem == NULL && (ra = ofl_reader_open(st, a)) == NULL) {
		ofl_reader_close(rb);
		return 0;
	}
	if (ofl_reader_bytes(rb) != (mem != NULL ? memlen :
	    ofl_reader_bytes(ra))) {
		ofl_reader_close(ra);
		ofl_reader_close(rb);
		return 0;
	}
	if (ra != NULL && (same = same_frames(ra, rb)) != -1) {
		ofl_reader_close(ra);
		ofl_reader_close(rb);
		return same;
	}
	same = 0;
	ba = ofl_xmalloc(2 * 65536);
	bb = ba + 65536;
	for (;;) {
		if (mem != NULL) {
			pa = mem + off;
			ka = (ssize_t)(memlen - off > 65536 ? 65536 :
			    memlen - off);
			off += (size_t)ka;
		} else {
			pa = ba;
			ka = ofl_reader_read_full(ra, ba, 65536);
		}
		kb = ofl_reader_read_full(rb, bb, 65536);
		if (ka == -1 || ka != kb || memcmp(pa, bb, (size_t)ka) != 0)
			break;
		if (ka == 0) {
			same = 1;
			break;
		}
	}
	free(ba);
	ofl_reader_close(ra);
	ofl_reader_close(rb);
	return same;
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
	if (db_prepare(st, "SELECT b.id, b.file, a.id FROM blob b JOIN"
	    " artifact a ON a.blob = b.id WHERE b.hash = ?1 AND b.id != ?2"
	    " LIMIT 1", &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, blob);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		twin = sqlite3_column_int64(stmt, 0);
		*file = col_strdup(stmt, 1);
		aid = col_strdup(stmt, 2);
	}
	sqlite3_finalize(stmt);
	*seen = twin;
	if (twin != -1 && !same_content(st, id, mem, memlen, aid)) {
		twin = -1;
		free(*file);
		*file = NULL;
	}
	free(aid);
	return twin;
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
	sqlite3_stmt	*stmt = NULL;
	char		*file = NULL, *path, *twin_file;
	int64_t		 other, twin, seen;
	int		 rc, hashed = 1, tries = 0;

again:
	other = -1;
	twin = find_twin(st, id, mem, (size_t)bytes, blob, hash, &twin_file,
	    &seen);
	if (db_exec(st, "BEGIN IMMEDIATE") == -1) {
		free(twin_file);
		return -1;
	}
	if (salvage) {
		/* Its writer may have finished since we looked. */
		if (db_prepare(st, "SELECT state FROM artifact WHERE id = ?1",
		    &stmt) == -1)
			goto rollback;
		sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
		rc = sqlite3_step(stmt);
		if (rc != SQLITE_ROW || sqlite3_column_int(stmt, 0) != 0) {
			sqlite3_finalize(stmt);
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			free(twin_file);
			return 0;
		}
		sqlite3_finalize(stmt);
		stmt = NULL;
	}
	if (db_prepare(st, "SELECT id, file FROM blob WHERE hash = ?1 AND"
	    " id != ?2", &stmt) == -1)
		goto rollback;
	sqlite3_bind_text(stmt, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, blob);
	if ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		other = sqlite3_column_int64(stmt, 0);
		if (other == twin && twin_file != NULL &&
		    sqlite3_column_text(stmt, 1) != NULL &&
		    strcmp((const char *)sqlite3_column_text(stmt, 1),
		    twin_file) == 0)
			;	/* the blob compared: share it */
		else if (other != seen && ++tries < 4) {
			/*
			 * Stored since we looked (the same output twice
			 * at once): compare again.
			 */
			sqlite3_finalize(stmt);
			stmt = NULL;
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			free(twin_file);
			goto again;
		} else {
			/*
			 * Other bytes with our hash (a collision): keep
			 * ours, without the hash, which is taken.
			 */
			other = -1;
			hashed = 0;
		}
	} else if (rc != SQLITE_DONE) {
		db_fail(st, "finish");
		goto rollback;
	}
	sqlite3_finalize(stmt);
	stmt = NULL;

	if (other != -1) {
		/* Same content stored before: share it, drop ours. */
		if (db_prepare(st, "SELECT file FROM blob WHERE id = ?1",
		    &stmt) == -1)
			goto rollback;
		sqlite3_bind_int64(stmt, 1, blob);
		if (sqlite3_step(stmt) == SQLITE_ROW)
			file = col_strdup(stmt, 0);
		sqlite3_finalize(stmt);
		if (db_prepare(st, "DELETE FROM frame WHERE blob = ?1",
		    &stmt) == -1)
			goto rollback;
		sqlite3_bind_int64(stmt, 1, blob);
		rc = sqlite3_step(stmt);
		sqlite3_finalize(stmt);
		stmt = NULL;
		if (rc != SQLITE_DONE) {
			db_fail(st, "finish");
			goto rollback;
		}
		if (db_prepare(st, "DELETE FROM blob WHERE id = ?1",
		    &stmt) == -1)
			goto rollback;
		sqlite3_bind_int64(stmt, 1, blob);
		rc = sqlite3_step(stmt);
		sqlite3_finalize(stmt);
		stmt = NULL;
		if (rc != SQLITE_DONE) {
			db_fail(st, "finish");
			goto rollback;
		}
		blob = other;
	} else {
		if (db_prepare(st, "UPDATE blob SET hash = ?1, bytes = ?2,"
		    " lines = ?3, stored = (SELECT coalesce(sum(comp_len), 0)"
		    " FROM frame WHERE blob = ?4) WHERE id = ?4", &stmt) == -1)
			goto rollback;
		if (hashed)
			sqlite3_bind_text(stmt, 1, hash, -1, SQLITE_STATIC);
		sqlite3_bind_int64(stmt, 2, (int64_t)bytes);
		sqlite3_bind_int64(stmt, 3, (int64_t)lines);
		sqlite3_bind_int64(stmt, 4, blob);
		rc = sqlite3_step(stmt);
		sqlite3_finalize(stmt);
		stmt = NULL;
		if (rc != SQLITE_DONE) {
			db_fail(st, "finish");
			goto rollback;
		}
	}
	if (db_prepare(st, "UPDATE artifact SET blob = ?2, state = 1,"
	    " pid = NULL, incomplete = ?3, kind = ?4, bytes = ?5, lines = ?6,"
	    " exit_status = ?7, duration_ms = ?8, errors = ?9,"
	    " warnings = ?10, first_error = ?11, printed = ?12 WHERE id = ?1",
	    &stmt) == -1)
		goto rollback;
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
	stmt = NULL;
	if (rc != SQLITE_DONE) {
		db_fail(st, "finish");
		goto rollback;
	}
	if (db_exec(st, "COMMIT") == -1)
		goto rollback;
	if (file != NULL) {
		path = blob_path(st, file);
		unlink(path);
		free(path);
		free(file);
	}
	free(twin_file);
	return 0;
rollback:
	sqlite3_finalize(stmt);
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
	char		 hash[OFL_HASH_HEX];
	uint64_t	 lines;
	int		 rv = 0, failed = w->failed;

	if (!failed && writer_frame(w) == -1)
		failed = 1;
	if (writer_thread_stop(w) == -1)
		failed = 1;
	memset(&m, 0, sizeof m);
	m.duration_ms = -1;
	m.printed = -1;
	if (fin != NULL) {
		m.has_exit = fin->has_exit;
		m.exit_status = fin->exit_status;
		m.duration_ms = fin->duration_ms;
		m.incomplete = fin->incomplete;
		m.printed = fin->printed;
	}
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
		close(w->fd);
		w->fd = -1;
		recover_writers(w->st);
		ofl_seterr(OFL_EXIT_FAIL, "%s", err);
		rv = -1;
		goto out;
	}
	if (w->linelen > 0)
		ofl_linestat_line(&w->ls, w->line, w->linelen, w->lineno);
	lines = w->nl_committed;
	if (w->bytes > 0 && w->last_byte != '\n')
		lines++;
	ofl_hash_final_hex(&w->hash, hash);
	m.kind = ofl_kind_detect(w->head, w->headlen, w->bytes == w->headlen);
	m.errors = w->ls.errors;
	m.warnings = w->ls.warnings;
	m.first_error = w->ls.first_error;
	sqlite3_finalize(w->ins_frame);
	w->ins_frame = NULL;
	/* Small content is all in the head: compare it from there. */
	if (finalize(w->st, w->id, w->blob, w->bytes == w->headlen ? w->head :
	    NULL, hash, w->bytes, lines, &m, 0) == -1) {
		char	err[1024];

		snprintf(err, sizeof err, "%s", ofl_errmsg());
		close(w->fd);
		w->fd = -1;
		recover_writers(w->st);
		ofl_seterr(OFL_EXIT_FAIL, "%s", err);
		rv = -1;
		goto out;
	}
out:
	if (out != NULL && ofl_store_meta(w->st, w->id, out) == -1 && rv == 0)
		rv = -1;
	if (w->fd != -1)
		close(w->fd);
	writer_unbusy(w->st);
	cz_free(&w->cz);
	free(w->buf);
	free(w->head);
	free(w->line);
	free(w->file);
	free(w);
	return rv;
}

/*
 * Salvage artifacts whose writer died: their blob file is no longer
 * locked.  Keep the committed frames, drop bytes written after the last
 * one, and mark the artifact complete and incomplete.
 */
static void
recover_writers(struct ofl_store *st)
{
	sqlite3_stmt	*stmt;
	struct salvage {
		char	 id[OFL_ID_MAX + 1];
		int64_t	 blob;
		char	*file;
	}		*list = NULL;
	size_t		 n = 0, i;
	int		 fd;

	if (db_prepare(st, "SELECT a.id, a.blob, b.file FROM artifact a JOIN"
	    " blob b ON b.id = a.blob WHERE a.state = 0", &stmt) == -1)
		return;
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		list = ofl_xrealloc(list, (n + 1) * sizeof *list);
		snprintf(list[n].id, sizeof list[n].id, "%s",
		    (const char *)sqlite3_column_text(stmt, 0));
		list[n].blob = sqlite3_column_int64(stmt, 1);
		list[n].file = col_strdup(stmt, 2);
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

		path = blob_path(st, list[i].file);
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

/* Reading. */

/*
 * 1 if name is a blob file name that ofl makes: "ab/abcd2345", the first
 * two characters of an ID, a slash, the ID.  Nothing else is opened or
 * unlinked: a damaged or forged row must not reach outside blobs/.
 */
int
ofl_blob_name_valid(const char *name)
{
	size_t	n;

	if (name == NULL || (n = strlen(name)) < 4 || name[2] != '/' ||
	    memcmp(name, name + 3, 2) != 0 || !ofl_id_valid(name + 3, n - 3))
		return 0;
	for (; *name != '\0'; name++)
		if (*name >= 'A' && *name <= 'Z')
			return 0;
	return 1;
}

/*
 * Read the frame in the current row of stmt (columns 0-5) into f, after
 * bytes of content: -1 if the row cannot be one the writer made.
 */
static int
frame_row(sqlite3_stmt *stmt, uint64_t bytes, struct frame *f)
{
	int64_t	v[6];
	int	i;

	for (i = 0; i < 6; i++) {
		if (sqlite3_column_type(stmt, i) != SQLITE_INTEGER)
			return -1;
		if ((v[i] = sqlite3_column_int64(stmt, i)) < 0)
			return -1;
	}
	f->raw_off = (uint64_t)v[0];
	f->raw_len = (uint64_t)v[1];
	f->line_off = (uint64_t)v[2];
	f->nl = (uint64_t)v[3];
	f->comp_off = (uint64_t)v[4];
	f->comp_len = (uint64_t)v[5];
	if (f->raw_off != bytes || f->raw_len > FRAME_MAX ||
	    f->nl > f->raw_len || f->comp_len == 0 ||
	    f->comp_len > ZSTD_compressBound(FRAME_MAX) ||
	    f->comp_off > (uint64_t)INT64_MAX - f->comp_len)
		return -1;
	return 0;
}

int
ofl_store_frames_good(struct ofl_store *st, const char *id, uint64_t *good)
{
	sqlite3_stmt	*stmt;
	struct frame	 f;
	int		 rc;

	*good = 0;
	if (db_prepare(st, "SELECT f.raw_off, f.raw_len, f.line_off, f.nl,"
	    " f.comp_off, f.comp_len FROM artifact a JOIN frame f ON"
	    " f.blob = a.blob WHERE a.id = ?1 ORDER BY f.raw_off",
	    &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (frame_row(stmt, *good, &f) == -1)
			break;
		*good += f.raw_len;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(st, "read");
	return rc == SQLITE_ROW ? 1 : 0;
}

struct ofl_reader *
ofl_reader_open(struct ofl_store *st, const char *id)
{
	struct ofl_reader	*r;
	sqlite3_stmt		*stmt = NULL;
	char			*path = NULL;
	int			 rc;

	r = ofl_xcalloc(1, sizeof *r);
	r->st = st;
	r->fd = -1;
	r->cur = -1;
	if (ofl_store_meta(st, id, &r->meta) == -1)
		goto fail;
	if (db_prepare(st, "SELECT f.raw_off, f.raw_len, f.line_off, f.nl,"
	    " f.comp_off, f.comp_len, b.file FROM artifact a JOIN blob b ON"
	    " b.id = a.blob LEFT JOIN frame f ON f.blob = a.blob"
	    " WHERE a.id = ?1 ORDER BY f.raw_off", &stmt) == -1)
		goto fail;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct frame *f;

		if (path == NULL) {
			const char *name = (const char *)
			    sqlite3_column_text(stmt, 6);

			if (!ofl_blob_name_valid(name)) {
				ofl_seterr(OFL_EXIT_FAIL, "%s: the name of "
				    "its content file is damaged (run ofl-gc "
				    "--check)", id);
				goto fail;
			}
			path = blob_path(st, name);
		}
		if (sqlite3_column_type(stmt, 0) == SQLITE_NULL)
			continue;
		r->frames = ofl_xrealloc(r->frames,
		    (r->nframes + 1) * sizeof *r->frames);
		f = &r->frames[r->nframes++];
		if (frame_row(stmt, r->bytes, f) == -1) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: frame table is "
			    "damaged (run ofl-gc --check)", id);
			goto fail;
		}
		r->bytes += f->raw_len;
		r->newlines += f->nl;
	}
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (rc != SQLITE_DONE) {
		db_fail(st, "read");
		goto fail;
	}
	if (path == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
		goto fail;
	}
	if (r->nframes > 0) {
		struct stat	sb;

		r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (r->fd == -1) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: content missing: %s: %s",
			    id, path, strerror(errno));
			goto fail;
		}
		/* Content another user could have written is not ours. */
		if (fstat(r->fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
		    sb.st_uid != geteuid() ||
		    (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: content file %s is not "
			    "a private file of yours; refusing to read it", id,
			    path);
			goto fail;
		}
	}
	if (r->meta.state != OFL_STATE_COMPLETE) {
		r->meta.bytes = r->bytes;
		r->meta.lines = r->newlines;
	}
	free(path);
	return r;
fail:
	sqlite3_finalize(stmt);
	free(path);
	ofl_reader_close(r);
	return NULL;
}

void
ofl_reader_close(struct ofl_reader *r)
{
	if (r == NULL)
		return;
	if (r->fd != -1)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	ofl_meta_free(&r->meta);
	free(r->frames);
	free(r->fbuf);
	free(r->cbuf);
	free(r);
}

const struct ofl_meta *
ofl_reader_meta(struct ofl_reader *r)
{
	return &r->meta;
}

uint64_t
ofl_reader_bytes(struct ofl_reader *r)
{
	return r->bytes;
}

uint64_t
ofl_reader_lines(struct ofl_reader *r)
{
	return r->meta.state == OFL_STATE_COMPLETE ? r->meta.lines :
	    r->newlines;
}

uint64_t
ofl_reader_tell(struct ofl_reader *r)
{
	return r->pos;
}

static int
reader_load(struct ofl_reader *r, ssize_t k)
{
	struct frame	*f = &r->frames[k];
	size_t		 n;

	if (r->cur == k)
		return 0;
	if (r->dctx == NULL && (r->dctx = ZSTD_createDCtx()) == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "out of memory");
		return -1;
	}
	if (r->fcap < FRAME_MAX) {
		r->fbuf = ofl_xrealloc(r->fbuf, FRAME_MAX);
		r->fcap = FRAME_MAX;
	}
	if (reader_fetch(r, k) == -1)
		return -1;
	n = ZSTD_decompressDCtx(r->dctx, r->fbuf, r->fcap, r->cbuf,
	    f->comp_len);
	if (ZSTD_isError(n) || n != f->raw_len) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: content damaged (run ofl-gc "
		    "--check)", r->meta.id);
		r->cur = -1;
		return -1;
	}
	r->cur = k;
	return 0;
}

/* Read frame k, compressed, into r->cbuf. */
static int
reader_fetch(struct ofl_reader *r, ssize_t k)
{
	struct frame	*f = &r->frames[k];
	size_t		 got = 0;
	ssize_t		 rd;

	if (r->ccap < f->comp_len) {
		r->cbuf = ofl_xrealloc(r->cbuf, f->comp_len);
		r->ccap = f->comp_len;
	}
	while (got < f->comp_len) {
		rd = pread(r->fd, r->cbuf + got, f->comp_len - got,
		    (off_t)(f->comp_off + got));
		if (rd == -1 && errno == EINTR)
			continue;
		if (rd <= 0) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: content truncated or "
			    "unreadable (run ofl-gc --check)", r->meta.id);
			return -1;
		}
		got += (size_t)rd;
	}
	return 0;
}

/* The frame holding byte offset off, or nframes at the end. */
static ssize_t
frame_at(struct ofl_reader *r, uint64_t off)
{
	size_t	lo = 0, hi = r->nframes, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (r->frames[mid].raw_off + r->frames[mid].raw_len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo;
}

int
ofl_reader_seek(struct ofl_reader *r, uint64_t off)
{
	if (off > r->bytes) {
		ofl_seterr(OFL_EXIT_NOMATCH, "byte %llu is beyond the end "
		    "(%llu bytes)", (unsigned long long)off,
		    (unsigned long long)r->bytes);
		return -1;
	}
	r->pos = off;
	return 0;
}

ssize_t
ofl_reader_read(struct ofl_reader *r, void *buf, size_t n)
{
	ssize_t		 k;
	struct frame	*f;
	size_t		 in, take;

	if (r->pos >= r->bytes || n == 0)
		return 0;
	k = frame_at(r, r->pos);
	if ((size_t)k >= r->nframes)
		return 0;
	if (reader_load(r, k) == -1)
		return -1;
	f = &r->frames[k];
	in = (size_t)(r->pos - f->raw_off);
	take = (size_t)f->raw_len - in;
	if (take > n)
		take = n;
	memcpy(buf, r->fbuf + in, take);
	r->pos += take;
	return (ssize_t)take;
}

ssize_t
ofl_reader_read_full(struct ofl_reader *r, void *buf, size_t n)
{
	unsigned char	*p = buf;
	size_t		 got = 0;
	ssize_t		 k;

	while (got < n) {
		if ((k = ofl_reader_read(r, p + got, n - got)) == -1)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

int64_t
ofl_reader_seek_line(struct ofl_reader *r, uint64_t line)
{
	uint64_t		 target, skip;
	size_t			 lo, hi, mid;
	const unsigned char	*p, *end;
	struct frame		*f;

	if (line <= 1) {
		r->pos = 0;
		return 0;
	}
	target = line - 1;	/* newlines before the line */
	if (target > r->newlines || (target == r->newlines &&
	    r->bytes > 0 && ofl_reader_lines(r) == r->newlines)) {
		ofl_seterr(OFL_EXIT_NOMATCH, "line %llu is beyond the end "
		    "(%llu lines)", (unsigned long long)line,
		    (unsigned long long)ofl_reader_lines(r));
		return -1;
	}
	/* The frame holding newline number target (1-based). */
	lo = 0;
	hi = r->nframes;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (r->frames[mid].line_off + r->frames[mid].nl < target)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= r->nframes)
		return -1;
	if (reader_load(r, (ssize_t)lo) == -1)
		return -1;
	f = &r->frames[lo];
	skip = target - f->line_off;
	p = r->fbuf;
	end = r->fbuf + f->raw_len;
	while (skip > 0) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (p == NULL) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: frame table does not "
			    "match content", r->meta.id);
			return -1;
		}
		p++;
		skip--;
	}
	r->pos = f->raw_off + (uint64_t)(p - r->fbuf);
	return (int64_t)r->pos;
}

int64_t
ofl_reader_line_of(struct ofl_reader *r, uint64_t off)
{
	ssize_t			 k;
	struct frame		*f;
	const unsigned char	*p, *end;
	uint64_t		 n;

	if (r->nframes == 0)
		return 1;
	if (off >= r->bytes)
		off = r->bytes > 0 ? r->bytes - 1 : 0;
	k = frame_at(r, off);
	if (reader_load(r, k) == -1)
		return -1;
	f = &r->frames[k];
	n = f->line_off;
	p = r->fbuf;
	end = r->fbuf + (off - f->raw_off);
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return (int64_t)n + 1;
}

static uint64_t
src_bytes(void *r)
{
	return ofl_reader_bytes(r);
}

static uint64_t
src_lines(void *r)
{
	return ofl_reader_lines(r);
}

static int
src_seek(void *r, uint64_t off)
{
	return ofl_reader_seek(r, off);
}

static int64_t
src_seek_line(void *r, uint64_t line)
{
	return ofl_reader_seek_line(r, line);
}

static ssize_t
src_read(void *r, void *buf, size_t n)
{
	return ofl_reader_read(r, buf, n);
}

static uint64_t
src_tell(void *r)
{
	return ofl_reader_tell(r);
}

static int64_t
src_line_of(void *r, uint64_t off)
{
	return ofl_reader_line_of(r, off);
}

void
ofl_reader_src(struct ofl_reader *r, struct ofl_src *s)
{
	s->arg = r;
	s->bytes = src_bytes;
	s->lines = src_lines;
	s->seek = src_seek;
	s->seek_line = src_seek_line;
	s->read = src_read;
	s->tell = src_tell;
	s->line_of = src_line_of;
}
