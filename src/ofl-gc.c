/*
 * ofl-gc: expire artifacts, keep the store under its budget, check it.
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

static int	opt_json;
static int	opt_verbose;

enum {
	O_OLDER = OFL_OPT_BASE, O_MAXSIZE, O_PURGE, O_LABEL, O_SESSION, O_ALL,
	O_WAIT, O_CHECK, O_REPAIR, O_STATS, O_SET, O_SETTINGS, O_AUTO,
	O_GRACE, O_PIN, O_UNPIN, O_DRYRUN
};

/* The options, in the order of --help; tests/t9040 checks the rest. */
static const struct ofl_opt opts[] = {
	{ O_DRYRUN, "dry-run", no_argument, NULL,
	    "say what would go, remove nothing", 0, NULL },
	{ O_OLDER, "older-than", required_argument, "age",
	    "remove artifacts older than AGE (3d, 12h)", 0, NULL },
	{ O_MAXSIZE, "max-size", required_argument, "size",
	    "budget for this run (2G, 500M)", 0, NULL },
	{ O_GRACE, "grace", required_argument, "age",
	    "the budget keeps artifacts younger than AGE (5m)", 0, NULL },
	{ O_PURGE, "purge", required_argument, "id",
	    "remove this artifact (repeatable)", 0, NULL },
	{ O_LABEL, "label", required_argument, "label",
	    "remove every artifact with this label", 0, NULL },
	{ O_SESSION, "session", required_argument, "session",
	    "remove every artifact of this session", 0, NULL },
	{ O_ALL, "all", no_argument, NULL, "remove every finished artifact",
	    0, NULL },
	{ O_WAIT, "wait", no_argument, NULL,
	    "wait for a running gc instead of leaving", 0, NULL },
	{ O_PIN, "pin", required_argument, "id",
	    "never expire ID or take it for the budget", OFL_OPT_NOSYN,
	    NULL },
	{ O_UNPIN, "unpin", required_argument, "id", "undo --pin",
	    OFL_OPT_NOSYN, NULL },
	{ O_CHECK, "check", no_argument, NULL, "verify the store",
	    OFL_OPT_NOSYN, NULL },
	{ O_REPAIR, "repair", no_argument, NULL,
	    "verify and fix what can be fixed", OFL_OPT_NOSYN, NULL },
	{ O_STATS, "stats", no_argument, NULL,
	    "artifacts, bytes and tokens kept out, per day and label",
	    OFL_OPT_NOSYN, NULL },
	{ O_SETTINGS, "settings", no_argument, NULL,
	    "print the store's settings", OFL_OPT_NOSYN, NULL },
	{ O_SET, "set", required_argument, "key=value",
	    "ttl, max-size, grace, auto-gc, redact or scrub", OFL_OPT_NOSYN,
	    NULL },
	{ 'j', "json", no_argument, NULL, "JSON Lines", 0, NULL },
	{ 'v', "verbose", no_argument, NULL, "list what is removed", 0,
	    NULL },
	{ 's', "store", required_argument, "store",
	    "store (default $OFL_STORE)", 0, NULL },
	{ 'h', "help", no_argument, NULL, "print this help", OFL_OPT_NOSYN,
	    NULL },
	{ 'V', "version", no_argument, NULL, "print the version",
	    OFL_OPT_NOSYN, NULL },
	/* Hidden: the old letter of --dry-run; --auto, run by the tools. */
	{ 'n', NULL, no_argument, NULL, NULL, 0, NULL },
	{ O_AUTO, "auto", no_argument, NULL, NULL, 0, NULL },
	{ 0, NULL, 0, NULL, NULL, 0, NULL }
};

/* What the options say. */
struct args {
	struct ofl_gc_opts	 o;
	const char		*store;
	char			**sets;
	size_t			  nsets;
	const char		**pins;
	int			 *pinning;
	size_t			  npins;
	int			  check;
	int			  repair;
	int			  stats;
	int			  show;
	int			  wait;
	int			  autogc;
	const char		 *gcopt;	/* an option of a gc run */
};

