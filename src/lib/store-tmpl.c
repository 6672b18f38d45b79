/*
 * store-tmpl.c: the templates of a log, cached in the store.  They are
 * mined once (schema-log.c, when a log is indexed or first described)
 * and kept by content, like the index: artifacts with the same bytes
 * share them, and they go with their blob (store-gc.c).  Row 0 of a blob
 * says that it was mined, by which version of the miner (its tid), how
 * many lines it had (count) and how many templates (first_line; 0 from
 * an ofl that kept them all); rows 1 to n are its templates, most
 * frequent first, those that tmpl_kept() keeps (store-int.h).
 * Templates of another version are mined again.  A log under
 * OFL_TMPL_KEEP bytes keeps none: mining it again when asked costs less
 * than its rows, of which a log of free text has about one a line.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

/*
 * The cached templates of an artifact: 1 with *out (n of them) and the
 * lines mined; 0 when none are cached (or the store predates them); -1
 * on an error.
 */
int
ofl_store_tmpl_get(struct ofl_store *st, const char *id,
    struct ofl_fmt_log_tmpl_info **out, size_t *np, size_t *total,
    uint64_t *lines)
{
	struct ofl_fmt_log_tmpl_info	*t = NULL, *o;
	sqlite3_stmt			*stmt;
	const void			*tx;
	size_t				 n = 0, cap = 0;
	int64_t				 blob;
	int				 rc, found = 0;

	*out = NULL;
	*np = 0;
	*total = 0;
	*lines = 0;
	if ((blob = ofl_store_blob(st, id)) < 0)
		return -1;
	STORE_PG(st, store_pg_tmpl_get(st, blob, out, np, total, lines));
	if (sqlite3_prepare_v2(st->db, "SELECT rank, tid, count, first_line,"
	    " last_line, level, template FROM log_tmpl WHERE blob = ?1"
	    " ORDER BY rank", -1, &stmt, NULL) != SQLITE_OK)
		return 0;	/* a store of schema 1, read-only */
	sqlite3_bind_int64(stmt, 1, blob);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (sqlite3_column_int64(stmt, 0) == 0) {
			tx = sqlite3_column_text(stmt, 1);
			found = tx != NULL &&
			    strcmp((const char *)tx, OFL_TMPL_VERSION) == 0;
			*lines = (uint64_t)sqlite3_column_int64(stmt, 2);
			*total = (size_t)sqlite3_column_int64(stmt, 3);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			t = ofl_xrealloc(t, cap * sizeof(*t));
		}
		o = &t[n++];
		memset(o, 0, sizeof(*o));
		snprintf(o->id, sizeof(o->id), "%s",
		    (const char *)sqlite3_column_text(stmt, 1));
		o->count = (uint64_t)sqlite3_column_int64(stmt, 2);
		o->first_line = (uint64_t)sqlite3_column_int64(stmt, 3);
		o->last_line = (uint64_t)sqlite3_column_int64(stmt, 4);
		o->level = ofl_fmt_log_tmpl_level(
		    (const char *)sqlite3_column_text(stmt, 5));
		tx = sqlite3_column_blob(stmt, 6);
		o->len = (size_t)sqlite3_column_bytes(stmt, 6);
		o->text = ofl_xmalloc(o->len + 1);
		if (o->len > 0)
			memcpy(o->text, tx, o->len);
		o->text[o->len] = '\0';
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		ofl_store_tmpl_free(t, n);
		return store_fail(st, "log templates");
	}
	if (!found) {
		ofl_store_tmpl_free(t, n);
		return 0;
	}
	*out = t;
	*np = n;
	if (*total < n)
		*total = n;
	return 1;
}

void
ofl_store_tmpl_free(struct ofl_fmt_log_tmpl_info *t, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(t[i].text);
	free(t);
}

static int
put_row(sqlite3_stmt *stmt, int64_t blob, int64_t rank,
    const struct ofl_fmt_log_tmpl_info *t)
{
	sqlite3_reset(stmt);
	sqlite3_bind_int64(stmt, 1, blob);
	sqlite3_bind_int64(stmt, 2, rank);
	sqlite3_bind_text(stmt, 3, t->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 4, (int64_t)t->count);
	sqlite3_bind_int64(stmt, 5, (int64_t)t->first_line);
	sqlite3_bind_int64(stmt, 6, (int64_t)t->last_line);
	if (t->level != NULL)
		sqlite3_bind_text(stmt, 7, t->level, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(stmt, 7);
	if (t->text != NULL)
		sqlite3_bind_blob(stmt, 8, t->text, (int)t->len,
		    SQLITE_STATIC);
	else
		sqlite3_bind_null(stmt, 8);
	return sqlite3_step(stmt) == SQLITE_DONE ? 0 : -1;
}

#define KEEP_FROM	(64 * 1024)	/* a log from this size keeps its own */

int
ofl_store_tmpl_kept(uint64_t bytes)
{
	const char	*e = getenv("OFL_TMPL_KEEP");
	uint64_t	 from = KEEP_FROM;

	if (e != NULL && *e != '\0' && ofl_parse_size(e, &from) == -1)
		from = KEEP_FROM;
	return bytes >= from;
}

/*
 * Cache the templates of a finished miner for an artifact's content, in
 * place of any.  Nothing is done (and 0 returned) on a read-only store,
 * nor for a log too small for them to be kept.
 */
int
ofl_store_tmpl_put(struct ofl_store *st, const char *id,
    const struct ofl_fmt_log_tmpl *m)
{
	const struct ofl_fmt_log_tmpl_info	*t;
	struct ofl_fmt_log_tmpl_info		 head;
	struct ofl_meta				 meta;
	sqlite3_stmt				*del = NULL, *ins = NULL;
	int64_t					 blob;
	size_t					 i, n;
	int					 keep, rv = -1;

	if (!st->rdwr)
		return 0;
	if (ofl_store_meta(st, id, &meta) == -1)
		return -1;
	keep = ofl_store_tmpl_kept(meta.bytes);
	ofl_meta_free(&meta);
	if (!keep)
		return 0;
	if ((blob = ofl_store_blob(st, id)) < 0)
		return -1;
	STORE_PG(st, store_pg_tmpl_put(st, blob, m));
	if (store_prepare(st, "DELETE FROM log_tmpl WHERE blob = ?1",
	    &del) == -1 ||
	    store_prepare(st, "INSERT INTO log_tmpl (blob, rank, tid, count,"
	    " first_line, last_line, level, template) VALUES (?1, ?2, ?3,"
	    " ?4, ?5, ?6, ?7, ?8)", &ins) == -1)
		goto out;
	if (ofl_store_begin(st) == -1)
		goto out;
	sqlite3_bind_int64(del, 1, blob);
	memset(&head, 0, sizeof(head));
	snprintf(head.id, sizeof(head.id), "%s", OFL_TMPL_VERSION);
	head.count = ofl_fmt_log_tmpl_lines(m);
	head.first_line = n = ofl_fmt_log_tmpl_count(m);
	if (sqlite3_step(del) != SQLITE_DONE ||
	    put_row(ins, blob, 0, &head) == -1)
		goto fail;
	for (i = 0; (t = ofl_fmt_log_tmpl_get(m, i)) != NULL; i++)
		if (tmpl_kept(i, n) &&
		    put_row(ins, blob, (int64_t)i + 1, t) == -1)
			goto fail;
	if (ofl_store_commit(st) == -1)
		goto fail;
	rv = 0;
	goto out;
fail:
	store_fail(st, "log templates");
	ofl_store_rollback(st);
out:
	sqlite3_finalize(del);
	sqlite3_finalize(ins);
	return rv;
}
