/*
 * ofl-extract: exact evidence from an artifact: its content, line and byte
 * ranges, a jq filter, lines matching a regex, error blocks, members.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

enum {
	OPT_ARG = OFL_OPT_BASE,
	OPT_ARGJSON,
	OPT_COLOR,
	OPT_ERRORS,
	OPT_LIMIT,
	OPT_MEMBER,
	OPT_MEMLIMIT,
	OPT_NOPAGER,
	OPT_NAME,
	OPT_NOREDACT,
	OPT_ROLE,
	OPT_SKIP,
	OPT_TIMELIMIT,
	OPT_TEMPLATE
};

#define STR1(x)	#x
#define STR(x)	STR1(x)

/* The options, in the order of --help; tests/t9040 checks the rest. */
static const struct ofl_opt opts[] = {
	{ 'n', "lines", required_argument, "lines",
	    "lines A to B with their numbers (also A+N, -N, A-, A)", 0,
	    NULL },
	{ 'b', "bytes", required_argument, "bytes",
	    "bytes A to B, raw (offsets from 0)", 0, NULL },
	{ 'r', "raw-output", no_argument, NULL,
	    "with a filter: strings without quotes", 0, NULL },
	{ 'c', "compact-output", no_argument, NULL,
	    "with a filter: each result on one line", 0, NULL },
	{ OPT_ARG, "arg", required_argument, "name value",
	    "with a filter: $NAME is the string VALUE", 0, NULL },
	{ OPT_ARGJSON, "argjson", required_argument, "name json",
	    "with a filter: $NAME is the JSON text JSON", 0, NULL },
	{ 'e', "regexp", required_argument, "regex",
	    "lines matching an extended regular expression", 0, NULL },
	{ 'C', "context", required_argument, "num",
	    "with -e: NUM lines around", 0, NULL },
	{ 'i', "ignore-case", no_argument, NULL, "with -e: ignore case", 0,
	    NULL },
	{ OPT_ERRORS, "errors", no_argument, NULL,
	    "error blocks and failing tests, most relevant first", 0, NULL },
	{ OPT_TEMPLATE, "template", required_argument, "id",
	    "the lines of one log template (IDs from ofl-schema)", 0, NULL },
	{ OPT_MEMBER, "member", required_argument, "path",
	    "a member of an archive artifact", 0, NULL },
	{ OPT_ROLE, "role", required_argument, "role",
	    "a browser snapshot's elements of this role, with ref and path",
	    0, NULL },
	{ OPT_NAME, "name", required_argument, "text",
	    "... whose name holds TEXT (case ignored)", 0, NULL },
	{ OPT_SKIP, "skip", required_argument, "num",
	    "results or blocks to skip (a filter, --errors)", 0, NULL },
	{ OPT_LIMIT, "limit", required_argument, "num",
	    "results or blocks at most to print", 0, NULL },
	{ 'm', "max-bytes", required_argument, "bytes",
	    "output budget (default " STR(OFL_EXTRACT_BUDGET)
	    "; 0: no limit)", 0, NULL },
	{ OPT_TIMELIMIT, "time-limit", required_argument, "seconds",
	    "CPU time of a filter or regex (default "
	    STR(OFL_EXTRACT_TIME) "; 0: none)", 0, NULL },
	{ OPT_MEMLIMIT, "memory-limit", required_argument, "size",
	    "its memory (default 1G; 0: none)", 0, NULL },
	{ 'j', "json", no_argument, NULL, "JSON Lines", 0, NULL },
	{ OPT_COLOR, "color", optional_argument, "when",
	    "color line numbers: auto (a terminal), always, never", 0,
	    NULL },
	{ OPT_NOPAGER, "no-pager", no_argument, NULL,
	    "do not page output longer than the screen", 0, NULL },
	{ OPT_NOREDACT, "no-redact", no_argument, NULL,
	    "show secrets unmasked", OFL_OPT_NOSYN, NULL },
	{ 's', "store", required_argument, "store", "the store", 0, NULL },
	{ 'h', "help", no_argument, NULL, "print this help", OFL_OPT_NOSYN,
	    NULL },
	{ 'V', "version", no_argument, NULL, "print the version",
	    OFL_OPT_NOSYN, NULL },
	{ 0, NULL, 0, NULL, NULL, 0, NULL }
};

