/*
 * index.c: the indexer, an artifact's chunks into the full-text index.
 *
 * The index is keyed by content (the store's blob): two artifacts with
 * the same bytes share one set of chunks.  The chunker (chunk.c) cuts an
 * artifact into chunks; they are written a batch at a time, each batch
 * in one short transaction (store-fts.c), so that searches and a gc are
 * never held up for long and an indexer cut short resumes where it was.
 *
 * The text is not kept twice: FTS5 keeps only the index, and snippets are
 * cut from the artifact itself through a reader.  A blob's rows are not
 * deleted one token at a time (FTS5 would need the content again): the
 * store buries them, and they go with their generation of the index
 * (store-gen.c).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

#define CHUNK_MAX	OFL_FTS_CHUNK_MAX
#define BATCH_BYTES	(8 * 1024 * 1024)
#define BATCH_CHUNKS	4096
#define BATCH_MS	2000
/* In the background, shorter holds of the write lock: captures come first. */
#define BG_BATCH_BYTES	(1024 * 1024)
#define BG_BATCH_MS	250
#define GIVE_BACK_MS	200	/* ofl_index_done() gives pages back */

static size_t	batch_bytes = BATCH_BYTES;
static int64_t	batch_ms = BATCH_MS;

/*
 * Chunks waiting to be written, their text copied into data
 * (the chunker's buffers do not outlive its callback); where each one's
 * member, title and text start in data is in at[], and made pointers
 * when the batch goes.
 */
struct batch {
	struct ofl_buf		 data;
	struct ofl_fts_chunk	*p;
	struct batch_at {
		size_t		 member;	/* SIZE_MAX: none */
		size_t		 title;
		size_t		 text;
	}			*at;
	size_t			 np;
	size_t			 cap;
	int64_t			 last_flush;
};

struct indexer {
	struct ofl_store	*st;
	const char		*id;
	int64_t			 blob;
	int64_t			 seq;
	int64_t			 resume;
	uint64_t		 total;
	struct batch		 b;
	int			 failed;
	int			 truncated;
	void			(*progress)(uint64_t, uint64_t, void *);
	void			*arg;
	struct ofl_index_stats	*stats;
};

static void	 batch_add(struct batch *, const struct ofl_chunk *, int64_t);
static const struct ofl_fts_chunk *batch_chunks(struct batch *);
static void	 batch_done(struct batch *);
static void	 batch_free(struct batch *);
static int	 claim(struct ofl_store *, int64_t, const char *, int64_t *);
static int	 index_chunk(const struct ofl_chunk *, void *);
static int	 flush(struct indexer *, int);
static int	 pending_cb(const char *, int64_t, void *);

int
ofl_index_init(struct ofl_store *st)
{
	return ofl_store_fts_init(st);
}

int
ofl_index_state(struct ofl_store *st, int64_t blob)
{
	return ofl_store_fts_state(st, blob);
}

int
ofl_index_check(struct ofl_store *st, struct ofl_buf *report)
{
	return ofl_store_fts_check(st, report);
}

/* Batches. */

/* Copy a chunk into the batch. */
static void
batch_add(struct batch *b, const struct ofl_chunk *c, int64_t seq)
{
	struct ofl_fts_chunk	*p;
	struct batch_at		*at;

	if (b->np == b->cap) {
		b->cap = b->cap == 0 ? 256 : b->cap * 2;
		b->p = ofl_xrealloc(b->p, b->cap * sizeof *b->p);
		b->at = ofl_xrealloc(b->at, b->cap * sizeof *b->at);
	}
	at = &b->at[b->np];
	p = &b->p[b->np++];
	memset(p, 0, sizeof *p);
	p->seq = seq;
	at->member = SIZE_MAX;
	if (c->member != NULL) {
		at->member = b->data.len;
		ofl_buf_adds(&b->data, c->member);
		ofl_buf_addc(&b->data, '\0');
	}
	at->title = b->data.len;
	p->title_len = c->title != NULL ? c->title_len : 0;
	if (p->title_len > 0)
		ofl_buf_add(&b->data, c->title, c->title_len);
	at->text = b->data.len;
	p->len = c->len;
	if (c->len > 0)
		ofl_buf_add(&b->data, c->text, c->len);
	p->byte_start = c->byte_start;
	p->byte_end = c->byte_end;
	p->line_start = c->line_start;
	p->line_end = c->line_end;
}

