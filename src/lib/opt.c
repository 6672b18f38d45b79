/*
 * opt.c: one option table per tool, from which its getopt_long() string,
 * its struct option array, its usage synopsis and its --help are made,
 * as tmux keeps the getopt string and the usage of a command in one
 * struct.  The manual pages and the completions are checked against the
 * same table (tests/t9040-options.sh reads it with --list-options), so an
 * option is stated once in C.
 *
 * An entry whose ch is a letter has that short option; one with a name
 * has that long option; one with no help text is a hidden alias, kept
 * working for old spellings but shown nowhere.
 */
#include "config.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define SYN_WIDTH	80	/* wrap the synopsis before this column */
#define HELP_COL	26	/* the help text starts in this column */

static int	 opt_letter(const struct ofl_opt *);
static int	 opt_count(const struct ofl_opt *);
static void	 syn_word(FILE *, const char *, size_t, size_t *);
static size_t	 opt_label(const struct ofl_opt *, char *, size_t);
static int	 syn_cmp(const void *, const void *);

static int
opt_letter(const struct ofl_opt *o)
{
	return (o->ch > 0 && o->ch < 128 && isalnum((unsigned char)o->ch));
}

static int
opt_count(const struct ofl_opt *opts)
{
	int	n;

	for (n = 0; opts[n].ch != 0; n++)
		;
	return (n);
}

void
ofl_opt_init(struct ofl_getopt *g, const struct ofl_opt *opts, int inorder)
{
	const struct ofl_opt	*o;
	struct option		*lo;
	char			*s;
	int			 n;

	memset(g, 0, sizeof *g);
	g->opts = opts;
	n = opt_count(opts);
	/* Each letter with two colons at most, a '+' and the NUL. */
	s = g->shortopts = ofl_xcalloc(3 * n + 2, 1);
	if (inorder)
		*s++ = '+';
	lo = g->longopts = ofl_xcalloc(n + 2, sizeof *lo);
	for (o = opts; o->ch != 0; o++) {
		if (opt_letter(o)) {
			*s++ = (char)o->ch;
			if (o->has_arg != no_argument)
				*s++ = ':';
			if (o->has_arg == optional_argument)
				*s++ = ':';
		}
		if (o->name != NULL) {
			lo->name = o->name;
			lo->has_arg = o->has_arg;
			lo->flag = NULL;
			lo->val = o->ch;
			lo++;
		}
	}
	lo->name = "list-options";
	lo->has_arg = no_argument;
	lo->val = OFL_OPT_LIST;
}

void
ofl_opt_free(struct ofl_getopt *g)
{
	free(g->shortopts);
	free(g->longopts);
	g->shortopts = NULL;
	g->longopts = NULL;
}

int
ofl_opt_next(struct ofl_getopt *g, int argc, char *argv[])
{
	return (getopt_long(argc, argv, g->shortopts, g->longopts, NULL));
}

/* One word of the synopsis, wrapped under the first one. */
static void
syn_word(FILE *fp, const char *w, size_t indent, size_t *col)
{
	size_t	len = strlen(w);

	if (*col > indent && *col + 1 + len >= SYN_WIDTH) {
		fprintf(fp, "\n%*s", (int)indent, "");
		*col = indent;
	} else if (*col > indent) {
		fputc(' ', fp);
		(*col)++;
	}
	fputs(w, fp);
	*col += len;
}

/*
 * The synopsis order: the flags with letters in one bracket, then the
 * long-only flags by name, the options with letters and an argument (a
 * before A before b), and the long-only options with an argument by name.
 */
static int
syn_cmp(const void *a, const void *b)
{
	const struct ofl_opt	*x = *(const struct ofl_opt * const *)a;
	const struct ofl_opt	*y = *(const struct ofl_opt * const *)b;
	int			 lx = opt_letter(x), ly = opt_letter(y), c;
	int			 fx, fy;

	/* Long-only flags first, then those with letters. */
	fx = !lx && x->has_arg == no_argument;
	fy = !ly && y->has_arg == no_argument;
	if (fx != fy)
		return (fy - fx);
	if (lx != ly)
		return (ly - lx);
	if (!lx)
		return (strcmp(x->name, y->name));
	c = tolower(x->ch) - tolower(y->ch);
	if (c != 0)
		return (c);
	return (x->ch - y->ch);		/* 'S' before 's' */
}

