/*
 * fmt-snapshot-name.c: how well an element of a browser snapshot is
 * named by the words of a question.  An agent asks for an element by
 * what it is called ("debounce function", "the WITH clause", "sign in
 * button"): the element whose accessible name is made of the question's
 * words, and whose role the question may name ("button", "field",
 * "section"), is the answer, more than a paragraph that holds the same
 * words among many others.  The name is the quoted name of the line,
 * else the short value of a leaf ("- code [ref=e5]: path.join()"); its
 * words are its runs of letters and digits, identifiers cut at case
 * changes (XML_SetCharacterDataHandler: xml, set, character, data,
 * handler), with numbers (a section's "3.2.") and function words ("the",
 * "of") of no weight either way.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "banned.h"

#define NAME_WORDS_MAX	12		/* words of a value taken as a name */
#define NAME_WORD_MAX	64		/* bytes of a word compared */

/* A word of a name: a pointer into the line. */
struct nword {
	const char	*p;
	size_t		 n;
};

static size_t	 name_split(const char *, size_t, struct nword *, size_t);
static size_t	 stem(const char *, size_t);
static int	 word_eq(const char *, size_t, const char *, size_t);
static int	 function_word(const char *, size_t);
static int	 number_word(const char *, size_t);
static int	 role_named(const char *, size_t, const char *, size_t);
static double	 named(const struct ofl_fmt_snapshot_el *, const char *, size_t,
		    const struct ofl_fmt_snapshot_words *);

/*
 * The words of p[0..n): runs of letters and digits, a run cut where a
 * lower-case letter is followed by an upper-case one.  Up to max.
 */
static size_t
name_split(const char *p, size_t n, struct nword *w, size_t max)
{
	size_t	i = 0, s, k = 0;

	while (i < n && k < max) {
		while (i < n && !isalnum((unsigned char)p[i]))
			i++;
		if (i >= n)
			break;
		for (s = i++; i < n && isalnum((unsigned char)p[i]); i++)
			if (islower((unsigned char)p[i - 1]) &&
			    isupper((unsigned char)p[i]))
				break;
		w[k].p = p + s;
		w[k].n = i - s;
		k++;
	}
	return k;
}

/*
 * The length of a word's stem: without "ing", "ed", "es" or "s", then
 * without a final "e" ("saving", "saves", "save": "sav"), when at least
 * three letters stay.
 */
static size_t
stem(const char *w, size_t n)
{
	static const char *const suf[] = { "ing", "ed", "es", "s", NULL };
	size_t	i, k;

	for (i = 0; suf[i] != NULL; i++) {
		k = strlen(suf[i]);
		if (n >= k + 3 && strncasecmp(w + n - k, suf[i], k) == 0) {
			n -= k;
			break;
		}
	}
	if (n >= 4 && tolower((unsigned char)w[n - 1]) == 'e')
		n--;
	return n;
}

/* Two words alike: case ignored, and their stems ("saving", "save"). */
static int
word_eq(const char *a, size_t na, const char *b, size_t nb)
{
	size_t	i;

	if (na != nb || strncasecmp(a, b, na) != 0) {
		na = stem(a, na);
		nb = stem(b, nb);
	}
	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
			return 0;
	return 1;
}

/* The words that join the words of a name and say nothing of it. */
static int
function_word(const char *p, size_t n)
{
	static const char *const fw[] = {
		"a", "an", "and", "as", "at", "by", "for", "from", "in",
		"into", "is", "of", "on", "or", "the", "to", "vs", "with",
		NULL
	};
	size_t	i;

	for (i = 0; fw[i] != NULL; i++)
		if (word_eq(p, n, fw[i], strlen(fw[i])))
			return 1;
	return 0;
}

static int
number_word(const char *p, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)p[i]))
			return 0;
	return 1;
}

/*
 * 1 if the word w is what people call an element of role r: "button",
 * "field" for a text box, "section" for a heading.
 */
static int
role_named(const char *r, size_t nr, const char *w, size_t nw)
{
	static const char *const t[] = {
		"link", "link anchor",
		"button", "button",
		"checkbox", "checkbox check box tick",
		"radio", "radio option",
		"textbox", "textbox field box input entry",
		"searchbox", "searchbox field box input",
		"combobox", "combobox field box select dropdown menu",
		"heading", "heading section title chapter",
		"tab", "tab",
		"menuitem", "menu item",
		"option", "option",
		"row", "row entry",
		"cell", "cell",
		"img", "image picture logo icon",
		"navigation", "navigation nav menu",
		"switch", "switch toggle",
		"slider", "slider",
		NULL, NULL
	};
	const char	*p, *q;
	size_t		 i;

	for (i = 0; t[i] != NULL; i += 2) {
		if (strlen(t[i]) != nr || memcmp(t[i], r, nr) != 0)
			continue;
		for (p = t[i + 1]; *p != '\0'; p = *q == ' ' ? q + 1 : q) {
			for (q = p; *q != '\0' && *q != ' '; q++)
				;
			if (word_eq(p, (size_t)(q - p), w, nw))
				return 1;
		}
		return 0;
	}
	return 0;
}

