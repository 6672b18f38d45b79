/*
 * notice-sum.c: the summary of a notice, the part that fits the kind:
 * error signatures and templates of a log, a failed test run, the shape
 * of JSON, the outline of Markdown, the columns of a table, the map of a
 * browser snapshot.  notice.c builds the rest around it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "notice-int.h"
#include "banned.h"

static void
sum_json_key(struct ctx *c, const char *k)
{
	if (c->sumj.len > 0)
		ofl_buf_addc(&c->sumj, ',');
	ofl_buf_add_json_str(&c->sumj, k, strlen(k));
	ofl_buf_addc(&c->sumj, ':');
}

/*
 * A log's templates (schema-log.c): how many, the error and warning
 * clusters with their counts, and the rare ones (seen once or twice),
 * TMPL_LINES of each and TMPL_BYTES in all at most.  They are mined here
 * only for a log of at most TMPL_MINE bytes, so that capture stays fast;
 * a larger log shows them once ofl-index or ofl-schema has mined them,
 * and until then its error signatures (suggest.c), merged by template.
 */
#define TMPL_MINE	(4 * 1024 * 1024)
#define TMPL_LINES	2
#define TMPL_BYTES	420
#define TMPL_WIDTH	72

/*
 * 1 if the line of template t, cut to TMPL_WIDTH, would read as the line
 * of another of the n templates at pick (their texts alike to past the
 * cut): "authentication failure; logname= uid=<*> euid=<*> tty=NODE..."
 * twice, with and without a user at the end.
 */
static int
tmpl_alike(const struct ofl_schema_log *sl, const size_t *pick, size_t n,
    size_t k)
{
	const struct ofl_fmt_log_tmpl_info *t = &sl->t[pick[k]], *o;
	size_t	i;

	if (t->len <= TMPL_WIDTH / 2)
		return 0;
	for (i = 0; i < n; i++) {
		o = &sl->t[pick[i]];
		if (i != k && o->len > TMPL_WIDTH / 2 &&
		    memcmp(o->text, t->text, TMPL_WIDTH / 2) == 0)
			return 1;
	}
	return 0;
}

/*
 * One template's line, if it fits the section's bytes; 1 if it did.  Cut
 * to TMPL_WIDTH at its end, or, with ends, in its middle: its head and
 * its end, where it differs from one alike.
 */
static int
put_tmpl(struct ofl_buf *out, size_t start, size_t budget, const char *what,
    const struct ofl_fmt_log_tmpl_info *t, int ends)
{
	struct ofl_buf	one, text;
	char		num[32];
	size_t		cut, head, tail;
	int		fits;

	ofl_buf_init(&one);
	ofl_buf_init(&text);
	ofl_buf_addf(&one, "  %s x%llu  ", what, (unsigned long long)t->count);
	ofl_render_oneline(&text, (const unsigned char *)t->text, t->len,
	    SIG_MAX);
	if (one.len + text.len <= TMPL_WIDTH)
		ofl_buf_add(&one, text.data, text.len);
	else if (!ends || one.len + 20 > TMPL_WIDTH) {
		cut = ofl_utf8_cut(text.data, TMPL_WIDTH - one.len);
		ofl_buf_add(&one, text.data, cut);
		ofl_buf_adds(&one, "...");
	} else {
		head = (TMPL_WIDTH - one.len) / 2;
		tail = text.len - (TMPL_WIDTH - one.len - head);
		head = ofl_utf8_cut(text.data, head);
		while (tail < text.len && ((unsigned char)text.data[tail] &
		    0xc0) == 0x80)
			tail++;
		ofl_buf_add(&one, text.data, head);
		ofl_buf_adds(&one, "...");
		ofl_buf_add(&one, text.data + tail, text.len - tail);
	}
	ofl_buf_free(&text);
	ofl_fmt_count(num, sizeof num, t->first_line);
	ofl_buf_addf(&one, "  (line %s, %s)\n", num, t->id);
	fits = out->len - start + one.len <= budget;
	if (fits)
		ofl_buf_add(out, one.data, one.len);
	ofl_buf_free(&one);
	return fits;
}

/*
 * 2 for an error template, 1 for a warning, else 0: by its level, or by
 * its words when the level says less (a runner's "INFO - TEST-UNEXPECTED-
 * TIMEOUT" is an error, as the line count of errors has it).
 */
