/*
 * fmt-log-tmpl.h: what the template miner (fmt-log-tmpl.c) shares with
 * the matcher from templates alone (fmt-log-tmpl-match.c): a line as
 * tokens, and what the miner takes from fmt-log-head.c: a line's header.
 * Not part of the library's interface.
 */
#ifndef OFL_FMT_LOG_TMPL_H
#define OFL_FMT_LOG_TMPL_H

#define TM_MAXTOK	64	/* tokens of a message; the last takes the rest */
#define TM_MAXHDR	12	/* tokens a header may take */
#define H_TAIL		0xc2b2ae3d27d4eb4fULL	/* the rest of a long line */

/* A word and its length, for tables of words. */
struct tm_word {
	const char	*w;
	size_t		 n;
};
#define TM_WORD(s)	{ s, sizeof(s) - 1 }

/* The state of the line reader: records and their first lines. */
struct rdst {
	uint64_t	 lineno;
	uint64_t	 flush;		/* lines read that are not indented */
	uint64_t	 flush_ts;	/* of which with a timestamp */
	int		 head_ts;	/* the record's first line has a timestamp */
	int		 cur;		/* the record's group, -1 none */
	int		 cur_other;	/* the record is in the catch-all */
	int		 lastcont;	/* the line before went on a record */
};

/* One line, tokenized. */
struct line {
	uint64_t	 th[TM_MAXTOK];
	uint64_t	 sh[TM_MAXTOK];
	uint64_t	 rh[TM_MAXTOK];	/* unmasked */
	const char	*tp[TM_MAXTOK];
	size_t		 tl[TM_MAXTOK];
	uint32_t	 epoch;		/* bit i: token i is a Unix time */
	int		 ntok;
	int		 level;
	int		 ts;
	int		 cont;
	int		 compw;		/* 1: token 0 may be a header's component */
};

/* fmt-log-head.c: the header of a line. */
extern unsigned char ofl_fmt_log_head_cls[256];	/* classes of bytes */
void	 ofl_fmt_log_head_init(void);
int	 ofl_fmt_log_head_is_name(const char *, size_t);
int	 ofl_fmt_log_head_digits(const char *, size_t);
int	 ofl_fmt_log_head_level(const char *, size_t);
uint64_t ofl_fmt_log_head_pack(const char *, size_t, int);
int	 ofl_fmt_log_head_words(const char *, size_t, const char **, size_t *,
	    int);
int	 ofl_fmt_log_head(const char **, const size_t *, int, int *, int *,
	    int *);

/* fmt-log-tmpl.c: a line as the miner tokenizes it. */
void	 ofl_fmt_log_tmpl_tokenize(struct line *, const char *, size_t);
void	 ofl_fmt_log_tmpl_tok_text(struct ofl_buf *, const char *, size_t,
	    int);
int	 ofl_fmt_log_tmpl_colhdr(struct line *, int);
void	 ofl_fmt_log_tmpl_shift(struct line *, int);
int	 ofl_fmt_log_tmpl_compw(const struct line *);
uint64_t ofl_fmt_log_tmpl_hmask(void);

#endif /* OFL_FMT_LOG_TMPL_H */
