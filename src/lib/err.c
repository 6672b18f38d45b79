/*
 * err.c: the library's last error, as libarchive keeps one per archive.
 * ofl front-ends are single threaded where errors are reported, so one
 * message per thread is enough.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

static _Thread_local char	errbuf[1024];
static _Thread_local int	errcode;
static const char		*progname = "ofl";

const char *
ofl_errmsg(void)
{
	return errbuf[0] != '\0' ? errbuf : "unknown error";
}

int
ofl_errcode(void)
{
	return errcode != 0 ? errcode : OFL_EXIT_FAIL;
}

/*
 * Bytes kept of each end of a message too long for errbuf: its start
 * names what failed, its end says why ("...: not an artifact ID"), and
 * an operand of kilobytes between them (data given where an ID was
 * meant) would push the reason out.
 */
#define ERR_END		((sizeof errbuf - sizeof ERR_CUT) / 2)
#define ERR_CUT		" [...] "

/* Back from i to the start of a UTF-8 character. */
static size_t
utf8_start(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

void
ofl_seterr(int code, const char *fmt, ...)
{
	va_list	ap;
	char	 msg[sizeof errbuf], *big = NULL;
	char	*p;
	size_t	 n, h, t;
	int	 len;

	/* Formatted apart: the message may say the one before it. */
	va_start(ap, fmt);
	len = vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (len >= (int)sizeof msg && (big = malloc((size_t)len + 1)) != NULL) {
		va_start(ap, fmt);
		vsnprintf(big, (size_t)len + 1, fmt, ap);
		va_end(ap);
		h = utf8_start(big, ERR_END);
		/* Forward to a character's start: the tail no longer. */
		for (t = (size_t)len - ERR_END; t < (size_t)len &&
		    ((unsigned char)big[t] & 0xc0) == 0x80; t++)
			;
		memcpy(msg, big, h);
		memcpy(msg + h, ERR_CUT, sizeof ERR_CUT - 1);
		memcpy(msg + h + sizeof ERR_CUT - 1, big + t, (size_t)len - t);
		msg[h + sizeof ERR_CUT - 1 + (size_t)len - t] = '\0';
		free(big);
	}
	memcpy(errbuf, msg, sizeof errbuf);
	errcode = code;
	/*
	 * One line, safe for a terminal: names and messages from input or
	 * libraries (an ID with an escape in it, libarchive's trailing
	 * newline) must not move the cursor or change colours.
	 */
	for (p = errbuf; *p != '\0'; p++) {
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	}
	for (n = (size_t)(p - errbuf); n > 0 && errbuf[n - 1] == ' '; n--)
		errbuf[n - 1] = '\0';
}

void
ofl_clearerr(void)
{
	errbuf[0] = '\0';
	errcode = 0;
}

void
ofl_setprogname(const char *name)
{
	progname = name;
}

const char *
ofl_getprogname(void)
{
	return progname;
}
