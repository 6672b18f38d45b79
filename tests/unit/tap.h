/*
 * tap.h: a few macros that print TAP for the unit tests.
 */
#ifndef OFL_TAP_H
#define OFL_TAP_H

#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * A temporary directory NAME.XXXXXX under $TMPDIR (an absolute path) or
 * /tmp, made into buf: 0, or -1 once the plan that skips every test is
 * printed.
 */
static inline int
tap_tmpdir(char *buf, size_t size, const char *name)
{
	const char	*t = getenv("TMPDIR");

	snprintf(buf, size, "%s/%s.XXXXXX", t != NULL && *t == '/' ? t :
	    "/tmp", name);
	if (mkdtemp(buf) == NULL) {
		printf("1..0 # SKIP mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static inline int
tap_rm_one(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* The tree at path removed, as far as it can be. */
static inline void
tap_rmtree(const char *path)
{
	nftw(path, tap_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
