/*
 * test-chunk.c: the kind-aware chunkers, through a real store.
 *
 * Each case stores a small artifact, chunks it and checks titles and
 * ranges; every chunk of every case is also checked for exact ranges
 * (line numbers recomputed from the bytes, raw text equal to the range).
 * Golden files in tests/data/chunk/ pin whole outputs; with
 * OFL_CHUNK_REGEN=1 they are written instead of compared.  Corpus files
 * (../shared/corpus, or $OFL_CORPUS) are used when present for coverage
 * and speed, reported as TAP comments.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/time.h>

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jq.h>

#include "ofl.h"
#include "tap.h"
#include "banned.h"

struct got {
	char		*member;
	char		*title;
	char		*text;
	size_t		 len;
	uint64_t	 bs, be, ls, le;
};

static struct ofl_store	*st;
static char		 stdir[] = "/tmp/ofl-test-chunk.XXXXXX";
static struct got	*gv;
static size_t		 ng, gcap;
static int		 stop_after = -1;

static void	 clear(void);
static int	 collect(const struct ofl_chunk *, void *);
static char	*put(const void *, size_t);
static int	 run(const void *, size_t, int);
static int	 exact(const char *, size_t, const char *, int);
static int	 tiles(size_t, const char *);
static int	 title_at(const char *);
static int	 covers(uint64_t, uint64_t);
static char	*slurp(const char *, size_t *);
static double	 now_s(void);

static void
clear(void)
{
	size_t	i;

	for (i = 0; i < ng; i++) {
		free(gv[i].member);
		free(gv[i].title);
		free(gv[i].text);
	}
	ng = 0;
}

static int
collect(const struct ofl_chunk *c, void *arg)
{
	struct got	*g;

	if (stop_after >= 0 && (int)ng == stop_after)
		return 7;
	if (ng == gcap) {
		gcap = gcap ? gcap * 2 : 64;
		gv = realloc(gv, gcap * sizeof *gv);
		if (gv == NULL)
			abort();
	}
	g = &gv[ng++];
	g->member = c->member != NULL ? strdup(c->member) : NULL;
	g->title = strndup(c->title, c->title_len);
	g->text = malloc(c->len + 1);
	memcpy(g->text, c->text, c->len);
	g->text[c->len] = '\0';
	g->len = c->len;
	g->bs = c->byte_start;
	g->be = c->byte_end;
	g->ls = c->line_start;
	g->le = c->line_end;
	return 0;
}

/* Store bytes; returns the new artifact's ID (malloc'ed). */
static char *
put(const void *buf, size_t n)
{
	struct ofl_writer	*w;
	struct ofl_meta		 m;
	char			*id;

	if ((w = ofl_writer_begin(st, NULL)) == NULL)
		return NULL;
	if (n > 0 && ofl_writer_write(w, buf, n) == -1)
		return NULL;
	memset(&m, 0, sizeof m);
	if (ofl_writer_finish(w, NULL, &m) == -1)
		return NULL;
	id = strdup(m.id);
	ofl_meta_free(&m);
	return id;
}

/* Store and chunk; the chunks land in gv[0, ng). */
static int
run(const void *buf, size_t n, int kind)
{
	struct ofl_reader	*r;
	char			*id;
	int			 rv;

	clear();
	if ((id = put(buf, n)) == NULL) {
		printf("# store: %s\n", ofl_errmsg());
		return -100;
	}
	if ((r = ofl_reader_open(st, id)) == NULL) {
		printf("# reader: %s\n", ofl_errmsg());
		free(id);
		return -100;
	}
	rv = ofl_reader_chunks(r, kind, collect, NULL);
	ofl_reader_close(r);
	free(id);
	return rv;
}

/*
 * Chunks of member (NULL: the artifact) have exact ranges in buf: line
 * numbers agree with the bytes and, if raw, text is the range.  Returns
 * the number of chunks checked, -1 on a mismatch.
 */
static int
exact(const char *buf, size_t n, const char *member, int raw)
{
	uint64_t	 line, off;
	size_t		 i;
	int		 count = 0;

	for (i = 0; i < ng; i++) {
		struct got *g = &gv[i];

		if ((member == NULL) != (g->member == NULL) ||
		    (member != NULL && strcmp(member, g->member) != 0))
			continue;
		count++;
		if (g->be > n || g->bs >= g->be) {
			printf("# chunk %zu: bad range %llu-%llu of %zu\n", i,
			    (unsigned long long)g->bs,
			    (unsigned long long)g->be, n);
			return -1;
		}
		for (off = 0, line = 1; off < g->bs; off++)
			line += buf[off] == '\n';
		if (g->ls != line) {
			printf("# chunk %zu: line_start %llu, want %llu\n", i,
			    (unsigned long long)g->ls,
			    (unsigned long long)line);
			return -1;
		}
		for (; off < g->be - 1; off++)
			line += buf[off] == '\n';
		if (g->le != line) {
			printf("# chunk %zu: line_end %llu, want %llu\n", i,
			    (unsigned long long)g->le,
			    (unsigned long long)line);
			return -1;
		}
		if (raw && (g->len != g->be - g->bs ||
		    memcmp(g->text, buf + g->bs, g->len) != 0)) {
			printf("# chunk %zu: text is not the raw range\n", i);
			return -1;
		}
	}
	return count;
}

/* The chunks of member cover [0, n) in order, no gap, no overlap. */
static int
tiles(size_t n, const char *member)
{
	uint64_t	at = 0;
	size_t		i;

	for (i = 0; i < ng; i++) {
		if ((member == NULL) != (gv[i].member == NULL) ||
		    (member != NULL && strcmp(member, gv[i].member) != 0))
			continue;
		if (gv[i].bs != at) {
			printf("# chunk %zu starts at %llu, want %llu\n", i,
			    (unsigned long long)gv[i].bs,
			    (unsigned long long)at);
			return 0;
		}
		at = gv[i].be;
	}
	if (at != n)
		printf("# chunks end at %llu, want %zu\n",
		    (unsigned long long)at, n);
	return at == n;
}

static int
title_at(const char *t)
{
	size_t	i;

	for (i = 0; i < ng; i++)
		if (strcmp(gv[i].title, t) == 0)
			return (int)i;
	return -1;
}

/* Some chunk holds lines a to b whole. */
static int
covers(uint64_t a, uint64_t b)
{
	size_t	i;

	for (i = 0; i < ng; i++)
		if (gv[i].ls <= a && gv[i].le >= b)
			return 1;
	return 0;
}

static void
dump(void)
{
	size_t	i;

	for (i = 0; i < ng; i++)
		printf("#   %llu-%llu %llu-%llu %s%s[%s]\n",
		    (unsigned long long)gv[i].ls, (unsigned long long)gv[i].le,
		    (unsigned long long)gv[i].bs, (unsigned long long)gv[i].be,
		    gv[i].member ? gv[i].member : "",
		    gv[i].member ? " " : "", gv[i].title);
}

