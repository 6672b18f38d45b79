/*
 * input.c: the pipe protocol, for the tools that read standard input
 * when given no ID or "-".
 *
 * Standard input whose first line is a reference line (ofl_ref_line())
 * or the header of a listing is a reference stream, and every reference
 * line in it names an artifact; output that ofl-capture passed through
 * before its notice is one too, from the notice on; anything else is
 * data, captured first as a new artifact, as ofl-capture would with no
 * options.  Empty input is a usage error, the same for every tool.
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

static ssize_t	 read_some(int, struct ofl_buf *, size_t);
static int	 list_header(const char *, size_t);
static int	 passed_through(struct ofl_input *);
static void	 add_ref(struct ofl_ref **, size_t *, const struct ofl_ref *);
static int	 input_capture(struct ofl_input *, struct ofl_store *,
		    struct ofl_ref *);
static int	 input_read(struct ofl_input *, struct ofl_store *,
		    struct ofl_ref **, size_t *);

static ssize_t
read_some(int fd, struct ofl_buf *b, size_t want)
{
	ssize_t	n;

	if (b->cap - b->len < want) {
		b->cap = b->len + want;
		b->data = ofl_xrealloc(b->data, b->cap + 1);
	}
	for (;;) {
		n = read(fd, b->data + b->len, want);
		if (n == -1 && errno == EINTR)
			continue;
		break;
	}
	if (n == -1 && errno == EBADF)
		n = 0;		/* no stdin at all: empty */
	if (n == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "stdin: %s", strerror(errno));
		return -1;
	}
	b->len += (size_t)n;
	return n;
}

/* 1 if the line is the listing's header (OFL_LIST_HEADER, spaced out). */
static int
list_header(const char *p, size_t n)
{
	const char	*h = OFL_LIST_HEADER;
	size_t		 i = 0;

	if (n > 0 && p[n - 1] == '\r')
		n--;
	while (*h != '\0') {
		if (*h == ' ') {
			if (i >= n || p[i] != ' ')
				return 0;
			while (i < n && p[i] == ' ')
				i++;
			h++;
			continue;
		}
		if (i >= n || p[i] != *h)
			return 0;
		i++;
		h++;
	}
	return i == n;
}

/*
 * Data whose start ofl-capture passed through before its notice: the
 * start of a slow large output, or of one cut short, then a line
 * "--- ofl: ... ---" and the notice, whose first line is a reference.
 * The passing stops at the threshold, so the line comes early: look
 * for it in the first INPUT_SCAN bytes, and take the stream from the
 * reference on.  1 if found.
 */
#define INPUT_SCAN	(1024 * 1024)
static int
passed_through(struct ofl_input *in)
{
	static const char	 mark[] = "--- ofl: ";
	struct ofl_ref		 r;
	const char		*p, *end, *nl, *next, *nnl;
	ssize_t			 n;

	while (!in->eof && in->buf.len < INPUT_SCAN) {
		if ((n = read_some(in->fd, &in->buf, 65536)) == -1)
			return -1;
		in->eof = n == 0;
	}
	p = in->buf.data;
	end = p + in->buf.len;
	while ((p = memmem(p, (size_t)(end - p), mark, sizeof mark - 1)) !=
	    NULL) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		next = nl + 1;
		if ((p == in->buf.data || p[-1] == '\n') && nl - p >= 13 &&
		    memcmp(nl - 4, " ---", 4) == 0 && next < end) {
			if ((nnl = memchr(next, '\n', (size_t)(end - next))) ==
			    NULL)
				nnl = end;
			if (ofl_ref_line(next, (size_t)(nnl - next), &r)) {
				n = next - in->buf.data;
				memmove(in->buf.data, next, in->buf.len -
				    (size_t)n);
				in->buf.len -= (size_t)n;
				return 1;
			}
		}
		p = next;
	}
	return 0;
}

