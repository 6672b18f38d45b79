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

static const struct tm_word monthl[] = {
	TM_WORD("january"), TM_WORD("february"), TM_WORD("march"),
	TM_WORD("april"), TM_WORD("june"), TM_WORD("july"), TM_WORD("august"),
	TM_WORD("september"), TM_WORD("october"), TM_WORD("november"),
	TM_WORD("december"), TM_WORD("monday"), TM_WORD("tuesday"),
	TM_WORD("wednesday"), TM_WORD("thursday"), TM_WORD("friday"),
	TM_WORD("saturday"), TM_WORD("sunday")
};

/*
 * Byte classes: 1 digit, 2 separator of segments, 4 blank, 8 part of a
 * timestamp besides digits, 16 first letter of a level.
 */
unsigned char ofl_fmt_log_head_cls[256];
#define cls	ofl_fmt_log_head_cls

/*
 * The three-letter day and month names (and utc, gmt), lower case: bit
 * c - 'a' of abbr3[(a - 'a') * 26 + b - 'a'] for "abc".  And the levels'
 * words packed by ofl_fmt_log_head_pack().
 */
static const char	 abbrs[] = "janfebmaraprmayjunjulaugsepoctnovdec"
			    "montuewedthufrisatsunutcgmt";
static uint32_t		 abbr3[26 * 26];
static uint64_t		 levelv[sizeof(levelw) / sizeof(levelw[0])];

/*
 * Up to eight bytes in one number, letters in upper case when fold is
 * set: short words of one length compared at once ("B\0" packs as "B").
 */
uint64_t
ofl_fmt_log_head_pack(const char *p, size_t n, int fold)
{
	uint64_t	v = 0;
	size_t		i;
	unsigned char	c;

	for (i = 0; i < n && i < 8; i++) {
		c = (unsigned char)p[i];
		if (fold && c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		v |= (uint64_t)c << (8 * i);
	}
	return v;
}

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
	for (c = 0; abbrs[c] != '\0'; c += 3)
		abbr3[(abbrs[c] - 'a') * 26 + abbrs[c + 1] - 'a'] |=
		    1U << (abbrs[c + 2] - 'a');
	for (c = 0; c < (int)(sizeof(levelw) / sizeof(levelw[0])); c++)
		levelv[c] = ofl_fmt_log_head_pack(levelw[c].w,
		    levelw[c].n, 1);
}

/* A day or a month name, three letters or whole. */
static int
is_name(const char *p, size_t n)
{
	size_t	i;
	int	l[3];

	if (n < 3 || n > 9)
		return 0;
	for (i = 0; i < 3; i++) {
		if (!((p[i] >= 'a' && p[i] <= 'z') ||
		    (p[i] >= 'A' && p[i] <= 'Z')))
			return 0;
		l[i] = (p[i] | 0x20) - 'a';
	}
	if (!(abbr3[l[0] * 26 + l[1]] & (1U << l[2])))
		return 0;
	if (n == 3)
		return 1;
	for (i = 0; i < sizeof(monthl) / sizeof(monthl[0]); i++)
		if (monthl[i].n == n && strncasecmp(p, monthl[i].w, n) == 0)
			return 1;
	return 0;
}

/* 1 if p[0..n) is digits only (or empty). */
static int
digits(const char *p, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (!(cls[(unsigned char)p[i]] & 1))
			return 0;
	return 1;
}

/* An IPv4 address, with a port or not: 10.250.19.102:54106. */
static int
is_ipv4(const char *p, size_t n)
{
	size_t	i, dig = 0;
	int	dots = 0;

	for (i = 0; i < n && p[i] != ':'; i++) {
		if (p[i] == '.') {
			if (dig == 0 || ++dots > 3)
				return 0;
			dig = 0;
		} else if ((cls[(unsigned char)p[i]] & 1) && dig < 3)
			dig++;
		else
			return 0;
	}
	if (dots != 3 || dig == 0)
		return 0;
	return i >= n || digits(p + i + 1, n - i - 1);
}

