/*
 * extract-jq.c: ofl-extract --jq: a jq filter over the artifact (or the lines
 * of a scope), through libjq.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jq.h>
#include <jv.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "extract.h"
#include "banned.h"

#define JQ_ERRORS_SAID	3	/* run-time errors said one a line */
#define COUNT_MS	1000	/* results counted past the budget */
#define PATHS_MAX	100000	/* results of one input with --json */

/*
 * jq filters, through libjq.  A filter runs with an empty environment
 * ($ENV and env are {}; ~/.jq is not read) and no module search path;
 * import and include are refused before compiling, since a module's
 * "search" metadata would otherwise reach the file system.
 */

struct jqin {
	struct ex	*x;
	int		 ndjson;	/* a value per line */
	int		 lines;		/* feed the scope's lines */
	struct lr	 lr;
	int		 lr_open;
	size_t		 span;
	jv_parser	*parser;
	char		*buf;
	int		 eof;
	uint64_t	 line;		/* of the last value */
	uint64_t	 bad;		/* lines that are not JSON */
	uint64_t	 bad_first;
	char		 bad_why[160];	/* what jq said of it */
	uint64_t	 values;	/* parsed so far */
	struct ofl_records *rec;	/* a table, CSV or TSV, or NULL */
	struct ofl_buf	 recbuf;
	jv		*keys;		/* the header's names, made once */
	size_t		 nkeys;
	int		 first;		/* first byte not blank, or 0 */
	int		 failed;
	char		 errmsg[512];
};

struct jqrun {
	struct ex	*x;
	jq_state	*jq;
	jq_state	*jqp;		/* path(F) for --json, or NULL */
	struct jqin	 in;
	int		 flags;		/* jv_dump flags */
	uint64_t	 results;	/* all, --skip included */
	uint64_t	 first_hidden;	/* the first result not shown */
	int		 cut;
	int64_t		 cut_ms;	/* when the budget was full */
	int		 stopped;	/* not run to its end (jq_count()) */
	uint64_t	 errors;
	int		 compiling;	/* its messages: the error, one line */
	char		 compile_msg[256];
};

static int
is_word(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static int
jq_word(const char *s, const char *w)
{
	size_t	n = strlen(w);

	return strncmp(s, w, n) == 0 && !is_word(s[n]);
}

static const char *
jq_skip_space(const char *s)
{
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (*s != '#')
			return s;
		while (*s != '\0' && *s != '\n')
			s++;
	}
}

/*
 * A module directive, import or include: the word a filter starts with,
 * or NULL.  jq's grammar allows these only at the very start of a program
 * (module first, then imports), so a filter that does not begin with one
 * of the three words cannot hold any, and the word is looked for only
 * there, after blanks and comments: a string or a key that merely says
 * "import" elsewhere is left alone.  A module directive is refused too,
 * as nothing can follow it but imports or an expression that does
 * without.
 */
static const char *
jq_directive(const char *f)
{
	static const char	*words[] = { "module", "import", "include",
				    NULL };
	const char		*s = jq_skip_space(f);
	int			 i;

	for (i = 0; words[i] != NULL; i++)
		if (jq_word(s, words[i]))
			return words[i];
	return NULL;
}

static int
jq_refuse(const char *f)
{
	const char	*w;

	if ((w = jq_directive(f)) == NULL)
		return 0;
	ofl_seterr(OFL_EXIT_USAGE, "jq: error: %s is not allowed: filters run "
	    "without access to the file system (modules, import and include "
	    "are refused)", w);
	return -1;
}

/* s into buf, its lines joined by one space, cut to fit. */
static void
one_line(char *buf, size_t size, const char *s)
{
	size_t	n = 0;

	for (; *s != '\0' && n + 1 < size; s++) {
		if (*s == '\n' || *s == '\r') {
			if (n > 0 && buf[n - 1] != ' ' && s[1] != '\0')
				buf[n++] = ' ';
		} else
			buf[n++] = *s;
	}
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
}

static void
jq_err_cb(void *arg, jv msg)
{
	struct jqrun	*j = arg;
	const char	*s;

	msg = jq_format_error(msg);
	if (jv_get_kind(msg) == JV_KIND_STRING) {
		s = jv_string_value(msg);
		/*
		 * Compiling, the first message is the error, on one line
		 * ("...line 1:" and the filter jq puts under it); the
		 * others and jq's count at the end ("jq: 1 compile error")
		 * are left out.
		 */
		if (j->compiling) {
			if (j->compile_msg[0] == '\0')
				one_line(j->compile_msg, sizeof j->compile_msg,
				    s);
		} else
			ofl_extract_warnf(j->x, "%s", s);
	}
	jv_free(msg);
}

