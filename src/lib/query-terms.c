/*
 * query-terms.c: a query's terms.  Any text is a valid query: it is cut
 * here into terms (words, and phrases in double quotes), each made an
 * FTS5 string, so that no character the user types is ever FTS5 syntax;
 * the words to mark in snippets; and the lexicon's related forms, asked
 * for in a query of their own.  query.c runs what is built here.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "search.h"
#include "banned.h"

#define QUERY_MAX	4096		/* bytes of query text used */
#define TERMS_MAX	32		/* terms used */
#define TARGETS_MAX	64		/* words marked */
#define COMPOUND_MAX	64		/* bytes of two words written as one */

static char	*clean_query(const char *, size_t *);
static void	 term_add(struct search *, const char *, size_t, int, int);
static int	 stop_word(const char *, size_t);
static int	 compound_word(const struct term *);
static size_t	 lex_term(struct search *, struct ofl_buf *, size_t,
		    const char *);
static void	 compounds(struct search *);
static void	 compound_forms(struct ofl_buf *, const char *);
static void	 lower_add(struct ofl_buf *, const char *, size_t);
static int	 count_cb(void *, int, const char *, int, int, int);
static int	 exact_cb(void *, int, const char *, int, int, int);
static int	 name_byte(int);
static void	 add_fts_term(struct ofl_buf *, const struct term *);
static void	 lex_form(struct ofl_buf *, const char *);
static void	 lex_targets(struct search *, size_t);

/* Query text. */

/*
 * The query with control characters and invalid UTF-8 made spaces, cut
 * at QUERY_MAX bytes (at the white space before).
 */
static char *
clean_query(const char *q, size_t *lenp)
{
	const unsigned char	*p = (const unsigned char *)q;
	size_t			 n = strlen(q), i = 0, j = 0, quotes = 0;
	char			*out;
	int			 k, cut = 0;

	/* Its first words: not the first letters of a word cut. */
	if (n > QUERY_MAX) {
		for (i = QUERY_MAX; i > 0 && p[i] != ' ' && p[i] != '\t' &&
		    p[i] != '\n'; i--)
			;
		n = i > 0 ? i : QUERY_MAX;
		i = 0;
		cut = 1;
	}
	out = ofl_xmalloc(n + 2);
	while (i < n) {
		if (p[i] < 0x20 || p[i] == 0x7f) {
			out[j++] = ' ';
			i++;
			continue;
		}
		if ((k = ofl_utf8_len(p + i, n - i)) == 0) {
			out[j++] = ' ';
			i++;
			continue;
		}
		quotes += p[i] == '"';
		memcpy(out + j, p + i, (size_t)k);
		i += (size_t)k;
		j += (size_t)k;
	}
	/* A phrase the cut ends inside: its words kept as a phrase. */
	if (cut && quotes % 2 == 1)
		out[j++] = '"';
	out[j] = '\0';
	*lenp = j;
	return out;
}

/* Words that say little in a query: left out when others remain. */
static int
stop_word(const char *p, size_t n)
{
	static const char *words[] = {
		"a", "about", "am", "an", "and", "are", "as", "at", "be",
		"been", "but", "by", "can", "could", "did", "do", "does",
		"for", "from", "had", "has", "have", "how", "i", "if", "in",
		"into", "is", "it", "its", "me", "my", "of", "on", "or",
		"our", "please", "shall", "should", "show", "so", "that",
		"the", "their", "them", "then", "there", "these", "they",
		"this", "those", "to", "us", "was", "we", "were", "what",
		"when", "where", "which", "who", "why", "will", "with",
		"would", "you", "your", NULL
	};
	char	w[16];
	size_t	i;

	if (n == 0 || n >= sizeof w)
		return 0;
	for (i = 0; i < n; i++)
		w[i] = (char)tolower((unsigned char)p[i]);
	w[n] = '\0';
	for (i = 0; words[i] != NULL; i++)
		if (strcmp(words[i], w) == 0)
			return 1;
	return 0;
}

