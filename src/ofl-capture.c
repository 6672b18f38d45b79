/*
 * ofl-capture: store output and print it when small, else a notice.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

extern char **environ;

#define READ_SIZE	(128 * 1024)
#define IDLE_FLUSH_MS	1000	/* commit a quiet stream this often */
#define DRAIN_MS	200	/* read on this long after the command exits */
#define SCRUB_LINE_MAX	(64 * 1024)

/* One captured stream: the standard input or one command's output. */
struct capture {
	const char		*command;	/* for the metadata and header */
	pid_t			 pid;		/* -1: stdin or done */
	int			 fd;		/* output pipe, -1 at EOF */
	int			 exec_errno;
	int			 status;	/* exit status to report */
	int			 has_exit;
	int64_t			 start;		/* monotonic ms */
	int64_t			 end;
	int64_t			 last_flush;
	struct ofl_writer	*w;
	char			 werr[512];	/* why storing failed */
	struct ofl_buf		 keep;		/* the first keep_max bytes */
	uint64_t		 total;
	unsigned char		*tail;		/* the last tail_max bytes */
	size_t			 tail_len;
	size_t			 tail_pos;
	int			 offload;
	struct ofl_meta		 meta;		/* when stored */
	int			 stored;
	struct ofl_buf		 line;		/* partial line when scrubbing */
};

static struct ofl_store	*store;
static char		 store_err[512];
static const char	*opt_store;
static const char	*opt_label;
static const char	*opt_session;
static int64_t		 opt_ttl;
static int		 opt_quiet;
static int		 opt_json;
static long long	 opt_threshold = 6000;
static long long	 opt_combined = 10000;
static struct ofl_notice_opts nopts;
static size_t		 keep_max;
static int		 multi;		/* several -e commands */
static size_t		 tail_max = 2048;
static volatile sig_atomic_t got_signal;
static struct ofl_redactor *scrubber;	/* store setting scrub=on */

static OFL_DEAD void	usage(int);
static void		on_signal(int);
static void		capture_init(struct capture *, const char *);
static void		capture_data(struct capture *, const char *, size_t);
static void		capture_finish(struct capture *, int);
static void		scrub(struct capture *, const char *, size_t, int);
static int		spawn(struct capture *, char *const []);
static void		run_loop(struct capture *, size_t, int);
static void		emit(struct capture *, struct ofl_buf *, int);
static void		emit_failed(struct capture *, struct ofl_buf *);
static char		*join_argv(char *const []);
static long long	env_num(const char *, long long);
static void		auto_gc(void);

/*
 * Like git's auto gc: when the store is over its budget or holds expired
 * artifacts, start ofl-gc in the background.  At most once a minute (the
 * gc lock file's time says when the last one ran); off with the store
 * setting auto-gc=off.
 */
