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
	OPT_ARG = 256,
	OPT_ARGJSON,
	OPT_COLOR,
	OPT_ERRORS,
	OPT_LIMIT,
	OPT_MAXBYTES,
	OPT_MEMBER,
	OPT_MEMLIMIT,
	OPT_NOPAGER,
	OPT_SKIP,
	OPT_TIMELIMIT
};

static const struct option longopts[] = {
	{ "arg", required_argument, NULL, OPT_ARG },
	{ "argjson", required_argument, NULL, OPT_ARGJSON },
	{ "bytes", required_argument, NULL, 'b' },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ "compact-output", no_argument, NULL, 'c' },
	{ "context", required_argument, NULL, 'C' },
	{ "errors", no_argument, NULL, OPT_ERRORS },
	{ "help", no_argument, NULL, 'h' },
	{ "ignore-case", no_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },
	{ "no-redact",	no_argument,		NULL, 0x4e52 },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "lines", required_argument, NULL, 'n' },
	{ "max-bytes", required_argument, NULL, OPT_MAXBYTES },
	{ "member", required_argument, NULL, OPT_MEMBER },
	{ "memory-limit", required_argument, NULL, OPT_MEMLIMIT },
	{ "no-pager", no_argument, NULL, OPT_NOPAGER },
	{ "raw-output", no_argument, NULL, 'r' },
	{ "regexp", required_argument, NULL, 'e' },
	{ "skip", required_argument, NULL, OPT_SKIP },
	{ "store", required_argument, NULL, 's' },
	{ "version", no_argument, NULL, 'V' },
	{ "time-limit", required_argument, NULL, OPT_TIMELIMIT },
	{ NULL, 0, NULL, 0 },
};

static OFL_DEAD void	 usage(int);
static void		 warn_cb(void *, const char *);
static int		 looks_like_id(const char *);
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

	fprintf(fp,
	    "usage: ofl-extract [-cijr] [--errors] [-b bytes] [-C num] "
	    "[-e regex]\n"
	    "\t[-n lines] [-s store] [--arg name value] [--argjson name json]\n"
	    "\t[--color=when] [--limit num] [--max-bytes num] [--member path]\n"
	    "\t[--memory-limit size] [--no-pager] [--skip num]\n"
	    "\t[--time-limit seconds] [id[:A-B]] [filter]\n");
	if (status == 0)
		fprintf(fp, "\n"
		    "Print exact evidence from an artifact: with no options "
		    "its whole content.\n"
		    "  -n, --lines A-B      lines A to B with their numbers "
		    "(also A+N, -N, A-, A)\n"
		    "  -b, --bytes A-B      bytes A to B, raw "
		    "(offsets from 0)\n"
		    "  filter               a jq filter, with -r "
		    "(--raw-output), -c (--compact-output),\n"
		    "                       --arg NAME VALUE, --argjson NAME "
		    "JSON\n"
		    "  -e, --regexp RE      lines matching an extended regular "
		    "expression,\n"
		    "                       -C, --context N lines around, -i, "
		    "--ignore-case\n"
		    "  --errors             error blocks and failing tests, "
		    "most relevant first\n"
		    "  --member PATH        a member of an archive artifact\n"
		    "  --skip N, --limit N  results or blocks to skip, at most "
		    "to print\n"
		    "  --max-bytes N        output budget (default %d; 0: no "
		    "limit)\n"
		    "  --time-limit SECS    CPU time of a filter or regex "
		    "(default %d; 0: none)\n"
		    "  --memory-limit SIZE  its memory (default 1G; 0: none)\n"
		    "  -j, --json           JSON Lines\n"
		    "  --color[=WHEN]       line numbers in color: auto (a "
		    "terminal), always, never\n"
		    "  --no-pager           do not page output longer than "
		    "the screen\n"
		    "      --no-redact      show secrets unmasked\n"
		    "  -s, --store DIR      the store\n"
		    "  -h, --help           this help\n"
		    "  -V, --version        print the version\n"
		    "The id may name lines: ofl:ID:A-B prints lines A to B, "
		    "as -n A-B does.\n"
		    "With no id, standard input gives an ofl: reference or "
		    "data to capture first;\n"
		    "'-' as the id says so before a filter.\n",
		    OFL_EXTRACT_BUDGET, OFL_EXTRACT_TIME);
	exit(status);
}

