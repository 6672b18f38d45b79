/*
 * tmpl-ids.c: a test and benchmark driver for the log template miner
 * (fmt-log-tmpl.c), not installed.  It reads a file twice: the first
 * pass mines, the second prints one template ID per line; with -t it
 * prints the templates instead ("ID COUNT FIRST LAST LEVEL TEMPLATE"),
 * with -c only the line and template counts (the speed benchmark's
 * mode: one pass); with -m, for the first line of each record, its ID
 * and the ID the matcher built from the templates alone gives it ("-"
 * when none).
 *
 *	tmpl-ids [-c | -m | -t] FILE
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/lib/ofl.h"

static void
pass(FILE *f, struct ofl_fmt_log_tmpl *m, int second,
    const struct ofl_fmt_log_tmpl_match *mt)
{
	char	*line = NULL, id[OFL_TMPL_ID], mid[OFL_TMPL_ID];
	size_t	 cap = 0;
	ssize_t	 n;

	while ((n = getline(&line, &cap, f)) != -1) {
		if (n > 0 && line[n - 1] == '\n')
			n--;
		if (!second)
			ofl_fmt_log_tmpl_add(m, line, (size_t)n);
		else if (mt == NULL) {
			ofl_fmt_log_tmpl_line(m, line, (size_t)n, id);
			puts(id);
		} else if (ofl_fmt_log_tmpl_line(m, line, (size_t)n, id) == 1)
			printf("%s %s\n", id, ofl_fmt_log_tmpl_match(mt, line,
			    (size_t)n, mid) ? mid : "-");
	}
	free(line);
}

int
main(int argc, char **argv)
{
	struct ofl_fmt_log_tmpl			*m;
	const struct ofl_fmt_log_tmpl_info	*t;
	struct ofl_fmt_log_tmpl_info		*infos;
	struct ofl_fmt_log_tmpl_match		*mt = NULL;
	FILE					*f;
	size_t					 i;
	int					 mode = 0;

	if (argc == 3 && (strcmp(argv[1], "-c") == 0 ||
	    strcmp(argv[1], "-m") == 0 || strcmp(argv[1], "-t") == 0)) {
		mode = argv[1][1];
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: tmpl-ids [-c | -m | -t] file\n");
		return 2;
	}
	if ((f = fopen(argv[1], "r")) == NULL) {
		perror(argv[1]);
		return 1;
	}
	m = ofl_fmt_log_tmpl_new();
	pass(f, m, 0, NULL);
	ofl_fmt_log_tmpl_finish(m);
	if (mode == 'c')
		printf("%" PRIu64 " lines %zu templates\n",
		    ofl_fmt_log_tmpl_lines(m), ofl_fmt_log_tmpl_count(m));
	else if (mode == 't') {
		for (i = 0; (t = ofl_fmt_log_tmpl_get(m, i)) != NULL; i++)
		{
			printf("%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %s ",
			    t->id, t->count, t->first_line, t->last_line,
			    t->level != NULL ? t->level : "-");
			fwrite(t->text, 1, t->len, stdout);
			putchar('\n');
		}
	} else {
		if (mode == 'm') {
			infos = calloc(ofl_fmt_log_tmpl_count(m) + 1,
			    sizeof(*infos));
			for (i = 0; (t = ofl_fmt_log_tmpl_get(m, i)) != NULL;
			    i++)
				infos[i] = *t;
			mt = ofl_fmt_log_tmpl_match_new(infos, i);
			free(infos);
		}
		rewind(f);
		ofl_fmt_log_tmpl_rewind(m);
		pass(f, m, 1, mt);
		ofl_fmt_log_tmpl_match_free(mt);
	}
	fclose(f);
	ofl_fmt_log_tmpl_free(m);
	return 0;
}
