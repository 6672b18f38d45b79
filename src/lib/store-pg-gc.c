/*
 * store-pg-gc.c: what expiry needs of the PostgreSQL engine, as
 * store-gc.c gives it for SQLite: the artifacts a gc may remove, the
 * removal of one, step by step inside gc.c's transaction, pins, usage
 * figures, what a check needs, and the locks of a role (one gc at a time,
 * one indexer draining).
 *
 * Many machines share the database, so a removal takes its blob's row
 * lock (FOR UPDATE) before it counts the artifacts left on it: a writer
 * that shares that blob with a new artifact holds a key-share lock on
 * it from the moment it chooses it (store-pg-write.c), so either the
 * writer's artifact is counted, or the writer finds the blob gone and
 * keeps its own.  Row-level security limits a role to its own rows; a
 * role with BYPASSRLS expires everyone's.
 */
#include "config.h"

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq.h"

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

int
store_pg_gc_pin(struct ofl_store *st, const char *id, int pin)
{
	struct store_pg_args	a;

	store_pg_args_init(&a);
	store_pg_arg_text(&a, id);
	store_pg_arg_text(&a, pin ? "t" : "f");
	return store_pg_do(st, "UPDATE ofl.artifact SET pinned = $2::boolean"
	    " WHERE id = $1", &a, "pin");
}

int
store_pg_gc_candidates(struct ofl_store *st, int64_t before,
    struct ofl_store_gc_cand **out, size_t *nout)
{
	struct store_pg_args		 a;
	struct ofl_store_gc_cand	*c, *list;
	PGresult			*res;
	size_t				 n, i;

	*out = NULL;
	*nout = 0;
	store_pg_args_init(&a);
	store_pg_arg_int(&a, before);
	if ((res = store_pg_run(st, "SELECT a.id, a.blob, a.created,"
	    " a.expires, b.stored, a.pinned::int, a.label, a.session,"
	    " coalesce(ix.ixsize, 0) FROM ofl.artifact a JOIN ofl.blob b"
	    " ON b.id = a.blob LEFT JOIN ofl.ix_blob ix ON ix.blob = a.blob"
	    " WHERE a.state = 1 AND a.created < $1 ORDER BY a.used, a.seq",
	    &a, 0, "gc")) == NULL)
		return -1;
	n = (size_t)PQntuples(res);
	list = ofl_xcalloc(n + 1, sizeof *list);
	for (i = 0; i < n; i++) {
		c = &list[i];
		snprintf(c->id, sizeof c->id, "%s", PQgetvalue(res, (int)i, 0));
		c->blob = store_pg_int(res, (int)i, 1);
		c->created = store_pg_int(res, (int)i, 2);
		c->has_expires = !PQgetisnull(res, (int)i, 3);
		c->expires = store_pg_int(res, (int)i, 3);
		c->stored = (uint64_t)store_pg_int(res, (int)i, 4);
		c->pinned = (int)store_pg_int(res, (int)i, 5);
		c->label = store_pg_str(res, (int)i, 6);
		c->session = store_pg_str(res, (int)i, 7);
		c->ixbytes = (uint64_t)store_pg_int(res, (int)i, 8);
	}
	PQclear(res);
	*out = list;
	*nout = n;
	return 0;
}

/* What the index's rows were made of: the gc's shares add up to it. */
uint64_t
store_pg_gc_index_bytes(struct ofl_store *st)
{
	int64_t	n = 0;

	if (store_pg_value(st, "SELECT coalesce(sum(ixsize), 0) FROM"
	    " ofl.ix_blob", NULL, "gc", &n) != 1)
		return 0;
	return (uint64_t)n;
}

uint64_t
store_pg_gc_count(struct ofl_store *st)
{
	int64_t	n = 0;

	if (store_pg_value(st, "SELECT count(*) FROM ofl.artifact", NULL,
	    "gc", &n) != 1)
		return 0;
	return (uint64_t)n;
}