static OFL_DEAD void	usage(int);
static void		parse_options(int, char *[], struct args *);
static void		gc_option(struct args *, const char *);
static void		check_modes(const struct args *);
static void		check_purge(const struct ofl_gc_opts *);

static OFL_DEAD void
usage(int status)
{
	FILE	*fp = status ? stderr : stdout;

	ofl_opt_usage(fp, "ofl-gc", opts, NULL,
	    "       ofl-gc --check | --repair | --stats | --settings "
	    "[-j] [-s store]\n"
	    "       ofl-gc --pin id | --unpin id [-s store]\n"
	    "       ofl-gc --set key=value [-s store]\n");
	if (status == 0) {
		fprintf(stdout, "\n"
		    "Remove expired artifacts and keep the store under its "
		    "size budget\n"
		    "(least recently used first).  Safe to run from cron.\n\n");
		ofl_opt_help(stdout, opts);
	}
	exit(status);
}

/* The options into a, and the opt_ globals; exits on a bad one. */
static void
parse_options(int argc, char *argv[], struct args *a)
{
	struct ofl_getopt	 g;
	struct ofl_gc_opts	*o = &a->o;
	uint64_t		 n;
	int			 ch;

	memset(a, 0, sizeof *a);
	ofl_gc_opts_init(o);
	ofl_opt_init(&g, opts, 0);
	while ((ch = ofl_opt_next(&g, argc, argv)) != -1) {
		switch (ch) {
		case 'h':
			usage(0);
		case 'j':
			opt_json = 1;
			break;
		case 'n':
		case O_DRYRUN:
			gc_option(a, "--dry-run");
			o->dry_run = 1;
			break;
		case 's':
			a->store = optarg;
			break;
		case 'v':
			opt_verbose = 1;
			break;
		case 'V':
			printf("ofl %s\n", PACKAGE_VERSION);
			exit(0);
		case OFL_OPT_LIST:
			ofl_opt_list(stdout, opts);
			exit(0);
		case O_OLDER:
			gc_option(a, "--older-than");
			if (ofl_parse_duration(optarg, &o->older_ms) == -1)
				errx(OFL_EXIT_USAGE, "%s %s",
				    ofl_opt_name(opts, ch), ofl_errmsg());
			break;
		case O_MAXSIZE:
			gc_option(a, "--max-size");
			if (ofl_parse_size(optarg, &o->max_size) == -1)
				errx(OFL_EXIT_USAGE, "%s %s",
				    ofl_opt_name(opts, ch), ofl_errmsg());
			if (o->max_size == 0)
				errx(OFL_EXIT_USAGE,
				    "--max-size must be above 0");
			break;
		case O_GRACE:
			gc_option(a, "--grace");
			if (ofl_parse_duration(optarg, &o->grace_ms) == -1)
				errx(OFL_EXIT_USAGE, "%s %s",
				    ofl_opt_name(opts, ch), ofl_errmsg());
			break;
		case O_PIN:
		case O_UNPIN:
			a->pins = ofl_xrealloc(a->pins, (a->npins + 1) *
			    sizeof *a->pins);
			a->pinning = ofl_xrealloc(a->pinning, (a->npins + 1) *
			    sizeof *a->pinning);
			a->pinning[a->npins] = ch == O_PIN;
			a->pins[a->npins++] = optarg;
			break;
		case O_PURGE:
			gc_option(a, "--purge");
			o->purge = ofl_xrealloc(o->purge, (o->npurge + 1) *
			    sizeof *o->purge);
			o->purge[o->npurge++] = optarg;
			break;
		case O_LABEL:
			gc_option(a, "--label");
			o->label = optarg;
			break;
		case O_SESSION:
			gc_option(a, "--session");
			o->session = optarg;
			break;
		case O_ALL:
			gc_option(a, "--all");
			o->all = 1;
			break;
		case O_WAIT:
			a->wait = 1;
			break;
		case O_CHECK:
			a->check = 1;
			break;
		case O_REPAIR:
			a->check = a->repair = 1;
			break;
		case O_STATS:
			a->stats = 1;
			break;
		case O_SET:
			if (strchr(optarg, '=') == NULL)
				errx(OFL_EXIT_USAGE, "--set %s: use KEY=VALUE",
				    optarg);
			a->sets = ofl_xrealloc(a->sets, (a->nsets + 1) *
			    sizeof *a->sets);
			a->sets[a->nsets++] = optarg;
			break;
		case O_SETTINGS:
			a->show = 1;
			break;
		case O_AUTO:
			a->autogc = 1;
			break;
		default:
			usage(OFL_EXIT_USAGE);
		}
	}
	if (optind != argc)
		usage(OFL_EXIT_USAGE);
	/* A dry run removes nothing; it would not change settings either. */
	if (o->dry_run && (a->nsets > 0 || a->npins > 0))
		errx(OFL_EXIT_USAGE, "--dry-run shows what gc would remove; "
		    "it does not apply to --%s", a->nsets > 0 ? "set" :
		    "pin or --unpin");
	ofl_opt_free(&g);
	check_modes(a);
	check_purge(o);
	if (ofl_env_size("OFL_INDEX_GEN", &n) == -1)
		errx(OFL_EXIT_USAGE, "OFL_INDEX_GEN: %s", ofl_errmsg());
}