static char *
slurp(const char *path, size_t *n)
{
	FILE	*f;
	char	*b = NULL;
	size_t	 cap = 0, len = 0, k;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap * 2 + 65536;
			if ((b = realloc(b, cap + 1)) == NULL)
				abort();
		}
		if ((k = fread(b + len, 1, cap - len, f)) == 0)
			break;
		len += k;
	}
	fclose(f);
	b[len] = '\0';
	*n = len;
	return b;
}

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Markdown.
 */

static const char md_doc[] =
    "Intro text before any heading.\n"
    "\n"
    "# Install\n"
    "\n"
    "Get it.\n"
    "\n"
    "## From source\n"
    "\n"
    "```sh\n"
    "# not a heading: a shell comment\n"
    "make install\n"
    "## nor this\n"
    "```\n"
    "\n"
    "### Debian ###\n"
    "\n"
    "~~~~\n"
    "# still code\n"
    "```\n"
    "# still code after a shorter fence\n"
    "~~~~\n"
    "apt-get install it\n"
    "\n"
    "Usage\n"
    "=====\n"
    "\n"
    "Run it.\n"
    "\n"
    "Options\n"
    "-------\n"
    "    # indented code, not a heading\n"
    "#hashtag is not a heading\n"
    "\n"
    "---\n"
    "\n"
    "after a thematic break\n";

static void
test_markdown(void)
{
	struct ofl_buf	 b;
	int		 i, parts, rv;
	uint64_t	 prev;

	rv = run(md_doc, sizeof md_doc - 1, OFL_KIND_MARKDOWN);
	ok(rv == 0, "markdown: chunked");
	ok(ng == 6, "markdown: six sections (got %zu)", ng);
	if (ng != 6)
		dump();
	if (ng == 6) {
		is_str(gv[0].title, "", "markdown: preamble has no title");
		is_str(gv[1].title, "Install", "markdown: h1");
		is_str(gv[2].title, "Install > From source",
		    "markdown: h2 path");
		is_str(gv[3].title, "Install > From source > Debian",
		    "markdown: h3 path, closing #s dropped");
		is_str(gv[4].title, "Usage", "markdown: setext h1");
		is_str(gv[5].title, "Usage > Options", "markdown: setext h2");
		ok(gv[2].ls == 7 && gv[2].le == 14,
		    "markdown: fence with '#' lines stays in its section "
		    "(lines %llu-%llu)", (unsigned long long)gv[2].ls,
		    (unsigned long long)gv[2].le);
		ok(gv[3].ls == 15 && gv[3].le == 23,
		    "markdown: '~~~~' fence is not closed by '```'");
		ok(gv[4].ls == 24 && gv[5].ls == 29 && gv[5].le == 36,
		    "markdown: setext headings start their sections");
	}
	ok(exact(md_doc, sizeof md_doc - 1, NULL, 1) == (int)ng &&
	    tiles(sizeof md_doc - 1, NULL), "markdown: exact, no gaps");

	/* A long section is cut at paragraphs and keeps its title. */
	ofl_buf_init(&b);
	ofl_buf_adds(&b, "# Long\n\n");
	for (i = 0; i < 60; i++)
		ofl_buf_addf(&b, "Paragraph %d has some words in it, enough to "
		    "make the section long.\nA second line of it.\n\n", i);
	ofl_buf_adds(&b, "## Next\nshort\n");
	rv = run(b.data, b.len, OFL_KIND_MARKDOWN);
	for (i = 0, parts = 0, prev = 0; i < (int)ng; i++) {
		if (strcmp(gv[i].title, "Long") == 0) {
			parts++;
			if (gv[i].len > 8192 || (i > 0 &&
			    gv[i].text[0] != 'P'))
				parts = -1000;
		}
		prev = gv[i].le;
	}
	ok(rv == 0 && parts >= 2 && ng == (size_t)parts + 1 &&
	    strcmp(gv[ng - 1].title, "Long > Next") == 0,
	    "markdown: long section cut at paragraphs (%d parts)", parts);
	ok(exact(b.data, b.len, NULL, 1) == (int)ng && tiles(b.len, NULL) &&
	    prev == 1 + 60 * 3 + 3, "markdown: parts exact, no gaps");

	/* No blank lines at all: cut at lines. */
	ofl_buf_reset(&b);
	ofl_buf_adds(&b, "# Dense\n");
	for (i = 0; i < 400; i++)
		ofl_buf_addf(&b, "line %d of a section without blank lines\n",
		    i);
	rv = run(b.data, b.len, OFL_KIND_MARKDOWN);
	ok(rv == 0 && ng >= 2 && title_at("Dense") == 0 &&
	    strcmp(gv[ng - 1].title, "Dense") == 0 &&
	    exact(b.data, b.len, NULL, 1) == (int)ng && tiles(b.len, NULL),
	    "markdown: dense section cut at lines (%zu parts)", ng);
	ofl_buf_free(&b);
}

/*
 * Logs and text.
 */

