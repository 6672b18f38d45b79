/*
 * fmt-log-trace.c: where an error block of a log starts and how it goes
 * on: tracebacks, stack traces, panics, compiler diagnostics, sanitizer
 * reports, failing tests.  These are the log format's rules for
 * ofl-extract --errors (extract-errors.c runs them over the lines, keeps
 * the blocks and counts them).
 *
 * A line is first scanned for a few 4-byte anchors ("rror", "FAIL",
 * "ceba" of Traceback, ...) with a Wu-Manber shift table, so most lines
 * cost a handful of table lookups; an anchor is then verified by
 * hand-written rules that say which kind of block starts there.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fmt-log.h"
#include "banned.h"

static void	set_start(struct start *, int, int, size_t, size_t);
static int	pytest_section(const char *, size_t, const char *);

const struct ofl_logkind ofl_fmt_log_kinds[K_COUNT] = {
	{ "sanitizer", 100 },
	{ "go-panic", 95 },
	{ "rust-panic", 95 },
	{ "crash", 95 },
	{ "compiler-error", 90 },
	{ "linker-error", 90 },
	{ "python-traceback", 80 },
	{ "java-stack-trace", 80 },
	{ "js-stack-trace", 80 },
	{ "go-test-fail", 80 },
	{ "pytest-failure", 80 },
	{ "jest-failure", 80 },
	{ "vitest-failure", 80 },
	{ "tap-not-ok", 80 },
	{ "junit-failure", 80 },
	{ "unittest-failure", 80 },
	{ "test-unexpected", 80 },
	{ "exception", 60 },
	{ "error", 50 },
	{ "test-summary", 40 }
};

/* Anchors and what verifies them. */
enum {
	V_ERROR, V_EXCEPTION, V_TRACEBACK, V_PANIC, V_FAIL, V_FAILLOW,
	V_UNEXPECTED, V_SANITIZER, V_SEGV, V_CORE, V_NPM, V_ASSERT, V_ABORT,
	V_CRASH, V_GOBUILD, V_UNDEFREF, V_FATAL, V_CRITICAL
};
static const struct {
	const char	*pat;
	int		 verify;
} anchors[] = {
	{ "rror", V_ERROR },
	{ "RROR", V_ERROR },
	{ "xcep", V_EXCEPTION },
	{ "ceba", V_TRACEBACK },
	{ "anic", V_PANIC },
	{ "FAIL", V_FAIL },
	{ "fail", V_FAILLOW },
	{ "EXPE", V_UNEXPECTED },
	{ "itiz", V_SANITIZER },
	{ "Segm", V_SEGV },
	{ "dump", V_CORE },
	{ "ERR!", V_NPM },
	{ "sert", V_ASSERT },
	{ "BORT", V_ABORT },
	{ "RASH", V_CRASH },
	{ ".go:", V_GOBUILD },
	{ "efer", V_UNDEFREF },
	{ "ATAL", V_FATAL },
	{ "atal", V_FATAL },
	{ "RITI", V_CRITICAL }
};
#define NANCHORS	(sizeof anchors / sizeof anchors[0])

static uint8_t		 wm_shift[65536];
static uint32_t		 wm_cand[65536];
static int		 wm_ready;


static void
wm_init(void)
{
	size_t		i, j;
	unsigned	bg;

	if (wm_ready)
		return;
	memset(wm_shift, 3, sizeof wm_shift);
	for (i = 0; i < NANCHORS; i++) {
		const unsigned char *p = (const unsigned char *)anchors[i].pat;

		for (j = 1; j < 4; j++) {
			bg = (unsigned)p[j - 1] << 8 | p[j];
			if (wm_shift[bg] > 3 - j)
				wm_shift[bg] = (uint8_t)(3 - j);
		}
		bg = (unsigned)p[2] << 8 | p[3];
		wm_cand[bg] |= UINT32_C(1) << i;
	}
	wm_ready = 1;
}

