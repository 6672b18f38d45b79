/*
 * fmt-html.c: an HTML page's map and its elements by role.  The first
 * and last lines of a page say little (a doctype, a head of links and
 * scripts, closing tags); an agent that fetched one needs what a
 * browser's accessibility tree would give it: the title, the headings,
 * the landmarks, and every form with the fields to fill and the buttons
 * to press.  A small tag scanner reads the page as a stream in bounded
 * memory, names each element roughly as a browser would (aria-label
 * first; a link, a button or a heading by its text; a field by its
 * label, its placeholder or its name) and hands it to the map
 * (fmt-map.c) or to the query by role, marked with the line where its
 * tag starts and, for a field, the name it is sent under.
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

#define HTML_READ	65536		/* bytes read at a time */
#define HTML_TAG	16		/* bytes of a tag's name */
#define HTML_KEY	24		/* bytes of an attribute's name */
#define HTML_VAL	200		/* bytes of an attribute's value kept */
#define HTML_ATTRS	16		/* attributes of a tag kept */
#define HTML_TEXT	192		/* bytes of text kept for a name */
#define HTML_NAME	96		/* bytes of a name */
#define HTML_OPEN	16		/* elements open waiting for text */
#define HTML_CTX	32		/* forms and landmarks open */
#define HTML_LABELS	32		/* labels kept for the fields after */
#define HTML_MARK	(HTML_VAL + 48)

struct hattr {
	char	 k[HTML_KEY];
	char	 v[HTML_VAL];
};

/* An element, as found. */
struct hel {
	char		 tag[HTML_TAG];
	char		 role[ROLE_MAX];
	char		 name[HTML_NAME];
	char		 mark[HTML_MARK];	/* "name=q, line 12" */
	char		 what[HTML_MARK];	/* "href=runs.html" */
	int		 level;
	uint64_t	 lineno;
};

/* An element open until its end tag, collecting the text that names it. */
struct hopen {
	struct hel	 e;
	char		 text[HTML_TEXT];
	size_t		 tn;
	int		 sp;		/* a space is pending */
	int		 named;		/* named by an attribute */
	int		 label;		/* a <label> */
	int		 frozen;	/* inside its <select>: no text */
	char		 forid[64];	/* its for= */
	struct hel	 field;		/* a field inside it, for its text */
	int		 hasfield;
};

struct hlabel {
	char	 id[64];
	char	 text[HTML_NAME];
};

struct hwalk {
	const struct ofl_src	*src;
	unsigned char		*buf;
	size_t			 len, pos;
	int			 eof;
	uint64_t		 line;

	char			 tag[HTML_TAG];
	size_t			 tagn;
	int			 end;
	struct hattr		 a[HTML_ATTRS];
	size_t			 na;
	uint64_t		 tagline;

	char			 title[256];
	size_t			 titlen;
	int			 intitle;
	char			 url[256];

	struct hopen		 open[HTML_OPEN];
	size_t			 nopen;
	struct hel		 ctx[HTML_CTX];
	size_t			 nctx, ctxover;
	struct hlabel		 lab[HTML_LABELS];
	size_t			 nlab;
	char			 head[HTML_NAME];	/* the last heading */

	int			(*cb)(void *, const struct hel *,
				    const struct hwalk *);
	void			*arg;
	int			 stop;
};

static int	 hget(struct hwalk *);
static void	 hunget(struct hwalk *);
static void	 put(char *, size_t, const char *, size_t);
static void	 unescape(char *, size_t);
static const char *attr(const struct hwalk *, const char *);
static int	 isvoid(const char *);
static int	 iscontainer(const char *);
static int	 role_of(const struct hwalk *, char *, size_t, int *);
static void	 text_add(struct hwalk *, int);
static void	 emit(struct hwalk *, struct hel *);
static void	 flush_open(struct hwalk *, size_t);
static void	 field_name(struct hwalk *, struct hel *);
static void	 start_tag(struct hwalk *);
static void	 end_tag(struct hwalk *);
static void	 read_tag(struct hwalk *);
static void	 skip_raw(struct hwalk *, const char *);
static void	 skip_to(struct hwalk *, const char *);
static int	 walk(struct hwalk *);

