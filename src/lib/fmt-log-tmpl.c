/*
 * fmt-log-tmpl.c: log templates.  A streaming miner that reads a log one
 * line at a time and finds the few hundred things it says: it sets aside
 * each line's header (timestamps, with day and month names, a level, a
 * host, process[pid], a component) without being told the format, masks
 * the parts of the message that hold digits, and groups lines by their
 * token count and the constant tokens left.  When the miner finishes,
 * groups that differ at one position only are merged into one template
 * with <*> there when that position takes at least TM_MINVALS values:
 * a word from a small set (a user "root" or "admin") stays a constant, a
 * user name that changes on every line becomes a variable.  Where a word
 * usually says what a line is (the first, or one after a number: the
 * message after a header's numeric fields), its values must also be
 * spread over the lines: a few states each on many lines stay apart.
 * Values of several shapes that hold digits are one variable only when
 * one group's lines already differ there.  Groups that differ at several
 * key=value words only, three or more of them, are one when one of those
 * words takes TM_MINVALS values; a quoted value of a key of a few words
 * is one token.  A name with a number ("eth0") is a word, a constant when its
 * values are a few each on TM_NAMELINES lines or more.  When nearly
 * every line has a Unix time at one of its first words, the words up to
 * it and its numbers are a header of columns, set aside when the first
 * pass ends.
 * A line with no header under a line with a timestamp (a stack trace,
 * "Caused by:") belongs to the record of that line and to its template,
 * when it is indented, or when more than a quarter of the lines so far
 * that are not have a timestamp and the line is an exception's or a
 * traceback's ("java.lang.IllegalStateException: ...", "Traceback",
 * "ValueError: ...") or follows a line that went on the record: in a log
 * of bare messages, one that seems to start with a time does not swallow
 * the lines after it, and lines of another program's output between
 * timestamped ones (a compiler's warnings) are records of their own.
 *
 * Memory is bounded: at most TM_MAXCLU groups.  When they are full the
 * miner merges what it can; a line of a new shape past that counts under
 * one catch-all template "<*>" (its ID is the hash of "<*>").  A line is
 * read up to TM_SCAN bytes and TM_MAXTOK tokens; the rest of a longer
 * line is one variable.  Everything is a function of the content and its
 * order: the same log gives the same templates, and a template's ID is a
 * hash of its text.  Pure: it sees lines, never the store.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ofl.h"
#include "fmt-log.h"
#include "fmt-log-tmpl.h"
#include "banned.h"

#define cls	ofl_fmt_log_head_cls	/* byte classes, fmt-log-head.c */

#define TM_SCAN		65536	/* bytes of a line looked at */
#define TM_TOKTEXT	160	/* bytes of a token kept for the text */
#define TM_MINVALS	3	/* values at a position that make it variable */
#define TM_MINKV	5	/* the same for a key=value */
#define TM_LONGMSG	8	/* tokens of a message whose first may vary */
#define TM_MAXCLU	8192	/* groups kept */
#define TM_COLPCT	95	/* % of lines with a number in a header column */
#define TM_NAMELINES	4	/* lines a value of a name with a number */
#define TM_QUOTE	3	/* words more a quoted value may take */
#define TM_COLMIN	20	/* lines before a header of columns is told */
#define TM_COMPPCT	90	/* % of records with a component after a header */

#define H_WILD		0x5bd1e9955bd1e995ULL
#define H_MASK		0x9e3779b97f4a7c15ULL
#define H_COMPW		0x2545f4914f6cdd1dULL	/* xor'ed: maybe a component */

/* A group of lines: equal token count and equal tokens but at var. */
struct clu {
	uint64_t	 key;
	uint64_t	 count;
	uint64_t	 first;
	uint64_t	 last;
	uint64_t	 var;		/* bit i: position i is a variable */
	uint64_t	*th;		/* token hashes */
	uint64_t	*sh;		/* token shapes, bit 0: masked */
	uint64_t	*rh;		/* the first line's tokens unmasked */
	uint64_t	 rawvar;	/* bit i: its lines differ there */
	uint32_t	 epoch;		/* bit i: a Unix time on all its lines */
	int		 compw;		/* token 0 may be a component, all lines */
	uint32_t	*toff;		/* token starts in text, ntok + 1 */
	char		*text;		/* the first line's tokens, masked */
	uint64_t	 id;		/* the hash of its text, at the end */
	int		 ntok;		/* -1: merged into another */
	int		 level;
};

struct ofl_fmt_log_tmpl {
	struct clu	*clu;
	size_t		 nclu;
	size_t		 cap;
	int32_t		*tab;		/* open addressing: key -> index */
	size_t		 tabsz;
	uint64_t	 masks[256];	/* (ntok << 56 | index) of var masks */
	uint64_t	 maskbits[256];
	size_t		 nmasks;
	struct rdst	 rd;
	uint64_t	 other;		/* records past the cap */
	uint64_t	 other_first;
	uint64_t	 other_last;
	uint64_t	 lines;		/* lines read by the first pass */
	int		 colhdr;	/* message words that are a header */
	uint64_t	 nhdr;		/* records whose header may end in a component */
	uint64_t	 ncompw;	/* of which with a component after it */
	int		 hcomp;		/* components after headers are set aside */
	int		 finished;
	struct ofl_fmt_log_tmpl_info *out;
	size_t		 nout;
};

static const char *levels[] = {
	NULL, "TRACE", "DEBUG", "INFO", "NOTICE", "WARN", "ERROR", "CRIT",
	"ALERT", "EMERG", "FATAL"
};

static inline uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

/* A day or month name written as one: "Jun", "Monday". */
static int
is_datename(const char *p, size_t n)
{
	return n >= 3 && n <= 9 && p[0] >= 'A' && p[0] <= 'Z' &&
	    (p[1] >= 'a' && p[1] <= 'z') && ofl_fmt_log_head_is_name(p, n);
}

/* A unit after a number: 4.2 KB, 12 ms. */
static int
is_unit(const char *p, size_t n)
{
	static const char	*u[] = {
		"B", "KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB",
		"kB", "bytes", "ms", "us", "ns", "s", "sec", "secs", "min"
	};
	static uint64_t		 uv[sizeof(u) / sizeof(u[0])];
	uint64_t		 v;
	size_t			 i;

	if (n == 0 || n > 5)
		return 0;
	switch (p[0]) {
	case 'B': case 'K': case 'M': case 'G': case 'T': case 'P':
	case 'k': case 'b': case 'm': case 'u': case 'n': case 's':
		break;
	default:
		return 0;
	}
	if (uv[0] == 0)
		for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
			uv[i] = ofl_fmt_log_head_pack(u[i], strlen(u[i]), 0) |
			    (uint64_t)strlen(u[i]) << 56;
	v = ofl_fmt_log_head_pack(p, n, 0) | (uint64_t)n << 56;
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (uv[i] == v)
			return 1;
	return 0;
}

