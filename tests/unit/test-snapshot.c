/*
 * test-snapshot.c: browser snapshots (fmt-snapshot.c) without a store:
 * the line parser, detection, the owners of a search hit's child line,
 * and the comparison of two snapshots, whose report must name the
 * changed region in little space and ignore refs that were renumbered.
 *
 *	test-snapshot STORE OLD NEW
 *
 * compares two stored artifacts instead and prints the report (1 kB at
 * most): the driver of tests/t6010-snapshot-peer.sh.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "tap.h"
#include "banned.h"

/* A source over bytes in memory. */
struct mem {
	const char	*p;
	size_t		 n;
	size_t		 pos;
};

static uint64_t
mem_bytes(void *arg)
{
	return ((struct mem *)arg)->n;
}

static int
mem_seek(void *arg, uint64_t off)
{
	struct mem	*m = arg;

	if (off > m->n)
		return -1;
	m->pos = (size_t)off;
	return 0;
}

static ssize_t
mem_read(void *arg, void *buf, size_t n)
{
	struct mem	*m = arg;

	if (n > m->n - m->pos)
		n = m->n - m->pos;
	memcpy(buf, m->p + m->pos, n);
	m->pos += n;
	return (ssize_t)n;
}

static uint64_t
mem_tell(void *arg)
{
	return ((struct mem *)arg)->pos;
}

static void
mem_src(struct ofl_src *s, struct mem *m, const char *p, size_t n)
{
	memset(s, 0, sizeof *s);
	m->p = p;
	m->n = n;
	m->pos = 0;
	s->arg = m;
	s->bytes = mem_bytes;
	s->seek = mem_seek;
	s->read = mem_read;
	s->tell = mem_tell;
}

static char *
slurp(const char *path, size_t *lenp)
{
	FILE	*fp;
	char	*p = NULL;
	size_t	 n = 0, cap = 0, k;

	if ((fp = fopen(path, "r")) == NULL)
		return NULL;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 131072;
			p = realloc(p, cap);
		}
		if ((k = fread(p + n, 1, cap - n, fp)) == 0)
			break;
		n += k;
	}
	fclose(fp);
	*lenp = n;
	return p;
}

/* s with every "[ref=e" made "[ref=f1e", as after a navigation. */
static char *
renumber(const char *s, size_t n, size_t *outn)
{
	struct ofl_buf	b;
	size_t		i;

	ofl_buf_init(&b);
	for (i = 0; i < n; i++) {
		if (n - i >= 6 && memcmp(s + i, "[ref=e", 6) == 0) {
			ofl_buf_adds(&b, "[ref=f1e");
			i += 5;
			continue;
		}
		ofl_buf_addc(&b, s[i]);
	}
	*outn = b.len;
	return ofl_buf_str(&b);
}

static char *
diff(const char *a, size_t an, const char *b, size_t bn, size_t budget)
{
	struct ofl_src	sa, sb;
	struct mem	ma, mb;
	struct ofl_buf	out;

	mem_src(&sa, &ma, a, an);
	mem_src(&sb, &mb, b, bn);
	ofl_buf_init(&out);
	if (ofl_fmt_snapshot_diff(&sa, &sb, budget, &out) == -1) {
		ofl_buf_free(&out);
		return NULL;
	}
	return ofl_buf_str(&out);
}

static void
test_parse(void)
{
	struct ofl_fmt_snapshot_el e;
	const char *l1 = "    - link \"Next: \\\"B\\\"\" [ref=e16] [cursor=pointer]:";
	const char *l2 = "  - heading \"Install\" [level=2] [ref=f1e7]";
	const char *l3 = "      - /url: \"#NAME\"";
	const char *l4 = "  uid=1_4 heading \"Usage\" level=\"2\"";

	ok(ofl_fmt_snapshot_parse(l1, strlen(l1), &e) == 1 && e.depth == 4 &&
	    e.rolelen == 4 && memcmp(e.role, "link", 4) == 0 &&
	    e.namelen == 11 && e.reflen == 3 && memcmp(e.ref, "e16", 3) == 0,
	    "a link with an escaped quote in its name");
	ok(ofl_fmt_snapshot_parse(l2, strlen(l2), &e) == 1 && e.level == 2 &&
	    e.reflen == 4, "a heading's level and a renumbered ref");
	ok(ofl_fmt_snapshot_parse(l3, strlen(l3), &e) == 1 && e.prop &&
	    e.ref == NULL && e.valuelen == 5, "a /url: child");
	ok(ofl_fmt_snapshot_parse(l4, strlen(l4), &e) == 1 && e.level == 2 &&
	    e.reflen == 3 && e.namelen == 5, "a Chrome DevTools line");
	ok(ofl_fmt_snapshot_parse("plain words", 11, &e) == 0,
	    "a line of prose is not an element");
}

