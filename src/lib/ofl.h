/*
 * ofl.h: the interface of libofl, shared by every ofl front-end.
 *
 * The library never exits or prints: a function that fails returns -1 or
 * NULL and leaves a one-line message for ofl_errmsg().
 */
#ifndef OFL_H
#define OFL_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compat.h"

#define OFL_DEAD	__attribute__((__noreturn__))
#define OFL_PRINTF(a, b) __attribute__((__format__(__printf__, a, b)))

/* Exit status, as grep and diff use it. */
enum {
	OFL_EXIT_OK = 0,	/* success */
	OFL_EXIT_NOMATCH = 1,	/* ran fine, nothing matched */
	OFL_EXIT_USAGE = 2,	/* bad usage, bad filter, ambiguous ID */
	OFL_EXIT_FAIL = 3	/* anything else: I/O, store, unknown ID */
};
/* ofl-capture -- CMD uses CMD's status and these for its own failures. */
#define OFL_EXIT_CAPTURE_FAIL	125
#define OFL_EXIT_NOEXEC		126
#define OFL_EXIT_NOTFOUND	127

/* err.c */
const char	*ofl_errmsg(void);
int		 ofl_errcode(void);	/* OFL_EXIT_* for the last error */
void		 ofl_seterr(int, const char *, ...) OFL_PRINTF(2, 3);
void		 ofl_clearerr(void);
void		 ofl_setprogname(const char *);
const char	*ofl_getprogname(void);

/*
 * src.c: a seekable source of an artifact's bytes, so that the formats
 * layer reads content without knowing where it is kept.  The store's
 * reader gives one (ofl_reader_src); a test or a buffer can give another.
 * Each operation means what the ofl_reader_* function of its name means.
 */
struct ofl_src {
	void		*arg;
	uint64_t	(*bytes)(void *);
	uint64_t	(*lines)(void *);
	int		(*seek)(void *, uint64_t);
	int64_t		(*seek_line)(void *, uint64_t);
	ssize_t		(*read)(void *, void *, size_t);
	uint64_t	(*tell)(void *);
	int64_t		(*line_of)(void *, uint64_t);
};
uint64_t	 ofl_src_bytes(const struct ofl_src *);
uint64_t	 ofl_src_lines(const struct ofl_src *);
int		 ofl_src_seek(const struct ofl_src *, uint64_t);
int64_t		 ofl_src_seek_line(const struct ofl_src *, uint64_t);
ssize_t		 ofl_src_read(const struct ofl_src *, void *, size_t);
ssize_t		 ofl_src_read_full(const struct ofl_src *, void *, size_t);
uint64_t	 ofl_src_tell(const struct ofl_src *);
int64_t		 ofl_src_line_of(const struct ofl_src *, uint64_t);
/* Read up to n bytes at off; short only at the end; -1 on error. */
ssize_t		 ofl_src_pread(const struct ofl_src *, void *, size_t,
		    uint64_t);
/* The first n bytes (fewer if the content is shorter), allocated with one
   byte to spare; NULL on a read error. */
unsigned char	*ofl_src_head(const struct ofl_src *, size_t, size_t *);

/* util.c */
void		*ofl_xmalloc(size_t);
void		*ofl_xcalloc(size_t, size_t);
void		*ofl_xrealloc(void *, size_t);
char		*ofl_xstrdup(const char *);
char		*ofl_xstrndup(const char *, size_t);
int64_t		 ofl_now_ms(void);
/* "2.4 MB", "512 B": decimal units, one decimal below 10. */
void		 ofl_fmt_size(char *, size_t, uint64_t);
/* "41,230" */
void		 ofl_fmt_count(char *, size_t, uint64_t);
/* "1.3 s", "4 min 12 s", "85 ms" */
void		 ofl_fmt_duration(char *, size_t, int64_t);
/* "3 min", "2 h", "5 d": age of a timestamp in ms relative to now. */
void		 ofl_fmt_age(char *, size_t, int64_t);
/* Parse "30s", "15m", "3h", "7d", "2w" (bare number: seconds) into ms. */
int		 ofl_parse_duration(const char *, int64_t *);
/* Parse "512", "64k", "2M", "1G" (binary units) into bytes. */
int		 ofl_parse_size(const char *, uint64_t *);
/*
 * Where to cut s, longer than n bytes, at most n bytes in and not inside
 * a UTF-8 sequence: n, or the start of the character n is in (0 when s
 * starts with it).  Bytes that are no UTF-8 are cut anywhere.
 */
size_t		 ofl_utf8_cut(const char *, size_t);
/*
 * The same when nothing follows s[0..n) yet: n when its last character
 * is whole, else where that character starts.
 */
size_t		 ofl_utf8_whole(const char *, size_t);
/* 1 if byte c is one of the bytes of set (never NUL, which ends set). */
int		 ofl_in_set(int, const char *);
/*
 * The size the environment variable name gives: 0 when it is unset or
 * empty (*out untouched), 1 when it gives one, -1 when it is no size.
 */
int		 ofl_env_size(const char *, uint64_t *);
/* Parse a non-negative decimal within [min, max]. */
int		 ofl_parse_num(const char *, long long, long long, long long *);
/* Estimated tokens for n bytes: ceil(n / 4). */
uint64_t	 ofl_tokens(uint64_t);
/* Write all of a buffer to an fd, retrying on EINTR and short writes. */
int		 ofl_write_all(int, const void *, size_t);
/* Length of the valid UTF-8 sequence at p (1 for ASCII), 0 if invalid. */
size_t		 ofl_utf8_len(const void *, size_t);
/* Monotonic milliseconds, and microseconds. */
int64_t		 ofl_mono_ms(void);
int64_t		 ofl_mono_us(void);
/* 1 if the bytes are only spaces and tabs (or none). */
int		 ofl_blank(const void *, size_t);
size_t		 ofl_bom(const void *, size_t);
/*
 * A library opened when first used (arc.c, pq.c): ofl_dl_open opens the
 * first of the NULL-ended names dlopen(3) can, in *h, or sets the error
 * ("cannot load libpq: libpq.so.5: ...") and returns -1; ofl_dl_sym
 * gives a symbol of it, or NULL with the error set and h closed.
 */
int		 ofl_dl_open(const char *, const char *const *, void **);
void		*ofl_dl_sym(void *, const char *, const char *, const char *);

/*
 * pager.c: for a person at a terminal.  Color as grep gives it, and a
 * pager as git starts it: only when stdout is a terminal, and only for
 * output longer than the screen ($OFL_PAGER, else $PAGER, else less with
 * LESS=FRX; "" or "cat" for none).
 */
#define OFL_COLOR_NEVER		0
#define OFL_COLOR_ALWAYS	1
#define OFL_COLOR_AUTO		2
/* "auto", "always", "never"; -1 (OFL_EXIT_USAGE) for anything else. */
int	ofl_color_parse(const char *);
/* Whether to color stdout: auto is a terminal without NO_COLOR set. */
int	ofl_color_wanted(int);
/*
 * Send stdout through the pager from here on, if it is a terminal; call
 * before the first output.  Returns 1 if it did.  The process then waits
 * for the pager at exit (ofl_pager_finish(), also run by atexit), and
 * exits 0 if the pager is quit before the end.
 */
int	ofl_pager_start(void);
void	ofl_pager_finish(void);
int	ofl_pager_active(void);

/*
 * opt.c: a tool's options in one table, from which its getopt_long()
 * arguments, usage synopsis, --help and --list-options are made.  An
 * entry whose ch is a letter or digit has that short option; any other
 * ch (OFL_OPT_BASE and up) is the value of a long-only option.  An entry
 * without help is a hidden alias.  The table ends with a zero ch.
 */
#define OFL_OPT_BASE	0x100	/* long-only option values from here */
#define OFL_OPT_LIST	0xfff	/* --list-options, in every table */
#define OFL_OPT_NOSYN	0x1	/* not in the synopsis (--help) */
struct option;
struct ofl_opt {
	int		 ch;		/* the letter, or the value */
	const char	*name;		/* the long name, NULL: none */
	int		 has_arg;	/* no_, required_, optional_ */
	const char	*arg;		/* the argument: "tokens" */
	const char	*help;		/* NULL: a hidden alias */
	int		 flags;		/* OFL_OPT_* */
	const char	*syn;		/* in the synopsis, if unusual */
};
struct ofl_getopt {
	const struct ofl_opt	*opts;
	char			*shortopts;
	struct option		*longopts;
};
/* Build the getopt_long() arguments; inorder: stop at the first operand. */
void		 ofl_opt_init(struct ofl_getopt *, const struct ofl_opt *,
		    int);
void		 ofl_opt_free(struct ofl_getopt *);
int		 ofl_opt_next(struct ofl_getopt *, int, char *[]);
/* "usage: PROG [-jq] [-C tokens] ... OPERANDS\n", then MORE verbatim. */
void		 ofl_opt_usage(FILE *, const char *, const struct ofl_opt *,
		    const char *, const char *);
/* The option lines of --help, one an option shown. */
void		 ofl_opt_help(FILE *, const struct ofl_opt *);
/* One line an entry: letter, name, argument, its name, shown|hidden. */
void		 ofl_opt_list(FILE *, const struct ofl_opt *);
/* How an error names the option of ch: "--max-bytes", or "-x". */
const char	*ofl_opt_name(const struct ofl_opt *, int);

/* buf.c: a growable byte buffer. */
struct ofl_buf {
	char	*data;
	size_t	 len;
	size_t	 cap;
};
void	ofl_buf_init(struct ofl_buf *);
void	ofl_buf_free(struct ofl_buf *);
void	ofl_buf_reset(struct ofl_buf *);
void	ofl_buf_add(struct ofl_buf *, const void *, size_t);
void	ofl_buf_addc(struct ofl_buf *, int);
void	ofl_buf_adds(struct ofl_buf *, const char *);
void	ofl_buf_addf(struct ofl_buf *, const char *, ...) OFL_PRINTF(2, 3);
/* Append s as a JSON string literal, quotes included. */
void	ofl_buf_add_json_str(struct ofl_buf *, const char *, size_t);
/* NUL-terminate without changing len; returns data. */
char	*ofl_buf_str(struct ofl_buf *);
/* Shell-quote s into a freshly allocated string ('it'\''s). */
char	*ofl_shquote(const char *);
/* An FTS5 string literal: p[0..n) in double quotes, its own doubled. */
void	 ofl_buf_add_fts_string(struct ofl_buf *, const char *, size_t);
/* "41,230" and "2.4 MB" (ofl_fmt_count, ofl_fmt_size), appended. */
void	ofl_buf_add_count(struct ofl_buf *, uint64_t);
void	ofl_buf_add_size(struct ofl_buf *, uint64_t);
/* s as a JSON string, or null when s is NULL. */
void	ofl_buf_add_json_cstr(struct ofl_buf *, const char *);

/*
 * render.c: a safe rendering of bytes for a preview: valid UTF-8 passes,
 * control characters other than tab and newline and invalid bytes become
 * \xNN.  Appends at most max bytes of output, never cutting a sequence.
 */
#define OFL_RENDER_ONELINE	0x1	/* escape newline and tab as well */

/*
 * render.c: a safe rendering of bytes for a preview: valid UTF-8 passes,
 * control characters other than tab and newline and invalid bytes become
 * \xNN.  Appends at most max bytes of output, never cutting a sequence.
 */
#define OFL_RENDER_ONELINE	0x1	/* escape newline and tab as well */
/*
 * Render n bytes into out (or only measure them, if out is NULL); stops
 * before max bytes of output, never inside a sequence or an escape.
 * Returns the output length; *used (if not NULL) gets the input bytes
 * consumed.
 */
size_t	ofl_render(struct ofl_buf *, const unsigned char *, size_t, size_t,
	    int, size_t *);
void	ofl_render_safe(struct ofl_buf *, const unsigned char *, size_t,
	    size_t);
/* One line (newline and tab escaped too); returns the input bytes used. */
size_t	ofl_render_oneline(struct ofl_buf *, const unsigned char *, size_t,
	    size_t);

/*
 * src.c: what a format says of an artifact for its notice.  text holds
 * whole summary lines, each ending in '\n'; json holds JSON object
 * members separated by commas ("k":v,"k2":v2), each started with
 * ofl_summary_key; filter and member are a jq filter and an archive
 * member worth naming in the notice's next steps, or NULL.
 */
struct ofl_summary {
	struct ofl_buf	 text;
	struct ofl_buf	 json;
	char		*filter;
	char		*member;
	int		 prose_errors;	/* the lines like errors are prose */
};
void	ofl_summary_init(struct ofl_summary *);
void	ofl_summary_free(struct ofl_summary *);
/* Start the JSON member k: a comma when needed, the key and a colon. */
void	ofl_summary_key(struct ofl_summary *, const char *);

/* blake2b.c: BLAKE2b-256 (RFC 7693), hex digests of 64 characters. */
struct ofl_b2 {
	uint64_t	h[8];
	uint64_t	t[2];
	unsigned char	b[128];
	size_t		c;
	size_t		outlen;
};
void	ofl_b2_init(struct ofl_b2 *);
void	ofl_b2_update(struct ofl_b2 *, const void *, size_t);
void	ofl_b2_final_hex(struct ofl_b2 *, char [65]);

/*
 * hash.c: content hashes.  XXH3-128, as xxh128sum prints it (32 hex
 * characters); a hash of 64 characters is BLAKE2b-256, from an older
 * store.  Not collision-resistant: content is compared before it is
 * shared.  No allocation: a hash may be dropped without a call.
 */
#define OFL_HASH_HEX	65	/* room for the longest, with its NUL */
struct ofl_hash {
	int		legacy;
	struct ofl_b2	b2;
	unsigned char	xs[704];	/* an XXH3 state, aligned inside */
};
void	ofl_hash_init(struct ofl_hash *);
/* Hash the way hex (an earlier digest) was made. */
void	ofl_hash_init_like(struct ofl_hash *, const char *);
void	ofl_hash_update(struct ofl_hash *, const void *, size_t);
void	ofl_hash_final_hex(struct ofl_hash *, char [OFL_HASH_HEX]);

/*
 * sketch.c: a frame's sketch, the trigrams at every third offset (ASCII
 * case folded) as a bitmap.  A string of 5 bytes or more is not in the
 * frame when the sketch says so.
 */
#define OFL_SKETCH_LOG2		16	/* bits in a sketch, log2 */
#define OFL_SKETCH_BYTES	(1 << (OFL_SKETCH_LOG2 - 3))
void	ofl_sketch_build(const unsigned char *, size_t,
	    unsigned char [OFL_SKETCH_BYTES]);
int	ofl_sketch_may_have(const unsigned char [OFL_SKETCH_BYTES],
	    const char *, size_t);

