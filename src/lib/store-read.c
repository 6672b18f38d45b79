/*
 * store-read.c: artifacts' metadata (resolving references, listing) and
 * the reader, which gives random access to an artifact's content by
 * byte or by line through its frame table, decompressing one frame at a
 * time.  ofl_reader_src() hands a reader to the formats layer as a
 * struct ofl_src, so that the formats never see the store.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

/* While an artifact is written, its size is that of its frames so far. */
#define META_COLUMNS							\
	"a.id, b.hash, a.seq, a.state, a.incomplete, a.kind,"		\
	" CASE a.state WHEN 0 THEN (SELECT coalesce(sum(raw_len), 0)"	\
	" FROM frame WHERE blob = a.blob) ELSE a.bytes END,"		\
	" CASE a.state WHEN 0 THEN (SELECT coalesce(sum(nl), 0)"	\
	" FROM frame WHERE blob = a.blob) ELSE a.lines END,"		\
	" CASE a.state WHEN 0 THEN (SELECT coalesce(sum(comp_len), 0)"	\
	" FROM frame WHERE blob = a.blob) ELSE b.stored END,"		\
	" a.created, a.used, a.expires, a.label,"			\
	" a.command, a.cwd, a.session, a.exit_status, a.duration_ms,"	\
	" a.errors, a.warnings, a.first_error, a.printed, b.file"

static int	 reader_load(struct ofl_reader *, ssize_t);
static int	 reader_fetch(struct ofl_reader *, ssize_t);
static ssize_t	 frame_at(struct ofl_reader *, uint64_t);

/* Metadata. */

/*
 * 1 when the writer of an artifact still "writing" has died: its blob
 * file is gone or no longer locked (store.c).  A reader only looks; the
 * next read-write open salvages it.  A file it cannot open (another
 * user's) says nothing: 0.
 */
static int
writer_gone(struct ofl_store *st, const char *file)
{
	char	*path;
	int	 fd, gone = 0;

	if (file == NULL)
		return 0;
	path = store_blob_path(st, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		gone = errno == ENOENT;
	else {
		if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
			gone = 1;
			(void)flock(fd, LOCK_UN);
		}
		close(fd);
	}
	free(path);
	return gone;
}

static void
meta_from_stmt(struct ofl_store *st, sqlite3_stmt *stmt, struct ofl_meta *m)
{
	const unsigned char	*s;
	int			 k;

	memset(m, 0, sizeof *m);
	s = sqlite3_column_text(stmt, 0);
	snprintf(m->id, sizeof m->id, "%s", s ? (const char *)s : "");
	s = sqlite3_column_text(stmt, 1);
	snprintf(m->hash, sizeof m->hash, "%s", s ? (const char *)s : "");
	m->seq = sqlite3_column_int64(stmt, 2);
	m->state = sqlite3_column_int(stmt, 3);
	m->incomplete = sqlite3_column_int(stmt, 4);
	s = sqlite3_column_text(stmt, 5);
	k = s != NULL ? ofl_kind_from_name((const char *)s) : -1;
	m->kind = k < 0 ? OFL_KIND_TEXT : k;
	m->bytes = (uint64_t)sqlite3_column_int64(stmt, 6);
	m->lines = (uint64_t)sqlite3_column_int64(stmt, 7);
	m->stored = (uint64_t)sqlite3_column_int64(stmt, 8);
	m->created = sqlite3_column_int64(stmt, 9);
	m->used = sqlite3_column_int64(stmt, 10);
	m->expires = sqlite3_column_int64(stmt, 11);
	m->label = store_col_strdup(stmt, 12);
	m->command = store_col_strdup(stmt, 13);
	m->cwd = store_col_strdup(stmt, 14);
	m->session = store_col_strdup(stmt, 15);
	m->has_exit = sqlite3_column_type(stmt, 16) != SQLITE_NULL;
	m->exit_status = sqlite3_column_int(stmt, 16);
	m->duration_ms = sqlite3_column_type(stmt, 17) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(stmt, 17);
	m->errors = (uint64_t)sqlite3_column_int64(stmt, 18);
	m->warnings = (uint64_t)sqlite3_column_int64(stmt, 19);
	m->first_error = (uint64_t)sqlite3_column_int64(stmt, 20);
	m->printed = sqlite3_column_type(stmt, 21) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(stmt, 21);
	if (m->state != OFL_STATE_COMPLETE && writer_gone(st,
	    (const char *)sqlite3_column_text(stmt, 22)))
		m->incomplete = 1;
}