/*
 * A name with a number, "eth0", "IPv6": two to eight letters and one
 * digit.  A device, a version of a protocol: a word from a small set.
 */
static int
is_numname(const char *p, size_t n)
{
	size_t	i;

	if (n < 3 || n > 9 || !(cls[(unsigned char)p[n - 1]] & 1))
		return 0;
	for (i = 0; i < n - 1; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') ||
		    (p[i] >= 'A' && p[i] <= 'Z')))
			return 0;
	return 1;
}

/*
 * A token's hash, and the hash of its shape (its separators: "(x)" and
 * "()" have one shape) with bit 0 set when a part is masked.  A part with
 * a digit, a day or month name, or a unit after a number is a mask.
 */
/*
 * The bytes of a long token that count, up to a separator within the
 * first TM_TOKTEXT: "a=1,b=2,..." keeps its first keys; the rest is a
 * variable.  0: none.
 */
static size_t
tok_head(const char *p, size_t n)
{
	size_t	i;

	for (i = TM_TOKTEXT; i > 0; i--)
		if (cls[(unsigned char)p[i - 1]] & 2)
			return i;
	return 0;
}

static uint64_t
tok_hash(const char *p, size_t n, uint64_t *shape, int unit)
{
	uint64_t	h = 0x84222325cbf29ce4ULL, sh = h;
	size_t		i = 0, s;
	int		dig, masked = 0, named = 0, nn;

	if (n > TM_TOKTEXT) {
		*shape = 1;
		if ((n = tok_head(p, n)) == 0)
			return H_MASK ^ 0x1234;
		return mix(tok_hash(p, n, &sh, unit), H_TAIL);
	}
	while (i < n) {
		if (cls[(unsigned char)p[i]] & 2) {
			h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
			sh = (sh ^ (unsigned char)p[i]) * 0x100000001b3ULL;
			i++;
			continue;
		}
		s = i;
		dig = 0;
		while (i < n && !(cls[(unsigned char)p[i]] & 2))
			dig |= cls[(unsigned char)p[i++]];
		nn = (dig & 1) && is_numname(p + s, i - s);
		named |= nn;
		if (((dig & 1) && !nn) || is_datename(p + s, i - s) ||
		    (unit && s == 0 && is_unit(p, i))) {
			h = (h ^ H_MASK) * 0x100000001b3ULL;
			masked = 1;
		} else
			for (; s < i; s++)
				h = (h ^ (unsigned char)p[s]) *
				    0x100000001b3ULL;
	}
	*shape = (sh & ~3ULL) | (uint64_t)named << 1 | (uint64_t)masked;
	return h;
}

static uint64_t	hmask;		/* the hash of a token that is all mask */
static uint64_t	hmask_sh;	/* and its shape */

/*
 * The words from i on that are a quantity's gloss in parentheses, in
 * another unit, "(1.16 KB)", "(4.2 MB/s)": every part a number or a
 * unit, one a unit.  Returns how many (0: none), for a value that is
 * said twice to be one variable.
 */
static int
gloss(const char **wp, const size_t *wl, int i, int nw)
{
	const char	*p;
	size_t		 n, k, s;
	int		 j, dig, unit = 0;

	if (wp[i][0] != '(')
		return 0;
	for (j = i; j < nw && j < i + 3; j++) {
		p = wp[j];
		n = wl[j];
		if (j == i) {
			p++;
			n--;
		}
		if (n > 0 && p[n - 1] == ')')
			n--;
		for (k = 0; k < n; ) {
			s = k;
			dig = 0;
			while (k < n && !(cls[(unsigned char)p[k]] & 2) &&
			    p[k] != '/')
				dig |= cls[(unsigned char)p[k++]];
			if (k > s && !(dig & 1)) {
				if (!is_unit(p + s, k - s))
					return 0;
				unit = 1;
			}
			if (k < n)
				k++;
		}
		if (wp[j][wl[j] - 1] == ')')
			return unit ? j - i + 1 : 0;
	}
	return 0;
}

/* A key whose value is the message: msg=, message=, error=. */
static int
msg_key(const char *p, size_t n)
{
	static const struct tm_word keys[] = {
		TM_WORD("msg"), TM_WORD("message"), TM_WORD("error"),
		TM_WORD("err"), TM_WORD("event")
	};
	size_t	i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].n == n && strncasecmp(p, keys[i].w, n) == 0)
			return 1;
	return 0;
}

/*
 * The words from i on that are one quoted value of a key, "tag="View
 * Lock"," (a quote opens after '=' and closes within TM_QUOTE words):
 * how many; 1 when not.  A quoted phrase alone, "GET /x HTTP/1.1", keeps
 * its words, and so does the value of a key that holds the message
 * (logfmt's msg="cache miss for key ..."): it is what the line says.
 */
static int
quoted(const char **wp, const size_t *wl, int i, int nw)
{
	const char	*q;
	int		 j;

	if ((q = memchr(wp[i], '=', wl[i])) == NULL ||
	    (size_t)(q - wp[i]) + 1 >= wl[i] || q[1] != '"' ||
	    msg_key(wp[i], (size_t)(q - wp[i])))
		return 1;
	q++;
	if (memchr(q + 1, '"', wl[i] - (size_t)(q + 1 - wp[i])) != NULL)
		return 1;
	for (j = i + 1; j < nw && j <= i + TM_QUOTE; j++)
		if (memchr(wp[j], '"', wl[j]) != NULL)
			return j - i + 1;
	return 1;
}

/* A Unix time in seconds or milliseconds, 2001 to 2033: 1074216940. */
static int
is_epoch(const char *p, size_t n)
{
	return (n == 10 || n == 13) && p[0] == '1' &&
	    ofl_fmt_log_head_digits(p + 1, n - 1);
}