/* What the options and operands say. */
struct args {
	struct ofl_extract	 o;
	struct ofl_span		*spans;
	size_t			 nspans;
	struct ofl_jq_arg	*args;
	size_t			 nargs;
	const char		*store;
	const char		*ref;
	int			 nops;		/* operands given */
	int			 errors;
	int			 bytes;		/* -b given */
	int			 jqopt;		/* -r, -c, --arg */
	int			 regexopt;	/* -C, -i */
	int			 budget;	/* --max-bytes given */
	int			 page;
	int			 color;
};

static OFL_DEAD void	 usage(int);
static void		 parse_options(int, char *[], struct args *);
static void		 parse_operands(int, char *[], struct args *);
static void		 check_modes(struct args *);
static void		 warn_cb(void *, const char *);
static int		 looks_like_id(const char *);
static int		 archive_kind(struct ofl_store *, const char *);
static int		 jq_word(const char *);
static uint64_t		 number(const char *, const char *);
static void		 time_limit(struct ofl_extract *, const char *,
			    const char *);
static void		 memory_limit(struct ofl_extract *, const char *,
			    const char *);

static OFL_DEAD void
usage(int status)
{
	FILE	*fp = status ? stderr : stdout;

	ofl_opt_usage(fp, "ofl-extract", opts, "[id[:A-B]] [filter]", NULL);
	if (status == 0) {
		fprintf(fp, "\n"
		    "Print exact evidence from an artifact: with no options "
		    "its whole content;\n"
		    "with a filter operand, the results of that jq filter.\n"
		    "\n");
		ofl_opt_help(fp, opts);
		fprintf(fp,
		    "The id may name lines: ofl:ID:A-B prints lines A to B, "
		    "as -n A-B does.\n"
		    "With no id, standard input gives an ofl: reference or "
		    "data to capture first;\n"
		    "'-' as the id says so before a filter.\n");
	}
	exit(status);
}

static void
warn_cb(void *arg, const char *msg)
{
	(void)arg;
	warnx("%s", msg);
}

/*
 * An ID, ofl:ID, @, @N, each maybe with :A-B; else a jq filter.  An ID
 * and a colon is a reference whatever follows ("ID:5-3" is a bad range,
 * said as such, not a filter to run on standard input).
 */
static int
looks_like_id(const char *s)
{
	struct ofl_ref	r;
	const char	*colon;

	if (strncmp(s, "ofl:", 4) == 0 || s[0] == '@')
		return 1;
	if ((colon = strchr(s, ':')) != NULL)
		return ofl_id_valid(s, (size_t)(colon - s));
	return ofl_ref_arg(s, &r) == 0 && ofl_id_valid(r.ref, strlen(r.ref));
}

/* 1 if artifact id is an archive or a compressed stream: it has members. */
static int
archive_kind(struct ofl_store *st, const char *id)
{
	struct ofl_meta	m;
	int		k;

	if (ofl_store_meta(st, id, &m) == -1) {
		ofl_clearerr();
		return 0;
	}
	k = m.kind;
	ofl_meta_free(&m);
	return k == OFL_KIND_ARCHIVE || k == OFL_KIND_COMPRESSED;
}

static int
jq_word(const char *s)
{
	static const char	*words[] = { "add", "empty", "env", "keys",
	    "max", "type", NULL };
	size_t			 i;

	for (i = 0; words[i] != NULL; i++)
		if (strcmp(s, words[i]) == 0)
			return 1;
	return 0;
}

static uint64_t
number(const char *opt, const char *s)
{
	long long	v;

	if (ofl_parse_num(s, 0, (long long)1 << 62, &v) == -1)
		errx(OFL_EXIT_USAGE, "%s %s", opt, ofl_errmsg());
	return (uint64_t)v;
}

