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
