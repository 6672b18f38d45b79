/*
 * fmt-table.c: whitespace-aligned tables, the output of kubectl get, docker
 * ps, ps aux, df, systemctl list-units, helm list.  How such a table is
 * told from other texts (a header of capitalized words over rows whose
 * cells line up with it), where its columns are (from the header and the
 * blanks that every row shares, so that cells with spaces in them and
 * right-aligned numbers stay whole), how a row is cut into cells, how it
 * is chunked (groups of rows after the header) and what its notice says
 * (the columns, and the count of each value of the columns that have
 * few).  The table is the lines from its header to the first blank line;
 * what follows (systemctl's legend) is not part of it, nor are a few
 * lines over the header (netstat's "Active Internet connections") or a
 * rule of dashes under it (pip list's).
 */
#include "config.h"

#include <sys/types.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "banned.h"

#define TABLE_SAMPLE	500		/* rows the layout is found from */
#define TABLE_HEAD	(64 * 1024)	/* bytes the layout is found from */
#define TABLE_LINE	(64 * 1024)	/* longer lines are cut */
#define TABLE_SCAN	(64ULL * 1024 * 1024) /* bytes the counts read */
#define TABLE_DISTINCT	24		/* values counted per column */
#define TABLE_VALUE	64		/* longest value counted */
#define TABLE_SUMMARY	900		/* bytes of the notice's lines */
#define TABLE_LINEMAX	240		/* bytes of one line of counts */
#define TABLE_PREAMBLE	8		/* lines over the header looked past */

/* One line of a table, its display columns found as it is walked. */
struct tline {
	const unsigned char	*p;
	size_t			 n;
};

/* What the summary counts of one column. */
struct tcol {
	char		*val[TABLE_DISTINCT];
	size_t		 vlen[TABLE_DISTINCT];
	uint64_t	 cnt[TABLE_DISTINCT];
	size_t		 nval;
	int		 many;		/* more values than counted */
	int		 numeric;	/* every non-empty cell a number */
	int		 integer;
	uint64_t	 filled;
};

static size_t	 next_line(const unsigned char *, size_t, size_t,
		    struct tline *);
static int	 rd_next(struct ofl_fmt_table_rd *, struct tline *);
static int	 header_ok(const unsigned char *, size_t);
static int	 bars(const unsigned char *, size_t);
static int	 rule_ok(const unsigned char *, size_t);
static size_t	 to_cols(const unsigned char *, size_t, unsigned char *,
		    size_t);

/* The line at off (without its newline or carriage return); the next. */
static size_t
next_line(const unsigned char *buf, size_t len, size_t off, struct tline *l)
{
	const unsigned char	*nl;
	size_t			 n, next;

	nl = memchr(buf + off, '\n', len - off);
	n = nl == NULL ? len - off : (size_t)(nl - (buf + off));
	next = nl == NULL ? len : off + n + 1;
	l->p = buf + off;
	while (n > 0 && l->p[n - 1] == '\r')
		n--;
	l->n = n;
	return next;
}

/* 1 if p[0..n) is all bars and slashes, dpkg -l's "||/". */
static int
bars(const unsigned char *p, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (p[i] != '|' && p[i] != '/')
			return 0;
	return 1;
}

/*
 * A header: two words or more, made of letters, digits and the marks
 * column names use (%CPU, 1K-blocks, APP VERSION, Use%), the first
 * starting with a capital; most start with a capital or a mark, none is
 * only digits, none ends in a colon.  "Mounted on" is df's.
 */
static int
header_ok(const unsigned char *p, size_t n)
{
	size_t	i = 0, words = 0, caps = 0, s;
	int	alpha;

	while (i < n) {
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (i >= n)
			break;
		s = i;
		alpha = 0;
		for (; i < n && p[i] != ' ' && p[i] != '\t'; i++) {
			unsigned char c = p[i];

			if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
				alpha = 1;
			else if (!(c >= '0' && c <= '9') &&
			    strchr("%_./:()#+-", c) == NULL &&
			    (c != '|' || words > 0))
				return 0;
		}
		/* dpkg -l's status column, "||/", first. */
		if (!alpha && words == 0 && i - s <= 4 &&
		    bars(p + s, i - s)) {
			words++;
			continue;
		}
		/* A label, "Byte Order:", is no column's name (lscpu). */
		if (!alpha || i - s > 32 || p[i - 1] == ':')
			return 0;
		if ((p[s] >= 'A' && p[s] <= 'Z') || p[s] == '%' || p[s] == '#')
			caps++;
		else if (words == 0)
			return 0;
		words++;
	}
	return words >= 2 && caps * 3 >= words * 2;
}