/* The next byte, -1 at the end or on an error. */
static int
hget(struct hwalk *w)
{
	ssize_t	n;
	int	c;

	if (w->pos == w->len) {
		if (w->eof)
			return -1;
		if ((n = ofl_src_read(w->src, w->buf, HTML_READ)) <= 0) {
			w->eof = 1;
			return -1;
		}
		w->len = (size_t)n;
		w->pos = 0;
	}
	c = w->buf[w->pos++];
	if (c == '\n')
		w->line++;
	return c;
}

/* Give back the byte just read: there is one before pos in the buffer. */
static void
hunget(struct hwalk *w)
{
	if (w->pos > 0) {
		w->pos--;
		if (w->buf[w->pos] == '\n')
			w->line--;
	}
}

/* s[0..n) into d (size bytes), whitespace collapsed, cut whole. */
static void
put(char *d, size_t size, const char *s, size_t n)
{
	size_t	i, o = 0;
	int	sp = 0;

	for (i = 0; i < n && o + 1 < size; i++) {
		if (isspace((unsigned char)s[i])) {
			sp = o > 0;
			continue;
		}
		if (sp && o + 2 < size)
			d[o++] = ' ';
		sp = 0;
		d[o++] = s[i];
	}
	/* The byte that would come next: whether o is inside a character. */
	d[o] = i < n ? s[i] : '\0';
	o = ofl_utf8_cut(d, o);
	d[o] = '\0';
}

/* The character references of s decoded, in place. */
static void
unescape(char *s, size_t size)
{
	struct ofl_buf	b;

	if (strchr(s, '&') == NULL)
		return;
	ofl_buf_init(&b);
	ofl_buf_adds(&b, s);
	ofl_chunk_html_unescape(&b);
	put(s, size, b.data, b.len);
	ofl_buf_free(&b);
}

static const char *
attr(const struct hwalk *w, const char *k)
{
	size_t	i;

	for (i = 0; i < w->na; i++)
		if (strcmp(w->a[i].k, k) == 0)
			return w->a[i].v;
	return NULL;
}

static int
isvoid(const char *t)
{
	static const char *const v[] = {
		"area", "base", "br", "col", "embed", "hr", "img", "input",
		"link", "meta", "source", "track", "wbr", NULL
	};
	size_t	i;

	for (i = 0; v[i] != NULL; i++)
		if (strcmp(v[i], t) == 0)
			return 1;
	return 0;
}

/* The roles of a page's regions: they hold what is found inside. */
static int
iscontainer(const char *role)
{
	static const char *const c[] = {
		"form", "search", "navigation", "main", "banner",
		"contentinfo", "complementary", "dialog", "region", NULL
	};
	size_t	i;

	for (i = 0; c[i] != NULL; i++)
		if (strcmp(c[i], role) == 0)
			return 1;
	return 0;
}

/*
 * The role of the tag just read, into role: its role= when it names
 * one, else what a browser makes of the tag.  0 for a tag of no role
 * (a div, a span, a link without href).
 */
static int
role_of(const struct hwalk *w, char *role, size_t size, int *level)
{
	static const char *const tags[] = {
		"button", "button", "nav", "navigation", "main", "main",
		"aside", "complementary", "dialog", "dialog",
		"search", "search", "article", "article", "table", "table",
		"tr", "row", "td", "cell", "th", "columnheader",
		"li", "listitem", "ul", "list", "ol", "list", "img", "img",
		"p", "paragraph", "details", "group", "dt", "term",
		"dd", "definition", "option", "option", "textarea", "textbox",
		"iframe", "iframe", "code", "code", "summary", "button",
		"header", "banner", "footer", "contentinfo", NULL
	};
	const char	*t = w->tag, *r, *type;
	size_t		 i, n;

	*level = 0;
	if ((r = attr(w, "role")) != NULL && *r != '\0' &&
	    strcmp(r, "presentation") != 0 && strcmp(r, "none") != 0) {
		n = strcspn(r, " ");
		if (n >= size)
			n = size - 1;
		memcpy(role, r, n);
		role[n] = '\0';
		return 1;
	}
	if (t[0] == 'h' && t[1] >= '1' && t[1] <= '6' && t[2] == '\0') {
		*level = t[1] - '0';
		snprintf(role, size, "heading");
		return 1;
	}
	if (strcmp(t, "a") == 0) {
		if (attr(w, "href") == NULL)
			return 0;
		snprintf(role, size, "link");
		return 1;
	}
	if (strcmp(t, "form") == 0) {
		snprintf(role, size, "form");
		return 1;
	}
	if (strcmp(t, "section") == 0) {
		if (attr(w, "aria-label") == NULL &&
		    attr(w, "aria-labelledby") == NULL)
			return 0;
		snprintf(role, size, "region");
		return 1;
	}
	if (strcmp(t, "select") == 0) {
		snprintf(role, size, "%s", attr(w, "multiple") != NULL ?
		    "listbox" : "combobox");
		return 1;
	}
	if (strcmp(t, "input") == 0) {
		if ((type = attr(w, "type")) == NULL)
			type = "text";
		if (strcasecmp(type, "hidden") == 0)
			r = "hidden";
		else if (strcasecmp(type, "submit") == 0 ||
		    strcasecmp(type, "reset") == 0 ||
		    strcasecmp(type, "button") == 0 ||
		    strcasecmp(type, "image") == 0)
			r = "button";
		else if (strcasecmp(type, "checkbox") == 0)
			r = "checkbox";
		else if (strcasecmp(type, "radio") == 0)
			r = "radio";
		else if (strcasecmp(type, "search") == 0)
			r = "searchbox";
		else if (strcasecmp(type, "range") == 0)
			r = "slider";
		else if (strcasecmp(type, "number") == 0)
			r = "spinbutton";
		else
			r = "textbox";
		snprintf(role, size, "%s", r);
		return 1;
	}
	for (i = 0; tags[i] != NULL; i += 2)
		if (strcmp(tags[i], t) == 0) {
			snprintf(role, size, "%s", tags[i + 1]);
			return 1;
		}
	return 0;
}

