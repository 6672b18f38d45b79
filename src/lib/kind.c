/*
 * kind.c: what kind of content an artifact holds, guessed from its first
 * bytes only (never from a file name).  Each format's own tests are in
 * its file: a log line in fmt-log.c, archive magic in fmt-archive.c.
 * The kinds' names are in kind-name.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>


#include "ofl.h"
#include "banned.h"

/* Detection looks at this much of the content at most. */
#define KIND_WINDOW	(64 * 1024)

/* Lines looked at for the line-based guesses. */
#define KIND_MAXLINES	2000

/* Features of the lines of a text, gathered in one pass. */
struct features {
	size_t	lines;		/* complete lines looked at */
	size_t	nonblank;
	size_t	loglike;
	size_t	indented;	/* non-blank lines that start with a blank */
	int	first_loglike;	/* the first non-blank line looks like a log */
	size_t	diffhdr;	/* "diff --git" or "--- a" + "+++ b" pairs */
	size_t	hunks;		/* "@@ -" lines */
	size_t	diffish;	/* lines a diff is made of */
	size_t	tags;		/* HTML tags outside code fences */
	struct ofl_fmt_md_lines md;	/* what Markdown has */
};

static int	 is_binary(const unsigned char *, size_t, int);
static size_t	 utf8_seq(const unsigned char *, size_t);
static void	 features(const unsigned char *, size_t, int,
		    struct features *);
static int	 starts(const unsigned char *, size_t, const char *);
static int	 starts_ci(const unsigned char *, size_t, const char *);
static size_t	 count_tags(const unsigned char *, size_t);


enum ofl_kind
ofl_kind_detect(const unsigned char *buf, size_t len, int complete)
{
	struct features	 f;
	enum ofl_kind	 kind;
	size_t		 i, ccols, tcols;
	int		 csv, tsv, rv, hdr;

	if (len == 0)
		return OFL_KIND_EMPTY;
	if (len > KIND_WINDOW) {
		len = KIND_WINDOW;
		complete = 0;
	}
	if (ofl_fmt_archive_magic(buf, len, &kind))
		return kind;
	if (is_binary(buf, len, complete))
		return OFL_KIND_BINARY;

	/* A byte order mark says nothing about the kind. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		buf += 3;
		len -= 3;
		if (len == 0)
			return OFL_KIND_TEXT;
	}
	for (i = 0; i < len; i++) {
		if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' &&
		    buf[i] != '\r')
			break;
	}
	if (i == len)
		return OFL_KIND_TEXT;

	/*
	 * NDJSON: objects or arrays, one per line.  JSON: one value, or a
	 * sequence of values some of which span lines (jq '.[]' prints
	 * those), which jq reads one value after another just the same.
	 */
	if (buf[i] == '{' || buf[i] == '[') {
		rv = ofl_fmt_json_detect(buf + i, len - i, complete);
		if (rv != -1)
			return (enum ofl_kind)rv;
	}
	if (starts_ci(buf + i, len - i, "<!doctype html") ||
	    starts_ci(buf + i, len - i, "<html"))
		return OFL_KIND_HTML;

	/* Before Markdown: a snapshot's wrapper has "###" headings. */
	if (ofl_fmt_snapshot_detect(buf + i, len - i, complete))
		return OFL_KIND_SNAPSHOT;
	features(buf, len, complete, &f);
	if (f.nonblank == 0)
		return OFL_KIND_TEXT;

	/* A diff: headers, hunks, and little else. */
	if (f.diffhdr > 0 && f.hunks > 0 && f.diffish * 10 >= f.lines * 7)
		return OFL_KIND_DIFF;

	csv = ofl_fmt_csv_detect(buf, len, complete, ',', &ccols);
	tsv = ofl_fmt_csv_detect(buf, len, complete, '\t', &tcols);
	if (csv && tsv) {
		if (tcols >= ccols)
			csv = 0;
		else
			tsv = 0;
	}
	/* A header that does not look like a log line makes a table. */
	if ((csv || tsv) && !f.first_loglike)
		return csv ? OFL_KIND_CSV : OFL_KIND_TSV;
	/*
	 * Whitespace-aligned columns under a header (fmt-table.c): under a
	 * first line that looks like a log's only past lines over it (top's
	 * "top - 10:01:02 up 3 days").
	 */
	if (!csv && !tsv && (hdr = ofl_fmt_table_detect(buf, len,
	    complete)) > 0 && (!f.first_loglike || hdr > 1))
		return OFL_KIND_TABLE;
	/*
	 * A log: most lines at the margin look like a log's (the indented
	 * ones go on records: stack traces, a statement's lines), and a
	 * good part of all of them.
	 */
	if (f.loglike >= 2 && f.loglike * 10 >= (f.nonblank - f.indented) * 6 &&
	    f.loglike * 10 >= f.nonblank * 3)
		return OFL_KIND_LOG;
	if (csv || tsv)
		return csv ? OFL_KIND_CSV : OFL_KIND_TSV;

	if (ofl_fmt_md_detect(&f.md, f.nonblank))
		return OFL_KIND_MARKDOWN;
	/* Many tags make HTML; XML that is not XHTML stays a text. */
	if (buf[i] == '<' && f.tags >= 5 && f.tags * 2 >= f.nonblank &&
	    !(starts(buf + i, len - i, "<?xml") && memmem(buf + i,
	    len - i < 1024 ? len - i : 1024, "<html", 5) == NULL))
		return OFL_KIND_HTML;
	return OFL_KIND_TEXT;
}

