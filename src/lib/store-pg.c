/*
 * store-pg.c: the PostgreSQL engine of the store: connecting, the
 * schema and its migrations, statements, settings and size.
 *
 * A store named by a URL, postgresql://... or postgres://..., is a
 * PostgreSQL database reached with libpq (the URL goes to PQconnectdb()
 * as it is, so libpq's own parameters, ~/.pgpass and PG* variables
 * apply).  Its tables live in the schema "ofl":
 *
 *	version		one row: the schema's version
 *	blob		a content, shared by the artifacts with its bytes
 *	frame		the content as zstd frames (bytea), as in blob files
 *	artifact	the artifacts, as in SQLite
 *	setting		settings, each role its own
 *	changed		the changed files recorded with an artifact
 *	ix_blob, ix_chunk, ix_term	the full-text index (store-pg-fts.c)
 *	log_tmpl	the templates of logs (store-pg-tmpl.c)
 *
 * Who sees what: every row carries its owner, the role that wrote it
 * (current_user), and row-level security, enabled and forced on every
 * table, lets a role see and change only its own rows.  So many users
 * share one database, each under a role of their own, and one user's
 * artifacts, content and settings are out of another's reach; content
 * is shared only between artifacts of one owner.  A superuser or a role
 * with BYPASSRLS sees everything: that is the role for a fleet's expiry.
 *
 * Locks are PostgreSQL's advisory locks, never files: the schema is
 * made under a transaction lock, and a writer holds a session lock on
 * its artifact's number until it finishes, so that a writer whose
 * session is gone (its process or machine died) is found by taking
 * that lock (store_pg_recover()).
 */
#include "config.h"

#include <sys/types.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pq.h"

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

#define PG_SCHEMA_VERSION	3

struct store_pg {
	PGconn		*conn;
	char		*shown;		/* the URL, its password masked */
	int		 tx;		/* in ofl_store_begin() */
};