/* A part of a timestamp: a name, or digits with - / : . , + T Z. */
static int
is_ts(const char *p, size_t n)
{
	size_t	i, dig = 0, dots = 0;

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
		else if (p[i] == '.')
			dots++;
	}
	return dig > 0 && !(dots == 3 && is_ipv4(p, n));
}

/* A part of a timestamp that is not a bare number: "Nov", "12:01:01". */
static int
is_tsx(const char *p, size_t n)
{
	return is_ts(p, n) && !digits(p, n);
}

/* A level: ERROR, [error], <warn>, INFO: */
static int
is_level(const char *p, size_t n)
{
	uint64_t	v;
	size_t		i;

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
	v = ofl_fmt_log_head_pack(p, n, 1);
	for (i = 0; i < sizeof(levelw) / sizeof(levelw[0]); i++)
		if (levelv[i] == v && levelw[i].n == n)
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

/* A process number in a bracketed timestamp: "#25746]". */
static int
is_pid(const char *p, size_t n)
{
	if (n > 0 && p[n - 1] == ']')
		n--;
	return n >= 2 && p[0] == '#' && digits(p + 1, n - 1);
}

/* nginx's "25746#0:". */
static int
is_pidtid(const char *p, size_t n)
{
	size_t	i, hash = 0;

	if (n < 4 || p[n - 1] != ':')
		return 0;
	for (i = 0; i < n - 1; i++)
		if (p[i] == '#' && i > 0 && hash == 0)
			hash = i;
		else if (!(cls[(unsigned char)p[i]] & 1))
			return 0;
	return hash > 0 && hash < n - 2;
}

/* A separator in a header: "-", "--", "|", ":", "::". */
static int
is_sep(const char *p, size_t n)
{
	size_t	i;

	if (n == 0 || n > 2)
		return 0;
	for (i = 0; i < n; i++)
		if (p[i] != p[0])
			return 0;
	return p[0] == '-' || p[0] == '|' || p[0] == ':';
}

/*
 * A logger's name: dotted, nova.api.server, org.acme.Db$Pool, or a word
 * in lower case, scheduler.
 */
static int
is_logger(const char *p, size_t n)
{
	size_t	i;
	int	dots = 0, upper = 0;

	if (n < 3 || n > 96 || !((p[0] >= 'a' && p[0] <= 'z') ||
	    (p[0] >= 'A' && p[0] <= 'Z')) || p[n - 1] == '.')
		return 0;
	for (i = 1; i < n; i++) {
		if (p[i] == '.') {
			if (p[i - 1] == '.')
				return 0;
			dots++;
		} else if (p[i] >= 'A' && p[i] <= 'Z')
			upper = 1;
		else if (!((p[i] >= 'a' && p[i] <= 'z') || p[i] == '_' ||
		    p[i] == '$' || (cls[(unsigned char)p[i]] & 1)))
			return 0;
	}
	return dots > 0 || (!upper && p[0] >= 'a' && p[0] <= 'z');
}

/*
 * The level of a line's first word in a one-letter style: glog's "I0305"
 * (and its date), Ruby's "I,".
 */
static int
letter_level(const char *p, size_t n, int *date)
{
	static const char	 lv[] = "DIWEF";
	static const int	 l[] = { 2, 3, 5, 6, 10 };
	const char		*c;

	*date = 0;
	if (n < 2 || p[0] == '\0' || (c = strchr(lv, p[0])) == NULL)
		return 0;
	if (n == 2 && p[1] == ',')
		return l[c - lv];
	if (n != 5 || !digits(p + 1, n - 1))
		return 0;
	*date = 1;
	return l[c - lv];
}

/* RFC 5424's "<134>1": a priority and a version. */
static int
is_pri(const char *p, size_t n)
{
	size_t	i;

	if (n < 4 || p[0] != '<')
		return 0;
	for (i = 1; i < n && (cls[(unsigned char)p[i]] & 1); i++)
		;
	if (i == 1 || i > 4 || i >= n || p[i] != '>')
		return 0;
	return digits(p + i + 1, n - i - 1) && p[n - 1] != '>';
}

/*
 * An RFC 5424 header: priority and version, time, host, application,
 * process, message ID, then structured data ("-" or [...] groups).
 */
static int
rfc5424(const char **wp, const size_t *wl, int nw)
{
	int	i;

	if (nw < 8 || !is_pri(wp[0], wl[0]) || !is_ts(wp[1], wl[1]))
		return 0;
	i = 6;
	if (wl[i] == 1 && wp[i][0] == '-')
		return i + 1;
	while (i < nw && wp[i][0] == '[') {
		while (i < nw && wp[i][wl[i] - 1] != ']')
			i++;
		i++;
	}
	return i > 6 && i < nw ? i : 0;
}

/*
 * The first blank at or after i, or n.  Eight bytes at a time where the
 * order of bytes in a number is known: a byte below 0x21 (a blank, or a
 * control byte that is not) is flagged by the borrow of subtracting 0x21
 * from it, and the lowest flag is always right, since a borrow only runs
 * from a flagged byte up.
 */
static size_t
word_end(const char *p, size_t i, size_t n)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t	ones = 0x0101010101010101ULL;
	uint64_t	x, t;

	while (i + 8 <= n) {
		memcpy(&x, p + i, 8);
		if ((t = (x - ones * 0x21) & ~x & ones * 0x80) == 0) {
			i += 8;
			continue;
		}
		i += (size_t)__builtin_ctzll(t) / 8;
		if (cls[(unsigned char)p[i]] & 4)
			return i;
		i++;
	}
#endif
	while (i < n && !(cls[(unsigned char)p[i]] & 4))
		i++;
	return i;
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
		i = word_end(p, i + 1, n);
		wp[k] = p + s;
		wl[k++] = i - s;
	}
	return k;
}

