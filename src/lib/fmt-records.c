/*
 * fmt-records.c: a text made of records, each led by a head of fields at
 * the margin between empty lines: a git log ("commit 1f0c...", then
 * "Author:" and "Date:", then the message indented), apt's history
 * ("Start-Date:", "Commandline:", ..., "End-Date:"), dpkg's status.  The
 * notice of such a text says how many records there are, what leads
 * them, and for each field that most heads have the count of each value
 * when they are few ("Author: Ann 2,386, Bob 21") or the first and the
 * last when they are many or mostly one each (a date).  Read in one pass, at most
 * REC_SCAN bytes, memory bounded by REC_KEYS fields of REC_DISTINCT
 * values.  When the only lines that look like errors are in the indented
 * messages (a commit's "fix the error in ..."), the notice leaves them
 * out: they are words, not errors.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define REC_SCAN	(16ULL * 1024 * 1024)	/* bytes read */
#define REC_LINE	4096		/* bytes of a line looked at */
#define REC_HEAD	12		/* lines of a head at most */
#define REC_KEYS	8		/* fields counted */
#define REC_KEY		32		/* bytes of a field's name */
#define REC_DISTINCT	24		/* values counted per field */
#define REC_VALUE	64		/* bytes of a value counted */
#define REC_MIN		3		/* records that make a text of records */
#define REC_SUMMARY	600		/* bytes of the notice's lines */
#define REC_LOOK	256		/* lines before a first record */

struct rkey {
	char		 name[REC_KEY + 1];
	char		*val[REC_DISTINCT];
	uint64_t	 cnt[REC_DISTINCT];
	size_t		 nval;
	int		 many;		/* more values than counted */
	char		*first;
	char		*last;
	uint64_t	 seen;		/* heads that have it */
};

struct rst {
	struct rkey	 key[REC_KEYS];
	size_t		 nkeys;
	uint64_t	 records;
	char		 lead[REC_KEY + 1];	/* the first word of heads */
	int		 leads;		/* 1: one, -1: several, 0: none */
	struct ofl_buf	 head[REC_HEAD];
	size_t		 nhead;
	int		 collecting;
	int		 prevblank;
	int		 over;		/* the head is too long */
	uint64_t	 err_margin;	/* lines like errors, at the margin */
	uint64_t	 err_body;	/* and indented, in a message */
	uint64_t	 looked;	/* lines looked at before a record */
	int		 unsure;	/* lines were not looked at */
};

size_t
ofl_fmt_field_key(const char *p, size_t n)
{
	size_t	i;

	if (n < 3 || !((p[0] >= 'A' && p[0] <= 'Z') ||
	    (p[0] >= 'a' && p[0] <= 'z')))
		return 0;
	for (i = 1; i < n && i < REC_KEY; i++)
		if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= 'a' &&
		    p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') ||
		    p[i] == '-' || p[i] == '_'))
			break;
	return i + 1 < n && p[i] == ':' && p[i + 1] == ' ' ? i : 0;
}

int
ofl_fmt_record_head(const char *const *p, const size_t *n, size_t nl)
{
	size_t	i;

	if (nl < 2 || nl > REC_HEAD || n[0] == 0 || p[0][0] == ' ' ||
	    p[0][0] == '\t')
		return 0;
	for (i = 1; i < nl; i++)
		if (ofl_fmt_field_key(p[i], n[i]) == 0)
			return 0;
	return 1;
}

static struct rkey *
key_get(struct rst *r, const char *p, size_t n)
{
	size_t	i;

	for (i = 0; i < r->nkeys; i++)
		if (strlen(r->key[i].name) == n &&
		    memcmp(r->key[i].name, p, n) == 0)
			return &r->key[i];
	if (r->nkeys == REC_KEYS)
		return NULL;
	memcpy(r->key[r->nkeys].name, p, n);
	r->key[r->nkeys].name[n] = '\0';
	return &r->key[r->nkeys++];
}

