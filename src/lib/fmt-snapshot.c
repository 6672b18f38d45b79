/*
 * fmt-snapshot.c: browser snapshots, the accessibility tree a browser
 * driver hands an agent: Playwright MCP's YAML tree ("- link "Next"
 * [ref=e16]", nested by indent, "/url:" children, with or without its
 * "### Page" and "### Snapshot" wrapper) and Chrome DevTools MCP's text
 * snapshot ("uid=1_4 link "Next" url="..."").  An agent needs a few of
 * its lines, the element to click or fill with its ref, so this file
 * holds how a snapshot is told from other texts, how it is cut (a chunk
 * per element subtree, titled by the path of its ancestors), what its
 * notice says (a map: title, URL, roles, headings, forms, landmarks)
 * and the query by role and name.  fmt-snapshot-hit.c holds the lines a
 * search hit shows beside its own, fmt-snapshot-diff.c the comparison of
 * two snapshots.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "fmt-snapshot.h"
#include "banned.h"

#define DETECT_MIN	3		/* lines with a ref that make one */
#define CHUNK_MIN_LINES	8		/* break at a sibling past this */
#define CHUNK_MIN_BYTES	600
#define CHUNK_MAX_LINES	40		/* break at any element past this */
#define CHUNK_MAX_BYTES	3000
#define TITLE_CUT	200		/* bytes of a chunk's title */
#define TITLE_LOOK	4		/* lines looked at for a heading */
#define PATH_NAME	40		/* bytes of a name in a path */

static size_t	 quoted(const char *, size_t, size_t);
static void	 attrs(const char *, size_t, size_t,
		    struct ofl_fmt_snapshot_el *);
static int	 parse_pw(const char *, size_t, size_t,
		    struct ofl_fmt_snapshot_el *);
static int	 parse_cdp(const char *, size_t, size_t,
		    struct ofl_fmt_snapshot_el *);
static void	 copy(char *, size_t, const char *, size_t);
static void	 node_set(struct snode *, const struct ofl_fmt_snapshot_el *,
		    uint64_t);
static int	 landmark(const char *);
static int	 has_word(const char *, size_t);

/*
 * Lines.
 */

ssize_t
ofl_fmt_snapshot_read(void *arg, void *buf, size_t n)
{
	return ofl_src_read(arg, buf, n);
}

/* The end of a string quoted by q that starts at p[i] (after the quote). */
static size_t
quoted(const char *p, size_t n, size_t i)
{
	while (i < n && p[i] != '"') {
		if (p[i] == '\\' && i + 1 < n)
			i++;
		i++;
	}
	return i;
}

/* Bracketed attributes from p[i] on: "[level=2] [ref=e6]". */
static void
attrs(const char *p, size_t n, size_t i, struct ofl_fmt_snapshot_el *e)
{
	size_t	s;

	for (;;) {
		while (i < n && p[i] == ' ')
			i++;
		if (i >= n || p[i] != '[')
			break;
		for (s = ++i; i < n && p[i] != ']'; i++)
			;
		if (i - s > 4 && memcmp(p + s, "ref=", 4) == 0) {
			e->ref = p + s + 4;
			e->reflen = i - s - 4;
		} else if (i - s > 6 && memcmp(p + s, "level=", 6) == 0)
			e->level = p[s + 6] - '0';
		if (i < n)
			i++;
	}
	e->end = i;
}

/* Playwright: "- role "name" [attr] [ref=e1]: value". */
static int
parse_pw(const char *p, size_t n, size_t i, struct ofl_fmt_snapshot_el *e)
{
	size_t	s, kend;
	int	sq = 0;

	if (i + 1 >= n || p[i] != '-' || p[i + 1] != ' ')
		return 0;
	i += 2;
	kend = n;
	if (i < n && p[i] == '\'') {
		/* A quoted key: up to the quote not doubled. */
		sq = 1;
		for (s = ++i; s < n; s++) {
			if (p[s] == '\'' && s + 1 < n && p[s + 1] == '\'')
				s++;
			else if (p[s] == '\'')
				break;
		}
		kend = s;
	}
	for (s = i; i < kend && p[i] != ' ' && p[i] != ':'; i++)
		;
	if (i == s)
		return 0;
	e->role = p + s;
	e->rolelen = i - s;
	if (i + 1 < kend && p[i] == ' ' && p[i + 1] == '"') {
		s = i + 2;
		i = quoted(p, kend, s);
		e->name = p + s;
		e->namelen = i - s;
		e->nameq = 1;
		if (i < kend)
			i++;
	}
	attrs(p, kend, i, e);
	i = e->end;
	if (sq && i < n && p[i] == '\'')
		i++;
	if (i < n && p[i] == ':') {
		i++;
		while (i < n && p[i] == ' ')
			i++;
		e->value = p + i;
		e->valuelen = n - i;
		if (e->valuelen >= 2 && p[i] == '"' && p[n - 1] == '"') {
			e->value++;
			e->valuelen -= 2;
			e->valueq = 1;
		}
	}
	e->prop = e->role[0] == '/';
	e->text = e->rolelen == 4 && memcmp(e->role, "text", 4) == 0;
	return 1;
}

