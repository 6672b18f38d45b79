/*
 * ofl-search: BM25-ranked snippets that match a query, in some artifacts
 * or the whole store; with no query, list the artifacts.
 */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

#define PROGRESS_MIN	(8 * 1024 * 1024)	/* show progress above this */
#define HINT_WORD_MAX	64			/* a word the shell cut off */

enum {
	O_BEFORE = OFL_OPT_BASE,
	O_COLOR,
	O_FTS,
	O_META,
	O_NOPAGER,
	O_NOREDACT,
	O_SINCE,
	O_RECAP
};

/* The options, in the order of --help; tests/t9040 checks the rest. */
static const struct ofl_opt opts[] = {
	{ 'a', "all", no_argument, NULL,
	    "search the whole store, do not read stdin; list all", 0, NULL },
	{ 'm', "max-bytes", required_argument, "bytes",
	    "bytes of output for all hits (1500)", 0, NULL },
	{ 'n', "limit", required_argument, "limit",
	    "hits (5), or artifacts listed", 0, NULL },
	{ O_FTS, "fts", no_argument, NULL, "the query is FTS5 syntax", 0,
	    NULL },
	{ O_META, "meta", no_argument, NULL,
	    "the operands are IDs: list those artifacts", 0, NULL },
	{ 'l', "label", required_argument, "label",
	    "only artifacts with this label", 0, NULL },
	{ 'S', "session", required_argument, "session",
	    "only artifacts of this session", 0, NULL },
	{ 'k', "kind", required_argument, "kind",
	    "only artifacts of this kind", 0, NULL },
	{ O_SINCE, "since", required_argument, "age",
	    "only those made within AGE (30s, 15m, 3h, 7d)", 0, NULL },
	{ O_BEFORE, "before", required_argument, "age",
	    "only those made more than AGE ago", 0, NULL },
	{ O_RECAP, "recap", no_argument, NULL,
	    "what the session (-S) offloaded and saved", 0, NULL },
	{ 'q', "quiet", no_argument, NULL,
	    "print references (IDs when listing) only", 0, NULL },
	{ 'j', "json", no_argument, NULL,
	    "print JSON Lines (with the offsets of matches)", 0, NULL },
	{ O_COLOR, "color", optional_argument, "when",
	    "color matches: auto (a terminal), always, never", 0, NULL },
	{ O_NOPAGER, "no-pager", no_argument, NULL,
	    "do not page output longer than the screen", 0, NULL },
	{ O_NOREDACT, "no-redact", no_argument, NULL,
	    "show secrets unmasked", OFL_OPT_NOSYN, NULL },
	{ 's', "store", required_argument, "store",
	    "store (default $OFL_STORE)", 0, NULL },
	{ 'h', "help", no_argument, NULL, "print this help", OFL_OPT_NOSYN,
	    NULL },
	{ 'V', "version", no_argument, NULL, "print the version",
	    OFL_OPT_NOSYN, NULL },
	/*
	 * Hidden: the old names of --max-bytes, -b still written by the
	 * "more:" line of ofl_search().
	 */
	{ 'b', "budget", required_argument, "bytes", NULL, 0, NULL },
	{ 0, NULL, 0, NULL, NULL, 0, NULL }
};

/* What the options say. */
struct args {
	struct ofl_search_opts	 o;
	const char		*path;
	int			 all;
	int			 meta;
	int			 quiet;
	int			 limit;
	int			 page;
	int			 color;
	int			 recap;
	char			**opdv;		/* the operands */
	int			  opdc;
};

static struct ofl_getopt	 g;

struct lister {
	int		mode;
	int		failed;
	int		limit;		/* rows to show, 0: all */
	int		n;
	int		more;		/* a row past the limit was there */
	struct ofl_buf	rows;		/* OFL_LIST_TEXT: the table's */
};

static OFL_DEAD void	 usage(int);
static void		 parse_options(int, char *[], struct args *);
static void		 env_sizes(void);
static int		 short_option(const char *, int *);
static int		 long_option(const char *, int *);
static void		 split_args(int, char *[], char ***, int *, char ***,
			    int *);
static int		 list_cb(const struct ofl_meta *, void *);
static int		 list(const char *, const struct ofl_filter *, int, int,
			    int);
static int		 list_end(struct ofl_store *, const struct ofl_filter *,
			    struct lister *, int);