static void
auto_gc(void)
{
	struct ofl_buf	 lock, gc;
	struct stat	 sb;
	char		*v, *slash, self[4096];
	uint64_t	 max = 0;
	int64_t		 ttl = 0, now = ofl_now_ms();
	ssize_t		 n;
	int		 due = 0, fd;
	pid_t		 pid;

	if (store == NULL)
		return;
	ofl_buf_init(&lock);
	ofl_buf_addf(&lock, "%s/gc.lock", ofl_store_path(store));
	if (stat(ofl_buf_str(&lock), &sb) == 0 &&
	    (int64_t)sb.st_mtime * 1000 > now - 60000)
		goto out;
	if ((v = ofl_setting_get(store, "auto-gc")) != NULL &&
	    strcmp(v, "off") == 0) {
		free(v);
		goto out;
	}
	free(v);
	if ((v = ofl_setting_get(store, "max-size")) != NULL) {
		if (strcmp(v, "none") != 0)
			(void)ofl_parse_size(v, &max);
		free(v);
	}
	if ((v = ofl_setting_get(store, "ttl")) != NULL) {
		if (strcmp(v, "never") != 0)
			(void)ofl_parse_duration(v, &ttl);
		free(v);
	}
	if (max > 0 && ofl_store_size(store) > max)
		due = 1;
	if (!due && ofl_store_expired(store, ttl))
		due = 1;
	/* Mark the attempt, so the next captures do not all try. */
	if ((fd = open(ofl_buf_str(&lock), O_WRONLY | O_CREAT | O_CLOEXEC,
	    0600)) != -1) {
		futimens(fd, NULL);
		close(fd);
	}
	if (!due)
		goto out;
	ofl_buf_init(&gc);
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			ofl_buf_addf(&gc, "%s/ofl-gc", self);
		}
	}
	if (gc.len == 0 || access(ofl_buf_str(&gc), X_OK) == -1) {
		ofl_buf_reset(&gc);
		ofl_buf_adds(&gc, "ofl-gc");
	}
	if ((pid = fork()) == 0) {
		/* Detach: a grandchild that nobody waits for. */
		if (fork() != 0)
			_exit(0);
		setsid();
		fd = open("/dev/null", O_RDWR);
		if (fd != -1) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execlp(ofl_buf_str(&gc), "ofl-gc", "--auto", "-s",
		    ofl_store_path(store), (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	ofl_buf_free(&gc);
out:
	ofl_buf_free(&lock);
}

static OFL_DEAD void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: ofl-capture [-jq] [-C tokens] [-H bytes] [-i intent] "
	    "[-l label] [-S session]\n"
	    "                   [-s store] [-T tokens] [-t ttl] "
	    "[--tail bytes] [-e command ...]\n"
	    "                   [-- command [arg ...] | -]\n");
	if (status == 0)
		fprintf(stdout, "\n"
		    "Store the output of a command (or stdin) and print it "
		    "when small,\n"
		    "else a notice with a preview and a reference ofl:ID.  "
		    "With no command\n"
		    "or '-', read standard input.\n\n"
		    "  -e, --exec CMD          run CMD with sh -c; repeat to "
		    "run in parallel\n"
		    "  -T, --threshold TOKENS  offload above this many "
		    "estimated tokens (6000)\n"
		    "  -C, --combined TOKENS   budget for several -e "
		    "outputs together (10000)\n"
		    "  -H, --head BYTES        preview head size (600)\n"
		    "      --tail BYTES        preview tail size (400)\n"
		    "  -i, --intent TEXT       show the top matches for TEXT "
		    "instead of a preview\n"
		    "  -l, --label TEXT        label the artifact\n"
		    "  -t, --ttl DURATION      expire after 30s, 15m, 3h, "
		    "7d, 2w\n"
		    "  -S, --session NAME      session (default "
		    "$OFL_SESSION)\n"
		    "  -s, --store DIR         store (default $OFL_STORE)\n"
		    "  -q, --quiet             print only ofl:ID when "
		    "offloaded\n"
		    "  -j, --json              print one JSON object\n"
		    "      --no-redact         show secrets in the notice "
		    "unmasked\n"
		    "  -h, --help              print this help\n"
		    "  -V, --version           print the version\n");
	exit(status);
}

static void
on_signal(int sig)
{
	got_signal = sig;
}

static long long
env_num(const char *name, long long def)
{
	const char	*e = getenv(name);
	long long	 v;

	if (e == NULL || *e == '\0')
		return def;
	/* A bad setting is a usage error, in every mode. */
	if (ofl_parse_num(e, 0, 1LL << 40, &v) == -1)
		errx(OFL_EXIT_USAGE, "%s: %s", name, ofl_errmsg());
	return v;
}

static char *
join_argv(char *const argv[])
{
	struct ofl_buf	 b;
	char		*q;
	int		 i;

	ofl_buf_init(&b);
	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			ofl_buf_addc(&b, ' ');
		q = ofl_shquote(argv[i]);
		ofl_buf_adds(&b, q);
		free(q);
	}
	return ofl_buf_str(&b);
}

static void
capture_init(struct capture *c, const char *command)
{
	struct ofl_meta	 init;
	char		 cwd[4096];

	memset(c, 0, sizeof *c);
	c->command = command;
	c->pid = -1;
	c->fd = -1;
	c->start = ofl_mono_ms();
	c->last_flush = c->start;
	ofl_buf_init(&c->keep);
	c->tail = ofl_xmalloc(tail_max);
	if (store == NULL) {
		snprintf(c->werr, sizeof c->werr, "%s", store_err);
		return;
	}
	memset(&init, 0, sizeof init);
	init.label = (char *)opt_label;
	init.command = (char *)command;
	init.session = (char *)opt_session;
	if (getcwd(cwd, sizeof cwd) != NULL)
		init.cwd = cwd;
	if (opt_ttl > 0)
		init.expires = ofl_now_ms() + opt_ttl;
	if ((c->w = ofl_writer_begin(store, &init)) == NULL)
		snprintf(c->werr, sizeof c->werr, "%s", ofl_errmsg());
}