/* ofl_fmt_snapshot_owners() of line c of the nl lines p. */
static size_t
owners(const char *const *p, size_t nl, size_t c, size_t *own)
{
	size_t	n[16], i;

	for (i = 0; i < nl && i < 16; i++)
		n[i] = strlen(p[i]);
	return ofl_fmt_snapshot_owners(p, n, nl, c, own);
}

static void
test_owners(void)
{
	const char *lines[] = {
		"- list [ref=e1]:",
		"  - listitem [ref=e2]:",
		"    - link [ref=e3]:",
		"      - /url: /next.html",
		"      - text: Next page",
	};
	const char *dl[] = {
		"- generic [ref=e1]:",
		"  - term [ref=e2]:",
		"    - link [ref=e3] [cursor=pointer]:",
		"      - /url: \"#m\"",
		"      - code [ref=e4]: \"-m\"",
		"    - code [ref=e5]: \"--max-bytes\"",
		"  - definition [ref=e6]:",
		"    - paragraph [ref=e7]: Stop at this many bytes.",
		"  - term [ref=e8]: \"-k --keep\"",
		"  - definition [ref=e9]:",
		"    - paragraph [ref=e10]: Keep the input files.",
	};
	const char *nest[] = {
		"- list [ref=e1]:",
		"  - listitem [ref=e2]:",
		"    - link \"splitlines() (bytes method)\" [ref=e3]:",
		"    - list [ref=e4]:",
		"      - listitem [ref=e5]:",
		"        - link \"(str method)\" [ref=e6]:",
		"          - /url: stdtypes.html#str.splitlines",
	};
	const char *row[] = {
		"- table [ref=e1]:",
		"  - row [ref=e2]:",
		"    - cell \"fish_color_host_remote\" [ref=e3]:",
		"      - code [ref=e4]: fish_color_host_remote",
		"    - cell [ref=e5]:",
		"      - text: the host name",
		"      - paragraph [ref=e6]: the host name in remote sessions",
	};
	size_t	own[3], k;

	k = owners(lines, 5, 3, own);
	ok(k == 1 && own[0] == 2, "a /url: line shows its link");
	k = owners(lines, 5, 0, own);
	ok(k == 0, "a list line needs nothing above it");
	k = owners(dl, 11, 5, own);
	ok(k == 1 && own[0] == 2,
	    "a term's code shows the link that heads the term");
	k = owners(dl, 11, 7, own);
	ok(k == 1 && own[0] == 2,
	    "a definition's line shows the head of its term");
	k = owners(dl, 11, 10, own);
	ok(k == 1 && own[0] == 8, "a term with a value is its own head");
	k = owners(dl, 11, 8, own);
	ok(k == 0, "the head of a term needs nothing more");
	k = owners(nest, 7, 5, own);
	ok(k == 1 && own[0] == 2,
	    "an item of a nested list shows the head of the item above");
	k = owners(nest, 7, 2, own);
	ok(k == 0, "an item of the outer list needs nothing above it");
	k = owners(row, 7, 6, own);
	ok(k == 2 && own[1] == 2,
	    "a row's other cell shows the first cell, which names the row");
	k = owners(row, 7, 2, own);
	ok(k == 0, "the first cell needs nothing more");
}

