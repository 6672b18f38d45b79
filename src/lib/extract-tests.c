/*
 * extract-tests.c: a test run as ofl shows it.  The runner's results
 * (fmt-test.c) put in words for the head of ofl-extract --errors and for
 * the notice of a failed run: the counts, the failing tests, the first
 * failure's message and the frames worth reading (frames in the files
 * changed in the work tree first, then the project's, then libraries'),
 * the command that reruns just the failing tests and where each further
 * failure's report is.
 */
#include "config.h"

#include <sys/types.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "extract.h"
#include "banned.h"

#define FRAME_LINES	200	/* lines of a report read for frames */
#define FRAMES_SHOWN	3
#define FRAME_WIDTH	110
#define MSG_WIDTH	160
#define RERUN_MAX	700	/* a longer rerun is left to --errors */

/* A line of a report that names a place in a source file. */
struct frame {
	uint64_t	 no;
	int		 rank;		/* 0 changed, 1 project, 2 library */
	char		 text[FRAME_WIDTH + 4];
};

int
ofl_extract_tests_scan(const struct ofl_src *src, const struct ofl_meta *m,
    struct ofl_testrun *t)
{
	if (ofl_fmt_test_scan(src, m != NULL ? m->command : NULL, t) == -1)
		return -1;
	return 0;
}

/* Is a path a library's (not the project's)? */
static int
library_path(const char *p, size_t n)
{
	static const char *lib[] = {
		"site-packages/", "dist-packages/", "/usr/lib/",
		"/usr/local/lib/", "/usr/share/", "node_modules/", "/rustc/",
		".cargo/registry/", "/go/pkg/mod/", "/usr/local/go/",
		"/lib/python", "<frozen", "/_pytest/", "/pluggy/",
		"/library/std/", "/library/core/", "/usr/include/", NULL
	};
	size_t	i;

	for (i = 0; lib[i] != NULL; i++)
		if (memmem(p, n, lib[i], strlen(lib[i])) != NULL)
			return 1;
	return p[0] == '<' || (n > 3 && memcmp(p, "at ", 3) == 0);
}

/* Does a frame's path name a changed file (a path from the top)? */
int
ofl_extract_tests_changed(const char *p, size_t n,
    const struct ofl_changed *ch)
{
	size_t	i, l;

	if (ch == NULL)
		return 0;
	while (n > 2 && p[0] == '.' && p[1] == '/') {
		p += 2;
		n -= 2;
	}
	for (i = 0; i < ch->n; i++) {
		l = strlen(ch->f[i]);
		if (l == 0 || l > n)
			continue;
		if (memcmp(p + n - l, ch->f[i], l) != 0)
			continue;
		if (l == n || p[n - l - 1] == '/')
			return 1;
		/* The changed path's tail: "calc/calc_test.go" in a frame
		   "calc_test.go" from inside the directory. */
	}
	for (i = 0; i < ch->n; i++) {
		l = strlen(ch->f[i]);
		if (l > n && ch->f[i][l - n - 1] == '/' &&
		    memcmp(ch->f[i] + l - n, p, n) == 0)
			return 1;
	}
	return 0;
}

static int
frame_cmp(const void *a, const void *b)
{
	const struct frame	*x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->no < y->no ? -1 : x->no > y->no;
}

/* Where the end tag s ends with starts ("</failure>"); n if none. */
static size_t
tag_start(const char *s, size_t n)
{
	size_t	k;

	for (k = n - 1; k > 0 && s[k] != '<'; k--)
		if (s[k] == ' ' || s[k] == '"')
			return n;
	return k + 1 < n && s[k] == '<' && s[k + 1] == '/' ? k : n;
}

/* The frames of lines [from, to], best first; how many. */
static size_t
frames(const struct ofl_src *src, uint64_t from, uint64_t to,
    const struct ofl_changed *ch, struct frame *fr, size_t max)
{
	struct frame	*all = NULL;
	struct ofl_buf	 line;
	char		 buf[4096];
	const char	*path, *s;
	size_t		 nall = 0, n, k, k2, pn, i;
	uint64_t	 no, ln;
	ssize_t		 r;
	int64_t		 off;

	if (from == 0 || to < from)
		return 0;
	if (to - from >= FRAME_LINES)
		to = from + FRAME_LINES - 1;
	if ((off = ofl_src_seek_line(src, from)) < 0)
		return 0;
	ofl_buf_init(&line);
	no = from;
	while (no <= to && (r = ofl_src_read(src, buf, sizeof buf)) > 0) {
		for (k = 0; k < (size_t)r && no <= to; k++) {
			if (buf[k] != '\n') {
				if (line.len < 4096)
					ofl_buf_addc(&line, buf[k]);
				continue;
			}
			s = line.data != NULL ? line.data : "";
			n = line.len;
			while (n > 0 && (*s == ' ' || *s == '\t')) {
				s++;
				n--;
			}
			/* A report's frame without the tag that ends it. */
			while (n > 0 && s[n - 1] == '>' && (k2 = tag_start(s,
			    n)) < n)
				n = k2;
			if (ofl_fmt_test_util_loc(s, n, &path, &pn, &ln) &&
			    ln > 0) {
				all = ofl_xrealloc(all, (nall + 1) *
				    sizeof *all);
				all[nall].no = no;
				all[nall].rank = ofl_extract_tests_changed(path,
				    pn, ch) ? 0 : library_path(path, pn) ? 2 :
				    1;
				i = n > FRAME_WIDTH ? ofl_utf8_cut(s,
				    FRAME_WIDTH) : n;
				memcpy(all[nall].text, s, i);
				all[nall].text[i] = '\0';
				nall++;
			}
			ofl_buf_reset(&line);
			no++;
		}
	}
	ofl_buf_free(&line);
	if (nall == 0)
		return 0;
	qsort(all, nall, sizeof *all, frame_cmp);
	n = nall < max ? nall : max;
	memcpy(fr, all, n * sizeof *fr);
	free(all);
	return n;
}