/* --time-limit, or $OFL_TIME_LIMIT: seconds, or 30s, 2m; 0 for none. */
static void
time_limit(struct ofl_extract *o, const char *what, const char *s)
{
	int64_t	ms;

	if (ofl_parse_duration(s, &ms) == -1 || ms < 0 ||
	    ms > (int64_t)24 * 3600 * 1000) {
		errx(OFL_EXIT_USAGE, "%s: bad time '%s' (seconds, or 30s, "
		    "5m; 0: none)", what, s);
	}
	o->time_limit = (unsigned)((ms + 999) / 1000);
}

/* --memory-limit, or $OFL_MEMORY_LIMIT: 512M, 2G; 0 for none. */
static void
memory_limit(struct ofl_extract *o, const char *what, const char *s)
{
	uint64_t	n;

	if (ofl_parse_size(s, &n) == -1 || (n > 0 && n < (1 << 24)))
		errx(OFL_EXIT_USAGE, "%s: bad size '%s' (16M or more; 0: "
		    "none)", what, s);
	o->mem_limit = n;
}

/* The options into a; exits on a bad one. */
static void
parse_options(int argc, char *argv[], struct args *a)
{
	struct ofl_getopt	 g;
	struct ofl_extract	*o = &a->o;
	const char		*e;
	int			 ch;

	memset(a, 0, sizeof *a);
	a->page = 1;
	a->color = OFL_COLOR_AUTO;
	ofl_extract_init(o);
	o->warn = warn_cb;
	if ((e = getenv("OFL_TIME_LIMIT")) != NULL && *e != '\0')
		time_limit(o, "OFL_TIME_LIMIT", e);
	if ((e = getenv("OFL_MEMORY_LIMIT")) != NULL && *e != '\0')
		memory_limit(o, "OFL_MEMORY_LIMIT", e);
	ofl_opt_init(&g, opts, 0);
	while ((ch = ofl_opt_next(&g, argc, argv)) != -1) {
		switch (ch) {
		case 'b':
		case 'n':
			a->spans = ofl_xrealloc(a->spans, (a->nspans + 1) *
			    sizeof *a->spans);
			if (ofl_span_parse(optarg, ch == 'n' ? OFL_SPAN_LINES :
			    OFL_SPAN_BYTES, &a->spans[a->nspans]) == -1)
				errx(OFL_EXIT_USAGE, "%s", ofl_errmsg());
			if (ch == 'b')
				a->bytes = 1;
			a->nspans++;
			break;
		case 'C':
			o->context = (unsigned)number("-C", optarg);
			if (o->context > 100000)
				o->context = 100000;
			a->regexopt = 1;
			break;
		case 'c':
			o->compact = 1;
			a->jqopt = 1;
			break;
		case 'e':
			o->regex = optarg;
			break;
		case 'h':
			usage(0);
		case 'i':
			o->icase = 1;
			a->regexopt = 1;
			break;
		case OPT_NOREDACT:
			ofl_redact_force(0);
			break;
		case 'j':
			o->json = 1;
			break;
		case 'r':
			o->raw = 1;
			a->jqopt = 1;
			break;
		case 's':
			a->store = optarg;
			break;
		case 'V':
			printf("ofl %s\n", PACKAGE_VERSION);
			exit(0);
		case OFL_OPT_LIST:
			ofl_opt_list(stdout, opts);
			exit(0);
		case OPT_ARG:
		case OPT_ARGJSON:
			if (optind >= argc)
				errx(OFL_EXIT_USAGE, "%s %s: missing value",
				    ch == OPT_ARG ? "--arg" : "--argjson",
				    optarg);
			a->args = ofl_xrealloc(a->args, (a->nargs + 1) *
			    sizeof *a->args);
			a->args[a->nargs].name = optarg;
			a->args[a->nargs].value = argv[optind++];
			a->args[a->nargs].json = ch == OPT_ARGJSON;
			a->nargs++;
			a->jqopt = 1;
			break;
		case OPT_COLOR:
			a->color = OFL_COLOR_AUTO;
			if (optarg != NULL &&
			    (a->color = ofl_color_parse(optarg)) == -1)
				errx(OFL_EXIT_USAGE, "%s", ofl_errmsg());
			break;
		case OPT_NOPAGER:
			a->page = 0;
			break;
		case OPT_ERRORS:
			a->errors = 1;
			break;
		case OPT_LIMIT:
			o->limit = number("--limit", optarg);
			break;
		case 'm':
			if (ofl_parse_size(optarg, &o->max_bytes) == -1)
				errx(OFL_EXIT_USAGE, "--max-bytes %s",
				    ofl_errmsg());
			a->budget = 1;
			break;
		case OPT_MEMBER:
			o->member = optarg;
			break;
		case OPT_ROLE:
			if (*optarg == '\0')
				errx(OFL_EXIT_USAGE, "--role: give a role "
				    "(button, link, textbox, heading, row, "
				    "...)");
			o->role = optarg;
			break;
		case OPT_NAME:
			o->name = optarg;
			break;
		case OPT_MEMLIMIT:
			memory_limit(o, "--memory-limit", optarg);
			break;
		case OPT_TIMELIMIT:
			time_limit(o, "--time-limit", optarg);
			break;
		case OPT_SKIP:
			o->skip = number("--skip", optarg);
			break;
		case OPT_TEMPLATE:
			o->tmpl = optarg;
			break;
		default:
			usage(OFL_EXIT_USAGE);
		}
	}
	ofl_opt_free(&g);
}

