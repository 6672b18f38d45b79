/*
 * store-gc.c: what expiry and checking need of the store, handed over
 * as structs: the artifacts a gc may remove with their size, age, pin
 * and session; the removal of one artifact, step by step, so that gc.c
 * can drop its index rows inside the same transaction; pins; the
 * figures of the budget; compaction; and the checks and repairs of
 * ofl-gc --check.  gc.c decides what goes and when; these carry it out,
 * and are the only place where that is said in SQL.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

/* What a PostgreSQL store cannot do yet (store-pg.c): the repairs. */
#define GC_PG	"repairing the store (--repair)"

int
ofl_store_gc_fail(struct ofl_store *st, const char *what)
{
	/* The engine's calls said what failed. */
	STORE_PG(st, -1);
	ofl_seterr(OFL_EXIT_FAIL, "store %s: %s: %s", st->path, what,
	    sqlite3_errmsg(st->db));
	return -1;
}

/* Run a statement whose one parameter is a row id; -1 if it fails. */
static int
exec_id(sqlite3 *db, const char *sql, int64_t id)
{
	sqlite3_stmt	*stmt;
	int		 rc;

	if (store_stmt(db, sql, &stmt) == -1)
		return -1;
	sqlite3_bind_int64(stmt, 1, id);
	rc = sqlite3_step(stmt);
	store_stmt_done(stmt);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Run a statement whose one parameter is an artifact ID. */
static int
exec_text(sqlite3 *db, const char *sql, const char *id)
{
	sqlite3_stmt	*stmt;
	int		 rc;

	if (store_stmt(db, sql, &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(stmt);
	store_stmt_done(stmt);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Pins: artifacts neither expiry nor the budget removes. */
int
ofl_store_gc_init(struct ofl_store *st)
{
	STORE_PG(st, 0);		/* a column of the artifact */
	return sqlite3_exec(st->db, "CREATE TABLE IF NOT EXISTS gc_pin ("
	    " id TEXT PRIMARY KEY) WITHOUT ROWID", NULL, NULL, NULL) ==
	    SQLITE_OK ? 0 : -1;
}

int
ofl_store_gc_pin(struct ofl_store *st, const char *id, int pin)
{
	STORE_PG(st, store_pg_gc_pin(st, id, pin));
	if (ofl_store_gc_init(st) == -1)
		return ofl_store_gc_fail(st, "pin");
	if (exec_text(st->db, pin ? "INSERT OR IGNORE INTO gc_pin (id)"
	    " SELECT id FROM artifact WHERE id = ?1" : "DELETE FROM gc_pin"
	    " WHERE id = ?1", id) == -1)
		return ofl_store_gc_fail(st, "pin");
	return 0;
}

/* Planning. */

int
ofl_store_gc_candidates(struct ofl_store *st, int64_t before,
    struct ofl_store_gc_cand **out, size_t *nout)
{
	sqlite3_stmt			*stmt;
	struct ofl_store_gc_cand	*c, *list = NULL;
	size_t				 n = 0;
	int				 rc;

	STORE_PG(st, store_pg_gc_candidates(st, before, out, nout));
	*out = NULL;
	*nout = 0;
	if (store_prepare(st, "SELECT a.id, a.blob, a.created, a.expires,"
	    " b.stored, coalesce(x.bytes, 0), EXISTS (SELECT 1 FROM gc_pin g"
	    " WHERE g.id = a.id), a.label, a.session"
	    " FROM artifact a JOIN blob b ON b.id = a.blob LEFT JOIN ix_blob x"
	    " ON x.blob = a.blob WHERE a.state = 1 AND a.created < ?1"
	    " ORDER BY a.used, a.seq", &stmt) == -1)
		return ofl_store_gc_fail(st, "gc");
	sqlite3_bind_int64(stmt, 1, before);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		list = ofl_xrealloc(list, (n + 1) * sizeof *list);
		c = &list[n++];
		memset(c, 0, sizeof *c);
		snprintf(c->id, sizeof c->id, "%s",
		    (const char *)sqlite3_column_text(stmt, 0));
		c->blob = sqlite3_column_int64(stmt, 1);
		c->created = sqlite3_column_int64(stmt, 2);
		c->has_expires = sqlite3_column_type(stmt, 3) != SQLITE_NULL;
		c->expires = sqlite3_column_int64(stmt, 3);
		c->stored = (uint64_t)sqlite3_column_int64(stmt, 4);
		c->ixbytes = (uint64_t)sqlite3_column_int64(stmt, 5);
		c->pinned = sqlite3_column_int(stmt, 6);
		c->label = store_col_strdup(stmt, 7);
		c->session = store_col_strdup(stmt, 8);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		ofl_store_gc_cands_free(list, n);
		return ofl_store_gc_fail(st, "gc");
	}
	*out = list;
	*nout = n;
	return 0;
}

void
ofl_store_gc_cands_free(struct ofl_store_gc_cand *list, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(list[i].label);
		free(list[i].session);
	}
	free(list);
}

int
ofl_store_gc_brefs(struct ofl_store *st, struct ofl_store_gc_bref **out,
    size_t *nout)
{
	sqlite3_stmt		*stmt;
	struct ofl_store_gc_bref	*list = NULL;
	size_t			 n = 0;
	int			 rc;

	STORE_PG(st, store_pg_gc_brefs(st, out, nout));
	*out = NULL;
	*nout = 0;
	/* Every artifact, those being written too. */
	if (store_prepare(st, "SELECT blob, count(*) FROM artifact GROUP BY"
	    " blob ORDER BY blob", &stmt) == -1)
		return ofl_store_gc_fail(st, "gc");
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		list = ofl_xrealloc(list, (n + 1) * sizeof *list);
		list[n].blob = sqlite3_column_int64(stmt, 0);
		list[n++].refs = sqlite3_column_int(stmt, 1);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		free(list);
		return ofl_store_gc_fail(st, "gc");
	}
	*out = list;
	*nout = n;
	return 0;
}

uint64_t
ofl_store_gc_index_bytes(struct ofl_store *st)
{
	uint64_t	n, b;

	STORE_PG(st, store_pg_gc_index_bytes(st));
	n = ix_gen_index_bytes(st->db);
	/* Buried rows' pages, as the store's size leaves them out. */
	b = ofl_store_fts_buried_bytes(st);
	return n > b ? n - b : 0;
}

uint64_t
ofl_store_gc_count(struct ofl_store *st)
{
	STORE_PG(st, store_pg_gc_count(st));
	return (uint64_t)store_query_int(st->db,
	    "SELECT count(*) FROM artifact", 0);
}

/* One at a time. */

int
ofl_store_gc_lock(struct ofl_store *st, int wait)
{
	int	fd;

	if (st->pg == NULL && st->gclock != -1)
		return 1;
	/* On PostgreSQL, "gc" and the role: the same on every machine. */
	if ((fd = ofl_store_lock(st, st->pg != NULL ? "gc" : "gc.lock",
	    wait)) < 0)
		return fd == -2 ? 0 : -1;
	if (st->pg == NULL)
		st->gclock = fd;
	return 1;
}

int
ofl_store_lock(struct ofl_store *st, const char *name, int wait)
{
	struct ofl_buf	 b;
	int		 fd;

	STORE_PG(st, store_pg_lock(st, name, wait));
	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s/%s", st->path, name);
	fd = open(ofl_buf_str(&b), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd == -1 || flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) == -1) {
		if (fd != -1 && errno == EWOULDBLOCK) {
			close(fd);
			ofl_buf_free(&b);
			return -2;
		}
		ofl_seterr(OFL_EXIT_FAIL, "%s: %s", ofl_buf_str(&b),
		    strerror(errno));
		if (fd != -1)
			close(fd);
		ofl_buf_free(&b);
		return -1;
	}
	ofl_buf_free(&b);
	return fd;
}