/* id.c: artifact IDs. */
#define OFL_ID_LEN	8	/* generated length */
#define OFL_ID_MAX	12	/* longest accepted */
/* Fill id with OFL_ID_LEN random characters and a NUL. */
void	 ofl_id_new(char [OFL_ID_MAX + 1]);
/* 1 if s (length n) is made only of ID characters, 1 <= n <= OFL_ID_MAX. */
int	 ofl_id_valid(const char *, size_t);
/*
 * Parse a reference at the start of a line: "ofl:ID" followed by the end,
 * a space, a tab or a colon.  Copies the ID (lowercased) and returns the
 * number of bytes consumed, or 0 if the line is not a reference.
 */
size_t	 ofl_ref_parse(const char *, size_t, char [OFL_ID_MAX + 1]);
/*
 * A reference as a tool takes it: an ID, a prefix of one, @ or @N (for
 * ofl_store_resolve()), and the lines A-B it names, from and to 0 for
 * the whole artifact.
 */
#define OFL_REF_TAG_MAX	256
struct ofl_ref {
	char		ref[OFL_ID_MAX + 2];
	uint64_t	from;		/* 1-based; 0: no range */
	uint64_t	to;		/* inclusive */
	const char	*arg;		/* the argument it came from, or NULL */
	char		tag[OFL_REF_TAG_MAX];	/* a hit's "[NAME]": the
						   archive member its lines
						   are of; "" for none */
};
/*
 * An argument: "ofl:ID", "ID", "@", "@N", each with ":A-B" or ":A"
 * after it or not.  -1 (OFL_EXIT_USAGE) when the range is malformed;
 * the ID itself is checked when it is resolved.
 */
int	 ofl_ref_arg(const char *, struct ofl_ref *);
/* What to resolve: the argument as given when it names no lines (so
 * messages quote it), else the reference. */
const char *ofl_ref_name(const struct ofl_ref *);
/*
 * 1 if a line of a stream (n bytes, without its newline) is a reference
 * line as ofl prints them: "ofl:ID" or "ofl:ID:A-B" alone, a search
 * hit ("ofl:ID:A-B  TITLE  (4.2)", "ofl:ID:A-B  [MEMBER]  (4.2)", or
 * as -q prints one in a member, "ofl:ID:A-B  [MEMBER]"), a notice's
 * first line ("ofl:ID KIND SIZE ...") or a line of the listing; else 0.
 * Fills r (the ID lowercased, a hit's "[MEMBER]" in r->tag).
 */
int	 ofl_ref_line(const char *, size_t, struct ofl_ref *);

/* kind-name.c and kind.c: kinds of content, their names and detection. */
enum ofl_kind {
	OFL_KIND_TEXT = 0,
	OFL_KIND_LOG,
	OFL_KIND_JSON,
	OFL_KIND_NDJSON,
	OFL_KIND_CSV,
	OFL_KIND_TSV,
	OFL_KIND_MARKDOWN,
	OFL_KIND_HTML,
	OFL_KIND_DIFF,
	OFL_KIND_BINARY,
	OFL_KIND_ARCHIVE,	/* tar, zip, 7z, cpio, ... (maybe compressed) */
	OFL_KIND_COMPRESSED,	/* a single gzip, xz, zstd or bzip2 stream */
	OFL_KIND_EMPTY,
	OFL_KIND_TABLE,		/* whitespace-aligned columns (kubectl get) */
	OFL_KIND_SNAPSHOT,	/* a browser's accessibility tree */
	OFL_KIND_COUNT
};
const char	*ofl_kind_name(enum ofl_kind);
/* -1 if unknown. */
int		 ofl_kind_from_name(const char *);
/*
 * Detect the kind of content from its first bytes.  complete is 1 when buf
 * holds the whole content (so a JSON document can be checked to its end).
 */
enum ofl_kind	 ofl_kind_detect(const unsigned char *, size_t, int complete);

/*
 * The formats: one file a format, each with its detection, chunking,
 * summary and extraction rules.  They read through a struct ofl_src and
 * never call the store.  A summary function appends the notice's lines to
 * its text and its members to its JSON (struct ofl_summary, src.c).
 */
struct ofl_meta;

/* fmt-log.c: logs. */
/*
 * 1 if a line looks like a log line: a timestamp or syslog date at its
 * start, or a level token among its first words.
 */
int	 ofl_fmt_log_line(const unsigned char *, size_t);
/*
 * Line statistics gathered while content streams in (for the notice):
 * lines that look like errors and warnings.  Feed complete lines.
 */
struct ofl_linestat {
	uint64_t	errors;
	uint64_t	warnings;
	uint64_t	first_error;	/* 1-based line number, 0 if none */
	uint64_t	diag;		/* line of the last compiler message */
};
void	ofl_linestat_line(struct ofl_linestat *, const char *, size_t,
	    uint64_t lineno);
/*
 * The same for a run of whole lines, each ending in a newline, looking
 * at the first cap bytes of each, the first numbered lineno; faster, as
 * a line with nothing like a keyword costs almost nothing.  Returns the
 * number of lines.
 */
uint64_t ofl_linestat_lines(struct ofl_linestat *, const char *, size_t,
	    uint64_t lineno, size_t cap);
/*
 * The same over a stream cut anywhere, as a store writer sees it: a line
 * begun in one piece is kept (its first OFL_LINEFEED_MAX bytes) until its
 * newline comes.  ofl_linefeed_add() returns the newlines in the piece;
 * ofl_linefeed_end() counts a last line without one.  Zeroed, then
 * lineno = 1, it is ready.
 */
#define OFL_LINEFEED_MAX	4096
struct ofl_linefeed {
	struct ofl_linestat	 ls;
	uint64_t		 lineno;	/* of the line being read */
	size_t			 linelen;
	char			 line[OFL_LINEFEED_MAX];
};
uint64_t ofl_linefeed_add(struct ofl_linefeed *, const unsigned char *,
	    size_t);
void	ofl_linefeed_end(struct ofl_linefeed *);
/*
 * 1 if the word at [ws, we) of a line is part of a file name, a path or
 * a compound ("AddressSanitizer.h", "src/error/", "non-fatal"): it names
 * something and reports no trouble.  The one rule for the error counts,
 * the notice's error lines and ofl-extract --errors.
 */
int	 ofl_word_in_name(const char *, size_t, size_t, size_t);
/*
 * The one error-line and signature rule, for the notice's error groups
 * and ofl-extract --errors: 1 if a line (n bytes, no newline) is an error
 * line; and its signature appended to out, variable parts masked as
 * "<*>" (both look at the first 4 KiB of the line).
 */
int	 ofl_fmt_log_is_error(const char *, size_t, uint64_t lineno);
void	 ofl_fmt_log_mask(struct ofl_buf *, const char *, size_t);
/*
 * How a line of a log or a text holds on to the line before, for cutting
 * it into chunks: OFL_BRK_FREE may start a chunk, OFL_BRK_PARA (after a
 * blank line) and OFL_BRK_BLOCK (a traceback or panic begins) start one
 * early, OFL_BRK_RECORD (an unindented line after a blank one under
 * indented lines: the next commit of a git log) earlier still,
 * OFL_BRK_SOFT (a sub-block) and OFL_BRK_HARD (inside a block) hold on.
 * hl is 1 when this line is a title (from hloff on), 2 when the line
 * before is.  Start with a zeroed state and prevblank set.
 */
enum { OFL_BRK_FREE, OFL_BRK_PARA, OFL_BRK_BLOCK, OFL_BRK_SOFT, OFL_BRK_HARD,
    OFL_BRK_RECORD };
struct ofl_logst {
	int	 state;
	size_t	 skip;		/* prefix before the traceback marker */
	int	 prevblank;
	int	 previndent;	/* the last line not blank was indented */
	int	 count;
	int	 hl;		/* 1: this line is a headline, 2: the last */
	size_t	 hloff;		/* where this line's headline starts */
};
int	 ofl_fmt_log_class(struct ofl_logst *, const char *, size_t);
/* A chunk's title from a line (from off on): timestamps stripped, cut. */
void	 ofl_fmt_log_headline(struct ofl_buf *, const char *, size_t, size_t);

/*
 * fmt-log-tmpl.c: log templates, mined from a log's lines as they
 * stream: the header set aside, variables as "<*>", a stack trace in
 * its first line's record.  Feed every line (no newline) to _add, then
 * _finish; the templates come most frequent first.  At most 8,192
 * groups are kept; past that a line of a new shape counts under the
 * catch-all template "<*>".  A template's ID is 12 hex digits, a hash
 * of its text: the same log gives the same templates and IDs.
 */
#define OFL_TMPL_ID	13
/* The miner's version, kept with cached templates: bump when they change. */
#define OFL_TMPL_VERSION	"miner 2"
struct ofl_fmt_log_tmpl;
struct ofl_fmt_log_tmpl_info {
	char		 id[OFL_TMPL_ID];
	uint64_t	 count;		/* records (a line and its trace) */
	uint64_t	 first_line;	/* 1-based */
	uint64_t	 last_line;
	const char	*level;		/* "ERROR", "WARN"...; NULL if none */
	char		*text;		/* the template, "<*>" for variables */
	size_t		 len;
};
struct ofl_fmt_log_tmpl *ofl_fmt_log_tmpl_new(void);
void	 ofl_fmt_log_tmpl_free(struct ofl_fmt_log_tmpl *);
void	 ofl_fmt_log_tmpl_add(struct ofl_fmt_log_tmpl *, const char *, size_t);
void	 ofl_fmt_log_tmpl_finish(struct ofl_fmt_log_tmpl *);
size_t	 ofl_fmt_log_tmpl_count(const struct ofl_fmt_log_tmpl *);
const struct ofl_fmt_log_tmpl_info *
	 ofl_fmt_log_tmpl_get(const struct ofl_fmt_log_tmpl *, size_t);
uint64_t ofl_fmt_log_tmpl_lines(const struct ofl_fmt_log_tmpl *);
/*
 * After _finish, a second pass: _rewind, then every line again in order;
 * _line gives each line's template ID (a continuation line its record's)
 * and returns 1 for a record's first line, 0 for a continuation.
 */
void	 ofl_fmt_log_tmpl_rewind(struct ofl_fmt_log_tmpl *);
int	 ofl_fmt_log_tmpl_line(struct ofl_fmt_log_tmpl *, const char *, size_t,
	    char [OFL_TMPL_ID]);
/*
 * After _finish, the template of one line taken alone as the first line
 * of a record; 0 when none of the log's templates has it (id is then the
 * catch-all's).  For collapsing search hits by template.
 */
int	 ofl_fmt_log_tmpl_of(const struct ofl_fmt_log_tmpl *, const char *,
	    size_t, char [OFL_TMPL_ID]);
/* The level's name as the miner gives it, from any spelling; or NULL. */
const char *ofl_fmt_log_tmpl_level(const char *);
/*
 * A matcher built from templates alone (as the store caches them), with
 * no pass over the log: _match gives the template of a line taken as the
 * first line of a record (1; 2 when the template is variables alone), or
 * 0 when none of them has it.
 */
struct ofl_fmt_log_tmpl_match;
/*
 * A template's bytes that are neither variables ("<*>") nor spaces: 0
 * for a template of variables alone.
 */
size_t	 ofl_fmt_log_tmpl_nconst(const char *, size_t);
struct ofl_fmt_log_tmpl_match *ofl_fmt_log_tmpl_match_new(
	    const struct ofl_fmt_log_tmpl_info *, size_t);
void	 ofl_fmt_log_tmpl_match_free(struct ofl_fmt_log_tmpl_match *);
int	 ofl_fmt_log_tmpl_match(const struct ofl_fmt_log_tmpl_match *,
	    const char *, size_t, char [OFL_TMPL_ID]);

/* fmt-diff.c: unified diffs. */
/* 1 if a line can be part of a diff (a header, hunk or context line). */
int	 ofl_fmt_diff_line(const unsigned char *, size_t);
/* 1 if a diff's chunk title ("path @@ ...") is a package manifest's. */
int	 ofl_fmt_diff_manifest(const char *);
/* How many files the diff changes, and the first names. */
int	 ofl_fmt_diff_summary(const struct ofl_src *, const struct ofl_meta *,
	    struct ofl_summary *);

/* fmt-archive.c: archives and compressed streams. */
/*
 * 1 if the first bytes carry a container's or a compressed stream's magic
 * number (or a PDF's), with *kind set to archive, compressed or binary.
 */
int	 ofl_fmt_archive_magic(const unsigned char *, size_t, enum ofl_kind *);
/* The members (or the stream's filter and size) for the notice. */
int	 ofl_fmt_archive_summary(const struct ofl_src *,
	    const struct ofl_meta *, struct ofl_summary *);

/* store.c: the artifact store. */
struct ofl_store;
struct ofl_writer;
struct ofl_reader;

#define OFL_RDONLY	0x0
#define OFL_RDWR	0x1
#define OFL_NOCREATE	0x2	/* with OFL_RDWR: open only a store that is
				   there */

enum ofl_state {
	OFL_STATE_WRITING = 0,
	OFL_STATE_COMPLETE = 1
};

/* Metadata of an artifact.  Strings are owned by the struct. */
struct ofl_meta {
	char		 id[OFL_ID_MAX + 1];
	char		 hash[OFL_HASH_HEX];	/* "" while being written */
	int64_t		 seq;		/* creation order */
	int		 state;		/* enum ofl_state */
	int		 incomplete;	/* input was cut short; while still
					   writing, its writer died */
	int		 kind;		/* enum ofl_kind */
	uint64_t	 bytes;
	uint64_t	 lines;
	uint64_t	 stored;	/* compressed bytes of its content */
	int64_t		 created;	/* ms since the epoch */
	int64_t		 used;		/* ms since the epoch */
	int64_t		 expires;	/* ms since the epoch, 0: never */
	char		*label;		/* may be NULL */
	char		*command;	/* may be NULL */
	char		*cwd;		/* may be NULL */
	char		*session;	/* may be NULL */
	int		 has_exit;
	int		 exit_status;
	int64_t		 duration_ms;	/* -1 if unknown */
	uint64_t	 errors;	/* lines that look like errors */
	uint64_t	 warnings;
	uint64_t	 first_error;
	int64_t		 printed;	/* bytes ofl-capture printed, -1: unknown */
};
void	ofl_meta_free(struct ofl_meta *);
/*
 * The files changed in the work tree a command ran in, as git status
 * names them (from the top of the tree), recorded when it was captured.
 */
struct ofl_changed {
	char		**f;
	size_t		  n;
};
void	ofl_changed_free(struct ofl_changed *);
/* changed.c: the changed files of the git work tree at dir, if any. */
void	ofl_changed_git(const char *, struct ofl_changed *);
/* As the store keeps them: a line each, joined into a buffer and split. */
void	ofl_changed_join(const struct ofl_changed *, struct ofl_buf *);
void	ofl_changed_split(struct ofl_changed *, const char *, size_t);
/* store-changed.c: kept with an artifact. */
int	ofl_store_changed_set(struct ofl_store *, const char *,
	    const struct ofl_changed *);
int	ofl_store_changed(struct ofl_store *, const char *,
	    struct ofl_changed *);
