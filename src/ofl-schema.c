/*
 * ofl-schema: the structure of JSON, NDJSON, CSV and TSV artifacts, as a
 * compact shape, a genson-compatible JSON Schema or JSON Lines; and the
 * templates of a log.
 */
#include "config.h"

#include <ctype.h>
#include <err.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

enum { MODE_SHAPE, MODE_SCHEMA, MODE_JSONL };

static int		 opt_mode = MODE_SHAPE;
static int		 opt_compact;
static int		 opt_lenient;
static int		 opt_kind = -1;
static uint64_t		 opt_max = 4096;
static struct ofl_redactor *redactor;	/* NULL: OFL_REDACT=off */
static const char	*opt_store;	/* -s as given, for commands */

enum {
	O_NOPAGER = OFL_OPT_BASE,
	O_NOREDACT,
	O_SHAPE
};

/* The options, in the order of --help; tests/t9040 checks the rest. */
static const struct ofl_opt opts[] = {
	{ O_SHAPE, "shape", no_argument, NULL,
	    "a compact typed outline (the default)", 0, NULL },
	{ 'J', "json-schema", no_argument, NULL,
	    "a JSON Schema as genson writes it", 0, NULL },
	{ 'j', "json", no_argument, NULL,
	    "the shape as JSON Lines, one path per line", 0, NULL },
	{ 'c', "compact", no_argument, NULL, "with -J: on one line", 0,
	    NULL },
	{ O_NOREDACT, "no-redact", no_argument, NULL,
	    "show secrets in examples unmasked", OFL_OPT_NOSYN, NULL },
	{ 'm', "max-bytes", required_argument, "bytes",
	    "cap the shape at BYTES (default 4k, 0: none)", 0, NULL },
	{ 'k', "kind", required_argument, "kind",
	    "read as json, ndjson, csv or tsv", 0, NULL },
	{ 'l', "lenient", no_argument, NULL,
	    "on invalid input, describe what parsed", 0, NULL },
	{ O_NOPAGER, "no-pager", no_argument, NULL,
	    "do not page output longer than the screen", 0, NULL },
	{ 's', "store", required_argument, "store",
	    "store (default $OFL_STORE)", 0, NULL },
	{ 'V', "version", no_argument, NULL, "print the version",
	    OFL_OPT_NOSYN, NULL },
	{ 'h', "help", no_argument, NULL, "print this help", OFL_OPT_NOSYN,
	    NULL },
	{ 0, NULL, 0, NULL, NULL, 0, NULL }
};

static OFL_DEAD void	 usage(int);
static void		 parse_options(int, char *[], const char **, int *);
static int		 describe(struct ofl_store *, const char *,
			    const char *, int);
static void		 warnx_id(const char *, const char *);
static int		 looks_like_json(struct ofl_reader *, int);
static ssize_t		 json_space(const char *, ssize_t, ssize_t);
static ssize_t		 json_digits(const char *, ssize_t, ssize_t);
static int		 json_opens(const char *, ssize_t, ssize_t, int);
static int		 describe_log(struct ofl_store *, const char *,
			    const char *);
static void		 print(const char *, size_t);

static OFL_DEAD void
usage(int status)
{
	ofl_opt_usage(status ? stderr : stdout, "ofl-schema", opts,
	    "[id ...]", NULL);
	if (status == 0) {
		fprintf(stdout, "\n"
		    "Describe the structure of JSON, NDJSON, CSV and TSV "
		    "artifacts, or list the\n"
		    "templates of a log.  With no id or '-', read ofl: "
		    "references from stdin,\n"
		    "or capture stdin first.  A range in a reference "
		    "(ofl:ID:A-B) names the\n"
		    "artifact: it is described whole.\n\n");
		ofl_opt_help(stdout, opts);
	}
	exit(status);
}

