/*
 * suggest.c: what the notice shows of an artifact's errors, as data.
 *
 * The most frequent error lines of a log or text, each with its variable
 * parts masked (numbers, hex and ids become <*>) so that lines that
 * differ only there count as one signature, read from the head and the
 * tail of a large artifact, and in a log merged by the template of each
 * signature's first line; and the words worth a search: frequent in
 * the artifact, rare in the rest of the index when it is indexed.  The
 * notice decides how much of it to show and how.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define SUGGEST_SCAN	(32 * 1024 * 1024)	/* bytes from head and tail */
#define SUGGEST_TERMS	(4 * 1024 * 1024)	/* bytes scanned for terms */
#define SUGGEST_SIGS	5
#define SUGGEST_WORDS	8
#define HMAP_MAX	(256 * 1024)		/* distinct keys kept */
#define SIG_KEEP	256		/* bytes of a log's line, for the miner */

struct hent {
	char		*key;
	size_t		 klen;
	uint64_t	 count;
	uint64_t	 first;		/* the line it was first seen on */
	char		*surface;
	size_t		 slen;
	char		*tmpl;		/* a log's: its template, when merged */
	size_t		 tlen;
	double		 score;
};

struct hmap {
	struct hent	*v;
	size_t		 cap;
	size_t		 n;
};

struct termscan {
	struct hmap	*h;
	const char	*text;
};

static uint64_t		 hash_bytes(const char *, size_t);
static struct hent	*hmap_get(struct hmap *, const char *, size_t, int);
static void		 hmap_free(struct hmap *);
static int		 hent_cmp(const void *, const void *);
static void		 scan_sigs(struct hmap *, int, size_t, const char *, size_t,
			    uint64_t);
static int		 term_cb(void *, int, const char *, int, int, int);
static int		 stopword(const char *, size_t);
static int		 read_range(struct ofl_reader *, uint64_t, size_t,
			    struct ofl_buf *);
static int		 suggest_sigs(struct ofl_reader *, struct ofl_buf *,
			    struct ofl_suggest *);
static int		 first_cmp(const void *, const void *);
static void		 sig_line(struct ofl_buf *, const struct hent *);
static int		 tmpl_cmp(const void *, const void *);
static int		 tmpl_id_cmp(const void *, const void *);
static void		 sigs_mine(struct hent *, size_t);
static int		 suggest_terms(struct ofl_store *, const char *,
			    struct ofl_reader *, struct ofl_buf *,
			    struct ofl_suggest *);


