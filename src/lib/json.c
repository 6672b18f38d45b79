/*
 * json.c: a streaming (push) JSON parser.
 *
 * Input arrives in pieces of any size; a token may be split anywhere,
 * even inside an escape or a UTF-8 sequence.  Nothing recurses: the
 * containers being parsed are kept in a stack on the heap, so memory is
 * bounded by the nesting depth (plus the keys on the current path) and
 * by the longest single string or number.
 *
 * The grammar is RFC 8259, strictly: no comments, no trailing commas, no
 * single quotes, no leading zeros, no NaN.  A UTF-8 byte order mark at
 * the very start is skipped (RFC 8259, section 8.1).  In multi mode a
 * sequence of top-level values is accepted (NDJSON, or values separated
 * by whitespace or nothing at all, as jq reads them).
 *
 * Strings are decoded: escapes are resolved and surrogate pairs joined.
 * Invalid UTF-8 inside a string and lone surrogates (\uD800 without its
 * pair) are each replaced by U+FFFD, as jq does, so that keys, paths and
 * values stay valid UTF-8 and agree with what a jq filter sees.
 *
 * Strings and numbers that lie whole inside one fed buffer are handed to
 * the callback in place (no copy); event strings are therefore not
 * NUL-terminated: use len. *
 * It is ofl's one JSON parser: schema.c, the JSON chunker and JSON
 * detection (fmt-json.c, with OFL_JSON_CONTAINERS and OFL_JSON_QUIET)
 * run it; the notice's skim of the first values shares its lexing
 * (ofl_json_skip_ws, ofl_json_skip_string) but not its grammar, as it
 * reads on past what it cannot parse.
 */

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

/* Where the parser is between tokens. */
enum {
	ST_TOP,		/* before a top-level value */
	ST_TOP_AFTER,	/* after the top-level value (single mode) */
	ST_VALUE,	/* a value is required: after ':' or ',' in an array */
	ST_VALUE_OR_END,	/* after '[' */
	ST_KEY,		/* a key is required: after ',' in an object */
	ST_KEY_OR_END,	/* after '{' */
	ST_COLON,	/* after a key */
	ST_AFTER,	/* after a value inside a container */
	ST_STRING,
	ST_NUMBER,
	ST_LITERAL,
	ST_ERROR,
	ST_STOPPED,
	ST_FINISHED
};

/* Inside a string. */
enum {
	S_NORM,		/* plain characters */
	S_ESC,		/* after a backslash */
	S_HEX,		/* inside \uXXXX */
	S_HI,		/* after a high surrogate escape */
	S_HI_BS,	/* after a high surrogate escape and a backslash */
	S_UTF8		/* inside a multi-byte sequence split between buffers */
};

/* Inside a number. */
enum {
	N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP
};

struct frame {
	uint64_t	 idx;		/* array: index of the current element */
	uint64_t	 off;		/* where the container starts */
	uint64_t	 line;
	size_t		 keyoff;	/* object: current key in keys */
	size_t		 keylen;
	int		 obj;
};

struct ofl_json {
	int		 multi;
	int		 containers;	/* top-level values are containers */
	int		 quiet;		/* leave ofl_errmsg() alone */
	int		 (*cb)(struct ofl_json *, const struct ofl_json_event *,
			    void *);
	void		*arg;

	int		 st;
	uint64_t	 base;		/* offset of the current buffer */
	uint64_t	 line;

	struct frame	*stack;
	size_t		 depth;
	size_t		 cap;
	struct ofl_buf	 keys;		/* keys on the current path */
	size_t		 cdepth;	/* depth of the event being delivered */

	/* The token being read. */
	struct ofl_buf	 tok;
	size_t		 seg;		/* start of its bytes in this buffer */
	uint64_t	 voff;		/* where it starts */
	uint64_t	 vline;
	int		 iskey;
	int		 sst;		/* S_* */
	int		 nst;		/* N_* */
	int		 integer;
	unsigned int	 hex;
	int		 nhex;
	unsigned int	 hi;		/* pending high surrogate */
	unsigned char	 u8[4];
	size_t		 nu8;
	const char	*lit;		/* literal being matched */
	size_t		 litpos;
	int		 littype;
	int		 seen;		/* a top-level value began */
};

/*
 * Byte classes.  In strings: 0 plain, 1 needs attention ('"', '\\',
 * control characters, non-ASCII).  Whitespace: 1 for RFC 8259 space.
 */
