/*
 * store.c: the artifact store: opening it, its schema, settings and
 * size, the checks on its files, and transactions.
 *
 * Layout of a store directory (0700, files 0600):
 *
 *	ofl.db		SQLite (WAL): artifacts, blobs, frames, indexes
 *	ofl-ix.db	SQLite (WAL): the full-text index (store-ixdb.c)
 *	blobs/XX/ID	content of one blob: independent zstd frames
 *	init.lock	taken while a new store gets its schema
 *	reserve		room kept free for gc on a full disk
 *
 * Content is kept as a blob, shared by every artifact with the same
 * XXH3-128 hash (BLAKE2b-256 in older stores).  A blob file is a
 * sequence of zstd frames, each the compression of up to FRAME_MAX bytes
 * (ending at a line's end when one is near); the frame table in the
 * database gives each frame's raw and compressed offsets and the number
 * of newlines before it, so any byte or line is found by decompressing
 * one frame.  Until a large blob is indexed, its frames' sketches
 * (store-sketch.c) tell a search which frames cannot hold a word.
 *
 * Crash safety: a writer creates and locks (flock) its blob file before
 * it inserts the artifact row in state "writing"; a frame row is
 * inserted only after the frame's bytes are written.  So the frames in
 * the database are always readable.  A writer that dies leaves its file
 * unlocked: the next read-write open finds it, keeps the committed frames
 * and marks the artifact complete but incomplete (its input was cut).
 *
 * The writer (and blob numbers) is in store-write.c, metadata and the
 * reader in store-read.c, what gc needs in store-gc.c; store-int.h
 * holds what they share.  These files are the only ones that speak SQL.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

#define RESERVE_BYTES	(16 * 1024 * 1024) /* kept free for gc, at most */
#define SCHEMA_VERSION	2
/* zstd levels (store-write.c says when each is used); OFL_LEVEL fixes one. */
#define LEVEL		1
#define LEVEL_FAST	(-2)
#define DEFAULT_TTL	"7d"
#define DEFAULT_MAXSIZE	"1G"
#define DEFAULT_GRACE	"5m"

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

/*
 * Schema 2: the templates of a log (store-tmpl.c), by content like the
 * index.  Row 0 of a blob says it was mined: count holds its lines.
 * Rows go at the end of the table as they come, so that its pages fill;
 * keyed by blob (WITHOUT ROWID, as schema 2 first made it), the rows
 * of a log captured beside a longer one went between others and split
 * the pages half empty (tmpl_table()).
 */
static const char *schema2_sql =
	"CREATE TABLE IF NOT EXISTS log_tmpl ("
	" blob INTEGER NOT NULL,"
	" rank INTEGER NOT NULL,"
	" tid TEXT NOT NULL,"
	" count INTEGER NOT NULL,"
	" first_line INTEGER NOT NULL,"
	" last_line INTEGER NOT NULL,"
	" level TEXT,"
	" template BLOB);"
	"CREATE UNIQUE INDEX IF NOT EXISTS log_tmpl_key ON log_tmpl"
	" (blob, rank);";

static int	 check_owner(const char *, int, int);
static void	 store_missing(const char *, const char *);
static int	 check_files(struct ofl_store *);
static int	 mkdir_p(const char *);
static int	 schema_init(struct ofl_store *);
static int	 tmpl_table(struct ofl_store *);
#ifdef HAVE_LIBPQ
static struct ofl_store *store_open_pg(struct ofl_store *);
#endif

/*
 * Transactions, for the store's callers that change several tables: a
 * write transaction of either engine, or a step of the batch gc holds
 * open (ofl_store_batch_begin()): there, beginning and committing do
 * nothing, and a rollback spoils the whole batch, which its holder then
 * rolls back and does again step by step.
 */
int
ofl_store_begin(struct ofl_store *st)
{
	if (st->batch) {
		if (st->batch_failed) {
			ofl_seterr(OFL_EXIT_FAIL, "store %s: batch rolled back",
			    ofl_store_name(st));
			return -1;
		}
		return 0;
	}
	STORE_PG(st, store_pg_begin(st));
	return store_exec(st, "BEGIN IMMEDIATE");
}

int
ofl_store_commit(struct ofl_store *st)
{
	if (st->batch)
		return ofl_store_begin(st);
	STORE_PG(st, store_pg_commit(st));
	return store_exec(st, "COMMIT");
}

