/*
 * kind.c: what kind of content an artifact holds, guessed from its first
 * bytes only (never from a file name), and the error and warning counts
 * gathered line by line while content streams in.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#endif

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
static int	 log_line(const unsigned char *, size_t);
static int	 level_word(const unsigned char *, size_t, int);
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
static int	 diff_line(const unsigned char *, size_t);

struct lsq;
static const char *ls_next(const char *, const char *);
static void	 ls_init(void);
static int	 value_is(const char *, size_t, const char *);
static void	 lsq_to(struct lsq *, const char *, size_t);
static int	 ls_dumped(struct lsq *, const char *, size_t);
static int	 ls_benign(struct lsq *, const char *, size_t, size_t, size_t);
static int	 ls_word(struct lsq *, const char *, size_t, size_t, size_t);
static int	 ls_at(struct lsq *, const char *, size_t, size_t);

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

/*
 * Does a line look like a log line: a timestamp or syslog date at its
 * start (maybe in brackets, maybe after a word: "[task 2024-...]"), or a
 * level token among its first words?
 */
static int
log_line(const unsigned char *p, size_t n)
{
	static const char *months[] = { "Jan", "Feb", "Mar", "Apr", "May",
	    "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	static const char *days[] = { "Mon", "Tue", "Wed", "Thu", "Fri",
	    "Sat", "Sun" };
	size_t	i = 0, d, k, w;

	if (n > 0 && p[0] == '<') {
		/* A syslog priority, "<34>". */
		for (i = 1; i < n && i < 5 && p[i] >= '0' && p[i] <= '9'; i++)
			;
		if (i < n && p[i] == '>' && i > 1)
			i++;
		else
			i = 0;
	}
	if (i < n && p[i] == '[') {
		i++;
		/* A word before the time stamp: "[taskcluster 2024-...". */
		for (k = i; k < n && k - i < 24 && ((p[k] >= 'a' &&
		    p[k] <= 'z') || (p[k] >= 'A' && p[k] <= 'Z') ||
		    p[k] == '-' || p[k] == '_'); k++)
			;
		if (k > i && k < n && p[k] == ' ' && k + 1 < n &&
		    p[k + 1] >= '0' && p[k + 1] <= '9')
			i = k + 1;
	}

	/* Digits and separators: 2024-01-02, 17/06/09, 12:34:56. */
	for (d = i; d < n && p[d] >= '0' && p[d] <= '9'; d++)
		;
	d -= i;
	if (d >= 1 && d <= 4 && i + d + 1 < n &&
	    strchr("-/:.", p[i + d]) != NULL && p[i + d] != '\0' &&
	    p[i + d + 1] >= '0' && p[i + d + 1] <= '9') {
		/* Need a second separator of the same kind. */
		for (k = i + d + 1; k < n && k < i + 12 &&
		    p[k] >= '0' && p[k] <= '9'; k++)
			;
		if (k < n && p[k] == p[i + d])
			return 1;
	}
	/* 081109 203615, 20240102 12:00:00, 20240102T120000. */
	if ((d == 6 || d == 8) && i + d + 1 < n &&
	    (p[i + d] == ' ' || p[i + d] == 'T') &&
	    p[i + d + 1] >= '0' && p[i + d + 1] <= '9')
		return 1;
	/* Seconds or milliseconds since the epoch. */
	if (d >= 10 && d <= 13 && i + d < n &&
	    (p[i + d] == ' ' || p[i + d] == '.' || p[i + d] == ']'))
		return 1;
	/* Syslog dates: "Jun 14 15:16:01", "Sun Dec 04 04:47:44 2005". */
	if (d == 0 && i + 5 < n) {
		for (w = 0; w < 7; w++) {
			if (memcmp(p + i, days[w], 3) == 0 &&
			    (p[i + 3] == ' ' || p[i + 3] == ','))
				break;
		}
		if (w < 7) {
			i += 4;
			while (i < n && p[i] == ' ')
				i++;
		}
		for (w = 0; w < 12 && i + 5 < n; w++) {
			if (memcmp(p + i, months[w], 3) == 0 &&
			    p[i + 3] == ' ' && (p[i + 4] == ' ' ||
			    (p[i + 4] >= '0' && p[i + 4] <= '9')))
				return 1;
		}
	}
	/* glog: "I0102 12:00:00.000000 ...". */
	if (n >= 6 && strchr("IWEF", p[0]) != NULL && p[0] != '\0' &&
	    p[1] >= '0' && p[1] <= '9' && p[2] >= '0' && p[2] <= '9' &&
	    p[3] >= '0' && p[3] <= '9' && p[4] >= '0' && p[4] <= '9' &&
	    p[5] == ' ')
		return 1;

	/* A level token among the first words. */
	return level_word(p, n < 64 ? n : 64, 1);
}

