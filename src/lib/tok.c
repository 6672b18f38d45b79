/*
 * tok.c: the rules of ofl's tokenizer, as text rules only.
 *
 * The tokenizer wraps a word tokenizer (porter over unicode61, which the
 * store gets from SQLite's FTS5 and hands over as a struct ofl_tok_words)
 * and adds, at the position of the first word of an identifier, path or
 * id made of several words ("src/foo.c", "blk_-160899", "dfs.DataNode"),
 * the whole of it as a colocated token.  A query can ask for that token
 * exactly by starting its string with OFL_TOK_EXACT.
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
	void		*ctx;
	int		(*xtoken)(void *, int, const char *, int, int, int);
	const char	*text;
	int		 len;
	int		 run_end;	/* end of the current identifier */
	int		 doc;		/* emit identifier tokens */
	char		 buf[COMPOUND_MAX];
};

static int	 compound_char(int);
static int	 compound_sep(int);
static int	 compound_end(const char *, int, int, int *);
static int	 tok_token(void *, int, const char *, int, int, int);

/* Bytes an identifier is made of: ASCII letters and digits, UTF-8. */
static int
compound_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c >= 0x80 || compound_sep(c);
}

/* Punctuation that joins the words of an identifier, path or id. */
static int
compound_sep(int c)
{
	return c == '_' || c == '-' || c == '.' || c == '/' || c == ':' ||
	    c == '@' || c == '$' || c == '#' || c == '\\' || c == '~';
}

/*
 * The end of the identifier that starts at text[start], trailing
 * punctuation dropped.  Sets *keep when it is worth a token of its own:
 * several words joined by punctuation, with a letter in it.
 */
static int
compound_end(const char *text, int len, int start, int *keep)
{
	const unsigned char	*s = (const unsigned char *)text;
	int			 i, scan, end, seps = 0, word = 0, run = 0;
	int			 other = 0;

	for (scan = start; scan < len && compound_char(s[scan]); scan++)
		;
	end = scan;
	while (end > start && compound_sep(s[end - 1]))
		end--;
	/* A word: a part between separators made of two letters or more. */
	for (i = start; i <= end; i++) {
		if (i == end || compound_sep(s[i])) {
			if (run >= 2 && !other)
				word = 1;
			if (i < end)
				seps++;
			run = other = 0;
		} else if ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')
			run++;
		else
			other = 1;
	}
	*keep = seps > 0 && word && end - start <= COMPOUND_MAX;
	/* Skip what follows too, so its words do not start a new one. */
	return scan;
}

/* A word from the word tokenizer: pass it on, and its identifier. */
static int
tok_token(void *p, int flags, const char *tok, int n, int start, int end)
{
	struct tok_run	*r = p;
	int		 rc, e, keep, k, i;

	rc = r->xtoken(r->ctx, flags, tok, n, start, end);
	if (rc != OFL_TOK_OK || !r->doc || start < r->run_end)
		return rc;
	r->run_end = compound_end(r->text, r->len, start, &keep);
	if (!keep)
		return OFL_TOK_OK;
	/* The identifier without its trailing punctuation, lowercased. */
	for (e = r->run_end; e > start &&
	    compound_sep((unsigned char)r->text[e - 1]); e--)
		;
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