static unsigned char strclass[256];
static unsigned char wsclass[256];
static int classes_ready;

static void	init_classes(void);
static int	emit(struct ofl_json *, int, const char *, size_t, int,
		    size_t, uint64_t, uint64_t, uint64_t);
static int	fail(struct ofl_json *, uint64_t, const char *, int);
static int	push(struct ofl_json *, int, uint64_t);
static int	value_done(struct ofl_json *);
static int	begin_value(struct ofl_json *, const unsigned char *, size_t,
		    size_t);
static int	close_container(struct ofl_json *, int, uint64_t);
static int	utf8_seq(const unsigned char *, size_t, size_t *);
static void	add_utf8(struct ofl_buf *, unsigned int);
static int	lex_string(struct ofl_json *, const unsigned char *, size_t,
		    size_t *);
static int	string_done(struct ofl_json *, const char *, size_t,
		    uint64_t);
static int	lex_number(struct ofl_json *, const unsigned char *, size_t,
		    size_t *);
static int	number_done(struct ofl_json *, const unsigned char *, size_t,
		    uint64_t);
static int	key_is_ident(const char *, size_t);

#define FFFD	"\xef\xbf\xbd"

static void
init_classes(void)
{
	if (classes_ready)
		return;
	int c;

	for (c = 0; c < 256; c++)
		strclass[c] = (c < 0x20 || c >= 0x80 || c == '"' ||
		    c == '\\');
	wsclass[' '] = wsclass['\t'] = wsclass['\n'] = wsclass['\r'] = 1;
	classes_ready = 1;
}

/*
 * The lexing every JSON reader of ofl shares: the push parser below, and
 * the skims that look at the first bytes of a value without building it.
 */
static inline size_t
span_plain(const unsigned char *b, size_t n, size_t i)
{
	while (i < n && strclass[b[i]] == 0)
		i++;
	return i;
}

size_t
ofl_json_span_plain(const unsigned char *b, size_t n, size_t i)
{
	init_classes();
	return span_plain(b, n, i);
}

size_t
ofl_json_skip_ws(const unsigned char *b, size_t n, size_t i)
{
	init_classes();
	while (i < n && wsclass[b[i]])
		i++;
	return i;
}

int
ofl_json_skip_string(const unsigned char *b, size_t n, size_t *ip)
{
	size_t i = *ip + 1;

	init_classes();
	for (;;) {
		i = span_plain(b, n, i);
		if (i >= n)
			break;
		if (b[i] == '"') {
			*ip = i + 1;
			return 0;
		}
		i += b[i] == '\\' ? 2 : 1;
	}
	*ip = n;
	return -1;
}

struct ofl_json *
ofl_json_new(int flags, int (*cb)(struct ofl_json *,
    const struct ofl_json_event *, void *), void *arg)
{
	struct ofl_json *p;

	init_classes();
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "out of memory");
		return NULL;
	}
	p->multi = (flags & OFL_JSON_MULTI) != 0;
	p->containers = (flags & OFL_JSON_CONTAINERS) != 0;
	p->quiet = (flags & OFL_JSON_QUIET) != 0;
	p->cb = cb;
	p->arg = arg;
	p->st = ST_TOP;
	p->line = 1;
	ofl_buf_init(&p->keys);
	ofl_buf_init(&p->tok);
	return p;
}

void
ofl_json_free(struct ofl_json *p)
{
	if (p == NULL)
		return;
	free(p->stack);
	ofl_buf_free(&p->keys);
	ofl_buf_free(&p->tok);
	free(p);
}

static int
emit(struct ofl_json *p, int type, const char *s, size_t len, int integer,
    size_t depth, uint64_t off, uint64_t line, uint64_t end)
{
	struct ofl_json_event ev;

	ev.type = type;
	ev.str = s;
	ev.len = len;
	ev.integer = integer;
	ev.depth = depth;
	ev.offset = off;
	ev.line = line;
	ev.end = end;
	p->cdepth = depth;
	if (p->cb != NULL && p->cb(p, &ev, p->arg) != 0) {
		p->st = ST_STOPPED;
		return 1;
	}
	return 0;
}