static int
tmpl_bad(const struct ofl_fmt_log_tmpl_info *t)
{
	static const char *const err[] = {
		"ERROR", "CRIT", "ALERT", "EMERG", "FATAL"
	};
	size_t	i;

	if (t->level != NULL)
		for (i = 0; i < sizeof(err) / sizeof(err[0]); i++)
			if (strcmp(t->level, err[i]) == 0)
				return 2;
	if (ofl_fmt_log_is_error(t->text, t->len, 0))
		return 2;
	return t->level != NULL && strcmp(t->level, "WARN") == 0;
}

/*
 * The error templates, most frequent first but with the first error's
 * among them, then the warnings while there is room: SIG_LINES in all,
 * in the place of the signatures.  Their indexes go to pick; how many.
 */
static size_t
pick_bad(const struct ofl_schema_log *sl, uint64_t first_error,
    size_t pick[SIG_LINES])
{
	size_t	i, n = 0, firsti = sl->n;
	int	seen = 0;

	for (i = 0; i < sl->n; i++)
		if (tmpl_bad(&sl->t[i]) == 2) {
			if (first_error > 0 && firsti == sl->n &&
			    sl->t[i].first_line == first_error)
				firsti = i;
			if (n < SIG_LINES)
				pick[n++] = i;
			seen |= i == firsti;
		}
	if (firsti < sl->n && !seen && n == SIG_LINES)
		pick[n - 1] = firsti;
	for (i = 0; i < sl->n && n < SIG_LINES; i++)
		if (tmpl_bad(&sl->t[i]) == 1)
			pick[n++] = i;
	return n;
}

/* Logs and texts: how many lines look like errors and warnings. */
/*
 * At most SIG_LINES signatures, each cut to SIG_WIDTH bytes before its
 * "(line N)", then the line of search terms: a notice stays near a
 * kilobyte.
 */
static void
put_signatures(struct ofl_buf *out, const struct ofl_suggest *sg, int part)
{
	struct ofl_buf	 head;
	size_t		 i, cut;
	char		 num[32];

	/* Counts of a part say so. */
	if (part) {
		ofl_buf_adds(out, "  in the first and last ");
		ofl_buf_add_size(out, sg->sig_bytes / 2);
		ofl_buf_adds(out, ":\n");
	}
	ofl_buf_init(&head);
	for (i = 0; i < sg->nsigs && i < SIG_LINES; i++) {
		ofl_buf_reset(&head);
		ofl_buf_addf(&head, "  x%llu  ",
		    (unsigned long long)sg->sigs[i].count);
		ofl_render_safe(&head, (const unsigned char *)sg->sigs[i].text,
		    sg->sigs[i].len, SIG_MAX);
		if (head.len > SIG_WIDTH) {
			/* Never inside a UTF-8 sequence. */
			cut = SIG_WIDTH;
			while (cut > 0 &&
			    ((unsigned char)head.data[cut] & 0xc0) == 0x80)
				cut--;
			ofl_buf_add(out, head.data, cut);
			ofl_buf_adds(out, "...");
		} else
			ofl_buf_add(out, head.data, head.len);
		ofl_fmt_count(num, sizeof num, sg->sigs[i].first_line);
		ofl_buf_addf(out, "  (line %s)\n", num);
	}
	ofl_buf_free(&head);
}

/* The line of words worth a search. */
static void
put_terms(struct ofl_buf *out, const struct ofl_suggest *sg)
{
	size_t	i;

	if (sg->nterms > 0) {
		ofl_buf_adds(out, "terms:");
		for (i = 0; i < sg->nterms; i++) {
			ofl_buf_addc(out, ' ');
			ofl_render_safe(out,
			    (const unsigned char *)sg->terms[i],
			    strlen(sg->terms[i]), 40);
		}
		ofl_buf_addc(out, '\n');
	}
}

/*
 * The counts of error and warning lines, what they say (the log's
 * templates sl when it has them) and the words worth a search.
 */