static void
key_count(struct rkey *k, const char *v, size_t n)
{
	size_t	i;

	/* A byte more than shown: the notice marks a value cut. */
	if (n > REC_VALUE + 1)
		n = REC_VALUE + 1;
	k->seen++;
	free(k->last);
	k->last = ofl_xstrndup(v, n);
	if (k->first == NULL)
		k->first = ofl_xstrndup(v, n);
	if (k->many)
		return;
	for (i = 0; i < k->nval; i++)
		if (strlen(k->val[i]) == n && memcmp(k->val[i], v, n) == 0) {
			k->cnt[i]++;
			return;
		}
	if (k->nval == REC_DISTINCT) {
		k->many = 1;
		return;
	}
	k->val[k->nval] = ofl_xstrndup(v, n);
	k->cnt[k->nval++] = 1;
}

/*
 * The head gathered ends: a record when ofl_fmt_record_head() says it
 * is one.
 */
static void
head_end(struct rst *r)
{
	const char	*p, *hp[REC_HEAD];
	size_t		 i, n, k, w, hn[REC_HEAD];
	struct rkey	*key;

	r->collecting = 0;
	for (i = 0; i < r->nhead; i++) {
		hp[i] = r->head[i].data;
		hn[i] = r->head[i].len;
	}
	if (r->over || !ofl_fmt_record_head(hp, hn, r->nhead))
		return;
	r->records++;
	p = hp[0];
	n = hn[0];
	if (ofl_fmt_field_key(p, n) == 0) {
		for (w = 0; w < n && w < REC_KEY && p[w] != ' ' &&
		    p[w] != '\t'; w++)
			;
		if (r->leads == 0) {
			memcpy(r->lead, p, w);
			r->lead[w] = '\0';
			r->leads = 1;
		} else if (strlen(r->lead) != w || memcmp(r->lead, p, w) != 0)
			r->leads = -1;
	} else
		r->leads = -1;
	for (i = 0; i < r->nhead; i++) {
		p = r->head[i].data;
		n = r->head[i].len;
		if ((k = ofl_fmt_field_key(p, n)) == 0 ||
		    (key = key_get(r, p, k)) == NULL)
			continue;
		for (w = k + 1; w < n && (p[w] == ' ' || p[w] == '\t'); w++)
			;
		key_count(key, p + w, n - w);
	}
}

static void
rec_line(void *arg, const char *p, size_t n)
{
	struct rst	*r = arg;
	int		 blank = ofl_blank(p, n);

	if (n > REC_LINE)
		n = REC_LINE;
	/*
	 * Lines like errors, where they are; past REC_LOOK lines with no
	 * record yet, a text is no text of records: not looked at more.
	 */
	if (r->records == 0 && ++r->looked > REC_LOOK)
		r->unsure = 1;
	else if (!blank && ofl_fmt_log_is_error(p, n, 1)) {
		if (p[0] == ' ' || p[0] == '\t')
			r->err_body++;
		else
			r->err_margin++;
	}
	if (blank) {
		if (r->collecting)
			head_end(r);
		r->prevblank = 1;
		return;
	}
	if (r->prevblank && p[0] != ' ' && p[0] != '\t') {
		r->collecting = 1;
		r->nhead = 0;
		r->over = 0;
	} else if (r->collecting && (p[0] == ' ' || p[0] == '\t'))
		r->collecting = 0;
	r->prevblank = 0;
	if (!r->collecting)
		return;
	if (r->nhead == REC_HEAD) {
		r->over = 1;
		return;
	}
	ofl_buf_reset(&r->head[r->nhead]);
	ofl_buf_add(&r->head[r->nhead++], p, n);
}

static void
sum_key(struct ofl_summary *sum, const struct rkey *k, int first,
    struct ofl_buf *js)
{
	struct ofl_buf	l;
	size_t		i, j, used, order[REC_DISTINCT];

