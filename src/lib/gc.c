/*
 * gc.c: expiry, the size budget, purges, and checking the store.
 *
 * Only a finished artifact created before the gc started is ever
 * removed.  Each removal is one short transaction: the artifact row and,
 * when no other artifact shares it, its blob, frames and index rows; the
 * blob file is unlinked after the commit.  A crash between the two leaves
 * an orphan file, which --check reports and --repair removes.  The index
 * rows of a large blob take long to delete (FTS5 needs the text again):
 * that is done before, in short transactions, with the blob marked so
 * that nothing indexes or searches it meanwhile; what is left goes in the
 * removal's transaction.
 *
 * The whole plan of a run (what goes, and why) is made up front from one
 * measure of the store, with what each removal frees counted rather than
 * measured again: a deleted FTS5 row gives its pages back only when the
 * index is merged, and the database file shrinks later still, so a budget
 * that measured the store after each removal would take everything.  A
 * dry run prints the same plan.
 *
 * This file is the policy: what goes and when.  store-gc.c reads and
 * changes the store for it.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/statvfs.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ofl.h"
#include "banned.h"

#define MERGE_MS	1000	/* of index merging in one run */
#define MERGE_BUDGET_MS	10000	/* the same, when over the budget */
#define YIELD_MS	30	/* the write lock left free between steps */
#define BATCH_MAX	1024	/* removals in one transaction */
#define BATCH_MS	250	/* and the time it may hold the lock */
#define VACUUM_MS	1000	/* of giving pages back in one run */
#define VACUUM_BUDGET_MS 10000	/* the same, when over the budget */
#define REHOME_MAX	64	/* blobs indexed anew between two tidies */
#define SWEEP_MAX	4096	/* index rows of no artifact swept a run */
#define SWEEP_BATCH	256	/* and in one transaction */
#define ROOM_PER_BYTE	2	/* free bytes to index a byte anew */
#define ROOM_SPARE	(1024 * 1024)	/* and some more */

static void	 gc_yield(void);

int
ofl_gc_pin(struct ofl_store *st, const char *ref, int pin)
{
	char	id[OFL_ID_MAX + 1];

	if (ofl_store_resolve(st, ref, id) == -1)
		return -1;
	return ofl_store_gc_pin(st, id, pin);
}

/*
 * Remove one artifact (and its blob if unshared), with the blob's index
 * rows (buried: store-gen.c), in one transaction; inside a batch
 * (gc_batch()), in the batch's.  The blob's file, once it is no longer
 * named, is left in *file for the caller to unlink after the commit.
 */
static int
gc_remove(struct ofl_store *st, const char *id, int64_t started,
    uint64_t *freed, char **file)
{
	struct ofl_store_gc_row	 row;
	int			 refs;

	*freed = 0;
	*file = NULL;
	if (ofl_store_begin(st) == -1)
		return ofl_store_gc_fail(st, "begin");
	if (ofl_store_gc_row(st, id, &row) == -1)
		goto fail;
	/* Gone already, still being written, or newer than this gc. */
	if (row.blob == -1 || row.state != OFL_STATE_COMPLETE ||
	    row.created >= started) {
		if (ofl_store_commit(st) == -1)
			goto fail;
		free(row.file);
		return 0;
	}
	if (ofl_store_gc_delete(st, id, row.blob, &refs) == -1)
		goto fail;
	/*
	 * The blob's index rows go with it, in this transaction: an indexer
	 * re-checks the blob inside its own, so none come back.
	 */
	if (refs == 0 && ofl_index_forget(st, row.blob) == -1)
		goto fail;
	if (refs == 0 && ofl_store_gc_drop_blob(st, row.blob) == -1)
		goto fail;
	if (ofl_store_commit(st) == -1)
		goto fail;
	if (refs == 0) {
		*file = row.file;
		*freed = row.stored;
	} else
		free(row.file);
	return 1;
fail:
	ofl_store_gc_fail(st, "remove");
	ofl_store_rollback(st);
	free(row.file);
	return -1;
}

void
ofl_gc_opts_init(struct ofl_gc_opts *o)
{
	memset(o, 0, sizeof *o);
	o->ttl = 1;
	o->budget = 1;
	o->grace_ms = -1;
}

enum { R_PURGE = 1, R_EXPIRED, R_OLD, R_BUDGET };
static const char *reasons[] = { "", "purged", "expired", "old", "budget" };

/* A finished artifact, as the plan sees it. */
struct cand {
	char		 id[OFL_ID_MAX + 1];
	int64_t		 blob;
	int64_t		 created;
	uint64_t	 stored;	/* its blob's */
	uint64_t	 ixbytes;	/* bytes its blob's index was made of */
	int		 pinned;
	int		 mine;		/* of the session kept */
	int		 rule;		/* R_* of a rule that matches, or 0 */
	int		 reason;	/* R_* once planned, 0: kept */
	size_t		 order;		/* place in the plan */
};

static int
bref_cmp(const void *a, const void *b)
{
	const struct ofl_store_gc_bref	*x = a, *y = b;

	return x->blob < y->blob ? -1 : x->blob > y->blob;
}

