/*
 * err.c: the library's last error, as libarchive keeps one per archive.
 * ofl front-ends are single threaded where errors are reported, so one
 * message per thread is enough.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

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

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof errbuf, fmt, ap);
	va_end(ap);
	errcode = code;
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