/* Chrome DevTools: "uid=1_4 role "name" key="v" flag". */
static int
parse_cdp(const char *p, size_t n, size_t i, struct ofl_fmt_snapshot_el *e)
{
	size_t	s;

	if (n - i < 5 || memcmp(p + i, "uid=", 4) != 0)
		return 0;
	for (s = i += 4; i < n && p[i] != ' '; i++)
		;
	e->ref = p + s;
	e->reflen = i - s;
	while (i < n && p[i] == ' ')
		i++;
	for (s = i; i < n && p[i] != ' '; i++)
		;
	if (i == s)
		return 0;
	e->role = p + s;
	e->rolelen = i - s;
	if (i + 1 < n && p[i + 1] == '"') {
		s = i + 2;
		i = quoted(p, n, s);
		e->name = p + s;
		e->namelen = i - s;
		if (i < n)
			i++;
	}
	/* key="value" attributes: the level of a heading, a URL. */
	while (i < n) {
		while (i < n && p[i] == ' ')
			i++;
		for (s = i; i < n && p[i] != ' ' && p[i] != '='; i++)
			;
		if (i < n && p[i] == '=' && i + 1 < n && p[i + 1] == '"') {
			size_t	k = s, v = i + 2;

			i = quoted(p, n, v);
			if (i - k > 0 && v - k == 7 &&
			    memcmp(p + k, "level", 5) == 0)
				e->level = p[v] - '0';
			else if (v - k == 5 && memcmp(p + k, "url", 3) == 0) {
				e->value = p + v;
				e->valuelen = i - v;
			}
			if (i < n)
				i++;
		} else {
			/* key=value unquoted, or a word: skip it. */
			while (i < n && p[i] != ' ')
				i++;
		}
	}
	e->text = (e->rolelen == 10 && memcmp(e->role, "StaticText", 10) ==
	    0) || (e->rolelen == 13 && memcmp(e->role, "InlineTextBox", 13) ==
	    0);
	e->end = n;
	return 1;
}

int
ofl_fmt_snapshot_parse(const char *p, size_t n, struct ofl_fmt_snapshot_el *e)
{
	size_t	i;

	memset(e, 0, sizeof *e);
	n = ofl_chunk_body_len(p, n);
	for (i = 0; i < n && p[i] == ' '; i++)
		;
	e->depth = i;
	if (parse_pw(p, n, i, e))
		return 1;
	memset(e, 0, sizeof *e);
	e->depth = i;
	return parse_cdp(p, n, i, e);
}

/*
 * Detection: at least DETECT_MIN lines with a ref ("[ref=e5]" or
 * "uid=1_5"), and nearly all lines items of the tree or of its wrapper.
 */
int
ofl_fmt_snapshot_detect(const unsigned char *buf, size_t len, int complete)
{
	struct ofl_fmt_snapshot_el e;
	const char	*p = (const char *)buf, *end = p + len, *nl;
	size_t		 refs = 0, items = 0, nonblank = 0, n;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			if (!complete)
				break;
			nl = end;
		}
		n = (size_t)(nl - p);
		if (ofl_blank(p, n))
			continue;
		nonblank++;
		if (ofl_fmt_snapshot_parse(p, n, &e)) {
			items++;
			if (e.ref != NULL && e.reflen > 0)
				refs++;
		} else if (n >= 3 && (memcmp(p, "###", 3) == 0 ||
		    memcmp(p, "```", 3) == 0 || memcmp(p, "## ", 3) == 0))
			items++;
	}
	return refs >= DETECT_MIN && items * 10 >= nonblank * 8;
}

