/*
 * fmt-log.h: the rules of the log format that the --errors service
 * (extract-errors.c) shares with fmt-log-trace.c: the kinds of error
 * blocks, how a block goes on, and where one starts.  Not part of the
 * library's interface.
 */
#ifndef OFL_FMT_LOG_H
#define OFL_FMT_LOG_H

#define TRACEBACK	"Traceback (most recent call last):"

enum kind {
	K_SANITIZER,
	K_GO_PANIC,
	K_RUST_PANIC,
	K_CRASH,
	K_COMPILER,
	K_LINKER,
	K_PY_TB,
	K_JAVA,
	K_JS,
	K_GO_TEST,
	K_PYTEST,
	K_JEST,
	K_VITEST,
	K_TAP,
	K_JUNIT,
	K_UNITTEST,
	K_TEST_UNEXPECTED,
	K_EXCEPTION,
	K_ERROR,
	K_SUMMARY
};

/* How a block goes on. */
enum mode {
	M_SINGLE,	/* one line (or becomes a stack trace) */
	M_PY,		/* Python traceback */
	M_EXC,		/* Java or JavaScript exception and its frames */
	M_GO_PANIC,
	M_RUST,
	M_COMPILER,	/* gcc, clang, javac, tsc, go build */
	M_RUSTC,	/* rustc: error[E0308]: ... --> file */
	M_SANITIZER,	/* up to SUMMARY: */
	M_UBSAN,
	M_GO_TEST,	/* --- FAIL: and its indented lines */
	M_PYTEST,
	M_JEST,
	M_VITEST,
	M_TAP,
	M_JUNIT,
	M_UNITTEST
};

/* What a line does to the open block. */
enum { C_END, C_ADD, C_TENT, C_LAST };
#define K_COUNT		(K_SUMMARY + 1)

/* Each kind's name in the output and its score (more is worse). */
struct ofl_logkind {
	const char	*name;
	int		 score;
};
extern const struct ofl_logkind ofl_fmt_log_kinds[K_COUNT];

/* A block start found in a line. */
struct start {
	int		 kind;
	int		 mode;
	size_t		 margin;	/* where its text starts */
	size_t		 indent;
	size_t		 pos;
};

/* What the rule of a block's continuation sees of the open block. */
struct ofl_logblk {
	int		 kind;
	int		 mode;
	int		 state;
	int		 frames;
	size_t		 indent;
	size_t		 n;		/* its lines so far */
};

/* Find the best block start in a line; 1 if there is one. */
int	ofl_fmt_log_find_start(const char *, size_t, struct start *);
void	ofl_fmt_log_set_start(struct start *, int, int, size_t, size_t);
/*
 * fmt-log.c: a place ending just before w ("path:12:5: ",
 * "path(12,5): "): where its path starts, or -1.
 */
ssize_t	ofl_fmt_log_loc_before(const char *, size_t);
/* "==== TITLE ====" with the given words inside (any, if NULL). */
int	ofl_fmt_log_pytest_section(const char *, size_t, const char *);
int	ofl_fmt_log_cont(struct ofl_logblk *, const char *, size_t,
	    const char *, size_t);
/* 1 if a line goes on a record at the margin (an exception's first). */
int	ofl_fmt_log_goes_on(const char *, size_t);

/* Small tests on a line, shared by fmt-log-trace.c and extract-errors.c. */
static inline int
has(const char *s, size_t n, size_t i, const char *lit)
{
	size_t	k = strlen(lit);

	return i + k <= n && memcmp(s + i, lit, k) == 0;
}

static inline int
starts(const char *s, size_t n, const char *lit)
{
	return has(s, n, 0, lit);
}

static inline size_t
indent_of(const char *s, size_t n)
{
	size_t	i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static inline int
contains(const char *s, size_t n, const char *lit)
{
	return memmem(s, n, lit, strlen(lit)) != NULL;
}

/* Whether the line is at least min copies of ch (trailing blanks aside). */
static inline int
all_of(const char *s, size_t n, int ch, size_t min)
{
	size_t	i;

	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n < min)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] != ch)
			return 0;
	return 1;
}

#endif /* OFL_FMT_LOG_H */
