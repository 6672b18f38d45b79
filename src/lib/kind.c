/*
 * kind.c: the kind names, and what kind of content an artifact holds,
 * guessed from its first bytes only (never from a file name).  Each
 * format's own tests are in its file: a log line in fmt-log.c, archive
 * magic in fmt-archive.c.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


#include "ofl.h"
#include "banned.h"

/* Detection looks at this much of the content at most. */
#define KIND_WINDOW	(64 * 1024)

/* Lines looked at for the line-based guesses. */
#define KIND_MAXLINES	2000

/* Records looked at for CSV and TSV. */
#define KIND_CSVRECS	200

/* Features of the lines of a text, gathered in one pass. */
struct features {
	size_t	lines;		/* complete lines looked at */
	size_t	nonblank;
	size_t	loglike;
	int	first_loglike;	/* the first non-blank line looks like a log */
	size_t	diffhdr;	/* "diff --git" or "--- a" + "+++ b" pairs */
	size_t	hunks;		/* "@@ -" lines */
	size_t	diffish;	/* lines a diff is made of */
	size_t	headings;	/* ATX headings outside code fences */
	size_t	fences;		/* fence lines */
	size_t	lists;
	size_t	links;
	size_t	tablesep;
	size_t	yamlkeys;
	size_t	tags;		/* HTML tags outside code fences */
};

static int	 is_binary(const unsigned char *, size_t, int);
static size_t	 utf8_seq(const unsigned char *, size_t);
static int	 json_scan(const unsigned char *, size_t, int, size_t *,
		    int *);
static void	 features(const unsigned char *, size_t, int,
		    struct features *);
static int	 csv_shape(const unsigned char *, size_t, int, int,
		    size_t *);
static int	 starts(const unsigned char *, size_t, const char *);
static int	 starts_ci(const unsigned char *, size_t, const char *);
static int	 atx_heading(const unsigned char *, size_t);
static int	 fence_line(const unsigned char *, size_t);
static int	 list_item(const unsigned char *, size_t);
static size_t	 count_links(const unsigned char *, size_t);
static size_t	 count_tags(const unsigned char *, size_t);
static int	 yaml_key(const unsigned char *, size_t);


static const char *kind_names[OFL_KIND_COUNT] = {
	"text",
	"log",
	"json",
	"ndjson",
	"csv",
	"tsv",
	"markdown",
	"html",
	"diff",
	"binary",
	"archive",
	"compressed",
	"empty"
};

const char *
ofl_kind_name(enum ofl_kind kind)
{
	if ((int)kind < 0 || kind >= OFL_KIND_COUNT)
		return "unknown";
	return kind_names[kind];
}

int
ofl_kind_from_name(const char *name)
{
	static const struct {
		const char	*name;
		int		 kind;
	} aliases[] = {
		{ "txt", OFL_KIND_TEXT },
		{ "jsonl", OFL_KIND_NDJSON },
		{ "md", OFL_KIND_MARKDOWN },
		{ "patch", OFL_KIND_DIFF },
	};
	size_t	i;

	if (name == NULL)
		return -1;
	for (i = 0; i < OFL_KIND_COUNT; i++) {
		if (strcasecmp(name, kind_names[i]) == 0)
			return (int)i;
	}
	for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
		if (strcasecmp(name, aliases[i].name) == 0)
			return aliases[i].kind;
	}
	return -1;
}

enum ofl_kind
ofl_kind_detect(const unsigned char *buf, size_t len, int complete)
{
	struct features	 f;
	enum ofl_kind	 kind;
	size_t		 i, nvalues, ccols, tcols;
	int		 csv, tsv, md, rv, multi;

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
		rv = json_scan(buf + i, len - i, complete, &nvalues, &multi);
		if (rv == 0 && nvalues >= 2 && !multi)
			return OFL_KIND_NDJSON;
		if (rv == 0)
			return OFL_KIND_JSON;
	}
	if (starts_ci(buf + i, len - i, "<!doctype html") ||
	    starts_ci(buf + i, len - i, "<html"))
		return OFL_KIND_HTML;

	features(buf, len, complete, &f);
	if (f.nonblank == 0)
		return OFL_KIND_TEXT;

	/* A diff: headers, hunks, and little else. */
	if (f.diffhdr > 0 && f.hunks > 0 && f.diffish * 10 >= f.lines * 7)
		return OFL_KIND_DIFF;

	csv = csv_shape(buf, len, complete, ',', &ccols);
	tsv = csv_shape(buf, len, complete, '\t', &tcols);
	if (csv && tsv) {
		if (tcols >= ccols)
			csv = 0;
		else
			tsv = 0;
	}
	/* A header that does not look like a log line makes a table. */
	if ((csv || tsv) && !f.first_loglike)
		return csv ? OFL_KIND_CSV : OFL_KIND_TSV;
	if (f.loglike >= 2 && f.loglike * 10 >= f.nonblank * 6)
		return OFL_KIND_LOG;
	if (csv || tsv)
		return csv ? OFL_KIND_CSV : OFL_KIND_TSV;

	/*
	 * Markdown: ATX headings backed by something else Markdown has
	 * (links, fences, lists, tables), or links and lists in quantity.
	 * Comments in scripts and YAML look like headings, so a heading
	 * alone is not enough.
	 */
	md = 0;
	if (f.headings > 0 && (f.links > 0 || f.fences >= 2 ||
	    f.tablesep > 0 || f.lists >= 2) &&
	    !(f.yamlkeys * 3 > f.nonblank && f.links == 0 && f.fences == 0))
		md = 1;
	if (f.headings == 0 && f.links >= 3 && (f.lists >= 3 ||
	    f.fences >= 2))
		md = 1;
	if (md)
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
			l = 1;
		}
	}
	return bad * 10 > n;
}