static int
count_cb(void *arg, int flags, const char *tok, int n, int start, int end)
{
	size_t	*count = arg;

	if (!(flags & OFL_TOK_COLOCATED))
		(*count)++;
	return OFL_TOK_OK;
}

struct exact_ctx {
	char	*exact;
	int	 start;
	int	 end;
	size_t	 inside;	/* words inside the identifier */
	size_t	 words;
};

static int
exact_cb(void *arg, int flags, const char *tok, int n, int start, int end)
{
	struct exact_ctx	*x = arg;

	if (flags & OFL_TOK_COLOCATED) {
		/* A CamelCase part is a word of the identifier. */
		if (!ofl_tok_is_ident(tok, n))
			return OFL_TOK_OK;
		if (x->exact == NULL) {
			x->exact = ofl_xmalloc((size_t)n + 1);
			memcpy(x->exact, tok, (size_t)n);
			x->exact[n] = '\0';
			x->start = start;
			x->end = end;
			/* The word it is colocated with is inside. */
			x->inside++;
		}
		return OFL_TOK_OK;
	}
	x->words++;
	if (x->exact != NULL && start >= x->start && start < x->end)
		x->inside++;
	return OFL_TOK_OK;
}

static void
term_add(struct search *s, const char *p, size_t n, int phrase, int prefix)
{
	struct exact_ctx	 x;
	struct term		*t;
	size_t			 i, ntok = 0;

	if (s->nt >= TERMS_MAX || n == 0)
		return;
	for (i = 0; i < s->nt; i++)
		if (s->t[i].len == n && memcmp(s->t[i].text, p, n) == 0 &&
		    s->t[i].phrase == phrase && s->t[i].prefix == prefix)
			return;
	s->t = ofl_xrealloc(s->t, (s->nt + 1) * sizeof *s->t);
	t = &s->t[s->nt++];
	memset(t, 0, sizeof *t);
	t->lex = -1;
	t->text = ofl_xmalloc(n + 1);
	memcpy(t->text, p, n);
	t->text[n] = '\0';
	t->len = n;
	t->phrase = phrase;
	t->prefix = prefix;
	t->stop = !phrase && !prefix && stop_word(p, n);
	(void)ofl_tok_run(s->tk, 1, p, n, count_cb, &ntok);
	t->ntok = ntok;
	if (ntok > 0 && !phrase && !prefix) {
		memset(&x, 0, sizeof x);
		(void)ofl_tok_run(s->tk, 0, p, n, exact_cb, &x);
		/* Only when the identifier is the whole term. */
		if (x.exact != NULL && x.inside == x.words)
			t->exact = x.exact;
		else
			free(x.exact);
	}
}

/* Split the query into words and "phrases"; a lone quote is a space. */
int
ofl_query_terms_parse(struct search *s, const char *query)
{
	char	*q, *p, *e;
	size_t	 len, n;

	q = clean_query(query, &len);
	p = q;
	while (*p != '\0') {
		if (*p == ' ') {
			p++;
			continue;
		}
		if (*p == '"') {
			if ((e = strchr(p + 1, '"')) != NULL) {
				term_add(s, p + 1, (size_t)(e - p - 1), 1, 0);
				p = e + 1;
			} else
				p++;
			continue;
		}
		for (e = p; *e != '\0' && *e != ' ' && *e != '"'; e++)
			;
		n = (size_t)(e - p);
		if (n > 1 && p[n - 1] == '*') {
			while (n > 0 && p[n - 1] == '*')
				n--;
			term_add(s, p, n, 0, n > 0);
		} else
			term_add(s, p, n, 0, 0);
		p = e;
	}
	free(q);
	return 0;
}