/* An id and a filter, an id or a filter, or nothing. */
static void
parse_operands(int argc, char *argv[], struct args *a)
{
	a->nops = argc;
	if (argc > 2)
		usage(OFL_EXIT_USAGE);
	if (argc == 2) {
		a->ref = argv[0];
		a->o.filter = argv[1];
	} else if (argc == 1) {
		if (strcmp(argv[0], "-") == 0 || looks_like_id(argv[0]))
			a->ref = argv[0];
		else
			a->o.filter = argv[0];
	}
	if (a->ref != NULL && strcmp(a->ref, "-") == 0)
		a->ref = NULL;
}

/* One mode at a time, and the options that go with it. */
static void
check_modes(struct args *a)
{
	struct ofl_extract	*o = &a->o;

	if ((o->filter != NULL) + (o->regex != NULL) + a->errors +
	    (o->role != NULL || o->name != NULL) > 1)
		errx(OFL_EXIT_USAGE, "a filter, -e, --errors and --role do "
		    "not go together");
	if (o->role != NULL || o->name != NULL) {
		o->mode = OFL_EXTRACT_ROLE;
		if (a->nspans > 0 || o->member != NULL)
			errx(OFL_EXIT_USAGE, "--role and --name take the "
			    "whole snapshot");
	} else if (o->filter != NULL)
		o->mode = OFL_EXTRACT_JQ;
	else if (o->regex != NULL)
		o->mode = OFL_EXTRACT_REGEX;
	else if (a->errors)
		o->mode = OFL_EXTRACT_ERRORS;
	if (o->tmpl != NULL) {
		if (o->mode != OFL_EXTRACT_RAW)
			errx(OFL_EXIT_USAGE, "--template goes with no "
			    "filter, -e or --errors");
		o->mode = OFL_EXTRACT_TEMPLATE;
	}
	if (a->bytes && o->mode != OFL_EXTRACT_RAW)
		errx(OFL_EXIT_USAGE, "-b goes only with plain output");
	if (a->jqopt && o->mode != OFL_EXTRACT_JQ)
		errx(OFL_EXIT_USAGE, "-r, -c, --arg and --argjson go with "
		    "a filter");
	if (a->regexopt && o->mode != OFL_EXTRACT_REGEX)
		errx(OFL_EXIT_USAGE, "-C and -i go with -e");
	if ((o->skip > 0 || o->limit > 0) && o->mode != OFL_EXTRACT_JQ &&
	    o->mode != OFL_EXTRACT_ERRORS && o->mode != OFL_EXTRACT_ROLE)
		errx(OFL_EXIT_USAGE, "--skip and --limit go with a filter, "
		    "--errors or --role");
}

