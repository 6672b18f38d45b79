/*
 * query.c: search artifacts, and list them.
 *
 * Any text is a valid query.  It is cut into terms here (words, and
 * phrases in double quotes); each term becomes an FTS5 string, so no
 * character the user types is ever FTS5 syntax.  The terms are asked for
 * all together first (AND), then any of them (OR), ranked by BM25 with
 * titles weighted above bodies.  When nothing matches, the raw text of
 * the artifacts is scanned for the terms as substrings, then the index's
 * vocabulary gives close spellings (edit distance 2 at most).
 *
 * Snippets are cut from the artifact itself: the lines of the best
 * matching chunk that carry the most query terms, byte for byte, each
 * prefixed with its number (":" for a line with a match, "-" for
 * context, as grep -n does), within a byte budget.  Matches are never
 * marked in the text, which would change the evidence: a terminal sees
 * them in color (escapes left out of the budget, so it sees the same
 * lines as a pipe), JSON gives their byte offsets in each line.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ofl.h"
#include "banned.h"

#define QUERY_MAX	4096		/* bytes of query text used */
#define TERMS_MAX	32		/* terms used */
#define TARGETS_MAX	64		/* words marked */
#define SNIP_READ_MAX	(1024 * 1024)	/* bytes of a hit read */
#define LINE_SHOW_MAX	400		/* bytes of one snippet line */
#define TITLE_MAX	120
#define PER_BLOB_MAX	32		/* more blobs: one query, filtered */
#define SCAN_LINES_MAX	5000		/* substring: lines collected */
#define MERGE_LINES_MAX	400		/* hits merged up to this span */
/* Colors as grep uses them: matches, line numbers, references. */
#define COLOR_MATCH	"\033[01;31m"
#define COLOR_LINENO	"\033[32m"
#define COLOR_REF	"\033[35m"
#define COLOR_END	"\033[m"

enum {
	PHASE_ALL = 0,		/* every term */
	PHASE_ANY,		/* some terms */
	PHASE_SUBSTR		/* substring scan */
};

enum {
	FALLBACK_NONE = 0,
	FALLBACK_SUBSTR,
	FALLBACK_SPELL
};

struct term {
	char	*text;		/* as typed, cleaned */
	size_t	 len;
	int	 prefix;	/* ended with '*' */
	int	 phrase;	/* was in double quotes */
	char	*exact;		/* the identifier it is, or NULL */
	size_t	 ntok;
	char	*spell;		/* corrected token, or NULL */
	int	 stop;		/* a stop word: left out if others remain */
};

struct target {
	char	*s;
	size_t	 n;
	int	 prefix;
	int	 exact;		/* matches identifier tokens */
	int	 term;		/* index of its term */
	char	*surface;	/* first text it marked */
};

struct art {
	char			 id[OFL_ID_MAX + 1];
	int64_t			 blob;
	int			 kind;
	uint64_t		 bytes;
	struct ofl_reader	*r;
	int			 hit;
	uint64_t		(*rg)[2];	/* line ranges in scope */
	size_t			 nrg;		/* 0: the whole artifact */
	int			 all;		/* named whole as well */
};

struct hit {
	size_t		 art;
	int64_t		 seq;		/* chunk, -1: none */
	double		 score;
	int		 phase;
	char		*member;
	char		*title;
	uint64_t	 byte_start;
	uint64_t	 byte_end;
	uint64_t	 line_start;
	uint64_t	 line_end;
	uint64_t	 order;		/* substring: position found */
	uint64_t	 text_line;	/* member: the chunk's first line */
};

struct mark {
	size_t	start;
	size_t	end;
	int	target;
};

/* A part of the output to color, or a match to report in JSON. */
struct span {
	size_t		 off;
	size_t		 len;
	const char	*color;
};

struct line {
	const char	*s;
	size_t		 n;
	uint64_t	 no;
	uint64_t	 mask;		/* targets matched */
	int		 nmarks;
	size_t		 mark0;		/* first mark in the line */
	int		 chosen;
	size_t		 from;		/* the part shown */
	size_t		 to;
};

struct search {
	int				 readerr;	/* unreadable hits */
	char				 readmsg[512];
	struct ofl_store		*st;
	sqlite3				*db;
	const struct ofl_search_opts	*o;
	struct ofl_tok			*tk;
	struct art			*a;
	size_t				 na;
	int				 whole;
	struct term			*t;
	size_t				 nt;
	struct target			*tg;
	size_t				 ntg;
	struct hit			*h;
	size_t				 nh;
	size_t				 caph;
	int				 more;
	int				 fallback;
	int				 substr;	/* mark substrings */
	int				 skipstop;	/* stop words out */
	int				 scoped;	/* temp.ix_scope made */
	ssize_t				 qart;		/* fts_query's art, -1 */
	char				*fts_and;
	char				*fts_or;
	struct ofl_redactor		*rd;		/* NULL: raw output */
	struct ofl_buf			 rtmp;
	/* Marking one buffer. */
	struct mark			*m;
	size_t				 nm;
	size_t				 capm;
	const char			*mtext;
	/* Spans of the output: recorded while record is set. */
	int				 record;
	struct span			*sp;
	size_t				 nsp;
	size_t				 capsp;
};

/* Collecting the chunk text of an archive member (chunker run again). */
struct rechunk {
	int64_t		 want;		/* -1: every chunk */
	int64_t		 seq;
	struct ofl_buf	*out;
	struct search	*s;
	size_t		 art;
	int		 found;
};

static char	*clean_query(const char *, size_t *);
static void	 term_add(struct search *, const char *, size_t, int, int);
static int	 stop_word(const char *, size_t);
static int	 count_cb(void *, int, const char *, int, int, int);
static int	 exact_cb(void *, int, const char *, int, int, int);
static int	 target_cb(void *, int, const char *, int, int, int);
static void	 target_add(struct search *, const char *, size_t, int, int,
		    int);
static int	 parse_query(struct search *, const char *);
static void	 add_fts_string(struct ofl_buf *, const char *, size_t);
static char	*build_fts(struct search *, const char *);
static int	 scope_add(struct search *, const char *, int,
		    const struct ofl_ref *);
static int	 scope_range(struct search *, struct hit *);
static int	 in_ranges(const struct art *, uint64_t);
static int	 scope_cb(const struct ofl_meta *, void *);
static int	 art_by_blob(struct search *, int64_t);
static int	 hit_seen(struct search *, size_t, int64_t);
static struct hit *hit_new(struct search *);
static int	 fts_run(struct search *, const char *, int, size_t);
static int	 scope_table(struct search *);
static int	 fts_query(struct search *, const char *, int, int64_t,
		    int64_t, size_t);
static int	 hit_load(struct search *, struct hit *, int64_t);
static int	 hit_cmp(const void *, const void *);
static int	 hit_pos_cmp(const void *, const void *);
static void	 merge_hits(struct search *);
static void	 hit_free(struct hit *);
static int	 substring_scan(struct search *, size_t);
static int	 scan_text(struct search *, size_t, const char *, size_t,
		    uint64_t, uint64_t, const char *, int64_t);
static int	 rechunk_cb(const struct ofl_chunk *, void *);
static int	 spell_fix(struct search *);
static int	 edit_distance(const char *, size_t, const char *, size_t,
		    int);
static void	 mark_text(struct search *, const char *, size_t);
static int	 mark_cb(void *, int, const char *, int, int, int);
static int	 mark_cmp(const void *, const void *);
static int	 art_gone(struct ofl_store *, const char *);
static struct ofl_reader *art_reader(struct search *, size_t);
static int	 hit_text(struct search *, struct hit *, struct ofl_buf *,
		    int *);
static size_t	 split_lines(struct search *, const struct hit *,
		    const struct ofl_buf *, struct line **);
static size_t	 line_window(struct search *, const struct line *, size_t,
		    size_t *, size_t *);
static void	 span_add(struct search *, size_t, size_t, const char *);
static void	 span_cut(struct search *, size_t);
static void	 colorize(struct search *, struct ofl_buf *, size_t);
static void	 render_line(struct ofl_buf *, struct search *,
		    const struct line *, size_t, size_t);
static int	 line_better(const struct line *, const struct line *);
static size_t	 digits(uint64_t);
static int	 select_lines(struct search *, struct line *, size_t, size_t,
		    size_t);
static size_t	 utf8_back(const char *, size_t);
static void	 render_hit(struct search *, struct hit *, size_t,
		    struct ofl_buf *, size_t *, int *);
static void	 add_title(struct ofl_buf *, struct search *, const char *);
static void	 add_ref(struct ofl_buf *, const struct search *,
		    const struct hit *);
static void	 output(struct search *, struct ofl_buf *,
		    const char *const *, size_t);
static void	 search_free(struct search *);
static void	 make_targets(struct search *, const char *);
static void	 mark_push(struct search *, size_t, size_t, int);
static const char *find_ci(const char *, size_t, const char *, size_t);
static void	 substring_titles(struct search *, size_t);
static void	 add_note(struct ofl_buf *, struct search *);
static void	 add_json_str_safe(struct ofl_buf *, const char *, size_t);
static void	 output_json_hit(struct ofl_buf *, struct search *,
		    struct hit *, size_t);
static void	 add_more_search(struct ofl_buf *, struct search *,
		    const char *const *, size_t, int, size_t);
static int	 filter_empty(const struct ofl_filter *);

/* Query text. */

/* The query with control characters and invalid UTF-8 made spaces. */
static char *
clean_query(const char *q, size_t *lenp)
{
	const unsigned char	*p = (const unsigned char *)q;
	size_t			 n = strlen(q), i = 0, j = 0;
	char			*out;
	int			 k;

	if (n > QUERY_MAX)
		n = QUERY_MAX;
	out = ofl_xmalloc(n + 1);
	while (i < n) {
		if (p[i] < 0x20 || p[i] == 0x7f) {
			out[j++] = ' ';
			i++;
			continue;
		}
		if ((k = ofl_utf8_len(p + i, n - i)) == 0) {
			out[j++] = ' ';
			i++;
			continue;
		}
		memcpy(out + j, p + i, (size_t)k);
		i += (size_t)k;
		j += (size_t)k;
	}
	out[j] = '\0';
	*lenp = j;
	return out;
}

/* Words that say little in a query: left out when others remain. */
static int
stop_word(const char *p, size_t n)
{
	static const char *words[] = {
		"a", "about", "am", "an", "and", "are", "as", "at", "be",
		"been", "but", "by", "can", "could", "did", "do", "does",
		"for", "from", "had", "has", "have", "how", "i", "if", "in",
		"into", "is", "it", "its", "me", "my", "of", "on", "or",
		"our", "please", "shall", "should", "show", "so", "that",
		"the", "their", "them", "then", "there", "these", "they",
		"this", "those", "to", "us", "was", "we", "were", "what",
		"when", "where", "which", "who", "why", "will", "with",
		"would", "you", "your", NULL
	};
	char	w[16];
	size_t	i;

	if (n == 0 || n >= sizeof w)
		return 0;
	for (i = 0; i < n; i++)
		w[i] = (char)tolower((unsigned char)p[i]);
	w[n] = '\0';
	for (i = 0; words[i] != NULL; i++)
		if (strcmp(words[i], w) == 0)
			return 1;
	return 0;
}