/* Split a line into its header and its message's tokens. */
static void
tokenize(struct line *l, struct rdst *rd, const char *p, size_t n)
{
	const char	*wp[TM_MAXTOK + TM_MAXHDR];
	size_t		 wl[TM_MAXTOK + TM_MAXHDR];
	int		 nw, h, i, k, indent, quotes;

	if (hmask == 0)
		hmask = tok_hash("0", 1, &hmask_sh, 0);
	if (n > TM_SCAN)
		n = TM_SCAN;
	nw = ofl_fmt_log_head_words(p, n, wp, wl, TM_MAXTOK + TM_MAXHDR);
	h = ofl_fmt_log_head(wp, wl, nw, &l->ts, &l->level, &l->compw);
	l->cont = 0;
	indent = n > 0 && (cls[(unsigned char)p[0]] & 4);
	if (rd->cur != -1 || rd->cur_other) {
		if (nw == 0 || (rd->head_ts && !l->ts && (indent ||
		    (rd->flush_ts * 4 > rd->flush && (rd->lastcont ||
		    ofl_fmt_log_goes_on(p, n))))))
			l->cont = 1;
		else if (!rd->head_ts && (cls[(unsigned char)p[0]] & 4) &&
		    nw > 0 && ((wl[0] == 2 && memcmp(wp[0], "at", 2) == 0) ||
		    (wl[0] == 4 && memcmp(wp[0], "File", 4) == 0)))
			l->cont = 1;
	}
	if (nw > 0 && !indent) {
		rd->flush++;
		rd->flush_ts += l->ts != 0;
	}
	rd->lastcont = l->cont;
	if (l->cont)
		return;
	l->ntok = 0;
	l->epoch = 0;
	quotes = memchr(p, '"', n) != NULL;
	for (i = h; i < nw && l->ntok < TM_MAXTOK - 1; i++) {
		/* A number's gloss: "12 bytes (0.01 KB)" is one value. */
		if (l->ntok > 0 && l->th[l->ntok - 1] == hmask &&
		    (k = gloss(wp, wl, i, nw)) > 0) {
			i += k - 1;
			continue;
		}
		/* A value and its unit are one variable: "<1 sec". */
		if (l->ntok > 0 && (l->sh[l->ntok - 1] & 1) &&
		    is_unit(wp[i], wl[i]))
			continue;
		if (quotes && (k = quoted(wp, wl, i, nw)) > 1) {
			wl[i] = (size_t)(wp[i + k - 1] + wl[i + k - 1] - wp[i]);
			wp[i + k - 1] = wp[i];
			wl[i + k - 1] = wl[i];
			i += k - 1;
		}
		l->th[l->ntok] = tok_hash(wp[i], wl[i], &l->sh[l->ntok],
		    l->ntok > 0 && l->th[l->ntok - 1] == hmask);
		/* A list of names with numbers is values: "cn2 cn3 cn4". */
		if (is_numname(wp[i], wl[i]) && ((l->ntok > 0 &&
		    l->th[l->ntok - 1] == hmask) || (i + 1 < nw &&
		    is_numname(wp[i + 1], wl[i + 1])))) {
			l->th[l->ntok] = hmask;
			l->sh[l->ntok] = hmask_sh;
		}
		k = l->ntok;
		/* A list of masked values is one variable. */
		if (l->ntok > 0 && l->th[l->ntok] == l->th[l->ntok - 1] &&
		    l->th[l->ntok] == hmask)
			k--;
		if (k < 32 && l->th[l->ntok] == hmask &&
		    is_epoch(wp[i], wl[i]))
			l->epoch |= 1U << k;
		if (k < l->ntok)
			continue;
		l->rh[l->ntok] = (l->sh[l->ntok] & 1) ?
		    XXH3_64bits(wp[i], wl[i]) : l->th[l->ntok];
		l->tp[l->ntok] = wp[i];
		l->tl[l->ntok++] = wl[i];
	}
	if (i < nw) {
		/* The rest of a long line: one variable. */
		l->tp[l->ntok] = wp[i];
		l->tl[l->ntok] = (size_t)(p + n - wp[i]);
		l->sh[l->ntok] = 1;
		l->rh[l->ntok] = H_TAIL;
		l->th[l->ntok++] = H_TAIL;
	}
}

static uint64_t
key_of(const uint64_t *th, int ntok, uint64_t var)
{
	uint64_t	k = mix(0x243f6a8885a308d3ULL, (uint64_t)ntok);
	int		i;

	for (i = 0; i < ntok; i++)
		k = mix(k, (var >> i) & 1 ? H_WILD : th[i]);
	return k;
}

static void
tab_put(struct ofl_fmt_log_tmpl *m, uint64_t key, int32_t idx)
{
	size_t	i = (size_t)key & (m->tabsz - 1);

	while (m->tab[i] != -1)
		i = (i + 1) & (m->tabsz - 1);
	m->tab[i] = idx;
}

static int32_t
tab_get(const struct ofl_fmt_log_tmpl *m, uint64_t key)
{
	size_t	i = (size_t)key & (m->tabsz - 1);

	while (m->tab[i] != -1) {
		if (m->clu[m->tab[i]].key == key)
			return m->tab[i];
		i = (i + 1) & (m->tabsz - 1);
	}
	return -1;
}

static void
tab_rebuild(struct ofl_fmt_log_tmpl *m)
{
	size_t	i;

	memset(m->tab, 0xff, m->tabsz * sizeof(*m->tab));
	for (i = 0; i < m->nclu; i++)
		tab_put(m, m->clu[i].key, (int32_t)i);
}

struct ofl_fmt_log_tmpl *
ofl_fmt_log_tmpl_new(void)
{
	struct ofl_fmt_log_tmpl	*m;

	ofl_fmt_log_head_init();
	m = ofl_xcalloc(1, sizeof(*m));
	m->cap = 64;
	m->clu = ofl_xcalloc(m->cap, sizeof(*m->clu));
	m->tabsz = 4 * TM_MAXCLU;
	m->tab = ofl_xmalloc(m->tabsz * sizeof(*m->tab));
	memset(m->tab, 0xff, m->tabsz * sizeof(*m->tab));
	m->rd.cur = -1;
	return m;
}

static void
clu_free(struct clu *c)
{
	free(c->th);
	free(c->sh);
	free(c->rh);
	free(c->toff);
	free(c->text);
}

static void
out_free(struct ofl_fmt_log_tmpl *m)
{
	size_t	i;

	for (i = 0; i < m->nout; i++)
		free(m->out[i].text);
	free(m->out);
	m->out = NULL;
	m->nout = 0;
}

void
ofl_fmt_log_tmpl_free(struct ofl_fmt_log_tmpl *m)
{
	size_t	i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nclu; i++)
		clu_free(&m->clu[i]);
	free(m->clu);
	free(m->tab);
	out_free(m);
	free(m);
}