void
ofl_meta_free(struct ofl_meta *m)
{
	if (m == NULL)
		return;
	free(m->label);
	free(m->command);
	free(m->cwd);
	free(m->session);
	m->label = m->command = m->cwd = m->session = NULL;
}

int
ofl_store_resolve(struct ofl_store *st, const char *ref,
    char id[OFL_ID_MAX + 1])
{
	sqlite3_stmt	*stmt;
	char		 lower[OFL_ID_MAX + 2], hi[OFL_ID_MAX + 2];
	long long	 n;
	int		 rc, found = 0;

	STORE_PG(st, store_pg_resolve(st, ref, id));
	if (store_ref_parse(ref, &n, lower, hi) == -1)
		return -1;
	if (n > 0) {
		if (store_prepare(st, "SELECT id FROM artifact ORDER BY seq"
		    " DESC LIMIT 1 OFFSET ?1", &stmt) == -1)
			return -1;
		sqlite3_bind_int64(stmt, 1, n - 1);
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW) {
			snprintf(id, OFL_ID_MAX + 1, "%s",
			    (const char *)sqlite3_column_text(stmt, 0));
			found = 1;
		}
		sqlite3_finalize(stmt);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return store_fail(st, "lookup");
		if (!found) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: no such artifact (the "
			    "store holds fewer)", ref);
			return -1;
		}
		return 0;
	}
	if (store_prepare(st, "SELECT id FROM artifact WHERE id >= ?1 AND"
	    " id < ?2 ORDER BY id LIMIT 3", &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, lower, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, hi, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *got = (const char *)sqlite3_column_text(stmt, 0);

		if (strcmp(got, lower) == 0) {
			/* An exact match wins over longer IDs. */
			snprintf(id, OFL_ID_MAX + 1, "%s", got);
			found = 1;
			break;
		}
		if (found == 1) {
			char	second[OFL_ID_MAX + 1];
			int	more;

			/* got is the statement's: copy it before stepping. */
			snprintf(second, sizeof second, "%s", got);
			more = sqlite3_step(stmt) == SQLITE_ROW;
			ofl_seterr(OFL_EXIT_USAGE, "%s: ambiguous ID prefix "
			    "(ofl:%s, ofl:%s%s)", ref, id, second,
			    more ? ", ..." : "");
			sqlite3_finalize(stmt);
			return -1;
		}
		snprintf(id, OFL_ID_MAX + 1, "%s", got);
		found = 1;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(st, "lookup");
	if (!found) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", ref);
		return -1;
	}
	return 0;
}

int
ofl_store_meta(struct ofl_store *st, const char *id, struct ofl_meta *m)
{
	sqlite3_stmt	*stmt;
	int		 rc;

	STORE_PG(st, store_pg_meta(st, id, m));
	/*
	 * Kept prepared: gc and the listing's callers ask for one artifact
	 * after another, and parsing the statement each time was most of
	 * a dry run over many.
	 */
	if (st->meta == NULL && sqlite3_prepare_v3(st->db, "SELECT "
	    META_COLUMNS " FROM artifact a JOIN blob b ON b.id = a.blob"
	    " WHERE a.id = ?1", -1, SQLITE_PREPARE_PERSISTENT, &st->meta,
	    NULL) != SQLITE_OK) {
		st->meta = NULL;
		return store_fail(st, "database");
	}
	stmt = st->meta;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		meta_from_stmt(st, stmt, m);
	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
		return -1;
	}
	return store_fail(st, "lookup");
}

