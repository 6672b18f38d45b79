/*
 * store-pg-read.c: the PostgreSQL engine's metadata (references, the
 * listing, the run before, changed files) and its reader.  A reader is
 * the SQLite engine's struct ofl_reader with its frames read from the
 * frame table's bytea instead of a blob file: store-read.c seeks, reads
 * and decompresses for both engines, and asks store_pg_fetch() for a
 * frame's compressed bytes.  Row-level security limits every statement
 * to the rows of the connected role.
 */
#include "config.h"

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "pq.h"

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

/* As store-read.c's: while an artifact is written, its frames so far. */
#define PG_META_COLUMNS							\
	"a.id, b.hash, a.seq, a.state, a.incomplete, a.kind,"		\
	" CASE a.state WHEN 0 THEN (SELECT coalesce(sum(raw_len), 0)"	\
	" FROM ofl.frame WHERE blob = a.blob) ELSE a.bytes END,"	\
	" CASE a.state WHEN 0 THEN (SELECT coalesce(sum(nl), 0)"	\
	" FROM ofl.frame WHERE blob = a.blob) ELSE a.lines END,"	\
	" CASE a.state WHEN 0 THEN (SELECT coalesce(sum(comp_len), 0)"	\
	" FROM ofl.frame WHERE blob = a.blob) ELSE b.stored END,"	\
	" a.created, a.used, a.expires, a.label,"			\
	" a.command, a.cwd, a.session, a.exit_status, a.duration_ms,"	\
	" a.errors, a.warnings, a.first_error, a.printed,"		\
	" a.state = 0 AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE"	\
	" l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted AND"	\
	" l.database = (SELECT oid FROM pg_database WHERE"		\
	" datname = current_database()) AND"				\
	" l.classid::bigint = (a.seq >> 32) AND"			\
	" l.objid::bigint = (a.seq & 4294967295))"

/* As ofl_meta_free(), which store-read.c has: it calls this file. */
static void
pg_meta_free(struct ofl_meta *m)
{
	free(m->label);
	free(m->command);
	free(m->cwd);
	free(m->session);
	m->label = m->command = m->cwd = m->session = NULL;
}

static void
pg_meta_row(const PGresult *res, int r, struct ofl_meta *m)
{
	int	k;

	memset(m, 0, sizeof *m);
	snprintf(m->id, sizeof m->id, "%s", PQgetvalue(res, r, 0));
	snprintf(m->hash, sizeof m->hash, "%s", PQgetvalue(res, r, 1));
	m->seq = store_pg_int(res, r, 2);
	m->state = (int)store_pg_int(res, r, 3);
	m->incomplete = (int)store_pg_int(res, r, 4);
	k = ofl_kind_from_name(PQgetvalue(res, r, 5));
	m->kind = k < 0 ? OFL_KIND_TEXT : k;
	m->bytes = (uint64_t)store_pg_int(res, r, 6);
	m->lines = (uint64_t)store_pg_int(res, r, 7);
	m->stored = (uint64_t)store_pg_int(res, r, 8);
	m->created = store_pg_int(res, r, 9);
	m->used = store_pg_int(res, r, 10);
	m->expires = store_pg_int(res, r, 11);
	m->label = store_pg_str(res, r, 12);
	m->command = store_pg_str(res, r, 13);
	m->cwd = store_pg_str(res, r, 14);
	m->session = store_pg_str(res, r, 15);
	m->has_exit = !PQgetisnull(res, r, 16);
	m->exit_status = (int)store_pg_int(res, r, 16);
	m->duration_ms = PQgetisnull(res, r, 17) ? -1 :
	    store_pg_int(res, r, 17);
	m->errors = (uint64_t)store_pg_int(res, r, 18);
	m->warnings = (uint64_t)store_pg_int(res, r, 19);
	m->first_error = (uint64_t)store_pg_int(res, r, 20);
	m->printed = PQgetisnull(res, r, 21) ? -1 : store_pg_int(res, r, 21);
	/* Writing, but no session holds its writer's lock: it died. */
	if (PQgetvalue(res, r, 22)[0] == 't')
		m->incomplete = 1;
}

