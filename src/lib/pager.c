/*
 * pager.c: output for a person at a terminal, as git and grep give it.
 *
 * Color: --color=auto (the default) colors when stdout is a terminal and
 * NO_COLOR is unset or empty; always and never say what they mean.
 *
 * The pager: when stdout is a terminal, what the tool writes goes through
 * a pipe to a small process, the gate.  The gate holds the output until
 * it is longer than the screen, then starts the pager ($OFL_PAGER, else
 * $PAGER, else less, with LESS=FRX unless LESS is set) and feeds it; what
 * fits on the screen is written to the terminal as is, without a pager.
 * So a short output never waits for a key, whatever the pager.  A pager
 * that cannot start leaves the output to go to the terminal directly.
 * The tool waits for the gate, so the shell's prompt comes back when the
 * pager is done; quitting the pager early is not an error (exit 0).
 *
 * The gate is forked before it is needed and only reads, writes, forks
 * and execs: it calls no library function that could take a lock held
 * by another thread of the tool at the fork.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

static pid_t	gate_pid = -1;

static void	pager_signal(int);
static void	pager_release(void);
static int	write_full(int, const char *, size_t);
static void	gate(int, const char *, char *, size_t, int, int);

int
ofl_color_parse(const char *s)
{
	if (strcmp(s, "auto") == 0 || strcmp(s, "tty") == 0)
		return OFL_COLOR_AUTO;
	if (strcmp(s, "always") == 0 || strcmp(s, "yes") == 0)
		return OFL_COLOR_ALWAYS;
	if (strcmp(s, "never") == 0 || strcmp(s, "no") == 0)
		return OFL_COLOR_NEVER;
	ofl_seterr(OFL_EXIT_USAGE, "--color: '%s': not auto, always or never",
	    s);
	return -1;
}

int
ofl_color_wanted(int when)
{
	const char	*e;

	if (when == OFL_COLOR_ALWAYS)
		return 1;
	if (when == OFL_COLOR_NEVER)
		return 0;
	if ((e = getenv("NO_COLOR")) != NULL && *e != '\0')
		return 0;
	if ((e = getenv("TERM")) != NULL && strcmp(e, "dumb") == 0)
		return 0;
	return isatty(STDOUT_FILENO);
}

/* The pager's command, or NULL for none ("" and "cat" mean none). */
static const char *
pager_command(void)
{
	const char	*p;

	if ((p = getenv("OFL_PAGER")) == NULL && (p = getenv("PAGER")) == NULL)
		p = "less";
	p += strspn(p, " \t");
	if (*p == '\0' || strcmp(p, "cat") == 0)
		return NULL;
	return p;
}