/*
 * A validating JSON scanner over a sequence of top-level objects or
 * arrays separated by white space; multiline is set when a value spans
 * lines.  With complete 0 the input may stop
 * anywhere inside a value.  Returns 0 if the input is valid as far as it
 * goes, -1 on the first error; nvalues counts the values, the last one
 * possibly cut short.
 */
enum jstate {
	J_TOP,		/* between top-level values */
	J_VALUE,	/* a value must follow */
	J_VALUE_OR_CLOSE,	/* after '[' */
	J_KEY_OR_CLOSE,	/* after '{' */
	J_KEY,		/* after ',' in an object */
	J_COLON,
	J_COMMA_OR_CLOSE
};

static int
json_scan(const unsigned char *p, size_t n, int complete, size_t *nvalues,
    int *multiline)
{
	unsigned char	 stack[KIND_WINDOW / 8 + 1];	/* 1: object */
	size_t		 depth = 0, i = 0, j;
	enum jstate	 st = J_TOP;
	unsigned char	 c;

	*nvalues = 0;
	*multiline = 0;
	while (i < n) {
		c = p[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			if (c == '\n' && depth > 0)
				*multiline = 1;
			i++;
			continue;
		}
		switch (st) {
		case J_TOP:
			if (c != '{' && c != '[')
				return -1;
			break;
		case J_KEY_OR_CLOSE:
			if (c == '}')
				goto close;
			/* FALLTHROUGH */
		case J_KEY:
			if (c != '"')
				return -1;
			break;
		case J_COLON:
			if (c != ':')
				return -1;
			st = J_VALUE;
			i++;
			continue;
		case J_COMMA_OR_CLOSE:
			if (c == ',') {
				st = (stack[(depth - 1) / 8] &
				    (1 << ((depth - 1) % 8))) ? J_KEY : J_VALUE;
				i++;
				continue;
			}
			if (c == '}' || c == ']')
				goto close;
			return -1;
		case J_VALUE_OR_CLOSE:
			if (c == ']')
				goto close;
			break;
		case J_VALUE:
			break;
		}

		/* A value (or a key, in the key states) starts at i. */
		if (c == '{' || c == '[') {
			if (depth >= KIND_WINDOW)
				return -1;
			if (c == '{')
				stack[depth / 8] |= 1 << (depth % 8);
			else
				stack[depth / 8] &= ~(1 << (depth % 8));
			depth++;
			st = c == '{' ? J_KEY_OR_CLOSE : J_VALUE_OR_CLOSE;
			i++;
			continue;
		}
		if (c == '"') {
			for (j = i + 1; j < n; j++) {
				if (p[j] == '"')
					break;
				if (p[j] < 0x20)
					return -1;
				if (p[j] != '\\')
					continue;
				if (++j >= n)
					break;
				if (p[j] == 'u') {
					size_t k;

					for (k = 1; k <= 4 && j + k < n; k++) {
						if (!isxdigit(p[j + k]))
							return -1;
					}
					j += 4;
				} else if (strchr("\"\\/bfnrt", p[j]) == NULL ||
				    p[j] == '\0')
					return -1;
			}
			if (j >= n)
				goto cut;
			i = j + 1;
			st = (st == J_KEY || st == J_KEY_OR_CLOSE) ? J_COLON :
			    J_COMMA_OR_CLOSE;
			continue;
		}
		if (st == J_KEY || st == J_KEY_OR_CLOSE || st == J_TOP)
			return -1;
		if (c == 't' || c == 'f' || c == 'n') {
			const char *lit = c == 't' ? "true" :
			    c == 'f' ? "false" : "null";
			size_t l = strlen(lit);

			for (j = 0; j < l && i + j < n; j++) {
				if (p[i + j] != (unsigned char)lit[j])
					return -1;
			}
			if (j < l)
				goto cut;
			i += l;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
			j = i;
			if (p[j] == '-')
				j++;
			if (j >= n)
				goto cut;
			if (p[j] == '0')
				j++;
			else if (p[j] >= '1' && p[j] <= '9') {
				while (j < n && p[j] >= '0' && p[j] <= '9')
					j++;
			} else
				return -1;
			if (j < n && p[j] == '.') {
				j++;
				if (j >= n)
					goto cut;
				if (p[j] < '0' || p[j] > '9')
					return -1;
				while (j < n && p[j] >= '0' && p[j] <= '9')
					j++;
			}
			if (j < n && (p[j] == 'e' || p[j] == 'E')) {
				j++;
				if (j < n && (p[j] == '+' || p[j] == '-'))
					j++;
				if (j >= n)
					goto cut;
				if (p[j] < '0' || p[j] > '9')
					return -1;
				while (j < n && p[j] >= '0' && p[j] <= '9')
					j++;
			}
			if (j >= n && !complete)
				return 0;
			i = j;
		} else
			return -1;
		/* A scalar inside a container (never at the top). */
		if (i < n && (p[i] == '\0' ||
		    strchr(" \t\r\n,]}", p[i]) == NULL))
			return -1;
		st = J_COMMA_OR_CLOSE;
		continue;
close:
		if ((c == '}') != ((stack[(depth - 1) / 8] &
		    (1 << ((depth - 1) % 8))) != 0))
			return -1;
		depth--;
		i++;
		if (depth == 0) {
			(*nvalues)++;
			st = J_TOP;
		} else
			st = J_COMMA_OR_CLOSE;
	}
	if (complete && st != J_TOP)
		return -1;
	if (*nvalues == 0 && st == J_TOP)
		return -1;
	if (st == J_TOP)
		return 0;
cut:
	/* A value cut by the end of the window counts too. */
	if (complete)
		return -1;
	(*nvalues)++;
	return 0;
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
	int			 infence = 0, prevblank = 1, last;

	memset(f, 0, sizeof *f);
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
			prevblank = 1;
			prev = p;
			prevn = n;
			if (last)
				break;
			continue;
		}
		f->nonblank++;
		if (ofl_fmt_log_line(p, n)) {
			f->loglike++;
			if (f->first_loglike == -1)
				f->first_loglike = 1;
		} else if (f->first_loglike == -1)
			f->first_loglike = 0;
		if (fence_line(p, n)) {
			f->fences++;
			infence = !infence;
		} else if (!infence) {
			if (atx_heading(p, n) && (prevblank || f->lines == 1))
				f->headings++;
			if (list_item(p, n))
				f->lists++;
			if (n > 0 && p[0] == '|' && (memmem(p, n, "|---", 4) ||
			    memmem(p, n, "| ---", 5) ||
			    memmem(p, n, "|:--", 4)))
				f->tablesep++;
			f->links += count_links(p, n);
			f->tags += count_tags(p, n);
			if (yaml_key(p, n))
				f->yamlkeys++;
		}
		prevblank = 0;
		prev = p;
		prevn = n;
		if (last)
			break;
	}
	if (f->first_loglike == -1)
		f->first_loglike = 0;
}

