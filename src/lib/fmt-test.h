/*
 * fmt-test.h: what the runners of fmt-test-*.c share with the dispatcher
 * (fmt-test.c): the results a runner gathers while the lines stream by,
 * and its table of functions.  Not part of the library's interface.
 */
#ifndef OFL_FMT_TEST_H
#define OFL_FMT_TEST_H

/* What one runner made of the lines so far. */
struct tres {
	int			 score;		/* evidence it ran; 0: none */
	int64_t			 passed;	/* -1: not said */
	int64_t			 failed;
	int64_t			 skipped;
	int64_t			 errors;
	struct ofl_testcase	*tc;
	size_t			 n;
	size_t			 cap;
	uint64_t		 more;		/* failing tests not kept */
	void			*st;		/* the runner's own state */
};

/* A command split into words, and where the runner's own words start. */
struct tcmd {
	char		**w;
	size_t		  n;
	size_t		  at;	/* words before at: the runner and wrappers */
};

struct trunner {
	const char	*name;
	size_t		 stsize;
	/* 1 if the command runs this runner; sets c->at. */
	int		(*cmd)(struct tcmd *);
	void		(*line)(struct tres *, void *, const char *, size_t,
			    uint64_t);
	void		(*end)(struct tres *, void *);
	void		(*free)(void *);
	/* The commands that rerun the failing tests; c may be NULL. */
	void		(*rerun)(const struct tres *, const struct tcmd *,
			    struct ofl_testrun *);
	/*
	 * 0 if the line cannot change anything in the runner's state as it
	 * is (a cheap test, most often of the first byte); NULL: every
	 * line goes to line.  Most lines of a log that is not a test run
	 * stop here.
	 */
	int		(*want)(const void *, const char *, size_t);
};

/* s starts with the string literal p. */
#define OFL_TEST_STARTS(s, n, p) \
	((n) >= sizeof("" p) - 1 && memcmp((s), (p), sizeof("" p) - 1) == 0)

/* fmt-test-util.c: helpers of the runners. */
int	 ofl_fmt_test_util_split(const char *, struct tcmd *);
void	 ofl_fmt_test_util_free(struct tcmd *);
struct ofl_testcase *ofl_fmt_test_util_add(struct tres *, const char *, size_t,
	    const char *, size_t, uint64_t, int);
struct ofl_testcase *ofl_fmt_test_util_take(struct tres *, const char *,
	    size_t, const char *, size_t, uint64_t, int, int);
struct ofl_testcase *ofl_fmt_test_util_find(struct tres *, const char *, size_t);
void	 ofl_fmt_test_util_set(char **, const char *, size_t);
int64_t	 ofl_fmt_test_util_count(const char *, size_t, const char *);
size_t	 ofl_fmt_test_util_trim(const char *, size_t);
/* A new rerun command: the words of c before c->at, or dflt split. */
struct ofl_testargv *ofl_fmt_test_util_argv(struct ofl_testrun *,
	    const struct tcmd *, const char *);
void	 ofl_fmt_test_util_arg(struct ofl_testargv *, const char *, size_t);
/* 1 if the last path element of a word is the name. */
int	 ofl_fmt_test_util_base(const char *, const char *);

/* The runners, each in its file. */
extern const struct trunner ofl_fmt_test_py_pytest;
extern const struct trunner ofl_fmt_test_py_unittest;
extern const struct trunner ofl_fmt_test_go_text;
extern const struct trunner ofl_fmt_test_go_json;
extern const struct trunner ofl_fmt_test_js_jest;
extern const struct trunner ofl_fmt_test_js_vitest;
extern const struct trunner ofl_fmt_test_misc_cargo;
extern const struct trunner ofl_fmt_test_misc_tap;
extern const struct trunner ofl_fmt_test_misc_automake;
extern const struct trunner ofl_fmt_test_misc_ctest;
extern const struct trunner ofl_fmt_test_misc_make;
extern const struct trunner ofl_fmt_test_java_surefire;
extern const struct trunner ofl_fmt_test_java_junit;

#endif