/*
 * The walk.
 */

static void
copy(char *d, size_t cap, const char *s, size_t n)
{
	if (n > cap - 1)
		n = ofl_utf8_cut(s, cap - 1);
	memcpy(d, s, n);
	d[n] = '\0';
}

static void
node_set(struct snode *sn, const struct ofl_fmt_snapshot_el *e,
    uint64_t lineno)
{
	sn->depth = e->depth;
	copy(sn->role, sizeof sn->role, e->role, e->rolelen);
	copy(sn->name, sizeof sn->name, e->name != NULL ? e->name : "",
	    e->namelen);
	copy(sn->ref, sizeof sn->ref, e->ref != NULL ? e->ref : "",
	    e->reflen);
	sn->level = e->level;
	sn->lineno = lineno;
}

void
ofl_fmt_snapshot_walk_init(struct walk *w, struct ofl_chunk_in *in)
{
	memset(w, 0, sizeof *w);
	ofl_chunk_lines_init(&w->it, in, 0, 1, 0);
}

void
ofl_fmt_snapshot_walk_free(struct walk *w)
{
	ofl_chunk_lines_free(&w->it);
}

/*
 * The next line: 1, 0 at the end, -1 on a read error.  w->elem says if
 * it is an element, w->st holds its ancestors.  The wrapper's "- Page
 * URL:" and "- Page Title:" lines give the URL and the title.
 */
int
ofl_fmt_snapshot_walk_next(struct walk *w)
{
	struct ofl_fmt_snapshot_el *e = &w->e;
	size_t	 n, k;
	int	 r;

	if (w->push) {
		if (w->nst < WALK_DEPTH)
			node_set(&w->st[w->nst++], e, w->l.lineno);
		else
			w->over++;
		w->push = 0;
	}
	if ((r = ofl_chunk_lines_next(&w->it, &w->l)) != 1)
		return r;
	w->elem = 0;
	if (!w->l.first)
		return 1;
	n = ofl_chunk_body_len(w->l.p, w->l.len);
	if (n >= 3 && (memcmp(w->l.p, "###", 3) == 0 ||
	    memcmp(w->l.p, "## ", 3) == 0)) {
		w->wrap = 1;
		w->tree = 0;
		return 1;
	}
	if (n >= 3 && memcmp(w->l.p, "```", 3) == 0) {
		w->tree = w->wrap && !w->tree;
		return 1;
	}
	/* The wrapper's lines: the page's URL and title. */
	if (n > 12 && memcmp(w->l.p, "- Page URL: ", 12) == 0 && !w->tree) {
		copy(w->url, sizeof w->url, w->l.p + 12, n - 12);
		return 1;
	}
	if (n > 14 && memcmp(w->l.p, "- Page Title: ", 14) == 0 && !w->tree) {
		copy(w->title, sizeof w->title, w->l.p + 14, n - 14);
		return 1;
	}
	/* Without a "### Page" heading (earlier Playwright MCP): no more. */
	if (!w->wrap && !w->tree && ((n >= 15 &&
	    memcmp(w->l.p, "- Page Snapshot", 15) == 0) || (n >= 21 &&
	    memcmp(w->l.p, "- Ran Playwright code", 21) == 0)))
		return 1;
	if (w->wrap && !w->tree) {
		k = ofl_chunk_ws_len(w->l.p, n);
		if (n - k < 4 || memcmp(w->l.p + k, "uid=", 4) != 0)
			return 1;
	}
	if (!ofl_fmt_snapshot_parse(w->l.p, w->l.len, e))
		return 1;
	w->elem = 1;
	if (w->headopen && e->depth > w->head.depth && !e->prop &&
	    (e->namelen > 0 ? has_word(e->name, e->namelen) :
	    has_word(e->value, e->valuelen))) {
		/*
		 * A heading named by its link or its text; not by an
		 * anchor's sign ("◆", "¶") before its text.
		 */
		if (e->namelen > 0)
			copy(w->head.name, sizeof w->head.name, e->name,
			    e->namelen);
		else
			copy(w->head.name, sizeof w->head.name, e->value,
			    e->valuelen);
		if (w->nst > 0 && w->st[w->nst - 1].lineno == w->head.lineno)
			memcpy(w->st[w->nst - 1].name, w->head.name,
			    sizeof w->head.name);
		w->headopen = 0;
		w->headnew = 1;
	} else if (w->headopen && e->depth <= w->head.depth) {
		w->headopen = 0;
		w->headnew = 1;
	}
	while (w->over > 0 && w->nst > 0 &&
	    w->st[w->nst - 1].depth >= e->depth)
		w->over--;
	while (w->nst > 0 && w->st[w->nst - 1].depth >= e->depth)
		w->nst--;
	if (e->prop || e->text)
		return 1;
	if (e->rolelen == 7 && memcmp(e->role, "heading", 7) == 0) {
		node_set(&w->head, e, w->l.lineno);
		w->hashead = 1;
		if (e->namelen > 0)
			w->headnew = 1;
		else
			w->headopen = 1;
	}
	if (w->title[0] == '\0' && e->rolelen == 11 &&
	    memcmp(e->role, "RootWebArea", 11) == 0) {
		copy(w->title, sizeof w->title, e->name != NULL ? e->name : "",
		    e->namelen);
		if (e->value != NULL)
			copy(w->url, sizeof w->url, e->value, e->valuelen);
	}
	w->push = 1;
	return 1;
}