/* The batch's chunks, pointing into its data, to write. */
static const struct ofl_fts_chunk *
batch_chunks(struct batch *b)
{
	const char	*d = b->data.data;
	size_t		 i;

	for (i = 0; i < b->np; i++) {
		b->p[i].member = b->at[i].member != SIZE_MAX ?
		    d + b->at[i].member : NULL;
		b->p[i].title = d + b->at[i].title;
		b->p[i].text = d + b->at[i].text;
	}
	return b->p;
}

static void
batch_free(struct batch *b)
{
	ofl_buf_free(&b->data);
	free(b->p);
	free(b->at);
}

static void
batch_done(struct batch *b)
{
	b->np = 0;
	ofl_buf_reset(&b->data);
	b->last_flush = ofl_now_ms();
}

/* Indexing. */

/*
 * Take the job of indexing blob: OFL_FTS_DONE if it is indexed already,
 * OFL_FTS_MINE if it is ours now (*resume: chunks committed before),
 * OFL_FTS_BUSY if another live process is indexing it.
 */
static int
claim(struct ofl_store *st, int64_t blob, const char *id, int64_t *resume)
{
	int	rc;

	for (;;) {
		rc = ofl_store_fts_claim(st, blob, id, resume);
		if (rc != OFL_FTS_STALE)
			return rc;
		/* Made by another tokenizer: forget it, start over. */
		if (ofl_index_drop(st, blob) == -1)
			return -1;
	}
}

static int
index_chunk(const struct ofl_chunk *c, void *arg)
{
	struct indexer	*ix = arg;
	int64_t		 seq = ix->seq++;

	if (seq < ix->resume)
		return 0;
	if (seq >= CHUNK_MAX) {
		ix->truncated = 1;
		return 1;
	}
	batch_add(&ix->b, c, seq);
	ix->stats->chunks++;
	ix->stats->bytes += c->len;
	if (ix->b.data.len >= batch_bytes || ix->b.np >= BATCH_CHUNKS ||
	    ofl_now_ms() - ix->b.last_flush >= batch_ms) {
		if (flush(ix, 0) == -1) {
			ix->failed = 1;
			return 1;
		}
		if (ix->progress != NULL && c->member == NULL)
			ix->progress(c->byte_end, ix->total, ix->arg);
	}
	return 0;
}

/* Write the pending chunks in one transaction; last: mark the blob done. */
static int
flush(struct indexer *ix, int last)
{
	if (ofl_store_fts_write(ix->st, ix->blob, ix->id,
	    batch_chunks(&ix->b), ix->b.np, ix->seq, last, ix->truncated,
	    ix->total) == -1)
		return -1;
	batch_done(&ix->b);
	return 0;
}

/*
 * A log's templates are mined as it is indexed, unless they are cached
 * or too small to be kept (ofl_store_tmpl_kept()); they are a help, so a
 * failure leaves them to be mined when asked for.
 */
static void
log_templates(struct ofl_store *st, const char *id)
{
	struct ofl_fmt_log_tmpl_info	*t;
	size_t				 n, total;
	uint64_t			 lines;

	if (ofl_store_tmpl_get(st, id, &t, &n, &total, &lines) != 0) {
		ofl_store_tmpl_free(t, n);
		return;
	}
	(void)ofl_schema_log_mine(st, id);
}

int
ofl_index_artifact(struct ofl_store *st, const char *id,
    void (*progress)(uint64_t, uint64_t, void *), void *arg,
    struct ofl_index_stats *stats)
{
	struct ofl_index_stats	 dummy;
	struct indexer		 ix;
	struct ofl_meta		 m;
	struct ofl_reader	*r = NULL;
	int64_t			 blob;
	struct timespec		 ts = { 0, 100 * 1000 * 1000 };
	int			 rc, ret = -1;