/* meta.c: the metadata as JSON, its command masked for secrets. */
/* The artifact's metadata as one JSON object and a newline. */
void	ofl_meta_json(struct ofl_buf *, const struct ofl_meta *);
/* The same members without the braces, to go on with more. */
void	ofl_meta_json_fields(struct ofl_buf *, const struct ofl_meta *);
/* A command or an intent as ofl shows it: masked unless that is off. */
void	ofl_meta_mask(const char *, struct ofl_buf *);

/*
 * The store's location: path if not NULL, else $OFL_STORE, else
 * ${XDG_CACHE_HOME:-$HOME/.cache}/ofl.  OFL_RDWR creates it (0700)
 * unless OFL_NOCREATE is given.  The store is refused if it, its blobs/
 * or one of its files is a symbolic link, owned by another user or
 * writable by others.
 */
struct ofl_store *ofl_store_open(const char *, int);
/*
 * Where the store is, as ofl_store_open() finds it (free the string);
 * NULL with OFL_EXIT_USAGE when the path is not absolute or is a URL.
 */
char		*ofl_store_where(const char *);
/*
 * 1 if a store's location (as ofl_store_where() gives it) names a
 * database elsewhere (postgresql://...), whose locks are the database's;
 * 0 for a directory, whose files (ofl.db, gc.lock) are on this machine.
 */
int		 ofl_store_remote(const char *);
/* Make (1) or drop (0) the space kept free for gc on a full disk. */
int		 ofl_store_reserve(struct ofl_store *, int);
void		 ofl_store_close(struct ofl_store *);
const char	*ofl_store_path(struct ofl_store *);
/* The store as messages name it: a URL's password masked. */
const char	*ofl_store_name(struct ofl_store *);
/*
 * The store's size: stored content plus the database's pages in use (the
 * WAL left out).
 */
uint64_t	 ofl_store_size(struct ofl_store *);
/*
 * One write transaction around several of the store's calls (and the
 * index's), for gc; -1 with a message if it cannot begin or commit.
 */
int		 ofl_store_begin(struct ofl_store *);
int		 ofl_store_commit(struct ofl_store *);
void		 ofl_store_rollback(struct ofl_store *);
/*
 * One write transaction around many of gc's removals: inside it,
 * ofl_store_begin() and the index's own transactions are steps of it,
 * and a step that rolls back spoils the batch.  ofl_store_batch_end()
 * commits if told to and no step spoiled it; else it rolls the whole
 * batch back and returns -1 (then nothing of it happened).
 */
int		 ofl_store_batch_begin(struct ofl_store *);
int		 ofl_store_batch_end(struct ofl_store *, int);
/* Store settings: ttl, max-size, grace, auto-gc, redact, scrub. */
int	 ofl_setting_valid(const char *, const char *);
char	*ofl_setting_get(struct ofl_store *, const char *);
int	 ofl_setting_set(struct ofl_store *, const char *, const char *);
void	 ofl_setting_list(struct ofl_store *, struct ofl_buf *);

/*
 * Resolve a reference ("ofl:ab12", "ab12", "@", "@3") to a full ID.
 * Unknown: OFL_EXIT_FAIL; ambiguous prefix or malformed: OFL_EXIT_USAGE.
 */
int	ofl_store_resolve(struct ofl_store *, const char *,
	    char [OFL_ID_MAX + 1]);
int	ofl_store_meta(struct ofl_store *, const char *, struct ofl_meta *);
/*
 * store-prev.c: the latest finished artifact made by m's command in m's
 * working directory before m: 1 and its ID, 0 if none, -1.
 */
int	ofl_store_previous(struct ofl_store *, const struct ofl_meta *,
	    char [OFL_ID_MAX + 1]);
/* Record a use (updates "last used"); errors are ignored. */
void	ofl_store_touch(struct ofl_store *, const char *);
/* 1 if some finished artifact has expired (ttl_ms: the default TTL). */
int	ofl_store_expired(struct ofl_store *, int64_t);
/* Record how many bytes ofl-capture printed for it (for --stats). */
void	ofl_store_set_printed(struct ofl_store *, const char *, uint64_t);

/* Filters for listing; zero fields match everything. */
struct ofl_filter {
	const char	*label;
	const char	*session;
	int		 kind;		/* -1: any */
	int64_t		 newer_ms;	/* created within this many ms, 0: any */
	int64_t		 older_ms;	/* created before this many ms ago */
	int		 limit;		/* 0: no limit */
};
void	ofl_filter_init(struct ofl_filter *);
/* Newest first; cb returns non-zero to stop.  Returns count or -1. */
int	ofl_store_list(struct ofl_store *, const struct ofl_filter *,
	    int (*)(const struct ofl_meta *, void *), void *);
/* Artifacts the filter lets through, its limit aside; -1 on error. */
int64_t	ofl_store_count(struct ofl_store *, const struct ofl_filter *);

/* Writing.  init gives label, command, cwd, session, expires; may be NULL. */
struct ofl_writer *ofl_writer_begin(struct ofl_store *,
	    const struct ofl_meta *);
const char	*ofl_writer_id(struct ofl_writer *);
int		 ofl_writer_write(struct ofl_writer *, const void *, size_t);
/* Commit buffered bytes now so that a killed writer keeps them. */
int		 ofl_writer_flush(struct ofl_writer *);
uint64_t	 ofl_writer_bytes(struct ofl_writer *);
/*
 * Finish: fin gives exit status, duration and incomplete (may be NULL).
 * Fills out (may be NULL) with the final metadata.  The writer is freed
 * whatever happens; on failure the content committed so far is kept and
 * marked incomplete when possible.
 */
int		 ofl_writer_finish(struct ofl_writer *, const struct ofl_meta *,
		    struct ofl_meta *);

/* Reading with random access by byte or line. */
struct ofl_reader *ofl_reader_open(struct ofl_store *, const char *);
void		 ofl_reader_close(struct ofl_reader *);
uint64_t	 ofl_reader_bytes(struct ofl_reader *);
uint64_t	 ofl_reader_lines(struct ofl_reader *);
/* Position at a byte offset (0-based). */
int		 ofl_reader_seek(struct ofl_reader *, uint64_t);
/* Position at the start of a line (1-based); returns its byte offset. */
int64_t		 ofl_reader_seek_line(struct ofl_reader *, uint64_t);
/* Read up to n bytes; 0 at the end; -1 on error. */
ssize_t		 ofl_reader_read(struct ofl_reader *, void *, size_t);
/* Read n bytes, across frames; short only at the end; -1 on error. */
ssize_t		 ofl_reader_read_full(struct ofl_reader *, void *, size_t);
/* Current byte offset. */
uint64_t	 ofl_reader_tell(struct ofl_reader *);
/* The 1-based line number of the line holding byte offset off. */
int64_t		 ofl_reader_line_of(struct ofl_reader *, uint64_t);
/* The metadata the reader was opened on. */
const struct ofl_meta *ofl_reader_meta(struct ofl_reader *);
/* The reader as a source for the formats layer; valid while r is open. */
void		 ofl_reader_src(struct ofl_reader *, struct ofl_src *);
/* ofl_chunk_src() over the reader's content, read as kind. */
struct ofl_chunk;
int		 ofl_reader_chunks(struct ofl_reader *, int,
		    int (*)(const struct ofl_chunk *, void *), void *);

/*
 * For library modules only (index.c, query.c): the store's SQLite handle
 * (a sqlite3 *) and the row id of an artifact's content (its blob).
 * The front-ends never touch SQLite.
 */
void		*ofl_store_db(struct ofl_store *);
int64_t		 ofl_store_blob(struct ofl_store *, const char *);
/* 1 if a blob file name is one ofl makes ("ab/abcd2345"). */
int		 ofl_blob_name_valid(const char *);
/*
 * The bytes of an artifact that its frame rows describe soundly, from the
 * start; 1 if a damaged row follows them, 0 if none, -1 on error.
 */
int		 ofl_store_frames_good(struct ofl_store *, const char *,
		    uint64_t *);

/* notice.c: what ofl-capture prints for offloaded output. */
struct ofl_notice_opts {
	size_t		 head_bytes;	/* preview of the head, 0: none */
	size_t		 tail_bytes;	/* preview of the tail, 0: none */
	int		 json;		/* one JSON object instead of text */
	const char	*intent;	/* top hits for it instead of a preview */
	size_t		 intent_bytes;	/* budget of those hits */
	int		 changes;	/* lead with what changed since the
					   last run of the command here */
};
void	ofl_notice_opts_init(struct ofl_notice_opts *);
/* The reference line: "ofl:ID kind size lines". */
void	ofl_notice_refline(struct ofl_buf *, const struct ofl_meta *);
/* The whole notice for an artifact, appended to out. */
int	ofl_notice(struct ofl_store *, const struct ofl_meta *,
	    const struct ofl_notice_opts *, struct ofl_buf *);
/*
 * The steps a notice suggests, as data: the text notice prints each as
 * a command line (ofl_notice_next_text), ofl-mcp gives each as the MCP
 * tool call that does the same.
 */
enum ofl_next_step {
	OFL_NEXT_ERRORS,	/* ofl-extract ID --errors */
	OFL_NEXT_LINES,		/* ofl-extract ID -n FROM-TO */
	OFL_NEXT_SEARCH,	/* ofl-search ID 'QUERY' (a placeholder) */
	OFL_NEXT_SCHEMA,	/* ofl-schema ID */
	OFL_NEXT_FILTER,	/* ofl-extract ID FILTER: a jq filter */
	OFL_NEXT_MEMBER,	/* ofl-extract ID --member NAME */
	OFL_NEXT_ROLE		/* ofl-extract ID --role ROLE: a snapshot */
};
struct ofl_next {
	int		 step;		/* enum ofl_next_step */
	uint64_t	 from;		/* OFL_NEXT_LINES: lines from-to */
	uint64_t	 to;
	char		*arg;		/* OFL_NEXT_FILTER, _MEMBER, _ROLE */
};
#define OFL_NEXT_MAX	5
struct ofl_notice_next {
	char		 id[OFL_ID_MAX + 1];
	struct ofl_next	 step[OFL_NEXT_MAX];	/* in the notice's order */
	size_t		 n;
	size_t		 at;	/* where the next: lines start in out; the
				   end of the notice when there are none */
};
/* ofl_notice(), and its steps in nx (free with ofl_notice_next_free). */
int	ofl_notice_steps(struct ofl_store *, const struct ofl_meta *,
	    const struct ofl_notice_opts *, struct ofl_buf *,
	    struct ofl_notice_next *);
void	ofl_notice_next_free(struct ofl_notice_next *);
/* A step's command line as the notice prints it, appended. */
void	ofl_notice_next_text(const char *, const struct ofl_next *,
	    struct ofl_buf *);

/*
 * json.c: a streaming (push) JSON parser with bounded memory: depth is
 * kept on the heap, so any nesting depth is fine.  Events carry decoded
 * strings; the current jq path is available from the callback.
 */
enum ofl_json_type {
	OFL_JSON_OBJECT_BEGIN,
	OFL_JSON_OBJECT_END,
	OFL_JSON_ARRAY_BEGIN,
	OFL_JSON_ARRAY_END,
	OFL_JSON_STRING,
	OFL_JSON_NUMBER,
	OFL_JSON_TRUE,
	OFL_JSON_FALSE,
	OFL_JSON_NULL
};
struct ofl_json_event {
	int		 type;		/* enum ofl_json_type */
	const char	*str;		/* string (decoded UTF-8) or number text */
	size_t		 len;
	int		 integer;	/* number without fraction or exponent */
	size_t		 depth;		/* 0 for a top-level value */
	uint64_t	 offset;	/* byte offset where the value starts */
	uint64_t	 line;		/* 1-based line where the value starts */
	uint64_t	 end;		/* for *_END and scalars: offset after */
};
struct ofl_json;
/* Flags of ofl_json_new; cb returns 0 to go on, non-zero to stop. */
#define OFL_JSON_MULTI		0x1	/* a sequence of top-level values
					   (NDJSON, concatenated JSON) */
#define OFL_JSON_CONTAINERS	0x2	/* top-level values are objects or
					   arrays, never scalars */
#define OFL_JSON_QUIET		0x4	/* errors leave ofl_errmsg() alone */
struct ofl_json	*ofl_json_new(int,
		    int (*)(struct ofl_json *, const struct ofl_json_event *,
		    void *), void *);
/* 0 ok, 1 stopped by the callback, -1 syntax error (ofl_errmsg() gives
 * the byte offset and line). */
int		 ofl_json_feed(struct ofl_json *, const void *, size_t);
int		 ofl_json_finish(struct ofl_json *);
void		 ofl_json_free(struct ofl_json *);
/* Append the jq path of the current value (".items[17].status", "." at
 * the top) to out; valid inside the callback. */
void		 ofl_json_path(struct ofl_json *, struct ofl_buf *);
/* The key of the current value if its parent is an object, else NULL. */
const char	*ofl_json_key(struct ofl_json *, size_t *);
/*
 * Where the input fed so far stops: between top-level values, inside a
 * number that could end there, or inside anything else.
 */
#define OFL_JSON_AT_TOP		0
#define OFL_JSON_IN_NUMBER	1
#define OFL_JSON_IN_VALUE	2
int		 ofl_json_where(const struct ofl_json *);
/*
 * The lexing shared by the parser and the skims over a buffer: the end
 * of a run of plain string bytes (no quote, backslash, control or
 * non-ASCII byte) from i; the end of the whitespace from i; the end of
 * the string whose quote is at *ip (escapes skipped, not checked), 0, or
 * -1 and n when the buffer ends first.
 */
size_t		 ofl_json_span_plain(const unsigned char *, size_t, size_t);
size_t		 ofl_json_skip_ws(const unsigned char *, size_t, size_t);
int		 ofl_json_skip_string(const unsigned char *, size_t, size_t *);

/*
 * chunk.c: split an artifact into the units a reader needs, by kind.
 * Ranges are in the raw artifact, or in the member for archive members.
 */
struct ofl_chunk {
	const char	*member;	/* archive member path, or NULL */
	const char	*title;		/* heading path, jq path, file and hunk */
	size_t		 title_len;
	const char	*text;		/* text to index (tags stripped, ...) */
	size_t		 len;
	size_t		 head;		/* of it, the content's header first
					   (CSV, TSV: not in the span) */
	uint64_t	 byte_start;	/* [byte_start, byte_end) */
	uint64_t	 byte_end;
	uint64_t	 line_start;	/* 1-based, inclusive */
	uint64_t	 line_end;
};
/* Decompressed bytes read from an archive before it is taken for a bomb. */
#define OFL_ARCHIVE_MAX	(1024ULL * 1024 * 1024)
int	ofl_chunk_src(const struct ofl_src *, int kind,
	    int (*)(const struct ofl_chunk *, void *), void *);
/*
 * 1 if each chunk of kind has for text the bytes it spans, byte for byte
 * (no header, no tags taken out), so that its text can be read back from
 * the content without chunking it again; 2 if the text is led by the
 * content's header, the bytes before its first chunk (at most
 * OFL_CHUNK_HEADER_MAX of them: CSV and TSV); 0 if neither.
 */
