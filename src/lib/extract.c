/*
 * extract.c: exact evidence from one artifact, for ofl-extract.
 *
 * The content whole, line and byte spans, lines that match a regular
 * expression with context, the error blocks of a log (tracebacks, stack
 * traces, panics, compiler diagnostics, sanitizer reports, failing tests),
 * an archive member, or the results of a jq filter.  Everything streams
 * through the reader (or through libarchive reading from the reader), so
 * a large artifact is never loaded whole.
 *
 * Output is cut to a budget of bytes.  Whatever a cut leaves out is named
 * by a mark on a line of its own, with the command that prints it:
 *
 *	[... lines 120-4031 of ofl:ab12cd34 not shown:
 *	    ofl-extract ab12cd34 -n 120-4031]
 *
 * (all on one line).
 *
 * Every other line printed is a line of the artifact (or a result of the
 * filter), prefixed by its line number.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jv.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "extract.h"
#include "banned.h"

extern char	**environ;

/* What a child run under limits sends back. */
struct lim_result {
	int	rv;
	int	code;
	char	msg[1024];
};

static int	lim_fd = -1;		/* the child's end of the pipe */
static struct lim_result lim_oom;	/* what running out of memory says */

static int	 run_raw(struct ex *);

void
ofl_extract_init(struct ofl_extract *o)
{
	memset(o, 0, sizeof *o);
	o->max_bytes = OFL_EXTRACT_BUDGET;
	o->time_limit = OFL_EXTRACT_TIME;
	o->mem_limit = OFL_EXTRACT_MEMORY;
	o->out = stdout;
}

/* 0 done, 1 cut by the budget (marked), -1 error. */
static int
print_lines(struct ex *x, const struct rspan *rs, size_t n, size_t i)
{
	struct lr	lr;
	struct line	ln;
	char		pre[32];
	size_t		maxline;
	int		r, rv = -1;

	if (x->max == 0)
		maxline = x->o->json ? LINE_MAX_REGEX : PIECE_MAX;
	else
		maxline = x->max + 64 > PIECE_MAX ? (size_t)x->max + 64 :
		    PIECE_MAX;
	if (ofl_extract_lr_init(&lr, &x->src, rs[i].a, rs[i].b, maxline) == -1)
		goto out;
	while ((r = ofl_extract_lr_next(&lr, &ln)) > 0) {
		if (x->max == 0 && !x->o->json) {
			/* No budget: a long line streams through. */
			if (!ln.cont) {
				snprintf(pre, sizeof pre, "%" PRIu64 "\t",
				    ln.no);
				if (ofl_extract_out_unit(x, pre,
				    strlen(pre)) == -1)
					goto out;
			}
			{
				size_t		 mlen;
				const char	*m;

				m = ofl_extract_mask_text(x, ln.p, ln.len,
				    &mlen);

				if (ofl_extract_out_write(x, m, mlen) == -1 ||
				    (!ln.more &&
				    ofl_extract_out_write(x, "\n", 1) == -1))
					goto out;
			}
			x->printed = 1;
			continue;
		}
		if (ln.cont)
			continue;
		if (!ln.more) {
			if ((r = ofl_extract_emit_line(x, ln.no, "", ln.p,
			    ln.len, -1)) ==
			    -1)
				goto out;
			if (r == 1)
				continue;
		}
		/* It does not fit. */
		if (!x->printed) {
			if (ofl_extract_emit_partial(x, &lr, &ln, "", -1) == -1)
				goto out;
			r = ofl_extract_mark_rest(x, rs, n, i, ln.no + 1, "");
		} else
			r = ofl_extract_mark_rest(x, rs, n, i, ln.no, "");
		rv = r == -1 ? -1 : 1;
		goto out;
	}
	rv = r == -1 ? -1 : 0;
out:
	ofl_extract_lr_free(&lr);
	return rv;
}

