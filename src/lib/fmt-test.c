/*
 * fmt-test.c: test runs.  Which runner wrote a log (its command, then its
 * output), the tests that failed, the counts and the commands that rerun
 * exactly the failing tests.  Each runner's rules live in a file of its
 * own (fmt-test-py.c, fmt-test-go.c, fmt-test-js.c, fmt-test-misc.c,
 * fmt-test-java.c) behind a small table of functions; this file feeds
 * every line to each of them, keeps the one with the best evidence, and
 * holds what they share.  Lines stream: a runner keeps at most
 * OFL_TEST_KEEP failing tests and counts the rest.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fmt-test.h"
#include "banned.h"

#define LINE_CAP	(64 * 1024)	/* bytes of a line the runners see */
#define CMD_BONUS	1000		/* the command names the runner */

static const struct trunner *runners[] = {
	&ofl_fmt_test_py_pytest,
	&ofl_fmt_test_py_unittest,
	&ofl_fmt_test_go_json,
	&ofl_fmt_test_go_text,
	&ofl_fmt_test_js_jest,
	&ofl_fmt_test_js_vitest,
	&ofl_fmt_test_misc_cargo,
	&ofl_fmt_test_misc_automake,
	&ofl_fmt_test_misc_tap,
	&ofl_fmt_test_misc_ctest,
	&ofl_fmt_test_java_surefire,
	&ofl_fmt_test_java_junit,
	&ofl_fmt_test_misc_make
};
#define NRUNNERS	(sizeof runners / sizeof runners[0])

struct priv {
	struct tres	 res[NRUNNERS];
	struct tcmd	 cmd;
	int		 parsed;	/* the command could be split */
	int		 bycmd;		/* index + 1 of the command's runner */
	struct ofl_buf	 plain;		/* a line without its escapes */
};

/*
 * A line without its terminal escapes: runners colour their output when
 * they think a terminal or a CI service reads it (vitest with CI set,
 * jest --colors, cargo, pytest --color=yes).  CSI sequences (ESC [ to a
 * final byte) and OSC ones (ESC ] to BEL or ESC backslash) go, and so
 * does any other two-byte escape; the text between them stays.
 */
static void
strip_escapes(const char *s, size_t n, struct ofl_buf *out)
{
	size_t	i = 0;

	ofl_buf_reset(out);
	while (i < n) {
		if (s[i] != 0x1b) {
			ofl_buf_addc(out, s[i++]);
			continue;
		}
		if (++i >= n)
			break;
		if (s[i] == '[') {
			for (i++; i < n && ((unsigned char)s[i] < 0x40 ||
			    (unsigned char)s[i] > 0x7e); i++)
				;
			i++;
		} else if (s[i] == ']') {
			for (i++; i < n && s[i] != 0x07 && s[i] != 0x1b; i++)
				;
			i += i < n && s[i] == 0x1b ? 2 : 1;
		} else
			i++;
	}
}

void
ofl_fmt_test_begin(struct ofl_testrun *t, const char *command)
{
	struct priv	*p;
	size_t		 i;

	memset(t, 0, sizeof *t);
	t->passed = t->failed = t->skipped = t->errors = -1;
	p = ofl_xcalloc(1, sizeof *p);
	t->priv = p;
	for (i = 0; i < NRUNNERS; i++) {
		p->res[i].passed = p->res[i].failed = -1;
		p->res[i].skipped = p->res[i].errors = -1;
		p->res[i].st = ofl_xcalloc(1, runners[i]->stsize);
	}
	if (command != NULL && ofl_fmt_test_util_split(command, &p->cmd)) {
		p->parsed = 1;
		for (i = 0; i < NRUNNERS; i++) {
			if (runners[i]->cmd(&p->cmd)) {
				p->bycmd = (int)i + 1;
				break;
			}
		}
	} else if (command != NULL)
		ofl_fmt_test_util_free(&p->cmd);
}

void
ofl_fmt_test_line(struct ofl_testrun *t, const char *s, size_t n,
    uint64_t no)
{
	struct priv	*p = t->priv;
	size_t		 i;

	if (p == NULL)
		return;
	if (n > 0 && s[n - 1] == '\n')
		n--;
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (memchr(s, 0x1b, n) != NULL) {
		strip_escapes(s, n, &p->plain);
		s = p->plain.data != NULL ? p->plain.data : "";
		n = p->plain.len;
	}
	for (i = 0; i < NRUNNERS; i++)
		if (runners[i]->want == NULL ||
		    runners[i]->want(p->res[i].st, s, n))
			runners[i]->line(&p->res[i], p->res[i].st, s, n, no);
}

