/*
 * fmt-log.c: logs.  What makes a line look like a log line (for kind
 * detection), the line scanner that counts error and warning lines while
 * content streams in, the one rule for an error line and its signature
 * (the notice's error groups and ofl-extract --errors cluster by it), and
 * how a log's lines hold together when it is cut into chunks (a stack
 * trace, a traceback or a panic stays whole and titles its chunk).  The
 * starts and ends of error blocks for --errors are in fmt-log-trace.c.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#include <emmintrin.h>
#endif

#include "ofl.h"
#include "fmt-log.h"
#include "banned.h"

#define HAS(p, n, s)	((n) >= sizeof(s) - 1 &&			\
			    memcmp((p), (s), sizeof(s) - 1) == 0)
#define SIG_SCAN	4096	/* bytes of a line the rule looks at */

static int	 level_word(const unsigned char *, size_t, int);
static int	 early_time(const unsigned char *, size_t);
static size_t	 body_len(const char *, size_t);
static size_t	 ws_len(const char *, size_t);
static const char *ls_next(const char *, const char *);
static void	 ls_init(void);
static int	 value_is(const char *, size_t, const char *);
struct lsq;
static void	 lsq_to(struct lsq *, const char *, size_t);
static int	 ls_dumped(struct lsq *, const char *, size_t);
static int	 ls_benign(struct lsq *, const char *, size_t, size_t, size_t);
static int	 ls_word(struct lsq *, const char *, size_t, size_t, size_t);
static int	 ls_at(struct lsq *, const char *, size_t, size_t);

/* Length without the trailing newline and carriage returns. */
static size_t
body_len(const char *p, size_t n)
{
	while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	return n;
}

static size_t
ws_len(const char *p, size_t n)
{
	size_t	i = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i;
}

/*
 * Does a line look like a log line: a timestamp or syslog date at its
 * start (maybe in brackets, maybe after a word: "[task 2024-...]"), or a
 * level token among its first words?
 */
int
ofl_fmt_log_line(const unsigned char *p, size_t n)
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

	/* A time among the first words, or a level token. */
	return early_time(p, n < 64 ? n : 64) ||
	    level_word(p, n < 64 ? n : 64, 1);
}

/*
 * A time of day (12:34:56, 1:02:03.456) or seconds since the epoch (ten
 * digits: 2001 to 2286) as one of the first eight words, after fields
 * the rules above do not know: "03-17 16:13:38.811", "[10.30 16:49:06]",
 * "20171223-22:15:29:606|", "- 1131566461 2005.11.09", "134681 node-2
 * unix.hw state 1077804742".  Only the start of a word counts, so a
 * duration inside a sentence's later words does not.
 */
