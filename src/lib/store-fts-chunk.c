/*
 * store-fts-chunk.c: the chunks a hit of the full-text index names: the
 * artifact that holds them, where each lies and its title; the artifacts
 * of a filter that are not indexed yet.
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

/* The artifacts of a filter that are complete, as SQL (store-int.h). */
#define FILTER_SQL	" a.state = 1 AND" STORE_FILTER_SQL

/* The mark for tokenizer t (0: none); UNSETTLED_SQL is store-int.h's. */
#define MARK_SQL(t) \
	"coalesce((SELECT CASE WHEN tokver = " t " THEN seq ELSE 0 END FROM" \
	" ix_mark), 0)"

/*
 * The newest finished artifact of blob that the filter (NULL: any)
 * lets through: 1 and its ID in id, 0 if there is none, -1 on error.
 */
int
ofl_store_fts_blob_art(struct ofl_store *st, int64_t blob,
    const struct ofl_filter *f, char *id, size_t size)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	struct ofl_filter any;
	int		 rc;

	STORE_PG(st, store_pg_fts_blob_art(st, blob, f, id, size));
	if (f == NULL) {
		ofl_filter_init(&any);
		f = &any;
	}
	/* Kept prepared: it runs for each hit, and each content re-read. */
	if (store_stmt(db, "SELECT a.id FROM artifact a WHERE a.blob = ?1 AND"
	    FILTER_SQL " ORDER BY a.seq DESC LIMIT 1", &q) == -1)
		return ix_err(db, "search");
	sqlite3_bind_int64(q, 1, blob);
	store_filter_bind(q, f);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW)
		snprintf(id, size, "%s", (const char *)sqlite3_column_text(q,
		    0));
	store_stmt_done(q);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return ix_err(db, "search");
}

/*
 * The artifacts the filter lets through whose content is not indexed
 * (or only in part), one per content, newest first: cb(id, blob, arg)
 * for each, until it returns non-zero.  Returns how many there are.
 */
int64_t
ofl_store_fts_unindexed(struct ofl_store *st, const struct ofl_filter *f,
    int (*cb)(const char *, int64_t, void *), void *arg)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	int64_t		 n = 0;
	int		 rc, stop = 0;

	STORE_PG(st, store_pg_fts_unindexed(st, f, cb, arg));
	/* Above the mark, and the holes below it (ofl_store_fts_settle()). */
	if (ix_prep(db, "SELECT a.id, a.blob FROM (SELECT seq FROM artifact"
	    " WHERE seq > " MARK_SQL("?6") " UNION SELECT seq FROM ix_hole) c"
	    " JOIN artifact a ON a.seq = c.seq LEFT JOIN ix_blob b ON b.blob ="
	    " a.blob WHERE" FILTER_SQL " AND" UNSETTLED_SQL("?6") " GROUP BY"
	    " a.blob ORDER BY max(a.seq) DESC", &q) == -1)
		return -1;
	sqlite3_bind_int(q, 6, OFL_TOK_VERSION);
	store_filter_bind(q, f);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		n++;
		if (!stop && cb != NULL)
			stop = cb((const char *)sqlite3_column_text(q, 0),
			    sqlite3_column_int64(q, 1), arg);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return ix_err(db, "search");
	return n;
}

/*
 * The mark below which the unindexed are not looked for, so that a
 * background pass and a whole-store search cost what is new rather than
 * the size of the store: every artifact up to ix_mark.seq has its
 * content indexed by the tokenizer ix_mark.tokver, or is a hole (a row
 * of ix_hole): being written, failed, or its content's rows dropped
 * since (ofl_store_fts_forget() makes those).  The indexer moves it up
 * when it has drained the store, in one short write of the index alone
 * that reads the artifacts above it and the holes: the holes that are
 * indexed or gone leave, the artifacts above it that are not become
 * holes.  Another tokenizer's mark is 0: everything is looked at again.
 */