/* A byte of text, to every element open for its name, and the title. */
static void
text_add(struct hwalk *w, int c)
{
	struct hopen	*o;
	size_t		 i;
	int		 sp = isspace(c);

	if (w->intitle && w->titlen + 1 < sizeof w->title)
		w->title[w->titlen++] = (char)(sp ? ' ' : c);
	for (i = 0; i < w->nopen; i++) {
		o = &w->open[i];
		if (o->frozen)
			continue;
		if (sp) {
			o->sp = o->tn > 0;
			continue;
		}
		if (o->tn + 2 >= sizeof o->text)
			continue;
		if (o->sp)
			o->text[o->tn++] = ' ';
		o->sp = 0;
		o->text[o->tn++] = (char)c;
	}
}

/* An element found: to the callback, a heading kept for the path. */
static void
emit(struct hwalk *w, struct hel *e)
{
	size_t	n;

	if (w->stop)
		return;
	unescape(e->name, sizeof e->name);
	if (strcmp(e->role, "heading") == 0) {
		/* A permalink's mark at its end ("Options#", "Usage¶"). */
		n = strlen(e->name);
		while (n > 0 && (e->name[n - 1] == '#' ||
		    e->name[n - 1] == ' '))
			n--;
		if (n >= 2 && memcmp(e->name + n - 2, "\xc2\xb6", 2) == 0)
			n -= 2;
		else if (n >= 2 && memcmp(e->name + n - 2, "\xc2\xa7", 2) == 0)
			n -= 2;
		while (n > 0 && e->name[n - 1] == ' ')
			n--;
		if (n > 0)
			e->name[n] = '\0';
		snprintf(w->head, sizeof w->head, "%s", e->name);
	}
	if (w->cb(w->arg, e, w) != 0)
		w->stop = 1;
}

/* The elements open from index k up, innermost first, named. */
static void
flush_open(struct hwalk *w, size_t k)
{
	struct hopen	*o;
	size_t		 i;

	while (w->nopen > k) {
		o = &w->open[--w->nopen];
		if (o->label) {
			/* A field inside a label is named by its text. */
			if (o->hasfield) {
				if (o->tn > 0)
					put(o->field.name,
					    sizeof o->field.name, o->text,
					    o->tn);
				emit(w, &o->field);
			} else if (o->forid[0] != '\0' && o->tn > 0) {
				/* The last HTML_LABELS, in a ring. */
				i = w->nlab++ % HTML_LABELS;
				put(w->lab[i].id, sizeof w->lab[i].id,
				    o->forid, strlen(o->forid));
				put(w->lab[i].text, sizeof w->lab[i].text,
				    o->text, o->tn);
			}
			/* Its text is its field's, not its parents'. */
			continue;
		}
		if (!o->named)
			put(o->e.name, sizeof o->e.name, o->text, o->tn);
		emit(w, &o->e);
	}
}

