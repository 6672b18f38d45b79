/*
 * search.h: the working state of one search, shared by query.c (the
 * query, its scope, the hits) and snippet.c (the lines shown of each
 * hit).  Not part of the library's interface: ofl.h is.
 */
#ifndef SEARCH_H
#define SEARCH_H

#define SNIP_READ_MAX	(1024 * 1024)	/* bytes of a hit read */
#define SIM_SHOW	4		/* line numbers of similar lines shown */
#define TMPL_MINE	(4 * 1024 * 1024) /* a log mined for its templates */

enum {
	PHASE_ALL = 0,		/* every term */
	PHASE_LEX,		/* every term, some in other words (lexicon) */
	PHASE_ANY,		/* some terms */
	PHASE_SUBSTR		/* substring scan */
};

enum {
	LEX_NONE = 0,		/* the query's own word */
	LEX_WORD,		/* a form of one word: "ran" for "run" */
	LEX_PHRASE		/* a word of a form of several */
};

enum {
	FALLBACK_NONE = 0,
	FALLBACK_SUBSTR,
	FALLBACK_SPELL
};

struct term {
	char	*text;		/* as typed, cleaned */
	size_t	 len;
	int	 prefix;	/* ended with '*' */
	int	 phrase;	/* was in double quotes */
	char	*exact;		/* the identifier it is, or NULL */
	size_t	 ntok;
	char	*spell;		/* corrected token, or NULL */
	int	 stop;		/* a stop word: left out if others remain */
	int	 lex;		/* a lexicon group starts here, or -1 */
	size_t	 lexlen;	/* the terms it takes */
	char	*compound;	/* it and the next word as one ("error
				   summary": "errorsummary"; "not signed":
				   "unsigned insigned ..."), or NULL */
};

struct target {
	char	*s;
	size_t	 n;
	int	 prefix;
	int	 exact;		/* matches identifier tokens */
	int	 term;		/* index of its term */
	int	 lex;		/* another form (lexicon), LEX_*: marked in
				   its hits, or in any when LEX_WORD */
	char	*surface;	/* first text it marked */
};

struct art {
	char			 id[OFL_ID_MAX + 1];
	int64_t			 blob;
	int			 kind;
	uint64_t		 bytes;
	struct ofl_reader	*r;
	int			 hit;
	uint64_t		(*rg)[2];	/* line ranges in scope */
	size_t			 nrg;		/* 0: the whole artifact */
	int			 all;		/* named whole as well */
	int64_t			 created;	/* ms */
	int			 pending;	/* not indexed (in full): scan */
	uint64_t		 scan_from;	/* from this byte */
	uint64_t		 scan_line;	/* which starts this line */
	struct ofl_schema_log_map *tm;		/* a log: its templates */
	int			 tmdone;	/* tm looked for */
};

struct hit {
	size_t		 art;
	int64_t		 seq;		/* chunk, -1: none */
	double		 score;
	double		 rank;		/* a snapshot's score weighed again */
	double		 named;		/* and how well it names the question */
	int		 phase;
	char		*member;
	char		*title;
	uint64_t	 byte_start;
	uint64_t	 byte_end;
	uint64_t	 line_start;
	uint64_t	 line_end;
	uint64_t	 order;		/* substring: position found */
	uint64_t	 text_line;	/* member: the chunk's first line */
	uint64_t	 sig;		/* its best line's signature, 0: none */
	uint64_t	 bestno;	/* its best line's number */
	int		 cutl;		/* its text starts inside a line */
	int		 cutr;		/* and ends inside one */
	size_t		 nsim;		/* hits folded into it */
	uint64_t	 sim[SIM_SHOW];	/* their best lines */
	int		 typed;		/* terms it holds as typed */
};

struct mark {
	size_t	start;
	size_t	end;
	int	target;
	int	counts;		/* for its term (mark_counts()): shown */
};

/* A part of the output to color, or a match to report in JSON. */
struct span {
	size_t		 off;
	size_t		 len;
	const char	*color;
};

struct line {
	const char	*s;
	size_t		 n;
	uint64_t	 no;
	uint64_t	 mask;		/* targets matched */
	uint64_t	 wmask;		/* of them, as words of their own */
	int		 nmarks;
	int		 nspans;	/* of them, not inside another */
	int		 adj;		/* terms right after the term before
					   them in the query: a phrase */
	int		 other;		/* words of the names its marks are
					   in that the query does not ask */
	size_t		 mark0;		/* first mark in the line */
	int		 chosen;
	int		 rank;		/* 1: the best line shown, 2: ... */
	size_t		 from;		/* the part shown */
	size_t		 to;
	int		 cutl;		/* the text has only the end of it */
	int		 cutr;		/* only its start */
	size_t		 head;		/* bytes shown before a cut: the
					   element and ref of a snapshot */
	uint64_t	 sig;		/* signature, 0: not computed */
	size_t		 nsim;		/* lines like it not shown */
	uint64_t	 sim[SIM_SHOW];
};

