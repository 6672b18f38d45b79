/*
 * chunk.c: split an artifact into the units a reader needs, by kind, for
 * the full-text index.
 *
 * Every chunker streams: it reads through a source (the artifact's reader
 * or an archive member) and keeps no more than a window of a few
 * kilobytes, or OFL_CHUNK_HARD_MAX bytes at worst, before it calls back
 * with each chunk in order.  Ranges are exact: [byte_start, byte_end) are
 * the raw bytes a chunk stands for, and line_start and line_end are the
 * 1-based lines that hold its first and its last byte.  A line ends with "\n",
 * so a CRLF line is one line and a bare CR is no break, as the store
 * counts them.  Only a line longer than 64 KiB can be shared by two
 * chunks (it is cut into pieces); otherwise the chunks of a line-based
 * kind cover the artifact without gaps or overlaps.
 *
 * Titles, by kind:
 *	markdown	heading path, "Install > From source > Debian"
 *	html		heading path; before the first heading, <title>
 *	snapshot	the named and landmark ancestors of the chunk's first
 *			element, the heading before it, its parent's ref:
 *			"main > heading "OPTIONS" > list [ref=e40]"
 *	json		a jq filter: ".items[17].status"; ".items[3:8]" for
 *			elements 3 to 7 (a slice, the end excluded); or
 *			".metadata | {name, namespace}" for a group of
 *			members of one object ("to_entries[i:j]" when the
 *			keys would make it too long)
 *	ndjson		"line 12" or "lines 12-15"
 *	csv, tsv	"rows 1-40": data rows, the header being row 0; the
 *			text starts with the header line, the ranges do not
 *	diff		"path/to/file @@ -12,7 +12,9 @@ func name"
 *	log, text	the headline of the first stack trace, traceback or
 *			panic in the window ("ValueError: bad input"),
 *			timestamps stripped; empty when there is none.
 *			Titles weigh more than bodies in ranking: the first
 *			line of an arbitrary window would only add noise,
 *			while a crash's own message is what people look for.
 *	binary, empty	no chunks: strings of a binary are noise, and line
 *			numbers mean nothing there.
 * A part of a section or hunk too long for one chunk keeps its title.
 *
 * Archives and compressed streams are read with libarchive, straight from
 * the reader (nothing touches the disk); each regular member is chunked by
 * its own kind, with ranges relative to the member and chunk.member set
 * to its path (for a single compressed stream, the name its header keeps,
 * else "data", as libarchive names it; "outer.tar/inner.log" one level
 * down).  The decompressed total and the number of members are capped
 * against decompression bombs: hitting a cap is an error.  A damaged or
 * truncated archive is not: what could be read is chunked.
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "ofl.h"
#include "chunk.h"
#include "banned.h"

#define HEAD_SIZE	(64 * 1024)	/* what kind detection sees */

#define TEXT_LINES	40		/* a log or text window: lines */
#define SOFT_MAX	(16 * 1024)	/* split a block only at a sub-block */
#define DIFF_SPLIT	8192		/* split a hunk at a line */
#define HTML_SPLIT	4096
#define ARCHIVE_DEPTH	2		/* archives inside archives */

#define ARCHIVE_MAX_BYTES	OFL_ARCHIVE_MAX
#define ARCHIVE_MAX_MEMBERS	100000



struct logst;
struct diff;
struct html;

static uint64_t	chunk_max_bytes = ARCHIVE_MAX_BYTES;
static uint64_t	chunk_max_members = ARCHIVE_MAX_MEMBERS;

static ssize_t	 src_read(void *, void *, size_t);
static ssize_t	 in_read(void *, void *, size_t);
static int	 chunk_html(struct ofl_chunker *, struct ofl_chunk_in *);
static int	 chunk_archive(struct ofl_chunker *, struct ofl_chunk_in *,
		    const struct ofl_src *);
static int	 chunk_src(struct ofl_chunker *, struct ofl_chunk_in *, int,
		    const struct ofl_src *);
