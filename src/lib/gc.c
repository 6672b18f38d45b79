/*
 * gc.c: expiry, the size budget, purges, and checking the store.
 *
 * Only a finished artifact created before the gc started is ever
 * removed.  Each removal is one short transaction: the artifact row and,
 * when no other artifact shares it, its blob, frames and index rows; the
 * blob file is unlinked after the commit.  A crash between the two leaves
 * an orphan file, which --check reports and --repair removes.  The index
 * rows of a large blob take long to delete (FTS5 needs the text again):
 * that is done before, in short transactions, with the blob marked so
 * that nothing indexes or searches it meanwhile; what is left goes in the
 * removal's transaction.
 *
 * The whole plan of a run (what goes, and why) is made up front from one
 * measure of the store, with what each removal frees counted rather than
 * measured again: a deleted FTS5 row gives its pages back only when the
 * index is merged, and the database file shrinks later still, so a budget
 * that measured the store after each removal would take everything.  A
 * dry run prints the same plan.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ofl.h"
#include "banned.h"

#define MERGE_MS	1000	/* of index merging in one run */
#define MERGE_BUDGET_MS	10000	/* the same, when over the budget */
#define YIELD_MS	30	/* the write lock left free between steps */

static int
gc_fail(struct ofl_store *st, const char *what)
{
	sqlite3	*db = ofl_store_db(st);

	ofl_seterr(OFL_EXIT_FAIL, "store %s: %s: %s", ofl_store_path(st), what,
	    sqlite3_errmsg(db));
	return -1;
}

/* Run a statement whose one parameter is a row id; -1 if it fails. */
static int
exec_id(sqlite3 *db, const char *sql, int64_t id)
{
	sqlite3_stmt	*stmt;
	int		 rc;

	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(stmt, 1, id);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* A blob's frames and its row; the caller holds the transaction. */
static int
drop_blob_rows(sqlite3 *db, int64_t blob)
{
	if (exec_id(db, "DELETE FROM frame WHERE blob = ?1", blob) == -1 ||
	    exec_id(db, "DELETE FROM blob WHERE id = ?1", blob) == -1)
		return -1;
	return 0;
}

/* Pins: artifacts neither expiry nor the budget removes. */
static int
pin_table(sqlite3 *db)
{
	return sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS gc_pin ("
	    " id TEXT PRIMARY KEY) WITHOUT ROWID", NULL, NULL, NULL) ==
	    SQLITE_OK ? 0 : -1;
}

int
ofl_gc_pin(struct ofl_store *st, const char *ref, int pin)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*stmt;
	char		 id[OFL_ID_MAX + 1];
	int		 rc;

	if (ofl_store_resolve(st, ref, id) == -1)
		return -1;
	if (pin_table(db) == -1)
		return gc_fail(st, "pin");
	if (sqlite3_prepare_v2(db, pin ? "INSERT OR IGNORE INTO gc_pin (id)"
	    " SELECT id FROM artifact WHERE id = ?1" : "DELETE FROM gc_pin"
	    " WHERE id = ?1", -1, &stmt, NULL) != SQLITE_OK)
		return gc_fail(st, "pin");
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return gc_fail(st, "pin");
	return 0;
}

/*
 * Unlink a blob file, after its rows are gone.  Only a name ofl makes is
 * unlinked: a damaged or forged row ("../../x") must not reach outside
 * blobs/; such a file is left for --check to report.
 */
static void
blob_unlink(struct ofl_store *st, const char *file)
{
	struct ofl_buf	b;

	if (!ofl_blob_name_valid(file))
		return;
	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s/blobs/%s", ofl_store_path(st), file);
	unlink(ofl_buf_str(&b));
	ofl_buf_free(&b);
}

/*
 * Remove one artifact (and its blob if unshared).  Its index rows are
 * deleted first, in short transactions, if nothing else shares the blob;
 * the artifact, its blob and what is left of its index rows then go in
 * one transaction.
 */
