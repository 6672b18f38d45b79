/*
 * fmt-map.c: a page's map, the notice of a browser snapshot
 * (fmt-snapshot.c) and of an HTML page (fmt-html.c): title and URL,
 * elements per role, the headings, the landmarks, every form with its
 * fields and buttons.  Each walker feeds it the elements it finds, each
 * with its mark: a snapshot's "ref=e16", a page's "line 40".
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "fmt-snapshot.h"
#include "banned.h"

#define MAP_ROLES	10		/* roles counted on the line */
#define MAP_HEADINGS	320		/* bytes of the outline */
#define MAP_FORMS	6		/* forms shown */
#define MAP_FIELDS	8		/* fields of a form shown */
#define MAP_LANDMARKS	8
#define MAP_KNOWN	128		/* distinct roles counted */
#define MAP_GROUPS	32
#define MAP_NAME	40		/* bytes of a form's or landmark's name */
#define MAP_FIELD_NAME	30

struct rolecount {
	char	 role[ROLE_MAX];
	size_t	 n;
};

/* A form (a "form" or "search" element) or the fields outside forms. */
struct group {
	uint64_t	 key;		/* the form's line; 0: no form */
	struct ofl_buf	 head;
	struct ofl_buf	 items;
	size_t		 n;
	char		 last[ROLE_MAX + 40];	/* the last item's label */
	size_t		 alike;		/* items after it with its label */
};

struct ofl_fmt_map {
	struct rolecount role[MAP_KNOWN];
	size_t		 nrole;
	size_t		 elements;
	struct ofl_buf	 heads;		/* "# A | ## B" */
	size_t		 nheads, shown;
	struct group	 g[MAP_GROUPS];
	size_t		 ng, forms;
	struct ofl_buf	 land;
	size_t		 nland;
	char		 suggest[ROLE_MAX];
};

static void	 mark(struct ofl_buf *, const char *);
static void	 group_alike(struct group *);
static int	 rolecount_cmp(const void *, const void *);

struct ofl_fmt_map *
ofl_fmt_map_new(void)
{
	struct ofl_fmt_map	*mp;

	mp = ofl_xcalloc(1, sizeof *mp);
	ofl_buf_init(&mp->heads);
	ofl_buf_init(&mp->land);
	return mp;
}

void
ofl_fmt_map_free(struct ofl_fmt_map *mp)
{
	size_t	i;

	if (mp == NULL)
		return;
	for (i = 0; i < mp->ng; i++) {
		ofl_buf_free(&mp->g[i].head);
		ofl_buf_free(&mp->g[i].items);
	}
	ofl_buf_free(&mp->heads);
	ofl_buf_free(&mp->land);
	free(mp);
}

/* The roles of what a form is made of. */
int
ofl_fmt_map_is_field(const char *role)
{
	static const char *const f[] = {
		"textbox", "searchbox", "combobox", "checkbox", "radio",
		"spinbutton", "slider", "switch", "listbox", "button",
		NULL
	};
	size_t	i;

	for (i = 0; f[i] != NULL; i++)
		if (strcasecmp(role, f[i]) == 0)
			return 1;
	return 0;
}

/* role "name", the name cut to max bytes. */
void
ofl_fmt_map_label(struct ofl_buf *b, const char *role, const char *name,
    size_t max)
{
	size_t	n = strlen(name), used = 0;

	ofl_render(b, (const unsigned char *)role, strlen(role), ROLE_MAX,
	    OFL_RENDER_ONELINE, NULL);
	if (n > 0) {
		/* Control bytes and broken UTF-8 escaped: a page says them. */
		ofl_buf_adds(b, " \"");
		ofl_render(b, (const unsigned char *)name, n, max,
		    OFL_RENDER_ONELINE, &used);
		if (used < n)
			ofl_buf_adds(b, "...");
		ofl_buf_addc(b, '"');
	}
}

/* " (+28 alike)" after an item shown, for the same after it. */
static void
group_alike(struct group *g)
{
	if (g->alike > 0 && g->n <= MAP_FIELDS)
		ofl_buf_addf(&g->items, " (+%zu alike)", g->alike);
	g->alike = 0;
}

/* " [ref=e16]", " [line 40]": where the element is. */
static void
mark(struct ofl_buf *b, const char *m)
{
	if (m != NULL && *m != '\0')
		ofl_buf_addf(b, " [%s]", m);
}