/* "@" or "@N": the Nth latest artifact. */
static int
pg_resolve_latest(struct ofl_store *st, const char *ref, long long n,
    char id[OFL_ID_MAX + 1])
{
	struct store_pg_args	 a;
	PGresult		*res;
	int			 found;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, n - 1);
	if ((res = store_pg_run(st, "SELECT id FROM ofl.artifact ORDER BY"
	    " seq DESC LIMIT 1 OFFSET $1", &a, 0, "lookup")) == NULL)
		return -1;
	if ((found = PQntuples(res) > 0))
		snprintf(id, OFL_ID_MAX + 1, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	if (!found) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: no such artifact (the store "
		    "holds fewer)", ref);
		return -1;
	}
	return 0;
}

int
store_pg_resolve(struct ofl_store *st, const char *ref,
    char id[OFL_ID_MAX + 1])
{
	struct store_pg_args	 a;
	PGresult		*res;
	char			 lower[OFL_ID_MAX + 2], hi[OFL_ID_MAX + 2];
	const char		*got;
	long long		 latest;
	int			 n, k;

	if (store_ref_parse(ref, &latest, lower, hi) == -1)
		return -1;
	if (latest > 0)
		return pg_resolve_latest(st, ref, latest, id);
	store_pg_args_init(&a);
	store_pg_arg_text(&a, lower);
	store_pg_arg_text(&a, hi);
	/* COLLATE "C": the byte order SQLite compares IDs in. */
	if ((res = store_pg_run(st, "SELECT id FROM ofl.artifact WHERE"
	    " id COLLATE \"C\" >= $1 AND id COLLATE \"C\" < $2"
	    " ORDER BY id COLLATE \"C\" LIMIT 3", &a, 0, "lookup")) == NULL)
		return -1;
	n = PQntuples(res);
	for (k = 0; k < n; k++)
		if (strcmp(PQgetvalue(res, k, 0), lower) == 0)
			break;
	if (k == n && n > 1) {
		ofl_seterr(OFL_EXIT_USAGE, "%s: ambiguous ID prefix (ofl:%s, "
		    "ofl:%s%s)", ref, PQgetvalue(res, 0, 0),
		    PQgetvalue(res, 1, 0), n > 2 ? ", ..." : "");
		PQclear(res);
		return -1;
	}
	if (n == 0) {
		PQclear(res);
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", ref);
		return -1;
	}
	got = PQgetvalue(res, k < n ? k : 0, 0);
	snprintf(id, OFL_ID_MAX + 1, "%s", got);
	PQclear(res);
	return 0;
}

int
store_pg_meta(struct ofl_store *st, const char *id, struct ofl_meta *m)
{
	struct store_pg_args	 a;
	PGresult		*res;
	int			 found;

	store_pg_args_init(&a);
	store_pg_arg_text(&a, id);
	if ((res = store_pg_run(st, "SELECT " PG_META_COLUMNS " FROM"
	    " ofl.artifact a JOIN ofl.blob b ON b.id = a.blob WHERE a.id = $1",
	    &a, 0, "lookup")) == NULL)
		return -1;
	if ((found = PQntuples(res) > 0))
		pg_meta_row(res, 0, m);
	PQclear(res);
	if (!found) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
		return -1;
	}
	return 0;
}

int
store_pg_expired(struct ofl_store *st, int64_t ttl_ms)
{
	struct store_pg_args	 a;
	PGresult		*res;
	int			 found;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, ofl_now_ms());
	store_pg_arg_int(&a, ttl_ms);
	if ((res = store_pg_run(st, "SELECT 1 FROM ofl.artifact WHERE"
	    " state = 1 AND ((expires IS NOT NULL AND expires <= $1) OR"
	    " (expires IS NULL AND $2 > 0 AND created <= $1 - $2)) LIMIT 1",
	    &a, 0, "expiry")) == NULL)
		return 0;
	found = PQntuples(res) > 0;
	PQclear(res);
	return found;
}