int
store_pg_gc_row(struct ofl_store *st, const char *id,
    struct ofl_store_gc_row *row)
{
	struct store_pg_args	 a;
	PGresult		*res;

	memset(row, 0, sizeof *row);
	row->blob = -1;
	row->state = -1;
	store_pg_args_init(&a);
	store_pg_arg_text(&a, id);
	/* Its row locked: a second gc waits, then finds it gone. */
	if ((res = store_pg_run(st, "SELECT a.blob, a.state, a.created,"
	    " b.stored FROM ofl.artifact a JOIN ofl.blob b ON b.id = a.blob"
	    " WHERE a.id = $1 FOR UPDATE OF a", &a, 0, "remove")) == NULL)
		return -1;
	if (PQntuples(res) > 0) {
		row->blob = store_pg_int(res, 0, 0);
		row->state = (int)store_pg_int(res, 0, 1);
		row->created = store_pg_int(res, 0, 2);
		row->stored = (uint64_t)store_pg_int(res, 0, 3);
	}
	PQclear(res);
	return 0;
}

int
store_pg_gc_delete(struct ofl_store *st, const char *id, int64_t blob,
    int *refs)
{
	struct store_pg_args	 a;
	int64_t			 n = 0;
	int			 rc;

	*refs = 0;
	store_pg_args_init(&a);
	store_pg_arg_text(&a, id);
	if (store_pg_do(st, "DELETE FROM ofl.artifact WHERE id = $1", &a,
	    "remove") == -1)
		return -1;
	/*
	 * The blob's lock, then the count: a writer sharing the blob
	 * either committed before (counted) or waits and finds it gone.
	 */
	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	if ((rc = store_pg_value(st, "SELECT 1 FROM ofl.blob WHERE id = $1"
	    " FOR UPDATE", &a, "remove", &n)) == -1)
		return -1;
	/* No row: gone already, so nothing left to drop. */
	if (rc == 0) {
		*refs = 1;
		return 0;
	}
	/* A statement of its own: it sees what committed while it waited. */
	if (store_pg_value(st, "SELECT count(*) FROM ofl.artifact WHERE"
	    " blob = $1", &a, "remove", &n) == -1)
		return -1;
	*refs = (int)n;
	return 0;
}

int
store_pg_gc_drop_blob(struct ofl_store *st, int64_t blob)
{
	struct store_pg_args	a;

	/* Its frames go with it (ON DELETE CASCADE). */
	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	return store_pg_do(st, "DELETE FROM ofl.blob WHERE id = $1", &a,
	    "remove");
}

int
store_pg_gc_stats(struct ofl_store *st, int by, struct ofl_store_stat **out,
    size_t *nout)
{
	struct ofl_store_stat	*list, *s;
	PGresult		*res;
	size_t			 n, i;

	*out = NULL;
	*nout = 0;
	/* One statement for each grouping, as store-gc.c's. */
	if ((res = store_pg_run(st, by == OFL_STATS_DAY ?
	    "SELECT k, count(*), sum(bytes), sum(stored), sum(out) FROM"
	    " (SELECT to_char(to_timestamp(a.created / 1000) AT TIME ZONE"
	    " 'UTC', 'YYYY-MM-DD') AS k, a.bytes, b.stored, CASE WHEN"
	    " a.printed IS NULL THEN 0 WHEN a.bytes > a.printed THEN"
	    " a.bytes - a.printed ELSE 0 END AS out FROM ofl.artifact a"
	    " JOIN ofl.blob b ON b.id = a.blob) s"
	    " GROUP BY k ORDER BY k COLLATE \"C\"" :
	    "SELECT k, count(*), sum(bytes), sum(stored), sum(out) FROM"
	    " (SELECT coalesce(a.label, '-') AS k, a.bytes, b.stored, CASE"
	    " WHEN a.printed IS NULL THEN 0 WHEN a.bytes > a.printed THEN"
	    " a.bytes - a.printed ELSE 0 END AS out FROM ofl.artifact a"
	    " JOIN ofl.blob b ON b.id = a.blob) s"
	    " GROUP BY k ORDER BY k COLLATE \"C\"", NULL, 0,
	    "stats")) == NULL)
		return -1;
	n = (size_t)PQntuples(res);
	list = ofl_xcalloc(n + 1, sizeof *list);
	for (i = 0; i < n; i++) {
		s = &list[i];
		s->group = store_pg_str(res, (int)i, 0);
		if (s->group == NULL)
			s->group = ofl_xstrdup("-");
		s->artifacts = (uint64_t)store_pg_int(res, (int)i, 1);
		s->raw = (uint64_t)store_pg_int(res, (int)i, 2);
		s->stored = (uint64_t)store_pg_int(res, (int)i, 3);
		s->kept_out = (uint64_t)store_pg_int(res, (int)i, 4);
	}
	PQclear(res);
	*out = list;
	*nout = n;
	return 0;
}