/* The schema, version by version: step i makes version i + 1. */
static const char *pg_steps[PG_SCHEMA_VERSION] = {
	"CREATE SCHEMA IF NOT EXISTS ofl;"
	"CREATE TABLE ofl.version (version integer NOT NULL);"
	"INSERT INTO ofl.version VALUES (0);"
	"CREATE TABLE ofl.blob ("
	" id bigserial PRIMARY KEY,"
	" owner name NOT NULL DEFAULT current_user,"
	" hash text,"
	" bytes bigint NOT NULL DEFAULT 0,"
	" lines bigint NOT NULL DEFAULT 0,"
	" stored bigint NOT NULL DEFAULT 0,"
	" created bigint NOT NULL);"
	"CREATE UNIQUE INDEX blob_hash ON ofl.blob (owner, hash);"
	"CREATE TABLE ofl.frame ("
	" blob bigint NOT NULL REFERENCES ofl.blob (id) ON DELETE CASCADE,"
	" owner name NOT NULL DEFAULT current_user,"
	" raw_off bigint NOT NULL,"
	" raw_len bigint NOT NULL,"
	" line_off bigint NOT NULL,"
	" nl bigint NOT NULL,"
	" comp_off bigint NOT NULL,"
	" comp_len bigint NOT NULL,"
	" data bytea NOT NULL,"
	" PRIMARY KEY (blob, raw_off));"
	/* zstd frames: no second compression by TOAST. */
	"ALTER TABLE ofl.frame ALTER COLUMN data SET STORAGE EXTERNAL;"
	"CREATE TABLE ofl.artifact ("
	" seq bigserial PRIMARY KEY,"
	" id text NOT NULL UNIQUE,"
	" owner name NOT NULL DEFAULT current_user,"
	" blob bigint NOT NULL REFERENCES ofl.blob (id),"
	" state integer NOT NULL,"
	" incomplete integer NOT NULL DEFAULT 0,"
	" kind text NOT NULL DEFAULT 'text',"
	" bytes bigint NOT NULL DEFAULT 0,"
	" lines bigint NOT NULL DEFAULT 0,"
	" created bigint NOT NULL,"
	" used bigint NOT NULL,"
	" expires bigint,"
	" label text,"
	" command text,"
	" cwd text,"
	" session text,"
	" exit_status integer,"
	" duration_ms bigint,"
	" errors bigint NOT NULL DEFAULT 0,"
	" warnings bigint NOT NULL DEFAULT 0,"
	" first_error bigint NOT NULL DEFAULT 0,"
	" printed bigint);"
	"CREATE INDEX artifact_blob ON ofl.artifact (blob);"
	"CREATE INDEX artifact_used ON ofl.artifact (used);"
	"CREATE INDEX artifact_owner ON ofl.artifact (owner, seq);"
	"CREATE INDEX artifact_writing ON ofl.artifact (state)"
	" WHERE state = 0;"
	"CREATE TABLE ofl.setting ("
	" owner name NOT NULL DEFAULT current_user,"
	" key text NOT NULL,"
	" value text,"
	" PRIMARY KEY (owner, key));"
	"CREATE TABLE ofl.changed ("
	" id text PRIMARY KEY REFERENCES ofl.artifact (id) ON DELETE CASCADE,"
	" owner name NOT NULL DEFAULT current_user,"
	" files text NOT NULL);"
	"DO $$ DECLARE t text; BEGIN"
	" FOREACH t IN ARRAY ARRAY['blob', 'frame', 'artifact', 'setting',"
	" 'changed'] LOOP"
	"  EXECUTE format('ALTER TABLE ofl.%I ENABLE ROW LEVEL SECURITY', t);"
	"  EXECUTE format('ALTER TABLE ofl.%I FORCE ROW LEVEL SECURITY', t);"
	"  EXECUTE format('CREATE POLICY own ON ofl.%I USING"
	"   (owner = current_user) WITH CHECK (owner = current_user)', t);"
	"  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ofl.%I"
	"   TO PUBLIC', t);"
	" END LOOP; END $$;"
	"GRANT USAGE ON SCHEMA ofl TO PUBLIC;"
	"GRANT SELECT ON ofl.version TO PUBLIC;"
	"GRANT USAGE ON SEQUENCE ofl.blob_id_seq, ofl.artifact_seq_seq"
	" TO PUBLIC;",
	/* 2: pins (ofl-gc --pin). */
	"ALTER TABLE ofl.artifact ADD COLUMN pinned boolean NOT NULL"
	" DEFAULT false;",
	/*
	 * 3: the full-text index (store-pg-fts.c).  A row of it may name
	 * only a content its role can see, so that nobody can take the
	 * place of another's rows; a posting is seen with its ix_blob.
	 */
	"CREATE TABLE ofl.ix_blob ("
	" blob bigint PRIMARY KEY REFERENCES ofl.blob (id) ON DELETE CASCADE,"
	" owner name NOT NULL DEFAULT current_user,"
	" state integer NOT NULL DEFAULT 0,"
	" next_seq integer NOT NULL DEFAULT 0,"
	" tokver integer NOT NULL,"
	" bytes bigint NOT NULL DEFAULT 0,"
	" truncated integer NOT NULL DEFAULT 0,"
	" finished bigint,"
	" ixsize bigint NOT NULL DEFAULT 0);"	/* its rows' bytes */
	"CREATE TABLE ofl.ix_chunk ("
	" blob bigint NOT NULL REFERENCES ofl.ix_blob (blob)"
	"  ON DELETE CASCADE,"
	" owner name NOT NULL DEFAULT current_user,"
	" seq integer NOT NULL,"
	" member bytea,"
	" title bytea,"
	" body bytea NOT NULL,"
	" byte_start bigint NOT NULL,"
	" byte_end bigint NOT NULL,"
	" line_start bigint NOT NULL,"
	" line_end bigint NOT NULL,"
	" PRIMARY KEY (blob, seq));"
	"CREATE TABLE ofl.ix_term ("
	" term bytea NOT NULL,"
	" blob bigint NOT NULL REFERENCES ofl.ix_blob (blob)"
	"  ON DELETE CASCADE,"
	" first integer NOT NULL,"		/* the batch's first chunk */
	" seqs integer[] NOT NULL,"		/* the chunks that hold it */
	" PRIMARY KEY (term, blob, first));"
	"CREATE INDEX ix_term_blob ON ofl.ix_term (blob);"
	/* zstd frames: no second compression by TOAST. */
	"ALTER TABLE ofl.ix_chunk ALTER COLUMN body SET STORAGE EXTERNAL;"
	"ALTER TABLE ofl.ix_blob ENABLE ROW LEVEL SECURITY;"
	"ALTER TABLE ofl.ix_blob FORCE ROW LEVEL SECURITY;"
	"CREATE POLICY own ON ofl.ix_blob USING (owner = current_user)"
	" WITH CHECK (owner = current_user AND EXISTS (SELECT 1 FROM"
	" ofl.blob b WHERE b.id = ix_blob.blob));"
	"ALTER TABLE ofl.ix_chunk ENABLE ROW LEVEL SECURITY;"
	"ALTER TABLE ofl.ix_chunk FORCE ROW LEVEL SECURITY;"
	"CREATE POLICY own ON ofl.ix_chunk USING (owner = current_user)"
	" WITH CHECK (owner = current_user AND EXISTS (SELECT 1 FROM"
	" ofl.ix_blob b WHERE b.blob = ix_chunk.blob));"
	"ALTER TABLE ofl.ix_term ENABLE ROW LEVEL SECURITY;"
	"ALTER TABLE ofl.ix_term FORCE ROW LEVEL SECURITY;"
	"CREATE POLICY own ON ofl.ix_term USING (EXISTS (SELECT 1 FROM"
	" ofl.ix_blob b WHERE b.blob = ix_term.blob));"
	"GRANT SELECT, INSERT, UPDATE, DELETE ON ofl.ix_blob, ofl.ix_chunk,"
	" ofl.ix_term TO PUBLIC;"
	/* The templates of logs, by content (store-pg-tmpl.c). */
	"CREATE TABLE ofl.log_tmpl ("
	" blob bigint NOT NULL REFERENCES ofl.blob (id) ON DELETE CASCADE,"
	" owner name NOT NULL DEFAULT current_user,"
	" rank integer NOT NULL,"
	" tid text,"
	" count bigint NOT NULL,"
	" first_line bigint NOT NULL,"
	" last_line bigint NOT NULL,"
	" level text,"
	" template bytea,"
	" PRIMARY KEY (blob, rank));"
	"ALTER TABLE ofl.log_tmpl ENABLE ROW LEVEL SECURITY;"
	"ALTER TABLE ofl.log_tmpl FORCE ROW LEVEL SECURITY;"
	"CREATE POLICY own ON ofl.log_tmpl USING (owner = current_user)"
	" WITH CHECK (owner = current_user AND EXISTS (SELECT 1 FROM"
	" ofl.blob b WHERE b.id = log_tmpl.blob));"
	"GRANT SELECT, INSERT, UPDATE, DELETE ON ofl.log_tmpl TO PUBLIC;"
};