static int
early_time(const unsigned char *p, size_t n)
{
	size_t	i, d, words = 0;

	for (i = 0; i < n && words < 8; i++) {
		if (p[i] == ' ' || p[i] == '\t') {
			while (i + 1 < n && (p[i + 1] == ' ' ||
			    p[i + 1] == '\t'))
				i++;
			words++;
			continue;
		}
		if (p[i] < '0' || p[i] > '9' || (i > 0 && ((p[i - 1] >= '0' &&
		    p[i - 1] <= '9') || p[i - 1] == ':' || p[i - 1] == '.')))
			continue;
		for (d = i; d < n && p[d] >= '0' && p[d] <= '9'; d++)
			;
		d -= i;
		/* h:mm:ss or hh:mm:ss */
		if ((d == 1 || d == 2) && i + d + 5 < n && p[i + d] == ':' &&
		    p[i + d + 1] >= '0' && p[i + d + 1] <= '5' &&
		    p[i + d + 2] >= '0' && p[i + d + 2] <= '9' &&
		    p[i + d + 3] == ':' &&
		    p[i + d + 4] >= '0' && p[i + d + 4] <= '5' &&
		    p[i + d + 5] >= '0' && p[i + d + 5] <= '9')
			return 1;
		/* Epoch seconds, a whole word. */
		if (d == 10 && p[i] >= '1' && (i == 0 || p[i - 1] == ' ' ||
		    p[i - 1] == '\t' || p[i - 1] == '[') &&
		    (i + d == n || p[i + d] == ' ' || p[i + d] == '\t' ||
		    p[i + d] == '.' || p[i + d] == ']'))
			return 1;
	}
	return 0;
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


/*
 * The signature rule.  A line is an error line when the line scanner
 * counts it as one (looking at its first SIG_SCAN bytes); its signature
 * is the line with its variable parts masked: numbers, hex, ids become
 * <*>, masks joined only by punctuation and spaces (a timestamp, an
 * address) become one, and runs of blanks one space.
 */
int
ofl_fmt_log_is_error(const char *s, size_t n, uint64_t lineno)
{
	struct ofl_linestat	ls;

	memset(&ls, 0, sizeof ls);
	ofl_linestat_line(&ls, s, n > SIG_SCAN ? SIG_SCAN : n, lineno);
	return ls.errors > 0;
}

void
ofl_fmt_log_mask(struct ofl_buf *out, const char *s, size_t n)
{
	size_t	i = 0, j, k, digits, letters, hex, keep;
	int	c;

	if (n > SIG_SCAN)
		n = SIG_SCAN;
	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' ||
	    s[n - 1] == '\t'))
		n--;
	while (i < n) {
		c = (unsigned char)s[i];
		if (c == ' ' || c == '\t') {
			/* Runs of blanks, as one space. */
			if (out->len > 0 && out->data[out->len - 1] != ' ')
				ofl_buf_addc(out, ' ');
			i++;
			continue;
		}
		if (!isalnum(c)) {
			ofl_buf_addc(out, c);
			i++;
			continue;
		}
		for (j = i, digits = letters = hex = 0; j < n &&
		    isalnum((unsigned char)s[j]); j++) {
			c = (unsigned char)s[j];
			if (isdigit(c))
				digits++;
			else
				letters++;
			if (isxdigit(c))
				hex++;
		}
		if (digits > 0 && (letters == 0 || digits >= letters ||
		    (hex == j - i && j - i >= 6) ||
		    (j - i > 2 && s[i] == '0' && (s[i + 1] | 0x20) == 'x'))) {
			/* Join with a mask just before, across punctuation. */
			for (k = out->len; k > 0 &&
			    ofl_in_set(out->data[k - 1], " -:.,/"); k--)
				;
			keep = k >= 3 && memcmp(out->data + k - 3, "<*>",
			    3) == 0;
			if (keep)
				out->len = k;
			else
				ofl_buf_adds(out, "<*>");
		} else
			ofl_buf_add(out, s + i, j - i);
		i = j;
	}
}

/*
 * Chunks: how a log's lines hold together.
 */

enum {
	LS_NONE,
	LS_PY,		/* Python traceback frames */
	LS_PYEXC,	/* after the exception line */
	LS_PYCHAIN,	/* "During handling of the above exception ..." */
	LS_JAVA,	/* "\tat ...", "Caused by: ..." */
	LS_GO,		/* panic and goroutine dumps */
	LS_RUSTMSG,	/* the message of a Rust panic */
	LS_RUST,	/* "note: ...", "stack backtrace:" and frames */
	LS_SAN,		/* a sanitizer report */
	LS_SANEND,	/* after its SUMMARY line */
	LS_FRAMES	/* "#0 0x... in f ()" */
};

static const char py_mark[] = "Traceback (most recent call last):";

static int
java_frame(const char *p, size_t n)
{
	size_t	i = ws_len(p, n), m = n - i;

	p += i;
	if (HAS(p, m, "Caused by: "))
		return 1;
	if (i == 0)
		return 0;
	if (HAS(p, m, "at ") || HAS(p, m, "Suppressed: "))
		return 1;
	return HAS(p, m, "... ") && m > 9 && memcmp(p + m - 5, " more", 5) == 0;
}

static int
go_goroutine(const char *p, size_t n)
{
	return HAS(p, n, "goroutine ") && n > 10 && p[10] >= '0' &&
	    p[10] <= '9' && memchr(p, '[', n) != NULL;
}

static int
go_frame(const char *p, size_t n)
{
	if (HAS(p, n, "created by ") || HAS(p, n, "panic: "))
		return 1;
	return n > 2 && p[n - 1] == ')' && memchr(p, '(', n) != NULL;
}

