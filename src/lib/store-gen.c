/*
 * store-gen.c: the generations of the full-text index.
 *
 * The index is not one FTS5 table but a few, one per generation: the
 * content indexed while a generation was open, up to about OFL_INDEX_GEN
 * bytes of it (64 MiB unless the environment says otherwise).  Then it
 * closes and the next one opens.  Generation 0 is the table ix_fts (as
 * in stores made before there were generations), generation N ix_ftsN.
 *
 *	ix_gen		one row per generation: open or not, the bytes of
 *			content indexed into it and how many of them were
 *			removed since
 *	ix_dead		the blobs removed from a generation whose rows are
 *			still in its table (tombstones), with how many rows
 *			each left there
 *
 * A removed blob's rows are not deleted from FTS5, which needs every
 * token of the content again to do it: the blob is buried (a tombstone,
 * its chunk and blob rows deleted) and searches leave its rows out.  A
 * generation whose every blob is gone is dropped whole, and one that
 * keeps less than half a generation of live content is compacted: gc
 * indexes its live blobs anew into the open generation, after which it
 * is dropped.  So removing many artifacts costs a few row deletes each,
 * and the space comes back a table at a time.
 *
 * Blob numbers are never used twice, so a tombstone can only hide the
 * rows of the blob it was written for; a blob indexed anew (a new
 * tokenizer, ofl-index --force) after being buried in the open
 * generation goes into a new one.
 */
#include "config.h"

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

#define GEN_BYTES	(64ULL * 1024 * 1024)
#define GEN_WHAT	"index generations"	/* what its errors say */

static int64_t	 gen_int(sqlite3 *, const char *, int64_t, int64_t);
static const char *gen_detail(void);
static int	 gen_create(sqlite3 *, int64_t);
static int	 gen_sized(sqlite3 *, const char *);
static int64_t	 gen_total(sqlite3 *, const char *);
static int	 gen_blobs(sqlite3 *, int64_t, int64_t **, size_t *, size_t);
static uint64_t	 gen_pages(sqlite3 *, int64_t);
static int	 gen_measure(sqlite3 *, int64_t);

static const char *const gen_schema[] = {
	"ix_gen ("
	" gen INTEGER PRIMARY KEY,"
	" open INTEGER NOT NULL,"		/* takes new content */
	" bytes INTEGER NOT NULL DEFAULT 0,"	/* content indexed into it */
	" dead INTEGER NOT NULL DEFAULT 0,"	/* of which removed */
	" pages INTEGER NOT NULL DEFAULT 0)",	/* its table's, once closed */
	"ix_dead ("
	" gen INTEGER NOT NULL,"
	" blob INTEGER NOT NULL,"
	" rows INTEGER,"			/* its rows in gen's table */
	" PRIMARY KEY (gen, blob)) WITHOUT ROWID",
	NULL
};