int
ofl_input_args(int argc, char **argv, struct ofl_input *in,
    struct ofl_ref **refsp, size_t *nrefsp)
{
	struct ofl_ref	*refs;
	size_t		 i, n = argc > 0 ? (size_t)argc : 0;
	int		 dash = 0;

	memset(in, 0, sizeof *in);
	in->fd = -1;
	refs = ofl_xcalloc(n + 1, sizeof *refs);
	for (i = 0; i < n; i++) {
		if (strcmp(argv[i], "-") == 0) {
			if (dash++) {
				ofl_seterr(OFL_EXIT_USAGE, "-: standard input "
				    "given twice");
				goto fail;
			}
			snprintf(refs[i].ref, sizeof refs[i].ref, "-");
		} else if (ofl_ref_arg(argv[i], &refs[i]) == -1)
			goto fail;
	}
	if (n == 0 || dash) {
		if (ofl_input_open(in, STDIN_FILENO) == -1)
			goto fail;
		if (in->type == OFL_INPUT_EMPTY) {
			ofl_input_close(in);
			ofl_seterr(OFL_EXIT_USAGE, "%s", OFL_INPUT_EMPTY_MSG);
			goto fail;
		}
	}
	*refsp = refs;
	*nrefsp = n;
	return n == 0 || dash;
fail:
	free(refs);
	return -1;
}

int
ofl_input_open(struct ofl_input *in, int fd)
{
	const char	*nl;
	struct ofl_ref	 r;
	ssize_t		 n;

	memset(in, 0, sizeof *in);
	in->fd = fd;
	ofl_buf_init(&in->buf);
	/* Enough to see the first line, or all of a short input. */
	while (in->buf.len == 0 ||
	    memchr(in->buf.data, '\n', in->buf.len) == NULL) {
		if ((n = read_some(fd, &in->buf, 65536)) == -1)
			return -1;
		if (n == 0) {
			in->eof = 1;
			break;
		}
		if (in->buf.len >= 65536)
			break;
	}
	if (in->buf.len == 0) {
		in->type = OFL_INPUT_EMPTY;
		return 0;
	}
	nl = memchr(in->buf.data, '\n', in->buf.len);
	n = nl != NULL ? nl - in->buf.data : (ssize_t)in->buf.len;
	/* A reference line, or the header of a listing. */
	in->type = ofl_ref_line(in->buf.data, (size_t)n, &r) ||
	    list_header(in->buf.data, (size_t)n) ? OFL_INPUT_REFS :
	    OFL_INPUT_DATA;
	if (in->type == OFL_INPUT_DATA) {
		switch (passed_through(in)) {
		case -1:
			return -1;
		case 1:
			in->type = OFL_INPUT_REFS;
			break;
		}
	}
	return 0;
}

void
ofl_input_close(struct ofl_input *in)
{
	ofl_buf_free(&in->buf);
}

static void
add_ref(struct ofl_ref **refs, size_t *nrefs, const struct ofl_ref *r)
{
	*refs = ofl_xrealloc(*refs, (*nrefs + 1) * sizeof **refs);
	(*refs)[(*nrefs)++] = *r;
}

/* Raw data: capture it, as ofl-capture would with no options. */
static int
input_capture(struct ofl_input *in, struct ofl_store *st,
    struct ofl_ref *r)
{
	struct ofl_writer	*w;
	struct ofl_meta		 init, fin;
	char			 cwd[4096], err[1024];
	ssize_t			 n;

