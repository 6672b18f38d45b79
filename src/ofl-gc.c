/*
 * ofl-gc: expire artifacts, keep the store under its budget, check it.
 */
#include "config.h"

#include <sys/file.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofl.h"
#include "banned.h"

static int	opt_json;
static int	opt_verbose;

static OFL_DEAD void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: ofl-gc [-jnv] [--all] [--grace age] [--label label] "
	    "[--max-size size]\n"
	    "              [--older-than age] [--purge id] "
	    "[--session session] [--wait]\n"
	    "              [-s store]\n"
	    "       ofl-gc --check | --repair | --stats | --settings "
	    "[-j] [-s store]\n"
	    "       ofl-gc --pin id | --unpin id [-s store]\n"
	    "       ofl-gc --set key=value [-s store]\n");
	if (status == 0)
		fprintf(stdout, "\n"
		    "Remove expired artifacts and keep the store under its "
		    "size budget\n"
		    "(least recently used first).  Safe to run from cron.\n\n"
		    "  -n, --dry-run           say what would go, remove "
		    "nothing\n"
		    "      --older-than AGE    remove artifacts older than "
		    "AGE (3d, 12h)\n"
		    "      --max-size SIZE     budget for this run (2G, "
		    "500M)\n"
		    "      --grace AGE         the budget keeps artifacts "
		    "younger than AGE (5m)\n"
		    "      --purge ID          remove this artifact "
		    "(repeatable)\n"
		    "      --label LABEL       remove every artifact with "
		    "this label\n"
		    "      --session NAME      remove every artifact of this "
		    "session\n"
		    "      --all               remove every finished "
		    "artifact\n"
		    "      --wait              wait for a running gc instead "
		    "of leaving\n"
		    "      --pin ID            never expire ID or take it for "
		    "the budget\n"
		    "      --unpin ID          undo --pin\n"
		    "      --check             verify the store\n"
		    "      --repair            verify and fix what can be "
		    "fixed\n"
		    "      --stats             artifacts, bytes and tokens "
		    "kept out, per day and label\n"
		    "      --settings          print the store's settings\n"
		    "      --set KEY=VALUE     ttl, max-size, grace, auto-gc, "
		    "redact or scrub\n"
		    "  -j, --json              JSON Lines\n"
		    "  -v, --verbose           list what is removed\n"
		    "  -s, --store DIR         store (default $OFL_STORE)\n"
		    "  -h, --help              print this help\n"
		    "  -V, --version           print the version\n");
	exit(status);
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
on_problem(const char *msg, void *arg)
{
	(void)arg;
	if (opt_json) {
		struct ofl_buf	b;

		ofl_buf_init(&b);
		ofl_buf_adds(&b, "{\"problem\":");
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

int
main(int argc, char *argv[])
{
	enum { O_OLDER = 256, O_MAXSIZE, O_PURGE, O_LABEL, O_SESSION, O_ALL,
	    O_WAIT, O_CHECK, O_REPAIR, O_STATS, O_SET, O_SETTINGS, O_AUTO,
	    O_GRACE, O_PIN, O_UNPIN };
	static const struct option longopts[] = {
		{ "all",	no_argument,		NULL, O_ALL },
		{ "auto",	no_argument,		NULL, O_AUTO },
		{ "check",	no_argument,		NULL, O_CHECK },
		{ "dry-run",	no_argument,		NULL, 'n' },
		{ "grace",	required_argument,	NULL, O_GRACE },
		{ "help",	no_argument,		NULL, 'h' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "label",	required_argument,	NULL, O_LABEL },
		{ "max-size",	required_argument,	NULL, O_MAXSIZE },
		{ "older-than",	required_argument,	NULL, O_OLDER },
		{ "pin",	required_argument,	NULL, O_PIN },
		{ "purge",	required_argument,	NULL, O_PURGE },
		{ "repair",	no_argument,		NULL, O_REPAIR },
		{ "session",	required_argument,	NULL, O_SESSION },
		{ "set",	required_argument,	NULL, O_SET },
		{ "settings",	no_argument,		NULL, O_SETTINGS },
		{ "stats",	no_argument,		NULL, O_STATS },
		{ "store",	required_argument,	NULL, 's' },
		{ "unpin",	required_argument,	NULL, O_UNPIN },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "wait",	no_argument,		NULL, O_WAIT },
		{ NULL,		0,			NULL, 0 }
	};
	struct ofl_gc_opts	 o;
	struct ofl_gc_report	 rep;
	struct ofl_store	*st;
	struct ofl_buf		 b, lockpath;
	const char		*store = NULL;
	char			**sets = NULL;
	const char		**pins = NULL;
	int			*pinning = NULL;
	size_t			 nsets = 0, npins = 0, i;
	int			 ch, check = 0, repair = 0, do_stats = 0;
	int			 show = 0, wait = 0, autogc = 0, lockfd, rv = 0;
	char			 s1[32], s2[32], s3[32];

	ofl_setprogname("ofl-gc");
	ofl_gc_opts_init(&o);
	while ((ch = getopt_long(argc, argv, "hjns:vV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage(0);
		case 'j':
			opt_json = 1;
			break;
		case 'n':
			o.dry_run = 1;
			break;
		case 's':
			store = optarg;
			break;
		case 'v':
			opt_verbose = 1;
			break;
		case 'V':
			printf("ofl %s\n", PACKAGE_VERSION);
			return 0;
		case O_OLDER:
			if (ofl_parse_duration(optarg, &o.older_ms) == -1)
				errx(OFL_EXIT_USAGE, "%s", ofl_errmsg());
			break;
		case O_MAXSIZE:
			if (ofl_parse_size(optarg, &o.max_size) == -1)
				errx(OFL_EXIT_USAGE, "%s", ofl_errmsg());
			if (o.max_size == 0)
				errx(OFL_EXIT_USAGE, "--max-size must be above 0");
			break;
		case O_GRACE:
			if (ofl_parse_duration(optarg, &o.grace_ms) == -1)
				errx(OFL_EXIT_USAGE, "%s", ofl_errmsg());
			break;
		case O_PIN:
		case O_UNPIN:
			pins = ofl_xrealloc(pins, (npins + 1) * sizeof *pins);
			pinning = ofl_xrealloc(pinning, (npins + 1) *
			    sizeof *pinning);
			pinning[npins] = ch == O_PIN;
			pins[npins++] = optarg;
			break;
		case O_PURGE:
			o.purge = ofl_xrealloc(o.purge, (o.npurge + 1) *
			    sizeof *o.purge);
			o.purge[o.npurge++] = optarg;
			break;
		case O_LABEL:
			o.label = optarg;
			break;
		case O_SESSION:
			o.session = optarg;
			break;
		case O_ALL:
			o.all = 1;
			break;
		case O_WAIT:
			wait = 1;
			break;
		case O_CHECK:
			check = 1;
			break;
		case O_REPAIR:
			check = repair = 1;
			break;
		case O_STATS:
			do_stats = 1;
			break;
		case O_SET:
			if (strchr(optarg, '=') == NULL)
				errx(OFL_EXIT_USAGE, "--set %s: use KEY=VALUE",
				    optarg);
			sets = ofl_xrealloc(sets, (nsets + 1) * sizeof *sets);
			sets[nsets++] = optarg;
			break;
		case O_SETTINGS:
			show = 1;
			break;
		case O_AUTO:
			autogc = 1;
			break;
		default:
			usage(OFL_EXIT_USAGE);
		}
	}
	if (optind != argc)
		usage(OFL_EXIT_USAGE);
	/* A reference that cannot be an ID is a usage error, store or not. */
	for (i = 0; i < o.npurge; i++) {
		const char	*r = o.purge[i];
		struct ofl_ref	 ref;

		/* ofl:ID:A-B names lines; only whole artifacts go. */
		if (ofl_ref_arg(r, &ref) == 0 && ref.from > 0)
			errx(OFL_EXIT_USAGE, "%s: --purge removes whole "
			    "artifacts: give the ID without a line range", r);
		if (strncmp(r, "ofl:", 4) == 0)
			r += 4;
		if (*r == '@' ? strspn(r + 1, "0123456789") != strlen(r + 1) :
		    !ofl_id_valid(r, strlen(r)))
			errx(OFL_EXIT_USAGE, "%s: not an artifact ID", o.purge[i]);
	}
	/* Only --set and --pin make a store; checks and reports need one there. */
	if ((st = ofl_store_open(store, OFL_RDWR | (check || do_stats ||
	    (show && nsets == 0) ? OFL_NOCREATE : 0))) == NULL)
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

	/* One gc at a time: cron may start the next before this ends. */
	ofl_buf_init(&lockpath);
	ofl_buf_addf(&lockpath, "%s/gc.lock", ofl_store_path(st));
	lockfd = open(ofl_buf_str(&lockpath), O_RDWR | O_CREAT | O_CLOEXEC,
	    0600);
	if (lockfd == -1)
		err(OFL_EXIT_FAIL, "%s", ofl_buf_str(&lockpath));
	if (flock(lockfd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) == -1) {
		if (errno == EWOULDBLOCK) {
			if (!autogc)
				fprintf(stderr, "ofl-gc: another gc is running "
				    "on %s; leaving it to finish (--wait to "
				    "wait)\n", ofl_store_path(st));
			close(lockfd);
			ofl_buf_free(&lockpath);
			goto out;
		}
		err(OFL_EXIT_FAIL, "%s", ofl_buf_str(&lockpath));
	}
	ofl_buf_free(&lockpath);
	/* The space kept free lets SQLite delete on a full disk. */
	if (!o.dry_run)
		(void)ofl_store_reserve(st, 0);

	if (check) {
		int	n = ofl_gc_check(st, repair, on_problem, NULL);

		if (!opt_json)
			printf("%s: %d problem%s%s\n", ofl_store_path(st), n,
			    n == 1 ? "" : "s", repair && n > 0 ? " (repaired "
			    "what could be)" : "");
		else {
			ofl_buf_init(&b);
			ofl_buf_adds(&b, "{\"store\":");
			ofl_buf_add_json_str(&b, ofl_store_path(st),
			    strlen(ofl_store_path(st)));
			ofl_buf_addf(&b, ",\"problems\":%d,\"repair\":%s}\n", n,
			    repair ? "true" : "false");
			fwrite(b.data, 1, b.len, stdout);
			ofl_buf_free(&b);
		}
		rv = n > 0 && !repair ? OFL_EXIT_FAIL : 0;
		goto out;
	}

	if (ofl_gc_run(st, &o, on_removed, &o.dry_run, &rep) == -1)
		rv = rep.status != 0 ? rep.status : OFL_EXIT_FAIL;
	else if (rep.unmet[0] != '\0') {
		/* Ran fine, but the store is still over its budget. */
		if (!autogc)
			warnx("%s", rep.unmet);
		rv = OFL_EXIT_NOMATCH;
	}
	if (opt_json) {
		ofl_buf_init(&b);
		ofl_buf_addf(&b, "{\"removed\":%llu,\"removed_bytes\":%llu,"
		    "\"freed\":%llu,\"kept\":%llu,\"size\":%llu,"
		    "\"dry_run\":%s,\"errors\":%llu,\"budget_unmet\":",
		    (unsigned long long)rep.removed,
		    (unsigned long long)rep.removed_bytes,
		    (unsigned long long)rep.freed,
		    (unsigned long long)rep.kept,
		    (unsigned long long)rep.size, o.dry_run ? "true" : "false",
		    (unsigned long long)rep.errors);
		if (rep.unmet[0] != '\0')
			ofl_buf_add_json_str(&b, rep.unmet, strlen(rep.unmet));
		else
			ofl_buf_adds(&b, "null");
		ofl_buf_adds(&b, "}\n");
		fwrite(b.data, 1, b.len, stdout);
		ofl_buf_free(&b);
	}
	else if (!autogc) {
		ofl_fmt_size(s1, sizeof s1, rep.removed_bytes);
		ofl_fmt_size(s2, sizeof s2, rep.freed);
		ofl_fmt_size(s3, sizeof s3, rep.size);
		printf("%s %llu artifact%s (%s raw, %s stored); %llu kept, "
		    "store %s\n", o.dry_run ? "would remove" : "removed",
		    (unsigned long long)rep.removed, rep.removed == 1 ? "" :
		    "s", s1, s2, (unsigned long long)rep.kept, s3);
	}
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