/* 0 done, 1 cut by the budget (marked), -1 error. */
static int
print_bytes(struct ex *x, const struct rspan *rs, size_t n, size_t i)
{
	struct ofl_buf	 acc;
	char		*buf;
	uint64_t	 pos = rs[i].a, allow;
	size_t		 want;
	ssize_t		 k;
	int		 rv = -1, cut = 0;

	if (ofl_extract_src_seek(&x->src, pos) == -1)
		return -1;
	buf = ofl_xmalloc(READ_SIZE);
	ofl_buf_init(&acc);
	while (pos <= rs[i].b) {
		want = rs[i].b - pos + 1 < READ_SIZE ?
		    (size_t)(rs[i].b - pos + 1) : READ_SIZE;
		if ((k = ofl_extract_src_read(&x->src, buf, want)) == -1)
			goto out;
		if (k == 0)
			break;
		if (x->o->json) {
			allow = x->max == 0 ? LINE_MAX_REGEX : x->max;
			if (acc.len + (uint64_t)k > allow) {
				k = (ssize_t)(allow - acc.len);
				cut = 1;
			}
			ofl_buf_add(&acc, buf, (size_t)k);
			pos += (uint64_t)k;
			if (cut)
				break;
			continue;
		}
		allow = x->max == 0 ? (uint64_t)k : x->max > x->used ?
		    x->max - x->used : 0;
		if ((uint64_t)k > allow) {
			k = (ssize_t)allow;
			cut = 1;
		}
		if (ofl_extract_out_write(x, buf, (size_t)k) == -1)
			goto out;
		if (k > 0)
			x->printed = 1;
		pos += (uint64_t)k;
		if (cut)
			break;
	}
	if (x->o->json) {
		/* One object per span, its text cut to fit. */
		for (;;) {
			ofl_buf_reset(&x->tmp);
			ofl_buf_adds(&x->tmp, "{\"id\":");
			ofl_extract_json_str(&x->tmp, x->id, strlen(x->id));
			ofl_buf_addf(&x->tmp, ",\"bytes\":[%" PRIu64 ",%" PRIu64
			    "],\"text\":", rs[i].a, rs[i].a + acc.len - 1);
			ofl_extract_json_str(&x->tmp, acc.data, acc.len);
			ofl_buf_adds(&x->tmp, "}\n");
			if (ofl_extract_out_fits(x, x->tmp.len) || acc.len == 0)
				break;
			if (x->printed) {
				pos = rs[i].a;
				cut = 1;
				goto marked;
			}
			want = x->tmp.len - (size_t)(x->max - x->used);
			acc.len = want >= acc.len ? 0 :
			    ofl_utf8_cut(acc.data, acc.len - want);
			pos = rs[i].a + acc.len;
			cut = 1;
		}
		if (acc.len > 0 || !cut) {
			if (ofl_extract_out_write(x, x->tmp.data,
			    x->tmp.len) == -1)
				goto out;
			x->printed = 1;
		}
	}
marked:
	if (cut) {
		rv = ofl_extract_mark_rest(x, rs, n, i, pos, "") == -1 ? -1 : 1;
		goto out;
	}
	rv = 0;
out:
	ofl_buf_free(&acc);
	free(buf);
	return rv;
}

static int
run_raw(struct ex *x)
{
	const struct ofl_extract	*o = x->o;
	struct rspan			*rs = NULL;
	uint64_t			 bytes, lines;
	size_t				 n, i;
	char				*buf;
	ssize_t				 k;
	int				 r, rv = -1;

	if (o->nspans == 0 && x->max == 0 && !o->json) {
		/* The content whole, byte for byte. */
		if (ofl_extract_src_rewind(&x->src) == -1)
			return -1;
		buf = ofl_xmalloc(READ_SIZE);
		while ((k = ofl_extract_src_read(&x->src, buf, READ_SIZE)) > 0)
			if (ofl_extract_out_write(x, buf, (size_t)k) == -1)
				break;
		free(buf);
		return k < 0 || x->werr ? -1 : 0;
	}
	if (o->nspans == 0) {
		/* The whole as one span, cut to the budget. */
		if (ofl_extract_src_totals(&x->src, &bytes, &lines) == -1)
			return -1;
		rs = ofl_xcalloc(1, sizeof *rs);
		n = 0;
		if (o->json && lines > 0) {
			rs[0].unit = OFL_SPAN_LINES;
			rs[0].a = 1;
			rs[0].b = lines;
			n = 1;
		} else if (!o->json && bytes > 0) {
			rs[0].unit = OFL_SPAN_BYTES;
			rs[0].a = 0;
			rs[0].b = bytes - 1;
			n = 1;
		}
	} else if (ofl_extract_resolve(x, &n, &rs, 0) == -1)
		return -1;
	if (n == 0) {
		free(rs);
		return o->nspans > 0 ? 1 : 0;
	}
	for (i = 0; i < n; i++) {
		if (rs[i].unit == OFL_SPAN_LINES)
			r = print_lines(x, rs, n, i);
		else
			r = print_bytes(x, rs, n, i);
		if (r == -1)
			goto out;
		if (r == 1)
			break;
	}
	rv = 0;
out:
	free(rs);
	return rv;
}