/* The group of a tokenized line: exact, then under each known mask. */
static int32_t
lookup(const struct ofl_fmt_log_tmpl *m, const struct line *l)
{
	int32_t	idx;
	size_t	i;

	idx = tab_get(m, key_of(l->th, l->ntok, 0));
	if (idx != -1 && m->clu[idx].var == 0)
		return idx;
	for (i = 0; i < m->nmasks; i++) {
		if ((int)(m->masks[i] >> 56) != l->ntok)
			continue;
		idx = tab_get(m, key_of(l->th, l->ntok, m->maskbits[i]));
		if (idx != -1 && m->clu[idx].var == m->maskbits[i])
			return idx;
	}
	return -1;
}

/* The masked text of a token, into b, as tok_hash masks it. */
void
ofl_fmt_log_tmpl_tok_text(struct ofl_buf *b, const char *p, size_t n, int unit)
{
	size_t	i = 0, s;
	int	dig;

	if (n > TM_TOKTEXT) {
		if ((n = tok_head(p, n)) > 0)
			ofl_fmt_log_tmpl_tok_text(b, p, n, unit);
		ofl_buf_adds(b, "<*>");
		return;
	}
	while (i < n) {
		if (cls[(unsigned char)p[i]] & 2) {
			ofl_buf_addc(b, p[i++]);
			continue;
		}
		s = i;
		dig = 0;
		while (i < n && !(cls[(unsigned char)p[i]] & 2))
			dig |= cls[(unsigned char)p[i++]];
		if (((dig & 1) && !is_numname(p + s, i - s)) ||
		    is_datename(p + s, i - s) ||
		    (unit && s == 0 && is_unit(p, i)))
			ofl_buf_adds(b, "<*>");
		else
			ofl_buf_add(b, p + s, i - s);
	}
}

static int32_t
clu_add(struct ofl_fmt_log_tmpl *m, const struct line *l, uint64_t lineno)
{
	struct clu	*c;
	struct ofl_buf	 b;
	int		 i;

	if (m->nclu == m->cap) {
		m->cap *= 2;
		m->clu = ofl_xrealloc(m->clu, m->cap * sizeof(*m->clu));
	}
	c = &m->clu[m->nclu];
	memset(c, 0, sizeof(*c));
	c->ntok = l->ntok;
	c->compw = l->compw == 1;
	c->th = ofl_xmalloc((size_t)(l->ntok + 1) * sizeof(*c->th));
	memcpy(c->th, l->th, (size_t)l->ntok * sizeof(*c->th));
	c->sh = ofl_xmalloc((size_t)(l->ntok + 1) * sizeof(*c->sh));
	memcpy(c->sh, l->sh, (size_t)l->ntok * sizeof(*c->sh));
	c->rh = ofl_xmalloc((size_t)(l->ntok + 1) * sizeof(*c->rh));
	memcpy(c->rh, l->rh, (size_t)l->ntok * sizeof(*c->rh));
	c->toff = ofl_xmalloc((size_t)(l->ntok + 1) * sizeof(*c->toff));
	ofl_buf_init(&b);
	for (i = 0; i < l->ntok; i++) {
		c->toff[i] = (uint32_t)b.len;
		if (l->th[i] == H_TAIL || l->th[i] == hmask)
			ofl_buf_adds(&b, "<*>");
		else
			ofl_fmt_log_tmpl_tok_text(&b, l->tp[i], l->tl[i],
			    i > 0 && l->th[i - 1] == hmask);
	}
	c->toff[i] = (uint32_t)b.len;
	c->text = ofl_buf_str(&b);
	c->key = key_of(c->th, c->ntok, 0);
	c->first = c->last = lineno;
	c->level = l->level;
	c->epoch = l->epoch;
	tab_put(m, c->key, (int32_t)m->nclu);
	return (int32_t)m->nclu++;
}

/* One more line of a group: where its values differ from the first's. */
static void
clu_seen(struct clu *c, const struct line *l, uint64_t lineno)
{
	int	i;

	c->count++;
	c->last = lineno;
	c->epoch &= l->epoch;
	c->compw &= l->compw == 1;
	for (i = 0; i < c->ntok; i++)
		if (l->rh[i] != c->rh[i])
			c->rawvar |= 1ULL << i;
}

static void merge(struct ofl_fmt_log_tmpl *);

void
ofl_fmt_log_tmpl_add(struct ofl_fmt_log_tmpl *m, const char *p, size_t n)
{
	struct line	 l;
	struct rdst	*rd = &m->rd;
	int32_t		 idx;

	rd->lineno++;
	tokenize(&l, rd, p, n);
	if (l.cont)
		return;
	rd->head_ts = l.ts;
	rd->cur_other = 0;
	if ((l.ts || l.level) && l.compw >= 0) {
		m->nhdr++;
		m->ncompw += l.compw == 1;
	}
	/*
	 * Until the end tells whether it is a component, a first word that
	 * may be one keeps its lines apart from those where it is a word.
	 */
	if ((l.compw = ofl_fmt_log_tmpl_compw(&l)) != 0)
		l.th[0] ^= H_COMPW;
	idx = lookup(m, &l);
	if (idx == -1 && m->nclu >= TM_MAXCLU) {
		merge(m);
		idx = lookup(m, &l);
	}
	if (idx == -1 && m->nclu >= TM_MAXCLU * 7 / 8) {
		if (m->other++ == 0)
			m->other_first = rd->lineno;
		m->other_last = rd->lineno;
		rd->cur = -1;
		rd->cur_other = 1;
		return;
	}
	if (idx == -1) {
		idx = clu_add(m, &l, rd->lineno);
		m->clu[idx].count = 1;
	} else
		clu_seen(&m->clu[idx], &l, rd->lineno);
	rd->cur = idx;
}

struct mk {
	uint64_t	k;
	uint64_t	first;
	uint32_t	idx;
};