/*
 * The end of a header at word i: within two words, a component ending
 * in ':', or "component - LEVEL -".  Returns the header's length.
 */
static int
header_end(const char **wp, const size_t *wl, int nw, int i, int *level,
    int weak, int *compw)
{
	int	j, k, lv;

	for (j = i; j < nw && j < i + 2; j++) {
		/*
		 * Right after the header, a name ending in ':' without its
		 * process may be a component or a message's first word
		 * ("ARPT: 620701.011328: AirPort: Link Down"): the miner
		 * tells which from the whole log.
		 */
		if (j == i && is_comp(wp[j], wl[j]) &&
		    memchr(wp[j], '[', wl[j]) == NULL &&
		    memchr(wp[j], '(', wl[j]) == NULL) {
			*compw = 1;
			return i;
		}
		*compw = -1;
		if (is_comp(wp[j], wl[j]))
			return j + 1;
		if (j + 1 < nw && wl[j + 1] == 1 && wp[j + 1][0] == '-') {
			/* "component - LEVEL - message" */
			k = j + 2;
			if (k < nw && (*level == 0 || weak) &&
			    (lv = is_level(wp[k], wl[k])) != 0) {
				*level = lv;
				if (++k < nw && is_sep(wp[k], wl[k]))
					k++;
			}
			return k;
		}
		*compw = 0;
		if (is_level(wp[j], wl[j]) || is_ts(wp[j], wl[j]))
			break;
	}
	return i;
}

/*
 * The header: timestamps and their parts, a bracketed timestamp, a level,
 * a bracketed thread, then within two words a component ending in ':'.
 * Returns the number of header words; *compw is 1 when the word after
 * them may be a component, -1 when the header had one or ended as its
 * format says, 0 otherwise.
 */