static int
sum_errors(struct ctx *c, const struct ofl_schema_log *sl)
{
	const struct ofl_meta			*m = c->m;
	const struct ofl_fmt_log_tmpl_info	*tt = NULL;
	struct ofl_suggest			 sg;
	struct ofl_buf				 t;
	size_t					 i, np, start;
	size_t					 pick[SIG_LINES];
	uint64_t				 count, line;
	int					 part;

	ofl_buf_adds(&c->sum, "errors: ");
	if (m->errors == 0)
		ofl_buf_adds(&c->sum, "none");
	else {
		ofl_buf_add_count(&c->sum, m->errors);
		ofl_buf_adds(&c->sum, m->errors == 1 ? " line" : " lines");
		if (m->first_error > 0) {
			ofl_buf_adds(&c->sum, " (first at line ");
			ofl_buf_add_count(&c->sum, m->first_error);
			ofl_buf_addc(&c->sum, ')');
		}
	}
	ofl_buf_adds(&c->sum, ", warnings: ");
	if (m->warnings == 0)
		ofl_buf_adds(&c->sum, "none");
	else {
		ofl_buf_add_count(&c->sum, m->warnings);
		ofl_buf_adds(&c->sum, m->warnings == 1 ? " line" : " lines");
	}
	ofl_buf_addc(&c->sum, '\n');
	/*
	 * The error and warning templates when the log has them, else the
	 * most frequent error signatures; then the words worth a search.
	 */
	memset(&sg, 0, sizeof sg);
	if (m->errors + m->warnings > 0 && ofl_suggest(c->st, m->id, &sg) != 0)
		memset(&sg, 0, sizeof sg);
	np = sl != NULL ? pick_bad(sl, m->first_error, pick) : 0;
	/* Signatures counted in part of the content. */
	part = sl == NULL && sg.nsigs > 0 && sg.sig_bytes < m->bytes;
	if (!c->o->json) {
		start = c->sum.len;
		for (i = 0; i < np; i++)
			put_tmpl(&c->sum, start, SIG_LINES * SIG_WIDTH,
			    tmpl_bad(&sl->t[pick[i]]) == 2 ? "error" :
			    "warning", &sl->t[pick[i]],
			    tmpl_alike(sl, pick, np, i));
		if (sl == NULL)
			put_signatures(&c->sum, &sg, part);
		put_terms(&c->sum, &sg);
	}
	sum_json_key(c, "errors");
	ofl_buf_addf(&c->sumj, "%llu", (unsigned long long)m->errors);
	sum_json_key(c, "warnings");
	ofl_buf_addf(&c->sumj, "%llu", (unsigned long long)m->warnings);
	sum_json_key(c, "first_error");
	if (m->first_error > 0)
		ofl_buf_addf(&c->sumj, "%llu",
		    (unsigned long long)m->first_error);
	else
		ofl_buf_adds(&c->sumj, "null");
	sum_json_key(c, "signatures");
	ofl_buf_addc(&c->sumj, '[');
	for (i = 0; i < (sl != NULL ? np : sg.nsigs) && i < SIG_LINES; i++) {
		ofl_buf_init(&t);
		if (sl != NULL) {
			tt = &sl->t[pick[i]];
			ofl_render_safe(&t, (const unsigned char *)tt->text,
			    tt->len, SIG_MAX);
			count = tt->count;
			line = tt->first_line;
		} else {
			ofl_render_safe(&t,
			    (const unsigned char *)sg.sigs[i].text,
			    sg.sigs[i].len, SIG_MAX);
			count = sg.sigs[i].count;
			line = sg.sigs[i].first_line;
		}
		ofl_buf_addf(&c->sumj, "%s{\"count\":%llu,\"first_line\":%llu,"
		    "\"text\":", i > 0 ? "," : "", (unsigned long long)count,
		    (unsigned long long)line);
		ofl_buf_add_json_str(&c->sumj, t.data != NULL ? t.data : "",
		    t.len);
		if (sl != NULL) {
			ofl_buf_adds(&c->sumj, ",\"template_id\":");
			ofl_buf_add_json_str(&c->sumj, tt->id, strlen(tt->id));
		}
		ofl_buf_addc(&c->sumj, '}');
		ofl_buf_free(&t);
	}
	ofl_buf_addc(&c->sumj, ']');
	/* The bytes the counts are of, when not all of them. */
	if (part) {
		sum_json_key(c, "signatures_of_bytes");
		ofl_buf_addf(&c->sumj, "%llu",
		    (unsigned long long)sg.sig_bytes);
	}
	ofl_suggest_free(&sg);
	return 0;
}

/*
 * What a format says of the artifact, read through a source: its text
 * and JSON go after what the notice has, its filter if none is set.
 */