int
main(int argc, char *argv[])
{
	struct args		 a;
	struct ofl_extract	 o;
	struct ofl_store	*st;
	struct ofl_span		*spans;
	struct ofl_jq_arg	*args;
	struct ofl_input	 in;
	struct ofl_ref		*refs = NULL;
	const char		*store, *ref;
	char			 id[OFL_ID_MAX + 1];
	size_t			 nspans, nargs, nrefs = 0;
	int			 budget, rv, page, color;

	ofl_setprogname("ofl-extract");
	parse_options(argc, argv, &a);
	parse_operands(argc - optind, argv + optind, &a);
	check_modes(&a);
	o = a.o;
	spans = a.spans;
	nspans = a.nspans;
	args = a.args;
	nargs = a.nargs;
	store = a.store;
	ref = a.ref;
	budget = a.budget;
	page = a.page;
	color = a.color;
	o.args = args;
	o.nargs = nargs;
	o.store_arg = store;
	o.spans = spans;
	o.nspans = nspans;
	if (ofl_extract_check(&o) == -1)
		errx(ofl_errcode(), "%s", ofl_errmsg());

	/* No id: standard input, which must not be empty. */
	memset(&in, 0, sizeof in);
	if (ref == NULL) {
		if (ofl_input_open(&in, STDIN_FILENO) == -1)
			errx(ofl_errcode(), "%s", ofl_errmsg());
		if (in.type == OFL_INPUT_EMPTY)
			errx(OFL_EXIT_USAGE, "%s", OFL_INPUT_EMPTY_MSG);
	} else {
		refs = ofl_xcalloc(1, sizeof *refs);
		if (ofl_ref_arg(ref, &refs[0]) == -1)
			errx(ofl_errcode(), "%s", ofl_errmsg());
		nrefs = 1;
	}
	if ((st = ofl_store_open(store, in.type == OFL_INPUT_DATA ?
	    OFL_RDWR : OFL_RDONLY)) == NULL)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	if (ref == NULL) {
		if (ofl_input_refs(&in, st, &refs, &nrefs) == -1)
			errx(ofl_errcode(), "%s", ofl_errmsg());
		ofl_input_close(&in);
		if (nrefs == 0)
			errx(OFL_EXIT_USAGE, "no artifact: standard input "
			    "holds no reference");
		ref = refs[0].ref;
	}
	/* ofl:ID:A-B: lines A to B, as -n A-B. */
	if (refs[0].from > 0) {
		if (nspans > 0)
			errx(OFL_EXIT_USAGE, "%s: a line range in the "
			    "reference goes without -n and -b", ref);
		spans = ofl_xcalloc(1, sizeof *spans);
		spans[0].unit = OFL_SPAN_LINES;
		spans[0].form = OFL_SPAN_RANGE;
		spans[0].a = refs[0].from;
		spans[0].b = refs[0].to;
		nspans = 1;
	}
	o.spans = spans;
	o.nspans = nspans;
	/* The plain form gives everything back; the rest has a budget. */
	if (!budget)
		o.max_bytes = o.mode == OFL_EXTRACT_RAW && nspans == 0 &&
		    !o.json ? 0 : OFL_EXTRACT_BUDGET;
	/* After the store is open: its "redact" setting counts. */
	o.redact = ofl_redact_wanted();
	ref = ofl_ref_name(&refs[0]);
	if (ofl_store_resolve(st, ref, id) == -1) {
		rv = ofl_errcode();
		warnx("%s", ofl_errmsg());
		/* A jq builtin that is also a well-formed ID. */
		if (a.nops == 1 && o.filter == NULL && rv == OFL_EXIT_FAIL &&
		    jq_word(ref))
			warnx("to run the filter '%s' on standard input: "
			    "ofl-extract - %s", ref, ref);
		goto out;
	}
	/*
	 * A search hit in an archive's member ("ofl:ID:A-B  [a.log]"): its
	 * lines are the member's.
	 */
	if (refs[0].tag[0] != '\0' && o.member == NULL &&
	    archive_kind(st, id))
		o.member = refs[0].tag;
	o.color = ofl_color_wanted(color);
	if (page)
		ofl_pager_start();
	rv = ofl_extract(st, id, &o);
	if (rv == -1) {
		rv = ofl_errcode();
		warnx("%s", ofl_errmsg());
	} else
		ofl_store_touch(st, id);
out:
	ofl_store_close(st);
	free(spans);
	free(args);
	free(refs);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(OFL_EXIT_FAIL, "stdout");
	ofl_pager_finish();
	return rv;
}