static void
test_log(void)
{
	struct ofl_buf	 b;
	uint64_t	 pyl, pye, jl, je, gl, ge, rl, re;
	int		 i, crlf, rv, k;
	const char	*nl;

	ofl_buf_init(&b);
	for (crlf = 0; crlf < 2; crlf++) {
		nl = crlf ? "\r\n" : "\n";
		ofl_buf_reset(&b);
		for (i = 1; i <= 30; i++)
			ofl_buf_addf(&b, "2024-05-01 10:00:%02d INFO worker: "
			    "handled request %d in 12 ms%s", i, i, nl);
		pyl = 31;
		ofl_buf_addf(&b, "2024-05-01 10:00:31 ERROR worker: failed%s"
		    "Traceback (most recent call last):%s"
		    "  File \"/srv/app.py\", line 10, in <module>%s"
		    "    main()%s"
		    "  File \"/srv/app.py\", line 7, in main%s"
		    "    parse(data)%s"
		    "  File \"/srv/parse.py\", line 3, in parse%s"
		    "    raise ValueError(\"bad value\")%s"
		    "ValueError: bad value%s", nl, nl, nl, nl, nl, nl, nl, nl,
		    nl);
		pye = 39;
		for (i = 40; i <= 47; i++)
			ofl_buf_addf(&b, "2024-05-01 10:00:%02d INFO worker: "
			    "handled request %d in 9 ms%s", i, i, nl);
		jl = 48;
		ofl_buf_addf(&b, "Exception in thread \"main\" "
		    "java.lang.IllegalStateException: boom%s", nl);
		for (i = 0; i < 12; i++)
			ofl_buf_addf(&b, "\tat com.example.Service.method%d"
			    "(Service.java:%d)%s", i, 100 + i, nl);
		ofl_buf_addf(&b, "Caused by: java.io.IOException: disk full%s"
		    "\tat com.example.Disk.write(Disk.java:42)%s"
		    "\t... 12 more%s", nl, nl, nl);
		je = 48 + 12 + 3;
		for (i = 0; i < 5; i++)
			ofl_buf_addf(&b, "2024-05-01 10:01:%02d INFO worker: "
			    "recovered %d%s", i, i, nl);
		gl = je + 6;
		ofl_buf_addf(&b, "panic: runtime error: index out of range "
		    "[5] with length 3%s%s"
		    "goroutine 1 [running]:%s"
		    "main.lookup(...)%s"
		    "\t/src/main.go:12%s"
		    "main.main()%s"
		    "\t/src/main.go:20 +0x1d%s%s"
		    "goroutine 7 [chan receive]:%s"
		    "main.worker(0xc000012345)%s"
		    "\t/src/main.go:31 +0x45%s"
		    "created by main.main in goroutine 1%s"
		    "\t/src/main.go:18 +0x2a%s"
		    "exit status 2%s", nl, nl, nl, nl, nl, nl, nl, nl, nl, nl,
		    nl, nl, nl, nl);
		ge = gl + 13;
		rl = ge + 1;
		ofl_buf_addf(&b, "thread 'main' panicked at src/main.rs:4:5:%s"
		    "called `Option::unwrap()` on a `None` value%s"
		    "stack backtrace:%s"
		    "   0: rust_begin_unwind%s"
		    "             at /rustc/library/std/src/panicking.rs:597:5%s"
		    "   1: app::main%s"
		    "             at ./src/main.rs:4:5%s"
		    "note: Some details are omitted.%s", nl, nl, nl, nl, nl, nl,
		    nl, nl);
		re = rl + 7;
		for (i = 0; i < 50; i++)
			ofl_buf_addf(&b, "2024-05-01 10:02:%02d INFO worker: "
			    "steady %d%s", i, i, nl);

		rv = run(b.data, b.len, OFL_KIND_LOG);
		ok(rv == 0 && exact(b.data, b.len, NULL, 1) == (int)ng &&
		    tiles(b.len, NULL), "log%s: exact, no gaps (%zu chunks)",
		    crlf ? " (CRLF)" : "", ng);
		ok(covers(pyl + 1, pye), "log%s: Python traceback whole",
		    crlf ? " (CRLF)" : "");
		ok(covers(jl, je), "log%s: Java stack trace whole",
		    crlf ? " (CRLF)" : "");
		ok(covers(gl, ge), "log%s: Go panic whole",
		    crlf ? " (CRLF)" : "");
		ok(covers(rl, re), "log%s: Rust panic whole",
		    crlf ? " (CRLF)" : "");
		k = title_at("ValueError: bad value");
		ok(k >= 0 && gv[k].ls <= pyl + 1 && gv[k].le >= pye,
		    "log%s: traceback's chunk titled by its exception",
		    crlf ? " (CRLF)" : "");
		k = title_at("Exception in thread \"main\" "
		    "java.lang.IllegalStateException: boom");
		ok(k >= 0 && gv[k].ls <= jl, "log%s: Java chunk titled",
		    crlf ? " (CRLF)" : "");
		ok(title_at("panic: runtime error: index out of range [5] "
		    "with length 3") >= 0 && title_at("thread 'main' panicked "
		    "at src/main.rs:4:5:") >= 0, "log%s: panics titled",
		    crlf ? " (CRLF)" : "");
		ok(strcmp(gv[0].title, "") == 0 &&
		    strcmp(gv[ng - 1].title, "") == 0,
		    "log%s: plain windows have no title",
		    crlf ? " (CRLF)" : "");
		for (i = 0, k = 0; i < (int)ng; i++)
			if (gv[i].len > 4096)
				k++;
		ok(k == 0, "log%s: windows stay small",
		    crlf ? " (CRLF)" : "");
		if (k != 0 || !covers(pyl + 1, pye))
			dump();
	}

	/* A traceback behind a log prefix; a long line; no final newline. */
	ofl_buf_reset(&b);
	for (i = 0; i < 25; i++)
		ofl_buf_addf(&b, "[task 2025-02-13T11:46:%02d.598Z] 11:46:25"
		    "     INFO - step %d\n", i, i);
	ofl_buf_adds(&b,
	    "[task 2025-02-13T11:46:30.000Z] 11:46:30     INFO -  "
	    "Traceback (most recent call last):\n"
	    "[task 2025-02-13T11:46:30.000Z] 11:46:30     INFO -    "
	    "File \"run.py\", line 2, in <module>\n"
	    "[task 2025-02-13T11:46:30.000Z] 11:46:30     INFO -      x()\n"
	    "[task 2025-02-13T11:46:30.000Z] 11:46:30     INFO -  "
	    "KeyError: 'missing'\n");
	for (i = 0; i < 6000; i++)
		ofl_buf_addc(&b, "abcdefgh "[i % 9]);
	ofl_buf_adds(&b, "\nlast line without newline");
	rv = run(b.data, b.len, OFL_KIND_LOG);
	ok(rv == 0 && exact(b.data, b.len, NULL, 1) == (int)ng &&
	    tiles(b.len, NULL) && covers(26, 29) &&
	    title_at("KeyError: 'missing'") >= 0,
	    "log: prefixed traceback whole and titled");
	ok(ng > 0 && gv[ng - 1].le == 31, "log: unterminated last line "
	    "counts");
	ofl_buf_free(&b);
}

/* Plain text: windows prefer paragraph starts. */
static void
test_text(void)
{
	struct ofl_buf	 b;
	size_t		 i;
	int		 rv, bad = 0;

	ofl_buf_init(&b);
	for (i = 0; i < 40; i++)
		ofl_buf_addf(&b, "Paragraph %zu, first line of prose here.\n"
		    "Second line of the same paragraph, a bit longer.\n"
		    "Third line.\n\n", i);
	rv = run(b.data, b.len, OFL_KIND_TEXT);
	for (i = 1; i < ng; i++)
		if (strncmp(gv[i].text, "Paragraph", 9) != 0)
			bad++;
	ok(rv == 0 && ng > 2 && bad == 0 && exact(b.data, b.len, NULL, 1) ==
	    (int)ng && tiles(b.len, NULL),
	    "text: windows start at paragraphs (%zu chunks, %d bad)", ng, bad);
	ofl_buf_free(&b);
}

/*
 * JSON: titles are jq filters whose output is the chunk.
 */

static int	jq_errors;

static void
jq_quiet(void *arg, jv msg)
{
	jq_errors++;
	jv_free(msg);
}

/* Run filter on doc; returns the first output or an invalid jv. */
static jv
jq_run(const char *filter, jv doc)
{
	jq_state	*jq;
	jv		 out;

	if ((jq = jq_init()) == NULL) {
		jv_free(doc);
		return jv_invalid();
	}
	jq_set_error_cb(jq, jq_quiet, NULL);
	if (!jq_compile(jq, filter)) {
		jq_teardown(&jq);
		jv_free(doc);
		return jv_invalid();
	}
	jq_start(jq, doc, 0);
	out = jq_next(jq);
	jq_teardown(&jq);
	return out;
}