void
ofl_store_rollback(struct ofl_store *st)
{
	if (st->batch) {
		st->batch_failed = 1;
		return;
	}
	STORE_PG_VOID(st, store_pg_rollback(st));
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

/* A batch is one transaction of either engine, begun outside a batch. */
int
ofl_store_batch_begin(struct ofl_store *st)
{
	if (st->batch || ofl_store_begin(st) == -1)
		return -1;
	st->batch = 1;
	st->batch_failed = 0;
	return 0;
}

int
ofl_store_batch_end(struct ofl_store *st, int commit)
{
	int	failed = st->batch_failed || !commit;

	if (!st->batch)
		return -1;
	st->batch = st->batch_failed = 0;
	if (!failed && ofl_store_commit(st) == 0)
		return 0;
	ofl_store_rollback(st);
	return -1;
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
				    "ofl-ix.db", "ofl-ix.db-wal", "ofl-ix.db-shm",
				    "init.lock", "gc.lock", "index.lock",
				    "index.wait", "reserve", NULL };
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

	/* A database elsewhere: no room to keep on this machine. */
	STORE_PG(st, 0);
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
	if (store_prepare(st, "PRAGMA user_version", &stmt) == -1)
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
		return st->rdwr ? tmpl_table(st) : 0;
	if (version > SCHEMA_VERSION) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: made by a newer ofl "
		    "(schema %d)", st->path, version);
		return -1;
	}
	if (!st->rdwr) {
		/* An older store is read as it is: no templates cached. */
		if (version >= 1)
			return 0;
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
	if (version == 0 &&
	    (store_exec(st, "PRAGMA auto_vacuum = INCREMENTAL") == -1 ||
	    store_exec(st, "PRAGMA journal_mode = WAL") == -1))
		goto out;
	if (store_exec(st, "BEGIN IMMEDIATE") == -1)
		goto out;
	if ((version == 0 && store_exec(st, schema_sql) == -1) ||
	    store_exec(st, schema2_sql) == -1 ||
	    store_exec(st, "PRAGMA user_version = 2") == -1 ||
	    store_exec(st, "COMMIT") == -1) {
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
 * The template cache of a store made by an older ofl (keyed by blob,
 * WITHOUT ROWID) made again as schema2_sql makes it: older ofl read and
 * write both.  The templates cached are dropped, to be mined again when
 * asked for.  A help, so nothing fails for it: a store busy or read
 * only keeps its table until a later open.
 */
static int
tmpl_table(struct ofl_store *st)
{
	static const char	*old = "SELECT count(*) FROM sqlite_master"
				    " WHERE name = 'log_tmpl' AND sql LIKE"
				    " '%WITHOUT ROWID%'";
	int			 begun, done;

	if (store_query_int(st->db, old, 0) != 1)
		return 0;
	/* Not worth a wait: the next open will do. */
	sqlite3_busy_timeout(st->db, 100);
	begun = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) ==
	    SQLITE_OK;
	sqlite3_busy_timeout(st->db, BUSY_MS);
	if (!begun)
		return 0;
	/* Another writer may have done it while we waited (-1: an error). */
	switch (store_query_int(st->db, old, -1)) {
	case 0:
		done = 1;
		break;
	case 1:
		done = sqlite3_exec(st->db, "DROP TABLE log_tmpl", NULL, NULL,
		    NULL) == SQLITE_OK && sqlite3_exec(st->db, schema2_sql,
		    NULL, NULL, NULL) == SQLITE_OK;
		break;
	default:
		done = 0;
	}
	if (!done || sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) !=
	    SQLITE_OK)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return 0;
}

/*
 * A store is a directory named by an absolute path, or a PostgreSQL
 * database named by a postgresql:// or postgres:// URL when that engine
 * is built.  Another URL is refused rather than taken for a relative
 * directory, and so is a relative path: OFL_STORE is read in whatever
 * directory a command runs, and would name a new store in each.
 */
