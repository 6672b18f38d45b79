/*
 * ofl-diff: what changed between two artifacts, said by kind (rows of
 * tables, JSON paths, failing tests and error lines of logs, else the
 * lines).  The exit status is diff(1)'s: 0 the same, 1 different, 2
 * trouble.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

#define EXIT_SAME	0
#define EXIT_DIFFER	1
#define EXIT_TROUBLE	2

enum {
	O_NOREDACT = OFL_OPT_BASE
};

/* The options, in the order of --help; tests/t9040 checks the rest. */
static const struct ofl_opt opts[] = {
	{ 'j', "json", no_argument, NULL,
	    "print JSON Lines: a summary, then a change a line", 0, NULL },
	{ 'm', "max-bytes", required_argument, "bytes",
	    "cap the output at BYTES (default 2000, 0: none)", 0, NULL },
	{ O_NOREDACT, "no-redact", no_argument, NULL,
	    "show secrets unmasked", OFL_OPT_NOSYN, NULL },
	{ 's', "store", required_argument, "store",
	    "store (default $OFL_STORE)", 0, NULL },
	{ 'V', "version", no_argument, NULL, "print the version",
	    OFL_OPT_NOSYN, NULL },
	{ 'h', "help", no_argument, NULL, "print this help", OFL_OPT_NOSYN,
	    NULL },
	{ 0, NULL, 0, NULL, NULL, 0, NULL }
};

static OFL_DEAD void	usage(int);

static OFL_DEAD void
usage(int status)
{
	ofl_opt_usage(status ? stderr : stdout, "ofl-diff", opts, "old new",
	    NULL);
	if (status == 0) {
		fprintf(stdout, "\n"
		    "Say what changed between two artifacts: rows of tables, "
		    "CSV and TSV by key,\n"
		    "JSON paths, tests newly failing and passing and new "
		    "error lines of logs,\n"
		    "else the lines as a unified diff.  Exit 0: the same, 1: "
		    "different, 2: trouble.\n\n");
		ofl_opt_help(stdout, opts);
	}
	exit(status);
}

int
main(int argc, char *argv[])
{
	struct ofl_getopt	 g;
	struct ofl_diff_opts	 o;
	struct ofl_store	*st;
	struct ofl_ref		 ref;
	struct ofl_buf		 out;
	const char		*store = NULL, *note;
	char			 id[2][OFL_ID_MAX + 1], nb[80];
	uint64_t		 max;
	int			 ch, i, rv;

	ofl_setprogname("ofl-diff");
	ofl_diff_opts_init(&o);
	ofl_opt_init(&g, opts, 0);
	while ((ch = ofl_opt_next(&g, argc, argv)) != -1) {
		switch (ch) {
		case 'h':
			usage(0);
		case 'j':
			o.json = 1;
			break;
		case 'm':
			if (ofl_parse_size(optarg, &max) == -1)
				errx(EXIT_TROUBLE, "--max-bytes %s",
				    ofl_errmsg());
			o.budget = (size_t)max;
			break;
		case O_NOREDACT:
			ofl_redact_force(0);
			break;
		case 's':
			store = optarg;
			break;
		case 'V':
			printf("ofl %s\n", PACKAGE_VERSION);
			exit(0);
		case OFL_OPT_LIST:
			ofl_opt_list(stdout, opts);
			exit(0);
		default:
			usage(EXIT_TROUBLE);
		}
	}
	ofl_opt_free(&g);
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage(EXIT_TROUBLE);
	if ((st = ofl_store_open(store, OFL_RDONLY)) == NULL)
		errx(EXIT_TROUBLE, "%s", ofl_errmsg());
	for (i = 0; i < 2; i++) {
		if (ofl_ref_arg(argv[i], &ref) == -1)
			errx(EXIT_TROUBLE, "%s", ofl_errmsg());
		if (ref.from != 0)
			errx(EXIT_TROUBLE, "%s: ofl-diff compares whole "
			    "artifacts, not line ranges", argv[i]);
		/* The store's message names the artifact already. */
		if (ofl_store_resolve(st, ofl_ref_name(&ref), id[i]) == -1)
			errx(EXIT_TROUBLE, "%s", ofl_errmsg());
	}
	/* After the store is open: its "redact" setting counts. */
	if (ofl_redact_wanted()) {
		o.red = ofl_redactor_new();
		/* A line whose secret changed is not the line it replaced. */
		ofl_redactor_distinct(o.red);
	}
	ofl_buf_init(&out);
	rv = ofl_diff(st, id[0], id[1], &o, &out);
	if (rv == -1)
		errx(EXIT_TROUBLE, "%s", ofl_errmsg());
	fwrite(out.data, 1, out.len, stdout);
	ofl_buf_free(&out);
	if ((note = ofl_redactor_note(o.red, nb, sizeof nb)) != NULL)
		warnx("%s", note);
	ofl_redactor_free(o.red);
	ofl_store_close(st);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(EXIT_TROUBLE, "stdout");
	return rv == 0 ? EXIT_SAME : EXIT_DIFFER;
}
