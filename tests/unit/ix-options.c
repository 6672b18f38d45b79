/*
 * ix-options.c: what the search index of a store would weigh with other
 * FTS5 options, for tests/bench-index-options.sh; not installed.
 *
 * Each generation's table of the index (ofl-ix.db) is read back through
 * fts5vocab's instances (term, row, column, position) and written again
 * into a scratch database, once per set of options, with the rowids as
 * the store has them (artifact << 24 | chunk) or dense (1, 2, 3 ...).
 * The terms are the ofl tokenizer's own, words and colocated tokens
 * alike, so the rebuild with the store's options weighs what the store's
 * index weighs.  Prints one line per set: the options, the rowids, and
 * the bytes of the pages.
 *
 *	ix-options INDEX.db SCRATCH.db
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#define COLOCATED	'\001'	/* a token at the position of the one before */

struct text {
	char	*d;
	size_t	 n;
	size_t	 cap;
};

static fts5_tokenizer	 words;
static void		*words_ud;

static fts5_api *
fts5(sqlite3 *db)
{
	sqlite3_stmt	*s;
	fts5_api	*api = NULL;

	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &s, NULL) !=
	    SQLITE_OK)
		return NULL;
	sqlite3_bind_pointer(s, 1, (void *)&api, "fts5_api_ptr", NULL);
	(void)sqlite3_step(s);
	sqlite3_finalize(s);
	return api;
}

/* The store's tokenizer stands in as unicode61: only its name is read. */
static int
stand_create(void *ud, const char **arg, int narg, Fts5Tokenizer **out)
{
	(void)ud;
	(void)arg;
	(void)narg;
	return words.xCreate(words_ud, NULL, 0, out);
}

static void
stand_delete(Fts5Tokenizer *t)
{
	words.xDelete(t);
}

static int
stand_tokenize(Fts5Tokenizer *t, void *ctx, int flags, const char *p, int n,
    int (*tok)(void *, int, const char *, int, int, int))
{
	return words.xTokenize(t, ctx, flags, p, n, tok);
}

/* The rebuild's tokenizer: tokens between spaces, as written. */
static int
ws_create(void *ud, const char **arg, int narg, Fts5Tokenizer **out)
{
	(void)ud;
	(void)arg;
	(void)narg;
	*out = (Fts5Tokenizer *)&words;
	return SQLITE_OK;
}

static void
ws_delete(Fts5Tokenizer *t)
{
	(void)t;
}