/* The integer sql (with ?1 bound to a) answers, def if none, or -2. */
static int64_t
gen_int(sqlite3 *db, const char *sql, int64_t a, int64_t def)
{
	sqlite3_stmt	*s;
	int64_t		 v = def;
	int		 rc;

	if (store_stmt(db, sql, &s) == -1) {
		ix_err(db, "database");
		return -2;
	}
	sqlite3_bind_int64(s, 1, a);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW &&
	    sqlite3_column_type(s, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(s, 0);
	store_stmt_done(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		ix_err(db, GEN_WHAT);
		return -2;
	}
	return v;
}

uint64_t
ix_gen_limit(void)
{
	uint64_t	 n;

	if (ofl_env_size("OFL_INDEX_GEN", &n) == 1 && n > 0)
		return n;
	return GEN_BYTES;
}

void
ix_gen_name(int64_t gen, char *buf, size_t size)
{
	if (gen == 0)
		snprintf(buf, size, "ix_fts");
	else
		snprintf(buf, size, "ix_fts%lld", (long long)gen);
}

/*
 * The generations' tables, in a write transaction: made on a new index,
 * added to an index made before generations, where ix_fts (and every
 * blob in it) becomes generation 0.
 */
int
ix_gen_setup(sqlite3 *db)
{
	char	sql[128];
	int64_t	n;

	if (ix_ddl(db, gen_schema) == -1)
		return -1;
	if ((n = gen_int(db, "SELECT count(*) FROM pragma_table_info('ix_blob')"
	    " WHERE name = 'gen'", 0, 0)) < 0)
		return -1;
	if (n == 0 && ix_exec(db, "ALTER TABLE ix_blob ADD COLUMN"
	    " gen INTEGER NOT NULL DEFAULT 0", GEN_WHAT) == -1)
		return -1;
	if ((n = gen_int(db, "SELECT count(*) FROM pragma_table_info('ix_dead')"
	    " WHERE name = 'rows'", 0, 0)) < 0)
		return -1;
	if (n == 0 && ix_exec(db, "ALTER TABLE ix_dead ADD COLUMN rows INTEGER",
	    GEN_WHAT) == -1)
		return -1;
	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s.sqlite_master"
	    " WHERE name = 'ix_fts'", ix_sch(db));
	if ((n = gen_int(db, sql, 0, 0)) < 0)
		return -1;
	if (n > 0 && ix_exec(db, "INSERT OR IGNORE INTO ix_gen(gen, open,"
	    " bytes) VALUES(0, 1, (SELECT coalesce(sum(bytes), 0) FROM"
	    " ix_blob))", GEN_WHAT) == -1)
		return -1;
	/* One generation open, always. */
	if ((n = gen_int(db, "SELECT count(*) FROM ix_gen WHERE open = 1", 0,
	    0)) < 0)
		return -1;
	if (n == 0 && ((n = gen_int(db, "SELECT max(gen) + 1 FROM ix_gen", 0,
	    0)) < 0 || gen_create(db, n) == -1))
		return -1;
	return 0;
}

/*
 * What a new generation keeps of each word: the rows that hold it
 * (none), and no row's size, which no ranking reads (columnsize=0); or,
 * when OFL_INDEX_DETAIL says so, their columns too, and each row's size,
 * as ofl made them before it kept rows alone: for comparing the two and
 * testing a store that holds both.
 */
static const char *
gen_detail(void)
{
	const char	*e = getenv("OFL_INDEX_DETAIL");

	return e != NULL && strcmp(e, "column") == 0 ? "column" :
	    "none, columnsize=0";
}