int
ofl_query_terms_target_cb(void *arg, int flags, const char *tok, int n,
    int start, int end)
{
	struct target_ctx	*c = arg;

	if (!(flags & OFL_TOK_COLOCATED))
		ofl_query_terms_target_add(c->s, tok, (size_t)n, c->prefix, 0,
		    c->term);
	return OFL_TOK_OK;
}

void
ofl_query_terms_target_add(struct search *s, const char *p, size_t n,
    int prefix, int exact, int term)
{
	struct target	*g;
	size_t		 i;

	if (n == 0 || s->ntg >= TARGETS_MAX)
		return;
	for (i = 0; i < s->ntg; i++)
		if (s->tg[i].n == n && memcmp(s->tg[i].s, p, n) == 0 &&
		    s->tg[i].exact == exact) {
			s->tg[i].prefix |= prefix;
			return;
		}
	s->tg = ofl_xrealloc(s->tg, (s->ntg + 1) * sizeof *s->tg);
	g = &s->tg[s->ntg++];
	memset(g, 0, sizeof *g);
	g->s = ofl_xmalloc(n + 1);
	memcpy(g->s, p, n);
	g->s[n] = '\0';
	g->n = n;
	g->prefix = prefix;
	g->exact = exact;
	g->term = term;
	g->lex = s->addlex;
}

/* The words to mark: every token of every term, as the index has them. */
void
ofl_query_terms_targets(struct search *s, const char *raw)
{
	struct target_ctx	c;
	size_t			i;

	c.s = s;
	if (raw != NULL) {
		/* Raw FTS5 syntax: mark its words, operators or not. */
		c.prefix = 0;
		c.term = 0;
		(void)ofl_tok_run(s->tk, 2, raw, strlen(raw), ofl_query_terms_target_cb, &c);
		return;
	}
	for (i = 0; i < s->nt; i++) {
		if (s->t[i].stop && s->skipstop)
			continue;
		c.prefix = s->t[i].prefix;
		c.term = (int)i;
		if (s->t[i].spell != NULL) {
			ofl_query_terms_target_add(s, s->t[i].spell, strlen(s->t[i].spell), 0,
			    0, (int)i);
			continue;
		}
		if (s->t[i].exact != NULL)
			ofl_query_terms_target_add(s, s->t[i].exact, strlen(s->t[i].exact),
			    0, 1, (int)i);
		(void)ofl_tok_run(s->tk, 1, s->t[i].text, s->t[i].len,
		    ofl_query_terms_target_cb, &c);
	}
	/* Then the other forms, so that the words typed come first. */
	for (i = 0; i < s->nt; i++) {
		if (s->t[i].lex >= 0 && s->t[i].spell == NULL)
			lex_targets(s, i);
		if (s->t[i].compound != NULL) {
			c.prefix = 0;
			c.term = (int)i;
			s->addlex = LEX_WORD;
			(void)ofl_tok_run(s->tk, 1, s->t[i].compound,
			    strlen(s->t[i].compound),
			    ofl_query_terms_target_cb, &c);
			s->addlex = 0;
		}
	}
}

/*
 * A term as an FTS5 expression: its string, as a prefix when it is one,
 * or'ed with its exact form when it has one.
 */
static void
add_fts_term(struct ofl_buf *b, const struct term *t)
{
	char	tmp[256];

	if (t->exact != NULL) {
		snprintf(tmp, sizeof tmp, "%c%s", OFL_TOK_EXACT, t->exact);
		ofl_buf_addc(b, '(');
		ofl_buf_add_fts_string(b, tmp, strlen(tmp));
		ofl_buf_adds(b, " OR ");
	}
	ofl_buf_add_fts_string(b, t->text, t->len);
	if (t->prefix)
		ofl_buf_adds(b, " *");
	if (t->exact != NULL)
		ofl_buf_addc(b, ')');
}