static int		 meta(const char *, char **, int, int, int);
static int		 store_missing(const char *);
static int		 recap(const char *, const char *, int, int);
static void		 progress(uint64_t, uint64_t, void *);
static void		 flush_stdout(void);
static int		 stdin_readable(void);
static void		 quote_hint(int, char *[], size_t);

static OFL_DEAD void
usage(int status)
{
	FILE	*fp = status ? stderr : stdout;

	ofl_opt_usage(fp, "ofl-search", opts, "[ID ...] [query]", NULL);
	if (status == 0) {
		fprintf(stdout, "\n"
		    "Rank the chunks of artifacts that match the query (BM25) "
		    "and print\n"
		    "snippets of its lines, byte for byte, with their numbers. "
		    " The last operand is\n"
		    "the query (quote several words), those before it are "
		    "IDs, ID:A-B for\n"
		    "lines A to B only; without IDs or with -, stdin (a "
		    "reference stream or\n"
		    "data), or the whole store.  With no operand, list "
		    "artifacts under a header.\n\n");
		ofl_opt_help(stdout, opts);
	}
	exit(status);
}

/*
 * Is arg a bundle of our short options?  *next is set if its last option
 * takes the following argument.
 */
static int
short_option(const char *arg, int *next)
{
	const char	*p, *o;

	*next = 0;
	if (arg[0] != '-' || arg[1] == '\0' || arg[1] == '-')
		return 0;
	for (p = arg + 1; *p != '\0'; p++) {
		if (*p == ':' || *p == '+' ||
		    (o = strchr(g.shortopts, *p)) == NULL)
			return 0;
		if (o[1] == ':') {
			*next = p[1] == '\0';
			return 1;
		}
	}
	return 1;
}

static int
long_option(const char *arg, int *next)
{
	const struct option	*o;
	const char		*eq;
	size_t			 n;

	*next = 0;
	if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
		return 0;
	eq = strchr(arg, '=');
	n = eq != NULL ? (size_t)(eq - arg - 2) : strlen(arg + 2);
	for (o = g.longopts; o->name != NULL; o++)
		if (strncmp(o->name, arg + 2, n) == 0) {
			*next = eq == NULL && o->has_arg == required_argument;
			break;
		}
	return 1;
}

/*
 * Options may follow the operands (ofl-search ID query -n 10), and a
 * query may look like an option (-x): what is not one of our options is
 * an operand.  "--" ends the options.
 */
static void
split_args(int argc, char *argv[], char ***optv, int *optc, char ***opdv,
    int *opdc)
{
	int	i, next;

	*optv = ofl_xcalloc((size_t)argc + 1, sizeof **optv);
	*opdv = ofl_xcalloc((size_t)argc + 1, sizeof **opdv);
	*optc = *opdc = 0;
	(*optv)[(*optc)++] = argv[0];
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			for (i++; i < argc; i++)
				(*opdv)[(*opdc)++] = argv[i];
			break;
		}
		if (short_option(argv[i], &next) ||
		    long_option(argv[i], &next)) {
			(*optv)[(*optc)++] = argv[i];
			if (next && i + 1 < argc)
				(*optv)[(*optc)++] = argv[++i];
			continue;
		}
		(*opdv)[(*opdc)++] = argv[i];
	}
}

static int
list_cb(const struct ofl_meta *m, void *arg)
{
	struct lister	*l = arg;
	struct ofl_buf	 b;

	if (l->limit > 0 && l->n >= l->limit) {
		l->more = 1;
		return 1;
	}
	l->n++;
	if (l->mode == OFL_LIST_TEXT) {
		/* Aligned columns: the widths are known at the end. */
		ofl_list_line(&l->rows, m, l->mode);
		return 0;
	}
	ofl_buf_init(&b);
	ofl_list_line(&b, m, l->mode);
	if (fwrite(b.data, 1, b.len, stdout) != b.len)
		l->failed = 1;
	ofl_buf_free(&b);
	return l->failed;
}

/* No store yet is an empty store: nothing to list. */
static int
store_missing(const char *path)
{
	struct ofl_buf	 b;
	struct stat	 sb;
	char		*where;
	int		 missing;

	if ((where = ofl_store_where(path)) == NULL)
		return 0;	/* ofl_store_open() says why */
	if (ofl_store_remote(where)) {
		free(where);
		return 0;	/* the database says */
	}
	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s/ofl.db", where);
	/*
	 * Nothing there, or a directory without a database.  A file, a
	 * symbolic link (even one that leads nowhere) or a directory that
	 * cannot be read is no missing store: ofl_store_open() says why.
	 */
	if (lstat(where, &sb) == -1)
		missing = errno == ENOENT;
	else
		missing = S_ISDIR(sb.st_mode) && lstat(ofl_buf_str(&b),
		    &sb) == -1 && errno == ENOENT;
	ofl_buf_free(&b);
	free(where);
	return missing;
}

