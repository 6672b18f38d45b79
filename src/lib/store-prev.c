/*
 * store-prev.c: the run before: the latest finished artifact that the
 * same command made in the same working directory before a given one,
 * for the notice of a rerun (ofl-capture --changes).
 */
#include "config.h"

#include <string.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

int
ofl_store_previous(struct ofl_store *st, const struct ofl_meta *m,
    char id[OFL_ID_MAX + 1])
{
	sqlite3_stmt	*stmt;
	const char	*s;
	int		 rc;

	STORE_PG(st, store_pg_previous(st, m, id));
	if (m->command == NULL || m->cwd == NULL)
		return 0;
	if (store_prepare(st, "SELECT id FROM artifact WHERE state = 1 AND"
	    " command = ?1 AND cwd = ?2 AND seq < ?3 AND id <> ?4"
	    " ORDER BY seq DESC LIMIT 1", &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, m->command, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, m->cwd, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 3, m->seq);
	sqlite3_bind_text(stmt, 4, m->id, -1, SQLITE_STATIC);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW && (s = (const char *)sqlite3_column_text(stmt,
	    0)) != NULL && strlen(s) <= OFL_ID_MAX) {
		memcpy(id, s, strlen(s) + 1);
		sqlite3_finalize(stmt);
		return 1;
	}
	sqlite3_finalize(stmt);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return 0;
	return store_fail(st, "lookup");
}
