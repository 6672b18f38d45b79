/*
 * test-json.c: the streaming JSON parser.  Every document is fed whole,
 * one byte at a time and in uneven pieces; the events must not change.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "tap.h"
#include "banned.h"

static const char *names[] = {
	"{", "}", "[", "]", "str", "num", "true", "false", "null"
};

struct log {
	struct ofl_buf	 out;
	size_t		 events;
	size_t		 maxdepth;
	int		 quiet;		/* count only */
	int		 stop_after;	/* stop after this many events, 0: never */
};

static int	record(struct ofl_json *, const struct ofl_json_event *,
		    void *);
static int	parse(const char *, size_t, int, size_t, struct log *);
static const char *label(const char *);
static void	check_splits(const char *, const char *, int);
static void	check_error(const char *, int, const char *);
static void	check_paths(void);
static void	check_deep(void);
static void	check_ndjson(void);
static void	check_stop(void);

/* A test title for a document: printable, on one line, short. */
static const char *
label(const char *s)
{
	static char buf[64];
	size_t i, n = 0;

	for (i = 0; s[i] != '\0' && n < 40; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f)
			buf[n++] = s[i];
		else {
			snprintf(buf + n, sizeof(buf) - n, "\\x%02x",
			    (unsigned char)s[i]);
			n += 4;
		}
	}
	if (s[i] != '\0') {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

/* One line per event: type depth [offset,end) line path key=... value. */
static int
record(struct ofl_json *p, const struct ofl_json_event *ev, void *arg)
{
	struct log *l = arg;
	const char *k;
	size_t klen;

	l->events++;
	if (ev->depth > l->maxdepth)
		l->maxdepth = ev->depth;
	if (!l->quiet) {
		ofl_buf_addf(&l->out, "%s %zu [%llu,%llu) l%llu ",
		    names[ev->type], ev->depth,
		    (unsigned long long)ev->offset,
		    (unsigned long long)ev->end,
		    (unsigned long long)ev->line);
		ofl_json_path(p, &l->out);
		if ((k = ofl_json_key(p, &klen)) != NULL) {
			ofl_buf_adds(&l->out, " key=");
			ofl_buf_add_json_str(&l->out, k, klen);
		}
		if (ev->type == OFL_JSON_STRING) {
			ofl_buf_addc(&l->out, ' ');
			ofl_buf_add_json_str(&l->out, ev->str, ev->len);
		} else if (ev->type == OFL_JSON_NUMBER) {
			ofl_buf_addc(&l->out, ' ');
			ofl_buf_add(&l->out, ev->str, ev->len);
			ofl_buf_adds(&l->out, ev->integer ? " int" : " real");
		}
		ofl_buf_addc(&l->out, '\n');
	}
	if (l->stop_after != 0 && l->events == (size_t)l->stop_after)
		return 1;
	return 0;
}

/*
 * Parse s in pieces of step bytes (0: whole; a negative step is not used;
 * step 7919 and up: uneven pieces from a fixed sequence).  Returns what
 * feed/finish returned; the error message stays in ofl_errmsg().
 */
static int
parse(const char *s, size_t n, int multi, size_t step, struct log *l)
{
	static const size_t uneven[] = { 3, 1, 7, 2, 13, 5, 1, 1, 4, 29 };
	struct ofl_json *p;
	size_t off = 0, k, u = 0;
	int r = 0;

	ofl_buf_init(&l->out);
	l->events = 0;
	l->maxdepth = 0;
	p = ofl_json_new(multi, record, l);
	while (off < n) {
		if (step == 0)
			k = n;
		else if (step >= 7919)
			k = uneven[u++ % (sizeof(uneven) / sizeof(uneven[0]))];
		else
			k = step;
		if (k > n - off)
			k = n - off;
		if ((r = ofl_json_feed(p, s + off, k)) != 0)
			break;
		off += k;
	}
	if (r == 0)
		r = ofl_json_finish(p);
	ofl_json_free(p);
	ofl_buf_str(&l->out);
	return r;
}

static void
check_splits(const char *doc, const char *want, int multi)
{
	struct log whole, l;
	size_t steps[] = { 1, 2, 3, 5, 7919 }, i;
	int r;

	memset(&whole, 0, sizeof(whole));
	memset(&l, 0, sizeof(l));

	r = parse(doc, strlen(doc), multi, 0, &whole);
	ok(r == 0, "parse whole (%s)", r ? ofl_errmsg() : "ok");
	if (want != NULL)
		is_str(whole.out.data, want, "events of %s", label(doc));
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		r = parse(doc, strlen(doc), multi, steps[i], &l);
		ok(r == 0 && strcmp(l.out.data, whole.out.data) == 0,
		    "same events fed in pieces of %zu", steps[i]);
		if (r != 0 || strcmp(l.out.data, whole.out.data) != 0)
			printf("# got:\n%s\n", l.out.data);
		ofl_buf_free(&l.out);
	}
	ofl_buf_free(&whole.out);
}

