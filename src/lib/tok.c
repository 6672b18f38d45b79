/*
 * tok.c: the rules of ofl's tokenizer, as text rules only.
 *
 * The tokenizer wraps a word tokenizer (porter over unicode61, which the
 * store gets from SQLite's FTS5 and hands over as a struct ofl_tok_words)
 * and adds, at the position of the first word of an identifier, path or
 * id made of several words ("src/foo.c", "blk_-160899", "dfs.DataNode"),
 * the whole of it as a colocated token.  A query can ask for that token
 * exactly by starting its string with OFL_TOK_EXACT.  A word written in
 * CamelCase ("ConnectionPoolTimeoutException", "maxRetries") gives its
 * parts too, each as the word tokenizer has it, colocated with the whole:
 * "connection pool" finds it, and so does the whole word.  A word of a
 * package's or a device's name gives the name inside it ("libjq1" gives
 * "libjq" and "jq", "python3" "python"), colocated the same way.
 *
 * Nothing here knows of the store: the same rules serve the index (the
 * store registers them with FTS5) and the services that mark matches or
 * count terms.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define COMPOUND_MAX	OFL_TOK_COMPOUND_MAX	/* longest identifier token */

struct ofl_tok {
	struct ofl_tok_words	 w;
};

/* State of one tokenizing call. */
struct tok_run {
	struct ofl_tok	*tk;
	void		*ctx;
	int		(*xtoken)(void *, int, const char *, int, int, int);
	const char	*text;
	int		 len;
	int		 run_end;	/* end of the current identifier */
	int		 doc;		/* emit identifier tokens */
	char		 buf[COMPOUND_MAX];
	int		 part_off;	/* camel parts: where the part starts */
};

static int	 compound_sep(int);
static int	 compound_end(const char *, int, int, int *, int *);
static int	 tok_token(void *, int, const char *, int, int, int);
static int	 camel_maybe(const char *, int);
static int	 lib_word(const char *, int);
static int	 camel_split(const char *, int, int *, int);
static int	 camel_parts(struct tok_run *, int, int);
static int	 part_token(void *, int, const char *, int, int, int);
static int	 name_core(const char *, int, int, int *);

#define CAMEL_PARTS	8	/* most parts of a CamelCase word */
#define MIN_CORE	2	/* letters of a name inside a word */

/* Punctuation that joins the words of an identifier, path or id. */
static const unsigned char	sep_byte[256] = {
	['_'] = 1, ['-'] = 1, ['.'] = 1, ['/'] = 1, [':'] = 1, ['@'] = 1,
	['$'] = 1, ['#'] = 1, ['\\'] = 1, ['~'] = 1
};

static int
compound_sep(int c)
{
	return sep_byte[c & 0xff];
}

/*
 * The end of the identifier that starts at text[start], in one pass:
 * returned, what follows skipped too, so its words do not start a new
 * one; *endp, the end without its trailing punctuation.  Sets *keep
 * when it is worth a token of its own: several words joined by
 * punctuation, with a word of two letters or more (and nothing else)
 * between them.
 */
static int
compound_end(const char *text, int len, int start, int *endp, int *keep)
{
	const unsigned char	*s = (const unsigned char *)text;
	int			 i, c, seps = 0, trail = 0, word = 0, run = 0;
	int			 other = 0;

	for (i = start; i < len; i++) {
		c = s[i];
		if (sep_byte[c]) {
			if (run >= 2 && !other)
				word = 1;
			run = other = 0;
			seps++;
			trail++;
			continue;
		}
		if ((unsigned)((c | 0x20) - 'a') < 26)
			run++;
		else if ((unsigned)(c - '0') < 10 || c >= 0x80)
			other = 1;
		else
			break;
		trail = 0;
	}
	if (run >= 2 && !other)
		word = 1;
	*endp = i - trail;
	*keep = seps - trail > 0 && word && *endp - start <= COMPOUND_MAX;
	return i;
}

/* 1 if s[0..n) starts with "lib", in any case, and goes on. */
static int
lib_word(const char *s, int n)
{
	return n > 3 && (s[0] | 0x20) == 'l' && (s[1] | 0x20) == 'i' &&
	    (s[2] | 0x20) == 'b';
}