/*
 * A level token as a word: upper case anywhere ("INFO", "ERROR"), lower
 * case only in brackets or after "level=" ("[info]").  strict limits the
 * search to the first few words.
 */
static int
level_word(const unsigned char *p, size_t n, int strict)
{
	static const char *levels[] = { "info", "warn", "warning", "error",
	    "err", "debug", "trace", "fatal", "critical", "crit", "notice",
	    "severe", "emerg", "alert", "verbose" };
	size_t	i, j, k, l, words = 0;
	int	upper, lower;

	for (i = 0; i < n; i = j) {
		while (i < n && !((p[i] >= 'a' && p[i] <= 'z') ||
		    (p[i] >= 'A' && p[i] <= 'Z')))
			i++;
		upper = lower = 0;
		for (j = i; j < n && ((p[j] >= 'a' && p[j] <= 'z') ||
		    (p[j] >= 'A' && p[j] <= 'Z') || p[j] == '_' ||
		    (p[j] >= '0' && p[j] <= '9')); j++) {
			if (p[j] >= 'a' && p[j] <= 'z')
				lower = 1;
			else if (p[j] >= 'A' && p[j] <= 'Z')
				upper = 1;
		}
		if (j == i)
			break;
		if (strict && ++words > 8)
			break;
		l = j - i;
		if (upper == lower)
			continue;
		if (lower && !((i > 0 && j < n && ((p[i - 1] == '[' &&
		    p[j] == ']') || (p[i - 1] == '<' && p[j] == '>'))) ||
		    (i >= 6 && memcmp(p + i - 6, "level=", 6) == 0)))
			continue;
		if (i > 0 && (p[i - 1] == '_' || p[i - 1] == '-' ||
		    p[i - 1] == '.' || p[i - 1] == '/'))
			continue;
		if (j < n && (p[j] == '-' && j + 1 < n && p[j + 1] != ' '))
			continue;
		for (k = 0; k < sizeof levels / sizeof levels[0]; k++) {
			if (strlen(levels[k]) == l &&
			    strncasecmp((const char *)p + i, levels[k], l) == 0)
				return 1;
		}
	}
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

static int
diff_line(const unsigned char *p, size_t n)
{
	static const char *hdrs[] = { "diff ", "index ", "--- ", "+++ ",
	    "@@ ", "new file mode", "deleted file mode", "old mode",
	    "new mode", "similarity index", "dissimilarity index",
	    "rename from", "rename to", "copy from", "copy to",
	    "Binary files", "GIT binary patch", "literal ", "delta ",
	    "commit ", "Author:", "Date:", "Merge:", "Index: ", "=====",
	    "Only in " };
	size_t	i;

	if (n == 0 || p[0] == ' ' || p[0] == '+' || p[0] == '-' ||
	    p[0] == '\\')
		return 1;
	for (i = 0; i < sizeof hdrs / sizeof hdrs[0]; i++) {
		if (starts(p, n, hdrs[i]))
			return 1;
	}
	return 0;
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
		if (diff_line(p, n))
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
		if (log_line(p, n)) {
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

/*
 * Line statistics.  A byte table marks the bytes that can start a word
 * of interest; only those at a word start are looked at more closely,
 * so most bytes cost one table look-up.
 */
#define LS_WORD		0x01	/* letters, digits, '_' */
#define LS_CAND		0x02	/* can start a keyword */
#define LS_COLON	0x04

static unsigned char	ls_table[256];
static int		ls_ready;

static void
ls_init(void)
{
	int	c;

	for (c = 'a'; c <= 'z'; c++)
		ls_table[c] |= LS_WORD;
	for (c = 'A'; c <= 'Z'; c++)
		ls_table[c] |= LS_WORD;
	for (c = '0'; c <= '9'; c++)
		ls_table[c] |= LS_WORD;
	ls_table['_'] |= LS_WORD;
	/* Bytes >= 0x80 join words, so "ñerror" is no match. */
	for (c = 0x80; c < 0x100; c++)
		ls_table[c] |= LS_WORD;
	ls_table['e'] |= LS_CAND;
	ls_table['E'] |= LS_CAND;
	ls_table['f'] |= LS_CAND;
	ls_table['F'] |= LS_CAND;
	ls_table['w'] |= LS_CAND;
	ls_table['W'] |= LS_CAND;
	ls_table['p'] |= LS_CAND;
	ls_table['T'] |= LS_CAND;
	ls_table['A'] |= LS_CAND;
	ls_table['S'] |= LS_CAND;
	ls_table[':'] |= LS_COLON;
	ls_ready = 1;
}

/* Is the word at p (n bytes) lower-case equal to s? */
static inline int
word_is(const char *p, size_t n, const char *s, size_t l)
{
	size_t	i;

	if (n != l)
		return 0;
	for (i = 0; i < l; i++) {
		if ((p[i] | 0x20) != s[i])
			return 0;
	}
	return 1;
}

/* Does the text at p (n bytes) start with s, ignoring case, as a word? */
static int
value_is(const char *p, size_t n, const char *s)
{
	size_t	l = strlen(s);

	if (n < l || strncasecmp(p, s, l) != 0)
		return 0;
	return n == l || !(ls_table[(unsigned char)p[l]] & LS_WORD);
}

/*
 * Where a line is in Python-like data ({'key': 'value'}): a cursor that
 * moves forward through the line as keywords are looked at, so a line
 * costs one pass however many keywords it has.
 */
struct lsq {
	size_t	pos;
	int	quote;		/* the quote we are inside, or 0 */
	int	dump;		/* seen "{'" or "['" */
};

static void
lsq_to(struct lsq *q, const char *line, size_t to)
{
	size_t	i;
	int	c;

	if (to < q->pos) {
		q->pos = 0;
		q->quote = 0;
		q->dump = 0;
	}
	for (i = q->pos; i < to; i++) {
		c = (unsigned char)line[i];
		if (q->quote != 0) {
			if (c == '\\')
				i++;
			else if (c == q->quote)
				q->quote = 0;
		} else if (c == '\'' || c == '"') {
			q->quote = c;
			if (c == '\'' && i > 0 && (line[i - 1] == '{' ||
			    line[i - 1] == '['))
				q->dump = 1;
		}
	}
	q->pos = i;
}

/* Is offset ws inside a string of a data dump: 'a compiler error:'? */
static int
ls_dumped(struct lsq *q, const char *line, size_t ws)
{
	lsq_to(q, line, ws);
	return q->dump && q->quote == '\'';
}

/*
 * Is the word at ws..we part of a file name, a path or a compound
 * ("AddressSanitizer.h", "src/error/", "non-fatal", "Traceback.py")?
 * Such a word names a thing; it does not report trouble.
 */
int
ofl_word_in_name(const char *line, size_t n, size_t ws, size_t we)
{
	int	prev = ws > 0 ? (unsigned char)line[ws - 1] : 0;
	int	next = we < n ? (unsigned char)line[we] : 0;

	if (!ls_ready)
		ls_init();
	if (prev == '-' || prev == '/' || prev == '.')
		return 1;
	return (next == '-' || next == '.' || next == '/') && we + 1 < n &&
	    (ls_table[(unsigned char)line[we + 1]] & LS_WORD);
}

/*
 * Is the keyword at ws..we not a report of trouble?  "0 errors", "no
 * errors", "errors: 0", "failed=0", "error=false"; part of a compound,
 * flag or file name ("non-fatal", "--screenshot-on-fail", "error.c",
 * "/error/"); or a quoted word ('level': 'error').
 */
static int
ls_benign(struct lsq *q, const char *line, size_t n, size_t ws, size_t we)
{
	int	prev = ws > 0 ? (unsigned char)line[ws - 1] : 0;
	int	next = we < n ? (unsigned char)line[we] : 0;
	size_t	i;

	if (ofl_word_in_name(line, n, ws, we))
		return 1;
	if ((prev == '\'' || prev == '`') && next == prev)
		return 1;
	if (next == ':' && we + 1 < n && line[we + 1] == ':')
		return 1;	/* a scope: Error::new */
	if (ws >= 2 && prev == ' ' && line[ws - 2] == '0' &&
	    (ws == 2 || !(ls_table[(unsigned char)line[ws - 3]] & LS_WORD)))
		return 1;
	if (ws >= 3 && prev == ' ' && (line[ws - 2] | 0x20) == 'o' &&
	    (line[ws - 3] | 0x20) == 'n' &&
	    (ws == 3 || !(ls_table[(unsigned char)line[ws - 4]] & LS_WORD)))
		return 1;
	if (next == '=' || next == ':') {
		for (i = we + 1; i < n && line[i] == ' '; i++)
			;
		if (value_is(line + i, n - i, "0") ||
		    value_is(line + i, n - i, "false") ||
		    value_is(line + i, n - i, "none") ||
		    value_is(line + i, n - i, "null") ||
		    value_is(line + i, n - i, "nil") ||
		    value_is(line + i, n - i, "no"))
			return 1;
	}
	return ls_dumped(q, line, ws);
}

/*
 * Classify the word at ws..we: 2 error, 1 warning, 0 neither.
 */
static int
ls_word(struct lsq *q, const char *line, size_t n, size_t ws, size_t we)
{
	const char	*w = line + ws;
	size_t		 l = we - ws;

	switch (w[0]) {
	case 'e':
	case 'E':
		if ((word_is(w, l, "error", 5) || word_is(w, l, "errors", 6) ||
		    word_is(w, l, "exception", 9)) &&
		    !ls_benign(q, line, n, ws, we))
			return 2;
		break;
	case 'f':
	case 'F':
		if ((word_is(w, l, "fail", 4) || word_is(w, l, "failed", 6) ||
		    word_is(w, l, "failure", 7) ||
		    word_is(w, l, "failures", 8) ||
		    word_is(w, l, "fatal", 5)) &&
		    !ls_benign(q, line, n, ws, we))
			return 2;
		break;
	case 'w':
	case 'W':
		if ((word_is(w, l, "warn", 4) || word_is(w, l, "warning", 7) ||
		    word_is(w, l, "warnings", 8)) &&
		    !ls_benign(q, line, n, ws, we))
			return 1;
		break;
	case 'p':
		if (l == 5 && memcmp(w, "panic", 5) == 0 && we < n &&
		    line[we] == ':')
			return ls_dumped(q, line, ws) ? 0 : 2;
		break;
	case 'T':
		if (l == 9 && memcmp(w, "Traceback", 9) == 0)
			return ofl_word_in_name(line, n, ws, we) ||
			    ls_dumped(q, line, ws) ? 0 : 2;
		if (l == 4 && memcmp(w, "TEST", 4) == 0 && n - ws >= 16 &&
		    memcmp(w, "TEST-UNEXPECTED-", 16) == 0)
			return ofl_word_in_name(line, n, ws, ws) ||
			    ls_dumped(q, line, ws) ? 0 : 2;
		break;
	case 'A':
		if (l == 16 && memcmp(w, "AddressSanitizer", 16) == 0)
			return ofl_word_in_name(line, n, ws, we) ||
			    ls_dumped(q, line, ws) ? 0 : 2;
		break;
	case 'S':
		if (l == 12 && memcmp(w, "Segmentation", 12) == 0 &&
		    n - ws >= 18 && memcmp(w + 12, " fault", 6) == 0)
			return ofl_word_in_name(line, n, ws, ws + 18) ||
			    ls_dumped(q, line, ws) ? 0 : 2;
		break;
	}
	return 0;
}

/*
 * Look at position i: a keyword that starts a word there, or a colon
 * after "Error" or "Exception".  Returns 2 error, 1 warning, 0 neither.
 */
static int
ls_at(struct lsq *q, const char *line, size_t n, size_t i)
{
	const unsigned char	*p = (const unsigned char *)line;
	size_t			 e;

	if (p[i] == ':') {
		/*
		 * "ValueError: ...", "java.io.IOException: ...", unless the
		 * name is quoted or is a scope ("Error::").
		 */
		if (!((i >= 5 && memcmp(p + i - 5, "Error", 5) == 0) ||
		    (i >= 9 && memcmp(p + i - 9, "Exception", 9) == 0)))
			return 0;
		if (i + 1 < n && p[i + 1] != ' ' && p[i + 1] != '\t')
			return 0;
		for (e = i; e > 0 && ((ls_table[p[e - 1]] & LS_WORD) ||
		    p[e - 1] == '.' || p[e - 1] == '$'); e--)
			;
		if (e > 0 && (p[e - 1] == '\'' || p[e - 1] == '"' ||
		    p[e - 1] == '`'))
			return 0;
		return ls_dumped(q, line, e) ? 0 : 2;
	}
	if (!(ls_table[p[i]] & LS_CAND) ||
	    (i > 0 && (ls_table[p[i - 1]] & LS_WORD)))
		return 0;
	for (e = i; e < n && (ls_table[p[e]] & LS_WORD); e++)
		;
	return ls_word(q, line, n, i, e);
}

#if defined(__GNUC__)
/*
 * Sixteen bytes at a time: the positions where a keyword could start
 * (a word start and the keyword's first two letters) or a colon follows
 * 'r' or 'n'.  Blocks without any, nearly all of them, cost a few vector
 * operations.
 */
typedef unsigned char	ls_v16 __attribute__((__vector_size__(16)));
typedef signed char	ls_m16 __attribute__((__vector_size__(16)));

/*
 * The mask of those positions, for vectors of any width: V the byte
 * vector type, M its mask type; v the bytes, vp and vn the same shifted
 * by one back and forward.
 */
#define LS_LC(x)	((x) | 0x20)
#define LS_PAIR(M, v, vn)						\
	(((M)(LS_LC(v) == 'e') &					\
	    ((M)(LS_LC(vn) == 'r') | (M)(LS_LC(vn) == 'x'))) |		\
	    (((M)(LS_LC(v) == 'f') | (M)(LS_LC(v) == 'w')) &		\
	    (M)(LS_LC(vn) == 'a')) |					\
	    ((M)((v) == 'p') & (M)((vn) == 'a')) |			\
	    ((M)((v) == 'T') & ((M)((vn) == 'r') | (M)((vn) == 'E'))) |	\
	    ((M)((v) == 'A') & (M)((vn) == 'd')) |			\
	    ((M)((v) == 'S') & (M)((vn) == 'e')))
#define LS_ISWORD(V, M, x)						\
	((M)((V)(LS_LC(x) - 'a') < 26) | (M)((V)((x) - '0') < 10) |	\
	    (M)((x) == '_') | (M)((x) >= 0x80))
#define LS_MASK(V, M, v, vp, vn)					\
	((LS_PAIR(M, v, vn) & ~LS_ISWORD(V, M, vp)) |			\
	    ((M)((v) == ':') & ((M)((vp) == 'r') | (M)((vp) == 'n'))))

static inline int
ls_block(const unsigned char *p)
{
	ls_v16		v, vp, vn;
	ls_m16		m;
	uint64_t	w[2];

	memcpy(&v, p, sizeof v);
	memcpy(&vp, p - 1, sizeof vp);
	memcpy(&vn, p + 1, sizeof vn);
	m = LS_MASK(ls_v16, ls_m16, v, vp, vn);
	memcpy(w, &m, sizeof w);
	return (w[0] | w[1]) != 0;
}
#endif

void
ofl_linestat_line(struct ofl_linestat *ls, const char *line, size_t n,
    uint64_t lineno)
{
	const unsigned char	*p = (const unsigned char *)line;
	struct lsq		 q = { 0, 0, 0 };
	size_t			 i = 0, j;
	int			 found = 0, r;

	if (!ls_ready)
		ls_init();
#if defined(__GNUC__)
	/* Position 0 and the last 16 bytes go the slow way. */
	if (n > 0 && (found = ls_at(&q, line, n, 0)) == 2)
		goto out;
	for (i = 1; i + 17 <= n; i += 16) {
		i = (size_t)(ls_next(line + i, line + n) - line);
		if (i + 17 > n)
			break;
		for (j = i; j < i + 16; j++) {
			if ((r = ls_at(&q, line, n, j)) > found) {
				found = r;
				if (found == 2)
					goto out;
			}
		}
	}
	if (i > 1 && i + 1 < n) {
		/* The rest in one block that overlaps the last one. */
		i = n - 17;
		if (ls_block(p + i)) {
			for (j = i; j < i + 16; j++) {
				if ((r = ls_at(&q, line, n, j)) > found) {
					found = r;
					if (found == 2)
						goto out;
				}
			}
		}
		i += 16;
	}
#endif
	for (; i < n; i++) {
		if ((r = ls_at(&q, line, n, i)) > found) {
			found = r;
			if (found == 2)
				break;
		}
	}
out:
	if (found == 2) {
		ls->errors++;
		if (ls->first_error == 0)
			ls->first_error = lineno;
	} else if (found == 1)
		ls->warnings++;
}

#if defined(__GNUC__) && defined(__x86_64__)
/* ls_block, 32 bytes at a time with AVX2. */
typedef unsigned char	ls_v32 __attribute__((__vector_size__(32)));
typedef signed char	ls_m32 __attribute__((__vector_size__(32)));

__attribute__((__target__("avx2"))) static int
ls_block32(const unsigned char *p)
{
	ls_v32		v, vp, vn;
	ls_m32		m;
	uint64_t	w[4];

	memcpy(&v, p, sizeof v);
	memcpy(&vp, p - 1, sizeof vp);
	memcpy(&vn, p + 1, sizeof vn);
	m = LS_MASK(ls_v32, ls_m32, v, vp, vn);
	memcpy(w, &m, sizeof w);
	return (w[0] | w[1] | w[2] | w[3]) != 0;
}

/*
 * Asked on first use, not by __builtin_cpu_supports, whose start-up
 * code costs every process a series of cpuid (slow in a VM).
 */
static int
have_avx2(void)
{
	unsigned int	a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) ||
	    !(c & bit_AVX))
		return 0;
	/* The system saves the AVX registers. */
	__asm__ volatile ("xgetbv" : "=a" (lo), "=d" (hi) : "c" (0));
	if ((lo & 6) != 6)
		return 0;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) &&
	    (b & bit_AVX2) != 0;
}