	ofl_buf_init(&l);
	ofl_buf_adds(&l, k->name);
	ofl_buf_adds(&l, ":");
	if (!first)
		ofl_buf_addc(js, ',');
	ofl_buf_add_json_cstr(js, k->name);
	if (k->many || (k->seen > 2 && k->nval * 3 > k->seen * 2)) {
		/* Values that are mostly one each: where they go. */
		ofl_buf_adds(&l, " first ");
		ofl_render(&l, (const unsigned char *)k->first,
		    strlen(k->first), REC_VALUE, OFL_RENDER_ONELINE, &used);
		if (used < strlen(k->first))
			ofl_buf_adds(&l, "...");
		ofl_buf_adds(&l, ", last ");
		ofl_render(&l, (const unsigned char *)k->last,
		    strlen(k->last), REC_VALUE, OFL_RENDER_ONELINE, &used);
		if (used < strlen(k->last))
			ofl_buf_adds(&l, "...");
		ofl_buf_adds(js, ":{\"first\":");
		ofl_buf_add_json_cstr(js, k->first);
		ofl_buf_adds(js, ",\"last\":");
		ofl_buf_add_json_cstr(js, k->last);
		ofl_buf_addc(js, '}');
	} else {
		/* The most frequent first; of as many, the first seen. */
		for (i = 0; i < k->nval; i++) {
			for (j = i; j > 0 && k->cnt[order[j - 1]] <
			    k->cnt[i]; j--)
				order[j] = order[j - 1];
			order[j] = i;
		}
		ofl_buf_addc(js, ':');
		ofl_fmt_counts(&l, js, k->val, k->cnt, order, k->nval,
		    REC_SUMMARY / 3);
	}
	ofl_buf_addc(&l, '\n');
	ofl_buf_add(&sum->text, l.data, l.len);
	ofl_buf_free(&l);
}

/*
 * The notice's lines of a text of records: 0 with them in sum, or with
 * nothing when the text is no such thing; -1 on a read error.
 */
int
ofl_fmt_records_summary(const struct ofl_src *src, const struct ofl_meta *m,
    struct ofl_summary *sum)
{
	struct rst		*r;
	struct ofl_buf		 js;
	size_t			 i, j;
	int			 rv, cut;

	(void)m;
	r = ofl_xcalloc(1, sizeof *r);
	r->prevblank = 1;
	for (i = 0; i < REC_HEAD; i++)
		ofl_buf_init(&r->head[i]);
	rv = ofl_fmt_lines(src, REC_SCAN, rec_line, r, &cut);
	if (rv == 0 && r->collecting)
		head_end(r);
	if (rv == 0 && r->records >= REC_MIN) {
		/* A commit's message that says "error" is no error. */
		sum->prose_errors = !cut && !r->unsure &&
		    r->err_margin == 0 && r->err_body > 0;
		ofl_buf_adds(&sum->text, "records: ");
		ofl_buf_add_count(&sum->text, r->records);
		if (r->leads == 1)
			ofl_buf_addf(&sum->text, " (%s)", r->lead);
		if (cut)
			ofl_buf_adds(&sum->text, " in the first 16 MB");
		ofl_buf_init(&js);
		ofl_buf_addf(&js, "{\"count\":%llu,\"cut\":%s,\"fields\":{",
		    (unsigned long long)r->records, cut ? "true" : "false");
		for (i = 0, j = 0; i < r->nkeys; i++)
			if (r->key[i].seen * 2 > r->records)
				ofl_buf_addf(&sum->text, "%s%s", j++ == 0 ?
				    ", each with " : ", ", r->key[i].name);
		ofl_buf_addc(&sum->text, '\n');
		for (i = 0, j = 0; i < r->nkeys; i++) {
			if (r->key[i].seen * 2 <= r->records ||
			    sum->text.len + 40 > REC_SUMMARY)
				continue;
			sum_key(sum, &r->key[i], j++ == 0, &js);
		}
		ofl_buf_adds(&js, "}}");
		ofl_summary_key(sum, "records");
		ofl_buf_add(&sum->json, js.data, js.len);
		ofl_buf_free(&js);
	}
	for (i = 0; i < REC_HEAD; i++)
		ofl_buf_free(&r->head[i]);
	for (i = 0; i < r->nkeys; i++) {
		for (j = 0; j < r->key[i].nval; j++)
			free(r->key[i].val[j]);
		free(r->key[i].first);
		free(r->key[i].last);
	}
	free(r);
	return rv == 0 ? 0 : -1;
}