/*
 * Does s (n bytes) hold a letter or a digit?  Of UTF-8, all but the
 * signs of U+0080 to U+00BF ("¶", "§") and U+2000 to U+2FFF ("◆", "→")
 * count as letters.
 */
static int
has_word(const char *s, size_t n)
{
	size_t		i;
	unsigned char	c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (isalnum(c) || (c >= 0xc3 && c != 0xe2 && (c & 0xc0) !=
		    0x80))
			return 1;
	}
	return 0;
}

/* The roles a page's map names as its regions. */
static int
landmark(const char *role)
{
	static const char *const l[] = {
		"navigation", "main", "search", "banner", "contentinfo",
		"complementary", "form", "region", "dialog", "article",
		"table", "list", "menu", "tablist", "toolbar", "tree", "grid",
		NULL
	};
	size_t	i;

	for (i = 0; l[i] != NULL; i++)
		if (strcmp(role, l[i]) == 0)
			return 1;
	return 0;
}

/* The last heading, with its ref: what a hit under it can scroll to. */
static void
path_head(const struct walk *w, struct ofl_buf *b)
{
	ofl_fmt_map_label(b, "heading", w->head.name, PATH_NAME);
	if (w->head.ref[0] != '\0')
		ofl_buf_addf(b, " [ref=%s]", w->head.ref);
}

/*
 * The path of the current line: its named or landmark ancestors, the
 * last heading before it (withhead) and its parent, with their refs:
 * "main > heading "OPTIONS" [ref=e38] > list [ref=e40]".
 */
void
ofl_fmt_snapshot_path(const struct walk *w, struct ofl_buf *b, int withhead)
{
	const struct snode *sn;
	size_t		 i, start = b->len, cut;

	if (!w->hashead || w->head.name[0] == '\0')
		withhead = 0;
	for (i = 0; i < w->nst; i++) {
		sn = &w->st[i];
		if (withhead && sn->lineno > w->head.lineno) {
			/* The heading before this ancestor, in order. */
			if (b->len > start)
				ofl_buf_adds(b, " > ");
			path_head(w, b);
			withhead = 0;
		}
		if (i + 1 < w->nst && ((sn->name[0] == '\0' &&
		    !landmark(sn->role)) || strcmp(sn->role, "RootWebArea") ==
		    0))
			continue;
		/* A nameless box the heading after it says more of. */
		if (withhead && w->head.ref[0] != '\0' && sn->name[0] ==
		    '\0' && strcmp(sn->role, "generic") == 0)
			continue;
		if (sn->lineno == w->head.lineno)
			withhead = 0;
		if (b->len > start)
			ofl_buf_adds(b, " > ");
		ofl_fmt_map_label(b, sn->role, sn->name, PATH_NAME);
		if (i + 1 == w->nst && sn->ref[0] != '\0')
			ofl_buf_addf(b, " [ref=%s]", sn->ref);
	}
	if (withhead) {
		if (b->len > start)
			ofl_buf_adds(b, " > ");
		path_head(w, b);
	}
	if (b->len - start > TITLE_CUT) {
		/* Keep the end, which says most. */
		cut = b->len - TITLE_CUT;
		while (cut < b->len && ((unsigned char)b->data[cut] & 0xc0) ==
		    0x80)
			cut++;
		memmove(b->data + start + 4, b->data + cut, b->len - cut);
		memcpy(b->data + start, "... ", 4);
		b->len = start + 4 + (b->len - cut);
	}
	ofl_buf_str(b);
}