int	ofl_chunk_is_bytes(int kind);
#define OFL_CHUNK_HEADER_MAX	16384

/*
 * chunk-io.c: the plumbing the formats' chunkers share.  A chunker reads an
 * ofl_chunk_in (an archive member or the artifact, after bytes to replay
 * first), cuts it into lines (ofl_chunk_lines, pieces of at most 64 KiB),
 * gathers lines in a window (ofl_chunk_win) and hands each chunk to
 * ofl_chunk_emit.  The emitters return 0 to go on, 1 when the callback
 * said stop; a chunker returns 0, 1 (stopped) or -1 (a read error).
 */
#define OFL_CHUNK_READ		(64 * 1024)	/* bytes asked of a source */
#define OFL_CHUNK_TITLE_MAX	256		/* bytes of a heading */
#define OFL_CHUNK_TEXT_TARGET	2048		/* a window of lines: bytes */
#define OFL_CHUNK_HARD_MAX	(256 * 1024)	/* split anything past this */
/* Where bytes come from: optional bytes to replay, then a read function. */
struct ofl_chunk_in {
	ssize_t		(*read)(void *, void *, size_t);
	void		*arg;
	const char	*pre;
	size_t		 prelen;
};
/* One call of ofl_chunk_src(). */
struct ofl_chunker {
	int		(*cb)(const struct ofl_chunk *, void *);
	void		*arg;
	/* The text chunker, for content that is not what it looked like. */
	int		(*text)(struct ofl_chunker *, struct ofl_chunk_in *,
			    uint64_t, uint64_t, int);
	const char	*member;
	int		 rv;		/* what cb returned when it stopped */
	int		 bomb;		/* an archive limit was hit */
	int		 ioerr;		/* the artifact could not be read */
	int		 damaged;	/* a member could not be decoded */
	int		 depth;		/* archive nesting */
	uint64_t	 total;		/* decompressed bytes of members */
	uint64_t	 members;
};
ssize_t	ofl_chunk_in_read(struct ofl_chunk_in *, void *, size_t);
/* Set up in to give pre first, then what from gives. */
void	ofl_chunk_in_chain(struct ofl_chunk_in *, struct ofl_chunk_in *,
	    const char *, size_t);
/* Lines (or pieces of long lines) of a source. */
struct ofl_chunk_lines {
	struct ofl_chunk_in *src;
	char		*buf;
	size_t		 pos;
	size_t		 len;
	size_t		 scan;		/* no newline in buf[pos, scan) */
	uint64_t	 off;		/* offset of buf[pos] */
	uint64_t	 lineno;	/* line of buf[pos] */
	int		 midline;	/* buf[pos] is not a line's start */
	int		 eof;
};
struct ofl_chunk_line {
	const char	*p;
	size_t		 len;
	uint64_t	 off;
	uint64_t	 lineno;
	int		 first;		/* starts a line */
	int		 eol;		/* ends with a newline */
	int		 more;		/* a piece of a longer line: it goes on */
};
/* Start at offset off, line lineno; midline: off is inside a line. */
void	ofl_chunk_lines_init(struct ofl_chunk_lines *, struct ofl_chunk_in *,
	    uint64_t, uint64_t, int);
void	ofl_chunk_lines_free(struct ofl_chunk_lines *);
/* 1: a line, 0: the end, -1: an error. */
int	ofl_chunk_lines_next(struct ofl_chunk_lines *, struct ofl_chunk_line *);
/* Consecutive lines on their way to become a chunk. */
struct ofl_chunk_win {
	struct ofl_buf	 text;
	size_t		 hdr;		/* text before the raw bytes (CSV) */
	uint64_t	 bstart;
	uint64_t	 lstart;
	uint64_t	 lend;
	uint64_t	 prevlend;	/* lend before the last line */
	size_t		 nlines;
	size_t		 last;		/* where the last line starts */
};
void	ofl_chunk_win_init(struct ofl_chunk_win *);
void	ofl_chunk_win_free(struct ofl_chunk_win *);
void	ofl_chunk_win_add(struct ofl_chunk_win *,
	    const struct ofl_chunk_line *);
/* Bytes of the window's raw lines (its text without the header). */
size_t	ofl_chunk_win_raw(const struct ofl_chunk_win *);
int	ofl_chunk_win_emit(struct ofl_chunker *, struct ofl_chunk_win *,
	    const char *, size_t);
/* Emit all but the last line, which stays as the window's first. */
int	ofl_chunk_win_emit_last(struct ofl_chunker *, struct ofl_chunk_win *,
	    const char *, size_t);
/* Heading paths (Markdown, HTML): "Install > From source". */
struct ofl_chunk_heads {
	char		 t[6][OFL_CHUNK_TITLE_MAX];
	size_t		 len[6];
	int		 has[6];
};
void	ofl_chunk_heads_set(struct ofl_chunk_heads *, int, const char *,
	    size_t);
void	ofl_chunk_heads_path(const struct ofl_chunk_heads *,
	    struct ofl_buf *);
/* A chunk: title, text, bytes [bstart, bend), lines lstart to lend. */
int	ofl_chunk_emit(struct ofl_chunker *, const char *, size_t,
	    const char *, size_t, uint64_t, uint64_t, uint64_t, uint64_t);
/* Raw bytes from bstart on line lstart, in parts when they are long. */
int	ofl_chunk_emit_parts(struct ofl_chunker *, const char *, size_t,
	    const char *, size_t, uint64_t, uint64_t);
/* Chunk the rest of a source as text, from offset off on line lineno. */
int	ofl_chunk_text(struct ofl_chunker *, struct ofl_chunk_in *, uint64_t,
	    uint64_t, int);
size_t	ofl_chunk_count_nl(const char *, size_t);
/* HTML's character references ("&amp;", "&#39;") decoded, in place. */
void	ofl_chunk_html_unescape(struct ofl_buf *);
/* Length without the trailing newline and carriage returns. */
size_t	ofl_chunk_body_len(const char *, size_t);
/* Spaces and tabs at the start. */
size_t	ofl_chunk_ws_len(const char *, size_t);
/* 1 if the line holds only spaces and tabs. */
int	ofl_chunk_blank(const char *, size_t);

/*
 * The formats.  Each fmt-FORMAT.c holds one format's detection, chunking
 * and summary rules; they read through struct ofl_src or ofl_chunk_in,
 * never from the store.
 */

/* fmt-json.c: JSON and NDJSON. */
/*
 * The kind of the first bytes that start with '{' or '[': OFL_KIND_JSON
 * (one value, or a sequence of values some of which span lines),
 * OFL_KIND_NDJSON (values one per line), or -1 (neither).  complete: buf
 * holds the whole content.
 */
int	ofl_fmt_json_detect(const unsigned char *, size_t, int);
int	ofl_fmt_json_chunk(struct ofl_chunker *, struct ofl_chunk_in *);
int	ofl_fmt_json_chunk_nd(struct ofl_chunker *, struct ofl_chunk_in *);
/*
 * The shape of the first values and a jq filter worth trying; nd: the
 * content is NDJSON.  0, or -1 if the source cannot be read.
 */
int	ofl_fmt_json_summary(const struct ofl_src *, const struct ofl_meta *,
	    int, struct ofl_summary *);
/* Replace the summary's shape by the one the schema gave (n bytes). */
void	ofl_fmt_json_summary_shape(struct ofl_summary *, const char *,
	    size_t);

/* fmt-md.c: Markdown. */
/* What detection counts of the lines of a text. */
struct ofl_fmt_md_lines {
	size_t	headings;	/* ATX headings after a blank line */
	size_t	fences;
	size_t	lists;
	size_t	links;
	size_t	tablesep;
	size_t	yamlkeys;	/* "key: value" lines */
	int	infence;
	int	prevblank;
};
void	ofl_fmt_md_lines_init(struct ofl_fmt_md_lines *);
/* Count a line (n bytes, without its newline); 0 inside a code fence. */
int	ofl_fmt_md_line(struct ofl_fmt_md_lines *, const unsigned char *,
	    size_t, int);
void	ofl_fmt_md_blank(struct ofl_fmt_md_lines *);
/* Lines in order: 1 for an ATX heading outside the fences *infence follows. */
int	ofl_fmt_md_heading(int *, const unsigned char *, size_t);
/* 1 if lines counted so, out of nonblank lines, make Markdown. */
int	ofl_fmt_md_detect(const struct ofl_fmt_md_lines *, size_t);
int	ofl_fmt_md_chunk(struct ofl_chunker *, struct ofl_chunk_in *);
/* The outline: "headings: # A | ## B (+3 more)". */
int	ofl_fmt_md_summary(const struct ofl_src *, const struct ofl_meta *,
	    struct ofl_summary *);

/* fmt-csv.c: CSV and TSV. */
/*
 * 1 if the first bytes make a table with delim (',' or '\t'); *cols gets
 * the number of columns.
 */
int	ofl_fmt_csv_detect(const unsigned char *, size_t, int, int, size_t *);
/* The header: its last line (a table's lines over it with it), 0: a record. */
int	ofl_fmt_csv_chunk(struct ofl_chunker *, struct ofl_chunk_in *, int,
	    uint64_t);
/* The header's fields: "columns (3): a, b, c". */
int	ofl_fmt_csv_summary(const struct ofl_src *, const struct ofl_meta *,
	    int, struct ofl_summary *);
/* 1 if the lines of a record so far (n bytes) end it: quotes balanced. */
int	ofl_fmt_csv_complete(const char *, size_t, int);
/* Where the first field of a CSV or TSV record ends: its delimiter. */
size_t	ofl_fmt_csv_field_end(const char *, size_t, int);
/* A record's fields, unquoted, into out at off[i], len[i]; at most max.
   Returns the number of fields. */
size_t	ofl_fmt_csv_split(const char *, size_t, int, struct ofl_buf *,
	    size_t *, size_t *, size_t);

/* fmt-table.c: whitespace-aligned tables (kubectl get, docker ps, ps aux). */
#define OFL_TABLE_COLS	64		/* columns at most */
#define OFL_TABLE_WIDTH	1024		/* display columns looked at */
/* Where a table's columns start, and their names from the header. */
struct ofl_fmt_table {
	size_t		 ncols;
	size_t		 start[OFL_TABLE_COLS];	/* display column */
	char		*name[OFL_TABLE_COLS];
	uint64_t	 hdr_line;	/* the header's line, 1-based */
	uint64_t	 rule_line;	/* "---- ---" under it; 0: none */
	uint64_t	 hdr_off;	/* its byte offset */
	uint64_t	 body_off;	/* the first row's */
	int		 named;		/* name[] is no header's (ls -l) */
};
/* 1 and t filled if the first bytes make a table (free t), else 0. */
int	ofl_fmt_table_layout(const unsigned char *, size_t, int,
	    struct ofl_fmt_table *);
void	ofl_fmt_table_free(struct ofl_fmt_table *);
/* 1 if a line is neither the header nor a row: over it, or the rule. */
int	ofl_fmt_table_over(const struct ofl_fmt_table *, uint64_t);
/* The line of a table's header in the first bytes, 0: no table. */
int	ofl_fmt_table_detect(const unsigned char *, size_t, int);
/* A row's cells: off[i] and len[i], trimmed, for each of t's columns. */
void	ofl_fmt_table_split(const struct ofl_fmt_table *, const char *,
	    size_t, size_t *, size_t *);
/* The length of the number a cell is ("5", "-1.5", "5 (3m ago)" is 5),
   0 if it is none; *integer: no fraction. */
size_t	ofl_fmt_table_number(const char *, size_t, int *);
int	ofl_fmt_table_chunk(struct ofl_chunker *, struct ofl_chunk_in *,
	    const struct ofl_src *);
/* The columns, their types, and the counts of the values of the
   columns that have few. */
int	ofl_fmt_table_summary(const struct ofl_src *, const struct ofl_meta *,
	    struct ofl_summary *);
/*
 * The counts of n values after what the first buffer holds ("STATUS:"
 * and " Running 2628, Error 19"), in the order given (NULL: as they
 * are), cut to a number of bytes; the same as a JSON object in the
 * second buffer.
 */
void	ofl_fmt_counts(struct ofl_buf *, struct ofl_buf *, char *const *,
	    const uint64_t *, const size_t *, size_t, size_t);

/* The lines of a source, those over 64 KiB cut, at most max bytes read
   (0: all).  next: 1 and a line (no newline), 0 at the end, -1. */
struct ofl_fmt_table_rd {
	const struct ofl_src	*src;
	unsigned char		*buf;
	size_t			 lo, hi;
	uint64_t		 read;
	uint64_t		 max;
	uint64_t		 cut;		/* lines cut at 64 KiB */
	int			 eof;
	int			 skip;
};
void	ofl_fmt_table_rd_init(struct ofl_fmt_table_rd *,
	    const struct ofl_src *, uint64_t);
int	ofl_fmt_table_rd_next(struct ofl_fmt_table_rd *, const char **,
	    size_t *);
void	ofl_fmt_table_rd_free(struct ofl_fmt_table_rd *);
/*
 * Each line of src from its start (its newline and carriage return left
 * out), to fn, up to max bytes; *cut if there was more.  0, or -1 on a
 * read error.
 */
int	ofl_fmt_lines(const struct ofl_src *, uint64_t,
	    void (*)(void *, const char *, size_t), void *, int *);

/*
 * fmt-records.c: a text of records, each led by a head of fields at the
 * margin (a git log, apt's history).  ofl_fmt_field_key: the length of
 * the key of a field line ("Author: Ann" is 6), 0 if it is none.
 * ofl_fmt_record_head: 1 if the lines are a record's head, two to
 * twelve, the first at the margin and the others fields.  The summary:
 * the notice's lines of such a text.
 */
size_t	ofl_fmt_field_key(const char *, size_t);
int	ofl_fmt_record_head(const char *const *, const size_t *, size_t);
int	ofl_fmt_records_summary(const struct ofl_src *,
	    const struct ofl_meta *, struct ofl_summary *);

/*
 * fmt-plan.c: a plan of infrastructure changes (terraform plan): the
 * notice's lines, its totals and the resources of each action.
 */
int	ofl_fmt_plan_summary(const struct ofl_src *,
	    const struct ofl_meta *, struct ofl_summary *);

/*
 * fmt-test.c (and fmt-test-*.c, one file a family of runners): test
 * runs.  The runner (from the command, then the output), the failing
 * tests (never a passing or skipped one), the counts, and the commands
 * that rerun exactly the failing tests, built from the captured command.
 */