/* A rule under a header: dashes or equals signs, "------- -----". */
static int
rule_ok(const unsigned char *p, size_t n)
{
	size_t	i, marks = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == '-' || p[i] == '=')
			marks++;
		else if (p[i] != ' ' && p[i] != '\t' && p[i] != '+' &&
		    p[i] != '|')
			return 0;
	}
	return marks >= 3;
}

/*
 * Mark the display columns a line occupies (tabs to the next multiple
 * of 8, a UTF-8 sequence one column); returns its width, at most w.
 */
static size_t
to_cols(const unsigned char *p, size_t n, unsigned char *occ, size_t w)
{
	size_t	i, col = 0;

	for (i = 0; i < n && col < w; i++) {
		if ((p[i] & 0xc0) == 0x80)
			continue;
		if (p[i] == '\t') {
			col = (col / 8 + 1) * 8;
			continue;
		}
		if (p[i] != ' ' && occ != NULL)
			occ[col] = 1;
		col++;
	}
	return col;
}

/*
 * Count in cnt the display columns line l occupies (o: scratch of w
 * bytes); returns its width.
 */
static size_t
occupy(const struct tline *l, uint32_t *cnt, unsigned char *o, size_t w)
{
	size_t	k, x;

	memset(o, 0, w);
	k = to_cols(l->p, l->n, o, w);
	for (x = 0; x < k; x++)
		cnt[x] += o[x];
	return k;
}

void
ofl_fmt_table_free(struct ofl_fmt_table *t)
{
	size_t	i;

	for (i = 0; i < t->ncols; i++)
		free(t->name[i]);
	memset(t, 0, sizeof *t);
}

/* The name of a column: the header's words in [a, b) display columns. */
static char *
col_name(const unsigned char *p, size_t n, size_t a, size_t b)
{
	struct ofl_buf	nb;
	size_t		i, col = 0;

	ofl_buf_init(&nb);
	for (i = 0; i < n && col < b; i++) {
		if ((p[i] & 0xc0) == 0x80) {
			if (col > a)
				ofl_buf_addc(&nb, p[i]);
			continue;
		}
		if (col >= a)
			ofl_buf_addc(&nb, p[i] == '\t' ? ' ' : p[i]);
		col = p[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
	}
	while (nb.len > 0 && nb.data[nb.len - 1] == ' ')
		nb.len--;
	i = 0;
	while (i < nb.len && nb.data[i] == ' ')
		i++;
	memmove(nb.data, nb.data + i, nb.len - i);
	nb.len -= i;
	return ofl_buf_str(&nb);
}

/*
 * Columns: the display columns no row and not the header occupy (a row
 * in fifty, or one of five or more, may spill over) split the lines into spans; a span
 * without a word of the header belongs to the span on its left (the
 * words of a cell with spaces), the first to its right.
 */
static int
find_columns(const struct tline *h, const unsigned char *buf, size_t len,
    size_t off, size_t *rowsp, struct ofl_fmt_table *t)
{
	struct tline	 l;
	uint32_t	*cnt;
	unsigned char	*hocc, *o;
	size_t		 w = OFL_TABLE_WIDTH, width, rows = 0, x, k, a, tol;
	size_t		 st[OFL_TABLE_COLS], en[OFL_TABLE_COLS], ns = 0;
	int		 gap, prevgap = 1, wide = 0;

	cnt = ofl_xcalloc(w, sizeof *cnt);
	hocc = ofl_xcalloc(w, 1);
	o = ofl_xcalloc(w, 1);
	width = to_cols(h->p, h->n, hocc, w);
	while (off < len && rows < TABLE_SAMPLE) {
		off = next_line(buf, len, off, &l);
		if (ofl_blank(l.p, l.n))
			break;
		if ((k = occupy(&l, cnt, o, w)) > width)
			width = k;
		rows++;
	}
	tol = rows >= 5 ? (rows / 50 > 1 ? rows / 50 : 1) : 0;
	for (x = 0; x <= width && ns < OFL_TABLE_COLS; x++) {
		gap = x == width || (!hocc[x] && cnt[x] <= tol);
		if (!gap && prevgap)
			st[ns] = x;
		if (gap && !prevgap)
			en[ns++] = x;
		prevgap = gap;
	}
	/*
	 * Keep the spans that hold the start of a header word, but for a
	 * word one space after the one before over no row's cell: the
	 * second word of a name ("PID/Program name").
	 */
	t->ncols = 0;
	for (k = 0; k < ns; k++) {
		int	hasword = 0, empty = 1;

		for (x = st[k]; x < en[k]; x++) {
			if (hocc[x] && (x == 0 || !hocc[x - 1]))
				hasword = 1;
			if (cnt[x] > 0)
				empty = 0;
		}
		if (!hasword || (t->ncols > 0 && empty && st[k] ==
		    en[k - 1] + 1))
			continue;
		a = t->ncols == 0 ? 0 : st[k];
		if (t->ncols > 0 && st[k] - en[k - 1] >= 2)
			wide = 1;
		t->start[t->ncols++] = a;
	}
	for (k = 0; k < t->ncols; k++)
		t->name[k] = col_name(h->p, h->n, t->start[k],
		    k + 1 < t->ncols ? t->start[k + 1] : SIZE_MAX);
	free(cnt);
	free(hocc);
	free(o);
	*rowsp = rows;
	return wide;
}

/*
 * A row of ls -l: a file's mode ("-rw-r--r--", "drwxr-xr-x", maybe with
 * a mark of ACLs or a context after it), then a blank.
 */
static int
ls_row(const unsigned char *p, size_t n)
{
	size_t	i;

	if (n < 12 || !ofl_in_set(p[0], "-dlcbpsD"))
		return 0;
	for (i = 1; i < 10; i++)
		if (!ofl_in_set(p[i], "rwxsStTl-"))
			return 0;
	if (p[10] == '.' || p[10] == '+' || p[10] == '@')
		i++;
	return p[i] == ' ';
}

/* The index of the field of row p that starts the name of the file. */
static size_t
ls_name_field(const unsigned char *p, size_t n)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	size_t	i = 0, f = 0, a = 0;

	/*
	 * Fields 0-4: mode, links, owner, group, size; then the date.  A
	 * device's size is its numbers, "10, 234": one field.
	 */
	while (i < n && f < 6) {
		while (i < n && p[i] == ' ')
			i++;
		a = i;
		while (i < n && p[i] != ' ')
			i++;
		if (f == 4 && i > a && p[i - 1] == ',')
			continue;
		f++;
	}
	if (f < 6)
		return 0;
	/* "Dec  4 02:17" or "Dec  4  2025": three; "2026-12-04 02:17": two. */
	if (i - a == 3) {
		for (f = 0; f < 36; f += 3)
			if (memcmp(months + f, p + a, 3) == 0)
				return 8;
		return 0;
	}
	return i - a == 10 && p[a + 4] == '-' && p[a + 7] == '-' ? 7 : 0;
}

