/*
 * ofl-mcp: an MCP proxy that offloads large tool results into the store.
 *
 * To the client it is an MCP server on stdin and stdout; to the wrapped
 * server (the command after --) it is the client.  Messages are JSON-RPC
 * 2.0, one per line (or in batches).  Everything passes through byte for
 * byte except tools/list (which gains ofl_search, ofl_extract, ofl_schema
 * and ofl_list, unless --no-tools), the tools capability of initialize
 * when the server has none, and results of tools/call, resources/read and
 * tasks/result over the threshold, which are stored and replaced by a
 * notice.  Answers are passed on as they come, never held for another.
 * Without a server it serves the added tools only.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jv.h>

#include "ofl.h"
#include "banned.h"

#define READ_SIZE	(64 * 1024)
#define GRACE_MS	3000	/* for the server to exit after EOF */
#define KILL_MS		2000	/* after SIGTERM, before SIGKILL */
#define FLUSH_MS	5000	/* to hand the last messages to the client */
#define DRAIN_MS	500	/* read on after the server exits */
#define PROTOCOL	"2025-11-25"

#define ERR_CLOSED	-32000	/* the server went away */
#define ERR_TIMEOUT	-32001	/* no answer in time */
#define ERR_TOOLONG	-32002	/* the answer was over --max-line */

#define DROP_HEAD	(64 * 1024)	/* of a dropped line, to find its id */
#define DROP_TAIL	256

/* A stream read line by line. */
struct lineq {
	int		 fd;
	struct ofl_buf	 buf;
	size_t		 scan;		/* bytes of buf known to have no \n */
	int		 eof;
	int		 skipping;	/* dropping an overlong line */
	uint64_t	 skipped;
	struct ofl_buf	 head;		/* its first DROP_HEAD bytes */
	char		 tail[DROP_TAIL]; /* and its last ones */
	size_t		 tlen;
};

/* A stream written without blocking. */
struct outq {
	int		 fd;
	struct ofl_buf	 buf;
	size_t		 off;
	int		 dead;
};

enum {
	CALL_PENDING,	/* waiting for its answer */
	CALL_DEAD	/* answered with an error (timeout, cancelled) */
};

/* A request of the client that we wait on. */
struct call {
	struct call	*next;
	uint64_t	 seq;
	jv		 id;
	char		*key;		/* the id as JSON text */
	char		*method;
	char		*tool;		/* tools/call */
	char		*args;		/* its arguments as JSON text */
	char		*progress;	/* progress token as JSON text */
	int		 local;		/* one of ours: enum ofl_mcp_tool */
	int		 is_tool;	/* a result to offload: in a group */
	int		 list_first;	/* tools/list without a cursor */
	int		 keep;		/* an answer never offloaded */
	int		 state;
	uint64_t	 batch;		/* the client's batch it came in, or 0 */
	int64_t		 start;
	int64_t		 deadline;	/* 0: none */
	/* The answer. */
	struct ofl_buf	 raw;		/* the message as it will be sent */
	jv		 msg;		/* parsed, if it may still be offloaded */
	uint64_t	 tokens;
	int		 offloaded;
	/* A local tool's process. */
	pid_t		 pid;
	int		 outfd;
	int		 errfd;
	struct ofl_buf	 out;
	struct ofl_buf	 err;
	int		 wstatus;
	int		 reaped;
	int		 killed;
	/* Waiting for a free slot (--jobs), with its arguments. */
	int		 queued;
	jv		 qargs;
};

/*
 * A JSON-RPC batch of the client: the answers to its calls of our tools,
 * and the server's answer to the rest, go back in one array once none of
 * its calls waits.
 */
struct batch {
	struct batch	*next;
	uint64_t	 id;
	int		 pending;	/* its calls not answered yet */
	jv		 answers;
};

/* Where each stream sits in the poll set; -1 when it is not there. */
struct pollset {
	struct pollfd	*pfd;
	size_t		 n;
	size_t		 cap;
	int		 sig;
	int		 cin;		/* from the client */
	int		 cout;		/* to the client */
	int		 sout;		/* from the server */
	int		 sin;		/* to the server */
};

static struct ofl_store	*store;
static struct ofl_notice_opts nopts;
static long long	 opt_threshold = 6000;
static long long	 opt_combined = 10000;
static int64_t		 opt_timeout_ms;	/* 0: none */
static long long	 opt_jobs;	/* 0: twice the processors */
static long long	 nrunning;	/* our tools' processes */
static uint64_t		 opt_max_binary = 1024 * 1024;
static uint64_t		 opt_max_line = 256 * 1024 * 1024;
static int64_t		 opt_ttl;
static const char	*opt_name;
static const char	*opt_session;
static char		 cwd[4096];
static char		*bindir;
static char		 names_buf[OFL_MCP_NTOOLS][32];
static const char	*names[OFL_MCP_NTOOLS];
static int		 names_prefixed;
static int		 opt_no_tools;
/* The server's tools that declare an output schema. */
static char		**schema_tools;
static size_t		 nschema_tools;
/* Tasks the server created for tools/calls: their tool, for tasks/result. */
struct task {
	struct task	*next;
	char		*id;		/* the task ID as JSON text */
	char		*tool;
	char		*args;
};
static struct task	*tasks;
static size_t		 ntasks;
#define MAX_TASKS	256

static struct call	*calls;
static uint64_t		 seq;
static struct batch	*batches;
static uint64_t		 batch_seq;
static uint64_t		 batch_cur;	/* the batch being read, or 0 */
static uint64_t		 group_sent;	/* tokens sent in this group */
static int		 group_size;	/* tools/calls in this group */

static int		 has_server;
static pid_t		 server_pid = -1;
static int		 server_status = -1;	/* wait status */
static int64_t		 server_exit_at;
static int		 server_gone;	/* its stdout is closed */
static int		 server_tools = 1;	/* it has tools */
static char		*server_name;
static struct lineq	 from_client, from_server;
static struct outq	 to_client, to_server;
static int		 client_eof;
static int64_t		 eof_at;
static int		 termed, killed_server;
static int		 sigpipe_fd[2] = { -1, -1 };
static volatile sig_atomic_t got_signal;

enum {
	O_COMBINED = OFL_OPT_BASE,
	O_JOBS,
	O_MAXBINARY,
	O_MAXLINE,
	O_NAME,
	O_NOTOOLS,
	O_TAIL,
	O_TIMEOUT
};

/* The options, in the order of --help; tests/t9040 checks the rest. */
static const struct ofl_opt opts[] = {
	{ 'T', "threshold", required_argument, "tokens",
	    "offload results above this many tokens (6000)", 0, NULL },
	{ O_COMBINED, "combined", required_argument, "tokens",
	    "budget of calls in flight together (10000)", 0, NULL },
	{ O_TIMEOUT, "timeout", required_argument, "seconds",
	    "answer an error when the server is silent (0: never)", 0, NULL },
	{ O_JOBS, "jobs", required_argument, "n",
	    "run at most n ofl tools at once (twice the processors)", 0,
	    NULL },
	{ O_MAXBINARY, "max-binary", required_argument, "bytes",
	    "offload images and blobs above this size (1M)", 0, NULL },
	{ O_MAXLINE, "max-line", required_argument, "bytes",
	    "drop longer messages of the server (256M)", 0, NULL },
	{ O_NAME, "name", required_argument, "name",
	    "server name in labels (default: its own)", 0, NULL },
	{ O_NOTOOLS, "no-tools", no_argument, NULL,
	    "add no ofl tools to the server's list", 0, NULL },
	{ 'H', "head", required_argument, "bytes", "preview head size (600)",
	    0, NULL },
	{ O_TAIL, "tail", required_argument, "bytes",
	    "preview tail size (400)", 0, NULL },
	{ 't', "ttl", required_argument, "ttl",
	    "artifacts expire after 30s, 15m, 3h, 7d, 2w", 0, NULL },
	{ 'S', "session", required_argument, "session",
	    "session (default $OFL_SESSION)", 0, NULL },
	{ 's', "store", required_argument, "store",
	    "store (default $OFL_STORE)", 0, NULL },
	{ 'h', "help", no_argument, NULL, "print this help", OFL_OPT_NOSYN,
	    NULL },
	{ 'V', "version", no_argument, NULL, "print the version",
	    OFL_OPT_NOSYN, NULL },
	/* Hidden: the old letters of --combined and --name. */
	{ 'C', NULL, required_argument, "tokens", NULL, 0, NULL },
	{ 'n', NULL, required_argument, "name", NULL, 0, NULL },
	{ 0, NULL, 0, NULL, NULL, 0, NULL }
};

static OFL_DEAD void	usage(int);
static int		parse_options(int, char *[], const char **);
static void		on_signal(int);
static void		on_child(int);
static long long	env_num(const char *, long long);
static void		set_nonblock(int);
static void		find_bindir(const char *);
static void		spawn_server(char *const []);
static void		outq_add(struct outq *, const char *, size_t);
static void		outq_flush(struct outq *);
static int		lineq_read(struct lineq *, void (*)(char *, size_t));
static void		dropped(struct lineq *);
static struct batch	*batch_find(uint64_t);
static void		batch_add(uint64_t, jv);
static void		batch_release(struct call *);
static void		batch_send(struct batch *);
static void		drop_keep(struct lineq *, const char *, size_t);
static char		*dropped_id(struct lineq *);
static void		dropped_answer(struct lineq *);
static void		send_client(const char *, size_t);
static void		send_server(const char *, size_t);
static void		send_client_jv(jv);
static void		send_error(const char *, int, const char *, ...)
			    OFL_PRINTF(3, 4);
static void		send_result_text(struct call *, const char *, size_t,
			    int);
static char		*jv_key(jv);
static const char	*jv_str(jv, const char *, char *, size_t);
static jv		jv_member(jv, const char *);
static jv		call_args(jv);
static struct call	*call_new(jv, const char *);
static struct call	*call_find(const char *, int);
static void		call_free(struct call *);
static void		call_unlink(struct call *);
static int		our_tool(const char *);
static void		from_client_line(char *, size_t);
static void		from_server_line(char *, size_t);
static void		serve_local(jv, const char *, const char *);
static void		start_local(struct call *, int, jv);
static void		start_queued(void);
static void		spawn_local(struct call *, jv);
static void		finish_local(struct call *);
static void		tool_answer(struct call *, jv, const char *, size_t);
static void		offload(struct call *, int);
static void		group_end(void);
static void		answer_prepare(struct call *, jv, const char *,
			    size_t);