/*
 * Every chunk of a single JSON document: its title, run by jq on the
 * document, gives what the chunk's text holds.  Returns the number of
 * chunks that failed; parts of a cut leaf are counted in *parts.
 */
static int
json_check(const char *buf, size_t n, int *parts)
{
	struct ofl_buf	 w, f;
	jv		 doc, want, have, it;
	size_t		 i, tl;
	const char	*t, *bar;
	int		 bad = 0, iter;

	ofl_buf_init(&w);
	ofl_buf_init(&f);
	*parts = 0;
	doc = jv_parse_sized(buf, (int)n);
	if (!jv_is_valid(doc)) {
		jv_free(doc);
		return -1;
	}
	for (i = 0; i < ng; i++) {
		t = gv[i].title;
		tl = strlen(t);
		if ((i > 0 && strcmp(gv[i - 1].title, t) == 0) ||
		    (i + 1 < ng && strcmp(gv[i + 1].title, t) == 0)) {
			(*parts)++;
			continue;
		}
		ofl_buf_reset(&w);
		ofl_buf_reset(&f);
		ofl_buf_adds(&f, t);
		bar = strstr(t, " | ");
		if (strcmp(t, ".") == 0)
			ofl_buf_add(&w, gv[i].text, gv[i].len);
		else if (strstr(t, "to_entries[") != NULL) {
			ofl_buf_addc(&w, '{');
			ofl_buf_add(&w, gv[i].text, gv[i].len);
			ofl_buf_addc(&w, '}');
			ofl_buf_adds(&f, " | from_entries");
		} else if (t[tl - 1] == '}' && (t[0] == '{' || bar != NULL)) {
			ofl_buf_addc(&w, '{');
			ofl_buf_add(&w, gv[i].text, gv[i].len);
			ofl_buf_addc(&w, '}');
		} else if (t[tl - 1] == ']' && strrchr(t, ':') != NULL &&
		    strrchr(t, ':') > strrchr(t, '[')) {
			ofl_buf_addc(&w, '[');
			ofl_buf_add(&w, gv[i].text, gv[i].len);
			ofl_buf_addc(&w, ']');
		} else if (t[tl - 1] == ']')
			ofl_buf_add(&w, gv[i].text, gv[i].len);
		else {
			/* ".a.b": the text is "b": value. */
			ofl_buf_addc(&w, '{');
			ofl_buf_add(&w, gv[i].text, gv[i].len);
			ofl_buf_addc(&w, '}');
			ofl_buf_reset(&f);
			ofl_buf_adds(&f, "{\"k\": (");
			ofl_buf_adds(&f, t);
			ofl_buf_adds(&f, ")} | .k");
		}
		have = jv_parse_sized(w.data, (int)w.len);
		if (jv_is_valid(have) && jv_get_kind(have) == JV_KIND_OBJECT &&
		    strstr(ofl_buf_str(&f), "{\"k\": (") == f.data) {
			iter = jv_object_iter(have);
			it = jv_object_iter_valid(have, iter) ?
			    jv_object_iter_value(have, iter) :
			    jv_invalid();
			jv_free(have);
			have = it;
			ofl_buf_reset(&f);
			ofl_buf_adds(&f, t);
		}
		want = jq_run(ofl_buf_str(&f), jv_copy(doc));
		if (!jv_is_valid(have) || !jv_is_valid(want) ||
		    !jv_equal(jv_copy(have), jv_copy(want))) {
			if (bad < 3)
				printf("# jq check failed for '%s' "
				    "(lines %llu-%llu)\n", t,
				    (unsigned long long)gv[i].ls,
				    (unsigned long long)gv[i].le);
			bad++;
		}
		jv_free(have);
		jv_free(want);
	}
	jv_free(doc);
	ofl_buf_free(&w);
	ofl_buf_free(&f);
	return bad;
}

static void
test_json(void)
{
	struct ofl_buf	 b;
	int		 i, rv, parts, k;

	ofl_buf_init(&b);
	ofl_buf_adds(&b, "{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n");
	for (i = 0; i < 40; i++)
		ofl_buf_addf(&b, "    {\"metadata\": {\"name\": \"pod-%d\", "
		    "\"namespace\": \"default\"}, \"status\": {\"phase\": "
		    "\"%s\", \"restarts\": %d}}%s\n", i,
		    i == 17 ? "CrashLoopBackOff" : "Running", i % 3,
		    i < 39 ? "," : "");
	ofl_buf_adds(&b, "  ],\n  \"big\": {\n");
	for (i = 0; i < 60; i++)
		ofl_buf_addf(&b, "    \"key-%d\": \"value number %d of a big "
		    "object%0300d\",\n", i, i, i);
	for (i = 0; i < 20; i++)
		ofl_buf_addf(&b, "    \"k%d\": %d,\n", i, i);
	ofl_buf_adds(&b, "    \"and\": [1, 2, 3],\n    \"x\": \"");
	for (i = 0; i < 12000; i++)
		ofl_buf_addc(&b, 'a' + i % 26);
	ofl_buf_adds(&b, "\"\n  },\n  \"kind\": \"List\"\n}\n");

	rv = run(b.data, b.len, OFL_KIND_JSON);
	ok(rv == 0 && ng > 5, "json: chunked (%zu chunks)", ng);
	ok(exact(b.data, b.len, NULL, 1) == (int)ng, "json: exact ranges");
	is_str(ng > 0 ? gv[0].title : "", ".apiVersion",
	    "json: small member before a big one");
	ok(title_at(".items[0:18]") == 1 && title_at(".items[18:36]") == 2 &&
	    title_at(".items[36:40]") == 3,
	    "json: array elements grouped as slices");
	k = -1;
	for (i = 0; i < (int)ng; i++)
		if (strstr(gv[i].text, "CrashLoopBackOff") != NULL)
			k = i;
	ok(k >= 0 && strncmp(gv[k].title, ".items[", 7) == 0 &&
	    gv[k].ls <= 21 && gv[k].le >= 21,
	    "json: a hit inside .items has its slice and line (%s)",
	    k >= 0 ? gv[k].title : "none");
	ok(title_at(".big | {\"key-0\", \"key-1\", \"key-2\", \"key-3\", "
	    "\"key-4\"}") == 4, "json: object members grouped under a jq "
	    "filter");
	ok(title_at(".big | to_entries[55:81]") == 15, "json: too many keys: "
	    "a to_entries slice");
	ok(title_at(".kind") == (int)ng - 1, "json: last member");
	for (i = 0, k = 0; i < (int)ng; i++)
		if (strcmp(gv[i].title, ".big.x") == 0)
			k++;
	ok(k >= 2, "json: a long string is cut into parts (%d)", k);
	k = json_check(b.data, b.len, &parts);
	ok(k == 0, "json: every title, run by jq, gives its chunk "
	    "(%d bad, %d parts skipped)", k, parts);
	if (k != 0)
		dump();

	/* Small documents and scalars are one chunk titled ".". */
	rv = run("[1, 2, 3]\n", 10, OFL_KIND_JSON);
	ok(rv == 0 && ng == 1 && strcmp(gv[0].title, ".") == 0 &&
	    gv[0].bs == 0 && gv[0].be == 9, "json: small document whole");
	rv = run("\"just a string\"", 15, OFL_KIND_JSON);
	ok(rv == 0 && ng == 1 && strcmp(gv[0].title, ".") == 0,
	    "json: a scalar document");

	/* A root array of objects; keys that jq must quote. */
	ofl_buf_reset(&b);
	ofl_buf_adds(&b, "[");
	for (i = 0; i < 30; i++)
		ofl_buf_addf(&b, "%s{\"if\": %d, \"a b\": \"%0100d\", "
		    "\"ok_1\": true}", i ? "," : "", i, i);
	ofl_buf_adds(&b, "]");
	rv = run(b.data, b.len, OFL_KIND_JSON);
	ok(rv == 0 && ng > 1 && strncmp(gv[0].title, ".[0:", 4) == 0,
	    "json: root array sliced as .[a:b] (%s)", ng ? gv[0].title : "");
	k = json_check(b.data, b.len, &parts);
	ok(k == 0 && exact(b.data, b.len, NULL, 1) == (int)ng,
	    "json: root array titles check with jq");

	/* Cut short: what parsed is kept, the rest is chunked as text. */
	ofl_buf_reset(&b);
	ofl_buf_adds(&b, "{\"items\": [\n");
	for (i = 0; i < 50; i++)
		ofl_buf_addf(&b, "  {\"id\": %d, \"text\": \"some words to fill "
		    "the record up a little\"},\n", i);
	ofl_buf_adds(&b, "  {\"id\": 50, \"te");
	rv = run(b.data, b.len, OFL_KIND_JSON);
	ok(rv == 0 && ng > 1 && exact(b.data, b.len, NULL, 1) == (int)ng &&
	    gv[ng - 1].be == b.len && strncmp(gv[0].title, ".items[", 7) == 0,
	    "json: truncated document: parsed part, then text to the end");

	/* NDJSON: whole records grouped by lines. */
	ofl_buf_reset(&b);
	for (i = 0; i < 100; i++)
		ofl_buf_addf(&b, "{\"Action\":\"%s\",\"Test\":\"Test%d\","
		    "\"Output\":\"--- line of output %d\\n\"}\n",
		    i == 50 ? "fail" : "pass", i, i);
	rv = run(b.data, b.len, OFL_KIND_NDJSON);
	ok(rv == 0 && ng > 2 && strncmp(gv[0].title, "lines 1-", 8) == 0 &&
	    exact(b.data, b.len, NULL, 1) == (int)ng && tiles(b.len, NULL),
	    "ndjson: records grouped, titled by lines (%s)",
	    ng ? gv[0].title : "");
	ofl_buf_free(&b);
}

