/*
 * test-search-gc.c: a search of the whole store while a gc removes one of
 * its hits.  The query reads one snapshot of the store; a gc in another
 * process that commits the removal and unlinks the content file after
 * the snapshot began leaves rows the query still sees and a file that is
 * gone.  That hit is left out and the search succeeds; a content file
 * missing without a gc (damage) is still an error.  The gc runs on a
 * second connection from SQLite's progress handler, once the query's
 * transaction has begun, so the race is the same at every run.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ofl.h"
#include "tap.h"
#include "banned.h"

static char	 tmpdir[4096];

/* What the progress handler does, once the query's BEGIN is seen. */
static struct race {
	const char	*victim;	/* the artifact the gc removes */
	int		 armed;
	int		 done;
	int		 removed;
} race;

static int
store_text(struct ofl_store *st, const char *text, char id[OFL_ID_MAX + 1])
{
	struct ofl_writer	*w;
	struct ofl_meta		 m;

	if ((w = ofl_writer_begin(st, NULL)) == NULL)
		return -1;
	if (ofl_writer_write(w, text, strlen(text)) == -1) {
		ofl_writer_finish(w, NULL, NULL);
		return -1;
	}
	if (ofl_writer_finish(w, NULL, &m) == -1)
		return -1;
	snprintf(id, OFL_ID_MAX + 1, "%s", m.id);
	ofl_meta_free(&m);
	return 0;
}

static int
count_removed(const struct ofl_meta *m, const char *why, void *arg)
{
	(void)why;
	if (m != NULL)
		(*(int *)arg)++;
	return 0;
}

/* The gc of another process: a connection of its own purges victim. */
static void
gc_victim(void)
{
	struct ofl_store	*st;
	struct ofl_gc_opts	 o;
	struct ofl_gc_report	 r;
	const char		*purge[1];

	if ((st = ofl_store_open(tmpdir, OFL_RDWR)) == NULL)
		return;
	ofl_gc_opts_init(&o);
	purge[0] = race.victim;
	o.purge = purge;
	o.npurge = 1;
	(void)ofl_gc_run(st, &o, count_removed, &race.removed, &r);
	ofl_store_close(st);
}

static int
on_trace(unsigned type, void *arg, void *p, void *x)
{
	(void)type;
	(void)arg;
	(void)p;
	if (!race.done && strncmp((const char *)x, "BEGIN", 5) == 0)
		race.armed = 1;
	return 0;
}

/*
 * Called every few instructions of a statement: once the query has read
 * the store and its index (the snapshot of both taken), the gc runs.
 */
static int
on_progress(void *arg)
{
	sqlite3	*db = arg;

	if (race.armed && !race.done &&
	    sqlite3_txn_state(db, "main") == SQLITE_TXN_READ &&
	    sqlite3_txn_state(db, "ix") == SQLITE_TXN_READ) {
		race.done = 1;
		gc_victim();
	}
	return 0;
}

static char *
search_all(struct ofl_store *st, const char *query, int *rv)
{
	struct ofl_search_opts	 o;
	struct ofl_buf		 out;
	char			*s;

	ofl_buf_init(&out);
	ofl_search_opts_init(&o);
	o.query = query;
	o.limit = 10;
	o.budget = 100000;
	*rv = ofl_search(st, NULL, 0, &o, &out);
	s = ofl_xstrdup(ofl_buf_str(&out));
	ofl_buf_free(&out);
	return s;
}

static void
test_race(void)
{
	struct ofl_store	*st;
	struct ofl_buf		 t;
	char			 ids[3][OFL_ID_MAX + 1], *got;
	int			 i, j, rv;

	st = ofl_store_open(tmpdir, OFL_RDWR);
	ok(st != NULL, "a store opens");
	if (st == NULL)
		return;
	ofl_buf_init(&t);
	for (i = 0; i < 3; i++) {
		ofl_buf_reset(&t);
		for (j = 0; j < 400; j++)
			ofl_buf_addf(&t, "line %d of artifact %d: all is well\n",
			    j, i);
		ofl_buf_addf(&t, "error: disk %d is full\n", i);
		if (store_text(st, ofl_buf_str(&t), ids[i]) == -1)
			break;
	}
	ofl_buf_free(&t);
	ok(i == 3, "three artifacts stored");
	if (i < 3) {
		ofl_store_close(st);
		return;
	}
	ok(ofl_index_init(st) == 0 && ofl_index_pending(st, NULL, NULL,
	    NULL) == 3, "the three indexed");
	got = search_all(st, "disk full", &rv);
	ok(rv == 3 && strstr(got, "(substring)") == NULL &&
	    strstr(got, ids[0]) != NULL && strstr(got, ids[1]) != NULL &&
	    strstr(got, ids[2]) != NULL,
	    "the whole store finds all three in the index");
	free(got);

	race.victim = ids[1];
	sqlite3_trace_v2(ofl_store_db(st), SQLITE_TRACE_STMT, on_trace, NULL);
	sqlite3_progress_handler(ofl_store_db(st), 4, on_progress,
	    ofl_store_db(st));
	got = search_all(st, "disk full", &rv);
	sqlite3_progress_handler(ofl_store_db(st), 0, NULL, NULL);
	sqlite3_trace_v2(ofl_store_db(st), 0, NULL, NULL);
	ok(race.done && race.removed == 1,
	    "a gc removed one hit while the query read its snapshot");
	ok(rv == 2, "the search succeeds with the two left (got %d: %s)",
	    rv, rv == -1 ? ofl_errmsg() : "");
	ok(strstr(got, ids[0]) != NULL && strstr(got, ids[2]) != NULL &&
	    strstr(got, ids[1]) == NULL, "the removed one is left out");
	free(got);

	/* No gc: a content file missing is damage, and said. */
	ofl_buf_init(&t);
	ofl_buf_addf(&t, "%s/blobs/%.2s/%s", tmpdir, ids[2], ids[2]);
	ok(unlink(ofl_buf_str(&t)) == 0,
	    "a content file unlinked behind the store");
	ofl_buf_free(&t);
	ofl_clearerr();
	got = search_all(st, "disk full", &rv);
	ok(rv == -1 && ofl_errcode() == OFL_EXIT_FAIL &&
	    strstr(ofl_errmsg(), "content missing") != NULL,
	    "then the search fails: content missing (got %d: %s)", rv,
	    ofl_errmsg());
	free(got);
	ofl_store_close(st);
}

int
main(void)
{
	if (tap_tmpdir(tmpdir, sizeof tmpdir, "ofl-test-search-gc") == -1)
		return 0;
	unsetenv("OFL_STORE");
	unsetenv("OFL_LEVEL");
	unsetenv("OFL_REDACT");
	test_race();
	tap_rmtree(tmpdir);
	return done_testing();
}