static int
is_word(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A qualified name ending at e: back over [A-Za-z0-9_.$]. */
static size_t
qual_start(const char *s, size_t e)
{
	while (e > 0 && (is_word(s[e - 1]) || s[e - 1] == '.' ||
	    s[e - 1] == '$'))
		e--;
	return e;
}

/*
 * An exception header starts where a message starts: at the start of the
 * line or after its indentation, or after a log prefix that ends in "] ",
 * "- ", ": ", "| " or "> ", or after "Uncaught ".
 */
static int
msg_start(const char *s, size_t q)
{
	size_t	k = q;

	while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t'))
		k--;
	if (k == 0)
		return 1;
	if (k == q)
		return 0;
	if (ofl_in_set(s[k - 1], "]-:|>"))
		return 1;
	return k >= 8 && memcmp(s + k - 8, "Uncaught", 8) == 0;
}

/* The end of a "Name: msg" or "Name" at the start of c; 0 if none. */
static size_t
exc_name(const char *c, size_t n)
{
	size_t	e = 0;

	while (e < n && (is_word(c[e]) || c[e] == '.' || c[e] == '$'))
		e++;
	if (e == 0 || (e < n && c[e] != ':' && c[e] != '\r'))
		return 0;
	return e;
}

/* Whether the name of e bytes at c ends in the word. */
static int
name_ends(const char *c, size_t e, const char *word)
{
	size_t	k = strlen(word);

	return e >= k && memcmp(c + e - k, word, k) == 0;
}

/* "Name: msg" or "Name" where Name ends in Error or Exception. */
static int
exc_header(const char *c, size_t n)
{
	size_t	e = exc_name(c, n);

	return e > 0 && (name_ends(c, e, "Error") ||
	    name_ends(c, e, "Exception"));
}

/*
 * A line that goes on a record at the margin, for the template miner
 * (fmt-log-tmpl.c): an exception's or a traceback's first line
 * ("java.lang.IllegalStateException: pool exhausted", "Caused by: ...",
 * "Traceback (most recent call last):", "KeyboardInterrupt", "panic:").
 */
int
ofl_fmt_log_goes_on(const char *c, size_t n)
{
	static const char *const lits[] = { "Caused by:", "Suppressed:",
	    "Traceback (", "During handling of", "The above exception",
	    "panic:", "goroutine ", NULL };
	size_t	k, e;

	for (k = 0; lits[k] != NULL; k++)
		if (starts(c, n, lits[k]))
			return 1;
	if (exc_header(c, n))
		return 1;
	e = exc_name(c, n);
	return e > 0 && (name_ends(c, e, "Throwable") ||
	    name_ends(c, e, "Interrupt") || name_ends(c, e, "Exit"));
}

/* "==== TITLE ====" with the given words inside. */
static int
pytest_section(const char *s, size_t n, const char *title)
{
	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n < 5 || s[0] != '=' || s[n - 1] != '=')
		return 0;
	if (title == NULL)
		return 1;
	return contains(s, n, title);
}

static void
set_start(struct start *st, int kind, int mode, size_t margin, size_t pos)
{
	st->kind = kind;
	st->mode = mode;
	st->margin = margin;
	st->pos = pos;
	st->indent = 0;
}

void
ofl_fmt_log_set_start(struct start *st, int kind, int mode, size_t margin,
    size_t pos)
{
	set_start(st, kind, mode, margin, pos);
}

int
ofl_fmt_log_pytest_section(const char *s, size_t n, const char *title)
{
	return pytest_section(s, n, title);
}

