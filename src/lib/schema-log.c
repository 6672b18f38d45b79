/*
 * schema-log.c: the templates of a log artifact, its "schema".  They are
 * mined (fmt-log-tmpl.c) in one pass over the content, when the log is
 * indexed or first described, and cached in the store (store-tmpl.c).
 * A second pass gives each line its template (ofl-extract --template);
 * the map from a line to its template that search collapses hits with
 * matches lines against the cached templates, with no pass.  Memory stays flat: the miner is bounded, and a line is looked
 * at up to LINE_CAP bytes.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define READ_BYTES	(1024 * 1024)
#define LINE_CAP	(64 * 1024)	/* bytes of a line the miner sees */

typedef int (*line_fn)(void *, const char *, size_t);

/* Each line of an artifact (its first LINE_CAP bytes), in order. */
static int
each_line(struct ofl_store *st, const char *id, line_fn fn, void *arg)
{
	struct ofl_reader	*r;
	char			*buf, *line, *nl, *p, *e;
	size_t			 len = 0, k;
	ssize_t			 n;
	int			 rv = -1, open = 0, stop = 0;

	if ((r = ofl_reader_open(st, id)) == NULL)
		return -1;
	buf = ofl_xmalloc(READ_BYTES);
	line = ofl_xmalloc(LINE_CAP);
	while (!stop && (n = ofl_reader_read(r, buf, READ_BYTES)) > 0) {
		for (p = buf, e = buf + n; p < e && !stop; p = nl + 1) {
			if ((nl = memchr(p, '\n', (size_t)(e - p))) == NULL) {
				/* A line that goes on in the next read. */
				k = (size_t)(e - p);
				if (k > LINE_CAP - len)
					k = LINE_CAP - len;
				memcpy(line + len, p, k);
				len += k;
				open = 1;
				break;
			}
			if (open) {
				k = (size_t)(nl - p);
				if (k > LINE_CAP - len)
					k = LINE_CAP - len;
				memcpy(line + len, p, k);
				len += k;
				stop = fn(arg, line, len) != 0;
				len = 0;
				open = 0;
			} else
				stop = fn(arg, p, (size_t)(nl - p) > LINE_CAP ?
				    LINE_CAP : (size_t)(nl - p)) != 0;
		}
	}
	if (!stop && open)
		(void)fn(arg, line, len);
	if (n >= 0 || stop)
		rv = 0;
	free(line);
	free(buf);
	ofl_reader_close(r);
	return rv;
}

static int
mine_line(void *arg, const char *p, size_t n)
{
	ofl_fmt_log_tmpl_add(arg, p, n);
	return 0;
}

/* The miner run over an artifact and finished, or NULL. */
static struct ofl_fmt_log_tmpl *
mine(struct ofl_store *st, const char *id)
{
	struct ofl_fmt_log_tmpl	*m;

	m = ofl_fmt_log_tmpl_new();
	if (each_line(st, id, mine_line, m) == -1) {
		ofl_fmt_log_tmpl_free(m);
		return NULL;
	}
	ofl_fmt_log_tmpl_finish(m);
	return m;
}

/* Mine an artifact's templates and cache them (ofl-index does). */
int
ofl_schema_log_mine(struct ofl_store *st, const char *id)
{
	struct ofl_fmt_log_tmpl	*m;
	int			 rv;

	if ((m = mine(st, id)) == NULL)
		return -1;
	rv = ofl_store_tmpl_put(st, id, m);
	ofl_fmt_log_tmpl_free(m);
	return rv;
}

/*
 * The templates of an artifact: from the cache, or mined (and cached on
 * a store open for writing) when it holds at most max bytes (0: any);
 * with all, mined again when the cache kept only part of them.  0 with
 * *out filled, 1 when not cached and larger than max, -1 on an error.
 */
int
ofl_schema_log(struct ofl_store *st, const char *id, uint64_t max, int all,
    struct ofl_schema_log *out)
{
	struct ofl_fmt_log_tmpl			*m;
	const struct ofl_fmt_log_tmpl_info	*t;
	struct ofl_meta				 meta;
	size_t					 i;
	int					 r, cached;

	memset(out, 0, sizeof(*out));
	if ((r = ofl_store_tmpl_get(st, id, &out->t, &out->n, &out->total,
	    &out->lines)) == -1)
		return -1;
	if ((cached = r == 1) && (!all || out->total == out->n))
		return 0;
	if (cached) {
		/* Part of them: mined again, whatever the size. */
		ofl_schema_log_free(out);
		max = 0;
	}
	if (ofl_store_meta(st, id, &meta) == -1)
		return -1;
	r = max > 0 && meta.bytes > max;
	ofl_meta_free(&meta);
	if (r)
		return 1;
	if ((m = mine(st, id)) == NULL)
		return -1;
	if (!cached)
		(void)ofl_store_tmpl_put(st, id, m);
	out->n = out->total = ofl_fmt_log_tmpl_count(m);
	out->lines = ofl_fmt_log_tmpl_lines(m);
	out->t = ofl_xcalloc(out->n + 1, sizeof(*out->t));
	for (i = 0; i < out->n; i++) {
		t = ofl_fmt_log_tmpl_get(m, i);
		out->t[i] = *t;
		out->t[i].text = ofl_xmalloc(t->len + 1);
		memcpy(out->t[i].text, t->text, t->len + 1);
	}
	ofl_fmt_log_tmpl_free(m);
	return 0;
}

void
ofl_schema_log_free(struct ofl_schema_log *s)
{
	ofl_store_tmpl_free(s->t, s->n);
	memset(s, 0, sizeof(*s));
}