struct search {
	int				 readerr;	/* unreadable hits */
	char				 readmsg[512];
	struct ofl_store		*st;
	const struct ofl_search_opts	*o;
	struct ofl_tok			*tk;
	struct art			*a;
	size_t				 na;
	size_t				*abix;		/* a by blob: index + 1 */
	size_t				 abcap;		/* its slots, 0 or 2^k */
	int				 whole;
	struct term			*t;
	size_t				 nt;
	struct target			*tg;
	size_t				 ntg;
	struct hit			*h;
	size_t				 nh;
	size_t				 caph;
	int				 more;
	int				 fallback;
	int				 substr;	/* mark substrings */
	int				 skipstop;	/* stop words out */
	int				 scoped;	/* the store's scope set */
	int				 lazy;		/* no IDs: artifacts added
							   as rows name them */
	int				 listed;	/* the store listed */
	int64_t				 t0;		/* scan started, ms */
	size_t				 unreached;	/* not scanned */
	int				 capped;	/* a query matched more
							   than the cap */
	size_t				 npending;	/* arts to scan */
	int				 bg;		/* indexing in the
							   background */
	char				*fts_and;
	char				*fts_or;
	char				*fts_lex;	/* other words */
	struct ofl_redactor		*rd;		/* NULL: raw output */
	struct ofl_buf			 rtmp;
	double				 hitw[64];	/* term weights by hits */
	size_t				 nvis;		/* hits not folded */
	int				 curjson;	/* the hit is JSON */
	int				 cursnap;	/* a browser snapshot */
	size_t				 snapind;	/* its hit's common
							   indent, not shown */
	int				 curdiff;	/* a unified diff */
	int				 curwide;	/* shown with the room
							   the others left */
	int				 curmd;		/* Markdown */
	int				 cursep;	/* CSV's ',', TSV's
							   tab, or 0 */
	int				 curprose;	/* Markdown, HTML, a
							   snapshot: names are
							   words of the text */
	struct ofl_fmt_snapshot_words	*snapq;		/* its words, made once */
	int				 addlex;	/* targets made are */
	struct ofl_buf			 sigbuf;
	struct ofl_schema_log_map	*curtm;		/* the hit's templates */
	/* Marking one buffer. */
	struct mark			*m;
	size_t				 nm;
	size_t				 capm;
	const char			*mtext;
	/* Spans of the output: recorded while record is set. */
	int				 record;
	struct span			*sp;
	size_t				 nsp;
	size_t				 capsp;
};

/* target_ctx: making targets from tokens (query.c). */
struct target_ctx {
	struct search	*s;
	int		 prefix;
	int		 term;
};

/* snippet.c */
/* The reader of artifact art of the scope, opened once. */
struct ofl_reader *ofl_snippet_reader(struct search *, size_t);
/* The hits as ofl_search() prints them. */
void		 ofl_snippet_output(struct search *, struct ofl_buf *,
		    const char *const *, size_t);

/*
 * snippet-color.c: the spans of the output to color, recorded while it
 * is written (_add, when s->record), forgotten past a cut (_cut), and put
 * in once it is complete (_colorize: from start on).
 */
void	 ofl_snippet_span_add(struct search *, size_t, size_t, const char *);
void	 ofl_snippet_span_cut(struct search *, size_t);
void	 ofl_snippet_colorize(struct search *, struct ofl_buf *, size_t);

/*
 * snippet-rank.c: the order of the hits looked at before the first are
 * shown.  _typed: the terms with dots, colons and the like that a hit's
 * text holds as typed; _rank: the first k hits reordered by it, and,
 * asked of versions, a diff's manifests first.
 */
int	 ofl_snippet_rank_typed(const struct search *, const char *, size_t);
/* 1 if a hit is part of a JSON document (a record with a path). */
int	 ofl_snippet_rank_json(const struct search *, const struct hit *);
/* 1 if a JSON hit's path ends at a key the query names. */
int	 ofl_snippet_rank_named(const struct search *, const struct hit *);
void	 ofl_snippet_rank(struct search *, size_t);