static void	 html_char(struct html *, int);
static size_t	 utf8_put(char *, unsigned);
static void	 html_cp(struct html *, unsigned);
static long	 html_entity_cp(const char *);
static int	 html_entity(struct html *);
static void	 html_block(struct html *);
static int	 html_part(struct html *, uint64_t, uint64_t, uint64_t);
static int	 html_isblock(const char *);
static int	 html_tag(struct html *);
static int	 html_byte(struct html *, int);
static ssize_t	 member_read(void *, void *, size_t);
static int	 chunk_member(struct ofl_chunker *, struct ofl_arc *,
		    const char *);

/*
 * Sources.
 */

/* The artifact, read through its source. */
static ssize_t
src_read(void *arg, void *buf, size_t n)
{
	return ofl_src_read(arg, buf, n);
}

/* A source read as a struct ofl_src (a member: a stream). */
static ssize_t
in_read(void *arg, void *buf, size_t n)
{
	return ofl_chunk_in_read(arg, buf, n);
}

/*
 * HTML: the text (no tags, no script or style, entities decoded) of each
 * heading section, titled by the heading path, with the byte and line
 * range of its source.  A section with more than HTML_SPLIT bytes of text
 * is cut at the next block element.  Sections without text are skipped.
 */

enum {
	H_TEXT, H_LT, H_TAGNAME, H_TAG, H_TAGQ, H_ENDNAME, H_ENDTAG,
	H_BANG, H_COMMENT, H_DECL, H_RAW, H_ENT
};

struct html {
	struct ofl_chunker	*ck;
	int		 st;
	char		 tag[16];
	size_t		 taglen;
	int		 end;		/* an end tag */
	int		 quote;
	int		 bang;
	int		 dashes;
	int		 raw;		/* 1 script or style, 2 title */
	const char	*rawpat;	/* "</script" */
	size_t		 rawm;
	char		 ent[16];
	size_t		 entlen;
	struct ofl_buf	 text;
	int		 sp;		/* a space is pending */
	int		 pre;		/* inside <pre>: newlines stay */
	uint64_t	 off;		/* of the current byte */
	uint64_t	 line;
	int		 lastnl;	/* the byte before was a newline */
	uint64_t	 soff;		/* the current part */
	uint64_t	 sline;
	uint64_t	 toff;		/* the current tag's '<' */
	uint64_t	 tline;
	uint64_t	 tprev;		/* line of the byte before it */
	int		 inh;		/* inside <hN> */
	int		 anyh;
	struct ofl_buf	 htext;
	struct ofl_chunk_heads	 h;
	struct ofl_buf	 title;
	struct ofl_buf	 doctitle;
};

static const char *const html_blocks[] = {
	"address", "article", "aside", "blockquote", "br", "caption", "dd",
	"details", "div", "dl", "dt", "fieldset", "figcaption", "figure",
	"footer", "form", "header", "hr", "li", "main", "nav", "ol", "p",
	"pre", "section", "summary", "table", "tbody", "td", "tfoot", "th",
	"thead", "tr", "ul", NULL
};

static const struct {
	const char	*name;
	unsigned	 cp;
} html_ents[] = {
	{ "amp", '&' }, { "lt", '<' }, { "gt", '>' }, { "quot", '"' },
	{ "apos", '\'' }, { "nbsp", ' ' }, { "copy", 0xa9 }, { "reg", 0xae },
	{ "trade", 0x2122 }, { "hellip", 0x2026 }, { "mdash", 0x2014 },
	{ "ndash", 0x2013 }, { "lsquo", 0x2018 }, { "rsquo", 0x2019 },
	{ "ldquo", 0x201c }, { "rdquo", 0x201d }, { "laquo", 0xab },
	{ "raquo", 0xbb }, { "bull", 0x2022 }, { "middot", 0xb7 },
	{ "times", 0xd7 }, { "divide", 0xf7 }, { "deg", 0xb0 },
	{ "plusmn", 0xb1 }, { "para", 0xb6 }, { "sect", 0xa7 },
	{ "euro", 0x20ac }, { "pound", 0xa3 }, { "yen", 0xa5 },
	{ "cent", 0xa2 }, { "larr", 0x2190 }, { "rarr", 0x2192 },
	{ "uarr", 0x2191 }, { "darr", 0x2193 }, { "le", 0x2264 },
	{ "ge", 0x2265 }, { "ne", 0x2260 }, { "minus", 0x2212 },
	{ "shy", 0 }, { "zwj", 0 }, { "zwnj", 0 }, { NULL, 0 }
};