static int
count_cb(void *arg, int flags, const char *tok, int n, int start, int end)
{
	size_t	*count = arg;

	if (!(flags & FTS5_TOKEN_COLOCATED))
		(*count)++;
	return SQLITE_OK;
}

struct exact_ctx {
	char	*exact;
	int	 start;
	int	 end;
	size_t	 inside;	/* words inside the identifier */
	size_t	 words;
};

static int
exact_cb(void *arg, int flags, const char *tok, int n, int start, int end)
{
	struct exact_ctx	*x = arg;

	if (flags & FTS5_TOKEN_COLOCATED) {
		if (x->exact == NULL) {
			x->exact = ofl_xmalloc((size_t)n + 1);
			memcpy(x->exact, tok, (size_t)n);
			x->exact[n] = '\0';
			x->start = start;
			x->end = end;
			/* The word it is colocated with is inside. */
			x->inside++;
		}
		return SQLITE_OK;
	}
	x->words++;
	if (x->exact != NULL && start >= x->start && start < x->end)
		x->inside++;
	return SQLITE_OK;
}

static void
term_add(struct search *s, const char *p, size_t n, int phrase, int prefix)
{
	struct exact_ctx	 x;
	struct term		*t;
	size_t			 i, ntok = 0;

	if (s->nt >= TERMS_MAX || n == 0)
		return;
	for (i = 0; i < s->nt; i++)
		if (s->t[i].len == n && memcmp(s->t[i].text, p, n) == 0 &&
		    s->t[i].phrase == phrase && s->t[i].prefix == prefix)
			return;
	s->t = ofl_xrealloc(s->t, (s->nt + 1) * sizeof *s->t);
	t = &s->t[s->nt++];
	memset(t, 0, sizeof *t);
	t->text = ofl_xmalloc(n + 1);
	memcpy(t->text, p, n);
	t->text[n] = '\0';
	t->len = n;
	t->phrase = phrase;
	t->prefix = prefix;
	t->stop = !phrase && !prefix && stop_word(p, n);
	(void)ofl_tok_run(s->tk, 1, p, n, count_cb, &ntok);
	t->ntok = ntok;
	if (ntok > 0 && !phrase && !prefix) {
		memset(&x, 0, sizeof x);
		(void)ofl_tok_run(s->tk, 0, p, n, exact_cb, &x);
		/* Only when the identifier is the whole term. */
		if (x.exact != NULL && x.inside == x.words)
			t->exact = x.exact;
		else
			free(x.exact);
	}
}

/* Split the query into words and "phrases"; a lone quote is a space. */
static int
parse_query(struct search *s, const char *query)
{
	char	*q, *p, *e;
	size_t	 len, n;

	q = clean_query(query, &len);
	p = q;
	while (*p != '\0') {
		if (*p == ' ') {
			p++;
			continue;
		}
		if (*p == '"') {
			if ((e = strchr(p + 1, '"')) != NULL) {
				term_add(s, p + 1, (size_t)(e - p - 1), 1, 0);
				p = e + 1;
			} else
				p++;
			continue;
		}
		for (e = p; *e != '\0' && *e != ' ' && *e != '"'; e++)
			;
		n = (size_t)(e - p);
		if (n > 1 && p[n - 1] == '*') {
			while (n > 0 && p[n - 1] == '*')
				n--;
			term_add(s, p, n, 0, n > 0);
		} else
			term_add(s, p, n, 0, 0);
		p = e;
	}
	free(q);
	return 0;
}

struct target_ctx {
	struct search	*s;
	int		 prefix;
	int		 term;
};

static int
target_cb(void *arg, int flags, const char *tok, int n, int start, int end)
{
	struct target_ctx	*c = arg;

	if (!(flags & FTS5_TOKEN_COLOCATED))
		target_add(c->s, tok, (size_t)n, c->prefix, 0, c->term);
	return SQLITE_OK;
}

static void
target_add(struct search *s, const char *p, size_t n, int prefix, int exact,
    int term)
{
	struct target	*g;
	size_t		 i;

	if (n == 0 || s->ntg >= TARGETS_MAX)
		return;
	for (i = 0; i < s->ntg; i++)
		if (s->tg[i].n == n && memcmp(s->tg[i].s, p, n) == 0 &&
		    s->tg[i].exact == exact) {
			s->tg[i].prefix |= prefix;
			return;
		}
	s->tg = ofl_xrealloc(s->tg, (s->ntg + 1) * sizeof *s->tg);
	g = &s->tg[s->ntg++];
	memset(g, 0, sizeof *g);
	g->s = ofl_xmalloc(n + 1);
	memcpy(g->s, p, n);
	g->s[n] = '\0';
	g->n = n;
	g->prefix = prefix;
	g->exact = exact;
	g->term = term;
}

/* The words to mark: every token of every term, as the index has them. */
static void
make_targets(struct search *s, const char *raw)
{
	struct target_ctx	c;
	size_t			i;

	c.s = s;
	if (raw != NULL) {
		/* Raw FTS5 syntax: mark its words, operators or not. */
		c.prefix = 0;
		c.term = 0;
		(void)ofl_tok_run(s->tk, 2, raw, strlen(raw), target_cb, &c);
		return;
	}
	for (i = 0; i < s->nt; i++) {
		if (s->t[i].stop && s->skipstop)
			continue;
		c.prefix = s->t[i].prefix;
		c.term = (int)i;
		if (s->t[i].spell != NULL) {
			target_add(s, s->t[i].spell, strlen(s->t[i].spell), 0,
			    0, (int)i);
			continue;
		}
		if (s->t[i].exact != NULL)
			target_add(s, s->t[i].exact, strlen(s->t[i].exact),
			    0, 1, (int)i);
		(void)ofl_tok_run(s->tk, 1, s->t[i].text, s->t[i].len,
		    target_cb, &c);
	}
}

static void
add_fts_string(struct ofl_buf *b, const char *p, size_t n)
{
	size_t	i;

	ofl_buf_addc(b, '"');
	for (i = 0; i < n; i++) {
		if (p[i] == '"')
			ofl_buf_addc(b, '"');
		ofl_buf_addc(b, p[i]);
	}
	ofl_buf_addc(b, '"');
}

/* Every term as an FTS5 string, joined by op; NULL if there is none. */
static char *
build_fts(struct search *s, const char *op)
{
	struct ofl_buf	 b;
	struct term	*t;
	size_t		 i, used = 0;

	ofl_buf_init(&b);
	for (i = 0; i < s->nt; i++) {
		t = &s->t[i];
		if ((t->ntok == 0 && t->spell == NULL) ||
		    (t->stop && s->skipstop))
			continue;
		if (used++ > 0)
			ofl_buf_adds(&b, op);
		if (t->spell != NULL) {
			char	tmp[256];

			snprintf(tmp, sizeof tmp, "%c%s", OFL_TOK_EXACT,
			    t->spell);
			add_fts_string(&b, tmp, strlen(tmp));
			continue;
		}
		if (t->exact != NULL) {
			char	tmp[256];

			snprintf(tmp, sizeof tmp, "%c%s", OFL_TOK_EXACT,
			    t->exact);
			ofl_buf_addc(&b, '(');
			add_fts_string(&b, tmp, strlen(tmp));
			ofl_buf_adds(&b, " OR ");
		}
		add_fts_string(&b, t->text, t->len);
		if (t->prefix)
			ofl_buf_adds(&b, " *");
		if (t->exact != NULL)
			ofl_buf_addc(&b, ')');
	}
	if (used == 0) {
		ofl_buf_free(&b);
		return NULL;
	}
	return ofl_buf_str(&b);
}

/* The scope: artifacts and their blobs. */

static int
scope_add(struct search *s, const char *id, int named,
    const struct ofl_ref *range)
{
	struct ofl_meta	 m;
	struct art	*a;
	int64_t		 blob;
	size_t		 i;

	if (ofl_store_meta(s->st, id, &m) == -1)
		return named ? -1 : 0;	/* gone since it was listed */
	if (m.state != OFL_STATE_COMPLETE) {
		ofl_meta_free(&m);
		if (!named)
			return 0;
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: still being written", id);
		return -1;
	}
	if ((blob = ofl_store_blob(s->st, id)) < 0) {
		ofl_meta_free(&m);
		return named ? -1 : 0;
	}
	for (i = 0; i < s->na; i++)
		if (s->a[i].blob == blob)
			break;
	if (i == s->na) {
		s->a = ofl_xrealloc(s->a, (s->na + 1) * sizeof *s->a);
		a = &s->a[s->na++];
		memset(a, 0, sizeof *a);
		snprintf(a->id, sizeof a->id, "%s", m.id);
		a->blob = blob;
		a->kind = m.kind;
		a->bytes = m.bytes;
	} else
		a = &s->a[i];
	ofl_meta_free(&m);
	/* Lines A-B of it (ofl:ID:A-B), unless it is named whole too. */
	if (range == NULL || range->from == 0) {
		a->all = 1;
		free(a->rg);
		a->rg = NULL;
		a->nrg = 0;
	} else if (!a->all) {
		a->rg = ofl_xrealloc(a->rg, (a->nrg + 1) * sizeof *a->rg);
		a->rg[a->nrg][0] = range->from;
		a->rg[a->nrg][1] = range->to;
		a->nrg++;
	}
	return 0;
}

/* 1 if line lineno of an artifact is in the scope. */
static int
in_ranges(const struct art *a, uint64_t lineno)
{
	size_t	i;

	if (a->nrg == 0)
		return 1;
	for (i = 0; i < a->nrg; i++)
		if (lineno >= a->rg[i][0] && lineno <= a->rg[i][1])
			return 1;
	return 0;
}

/*
 * A hit of an artifact searched within line ranges: 0 if it lies outside
 * them, else 1, cut down to the range it overlaps (-1 on error).
 */