__attribute__((__target__("avx2"))) static const char *
ls_next_avx2(const char *p, const char *end)
{
	while (p + 33 <= end && !ls_block32((const unsigned char *)p))
		p += 32;
	return p;
}
#endif

/*
 * The first 16-byte block from p (p[-1] readable) where a keyword may
 * start, or a block start less than 17 bytes from the end.
 */
static const char *
ls_next(const char *p, const char *end)
{
#if defined(__GNUC__) && defined(__x86_64__)
	static int	avx2 = -1;

	if (avx2 == -1)
		avx2 = have_avx2();
	if (avx2)
		p = ls_next_avx2(p, end);
#endif
#if defined(__GNUC__)
	for (; p + 17 <= end; p += 16)
		if (ls_block((const unsigned char *)p))
			break;
#endif
	return p;
}

/* One line of a run: its first cap bytes; returns the next line. */
static const char *
ls_one(struct ofl_linestat *ls, const char *line, const char *end,
    uint64_t lineno, size_t cap)
{
	const char	*nl = memchr(line, '\n', (size_t)(end - line));
	size_t		 n;

	if (nl == NULL)
		nl = end - 1;	/* not a run of whole lines: stop */
	n = (size_t)(nl - line);
	ofl_linestat_line(ls, line, n > cap ? cap : n, lineno);
	return nl + 1;
}

uint64_t
ofl_linestat_lines(struct ofl_linestat *ls, const char *buf, size_t n,
    uint64_t lineno, size_t cap)
{
	const char	*line = buf, *end = buf + n, *hit, *nl;
	uint64_t	 k = 0;

	if (n == 0)
		return 0;
	/* The first line alone: a block needs the byte before it. */
	line = ls_one(ls, line, end, lineno + k++, cap);
#if defined(__GNUC__)
	while (line < end) {
		/*
		 * The next block where a keyword may start; the lines it
		 * touches get the full look, the lines before it none.
		 */
		hit = ls_next(line, end);
		if (hit + 17 > end)
			hit = end - (end - line < 17 ? end - line : 17);
		while ((nl = memchr(line, '\n', (size_t)(end - line))) !=
		    NULL && nl < hit) {
			k++;
			line = nl + 1;
		}
		while (line < end && line < hit + 16)
			line = ls_one(ls, line, end, lineno + k++, cap);
	}
#else
	while (line < end)
		line = ls_one(ls, line, end, lineno + k++, cap);
#endif
	return k;
}