static void
check_error(const char *doc, int multi, const char *want)
{
	struct log l;
	size_t steps[] = { 0, 1, 7919 }, i;
	int r;

	memset(&l, 0, sizeof(l));

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		r = parse(doc, strlen(doc), multi, steps[i], &l);
		ofl_buf_free(&l.out);
		ok(r == -1, "error for %s (step %zu)", label(doc), steps[i]);
		is_str(ofl_errmsg(), want, "message for %s (step %zu)",
		    label(doc), steps[i]);
	}
}

static void
check_paths(void)
{
	check_splits("{\"a\":{\"b\":[0,1,2,{\"key with space\":true}]},"
	    "\"_x9\":null,\"9x\":[],\"\":\"\",\"q\\\"\":-1.5e3}",
	    "{ 0 [0,0) l1 .\n"
	    "{ 1 [5,0) l1 .a key=\"a\"\n"
	    "[ 2 [10,0) l1 .a.b key=\"b\"\n"
	    "num 3 [11,12) l1 .a.b[0] 0 int\n"
	    "num 3 [13,14) l1 .a.b[1] 1 int\n"
	    "num 3 [15,16) l1 .a.b[2] 2 int\n"
	    "{ 3 [17,0) l1 .a.b[3]\n"
	    "true 4 [35,39) l1 .a.b[3][\"key with space\"] "
	    "key=\"key with space\"\n"
	    "} 3 [17,40) l1 .a.b[3]\n"
	    "] 2 [10,41) l1 .a.b key=\"b\"\n"
	    "} 1 [5,42) l1 .a key=\"a\"\n"
	    "null 1 [49,53) l1 ._x9 key=\"_x9\"\n"
	    "[ 1 [59,0) l1 .[\"9x\"] key=\"9x\"\n"
	    "] 1 [59,61) l1 .[\"9x\"] key=\"9x\"\n"
	    "str 1 [65,67) l1 .[\"\"] key=\"\" \"\"\n"
	    "num 1 [74,80) l1 .[\"q\\\"\"] key=\"q\\\"\" -1.5e3 real\n"
	    "} 0 [0,81) l1 .\n", 0);
	check_splits("[[1,[2]],\n [[\"x\"]]]",
	    "[ 0 [0,0) l1 .\n"
	    "[ 1 [1,0) l1 .[0]\n"
	    "num 2 [2,3) l1 .[0][0] 1 int\n"
	    "[ 2 [4,0) l1 .[0][1]\n"
	    "num 3 [5,6) l1 .[0][1][0] 2 int\n"
	    "] 2 [4,7) l1 .[0][1]\n"
	    "] 1 [1,8) l1 .[0]\n"
	    "[ 1 [11,0) l2 .[1]\n"
	    "[ 2 [12,0) l2 .[1][0]\n"
	    "str 3 [13,16) l2 .[1][0][0] \"x\"\n"
	    "] 2 [12,17) l2 .[1][0]\n"
	    "] 1 [11,18) l2 .[1]\n"
	    "] 0 [0,19) l1 .\n", 0);
	check_splits("\"top\"", "str 0 [0,5) l1 . \"top\"\n", 0);
	check_splits(" 42 ", "num 0 [1,3) l1 . 42 int\n", 0);
	check_splits("0", "num 0 [0,1) l1 . 0 int\n", 0);
	check_splits("\xef\xbb\xbf{}",
	    "{ 0 [3,0) l1 .\n} 0 [3,5) l1 .\n", 0);
}