void
ofl_fmt_map_role(struct ofl_fmt_map *mp, const char *role)
{
	size_t	i;

	mp->elements++;
	for (i = 0; i < mp->nrole; i++) {
		if (strcmp(mp->role[i].role, role) == 0) {
			mp->role[i].n++;
			return;
		}
	}
	if (mp->nrole == MAP_KNOWN)
		return;
	snprintf(mp->role[mp->nrole].role, ROLE_MAX, "%s", role);
	mp->role[mp->nrole++].n = 1;
}

void
ofl_fmt_map_heading(struct ofl_fmt_map *mp, int level, const char *name)
{
	size_t	at = mp->heads.len;
	int	i, lv = level > 0 && level <= 6 ? level : 1;

	mp->nheads++;
	if (name[0] == '\0' || mp->heads.len >= MAP_HEADINGS)
		return;
	if (mp->shown > 0)
		ofl_buf_adds(&mp->heads, " | ");
	for (i = 0; i < lv; i++)
		ofl_buf_addc(&mp->heads, '#');
	ofl_buf_addc(&mp->heads, ' ');
	ofl_render(&mp->heads, (const unsigned char *)name, strlen(name), 40,
	    OFL_RENDER_ONELINE, NULL);
	if (mp->heads.len > MAP_HEADINGS) {
		mp->heads.len = at;
		return;
	}
	mp->shown++;
}

/*
 * A field or a button, into the group of its form (NULL: outside any),
 * the form known by its key.  Buttons outside a form are the page's
 * controls, not a form's.
 */
void
ofl_fmt_map_field(struct ofl_fmt_map *mp, const struct ofl_fmt_map_el *e,
    const struct ofl_fmt_map_el *form, uint64_t key)
{
	struct group	*g;
	size_t		 i;
	char		 label[sizeof g->last];

	if (form == NULL && strcasecmp(e->role, "button") == 0)
		return;
	if (form == NULL)
		key = 0;
	for (i = 0; i < mp->ng; i++)
		if (mp->g[i].key == key)
			break;
	if (i == mp->ng) {
		if (mp->ng == MAP_GROUPS)
			return;
		g = &mp->g[mp->ng++];
		memset(g, 0, sizeof *g);
		ofl_buf_init(&g->head);
		ofl_buf_init(&g->items);
		g->key = key;
		if (form != NULL) {
			ofl_fmt_map_label(&g->head, form->role, form->name,
			    MAP_NAME);
			mark(&g->head, form->mark);
			mp->forms++;
		} else
			ofl_buf_adds(&g->head, "fields outside forms");
	}
	g = &mp->g[i];
	/* The same control again and again (a page's "copy" buttons). */
	snprintf(label, sizeof label, "%s %s", e->role, e->name);
	if (g->n > 0 && strcmp(label, g->last) == 0) {
		g->alike++;
		return;
	}
	group_alike(g);
	snprintf(g->last, sizeof g->last, "%s", label);
	if (g->n++ >= MAP_FIELDS)
		return;
	if (g->items.len > 0)
		ofl_buf_adds(&g->items, ", ");
	ofl_fmt_map_label(&g->items, e->role, e->name, MAP_FIELD_NAME);
	mark(&g->items, e->mark);
	if ((mp->suggest[0] == '\0' || strcmp(mp->suggest, "button") == 0) &&
	    strcmp(e->role, "hidden") != 0)
		snprintf(mp->suggest, sizeof mp->suggest, "%s", e->role);
}

void
ofl_fmt_map_landmark(struct ofl_fmt_map *mp, const struct ofl_fmt_map_el *e)
{
	if (mp->nland++ >= MAP_LANDMARKS)
		return;
	if (mp->land.len > 0)
		ofl_buf_adds(&mp->land, ", ");
	ofl_fmt_map_label(&mp->land, e->role, e->name, MAP_NAME);
	mark(&mp->land, e->mark);
}

/* The role worth querying next: the first field's, else "link". */
const char *
ofl_fmt_map_suggest(const struct ofl_fmt_map *mp)
{
	return mp->suggest[0] != '\0' ? mp->suggest : "link";
}

static int
rolecount_cmp(const void *a, const void *b)
{
	const struct rolecount *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->role, y->role);
}

