/*
 * fmt-diff.c: unified diffs (diff -u, git diff, git show).  The lines a
 * diff is made of (for kind detection), its chunks (a chunk per hunk,
 * titled by file and hunk header) and the notice's summary (how many
 * files and lines changed, and the files that changed most).
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "chunk.h"
#include "banned.h"

#define DIFF_SPLIT	8192		/* split a hunk at a line */
#define DIFF_SCAN	(64ULL * 1024 * 1024)	/* what the summary reads */
#define SUMMARY_MAX	300		/* bytes of the summary's names */
#define TOP_FILES	5		/* files named in the summary */
#define NAME_WIDTH	60		/* bytes of a file's name shown */

static int
starts(const unsigned char *p, size_t n, const char *s)
{
	size_t	l = strlen(s);

	return n >= l && memcmp(p, s, l) == 0;
}

/*
 * Detection.
 */

/* A line a diff is made of: a header, a hunk line, a context line. */
int
ofl_fmt_diff_line(const unsigned char *p, size_t n)
{
	static const char *hdrs[] = { "diff ", "index ", "--- ", "+++ ",
	    "@@ ", "new file mode", "deleted file mode", "old mode",
	    "new mode", "similarity index", "dissimilarity index",
	    "rename from", "rename to", "copy from", "copy to",
	    "Binary files", "GIT binary patch", "literal ", "delta ",
	    "commit ", "Author:", "Date:", "Merge:", "Index: ", "=====",
	    "Only in " };
	size_t	i;

	if (n == 0 || p[0] == ' ' || p[0] == '+' || p[0] == '-' ||
	    p[0] == '\\')
		return 1;
	for (i = 0; i < sizeof hdrs / sizeof hdrs[0]; i++) {
		if (starts(p, n, hdrs[i]))
			return 1;
	}
	return 0;
}

/*
 * Chunks.
 */

/*
 * Unified diffs: a chunk per hunk, with the file's header lines in its
 * first hunk, titled "path @@ -a,b +c,d @@ context".  A file without
 * hunks (a rename, a binary file) is a chunk titled by its path; text
 * before the first file is a chunk with no title.  Hunks end by their
 * line counts, so a removed line "--- x" is not taken for a header.
 */

enum { D_NONE, D_PRE, D_HDR, D_HUNK };

struct diff {
	struct ofl_chunk_win	 w;
	struct ofl_buf	 path;
	struct ofl_buf	 title;
	int		 pend;
	int		 inhunk;
	int		 counted;
	int		 minus;		/* "--- " seen in this header */
	long		 oldn;
	long		 newn;
};

static int
diff_flush(struct ofl_chunker *ck, struct diff *d)
{
	int	rv = 0;

	switch (d->pend) {
	case D_HUNK:
		rv = ofl_chunk_win_emit(ck, &d->w, d->title.data, d->title.len);
		break;
	case D_HDR:
		ofl_buf_str(&d->path);
		rv = ofl_chunk_win_emit(ck, &d->w, d->path.data, d->path.len);
		break;
	default:
		rv = ofl_chunk_win_emit(ck, &d->w, "", 0);
		break;
	}
	d->pend = D_NONE;
	return rv;
}

/* The path of "--- a/x", "+++ b/x" or a similar tail: its length, 0 if none. */
static size_t
path_of(const char *p, size_t n, const char **out)
{
	const char	*t;

	if ((t = memchr(p, '\t', n)) != NULL)
		n = (size_t)(t - p);
	while (n > 0 && p[n - 1] == ' ')
		n--;
	if (n == 0 || (n == 9 && memcmp(p, "/dev/null", 9) == 0))
		return 0;
	if (n > 2 && (HAS(p, n, "a/") || HAS(p, n, "b/"))) {
		p += 2;
		n -= 2;
	}
	*out = p;
	return n;
}