/* What jq said of a line that is not JSON (v, freed), into in. */
static void
bad_why(struct jqin *in, jv v)
{
	jv	 msg;
	char	*p;

	in->bad_why[0] = '\0';
	if (jv_invalid_has_msg(jv_copy(v))) {
		msg = jv_invalid_get_msg(v);
		if (jv_get_kind(msg) == JV_KIND_STRING)
			one_line(in->bad_why, sizeof in->bad_why,
			    jv_string_value(msg));
		jv_free(msg);
		/* Not the line again: it was named by its number. */
		if ((p = strstr(in->bad_why, " (while parsing")) != NULL)
			*p = '\0';
	} else
		jv_free(v);
}

/*
 * The lines of NDJSON that are not JSON, said: a warning, or an error
 * (-1) when no line is JSON, which is not a filter that matched nothing.
 */
static int
bad_said(struct ex *x, const struct jqin *in)
{
	const char	*sep = in->bad_why[0] != '\0' ? ": " : "";

	if (in->ndjson && in->bad > 0 && in->values == 0) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: no line is JSON (first: "
		    "line %" PRIu64 "%s%s)", x->id, in->bad_first, sep,
		    in->bad_why);
		return -1;
	}
	if (in->bad > 0)
		ofl_extract_warnf(x, "ofl:%s: %" PRIu64 " line%s not JSON "
		    "(first: line %" PRIu64 "%s%s): skipped", x->id, in->bad,
		    in->bad > 1 ? "s are" : " is", in->bad_first, sep,
		    in->bad_why);
	return 0;
}

/* Compile filter into j's state; its error said in one line. */
static int
jq_compile_filter(struct jqrun *j, const char *filter, jv args)
{
	int	compiled;

	j->compiling = 1;
	compiled = jq_compile_args(j->jq, filter, args);
	j->compiling = 0;
	if (compiled)
		return 0;
	ofl_seterr(OFL_EXIT_USAGE, "%s", j->compile_msg[0] != '\0' ?
	    j->compile_msg : "jq: compile error");
	return -1;
}

static void
jq_quiet_cb(void *arg, jv msg)
{
	(void)arg;
	jv_free(msg);
}

/*
 * A jq state with its callbacks (libjq calls a debug callback it was
 * never given), the memory handler and no module search path; NULL if
 * none could be made.
 */
static jq_state *
jq_new(jq_msg_cb err, jq_msg_cb debug, void *arg)
{
	jq_state	*jq;

	if ((jq = jq_init()) == NULL)
		return NULL;
	jq_set_error_cb(jq, err, arg);
	jq_set_debug_cb(jq, debug, arg);
	if (ofl_extract_oom_fn() != NULL)
		jq_set_nomem_handler(jq, ofl_extract_oom_fn(), NULL);
	jq_set_attr(jq, jv_string("JQ_LIBRARY_PATH"), jv_array());
	return jq;
}

/* debug: the value on stderr as jq prints it, ["DEBUG:",VALUE] a line. */
static void
jq_debug_cb(void *arg, jv v)
{
	struct jqrun	*j = arg;
	jv		 s;

	s = jv_dump_string(JV_ARRAY(jv_string("DEBUG:"), v), 0);
	if (jv_get_kind(s) == JV_KIND_STRING)
		ofl_extract_warnf(j->x, "jq: %s", jv_string_value(s));
	jv_free(s);
}

/* The next chunk of bytes of the scope; 0 at the end. */
static ssize_t
jqin_chunk(struct jqin *in)
{
	struct ex	*x = in->x;
	struct line	 ln;
	size_t		 k;
	int		 r;

	if (!in->lines)
		return ofl_extract_src_read(&x->src, in->buf, READ_SIZE);
	/* Lines of the -n spans, each with its newline. */
	k = 0;
	for (;;) {
		if (!in->lr_open) {
			if (in->span >= x->nscope)
				return (ssize_t)k;
			if (ofl_extract_lr_init(&in->lr, &x->src,
			    x->scope[in->span].a,
			    x->scope[in->span].b, PIECE_MAX) == -1)
				return -1;
			in->lr_open = 1;
		}
		if ((r = ofl_extract_lr_next(&in->lr, &ln)) == -1)
			return -1;
		if (r == 0) {
			ofl_extract_lr_free(&in->lr);
			in->lr_open = 0;
			in->span++;
			continue;
		}
		memcpy(in->buf, ln.p, ln.len);
		k = ln.len;
		if (!ln.more)
			in->buf[k++] = '\n';
		return (ssize_t)k;
	}
}

static int
blank(const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return 0;
	return 1;
}