/*
 * A device's row: the blanks between its numbers ("10, 234") are part
 * of the size column, occupied in o (k columns) and cnt.
 */
static void
ls_device(const struct tline *l, uint32_t *cnt, unsigned char *o, size_t k)
{
	size_t	i = 0, f = 0;

	if (l->n == 0 || (l->p[0] != 'c' && l->p[0] != 'b'))
		return;
	/* Past mode, links, owner and group to the major number's comma. */
	while (i < l->n && f < 5) {
		while (i < l->n && l->p[i] == ' ')
			i++;
		while (i < l->n && l->p[i] != ' ')
			i++;
		f++;
	}
	if (i == 0 || i >= l->n || l->p[i - 1] != ',')
		return;
	for (; i < l->n && i < k && l->p[i] == ' '; i++)
		if (!o[i]) {
			o[i] = 1;
			cnt[i]++;
		}
}

/*
 * ls -l, which has no header: "total N", then rows of files.  The
 * columns are the blanks every row shares, named by ls's fields; the
 * line "total N" stands for the header.  0 if it is no such thing.
 */
static int
ls_layout(const unsigned char *buf, size_t len, struct ofl_fmt_table *t)
{
	static const char *const names8[] = { "mode", "links", "owner",
	    "group", "size", "month", "day", "time", "name" };
	static const char *const names7[] = { "mode", "links", "owner",
	    "group", "size", "date", "time", "name" };
	struct tline	 h, l;
	unsigned char	*o;
	uint32_t	*cnt;
	size_t		 off, rows = 0, bad = 0, width = 0, x, k, ns = 0, want;
	size_t		 st[OFL_TABLE_COLS];
	int		 prevgap = 1, gap;

	off = next_line(buf, len, 0, &h);
	if (h.n < 7 || memcmp(h.p, "total ", 6) != 0 ||
	    !(h.p[6] >= '0' && h.p[6] <= '9') || off >= len)
		return 0;
	next_line(buf, len, off, &l);
	if (!ls_row(l.p, l.n) || (want = ls_name_field(l.p, l.n)) == 0)
		return 0;
	cnt = ofl_xcalloc(OFL_TABLE_WIDTH, sizeof *cnt);
	o = ofl_xcalloc(OFL_TABLE_WIDTH, 1);
	for (x = off; x < len && rows < TABLE_SAMPLE; rows++) {
		x = next_line(buf, len, x, &l);
		if (ofl_blank(l.p, l.n))
			break;
		if (!ls_row(l.p, l.n) || ls_name_field(l.p, l.n) != want) {
			bad++;
			continue;
		}
		if ((k = occupy(&l, cnt, o, OFL_TABLE_WIDTH)) > width)
			width = k;
		ls_device(&l, cnt, o, k);
	}
	/* The starts of the spans no row leaves blank, up to the name. */
	for (x = 0; x <= width && ns <= want; x++) {
		gap = x == width || cnt[x] == 0;
		if (!gap && prevgap)
			st[ns++] = x;
		prevgap = gap;
	}
	free(cnt);
	free(o);
	if (rows < 2 || bad * 10 > rows || ns <= want)
		return 0;
	memset(t, 0, sizeof *t);
	t->ncols = want + 1;
	for (k = 0; k < t->ncols; k++) {
		t->start[k] = st[k];
		t->name[k] = ofl_xstrdup(want == 8 ? names8[k] : names7[k]);
	}
	t->start[0] = 0;
	t->named = 1;
	t->hdr_line = 1;
	t->hdr_off = 0;
	t->body_off = off;
	return 1;
}

