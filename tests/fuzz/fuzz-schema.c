/*
 * fuzz-schema.c: the streaming JSON parser and the schema accumulator.
 *
 * Invariants: feeding the input whole or cut in three pieces gives the
 * same events and the same schema (the parser is a true stream); the
 * JSON Schema and the JSON Lines shape ofl prints parse as JSON; the
 * text shape keeps within its budget.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fuzz.h"
#include "banned.h"

const char	fuzz_target[] = "schema";

static const int kinds[] = {
	OFL_KIND_JSON, OFL_KIND_NDJSON, OFL_KIND_CSV, OFL_KIND_TSV
};

struct trace {
	struct ofl_buf	 log;		/* every event, as text */
	struct ofl_buf	 path;
	uint64_t	 events;
	uint64_t	 size;
};

static int	on_event(struct ofl_json *, const struct ofl_json_event *,
		    void *);
static int	parse(const uint8_t *, size_t, const size_t *, size_t, int,
		    struct trace *);
static int	on_value(struct ofl_json *, const struct ofl_json_event *,
		    void *);
static void	must_parse(const char *, size_t, int, const char *);
static void	schema(const uint8_t *, size_t, const size_t *, size_t, int,
		    struct ofl_buf *);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static int
on_event(struct ofl_json *j, const struct ofl_json_event *ev, void *arg)
{
	struct trace	*t = arg;
	const char	*key;
	size_t		 klen = 0;

	t->events++;
	if (ev->type < OFL_JSON_OBJECT_BEGIN || ev->type > OFL_JSON_NULL)
		fuzz_fail("event type %d", ev->type);
	if (ev->offset > t->size || ev->end > t->size)
		fuzz_fail("event at %llu-%llu beyond the input (%llu)",
		    (unsigned long long)ev->offset,
		    (unsigned long long)ev->end, (unsigned long long)t->size);
	if (ev->str == NULL && ev->len > 0)
		fuzz_fail("NULL string of %zu bytes", ev->len);
	ofl_buf_addf(&t->log, "%d %zu %llu %llu %d ", ev->type, ev->depth,
	    (unsigned long long)ev->offset, (unsigned long long)ev->line,
	    ev->integer);
	if (ev->len > 0)
		ofl_buf_add(&t->log, ev->str, ev->len);
	ofl_buf_reset(&t->path);
	ofl_json_path(j, &t->path);
	ofl_buf_addc(&t->log, ' ');
	ofl_buf_add(&t->log, t->path.data, t->path.len);
	if ((key = ofl_json_key(j, &klen)) != NULL) {
		ofl_buf_addc(&t->log, ' ');
		ofl_buf_add(&t->log, key, klen);
	}
	ofl_buf_addc(&t->log, '\n');
	return 0;
}

/* Parse in pieces cut at cuts[]; 0 ok, -1 syntax error. */
static int
parse(const uint8_t *data, size_t size, const size_t *cuts, size_t ncuts,
    int multi, struct trace *t)
{
	struct ofl_json	*j;
	size_t		 at = 0, i, end;
	int		 rv = 0;

	t->size = size;
	j = ofl_json_new(multi, on_event, t);
	for (i = 0; i <= ncuts && rv == 0; i++) {
		end = i < ncuts ? cuts[i] : size;
		if (end < at)
			end = at;
		rv = ofl_json_feed(j, data + at, end - at);
		at = end;
	}
	if (rv == 0)
		rv = ofl_json_finish(j);
	ofl_json_free(j);
	return rv;
}

static int
on_value(struct ofl_json *j, const struct ofl_json_event *ev, void *arg)
{
	(void)j;
	(void)ev;
	(void)arg;
	return 0;
}

/* What ofl prints as JSON must parse as JSON. */
static void
must_parse(const char *s, size_t n, int multi, const char *what)
{
	struct ofl_json	*j;

	j = ofl_json_new(multi, on_value, NULL);
	if (ofl_json_feed(j, s, n) != 0 || ofl_json_finish(j) != 0)
		fuzz_fail("%s is not valid JSON: %s: %.*s", what,
		    ofl_errmsg(), (int)(n > 300 ? 300 : n), s);
	ofl_json_free(j);
}