static int	 pg_fail(struct ofl_store *, const char *, const PGresult *);
static int	 pg_version(struct ofl_store *, int *);
static int	 pg_schema(struct ofl_store *);
static char	*pg_mask(const char *);
static void	 pg_quiet(void *, const char *);

int
store_pg_url(const char *s)
{
	return strncmp(s, "postgresql://", 13) == 0 ||
	    strncmp(s, "postgres://", 11) == 0;
}

/* The URL with the password of its user information, if any, masked. */
static char *
pg_mask(const char *url)
{
	struct ofl_buf	 b;
	const char	*p, *end, *at, *colon;

	p = strstr(url, "://") + 3;
	end = p + strcspn(p, "/?#");
	at = memchr(p, '@', (size_t)(end - p));
	colon = at != NULL ? memchr(p, ':', (size_t)(at - p)) : NULL;
	if (colon == NULL)
		return ofl_xstrdup(url);
	ofl_buf_init(&b);
	ofl_buf_add(&b, url, (size_t)(colon + 1 - url));
	ofl_buf_adds(&b, "***");
	ofl_buf_adds(&b, at);
	return ofl_buf_str(&b);
}

const char *
store_pg_shown(struct ofl_store *st)
{
	return st->pg->shown;
}

/* The server's or libpq's message, its first line. */
static int
pg_fail(struct ofl_store *st, const char *what, const PGresult *res)
{
	const char	*msg;
	size_t		 n;

	msg = res != NULL ? PQresultErrorMessage(res) : "";
	if (*msg == '\0')
		msg = PQerrorMessage(st->pg->conn);
	if (strncmp(msg, "ERROR:  ", 8) == 0)
		msg += 8;
	n = strcspn(msg, "\n");
	ofl_seterr(OFL_EXIT_FAIL, "store %s: %s: %.*s", st->pg->shown, what,
	    (int)n, *msg != '\0' ? msg : "unknown error");
	return -1;
}

