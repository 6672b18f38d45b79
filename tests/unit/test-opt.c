/*
 * test-opt.c: an option table gives the getopt_long() arguments, the
 * usage synopsis in its order, the --help lines and the parse itself,
 * hidden aliases and --list-options included.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "tap.h"

enum { O_FTS = OFL_OPT_BASE, O_SINCE, O_COLOR };

static const struct ofl_opt opts[] = {
	{ 'q', "quiet", no_argument, NULL, "print IDs only", 0, NULL },
	{ 'n', "limit", required_argument, "limit", "hits (5)", 0, NULL },
	{ O_SINCE, "since", required_argument, "age", "made within AGE", 0,
	    NULL },
	{ 'S', "session", required_argument, "session", "this session", 0,
	    NULL },
	{ O_FTS, "fts", no_argument, NULL, "FTS5 syntax", 0, NULL },
	{ 'a', "all", no_argument, NULL, "the whole store", 0, NULL },
	{ O_COLOR, "color", optional_argument, "when", "color\nmatches", 0,
	    NULL },
	{ 's', "store", required_argument, "store", "the store", 0, NULL },
	{ 'h', "help", no_argument, NULL, "print this help", OFL_OPT_NOSYN,
	    NULL },
	{ 'b', "budget", required_argument, "bytes", NULL, 0, NULL },
	{ 0, NULL, 0, NULL, NULL, 0, NULL }
};

/* What f printed into a temporary file. */
static char *
printed(void (*f)(FILE *))
{
	FILE	*fp;
	char	*s;
	long	 n;

	if ((fp = tmpfile()) == NULL)
		return NULL;
	f(fp);
	n = ftell(fp);
	rewind(fp);
	s = ofl_xcalloc((size_t)n + 1, 1);
	if (fread(s, 1, (size_t)n, fp) != (size_t)n)
		s[0] = '\0';
	fclose(fp);
	return s;
}

static void
print_usage(FILE *fp)
{
	ofl_opt_usage(fp, "ofl-t", opts, "[query]", "       ofl-t -h\n");
}

static void
print_help(FILE *fp)
{
	ofl_opt_help(fp, opts);
}

static void
print_list(FILE *fp)
{
	ofl_opt_list(fp, opts);
}

int
main(void)
{
	struct ofl_getopt	 g;
	char			*argv[] = { "ofl-t", "-qn", "3", "--since=1h",
				    "-b", "9", "--color", "--list-options",
				    "--bogus", "word", NULL };
	char			*s;
	int			 argc = 10, ch, seen[8] = { 0 };

	ofl_opt_init(&g, opts, 0);
	is_str(g.shortopts, "qn:S:as:hb:", "the getopt string, hidden -b too");
	ok(g.longopts[0].val == 'q' && strcmp(g.longopts[9].name,
	    "budget") == 0 && g.longopts[9].val == 'b',
	    "the long options, the hidden --budget too");
	ok(strcmp(g.longopts[10].name, "list-options") == 0 &&
	    g.longopts[10].val == OFL_OPT_LIST && g.longopts[11].name == NULL,
	    "--list-options ends every table");

	opterr = 0;
	while ((ch = ofl_opt_next(&g, argc, argv)) != -1) {
		switch (ch) {
		case 'q':
			seen[0] = 1;
			break;
		case 'n':
			seen[1] = strcmp(optarg, "3") == 0;
			break;
		case O_SINCE:
			seen[2] = strcmp(optarg, "1h") == 0;
			break;
		case 'b':
			seen[3] = strcmp(optarg, "9") == 0;
			break;
		case O_COLOR:
			seen[4] = optarg == NULL;
			break;
		case OFL_OPT_LIST:
			seen[5] = 1;
			break;
		case '?':
			seen[6] = 1;
			break;
		}
	}
	ok(seen[0] && seen[1] && seen[2] && seen[3] && seen[4] && seen[5] &&
	    seen[6], "the parse: bundles, =, hidden aliases, unknown options");
	ok(optind == 9 && strcmp(argv[optind], "word") == 0,
	    "the operands follow");
	ofl_opt_free(&g);

	s = printed(print_usage);
	is_str(s, "usage: ofl-t [-aq] [--fts] [-n limit] [-S session] "
	    "[-s store] [--color=when]\n"
	    "             [--since age] [query]\n"
	    "       ofl-t -h\n",
	    "the synopsis: flags, long flags, letters, long options");
	free(s);

	s = printed(print_help);
	is_str(s,
	    "  -q, --quiet             print IDs only\n"
	    "  -n, --limit LIMIT       hits (5)\n"
	    "      --since AGE         made within AGE\n"
	    "  -S, --session SESSION   this session\n"
	    "      --fts               FTS5 syntax\n"
	    "  -a, --all               the whole store\n"
	    "      --color[=WHEN]      color\n"
	    "                          matches\n"
	    "  -s, --store STORE       the store\n"
	    "  -h, --help              print this help\n",
	    "--help: the table's order, no hidden alias");
	free(s);

	s = printed(print_list);
	ok(s != NULL && strstr(s, "b\tbudget\trequired\tbytes\thidden\n") !=
	    NULL && strstr(s, "-\tsince\trequired\tage\tshown\n") != NULL,
	    "--list-options: one row an entry");
	free(s);
	return done_testing();
}
