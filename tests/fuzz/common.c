/*
 * common.c: the temporary store the harnesses share.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "fuzz.h"
#include "banned.h"

static char		 dir[4096];
static char		 cwd[4096 + 8];
static struct ofl_store	*st;
static pid_t		 owner;

static int	 rm_entry(const char *, const struct stat *, int,
		    struct FTW *);
static void	 cleanup(void);
static void	 setup(void);
static int	 on_removed(const struct ofl_meta *, const char *, void *);

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	remove(path);
	return 0;
}

static void
cleanup(void)
{
	/* A forked child must not remove its parent's directory. */
	if (getpid() != owner)
		return;
	if (st != NULL)
		ofl_store_close(st);
	st = NULL;
	if (dir[0] != '\0') {
		if (chdir("/") == -1)
			return;
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	}
}

static void
setup(void)
{
	const char	*tmp;
	char		 path[4096 + 8];

	if (dir[0] != '\0')
		return;
	if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
		tmp = "/tmp";
	snprintf(dir, sizeof dir, "%s/ofl-fuzz.XXXXXX", tmp);
	if (mkdtemp(dir) == NULL)
		fuzz_fail("mkdtemp %s: %s", dir, strerror(errno));
	owner = getpid();
	atexit(cleanup);
	snprintf(cwd, sizeof cwd, "%s/cwd", dir);
	if (mkdir(cwd, 0700) == -1 || chdir(cwd) == -1)
		fuzz_fail("%s: %s", cwd, strerror(errno));
	/* No user configuration (extra redaction patterns) leaks in. */
	snprintf(path, sizeof path, "%s/config", dir);
	setenv("XDG_CONFIG_HOME", path, 1);
	setenv("HOME", dir, 1);
	unsetenv("OFL_STORE");
	unsetenv("OFL_REDACT");
	unsetenv("OFL_LEVEL");
}

const char *
fuzz_dir(void)
{
	setup();
	return dir;
}

struct ofl_store *
fuzz_store(void)
{
	char	path[4096 + 8];

	if (st != NULL)
		return st;
	setup();
	snprintf(path, sizeof path, "%s/store", dir);
	if ((st = ofl_store_open(path, OFL_RDWR)) == NULL)
		fuzz_fail("store: %s", ofl_errmsg());
	return st;
}

int
fuzz_cwd_clean(void)
{
	DIR		*d;
	struct dirent	*de;
	int		 clean = 1;

	setup();
	if ((d = opendir(cwd)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			clean = 0;
	closedir(d);
	return clean;
}

void
fuzz_put(const void *data, size_t n, char id[OFL_ID_MAX + 1])
{
	struct ofl_writer	*w;
	struct ofl_meta		 m;

	if ((w = ofl_writer_begin(fuzz_store(), NULL)) == NULL)
		fuzz_fail("writer: %s", ofl_errmsg());
	snprintf(id, OFL_ID_MAX + 1, "%s", ofl_writer_id(w));
	if (ofl_writer_write(w, data, n) == -1)
		fuzz_fail("write: %s", ofl_errmsg());
	if (ofl_writer_finish(w, NULL, &m) == -1)
		fuzz_fail("finish: %s", ofl_errmsg());
	if (m.bytes != n || m.state != OFL_STATE_COMPLETE)
		fuzz_fail("stored %llu bytes of %zu", (unsigned long long)m.bytes,
		    n);
	ofl_meta_free(&m);
}

static int
on_removed(const struct ofl_meta *m, const char *why, void *arg)
{
	(void)arg;
	if (m == NULL)
		fuzz_fail("gc: %s", why);
	return 0;
}

void
fuzz_drop(const char *id)
{
	struct ofl_gc_opts	o;
	struct ofl_gc_report	rep;
	const char		*ids[1];

	ids[0] = id;
	ofl_gc_opts_init(&o);
	o.ttl = 0;
	o.budget = 0;
	o.purge = ids;
	o.npurge = 1;
	if (ofl_gc_run(fuzz_store(), &o, on_removed, NULL, &rep) == -1)
		fuzz_fail("gc: %s", ofl_errmsg());
}

char *
fuzz_str(const uint8_t *data, size_t n)
{
	char	*s;

	s = ofl_xmalloc(n + 1);
	if (n > 0)
		memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

void
fuzz_fail(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "fuzz-%s: ", fuzz_target);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