static void
capture_data(struct capture *c, const char *p, size_t n)
{
	size_t	take;

	if (c->keep.len < keep_max) {
		take = keep_max - c->keep.len;
		ofl_buf_add(&c->keep, p, take < n ? take : n);
	}
	c->total += n;
	/* The tail ring, for a preview if storing fails. */
	if (n >= tail_max) {
		memcpy(c->tail, p + n - tail_max, tail_max);
		c->tail_len = tail_max;
		c->tail_pos = 0;
	} else {
		size_t	first = tail_max - c->tail_pos;

		if (first > n)
			first = n;
		memcpy(c->tail + c->tail_pos, p, first);
		memcpy(c->tail, p + first, n - first);
		c->tail_pos = (c->tail_pos + n) % tail_max;
		c->tail_len = c->tail_len + n > tail_max ? tail_max :
		    c->tail_len + n;
	}
	if (c->w == NULL)
		return;
	if (scrubber != NULL) {
		scrub(c, p, n, 0);
		return;
	}
	if (ofl_writer_write(c->w, p, n) == -1) {
		snprintf(c->werr, sizeof c->werr, "%s", ofl_errmsg());
		capture_finish(c, 1);
	}
}

/*
 * With scrub=on, secrets are masked before they reach the store: whole
 * lines go through the redactor; a line longer than SCRUB_LINE_MAX is
 * masked in pieces.
 */
static void
scrub(struct capture *c, const char *p, size_t n, int last)
{
	struct ofl_buf	 out;
	const char	*nl, *end = p + n;

	ofl_buf_init(&out);
	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			ofl_buf_add(&c->line, p, (size_t)(end - p));
			break;
		}
		ofl_buf_add(&c->line, p, (size_t)(nl - p));
		ofl_redact_line(scrubber, c->line.data, c->line.len, &out);
		ofl_buf_addc(&out, '\n');
		ofl_buf_reset(&c->line);
		p = nl + 1;
	}
	if (c->line.len > SCRUB_LINE_MAX || (last && c->line.len > 0)) {
		ofl_redact_line(scrubber, c->line.data, c->line.len, &out);
		ofl_buf_reset(&c->line);
	}
	if (out.len > 0 && ofl_writer_write(c->w, out.data, out.len) == -1) {
		snprintf(c->werr, sizeof c->werr, "%s", ofl_errmsg());
		ofl_buf_free(&out);
		capture_finish(c, 1);
		return;
	}
	ofl_buf_free(&out);
}

/* Finish storing; on failure keep what was committed, marked incomplete. */
static void
capture_finish(struct capture *c, int incomplete)
{
	struct ofl_meta	fin;

	if (c->w == NULL)
		return;
	if (scrubber != NULL && c->line.len > 0) {
		scrub(c, "", 0, 1);
		if (c->w == NULL)
			return;
	}
	memset(&fin, 0, sizeof fin);
	/*
	 * One command whose output passes through prints exactly what it
	 * read: say so now, saving a transaction later.
	 */
	fin.printed = c->total <= keep_max - 1 && !multi && !opt_json &&
	    c->werr[0] == '\0' ? (int64_t)c->total : -1;
	fin.incomplete = incomplete || c->werr[0] != '\0';
	fin.has_exit = c->has_exit;
	fin.exit_status = c->status;
	fin.duration_ms = c->end > 0 ? c->end - c->start : -1;
	if (ofl_writer_finish(c->w, &fin, &c->meta) == -1) {
		if (c->werr[0] == '\0')
			snprintf(c->werr, sizeof c->werr, "%s", ofl_errmsg());
	} else if (c->werr[0] == '\0')
		c->stored = 1;
	c->w = NULL;
}

/*
 * Start a command with stdout and stderr on one pipe, so that their
 * bytes arrive in the order the command wrote them.  posix_spawn(3)
 * forks cheaply (vfork-style) and reports an exec failure itself.
 */