static int
header(const char **wp, const size_t *wl, int nw, int *ts, int *level,
    int *compw)
{
	int	i = 0, j, k, lv, any = 0, src = 0, weak = 0, comp = 0;

	*ts = 0;
	*level = 0;
	*compw = 0;
	if ((i = rfc5424(wp, wl, nw)) > 0) {
		*ts = 1;
		*compw = -1;
		return i;
	}
	/*
	 * A source before a bar, "web-1  | ..." (docker compose), or before
	 * a date and more of a header, "web-07: 2024-03-05 14:02:11" (pdsh,
	 * kubectl logs --prefix, a file's name).
	 */
	if (nw > 2 && !(cls[(unsigned char)wp[0][0]] & 1) &&
	    !is_ts(wp[0], wl[0])) {
		if (wl[1] == 1 && wp[1][0] == '|') {
			src = 1;
			i = 2;
		} else if (nw > 3 && is_tsx(wp[1], wl[1]) &&
		    (is_ts(wp[2], wl[2]) || is_level(wp[2], wl[2])) &&
		    !is_level(wp[0], wl[0])) {
			src = 1;
			i = 1;
		}
	}
	/* A level in one letter: glog's I0305 (a date too), Ruby's "I,". */
	if (i + 2 < nw && (lv = letter_level(wp[i], wl[i], &k)) != 0 &&
	    (is_ts(wp[i + 1], wl[i + 1]) || wp[i + 1][0] == '[')) {
		*level = lv;
		*ts = k;
		weak = 1;
		i++;
	}
	/*
	 * A dash for an empty field before a timestamp of two parts, one
	 * more than a number: "- 1131566463 2005.11.09", not "- 12 files".
	 */
	if (i == 0 && nw > 2 && wl[0] == 1 && wp[0][0] == '-' &&
	    is_ts(wp[1], wl[1]) && is_ts(wp[2], wl[2]) &&
	    (is_tsx(wp[1], wl[1]) || is_tsx(wp[2], wl[2])))
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
				if (!is_ts(wp[k], wl[k]) &&
				    !(k > i && is_pid(wp[k], wl[k])))
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
		if ((*level == 0 || weak) &&
		    (lv = is_level(wp[i], wl[i])) != 0) {
			*level = lv;
			weak = 0;
			i++;
			continue;
		}
		/* A separator, "INFO - message"; Ruby's ":" ends the header. */
		if ((*ts || *level) && is_sep(wp[i], wl[i])) {
			if (wp[i][0] == ':') {
				*compw = -1;
				return i + 1;
			}
			i++;
			continue;
		}
		/* nginx's process and connection: "25746#0: *123". */
		if (*ts && *level && is_pidtid(wp[i], wl[i])) {
			i++;
			if (i < nw && wl[i] > 1 && wp[i][0] == '*' &&
			    (cls[(unsigned char)wp[i][1]] & 1))
				i++;
			*compw = -1;
			return i;
		}
		/* glog's source line ends its header: "server.go:142]". */
		if (*ts && wl[i] > 3 && wp[i][wl[i] - 1] == ']' &&
		    memchr(wp[i], '[', wl[i]) == NULL &&
		    memchr(wp[i], ':', wl[i]) != NULL) {
			*compw = -1;
			return i + 1;
		}
		/* A logger before its context: "nova.api.server [req-1 ...]" */
		if (*level && !comp && !any && i + 1 < nw &&
		    wp[i + 1][0] == '[' && is_logger(wp[i], wl[i])) {
			comp = 1;
			i++;
			continue;
		}
		/*
		 * A host between dates, "2005.11.09 cn1 Nov 9", when a date
		 * follows, not numbers: "Read 3 12" keeps its word.
		 */
		if (*ts && i + 2 < nw && !is_comp(wp[i], wl[i]) &&
		    is_tsx(wp[i + 1], wl[i + 1]) && is_ts(wp[i + 2], wl[i + 2])) {
			comp = 1;
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
		return src ? 2 : 0;
	return header_end(wp, wl, nw, i, level, weak, compw);
}

int
ofl_fmt_log_head_digits(const char *p, size_t n)
{
	return digits(p, n);
}

int
ofl_fmt_log_head_is_name(const char *p, size_t n)
{
	return is_name(p, n);
}

int
ofl_fmt_log_head_level(const char *p, size_t n)
{
	ofl_fmt_log_head_init();
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
    int *level, int *compw)
{
	return header(wp, wl, nw, ts, level, compw);
}