/*
 * The listing: the newest limit artifacts (OFL_LIST_LIMIT unless -n or
 * -a says otherwise, on a terminal and on a pipe alike), then a line with
 * the count of the rest: on stdout under the table, on stderr with -q
 * and -j, whose stdout is for programs.
 */
static int
list(const char *path, const struct ofl_filter *f, int mode, int page,
    int all)
{
	struct ofl_store	*st;
	struct ofl_filter	 lf = *f;
	struct lister		 l;
	int			 n;

	if (store_missing(path))
		return OFL_EXIT_NOMATCH;
	if ((st = ofl_store_open(path, OFL_RDONLY)) == NULL) {
		warnx("%s", ofl_errmsg());
		return ofl_errcode();
	}
	memset(&l, 0, sizeof l);
	l.mode = mode;
	/* -n N says how many, -a all of them. */
	l.limit = f->limit > 0 ? f->limit : all ? 0 : OFL_LIST_LIMIT;
	lf.limit = l.limit > 0 ? l.limit + 1 : 0;
	if (page)
		ofl_pager_start();
	ofl_buf_init(&l.rows);
	n = ofl_store_list(st, &lf, list_cb, &l);
	if (n == -1)
		warnx("%s", ofl_errmsg());
	else
		n = list_end(st, &lf, &l, n);
	ofl_store_close(st);
	ofl_buf_free(&l.rows);
	flush_stdout();
	if (n == -1)
		return OFL_EXIT_FAIL;
	return n > 0 ? OFL_EXIT_OK : OFL_EXIT_NOMATCH;
}

/* The table of what was listed, and the line on the rest. */
static int
list_end(struct ofl_store *st, const struct ofl_filter *f, struct lister *l,
    int n)
{
	struct ofl_buf	 t;
	int64_t		 total;

	ofl_buf_init(&t);
	if (n > 0 && l->rows.len > 0)
		ofl_list_table(&t, l->rows.data, l->rows.len);
	if (l->more) {
		if ((total = ofl_store_count(st, f)) == -1) {
			warnx("%s", ofl_errmsg());
			ofl_buf_free(&t);
			return -1;
		}
		if (l->mode == OFL_LIST_TEXT)
			ofl_list_more(&t, total - l->n);
		else {
			struct ofl_buf	 m;

			ofl_buf_init(&m);
			ofl_list_more(&m, total - l->n);
			fprintf(stderr, "ofl-search: %s", ofl_buf_str(&m));
			ofl_buf_free(&m);
		}
	}
	if (t.len > 0 && fwrite(t.data, 1, t.len, stdout) != t.len)
		l->failed = 1;
	ofl_buf_free(&t);
	return n;
}

/*
 * --meta: the listing's lines of the artifacts named, each found by its
 * ID (an index lookup, whatever the size of the store).
 */
static int
meta(const char *path, char **opdv, int opdc, int mode, int page)
{
	struct ofl_store	*st;
	struct ofl_meta		 m;
	struct ofl_ref		 ref;
	struct lister		 l;
	char			 id[OFL_ID_MAX + 1];
	int			 i, rv = OFL_EXIT_OK, n = 0;

	if (opdc == 0) {
		warnx("--meta: give the IDs of the artifacts");
		usage(OFL_EXIT_USAGE);
	}
	if ((st = ofl_store_open(path, OFL_RDONLY | OFL_NOCREATE)) == NULL)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	memset(&l, 0, sizeof l);
	l.mode = mode;
	ofl_buf_init(&l.rows);
	for (i = 0; i < opdc; i++) {
		if (ofl_ref_arg(opdv[i], &ref) == -1 ||
		    ofl_store_resolve(st, ofl_ref_name(&ref), id) == -1 ||
		    ofl_store_meta(st, id, &m) == -1) {
			warnx("%s", ofl_errmsg());
			if (ofl_errcode() > rv)
				rv = ofl_errcode();
			continue;
		}
		list_cb(&m, &l);
		ofl_meta_free(&m);
		n++;
	}
	if (page && n > 0)
		ofl_pager_start();
	(void)list_end(st, NULL, &l, n);
	ofl_store_close(st);
	ofl_buf_free(&l.rows);
	flush_stdout();
	return rv;
}