#define OFL_TEST_KEEP	500	/* failing tests kept; the rest counted */
struct ofl_testcase {
	char		*name;		/* node ID, test name, file... */
	char		*group;		/* package, class, binary; or NULL */
	char		*file;		/* where it failed, or NULL */
	uint64_t	 line;		/* 0: unknown */
	char		*message;	/* first line of the failure, or NULL */
	uint64_t	 from;		/* its report's lines in the log */
	uint64_t	 to;
	int		 error;		/* errored rather than failed */
};
struct ofl_testargv {
	char		**v;		/* NULL-terminated */
	size_t		  n;
};
struct ofl_testrun {
	const char		*runner;	/* NULL: not a test run */
	int64_t			 passed;	/* -1: not said */
	int64_t			 failed;
	int64_t			 skipped;
	int64_t			 errors;
	struct ofl_testcase	*tc;
	size_t			 n;
	uint64_t		 more;		/* failing tests not kept */
	struct ofl_testargv	*rerun;		/* run one after the other */
	size_t			 nrerun;
	void			*priv;
};
/* Stream lines through; command (may be NULL) is as the store keeps it. */
void	ofl_fmt_test_begin(struct ofl_testrun *, const char *);
void	ofl_fmt_test_line(struct ofl_testrun *, const char *, size_t,
	    uint64_t);
void	ofl_fmt_test_end(struct ofl_testrun *);
/* All of a source's lines: begin, line, end.  -1 on a read error. */
int	ofl_fmt_test_scan(const struct ofl_src *, const char *,
	    struct ofl_testrun *);
void	ofl_fmt_test_free(struct ofl_testrun *);
void	ofl_fmt_test_util_cases_free(struct ofl_testcase *, size_t);
/* "4 failed, 5 passed, 1 skipped, 1 error" */
void	ofl_fmt_test_counts_text(const struct ofl_testrun *, struct ofl_buf *);
/* The rerun commands, shell-quoted, joined by "; ". */
void	ofl_fmt_test_rerun_text(const struct ofl_testrun *, struct ofl_buf *);
/* JSON members without braces: runner, counts, tests, rerun. */
void	ofl_fmt_test_json(const struct ofl_testrun *, struct ofl_buf *);
/* A source location in a line ("path:12", File "path", line 12): 1. */
int	ofl_fmt_test_util_loc(const char *, size_t, const char **, size_t *,
	    uint64_t *);

/*
 * extract-tests.c: a test run in words, for the notice and the head of
 * --errors.  _changed: 1 if a frame's path names a changed file.
 */
int	ofl_extract_tests_scan(const struct ofl_src *, const struct ofl_meta *,
	    struct ofl_testrun *);
int	ofl_extract_tests_changed(const char *, size_t,
	    const struct ofl_changed *);
/* The notice's section (about budget bytes) and its JSON; 0: none. */
int	ofl_extract_tests_notice(const struct ofl_src *, const char *,
	    const struct ofl_testrun *, const struct ofl_changed *, size_t,
	    struct ofl_buf *, struct ofl_buf *);

/* fmt-snapshot.c: browser snapshots (accessibility trees). */
/* One line of a snapshot: pointers into the line. */
struct ofl_fmt_snapshot_el {
	size_t		 depth;		/* indent */
	const char	*role;		/* "link", "/url", "text" */
	size_t		 rolelen;
	const char	*name;		/* between the quotes, or NULL */
	size_t		 namelen;
	const char	*ref;		/* "e16", "f1e16", "1_4", or NULL */
	size_t		 reflen;
	const char	*value;		/* after "role ...:", or a URL */
	size_t		 valuelen;
	int		 nameq;		/* name in "", with \" and \\ */
	int		 valueq;	/* value likewise */
	int		 level;		/* of a heading */
	int		 prop;		/* "/url:", "/placeholder:" */
	int		 text;		/* a text node */
	size_t		 end;		/* parse position */
};
/* 1 if the line (n bytes) is an item of a snapshot's tree, parsed. */
int	ofl_fmt_snapshot_parse(const char *, size_t,
	    struct ofl_fmt_snapshot_el *);
int	ofl_fmt_snapshot_detect(const unsigned char *, size_t, int);
int	ofl_fmt_snapshot_chunk(struct ofl_chunker *, struct ofl_chunk_in *);
/*
 * The page's map: title and URL, elements per role, the headings, the
 * landmarks, every form with its fields and buttons by ref.  filter gets
 * the role worth querying next.
 */
int	ofl_fmt_snapshot_summary(const struct ofl_src *,
	    const struct ofl_meta *, struct ofl_summary *);
/* The nearest heading above a line of a hit's lines; SIZE_MAX if none. */
size_t	ofl_fmt_snapshot_heading_above(const char *const *, const size_t *,
	    size_t);
/*
 * A search hit's line i, of lines p[] (lengths n[]): the lines of the
 * element that holds it when it is a child line or has no name.
 */
size_t	ofl_fmt_snapshot_owners(const char *const *, const size_t *, size_t,
	    size_t, size_t[3]);
/*
 * The block of prose that line i, an element with a ref, sits in past the
 * block's first words (a link in a sentence); SIZE_MAX if none.
 */
size_t	ofl_fmt_snapshot_prose(const char *const *, const size_t *, size_t);
/* What line i leads to: the block after a heading, term or sentence. */
size_t	ofl_fmt_snapshot_follower(const char *const *, const size_t *,
	    size_t, size_t, int);
/* 1 if line i is in the term of a description list: a definition. */
int	ofl_fmt_snapshot_in_term(const char *const *, const size_t *, size_t,
	    size_t);
/* 1 if line i is a link, a button, a field, or a line inside one. */
int	ofl_fmt_snapshot_control(const char *const *, const size_t *, size_t,
	    size_t);
/*
 * Line 0 of p[0..nl) a heading: the first line under it, before another
 * heading, that is an element an agent clicks or fills, with its ref (the
 * link under "Next topic"); nl if line 0 is no heading or has none.
 */
size_t	ofl_fmt_snapshot_under(const char *const *, const size_t *, size_t);
/*
 * The last line of p[0..nl) a button: the field it goes with, the
 * textbox, searchbox or combobox just before it at its depth (a search
 * form's box before its "Search" button); nl if none.
 */
size_t	ofl_fmt_snapshot_field(const char *const *, const size_t *, size_t);
/* Where the ref of a snapshot's line ends ("[ref=e85]"); 0 if none. */
size_t	ofl_fmt_snapshot_ref_end(const char *, size_t);
/* The bytes of a line's role, name and value: no indent, no attributes. */
size_t	ofl_fmt_snapshot_words(const char *, size_t);
/* fmt-snapshot-name.c: an element named by a question's words. */
#define OFL_SNAPSHOT_WORDS_MAX	32
struct ofl_fmt_snapshot_words {
	char	*w[OFL_SNAPSHOT_WORDS_MAX];	/* lowercase */
	size_t	 n[OFL_SNAPSHOT_WORDS_MAX];
	int	 stop[OFL_SNAPSHOT_WORDS_MAX];	/* counts only in a name */
	size_t	 nw;
};
void	ofl_fmt_snapshot_words_add(struct ofl_fmt_snapshot_words *,
	    const char *, size_t, int);
void	ofl_fmt_snapshot_words_free(struct ofl_fmt_snapshot_words *);
/* 0 to 1: how well the element of a line is named by the words. */
double	ofl_fmt_snapshot_named(const char *, size_t,
	    const struct ofl_fmt_snapshot_words *);
/* An element without a name, named by the text of its first child. */
double	ofl_fmt_snapshot_named_by(const char *, size_t, const char *, size_t,
	    const struct ofl_fmt_snapshot_words *);
/* An element found by role and name: its line and its path. */
struct ofl_fmt_snapshot_match {
	uint64_t	 lineno;
	const char	*line;		/* without its indent or newline */
	size_t		 len;
	const char	*path;		/* ancestors, heading, parent's ref */
	size_t		 pathlen;
};
/*
 * The elements with a ref whose role is role (any if NULL or empty;
 * ASCII case ignored) and whose name or text holds name (any if NULL;
 * case ignored), in order, to cb until it returns non-zero.  0, or -1
 * if the source cannot be read.
 */
int	ofl_fmt_snapshot_find(const struct ofl_src *, const char *,
	    const char *, int (*)(void *,
	    const struct ofl_fmt_snapshot_match *), void *);
/*
 * fmt-html.c: an HTML page's map, as a snapshot's (title, roles,
 * headings, landmarks, forms with their fields, each by line), and its
 * elements by role and name, as ofl_fmt_snapshot_find() gives them.
 */
int	ofl_fmt_html_summary(const struct ofl_src *, const struct ofl_meta *,
	    struct ofl_summary *);
int	ofl_fmt_html_find(const struct ofl_src *, const char *, const char *,
	    int (*)(void *, const struct ofl_fmt_snapshot_match *), void *);
/*
 * What changed from old to new, in about budget bytes (0: no limit):
 * the regions added and removed (the tops of subtrees) and the elements
 * changed, matched by role, name and ancestors with refs left out.  0,
 * or -1 with ofl_errmsg() set.
 */
int	ofl_fmt_snapshot_diff(struct ofl_src *, struct ofl_src *, size_t,
	    struct ofl_buf *);

/*
 * index.c / query.c: the full-text index (SQLite FTS5) and search.
 * tok.c: the tokenizer's text rules, over a word tokenizer (porter, which
 * the store gets from FTS5).  The flags are FTS5's own values.
 */
#define OFL_TOK_OK		0	/* a callback's "carry on" */
#define OFL_TOK_QUERY		0x0001	/* tokenizing a query */
#define OFL_TOK_PREFIX		0x0002
#define OFL_TOK_DOCUMENT	0x0004	/* tokenizing a document */
#define OFL_TOK_AUX		0x0008
#define OFL_TOK_PLAIN		0x0100	/* words only: no identifiers */
#define OFL_TOK_COLOCATED	0x0001	/* a token's flag: an identifier */
#define OFL_TOK_COMPOUND_MAX	64	/* longest identifier token */
#define OFL_TOK_VERSION		3	/* bump when the tokens change */
#define OFL_TOK_EXACT	'\001'	/* a query string that is one identifier */
/* The word tokenizer under ofl's: run(ctx, arg, flags, text, len, cb). */
struct ofl_tok_words {
	int	(*run)(void *, void *, int, const char *, int,
		    int (*)(void *, int, const char *, int, int, int));
	void	(*free)(void *);
	void	*ctx;
};
struct ofl_tok;
struct ofl_tok	*ofl_tok_new(const struct ofl_tok_words *);
void		 ofl_tok_free(struct ofl_tok *);
/* One call as FTS5 makes it: flags OFL_TOK_*, the callback's codes. */
int		 ofl_tok_tokenize(struct ofl_tok *, void *, int, const char *,
		    int, int (*)(void *, int, const char *, int, int, int));
/*
 * Tokenize for marking matches.  Mode 0: as documents are indexed
 * (identifiers colocated), 1: as query strings, 2: words only.
 */
int		 ofl_tok_run(struct ofl_tok *, int, const char *, size_t,
		    int (*)(void *, int, const char *, int, int, int), void *);
/* 1 if a colocated token is an identifier's whole, not a CamelCase part. */
int		 ofl_tok_is_ident(const char *, int);

/*
 * store-fts.c: the full-text index's tables (SQLite FTS5, contentless),
 * the tokenizer and ranking function registered with SQLite, and every
 * statement on them.  A chunk is known by its blob and sequence number.
 */
#define OFL_FTS_CHUNK_MAX	((int64_t)1 << 24)	/* chunks of a blob */
#define OFL_FTS_BLOB_MAX	((int64_t)1 << (62 - 24))
/*
 * The ranking, given with every query as well as set on the table: a
 * query that relies on the table's setting can read it after another
 * process made FTS5 reload it (a use after free in SQLite 3.40).
 */
#define OFL_INDEX_RANK	"oflrank(4.0, 1.0)"
/* A chunk to write or delete, and a chunk's row as read back. */
struct ofl_fts_chunk {
	int64_t		 seq;
	const char	*member;	/* NUL-terminated, or NULL */
	const char	*title;
	size_t		 title_len;
	const char	*text;
	size_t		 len;
	uint64_t	 byte_start;
	uint64_t	 byte_end;
	uint64_t	 line_start;
	uint64_t	 line_end;
};
struct ofl_fts_row {
	char		*member;	/* or NULL; free both */
	char		*title;
	uint64_t	 byte_start;
	uint64_t	 byte_end;
	uint64_t	 line_start;
	uint64_t	 line_end;
};
/* How a blob's indexing stands, for the indexer that asks to do it. */
enum ofl_fts_claim {
	OFL_FTS_MINE = 0,		/* ours now */
	OFL_FTS_DONE = 1,		/* indexed already */
	OFL_FTS_BUSY = 2,		/* another live process is at it */
	OFL_FTS_STALE = 3		/* made by another tokenizer */
};
/* Create the tables if needed and register the tokenizer. */
int	ofl_store_fts_init(struct ofl_store *);
/* A tokenizer like the index's, for the services. */
struct ofl_tok *ofl_store_fts_tok(struct ofl_store *);
/* 1 if the blob is indexed with the current tokens, 0 if not, -1. */
int	ofl_store_fts_state(struct ofl_store *, int64_t);
/* Claim the indexing of blob (id: an artifact of it): ofl_fts_claim. */
int	ofl_store_fts_claim(struct ofl_store *, int64_t, const char *,
	    int64_t *);
/*
 * Write chunks in one transaction, while the blob is live and the job
 * ours; next_seq: chunks seen, last: the blob is done.
 */
int	ofl_store_fts_write(struct ofl_store *, int64_t, const char *,
	    const struct ofl_fts_chunk *, size_t, int64_t, int, int, uint64_t);
/*
 * Forget the blob: its rows buried in their generation (store-gen.c),
 * its chunk rows and state deleted, inside the caller's transaction
 * (forget) or in one of its own (forget_tx).
 */
int	ofl_store_fts_forget(struct ofl_store *, int64_t);
int	ofl_store_fts_forget_tx(struct ofl_store *, int64_t);
/*
 * Tidy the generations of the index (store-gen.c), in one transaction:
 * drop those whose every blob is gone, close an open one half buried.
 * Puts in *blobs (to free) up to max blobs of the generations to compact
 * (closed, less than half a generation's bytes left), *n of them, for
 * the caller to index anew.  Returns the generations dropped, or -1.
 */
int	ofl_store_fts_tidy(struct ofl_store *, int64_t **, size_t *, size_t);
/*
 * Give the index's free pages back to the file system, 256 at a time for
 * up to max_ms: what merging its segments freed, once indexing is done.
 */
