/*
 * store-ixdb.c: the full-text index's own database file.
 *
 * SQLite reads a database's whole schema before its first statement, and
 * the index has one FTS5 table (five schema rows with its shadow tables)
 * per generation: at 100,000 artifacts that was most of the work of a
 * listing.  So the index lives in a file of its own, ofl-ix.db beside
 * ofl.db, attached as "ix" only by what searches, indexes or collects
 * garbage.  Capture, listing and metadata never read its schema.
 *
 * The index's tables keep their names (ix_blob, ix_chunk, ix_gen,
 * ix_dead, ix_fts...): SQLite finds an unqualified name in main first,
 * then in ix, so every statement of store-fts.c, store-gen.c and
 * store-gc.c reads either layout; only what creates a table names its
 * schema (ix_sch()).  A store whose index was made in ofl.db (before this
 * file) keeps it there: ix is not attached, and ix_sch() says "main".
 *
 * Each index write is one transaction in one file (ix_blob, its chunks
 * and its FTS rows commit together); what spans both files (a gc that
 * deletes an artifact in ofl.db and buries its index rows in ofl-ix.db)
 * may commit one half if killed between, which leaves rows of no content
 * (swept by the next gc, ignored by searches, as blob numbers are
 * never used twice) or content not indexed (indexed again).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

#define IX_FILE		"ofl-ix.db"
#define IX_WHAT		"index database"	/* what its errors say */

static int	ix_in_main(sqlite3 *);
static void	ix_path(struct ofl_buf *, struct ofl_store *, const char *);
static int	ix_file_exists(struct ofl_store *);
static int	ix_scratch(sqlite3 *);
static int	freelist(sqlite3 *, const char *);
static int	vacuum_step(sqlite3 *, const char *);

/* An index made in ofl.db: 1, or 0, or -1. */
static int
ix_in_main(sqlite3 *db)
{
	sqlite3_stmt	*s;
	int		 rc;

	if (ix_prep(db, "SELECT 1 FROM main.sqlite_master WHERE type ="
	    " 'table' AND name = 'ix_blob'", &s) == -1)
		return -1;
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ix_err(db, IX_WHAT);
	return rc == SQLITE_ROW;
}

/* The path of the index's file, or of its file with suffix sfx. */
static void
ix_path(struct ofl_buf *b, struct ofl_store *st, const char *sfx)
{
	ofl_buf_reset(b);
	ofl_buf_addf(b, "%s/%s%s", st->path, IX_FILE, sfx);
}

/* 1 if the store has an index file, attached or not. */
static int
ix_file_exists(struct ofl_store *st)
{
	struct ofl_buf	b;
	struct stat	sb;
	int		rv;

	ofl_buf_init(&b);
	ix_path(&b, st, "");
	rv = lstat(ofl_buf_str(&b), &sb) == 0;
	ofl_buf_free(&b);
	return rv;
}

const char *
ix_sch(sqlite3 *db)
{
	return sqlite3_db_filename(db, "ix") != NULL ? "ix" : "main";
}

/*
 * Attach the index's file (made, private, when create says so and it is
 * missing).  1: the index's tables can be reached (attached, or in
 * ofl.db); 0: there is no index file; -1: an error, said.
 */
