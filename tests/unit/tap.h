/*
 * tap.h: a few macros that print TAP for the unit tests.
 */
#ifndef OFL_TAP_H
#define OFL_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_fail;

#define ok(cond, ...) do {						\
	int ok_ = (cond) ? 1 : 0;					\
	printf("%sok %d - ", ok_ ? "" : "not ", ++tap_n);		\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	if (!ok_) {							\
		tap_fail++;						\
		printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__,	\
		    #cond);						\
	}								\
} while (0)

#define is_str(got, want, ...) do {					\
	const char *g_ = (got), *w_ = (want);				\
	int same_ = g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0;	\
	ok(same_, __VA_ARGS__);						\
	if (!same_)							\
		printf("#   got: '%s'\n#   expected: '%s'\n",		\
		    g_ ? g_ : "(null)", w_ ? w_ : "(null)");		\
} while (0)

#define done_testing() (printf("1..%d\n", tap_n), tap_fail ? 1 : 0)

#endif
