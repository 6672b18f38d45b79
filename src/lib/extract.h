/*
 * extract.h: what the files of the extract service share (extract.c, the
 * source, lines, output and marks; extract-regex.c, extract-errors.c,
 * extract-jq.c, one way of extracting each).  Not part of the library's
 * interface: only these files include it.
 */
#ifndef OFL_EXTRACT_H
#define OFL_EXTRACT_H

#include "arc.h"

#define READ_SIZE	(1024 * 1024)	/* bytes read at once */
#define PIECE_MAX	(64 * 1024)	/* pieces of long lines */
#define LINE_MAX_REGEX	(64 * 1024 * 1024) /* longest whole line */
#define SPAN_MAX	(UINT64_C(1) << 62)
#define RING_LINES	32		/* lines kept for looking back */
#define RING_TEXT	4096		/* bytes of each kept */
#define BLOCK_LINES	2000		/* longer blocks are cut */
#define BLOCK_BYTES	(4 * 1024 * 1024)
#define TRACEBACK	"Traceback (most recent call last):"
#define HEAD_OCC	10		/* occurrences in a header */
#define TEXT_KEEP	(256 * 1024 * 1024) /* block text kept in memory */

/* A source of bytes: the artifact, or one member of it (an archive). */
struct src {
	struct ofl_reader	*r;
	const char		*member;
	struct ofl_src		 rsrc;		/* r as a source */
	struct ofl_arc		 arc;		/* reading member */
	struct archive		*a;		/* arc.a once open */
	uint64_t		 pos;		/* member bytes read */
	const char		*blk;		/* its block read, not given */
	size_t			 blklen;
	uint64_t		 hole;		/* zeros before it (sparse) */
	struct ex		*x;		/* for the warning of: */
	int			 cut;		/* the archive ends in it */
	int			 totals;	/* bytes, lines known */
	uint64_t		 bytes;
	uint64_t		 lines;
};

/* A line, or a piece of a long one. */
struct line {
	char		*p;
	size_t		 len;		/* without the newline */
	uint64_t	 no;		/* 1-based */
	uint64_t	 off;		/* source offset of p[0] */
	int		 more;		/* the line goes on */
	int		 cont;		/* a piece after the first */
};

/* Reads lines from a source. */
struct lr {
	struct src	*src;
	char		*buf;
	size_t		 cap;
	size_t		 lo;		/* unread: buf[lo, hi) */
	size_t		 hi;
	uint64_t	 off;		/* source offset of buf[lo] */
	uint64_t	 no;		/* number of the line at buf[lo] */
	uint64_t	 last;		/* the last line to return */
	size_t		 maxline;	/* longer lines come in pieces */
	int		 eof;
	int		 piece;		/* buf[lo] is inside a line */
};

/* One run of ofl_extract(). */
struct ex {
	const struct ofl_extract *o;
	struct ofl_store	*st;
	const char		*id;
	struct src		 src;
	FILE			*fp;
	uint64_t		 max;		/* budget, 0: none */
	uint64_t		 used;
	int			 lastnl;	/* output ends a line */
	int			 werr;		/* writing failed */
	int			 printed;	/* a unit was printed */
	struct ofl_buf		 tmp;
	struct rspan		*scope;		/* resolved -n */
	size_t			 nscope;
	struct ofl_redactor	*red;		/* or NULL */
	struct ofl_buf		 rbuf;
};

/* A span resolved against the source: first and last, both inclusive. */
struct rspan {
	int		 unit;
	uint64_t	 a;
	uint64_t	 b;
};

void	 ofl_extract_warnf(struct ex *, const char *, ...) OFL_PRINTF(2, 3);
int	 ofl_extract_src_rewind(struct src *);
ssize_t	 ofl_extract_src_read(struct src *, void *, size_t);
int	 ofl_extract_lr_init(struct lr *, struct src *, uint64_t, uint64_t,
		    size_t);
void	 ofl_extract_lr_free(struct lr *);
int	 ofl_extract_lr_next(struct lr *, struct line *);
int	 ofl_extract_out_write(struct ex *, const void *, size_t);
/* extract-tests.c: the test run at the head of --errors. */
int	 ofl_extract_tests_head(struct ex *, const struct ofl_testrun *,
		    const struct ofl_meta *, const struct ofl_changed *);
int	 ofl_extract_out_fits(struct ex *, uint64_t);
void	 ofl_extract_json_str(struct ofl_buf *, const char *, size_t);
void	 ofl_extract_cmd_word(struct ofl_buf *, const char *);
int	 ofl_extract_mark(struct ex *, const char *, const char *);
void	 ofl_extract_spans_text(struct ofl_buf *, struct ofl_buf *,
		    const struct rspan *, size_t);
int	 ofl_extract_mark_rest(struct ex *, const struct rspan *, size_t,
    size_t,
		    uint64_t, const char *);
int	 ofl_extract_emit_line(struct ex *, uint64_t, const char *,
    const char *,
		    size_t, int);
int	 ofl_extract_emit_partial(struct ex *, struct lr *, struct line *,
		    const char *, int);
int	 ofl_extract_resolve(struct ex *, size_t *, struct rspan **, int);
int	 ofl_extract_regex(struct ex *);
int	 ofl_extract_errors(struct ex *);
int	 ofl_extract_jq(struct ex *);
int	 ofl_extract_tmpl(struct ex *);
int	 ofl_extract_role(struct ex *);
/* Text with secrets masked (the same text when nothing is masked). */
const char	*ofl_extract_mask_text(struct ex *, const char *, size_t,
		    size_t *);
/* Build the unit for one line into b. */
void		 ofl_extract_line_unit(struct ex *, struct ofl_buf *,
		    uint64_t, const char *, const char *, size_t, int, int);
/*
 * In a child run under limits, what running out of memory says, and the
 * function libjq is to call then (each jq_state is given it: libjq sets
 * a state's own handler, none by default, when it runs); NULL outside
 * one.  The child sets them.
 */
const char	*ofl_extract_oom_msg(void);
void		(*ofl_extract_oom_fn(void))(void *);
void		 ofl_extract_set_oom(const char *, void (*)(void *));
/* extract-io.c: the source, for the entry point and the raw mode. */
int		 ofl_extract_src_open(struct ex *);
void		 ofl_extract_src_close(struct src *);
int		 ofl_extract_src_seek(struct src *, uint64_t);
int		 ofl_extract_src_totals(struct src *, uint64_t *, uint64_t *);
int		 ofl_extract_out_unit(struct ex *, const char *, size_t);
/* extract-regex.c: o's regex compiles (run under the limits). */
int		 ofl_extract_regex_check(void *);
/* extract-jq.c: o's filter may run and its --argjson values parse. */
int		 ofl_extract_jq_check(const struct ofl_extract *);

#endif /* OFL_EXTRACT_H */