static int
mk_cmp(const void *a, const void *b)
{
	const struct mk	*x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int
u64_cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Remember a mask lines are looked up under; 0 when the list is full. */
static int
mask_note(struct ofl_fmt_log_tmpl *m, int ntok, uint64_t var)
{
	size_t	i;

	for (i = 0; i < m->nmasks; i++)
		if ((int)(m->masks[i] >> 56) == ntok && m->maskbits[i] == var)
			return 1;
	if (m->nmasks == sizeof(m->masks) / sizeof(m->masks[0]))
		return 0;
	m->masks[m->nmasks] = (uint64_t)ntok << 56;
	m->maskbits[m->nmasks++] = var;
	return 1;
}

/*
 * The text of a variable: what all the values share before its first
 * separator and after its last stays ("rhost=<*>", "[<*>]").
 */
static void
frame(struct ofl_fmt_log_tmpl *m, struct clu *root, int p,
    const struct mk *r, size_t n)
{
	const char	*a = root->text + root->toff[p], *b;
	struct ofl_buf	 t;
	size_t		 al = root->toff[p + 1] - root->toff[p], bl, i, k;
	size_t		 pre = al, suf = al, delta;
	uint32_t	 end;
	int		 q;

	for (i = 1; i < n; i++) {
		b = m->clu[r[i].idx].text + m->clu[r[i].idx].toff[p];
		bl = m->clu[r[i].idx].toff[p + 1] - m->clu[r[i].idx].toff[p];
		for (k = 0; k < pre && k < bl && a[k] == b[k]; k++)
			;
		pre = k;
		for (k = 0; k < suf && k < bl && a[al - 1 - k] == b[bl - 1 - k];
		    k++)
			;
		suf = k;
	}
	/* At separators, and no "<*>" next to the new one. */
	for (;;) {
		while (pre > 0 && !(cls[(unsigned char)a[pre - 1]] & 2))
			pre--;
		if (pre < 3 || memcmp(a + pre - 3, "<*>", 3) != 0)
			break;
		pre -= 3;
	}
	for (;;) {
		while (suf > 0 && !(cls[(unsigned char)a[al - suf]] & 2))
			suf--;
		if (suf < 3 || memcmp(a + al - suf, "<*>", 3) != 0)
			break;
		suf -= 3;
	}
	if (pre + suf > al)
		suf = al - pre;
	ofl_buf_init(&t);
	ofl_buf_add(&t, root->text, root->toff[p] + pre);
	ofl_buf_adds(&t, "<*>");
	ofl_buf_add(&t, a + al - suf, suf);
	end = root->toff[p + 1];
	delta = t.len - root->toff[p];
	ofl_buf_add(&t, root->text + end, root->toff[root->ntok] - end);
	for (q = p + 1; q <= root->ntok; q++)
		root->toff[q] = root->toff[q] - end + root->toff[p] +
		    (uint32_t)delta;
	free(root->text);
	root->text = ofl_buf_str(&t);
}

/*
 * The values of a run at a position, n pairs (value, lines): how many
 * distinct, and in *spread whether they are spread over the lines, the
 * effective number of values (the lines squared over the sum of each
 * value's lines squared) TM_MINVALS or more.  "normal" on 206 lines,
 * "warning" on 205 and "critical" on 20 are 2.2 values, a small set of
 * states; "root" on 369 lines and five names on 15 are 1.1, but six.
 */
static void	fold(struct ofl_fmt_log_tmpl *, struct clu *,
		    const struct mk *, size_t);

static size_t
run_values(uint64_t *vals, size_t n, int *spread)
{
	double	lines = 0, sq = 0, cur = 0;
	size_t	i, distinct = 1;

	qsort(vals, n, 2 * sizeof(*vals), u64_cmp);
	for (i = 0; i < n; i++) {
		if (i > 0 && vals[2 * i] != vals[2 * i - 2]) {
			distinct++;
			sq += cur * cur;
			cur = 0;
		}
		cur += (double)vals[2 * i + 1];
		lines += (double)vals[2 * i + 1];
	}
	sq += cur * cur;
	*spread = lines * lines >= TM_MINVALS * sq;
	return distinct;
}

/* The hash of a key=value word's key at p, "name="; 0 for another word. */
static uint64_t
kv_name(const struct clu *c, int p)
{
	const char	*t = c->text + c->toff[p], *e;

	if ((e = memchr(t, '=', c->toff[p + 1] - c->toff[p])) == NULL || e == t)
		return 0;
	return XXH3_64bits(t, (size_t)(e - t) + 1);
}

/*
 * Fold the groups of one run (equal but at p) when p varies enough: its
 * values hold digits in one shape (and a key=value word one key); or all
 * hold digits, in several shapes, and one group's lines already differ
 * there ("10.100.20.250" on 500 lines, "LOCAL(0)" once); or its words
 * take TM_MINVALS values (TM_MINKV for a key=value).  Names with a number
 * vary when their values are spread or rare.  The first word names what
 * a line says, and so does a word after a number ("... 1074119817 1
 * boot"): it stays, but in a long message otherwise said word for word
 * the same when its values are spread, and after a number when they are
 * spread.
 */
static int
merge_run(struct ofl_fmt_log_tmpl *m, int p, const struct mk *r, size_t n,
    uint64_t *vals)
{
	struct clu	*root = &m->clu[r[0].idx], *c;
	uint64_t	 bit = 1ULL << p;
	size_t		 i;
	int		 var = 0, masked = 0, oneshape = 1, kv = 0, allm = 1;
	int		 onekey = 1;
	int		 raw = 0, spread, named = 1;
	uint64_t	 lines;
	size_t		 distinct;

	for (i = 0; i < n; i++) {
		c = &m->clu[r[i].idx];
		named &= (int)(c->sh[p] >> 1) & 1;
		var |= (c->var & bit) != 0;
		raw |= ((c->var | c->rawvar) & bit) != 0;
		masked |= (c->sh[p] & 3) != 0;
		allm &= (int)(c->sh[p] & 1);
		oneshape &= (c->sh[p] | 3) == (root->sh[p] | 3);
		kv |= memchr(c->text + c->toff[p], '=',
		    c->toff[p + 1] - c->toff[p]) != NULL;
		onekey &= kv_name(c, p) == kv_name(root, p);
		vals[2 * i] = c->th[p];
		vals[2 * i + 1] = c->count;
	}
	if (!var && named) {
		/*
		 * Names with numbers ("eth0") vary but when they are a few,
		 * each on TM_NAMELINES lines or more on average.
		 */
		for (i = 0, lines = 0; i < n; i++)
			lines += m->clu[r[i].idx].count;
		distinct = run_values(vals, n, &spread);
		if (!spread && lines >= TM_NAMELINES * distinct)
			return 0;
	} else if (!var && !(masked && oneshape && onekey) &&
	    !(allm && p > 0 && raw)) {
		if (p == 0 && root->ntok < TM_LONGMSG)
			return 0;
		if (run_values(vals, n, &spread) < (kv ? TM_MINKV : TM_MINVALS))
			return 0;
		if ((p == 0 || root->th[p - 1] == hmask ||
		    (root->var & (bit >> 1))) && !spread)
			return 0;
	}
	if (!mask_note(m, root->ntok, root->var | bit))
		return 0;
	frame(m, root, p, r, n);
	root->var |= bit;
	fold(m, root, r, n);
	return 1;
}

/* The groups of a run, variables set, into its first. */
static void
fold(struct ofl_fmt_log_tmpl *m, struct clu *root, const struct mk *r,
    size_t n)
{
	struct clu	*c;
	size_t		 i;

	for (i = 1; i < n; i++) {
		c = &m->clu[r[i].idx];
		root->count += c->count;
		if (c->last > root->last)
			root->last = c->last;
		root->rawvar |= c->rawvar;
		root->epoch &= c->epoch;
		root->compw &= c->compw;
		clu_free(c);
		c->ntok = -1;
	}
	root->key = key_of(root->th, root->ntok, root->var);
}

static int
merge_at(struct ofl_fmt_log_tmpl *m, int p, struct mk *v, uint64_t *vals)
{
	struct clu	*c;
	uint64_t	 bit = 1ULL << p;
	size_t		 n = 0, i, j;
	int		 changed = 0;

	for (i = 0; i < m->nclu; i++) {
		c = &m->clu[i];
		if (c->ntok <= p)
			continue;
		v[n].k = mix(key_of(c->th, c->ntok, c->var | bit),
		    c->var & ~bit);
		v[n].first = c->first;
		v[n++].idx = (uint32_t)i;
	}
	qsort(v, n, sizeof(*v), mk_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].k == v[i].k; j++)
			;
		if (j - i > 1)
			changed |= merge_run(m, p, v + i, j - i, vals);
	}
	return changed;
}