/* Named entities of U+00C0 to U+00FF, in order. */
static const char *const html_latin1[64] = {
	"Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig",
	"Ccedil", "Egrave", "Eacute", "Ecirc", "Euml", "Igrave", "Iacute",
	"Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute", "Ocirc",
	"Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc",
	"Uuml", "Yacute", "THORN", "szlig", "agrave", "aacute", "acirc",
	"atilde", "auml", "aring", "aelig", "ccedil", "egrave", "eacute",
	"ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
	"ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash",
	"ugrave", "uacute", "ucirc", "uuml", "yacute", "thorn", "yuml"
};

static void
html_char(struct html *h, int c)
{
	if (c == '\n' && h->pre > 0 && !h->inh) {
		html_block(h);
		return;
	}
	if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
		h->sp = 1;
		return;
	}
	if (h->sp) {
		if (h->text.len > 0 && h->text.data[h->text.len - 1] != '\n')
			ofl_buf_addc(&h->text, ' ');
		if (h->inh && h->htext.len > 0)
			ofl_buf_addc(&h->htext, ' ');
		h->sp = 0;
	}
	ofl_buf_addc(&h->text, c);
	if (h->inh && h->htext.len < OFL_CHUNK_TITLE_MAX)
		ofl_buf_addc(&h->htext, c);
}

/* Encode cp as UTF-8 into u (4 bytes); returns the length. */
static size_t
utf8_put(char *u, unsigned cp)
{
	size_t	n, i;

	if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = 0xfffd;
	if (cp < 0x80) {
		u[0] = (char)cp;
		return 1;
	}
	n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	u[0] = (char)(n == 2 ? 0xc0 | cp >> 6 : n == 3 ? 0xe0 | cp >> 12 :
	    0xf0 | cp >> 18);
	for (i = 1; i < n; i++)
		u[i] = (char)(0x80 | ((cp >> (6 * (n - 1 - i))) & 0x3f));
	return n;
}

static void
html_cp(struct html *h, unsigned cp)
{
	char	u[4];
	size_t	n, i;

	n = utf8_put(u, cp);
	for (i = 0; i < n; i++)
		html_char(h, (unsigned char)u[i]);
}

/*
 * The code point of an entity's name ("amp", "#39", "#x27"): 0 for one
 * that stands for nothing (&shy;), -1 if unknown.
 */
static long
html_entity_cp(const char *e)
{
	unsigned long	 cp;
	char		*end;
	size_t		 i;

	if (e[0] == '#') {
		if (e[1] == 'x' || e[1] == 'X')
			cp = strtoul(e + 2, &end, 16);
		else
			cp = strtoul(e + 1, &end, 10);
		if (*end != '\0' || end == e + 1 || end == e + 2)
			return -1;
		return cp > 0x10ffff || cp == 0 ? 0xfffd : (long)cp;
	}
	for (i = 0; html_ents[i].name != NULL; i++)
		if (strcmp(html_ents[i].name, e) == 0)
			return (long)html_ents[i].cp;
	for (i = 0; i < 64; i++)
		if (strcmp(html_latin1[i], e) == 0)
			return 0xc0 + (long)i;
	return -1;
}

/* Decode the entity in h->ent into the text: 0 if unknown. */
static int
html_entity(struct html *h)
{
	long	cp;

	h->ent[h->entlen] = '\0';
	if ((cp = html_entity_cp(h->ent)) < 0)
		return 0;
	if (cp > 0)
		html_cp(h, (unsigned)cp);
	return 1;
}

