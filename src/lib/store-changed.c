/*
 * store-changed.c: the files changed in the work tree of a capture (see
 * changed.c), kept beside the artifact in a table of their own, made
 * when first written so that older stores need no new schema.  A row
 * whose artifact is gone is dropped at the next write.
 */
#include "config.h"

#include <sys/types.h>

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

#define CHANGED_SQL	"CREATE TABLE IF NOT EXISTS changed ("		\
			" id TEXT PRIMARY KEY, files TEXT NOT NULL)"	\
			" WITHOUT ROWID"

/* Record ch for artifact id: its paths, one a line. */
int
ofl_store_changed_set(struct ofl_store *st, const char *id,
    const struct ofl_changed *ch)
{
	sqlite3_stmt	*stmt = NULL;
	struct ofl_buf	 b;
	int		 rv = -1;

	STORE_PG(st, store_pg_changed_set(st, id, ch));
	if (ch->n == 0)
		return 0;
	ofl_buf_init(&b);
	ofl_changed_join(ch, &b);
	if (store_exec(st, CHANGED_SQL) == -1 ||
	    store_exec(st, "DELETE FROM changed WHERE id NOT IN"
	    " (SELECT id FROM artifact)") == -1 ||
	    store_prepare(st, "INSERT OR REPLACE INTO changed (id, files)"
	    " VALUES (?1, ?2)", &stmt) == -1)
		goto out;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, ofl_buf_str(&b), (int)b.len,
	    SQLITE_STATIC);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		store_fail(st, "changed files");
		goto out;
	}
	rv = 0;
out:
	sqlite3_finalize(stmt);
	ofl_buf_free(&b);
	return rv;
}

/* The changed files of artifact id; none if it has no record. */
int
ofl_store_changed(struct ofl_store *st, const char *id,
    struct ofl_changed *ch)
{
	sqlite3_stmt		*stmt;
	const unsigned char	*s;

	STORE_PG(st, store_pg_changed(st, id, ch));
	memset(ch, 0, sizeof *ch);
	/* No table: nothing was recorded. */
	if (sqlite3_prepare_v2(st->db, "SELECT files FROM changed WHERE"
	    " id = ?1", -1, &stmt, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) == SQLITE_ROW &&
	    (s = sqlite3_column_text(stmt, 0)) != NULL)
		ofl_changed_split(ch, (const char *)s,
		    (size_t)sqlite3_column_bytes(stmt, 0));
	sqlite3_finalize(stmt);
	return 0;
}