/*
 * Chunking.
 */

/*
 * A chunk per element subtree: a chunk starts at an element with a ref
 * and takes its subtree and the siblings after it, up to CHUNK_MIN_LINES
 * lines or CHUNK_MIN_BYTES bytes; past CHUNK_MAX_LINES or
 * CHUNK_MAX_BYTES it ends before any element.  Its title is the path of
 * its first line (path()).  The text indexed is each line without its
 * indent, its ref and its cursor, so that the words of names, values and
 * URLs count, not the tree's syntax; snippets show the lines themselves.
 */
struct win {
	struct ofl_buf	 text;
	struct ofl_buf	 title;
	uint64_t	 bstart;
	uint64_t	 bend;
	uint64_t	 lstart;
	uint64_t	 lend;
	size_t		 nlines;
	size_t		 depth0;
	int		 headed;	/* titled by a heading in it */
};

static int	 win_emit(struct ofl_chunker *, struct win *);

static int
win_emit(struct ofl_chunker *ck, struct win *cw)
{
	int	rv;

	if (cw->nlines == 0)
		return 0;
	/* Titles are NUL-terminated at their length. */
	rv = ofl_chunk_emit(ck, ofl_buf_str(&cw->title), cw->title.len,
	    cw->text.data != NULL ? cw->text.data : "",
	    cw->text.len, cw->bstart, cw->bend, cw->lstart, cw->lend);
	ofl_buf_reset(&cw->text);
	ofl_buf_reset(&cw->title);
	cw->nlines = 0;
	return rv;
}

/* The words of a line: no indent, no ref, no cursor. */
void
ofl_fmt_snapshot_clean(struct ofl_buf *b, const char *p, size_t n,
    const struct ofl_fmt_snapshot_el *e, int elem)
{
	size_t	i, s;

	n = ofl_chunk_body_len(p, n);
	if (!elem) {
		ofl_buf_add(b, p, n);
		ofl_buf_addc(b, '\n');
		return;
	}
	i = e->depth;
	if (i + 4 <= n && memcmp(p + i, "uid=", 4) == 0)
		i = (size_t)(e->role - p);
	else if (i + 2 <= n && p[i] == '-')
		i += 2;
	while (i < n) {
		if (p[i] == '[' && ((n - i >= 5 &&
		    memcmp(p + i, "[ref=", 5) == 0) || (n - i >= 8 &&
		    memcmp(p + i, "[cursor=", 8) == 0))) {
			for (s = i; i < n && p[i] != ']'; i++)
				;
			if (i < n)
				i++;
			if (s > 0 && p[s - 1] == ' ' && i < n && p[i] == ' ')
				i++;
			continue;
		}
		ofl_buf_addc(b, p[i++]);
	}
	ofl_buf_addc(b, '\n');
}