static int
ws_tokenize(Fts5Tokenizer *t, void *ctx, int flags, const char *p, int n,
    int (*tok)(void *, int, const char *, int, int, int))
{
	int	i = 0, start, co, rc;

	(void)t;
	(void)flags;
	while (i < n) {
		while (i < n && p[i] == ' ')
			i++;
		start = i;
		while (i < n && p[i] != ' ')
			i++;
		if (i == start)
			continue;
		co = p[start] == COLOCATED;
		if ((rc = tok(ctx, co ? FTS5_TOKEN_COLOCATED : 0, p + start + co,
		    i - start - co, start, i)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static int
tokenizers(sqlite3 *db)
{
	static fts5_tokenizer	 stand = {
		stand_create, stand_delete, stand_tokenize
	};
	static fts5_tokenizer	 ws = { ws_create, ws_delete, ws_tokenize };
	fts5_api		*api;

	if ((api = fts5(db)) == NULL ||
	    api->xFindTokenizer(api, "unicode61", &words_ud, &words) !=
	    SQLITE_OK ||
	    api->xCreateTokenizer(api, "ofl", NULL, &stand, NULL) !=
	    SQLITE_OK ||
	    api->xCreateTokenizer(api, "ws", NULL, &ws, NULL) != SQLITE_OK)
		return -1;
	return 0;
}

static void
text_add(struct text *t, const char *p, size_t n)
{
	if (t->n + n + 1 > t->cap) {
		t->cap = (t->n + n + 1) * 2;
		if ((t->d = realloc(t->d, t->cap)) == NULL) {
			perror("ix-options");
			exit(1);
		}
	}
	memcpy(t->d + t->n, p, n);
	t->n += n;
	t->d[t->n] = '\0';
}

static int
row_put(sqlite3_stmt *ins, int64_t rowid, struct text *col)
{
	int	i;

	sqlite3_bind_int64(ins, 1, rowid);
	for (i = 0; i < 2; i++)
		sqlite3_bind_text(ins, i + 2, col[i].n > 0 ? col[i].d : "",
		    (int)col[i].n, SQLITE_STATIC);
	i = sqlite3_step(ins);
	sqlite3_reset(ins);
	col[0].n = col[1].n = 0;
	return i == SQLITE_DONE ? 0 : -1;
}

/* Table gen of src again into dst's table t; rows dense from *seq. */
static int
rebuild(sqlite3 *src, const char *gen, sqlite3 *dst, int dense,
    int64_t *seq)
{
	sqlite3_stmt	*q = NULL, *ins = NULL;
	struct text	 col[2];
	char		 sql[256];
	int64_t		 row, cur = -1;
	int		 c, off, last[2] = { -1, -1 }, rv = -1;

	memset(col, 0, sizeof col);
	snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS temp.v;"
	    " CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, '%s',"
	    " 'instance')", gen);
	if (sqlite3_exec(src, sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(src, "SELECT doc, col = 'title', offset, term"
	    " FROM temp.v ORDER BY doc, col, offset", -1, &q, NULL) !=
	    SQLITE_OK ||
	    sqlite3_prepare_v2(dst, "INSERT INTO t(rowid, title, body)"
	    " VALUES (?1, ?2, ?3)", -1, &ins, NULL) != SQLITE_OK)
		goto out;
	while (sqlite3_step(q) == SQLITE_ROW) {
		row = sqlite3_column_int64(q, 0);
		c = sqlite3_column_int(q, 1) ? 0 : 1;
		off = sqlite3_column_int(q, 2);
		if (row != cur) {
			if (cur != -1 && row_put(ins, dense ? ++*seq : cur,
			    col) == -1)
				goto out;
			cur = row;
			last[0] = last[1] = -1;
		}
		text_add(&col[c], off == last[c] ? " \001" : " ",
		    off == last[c] ? 2 : 1);
		text_add(&col[c], (const char *)sqlite3_column_text(q, 3),
		    (size_t)sqlite3_column_bytes(q, 3));
		last[c] = off;
	}
	if (cur != -1 && row_put(ins, dense ? ++*seq : cur, col) == -1)
		goto out;
	rv = 0;
out:
	if (rv == -1)
		fprintf(stderr, "ix-options: %s: %s\n", gen,
		    sqlite3_errmsg(dst));
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	free(col[0].d);
	free(col[1].d);
	return rv;
}

/* Every generation of src into a new scratch with opts; its bytes. */
static int64_t
weigh(sqlite3 *src, const char *scratch, const char *opts, int dense)
{
	sqlite3		*dst = NULL;
	sqlite3_stmt	*g = NULL, *s = NULL;
	char		 sql[256];
	int64_t		 seq = 0, n = -1;

	unlink(scratch);
	snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE t USING fts5(title,"
	    " body, content='', tokenize='ws'%s%s)", *opts ? ", " : "", opts);
	if (sqlite3_open(scratch, &dst) != SQLITE_OK || tokenizers(dst) ||
	    sqlite3_exec(dst, sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(dst, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(src, "SELECT name FROM sqlite_master WHERE"
	    " type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5(%'"
	    " ORDER BY name", -1, &g, NULL) != SQLITE_OK)
		goto out;
	while (sqlite3_step(g) == SQLITE_ROW)
		if (rebuild(src, (const char *)sqlite3_column_text(g, 0), dst,
		    dense, &seq) == -1)
			goto out;
	if (sqlite3_exec(dst, "COMMIT; INSERT INTO t(t) VALUES('optimize');"
	    " VACUUM", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(dst, "SELECT sum(pgsize) FROM dbstat WHERE"
	    " name LIKE 't_%'", -1, &s, NULL) != SQLITE_OK)
		goto out;
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
out:
	if (n == -1)
		fprintf(stderr, "ix-options: %s\n", dst != NULL ?
		    sqlite3_errmsg(dst) : "cannot open the scratch database");
	sqlite3_finalize(g);
	sqlite3_finalize(s);
	sqlite3_close(dst);
	unlink(scratch);
	return n;
}

int
main(int argc, char *argv[])
{
	static const char *const opts[] = {
		"", "columnsize=0", "detail=column",
		"detail=column, columnsize=0", "detail=none",
		"detail=none, columnsize=0"
	};
	sqlite3		*src;
	size_t		 i;
	int64_t		 n;
	int		 dense;

	if (argc != 3) {
		fprintf(stderr, "usage: ix-options INDEX.db SCRATCH.db\n");
		return 2;
	}
	if (sqlite3_open_v2(argv[1], &src, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK || tokenizers(src) == -1) {
		fprintf(stderr, "ix-options: %s: %s\n", argv[1],
		    sqlite3_errmsg(src));
		return 1;
	}
	for (i = 0; i < sizeof opts / sizeof opts[0]; i++)
		for (dense = 0; dense <= 1; dense++) {
			if ((n = weigh(src, argv[2], opts[i], dense)) == -1)
				return 1;
			printf("%s\t%s\t%lld\n", *opts[i] ? opts[i] :
			    "detail=full", dense ? "dense" : "artifact<<24",
			    (long long)n);
		}
	sqlite3_close(src);
	return 0;
}