void
store_pg_filter_args(struct store_pg_args *a, const struct ofl_filter *f,
    int64_t first)
{
	int64_t	now = ofl_now_ms();

	store_pg_args_init(a);
	store_pg_arg_int(a, first);
	store_pg_arg_text(a, f->label);
	store_pg_arg_text(a, f->session);
	store_pg_arg_text(a, f->kind >= 0 ? ofl_kind_name(f->kind) : NULL);
	store_pg_arg_int(a, f->newer_ms > 0 ? now - f->newer_ms : 0);
	store_pg_arg_int(a, f->older_ms > 0 ? now - f->older_ms : 0);
}

int
store_pg_list(struct ofl_store *st, const struct ofl_filter *f,
    int (*cb)(const struct ofl_meta *, void *), void *arg)
{
	struct store_pg_args	 a;
	struct ofl_meta		 m;
	PGresult		*res;
	int			 r, n;

	store_pg_filter_args(&a, f, f->limit > 0 ? f->limit : -1);
	if ((res = store_pg_run(st, "SELECT " PG_META_COLUMNS " FROM"
	    " ofl.artifact a JOIN ofl.blob b ON b.id = a.blob WHERE"
	    PG_FILTER_SQL " ORDER BY a.seq DESC"
	    " LIMIT CASE WHEN $1::bigint < 0 THEN NULL ELSE $1::bigint END",
	    &a, 0, "list")) == NULL)
		return -1;
	n = PQntuples(res);
	for (r = 0; r < n; r++) {
		pg_meta_row(res, r, &m);
		if (cb(&m, arg) != 0) {
			pg_meta_free(&m);
			r++;
			break;
		}
		pg_meta_free(&m);
	}
	PQclear(res);
	return r;
}

int64_t
store_pg_count(struct ofl_store *st, const struct ofl_filter *f)
{
	struct store_pg_args	 a;
	int64_t			 n = 0;

	store_pg_filter_args(&a, f, 0);
	if (store_pg_value(st, "SELECT count(*), $1::bigint FROM"
	    " ofl.artifact a WHERE" PG_FILTER_SQL, &a, "count", &n) == -1)
		return -1;
	return n;
}

/* Frame row r (columns 0-5) after bytes of content: -1 if unsound. */
static int
pg_frame_row(const PGresult *res, int r, uint64_t bytes, struct frame *f)
{
	int64_t	v[6];
	int	i;

	for (i = 0; i < 6; i++)
		if (PQgetisnull(res, r, i) ||
		    (v[i] = store_pg_int(res, r, i)) < 0)
			return -1;
	f->raw_off = (uint64_t)v[0];
	f->raw_len = (uint64_t)v[1];
	f->line_off = (uint64_t)v[2];
	f->nl = (uint64_t)v[3];
	f->comp_off = (uint64_t)v[4];
	f->comp_len = (uint64_t)v[5];
	if (f->raw_off != bytes || f->raw_len > FRAME_MAX ||
	    f->nl > f->raw_len || f->comp_len == 0 ||
	    f->comp_len > ZSTD_compressBound(FRAME_MAX))
		return -1;
	return 0;
}

static PGresult *
pg_frames(struct ofl_store *st, const char *id)
{
	struct store_pg_args	a;

	store_pg_args_init(&a);
	store_pg_arg_text(&a, id);
	return store_pg_run(st, "SELECT f.raw_off, f.raw_len, f.line_off,"
	    " f.nl, f.comp_off, f.comp_len, a.blob FROM ofl.artifact a"
	    " LEFT JOIN ofl.frame f ON f.blob = a.blob WHERE a.id = $1"
	    " ORDER BY f.raw_off", &a, 0, "read");
}

int
store_pg_frames_good(struct ofl_store *st, const char *id, uint64_t *good)
{
	PGresult	*res;
	struct frame	 f;
	int		 r, n;

	*good = 0;
	if ((res = pg_frames(st, id)) == NULL)
		return -1;
	n = PQntuples(res);
	for (r = 0; r < n; r++) {
		if (PQgetisnull(res, r, 0))
			continue;
		if (pg_frame_row(res, r, *good, &f) == -1)
			break;
		*good += f.raw_len;
	}
	PQclear(res);
	return r < n ? 1 : 0;
}