/*
 * Limits.  Neither libjq nor the C library's regex engine can be stopped
 * or bounded from the inside: [range(1e9)] or ((a{1,100}){1,100}){1,100}
 * runs for minutes and takes gigabytes.  So a filter or a regex runs in a
 * child process under RLIMIT_CPU and RLIMIT_AS; it writes its output to
 * the same stream and sends its result back through a pipe.  The parent
 * turns a child killed for its CPU time, or out of memory, into one line.
 */

static void
lim_send(const struct lim_result *r)
{
	if (lim_fd != -1)
		(void)ofl_write_all(lim_fd, r, sizeof *r);
}

/* libjq calls this when malloc fails; it aborts otherwise. */
static void
lim_nomem(void *arg)
{
	(void)arg;
	lim_send(&lim_oom);
	_exit(0);
}

static void
lim_size(char *buf, size_t len, uint64_t n)
{
	if (n >= (UINT64_C(1) << 30) && n % (UINT64_C(1) << 30) == 0)
		snprintf(buf, len, "%" PRIu64 " GiB", n >> 30);
	else if (n >= (UINT64_C(1) << 20) && n % (UINT64_C(1) << 20) == 0)
		snprintf(buf, len, "%" PRIu64 " MiB", n >> 20);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", n);
}

static void
lim_set(const struct ofl_extract *o)
{
	struct rlimit	rl;

	/* A core file of a filter that ran too long helps no one. */
	rl.rlim_cur = rl.rlim_max = 0;
	(void)setrlimit(RLIMIT_CORE, &rl);
	if (o->time_limit > 0) {
		/* SIGXCPU at the limit, SIGKILL a second later. */
		rl.rlim_cur = o->time_limit;
		rl.rlim_max = (rlim_t)o->time_limit + 1;
		(void)setrlimit(RLIMIT_CPU, &rl);
	}
#ifndef __SANITIZE_ADDRESS__
	/* AddressSanitizer reserves terabytes of address space up front. */
	if (o->mem_limit > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)o->mem_limit;
		(void)setrlimit(RLIMIT_AS, &rl);
	}
#endif
}

/*
 * Run fn(arg) under the limits of o, what ("jq: the filter", "regex")
 * naming it in errors.  Output goes to fp, flushed on both sides.  No
 * limits, or an output stream with no descriptor: fn runs here.
 */
static int
limited(const struct ofl_extract *o, FILE *fp, const char *what,
    int (*fn)(void *), void *arg)
{
	struct lim_result	 r;
	char			 size[64];
	size_t			 got = 0;
	ssize_t			 n;
	pid_t			 pid;
	int			 p[2], status, rv;

	if ((o->time_limit == 0 && o->mem_limit == 0) || fp == NULL ||
	    fileno(fp) == -1)
		return fn(arg);
	fflush(fp);
	fflush(stderr);
	if (pipe(p) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		ofl_seterr(OFL_EXIT_FAIL, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		lim_fd = p[1];
		ofl_extract_set_oom(lim_oom.msg, lim_nomem);
		lim_size(size, sizeof size, o->mem_limit);
		memset(&lim_oom, 0, sizeof lim_oom);
		lim_oom.rv = -1;
		lim_oom.code = OFL_EXIT_FAIL;
		snprintf(lim_oom.msg, sizeof lim_oom.msg, "%s needs more than "
		    "%s of memory, the limit (--memory-limit)", what, size);
		jv_nomem_handler(lim_nomem, NULL);
		lim_set(o);
		ofl_clearerr();
		rv = fn(arg);
		memset(&r, 0, sizeof r);
		if (fflush(fp) == EOF || ferror(fp)) {
			if (rv != -1)
				ofl_seterr(OFL_EXIT_FAIL, "write: %s",
				    strerror(errno));
			rv = -1;
		}
		fflush(stderr);
		r.rv = rv;
		if (rv == -1) {
			r.code = ofl_errcode();
			snprintf(r.msg, sizeof r.msg, "%s", ofl_errmsg());
		}
		lim_send(&r);
		_exit(0);
	}
	close(p[1]);
	memset(&r, 0, sizeof r);
	while (got < sizeof r) {
		n = read(p[0], (char *)&r + got, sizeof r - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			ofl_seterr(OFL_EXIT_FAIL, "waitpid: %s",
			    strerror(errno));
			return -1;
		}
	if (got == sizeof r) {
		r.msg[sizeof r.msg - 1] = '\0';
		if (r.rv == -1)
			ofl_seterr(r.code != 0 ? r.code : OFL_EXIT_FAIL, "%s",
			    r.msg);
		return r.rv;
	}
	if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU ||
	    WTERMSIG(status) == SIGKILL) && o->time_limit > 0)
		ofl_seterr(OFL_EXIT_FAIL, "%s used %u s of CPU time, the limit "
		    "(--time-limit)", what, o->time_limit);
	else if (o->mem_limit > 0 && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGSEGV) {
		/* A stack that cannot grow, or a bug: either may be. */
		lim_size(size, sizeof size, o->mem_limit);
		ofl_seterr(OFL_EXIT_FAIL, "%s crashed (signal %d): a bug, or it "
		    "needs more than %s of memory, the limit (--memory-limit)",
		    what, SIGSEGV, size);
	} else if (o->mem_limit > 0 && ((WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGABRT) ||
	    (WIFEXITED(status) && WEXITSTATUS(status) != 0))) {
		lim_size(size, sizeof size, o->mem_limit);
		ofl_seterr(OFL_EXIT_FAIL, "%s needs more than %s of memory, "
		    "the limit (--memory-limit)", what, size);
	} else if (WIFSIGNALED(status))
		ofl_seterr(OFL_EXIT_FAIL, "%s was killed by signal %d", what,
		    WTERMSIG(status));
	else
		ofl_seterr(OFL_EXIT_FAIL, "%s ended with status %d", what,
		    WEXITSTATUS(status));
	return -1;
}