struct plan {
	struct cand	*c;		/* least recently used first */
	size_t		 nc;
	struct ofl_store_gc_bref *refs;	/* artifacts left on each blob */
	size_t		 nrefs;
	uint64_t	 ix_total;	/* the index's pages, measured */
	uint64_t	 ix_sum;	/* sum of ixbytes over indexed blobs */
	uint64_t	 size;		/* the store, as planned */
	uint64_t	 freed;		/* stored bytes planned to go */
	size_t		 norder;
};

/*
 * Plan the removal of c: when it is its blob's last artifact, the store
 * shrinks by the blob and the blob's share of the index.
 */
static void
plan_take(struct plan *p, struct cand *c, int reason)
{
	struct ofl_store_gc_bref key, *r;
	uint64_t	 gain;

	c->reason = reason;
	c->order = p->norder++;
	key.blob = c->blob;
	if ((r = bsearch(&key, p->refs, p->nrefs, sizeof *p->refs,
	    bref_cmp)) == NULL || --r->refs > 0)
		return;
	gain = c->stored;
	if (p->ix_sum > 0 && c->ixbytes > 0)
		gain += (uint64_t)((double)p->ix_total *
		    ((double)c->ixbytes / (double)p->ix_sum));
	p->size = p->size > gain ? p->size - gain : 0;
	p->freed += c->stored;
}

/*
 * The rule that takes an artifact whatever the budget: R_PURGE for what
 * the options name, none for a pinned one, R_EXPIRED past its expiry or
 * the TTL, R_OLD older than --older; 0 if none.
 */
static int
cand_rule(const struct ofl_store_gc_cand *a, const struct ofl_gc_opts *o,
    int64_t now, int64_t ttl_ms)
{
	int64_t	cutoff = o->older_ms > 0 ? now - o->older_ms : 0;

	if (o->all || (o->label != NULL && a->label != NULL &&
	    strcmp(a->label, o->label) == 0) || (o->session != NULL &&
	    a->session != NULL && strcmp(a->session, o->session) == 0))
		return R_PURGE;
	if (a->pinned)
		return 0;
	if (a->has_expires && a->expires <= now)
		return R_EXPIRED;
	if (!a->has_expires && ttl_ms > 0 && a->created + ttl_ms <= now)
		return R_EXPIRED;
	if (cutoff > 0 && a->created < cutoff)
		return R_OLD;
	return 0;
}

/*
 * Load every finished artifact created before now, least recently used
 * first.
 */
static int
plan_load(struct ofl_store *st, const struct ofl_gc_opts *o, int64_t now,
    int64_t ttl_ms, struct plan *p)
{
	struct ofl_store_gc_cand	*a;
	struct ofl_store_gc_bref	 key, *r;
	struct cand			*c;
	unsigned char			*seen;
	size_t				 i, j, na;

	if (ofl_store_gc_candidates(st, now, &a, &na) == -1)
		return -1;
	p->c = ofl_xcalloc(na + 1, sizeof *p->c);
	for (i = 0; i < na; i++) {
		c = &p->c[p->nc++];
		memcpy(c->id, a[i].id, sizeof c->id);
		c->blob = a[i].blob;
		c->created = a[i].created;
		c->stored = a[i].stored;
		c->ixbytes = a[i].ixbytes;
		c->pinned = a[i].pinned;
		c->mine = o->keep_session != NULL && a[i].session != NULL &&
		    strcmp(a[i].session, o->keep_session) == 0;
		c->rule = cand_rule(&a[i], o, now, ttl_ms);
	}
	ofl_store_gc_cands_free(a, na);
	if (ofl_store_gc_brefs(st, &p->refs, &p->nrefs) == -1)
		return -1;

	/*
	 * Each indexed blob once in the sum the shares are taken from: the
	 * blobs' table (sorted) says which are counted, so a dry run stays
	 * n log n in the number of artifacts.
	 */
	seen = ofl_xcalloc(p->nrefs + 1, 1);
	for (i = 0; i < p->nc; i++) {
		if (p->c[i].ixbytes == 0)
			continue;
		key.blob = p->c[i].blob;
		if ((r = bsearch(&key, p->refs, p->nrefs, sizeof *p->refs,
		    bref_cmp)) != NULL) {
			j = (size_t)(r - p->refs);
			if (seen[j])
				continue;
			seen[j] = 1;
		}
		p->ix_sum += p->c[i].ixbytes;
	}
	free(seen);
	p->ix_total = ofl_store_gc_index_bytes(st);
	p->size = ofl_store_size(st);
	return 0;
}

/*
 * The error of a removal (ofl_errmsg()), told through cb once however
 * many removals it stops (a full disk stops them all).
 */
static void
gc_error(int (*cb)(const struct ofl_meta *, const char *, void *), void *arg,
    struct ofl_gc_report *rep)
{
	if (rep->errors > 0 && strncmp(rep->lasterr, ofl_errmsg(),
	    sizeof rep->lasterr - 1) == 0)
		rep->repeated++;
	else if (cb != NULL)
		cb(NULL, ofl_errmsg(), arg);
	snprintf(rep->lasterr, sizeof rep->lasterr, "%s", ofl_errmsg());
	rep->errors++;
	rep->status = OFL_EXIT_FAIL;
}