static void
take_summary(struct ctx *c, struct ofl_summary *s)
{
	ofl_buf_add(&c->sum, s->text.data, s->text.len);
	if (s->json.len > 0) {
		if (c->sumj.len > 0)
			ofl_buf_addc(&c->sumj, ',');
		ofl_buf_add(&c->sumj, s->json.data, s->json.len);
	}
	if (c->filter == NULL) {
		c->filter = s->filter;
		s->filter = NULL;
	}
	ofl_summary_free(s);
}

/* Markdown (the outline), CSV and TSV (the columns). */
static int
sum_format(struct ctx *c, int kind)
{
	struct ofl_summary	s;
	struct ofl_src		src;
	int			rv;

	ofl_reader_src(c->r, &src);
	ofl_summary_init(&s);
	if (kind == OFL_KIND_MARKDOWN)
		rv = ofl_fmt_md_summary(&src, c->m, &s);
	else
		rv = ofl_fmt_csv_summary(&src, c->m,
		    kind == OFL_KIND_CSV ? ',' : '\t', &s);
	if (rv == -1) {
		ofl_summary_free(&s);
		return -1;
	}
	take_summary(c, &s);
	return 0;
}

/*
 * JSON and NDJSON: the skim of the first values gives a shape and a jq
 * filter; the streaming shape of schema.c sees the whole value (counts,
 * formats, enums) up to SHAPE_INPUT bytes and takes the shape's place
 * when it has one.
 */
static int
sum_json(struct ctx *c, int nd)
{
	struct ofl_summary	s;
	struct ofl_src		src;
	struct ofl_buf		shape, enums;

	ofl_reader_src(c->r, &src);
	ofl_summary_init(&s);
	if (ofl_fmt_json_summary(&src, c->m, nd, &s) == -1) {
		ofl_summary_free(&s);
		return -1;
	}
	if (ofl_reader_seek(c->r, 0) == 0) {
		ofl_buf_init(&shape);
		ofl_buf_init(&enums);
		if (ofl_schema_shape(c->r, c->m->kind, SHAPE_INPUT,
		    SUMMARY_MAX, &shape, &enums) == 0 && shape.len > 0)
			ofl_fmt_json_summary_shape(&s, shape.data, shape.len);
		if (enums.len > 0) {
			/* What the records' states are, counted. */
			ofl_buf_adds(&s.text, "counts: ");
			ofl_buf_add(&s.text, enums.data, enums.len);
			ofl_buf_addc(&s.text, '\n');
			ofl_summary_key(&s, "counts");
			ofl_buf_add_json_str(&s.json, enums.data, enums.len);
		}
		ofl_buf_free(&shape);
		ofl_buf_free(&enums);
	}
	take_summary(c, &s);
	return 0;
}

/*
 * A format's own summary (fmt-*.c), read through the reader as a source,
 * its text and JSON members appended to the notice's.
 */
static int
sum_fmt(struct ctx *c, int (*fn)(const struct ofl_src *,
    const struct ofl_meta *, struct ofl_summary *))
{
	struct ofl_src		src;
	struct ofl_summary	s;
	int			rv;

	ofl_reader_src(c->r, &src);
	ofl_summary_init(&s);
	if ((rv = fn(&src, c->m, &s)) == 0) {
		ofl_buf_add(&c->sum, s.text.data, s.text.len);
		if (s.json.len > 0) {
			if (c->sumj.len > 0)
				ofl_buf_addc(&c->sumj, ',');
			ofl_buf_add(&c->sumj, s.json.data, s.json.len);
		}
		if (c->filter == NULL && s.filter != NULL)
			c->filter = ofl_xstrdup(s.filter);
		if (c->member == NULL && s.member != NULL)
			c->member = ofl_xstrdup(s.member);
		if (s.prose_errors)
			c->prose_errors = 1;
	}
	ofl_summary_free(&s);
	return rv;
}

/*
 * A browser snapshot: the page's map (fmt-snapshot.c) takes the place of
 * the preview, whose first and last lines of a tree say nothing; the
 * role it names is the next query by role.
 */
static int
sum_snapshot(struct ctx *c)
{
	c->snapshot = 1;
	return sum_fmt(c, ofl_fmt_snapshot_summary);
}

/*
 * An HTML page: its map (fmt-html.c) takes the place of the preview,
 * whose first and last lines are a doctype, a head and closing tags.
 */
static int
sum_html(struct ctx *c)
{
	size_t	start = c->sum.len;

	if (sum_fmt(c, ofl_fmt_html_summary) == -1)
		return -1;
	if (c->sum.len > start)
		c->snapshot = 1;
	return 0;
}