/* Every term as an FTS5 string, joined by op; NULL if there is none. */
char *
ofl_query_terms_fts(struct search *s, const char *op)
{
	struct ofl_buf	 b;
	struct term	*t;
	size_t		 i, used = 0;

	ofl_buf_init(&b);
	for (i = 0; i < s->nt; i++) {
		t = &s->t[i];
		if ((t->ntok == 0 && t->spell == NULL) ||
		    (t->stop && s->skipstop))
			continue;
		if (used++ > 0)
			ofl_buf_adds(&b, op);
		if (t->spell != NULL) {
			char	tmp[256];

			snprintf(tmp, sizeof tmp, "%c%s", OFL_TOK_EXACT,
			    t->spell);
			ofl_buf_add_fts_string(&b, tmp, strlen(tmp));
			continue;
		}
		add_fts_term(&b, t);
	}
	if (used == 0) {
		ofl_buf_free(&b);
		return NULL;
	}
	return ofl_buf_str(&b);
}

/*
 * The lexicon: where a run of the query's words is a form of a group
 * ("disk full"), the other forms of the group are asked for too, in a
 * query of its own whose hits rank below those of the words typed.
 */
void
ofl_query_terms_lex_find(struct search *s)
{
	const char	*w[TERMS_MAX];
	size_t		 i, j, len;
	int		 g;

	for (i = 0; i < s->nt; i++) {
		s->t[i].lex = -1;
		/* A phrase, a prefix, an identifier: as typed. */
		w[i] = s->t[i].phrase || s->t[i].prefix || s->t[i].exact !=
		    NULL || s->t[i].spell != NULL ? "" : s->t[i].text;
	}
	for (i = 0; i < s->nt; i++) {
		if (*w[i] == '\0')
			continue;
		for (j = i; j < s->nt && *w[j] != '\0'; j++)
			;
		if ((g = ofl_lexicon_match(w + i, j - i, &len)) < 0)
			continue;
		s->t[i].lex = g;
		s->t[i].lexlen = len;
		i += len - 1;
	}
	compounds(s);
}

/* A word a compound is made of: as typed, of letters alone. */
static int
compound_word(const struct term *t)
{
	size_t	i;

	if (t->phrase || t->prefix || t->exact != NULL || t->spell != NULL ||
	    t->stop || (t->lex >= 0 && t->lexlen != 1) || t->len < 2)
		return 0;
	for (i = 0; i < t->len; i++)
		if (!isalpha((unsigned char)t->text[i]))
			return 0;
	return 1;
}

/*
 * Two words in a row that a file name, a key or an identifier writes as
 * one ("error summary": errorsummary.log, "user name": username), where
 * no form of several words of the lexicon takes them: the one word is
 * asked for with them, as a form of the lexicon is.  "not" and a word:
 * the word with the prefixes that deny it ("not signed": unsigned).
 */
static void
compounds(struct search *s)
{
	static const char *neg[] = { "un", "in", "dis", "non", NULL };
	struct ofl_buf	 w;
	struct term	*a, *b;
	size_t		 i, k;

	for (i = 0; i < s->nt; i++) {
		free(s->t[i].compound);
		s->t[i].compound = NULL;
	}
	for (i = 0; i + 1 < s->nt; i++) {
		a = &s->t[i];
		b = &s->t[i + 1];
		if (a->lex >= 0 && a->lexlen > 1) {
			i += a->lexlen - 1;
			continue;
		}
		if (!compound_word(a) || !compound_word(b) ||
		    a->len + b->len >= COMPOUND_MAX)
			continue;
		ofl_buf_init(&w);
		if (a->len == 3 && strncasecmp(a->text, "not", 3) == 0) {
			/* "not signed": unsigned, "not valid": invalid */
			for (k = 0; neg[k] != NULL; k++) {
				ofl_buf_adds(&w, k > 0 ? " " : "");
				ofl_buf_adds(&w, neg[k]);
				lower_add(&w, b->text, b->len);
			}
		} else {
			lower_add(&w, a->text, a->len);
			lower_add(&w, b->text, b->len);
		}
		a->compound = ofl_buf_str(&w);
		i++;
	}
}