/*
 * A filter run on an artifact that was never JSON (CSV, a log, text):
 * the parser's complaint about some column of line 1 does not help, so
 * say what the artifact is and what reads it.  0 for JSON kinds, and
 * for archive members (their kind is not recorded).
 */
static int
not_json(struct ex *x, char *msg, size_t size)
{
	int	kind;

	if (x->src.member != NULL)
		return 0;
	kind = ofl_reader_meta(x->src.r)->kind;
	if (kind == OFL_KIND_JSON || kind == OFL_KIND_NDJSON)
		return 0;
	snprintf(msg, size, "ofl:%s is %s, not JSON: a jq filter cannot "
	    "read it; try -n A-B for lines, -e REGEX for matching lines%s%s",
	    x->id, ofl_kind_name(kind), kind == OFL_KIND_CSV ||
	    kind == OFL_KIND_TSV ? ", or ofl-schema " : "",
	    kind == OFL_KIND_CSV || kind == OFL_KIND_TSV ? x->id : "");
	return 1;
}

/*
 * JSON text parsed as jq parses it: what a value is made of when it is
 * not made directly (a header's name, an odd number or string).
 */
static jv
jqin_parse(struct jqin *in, const char *p, size_t n, int str)
{
	ofl_buf_reset(&in->recbuf);
	if (str)
		ofl_buf_add_json_str(&in->recbuf, p, n);
	else
		ofl_buf_add(&in->recbuf, p, n);
	return jv_parse_sized(in->recbuf.data != NULL ? in->recbuf.data : "",
	    (int)in->recbuf.len);
}

/* A number's JSON text: the double jq's parser makes of it. */
static jv
jqin_number(struct jqin *in, const char *p, size_t n)
{
	char	num[64];
	size_t	i;

	if (n == 0 || n >= sizeof num)
		return jqin_parse(in, p, n, 0);
	for (i = 0; i < n; i++)
		if (!ofl_in_set(p[i], "0123456789-+.eE"))
			return jqin_parse(in, p, n, 0);
	memcpy(num, p, n);
	num[n] = '\0';
	return jv_number(strtod(num, NULL));
}

/* A cell as a string: its bytes, or parsed when not all are UTF-8. */
static jv
jqin_string(struct jqin *in, const char *p, size_t n)
{
	size_t	i, k;

	for (i = 0; i < n; i++) {
		if ((unsigned char)p[i] < 0x80)
			continue;
		if ((k = ofl_utf8_len(p + i, n - i)) == 0)
			return jqin_parse(in, p, n, 1);
		i += k - 1;
	}
	return jv_string_sized(p, (int)n);
}

/*
 * The current row as an object keyed by the header, made directly:
 * the same value as ofl_records_json()'s text parsed, without the text
 * (a row costs its cells, not a parser).
 */
static jv
jqin_record(struct jqin *in)
{
	const char	*p;
	size_t		 i, n;
	jv		 o, v;

	if (in->keys == NULL) {
		in->nkeys = ofl_records_ncols(in->rec);
		in->keys = ofl_xcalloc(in->nkeys + 1, sizeof *in->keys);
		for (i = 0; i < in->nkeys; i++) {
			p = ofl_records_name(in->rec, i);
			in->keys[i] = jqin_parse(in, p, strlen(p), 1);
		}
	}
	o = jv_object();
	for (i = 0; i < in->nkeys; i++) {
		switch (ofl_records_value(in->rec, i, &p, &n)) {
		case OFL_RECORDS_VNULL:
			v = jv_null();
			break;
		case OFL_RECORDS_VNUM:
			v = jqin_number(in, p, n);
			break;
		default:
			v = jqin_string(in, p, n);
			break;
		}
		if (!jv_is_valid(v) || jv_get_kind(in->keys[i]) !=
		    JV_KIND_STRING) {
			jv_free(o);
			return jv_is_valid(v) ? (jv_free(v), jv_invalid()) : v;
		}
		o = jv_object_set(o, jv_copy(in->keys[i]), v);
	}
	return o;
}