static void		rewrite_list(struct call *, jv);
static void		learn_schemas(struct call *, jv);
static void		rewrite_init(jv);
static void		check_timeouts(int64_t);
static void		server_down(void);
static void		setup_io(char *[]);
static int		calls_busy(void);
static int		loop_done(void);
static void		end_server(int64_t);
static void		poll_add(struct pollset *, int, short, int *);
static void		poll_build(struct pollset *);
static int		poll_timeout(int64_t);
static int		pass_signal(void);
static void		reap_children(void);
static void		poll_streams(const struct pollset *);
static void		read_local(struct call *);
static void		read_locals(void);
static void		event_loop(void);
static int		finish(void);
static void		fill_call(struct call *, struct ofl_mcp_call *,
			    int64_t);
static int		has_schema(const char *);
static void		remember_task(struct call *, jv);
static void		task_of(struct call *, jv);
static struct call	*track(jv, jv, const char *);
static void		client_notice(jv, const char *);
static void		from_client_batch(jv, const char *, size_t);
static void		from_server_batch(jv, const char *, size_t);
static int		send_item(struct call *, jv);

static OFL_DEAD void
usage(int status)
{
	ofl_opt_usage(status ? stderr : stdout, "ofl-mcp", opts,
	    "[-- server [arg ...]]", NULL);
	if (status == 0) {
		fprintf(stdout, "\n"
		    "An MCP server on stdio that wraps another one: large "
		    "tool results are\n"
		    "stored as artifacts and replaced by a notice, and the "
		    "tools ofl_search,\n"
		    "ofl_extract, ofl_schema and ofl_list are added.  "
		    "Without a server, it\n"
		    "serves those tools alone.\n\n");
		ofl_opt_help(stdout, opts);
	}
	exit(status);
}

/*
 * The options, with their defaults from the environment, into the opt_
 * globals and nopts; returns the index of the first operand.
 */
static int
parse_options(int argc, char *argv[], const char **storep)
{
	struct ofl_getopt	 g;
	long long		 v;
	uint64_t		 sz;
	int			 ch;

	opt_threshold = env_num("OFL_THRESHOLD", opt_threshold);
	opt_combined = env_num("OFL_COMBINED", opt_combined);
	nopts.head_bytes = (size_t)env_num("OFL_HEAD",
	    (long long)nopts.head_bytes);
	nopts.tail_bytes = (size_t)env_num("OFL_TAIL",
	    (long long)nopts.tail_bytes);
	opt_session = getenv("OFL_SESSION");
	if (opt_session != NULL && *opt_session == '\0')
		opt_session = NULL;
	*storep = NULL;
	ofl_opt_init(&g, opts, 1);
	while ((ch = ofl_opt_next(&g, argc, argv)) != -1) {
		switch (ch) {
		case 'C':
		case O_COMBINED:
		case 'T':
		case 'H':
		case O_TAIL:
		case O_TIMEOUT:
			if (ofl_parse_num(optarg, 0, 1LL << 40, &v) == -1)
				errx(OFL_EXIT_USAGE, "%s %s",
				    ofl_opt_name(opts, ch), ofl_errmsg());
			if (ch == 'C' || ch == O_COMBINED)
				opt_combined = v;
			else if (ch == 'T')
				opt_threshold = v;
			else if (ch == 'H')
				nopts.head_bytes = (size_t)v;
			else if (ch == O_TAIL)
				nopts.tail_bytes = (size_t)v;
			else
				opt_timeout_ms = v * 1000;
			break;
		case O_MAXBINARY:
		case O_MAXLINE:
			if (ofl_parse_size(optarg, &sz) == -1)
				errx(OFL_EXIT_USAGE, "%s %s",
				    ofl_opt_name(opts, ch), ofl_errmsg());
			if (ch == O_MAXBINARY)
				opt_max_binary = sz;
			else if (sz < 1024 || sz > (uint64_t)INT_MAX)
				errx(OFL_EXIT_USAGE, "--max-line: from 1k to "
				    "2047M");
			else
				opt_max_line = sz;
			break;
		case 'h':
			usage(0);
		case O_JOBS:
			if (ofl_parse_num(optarg, 1, 4096, &v) == -1)
				errx(OFL_EXIT_USAGE, "--jobs %s",
				    ofl_errmsg());
			opt_jobs = v;
			break;
		case 'n':
		case O_NAME:
			opt_name = optarg;
			break;
		case O_NOTOOLS:
			opt_no_tools = 1;
			break;
		case 'S':
			opt_session = *optarg != '\0' ? optarg : NULL;
			break;
		case 's':
			*storep = optarg;
			break;
		case 't':
			if (ofl_parse_duration(optarg, &opt_ttl) == -1)
				errx(OFL_EXIT_USAGE, "%s %s",
				    ofl_opt_name(opts, ch), ofl_errmsg());
			break;
		case 'V':
			printf("ofl %s\n", PACKAGE_VERSION);
			exit(0);
		case OFL_OPT_LIST:
			ofl_opt_list(stdout, opts);
			exit(0);
		default:
			usage(OFL_EXIT_USAGE);
		}
	}
	ofl_opt_free(&g);
	return optind;
}

static void
on_signal(int sig)
{
	int	e = errno;

	got_signal = sig;
	if (sigpipe_fd[1] != -1)
		(void)!write(sigpipe_fd[1], "s", 1);
	errno = e;
}

static void
on_child(int sig)
{
	int	e = errno;

	(void)sig;
	if (sigpipe_fd[1] != -1)
		(void)!write(sigpipe_fd[1], "c", 1);
	errno = e;
}

static long long
env_num(const char *name, long long def)
{
	const char	*e = getenv(name);
	long long	 v;

	if (e == NULL || *e == '\0')
		return def;
	if (ofl_parse_num(e, 0, 1LL << 40, &v) == -1)
		errx(OFL_EXIT_USAGE, "%s: %s", name, ofl_errmsg());
	return v;
}