/* The word "error", "Error" or "ERROR" at [w, e), followed by ':'. */
static int
error_colon(const char *s, size_t n, size_t w, struct start *st)
{
	ssize_t	loc;

	if (w >= 8 && memcmp(s + w - 8, "runtime ", 8) == 0 &&
	    (loc = ofl_fmt_log_loc_before(s, w - 8)) >= 0) {
		set_start(st, K_SANITIZER, M_UBSAN, (size_t)loc, w);
		return 1;
	}
	if ((loc = ofl_fmt_log_loc_before(s, w)) >= 0) {
		set_start(st, K_COMPILER, M_COMPILER, (size_t)loc, w);
		return 1;
	}
	if (w == 6 && memcmp(s, "fatal ", 6) == 0) {
		set_start(st, K_GO_PANIC, M_GO_PANIC, 0, w);
		return 1;
	}
	if (w == 0 && s[0] == 'e') {
		set_start(st, K_ERROR, M_RUSTC, 0, w);
		return 1;
	}
	if (w == 0 && s[0] == 'E' && s[1] == 'R') {
		set_start(st, K_UNITTEST, M_UNITTEST, 0,
		    w);
		return 1;
	}
	/* Not inside quotes: config dumps, code. */
	if (!msg_start(s, w) ||
	    memchr(s, '\'', w) != NULL ||
	    memchr(s, '"', w) != NULL)
		return 0;
	if (s[w] == 'E' && s[w + 1] == 'r') {
		/* Error: message (JavaScript) */
		set_start(st, K_EXCEPTION, M_EXC, w, w);
		return 1;
	}
	set_start(st, K_ERROR, M_SINGLE, 0, w);
	return 1;
}

/* The word "error", "Error" or "ERROR" at [w, e). */
static int
error_word(const char *s, size_t n, size_t w, size_t e, struct start *st)
{
	size_t	k, q;
	ssize_t	loc;
	int	nx = e < n ? (unsigned char)s[e] : '\0';

	if (ofl_word_in_name(s, n, w, e))
		return 0;
	/* ==1234==ERROR: AddressSanitizer: */
	if (s[w] == 'E' && w >= 4 && s[w - 1] == '=' &&
	    s[w - 2] == '=') {
		for (k = w - 2; k > 0 &&
		    isdigit((unsigned char)s[k - 1]); k--)
			;
		if (k >= 2 && k < w - 2 && s[k - 1] == '=' &&
		    s[k - 2] == '=') {
			set_start(st, K_SANITIZER, M_SANITIZER,
			    k - 2, w);
			return 1;
		}
	}
	if (w > 0 && s[w - 1] == '<' && s[w] == 'e' &&
	    (nx == ' ' || nx == '>')) {
		set_start(st, K_JUNIT, M_JUNIT, w - 1, w);
		return 1;
	}
	if (nx == ':')
		return error_colon(s, n, w, st);
	if (nx == '[' && s[w] == 'e' && w == 0) {
		set_start(st, K_COMPILER, M_RUSTC, 0, w);
		return 1;
	}
	if (nx == ']' && w > 0 && (s[w - 1] == ':' ||
	    s[w - 1] == '[')) {
		set_start(st, K_ERROR, M_SINGLE, 0, w);
		return 1;
	}
	if (nx == ' ' && e + 2 < n &&
	    isupper((unsigned char)s[e + 1])) {
		/* error TS2322: / error C2065: */
		for (k = e + 1; k < n &&
		    isupper((unsigned char)s[k]); k++)
			;
		q = k;
		while (k < n && isdigit((unsigned char)s[k]))
			k++;
		if (k > q && k < n && s[k] == ':') {
			loc = ofl_fmt_log_loc_before(s, w);
			if (loc >= 0)
				set_start(st, K_COMPILER,
				    M_COMPILER, (size_t)loc, w);
			else
				set_start(st, K_ERROR, M_SINGLE,
				    0, w);
			return 1;
		}
	}
	if (s[w] == 'E' && s[w + 1] == 'r' && nx == ' ' &&
	    e + 1 < n && isdigit((unsigned char)s[e + 1]) &&
	    contains(s, n, "***")) {
		/* make: *** [all] Error 2 */
		set_start(st, K_SUMMARY, M_SINGLE, 0, w);
		return 1;
	}
	if (s[w + 1] == 'R' && (nx == ' ' || nx == '\t' ||
	    nx == '\0' || nx == '\r' || nx == ']' ||
	    nx == '-')) {
		/* A log level. */
		set_start(st, K_ERROR, M_SINGLE, 0, w);
		return 1;
	}
	return 0;
}