void
ofl_fmt_map_text(struct ofl_fmt_map *mp, const char *title, const char *url,
    struct ofl_summary *sum)
{
	struct ofl_buf	*t = &sum->text, *j = &sum->json;
	size_t		 i, shown;

	if (title[0] != '\0' || url[0] != '\0') {
		ofl_buf_adds(t, "page: ");
		ofl_render(t, (const unsigned char *)title, strlen(title), 100,
		    OFL_RENDER_ONELINE, NULL);
		if (url[0] != '\0') {
			ofl_buf_adds(t, " <");
			ofl_render(t, (const unsigned char *)url, strlen(url),
			    160, OFL_RENDER_ONELINE, NULL);
			ofl_buf_addc(t, '>');
		}
		ofl_buf_addc(t, '\n');
	}
	ofl_summary_key(sum, "page");
	ofl_buf_adds(j, "{\"title\":");
	ofl_buf_add_json_cstr(j, title);
	ofl_buf_adds(j, ",\"url\":");
	ofl_buf_add_json_cstr(j, url);
	ofl_buf_addc(j, '}');

	qsort(mp->role, mp->nrole, sizeof mp->role[0], rolecount_cmp);
	ofl_buf_adds(t, "elements: ");
	ofl_buf_add_count(t, mp->elements);
	ofl_summary_key(sum, "roles");
	ofl_buf_addc(j, '{');
	for (i = 0; i < mp->nrole; i++) {
		if (i < MAP_ROLES) {
			ofl_buf_addf(t, "%s %s ", i == 0 ? ";" : ",",
			    mp->role[i].role);
			ofl_buf_add_count(t, mp->role[i].n);
		}
		if (i > 0)
			ofl_buf_addc(j, ',');
		ofl_buf_add_json_cstr(j, mp->role[i].role);
		ofl_buf_addf(j, ":%zu", mp->role[i].n);
	}
	ofl_buf_addc(j, '}');
	if (mp->nrole > MAP_ROLES)
		ofl_buf_addf(t, " (+%zu roles)", mp->nrole - MAP_ROLES);
	ofl_buf_addc(t, '\n');

	if (mp->nheads > 0) {
		ofl_buf_adds(t, "headings: ");
		ofl_buf_add(t, mp->heads.data, mp->heads.len);
		if (mp->nheads > mp->shown)
			ofl_buf_addf(t, " (+%zu more)", mp->nheads - mp->shown);
		ofl_buf_addc(t, '\n');
	}
	ofl_summary_key(sum, "headings_total");
	ofl_buf_addf(j, "%zu", mp->nheads);
	if (mp->nland > 0) {
		ofl_buf_adds(t, "landmarks: ");
		ofl_buf_add(t, mp->land.data, mp->land.len);
		if (mp->nland > MAP_LANDMARKS)
			ofl_buf_addf(t, " (+%zu more)",
			    mp->nland - MAP_LANDMARKS);
		ofl_buf_addc(t, '\n');
	}
	ofl_summary_key(sum, "forms");
	ofl_buf_addc(j, '[');
	for (i = 0, shown = 0; i < mp->ng; i++) {
		if (shown == MAP_FORMS)
			break;
		group_alike(&mp->g[i]);
		ofl_buf_add(t, mp->g[i].head.data, mp->g[i].head.len);
		ofl_buf_adds(t, ": ");
		ofl_buf_add(t, mp->g[i].items.data, mp->g[i].items.len);
		if (mp->g[i].n > MAP_FIELDS)
			ofl_buf_addf(t, " (+%zu more)", mp->g[i].n - MAP_FIELDS);
		ofl_buf_addc(t, '\n');
		if (shown > 0)
			ofl_buf_addc(j, ',');
		ofl_buf_adds(j, "{\"form\":");
		ofl_buf_add_json_str(j, mp->g[i].head.data, mp->g[i].head.len);
		ofl_buf_adds(j, ",\"fields\":");
		ofl_buf_add_json_str(j, mp->g[i].items.data,
		    mp->g[i].items.len);
		ofl_buf_addf(j, ",\"count\":%zu}", mp->g[i].n);
		shown++;
	}
	ofl_buf_addc(j, ']');
	if (mp->ng > shown)
		ofl_buf_addf(t, "(+%zu more forms)\n", mp->ng - shown);
	if (mp->ng == 0)
		ofl_buf_adds(t, "forms: none\n");
}