/*
 * Diffs.
 */

static const char diff_doc[] =
    "diff --git a/src/main.c b/src/main.c\n"
    "index 1111111..2222222 100644\n"
    "--- a/src/main.c\n"
    "+++ b/src/main.c\n"
    "@@ -1,4 +1,5 @@ int main(void)\n"
    " #include <stdio.h>\n"
    "+#include <stdlib.h>\n"
    " \n"
    "--- a removed line that looks like a header\n"
    "+++ an added line that looks like a header\n"
    "@@ -20,3 +21,3 @@ static int helper(int x)\n"
    " \treturn 0;\n"
    "-\tx++;\n"
    "+\tx--;\n"
    " }\n"
    "diff --git a/old name.txt b/new name.txt\n"
    "similarity index 100%\n"
    "rename from old name.txt\n"
    "rename to new name.txt\n"
    "diff --git a/docs/README.md b/docs/README.md\n"
    "new file mode 100644\n"
    "--- /dev/null\n"
    "+++ b/docs/README.md\n"
    "@@ -0,0 +1,2 @@\n"
    "+# Title\n"
    "+text\n"
    "\\ No newline at end of file\n";

static void
test_diff(void)
{
	int	rv;

	rv = run(diff_doc, sizeof diff_doc - 1, OFL_KIND_DIFF);
	ok(rv == 0 && ng == 4, "diff: a chunk per hunk and per hunkless "
	    "file (%zu)", ng);
	if (ng != 4) {
		dump();
		return;
	}
	is_str(gv[0].title, "src/main.c @@ -1,4 +1,5 @@ int main(void)",
	    "diff: first hunk titled, header lines with it");
	ok(gv[0].ls == 1 && gv[0].le == 10, "diff: hunk ends by its counts, "
	    "not at '--- '/'+++ ' lines");
	is_str(gv[1].title, "src/main.c @@ -20,3 +21,3 @@ static int "
	    "helper(int x)", "diff: second hunk");
	is_str(gv[2].title, "new name.txt", "diff: a rename is titled by "
	    "its new path");
	is_str(gv[3].title, "docs/README.md @@ -0,0 +1,2 @@",
	    "diff: new file, '\\ No newline' kept in its hunk");
	ok(exact(diff_doc, sizeof diff_doc - 1, NULL, 1) == 4 &&
	    tiles(sizeof diff_doc - 1, NULL), "diff: exact, no gaps");
}

/*
 * CSV and TSV.
 */

static void
test_csv(void)
{
	struct ofl_buf	 b;
	size_t		 i;
	int		 rv, bad = 0;

	ofl_buf_init(&b);
	ofl_buf_adds(&b, "id,name,comment\r\n");
	for (i = 1; i <= 120; i++) {
		if (i == 60)
			ofl_buf_adds(&b, "60,\"multi\",\"a quoted field\n"
			    "over two lines\"\r\n");
		else
			ofl_buf_addf(&b, "%zu,name%zu,plain comment\r\n", i,
			    i);
	}
	rv = run(b.data, b.len, OFL_KIND_CSV);
	ok(rv == 0 && ng == 3, "csv: row groups (%zu)", ng);
	for (i = 0; i < ng; i++)
		if (strncmp(gv[i].text, "id,name,comment\r\n", 17) != 0 ||
		    gv[i].len - 17 != gv[i].be - gv[i].bs ||
		    memcmp(gv[i].text + 17, b.data + gv[i].bs, gv[i].len - 17))
			bad++;
	ok(bad == 0, "csv: each text is the header then the raw rows");
	if (ng == 3) {
		is_str(gv[0].title, "rows 1-50", "csv: first group");
		is_str(gv[1].title, "rows 51-100", "csv: second group");
		is_str(gv[2].title, "rows 101-120", "csv: last group");
		ok(gv[0].ls == 2 && gv[0].bs == 17 && gv[1].ls == 52 &&
		    gv[1].le == 102 && gv[2].ls == 103 && gv[2].le == 122 &&
		    gv[2].be == b.len, "csv: ranges are the rows', a quoted "
		    "newline keeps its record whole");
	}
	ok(exact(b.data, b.len, NULL, 0) == (int)ng,
	    "csv: exact lines; the header is in no range");

	ofl_buf_reset(&b);
	ofl_buf_adds(&b, "a\tb\n");
	for (i = 0; i < 30; i++)
		ofl_buf_addf(&b, "%zu\t\"%zu\n", i, i);
	rv = run(b.data, b.len, OFL_KIND_TSV);
	ok(rv == 0 && ng == 1 && strcmp(gv[0].title, "rows 1-30") == 0 &&
	    gv[0].le == 31, "tsv: quotes are not special");
	rv = run("only,a,header\n", 14, OFL_KIND_CSV);
	ok(rv == 0 && ng == 1 && strcmp(gv[0].title, "header") == 0,
	    "csv: a lone header is a chunk");
	ofl_buf_free(&b);
}