static uint64_t
hash_bytes(const char *s, size_t n)
{
	uint64_t	h = 1469598103934665603ULL;
	size_t		i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* Find key; with create, add it (unless the map is full). */
static struct hent *
hmap_get(struct hmap *h, const char *key, size_t klen, int create)
{
	struct hent	*old, *e;
	size_t		 i, oldcap;

	if (create && (h->n + 1) * 2 > h->cap) {
		if (h->n >= HMAP_MAX)
			create = 0;
		else {
			old = h->v;
			oldcap = h->cap;
			h->cap = h->cap == 0 ? 1024 : h->cap * 2;
			h->v = ofl_xcalloc(h->cap, sizeof *h->v);
			for (i = 0; i < oldcap; i++) {
				size_t j;

				if (old[i].key == NULL)
					continue;
				j = hash_bytes(old[i].key, old[i].klen) &
				    (h->cap - 1);
				while (h->v[j].key != NULL)
					j = (j + 1) & (h->cap - 1);
				h->v[j] = old[i];
			}
			free(old);
		}
	}
	if (h->cap == 0)
		return NULL;
	i = hash_bytes(key, klen) & (h->cap - 1);
	for (;;) {
		e = &h->v[i];
		if (e->key == NULL)
			break;
		if (e->klen == klen && memcmp(e->key, key, klen) == 0)
			return e;
		i = (i + 1) & (h->cap - 1);
	}
	if (!create)
		return NULL;
	e->key = ofl_xmalloc(klen + 1);
	memcpy(e->key, key, klen);
	e->key[klen] = '\0';
	e->klen = klen;
	h->n++;
	return e;
}

static void
hmap_free(struct hmap *h)
{
	size_t	i;

	for (i = 0; i < h->cap; i++) {
		free(h->v[i].key);
		free(h->v[i].surface);
	}
	free(h->v);
	memset(h, 0, sizeof *h);
}

/* Highest score first, then earliest. */
static int
hent_cmp(const void *a, const void *b)
{
	const struct hent	*x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return 0;
}

/*
 * Count the signatures of the error lines in text (lines from lineno),
 * or of the warning lines if warn, keeping the first keep bytes of the
 * first line of each.
 */
static void
scan_sigs(struct hmap *h, int warn, size_t keep, const char *text,
    size_t len, uint64_t lineno)
{
	struct ofl_linestat	 ls;
	struct ofl_buf		 sig;
	struct hent		*e;
	const char		*p = text, *end = text + len, *nl;
	uint64_t		 was;
	size_t			 n;

	ofl_buf_init(&sig);
	/* One count for the lines, as capture's: a line sees the last. */
	memset(&ls, 0, sizeof ls);
	for (; p < end; p = nl + 1, lineno++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		n = (size_t)(nl - p) > 4096 ? 4096 : (size_t)(nl - p);
		was = warn ? ls.warnings : ls.errors;
		ofl_linestat_line(&ls, p, n, lineno);
		if ((warn ? ls.warnings : ls.errors) == was)
			continue;
		ofl_buf_reset(&sig);
		ofl_fmt_log_mask(&sig, p, n);
		if (sig.len == 0)
			continue;
		if ((e = hmap_get(h, sig.data, sig.len, 1)) == NULL)
			continue;
		if (e->count++ == 0) {
			e->first = lineno;
			if (keep == 0)
				continue;
			if (n > keep)
				n = ofl_utf8_cut(p, keep);
			e->surface = ofl_xmalloc(n + 1);
			memcpy(e->surface, p, n);
			e->surface[n] = '\0';
			e->slen = n;
		}
	}
	ofl_buf_free(&sig);
}

static int
stopword(const char *s, size_t n)
{
	static const char *words[] = {
		"about", "after", "again", "also", "and", "are", "been",
		"before", "being", "but", "can", "could", "did", "does",
		"each", "for", "from", "had", "has", "have", "her", "here",
		"his", "how", "into", "its", "just", "more", "most", "not",
		"now", "only", "other", "our", "out", "over", "same", "she",
		"should", "some", "such", "than", "that", "the", "their",
		"them", "then", "there", "these", "they", "this", "those",
		"through", "too", "under", "until", "very", "was", "were",
		"what", "when", "where", "which", "while", "who", "why",
		"will", "with", "would", "you", "your", "null", "true",
		"false", "http", "https", "www", "com", "org", NULL
	};
	size_t	i;

	for (i = 0; words[i] != NULL; i++)
		if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0)
			return 1;
	return 0;
}

static int
term_cb(void *arg, int flags, const char *tok, int n, int start, int end)
{
	struct termscan	*ts = arg;
	struct hent	*e;
	int		 i, letters = 0, digits = 0;

	if (n < 3 || n > 40 || (flags & OFL_TOK_COLOCATED))
		return OFL_TOK_OK;
	for (i = 0; i < n; i++) {
		if (tok[i] >= '0' && tok[i] <= '9')
			digits++;
		else if ((unsigned char)tok[i] < 0x80)
			letters++;
	}
	if (letters < 3 || digits > 0)
		return OFL_TOK_OK;
	if ((e = hmap_get(ts->h, tok, (size_t)n, 1)) == NULL)
		return OFL_TOK_OK;
	if (e->count++ == 0 && end - start <= 40) {
		/* The first surface form, lowercased. */
		e->surface = ofl_xmalloc((size_t)(end - start) + 1);
		for (i = 0; i < end - start; i++)
			e->surface[i] = (char)tolower(
			    (unsigned char)ts->text[start + i]);
		e->surface[end - start] = '\0';
	}
	return OFL_TOK_OK;
}

/* Read up to n bytes from off into b (replacing its content). */
static int
read_range(struct ofl_reader *r, uint64_t off, size_t n, struct ofl_buf *b)
{
	ssize_t	k;

	ofl_buf_reset(b);
	if (ofl_reader_seek(r, off) == -1)
		return -1;
	while (b->len < n) {
		if (b->cap < n + 1) {
			b->data = ofl_xrealloc(b->data, n + 1);
			b->cap = n + 1;
		}
		k = ofl_reader_read(r, b->data + b->len, n - b->len);
		if (k == -1)
			return -1;
		if (k == 0)
			break;
		b->len += (size_t)k;
	}
	return 0;
}

