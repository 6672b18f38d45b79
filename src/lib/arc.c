/*
 * arc.c: open libarchive on first use (see arc.h).
 */
#include "config.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OFL_ARC_REAL	/* the real names here, not arc.h's macros */
#include "arc.h"
#include "ofl.h"
#include "banned.h"

struct ofl_arc_api	ofl_arc_api;
int			ofl_arc_loaded;

static OFL_DEAD void
arc_fatal(const char *what, const char *why)
{
	const char	*p = ofl_getprogname();

	/* Not an error a caller can handle: the installation is broken. */
	(void)!write(STDERR_FILENO, p, strlen(p));
	(void)!write(STDERR_FILENO, ": cannot load libarchive: ", 26);
	(void)!write(STDERR_FILENO, what, strlen(what));
	(void)!write(STDERR_FILENO, ": ", 2);
	(void)!write(STDERR_FILENO, why, strlen(why));
	(void)!write(STDERR_FILENO, "\n", 1);
	exit(OFL_EXIT_FAIL);
}

void
ofl_arc_load(void)
{
	static const char	*names[] = { LIBARCHIVE_SONAME,
	    "libarchive.so.13", "libarchive.so", NULL };
	void			*h = NULL;
	const char		*err = "not found";
	int			 i;

	if (ofl_arc_loaded)
		return;
	for (i = 0; names[i] != NULL && h == NULL; i++) {
		if ((h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) == NULL)
			err = dlerror();
	}
	if (h == NULL)
		arc_fatal(LIBARCHIVE_SONAME, err != NULL ? err : "not found");
#define X(name)								\
	if ((ofl_arc_api.name = (__typeof__(name) *)dlsym(h, #name)) == NULL) \
		arc_fatal(LIBARCHIVE_SONAME, #name);
	OFL_ARC_FUNCS
#undef X
	ofl_arc_loaded = 1;
}

void
ofl_arc_formats(struct archive *a)
{
	ofl_arc_load();
	ofl_arc_api.archive_read_support_format_tar(a);
	ofl_arc_api.archive_read_support_format_zip(a);
	ofl_arc_api.archive_read_support_format_7zip(a);
	ofl_arc_api.archive_read_support_format_cpio(a);
	ofl_arc_api.archive_read_support_format_ar(a);
	ofl_arc_api.archive_read_support_format_iso9660(a);
}
