/*
 * strtonum.c: OpenBSD's strtonum(3) for systems without it.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "compat.h"

long long
strtonum(const char *s, long long minval, long long maxval,
    const char **errstrp)
{
	long long	 ll = 0;
	char		*end;
	int		 error = 0;

	if (minval > maxval)
		error = 1;
	else {
		errno = 0;
		ll = strtoll(s, &end, 10);
		if (s == end || *end != '\0')
			error = 1;
		else if ((ll == LLONG_MIN && errno == ERANGE) || ll < minval)
			error = 2;
		else if ((ll == LLONG_MAX && errno == ERANGE) || ll > maxval)
			error = 3;
	}
	if (errstrp != NULL)
		*errstrp = error == 0 ? NULL : error == 1 ? "invalid" :
		    error == 2 ? "too small" : "too large";
	if (error != 0) {
		errno = error == 1 ? EINVAL : ERANGE;
		ll = 0;
	}
	return ll;
}