static int
spawn(struct capture *c, char *const argv[])
{
	posix_spawn_file_actions_t	 fa;
	posix_spawnattr_t		 at;
	sigset_t			 def;
	int				 out[2], e;
	pid_t				 pid;

	if (pipe(out) == -1)
		return -1;
	if (fcntl(out[0], F_SETFD, FD_CLOEXEC) == -1)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, out[1], STDERR_FILENO);
	if (out[1] > STDERR_FILENO)
		posix_spawn_file_actions_addclose(&fa, out[1]);
	/* What ofl-capture ignores, the command must not. */
	posix_spawnattr_init(&at);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGXFSZ);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGHUP);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
	e = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(out[1]);
	if (e != 0) {
		/* Nothing ran: 127 if not found, else 126, as env(1). */
		close(out[0]);
		c->exec_errno = e;
		c->has_exit = 1;
		c->status = e == ENOENT ? OFL_EXIT_NOTFOUND : OFL_EXIT_NOEXEC;
		c->end = ofl_mono_ms();
		return 0;
	}
	c->pid = pid;
	c->fd = out[0];
	return 0;
}

static void
reap(struct capture *c, int status)
{
	c->end = ofl_mono_ms();
	c->has_exit = 1;
	if (WIFEXITED(status))
		c->status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		c->status = 128 + WTERMSIG(status);
	else
		c->status = OFL_EXIT_CAPTURE_FAIL;
	c->pid = -1;
}

/*
 * Read every stream to its end.  A quiet stream's bytes are committed
 * every IDLE_FLUSH_MS, so a capture killed with SIGKILL keeps them.
 */
static void
run_loop(struct capture *cs, size_t n, int from_stdin)
{
	struct pollfd	*pfd;
	char		*buf;
	size_t		 i, open;
	int		 timeout, status, forwarded = 0;
	int64_t		 now;
	ssize_t		 got;
	pid_t		 pid;

	pfd = ofl_xcalloc(n, sizeof *pfd);
	buf = ofl_xmalloc(READ_SIZE);
	for (;;) {
		open = 0;
		for (i = 0; i < n; i++) {
			pfd[i].fd = cs[i].fd;
			pfd[i].events = POLLIN;
			if (cs[i].fd != -1)
				open++;
		}
		if (open == 0)
			break;
		if (got_signal && !forwarded) {
			forwarded = 1;
			if (from_stdin)
				break;
			for (i = 0; i < n; i++)
				if (cs[i].pid != -1)
					kill(cs[i].pid, got_signal);
		}
		timeout = 250;
		if (poll(pfd, n, timeout) == -1 && errno != EINTR)
			err(OFL_EXIT_CAPTURE_FAIL, "poll");
		now = ofl_mono_ms();
		for (i = 0; i < n; i++) {
			if (cs[i].fd == -1)
				continue;
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
				got = read(cs[i].fd, buf, READ_SIZE);
				if (got > 0) {
					capture_data(&cs[i], buf, (size_t)got);
					continue;
				}
				if (got == -1 && (errno == EINTR ||
				    errno == EAGAIN))
					continue;
				if (!from_stdin || cs[i].fd != STDIN_FILENO)
					close(cs[i].fd);
				cs[i].fd = -1;
			} else if (cs[i].w != NULL &&
			    now - cs[i].last_flush >= IDLE_FLUSH_MS) {
				cs[i].last_flush = now;
				if (ofl_writer_flush(cs[i].w) == -1) {
					snprintf(cs[i].werr,
					    sizeof cs[i].werr, "%s",
					    ofl_errmsg());
					capture_finish(&cs[i], 1);
				}
			}
			/*
			 * The command is gone but something it started
			 * holds the pipe: stop after a short drain.
			 */
			if (cs[i].fd != -1 && cs[i].pid == -1 &&
			    cs[i].end > 0 && now - cs[i].end > DRAIN_MS &&
			    !(pfd[i].revents & POLLIN)) {
				close(cs[i].fd);
				cs[i].fd = -1;
			}
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			for (i = 0; i < n; i++)
				if (cs[i].pid == pid)
					reap(&cs[i], status);
		}
	}
	for (i = 0; i < n; i++) {
		if (cs[i].pid == -1)
			continue;
		while ((pid = waitpid(cs[i].pid, &status, 0)) == -1 &&
		    errno == EINTR) {
			if (got_signal)
				kill(cs[i].pid, got_signal);
		}
		if (pid == cs[i].pid)
			reap(&cs[i], status);
	}
	free(buf);
	free(pfd);
}