/* "rror" at i: a word with error in it. */
static int
verify_error(const char *s, size_t n, size_t i, struct start *st)
{
	size_t	w, e, q;
	int	nx;

	for (w = i; w > 0 && isalpha((unsigned char)s[w - 1]); w--)
		;
	for (e = i + 4; e < n && is_word(s[e]); e++)
		;
	if (w > 0 && (isdigit((unsigned char)s[w - 1]) ||
	    s[w - 1] == '_'))
		return 0;
	nx = e < n ? (unsigned char)s[e] : '\0';
	if (e - w == 5 && (memcmp(s + w, "error", 5) == 0 ||
	    memcmp(s + w, "Error", 5) == 0 ||
	    memcmp(s + w, "ERROR", 5) == 0)) {
		return error_word(s, n, w, e, st);
	}
	if (e - w == 6 && memcmp(s + w, "ERRORS", 6) == 0 &&
	    pytest_section(s, n, " ERRORS ")) {
		set_start(st, K_PYTEST, M_PYTEST, 0, w);
		return 1;
	}
	/* TypeError: ..., java.lang.AssertionError */
	if (e - w > 5 && e == i + 4 &&
	    memcmp(s + e - 5, "Error", 5) == 0 &&
	    isupper((unsigned char)s[w]) &&
	    (nx == ':' || nx == '\0' || nx == '\r') &&
	    msg_start(s, qual_start(s, e))) {
		q = qual_start(s, e);
		set_start(st, K_EXCEPTION, M_EXC, q, q);
		return 1;
	}
	return 0;
}

/* "FAIL" at i. */
static int
verify_fail(const char *s, size_t n, size_t i, struct start *st)
{
	size_t	e, k;
	int	nx;

	if (i > 0 && is_word(s[i - 1]))
		return 0;
	for (e = i + 4; e < n && is_word(s[e]); e++)
		;
	if (ofl_word_in_name(s, n, i, e))
		return 0;
	nx = e < n ? (unsigned char)s[e] : '\0';
	k = indent_of(s, n);
	if (e == i + 4) {
		if (i >= 4 && memcmp(s + i - 4, "--- ", 4) == 0 &&
		    k == i - 4 && nx == ':') {
			set_start(st, K_GO_TEST, M_GO_TEST, 0, i - 4);
			st->indent = k;
			return 1;
		}
		if (i == 0 && nx == ':') {
			set_start(st, K_UNITTEST, M_UNITTEST, 0, i);
			return 1;
		}
		if (i == k && (nx == ' ' || nx == '\t' ||
		    nx == '\0' || nx == '\r')) {
			if (contains(s + i, n - i, " > "))
				set_start(st, K_VITEST, M_VITEST, 0, i);
			else
				set_start(st, K_SUMMARY, M_SINGLE, 0,
				    i);
			return 1;
		}
		return 0;
	}
	if (e - i == 8 && memcmp(s + i, "FAILURES", 8) == 0 &&
	    pytest_section(s, n, " FAILURES ")) {
		set_start(st, K_PYTEST, M_PYTEST, 0, i);
		return 1;
	}
	if ((e - i == 6 && memcmp(s + i, "FAILED", 6) == 0) ||
	    (e - i == 7 && memcmp(s + i, "FAILURE", 7) == 0)) {
		set_start(st, K_SUMMARY, M_SINGLE, 0, i);
		return 1;
	}
	return 0;
}

/* "itiz" at i: "...Sanitizer". */
static int
verify_sanitizer(const char *s, size_t n, size_t i, struct start *st)
{
	size_t	w, k;

	if (i < 3 || !has(s, n, i - 3, "Sanitizer"))
		return 0;
	for (w = i - 3; w > 0 && isalpha((unsigned char)s[w - 1]); w--)
		;
	if (w >= 9 && memcmp(s + w - 9, "WARNING: ", 9) == 0) {
		k = w - 9;
		if (k >= 4 && s[k - 1] == '=')
			for (k -= 2; k > 0 && s[k - 1] != ' '; k--)
				;
		set_start(st, K_SANITIZER, M_SANITIZER, k, k);
		return 1;
	}
	if (w >= 9 && memcmp(s + w - 9, "SUMMARY: ", 9) == 0) {
		set_start(st, K_SANITIZER, M_SINGLE, 0, w - 9);
		return 1;
	}
	return 0;
}