static int
rust_panic(const char *p, size_t n)
{
	return HAS(p, n, "thread '") &&
	    memmem(p, n, "' panicked at ", 14) != NULL;
}

static int
san_header(const char *p, size_t n)
{
	size_t	i = 2;

	if (!HAS(p, n, "=="))
		return 0;
	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++;
	if (i == 2)
		return 0;
	return HAS(p + i, n - i, "==ERROR: ") ||
	    HAS(p + i, n - i, "==WARNING: ");
}

/* "#0 0x... in f", "    #12 ...": first, when it must be frame 0. */
static int
hash_frame(const char *p, size_t n, int first)
{
	size_t	i = ws_len(p, n);

	if (i + 2 >= n || p[i] != '#' || p[i + 1] < '0' || p[i + 1] > '9')
		return 0;
	return !first || (p[i + 1] == '0' && (p[i + 2] == ' ' ||
	    p[i + 2] == '\t'));
}

static int
ws_at(const char *p, size_t n, size_t k)
{
	return k < n && (p[k] == ' ' || p[k] == '\t');
}

int
ofl_fmt_log_class(struct ofl_logst *s, const char *p, size_t n)
{
	const char	*m;
	size_t		 k;
	int		 blank, prevblank = s->prevblank, previndent = s->previndent;

	s->hl = 0;
	s->hloff = 0;
	n = body_len(p, n);
	blank = ws_len(p, n) == n;
	s->prevblank = blank;
	if (!blank)
		s->previndent = ws_at(p, n, 0);
	k = s->skip;

	switch (s->state) {
	case LS_PY:
		if (blank || ws_at(p, n, 0) || (k > 0 && ws_at(p, n, k)))
			return OFL_BRK_HARD;
		s->state = LS_PYEXC;
		s->hl = 1;
		s->hloff = k < n ? k : 0;
		return OFL_BRK_HARD;
	case LS_PYEXC:
		if (blank)
			return OFL_BRK_HARD;
		if (k < n && (HAS(p + k, n - k, "During handling of the ") ||
		    HAS(p + k, n - k, "The above exception was "))) {
			s->state = LS_PYCHAIN;
			return OFL_BRK_SOFT;
		}
		if (HAS(p, n, "During handling of the ") ||
		    HAS(p, n, "The above exception was ")) {
			s->state = LS_PYCHAIN;
			return OFL_BRK_SOFT;
		}
		if (ws_at(p, n, 0) || (k > 0 && ws_at(p, n, k)))
			return OFL_BRK_HARD;
		s->state = LS_NONE;
		break;
	case LS_PYCHAIN:
		if (blank)
			return OFL_BRK_HARD;
		if (n >= sizeof py_mark - 1 &&
		    (m = memmem(p, n, py_mark, sizeof py_mark - 1)) != NULL) {
			s->state = LS_PY;
			s->skip = (size_t)(m - p);
			return OFL_BRK_SOFT;
		}
		s->state = LS_NONE;
		break;
	case LS_JAVA:
		if (java_frame(p, n))
			return OFL_BRK_HARD;
		s->state = LS_NONE;
		break;
	case LS_GO:
		if (blank || p[0] == '\t' || p[0] == '[' || go_frame(p, n))
			return OFL_BRK_HARD;
		if (go_goroutine(p, n))
			return OFL_BRK_SOFT;
		if (HAS(p, n, "exit status ")) {
			s->state = LS_NONE;
			return OFL_BRK_HARD;
		}
		s->state = LS_NONE;
		break;
	case LS_RUSTMSG:
		if (HAS(p, n, "note: ") || HAS(p, n, "stack backtrace:")) {
			s->state = LS_RUST;
			return OFL_BRK_HARD;
		}
		if (!blank && ++s->count <= 20)
			return OFL_BRK_HARD;
		s->state = LS_NONE;
		break;
	case LS_RUST:
		if (!blank && (ws_at(p, n, 0) || HAS(p, n, "note: ") ||
		    HAS(p, n, "stack backtrace:")))
			return OFL_BRK_HARD;
		s->state = LS_NONE;
		break;
	case LS_SAN:
		if (HAS(p, n, "SUMMARY: "))
			s->state = LS_SANEND;
		return OFL_BRK_HARD;
	case LS_SANEND:
		s->state = LS_NONE;
		if (HAS(p, n, "==") && memmem(p, n, "==ABORTING", 10) != NULL)
			return OFL_BRK_HARD;
		break;
	case LS_FRAMES:
		if (hash_frame(p, n, 0))
			return OFL_BRK_HARD;
		s->state = LS_NONE;
		break;
	}

	/* Outside any block: does one start here? */
	if (n >= sizeof py_mark - 1 &&
	    (m = memmem(p, n, py_mark, sizeof py_mark - 1)) != NULL) {
		s->state = LS_PY;
		s->skip = (size_t)(m - p);
		return OFL_BRK_BLOCK;
	}
	if (java_frame(p, n)) {
		s->state = LS_JAVA;
		s->hl = 2;
		return OFL_BRK_HARD;
	}
	if (HAS(p, n, "Exception in thread \"")) {
		s->state = LS_JAVA;
		s->hl = 1;
		return OFL_BRK_BLOCK;
	}
	if (HAS(p, n, "panic: ") || HAS(p, n, "fatal error: ") ||
	    go_goroutine(p, n)) {
		s->state = LS_GO;
		s->hl = 1;
		return OFL_BRK_BLOCK;
	}
	if (rust_panic(p, n)) {
		s->state = p[n - 1] == ':' ? LS_RUSTMSG : LS_RUST;
		s->count = 0;
		s->hl = 1;
		return OFL_BRK_BLOCK;
	}
	if (san_header(p, n)) {
		s->state = LS_SAN;
		s->hl = 1;
		return OFL_BRK_BLOCK;
	}
	if (hash_frame(p, n, 1)) {
		s->state = LS_FRAMES;
		s->hl = 2;
		return OFL_BRK_HARD;
	}
	if (prevblank && !blank)
		return previndent && !ws_at(p, n, 0) ? OFL_BRK_RECORD :
		    OFL_BRK_PARA;
	return OFL_BRK_FREE;
}