void	ofl_store_fts_give_back(struct ofl_store *, int64_t);
/* 1 if ofl_store_fts_tidy() has work to do, 0 if not, -1 on error. */
int	ofl_store_fts_untidy(struct ofl_store *);
/* The content bytes indexed of blob (0 if it is not indexed). */
uint64_t ofl_store_fts_blob_bytes(struct ofl_store *, int64_t);
/* Bytes of index pages that hold buried rows, as estimated. */
uint64_t ofl_store_fts_buried_bytes(struct ofl_store *);
/* Check the tables; appends what is wrong, returns the count or -1. */
int	ofl_store_fts_check(struct ofl_store *, struct ofl_buf *);
/* A query: blob < 0 for all (scoped: the blobs of ofl_store_fts_scope). */
struct ofl_fts_query {
	const char	*match;		/* FTS5 syntax */
	int		 raw;		/* the user's: errors are usage */
	int64_t		 blob;
	int		 scoped;
	int		 lines;		/* only chunks overlapping these */
	uint64_t	 line_from;
	uint64_t	 line_to;
	size_t		 limit;
	/* Not scoped, blob < 0: the artifacts of this filter (NULL: all). */
	const struct ofl_filter *filter;
	/*
	 * blob < 0: when more than cap chunks match (0: no bound), only
	 * the contents of the newest cap are ranked (each whole: its last
	 * may bring more), and *capped (if not NULL) is set.
	 */
	size_t		 cap;
	int		*capped;
};
/* The blobs a scoped query is limited to. */
int	ofl_store_fts_scope(struct ofl_store *, const int64_t *, size_t);
/*
 * Run a query, best first, cb(blob, seq, score, arg) for each row (-1
 * stops with an error); returns the rows seen or -1.
 */
int	ofl_store_fts_query(struct ofl_store *, const struct ofl_fts_query *,
	    int (*)(int64_t, int64_t, double, void *), void *);
/* A chunk's row: 1, 0 if it is gone, -1 on error. */
int	ofl_store_fts_chunk(struct ofl_store *, int64_t, int64_t,
	    struct ofl_fts_row *);
void	ofl_store_fts_row_free(struct ofl_fts_row *);
/* The title of a chunk holding a line: seq < 0 for any chunk of blob. */
struct ofl_fts_title {
	int64_t		 blob;
	int64_t		 seq;
	uint64_t	 line;
	char		*title;		/* set if found: free it */
};
void	ofl_store_fts_titles(struct ofl_store *, struct ofl_fts_title *,
	    size_t);
/* The index's vocabulary: rows holding a term, and terms near a word. */
struct ofl_fts_vocab;
struct ofl_fts_vocab *ofl_store_fts_vocab(struct ofl_store *);
void	ofl_store_fts_vocab_free(struct ofl_fts_vocab *);
int64_t	ofl_store_fts_vocab_doc(struct ofl_fts_vocab *, const char *, size_t);
/* Each term in [lo, hi): cb(term, rows, arg). */
void	ofl_store_fts_vocab_range(struct ofl_fts_vocab *, const char *,
	    const char *, void (*)(const char *, int64_t, void *), void *);
/* Chunks in the index. */
int64_t	ofl_store_fts_chunks(struct ofl_store *);
/* The newest artifact of a blob that a filter (or NULL) lets through. */
int	ofl_store_fts_blob_art(struct ofl_store *, int64_t,
	    const struct ofl_filter *, char *, size_t);
/* 1 if another process indexes blob now: where its chunks end so far. */
int	ofl_store_fts_progress(struct ofl_store *, int64_t, uint64_t *,
	    uint64_t *);
/*
 * The frames of a blob from byte from on (the one that holds it first),
 * in order: cb(raw_off, raw_len, line_off, sketch or NULL, arg), a
 * non-zero return stopping.  -1 on an error; 0 when the store keeps no
 * sketches (every frame then has NULL, or cb is not called at all).
 */
int	ofl_store_frame_sketches(struct ofl_store *, int64_t, uint64_t,
	    int (*)(uint64_t, uint64_t, uint64_t, const unsigned char *,
	    void *), void *);
/* Artifacts of a filter not indexed in full: cb(id, blob, arg), count. */
int64_t	ofl_store_fts_unindexed(struct ofl_store *,
	    const struct ofl_filter *, int (*)(const char *, int64_t, void *),
	    void *);
/* Merge the generations closed full, for max_ms (at least one). */
void	ofl_store_fts_merge(struct ofl_store *, int64_t);
/* Move the mark of what is indexed up to the newest artifact. */
int	ofl_store_fts_settle(struct ofl_store *);

/*
 * index.c: the indexer (an artifact's chunks into the full-text index).
 */
struct ofl_index_stats {
	uint64_t	 chunks;	/* chunks indexed by this call */
	uint64_t	 bytes;		/* bytes of chunk text indexed */
	int		 cached;	/* content indexed before: nothing done */
	int		 truncated;	/* too many chunks, the rest is not */
};
/* Create the index tables if needed and register the tokenizer. */
int	ofl_index_init(struct ofl_store *);
/*
 * For gc on a store never indexed: an empty index in memory, no file
 * made (store-ixdb.c).  1 if attached, 0 if the store has an index.
 */
int	ofl_store_ix_scratch(struct ofl_store *);
/*
 * Index an artifact (a full ID) by its content: a no-op when the same
 * content was indexed before, or waits while another process indexes it.
 * progress (may be NULL) gets bytes done and total now and then.
 */
int	ofl_index_artifact(struct ofl_store *, const char *,
	    void (*)(uint64_t, uint64_t, void *), void *,
	    struct ofl_index_stats *);
/* 1 if the blob is indexed, 0 if not, -1 on error. */
int	ofl_index_state(struct ofl_store *, int64_t);
/*
 * What a run of indexing ends with: the generations it closed merged and
 * the pages that freed given back to the file system, for a moment at
 * most (gc gives the rest); the caller's error is kept.
 */
void	ofl_index_done(struct ofl_store *);
/*
 * Index every artifact not indexed yet, one process at a time (another
 * waits at most); returns how many were indexed, or -1.  progress (or
 * NULL) is told the count done and the count there was to do.  *failed
 * (when not NULL) counts the complete artifacts that could not be
 * indexed, the last error saying why (one still being written is no
 * failure).  Rebuild: the same after the whole index is dropped
 * (ofl-index --rebuild).
 */
int64_t	ofl_index_pending(struct ofl_store *,
	    void (*)(int64_t, int64_t, void *), void *, int64_t *);
int64_t	ofl_index_rebuild(struct ofl_store *,
	    void (*)(int64_t, int64_t, void *), void *, int64_t *);
/* 1 if captures index in the background (OFL_INDEX_BG is not 0). */
int	ofl_index_bg(void);
/* 1 if an indexer waits for its turn: it will see what is committed now. */
int	ofl_index_waiting(struct ofl_store *);
/*
 * Remove a blob from the index (its rows buried, store-gen.c), in a
 * transaction of its own (drop) or in the caller's, the one that removes
 * the blob (forget).
 */
int	ofl_index_drop(struct ofl_store *, int64_t);
int	ofl_index_forget(struct ofl_store *, int64_t);
/* Check the index; appends what is wrong, returns the count or -1. */
int	ofl_index_check(struct ofl_store *, struct ofl_buf *);

/*
 * suggest.c: what the notice shows of a log's errors, as data: the most
 * frequent error lines of a log or text (numbers, hex and ids masked as
 * <*>), and distinctive words (rare in the rest of the index when the
 * artifact is indexed).  Does not index.
 */
struct ofl_sig {
	char		*text;		/* the masked error line, NUL-terminated */
	size_t		 len;
	uint64_t	 count;
	uint64_t	 first_line;
};
struct ofl_suggest {
	struct ofl_sig	*sigs;		/* most frequent first */
	size_t		 nsigs;
	uint64_t	 sig_bytes;	/* of the content, read for them */
	char		**terms;	/* distinctive search terms, best first */
	size_t		 nterms;
};
int	ofl_suggest(struct ofl_store *, const char *, struct ofl_suggest *);
void	ofl_suggest_free(struct ofl_suggest *);

/*
 * input.c: the pipe protocol, for a tool given no ID or "-": standard
 * input whose first line is a reference line (ofl_ref_line()) is a
 * reference stream, and every reference line in it names an artifact;
 * anything else is data, captured first as a new artifact.
 * ofl_input_open() reads only as far as the first line, so that the tool
 * can refuse empty input or open the store for reading only before
 * anything is stored.
 */
enum ofl_input_type {
	OFL_INPUT_EMPTY,		/* nothing at all */
	OFL_INPUT_REFS,			/* a reference stream */
	OFL_INPUT_DATA			/* data to capture */
};
struct ofl_input {
	int		 fd;
	int		 type;		/* enum ofl_input_type */
	int		 eof;
	struct ofl_buf	 buf;
};
int	ofl_input_open(struct ofl_input *, int);
/*
 * The references of the input (OFL_INPUT_REFS: each reference line;
 * OFL_INPUT_DATA: the artifact the data is stored as, so st must be
 * open for writing) put in *refs (*nrefs of them) in place of a "-"
 * there, else after the others.
 */
int	ofl_input_refs(struct ofl_input *, struct ofl_store *,
	    struct ofl_ref **, size_t *);
void	ofl_input_close(struct ofl_input *);
/*
 * A tool's operands as references, "-" (once) standing for standard
 * input, into *refs (*nrefs of them).  With no operand or a "-", in is
 * opened on standard input and 1 returned; empty input is a usage error.
 * 0: no standard input; -1 with ofl_errmsg().
 */
int	ofl_input_args(int, char **, struct ofl_input *, struct ofl_ref **,
	    size_t *);
/* The message for empty input, as the tools say it. */
#define OFL_INPUT_EMPTY_MSG \
	"no artifact: standard input is empty (give an ID, or pipe a " \
	"reference or data)"
/*
 * All of the above at once: *ids (free each and the array) gets the
 * IDs, unresolved and without their ranges; *nids is 0 for empty input.
 */
int	ofl_index_input(struct ofl_store *, int, char ***, size_t *);

/*
 * lexicon.c: groups of words and phrases that say one thing (data in
 * lexicon.tsv).  ofl_lexicon_match: the group of the longest form that
 * the words (any case) start with, -1 if none, *len set to its words;
 * ofl_lexicon_form: the group's forms by index, NULL past the last;
 * ofl_lexicon_around: 1 if the words of a line around the word at
 * [start, end) spell a form of several words of the group.
 */
int		 ofl_lexicon_match(const char *const *, size_t, size_t *);
const char	*ofl_lexicon_form(int, size_t);
int		 ofl_lexicon_around(int, const char *, size_t, size_t, size_t);

/*
 * snippet.c: the signature of a line (its variable parts masked, as
 * fmt-log.c's rule has it), never 0: the hits and lines of one signature
 * are shown once, with a count and where the others are.
 */
uint64_t	 ofl_snippet_signature(const char *, size_t);

/*
 * query.c (the query, its scope, the hits), snippet.c (the lines of each
 * hit shown) and list.c (the listing of artifacts).
 */
struct ofl_search_opts {
	const char		*query;
	int			 fts;		/* query is raw FTS5 syntax */
	int			 json;		/* JSON Lines */
	int			 quiet;		/* references only */
	int			 color;		/* matches, line numbers and
						   references in color (text) */
	size_t			 budget;	/* bytes of output, 0: default */
	int			 limit;		/* hits, 0: default */
	struct ofl_filter	 filter;	/* scope without IDs */
	const struct ofl_ref	*ranges;	/* lines per ID, or NULL */
	void			(*progress)(uint64_t, uint64_t, void *);
	void			*progress_arg;
	/* Set: what the search left out, a line for stderr, is put here. */
	struct ofl_buf		*note;
};
#define OFL_SEARCH_BUDGET	1500
#define OFL_SEARCH_LIMIT	5
void	ofl_search_opts_init(struct ofl_search_opts *);
/*
 * Search artifacts (full IDs; none: the store, narrowed by the filter),
 * indexing them first if needed, and append the hits to out.  Returns the
 * number of hits, 0 if nothing matched, -1 on error (a bad --fts query is
 * OFL_EXIT_USAGE).
 */
int	ofl_search(struct ofl_store *, const char *const *, size_t,
	    const struct ofl_search_opts *, struct ofl_buf *);
/* ofl-capture --intent: index one artifact, append its top hits. */
int	ofl_search_intent(struct ofl_store *, const char *, const char *,
	    size_t, struct ofl_buf *);
/* One line of the artifact listing. */
#define OFL_LIST_TEXT	0	/* tab-separated cells, for the table */
#define OFL_LIST_QUIET	1	/* IDs only */
#define OFL_LIST_JSON	2	/* ofl_meta_json() */
void	ofl_list_line(struct ofl_buf *, const struct ofl_meta *, int);
/* The listing's columns, as its header names them. */
#define OFL_LIST_NCOLS		9
#define OFL_LIST_HEADER	"ID KIND SIZE LINES AGE EXIT STATE LABEL COMMAND"
#define OFL_LIST_LIMIT		20	/* lines listed unless told */
/* The last line of a listing cut at its limit: how many more, and how. */
void	ofl_list_more(struct ofl_buf *, int64_t);
/* OFL_LIST_TEXT lines as a table under a header, columns aligned. */
void	ofl_list_table(struct ofl_buf *, const char *, size_t);

/*
 * records.c: a table, CSV or TSV artifact as records, an object a row
 * keyed by the header; numbers where the whole column is numeric.
 */
enum { OFL_RECORDS_STRING, OFL_RECORDS_INTEGER, OFL_RECORDS_NUMBER };
struct ofl_records;
int	ofl_records_supports(int);
/* Reads the header and finds the types; NULL with ofl_errmsg(). */
struct ofl_records *ofl_records_open(const struct ofl_src *, int);
void	ofl_records_close(struct ofl_records *);
/*
 * The name of the header's column n (from 1), appended to a buffer: its
 * field of len bytes, "column N" when empty, with "_N" after it when
 * taken(arg, name, its length) says a column before it has that name.
 * ofl-schema names columns so, for its names to be ones a filter can use.
 */
void	ofl_records_colname(struct ofl_buf *, const char *, size_t, size_t,
	    int (*)(void *, const char *, size_t), void *);
size_t	ofl_records_ncols(const struct ofl_records *);
const char *ofl_records_name(const struct ofl_records *, size_t);
int	ofl_records_type(const struct ofl_records *, size_t);
/* The next row: 1 (its first line in *line), 0 at the end, -1. */
int	ofl_records_next(struct ofl_records *, uint64_t *);
/* A cell of the row (NULL past its end), and the row as JSON. */
const char *ofl_records_cell(const struct ofl_records *, size_t, size_t *);
/*
 * The records read so far that were cut: a line over 64 KiB, a CSV
 * record over 1 MiB, or fields past the 1,024th.
 */
uint64_t ofl_records_cut(const struct ofl_records *);
void	ofl_records_json(const struct ofl_records *, struct ofl_buf *);
/* What a cell of the row gives: null, a number's text, or a string. */
enum { OFL_RECORDS_VNULL, OFL_RECORDS_VNUM, OFL_RECORDS_VSTR };
int	ofl_records_value(const struct ofl_records *, size_t, const char **,
	    size_t *);

/*
 * diff.c: what changed between two artifacts, by kind: rows of tables,
 * CSV and TSV by key; paths of JSON; tests newly failing and passing and
 * new error lines of logs; else the lines, as a unified diff.  Text, or
 * JSON Lines with json; at most budget bytes (0: no limit), the last
 * line then saying what was left out and the command that shows it.
 */