/* The first option given of those that say what gc removes. */
static void
gc_option(struct args *a, const char *name)
{
	if (a->gcopt == NULL)
		a->gcopt = name;
}

/*
 * --pin and --unpin, --set and --settings, --stats, --check or --repair:
 * one of these at a time, and none with what gc removes (main() would
 * do the first and drop the rest without a word).
 */
static void
check_modes(const struct args *a)
{
	const char	*m[4];
	size_t		 n = 0;

	if (a->npins > 0)
		m[n++] = a->pinning[0] ? "--pin" : "--unpin";
	if (a->nsets > 0 || a->show)
		m[n++] = a->nsets > 0 ? "--set" : "--settings";
	if (a->stats)
		m[n++] = "--stats";
	if (a->check)
		m[n++] = a->repair ? "--repair" : "--check";
	if (n > 1)
		errx(OFL_EXIT_USAGE, "%s and %s go one at a time", m[0], m[1]);
	if (n == 1 && a->gcopt != NULL)
		errx(OFL_EXIT_USAGE, "%s goes with a gc run, not with %s",
		    a->gcopt, m[0]);
}

/* A reference that cannot be an ID is a usage error, store or not. */
static void
check_purge(const struct ofl_gc_opts *o)
{
	const char	*r;
	struct ofl_ref	 ref;
	size_t		 i;

	for (i = 0; i < o->npurge; i++) {
		r = o->purge[i];
		/* ofl:ID:A-B names lines; only whole artifacts go. */
		if (ofl_ref_arg(r, &ref) == 0 && ref.from > 0)
			errx(OFL_EXIT_USAGE, "%s: --purge removes whole "
			    "artifacts: give the ID without a line range", r);
		if (strncmp(r, "ofl:", 4) == 0)
			r += 4;
		if (*r == '@' ? strspn(r + 1, "0123456789") != strlen(r + 1) :
		    !ofl_id_valid(r, strlen(r))) {
			/* The library's message: a long operand cut short. */
			ofl_seterr(OFL_EXIT_USAGE, "%s: not an artifact ID",
			    o->purge[i]);
			errx(OFL_EXIT_USAGE, "%s", ofl_errmsg());
		}
	}
}