/*
 * ofl-index --rebuild: the rows of every content the role can see, but
 * a content an indexer holds now (its lock), which is being made anew.
 */
int
store_pg_ix_forget_all(struct ofl_store *st)
{
	struct store_pg_args	a;

	store_pg_args_init(&a);
	store_pg_arg_int(&a, PG_LOCK_INDEX);
	return store_pg_do(st, "DELETE FROM ofl.ix_blob WHERE"
	    " pg_try_advisory_xact_lock($1::int4, (blob & 2147483647)::int4)",
	    &a, "dropping the index");
}

int
store_pg_unsupported(struct ofl_store *st, const char *what)
{
	ofl_seterr(OFL_EXIT_FAIL, "store %s: %s is not supported on "
	    "PostgreSQL yet", st->pg->shown, what);
	return -1;
}

void
store_pg_args_init(struct store_pg_args *a)
{
	memset(a, 0, sizeof *a);
}

void
store_pg_arg_text(struct store_pg_args *a, const char *s)
{
	if (a->n == STORE_PG_ARGS)
		abort();
	a->v[a->n] = s;
	a->len[a->n] = 0;
	a->fmt[a->n] = 0;
	a->n++;
}

void
store_pg_arg_int(struct store_pg_args *a, int64_t v)
{
	if (a->n == STORE_PG_ARGS)
		abort();
	snprintf(a->num[a->n], sizeof a->num[a->n], "%" PRId64, v);
	store_pg_arg_text(a, a->num[a->n]);
}

void
store_pg_arg_bin(struct store_pg_args *a, const void *p, size_t n)
{
	if (a->n == STORE_PG_ARGS)
		abort();
	a->v[a->n] = p;
	a->len[a->n] = (int)n;
	a->fmt[a->n] = 1;
	a->n++;
}

PGresult *
store_pg_run(struct ofl_store *st, const char *sql,
    const struct store_pg_args *a, int binary, const char *what)
{
	PGresult	*res;
	int		 s;

	res = PQexecParams(st->pg->conn, sql, a != NULL ? a->n : 0, NULL,
	    a != NULL ? a->v : NULL, a != NULL ? a->len : NULL,
	    a != NULL ? a->fmt : NULL, binary);
	s = res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (s == PGRES_TUPLES_OK || s == PGRES_COMMAND_OK)
		return res;
	pg_fail(st, what, res);
	PQclear(res);
	return NULL;
}

int
store_pg_do(struct ofl_store *st, const char *sql,
    const struct store_pg_args *a, const char *what)
{
	PGresult	*res;

	if ((res = store_pg_run(st, sql, a, 0, what)) == NULL)
		return -1;
	PQclear(res);
	return 0;
}

int
store_pg_value(struct ofl_store *st, const char *sql,
    const struct store_pg_args *a, const char *what, int64_t *v)
{
	PGresult	*res;
	int		 found;

	if ((res = store_pg_run(st, sql, a, 0, what)) == NULL)
		return -1;
	if ((found = PQntuples(res) > 0))
		*v = store_pg_int(res, 0, 0);
	PQclear(res);
	return found;
}

int64_t
store_pg_int(const PGresult *res, int r, int c)
{
	if (PQgetisnull(res, r, c))
		return 0;
	return strtoll(PQgetvalue(res, r, c), NULL, 10);
}

char *
store_pg_str(const PGresult *res, int r, int c)
{
	if (PQgetisnull(res, r, c))
		return NULL;
	return ofl_xstrdup(PQgetvalue(res, r, c));
}

/* Arrays as PostgreSQL reads them: {1,2}, {"a\"b",NULL}, {"\\x6162"}. */

void
store_pg_arr_sep(struct ofl_buf *b)
{
	ofl_buf_addc(b, b->len == 0 ? '{' : ',');
}