int
ofl_fmt_table_layout(const unsigned char *buf, size_t len, int complete,
    struct ofl_fmt_table *t)
{
	struct tline	h, l;
	size_t		off = 0, next, body, rows = 0, nonblank = 0, n, tries;
	uint64_t	line = 0, rule;
	int		wide = 0;

	memset(t, 0, sizeof *t);
	if (len > TABLE_HEAD) {
		len = TABLE_HEAD;
		complete = 0;
	}
	if (!complete) {
		while (len > 0 && buf[len - 1] != '\n')
			len--;
	}
	off = ofl_bom(buf, len);
	/* The header: the first line that makes one, past a few others. */
	for (tries = 0;; tries++) {
		do {
			if (off >= len || tries >= TABLE_PREAMBLE)
				return ls_layout(buf, len, t);
			next = next_line(buf, len, off, &h);
			line++;
			off = next;
		} while (ofl_blank(h.p, h.n));
		if (!header_ok(h.p, h.n))
			continue;
		body = next;
		rule = 0;
		if (body < len) {
			n = next_line(buf, len, body, &l);
			if (rule_ok(l.p, l.n)) {
				rule = line + 1;
				body = n;
			}
		}
		wide = find_columns(&h, buf, len, body, &rows, t);
		if (t->ncols >= 2 && wide && rows >= 2)
			break;
		ofl_fmt_table_free(t);
	}
	t->hdr_line = line;
	t->rule_line = rule;
	t->hdr_off = (size_t)(h.p - buf);
	t->body_off = body;
	/* The table is most of what the window holds, over it included. */
	for (off = 0, n = 0; off < len && n < TABLE_SAMPLE * 2; n++) {
		off = next_line(buf, len, off, &l);
		if (!ofl_blank(l.p, l.n))
			nonblank++;
	}
	if ((rows + 1 + (rule != 0)) * 2 < nonblank + 1) {
		ofl_fmt_table_free(t);
		return 0;
	}
	return 1;
}

int
ofl_fmt_table_over(const struct ofl_fmt_table *t, uint64_t lineno)
{
	return lineno < t->hdr_line || lineno == t->rule_line;
}

int
ofl_fmt_table_detect(const unsigned char *buf, size_t len, int complete)
{
	struct ofl_fmt_table	t;
	int			line;

	if (!ofl_fmt_table_layout(buf, len, complete, &t))
		return 0;
	line = t.hdr_line > INT_MAX ? INT_MAX : (int)t.hdr_line;
	ofl_fmt_table_free(&t);
	return line;
}

/*
 * A row cut into cells at the columns' starts.  A word across a start
 * (a value wider than the sample's, spilling left when right-aligned or
 * right when left-aligned) goes to the side of the blank nearest to it.
 * Cells are trimmed; off[i] and len[i] are byte ranges of the line.
 */
