/*
 * ofl-capture: store output and print it when small, else a notice.
 */
#include "config.h"

#include <sys/ioctl.h>
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
#define PASS_LINE_MAX	(64 * 1024)	/* pass a longer line in pieces */
#define PARTIAL_MS	500	/* pass a line begun this long ago */
#define FLOOD_MS	20	/* wait this long for a flood at least */
#define FLOOD_MAX_MS	200	/* and at most this long, if it may be one */
#define PROGRESS_DELAY_MS 1000	/* no progress for a quick command */
#define PROGRESS_MS	250	/* redraw at most this often */

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
	int			 termsig;	/* the command was killed by it */
	int			 drained;	/* stopped reading, pipe open */
	/* Live pass-through of the one stream (see pass_data()). */
	int			 passing;
	struct ofl_buf		 pend;		/* a line not ended yet */
	int64_t			 last_data;	/* monotonic ms of the last read */
	uint64_t		 passed;	/* input bytes passed through */
	uint64_t		 passed_lines;	/* whole lines passed */
	int			 mid_line;	/* what passed ends inside a line */
	uint64_t		 printed;	/* bytes written to stdout */
	int			 last_nl;	/* last byte printed was \n */
	int			 held;		/* binary: the rest waits */
	int			 live;		/* no flood: passing as it comes */
	int64_t			 first_data;	/* monotonic ms of the first byte */
	char			*cwd;		/* of a command, for its hints */
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
static struct ofl_redactor *masker;	/* masks the pass-through, or NULL */
static int		 streaming;	/* one stream passes through live */
static int		 out_tty;	/* stdout is a terminal */
static int		 out_errno;	/* writing to stdout failed */
static int		 prog_on;	/* progress on stderr */
static int		 prog_shown;
static int64_t		 prog_start;
static int64_t		 prog_last;
static uint64_t		 prog_lines;

enum {
	O_COMBINED = OFL_OPT_BASE,
	O_CHANGES,
	O_INTENT,
	O_NOPROGRESS,
	O_NOREDACT,
	O_TAIL
};

/* The options, in the order of --help; tests/t9040 checks the rest. */
static const struct ofl_opt opts[] = {
	{ 'x', "exec", required_argument, "command",
	    "run COMMAND with sh -c; repeat to run in parallel", 0,
	    "[-x command ...]" },
	{ 'T', "threshold", required_argument, "tokens",
	    "offload above this many estimated tokens (6000)", 0, NULL },
	{ O_COMBINED, "combined", required_argument, "tokens",
	    "budget for several -x outputs together (10000)", 0, NULL },
	{ 'H', "head", required_argument, "bytes", "preview head size (600)",
	    0, NULL },
	{ O_TAIL, "tail", required_argument, "bytes",
	    "preview tail size (400)", 0, NULL },
	{ O_INTENT, "intent", required_argument, "text",
	    "show the top matches for TEXT instead of a preview", 0, NULL },
	{ O_CHANGES, "changes", no_argument, NULL,
	    "lead the notice with what changed since the last run", 0,
	    NULL },
	{ 'l', "label", required_argument, "label", "label the artifact", 0,
	    NULL },
	{ 't', "ttl", required_argument, "ttl",
	    "expire after 30s, 15m, 3h, 7d, 2w", 0, NULL },
	{ 'S', "session", required_argument, "session",
	    "session (default $OFL_SESSION)", 0, NULL },
	{ 's', "store", required_argument, "store",
	    "store (default $OFL_STORE)", 0, NULL },
	{ 'q', "quiet", no_argument, NULL, "print only ofl:ID when offloaded",
	    0, NULL },
	{ 'j', "json", no_argument, NULL, "print one JSON object", 0, NULL },
	{ O_NOPROGRESS, "no-progress", no_argument, NULL,
	    "no progress line on a terminal's stderr", OFL_OPT_NOSYN, NULL },
	{ O_NOREDACT, "no-redact", no_argument, NULL,
	    "show secrets unmasked in the output and notice", OFL_OPT_NOSYN,
	    NULL },
	{ 'h', "help", no_argument, NULL, "print this help", OFL_OPT_NOSYN,
	    NULL },
	{ 'V', "version", no_argument, NULL, "print the version",
	    OFL_OPT_NOSYN, NULL },
	/* Hidden: the old letters of --combined, --exec and --intent. */
	{ 'C', NULL, required_argument, "tokens", NULL, 0, NULL },
	{ 'e', NULL, required_argument, "command", NULL, 0, NULL },
	{ 'i', NULL, required_argument, "text", NULL, 0, NULL },
	{ 0, NULL, 0, NULL, NULL, 0, NULL }
};

static OFL_DEAD void	usage(int);
static void		option_env(void);
static int		parse_options(int, char *[], const char ***,
			    size_t *);