void
store_pg_arr_bytes(struct ofl_buf *b, const void *p, size_t n)
{
	static const char	 hex[] = "0123456789abcdef";
	const unsigned char	*u = p;
	size_t			 i;

	store_pg_arr_sep(b);
	if (p == NULL) {
		ofl_buf_adds(b, "NULL");
		return;
	}
	ofl_buf_adds(b, "\"\\\\x");
	for (i = 0; i < n; i++) {
		ofl_buf_addc(b, hex[u[i] >> 4]);
		ofl_buf_addc(b, hex[u[i] & 15]);
	}
	ofl_buf_addc(b, '"');
}

void
store_pg_arr_text(struct ofl_buf *b, const char *s)
{
	store_pg_arr_sep(b);
	if (s == NULL) {
		ofl_buf_adds(b, "NULL");
		return;
	}
	ofl_buf_addc(b, '"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			ofl_buf_addc(b, '\\');
		ofl_buf_addc(b, *s);
	}
	ofl_buf_addc(b, '"');
}

void
store_pg_arr_int(struct ofl_buf *b, int64_t v)
{
	store_pg_arr_sep(b);
	ofl_buf_addf(b, "%" PRId64, v);
}

const char *
store_pg_arr_end(struct ofl_buf *b)
{
	if (b->len == 0)
		ofl_buf_addc(b, '{');
	ofl_buf_addc(b, '}');
	return ofl_buf_str(b);
}

/* The schema's version: 0 where there is none. */
static int
pg_version(struct ofl_store *st, int *version)
{
	PGresult	*res;

	*version = 0;
	/* The catalog itself, not a cache that an advisory lock keeps. */
	if ((res = store_pg_run(st, "SELECT count(*) FROM pg_catalog.pg_class c"
	    " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
	    " WHERE n.nspname = 'ofl' AND c.relname = 'version'", NULL, 0,
	    "schema")) == NULL)
		return -1;
	if (store_pg_int(res, 0, 0) == 0) {
		PQclear(res);
		return 0;
	}
	PQclear(res);
	if ((res = store_pg_run(st, "SELECT max(version) FROM ofl.version",
	    NULL, 0, "schema")) == NULL)
		return -1;
	*version = (int)store_pg_int(res, 0, 0);
	PQclear(res);
	return 0;
}

/*
 * Make or migrate the schema, in one transaction under an advisory lock
 * (of the session, taken before the transaction begins so that it sees
 * what the holder before it made) so that processes that start
 * together on a new database take turns.
 * The DDL is constant text (PQexec runs its several statements).
 */
static int
pg_schema(struct ofl_store *st)
{
	struct store_pg_args	 a, lock;
	PGresult		*res;
	int			 version, i;

	if (pg_version(st, &version) == -1)
		return -1;
	if (version == PG_SCHEMA_VERSION)
		return 0;
	if (version > PG_SCHEMA_VERSION) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: made by a newer ofl "
		    "(schema %d)", st->pg->shown, version);
		return -1;
	}
	if (!st->rdwr) {
		ofl_seterr(OFL_EXIT_FAIL, "no store at %s (nothing captured "
		    "yet)", st->pg->shown);
		return -1;
	}
	/*
	 * The lock before the transaction, so that the transaction sees
	 * what the one before it committed.
	 */
	store_pg_args_init(&lock);
	store_pg_arg_int(&lock, PG_LOCK_CLASS);
	store_pg_arg_int(&lock, PG_LOCK_SCHEMA);
	if (store_pg_do(st, "SELECT pg_advisory_lock($1::int4, $2::int4)",
	    &lock, "schema lock") == -1)
		return -1;
	if (store_pg_do(st, "BEGIN", NULL, "schema") == -1 ||
	    pg_version(st, &version) == -1)
		goto rollback;
	for (i = version; i < PG_SCHEMA_VERSION; i++) {
		res = PQexec(st->pg->conn, pg_steps[i]);
		if (res == NULL || PQresultStatus(res) != PGRES_COMMAND_OK) {
			pg_fail(st, "schema", res);
			PQclear(res);
			goto rollback;
		}
		PQclear(res);
	}
	store_pg_args_init(&a);
	store_pg_arg_int(&a, PG_SCHEMA_VERSION);
	if (version < PG_SCHEMA_VERSION && store_pg_do(st, "UPDATE"
	    " ofl.version SET version = $1", &a, "schema") == -1)
		goto rollback;
	if (store_pg_do(st, "COMMIT", NULL, "schema") == -1)
		goto rollback;
	(void)store_pg_do(st, "SELECT pg_advisory_unlock($1::int4, $2::int4)",
	    &lock, "schema lock");
	return 0;