/* --recap: what a session offloaded (session.c), and what it saved. */
static int
recap(const char *path, const char *session, int json, int opdc)
{
	struct ofl_store	*st;
	struct ofl_buf		 out;
	int			 n;

	if (session == NULL && (session = getenv("OFL_SESSION")) != NULL &&
	    *session == '\0')
		session = NULL;
	if (session == NULL || opdc > 0) {
		warnx("--recap takes no operand and needs a session: -S "
		    "SESSION or OFL_SESSION");
		usage(OFL_EXIT_USAGE);
	}
	if (store_missing(path))
		return OFL_EXIT_NOMATCH;
	if ((st = ofl_store_open(path, OFL_RDONLY)) == NULL) {
		warnx("%s", ofl_errmsg());
		return ofl_errcode();
	}
	ofl_buf_init(&out);
	if ((n = ofl_session_view(st, session, json, &out)) == -1)
		warnx("%s", ofl_errmsg());
	ofl_store_close(st);
	if (fwrite(out.data, 1, out.len, stdout) != out.len)
		n = -1;
	ofl_buf_free(&out);
	flush_stdout();
	return n == -1 ? OFL_EXIT_FAIL : n > 0 ? OFL_EXIT_OK :
	    OFL_EXIT_NOMATCH;
}

static void
progress(uint64_t done, uint64_t total, void *arg)
{
	int	pct;

	(void)arg;
	if (total < PROGRESS_MIN)
		return;
	if (done >= total) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	pct = (int)(done * 100 / total);
	fprintf(stderr, "\rofl-search: indexing %d%%", pct);
}

/*
 * Operand at, before the query, is not an artifact: the query was likely
 * cut into words by the shell.  Say how to quote it; not for what was
 * meant as a reference (@N, ofl:ID, ID:A-B), nor for more than a word
 * (data given where an ID was meant).
 */
static void
quote_hint(int opdc, char *opdv[], size_t at)
{
	struct ofl_buf	 b, q;
	char		*s;
	int		 i;

	if (opdv[at][0] == '@' || strchr(opdv[at], ':') != NULL ||
	    strcmp(opdv[at], "-") == 0 || strlen(opdv[at]) > HINT_WORD_MAX ||
	    strpbrk(opdv[at], " \t\n") != NULL)
		return;
	ofl_buf_init(&b);
	ofl_buf_init(&q);
	for (i = 0; i < (int)at; i++) {
		s = ofl_shquote(opdv[i]);
		ofl_buf_addf(&b, " %s", s);
		free(s);
	}
	for (i = (int)at; i < opdc; i++)
		ofl_buf_addf(&q, "%s%s", i > (int)at ? " " : "", opdv[i]);
	s = ofl_shquote(ofl_buf_str(&q));
	warnx("the last operand is the query; to search for several words, "
	    "quote them: ofl-search%s %s", b.len > 0 ? ofl_buf_str(&b) : "",
	    s);
	free(s);
	ofl_buf_free(&b);
	ofl_buf_free(&q);
}

/*
 * Is standard input something to read: a pipe, a file or a socket?  A
 * terminal is not, nor /dev/null, which harnesses and cron give a
 * command that has no input: then the search covers the store.
 */
static int
stdin_readable(void)
{
	struct stat	sb;

	if (fstat(STDIN_FILENO, &sb) == -1)
		return 0;
	return S_ISFIFO(sb.st_mode) || S_ISREG(sb.st_mode) ||
	    S_ISSOCK(sb.st_mode);
}

static void
flush_stdout(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		err(OFL_EXIT_FAIL, "stdout");
}

/* A bad size in the environment is a usage error, whatever the mode. */
static void
env_sizes(void)
{
	static const char *const names[] = { "OFL_SEARCH_CAP",
		"OFL_INDEX_GEN", NULL };
	uint64_t	n;
	size_t		i;

	for (i = 0; names[i] != NULL; i++)
		if (ofl_env_size(names[i], &n) == -1)
			errx(OFL_EXIT_USAGE, "%s: %s", names[i], ofl_errmsg());
}