void
ofl_store_unlock(struct ofl_store *st, const char *name, int fd)
{
	STORE_PG_VOID(st, store_pg_unlock(st, name));
	(void)name;
	if (fd >= 0)
		close(fd);
}

/*
 * A stamp is a time the store keeps by name: the time of a file of the
 * store directory (the lock of the same name, which nothing else
 * touches), or a row of the role's settings on PostgreSQL, which every
 * machine sees.
 */
int
ofl_store_stamp(struct ofl_store *st, const char *name, int64_t secs)
{
	struct ofl_buf	 path;
	struct stat	 sb;
	int		 fd, recent = 0;

	STORE_PG(st, store_pg_stamp(st, name, secs));
	ofl_buf_init(&path);
	ofl_buf_addf(&path, "%s/%s.lock", st->path, name);
	if (stat(ofl_buf_str(&path), &sb) == 0 &&
	    (int64_t)sb.st_mtime * 1000 > ofl_now_ms() - secs * 1000)
		recent = 1;
	else if ((fd = open(ofl_buf_str(&path),
	    O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) != -1) {
		futimens(fd, NULL);
		close(fd);
	}
	ofl_buf_free(&path);
	return recent;
}

/* Removing. */

int
ofl_store_gc_row(struct ofl_store *st, const char *id,
    struct ofl_store_gc_row *row)
{
	sqlite3_stmt	*stmt;

	STORE_PG(st, store_pg_gc_row(st, id, row));
	memset(row, 0, sizeof *row);
	row->blob = -1;
	row->state = -1;
	if (store_stmt(st->db, "SELECT a.blob, a.state, a.created,"
	    " b.file, b.stored FROM artifact a JOIN blob b ON b.id = a.blob"
	    " WHERE a.id = ?1", &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		row->blob = sqlite3_column_int64(stmt, 0);
		row->state = sqlite3_column_int(stmt, 1);
		row->created = sqlite3_column_int64(stmt, 2);
		row->file = store_col_strdup(stmt, 3);
		row->stored = (uint64_t)sqlite3_column_int64(stmt, 4);
	}
	store_stmt_done(stmt);
	return 0;
}

int
ofl_store_gc_delete(struct ofl_store *st, const char *id, int64_t blob,
    int *refs)
{
	sqlite3_stmt	*stmt;
	int		 rc;

	STORE_PG(st, store_pg_gc_delete(st, id, blob, refs));
	*refs = 0;
	if (exec_text(st->db, "DELETE FROM artifact WHERE id = ?1", id) == -1)
		return -1;
	/* No pin table, no pin. */
	if (store_stmt(st->db, "DELETE FROM gc_pin WHERE id = ?1",
	    &stmt) == 0) {
		sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
		rc = sqlite3_step(stmt);
		store_stmt_done(stmt);
		if (rc != SQLITE_DONE)
			return -1;
	}
	if (store_stmt(st->db, "SELECT count(*) FROM artifact WHERE"
	    " blob = ?1", &stmt) == -1)
		return -1;
	sqlite3_bind_int64(stmt, 1, blob);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		*refs = sqlite3_column_int(stmt, 0);
	store_stmt_done(stmt);
	return 0;
}

int
ofl_store_gc_drop_blob(struct ofl_store *st, int64_t blob)
{
	STORE_PG(st, store_pg_gc_drop_blob(st, blob));
	if (exec_id(st->db, "DELETE FROM frame WHERE blob = ?1", blob) == -1 ||
	    store_sketch_drop(st->db, blob) == -1 ||
	    exec_id(st->db, "DELETE FROM log_tmpl WHERE blob = ?1",
	    blob) == -1 ||
	    exec_id(st->db, "DELETE FROM blob WHERE id = ?1", blob) == -1)
		return -1;
	return 0;
}

/*
 * Only a name ofl makes is unlinked: a damaged or forged row ("../../x")
 * must not reach outside blobs/; such a file is left for --check to
 * report.  -1 when the file could not be removed.
 */
int
ofl_store_gc_unlink(struct ofl_store *st, const char *file)
{
	char	*path;
	int	 rv = 0;

	STORE_PG(st, ((void)file, 0));	/* content is rows there */
	if (!ofl_blob_name_valid(file))
		return 0;
	path = store_blob_path(st, file);
	if (unlink(path) == -1 && errno != ENOENT) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: blobs/%s: %s (removed from "
		    "the store; ofl-gc --repair deletes the file)", st->path,
		    file, strerror(errno));
		rv = -1;
	}
	free(path);
	return rv;
}

/* Whether blob file is there and empty (a writer's that never committed). */
int
ofl_store_gc_file_empty(struct ofl_store *st, const char *file)
{
	struct stat	 sb;
	char		*path;
	int		 empty;

	STORE_PG(st, ((void)file, 0));
	if (!ofl_blob_name_valid(file))
		return 0;
	path = store_blob_path(st, file);
	empty = lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    sb.st_size == 0;
	free(path);
	return empty;
}

/* Compacting. */

int
ofl_store_gc_fts_merge(struct ofl_store *st)
{
	int64_t	gen;
	char	name[32], sql[128];
	int	before;

	STORE_PG(st, 0);		/* no index on this engine */
	before = sqlite3_total_changes(st->db);
	/* The open generation's: the others take no more rows. */
	if ((gen = store_query_int(st->db, "SELECT max(gen) FROM ix_gen WHERE"
	    " open = 1", -1)) < 0)
		return 0;
	ix_gen_name(gen, name, sizeof name);
	/* A negative count merges at every level. */
	snprintf(sql, sizeof sql, "INSERT INTO %s(%s, rank) VALUES ('merge',"
	    " -256)", name, name);
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return 0;
	/*
	 * FTS5 writes a row or so even when there was nothing to merge:
	 * fewer than two changes means it is done (its documentation's
	 * test).  Taken for work, that kept every gc merging to its time
	 * limit.
	 */
	return sqlite3_total_changes(st->db) - before >= 2;
}

int
ofl_store_gc_vacuum_step(struct ofl_store *st)
{
	STORE_PG(st, 0);		/* the server's autovacuum */
	return store_vacuum_step(st);
}

void
ofl_store_gc_checkpoint(struct ofl_store *st)
{
	const char	*sch[2];
	char		 sql[64];
	int		 i, n;

	STORE_PG_VOID(st, (void)0);	/* no WAL of ours */
	n = store_ix_schemas(st, sch);
	for (i = 0; i < n; i++) {
		snprintf(sql, sizeof sql, "PRAGMA %s.wal_checkpoint(TRUNCATE)",
		    sch[i]);
		sqlite3_exec(st->db, sql, NULL, NULL, NULL);
	}
}

/* Checking. */

int
ofl_store_gc_integrity(struct ofl_store *st,
    void (*cb)(const char *, void *), void *arg)
{
	sqlite3_stmt	*stmt;
	const char	*s;
	int		 rc;

	STORE_PG(st, 0);		/* the server's to keep sound */
	/* ofl.db's; the index's own file is ofl_store_ix_sound()'s. */
	if (sqlite3_prepare_v2(st->db, "PRAGMA main.integrity_check", -1, &stmt,
	    NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "%s", sqlite3_errmsg(st->db));
		return -1;
	}
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		s = (const char *)sqlite3_column_text(stmt, 0);
		if (s != NULL && strcmp(s, "ok") != 0)
			cb(s, arg);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		ofl_seterr(OFL_EXIT_FAIL, "%s", sqlite3_errmsg(st->db));
		return -1;
	}
	return 0;
}