static void
warn_cb(void *arg, const char *msg)
{
	(void)arg;
	warnx("%s", msg);
}

/* An ID, ofl:ID, @, @N, each maybe with :A-B; else a jq filter. */
static int
looks_like_id(const char *s)
{
	struct ofl_ref	r;

	if (strncmp(s, "ofl:", 4) == 0 || s[0] == '@')
		return 1;
	return ofl_ref_arg(s, &r) == 0 && ofl_id_valid(r.ref, strlen(r.ref));
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

	if (ofl_parse_num(s, 0, (long long)1 << 62, &v) == -1) {
		warnx("%s: %s", opt, ofl_errmsg());
		usage(OFL_EXIT_USAGE);
	}
	return (uint64_t)v;
}

/* --time-limit, or $OFL_TIME_LIMIT: seconds, or 30s, 2m; 0 for none. */
static void
time_limit(struct ofl_extract *o, const char *what, const char *s)
{
	int64_t	ms;

	if (ofl_parse_duration(s, &ms) == -1 || ms < 0 ||
	    ms > (int64_t)24 * 3600 * 1000) {
		warnx("%s: bad time '%s' (seconds, or 30s, 5m; 0: none)",
		    what, s);
		usage(OFL_EXIT_USAGE);
	}
	o->time_limit = (unsigned)((ms + 999) / 1000);
}

/* --memory-limit, or $OFL_MEMORY_LIMIT: 512M, 2G; 0 for none. */
static void
memory_limit(struct ofl_extract *o, const char *what, const char *s)
{
	uint64_t	n;

	if (ofl_parse_size(s, &n) == -1 || (n > 0 && n < (1 << 24))) {
		warnx("%s: bad size '%s' (16M or more; 0: none)", what, s);
		usage(OFL_EXIT_USAGE);
	}
	o->mem_limit = n;
}

