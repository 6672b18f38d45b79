/*
 * store-fts-pos.c: what needs the places of words, on generations of the
 * index that do not keep them.
 *
 * A generation keeps, for each word, the chunks it is in but not where
 * in them nor in which column (FTS5's detail=none): about a third of the
 * bytes of an index that keeps places.  (Generations made by an older
 * ofl may keep columns, detail=column, and are queried the same way.)
 * Two things need more.
 *
 * A query with a phrase of several words, "a + b", NEAR, "^" or a
 * column filter runs there relaxed: each phrase made the AND of its
 * words, NEAR the AND of its phrases, a column filter left out
 * (store_fts_relax()), which finds every chunk the query finds and some
 * more.  Those are checked by the query as written, on an FTS5 table in
 * memory that holds their text (store_fts_keep()).
 *
 * Ranking counts a word as often as it occurs in a chunk, and more in a
 * title (store-fts.c); a generation without places tells only whether
 * it occurs.  So the best rows of a query, more than it shows, are
 * ranked again on that table, with the statistics (each artifact's rows,
 * and how many hold each phrase) of the query's first run on the index,
 * or for a relaxed query those of the query as written, counted here.
 *
 * A chunk's text is read back from the content where a kind's chunks are
 * their bytes, else chunked again as the indexer chunked it.  Generations
 * made before the index kept no places are queried as before.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

static int	 keep_err(sqlite3 *);

/* Relaxing a query. */

struct relax {
	struct ofl_tok	*tk;
	const char	*q;
	size_t		 at;
	struct ofl_buf	 out;
	struct ofl_buf	 any;		/* every word, OR'ed */
	int		 changed;
	int		 deny;		/* NOT seen */
	struct fts_relaxed *rx;		/* the phrases, as FTS5 numbers them */
};

/* The words of one phrase, as the tokenizer cut them. */
struct words {
	struct ofl_buf	 q;		/* "a" AND "b" ... */
	size_t		 n;
	const char	*text;
	struct relax	*r;
};

static int
word_cb(void *arg, int flags, const char *tok, int n, int start, int end)
{
	struct words	*w = arg;

	(void)flags;
	(void)tok;
	(void)n;
	if (end <= start)
		return 0;
	if (w->n++ > 0)
		ofl_buf_adds(&w->q, " AND ");
	ofl_buf_add_fts_string(&w->q, w->text + start, (size_t)(end - start));
	if (w->r->any.len > 0)
		ofl_buf_adds(&w->r->any, " OR ");
	ofl_buf_add_fts_string(&w->r->any, w->text + start, (size_t)(end - start));
	return 0;
}