int
store_ix_attach(struct ofl_store *st, int create)
{
	sqlite3		*db = st->db;
	sqlite3_stmt	*s;
	struct ofl_buf	 b;
	struct stat	 sb;
	int		 fd, rc;

	if (st->ix != 0)
		return st->ix;
	if ((rc = ix_in_main(db)) != 0)
		return (st->ix = rc);
	ofl_buf_init(&b);
	ix_path(&b, st, "");
	if (lstat(ofl_buf_str(&b), &sb) == -1) {
		if (errno != ENOENT || !create) {
			ofl_buf_free(&b);
			return 0;
		}
		/* The store's umask (077) makes it private. */
		fd = open(ofl_buf_str(&b), O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd == -1 && errno != EEXIST) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: %s", ofl_buf_str(&b),
			    strerror(errno));
			ofl_buf_free(&b);
			return -1;
		}
		if (fd != -1)
			close(fd);
	}
	if (ix_prep(db, "ATTACH ?1 AS ix", &s) == -1) {
		ofl_buf_free(&b);
		return -1;
	}
	sqlite3_bind_text(s, 1, ofl_buf_str(&b), -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	ofl_buf_free(&b);
	if (rc != SQLITE_DONE)
		return ix_err(db, "cannot attach the index database");
	/* As ofl.db's (store.c): the WAL kept, checkpoints automatic. */
	{
		int	one = 1;

		sqlite3_file_control(db, "ix", SQLITE_FCNTL_PERSIST_WAL, &one);
	}
	/*
	 * Freed pages are not written again, zeroed, as SQLite built with
	 * SECURE_DELETE (Debian's) does: FTS5's merges free pages all the
	 * time, and zeroing them cost indexing a fifth of its time, for no
	 * secrecy (a removed artifact's rows stay, buried, until their
	 * generation goes: store-gen.c).
	 */
	if (ix_exec(db, "PRAGMA ix.secure_delete = OFF", IX_WHAT) == -1 ||
	    ix_exec(db, "PRAGMA ix.synchronous = NORMAL", IX_WHAT) == -1 ||
	    ix_exec(db, "PRAGMA ix.journal_size_limit = 4194304",
	    IX_WHAT) == -1)
		return -1;
	/* A new file: before its first table, as these must be. */
	if (ix_prep(db, "PRAGMA ix.page_count", &s) == -1)
		return -1;
	rc = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
	sqlite3_finalize(s);
	if (rc == 0 && (ix_exec(db, "PRAGMA ix.auto_vacuum = INCREMENTAL",
	    IX_WHAT) == -1 || ix_exec(db, "PRAGMA ix.journal_mode = WAL",
	    IX_WHAT) == -1))
		return -1;
	return (st->ix = 1);
}

/*
 * A store that has no index yet (no file of its own, none in ofl.db) gets
 * an empty one in memory, attached as ix, for what only reads or removes
 * (gc and its check): their statements run on it as on any index, and no
 * file is made, for which a full disk, the very thing a budget gc is run
 * against, has no room.  An indexer that makes the file meanwhile may
 * index content this gc removes: rows of no content, as a gc killed
 * between its two files' commits leaves, swept by the next gc.  1 if
 * attached, 0 if the store has an index (or is a database elsewhere), -1
 * on an error, said.
 */
int
ofl_store_ix_scratch(struct ofl_store *st)
{
	int	rc;

	STORE_PG(st, 0);
	if (st->ix != 0 || ix_file_exists(st))
		return 0;
	if ((rc = ix_in_main(st->db)) != 0)
		return rc == 1 ? 0 : -1;
	if (ix_exec(st->db, "ATTACH ':memory:' AS ix", IX_WHAT) == -1)
		return -1;
	/*
	 * ix_sch() tells ix by its name: a NULL one (SQLite may give it
	 * for a database in memory) would put the index's tables in
	 * ofl.db.
	 */
	if (sqlite3_db_filename(st->db, "ix") == NULL) {
		(void)ix_exec(st->db, "DETACH ix", IX_WHAT);
		ofl_seterr(OFL_EXIT_FAIL, "%s: cannot be held in memory",
		    IX_WHAT);
		return -1;
	}
	st->ix = 1;
	return 1;
}

/* 1 if the index attached is the empty one of ofl_store_ix_scratch(). */
static int
ix_scratch(sqlite3 *db)
{
	const char	*f = sqlite3_db_filename(db, "ix");

	return f != NULL && *f == '\0';
}

/* Make the tables of defs ("name (columns)") in the index's schema. */
int
ix_ddl(sqlite3 *db, const char *const *defs)
{
	struct ofl_buf	b;
	int		rv = 0;

	ofl_buf_init(&b);
	for (; rv == 0 && *defs != NULL; defs++) {
		ofl_buf_reset(&b);
		ofl_buf_addf(&b, "CREATE TABLE IF NOT EXISTS %s.%s", ix_sch(db),
		    *defs);
		rv = ix_exec(db, ofl_buf_str(&b), IX_WHAT);
	}
	ofl_buf_free(&b);
	return rv;
}