int
main(int argc, char *argv[])
{
	struct ofl_extract	 o;
	struct ofl_store	*st;
	struct ofl_span		*spans = NULL;
	struct ofl_jq_arg	*args = NULL;
	struct ofl_input	 in;
	struct ofl_ref		*refs = NULL;
	const char		*store = NULL, *ref = NULL, *e;
	char			 id[OFL_ID_MAX + 1];
	size_t			 nspans = 0, nargs = 0, nrefs = 0;
	int			 ch, errors = 0, bytes = 0, jqopt = 0;
	int			 regexopt = 0, budget = 0, rv, page = 1;
	int			 color = OFL_COLOR_AUTO;

	ofl_setprogname("ofl-extract");
	ofl_extract_init(&o);
	o.warn = warn_cb;
	if ((e = getenv("OFL_TIME_LIMIT")) != NULL && *e != '\0')
		time_limit(&o, "OFL_TIME_LIMIT", e);
	if ((e = getenv("OFL_MEMORY_LIMIT")) != NULL && *e != '\0')
		memory_limit(&o, "OFL_MEMORY_LIMIT", e);
	while ((ch = getopt_long(argc, argv, "b:C:ce:hijn:rs:V", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'b':
		case 'n':
			spans = ofl_xrealloc(spans, (nspans + 1) *
			    sizeof *spans);
			if (ofl_span_parse(optarg, ch == 'n' ? OFL_SPAN_LINES :
			    OFL_SPAN_BYTES, &spans[nspans]) == -1) {
				warnx("%s", ofl_errmsg());
				usage(OFL_EXIT_USAGE);
			}
			if (ch == 'b')
				bytes = 1;
			nspans++;
			break;
		case 'C':
			o.context = (unsigned)number("-C", optarg);
			if (o.context > 100000)
				o.context = 100000;
			regexopt = 1;
			break;
		case 'c':
			o.compact = 1;
			jqopt = 1;
			break;
		case 'e':
			o.regex = optarg;
			break;
		case 'h':
			usage(0);
		case 'i':
			o.icase = 1;
			regexopt = 1;
			break;
		case 0x4e52:	/* --no-redact */
			ofl_redact_force(0);
			break;
		case 'j':
			o.json = 1;
			break;
		case 'r':
			o.raw = 1;
			jqopt = 1;
			break;
		case 's':
			store = optarg;
			break;
		case 'V':
			printf("ofl %s\n", PACKAGE_VERSION);
			exit(0);
		case OPT_ARG:
		case OPT_ARGJSON:
			if (optind >= argc) {
				warnx("%s %s: missing value", ch == OPT_ARG ?
				    "--arg" : "--argjson", optarg);
				usage(OFL_EXIT_USAGE);
			}
			args = ofl_xrealloc(args, (nargs + 1) * sizeof *args);
			args[nargs].name = optarg;
			args[nargs].value = argv[optind++];
			args[nargs].json = ch == OPT_ARGJSON;
			nargs++;
			jqopt = 1;
			break;
		case OPT_COLOR:
			color = OFL_COLOR_AUTO;
			if (optarg != NULL &&
			    (color = ofl_color_parse(optarg)) == -1) {
				warnx("%s", ofl_errmsg());
				usage(OFL_EXIT_USAGE);
			}
			break;
		case OPT_NOPAGER:
			page = 0;
			break;
		case OPT_ERRORS:
			errors = 1;
			break;
		case OPT_LIMIT:
			o.limit = number("--limit", optarg);
			break;
		case OPT_MAXBYTES:
			if (ofl_parse_size(optarg, &o.max_bytes) == -1) {
				warnx("--max-bytes: bad size '%s'", optarg);
				usage(OFL_EXIT_USAGE);
			}
			budget = 1;
			break;
		case OPT_MEMBER:
			o.member = optarg;
			break;
		case OPT_MEMLIMIT:
			memory_limit(&o, "--memory-limit", optarg);
			break;
		case OPT_TIMELIMIT:
			time_limit(&o, "--time-limit", optarg);
			break;
		case OPT_SKIP:
			o.skip = number("--skip", optarg);
			break;
		default:
			usage(OFL_EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 2)
		usage(OFL_EXIT_USAGE);
	if (argc == 2) {
		ref = argv[0];
		o.filter = argv[1];
	} else if (argc == 1) {
		if (strcmp(argv[0], "-") == 0 || looks_like_id(argv[0]))
			ref = argv[0];
		else
			o.filter = argv[0];
	}
	if (ref != NULL && strcmp(ref, "-") == 0)
		ref = NULL;

	/* One mode at a time. */
	if ((o.filter != NULL) + (o.regex != NULL) + errors > 1) {
		warnx("a filter, -e and --errors do not go together");
		usage(OFL_EXIT_USAGE);
	}
	if (o.filter != NULL)
		o.mode = OFL_EXTRACT_JQ;
	else if (o.regex != NULL)
		o.mode = OFL_EXTRACT_REGEX;
	else if (errors)
		o.mode = OFL_EXTRACT_ERRORS;
	if (bytes && o.mode != OFL_EXTRACT_RAW) {
		warnx("-b goes only with plain output");
		usage(OFL_EXIT_USAGE);
	}
	if (jqopt && o.mode != OFL_EXTRACT_JQ) {
		warnx("-r, -c, --arg and --argjson go with a filter");
		usage(OFL_EXIT_USAGE);
	}
	if (regexopt && o.mode != OFL_EXTRACT_REGEX) {
		warnx("-C and -i go with -e");
		usage(OFL_EXIT_USAGE);
	}
	if ((o.skip > 0 || o.limit > 0) && o.mode != OFL_EXTRACT_JQ &&
	    o.mode != OFL_EXTRACT_ERRORS) {
		warnx("--skip and --limit go with a filter or --errors");
		usage(OFL_EXIT_USAGE);
	}
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
		if (nspans > 0) {
			warnx("%s: a line range in the reference goes without "
			    "-n and -b", ref);
			usage(OFL_EXIT_USAGE);
		}
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
		if (argc == 1 && o.filter == NULL && rv == OFL_EXIT_FAIL &&
		    jq_word(ref))
			warnx("to run the filter '%s' on standard input: "
			    "ofl-extract - %s", ref, ref);
		goto out;
	}
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