/* ".go:" at i: "./main.go:5:2: undefined: x". */
static int
verify_gobuild(const char *s, size_t n, size_t i, struct start *st)
{
	size_t	e, k, q;

	/* ./main.go:5:2: undefined: x (at the start of a line) */
	if (memchr(s, ' ', i) != NULL || memchr(s, '\t', i) != NULL)
		return 0;
	k = i + 4;
	for (q = 0; q < 2; q++) {
		e = k;
		while (k < n && isdigit((unsigned char)s[k]))
			k++;
		if (k == e || k >= n || s[k] != ':')
			return 0;
		k++;
	}
	if (k >= n || s[k] != ' ')
		return 0;
	set_start(st, K_COMPILER, M_COMPILER, 0, 0);
	return 1;
}

/* Verify anchor v found at i; fill st and return 1 for a block start. */
static int
verify(int v, const char *s, size_t n, size_t i, struct start *st)
{
	size_t	e, q;
	int	nx;

	switch (v) {
	case V_ERROR:
		return verify_error(s, n, i, st);
	case V_EXCEPTION:
		if (i < 1 || memcmp(s + i - 1, "Exception", 9) != 0)
			return 0;
		e = i + 8;
		if (has(s, n, e, "Group"))
			e += 5;
		nx = e < n ? (unsigned char)s[e] : '\0';
		if (nx != ':' && nx != '\0' && nx != '\r' &&
		    !has(s, n, e, " in thread "))
			return 0;
		q = qual_start(s, e);
		if (!msg_start(s, q))
			return 0;
		set_start(st, K_EXCEPTION, M_EXC, q, q);
		return 1;
	case V_TRACEBACK:
		if (i < 3 || !has(s, n, i - 3,
		    "Traceback (most recent call last):"))
			return 0;
		set_start(st, K_PY_TB, M_PY, i - 3, i - 3);
		return 1;
	case V_PANIC:
		if (i >= 1 && has(s, n, i - 1, "panic: ") && (i == 1 ||
		    s[i - 2] == ' ' || s[i - 2] == '\t')) {
			set_start(st, K_GO_PANIC, M_GO_PANIC, i - 1, i - 1);
			return 1;
		}
		if (i >= 1 && has(s, n, i - 1, "panicked at")) {
			const char *t = memmem(s, i, "thread '", 8);

			if (t == NULL)
				return 0;
			set_start(st, K_RUST_PANIC, M_RUST, (size_t)(t - s),
			    (size_t)(t - s));
			return 1;
		}
		return 0;
	case V_FAIL:
		return verify_fail(s, n, i, st);
	case V_FAILLOW:
		if (i >= 1 && s[i - 1] == '<' && has(s, n, i, "failure")) {
			set_start(st, K_JUNIT, M_JUNIT, i - 1, i - 1);
			return 1;
		}
		if (pytest_section(s, n, NULL) && (contains(s, n, " failed") ||
		    contains(s, n, " error"))) {
			set_start(st, K_SUMMARY, M_SINGLE, 0, i);
			return 1;
		}
		return 0;
	case V_UNEXPECTED:
		if (i < 7 || !has(s, n, i - 7, "TEST-UNEXPECTED-") ||
		    ofl_word_in_name(s, n, i - 7, i - 7))
			return 0;
		set_start(st, K_TEST_UNEXPECTED, M_SINGLE, i - 7, i - 7);
		return 1;
	case V_SANITIZER:
		return verify_sanitizer(s, n, i, st);
	case V_SEGV:
		if (!has(s, n, i, "Segmentation fault") ||
		    ofl_word_in_name(s, n, i, i + 18))
			return 0;
		set_start(st, K_CRASH, M_SINGLE, 0, i);
		return 1;
	case V_CORE:
		if (i < 5 || !has(s, n, i - 5, "core dumped"))
			return 0;
		set_start(st, K_CRASH, M_SINGLE, 0, i - 5);
		return 1;
	case V_NPM:
		if (i < 4 || !has(s, n, i - 4, "npm ERR!"))
			return 0;
		set_start(st, K_ERROR, M_SINGLE, 0, i - 4);
		return 1;
	case V_ASSERT:
		if (i < 2)
			return 0;
		if (has(s, n, i - 2, "Assertion failure") ||
		    (has(s, n, i - 2, "Assertion `") &&
		    contains(s, n, "' failed"))) {
			set_start(st, K_CRASH, M_SINGLE, 0, i - 2);
			return 1;
		}
		return 0;
	case V_ABORT:
		if (i < 7 || !has(s, n, i - 7, "!!! ABORT"))
			return 0;
		set_start(st, K_CRASH, M_SINGLE, 0, i - 7);
		return 1;
	case V_CRASH:
		if (i < 9 || !has(s, n, i - 9, "PROCESS-CRASH"))
			return 0;
		set_start(st, K_CRASH, M_SINGLE, 0, i - 9);
		return 1;
	case V_GOBUILD:
		return verify_gobuild(s, n, i, st);
	case V_UNDEFREF:
		if (i < 11 || !has(s, n, i - 11, "undefined reference to"))
			return 0;
		set_start(st, K_LINKER, M_COMPILER, 0, i - 11);
		return 1;
	case V_FATAL:
		/* FATAL as a level; fatal: as git and others say it. */
		if (i < 1 || (i >= 2 && is_word(s[i - 2])) ||
		    (i + 4 < n && is_word(s[i + 4])) ||
		    ofl_word_in_name(s, n, i - 1, i + 4))
			return 0;
		if (s[i] == 'A' ? s[i - 1] != 'F' : ((s[i - 1] != 'f' &&
		    s[i - 1] != 'F') || i + 4 >= n || s[i + 4] != ':' ||
		    !msg_start(s, i - 1)))
			return 0;
		set_start(st, K_ERROR, M_SINGLE, 0, i - 1);
		return 1;
	case V_CRITICAL:
		if (i < 2 || !has(s, n, i - 2, "CRITICAL") ||
		    (i >= 3 && is_word(s[i - 3])) ||
		    (i + 6 < n && is_word(s[i + 6])) ||
		    ofl_word_in_name(s, n, i - 2, i + 6))
			return 0;
		set_start(st, K_ERROR, M_SINGLE, 0, i - 2);
		return 1;
	}
	return 0;
}