static int
write_full(int fd, const char *p, size_t n)
{
	ssize_t	w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * The gate: read the tool's output from in; write it to the terminal
 * (fd 1) when it fits on rows lines of cols columns, else start the
 * pager and copy it there.  buf has room for more than a screen.
 */
static void
gate(int in, const char *cmd, char *buf, size_t size, int rows, int cols)
{
	const char	*meta = "|&;<>()$`\\\"' \t\n*?[#~=%";
	char		 msg[512];
	size_t		 len = 0, i;
	ssize_t		 n;
	int		 pfd[2], efd[2], row = 0, col = 0, over = 0, e, st;
	pid_t		 pid;

	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* Hold a screen's worth, counting wrapped lines. */
	while (!over && len < size) {
		if ((n = read(in, buf + len, size - len)) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n == 0)
			break;
		for (i = len; i < len + (size_t)n && !over; i++) {
			if (buf[i] == '\n') {
				row++;
				col = 0;
			} else if (buf[i] == '\t')
				col = (col / 8 + 1) * 8;
			else if ((buf[i] & 0xc0) != 0x80)
				col++;
			if (col >= cols) {
				row++;
				col -= cols;
			}
			/* One line stays for the prompt. */
			if (row >= rows)
				over = 1;
		}
		len += (size_t)n;
	}
	if (!over && len < size) {
		(void)write_full(STDOUT_FILENO, buf, len);
		_exit(0);
	}

	/* Start the pager; efd says whether exec failed. */
	pid = -1;
	if (pipe(pfd) == 0) {
		if (pipe(efd) == 0 && fcntl(efd[1], F_SETFD, FD_CLOEXEC) == 0 &&
		    (pid = fork()) == 0) {
			close(pfd[1]);
			close(efd[0]);
			if (pfd[0] != STDIN_FILENO) {
				dup2(pfd[0], STDIN_FILENO);
				close(pfd[0]);
			}
			close(in);
			if (strpbrk(cmd, meta) != NULL)
				execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			else
				execlp(cmd, cmd, (char *)NULL);
			e = errno;
			(void)write_full(efd[1], (const char *)&e, sizeof e);
			_exit(127);
		}
		close(pfd[0]);
		if (pid > 0) {
			close(efd[1]);
			while ((n = read(efd[0], &e, sizeof e)) == -1 &&
			    errno == EINTR)
				;
			close(efd[0]);
			if (n > 0) {
				/* exec failed: reap it and write directly. */
				while (waitpid(pid, NULL, 0) == -1 &&
				    errno == EINTR)
					;
				snprintf(msg, sizeof msg, "%s: pager '%s': %s\n",
				    ofl_getprogname(), cmd, strerror(e));
				(void)write_full(STDERR_FILENO, msg,
				    strlen(msg));
				pid = -1;
			}
		}
		if (pid <= 0)
			close(pfd[1]);
	}
	if (pid <= 0) {
		/* No pager: the terminal gets it all. */
		do {
			if (write_full(STDOUT_FILENO, buf, len) == -1)
				break;
		} while ((n = read(in, buf, size)) > 0 &&
		    (len = (size_t)n) > 0);
		_exit(0);
	}
	close(STDOUT_FILENO);
	do {
		/* The reader quit: stop (EPIPE). */
		if (write_full(pfd[1], buf, len) == -1)
			break;
		while ((n = read(in, buf, size)) == -1 && errno == EINTR)
			;
	} while (n > 0 && (len = (size_t)n) > 0);
	close(pfd[1]);
	close(in);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	_exit(0);
}

int
ofl_pager_start(void)
{
	struct winsize	 ws;
	const char	*cmd, *e;
	long long	 v;
	char		*buf;
	size_t		 size;
	int		 fd[2], rows = 0, cols = 0;
	pid_t		 pid;

	if (gate_pid != -1 || !isatty(STDOUT_FILENO) ||
	    (cmd = pager_command()) == NULL)
		return 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
		rows = ws.ws_row;
		cols = ws.ws_col;
	}
	if (rows <= 0 && (e = getenv("LINES")) != NULL &&
	    ofl_parse_num(e, 1, 10000, &v) == 0)
		rows = (int)v;
	if (cols <= 0 && (e = getenv("COLUMNS")) != NULL &&
	    ofl_parse_num(e, 1, 10000, &v) == 0)
		cols = (int)v;
	if (rows <= 0)
		rows = 24;
	if (cols <= 0)
		cols = 80;
	/* As git does: less quits at the end, shows color, keeps the
	 * screen. */
	if (getenv("LESS") == NULL)
		setenv("LESS", "FRX", 1);
	if (getenv("LV") == NULL)
		setenv("LV", "-c", 1);
	/* More than a screen: each byte takes a column, or ends a row. */
	size = ((size_t)rows + 1) * ((size_t)cols + 1) + 1;
	buf = ofl_xmalloc(size);
	fflush(stdout);
	if (pipe(fd) == -1) {
		free(buf);
		return 0;
	}
	if ((pid = fork()) == -1) {
		close(fd[0]);
		close(fd[1]);
		free(buf);
		return 0;
	}
	if (pid == 0) {
		close(fd[1]);
		gate(fd[0], cmd, buf, size, rows, cols);
	}
	free(buf);
	close(fd[0]);
	if (dup2(fd[1], STDOUT_FILENO) == -1) {
		close(fd[1]);
		gate_pid = pid;
		pager_release();
		return 0;
	}
	close(fd[1]);
	gate_pid = pid;
	signal(SIGPIPE, pager_signal);
	signal(SIGINT, pager_signal);
	signal(SIGTERM, pager_signal);
	signal(SIGHUP, pager_signal);
	atexit(ofl_pager_finish);
	return 1;
}

/* Give the gate its end of file, and wait for it (and the pager). */
static void
pager_release(void)
{
	int	fd;

	if (gate_pid == -1)
		return;
	if ((fd = open("/dev/null", O_WRONLY)) != -1) {
		dup2(fd, STDOUT_FILENO);
		if (fd != STDOUT_FILENO)
			close(fd);
	} else
		close(STDOUT_FILENO);
	while (waitpid(gate_pid, NULL, 0) == -1 && errno == EINTR)
		;
	gate_pid = -1;
}

/*
 * SIGPIPE: the pager was quit before the end, which is no error.  Other
 * signals: wait for the pager, then die of the signal as before.
 */
static void
pager_signal(int sig)
{
	pager_release();
	if (sig == SIGPIPE)
		_exit(0);
	signal(sig, SIG_DFL);
	raise(sig);
}

void
ofl_pager_finish(void)
{
	if (gate_pid == -1)
		return;
	/* A write the pager did not take: it was quit early. */
	if (fflush(stdout) == EOF && errno == EPIPE)
		clearerr(stdout);
	pager_release();
}

int
ofl_pager_active(void)
{
	return gate_pid != -1;
}