/* A field's name: aria-label, its label's text, placeholder, name. */
static void
field_name(struct hwalk *w, struct hel *e)
{
	const char	*v, *id;
	size_t		 i, k;

	if ((v = attr(w, "aria-label")) != NULL && *v != '\0') {
		put(e->name, sizeof e->name, v, strlen(v));
		return;
	}
	if ((id = attr(w, "id")) != NULL && *id != '\0')
		for (i = 0; i < w->nlab && i < HTML_LABELS; i++) {
			k = (w->nlab - 1 - i) % HTML_LABELS;
			if (strcmp(w->lab[k].id, id) == 0) {
				snprintf(e->name, sizeof e->name, "%s",
				    w->lab[k].text);
				return;
			}
		}
	if (strcmp(e->role, "button") == 0 &&
	    (((v = attr(w, "value")) != NULL && *v != '\0') ||
	    ((v = attr(w, "alt")) != NULL && *v != '\0'))) {
		put(e->name, sizeof e->name, v, strlen(v));
		return;
	}
	if ((v = attr(w, "placeholder")) != NULL ||
	    (v = attr(w, "title")) != NULL)
		put(e->name, sizeof e->name, v, strlen(v));
}

static void
start_tag(struct hwalk *w)
{
	struct hopen	*o;
	struct hel	 e;
	const char	*v, *m;
	size_t		 i;
	int		 lv, aria;
	char		 method[8];

	if (strcmp(w->tag, "title") == 0 && w->title[0] == '\0') {
		w->intitle = 1;
		w->titlen = 0;
		return;
	}
	if (strcmp(w->tag, "link") == 0 && (v = attr(w, "rel")) != NULL &&
	    strcmp(v, "canonical") == 0 && (v = attr(w, "href")) != NULL) {
		put(w->url, sizeof w->url, v, strlen(v));
		unescape(w->url, sizeof w->url);
		return;
	}
	/* Elements that end where the next of their kind starts. */
	if (w->nopen > 0 && strcmp(w->open[w->nopen - 1].e.tag, w->tag) ==
	    0 && (strcmp(w->tag, "li") == 0 || strcmp(w->tag, "p") == 0 ||
	    strcmp(w->tag, "option") == 0 || strcmp(w->tag, "dt") == 0 ||
	    strcmp(w->tag, "dd") == 0 || strcmp(w->tag, "td") == 0 ||
	    strcmp(w->tag, "th") == 0 || strcmp(w->tag, "tr") == 0))
		flush_open(w, w->nopen - 1);
	if (strcmp(w->tag, "label") == 0) {
		if (w->nopen == HTML_OPEN)
			return;
		o = &w->open[w->nopen++];
		memset(o, 0, sizeof *o);
		snprintf(o->e.tag, sizeof o->e.tag, "label");
		o->label = 1;
		if ((v = attr(w, "for")) != NULL)
			put(o->forid, sizeof o->forid, v, strlen(v));
		return;
	}
	memset(&e, 0, sizeof e);
	if (!role_of(w, e.role, sizeof e.role, &lv))
		return;
	snprintf(e.tag, sizeof e.tag, "%s", w->tag);
	e.level = lv;
	e.lineno = w->tagline;
	snprintf(e.mark, sizeof e.mark, "line %llu",
	    (unsigned long long)e.lineno);
	if ((v = attr(w, "aria-label")) != NULL && *v != '\0')
		put(e.name, sizeof e.name, v, strlen(v));
	if (strcmp(e.role, "link") == 0 && (v = attr(w, "href")) != NULL) {
		snprintf(e.what, sizeof e.what, "href=%s", v);
		unescape(e.what, sizeof e.what);
	}
	if (strcmp(e.role, "img") == 0 && (v = attr(w, "alt")) != NULL) {
		if (e.name[0] == '\0')
			put(e.name, sizeof e.name, v, strlen(v));
		/* The alt of an image in a link or a button names it. */
		for (i = 0; *v != '\0' && i < w->nopen; i++)
			if (w->open[i].tn == 0 && !w->open[i].named) {
				put(w->open[i].text, sizeof w->open[i].text,
				    v, strlen(v));
				w->open[i].tn = strlen(w->open[i].text);
			}
	}
	if (strcmp(e.tag, "form") == 0 || iscontainer(e.role)) {
		if (e.name[0] == '\0' && strcmp(e.tag, "form") == 0 &&
		    (v = attr(w, "name")) != NULL)
			put(e.name, sizeof e.name, v, strlen(v));
		if (strcmp(e.tag, "form") == 0) {
			m = attr(w, "method");
			snprintf(method, sizeof method, "%s",
			    m != NULL && *m != '\0' ? m : "get");
			for (i = 0; method[i] != '\0'; i++)
				method[i] = (char)toupper(
				    (unsigned char)method[i]);
			v = attr(w, "action");
			snprintf(e.mark, sizeof e.mark, "%s%s%.*s, line %llu",
			    method, v != NULL && *v != '\0' ? " " : "",
			    v != NULL ? 120 : 0, v != NULL ? v : "",
			    (unsigned long long)e.lineno);
			unescape(e.mark, sizeof e.mark);
			snprintf(e.what, sizeof e.what, "%s", e.mark);
			*strrchr(e.what, ',') = '\0';
		}
		emit(w, &e);
		if (w->nctx < HTML_CTX)
			w->ctx[w->nctx++] = e;
		else
			w->ctxover++;
		return;
	}
	if (ofl_fmt_map_is_field(e.role) || strcmp(e.role, "hidden") == 0) {
		if ((v = attr(w, "name")) != NULL && *v != '\0') {
			snprintf(e.mark, sizeof e.mark, "name=%.*s, line %llu",
			    120, v, (unsigned long long)e.lineno);
			snprintf(e.what, sizeof e.what, "name=%.*s", 120, v);
		}
		if ((v = attr(w, "type")) != NULL && strcmp(e.tag, "input") ==
		    0) {
			i = strlen(e.what);
			snprintf(e.what + i, sizeof e.what - i, "%stype=%s",
			    i > 0 ? " " : "", v);
		}
		unescape(e.mark, sizeof e.mark);
		unescape(e.what, sizeof e.what);
		aria = e.name[0] != '\0';
		if (!aria && strcmp(e.tag, "button") != 0)
			field_name(w, &e);
		if (strcmp(e.tag, "input") == 0 ||
		    strcmp(e.tag, "select") == 0 ||
		    strcmp(e.tag, "textarea") == 0) {
			if (e.name[0] == '\0' && (v = attr(w, "name")) != NULL)
				put(e.name, sizeof e.name, v, strlen(v));
			/*
			 * In a label: named by its text, when it has one,
			 * and not by the options of a list.
			 */
			for (i = w->nopen; !aria && i > 0; i--)
				if (w->open[i - 1].label &&
				    !w->open[i - 1].hasfield) {
					w->open[i - 1].field = e;
					w->open[i - 1].hasfield = 1;
					w->open[i - 1].frozen =
					    strcmp(e.tag, "select") == 0;
					return;
				}
			emit(w, &e);
			return;
		}
	}
	if (isvoid(w->tag) || strcmp(e.tag, "textarea") == 0) {
		emit(w, &e);
		return;
	}
	if (w->nopen == HTML_OPEN) {
		emit(w, &e);
		return;
	}
	o = &w->open[w->nopen++];
	memset(o, 0, sizeof *o);
	o->e = e;
	o->named = e.name[0] != '\0';
}