static int
on_removed(const struct ofl_meta *m, const char *why, void *arg)
{
	struct ofl_buf	 b;
	char		 size[32];
	int		 dry = *(int *)arg;

	if (m == NULL) {
		warnx("%s", why);
		return 0;
	}
	if (!opt_verbose && !opt_json)
		return 0;
	ofl_buf_init(&b);
	if (opt_json) {
		ofl_buf_adds(&b, "{\"id\":");
		ofl_buf_add_json_str(&b, m->id, strlen(m->id));
		ofl_buf_addf(&b, ",\"reason\":\"%s\",\"bytes\":%llu,"
		    "\"stored\":%llu,\"dry_run\":%s}\n", why,
		    (unsigned long long)m->bytes,
		    (unsigned long long)m->stored, dry ? "true" : "false");
	} else {
		ofl_fmt_size(size, sizeof size, m->bytes);
		ofl_buf_addf(&b, "%s\tofl:%s\t%s\t%s\t%s\n", dry ?
		    "would remove" : "removed", m->id, why, size,
		    m->label != NULL ? m->label : m->command != NULL ?
		    m->command : "-");
	}
	fwrite(b.data, 1, b.len, stdout);
	ofl_buf_free(&b);
	return 0;
}

static int
on_problem(const char *msg, int counted, void *arg)
{
	(void)arg;
	if (opt_json) {
		struct ofl_buf	b;

		ofl_buf_init(&b);
		ofl_buf_adds(&b, counted ? "{\"problem\":" : "{\"note\":");
		ofl_buf_add_json_str(&b, msg, strlen(msg));
		ofl_buf_adds(&b, "}\n");
		fwrite(b.data, 1, b.len, stdout);
		ofl_buf_free(&b);
	} else
		printf("%s\n", msg);
	return 0;
}

/* Usage accounting: what ofl kept out of its callers' output. */
static int
stats(struct ofl_store *st)
{
	static const int	 groups[] = { OFL_STATS_DAY, OFL_STATS_LABEL };
	static const char	*names[] = { "day", "label" };
	struct ofl_store_stat	*rows;
	struct ofl_buf		 b;
	char			 s1[32], s2[32], s3[32];
	const char		*k;
	size_t			 nrows, i, g;

	ofl_buf_init(&b);
	if (!opt_json)
		printf("%-6s %-24s %9s %10s %10s %10s %12s\n", "by", "group",
		    "artifacts", "raw", "stored", "kept out", "tokens saved");
	for (g = 0; g < sizeof groups / sizeof groups[0]; g++) {
		if (ofl_store_gc_stats(st, groups[g], &rows, &nrows) == -1) {
			warnx("stats: %s", ofl_errmsg());
			ofl_buf_free(&b);
			return OFL_EXIT_FAIL;
		}
		for (i = 0; i < nrows; i++) {
			const struct ofl_store_stat *r = &rows[i];

			k = r->group;
			if (opt_json) {
				ofl_buf_reset(&b);
				ofl_buf_addf(&b, "{\"by\":\"%s\",\"group\":",
				    names[g]);
				ofl_buf_add_json_str(&b, k, strlen(k));
				ofl_buf_addf(&b, ",\"artifacts\":%llu,"
				    "\"raw\":%llu,\"stored\":%llu,"
				    "\"kept_out\":%llu,\"tokens_saved\":%llu}"
				    "\n", (unsigned long long)r->artifacts,
				    (unsigned long long)r->raw,
				    (unsigned long long)r->stored,
				    (unsigned long long)r->kept_out,
				    (unsigned long long)
				    ofl_tokens(r->kept_out));
				fwrite(b.data, 1, b.len, stdout);
				continue;
			}
			ofl_fmt_size(s1, sizeof s1, r->raw);
			ofl_fmt_size(s2, sizeof s2, r->stored);
			ofl_fmt_size(s3, sizeof s3, r->kept_out);
			printf("%-6s %-24.24s %9llu %10s %10s %10s %12llu\n",
			    names[g], k, (unsigned long long)r->artifacts, s1,
			    s2, s3,
			    (unsigned long long)ofl_tokens(r->kept_out));
		}
		ofl_store_gc_stats_free(rows, nrows);
	}
	ofl_buf_free(&b);
	return 0;
}