/* The next input value; invalid at the end or on a parse error. */
static jv
jqin_next(struct jqin *in)
{
	struct ex	*x = in->x;
	struct line	 ln;
	ssize_t		 n;
	size_t		 i;
	jv		 v;
	int		 r;

	if (in->failed)
		return jv_invalid();
	if (in->rec != NULL) {
		/* A row as an object keyed by the header. */
		if ((r = ofl_records_next(in->rec, &in->line)) == -1)
			goto fail;
		if (r == 0)
			return jv_invalid();
		in->values++;
		return jqin_record(in);
	}
	if (in->ndjson) {
		for (;;) {
			if (!in->lr_open) {
				if (in->span >= x->nscope)
					return jv_invalid();
				if (ofl_extract_lr_init(&in->lr, &x->src,
				    x->scope[in->span].a, x->scope[in->span].b,
				    LINE_MAX_REGEX) == -1)
					goto fail;
				in->lr_open = 1;
			}
			if ((r = ofl_extract_lr_next(&in->lr, &ln)) == -1)
				goto fail;
			if (r == 0) {
				ofl_extract_lr_free(&in->lr);
				in->lr_open = 0;
				in->span++;
				continue;
			}
			if (ln.cont || blank(ln.p, ln.len))
				continue;
			if (ln.more || ln.len > INT32_MAX)
				v = jv_invalid_with_msg(jv_string(
				    "longer than a line is read"));
			else if (memchr(ln.p, '\0', ln.len) != NULL)
				v = jv_invalid_with_msg(jv_string(
				    "a NUL byte"));
			else
				v = jv_parse_sized(ln.p, (int)ln.len);
			if (!jv_is_valid(v)) {
				if (in->bad++ == 0) {
					in->bad_first = ln.no;
					bad_why(in, v);
				} else
					jv_free(v);
				continue;
			}
			in->line = ln.no;
			in->values++;
			return v;
		}
	}
	for (;;) {
		if (jv_parser_remaining(in->parser) == 0) {
			if (!in->eof) {
				if ((n = jqin_chunk(in)) == -1)
					goto fail;
				if (n == 0)
					in->eof = 1;
				/* No JSON holds a NUL byte; libjq reads 0. */
				if (n > 0 && memchr(in->buf, '\0', (size_t)n) !=
				    NULL)
					goto nul;
				for (i = 0; in->first == 0 && i < (size_t)n;
				    i++)
					if (!isspace((unsigned char)in->buf[i]))
						in->first =
						    (unsigned char)in->buf[i];
				jv_parser_set_buf(in->parser, in->buf, (int)n,
				    n > 0);
			} else
				jv_parser_set_buf(in->parser, "", 0, 0);
		}
		v = jv_parser_next(in->parser);
		if (jv_is_valid(v)) {
			in->values++;
			return v;
		}
		if (jv_invalid_has_msg(jv_copy(v))) {
			jv msg = jv_invalid_get_msg(v);

			/* Broken JSON gets the parser's word for it. */
			if (in->values > 0 || in->first == '{' ||
			    in->first == '[' || !not_json(x, in->errmsg,
			    sizeof in->errmsg))
				snprintf(in->errmsg, sizeof in->errmsg,
				    "ofl:%s: parse error: %s", x->id,
				    jv_get_kind(msg) == JV_KIND_STRING ?
				    jv_string_value(msg) : "bad JSON");
			jv_free(msg);
			in->failed = 1;
			return jv_invalid();
		}
		jv_free(v);
		if (in->eof && jv_parser_remaining(in->parser) == 0)
			return jv_invalid();
	}
nul:
	if (!not_json(x, in->errmsg, sizeof in->errmsg))
		snprintf(in->errmsg, sizeof in->errmsg, "ofl:%s: parse error: "
		    "a NUL byte", x->id);
	in->failed = 1;
	return jv_invalid();
fail:
	snprintf(in->errmsg, sizeof in->errmsg, "%s", ofl_errmsg());
	in->failed = 1;
	return jv_invalid();
}

static jv
jqin_cb(jq_state *jq, void *arg)
{
	(void)jq;
	return jqin_next(arg);
}

/* ".items[3].metadata" for a jq path array. */
static void
jq_path_str(struct ofl_buf *b, jv path)
{
	int	i, n = jv_array_length(jv_copy(path));
	jv	k;

	if (n == 0)
		ofl_buf_addc(b, '.');
	for (i = 0; i < n; i++) {
		k = jv_array_get(jv_copy(path), i);
		if (jv_get_kind(k) == JV_KIND_NUMBER)
			ofl_buf_addf(b, "[%.17g]", jv_number_value(k));
		else if (jv_get_kind(k) == JV_KIND_STRING) {
			const char *s = jv_string_value(k);
			size_t len = (size_t)jv_string_length_bytes(jv_copy(k));
			size_t m;

			for (m = 0; m < len && (isalpha((unsigned char)s[m]) ||
			    s[m] == '_' || (m > 0 &&
			    isdigit((unsigned char)s[m]))); m++)
				;
			if (len > 0 && m == len)
				ofl_buf_addf(b, ".%s", s);
			else {
				ofl_buf_adds(b, "[");
				ofl_extract_json_str(b, s, len);
				ofl_buf_adds(b, "]");
			}
		} else if (jv_get_kind(k) == JV_KIND_OBJECT) {
			/* A slice: {"start":a,"end":b}. */
			jv a = jv_object_get(jv_copy(k), jv_string("start"));
			jv e = jv_object_get(jv_copy(k), jv_string("end"));

			ofl_buf_addc(b, '[');
			if (jv_get_kind(a) == JV_KIND_NUMBER)
				ofl_buf_addf(b, "%.17g", jv_number_value(a));
			ofl_buf_addc(b, ':');
			if (jv_get_kind(e) == JV_KIND_NUMBER)
				ofl_buf_addf(b, "%.17g", jv_number_value(e));
			ofl_buf_addc(b, ']');
			jv_free(a);
			jv_free(e);
		}
		jv_free(k);
	}
	jv_free(path);
}