static int
starts(const unsigned char *p, size_t n, const char *s)
{
	size_t	l = strlen(s);

	return n >= l && memcmp(p, s, l) == 0;
}

static int
starts_ci(const unsigned char *p, size_t n, const char *s)
{
	size_t	l = strlen(s);

	return n >= l && strncasecmp((const char *)p, s, l) == 0;
}

/*
 * The length of the valid UTF-8 sequence at p, or 0 if it is invalid:
 * overlong forms, surrogates and code points past U+10FFFF are invalid.
 */
static size_t
utf8_seq(const unsigned char *p, size_t n)
{
	unsigned char	c = p[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		if (n >= 2 && (p[1] & 0xc0) == 0x80)
			return 2;
		return 0;
	}
	if (c >= 0xe0 && c <= 0xef) {
		if (n < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && p[1] < 0xa0)
			return 0;	/* overlong */
		if (c == 0xed && p[1] >= 0xa0)
			return 0;	/* surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (n < 4 || (p[1] & 0xc0) != 0x80 ||
		    (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && p[1] < 0x90)
			return 0;	/* overlong */
		if (c == 0xf4 && p[1] >= 0x90)
			return 0;	/* past U+10FFFF */
		return 4;
	}
	return 0;
}

/*
 * Binary: any NUL, or more than a tenth of the bytes are control
 * characters or bytes that are not UTF-8.  A few bad bytes in a text (a
 * Latin-1 name, a cut sequence) leave it a text.
 */
static int
is_binary(const unsigned char *p, size_t n, int complete)
{
	size_t	i, bad, l;

	if (memchr(p, '\0', n) != NULL)
		return 1;
	bad = 0;
	for (i = 0; i < n; i += l) {
		unsigned char c = p[i];

		l = 1;
		if (c >= 0x20 && c < 0x7f)
			continue;
		if (c < 0x20) {
			/* Tab, newlines, form feed, backspace, escape. */
			if (c != '\t' && c != '\n' && c != '\r' &&
			    c != '\f' && c != '\v' && c != '\b' &&
			    c != 0x1b)
				bad++;
			continue;
		}
		if (c == 0x7f) {
			bad++;
			continue;
		}
		if ((l = utf8_seq(p + i, n - i)) == 0) {
			/* A sequence cut by the end of the window is fine. */
			if (!complete && n - i < 4)
				break;
			bad++;
			/*
			 * A character cut short (a line cut at a byte count)
			 * is one fault, not one for each of its bytes.
			 */
			for (l = 1; c >= 0xc2 && c <= 0xf4 && l < 4 &&
			    i + l < n && (p[i + l] & 0xc0) == 0x80; l++)
				;
		}
	}
	return bad * 10 > n;
}

static size_t
count_tags(const unsigned char *p, size_t n)
{
	size_t	i, c = 0;

	for (i = 0; i + 1 < n; i++) {
		if (p[i] == '<' && ((p[i + 1] >= 'a' && p[i + 1] <= 'z') ||
		    (p[i + 1] >= 'A' && p[i + 1] <= 'Z') || p[i + 1] == '/' ||
		    p[i + 1] == '!'))
			c++;
	}
	return c;
}

/*
 * One pass over the lines.  The last line counts only when the buffer is
 * complete (or when it is the only line).
 */
static void
features(const unsigned char *buf, size_t len, int complete,
    struct features *f)
{
	const unsigned char	*p, *nl, *end = buf + len;
	const unsigned char	*prev = NULL;
	size_t			 n, prevn = 0;
	int			 last;

	memset(f, 0, sizeof *f);
	ofl_fmt_md_lines_init(&f->md);
	f->first_loglike = -1;
	for (p = buf; p < end && f->lines < KIND_MAXLINES; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		last = nl == NULL;
		if (last) {
			if (!complete && f->lines > 0)
				break;
			nl = end;
		}
		n = nl - p;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		f->lines++;
		if (ofl_fmt_diff_line(p, n))
			f->diffish++;
		if (starts(p, n, "diff --git ") ||
		    (prev != NULL && starts(prev, prevn, "--- ") &&
		    starts(p, n, "+++ ")))
			f->diffhdr++;
		if (starts(p, n, "@@ -"))
			f->hunks++;
		if (ofl_blank(p, n)) {
			ofl_fmt_md_blank(&f->md);
			prev = p;
			prevn = n;
			if (last)
				break;
			continue;
		}
		f->nonblank++;
		if (p[0] == ' ' || p[0] == '\t')
			f->indented++;
		if (ofl_fmt_log_line(p, n)) {
			f->loglike++;
			if (f->first_loglike == -1)
				f->first_loglike = 1;
		} else if (f->first_loglike == -1)
			f->first_loglike = 0;
		/* Outside code fences, tags count towards HTML. */
		if (ofl_fmt_md_line(&f->md, p, n, f->lines == 1))
			f->tags += count_tags(p, n);
		prev = p;
		prevn = n;
		if (last)
			break;
	}
	if (f->first_loglike == -1)
		f->first_loglike = 0;
}