/*
 * How good a start is: its kind's score, but a test summary that opens
 * the line ("FAILED tests/x.py::t - AssertionError: ...") outranks the
 * exception it quotes.
 */
static int
start_rank(const struct start *st, size_t indent)
{
	if (st->kind == K_SUMMARY && st->pos == indent)
		return ofl_fmt_log_kinds[K_EXCEPTION].score + 1;
	return ofl_fmt_log_kinds[st->kind].score;
}

/* Find the best block start in a line; 1 if there is one. */
int
ofl_fmt_log_find_start(const char *s, size_t n, struct start *best)
{
	const unsigned char	*u = (const unsigned char *)s;
	struct start		 st;
	size_t			 pos, k;
	unsigned		 bg;
	uint32_t		 mask;
	int			 found = 0, a;

	wm_init();
	/* Checks at the start of the line (after its indentation). */
	k = indent_of(s, n);
	if (has(s, n, k, "not ok") && (k + 6 == n || s[k + 6] == ' ' ||
	    s[k + 6] == '\r')) {
		set_start(best, K_TAP, M_TAP, 0, k);
		best->indent = k;
		return 1;
	}
	if (has(s, n, k, "\xe2\x97\x8f ") && !has(s, n, k + 4, "Console")) {
		set_start(best, K_JEST, M_JEST, 0, k);
		best->indent = k;
		return 1;
	}
	if (has(s, n, k, "\xe2\x9c\x95 ") || has(s, n, k, "\xc3\x97 ")) {
		set_start(best, K_SUMMARY, M_SINGLE, 0, k);
		return 1;
	}
	for (pos = 3; pos < n; ) {
		bg = (unsigned)u[pos - 1] << 8 | u[pos];
		if (wm_shift[bg] != 0) {
			pos += wm_shift[bg];
			continue;
		}
		mask = wm_cand[bg];
		while (mask != 0) {
			a = __builtin_ctz(mask);
			mask &= mask - 1;
			if (memcmp(s + pos - 3, anchors[a].pat, 4) != 0)
				continue;
			if (!verify(anchors[a].verify, s, n, pos - 3, &st))
				continue;
			/* Words inside quotes are data (a config dump). */
			if ((st.kind == K_ERROR || st.kind == K_SUMMARY ||
			    st.kind == K_EXCEPTION) &&
			    (memchr(s, '\'', st.pos) != NULL ||
			    memchr(s, '"', st.pos) != NULL))
				continue;
			if (!found || start_rank(&st, k) >
			    start_rank(best, k)) {
				*best = st;
				found = 1;
			}
		}
		pos++;
	}
	return found;
}