static void
check_strings(void)
{
	/* Escapes, a surrogate pair, raw UTF-8 of 2, 3 and 4 bytes. */
	check_splits("[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\","
	    "\"\\u00e9\\u20AC\\ud83d\\ude00\",\"\xc3\xa9\xe2\x82\xac"
	    "\xf0\x9f\x98\x80\",\"\\u0000\"]",
	    "[ 0 [0,0) l1 .\n"
	    "str 1 [1,23) l1 .[0] \"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\"\n"
	    "str 1 [24,50) l1 .[1] \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\n"
	    "str 1 [51,62) l1 .[2] \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\n"
	    "str 1 [63,71) l1 .[3] \"\\u0000\"\n"
	    "] 0 [0,72) l1 .\n", 0);
	/* Invalid UTF-8 and lone surrogates become U+FFFD. */
	check_splits("[\"a\xff" "b\",\"\xe2\x82x\",\"\xc0\xaf\",\"\xed\xa0\x80\","
	    "\"\\ud800\",\"\\udc00x\",\"\\ud800\\n\",\"\\ud800\\u0041\","
	    "\"\\ud800\\ud800\\udc00\",\"\xf0\x9f\x98\"]",
	    "[ 0 [0,0) l1 .\n"
	    "str 1 [1,6) l1 .[0] \"a\xef\xbf\xbd" "b\"\n"
	    "str 1 [7,12) l1 .[1] \"\xef\xbf\xbdx\"\n"
	    "str 1 [13,17) l1 .[2] \"\xef\xbf\xbd\xef\xbf\xbd\"\n"
	    "str 1 [18,23) l1 .[3] \"\xef\xbf\xbd\xef\xbf\xbd"
	    "\xef\xbf\xbd\"\n"
	    "str 1 [24,32) l1 .[4] \"\xef\xbf\xbd\"\n"
	    "str 1 [33,42) l1 .[5] \"\xef\xbf\xbdx\"\n"
	    "str 1 [43,53) l1 .[6] \"\xef\xbf\xbd\\n\"\n"
	    "str 1 [54,68) l1 .[7] \"\xef\xbf\xbd" "A\"\n"
	    "str 1 [69,89) l1 .[8] \"\xef\xbf\xbd\xf0\x90\x80\x80\"\n"
	    "str 1 [90,95) l1 .[9] \"\xef\xbf\xbd\"\n"
	    "] 0 [0,96) l1 .\n", 0);
	/* Numbers. */
	check_splits("[0,-0,1.5,-12e3,1E+2,0.25e-7,123456789012345678901]",
	    "[ 0 [0,0) l1 .\n"
	    "num 1 [1,2) l1 .[0] 0 int\n"
	    "num 1 [3,5) l1 .[1] -0 int\n"
	    "num 1 [6,9) l1 .[2] 1.5 real\n"
	    "num 1 [10,15) l1 .[3] -12e3 real\n"
	    "num 1 [16,20) l1 .[4] 1E+2 real\n"
	    "num 1 [21,28) l1 .[5] 0.25e-7 real\n"
	    "num 1 [29,50) l1 .[6] 123456789012345678901 int\n"
	    "] 0 [0,51) l1 .\n", 0);
}