void
ofl_fmt_table_split(const struct ofl_fmt_table *t, const char *line,
    size_t n, size_t *off, size_t *len)
{
	const unsigned char	*p = (const unsigned char *)line;
	size_t			 cut[OFL_TABLE_COLS + 1];
	size_t			 i, k = 1, col = 0, b, f;

	cut[0] = 0;
	for (i = 0; i < n && k < t->ncols; i++) {
		if ((p[i] & 0xc0) == 0x80)
			continue;
		while (k < t->ncols && col >= t->start[k])
			cut[k++] = i;
		col = p[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
	}
	while (k < t->ncols)
		cut[k++] = n;
	cut[t->ncols] = n;
	for (k = 1; k < t->ncols; k++) {
		i = cut[k];
		if (i == 0 || i >= n || p[i - 1] == ' ' || p[i] == ' ' ||
		    p[i - 1] == '\t' || p[i] == '\t')
			continue;
		for (b = i; b > cut[k - 1] && p[b - 1] != ' ' &&
		    p[b - 1] != '\t'; b--)
			;
		for (f = i; f < n && p[f] != ' ' && p[f] != '\t'; f++)
			;
		if (b > cut[k - 1] && i - b <= f - i)
			cut[k] = b;
		else
			cut[k] = f;
		if (cut[k] > cut[k + 1])
			cut[k + 1] = cut[k];
	}
	for (k = 0; k < t->ncols; k++) {
		size_t a = cut[k], z = cut[k + 1];

		while (a < z && (p[a] == ' ' || p[a] == '\t'))
			a++;
		while (z > a && (p[z - 1] == ' ' || p[z - 1] == '\t'))
			z--;
		off[k] = a;
		len[k] = z - a;
	}
}

/*
 * A number: an optional sign, digits, an optional fraction (integer
 * says there is none).  kubectl's restart count with the time since the
 * last restart, "5 (3m ago)", is the number 5: the length of the number
 * is returned, 0 if the cell is not one.
 */
size_t
ofl_fmt_table_number(const char *s, size_t n, int *integer)
{
	size_t	i = 0, d, k;

	*integer = 1;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		i++;
	for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (i == d || i - d > 18)
		return 0;
	if (i < n && s[i] == '.') {
		*integer = 0;
		for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	if (i == n)
		return n;
	k = i;
	if (*integer && n - i >= 7 && s[i] == ' ' && s[i + 1] == '(' &&
	    memcmp(s + n - 5, " ago)", 5) == 0)
		return k;
	return 0;
}

/*
 * Chunking: as CSV's rows, each chunk's text led by the header line, and
 * by the lines over it and the rule under it when there are.  The
 * layout is found again from the head of the content (top), or of an
 * archive's member (what the dispatcher read of it).
 */
int
ofl_fmt_table_chunk(struct ofl_chunker *ck, struct ofl_chunk_in *s,
    const struct ofl_src *top)
{
	struct ofl_fmt_table	 t;
	const unsigned char	*p = (const unsigned char *)s->pre;
	unsigned char		*head = NULL;
	size_t			 n = s->prelen;
	uint64_t		 last = 0;
	int			 complete = 0;

	if (top != NULL && (head = ofl_src_head(top, TABLE_HEAD, &n)) != NULL) {
		p = head;
		complete = n == ofl_src_bytes(top);
	}
	if (p != NULL && ofl_fmt_table_layout(p, n, complete, &t)) {
		last = t.rule_line != 0 ? t.rule_line : t.hdr_line;
		ofl_fmt_table_free(&t);
	}
	free(head);
	if (top != NULL && ofl_src_seek(top, 0) == -1)
		return -1;
	return ofl_fmt_csv_chunk(ck, s, ' ', last);
}

/*
 * The summary.
 */

void
ofl_fmt_table_rd_init(struct ofl_fmt_table_rd *r, const struct ofl_src *src,
    uint64_t max)
{
	memset(r, 0, sizeof *r);
	r->src = src;
	r->max = max != 0 ? max : UINT64_MAX;
	r->buf = ofl_xmalloc(2 * TABLE_LINE);
}

void
ofl_fmt_table_rd_free(struct ofl_fmt_table_rd *r)
{
	free(r->buf);
	r->buf = NULL;
}

int
ofl_fmt_lines(const struct ofl_src *src, uint64_t max,
    void (*fn)(void *, const char *, size_t), void *arg, int *cut)
{
	struct ofl_fmt_table_rd	 rd;
	const char		*p;
	size_t			 n;
	int			 rv;

	*cut = 0;
	if (ofl_src_seek(src, 0) == -1)
		return -1;
	ofl_fmt_table_rd_init(&rd, src, max);
	while ((rv = ofl_fmt_table_rd_next(&rd, &p, &n)) == 1) {
		while (n > 0 && p[n - 1] == '\r')
			n--;
		fn(arg, p, n);
	}
	*cut = rd.read >= rd.max && ofl_src_bytes(src) > rd.read;
	ofl_fmt_table_rd_free(&rd);
	return rv;
}

int
ofl_fmt_table_rd_next(struct ofl_fmt_table_rd *r, const char **p, size_t *n)
{
	struct tline	l;
	int		rv;

	if ((rv = rd_next(r, &l)) == 1) {
		*p = (const char *)l.p;
		*n = l.n;
	}
	return rv;
}

/* 1 with a line in *l, 0 at the end, -1 on a read error. */
static int
rd_next(struct ofl_fmt_table_rd *r, struct tline *l)
{
	unsigned char	*nl;
	ssize_t		 k;

	for (;;) {
		nl = r->lo < r->hi ? memchr(r->buf + r->lo, '\n',
		    r->hi - r->lo) : NULL;
		if (nl != NULL || (r->eof && r->lo < r->hi) ||
		    r->hi - r->lo >= TABLE_LINE) {
			size_t e = nl != NULL ? (size_t)(nl - r->buf) :
			    (r->eof ? r->hi : r->lo + TABLE_LINE);
			int was = r->skip;

			l->p = r->buf + r->lo;
			l->n = e - r->lo;
			while (l->n > 0 && l->p[l->n - 1] == '\r')
				l->n--;
			r->skip = nl == NULL && !r->eof;
			if (r->skip && !was)
				r->cut++;
			r->lo = nl != NULL ? e + 1 : e;
			if (was)
				continue;
			return 1;
		}
		if (r->eof)
			return 0;
		memmove(r->buf, r->buf + r->lo, r->hi - r->lo);
		r->hi -= r->lo;
		r->lo = 0;
		if (r->read >= r->max) {
			r->eof = 1;
			continue;
		}
		k = ofl_src_read(r->src, r->buf + r->hi, 2 * TABLE_LINE -
		    r->hi);
		if (k == -1)
			return -1;
		if (k == 0)
			r->eof = 1;
		r->hi += (size_t)k;
		r->read += (uint64_t)k;
	}
}

static void
count_cell(struct tcol *c, const char *s, size_t n)
{
	size_t	i;
	int	integer;

	if (n == 0)
		return;
	c->filled++;
	if (c->numeric && ofl_fmt_table_number(s, n, &integer) == 0)
		c->numeric = 0;
	else if (c->numeric && !integer)
		c->integer = 0;
	if (c->many)
		return;
	for (i = 0; i < c->nval; i++) {
		if (c->vlen[i] == n && memcmp(c->val[i], s, n) == 0) {
			c->cnt[i]++;
			return;
		}
	}
	if (c->nval == TABLE_DISTINCT || n > TABLE_VALUE) {
		c->many = 1;
		for (i = 0; i < c->nval; i++)
			free(c->val[i]);
		c->nval = 0;
		return;
	}
	c->val[c->nval] = ofl_xmalloc(n + 1);
	memcpy(c->val[c->nval], s, n);
	c->val[c->nval][n] = '\0';
	c->vlen[c->nval] = n;
	c->cnt[c->nval++] = 1;
}

/* Most frequent first; the first seen first among equals. */
static void
sort_values(struct tcol *c)
{
	size_t		i, j;
	uint64_t	tc;
	size_t		tl;
	char		*tv;

	for (i = 1; i < c->nval; i++) {
		for (j = i; j > 0 && c->cnt[j] > c->cnt[j - 1]; j--) {
			tc = c->cnt[j]; c->cnt[j] = c->cnt[j - 1];
			c->cnt[j - 1] = tc;
			tl = c->vlen[j]; c->vlen[j] = c->vlen[j - 1];
			c->vlen[j - 1] = tl;
			tv = c->val[j]; c->val[j] = c->val[j - 1];
			c->val[j - 1] = tv;
		}
	}
}

/*
 * Which columns' counts come first: a status, a state, a phase, then
 * the columns with the fewest values.
 */
static int
col_rank(const char *name, const struct tcol *c)
{
	static const char *first[] = { "STATUS", "STATE", "PHASE", "STAT",
	    "ACTIVE", "SUB", "LOAD", "READY", "TYPE", "NAMESPACE" };
	size_t	i;

	for (i = 0; i < sizeof first / sizeof first[0]; i++)
		if (strcasecmp(name, first[i]) == 0)
			return (int)i;
	return 100 + (int)c->nval;
}

/* The columns' names and types, "NAME, READY, RESTARTS (number)". */
static void
sum_columns(struct ofl_summary *sum, const struct ofl_fmt_table *t,
    const struct tcol *cols, uint64_t rows, int cut)
{
	size_t	k, used;

	ofl_buf_addf(&sum->text, "table: %zu columns, ", t->ncols);
	ofl_buf_add_count(&sum->text, rows);
	ofl_buf_addf(&sum->text, " row%s%s: ", rows == 1 ? "" : "s",
	    cut ? " (counted in the first 64 MB)" : "");
	ofl_summary_key(sum, "columns");
	ofl_buf_addc(&sum->json, '[');
	for (k = 0; k < t->ncols; k++) {
		if (k > 0)
			ofl_buf_adds(&sum->text, ", ");
		ofl_render(&sum->text, (const unsigned char *)t->name[k],
		    strlen(t->name[k]), 40, OFL_RENDER_ONELINE, &used);
		if (cols[k].numeric && cols[k].filled > 0)
			ofl_buf_adds(&sum->text, cols[k].integer ?
			    " (integer)" : " (number)");
		if (k > 0)
			ofl_buf_addc(&sum->json, ',');
		ofl_buf_add_json_cstr(&sum->json, t->name[k]);
	}
	ofl_buf_adds(&sum->text, "\n");
	ofl_buf_addc(&sum->json, ']');
	ofl_summary_key(sum, "rows");
	ofl_buf_addf(&sum->json, "%llu", (unsigned long long)rows);
}

/*
 * The counts of n values after what l holds (" Running 2628, Error 19"),
 * in the order given (NULL: as they are), cut to room bytes with the
 * number of the rest; the same as the members of a JSON object in js.
 */
void
ofl_fmt_counts(struct ofl_buf *l, struct ofl_buf *js, char *const *val,
    const uint64_t *cnt, const size_t *order, size_t n, size_t room)
{
	size_t	i, k, used, mark;

	ofl_buf_addc(js, '{');
	for (i = 0; i < n; i++) {
		k = order != NULL ? order[i] : i;
		mark = l->len;
		ofl_buf_adds(l, i == 0 ? " " : ", ");
		ofl_render(l, (const unsigned char *)val[k], strlen(val[k]),
		    TABLE_VALUE, OFL_RENDER_ONELINE, &used);
		if (used < strlen(val[k]))
			ofl_buf_adds(l, "...");
		ofl_buf_addf(l, " %llu", (unsigned long long)cnt[k]);
		if (l->len + 24 > room && i + 1 < n) {
			l->len = mark;
			ofl_buf_addf(l, ", ... (+%zu more values)", n - i);
			break;
		}
		if (i > 0)
			ofl_buf_addc(js, ',');
		ofl_buf_add_json_cstr(js, val[k]);
		ofl_buf_addf(js, ":%llu", (unsigned long long)cnt[k]);
	}
	ofl_buf_addc(js, '}');
}

/* One line of counts, "STATUS: Running 2628, Error 19"; 0 if none. */
static int
sum_counts(struct ofl_summary *sum, const char *name, const struct tcol *c,
    size_t room, struct ofl_buf *js)
{
	struct ofl_buf	l;
	size_t		used;

	ofl_buf_init(&l);
	ofl_render(&l, (const unsigned char *)name, strlen(name), 40,
	    OFL_RENDER_ONELINE, &used);
	ofl_buf_adds(&l, ":");
	if (js->len > 1)
		ofl_buf_addc(js, ',');
	ofl_buf_add_json_cstr(js, name);
	ofl_buf_addc(js, ':');
	ofl_fmt_counts(&l, js, c->val, c->cnt, NULL, c->nval, room);
	ofl_buf_addc(&l, '\n');
	ofl_buf_add(&sum->text, l.data, l.len);
	ofl_buf_free(&l);
	return 1;
}

/* The filter the notice suggests: rows whose first counted column is not
   its most frequent value. */
static char *
sum_filter(const char *name, const struct tcol *c)
{
	struct ofl_buf	f;
	size_t		i;
	int		plain = 1;

	for (i = 0; name[i] != '\0'; i++)
		if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' &&
		    name[i] <= 'z') || name[i] == '_' || (i > 0 &&
		    name[i] >= '0' && name[i] <= '9')))
			plain = 0;
	ofl_buf_init(&f);
	ofl_buf_adds(&f, "select(.");
	if (plain)
		ofl_buf_adds(&f, name);
	else {
		ofl_buf_addc(&f, '[');
		ofl_buf_add_json_cstr(&f, name);
		ofl_buf_addc(&f, ']');
	}
	ofl_buf_adds(&f, " != ");
	ofl_buf_add_json_str(&f, c->val[0], c->vlen[0]);
	ofl_buf_adds(&f, ")");
	return ofl_buf_str(&f);
}