static void
put_rendered(struct ofl_buf *b, const char *s, size_t max)
{
	ofl_render_safe(b, (const unsigned char *)s, strlen(s), max);
}

/*
 * After the name of failing test i when another has the same name (two
 * files of a suite), the file it failed in: " (a.test.js)".
 */
static void
put_where(struct ofl_buf *b, const struct ofl_testrun *t, size_t i)
{
	const char	*f, *slash;
	size_t		 j;

	if ((f = t->tc[i].file) == NULL)
		return;
	for (j = 0; j < t->n; j++)
		if (j != i && strcmp(t->tc[j].name, t->tc[i].name) == 0)
			break;
	if (j == t->n)
		return;
	if ((slash = strrchr(f, '/')) != NULL && slash[1] != '\0')
		f = slash + 1;
	ofl_buf_adds(b, " (");
	put_rendered(b, f, 80);
	ofl_buf_addc(b, ')');
}

/*
 * The notice's section of a failed test run, in text (budget: the bytes
 * it may take, roughly) and as JSON members.  0 if there is none (not a
 * test run, or nothing failed).
 */
int
ofl_extract_tests_notice(const struct ofl_src *src, const char *id,
    const struct ofl_testrun *t, const struct ofl_changed *ch, size_t budget,
    struct ofl_buf *text, struct ofl_buf *json)
{
	const struct ofl_testcase	*tc;
	struct frame			 fr[FRAMES_SHOWN];
	struct ofl_buf			 rr, line;
	size_t				 i, nf, start = text->len;
	int				 comma;

	if (t->runner == NULL || t->n == 0)
		return 0;
	ofl_buf_init(&rr);
	ofl_buf_init(&line);
	ofl_buf_addf(text, "tests (%s): ", t->runner);
	ofl_fmt_test_counts_text(t, text);
	ofl_buf_adds(text, "\nfailing:");
	/* Names with spaces in them ("words lower"): a comma between. */
	for (i = 0, comma = 0; i < t->n && !comma; i++)
		comma = strchr(t->tc[i].name, ' ') != NULL;
	for (i = 0; i < t->n; i++) {
		ofl_buf_reset(&line);
		ofl_buf_adds(&line, i > 0 && comma ? ", " : " ");
		put_rendered(&line, t->tc[i].name, 200);
		put_where(&line, t, i);
		if (t->tc[i].error)
			ofl_buf_adds(&line, " (error)");
		if (text->len - start + line.len > budget / 2 && i > 0) {
			ofl_buf_addf(text, " ... and %zu more",
			    t->n - i + (size_t)t->more);
			break;
		}
		ofl_buf_add(text, line.data, line.len);
	}
	ofl_buf_addc(text, '\n');
	tc = &t->tc[0];
	ofl_buf_adds(text, "first: ");
	put_rendered(text, tc->name, 200);
	if (tc->from > 0)
		ofl_buf_addf(text, " (ofl-extract %s -n %" PRIu64 "-%" PRIu64
		    ")", id, tc->from, tc->to);
	ofl_buf_addc(text, '\n');
	if (tc->message != NULL) {
		ofl_buf_adds(text, "  ");
		put_rendered(text, tc->message, MSG_WIDTH);
		ofl_buf_addc(text, '\n');
	}
	nf = frames(src, tc->from, tc->to, ch, fr, FRAMES_SHOWN);
	for (i = 0; i < nf; i++) {
		ofl_buf_adds(text, "  ");
		put_rendered(text, fr[i].text, FRAME_WIDTH);
		if (fr[i].rank == 0)
			ofl_buf_adds(text, "  [changed]");
		ofl_buf_addc(text, '\n');
	}
	ofl_fmt_test_rerun_text(t, &rr);
	if (rr.len > 0 && rr.len <= RERUN_MAX) {
		ofl_buf_adds(text, "rerun: ");
		ofl_buf_add(text, rr.data, rr.len);
		ofl_buf_addc(text, '\n');
	} else if (rr.len > 0)
		ofl_buf_addf(text, "rerun: %zu bytes: ofl-extract %s --errors "
		    "--json | jq .rerun\n", rr.len, id);
	for (i = 1; i < t->n; i++) {
		tc = &t->tc[i];
		if (tc->from == 0)
			continue;
		ofl_buf_reset(&line);
		ofl_buf_addf(&line, "%s ofl-extract %s -n %" PRIu64 "-%" PRIu64
		    "  # test %zu\n", i == 1 ? "more: " : "      ", id, tc->from,
		    tc->to, i + 1);
		if (text->len - start + line.len > budget) {
			ofl_buf_addf(text, "%s ofl-extract %s --errors  # "
			    "%zu more\n", i == 1 ? "more: " : "      ", id,
			    t->n - i);
			break;
		}
		ofl_buf_add(text, line.data, line.len);
	}
	if (json != NULL) {
		if (json->len > 0)
			ofl_buf_addc(json, ',');
		ofl_buf_adds(json, "\"tests\":{");
		ofl_fmt_test_json(t, json);
		ofl_buf_addc(json, '}');
	}
	ofl_buf_free(&rr);
	ofl_buf_free(&line);
	return 1;
}