static int
fail(struct ofl_json *p, uint64_t off, const char *what, int c)
{
	if (p->quiet)
		;
	else if (c < 0)
		ofl_seterr(OFL_EXIT_FAIL,
		    "invalid JSON at byte %llu (line %llu): %s",
		    (unsigned long long)off, (unsigned long long)p->line, what);
	else if (c > 0x20 && c < 0x7f)
		ofl_seterr(OFL_EXIT_FAIL,
		    "invalid JSON at byte %llu (line %llu): %s '%c'",
		    (unsigned long long)off, (unsigned long long)p->line, what,
		    c);
	else
		ofl_seterr(OFL_EXIT_FAIL,
		    "invalid JSON at byte %llu (line %llu): %s (byte 0x%02x)",
		    (unsigned long long)off, (unsigned long long)p->line, what,
		    c);
	p->st = ST_ERROR;
	return -1;
}

static int
push(struct ofl_json *p, int obj, uint64_t off)
{
	struct frame *f;
	size_t ncap;

	if (p->depth == p->cap) {
		ncap = p->cap ? p->cap * 2 : 64;
		f = realloc(p->stack, ncap * sizeof(*f));
		if (f == NULL) {
			ofl_seterr(OFL_EXIT_FAIL, "out of memory");
			p->st = ST_ERROR;
			return -1;
		}
		p->stack = f;
		p->cap = ncap;
	}
	f = &p->stack[p->depth++];
	f->idx = 0;
	f->off = off;
	f->line = p->line;
	f->keyoff = p->keys.len;
	f->keylen = 0;
	f->obj = obj;
	return 0;
}

/* A value is complete: decide what comes next. */
static int
value_done(struct ofl_json *p)
{
	if (p->depth == 0)
		p->st = p->multi ? ST_TOP : ST_TOP_AFTER;
	else
		p->st = ST_AFTER;
	return 0;
}

static int
close_container(struct ofl_json *p, int obj, uint64_t off)
{
	struct frame *f;

	f = &p->stack[--p->depth];
	p->keys.len = f->keyoff;
	if (emit(p, obj ? OFL_JSON_OBJECT_END : OFL_JSON_ARRAY_END, NULL, 0,
	    0, p->depth, f->off, f->line, off + 1))
		return 1;
	return value_done(p);
}

/* Start a value whose first byte is b[i]. */
static int
begin_value(struct ofl_json *p, const unsigned char *b, size_t n, size_t i)
{
	uint64_t off = p->base + i;
	int c = b[i];

	if (p->containers && p->depth == 0 && c != '{' && c != '[')
		return fail(p, off, "expected an object or an array, got", c);
	switch (c) {
	case '{':
	case '[':
		if (emit(p, c == '{' ? OFL_JSON_OBJECT_BEGIN :
		    OFL_JSON_ARRAY_BEGIN, NULL, 0, 0, p->depth, off, p->line,
		    0))
			return 1;
		if (push(p, c == '{', off) == -1)
			return -1;
		p->st = c == '{' ? ST_KEY_OR_END : ST_VALUE_OR_END;
		return 0;
	case '"':
		p->st = ST_STRING;
		p->iskey = 0;
		break;
	case '-':
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		p->st = ST_NUMBER;
		p->nst = c == '-' ? N_MINUS : c == '0' ? N_ZERO : N_INT;
		p->integer = 1;
		break;
	case 't':
		p->lit = "true";
		p->littype = OFL_JSON_TRUE;
		goto literal;
	case 'f':
		p->lit = "false";
		p->littype = OFL_JSON_FALSE;
		goto literal;
	case 'n':
		p->lit = "null";
		p->littype = OFL_JSON_NULL;
	literal:
		p->st = ST_LITERAL;
		p->litpos = 1;
		break;
	default:
		return fail(p, off, "unexpected character", c);
	}
	p->voff = off;
	p->vline = p->line;
	p->seg = c == '"' ? i + 1 : i;
	p->sst = S_NORM;
	p->hi = 0;
	p->tok.len = 0;
	return 0;
}

/*
 * Check a UTF-8 sequence starting with a byte >= 0x80.  Returns its
 * length if complete and valid, -1 if valid so far but cut by the end of
 * the buffer, 0 if invalid, with *bad set to the length of the maximal
 * invalid prefix (each one becomes one U+FFFD).
 */