/*
 * 1 if s[0..n) is all ASCII letters and digits and may have parts: a
 * capital after its first letter (camel_split()), digits at its end or
 * "lib" at its start (name_core()).  One pass, for every word.
 */
static int
camel_maybe(const char *s, int n)
{
	int	i, c;

	if (n < 2)
		return 0;
	for (i = 1; i < n; i++)
		if ((unsigned)((unsigned char)s[i] - 'A') < 26)
			break;
	if (i == n && (unsigned)((unsigned char)s[n - 1] - '0') >= 10 &&
	    !lib_word(s, n))
		return 0;
	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i] | 0x20;
		if (!((unsigned)(c - 'a') < 26 || (unsigned)(s[i] - '0') < 10))
			return 0;
	}
	return 1;
}

/*
 * The parts of a CamelCase word s[0..n) of ASCII letters and digits: the
 * offsets where a part starts after the first ("maxRetries" 3,
 * "HTTPServer" 4), at most max of them.  Returns how many; 0 for a word
 * of one part, and for one none of whose parts has two letters: the
 * "14T12" and "789Z" of a timestamp are not words.
 */
static int
camel_split(const char *s, int n, int *at, int max)
{
	int	i, j, k = 0, c, p, up, pup, nlow, letters;

	if (n < 4 || n > COMPOUND_MAX)
		return 0;
	for (i = 1; i < n; i++) {
		c = (unsigned char)s[i];
		p = (unsigned char)s[i - 1];
		up = c >= 'A' && c <= 'Z';
		pup = p >= 'A' && p <= 'Z';
		nlow = i + 1 < n && s[i + 1] >= 'a' && s[i + 1] <= 'z';
		if (!up)
			continue;
		/* aB, 2B, and the last capital of ABc. */
		if ((p >= 'a' && p <= 'z') || (p >= '0' && p <= '9') ||
		    (pup && nlow)) {
			if (k == max)
				return 0;
			at[k++] = i;
		}
	}
	for (i = 0; i <= k && k > 0; i++) {
		letters = 0;
		for (j = i == 0 ? 0 : at[i - 1]; j < (i == k ? n : at[i]); j++)
			letters += (unsigned)((s[j] | 0x20) - 'a') < 26;
		if (letters >= 2)
			return k;
	}
	return 0;
}

/* A part of a CamelCase word, as the word tokenizer made it. */
static int
part_token(void *p, int flags, const char *tok, int n, int start, int end)
{
	struct tok_run	*r = p;

	return r->xtoken(r->ctx, OFL_TOK_COLOCATED, tok, n,
	    r->part_off + start, r->part_off + end);
}

/*
 * The name inside a word of ASCII letters and digits of a package or a
 * device: "libssl3" and "libjq1" of a package list hold "ssl" and "jq",
 * "python3" holds "python".  The letters after a "lib" that starts a
 * word ending in digits or going on in a name ("libarchive-dev",
 * "libjson-perl:all"), and before digits that end a word, at least
 * MIN_CORE of them; its start in *from, its length returned (0: none
 * but the word).
 */
static int
name_core(const char *s, int n, int next, int *from)
{
	int	a = 0, z = n, i;

	while (z > 0 && s[z - 1] >= '0' && s[z - 1] <= '9')
		z--;
	if (lib_word(s, n) && (z < n || next == '-' || next == ':'))
		a = 3;
	for (i = a; i < z; i++)
		if (s[i] >= '0' && s[i] <= '9')
			return 0;
	if ((a == 0 && z == n) || z - a < MIN_CORE || (a == 0 && z < 3))
		return 0;
	*from = a;
	return z - a;
}

/*
 * The parts of the CamelCase word at text[start..end), colocated, or
 * the name inside it (name_core()).
 */