/* The entry point. */

int
ofl_extract_check(const struct ofl_extract *o)
{
	if (o->mode == OFL_EXTRACT_REGEX && limited(o, o->out != NULL ?
	    o->out : stdout, "regex", ofl_extract_regex_check,
	    (void *)o) == -1)
		return -1;
	if (o->mode == OFL_EXTRACT_JQ)
		return ofl_extract_jq_check(o);
	return 0;
}

/* The run itself, in a child process for a filter or a regex. */
static int
run_limited(void *arg)
{
	struct ex	*x = arg;
	const char	*note;
	char		 nb[80];
	int		 rv;

	switch (x->o->mode) {
	case OFL_EXTRACT_REGEX:
		rv = ofl_extract_regex(x);
		break;
	case OFL_EXTRACT_ERRORS:
		rv = ofl_extract_errors(x);
		break;
	case OFL_EXTRACT_JQ:
		rv = ofl_extract_jq(x);
		break;
	case OFL_EXTRACT_TEMPLATE:
		rv = ofl_extract_tmpl(x);
		break;
	case OFL_EXTRACT_ROLE:
		rv = ofl_extract_role(x);
		break;
	default:
		rv = run_raw(x);
		break;
	}
	if (x->werr)
		rv = -1;
	if ((note = ofl_redactor_note(x->red, nb, sizeof nb)) != NULL)
		ofl_extract_warnf(x, "%s", note);
	return rv;
}

int
ofl_extract(struct ofl_store *st, const char *id, const struct ofl_extract *o)
{
	struct ex	x;
	int		rv = -1;

	memset(&x, 0, sizeof x);
	x.o = o;
	x.st = st;
	x.id = id;
	x.fp = o->out != NULL ? o->out : stdout;
	x.max = o->max_bytes;
	x.lastnl = 1;
	ofl_buf_init(&x.tmp);
	ofl_buf_init(&x.rbuf);
	if (o->redact)
		x.red = ofl_redactor_new();
	if (ofl_extract_src_open(&x) == -1)
		goto out;
	switch (o->mode) {
	case OFL_EXTRACT_REGEX:
		rv = limited(o, x.fp, "regex", run_limited, &x);
		break;
	case OFL_EXTRACT_JQ:
		rv = limited(o, x.fp, "jq: the filter", run_limited, &x);
		break;
	default:
		rv = run_limited(&x);
		break;
	}
out:
	ofl_redactor_free(x.red);
	ofl_buf_free(&x.rbuf);
	ofl_extract_src_close(&x.src);
	free(x.scope);
	ofl_buf_free(&x.tmp);
	return rv;
}