/* A new generation's table, open, in a write transaction. */
static int
gen_create(sqlite3 *db, int64_t gen)
{
	sqlite3_stmt	*s;
	char		 name[32], sql[384];
	int		 rc;

	ix_gen_name(gen, name, sizeof name);
	snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE %s.%s USING fts5("
	    "title, body, content='', detail=%s, tokenize='ofl');"
	    " INSERT INTO %s(%s, rank) VALUES('rank', '" OFL_INDEX_RANK "')",
	    ix_sch(db), name, gen_detail(), name, name);
	if (ix_exec(db, sql, GEN_WHAT) == -1)
		return -1;
	if (ix_prep(db, "INSERT INTO ix_gen(gen, open) VALUES(?1, 1)",
	    &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, gen);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return ix_err(db, GEN_WHAT);
	return 0;
}

/*
 * The open generation, for blob's content to go into, in a write
 * transaction: a new one when there is none, when the open one is full,
 * or when blob was buried in it.  Counts bytes as indexed into it.
 */
int64_t
ix_gen_take(sqlite3 *db, int64_t blob, uint64_t bytes)
{
	sqlite3_stmt	*s;
	int64_t		 gen = -1;
	int		 full = 0, rc;

	/* The open one, full or with blob buried in it. */
	if (ix_prep(db, "SELECT gen, bytes >= ?2 OR EXISTS (SELECT 1 FROM"
	    " ix_dead d WHERE d.gen = g.gen AND d.blob = ?1) FROM ix_gen g"
	    " WHERE open = 1 ORDER BY gen DESC LIMIT 1", &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, blob);
	sqlite3_bind_int64(s, 2, (int64_t)ix_gen_limit());
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		gen = sqlite3_column_int64(s, 0);
		full = sqlite3_column_int(s, 1);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ix_err(db, GEN_WHAT);
	/*
	 * Closed unmeasured (pages 0): merged and measured after this
	 * claim commits (ix_gen_merge()), not inside it, which holds the
	 * write locks of ofl.db too and so would keep captures waiting.
	 */
	if (gen >= 0 && full) {
		if (gen_int(db, "UPDATE ix_gen SET open = 0, pages = 0 WHERE"
		    " gen = ?1", gen, 0) == -2)
			return -1;
		gen = -1;
	}
	if (gen < 0) {
		if ((gen = gen_int(db, "SELECT max(gen) + 1 FROM ix_gen", 0,
		    0)) == -2 || gen_create(db, gen) == -1)
			return -1;
	}
	if (ix_prep(db, "UPDATE ix_gen SET bytes = bytes + ?2 WHERE gen = ?1",
	    &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, gen);
	sqlite3_bind_int64(s, 2, (int64_t)bytes);
	if (sqlite3_step(s) != SQLITE_DONE) {
		sqlite3_finalize(s);
		return ix_err(db, GEN_WHAT);
	}
	sqlite3_finalize(s);
	return gen;
}

/*
 * Bury blob's rows in its generation, in a write transaction (its
 * ix_blob row still there): searches leave them out from now on.
 */
int
ix_gen_bury(sqlite3 *db, int64_t blob)
{
	if (gen_int(db, "INSERT OR IGNORE INTO ix_dead(gen, blob, rows) SELECT"
	    " gen, blob, next_seq FROM ix_blob WHERE blob = ?1", blob, 0) == -2 ||
	    gen_int(db, "UPDATE ix_gen SET dead = dead + (SELECT"
	    " coalesce(bytes, 0) FROM ix_blob WHERE blob = ?1) WHERE gen ="
	    " (SELECT gen FROM ix_blob WHERE blob = ?1)", blob, 0) == -2)
		return -1;
	return 0;
}

/*
 * The generations, oldest first; *n of them.  NULL and 0 if none.  Only
 * with full, the blobs in each (a count over all of ix_blob).
 */
int
ix_gen_list(sqlite3 *db, int full, struct ix_gen **out, size_t *n)
{
	sqlite3_stmt	*s;
	struct ix_gen	*g = NULL;
	size_t		 cap = 0;
	int		 rc;

	*out = NULL;
	*n = 0;
	if (ix_prep(db, full ? "SELECT g.gen, g.open, g.bytes, g.dead,"
	    " EXISTS (SELECT 1 FROM ix_dead d WHERE d.gen = g.gen), (SELECT"
	    " count(*) FROM ix_blob b WHERE b.gen = g.gen) FROM ix_gen g"
	    " ORDER BY g.gen" : "SELECT g.gen, g.open, g.bytes, g.dead,"
	    " EXISTS (SELECT 1 FROM ix_dead d WHERE d.gen = g.gen), -1"
	    " FROM ix_gen g ORDER BY g.gen", &s) == -1)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			g = ofl_xrealloc(g, cap * sizeof *g);
		}
		g[*n].gen = sqlite3_column_int64(s, 0);
		g[*n].open = sqlite3_column_int(s, 1);
		g[*n].bytes = sqlite3_column_int64(s, 2);
		g[*n].dead = sqlite3_column_int64(s, 3);
		g[*n].buried = sqlite3_column_int(s, 4);
		g[*n].blobs = sqlite3_column_int64(s, 5);
		(*n)++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(g);
		*n = 0;
		return ix_err(db, GEN_WHAT);
	}
	*out = g;
	return 0;
}

/*
 * 0 if generation gen keeps the places of words (made by an older ofl,
 * or the in-memory one of the PostgreSQL engine), 1 if it keeps only
 * their columns (detail=column, made by an older ofl), 2 if only the
 * rows that hold them (detail=none); -1 on error.
 */
int
ix_gen_nopos(sqlite3 *db, int64_t gen)
{
	sqlite3_stmt	*s;
	char		 name[32], sql[224];
	int		 rc, n = 0;

	ix_gen_name(gen, name, sizeof name);
	snprintf(sql, sizeof sql, "SELECT CASE WHEN sql LIKE"
	    " '%%detail=column%%' THEN 1 WHEN sql LIKE '%%detail=none%%'"
	    " THEN 2 ELSE 0 END FROM %s.sqlite_master WHERE name = ?1",
	    ix_sch(db));
	if (ix_prep(db, sql, &s) == -1)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		n = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ix_err(db, GEN_WHAT);
	return n;
}

/* The generation blob is indexed in, -1 if none, -2 on error. */
int64_t
ix_gen_of(sqlite3 *db, int64_t blob)
{
	return gen_int(db, "SELECT gen FROM ix_blob WHERE blob = ?1", blob,
	    -1);
}

/*
 * Drop generation gen, its table and tombstones, in a transaction.
 * SQLite built with SECURE_DELETE (as Debian's is) writes every freed
 * page again, zeroed (and "fast" still writes most): dropping a table of
 * 10 MB took more than 5 MB of WAL, which a full disk has not got, the
 * very disk whose space the drop is to give back.  So the drop frees its
 * pages as they are; gc's incremental vacuum then moves live pages over
 * them and cuts them off the file, as the content files of the removed
 * artifacts are unlinked, not wiped.
 */
int
ix_gen_drop(sqlite3 *db, int64_t gen)
{
	static const char *const mode[] = { "OFF", "ON", "FAST" };
	sqlite3_stmt	*s;
	char		 name[32], sql[96];
	int		 was = -1, rc;

	ix_gen_name(gen, name, sizeof name);
	snprintf(sql, sizeof sql, "PRAGMA %s.secure_delete", ix_sch(db));
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			was = sqlite3_column_int(s, 0);
		sqlite3_finalize(s);
	}
	snprintf(sql, sizeof sql, "PRAGMA %s.secure_delete = OFF", ix_sch(db));
	(void)sqlite3_exec(db, sql, NULL, NULL, NULL);
	snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS %s", name);
	rc = ix_exec(db, sql, GEN_WHAT);
	if (was >= 0 && was <= 2) {
		snprintf(sql, sizeof sql, "PRAGMA %s.secure_delete = %s",
		    ix_sch(db), mode[was]);
		(void)sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	if (rc == -1 ||
	    gen_int(db, "DELETE FROM ix_dead WHERE gen = ?1", gen, 0) == -2 ||
	    gen_int(db, "DELETE FROM ix_gen WHERE gen = ?1", gen, 0) == -2)
		return -1;
	return 0;
}

/*
 * Close the open generation gen, in a transaction, and note the bytes of
 * its table: it takes no more content, so they are known from now on
 * without a walk of its pages.
 */
int
ix_gen_close(sqlite3 *db, int64_t gen)
{
	if (gen_int(db, "UPDATE ix_gen SET open = 0 WHERE gen = ?1", gen,
	    0) == -2)
		return -1;
	return gen_measure(db, gen);
}

/*
 * Merge the segments of each generation closed full since the last time
 * (closed, pages 0: ix_gen_take()) into one, as they will stay (FTS5's
 * optimize): each word's list of rows once, not once in each segment,
 * about 5% fewer bytes, for about a tenth of the time its content took
 * to index; then note its bytes.  Each in a transaction that writes the
 * index alone, so captures, which write ofl.db, do not wait for it;
 * until end (ms), at least one.  Unmerged is as good, only larger: a
 * failure (a full disk) leaves it for the next time.
 */
void
ix_gen_merge(sqlite3 *db, int64_t end)
{
	sqlite3_stmt	*s;
	int64_t		 gen;
	char		 name[32], sql[160];

	do {
		if (ix_prep(db, "SELECT gen FROM ix_gen WHERE open = 0 AND"
		    " pages = 0 ORDER BY gen LIMIT 1", &s) == -1)
			return;
		gen = sqlite3_step(s) == SQLITE_ROW ?
		    sqlite3_column_int64(s, 0) : -1;
		sqlite3_finalize(s);
		if (gen < 0)
			return;
		ix_gen_name(gen, name, sizeof name);
		snprintf(sql, sizeof sql, "BEGIN; INSERT INTO %s(%s)"
		    " VALUES('optimize')", name, name);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK ||
		    gen_measure(db, gen) == -1 ||
		    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return;
		}
	} while (ofl_now_ms() < end);
}