/* "diff --git a/x b/x": x; "diff -u old new": new (path_of). */
static size_t
gitpath_of(const char *p, size_t n, const char **out)
{
	const char	*q;
	size_t		 k;

	if (HAS(p, n, "diff --git ")) {
		p += 11;
		n -= 11;
		k = (n - 5) / 2;
		if (n > 5 && (n - 5) % 2 == 0 && HAS(p, n, "a/") &&
		    memcmp(p + 2 + k, " b/", 3) == 0 &&
		    memcmp(p + 2, p + 5 + k, k) == 0)
			return path_of(p + 2, k, out);
		for (q = p + n - 3; q > p; q--)
			if (memcmp(q, " b/", 3) == 0)
				return path_of(q + 3, n - (size_t)(q + 3 - p),
				    out);
	}
	for (q = p + n; q > p && q[-1] != ' '; q--)
		;
	return path_of(q, n - (size_t)(q - p), out);
}

/* Set the path from "--- a/x", "+++ b/x" or a similar tail. */
static void
diff_path(struct diff *d, const char *p, size_t n)
{
	const char	*q;

	if ((n = path_of(p, n, &q)) == 0)
		return;
	ofl_buf_reset(&d->path);
	ofl_buf_add(&d->path, q, n);
}

/* The same from a "diff" line. */
static void
diff_gitpath(struct diff *d, const char *p, size_t n)
{
	const char	*q;

	if ((n = gitpath_of(p, n, &q)) == 0)
		return;
	ofl_buf_reset(&d->path);
	ofl_buf_add(&d->path, q, n);
}

/* "@@ -12,7 +12,9 @@": the line counts, or 0 if they cannot be read. */
static int
diff_counts(const char *p, size_t n, long *oldn, long *newn)
{
	char	 tmp[96], *e;
	long	 v;

	if (!HAS(p, n, "@@ -") || HAS(p, n, "@@@"))
		return 0;
	if (n > sizeof tmp - 1)
		n = sizeof tmp - 1;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	v = strtol(tmp + 4, &e, 10);
	*oldn = 1;
	if (*e == ',')
		*oldn = strtol(e + 1, &e, 10);
	if (strncmp(e, " +", 2) != 0 || v < 0)
		return 0;
	v = strtol(e + 2, &e, 10);
	*newn = 1;
	if (*e == ',')
		*newn = strtol(e + 1, &e, 10);
	return strncmp(e, " @@", 3) == 0 && v >= 0;
}

