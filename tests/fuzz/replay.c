/*
 * replay.c: run a fuzz harness on files, without libFuzzer.
 *
 * With no arguments it replays $OFL_SRCDIR/tests/data/fuzz/<target>/ and
 * prints TAP, one test per file: each input runs in a child process (so
 * a crash is a failure, not the end of the run) under a time limit.  A
 * file whose name starts with "open-" reproduces a bug not fixed yet (it
 * may show only under the sanitizers): it is run and reported as a skip,
 * saying whether it still fails, so that it does not fail the suite; the
 * fix renames it.  With arguments, each is a file or a directory.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "fuzz.h"
#include "banned.h"

#define TIME_LIMIT	60	/* seconds per input */

static int	 ntests, nfailed;

static int	 cmp_str(const void *, const void *);
static int	 rm_entry(const char *, const struct stat *, int,
		    struct FTW *);
static int	 run_one(const char *);
static void	 replay_file(const char *, const char *);
static void	 replay_dir(const char *);

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	remove(path);
	return 0;
}

/* The harness on one file, in a child; returns its wait status. */
static int
run_one(const char *path)
{
	FILE		*f;
	struct ofl_buf	 b;
	char		 chunk[65536];
	size_t		 n;
	pid_t		 pid;
	int		 status;

	fflush(stdout);
	if ((pid = fork()) == -1) {
		perror("fork");
		exit(99);
	}
	if (pid == 0) {
		alarm(TIME_LIMIT);
		if ((f = fopen(path, "rb")) == NULL) {
			perror(path);
			_exit(98);
		}
		ofl_buf_init(&b);
		while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
			ofl_buf_add(&b, chunk, n);
		fclose(f);
		LLVMFuzzerTestOneInput((const uint8_t *)b.data, b.len);
		ofl_buf_free(&b);
		exit(0);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			perror("waitpid");
			exit(99);
		}
	return status;
}

static void
replay_file(const char *path, const char *name)
{
	int	status, good, open_bug;

	open_bug = strncmp(name, "open-", 5) == 0;
	status = run_one(path);
	good = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	ntests++;
	if (!good && !open_bug)
		nfailed++;
	if (open_bug)
		printf("ok %d - %s/%s # SKIP open bug, %s here\n", ntests,
		    fuzz_target, name, good ? "passes" : "still fails");
	else
		printf("%sok %d - %s/%s\n", good ? "" : "not ", ntests,
		    fuzz_target, name);
	if (!good) {
		if (WIFSIGNALED(status))
			printf("#   killed by signal %d%s\n", WTERMSIG(status),
			    WTERMSIG(status) == SIGALRM ? " (time limit)" : "");
		else
			printf("#   exit status %d\n", WEXITSTATUS(status));
	}
}

static void
replay_dir(const char *path)
{
	DIR		*d;
	struct dirent	*de;
	struct ofl_buf	 f;
	char		**names = NULL;
	size_t		 n = 0, i;

	if ((d = opendir(path)) == NULL) {
		printf("# %s: %s\n", path, strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "README") == 0)
			continue;
		names = ofl_xrealloc(names, (n + 1) * sizeof *names);
		names[n++] = ofl_xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof *names, cmp_str);
	ofl_buf_init(&f);
	for (i = 0; i < n; i++) {
		ofl_buf_reset(&f);
		ofl_buf_addf(&f, "%s/%s", path, names[i]);
		replay_file(ofl_buf_str(&f), names[i]);
		free(names[i]);
	}
	ofl_buf_free(&f);
	free(names);
}

int
main(int argc, char *argv[])
{
	struct ofl_buf	 b;
	struct stat	 sb;
	const char	*src, *base, *tmp;
	char		 top[4096];
	int		 i;

	/*
	 * Every child makes its temporary store under a directory of our
	 * own, removed at the end even when a child crashed.
	 */
	if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
		tmp = "/tmp";
	snprintf(top, sizeof top, "%s/ofl-replay.XXXXXX", tmp);
	if (mkdtemp(top) == NULL) {
		perror(top);
		return 99;
	}
	setenv("TMPDIR", top, 1);
	LLVMFuzzerInitialize(&argc, &argv);
	if (argc < 2) {
		if ((src = getenv("OFL_SRCDIR")) == NULL || *src == '\0')
			src = ".";
		ofl_buf_init(&b);
		ofl_buf_addf(&b, "%s/tests/data/fuzz/%s", src, fuzz_target);
		replay_dir(ofl_buf_str(&b));
		ofl_buf_free(&b);
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			replay_dir(argv[i]);
		else {
			base = strrchr(argv[i], '/');
			replay_file(argv[i], base != NULL ? base + 1 : argv[i]);
		}
	}
	nftw(top, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (ntests == 0) {
		printf("1..0 # SKIP no inputs for %s\n", fuzz_target);
		return 0;
	}
	printf("1..%d\n", ntests);
	return nfailed > 0 ? 1 : 0;
}