/* The options into the opt_ globals, *store and *page; exits on a bad one. */
static void
parse_options(int argc, char *argv[], const char **store, int *page)
{
	struct ofl_getopt	g;
	int			ch, mode = -1;

	*store = NULL;
	*page = 1;
	ofl_opt_init(&g, opts, 0);
	while ((ch = ofl_opt_next(&g, argc, argv)) != -1) {
		switch (ch) {
		case 'c':
			opt_compact = 1;
			break;
		case 'h':
			usage(0);
		case O_NOREDACT:
			ofl_redact_force(0);
			break;
		case 'j':
		case 'J':
		case O_SHAPE:
			/* One form of output: the last would win unsaid. */
			opt_mode = ch == 'j' ? MODE_JSONL : ch == 'J' ?
			    MODE_SCHEMA : MODE_SHAPE;
			if (mode != -1 && mode != opt_mode)
				errx(OFL_EXIT_USAGE, "--shape, --json-schema "
				    "and --json go one at a time");
			mode = opt_mode;
			break;
		case 'k':
			opt_kind = ofl_kind_from_name(optarg);
			if (!ofl_schema_supports(opt_kind))
				errx(OFL_EXIT_USAGE, "--kind %s: use json, "
				    "ndjson, csv, tsv or table", optarg);
			break;
		case 'l':
			opt_lenient = 1;
			break;
		case 'm':
			if (ofl_parse_size(optarg, &opt_max) == -1)
				errx(OFL_EXIT_USAGE, "--max-bytes %s",
				    ofl_errmsg());
			break;
		case O_NOPAGER:
			*page = 0;
			break;
		case 's':
			*store = optarg;
			break;
		case 'V':
			printf("ofl %s\n", PACKAGE_VERSION);
			exit(0);
		case OFL_OPT_LIST:
			ofl_opt_list(stdout, opts);
			exit(0);
		default:
			usage(OFL_EXIT_USAGE);
		}
	}
	ofl_opt_free(&g);
}

/* "ofl-schema: ID: message", unless the message names the ID already. */
static void
warnx_id(const char *id, const char *msg)
{
	const char	*i = id, *m = msg;
	int		 c, e;

	/* As ofl_seterr() shows an ID: a tab a space, a control byte '?'. */
	for (; *i != '\0'; i++, m++) {
		c = (unsigned char)*i;
		e = c == '\t' || c == '\n' || c == '\r' ? ' ' : c < 0x20 ||
		    c == 0x7f ? '?' : c;
		if ((unsigned char)*m != e)
			break;
	}
	if (*i != '\0' || *m != ':')
		/* Said apart, the ID shown as safely as the message. */
		ofl_seterr(ofl_errcode(), "%s: %s", id, msg);
	warnx("%s", ofl_errmsg());
}

/*
 * Content that starts like JSON but did not pass as JSON when it was
 * captured (it is cut short or broken) is read as JSON, so that the error
 * says where it breaks.  Like JSON: an object's first member name or its
 * end, or an array's first value (a number ended as one, a literal) or
 * its end; "[Build on CentOS 7] ..." and "[12:00:01] ..." are text.
 */
static int
looks_like_json(struct ofl_reader *r, int kind)
{
	char buf[512];
	ssize_t n, i;

	if ((n = ofl_reader_read(r, buf, sizeof(buf))) <= 0 ||
	    ofl_reader_seek(r, 0) == -1)
		return kind;
	i = json_space(buf, n, 0);
	if (i < n && (buf[i] == '{' || buf[i] == '[') &&
	    json_opens(buf, n, json_space(buf, n, i + 1), buf[i]))
		return OFL_KIND_JSON;
	return kind;
}

/* The first byte at or after i that is not JSON's white space. */
static ssize_t
json_space(const char *buf, ssize_t n, ssize_t i)
{
	while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' ||
	    buf[i] == '\r'))
		i++;
	return i;
}

/* The first byte at or after i that is not a digit. */
static ssize_t
json_digits(const char *buf, ssize_t n, ssize_t i)
{
	while (i < n && isdigit((unsigned char)buf[i]))
		i++;
	return i;
}

/* 1 if buf[i..n) can follow the open bracket c in JSON (or is cut). */
static int
json_opens(const char *buf, ssize_t n, ssize_t i, int c)
{
	static const char *const lit[] = { "true", "false", "null" };
	size_t	k, len;

	/* Arrays in arrays: what the innermost opens with ("[[bin]]" no). */
	while (c == '[' && i < n && (buf[i] == '[' || buf[i] == '{')) {
		c = buf[i];
		i = json_space(buf, n, i + 1);
	}
	if (i >= n)
		return 1;
	if (c == '{')
		return buf[i] == '"' || buf[i] == '}';
	if (ofl_in_set(buf[i], "\"]"))
		return 1;
	for (k = 0; k < sizeof(lit) / sizeof(lit[0]); k++) {
		len = strlen(lit[k]);
		if ((size_t)(n - i) < len)
			len = (size_t)(n - i);
		if (buf[i] == lit[k][0])
			return strncmp(buf + i, lit[k], len) == 0;
	}
	/* A number: -? digits (. digits)? ([eE] [+-]? digits)? */
	if (buf[i] == '-')
		i++;
	if (i < n && !isdigit((unsigned char)buf[i]))
		return 0;
	i = json_digits(buf, n, i);
	if (i < n && buf[i] == '.')
		i = json_digits(buf, n, i + 1);
	if (i < n && (buf[i] == 'e' || buf[i] == 'E')) {
		if (++i < n && (buf[i] == '+' || buf[i] == '-'))
			i++;
		i = json_digits(buf, n, i);
	}
	i = json_space(buf, n, i);
	return i >= n || buf[i] == ',' || buf[i] == ']';
}