/*
 * The rows of generation gen that are not buried; only those of no chunk
 * (written by an indexer that died, or left by an older ofl) if orphans.
 * A table made with columnsize=0 has no row of its own per row to count:
 * its rows are the count FTS5 keeps (gen_total) less the buried ones
 * (ix_dead) and, for orphans, less the chunks of its live blobs.  -1 on
 * error.
 */
int64_t
ix_gen_rows(sqlite3 *db, int64_t gen, int orphans)
{
	sqlite3_stmt	*s;
	int64_t		 n = 0, total = 0;
	char		 name[32], sql[320];
	int		 sized, rc;

	ix_gen_name(gen, name, sizeof name);
	if ((sized = gen_sized(db, name)) == -1 ||
	    (!sized && (total = gen_total(db, name)) == -1))
		return -1;
	if (sized)
		snprintf(sql, sizeof sql, "SELECT count(*) FROM %s_docsize d"
		    " WHERE d.id >> %d NOT IN (SELECT blob FROM ix_dead WHERE"
		    " gen = ?1)%s", name, IX_CHUNK_BITS, orphans ? " AND NOT"
		    " EXISTS (SELECT 1 FROM ix_chunk c WHERE c.id = d.id)" : "");
	else
		snprintf(sql, sizeof sql, "SELECT ?2 - (SELECT coalesce(sum(rows),"
		    " 0) FROM ix_dead WHERE gen = ?1)%s", orphans ? " - (SELECT"
		    " count(*) FROM ix_blob b JOIN ix_chunk c ON c.id BETWEEN"
		    " b.blob << 24 AND (b.blob + 1 << 24) - 1 WHERE b.gen = ?1)" :
		    "");
	/* Text of its own, never kept: gen_int keeps literals only. */
	if (ix_prep(db, sql, &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, gen);
	if (!sized)
		sqlite3_bind_int64(s, 2, total);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return ix_err(db, GEN_WHAT);
	/* Counted, not listed: chunks of no row are not fewer rows. */
	return n > 0 ? n : 0;
}

/* 1 if table name keeps each row's size (%_docsize), 0 if not, or -1. */
static int
gen_sized(sqlite3 *db, const char *name)
{
	sqlite3_stmt	*s;
	char		 sql[128];
	int		 rc, n = 0;

	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s.sqlite_master"
	    " WHERE name = ?1 || '_docsize'", ix_sch(db));
	if (ix_prep(db, sql, &s) == -1)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		n = sqlite3_column_int(s, 0) > 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return ix_err(db, GEN_WHAT);
	return n;
}