struct ofl_reader *
store_pg_reader_open(struct ofl_store *st, const char *id)
{
	struct ofl_reader	*r;
	struct frame		*f;
	PGresult		*res = NULL;
	int			 k, n;

	r = ofl_xcalloc(1, sizeof *r);
	r->st = st;
	r->fd = -1;
	r->cur = -1;
	if (store_pg_meta(st, id, &r->meta) == -1 ||
	    (res = pg_frames(st, id)) == NULL)
		goto fail;
	if ((n = PQntuples(res)) == 0) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
		goto fail;
	}
	r->blob = store_pg_int(res, 0, 6);
	for (k = 0; k < n; k++) {
		if (PQgetisnull(res, k, 0))
			continue;
		r->frames = ofl_xrealloc(r->frames,
		    (r->nframes + 1) * sizeof *r->frames);
		f = &r->frames[r->nframes++];
		if (pg_frame_row(res, k, r->bytes, f) == -1) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: frame table is "
			    "damaged", id);
			goto fail;
		}
		r->bytes += f->raw_len;
		r->newlines += f->nl;
	}
	PQclear(res);
	if (r->meta.state != OFL_STATE_COMPLETE) {
		r->meta.bytes = r->bytes;
		r->meta.lines = r->newlines;
	}
	return r;
fail:
	PQclear(res);
	pg_meta_free(&r->meta);
	free(r->frames);
	free(r);
	return NULL;
}

int
store_pg_fetch(struct ofl_reader *r, size_t k)
{
	struct store_pg_args	 a;
	struct frame		*f = &r->frames[k];
	PGresult		*res;
	int			 ok;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, r->blob);
	store_pg_arg_int(&a, (int64_t)f->raw_off);
	if ((res = store_pg_run(r->st, "SELECT data FROM ofl.frame WHERE"
	    " blob = $1 AND raw_off = $2", &a, 1, "read")) == NULL)
		return -1;
	ok = PQntuples(res) == 1 &&
	    (uint64_t)PQgetlength(res, 0, 0) == f->comp_len;
	if (ok) {
		if (r->ccap < f->comp_len) {
			r->cbuf = ofl_xrealloc(r->cbuf, f->comp_len);
			r->ccap = f->comp_len;
		}
		memcpy(r->cbuf, PQgetvalue(res, 0, 0), f->comp_len);
	} else
		ofl_seterr(OFL_EXIT_FAIL, "%s: content truncated or "
		    "unreadable", r->meta.id);
	PQclear(res);
	return ok ? 0 : -1;
}

int
store_pg_previous(struct ofl_store *st, const struct ofl_meta *m,
    char id[OFL_ID_MAX + 1])
{
	struct store_pg_args	 a;
	PGresult		*res;
	int			 found;

	if (m->command == NULL || m->cwd == NULL)
		return 0;
	store_pg_args_init(&a);
	store_pg_arg_text(&a, m->command);
	store_pg_arg_text(&a, m->cwd);
	store_pg_arg_int(&a, m->seq);
	store_pg_arg_text(&a, m->id);
	if ((res = store_pg_run(st, "SELECT id FROM ofl.artifact WHERE"
	    " state = 1 AND command = $1 AND cwd = $2 AND seq < $3 AND"
	    " id <> $4 ORDER BY seq DESC LIMIT 1", &a, 0, "lookup")) == NULL)
		return -1;
	found = PQntuples(res) > 0 &&
	    strlen(PQgetvalue(res, 0, 0)) <= OFL_ID_MAX;
	if (found)
		snprintf(id, OFL_ID_MAX + 1, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	return found;
}

int
store_pg_changed(struct ofl_store *st, const char *id,
    struct ofl_changed *ch)
{
	struct store_pg_args	 a;
	PGresult		*res;

	memset(ch, 0, sizeof *ch);
	store_pg_args_init(&a);
	store_pg_arg_text(&a, id);
	if ((res = store_pg_run(st, "SELECT files FROM ofl.changed WHERE"
	    " id = $1", &a, 0, "changed files")) == NULL)
		return -1;
	if (PQntuples(res) > 0)
		ofl_changed_split(ch, PQgetvalue(res, 0, 0),
		    (size_t)PQgetlength(res, 0, 0));
	PQclear(res);
	return 0;
}
