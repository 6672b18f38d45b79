/*
 * store-pg-tmpl.c: the templates of a log cached by the PostgreSQL
 * engine, as store-tmpl.c caches them in SQLite: by content, row 0 of a
 * blob saying it was mined and how many lines it had, rows 1 to n its
 * templates, most frequent first.  They go with their blob (ON DELETE
 * CASCADE), under the owner's row-level security.
 */
#include "config.h"

#include <sys/types.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

int
store_pg_tmpl_get(struct ofl_store *st, int64_t blob,
    struct ofl_fmt_log_tmpl_info **out, size_t *np, uint64_t *lines)
{
	struct store_pg_args		 a;
	struct ofl_fmt_log_tmpl_info	*t = NULL, *o;
	PGresult			*res;
	char				*level;
	int				 r, nr, found = 0;
	size_t				 n = 0;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	if ((res = store_pg_run(st, "SELECT rank::text, tid, count::text,"
	    " first_line::text, last_line::text, level, template FROM"
	    " ofl.log_tmpl WHERE blob = $1 ORDER BY rank", &a, 1,
	    "log templates")) == NULL)
		return -1;
	nr = PQntuples(res);
	if (nr > 1)
		t = ofl_xcalloc((size_t)nr, sizeof(*t));
	for (r = 0; r < nr; r++) {
		if (store_pg_int(res, r, 0) == 0) {
			found = 1;
			*lines = (uint64_t)store_pg_int(res, r, 2);
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
	return 1;
}

/* An element of a text or bytea array as PostgreSQL reads it. */
static void
arr_add(struct ofl_buf *b, const char *s, size_t n, int bytes)
{
	static const char	 hex[] = "0123456789abcdef";
	size_t			 i;

	ofl_buf_addc(b, b->len == 0 ? '{' : ',');
	if (s == NULL) {
		ofl_buf_adds(b, "NULL");
		return;
	}
	ofl_buf_addc(b, '"');
	if (bytes) {
		ofl_buf_adds(b, "\\\\x");
		for (i = 0; i < n; i++) {
			ofl_buf_addc(b, hex[(unsigned char)s[i] >> 4]);
			ofl_buf_addc(b, hex[(unsigned char)s[i] & 15]);
		}
	} else
		for (i = 0; i < n; i++) {
			if (s[i] == '"' || s[i] == '\\')
				ofl_buf_addc(b, '\\');
			ofl_buf_addc(b, s[i]);
		}
	ofl_buf_addc(b, '"');
}

static void
arr_num(struct ofl_buf *b, uint64_t v)
{
	ofl_buf_addc(b, b->len == 0 ? '{' : ',');
	ofl_buf_addf(b, "%" PRIu64, v);
}

/* The templates in place of any, in one transaction. */
int
store_pg_tmpl_put(struct ofl_store *st, int64_t blob,
    const struct ofl_fmt_log_tmpl *m)
{
	const struct ofl_fmt_log_tmpl_info	*t;
	struct store_pg_args			 a, del;
	struct ofl_buf				 v[7];
	size_t					 i, k;
	int					 rv = -1;

	for (k = 0; k < 7; k++)
		ofl_buf_init(&v[k]);
	/* Row 0: mined, and the lines it had. */
	arr_num(&v[0], 0);
	arr_add(&v[1], NULL, 0, 0);
	arr_num(&v[2], ofl_fmt_log_tmpl_lines(m));
	arr_num(&v[3], 0);
	arr_num(&v[4], 0);
	arr_add(&v[5], NULL, 0, 0);
	arr_add(&v[6], NULL, 0, 1);
	for (i = 0; (t = ofl_fmt_log_tmpl_get(m, i)) != NULL; i++) {
		arr_num(&v[0], i + 1);
		arr_add(&v[1], t->id, strlen(t->id), 0);
		arr_num(&v[2], t->count);
		arr_num(&v[3], t->first_line);
		arr_num(&v[4], t->last_line);
		arr_add(&v[5], t->level, t->level != NULL ? strlen(t->level) :
		    0, 0);
		arr_add(&v[6], t->text != NULL ? t->text : "", t->len, 1);
	}
	store_pg_args_init(&a);
	store_pg_arg_int(&a, blob);
	for (k = 0; k < 7; k++) {
		ofl_buf_addc(&v[k], '}');
		store_pg_arg_text(&a, ofl_buf_str(&v[k]));
	}
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
