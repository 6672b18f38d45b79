/*
 * pq.c: open libpq on first use (see pq.h).  Nothing here exits: a
 * missing libpq is an error the caller reports.
 */
#include "config.h"

#include <sys/types.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define OFL_PQ_REAL	/* the real names here, not pq.h's macros */
#include "pq.h"
#include "ofl.h"
#include "banned.h"

struct ofl_pq_api	ofl_pq_api;
static int		ofl_pq_loaded;

int
ofl_pq_load(void)
{
	static const char	*names[] = { LIBPQ_SONAME, "libpq.so.5",
	    "libpq.so", NULL };
	void			*h = NULL;
	const char		*err = "not found";
	int			 i;

	if (ofl_pq_loaded)
		return 0;
	for (i = 0; names[i] != NULL && h == NULL; i++) {
		if ((h = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL)) == NULL)
			err = dlerror();
	}
	if (h == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "cannot load libpq: %s: %s",
		    LIBPQ_SONAME, err != NULL ? err : "not found");
		return -1;
	}
#define X(name)								\
	ofl_pq_api.name = (__typeof__(name) *)dlsym(h, #name);		\
	if (ofl_pq_api.name == NULL) {					\
		ofl_seterr(OFL_EXIT_FAIL, "cannot load libpq: %s: %s",	\
		    LIBPQ_SONAME, #name);				\
		dlclose(h);						\
		return -1;						\
	}
	OFL_PQ_FUNCS
#undef X
	ofl_pq_loaded = 1;
	return 0;
}