int
ofl_fmt_snapshot_chunk(struct ofl_chunker *ck, struct ofl_chunk_in *s)
{
	struct walk	 w;
	struct win	 cw;
	struct ofl_chunk_line *l = &w.l;
	int		 r, rv = 0, starts;

	ofl_fmt_snapshot_walk_init(&w, s);
	memset(&cw, 0, sizeof cw);
	ofl_buf_init(&cw.text);
	ofl_buf_init(&cw.title);
	while ((r = ofl_fmt_snapshot_walk_next(&w)) == 1) {
		starts = w.elem && w.e.ref != NULL && w.e.reflen > 0 &&
		    !w.e.prop && !w.e.text;
		if (cw.nlines > 0 && ((starts && ((w.e.depth <= cw.depth0 &&
		    (cw.nlines >= CHUNK_MIN_LINES ||
		    cw.bend - cw.bstart >= CHUNK_MIN_BYTES)) ||
		    cw.nlines >= CHUNK_MAX_LINES ||
		    cw.bend - cw.bstart + l->len > CHUNK_MAX_BYTES)) ||
		    cw.bend - cw.bstart + l->len > OFL_CHUNK_HARD_MAX)) {
			if (win_emit(ck, &cw))
				goto stop;
		}
		if (cw.nlines == 0) {
			cw.bstart = l->off;
			cw.lstart = l->lineno;
			cw.depth0 = w.elem ? w.e.depth : 0;
			ofl_fmt_snapshot_path(&w, &cw.title, 1);
			if (cw.title.len == 0)
				ofl_buf_adds(&cw.title, w.elem ? "page" :
				    "page header");
			cw.headed = w.hashead && w.head.lineno == l->lineno;
		} else if (!cw.headed && cw.nlines < TITLE_LOOK &&
		    w.hashead && w.head.lineno > cw.lstart && !w.headopen &&
		    w.head.depth > cw.depth0 && w.head.name[0] != '\0') {
			/* A heading first in it: the chunk is its section. */
			ofl_buf_reset(&cw.title);
			ofl_fmt_snapshot_path(&w, &cw.title, 1);
			cw.headed = 1;
		}
		if (l->first)
			ofl_fmt_snapshot_clean(&cw.text, l->p, l->len, &w.e, w.elem);
		else
			ofl_buf_add(&cw.text, l->p, l->len);
		cw.bend = l->off + l->len;
		cw.lend = l->lineno;
		cw.nlines++;
	}
	if (r < 0)
		rv = -1;
	else if (win_emit(ck, &cw))
		rv = 1;
	goto out;
stop:
	rv = 1;
out:
	ofl_buf_free(&cw.text);
	ofl_buf_free(&cw.title);
	ofl_fmt_snapshot_walk_free(&w);
	return rv;
}

/*
 * The summary: a map of the page (fmt-map.c), each element marked by
 * its ref.
 */

static void
map_el(struct ofl_fmt_map_el *me, const struct snode *sn, char *mk,
    size_t size)
{
	me->role = sn->role;
	me->name = sn->name;
	if (sn->ref[0] != '\0')
		snprintf(mk, size, "ref=%s", sn->ref);
	else
		mk[0] = '\0';
	me->mark = mk;
}

/* A field or a button: into the group of the form it sits in. */
static void
map_field(struct ofl_fmt_map *mp, const struct walk *w)
{
	const struct snode *f = NULL;
	struct ofl_fmt_map_el e, fe;
	struct snode	 sn;
	char		 mk[REF_MAX + 8], fmk[REF_MAX + 8];
	size_t		 i;

	for (i = w->nst; i > 0; i--) {
		if (strcmp(w->st[i - 1].role, "form") == 0 ||
		    strcmp(w->st[i - 1].role, "search") == 0) {
			f = &w->st[i - 1];
			break;
		}
	}
	node_set(&sn, &w->e, w->l.lineno);
	map_el(&e, &sn, mk, sizeof mk);
	if (f != NULL)
		map_el(&fe, f, fmk, sizeof fmk);
	ofl_fmt_map_field(mp, &e, f != NULL ? &fe : NULL,
	    f != NULL ? f->lineno : 0);
}

int
ofl_fmt_snapshot_summary(const struct ofl_src *src, const struct ofl_meta *m,
    struct ofl_summary *sum)
{
	struct ofl_chunk_in	 in;
	struct ofl_fmt_map	*mp;
	struct ofl_fmt_map_el	 me;
	struct walk		 w;
	struct snode		 sn;
	char			 role[ROLE_MAX], mk[REF_MAX + 8];
	int			 r;

