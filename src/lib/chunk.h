/*
 * chunk.h: what the chunkers of the formats (fmt-*.c) share with the
 * chunk dispatcher (chunk.c): where bytes come from, the call that is
 * chunking, the line iterator and the window of lines on its way to
 * become a chunk.  Not part of the library's interface.
 */
#ifndef OFL_CHUNK_H
#define OFL_CHUNK_H

/* p (n bytes) starts with the string literal s. */
#define HAS(p, n, s)	((n) >= sizeof(s) - 1 &&			\
			    memcmp((p), (s), sizeof(s) - 1) == 0)

#define LINE_CAP	(64 * 1024)	/* a longer line comes in pieces */
#define TEXT_TARGET	2048		/* a log or text window: bytes */
#define HARD_MAX	(256 * 1024)	/* split anything, whatever it is */
#define TITLE_MAX	256		/* bytes of a heading or headline */

/* Where bytes come from: optional bytes to replay, then a read function. */
struct src {
	ssize_t		(*read)(void *, void *, size_t);
	void		*arg;
	const char	*pre;
	size_t		 prelen;
};

/* One call of ofl_chunk_artifact(). */
struct ck {
	int		(*cb)(const struct ofl_chunk *, void *);
	void		*arg;
	const char	*member;
	int		 rv;		/* what cb returned when it stopped */
	int		 bomb;		/* an archive limit was hit */
	int		 ioerr;		/* the artifact could not be read */
	int		 damaged;	/* a member could not be decoded */
	int		 depth;		/* archive nesting */
	uint64_t	 total;		/* decompressed bytes of members */
	uint64_t	 members;
};

/* Lines (or pieces of long lines) of a source. */
struct lineit {
	struct src	*src;
	char		*buf;
	size_t		 pos;
	size_t		 len;
	size_t		 scan;		/* no newline in buf[pos, scan) */
	uint64_t	 off;		/* offset of buf[pos] */
	uint64_t	 lineno;	/* line of buf[pos] */
	int		 midline;	/* buf[pos] is not a line's start */
	int		 eof;
};

struct line {
	const char	*p;
	size_t		 len;
	uint64_t	 off;
	uint64_t	 lineno;
	int		 first;		/* starts a line */
	int		 eol;		/* ends with a newline */
};

/* Consecutive lines on their way to become a chunk. */
struct win {
	struct ofl_buf	 text;
	size_t		 hdr;		/* text before the raw bytes (CSV) */
	uint64_t	 bstart;
	uint64_t	 lstart;
	uint64_t	 lend;
	uint64_t	 prevlend;	/* lend before the last line */
	size_t		 nlines;
	size_t		 last;		/* where the last line starts */
};

/* chunk-line.c: the plumbing. */
/* Read from a source: its replay first, then its read function. */
ssize_t	 ofl_chunk_src_read(struct src *, void *, size_t);
/* A read function for a source that reads another (its arg). */
ssize_t	 ofl_chunk_chain_read(void *, void *, size_t);
/*
 * Emit a chunk of raw bytes [bstart, bend) on lines lstart to lend: 0 to
 * go on, 1 when the callback said stop.  emit_parts cuts a long text
 * into parts of about 4 KiB, at a newline or a space if one is near.
 */
int	 ofl_chunk_emit(struct ck *, const char *, size_t, const char *,
	    size_t, uint64_t, uint64_t, uint64_t, uint64_t);
int	 ofl_chunk_emit_parts(struct ck *, const char *, size_t,
	    const char *, size_t, uint64_t, uint64_t);
size_t	 ofl_chunk_count_nl(const char *, size_t);
/* The largest length <= n that does not end inside a UTF-8 sequence. */
size_t	 ofl_chunk_utf8_cut(const char *, size_t);
/* Length without the trailing newline and carriage returns. */
size_t	 ofl_chunk_body_len(const char *, size_t);
size_t	 ofl_chunk_ws_len(const char *, size_t);
int	 ofl_chunk_is_blank(const char *, size_t);
/*
 * Lines (or pieces of lines longer than 64 KiB: only the first has first
 * set, only the last eol): 1, 0 at the end, -1 on an error.
 */
void	 ofl_chunk_lineit_init(struct lineit *, struct src *, uint64_t,
	    uint64_t, int);
void	 ofl_chunk_lineit_free(struct lineit *);
int	 ofl_chunk_lineit_next(struct lineit *, struct line *);
/*
 * A window of lines: win_emit emits them as one chunk, win_emit_last all
 * but the last, which stays as the window's first; both return what
 * emit returns.
 */
void	 ofl_chunk_win_init(struct win *);
void	 ofl_chunk_win_free(struct win *);
void	 ofl_chunk_win_add(struct win *, const struct line *);
size_t	 ofl_chunk_win_raw(const struct win *);
int	 ofl_chunk_win_emit(struct ck *, struct win *, const char *, size_t);
int	 ofl_chunk_win_emit_last(struct ck *, struct win *, const char *,
	    size_t);

/*
 * fmt-text.c: windows of lines of a text or a log from byte off, line
 * lineno (midline: off is inside a line).
 */
int	 ofl_fmt_text_chunk(struct ck *, struct src *, uint64_t, uint64_t,
	    int);
/* fmt-diff.c: a chunk per hunk of a unified diff. */
int	 ofl_fmt_diff_chunk(struct ck *, struct src *);

#endif /* OFL_CHUNK_H */