/*
 * How well the element of line p[0..n) is named by the question's words
 * q: 0 for a line that is no element with a ref, or whose name holds
 * none of the words, up to 1 for an element whose name is the question
 * (its role named too when the question names one).  The share of the
 * question's words its name and role cover, times the share of its
 * name's words that the question holds.  A function word of the question
 * ("with", "of") counts only where the name holds it.
 */
double
ofl_fmt_snapshot_named(const char *p, size_t n,
    const struct ofl_fmt_snapshot_words *q)
{
	struct ofl_fmt_snapshot_el e;

	if (q == NULL || q->nw == 0 || !ofl_fmt_snapshot_parse(p, n, &e) ||
	    e.ref == NULL || e.reflen == 0 || e.prop || e.text)
		return 0;
	if (e.namelen > 0)
		return named(&e, e.name, e.namelen, q);
	return named(&e, e.value, e.valuelen, q);
}

/*
 * The same for an element of line p0 without a name of its own, named
 * by the text of its first child, line p1 ("- heading [level=3]
 * [ref=e5]:" over "- text: Shell requirements"); 0 when it has a name
 * or p1 is no such text.
 */
double
ofl_fmt_snapshot_named_by(const char *p0, size_t n0, const char *p1,
    size_t n1, const struct ofl_fmt_snapshot_words *q)
{
	struct ofl_fmt_snapshot_el e, t;

	if (q == NULL || q->nw == 0 || !ofl_fmt_snapshot_parse(p0, n0, &e) ||
	    e.ref == NULL || e.reflen == 0 || e.prop || e.text ||
	    e.namelen + e.valuelen > 0 || !ofl_fmt_snapshot_parse(p1, n1, &t) ||
	    !t.text || t.depth <= e.depth || t.value == NULL)
		return 0;
	return named(&e, t.value, t.valuelen, q);
}

/* How well name[0..len) names element e. */
static double
named(const struct ofl_fmt_snapshot_el *e, const char *name, size_t len,
    const struct ofl_fmt_snapshot_words *q)
{
	struct nword	 nw[NAME_WORDS_MAX + 1];
	size_t		 nn, i, j, want = 0, got = 0, extra = 0, hit = 0;
	size_t		 word = 0;
	int		 role = 0, in;

	if (name == NULL || len == 0)
		return 0;
	nn = name_split(name, len, nw, NAME_WORDS_MAX + 1);
	if (nn == 0 || nn > NAME_WORDS_MAX)
		return 0;
	/* The name's words: the question's, or of no weight, or extra. */
	for (i = 0; i < nn; i++) {
		for (j = 0; j < q->nw; j++)
			if (word_eq(nw[i].p, nw[i].n, q->w[j], q->n[j]))
				break;
		if (j < q->nw) {
			hit++;
			if (!q->stop[j])
				word++;
		} else if (!function_word(nw[i].p, nw[i].n) &&
		    !number_word(nw[i].p, nw[i].n) && nw[i].n < NAME_WORD_MAX)
			extra++;
	}
	/* A function word alone names nothing. */
	if (word == 0)
		return 0;
	/* The question's words: in the name, naming the role, or not. */
	for (j = 0; j < q->nw; j++) {
		for (i = 0, in = 0; i < nn && !in; i++)
			in = word_eq(nw[i].p, nw[i].n, q->w[j], q->n[j]);
		if (q->stop[j] && !in)
			continue;
		want++;
		if (in)
			got++;
		else if (!role && role_named(e->role, e->rolelen, q->w[j],
		    q->n[j])) {
			role = 1;
			got++;
		}
	}
	if (want == 0 || got == role)
		return 0;
	return ((double)got / (double)want) *
	    ((double)hit / (double)(hit + extra));
}

/*
 * The words of a question (len bytes of text), lowercase, into q; stop
 * (may be NULL) tells a word that says little alone.  Words already in
 * q are not added twice.
 */
void
ofl_fmt_snapshot_words_add(struct ofl_fmt_snapshot_words *q,
    const char *text, size_t len, int stop)
{
	struct nword	 w[64];
	size_t		 k, i, j, c;

	k = name_split(text, len, w, 64);
	for (i = 0; i < k && q->nw < OFL_SNAPSHOT_WORDS_MAX; i++) {
		for (j = 0; j < q->nw; j++)
			if (word_eq(w[i].p, w[i].n, q->w[j], q->n[j]))
				break;
		if (j < q->nw) {
			/* A word asked for as itself is no stop word. */
			if (!stop)
				q->stop[j] = 0;
			continue;
		}
		q->w[q->nw] = ofl_xmalloc(w[i].n + 1);
		for (c = 0; c < w[i].n; c++)
			q->w[q->nw][c] = (char)tolower((unsigned char)w[i].p[c]);
		q->w[q->nw][w[i].n] = '\0';
		q->n[q->nw] = w[i].n;
		q->stop[q->nw] = stop;
		q->nw++;
	}
}

void
ofl_fmt_snapshot_words_free(struct ofl_fmt_snapshot_words *q)
{
	size_t	i;

	for (i = 0; i < q->nw; i++)
		free(q->w[i]);
	q->nw = 0;
}
