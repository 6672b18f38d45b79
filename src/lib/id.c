/*
 * id.c: artifact IDs: short, typeable, random.  The alphabet is digits and
 * lowercase letters without i, l, o and u, so IDs read aloud and typed
 * by hand survive.
 */
#include "config.h"

#include <sys/types.h>
#ifdef HAVE_GETRANDOM
#include <sys/random.h>
#endif

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

static const char alphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";

static void
random_bytes(unsigned char *p, size_t n)
{
	static unsigned long long	fallback;
	size_t				i;

#ifdef HAVE_GETRANDOM
	if (getrandom(p, n, 0) == (ssize_t)n)
		return;
#endif
	/* Not for secrets: uniqueness is checked against the store. */
	fallback += (unsigned long long)time(NULL) ^
	    ((unsigned long long)getpid() << 32) ^ (uintptr_t)p;
	for (i = 0; i < n; i++) {
		fallback = fallback * 6364136223846793005ULL +
		    1442695040888963407ULL;
		p[i] = (unsigned char)(fallback >> 56);
	}
}

void
ofl_id_new(char id[OFL_ID_MAX + 1])
{
	unsigned char	r[OFL_ID_LEN];
	size_t		i;

	random_bytes(r, sizeof r);
	for (i = 0; i < OFL_ID_LEN; i++)
		id[i] = alphabet[r[i] & 31];
	id[OFL_ID_LEN] = '\0';
}

static int
id_char(int c)
{
	c = tolower((unsigned char)c);
	return c != '\0' && strchr(alphabet, c) != NULL;
}

int
ofl_id_valid(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || n > OFL_ID_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!id_char(s[i]))
			return 0;
	return 1;
}

size_t
ofl_ref_parse(const char *line, size_t n, char id[OFL_ID_MAX + 1])
{
	size_t	i;

	if (n < 5 || memcmp(line, "ofl:", 4) != 0)
		return 0;
	for (i = 4; i < n && id_char(line[i]); i++)
		if (i - 4 >= OFL_ID_MAX)
			return 0;
	if (i == 4)
		return 0;
	if (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != ':' &&
	    line[i] != '\n' && line[i] != '\r')
		return 0;
	for (size_t j = 4; j < i; j++)
		id[j - 4] = (char)tolower((unsigned char)line[j]);
	id[i - 4] = '\0';
	return i;
}

/* Digits at s[*i] as a line number >= 1; 0 if there are none or too many. */
static uint64_t
line_number(const char *s, size_t n, size_t *i)
{
	uint64_t	v = 0;
	size_t		start = *i;

	while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
		if (*i - start >= 15)
			return 0;
		v = v * 10 + (uint64_t)(s[*i] - '0');
		(*i)++;
	}
	return v;
}

/* A line range "A" or "A-B" filling the whole of s (n bytes). */
static int
range_parse(const char *s, size_t n, struct ofl_ref *r)
{
	size_t	i = 0;

	if ((r->from = line_number(s, n, &i)) == 0)
		return -1;
	r->to = r->from;
	if (i < n && s[i] == '-') {
		i++;
		if ((r->to = line_number(s, n, &i)) == 0 || r->to < r->from)
			return -1;
	}
	return i == n ? 0 : -1;
}

int
ofl_ref_arg(const char *arg, struct ofl_ref *r)
{
	const char	*s = arg, *colon;
	size_t		 n;

	memset(r, 0, sizeof *r);
	if (strncmp(s, "ofl:", 4) == 0)
		s += 4;
	colon = strchr(s, ':');
	n = colon != NULL ? (size_t)(colon - s) : strlen(s);
	if (n == 0 || n >= sizeof r->ref) {
		ofl_seterr(OFL_EXIT_USAGE, "%s: not an artifact ID", arg);
		return -1;
	}
	if (colon != NULL && range_parse(colon + 1, strlen(colon + 1),
	    r) == -1) {
		ofl_seterr(OFL_EXIT_USAGE, "%s: bad line range (ID:A-B, "
		    "1 <= A <= B)", arg);
		return -1;
	}
	memcpy(r->ref, s, n);
	r->ref[n] = '\0';
	r->arg = arg;
	return 0;
}

const char *
ofl_ref_name(const struct ofl_ref *r)
{
	return r->from == 0 && r->arg != NULL ? r->arg : r->ref;
}