static void
lower_add(struct ofl_buf *b, const char *p, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		ofl_buf_addc(b, (char)tolower((unsigned char)p[i]));
}

/* A form as FTS5 wants it: a word, or the words that say something. */
static void
lex_form(struct ofl_buf *b, const char *form)
{
	const char	*p = form, *e;
	size_t		 n = 0;

	ofl_buf_addc(b, '(');
	while (*p != '\0') {
		if ((e = strchr(p, ' ')) == NULL)
			e = p + strlen(p);
		/* Words of a CamelCase name share a place: no phrase. */
		if (strchr(form, ' ') == NULL || ((size_t)(e - p) >= 3 &&
		    !stop_word(p, (size_t)(e - p)))) {
			if (n++ > 0)
				ofl_buf_adds(b, " AND ");
			ofl_buf_add_fts_string(b, p, (size_t)(e - p));
		}
		p = *e == ' ' ? e + 1 : e;
	}
	if (n == 0)
		ofl_buf_add_fts_string(b, form, strlen(form));
	ofl_buf_addc(b, ')');
}

/*
 * All the terms (any: any of them, each word of a group's form too),
 * each group's other forms with them; NULL: no group.
 */
char *
ofl_query_terms_lex(struct search *s, int any)
{
	const char	*op = any ? " OR " : " AND ";
	struct ofl_buf	 b;
	struct term	*t;
	size_t		 i, used = 0, groups = 0;

	ofl_buf_init(&b);
	for (i = 0; i < s->nt; i++) {
		t = &s->t[i];
		if (t->lex < 0 && ((t->ntok == 0 && t->spell == NULL) ||
		    (t->stop && s->skipstop)))
			continue;
		if (used++ > 0)
			ofl_buf_adds(&b, op);
		if (t->compound != NULL && i + 1 < s->nt) {
			/* ((error AND summary) OR errorsummary) */
			ofl_buf_adds(&b, "((");
			(void)lex_term(s, &b, i, op);
			ofl_buf_adds(&b, op);
			(void)lex_term(s, &b, i + 1, op);
			ofl_buf_addc(&b, ')');
			compound_forms(&b, t->compound);
			ofl_buf_addc(&b, ')');
			groups++;
			i++;
			continue;
		}
		if (t->lex >= 0)
			groups++;
		i += lex_term(s, &b, i, op) - 1;
	}
	if (groups == 0) {
		ofl_buf_free(&b);
		return NULL;
	}
	return ofl_buf_str(&b);
}

/* Each word of a term's compound forms, or'ed: " OR \"unsigned\" ...". */
static void
compound_forms(struct ofl_buf *b, const char *forms)
{
	const char	*p = forms, *e;

	while (*p != '\0') {
		if ((e = strchr(p, ' ')) == NULL)
			e = p + strlen(p);
		ofl_buf_adds(b, " OR ");
		ofl_buf_add_fts_string(b, p, (size_t)(e - p));
		p = *e == ' ' ? e + 1 : e;
	}
}

/*
 * Term i as an expression of its own: its group's forms or'ed with its
 * words (joined by op) when a group of the lexicon starts there, else
 * itself.  Returns the terms it takes.
 */
static size_t
lex_term(struct search *s, struct ofl_buf *b, size_t i, const char *op)
{
	const struct term	*t = &s->t[i];
	const char		*f;
	size_t			 j, k;

	if (t->lex < 0) {
		add_fts_term(b, t);
		return 1;
	}
	ofl_buf_adds(b, "((");
	for (j = i, k = 0; j < i + t->lexlen; j++) {
		if (s->t[j].stop && s->skipstop && t->lexlen > 1)
			continue;
		if (k++ > 0)
			ofl_buf_adds(b, op);
		ofl_buf_add_fts_string(b, s->t[j].text, s->t[j].len);
	}
	ofl_buf_addc(b, ')');
	for (k = 0; (f = ofl_lexicon_form(t->lex, k)) != NULL; k++) {
		ofl_buf_adds(b, " OR ");
		lex_form(b, f);
	}
	ofl_buf_addc(b, ')');
	return t->lexlen;
}