/*
 * The key of a group with its key=value words as their keys alone, and
 * in *kv the places of those words.
 */
static uint64_t
kv_key(const struct clu *c, uint64_t *kv)
{
	const char	*t, *e;
	uint64_t	 k = mix(0x452821e638d01377ULL, (uint64_t)c->ntok);
	int		 i;

	*kv = 0;
	for (i = 0; i < c->ntok; i++) {
		t = c->text + c->toff[i];
		if ((c->var >> i) & 1)
			k = mix(k, H_WILD);
		else if ((e = memchr(t, '=', c->toff[i + 1] - c->toff[i])) !=
		    NULL && e > t && (size_t)(e - t) + 1 < c->toff[i + 1] -
		    c->toff[i]) {
			k = mix(k, XXH3_64bits(t, (size_t)(e - t) + 1));
			*kv |= 1ULL << i;
		} else
			k = mix(k, c->th[i]);
	}
	return mix(k, c->var);
}

/* 1 when one of the places in diff takes TM_MINVALS values in a run. */
static int
kv_many(const struct ofl_fmt_log_tmpl *m, const struct mk *r, size_t n,
    uint64_t diff)
{
	uint64_t	seen[TM_MINVALS];
	size_t		i;
	int		p, k, nseen;

	for (p = 0; p < 64; p++) {
		if (!((diff >> p) & 1))
			continue;
		for (i = 0, nseen = 0; i < n && nseen < TM_MINVALS; i++) {
			for (k = 0; k < nseen; k++)
				if (seen[k] == m->clu[r[i].idx].th[p])
					break;
			if (k == nseen)
				seen[nseen++] = m->clu[r[i].idx].th[p];
		}
		if (nseen >= TM_MINVALS)
			return 1;
	}
	return 0;
}

/*
 * Groups that differ at several key=value words and nowhere else, at
 * least TM_MINVALS of them, one of those words with TM_MINVALS values
 * (not "force=true, delayed=false" and its likes): the values vary
 * together ("tag=A, name=x"
 * and "tag=B, name=y"), one template with a variable at each.
 */
static void
merge_kv(struct ofl_fmt_log_tmpl *m, struct mk *v)
{
	struct clu	*root, *c;
	uint64_t	 kv, diff;
	size_t		 n = 0, i, j, k;
	int		 p;

	for (i = 0; i < m->nclu; i++) {
		if (m->clu[i].ntok <= 1)
			continue;
		v[n].k = kv_key(&m->clu[i], &kv);
		if (kv == 0)
			continue;
		v[n].first = m->clu[i].first;
		v[n++].idx = (uint32_t)i;
	}
	qsort(v, n, sizeof(*v), mk_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].k == v[i].k; j++)
			;
		if (j - i < TM_MINVALS)
			continue;
		root = &m->clu[v[i].idx];
		diff = 0;
		for (k = i + 1; k < j; k++)
			for (p = 0, c = &m->clu[v[k].idx]; p < root->ntok; p++)
				if (c->th[p] != root->th[p])
					diff |= 1ULL << p;
		if ((diff & (diff - 1)) == 0 ||
		    !kv_many(m, v + i, j - i, diff) ||
		    !mask_note(m, root->ntok, root->var | diff))
			continue;
		for (p = 0; p < root->ntok; p++)
			if ((diff >> p) & 1)
				frame(m, root, p, v + i, j - i);
		root->var |= diff;
		fold(m, root, v + i, j - i);
	}
}

/* Merge groups that differ at one varying position; compact. */
static void
merge(struct ofl_fmt_log_tmpl *m)
{
	struct mk	*v;
	uint64_t	*vals;
	size_t		 i, k;
	int		 p, round, changed, maxtok = 0;

	for (i = 0; i < m->nclu; i++)
		if (m->clu[i].ntok > maxtok)
			maxtok = m->clu[i].ntok;
	v = ofl_xcalloc(m->nclu + 1, sizeof(*v));
	vals = ofl_xcalloc(2 * (m->nclu + 1), sizeof(*vals));
	for (round = 0; round < 3; round++) {
		changed = 0;
		for (p = 0; p < maxtok; p++)
			changed |= merge_at(m, p, v, vals);
		if (!changed)
			break;
	}
	merge_kv(m, v);
	free(v);
	free(vals);
	for (i = k = 0; i < m->nclu; i++)
		if (m->clu[i].ntok >= 0)
			m->clu[k++] = m->clu[i];
	m->nclu = k;
	tab_rebuild(m);
}

/*
 * A header of columns the line reader did not know: when nearly every
 * line has a Unix time at one word of its message within the first
 * TM_MAXHDR, and a bare number there or after it (a time and a flag
 * after a node and a state: "node-1 node status 1074216940 1 running"),
 * the words up to the last such number are a header.  Not a column of
 * numbers alone: "GET /x HTTP/1.1" 200 is what a line says.  0: none.
 */
