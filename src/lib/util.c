/*
 * util.c: allocation, formatting and parsing helpers.
 */
#include "config.h"

#include <sys/time.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

static OFL_DEAD void
oom(void)
{
	static const char msg[] = "ofl: out of memory\n";

	(void)!write(STDERR_FILENO, msg, sizeof msg - 1);
	abort();
}

void *
ofl_xmalloc(size_t n)
{
	void	*p;

	if ((p = malloc(n == 0 ? 1 : n)) == NULL)
		oom();
	return p;
}

void *
ofl_xcalloc(size_t n, size_t size)
{
	void	*p;

	if ((p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size)) == NULL)
		oom();
	return p;
}

void *
ofl_xrealloc(void *p, size_t n)
{
	if ((p = realloc(p, n == 0 ? 1 : n)) == NULL)
		oom();
	return p;
}

char *
ofl_xstrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		oom();
	return p;
}

/* The n bytes at s, and a NUL. */
char *
ofl_xstrndup(const char *s, size_t n)
{
	char	*p = ofl_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

int64_t
ofl_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
ofl_fmt_size(char *out, size_t len, uint64_t n)
{
	static const char	*unit[] = { "kB", "MB", "GB", "TB", "PB" };
	double			 v = (double)n;
	int			 i = -1;

	if (n < 1000) {
		snprintf(out, len, "%llu B", (unsigned long long)n);
		return;
	}
	while (v >= 999.5 && i < 4) {
		v /= 1000.0;
		i++;
	}
	if (v < 9.95)
		snprintf(out, len, "%.1f %s", v, unit[i]);
	else
		snprintf(out, len, "%.0f %s", v, unit[i]);
}

void
ofl_fmt_count(char *out, size_t len, uint64_t n)
{
	char	tmp[32];
	size_t	i, j, k, digits;

	digits = (size_t)snprintf(tmp, sizeof tmp, "%llu",
	    (unsigned long long)n);
	if (len == 0)
		return;
	for (i = 0, j = 0; i < digits && j + 1 < len; i++) {
		k = digits - i;
		if (i > 0 && k % 3 == 0) {
			if (j + 2 >= len)
				break;
			out[j++] = ',';
		}
		out[j++] = tmp[i];
	}
	out[j] = '\0';
}

void
ofl_fmt_duration(char *out, size_t len, int64_t ms)
{
	if (ms < 0)
		ms = 0;
	if (ms < 1000)
		snprintf(out, len, "%lld ms", (long long)ms);
	else if (ms < 60000)
		snprintf(out, len, "%.1f s", (double)ms / 1000.0);
	else if (ms < 3600000)
		snprintf(out, len, "%lld min %lld s", (long long)(ms / 60000),
		    (long long)(ms % 60000 / 1000));
	else
		snprintf(out, len, "%lld h %lld min", (long long)(ms / 3600000),
		    (long long)(ms % 3600000 / 60000));
}

void
ofl_fmt_age(char *out, size_t len, int64_t then)
{
	int64_t	s = (ofl_now_ms() - then) / 1000;

	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(out, len, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(out, len, "%lldm", (long long)(s / 60));
	else if (s < 86400)
		snprintf(out, len, "%lldh", (long long)(s / 3600));
	else
		snprintf(out, len, "%lldd", (long long)(s / 86400));
}

int
ofl_parse_duration(const char *s, int64_t *ms)
{
	char		*end;
	unsigned long long v;
	int64_t		 mult;

	if (s == NULL || *s < '0' || *s > '9')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		goto bad;
	switch (*end) {
	case '\0':
	case 's':
		mult = 1000;
		break;
	case 'm':
		mult = 60 * 1000;
		break;
	case 'h':
		mult = 3600 * 1000;
		break;
	case 'd':
		mult = 86400 * 1000;
		break;
	case 'w':
		mult = 7 * 86400 * 1000LL;
		break;
	default:
		goto bad;
	}
	if (*end != '\0' && end[1] != '\0')
		goto bad;
	if (v > (unsigned long long)INT64_MAX / (unsigned long long)mult)
		goto bad;
	*ms = (int64_t)v * mult;
	return 0;
bad:
	ofl_seterr(OFL_EXIT_USAGE, "%s: not a duration (use 30s, 15m, 3h, 7d, "
	    "2w)", s == NULL ? "" : s);
	return -1;
}

size_t
ofl_utf8_cut(const char *s, size_t n)
{
	size_t	k = n;

	while (k > 0 && n - k < 3 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	return ((unsigned char)s[k] & 0xc0) == 0x80 ? n : k;
}

int
ofl_in_set(int c, const char *set)
{
	return c != '\0' && strchr(set, c) != NULL;
}

size_t
ofl_utf8_whole(const char *s, size_t n)
{
	size_t		k = n, need;
	unsigned char	c;

	while (k > 0 && n - k < 3 && ((unsigned char)s[k - 1] & 0xc0) == 0x80)
		k--;
	if (k == 0)
		return n;
	c = (unsigned char)s[k - 1];
	if (c < 0xc0)
		return n;
	need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	return n - (k - 1) >= need ? n : k - 1;
}

int
ofl_env_size(const char *name, uint64_t *out)
{
	const char	*e = getenv(name);

	if (e == NULL || *e == '\0')
		return 0;
	return ofl_parse_size(e, out) == -1 ? -1 : 1;
}

int
ofl_parse_size(const char *s, uint64_t *out)
{
	char			*end;
	unsigned long long	 v;
	uint64_t		 mult = 1;

	if (s == NULL || *s < '0' || *s > '9')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		goto bad;
	switch (*end) {
	case '\0':
	case 'b':
	case 'B':
		break;
	case 'k':
	case 'K':
		mult = 1024;
		break;
	case 'm':
	case 'M':
		mult = 1024 * 1024;
		break;
	case 'g':
	case 'G':
		mult = 1024 * 1024 * 1024;
		break;
	case 't':
	case 'T':
		mult = 1024ULL * 1024 * 1024 * 1024;
		break;
	default:
		goto bad;
	}
	if (*end != '\0' && end[1] != '\0' &&
	    !((end[1] == 'B' || end[1] == 'b' || end[1] == 'i') &&
	    end[2] == '\0') && strcmp(end + 1, "iB") != 0)
		goto bad;
	if (v > UINT64_MAX / mult)
		goto bad;
	*out = v * mult;
	return 0;
bad:
	ofl_seterr(OFL_EXIT_USAGE, "%s: not a size (use 512, 64k, 2M, 1G)",
	    s == NULL ? "" : s);
	return -1;
}

int
ofl_parse_num(const char *s, long long min, long long max, long long *out)
{
	const char	*errstr;
	long long	 v;

	v = strtonum(s, min, max, &errstr);
	if (errstr != NULL) {
		ofl_seterr(OFL_EXIT_USAGE, "%s: number is %s (%lld to %lld)",
		    s, errstr, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

uint64_t
ofl_tokens(uint64_t bytes)
{
	return (bytes + 3) / 4;
}

int
ofl_write_all(int fd, const void *p, size_t n)
{
	const char	*s = p;
	ssize_t		 w;

	while (n > 0) {
		w = write(fd, s, n);
		if (w == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * The length of the valid UTF-8 sequence at p (1 for ASCII), or 0:
 * overlong forms, surrogates and code points past U+10FFFF are invalid,
 * and so is a sequence cut by the end of the buffer.
 */
size_t
ofl_utf8_len(const void *v, size_t n)
{
	const unsigned char	*p = v;
	unsigned char		 c, lo = 0x80, hi = 0xbf;
	size_t			 k, i;

	if (n == 0)
		return 0;
	c = p[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		k = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		k = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < k || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

/* Monotonic milliseconds, for durations and timeouts; microseconds. */
int64_t
ofl_mono_ms(void)
{
	return ofl_mono_us() / 1000;
}

int64_t
ofl_mono_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* 1 if the n bytes at p are only spaces and tabs (or none). */
int
ofl_blank(const void *v, size_t n)
{
	const unsigned char	*p = v;
	size_t			 i;

	for (i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t')
			return 0;
	return 1;
}

/* 3 if the n bytes at p start with a UTF-8 byte order mark, else 0. */
size_t
ofl_bom(const void *p, size_t n)
{
	return n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}

int
ofl_dl_open(const char *lib, const char *const *names, void **h)
{
	const char	*err = "not found";
	size_t		 i;

	for (*h = NULL, i = 0; names[i] != NULL && *h == NULL; i++)
		if ((*h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) == NULL)
			err = dlerror();
	if (*h != NULL)
		return 0;
	ofl_seterr(OFL_EXIT_FAIL, "cannot load %s: %s: %s", lib, names[0],
	    err != NULL ? err : "not found");
	return -1;
}

void *
ofl_dl_sym(void *h, const char *lib, const char *soname, const char *sym)
{
	void	*p;

	if ((p = dlsym(h, sym)) != NULL)
		return p;
	ofl_seterr(OFL_EXIT_FAIL, "cannot load %s: %s: %s", lib, soname, sym);
	dlclose(h);
	return NULL;
}