/* "(4.2)" or "(substring)" at the end of s (n bytes): a hit's score. */
static int
score_end(const char *s, size_t n)
{
	size_t	i;

	if (n >= 11 && memcmp(s + n - 11, "(substring)", 11) == 0)
		return 1;
	if (n < 5 || s[n - 1] != ')' || s[n - 3] != '.' ||
	    s[n - 2] < '0' || s[n - 2] > '9')
		return 0;
	for (i = n - 4; i > 0 && s[i] >= '0' && s[i] <= '9'; i--)
		;
	if (i < n - 4 && s[i] == '-')
		i--;	/* never seen, but a score may be negative */
	return i < n - 4 && s[i] == '(';
}

/* A size as ofl_fmt_size() prints it ("512 B", "2.4 MB") at s[*i]. */
static int
size_field(const char *s, size_t n, size_t *i)
{
	static const char	*unit[] = { "B", "kB", "MB", "GB", "TB", "PB",
	    NULL };
	size_t			 start = *i, k, len;

	while (*i < n && ((s[*i] >= '0' && s[*i] <= '9') || s[*i] == '.'))
		(*i)++;
	if (*i == start || *i >= n || s[*i] != ' ')
		return 0;
	(*i)++;
	for (k = 0; unit[k] != NULL; k++) {
		len = strlen(unit[k]);
		if (n - *i >= len && memcmp(s + *i, unit[k], len) == 0 &&
		    (n - *i == len || s[*i + len] == ' ' ||
		    s[*i + len] == '\t')) {
			*i += len;
			return 1;
		}
	}
	return 0;
}

/*
 * A hit's "[MEMBER]" at line[i]: the line ends after it, or goes on with
 * a title or a score two spaces after it.  Copied to r->tag.
 */
static int
member_tag(const char *line, size_t n, size_t i, struct ofl_ref *r)
{
	const char	*close, *end = line + n;
	size_t		 len;

	if (i >= n || line[i] != '[')
		return 0;
	/* The ']' the line ends at or that two spaces follow ("a]b.log"). */
	for (close = line + i + 1; close < end; close++) {
		if (*close != ']')
			continue;
		if (close + 1 == end || (end - close >= 3 && close[1] == ' ' &&
		    close[2] == ' ' && score_end(close + 1,
		    (size_t)(end - close - 1))))
			break;
	}
	if (close >= end)
		return 0;
	len = (size_t)(close - (line + i + 1));
	if (len == 0 || len >= sizeof r->tag)
		return 0;
	memcpy(r->tag, line + i + 1, len);
	r->tag[len] = '\0';
	return 1;
}

int
ofl_ref_line(const char *line, size_t n, struct ofl_ref *r)
{
	char	kind[16];
	size_t	i, k, start;

	memset(r, 0, sizeof *r);
	if (n > 0 && line[n - 1] == '\r')
		n--;
	if (n < 5 || memcmp(line, "ofl:", 4) != 0)
		return 0;
	for (i = 4; i < n && id_char(line[i]); i++)
		if (i - 4 >= OFL_ID_MAX)
			return 0;
	if (i == 4)
		return 0;
	for (k = 4; k < i; k++)
		r->ref[k - 4] = (char)tolower((unsigned char)line[k]);
	r->ref[i - 4] = '\0';
	if (i == n)
		return 1;			/* ofl:ID */
	if (line[i] == ':') {
		/* A hit: ofl:ID:A-B, alone or with its title and score. */
		start = ++i;
		while (i < n && line[i] != ' ')
			i++;
		if (range_parse(line + start, i - start, r) == -1)
			return 0;
		if (i == n)
			return 1;
		if (n - i >= 2 && line[i + 1] == ' ' && member_tag(line, n,
		    i + 2, r))
			return 1;
		return n - i >= 2 && line[i + 1] == ' ' &&
		    score_end(line + i, n - i);
	}
	/*
	 * A notice's reference line (ofl:ID KIND SIZE LINES ...) or a line
	 * of the listing (ofl:ID  KIND  SIZE ...): a kind, then a size.
	 */
	if (line[i] != ' ' && line[i] != '\t')
		return 0;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	for (start = i; i < n && line[i] >= 'a' && line[i] <= 'z'; i++)
		if (i - start >= sizeof kind - 1)
			return 0;
	memcpy(kind, line + start, i - start);
	kind[i - start] = '\0';
	if (ofl_kind_from_name(kind) < 0 || i >= n ||
	    (line[i] != ' ' && line[i] != '\t'))
		return 0;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return size_field(line, n, &i);
}