/* The attached index file's pages in use, in bytes. */
uint64_t
ix_file_bytes(sqlite3 *db)
{
	static const char *const q[] = { "PRAGMA ix.page_count",
	    "PRAGMA ix.freelist_count", "PRAGMA ix.page_size" };
	sqlite3_stmt	*s;
	int64_t		 v[3] = { 0, 0, 0 };
	size_t		 i;

	if (ix_scratch(db))
		return 0;
	for (i = 0; i < 3; i++) {
		if (sqlite3_prepare_v2(db, q[i], -1, &s, NULL) != SQLITE_OK)
			return 0;
		if (sqlite3_step(s) == SQLITE_ROW)
			v[i] = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	return v[0] > v[1] ? (uint64_t)(v[0] - v[1]) * (uint64_t)v[2] : 0;
}

/* 1 if the index is a file of its own, attached (when it is there). */
int
store_ix_own(struct ofl_store *st)
{
	return store_ix_attach(st, 0) == 1 && strcmp(ix_sch(st->db), "ix") ==
	    0 && !ix_scratch(st->db);
}

/* The schemas to keep: main, and ix when the index is a file of its own. */
int
store_ix_schemas(struct ofl_store *st, const char **sch)
{
	sch[0] = "main";
	sch[1] = "ix";
	return store_ix_own(st) ? 2 : 1;
}

/* The free pages of schema sch, or -1. */
static int
freelist(sqlite3 *db, const char *sch)
{
	char	sql[64];

	snprintf(sql, sizeof sql, "PRAGMA %s.freelist_count", sch);
	return (int)store_query_int(db, sql, -1);
}

/* Give 256 free pages of schema sch back: 1 if some came back, else 0. */
static int
vacuum_step(sqlite3 *db, const char *sch)
{
	char	sql[64];
	int	before, after;

	if ((before = freelist(db, sch)) <= 0)
		return 0;
	snprintf(sql, sizeof sql, "PRAGMA %s.incremental_vacuum(256)", sch);
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK &&
	    (after = freelist(db, sch)) >= 0 && after < before;
}

/*
 * Give free pages back, 256 of each database: 1 if some came back, 0
 * when none did (none left, or a store made without auto_vacuum).
 */
int
store_vacuum_step(struct ofl_store *st)
{
	const char	*sch[2];
	int		 i, n, rv = 0;

	n = store_ix_schemas(st, sch);
	for (i = 0; i < n; i++)
		if (vacuum_step(st->db, sch[i]))
			rv = 1;
	return rv;
}

/* Best effort (index.c keeps its caller's error): the rest is gc's. */
void
ofl_store_fts_give_back(struct ofl_store *st, int64_t max_ms)
{
	int64_t	end = ofl_now_ms() + max_ms;

	STORE_PG_VOID(st, (void)0);	/* the server's autovacuum */
	/* An index in ofl.db (an older store's) is left to gc. */
	if (store_ix_own(st))
		while (vacuum_step(st->db, "ix") && ofl_now_ms() < end)
			;
}

/*
 * The index's own file: sound (1), or not (0, with the first problem
 * said).  No file, or an index in ofl.db, is sound here.
 */
int
ofl_store_ix_sound(struct ofl_store *st)
{
	sqlite3_stmt	*s;
	const char	*line;
	int		 rc, ok = 1;

	STORE_PG(st, 1);		/* the server's to keep sound */
	if ((rc = store_ix_attach(st, 0)) <= 0)
		return rc == 0;
	if (strcmp(ix_sch(st->db), "ix") != 0) {
		/* An earlier version indexed into ofl.db after this file. */
		if (ix_file_exists(st)) {
			ofl_seterr(OFL_EXIT_FAIL, "%s not in use: the index is "
			    "in ofl.db (ofl-index --rebuild moves it)",
			    IX_FILE);
			return 0;
		}
		return 1;
	}
	if (ix_prep(st->db, "PRAGMA ix.integrity_check", &s) == -1)
		return 0;
	while (ok && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		line = (const char *)sqlite3_column_text(s, 0);
		if (line != NULL && strcmp(line, "ok") != 0) {
			ofl_seterr(OFL_EXIT_FAIL, "%s", line);
			ok = 0;
		}
	}
	if (ok && rc != SQLITE_DONE) {
		ix_err(st->db, IX_WHAT);
		ok = 0;
	}
	sqlite3_finalize(s);
	return ok;
}

/*
 * Remove the index's own file: what it holds, content gives again, and
 * the next search or ofl-index makes it anew.  Outside a transaction.
 */
int
ofl_store_ix_reset(struct ofl_store *st)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	struct ofl_buf	 b;
	size_t		 i;
	int		 rv = 0;

	STORE_PG(st, 0);
	if (sqlite3_db_filename(st->db, "ix") != NULL) {
		store_stmt_forget(st->db);
		if (ix_exec(st->db, "DETACH ix", IX_WHAT) == -1)
			return -1;
	}
	st->ix = 0;
	ofl_buf_init(&b);
	for (i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		ix_path(&b, st, sfx[i]);
		if (unlink(ofl_buf_str(&b)) == -1 && errno != ENOENT) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: %s", ofl_buf_str(&b),
			    strerror(errno));
			rv = -1;
		}
	}
	ofl_buf_free(&b);
	return rv;
}