void
ofl_opt_usage(FILE *fp, const char *prog, const struct ofl_opt *opts,
    const char *operands, const char *more)
{
	const struct ofl_opt	**v, *o;
	char			  w[256], flags[64];
	size_t			  indent, col, nf = 0, n = 0, i;

	v = ofl_xcalloc(opt_count(opts) + 1, sizeof *v);
	for (o = opts; o->ch != 0; o++)
		if (o->help != NULL && !(o->flags & OFL_OPT_NOSYN))
			v[n++] = o;
	qsort(v, n, sizeof *v, syn_cmp);
	fprintf(fp, "usage: %s ", prog);
	indent = col = strlen("usage: ") + strlen(prog) + 1;
	for (i = 0; i < n; i++)
		if (opt_letter(v[i]) && v[i]->has_arg == no_argument &&
		    v[i]->syn == NULL && nf + 1 < sizeof flags)
			flags[nf++] = (char)v[i]->ch;
	flags[nf] = '\0';
	if (nf > 0) {
		snprintf(w, sizeof w, "[-%s]", flags);
		syn_word(fp, w, indent, &col);
	}
	for (i = 0; i < n; i++) {
		o = v[i];
		if (o->syn != NULL)
			snprintf(w, sizeof w, "%s", o->syn);
		else if (opt_letter(o) && o->has_arg == no_argument)
			continue;
		else if (opt_letter(o))
			snprintf(w, sizeof w, "[-%c %s]", o->ch, o->arg);
		else if (o->has_arg == no_argument)
			snprintf(w, sizeof w, "[--%s]", o->name);
		else if (o->has_arg == optional_argument)
			snprintf(w, sizeof w, "[--%s=%s]", o->name, o->arg);
		else
			snprintf(w, sizeof w, "[--%s %s]", o->name, o->arg);
		syn_word(fp, w, indent, &col);
	}
	free(v);
	if (operands != NULL && *operands != '\0')
		syn_word(fp, operands, indent, &col);
	fputc('\n', fp);
	if (more != NULL)
		fputs(more, fp);
}

/* "-T, --threshold TOKENS" or "    --tail BYTES": the left column. */
static size_t
opt_label(const struct ofl_opt *o, char *s, size_t size)
{
	char	 arg[64];
	size_t	 i, n;

	arg[0] = '\0';
	if (o->has_arg != no_argument && o->arg != NULL) {
		for (i = 0; o->arg[i] != '\0' && i < sizeof arg - 1; i++)
			arg[i] = (char)toupper((unsigned char)o->arg[i]);
		arg[i] = '\0';
	}
	if (opt_letter(o) && o->name != NULL)
		n = snprintf(s, size, "-%c, --%s", o->ch, o->name);
	else if (opt_letter(o))
		n = snprintf(s, size, "-%c", o->ch);
	else
		n = snprintf(s, size, "    --%s", o->name);
	if (n >= size)
		return (size - 1);
	if (arg[0] != '\0') {
		if (o->has_arg == optional_argument)
			n += snprintf(s + n, size - n, "[=%s]", arg);
		else
			n += snprintf(s + n, size - n, " %s", arg);
	}
	return (n >= size ? size - 1 : n);
}

void
ofl_opt_help(FILE *fp, const struct ofl_opt *opts)
{
	const struct ofl_opt	*o;
	const char		*p, *nl;
	char			 label[128];
	size_t			 n;

	for (o = opts; o->ch != 0; o++) {
		if (o->help == NULL)
			continue;
		n = opt_label(o, label, sizeof label);
		fprintf(fp, "  %s", label);
		if (2 + n + 2 > HELP_COL)
			fprintf(fp, "\n%*s", HELP_COL, "");
		else
			fprintf(fp, "%*s", (int)(HELP_COL - 2 - n), "");
		/* A help text of several lines keeps to its column. */
		for (p = o->help; (nl = strchr(p, '\n')) != NULL; p = nl + 1)
			fprintf(fp, "%.*s\n%*s", (int)(nl - p), p, HELP_COL,
			    "");
		fprintf(fp, "%s\n", p);
	}
}

void
ofl_opt_list(FILE *fp, const struct ofl_opt *opts)
{
	const struct ofl_opt	*o;
	static const char	*how[] = { "none", "required", "optional" };
	char			 letter[2];

	for (o = opts; o->ch != 0; o++) {
		letter[0] = opt_letter(o) ? (char)o->ch : '-';
		letter[1] = '\0';
		fprintf(fp, "%s\t%s\t%s\t%s\t%s\n", letter,
		    o->name != NULL ? o->name : "-",
		    how[o->has_arg >= 0 && o->has_arg <= 2 ? o->has_arg : 0],
		    o->arg != NULL ? o->arg : "-",
		    o->help != NULL ? "shown" : "hidden");
	}
}

const char *
ofl_opt_name(const struct ofl_opt *opts, int ch)
{
	static char		 buf[64];
	const struct ofl_opt	*o;

	for (o = opts; o->ch != 0; o++)
		if (o->ch == ch && o->help != NULL)
			break;
	if (o->ch != 0 && o->name != NULL)
		snprintf(buf, sizeof buf, "--%s", o->name);
	else if (ch > 0 && ch < OFL_OPT_BASE)
		snprintf(buf, sizeof buf, "-%c", ch);
	else
		snprintf(buf, sizeof buf, "an option");
	return buf;
}