void
store_meta_fin(struct ofl_meta *m, const struct ofl_meta *fin)
{
	memset(m, 0, sizeof *m);
	m->duration_ms = -1;
	m->printed = -1;
	if (fin != NULL) {
		m->has_exit = fin->has_exit;
		m->exit_status = fin->exit_status;
		m->duration_ms = fin->duration_ms;
		m->incomplete = fin->incomplete;
		m->printed = fin->printed;
	}
}

void
store_meta_strings(struct ofl_meta *dst, const struct ofl_meta *src)
{
	dst->label = src->label != NULL ? ofl_xstrdup(src->label) : NULL;
	dst->command = src->command != NULL ? ofl_xstrdup(src->command) : NULL;
	dst->cwd = src->cwd != NULL ? ofl_xstrdup(src->cwd) : NULL;
	dst->session = src->session != NULL ? ofl_xstrdup(src->session) :
	    NULL;
}

void
store_meta_committed(struct ofl_store *st, const char *id,
    const struct ofl_meta *m, const char *hash, uint64_t bytes,
    uint64_t lines, struct ofl_meta *out)
{
	if (ofl_store_meta(st, id, out) == 0)
		return;
	*out = *m;
	store_meta_strings(out, m);
	snprintf(out->id, sizeof out->id, "%s", id);
	snprintf(out->hash, sizeof out->hash, "%s", hash);
	out->state = OFL_STATE_COMPLETE;
	out->bytes = bytes;
	out->lines = lines;
	if (out->created == 0)
		out->created = ofl_now_ms();
	out->used = ofl_now_ms();
}

int
ofl_store_expired(struct ofl_store *st, int64_t ttl_ms)
{
	sqlite3_stmt	*stmt;
	int64_t		 now = ofl_now_ms();
	int		 found = 0;

	STORE_PG(st, store_pg_expired(st, ttl_ms));
	/* Each half from its index (store_count_init()), the oldest first. */
	if (store_prepare(st, "SELECT EXISTS (SELECT 1 FROM artifact WHERE"
	    " expires <= ?1 AND state = 1) OR (?2 > 0 AND EXISTS (SELECT 1"
	    " FROM artifact WHERE created <= ?1 - ?2 AND expires IS NULL AND"
	    " state = 1))", &stmt) == -1)
		return 0;
	sqlite3_bind_int64(stmt, 1, now);
	sqlite3_bind_int64(stmt, 2, ttl_ms);
	found = sqlite3_step(stmt) == SQLITE_ROW &&
	    sqlite3_column_int(stmt, 0) != 0;
	sqlite3_finalize(stmt);
	return found;
}

void
ofl_filter_init(struct ofl_filter *f)
{
	memset(f, 0, sizeof *f);
	f->kind = -1;
}