int
ofl_fmt_diff_chunk(struct ofl_chunker *ck, struct ofl_chunk_in *s)
{
	struct ofl_chunk_lines	 it;
	struct ofl_chunk_line	 l;
	struct diff	 d;
	size_t		 n;
	int		 r, c, rv = 0;

	ofl_chunk_lines_init(&it, s, 0, 1, 0);
	memset(&d, 0, sizeof d);
	ofl_chunk_win_init(&d.w);
	ofl_buf_init(&d.path);
	ofl_buf_init(&d.title);
	while ((r = ofl_chunk_lines_next(&it, &l)) == 1) {
		n = ofl_chunk_body_len(l.p, l.len);
		if (!l.first) {
			if (d.w.nlines > 0 &&
			    ofl_chunk_win_raw(&d.w) + l.len > OFL_CHUNK_HARD_MAX) {
				c = d.pend;
				if (diff_flush(ck, &d))
					goto stop;
				d.pend = c;
			}
			ofl_chunk_win_add(&d.w, &l);
			continue;
		}
		if (d.inhunk) {
			c = n > 0 ? l.p[0] : ' ';
			if (d.counted) {
				if (c == ' ') {
					d.oldn--;
					d.newn--;
				} else if (c == '-')
					d.oldn--;
				else if (c == '+')
					d.newn--;
				else if (c != '\\')
					d.inhunk = 0;
				if (d.oldn <= 0 && d.newn <= 0)
					d.inhunk = 2;
			} else if (HAS(l.p, n, "diff ") || HAS(l.p, n, "@@"))
				d.inhunk = 0;
			if (d.inhunk != 0) {
				if (d.inhunk == 2)
					d.inhunk = 0;
				if (d.w.nlines > 0 && ofl_chunk_win_raw(&d.w) +
				    l.len > DIFF_SPLIT) {
					if (diff_flush(ck, &d))
						goto stop;
					d.pend = D_HUNK;
				}
				ofl_chunk_win_add(&d.w, &l);
				continue;
			}
		}
		if (HAS(l.p, n, "diff ") || HAS(l.p, n, "Index: ")) {
			if (diff_flush(ck, &d))
				goto stop;
			d.pend = D_HDR;
			d.minus = 0;
			ofl_buf_reset(&d.path);
			if (HAS(l.p, n, "Index: "))
				diff_path(&d, l.p + 7, n - 7);
			else
				diff_gitpath(&d, l.p, n);
		} else if (HAS(l.p, n, "--- ")) {
			if (d.pend != D_HDR || d.minus) {
				if (diff_flush(ck, &d))
					goto stop;
				ofl_buf_reset(&d.path);
			}
			d.pend = D_HDR;
			d.minus = 1;
			diff_path(&d, l.p + 4, n - 4);
		} else if (HAS(l.p, n, "+++ ") && d.pend == D_HDR) {
			diff_path(&d, l.p + 4, n - 4);
		} else if (HAS(l.p, n, "@@")) {
			if (d.pend != D_HDR && diff_flush(ck, &d))
				goto stop;
			d.counted = diff_counts(l.p, n, &d.oldn, &d.newn);
			d.inhunk = 1;
			if (d.counted && d.oldn <= 0 && d.newn <= 0)
				d.inhunk = 0;
			ofl_buf_reset(&d.title);
			if (d.path.len > 0) {
				ofl_buf_add(&d.title, d.path.data, d.path.len);
				ofl_buf_addc(&d.title, ' ');
			}
			ofl_buf_add(&d.title, l.p, n < OFL_CHUNK_TITLE_MAX ? n :
			    ofl_utf8_cut(l.p, OFL_CHUNK_TITLE_MAX));
			ofl_buf_str(&d.title);
			d.pend = D_HUNK;
		} else if (HAS(l.p, n, "commit ") || HAS(l.p, n, "From ")) {
			if (diff_flush(ck, &d))
				goto stop;
			d.pend = D_PRE;
		} else if (d.pend == D_HDR) {
			if (HAS(l.p, n, "rename to "))
				diff_path(&d, l.p + 10, n - 10);
		} else {
			if (d.pend == D_NONE)
				d.pend = D_PRE;
			if (d.w.nlines > 0 && ofl_chunk_win_raw(&d.w) + l.len >
			    (d.pend == D_PRE ? 2 * OFL_CHUNK_TEXT_TARGET : DIFF_SPLIT)) {
				c = d.pend;
				if (diff_flush(ck, &d))
					goto stop;
				d.pend = c;
			}
		}
		ofl_chunk_win_add(&d.w, &l);
	}
	if (r < 0)
		rv = -1;
	else if (diff_flush(ck, &d))
		rv = 1;
	goto out;
stop:
	rv = 1;
out:
	ofl_buf_free(&d.path);
	ofl_buf_free(&d.title);
	ofl_chunk_win_free(&d.w);
	ofl_chunk_lines_free(&it);
	return rv;
}

/*
 * The summary.
 */

/* A file of a diff as the summary counts it. */
struct dfile {
	char		*name;
	uint64_t	 added;
	uint64_t	 removed;
};

/* Reading a diff for its summary. */
struct dsum {
	struct dfile	 cur;		/* the file being read */
	struct dfile	 top[TOP_FILES];	/* most changed, most first */
	size_t		 ntop;
	char		*first[TOP_FILES];	/* the first names, in order */
	size_t		 nfirst;
	uint64_t	 files;
	uint64_t	 added;
	uint64_t	 removed;
	uint64_t	 left_old;	/* lines of the hunk still to come */
	uint64_t	 left_new;
	int		 git;		/* "diff --git" heads the files */
};