/*
 * Drop the whole index, to make it again (ofl-index --rebuild): the
 * index's file goes; an index made in ofl.db by an earlier version has
 * its tables dropped there and its pages given back, so that what is
 * indexed next goes into a file of its own.  The caller holds the
 * index's lock and has registered the tokenizer (ofl_store_fts_init()).
 */
int
ofl_store_ix_drop_all(struct ofl_store *st)
{
	static const char *const tab[] = { "ix_blob", "ix_chunk", "ix_gen",
	    "ix_dead", "ix_mark", "ix_hole" };
	sqlite3		*db = st->db;
	sqlite3_stmt	*s;
	struct ofl_buf	 b;
	size_t		 i;
	int		 rc;

	STORE_PG(st, store_pg_ix_forget_all(st));
	if ((rc = store_ix_attach(st, 0)) <= 0)
		return rc == 0 ? 0 : ofl_store_ix_reset(st);
	if (strcmp(ix_sch(db), "ix") == 0)
		return ofl_store_ix_reset(st);
	store_stmt_forget(db);
	if (ix_exec(db, "BEGIN IMMEDIATE", IX_WHAT) == -1)
		return -1;
	ofl_buf_init(&b);
	/* The generations' FTS5 tables, with their shadow tables. */
	if (ix_prep(db, "SELECT name FROM main.sqlite_master WHERE type ="
	    " 'table' AND name GLOB 'ix_fts*' AND sql LIKE 'CREATE VIRTUAL"
	    " TABLE%'", &s) == -1)
		goto fail;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		ofl_buf_addf(&b, "DROP TABLE main.\"%s\";",
		    (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		ix_err(db, IX_WHAT);
		goto fail;
	}
	for (i = 0; i < sizeof tab / sizeof tab[0]; i++)
		ofl_buf_addf(&b, "DROP TABLE IF EXISTS main.%s;", tab[i]);
	if (ix_exec(db, ofl_buf_str(&b), IX_WHAT) == -1 ||
	    ix_exec(db, "COMMIT", IX_WHAT) == -1)
		goto fail;
	ofl_buf_free(&b);
	st->ix = 0;
	/*
	 * Its pages back to the file system, gc's step at a time: each its
	 * own transaction, so that the WAL is checkpointed between them
	 * and does not grow by the size of the index.
	 */
	while (store_vacuum_step(st))
		;
	return 0;
fail:
	ofl_buf_free(&b);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}