	if (stats == NULL)
		stats = &dummy;
	memset(stats, 0, sizeof *stats);
	if (ofl_store_meta(st, id, &m) == -1)
		return -1;
	if (m.state != OFL_STATE_COMPLETE) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: still being written; index "
		    "it when it is complete", id);
		ofl_meta_free(&m);
		return -1;
	}
	if ((blob = ofl_store_blob(st, id)) < 0) {
		ofl_meta_free(&m);
		return -1;
	}
	if (blob >= OFL_FTS_BLOB_MAX) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: blob number too large for "
		    "the index", id);
		ofl_meta_free(&m);
		return -1;
	}
	if (ofl_index_init(st) == -1) {
		ofl_meta_free(&m);
		return -1;
	}
	memset(&ix, 0, sizeof ix);
	for (;;) {
		rc = claim(st, blob, id, &ix.resume);
		if (rc == -1)
			goto out;
		if (rc == OFL_FTS_DONE) {
			stats->cached = 1;
			ret = 0;
			goto out;
		}
		if (rc == OFL_FTS_MINE)
			break;
		/* Another process is at it: wait for it to finish. */
		nanosleep(&ts, NULL);
	}
	if ((r = ofl_reader_open(st, id)) == NULL)
		goto out;
	ix.st = st;
	ix.id = id;
	ix.blob = blob;
	ix.total = m.bytes;
	ix.progress = progress;
	ix.arg = arg;
	ix.stats = stats;
	ix.b.last_flush = ofl_now_ms();
	ofl_buf_init(&ix.b.data);
	rc = ofl_reader_chunks(r, m.kind, index_chunk, &ix);
	if (rc < 0 && !ix.failed && !ix.truncated)
		ix.failed = 1;
	if (!ix.failed && flush(&ix, 1) == 0) {
		ret = 0;
		stats->truncated = ix.truncated;
		if (progress != NULL)
			progress(m.bytes, m.bytes, arg);
	}
	batch_free(&ix.b);
out:
	ofl_reader_close(r);
	if (ret == 0 && m.kind == OFL_KIND_LOG && ofl_store_tmpl_kept(m.bytes))
		log_templates(st, id);
	ofl_meta_free(&m);
	return ret;
}

/*
 * What follows indexing, best effort, the caller's error (a failure to
 * index that it reports next) kept as it was: with mark, the mark of
 * what is indexed moved up (a mark not moved, on a full disk, only
 * costs the next pass a longer look); with merge, the generations
 * closed full merged and the pages they freed given back, within
 * GIVE_BACK_MS (what is left is gc's).
 */
static void
after_indexing(struct ofl_store *st, int mark, int merge)
{
	char	why[1024];
	int64_t	t0 = ofl_now_ms();
	int	code = ofl_errcode();

	snprintf(why, sizeof why, "%s", ofl_errmsg());
	if (mark)
		(void)ofl_store_fts_settle(st);
	if (merge) {
		ofl_store_fts_merge(st, GIVE_BACK_MS);
		ofl_store_fts_give_back(st, GIVE_BACK_MS -
		    (ofl_now_ms() - t0));
	}
	ofl_seterr(code, "%s", why);	/* reads back the same if none */
}

void
ofl_index_done(struct ofl_store *st)
{
	after_indexing(st, 0, 1);
}

int
ofl_index_forget(struct ofl_store *st, int64_t blob)
{
	return ofl_store_fts_forget(st, blob);
}

int
ofl_index_drop(struct ofl_store *st, int64_t blob)
{
	if (ofl_index_init(st) == -1)
		return -1;
	return ofl_store_fts_forget_tx(st, blob);
}

/*
 * The indexing of what is pending, as a capture starts it in the
 * background.  One process at a time drains the store (index.lock) and
 * one more may wait for it (index.wait): an artifact finished after the
 * drainer last looked would be missed, so the waiting one looks again
 * when it gets its turn; any other has nothing to do, since the waiting
 * one will see its artifact too.  So many captures at once make at most
 * two indexers.  A gc that removes an artifact being indexed wins: the
 * indexer's next batch finds the content gone and stops.
 */
#define PENDING_BATCH	256	/* artifacts looked up at a time */

struct pending {
	char	(*ids)[OFL_ID_MAX + 1];
	size_t	  n;
};

static int
pending_cb(const char *id, int64_t blob, void *arg)
{
	struct pending	*p = arg;

	(void)blob;
	snprintf(p->ids[p->n++], sizeof p->ids[0], "%s", id);
	return p->n >= PENDING_BATCH;
}

/* 1 unless OFL_INDEX_BG=0 turns indexing in the background off. */
int
ofl_index_bg(void)
{
	const char	*v = getenv("OFL_INDEX_BG");

	return v == NULL || strcmp(v, "0") != 0;
}