/*
 * Remove one planned artifact (or, in a dry run, say it goes) and
 * account for it.
 */
static void
gc_one(struct ofl_store *st, const struct ofl_gc_opts *o, const char *id,
    int reason, int64_t now,
    int (*cb)(const struct ofl_meta *, const char *, void *), void *arg,
    struct ofl_gc_report *rep)
{
	struct ofl_meta	m;
	uint64_t	freed = 0;
	char		*file = NULL;
	int		r;

	if (ofl_store_meta(st, id, &m) == -1)
		return;
	if (o->dry_run)
		r = 1;
	else if ((r = gc_remove(st, id, now, &freed, &file)) == -1) {
		gc_error(cb, arg, rep);
		ofl_meta_free(&m);
		return;
	}
	if (file != NULL) {
		if (ofl_store_gc_unlink(st, file) == -1)
			gc_error(cb, arg, rep);
		free(file);
	}
	if (r == 1) {
		rep->removed++;
		rep->removed_bytes += m.bytes;
		rep->freed += freed;
		if (cb != NULL)
			cb(&m, reasons[reason], arg);
	}
	ofl_meta_free(&m);
}

/* A removal of a batch, told once the batch is committed. */
struct gone {
	struct ofl_meta	 m;
	int		 have;		/* m was read */
	int		 r;		/* gc_remove()'s */
	uint64_t	 freed;
	char		*file;
};

/*
 * Remove the planned artifacts from c[i] on in one transaction, until
 * BATCH_MAX of them or BATCH_MS, so that the database commits once for
 * all of them.  The files go and the removals are told after the commit.  If any step fails,
 * the batch is rolled back (nothing of it happened) and done again one
 * removal at a time, each with its own error.  Returns the next index.
 */
static size_t
gc_batch(struct ofl_store *st, const struct ofl_gc_opts *o, struct plan *p,
    size_t i, int64_t now,
    int (*cb)(const struct ofl_meta *, const char *, void *), void *arg,
    struct ofl_gc_report *rep)
{
	struct gone	*g, *x;
	int64_t		 t0 = ofl_mono_ms();
	size_t		 n = 0, j;
	int		 failed = 0;

	if (ofl_store_batch_begin(st) == -1) {
		gc_one(st, o, p->c[i].id, p->c[i].reason, now, cb, arg, rep);
		return i + 1;
	}
	g = ofl_xcalloc(BATCH_MAX, sizeof *g);
	while (i + n < p->nc && p->c[i + n].reason != 0 && n < BATCH_MAX &&
	    (n == 0 || ofl_mono_ms() - t0 < BATCH_MS)) {
		x = &g[n++];
		x->have = ofl_store_meta(st, p->c[i + n - 1].id, &x->m) == 0;
		if (!x->have)
			continue;	/* gone already */
		x->r = gc_remove(st, x->m.id, now, &x->freed, &x->file);
		if (x->r == -1) {
			failed = 1;
			break;
		}
	}
	if (ofl_store_batch_end(st, !failed) == 0) {
		for (j = 0; j < n; j++) {
			x = &g[j];
			if (x->file != NULL &&
			    ofl_store_gc_unlink(st, x->file) == -1)
				gc_error(cb, arg, rep);
			if (!x->have || x->r != 1)
				continue;
			rep->removed++;
			rep->removed_bytes += x->m.bytes;
			rep->freed += x->freed;
			if (cb != NULL)
				cb(&x->m, reasons[p->c[i + j].reason], arg);
		}
	} else {
		for (j = 0; j < n && rep->errors <= 100; j++)
			gc_one(st, o, p->c[i + j].id, p->c[i + j].reason, now,
			    cb, arg, rep);
	}
	for (j = 0; j < n; j++) {
		if (g[j].have)
			ofl_meta_free(&g[j].m);
		free(g[j].file);
	}
	free(g);
	gc_yield();
	return i + n;
}

struct byage {
	int64_t	 created;
	size_t	 i;
};