/* The filter's own arguments, for the commands in marks. */
static void
jq_args(struct ex *x, struct ofl_buf *b, uint64_t skip)
{
	const struct ofl_extract	*o = x->o;
	struct ofl_buf			 w;
	size_t				 i;

	if (o->raw)
		ofl_buf_adds(b, " -r");
	if (o->compact)
		ofl_buf_adds(b, " -c");
	for (i = 0; i < o->nargs; i++) {
		ofl_buf_adds(b, o->args[i].json ? " --argjson" : " --arg");
		ofl_extract_cmd_word(b, o->args[i].name);
		ofl_extract_cmd_word(b, o->args[i].value);
	}
	if (o->nspans > 0 && x->nscope > 0) {
		ofl_buf_init(&w);
		ofl_extract_spans_text(&w, b, x->scope, x->nscope);
		ofl_buf_free(&w);
	}
	if (skip > 0)
		ofl_buf_addf(b, " --skip %" PRIu64, skip);
	if (o->limit > 0)
		ofl_buf_addf(b, " --limit %" PRIu64, o->limit);
	ofl_extract_cmd_word(b, o->filter);
}

/*
 * Past the budget, results are only counted, for the mark: for
 * COUNT_MS at most, so that a filter that goes on (range(1e9),
 * repeat) ends with what fit and a mark, not at the time limit with
 * nothing.  2 when it is to stop.
 */
static int
jq_count(struct jqrun *j)
{
	if (j->cut_ms == 0) {
		j->cut_ms = ofl_now_ms();
		/* What fit is out, whatever comes next. */
		(void)fflush(stdout);
	}
	if (ofl_now_ms() - j->cut_ms > COUNT_MS) {
		j->stopped = 1;
		return 2;
	}
	return 0;
}

/* One result of the filter.  -1 on a write error, 2 to stop. */
static int
jq_result(struct jqrun *j, jv v, jv path)
{
	struct ex			*x = j->x;
	const struct ofl_extract	*o = x->o;
	struct ofl_buf			*b = &x->tmp;
	struct ofl_buf			 w, a;
	struct ofl_extract		 one;
	struct ex			 y;
	uint64_t			 no;
	size_t				 k, over;
	jv				 d;
	int				 rv = 0;

	no = ++j->results;
	if (no <= o->skip)
		goto out;
	if (j->cut || (o->limit > 0 && no > o->skip + o->limit)) {
		if (!j->cut)
			j->first_hidden = no;
		j->cut = 1;
		rv = jq_count(j);
		goto out;
	}
	ofl_buf_reset(b);
	if (o->json) {
		ofl_buf_adds(b, "{\"id\":");
		ofl_extract_json_str(b, x->id, strlen(x->id));
		if (j->in.ndjson || j->in.rec != NULL)
			ofl_buf_addf(b, ",\"line\":%" PRIu64, j->in.line);
		if (jv_is_valid(path)) {
			ofl_buf_adds(b, ",\"path\":");
			ofl_buf_init(&w);
			jq_path_str(&w, jv_copy(path));
			ofl_extract_json_str(b, w.data, w.len);
			ofl_buf_free(&w);
		}
		d = jv_dump_string(jv_copy(v), 0);
		ofl_buf_adds(b, ",\"value\":");
		ofl_buf_add(b, jv_string_value(d),
		    (size_t)jv_string_length_bytes(jv_copy(d)));
		jv_free(d);
		ofl_buf_adds(b, "}\n");
	} else if (o->raw && jv_get_kind(v) == JV_KIND_STRING) {
		ofl_buf_add(b, jv_string_value(v),
		    (size_t)jv_string_length_bytes(jv_copy(v)));
		ofl_buf_addc(b, '\n');
	} else {
		d = jv_dump_string(jv_copy(v), j->flags);
		ofl_buf_add(b, jv_string_value(d),
		    (size_t)jv_string_length_bytes(jv_copy(d)));
		ofl_buf_addc(b, '\n');
		jv_free(d);
	}
	if (x->red != NULL) {
		size_t		 mlen;
		const char	*m;

		m = ofl_extract_mask_text(x, b->data, b->len, &mlen);

		if (m != b->data) {
			ofl_buf_reset(b);
			ofl_buf_add(b, x->rbuf.data, mlen);
		}
	}
	if (ofl_extract_out_fits(x, b->len)) {
		rv = ofl_extract_out_write(x, b->data, b->len);
		x->printed = 1;
		goto out;
	}
	j->cut = 1;
	j->first_hidden = no;
	(void)jq_count(j);
	if (x->printed || o->json)
		goto out;
	/* The first result alone is over the budget: print its head. */
	over = b->len - (size_t)(x->max - x->used);
	k = b->len - over;
	while (k > 0 && b->data[k - 1] != '\n')
		k--;
	if (k == 0)
		k = ofl_utf8_cut(b->data, b->len - over);
	if (ofl_extract_out_write(x, b->data, k) == -1) {
		rv = -1;
		goto out;
	}
	x->printed = 1;
	j->first_hidden = no + 1;
	/* The command that prints exactly this result, whole. */
	one = *o;
	one.limit = 1;
	y = *x;
	y.o = &one;
	y.max = 0;
	ofl_buf_init(&w);
	ofl_buf_init(&a);
	ofl_buf_addf(&w, "the rest of result %" PRIu64 " (%zu of its %zu "
	    "bytes)", no, b->len - k, b->len);
	jq_args(&y, &a, no - 1);
	rv = ofl_extract_mark(&y, ofl_buf_str(&w), ofl_buf_str(&a));
	x->lastnl = y.lastnl;
	ofl_buf_free(&w);
	ofl_buf_free(&a);
out:
	jv_free(v);
	jv_free(path);
	return rv;
}

