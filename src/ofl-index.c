/*
 * ofl-index: chunk artifacts by their kind and index them for search.
 * It prints the reference line of each artifact again, so that pipes
 * compose: cmd | ofl-capture | ofl-index | ofl-search QUERY.
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

#define PROGRESS_MIN	(8 * 1024 * 1024)	/* show progress above this */

enum { O_CHECK = OFL_OPT_BASE, O_PENDING, O_REBUILD };

/* The options, in the order of --help; tests/t9040 checks the rest. */
static const struct ofl_opt opts[] = {
	{ 'f', "force", no_argument, NULL,
	    "drop the artifact's index and make it again", 0, NULL },
	{ O_CHECK, "check", no_argument, NULL,
	    "check the index of the whole store", 0, NULL },
	{ O_PENDING, "pending", no_argument, NULL,
	    "index every artifact not indexed yet", 0, NULL },
	{ O_REBUILD, "rebuild", no_argument, NULL,
	    "drop the whole index and index every artifact again", 0, NULL },
	{ 'q', "quiet", no_argument, NULL, "print nothing on success", 0,
	    NULL },
	{ 'v', "verbose", no_argument, NULL,
	    "say what was indexed on stderr", 0, NULL },
	{ 's', "store", required_argument, "store",
	    "store (default $OFL_STORE)", 0, NULL },
	{ 'h', "help", no_argument, NULL, "print this help", OFL_OPT_NOSYN,
	    NULL },
	{ 'V', "version", no_argument, NULL, "print the version",
	    OFL_OPT_NOSYN, NULL },
	{ 0, NULL, 0, NULL, NULL, 0, NULL }
};

/* What the options say. */
struct args {
	const char	*path;
	int		 force;
	int		 quiet;
	int		 verbose;
	int		 check;
	int		 pending;
	int		 rebuild;
};

static OFL_DEAD void	 usage(int);
static void		 parse_options(int, char *[], struct args *);
static void		 progress(uint64_t, uint64_t, void *);
static int		 index_one(struct ofl_store *, const char *, int, int,
			    int);
static int		 check_index(const char *, int);
static int		 index_pending(const char *, int, int);
static void		 pending_progress(int64_t, int64_t, void *);

static const char	*cur_id;

static OFL_DEAD void
usage(int status)
{
	ofl_opt_usage(status ? stderr : stdout, "ofl-index", opts, "[ID ...]",
	    NULL);
	if (status == 0) {
		fprintf(stdout, "\n"
		    "Chunk each artifact by its kind and add it to the "
		    "full-text index, then\n"
		    "print its reference line.  Content indexed before is not "
		    "indexed again.\n"
		    "Without IDs or with '-', stdin is a reference stream or "
		    "data to capture\n"
		    "first.  A range in a reference (ofl:ID:A-B) names the "
		    "artifact: it is\n"
		    "indexed whole.\n\n");
		ofl_opt_help(stdout, opts);
	}
	exit(status);
}