/* Count the cells of every row; the columns' order for the notice. */
static int
sum_scan(const struct ofl_src *src, const struct ofl_fmt_table *t,
    struct tcol *cols, uint64_t *rowsp, int *cutp)
{
	struct ofl_fmt_table_rd	 r;
	struct tline		 l;
	size_t			 off[OFL_TABLE_COLS], len[OFL_TABLE_COLS], k;
	uint64_t		 lineno = 0, rows = 0;
	int			 rv;

	if (ofl_src_seek(src, 0) == -1)
		return -1;
	ofl_fmt_table_rd_init(&r, src, TABLE_SCAN);
	while ((rv = rd_next(&r, &l)) == 1) {
		if (++lineno == t->hdr_line || ofl_fmt_table_over(t, lineno))
			continue;
		if (ofl_blank(l.p, l.n))
			break;
		ofl_fmt_table_split(t, (const char *)l.p, l.n, off, len);
		for (k = 0; k < t->ncols; k++)
			count_cell(&cols[k], (const char *)l.p + off[k],
			    len[k]);
		rows++;
	}
	*cutp = r.read >= r.max && ofl_src_bytes(src) > r.read;
	ofl_fmt_table_rd_free(&r);
	*rowsp = rows;
	return rv;
}

/*
 * The notice: the columns with their types, then for the columns with
 * few values (at most TABLE_DISTINCT, and fewer than the rows) the count
 * of each, exactly, as many columns as fit.
 */
