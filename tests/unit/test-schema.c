/*
 * test-schema.c: schemas and shapes of small inputs.  The JSON Schemas
 * expected here were derived by hand from Python genson's rules
 * (SchemaBuilder with its default "$schema"), keys in genson's order.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "tap.h"
#include "banned.h"

enum { OUT_SCHEMA, OUT_SHAPE, OUT_JSONL };

static char	*run(int, const char *, int, size_t, size_t, size_t, int *);
static const char *label(const char *);
static void	 schema_is(int, const char *, const char *);
static void	 shape_is(int, const char *, size_t, size_t, const char *);

#define S	"{\"$schema\":\"http://json-schema.org/schema#\","

/* A test title for an input: printable, on one line, short. */
static const char *
label(const char *s)
{
	static char buf[64];
	size_t i, n = 0;

	for (i = 0; s[i] != '\0' && n < 40; i++)
		buf[n++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '.';
	if (s[i] != '\0') {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

/*
 * Feed input in pieces of step bytes (0: whole) and render one output.
 * *rv gets -1 if feeding or finishing failed.
 */
static char *
run(int kind, const char *in, int out, size_t step, size_t max_out,
    size_t max_lines, int *rv)
{
	struct ofl_schema *s;
	struct ofl_buf b;
	size_t n = strlen(in), off = 0, k;

	*rv = 0;
	if ((s = ofl_schema_new(kind)) == NULL) {
		*rv = -1;
		return NULL;
	}
	while (off < n && *rv == 0) {
		k = step == 0 || step > n - off ? n - off : step;
		if (ofl_schema_feed(s, in + off, k) == -1)
			*rv = -1;
		off += k;
	}
	if (*rv == 0 && ofl_schema_finish(s) == -1)
		*rv = -1;
	ofl_buf_init(&b);
	if (out == OUT_SCHEMA)
		ofl_schema_json_schema(s, 1, &b);
	else if (out == OUT_SHAPE)
		ofl_schema_shape_text(s, max_out, max_lines, &b);
	else
		ofl_schema_jsonl(s, &b);
	ofl_schema_free(s);
	return ofl_buf_str(&b);
}

static void
schema_is(int kind, const char *in, const char *want)
{
	char *whole, *bytes;
	int r1, r2;

	whole = run(kind, in, OUT_SCHEMA, 0, 0, 0, &r1);
	bytes = run(kind, in, OUT_SCHEMA, 1, 0, 0, &r2);
	ok(r1 == 0, "%s parses", label(in));
	is_str(whole, want, "schema of %s", label(in));
	is_str(bytes, whole, "the same fed byte by byte");
	free(whole);
	free(bytes);
}

static void
shape_is(int kind, const char *in, size_t max_out, size_t max_lines,
    const char *want)
{
	char *got;
	int r;

	got = run(kind, in, OUT_SHAPE, 3, max_out, max_lines, &r);
	ok(r == 0, "%s parses", label(in));
	is_str(got, want, "shape of %s", label(in));
	free(got);
}

static void
check_genson(void)
{
	schema_is(OFL_KIND_JSON, "{\"a\":1,\"b\":\"x\"}",
	    S "\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
	    "\"integer\"},\"b\":{\"type\":\"string\"}},\"required\":[\"a\","
	    "\"b\"]}\n");
	/* NDJSON: one schema; first-seen property order; required keys
	 * are those in every object. */
	schema_is(OFL_KIND_NDJSON, "{\"b\":1}\n{\"a\":2.5,\"b\":null}\n",
	    S "\"type\":\"object\",\"properties\":{\"b\":{\"type\":"
	    "[\"integer\",\"null\"]},\"a\":{\"type\":\"number\"}},"
	    "\"required\":[\"b\"]}\n");
	/* A fraction or an exponent makes the whole position "number". */
	schema_is(OFL_KIND_JSON, "[1, 2.0]",
	    S "\"type\":\"array\",\"items\":{\"type\":\"number\"}}\n");
	schema_is(OFL_KIND_JSON, "[1e2, -0]",
	    S "\"type\":\"array\",\"items\":{\"type\":\"number\"}}\n");
	schema_is(OFL_KIND_JSON, "[-0, 7]",
	    S "\"type\":\"array\",\"items\":{\"type\":\"integer\"}}\n");
	schema_is(OFL_KIND_JSON, "[]", S "\"type\":\"array\"}\n");
	schema_is(OFL_KIND_JSON, "{}", S "\"type\":\"object\"}\n");
	schema_is(OFL_KIND_JSON, "\"x\"", S "\"type\":\"string\"}\n");
	/* Empty containers are simple types and join the sorted list. */
	schema_is(OFL_KIND_JSON, "[[], {}, \"s\", true, null]",
	    S "\"type\":\"array\",\"items\":{\"type\":[\"array\","
	    "\"boolean\",\"null\",\"object\",\"string\"]}}\n");
	schema_is(OFL_KIND_JSON, "[1, 1.5, \"x\", false]",
	    S "\"type\":\"array\",\"items\":{\"type\":[\"boolean\","
	    "\"number\",\"string\"]}}\n");
	/* An array with items meets other types in anyOf. */
	schema_is(OFL_KIND_JSON, "[{\"z\":1,\"a\":1},{\"a\":2,\"z\":[1]}]",
	    S "\"type\":\"array\",\"items\":{\"type\":\"object\","
	    "\"properties\":{\"z\":{\"anyOf\":[{\"type\":\"integer\"},"
	    "{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}]},"
	    "\"a\":{\"type\":\"integer\"}},\"required\":[\"a\",\"z\"]}}\n");
	/* Objects and arrays in anyOf keep the order first seen. */
	schema_is(OFL_KIND_JSON, "[[1],{\"k\":true},\"s\"]",
	    S "\"type\":\"array\",\"items\":{\"anyOf\":[{\"type\":"
	    "\"string\"},{\"type\":\"array\",\"items\":{\"type\":"
	    "\"integer\"}},{\"type\":\"object\",\"properties\":{\"k\":"
	    "{\"type\":\"boolean\"}},\"required\":[\"k\"]}]}}\n");
	schema_is(OFL_KIND_JSON, "[{\"k\":true},[1]]",
	    S "\"type\":\"array\",\"items\":{\"anyOf\":[{\"type\":"
	    "\"object\",\"properties\":{\"k\":{\"type\":\"boolean\"}},"
	    "\"required\":[\"k\"]},{\"type\":\"array\",\"items\":{\"type\":"
	    "\"integer\"}}]}}\n");
	/* Top-level anyOf, after "$schema". */
	schema_is(OFL_KIND_NDJSON, "3\n{\"a\":null}\n",
	    S "\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"object\","
	    "\"properties\":{\"a\":{\"type\":\"null\"}},\"required\":"
	    "[\"a\"]}]}\n");
	/* required is sorted by code point; keys are decoded. */
	schema_is(OFL_KIND_JSON, "{\"b\":1,\"B\":1,\"a\":1,\"_\":1,"
	    "\"a b\":1,\"\\u00e9\":1}",
	    S "\"type\":\"object\",\"properties\":{\"b\":{\"type\":"
	    "\"integer\"},\"B\":{\"type\":\"integer\"},\"a\":{\"type\":"
	    "\"integer\"},\"_\":{\"type\":\"integer\"},\"a b\":{\"type\":"
	    "\"integer\"},\"\xc3\xa9\":{\"type\":\"integer\"}},"
	    "\"required\":[\"B\",\"_\",\"a\",\"a b\",\"b\",\"\xc3\xa9\"]}\n");
	/* An empty object seen at a position empties "required" there. */
	schema_is(OFL_KIND_NDJSON, "{\"a\":{\"b\":{}}}\n"
	    "{\"a\":{\"b\":{\"c\":1}}}\n",
	    S "\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
	    "\"object\",\"properties\":{\"b\":{\"type\":\"object\","
	    "\"properties\":{\"c\":{\"type\":\"integer\"}}}},\"required\":"
	    "[\"b\"]}},\"required\":[\"a\"]}\n");
	/* Arrays of arrays merge their items. */
	schema_is(OFL_KIND_JSON, "[[1,2],[],[\"x\"]]",
	    S "\"type\":\"array\",\"items\":{\"type\":\"array\","
	    "\"items\":{\"type\":[\"integer\",\"string\"]}}}\n");
	/* Nothing at all. */
	schema_is(OFL_KIND_NDJSON, "",
	    "{\"$schema\":\"http://json-schema.org/schema#\"}\n");
}

static void
check_pretty(void)
{
	char *got;
	struct ofl_schema *s;
	struct ofl_buf b;
	const char *in = "{\"a\":[1,{\"b\":null}]}";

	s = ofl_schema_new(OFL_KIND_JSON);
	ok(ofl_schema_feed(s, in, strlen(in)) == 0 &&
	    ofl_schema_finish(s) == 0, "pretty input parses");
	ofl_buf_init(&b);
	ofl_schema_json_schema(s, 0, &b);
	got = ofl_buf_str(&b);
	is_str(got,
	    "{\n"
	    "  \"$schema\": \"http://json-schema.org/schema#\",\n"
	    "  \"type\": \"object\",\n"
	    "  \"properties\": {\n"
	    "    \"a\": {\n"
	    "      \"type\": \"array\",\n"
	    "      \"items\": {\n"
	    "        \"anyOf\": [\n"
	    "          {\n"
	    "            \"type\": \"integer\"\n"
	    "          },\n"
	    "          {\n"
	    "            \"type\": \"object\",\n"
	    "            \"properties\": {\n"
	    "              \"b\": {\n"
	    "                \"type\": \"null\"\n"
	    "              }\n"
	    "            },\n"
	    "            \"required\": [\n"
	    "              \"b\"\n"
	    "            ]\n"
	    "          }\n"
	    "        ]\n"
	    "      }\n"
	    "    }\n"
	    "  },\n"
	    "  \"required\": [\n"
	    "    \"a\"\n"
	    "  ]\n"
	    "}\n", "pretty schema as jq prints it");
	ofl_buf_free(&b);
	ofl_schema_free(s);
}

static void
check_shape(void)
{
	shape_is(OFL_KIND_JSON, "{\"items\":[{\"phase\":\"Running\"},"
	    "{\"phase\":\"Pending\"},{\"phase\":\"Running\"},{\"phase\":"
	    "\"Failed\"},{\"phase\":\"Running\"},{\"phase\":\"Running\"}],"
	    "\"kind\":\"List\"}", 0, 0,
	    "{items: [{phase: \"Running\" (4)|\"Pending\" (1)|\"Failed\" (1)}] "
	    "x6, kind: \"List\"}\n");
	shape_is(OFL_KIND_JSON, "[{\"a\":1,\"l\":\"x\"},{\"a\":2}]", 0, 0,
	    "[{a: integer 1..2, l?: \"x\" 50%}] x2\n");
	shape_is(OFL_KIND_JSON, "[{\"a\":1.5,\"t\":[]},{\"a\":-2,\"t\":[1]},"
	    "{\"a\":null,\"t\":[2,3,4]}]", 0, 0,
	    "[{a: number -2..1.5|null, t: [integer 1..4] x0..3}] x3\n");
	shape_is(OFL_KIND_JSON, "[\"2024-01-01T00:00:00Z\","
	    "\"2024-02-03T04:05:06.5+01:00\"]", 0, 0,
	    "[string(date-time)] x2\n");
	shape_is(OFL_KIND_JSON, "[\"2024-01-01\",\"1999-12-31\"]", 0, 0,
	    "[string(date)] x2\n");
	shape_is(OFL_KIND_JSON, "[\"123e4567-e89b-12d3-a456-426614174000\","
	    "\"00000000-0000-0000-0000-000000000000\"]", 0, 0,
	    "[string(uuid)] x2\n");
	shape_is(OFL_KIND_JSON, "[\"a@example.com\",\"b.c@d.example.org\"]",
	    0, 0, "[string(email)] x2\n");
	shape_is(OFL_KIND_JSON, "[\"https://example.com/a\","
	    "\"ftp://h/x?y=1\"]", 0, 0, "[string(uri)] x2\n");
	shape_is(OFL_KIND_JSON, "[\"10.0.0.1\",\"192.168.1.254\"]", 0, 0,
	    "[string(ipv4)] x2\n");
	shape_is(OFL_KIND_JSON, "[\"::1\",\"fe80::1\"]", 0, 0,
	    "[string(ipv6)] x2\n");
	shape_is(OFL_KIND_JSON, "[\"10.0.0.1\",\"not an address\"]", 0, 0,
	    "[string] x2\n");
	shape_is(OFL_KIND_JSON, "[true,true]", 0, 0, "[true] x2\n");
	shape_is(OFL_KIND_JSON, "[true,false,{}]", 0, 0,
	    "[{}|boolean] x3\n");
	shape_is(OFL_KIND_NDJSON, "{\"a\":1}\n{\"a\":2}\n{\"b\":\"x\"}\n",
	    0, 0, "{a?: integer 1..2 67%, b?: \"x\" 33%} x3 values\n");
	/* Maps (many keys that are not words) show merged values. */
	shape_is(OFL_KIND_JSON, "{\"v\":{\"1.0\":{\"n\":1},\"1.1\":{\"n\":2},"
	    "\"1.2\":{\"n\":3},\"1.3\":{\"n\":4},\"1.4\":{\"n\":5},\"1.5\":"
	    "{\"n\":6},\"1.6\":{\"n\":7},\"1.7\":{\"n\":8},\"1.8\":{\"n\":9},"
	    "\"1.9\":{\"n\":10},\"2.0\":{\"n\":11},\"2.1\":{\"n\":12},"
	    "\"2.2\":{\"n\":13},\"2.3\":{\"n\":14},\"2.4\":{\"n\":15},"
	    "\"2.5\":{\"n\":16},\"2.6\":{\"n\":17},\"2.7\":{\"n\":18},"
	    "\"2.8\":{\"n\":19},\"2.9\":{\"n\":20},\"3.0\":{\"n\":21},"
	    "\"3.1\":{\"n\":22},\"3.2\":{\"n\":23},\"3.3\":{\"n\":24},"
	    "\"3.4\":{\"n\":25,\"x\":true}}}", 0, 0,
	    "{v: {25 keys like \"1.0\": {n: integer 1..25, x?: true 4%}}}\n");
	/* Too big: what fits and shows the most, and it says what it cut. */
	shape_is(OFL_KIND_JSON, "{\"a\":{\"b\":{\"c\":{\"d\":1,\"e\":2,"
	    "\"f\":3,\"g\":4,\"h\":5,\"i\":6}}},\"e\":\"x\"}", 61, 0,
	    "{a: {b: {c: {d: integer 1, e: integer 2, +4 more}}}, "
	    "e: \"x\"}\n");
	shape_is(OFL_KIND_JSON, "{\"alpha\":1,\"beta\":2,\"gamma\":3,"
	    "\"delta\":4,\"epsilon\":5}", 60, 0,
	    "{alpha: integer 1, beta: integer 2, +3 more}\n");
	shape_is(OFL_KIND_JSON, "{\"alpha\":{\"x\":1},\"beta\":{\"y\":2},"
	    "\"gamma\":3}", 45, 0,
	    "{alpha: {...}, ... (cut to fit 45 bytes)\n");
	shape_is(OFL_KIND_JSON, "{\"alpha\":\"a long string value here\","
	    "\"beta\":2}", 30, 0,
	    "{al ... (cut to fit 30 bytes)\n");
}

static void
check_csv(void)
{
	const char *csv =
	    "id,name,score,when,flag\r\n"
	    "1,alice,1.5,2024-01-01,true\r\n"
	    "2,\"bob, jr\",,2024-01-02,false\r\n"
	    "\r\n"
	    "3,\"say \"\"hi\"\"\",NA,2024-01-03,TRUE\r\n";
	char *got;
	int r;

	shape_is(OFL_KIND_CSV, csv, 0, 0,
	    "csv: 3 rows, 5 columns\n"
	    "  id: integer 1..3\n"
	    "  name: string, e.g. \"alice\", \"bob, jr\", \"say \\\"hi\\\"\"\n"
	    "  score: number 1.5, 1 empty, 1 null\n"
	    "  when: date, e.g. \"2024-01-01\", \"2024-01-02\", "
	    "\"2024-01-03\"\n"
	    "  flag: boolean\n");
	schema_is(OFL_KIND_CSV, csv,
	    S "\"type\":\"array\",\"items\":{\"type\":\"object\","
	    "\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":"
	    "{\"type\":\"string\"},\"score\":{\"type\":[\"number\","
	    "\"null\"]},\"when\":{\"type\":\"string\",\"format\":\"date\"},"
	    "\"flag\":{\"type\":\"boolean\"}},\"required\":[\"flag\",\"id\","
	    "\"name\",\"when\"]}}\n");
	shape_is(OFL_KIND_TSV, "k\tv\na\t1\nb\t2\na\t3\na\n", 0, 0,
	    "tsv: 4 rows, 2 columns, 1 ragged rows\n"
	    "  k: string: \"a\" 3, \"b\" 1\n"
	    "  v: integer 1..3, 1 empty\n");
	got = run(OFL_KIND_CSV, "a,b\n1,x\n", OUT_JSONL, 0, 0, 0, &r);
	is_str(got, "{\"column\":\"a\",\"index\":1,\"type\":\"integer\","
	    "\"count\":1,\"empty\":0,\"null\":0,\"min\":1,\"max\":1,"
	    "\"max_length\":1,\"values\":{\"1\":1},\"examples\":[\"1\"]}\n"
	    "{\"column\":\"b\",\"index\":2,\"type\":\"string\",\"count\":1,"
	    "\"empty\":0,\"null\":0,\"max_length\":1,\"values\":{\"x\":1},"
	    "\"examples\":[\"x\"]}\n", "csv as JSON Lines");
	free(got);
}

static void
check_jsonl(void)
{
	char *got;
	int r;

	got = run(OFL_KIND_JSON, "{\"a\":[1,2.5],\"b c\":\"x\"}", OUT_JSONL,
	    0, 0, 0, &r);
	is_str(got,
	    "{\"path\":\".\",\"count\":1,\"types\":{\"object\":1},"
	    "\"keys\":2}\n"
	    "{\"path\":\".a\",\"count\":1,\"present\":1,\"parents\":1,"
	    "\"types\":{\"array\":1},\"min_items\":2,\"max_items\":2}\n"
	    "{\"path\":\".a[]\",\"count\":2,\"types\":{\"integer\":1,"
	    "\"number\":1},\"min\":1,\"max\":2.5}\n"
	    "{\"path\":\".[\\\"b c\\\"]\",\"count\":1,\"present\":1,"
	    "\"parents\":1,\"types\":{\"string\":1},\"values\":{\"x\":1}}\n",
	    "shape as JSON Lines");
	free(got);
}

static void
check_errors(void)
{
	struct ofl_schema *s;
	struct ofl_buf b, deep;
	size_t i;
	char *got;
	int r;

	ok(ofl_schema_new(OFL_KIND_LOG) == NULL, "no schema for logs");
	is_str(ofl_errmsg(), "no schema for log content: only JSON, NDJSON, "
	    "CSV, TSV and tables have one", "its message");

	/* Invalid input: an error with the offset, and what parsed stays. */
	got = run(OFL_KIND_JSON, "{\"a\":1,\"b\":[true,]}", OUT_SCHEMA, 0, 0,
	    0, &r);
	ok(r == -1, "invalid JSON fails");
	is_str(ofl_errmsg(), "invalid JSON at byte 17 (line 1): unexpected "
	    "character ']'", "with the offset");
	is_str(got, S "\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
	    "\"integer\"},\"b\":{\"type\":\"array\",\"items\":{\"type\":"
	    "\"boolean\"}}},\"required\":[\"a\",\"b\"]}\n",
	    "what parsed is described");
	free(got);
	got = run(OFL_KIND_NDJSON, "{\"a\":1}\n{\"a\":", OUT_SCHEMA, 2, 0, 0,
	    &r);
	ok(r == -1, "truncated NDJSON fails");
	is_str(ofl_errmsg(), "invalid JSON at byte 13 (line 2): unexpected "
	    "end of input", "at its end");
	free(got);

	/* 100,000 levels: no crash, the depth limit is reported. */
	ofl_buf_init(&deep);
	for (i = 0; i < 100000; i++)
		ofl_buf_adds(&deep, "{\"k\":[");
	for (i = 0; i < 100000; i++)
		ofl_buf_adds(&deep, "]}");
	s = ofl_schema_new(OFL_KIND_JSON);
	ok(ofl_schema_feed(s, deep.data, deep.len) == 0 &&
	    ofl_schema_finish(s) == 0, "nesting 100,000 deep parses");
	is_str(ofl_schema_warning(s), "199743 values nested deeper than 256 "
	    "levels left out", "and the cut is reported");
	ofl_buf_init(&b);
	ofl_schema_shape_text(s, 200, 3, &b);
	ok(b.len > 0 && b.len <= 200, "its shape fits (%zu bytes)", b.len);
	ofl_buf_reset(&b);
	ofl_schema_json_schema(s, 1, &b);
	ok(b.len > 256 * 20 && b.len < 256 * 80,
	    "its schema stops at the limit (%zu bytes)", b.len);
	ofl_buf_free(&b);
	ofl_schema_free(s);
	ofl_buf_free(&deep);
}

int
main(void)
{
	check_genson();
	check_pretty();
	check_shape();
	check_csv();
	check_jsonl();
	check_errors();
	return done_testing();
}