	(void)m;
	if (ofl_src_seek(src, 0) == -1)
		return -1;
	memset(&in, 0, sizeof in);
	in.read = ofl_fmt_snapshot_read;
	in.arg = (void *)src;
	ofl_fmt_snapshot_walk_init(&w, &in);
	mp = ofl_fmt_map_new();
	while ((r = ofl_fmt_snapshot_walk_next(&w)) == 1) {
		if (w.headnew) {
			ofl_fmt_map_heading(mp, w.head.level, w.head.name);
			w.headnew = 0;
		}
		if (!w.elem || w.e.prop || w.e.text)
			continue;
		copy(role, sizeof role, w.e.role, w.e.rolelen);
		ofl_fmt_map_role(mp, role);
		if (ofl_fmt_map_is_field(role))
			map_field(mp, &w);
		if (strcmp(role, "navigation") == 0 ||
		    strcmp(role, "main") == 0 ||
		    strcmp(role, "search") == 0 ||
		    strcmp(role, "form") == 0 ||
		    strcmp(role, "banner") == 0 ||
		    strcmp(role, "contentinfo") == 0 ||
		    strcmp(role, "complementary") == 0 ||
		    strcmp(role, "dialog") == 0 ||
		    (strcmp(role, "region") == 0 && w.e.namelen > 0)) {
			node_set(&sn, &w.e, w.l.lineno);
			map_el(&me, &sn, mk, sizeof mk);
			ofl_fmt_map_landmark(mp, &me);
		}
	}
	if (r == 0) {
		if (w.headopen || w.headnew)
			ofl_fmt_map_heading(mp, w.head.level, w.head.name);
		ofl_fmt_map_text(mp, w.title, w.url, sum);
		sum->filter = ofl_xstrdup(ofl_fmt_map_suggest(mp));
	}
	ofl_fmt_map_free(mp);
	ofl_fmt_snapshot_walk_free(&w);
	return r == 0 ? 0 : -1;
}

/*
 * Queries by role and name.
 */

/* An element line with a ref: what an agent acts on. */
int
ofl_fmt_snapshot_acts(const struct ofl_fmt_snapshot_el *e)
{
	return e->ref != NULL && e->reflen > 0 && !e->prop && !e->text;
}

/*
 * Does hay (n bytes) hold needle, ignoring ASCII case?  A quoted name or
 * value (q: \" and \\ for " and \) is read unquoted: --name 'Next
 * "page"' finds button "Next \"page\"".
 */
static int
holds_ci(const char *hay, size_t n, const char *needle, int q)
{
	size_t	k = strlen(needle), i, j;
	char	*u = NULL;
	int	found = 0;

	if (q && memchr(hay, '\\', n) != NULL) {
		u = ofl_xmalloc(n + 1);
		for (i = j = 0; i < n; i++) {
			if (hay[i] == '\\' && i + 1 < n)
				i++;
			u[j++] = hay[i];
		}
		hay = u;
		n = j;
	}
	for (i = 0; i + k <= n && !found; i++)
		found = strncasecmp(hay + i, needle, k) == 0;
	free(u);
	return found;
}

/* A match held back until the next line says the element's name. */
struct pending {
	int		 on;
	int		 named;		/* it needs no child's name */
	size_t		 depth;
	struct ofl_buf	 line;
	struct ofl_buf	 path;
	uint64_t	 lineno;
};

/* Hand the pending match to cb, with the name its child gave, if any. */
static int
pending_flush(struct pending *pd, const char *name, size_t n, int q,
    const char *want, int (*cb)(void *,
    const struct ofl_fmt_snapshot_match *), void *arg)
{
	struct ofl_fmt_snapshot_match mt;

	if (!pd->on)
		return 0;
	pd->on = 0;
	if (!pd->named && want != NULL && (name == NULL ||
	    !holds_ci(name, n, want, q)))
		return 0;
	if (!pd->named && name != NULL && n > 0) {
		ofl_buf_adds(&pd->line, "  # ");
		ofl_buf_add(&pd->line, name, n);
	}
	mt.lineno = pd->lineno;
	mt.line = pd->line.data;
	mt.len = pd->line.len;
	mt.path = pd->path.data != NULL ? pd->path.data : "";
	mt.pathlen = pd->path.len;
	return cb(arg, &mt);
}

/*
 * A line too long to be read whole (over the line reader's 64 KiB: a
 * name of a book's length), whose first piece w holds: an element of
 * role and name by its start, handed to cb with that start (its ref,
 * at the end, is not known), so that it is not left out unsaid.
 */
