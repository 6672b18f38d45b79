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
#define LEX_FORM_WORDS	8		/* words of a form, at most */

static size_t	 group_start(int);
static size_t	 word_stem(const char *, size_t);
static int	 word_eq(const char *, size_t, const char *, size_t);
static size_t	 form_match(const char *, const char *const *, size_t);
static int	 word_back(const char *, size_t *, const char **, size_t *);
static int	 word_fwd(const char *, size_t, size_t *, const char **,
		    size_t *);
static int	 form_around(const char *, const char *, size_t, size_t,
		    size_t);

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

/*
 * The word that ends before *at in line (letters and digits, a space or
 * a few marks between): *w, *n; *at moves to its start.  0 if none.
 */
static int
word_back(const char *line, size_t *at, const char **w, size_t *n)
{
	size_t	i = *at, gap = 0, e;

	while (i > 0 && !isalnum((unsigned char)line[i - 1]) && gap++ < 3)
		i--;
	if (i == 0 || !isalnum((unsigned char)line[i - 1]) || i == *at)
		return 0;
	e = i;
	while (i > 0 && isalnum((unsigned char)line[i - 1]))
		i--;
	*w = line + i;
	*n = e - i;
	*at = i;
	return 1;
}

/* The word that starts after *at, the same way forward. */
static int
word_fwd(const char *line, size_t len, size_t *at, const char **w, size_t *n)
{
	size_t	i = *at, gap = 0, b;

	while (i < len && !isalnum((unsigned char)line[i]) && gap++ < 3)
		i++;
	if (i >= len || !isalnum((unsigned char)line[i]) || i == *at)
		return 0;
	b = i;
	while (i < len && isalnum((unsigned char)line[i]))
		i++;
	*w = line + b;
	*n = i - b;
	*at = i;
	return 1;
}

/* 1 if form, a form of several words, is spelled around [start, end). */
static int
form_around(const char *form, const char *line, size_t len, size_t start,
    size_t end)
{
	const char	*fw[LEX_FORM_WORDS], *p, *e, *w;
	size_t		 fn[LEX_FORM_WORDS], k = 0, i, j, at, n;

	for (p = form; *p != '\0' && k < LEX_FORM_WORDS; k++) {
		if ((e = strchr(p, ' ')) == NULL)
			e = p + strlen(p);
		fw[k] = p;
		fn[k] = (size_t)(e - p);
		p = *e == ' ' ? e + 1 : e;
	}
	if (*p != '\0' || k < 2)
		return 0;
	for (i = 0; i < k; i++) {
		if (!word_eq(fw[i], fn[i], line + start, end - start))
			continue;
		for (at = start, j = i; j > 0; j--)
			if (!word_back(line, &at, &w, &n) ||
			    !word_eq(fw[j - 1], fn[j - 1], w, n))
				break;
		if (j > 0)
			continue;
		for (at = end, j = i + 1; j < k; j++)
			if (!word_fwd(line, len, &at, &w, &n) ||
			    !word_eq(fw[j], fn[j], w, n))
				break;
		if (j == k)
			return 1;
	}
	return 0;
}

int
ofl_lexicon_around(int group, const char *line, size_t len, size_t start,
    size_t end)
{
	const char	*f;
	size_t		 i;

	if (start >= end || end > len)
		return 0;
	for (i = 0; (f = ofl_lexicon_form(group, i)) != NULL; i++)
		if (strchr(f, ' ') != NULL && form_around(f, line, len, start,
		    end))
			return 1;
	return 0;
}