/*
 * The map from a line of an artifact to its template, for search: the
 * cached templates matched against the line, never a pass over the
 * content but to mine a small log not yet mined.
 */
struct ofl_schema_log_map {
	struct ofl_fmt_log_tmpl_match	*mt;
};

struct ofl_schema_log_map *
ofl_schema_log_map_open(struct ofl_store *st, const char *id, uint64_t max)
{
	struct ofl_schema_log_map	*map;
	struct ofl_schema_log		 sl;

	if (ofl_schema_log(st, id, max == 0 ? 1 : max, 0, &sl) != 0)
		return NULL;
	map = ofl_xcalloc(1, sizeof(*map));
	map->mt = ofl_fmt_log_tmpl_match_new(sl.t, sl.n);
	ofl_schema_log_free(&sl);
	return map;
}

int
ofl_schema_log_map_line(const struct ofl_schema_log_map *map,
    const char *line, size_t len, char id[OFL_TMPL_ID])
{
	return ofl_fmt_log_tmpl_match(map->mt, line, len, id);
}

void
ofl_schema_log_map_close(struct ofl_schema_log_map *map)
{
	if (map == NULL)
		return;
	ofl_fmt_log_tmpl_match_free(map->mt);
	free(map);
}

static int
digits(uint64_t v)
{
	int	n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* The command that prints all: ofl-schema [-s STORE] ID --max-bytes 0. */
static void
rest_cmd(struct ofl_buf *b, const char *id, const char *store_arg, int json)
{
	char	*q;

	ofl_buf_adds(b, "ofl-schema");
	if (store_arg != NULL) {
		q = ofl_shquote(store_arg);
		ofl_buf_addf(b, " -s %s", q);
		free(q);
	}
	ofl_buf_addf(b, " %s%s --max-bytes 0", id, json ? " --json" : "");
}

static void
one_json(struct ofl_buf *b, const char *id,
    const struct ofl_fmt_log_tmpl_info *t)
{
	ofl_buf_adds(b, "{\"id\":");
	ofl_buf_add_json_cstr(b, id);
	ofl_buf_addf(b, ",\"template_id\":\"%s\",\"template\":", t->id);
	ofl_buf_add_json_str(b, t->text, t->len);
	ofl_buf_addf(b, ",\"count\":%llu,\"first_line\":%llu,"
	    "\"last_line\":%llu,\"level\":", (unsigned long long)t->count,
	    (unsigned long long)t->first_line,
	    (unsigned long long)t->last_line);
	ofl_buf_add_json_cstr(b, t->level);
	ofl_buf_adds(b, "}\n");
}

/*
 * The templates as ofl-schema prints them: a line that says how many,
 * then one line each (ID, count, first and last line, level, template),
 * or with json one JSON object each; at most max bytes (0: all), the
 * rest said with the command that prints it.
 */
void
ofl_schema_log_out(const struct ofl_schema_log *s, const char *id,
    const char *store_arg, uint64_t max, int json, struct ofl_buf *out)
{
	const struct ofl_fmt_log_tmpl_info	*t;
	struct ofl_buf				 one;
	uint64_t				 maxc = 0;
	size_t					 i, start = out->len;
	int					 wc, wl;

	for (i = 0; i < s->n; i++)
		if (s->t[i].count > maxc)
			maxc = s->t[i].count;
	wc = digits(maxc) > 5 ? digits(maxc) : 5;
	wl = digits(s->lines) > 5 ? digits(s->lines) : 5;
	if (!json) {
		ofl_buf_addf(out, "ofl:%s log: ", id);
		ofl_buf_add_count(out, s->lines);
		ofl_buf_addf(out, " line%s, ", s->lines == 1 ? "" : "s");
		ofl_buf_add_count(out, s->n);
		ofl_buf_addf(out, " template%s, most frequent first\n",
		    s->n == 1 ? "" : "s");
		ofl_buf_addf(out, "%-12s %*s %*s %*s %-6s %s\n", "TEMPLATE_ID",
		    wc, "COUNT", wl, "FIRST", wl, "LAST", "LEVEL", "TEMPLATE");
	}
	ofl_buf_init(&one);
	for (i = 0; i < s->n; i++) {
		t = &s->t[i];
		ofl_buf_reset(&one);
		if (json)
			one_json(&one, id, t);
		else {
			ofl_buf_addf(&one, "%-12s %*llu %*llu %*llu %-6s ",
			    t->id, wc, (unsigned long long)t->count, wl,
			    (unsigned long long)t->first_line, wl,
			    (unsigned long long)t->last_line,
			    t->level != NULL ? t->level : "-");
			ofl_render_oneline(&one, (const unsigned char *)t->text,
			    t->len, 4096);
			ofl_buf_addc(&one, '\n');
		}
		if (max > 0 && out->len - start + one.len > max)
			break;
		ofl_buf_add(out, one.data, one.len);
	}
	if (i < s->n) {
		ofl_buf_reset(&one);
		rest_cmd(&one, id, store_arg, json);
		if (json) {
			ofl_buf_adds(out, "{\"id\":");
			ofl_buf_add_json_cstr(out, id);
			ofl_buf_addf(out, ",\"omitted\":\"%zu more templates\","
			    "\"command\":", s->n - i);
			ofl_buf_add_json_str(out, one.data, one.len);
			ofl_buf_adds(out, "}\n");
		} else
			ofl_buf_addf(out, "[... %zu more template%s not shown: "
			    "%s]\n", s->n - i, s->n - i == 1 ? "" : "s",
			    ofl_buf_str(&one));
	}
	ofl_buf_free(&one);
}
