/*
 * fmt-plan.c: a plan of infrastructure changes (terraform plan, tofu
 * plan).  Its notice says what the plan's last line says ("Plan: 1 to
 * add, 2 to change, 0 to destroy.") with the line it is on, then for
 * each action the resources it names ("# aws_instance.web will be
 * created"), as many as fit, with the count of the rest.  Read in one
 * pass, at most PLAN_SCAN bytes, memory bounded by PLAN_KEEP names an
 * action.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define PLAN_SCAN	(16ULL * 1024 * 1024)	/* bytes read */
#define PLAN_KEEP	16		/* names kept an action */
#define PLAN_NAME	96		/* bytes of a name kept */
#define PLAN_LINE	300		/* bytes of a line of names */

/* What a resource's heading line says will happen to it. */
static const struct action {
	const char	*says;		/* after the address */
	const char	*name;		/* in the notice */
} actions[] = {
	{ " will be created", "create" },
	{ " will be updated in-place", "update" },
	{ " must be replaced", "replace" },
	{ " will be destroyed", "destroy" },
	{ " will be read during apply", "read" },
	{ NULL, NULL }
};
#define NACTIONS	(sizeof actions / sizeof actions[0] - 1)

struct plan {
	char		*kept[NACTIONS][PLAN_KEEP];
	size_t		 nkept[NACTIONS];
	uint64_t	 count[NACTIONS];
	char		*total;		/* "1 to add, 2 to change, ..." */
	uint64_t	 total_line;
	uint64_t	 lineno;
};

/* "  # aws_instance.web will be created": its action and address. */
static void
plan_line(void *arg, const char *p, size_t n)
{
	struct plan	*pl = arg;
	const char	*e = p + n, *q;
	size_t		 i, k, an;

	pl->lineno++;
	while (p < e && *p == ' ')
		p++;
	if (e - p > 6 && memcmp(p, "Plan: ", 6) == 0) {
		free(pl->total);
		for (q = e; q > p + 6 && (q[-1] == '.' || q[-1] == ' '); q--)
			;
		pl->total = ofl_xstrndup(p + 6, (size_t)(q - p - 6));
		pl->total_line = pl->lineno;
		return;
	}
	if (e - p < 4 || p[0] != '#' || p[1] != ' ')
		return;
	p += 2;
	for (i = 0; actions[i].says != NULL; i++) {
		k = strlen(actions[i].says);
		if ((size_t)(e - p) <= k || memcmp(e - k, actions[i].says,
		    k) != 0)
			continue;
		an = (size_t)(e - k - p);
		if (an == 0 || !((*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z')))
			return;
		pl->count[i]++;
		if (pl->nkept[i] < PLAN_KEEP)
			pl->kept[i][pl->nkept[i]++] = ofl_xstrndup(p,
			    an < PLAN_NAME ? an : PLAN_NAME);
		return;
	}
}

/* "create 2: aws_instance.web, aws_s3_bucket.logs" */
static void
plan_action(struct ofl_buf *t, struct ofl_buf *js, const struct plan *pl,
    size_t i, int first)
{
	size_t	k, start = t->len;

	ofl_buf_addf(t, "  %s ", actions[i].name);
	ofl_buf_add_count(t, pl->count[i]);
	ofl_buf_addc(t, ':');
	ofl_buf_addf(js, "%s\"%s\":{\"count\":%llu,\"resources\":[",
	    first ? "" : ",", actions[i].name,
	    (unsigned long long)pl->count[i]);
	for (k = 0; k < pl->nkept[i]; k++) {
		if (k > 0 && t->len - start + strlen(pl->kept[i][k]) + 24 >
		    PLAN_LINE)
			break;
		ofl_buf_adds(t, k == 0 ? " " : ", ");
		(void)ofl_render_oneline(t, (const unsigned char *)
		    pl->kept[i][k], strlen(pl->kept[i][k]), PLAN_NAME);
		ofl_buf_adds(js, k == 0 ? "" : ",");
		ofl_buf_add_json_cstr(js, pl->kept[i][k]);
	}
	if (pl->count[i] > k)
		ofl_buf_addf(t, ", ... (+%llu more)",
		    (unsigned long long)(pl->count[i] - k));
	ofl_buf_addc(t, '\n');
	ofl_buf_adds(js, "]}");
}

int
ofl_fmt_plan_summary(const struct ofl_src *src, const struct ofl_meta *m,
    struct ofl_summary *sum)
{
	struct plan		*pl;
	struct ofl_buf		 js;
	size_t			 i, k;
	uint64_t		 named = 0;
	int			 rv, first = 1, cut;

	(void)m;
	pl = ofl_xcalloc(1, sizeof *pl);
	rv = ofl_fmt_lines(src, PLAN_SCAN, plan_line, pl, &cut);
	for (i = 0; i < NACTIONS; i++)
		named += pl->count[i];
	/* A plan says its totals, and names what they count. */
	if (rv == 0 && pl->total != NULL && named > 0) {
		ofl_buf_adds(&sum->text, "plan: ");
		ofl_render_oneline(&sum->text, (const unsigned char *)
		    pl->total, strlen(pl->total), PLAN_NAME);
		ofl_buf_adds(&sum->text, " (line ");
		ofl_buf_add_count(&sum->text, pl->total_line);
		ofl_buf_adds(&sum->text, ")\n");
		ofl_buf_init(&js);
		ofl_buf_adds(&js, "{\"total\":");
		ofl_buf_add_json_cstr(&js, pl->total);
		ofl_buf_addf(&js, ",\"line\":%llu,\"actions\":{",
		    (unsigned long long)pl->total_line);
		for (i = 0; i < NACTIONS; i++)
			if (pl->count[i] > 0) {
				plan_action(&sum->text, &js, pl, i, first);
				first = 0;
			}
		ofl_buf_adds(&js, "}}");
		ofl_summary_key(sum, "plan");
		ofl_buf_add(&sum->json, js.data, js.len);
		ofl_buf_free(&js);
	}
	for (i = 0; i < NACTIONS; i++)
		for (k = 0; k < pl->nkept[i]; k++)
			free(pl->kept[i][k]);
	free(pl->total);
	free(pl);
	return rv == 0 ? 0 : -1;
}
