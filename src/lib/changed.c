/*
 * changed.c: the files changed in a git work tree (tracked and modified,
 * added, renamed, or untracked), as `git status --porcelain -z` lists
 * them.  git runs without a shell, from an argument vector, with no
 * input, its errors dropped, for at most CHANGED_MS and CHANGED_BYTES of
 * output: a directory that is not a work tree, or a machine without git,
 * gives no files and no error.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

#define CHANGED_MS	2000
#define CHANGED_BYTES	(256 * 1024)
#define CHANGED_FILES	1000

void
ofl_changed_free(struct ofl_changed *ch)
{
	size_t	i;

	if (ch == NULL)
		return;
	for (i = 0; i < ch->n; i++)
		free(ch->f[i]);
	free(ch->f);
	ch->f = NULL;
	ch->n = 0;
}

/*
 * The files as the store keeps them, a line each (a name with a newline
 * in it is left out: it cannot be told apart), appended to b.
 */
void
ofl_changed_join(const struct ofl_changed *ch, struct ofl_buf *b)
{
	size_t	i;

	for (i = 0; i < ch->n; i++) {
		if (strchr(ch->f[i], '\n') != NULL)
			continue;
		ofl_buf_adds(b, ch->f[i]);
		ofl_buf_addc(b, '\n');
	}
}

/* The files of ofl_changed_join()'s n bytes at s, added to ch. */
void
ofl_changed_split(struct ofl_changed *ch, const char *s, size_t n)
{
	const char	*e = s + n, *nl;

	for (; s < e; s = nl + 1) {
		if ((nl = memchr(s, '\n', (size_t)(e - s))) == NULL)
			nl = e;
		if (nl == s)
			continue;
		ch->f = ofl_xrealloc(ch->f, (ch->n + 1) * sizeof *ch->f);
		ch->f[ch->n] = ofl_xmalloc((size_t)(nl - s) + 1);
		memcpy(ch->f[ch->n], s, (size_t)(nl - s));
		ch->f[ch->n][nl - s] = '\0';
		ch->n++;
	}
}

/* git's output: "XY path\0", and "\0orig" after a rename or copy. */
static void
parse(const char *p, size_t n, struct ofl_changed *ch)
{
	const char	*e = p + n, *z;
	int		 moved;

	while (p < e && ch->n < CHANGED_FILES) {
		if ((z = memchr(p, '\0', (size_t)(e - p))) == NULL)
			break;
		if (z - p > 3 && p[2] == ' ') {
			moved = p[0] == 'R' || p[0] == 'C';
			ch->f = ofl_xrealloc(ch->f, (ch->n + 1) *
			    sizeof *ch->f);
			ch->f[ch->n++] = ofl_xstrdup(p + 3);
			if (moved && (z = memchr(z + 1, '\0',
			    (size_t)(e - z - 1))) == NULL)
				break;
		}
		p = z + 1;
	}
}

/* Run git in dir; the files it lists go to ch.  Never fails. */
void
ofl_changed_git(const char *dir, struct ofl_changed *ch)
{
	char		*argv[] = { "git", "-C", (char *)dir, "status",
			    "--porcelain", "-z", "--untracked-files=normal",
			    NULL };
	struct pollfd	 pfd;
	struct ofl_buf	 out;
	char		 buf[8192];
	int64_t		 end, left;
	ssize_t		 k;
	pid_t		 pid;
	int		 fd[2], devnull, status = -1, r, stop = 1;

	memset(ch, 0, sizeof *ch);
	if (dir == NULL || pipe(fd) == -1)
		return;
	if ((pid = fork()) == -1) {
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pid == 0) {
		if ((devnull = open("/dev/null", O_RDWR)) != -1) {
			dup2(devnull, 0);
			dup2(devnull, 2);
		}
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		/* Status takes no lock that another git would wait for. */
		setenv("GIT_OPTIONAL_LOCKS", "0", 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	ofl_buf_init(&out);
	end = ofl_mono_ms() + CHANGED_MS;
	for (;;) {
		if ((left = end - ofl_mono_ms()) <= 0)
			break;
		pfd.fd = fd[0];
		pfd.events = POLLIN;
		if ((r = poll(&pfd, 1, (int)left)) == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if ((k = read(fd[0], buf, sizeof buf)) == -1 && errno == EINTR)
			continue;
		if (k <= 0) {
			stop = 0;
			break;
		}
		if (out.len + (size_t)k > CHANGED_BYTES)
			break;
		ofl_buf_add(&out, buf, (size_t)k);
	}
	close(fd[0]);
	if (stop)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		parse(out.data != NULL ? out.data : "", out.len, ch);
	ofl_buf_free(&out);
}