static void		on_signal(int);
static void		capture_init(struct capture *, const char *);
static void		capture_data(struct capture *, const char *, size_t);
static void		capture_finish(struct capture *, int);
static void		scrub(struct capture *, const char *, size_t, int);
static int		spawn(struct capture *, char *const []);
static void		run_loop(struct capture *, size_t, int);
static void		emit(struct capture *, struct ofl_buf *, int);
static void		emit_failed(struct capture *, struct ofl_buf *);
static void		add_masked(struct ofl_buf *, const char *, size_t);
static void		pass_out(struct capture *, struct ofl_buf *);
static void		pass_data(struct capture *, const char *, size_t);
static void		pass_partial(struct capture *);
static int		held_kind(const char *, size_t);
static void		go_live(struct capture *);
static int		flood_over(struct capture *, int64_t);
static void		trailer(struct capture *, struct ofl_buf *);
static const char	*sig_name(int, char *, size_t);
static void		progress(struct capture *, size_t, int64_t);
static void		progress_clear(void);
static void		progress_lines(const char *, size_t);
static char		*join_argv(char *const []);
static long long	env_num(const char *, long long);
static void		run_detached(const char *, const char *, int);
static void		auto_gc(void);
static void		auto_index(struct capture *, size_t);
static void		offload_combined(struct capture *, size_t);
static void		open_store(void);
static struct capture	*start_captures(const char **, size_t, char *[],
			    char **);
static void		free_captures(struct capture *, size_t);
static int		finish_captures(struct capture *, size_t, const char **,
			    const char *);
static int		print_captures(struct capture *, size_t, size_t, int);

/*
 * Run a sibling program (beside this one, else on $PATH) detached: a
 * grandchild that nobody waits for, in its own session, with no stdio,
 * niced by incr.  Only the short-lived child is waited for.
 */
