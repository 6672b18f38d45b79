/*
 * compat.h: declarations of functions that src/compat supplies.
 */
#ifndef OFL_COMPAT_H
#define OFL_COMPAT_H

#ifndef HAVE_STRTONUM
long long	strtonum(const char *, long long, long long, const char **);
#endif

#endif