/* Decode the character references of an HTML text, in place. */
void
ofl_chunk_html_unescape(struct ofl_buf *b)
{
	char	 e[16];
	size_t	 i, j, k, o = 0;
	long	 cp;

	for (i = 0; i < b->len; i++) {
		if (b->data[i] == '&') {
			for (j = i + 1, k = 0; j < b->len && k < sizeof e - 1 &&
			    b->data[j] != ';'; j++)
				e[k++] = b->data[j];
			e[k] = '\0';
			if (j < b->len && b->data[j] == ';' && k > 0 &&
			    (cp = html_entity_cp(e)) >= 0) {
				/* UTF-8 is never longer than "&...;". */
				if (cp > 0)
					o += utf8_put(b->data + o,
					    (unsigned)cp);
				i = j;
				continue;
			}
		}
		b->data[o++] = b->data[i];
	}
	b->len = o;
}

static void
html_block(struct html *h)
{
	if (h->text.len > 0 && h->text.data[h->text.len - 1] != '\n')
		ofl_buf_addc(&h->text, '\n');
	h->sp = 0;
}

/* End the current part before offset off (whose line is line). */
static int
html_part(struct html *h, uint64_t off, uint64_t lend, uint64_t line)
{
	const char	*t;
	size_t		 tn, i;
	int		 rv = 0;

	for (i = 0; i < h->text.len; i++)
		if (h->text.data[i] != '\n' && h->text.data[i] != ' ')
			break;
	while (h->text.len > 0 && (h->text.data[h->text.len - 1] == '\n' ||
	    h->text.data[h->text.len - 1] == ' '))
		h->text.len--;
	if (i < h->text.len && off > h->soff) {
		if (h->anyh) {
			t = h->title.data;
			tn = h->title.len;
		} else {
			t = ofl_buf_str(&h->doctitle);
			tn = h->doctitle.len;
		}
		rv = ofl_chunk_emit(h->ck, t, tn, h->text.data, h->text.len,
		    h->soff, off, h->sline, lend);
	}
	ofl_buf_reset(&h->text);
	h->sp = 0;
	h->soff = off;
	h->sline = line;
	return rv;
}

static int
html_isblock(const char *t)
{
	size_t	i;

	for (i = 0; html_blocks[i] != NULL; i++)
		if (strcmp(html_blocks[i], t) == 0)
			return 1;
	return 0;
}

/* A whole tag was read: h->tag, h->end. */
static int
html_tag(struct html *h)
{
	const char	*t = h->tag;
	int		 lv = 0;

	h->st = H_TEXT;
	if (h->taglen == 0 || h->taglen >= sizeof h->tag)
		return 0;
	if (t[0] == 'h' && t[1] >= '1' && t[1] <= '6' && t[2] == '\0')
		lv = t[1] - '0';
	if (!h->end && (strcmp(t, "script") == 0 || strcmp(t, "style") == 0 ||
	    strcmp(t, "title") == 0)) {
		h->st = H_RAW;
		h->raw = t[1] == 'i' ? 2 : 1;
		h->rawpat = t[1] == 'c' ? "</script" : t[1] == 't' ? "</style" :
		    "</title";
		h->rawm = 0;
		if (h->raw == 2)
			ofl_buf_reset(&h->doctitle);
		return 0;
	}
	if (lv > 0 && !h->end) {
		if (html_part(h, h->toff, h->tprev, h->tline))
			return 1;
		h->inh = lv;
		ofl_buf_reset(&h->htext);
		return 0;
	}
	if (lv > 0 && h->end && h->inh) {
		ofl_chunk_heads_set(&h->h, h->inh, h->htext.data != NULL ?
		    h->htext.data : "", h->htext.len);
		ofl_chunk_heads_path(&h->h, &h->title);
		h->inh = 0;
		h->anyh = 1;
		html_block(h);
		return 0;
	}
	if (strcmp(t, "pre") == 0) {
		if (!h->end)
			h->pre++;
		else if (h->pre > 0)
			h->pre--;
	}
	if (html_isblock(t)) {
		if (!h->inh && h->text.len >= HTML_SPLIT &&
		    html_part(h, h->toff, h->tprev, h->tline))
			return 1;
		html_block(h);
	}
	return 0;
}