/* The words of term i's group's forms, marked as term i's. */
static void
lex_targets(struct search *s, size_t i)
{
	struct target_ctx	 c;
	const char		*f, *p, *e;
	size_t			 k;

	c.s = s;
	c.prefix = 0;
	c.term = (int)i;
	for (k = 0; (f = ofl_lexicon_form(s->t[i].lex, k)) != NULL; k++) {
		/* A form of one word (ran, wrote) marks in any hit. */
		s->addlex = strchr(f, ' ') != NULL ? LEX_PHRASE : LEX_WORD;
		for (p = f; *p != '\0'; p = *e == ' ' ? e + 1 : e) {
			if ((e = strchr(p, ' ')) == NULL)
				e = p + strlen(p);
			if (strchr(f, ' ') != NULL && ((size_t)(e - p) < 3 ||
			    stop_word(p, (size_t)(e - p))))
				continue;
			(void)ofl_tok_run(s->tk, 1, p, (size_t)(e - p),
			    ofl_query_terms_target_cb, &c);
		}
	}
	s->addlex = 0;
}

int
ofl_query_terms_versions(const struct search *s)
{
	static const char *const w[] = { "version", "depend", "upgrad",
	    "downgrad", "bump", "requir", NULL };
	size_t	i, k, n;

	for (i = 0; i < s->nt; i++)
		for (k = 0; w[k] != NULL; k++) {
			n = strlen(w[k]);
			if (s->t[i].len >= n &&
			    strncasecmp(s->t[i].text, w[k], n) == 0)
				return 1;
		}
	return 0;
}

int
ofl_query_terms_typed(const struct search *s, size_t k, const char **pp,
    size_t *np)
{
	const struct term	*t = &s->t[k];
	const char		*p;
	size_t			 n;

	/* As a sentence has it: "explains ${parameter:-word}, the" */
	for (p = t->text, n = t->len; n > 0 && *p == '('; n--)
		p++;
	while (n > 0 && ofl_in_set(p[n - 1], ",.;:?!)"))
		n--;
	if (n < 3 || t->prefix || strspn(p, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") >= n)
		return 0;
	*pp = p;
	*np = n;
	return 1;
}

/* 1 if a byte goes on a name: a letter, a digit, or '_'. */
static int
name_byte(int c)
{
	return isalnum(c) || c == '_';
}

/* "5.0.0" in "\"5.0.0\":", not in "5.0.0-rc.1" nor "v15.0.0". */
int
ofl_query_terms_literal(const char *s, size_t len, const char *p, size_t n)
{
	size_t	i, e;

	for (i = 0; i + n <= len; i++) {
		if (strncasecmp(s + i, p, n) != 0)
			continue;
		e = i + n;
		if (i > 0 && name_byte((unsigned char)s[i - 1]) &&
		    name_byte((unsigned char)p[0]))
			continue;
		if (i > 1 && !name_byte((unsigned char)s[i - 1]) &&
		    name_byte((unsigned char)s[i - 2]) && s[i - 1] != ' ' &&
		    s[i - 1] != '"' && s[i - 1] != '\'' && s[i - 1] != '(')
			continue;
		if (e < len && name_byte((unsigned char)s[e]) &&
		    name_byte((unsigned char)p[n - 1]))
			continue;
		if (e + 1 < len && !name_byte((unsigned char)s[e]) &&
		    name_byte((unsigned char)s[e + 1]) &&
		    strchr(" \"'),;", s[e]) == NULL)
			continue;
		return 1;
	}
	return 0;
}