/* Earliest first line first (of pointers to entries). */
static int
first_cmp(const void *a, const void *b)
{
	const struct hent	*x = *(struct hent *const *)a;
	const struct hent	*y = *(struct hent *const *)b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return 0;
}

/*
 * An entry's line as the miner is to read it: each the first line of a
 * record, not the continuation of the one before (an indented line, or
 * one without a timestamp after one with).  So each starts with the same
 * timestamp, which the miner sets aside with the rest of the header.
 */
static void
sig_line(struct ofl_buf *b, const struct hent *e)
{
	size_t	off;

	for (off = 0; off < e->slen && (e->surface[off] == ' ' ||
	    e->surface[off] == '\t'); off++)
		;
	ofl_buf_reset(b);
	ofl_buf_adds(b, "2000-01-01T00:00:00 ");
	ofl_buf_add(b, e->surface + off, e->slen - off);
}

/* Templates by ID (of pointers to them). */
static int
tmpl_cmp(const void *a, const void *b)
{
	const struct ofl_fmt_log_tmpl_info	*x, *y;

	x = *(const struct ofl_fmt_log_tmpl_info *const *)a;
	y = *(const struct ofl_fmt_log_tmpl_info *const *)b;
	return strcmp(x->id, y->id);
}

/* An ID against a template (of a pointer to it), for bsearch. */
static int
tmpl_id_cmp(const void *key, const void *b)
{
	const struct ofl_fmt_log_tmpl_info	*y;

	y = *(const struct ofl_fmt_log_tmpl_info *const *)b;
	return strcmp(key, y->id);
}

/*
 * The signatures of a log, merged by template: the first line of each
 * signature goes through the template miner (fmt-log-tmpl.c), which
 * sets the header aside and finds the variables that have no digits (a
 * user name, a host), so that the signatures of one message count as
 * one.  A merged signature's count goes to its template's leader (its
 * own becomes 0), whose tmpl (of tlen bytes, NUL bytes and all) is the
 * template.  A signature alone in its template, one whose line the
 * miner takes for a record's continuation, and one whose template is
 * variables alone keep their own text.
 */
static void
sigs_mine(struct hent *v, size_t nv)
{
	struct ofl_fmt_log_tmpl			*tm;
	const struct ofl_fmt_log_tmpl_info	*t, **byid, **tp;
	struct hent				**ord, **lead;
	struct ofl_buf				 b;
	char					 tid[OFL_TMPL_ID];
	size_t					 i, k, nt;

	if (nv < 2)
		return;
	ord = ofl_xcalloc(nv, sizeof *ord);
	for (i = 0; i < nv; i++)
		ord[i] = &v[i];
	qsort(ord, nv, sizeof *ord, first_cmp);
	tm = ofl_fmt_log_tmpl_new();
	ofl_buf_init(&b);
	for (i = 0; i < nv; i++) {
		sig_line(&b, ord[i]);
		ofl_fmt_log_tmpl_add(tm, b.data, b.len);
	}
	ofl_fmt_log_tmpl_finish(tm);
	ofl_fmt_log_tmpl_rewind(tm);
	nt = ofl_fmt_log_tmpl_count(tm);
	lead = ofl_xcalloc(nt == 0 ? 1 : nt, sizeof *lead);
	/* The templates by ID, for a line's to be found. */
	byid = ofl_xcalloc(nt == 0 ? 1 : nt, sizeof *byid);
	for (k = 0; k < nt; k++)
		byid[k] = ofl_fmt_log_tmpl_get(tm, k);
	qsort(byid, nt, sizeof *byid, tmpl_cmp);
	for (i = 0; i < nv; i++) {
		sig_line(&b, ord[i]);
		if (ofl_fmt_log_tmpl_line(tm, b.data, b.len, tid) != 1)
			continue;
		if ((tp = bsearch(tid, byid, nt, sizeof *byid,
		    tmpl_id_cmp)) == NULL)
			continue;
		t = *tp;
		k = (size_t)(tp - byid);
		if (ofl_fmt_log_tmpl_nconst(t->text, t->len) == 0)
			continue;
		if (lead[k] == NULL) {
			lead[k] = ord[i];
			continue;
		}
		lead[k]->count += ord[i]->count;
		ord[i]->count = 0;
		if (lead[k]->tmpl == NULL) {
			lead[k]->tmpl = ofl_xmalloc(t->len + 1);
			memcpy(lead[k]->tmpl, t->text, t->len);
			lead[k]->tmpl[t->len] = '\0';
			lead[k]->tlen = t->len;
		}
	}
	ofl_buf_free(&b);
	free(byid);
	free(lead);
	free(ord);
	ofl_fmt_log_tmpl_free(tm);
}