/* Run the filter on one input value. */
static int
jq_one(struct jqrun *j, jv v)
{
	struct ex	*x = j->x;
	jv		 r, outs, e;
	int		 i, n, rc, failed = 0;
	char		 where[64];

	if (j->in.ndjson || j->in.rec != NULL)
		snprintf(where, sizeof where, "ofl:%s line %" PRIu64, x->id,
		    j->in.line);
	else
		snprintf(where, sizeof where, "ofl:%s", x->id);
	if (j->jqp != NULL) {
		/* path(F) as $p | [$p, getpath($p)], all or nothing. */
		outs = jv_array();
		jq_start(j->jqp, jv_copy(v), 0);
		for (n = 0; n < PATHS_MAX && jv_is_valid(r = jq_next(j->jqp));
		    n++)
			outs = jv_array_append(outs, r);
		/* Too many: the plain run, which stops (jq_count()). */
		if (n == PATHS_MAX) {
			jv_free(outs);
			goto plain;
		}
		if (jv_invalid_has_msg(jv_copy(r)) || jq_halted(j->jqp))
			failed = 1;
		jv_free(r);
		if (!failed) {
			jv_free(v);
			n = jv_array_length(jv_copy(outs));
			for (i = 0; i < n; i++) {
				e = jv_array_get(jv_copy(outs), i);
				if ((rc = jq_result(j, jv_array_get(jv_copy(e),
				    1), jv_array_get(jv_copy(e), 0))) != 0) {
					jv_free(e);
					jv_free(outs);
					return rc == 2 ? 1 : -1;
				}
				jv_free(e);
			}
			jv_free(outs);
			return 0;
		}
		jv_free(outs);
	}
plain:
	jq_start(j->jq, v, 0);
	while (jv_is_valid(r = jq_next(j->jq)))
		if ((rc = jq_result(j, r, jv_invalid())) != 0)
			return rc == 2 ? 1 : -1;
	if (jq_halted(j->jq)) {
		jv	m = jq_get_error_message(j->jq);

		if (jv_get_kind(m) == JV_KIND_STRING)
			ofl_extract_warnf(x, "%s", jv_string_value(m));
		else if (jv_is_valid(m) && jv_get_kind(m) != JV_KIND_NULL) {
			jv	d = jv_dump_string(jv_copy(m), 0);

			ofl_extract_warnf(x, "%s", jv_string_value(d));
			jv_free(d);
		}
		jv_free(m);
		jv_free(r);
		return 1;
	}
	if (jv_invalid_has_msg(jv_copy(r))) {
		jv	m = jv_invalid_get_msg(r);

		/* The first few said; then only counted. */
		if (++j->errors <= JQ_ERRORS_SAID) {
			if (jv_get_kind(m) == JV_KIND_STRING)
				ofl_extract_warnf(x, "jq: error (at %s): %s",
				    where, jv_string_value(m));
			else {
				jv	d = jv_dump_string(jv_copy(m), 0);

				ofl_extract_warnf(x, "jq: error (at %s) (not "
				    "a string): %s", where,
				    jv_string_value(d));
				jv_free(d);
			}
		}
		jv_free(m);
		return 0;
	}
	jv_free(r);
	return 0;
}