static int
camel_parts(struct tok_run *r, int start, int end)
{
	int	at[CAMEL_PARTS], k, i, from, to, rc;

	if (!camel_maybe(r->text + start, end - start))
		return OFL_TOK_OK;
	if ((k = camel_split(r->text + start, end - start, at,
	    CAMEL_PARTS)) == 0) {
		if ((k = name_core(r->text + start, end - start, end <
		    r->len ? (unsigned char)r->text[end] : 0, &from)) == 0)
			return OFL_TOK_OK;
		/* "libsystemd0" holds "libsystemd" too. */
		r->part_off = start;
		if (from > 0 && start + from + k < end && (rc =
		    r->tk->w.run(r->tk->w.ctx, r, OFL_TOK_DOCUMENT,
		    r->text + start, from + k, part_token)) != OFL_TOK_OK)
			return rc;
		r->part_off = start + from;
		return r->tk->w.run(r->tk->w.ctx, r, OFL_TOK_DOCUMENT,
		    r->text + start + from, k, part_token);
	}
	for (i = 0; i <= k; i++) {
		from = start + (i == 0 ? 0 : at[i - 1]);
		to = i == k ? end : start + at[i];
		r->part_off = from;
		/* The word tokenizer again, on the part alone. */
		rc = r->tk->w.run(r->tk->w.ctx, r, OFL_TOK_DOCUMENT,
		    r->text + from, to - from, part_token);
		if (rc != OFL_TOK_OK)
			return rc;
	}
	return OFL_TOK_OK;
}

int
ofl_tok_is_ident(const char *tok, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		if (compound_sep((unsigned char)tok[i]))
			return 1;
	return 0;
}

/* A word from the word tokenizer: pass it on, its parts, its identifier. */
static int
tok_token(void *p, int flags, const char *tok, int n, int start, int end)
{
	struct tok_run	*r = p;
	int		 rc, e, keep, k, i;

	rc = r->xtoken(r->ctx, flags, tok, n, start, end);
	if (rc == OFL_TOK_OK && r->doc && !(flags & OFL_TOK_COLOCATED))
		rc = camel_parts(r, start, end);
	if (rc != OFL_TOK_OK || !r->doc || start < r->run_end)
		return rc;
	r->run_end = compound_end(r->text, r->len, start, &e, &keep);
	if (!keep)
		return OFL_TOK_OK;
	/* The identifier without its trailing punctuation, lowercased. */
	k = e - start;
	for (i = 0; i < k; i++) {
		int c = (unsigned char)r->text[start + i];

		r->buf[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	return r->xtoken(r->ctx, OFL_TOK_COLOCATED, r->buf, k, start, e);
}

struct ofl_tok *
ofl_tok_new(const struct ofl_tok_words *w)
{
	struct ofl_tok	*tk;

	tk = ofl_xcalloc(1, sizeof *tk);
	tk->w = *w;
	return tk;
}

void
ofl_tok_free(struct ofl_tok *tk)
{
	if (tk == NULL)
		return;
	if (tk->w.free != NULL)
		tk->w.free(tk->w.ctx);
	free(tk);
}

int
ofl_tok_tokenize(struct ofl_tok *tk, void *ctx, int flags, const char *text,
    int len, int (*xtoken)(void *, int, const char *, int, int, int))
{
	struct tok_run	 r;
	char		 buf[COMPOUND_MAX];
	int		 i, k;

	if ((flags & OFL_TOK_QUERY) && !(flags & OFL_TOK_PLAIN) &&
	    len > 0 && text[0] == OFL_TOK_EXACT) {
		/* An identifier asked for exactly, as the documents have it. */
		k = 0;
		for (i = 1; i < len && k < COMPOUND_MAX; i++) {
			int c = (unsigned char)text[i];

			buf[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
		}
		if (k == 0)
			return OFL_TOK_OK;
		return xtoken(ctx, 0, buf, k, 0, len);
	}
	memset(&r, 0, sizeof r);
	r.tk = tk;
	r.ctx = ctx;
	r.xtoken = xtoken;
	r.text = text;
	r.len = len;
	r.doc = (flags & (OFL_TOK_QUERY | OFL_TOK_PLAIN)) == 0;
	return tk->w.run(tk->w.ctx, &r, flags & ~OFL_TOK_PLAIN, text, len,
	    tok_token);
}

int
ofl_tok_run(struct ofl_tok *tk, int query, const char *text, size_t len,
    int (*cb)(void *, int, const char *, int, int, int), void *arg)
{
	static const int	flags[] = { OFL_TOK_DOCUMENT, OFL_TOK_QUERY,
				    OFL_TOK_DOCUMENT | OFL_TOK_PLAIN };

	if (len > INT32_MAX)
		len = INT32_MAX;
	if (query < 0 || query > 2)
		query = 2;
	if (ofl_tok_tokenize(tk, arg, flags[query], text, (int)len, cb) !=
	    OFL_TOK_OK)
		return -1;
	return 0;
}