static int
html_byte(struct html *h, int c)
{
	size_t	i;
	int	lc = c >= 'A' && c <= 'Z' ? c + 32 : c;

again:
	switch (h->st) {
	case H_TEXT:
		if (c == '<') {
			h->st = H_LT;
			h->toff = h->off;
			h->tline = h->line;
			h->tprev = h->lastnl ? h->line - 1 : h->line;
		} else if (c == '&') {
			h->st = H_ENT;
			h->entlen = 0;
		} else {
			/* Long text: cut at a space, or anywhere at last. */
			if ((((c == ' ' || c == '\n') && !h->inh &&
			    h->text.len >= 4 * HTML_SPLIT) ||
			    (h->text.len >= OFL_CHUNK_HARD_MAX &&
			    (c & 0xc0) != 0x80)) &&
			    html_part(h, h->off, h->lastnl ? h->line - 1 :
			    h->line, h->line))
				return 1;
			html_char(h, c);
		}
		break;
	case H_LT:
		h->taglen = 0;
		h->end = 0;
		if ((lc >= 'a' && lc <= 'z')) {
			h->st = H_TAGNAME;
			h->tag[h->taglen++] = (char)lc;
		} else if (c == '/') {
			h->st = H_ENDNAME;
			h->end = 1;
		} else if (c == '!') {
			h->st = H_BANG;
			h->bang = 0;
		} else if (c == '?') {
			h->st = H_DECL;
		} else {
			h->st = H_TEXT;
			html_char(h, '<');
			goto again;
		}
		break;
	case H_TAGNAME:
	case H_ENDNAME:
		if ((lc >= 'a' && lc <= 'z') || (lc >= '0' && lc <= '9') ||
		    lc == '-' || lc == ':') {
			if (h->taglen < sizeof h->tag)
				h->tag[h->taglen++] = (char)lc;
			break;
		}
		if (h->taglen < sizeof h->tag)
			h->tag[h->taglen] = '\0';
		if (c == '>')
			return html_tag(h);
		h->st = h->st == H_TAGNAME ? H_TAG : H_ENDTAG;
		goto again;
	case H_TAG:
		if (c == '"' || c == '\'') {
			h->quote = c;
			h->st = H_TAGQ;
		} else if (c == '>')
			return html_tag(h);
		break;
	case H_TAGQ:
		if (c == h->quote)
			h->st = H_TAG;
		break;
	case H_ENDTAG:
		if (c == '>')
			return html_tag(h);
		break;
	case H_BANG:
		if (c == '-' && h->bang == 0)
			h->bang = 1;
		else if (c == '-' && h->bang == 1) {
			h->st = H_COMMENT;
			h->dashes = 0;
		} else if (c == '>')
			h->st = H_TEXT;
		else
			h->st = H_DECL;
		break;
	case H_COMMENT:
		if (c == '>' && h->dashes >= 2)
			h->st = H_TEXT;
		else if (c == '-')
			h->dashes++;
		else
			h->dashes = 0;
		break;
	case H_DECL:
		if (c == '>')
			h->st = H_TEXT;
		break;
	case H_RAW:
		if (lc == h->rawpat[h->rawm]) {
			if (h->rawpat[++h->rawm] == '\0') {
				if (h->raw == 2)
					ofl_chunk_html_unescape(&h->doctitle);
				memcpy(h->tag, h->rawpat + 2,
				    strlen(h->rawpat + 2) + 1);
				h->taglen = strlen(h->tag);
				h->end = 1;
				h->raw = 0;
				h->st = H_ENDTAG;
			}
			break;
		}
		if (h->raw == 2) {
			if (h->rawm > 0)
				ofl_buf_add(&h->doctitle, h->rawpat, h->rawm);
			if (c != '<' && h->doctitle.len < OFL_CHUNK_TITLE_MAX) {
				if (c == '\n' || c == '\r' || c == '\t')
					c = ' ';
				if (c != ' ' || (h->doctitle.len > 0 &&
				    h->doctitle.data[h->doctitle.len - 1] !=
				    ' '))
					ofl_buf_addc(&h->doctitle, c);
			}
		}
		h->rawm = c == '<' ? 1 : 0;
		break;
	case H_ENT:
		if (((lc >= 'a' && lc <= 'z') || (c >= '0' && c <= '9') ||
		    c == '#') && h->entlen < sizeof h->ent - 1) {
			h->ent[h->entlen++] = (char)c;
			break;
		}
		h->st = H_TEXT;
		if (c == ';' && h->entlen > 0 && html_entity(h))
			break;
		html_char(h, '&');
		for (i = 0; i < h->entlen; i++)
			html_char(h, (unsigned char)h->ent[i]);
		goto again;
	}
	return 0;
}