/*
 * How many templates, and the rare ones (seen once or twice) while they
 * fit TMPL_BYTES.
 */
static void
sum_templates(struct ctx *c, const struct ofl_schema_log *sl)
{
	size_t	i, start, nrare = 0;

	if (!c->o->json) {
		start = c->sum.len;
		ofl_buf_adds(&c->sum, "templates: ");
		ofl_buf_add_count(&c->sum, sl->total);
		ofl_buf_addf(&c->sum, " (ofl-schema %s lists them)\n", c->m->id);
		for (i = sl->n; i > 1 && nrare < TMPL_LINES &&
		    sl->t[i - 1].count <= 2; i--)
			if (put_tmpl(&c->sum, start, TMPL_BYTES, "rare",
			    &sl->t[i - 1], 0))
				nrare++;
	}
	sum_json_key(c, "templates");
	ofl_buf_addf(&c->sumj, "%zu", sl->total);
}

/*
 * A failed test run (extract-tests.c): its counts, failing tests, first
 * failure, rerun command and further reports lead the summary and take
 * the place of the error signatures.  1 if there was one.
 */
static int
sum_tests(struct ctx *c)
{
	struct ofl_testrun	t;
	struct ofl_changed	ch;
	struct ofl_src		src;
	int			r, kind = c->m->kind;

	if ((kind != OFL_KIND_LOG && kind != OFL_KIND_TEXT &&
	    kind != OFL_KIND_NDJSON) || (c->m->has_exit &&
	    c->m->exit_status == 0) || c->total > TESTS_SCAN)
		return 0;
	ofl_reader_src(c->r, &src);
	if (ofl_extract_tests_scan(&src, c->m, &t) == -1)
		return -1;
	ofl_store_changed(c->st, c->m->id, &ch);
	r = ofl_extract_tests_notice(&src, c->id, &t, &ch, TESTS_BUDGET,
	    &c->sum, &c->sumj);
	ofl_changed_free(&ch);
	ofl_fmt_test_free(&t);
	c->tests = r > 0;
	return r;
}

/* The summary that fits the kind, into c->sum and c->sumj. */
int
ofl_notice_sum(struct ctx *c)
{
	const struct ofl_meta	*m = c->m;
	struct ofl_schema_log	 sl;
	size_t			 start;
	int			 kind = m->kind, r;

	if ((r = sum_tests(c)) != 0)
		return r < 0 ? -1 : 0;
	switch (kind) {
	case OFL_KIND_LOG:
		if (ofl_schema_log(c->st, m->id, TMPL_MINE, 0, &sl) != 0)
			return sum_errors(c, NULL);
		r = sum_errors(c, &sl);
		sum_templates(c, &sl);
		ofl_schema_log_free(&sl);
		return r;
	case OFL_KIND_TEXT:
		/* A text of records (a git log): how many, who, when. */
		if (sum_fmt(c, ofl_fmt_records_summary) == -1)
			return -1;
		/* A plan of changes: its totals, what each action names. */
		if (sum_fmt(c, ofl_fmt_plan_summary) == -1)
			return -1;
		return m->errors + m->warnings > 0 && !c->prose_errors ?
		    sum_errors(c, NULL) : 0;
	case OFL_KIND_MARKDOWN:
		/* A plan's "  # aws_instance.web will be created" are no
		 * headings a reader wants. */
		start = c->sum.len;
		if (sum_fmt(c, ofl_fmt_plan_summary) == -1)
			return -1;
		return c->sum.len > start ? 0 : sum_format(c, kind);
	case OFL_KIND_JSON:
	case OFL_KIND_NDJSON:
		return sum_json(c, kind == OFL_KIND_NDJSON);
	case OFL_KIND_CSV:
	case OFL_KIND_TSV:
		return sum_format(c, kind);
	case OFL_KIND_DIFF:
		return sum_fmt(c, ofl_fmt_diff_summary);
	case OFL_KIND_TABLE:
		/* Tables: the columns and the counts of their values. */
		return sum_fmt(c, ofl_fmt_table_summary);
	case OFL_KIND_SNAPSHOT:
		return sum_snapshot(c);
	case OFL_KIND_HTML:
		return sum_html(c);
	case OFL_KIND_ARCHIVE:
	case OFL_KIND_COMPRESSED:
		return sum_fmt(c, ofl_fmt_archive_summary);
	default:
		return 0;
	}
}