static int
byage_cmp(const void *a, const void *b)
{
	const struct byage	*x = a, *y = b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int
order_cmp(const void *a, const void *b)
{
	const struct cand	*x = a, *y = b;

	if (x->reason == 0 || y->reason == 0)
		return (x->reason == 0) - (y->reason == 0);
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Between two steps that each take the write lock, leave it free a
 * little longer than a waiting writer sleeps between tries (store.c),
 * so that captures get in instead of waiting for the whole run.
 */
static void
gc_yield(void)
{
	struct timespec	ts = { 0, YIELD_MS * 1000000L };

	nanosleep(&ts, NULL);
}

/* Whether the store's file system has bytes free. */
static int
gc_room(struct ofl_store *st, uint64_t bytes)
{
	struct statvfs	vfs;

	if (statvfs(ofl_store_path(st), &vfs) == -1)
		return 1;	/* the write will say */
	return (uint64_t)vfs.f_bavail * vfs.f_frsize >= bytes;
}

/*
 * Index blob anew, into the open generation: an artifact to read it
 * through, its rows buried where they were, its chunks written again.
 * Short of room for that (a full disk, where the generation's table must
 * go before anything else can be written), or if it fails, the blob is
 * left unindexed, so that its generation can go all the same: a search
 * or ofl-index --pending indexes it again.  1 once its rows are buried,
 * 0 if they are not (no artifact reads it: a stray, swept elsewhere).
 */
static int
gc_rehome(struct ofl_store *st, int64_t blob)
{
	char		id[OFL_ID_MAX + 1];
	uint64_t	need;

	if (ofl_store_fts_blob_art(st, blob, NULL, id, sizeof id) != 1) {
		ofl_clearerr();
		return 0;
	}
	need = ROOM_PER_BYTE * ofl_store_fts_blob_bytes(st, blob) + ROOM_SPARE;
	if (ofl_index_drop(st, blob) == -1) {
		ofl_clearerr();
		return 0;
	}
	if (!gc_room(st, need) ||
	    ofl_index_artifact(st, id, NULL, NULL, NULL) == -1)
		ofl_clearerr();	/* indexed again later */
	return 1;
}

/*
 * Compact the index: drop its generations whose content is all gone,
 * index anew what is left of those that keep little (store-gen.c),
 * merge the open generation's segments (with merge); then give pages
 * back.  Each for a while, longer when the store is over its budget
 * (over).
 */
static void
gc_compact(struct ofl_store *st, int over, int merge)
{
	int64_t	t0 = ofl_mono_ms(), *blobs;
	int64_t	max_ms = over ? MERGE_BUDGET_MS : MERGE_MS;
	size_t	n, j, moved;
	int	i;

	if (ofl_store_remote(ofl_store_path(st)))
		return;		/* rows go by cascade; the server vacuums */

	/*
	 * The blobs of a generation to compact, a few at a time, until
	 * the time is up; the next run goes on.  Once it holds none, the
	 * next tidy drops it.
	 */
	for (i = 0; ofl_index_init(st) == 0 && i < 1000; i++) {
		if (ofl_store_fts_tidy(st, &blobs, &n, REHOME_MAX) == -1) {
			ofl_clearerr();
			break;
		}
		for (j = moved = 0; j < n && ofl_mono_ms() - t0 < max_ms; j++)
			moved += (size_t)gc_rehome(st, blobs[j]);
		free(blobs);
		/*
		 * Done, out of time, or stuck on blobs of no artifact.  Out
		 * of time, a generation emptied meanwhile goes all the same.
		 */
		if (j < n && moved > 0 &&
		    ofl_store_fts_tidy(st, &blobs, &n, 0) != -1)
			free(blobs);
		ofl_clearerr();
		if (n == 0 || j < n || moved == 0)
			break;
		gc_yield();
	}
	/*
	 * Merge the open generation's segments, in small steps, each its
	 * own transaction, while there is time: writers wait for each.
	 */
	for (i = 0; merge && ofl_index_init(st) == 0 && i < 100000 &&
	    ofl_mono_ms() - t0 < max_ms; i++) {
		if (!ofl_store_gc_fts_merge(st))
			break;
		gc_yield();
	}
	/*
	 * Give pages back in small steps, so captures do not wait, for a
	 * while: the next run goes on.
	 */
	t0 = ofl_mono_ms();
	for (i = 0; i < 100000 && ofl_mono_ms() - t0 < (over ?
	    VACUUM_BUDGET_MS : VACUUM_MS); i++) {
		if (!ofl_store_gc_vacuum_step(st))
			break;
		gc_yield();
	}
	/* Give the WAL's space back too (bounded by the busy wait). */
	ofl_store_gc_checkpoint(st);
}

/*
 * Whether the store is still over max_size after the removals of plan
 * p: by its size, if the removals gave back less than p counted on, or
 * on the disk, where the index pages of the removed content still are
 * until the index is compacted (on a full disk, what the budget is for).
 */
static int
over_budget(struct ofl_store *st, const struct plan *p, uint64_t max_size)
{
	uint64_t	size;

	if (max_size == 0)
		return 0;
	size = ofl_store_size(st);
	return p->size < size ||
	    size + ofl_store_fts_buried_bytes(st) > max_size;
}

/* "budget 40 MB not met: ..." from what the plan could not take. */
static void
unmet_line(struct ofl_gc_report *rep, const struct plan *p, uint64_t size,
    uint64_t ix, int64_t young)
{
	struct ofl_buf	 b;
	char		 s1[32], s2[32], s3[32];
	uint64_t	 ng = 0, bg = 0, np = 0, bp = 0, ns = 0, bs = 0;
	const char	*sep = "";
	size_t		 i;

	for (i = 0; i < p->nc; i++) {
		const struct cand *c = &p->c[i];

		if (c->reason != 0)
			continue;
		if (c->pinned) {
			np++;
			bp += c->stored;
		} else if (c->mine) {
			ns++;
			bs += c->stored;
		} else if (c->created > young) {
			ng++;
			bg += c->stored;
		}
	}
	ofl_buf_init(&b);
	ofl_fmt_size(s1, sizeof s1, rep->max_size);
	ofl_fmt_size(s2, sizeof s2, size);
	ofl_fmt_size(s3, sizeof s3, ix);
	ofl_buf_addf(&b, "budget %s not met: store %s; %s held by the index",
	    s1, s2, s3);
	sep = ", ";
	if (ng > 0) {
		ofl_fmt_size(s1, sizeof s1, bg);
		ofl_buf_addf(&b, "%s%llu artifact%s (%s) within the grace "
		    "period", sep, (unsigned long long)ng, ng == 1 ? "" : "s",
		    s1);
	}
	if (np > 0) {
		ofl_fmt_size(s1, sizeof s1, bp);
		ofl_buf_addf(&b, "%s%llu pinned (%s)", sep,
		    (unsigned long long)np, s1);
	}
	if (ns > 0) {
		ofl_fmt_size(s1, sizeof s1, bs);
		ofl_buf_addf(&b, "%s%llu of this session (%s)", sep,
		    (unsigned long long)ns, s1);
	}
	snprintf(rep->unmet, sizeof rep->unmet, "%s", ofl_buf_str(&b));
	ofl_buf_free(&b);
}

int
ofl_gc_run(struct ofl_store *st, const struct ofl_gc_opts *o,
    int (*cb)(const struct ofl_meta *, const char *, void *), void *arg,
    struct ofl_gc_report *rep)
{
	struct plan	 p;
	int64_t		 now = ofl_now_ms(), ttl_ms = 0, grace_ms = 0;
	uint64_t	 max_size = 0, size;
	char		*v, id[OFL_ID_MAX + 1];
	size_t		 i, j;

	memset(rep, 0, sizeof *rep);
	memset(&p, 0, sizeof p);
	rep->started = now;
	if (o->ttl && (v = ofl_setting_get(st, "ttl")) != NULL) {
		if (strcmp(v, "never") != 0)
			(void)ofl_parse_duration(v, &ttl_ms);
		free(v);
	}
	if (o->max_size > 0)
		max_size = o->max_size;
	else if (o->budget && (v = ofl_setting_get(st, "max-size")) != NULL) {
		if (strcmp(v, "none") != 0)
			(void)ofl_parse_size(v, &max_size);
		free(v);
	}
	if (o->grace_ms >= 0)
		grace_ms = o->grace_ms;
	else if ((v = ofl_setting_get(st, "grace")) != NULL) {
		(void)ofl_parse_duration(v, &grace_ms);
		free(v);
	}
	rep->max_size = max_size;
	if (ofl_store_gc_init(st) == -1 || ofl_store_ix_scratch(st) == -1 ||
	    ofl_index_init(st) == -1)
		return ofl_store_gc_fail(st, "gc");
	if (plan_load(st, o, now, ttl_ms, &p) == -1)
		goto fail;

	/*
	 * Explicit purges first, then the rules, oldest first...  A
	 * reference that cannot be told (an ambiguous prefix, "@0") stops
	 * the run before anything is removed; one that names no artifact
	 * (gone already) is said, and the rest goes on, as rm(1) does.
	 */
	for (i = 0; i < o->npurge; i++) {
		if (ofl_store_resolve(st, o->purge[i], id) == -1) {
			if (cb != NULL)
				cb(NULL, ofl_errmsg(), arg);
			rep->errors++;
			if (ofl_errcode() == OFL_EXIT_USAGE ||
			    rep->status == 0)
				rep->status = ofl_errcode();
			continue;
		}
		for (j = 0; j < p.nc; j++)
			if (strcmp(p.c[j].id, id) == 0 && p.c[j].reason == 0)
				plan_take(&p, &p.c[j], R_PURGE);
	}
	if (rep->status == OFL_EXIT_USAGE) {
		free(p.c);
		free(p.refs);
		return -1;
	}
	{
		/* Oldest first. */
		struct byage	*by = ofl_xcalloc(p.nc + 1, sizeof *by);
		size_t		 n = 0;

		for (i = 0; i < p.nc; i++)
			if (p.c[i].rule != 0 && p.c[i].reason == 0) {
				by[n].created = p.c[i].created;
				by[n++].i = i;
			}
		qsort(by, n, sizeof *by, byage_cmp);
		for (i = 0; i < n; i++)
			plan_take(&p, &p.c[by[i].i], p.c[by[i].i].rule);
		free(by);
	}
	/*
	 * ...then the size budget: least recently used first, never what
	 * is pinned, of the session kept, or younger than the grace period.
	 */
	for (i = 0; max_size > 0 && p.size > max_size && i < p.nc; i++) {
		struct cand	*c = &p.c[i];

		if (c->reason != 0 || c->pinned || c->mine ||
		    c->created > now - grace_ms)
			continue;
		rep->budget_seen++;
		plan_take(&p, c, R_BUDGET);
	}

	/* Carry the plan out, in its order. */
	if (p.nc > 0)
		qsort(p.c, p.nc, sizeof *p.c, order_cmp);
	for (i = 0; i < p.nc && p.c[i].reason != 0 &&
	    rep->errors <= 100;) {
		if (o->dry_run) {
			gc_one(st, o, p.c[i].id, p.c[i].reason, now, cb, arg,
			    rep);
			i++;
		} else
			i = gc_batch(st, o, &p, i, now, cb, arg, rep);
	}
	if (o->dry_run)
		rep->freed = p.freed;

	/* What a gc killed between its two files' commits left. */
	for (i = 0; !o->dry_run && i < SWEEP_MAX / SWEEP_BATCH; i++) {
		int64_t	swept = ofl_store_gc_index_sweep(st, SWEEP_BATCH);

		if (swept == -1)
			ofl_clearerr();		/* the next run sweeps them */
		if (swept < SWEEP_BATCH)
			break;
		gc_yield();
	}
	if (!o->dry_run && rep->removed > 0)
		gc_compact(st, over_budget(st, &p, max_size), 1);
	else if (!o->dry_run && ofl_store_fts_untidy(st) == 1)
		/* What an earlier run could not finish (out of time, room). */
		gc_compact(st, 0, 0);
	ofl_clearerr();
	rep->kept = ofl_store_gc_count(st);
	if (o->dry_run) {
		rep->kept = rep->kept > rep->removed ? rep->kept - rep->removed :
		    0;
		size = p.size;
		rep->index_bytes = p.ix_total;
	} else {
		size = ofl_store_size(st);
		rep->index_bytes = ofl_store_gc_index_bytes(st);
	}
	rep->size = size;
	if (max_size > 0 && size > max_size)
		unmet_line(rep, &p, size, rep->index_bytes, now - grace_ms);
	free(p.c);
	free(p.refs);
	return rep->errors > 0 ? -1 : 0;
fail:
	free(p.c);
	free(p.refs);
	return -1;
}

/* Checking. */

/*
 * What a check tells its caller: each problem, counted, and what is not
 * one (a note: cb's second argument 0).
 */
struct checker {
	int	(*cb)(const char *, int, void *);
	void	*arg;
	int	 n;
	int	 repair;
	int	 noix;		/* the store has no index */
};

static void
say(struct checker *, int, const char *, va_list) OFL_PRINTF(3, 0);
static void
note(struct checker *, const char *, ...) OFL_PRINTF(2, 3);

static void
problem(struct checker *ck, const char *fmt, ...) OFL_PRINTF(2, 3);

static void
say(struct checker *ck, int counted, const char *fmt, va_list ap)
{
	char	msg[1024];

	vsnprintf(msg, sizeof msg, fmt, ap);
	ck->n += counted;
	if (ck->cb != NULL)
		ck->cb(msg, counted, ck->arg);
}

static void
problem(struct checker *ck, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	say(ck, 1, fmt, ap);
	va_end(ap);
}

static void
note(struct checker *ck, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	say(ck, 0, fmt, ap);
	va_end(ap);
}

/*
 * Repair: an artifact whose content file is gone is lost already; remove
 * every artifact sharing that content, so that the store is consistent.
 */
static int
missing_content(struct ofl_store *st, const char *id)
{
	int64_t	blob;

	if (!ofl_store_gc_content_gone(st, id, &blob))
		return 0;
	return ofl_store_gc_remove_blob(st, blob);
}

/*
 * Repair: content readable only up to byte good (a truncated file, a
 * frame that fails its checksum).  Keep the frames before it, make the
 * artifacts sharing it incomplete, with the hash, size and lines of what
 * is kept.  Its index rows go (the next search indexes it again).
 */
static int
keep_prefix(struct ofl_store *st, const char *id, uint64_t good)
{
	int64_t	blob;

	if ((blob = ofl_store_blob(st, id)) < 0)
		return -1;
	(void)ofl_index_drop(st, blob);
	return ofl_store_gc_truncate(st, id, blob, good);
}

/*
 * Index rows of no content: an ix_blob row whose blob no artifact uses,
 * chunks of no ix_blob row or past the end of their content, FTS rows of
 * no chunk.  The first are no problem: a gc killed between its two
 * files' commits leaves them, searches never reach them (a blob number
 * is never used again), and the next gc buries them, as repair does.
 * The others cannot be told from good rows one by one (FTS5 needs the
 * text to delete a row), so repair clears the index: searches index
 * again.
 */
static void
check_index(struct ofl_store *st, struct checker *ck)
{
	struct ofl_store_gc_ixcheck	c;

	if (ck->noix || ofl_index_init(st) == -1)
		return;
	if (ofl_store_gc_index_check(st, &c) == -1) {
		problem(ck, "index: not checked: %s", ofl_errmsg());
		return;
	}
	if (c.blobs > 0 && ofl_store_remote(ofl_store_path(st)))
		/* One database: a removal takes its rows, always. */
		problem(ck, "index: %lld indexed content%s of no artifact",
		    (long long)c.blobs, c.blobs == 1 ? "" : "s");
	else if (c.blobs > 0 && ck->repair &&
	    ofl_store_gc_index_sweep(st, (size_t)c.blobs) == c.blobs)
		note(ck, "index: %lld indexed content%s of no artifact, left "
		    "by an interrupted gc (removed)", (long long)c.blobs,
		    c.blobs == 1 ? "" : "s");
	else if (c.blobs > 0)
		note(ck, "index: %lld indexed content%s of no artifact, left "
		    "by an interrupted gc (the next gc removes %s)",
		    (long long)c.blobs, c.blobs == 1 ? "" : "s",
		    c.blobs == 1 ? "it" : "them");
	if (c.chunks > 0)
		problem(ck, "index: %lld chunk%s of no indexed content",
		    (long long)c.chunks, c.chunks == 1 ? "" : "s");
	if (c.past_end > 0)
		problem(ck, "index: %lld chunk%s past the end of their "
		    "content", (long long)c.past_end, c.past_end == 1 ? "" :
		    "s");
	if (c.fts > 0)
		problem(ck, "index: %lld full-text row%s of no chunk",
		    (long long)c.fts, c.fts == 1 ? "" : "s");
	if (c.unmarked > 0 && ck->repair &&
	    ofl_store_gc_index_unmark(st) == 0)
		note(ck, "index: %lld artifact%s below the mark of what is "
		    "indexed not indexed (the mark reset: indexing looks at "
		    "every artifact again)", (long long)c.unmarked,
		    c.unmarked == 1 ? "" : "s");
	else if (c.unmarked > 0)
		problem(ck, "index: %lld artifact%s below the mark of what is "
		    "indexed not indexed (--repair resets the mark)",
		    (long long)c.unmarked, c.unmarked == 1 ? "" : "s");
	if (!ck->repair || c.chunks + c.past_end + c.fts == 0)
		return;
	if (ofl_store_gc_index_clear(st) == -1)
		return;
	problem(ck, "index: cleared (searches index again)");
	ck->n--;
}

/*
 * Repair: an artifact whose content file is missing, or whose row names
 * it wrongly, while a file that no row names holds content of its hash:
 * point the row at that file.  Returns the file's name, or NULL.
 */
static const char *
relink(struct ofl_store *st, const char *id, const char *want)
{
	static char	 found[600];
	char		**list;
	int64_t		 blob;
	size_t		 i;
	int		 rc;

	if (want == NULL || (blob = ofl_store_blob(st, id)) < 0)
		return NULL;
	list = ofl_store_gc_orphans(st, 0, NULL, NULL);
	for (i = 0; list != NULL && list[i] != NULL && i < 256; i++) {
		if ((rc = ofl_store_gc_relink(st, id, blob, list[i],
		    want)) == -1)
			break;
		if (rc == 1) {
			snprintf(found, sizeof found, "%s", list[i]);
			ofl_store_gc_orphans_free(list);
			return found;
		}
	}
	ofl_store_gc_orphans_free(list);
	return NULL;
}

static void
integrity_line(const char *s, void *arg)
{
	problem(arg, "database: %s", s);
}

static void
rowless_line(const char *id, void *arg)
{
	struct checker	*ck = arg;

	problem(ck, "ofl:%s: content row missing%s", id, ck->repair ?
	    " (artifact removed)" : "");
}

static void
odd_name(const char *name, void *arg)
{
	problem(arg, "blobs/%s: not a name ofl makes (left alone)", name);
}

/* The rows: artifacts of no blob, blobs of no artifact, stray frames. */
static void
check_rows(struct ofl_store *st, struct checker *ck)
{
	struct ofl_store_gc_blob	*b;
	size_t				 nb, i;
	int64_t				 nf;

	(void)ofl_store_gc_rowless(st, ck->repair, rowless_line, ck);
	if (ofl_store_gc_unused(st, &b, &nb) == 0) {
		for (i = 0; i < nb; i++)
			problem(ck, "content %s: used by no artifact%s",
			    b[i].file, ck->repair ? " (removed)" : "");
		for (i = 0; ck->repair && i < nb; i++) {
			ofl_index_drop(st, b[i].id);
			(void)ofl_store_gc_blob_row_drop(st, b[i].id);
		}
		ofl_store_gc_blobs_free(b, nb);
	}
	if ((nf = ofl_store_gc_stray_frames(st, ck->repair)) > 0)
		problem(ck, "%d frame rows of no content%s", (int)nf,
		    ck->repair ? " (removed)" : "");
}

/*
 * An artifact that cannot be opened: keep the sound part of its frames,
 * find its content under another name, or (with repair) remove it.
 * Returns 1 if its content is lost.
 */
static int
check_unopened(struct ofl_store *st, struct checker *ck, const char *id,
    const char *want)
{
	char		 msg[512];
	const char	*to;
	uint64_t	 good;

	snprintf(msg, sizeof msg, "%s", ofl_errmsg());
	if (ofl_store_frames_good(st, id, &good) == 1) {
		problem(ck, "ofl:%s%s", msg, ck->repair &&
		    keep_prefix(st, id, good) == 0 ? " (kept the sound part, "
		    "marked incomplete)" : "");
		return 0;
	}
	if (ck->repair && (to = relink(st, id, want)) != NULL) {
		problem(ck, "ofl:%s (its content is blobs/%s: relinked)", msg,
		    to);
		return 0;
	}
	problem(ck, "ofl:%s%s", msg, ck->repair && missing_content(st, id) ?
	    " (artifact removed)" : "");
	return 1;
}

/*
 * Every artifact's content present and matching its hash.  Returns 1 if
 * the content of one is lost.
 */
static int
check_contents(struct ofl_store *st, struct checker *ck)
{
	struct ofl_store_gc_content	*c;
	struct ofl_reader		*r;
	struct ofl_hash			 h;
	char				 got[OFL_HASH_HEX], buf[65536];
	uint64_t			 good;
	ssize_t				 k;
	size_t				 nc, i;
	int				 lost = 0;

	if (ofl_store_gc_contents(st, &c, &nc) == -1)
		return 0;
	for (i = 0; i < nc; i++) {
		if (c[i].state != OFL_STATE_COMPLETE)
			continue;
		if ((r = ofl_reader_open(st, c[i].id)) == NULL) {
			if (check_unopened(st, ck, c[i].id, c[i].hash))
				lost = 1;
			continue;
		}
		ofl_hash_init_like(&h, c[i].hash);
		while ((k = ofl_reader_read(r, buf, sizeof buf)) > 0)
			ofl_hash_update(&h, buf, (size_t)k);
		good = ofl_reader_tell(r);
		ofl_reader_close(r);
		if (k == -1) {
			problem(ck, "ofl:%s%s", ofl_errmsg(), ck->repair &&
			    keep_prefix(st, c[i].id, good) == 0 ? " (kept the "
			    "readable part, marked incomplete)" : "");
			continue;
		}
		ofl_hash_final_hex(&h, got);
		/* No hash: it was taken by other bytes (a collision). */
		if (c[i].hash != NULL && strcmp(got, c[i].hash) != 0)
			problem(ck, "ofl:%s: content does not match its hash",
			    c[i].id);
	}
	ofl_store_gc_contents_free(c, nc);
	return lost;
}

/*
 * Files no blob row names: left by a crash between commit and unlink.
 * Kept when this check lost an artifact's content file (the file may be
 * that content, under a damaged name), and when named after an artifact
 * still in the store.
 */
static void
check_orphans(struct ofl_store *st, struct checker *ck, int lost)
{
	char	**list;
	size_t	  o;
	int	  keep;

	list = ofl_store_gc_orphans(st, 1, odd_name, ck);
	for (o = 0; list != NULL && list[o] != NULL; o++) {
		/*
		 * A writer stopped before it first committed: its rows wait
		 * for that while another process holds the write lock, and
		 * no frame is written before them.  It held nothing.
		 */
		if (ofl_store_gc_file_empty(st, list[o])) {
			note(ck, "blobs/%s: an empty file of no content row,"
			    " left by a writer stopped before its first"
			    " commit%s", list[o], ck->repair ? " (removed)" :
			    "");
			if (ck->repair)
				(void)ofl_store_gc_unlink(st, list[o]);
			continue;
		}
		keep = lost || ofl_store_gc_names_artifact(st, list[o]);
		problem(ck, "blobs/%s: file of no content row%s", list[o],
		    !ck->repair ? "" : keep ? " (kept: it may be the content "
		    "of an artifact whose row is damaged)" : " (removed)");
		if (ck->repair && !keep)
			(void)ofl_store_gc_unlink(st, list[o]);
	}
	ofl_store_gc_orphans_free(list);
}

int
ofl_gc_check(struct ofl_store *st, int repair,
    int (*cb)(const char *, int, void *), void *arg)
{
	struct checker	ck;
	char		why[512];
	int		lost;

	ck.cb = cb;
	ck.arg = arg;
	ck.n = 0;
	ck.repair = repair;
	ck.noix = 0;
	/* The index's own file: content gives all it holds again. */
	if (!ofl_store_ix_sound(st)) {
		snprintf(why, sizeof why, "%s", ofl_errmsg());
		problem(&ck, "index file: %s%s", why, repair &&
		    ofl_store_ix_reset(st) == 0 ? " (removed)" : "");
	}
	/*
	 * A store never indexed has none to check, and none is made, not
	 * even by a repair that drops an artifact's index rows.
	 */
	if ((ck.noix = ofl_store_ix_scratch(st)) == -1) {
		problem(&ck, "index: not checked: %s", ofl_errmsg());
		return ck.n;
	}
	/* The database itself. */
	if (ofl_store_gc_integrity(st, integrity_line, &ck) == -1) {
		problem(&ck, "database: %s", ofl_errmsg());
		return ck.n;
	}
	check_rows(st, &ck);
	lost = check_contents(st, &ck);
	check_index(st, &ck);
	check_orphans(st, &ck, lost);
	return ck.n;
}