/*
 * HTML.
 */

static const char html_doc[] =
    "<!DOCTYPE html>\n"
    "<html><head><title>The  Guide</title>\n"
    "<style>h1 { color: red } .secret_css_rule {}</style>\n"
    "<script>var secret_js_token = \"<h1>not a heading</h1>\";</script>\n"
    "</head><body>\n"
    "<p>Intro &amp; welcome &lt;here&gt; &#x41;&#66; caf&eacute; &bogus;"
    "</p>\n"
    "<!-- a comment with <h2>no heading</h2> -->\n"
    "<h1 id=\"install\">Install</h1>\n"
    "<p>Get it <a href=\"x\">now</a>.</p>\n"
    "<h2>From &quot;source&quot;</h2>\n"
    "<pre>make\n"
    "make install</pre>\n"
    "<h1>Usage</h1><p>Run it.</p>\n"
    "</body></html>\n";

static void
test_html(void)
{
	size_t	i;
	int	rv, leak = 0;

	rv = run(html_doc, sizeof html_doc - 1, OFL_KIND_HTML);
	ok(rv == 0 && ng == 4, "html: a chunk per section (%zu)", ng);
	for (i = 0; i < ng; i++)
		if (strstr(gv[i].text, "secret") != NULL ||
		    strstr(gv[i].text, "<p") != NULL ||
		    strstr(gv[i].text, "<h1") != NULL ||
		    strstr(gv[i].text, "<a") != NULL ||
		    strstr(gv[i].text, "DOCTYPE") != NULL ||
		    strstr(gv[i].text, "no heading") != NULL)
			leak++;
	ok(leak == 0, "html: no tags, scripts, styles or comments in text");
	if (ng != 4) {
		dump();
		return;
	}
	is_str(gv[0].title, "The Guide", "html: <title> before any heading");
	is_str(gv[0].text, "Intro & welcome <here> AB caf\xc3\xa9 &bogus;",
	    "html: entities decoded (unknown ones kept)");
	is_str(gv[1].title, "Install", "html: h1");
	is_str(gv[2].title, "Install > From \"source\"", "html: h2 path");
	is_str(gv[2].text, "From \"source\"\nmake\nmake install",
	    "html: section text, <pre> keeps its lines");
	is_str(gv[3].title, "Usage", "html: next h1");
	ok(gv[1].ls == 8 && gv[1].le == 9 && gv[2].ls == 10 &&
	    gv[2].le == 12 && gv[3].ls == 13 && gv[3].le == 14 &&
	    gv[3].be == sizeof html_doc - 1,
	    "html: line ranges of the source");
	ok(exact(html_doc, sizeof html_doc - 1, NULL, 0) == 4,
	    "html: exact lines");
}

/*
 * Archives, built in memory.
 */

static const char arc_md[] =
    "# Archive doc\n\nSome [link](https://example.com) text.\n\n"
    "## Part two\n\n```\n# code\n```\n\n- a list\n- more\n";
static const char arc_log[] =
    "2024-05-01 10:00:00 INFO start\n"
    "2024-05-01 10:00:01 ERROR crash\n"
    "Traceback (most recent call last):\n"
    "  File \"a.py\", line 1, in <module>\n"
    "ZeroDivisionError: division by zero\n"
    "2024-05-01 10:00:02 INFO done\n";

static size_t
build(char *out, size_t cap, int format, int filter, const char **names,
    const char **data, size_t n)
{
	struct archive		*a;
	struct archive_entry	*e;
	size_t			 used = 0, i;

	a = archive_write_new();
	if (filter == 1)
		archive_write_add_filter_gzip(a);
	if (format == 0)
		archive_write_set_format_pax_restricted(a);
	else if (format == 1)
		archive_write_set_format_zip(a);
	else
		archive_write_set_format_raw(a);
	if (archive_write_open_memory(a, out, cap, &used) != ARCHIVE_OK) {
		printf("# archive: %s\n", archive_error_string(a));
		archive_write_free(a);
		return 0;
	}
	for (i = 0; i < n; i++) {
		e = archive_entry_new();
		archive_entry_set_pathname(e, names[i]);
		archive_entry_set_size(e, (la_int64_t)strlen(data[i]));
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_write_header(a, e);
		archive_write_data(a, data[i], strlen(data[i]));
		archive_entry_free(e);
	}
	archive_write_close(a);
	archive_write_free(a);
	return used;
}