/* The options into a, the operands into *opdv; exits on a bad one. */
static void
parse_options(int argc, char *argv[], struct args *a)
{
	char		**optv;
	long long	  v;
	int		  optc, ch;

	memset(a, 0, sizeof *a);
	ofl_search_opts_init(&a->o);
	a->page = 1;
	a->color = OFL_COLOR_AUTO;
	ofl_opt_init(&g, opts, 0);
	split_args(argc, argv, &optv, &optc, &a->opdv, &a->opdc);
	while ((ch = ofl_opt_next(&g, optc, optv)) != -1) {
		switch (ch) {
		case 'a':
			a->all = 1;
			break;
		case O_SINCE:
		case O_BEFORE:
			if (ofl_parse_duration(optarg, ch == O_SINCE ?
			    &a->o.filter.newer_ms : &a->o.filter.older_ms) ==
			    -1)
				errx(OFL_EXIT_USAGE, "%s %s",
				    ofl_opt_name(opts, ch), ofl_errmsg());
			break;
		case 'b':
		case 'm':
			if (ofl_parse_num(optarg, 64, 1LL << 30, &v) == -1)
				errx(OFL_EXIT_USAGE, "%s %s",
				    ofl_opt_name(opts, ch), ofl_errmsg());
			a->o.budget = (size_t)v;
			break;
		case O_COLOR:
			if (optarg != NULL &&
			    (a->color = ofl_color_parse(optarg)) == -1)
				errx(OFL_EXIT_USAGE, "%s", ofl_errmsg());
			if (optarg == NULL)
				a->color = OFL_COLOR_AUTO;
			break;
		case O_FTS:
			a->o.fts = 1;
			break;
		case O_META:
			a->meta = 1;
			break;
		case 'h':
			usage(0);
		case O_NOREDACT:
			ofl_redact_force(0);
			break;
		case 'j':
			a->o.json = 1;
			break;
		case 'k':
			if ((a->o.filter.kind = ofl_kind_from_name(optarg)) <
			    0)
				errx(OFL_EXIT_USAGE, "%s: unknown kind",
				    optarg);
			break;
		case 'l':
			a->o.filter.label = optarg;
			break;
		case 'n':
			if (ofl_parse_num(optarg, 1, 1000000, &v) == -1)
				errx(OFL_EXIT_USAGE, "%s %s",
				    ofl_opt_name(opts, ch), ofl_errmsg());
			a->limit = (int)v;
			break;
		case O_NOPAGER:
			a->page = 0;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case O_RECAP:
			a->recap = 1;
			break;
		case 'S':
			a->o.filter.session = optarg;
			break;
		case 's':
			a->path = optarg;
			break;
		case 'V':
			printf("ofl %s\n", PACKAGE_VERSION);
			flush_stdout();
			exit(0);
		case OFL_OPT_LIST:
			ofl_opt_list(stdout, opts);
			flush_stdout();
			exit(0);
		default:
			usage(OFL_EXIT_USAGE);
		}
	}
	if (optind < optc)
		usage(OFL_EXIT_USAGE);
	free(optv);
	ofl_opt_free(&g);
	env_sizes();
}