/* ofl-gc --check: the count of problems, as text or JSON. */
static int
check_store(struct ofl_store *st, int repair)
{
	struct ofl_buf	b;
	int		n = ofl_gc_check(st, repair, on_problem, NULL);

	if (!opt_json)
		printf("%s: %d problem%s%s\n", ofl_store_name(st), n,
		    n == 1 ? "" : "s", repair && n > 0 ? " (repaired "
		    "what could be)" : "");
	else {
		ofl_buf_init(&b);
		ofl_buf_adds(&b, "{\"store\":");
		ofl_buf_add_json_str(&b, ofl_store_name(st),
		    strlen(ofl_store_name(st)));
		ofl_buf_addf(&b, ",\"problems\":%d,\"repair\":%s}\n", n,
		    repair ? "true" : "false");
		fwrite(b.data, 1, b.len, stdout);
		ofl_buf_free(&b);
	}
	return n > 0 && !repair ? OFL_EXIT_FAIL : 0;
}

/* What a gc run did, as JSON or as one line of text. */
static void
print_report(const struct ofl_gc_report *rep, int dry_run)
{
	struct ofl_buf	b;
	char		s1[32], s2[32], s3[32];

	if (opt_json) {
		ofl_buf_init(&b);
		ofl_buf_addf(&b, "{\"removed\":%llu,\"removed_bytes\":%llu,"
		    "\"freed\":%llu,\"kept\":%llu,\"size\":%llu,"
		    "\"dry_run\":%s,\"errors\":%llu,\"budget_unmet\":",
		    (unsigned long long)rep->removed,
		    (unsigned long long)rep->removed_bytes,
		    (unsigned long long)rep->freed,
		    (unsigned long long)rep->kept,
		    (unsigned long long)rep->size, dry_run ? "true" : "false",
		    (unsigned long long)rep->errors);
		if (rep->unmet[0] != '\0')
			ofl_buf_add_json_str(&b, rep->unmet,
			    strlen(rep->unmet));
		else
			ofl_buf_adds(&b, "null");
		ofl_buf_adds(&b, "}\n");
		fwrite(b.data, 1, b.len, stdout);
		ofl_buf_free(&b);
		return;
	}
	ofl_fmt_size(s1, sizeof s1, rep->removed_bytes);
	ofl_fmt_size(s2, sizeof s2, rep->freed);
	ofl_fmt_size(s3, sizeof s3, rep->size);
	printf("%s %llu artifact%s (%s raw, %s stored); %llu kept, "
	    "store %s\n", dry_run ? "would remove" : "removed",
	    (unsigned long long)rep->removed, rep->removed == 1 ? "" :
	    "s", s1, s2, (unsigned long long)rep->kept, s3);
}