int
ofl_store_list(struct ofl_store *st, const struct ofl_filter *f,
    int (*cb)(const struct ofl_meta *, void *), void *arg)
{
	sqlite3_stmt	*stmt;
	struct ofl_meta	 m;
	int		 rc, n = 0;

	STORE_PG(st, store_pg_list(st, f, cb, arg));
	if (store_prepare(st, "SELECT " META_COLUMNS " FROM artifact a JOIN"
	    " blob b ON b.id = a.blob WHERE" STORE_FILTER_SQL
	    " ORDER BY a.seq DESC LIMIT ?6", &stmt) == -1)
		return -1;
	store_filter_bind(stmt, f);
	sqlite3_bind_int64(stmt, 6, f->limit > 0 ? f->limit : -1);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		meta_from_stmt(st, stmt, &m);
		n++;
		rc = cb(&m, arg);
		ofl_meta_free(&m);
		if (rc != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return store_fail(st, "list");
	return n;
}

/*
 * The count of artifacts, kept by two triggers in table artifact_n, so
 * that a listing's last line costs nothing however large the store; and
 * so the bytes stored, by three in blob_stored, and the indexes that
 * find the first artifact past its time, so that a capture's look at
 * whether a gc is due (ofl_store_size(), ofl_store_expired()) does not
 * read the whole store.  A read-write open that finds them missing (a
 * store made before them) makes them; an older ofl keeps them right
 * too, since SQLite runs the triggers and keeps the indexes.
 */
#define COUNT_SQL							\
	"CREATE TABLE artifact_n (n INTEGER NOT NULL);"			\
	"INSERT INTO artifact_n SELECT count(*) FROM artifact;"		\
	"CREATE TRIGGER artifact_n_add AFTER INSERT ON artifact"	\
	" BEGIN UPDATE artifact_n SET n = n + 1; END;"			\
	"CREATE TRIGGER artifact_n_del AFTER DELETE ON artifact"	\
	" BEGIN UPDATE artifact_n SET n = n - 1; END;"
#define STORED_SQL							\
	"CREATE TABLE blob_stored (n INTEGER NOT NULL);"		\
	"INSERT INTO blob_stored SELECT coalesce(sum(stored), 0) FROM"	\
	" blob;"							\
	"CREATE TRIGGER blob_stored_add AFTER INSERT ON blob"		\
	" BEGIN UPDATE blob_stored SET n = n + NEW.stored; END;"	\
	"CREATE TRIGGER blob_stored_set AFTER UPDATE OF stored ON blob"	\
	" BEGIN UPDATE blob_stored SET n = n + NEW.stored - OLD.stored;"	\
	" END;"								\
	"CREATE TRIGGER blob_stored_del AFTER DELETE ON blob"		\
	" BEGIN UPDATE blob_stored SET n = n - OLD.stored; END;"	\
	"CREATE INDEX IF NOT EXISTS artifact_created ON artifact(created);" \
	"CREATE INDEX IF NOT EXISTS artifact_expires ON artifact(expires)" \
	" WHERE expires IS NOT NULL;"

/* 1 if the trigger made last (name) is there, 0 if not, -1. */
static int
count_kept(sqlite3 *db, const char *name)
{
	sqlite3_stmt	*s;
	int		 rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE"
	    " type = 'trigger' AND name = ?1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Make sql's tables when name is missing; a failure only costs time. */
static void
count_make(struct ofl_store *st, const char *name, const char *sql)
{
	if (count_kept(st->db, name) != 0)
		return;
	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return;
	if (count_kept(st->db, name) != 0 ||
	    sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

void
store_count_init(struct ofl_store *st)
{
	if (!st->rdwr)
		return;
	count_make(st, "artifact_n_del", COUNT_SQL);
	count_make(st, "blob_stored_del", STORED_SQL);
}

/* How many artifacts the filter lets through (its limit aside), or -1. */
int64_t
ofl_store_count(struct ofl_store *st, const struct ofl_filter *f)
{
	sqlite3_stmt	*stmt;
	int64_t		 n = -1;

	STORE_PG(st, store_pg_count(st, f));
	/*
	 * No filter: the count the triggers keep, or a plain count, which
	 * SQLite takes from the smallest index instead of testing the
	 * filter on every row of the table.
	 */
	if (f->label == NULL && f->session == NULL && f->kind < 0 &&
	    f->newer_ms <= 0 && f->older_ms <= 0) {
		if (sqlite3_prepare_v2(st->db, "SELECT n FROM artifact_n",
		    -1, &stmt, NULL) != SQLITE_OK &&
		    store_prepare(st, "SELECT count(*) FROM artifact",
		    &stmt) == -1)
			return -1;
	} else if (store_prepare(st, "SELECT count(*) FROM artifact a WHERE"
	    STORE_FILTER_SQL, &stmt) == -1)
		return -1;
	if (sqlite3_bind_parameter_count(stmt) > 0)
		store_filter_bind(stmt, f);
	if (sqlite3_step(stmt) == SQLITE_ROW)
		n = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	if (n == -1)
		return store_fail(st, "count");
	return n;
}

/*
 * Compare two contents frame by frame, when their frames line up (the
 * same raw sizes): frames compressed alike hold the same bytes, as
 * decompressing is deterministic, so only frames compressed differently
 * (at another level) are decompressed.  1 same, 0 not, -1 not lined up.
 */
static int
same_frames(struct ofl_reader *ra, struct ofl_reader *rb)
{
	size_t	k;

	if (ra->nframes != rb->nframes)
		return -1;
	for (k = 0; k < ra->nframes; k++)
		if (ra->frames[k].raw_len != rb->frames[k].raw_len)
			return -1;
	for (k = 0; k < ra->nframes; k++) {
		if (ra->frames[k].comp_len == rb->frames[k].comp_len) {
			if (reader_fetch(ra, (ssize_t)k) == -1 ||
			    reader_fetch(rb, (ssize_t)k) == -1)
				return 0;
			if (memcmp(ra->cbuf, rb->cbuf,
			    ra->frames[k].comp_len) == 0)
				continue;
		}
		if (reader_load(ra, (ssize_t)k) == -1 ||
		    reader_load(rb, (ssize_t)k) == -1 ||
		    memcmp(ra->fbuf, rb->fbuf, ra->frames[k].raw_len) != 0)
			return 0;
	}
	return 1;
}

/*
 * 1 if artifacts a and b hold the same bytes.  With mem, a's bytes are
 * those (its whole content, as small content is kept in memory).
 */
int
reader_same(struct ofl_store *st, const char *a, const unsigned char *mem,
    size_t memlen, const char *b)
{
	struct ofl_reader	*ra = NULL, *rb;
	const unsigned char	*pa;
	unsigned char		*ba, *bb;
	ssize_t			 ka, kb;
	size_t			 off = 0;
	int			 same = 0;

	if ((rb = ofl_reader_open(st, b)) == NULL)
		return 0;
	if (mem == NULL && (ra = ofl_reader_open(st, a)) == NULL) {
		ofl_reader_close(rb);
		return 0;
	}
	if (ofl_reader_bytes(rb) != (mem != NULL ? memlen :
	    ofl_reader_bytes(ra))) {
		ofl_reader_close(ra);
		ofl_reader_close(rb);
		return 0;
	}
	if (ra != NULL && (same = same_frames(ra, rb)) != -1) {
		ofl_reader_close(ra);
		ofl_reader_close(rb);
		return same;
	}
	same = 0;
	ba = ofl_xmalloc(2 * 65536);
	bb = ba + 65536;
	for (;;) {
		if (mem != NULL) {
			pa = mem + off;
			ka = (ssize_t)(memlen - off > 65536 ? 65536 :
			    memlen - off);
			off += (size_t)ka;
		} else {
			pa = ba;
			ka = ofl_reader_read_full(ra, ba, 65536);
		}
		kb = ofl_reader_read_full(rb, bb, 65536);
		if (ka == -1 || ka != kb || memcmp(pa, bb, (size_t)ka) != 0)
			break;
		if (ka == 0) {
			same = 1;
			break;
		}
	}
	free(ba);
	ofl_reader_close(ra);
	ofl_reader_close(rb);
	return same;
}

/* Reading. */

/*
 * 1 if name is a blob file name that ofl makes: "ab/abcd2345", the first
 * two characters of an ID, a slash, the ID.  Nothing else is opened or
 * unlinked: a damaged or forged row must not reach outside blobs/.
 */
int
ofl_blob_name_valid(const char *name)
{
	size_t	n;

	if (name == NULL || (n = strlen(name)) < 4 || name[2] != '/' ||
	    memcmp(name, name + 3, 2) != 0 || !ofl_id_valid(name + 3, n - 3))
		return 0;
	for (; *name != '\0'; name++)
		if (*name >= 'A' && *name <= 'Z')
			return 0;
	return 1;
}

/*
 * Read the frame in the current row of stmt (columns 0-5) into f, after
 * bytes of content: -1 if the row cannot be one the writer made.
 */
static int
frame_row(sqlite3_stmt *stmt, uint64_t bytes, struct frame *f)
{
	int64_t	v[6];
	int	i;

	for (i = 0; i < 6; i++) {
		if (sqlite3_column_type(stmt, i) != SQLITE_INTEGER)
			return -1;
		if ((v[i] = sqlite3_column_int64(stmt, i)) < 0)
			return -1;
	}
	f->raw_off = (uint64_t)v[0];
	f->raw_len = (uint64_t)v[1];
	f->line_off = (uint64_t)v[2];
	f->nl = (uint64_t)v[3];
	f->comp_off = (uint64_t)v[4];
	f->comp_len = (uint64_t)v[5];
	if (f->raw_off != bytes || f->raw_len > FRAME_MAX ||
	    f->nl > f->raw_len || f->comp_len == 0 ||
	    f->comp_len > ZSTD_compressBound(FRAME_MAX) ||
	    f->comp_off > (uint64_t)INT64_MAX - f->comp_len)
		return -1;
	return 0;
}

int
ofl_store_frames_good(struct ofl_store *st, const char *id, uint64_t *good)
{
	sqlite3_stmt	*stmt;
	struct frame	 f;
	int		 rc;

	STORE_PG(st, store_pg_frames_good(st, id, good));
	*good = 0;
	if (store_prepare(st, "SELECT f.raw_off, f.raw_len, f.line_off, f.nl,"
	    " f.comp_off, f.comp_len FROM artifact a JOIN frame f ON"
	    " f.blob = a.blob WHERE a.id = ?1 ORDER BY f.raw_off",
	    &stmt) == -1)
		return -1;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (frame_row(stmt, *good, &f) == -1)
			break;
		*good += f.raw_len;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(st, "read");
	return rc == SQLITE_ROW ? 1 : 0;
}

struct ofl_reader *
ofl_reader_open(struct ofl_store *st, const char *id)
{
	struct ofl_reader	*r;
	sqlite3_stmt		*stmt = NULL;
	char			*path = NULL;
	int			 rc;

	STORE_PG(st, store_pg_reader_open(st, id));
	r = ofl_xcalloc(1, sizeof *r);
	r->st = st;
	r->fd = -1;
	r->cur = -1;
	if (ofl_store_meta(st, id, &r->meta) == -1)
		goto fail;
	if (store_prepare(st, "SELECT f.raw_off, f.raw_len, f.line_off, f.nl,"
	    " f.comp_off, f.comp_len, b.file FROM artifact a JOIN blob b ON"
	    " b.id = a.blob LEFT JOIN frame f ON f.blob = a.blob"
	    " WHERE a.id = ?1 ORDER BY f.raw_off", &stmt) == -1)
		goto fail;
	sqlite3_bind_text(stmt, 1, id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct frame *f;

		if (path == NULL) {
			const char *name = (const char *)
			    sqlite3_column_text(stmt, 6);

			if (!ofl_blob_name_valid(name)) {
				ofl_seterr(OFL_EXIT_FAIL, "%s: the name of "
				    "its content file is damaged (run ofl-gc "
				    "--check)", id);
				goto fail;
			}
			path = store_blob_path(st, name);
		}
		if (sqlite3_column_type(stmt, 0) == SQLITE_NULL)
			continue;
		r->frames = ofl_xrealloc(r->frames,
		    (r->nframes + 1) * sizeof *r->frames);
		f = &r->frames[r->nframes++];
		if (frame_row(stmt, r->bytes, f) == -1) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: frame table is "
			    "damaged (run ofl-gc --check)", id);
			goto fail;
		}
		r->bytes += f->raw_len;
		r->newlines += f->nl;
	}
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (rc != SQLITE_DONE) {
		store_fail(st, "read");
		goto fail;
	}
	if (path == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: unknown artifact", id);
		goto fail;
	}
	if (r->nframes > 0) {
		struct stat	sb;

		r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (r->fd == -1) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: content missing: %s: %s",
			    id, path, strerror(errno));
			goto fail;
		}
		/* Content another user could have written is not ours. */
		if (fstat(r->fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
		    sb.st_uid != geteuid() ||
		    (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: content file %s is not "
			    "a private file of yours; refusing to read it", id,
			    path);
			goto fail;
		}
	}
	if (r->meta.state != OFL_STATE_COMPLETE) {
		r->meta.bytes = r->bytes;
		r->meta.lines = r->newlines;
	}
	free(path);
	return r;
fail:
	sqlite3_finalize(stmt);
	free(path);
	ofl_reader_close(r);
	return NULL;
}

void
ofl_reader_close(struct ofl_reader *r)
{
	if (r == NULL)
		return;
	if (r->fd != -1)
		close(r->fd);
	/* Made again for each content, it cost more than reading one. */
	if (r->st != NULL && r->st->dctx == NULL)
		r->st->dctx = r->dctx;
	else
		ZSTD_freeDCtx(r->dctx);
	ofl_meta_free(&r->meta);
	free(r->frames);
	free(r->fbuf);
	free(r->cbuf);
	free(r);
}

const struct ofl_meta *
ofl_reader_meta(struct ofl_reader *r)
{
	return &r->meta;
}

uint64_t
ofl_reader_bytes(struct ofl_reader *r)
{
	return r->bytes;
}

uint64_t
ofl_reader_lines(struct ofl_reader *r)
{
	return r->meta.state == OFL_STATE_COMPLETE ? r->meta.lines :
	    r->newlines;
}

uint64_t
ofl_reader_tell(struct ofl_reader *r)
{
	return r->pos;
}

static int
reader_load(struct ofl_reader *r, ssize_t k)
{
	struct frame	*f = &r->frames[k];
	size_t		 n;

	if (r->cur == k)
		return 0;
	if (r->dctx == NULL) {
		r->dctx = r->st->dctx;
		r->st->dctx = NULL;
	}
	if (r->dctx == NULL && (r->dctx = ZSTD_createDCtx()) == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "out of memory");
		return -1;
	}
	/* A frame's own size: a small content's reader stays small. */
	if (r->fcap < f->raw_len || r->fbuf == NULL) {
		r->fcap = f->raw_len > 0 ? f->raw_len : 1;
		r->fbuf = ofl_xrealloc(r->fbuf, r->fcap);
	}
	if (reader_fetch(r, k) == -1)
		return -1;
	n = ZSTD_decompressDCtx(r->dctx, r->fbuf, r->fcap, r->cbuf,
	    f->comp_len);
	if (ZSTD_isError(n) || n != f->raw_len) {
		ofl_seterr(OFL_EXIT_FAIL, "%s: content damaged (run ofl-gc "
		    "--check)", r->meta.id);
		r->cur = -1;
		return -1;
	}
	r->cur = k;
	return 0;
}

