/*
 * notice-int.h: what notice.c and notice-sum.c share: the state of one
 * notice being built and the budgets of its parts.
 */
#ifndef OFL_NOTICE_INT_H
#define OFL_NOTICE_INT_H

#define SCAN_LARGE	(256 * 1024)	/* diff files */
#define SUMMARY_MAX	300		/* bytes of one summary line */
#define SIG_LINES	3		/* error signatures in a notice */
#define SIG_WIDTH	100		/* bytes of one signature */
#define SIG_MAX		120		/* bytes of a signature rendered */
#define SUMMARY_FREE	250		/* summary bytes that cost no preview */
#define HEAD_MIN	200		/* the head keeps at least this */
#define SHAPE_INPUT	(8 * 1024 * 1024) /* JSON read for the shape */
#define MARK_RESERVE	24		/* room for " [... 123,456 bytes]" */
#define HEX_BINARY	128		/* bytes of hex at each end */
#define HEX_ARCHIVE	64
#define CMD_MAX		80		/* bytes of the command shown */
#define ERRLINE_MAX	240		/* bytes of the first error line */
#define LINE_AVG	30		/* preview budget per line shown */
#define NEXT_ERRORS	40		/* "      ofl-extract ID --errors" */
#define TESTS_SCAN	(256 * 1024 * 1024) /* a test run read whole */
#define TESTS_BUDGET	700		/* bytes of a test run's section */
#define TESTS_TAIL	200		/* and of the tail after it */

struct ctx {
	struct ofl_store	*st;
	const struct ofl_meta	*m;
	const struct ofl_notice_opts *o;
	struct ofl_reader	*r;
	const char		*id;
	uint64_t		 total;
	uint64_t		 lines;
	int			 lastnl;	/* content ends with '\n' */
	size_t			 width;		/* digits of the last line */

	struct ofl_buf		 sum;		/* summary lines */
	struct ofl_buf		 sumj;		/* summary members, JSON */
	char			*filter;	/* a jq filter for next */
	char			*member;	/* an archive member for next */
	int			 snapshot;	/* a map, no preview */
	uint64_t		 head_last;	/* last line of the head */
	int			 tests;		/* a failed test run's section */
	int			 prose_errors;	/* its "errors" are words */
	uint64_t		 errors;	/* as shown: 0 if they are words */
	uint64_t		 first_error;
};

/* notice-sum.c: the summary that fits the kind, into c->sum and c->sumj. */
int	ofl_notice_sum(struct ctx *);

#endif