int
ofl_store_fts_settle(struct ofl_store *st)
{
	static const char *const steps[] = {
		/* The index's write lock first, then what the store holds. */
		"DELETE FROM ix_hole WHERE (SELECT tokver FROM ix_mark) != ?1",
		"UPDATE ix_mark SET seq = 0, tokver = ?1 WHERE tokver != ?1",
		"DELETE FROM ix_hole WHERE NOT EXISTS (SELECT 1 FROM artifact a"
		" LEFT JOIN ix_blob b ON b.blob = a.blob WHERE a.seq ="
		" ix_hole.seq AND (a.state != 1 OR" UNSETTLED_SQL("?1") "))",
		"INSERT OR IGNORE INTO ix_hole(seq) SELECT a.seq FROM artifact a"
		" LEFT JOIN ix_blob b ON b.blob = a.blob WHERE a.seq > (SELECT"
		" seq FROM ix_mark) AND (a.state != 1 OR" UNSETTLED_SQL("?1") ")",
		"UPDATE ix_mark SET seq = max(seq, (SELECT coalesce(max(seq), 0)"
		" FROM artifact))",
	};
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	size_t		 i;
	int		 rc;

	STORE_PG(st, 0);	/* a PostgreSQL store looks at every artifact */
	/* Nothing new and no hole: no write. */
	if (ix_prep(db, "SELECT (SELECT coalesce(max(seq), 0) FROM artifact) >"
	    " " MARK_SQL("?1") " OR EXISTS (SELECT 1 FROM ix_hole)", &q) == -1)
		return -1;
	sqlite3_bind_int(q, 1, OFL_TOK_VERSION);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW && sqlite3_column_int(q, 0) == 0)
		rc = SQLITE_DONE;
	sqlite3_finalize(q);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return ix_err(db, "index state");
	if (ix_exec(db, "BEGIN", "database") == -1)
		return -1;
	for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		if (ix_prep(db, steps[i], &q) == -1)
			goto fail;
		sqlite3_bind_int(q, 1, OFL_TOK_VERSION);
		rc = sqlite3_step(q);
		sqlite3_finalize(q);
		if (rc != SQLITE_DONE) {
			ix_err(db, "index state");
			goto fail;
		}
	}
	if (ix_exec(db, "COMMIT", "database") == 0)
		return 0;
fail:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int
ofl_store_fts_chunk(struct ofl_store *st, int64_t blob, int64_t seq,
    struct ofl_fts_row *row)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	int		 rc;

	STORE_PG(st, store_pg_fts_chunk(st, blob, seq, row));
	memset(row, 0, sizeof *row);
	if (sqlite3_prepare_v2(db, "SELECT member, title, byte_start,"
	    " byte_end, line_start, line_end FROM ix_chunk WHERE id = ?1", -1,
	    &q, NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(q, 1, ix_rowid(blob, seq));
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (sqlite3_column_type(q, 0) != SQLITE_NULL)
			row->member = ofl_xstrdup((const char *)
			    sqlite3_column_text(q, 0));
		if (sqlite3_column_type(q, 1) != SQLITE_NULL)
			row->title = ofl_xstrdup((const char *)
			    sqlite3_column_text(q, 1));
		row->byte_start = (uint64_t)sqlite3_column_int64(q, 2);
		row->byte_end = (uint64_t)sqlite3_column_int64(q, 3);
		row->line_start = (uint64_t)sqlite3_column_int64(q, 4);
		row->line_end = (uint64_t)sqlite3_column_int64(q, 5);
	}
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(db));
	return -1;
}

void
ofl_store_fts_row_free(struct ofl_fts_row *row)
{
	free(row->member);
	free(row->title);
	row->member = row->title = NULL;
}

/* Titles of the chunks that hold lines; left NULL where none is found. */
void
ofl_store_fts_titles(struct ofl_store *st, struct ofl_fts_title *t, size_t n)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*q;
	size_t		 i;

	STORE_PG_VOID(st, store_pg_fts_titles(st, t, n));
	if (n == 0 || sqlite3_prepare_v2(db, "SELECT id, title FROM ix_chunk"
	    " WHERE id BETWEEN ?1 AND ?2 AND line_start <= ?3 AND"
	    " line_end >= ?3 ORDER BY id LIMIT 1", -1, &q, NULL) != SQLITE_OK)
		return;
	for (i = 0; i < n; i++) {
		if (t[i].seq >= 0) {
			/* The very chunk, found by its number. */
			sqlite3_bind_int64(q, 1, ix_rowid(t[i].blob, t[i].seq));
			sqlite3_bind_int64(q, 2, ix_rowid(t[i].blob, t[i].seq));
		} else {
			sqlite3_bind_int64(q, 1, ix_rowid(t[i].blob, 0));
			sqlite3_bind_int64(q, 2, ix_rowid(t[i].blob + 1, 0) - 1);
		}
		sqlite3_bind_int64(q, 3, (int64_t)t[i].line);
		if (sqlite3_step(q) == SQLITE_ROW &&
		    sqlite3_column_type(q, 1) != SQLITE_NULL)
			t[i].title = ofl_xstrdup((const char *)
			    sqlite3_column_text(q, 1));
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
}