/* Read frame k, compressed, into r->cbuf. */
static int
reader_fetch(struct ofl_reader *r, ssize_t k)
{
	struct frame	*f = &r->frames[k];
	size_t		 got = 0;
	ssize_t		 rd;

	STORE_PG(r->st, store_pg_fetch(r, (size_t)k));
	if (r->ccap < f->comp_len) {
		r->cbuf = ofl_xrealloc(r->cbuf, f->comp_len);
		r->ccap = f->comp_len;
	}
	while (got < f->comp_len) {
		rd = pread(r->fd, r->cbuf + got, f->comp_len - got,
		    (off_t)(f->comp_off + got));
		if (rd == -1 && errno == EINTR)
			continue;
		if (rd <= 0) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: content truncated or "
			    "unreadable (run ofl-gc --check)", r->meta.id);
			return -1;
		}
		got += (size_t)rd;
	}
	return 0;
}

/* The frame holding byte offset off, or nframes at the end. */
static ssize_t
frame_at(struct ofl_reader *r, uint64_t off)
{
	size_t	lo = 0, hi = r->nframes, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (r->frames[mid].raw_off + r->frames[mid].raw_len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo;
}

int
ofl_reader_seek(struct ofl_reader *r, uint64_t off)
{
	if (off > r->bytes) {
		ofl_seterr(OFL_EXIT_NOMATCH, "byte %llu is beyond the end "
		    "(%llu bytes)", (unsigned long long)off,
		    (unsigned long long)r->bytes);
		return -1;
	}
	r->pos = off;
	return 0;
}

ssize_t
ofl_reader_read(struct ofl_reader *r, void *buf, size_t n)
{
	ssize_t		 k;
	struct frame	*f;
	size_t		 in, take;

	if (r->pos >= r->bytes || n == 0)
		return 0;
	k = frame_at(r, r->pos);
	if ((size_t)k >= r->nframes)
		return 0;
	if (reader_load(r, k) == -1)
		return -1;
	f = &r->frames[k];
	in = (size_t)(r->pos - f->raw_off);
	take = (size_t)f->raw_len - in;
	if (take > n)
		take = n;
	memcpy(buf, r->fbuf + in, take);
	r->pos += take;
	return (ssize_t)take;
}

ssize_t
ofl_reader_read_full(struct ofl_reader *r, void *buf, size_t n)
{
	unsigned char	*p = buf;
	size_t		 got = 0;
	ssize_t		 k;

	while (got < n) {
		if ((k = ofl_reader_read(r, p + got, n - got)) == -1)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

int64_t
ofl_reader_seek_line(struct ofl_reader *r, uint64_t line)
{
	uint64_t		 target, skip;
	size_t			 lo, hi, mid;
	const unsigned char	*p, *end;
	struct frame		*f;

	if (line <= 1) {
		r->pos = 0;
		return 0;
	}
	target = line - 1;	/* newlines before the line */
	if (target > r->newlines || (target == r->newlines &&
	    r->bytes > 0 && ofl_reader_lines(r) == r->newlines)) {
		ofl_seterr(OFL_EXIT_NOMATCH, "line %llu is beyond the end "
		    "(%llu lines)", (unsigned long long)line,
		    (unsigned long long)ofl_reader_lines(r));
		return -1;
	}
	/* The frame holding newline number target (1-based). */
	lo = 0;
	hi = r->nframes;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (r->frames[mid].line_off + r->frames[mid].nl < target)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= r->nframes)
		return -1;
	if (reader_load(r, (ssize_t)lo) == -1)
		return -1;
	f = &r->frames[lo];
	skip = target - f->line_off;
	p = r->fbuf;
	end = r->fbuf + f->raw_len;
	while (skip > 0) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (p == NULL) {
			ofl_seterr(OFL_EXIT_FAIL, "%s: frame table does not "
			    "match content", r->meta.id);
			return -1;
		}
		p++;
		skip--;
	}
	r->pos = f->raw_off + (uint64_t)(p - r->fbuf);
	return (int64_t)r->pos;
}

int64_t
ofl_reader_line_of(struct ofl_reader *r, uint64_t off)
{
	ssize_t			 k;
	struct frame		*f;
	const unsigned char	*p, *end;
	uint64_t		 n;

	if (r->nframes == 0)
		return 1;
	if (off >= r->bytes)
		off = r->bytes > 0 ? r->bytes - 1 : 0;
	k = frame_at(r, off);
	if (reader_load(r, k) == -1)
		return -1;
	f = &r->frames[k];
	n = f->line_off;
	p = r->fbuf;
	end = r->fbuf + (off - f->raw_off);
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return (int64_t)n + 1;
}

static uint64_t
src_bytes(void *r)
{
	return ofl_reader_bytes(r);
}

static uint64_t
src_lines(void *r)
{
	return ofl_reader_lines(r);
}

static int
src_seek(void *r, uint64_t off)
{
	return ofl_reader_seek(r, off);
}

static int64_t
src_seek_line(void *r, uint64_t line)
{
	return ofl_reader_seek_line(r, line);
}

static ssize_t
src_read(void *r, void *buf, size_t n)
{
	return ofl_reader_read(r, buf, n);
}

static uint64_t
src_tell(void *r)
{
	return ofl_reader_tell(r);
}

static int64_t
src_line_of(void *r, uint64_t off)
{
	return ofl_reader_line_of(r, off);
}

void
ofl_reader_src(struct ofl_reader *r, struct ofl_src *s)
{
	s->arg = r;
	s->bytes = src_bytes;
	s->lines = src_lines;
	s->seek = src_seek;
	s->seek_line = src_seek_line;
	s->read = src_read;
	s->tell = src_tell;
	s->line_of = src_line_of;
}

int
ofl_reader_chunks(struct ofl_reader *r, int kind,
    int (*cb)(const struct ofl_chunk *, void *), void *arg)
{
	struct ofl_src	src;

	ofl_reader_src(r, &src);
	return ofl_chunk_src(&src, kind, cb, arg);
}
