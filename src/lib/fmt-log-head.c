/*
 * fmt-log-head.c: the header of a log line, found without being told the
 * format: timestamps and their parts (day and month names among them), a
 * level, a bracketed thread, a host between dates, a component or a
 * process ending in ':'.  The template miner (fmt-log-tmpl.c) sets it
 * aside.  Not part of the library's interface.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "fmt-log-tmpl.h"
#include "banned.h"

static const struct {
	const char	*w;
	size_t		 n;
	int		 l;
} levelw[] = {
	{ "TRACE", 5, 1 }, { "DEBUG", 5, 2 }, { "FINE", 4, 2 },
	{ "FINER", 5, 1 }, { "FINEST", 6, 1 }, { "INFO", 4, 3 },
	{ "CONFIG", 6, 3 }, { "NOTICE", 6, 4 }, { "WARN", 4, 5 },
	{ "WARNING", 7, 5 }, { "ERROR", 5, 6 }, { "ERR", 3, 6 },
	{ "SEVERE", 6, 6 }, { "CRIT", 4, 7 }, { "CRITICAL", 8, 7 },
	{ "ALERT", 5, 8 }, { "EMERG", 5, 9 }, { "FATAL", 5, 10 },
	{ "PANIC", 5, 10 }
};

static const char *monthl[] = {
	"january", "february", "march", "april", "june", "july", "august",
	"september", "october", "november", "december", "monday", "tuesday",
	"wednesday", "thursday", "friday", "saturday", "sunday", "utc", "gmt"
};

/*
 * Byte classes: 1 digit, 2 separator of segments, 4 blank, 8 part of a
 * timestamp besides digits, 16 first letter of a level.
 */
unsigned char ofl_fmt_log_head_cls[256];
#define cls	ofl_fmt_log_head_cls

void
ofl_fmt_log_head_init(void)
{
	const char	*d = "[](){}<>=:;,'\"|", *t = "-/:.,+TZ";
	const char	*lv = "TDFICNWESAPtdficnwesap";
	int		 c;

	if (cls['0'] != 0)
		return;
	for (c = '0'; c <= '9'; c++)
		cls[c] = 1;
	for (; *d != '\0'; d++)
		cls[(unsigned char)*d] = 2;
	cls[' '] = cls['\t'] = cls['\r'] = cls['\v'] = cls['\f'] = 4;
	for (; *t != '\0'; t++)
		cls[(unsigned char)*t] |= 8;
	for (; *lv != '\0'; lv++)
		cls[(unsigned char)*lv] |= 16;
}

/* A day or a month name, three letters or whole. */
static int
is_name(const char *p, size_t n)
{
	static const char	 abbr[] = "janfebmaraprmayjunjulaugsepoctnovdec"
	    "montuewedthufrisatsunutcgmt";
	size_t			 i;
	char			 l[3];

	if (n < 3 || n > 9)
		return 0;
	for (i = 0; i < 3; i++) {
		if (!((p[i] >= 'a' && p[i] <= 'z') ||
		    (p[i] >= 'A' && p[i] <= 'Z')))
			return 0;
		l[i] = (char)(p[i] | 0x20);
	}
	for (i = 0; i < sizeof(abbr) - 1; i += 3)
		if (abbr[i] == l[0] && abbr[i + 1] == l[1] &&
		    abbr[i + 2] == l[2])
			break;
	if (i >= sizeof(abbr) - 1)
		return 0;
	if (n == 3)
		return 1;
	for (i = 0; i < sizeof(monthl) / sizeof(monthl[0]); i++)
		if (strlen(monthl[i]) == n && strncasecmp(p, monthl[i], n) == 0)
			return 1;
	return 0;
}

/* A part of a timestamp: a name, or digits with - / : . , + T Z. */
static int
is_ts(const char *p, size_t n)
{
	size_t	i, dig = 0;

	while (n > 0 && (p[n - 1] == ',' || p[n - 1] == ']'))
		n--;
	while (n > 0 && *p == '[') {
		p++;
		n--;
	}
	if (n == 0 || n > 40)
		return 0;
	if (!(cls[(unsigned char)*p] & 1) && *p != '+' && *p != '-')
		return is_name(p, n);
	for (i = 0; i < n; i++) {
		if (cls[(unsigned char)p[i]] & 1)
			dig++;
		else if (!(cls[(unsigned char)p[i]] & 8))
			return 0;
	}
	return dig > 0;
}

/* A part of a timestamp that is not a bare number: "Nov", "12:01:01". */
static int
is_tsx(const char *p, size_t n)
{
	size_t	i;

	if (!is_ts(p, n))
		return 0;
	for (i = 0; i < n; i++)
		if (!(cls[(unsigned char)p[i]] & 1))
			return 1;
	return 0;
}

/* A level: ERROR, [error], <warn>, INFO: */
static int
is_level(const char *p, size_t n)
{
	size_t	i;

	if (n > 0 && p[n - 1] == ':')
		n--;
	if (n >= 2 && ((p[0] == '[' && p[n - 1] == ']') ||
	    (p[0] == '<' && p[n - 1] == '>'))) {
		p++;
		n -= 2;
	}
	if (n < 3 || n > 8)
		return 0;
	if (!(cls[(unsigned char)*p] & 16))
		return 0;
	for (i = 0; i < sizeof(levelw) / sizeof(levelw[0]); i++)
		if (levelw[i].n == n &&
		    strncasecmp(p, levelw[i].w, n) == 0)
			return levelw[i].l;
	return 0;
}