/* A Python traceback: frames, the exception, chained ones. */
static int
cont_py(struct ofl_logblk *b, const char *c, size_t cn)
{
	switch (b->state) {
	case 0:
		if (cn == 0)
			return C_END;
		if (c[0] == ' ' || c[0] == '\t')
			return C_ADD;
		b->state = 1;
		return C_ADD;
	case 1:
		if (cn == 0)
			return C_TENT;
		if (starts(c, cn, "During handling of the above "
		    "exception") || starts(c, cn, "The above exception "
		    "was the direct cause")) {
			b->state = 2;
			return C_ADD;
		}
		return C_END;
	default:
		if (cn == 0)
			return C_TENT;
		if (starts(c, cn, TRACEBACK)) {
			b->state = 0;
			return C_ADD;
		}
		return C_END;
	}
}

/* A Go panic and its goroutine dumps. */
static int
cont_gopanic(const char *c, size_t cn)
{
	if (cn == 0)
		return C_TENT;
	if (starts(c, cn, "goroutine ") || c[0] == '\t' ||
	    starts(c, cn, "[signal ") || starts(c, cn, "created by ") ||
	    starts(c, cn, "runtime stack:") ||
	    starts(c, cn, "panic: ") ||
	    starts(c, cn, "...additional frames") ||
	    starts(c, cn, "fatal error:"))
		return C_ADD;
	if (starts(c, cn, "exit status "))
		return C_LAST;
	if ((isalpha((unsigned char)c[0]) || c[0] == '_') &&
	    c[cn - 1] == ')') {
		const char *paren = memchr(c, '(', cn);
		const char *sp = memchr(c, ' ', cn);

		if (paren != NULL && (sp == NULL || sp > paren))
			return C_ADD;
	}
	return C_END;
}

/* A Rust panic: its message, notes and backtrace. */
static int
cont_rust(struct ofl_logblk *b, const char *c, size_t cn, size_t k)
{
	const char	*t = c + k;
	size_t		 tn = cn - k;

	if (b->state == 0) {
		if (starts(c, cn, "note: "))
			return contains(c, cn, "RUST_BACKTRACE") ?
			    C_LAST : C_ADD;
		if (starts(c, cn, "stack backtrace:")) {
			b->state = 1;
			return C_ADD;
		}
		if (cn == 0 || b->n >= 40)
			return C_END;
		return C_ADD;
	}
	if (tn > 0 && isdigit((unsigned char)t[0])) {
		while (tn > 0 && isdigit((unsigned char)t[0])) {
			t++;
			tn--;
		}
		return tn > 0 && t[0] == ':' ? C_ADD : C_END;
	}
	if (k > 0 && starts(t, tn, "at "))
		return C_ADD;
	if (starts(c, cn, "note: "))
		return C_LAST;
	return C_END;
}

/* A compiler diagnostic: its snippet, notes and help. */
static int
cont_compiler(struct ofl_logblk *b, const char *c, size_t cn, size_t k)
{
	const char	*t = c + k;
	size_t		 tn = cn - k;

	if (cn == 0)
		return C_END;
	if (k > 0 || c[0] == '|')
		return C_ADD;
	if (isdigit((unsigned char)c[0])) {
		while (tn > 0 && isdigit((unsigned char)t[0])) {
			t++;
			tn--;
		}
		if (starts(t, tn, " |") || starts(t, tn, "|"))
			return C_ADD;
	}
	if (starts(c, cn, "note: ") || starts(c, cn, "help: ") ||
	    (b->mode == M_COMPILER && (contains(c, cn, ": note: ") ||
	    contains(c, cn, ": required from "))))
		return C_ADD;
	return C_END;
}