static void
check_deep(void)
{
	struct log l;
	struct ofl_buf b;
	size_t i, depth = 100000;
	int r;

	ofl_buf_init(&b);
	for (i = 0; i < depth; i++)
		ofl_buf_addc(&b, '[');
	for (i = 0; i < depth; i++)
		ofl_buf_addc(&b, ']');
	l.quiet = 1;
	l.stop_after = 0;
	r = parse(b.data, b.len, 0, 0, &l);
	ok(r == 0 && l.events == 2 * depth && l.maxdepth == depth - 1,
	    "arrays nested %zu deep: %zu events, depth %zu", depth, l.events,
	    l.maxdepth);
	ofl_buf_free(&l.out);
	r = parse(b.data, b.len, 0, 1, &l);
	ok(r == 0 && l.events == 2 * depth, "the same, byte by byte");
	ofl_buf_free(&l.out);

	/* Unclosed: an error at the end, not a crash. */
	r = parse(b.data, depth, 0, 0, &l);
	ok(r == -1, "unclosed nesting is an error");
	is_str(ofl_errmsg(), "invalid JSON at byte 100000 (line 1): "
	    "unexpected end of input", "its message");
	ofl_buf_free(&l.out);

	ofl_buf_reset(&b);
	for (i = 0; i < depth; i++)
		ofl_buf_adds(&b, "{\"k\":");
	ofl_buf_adds(&b, "1");
	for (i = 0; i < depth; i++)
		ofl_buf_addc(&b, '}');
	r = parse(b.data, b.len, 0, 4096, &l);
	ok(r == 0 && l.events == 2 * depth + 1 && l.maxdepth == depth,
	    "objects nested %zu deep", depth);
	ofl_buf_free(&l.out);
	ofl_buf_free(&b);
	l.quiet = 0;
}

static void
check_ndjson(void)
{
	const char *doc = "{\"a\":1}\n{\"a\":[true]}\n\"s\"\n7\nnull[]{}";
	struct log l;

	check_splits(doc,
	    "{ 0 [0,0) l1 .\n"
	    "num 1 [5,6) l1 .a key=\"a\" 1 int\n"
	    "} 0 [0,7) l1 .\n"
	    "{ 0 [8,0) l2 .\n"
	    "[ 1 [13,0) l2 .a key=\"a\"\n"
	    "true 2 [14,18) l2 .a[0]\n"
	    "] 1 [13,19) l2 .a key=\"a\"\n"
	    "} 0 [8,20) l2 .\n"
	    "str 0 [21,24) l3 . \"s\"\n"
	    "num 0 [25,26) l4 . 7 int\n"
	    "null 0 [27,31) l5 .\n"
	    "[ 0 [31,0) l5 .\n"
	    "] 0 [31,33) l5 .\n"
	    "{ 0 [33,0) l5 .\n"
	    "} 0 [33,35) l5 .\n", 1);
	check_splits("", "", 1);
	check_splits("\n\n", "", 1);
	check_splits("1 2", "num 0 [0,1) l1 . 1 int\nnum 0 [2,3) l1 . 2 int\n",
	    1);
	/* Single mode refuses a second value. */
	check_error(doc, 0, "invalid JSON at byte 8 (line 2): "
	    "unexpected data after the top-level value '{'");
	/* An error in a later line is reported with its line. */
	check_error("{\"a\":1}\n{\"a\":2}\n{\"a\" 3}\n", 1,
	    "invalid JSON at byte 21 (line 3): expected ':' after key, got '3'");
	/* What came before the error was delivered. */
	l.quiet = 1;
	l.stop_after = 0;
	ok(parse("[1]\n[2]\n[3,]\n", 14, 1, 1, &l) == -1 && l.events == 8,
	    "events before the error are delivered (%zu)", l.events);
	ofl_buf_free(&l.out);
	l.quiet = 0;
}