static int
utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned int lo = 0x80, hi = 0xbf;
	int c = s[0], need, k;

	if (c < 0xc2 || c > 0xf4) {
		*bad = 1;
		return 0;
	}
	need = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (k = 1; k < need; k++) {
		if ((size_t)k >= n)
			return -1;
		if (s[k] < lo || s[k] > hi) {
			*bad = k;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need;
}

static void
add_utf8(struct ofl_buf *b, unsigned int cp)
{
	char u[4];

	if (cp < 0x80) {
		ofl_buf_addc(b, cp);
		return;
	}
	if (cp < 0x800) {
		u[0] = 0xc0 | (cp >> 6);
		u[1] = 0x80 | (cp & 0x3f);
		ofl_buf_add(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = 0xe0 | (cp >> 12);
		u[1] = 0x80 | ((cp >> 6) & 0x3f);
		u[2] = 0x80 | (cp & 0x3f);
		ofl_buf_add(b, u, 3);
	} else {
		u[0] = 0xf0 | (cp >> 18);
		u[1] = 0x80 | ((cp >> 12) & 0x3f);
		u[2] = 0x80 | ((cp >> 6) & 0x3f);
		u[3] = 0x80 | (cp & 0x3f);
		ofl_buf_add(b, u, 4);
	}
}

static int
string_done(struct ofl_json *p, const char *s, size_t len, uint64_t end)
{
	struct frame *f;

	if (p->iskey) {
		f = &p->stack[p->depth - 1];
		p->keys.len = f->keyoff;
		ofl_buf_add(&p->keys, s, len);
		ofl_buf_addc(&p->keys, '\0');
		f->keylen = len;
		p->st = ST_COLON;
		return 0;
	}
	if (emit(p, OFL_JSON_STRING, s, len, 0, p->depth, p->voff, p->vline,
	    end))
		return 1;
	return value_done(p);
}

/*
 * The string lexer: lex_string() hands each state to its helper.  A
 * helper returns LEX_MORE while the string goes on, else what lex_string
 * returns; it moves *ip past what it used.
 */
#define LEX_MORE	2

/* Plain characters up to a quote, a backslash or something to check. */
static int
str_plain(struct ofl_json *p, const unsigned char *b, size_t n, size_t *ip)
{
	struct ofl_buf *t = &p->tok;
	size_t i = span_plain(b, n, *ip), bad;
	int c, r;

	*ip = i;
	if (i == n)
		return LEX_MORE;
	c = b[i];
	if (c == '"') {
		*ip = i + 1;
		if (t->len == 0)
			return string_done(p, (const char *)b + p->seg,
			    i - p->seg, p->base + i + 1);
		ofl_buf_add(t, b + p->seg, i - p->seg);
		return string_done(p, t->data, t->len, p->base + i + 1);
	}
	if (c == '\\') {
		ofl_buf_add(t, b + p->seg, i - p->seg);
		p->sst = S_ESC;
		*ip = i + 1;
		return LEX_MORE;
	}
	if (c < 0x20)
		return fail(p, p->base + i, "control character in string", c);
	r = utf8_seq(b + i, n - i, &bad);
	if (r > 0) {
		*ip = i + r;
		return LEX_MORE;
	}
	ofl_buf_add(t, b + p->seg, i - p->seg);
	if (r < 0) {
		/* Cut by the end of the buffer. */
		p->nu8 = n - i;
		memcpy(p->u8, b + i, p->nu8);
		p->sst = S_UTF8;
		p->seg = n;
		*ip = n;
		return LEX_MORE;
	}
	ofl_buf_add(t, FFFD, 3);
	*ip = i + bad;
	p->seg = *ip;
	return LEX_MORE;
}

/* The character after a backslash. */
static int
str_escape(struct ofl_json *p, const unsigned char *b, size_t *ip)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	int c = b[(*ip)++];

	if (c == 'u') {
		p->sst = S_HEX;
		p->hex = 0;
		p->nhex = 0;
		return LEX_MORE;
	}
	if (c == '\0' || (e = strchr(from, c)) == NULL)
		return fail(p, p->base + *ip - 1, "invalid escape in string",
		    c);
	ofl_buf_addc(&p->tok, to[e - from]);
	p->sst = S_NORM;
	p->seg = *ip;
	return LEX_MORE;
}

/* A digit of \uXXXX; the code point when it is the fourth. */
static int
str_hex(struct ofl_json *p, const unsigned char *b, size_t *ip)
{
	struct ofl_buf *t = &p->tok;
	unsigned int cp;
	int c = b[*ip];

	if (c >= '0' && c <= '9')
		p->hex = p->hex << 4 | (c - '0');
	else if (c >= 'a' && c <= 'f')
		p->hex = p->hex << 4 | (c - 'a' + 10);
	else if (c >= 'A' && c <= 'F')
		p->hex = p->hex << 4 | (c - 'A' + 10);
	else
		return fail(p, p->base + *ip, "invalid \\u escape in string",
		    c);
	(*ip)++;
	if (++p->nhex < 4)
		return LEX_MORE;
	cp = p->hex;
	p->sst = S_NORM;
	p->seg = *ip;
	if (p->hi != 0) {
		if (cp >= 0xdc00 && cp <= 0xdfff) {
			add_utf8(t, 0x10000 + ((p->hi - 0xd800) << 10) +
			    (cp - 0xdc00));
			p->hi = 0;
			return LEX_MORE;
		}
		ofl_buf_add(t, FFFD, 3);
		p->hi = 0;
	}
	if (cp >= 0xd800 && cp <= 0xdbff) {
		p->hi = cp;
		p->sst = S_HI;
	} else if (cp >= 0xdc00 && cp <= 0xdfff)
		ofl_buf_add(t, FFFD, 3);
	else
		add_utf8(t, cp);
	return LEX_MORE;
}

/* After a high surrogate escape: "\u" for its low half, or U+FFFD. */
static int
str_surrogate(struct ofl_json *p, const unsigned char *b, size_t *ip)
{
	int want = p->sst == S_HI ? '\\' : 'u';

	if (b[*ip] == want) {
		p->sst = p->sst == S_HI ? S_HI_BS : S_HEX;
		p->hex = 0;
		p->nhex = 0;
		(*ip)++;
		return LEX_MORE;
	}
	ofl_buf_add(&p->tok, FFFD, 3);
	p->hi = 0;
	if (p->sst == S_HI) {
		p->sst = S_NORM;
		p->seg = *ip;
	} else
		p->sst = S_ESC;
	return LEX_MORE;
}

/* A UTF-8 sequence split between buffers, a byte at a time. */
static int
str_utf8(struct ofl_json *p, const unsigned char *b, size_t *ip)
{
	size_t bad;
	int r;

	p->u8[p->nu8++] = b[*ip];
	r = utf8_seq(p->u8, p->nu8, &bad);
	if (r < 0) {
		(*ip)++;
		return LEX_MORE;
	}
	if (r > 0) {
		ofl_buf_add(&p->tok, p->u8, p->nu8);
		(*ip)++;
	} else
		ofl_buf_add(&p->tok, FFFD, 3);	/* redo b[*ip] */
	p->sst = S_NORM;
	p->seg = *ip;
	return LEX_MORE;
}

/*
 * Read string bytes from b[*ip].  Returns 0 when the string is done or
 * the buffer is used up (then the state stays ST_STRING), 1 if the
 * callback stopped, -1 on error.
 */
static int
lex_string(struct ofl_json *p, const unsigned char *b, size_t n, size_t *ip)
{
	size_t i = *ip;
	int r = LEX_MORE;

	while (i < n && r == LEX_MORE) {
		switch (p->sst) {
		case S_NORM:
			r = str_plain(p, b, n, &i);
			break;
		case S_ESC:
			r = str_escape(p, b, &i);
			break;
		case S_HEX:
			r = str_hex(p, b, &i);
			break;
		case S_HI:
		case S_HI_BS:
			r = str_surrogate(p, b, &i);
			break;
		case S_UTF8:
			r = str_utf8(p, b, &i);
			break;
		}
	}
	if (r == -1)
		return -1;
	/* Done, or the buffer ends inside the string: feed keeps the rest. */
	*ip = r == LEX_MORE ? n : i;
	return r == LEX_MORE ? 0 : r;
}

static int
number_done(struct ofl_json *p, const unsigned char *b, size_t i,
    uint64_t end)
{
	struct ofl_buf *t = &p->tok;

	if (p->nst != N_ZERO && p->nst != N_INT && p->nst != N_FRAC &&
	    p->nst != N_EXP)
		return fail(p, end, "incomplete number",
		    b != NULL ? b[i] : -1);
	if (b != NULL && t->len == 0)
		return emit(p, OFL_JSON_NUMBER, (const char *)b + p->seg,
		    i - p->seg, p->integer, p->depth, p->voff, p->vline, end) ?
		    1 : value_done(p);
	if (b != NULL)
		ofl_buf_add(t, b + p->seg, i - p->seg);
	if (emit(p, OFL_JSON_NUMBER, t->data, t->len, p->integer, p->depth,
	    p->voff, p->vline, end))
		return 1;
	return value_done(p);
}

/* Read number bytes; like lex_string, but the end is the first non-number
 * byte, which is left for the caller. */
static int
lex_number(struct ofl_json *p, const unsigned char *b, size_t n, size_t *ip)
{
	size_t i = *ip;
	int c;

	while (i < n) {
		c = b[i];
		if (c >= '0' && c <= '9') {
			switch (p->nst) {
			case N_MINUS:
				p->nst = c == '0' ? N_ZERO : N_INT;
				break;
			case N_ZERO:
				return fail(p, p->base + i,
				    "leading zero in number", c);
			case N_DOT:
				p->nst = N_FRAC;
				break;
			case N_E:
			case N_ESIGN:
				p->nst = N_EXP;
				break;
			}
			i++;
			while (i < n && b[i] >= '0' && b[i] <= '9' &&
			    p->nst != N_ZERO)
				i++;
			continue;
		}
		switch (c) {
		case '.':
			if (p->nst != N_ZERO && p->nst != N_INT)
				return fail(p, p->base + i, "invalid number",
				    c);
			p->nst = N_DOT;
			p->integer = 0;
			i++;
			continue;
		case 'e':
		case 'E':
			if (p->nst != N_ZERO && p->nst != N_INT &&
			    p->nst != N_FRAC)
				return fail(p, p->base + i, "invalid number",
				    c);
			p->nst = N_E;
			p->integer = 0;
			i++;
			continue;
		case '+':
		case '-':
			if (p->nst != N_E)
				return fail(p, p->base + i, "invalid number",
				    c);
			p->nst = N_ESIGN;
			i++;
			continue;
		}
		*ip = i;
		return number_done(p, b, i, p->base + i);
	}
	*ip = n;
	return 0;
}

int
ofl_json_feed(struct ofl_json *p, const void *buf, size_t n)
{
	const unsigned char *b = buf;
	struct frame *f;
	size_t i = 0;
	int c, r;

	switch (p->st) {
	case ST_ERROR:
		return -1;
	case ST_STOPPED:
		return 1;
	case ST_FINISHED:
		ofl_seterr(OFL_EXIT_FAIL, "JSON parser fed after its end");
		return -1;
	}
	p->seg = 0;
	while (i < n) {
		switch (p->st) {
		case ST_STRING:
			r = lex_string(p, b, n, &i);
			if (r != 0)
				goto out;
			continue;
		case ST_NUMBER:
			r = lex_number(p, b, n, &i);
			if (r != 0)
				goto out;
			continue;
		case ST_LITERAL:
			if (b[i] != (unsigned char)p->lit[p->litpos]) {
				r = fail(p, p->base + i, "invalid literal",
				    b[i]);
				goto out;
			}
			i++;
			if (p->lit[++p->litpos] != '\0')
				continue;
			if (p->littype == -1) {		/* byte order mark */
				p->st = ST_TOP;
				continue;
			}
			if (emit(p, p->littype, NULL, 0, 0, p->depth, p->voff,
			    p->vline, p->base + i)) {
				r = 1;
				goto out;
			}
			value_done(p);
			continue;
		}

		/* Between tokens: skip whitespace, counting lines. */
		while (i < n && wsclass[b[i]]) {
			if (b[i] == '\n')
				p->line++;
			i++;
		}
		if (i == n)
			break;
		c = b[i];
		r = 0;
		switch (p->st) {
		case ST_TOP:
			if (c == 0xef && p->base + i == 0) {
				p->st = ST_LITERAL;
				p->lit = "\xef\xbb\xbf";
				p->litpos = 1;
				p->littype = -1;
				i++;
				continue;
			}
			p->seen = 1;
			/* FALLTHROUGH */
		case ST_VALUE:
			r = begin_value(p, b, n, i);
			break;
		case ST_VALUE_OR_END:
			if (c == ']')
				r = close_container(p, 0, p->base + i);
			else
				r = begin_value(p, b, n, i);
			break;
		case ST_KEY_OR_END:
			if (c == '}') {
				r = close_container(p, 1, p->base + i);
				break;
			}
			/* FALLTHROUGH */
		case ST_KEY:
			if (c != '"') {
				r = fail(p, p->base + i,
				    "expected a string key, got", c);
				break;
			}
			p->st = ST_STRING;
			p->iskey = 1;
			p->sst = S_NORM;
			p->hi = 0;
			p->seg = i + 1;
			p->tok.len = 0;
			break;
		case ST_COLON:
			if (c != ':')
				r = fail(p, p->base + i,
				    "expected ':' after key, got", c);
			else
				p->st = ST_VALUE;
			break;
		case ST_AFTER:
			f = &p->stack[p->depth - 1];
			if (c == ',') {
				if (f->obj)
					p->st = ST_KEY;
				else {
					f->idx++;
					p->st = ST_VALUE;
				}
			} else if (c == (f->obj ? '}' : ']'))
				r = close_container(p, f->obj, p->base + i);
			else
				r = fail(p, p->base + i, f->obj ?
				    "expected ',' or '}', got" :
				    "expected ',' or ']', got", c);
			break;
		case ST_TOP_AFTER:
			r = fail(p, p->base + i,
			    "unexpected data after the top-level value", c);
			break;
		}
		if (r != 0)
			goto out;
		i++;
	}
	/* A token continues in the next buffer: keep its bytes. */
	if ((p->st == ST_NUMBER || (p->st == ST_STRING && p->sst == S_NORM)) &&
	    p->seg < n)
		ofl_buf_add(&p->tok, b + p->seg, n - p->seg);
	r = 0;
out:
	p->base += r == 0 ? n : i;
	return r;
}

int
ofl_json_finish(struct ofl_json *p)
{
	int r = 0;

	switch (p->st) {
	case ST_ERROR:
		return -1;
	case ST_STOPPED:
		return 1;
	case ST_FINISHED:
		return 0;
	case ST_TOP_AFTER:
		break;
	case ST_TOP:
		if (!p->multi && !p->seen)
			return fail(p, p->base, "no value (empty input)", -1);
		break;
	case ST_NUMBER:
		if (p->depth == 0) {
			r = number_done(p, NULL, 0, p->base);
			if (r != 0)
				return r;
			break;
		}
		/* FALLTHROUGH */
	default:
		return fail(p, p->base, p->st == ST_STRING ?
		    "unterminated string" : "unexpected end of input", -1);
	}
	p->st = ST_FINISHED;
	return 0;
}

static int
key_is_ident(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		if ((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_')
			continue;
		if (i > 0 && s[i] >= '0' && s[i] <= '9')
			continue;
		return 0;
	}
	return 1;
}

void
ofl_json_path(struct ofl_json *p, struct ofl_buf *out)
{
	struct frame *f;
	const char *k;
	size_t i;

	if (p->cdepth == 0 || p->cdepth > p->depth) {
		ofl_buf_addc(out, '.');
		return;
	}
	for (i = 0; i < p->cdepth; i++) {
		f = &p->stack[i];
		if (!f->obj) {
			if (i == 0)
				ofl_buf_addc(out, '.');
			ofl_buf_addf(out, "[%llu]", (unsigned long long)f->idx);
			continue;
		}
		k = p->keys.data + f->keyoff;
		if (key_is_ident(k, f->keylen)) {
			ofl_buf_addc(out, '.');
			ofl_buf_add(out, k, f->keylen);
		} else {
			if (i == 0)
				ofl_buf_addc(out, '.');
			ofl_buf_addc(out, '[');
			ofl_buf_add_json_str(out, k, f->keylen);
			ofl_buf_addc(out, ']');
		}
	}
}

const char *
ofl_json_key(struct ofl_json *p, size_t *len)
{
	struct frame *f;

	if (p->cdepth == 0 || p->cdepth > p->depth)
		return NULL;
	f = &p->stack[p->cdepth - 1];
	if (!f->obj)
		return NULL;
	if (len != NULL)
		*len = f->keylen;
	return p->keys.data + f->keyoff;
}

int
ofl_json_where(const struct ofl_json *p)
{
	switch (p->st) {
	case ST_TOP:
	case ST_TOP_AFTER:
	case ST_FINISHED:
		return OFL_JSON_AT_TOP;
	case ST_NUMBER:
		if (p->nst == N_ZERO || p->nst == N_INT || p->nst == N_FRAC ||
		    p->nst == N_EXP)
			return OFL_JSON_IN_NUMBER;
		break;
	}
	return OFL_JSON_IN_VALUE;
}