static void
schema(const uint8_t *data, size_t size, const size_t *cuts, size_t ncuts,
    int kind, struct ofl_buf *out)
{
	struct ofl_schema	*s;
	struct ofl_buf		 b;
	size_t			 at = 0, i, end, before;
	int			 rv = 0;

	if ((s = ofl_schema_new(kind)) == NULL)
		fuzz_fail("no schema for %s", ofl_kind_name(kind));
	for (i = 0; i <= ncuts && rv == 0; i++) {
		end = i < ncuts ? cuts[i] : size;
		if (end < at)
			end = at;
		rv = ofl_schema_feed(s, data + at, end - at);
		at = end;
	}
	if (rv == 0)
		(void)ofl_schema_finish(s);
	ofl_buf_addf(out, "values %llu\n",
	    (unsigned long long)ofl_schema_values(s));
	before = out->len;
	ofl_schema_json_schema(s, 1, out);
	must_parse(out->data + before, out->len - before, 0,
	    "the compact JSON Schema");
	ofl_buf_init(&b);
	ofl_schema_json_schema(s, 0, &b);
	must_parse(b.data, b.len, 0, "the JSON Schema");
	ofl_buf_reset(&b);
	ofl_schema_jsonl(s, &b);
	must_parse(b.data, b.len, 1, "the JSON Lines shape");
	ofl_buf_add(out, b.data, b.len);
	ofl_buf_reset(&b);
	ofl_schema_shape_text(s, 400, 8, &b);
	if (b.len > 400 + 200)
		fuzz_fail("text shape of %zu bytes for a budget of 400", b.len);
	ofl_buf_add(out, b.data, b.len);
	ofl_buf_free(&b);
	ofl_schema_free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace	 whole, cut;
	struct ofl_buf	 a, b;
	size_t		 cuts[2];
	int		 multi, ra, rb;
	size_t		 k;

	/* Two cut points derived from the input itself. */
	cuts[0] = size > 0 ? data[0] % (size + 1) : 0;
	cuts[1] = size > 1 ? cuts[0] + (data[size - 1] % (size - cuts[0] +
	    1)) : cuts[0];
	for (multi = 0; multi < 2; multi++) {
		memset(&whole, 0, sizeof whole);
		memset(&cut, 0, sizeof cut);
		ofl_buf_init(&whole.log);
		ofl_buf_init(&whole.path);
		ofl_buf_init(&cut.log);
		ofl_buf_init(&cut.path);
		ra = parse(data, size, NULL, 0, multi, &whole);
		rb = parse(data, size, cuts, 2, multi, &cut);
		if (ra != rb)
			fuzz_fail("JSON: whole %d, in pieces %d (cut at %zu, "
			    "%zu)", ra, rb, cuts[0], cuts[1]);
		if (whole.log.len != cut.log.len || (whole.log.len > 0 &&
		    memcmp(whole.log.data, cut.log.data, whole.log.len) != 0))
			fuzz_fail("JSON events differ when cut at %zu, %zu",
			    cuts[0], cuts[1]);
		ofl_buf_free(&whole.log);
		ofl_buf_free(&whole.path);
		ofl_buf_free(&cut.log);
		ofl_buf_free(&cut.path);
	}
	for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		ofl_buf_init(&a);
		ofl_buf_init(&b);
		schema(data, size, NULL, 0, kinds[k], &a);
		schema(data, size, cuts, 2, kinds[k], &b);
		if (a.len != b.len || (a.len > 0 && memcmp(a.data, b.data,
		    a.len) != 0))
			fuzz_fail("%s schema differs when cut at %zu, %zu",
			    ofl_kind_name(kinds[k]), cuts[0], cuts[1]);
		ofl_buf_free(&a);
		ofl_buf_free(&b);
	}
	return 0;
}