/* What to print when storing failed: never the raw output when large. */
static void
emit_failed(struct capture *c, struct ofl_buf *out)
{
	size_t	budget = (size_t)opt_threshold * 4, n;

	/* Even with a tiny threshold, the preview gets its usual room. */
	if (budget < nopts.head_bytes + nopts.tail_bytes)
		budget = nopts.head_bytes + nopts.tail_bytes;
	char	size[32];

	if (c->total <= (uint64_t)keep_max - 1 &&
	    c->total <= (uint64_t)opt_threshold * 4) {
		ofl_buf_add(out, c->keep.data, c->keep.len);
		return;
	}
	ofl_fmt_size(size, sizeof size, c->total);
	ofl_buf_addf(out, "ofl: output not stored (%s): %s\n", size, c->werr);
	ofl_buf_adds(out, "--- head (not stored) ---\n");
	n = nopts.head_bytes < c->keep.len ? nopts.head_bytes : c->keep.len;
	ofl_render_safe(out, (unsigned char *)c->keep.data, n, budget / 2);
	ofl_buf_adds(out, "\n--- tail (not stored) ---\n");
	{
		unsigned char	*t = ofl_xmalloc(tail_max);
		size_t		 start, len = c->tail_len;

		start = (c->tail_pos + tail_max - len) % tail_max;
		for (n = 0; n < len; n++)
			t[n] = c->tail[(start + n) % tail_max];
		n = nopts.tail_bytes < len ? nopts.tail_bytes : len;
		ofl_render_safe(out, t + len - n, n, budget / 2);
		free(t);
	}
	ofl_buf_adds(out, "\n--- end of preview ---\n");
}

