/*
 * lexicon.c: words and phrases that say one thing ("disk full", "no
 * space left on device", "ENOSPC"; "ran", "run"), so that a query in a
 * person's words also finds a log's.  The groups are data, in
 * lexicon.tsv, made into a table at build time (lexicon.awk); query.c
 * asks for a group's other forms below the words typed.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "lexicon-tab.h"
#include "banned.h"

#define LEX_WORD_MAX	32

static size_t	 group_start(int);
static size_t	 word_stem(const char *, size_t);
static int	 word_eq(const char *, size_t, const char *, size_t);
static size_t	 form_match(const char *, const char *const *, size_t);

/* The index in lexicon_forms of group g's first form; SIZE_MAX: none. */
static size_t
group_start(int g)
{
	size_t	i = 0;

	if (g < 0)
		return SIZE_MAX;
	while (g > 0) {
		if (lexicon_forms[i] == NULL)
			return SIZE_MAX;
		while (lexicon_forms[i] != NULL)
			i++;
		i++;
		g--;
	}
	return lexicon_forms[i] == NULL ? SIZE_MAX : i;
}

/* The length of a word without a plural or tense ending. */
static size_t
word_stem(const char *w, size_t n)
{
	if (n > 5 && memcmp(w + n - 3, "ing", 3) == 0)
		return n - 3;
	if (n > 4 && memcmp(w + n - 2, "ed", 2) == 0)
		return n - 2;
	if (n > 4 && memcmp(w + n - 2, "es", 2) == 0)
		return n - 2;
	if (n > 3 && w[n - 1] == 's' && w[n - 2] != 's')
		return n - 1;
	return n;
}

/* Two words alike, case folded, endings aside (a is lowercase). */
static int
word_eq(const char *a, size_t na, const char *b, size_t nb)
{
	char	lb[LEX_WORD_MAX];
	size_t	i;

	if (nb == 0 || nb > sizeof lb)
		return 0;
	for (i = 0; i < nb; i++)
		lb[i] = (char)tolower((unsigned char)b[i]);
	if (na == nb && memcmp(a, lb, na) == 0)
		return 1;
	na = word_stem(a, na);
	nb = word_stem(lb, nb);
	return na == nb && memcmp(a, lb, na) == 0;
}

/* How many of words a form is, if words start with it; else 0. */
static size_t
form_match(const char *form, const char *const *w, size_t n)
{
	const char	*p = form, *e;
	size_t		 k = 0;

	while (*p != '\0') {
		if ((e = strchr(p, ' ')) == NULL)
			e = p + strlen(p);
		if (k >= n || !word_eq(p, (size_t)(e - p), w[k],
		    strlen(w[k])))
			return 0;
		k++;
		p = *e == ' ' ? e + 1 : e;
	}
	return k;
}

int
ofl_lexicon_match(const char *const *words, size_t n, size_t *len)
{
	size_t	i, k, best = 0;
	int	g = 0, bg = -1;

	for (i = 0; lexicon_forms[i] != NULL; i++, g++) {
		for (; lexicon_forms[i] != NULL; i++) {
			k = form_match(lexicon_forms[i], words, n);
			if (k > best) {
				best = k;
				bg = g;
			}
		}
	}
	*len = best;
	return bg;
}

const char *
ofl_lexicon_form(int group, size_t i)
{
	size_t	start = group_start(group), j;

	if (start == SIZE_MAX)
		return NULL;
	for (j = 0; j < i; j++)
		if (lexicon_forms[start + j] == NULL)
			return NULL;
	return lexicon_forms[start + i];
}