/*
 * The head of --errors: "[test-run RUNNER] counts", a line per failing
 * test ("[failed] NAME (GROUP)\tlines A-B\tFILE:LINE\tMESSAGE", or
 * [errored]), "[rerun] COMMAND"; every line starts with '[' as the blocks'
 * headers do.  JSON: one object of kind "test-run".
 */
int
ofl_extract_tests_head(struct ex *x, const struct ofl_testrun *t,
    const struct ofl_meta *m, const struct ofl_changed *ch)
{
	const struct ofl_testcase	*tc;
	struct ofl_buf			 b, rr;
	const char			*p;
	size_t				 i, n;
	int				 rv;

	if (t->runner == NULL || t->n == 0)
		return 0;
	ofl_buf_init(&b);
	ofl_buf_init(&rr);
	if (x->o->json) {
		ofl_buf_adds(&b, "{\"id\":");
		ofl_extract_json_str(&b, x->id, strlen(x->id));
		ofl_buf_adds(&b, ",\"kind\":\"test-run\",");
		ofl_fmt_test_json(t, &b);
		ofl_buf_adds(&b, ",\"cwd\":");
		if (m != NULL && m->cwd != NULL)
			ofl_extract_json_str(&b, m->cwd, strlen(m->cwd));
		else
			ofl_buf_adds(&b, "null");
		ofl_buf_adds(&b, ",\"changed\":[");
		for (i = 0; ch != NULL && i < ch->n; i++) {
			if (i > 0)
				ofl_buf_addc(&b, ',');
			ofl_extract_json_str(&b, ch->f[i], strlen(ch->f[i]));
		}
		ofl_buf_adds(&b, "]}\n");
	} else {
		ofl_buf_addf(&b, "[test-run %s] ", t->runner);
		ofl_fmt_test_counts_text(t, &b);
		ofl_buf_addc(&b, '\n');
		for (i = 0; i < t->n; i++) {
			tc = &t->tc[i];
			ofl_buf_adds(&b, tc->error ? "[errored] " : "[failed] ");
			put_rendered(&b, tc->name, 1024);
			if (tc->group != NULL && strcmp(tc->group,
			    tc->name) != 0) {
				ofl_buf_adds(&b, " (");
				put_rendered(&b, tc->group, 1024);
				ofl_buf_addc(&b, ')');
			}
			if (tc->from > 0)
				ofl_buf_addf(&b, tc->to > tc->from ?
				    "\tlines %" PRIu64 "-%" PRIu64 :
				    "\tline %" PRIu64, tc->from, tc->to);
			if (tc->file != NULL) {
				ofl_buf_addc(&b, '\t');
				put_rendered(&b, tc->file, 1024);
				ofl_buf_addf(&b, ":%" PRIu64, tc->line);
				if (ofl_extract_tests_changed(tc->file,
				    strlen(tc->file), ch))
					ofl_buf_adds(&b, " [changed]");
			}
			if (tc->message != NULL) {
				ofl_buf_addc(&b, '\t');
				put_rendered(&b, tc->message, MSG_WIDTH);
			}
			ofl_buf_addc(&b, '\n');
		}
		if (t->more > 0)
			ofl_buf_addf(&b, "[failed] ... and %" PRIu64 " more\n",
			    t->more);
		ofl_fmt_test_rerun_text(t, &rr);
		if (rr.len > 0)
			ofl_buf_addf(&b, "[rerun] %s\n", ofl_buf_str(&rr));
	}
	p = ofl_extract_mask_text(x, b.data, b.len, &n);
	rv = ofl_extract_out_write(x, p, n);
	ofl_buf_free(&b);
	ofl_buf_free(&rr);
	return rv;
}