/*
 * Does a line (s, n bytes) go on with the open block b?  c is the line
 * after the block's margin, if it has one like it.  C_END, C_ADD, C_TENT
 * (only if a later line goes on too) or C_LAST; b's mode, state and
 * counts move on.
 */
int
ofl_fmt_log_cont(struct ofl_logblk *b, const char *s, size_t n,
    const char *c, size_t cn)
{
	const char	*t;
	size_t		 tn, k;

	if (cn > 0 && c[cn - 1] == '\r')
		cn--;
	k = indent_of(c, cn);
	t = c + k;
	tn = cn - k;
	switch (b->mode) {
	case M_SINGLE:
		if (b->kind == K_ERROR || b->kind == K_TEST_UNEXPECTED) {
			if (starts(c, cn, TRACEBACK)) {
				b->mode = M_PY;
				b->kind = K_PY_TB;
				return C_ADD;
			}
			if (exc_header(c, cn)) {
				b->mode = M_EXC;
				return C_ADD;
			}
		}
		return C_END;
	case M_UNITTEST:
		if (b->state == 0 && all_of(c, cn, '-', 10)) {
			b->state = 1;
			return C_ADD;
		}
		if (b->state == 1 && starts(c, cn,
		    "Traceback (most recent call last):")) {
			b->mode = M_PY;
			b->state = 0;
			return C_ADD;
		}
		return C_END;
	case M_PY:
		return cont_py(b, c, cn);
	case M_EXC:
		if (k > 0 && starts(t, tn, "at ")) {
			b->frames++;
			return C_ADD;
		}
		if (starts(t, tn, "... ") && contains(t, tn, " more"))
			return C_ADD;
		if (starts(t, tn, "Caused by: ") ||
		    starts(t, tn, "Suppressed: ") ||
		    starts(t, tn, "[CIRCULAR"))
			return C_ADD;
		return C_END;
	case M_GO_PANIC:
		return cont_gopanic(c, cn);
	case M_RUST:
		return cont_rust(b, c, cn, k);
	case M_COMPILER:
	case M_RUSTC:
		return cont_compiler(b, c, cn, k);
	case M_SANITIZER:
		if (b->n >= 1000)
			return C_END;
		if (contains(c, cn, "SUMMARY: "))
			return C_LAST;
		if (starts(c, cn, "==") && contains(c, cn, "==ABORTING"))
			return C_LAST;
		return C_ADD;
	case M_UBSAN:
		if (tn > 1 && t[0] == '#' && isdigit((unsigned char)t[1]))
			return C_ADD;
		if (contains(c, cn, "SUMMARY: UndefinedBehaviorSanitizer"))
			return C_LAST;
		return C_END;
	case M_GO_TEST:
		k = indent_of(s, n);
		if (n == 0 || k == n)
			return C_END;
		return k > b->indent ? C_ADD : C_END;
	case M_JEST:
		k = indent_of(s, n);
		if (k == n)
			return C_TENT;
		return k > b->indent ? C_ADD : C_END;
	case M_VITEST:
		if (starts(c, cn, "\xe2\x8e\xaf"))
			return C_LAST;
		if (b->n >= 200 || starts(t, tn, "FAIL "))
			return C_END;
		return C_ADD;
	case M_TAP:
		k = indent_of(s, n);
		if (k == n)
			return C_END;
		if (k > b->indent)
			return C_ADD;
		if (k == b->indent && s[k] == '#' &&
		    !starts(s + k, n - k, "# Subtest"))
			return C_ADD;
		return C_END;
	case M_JUNIT:
		if (contains(c, cn, "</failure>") ||
		    contains(c, cn, "</error>"))
			return C_LAST;
		return b->n >= 300 ? C_END : C_ADD;
	default:
		return C_END;
	}
}