/* What a line brings that is beside it or above it, not inside it. */
static void
test_owners_beside(void)
{
	const char *nav[] = {
		"- cell [ref=e1]:",
		"  - link [ref=e2] [cursor=pointer]:",
		"    - /url: chapter.html",
		"    - img \"Up\" [ref=e3]",
	};
	const char *rows[] = {
		"- row [ref=e1]:",
		"  - rowheader [ref=e2]:",
		"    - link \"Default:\" [ref=e3] [cursor=pointer]:",
		"      - /url: dict.html#Default",
		"  - cell [ref=e4]:",
		"    - code [ref=e5]: Widget off",
	};
	const char *terms[] = {
		"- term [ref=e1]: \"-x <cmd>\"",
		"- term [ref=e2]: \"--exec <cmd>\"",
		"- definition [ref=e3]:",
		"  - paragraph [ref=e4]: Runs the command after each commit.",
	};
	const char *link[] = {
		"- paragraph [ref=e1]:",
		"  - text: Freely available under the terms of the",
		"  - link \"Zork license\" [ref=e2] [cursor=pointer]:",
		"  - text: Nothing follows this sentence.",
		"  - link \"Other\" [ref=e3] [cursor=pointer]:",
	};
	const char *sec[] = {
		"- heading \"frob ()\" [level=3] [ref=e1]",
		"- generic [ref=e2]: int frob (void);",
		"- paragraph [ref=e3]: Turns the widget inside out.",
		"- paragraph [ref=e4]: Returns zero.",
		"- paragraph [ref=e5]: Never fails.",
	};
	size_t	own[3], k, n[8], i;

	k = owners(nav, 4, 3, own);
	ok(k == 1 && own[0] == 1, "a picture in a nameless link: the link");
	k = owners(rows, 6, 2, own);
	ok(k == 1 && own[0] == 5, "a row's header: the value beside it");
	k = owners(terms, 4, 3, own);
	ok(k >= 2 && own[k - 2] == 1 && own[k - 1] == 0,
	    "a definition: its term, then the entry's other term");
	k = owners(link, 5, 1, own);
	ok(k == 2 && own[0] == 0 && own[1] == 2,
	    "a text that runs on: its paragraph, the link after it");
	k = owners(link, 5, 3, own);
	ok(k == 1 && own[0] == 0, "a text that ends its sentence: no link");
	k = owners(sec, 5, 2, own);
	ok(k == 1 && own[0] == 0, "a section's first words: its heading");
	k = owners(sec, 5, 4, own);
	ok(k == 0, "past its second paragraph: none");
	for (i = 0; i < 5; i++)
		n[i] = strlen(sec[i]);
	ok(ofl_fmt_snapshot_heading_above(sec, n, 4) == 0 &&
	    ofl_fmt_snapshot_heading_above(sec, n, 0) == SIZE_MAX,
	    "the heading above a line");
}