static void
set_nonblock(int fd)
{
	int	fl;

	if ((fl = fcntl(fd, F_GETFL)) != -1)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* The directory of this program: the ofl tools are run from there. */
static void
find_bindir(const char *argv0)
{
	char	 path[PATH_MAX], tool[PATH_MAX + 16], *slash;
	ssize_t	 n;

	n = readlink("/proc/self/exe", path, sizeof path - 1);
	if (n > 0)
		path[n] = '\0';
	else if (strchr(argv0, '/') != NULL)
		snprintf(path, sizeof path, "%s", argv0);
	else
		return;
	if ((slash = strrchr(path, '/')) == NULL)
		return;
	*slash = '\0';
	snprintf(tool, sizeof tool, "%s/ofl-search", path);
	if (access(tool, X_OK) == 0)
		bindir = ofl_xstrdup(path);
}

static void
spawn_server(char *const argv[])
{
	int	in[2], out[2], st[2], e;
	ssize_t	n;

	if (pipe(in) == -1 || pipe(out) == -1 || pipe(st) == -1)
		err(OFL_EXIT_FAIL, "pipe");
	if (fcntl(st[1], F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(st[0], F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(in[1], F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(out[0], F_SETFD, FD_CLOEXEC) == -1)
		err(OFL_EXIT_FAIL, "fcntl");
	if ((server_pid = fork()) == -1)
		err(OFL_EXIT_FAIL, "fork");
	if (server_pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		if (dup2(in[0], STDIN_FILENO) == -1 ||
		    dup2(out[1], STDOUT_FILENO) == -1)
			_exit(OFL_EXIT_CAPTURE_FAIL);
		if (in[0] > STDERR_FILENO)
			close(in[0]);
		if (out[1] > STDERR_FILENO)
			close(out[1]);
		execvp(argv[0], argv);
		e = errno;
		(void)!write(st[1], &e, sizeof e);
		_exit(e == ENOENT ? OFL_EXIT_NOTFOUND : OFL_EXIT_NOEXEC);
	}
	close(in[0]);
	close(out[1]);
	close(st[1]);
	while ((n = read(st[0], &e, sizeof e)) == -1 && errno == EINTR)
		;
	close(st[0]);
	if (n == (ssize_t)sizeof e) {
		errno = e;
		warn("%s", argv[0]);
		exit(e == ENOENT ? OFL_EXIT_NOTFOUND : OFL_EXIT_NOEXEC);
	}
	to_server.fd = in[1];
	from_server.fd = out[0];
	set_nonblock(in[1]);
	set_nonblock(out[0]);
}

static void
outq_add(struct outq *q, const char *p, size_t n)
{
	if (q->dead || q->fd == -1)
		return;
	ofl_buf_add(&q->buf, p, n);
	outq_flush(q);
}

static void
outq_flush(struct outq *q)
{
	ssize_t	n;

	while (!q->dead && q->fd != -1 && q->off < q->buf.len) {
		n = write(q->fd, q->buf.data + q->off, q->buf.len - q->off);
		if (n > 0) {
			q->off += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		q->dead = 1;
	}
	if (q->off == q->buf.len) {
		ofl_buf_reset(&q->buf);
		q->off = 0;
	} else if (q->off > 1024 * 1024 && q->off > q->buf.len / 2) {
		memmove(q->buf.data, q->buf.data + q->off, q->buf.len - q->off);
		q->buf.len -= q->off;
		q->off = 0;
	}
}

/* A message over the limit, skipped to its end: said, and forgotten. */
static void
dropped(struct lineq *q)
{
	char	size[32];

	ofl_fmt_size(size, sizeof size, q->skipped);
	warnx("dropped a message of %s from the %s: over the limit of %llu "
	    "bytes", size, q == &from_server ? "server" : "client",
	    (unsigned long long)opt_max_line);
	if (q == &from_server)
		dropped_answer(q);
	ofl_buf_free(&q->head);
	ofl_buf_init(&q->head);
	q->skipping = 0;
	q->skipped = 0;
}

/*
 * Read what is there and hand each complete line (without its newline)
 * to fn.  A line longer than the limit is dropped with a warning.
 * Returns -1 at the end of the stream.
 */
static int
lineq_read(struct lineq *q, void (*fn)(char *, size_t))
{
	char	 buf[READ_SIZE], *nl;
	ssize_t	 n;
	size_t	 start, len;
	int	 rounds = 0;

	while (rounds++ < 64) {
		n = read(q->fd, buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			/* The stream ended inside a message too long. */
			if (q->skipping)
				dropped(q);
			q->eof = 1;
			return -1;
		}
		start = 0;
		while (start < (size_t)n) {
			nl = memchr(buf + start, '\n', (size_t)n - start);
			len = (nl != NULL ? (size_t)(nl - buf) : (size_t)n) -
			    start;
			if (q->skipping) {
				q->skipped += len;
				drop_keep(q, buf + start, len);
			} else if (q->buf.len + len > opt_max_line) {
				q->skipping = 1;
				q->skipped = q->buf.len + len;
				ofl_buf_reset(&q->head);
				q->tlen = 0;
				drop_keep(q, q->buf.data, q->buf.len);
				drop_keep(q, buf + start, len);
				ofl_buf_reset(&q->buf);
			} else
				ofl_buf_add(&q->buf, buf + start, len);
			if (nl == NULL)
				break;
			start = (size_t)(nl - buf) + 1;
			if (q->skipping) {
				dropped(q);
				continue;
			}
			fn(ofl_buf_str(&q->buf), q->buf.len);
			/* A huge line leaves no huge buffer behind. */
			if (q->buf.cap > 4 * READ_SIZE) {
				ofl_buf_free(&q->buf);
				ofl_buf_init(&q->buf);
			} else
				ofl_buf_reset(&q->buf);
		}
	}
	return 0;
}

static struct batch *
batch_find(uint64_t id)
{
	struct batch	*b;

	for (b = batches; b != NULL; b = b->next)
		if (b->id == id)
			return b;
	return NULL;
}

/* An answer (consumed) for the batch id's response. */
static void
batch_add(uint64_t id, jv answer)
{
	struct batch	*b = batch_find(id);

	if (b == NULL || !jv_is_valid(answer)) {
		jv_free(answer);
		return;
	}
	b->answers = jv_array_append(b->answers, answer);
}

/* A call of a batch is answered, or will never be: is the batch done? */
static void
batch_release(struct call *c)
{
	struct batch	*b;

	if (c->batch == 0)
		return;
	b = batch_find(c->batch);
	c->batch = 0;
	if (b != NULL && --b->pending == 0)
		batch_send(b);
}

/* Send the batch's answers as one array, and forget it. */
static void
batch_send(struct batch *b)
{
	struct batch	**pp;

	for (pp = &batches; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == b) {
			*pp = b->next;
			break;
		}
	}
	if (jv_array_length(jv_copy(b->answers)) > 0)
		send_client_jv(jv_copy(b->answers));
	jv_free(b->answers);
	free(b);
}

/* Keep the head and the tail of a line being dropped. */
static void
drop_keep(struct lineq *q, const char *p, size_t n)
{
	size_t	k;

	if (q->head.len < DROP_HEAD) {
		k = DROP_HEAD - q->head.len;
		ofl_buf_add(&q->head, p, n < k ? n : k);
	}
	if (n >= DROP_TAIL) {
		memcpy(q->tail, p + n - DROP_TAIL, DROP_TAIL);
		q->tlen = DROP_TAIL;
	} else {
		k = q->tlen + n > DROP_TAIL ? q->tlen + n - DROP_TAIL : 0;
		memmove(q->tail, q->tail + k, q->tlen - k);
		memcpy(q->tail + q->tlen - k, p, n);
		q->tlen = q->tlen - k + n;
	}
}

/*
 * The id of a dropped message, as JSON text, or NULL: a member "id" of
 * the outermost object found in its head (scanned for depth and strings),
 * else at its very end ("id":VALUE} closes the outermost object).
 */
static char *
dropped_id(struct lineq *q)
{
	const char	*p = q->head.data, *e = p + q->head.len, *v, *t;
	int		 depth = 0, key = 0;
	jv		 id;

	for (; p < e; p++) {
		if (*p == '"') {
			v = p + 1;
			for (p++; p < e && *p != '"'; p++)
				if (*p == '\\')
					p++;
			if (p >= e)
				break;
			key = depth == 1 && p - v == 2 && memcmp(v, "id", 2) == 0;
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		else if (*p == ':' && key) {
			for (v = p + 1; v < e && isspace((unsigned char)*v); v++)
				;
			for (t = v; t < e && *t != ',' && *t != '}'; t++)
				;
			if (t < e)
				goto found;
			break;
		}
		if (*p != ' ' && *p != '\t')
			key = 0;
	}
	/* The tail: "id" : VALUE } at the end. */
	t = q->tail + q->tlen;
	while (t > q->tail && isspace((unsigned char)t[-1]))
		t--;
	if (t == q->tail || t[-1] != '}')
		return NULL;
	t--;
	for (v = t; v > q->tail && v[-1] != ':' && v[-1] != ','; v--)
		;
	if (v == q->tail || v[-1] != ':')
		return NULL;
	for (p = v - 1; p > q->tail && isspace((unsigned char)p[-1]); p--)
		;
	if (p - q->tail < 4 || memcmp(p - 4, "\"id\"", 4) != 0)
		return NULL;
found:
	id = jv_parse_sized(v, (int)(t - v));
	if (jv_get_kind(id) != JV_KIND_NUMBER &&
	    jv_get_kind(id) != JV_KIND_STRING) {
		jv_free(id);
		return NULL;
	}
	return jv_key(id);
}

/*
 * A message of the server was dropped for its size: if it answered a
 * request that still waits, the client gets an error for it now instead
 * of waiting for its own timeout.
 */
static void
dropped_answer(struct lineq *q)
{
	struct call	*c;
	char		*key, size[32];

	if ((key = dropped_id(q)) == NULL)
		return;
	c = call_find(key, 0);
	free(key);
	if (c == NULL || c->state != CALL_PENDING)
		return;
	ofl_fmt_size(size, sizeof size, q->skipped);
	send_error(c->key, ERR_TOOLONG, "ofl-mcp: the answer of %s to %s%s%s "
	    "was %s, over the limit of %llu bytes (ofl-mcp --max-line); it "
	    "was dropped", server_name != NULL ? server_name : "the server",
	    c->method, c->tool != NULL ? " " : "", c->tool != NULL ? c->tool :
	    "", size, (unsigned long long)opt_max_line);
	c->state = CALL_DEAD;
	batch_release(c);
	group_end();
}

static void
send_client(const char *p, size_t n)
{
	outq_add(&to_client, p, n);
	outq_add(&to_client, "\n", 1);
}

static void
send_server(const char *p, size_t n)
{
	if (!has_server || server_gone)
		return;
	outq_add(&to_server, p, n);
	outq_add(&to_server, "\n", 1);
}

static void
send_client_jv(jv msg)
{
	jv	d = jv_dump_string(msg, 0);

	send_client(jv_string_value(d), (size_t)jv_string_length_bytes(
	    jv_copy(d)));
	jv_free(d);
}

/* An error response; key is the request's id as JSON text. */
static void
send_error(const char *key, int code, const char *fmt, ...)
{
	struct ofl_buf	 b;
	va_list		 ap;
	char		*s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		s = NULL;
	va_end(ap);
	ofl_buf_init(&b);
	ofl_buf_addf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":"
	    "{\"code\":%d,\"message\":", key != NULL ? key : "null", code);
	ofl_buf_add_json_str(&b, s != NULL ? s : "error",
	    s != NULL ? strlen(s) : 5);
	ofl_buf_adds(&b, "}}");
	send_client(b.data, b.len);
	ofl_buf_free(&b);
	free(s);
}

static char *
jv_key(jv v)
{
	jv	 d;
	char	*s;

	/* jv_dump_string() aborts on an invalid value: an absent member. */
	if (!jv_is_valid(v)) {
		jv_free(v);
		return ofl_xstrdup("null");
	}
	d = jv_dump_string(v, 0);
	s = ofl_xstrdup(jv_string_value(d));
	jv_free(d);
	return s;
}

/*
 * A member of obj (consumed), or an invalid value when obj is not an
 * object: jv_object_get() aborts on anything else, and a client may send
 * any JSON value where an object belongs.
 */
static jv
jv_member(jv obj, const char *key)
{
	if (jv_get_kind(obj) != JV_KIND_OBJECT) {
		jv_free(obj);
		return jv_invalid();
	}
	return jv_object_get(obj, jv_string(key));
}

/* The arguments of a tools/call: absent ones are an empty object. */
static jv
call_args(jv params)
{
	jv	v = jv_member(jv_copy(params), "arguments");

	if (!jv_is_valid(v)) {
		jv_free(v);
		v = jv_object();
	}
	return v;
}

/* A string member of an object (borrowed), copied into buf; or NULL. */
static const char *
jv_str(jv obj, const char *key, char *buf, size_t len)
{
	jv	v;

	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		return NULL;
	v = jv_object_get(jv_copy(obj), jv_string(key));
	if (jv_get_kind(v) != JV_KIND_STRING) {
		jv_free(v);
		return NULL;
	}
	snprintf(buf, len, "%s", jv_string_value(v));
	jv_free(v);
	return buf;
}

static struct call *
call_new(jv id, const char *method)
{
	struct call	*c, **pp;

	c = ofl_xcalloc(1, sizeof *c);
	c->seq = ++seq;
	c->id = id;
	c->key = jv_key(jv_copy(id));
	c->method = ofl_xstrdup(method);
	c->local = -1;
	c->state = CALL_PENDING;
	c->batch = batch_cur;
	if (batch_cur != 0)
		batch_find(batch_cur)->pending++;
	c->start = ofl_mono_ms();
	c->deadline = opt_timeout_ms > 0 ? c->start + opt_timeout_ms : 0;
	c->msg = jv_invalid();
	c->qargs = jv_invalid();
	c->pid = -1;
	c->outfd = -1;
	c->errfd = -1;
	ofl_buf_init(&c->raw);
	ofl_buf_init(&c->out);
	ofl_buf_init(&c->err);
	/* Keep the list in arrival order. */
	for (pp = &calls; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = c;
	return c;
}

/* A call by id; local: 1 ours, 0 forwarded, -1 either. */
static struct call *
call_find(const char *key, int local)
{
	struct call	*c;

	for (c = calls; c != NULL; c = c->next) {
		if (strcmp(c->key, key) != 0)
			continue;
		if (local == -1 || (local == 1) == (c->local != -1))
			return c;
	}
	return NULL;
}

static void
call_unlink(struct call *c)
{
	struct call	**pp;

	for (pp = &calls; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
}

static void
call_free(struct call *c)
{
	if (c == NULL)
		return;
	batch_release(c);
	jv_free(c->id);
	jv_free(c->msg);
	jv_free(c->qargs);
	free(c->key);
	free(c->method);
	free(c->tool);
	free(c->args);
	free(c->progress);
	ofl_buf_free(&c->raw);
	ofl_buf_free(&c->out);
	ofl_buf_free(&c->err);
	if (c->outfd != -1)
		close(c->outfd);
	if (c->errfd != -1)
		close(c->errfd);
	free(c);
}

/* The index of one of our tools by its current name, or -1. */
static int
our_tool(const char *name)
{
	int	i;

	for (i = 0; i < OFL_MCP_NTOOLS; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

static void
fill_call(struct call *c, struct ofl_mcp_call *mc, int64_t now)
{
	memset(mc, 0, sizeof *mc);
	mc->server = c->local != -1 ? "ofl" : server_name != NULL ?
	    server_name : "mcp";
	mc->tool = c->tool;
	mc->arguments = c->args;
	mc->session = opt_session;
	mc->cwd = cwd[0] != '\0' ? cwd : NULL;
	mc->expires = opt_ttl > 0 ? ofl_now_ms() + opt_ttl : 0;
	mc->duration_ms = now - c->start;
	mc->threshold = (uint64_t)opt_threshold;
	mc->combined = (uint64_t)opt_combined;
	mc->max_binary = opt_max_binary;
	mc->nopts = &nopts;
	mc->names = names;
	mc->has_schema = c->local == -1 && c->tool != NULL &&
	    c->method != NULL && strcmp(c->method, "tools/call") == 0 &&
	    has_schema(c->tool);
}

/* 1 if the server's tool declares an output schema. */
static int
has_schema(const char *tool)
{
	size_t	i;

	for (i = 0; i < nschema_tools; i++)
		if (strcmp(schema_tools[i], tool) == 0)
			return 1;
	return 0;
}

/*
 * A tools/call answered with a task (result.task.taskId): remember its
 * tool, so that the result of tasks/result is labelled with it.
 */
static void
remember_task(struct call *c, jv result)
{
	struct task	*t, **pp;
	jv		 task, id;

	if (strcmp(c->method, "tools/call") != 0)
		return;
	task = jv_object_get(jv_copy(result), jv_string("task"));
	id = jv_get_kind(task) == JV_KIND_OBJECT ? jv_object_get(
	    jv_copy(task), jv_string("taskId")) : jv_invalid();
	jv_free(task);
	if (!jv_is_valid(id)) {
		jv_free(id);
		return;
	}
	t = ofl_xcalloc(1, sizeof *t);
	t->id = jv_key(id);
	t->tool = ofl_xstrdup(c->tool != NULL ? c->tool : "?");
	t->args = c->args != NULL ? ofl_xstrdup(c->args) : NULL;
	t->next = tasks;
	tasks = t;
	if (++ntasks > MAX_TASKS) {
		/* Forget the oldest. */
		for (pp = &tasks; (*pp)->next != NULL; pp = &(*pp)->next)
			;
		free((*pp)->id);
		free((*pp)->tool);
		free((*pp)->args);
		free(*pp);
		*pp = NULL;
		ntasks--;
	}
}

/* tasks/result: the tool of its task if it is known. */
static void
task_of(struct call *c, jv params)
{
	struct task	*t;
	jv		 id;
	char		*k;

	id = jv_member(jv_copy(params), "taskId");
	k = jv_key(id);
	for (t = tasks; t != NULL; t = t->next)
		if (strcmp(t->id, k) == 0)
			break;
	free(k);
	c->tool = ofl_xstrdup(t != NULL ? t->tool : "tasks/result");
	if (t != NULL && t->args != NULL)
		c->args = ofl_xstrdup(t->args);
}

/*
 * Replace a held answer by one that carries a notice.  why says whether
 * it is over the threshold, over the combined budget, or has binary items
 * over their limit.
 */
static void
offload(struct call *c, int why)
{
	struct ofl_mcp_call	 mc;
	struct ofl_meta		 m;
	jv			 result, out, d, flag;
	int			 rv;

	if (jv_get_kind(c->msg) != JV_KIND_OBJECT)
		return;
	fill_call(c, &mc, ofl_mono_ms());
	result = jv_object_get(jv_copy(c->msg), jv_string("result"));
	flag = jv_object_get(jv_copy(result), jv_string("isError"));
	mc.has_status = 1;
	mc.status = jv_get_kind(flag) == JV_KIND_TRUE;
	jv_free(flag);
	rv = ofl_mcp_offload(store, result, &mc, why, &out, &m);
	if (rv == -1)
		warnx("%s/%s: %s", mc.server, c->tool != NULL ? c->tool : "?",
		    ofl_errmsg());
	c->msg = jv_object_set(c->msg, jv_string("result"), out);
	d = jv_dump_string(jv_copy(c->msg), 0);
	ofl_buf_reset(&c->raw);
	ofl_buf_add(&c->raw, jv_string_value(d),
	    (size_t)jv_string_length_bytes(jv_copy(d)));
	jv_free(d);
	jv_free(c->msg);
	c->msg = jv_invalid();
	c->offloaded = 1;
	c->tokens = ofl_tokens(c->raw.len);
	ofl_meta_free(&m);
}

/*
 * The answer to a call whose result may be offloaded, as it is to be sent,
 * in c->raw, and its tokens in c->tokens: offloaded when it is over a
 * limit, or over what is left of the budget of the calls in flight
 * together.  msg is consumed; raw is the message as it came.
 */
static void
answer_prepare(struct call *c, jv msg, const char *raw, size_t n)
{
	jv		 result;
	uint64_t	 bytes, bin;
	int		 why;

	ofl_buf_reset(&c->raw);
	result = jv_object_get(jv_copy(msg), jv_string("result"));
	if (jv_get_kind(result) != JV_KIND_OBJECT) {
		/* An error answer, or garbage: it goes as it is. */
		ofl_buf_add(&c->raw, raw, n);
		jv_free(result);
		jv_free(msg);
		c->tokens = 0;
		return;
	}
	bytes = ofl_mcp_result_bytes(result);
	bin = ofl_mcp_result_binary(result);
	remember_task(c, result);
	jv_free(result);
	c->msg = msg;
	c->tokens = ofl_tokens(bytes);
	why = ofl_offload_why((uint64_t)opt_threshold, opt_max_binary, bytes,
	    bin);
	if (why == OFL_OFFLOAD_NONE && group_size > 1 && c->tokens > 0 &&
	    group_sent + c->tokens > (uint64_t)opt_combined)
		why = OFL_MCP_WHY_COMBINED;
	if (why != OFL_OFFLOAD_NONE && !c->keep)
		offload(c, why);
	/* Copied only when it goes as it is: a large one does not. */
	if (!c->offloaded)
		ofl_buf_add(&c->raw, raw, n);
	jv_free(c->msg);
	c->msg = jv_invalid();
}

/*
 * The answer to a tools/call, resources/read or tasks/result (ours or the
 * server's): prepared, then sent at once, never held for another call.
 */
static void
tool_answer(struct call *c, jv msg, const char *raw, size_t n)
{
	answer_prepare(c, msg, raw, n);
	if (c->batch != 0 && c->local != -1 && batch_find(c->batch) != NULL)
		batch_add(c->batch, jv_parse_sized(c->raw.data,
		    (int)c->raw.len));
	else
		send_client(c->raw.data, c->raw.len);
	group_sent += c->tokens;
	call_unlink(c);
	call_free(c);
	group_end();
}


/* A group of calls in flight together ends when none is pending. */
static void
group_end(void)
{
	struct call	*c;

	for (c = calls; c != NULL; c = c->next)
		if (c->is_tool && c->state == CALL_PENDING)
			return;
	group_sent = 0;
	group_size = 0;
}

/* A text result for one of our calls. */
static void
send_result_text(struct call *c, const char *text, size_t n, int is_error)
{
	jv	msg, d;

	msg = JV_OBJECT(jv_string("jsonrpc"), jv_string("2.0"),
	    jv_string("id"), jv_copy(c->id), jv_string("result"),
	    JV_OBJECT(jv_string("content"), JV_ARRAY(JV_OBJECT(
	    jv_string("type"), jv_string("text"), jv_string("text"),
	    jv_string_sized(text, (int)n))), jv_string("isError"),
	    jv_bool(is_error)));
	d = jv_dump_string(jv_copy(msg), 0);
	tool_answer(c, msg, jv_string_value(d),
	    (size_t)jv_string_length_bytes(jv_copy(d)));
	jv_free(d);
}

/*
 * ofl_extract with an ID alone, of an image, audio or blob that a result
 * had: the item as it was, the same type of content block (not offloaded
 * again).  Returns 1 if it answered, 0 if the extract tool is to run.
 */
static int
send_item(struct call *c, jv args)
{
	jv	 id, item, msg, d;
	int	 r;

	if (jv_get_kind(args) != JV_KIND_OBJECT ||
	    jv_object_length(jv_copy(args)) != 1)
		return 0;
	id = jv_object_get(jv_copy(args), jv_string("id"));
	if (jv_get_kind(id) != JV_KIND_STRING) {
		jv_free(id);
		return 0;
	}
	r = ofl_mcp_item_get(store, jv_string_value(id), &item);
	jv_free(id);
	if (r != 1) {
		/* Not an item, or an error the extract tool reports too. */
		jv_free(item);
		return 0;
	}
	msg = JV_OBJECT(jv_string("jsonrpc"), jv_string("2.0"),
	    jv_string("id"), jv_copy(c->id), jv_string("result"),
	    JV_OBJECT(jv_string("content"), JV_ARRAY(item)));
	d = jv_dump_string(jv_copy(msg), 0);
	c->keep = 1;
	tool_answer(c, msg, jv_string_value(d),
	    (size_t)jv_string_length_bytes(jv_copy(d)));
	jv_free(d);
	return 1;
}

static void	local_error(struct call *, int, const char *, ...)
		    OFL_PRINTF(3, 4);

/* A call of one of our tools that did not run: "TOOL: WHY". */
static void
local_error(struct call *c, int tool, const char *fmt, ...)
{
	struct ofl_buf	b;
	char		why[1024];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s: %s", names[tool], why);
	send_result_text(c, b.data, b.len, 1);
	ofl_buf_free(&b);
}

/*
 * Run one of our tools: its binary, with an argument vector; or, with
 * --jobs of them running already, queue the call until one is done
 * (start_queued()), in the order the calls came.
 */
static void
start_local(struct call *c, int tool, jv args)
{
	c->local = tool;
	c->is_tool = 1;
	group_size++;
	if (tool == OFL_MCP_EXTRACT && send_item(c, args)) {
		jv_free(args);
		return;
	}
	if (nrunning >= opt_jobs) {
		c->queued = 1;
		c->qargs = args;
		return;
	}
	spawn_local(c, args);
}

/*
 * Start the calls that waited for a slot, oldest first; a waiting call
 * that was cancelled or timed out meanwhile goes without an answer (one
 * was sent).  Starting one may send and free others: the walk starts
 * again after each.
 */
static void
start_queued(void)
{
	struct call	*c;
	jv		 args;

again:
	for (c = calls; c != NULL && nrunning < opt_jobs; c = c->next) {
		if (!c->queued)
			continue;
		c->queued = 0;
		args = c->qargs;
		c->qargs = jv_invalid();
		if (c->state != CALL_PENDING) {
			jv_free(args);
			call_unlink(c);
			call_free(c);
			group_end();
		} else
			spawn_local(c, args);
		goto again;
	}
}

static void
spawn_local(struct call *c, jv args)
{
	char	**argv;
	int	  out[2], errp[2], tool = c->local;
	pid_t	  pid;

	argv = ofl_mcp_tool_argv(tool, args, bindir,
	    opt_threshold * 4);
	if (argv == NULL) {
		local_error(c, tool, "%s", ofl_errmsg());
		return;
	}
	/*
	 * Close-on-exec, so that no other child holds them open.  Out of
	 * descriptors or processes, the call fails, not the proxy: the
	 * client's other calls and the server go on.
	 */
	out[0] = out[1] = errp[0] = errp[1] = -1;
	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(errp, O_CLOEXEC) == -1 ||
	    (pid = fork()) == -1) {
		int	e = errno, i;

		for (i = 0; i < 2; i++) {
			if (out[i] != -1)
				close(out[i]);
			if (errp[i] != -1)
				close(errp[i]);
		}
		local_error(c, tool, "cannot start: %s (too many calls at "
		    "once?)", strerror(e));
		ofl_mcp_argv_free(argv);
		return;
	}
	if (pid == 0) {
		int	null;

		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		if ((null = open("/dev/null", O_RDONLY)) == -1 ||
		    dup2(null, STDIN_FILENO) == -1 ||
		    dup2(out[1], STDOUT_FILENO) == -1 ||
		    dup2(errp[1], STDERR_FILENO) == -1)
			_exit(OFL_EXIT_FAIL);
		execv(argv[0], argv);
		if (errno == ENOENT && strchr(argv[0], '/') != NULL) {
			const char	*base = strrchr(argv[0], '/') + 1;

			execvp(base, argv);
		} else if (strchr(argv[0], '/') == NULL)
			execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? OFL_EXIT_NOTFOUND : OFL_EXIT_NOEXEC);
	}
	close(out[1]);
	close(errp[1]);
	nrunning++;
	c->pid = pid;
	c->outfd = out[0];
	c->errfd = errp[0];
	set_nonblock(c->outfd);
	set_nonblock(c->errfd);
	ofl_mcp_argv_free(argv);
}

/* A local tool's process is done and its pipes are closed. */
static void
finish_local(struct call *c)
{
	struct ofl_buf	 b;
	int		 st;

	if (c->killed || c->state != CALL_PENDING) {
		call_unlink(c);
		call_free(c);
		group_end();
		return;
	}
	if (WIFEXITED(c->wstatus))
		st = WEXITSTATUS(c->wstatus);
	else
		st = 128 + WTERMSIG(c->wstatus);
	ofl_buf_init(&b);
	if (st <= OFL_EXIT_NOMATCH) {
		ofl_buf_add(&b, c->out.data, c->out.len);
		if (b.len == 0)
			ofl_buf_adds(&b, st == OFL_EXIT_NOMATCH ?
			    "No match.\n" : "(no output)\n");
		send_result_text(c, b.data, b.len, 0);
	} else {
		ofl_buf_add(&b, c->err.data, c->err.len);
		if (c->out.len > 0) {
			if (b.len > 0 && b.data[b.len - 1] != '\n')
				ofl_buf_addc(&b, '\n');
			ofl_buf_add(&b, c->out.data, c->out.len);
		}
		if (b.len == 0)
			ofl_buf_addf(&b, "%s failed with status %d\n",
			    names[c->local], st);
		send_result_text(c, b.data, b.len, 1);
	}
	ofl_buf_free(&b);
}

/* Requests when there is no server: we are the server. */
static void
serve_local(jv msg, const char *method, const char *key)
{
	char	 ver[64];
	jv	 params, res, tools, args, name;
	int	 i;

	params = jv_object_get(jv_copy(msg), jv_string("params"));
	if (strcmp(method, "initialize") == 0) {
		const char	*v = jv_str(params, "protocolVersion", ver,
				    sizeof ver);

		if (v == NULL || (strcmp(v, "2024-11-05") != 0 &&
		    strcmp(v, "2025-03-26") != 0 &&
		    strcmp(v, "2025-06-18") != 0 &&
		    strcmp(v, PROTOCOL) != 0))
			v = PROTOCOL;
		res = JV_OBJECT(jv_string("protocolVersion"), jv_string(v),
		    jv_string("capabilities"), JV_OBJECT(jv_string("tools"),
		    jv_object()), jv_string("serverInfo"), JV_OBJECT(
		    jv_string("name"), jv_string("ofl"), jv_string("title"),
		    jv_string("ofl artifact store"), jv_string("version"),
		    jv_string(PACKAGE_VERSION)), jv_string("instructions"),
		    jv_string("Tools to read stored command and tool output "
		    "(artifacts named ofl:ID) without a shell: search it, "
		    "extract exact parts (jq filters, line ranges, errors), "
		    "describe its structure, list what is stored."));
	} else if (strcmp(method, "ping") == 0) {
		res = jv_object();
	} else if (strcmp(method, "tools/list") == 0) {
		tools = jv_array();
		for (i = 0; i < OFL_MCP_NTOOLS; i++)
			tools = jv_array_append(tools,
			    ofl_mcp_tool_def(i, names[i]));
		res = JV_OBJECT(jv_string("tools"), tools);
	} else if (strcmp(method, "tools/call") == 0) {
		struct call	*c;
		char		 tn[128];
		int		 t;

		name = jv_member(jv_copy(params), "name");
		t = jv_get_kind(name) == JV_KIND_STRING ?
		    our_tool(jv_string_value(name)) : -1;
		if (jv_get_kind(name) != JV_KIND_STRING) {
			jv_free(name);
			jv_free(params);
			send_error(key, -32602, "Invalid params: tools/call "
			    "needs the name of a tool");
			return;
		}
		if (t == -1) {
			snprintf(tn, sizeof tn, "%s", jv_string_value(name));
			jv_free(name);
			jv_free(params);
			send_error(key, -32602, "Unknown tool: %s", tn);
			return;
		}
		jv_free(name);
		c = call_new(jv_object_get(jv_copy(msg), jv_string("id")),
		    method);
		c->tool = ofl_xstrdup(names[t]);
		args = call_args(params);
		c->args = jv_key(jv_copy(args));
		start_local(c, t, args);
		jv_free(params);
		return;
	} else {
		jv_free(params);
		send_error(key, -32601, "Method not found: %s", method);
		return;
	}
	jv_free(params);
	send_client_jv(JV_OBJECT(jv_string("jsonrpc"), jv_string("2.0"),
	    jv_string("id"), jv_object_get(jv_copy(msg), jv_string("id")),
	    jv_string("result"), res));
}

/* A notification of the client: a cancellation ends our wait. */
static void
client_notice(jv msg, const char *method)
{
	struct call	*c;
	jv		 params, v;
	char		*k;

	if (strcmp(method, "notifications/cancelled") != 0)
		return;
	params = jv_object_get(jv_copy(msg), jv_string("params"));
	v = jv_member(params, "requestId");
	if (jv_is_valid(v)) {
		k = jv_key(jv_copy(v));
		if ((c = call_find(k, -1)) != NULL &&
		    c->state == CALL_PENDING) {
			if (c->pid != -1) {
				kill(c->pid, SIGKILL);
				c->killed = 1;
			}
			/* No answer is due now. */
			c->state = CALL_DEAD;
			c->deadline = 0;
			batch_release(c);
			group_end();
		}
		free(k);
	}
	jv_free(v);
}

/*
 * A request of the client for the server (msg borrowed, id consumed):
 * the call we wait on, or NULL if it is one of our tools, started here.
 * tools/call, resources/read and tasks/result answers may be offloaded.
 */
static struct call *
track(jv msg, jv id, const char *method)
{
	struct call	*c;
	jv		 params, v, meta;
	char		 tname[256];
	int		 t;

	params = jv_object_get(jv_copy(msg), jv_string("params"));
	if (strcmp(method, "tools/call") == 0 && !opt_no_tools &&
	    jv_str(params, "name", tname, sizeof tname) != NULL &&
	    (t = our_tool(tname)) != -1) {
		c = call_new(id, method);
		c->tool = ofl_xstrdup(tname);
		v = call_args(params);
		c->args = jv_key(jv_copy(v));
		start_local(c, t, v);
		jv_free(params);
		return NULL;
	}
	c = call_new(id, method);
	if (strcmp(method, "tools/call") == 0) {
		if (jv_str(params, "name", tname, sizeof tname) != NULL)
			c->tool = ofl_xstrdup(tname);
		v = jv_member(jv_copy(params), "arguments");
		if (jv_is_valid(v))
			c->args = jv_key(v);
		else
			jv_free(v);
	} else if (strcmp(method, "resources/read") == 0) {
		c->tool = ofl_xstrdup(method);
		c->args = jv_key(jv_copy(params));
	} else if (strcmp(method, "tasks/result") == 0)
		task_of(c, params);
	else if (strcmp(method, "tools/list") == 0) {
		v = jv_member(jv_copy(params), "cursor");
		c->list_first = jv_get_kind(v) == JV_KIND_INVALID ||
		    jv_get_kind(v) == JV_KIND_NULL;
		jv_free(v);
	}
	if (c->tool != NULL) {
		c->is_tool = 1;
		group_size++;
	}
	/* A progress token lets progress notifications keep it alive. */
	meta = jv_member(jv_copy(params), "_meta");
	v = jv_member(meta, "progressToken");
	if (jv_is_valid(v))
		c->progress = jv_key(v);
	else
		jv_free(v);
	jv_free(params);
	return c;
}

static void
from_client_line(char *line, size_t n)
{
	jv		 msg, id;
	char		 method[256], *key = NULL;

	if (n == 0 || (n == 1 && line[0] == '\r'))
		return;
	msg = jv_parse_sized(line, (int)n);
	if (!jv_is_valid(msg)) {
		jv_free(msg);
		if (has_server && !server_gone)
			send_server(line, n);
		else
			send_error(NULL, -32700, "Parse error");
		return;
	}
	if (jv_get_kind(msg) == JV_KIND_ARRAY && has_server && !server_gone) {
		from_client_batch(msg, line, n);
		return;
	}
	if (jv_get_kind(msg) != JV_KIND_OBJECT) {
		/* Not JSON-RPC: the server says what it is. */
		jv_free(msg);
		if (has_server && !server_gone)
			send_server(line, n);
		else
			send_error(NULL, -32600, "Invalid Request");
		return;
	}
	if (jv_str(msg, "method", method, sizeof method) == NULL)
		method[0] = '\0';
	id = jv_object_get(jv_copy(msg), jv_string("id"));
	if (jv_get_kind(id) != JV_KIND_INVALID)
		key = jv_key(jv_copy(id));

	if (method[0] != '\0' && key == NULL) {
		/* A notification. */
		client_notice(msg, method);
		send_server(line, n);
		goto out;
	}
	if (method[0] == '\0' && !has_server) {
		/*
		 * Alone, ofl-mcp asks the client nothing: an answer is
		 * dropped; a request without a method (or whose method is
		 * not a string) is invalid.
		 */
		if (!jv_object_has(jv_copy(msg), jv_string("result")) &&
		    !jv_object_has(jv_copy(msg), jv_string("error")))
			send_error(key, -32600, "Invalid Request");
		goto out;
	}
	if (method[0] == '\0') {
		/* An answer to a request of the server. */
		send_server(line, n);
		goto out;
	}
	if (!has_server) {
		serve_local(msg, method, key);
		goto out;
	}
	if (server_gone) {
		send_error(key, ERR_CLOSED, "ofl-mcp: the MCP server %s is not "
		    "running", server_name != NULL ? server_name : "");
		goto out;
	}
	if (strcmp(method, "tools/list") == 0 && !server_tools &&
	    !opt_no_tools) {
		serve_local(msg, method, key);
		goto out;
	}
	if (track(msg, jv_copy(id), method) != NULL)
		send_server(line, n);
out:
	free(key);
	jv_free(id);
	jv_free(msg);
}

/*
 * A JSON-RPC batch of the client (consumed): its requests are tracked like
 * single ones; calls of our tools are taken out, and their answers go in
 * the array of the server's answers to the rest (or alone in one).
 */
static void
from_client_batch(jv batch, const char *line, size_t n)
{
	struct batch	*b;
	jv	 out, e, id;
	char	 method[256];
	int	 i, len, changed = 0;

	len = jv_array_length(jv_copy(batch));
	out = jv_array();
	b = ofl_xcalloc(1, sizeof *b);
	b->id = ++batch_seq;
	b->answers = jv_array();
	b->pending = 1;		/* until the batch is read */
	b->next = batches;
	batches = b;
	batch_cur = b->id;
	for (i = 0; i < len; i++) {
		e = jv_array_get(jv_copy(batch), i);
		if (jv_get_kind(e) != JV_KIND_OBJECT ||
		    jv_str(e, "method", method, sizeof method) == NULL) {
			out = jv_array_append(out, e);
			continue;
		}
		id = jv_object_get(jv_copy(e), jv_string("id"));
		if (!jv_is_valid(id)) {
			client_notice(e, method);
			jv_free(id);
			out = jv_array_append(out, e);
			continue;
		}
		if (track(e, id, method) == NULL) {
			changed = 1;
			jv_free(e);
		} else
			out = jv_array_append(out, e);
	}
	jv_free(batch);
	batch_cur = 0;
	if (!changed)
		send_server(line, n);
	else if (jv_array_length(jv_copy(out)) > 0) {
		jv	d = jv_dump_string(jv_copy(out), 0);

		send_server(jv_string_value(d),
		    (size_t)jv_string_length_bytes(jv_copy(d)));
		jv_free(d);
	}
	jv_free(out);
	if (--b->pending == 0)
		batch_send(b);
}

/*
 * tools/list: learn which tools declare an output schema (kept: a result
 * of theirs that is offloaded keeps a structured content that fits, or is
 * an error), mark name clashes, add our tools unless --no-tools.
 */
static void
rewrite_list(struct call *c, jv msg)
{
	jv	 result, tools, out, t, name;
	int	 i, j, len, clash = 0;

	result = jv_object_get(jv_copy(msg), jv_string("result"));
	tools = jv_object_get(jv_copy(result), jv_string("tools"));
	if (jv_get_kind(tools) != JV_KIND_ARRAY || opt_no_tools) {
		/* Not a list of tools: the client judges it, but gets it. */
		if (jv_get_kind(tools) == JV_KIND_ARRAY)
			learn_schemas(c, tools);
		else
			jv_free(tools);
		jv_free(result);
		send_client_jv(msg);
		return;
	}
	learn_schemas(c, jv_copy(tools));
	len = jv_array_length(jv_copy(tools));
	out = jv_array();
	for (i = 0; i < len; i++) {
		t = jv_array_get(jv_copy(tools), i);
		name = jv_member(jv_copy(t), "name");
		for (j = 0; j < OFL_MCP_NTOOLS &&
		    jv_get_kind(name) == JV_KIND_STRING; j++) {
			if (strcmp(jv_string_value(name),
			    ofl_mcp_tool_base(j)) == 0 ||
			    strcmp(jv_string_value(name), names[j]) == 0)
				clash = 1;
		}
		jv_free(name);
		out = jv_array_append(out, t);
	}
	jv_free(tools);
	if (clash && !names_prefixed) {
		names_prefixed = 1;
		for (i = 0; i < OFL_MCP_NTOOLS; i++) {
			snprintf(names_buf[i], sizeof names_buf[i], "ofl__%s",
			    ofl_mcp_tool_base(i) + 4);
			names[i] = names_buf[i];
		}
		warnx("the server %s has tools named like ours: they keep "
		    "their names, ours are %s, %s, %s and %s",
		    server_name != NULL ? server_name : "", names[0], names[1],
		    names[2], names[3]);
	}
	if (c->list_first)
		for (i = 0; i < OFL_MCP_NTOOLS; i++)
			out = jv_array_append(out, ofl_mcp_tool_def(i,
			    names[i]));
	result = jv_object_set(result, jv_string("tools"), out);
	send_client_jv(jv_object_set(msg, jv_string("result"), result));
}

/* The tools of a page of tools/list (consumed) that have output schemas. */
static void
learn_schemas(struct call *c, jv tools)
{
	size_t	i;
	int	k, len;
	jv	t, name;

	if (c->list_first) {
		for (i = 0; i < nschema_tools; i++)
			free(schema_tools[i]);
		nschema_tools = 0;
	}
	len = jv_array_length(jv_copy(tools));
	for (k = 0; k < len; k++) {
		t = jv_array_get(jv_copy(tools), k);
		name = jv_member(jv_copy(t), "name");
		if (jv_get_kind(name) == JV_KIND_STRING &&
		    jv_object_has(jv_copy(t), jv_string("outputSchema")) &&
		    !has_schema(jv_string_value(name))) {
			schema_tools = ofl_xrealloc(schema_tools,
			    (nschema_tools + 1) * sizeof *schema_tools);
			schema_tools[nschema_tools++] =
			    ofl_xstrdup(jv_string_value(name));
		}
		jv_free(name);
		jv_free(t);
	}
	jv_free(tools);
}

/* initialize: learn the server's name; give it tools if it has none. */
static void
rewrite_init(jv msg)
{
	jv	result, caps, info, tools;
	char	name[256];

	result = jv_object_get(jv_copy(msg), jv_string("result"));
	info = jv_object_get(jv_copy(result), jv_string("serverInfo"));
	if (opt_name == NULL && jv_str(info, "name", name,
	    sizeof name) != NULL) {
		free(server_name);
		server_name = ofl_xstrdup(name);
	}
	jv_free(info);
	caps = jv_object_get(jv_copy(result), jv_string("capabilities"));
	if (jv_get_kind(caps) != JV_KIND_OBJECT) {
		jv_free(caps);
		caps = jv_object();
	}
	tools = jv_object_get(jv_copy(caps), jv_string("tools"));
	if (jv_get_kind(tools) == JV_KIND_OBJECT) {
		/* Passed through as it is. */
		jv_free(tools);
		jv_free(caps);
		jv_free(result);
		jv_free(msg);
		server_tools = 1;
		return;
	}
	jv_free(tools);
	server_tools = 0;
	if (opt_no_tools) {
		/* Nothing of ours to add: passed through as it is. */
		jv_free(caps);
		jv_free(result);
		jv_free(msg);
		server_tools = 1;
		return;
	}
	caps = jv_object_set(caps, jv_string("tools"), jv_object());
	result = jv_object_set(result, jv_string("capabilities"), caps);
	send_client_jv(jv_object_set(msg, jv_string("result"), result));
}

static void
from_server_line(char *line, size_t n)
{
	jv		 msg, id, params, v, result;
	struct call	*c;
	char		 method[256], *key;
	char		 preview[200];

	if (n == 0 || (n == 1 && line[0] == '\r'))
		return;
	msg = jv_parse_sized(line, (int)n);
	if (!jv_is_valid(msg)) {
		struct ofl_buf	 b;
		char		 size[32];

		jv_free(msg);
		ofl_buf_init(&b);
		ofl_render_safe(&b, (unsigned char *)line, n < 80 ? n : 80,
		    160);
		snprintf(preview, sizeof preview, "%s%s", ofl_buf_str(&b),
		    n > 80 ? "..." : "");
		ofl_buf_free(&b);
		ofl_fmt_size(size, sizeof size, n);
		warnx("dropped a line of the server that is not JSON (%s): %s",
		    size, preview);
		return;
	}
	if (jv_get_kind(msg) == JV_KIND_ARRAY) {
		from_server_batch(msg, line, n);
		return;
	}
	if (jv_get_kind(msg) != JV_KIND_OBJECT) {
		jv_free(msg);
		send_client(line, n);
		return;
	}
	if (jv_str(msg, "method", method, sizeof method) != NULL) {
		/* A request or a notification of the server. */
		if (strcmp(method, "notifications/progress") == 0) {
			params = jv_object_get(jv_copy(msg),
			    jv_string("params"));
			v = jv_get_kind(params) == JV_KIND_OBJECT ?
			    jv_object_get(jv_copy(params),
			    jv_string("progressToken")) : jv_invalid();
			if (jv_is_valid(v)) {
				char	*k = jv_key(jv_copy(v));

				for (c = calls; c != NULL; c = c->next)
					if (c->progress != NULL &&
					    c->state == CALL_PENDING &&
					    strcmp(c->progress, k) == 0 &&
					    c->deadline > 0)
						c->deadline = ofl_mono_ms() +
						    opt_timeout_ms;
				free(k);
			}
			jv_free(v);
			jv_free(params);
		}
		jv_free(msg);
		send_client(line, n);
		return;
	}
	id = jv_object_get(jv_copy(msg), jv_string("id"));
	if (!jv_is_valid(id)) {
		jv_free(id);
		jv_free(msg);
		send_client(line, n);
		return;
	}
	key = jv_key(id);
	c = call_find(key, 0);
	free(key);
	if (c == NULL) {
		/* Not a request we track: pass it on. */
		jv_free(msg);
		send_client(line, n);
		return;
	}
	if (c->state != CALL_PENDING) {
		/*
		 * An answer after a timeout or a cancellation: the client
		 * had its answer.  A large result is kept all the same.
		 */
		result = jv_object_get(jv_copy(msg), jv_string("result"));
		if (c->is_tool && jv_get_kind(result) == JV_KIND_OBJECT &&
		    ofl_tokens(ofl_mcp_result_bytes(result)) >
		    (uint64_t)opt_threshold) {
			struct ofl_mcp_call	mc;
			struct ofl_meta		m;
			jv			out;

			fill_call(c, &mc, ofl_mono_ms());
			if (ofl_mcp_offload(store, jv_copy(result), &mc,
			    OFL_MCP_WHY_SIZE, &out, &m) == 1)
				warnx("a late answer to %s is stored as ofl:%s",
				    c->tool != NULL ? c->tool : c->method,
				    m.id);
			jv_free(out);
			ofl_meta_free(&m);
		}
		jv_free(result);
		jv_free(msg);
		call_unlink(c);
		call_free(c);
		group_end();
		return;
	}
	if (c->is_tool) {
		tool_answer(c, msg, line, n);
		return;
	}
	result = jv_object_get(jv_copy(msg), jv_string("result"));
	if (jv_get_kind(result) == JV_KIND_OBJECT &&
	    strcmp(c->method, "initialize") == 0) {
		rewrite_init(jv_copy(msg));
		/* rewrite_init sent nothing if it left the message alone. */
		if (server_tools)
			send_client(line, n);
	} else if (jv_get_kind(result) == JV_KIND_OBJECT &&
	    strcmp(c->method, "tools/list") == 0)
		rewrite_list(c, jv_copy(msg));
	else
		send_client(line, n);
	jv_free(result);
	jv_free(msg);
	call_unlink(c);
	call_free(c);
}

/*
 * The answers to a batch (consumed): each one to a call whose result may
 * be offloaded is offloaded as a single answer would be; answers to calls
 * already answered (timed out, cancelled) are left out.  The batch goes
 * on as it came when nothing changed.
 */
static void
from_server_batch(jv batch, const char *line, size_t n)
{
	struct batch	*b = NULL;
	struct call	*c;
	jv		 out, e, id, d;
	char		*key;
	int		 i, len, changed = 0;

	len = jv_array_length(jv_copy(batch));
	out = jv_array();
	for (i = 0; i < len; i++) {
		e = jv_array_get(jv_copy(batch), i);
		c = NULL;
		if (jv_get_kind(e) == JV_KIND_OBJECT &&
		    !jv_object_has(jv_copy(e), jv_string("method"))) {
			id = jv_object_get(jv_copy(e), jv_string("id"));
			key = jv_key(id);
			c = call_find(key, 0);
			free(key);
		}
		if (c == NULL) {
			out = jv_array_append(out, e);
			continue;
		}
		/* Held until its answers are in, with those of our tools. */
		if (b == NULL && c->batch != 0 &&
		    (b = batch_find(c->batch)) != NULL) {
			b->pending++;
			changed = 1;
		}
		if (c->state != CALL_PENDING)
			changed = 1;
		else if (c->is_tool) {
			d = jv_dump_string(jv_copy(e), 0);
			answer_prepare(c, jv_copy(e), jv_string_value(d),
			    (size_t)jv_string_length_bytes(jv_copy(d)));
			jv_free(d);
			if (c->offloaded) {
				changed = 1;
				out = jv_array_append(out, jv_parse_sized(
				    c->raw.data, (int)c->raw.len));
			} else
				out = jv_array_append(out, jv_copy(e));
			group_sent += c->tokens;
		} else
			out = jv_array_append(out, jv_copy(e));
		jv_free(e);
		call_unlink(c);
		call_free(c);
	}
	jv_free(batch);
	if (b != NULL) {
		len = jv_array_length(jv_copy(out));
		for (i = 0; i < len; i++)
			b->answers = jv_array_append(b->answers,
			    jv_array_get(jv_copy(out), i));
		if (--b->pending == 0)
			batch_send(b);
	} else if (!changed)
		send_client(line, n);
	else if (jv_array_length(jv_copy(out)) > 0)
		send_client_jv(jv_copy(out));
	jv_free(out);
	group_end();
}

static void
check_timeouts(int64_t now)
{
	struct call	*c;
	struct ofl_buf	 b;
	int		 any = 0;

	for (c = calls; c != NULL; c = c->next) {
		if (c->state != CALL_PENDING || c->deadline == 0 ||
		    now < c->deadline)
			continue;
		if (c->pid != -1) {
			kill(c->pid, SIGKILL);
			c->killed = 1;
		} else if (c->local == -1 &&
		    strcmp(c->method, "initialize") != 0 && !server_gone) {
			ofl_buf_init(&b);
			ofl_buf_addf(&b, "{\"jsonrpc\":\"2.0\",\"method\":"
			    "\"notifications/cancelled\",\"params\":"
			    "{\"requestId\":%s,\"reason\":\"no answer in "
			    "%lld s (ofl-mcp --timeout)\"}}\n", c->key,
			    (long long)(opt_timeout_ms / 1000));
			outq_add(&to_server, b.data, b.len);
			ofl_buf_free(&b);
		}
		send_error(c->key, ERR_TIMEOUT, "ofl-mcp: no answer to %s%s%s "
		    "from %s within %lld s; the request was cancelled",
		    c->method, c->tool != NULL ? " " : "",
		    c->tool != NULL ? c->tool : "", c->local != -1 ? "ofl" :
		    server_name != NULL ? server_name : "the server",
		    (long long)(opt_timeout_ms / 1000));
		c->state = CALL_DEAD;
		batch_release(c);
		any = 1;
	}
	if (any)
		group_end();
}

/*
 * The server's output is closed: every request still waiting gets an
 * error.  A message cut short, if large, is kept as an artifact.
 */
static void
server_down(void)
{
	struct call	*c, *next;
	struct ofl_buf	 why;
	char		 size[32];
	int64_t		 until;
	int		 st;

	server_gone = 1;
	ofl_buf_init(&why);
	/* Give the process a moment to be reaped, for its status. */
	until = ofl_mono_ms() + 200;
	while (server_status == -1 && ofl_mono_ms() < until) {
		if (waitpid(server_pid, &st, WNOHANG) == server_pid) {
			server_status = st;
			break;
		}
		usleep(5000);
	}
	if (server_status == -1)
		ofl_buf_adds(&why, "closed its output");
	else if (WIFEXITED(server_status))
		ofl_buf_addf(&why, "exited with status %d",
		    WEXITSTATUS(server_status));
	else if (WIFSIGNALED(server_status))
		ofl_buf_addf(&why, "was killed by signal %d",
		    WTERMSIG(server_status));
	if (from_server.buf.len > 0) {
		ofl_fmt_size(size, sizeof size, from_server.buf.len);
		ofl_buf_addf(&why, " in the middle of a message (%s", size);
		if (ofl_offload_over((uint64_t)opt_threshold,
		    from_server.buf.len)) {
			struct ofl_mcp_call	mc;
			struct ofl_meta		m;
			struct call		tmp;

			memset(&tmp, 0, sizeof tmp);
			tmp.local = -1;
			tmp.tool = "(message cut short)";
			tmp.start = ofl_mono_ms();
			fill_call(&tmp, &mc, tmp.start);
			if (ofl_mcp_store_raw(store, &mc, from_server.buf.data,
			    from_server.buf.len, 1, &m) == 0) {
				ofl_buf_addf(&why, ", kept as ofl:%s, "
				    "incomplete", m.id);
				ofl_meta_free(&m);
			}
		}
		ofl_buf_adds(&why, ")");
		ofl_buf_reset(&from_server.buf);
	}
	for (c = calls; c != NULL; c = next) {
		next = c->next;
		if (c->local != -1 || c->state != CALL_PENDING)
			continue;
		send_error(c->key, ERR_CLOSED, "ofl-mcp: the MCP server %s %s "
		    "before answering %s%s%s", server_name != NULL ?
		    server_name : "", ofl_buf_str(&why), c->method,
		    c->tool != NULL ? " " : "", c->tool != NULL ? c->tool : "");
		c->state = CALL_DEAD;
		batch_release(c);
	}
	if (!termed && (server_status == -1 || !WIFEXITED(server_status) ||
	    WEXITSTATUS(server_status) != 0 || !client_eof))
		warnx("the MCP server %s %s", server_name != NULL ?
		    server_name : "", ofl_buf_str(&why));
	ofl_buf_free(&why);
	group_end();
}

/*
 * The signal pipe, the signal handlers and the client's streams; then the
 * server, if there is one (its command in argv).
 */
static void
setup_io(char *argv[])
{
	struct sigaction sa;

	if (pipe(sigpipe_fd) == -1)
		err(OFL_EXIT_FAIL, "pipe");
	set_nonblock(sigpipe_fd[0]);
	set_nonblock(sigpipe_fd[1]);
	(void)fcntl(sigpipe_fd[0], F_SETFD, FD_CLOEXEC);
	(void)fcntl(sigpipe_fd[1], F_SETFD, FD_CLOEXEC);
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	from_client.fd = STDIN_FILENO;
	to_client.fd = STDOUT_FILENO;
	from_server.fd = -1;
	to_server.fd = -1;
	ofl_buf_init(&from_client.buf);
	ofl_buf_init(&from_server.buf);
	ofl_buf_init(&from_client.head);
	ofl_buf_init(&from_server.head);
	ofl_buf_init(&to_client.buf);
	ofl_buf_init(&to_server.buf);
	if (!isatty(STDIN_FILENO))
		set_nonblock(STDIN_FILENO);
	if (!isatty(STDOUT_FILENO))
		set_nonblock(STDOUT_FILENO);
	if (has_server)
		spawn_server(argv);
	else
		server_gone = 1;
}

/* 1 if a call still has a process running or an answer held. */
static int
calls_busy(void)
{
	struct call	*c;

	for (c = calls; c != NULL; c = c->next)
		if (c->pid != -1 || (c->queued && c->state == CALL_PENDING))
			return 1;
	return 0;
}

/* 1 when nothing more can come or go. */
static int
loop_done(void)
{
	if (to_client.dead)
		return 1;
	if (client_eof && (server_gone || !has_server) && !calls_busy())
		return 1;
	/* Without its server, the proxy ends too. */
	if (has_server && server_gone && !client_eof && !calls_busy())
		return 1;
	return 0;
}

/* The client is gone: close the server's input, then ask it to end. */
static void
end_server(int64_t now)
{
	if (client_eof && to_server.fd != -1 &&
	    to_server.off == to_server.buf.len) {
		close(to_server.fd);
		to_server.fd = -1;
	}
	if (client_eof && has_server && !server_gone &&
	    server_pid != -1 && server_status == -1) {
		if (!termed && now - eof_at > GRACE_MS) {
			kill(server_pid, SIGTERM);
			termed = 1;
		} else if (termed && !killed_server &&
		    now - eof_at > GRACE_MS + KILL_MS) {
			kill(server_pid, SIGKILL);
			killed_server = 1;
		}
	}
}

/* Add a descriptor to the poll set; *idx (if not NULL) gets its place. */
static void
poll_add(struct pollset *ps, int fd, short events, int *idx)
{
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 8;
		ps->pfd = ofl_xrealloc(ps->pfd, ps->cap * sizeof *ps->pfd);
	}
	if (idx != NULL)
		*idx = (int)ps->n;
	ps->pfd[ps->n].fd = fd;
	ps->pfd[ps->n].events = events;
	ps->pfd[ps->n++].revents = 0;
}

/* What to wait for: the streams that are open, our tools' pipes. */
static void
poll_build(struct pollset *ps)
{
	struct call	*c;

	ps->n = 0;
	ps->cin = ps->cout = ps->sout = ps->sin = -1;
	poll_add(ps, sigpipe_fd[0], POLLIN, &ps->sig);
	if (!client_eof)
		poll_add(ps, from_client.fd, POLLIN, &ps->cin);
	if (to_client.off < to_client.buf.len)
		poll_add(ps, to_client.fd, POLLOUT, &ps->cout);
	if (has_server && !server_gone)
		poll_add(ps, from_server.fd, POLLIN, &ps->sout);
	if (to_server.fd != -1 && to_server.off < to_server.buf.len)
		poll_add(ps, to_server.fd, POLLOUT, &ps->sin);
	for (c = calls; c != NULL; c = c->next) {
		if (c->outfd != -1)
			poll_add(ps, c->outfd, POLLIN, NULL);
		if (c->errfd != -1)
			poll_add(ps, c->errfd, POLLIN, NULL);
	}
}

/* The poll timeout: until the next deadline, -1 for none. */
static int
poll_timeout(int64_t now)
{
	struct call	*c;
	int64_t		 wake = -1, t;

	for (c = calls; c != NULL; c = c->next) {
		if (c->state == CALL_PENDING && c->deadline > 0 &&
		    (wake == -1 || c->deadline < wake))
			wake = c->deadline;
	}
	if (has_server && !server_gone && server_status != -1 &&
	    (wake == -1 || server_exit_at + DRAIN_MS + 1 < wake))
		wake = server_exit_at + DRAIN_MS + 1;
	if (client_eof && has_server && !server_gone) {
		t = eof_at + GRACE_MS + (termed ? KILL_MS : 0) + 1;
		if (wake == -1 || t < wake)
			wake = t;
	}
	return wake == -1 ? -1 : wake <= now ? 0 :
	    (int)(wake - now < INT_MAX ? wake - now : INT_MAX);
}

/*
 * A signal is passed on to the server, and the client counts as gone.
 * Returns 1 when the proxy is to stop at once (it has no server).
 */
static int
pass_signal(void)
{
	int	sig = got_signal;

	if (sig == 0)
		return 0;
	got_signal = 0;
	if (has_server && server_pid != -1 && server_status == -1) {
		kill(server_pid, sig);
		termed = 1;
	}
	if (!client_eof) {
		client_eof = 1;
		eof_at = ofl_mono_ms();
	}
	return !has_server;
}

/* Reap children: the server, our tools. */
static void
reap_children(void)
{
	struct call	*c;
	pid_t		 pid;
	int		 st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == server_pid) {
			server_status = st;
			server_exit_at = ofl_mono_ms();
			continue;
		}
		for (c = calls; c != NULL; c = c->next)
			if (c->pid == pid) {
				c->wstatus = st;
				c->reaped = 1;
			}
	}
}

/* Read and write the client's and the server's streams, as poll says. */
static void
poll_streams(const struct pollset *ps)
{
	const struct pollfd	*p = ps->pfd;

	if (ps->cin != -1 && (p[ps->cin].revents &
	    (POLLIN | POLLHUP | POLLERR))) {
		if (lineq_read(&from_client, from_client_line) == -1) {
			if (from_client.buf.len > 0) {
				from_client_line(ofl_buf_str(&from_client.buf),
				    from_client.buf.len);
				ofl_buf_reset(&from_client.buf);
			}
			client_eof = 1;
			eof_at = ofl_mono_ms();
		}
	}
	if (ps->sout != -1 && (p[ps->sout].revents &
	    (POLLIN | POLLHUP | POLLERR))) {
		if (lineq_read(&from_server, from_server_line) == -1) {
			close(from_server.fd);
			from_server.fd = -1;
			server_down();
		}
	}
	if (ps->cout != -1 && (p[ps->cout].revents &
	    (POLLOUT | POLLHUP | POLLERR)))
		outq_flush(&to_client);
	if (ps->sin != -1 && (p[ps->sin].revents &
	    (POLLOUT | POLLHUP | POLLERR)))
		outq_flush(&to_server);
	if (to_server.dead && to_server.fd != -1) {
		close(to_server.fd);
		to_server.fd = -1;
	}
}

/* Read what a local tool's pipes hold, closing them at their end. */
static void
read_local(struct call *c)
{
	char		 rbuf[READ_SIZE];
	struct ofl_buf	*b;
	ssize_t		 got;
	int		*fd, i;

	for (i = 0; i < 2; i++) {
		fd = i == 0 ? &c->outfd : &c->errfd;
		b = i == 0 ? &c->out : &c->err;
		while (*fd != -1) {
			got = read(*fd, rbuf, sizeof rbuf);
			if (got > 0) {
				ofl_buf_add(b, rbuf, (size_t)got);
				continue;
			}
			if (got == -1 && errno == EINTR)
				continue;
			if (got == -1 && errno == EAGAIN)
				break;
			close(*fd);
			*fd = -1;
		}
	}
}

/*
 * Our tools' output.  Finishing one may send and free others, so the
 * walk starts again after each.
 */
static void
read_locals(void)
{
	struct call	*c;

again:
	for (c = calls; c != NULL; c = c->next) {
		if (c->pid == -1)
			continue;
		read_local(c);
		if (c->outfd == -1 && c->errfd == -1 && c->reaped) {
			c->pid = -1;
			nrunning--;
			finish_local(c);
			start_queued();
			goto again;
		}
	}
}

/* Pass messages both ways until nothing more can come or go. */
static void
event_loop(void)
{
	struct pollset	 ps;
	char		 sbuf[256];
	int64_t		 now;

	memset(&ps, 0, sizeof ps);
	for (;;) {
		now = ofl_mono_ms();
		if (loop_done())
			break;
		end_server(now);
		poll_build(&ps);
		if (poll(ps.pfd, ps.n, poll_timeout(now)) == -1) {
			if (errno != EINTR)
				err(OFL_EXIT_FAIL, "poll");
			continue;
		}
		if (ps.pfd[ps.sig].revents & POLLIN)
			while (read(sigpipe_fd[0], sbuf, sizeof sbuf) > 0)
				;
		if (pass_signal())
			break;
		reap_children();
		poll_streams(&ps);
		read_locals();
		now = ofl_mono_ms();
		/*
		 * The server exited but something it started holds its
		 * output open: stop reading after a short drain.
		 */
		if (has_server && !server_gone && server_status != -1 &&
		    now - server_exit_at > DRAIN_MS) {
			close(from_server.fd);
			from_server.fd = -1;
			server_down();
		}
		check_timeouts(now);
		group_end();
	}
	free(ps.pfd);
}

/*
 * Hand the last messages to the client, stop what still runs and free
 * everything.  Returns the exit status.
 */
static int
finish(void)
{
	struct call	*c, *next;
	int64_t		 now;
	int		 st, rv = 0;

	now = ofl_mono_ms();
	while (!to_client.dead && to_client.off < to_client.buf.len &&
	    ofl_mono_ms() - now < FLUSH_MS) {
		struct pollfd	p = { to_client.fd, POLLOUT, 0 };

		if (poll(&p, 1, 100) > 0)
			outq_flush(&to_client);
	}
	for (c = calls; c != NULL; c = next) {
		next = c->next;
		if (c->pid != -1)
			kill(c->pid, SIGKILL);
		call_free(c);
	}
	if (has_server && server_status == -1) {
		if (to_server.fd != -1)
			close(to_server.fd);
		if (!termed)
			kill(server_pid, SIGTERM);
		now = ofl_mono_ms();
		while (waitpid(server_pid, &st, WNOHANG) == 0) {
			if (ofl_mono_ms() - now > KILL_MS) {
				kill(server_pid, SIGKILL);
				(void)waitpid(server_pid, &st, 0);
				break;
			}
			usleep(10000);
		}
		server_status = st;
	}
	ofl_store_close(store);
	free(server_name);
	free(bindir);
	ofl_buf_free(&from_client.buf);
	ofl_buf_free(&from_server.buf);
	ofl_buf_free(&to_client.buf);
	ofl_buf_free(&to_server.buf);
	if (has_server && server_status != -1 && !client_eof) {
		/* The server ended on its own: its status is ours. */
		if (WIFEXITED(server_status))
			rv = WEXITSTATUS(server_status);
		else if (WIFSIGNALED(server_status))
			rv = 128 + WTERMSIG(server_status);
	}
	if (to_client.dead && !client_eof)
		rv = OFL_EXIT_FAIL;
	return rv;
}

int
main(int argc, char *argv[])
{
	const char	*opt_store = NULL, *slash, *argv0;
	size_t		 i;

	argv0 = argv[0];
	ofl_setprogname("ofl-mcp");
	ofl_notice_opts_init(&nopts);
	optind = parse_options(argc, argv, &opt_store);
	if (opt_jobs == 0) {
		long	ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		opt_jobs = ncpu > 0 ? 2 * ncpu : 2;
	}
	argc -= optind;
	argv += optind;
	if (optind > 0 && argc == 0 && strcmp(argv[-1], "--") == 0) {
		warnx("no server command after --");
		usage(OFL_EXIT_USAGE);
	}
	has_server = argc > 0;
	for (i = 0; i < OFL_MCP_NTOOLS; i++)
		names[i] = ofl_mcp_tool_base((int)i);
	if (opt_name != NULL)
		server_name = ofl_xstrdup(opt_name);
	else if (has_server) {
		slash = strrchr(argv[0], '/');
		server_name = ofl_xstrdup(slash != NULL ? slash + 1 : argv[0]);
	}
	if (getcwd(cwd, sizeof cwd) == NULL)
		cwd[0] = '\0';
	find_bindir(argv0);
	/* A store that cannot be (a URL, a relative path): before starting. */
	{
		char	*where;

		if ((where = ofl_store_where(opt_store)) == NULL &&
		    ofl_errcode() == OFL_EXIT_USAGE)
			errx(OFL_EXIT_USAGE, "%s", ofl_errmsg());
		free(where);
	}
	if (opt_store != NULL && setenv("OFL_STORE", opt_store, 1) == -1)
		err(OFL_EXIT_FAIL, "setenv");
	if ((store = ofl_store_open(opt_store, OFL_RDWR)) == NULL)
		warnx("%s (large results cannot be offloaded)", ofl_errmsg());

	setup_io(argv);
	event_loop();
	return finish();
}