int
main(int argc, char *argv[])
{
	struct args		 a;
	struct ofl_search_opts	 o;
	struct ofl_store	*st;
	struct ofl_buf		 out, note;
	struct ofl_input	 in;
	struct ofl_ref		*refs = NULL, *ranges = NULL;
	char			**opdv;
	const char		**ids = NULL, *path;
	char			 id[OFL_ID_MAX + 1];
	size_t			 nrefs = 0, nids = 0, i, j, nargs;
	int			 opdc, all, quiet, rv = 0;
	int			 failed = 0, hits, limit, page, dash = 0;
	int			 from_stdin, color;

	ofl_setprogname("ofl-search");
	parse_options(argc, argv, &a);
	o = a.o;
	path = a.path;
	all = a.all;
	quiet = a.quiet;
	limit = a.limit;
	page = a.page;
	color = a.color;
	opdv = a.opdv;
	opdc = a.opdc;

	if (a.meta) {
		rv = meta(path, opdv, opdc, o.json ? OFL_LIST_JSON :
		    quiet ? OFL_LIST_QUIET : OFL_LIST_TEXT, page);
		free(opdv);
		ofl_pager_finish();
		return rv;
	}
	if (a.recap) {
		free(opdv);
		return recap(path, o.filter.session, o.json, opdc);
	}
	if (opdc == 0) {
		o.filter.limit = limit;
		rv = list(path, &o.filter, o.json ? OFL_LIST_JSON :
		    quiet ? OFL_LIST_QUIET : OFL_LIST_TEXT, page, all);
		free(opdv);
		return rv;
	}

	o.query = opdv[opdc - 1];
	o.limit = limit;
	o.quiet = quiet;
	o.color = ofl_color_wanted(color);
	if (isatty(STDERR_FILENO))
		o.progress = progress;
	/* The operands before the query are references; "-" is stdin. */
	nargs = (size_t)opdc - 1;
	refs = ofl_xcalloc(nargs + 1, sizeof *refs);
	for (i = 0; i < nargs; i++) {
		if (strcmp(opdv[i], "-") == 0) {
			if (dash++)
				errx(OFL_EXIT_USAGE, "-: standard input given "
				    "twice");
			snprintf(refs[i].ref, sizeof refs[i].ref, "-");
		} else if (ofl_ref_arg(opdv[i], &refs[i]) == -1) {
			warnx("%s", ofl_errmsg());
			quote_hint(opdc, opdv, i);
			exit(OFL_EXIT_USAGE);
		}
	}
	nrefs = nargs;
	from_stdin = dash || (nargs == 0 && !all && stdin_readable());
	memset(&in, 0, sizeof in);
	if (from_stdin) {
		if (ofl_input_open(&in, STDIN_FILENO) == -1)
			errx(ofl_errcode(), "%s", ofl_errmsg());
		if (in.type == OFL_INPUT_EMPTY)
			errx(OFL_EXIT_USAGE, "%s%s", OFL_INPUT_EMPTY_MSG,
			    dash ? "" : "; -a searches the whole store");
	}
	/* Data on stdin is captured first; otherwise the store must be there. */
	if ((st = ofl_store_open(path, OFL_RDWR | (from_stdin ? 0 :
	    OFL_NOCREATE))) == NULL)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	if (from_stdin && ofl_input_refs(&in, st, &refs, &nrefs) == -1) {
		warnx("%s", ofl_errmsg());
		failed = ofl_errcode();
		goto out;
	}
	ofl_input_close(&in);
	if (from_stdin && nrefs == 0) {
		warnx("no artifact: standard input holds no reference");
		failed = OFL_EXIT_USAGE;
		goto out;
	}
	/*
	 * Resolve the IDs.  Those given as arguments are all resolved before
	 * anything is searched, so that a query cut into words by the shell
	 * fails whole; a bad one in a stream is reported, the others searched.
	 */
	ranges = ofl_xcalloc(nrefs + 1, sizeof *ranges);
	for (i = 0; i < nrefs; i++) {
		if (ofl_store_resolve(st, ofl_ref_name(&refs[i]), id) == -1) {
			warnx("%s", ofl_errmsg());
			if (ofl_errcode() > failed)
				failed = ofl_errcode();
			if (refs[i].arg != NULL) {
				for (j = 0; opdv[j] != refs[i].arg; j++)
					;
				quote_hint(opdc, opdv, j);
				goto out;
			}
			continue;
		}
		ranges[nids] = refs[i];
		ids = ofl_xrealloc(ids, (nids + 1) * sizeof *ids);
		ids[nids++] = ofl_xstrdup(id);
	}
	o.ranges = ranges;
	ofl_buf_init(&out);
	ofl_buf_init(&note);
	o.note = &note;
	rv = OFL_EXIT_NOMATCH;
	if (nrefs == 0 || nids > 0) {
		hits = ofl_search(st, ids, nids, &o, &out);
		if (hits == -1) {
			warnx("%s", ofl_errmsg());
			rv = ofl_errcode();
		} else
			rv = hits > 0 ? OFL_EXIT_OK : OFL_EXIT_NOMATCH;
	}
	/* What the search left out: a line on stderr, before the hits. */
	if (note.len > 0)
		fprintf(stderr, "ofl-search: %s", ofl_buf_str(&note));
	ofl_buf_free(&note);
	if (out.len > 0 && page)
		ofl_pager_start();
	if (out.len > 0 && fwrite(out.data, 1, out.len, stdout) != out.len)
		err(OFL_EXIT_FAIL, "stdout");
	ofl_buf_free(&out);
out:
	if (failed > rv)
		rv = failed;
	ofl_store_close(st);
	free(refs);
	free(ranges);
	for (i = 0; i < nids; i++)
		free((char *)ids[i]);
	free(ids);
	free(opdv);
	flush_stdout();
	ofl_pager_finish();
	return rv;
}