/* Keep the chosen runner's results; free the others. */
void
ofl_fmt_test_end(struct ofl_testrun *t)
{
	struct priv	*p = t->priv;
	struct tres	*r;
	size_t		 i, best = NRUNNERS;
	int		 sc, bestsc = 0;

	if (p == NULL)
		return;
	for (i = 0; i < NRUNNERS; i++) {
		r = &p->res[i];
		if (runners[i]->end != NULL)
			runners[i]->end(r, r->st);
		sc = r->score;
		/* make runs other runners: its command is no evidence. */
		if (sc > 0 && p->bycmd == (int)i + 1 &&
		    runners[i] != &ofl_fmt_test_misc_make)
			sc += CMD_BONUS;
		if (sc > bestsc) {
			bestsc = sc;
			best = i;
		}
	}
	if (best < NRUNNERS) {
		r = &p->res[best];
		t->runner = runners[best]->name;
		t->passed = r->passed;
		t->failed = r->failed;
		t->skipped = r->skipped;
		t->errors = r->errors;
		/* A report's writer may show in the command that read it. */
		if (r->n > 0 && r->more == 0)
			runners[best]->rerun(r, p->parsed && (p->bycmd ==
			    (int)best + 1 || runners[best] ==
			    &ofl_fmt_test_java_junit) ? &p->cmd : NULL, t);
		t->tc = r->tc;
		t->n = r->n;
		t->more = r->more;
		r->tc = NULL;
		r->n = 0;
	}
	for (i = 0; i < NRUNNERS; i++) {
		r = &p->res[i];
		if (runners[i]->free != NULL)
			runners[i]->free(r->st);
		free(r->st);
		ofl_fmt_test_util_cases_free(r->tc, r->n);
	}
	ofl_fmt_test_util_free(&p->cmd);
	ofl_buf_free(&p->plain);
	free(p);
	t->priv = NULL;
}


void
ofl_fmt_test_free(struct ofl_testrun *t)
{
	size_t	i, j;

	if (t->priv != NULL)
		ofl_fmt_test_end(t);
	ofl_fmt_test_util_cases_free(t->tc, t->n);
	for (i = 0; i < t->nrerun; i++) {
		for (j = 0; j < t->rerun[i].n; j++)
			free(t->rerun[i].v[j]);
		free(t->rerun[i].v);
	}
	free(t->rerun);
	memset(t, 0, sizeof *t);
}

/* Every line of a source through the runners. */
int
ofl_fmt_test_scan(const struct ofl_src *src, const char *command,
    struct ofl_testrun *t)
{
	char		 buf[65536];
	struct ofl_buf	 line;
	ssize_t		 k;
	size_t		 i, st;
	uint64_t	 no = 1;
	int		 skip = 0;

	ofl_fmt_test_begin(t, command);
	ofl_buf_init(&line);
	if (ofl_src_seek(src, 0) == -1)
		goto fail;
	while ((k = ofl_src_read(src, buf, sizeof buf)) > 0) {
		for (st = 0, i = 0; i < (size_t)k; i++) {
			if (buf[i] != '\n')
				continue;
			if (!skip)
				ofl_buf_add(&line, buf + st, i - st);
			ofl_fmt_test_line(t, line.data != NULL ? line.data :
			    "", line.len, no++);
			ofl_buf_reset(&line);
			skip = 0;
			st = i + 1;
		}
		if (!skip) {
			ofl_buf_add(&line, buf + st, (size_t)k - st);
			if (line.len > LINE_CAP) {
				line.len = LINE_CAP;
				skip = 1;
			}
		}
	}
	if (k == -1)
		goto fail;
	if (line.len > 0)
		ofl_fmt_test_line(t, line.data, line.len, no);
	ofl_buf_free(&line);
	ofl_fmt_test_end(t);
	return 0;
fail:
	ofl_buf_free(&line);
	ofl_fmt_test_free(t);
	return -1;
}