/*
 * The error signatures of a log or text, its head and tail; of its
 * warnings when it has none (a build that only warns).
 */
static int
suggest_sigs(struct ofl_reader *r, struct ofl_buf *b, struct ofl_suggest *sg)
{
	const struct ofl_meta	*m = ofl_reader_meta(r);
	int			 warn = m->errors == 0 && m->warnings > 0;
	size_t			 keep = m->kind == OFL_KIND_LOG ? SIG_KEEP : 0;
	struct hmap	 sigs;
	struct hent	*v;
	uint64_t	 size = ofl_reader_bytes(r), off, lineno;
	size_t		 i, k, nv;
	int		 ret = -1;

	memset(&sigs, 0, sizeof sigs);
	k = size > SUGGEST_SCAN ? SUGGEST_SCAN : (size_t)size;
	if (read_range(r, 0, k, b) == -1)
		goto out;
	/* Only whole lines, unless this is all of it. */
	if (k < size)
		while (b->len > 0 && b->data[b->len - 1] != '\n')
			b->len--;
	scan_sigs(&sigs, warn, keep, b->data, b->len, 1);
	sg->sig_bytes = size;
	if (size > 2 * (uint64_t)SUGGEST_SCAN) {
		sg->sig_bytes = 2 * (uint64_t)SUGGEST_SCAN;
		off = size - SUGGEST_SCAN;
		if (read_range(r, off, SUGGEST_SCAN, b) == -1)
			goto out;
		for (i = 0; i < b->len && b->data[i] != '\n'; i++)
			;
		if (i < b->len) {
			lineno = (uint64_t)ofl_reader_line_of(r, off + i + 1);
			scan_sigs(&sigs, warn, keep, b->data + i + 1,
			    b->len - i - 1,
			    lineno);
		}
	} else if (size > SUGGEST_SCAN) {
		off = b->len;
		lineno = (uint64_t)ofl_reader_line_of(r, off);
		if (read_range(r, off, (size_t)(size - off), b) == -1)
			goto out;
		scan_sigs(&sigs, warn, keep, b->data, b->len, lineno);
	}
	nv = 0;
	v = ofl_xcalloc(sigs.n == 0 ? 1 : sigs.n, sizeof *v);
	for (i = 0; i < sigs.cap; i++)
		if (sigs.v[i].key != NULL)
			v[nv++] = sigs.v[i];
	if (m->kind == OFL_KIND_LOG)
		sigs_mine(v, nv);
	for (i = 0; i < nv; i++)
		v[i].score = (double)v[i].count;
	qsort(v, nv, sizeof *v, hent_cmp);
	sg->sigs = ofl_xcalloc(nv < SUGGEST_SIGS ? nv + 1 : SUGGEST_SIGS,
	    sizeof *sg->sigs);
	for (i = 0; i < nv && sg->nsigs < SUGGEST_SIGS && v[i].count > 0;
	    i++) {
		k = v[i].tmpl != NULL ? v[i].tlen : v[i].klen;
		/* The key may hold NUL bytes: copy all of it. */
		sg->sigs[sg->nsigs].text = ofl_xmalloc(k + 1);
		memcpy(sg->sigs[sg->nsigs].text, v[i].tmpl != NULL ?
		    v[i].tmpl : v[i].key, k + 1);
		sg->sigs[sg->nsigs].len = k;
		sg->sigs[sg->nsigs].count = v[i].count;
		sg->sigs[sg->nsigs].first_line = v[i].first;
		sg->nsigs++;
	}
	for (i = 0; i < nv; i++)
		free(v[i].tmpl);
	free(v);
	ret = 0;
out:
	hmap_free(&sigs);
	return ret;
}