#define OFL_DIFF_BUDGET	2000
struct ofl_diff_opts {
	size_t		 budget;
	int		 json;
	/* Masks the secrets of what is printed; NULL: none (the caller's). */
	struct ofl_redactor *red;
};
void	ofl_diff_opts_init(struct ofl_diff_opts *);
/* 0 the same, 1 different, -1 with ofl_errmsg(). */
int	ofl_diff(struct ofl_store *, const char *, const char *,
	    const struct ofl_diff_opts *, struct ofl_buf *);
/* The test a line says failed (its name masked) into out: 1, else 0. */
int	ofl_diff_failing_test(const char *, size_t, struct ofl_buf *);
/*
 * diff-myers.c: the edit script from a[0..n) to b[0..m) into *ops ('E'
 * same, 'D' deleted, 'I' inserted; to free), its length in *nops; -1
 * past maxd differences.
 */
int	ofl_diff_myers(const uint64_t *, size_t, const uint64_t *, size_t,
	    size_t, char **, size_t *);

/*
 * schema.c: the structure of JSON, NDJSON, CSV and TSV content, gathered
 * in one streaming pass with bounded memory (nesting beyond
 * OFL_SCHEMA_MAX_DEPTH and distinct paths beyond OFL_SCHEMA_MAX_NODES are
 * left out, and ofl_schema_warning() says so).
 */
#define OFL_SCHEMA_MAX_DEPTH	256
#define OFL_SCHEMA_MAX_NODES	50000
struct ofl_schema;
/* 1 if the kind has a schema (JSON, NDJSON, CSV, TSV). */
int		 ofl_schema_supports(int kind);
/* NULL (OFL_EXIT_FAIL) if the kind has none. */
struct ofl_schema *ofl_schema_new(int kind);
void		 ofl_schema_free(struct ofl_schema *);
/*
 * 0 ok, -1 invalid input (ofl_errmsg() gives the byte offset and line);
 * what parsed before the error stays in the schema.
 */
int		 ofl_schema_feed(struct ofl_schema *, const void *, size_t);
int		 ofl_schema_finish(struct ofl_schema *);
/* Feed and finish from a reader, at most max bytes (0: all); *cut is set
 * to 1 when bytes were left unread (cut may be NULL). */
int		 ofl_schema_read(struct ofl_schema *, struct ofl_reader *,
		    uint64_t, int *);
/* Top-level values (JSON, NDJSON) or data rows (CSV, TSV) seen. */
uint64_t	 ofl_schema_values(struct ofl_schema *);
/* What was left out while reading, or NULL. */
const char	*ofl_schema_warning(struct ofl_schema *);
/* A JSON Schema as Python genson writes it; pretty as jq prints it, or
 * on one line with compact. */
void		 ofl_schema_json_schema(struct ofl_schema *, int compact,
		    struct ofl_buf *);
/* The shape as text, at most max_out bytes and max_lines lines (0: no
 * limit); what had to be left out is said on its last line. */
void		 ofl_schema_enums(struct ofl_schema *,
		    const struct ofl_buf *shape, size_t max_out,
		    struct ofl_buf *);
void		 ofl_schema_shape_text(struct ofl_schema *, size_t max_out,
		    size_t max_lines, struct ofl_buf *);
/* The shape as data: one JSON object per path (or column) per line. */
void		 ofl_schema_jsonl(struct ofl_schema *, struct ofl_buf *);
/*
 * store-tmpl.c: a log's templates cached by content.  _get: 1 with the
 * templates (free with _free), how many were mined (more than those
 * given when the cache kept only the most and the least frequent) and
 * the lines mined, 0 when none are cached, -1 on an error.  _put
 * replaces them (a no-op read-only, or for a log _kept() says is mined
 * again rather than kept).  _kept: 1 if the templates of a log of that
 * many bytes are kept: from OFL_TMPL_KEEP bytes on (default 64k; 0:
 * all), as mining a smaller one costs less than its rows.
 */
int	 ofl_store_tmpl_kept(uint64_t);
int	 ofl_store_tmpl_get(struct ofl_store *, const char *,
	    struct ofl_fmt_log_tmpl_info **, size_t *, size_t *, uint64_t *);
void	 ofl_store_tmpl_free(struct ofl_fmt_log_tmpl_info *, size_t);
int	 ofl_store_tmpl_put(struct ofl_store *, const char *,
	    const struct ofl_fmt_log_tmpl *);
/*
 * schema-log.c: the templates of a log artifact.  ofl_schema_log: from
 * the cache, or mined (and cached when the store is writable) if the
 * content holds at most max bytes (0: any size); with all, mined again
 * when the cache kept part of them.  0 done, 1 not cached and too
 * large, -1 error.  ofl_schema_log_mine mines and caches.
 */
struct ofl_schema_log {
	struct ofl_fmt_log_tmpl_info	*t;	/* most frequent first */
	size_t				 n;
	size_t				 total;	/* mined: n, or more when
						   the cache kept part */
	uint64_t			 lines;
};
int	 ofl_schema_log(struct ofl_store *, const char *, uint64_t, int,
	    struct ofl_schema_log *);
void	 ofl_schema_log_free(struct ofl_schema_log *);
int	 ofl_schema_log_mine(struct ofl_store *, const char *);
/*
 * As ofl-schema prints them: a count line, one line per template (or
 * one JSON object with json), at most max bytes (0: all) and the command
 * for the rest (with -s store_arg when not NULL).
 */
void	 ofl_schema_log_out(const struct ofl_schema_log *, const char *,
	    const char *, uint64_t, int, struct ofl_buf *);
/*
 * The template of any line of an artifact, for collapsing search hits
 * of one template: _open reads the cached templates (no pass over the
 * content), or mines and caches them when none are and the content
 * holds at most max bytes; NULL when it has none (too large, or an
 * error).  _line gives the template ID of a line taken as the first line
 * of a record (1; 2 when the template is variables alone, 0 when the line
 * has none of the artifact's templates), the same IDs ofl-schema prints.
 */
struct ofl_schema_log_map;
struct ofl_schema_log_map *ofl_schema_log_map_open(struct ofl_store *,
	    const char *, uint64_t);
int	 ofl_schema_log_map_line(const struct ofl_schema_log_map *,
	    const char *, size_t, char [OFL_TMPL_ID]);
void	 ofl_schema_log_map_close(struct ofl_schema_log_map *);
/*
 * store-gc.c: what expiry and checking need of the store, as structs;
 * gc.c decides what goes.  -1 on error, with a message for most.
 */
int	 ofl_store_gc_fail(struct ofl_store *, const char *);
/* Make the pin table if needed. */
int	 ofl_store_gc_init(struct ofl_store *);
/* Pin (1) or unpin (0) the artifact with this full ID. */
int	 ofl_store_gc_pin(struct ofl_store *, const char *, int);
/* A finished artifact, as gc plans with it. */
struct ofl_store_gc_cand {
	char		 id[OFL_ID_MAX + 1];
	int64_t		 blob;
	int64_t		 created;
	int		 has_expires;
	int64_t		 expires;
	uint64_t	 stored;	/* its blob's compressed bytes */
	uint64_t	 ixbytes;	/* bytes its blob's index was made of */
	int		 pinned;
	char		*label;		/* may be NULL */
	char		*session;	/* may be NULL */
};
/*
 * Every finished artifact created before a time (ms), least recently
 * used first.  Needs the pin table and the index tables.
 */
int	 ofl_store_gc_candidates(struct ofl_store *, int64_t,
	    struct ofl_store_gc_cand **, size_t *);
void	 ofl_store_gc_cands_free(struct ofl_store_gc_cand *, size_t);
/* Artifacts on each blob, those being written too, by blob number. */
struct ofl_store_gc_bref {
	int64_t		 blob;
	int		 refs;
};
int	 ofl_store_gc_brefs(struct ofl_store *, struct ofl_store_gc_bref **,
	    size_t *);
/* The bytes of the full-text index: its pages in use, less buried rows. */
uint64_t ofl_store_gc_index_bytes(struct ofl_store *);
/* Artifacts in the store. */
uint64_t ofl_store_gc_count(struct ofl_store *);
/*
 * One gc at a time: the store's gc lock (a file of the directory, or a
 * lock of the database's session for the connected role), held until
 * the store is closed.  1 when taken, 0 when another gc holds it and
 * wait is 0, -1 with a message.
 */
int	 ofl_store_gc_lock(struct ofl_store *, int);
/*
 * A lock of the store's by name (a file of the store directory, or an
 * advisory lock of the role on PostgreSQL), for as long as the store is
 * open or until ofl_store_unlock(): a handle, -2 if another process holds
 * it (and !wait), -1 on error.
 */
int	 ofl_store_lock(struct ofl_store *, const char *, int);
void	 ofl_store_unlock(struct ofl_store *, const char *, int);
/*
 * The stamp name ("gc", "index"): 1 if it was set less than secs seconds
 * ago (or cannot be read); else set it now and return 0.
 */
int	 ofl_store_stamp(struct ofl_store *, const char *, int64_t);
/*
 * Removing one artifact, by full ID, inside ofl_store_begin(): row
 * gives what it is now (blob -1: gone), delete removes it and its pin
 * and counts the artifacts left on blob, drop_blob removes a blob's
 * frames and row; after the commit, unlink removes the blob's file.
 */
struct ofl_store_gc_row {
	int64_t		 blob;
	int		 state;
	int64_t		 created;
	char		*file;		/* blob file, to free */
	uint64_t	 stored;
};
int	 ofl_store_gc_row(struct ofl_store *, const char *,
	    struct ofl_store_gc_row *);
int	 ofl_store_gc_delete(struct ofl_store *, const char *, int64_t,
	    int *);
int	 ofl_store_gc_drop_blob(struct ofl_store *, int64_t);
/* -1 when the file is there still (the error says why). */
int	 ofl_store_gc_unlink(struct ofl_store *, const char *);
/* 1 when the blob file is there and empty. */
int	 ofl_store_gc_file_empty(struct ofl_store *, const char *);
/*
 * Compacting: one small merge of the open generation's segments (1 if
 * it merged anything); one step
 * of giving free pages back (1 if there may be more); the WAL's space.
 */
int	 ofl_store_gc_fts_merge(struct ofl_store *);
int	 ofl_store_gc_vacuum_step(struct ofl_store *);
void	 ofl_store_gc_checkpoint(struct ofl_store *);
/*
 * Checking.  integrity: each line SQLite's check finds wrong goes to cb.
 * rowless: each artifact whose blob row is missing (removed, with
 * repair).  unused: the blobs of no artifact; blob_row_drop removes one
 * such row.  stray_frames: frame rows of no blob (removed, with repair).
 */
int	 ofl_store_ix_sound(struct ofl_store *);
int	 ofl_store_ix_reset(struct ofl_store *);
int	 ofl_store_ix_drop_all(struct ofl_store *);
int	 ofl_store_gc_integrity(struct ofl_store *,
	    void (*)(const char *, void *), void *);
int	 ofl_store_gc_rowless(struct ofl_store *, int,
	    void (*)(const char *, void *), void *);
struct ofl_store_gc_blob {
	int64_t		 id;
	char		*file;		/* may be NULL */
};
int	 ofl_store_gc_unused(struct ofl_store *, struct ofl_store_gc_blob **,
	    size_t *);
void	 ofl_store_gc_blobs_free(struct ofl_store_gc_blob *, size_t);
int	 ofl_store_gc_blob_row_drop(struct ofl_store *, int64_t);
int64_t	 ofl_store_gc_stray_frames(struct ofl_store *, int);
/* One artifact of each blob, to read its content back. */
struct ofl_store_gc_content {
	char		 id[OFL_ID_MAX + 1];
	char		*hash;		/* NULL: taken by others */
	int		 state;
};
int	 ofl_store_gc_contents(struct ofl_store *,
	    struct ofl_store_gc_content **, size_t *);
void	 ofl_store_gc_contents_free(struct ofl_store_gc_content *, size_t);
/* 1 if an artifact's content file is gone (or misnamed); its blob. */
int	 ofl_store_gc_content_gone(struct ofl_store *, const char *,
	    int64_t *);
/* Remove a blob and every artifact on it, in one transaction: 1 if so. */
int	 ofl_store_gc_remove_blob(struct ofl_store *, int64_t);
/*
 * Keep an artifact's blob up to byte good: drop the frames past it and
 * make the artifacts on it incomplete, with the hash, size and lines of
 * what is kept.  Its index rows must be gone already.
 */
int	 ofl_store_gc_truncate(struct ofl_store *, const char *, int64_t,
	    uint64_t);
/*
 * Index rows of no content: ix_blob rows of no artifact, chunks of no
 * ix_blob row, chunks past the end of their content, FTS rows of no
 * chunk.  -1 if there is no index.  clear empties the index.
 */
struct ofl_store_gc_ixcheck {
	int64_t		 blobs;
	int64_t		 chunks;
	int64_t		 past_end;
	int64_t		 fts;
	int64_t		 unmarked;	/* not indexed, below the mark */
};
int	 ofl_store_gc_index_check(struct ofl_store *,
	    struct ofl_store_gc_ixcheck *);
int	 ofl_store_gc_index_clear(struct ofl_store *);
/* The mark of what is indexed back to 0: every artifact looked at. */
int	 ofl_store_gc_index_unmark(struct ofl_store *);
/*
 * Bury up to max index rows of no artifact (what a gc killed between its
 * two files' commits left), in one transaction: the count, or -1.
 */
int64_t	 ofl_store_gc_index_sweep(struct ofl_store *, size_t);
/*
 * The files under blobs/ that no blob row names (and, with idle, that no
 * writer holds), as "ab/abcd2345" names in a NULL-terminated list (or
 * NULL).  Any other name found there goes to cb (may be NULL).
 */
char	**ofl_store_gc_orphans(struct ofl_store *, int,
	    void (*)(const char *, void *), void *);
void	 ofl_store_gc_orphans_free(char **);
/*
 * Point blob at file if the artifact then reads back with hash want: 1
 * if so, 0 if not, -1 if no transaction could begin.
 */
int	 ofl_store_gc_relink(struct ofl_store *, const char *, int64_t,
	    const char *, const char *);
/* 1 if a blob file name ("ab/ID") is that of an artifact in the store. */
int	 ofl_store_gc_names_artifact(struct ofl_store *, const char *);
/* Usage accounting: artifacts grouped by day or by label. */
enum { OFL_STATS_DAY, OFL_STATS_LABEL };
struct ofl_store_stat {
	char		*group;
	uint64_t	 artifacts;
	uint64_t	 raw;		/* bytes */
	uint64_t	 stored;	/* compressed bytes */
	uint64_t	 kept_out;	/* bytes captured but not printed */
};
int	 ofl_store_gc_stats(struct ofl_store *, int,
	    struct ofl_store_stat **, size_t *);
void	 ofl_store_gc_stats_free(struct ofl_store_stat *, size_t);