	memset(&init, 0, sizeof init);
	init.duration_ms = -1;
	init.session = getenv("OFL_SESSION");
	if (init.session != NULL && *init.session == '\0')
		init.session = NULL;
	if (getcwd(cwd, sizeof cwd) != NULL)
		init.cwd = cwd;
	if ((w = ofl_writer_begin(st, &init)) == NULL)
		return -1;
	for (;;) {
		if (ofl_writer_write(w, in->buf.data, in->buf.len) == -1)
			goto fail;
		ofl_buf_reset(&in->buf);
		if (in->eof)
			break;
		if ((n = read_some(in->fd, &in->buf, 256 * 1024)) == -1)
			goto fail;
		in->eof = n == 0;
	}
	memset(r, 0, sizeof *r);
	snprintf(r->ref, sizeof r->ref, "%s", ofl_writer_id(w));
	memset(&fin, 0, sizeof fin);
	fin.duration_ms = -1;
	return ofl_writer_finish(w, &fin, NULL);
fail:
	/* Keep what was read, marked incomplete, and say what failed. */
	snprintf(err, sizeof err, "%s", ofl_errmsg());
	memset(&fin, 0, sizeof fin);
	fin.duration_ms = -1;
	fin.incomplete = 1;
	(void)ofl_writer_finish(w, &fin, NULL);
	ofl_seterr(OFL_EXIT_FAIL, "%s", err);
	return -1;
}

static int
input_read(struct ofl_input *in, struct ofl_store *st,
    struct ofl_ref **refs, size_t *nrefs)
{
	struct ofl_ref	 r;
	const char	*p, *end, *nl;
	ssize_t		 n;

	switch (in->type) {
	case OFL_INPUT_EMPTY:
		return 0;
	case OFL_INPUT_DATA:
		if (input_capture(in, st, &r) == -1)
			return -1;
		add_ref(refs, nrefs, &r);
		return 0;
	}
	/* A reference stream is short: read all of it. */
	while (!in->eof) {
		if ((n = read_some(in->fd, &in->buf, 65536)) == -1)
			return -1;
		in->eof = n == 0;
	}
	for (p = in->buf.data, end = p + in->buf.len; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (ofl_ref_line(p, (size_t)(nl - p), &r))
			add_ref(refs, nrefs, &r);
	}
	ofl_buf_reset(&in->buf);
	return 0;
}

int
ofl_input_refs(struct ofl_input *in, struct ofl_store *st,
    struct ofl_ref **refs, size_t *nrefs)
{
	struct ofl_ref	*got = NULL, *all;
	size_t		 ngot = 0, i, at;

	if (input_read(in, st, &got, &ngot) == -1) {
		free(got);
		return -1;
	}
	for (at = 0; at < *nrefs; at++)
		if (strcmp((*refs)[at].ref, "-") == 0)
			break;
	if (at == *nrefs) {
		for (i = 0; i < ngot; i++)
			add_ref(refs, nrefs, &got[i]);
		free(got);
		return 0;
	}
	/* In place of "-". */
	all = ofl_xcalloc(*nrefs - 1 + ngot + 1, sizeof *all);
	memcpy(all, *refs, at * sizeof *all);
	memcpy(all + at, got, ngot * sizeof *all);
	memcpy(all + at + ngot, *refs + at + 1,
	    (*nrefs - at - 1) * sizeof *all);
	free(*refs);
	free(got);
	*refs = all;
	*nrefs = *nrefs - 1 + ngot;
	return 0;
}

int
ofl_index_input(struct ofl_store *st, int fd, char ***idsp, size_t *nidsp)
{
	struct ofl_input	 in;
	struct ofl_ref		*refs = NULL;
	size_t			 nrefs = 0, i;
	int			 ret = -1;

	*idsp = NULL;
	*nidsp = 0;
	if (ofl_input_open(&in, fd) == -1 ||
	    ofl_input_refs(&in, st, &refs, &nrefs) == -1)
		goto out;
	if (nrefs > 0)
		*idsp = ofl_xcalloc(nrefs, sizeof **idsp);
	for (i = 0; i < nrefs; i++)
		(*idsp)[i] = ofl_xstrdup(refs[i].ref);
	*nidsp = nrefs;
	ret = 0;
out:
	ofl_input_close(&in);
	free(refs);
	return ret;
}