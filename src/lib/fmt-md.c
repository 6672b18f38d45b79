/*
 * fmt-md.c: Markdown.  How it is told from other texts (ATX headings
 * backed by links, fences, lists or tables), how it is cut into chunks
 * (a section per heading, titled by the heading path) and what its notice
 * says (the outline).
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define MD_SPLIT	4096		/* split a section at a paragraph */
#define SCAN_LARGE	(256 * 1024)	/* the outline reads this much */
#define SUMMARY_MAX	300		/* bytes of one summary line */

#define HAS(p, n, s)	((n) >= sizeof(s) - 1 &&			\
			    memcmp((p), (s), sizeof(s) - 1) == 0)

struct md;

static int	 starts(const unsigned char *, size_t, const char *);
static int	 atx_heading(const unsigned char *, size_t);
static int	 fence_line(const unsigned char *, size_t);
static int	 list_item(const unsigned char *, size_t);
static size_t	 count_links(const unsigned char *, size_t);
static int	 yaml_key(const unsigned char *, size_t);
static int	 md_atx(const char *, size_t, const char **, size_t *);
static int	 md_fence(const char *, size_t, size_t *);
static int	 md_fence_close(const struct md *, const char *, size_t);
static int	 md_setext(const char *, size_t);
static int	 md_para_line(const char *, size_t);
static int	 md_emit(struct ofl_chunker *, struct md *);
static void	 md_heading(struct md *, int, const char *, size_t);

/*
 * Detection.  kind.c makes one pass over the lines of the first bytes
 * and hands each to ofl_fmt_md_line(); ofl_fmt_md_detect() decides.
 */

static int
starts(const unsigned char *p, size_t n, const char *s)
{
	size_t	l = strlen(s);

	return n >= l && memcmp(p, s, l) == 0;
}

/* Is this an ATX heading: up to 3 spaces, 1-6 '#', a space or the end? */
static int
atx_heading(const unsigned char *p, size_t n)
{
	size_t	i = 0, h;

	while (i < n && i < 3 && p[i] == ' ')
		i++;
	for (h = 0; i < n && p[i] == '#'; i++)
		h++;
	if (h < 1 || h > 6)
		return 0;
	return i == n || p[i] == ' ' || p[i] == '\t';
}

/* Is this a code fence: up to 3 spaces, then ``` or ~~~? */
static int
fence_line(const unsigned char *p, size_t n)
{
	size_t	i = 0;

	while (i < n && i < 3 && p[i] == ' ')
		i++;
	return starts(p + i, n - i, "```") || starts(p + i, n - i, "~~~");
}

static int
list_item(const unsigned char *p, size_t n)
{
	size_t	i = 0, d;

	while (i < n && i < 8 && p[i] == ' ')
		i++;
	if (i + 2 < n && (p[i] == '-' || p[i] == '*' || p[i] == '+') &&
	    p[i + 1] == ' ' && p[i + 2] != ' ')
		return 1;
	for (d = i; d < n && d - i < 3 && p[d] >= '0' && p[d] <= '9'; d++)
		;
	return d > i && d + 2 < n && (p[d] == '.' || p[d] == ')') &&
	    p[d + 1] == ' ' && p[d + 2] != ' ';
}

static size_t
count_links(const unsigned char *p, size_t n)
{
	size_t	i, c = 0;

	for (i = 0; i + 1 < n; i++) {
		if (p[i] == ']' && p[i + 1] == '(')
			c++;
	}
	/* Reference definitions: "[label]: http...". */
	if (n > 4 && p[0] == '[') {
		const unsigned char *q = memchr(p, ']', n);

		if (q != NULL && (size_t)(q - p) + 2 < n && q[1] == ':' &&
		    q[2] == ' ')
			c++;
	}
	return c;
}