/*
 * The length of a leading timestamp: bracketed groups with a digit
 * ("[task 2025-02-13T11:46:25.598Z]"), tokens of digits and separators
 * ("2024-01-02", "11:46:25,123") and month names before a day ("Jun 9").
 */
static size_t
stamp_len(const char *p, size_t n)
{
	static const char	 months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	const char		*q;
	size_t			 i = 0, j, k, d, lim;

	for (;;) {
		j = i + ws_len(p + i, n - i);
		if (j < n && p[j] == '[') {
			lim = n - j < 80 ? n - j : 80;
			if ((q = memchr(p + j, ']', lim)) == NULL)
				return j;
			for (k = j, d = 0; p + k < q; k++)
				d += p[k] >= '0' && p[k] <= '9';
			if (d == 0)
				return j;
			i = (size_t)(q - p) + 1;
			continue;
		}
		for (k = j, d = 0; k < n; k++) {
			if (p[k] >= '0' && p[k] <= '9')
				d++;
			else if (strchr("-:.,/+TZ", p[k]) == NULL || p[k] == '\0')
				break;
		}
		if (k > j && d > 0 && (k == n || p[k] == ' ' || p[k] == '\t')) {
			i = k;
			continue;
		}
		if (j + 5 <= n && p[j + 3] == ' ') {
			for (k = 0; k < sizeof months - 1; k += 3)
				if (memcmp(p + j, months + k, 3) == 0)
					break;
			d = j + 3 + ws_len(p + j + 3, n - j - 3);
			if (k < sizeof months - 1 && d < n && p[d] >= '0' &&
			    p[d] <= '9') {
				i = j + 3;
				continue;
			}
		}
		return j;
	}
}

/* The title of a log window: a line from off, timestamp stripped. */
void
ofl_fmt_log_headline(struct ofl_buf *b, const char *p, size_t n, size_t off)
{
	n = body_len(p, n);
	if (off > n)
		off = 0;
	p += off;
	n -= off;
	off = stamp_len(p, n);
	p += off;
	n -= off;
	if (n > 160)
		n = ofl_utf8_cut(p, 160);
	ofl_buf_reset(b);
	ofl_buf_add(b, p, n);
	ofl_buf_str(b);
}