/*
 * The rows ever written to FTS5 table name, as FTS5 counts them for its
 * statistics: the first varint of its averages record (row 1 of
 * %_data), in SQLite's varint format.  0 when nothing was written, -1
 * on error.
 */
static int64_t
gen_total(sqlite3 *db, const char *name)
{
	sqlite3_stmt		*s;
	const unsigned char	*p;
	char			 sql[96];
	uint64_t		 v = 0;
	int			 rc, i, n;

	snprintf(sql, sizeof sql, "SELECT block FROM %s.%s_data WHERE id = 1",
	    ix_sch(db), name);
	if (ix_prep(db, sql, &s) == -1)
		return -1;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		p = sqlite3_column_blob(s, 0);
		n = sqlite3_column_bytes(s, 0);
		for (i = 0; i < n && i < 9; i++) {
			if (i == 8) {
				v = v << 8 | p[i];
				break;
			}
			v = v << 7 | (p[i] & 0x7f);
			if (!(p[i] & 0x80))
				break;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ix_err(db, GEN_WHAT);
	return (int64_t)v;
}

/* Up to max blobs indexed into gen, appended to *b (*n of them). */
static int
gen_blobs(sqlite3 *db, int64_t gen, int64_t **b, size_t *n, size_t max)
{
	sqlite3_stmt	*s;
	int		 rc;

	if (ix_prep(db, "SELECT blob FROM ix_blob WHERE gen = ?1 AND"
	    " state = 1 ORDER BY blob LIMIT ?2", &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, gen);
	sqlite3_bind_int64(s, 2, (int64_t)(max - *n));
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*b = ofl_xrealloc(*b, (*n + 1) * sizeof **b);
		(*b)[(*n)++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return ix_err(db, GEN_WHAT);
	return 0;
}

int
ofl_store_fts_tidy(struct ofl_store *st, int64_t **blobs, size_t *n,
    size_t max)
{
	sqlite3		*db = st->db;
	struct ix_gen	*g = NULL;
	size_t		 ng, i;
	int64_t		 live;
	int		 dropped = 0;

	*blobs = NULL;
	*n = 0;
	STORE_PG(st, 0);	/* no index there yet */
	if (ix_exec(db, "BEGIN IMMEDIATE", GEN_WHAT) == -1)
		return -1;
	if (ix_gen_list(db, 1, &g, &ng) == -1)
		goto fail;
	for (i = 0; i < ng; i++) {
		/* Every blob gone: the table goes (a new one opens). */
		if (g[i].blobs == 0 && (g[i].bytes > 0 || !g[i].open)) {
			if (ix_gen_drop(db, g[i].gen) == -1)
				goto fail;
			dropped++;
			continue;
		}
		/* Half buried and open: closed (and measured), compacted. */
		if (g[i].open && g[i].dead > 0 && g[i].dead * 2 >= g[i].bytes) {
			if (ix_gen_close(db, g[i].gen) == -1)
				goto fail;
			g[i].open = 0;
		}
		live = g[i].bytes - g[i].dead;
		if (!g[i].open && (uint64_t)live < ix_gen_limit() / 2 &&
		    *n < max && gen_blobs(db, g[i].gen, blobs, n, max) == -1)
			goto fail;
	}
	if (ix_gen_setup(db) == -1 ||
	    ix_exec(db, "COMMIT", GEN_WHAT) == -1)
		goto fail;
	free(g);
	return dropped;
fail:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(g);
	free(*blobs);
	*blobs = NULL;
	*n = 0;
	return -1;
}

/*
 * Whether tidy has a generation to drop, close or compact, from the
 * bytes alone (counting blobs is a walk of ix_blob): one whose blobs are
 * all gone has them all dead, so it is half buried (open) or keeps less
 * than half a generation (closed).
 */
int
ofl_store_fts_untidy(struct ofl_store *st)
{
	struct ix_gen	*g = NULL;
	size_t		 ng, i;
	int		 untidy = 0;

	STORE_PG(st, 0);
	if (ix_gen_list(st->db, 0, &g, &ng) == -1)
		return -1;
	for (i = 0; i < ng && !untidy; i++) {
		if (g[i].open)
			untidy = g[i].dead > 0 && g[i].dead * 2 >= g[i].bytes;
		else
			untidy = g[i].dead >= g[i].bytes ||
			    (uint64_t)(g[i].bytes - g[i].dead) <
			    ix_gen_limit() / 2;
	}
	free(g);
	return untidy;
}

uint64_t
ofl_store_fts_blob_bytes(struct ofl_store *st, int64_t blob)
{
	int64_t	n;

	STORE_PG(st, 0);
	n = gen_int(st->db, "SELECT coalesce(bytes, 0) FROM ix_blob WHERE"
	    " blob = ?1", blob, 0);
	return n > 0 ? (uint64_t)n : 0;
}

/* The bytes of the pages of gen's table (a walk of them). */
static uint64_t
gen_pages(sqlite3 *db, int64_t gen)
{
	static const char *const part[] = { "data", "idx", "docsize",
	    "config" };
	char		 name[32], table[48];
	sqlite3_stmt	*s;
	uint64_t	 n = 0;
	size_t		 i;

	ix_gen_name(gen, name, sizeof name);
	if (ix_prep(db, "SELECT coalesce(sum(pgsize), 0) FROM"
	    " dbstat(?2, 1) WHERE name = ?1", &s) == -1)
		return 0;
	sqlite3_bind_text(s, 2, ix_sch(db), -1, SQLITE_STATIC);
	for (i = 0; i < sizeof part / sizeof part[0]; i++) {
		snprintf(table, sizeof table, "%s_%s", name, part[i]);
		sqlite3_bind_text(s, 1, table, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(s) == SQLITE_ROW)
			n += (uint64_t)sqlite3_column_int64(s, 0);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return n;
}

/* Note the bytes of closed gen's table, once: it grows no more. */
static int
gen_measure(sqlite3 *db, int64_t gen)
{
	sqlite3_stmt	*s;
	int		 rc;

	if (ix_prep(db, "UPDATE ix_gen SET pages = ?2 WHERE gen = ?1 AND"
	    " pages = 0", &s) == -1)
		return -1;
	sqlite3_bind_int64(s, 1, gen);
	sqlite3_bind_int64(s, 2, (int64_t)gen_pages(db, gen));
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return ix_err(db, GEN_WHAT);
	return 0;
}

/*
 * The share of the generations' pages that holds buried rows, as their
 * bytes say: the store's size leaves it out, since the space comes back
 * when gc compacts them.  A closed generation's pages are noted once;
 * the open one's are measured (a walk of its tables) when it has any.
 */
uint64_t
ofl_store_fts_buried_bytes(struct ofl_store *st)
{
	sqlite3		*db = st->db;
	sqlite3_stmt	*s;
	uint64_t	 n = 0, pages, dead, bytes;

	STORE_PG(st, 0);
	if (sqlite3_prepare_v2(db, "SELECT gen, pages, min(dead, bytes),"
	    " bytes FROM ix_gen WHERE dead > 0 AND bytes > 0", -1, &s,
	    NULL) != SQLITE_OK)
		return 0;	/* no index */
	while (sqlite3_step(s) == SQLITE_ROW) {
		pages = (uint64_t)sqlite3_column_int64(s, 1);
		dead = (uint64_t)sqlite3_column_int64(s, 2);
		bytes = (uint64_t)sqlite3_column_int64(s, 3);
		if (pages == 0)
			pages = gen_pages(db, sqlite3_column_int64(s, 0));
		n += (uint64_t)((double)pages * (double)dead / (double)bytes);
	}
	sqlite3_finalize(s);
	return n;
}

/*
 * The bytes of the index's pages.  In a file of its own (store-ixdb.c),
 * the file's pages in use.  In ofl.db, each closed generation's as noted,
 * the open one's and those of the other tables walked.  A walk of the whole
 * database (dbstat cannot skip the tables a name pattern leaves out)
 * took most of a gc's planning in a large store.
 */
uint64_t
ix_gen_index_bytes(sqlite3 *db)
{
	static const char *const tab[] = { "ix_chunk", "ix_blob", "ix_gen",
	    "ix_dead", "ix_mark", "ix_hole" };
	sqlite3_stmt	*s;
	uint64_t	 n = 0;
	size_t		 i;

	/* A file of its own: its pages in use, read from its header. */
	if (strcmp(ix_sch(db), "ix") == 0)
		return ix_file_bytes(db);
	if (sqlite3_prepare_v2(db, "SELECT gen, open, pages FROM ix_gen", -1,
	    &s, NULL) != SQLITE_OK)
		return 0;	/* no index */
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (sqlite3_column_int(s, 1) || sqlite3_column_int64(s, 2) == 0)
			n += gen_pages(db, sqlite3_column_int64(s, 0));
		else
			n += (uint64_t)sqlite3_column_int64(s, 2);
	}
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(db, "SELECT coalesce(sum(pgsize), 0) FROM"
	    " dbstat(?2, 1) WHERE name = ?1", -1, &s, NULL) != SQLITE_OK)
		return n;
	sqlite3_bind_text(s, 2, ix_sch(db), -1, SQLITE_STATIC);
	for (i = 0; i < sizeof tab / sizeof tab[0]; i++) {
		sqlite3_bind_text(s, 1, tab[i], -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW)
			n += (uint64_t)sqlite3_column_int64(s, 0);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return n;
}