static int
chunk_html(struct ofl_chunker *ck, struct ofl_chunk_in *s)
{
	struct html	 h;
	char		*buf;
	ssize_t		 n, i;
	size_t		 k;
	int		 rv = 0;

	memset(&h, 0, sizeof h);
	h.ck = ck;
	h.line = h.sline = 1;
	ofl_buf_init(&h.text);
	ofl_buf_init(&h.htext);
	ofl_buf_init(&h.title);
	ofl_buf_init(&h.doctitle);
	buf = ofl_xmalloc(OFL_CHUNK_READ);
	for (;;) {
		if ((n = ofl_chunk_in_read(s, buf, OFL_CHUNK_READ)) < 0) {
			rv = -1;
			goto out;
		}
		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			if (html_byte(&h, (unsigned char)buf[i])) {
				rv = 1;
				goto out;
			}
			h.lastnl = buf[i] == '\n';
			if (h.lastnl)
				h.line++;
			h.off++;
		}
	}
	if (h.st == H_ENT) {
		html_char(&h, '&');
		for (k = 0; k < h.entlen; k++)
			html_char(&h, (unsigned char)h.ent[k]);
	}
	while (h.doctitle.len > 0 && h.doctitle.data[h.doctitle.len - 1] == ' ')
		h.doctitle.len--;
	if (html_part(&h, h.off, h.lastnl ? h.line - 1 : h.line, h.line))
		rv = 1;
out:
	free(buf);
	ofl_buf_free(&h.text);
	ofl_buf_free(&h.htext);
	ofl_buf_free(&h.title);
	ofl_buf_free(&h.doctitle);
	return rv;
}

/*
 * Archives and compressed streams.
 */

struct member {
	struct archive	*a;
	struct ofl_arc	*arc;
	struct ofl_chunker	*ck;
	const char	*name;
};

static ssize_t
member_read(void *arg, void *buf, size_t n)
{
	struct member	*m = arg;
	la_ssize_t	 r;
	const char	*e;

	if (m->ck->damaged)
		return 0;
	r = archive_read_data(m->a, buf, n);
	if (r < 0) {
		e = archive_error_string(m->a);
		ofl_seterr(OFL_EXIT_FAIL, "%s: %s", m->name,
		    e != NULL ? e : "cannot read the member");
		if (m->arc->ioerr)
			m->ck->ioerr = 1;
		if (m->ck->ioerr)
			return -1;
		/* Damaged: the member ends here, what came is chunked. */
		m->ck->damaged = 1;
		return 0;
	}
	m->ck->total += (uint64_t)r;
	if (m->ck->total > chunk_max_bytes) {
		m->ck->bomb = 1;
		ofl_seterr(OFL_EXIT_FAIL, "%s: archive expands to more than "
		    "%llu bytes: stopped (a decompression bomb?)", m->name,
		    (unsigned long long)chunk_max_bytes);
		return -1;
	}
	return r;
}