/*
 * Line statistics.  A byte table marks the bytes that can start a word
 * of interest; only those at a word start are looked at more closely,
 * so most bytes cost one table look-up.
 */
#define LS_WORD		0x01	/* letters, digits, '_' */
#define LS_CAND		0x02	/* can start a keyword */
#define LS_LONG		256	/* bytes of a line left: skipped by ls_next */
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
 * "/error/"); a quoted word ('level': 'error'); or a call or a function
 * in code ("fail() {", "log.error(msg)"), but "2 error(s)" is trouble.
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
	if (next == '(' && !(we + 2 < n && line[we + 1] == 's' &&
	    line[we + 2] == ')'))
		return 1;	/* code: "fail() {", "log.error(msg)" */
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

/* The mask of the 16 bytes at p (p[-1] and p[16] readable). */
static inline ls_m16
ls_mask16(const unsigned char *p)
{
	ls_v16	v, vp, vn;

	memcpy(&v, p, sizeof v);
	memcpy(&vp, p - 1, sizeof vp);
	memcpy(&vn, p + 1, sizeof vn);
	return LS_MASK(ls_v16, ls_m16, v, vp, vn);
}

static inline int
ls_block(const unsigned char *p)
{
	ls_m16		m = ls_mask16(p);
	uint64_t	w[2];

	memcpy(w, &m, sizeof w);
	return (w[0] | w[1]) != 0;
}

/* The same positions, bit k for p[k]: only they are looked at. */
static inline unsigned int
ls_bits(const unsigned char *p)
{
	ls_m16		m = ls_mask16(p);
#if defined(__x86_64__)
	__m128i		x;

	memcpy(&x, &m, sizeof x);
	return (unsigned int)_mm_movemask_epi8(x);
#else
	signed char	b[16];
	unsigned int	bits = 0;
	int		k;

	memcpy(b, &m, sizeof b);
	for (k = 0; k < 16; k++)
		if (b[k] != 0)
			bits |= 1U << k;
	return bits;
#endif
}

/*
 * The worst keyword of the 16 bytes at i of a line and found, looked
 * for where ls_bits() says one may start, up to the first error (2).
 */
static inline int
ls_scan16(struct lsq *q, const char *line, size_t n, size_t i, int found)
{
	unsigned int	bits;
	int		r;

	for (bits = ls_bits((const unsigned char *)line + i);
	    bits != 0 && found < 2; bits &= bits - 1)
		if ((r = ls_at(q, line, n, i + (size_t)__builtin_ctz(bits))) >
		    found)
			found = r;
	return found;
}
#endif

/*
 * A location ending just before w: "path:12:5: ", "path:12: ",
 * "path(12,5): ", "path:12:5 - " (with "fatal " allowed after it).
 * Returns where the path starts, or -1.
 */
ssize_t
ofl_fmt_log_loc_before(const char *s, size_t w)
{
	size_t	k = w, d;
	int	nums = 0;

	if (k >= 6 && memcmp(s + k - 6, "fatal ", 6) == 0)
		k -= 6;
	if (k >= 2 && (memcmp(s + k - 2, ": ", 2) == 0 ||
	    memcmp(s + k - 2, "- ", 2) == 0))
		k -= 2;
	else
		return -1;
	while (k > 0 && s[k - 1] == ' ')
		k--;
	if (k > 0 && s[k - 1] == ')') {
		/* path(12,5) */
		k--;
		d = k;
		while (k > 0 && (isdigit((unsigned char)s[k - 1]) ||
		    s[k - 1] == ','))
			k--;
		if (k == d || k == 0 || s[k - 1] != '(')
			return -1;
		k--;
		nums = 1;
	} else {
		/* path:12:5 or path:12 */
		while (nums < 2) {
			d = k;
			while (k > 0 && isdigit((unsigned char)s[k - 1]))
				k--;
			if (k == d || k == 0 || s[k - 1] != ':') {
				if (k == d)
					break;
				return -1;
			}
			k--;
			nums++;
		}
		if (nums == 0)
			return -1;
	}
	d = k;
	while (k > 0 && s[k - 1] != ' ' && s[k - 1] != '\t')
		k--;
	if (k == d)
		return -1;
	return (ssize_t)k;
}