static void
end_tag(struct hwalk *w)
{
	size_t	i;

	if (strcmp(w->tag, "title") == 0 && w->intitle) {
		w->intitle = 0;
		w->title[w->titlen] = '\0';
		put(w->title, sizeof w->title, w->title, w->titlen);
		unescape(w->title, sizeof w->title);
		return;
	}
	if (strcmp(w->tag, "select") == 0)
		for (i = 0; i < w->nopen; i++)
			w->open[i].frozen = 0;
	for (i = w->nopen; i > 0; i--)
		if (strcmp(w->open[i - 1].e.tag, w->tag) == 0) {
			flush_open(w, i - 1);
			break;
		}
	if (w->ctxover > 0) {
		w->ctxover--;
		return;
	}
	for (i = w->nctx; i > 0; i--)
		if (strcmp(w->ctx[i - 1].tag, w->tag) == 0) {
			w->nctx = i - 1;
			break;
		}
}

/* After "<" and a letter or "/": the tag, its attributes, up to ">". */
static void
read_tag(struct hwalk *w)
{
	struct hattr	*a;
	size_t		 kn, vn;
	int		 c, q;

	w->tagn = 0;
	w->na = 0;
	while ((c = hget(w)) != -1 && !isspace(c) && c != '>' && c != '/') {
		if (w->tagn + 1 < sizeof w->tag)
			w->tag[w->tagn++] = (char)tolower(c);
	}
	w->tag[w->tagn] = '\0';
	while (c != -1 && c != '>') {
		if (isspace(c) || c == '/') {
			c = hget(w);
			continue;
		}
		/* An attribute: its name, and its value if any. */
		a = w->na < HTML_ATTRS ? &w->a[w->na++] : NULL;
		kn = vn = 0;
		while (c != -1 && !isspace(c) && c != '>' && c != '=' &&
		    c != '/') {
			if (a != NULL && kn + 1 < sizeof a->k)
				a->k[kn++] = (char)tolower(c);
			c = hget(w);
		}
		if (a != NULL) {
			a->k[kn] = '\0';
			a->v[0] = '\0';
		}
		while (c != -1 && isspace(c))
			c = hget(w);
		if (c != '=')
			continue;
		while ((c = hget(w)) != -1 && isspace(c))
			;
		q = c == '"' || c == '\'' ? c : 0;
		if (q)
			c = hget(w);
		while (c != -1 && (q ? c != q : !isspace(c) && c != '>')) {
			if (a != NULL && vn + 1 < sizeof a->v)
				a->v[vn++] = (char)c;
			c = hget(w);
		}
		if (a != NULL)
			a->v[vn] = '\0';
		if (q && c != -1)
			c = hget(w);
	}
}