static int
colhdr_find(const struct ofl_fmt_log_tmpl *m)
{
	const struct clu	*c;
	uint64_t		 total = 0, at[TM_MAXHDR], ep[TM_MAXHDR];
	size_t			 i;
	int			 p, best = 0, time = 0;

	memset(at, 0, sizeof(at));
	memset(ep, 0, sizeof(ep));
	for (i = 0; i < m->nclu; i++) {
		c = &m->clu[i];
		total += c->count;
		for (p = 0; p < TM_MAXHDR && p + 1 < c->ntok; p++) {
			if (c->th[p] == hmask && !(c->var & (1ULL << p)))
				at[p] += c->count;
			if ((c->epoch >> p) & 1)
				ep[p] += c->count;
		}
	}
	if (total < TM_COLMIN)
		return 0;
	for (p = 0; p < TM_MAXHDR; p++) {
		time |= ep[p] * 100 >= total * TM_COLPCT;
		if (time && at[p] * 100 >= total * TM_COLPCT)
			best = p + 1;
	}
	return best;
}

/* Set aside the first k tokens of a line when its column holds a number. */
int
ofl_fmt_log_tmpl_colhdr(struct line *l, int k)
{
	if (k == 0 || l->ntok <= k || l->th[k - 1] != hmask)
		return 0;
	ofl_fmt_log_tmpl_shift(l, k);
	return 1;
}

/*
 * 1 if a line's first word may be a component, one the miner can set
 * aside: a word (no number) with more after it.
 */
int
ofl_fmt_log_tmpl_compw(const struct line *l)
{
	return l->compw == 1 && l->ntok > 1 && l->th[0] != hmask &&
	    l->th[0] != H_TAIL;
}

/* Set aside the first k tokens of a line. */
void
ofl_fmt_log_tmpl_shift(struct line *l, int k)
{
	int	i;

	for (i = k; i < l->ntok; i++) {
		l->th[i - k] = l->th[i];
		l->sh[i - k] = l->sh[i];
		l->rh[i - k] = l->rh[i];
		l->tp[i - k] = l->tp[i];
		l->tl[i - k] = l->tl[i];
	}
	l->ntok -= k;
	l->epoch >>= k;
	l->compw = 0;
}

/* Set aside the first k tokens of a group. */
static void
clu_strip(struct ofl_fmt_log_tmpl *m, struct clu *c, int k)
{
	uint32_t	base;
	int		q;

	c->ntok -= k;
	memmove(c->th, c->th + k, (size_t)c->ntok * sizeof(*c->th));
	memmove(c->sh, c->sh + k, (size_t)c->ntok * sizeof(*c->sh));
	memmove(c->rh, c->rh + k, (size_t)c->ntok * sizeof(*c->rh));
	base = c->toff[k];
	memmove(c->text, c->text + base, c->toff[c->ntok + k] - base + 1);
	for (q = 0; q <= c->ntok; q++)
		c->toff[q] = c->toff[q + k] - base;
	c->var >>= k;
	c->rawvar >>= k;
	c->epoch >>= k;
	if (c->var != 0)
		mask_note(m, c->ntok, c->var);
	c->key = key_of(c->th, c->ntok, c->var);
}

/* Groups equal after clu_strip are one. */
static void
clu_unify(struct ofl_fmt_log_tmpl *m)
{
	struct clu	*c, *d;
	struct mk	*v;
	size_t		 i, j, n = 0;
	int		 q;

	v = ofl_xcalloc(m->nclu + 1, sizeof(*v));
	for (i = 0; i < m->nclu; i++) {
		v[n].k = mix(m->clu[i].key, m->clu[i].var);
		v[n].first = m->clu[i].first;
		v[n++].idx = (uint32_t)i;
	}
	qsort(v, n, sizeof(*v), mk_cmp);
	for (i = 0; i < n; i = j) {
		c = &m->clu[v[i].idx];
		for (j = i + 1; j < n && v[j].k == v[i].k; j++) {
			d = &m->clu[v[j].idx];
			c->count += d->count;
			if (d->last > c->last)
				c->last = d->last;
			c->rawvar |= d->rawvar;
			for (q = 0; q < c->ntok; q++)
				if (c->rh[q] != d->rh[q])
					c->rawvar |= 1ULL << q;
			clu_free(d);
			d->ntok = -1;
		}
	}
	free(v);
	for (i = j = 0; i < m->nclu; i++)
		if (m->clu[i].ntok >= 0)
			m->clu[j++] = m->clu[i];
	m->nclu = j;
	tab_rebuild(m);
}

/* The same for the groups; groups equal after it are one. */
static void
clu_colhdr(struct ofl_fmt_log_tmpl *m, int k)
{
	struct clu	*c;
	size_t		 i;

	for (i = 0; i < m->nclu; i++) {
		c = &m->clu[i];
		if (c->ntok > k && c->th[k - 1] == hmask &&
		    !(c->var & (1ULL << (k - 1))))
			clu_strip(m, c, k);
	}
	clu_unify(m);
}

/*
 * A component after the header: when nearly every record whose header
 * did not say where it ends has a name ending in ':' right after it,
 * that name is the header's, set aside; otherwise it is the message's
 * first word.
 */
static int
comp_find(const struct ofl_fmt_log_tmpl *m)
{
	return m->ncompw > 0 && m->ncompw * 100 >= m->nhdr * TM_COMPPCT;
}

/*
 * The groups whose first word may be a component: set aside (strip) or
 * a word again, their lines with those of the same words.
 */
static void
clu_comp(struct ofl_fmt_log_tmpl *m, int strip)
{
	struct clu	*c;
	size_t		 i;

	for (i = 0; i < m->nclu; i++) {
		c = &m->clu[i];
		if (!c->compw || c->ntok < 1)
			continue;
		c->th[0] ^= H_COMPW;
		c->key = key_of(c->th, c->ntok, c->var);
		if (strip && c->ntok > 1)
			clu_strip(m, c, 1);
	}
	clu_unify(m);
}

static int
info_cmp(const void *a, const void *b)
{
	const struct ofl_fmt_log_tmpl_info	*x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->first_line < y->first_line ? -1 :
	    x->first_line > y->first_line;
}

static int
id_cmp(const void *a, const void *b)
{
	const struct ofl_fmt_log_tmpl_info	*x = a, *y = b;
	int					 r;

	if ((r = strcmp(x->id, y->id)) != 0)
		return r;
	return x->first_line < y->first_line ? -1 :
	    x->first_line > y->first_line;
}

static void
id_hex(uint64_t h, char id[OFL_TMPL_ID])
{
	static const char	 hx[] = "0123456789abcdef";
	int			 i;

	for (i = 0; i < OFL_TMPL_ID - 1; i++)
		id[i] = hx[(h >> (60 - 4 * i)) & 15];
	id[OFL_TMPL_ID - 1] = '\0';
}