/* Chunk the member that a has just read the header of. */
static int
chunk_member(struct ofl_chunker *ck, struct ofl_arc *arc, const char *name)
{
	struct member	 m;
	struct ofl_chunk_in	 s;
	const char	*old;
	char		*head;
	size_t		 n = 0;
	ssize_t		 r;
	int		 kind, eof = 0, rv = 0;

	m.a = arc->a;
	m.arc = arc;
	m.ck = ck;
	m.name = name;
	head = ofl_xmalloc(HEAD_SIZE);
	while (n < HEAD_SIZE) {
		if ((r = member_read(&m, head + n, HEAD_SIZE - n)) < 0) {
			rv = -1;
			goto out;
		}
		if (r == 0) {
			eof = 1;
			break;
		}
		n += (size_t)r;
	}
	kind = n == 0 ? OFL_KIND_EMPTY :
	    (int)ofl_kind_detect((unsigned char *)head, n, eof);
	s.read = member_read;
	s.arg = &m;
	s.pre = head;
	s.prelen = n;
	old = ck->member;
	ck->member = name;
	rv = chunk_src(ck, &s, kind, NULL);
	ck->member = old;
	if (rv != 0)
		goto out;
	/* Read what the chunker left, so that the limits see it. */
	while ((r = member_read(&m, head, HEAD_SIZE)) > 0)
		;
	if (r < 0)
		rv = -1;
out:
	free(head);
	return rv;
}

static int
chunk_archive(struct ofl_chunker *ck, struct ofl_chunk_in *s,
    const struct ofl_src *top)
{
	struct archive		*a;
	struct archive_entry	*e;
	struct ofl_arc		 x;
	struct ofl_src		 os;
	struct ofl_buf		 name;
	const char		*p, *err;
	int			 ar, rv = 0;

	/* At the top the artifact is seekable; a member is a stream. */
	memset(&os, 0, sizeof os);
	if (top != NULL)
		os = *top;
	else {
		os.read = in_read;
		os.arg = s;
	}
	ofl_buf_init(&name);
	ck->depth++;
	if (ofl_arc_open(&x, &os, OFL_ARC_FILTERS_ALL |
	    (top != NULL ? OFL_ARC_SEEK : 0)) == -1) {
		if (x.ioerr)
			ck->ioerr = 1;
		if (x.a == NULL) {
			ck->bomb = 1;	/* no libarchive: not a damaged one */
			rv = -1;
			goto out;
		}
		goto fail;
	}
	a = x.a;
	for (;;) {
		ar = archive_read_next_header(a, &e);
		if (ar == ARCHIVE_EOF)
			break;
		if (ar != ARCHIVE_OK && ar != ARCHIVE_WARN)
			goto fail;
		if (++ck->members > chunk_max_members) {
			ck->bomb = 1;
			ofl_seterr(OFL_EXIT_FAIL, "archive has more than %llu "
			    "members: stopped", (unsigned long long)
			    chunk_max_members);
			rv = -1;
			goto out;
		}
		if (archive_entry_filetype(e) != AE_IFREG ||
		    archive_entry_is_encrypted(e))
			continue;
		if ((p = archive_entry_pathname_utf8(e)) == NULL &&
		    (p = archive_entry_pathname(e)) == NULL)
			p = "?";
		ofl_buf_reset(&name);
		if (ck->member != NULL) {
			ofl_buf_adds(&name, ck->member);
			ofl_buf_addc(&name, '/');
		}
		ofl_buf_adds(&name, p);
		if ((rv = chunk_member(ck, &x, ofl_buf_str(&name))) != 0)
			goto out;
		if (ck->damaged) {
			rv = -1;
			goto out;
		}
	}
	goto out;
fail:
	if (x.ioerr)
		ck->ioerr = 1;
	err = archive_error_string(x.a);
	ofl_seterr(OFL_EXIT_FAIL, "%s%s%s", ck->member != NULL ? ck->member :
	    "archive", ": ", err != NULL ? err : "cannot read");
	rv = -1;
out:
	ck->depth--;
	ofl_arc_close(&x);
	ofl_buf_free(&name);
	return rv;
}