/* The rerun commands as shell text, joined by "; ". */
void
ofl_fmt_test_rerun_text(const struct ofl_testrun *t, struct ofl_buf *b)
{
	size_t	i, j;
	char	*q;

	for (i = 0; i < t->nrerun; i++) {
		if (i > 0)
			ofl_buf_adds(b, "; ");
		for (j = 0; j < t->rerun[i].n; j++) {
			q = ofl_shquote(t->rerun[i].v[j]);
			if (j > 0)
				ofl_buf_addc(b, ' ');
			ofl_buf_adds(b, q);
			free(q);
		}
	}
}

static void
put_count(struct ofl_buf *b, int *first, int64_t v, const char *what)
{
	if (v < 0)
		return;
	ofl_buf_addf(b, "%s%lld %s", *first ? "" : ", ", (long long)v, what);
	*first = 0;
}

/* "4 failed, 5 passed, 1 skipped, 1 error" */
void
ofl_fmt_test_counts_text(const struct ofl_testrun *t, struct ofl_buf *b)
{
	int64_t	failed = t->failed;
	int	first = 1;

	if (failed < 0)
		failed = (int64_t)(t->n + t->more);
	put_count(b, &first, failed, "failed");
	put_count(b, &first, t->passed, "passed");
	if (t->skipped != 0)
		put_count(b, &first, t->skipped, "skipped");
	if (t->errors != 0)
		put_count(b, &first, t->errors, t->errors == 1 ? "error" :
		    "errors");
	/*
	 * A summary that counts fewer failures than the output names: a
	 * test script that printed FAIL lines of its own and still passed
	 * (popt's testit.sh under automake).  Both are said.
	 */
	if (t->failed >= 0 && t->failed + (t->errors > 0 ? t->errors : 0) <
	    (int64_t)(t->n + t->more))
		ofl_buf_addf(b, " by its summary; its output names %llu "
		    "failing", (unsigned long long)(t->n + t->more));
}

static void
json_num(struct ofl_buf *b, const char *k, int64_t v)
{
	if (v < 0)
		ofl_buf_addf(b, ",\"%s\":null", k);
	else
		ofl_buf_addf(b, ",\"%s\":%lld", k, (long long)v);
}

static void
json_str(struct ofl_buf *b, const char *k, const char *v)
{
	ofl_buf_addf(b, ",\"%s\":", k);
	if (v == NULL)
		ofl_buf_adds(b, "null");
	else
		ofl_buf_add_json_str(b, v, strlen(v));
}

/*
 * The run as JSON members (no braces): runner, counts, tests (each with
 * its name, group, file, line, message, error and the lines of its
 * report) and rerun, a list of argument vectors.
 */
void
ofl_fmt_test_json(const struct ofl_testrun *t, struct ofl_buf *b)
{
	const struct ofl_testcase	*tc;
	size_t				 i, j;

	ofl_buf_adds(b, "\"runner\":");
	ofl_buf_add_json_str(b, t->runner, strlen(t->runner));
	json_num(b, "passed", t->passed);
	json_num(b, "failed", t->failed);
	json_num(b, "skipped", t->skipped);
	json_num(b, "errors", t->errors);
	ofl_buf_addf(b, ",\"more\":%llu,\"tests\":[",
	    (unsigned long long)t->more);
	for (i = 0; i < t->n; i++) {
		tc = &t->tc[i];
		ofl_buf_adds(b, i > 0 ? ",{\"test\":" : "{\"test\":");
		ofl_buf_add_json_str(b, tc->name, strlen(tc->name));
		json_str(b, "group", tc->group);
		json_str(b, "file", tc->file);
		json_num(b, "line", tc->line > 0 ? (int64_t)tc->line : -1);
		json_str(b, "message", tc->message);
		ofl_buf_addf(b, ",\"error\":%s,\"lines\":[%llu,%llu]}",
		    tc->error ? "true" : "false",
		    (unsigned long long)tc->from, (unsigned long long)tc->to);
	}
	ofl_buf_adds(b, "],\"rerun\":[");
	for (i = 0; i < t->nrerun; i++) {
		ofl_buf_adds(b, i > 0 ? ",[" : "[");
		for (j = 0; j < t->rerun[i].n; j++) {
			if (j > 0)
				ofl_buf_addc(b, ',');
			ofl_buf_add_json_str(b, t->rerun[i].v[j],
			    strlen(t->rerun[i].v[j]));
		}
		ofl_buf_addc(b, ']');
	}
	ofl_buf_addc(b, ']');
}