/* Print text, with secrets in values and examples masked. */
static void
print(const char *s, size_t n)
{
	struct ofl_buf b;

	if (redactor == NULL) {
		fwrite(s, 1, n, stdout);
		return;
	}
	ofl_buf_init(&b);
	ofl_redact(redactor, s, n, &b);
	fwrite(b.data, 1, b.len, stdout);
	ofl_buf_free(&b);
}

/* A log's templates, most frequent first; returns 0 or an exit status. */
static int
describe_log(struct ofl_store *st, const char *arg, const char *id)
{
	struct ofl_schema_log	 sl;
	struct ofl_buf		 out;

	if (opt_mode == MODE_SCHEMA) {
		warnx("%s: log content has no JSON Schema (--json lists its "
		    "templates)", arg);
		return OFL_EXIT_FAIL;
	}
	if (ofl_schema_log(st, id, 0, 1, &sl) != 0) {
		warnx_id(arg, ofl_errmsg());
		return ofl_errcode();
	}
	ofl_store_touch(st, id);
	ofl_buf_init(&out);
	ofl_schema_log_out(&sl, id, opt_store, opt_max,
	    opt_mode == MODE_JSONL, &out);
	print(out.data, out.len);
	ofl_buf_free(&out);
	ofl_schema_log_free(&sl);
	return 0;
}

/*
 * The lines of ofl_schema_jsonl(), each naming its artifact, within the
 * budget: past it, one object says which lines were left out and the
 * command that prints them all.
 */
static void
jsonl(const char *id, struct ofl_buf *out)
{
	struct ofl_buf	 line1;
	const char	*line, *nl;
	uint64_t	 used = 0, no = 0, left = 0;

	ofl_buf_str(out);
	ofl_buf_init(&line1);
	for (line = out->data; line != NULL && *line == '{'; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			break;
		no++;
		if (left > 0) {
			left++;
			continue;
		}
		ofl_buf_reset(&line1);
		ofl_buf_addf(&line1, "{\"id\":\"%s\",%.*s\n", id,
		    (int)(nl - line - 1), line + 1);
		if (opt_max > 0 && no > 1 && used + line1.len > opt_max) {
			left = 1;
			continue;
		}
		used += line1.len;
		print(line1.data, line1.len);
	}
	if (left > 0) {
		ofl_buf_reset(&line1);
		ofl_buf_addf(&line1, "{\"id\":\"%s\",\"omitted\":\"line", id);
		if (left > 1)
			ofl_buf_addf(&line1, "s %" PRIu64 "-", no - left + 1);
		else
			ofl_buf_adds(&line1, " ");
		ofl_buf_addf(&line1, "%" PRIu64 " of %" PRIu64 " over the "
		    "budget\",\"command\":\"ofl-schema %s -j -m 0\"}\n", no,
		    no, id);
		print(line1.data, line1.len);
	}
	ofl_buf_free(&line1);
}