static char *
clu_text(const struct clu *c, size_t *lenp)
{
	struct ofl_buf	b;
	int		i;

	ofl_buf_init(&b);
	for (i = 0; i < c->ntok; i++) {
		if (i > 0)
			ofl_buf_addc(&b, ' ');
		ofl_buf_add(&b, c->text + c->toff[i],
		    c->toff[i + 1] - c->toff[i]);
	}
	*lenp = b.len;
	return ofl_buf_str(&b);
}

/* The end of the first pass: merge, name and sort the templates. */
void
ofl_fmt_log_tmpl_finish(struct ofl_fmt_log_tmpl *m)
{
	struct ofl_fmt_log_tmpl_info	*o, *t;
	size_t				 i, k;

	if (m->finished)
		return;
	m->finished = 1;
	m->lines = m->rd.lineno;
	m->hcomp = comp_find(m);
	clu_comp(m, m->hcomp);
	if ((m->colhdr = colhdr_find(m)) > 0)
		clu_colhdr(m, m->colhdr);
	merge(m);
	m->out = ofl_xcalloc(m->nclu + 1, sizeof(*m->out));
	for (i = 0; i < m->nclu; i++) {
		o = &m->out[m->nout++];
		o->text = clu_text(&m->clu[i], &o->len);
		m->clu[i].id = XXH3_64bits(o->text, o->len);
		id_hex(m->clu[i].id, o->id);
		o->count = m->clu[i].count;
		o->first_line = m->clu[i].first;
		o->last_line = m->clu[i].last;
		o->level = levels[m->clu[i].level];
	}
	if (m->other > 0) {
		o = &m->out[m->nout++];
		o->text = ofl_xstrdup("<*>");
		o->len = 3;
		id_hex(XXH3_64bits("<*>", 3), o->id);
		o->count = m->other;
		o->first_line = m->other_first;
		o->last_line = m->other_last;
	}
	/* Two groups of one text are one template. */
	qsort(m->out, m->nout, sizeof(*m->out), id_cmp);
	for (i = k = 0; i < m->nout; i++) {
		if (k > 0 && strcmp(m->out[k - 1].id, m->out[i].id) == 0) {
			t = &m->out[k - 1];
			t->count += m->out[i].count;
			if (m->out[i].last_line > t->last_line)
				t->last_line = m->out[i].last_line;
			free(m->out[i].text);
			continue;
		}
		m->out[k++] = m->out[i];
	}
	m->nout = k;
	qsort(m->out, m->nout, sizeof(*m->out), info_cmp);
	memset(&m->rd, 0, sizeof(m->rd));
	m->rd.cur = -1;
}

size_t
ofl_fmt_log_tmpl_count(const struct ofl_fmt_log_tmpl *m)
{
	return m->nout;
}

const struct ofl_fmt_log_tmpl_info *
ofl_fmt_log_tmpl_get(const struct ofl_fmt_log_tmpl *m, size_t i)
{
	return i < m->nout ? &m->out[i] : NULL;
}

uint64_t
ofl_fmt_log_tmpl_lines(const struct ofl_fmt_log_tmpl *m)
{
	return m->finished ? m->lines : m->rd.lineno;
}

/* Start the lines again at line 1 for ofl_fmt_log_tmpl_line. */
void
ofl_fmt_log_tmpl_rewind(struct ofl_fmt_log_tmpl *m)
{
	memset(&m->rd, 0, sizeof(m->rd));
	m->rd.cur = -1;
}

static void
line_id(const struct ofl_fmt_log_tmpl *m, int32_t idx, char id[OFL_TMPL_ID])
{
	if (idx >= 0)
		id_hex(m->clu[idx].id, id);
	else
		id_hex(XXH3_64bits("<*>", 3), id);
}

/*
 * After ofl_fmt_log_tmpl_finish, the lines again in order: the template
 * of each, a continuation line taking its record's.  Returns 1 for the
 * first line of a record, 0 for a continuation.
 */
int
ofl_fmt_log_tmpl_line(struct ofl_fmt_log_tmpl *m, const char *p, size_t n,
    char id[OFL_TMPL_ID])
{
	struct line	 l;
	struct rdst	*rd = &m->rd;

	rd->lineno++;
	tokenize(&l, rd, p, n);
	if (l.cont) {
		line_id(m, rd->cur_other ? -1 : rd->cur, id);
		return 0;
	}
	rd->head_ts = l.ts;
	if (m->hcomp && ofl_fmt_log_tmpl_compw(&l))
		ofl_fmt_log_tmpl_shift(&l, 1);
	ofl_fmt_log_tmpl_colhdr(&l, m->colhdr);
	rd->cur = lookup(m, &l);
	rd->cur_other = rd->cur == -1;
	line_id(m, rd->cur, id);
	return 1;
}

/*
 * The template of one line taken alone, as the first line of a record,
 * after ofl_fmt_log_tmpl_finish.  Returns 0 when no template of the log
 * has the line (a line of another log, or past the cap): id is then
 * the catch-all's.
 */
int
ofl_fmt_log_tmpl_of(const struct ofl_fmt_log_tmpl *m, const char *p,
    size_t n, char id[OFL_TMPL_ID])
{
	struct line	l;
	struct rdst	rd;
	int32_t		idx;

	memset(&rd, 0, sizeof(rd));
	rd.cur = -1;
	tokenize(&l, &rd, p, n);
	if (m->hcomp && ofl_fmt_log_tmpl_compw(&l))
		ofl_fmt_log_tmpl_shift(&l, 1);
	ofl_fmt_log_tmpl_colhdr(&l, m->colhdr);
	idx = lookup(m, &l);
	line_id(m, idx, id);
	return idx != -1;
}

/* The level's name as the miner gives it, from any spelling; or NULL. */
const char *
ofl_fmt_log_tmpl_level(const char *s)
{
	size_t	i;
	int	l;

	if (s == NULL)
		return NULL;
	ofl_fmt_log_head_init();
	for (i = 1; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (strcmp(s, levels[i]) == 0)
			return levels[i];
	l = ofl_fmt_log_head_level(s, strlen(s));
	return l != 0 ? levels[l] : NULL;
}

/* A line tokenized as the miner does, for the matcher. */
void
ofl_fmt_log_tmpl_tokenize(struct line *l, const char *p, size_t n)
{
	struct rdst	rd;

	ofl_fmt_log_head_init();
	memset(&rd, 0, sizeof(rd));
	rd.cur = -1;
	tokenize(l, &rd, p, n);
}

/* The hash of a token that is a bare number. */
uint64_t
ofl_fmt_log_tmpl_hmask(void)
{
	ofl_fmt_log_head_init();
	if (hmask == 0)
		hmask = tok_hash("0", 1, &hmask_sh, 0);
	return hmask;
}