static int
scope_range(struct search *s, struct hit *h)
{
	struct art		*a = &s->a[h->art];
	struct ofl_reader	*r;
	uint64_t		 from, to;
	int64_t			 off;
	size_t			 i;

	if (a->nrg == 0)
		return 1;
	for (i = 0; i < a->nrg; i++)
		if (h->line_start <= a->rg[i][1] && h->line_end >= a->rg[i][0])
			break;
	if (i == a->nrg)
		return 0;
	from = a->rg[i][0];
	to = a->rg[i][1];
	if (h->member != NULL || (from <= h->line_start && to >= h->line_end))
		return 1;
	if ((r = art_reader(s, h->art)) == NULL)
		return -1;
	if (from > h->line_start) {
		if ((off = ofl_reader_seek_line(r, from)) < 0)
			return -1;
		h->byte_start = (uint64_t)off;
		h->line_start = h->text_line = from;
	}
	if (to < h->line_end) {
		if ((off = ofl_reader_seek_line(r, to + 1)) < 0)
			return -1;
		h->byte_end = (uint64_t)off;
		h->line_end = to;
	}
	return 1;
}

struct scope_ctx {
	struct search	*s;
	char		**ids;
	size_t		 n;
};

static int
scope_cb(const struct ofl_meta *m, void *arg)
{
	struct scope_ctx	*c = arg;

	if (m->state != OFL_STATE_COMPLETE)
		return 0;
	c->ids = ofl_xrealloc(c->ids, (c->n + 1) * sizeof *c->ids);
	c->ids[c->n++] = ofl_xstrdup(m->id);
	return 0;
}

static int
art_by_blob(struct search *s, int64_t blob)
{
	size_t	i;

	for (i = 0; i < s->na; i++)
		if (s->a[i].blob == blob)
			return (int)i;
	return -1;
}

/* Hits. */

static struct hit *
hit_new(struct search *s)
{
	struct hit	*h;

	if (s->nh == s->caph) {
		s->caph = s->caph == 0 ? 32 : s->caph * 2;
		s->h = ofl_xrealloc(s->h, s->caph * sizeof *s->h);
	}
	h = &s->h[s->nh++];
	memset(h, 0, sizeof *h);
	h->seq = -1;
	return h;
}

static void
hit_free(struct hit *h)
{
	free(h->member);
	free(h->title);
	h->member = h->title = NULL;
}

static int
hit_seen(struct search *s, size_t art, int64_t seq)
{
	size_t	i;

	for (i = 0; i < s->nh; i++)
		if (s->h[i].art == art && s->h[i].seq == seq)
			return 1;
	return 0;
}

/* Fill a hit from its chunk row; 0 if the row is gone. */
static int
hit_load(struct search *s, struct hit *h, int64_t rowid)
{
	sqlite3_stmt	*q;
	int		 rc;

	if (sqlite3_prepare_v2(s->db, "SELECT member, title, byte_start,"
	    " byte_end, line_start, line_end FROM ix_chunk WHERE id = ?1", -1,
	    &q, NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	sqlite3_bind_int64(q, 1, rowid);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (sqlite3_column_type(q, 0) != SQLITE_NULL)
			h->member = ofl_xstrdup((const char *)
			    sqlite3_column_text(q, 0));
		if (sqlite3_column_type(q, 1) != SQLITE_NULL)
			h->title = ofl_xstrdup((const char *)
			    sqlite3_column_text(q, 1));
		h->byte_start = (uint64_t)sqlite3_column_int64(q, 2);
		h->byte_end = (uint64_t)sqlite3_column_int64(q, 3);
		h->line_start = (uint64_t)sqlite3_column_int64(q, 4);
		h->line_end = (uint64_t)sqlite3_column_int64(q, 5);
		h->text_line = h->line_start;
	}
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(s->db));
	return -1;
}

/*
 * One FTS5 query, over the row ids [lo, hi] (lo > hi: all), adding up to
 * k new hits.  Returns the number of rows seen, -1 on error.
 */
static int
fts_query(struct search *s, const char *match, int phase, int64_t lo,
    int64_t hi, size_t k)
{
	sqlite3_stmt	*q;
	struct hit	*h;
	int64_t		 rowid;
	int		 rc, art, rows = 0, got;
	const char	*sql;
	struct art	*qa = NULL;
	uint64_t	 from = 0, to = 0;
	size_t		 i;

	if (lo <= hi && s->qart >= 0 && s->a[s->qart].nrg > 0) {
		/* Only the chunks that overlap the ranges. */
		qa = &s->a[s->qart];
		from = qa->rg[0][0];
		to = qa->rg[0][1];
		for (i = 1; i < qa->nrg; i++) {
			if (qa->rg[i][0] < from)
				from = qa->rg[i][0];
			if (qa->rg[i][1] > to)
				to = qa->rg[i][1];
		}
		sql = "SELECT rowid, -rank FROM ix_fts WHERE ix_fts MATCH ?1"
		    " AND rank MATCH '" OFL_INDEX_RANK "'"
		    " AND rowid BETWEEN ?2 AND ?3 AND rowid IN (SELECT id"
		    " FROM ix_chunk WHERE id BETWEEN ?2 AND ?3 AND"
		    " line_start <= ?6 AND line_end >= ?5)"
		    " ORDER BY rank LIMIT ?4";
	} else if (lo <= hi)
		sql = "SELECT rowid, -rank FROM ix_fts WHERE ix_fts MATCH ?1"
		    " AND rank MATCH '" OFL_INDEX_RANK "'"
		    " AND rowid BETWEEN ?2 AND ?3 ORDER BY rank LIMIT ?4";
	else if (!s->whole)
		sql = "SELECT rowid, -rank FROM ix_fts WHERE ix_fts MATCH ?1"
		    " AND rank MATCH '" OFL_INDEX_RANK "'"
		    " AND rowid / ?5 IN (SELECT blob FROM temp.ix_scope)"
		    " ORDER BY rank LIMIT ?4";
	else
		sql = "SELECT rowid, -rank FROM ix_fts WHERE ix_fts MATCH ?1"
		    " AND rank MATCH '" OFL_INDEX_RANK "'"
		    " ORDER BY rank LIMIT ?4";
	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	sqlite3_bind_text(q, 1, match, -1, SQLITE_STATIC);
	if (lo <= hi) {
		sqlite3_bind_int64(q, 2, lo);
		sqlite3_bind_int64(q, 3, hi);
	}
	sqlite3_bind_int64(q, 4, (int64_t)k);
	if (qa != NULL) {
		sqlite3_bind_int64(q, 5, (int64_t)from);
		sqlite3_bind_int64(q, 6, (int64_t)to);
	}
	if (lo > hi && !s->whole)
		sqlite3_bind_int64(q, 5, ofl_index_rowid(1, 0));
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		rows++;
		rowid = sqlite3_column_int64(q, 0);
		if ((art = art_by_blob(s, ofl_index_rowid_blob(rowid))) < 0)
			continue;
		if (hit_seen(s, (size_t)art, rowid - ofl_index_rowid(
		    ofl_index_rowid_blob(rowid), 0)))
			continue;
		h = hit_new(s);
		h->art = (size_t)art;
		h->seq = rowid - ofl_index_rowid(ofl_index_rowid_blob(rowid),
		    0);
		h->score = sqlite3_column_double(q, 1);
		h->phase = phase;
		if ((got = hit_load(s, h, rowid)) == 1)
			got = scope_range(s, h);
		if (got != 1) {
			hit_free(h);
			s->nh--;
			if (got == -1) {
				sqlite3_finalize(q);
				return -1;
			}
		}
	}
	if (rc != SQLITE_DONE) {
		if (s->o->fts)
			ofl_seterr(OFL_EXIT_USAGE, "--fts: %s",
			    sqlite3_errmsg(s->db));
		else
			ofl_seterr(OFL_EXIT_FAIL, "search: %s",
			    sqlite3_errmsg(s->db));
		sqlite3_finalize(q);
		return -1;
	}
	sqlite3_finalize(q);
	return rows;
}