/*
 * Run the filter per line on NDJSON, and on content whose first line is
 * a whole JSON value although other lines are not JSON (go test -json
 * with build errors, logs of JSON events).
 */
static int
ndjson_like(struct ex *x)
{
	struct lr	lr;
	struct line	ln;
	jv		v;
	int		kind = x->src.member == NULL ?
			    ofl_reader_meta(x->src.r)->kind : -1;
	int		r, yes = 0;

	if (kind == OFL_KIND_NDJSON)
		return 1;
	if (kind == OFL_KIND_JSON || x->nscope == 0)
		return 0;
	if (ofl_extract_lr_init(&lr, &x->src, x->scope[0].a, x->scope[0].b,
	    LINE_MAX_REGEX) == -1) {
		ofl_extract_lr_free(&lr);
		return 0;
	}
	while ((r = ofl_extract_lr_next(&lr, &ln)) > 0) {
		if (ln.cont || blank(ln.p, ln.len))
			continue;
		if (!ln.more && ln.len <= INT32_MAX) {
			v = jv_parse_sized(ln.p, (int)ln.len);
			yes = jv_is_valid(v);
			jv_free(v);
		}
		break;
	}
	ofl_extract_lr_free(&lr);
	return yes;
}

/* Tables, CSV and TSV: a stream of records.  1 if so, 0 if not, -1. */
static int
jq_records(struct ex *x, struct jqin *in)
{
	int	kind;

	ofl_buf_init(&in->recbuf);
	if (x->src.member != NULL || x->o->nspans > 0)
		return 0;
	kind = ofl_reader_meta(x->src.r)->kind;
	if (!ofl_records_supports(kind))
		return 0;
	if ((in->rec = ofl_records_open(&x->src.rsrc, kind)) == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: %s", x->id, ofl_errmsg());
		return -1;
	}
	return 1;
}

/* Rows of a table, CSV or TSV that were read only in part, said. */
static void
records_cut(struct ex *x, const struct ofl_records *rec)
{
	uint64_t	n;

	if (rec == NULL || (n = ofl_records_cut(rec)) == 0)
		return;
	ofl_extract_warnf(x, "%" PRIu64 " record%s cut: a line over 64 KiB, "
	    "a record over 1 MiB or fields past the 1,024th are left out", n,
	    n == 1 ? "" : "s");
}

int
ofl_extract_jq(struct ex *x)
{
	static char			*empty_env[] = { NULL };
	const struct ofl_extract	*o = x->o;
	struct jqrun			 j;
	struct ofl_buf			 prog, what, args;
	char				**saved_env = environ;
	jv				 jargs, v;
	size_t				 i, n;
	int				 r, rv = -1, halted = 0;

	memset(&j, 0, sizeof j);
	j.x = x;
	j.in.x = x;
	ofl_buf_init(&prog);
	ofl_buf_init(&what);
	ofl_buf_init(&args);
	if (jq_refuse(o->filter) == -1)
		return -1;
	environ = empty_env;
	jargs = jv_object();
	for (i = 0; i < o->nargs; i++) {
		if (o->args[i].json) {
			v = jv_parse(o->args[i].value);
			if (!jv_is_valid(v)) {
				jv	m = jv_invalid_get_msg(v);

				ofl_seterr(OFL_EXIT_USAGE, "--argjson %s: "
				    "invalid JSON text: %s", o->args[i].name,
				    jv_get_kind(m) == JV_KIND_STRING ?
				    jv_string_value(m) : "?");
				jv_free(m);
				jv_free(jargs);
				goto out;
			}
		} else
			v = jv_string(o->args[i].value);
		jargs = jv_object_set(jargs, jv_string(o->args[i].name), v);
	}
	if ((j.jq = jq_new(jq_err_cb, jq_debug_cb, &j)) == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "jq: cannot initialize");
		jv_free(jargs);
		goto out;
	}
	if (jq_compile_filter(&j, o->filter, jv_copy(jargs)) == -1) {
		jv_free(jargs);
		goto out;
	}
	if (o->json && strstr(o->filter, "input") == NULL &&
	    strstr(o->filter, "debug") == NULL &&
	    strstr(o->filter, "stderr") == NULL &&
	    strstr(o->filter, "halt") == NULL &&
	    (j.jqp = jq_new(jq_quiet_cb, jq_quiet_cb, NULL)) != NULL) {
		ofl_buf_addf(&prog, "path(%s\n) as $__ofl_p | [$__ofl_p, "
		    "getpath($__ofl_p)]", o->filter);
		if (!jq_compile_args(j.jqp, ofl_buf_str(&prog), jv_copy(jargs)))
			jq_teardown(&j.jqp);
	}
	jv_free(jargs);
	j.flags = o->compact ? 0 : JV_PRINT_INDENT_FLAGS(2);

	/* Inputs. */
	if (ofl_extract_resolve(x, &n, &x->scope, 1) == -1)
		goto out;
	x->nscope = n;
	if ((r = jq_records(x, &j.in)) == -1)
		goto out;
	if (r == 0)
		j.in.ndjson = ndjson_like(x);
	j.in.lines = o->nspans > 0;
	if (!j.in.ndjson && j.in.rec == NULL) {
		j.in.buf = ofl_xmalloc(READ_SIZE);
		j.in.parser = jv_parser_new(0);
		if (!j.in.lines && ofl_extract_src_rewind(&x->src) == -1)
			goto out;
	}
	jq_set_input_cb(j.jq, jqin_cb, &j.in);
	if (j.jqp != NULL)
		jq_set_input_cb(j.jqp, jqin_cb, &j.in);
	while (jv_is_valid(v = jqin_next(&j.in))) {
		if ((r = jq_one(&j, v)) == -1)
			goto out;
		if (r == 1) {
			halted = 1;
			break;
		}
	}
	jv_free(v);
	if (j.in.failed) {
		ofl_seterr(OFL_EXIT_FAIL, "%s", j.in.errmsg);
		goto marks;
	}
	if (bad_said(x, &j.in) == -1)
		goto out;