/* snippet-snap.c: the order of the hits in browser snapshots. */
#define OFL_SNAP_RANK_MAX	64	/* hits fetched and weighed again */
int	 ofl_snippet_snap_scope(const struct search *);
const struct ofl_fmt_snapshot_words *ofl_snippet_snap_words(struct search *);
void	 ofl_snippet_snap_rank(struct search *);
/* A hit's lines: the elements that hold the chosen ones, and more. */
void	 ofl_snippet_snap_owners(struct line *, size_t);
void	 ofl_snippet_snap_follow(struct line *, size_t);
void	 ofl_snippet_snap_free(struct search *);
size_t	 ofl_snippet_snap_head(const struct line *);
size_t	 ofl_snippet_snap_ref_end(const struct line *);
int	 ofl_snippet_snap_name_cut(const struct line *, size_t, size_t,
	    size_t *, size_t *, size_t *);
int	 ofl_snippet_snap_weak(const struct search *, const struct hit *);
size_t	 ofl_snippet_snap_indent(const struct line *, size_t);

/* query-terms.c: a query's terms, its FTS5 strings, the words marked. */
int	 ofl_query_terms_parse(struct search *, const char *);
void	 ofl_query_terms_targets(struct search *, const char *);
char	*ofl_query_terms_fts(struct search *, const char *);
char	*ofl_query_terms_lex(struct search *, int);
void	 ofl_query_terms_lex_find(struct search *);
/* 1 if the query asks of versions, dependencies or upgrades. */
int	 ofl_query_terms_versions(const struct search *);
/*
 * Term k typed with punctuation inside ("${parameter:-word}", "5.0.0"):
 * 1 with its bytes, the punctuation of a sentence around it left out.
 */
int	 ofl_query_terms_typed(const struct search *, size_t, const char **,
	    size_t *);
/* 1 if text holds p as typed (any case), not inside a longer name. */
int	 ofl_query_terms_literal(const char *, size_t, const char *, size_t);
int	 ofl_query_terms_target_cb(void *, int, const char *, int, int,
	    int);
void	 ofl_query_terms_target_add(struct search *, const char *, size_t,
	    int, int, int);


/* snippet-lines.c: which lines of a hit to show. */
#define ORDER_MAX	24		/* lines of a hit considered */
#define ORDER_SCAN	4096		/* lines weighed for their length */
size_t	 ofl_snippet_lines_order(struct search *, struct line *, size_t,
	    size_t *);
uint64_t ofl_snippet_lines_sig(struct ofl_buf *, const char *, size_t);
uint64_t ofl_snippet_lines_json_sig(const struct line *);
int	 ofl_snippet_lines_word_byte(int);
int	 ofl_snippet_lines_other(const struct search *, const char *, size_t,
	    size_t, const char *, const char *);
uint64_t ofl_snippet_lines_tsig(struct search *, const char *, size_t);
void	 ofl_snippet_lines_similar(struct line *, size_t, size_t);
void	 ofl_snippet_lines_add_similar(struct ofl_buf *, size_t,
	    const uint64_t *);

/*
 * snippet-mark.c: the marks of the query's words in a hit's text
 * (s->m, in order), and whether mark j of a line counts for its term
 * and stands as a word of its own.
 */
void	 ofl_snippet_mark_text(struct search *, const char *, size_t);
/* Lowercase ASCII search of needle (lowercase) in hay. */
const char *ofl_snippet_find_ci(const char *, size_t, const char *, size_t);
int	 ofl_snippet_mark_counts(const struct search *, const char *, size_t,
	    size_t, size_t, size_t);
int	 ofl_snippet_mark_whole(const struct search *, const char *, size_t,
	    size_t, const char *, const char *);

/* snippet-ask.c: what a question asks for, and the lines that give it. */
int	 ofl_snippet_asks(const struct search *, const char *const *, int);
size_t	 ofl_snippet_ask_why_after(const struct search *,
	    const struct line *, size_t, size_t);
size_t	 ofl_snippet_ask_why_best(const struct search *,
	    const struct line *, size_t, size_t);
void	 ofl_snippet_ask_weigh(const struct search *, const struct line *,
	    size_t, double *);

/* snippet-records.c: the lines a record's line brings. */
/* 1 if p[0..n) holds a letter or a digit. */
int	 ofl_snippet_has_alnum(const char *, size_t);
int	 ofl_snippet_records_blank(const struct line *);
size_t	 ofl_snippet_records_end(const struct line *, size_t, size_t);
size_t	 ofl_snippet_records_head(const struct line *, size_t, size_t);

#endif /* SEARCH_H */