static void
run_detached(const char *name, const char *arg, int incr)
{
	struct ofl_buf	 prog;
	char		*slash, self[4096];
	ssize_t		 len;
	int		 fd;
	pid_t		 pid;

	ofl_buf_init(&prog);
	if ((len = readlink("/proc/self/exe", self, sizeof self - 1)) > 0) {
		self[len] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			ofl_buf_addf(&prog, "%s/%s", self, name);
		}
	}
	if (prog.len == 0 || access(ofl_buf_str(&prog), X_OK) == -1) {
		ofl_buf_reset(&prog);
		ofl_buf_adds(&prog, name);
	}
	if ((pid = fork()) == 0) {
		if (fork() != 0)
			_exit(0);
		setsid();
		if ((fd = open("/dev/null", O_RDWR)) != -1) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		if (incr != 0)
			(void)nice(incr);
		/* Not in its arguments: a URL may hold a password. */
		if (setenv("OFL_STORE", ofl_store_path(store), 1) == -1)
			_exit(127);
		execlp(ofl_buf_str(&prog), name, arg, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	ofl_buf_free(&prog);
}

/*
 * Like git's auto gc: when the store is over its budget or holds expired
 * artifacts, start ofl-gc in the background.  At most once a minute (the
 * store's stamp "gc" says when the last one ran: the gc lock file's time,
 * or a row of the role's on PostgreSQL, shared by its machines); off
 * with the store setting auto-gc=off.
 */
static void
auto_gc(void)
{
	char		*v;
	uint64_t	 max = 0;
	int64_t		 ttl = 0;
	int		 due = 0;

	if (store == NULL)
		return;
	/* Mark the attempt, so the next captures do not all try. */
	if (ofl_store_stamp(store, "gc", 60))
		return;
	if ((v = ofl_setting_get(store, "auto-gc")) != NULL &&
	    strcmp(v, "off") == 0) {
		free(v);
		return;
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
	if (due)
		run_detached("ofl-gc", "--auto", 0);
}

/*
 * Index captured output in the background, once the notice is out:
 * "ofl-index --pending" in a detached, niced grandchild, so neither the
 * notice nor the exit status waits for it.  It drains every artifact not
 * indexed yet; index.c says how captures that arrive together share one.
 * Output that was offloaded starts it every time.  Output printed in
 * full starts it at most once in INDEX_QUIET seconds (the store's stamp
 * "index" says when one last started), so that a stream of small
 * captures does not start one each, and yet whole-store searches do not
 * scan more and more artifacts that are not indexed.  None starts while
 * one waits for its turn: that one will find this output (many captures
 * at once so start few processes).  OFL_INDEX_BG=0 turns it off (the
 * tests do, to stay deterministic).
 */
#define INDEX_QUIET	30

static void
auto_index(struct capture *cs, size_t n)
{
	size_t	 i;

	if (store == NULL || !ofl_index_bg())
		return;
	for (i = 0; i < n && !cs[i].offload; i++)
		;
	if (ofl_index_waiting(store))
		return;
	if (ofl_store_stamp(store, "index", i == n ? INDEX_QUIET : 0))
		return;
	run_detached("ofl-index", "--pending", 10);
}

static OFL_DEAD void
usage(int status)
{
	ofl_opt_usage(status ? stderr : stdout, "ofl-capture", opts,
	    "[-- command [arg ...] | -]", NULL);
	if (status == 0) {
		fprintf(stdout, "\n"
		    "Store the output of a command (or stdin) and print it "
		    "when small,\n"
		    "else a notice with a preview and a reference ofl:ID.  "
		    "With no command\n"
		    "or '-', read standard input.\n\n");
		ofl_opt_help(stdout, opts);
	}
	exit(status);
}

/* The defaults of the options, from the environment. */
static void
option_env(void)
{
	const char	*e;
	long long	 v;
	uint64_t	 sz;

	opt_threshold = env_num("OFL_THRESHOLD", opt_threshold);
	opt_combined = env_num("OFL_COMBINED", opt_combined);
	nopts.head_bytes = (size_t)env_num("OFL_HEAD",
	    (long long)nopts.head_bytes);
	nopts.tail_bytes = (size_t)env_num("OFL_TAIL",
	    (long long)nopts.tail_bytes);
	if ((e = getenv("OFL_CHANGES")) != NULL && *e != '\0' &&
	    strcmp(e, "0") != 0 && strcmp(e, "off") != 0)
		nopts.changes = 1;
	nopts.intent = getenv("OFL_INTENT");
	if (nopts.intent != NULL && *nopts.intent == '\0')
		nopts.intent = NULL;
	opt_session = getenv("OFL_SESSION");
	if (opt_session != NULL && *opt_session == '\0')
		opt_session = NULL;
	/* The store reads OFL_LEVEL; a bad one must not pass unnoticed. */
	if ((e = getenv("OFL_LEVEL")) != NULL && *e != '\0' &&
	    ofl_parse_num(e, -5, 19, &v) == -1)
		errx(OFL_EXIT_USAGE, "OFL_LEVEL: %s", ofl_errmsg());
	/* So does the index's, read by the indexing it starts. */
	if (ofl_env_size("OFL_INDEX_GEN", &sz) == -1)
		errx(OFL_EXIT_USAGE, "OFL_INDEX_GEN: %s", ofl_errmsg());
	e = getenv("OFL_PROGRESS");
	prog_on = e == NULL || (strcmp(e, "off") != 0 && strcmp(e, "0") != 0 &&
	    strcmp(e, "no") != 0);
}

/*
 * The options into the opt_ globals and nopts, the -x commands into
 * *execs; returns the index of the first operand.  Exits on a bad option.
 */
static int
parse_options(int argc, char *argv[], const char ***execs, size_t *nexec)
{
	struct ofl_getopt	 g;
	long long		 v;
	int			 ch;

	option_env();
	*execs = NULL;
	*nexec = 0;
	ofl_opt_init(&g, opts, 1);
	while ((ch = ofl_opt_next(&g, argc, argv)) != -1) {
		switch (ch) {
		case 'C':
		case O_COMBINED:
		case 'T':
		case 'H':
		case O_TAIL:
			if (ofl_parse_num(optarg, 0, 1LL << 40, &v) == -1)
				errx(OFL_EXIT_USAGE, "%s %s",
				    ofl_opt_name(opts, ch), ofl_errmsg());
			if (ch == 'C' || ch == O_COMBINED)
				opt_combined = v;
			else if (ch == 'T')
				opt_threshold = v;
			else if (ch == 'H')
				nopts.head_bytes = (size_t)v;
			else
				nopts.tail_bytes = (size_t)v;
			break;
		case 'e':
		case 'x':
			*execs = ofl_xrealloc(*execs, (*nexec + 1) *
			    sizeof **execs);
			(*execs)[(*nexec)++] = optarg;
			break;
		case 'h':
			usage(0);
		case O_CHANGES:
			nopts.changes = 1;
			break;
		case 'i':
		case O_INTENT:
			nopts.intent = *optarg != '\0' ? optarg : NULL;
			break;
		case O_NOPROGRESS:
			prog_on = 0;
			break;
		case O_NOREDACT:
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
	/* "-" alone is standard input, as with no operand (not after --). */
	if (argc - optind >= 1 && strcmp(argv[optind], "-") == 0 &&
	    strcmp(argv[optind - 1], "--") != 0) {
		if (argc - optind > 1) {
			warnx("-: standard input takes no more operands; to "
			    "run a command, give -- CMD");
			usage(OFL_EXIT_USAGE);
		}
		optind++;
	}
	return optind;
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

/*
 * The files changed in the git work tree the command ran in, kept with
 * its output for the notice's and --errors' hints on a failure.  Only a
 * command that failed needs them, and `git status` costs more than the
 * rest of a small capture, so it runs then, when the command has ended.
 * Best effort: no git, no work tree or a store error leaves no record
 * and no message.
 */
static void
record_changed(const char *id, const char *cwd)
{
	struct ofl_changed	ch;

	ofl_changed_git(cwd, &ch);
	(void)ofl_store_changed_set(store, id, &ch);
	ofl_changed_free(&ch);
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
	else if (command != NULL && init.cwd != NULL)
		c->cwd = ofl_xstrdup(init.cwd);
}

static void
capture_data(struct capture *c, const char *p, size_t n)
{
	size_t	take;

	if (c->keep.len < keep_max) {
		take = keep_max - c->keep.len;
		ofl_buf_add(&c->keep, p, take < n ? take : n);
	}
	if (c->passing && (memchr(p, '\0', n) != NULL ||
	    (c->total == 0 && held_kind(p, n)))) {
		/*
		 * Binary data is not dumped on a terminal: it waits for the
		 * end, and passes then if it is under the threshold.
		 */
		c->passing = 0;
		c->held = 1;
	}
	if (c->passing && !c->live) {
		/*
		 * The first bytes wait in keep (see flood_over()): output
		 * that is over the threshold by then came all at once (a
		 * fast command), and only the notice is printed, as nobody
		 * could have read it go by.
		 */
		if (c->total == 0)
			c->first_data = ofl_mono_ms();
		if (ofl_offload_over((uint64_t)opt_threshold, c->total + n))
			c->passing = 0;
	} else if (c->passing) {
		/* While passing, total is at most the limit. */
		uint64_t	room = ofl_offload_max_bytes(
				    (uint64_t)opt_threshold) - c->total;

		c->last_data = ofl_mono_ms();
		if (n <= room)
			pass_data(c, p, n);
		else {
			/* Over the threshold: what is left is withheld. */
			pass_data(c, p, (size_t)room);
			c->passing = 0;
			ofl_buf_reset(&c->pend);
		}
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

/* Print what passes through; a failed write ends the passing. */
static void
pass_out(struct capture *c, struct ofl_buf *b)
{
	if (b->len == 0 || !c->passing)
		return;
	if (out_tty)
		progress_clear();
	if (ofl_write_all(STDOUT_FILENO, b->data, b->len) == -1) {
		/* Go on storing, print nothing more, fail at the end. */
		out_errno = errno;
		c->passing = 0;
		return;
	}
	c->printed += b->len;
	c->last_nl = b->data[b->len - 1] == '\n';
}

/*
 * The live pass-through of one stream, under the threshold: whole lines
 * go out as they arrive, masked a line at a time as ofl_redact() masks
 * them elsewhere, or byte for byte when raw output was asked for.  A line
 * not ended yet waits for its newline, for PARTIAL_MS of quiet (a prompt),
 * or until it is PASS_LINE_MAX long (a piece at a time), then goes out as
 * far as it goes; its rest is masked as a line of its own.
 */
static void
pass_data(struct capture *c, const char *p, size_t n)
{
	struct ofl_buf	 out;
	const char	*last, *q, *nl, *end;

	if (n == 0)
		return;
	if ((last = memrchr(p, '\n', n)) == NULL) {
		ofl_buf_add(&c->pend, p, n);
		if (c->pend.len >= PASS_LINE_MAX)
			pass_partial(c);
		return;
	}
	ofl_buf_add(&c->pend, p, (size_t)(last + 1 - p));
	ofl_buf_init(&out);
	if (masker == NULL) {
		for (q = c->pend.data, end = q + c->pend.len;
		    (nl = memchr(q, '\n', (size_t)(end - q))) != NULL;
		    q = nl + 1)
			c->passed_lines++;
		pass_out(c, &c->pend);
	} else {
		for (q = c->pend.data, end = q + c->pend.len;
		    (nl = memchr(q, '\n', (size_t)(end - q))) != NULL;
		    q = nl + 1) {
			ofl_redact_line(masker, q, (size_t)(nl - q), &out);
			ofl_buf_addc(&out, '\n');
			c->passed_lines++;
		}
		pass_out(c, &out);
	}
	ofl_buf_free(&out);
	c->passed += c->pend.len;
	c->mid_line = 0;
	ofl_buf_reset(&c->pend);
	if (last + 1 < p + n)
		ofl_buf_add(&c->pend, last + 1, (size_t)(p + n - last - 1));
}

/* No flood: pass what waited, and from now on as it comes. */
static void
go_live(struct capture *c)
{
	if (c->live || !c->passing)
		return;
	c->live = 1;
	c->last_data = ofl_mono_ms();
	pass_data(c, c->keep.data, (size_t)c->total);
}

/*
 * Whether the wait for a flood is over: FLOOD_MS after the first byte,
 * unless output at the rate seen so far (what is waiting in the pipe
 * counted, as a busy machine may wake us late) would be over the
 * threshold by FLOOD_MAX_MS; then at FLOOD_MAX_MS.
 */
static int
flood_over(struct capture *c, int64_t now)
{
	int64_t		t = now - c->first_data;
	uint64_t	total = c->total;
	int		ready = 0;

	if (t < FLOOD_MS)
		return 0;
	if (t >= FLOOD_MAX_MS)
		return 1;
	if (c->fd != -1 && ioctl(c->fd, FIONREAD, &ready) == 0 && ready > 0)
		total += (uint64_t)ready;
	return total * FLOOD_MAX_MS / (uint64_t)t <=
	    ofl_offload_max_bytes((uint64_t)opt_threshold);
}

/* 1 if output that starts so is binary, an archive or compressed. */
static int
held_kind(const char *p, size_t n)
{
	switch (ofl_kind_detect((const unsigned char *)p, n, 0)) {
	case OFL_KIND_BINARY:
	case OFL_KIND_ARCHIVE:
	case OFL_KIND_COMPRESSED:
		return 1;
	default:
		return 0;
	}
}

/* Pass the line begun so far (a prompt, a long line, the last line). */
static void
pass_partial(struct capture *c)
{
	struct ofl_buf	out;

	if (c->pend.len == 0)
		return;
	ofl_buf_init(&out);
	if (masker == NULL)
		pass_out(c, &c->pend);
	else {
		ofl_redact_line(masker, c->pend.data, c->pend.len, &out);
		pass_out(c, &out);
	}
	ofl_buf_free(&out);
	c->passed += c->pend.len;
	c->mid_line = 1;
	ofl_buf_reset(&c->pend);
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
	int		finished;

	if (c->w == NULL)
		return;
	if (scrubber != NULL && c->line.len > 0) {
		scrub(c, "", 0, 1);
		if (c->w == NULL)
			return;
	}
	memset(&fin, 0, sizeof fin);
	/*
	 * One command whose output passed through whole printed all it
	 * will: say so now, saving a transaction later.
	 */
	fin.printed = streaming && !incomplete && !c->held &&
	    c->werr[0] == '\0' &&
	    !ofl_offload_over((uint64_t)opt_threshold, c->total) ?
	    (int64_t)c->printed : -1;
	fin.incomplete = incomplete || c->werr[0] != '\0';
	fin.has_exit = c->has_exit;
	fin.exit_status = c->status;
	fin.duration_ms = c->end > 0 ? c->end - c->start : -1;
	if ((finished = ofl_writer_finish(c->w, &fin, &c->meta)) == -1) {
		if (c->werr[0] == '\0')
			snprintf(c->werr, sizeof c->werr, "%s", ofl_errmsg());
	} else if (c->werr[0] == '\0')
		c->stored = 1;
	c->w = NULL;
	/* Once its artifact is recorded (its rows may wait for the end). */
	if (finished == 0 && c->cwd != NULL && c->has_exit && c->status != 0)
		record_changed(c->meta.id, c->cwd);
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
	else if (WIFSIGNALED(status)) {
		c->status = 128 + WTERMSIG(status);
		c->termsig = WTERMSIG(status);
	} else
		c->status = OFL_EXIT_CAPTURE_FAIL;
	c->pid = -1;
}

/*
 * Read every stream to its end.  A quiet stream's bytes are committed
 * every IDLE_FLUSH_MS when the store's write lock is free, so a capture
 * killed with SIGKILL keeps them.
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
		now = ofl_mono_ms();
		for (i = 0; i < n; i++) {
			/* Wake up to go live, or to pass a line begun. */
			if (cs[i].passing && !cs[i].live && cs[i].total > 0) {
				int64_t	left = FLOOD_MS -
				    (now - cs[i].first_data);

				/* Past FLOOD_MS, look again every 10 ms. */
				if (left < 10)
					left = 10;
				if (left < timeout)
					timeout = (int)left;
			}
			if (cs[i].passing && cs[i].pend.len > 0) {
				int64_t	left = PARTIAL_MS -
				    (now - cs[i].last_data);

				if (left < timeout)
					timeout = left < 1 ? 1 : (int)left;
			}
		}
		if (poll(pfd, n, timeout) == -1 && errno != EINTR)
			err(OFL_EXIT_CAPTURE_FAIL, "poll");
		now = ofl_mono_ms();
		for (i = 0; i < n; i++) {
			/* Before reading: a late wake-up is not a flood. */
			if (cs[i].passing && !cs[i].live && cs[i].total > 0 &&
			    flood_over(&cs[i], now))
				go_live(&cs[i]);
		}
		for (i = 0; i < n; i++) {
			if (cs[i].fd == -1)
				continue;
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
				got = read(cs[i].fd, buf, READ_SIZE);
				if (got > 0) {
					capture_data(&cs[i], buf, (size_t)got);
					if (prog_on)
						progress_lines(buf,
						    (size_t)got);
					continue;
				}
				if (got == -1 && (errno == EINTR ||
				    errno == EAGAIN))
					continue;
				if (!from_stdin || cs[i].fd != STDIN_FILENO)
					close(cs[i].fd);
				cs[i].fd = -1;
			} else if (cs[i].passing && cs[i].pend.len > 0 &&
			    now - cs[i].last_data >= PARTIAL_MS) {
				pass_partial(&cs[i]);
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
				/* What it may write later is lost: say so. */
				close(cs[i].fd);
				cs[i].fd = -1;
				cs[i].drained = 1;
			}
		}
		if (prog_on)
			progress(cs, n, now);
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

/*
 * Progress on a terminal's stderr: bytes, lines, time and rate on one
 * line, redrawn at most every PROGRESS_MS, from PROGRESS_DELAY_MS on.
 * While output passes through to a terminal it shows that the command is
 * alive by itself, and a redrawn line would cut into it: no progress then.
 */
static void
progress_lines(const char *p, size_t n)
{
	const char	*end = p + n;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		prog_lines++;
		p++;
	}
}

static void
progress(struct capture *cs, size_t n, int64_t now)
{
	struct ofl_buf	 b;
	uint64_t	 total = 0, rate;
	size_t		 i;
	char		 size[32], lines[32], dur[32], rs[32];

	if (now - prog_start < PROGRESS_DELAY_MS ||
	    now - prog_last < PROGRESS_MS)
		return;
	for (i = 0; i < n; i++) {
		if (cs[i].passing && out_tty)
			return;
		total += cs[i].total;
	}
	prog_last = now;
	rate = total * 1000 / (uint64_t)(now - prog_start);
	ofl_fmt_size(size, sizeof size, total);
	ofl_fmt_count(lines, sizeof lines, prog_lines);
	ofl_fmt_duration(dur, sizeof dur, now - prog_start);
	ofl_fmt_size(rs, sizeof rs, rate);
	ofl_buf_init(&b);
	ofl_buf_addf(&b, "\r%s: %s, %s line%s, %s, %s/s\033[K",
	    ofl_getprogname(), size, lines, prog_lines == 1 ? "" : "s", dur,
	    rs);
	(void)ofl_write_all(STDERR_FILENO, b.data, b.len);
	ofl_buf_free(&b);
	prog_shown = 1;
}

/* Erase the progress line, leaving the cursor where it started. */
static void
progress_clear(void)
{
	if (!prog_shown)
		return;
	(void)ofl_write_all(STDERR_FILENO, "\r\033[K", 4);
	prog_shown = 0;
}

static const char *
sig_name(int sig, char *buf, size_t len)
{
	static const struct {
		int		 sig;
		const char	*name;
	} names[] = {
		{ SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" },
		{ SIGQUIT, "SIGQUIT" }, { SIGABRT, "SIGABRT" },
		{ SIGKILL, "SIGKILL" }, { SIGSEGV, "SIGSEGV" },
		{ SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" },
		{ SIGTERM, "SIGTERM" }, { SIGBUS, "SIGBUS" },
		{ SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" }
	};
	size_t	i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].sig == sig)
			return names[i].name;
	snprintf(buf, len, "signal %d", sig);
	return buf;
}

/*
 * After output that passed through live: when the rest was withheld or
 * the capture was cut short, a line that says what the output above is,
 * then the notice (when offloaded) or the reference line.
 */
static void
trailer(struct capture *c, struct ofl_buf *out)
{
	char	a[32], b[32], sb[32];
	int	cut = got_signal || c->termsig || c->drained;

	if (c->held && !c->offload && c->keep.len > c->passed) {
		/* Held back as binary, and under the threshold: it goes. */
		add_masked(out, c->keep.data + c->passed,
		    c->keep.len - c->passed);
		c->last_nl = out->data[out->len - 1] == '\n';
	}
	if (!c->offload && (!cut || c->meta.id[0] == '\0'))
		return;
	if ((c->printed > 0 || out->len > 0) && !c->last_nl)
		ofl_buf_addc(out, '\n');
	if (c->passed > 0 || cut) {
		ofl_buf_adds(out, "--- ofl: ");
		if (c->offload && c->passed > 0) {
			ofl_fmt_count(b, sizeof b, (uint64_t)opt_threshold);
			ofl_buf_addf(out, "output over %s tokens: ", b);
			if (c->mid_line) {
				ofl_fmt_count(a, sizeof a,
				    c->passed_lines + 1);
				ofl_buf_addf(out, "passed through above up to "
				    "part of line %s", a);
			} else {
				ofl_fmt_count(a, sizeof a, c->passed_lines);
				ofl_buf_addf(out, "lines 1-%s passed through "
				    "above", a);
			}
			ofl_buf_adds(out, ", the rest withheld");
		}
		if (cut) {
			if (c->offload && c->passed > 0)
				ofl_buf_adds(out, "; ");
			if (got_signal)
				ofl_buf_addf(out, "interrupted by %s",
				    sig_name(got_signal, sb, sizeof sb));
			else if (c->termsig)
				ofl_buf_addf(out, "the command was killed by "
				    "%s", sig_name(c->termsig, sb, sizeof sb));
			else
				ofl_buf_addf(out, "stopped reading %d ms "
				    "after the command exited: a process it "
				    "started still holds its output", DRAIN_MS);
		}
		if (c->offload)
			ofl_buf_adds(out, "; the notice below covers the "
			    "whole output");
		else
			ofl_buf_adds(out, "; the output above is stored "
			    "as");
		ofl_buf_adds(out, " ---\n");
	}
	if (!c->offload) {
		ofl_notice_refline(out, &c->meta);
		ofl_buf_addc(out, '\n');
	} else
		emit(c, out, 0);
}

/* Output as ofl prints it: masked, unless raw output was asked for. */
static void
add_masked(struct ofl_buf *out, const char *p, size_t n)
{
	struct ofl_redactor	*r;

	if (!ofl_redact_wanted()) {
		ofl_buf_add(out, p, n);
		return;
	}
	r = ofl_redactor_new();
	ofl_redact(r, p, n, out);
	ofl_redactor_free(r);
}

/* What to print when storing failed: never the raw output when large. */
static void
emit_failed(struct capture *c, struct ofl_buf *out)
{
	struct ofl_buf	 h, t;
	unsigned char	*ring;
	size_t		 budget, n, start, len = c->tail_len;
	char		 size[32];

	if (c->total <= (uint64_t)keep_max - 1 &&
	    !ofl_offload_over((uint64_t)opt_threshold, c->total)) {
		add_masked(out, c->keep.data, c->keep.len);
		return;
	}
	/* Even with a tiny threshold, the preview gets its usual room. */
	budget = (size_t)ofl_offload_max_bytes((uint64_t)opt_threshold);
	if (budget < nopts.head_bytes + nopts.tail_bytes)
		budget = nopts.head_bytes + nopts.tail_bytes;
	ofl_fmt_size(size, sizeof size, c->total);
	ofl_buf_addf(out, "ofl: output not stored (%s): %s\n", size, c->werr);
	/* Mask first, so that a secret is not cut into safe pieces. */
	ofl_buf_init(&h);
	ofl_buf_init(&t);
	n = nopts.head_bytes < c->keep.len ? nopts.head_bytes : c->keep.len;
	add_masked(&h, c->keep.data, n);
	ring = ofl_xmalloc(tail_max);
	start = (c->tail_pos + tail_max - len) % tail_max;
	for (n = 0; n < len; n++)
		ring[n] = c->tail[(start + n) % tail_max];
	n = nopts.tail_bytes < len ? nopts.tail_bytes : len;
	add_masked(&t, (char *)ring + len - n, n);
	free(ring);
	ofl_offload_preview(out, h.data, h.len, budget / 2, t.data, t.len,
	    budget / 2);
	ofl_buf_free(&h);
	ofl_buf_free(&t);
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
			    "\"stored\":false,\"error\":");
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
			add_masked(&t, c->keep.data, c->keep.len);
			ofl_buf_adds(out, "\"output\":");
		}
		ofl_buf_add_json_str(out, t.data, t.len);
		ofl_buf_adds(out, "}\n");
		ofl_buf_free(&t);
		return;
	}
	if (!c->offload) {
		add_masked(out, c->keep.data, c->keep.len);
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

/* Several commands: offload the largest until the rest fits. */
static void
offload_combined(struct capture *cs, size_t n)
{
	struct ofl_offload_item	*it;
	size_t			 i;
	ssize_t			 big;

	it = ofl_xcalloc(n, sizeof *it);
	for (;;) {
		for (i = 0; i < n; i++) {
			it[i].movable = !cs[i].offload && cs[i].stored;
			it[i].tokens = it[i].movable ?
			    ofl_tokens(cs[i].total) : 0;
			it[i].size = cs[i].total;
		}
		big = ofl_offload_next(it, n, 0, (uint64_t)opt_combined);
		if (big == -1)
			break;
		cs[big].offload = 1;
	}
	free(it);
}

/*
 * Signals end the capture, not the process; then the store, with its
 * settings for scrubbing what is stored and masking what passes.
 */
static void
open_store(void)
{
	struct sigaction sa;
	char		*where;

	/* A store that cannot be (a URL, a relative path): before running. */
	if ((where = ofl_store_where(opt_store)) == NULL &&
	    ofl_errcode() == OFL_EXIT_USAGE)
		errx(OFL_EXIT_USAGE, "%s", ofl_errmsg());
	free(where);

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
	/* After the store is open: its "redact" setting counts. */
	if (streaming && ofl_redact_wanted())
		masker = ofl_redactor_new();
}

/*
 * One capture for each -e command (nexec of them), else one for the
 * command in argv (*joined gets its text), else one for standard input.
 */
static struct capture *
start_captures(const char **execs, size_t nexec, char *argv[], char **joined)
{
	struct capture	*cs;
	size_t		 i;

	cs = ofl_xcalloc(nexec > 0 ? nexec : 1, sizeof *cs);
	if (nexec > 0) {
		for (i = 0; i < nexec; i++) {
			char *sh[] = { "sh", "-c", (char *)execs[i], NULL };

			capture_init(&cs[i], execs[i]);
			if (spawn(&cs[i], sh) == -1)
				err(OFL_EXIT_CAPTURE_FAIL, "%s", execs[i]);
		}
	} else if (argv[0] != NULL) {
		*joined = join_argv(argv);
		capture_init(&cs[0], *joined);
		if (spawn(&cs[0], argv) == -1)
			err(OFL_EXIT_CAPTURE_FAIL, "%s", argv[0]);
	} else {
		capture_init(&cs[0], NULL);
		cs[0].fd = STDIN_FILENO;
	}
	return cs;
}

static void
free_captures(struct capture *cs, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		ofl_buf_free(&cs[i].keep);
		ofl_buf_free(&cs[i].line);
		ofl_buf_free(&cs[i].pend);
		ofl_meta_free(&cs[i].meta);
		free(cs[i].tail);
		free(cs[i].cwd);
	}
	free(cs);
}

/*
 * After the run: finish storing each capture, say what went wrong, and
 * decide which are offloaded.  execs names the -e commands (or NULL,
 * and cmd the command).  Returns 1 if storing failed for any.
 */
static int
finish_captures(struct capture *cs, size_t n, const char **execs,
    const char *cmd)
{
	size_t	i;
	int	any_fail = 0;

	for (i = 0; i < n; i++) {
		if (cs[i].exec_errno != 0)
			warnx("%s: %s", execs != NULL ? execs[i] : cmd,
			    strerror(cs[i].exec_errno));
		if (cs[i].end == 0)
			cs[i].end = ofl_mono_ms();
		/* Under the threshold to the end: the last line goes too. */
		if (cs[i].passing) {
			go_live(&cs[i]);
			pass_partial(&cs[i]);
		}
		capture_finish(&cs[i], got_signal != 0 || cs[i].termsig ||
		    cs[i].drained);
		if (cs[i].drained) {
			if (cs[i].meta.id[0] != '\0')
				warnx("ofl:%s: incomplete: stopped reading %d "
				    "ms after the command exited, as a process "
				    "it started still holds its output",
				    cs[i].meta.id, DRAIN_MS);
			else
				warnx("stopped reading %d ms after the command "
				    "exited, as a process it started still "
				    "holds its output", DRAIN_MS);
		}
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
		cs[i].offload = ofl_offload_over((uint64_t)opt_threshold,
		    cs[i].total) || cs[i].total > keep_max - 1;
	}
	if (execs != NULL && n > 1)
		offload_combined(cs, n);
	return any_fail;
}

/*
 * Print what each capture leaves on stdout: its output, its notice, or
 * the trailer after what passed through.  Returns the highest exit
 * status of the commands (0 for standard input).
 */
static int
print_captures(struct capture *cs, size_t n, size_t nexec, int argc)
{
	struct ofl_buf	out;
	size_t		i;
	int		rv = 0;

	ofl_buf_init(&out);
	for (i = 0; i < n; i++) {
		size_t	before = out.len;

		if (streaming) {
			trailer(&cs[i], &out);
			if (cs[i].stored && out.len > 0)
				ofl_store_set_printed(store, cs[i].meta.id,
				    cs[i].printed + out.len);
		} else {
			emit(&cs[i], &out, nexec > 0 && !opt_json);
			if (cs[i].stored)
				ofl_store_set_printed(store, cs[i].meta.id,
				    out.len - before);
		}
		if (cs[i].has_exit && (nexec > 0 || argc > 0) &&
		    cs[i].status > rv)
			rv = cs[i].status;
	}
	signal(SIGPIPE, SIG_DFL);
	if (out_errno != 0) {
		/* As if the failed write had been this one. */
		if (out_errno == EPIPE)
			raise(SIGPIPE);
		errno = out_errno;
		err(nexec > 0 || argc > 0 ? rv : OFL_EXIT_FAIL, "stdout");
	}
	if (ofl_write_all(STDOUT_FILENO, out.data, out.len) == -1)
		err(nexec > 0 || argc > 0 ? rv : OFL_EXIT_FAIL, "stdout");
	ofl_buf_free(&out);
	return rv;
}

int
main(int argc, char *argv[])
{
	struct capture	*cs;
	const char	**execs = NULL;
	char		*joined = NULL;
	size_t		 nexec = 0, n;
	int		 rv = 0, any_fail = 0;
	struct stat	 sb;

	ofl_setprogname("ofl-capture");
	ofl_notice_opts_init(&nopts);
	optind = parse_options(argc, argv, &execs, &nexec);
	argc -= optind;
	argv += optind;
	if (nexec > 0 && argc > 0) {
		warnx("give either -x commands or -- command, not both");
		usage(OFL_EXIT_USAGE);
	}
	multi = nexec > 1;
	/*
	 * One stream passes through live.  Several -e (the combined budget
	 * needs them all), --json and --quiet print once it has ended.
	 */
	streaming = !multi && !opt_json && !opt_quiet && nopts.intent == NULL;
	if (nexec == 0 && argc == 0 && fstat(STDIN_FILENO, &sb) == 0 &&
	    S_ISREG(sb.st_mode))
		streaming = 0;	/* a file is there whole: nothing to wait for */
	out_tty = isatty(STDOUT_FILENO);
	prog_on = prog_on && isatty(STDERR_FILENO);
	prog_start = ofl_mono_ms();
	keep_max = (size_t)ofl_offload_max_bytes((uint64_t)opt_threshold) + 1;
	if (keep_max < nopts.head_bytes + 1)
		keep_max = nopts.head_bytes + 1;
	if (tail_max < nopts.tail_bytes)
		tail_max = nopts.tail_bytes;

	open_store();
	n = nexec > 0 ? nexec : 1;
	cs = start_captures(execs, nexec, argv, &joined);
	cs[0].passing = streaming;
	cs[0].last_nl = 1;
	run_loop(cs, n, nexec == 0 && argc == 0);
	progress_clear();

	any_fail = finish_captures(cs, n, nexec > 0 ? execs : NULL, argv[0]);

	rv = print_captures(cs, n, nexec, argc);
	auto_index(cs, n);
	auto_gc();
	ofl_store_close(store);
	free_captures(cs, n);
	free(execs);
	free(joined);
	ofl_redactor_free(scrubber);
	ofl_redactor_free(masker);

	if (nexec == 0 && argc == 0) {
		if (got_signal)
			return 128 + got_signal;
		return any_fail ? OFL_EXIT_FAIL : 0;
	}
	return rv;
}
