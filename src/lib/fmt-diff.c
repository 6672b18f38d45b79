/*
 * fmt-diff.c: unified diffs (diff -u, git diff, git show).  The lines a
 * diff is made of (for kind detection), its chunks (a chunk per hunk,
 * titled by file and hunk header) and the notice's summary (how many
 * files, and the first few names).
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
#define SCAN_LARGE	(256 * 1024)	/* what the summary reads */
#define SUMMARY_MAX	300		/* bytes of the summary's names */

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

/* Set the path from "--- a/x", "+++ b/x" or a similar tail. */
static void
diff_path(struct diff *d, const char *p, size_t n)
{
	const char	*t;

	if ((t = memchr(p, '\t', n)) != NULL)
		n = (size_t)(t - p);
	while (n > 0 && p[n - 1] == ' ')
		n--;
	if (n == 0 || (n == 9 && memcmp(p, "/dev/null", 9) == 0))
		return;
	if (n > 2 && (HAS(p, n, "a/") || HAS(p, n, "b/"))) {
		p += 2;
		n -= 2;
	}
	ofl_buf_reset(&d->path);
	ofl_buf_add(&d->path, p, n);
}

/* "diff --git a/x b/x": x; "diff -u old new": new. */
static void
diff_gitpath(struct diff *d, const char *p, size_t n)
{
	const char	*q;
	size_t		 k;

	if (HAS(p, n, "diff --git ")) {
		p += 11;
		n -= 11;
		k = (n - 5) / 2;
		if (n > 5 && (n - 5) % 2 == 0 && HAS(p, n, "a/") &&
		    memcmp(p + 2 + k, " b/", 3) == 0 &&
		    memcmp(p + 2, p + 5 + k, k) == 0) {
			diff_path(d, p + 2, k);
			return;
		}
		for (q = p + n - 3; q > p; q--)
			if (memcmp(q, " b/", 3) == 0) {
				diff_path(d, q + 3, n - (size_t)(q + 3 - p));
				return;
			}
	}
	for (q = p + n; q > p && q[-1] != ' '; q--)
		;
	diff_path(d, q, n - (size_t)(q - p));
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
			    ofl_chunk_utf8_cut(l.p, OFL_CHUNK_TITLE_MAX));
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

/* A diff: how many files, and the first few names. */
int
ofl_fmt_diff_summary(const struct ofl_src *src, const struct ofl_meta *m,
    struct ofl_summary *s)
{
	unsigned char	*buf;
	const unsigned char *p, *nl, *end, *name, *tab;
	struct ofl_buf	 names, js;
	size_t		 len, n, nlen, git = 0, plus = 0, shown = 0, used;
	int		 usegit;

	(void)m;
	if ((buf = ofl_src_head(src, SCAN_LARGE, &len)) == NULL)
		return -1;
	ofl_buf_init(&names);
	ofl_buf_init(&js);
	end = buf + len;
	for (p = buf; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (nl - p >= 11 && memcmp(p, "diff --git ", 11) == 0)
			git++;
		else if (nl - p >= 4 && memcmp(p, "+++ ", 4) == 0)
			plus++;
	}
	usegit = git > 0;
	for (p = buf; p < end && shown < 5; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		n = nl - p;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		name = NULL;
		nlen = 0;
		if (usegit && n >= 11 && memcmp(p, "diff --git ", 11) == 0) {
			/* "diff --git a/X b/X": take what follows " b/". */
			const unsigned char *q = p + n;

			while (q > p + 11 && !(q[-1] == '/' && q - 3 >= p &&
			    q[-2] == 'b' && q[-3] == ' '))
				q--;
			if (q > p + 11) {
				name = q;
				nlen = (size_t)(p + n - q);
			} else {
				name = p + 11;
				nlen = n - 11;
			}
		} else if (!usegit && n >= 4 && memcmp(p, "+++ ", 4) == 0) {
			name = p + 4;
			nlen = n - 4;
			if (nlen >= 2 && name[0] == 'b' && name[1] == '/') {
				name += 2;
				nlen -= 2;
			}
			/* Drop a time stamp after a tab. */
			if ((tab = memchr(name, '\t', nlen)) != NULL)
				nlen = (size_t)(tab - name);
		}
		if (name == NULL)
			continue;
		ofl_buf_adds(&names, shown == 0 ? "" : ", ");
		used = ofl_render_oneline(&names, name, nlen, 60);
		if (used < nlen)
			ofl_buf_adds(&names, "...");
		ofl_buf_adds(&js, shown == 0 ? "[" : ",");
		ofl_buf_add_json_str(&js, (const char *)name, nlen);
		shown++;
		if (names.len > SUMMARY_MAX - 60)
			break;
	}
	n = usegit ? git : plus;
	if (n > 0) {
		ofl_buf_adds(&s->text, "files: ");
		if (len < ofl_src_bytes(src))
			ofl_buf_adds(&s->text, "at least ");
		ofl_buf_add_count(&s->text, n);
		ofl_buf_adds(&s->text, ": ");
		ofl_buf_add(&s->text, names.data, names.len);
		if (n > shown)
			ofl_buf_adds(&s->text, ", ...");
		ofl_buf_addc(&s->text, '\n');
		ofl_summary_key(s, "files");
		ofl_buf_addf(&s->json, "%zu", n);
		ofl_summary_key(s, "files_partial");
		ofl_buf_adds(&s->json, len < ofl_src_bytes(src) ? "true" :
		    "false");
		if (shown > 0) {
			ofl_buf_addc(&js, ']');
			ofl_summary_key(s, "file_names");
			ofl_buf_add(&s->json, js.data, js.len);
		}
	}
	ofl_buf_free(&names);
	ofl_buf_free(&js);
	free(buf);
	return 0;
}
