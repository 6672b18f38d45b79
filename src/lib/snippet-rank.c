/*
 * snippet-rank.c: the order of the hits looked at before the first of
 * them are shown, on what their text says beyond the index's score.
 *
 * The index ranks by stems and words: "5.0.0" is the words 5, 0, 0,
 * which every pre-release holds as well, and a manifest's hunk in a
 * diff says a version in fewer words than the code around it.  Once the
 * text of the first hits is read (snippet.c), a hit that holds more of
 * the terms as typed comes first, and a question of versions puts the
 * hunks of manifests first.  Each move keeps the order of the others.
 *
 * Before that, ofl_snippet_rank_named() tells query.c which JSON hits
 * end their path at a key the query names: when every word of a query
 * is in most of an artifact's chunks ("version" and "express" in an
 * npm ls of express), the index's scores tell its chunks apart no more,
 * and the object asked of (.dependencies.express) is the answer, not
 * one under it (.dependencies.express.dependencies.debug).
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "search.h"
#include "banned.h"

static int	 manifest_hit(const struct search *, const struct hit *);
static int	 term_named(const struct search *, const char *, size_t);
static int	 rank_key(const struct search *, const struct hit *, int);

int
ofl_snippet_rank_typed(const struct search *s, const char *text, size_t len)
{
	const char	*p;
	size_t		 k, n;
	int		 c = 0;

	for (k = 0; text != NULL && k < s->nt; k++)
		if (ofl_query_terms_typed(s, k, &p, &n) &&
		    strcspn(p, ".:$/=@#") < n &&
		    ofl_query_terms_literal(text, len, p, n))
			c++;
	return c;
}

/* 1 if a term of the query, not a stop word, is the name p, any case. */
static int
term_named(const struct search *s, const char *p, size_t n)
{
	size_t	k;

	if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
		p++;
		n -= 2;
	}
	for (k = 0; n > 0 && k < s->nt; k++)
		if (!s->t[k].stop && s->t[k].len == n &&
		    strncasecmp(s->t[k].text, p, n) == 0)
			return 1;
	return 0;
}

int
ofl_snippet_rank_json(const struct search *s, const struct hit *h)
{
	int	k = s->a[h->art].kind;

	return h->member == NULL && (k == OFL_KIND_JSON ||
	    k == OFL_KIND_NDJSON);
}

/*
 * A JSON hit's title (fmt-json.c) is its path, then perhaps " | " and
 * the part of it the chunk holds: ".a.b", ".a.\"b-c\" | to_entries[0:12]",
 * ".a.b | {k1, k2}".  The members listed after the path are left out:
 * they are as often an object's fields ("version", "name") as objects.
 */
int
ofl_snippet_rank_named(const struct search *s, const struct hit *h)
{
	const char	*t = h->title, *p, *e, *bar;
	int		 q = 0;

	if (t == NULL || !ofl_snippet_rank_json(s, h))
		return 0;
	if ((bar = strstr(t, " | ")) == NULL)
		bar = t + strlen(t);
	/* The path's last key: after its last '.' outside quotes. */
	for (p = e = t; e < bar; e++) {
		if (*e == '"')
			q = !q;
		else if (*e == '.' && !q)
			p = e + 1;
		else if (*e == '[' && !q)
			break;
	}
	return term_named(s, p, (size_t)(e - p));
}

/* A hunk of a diff in a package manifest (fmt-diff.c). */
static int
manifest_hit(const struct search *s, const struct hit *h)
{
	return h->member == NULL && s->a[h->art].kind == OFL_KIND_DIFF &&
	    h->title != NULL && ofl_fmt_diff_manifest(h->title);
}

/*
 * Where a hit goes among the first: asked of versions, a manifest's
 * before all others, then by the terms it holds as typed.
 */
static int
rank_key(const struct search *s, const struct hit *h, int versions)
{
	return (versions && manifest_hit(s, h) ? (int)s->nt + 1 : 0) +
	    h->typed;
}

void
ofl_snippet_rank(struct search *s, size_t k)
{
	struct hit	tmp;
	size_t		i, j;
	int		versions = ofl_query_terms_versions(s), key;

	if (k > s->nh)
		k = s->nh;
	/* A stable sort: hits of one key keep the index's order. */
	for (i = 1; i < k; i++) {
		tmp = s->h[i];
		key = rank_key(s, &tmp, versions);
		for (j = i; j > 0 && rank_key(s, &s->h[j - 1], versions) < key;
		    j--)
			s->h[j] = s->h[j - 1];
		s->h[j] = tmp;
	}
}