/* The file read so far goes among the most changed if it is one. */
static void
dsum_close(struct dsum *d)
{
	struct dfile	 f = d->cur;
	size_t		 i;

	memset(&d->cur, 0, sizeof d->cur);
	if (f.name == NULL)
		return;
	for (i = d->ntop; i > 0 && d->top[i - 1].added +
	    d->top[i - 1].removed < f.added + f.removed; i--)
		;
	if (i == TOP_FILES) {
		free(f.name);
		return;
	}
	if (d->ntop == TOP_FILES)
		free(d->top[--d->ntop].name);
	memmove(&d->top[i + 1], &d->top[i], (d->ntop - i) * sizeof f);
	d->top[i] = f;
	d->ntop++;
}

/* A new file named p[0..n). */
static void
dsum_open(struct dsum *d, const char *p, size_t n)
{
	dsum_close(d);
	d->cur.name = ofl_xstrndup(p, n);
	if (d->nfirst < TOP_FILES)
		d->first[d->nfirst++] = ofl_xstrndup(p, n);
	d->files++;
}

static void
dsum_line(void *arg, const char *p, size_t n)
{
	struct dsum	*d = arg;
	const char	*q;
	size_t		 k;
	long		 oldn, newn;

	if (d->left_old > 0 || d->left_new > 0) {
		/* In a hunk: its lines, by their first byte. */
		if (n > 0 && p[0] == '+' && d->left_new > 0) {
			d->left_new--;
			d->cur.added++;
			d->added++;
			return;
		}
		if (n > 0 && p[0] == '-' && d->left_old > 0) {
			d->left_old--;
			d->cur.removed++;
			d->removed++;
			return;
		}
		if (n == 0 || p[0] == ' ') {
			if (d->left_old > 0)
				d->left_old--;
			if (d->left_new > 0)
				d->left_new--;
			return;
		}
		if (p[0] == '\\')
			return;		/* "\ No newline at end of file" */
		d->left_old = d->left_new = 0;
	}
	/* A file by its "diff --git" line, else by "+++ " ("/dev/null"). */
	if (starts((const unsigned char *)p, n, "diff --git ")) {
		d->git = 1;
		if ((k = gitpath_of(p, n, &q)) > 0)
			dsum_open(d, q, k);
		else
			dsum_open(d, p + 11, n - 11);
	} else if (!d->git && starts((const unsigned char *)p, n, "+++ ")) {
		if ((k = path_of(p + 4, n - 4, &q)) > 0)
			dsum_open(d, q, k);
		else
			dsum_open(d, p + 4, n - 4);
	} else if (diff_counts(p, n, &oldn, &newn) && oldn >= 0 &&
	    newn >= 0) {
		d->left_old = (uint64_t)oldn;
		d->left_new = (uint64_t)newn;
	}
}

/* "NAME +A -R" for a file, its name cut to NAME_WIDTH. */
static void
dsum_put(struct ofl_buf *b, const struct dfile *f)
{
	size_t	used;

	used = ofl_render_oneline(b, (const unsigned char *)f->name,
	    strlen(f->name), NAME_WIDTH);
	if (used < strlen(f->name))
		ofl_buf_adds(b, "...");
	ofl_buf_adds(b, " +");
	ofl_buf_add_count(b, f->added);
	ofl_buf_adds(b, " -");
	ofl_buf_add_count(b, f->removed);
}

/*
 * A diff: how many files and lines changed, as git diff --stat ends,
 * and the files that changed most, read in one pass (DIFF_SCAN bytes at
 * most, and the line says so past that).
 */
int
ofl_fmt_diff_summary(const struct ofl_src *src, const struct ofl_meta *m,
    struct ofl_summary *s)
{
	struct dsum		 d;
	size_t			 i;
	int			 rv, cut;