/*
 * Dispatch.
 */

static int
chunk_src(struct ofl_chunker *ck, struct ofl_chunk_in *s, int kind,
    const struct ofl_src *top)
{
	switch (kind) {
	case OFL_KIND_MARKDOWN:
		return ofl_fmt_md_chunk(ck, s);
	case OFL_KIND_SNAPSHOT:
		return ofl_fmt_snapshot_chunk(ck, s);
	case OFL_KIND_JSON:
		return ofl_fmt_json_chunk(ck, s);
	case OFL_KIND_NDJSON:
		return ofl_fmt_json_chunk_nd(ck, s);
	case OFL_KIND_CSV:
		return ofl_fmt_csv_chunk(ck, s, ',', 0);
	case OFL_KIND_TSV:
		return ofl_fmt_csv_chunk(ck, s, '\t', 0);
	case OFL_KIND_TABLE:
		return ofl_fmt_table_chunk(ck, s, top);
	case OFL_KIND_HTML:
		return chunk_html(ck, s);
	case OFL_KIND_DIFF:
		return ofl_fmt_diff_chunk(ck, s);
	case OFL_KIND_ARCHIVE:
	case OFL_KIND_COMPRESSED:
		if (ck->depth >= ARCHIVE_DEPTH)
			return 0;
		return chunk_archive(ck, s, top);
	case OFL_KIND_BINARY:
	case OFL_KIND_EMPTY:
		return 0;
	case OFL_KIND_TEXT:
		return ofl_fmt_text_chunk_outline(ck, s);
	default:
		return ofl_fmt_text_chunk(ck, s, 0, 1, 0);
	}
}

int
ofl_chunk_is_bytes(int kind)
{
	switch (kind) {
	case OFL_KIND_TEXT:
	case OFL_KIND_LOG:
	case OFL_KIND_JSON:
	case OFL_KIND_NDJSON:
	case OFL_KIND_MARKDOWN:
	case OFL_KIND_DIFF:
		return 1;
	case OFL_KIND_CSV:
	case OFL_KIND_TSV:
		return 2;
	default:
		return 0;
	}
}

void
ofl_chunk_limits(uint64_t bytes, uint64_t members)
{
	chunk_max_bytes = bytes != 0 ? bytes : ARCHIVE_MAX_BYTES;
	chunk_max_members = members != 0 ? members : ARCHIVE_MAX_MEMBERS;
}

int
ofl_chunk_src(const struct ofl_src *src, int kind,
    int (*cb)(const struct ofl_chunk *, void *), void *arg)
{
	struct ofl_chunker		 ck;
	struct ofl_chunk_in		 s;
	int			 rv;

	if (kind < 0 || kind >= OFL_KIND_COUNT) {
		ofl_seterr(OFL_EXIT_USAGE, "unknown kind %d", kind);
		return -1;
	}
	if (ofl_src_seek(src, 0) == -1)
		return -1;
	memset(&ck, 0, sizeof ck);
	ck.cb = cb;
	ck.arg = arg;
	ck.text = ofl_fmt_text_chunk;
	memset(&s, 0, sizeof s);
	s.read = src_read;
	s.arg = (void *)src;
	rv = chunk_src(&ck, &s, kind, src);
	if (rv == 1)
		return ck.rv;
	if (rv < 0 && !ck.bomb && !ck.ioerr &&
	    (kind == OFL_KIND_ARCHIVE || kind == OFL_KIND_COMPRESSED)) {
		/*
		 * A truncated or damaged archive (a capture cut short, say):
		 * the members read so far are chunked, and that is that.
		 */
		ofl_clearerr();
		return 0;
	}
	return rv < 0 ? -1 : 0;
}
