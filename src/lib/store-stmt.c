/*
 * store-stmt.c: statements kept prepared between calls, for the helpers
 * of the store that run one statement many times over.
 */
#include "config.h"

#include <sys/types.h>

#include <pthread.h>
#include <string.h>

#include <sqlite3.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

#define STMT_KEPT	48		/* statements kept prepared */

/*
 * Statements kept prepared, for the helpers that run one statement many
 * times over (a gc removes thousands of artifacts, each with a few
 * deletes): preparing one costs more than running it.  Keyed by the
 * connection and the address of the SQL text, which should be a literal
 * (the text is compared too: a buffer that says something else by now
 * gets a statement of its own), each in use by one caller at a time;
 * when all are taken, a statement is prepared as before and finalized
 * when done.  A connection's go before it closes.
 */
static struct kept {
	sqlite3		*db;
	const char	*sql;
	sqlite3_stmt	*s;
	int		 busy;
}			kept[STMT_KEPT];
static pthread_mutex_t	kept_mu = PTHREAD_MUTEX_INITIALIZER;

int
store_stmt(sqlite3 *db, const char *sql, sqlite3_stmt **s)
{
	size_t	i, free_at = STMT_KEPT;

	pthread_mutex_lock(&kept_mu);
	for (i = 0; i < STMT_KEPT; i++) {
		if (kept[i].db == db && kept[i].sql == sql && !kept[i].busy &&
		    strcmp(sqlite3_sql(kept[i].s), sql) == 0) {
			kept[i].busy = 1;
			*s = kept[i].s;
			pthread_mutex_unlock(&kept_mu);
			return 0;
		}
		if (kept[i].db == NULL && free_at == STMT_KEPT)
			free_at = i;
	}
	pthread_mutex_unlock(&kept_mu);
	if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK) {
		*s = NULL;
		return -1;
	}
	pthread_mutex_lock(&kept_mu);
	if (free_at < STMT_KEPT && kept[free_at].db == NULL) {
		kept[free_at].db = db;
		kept[free_at].sql = sql;
		kept[free_at].s = *s;
		kept[free_at].busy = 1;
	}
	pthread_mutex_unlock(&kept_mu);
	return 0;
}

/* Done with a statement of store_stmt: reset if kept, else finalized. */
void
store_stmt_done(sqlite3_stmt *s)
{
	size_t	i;

	if (s == NULL)
		return;
	pthread_mutex_lock(&kept_mu);
	for (i = 0; i < STMT_KEPT; i++)
		if (kept[i].s == s) {
			sqlite3_reset(s);
			sqlite3_clear_bindings(s);
			kept[i].busy = 0;
			pthread_mutex_unlock(&kept_mu);
			return;
		}
	pthread_mutex_unlock(&kept_mu);
	sqlite3_finalize(s);
}

void
store_stmt_forget(sqlite3 *db)
{
	size_t	i;

	pthread_mutex_lock(&kept_mu);
	for (i = 0; i < STMT_KEPT; i++)
		if (kept[i].db == db) {
			sqlite3_finalize(kept[i].s);
			memset(&kept[i], 0, sizeof kept[i]);
		}
	pthread_mutex_unlock(&kept_mu);
}