int
ofl_fmt_table_summary(const struct ofl_src *src, const struct ofl_meta *m,
    struct ofl_summary *sum)
{
	struct ofl_fmt_table	 t;
	struct tcol		*cols;
	struct ofl_buf		 js;
	unsigned char		*head;
	size_t			 hlen, k, j, order[OFL_TABLE_COLS], n = 0;
	uint64_t		 rows;
	int			 cut, rv = -1;

	(void)m;
	if ((head = ofl_src_head(src, TABLE_HEAD, &hlen)) == NULL)
		return -1;
	if (!ofl_fmt_table_layout(head, hlen, hlen == ofl_src_bytes(src),
	    &t)) {
		free(head);
		return 0;
	}
	free(head);
	cols = ofl_xcalloc(t.ncols, sizeof *cols);
	for (k = 0; k < t.ncols; k++)
		cols[k].numeric = cols[k].integer = 1;
	if (sum_scan(src, &t, cols, &rows, &cut) == -1)
		goto out;
	sum_columns(sum, &t, cols, rows, cut);
	for (k = 0; k < t.ncols; k++) {
		if (cols[k].many || cols[k].nval == 0 ||
		    (cols[k].numeric && cols[k].nval > 3) ||
		    (rows > 2 && cols[k].nval * 3 > rows * 2))
			continue;
		sort_values(&cols[k]);
		for (j = n; j > 0 && col_rank(t.name[k], &cols[k]) <
		    col_rank(t.name[order[j - 1]], &cols[order[j - 1]]); j--)
			order[j] = order[j - 1];
		order[j] = k;
		n++;
	}
	ofl_buf_init(&js);
	ofl_buf_addc(&js, '{');
	for (j = 0; j < n; j++) {
		size_t room = TABLE_SUMMARY - sum->text.len;

		if (sum->text.len + 40 > TABLE_SUMMARY)
			break;
		sum_counts(sum, t.name[order[j]], &cols[order[j]],
		    room < TABLE_LINEMAX ? room : TABLE_LINEMAX, &js);
	}
	ofl_buf_addc(&js, '}');
	ofl_summary_key(sum, "counts");
	ofl_buf_add(&sum->json, js.data, js.len);
	ofl_buf_free(&js);
	if (n > 0 && cols[order[0]].nval > 1)
		sum->filter = sum_filter(t.name[order[0]], &cols[order[0]]);
	rv = 0;
out:
	for (k = 0; k < t.ncols; k++)
		for (j = 0; j < cols[k].nval; j++)
			free(cols[k].val[j]);
	free(cols);
	ofl_fmt_table_free(&t);
	return rv;
}
