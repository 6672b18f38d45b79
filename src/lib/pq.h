/*
 * pq.h: libpq, loaded when first used.
 *
 * Linking libpq pulls in OpenSSL, Kerberos and LDAP, whose loading costs
 * every process some two milliseconds; only a store at a postgresql://
 * URL needs it.  So the library opens libpq with dlopen(3) when such a
 * store is opened, and the PQ* names used in ofl become calls through a
 * table.  Include this instead of <libpq-fe.h>.
 */
#ifndef OFL_PQ_H
#define OFL_PQ_H

#include <libpq-fe.h>

#define OFL_PQ_FUNCS \
	X(PQclear) \
	X(PQconnectdb) \
	X(PQerrorMessage) \
	X(PQexec) \
	X(PQexecParams) \
	X(PQfinish) \
	X(PQgetisnull) \
	X(PQgetlength) \
	X(PQgetvalue) \
	X(PQntuples) \
	X(PQresultErrorMessage) \
	X(PQresultStatus) \
	X(PQsetNoticeProcessor) \
	X(PQstatus) \
	/* end */

struct ofl_pq_api {
#define X(name)	__typeof__(name) *name;
	OFL_PQ_FUNCS
#undef X
};
extern struct ofl_pq_api ofl_pq_api;

/*
 * Load libpq (once).  0, or -1 with ofl_errmsg() set when it cannot be
 * loaded: the library never exits, the caller reports it.  Every PQ*
 * call below goes through the table, so the store loads it before it
 * connects.
 */
int	ofl_pq_load(void);

#ifndef OFL_PQ_REAL
#define PQclear			(ofl_pq_api.PQclear)
#define PQconnectdb		(ofl_pq_api.PQconnectdb)
#define PQerrorMessage		(ofl_pq_api.PQerrorMessage)
#define PQexec			(ofl_pq_api.PQexec)
#define PQexecParams		(ofl_pq_api.PQexecParams)
#define PQfinish		(ofl_pq_api.PQfinish)
#define PQgetisnull		(ofl_pq_api.PQgetisnull)
#define PQgetlength		(ofl_pq_api.PQgetlength)
#define PQgetvalue		(ofl_pq_api.PQgetvalue)
#define PQntuples		(ofl_pq_api.PQntuples)
#define PQresultErrorMessage	(ofl_pq_api.PQresultErrorMessage)
#define PQresultStatus		(ofl_pq_api.PQresultStatus)
#define PQsetNoticeProcessor	(ofl_pq_api.PQsetNoticeProcessor)
#define PQstatus		(ofl_pq_api.PQstatus)
#endif

#endif