static void
test_archive(void)
{
	const char	*names[6] = { "docs/guide.md", "logs/app.log", "c", "d",
			    "e", "f" };
	const char	*data[6] = { arc_md, arc_log, "x", "y", "z", "w" };
	static char	 out[1 << 20];
	char		*big;
	size_t		 n, i;
	int		 rv, md = 0, lg = 0;

	n = build(out, sizeof out, 0, 1, names, data, 2);
	rv = run(out, n, OFL_KIND_ARCHIVE);
	for (i = 0; i < ng; i++) {
		if (gv[i].member != NULL && strcmp(gv[i].member,
		    "docs/guide.md") == 0)
			md++;
		else if (gv[i].member != NULL && strcmp(gv[i].member,
		    "logs/app.log") == 0)
			lg++;
	}
	ok(rv == 0 && md == 2 && lg == 1, "tar.gz: two members chunked "
	    "(%d + %d)", md, lg);
	if (md == 2 && lg == 1) {
		is_str(gv[0].title, "Archive doc", "tar.gz: markdown member "
		    "chunked as Markdown");
		is_str(gv[1].title, "Archive doc > Part two",
		    "tar.gz: heading path in the member");
		is_str(gv[2].title, "ZeroDivisionError: division by zero",
		    "tar.gz: log member chunked as a log");
	}
	ok(exact(arc_md, strlen(arc_md), "docs/guide.md", 1) == md &&
	    tiles(strlen(arc_md), "docs/guide.md") &&
	    exact(arc_log, strlen(arc_log), "logs/app.log", 1) == lg &&
	    tiles(strlen(arc_log), "logs/app.log"),
	    "tar.gz: ranges relative to each member, exact");

	n = build(out, sizeof out, 1, 0, names, data, 2);
	rv = run(out, n, OFL_KIND_ARCHIVE);
	ok(rv == 0 && ng == 3 && gv[0].member != NULL &&
	    strcmp(gv[0].member, "docs/guide.md") == 0 &&
	    exact(arc_log, strlen(arc_log), "logs/app.log", 1) == 1,
	    "zip: members chunked");

	n = build(out, sizeof out, 2, 1, names + 1, data + 1, 1);
	rv = run(out, n, OFL_KIND_COMPRESSED);
	ok(rv == 0 && ng == 1 && gv[0].member != NULL &&
	    strcmp(gv[0].member, "data") == 0 &&
	    exact(arc_log, strlen(arc_log), "data", 1) == 1,
	    "gzip stream: one member named data");

	/* Limits: members, then decompressed bytes. */
	n = build(out, sizeof out, 0, 1, names, data, 6);
	ofl_chunk_limits(0, 3);
	rv = run(out, n, OFL_KIND_ARCHIVE);
	ok(rv == -1 && strstr(ofl_errmsg(), "members") != NULL,
	    "archive: member limit stops it (%s)", ofl_errmsg());
	big = calloc(1, 4 << 20);
	memset(big, 'a', (4 << 20) - 1);
	data[2] = big;
	n = build(out, sizeof out, 0, 1, names + 2, data + 2, 1);
	ofl_chunk_limits(1 << 20, 0);
	rv = run(out, n, OFL_KIND_ARCHIVE);
	ok(n > 0 && n < 100000 && rv == -1 &&
	    strstr(ofl_errmsg(), "bomb") != NULL,
	    "archive: a bomb is stopped (%zu bytes: %s)", n, ofl_errmsg());
	ofl_chunk_limits(0, 0);
	free(big);
	/* Cut short: what could be read is chunked, and no error. */
	big = calloc(1, 300000);
	for (i = 0; i < 299999; i++)
		big[i] = i % 61 == 60 ? '\n' : "abcdefghij0123456789 "[i % 21];
	data[2] = big;
	n = build(out, sizeof out, 0, 1, names + 1, data + 1, 2);
	rv = run(out, n - n / 4, OFL_KIND_ARCHIVE);
	ok(rv == 0 && ng >= 1 && gv[0].member != NULL &&
	    strcmp(gv[0].member, "logs/app.log") == 0 &&
	    exact(big, 299999, "c", 1) == (int)ng - 1,
	    "archive: truncated: what was read is chunked, exactly (%zu)", ng);
	free(big);
	rv = run("not an archive at all", 21, OFL_KIND_ARCHIVE);
	ok(rv == 0 || rv == -1, "archive: junk does not crash (%d)", rv);
}

/*
 * Odds and ends.
 */

static void
test_misc(void)
{
	char	buf[256];
	int	rv, i;

	rv = run("", 0, OFL_KIND_EMPTY);
	ok(rv == 0 && ng == 0, "empty: no chunks");
	for (i = 0; i < 256; i++)
		buf[i] = (char)i;
	rv = run(buf, sizeof buf, OFL_KIND_BINARY);
	ok(rv == 0 && ng == 0, "binary: no chunks");
	rv = run("a\nb\n", 4, 999);
	ok(rv == -1 && ofl_errcode() == OFL_EXIT_USAGE, "bad kind refused");
	stop_after = 1;
	rv = run(md_doc, sizeof md_doc - 1, OFL_KIND_MARKDOWN);
	stop_after = -1;
	ok(rv == 7 && ng == 1, "callback's non-zero return stops and is "
	    "returned");
}

/*
 * Golden files: tests/data/chunk/NAME.EXT, expected in NAME.EXT.chunks
 * as "lines L1-L2 bytes B1-B2 [member] title" per chunk.
 */

static int
golden_kind(const char *name)
{
	static const struct {
		const char	*ext;
		int		 kind;
	} map[] = {
		{ ".md", OFL_KIND_MARKDOWN }, { ".log", OFL_KIND_LOG },
		{ ".txt", OFL_KIND_TEXT }, { ".json", OFL_KIND_JSON },
		{ ".ndjson", OFL_KIND_NDJSON }, { ".csv", OFL_KIND_CSV },
		{ ".tsv", OFL_KIND_TSV }, { ".html", OFL_KIND_HTML },
		{ ".diff", OFL_KIND_DIFF }, { NULL, 0 }
	};
	size_t	i, n = strlen(name), k;

	for (i = 0; map[i].ext != NULL; i++) {
		k = strlen(map[i].ext);
		if (n > k && strcmp(name + n - k, map[i].ext) == 0)
			return map[i].kind;
	}
	return -1;
}

static void
test_golden(const char *srcdir)
{
	struct ofl_buf	 b, path;
	struct dirent	*de;
	DIR		*d;
	char		*in, *want;
	size_t		 n, wn, i;
	int		 kind, regen, rv, count = 0;
	FILE		*f;

	ofl_buf_init(&b);
	ofl_buf_init(&path);
	regen = getenv("OFL_CHUNK_REGEN") != NULL;
	ofl_buf_addf(&path, "%s/tests/data/chunk", srcdir);
	if ((d = opendir(ofl_buf_str(&path))) == NULL) {
		ok(1, "# SKIP golden: no %s", path.data);
		ofl_buf_free(&path);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if ((kind = golden_kind(de->d_name)) < 0)
			continue;
		ofl_buf_reset(&path);
		ofl_buf_addf(&path, "%s/tests/data/chunk/%s", srcdir,
		    de->d_name);
		if ((in = slurp(ofl_buf_str(&path), &n)) == NULL)
			continue;
		rv = run(in, n, kind);
		ofl_buf_reset(&b);
		for (i = 0; i < ng; i++)
			ofl_buf_addf(&b, "lines %llu-%llu bytes %llu-%llu %s%s"
			    "%s\n", (unsigned long long)gv[i].ls,
			    (unsigned long long)gv[i].le,
			    (unsigned long long)gv[i].bs,
			    (unsigned long long)gv[i].be,
			    gv[i].member ? gv[i].member : "",
			    gv[i].member ? " " : "", gv[i].title);
		ofl_buf_adds(&path, ".chunks");
		ofl_buf_str(&path);
		if (regen && (f = fopen(path.data, "w")) != NULL) {
			fwrite(b.data, 1, b.len, f);
			fclose(f);
			chmod(path.data, 0644);
		}
		want = slurp(path.data, &wn);
		ok(rv == 0 && want != NULL && wn == b.len &&
		    memcmp(want, b.data, wn) == 0, "golden: %s", de->d_name);
		if (want == NULL || wn != b.len || memcmp(want, b.data, wn))
			printf("# got:\n%s", ofl_buf_str(&b));
		ok(exact(in, n, NULL, kind != OFL_KIND_CSV &&
		    kind != OFL_KIND_TSV && kind != OFL_KIND_HTML) == (int)ng,
		    "golden: %s: exact ranges", de->d_name);
		free(want);
		free(in);
		count++;
	}
	closedir(d);
	ok(count > 0, "golden: %d files", count);
	ofl_buf_free(&b);
	ofl_buf_free(&path);
}