/* An element named by the words of a question. */
static void
test_named(void)
{
	struct ofl_fmt_snapshot_words q;
	const char *link = "  - link \"debounce\" [ref=e139]:";
	const char *head = "  - heading \"7. The WITH Clause\" [level=1] [ref=e9]";
	const char *text = "  - text: debounce";
	const char *camel = "- link \"XML_SetCharacterDataHandler\" [ref=e6]:";
	const char *btn = "- button \"Sign in\" [ref=e70]";
	const char *lnk = "- link \"Sign in\" [ref=e71]:";
	const char *save = "- link \"Save file\" [ref=e72]:";
	const char *nameless = "  - heading [level=3] [ref=e80]:";
	const char *child = "    - text: Shell requirements";
	double	v;

	memset(&q, 0, sizeof q);
	ofl_fmt_snapshot_words_add(&q, "debounce", 8, 0);
	ofl_fmt_snapshot_words_add(&q, "function", 8, 0);
	v = ofl_fmt_snapshot_named(link, strlen(link), &q);
	ok(v > 0.49 && v < 0.51, "a link named by one of two words: 0.5");
	ok(ofl_fmt_snapshot_named(text, strlen(text), &q) == 0,
	    "a text line is no element");
	ofl_fmt_snapshot_words_free(&q);
	ofl_fmt_snapshot_words_add(&q, "WITH", 4, 1);
	ofl_fmt_snapshot_words_add(&q, "clause", 6, 0);
	v = ofl_fmt_snapshot_named(head, strlen(head), &q);
	ok(v > 0.99, "a stop word in the name counts, a number does not");
	ofl_fmt_snapshot_words_free(&q);
	ofl_fmt_snapshot_words_add(&q, "character data handler", 22, 0);
	v = ofl_fmt_snapshot_named(camel, strlen(camel), &q);
	ok(v > 0.59 && v < 0.61, "an identifier cut at its case changes");
	ofl_fmt_snapshot_words_free(&q);
	ofl_fmt_snapshot_words_add(&q, "sign in button", 14, 0);
	ok(ofl_fmt_snapshot_named(btn, strlen(btn), &q) >
	    ofl_fmt_snapshot_named(lnk, strlen(lnk), &q),
	    "a role the question names counts");
	ofl_fmt_snapshot_words_free(&q);
	ofl_fmt_snapshot_words_add(&q, "the", 3, 1);
	ok(ofl_fmt_snapshot_named(head, strlen(head), &q) == 0,
	    "a stop word alone names nothing");
	ofl_fmt_snapshot_words_free(&q);
	ofl_fmt_snapshot_words_add(&q, "saving files", 12, 0);
	v = ofl_fmt_snapshot_named(save, strlen(save), &q);
	ok(v > 0.99, "words alike by their stems: saving save, files file");
	ofl_fmt_snapshot_words_free(&q);
	ofl_fmt_snapshot_words_add(&q, "shell requirements", 18, 0);
	ok(ofl_fmt_snapshot_named_by(nameless, strlen(nameless), child,
	    strlen(child), &q) > 0.99 && ofl_fmt_snapshot_named(nameless,
	    strlen(nameless), &q) == 0,
	    "a nameless heading named by the text under it");
	ofl_fmt_snapshot_words_free(&q);
}

/* A group expanded: one new region, one changed line. */
static void
test_diff_expand(void)
{
	const char *old =
	    "- navigation \"Docs\" [ref=e1]:\n"
	    "  - button \"Guides\" [expanded=false] [ref=e2]\n"
	    "  - button \"Reference\" [ref=e3]\n"
	    "- main [ref=e4]:\n"
	    "  - heading \"Welcome\" [level=1] [ref=e5]\n";
	const char *new =
	    "- navigation \"Docs\" [ref=e1]:\n"
	    "  - button \"Guides\" [expanded] [ref=e2]\n"
	    "  - list [ref=e10]:\n"
	    "    - listitem [ref=e11]:\n"
	    "      - link \"Install\" [ref=e12]:\n"
	    "        - /url: /install.html\n"
	    "    - listitem [ref=e13]:\n"
	    "      - link \"Configure\" [ref=e14]:\n"
	    "        - /url: /configure.html\n"
	    "  - button \"Reference\" [ref=e3]\n"
	    "- main [ref=e4]:\n"
	    "  - heading \"Welcome\" [level=1] [ref=e5]\n";
	const char *want =
	    "changes: 1 region added, 0 removed, 1 element changed "
	    "(lines +7 -0 ~1 of 5 -> 12; refs left out)\n"
	    "~ line 2: - button \"Guides\" [expanded] [ref=e2]\n"
	    "    in: navigation \"Docs\" [ref=e1]\n"
	    "    was: - button \"Guides\" [expanded=false] [ref=e2]\n"
	    "+ lines 3-9 (7 elements): - list [ref=e10]:\n"
	    "    in: navigation \"Docs\" [ref=e1]\n"
	    "    | - listitem [ref=e11]:\n"
	    "    | - link \"Install\" [ref=e12]:\n";
	char	*got;

	got = diff(old, strlen(old), new, strlen(new), 1024);
	is_str(got, want, "expanding a group: the new list and the button");
	ok(got != NULL && strlen(got) <= 1024, "the report is at most 1 kB");
	free(got);
	got = diff(old, strlen(old), old, strlen(old), 1024);
	is_str(got, "no changes: 5 tree lines, refs left out\n",
	    "a snapshot against itself");
	free(got);
}