	(void)m;
	memset(&d, 0, sizeof d);
	rv = ofl_fmt_lines(src, DIFF_SCAN, dsum_line, &d, &cut);
	dsum_close(&d);
	if (rv == 0 && d.files > 0) {
		ofl_buf_adds(&s->text, "files: ");
		ofl_buf_add_count(&s->text, d.files);
		ofl_buf_adds(&s->text, " changed, ");
		ofl_buf_add_count(&s->text, d.added);
		ofl_buf_adds(&s->text, d.added == 1 ? " insertion(+), " :
		    " insertions(+), ");
		ofl_buf_add_count(&s->text, d.removed);
		ofl_buf_adds(&s->text, d.removed == 1 ? " deletion(-)" :
		    " deletions(-)");
		if (cut)
			ofl_buf_adds(&s->text, " in the first 64 MB");
		ofl_buf_addc(&s->text, '\n');
		if (d.ntop > 0 && (d.files > 1 || d.top[0].added +
		    d.top[0].removed > 0)) {
			ofl_buf_adds(&s->text, d.files > 1 ? "most changed: " :
			    "changed: ");
			for (i = 0; i < d.ntop; i++) {
				if (i > 0 && s->text.len + 60 > SUMMARY_MAX * 2)
					break;
				if (i > 0)
					ofl_buf_adds(&s->text, ", ");
				dsum_put(&s->text, &d.top[i]);
			}
			if (d.files > i)
				ofl_buf_adds(&s->text, ", ...");
			ofl_buf_addc(&s->text, '\n');
		}
		ofl_summary_key(s, "files");
		ofl_buf_addf(&s->json, "%llu", (unsigned long long)d.files);
		ofl_summary_key(s, "files_partial");
		ofl_buf_adds(&s->json, cut ? "true" : "false");
		ofl_summary_key(s, "insertions");
		ofl_buf_addf(&s->json, "%llu", (unsigned long long)d.added);
		ofl_summary_key(s, "deletions");
		ofl_buf_addf(&s->json, "%llu", (unsigned long long)d.removed);
		ofl_summary_key(s, "file_names");
		for (i = 0; i < d.nfirst; i++) {
			ofl_buf_adds(&s->json, i == 0 ? "[" : ",");
			ofl_buf_add_json_cstr(&s->json, d.first[i]);
		}
		ofl_buf_adds(&s->json, d.nfirst > 0 ? "]" : "[]");
		ofl_summary_key(s, "most_changed");
		for (i = 0; i < d.ntop; i++) {
			ofl_buf_adds(&s->json, i == 0 ? "[{\"file\":" :
			    ",{\"file\":");
			ofl_buf_add_json_cstr(&s->json, d.top[i].name);
			ofl_buf_addf(&s->json, ",\"insertions\":%llu,"
			    "\"deletions\":%llu}",
			    (unsigned long long)d.top[i].added,
			    (unsigned long long)d.top[i].removed);
		}
		ofl_buf_adds(&s->json, d.ntop > 0 ? "]" : "[]");
	}
	for (i = 0; i < d.ntop; i++)
		free(d.top[i].name);
	for (i = 0; i < d.nfirst; i++)
		free(d.first[i]);
	return rv == 0 ? 0 : -1;
}

/*
 * Whether a chunk's title ("a/package.json @@ -1,5 +1,5 @@") names a
 * file where a package's version and dependencies are set.
 */
int
ofl_fmt_diff_manifest(const char *title)
{
	static const char *const names[] = { "package.json", "go.mod",
	    "Cargo.toml", "pyproject.toml", "setup.py", "setup.cfg",
	    "requirements.txt", "Gemfile", "pom.xml", "build.gradle",
	    "build.gradle.kts", "composer.json", "mix.exs", "Package.swift",
	    "meson.build", "configure.ac", NULL };
	const char	*e, *b;
	size_t		 k, n;

	if ((e = strstr(title, " @@")) == NULL)
		return 0;
	for (b = e; b > title && b[-1] != '/'; b--)
		;
	for (k = 0; names[k] != NULL; k++) {
		n = strlen(names[k]);
		if ((size_t)(e - b) == n && memcmp(b, names[k], n) == 0)
			return 1;
	}
	return (size_t)(e - b) > 8 && memcmp(e - 8, ".gemspec", 8) == 0;
}