static int
yaml_key(const unsigned char *p, size_t n)
{
	size_t	i = 0, s;

	while (i < n && p[i] == ' ')
		i++;
	if (i + 1 < n && p[i] == '-' && p[i + 1] == ' ')
		i += 2;
	for (s = i; i < n && ((p[i] >= 'a' && p[i] <= 'z') ||
	    (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') ||
	    p[i] == '_' || p[i] == '-' || p[i] == '.'); i++)
		;
	return i > s && i < n && p[i] == ':' && (i + 1 == n ||
	    p[i + 1] == ' ');
}

void
ofl_fmt_md_lines_init(struct ofl_fmt_md_lines *md)
{
	memset(md, 0, sizeof *md);
	md->prevblank = 1;
}

void
ofl_fmt_md_blank(struct ofl_fmt_md_lines *md)
{
	md->prevblank = 1;
}

int
ofl_fmt_md_heading(int *infence, const unsigned char *p, size_t n)
{
	if (fence_line(p, n)) {
		*infence = !*infence;
		return 0;
	}
	return !*infence && atx_heading(p, n);
}

int
ofl_fmt_md_line(struct ofl_fmt_md_lines *md, const unsigned char *p,
    size_t n, int first)
{
	int	out = 0;

	if (fence_line(p, n)) {
		md->fences++;
		md->infence = !md->infence;
	} else if (!md->infence) {
		if (atx_heading(p, n) && (md->prevblank || first))
			md->headings++;
		if (list_item(p, n))
			md->lists++;
		if (n > 0 && p[0] == '|' && (memmem(p, n, "|---", 4) ||
		    memmem(p, n, "| ---", 5) ||
		    memmem(p, n, "|:--", 4)))
			md->tablesep++;
		md->links += count_links(p, n);
		if (yaml_key(p, n))
			md->yamlkeys++;
		out = 1;
	}
	md->prevblank = 0;
	return out;
}

/*
 * ATX headings backed by something else Markdown has (links, fences,
 * lists, tables), or links and lists in quantity.  Comments in scripts
 * and YAML look like headings, so a heading alone is not enough.
 */
int
ofl_fmt_md_detect(const struct ofl_fmt_md_lines *md, size_t nonblank)
{
	if (md->headings > 0 && (md->links > 0 || md->fences >= 2 ||
	    md->tablesep > 0 || md->lists >= 2) &&
	    !(md->yamlkeys * 3 > nonblank && md->links == 0 &&
	    md->fences == 0))
		return 1;
	return md->headings == 0 && md->links >= 3 && (md->lists >= 3 ||
	    md->fences >= 2);
}

/*
 * Chunking.
 */

/*
 * Markdown: a chunk per section, from its heading to the next, titled by
 * the heading path.  ATX headings ("## Title") and setext headings
 * ("Title" over "===" or "---") count; nothing inside a fenced code block
 * or a front matter does.  A long section is cut at a paragraph; if no
 * paragraph is in sight (no blank line in the last MD_SPLIT / 2 bytes) at
 * a line that starts an item (indented by 4 at most: a list item, an
 * option); past 2 * MD_SPLIT at any line; never inside a fence (below
 * OFL_CHUNK_HARD_MAX).
 */

struct md {
	struct ofl_chunk_win	 w;
	struct ofl_chunk_heads	 h;
	struct ofl_buf	 title;
	struct ofl_buf	 tmp;
	int		 fence;		/* '`' or '~' inside a fence */
	size_t		 fencelen;
	int		 front;		/* inside a front matter */
	int		 prevblank;
	int		 prevbreak;	/* last line ended a paragraph */
	int		 prevpara;	/* last line may be a setext heading */
	size_t		 blankat;	/* part's size at its last blank line */
};

#define MD_NOBLANK	((size_t)-1)
#define MD_FRONT_MAX	200	/* an unclosed front matter ends here */

/* An ATX heading: its level, and its text in *tp, *tn. */
static int
md_atx(const char *p, size_t n, const char **tp, size_t *tn)
{
	size_t	i = 0, lv = 0, e, k;

	n = ofl_chunk_body_len(p, n);
	while (i < n && i < 3 && p[i] == ' ')
		i++;
	while (i < n && p[i] == '#' && lv < 7) {
		i++;
		lv++;
	}
	if (lv == 0 || lv > 6 || (i < n && p[i] != ' ' && p[i] != '\t'))
		return 0;
	i += ofl_chunk_ws_len(p + i, n - i);
	e = n;
	while (e > i && (p[e - 1] == ' ' || p[e - 1] == '\t'))
		e--;
	for (k = e; k > i && p[k - 1] == '#'; k--)
		;
	if (k < e && (k == i || p[k - 1] == ' ' || p[k - 1] == '\t')) {
		e = k;
		while (e > i && (p[e - 1] == ' ' || p[e - 1] == '\t'))
			e--;
	}
	*tp = p + i;
	*tn = e - i;
	return (int)lv;
}

/* A fence line: its character and length, or 0. */
static int
md_fence(const char *p, size_t n, size_t *len)
{
	size_t	i = 0, k;
	char	c;

	n = ofl_chunk_body_len(p, n);
	while (i < n && i < 3 && p[i] == ' ')
		i++;
	if (i >= n || (p[i] != '`' && p[i] != '~'))
		return 0;
	c = p[i];
	for (k = i; k < n && p[k] == c; k++)
		;
	if (k - i < 3)
		return 0;
	if (c == '`' && memchr(p + k, '`', n - k) != NULL)
		return 0;
	*len = k - i;
	return c;
}

static int
md_fence_close(const struct md *m, const char *p, size_t n)
{
	size_t	i = 0, k;

	n = ofl_chunk_body_len(p, n);
	while (i < n && i < 3 && p[i] == ' ')
		i++;
	for (k = i; k < n && p[k] == m->fence; k++)
		;
	return k - i >= m->fencelen && ofl_chunk_ws_len(p + k, n - k) == n - k;
}

/* A setext underline: 1 for "===", 2 for "---", else 0. */
static int
md_setext(const char *p, size_t n)
{
	size_t	i = 0, k;
	char	c;

	n = ofl_chunk_body_len(p, n);
	while (i < n && i < 3 && p[i] == ' ')
		i++;
	if (i >= n || (p[i] != '=' && p[i] != '-'))
		return 0;
	c = p[i];
	for (k = i; k < n && p[k] == c; k++)
		;
	if (ofl_chunk_ws_len(p + k, n - k) != n - k || (c == '-' && k - i < 2))
		return 0;
	return c == '=' ? 1 : 2;
}

/* Could this line be the text of a setext heading? */
static int
md_para_line(const char *p, size_t n)
{
	size_t	i;

	n = ofl_chunk_body_len(p, n);
	i = ofl_chunk_ws_len(p, n);
	if (i >= n || i > 3 || n > OFL_CHUNK_TITLE_MAX)
		return 0;
	p += i;
	n -= i;
	if (ofl_in_set(p[0], ">|<#"))
		return 0;
	if (n >= 2 && ofl_in_set(p[0], "-*+") && (p[1] == ' ' ||
	    p[1] == '\t'))
		return 0;
	for (i = 0; i < n && p[i] >= '0' && p[i] <= '9'; i++)
		;
	return !(i > 0 && i + 1 < n && (p[i] == '.' || p[i] == ')') &&
	    p[i + 1] == ' ');
}

static int
md_emit(struct ofl_chunker *ck, struct md *m)
{
	m->blankat = MD_NOBLANK;
	return ofl_chunk_win_emit(ck, &m->w, m->title.data, m->title.len);
}

static void
md_heading(struct md *m, int level, const char *p, size_t n)
{
	ofl_chunk_heads_set(&m->h, level, p, n);
	ofl_chunk_heads_path(&m->h, &m->title);
}

int
ofl_fmt_md_chunk(struct ofl_chunker *ck, struct ofl_chunk_in *s)
{
	struct ofl_chunk_lines	 it;
	struct ofl_chunk_line	 l, pl;
	struct md	 m;
	const char	*tp;
	size_t		 tn, raw, flen;
	int		 r, lv, blank, rv = 0;

	ofl_chunk_lines_init(&it, s, 0, 1, 0);
	memset(&m, 0, sizeof m);
	ofl_chunk_win_init(&m.w);
	ofl_buf_init(&m.title);
	ofl_buf_init(&m.tmp);
	m.prevbreak = 1;
	m.blankat = MD_NOBLANK;
	while ((r = ofl_chunk_lines_next(&it, &l)) == 1) {
		raw = ofl_chunk_win_raw(&m.w);
		if (!l.first || m.front || m.fence) {
			if (m.w.nlines > 0 &&
			    raw + l.len > OFL_CHUNK_HARD_MAX &&
			    md_emit(ck, &m))
				goto stop;
			ofl_chunk_win_add(&m.w, &l);
			if (!l.first)
				continue;
			if (m.front && l.lineno > 1 &&
			    (md_setext(l.p, l.len) == 2 ||
			    HAS(l.p, ofl_chunk_body_len(l.p, l.len), "...") ||
			    l.lineno > MD_FRONT_MAX))
				m.front = 0;
			else if (m.fence && md_fence_close(&m, l.p, l.len))
				m.fence = 0;
			m.prevblank = m.prevbreak = 1;
			m.prevpara = 0;
			continue;
		}
		blank = ofl_chunk_blank(l.p, l.len);
		if (l.lineno == 1 && l.off == 0 &&
		    ofl_chunk_body_len(l.p, l.len) == 3 &&
		    HAS(l.p, l.len, "---")) {
			m.front = 1;
			ofl_chunk_win_add(&m.w, &l);
			continue;
		}
		if ((lv = md_atx(l.p, l.len, &tp, &tn)) > 0) {
			if (md_emit(ck, &m))
				goto stop;
			md_heading(&m, lv, tp, tn);
			ofl_chunk_win_add(&m.w, &l);
			m.prevblank = 0;
			m.prevbreak = 1;
			m.prevpara = 0;
			continue;
		}
		if (m.prevpara && m.w.nlines > 0 &&
		    (lv = md_setext(l.p, l.len)) > 0) {
			/* The last line was a heading: take it back. */
			ofl_buf_reset(&m.tmp);
			ofl_buf_add(&m.tmp, m.w.text.data + m.w.last,
			    m.w.text.len - m.w.last);
			pl.p = m.tmp.data;
			pl.len = m.tmp.len;
			pl.off = m.w.bstart + (m.w.last - m.w.hdr);
			pl.lineno = m.w.lend;
			pl.first = pl.eol = 1;
			m.w.text.len = m.w.last;
			m.w.lend = m.w.prevlend;
			if (--m.w.nlines > 0 && md_emit(ck, &m))
				goto stop;
			m.w.nlines = 0;
			m.w.text.len = m.w.hdr;
			tn = ofl_chunk_body_len(pl.p, pl.len);
			tp = pl.p + ofl_chunk_ws_len(pl.p, tn);
			tn -= (size_t)(tp - pl.p);
			while (tn > 0 && (tp[tn - 1] == ' ' ||
			    tp[tn - 1] == '\t'))
				tn--;
			md_heading(&m, lv, tp, tn);
			ofl_chunk_win_add(&m.w, &pl);
			ofl_chunk_win_add(&m.w, &l);
			m.prevblank = 0;
			m.prevbreak = 1;
			m.prevpara = 0;
			continue;
		}
		if (m.w.nlines > 0 && ((m.prevblank && !blank &&
		    raw >= MD_SPLIT / 2 && raw + l.len > MD_SPLIT) ||
		    (!blank && raw + l.len > MD_SPLIT &&
		    ofl_chunk_ws_len(l.p, l.len) <= 4 &&
		    (m.blankat == MD_NOBLANK ||
		    raw - m.blankat > MD_SPLIT / 2)) ||
		    raw + l.len > 2 * MD_SPLIT)) {
			if (md_emit(ck, &m))
				goto stop;
		}
		if ((m.fence = md_fence(l.p, l.len, &flen)) != 0)
			m.fencelen = flen;
		ofl_chunk_win_add(&m.w, &l);
		if (blank)
			m.blankat = ofl_chunk_win_raw(&m.w);
		m.prevpara = !m.fence && m.prevbreak && !blank &&
		    md_para_line(l.p, l.len);
		m.prevblank = blank;
		m.prevbreak = blank || m.fence;
	}
	if (r < 0)
		rv = -1;
	else if (md_emit(ck, &m))
		rv = 1;
	goto out;
stop:
	rv = 1;
out:
	ofl_buf_free(&m.tmp);
	ofl_buf_free(&m.title);
	ofl_chunk_win_free(&m.w);
	ofl_chunk_lines_free(&it);
	return rv;
}

/*
 * The summary.
 */

/*
 * Markdown: the outline from the first 256 KiB, outside code fences.
 * When all headings do not fit, only the upper levels are shown, so the
 * line reads as a table of contents: "# A | ## B | # C (+40 more)".
 */
struct heading {
	int	level;
	size_t	off;		/* in the texts buffer */
	size_t	len;
};

int
ofl_fmt_md_summary(const struct ofl_src *src, const struct ofl_meta *m,
    struct ofl_summary *sum)
{
	unsigned char	*buf;
	const unsigned char *p, *nl, *end;
	struct ofl_buf	 texts, js;
	struct heading	*hd = NULL;
	size_t		 len, n, i, h, k, used, nhd = 0, cap = 0, total = 0;
	size_t		 fence = 0, size, budget, shown = 0;
	unsigned char	 fch = 0;
	int		 lvl, minlvl = 7, top;

	(void)m;
	if ((buf = ofl_src_head(src, SCAN_LARGE, &len)) == NULL)
		return -1;
	ofl_buf_init(&texts);
	ofl_buf_init(&js);
	end = buf + len;
	for (p = buf; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL) {
			if (len < ofl_src_bytes(src))
				break;	/* a partial line */
			nl = end;
		}
		n = nl - p;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		for (i = 0; i < n && i < 3 && p[i] == ' '; i++)
			;
		/*
		 * Fences: ``` or ~~~; closed by the same character, at least
		 * as many times, and nothing else on the line.
		 */
		if (i + 3 <= n && (p[i] == '`' || p[i] == '~') &&
		    p[i + 1] == p[i] && p[i + 2] == p[i]) {
			for (h = i; h < n && p[h] == p[i]; h++)
				;
			if (fence == 0) {
				fence = h - i;
				fch = p[i];
			} else if (p[i] == fch && h - i >= fence &&
			    ofl_blank(p + h, n - h))
				fence = 0;
			continue;
		}
		if (fence > 0)
			continue;
		for (h = 0; i < n && p[i] == '#'; i++)
			h++;
		if (h < 1 || h > 6 || (i < n && p[i] != ' ' && p[i] != '\t'))
			continue;
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		/* Drop a closing sequence of '#'. */
		while (n > i && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		for (k = n; k > i && p[k - 1] == '#'; k--)
			;
		if (k < n && (k == i || p[k - 1] == ' ' || p[k - 1] == '\t')) {
			n = k;
			while (n > i && (p[n - 1] == ' ' || p[n - 1] == '\t'))
				n--;
		}
		total++;
		if (nhd == 4096)
			continue;
		if (nhd == cap) {
			cap = cap ? cap * 2 : 64;
			hd = ofl_xrealloc(hd, cap * sizeof *hd);
		}
		hd[nhd].level = (int)h;
		hd[nhd].off = texts.len;
		for (k = 0; k < h; k++)
			ofl_buf_addc(&texts, '#');
		ofl_buf_addc(&texts, ' ');
		ofl_render(&texts, p + i, n - i, 48, OFL_RENDER_ONELINE, &used);
		if (used < n - i)
			ofl_buf_adds(&texts, "...");
		hd[nhd].len = texts.len - hd[nhd].off;
		if ((int)h < minlvl)
			minlvl = (int)h;
		nhd++;
	}
	free(buf);
	if (nhd == 0)
		goto out;

	/* The deepest level at which the outline still fits. */
	budget = SUMMARY_MAX - 30;
	top = minlvl;
	for (lvl = 6; lvl > minlvl; lvl--) {
		for (size = 0, i = 0; i < nhd; i++) {
			if (hd[i].level <= lvl)
				size += hd[i].len + 3;
		}
		if (size <= budget) {
			top = lvl;
			break;
		}
	}
	ofl_buf_adds(&sum->text, "headings: ");
	for (size = 0, i = 0; i < nhd; i++) {
		if (hd[i].level > top)
			continue;
		if (shown > 0 && size + hd[i].len + 3 > budget)
			break;
		if (shown > 0)
			ofl_buf_adds(&sum->text, " | ");
		ofl_buf_add(&sum->text, texts.data + hd[i].off, hd[i].len);
		ofl_buf_adds(&js, shown > 0 ? "," : "[");
		ofl_buf_add_json_str(&js, texts.data + hd[i].off, hd[i].len);
		size += hd[i].len + 3;
		shown++;
	}
	if (total > shown) {
		ofl_buf_adds(&sum->text, " (+");
		ofl_buf_add_count(&sum->text, total - shown);
		ofl_buf_adds(&sum->text, " more)");
	}
	ofl_buf_addc(&sum->text, '\n');
	ofl_buf_addc(&js, ']');
	ofl_summary_key(sum, "headings");
	ofl_buf_add(&sum->json, js.data, js.len);
	ofl_summary_key(sum, "headings_total");
	ofl_buf_addf(&sum->json, "%zu", total);
out:
	free(hd);
	ofl_buf_free(&texts);
	ofl_buf_free(&js);
	return 0;
}
