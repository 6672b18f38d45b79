/*
 * store-pg-tmpl.c: the templates of a log cached by the PostgreSQL
 * engine, as store-tmpl.c caches them in SQLite: by content, row 0 of a
 * blob saying it was mined and how many lines and templates it had,
 * rows 1 to n its templates, most frequent first, those tmpl_kept()
 * keeps.  They go with their blob (ON DELETE CASCADE), under the
 * owner's row-level security.
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
store_pg_tmpl_get(struct ofl_store *st, int64_t blob,
    struct ofl_fmt_log_tmpl_info **out, size_t *np, size_t *total,
    uint64_t *lines)
{
	struct store_pg_args		 a;
	struct ofl_fmt_log_tmpl_info	*t = NULL, *o;
	PGresult			*res;
	char				*level;
	int				 r, nr, found = 0;
	size_t				 n = 0;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	/* t.rank: "rank" alone is the text of the list's first column. */
	if ((res = store_pg_run(st, "SELECT rank::text, tid, count::text,"
	    " first_line::text, last_line::text, level, template FROM"
	    " ofl.log_tmpl t WHERE blob = $1 ORDER BY t.rank", &a, 1,
	    "log templates")) == NULL)
		return -1;
	nr = PQntuples(res);
	if (nr > 1)
		t = ofl_xcalloc((size_t)nr, sizeof(*t));
	for (r = 0; r < nr; r++) {
		if (store_pg_int(res, r, 0) == 0) {
			found = strcmp(PQgetvalue(res, r, 1),
			    OFL_TMPL_VERSION) == 0;
			*lines = (uint64_t)store_pg_int(res, r, 2);
			*total = (size_t)store_pg_int(res, r, 3);
			continue;
		}
		o = &t[n++];
		snprintf(o->id, sizeof(o->id), "%s", PQgetvalue(res, r, 1));
		o->count = (uint64_t)store_pg_int(res, r, 2);
		o->first_line = (uint64_t)store_pg_int(res, r, 3);
		o->last_line = (uint64_t)store_pg_int(res, r, 4);
		level = store_pg_str(res, r, 5);
		o->level = ofl_fmt_log_tmpl_level(level);
		free(level);
		o->len = (size_t)PQgetlength(res, r, 6);
		o->text = ofl_xmalloc(o->len + 1);
		memcpy(o->text, PQgetvalue(res, r, 6), o->len);
		o->text[o->len] = '\0';
	}
	PQclear(res);
	if (!found) {
		while (n > 0)
			free(t[--n].text);
		free(t);
		return 0;
	}
	*out = t;
	*np = n;
	if (*total < n)
		*total = n;
	return 1;
}

/* The templates in place of any, in one transaction. */
int
store_pg_tmpl_put(struct ofl_store *st, int64_t blob,
    const struct ofl_fmt_log_tmpl *m)
{
	const struct ofl_fmt_log_tmpl_info	*t;
	struct store_pg_args			 a, del;
	struct ofl_buf				 v[7];
	size_t					 i, k, n;
	int					 rv = -1;

	for (k = 0; k < 7; k++)
		ofl_buf_init(&v[k]);
	/* Row 0: mined, by which miner, the lines and templates it had. */
	n = ofl_fmt_log_tmpl_count(m);
	store_pg_arr_int(&v[0], 0);
	store_pg_arr_text(&v[1], OFL_TMPL_VERSION);
	store_pg_arr_int(&v[2], (int64_t)ofl_fmt_log_tmpl_lines(m));
	store_pg_arr_int(&v[3], (int64_t)n);
	store_pg_arr_int(&v[4], 0);
	store_pg_arr_text(&v[5], NULL);
	store_pg_arr_bytes(&v[6], NULL, 0);
	for (i = 0; (t = ofl_fmt_log_tmpl_get(m, i)) != NULL; i++) {
		if (!tmpl_kept(i, n))
			continue;
		store_pg_arr_int(&v[0], (int64_t)i + 1);
		store_pg_arr_text(&v[1], t->id);
		store_pg_arr_int(&v[2], (int64_t)t->count);
		store_pg_arr_int(&v[3], (int64_t)t->first_line);
		store_pg_arr_int(&v[4], (int64_t)t->last_line);
		store_pg_arr_text(&v[5], t->level);
		store_pg_arr_bytes(&v[6], t->text != NULL ? t->text : "", t->len);
	}
	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	for (k = 0; k < 7; k++)
		store_pg_arg_text(&a, store_pg_arr_end(&v[k]));
	store_pg_args_init(&del);
	store_pg_arg_int(&del, blob);
	if (ofl_store_begin(st) == -1)
		goto out;
	if (store_pg_do(st, "DELETE FROM ofl.log_tmpl WHERE blob = $1", &del,
	    "log templates") == -1 ||
	    store_pg_do(st, "INSERT INTO ofl.log_tmpl (blob, rank, tid, count,"
	    " first_line, last_line, level, template) SELECT $1, * FROM"
	    " unnest($2::int[], $3::text[], $4::bigint[], $5::bigint[],"
	    " $6::bigint[], $7::text[], $8::bytea[])", &a,
	    "log templates") == -1 ||
	    ofl_store_commit(st) == -1) {
		ofl_store_rollback(st);
		goto out;
	}
	rv = 0;
out:
	for (k = 0; k < 7; k++)
		ofl_buf_free(&v[k]);
	return rv;
}