/*
 * CSV (delim ',') or TSV (delim '\t'): at least two records, the first
 * with at least two fields, every later record with as many.  Quotes
 * count only at the start of a field, as in RFC 4180.  Prose that
 * happens to have one comma per line is not a table: there nearly every
 * comma is followed by a space.
 */
static int
csv_shape(const unsigned char *p, size_t n, int complete, int delim,
    size_t *cols)
{
	size_t	i = 0, fields, records = 0, ndelim = 0, spaced = 0;
	size_t	first = 0, end, lastrec, rend;
	int	inq, atstart;

	*cols = 0;
	end = n;
	if (!complete) {
		/* Drop the last, partial line. */
		while (end > 0 && p[end - 1] != '\n')
			end--;
	}
	while (i < end && records < KIND_CSVRECS) {
		/* One record. */
		fields = 1;
		inq = 0;
		atstart = 1;
		lastrec = i;
		for (; i < end; i++) {
			unsigned char c = p[i];

			if (inq) {
				if (c == '"') {
					if (i + 1 < end && p[i + 1] == '"')
						i++;
					else
						inq = 0;
				}
				continue;
			}
			if (c == '"' && atstart) {
				inq = 1;
				atstart = 0;
				continue;
			}
			if (c == delim) {
				fields++;
				ndelim++;
				if (i + 1 < end && p[i + 1] == ' ')
					spaced++;
				atstart = 1;
				continue;
			}
			if (c == '\n')
				break;
			if (c != '\r')
				atstart = 0;
		}
		if (inq)
			return 0;	/* an unclosed quote */
		rend = i;
		if (i < end)
			i++;		/* the newline */
		if (fields == 1 && ofl_blank(p + lastrec, rend - lastrec -
		    (rend > lastrec && p[rend - 1] == '\r'))) {
			/* Blank lines may only end the text. */
			while (i < end && (p[i] == '\n' || p[i] == '\r' ||
			    p[i] == ' ' || p[i] == '\t'))
				i++;
			if (i < end)
				return 0;
			break;
		}
		if (records == 0 && fields < 2)
			return 0;
		if (records == 0)
			first = fields;
		else if (fields != first)
			return 0;
		records++;
	}
	if (records < 2 || first < 2)
		return 0;
	if (delim == ',' && spaced * 10 >= ndelim * 9 && first <= 3)
		return 0;
	if (first == 2 && records < 3)
		return 0;
	*cols = first;
	return 1;
}