/* Past the text of a <script> or a <style>: up to "</script". */
static void
skip_raw(struct hwalk *w, const char *pat)
{
	size_t	m = 0;
	int	c;

	while (pat[m] != '\0' && (c = hget(w)) != -1) {
		if (tolower(c) == pat[m])
			m++;
		else
			m = tolower(c) == pat[0];
	}
	skip_to(w, ">");
}

/* Past the string pat. */
static void
skip_to(struct hwalk *w, const char *pat)
{
	size_t	m = 0;
	int	c;

	while (pat[m] != '\0' && (c = hget(w)) != -1) {
		if (c == pat[m])
			m++;
		else
			m = c == pat[0];
	}
}

/* The whole page, element by element to w->cb.  0, or -1. */
static int
walk(struct hwalk *w)
{
	int	c, d;

	w->buf = ofl_xmalloc(HTML_READ);
	w->line = 1;
	while (!w->stop && (c = hget(w)) != -1) {
		if (c != '<') {
			text_add(w, c);
			continue;
		}
		w->tagline = w->line;
		if ((d = hget(w)) == -1)
			break;
		if (d == '!') {
			if ((c = hget(w)) == '-' && (d = hget(w)) == '-')
				skip_to(w, "-->");
			else
				skip_to(w, ">");
			continue;
		}
		if (d == '?') {
			skip_to(w, ">");
			continue;
		}
		if (d == '/') {
			read_tag(w);
			end_tag(w);
			continue;
		}
		if (!isalpha(d)) {
			text_add(w, '<');
			hunget(w);
			continue;
		}
		hunget(w);
		read_tag(w);
		if (strcmp(w->tag, "script") == 0)
			skip_raw(w, "</script");
		else if (strcmp(w->tag, "style") == 0)
			skip_raw(w, "</style");
		else {
			start_tag(w);
			/* A text area's text is its value, not a name. */
			if (strcmp(w->tag, "textarea") == 0)
				skip_raw(w, "</textarea");
		}
	}
	if (w->intitle) {
		w->intitle = 0;
		w->title[w->titlen] = '\0';
		put(w->title, sizeof w->title, w->title, w->titlen);
	}
	flush_open(w, 0);
	free(w->buf);
	w->buf = NULL;
	return 0;
}

/*
 * The map.
 */

struct mapctx {
	struct ofl_fmt_map	*mp;
};