static int
bare_byte(int c)
{
	return c >= 0x80 || c == '_' || c == 0x1a ||
	    (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static void
skip_space(struct relax *r)
{
	while (r->q[r->at] == ' ' || r->q[r->at] == '\t' ||
	    r->q[r->at] == '\n' || r->q[r->at] == '\r')
		r->at++;
}

/*
 * One string or bare word at r->at, its text unquoted appended to t;
 * 0 if there is none there.
 */
static int
item_read(struct relax *r, struct ofl_buf *t)
{
	const char	*q = r->q;

	if (q[r->at] == '"') {
		for (r->at++; q[r->at] != '\0'; r->at++) {
			if (q[r->at] == '"' && q[r->at + 1] == '"')
				r->at++;
			else if (q[r->at] == '"')
				break;
			ofl_buf_addc(t, q[r->at]);
		}
		if (q[r->at] == '"')
			r->at++;
		return 1;
	}
	if (!bare_byte((unsigned char)q[r->at]))
		return 0;
	while (bare_byte((unsigned char)q[r->at]))
		ofl_buf_addc(t, q[r->at++]);
	return 1;
}

/* A phrase of the query, as written and as the AND of its words. */
static void
phrase_note(struct relax *r, size_t from, const struct words *w)
{
	struct fts_phrase	*p;
	struct fts_relaxed	*rx = r->rx;

	rx->p = ofl_xrealloc(rx->p, (rx->n + 1) * sizeof *rx->p);
	p = &rx->p[rx->n++];
	p->q = ofl_xmalloc(r->at - from + 1);
	memcpy(p->q, r->q + from, r->at - from);
	p->q[r->at - from] = '\0';
	p->ntok = w->n;
	p->and = ofl_xmalloc(w->q.len + 3);
	snprintf(p->and, w->q.len + 3, "%.*s%s", (int)w->q.len,
	    w->q.len > 0 ? w->q.data : "", r->q[r->at - 1] == '*' &&
	    r->at - 1 > from ? "*" : "");
}

/*
 * A phrase at r->at: its items joined by "+", a "*" after the last.
 * Several words: their AND, in parentheses; one: as written.
 */
static void
phrase_relax(struct relax *r)
{
	struct words	 w;
	struct ofl_buf	 t;
	size_t		 from = r->at, save;
	int		 star = 0, plus = 0;

	memset(&w, 0, sizeof w);
	ofl_buf_init(&w.q);
	ofl_buf_init(&t);
	w.r = r;
	for (;;) {
		t.len = 0;
		(void)item_read(r, &t);
		ofl_buf_addc(&t, '\0');
		w.text = t.data;
		(void)ofl_tok_run(r->tk, 1, t.data, t.len - 1, word_cb, &w);
		save = r->at;
		skip_space(r);
		if (r->q[r->at] == '*') {
			star = 1;
			r->at++;
			break;
		}
		if (r->q[r->at] != '+') {
			r->at = save;
			break;
		}
		r->at++;
		plus = 1;
		skip_space(r);
	}
	phrase_note(r, from, &w);
	if (w.n <= 1 && !plus)
		ofl_buf_add(&r->out, r->q + from, r->at - from);
	else {
		r->changed = 1;
		ofl_buf_addc(&r->out, '(');
		ofl_buf_add(&r->out, w.q.data, w.q.len);
		if (star)
			ofl_buf_addc(&r->out, '*');
		ofl_buf_addc(&r->out, ')');
	}
	if (star)
		ofl_buf_addc(&r->any, '*');
	ofl_buf_free(&w.q);
	ofl_buf_free(&t);
}

/* "NEAR(a b, 5)" at r->at, past "NEAR": the AND of its phrases. */
static void
near_relax(struct relax *r)
{
	size_t	n = 0;

	r->changed = 1;
	r->at++;			/* "(" */
	ofl_buf_addc(&r->out, '(');
	for (;;) {
		skip_space(r);
		if (r->q[r->at] == '\0' || r->q[r->at] == ')' ||
		    r->q[r->at] == ',')
			break;
		if (r->q[r->at] != '"' && !bare_byte((unsigned char)
		    r->q[r->at])) {
			ofl_buf_addc(&r->out, r->q[r->at++]);
			continue;
		}
		if (n++ > 0)
			ofl_buf_adds(&r->out, " AND ");
		phrase_relax(r);
	}
	/* The distance, and the parenthesis. */
	while (r->q[r->at] != '\0' && r->q[r->at] != ')')
		r->at++;
	if (r->q[r->at] == ')')
		r->at++;
	ofl_buf_addc(&r->out, ')');
}

static int
keyword(const struct relax *r, const char *kw)
{
	size_t	n = strlen(kw);

	return strncmp(r->q + r->at, kw, n) == 0 &&
	    !bare_byte((unsigned char)r->q[r->at + n]);
}

/* A bare word before ":" names a column. */
static int
column_name(const struct relax *r)
{
	size_t	i = r->at;

	if (!bare_byte((unsigned char)r->q[i]))
		return 0;
	while (bare_byte((unsigned char)r->q[i]))
		i++;
	while (r->q[i] == ' ' || r->q[i] == '\t')
		i++;
	return r->q[i] == ':';
}

/*
 * A column filter at r->at ("title:", "{title body}:", "-body:"), passed
 * over: the generations keep no columns, and the query as written checks
 * them on the text.  0 if there is none there.
 */
static int
column_set(struct relax *r)
{
	size_t	save = r->at;

	if (r->q[r->at] == '-') {
		r->at++;
		skip_space(r);
	}
	if (r->q[r->at] == '{') {
		while (r->q[r->at] != '\0' && r->q[r->at] != '}')
			r->at++;
		if (r->q[r->at] == '}')
			r->at++;
		skip_space(r);
	} else if (column_name(r)) {
		while (bare_byte((unsigned char)r->q[r->at]))
			r->at++;
		skip_space(r);
	}
	if (r->q[r->at] != ':') {
		r->at = save;
		return 0;
	}
	r->at++;
	return 1;
}

void
store_fts_relaxed_free(struct fts_relaxed *rx)
{
	size_t	i;

	for (i = 0; i < rx->n; i++) {
		free(rx->p[i].q);
		free(rx->p[i].and);
	}
	free(rx->p);
	free(rx->match);
	memset(rx, 0, sizeof *rx);
}

int
store_fts_relax(struct ofl_tok *tk, const char *q, struct fts_relaxed *rx)
{
	struct relax	r;
	size_t		save;

	memset(rx, 0, sizeof *rx);
	memset(&r, 0, sizeof r);
	r.tk = tk;
	r.q = q;
	r.rx = rx;
	ofl_buf_init(&r.out);
	ofl_buf_init(&r.any);
	while (q[r.at] != '\0') {
		if (keyword(&r, "AND") || keyword(&r, "OR") ||
		    keyword(&r, "NOT")) {
			r.deny |= q[r.at] == 'N';
			while (bare_byte((unsigned char)q[r.at]))
				ofl_buf_addc(&r.out, q[r.at++]);
		} else if (keyword(&r, "NEAR")) {
			save = r.at;
			r.at += 4;
			skip_space(&r);
			if (q[r.at] == '(')
				near_relax(&r);
			else {
				r.at = save;
				phrase_relax(&r);
			}
		} else if (column_set(&r))
			r.changed = 1;
		else if (q[r.at] == '"' || bare_byte((unsigned char)q[r.at]))
			phrase_relax(&r);
		else if (q[r.at] == '^') {
			r.changed = 1;
			r.at++;
		} else
			ofl_buf_addc(&r.out, q[r.at++]);
	}
	if (!r.changed) {
		ofl_buf_free(&r.out);
		ofl_buf_free(&r.any);
		store_fts_relaxed_free(rx);
		return 0;
	}
	/*
	 * Under NOT, a phrase's AND would leave out chunks the phrase
	 * leaves in: any of the words, then, which every match holds.
	 */
	if (r.deny && r.any.len > 0) {
		ofl_buf_free(&r.out);
		rx->match = ofl_buf_str(&r.any);
	} else {
		ofl_buf_free(&r.any);
		rx->match = ofl_buf_str(&r.out);
	}
	return 1;
}

/* Checking the rows a relaxed query found. */

/* A row to check, and where it is in the caller's array. */
struct row {
	int64_t		 id;
	size_t		 i;
};

struct keep {
	sqlite3		*db;
	sqlite3_stmt	*ins;
	const struct row *id;		/* sorted */
	size_t		 n;
	size_t		 next;		/* the next of id to load */
	int64_t		 blob;
	int64_t		 seq;
	int		 failed;
};

static int
keep_insert(struct keep *k, const struct ofl_chunk *c, int64_t row)
{
	sqlite3_bind_int64(k->ins, 1, row);
	sqlite3_bind_text(k->ins, 2, c->title != NULL ? c->title : "",
	    c->title != NULL ? (int)c->title_len : 0, SQLITE_STATIC);
	sqlite3_bind_text(k->ins, 3, c->len > 0 ? c->text : "", (int)c->len,
	    SQLITE_STATIC);
	if (sqlite3_step(k->ins) != SQLITE_DONE) {
		k->failed = 1;
		return -1;
	}
	sqlite3_reset(k->ins);
	return 0;
}

/* A chunk of the blob: into the table if it is one of the rows. */
static int
keep_chunk(const struct ofl_chunk *c, void *arg)
{
	struct keep	*k = arg;
	int64_t		 row = ix_rowid(k->blob, k->seq++);

	if (k->next >= k->n || k->id[k->next].id >> IX_CHUNK_BITS != k->blob)
		return 1;
	if (row < k->id[k->next].id)
		return 0;
	if (keep_insert(k, c, row) == -1)
		return 1;
	while (k->next < k->n && k->id[k->next].id <= row)
		k->next++;
	return 0;
}

/*
 * The header that leads each chunk's text, for a kind whose chunks are
 * their bytes after it: the bytes before the first chunk, at the start
 * of *buf (their count returned, -1 on error).
 */
static ssize_t
keep_header(struct keep *k, struct ofl_reader *r, char **buf)
{
	sqlite3_stmt	*s;
	int64_t		 n = 0;
	int		 rc;

	if (store_stmt(k->db, "SELECT byte_start FROM ix_chunk WHERE id = ?1",
	    &s) == -1)
		return keep_err(k->db);
	sqlite3_bind_int64(s, 1, ix_rowid(k->blob, 0));
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	store_stmt_done(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return keep_err(k->db);
	if (n > OFL_CHUNK_HEADER_MAX)
		n = OFL_CHUNK_HEADER_MAX;
	if (n <= 0)
		return 0;
	*buf = ofl_xrealloc(*buf, (size_t)n);
	if (ofl_reader_seek(r, 0) == -1 ||
	    ofl_reader_read_full(r, *buf, (size_t)n) != (ssize_t)n)
		return -1;
	return (ssize_t)n;
}

/*
 * The rows of k's blob read back from its bytes, where its kind's chunks
 * are their bytes (never an archive's members), after its header when
 * header is set; -1 on error.
 */
static int
keep_bytes(struct keep *k, struct ofl_reader *r, int header)
{
	sqlite3_stmt	*s = NULL;
	struct ofl_chunk c;
	size_t		 end = k->next, at = 0;
	ssize_t		 h;
	int64_t		 row;
	char		*buf = NULL;
	int		 rc, ret = -1;

	while (end < k->n && k->id[end].id >> IX_CHUNK_BITS == k->blob)
		end++;
	if (header) {
		if ((h = keep_header(k, r, &buf)) == -1)
			goto out;
		at = (size_t)h;
	}
	if (store_stmt(k->db, "SELECT id, title, byte_start, byte_end FROM"
	    " ix_chunk WHERE id BETWEEN ?1 AND ?2 AND member IS NULL"
	    " ORDER BY id", &s) == -1) {
		s = NULL;
		keep_err(k->db);
		goto out;
	}
	sqlite3_bind_int64(s, 1, k->id[k->next].id);
	sqlite3_bind_int64(s, 2, k->id[end - 1].id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		row = sqlite3_column_int64(s, 0);
		while (k->next < end && k->id[k->next].id < row)
			k->next++;
		if (k->next == end)
			break;
		if (k->id[k->next].id != row)
			continue;
		memset(&c, 0, sizeof c);
		c.title = (const char *)sqlite3_column_text(s, 1);
		c.title_len = (size_t)sqlite3_column_bytes(s, 1);
		c.len = (size_t)(sqlite3_column_int64(s, 3) -
		    sqlite3_column_int64(s, 2));
		buf = ofl_xrealloc(buf, at + c.len + 1);
		if (ofl_reader_seek(r, (uint64_t)sqlite3_column_int64(s,
		    2)) == -1 || ofl_reader_read_full(r, buf + at, c.len) !=
		    (ssize_t)c.len)
			goto out;
		c.text = buf;
		c.len += at;
		c.head = at;
		if (keep_insert(k, &c, row) == -1)
			goto out;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		keep_err(k->db);
		goto out;
	}
	k->next = end;
	ret = 0;
out:
	if (s != NULL)
		store_stmt_done(s);
	free(buf);
	return ret;
}

/*
 * The path of blob's content file when its row is there and the file is
 * not, or NULL.  A query reads one snapshot of the store, in which the
 * rows of a blob stay after a gc has removed them and then unlinked the
 * file (it unlinks after its commit): asked again once the snapshot is
 * over, a file still missing is damage.
 */
char *
store_fts_file_missing(struct ofl_store *st, int64_t blob)
{
	struct stat	 sb;
	char		*file, *path;

	if (st->pg != NULL)
		return NULL;	/* no files */
	if (store_blob_file(st, blob, &file) == -1 || file == NULL)
		return NULL;
	path = store_blob_path(st, file);
	free(file);
	if (lstat(path, &sb) == 0 || errno != ENOENT) {
		free(path);
		path = NULL;
	}
	return path;
}

/*
 * The chunks of one blob among k's rows, read back or chunked again; 0
 * and none kept when the blob is gone (a gc removed its artifacts, or
 * its file, since the query found them).
 */
static int
keep_blob(struct ofl_store *st, struct keep *k)
{
	struct ofl_reader	*r;
	struct ofl_meta		 m;
	char			 id[64], *path;
	int			 kind, rc, tries;

	for (tries = 0;; tries++) {
		if ((rc = ofl_store_fts_blob_art(st, k->blob, NULL, id,
		    sizeof id)) != 1)
			return rc;
		if ((r = ofl_reader_open(st, id)) != NULL)
			break;
		if ((path = store_fts_file_missing(st, k->blob)) != NULL) {
			/* Looked at again when the query is over. */
			free(path);
			if (st->fts_missing == 0)
				st->fts_missing = k->blob;
			ofl_clearerr();
			return 0;
		}
		/* Removed since it was looked up: another may hold it. */
		if (tries == 2 || ofl_store_meta(st, id, &m) == 0) {
			if (tries < 2)
				ofl_meta_free(&m);
			return -1;
		}
		ofl_clearerr();
	}
	kind = ofl_reader_meta(r)->kind;
	k->seq = 0;
	if (ofl_chunk_is_bytes(kind) > 0)
		rc = keep_bytes(k, r, ofl_chunk_is_bytes(kind) == 2);
	else
		rc = ofl_reader_chunks(r, kind, keep_chunk, k) < 0 &&
		    k->failed ? -1 : 0;
	ofl_reader_close(r);
	return k->failed || rc == -1 ? -1 : 0;
}

static int
id_cmp(const void *a, const void *b)
{
	int64_t	x = ((const struct row *)a)->id, y = ((const struct row *)b)->id;

	return x < y ? -1 : x > y;
}

/*
 * The error of a statement that matched match: the user's (a usage error
 * that names the query, as FTS5's words may end without the token they
 * mean: "unknown special query: ") when raw, else the search's.
 */
int
ix_match_err(sqlite3 *db, const char *match, int raw)
{
	const char	*m = sqlite3_errmsg(db);
	char		*q;
	size_t		 n = strlen(m);

	if (!raw) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", m);
		return -1;
	}
	while (n > 0 && (m[n - 1] == ' ' || m[n - 1] == ':'))
		n--;
	q = ofl_shquote(match);
	ofl_seterr(OFL_EXIT_USAGE, "--fts %s: %.*s", q, (int)n, m);
	free(q);
	return -1;
}

static int
keep_err(sqlite3 *db)
{
	return ix_match_err(db, NULL, 0);
}

/*
 * The rows id[0..n), sorted, into the table in memory named table (one
 * of this file's: ix_pos, ix_pos2), emptied first: their title and text
 * as the indexer wrote them.
 */
static int
load(struct ofl_store *st, const char *table, const struct row *id,
    size_t n)
{
	sqlite3		*db = ofl_store_db(st);
	struct keep	 k;
	char		 sql[192];
	int		 ret = -1;

	memset(&k, 0, sizeof k);
	k.db = db;
	k.id = id;
	k.n = n;
	/* Its rows are matched and ranked, never read: no content. */
	snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE IF NOT EXISTS"
	    " temp.%s USING fts5(title, body, content='', tokenize='ofl');"
	    " INSERT INTO temp.%s(%s) VALUES('delete-all')", table, table,
	    table);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return keep_err(db);
	snprintf(sql, sizeof sql, "INSERT INTO temp.%s(rowid, title, body)"
	    " VALUES(?1, ?2, ?3)", table);
	if (sqlite3_prepare_v2(db, sql, -1, &k.ins, NULL) != SQLITE_OK)
		return keep_err(db);
	while (k.next < n) {
		k.blob = id[k.next].id >> IX_CHUNK_BITS;
		if (keep_blob(st, &k) == -1) {
			if (k.failed)
				keep_err(db);
			goto out;
		}
		/* Rows of the blob not reached: gone, never kept. */
		while (k.next < n && id[k.next].id >> IX_CHUNK_BITS == k.blob)
			k.next++;
	}
	ret = 0;
out:
	sqlite3_finalize(k.ins);
	return ret;
}

/* The rows of the table that match q, flagged in ok (score: their rank). */
static int
keep_match(sqlite3 *db, const char *q, const char *rank, int raw,
    const struct row *id, size_t n, unsigned char *ok, double *score)
{
	sqlite3_stmt	*s;
	char		 sql[160];
	int64_t		 row;
	size_t		 lo, hi, mid;
	int		 rc;

	snprintf(sql, sizeof sql, "SELECT rowid%s FROM temp.ix_pos WHERE"
	    " ix_pos MATCH ?1%s%s%s", rank != NULL ? ", -rank" : "",
	    rank != NULL ? " AND rank MATCH '" : "", rank != NULL ? rank : "",
	    rank != NULL ? "'" : "");
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return ix_match_err(db, q, raw);
	sqlite3_bind_text(s, 1, q, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		row = sqlite3_column_int64(s, 0);
		for (lo = 0, hi = n; lo < hi; ) {
			mid = lo + (hi - lo) / 2;
			if (id[mid].id < row)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && id[lo].id == row; lo++) {
			if (score != NULL)
				score[id[lo].i] = sqlite3_column_double(s, 1);
			else
				ok[id[lo].i] = 1;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return ix_match_err(db, q, raw);
	return 0;
}

/*
 * The rows of blob in generation gen's table that match q, up to max of
 * them into *id (NULL: counted only); their number, or -1.
 */
static int64_t
blob_rows(sqlite3 *db, int64_t gen, int64_t blob, const char *q,
    struct row **id, size_t max)
{
	sqlite3_stmt	*s;
	char		 t[32], sql[192];
	int64_t		 n = 0;
	int		 rc;

	ix_gen_name(gen, t, sizeof t);
	snprintf(sql, sizeof sql, "SELECT rowid FROM %s WHERE %s MATCH ?1"
	    " AND rowid BETWEEN ?2 AND ?3", t, t);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return keep_err(db);
	sqlite3_bind_text(s, 1, q, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, ix_rowid(blob, 0));
	sqlite3_bind_int64(s, 3, ix_rowid(blob + 1, 0) - 1);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (id != NULL && (size_t)n < max) {
			(*id)[n].id = sqlite3_column_int64(s, 0);
			(*id)[n].i = (size_t)n;
		}
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return keep_err(db);
	return n;
}

/* Rows read to count a phrase's; beyond, the count is in proportion. */
#define PHRASE_ROWS	256

/*
 * How many rows of blob hold each phrase of rx, into nhit: a word's from
 * the index, a phrase of several words' by the rows that hold them all,
 * read (PHRASE_ROWS of them at most) and matched by the phrase.
 */
static int
phrase_counts(struct ofl_store *st, int64_t blob, const struct fts_relaxed *rx,
    int64_t *nhit)
{
	sqlite3		*db = ofl_store_db(st);
	sqlite3_stmt	*s;
	struct row	*id;
	int64_t		 gen, n, m;
	size_t		 i;
	int		 rc;

	if ((gen = ix_gen_of(db, blob)) < 0)
		return gen == -2 ? -1 : 0;
	id = ofl_xcalloc(PHRASE_ROWS, sizeof *id);
	for (i = 0; i < rx->n; i++) {
		nhit[i] = 0;
		if (rx->p[i].ntok <= 1) {
			if ((n = blob_rows(db, gen, blob, rx->p[i].q, NULL,
			    0)) == -1)
				goto fail;
			nhit[i] = n;
			continue;
		}
		if ((n = blob_rows(db, gen, blob, rx->p[i].and, &id,
		    PHRASE_ROWS)) == -1 || load(st, "ix_pos2", id, (size_t)n <
		    PHRASE_ROWS ? (size_t)n : PHRASE_ROWS) == -1)
			goto fail;
		if (n == 0)
			continue;
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM temp.ix_pos2"
		    " WHERE ix_pos2 MATCH ?1", -1, &s, NULL) != SQLITE_OK) {
			keep_err(db);
			goto fail;
		}
		sqlite3_bind_text(s, 1, rx->p[i].q, -1, SQLITE_STATIC);
		rc = sqlite3_step(s);
		m = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
		sqlite3_finalize(s);
		nhit[i] = n <= PHRASE_ROWS ? m : m * n / PHRASE_ROWS;
	}
	free(id);
	return 0;
fail:
	free(id);
	return -1;
}

/*
 * The statistics of the ranking of rx, relaxed from a query, for each
 * blob of id[0..n): its rows that hold each of the query's phrases.
 */
static int
give_counts(struct ofl_store *st, const struct fts_relaxed *rx,
    const struct row *id, size_t n)
{
	int64_t		*nhit, blob = -1;
	size_t		 i;
	int		 ret = 0;

	nhit = ofl_xcalloc(rx->n + 1, sizeof *nhit);
	for (i = 0; i < n && ret == 0; i++) {
		if (id[i].id >> IX_CHUNK_BITS == blob)
			continue;
		blob = id[i].id >> IX_CHUNK_BITS;
		if ((ret = phrase_counts(st, blob, rx, nhit)) == 0)
			store_fts_rank_give(blob, (int)rx->n, nhit);
	}
	free(nhit);
	return ret;
}

/*
 * The rows a query found on a generation that keeps no places (ranked
 * with IX_RANK_KEEP), chunked again into a table that does: ok[i] if
 * rows[i] matches query as written, and with score, its score as an
 * index with places ranks it, each word counted as often as it occurs.
 * rx: the query was relaxed (NULL: it ran as written).
 */
int
store_fts_keep(struct ofl_store *st, const char *query,
    const struct fts_relaxed *rx, int raw, const int64_t *rows, size_t n,
    unsigned char *ok, double *score)
{
	sqlite3		*db = ofl_store_db(st);
	struct row	*id;
	size_t		 i;
	int		 ret = -1;

	memset(ok, 0, n);
	/* No row: the query as written is still judged (a bad NEAR). */
	id = ofl_xcalloc(n + 1, sizeof *id);
	for (i = 0; i < n; i++) {
		id[i].id = rows[i];
		id[i].i = i;
	}
	qsort(id, n, sizeof *id, id_cmp);
	if (load(st, "ix_pos", id, n) == -1 ||
	    keep_match(db, query, NULL, raw, id, n, ok, NULL) == -1)
		goto out;
	if (score != NULL && rx != NULL) {
		/* The relaxed query's statistics are not the query's. */
		store_fts_rank_forget();
		if (give_counts(st, rx, id, n) == -1)
			goto out;
	}
	if (score != NULL && keep_match(db, query, rx == NULL ? IX_RANK_TEXT :
	    IX_RANK_GIVEN, raw, id, n, ok, score) == -1)
		goto out;
	ret = 0;
out:
	store_fts_rank_forget();
	(void)sqlite3_exec(db, "INSERT INTO temp.ix_pos(ix_pos)"
	    " VALUES('delete-all')", NULL, NULL, NULL);
	free(id);
	return ret;
}