/* A component or a process: sshd[42]:, kernel:, dfs.DataNode$X: */
static int
is_comp(const char *p, size_t n)
{
	size_t	i;

	if (n < 2 || n > 96 || p[n - 1] != ':')
		return 0;
	if (!((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z') ||
	    p[0] == '_' || (p[0] == '/' && n > 3 && p[n - 2] == ']')))
		return 0;
	for (i = 0; i < n - 1; i++)
		if (p[i] == ':' || p[i] == '=' || p[i] == '"' || p[i] == '\'')
			return 0;
	return 1;
}

/* The blank-separated words of a line, up to max. */
static int
words(const char *p, size_t n, const char **wp, size_t *wl, int max)
{
	size_t	i = 0, s;
	int	k = 0;

	while (k < max) {
		while (i < n && (cls[(unsigned char)p[i]] & 4))
			i++;
		if (i >= n)
			break;
		s = i;
		while (i < n && !(cls[(unsigned char)p[i]] & 4))
			i++;
		wp[k] = p + s;
		wl[k++] = i - s;
	}
	return k;
}

/*
 * The header: timestamps and their parts, a bracketed timestamp, a level,
 * a bracketed thread, then within two words a component ending in ':'.
 * Returns the number of header words.
 */
static int
header(const char **wp, const size_t *wl, int nw, int *ts, int *level)
{
	int	i = 0, j, k, lv, any = 0;

	*ts = 0;
	*level = 0;
	/*
	 * A dash for an empty field before a timestamp of two parts, one
	 * more than a number: "- 1131566463 2005.11.09", not "- 12 files".
	 */
	if (nw > 2 && wl[0] == 1 && wp[0][0] == '-' && is_ts(wp[1], wl[1]) &&
	    is_ts(wp[2], wl[2]) && (is_tsx(wp[1], wl[1]) || is_tsx(wp[2], wl[2])))
		i = 1;
	while (i < nw) {
		if ((*ts || *level) && !any && wp[i][0] == '[' &&
		    !(wl[i] > 1 && wp[i][wl[i] - 1] == ']')) {
			/* A thread of words: [IPC Server handler 3 on 80] */
			for (j = i + 1; j < nw && j < i + 8; j++)
				if (wp[j][wl[j] - 1] == ']')
					break;
			if (j < nw && j < i + 8) {
				for (k = i + 1; k <= j; k++)
					if (is_ts(wp[k], wl[k]) &&
					    !(cls[(unsigned char)wp[k][0]] & 1))
						break;
				if (k > j) {
					any = 1;
					i = j + 1;
					continue;
				}
			}
		}
		if (wp[i][0] == '[' && !(wl[i] > 1 && wp[i][wl[i] - 1] == ']')) {
			/* [Sun Dec 04 04:47:44 2005] */
			for (j = i; j < nw && j < i + 8; j++)
				if (wp[j][wl[j] - 1] == ']')
					break;
			if (j >= nw || j >= i + 8)
				break;
			/* At the start, one word may name the source. */
			for (k = i + (i == 0); k <= j; k++)
				if (!is_ts(wp[k], wl[k]))
					break;
			if (k <= j || (i == 0 && !is_ts(wp[i], wl[i]) &&
			    (j == i || wl[i] > 24)))
				break;
			*ts = 1;
			i = j + 1;
			continue;
		}
		if (is_ts(wp[i], wl[i])) {
			*ts = 1;
			i++;
			continue;
		}
		if (*level == 0 && (lv = is_level(wp[i], wl[i])) != 0) {
			*level = lv;
			i++;
			continue;
		}
		if ((*ts || *level) && wl[i] == 1 &&
		    (wp[i][0] == '-' || wp[i][0] == '|')) {
			i++;	/* a separator: "INFO - message" */
			continue;
		}
		/*
		 * A host between dates, "2005.11.09 cn1 Nov 9", when a date
		 * follows, not numbers: "Read 3 12" keeps its word.
		 */
		if (*ts && i + 2 < nw && !is_comp(wp[i], wl[i]) &&
		    is_tsx(wp[i + 1], wl[i + 1]) && is_ts(wp[i + 2], wl[i + 2])) {
			i++;
			continue;
		}
		if ((*ts || *level) && !any && wl[i] > 2 && wp[i][0] == '[' &&
		    wp[i][wl[i] - 1] == ']' && memchr(wp[i], ' ', wl[i]) == NULL) {
			any = 1;	/* a thread: [main] */
			i++;
			continue;
		}
		break;
	}
	if (!*ts && !*level)
		return 0;
	for (j = i; j < nw && j < i + 2; j++) {
		if (is_comp(wp[j], wl[j]))
			return j + 1;
		if (j + 1 < nw && wl[j + 1] == 1 && wp[j + 1][0] == '-')
			return j + 2;
		if (is_level(wp[j], wl[j]) || is_ts(wp[j], wl[j]))
			break;
	}
	return i;
}

int
ofl_fmt_log_head_is_name(const char *p, size_t n)
{
	return is_name(p, n);
}

int
ofl_fmt_log_head_level(const char *p, size_t n)
{
	return is_level(p, n);
}

int
ofl_fmt_log_head_words(const char *p, size_t n, const char **wp, size_t *wl,
    int max)
{
	return words(p, n, wp, wl, max);
}

int
ofl_fmt_log_head(const char **wp, const size_t *wl, int nw, int *ts,
    int *level)
{
	return header(wp, wl, nw, ts, level);
}