static int
long_line(struct walk *w, struct pending *pd, const char *role,
    const char *name, int (*cb)(void *, const struct ofl_fmt_snapshot_match *),
    void *arg)
{
	struct ofl_fmt_snapshot_match mt;
	struct ofl_buf	 path;
	const char	*p = w->l.p;
	size_t		 n = w->l.len, k, r, rl;
	int		 stop;

	k = ofl_chunk_ws_len(p, n);
	if (n - k < 3 || p[k] != '-' || p[k + 1] != ' ')
		return 0;
	for (r = k + 2, rl = 0; r + rl < n &&
	    isalnum((unsigned char)p[r + rl]); rl++)
		;
	if (rl == 0)
		return 0;
	if ((stop = pending_flush(pd, NULL, 0, 0, name, cb, arg)) != 0)
		return stop;
	if ((role != NULL && *role != '\0' && (strlen(role) != rl ||
	    strncasecmp(role, p + r, rl) != 0)) ||
	    (name != NULL && !holds_ci(p + r + rl, n - r - rl, name, 0)))
		return 0;
	ofl_buf_init(&path);
	ofl_fmt_snapshot_path(w, &path, 1);
	mt.lineno = w->l.lineno;
	mt.line = p + k;
	mt.len = n - k;
	mt.path = path.data != NULL ? path.data : "";
	mt.pathlen = path.len;
	stop = cb(arg, &mt);
	ofl_buf_free(&path);
	return stop;
}

/*
 * An element without a name of its own is named by its first child
 * with a name or a text ("- link [ref=e5]:" over "- code: --since"):
 * its match waits for the next line.
 */
int
ofl_fmt_snapshot_find(const struct ofl_src *src, const char *role,
    const char *name, int (*cb)(void *, const struct ofl_fmt_snapshot_match *),
    void *arg)
{
	struct ofl_chunk_in	 in;
	struct pending		 pd;
	struct walk		 w;
	const struct ofl_fmt_snapshot_el *e = &w.e;
	size_t			 n;
	int			 r, stop = 0, own;

	if (ofl_src_seek(src, 0) == -1)
		return -1;
	memset(&in, 0, sizeof in);
	in.read = ofl_fmt_snapshot_read;
	in.arg = (void *)src;
	ofl_fmt_snapshot_walk_init(&w, &in);
	memset(&pd, 0, sizeof pd);
	ofl_buf_init(&pd.line);
	ofl_buf_init(&pd.path);
	while (!stop && (r = ofl_fmt_snapshot_walk_next(&w)) == 1) {
		if (w.l.first && w.l.more) {
			stop = long_line(&w, &pd, role, name, cb, arg);
			continue;
		}
		if (!w.elem)
			continue;
		if (pd.on) {
			if (e->depth > pd.depth && !e->prop &&
			    (e->namelen > 0 || e->valuelen > 0))
				stop = pending_flush(&pd, e->namelen > 0 ?
				    e->name : e->value, e->namelen > 0 ?
				    e->namelen : e->valuelen, e->namelen > 0 ?
				    e->nameq : e->valueq, name, cb, arg);
			else if (e->depth <= pd.depth || !e->prop)
				stop = pending_flush(&pd, NULL, 0, 0, name, cb,
				    arg);
			if (stop)
				break;
		}
		if (!ofl_fmt_snapshot_acts(e))
			continue;
		if (role != NULL && *role != '\0' &&
		    (strlen(role) != e->rolelen ||
		    strncasecmp(role, e->role, e->rolelen) != 0))
			continue;
		own = (e->name != NULL && e->namelen > 0) ||
		    (e->value != NULL && e->valuelen > 0);
		if (name != NULL && own && !(e->name != NULL &&
		    holds_ci(e->name, e->namelen, name, e->nameq)) &&
		    !(e->value != NULL && holds_ci(e->value, e->valuelen,
		    name, e->valueq)))
			continue;
		n = ofl_chunk_body_len(w.l.p, w.l.len);
		ofl_buf_reset(&pd.line);
		ofl_buf_add(&pd.line, w.l.p + e->depth, n - e->depth);
		ofl_buf_reset(&pd.path);
		ofl_fmt_snapshot_path(&w, &pd.path, 1);
		pd.lineno = w.l.lineno;
		pd.depth = e->depth;
		pd.named = own;
		pd.on = 1;
		if (own)
			stop = pending_flush(&pd, NULL, 0, 0, name, cb, arg);
	}
	if (!stop && r == 0)
		stop = pending_flush(&pd, NULL, 0, 0, name, cb, arg);
	ofl_buf_free(&pd.line);
	ofl_buf_free(&pd.path);
	ofl_fmt_snapshot_walk_free(&w);
	return stop || r == 0 ? 0 : -1;
}