/* Distinctive terms: frequent here, rare in the rest of the index. */
static int
suggest_terms(struct ofl_store *st, const char *id, struct ofl_reader *r,
    struct ofl_buf *b, struct ofl_suggest *sg)
{
	struct ofl_fts_vocab	*voc = NULL;
	struct ofl_tok		*tk = NULL;
	struct hmap		 terms;
	struct termscan		 ts;
	struct hent		*v = NULL, *e;
	uint64_t		 size = ofl_reader_bytes(r);
	int64_t			 blob, nchunks = 0, df;
	size_t			 i, k, nv;
	double			 idf;
	int			 ret = -1;

	memset(&terms, 0, sizeof terms);
	if ((tk = ofl_store_fts_tok(st)) == NULL)
		goto out;
	k = size > SUGGEST_TERMS ? SUGGEST_TERMS : (size_t)size;
	if (read_range(r, 0, k, b) == -1)
		goto out;
	if (k < size)
		while (b->len > 0 && b->data[b->len - 1] != '\n')
			b->len--;
	ts.h = &terms;
	ts.text = b->data;
	if (b->len > 0 && ofl_tok_run(tk, 2, b->data, b->len, term_cb, &ts) ==
	    -1)
		goto out;
	if ((blob = ofl_store_blob(st, id)) >= 0 &&
	    ofl_store_fts_state(st, blob) == 1) {
		if ((nchunks = ofl_store_fts_chunks(st)) == -1 ||
		    (voc = ofl_store_fts_vocab(st)) == NULL)
			goto out;
	}
	nv = 0;
	v = ofl_xcalloc(terms.n == 0 ? 1 : terms.n, sizeof *v);
	for (i = 0; i < terms.cap; i++) {
		e = &terms.v[i];
		idf = 1.0;
		if (e->key == NULL || e->surface == NULL ||
		    stopword(e->surface, strlen(e->surface)))
			continue;
		if (voc != NULL) {
			df = ofl_store_fts_vocab_doc(voc, e->key, e->klen);
			idf = log((double)(nchunks + 1) / (double)(df + 1)) +
			    0.1;
		}
		v[nv] = *e;
		v[nv].score = (1.0 + log((double)e->count)) * idf;
		nv++;
	}
	qsort(v, nv, sizeof *v, hent_cmp);
	sg->terms = ofl_xcalloc(SUGGEST_WORDS, sizeof *sg->terms);
	for (i = 0; i < nv && i < SUGGEST_WORDS; i++)
		sg->terms[sg->nterms++] = ofl_xstrdup(v[i].surface);
	ret = 0;
out:
	free(v);
	ofl_store_fts_vocab_free(voc);
	hmap_free(&terms);
	ofl_tok_free(tk);
	return ret;
}

int
ofl_suggest(struct ofl_store *st, const char *id, struct ofl_suggest *sg)
{
	struct ofl_reader	*r;
	const struct ofl_meta	*m;
	struct ofl_buf		 b;
	int			 ret = -1;

	memset(sg, 0, sizeof *sg);
	ofl_buf_init(&b);
	if ((r = ofl_reader_open(st, id)) == NULL)
		goto out;
	m = ofl_reader_meta(r);
	if ((m->kind == OFL_KIND_LOG || m->kind == OFL_KIND_TEXT) &&
	    suggest_sigs(r, &b, sg) == -1)
		goto out;
	if (suggest_terms(st, id, r, &b, sg) == -1)
		goto out;
	ret = 0;
out:
	if (ret == -1)
		ofl_suggest_free(sg);
	ofl_buf_free(&b);
	ofl_reader_close(r);
	return ret;
}

void
ofl_suggest_free(struct ofl_suggest *sg)
{
	size_t	i;

	for (i = 0; i < sg->nsigs; i++)
		free(sg->sigs[i].text);
	free(sg->sigs);
	for (i = 0; i < sg->nterms; i++)
		free(sg->terms[i]);
	free(sg->terms);
	memset(sg, 0, sizeof *sg);
}