/* Describe one artifact; returns 0 or an exit status. */
static int
describe(struct ofl_store *st, const char *arg, const char *id, int header)
{
	struct ofl_reader *r;
	struct ofl_schema *s;
	struct ofl_buf out;
	const struct ofl_meta *m;
	const char *warning;
	int kind, rv = 0, bad;

	if ((r = ofl_reader_open(st, id)) == NULL) {
		warnx_id(arg, ofl_errmsg());
		return ofl_errcode();
	}
	m = ofl_reader_meta(r);
	kind = opt_kind != -1 ? opt_kind : m->kind;
	if (opt_kind == -1 && kind == OFL_KIND_LOG) {
		/* A log's schema is its templates ("[" starts a log line). */
		ofl_reader_close(r);
		return describe_log(st, arg, id);
	}
	if (opt_kind == -1 && kind == OFL_KIND_TEXT)
		kind = looks_like_json(r, kind);
	if (!ofl_schema_supports(kind)) {
		warnx("%s: %s content has no schema (only JSON, NDJSON, CSV, "
		    "TSV and tables; --kind reads it as one of these)", arg,
		    ofl_kind_name(kind));
		ofl_reader_close(r);
		return OFL_EXIT_FAIL;
	}
	if ((s = ofl_schema_new(kind)) == NULL) {
		warnx("%s: %s", arg, ofl_errmsg());
		ofl_reader_close(r);
		return OFL_EXIT_FAIL;
	}
	bad = ofl_schema_read(s, r, 0, NULL) == -1;
	ofl_store_touch(st, id);
	ofl_reader_close(r);
	if (bad) {
		if (!opt_lenient) {
			warnx("%s: %s (--lenient describes what parsed)", arg,
			    ofl_errmsg());
			ofl_schema_free(s);
			return OFL_EXIT_FAIL;
		}
		warnx("%s: %s; describing what parsed before it", arg,
		    ofl_errmsg());
	}
	if ((warning = ofl_schema_warning(s)) != NULL)
		warnx("%s: %s", arg, warning);

	ofl_buf_init(&out);
	switch (opt_mode) {
	case MODE_SHAPE:
		if (header)
			printf("ofl:%s %s\n", id, ofl_kind_name(kind));
		ofl_schema_shape_text(s, opt_max, 0, &out);
		print(out.data, out.len);
		break;
	case MODE_SCHEMA:
		ofl_schema_json_schema(s, opt_compact, &out);
		fwrite(out.data, 1, out.len, stdout);
		break;
	case MODE_JSONL:
		ofl_schema_jsonl(s, &out);
		jsonl(id, &out);
		break;
	}
	ofl_buf_free(&out);
	ofl_schema_free(s);
	return rv;
}

int
main(int argc, char *argv[])
{
	struct ofl_store *st = NULL;
	struct ofl_input in;
	struct ofl_ref *refs = NULL;
	const char *store, *name, **names;
	char full[OFL_ID_MAX + 1], (*done)[OFL_ID_MAX + 1] = NULL;
	size_t nrefs = 0, ndone = 0, i, j;
	int rv = 0, r, from_stdin, page;

	ofl_setprogname("ofl-schema");
	parse_options(argc, argv, &store, &page);
	opt_store = store;
	argc -= optind;
	argv += optind;

	/* The operands; "-" (or none) is standard input. */
	if ((from_stdin = ofl_input_args(argc, argv, &in, &refs, &nrefs)) == -1)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	/*
	 * Writable when it can be, so that a log's templates mined here are
	 * kept; a store that cannot be written is read all the same.
	 */
	if ((st = ofl_store_open(store, in.type == OFL_INPUT_DATA ?
	    OFL_RDWR : OFL_RDWR | OFL_NOCREATE)) == NULL &&
	    in.type != OFL_INPUT_DATA)
		st = ofl_store_open(store, OFL_RDONLY);
	if (st == NULL)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	if (from_stdin &&
	    ofl_input_refs(&in, st, &refs, &nrefs) == -1)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	ofl_input_close(&in);
	if (nrefs == 0)
		errx(OFL_EXIT_USAGE, "no artifact: standard input holds no "
		    "reference");
	/* After the store is open: its "redact" setting counts. */
	if (ofl_redact_wanted())
		redactor = ofl_redactor_new();
	if (page)
		ofl_pager_start();

	/*
	 * Each artifact once, however many of its ranges are named: resolve
	 * them all first, so that a header is printed only for several.
	 */
	done = ofl_xcalloc(nrefs + 1, sizeof *done);
	names = ofl_xcalloc(nrefs + 1, sizeof *names);
	for (i = 0; i < nrefs; i++) {
		name = ofl_ref_name(&refs[i]);
		if (ofl_store_resolve(st, name, full) == -1) {
			warnx_id(name, ofl_errmsg());
			if (ofl_errcode() > rv)
				rv = ofl_errcode();
			continue;
		}
		for (j = 0; j < ndone; j++)
			if (strcmp(done[j], full) == 0)
				break;
		if (j < ndone)
			continue;
		names[ndone] = name;
		memcpy(done[ndone++], full, sizeof full);
	}
	for (j = 0; j < ndone; j++) {
		r = describe(st, names[j], done[j], ndone > 1);
		if (r > rv)
			rv = r;
	}
	free(names);
	free(done);
	free(refs);
	ofl_store_close(st);
	ofl_redactor_free(redactor);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(OFL_EXIT_FAIL, "stdout");
	ofl_pager_finish();
	return rv;
}