#ifdef HAVE_LIBPQ
#define STORE_PG_NONE	" or a postgresql:// URL"
#else
#define STORE_PG_NONE	""
#endif
static int
store_path_valid(const char *path, const char *what)
{
	const char	*p = path;

#ifdef HAVE_LIBPQ
	if (store_pg_url(path))
		return 0;
#endif
	if (*p >= 'a' && *p <= 'z') {
		while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '+' || *p == '.' || *p == '-')
			p++;
		if (strncmp(p, "://", 3) == 0) {
			ofl_seterr(OFL_EXIT_USAGE, "%s%s: %.*s:// stores are "
			    "not supported (a store is a directory%s)", what,
			    path, (int)(p - path), path, STORE_PG_NONE);
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

int
ofl_store_remote(const char *where)
{
#ifdef HAVE_LIBPQ
	return store_pg_url(where);
#else
	(void)where;
	return 0;
#endif
}

/*
 * Why file, of the store at path, cannot be found (errno from its
 * lstat()): not there, or not to be looked at ("Permission denied").
 */
static void
store_missing(const char *path, const char *file)
{
	if (errno == ENOENT)
		ofl_seterr(OFL_EXIT_FAIL, "no store at %s (nothing captured "
		    "yet)", path);
	else
		ofl_seterr(OFL_EXIT_FAIL, "store %s: %s", file,
		    strerror(errno));
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
	st->gclock = -1;
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
#ifdef HAVE_LIBPQ
	if (store_pg_url(st->path))
		return store_open_pg(st);
#endif
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
		store_missing(st->path, st->path);
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
	} else if (!create || errno != ENOENT) {
		store_missing(st->path, dbpath);
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
			store_fail(st, "cannot open database");
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
	/*
	 * Temporary tables in memory: a search's scope and the rows it
	 * ranks again on their text (store-fts-pos.c) are small, and a
	 * file for them costs a write a page.
	 */
	if (store_exec(st, "PRAGMA synchronous = NORMAL") == -1 ||
	    store_exec(st, "PRAGMA temp_store = MEMORY") == -1 ||
	    store_exec(st, "PRAGMA journal_size_limit = 4194304") == -1 ||
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
		writer_recover(st);
		store_count_init(st);
		(void)ofl_store_reserve(st, 1);
	}
	free(dbpath);
	return st;
fail:
	free(dbpath);
	ofl_store_close(st);
	return NULL;
}

#ifdef HAVE_LIBPQ
/* The PostgreSQL engine (store-pg.c); st's path is its URL. */
static struct ofl_store *
store_open_pg(struct ofl_store *st)
{
	char	*v;

	/*
	 * The tokenizer of the full-text index is SQLite's (FTS5's
	 * unicode61 and porter, in store-fts.c): a PostgreSQL store keeps
	 * an in-memory SQLite connection that hosts it, and nothing else.
	 */
	if (sqlite3_open_v2(":memory:", &st->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    store_pg_open(st) == -1) {
		if (st->pg == NULL)
			ofl_seterr(OFL_EXIT_FAIL, "out of memory");
		ofl_store_close(st);
		return NULL;
	}
	v = ofl_setting_get(st, "redact");
	ofl_redact_store_default(v == NULL || strcmp(v, "off") != 0);
	free(v);
	if (st->rdwr)
		store_pg_recover(st);
	return st;
}
#endif

void
ofl_store_close(struct ofl_store *st)
{
	if (st == NULL)
		return;
#ifdef HAVE_LIBPQ
	store_pg_close(st);
#endif
	sqlite3_finalize(st->meta);
	if (st->db != NULL) {
		store_stmt_forget(st->db);
		sqlite3_close_v2(st->db);
	}
	if (st->gclock != -1)
		close(st->gclock);
	ZSTD_freeDCtx(st->dctx);
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

const char *
ofl_store_name(struct ofl_store *st)
{
	STORE_PG(st, store_pg_shown(st));
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

	STORE_PG(st, store_pg_blob(st, id));
	if (store_prepare(st, "SELECT blob FROM artifact WHERE id = ?1",
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

/* Settings. */

static const struct {
	const char	*key;
	const char	*def;
	const char	*help;
} settings[] = {
	{ "ttl", DEFAULT_TTL, "default time to live of an artifact" },
	{ "max-size", DEFAULT_MAXSIZE, "size budget of the store" },
	{ "grace", DEFAULT_GRACE, "the budget never takes an artifact "
	    "younger" },
	{ "auto-gc", "on", "captures start a gc when the store is over "
	    "budget" },
	{ "redact", "on", "mask secrets in what ofl prints" },
	{ "scrub", "off", "mask secrets before they are stored" },
	{ NULL, NULL, NULL }
};

int
ofl_setting_valid(const char *key, const char *value)
{
	int64_t		ms;
	uint64_t	sz;
	int		i;

	for (i = 0; settings[i].key != NULL; i++)
		if (strcmp(settings[i].key, key) == 0)
			break;
	if (settings[i].key == NULL) {
		ofl_seterr(OFL_EXIT_USAGE, "%s: unknown setting (ttl, max-size,"
		    " grace, auto-gc, redact, scrub)", key);
		return -1;
	}
	if (strcmp(key, "grace") == 0)
		return ofl_parse_duration(value, &ms);
	if (strcmp(key, "ttl") == 0)
		return strcmp(value, "never") == 0 ? 0 :
		    ofl_parse_duration(value, &ms);
	if (strcmp(key, "max-size") == 0)
		return strcmp(value, "none") == 0 ? 0 :
		    ofl_parse_size(value, &sz);
	if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
		ofl_seterr(OFL_EXIT_USAGE, "%s: use on or off", key);
		return -1;
	}
	return 0;
}

/* A setting's default, or NULL for an unknown key. */
static const char *
setting_default(const char *key)
{
	int	i;

	for (i = 0; settings[i].key != NULL; i++)
		if (strcmp(settings[i].key, key) == 0)
			return settings[i].def;
	return NULL;
}

char *
ofl_setting_get(struct ofl_store *st, const char *key)
{
	sqlite3_stmt	*stmt;
	const char	*def;
	char		*v = NULL;

	STORE_PG(st, store_pg_setting_get(st, key, setting_default(key)));
	if (sqlite3_prepare_v2(st->db, "SELECT value FROM setting"
	    " WHERE key = ?1", -1, &stmt, NULL) == SQLITE_OK) {
		sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
		if (sqlite3_step(stmt) == SQLITE_ROW &&
		    sqlite3_column_text(stmt, 0) != NULL)
			v = ofl_xstrdup((const char *)
			    sqlite3_column_text(stmt, 0));
		sqlite3_finalize(stmt);
	}
	if (v != NULL)
		return v;
	def = setting_default(key);
	return def != NULL ? ofl_xstrdup(def) : NULL;
}

static int
setting_fail(struct ofl_store *st)
{
	ofl_seterr(OFL_EXIT_FAIL, "store %s: setting: %s", st->path,
	    sqlite3_errmsg(st->db));
	return -1;
}

int
ofl_setting_set(struct ofl_store *st, const char *key, const char *value)
{
	sqlite3_stmt	*stmt;
	int		 rc;

	if (ofl_setting_valid(key, value) == -1)
		return -1;
	STORE_PG(st, store_pg_setting_set(st, key, value));
	if (sqlite3_prepare_v2(st->db, "INSERT INTO setting (key,"
	    " value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET"
	    " value = excluded.value", -1, &stmt, NULL) != SQLITE_OK)
		return setting_fail(st);
	sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return setting_fail(st);
	return 0;
}

void
ofl_setting_list(struct ofl_store *st, struct ofl_buf *out)
{
	char	*v;
	int	 i;

	for (i = 0; settings[i].key != NULL; i++) {
		v = ofl_setting_get(st, settings[i].key);
		ofl_buf_addf(out, "%s\t%s\t%s\n", settings[i].key, v,
		    settings[i].help);
		free(v);
	}
}

/*
 * The store's size: stored content plus the databases' pages in use (the
 * WALs are left out: they are transient, and kept at a bounded size),
 * less the index's pages of removed content (store-gen.c).
 */
uint64_t
ofl_store_size(struct ofl_store *st)
{
	sqlite3		*db = st->db;
	sqlite3_stmt	*stmt;
	uint64_t	 n = 0, b;

	STORE_PG(st, store_pg_size(st));
	/* The bytes stored as the triggers keep them, or added up. */
	if (sqlite3_prepare_v2(db, "SELECT (SELECT n FROM blob_stored) +"
	    " (SELECT page_count FROM pragma_page_count()) * (SELECT page_size"
	    " FROM pragma_page_size()) - (SELECT freelist_count FROM"
	    " pragma_freelist_count()) * (SELECT page_size FROM"
	    " pragma_page_size())", -1, &stmt, NULL) == SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT (SELECT coalesce(sum(stored), 0)"
	    " FROM blob) + (SELECT page_count FROM pragma_page_count()) *"
	    " (SELECT page_size FROM pragma_page_size()) - (SELECT"
	    " freelist_count FROM pragma_freelist_count()) * (SELECT page_size"
	    " FROM pragma_page_size())", -1, &stmt, NULL) == SQLITE_OK) {
		if (sqlite3_step(stmt) == SQLITE_ROW)
			n = (uint64_t)sqlite3_column_int64(stmt, 0);
		sqlite3_finalize(stmt);
	}
	/* The index's own file, when it has one (store-ixdb.c). */
	if (store_ix_own(st))
		n += ix_file_bytes(db);
	/* Index pages of removed content come back when gc compacts. */
	b = ofl_store_fts_buried_bytes(st);
	return n > b ? n - b : 0;
}