marks:
	if (j.cut && j.first_hidden > 0 && j.first_hidden <= j.results) {
		uint64_t	a = j.first_hidden, b = j.results;

		if (j.stopped)
			ofl_buf_addf(&what, "results %" PRIu64 " on of the "
			    "filter on ofl:%s (stopped at %" PRIu64 ")", a,
			    x->id, b);
		else {
			ofl_buf_addf(&what, "result%s %" PRIu64, a == b ? "" :
			    "s", a);
			if (b != a)
				ofl_buf_addf(&what, "-%" PRIu64, b);
			ofl_buf_addf(&what, " of %" PRIu64 " of the filter on "
			    "ofl:%s", j.results, x->id);
		}
		jq_args(x, &args, a - 1);
		if (ofl_extract_mark(x, ofl_buf_str(&what),
		    ofl_buf_str(&args)) == -1)
			goto out;
	}
	if (j.in.failed)
		goto out;
	if (j.errors > JQ_ERRORS_SAID) {
		ofl_seterr(OFL_EXIT_FAIL, "jq: the filter failed on %" PRIu64
		    " inputs (the first %d said above)", j.errors,
		    JQ_ERRORS_SAID);
		goto out;
	}
	records_cut(x, j.in.rec);
	if (j.errors > 0) {
		ofl_seterr(OFL_EXIT_FAIL, "jq: the filter failed on %" PRIu64
		    " input%s", j.errors, j.errors > 1 ? "s" : "");
		goto out;
	}
	rv = j.results > o->skip ? 0 : 1;
	(void)halted;
out:
	environ = saved_env;
	if (j.in.lr_open)
		ofl_extract_lr_free(&j.in.lr);
	if (j.in.parser != NULL)
		jv_parser_free(j.in.parser);
	ofl_records_close(j.in.rec);
	for (i = 0; i < j.in.nkeys; i++)
		jv_free(j.in.keys[i]);
	free(j.in.keys);
	ofl_buf_free(&j.in.recbuf);
	free(j.in.buf);
	if (j.jq != NULL)
		jq_teardown(&j.jq);
	if (j.jqp != NULL)
		jq_teardown(&j.jqp);
	ofl_buf_free(&prog);
	ofl_buf_free(&what);
	ofl_buf_free(&args);
	return rv;
}

/* A filter that may run, and --argjson values that are JSON. */
int
ofl_extract_jq_check(const struct ofl_extract *o)
{
	size_t	i;
	jv	v;

	if (jq_refuse(o->filter) == -1)
		return -1;
	for (i = 0; i < o->nargs; i++) {
		if (!o->args[i].json)
			continue;
		v = jv_parse(o->args[i].value);
		if (!jv_is_valid(v)) {
			jv_free(v);
			ofl_seterr(OFL_EXIT_USAGE, "--argjson %s: "
			    "invalid JSON text", o->args[i].name);
			return -1;
		}
		jv_free(v);
	}
	return 0;
}