/*
 * A compiler's message: a place ("file:line[:column]: ", as the error
 * blocks know it) then "warning:", "error:", "fatal error:" or "note:"
 * (gcc, clang).
 */
static int
compiler_diag(const char *s, size_t n)
{
	static const char *const kinds[] = { "warning: ", "error: ",
	    "fatal error: ", "note: ", NULL };
	const char	*p = s, *e = s + n, *q;
	size_t		 i, k;

	/* Each ": " after a digit: is a kind next, a place before? */
	while ((q = memchr(p, ':', (size_t)(e - p))) != NULL) {
		p = q + 1;
		if (q == s || e - q < 8 || q[1] != ' ' ||
		    !isdigit((unsigned char)q[-1]))
			continue;
		for (i = 0; kinds[i] != NULL; i++) {
			k = strlen(kinds[i]);
			if ((size_t)(e - q - 2) >= k &&
			    memcmp(q + 2, kinds[i], k) == 0)
				return ofl_fmt_log_loc_before(s,
				    (size_t)(q + 2 - s)) >= 0;
		}
	}
	return 0;
}

void
ofl_linestat_line(struct ofl_linestat *ls, const char *line, size_t n,
    uint64_t lineno)
{
	struct lsq		 q = { 0, 0, 0 };
	size_t			 i = 0;
	int			 found = 0, r;

	if (!ls_ready)
		ls_init();
#if defined(__GNUC__)
	/* Position 0 and the last 16 bytes go the slow way. */
	if (n > 0 && (found = ls_at(&q, line, n, 0)) == 2)
		goto out;
	for (i = 1; i + 17 <= n; i += 16) {
		/* A long rest is skipped faster, a short one looked at. */
		if (n - i > LS_LONG &&
		    (i = (size_t)(ls_next(line + i, line + n) - line)) + 17 > n)
			break;
		if ((found = ls_scan16(&q, line, n, i, found)) == 2)
			goto out;
	}
	if (i > 1 && i + 1 < n) {
		/* The rest in one block that overlaps the last one. */
		i = n - 17;
		if ((found = ls_scan16(&q, line, n, i, found)) == 2)
			goto out;
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
	/*
	 * The line under a compiler's message ("x.c:3:20: warning: ...")
	 * is the source it quotes, "printf("error: %d", x);": no error.
	 */
	if (found > 0) {
		if (compiler_diag(line, n))
			ls->diag = lineno;
		else if (ls->diag > 0 && lineno == ls->diag + 1 &&
		    memmem(line, n, "***", 3) == NULL)
			found = 0;	/* but make's "*** [x.o] Error 1" */
	}
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

uint64_t
ofl_linefeed_add(struct ofl_linefeed *f, const unsigned char *p, size_t n)
{
	const unsigned char	*nl, *end = p + n;
	size_t			 take;
	uint64_t		 k, lines = 0;

	if (f->linelen > 0) {
		/* The rest of a line begun before. */
		nl = memchr(p, '\n', n);
		take = (size_t)((nl != NULL ? nl : end) - p);
		if (f->linelen + take > OFL_LINEFEED_MAX)
			take = OFL_LINEFEED_MAX - f->linelen;
		memcpy(f->line + f->linelen, p, take);
		f->linelen += take;
		if (nl == NULL)
			return 0;
		ofl_linestat_line(&f->ls, f->line, f->linelen, f->lineno);
		f->linelen = 0;
		f->lineno++;
		lines++;
		p = nl + 1;
	}
	if (p < end && (nl = memrchr(p, '\n', (size_t)(end - p))) != NULL) {
		k = ofl_linestat_lines(&f->ls, (const char *)p,
		    (size_t)(nl + 1 - p), f->lineno, OFL_LINEFEED_MAX);
		f->lineno += k;
		lines += k;
		p = nl + 1;
	}
	if (p < end) {
		take = (size_t)(end - p);
		f->linelen = take > OFL_LINEFEED_MAX ? OFL_LINEFEED_MAX : take;
		memcpy(f->line, p, f->linelen);
	}
	return lines;
}

void
ofl_linefeed_end(struct ofl_linefeed *f)
{
	if (f->linelen > 0)
		ofl_linestat_line(&f->ls, f->line, f->linelen, f->lineno);
	f->linelen = 0;
}
