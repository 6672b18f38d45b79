/*
 * err.c: the library's last error, as libarchive keeps one per archive.
 * ofl front-ends are single threaded where errors are reported, so one
 * message per thread is enough.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
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

void
ofl_seterr(int code, const char *fmt, ...)
{
	va_list	ap;
	char	 msg[sizeof errbuf];
	char	*p;
	size_t	 n;

	/* Formatted apart: the message may say the one before it. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
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