/* The blobs of a large scope, in a table for one query to filter by. */
static int
scope_table(struct search *s)
{
	sqlite3_stmt	*q;
	size_t		 i;

	if (s->scoped)
		return 0;
	if (sqlite3_exec(s->db, "CREATE TEMP TABLE IF NOT EXISTS ix_scope"
	    " (blob INTEGER PRIMARY KEY); DELETE FROM temp.ix_scope", NULL,
	    NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO temp.ix_scope"
	    " VALUES(?1)", -1, &q, NULL) != SQLITE_OK) {
		ofl_seterr(OFL_EXIT_FAIL, "search: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	for (i = 0; i < s->na; i++) {
		sqlite3_bind_int64(q, 1, s->a[i].blob);
		(void)sqlite3_step(q);
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	s->scoped = 1;
	return 0;
}

/* Run a query over the scope; more is set if there may be more rows. */
static int
fts_run(struct search *s, const char *match, int phase, size_t k)
{
	size_t	i;
	int	rows;

	if (s->whole || s->na > PER_BLOB_MAX) {
		if (!s->whole && scope_table(s) == -1)
			return -1;
		if ((rows = fts_query(s, match, phase, 1, 0, k)) == -1)
			return -1;
		if ((size_t)rows >= k)
			s->more = 1;
		return 0;
	}
	for (i = 0; i < s->na; i++) {
		s->qart = (ssize_t)i;
		rows = fts_query(s, match, phase,
		    ofl_index_rowid(s->a[i].blob, 0),
		    ofl_index_rowid(s->a[i].blob + 1, 0) - 1, k);
		s->qart = -1;
		if (rows == -1)
			return -1;
		if ((size_t)rows >= k)
			s->more = 1;
	}
	return 0;
}

/* Best first: all terms before some, then by score, then position. */
static int
hit_cmp(const void *x, const void *y)
{
	const struct hit	*a = x, *b = y;

	if (a->phase != b->phase)
		return a->phase < b->phase ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	if (a->art != b->art)
		return a->art < b->art ? -1 : 1;
	return a->line_start < b->line_start ? -1 :
	    a->line_start > b->line_start;
}

static int
hit_pos_cmp(const void *x, const void *y)
{
	const struct hit	*a = x, *b = y;
	int			 c;

	if (a->art != b->art)
		return a->art < b->art ? -1 : 1;
	if ((a->member == NULL) != (b->member == NULL))
		return a->member == NULL ? -1 : 1;
	if (a->member != NULL && (c = strcmp(a->member, b->member)) != 0)
		return c;
	if (a->line_start != b->line_start)
		return a->line_start < b->line_start ? -1 : 1;
	return 0;
}

/* Merge hits of one artifact that overlap or touch, then rank them. */
static void
merge_hits(struct search *s)
{
	struct hit	*a, *b;
	size_t		 i, j;

	if (s->nh == 0)
		return;
	qsort(s->h, s->nh, sizeof *s->h, hit_pos_cmp);
	for (i = 0, j = 1; j < s->nh; j++) {
		a = &s->h[i];
		b = &s->h[j];
		if (a->art == b->art && b->line_start <= a->line_end + 1 &&
		    b->line_end - a->line_start < MERGE_LINES_MAX &&
		    ((a->member == NULL && b->member == NULL &&
		    b->byte_start <= a->byte_end) ||
		    (a->member != NULL && b->member != NULL &&
		    a->seq == b->seq && a->text_line == b->text_line &&
		    strcmp(a->member, b->member) == 0))) {
			if (b->line_end > a->line_end) {
				a->line_end = b->line_end;
				a->byte_end = b->byte_end;
			}
			if (b->phase < a->phase ||
			    (b->phase == a->phase && b->score > a->score)) {
				a->phase = b->phase;
				a->score = b->score;
			}
			if (b->order < a->order)
				a->order = b->order;
			if (a->title == NULL && b->title != NULL) {
				a->title = b->title;
				b->title = NULL;
			}
			hit_free(b);
			continue;
		}
		s->h[++i] = *b;
	}
	s->nh = i + 1;
	qsort(s->h, s->nh, sizeof *s->h, hit_cmp);
}

/* Substring fallback. */

static int
rechunk_cb(const struct ofl_chunk *c, void *arg)
{
	struct rechunk	*rc = arg;
	int64_t		 seq = rc->seq++;

	if (rc->want >= 0) {
		if (seq < rc->want)
			return 0;
		ofl_buf_add(rc->out, c->text, c->len > SNIP_READ_MAX ?
		    SNIP_READ_MAX : c->len);
		rc->found = 1;
		return 1;
	}
	if (c->len == 0)
		return 0;
	if (scan_text(rc->s, rc->art, c->text, c->len, c->line_start, 0,
	    c->member, seq) == -1)
		return 1;
	return rc->s->nh >= SCAN_LINES_MAX;
}

/* Lowercase ASCII search of needle (lowercase) in hay. */
static const char *
find_ci(const char *hay, size_t n, const char *needle, size_t k)
{
	size_t	i, j;
	int	first;

	if (k == 0 || k > n)
		return NULL;
	first = needle[0];
	for (i = 0; i + k <= n; i++) {
		if (tolower((unsigned char)hay[i]) != first)
			continue;
		for (j = 1; j < k; j++)
			if (tolower((unsigned char)hay[i + j]) != needle[j])
				break;
		if (j == k)
			return hay + i;
	}
	return NULL;
}

/*
 * Find the query terms in text (the bytes from offset off, line lineno
 * on); each line holding one becomes a hit.
 */
static int
scan_text(struct search *s, size_t art, const char *text, size_t len,
    uint64_t lineno, uint64_t off, const char *member, int64_t seq)
{
	const char	*p = text, *end = text + len, *nl;
	struct hit	*h;
	uint64_t	 first = lineno;
	size_t		 i;
	int		 found;

	for (; p < end; p = nl + 1, lineno++) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		found = 0;
		for (i = 0; i < s->ntg; i++)
			if (find_ci(p, (size_t)(nl - p), s->tg[i].s,
			    s->tg[i].n) != NULL)
				found++;
		if (found == 0 || !in_ranges(&s->a[art], lineno))
			continue;
		if (s->nh >= SCAN_LINES_MAX) {
			s->more = 1;
			return 0;
		}
		h = hit_new(s);
		h->art = art;
		h->seq = seq;
		h->phase = PHASE_SUBSTR;
		h->score = (double)found;
		h->order = s->nh;
		if (member != NULL)
			h->member = ofl_xstrdup(member);
		h->text_line = first;
		h->line_start = h->line_end = lineno;
		h->byte_start = off + (uint64_t)(p - text);
		h->byte_end = off + (uint64_t)(nl - text) +
		    (nl < end ? 1 : 0);
	}
	return 0;
}

static int
substring_scan(struct search *s, size_t art)
{
	struct ofl_reader	*r;
	struct rechunk		 rc;
	struct ofl_buf		 b;
	uint64_t		 off = 0, lineno = 1;
	size_t			 keep, i;
	ssize_t			 n;
	int			 ret = -1;

	if ((r = art_reader(s, art)) == NULL)
		return -1;
	if (s->a[art].kind == OFL_KIND_ARCHIVE ||
	    s->a[art].kind == OFL_KIND_COMPRESSED) {
		memset(&rc, 0, sizeof rc);
		rc.want = -1;
		rc.s = s;
		rc.art = art;
		if (ofl_reader_seek(r, 0) == -1 ||
		    ofl_chunk_artifact(r, s->a[art].kind, rechunk_cb, &rc) < 0)
			return -1;
		return 0;
	}
	/* Whole lines at a time, 1 MiB or so. */
	ofl_buf_init(&b);
	if (ofl_reader_seek(r, 0) == -1)
		goto out;
	for (;;) {
		if (b.cap < b.len + SNIP_READ_MAX + 1) {
			b.cap = b.len + SNIP_READ_MAX + 1;
			b.data = ofl_xrealloc(b.data, b.cap);
		}
		n = ofl_reader_read(r, b.data + b.len, SNIP_READ_MAX);
		if (n == -1)
			goto out;
		b.len += (size_t)n;
		if (n == 0) {
			if (b.len > 0 && scan_text(s, art, b.data, b.len,
			    lineno, off, NULL, -1) == -1)
				goto out;
			break;
		}
		for (keep = b.len; keep > 0 && b.data[keep - 1] != '\n'; keep--)
			;
		if (keep == 0 && b.len < 16 * SNIP_READ_MAX)
			continue;	/* a long line: read more of it */
		if (keep == 0)
			keep = b.len;
		if (scan_text(s, art, b.data, keep, lineno, off, NULL, -1) ==
		    -1)
			goto out;
		for (i = 0; i < keep; i++)
			if (b.data[i] == '\n')
				lineno++;
		off += keep;
		memmove(b.data, b.data + keep, b.len - keep);
		b.len -= keep;
		if (s->nh >= SCAN_LINES_MAX)
			break;
	}
	ret = 0;
out:
	ofl_buf_free(&b);
	return ret;
}

/* Titles of substring hits: the chunk that holds the line. */
static void
substring_titles(struct search *s, size_t upto)
{
	sqlite3_stmt	*q;
	struct hit	*h;
	size_t		 i;

	if (sqlite3_prepare_v2(s->db, "SELECT id, title FROM ix_chunk WHERE"
	    " id BETWEEN ?1 AND ?2 AND line_start <= ?3 AND line_end >= ?3"
	    " ORDER BY id LIMIT 1", -1, &q, NULL) != SQLITE_OK)
		return;
	for (i = 0; i < s->nh && i < upto; i++) {
		h = &s->h[i];
		if (h->title != NULL || (h->member != NULL && h->seq < 0))
			continue;
		if (h->member != NULL) {
			/* The very chunk, found by its number. */
			sqlite3_bind_int64(q, 1, ofl_index_rowid(
			    s->a[h->art].blob, h->seq));
			sqlite3_bind_int64(q, 2, ofl_index_rowid(
			    s->a[h->art].blob, h->seq));
		} else {
			sqlite3_bind_int64(q, 1, ofl_index_rowid(
			    s->a[h->art].blob, 0));
			sqlite3_bind_int64(q, 2, ofl_index_rowid(
			    s->a[h->art].blob + 1, 0) - 1);
		}
		sqlite3_bind_int64(q, 3, (int64_t)h->line_start);
		if (sqlite3_step(q) == SQLITE_ROW &&
		    sqlite3_column_type(q, 1) != SQLITE_NULL)
			h->title = ofl_xstrdup((const char *)
			    sqlite3_column_text(q, 1));
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
}

/* Spelling fallback. */

/* Levenshtein distance, or max + 1 once it is sure to exceed max. */
static int
edit_distance(const char *a, size_t n, const char *b, size_t m, int max)
{
	int	 row[64], prev, cur, best, v;
	size_t	 i, j;

	if (n >= 64 || m >= 64)
		return max + 1;
	if ((n > m ? n - m : m - n) > (size_t)max)
		return max + 1;
	for (j = 0; j <= m; j++)
		row[j] = (int)j;
	for (i = 1; i <= n; i++) {
		prev = row[0];
		row[0] = (int)i;
		best = row[0];
		for (j = 1; j <= m; j++) {
			cur = row[j];
			v = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			prev = cur;
			if (v < best)
				best = v;
		}
		if (best > max)
			return max + 1;
	}
	return row[m];
}

/*
 * Replace each single-word term the index does not know by the closest
 * word it does know.  Returns the number of terms changed.
 */
static int
spell_fix(struct search *s)
{
	sqlite3_stmt	*has = NULL, *near = NULL;
	struct term	*t;
	char		 tok[64], lo[8], hi[8];
	size_t		 i, k;
	int		 changed = 0, max, d, bestd;
	int64_t		 df, bestdf;
	const char	*w;

	if (sqlite3_exec(s->db, "CREATE VIRTUAL TABLE IF NOT EXISTS"
	    " temp.ix_vocab USING fts5vocab(main, 'ix_fts', 'row')", NULL,
	    NULL, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_prepare_v2(s->db, "SELECT doc FROM temp.ix_vocab WHERE"
	    " term = ?1", -1, &has, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "SELECT term, doc FROM temp.ix_vocab"
	    " WHERE term >= ?1 AND term < ?2", -1, &near, NULL) != SQLITE_OK)
		goto out;
	for (i = 0; i < s->nt; i++) {
		t = &s->t[i];
		if (t->ntok != 1 || t->phrase || t->prefix || t->stop)
			continue;
		/* The word as the index has it (stemmed, lowercased). */
		{
			struct target_ctx	c;
			size_t			before = s->ntg;

			c.s = s;
			c.prefix = 0;
			c.term = (int)i;
			(void)ofl_tok_run(s->tk, 1, t->text, t->len, target_cb,
			    &c);
			if (s->ntg == before)
				continue;
			snprintf(tok, sizeof tok, "%s", s->tg[s->ntg - 1].s);
			/* Drop it again: targets are made later. */
			while (s->ntg > before) {
				free(s->tg[s->ntg - 1].s);
				s->ntg--;
			}
		}
		k = strlen(tok);
		if (k < 3 || strspn(tok, "abcdefghijklmnopqrstuvwxyz") != k)
			continue;
		sqlite3_bind_text(has, 1, tok, -1, SQLITE_STATIC);
		df = sqlite3_step(has) == SQLITE_ROW ?
		    sqlite3_column_int64(has, 0) : 0;
		sqlite3_reset(has);
		if (df > 0)
			continue;
		max = k >= 5 ? 2 : 1;
		snprintf(lo, sizeof lo, "%c", tok[0]);
		snprintf(hi, sizeof hi, "%c", tok[0] + 1);
		sqlite3_bind_text(near, 1, lo, -1, SQLITE_STATIC);
		sqlite3_bind_text(near, 2, hi, -1, SQLITE_STATIC);
		bestd = max + 1;
		bestdf = 0;
		t->spell = NULL;
		while (sqlite3_step(near) == SQLITE_ROW) {
			w = (const char *)sqlite3_column_text(near, 0);
			if (w == NULL)
				continue;
			d = edit_distance(tok, k, w, strlen(w), max);
			if (d > max)
				continue;
			df = sqlite3_column_int64(near, 1);
			if (d < bestd || (d == bestd && df > bestdf)) {
				bestd = d;
				bestdf = df;
				free(t->spell);
				t->spell = ofl_xstrdup(w);
			}
		}
		sqlite3_reset(near);
		if (t->spell != NULL)
			changed++;
	}
out:
	sqlite3_finalize(has);
	sqlite3_finalize(near);
	return changed;
}

/* Marking matches in text. */

static int
mark_cmp(const void *x, const void *y)
{
	const struct mark	*a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end > b->end ? -1 : a->end < b->end;
}

static void
mark_push(struct search *s, size_t start, size_t end, int target)
{
	if (s->nm == s->capm) {
		s->capm = s->capm == 0 ? 256 : s->capm * 2;
		s->m = ofl_xrealloc(s->m, s->capm * sizeof *s->m);
	}
	s->m[s->nm].start = start;
	s->m[s->nm].end = end;
	s->m[s->nm].target = target;
	s->nm++;
}

static int
mark_cb(void *arg, int flags, const char *tok, int n, int start, int end)
{
	struct search	*s = arg;
	struct target	*g;
	size_t		 i;
	int		 exact = (flags & FTS5_TOKEN_COLOCATED) != 0;

	for (i = 0; i < s->ntg; i++) {
		g = &s->tg[i];
		if (g->exact != exact)
			continue;
		if (g->n == (size_t)n ? memcmp(g->s, tok, g->n) == 0 :
		    (g->prefix && g->n < (size_t)n &&
		    memcmp(g->s, tok, g->n) == 0)) {
			mark_push(s, (size_t)start, (size_t)end, (int)i);
			if (g->surface == NULL && end - start < 64) {
				g->surface = ofl_xmalloc((size_t)(end - start) +
				    1);
				memcpy(g->surface, s->mtext + start,
				    (size_t)(end - start));
				g->surface[end - start] = '\0';
			}
			break;
		}
	}
	return SQLITE_OK;
}

static void
mark_text(struct search *s, const char *text, size_t len)
{
	const char	*p, *q;
	size_t		 i;

	s->nm = 0;
	s->mtext = text;
	if (s->substr) {
		for (i = 0; i < s->ntg; i++) {
			p = text;
			while ((q = find_ci(p, (size_t)(text + len - p),
			    s->tg[i].s, s->tg[i].n)) != NULL) {
				mark_push(s, (size_t)(q - text),
				    (size_t)(q - text) + s->tg[i].n, (int)i);
				p = q + s->tg[i].n;
			}
		}
	} else
		(void)ofl_tok_run(s->tk, 0, text, len, mark_cb, s);
	if (s->nm > 0)
		qsort(s->m, s->nm, sizeof *s->m, mark_cmp);
}

/* Snippets. */

/* 1 if an artifact listed in the scope was removed since (by a gc). */
static int
art_gone(struct ofl_store *st, const char *id)
{
	struct ofl_meta	m;

	if (ofl_store_meta(st, id, &m) == -1)
		return 1;
	ofl_meta_free(&m);
	return 0;
}

static struct ofl_reader *
art_reader(struct search *s, size_t art)
{
	if (s->a[art].r == NULL)
		s->a[art].r = ofl_reader_open(s->st, s->a[art].id);
	return s->a[art].r;
}

/*
 * A hit whose text cannot be read: the artifact was removed since the
 * query (gc), which is no error, or its content is damaged or missing,
 * which is, once the rest is printed.
 */
static void
note_readerr(struct search *s, struct hit *h)
{
	struct ofl_meta	m;
	char		msg[512];

	snprintf(msg, sizeof msg, "%s", ofl_errmsg());
	if (ofl_store_meta(s->st, s->a[h->art].id, &m) == -1)
		return;
	ofl_meta_free(&m);
	if (s->readerr++ == 0)
		snprintf(s->readmsg, sizeof s->readmsg, "%s", msg);
}

/* The text of a hit into b; *cut is set if not all of it was read. */
static int
hit_text(struct search *s, struct hit *h, struct ofl_buf *b, int *cut)
{
	struct ofl_reader	*r;
	struct rechunk		 rc;
	uint64_t		 want;
	ssize_t			 n;

	ofl_buf_reset(b);
	if ((r = art_reader(s, h->art)) == NULL)
		return -1;
	if (h->member != NULL) {
		memset(&rc, 0, sizeof rc);
		rc.want = h->seq;
		rc.out = b;
		if (ofl_reader_seek(r, 0) == -1 || ofl_chunk_artifact(r,
		    s->a[h->art].kind, rechunk_cb, &rc) < 0 || !rc.found)
			return -1;
		if (h->line_start > h->text_line) {
			/* Only the hit's lines of the chunk's text. */
			uint64_t	 skip = h->line_start - h->text_line;
			uint64_t	 keep = h->line_end - h->line_start + 1;
			char		*p = b->data, *e = b->data + b->len;

			while (skip > 0 && p < e && (p = memchr(p, '\n',
			    (size_t)(e - p))) != NULL) {
				p++;
				skip--;
			}
			if (p == NULL || skip > 0)
				p = e;
			e = p;
			while (keep > 0 && e < b->data + b->len) {
				e = memchr(e, '\n', b->len - (size_t)(e - b->data));
				if (e == NULL) {
					e = b->data + b->len;
					break;
				}
				e++;
				keep--;
			}
			memmove(b->data, p, (size_t)(e - p));
			b->len = (size_t)(e - p);
		}
		return 0;
	}
	want = h->byte_end - h->byte_start;
	if (want > SNIP_READ_MAX) {
		want = SNIP_READ_MAX;
		*cut = 1;
	}
	if (ofl_reader_seek(r, h->byte_start) == -1)
		return -1;
	if (b->cap < want + 1) {
		b->cap = (size_t)want + 1;
		b->data = ofl_xrealloc(b->data, b->cap);
	}
	while (b->len < want) {
		n = ofl_reader_read(r, b->data + b->len, (size_t)want - b->len);
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		b->len += (size_t)n;
	}
	return 0;
}

/* Back up to the start of a UTF-8 sequence. */
static size_t
utf8_back(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

/* Split a hit's text into lines and find the marks each holds. */
static size_t
split_lines(struct search *s, const struct hit *h, const struct ofl_buf *text,
    struct line **lp)
{
	struct line	*l = NULL;
	const char	*p, *e, *end;
	size_t		 nl = 0, capl = 0, mk = 0, j;
	uint64_t	 no;

	p = text->data;
	end = text->data + text->len;
	for (no = h->line_start; p != NULL && p < end; no++, p = e + 1) {
		if ((e = memchr(p, '\n', (size_t)(end - p))) == NULL)
			e = end;
		if (nl == capl) {
			capl = capl == 0 ? 64 : capl * 2;
			l = ofl_xrealloc(l, capl * sizeof *l);
		}
		memset(&l[nl], 0, sizeof l[nl]);
		l[nl].s = p;
		l[nl].n = (size_t)(e - p);
		while (l[nl].n > 0 && l[nl].s[l[nl].n - 1] == '\r')
			l[nl].n--;
		l[nl].no = no;
		while (mk < s->nm && s->m[mk].start < (size_t)(p - text->data))
			mk++;
		l[nl].mark0 = mk;
		for (j = mk; j < s->nm && s->m[j].start <
		    (size_t)(e - text->data); j++) {
			l[nl].nmarks++;
			l[nl].mask |= (uint64_t)1 <<
			    (s->tg[s->m[j].target].term & 63);
		}
		nl++;
	}
	*lp = l;
	return nl;
}

/*
 * The part of a line to show in about max bytes: all of it if it fits,
 * else the window that holds the most distinct terms.  Returns the bytes
 * it takes to show, elisions included.
 */
static size_t
line_window(struct search *s, const struct line *l, size_t max, size_t *fromp,
    size_t *top)
{
	size_t		 off = (size_t)(l->s - s->mtext), i, j, from, to;
	size_t		 best_from = 0, cost;
	uint64_t	 mask;
	int		 cover, best = -1;

	if (l->n <= max) {
		*fromp = 0;
		*top = l->n;
	} else {
		for (i = 0; i <= (size_t)l->nmarks && i < 64; i++) {
			if (i == 0)
				from = 0;
			else {
				from = s->m[l->mark0 + i - 1].start - off;
				from = from > 16 ? from - 16 : 0;
			}
			to = from + max;
			mask = 0;
			for (j = 0; j < (size_t)l->nmarks; j++)
				if (s->m[l->mark0 + j].start - off >= from &&
				    s->m[l->mark0 + j].end - off <= to)
					mask |= (uint64_t)1 << (s->tg[s->m[
					    l->mark0 + j].target].term & 63);
			cover = __builtin_popcountll(mask);
			if (cover > best) {
				best = cover;
				best_from = from;
			}
		}
		from = best_from;
		to = from + max;
		if (to > l->n) {
			to = l->n;
			from = to > max ? to - max : 0;
		}
		*fromp = utf8_back(l->s, from);
		*top = to < l->n ? utf8_back(l->s, to) : to;
	}
	cost = *top - *fromp;
	if (*fromp > 0)
		cost += 3;
	if (*top < l->n)
		cost += 3;
	return cost;
}

/*
 * Show the part [from, to) of a line, byte for byte (control characters
 * and bytes that are not UTF-8 as \xNN).  With s->record set, each match
 * shown is recorded as a span of out.
 */
static void
render_line(struct ofl_buf *out, struct search *s, const struct line *l,
    size_t from, size_t to)
{
	const char	*base = l->s;
	size_t		 lineoff = (size_t)(l->s - s->mtext), pos, mk, st, en;
	size_t		 at;

	if (s->rd != NULL) {
		/* A line that holds a secret is shown masked, unmarked. */
		ofl_buf_reset(&s->rtmp);
		ofl_redact_line(s->rd, base + from, to - from, &s->rtmp);
		if (s->rtmp.len != to - from ||
		    memcmp(s->rtmp.data, base + from, to - from) != 0) {
			if (from > 0)
				ofl_buf_adds(out, "...");
			ofl_render_safe(out, (const unsigned char *)
			    s->rtmp.data, s->rtmp.len, SIZE_MAX);
			if (to < l->n)
				ofl_buf_adds(out, "...");
			return;
		}
	}
	if (from > 0)
		ofl_buf_adds(out, "...");
	pos = from;
	for (mk = l->mark0; s->record && mk < l->mark0 + (size_t)l->nmarks;
	    mk++) {
		st = s->m[mk].start - lineoff;
		en = s->m[mk].end - lineoff;
		if (en <= pos)
			continue;	/* inside a match already shown */
		if (st < pos)
			st = pos;
		if (st >= to)
			break;
		/* Matches that overlap are shown as one. */
		while (mk + 1 < l->mark0 + (size_t)l->nmarks &&
		    s->m[mk + 1].start - lineoff < en) {
			mk++;
			if (s->m[mk].end - lineoff > en)
				en = s->m[mk].end - lineoff;
		}
		if (en > to)
			en = to;
		ofl_render_safe(out, (const unsigned char *)base + pos,
		    st - pos, SIZE_MAX);
		at = out->len;
		ofl_render_safe(out, (const unsigned char *)base + st,
		    en - st, SIZE_MAX);
		span_add(s, at, out->len - at, COLOR_MATCH);
		pos = en;
	}
	if (pos < to)
		ofl_render_safe(out, (const unsigned char *)base + pos,
		    to - pos, SIZE_MAX);
	if (to < l->n)
		ofl_buf_adds(out, "...");
}

/* Spans of the output. */

static void
span_add(struct search *s, size_t off, size_t len, const char *color)
{
	if (!s->record || len == 0)
		return;
	if (s->nsp == s->capsp) {
		s->capsp = s->capsp == 0 ? 64 : s->capsp * 2;
		s->sp = ofl_xrealloc(s->sp, s->capsp * sizeof *s->sp);
	}
	s->sp[s->nsp].off = off;
	s->sp[s->nsp].len = len;
	s->sp[s->nsp].color = color;
	s->nsp++;
}

/* The output was cut back to len: forget the spans past it. */
static void
span_cut(struct search *s, size_t len)
{
	while (s->nsp > 0 && s->sp[s->nsp - 1].off + s->sp[s->nsp - 1].len >
	    len)
		s->nsp--;
}

/* Color the spans of out (from start on), in order. */
static void
colorize(struct search *s, struct ofl_buf *out, size_t start)
{
	struct ofl_buf	c;
	size_t		i, pos = start;

	if (s->nsp == 0)
		return;
	ofl_buf_init(&c);
	for (i = 0; i < s->nsp; i++) {
		if (s->sp[i].off < pos || s->sp[i].off + s->sp[i].len >
		    out->len)
			continue;
		ofl_buf_add(&c, out->data + pos, s->sp[i].off - pos);
		ofl_buf_adds(&c, s->sp[i].color);
		ofl_buf_add(&c, out->data + s->sp[i].off, s->sp[i].len);
		ofl_buf_adds(&c, COLOR_END);
		pos = s->sp[i].off + s->sp[i].len;
	}
	ofl_buf_add(&c, out->data + pos, out->len - pos);
	out->len = start;
	ofl_buf_add(out, c.data, c.len);
	ofl_buf_free(&c);
	s->nsp = 0;
}

/* Lines worth showing first: most terms, then most matches, then first. */
static int
line_better(const struct line *a, const struct line *b)
{
	int	na = __builtin_popcountll(a->mask);
	int	nb = __builtin_popcountll(b->mask);

	if (na != nb)
		return na > nb;
	if (a->nmarks != b->nmarks)
		return a->nmarks > b->nmarks;
	return a->no < b->no;
}

static size_t
digits(uint64_t n)
{
	size_t	d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/*
 * Choose the lines of a hit to show in about avail bytes: the best line,
 * other lines with matches, then the lines around the best one.  Sets
 * each chosen line's window; returns 1 if the hit is shown in part.
 */
static int
select_lines(struct search *s, struct line *l, size_t nl, size_t avail,
    size_t prefix_extra)
{
	struct ofl_buf	 scratch;
	size_t		 order[16], norder = 0, i, j, b, max, cost, prefix;
	size_t		 left = avail, from, to, shown = 0;
	struct line	*best, *c;
	int		 cut = 0;

	ofl_buf_init(&scratch);
	best = &l[0];
	for (i = 1; i < nl; i++)
		if (line_better(&l[i], best))
			best = &l[i];
	b = (size_t)(best - l);
	order[norder++] = b;
	best->chosen = 2;
	for (j = 0; j < 4; j++) {
		c = NULL;
		for (i = 0; i < nl; i++)
			if (l[i].nmarks > 0 && l[i].chosen == 0 &&
			    (c == NULL || line_better(&l[i], c)))
				c = &l[i];
		if (c == NULL)
			break;
		c->chosen = 2;
		order[norder++] = (size_t)(c - l);
	}
	for (j = 1; j <= 2 && norder < 16; j++) {
		if (b + j < nl && l[b + j].chosen == 0)
			order[norder++] = b + j;
		if (b >= j && norder < 16 && l[b - j].chosen == 0)
			order[norder++] = b - j;
	}
	for (i = 0; i < nl; i++)
		l[i].chosen = 0;
	for (j = 0; j < norder; j++) {
		c = &l[order[j]];
		prefix = digits(c->no) + prefix_extra;
		if (j > 0 && left < prefix + 24)
			break;
		max = left > prefix ? left - prefix : 0;
		if (max > LINE_SHOW_MAX)
			max = LINE_SHOW_MAX;
		if (j == 0 && max < 40)
			max = 40;
		if (j > 0 && max < (c->n < 60 ? c->n : 60))
			continue;
		(void)line_window(s, c, max, &from, &to);
		/* What it really takes, \xNN escapes included. */
		ofl_buf_reset(&scratch);
		render_line(&scratch, s, c, from, to);
		cost = scratch.len + 1;
		if (j > 0 && cost + prefix > left)
			continue;
		c->chosen = 1;
		c->from = from;
		c->to = to;
		if (from > 0 || to < c->n)
			cut = 1;
		left = left > cost + prefix ? left - cost - prefix : 0;
		shown++;
	}
	if (shown < nl)
		cut = 1;
	ofl_buf_free(&scratch);
	return cut;
}

static void
add_title(struct ofl_buf *out, struct search *s, const char *title)
{
	struct ofl_buf	t, r;
	size_t		i;

	ofl_buf_init(&t);
	ofl_buf_init(&r);
	if (s->rd != NULL) {
		ofl_redact_line(s->rd, title, strlen(title), &r);
		title = ofl_buf_str(&r);
	}
	ofl_render_safe(&t, (const unsigned char *)title, strlen(title),
	    TITLE_MAX);
	ofl_buf_free(&r);
	for (i = 0; i < t.len; i++)
		if (t.data[i] == '\t' || t.data[i] == '\n')
			t.data[i] = ' ';
	ofl_buf_add(out, t.data, t.len);
	ofl_buf_free(&t);
}

static void
add_ref(struct ofl_buf *out, const struct search *s, const struct hit *h)
{
	ofl_buf_addf(out, "ofl:%s:%llu", s->a[h->art].id,
	    (unsigned long long)h->line_start);
	if (h->line_end > h->line_start)
		ofl_buf_addf(out, "-%llu", (unsigned long long)h->line_end);
}

/*
 * Render one hit in about avail bytes into out; *used gets the bytes
 * written, *cut whether the hit was shown only in part.
 */
static void
render_hit(struct search *s, struct hit *h, size_t avail, struct ofl_buf *out,
    size_t *used, int *cut)
{
	struct ofl_buf	 text;
	struct line	*l = NULL;
	size_t		 nl, i, start = out->len, head, at;
	int		 rcut = 0, record;

	*cut = 0;
	*used = 0;
	ofl_buf_init(&text);
	if (hit_text(s, h, &text, &rcut) == -1) {
		note_readerr(s, h);
		ofl_buf_free(&text);
		return;
	}
	mark_text(s, text.data != NULL ? text.data : "", text.len);
	nl = split_lines(s, h, &text, &l);

	add_ref(out, s, h);
	span_add(s, start, out->len - start, COLOR_REF);
	if (h->member != NULL) {
		ofl_buf_adds(out, "  [");
		add_title(out, s, h->member);
		ofl_buf_addc(out, ']');
	}
	if (h->title != NULL && *h->title != '\0') {
		ofl_buf_adds(out, "  ");
		add_title(out, s, h->title);
	}
	if (h->phase == PHASE_SUBSTR)
		ofl_buf_adds(out, "  (substring)\n");
	else
		ofl_buf_addf(out, "  (%.1f)\n", h->score);
	head = out->len - start;

	record = s->record;
	s->record = 0;
	if (nl > 0 && select_lines(s, l, nl, avail > head ? avail - head : 0,
	    5))
		*cut = 1;
	s->record = record;
	for (i = 0; i < nl; i++) {
		if (!l[i].chosen)
			continue;
		ofl_buf_adds(out, "  ");
		at = out->len;
		ofl_buf_addf(out, "%llu", (unsigned long long)l[i].no);
		span_add(s, at, out->len - at, COLOR_LINENO);
		ofl_buf_addf(out, "%c ", l[i].nmarks > 0 ? ':' : '-');
		render_line(out, s, &l[i], l[i].from, l[i].to);
		ofl_buf_addc(out, '\n');
	}
	if (rcut || h->line_end > h->line_start + nl - 1 || nl == 0)
		*cut = 1;
	*used = out->len - start;
	free(l);
	ofl_buf_free(&text);
}

/* Output. */

static void
add_note(struct ofl_buf *out, struct search *s)
{
	struct ofl_buf	q;
	size_t		i, j, k;
	int		lower;

	ofl_buf_init(&q);
	ofl_buf_adds(out, "no match for \"");
	ofl_render_safe(out, (const unsigned char *)s->o->query,
	    strlen(s->o->query), 80);
	ofl_buf_adds(out, "\"; showing matches for \"");
	if (s->fallback == FALLBACK_SUBSTR) {
		for (i = 0, k = 0; i < s->ntg; i++) {
			if (k++ > 0)
				ofl_buf_adds(&q, "\" or \"");
			ofl_buf_adds(&q, s->t[s->tg[i].term].text);
		}
	} else {
		for (i = 0, k = 0; i < s->nt; i++) {
			const char *w = s->t[i].text;

			if ((s->t[i].ntok == 0 && s->t[i].spell == NULL) ||
			    (s->t[i].stop && s->skipstop))
				continue;
			if (s->t[i].spell != NULL) {
				w = s->t[i].spell;
				for (j = 0; j < s->ntg; j++)
					if (s->tg[j].term == (int)i &&
					    s->tg[j].surface != NULL)
						w = s->tg[j].surface;
			}
			if (k++ > 0)
				ofl_buf_addc(&q, ' ');
			lower = 1;
			for (j = 0; j < s->t[i].len; j++)
				if (isupper((unsigned char)s->t[i].text[j]))
					lower = 0;
			/* The artifact's word, in the user's case. */
			for (j = 0; w[j] != '\0'; j++)
				ofl_buf_addc(&q, lower ?
				    tolower((unsigned char)w[j]) : w[j]);
		}
	}
	ofl_render_safe(out, (const unsigned char *)q.data, q.len, 120);
	ofl_buf_adds(out, "\"");
	if (s->fallback == FALLBACK_SUBSTR)
		ofl_buf_adds(out, " inside words");
	ofl_buf_addc(out, '\n');
	ofl_buf_free(&q);
}

static void
add_json_str_safe(struct ofl_buf *out, const char *p, size_t n)
{
	struct ofl_buf	t;

	ofl_buf_init(&t);
	ofl_render_safe(&t, (const unsigned char *)p, n, SIZE_MAX);
	ofl_buf_add_json_str(out, t.data != NULL ? t.data : "", t.len);
	ofl_buf_free(&t);
}

static void
output_json_hit(struct ofl_buf *out, struct search *s, struct hit *h,
    size_t avail)
{
	struct ofl_buf	 text, ref, snip, mj;
	struct line	*l = NULL;
	size_t		 nl, i, j, k = 0, at;
	int		 rcut = 0, cut = 0;
	const char	*match;

	ofl_buf_init(&text);
	ofl_buf_init(&ref);
	ofl_buf_init(&snip);
	ofl_buf_init(&mj);
	if (hit_text(s, h, &text, &rcut) == -1) {
		note_readerr(s, h);
		ofl_buf_free(&text);
		return;
	}
	mark_text(s, text.data != NULL ? text.data : "", text.len);
	nl = split_lines(s, h, &text, &l);
	if (nl > 0)
		cut = select_lines(s, l, nl, avail, 1);
	add_ref(&ref, s, h);
	ofl_buf_adds(out, "{\"id\":");
	ofl_buf_add_json_str(out, s->a[h->art].id, strlen(s->a[h->art].id));
	ofl_buf_adds(out, ",\"ref\":");
	ofl_buf_add_json_str(out, ref.data, ref.len);
	ofl_buf_addf(out, ",\"lines\":[%llu,%llu],\"title\":",
	    (unsigned long long)h->line_start, (unsigned long long)h->line_end);
	if (h->title != NULL && s->rd != NULL) {
		struct ofl_buf	r;

		ofl_buf_init(&r);
		ofl_redact_line(s->rd, h->title, strlen(h->title), &r);
		add_json_str_safe(out, r.data != NULL ? r.data : "", r.len);
		ofl_buf_free(&r);
	} else if (h->title != NULL)
		add_json_str_safe(out, h->title, strlen(h->title));
	else
		ofl_buf_adds(out, "null");
	if (h->phase == PHASE_SUBSTR)
		ofl_buf_adds(out, ",\"rank\":null");
	else
		ofl_buf_addf(out, ",\"rank\":%.3f", h->score);
	/* The matches of each line: byte offsets in the line as shown. */
	s->record = 1;
	for (i = 0; i < nl; i++) {
		if (!l[i].chosen)
			continue;
		if (k++ > 0) {
			ofl_buf_addc(&snip, '\n');
			ofl_buf_addc(&mj, ',');
		}
		at = snip.len;
		s->nsp = 0;
		render_line(&snip, s, &l[i], l[i].from, l[i].to);
		ofl_buf_addc(&mj, '[');
		for (j = 0; j < s->nsp; j++)
			ofl_buf_addf(&mj, "%s[%zu,%zu]", j > 0 ? "," : "",
			    s->sp[j].off - at, s->sp[j].off - at +
			    s->sp[j].len);
		ofl_buf_addc(&mj, ']');
	}
	s->record = 0;
	s->nsp = 0;
	ofl_buf_adds(out, ",\"snippet\":");
	ofl_buf_add_json_str(out, snip.data != NULL ? snip.data : "", snip.len);
	ofl_buf_adds(out, ",\"snippet_lines\":[");
	for (i = 0, k = 0; i < nl; i++)
		if (l[i].chosen)
			ofl_buf_addf(out, "%s%llu", k++ > 0 ? "," : "",
			    (unsigned long long)l[i].no);
	ofl_buf_adds(out, "],\"matches\":[");
	ofl_buf_add(out, mj.data, mj.len);
	ofl_buf_adds(out, "],\"member\":");
	if (h->member != NULL)
		add_json_str_safe(out, h->member, strlen(h->member));
	else
		ofl_buf_adds(out, "null");
	if (h->phase == PHASE_SUBSTR)
		match = "substring";
	else if (s->fallback == FALLBACK_SPELL)
		match = "spelling";
	else
		match = h->phase == PHASE_ALL ? "all" : "any";
	if (rcut || nl == 0 || h->line_end > h->line_start + nl - 1)
		cut = 1;
	ofl_buf_addf(out, ",\"match\":\"%s\",\"cut\":%s}\n", match,
	    cut ? "true" : "false");
	free(l);
	ofl_buf_free(&text);
	ofl_buf_free(&ref);
	ofl_buf_free(&snip);
	ofl_buf_free(&mj);
}

/* The command line that asks for more. */
static void
add_more_search(struct ofl_buf *out, struct search *s, const char *const *ids,
    size_t nids, int limit, size_t budget)
{
	const struct ofl_filter	*f = &s->o->filter;
	char			*q;
	size_t			 i;

	ofl_buf_adds(out, "more: ofl-search");
	if (s->o->fts)
		ofl_buf_adds(out, " --fts");
	if (nids == 0) {
		ofl_buf_adds(out, " -a");
		if (f->label != NULL) {
			q = ofl_shquote(f->label);
			ofl_buf_addf(out, " -l %s", q);
			free(q);
		}
		if (f->session != NULL) {
			q = ofl_shquote(f->session);
			ofl_buf_addf(out, " -S %s", q);
			free(q);
		}
		if (f->kind >= 0)
			ofl_buf_addf(out, " -k %s", ofl_kind_name(f->kind));
	}
	for (i = 0; i < nids && i < 8; i++)
		ofl_buf_addf(out, " %s", ids[i]);
	q = ofl_shquote(s->o->query);
	ofl_buf_addf(out, " %s -n %d", q, limit * 2);
	free(q);
	if (budget != OFL_SEARCH_BUDGET || limit * 2 > OFL_SEARCH_LIMIT)
		ofl_buf_addf(out, " -b %zu", budget * 2);
	ofl_buf_addc(out, '\n');
}

static void
output(struct search *s, struct ofl_buf *out, const char *const *ids,
    size_t nids)
{
	struct ofl_buf	 more, note;
	size_t		 budget, limit, nshow, i, per, carry = 0, used, hits;
	size_t		 start = out->len, reserve, ncut = 0, extra = 0;
	int		 cut, cuts[2];

	budget = s->o->budget > 0 ? s->o->budget : OFL_SEARCH_BUDGET;
	limit = s->o->limit > 0 ? (size_t)s->o->limit : OFL_SEARCH_LIMIT;
	nshow = s->nh < limit ? s->nh : limit;
	if (s->nh > limit)
		s->more = 1;
	if (s->fallback == FALLBACK_SUBSTR)
		substring_titles(s, nshow);
	if (s->o->quiet) {
		for (i = 0; i < nshow; i++) {
			add_ref(out, s, &s->h[i]);
			ofl_buf_addc(out, '\n');
			s->a[s->h[i].art].hit = 1;
		}
		return;
	}
	if (s->o->json) {
		per = budget / (nshow > 0 ? nshow : 1);
		for (i = 0; i < nshow; i++) {
			output_json_hit(out, s, &s->h[i], per);
			s->a[s->h[i].art].hit = 1;
		}
		return;
	}
	/* Room for the lines that say how to get more. */
	ofl_buf_init(&more);
	ofl_buf_init(&note);
	add_more_search(&more, s, ids, nids, (int)limit, budget);
	if (s->fallback != FALLBACK_NONE) {
		/* Measured now, written once the hits give the words' forms. */
		add_note(&note, s);
		extra = note.len + 16;
	}
	reserve = more.len + 2 * (40 + OFL_ID_MAX) + extra;
	hits = out->len;
	s->record = s->o->color;
	used = out->len - start;
	per = budget > used + reserve ? (budget - used - reserve) / nshow : 0;
	for (i = 0; i < nshow; i++) {
		size_t	avail = per + carry, n, before = out->len;
		size_t	room = budget > reserve + (before - start) ?
			    budget - reserve - (before - start) : 0;

		if (avail > room)
			avail = room;
		if (i > 0 && avail < 80)
			break;
		render_hit(s, &s->h[i], avail, out, &n, &cut);
		if (i > 0 && n > room) {
			/* It does not fit: leave it to the next page. */
			out->len = before;
			span_cut(s, out->len);
			break;
		}
		s->a[s->h[i].art].hit = 1;
		carry = avail > n ? avail - n : 0;
		if (cut && ncut < 2)
			cuts[ncut++] = (int)i;
	}
	if (i < nshow)
		s->more = 1;
	for (i = 0; i < ncut; i++) {
		struct hit	*h = &s->h[cuts[i]];
		size_t		 before = out->len;

		ofl_buf_addf(out, "more: ofl-extract %s", s->a[h->art].id);
		if (h->member != NULL) {
			char	*q = ofl_shquote(h->member);

			ofl_buf_addf(out, " --member %s", q);
			free(q);
		}
		ofl_buf_addf(out, " -n %llu-%llu\n",
		    (unsigned long long)h->line_start,
		    (unsigned long long)h->line_end);
		/* A tiny budget: the hit's header says as much. */
		if (out->len - start + extra + (s->more ? more.len : 0) >
		    budget)
			out->len = before;
	}
	if (s->more)
		ofl_buf_add(out, more.data, more.len);
	if (s->fallback != FALLBACK_NONE) {
		/* The note goes first. */
		ofl_buf_reset(&note);
		add_note(&note, s);
		for (i = 0; i < s->nsp; i++)
			if (s->sp[i].off >= hits)
				s->sp[i].off += note.len;
		ofl_buf_add(&note, out->data + hits, out->len - hits);
		out->len = hits;
		ofl_buf_add(out, note.data, note.len);
	}
	s->record = 0;
	colorize(s, out, start);
	ofl_buf_free(&more);
	ofl_buf_free(&note);
}

void
ofl_search_opts_init(struct ofl_search_opts *o)
{
	memset(o, 0, sizeof *o);
	ofl_filter_init(&o->filter);
}

static int
filter_empty(const struct ofl_filter *f)
{
	return f->label == NULL && f->session == NULL && f->kind < 0 &&
	    f->newer_ms == 0 && f->older_ms == 0;
}

int
ofl_search(struct ofl_store *st, const char *const *ids, size_t nids,
    const struct ofl_search_opts *o, struct ofl_buf *out)
{
	struct search		 s;
	struct scope_ctx	 sc;
	struct ofl_filter	 f;
	size_t			 i, k, limit;
	int			 state, ret = -1, any = 0;

	memset(&s, 0, sizeof s);
	memset(&sc, 0, sizeof sc);
	if (o->query == NULL)
		return 0;
	s.st = st;
	s.db = ofl_store_db(st);
	s.o = o;
	s.qart = -1;
	limit = o->limit > 0 ? (size_t)o->limit : OFL_SEARCH_LIMIT;
	k = limit * 4 + 4;
	if (ofl_index_init(st) == -1 || (s.tk = ofl_tok_new(st)) == NULL)
		goto out;
	if (ofl_redact_wanted())
		s.rd = ofl_redactor_new();

	/* The scope. */
	if (nids > 0) {
		for (i = 0; i < nids; i++)
			if (scope_add(&s, ids[i], 1, o->ranges != NULL ?
			    &o->ranges[i] : NULL) == -1)
				goto out;
	} else {
		f = o->filter;
		f.limit = 0;
		s.whole = filter_empty(&f);
		sc.s = &s;
		if (ofl_store_list(st, &f, scope_cb, &sc) == -1)
			goto out;
		for (i = 0; i < sc.n; i++)
			if (scope_add(&s, sc.ids[i], 0, NULL) == -1)
				goto out;
	}
	if (s.na == 0) {
		ret = 0;
		goto out;
	}
	for (i = 0; i < s.na; i++) {
		if ((state = ofl_index_state(st, s.a[i].blob)) == -1)
			goto out;
		/* Removed by a gc since it was listed: no error. */
		if (state == 0 && ofl_index_artifact(st, s.a[i].id,
		    o->progress, o->progress_arg, NULL) == -1 &&
		    (nids > 0 || !art_gone(st, s.a[i].id)))
			goto out;
	}

	/* All terms, then any, then substrings, then spellings. */
	if (o->fts) {
		make_targets(&s, o->query);
		if (fts_run(&s, o->query, PHASE_ALL, k) == -1)
			goto out;
	} else {
		parse_query(&s, o->query);
		for (i = 0; i < s.nt; i++)
			if (s.t[i].ntok > 0 && !s.t[i].stop)
				s.skipstop = 1;
		for (i = 0; i < s.nt; i++)
			if (s.t[i].ntok > 0 && (!s.t[i].stop || !s.skipstop))
				any++;
		s.fts_and = build_fts(&s, " AND ");
		s.fts_or = build_fts(&s, " OR ");
		if (s.fts_and != NULL &&
		    fts_run(&s, s.fts_and, PHASE_ALL, k) == -1)
			goto out;
		if (any > 1 && s.nh <= limit &&
		    fts_run(&s, s.fts_or, PHASE_ANY, k) == -1)
			goto out;
		if (s.nh == 0) {
			char	*lc;
			size_t	 j;

			s.substr = 1;
			for (i = 0; i < s.nt; i++) {
				lc = ofl_xstrdup(s.t[i].text);
				for (j = 0; lc[j] != '\0'; j++)
					lc[j] = (char)tolower(
					    (unsigned char)lc[j]);
				target_add(&s, lc, strlen(lc), 0, 0, (int)i);
				free(lc);
			}
			for (i = 0; i < s.na && s.ntg > 0; i++)
				if (substring_scan(&s, i) == -1 &&
				    (nids > 0 || !art_gone(st, s.a[i].id)))
					goto out;
			if (s.nh > 0)
				s.fallback = FALLBACK_SUBSTR;
			else {
				for (i = 0; i < s.ntg; i++)
					free(s.tg[i].s);
				s.ntg = 0;
				s.substr = 0;
			}
		}
		if (s.nh == 0 && any > 0 && spell_fix(&s) > 0) {
			free(s.fts_and);
			free(s.fts_or);
			s.fts_and = build_fts(&s, " AND ");
			s.fts_or = build_fts(&s, " OR ");
			if (s.fts_and != NULL &&
			    fts_run(&s, s.fts_and, PHASE_ALL, k) == -1)
				goto out;
			if (any > 1 && s.nh <= limit && s.fts_or != NULL &&
			    fts_run(&s, s.fts_or, PHASE_ANY, k) == -1)
				goto out;
			if (s.nh > 0)
				s.fallback = FALLBACK_SPELL;
		}
		if (!s.substr)
			make_targets(&s, NULL);
	}
	merge_hits(&s);
	if (s.nh == 0) {
		ret = 0;
		goto out;
	}
	output(&s, out, ids, nids);
	for (i = 0; i < s.na; i++)
		if (s.a[i].hit)
			ofl_store_touch(st, s.a[i].id);
	ret = (int)(s.nh < limit ? s.nh : limit);
	if (s.readerr > 0) {
		ofl_seterr(OFL_EXIT_FAIL, "%s", s.readmsg);
		ret = -1;
	}
out:
	for (i = 0; i < sc.n; i++)
		free(sc.ids[i]);
	free(sc.ids);
	search_free(&s);
	return ret;
}

int
ofl_search_intent(struct ofl_store *st, const char *id, const char *intent,
    size_t budget, struct ofl_buf *out)
{
	struct ofl_search_opts	o;
	const char		*ids[1];

	ofl_search_opts_init(&o);
	o.query = intent;
	o.budget = budget;
	ids[0] = id;
	return ofl_search(st, ids, 1, &o, out);
}

/* Listing. */

/* A cell of the listing: safe, on one line, without tabs. */
static void
list_cell(struct ofl_buf *out, const char *s)
{
	struct ofl_redactor	*rd;
	struct ofl_buf		 t, r;
	size_t			 i;

	if (s == NULL || *s == '\0')
		s = "-";
	ofl_buf_init(&t);
	ofl_buf_init(&r);
	if (ofl_redact_wanted() && (rd = ofl_redactor_new()) != NULL) {
		/* A command line can hold a token or a password. */
		ofl_redact(rd, s, strlen(s), &r);
		ofl_redactor_free(rd);
		s = ofl_buf_str(&r);
	}
	ofl_render_safe(&t, (const unsigned char *)s, strlen(s), 200);
	ofl_buf_free(&r);
	for (i = 0; i < t.len; i++)
		if (t.data[i] == '\t' || t.data[i] == '\n')
			t.data[i] = ' ';
	ofl_buf_add(out, t.data, t.len);
	ofl_buf_free(&t);
}

void
ofl_list_line(struct ofl_buf *out, const struct ofl_meta *m, int mode)
{
	char	size[32], age[32];

	if (mode == OFL_LIST_QUIET) {
		ofl_buf_addf(out, "%s\n", m->id);
		return;
	}
	if (mode == OFL_LIST_JSON) {
		ofl_meta_json(out, m);
		return;
	}
	ofl_fmt_size(size, sizeof size, m->bytes);
	ofl_fmt_age(age, sizeof age, m->created);
	ofl_buf_addf(out, "ofl:%s\t%s\t%s\t%llu\t%s\t", m->id,
	    ofl_kind_name(m->kind), size, (unsigned long long)m->lines, age);
	if (m->has_exit)
		ofl_buf_addf(out, "%d\t", m->exit_status);
	else
		ofl_buf_adds(out, "-\t");
	if (m->state != OFL_STATE_COMPLETE)
		ofl_buf_adds(out, "writing\t");
	else if (m->incomplete)
		ofl_buf_adds(out, "incomplete\t");
	else
		ofl_buf_adds(out, "-\t");
	list_cell(out, m->label);
	ofl_buf_addc(out, '\t');
	list_cell(out, m->command);
	ofl_buf_addc(out, '\n');
}

/* Characters on screen: UTF-8 sequences count once. */
static size_t
list_width(const char *s, size_t n)
{
	size_t	i, w = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
	return w;
}

/*
 * Lines of ofl_list_line() (OFL_LIST_TEXT) as a table: the header, then
 * each column as wide as its widest cell, two spaces apart; numbers to
 * the right.  The last column (the command) runs on unpadded.
 */
void
ofl_list_table(struct ofl_buf *out, const char *rows, size_t len)
{
	static const char	*head[OFL_LIST_NCOLS] = { "ID", "KIND", "SIZE",
	    "LINES", "AGE", "EXIT", "STATE", "LABEL", "COMMAND" };
	static const int	 right[OFL_LIST_NCOLS] = { 0, 0, 1, 1, 1, 1,
	    0, 0, 0 };
	size_t			 w[OFL_LIST_NCOLS], cw, c, pass;
	const char		*p, *end = rows + len, *nl, *cell, *tab;

	for (c = 0; c < OFL_LIST_NCOLS; c++)
		w[c] = strlen(head[c]);
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			for (c = 0; c + 1 < OFL_LIST_NCOLS; c++)
				ofl_buf_addf(out, "%s%*s%s  ", right[c] ?
				    "" : head[c], (int)(w[c] -
				    strlen(head[c])), "", right[c] ? head[c] :
				    "");
			ofl_buf_addf(out, "%s\n", head[c]);
		}
		for (p = rows; p < end; p = nl + 1) {
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
				nl = end;
			for (c = 0, cell = p; c < OFL_LIST_NCOLS && cell <= nl;
			    c++, cell = tab + 1) {
				if ((tab = memchr(cell, '\t',
				    (size_t)(nl - cell))) == NULL)
					tab = nl;
				cw = list_width(cell, (size_t)(tab - cell));
				if (pass == 0) {
					if (cw > w[c] && c + 1 < OFL_LIST_NCOLS)
						w[c] = cw;
					continue;
				}
				if (c + 1 == OFL_LIST_NCOLS) {
					ofl_buf_add(out, cell,
					    (size_t)(tab - cell));
					break;
				}
				if (right[c])
					ofl_buf_addf(out, "%*s", (int)(w[c] -
					    cw), "");
				ofl_buf_add(out, cell, (size_t)(tab - cell));
				if (!right[c])
					ofl_buf_addf(out, "%*s", (int)(w[c] -
					    cw), "");
				ofl_buf_adds(out, "  ");
			}
			if (pass == 1)
				ofl_buf_addc(out, '\n');
		}
	}
}

static void
search_free(struct search *s)
{
	size_t	i;

	for (i = 0; i < s->na; i++) {
		ofl_reader_close(s->a[i].r);
		free(s->a[i].rg);
	}
	free(s->a);
	for (i = 0; i < s->nt; i++) {
		free(s->t[i].text);
		free(s->t[i].exact);
		free(s->t[i].spell);
	}
	free(s->t);
	for (i = 0; i < s->ntg; i++) {
		free(s->tg[i].s);
		free(s->tg[i].surface);
	}
	free(s->tg);
	for (i = 0; i < s->nh; i++)
		hit_free(&s->h[i]);
	free(s->h);
	free(s->m);
	free(s->sp);
	free(s->fts_and);
	free(s->fts_or);
	ofl_tok_free(s->tk);
	ofl_redactor_free(s->rd);
	ofl_buf_free(&s->rtmp);
}
