/*
 * pq.c: open libpq on first use (see pq.h).  Nothing here exits: a
 * missing libpq is an error the caller reports.
 */
#include "config.h"

#include <sys/types.h>

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
	void			*h;

	if (ofl_pq_loaded)
		return 0;
	if (ofl_dl_open("libpq", names, &h) == -1)
		return -1;
#define X(name)								\
	if ((ofl_pq_api.name = (__typeof__(name) *)ofl_dl_sym(h, "libpq", \
	    LIBPQ_SONAME, #name)) == NULL)				\
		return -1;
	OFL_PQ_FUNCS
#undef X
	ofl_pq_loaded = 1;
	return 0;
}