/*
 * The corpus: coverage and speed.
 */

/* Every ATX heading outside fences is a title, on its own line. */
static int
md_headings_ok(const char *buf, size_t n, int *nh)
{
	const char	*p = buf, *e = buf + n, *q, *t;
	size_t		 i, tl, len;
	uint64_t	 line = 1;
	int		 fence = 0, missing = 0, found;

	*nh = 0;
	for (; p < e; p = q + 1, line++) {
		if ((q = memchr(p, '\n', (size_t)(e - p))) == NULL)
			q = e;
		len = (size_t)(q - p);
		if (len >= 3 && (memcmp(p, "```", 3) == 0 ||
		    memcmp(p, "~~~", 3) == 0)) {
			fence = !fence;
			continue;
		}
		if (fence || len < 2 || p[0] != '#')
			continue;
		for (t = p; t < q && *t == '#'; t++)
			;
		if (t == q || *t != ' ')
			continue;
		while (t < q && *t == ' ')
			t++;
		tl = (size_t)(q - t);
		while (tl > 0 && (t[tl - 1] == ' ' || t[tl - 1] == '\r'))
			tl--;
		(*nh)++;
		found = 0;
		for (i = 0; i < ng && !found; i++) {
			size_t gl = strlen(gv[i].title);

			if (gv[i].ls == line && gl >= tl &&
			    memcmp(gv[i].title + gl - tl, t, tl) == 0)
				found = 1;
		}
		if (!found) {
			if (missing < 3)
				printf("# heading on line %llu missing\n",
				    (unsigned long long)line);
			missing++;
		}
	}
	return missing == 0;
}

static void
test_corpus(void)
{
	static const struct {
		const char	*file;
		int		 kind;	/* -1: detect */
	} files[] = {
		{ "logs/HDFS_2k.log", OFL_KIND_LOG },
		{ "logs/Apache_2k.log", OFL_KIND_LOG },
		{ "logs/Linux_2k.log", OFL_KIND_LOG },
		{ "logs/OpenSSH_2k.log", OFL_KIND_LOG },
		{ "logs/Spark_2k.log", OFL_KIND_LOG },
		{ "logs/HDFS_2k.log_structured.csv", OFL_KIND_CSV },
		{ "ci/treeherder-taskcluster-timeout.log", OFL_KIND_LOG },
		{ "ci/gotestsum-go-test-json.out", OFL_KIND_NDJSON },
		{ "json/dependabot-github-commits.json", OFL_KIND_JSON },
		{ "json/dependabot-github-releases.json", OFL_KIND_JSON },
		{ "json/dependabot-npm-lodash.json", OFL_KIND_JSON },
		{ "json/holmesgpt-list_prometheus_rules.txt", -1 },
		{ "docs/yt-dlp-README.md", OFL_KIND_MARKDOWN },
		{ "diff/gotestsum-v1.10.0..v1.13.0.diff", OFL_KIND_DIFF },
	};
	struct ofl_reader	*r;
	struct ofl_buf		 path;
	const char		*dir, *src;
	char			*buf, *id;
	size_t			 n, i, maxlen;
	double			 t0, dt, logbytes = 0, logtime = 0;
	int			 kind, rv, reps, k, nh, parts, raw;

	ofl_buf_init(&path);
	if ((dir = getenv("OFL_CORPUS")) == NULL) {
		src = getenv("OFL_SRCDIR");
		ofl_buf_addf(&path, "%s/../shared/corpus", src ? src : "..");
		dir = ofl_buf_str(&path);
	}
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct ofl_buf p;

		ofl_buf_init(&p);
		ofl_buf_addf(&p, "%s/%s", dir, files[i].file);
		buf = slurp(ofl_buf_str(&p), &n);
		ofl_buf_free(&p);
		if (buf == NULL) {
			ok(1, "# SKIP corpus: no %s", files[i].file);
			continue;
		}
		kind = files[i].kind >= 0 ? files[i].kind :
		    (int)ofl_kind_detect((unsigned char *)buf, n, 1);
		rv = run(buf, n, kind);
		raw = kind != OFL_KIND_CSV && kind != OFL_KIND_HTML;
		for (k = 0, maxlen = 0; k < (int)ng; k++)
			if (gv[k].len > maxlen)
				maxlen = gv[k].len;
		k = exact(buf, n, NULL, raw);
		ok(rv == 0 && k == (int)ng && ng > 0,
		    "corpus %s (%s): %zu chunks, exact ranges, largest %zu B",
		    files[i].file, ofl_kind_name(kind), ng, maxlen);
		if (kind != OFL_KIND_JSON && kind != OFL_KIND_CSV)
			ok(tiles(n, NULL), "corpus %s: no gaps, no overlaps",
			    files[i].file);
		if (kind == OFL_KIND_MARKDOWN) {
			ok(md_headings_ok(buf, n, &nh),
			    "corpus %s: all %d headings are titles",
			    files[i].file, nh);
		}
		if (kind == OFL_KIND_JSON && files[i].kind >= 0) {
			k = json_check(buf, n, &parts);
			ok(k == 0, "corpus %s: every jq title gives its chunk "
			    "(%d bad, %d parts of long strings)",
			    files[i].file, k, parts);
		}

		/* Speed: chunking straight from the store. */
		id = put(buf, n);
		reps = (int)(8000000 / n) + 1;
		t0 = now_s();
		for (k = 0; k < reps && id != NULL; k++) {
			clear();
			r = ofl_reader_open(st, id);
			ofl_reader_chunks(r, kind, collect, NULL);
			ofl_reader_close(r);
		}
		dt = now_s() - t0;
		printf("# %s: %zu chunks, %.0f MB/s\n", files[i].file, ng,
		    (double)n * reps / dt / 1e6);
		if (kind == OFL_KIND_LOG) {
			logbytes += (double)n * reps;
			logtime += dt;
		}
		free(id);
		free(buf);
	}
	if (logtime > 0)
		printf("# logs overall: %.0f MB/s\n", logbytes / logtime / 1e6);
	ofl_buf_free(&path);
}

int
main(void)
{
	const char	*src;

	if (mkdtemp(stdir) == NULL) {
		printf("1..0 # SKIP mkdtemp: %s\n", strerror(errno));
		return 0;
	}
	if ((st = ofl_store_open(stdir, OFL_RDWR)) == NULL) {
		printf("Bail out! store: %s\n", ofl_errmsg());
		return 1;
	}
	src = getenv("OFL_SRCDIR");
	test_markdown();
	test_log();
	test_text();
	test_json();
	test_diff();
	test_csv();
	test_html();
	test_archive();
	test_misc();
	test_golden(src != NULL ? src : "..");
	test_corpus();
	clear();
	free(gv);
	ofl_store_close(st);
	{
		char cmd[128];

		snprintf(cmd, sizeof cmd, "rm -rf '%s'", stdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", stdir);
	}
	return done_testing();
}