/* A real page, its refs renumbered, a results list added and a line gone. */
static void
test_diff_renumbered(const char *srcdir)
{
	struct ofl_buf	 path, nb;
	char		*a, *b, *got, *at;
	size_t		 an, bn;

	ofl_buf_init(&path);
	ofl_buf_addf(&path, "%s/tests/data/snapshot/ofl-search.1.txt",
	    srcdir);
	if ((a = slurp(ofl_buf_str(&path), &an)) == NULL) {
		ok(0, "read %s", path.data);
		ofl_buf_free(&path);
		return;
	}
	b = renumber(a, an, &bn);
	got = diff(a, an, b, bn, 1024);
	is_str(got, "no changes: 598 tree lines, refs left out\n",
	    "every ref renumbered (e123 -> f1e123): no change");
	free(got);

	/* After the "EXAMPLES" heading: a results list of 30 items. */
	ofl_buf_init(&nb);
	at = strstr(b, "        - link \"EXAMPLES\"");
	at = strchr(strchr(at, '\n') + 1, '\n') + 1;
	ofl_buf_add(&nb, b, (size_t)(at - b));
	{
		int	i;

		ofl_buf_adds(&nb, "      - list \"Results\" [ref=f2e1]:\n");
		for (i = 0; i < 30; i++)
			ofl_buf_addf(&nb, "        - listitem [ref=f2e%d]: "
			    "result number %d\n", i + 2, i);
	}
	ofl_buf_add(&nb, at, bn - (size_t)(at - b));
	got = diff(a, an, nb.data, nb.len, 1024);
	ok(got != NULL && strncmp(got, "changes: 1 region added, 0 removed, "
	    "0 elements changed (lines +31 -0 ~0 of 598 -> 629", 83) == 0 &&
	    strstr(got, "+ lines 585-615 (31 elements): - list \"Results\" "
	    "[ref=f2e1]:\n    in: heading \"EXAMPLES\" [ref=f1e346]\n") !=
	    NULL && strlen(got) <= 1024,
	    "a new results list after a renumbering: one region");
	if (got != NULL && strlen(got) > 0)
		printf("# %s", got);
	free(got);
	ofl_buf_free(&nb);
	free(a);
	free(b);
	ofl_buf_free(&path);
}

/* The report on two stored snapshots. */
static int
compare(const char *store, const char *old, const char *new)
{
	struct ofl_store	*st;
	struct ofl_reader	*ra = NULL, *rb = NULL;
	struct ofl_src		 sa, sb;
	struct ofl_buf		 out;
	int			 rv = 3;

	ofl_buf_init(&out);
	if ((st = ofl_store_open(store, OFL_RDONLY)) == NULL)
		goto out;
	if ((ra = ofl_reader_open(st, old)) == NULL ||
	    (rb = ofl_reader_open(st, new)) == NULL)
		goto out;
	ofl_reader_src(ra, &sa);
	ofl_reader_src(rb, &sb);
	if (ofl_fmt_snapshot_diff(&sa, &sb, 1024, &out) == -1)
		goto out;
	fwrite(out.data, 1, out.len, stdout);
	rv = 0;
out:
	if (rv != 0)
		fprintf(stderr, "test-snapshot: %s\n", ofl_errmsg());
	ofl_reader_close(ra);
	ofl_reader_close(rb);
	if (st != NULL)
		ofl_store_close(st);
	ofl_buf_free(&out);
	return rv;
}

/*
 * The source tree: $OFL_SRCDIR (make check sets it), else the one this
 * file was compiled from, as named from the build directory.
 */
static const char *
srcdir(void)
{
	static char	 path[4096];
	const char	*e;
	size_t		 n;

	if ((e = getenv("OFL_SRCDIR")) != NULL && *e != '\0')
		return e;
	snprintf(path, sizeof path, "%s", __FILE__);
	if ((e = strstr(path, "tests/unit/test-snapshot.c")) == NULL)
		return ".";
	if ((n = (size_t)(e - path)) == 0)
		return ".";
	path[n - 1] = '\0';	/* the slash before "tests" */
	return path;
}

int
main(int argc, char *argv[])
{
	if (argc == 4)
		return compare(argv[1], argv[2], argv[3]);
	test_parse();
	test_owners();
	test_owners_beside();
	test_named();
	test_diff_expand();
	test_diff_renumbered(srcdir());
	return done_testing();
}