/*
 * A lock of the role's by name, on whatever machine: a lock of the
 * session, let go when it ends, however it ends (one gc at a time for a
 * role, one indexer draining).  0, -2 if another session holds it.
 */
int
store_pg_lock(struct ofl_store *st, const char *name, int wait)
{
	struct store_pg_args	 a;
	int64_t			 got = 0;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, PG_LOCK_CLASS);
	store_pg_arg_text(&a, name);
	if (store_pg_value(st, wait ? "SELECT 1 FROM pg_advisory_lock("
	    "$1::int4, hashtext($2 || ' ' || current_user))" :
	    "SELECT pg_try_advisory_lock($1::int4, hashtext($2 || ' ' ||"
	    " current_user))::int", &a, "lock", &got) == -1)
		return -1;
	return got == 1 ? 0 : -2;
}

/*
 * A stamp: a row of the role's settings, "stamp NAME", set in one
 * statement when it is older than secs, so that of the captures of many
 * machines at once only one finds it due.
 */
int
store_pg_stamp(struct ofl_store *st, const char *name, int64_t secs)
{
	struct store_pg_args	 a;
	char			 key[64];
	int64_t			 now = ofl_now_ms(), set = 0;
	int			 rc;

	snprintf(key, sizeof key, "stamp %s", name);
	store_pg_args_init(&a);
	store_pg_arg_text(&a, key);
	store_pg_arg_int(&a, now);
	store_pg_arg_int(&a, now - secs * 1000);
	rc = store_pg_value(st, "INSERT INTO ofl.setting AS s (key, value)"
	    " VALUES ($1, $2::text) ON CONFLICT (owner, key) DO UPDATE SET"
	    " value = excluded.value WHERE CASE WHEN s.value ~"
	    " '^[0-9]{1,18}$' THEN s.value::bigint <= $3 ELSE true END"
	    " RETURNING 1", &a, "stamp", &set);
	if (rc == -1)
		ofl_clearerr();
	return rc != 1;
}

void
store_pg_unlock(struct ofl_store *st, const char *name)
{
	struct store_pg_args	 a;
	int64_t			 got;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, PG_LOCK_CLASS);
	store_pg_arg_text(&a, name);
	(void)store_pg_value(st, "SELECT pg_advisory_unlock($1::int4,"
	    " hashtext($2 || ' ' || current_user))::int", &a, "lock", &got);
}

int
store_pg_gc_brefs(struct ofl_store *st, struct ofl_store_gc_bref **out,
    size_t *nout)
{
	struct ofl_store_gc_bref	*list;
	PGresult			*res;
	size_t				 n, i;

	*out = NULL;
	*nout = 0;
	/* Every artifact, those being written too. */
	if ((res = store_pg_run(st, "SELECT blob, count(*) FROM ofl.artifact"
	    " GROUP BY blob ORDER BY blob", NULL, 0, "gc")) == NULL)
		return -1;
	n = (size_t)PQntuples(res);
	list = ofl_xcalloc(n + 1, sizeof *list);
	for (i = 0; i < n; i++) {
		list[i].blob = store_pg_int(res, (int)i, 0);
		list[i].refs = (int)store_pg_int(res, (int)i, 1);
	}
	PQclear(res);
	*out = list;
	*nout = n;
	return 0;
}