static void
emit(struct capture *c, struct ofl_buf *out, int header)
{
	if (header) {
		ofl_buf_addf(out, "==> %s <== exit %d\n", c->command,
		    c->status);
	}
	if (c->exec_errno != 0) {
		/* Nothing ran: the error went to stderr. */
		return;
	}
	if (!c->stored) {
		if (opt_json) {
			struct ofl_buf	t;

			ofl_buf_init(&t);
			emit_failed(c, &t);
			ofl_buf_adds(out, "{\"offloaded\":false,"
			    "\"store_failed\":true,\"error\":");
			ofl_buf_add_json_str(out, c->werr, strlen(c->werr));
			ofl_buf_adds(out, ",\"output\":");
			ofl_buf_add_json_str(out, t.data, t.len);
			ofl_buf_adds(out, "}\n");
			ofl_buf_free(&t);
		} else
			emit_failed(c, out);
		return;
	}
	if (opt_json) {
		struct ofl_buf	t;

		ofl_buf_init(&t);
		ofl_meta_json(&t, &c->meta);
		/* Open the object again to add our fields. */
		if (t.len >= 2 && t.data[t.len - 1] == '\n')
			t.len -= 2;
		ofl_buf_add(out, t.data, t.len);
		ofl_buf_addf(out, ",\"offloaded\":%s,", c->offload ? "true" :
		    "false");
		ofl_buf_reset(&t);
		if (c->offload) {
			if (ofl_notice(store, &c->meta, &nopts, &t) == -1) {
				ofl_buf_reset(&t);
				ofl_notice_refline(&t, &c->meta);
				ofl_buf_addc(&t, '\n');
			}
			ofl_buf_adds(out, "\"notice\":");
		} else {
			ofl_buf_add(&t, c->keep.data, c->keep.len);
			ofl_buf_adds(out, "\"output\":");
		}
		ofl_buf_add_json_str(out, t.data, t.len);
		ofl_buf_adds(out, "}\n");
		ofl_buf_free(&t);
		return;
	}
	if (!c->offload) {
		ofl_buf_add(out, c->keep.data, c->keep.len);
		/* Under a header, the next header starts on its own line. */
		if (header && c->keep.len > 0 &&
		    c->keep.data[c->keep.len - 1] != '\n')
			ofl_buf_addc(out, '\n');
		return;
	}
	if (opt_quiet) {
		ofl_buf_addf(out, "ofl:%s\n", c->meta.id);
		return;
	}
	if (ofl_notice(store, &c->meta, &nopts, out) == -1) {
		warnx("notice: %s", ofl_errmsg());
		ofl_notice_refline(out, &c->meta);
		ofl_buf_addc(out, '\n');
	}
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "combined",	required_argument,	NULL, 'C' },
		{ "exec",	required_argument,	NULL, 'e' },
		{ "head",	required_argument,	NULL, 'H' },
		{ "intent",	required_argument,	NULL, 'i' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "no-redact",	no_argument,		NULL, 0x4e52 },
		{ "label",	required_argument,	NULL, 'l' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "session",	required_argument,	NULL, 'S' },
		{ "store",	required_argument,	NULL, 's' },
		{ "tail",	required_argument,	NULL, 'L' },
		{ "threshold",	required_argument,	NULL, 'T' },
		{ "ttl",	required_argument,	NULL, 't' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL,		0,			NULL, 0 }
	};
	struct capture	*cs;
	struct ofl_buf	 out;
	const char	**execs = NULL;
	char		*joined = NULL;
	size_t		 nexec = 0, i, n;
	long long	 v;
	uint64_t	 kept_tokens;
	int		 ch, rv = 0, any_fail = 0;
	struct sigaction sa;

	ofl_setprogname("ofl-capture");
	ofl_notice_opts_init(&nopts);
	opt_threshold = env_num("OFL_THRESHOLD", opt_threshold);
	opt_combined = env_num("OFL_COMBINED", opt_combined);
	nopts.head_bytes = (size_t)env_num("OFL_HEAD",
	    (long long)nopts.head_bytes);
	nopts.tail_bytes = (size_t)env_num("OFL_TAIL",
	    (long long)nopts.tail_bytes);
	nopts.intent = getenv("OFL_INTENT");
	if (nopts.intent != NULL && *nopts.intent == '\0')
		nopts.intent = NULL;
	opt_session = getenv("OFL_SESSION");
	if (opt_session != NULL && *opt_session == '\0')
		opt_session = NULL;

	while ((ch = getopt_long(argc, argv, "+C:e:H:hi:jl:qS:s:T:t:V",
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'C':
		case 'T':
		case 'H':
		case 'L':
			if (ofl_parse_num(optarg, 0, 1LL << 40, &v) == -1) {
				warnx("%s", ofl_errmsg());
				usage(OFL_EXIT_USAGE);
			}
			if (ch == 'C')
				opt_combined = v;
			else if (ch == 'T')
				opt_threshold = v;
			else if (ch == 'H')
				nopts.head_bytes = (size_t)v;
			else
				nopts.tail_bytes = (size_t)v;
			break;
		case 'e':
			execs = ofl_xrealloc(execs, (nexec + 1) *
			    sizeof *execs);
			execs[nexec++] = optarg;
			break;
		case 'h':
			usage(0);
		case 'i':
			nopts.intent = *optarg != '\0' ? optarg : NULL;
			break;
		case 0x4e52:	/* --no-redact */
			ofl_redact_force(0);
			break;
		case 'j':
			opt_json = 1;
			break;
		case 'l':
			opt_label = optarg;
			break;
		case 'q':
			opt_quiet = 1;
			break;
		case 'S':
			opt_session = *optarg != '\0' ? optarg : NULL;
			break;
		case 's':
			opt_store = optarg;
			break;
		case 't':
			if (ofl_parse_duration(optarg, &opt_ttl) == -1) {
				warnx("%s", ofl_errmsg());
				usage(OFL_EXIT_USAGE);
			}
			break;
		case 'V':
			printf("ofl %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(OFL_EXIT_USAGE);
		}
	}
	/* "-" alone is standard input, as with no operand (not after --). */
	if (argc - optind == 1 && strcmp(argv[optind], "-") == 0 &&
	    strcmp(argv[optind - 1], "--") != 0)
		optind++;
	argc -= optind;
	argv += optind;
	if (nexec > 0 && argc > 0) {
		warnx("give either -e commands or -- command, not both");
		usage(OFL_EXIT_USAGE);
	}
	multi = nexec > 1;
	keep_max = (size_t)opt_threshold * 4 + 1;
	if (keep_max < nopts.head_bytes + 1)
		keep_max = nopts.head_bytes + 1;
	if (tail_max < nopts.tail_bytes)
		tail_max = nopts.tail_bytes;

	/* A store that cannot be (a URL, a relative path): before running. */
	{
		char	*where;

		if ((where = ofl_store_where(opt_store)) == NULL &&
		    ofl_errcode() == OFL_EXIT_USAGE)
			errx(OFL_EXIT_USAGE, "%s", ofl_errmsg());
		free(where);
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);

	if ((store = ofl_store_open(opt_store, OFL_RDWR)) == NULL) {
		snprintf(store_err, sizeof store_err, "%s", ofl_errmsg());
		warnx("%s", store_err);
	} else {
		char	*scrub_on = ofl_setting_get(store, "scrub");

		if (scrub_on != NULL && strcmp(scrub_on, "on") == 0)
			scrubber = ofl_redactor_new();
		free(scrub_on);
	}

	n = nexec > 0 ? nexec : 1;
	cs = ofl_xcalloc(n, sizeof *cs);
	if (nexec > 0) {
		for (i = 0; i < nexec; i++) {
			char *sh[] = { "sh", "-c", (char *)execs[i], NULL };

			capture_init(&cs[i], execs[i]);
			if (spawn(&cs[i], sh) == -1)
				err(OFL_EXIT_CAPTURE_FAIL, "%s", execs[i]);
		}
	} else if (argc > 0) {
		joined = join_argv(argv);
		capture_init(&cs[0], joined);
		if (spawn(&cs[0], argv) == -1)
			err(OFL_EXIT_CAPTURE_FAIL, "%s", argv[0]);
	} else {
		capture_init(&cs[0], NULL);
		cs[0].fd = STDIN_FILENO;
	}
	run_loop(cs, n, nexec == 0 && argc == 0);

	for (i = 0; i < n; i++) {
		if (cs[i].exec_errno != 0)
			warnx("%s: %s", nexec > 0 ? execs[i] : argv[0],
			    strerror(cs[i].exec_errno));
		if (cs[i].end == 0)
			cs[i].end = ofl_mono_ms();
		capture_finish(&cs[i], got_signal != 0);
		if (cs[i].werr[0] != '\0' && store != NULL) {
			if (cs[i].meta.id[0] != '\0')
				warnx("ofl:%s: stored only in part: %s",
				    cs[i].meta.id, cs[i].werr);
			else
				warnx("cannot store output: %s", cs[i].werr);
		}
		if (cs[i].werr[0] != '\0')
			any_fail = 1;
		/* A partly stored artifact is still worth a notice. */
		if (!cs[i].stored && cs[i].meta.id[0] != '\0' &&
		    cs[i].total > keep_max - 1)
			cs[i].stored = 1;
		cs[i].offload = ofl_tokens(cs[i].total) >
		    (uint64_t)opt_threshold || cs[i].total > keep_max - 1;
	}

	/* Several commands: offload the largest until the rest fits. */
	if (nexec > 1) {
		for (;;) {
			size_t	big = n;

			kept_tokens = 0;
			for (i = 0; i < n; i++) {
				if (cs[i].offload || !cs[i].stored)
					continue;
				kept_tokens += ofl_tokens(cs[i].total);
				if (big == n || cs[i].total > cs[big].total)
					big = i;
			}
			if (kept_tokens <= (uint64_t)opt_combined || big == n)
				break;
			cs[big].offload = 1;
		}
	}

	ofl_buf_init(&out);
	for (i = 0; i < n; i++) {
		size_t	before = out.len;

		emit(&cs[i], &out, nexec > 0 && !opt_json);
		if (cs[i].stored && (cs[i].offload || multi || opt_json))
			ofl_store_set_printed(store, cs[i].meta.id,
			    out.len - before);
		if (cs[i].has_exit && (nexec > 0 || argc > 0) &&
		    cs[i].status > rv)
			rv = cs[i].status;
	}
	signal(SIGPIPE, SIG_DFL);
	if (ofl_write_all(STDOUT_FILENO, out.data, out.len) == -1)
		err(nexec > 0 || argc > 0 ? rv : OFL_EXIT_FAIL, "stdout");
	ofl_buf_free(&out);
	auto_gc();
	ofl_store_close(store);
	for (i = 0; i < n; i++) {
		ofl_buf_free(&cs[i].keep);
		ofl_buf_free(&cs[i].line);
		ofl_meta_free(&cs[i].meta);
		free(cs[i].tail);
	}
	free(cs);
	free(execs);
	free(joined);
	ofl_redactor_free(scrubber);

	if (nexec == 0 && argc == 0) {
		if (got_signal)
			return 128 + got_signal;
		return any_fail ? OFL_EXIT_FAIL : 0;
	}
	return rv;
}