static int
map_cb(void *arg, const struct hel *e, const struct hwalk *w)
{
	struct mapctx		*m = arg;
	struct ofl_fmt_map_el	 me, fe;
	const struct hel	*f = NULL;
	size_t			 i;

	ofl_fmt_map_role(m->mp, e->role);
	if (strcmp(e->role, "heading") == 0) {
		ofl_fmt_map_heading(m->mp, e->level, e->name);
		return 0;
	}
	me.role = e->role;
	me.name = e->name;
	me.mark = e->mark;
	if (iscontainer(e->role) && (strcmp(e->role, "region") != 0 ||
	    e->name[0] != '\0')) {
		ofl_fmt_map_landmark(m->mp, &me);
		return 0;
	}
	if (!ofl_fmt_map_is_field(e->role) && strcmp(e->role, "hidden") != 0)
		return 0;
	for (i = w->nctx; i > 0; i--)
		if (strcmp(w->ctx[i - 1].role, "form") == 0 ||
		    strcmp(w->ctx[i - 1].role, "search") == 0) {
			f = &w->ctx[i - 1];
			break;
		}
	if (f != NULL) {
		fe.role = f->role;
		fe.name = f->name;
		fe.mark = f->mark;
	}
	ofl_fmt_map_field(m->mp, &me, f != NULL ? &fe : NULL,
	    f != NULL ? f->lineno : 0);
	return 0;
}

int
ofl_fmt_html_summary(const struct ofl_src *src, const struct ofl_meta *m,
    struct ofl_summary *sum)
{
	struct hwalk	*w;
	struct mapctx	 mc;

	(void)m;
	if (ofl_src_seek(src, 0) == -1)
		return -1;
	w = ofl_xcalloc(1, sizeof *w);
	w->src = src;
	mc.mp = ofl_fmt_map_new();
	w->cb = map_cb;
	w->arg = &mc;
	walk(w);
	ofl_fmt_map_text(mc.mp, w->title, w->url, sum);
	sum->filter = ofl_xstrdup(ofl_fmt_map_suggest(mc.mp));
	ofl_fmt_map_free(mc.mp);
	free(w);
	return 0;
}

/*
 * Elements by role and name.
 */

struct findctx {
	const char	*role;
	const char	*name;
	int		(*cb)(void *, const struct ofl_fmt_snapshot_match *);
	void		*arg;
	struct ofl_buf	 line;
	struct ofl_buf	 path;
};

static int
find_cb(void *arg, const struct hel *e, const struct hwalk *w)
{
	struct findctx	*f = arg;
	struct ofl_fmt_snapshot_match mt;
	size_t		 i, k;

	if (f->role != NULL && *f->role != '\0' &&
	    strcasecmp(f->role, e->role) != 0)
		return 0;
	if (f->name != NULL && *f->name != '\0') {
		k = strlen(f->name);
		for (i = 0; e->name[i] != '\0'; i++)
			if (strncasecmp(e->name + i, f->name, k) == 0)
				break;
		if (e->name[i] == '\0')
			return 0;
	}
	ofl_buf_reset(&f->line);
	ofl_fmt_map_label(&f->line, e->role, e->name, HTML_NAME);
	if (e->level > 0)
		ofl_buf_addf(&f->line, " level=%d", e->level);
	if (e->what[0] != '\0')
		ofl_buf_addf(&f->line, " %s", e->what);
	ofl_buf_reset(&f->path);
	for (i = 0; i < w->nctx; i++) {
		if (f->path.len > 0)
			ofl_buf_adds(&f->path, " > ");
		ofl_fmt_map_label(&f->path, w->ctx[i].role, w->ctx[i].name,
		    40);
	}
	if (w->head[0] != '\0' && strcmp(e->role, "heading") != 0) {
		if (f->path.len > 0)
			ofl_buf_adds(&f->path, " > ");
		ofl_fmt_map_label(&f->path, "heading", w->head, 40);
	}
	mt.lineno = e->lineno;
	mt.line = ofl_buf_str(&f->line);
	mt.len = f->line.len;
	mt.path = ofl_buf_str(&f->path);
	mt.pathlen = f->path.len;
	return f->cb(f->arg, &mt);
}

int
ofl_fmt_html_find(const struct ofl_src *src, const char *role,
    const char *name, int (*cb)(void *, const struct ofl_fmt_snapshot_match *),
    void *arg)
{
	struct hwalk	*w;
	struct findctx	 f;

	if (ofl_src_seek(src, 0) == -1)
		return -1;
	w = ofl_xcalloc(1, sizeof *w);
	w->src = src;
	memset(&f, 0, sizeof f);
	f.role = role;
	f.name = name;
	f.cb = cb;
	f.arg = arg;
	ofl_buf_init(&f.line);
	ofl_buf_init(&f.path);
	w->cb = find_cb;
	w->arg = &f;
	walk(w);
	ofl_buf_free(&f.line);
	ofl_buf_free(&f.path);
	free(w);
	return 0;
}