static void
check_stop(void)
{
	struct log l;
	struct ofl_json *p;
	int r;

	l.quiet = 0;
	l.stop_after = 3;
	r = parse("[1,2,3,4]", 9, 0, 0, &l);
	ok(r == 1 && l.events == 3, "the callback stops the parser");
	ofl_buf_free(&l.out);
	ofl_buf_init(&l.out);
	l.events = 0;
	p = ofl_json_new(0, record, &l);
	ok(ofl_json_feed(p, "[1,2,3", 6) == 1, "feed returns 1 when stopped");
	ok(ofl_json_feed(p, ",4]", 3) == 1, "and keeps returning 1");
	ok(ofl_json_finish(p) == 1, "finish too");
	ofl_json_free(p);
	ofl_buf_free(&l.out);
	l.stop_after = 0;
}

static void
check_errors(void)
{
	check_error("", 0,
	    "invalid JSON at byte 0 (line 1): no value (empty input)");
	check_error("  \n ", 0,
	    "invalid JSON at byte 4 (line 2): no value (empty input)");
	check_error("[1,2", 0,
	    "invalid JSON at byte 4 (line 1): unexpected end of input");
	check_error("{\"a\":\"xy", 0,
	    "invalid JSON at byte 8 (line 1): unterminated string");
	check_error("[1,]", 0,
	    "invalid JSON at byte 3 (line 1): unexpected character ']'");
	check_error("{\"a\":1,}", 0, "invalid JSON at byte 7 (line 1): "
	    "expected a string key, got '}'");
	check_error("{'a':1}", 0, "invalid JSON at byte 1 (line 1): "
	    "expected a string key, got '''");
	check_error("{\"a\" 1}", 0, "invalid JSON at byte 5 (line 1): "
	    "expected ':' after key, got '1'");
	check_error("[1 2]", 0, "invalid JSON at byte 3 (line 1): "
	    "expected ',' or ']', got '2'");
	check_error("{\"a\":1]", 0, "invalid JSON at byte 6 (line 1): "
	    "expected ',' or '}', got ']'");
	check_error("[01]", 0, "invalid JSON at byte 2 (line 1): "
	    "leading zero in number '1'");
	check_error("[1.]", 0, "invalid JSON at byte 3 (line 1): "
	    "incomplete number ']'");
	check_error("[-]", 0, "invalid JSON at byte 2 (line 1): "
	    "incomplete number ']'");
	check_error("[1e]", 0, "invalid JSON at byte 3 (line 1): "
	    "incomplete number ']'");
	check_error("1.5.2", 0, "invalid JSON at byte 3 (line 1): "
	    "invalid number '.'");
	check_error("[+1]", 0, "invalid JSON at byte 1 (line 1): "
	    "unexpected character '+'");
	check_error("[.5]", 0, "invalid JSON at byte 1 (line 1): "
	    "unexpected character '.'");
	check_error("12a", 0, "invalid JSON at byte 2 (line 1): "
	    "unexpected data after the top-level value 'a'");
	check_error("-", 0, "invalid JSON at byte 1 (line 1): "
	    "incomplete number");
	check_error("[tru]", 0, "invalid JSON at byte 4 (line 1): "
	    "invalid literal ']'");
	check_error("nul", 0, "invalid JSON at byte 3 (line 1): "
	    "unexpected end of input");
	check_error("[NaN]", 0, "invalid JSON at byte 1 (line 1): "
	    "unexpected character 'N'");
	check_error("\n\n[\"a\tb\"]", 0, "invalid JSON at byte 5 (line 3): "
	    "control character in string (byte 0x09)");
	check_error("[\"\\x\"]", 0, "invalid JSON at byte 3 (line 1): "
	    "invalid escape in string 'x'");
	check_error("[\"\\u12g4\"]", 0, "invalid JSON at byte 6 (line 1): "
	    "invalid \\u escape in string 'g'");
	check_error("// c\n{}", 0, "invalid JSON at byte 0 (line 1): "
	    "unexpected character '/'");
	check_error("{}\x01", 1, "invalid JSON at byte 2 (line 1): "
	    "unexpected character (byte 0x01)");
}

int
main(void)
{
	check_paths();
	check_strings();
	check_errors();
	check_deep();
	check_ndjson();
	check_stop();
	return done_testing();
}