int
ofl_store_gc_rowless(struct ofl_store *st, int repair,
    void (*cb)(const char *, void *), void *arg)
{
	sqlite3_stmt	*stmt;

	STORE_PG(st, 0);		/* foreign keys there */
	if (sqlite3_prepare_v2(st->db, "SELECT a.id FROM artifact a LEFT JOIN"
	    " blob b ON b.id = a.blob WHERE b.id IS NULL", -1, &stmt,
	    NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(stmt) == SQLITE_ROW)
		cb((const char *)sqlite3_column_text(stmt, 0), arg);
	sqlite3_finalize(stmt);
	if (repair)
		sqlite3_exec(st->db, "DELETE FROM artifact WHERE blob NOT IN"
		    " (SELECT id FROM blob)", NULL, NULL, NULL);
	return 0;
}

int
ofl_store_gc_unused(struct ofl_store *st, struct ofl_store_gc_blob **out,
    size_t *nout)
{
	sqlite3_stmt		*stmt;
	struct ofl_store_gc_blob	*list = NULL;
	size_t			 n = 0;

	STORE_PG(st, store_pg_gc_unused(st, out, nout));
	*out = NULL;
	*nout = 0;
	if (sqlite3_prepare_v2(st->db, "SELECT b.id, b.file FROM blob b WHERE"
	    " NOT EXISTS (SELECT 1 FROM artifact a WHERE a.blob = b.id)", -1,
	    &stmt, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		list = ofl_xrealloc(list, (n + 1) * sizeof *list);
		list[n].id = sqlite3_column_int64(stmt, 0);
		list[n++].file = store_col_strdup(stmt, 1);
	}
	sqlite3_finalize(stmt);
	*out = list;
	*nout = n;
	return 0;
}

void
ofl_store_gc_blobs_free(struct ofl_store_gc_blob *list, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(list[i].file);
	free(list);
}

int
ofl_store_gc_blob_row_drop(struct ofl_store *st, int64_t blob)
{
	STORE_PG(st, store_pg_unsupported(st, GC_PG));
	if (exec_id(st->db, "DELETE FROM log_tmpl WHERE blob = ?1",
	    blob) == -1)
		return -1;
	return exec_id(st->db, "DELETE FROM blob WHERE id = ?1", blob);
}

int64_t
ofl_store_gc_stray_frames(struct ofl_store *st, int repair)
{
	int64_t	n;

	STORE_PG(st, 0);		/* foreign keys there */
	if ((n = store_query_int(st->db, "SELECT count(*) FROM frame WHERE"
	    " blob NOT IN (SELECT id FROM blob)", -1)) == -1)
		return -1;
	if (repair) {
		sqlite3_exec(st->db, "DELETE FROM frame WHERE blob NOT IN"
		    " (SELECT id FROM blob)", NULL, NULL, NULL);
		(void)store_sketch_sweep(st->db);
	}
	return n;
}

int
ofl_store_gc_contents(struct ofl_store *st,
    struct ofl_store_gc_content **out, size_t *nout)
{
	sqlite3_stmt			*stmt;
	struct ofl_store_gc_content	*list = NULL;
	size_t				 n = 0;

	STORE_PG(st, store_pg_gc_contents(st, out, nout));
	*out = NULL;
	*nout = 0;
	/* One artifact of each blob: the first stored on it. */
	if (sqlite3_prepare_v2(st->db, "SELECT a.id, b.hash, a.state FROM"
	    " artifact a JOIN blob b ON b.id = a.blob WHERE a.seq IN (SELECT"
	    " min(seq) FROM artifact GROUP BY blob)", -1, &stmt,
	    NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		list = ofl_xrealloc(list, (n + 1) * sizeof *list);
		snprintf(list[n].id, sizeof list[n].id, "%s",
		    (const char *)sqlite3_column_text(stmt, 0));
		list[n].hash = store_col_strdup(stmt, 1);
		list[n++].state = sqlite3_column_int(stmt, 2);
	}
	sqlite3_finalize(stmt);
	*out = list;
	*nout = n;
	return 0;
}

void
ofl_store_gc_contents_free(struct ofl_store_gc_content *list, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(list[i].hash);
	free(list);
}

int
ofl_store_gc_content_gone(struct ofl_store *st, const char *id,
    int64_t *blob)
{
	sqlite3_stmt	*stmt;
	struct stat	 sb;
	const char	*file;
	char		*path;
	int		 gone = 0;

	STORE_PG(st, store_pg_unsupported(st, GC_PG));
	*blob = -1;
	if (sqlite3_prepare_v2(st->db, "SELECT b.id, b.file FROM artifact a"
	    " JOIN blob b ON b.id = a.blob WHERE a.id = ?1", -1, &stmt,
	    NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		file = (const char *)sqlite3_column_text(stmt, 1);
		*blob = sqlite3_column_int64(stmt, 0);
		if (!ofl_blob_name_valid(file))
			gone = 1;
		else {
			path = store_blob_path(st, file);
			gone = stat(path, &sb) == -1 && errno == ENOENT;
			free(path);
		}
	}
	sqlite3_finalize(stmt);
	return gone;
}

int
ofl_store_gc_remove_blob(struct ofl_store *st, int64_t blob)
{
	STORE_PG(st, store_pg_unsupported(st, GC_PG));
	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL,
	    NULL) != SQLITE_OK)
		return 0;
	(void)exec_id(st->db, "DELETE FROM artifact WHERE blob = ?1", blob);
	(void)ofl_store_gc_drop_blob(st, blob);
	return sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
}

/* Hash, lines and last byte of what a reader reads, to its end. */
static int
read_back(struct ofl_reader *r, char hash[OFL_HASH_HEX], uint64_t *lines,
    int *last)
{
	struct ofl_hash	 h;
	char		 buf[65536];
	ssize_t		 k, i;

	ofl_hash_init(&h);
	while ((k = ofl_reader_read(r, buf, sizeof buf)) > 0) {
		ofl_hash_update(&h, buf, (size_t)k);
		for (i = 0; i < k; i++)
			if (buf[i] == '\n')
				(*lines)++;
		*last = (unsigned char)buf[k - 1];
	}
	if (k == -1)
		return -1;
	ofl_hash_final_hex(&h, hash);
	return 0;
}

int
ofl_store_gc_truncate(struct ofl_store *st, const char *id, int64_t blob,
    uint64_t good)
{
	sqlite3			*db = st->db;
	sqlite3_stmt		*stmt = NULL;
	struct ofl_reader	*r;
	char			 hash[OFL_HASH_HEX];
	uint64_t		 lines = 0, stored;
	int			 last = -1, rc = -1;

	STORE_PG(st, store_pg_unsupported(st, GC_PG));
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	/* Rows past the good part, and rows whose offset is no offset. */
	if (sqlite3_prepare_v2(db, "DELETE FROM frame WHERE blob = ?1 AND"
	    " (raw_off >= ?2 OR raw_off < 0 OR typeof(raw_off) !="
	    " 'integer')", -1, &stmt, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(stmt, 1, blob);
	sqlite3_bind_int64(stmt, 2, (int64_t)good);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(stmt);
	stmt = NULL;
	/* Templates mined from the whole content no longer hold. */
	if (exec_id(db, "DELETE FROM log_tmpl WHERE blob = ?1", blob) == -1)
		goto out;
	/* Nor do the sketches of frames gone; the kept ones' do. */
	if (store_sketch_sweep(db) == -1)
		goto out;
	/* What is left, read back through the frames kept. */
	if ((r = ofl_reader_open(st, id)) == NULL)
		goto out;
	if (read_back(r, hash, &lines, &last) == -1) {
		ofl_reader_close(r);
		goto out;
	}
	ofl_reader_close(r);
	if (good > 0 && last != '\n')
		lines++;
	if (sqlite3_prepare_v2(db, "SELECT coalesce(sum(comp_len), 0) FROM"
	    " frame WHERE blob = ?1", -1, &stmt, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(stmt, 1, blob);
	stored = sqlite3_step(stmt) == SQLITE_ROW ?
	    (uint64_t)sqlite3_column_int64(stmt, 0) : 0;
	sqlite3_finalize(stmt);
	/* The hash may now be another blob's: then no hash, no sharing. */
	if (sqlite3_prepare_v2(db, "UPDATE blob SET hash = CASE WHEN EXISTS"
	    " (SELECT 1 FROM blob o WHERE o.hash = ?1 AND o.id != ?5) THEN NULL"
	    " ELSE ?1 END, bytes = ?2, lines = ?3, stored = ?4 WHERE id = ?5",
	    -1, &stmt, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(stmt, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, (int64_t)good);
	sqlite3_bind_int64(stmt, 3, (int64_t)lines);
	sqlite3_bind_int64(stmt, 4, (int64_t)stored);
	sqlite3_bind_int64(stmt, 5, blob);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(stmt);
	if (sqlite3_prepare_v2(db, "UPDATE artifact SET incomplete = 1,"
	    " bytes = ?1, lines = ?2 WHERE blob = ?3", -1, &stmt,
	    NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(stmt, 1, (int64_t)good);
	sqlite3_bind_int64(stmt, 2, (int64_t)lines);
	sqlite3_bind_int64(stmt, 3, blob);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(stmt);
	stmt = NULL;
	rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
out:
	sqlite3_finalize(stmt);
	if (rc == -1)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* In one transaction, so one snapshot. */
int
ofl_store_gc_index_check(struct ofl_store *st,
    struct ofl_store_gc_ixcheck *c)
{
	sqlite3_stmt	*stmt;
	struct ix_gen	*g = NULL;
	size_t		 ng = 0, i;
	int64_t		 n;
	int		 ret = -1;

	STORE_PG(st, store_pg_gc_index_check(st, c));
	memset(c, 0, sizeof *c);
	if (sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(st->db, "SELECT"
	    " (SELECT count(*) FROM ix_blob x WHERE NOT EXISTS (SELECT 1 FROM"
	    " artifact a WHERE a.blob = x.blob)),"
	    " (SELECT count(*) FROM ix_chunk c WHERE NOT EXISTS (SELECT 1 FROM"
	    " ix_blob x WHERE x.blob = c.id >> 24)),"
	    " (SELECT count(*) FROM ix_chunk c JOIN blob b ON b.id = c.id >> 24"
	    " WHERE c.member IS NULL AND c.byte_end > b.bytes)", -1, &stmt,
	    NULL) != SQLITE_OK) {
		ix_err(st->db, "index check");
		goto out;
	}
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		c->blobs = sqlite3_column_int64(stmt, 0);
		c->chunks = sqlite3_column_int64(stmt, 1);
		c->past_end = sqlite3_column_int64(stmt, 2);
	}
	sqlite3_finalize(stmt);
	/*
	 * Artifacts below the mark whose content is not indexed and that
	 * are not holes (store-fts-chunk.c): an earlier version that does
	 * not keep the mark dropped their rows.  No mark: none.
	 */
	c->unmarked = store_query_int(st->db, "SELECT count(*) FROM artifact a"
	    " JOIN ix_mark m ON m.tokver = " IX_TOKVER_SQL " AND a.seq <= m.seq"
	    " LEFT JOIN ix_blob b ON b.blob = a.blob WHERE a.state = 1 AND"
	    UNSETTLED_SQL("m.tokver") " AND NOT EXISTS (SELECT 1 FROM ix_hole h"
	    " WHERE h.seq = a.seq)", 0);
	/* Rows of no chunk, buried ones left out, in every generation. */
	if (ix_gen_list(st->db, 0, &g, &ng) == -1)
		goto out;
	for (i = 0; i < ng; i++) {
		if ((n = ix_gen_rows(st->db, g[i].gen, 1)) == -1)
			goto out;
		c->fts += n;
	}
	ret = 0;
out:
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	free(g);
	return ret;
}

int
ofl_store_gc_index_unmark(struct ofl_store *st)
{
	STORE_PG(st, 0);	/* no mark there */
	if (sqlite3_exec(st->db, "UPDATE ix_mark SET seq = 0", NULL, NULL,
	    NULL) != SQLITE_OK)
		return ix_err(st->db, "index state");
	return 0;
}

/*
 * Index rows of no artifact, up to max of them, buried in one
 * transaction (store-gen.c): what a gc killed between its two files'
 * commits left (store-ixdb.c).  The count, or -1.
 */
int64_t
ofl_store_gc_index_sweep(struct ofl_store *st, size_t max)
{
	static const char *const strays = "SELECT x.blob FROM ix_blob x"
	    " WHERE NOT EXISTS (SELECT 1 FROM artifact a WHERE a.blob ="
	    " x.blob) LIMIT ?1";
	sqlite3		*db = st->db;
	sqlite3_stmt	*s;
	int64_t		*blobs = NULL, n = 0, i;
	int		 rc;

	STORE_PG(st, 0);	/* one database: removals take their rows */
	/* Mostly there are none: no write lock to find that out. */
	if (store_stmt(db, strays, &s) == -1)
		return ofl_store_gc_fail(st, "index sweep");
	sqlite3_bind_int64(s, 1, 1);
	rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc == SQLITE_DONE)
		return 0;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return ofl_store_gc_fail(st, "index sweep");
	if (store_stmt(db, strays, &s) == -1)
		goto fail;
	sqlite3_bind_int64(s, 1, (int64_t)max);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		blobs = ofl_xrealloc(blobs, (size_t)(n + 1) * sizeof *blobs);
		blobs[n++] = sqlite3_column_int64(s, 0);
	}
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		goto fail;
	for (i = 0; i < n; i++)
		if (ofl_store_fts_forget(st, blobs[i]) == -1)
			goto fail;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	free(blobs);
	return n;
fail:
	ofl_store_gc_fail(st, "index sweep");
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(blobs);
	return -1;
}

int
ofl_store_gc_index_clear(struct ofl_store *st)
{
	sqlite3		*db = st->db;
	struct ix_gen	*g = NULL;
	size_t		 ng = 0, i;

	STORE_PG(st, store_pg_unsupported(st, GC_PG));
	/* An index of an earlier layout is brought up to date first. */
	if (ofl_store_fts_init(st) == -1 ||
	    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	if (ix_gen_list(db, 0, &g, &ng) == -1)
		goto fail;
	for (i = 0; i < ng; i++)
		if (ix_gen_drop(db, g[i].gen) == -1)
			goto fail;
	if (sqlite3_exec(db, "DELETE FROM ix_chunk; DELETE FROM ix_blob;"
	    " DELETE FROM ix_hole; UPDATE ix_mark SET seq = 0", NULL, NULL,
	    NULL) != SQLITE_OK || ix_gen_setup(db) == -1 ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	free(g);
	return 0;
fail:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(g);
	return -1;
}

/* 1 if a blob row names file. */
static int
file_known(sqlite3 *db, const char *name)
{
	sqlite3_stmt	*s;
	int		 known = 1;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM blob WHERE file = ?1", -1,
	    &s, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	known = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return known;
}

/*
 * A file that a writer holds (locked) or that is brand new may be a blob
 * whose row is not committed yet.
 */
static int
busy_file(const char *dir, const char *name)
{
	struct ofl_buf	f;
	struct stat	sb;
	int		fd, busy = 1;

	ofl_buf_init(&f);
	ofl_buf_addf(&f, "%s/%s", dir, name);
	if ((fd = open(ofl_buf_str(&f), O_RDONLY | O_CLOEXEC)) != -1) {
		if (fstat(fd, &sb) == 0 &&
		    sb.st_mtime < (time_t)(ofl_now_ms() / 1000) - 60 &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0)
			busy = 0;
		close(fd);
	}
	ofl_buf_free(&f);
	return busy;
}

/* The orphans in one directory under blobs/, added to *list. */
static void
orphans_in(struct ofl_store *st, const char *dir, int idle,
    void (*odd)(const char *, void *), void *arg, char ***list,
    size_t *nlist)
{
	struct ofl_buf	 sub;
	DIR		*sd;
	struct dirent	*se;
	char		 name[600];

	ofl_buf_init(&sub);
	ofl_buf_addf(&sub, "%s/%s", st->blobdir, dir);
	if ((sd = opendir(ofl_buf_str(&sub))) == NULL) {
		ofl_buf_free(&sub);
		return;
	}
	while ((se = readdir(sd)) != NULL) {
		if (se->d_name[0] == '.')
			continue;
		snprintf(name, sizeof name, "%s/%s", dir, se->d_name);
		if (file_known(st->db, name) || (idle &&
		    busy_file(ofl_buf_str(&sub), se->d_name)))
			continue;
		if (!ofl_blob_name_valid(name)) {
			if (odd != NULL)
				odd(name, arg);
			continue;
		}
		*list = ofl_xrealloc(*list, (*nlist + 2) * sizeof **list);
		(*list)[(*nlist)++] = ofl_xstrdup(name);
		(*list)[*nlist] = NULL;
	}
	closedir(sd);
	ofl_buf_free(&sub);
}

char **
ofl_store_gc_orphans(struct ofl_store *st, int idle,
    void (*odd)(const char *, void *), void *arg)
{
	DIR		*d;
	struct dirent	*de;
	char		**list = NULL;
	size_t		 nlist = 0;

	STORE_PG(st, NULL);	/* no files */
	if ((d = opendir(st->blobdir)) == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		orphans_in(st, de->d_name, idle, odd, arg, &list, &nlist);
	}
	closedir(d);
	return list;
}

void
ofl_store_gc_orphans_free(char **list)
{
	size_t	i;

	for (i = 0; list != NULL && list[i] != NULL; i++)
		free(list[i]);
	free(list);
}

int
ofl_store_gc_relink(struct ofl_store *st, const char *id, int64_t blob,
    const char *file, const char *want)
{
	sqlite3_stmt		*stmt;
	struct ofl_reader	*r;
	struct ofl_hash		 h;
	char			 got[OFL_HASH_HEX], buf[65536];
	ssize_t			 k;
	int			 ok = 0;

	STORE_PG(st, store_pg_unsupported(st, GC_PG));
	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL,
	    NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(st->db, "UPDATE blob SET file = ?1 WHERE"
	    " id = ?2", -1, &stmt, NULL) == SQLITE_OK) {
		sqlite3_bind_text(stmt, 1, file, -1, SQLITE_STATIC);
		sqlite3_bind_int64(stmt, 2, blob);
		ok = sqlite3_step(stmt) == SQLITE_DONE;
		sqlite3_finalize(stmt);
	}
	if (ok && (r = ofl_reader_open(st, id)) != NULL) {
		ofl_hash_init_like(&h, want);
		while ((k = ofl_reader_read(r, buf, sizeof buf)) > 0)
			ofl_hash_update(&h, buf, (size_t)k);
		ofl_reader_close(r);
		ofl_hash_final_hex(&h, got);
		ok = k == 0 && strcmp(got, want) == 0;
	} else
		ok = 0;
	if (ok && sqlite3_exec(st->db, "COMMIT", NULL, NULL,
	    NULL) == SQLITE_OK)
		return 1;
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return 0;
}

int
ofl_store_gc_names_artifact(struct ofl_store *st, const char *name)
{
	sqlite3_stmt	*s;
	int		 yes = 0;

	STORE_PG(st, store_pg_unsupported(st, GC_PG));
	if (strlen(name) < 4)
		return 0;
	if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM artifact WHERE"
	    " id = ?1", -1, &s, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_text(s, 1, name + 3, -1, SQLITE_STATIC);
	yes = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

/* Usage accounting, for ofl-gc --stats. */

int
ofl_store_gc_stats(struct ofl_store *st, int by, struct ofl_store_stat **out,
    size_t *nout)
{
	sqlite3_stmt		*stmt;
	struct ofl_store_stat	*list = NULL, *s;
	const char		*k;
	size_t			 n = 0;
	int			 rc;

	STORE_PG(st, store_pg_gc_stats(st, by, out, nout));
	*out = NULL;
	*nout = 0;
	/* One statement for each grouping: no SQL is built. */
	rc = sqlite3_prepare_v2(st->db, by == OFL_STATS_DAY ?
	    "SELECT date(a.created / 1000, 'unixepoch') AS k, count(*),"
	    " sum(a.bytes), sum(b.stored), sum(CASE WHEN a.printed IS NULL"
	    " THEN 0 WHEN a.bytes > a.printed THEN a.bytes - a.printed ELSE 0"
	    " END) FROM artifact a JOIN blob b ON b.id = a.blob"
	    " GROUP BY k ORDER BY k" :
	    "SELECT coalesce(a.label, '-') AS k, count(*),"
	    " sum(a.bytes), sum(b.stored), sum(CASE WHEN a.printed IS NULL"
	    " THEN 0 WHEN a.bytes > a.printed THEN a.bytes - a.printed ELSE 0"
	    " END) FROM artifact a JOIN blob b ON b.id = a.blob"
	    " GROUP BY k ORDER BY k", -1, &stmt, NULL);
	if (rc != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "%s", sqlite3_errmsg(st->db));
		return -1;
	}
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		list = ofl_xrealloc(list, (n + 1) * sizeof *list);
		s = &list[n++];
		k = (const char *)sqlite3_column_text(stmt, 0);
		s->group = ofl_xstrdup(k != NULL ? k : "-");
		s->artifacts = (uint64_t)sqlite3_column_int64(stmt, 1);
		s->raw = (uint64_t)sqlite3_column_int64(stmt, 2);
		s->stored = (uint64_t)sqlite3_column_int64(stmt, 3);
		s->kept_out = (uint64_t)sqlite3_column_int64(stmt, 4);
	}
	sqlite3_finalize(stmt);
	*out = list;
	*nout = n;
	return 0;
}

void
ofl_store_gc_stats_free(struct ofl_store_stat *list, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(list[i].group);
	free(list);
}