/*
 * Checking: the server keeps the database sound and foreign keys keep the
 * rows whole; what is left is content no artifact uses, each content
 * read back against its hash (gc.c), and the index.
 */

int
store_pg_gc_unused(struct ofl_store *st, struct ofl_store_gc_blob **out,
    size_t *nout)
{
	struct ofl_store_gc_blob	*list;
	PGresult			*res;
	char				 name[32];
	size_t				 n, i;

	*out = NULL;
	*nout = 0;
	if ((res = store_pg_run(st, "SELECT b.id FROM ofl.blob b WHERE NOT"
	    " EXISTS (SELECT 1 FROM ofl.artifact a WHERE a.blob = b.id)"
	    " ORDER BY b.id", NULL, 0, "check")) == NULL)
		return -1;
	n = (size_t)PQntuples(res);
	list = ofl_xcalloc(n + 1, sizeof *list);
	for (i = 0; i < n; i++) {
		list[i].id = store_pg_int(res, (int)i, 0);
		snprintf(name, sizeof name, "row %lld", (long long)list[i].id);
		list[i].file = ofl_xstrdup(name);
	}
	PQclear(res);
	*out = list;
	*nout = n;
	return 0;
}

int
store_pg_gc_contents(struct ofl_store *st, struct ofl_store_gc_content **out,
    size_t *nout)
{
	struct ofl_store_gc_content	*list;
	PGresult			*res;
	size_t				 n, i;

	*out = NULL;
	*nout = 0;
	/* One artifact of each blob: the first stored on it. */
	if ((res = store_pg_run(st, "SELECT DISTINCT ON (a.blob) a.id, b.hash,"
	    " a.state FROM ofl.artifact a JOIN ofl.blob b ON b.id = a.blob"
	    " ORDER BY a.blob, a.seq", NULL, 0, "check")) == NULL)
		return -1;
	n = (size_t)PQntuples(res);
	list = ofl_xcalloc(n + 1, sizeof *list);
	for (i = 0; i < n; i++) {
		snprintf(list[i].id, sizeof list[i].id, "%s",
		    PQgetvalue(res, (int)i, 0));
		list[i].hash = store_pg_str(res, (int)i, 1);
		list[i].state = (int)store_pg_int(res, (int)i, 2);
	}
	PQclear(res);
	*out = list;
	*nout = n;
	return 0;
}

/* In one statement, so one snapshot. */
int
store_pg_gc_index_check(struct ofl_store *st, struct ofl_store_gc_ixcheck *c)
{
	PGresult	*res;

	memset(c, 0, sizeof *c);
	if ((res = store_pg_run(st, "SELECT"
	    " (SELECT count(*) FROM ofl.ix_blob x WHERE NOT EXISTS (SELECT 1"
	    " FROM ofl.artifact a WHERE a.blob = x.blob)),"
	    " (SELECT count(*) FROM ofl.ix_chunk c JOIN ofl.blob b ON"
	    " b.id = c.blob WHERE c.member IS NULL AND c.byte_end > b.bytes),"
	    " (SELECT count(*) FROM (SELECT t.blob, unnest(t.seqs) AS seq FROM"
	    " ofl.ix_term t) p WHERE NOT EXISTS (SELECT 1 FROM ofl.ix_chunk c"
	    " WHERE c.blob = p.blob AND c.seq = p.seq))", NULL, 0,
	    "check")) == NULL)
		return -1;
	c->blobs = store_pg_int(res, 0, 0);
	c->past_end = store_pg_int(res, 0, 1);
	c->fts = store_pg_int(res, 0, 2);
	PQclear(res);
	return 0;
}