/*
 * For the notice: a one-to-three-line shape of the first max_input bytes
 * of an artifact of the given kind (0: all), at most max_out bytes,
 * appended to out.  Says so when the input was cut.  -1 if the kind has
 * no shape or nothing could be parsed.
 */
int		 ofl_schema_shape(struct ofl_reader *, int kind,
		    size_t max_input, size_t max_out, struct ofl_buf *,
		    struct ofl_buf *enums);

/*
 * gc.c: expiry by TTL and age, the size budget (least recently used
 * first), purges and checking: the policy; store-gc.c runs it.
 */
struct ofl_gc_opts {
	int		 dry_run;
	int		 ttl;		/* expire by TTL (default 1) */
	int		 budget;	/* apply the store's size budget */
	int64_t		 older_ms;	/* remove artifacts older than this */
	uint64_t	 max_size;	/* budget; 0: the store's setting */
	int64_t		 grace_ms;	/* -1: the store's setting */
	const char	**purge;	/* references to remove */
	size_t		 npurge;
	const char	*label;		/* remove all with this label */
	const char	*session;	/* remove all of this session */
	const char	*keep_session;	/* the budget keeps this session's */
	int		 all;		/* remove everything finished */
};
struct ofl_gc_report {
	int64_t		 started;
	uint64_t	 removed;	/* artifacts */
	uint64_t	 removed_bytes;	/* their raw bytes */
	uint64_t	 freed;		/* stored bytes given back */
	uint64_t	 kept;
	uint64_t	 size;		/* store size afterwards */
	uint64_t	 budget_seen;
	uint64_t	 errors;
	uint64_t	 repeated;	/* of which the one before again: a
					   full disk says so of every one */
	char		 lasterr[256];
	int		 status;	/* OFL_EXIT_* the errors call for */
	/*
	 * The budget, when it is not met without taking what it never
	 * takes: what holds the space, in one line ("budget 40 MB not
	 * met: ..."); empty when met.
	 */
	uint64_t	 max_size;
	uint64_t	 index_bytes;	/* the full-text index's pages */
	char		 unmet[512];
};
void	 ofl_gc_opts_init(struct ofl_gc_opts *);
/*
 * cb gets each removed artifact and why ("expired", "budget", ...); with
 * a NULL meta it gets an error message instead.  A dry run calls it for
 * exactly the artifacts a real run on the same store removes.  The size
 * budget takes the least recently used first, never an artifact created
 * within the grace period, pinned, of keep_session or still being
 * written, and counts what a removal frees: its content when no other
 * artifact shares it, and its share of the index.
 */
int	 ofl_gc_run(struct ofl_store *, const struct ofl_gc_opts *,
	    int (*)(const struct ofl_meta *, const char *, void *), void *,
	    struct ofl_gc_report *);
/* Pin (1) or unpin (0) an artifact: neither expiry nor the budget
 * removes a pinned one. */
int	 ofl_gc_pin(struct ofl_store *, const char *, int);
/*
 * Returns the number of problems found (and fixed, with repair).  The
 * callback gets each line, and 1 for a problem, 0 for a note (what is
 * said but no problem).
 */
int	 ofl_gc_check(struct ofl_store *, int,
	    int (*)(const char *, int, void *), void *);

/*
 * redact.c: mask common secrets in what ofl prints, a line at a time,
 * keeping line structure ("[redacted: aws-access-key]").
 */
struct ofl_redactor;
struct ofl_redactor *ofl_redactor_new(void);
void	 ofl_redactor_free(struct ofl_redactor *);
uint64_t ofl_redactor_count(struct ofl_redactor *);
/* The line for stderr that says how many were masked; NULL for none. */
const char *ofl_redactor_note(struct ofl_redactor *, char *, size_t);
/* Number each secret masked from now on: "[redacted: KIND #2]". */
void	 ofl_redactor_distinct(struct ofl_redactor *);
/* A new redactor that numbers secrets in like's sequence, if like does. */
struct ofl_redactor *ofl_redactor_new_like(struct ofl_redactor *);
/* Count n more secrets masked (by another redactor, say). */
void	 ofl_redactor_add(struct ofl_redactor *, uint64_t);
/* One line, without its newline; appends the masked line to out. */
void	 ofl_redact_line(struct ofl_redactor *, const char *, size_t,
	    struct ofl_buf *);
/* Any text: lines are masked one by one, newlines kept. */
void	 ofl_redact(struct ofl_redactor *, const char *, size_t,
	    struct ofl_buf *);
/* Whether to mask: --no-redact, else OFL_REDACT, else the store's
 * "redact" setting (read when a store is opened), else yes. */
int	 ofl_redact_wanted(void);
/* Does an identifier (password, DB_PASSWORD, api_key) name a secret? */
int	 ofl_redact_secret_key(const char *, size_t);
void	 ofl_redact_force(int);
void	 ofl_redact_store_default(int);

/*
 * offload.c: the offload rule, once.  Output over the threshold (in
 * estimated tokens) is stored and a notice printed in its place; several
 * outputs made together are offloaded, largest first, until the rest
 * fits the combined budget.
 */
#define OFL_OFFLOAD_NONE	(-1)	/* it passes as it is */
#define OFL_OFFLOAD_SIZE	0	/* over the threshold */
#define OFL_OFFLOAD_COMBINED	1	/* outputs made together */
#define OFL_OFFLOAD_BINARY	2	/* only binary items over the limit */
/* The most bytes that pass through under a threshold of tokens. */
uint64_t ofl_offload_max_bytes(uint64_t);
/* 1 if output of so many bytes is over the threshold (tokens). */
int	 ofl_offload_over(uint64_t, uint64_t);
/* Why a result of so many text bytes and a largest binary item of so
 * many is offloaded (threshold, max binary, bytes, binary). */
int	 ofl_offload_why(uint64_t, uint64_t, uint64_t, uint64_t);
/* One of the outputs made together. */
struct ofl_offload_item {
	uint64_t	 tokens;	/* what it costs as it stands */
	uint64_t	 size;		/* the largest goes first */
	int		 movable;	/* it may still be offloaded */
};
/*
 * The next item to offload so that base and the items fit the combined
 * budget: the first largest movable one; -1 when they fit or none can go.
 */
ssize_t	 ofl_offload_next(const struct ofl_offload_item *, size_t, uint64_t,
	    uint64_t);
/*
 * When storing failed: the head and tail of the output rendered safely
 * (at most hmax and tmax bytes of output) between markers, appended.
 */
void	 ofl_offload_preview(struct ofl_buf *, const void *, size_t, size_t,
	    const void *, size_t, size_t);

/*
 * mcp.c: what ofl-mcp does without I/O: the tools it adds, their argument
 * vectors, the measure of a tools/call result and its offloading.  These
 * take libjq's jv values: include <jv.h> before ofl.h to see them.
 */
#define OFL_MCP_NTOOLS	4
enum ofl_mcp_tool {
	OFL_MCP_SEARCH = 0,	/* ofl_search: ofl-search */
	OFL_MCP_EXTRACT,	/* ofl_extract: ofl-extract */
	OFL_MCP_SCHEMA,		/* ofl_schema: ofl-schema */
	OFL_MCP_LIST		/* ofl_list: ofl-search with no query */
};
/* Why a result is offloaded: as offload.c says it. */
#define OFL_MCP_WHY_SIZE	OFL_OFFLOAD_SIZE
#define OFL_MCP_WHY_COMBINED	OFL_OFFLOAD_COMBINED
#define OFL_MCP_WHY_BINARY	OFL_OFFLOAD_BINARY
/* One tools/call as the artifact records it. */
struct ofl_mcp_call {
	const char	*server;	/* label: SERVER/TOOL */
	const char	*tool;
	const char	*arguments;	/* JSON text, may be NULL */
	const char	*session;
	const char	*cwd;
	int64_t		 expires;	/* ms since the epoch, 0: never */
	int64_t		 duration_ms;
	int		 has_status;
	int		 status;	/* 1 for isError results */
	uint64_t	 threshold;	/* tokens */
	uint64_t	 combined;	/* tokens */
	uint64_t	 max_binary;	/* bytes of base64 data */
	const struct ofl_notice_opts *nopts;
	const char *const *names;	/* the added tools' names, or NULL */
	int		 has_schema;	/* the tool declares an outputSchema */
	const char	*sc_note;	/* mcp.c's own: the notice's words on it */
};
/* "ofl_search" ... for tool i, NULL past the end. */
const char	*ofl_mcp_tool_base(int);
void		 ofl_mcp_argv_free(char **);
#ifdef JV_H
/* The tools/list entry of tool i under the given name. */
jv		 ofl_mcp_tool_def(int, const char *);
/*
 * The argument vector that runs tool i (from bindir, or PATH if NULL)
 * with the call's arguments (consumed); maxbytes > 0 bounds ofl-extract.
 * NULL with OFL_EXIT_USAGE when an argument is wrong.
 */
char		**ofl_mcp_tool_argv(int, jv, const char *, long long);
/* Bytes of text in a result (text items, embedded text resources, the
 * text contents of resources/read, or structuredContent, whichever is
 * larger), and its largest binary item. */
uint64_t	 ofl_mcp_result_bytes(jv);
uint64_t	 ofl_mcp_result_binary(jv);
/*
 * Store the text of a result (consumed) and put a result carrying the
 * notice in *out; binary items over the limit are stored on their own.
 * meta (may be NULL) gets the artifact.  Returns 1, or -1 when storing
 * failed (*out then says so with a safe preview, never the raw text).
 */
int		 ofl_mcp_offload(struct ofl_store *, jv,
		    const struct ofl_mcp_call *, int, jv *, struct ofl_meta *);
#endif
/* Store bytes as an artifact of the call (a message cut short). */
int		 ofl_mcp_store_raw(struct ofl_store *,
		    const struct ofl_mcp_call *, const void *, size_t, int,
		    struct ofl_meta *);

/*
 * session.c: what a session offloaded, oldest first, a line per artifact
 * (reference, kind, size, label and command, exit status, first error
 * signature) under a line of what it saved (bytes stored against bytes
 * printed in their place); json: a JSON object per artifact, then one
 * with the totals.  Returns the number of artifacts, or -1.
 */
int	ofl_session_view(struct ofl_store *, const char *, int,
	    struct ofl_buf *);

/*
 * mcp-item.c: binary items of MCP results, stored whole with their type
 * in the label "SERVER/TOOL (TYPE MIME)", and handed back as the same
 * kind of content block.
 */
int		 ofl_mcp_b64_decode(const char *, size_t, struct ofl_buf *);
void		 ofl_mcp_b64_encode(const unsigned char *, size_t,
		    struct ofl_buf *);
void		 ofl_mcp_item_label(struct ofl_buf *, const char *,
		    const char *, const char *, const char *);
#ifdef JV_H
/*
 * The stored item a reference names as an MCP content block (image,
 * audio, or a resource with its blob) in *out: 1; 0 when the artifact is
 * not a stored item; -1 on error.
 */
int		 ofl_mcp_item_get(struct ofl_store *, const char *, jv *);
#endif

/*
 * chunk.c, more.  ofl_chunk_src() calls cb for each chunk in order;
 * title, text and member are valid during the call only (title is also
 * NUL-terminated).  cb returns 0 to go on; a non-zero value stops the
 * chunking and is returned.  Otherwise 0, or -1 with ofl_errmsg().
 * Limits on archives against decompression bombs: decompressed bytes in
 * all and members (0: the default, 1 GiB and 100,000).
 */
void	ofl_chunk_limits(uint64_t, uint64_t);

/*
 * extract.c: exact evidence from one artifact (ofl-extract): the content
 * whole, line and byte spans, lines matching a regular expression with
 * context, error blocks, an archive member, the results of a jq filter.
 * Output goes to out, cut to max_bytes; every cut is marked on a line of
 * its own with what was left out and the command that prints it.
 */
#define OFL_EXTRACT_BUDGET	4000	/* default --max-bytes */
/* Default limits of a filter or regex: CPU seconds, bytes of memory. */
#define OFL_EXTRACT_TIME	10
#define OFL_EXTRACT_MEMORY	(UINT64_C(1) << 30)
enum ofl_span_unit {
	OFL_SPAN_LINES,			/* 1-based */
	OFL_SPAN_BYTES			/* 0-based */
};
enum ofl_span_form {
	OFL_SPAN_RANGE,			/* A-B, or A alone */
	OFL_SPAN_COUNT,			/* A+N: N from A */
	OFL_SPAN_LAST,			/* -N: the last N */
	OFL_SPAN_FROM			/* A-: A to the end */
};
struct ofl_span {
	int		 unit;
	int		 form;
	uint64_t	 a;
	uint64_t	 b;		/* B, or N */
};
/* Parse a span; -1 with OFL_EXIT_USAGE if it is malformed. */
int	ofl_span_parse(const char *, int, struct ofl_span *);

enum ofl_extract_mode {
	OFL_EXTRACT_RAW = 0,		/* the content whole, or the spans */
	OFL_EXTRACT_REGEX,
	OFL_EXTRACT_ERRORS,
	OFL_EXTRACT_JQ,
	OFL_EXTRACT_TEMPLATE,		/* the lines of one log template */
	OFL_EXTRACT_ROLE		/* a snapshot's elements by role, name */
};
struct ofl_jq_arg {
	const char	*name;
	const char	*value;
	int		 json;		/* --argjson */
};
struct ofl_extract {
	int			 mode;
	const struct ofl_span	*spans;	/* RAW: what; others: scope */
	size_t			 nspans;
	const char		*member;	/* archive member, or NULL */
	const char		*regex;		/* POSIX ERE */
	int			 icase;
	unsigned		 context;
	const char		*filter;	/* jq */
	const char		*role;		/* ROLE: or NULL */
	const char		*name;		/* ROLE: a part of it, or NULL */
	int			 raw;		/* -r */
	int			 compact;	/* -c */
	const struct ofl_jq_arg	*args;
	size_t			 nargs;
	uint64_t		 skip;		/* results or blocks */
	uint64_t		 limit;		/* 0: all */
	uint64_t		 max_bytes;	/* budget, 0: none */
	int			 json;		/* JSON Lines */
	const char		*store_arg;	/* -s as given, for marks */
	int			 redact;	/* mask secrets (not in raw
						   content and bytes) */
	int			 color;		/* line numbers in color */
	unsigned		 time_limit;	/* CPU s of a filter or
						   regex, 0: none */
	uint64_t		 mem_limit;	/* bytes, 0: none */
	FILE			*out;
	void			(*warn)(void *, const char *);
	void			*warn_arg;
	const char		*tmpl;		/* TEMPLATE: its ID */
};
void	ofl_extract_init(struct ofl_extract *);
/* Check the regex, filter and arguments before any input is read. */
int	ofl_extract_check(const struct ofl_extract *);
/* 0 printed something, 1 nothing in range or matched, -1 error. */
int	ofl_extract(struct ofl_store *, const char *,
	    const struct ofl_extract *);

#endif /* OFL_H */