/*
 * 1 if an indexer waits for its turn (it holds index.wait): it looks for
 * what is not indexed once the one at work is done, so it will find
 * what was committed before this was asked, and a capture need not
 * start one more, only for it to leave at once.  On PostgreSQL the
 * locks are the server's: 0, always.
 */
int
ofl_index_waiting(struct ofl_store *st)
{
	int	fd;

	if (ofl_store_remote(ofl_store_path(st)))
		return 0;
	if ((fd = ofl_store_lock(st, "index.wait", 0)) == -2)
		return 1;
	if (fd >= 0)
		ofl_store_unlock(st, "index.wait", fd);
	else
		ofl_clearerr();
	return 0;
}

/*
 * The whole index dropped and made again (ofl-index --rebuild), under
 * the index's lock and gc's, which wait for what runs: every artifact
 * is indexed anew, into the index's own file (store-ixdb.c).  Returns
 * the artifacts indexed, or -1.
 */
int64_t
ofl_index_rebuild(struct ofl_store *st,
    void (*progress)(int64_t, int64_t, void *), void *arg, int64_t *failed)
{
	int	fd, gfd, rc;

	if (ofl_index_init(st) == -1)
		return -1;
	if ((gfd = ofl_store_lock(st, "gc.lock", 1)) < 0)
		return -1;
	if ((fd = ofl_store_lock(st, "index.lock", 1)) < 0) {
		ofl_store_unlock(st, "gc.lock", gfd);
		return -1;
	}
	rc = ofl_store_ix_drop_all(st);
	ofl_store_unlock(st, "index.lock", fd);
	ofl_store_unlock(st, "gc.lock", gfd);
	if (rc == -1)
		return -1;
	return ofl_index_pending(st, progress, arg, failed);
}

/*
 * 1 if artifact id is still being written (not a failure to index it):
 * the error of the failure is left as it was.
 */
static int
index_writing(struct ofl_store *st, const char *id)
{
	struct ofl_meta	 m;
	char		 why[512];
	int		 writing;

	snprintf(why, sizeof why, "%s", ofl_errmsg());
	if (ofl_store_meta(st, id, &m) == -1)
		writing = 0;
	else {
		writing = m.state != OFL_STATE_COMPLETE;
		ofl_meta_free(&m);
	}
	ofl_seterr(OFL_EXIT_FAIL, "%s", why);
	return writing;
}

int64_t
ofl_index_pending(struct ofl_store *st,
    void (*progress)(int64_t, int64_t, void *), void *arg, int64_t *failed)
{
	struct ofl_filter	 any;
	struct pending		 p;
	int64_t			 done = 0, left, total = -1;
	size_t			 i, indexed;
	int			 fd, wfd = -1;

	if (ofl_index_init(st) == -1)
		return -1;
	if ((fd = ofl_store_lock(st, "index.lock", 0)) < 0) {
		if (fd == -1)
			return -1;
		if ((wfd = ofl_store_lock(st, "index.wait", 0)) < 0)
			return wfd == -1 ? -1 : 0;	/* one drains, one waits */
		fd = ofl_store_lock(st, "index.lock", 1);
		ofl_store_unlock(st, "index.wait", wfd);
		if (fd < 0)
			return -1;
	}
	batch_bytes = BG_BATCH_BYTES;
	batch_ms = BG_BATCH_MS;
	ofl_filter_init(&any);
	p.ids = ofl_xcalloc(PENDING_BATCH, sizeof *p.ids);
	do {
		p.n = 0;
		if ((left = ofl_store_fts_unindexed(st, &any, pending_cb,
		    &p)) == -1) {
			done = -1;
			break;
		}
		/* What there is to do: what is left the first time. */
		if (total < 0)
			total = left;
		/* The last round, which indexes none, counts the failures. */
		if (failed != NULL)
			*failed = 0;
		for (i = indexed = 0; i < p.n; i++) {
			if (ofl_index_artifact(st, p.ids[i], NULL, NULL,
			    NULL) == 0)
				indexed++;
			else if (failed != NULL && !index_writing(st,
			    p.ids[i]))
				(*failed)++;
			if (progress != NULL)
				progress(done + (int64_t)indexed, total, arg);
		}
		done += (int64_t)indexed;
	} while (indexed > 0);
	free(p.ids);
	/* Drained: later passes and searches look above the mark. */
	if (done != -1)
		after_indexing(st, 1, done > 0);
	ofl_store_unlock(st, "index.lock", fd);
	return done;
}