rollback:
	PQclear(PQexec(st->pg->conn, "ROLLBACK"));
	(void)store_pg_do(st, "SELECT pg_advisory_unlock($1::int4, $2::int4)",
	    &lock, "schema lock");
	return -1;
}

/* The library never prints: the server's notices are dropped. */
static void
pg_quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

int
store_pg_open(struct ofl_store *st)
{
	st->pg = ofl_xcalloc(1, sizeof *st->pg);
	st->pg->shown = pg_mask(st->path);
	if (ofl_pq_load() == -1)
		return -1;
	st->pg->conn = PQconnectdb(st->path);
	if (st->pg->conn == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "store %s: out of memory",
		    st->pg->shown);
		return -1;
	}
	if (PQstatus(st->pg->conn) != CONNECTION_OK)
		return pg_fail(st, "cannot connect", NULL);
	/* Nothing the server says goes to stderr: errors come as results. */
	PQsetNoticeProcessor(st->pg->conn, pg_quiet, NULL);
	if (store_pg_do(st, "SET client_min_messages = error", NULL,
	    "connect") == -1)
		return -1;
	return pg_schema(st);
}

void
store_pg_close(struct ofl_store *st)
{
	if (st->pg == NULL)
		return;
	if (st->pg->conn != NULL)
		PQfinish(st->pg->conn);
	free(st->pg->shown);
	free(st->pg);
	st->pg = NULL;
}

int
store_pg_begin(struct ofl_store *st)
{
	if (store_pg_do(st, "BEGIN", NULL, "begin") == -1)
		return -1;
	st->pg->tx = 1;
	return 0;
}

int
store_pg_commit(struct ofl_store *st)
{
	st->pg->tx = 0;
	return store_pg_do(st, "COMMIT", NULL, "commit");
}

void
store_pg_rollback(struct ofl_store *st)
{
	st->pg->tx = 0;
	PQclear(PQexec(st->pg->conn, "ROLLBACK"));
}

char *
store_pg_setting_get(struct ofl_store *st, const char *key, const char *def)
{
	struct store_pg_args	 a;
	PGresult		*res;
	char			*v = NULL;

	store_pg_args_init(&a);
	store_pg_arg_text(&a, key);
	/* A role that sees every row (BYPASSRLS) still has its own. */
	if ((res = store_pg_run(st, "SELECT value FROM ofl.setting WHERE"
	    " owner = current_user AND key = $1", &a, 0, "setting")) != NULL) {
		if (PQntuples(res) > 0)
			v = store_pg_str(res, 0, 0);
		PQclear(res);
	}
	if (v == NULL && def != NULL)
		v = ofl_xstrdup(def);
	return v;
}

int
store_pg_setting_set(struct ofl_store *st, const char *key,
    const char *value)
{
	struct store_pg_args	a;

	store_pg_args_init(&a);
	store_pg_arg_text(&a, key);
	store_pg_arg_text(&a, value);
	return store_pg_do(st, "INSERT INTO ofl.setting (key, value) VALUES"
	    " ($1, $2) ON CONFLICT (owner, key) DO UPDATE SET"
	    " value = excluded.value", &a, "setting");
}

/* A role's store size: the compressed content it owns. */
uint64_t
store_pg_size(struct ofl_store *st)
{
	int64_t	n = 0;

	if (store_pg_value(st, "SELECT (SELECT coalesce(sum(stored), 0) FROM"
	    " ofl.blob) + (SELECT coalesce(sum(ixsize), 0) FROM ofl.ix_blob)",
	    NULL, "size", &n) != 1)
		return 0;
	return (uint64_t)n;
}

int64_t
store_pg_blob(struct ofl_store *st, const char *id)
{
	struct store_pg_args	 a;
	int64_t			 blob = -1;
	int			 rc;

	store_pg_args_init(&a);
	store_pg_arg_text(&a, id);
	if ((rc = store_pg_value(st, "SELECT blob FROM ofl.artifact WHERE"
	    " id = $1", &a, "lookup", &blob)) == 0)
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
	return rc == 1 ? blob : -1;
}