static int
gc_remove(struct ofl_store *st, const char *id, int64_t started,
    uint64_t *freed)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*stmt = NULL;
	char		*file = NULL;
	int64_t		 blob = -1, stored = 0;
	int		 rc, refs = 0, state = -1, purged = 0;
	int64_t		 created = 0;

	*freed = 0;
	if (sqlite3_prepare_v2(db, "SELECT a.blob, (SELECT count(*) FROM"
	    " artifact o WHERE o.blob = a.blob) FROM artifact a WHERE"
	    " a.id = ?1 AND a.state = 1 AND a.created < ?2", -1, &stmt,
	    NULL) != SQLITE_OK)
		return gc_fail(st, "remove");
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, started);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		blob = sqlite3_column_int64(stmt, 0);
		refs = sqlite3_column_int(stmt, 1);
	}
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (blob != -1 && refs == 1) {
		if (ofl_index_purge(st, blob) == -1)
			return -1;
		purged = 1;
	}
	blob = -1;
	refs = 0;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return gc_fail(st, "begin");
	if (sqlite3_prepare_v2(db, "SELECT a.blob, a.state, a.created,"
	    " b.file, b.stored FROM artifact a JOIN blob b ON b.id = a.blob"
	    " WHERE a.id = ?1", -1, &stmt, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		blob = sqlite3_column_int64(stmt, 0);
		state = sqlite3_column_int(stmt, 1);
		created = sqlite3_column_int64(stmt, 2);
		file = ofl_xstrdup((const char *)sqlite3_column_text(stmt, 3));
		stored = sqlite3_column_int64(stmt, 4);
	}
	sqlite3_finalize(stmt);
	stmt = NULL;
	/* Gone already, still being written, or newer than this gc. */
	if (blob == -1 || state != OFL_STATE_COMPLETE || created >= started) {
		/* A blob half dropped from the index is indexed anew. */
		if (blob != -1 && purged && ofl_index_forget(st, blob) == -1)
			goto fail;
		if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
			goto fail;
		free(file);
		return 0;
	}
	if (sqlite3_prepare_v2(db, "DELETE FROM artifact WHERE id = ?1", -1,
	    &stmt, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (rc != SQLITE_DONE)
		goto fail;
	if (sqlite3_prepare_v2(db, "DELETE FROM gc_pin WHERE id = ?1", -1,
	    &stmt, NULL) == SQLITE_OK) {
		sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
		rc = sqlite3_step(stmt);
		sqlite3_finalize(stmt);
		stmt = NULL;
		if (rc != SQLITE_DONE)
			goto fail;
	}
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM artifact WHERE"
	    " blob = ?1", -1, &stmt, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(stmt, 1, blob);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		refs = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	stmt = NULL;
	/*
	 * The blob's index rows go with it, in this transaction: an indexer
	 * re-checks the blob inside its own, so none come back.  A blob
	 * that another artifact took meanwhile is indexed anew.
	 */
	if ((refs == 0 || purged) && ofl_index_forget(st, blob) == -1)
		goto fail;
	if (refs == 0 && drop_blob_rows(db, blob) == -1)
		goto fail;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	if (refs == 0) {
		blob_unlink(st, file);
		*freed = (uint64_t)stored;
	}
	free(file);
	return 1;
fail:
	gc_fail(st, "remove");
	sqlite3_finalize(stmt);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(file);
	return -1;
}

void
ofl_gc_opts_init(struct ofl_gc_opts *o)
{
	memset(o, 0, sizeof *o);
	o->ttl = 1;
	o->budget = 1;
	o->grace_ms = -1;
}

enum { R_PURGE = 1, R_EXPIRED, R_OLD, R_BUDGET };
static const char *reasons[] = { "", "purged", "expired", "old", "budget" };

/* A finished artifact, as the plan sees it. */
struct cand {
	char		 id[OFL_ID_MAX + 1];
	int64_t		 blob;
	int64_t		 created;
	uint64_t	 stored;	/* its blob's */
	uint64_t	 ixbytes;	/* bytes its blob's index was made of */
	int		 pinned;
	int		 mine;		/* of the session kept */
	int		 rule;		/* R_* of a rule that matches, or 0 */
	int		 reason;	/* R_* once planned, 0: kept */
	size_t		 order;		/* place in the plan */
};

/* Artifacts left on each blob, for the plan. */
struct bref {
	int64_t		 blob;
	int		 refs;
};

static int
bref_cmp(const void *a, const void *b)
{
	const struct bref	*x = a, *y = b;

	return x->blob < y->blob ? -1 : x->blob > y->blob;
}

struct plan {
	struct cand	*c;		/* least recently used first */
	size_t		 nc;
	struct bref	*refs;
	size_t		 nrefs;
	uint64_t	 ix_total;	/* the index's pages, measured */
	uint64_t	 ix_sum;	/* sum of ixbytes over indexed blobs */
	uint64_t	 size;		/* the store, as planned */
	uint64_t	 freed;		/* stored bytes planned to go */
	size_t		 norder;
};

/* The bytes of the index: its tables' pages in use. */
static uint64_t
index_bytes(sqlite3 *db)
{
	sqlite3_stmt	*stmt;
	uint64_t	 n = 0;

	if (sqlite3_prepare_v2(db, "SELECT coalesce(sum(pgsize), 0) FROM"
	    " dbstat('main', 1) WHERE name LIKE 'ix%'", -1, &stmt,
	    NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(stmt) == SQLITE_ROW)
		n = (uint64_t)sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return n;
}

/*
 * Plan the removal of c: when it is its blob's last artifact, the store
 * shrinks by the blob and the blob's share of the index.
 */
static void
plan_take(struct plan *p, struct cand *c, int reason)
{
	struct bref	 key, *r;
	uint64_t	 gain;

	c->reason = reason;
	c->order = p->norder++;
	key.blob = c->blob;
	if ((r = bsearch(&key, p->refs, p->nrefs, sizeof *p->refs,
	    bref_cmp)) == NULL || --r->refs > 0)
		return;
	gain = c->stored;
	if (p->ix_sum > 0 && c->ixbytes > 0)
		gain += (uint64_t)((double)p->ix_total *
		    ((double)c->ixbytes / (double)p->ix_sum));
	p->size = p->size > gain ? p->size - gain : 0;
	p->freed += c->stored;
}

/* Load every finished artifact created before now, least recently used
 * first. */
static int
plan_load(struct ofl_store *st, const struct ofl_gc_opts *o, int64_t now,
    int64_t ttl_ms, struct plan *p)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*stmt;
	struct cand	*c;
	const char	*sess;
	size_t		 i, j;
	int64_t		 cutoff;
	int		 rc;

	cutoff = o->older_ms > 0 ? now - o->older_ms : 0;
	if (sqlite3_prepare_v2(db, "SELECT a.id, a.blob, a.created, b.stored,"
	    " coalesce(x.bytes, 0), EXISTS (SELECT 1 FROM gc_pin g WHERE"
	    " g.id = a.id), a.session, CASE"
	    " WHEN ?1 OR (?2 IS NOT NULL AND a.label = ?2) OR"
	    "  (?3 IS NOT NULL AND a.session = ?3) THEN 1"
	    " WHEN EXISTS (SELECT 1 FROM gc_pin g WHERE g.id = a.id) THEN 0"
	    " WHEN a.expires IS NOT NULL AND a.expires <= ?4 THEN 2"
	    " WHEN a.expires IS NULL AND ?5 > 0 AND a.created + ?5 <= ?4"
	    " THEN 2"
	    " WHEN ?6 > 0 AND a.created < ?6 THEN 3 ELSE 0 END"
	    " FROM artifact a JOIN blob b ON b.id = a.blob LEFT JOIN ix_blob x"
	    " ON x.blob = a.blob WHERE a.state = 1 AND a.created < ?4"
	    " ORDER BY a.used, a.seq", -1, &stmt, NULL) != SQLITE_OK)
		return gc_fail(st, "gc");
	sqlite3_bind_int(stmt, 1, o->all ? 1 : 0);
	if (o->label != NULL)
		sqlite3_bind_text(stmt, 2, o->label, -1, SQLITE_STATIC);
	if (o->session != NULL)
		sqlite3_bind_text(stmt, 3, o->session, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 4, now);
	sqlite3_bind_int64(stmt, 5, ttl_ms);
	sqlite3_bind_int64(stmt, 6, cutoff);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		p->c = ofl_xrealloc(p->c, (p->nc + 1) * sizeof *p->c);
		c = &p->c[p->nc++];
		memset(c, 0, sizeof *c);
		snprintf(c->id, sizeof c->id, "%s",
		    (const char *)sqlite3_column_text(stmt, 0));
		c->blob = sqlite3_column_int64(stmt, 1);
		c->created = sqlite3_column_int64(stmt, 2);
		c->stored = (uint64_t)sqlite3_column_int64(stmt, 3);
		c->ixbytes = (uint64_t)sqlite3_column_int64(stmt, 4);
		c->pinned = sqlite3_column_int(stmt, 5);
		sess = (const char *)sqlite3_column_text(stmt, 6);
		c->mine = o->keep_session != NULL && sess != NULL &&
		    strcmp(sess, o->keep_session) == 0;
		c->rule = sqlite3_column_int(stmt, 7);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return gc_fail(st, "gc");

	/* Artifacts per blob, counting those being written too. */
	if (sqlite3_prepare_v2(db, "SELECT blob, count(*) FROM artifact GROUP"
	    " BY blob ORDER BY blob", -1, &stmt, NULL) != SQLITE_OK)
		return gc_fail(st, "gc");
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		p->refs = ofl_xrealloc(p->refs, (p->nrefs + 1) *
		    sizeof *p->refs);
		p->refs[p->nrefs].blob = sqlite3_column_int64(stmt, 0);
		p->refs[p->nrefs++].refs = sqlite3_column_int(stmt, 1);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return gc_fail(st, "gc");

	/* Each indexed blob once in the sum the shares are taken from. */
	for (i = 0; i < p->nc; i++) {
		if (p->c[i].ixbytes == 0)
			continue;
		for (j = 0; j < i; j++)
			if (p->c[j].blob == p->c[i].blob)
				break;
		if (j == i)
			p->ix_sum += p->c[i].ixbytes;
	}
	p->ix_total = index_bytes(db);
	p->size = ofl_store_size(st);
	return 0;
}

/*
 * Remove one planned artifact (or, in a dry run, say it goes) and
 * account for it.
 */
static void
gc_one(struct ofl_store *st, const struct ofl_gc_opts *o, const char *id,
    int reason, int64_t now,
    int (*cb)(const struct ofl_meta *, const char *, void *), void *arg,
    struct ofl_gc_report *rep)
{
	struct ofl_meta	m;
	uint64_t	freed = 0;
	int		r;

	if (ofl_store_meta(st, id, &m) == -1)
		return;
	if (o->dry_run)
		r = 1;
	else if ((r = gc_remove(st, id, now, &freed)) == -1) {
		if (cb != NULL)
			cb(NULL, ofl_errmsg(), arg);
		rep->errors++;
		rep->status = OFL_EXIT_FAIL;
		ofl_meta_free(&m);
		return;
	}
	if (r == 1) {
		rep->removed++;
		rep->removed_bytes += m.bytes;
		rep->freed += freed;
		if (cb != NULL)
			cb(&m, reasons[reason], arg);
	}
	ofl_meta_free(&m);
}

struct byage {
	int64_t	 created;
	size_t	 i;
};

static int
byage_cmp(const void *a, const void *b)
{
	const struct byage	*x = a, *y = b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int
order_cmp(const void *a, const void *b)
{
	const struct cand	*x = a, *y = b;

	if (x->reason == 0 || y->reason == 0)
		return (x->reason == 0) - (y->reason == 0);
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Between two steps that each take the write lock, leave it free a
 * little longer than a waiting writer sleeps between tries (store.c),
 * so that captures get in instead of waiting for the whole run.
 */
static void
gc_yield(void)
{
	struct timespec	ts = { 0, YIELD_MS * 1000000L };

	nanosleep(&ts, NULL);
}

/* Merge the index's segments (dropping deleted rows), give pages back. */
static void
gc_compact(struct ofl_store *st, int64_t max_ms)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	int64_t		 t0 = ofl_mono_ms();
	int		 i, empty = 0;

	/*
	 * No chunk left: reset the full-text index at once, instead of
	 * merging away every deleted row.  Inside one transaction, so that
	 * no indexer starts meanwhile (it claims its blob first).
	 */
	if (ofl_index_init(st) == 0 && sqlite3_exec(db, "BEGIN IMMEDIATE",
	    NULL, NULL, NULL) == SQLITE_OK) {
		if (sqlite3_prepare_v2(db, "SELECT NOT EXISTS (SELECT 1 FROM"
		    " ix_blob) AND NOT EXISTS (SELECT 1 FROM ix_chunk)", -1, &s,
		    NULL) == SQLITE_OK) {
			if (sqlite3_step(s) == SQLITE_ROW)
				empty = sqlite3_column_int(s, 0);
			sqlite3_finalize(s);
		}
		if (empty)
			sqlite3_exec(db, "INSERT INTO ix_fts(ix_fts)"
			    " VALUES('delete-all')", NULL, NULL, NULL);
		if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	/*
	 * FTS5 only marks removed rows; merging segments drops them.
	 * Small merges, each its own transaction, until none is left or
	 * the time is up: while chunks keep coming there is always more,
	 * and writers wait for each merge.  The next run goes on.
	 */
	for (i = 0; !empty && ofl_index_init(st) == 0 && i < 100000 &&
	    ofl_mono_ms() - t0 < max_ms; i++) {
		int	before = sqlite3_total_changes(db);

		/* A negative count merges at every level. */
		if (sqlite3_exec(db, "INSERT INTO ix_fts(ix_fts, rank)"
		    " VALUES ('merge', -256)", NULL, NULL, NULL) != SQLITE_OK ||
		    sqlite3_total_changes(db) == before)
			break;
		gc_yield();
	}
	/* Give pages back in small steps, so captures do not wait. */
	for (i = 0; i < 100000; i++) {
		int	more = 0;

		if (sqlite3_prepare_v2(db, "PRAGMA freelist_count", -1, &s,
		    NULL) != SQLITE_OK)
			break;
		if (sqlite3_step(s) == SQLITE_ROW)
			more = sqlite3_column_int(s, 0) > 0;
		sqlite3_finalize(s);
		if (!more)
			break;
		if (sqlite3_exec(db, "PRAGMA incremental_vacuum(256)", NULL,
		    NULL, NULL) != SQLITE_OK)
			break;
		gc_yield();
	}
	/* Give the WAL's space back too (bounded by the busy wait). */
	sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
}

/* "budget 40 MB not met: ..." from what the plan could not take. */
static void
unmet_line(struct ofl_gc_report *rep, const struct plan *p, uint64_t size,
    uint64_t ix, int64_t young)
{
	struct ofl_buf	 b;
	char		 s1[32], s2[32], s3[32];
	uint64_t	 ng = 0, bg = 0, np = 0, bp = 0, ns = 0, bs = 0;
	const char	*sep = "";
	size_t		 i;

	for (i = 0; i < p->nc; i++) {
		const struct cand *c = &p->c[i];

		if (c->reason != 0)
			continue;
		if (c->pinned) {
			np++;
			bp += c->stored;
		} else if (c->mine) {
			ns++;
			bs += c->stored;
		} else if (c->created > young) {
			ng++;
			bg += c->stored;
		}
	}
	ofl_buf_init(&b);
	ofl_fmt_size(s1, sizeof s1, rep->max_size);
	ofl_fmt_size(s2, sizeof s2, size);
	ofl_fmt_size(s3, sizeof s3, ix);
	ofl_buf_addf(&b, "budget %s not met: store %s; %s held by the index",
	    s1, s2, s3);
	sep = ", ";
	if (ng > 0) {
		ofl_fmt_size(s1, sizeof s1, bg);
		ofl_buf_addf(&b, "%s%llu artifact%s (%s) within the grace "
		    "period", sep, (unsigned long long)ng, ng == 1 ? "" : "s",
		    s1);
	}
	if (np > 0) {
		ofl_fmt_size(s1, sizeof s1, bp);
		ofl_buf_addf(&b, "%s%llu pinned (%s)", sep,
		    (unsigned long long)np, s1);
	}
	if (ns > 0) {
		ofl_fmt_size(s1, sizeof s1, bs);
		ofl_buf_addf(&b, "%s%llu of this session (%s)", sep,
		    (unsigned long long)ns, s1);
	}
	snprintf(rep->unmet, sizeof rep->unmet, "%s", ofl_buf_str(&b));
	ofl_buf_free(&b);
}

int
ofl_gc_run(struct ofl_store *st, const struct ofl_gc_opts *o,
    int (*cb)(const struct ofl_meta *, const char *, void *), void *arg,
    struct ofl_gc_report *rep)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*stmt;
	struct plan	 p;
	int64_t		 now = ofl_now_ms(), ttl_ms = 0, grace_ms = 0;
	uint64_t	 max_size = 0, size;
	char		*v, id[OFL_ID_MAX + 1];
	size_t		 i, j;

	memset(rep, 0, sizeof *rep);
	memset(&p, 0, sizeof p);
	rep->started = now;
	if (o->ttl && (v = ofl_setting_get(st, "ttl")) != NULL) {
		if (strcmp(v, "never") != 0)
			(void)ofl_parse_duration(v, &ttl_ms);
		free(v);
	}
	if (o->max_size > 0)
		max_size = o->max_size;
	else if (o->budget && (v = ofl_setting_get(st, "max-size")) != NULL) {
		if (strcmp(v, "none") != 0)
			(void)ofl_parse_size(v, &max_size);
		free(v);
	}
	if (o->grace_ms >= 0)
		grace_ms = o->grace_ms;
	else if ((v = ofl_setting_get(st, "grace")) != NULL) {
		(void)ofl_parse_duration(v, &grace_ms);
		free(v);
	}
	rep->max_size = max_size;
	if (pin_table(db) == -1 || ofl_index_init(st) == -1)
		return gc_fail(st, "gc");
	if (plan_load(st, o, now, ttl_ms, &p) == -1)
		goto fail;

	/* Explicit purges first, then the rules, oldest first... */
	for (i = 0; i < o->npurge; i++) {
		if (ofl_store_resolve(st, o->purge[i], id) == -1) {
			if (cb != NULL)
				cb(NULL, ofl_errmsg(), arg);
			rep->errors++;
			if (ofl_errcode() == OFL_EXIT_USAGE ||
			    rep->status == 0)
				rep->status = ofl_errcode();
			continue;
		}
		for (j = 0; j < p.nc; j++)
			if (strcmp(p.c[j].id, id) == 0 && p.c[j].reason == 0)
				plan_take(&p, &p.c[j], R_PURGE);
	}
	{
		/* Oldest first. */
		struct byage	*by = ofl_xcalloc(p.nc + 1, sizeof *by);
		size_t		 n = 0;

		for (i = 0; i < p.nc; i++)
			if (p.c[i].rule != 0 && p.c[i].reason == 0) {
				by[n].created = p.c[i].created;
				by[n++].i = i;
			}
		qsort(by, n, sizeof *by, byage_cmp);
		for (i = 0; i < n; i++)
			plan_take(&p, &p.c[by[i].i], p.c[by[i].i].rule);
		free(by);
	}
	/*
	 * ...then the size budget: least recently used first, never what
	 * is pinned, of the session kept, or younger than the grace period.
	 */
	for (i = 0; max_size > 0 && p.size > max_size && i < p.nc; i++) {
		struct cand	*c = &p.c[i];

		if (c->reason != 0 || c->pinned || c->mine ||
		    c->created > now - grace_ms)
			continue;
		rep->budget_seen++;
		plan_take(&p, c, R_BUDGET);
	}

	/* Carry the plan out, in its order. */
	if (p.nc > 0)
		qsort(p.c, p.nc, sizeof *p.c, order_cmp);
	for (i = 0; i < p.nc && p.c[i].reason != 0; i++) {
		gc_one(st, o, p.c[i].id, p.c[i].reason, now, cb, arg, rep);
		if (rep->errors > 100)
			break;
	}
	if (o->dry_run)
		rep->freed = p.freed;

	if (!o->dry_run && rep->removed > 0)
		gc_compact(st, max_size > 0 && p.size < ofl_store_size(st) ?
		    MERGE_BUDGET_MS : MERGE_MS);
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM artifact", -1, &stmt,
	    NULL) == SQLITE_OK) {
		if (sqlite3_step(stmt) == SQLITE_ROW)
			rep->kept = (uint64_t)sqlite3_column_int64(stmt, 0);
		sqlite3_finalize(stmt);
	}
	if (o->dry_run) {
		rep->kept = rep->kept > rep->removed ? rep->kept - rep->removed :
		    0;
		size = p.size;
		rep->index_bytes = p.ix_total;
	} else {
		size = ofl_store_size(st);
		rep->index_bytes = index_bytes(db);
	}
	rep->size = size;
	if (max_size > 0 && size > max_size)
		unmet_line(rep, &p, size, rep->index_bytes, now - grace_ms);
	free(p.c);
	free(p.refs);
	return rep->errors > 0 ? -1 : 0;
fail:
	free(p.c);
	free(p.refs);
	return -1;
}

/* Checking. */

static void
problem(int (*cb)(const char *, void *), void *arg, int *n,
    const char *fmt, ...) OFL_PRINTF(4, 5);

static void
problem(int (*cb)(const char *, void *), void *arg, int *n,
    const char *fmt, ...)
{
	char	msg[1024];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	(*n)++;
	if (cb != NULL)
		cb(msg, arg);
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

/*
 * Repair: an artifact whose content file is gone is lost already; remove
 * every artifact sharing that content, so that the store is consistent.
 */
static int
missing_content(struct ofl_store *st, const char *id)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*stmt;
	struct ofl_buf	 path;
	struct stat	 sb;
	int64_t		 blob = -1;
	int		 gone = 0;

	if (sqlite3_prepare_v2(db, "SELECT b.id, b.file FROM artifact a JOIN"
	    " blob b ON b.id = a.blob WHERE a.id = ?1", -1, &stmt,
	    NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	ofl_buf_init(&path);
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		const char *file = (const char *)sqlite3_column_text(stmt, 1);

		blob = sqlite3_column_int64(stmt, 0);
		if (!ofl_blob_name_valid(file))
			gone = 1;
		else {
			ofl_buf_addf(&path, "%s/blobs/%s", ofl_store_path(st),
			    file);
			gone = stat(ofl_buf_str(&path), &sb) == -1 &&
			    errno == ENOENT;
		}
	}
	sqlite3_finalize(stmt);
	ofl_buf_free(&path);
	if (!gone)
		return 0;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return 0;
	(void)exec_id(db, "DELETE FROM artifact WHERE blob = ?1", blob);
	(void)drop_blob_rows(db, blob);
	return sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
}

/*
 * Repair: content readable only up to byte good (a truncated file, a
 * frame that fails its checksum).  Keep the frames before it, make the
 * artifacts sharing it incomplete, with the hash, size and lines of what
 * is kept.  Its index rows go (the next search indexes it again).
 */
static int
keep_prefix(struct ofl_store *st, const char *id, uint64_t good)
{
	sqlite3			*db = ofl_store_db(st);
	sqlite3_stmt		*stmt = NULL;
	struct ofl_reader	*r;
	struct ofl_hash		 h;
	char			 hash[OFL_HASH_HEX], buf[65536];
	uint64_t		 lines = 0, stored = 0;
	int64_t			 blob;
	ssize_t			 k, i;
	int			 last = -1, rc = -1;

	if ((blob = ofl_store_blob(st, id)) < 0)
		return -1;
	(void)ofl_index_drop(st, blob);
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
	/* What is left, read back through the frames kept. */
	if ((r = ofl_reader_open(st, id)) == NULL)
		goto out;
	ofl_hash_init(&h);
	while ((k = ofl_reader_read(r, buf, sizeof buf)) > 0) {
		ofl_hash_update(&h, buf, (size_t)k);
		for (i = 0; i < k; i++)
			if (buf[i] == '\n')
				lines++;
		last = (unsigned char)buf[k - 1];
	}
	ofl_reader_close(r);
	if (k == -1)
		goto out;
	if (good > 0 && last != '\n')
		lines++;
	ofl_hash_final_hex(&h, hash);
	if (sqlite3_prepare_v2(db, "SELECT coalesce(sum(comp_len), 0) FROM"
	    " frame WHERE blob = ?1", -1, &stmt, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(stmt, 1, blob);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		stored = (uint64_t)sqlite3_column_int64(stmt, 0);
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

/*
 * Index rows of no content: an ix_blob row whose blob no artifact uses,
 * chunks of no ix_blob row or past the end of their content, FTS rows of
 * no chunk.  A gc that raced an indexer (before both re-checked inside
 * their transactions) left them, and with a blob number used again they
 * gave hits in other content.  They cannot be told from good rows one by
 * one (FTS5 needs the text to delete a row), so repair clears the index:
 * searches index again.  One statement, so one snapshot.
 */
static void
check_index(struct ofl_store *st, int repair,
    int (*cb)(const char *, void *), void *arg, int *n)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*stmt;
	int64_t		 nb = 0, nc = 0, ne = 0, nf = 0;

	if (ofl_index_init(st) == -1)
		return;
	if (sqlite3_prepare_v2(db, "SELECT"
	    " (SELECT count(*) FROM ix_blob x WHERE NOT EXISTS (SELECT 1 FROM"
	    " artifact a WHERE a.blob = x.blob)),"
	    " (SELECT count(*) FROM ix_chunk c WHERE NOT EXISTS (SELECT 1 FROM"
	    " ix_blob x WHERE x.blob = c.id >> 24)),"
	    " (SELECT count(*) FROM ix_chunk c JOIN blob b ON b.id = c.id >> 24"
	    " WHERE c.member IS NULL AND c.byte_end > b.bytes),"
	    " (SELECT count(*) FROM ix_fts_docsize d WHERE NOT EXISTS (SELECT 1"
	    " FROM ix_chunk c WHERE c.id = d.id))", -1, &stmt,
	    NULL) != SQLITE_OK)
		return;		/* no index */
	if (sqlite3_step(stmt) == SQLITE_ROW) {
		nb = sqlite3_column_int64(stmt, 0);
		nc = sqlite3_column_int64(stmt, 1);
		ne = sqlite3_column_int64(stmt, 2);
		nf = sqlite3_column_int64(stmt, 3);
	}
	sqlite3_finalize(stmt);
	if (nb > 0)
		problem(cb, arg, n, "index: %lld indexed content%s of no "
		    "artifact", (long long)nb, nb == 1 ? "" : "s");
	if (nc > 0)
		problem(cb, arg, n, "index: %lld chunk%s of no indexed "
		    "content", (long long)nc, nc == 1 ? "" : "s");
	if (ne > 0)
		problem(cb, arg, n, "index: %lld chunk%s past the end of "
		    "their content", (long long)ne, ne == 1 ? "" : "s");
	if (nf > 0)
		problem(cb, arg, n, "index: %lld full-text row%s of no chunk",
		    (long long)nf, nf == 1 ? "" : "s");
	if (!repair || nb + nc + ne + nf == 0)
		return;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return;
	if (sqlite3_exec(db, "INSERT INTO ix_fts(ix_fts) VALUES('delete-all');"
	    " DELETE FROM ix_chunk; DELETE FROM ix_blob", NULL, NULL,
	    NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return;
	}
	problem(cb, arg, n, "index: cleared (searches index again)");
	(*n)--;
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
 * The files under blobs/ that no blob row names (and, with idle, that no
 * writer holds), as "ab/abcd2345" names in a NULL-terminated list.
 * Anything else found there (a name ofl does not make) is reported, if
 * n is not NULL, and left alone.
 */
static char **
orphans(struct ofl_store *st, int idle, int (*cb)(const char *, void *),
    void *arg, int *n)
{
	sqlite3		*db = ofl_store_db(st);
	struct ofl_buf	 path, sub;
	DIR		*d, *sd;
	struct dirent	*de, *se;
	char		**list = NULL, name[600];
	size_t		 nlist = 0;

	ofl_buf_init(&path);
	ofl_buf_init(&sub);
	ofl_buf_addf(&path, "%s/blobs", ofl_store_path(st));
	if ((d = opendir(ofl_buf_str(&path))) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			ofl_buf_reset(&sub);
			ofl_buf_addf(&sub, "%s/%s", ofl_buf_str(&path),
			    de->d_name);
			if ((sd = opendir(ofl_buf_str(&sub))) == NULL)
				continue;
			while ((se = readdir(sd)) != NULL) {
				if (se->d_name[0] == '.')
					continue;
				snprintf(name, sizeof name, "%s/%s", de->d_name,
				    se->d_name);
				if (file_known(db, name) || (idle &&
				    busy_file(ofl_buf_str(&sub), se->d_name)))
					continue;
				if (!ofl_blob_name_valid(name)) {
					if (n != NULL)
						problem(cb, arg, n, "blobs/%s: "
						    "not a name ofl makes (left "
						    "alone)", name);
					continue;
				}
				list = ofl_xrealloc(list, (nlist + 2) *
				    sizeof *list);
				list[nlist++] = ofl_xstrdup(name);
				list[nlist] = NULL;
			}
			closedir(sd);
		}
		closedir(d);
	}
	ofl_buf_free(&sub);
	ofl_buf_free(&path);
	return list;
}

static void
orphans_free(char **list)
{
	size_t	i;

	for (i = 0; list != NULL && list[i] != NULL; i++)
		free(list[i]);
	free(list);
}

/*
 * Repair: an artifact whose content file is missing, or whose row names
 * it wrongly, while a file that no row names holds content of its hash:
 * point the row at that file.  Returns the file's name, or NULL.
 */
static const char *
relink(struct ofl_store *st, const char *id, const char *want)
{
	sqlite3			*db = ofl_store_db(st);
	sqlite3_stmt		*stmt;
	struct ofl_reader	*r;
	struct ofl_hash		 h;
	char			 got[OFL_HASH_HEX], buf[65536];
	static char		 found[600];
	char			**list;
	int64_t			 blob;
	ssize_t			 k;
	size_t			 i;
	int			 ok;

	if (want == NULL || (blob = ofl_store_blob(st, id)) < 0)
		return NULL;
	list = orphans(st, 0, NULL, NULL, NULL);
	for (i = 0; list != NULL && list[i] != NULL && i < 256; i++) {
		if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL,
		    NULL) != SQLITE_OK)
			break;
		ok = 0;
		if (sqlite3_prepare_v2(db, "UPDATE blob SET file = ?1 WHERE"
		    " id = ?2", -1, &stmt, NULL) == SQLITE_OK) {
			sqlite3_bind_text(stmt, 1, list[i], -1, SQLITE_STATIC);
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
		if (ok && sqlite3_exec(db, "COMMIT", NULL, NULL,
		    NULL) == SQLITE_OK) {
			snprintf(found, sizeof found, "%s", list[i]);
			orphans_free(list);
			return found;
		}
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	orphans_free(list);
	return NULL;
}

/* 1 if name is "ab/ID" for an artifact that is in the store. */
static int
names_artifact(sqlite3 *db, const char *name)
{
	sqlite3_stmt	*s;
	int		 yes = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM artifact WHERE id = ?1",
	    -1, &s, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_text(s, 1, name + 3, -1, SQLITE_STATIC);
	yes = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

int
ofl_gc_check(struct ofl_store *st, int repair,
    int (*cb)(const char *, void *), void *arg)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*stmt;
	struct ofl_buf	 path;
	char		**list;
	size_t		 o;
	int		 n = 0, rc, lost = 0;

	ofl_buf_init(&path);
	/* The database itself. */
	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt,
	    NULL) != SQLITE_OK) {
		problem(cb, arg, &n, "database: %s", sqlite3_errmsg(db));
		return n;
	}
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(stmt, 0);

		if (s != NULL && strcmp(s, "ok") != 0)
			problem(cb, arg, &n, "database: %s", s);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		problem(cb, arg, &n, "database: %s", sqlite3_errmsg(db));
		return n;
	}

	/* Artifacts whose blob row is missing. */
	if (sqlite3_prepare_v2(db, "SELECT a.id FROM artifact a LEFT JOIN blob"
	    " b ON b.id = a.blob WHERE b.id IS NULL", -1, &stmt,
	    NULL) == SQLITE_OK) {
		while (sqlite3_step(stmt) == SQLITE_ROW)
			problem(cb, arg, &n, "ofl:%s: content row missing%s",
			    sqlite3_column_text(stmt, 0), repair ?
			    " (artifact removed)" : "");
		sqlite3_finalize(stmt);
		if (repair)
			sqlite3_exec(db, "DELETE FROM artifact WHERE blob NOT IN"
			    " (SELECT id FROM blob)", NULL, NULL, NULL);
	}
	/* Blobs and frames nobody uses. */
	if (sqlite3_prepare_v2(db, "SELECT b.id, b.file FROM blob b WHERE NOT"
	    " EXISTS (SELECT 1 FROM artifact a WHERE a.blob = b.id)", -1, &stmt,
	    NULL) == SQLITE_OK) {
		int64_t	*ids = NULL;
		size_t	 nids = 0, i;

		while (sqlite3_step(stmt) == SQLITE_ROW) {
			problem(cb, arg, &n, "content %s: used by no artifact%s",
			    sqlite3_column_text(stmt, 1), repair ?
			    " (removed)" : "");
			ids = ofl_xrealloc(ids, (nids + 1) * sizeof *ids);
			ids[nids++] = sqlite3_column_int64(stmt, 0);
		}
		sqlite3_finalize(stmt);
		for (i = 0; repair && i < nids; i++) {
			ofl_index_drop(st, ids[i]);
			(void)exec_id(db, "DELETE FROM blob WHERE id = ?1",
			    ids[i]);
		}
		free(ids);
	}
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM frame WHERE blob NOT"
	    " IN (SELECT id FROM blob)", -1, &stmt, NULL) == SQLITE_OK) {
		if (sqlite3_step(stmt) == SQLITE_ROW &&
		    sqlite3_column_int(stmt, 0) > 0)
			problem(cb, arg, &n, "%d frame rows of no content%s",
			    sqlite3_column_int(stmt, 0), repair ?
			    " (removed)" : "");
		sqlite3_finalize(stmt);
		if (repair)
			sqlite3_exec(db, "DELETE FROM frame WHERE blob NOT IN"
			    " (SELECT id FROM blob)", NULL, NULL, NULL);
	}

	/* Every artifact's content present and matching its hash. */
	if (sqlite3_prepare_v2(db, "SELECT a.id, b.hash, a.state FROM artifact"
	    " a JOIN blob b ON b.id = a.blob WHERE a.seq IN (SELECT min(seq)"
	    " FROM artifact GROUP BY blob)", -1, &stmt, NULL) == SQLITE_OK) {
		while (sqlite3_step(stmt) == SQLITE_ROW) {
			const char		*id, *want;
			uint64_t		 good;
			struct ofl_reader	*r;
			struct ofl_hash		 h;
			char			 got[OFL_HASH_HEX], buf[65536];
			ssize_t			 k;

			id = (const char *)sqlite3_column_text(stmt, 0);
			want = (const char *)sqlite3_column_text(stmt, 1);
			if (sqlite3_column_int(stmt, 2) != OFL_STATE_COMPLETE)
				continue;
			if ((r = ofl_reader_open(st, id)) == NULL) {
				char		 msg[512];
				const char	*to;
				int		 fr;

				snprintf(msg, sizeof msg, "%s", ofl_errmsg());
				fr = ofl_store_frames_good(st, id, &good);
				if (fr == 1) {
					problem(cb, arg, &n, "ofl:%s%s", msg,
					    repair && keep_prefix(st, id,
					    good) == 0 ? " (kept the sound "
					    "part, marked incomplete)" : "");
					continue;
				}
				if (repair && (to = relink(st, id,
				    want)) != NULL) {
					problem(cb, arg, &n, "ofl:%s (its "
					    "content is blobs/%s: relinked)",
					    msg, to);
					continue;
				}
				lost = 1;
				problem(cb, arg, &n, "ofl:%s%s", msg,
				    repair && missing_content(st, id) ?
				    " (artifact removed)" : "");
				continue;
			}
			ofl_hash_init_like(&h, want);
			while ((k = ofl_reader_read(r, buf, sizeof buf)) > 0)
				ofl_hash_update(&h, buf, (size_t)k);
			good = ofl_reader_tell(r);
			ofl_reader_close(r);
			if (k == -1) {
				problem(cb, arg, &n, "ofl:%s%s", ofl_errmsg(),
				    repair && keep_prefix(st, id, good) == 0 ?
				    " (kept the readable part, marked "
				    "incomplete)" : "");
				continue;
			}
			ofl_hash_final_hex(&h, got);
			/* No hash: it was taken by other bytes (a collision). */
			if (want != NULL && strcmp(got, want) != 0)
				problem(cb, arg, &n, "ofl:%s: content does not "
				    "match its hash", id);
		}
		sqlite3_finalize(stmt);
	}

	check_index(st, repair, cb, arg, &n);

	/*
	 * Files no blob row names: left by a crash between commit and
	 * unlink.  Kept when this check lost an artifact's content file
	 * (the file may be that content, under a damaged name), and when
	 * named after an artifact still in the store.
	 */
	list = orphans(st, 1, cb, arg, &n);
	for (o = 0; list != NULL && list[o] != NULL; o++) {
		int	keep = lost || names_artifact(db, list[o]);

		problem(cb, arg, &n, "blobs/%s: file of no content row%s",
		    list[o], !repair ? "" : keep ? " (kept: it may be the "
		    "content of an artifact whose row is damaged)" :
		    " (removed)");
		if (repair && !keep) {
			ofl_buf_reset(&path);
			ofl_buf_addf(&path, "%s/blobs/%s", ofl_store_path(st),
			    list[o]);
			unlink(ofl_buf_str(&path));
		}
	}
	orphans_free(list);
	ofl_buf_free(&path);
	return n;
}