int
main(int argc, char *argv[])
{
	struct args		 a;
	struct ofl_gc_opts	 o;
	struct ofl_gc_report	 rep;
	struct ofl_store	*st;
	struct ofl_buf		 b;
	const char		*store;
	char			**sets;
	const char		**pins;
	int			*pinning;
	size_t			 nsets, npins, i;
	int			 check, repair, do_stats;
	int			 show, wait, autogc, rv = 0;

	ofl_setprogname("ofl-gc");
	parse_options(argc, argv, &a);
	o = a.o;
	store = a.store;
	sets = a.sets;
	nsets = a.nsets;
	pins = a.pins;
	pinning = a.pinning;
	npins = a.npins;
	check = a.check;
	repair = a.repair;
	do_stats = a.stats;
	show = a.show;
	wait = a.wait;
	autogc = a.autogc;
	/*
	 * Only --set and the plain gc make a store; checks, reports, a dry
	 * run, pins and purges name what is in one, so need one there.
	 */
	if ((st = ofl_store_open(store, OFL_RDWR | (check || do_stats ||
	    (nsets == 0 && (show || o.dry_run || npins > 0 ||
	    o.npurge > 0)) ? OFL_NOCREATE : 0))) == NULL)
		errx(ofl_errcode(), "%s", ofl_errmsg());
	/* The budget keeps what the session running it made. */
	if ((o.keep_session = getenv("OFL_SESSION")) != NULL &&
	    *o.keep_session == '\0')
		o.keep_session = NULL;

	if (npins > 0) {
		for (i = 0; i < npins; i++)
			if (ofl_gc_pin(st, pins[i], pinning[i]) == -1) {
				warnx("%s", ofl_errmsg());
				if (rv != OFL_EXIT_USAGE)
					rv = ofl_errcode();
			}
		goto out;
	}
	if (nsets > 0 || show) {
		for (i = 0; i < nsets; i++) {
			char *k = ofl_xstrdup(sets[i]), *v = strchr(k, '=');

			*v++ = '\0';
			if (ofl_setting_set(st, k, v) == -1) {
				warnx("%s", ofl_errmsg());
				rv = ofl_errcode();
			}
			free(k);
		}
		if (show) {
			ofl_buf_init(&b);
			ofl_setting_list(st, &b);
			fwrite(b.data, 1, b.len, stdout);
			ofl_buf_free(&b);
		}
		goto out;
	}
	if (do_stats) {
		rv = stats(st);
		goto out;
	}

	/*
	 * One gc at a time: cron may start the next before this ends, and
	 * on a shared database, every machine's cron at once.
	 */
	switch (ofl_store_gc_lock(st, wait)) {
	case -1:
		errx(ofl_errcode(), "%s", ofl_errmsg());
	case 0:
		if (!autogc)
			fprintf(stderr, "ofl-gc: another gc is running on %s; "
			    "leaving it to finish (--wait to wait)\n",
			    ofl_store_name(st));
		goto out;
	}
	/* The space kept free lets SQLite delete on a full disk. */
	if (!o.dry_run)
		(void)ofl_store_reserve(st, 0);

	if (repair && ofl_store_remote(ofl_store_path(st))) {
		warnx("store %s: repairing the store (--repair) is not "
		    "supported on PostgreSQL yet", ofl_store_name(st));
		rv = OFL_EXIT_FAIL;
		goto out;
	}
	if (check) {
		rv = check_store(st, repair);
		goto out;
	}

	if (ofl_gc_run(st, &o, on_removed, &o.dry_run, &rep) == -1) {
		/*
		 * Said by on_removed() for each artifact, or here: then
		 * gc did not run, and there is no report to give.
		 */
		rv = rep.status != 0 ? rep.status : OFL_EXIT_FAIL;
		if (rep.errors == 0) {
			warnx("%s", ofl_errmsg());
			if (!opt_json)
				goto out;
		}
		/* A reference that cannot be told: nothing ran. */
		if (rv == OFL_EXIT_USAGE)
			goto out;
	} else if (rep.unmet[0] != '\0') {
		/* Ran fine, but the store is still over its budget. */
		if (!autogc)
			warnx("%s", rep.unmet);
		rv = OFL_EXIT_NOMATCH;
	}
	if (rep.repeated > 0)
		warnx("the same error for %llu more artifact%s",
		    (unsigned long long)rep.repeated, rep.repeated > 1 ? "s" :
		    "");
	if (opt_json || !autogc)
		print_report(&rep, o.dry_run);
out:
	if (!o.dry_run)
		(void)ofl_store_reserve(st, 1);
	ofl_store_close(st);
	free(sets);
	free(pins);
	free(pinning);
	free(o.purge);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(OFL_EXIT_FAIL, "stdout");
	return rv;
}