/* The options into a; exits on a bad one. */
static void
parse_options(int argc, char *argv[], struct args *a)
{
	struct ofl_getopt	g;
	uint64_t		n;
	int			ch;

	memset(a, 0, sizeof *a);
	ofl_opt_init(&g, opts, 0);
	while ((ch = ofl_opt_next(&g, argc, argv)) != -1) {
		switch (ch) {
		case O_CHECK:
			a->check = 1;
			break;
		case O_PENDING:
			a->pending = 1;
			break;
		case O_REBUILD:
			a->rebuild = 1;
			break;
		case 'f':
			a->force = 1;
			break;
		case 'h':
			usage(0);
		case 'q':
			a->quiet = 1;
			break;
		case 's':
			a->path = optarg;
			break;
		case 'v':
			a->verbose = 1;
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
	if (ofl_env_size("OFL_INDEX_GEN", &n) == -1)
		errx(OFL_EXIT_USAGE, "OFL_INDEX_GEN: %s", ofl_errmsg());
}

/* "ofl-index: 1,234 of 100,000 artifacts", at most every 100 ms. */
static void
pending_progress(int64_t done, int64_t total, void *arg)
{
	static int64_t	last;
	int64_t		now = ofl_mono_ms();

	(void)arg;
	if (done >= total) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	if (now - last < 100)
		return;
	last = now;
	fprintf(stderr, "\rofl-index: %lld of %lld artifacts",
	    (long long)done, (long long)total);
}

/*
 * --pending: what captures left to index, as they start it in the
 * background; one such process drains the store at a time.  --rebuild:
 * all of it, after the whole index is dropped.
 */
static int
index_pending(const char *path, int quiet, int rebuild)
{
	struct ofl_store	*st;
	int64_t			 n, failed = 0;

	if ((st = ofl_store_open(path, OFL_RDWR | OFL_NOCREATE)) == NULL)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	/* Progress on a terminal: a background indexer has none. */
	n = rebuild ? ofl_index_rebuild(st, isatty(STDERR_FILENO) ?
	    pending_progress : NULL, NULL, &failed) : ofl_index_pending(st,
	    isatty(STDERR_FILENO) ? pending_progress : NULL, NULL, &failed);
	if (isatty(STDERR_FILENO))
		pending_progress(1, 1, NULL);	/* the line cleared */
	ofl_store_close(st);
	if (n == -1)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	if (!quiet)
		printf("%lld artifact%s indexed\n", (long long)n,
		    n == 1 ? "" : "s");
	if (fflush(stdout) == EOF || ferror(stdout))
		err(OFL_EXIT_FAIL, "stdout");
	if (failed > 0) {
		warnx("%lld artifact%s not indexed: %s", (long long)failed,
		    failed == 1 ? "" : "s", ofl_errmsg());
		return OFL_EXIT_FAIL;
	}
	return 0;
}

static void
progress(uint64_t done, uint64_t total, void *arg)
{
	(void)arg;
	if (total < PROGRESS_MIN)
		return;
	if (done >= total) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	fprintf(stderr, "\rofl-index: ofl:%s %d%%", cur_id,
	    (int)(done * 100 / total));
}

static int
check_index(const char *path, int quiet)
{
	struct ofl_store	*st;
	struct ofl_buf		 b;
	int			 n;

	if ((st = ofl_store_open(path, OFL_RDWR | OFL_NOCREATE)) == NULL)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	ofl_buf_init(&b);
	n = ofl_index_check(st, &b);
	ofl_store_close(st);
	if (n == -1)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	if (b.len > 0)
		fprintf(stderr, "%.*s", (int)b.len, b.data);
	ofl_buf_free(&b);
	if (n == 0 && !quiet)
		printf("ok\n");
	return n == 0 ? 0 : OFL_EXIT_FAIL;
}

static int
index_one(struct ofl_store *st, const char *ref, int force, int quiet,
    int verbose)
{
	struct ofl_index_stats	 stats;
	struct ofl_meta		 m;
	struct ofl_buf		 b;
	char			 id[OFL_ID_MAX + 1], size[32];
	int64_t			 blob;

	if (ofl_store_resolve(st, ref, id) == -1 ||
	    ofl_store_meta(st, id, &m) == -1) {
		warnx("%s", ofl_errmsg());
		return ofl_errcode();
	}
	cur_id = id;
	if (force && (blob = ofl_store_blob(st, id)) >= 0 &&
	    ofl_index_drop(st, blob) == -1) {
		warnx("%s", ofl_errmsg());
		ofl_meta_free(&m);
		return ofl_errcode();
	}
	if (ofl_index_artifact(st, id, isatty(STDERR_FILENO) ? progress :
	    NULL, NULL, &stats) == -1) {
		warnx("%s", ofl_errmsg());
		ofl_meta_free(&m);
		return ofl_errcode();
	}
	if (verbose && stats.cached)
		fprintf(stderr, "ofl-index: ofl:%s: indexed before\n", id);
	else if (verbose) {
		ofl_fmt_size(size, sizeof size, stats.bytes);
		fprintf(stderr, "ofl-index: ofl:%s: %llu chunks, %s of "
		    "text%s\n", id, (unsigned long long)stats.chunks, size,
		    stats.truncated ? " (too many chunks: the rest is not "
		    "indexed)" : "");
	}
	if (!quiet) {
		ofl_buf_init(&b);
		ofl_notice_refline(&b, &m);
		if (b.len > 0 && b.data[b.len - 1] != '\n')
			ofl_buf_addc(&b, '\n');
		if (fwrite(b.data, 1, b.len, stdout) != b.len)
			err(OFL_EXIT_FAIL, "stdout");
		ofl_buf_free(&b);
	}
	ofl_meta_free(&m);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct args		 a;
	struct ofl_store	*st;
	struct ofl_input	 in;
	struct ofl_ref		*refs = NULL;
	const char		*path;
	char			 id[OFL_ID_MAX + 1];
	char			(*done)[OFL_ID_MAX + 1];
	size_t			 nrefs = 0, ndone = 0, i, j;
	int			 force, quiet, verbose;
	int			 check, rv = 0, r, from_stdin;

	ofl_setprogname("ofl-index");
	parse_options(argc, argv, &a);
	path = a.path;
	force = a.force;
	quiet = a.quiet;
	verbose = a.verbose;
	check = a.check;
	argc -= optind;
	argv += optind;
	if (check || a.pending || a.rebuild) {
		if (check + a.pending + a.rebuild > 1)
			errx(OFL_EXIT_USAGE, "--check, --pending and --rebuild "
			    "go one at a time");
		if (argc > 0)
			errx(OFL_EXIT_USAGE, "--%s works on the whole store: "
			    "no IDs", check ? "check" : a.pending ? "pending" :
			    "rebuild");
		if (force)
			errx(OFL_EXIT_USAGE, "-f goes with IDs, not --%s",
			    check ? "check" : a.pending ? "pending" :
			    "rebuild");
		if (check)
			return check_index(path, quiet);
		return index_pending(path, quiet, a.rebuild);
	}
	if (argc == 0 && isatty(STDIN_FILENO)) {
		warnx("no artifact: give IDs, or pipe a reference or data");
		usage(OFL_EXIT_USAGE);
	}
	/* The operands; "-" (or none) is standard input. */
	if ((from_stdin = ofl_input_args(argc, argv, &in, &refs, &nrefs)) == -1)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	/* Data on stdin is captured first; IDs need a store that is there. */
	if ((st = ofl_store_open(path, OFL_RDWR | (!from_stdin ?
	    OFL_NOCREATE : 0))) == NULL)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	if (from_stdin &&
	    ofl_input_refs(&in, st, &refs, &nrefs) == -1) {
		warnx("%s", ofl_errmsg());
		ofl_store_close(st);
		return ofl_errcode();
	}
	ofl_input_close(&in);
	if (nrefs == 0) {
		ofl_store_close(st);
		errx(OFL_EXIT_USAGE, "no artifact: standard input holds no "
		    "reference");
	}
	/* Each artifact once, however many of its ranges are named. */
	done = ofl_xcalloc(nrefs + 1, sizeof *done);
	for (i = 0; i < nrefs; i++) {
		if (ofl_store_resolve(st, ofl_ref_name(&refs[i]), id) == 0) {
			for (j = 0; j < ndone; j++)
				if (strcmp(done[j], id) == 0)
					break;
			if (j < ndone)
				continue;
			memcpy(done[ndone++], id, sizeof id);
		}
		r = index_one(st, ofl_ref_name(&refs[i]), force, quiet,
		    verbose);
		if (r > rv)
			rv = r;
	}
	free(done);
	free(refs);
	ofl_index_done(st);
	ofl_store_close(st);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(OFL_EXIT_FAIL, "stdout");
	return rv;
}
