/*
 * snippet-lines.c: which lines of a hit to show.  Lines are chosen by the
 * distinct query terms they cover, rarer terms counting more, then the
 * lines that answer around them (under a heading, the record's name);
 * lines that say the same thing with other numbers (in a log, lines of
 * one template) are shown once, with a count and where the others are.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ofl.h"
#include "search.h"
#include "banned.h"

#define SNAP_SHORT	60		/* bytes of a snapshot line's words */
#define SNAP_MORE	8		/* its lines that repeat terms */
#define SNAP_CONTROL	1.5		/* the worth of a line one acts on */
#define SNAP_TERM	3.0		/* of a line where a name is defined */
#define SNAP_KEEP	0.5		/* of the best line's worth, at least */
#define SNAP_NAMED	3.0		/* an element named by the question */
#define SNAP_PHRASE	0.5		/* a pair of its words in its order */
#define SNAP_UNDER	4		/* lines under a heading looked through */
#define SNAP_UNDER_LACK 0.25		/* of a heading's weight, a word it
					   lacks */
#define WHOLE		0.5		/* more for a term as a word alone */
#define DIFF_CHANGED	2.0		/* a diff's changed line against context */
#define LITERAL		2.0		/* a line that holds a term as typed,
					   punctuation and all */
#define MD_HEADING	1.5		/* a heading inside a Markdown hit: it
					   names the section that answers */
#define KEY_FIELD	1.5		/* a CSV row whose first field, its
					   key, holds a term */
#define DIFF_ASKED	1.5		/* more, the side the question asks:
					   "new", "added"; "removed" */
#define DIFF_FILE	2.0		/* a line of the file the question
					   names ("go.mod") */
#define DIFF_FILE_SHOW	3		/* of its changed lines, shown first */
#define HEAD_INDENT	8		/* columns of a line that goes on one */
#define HEAD_SCAN	8		/* lines looked up for it */
#define CODE_SCAN	12		/* lines down to a paragraph's example */
#define DOC_SCAN	24		/* lines down past a doc comment */
#define BLOCK_SCAN	40		/* lines up to an indented block's title */
#define NAME_SPAN	64		/* bytes of a name either side of a
					   mark looked at */
#define STANZA_MAX	12		/* lines of a record of fields */
#define RECORD_HEAD	4		/* lines of a record's head shown whole */
#define RECORD_SCAN	64		/* lines of its body looked up through */
#define JSON_SCAN	64		/* lines of a JSON object looked through */
#define AROUND		2		/* lines either side of the best one */
#define WIDE		6		/* and with room left by the others */

static void	 term_weights(const struct line *, size_t, const double *,
		    double *);
static double	 mask_weight(uint64_t, const double *);
static double	 line_worth(const struct line *, const double *, uint64_t,
		    uint64_t);
static int	 line_opens(const struct line *);
static size_t	 below(const struct line *, size_t, size_t);
static size_t	 code_start(const struct search *, const struct line *);
static size_t	 doc_target(const struct search *, const struct line *,
		    size_t, size_t);
static size_t	 block_title(const struct line *, size_t, size_t);
static size_t	 json_member(const struct line *, size_t *);
static int	 json_key(const struct line *, const char *const *, size_t *);
static size_t	 identity_line(const struct line *, size_t);
static size_t	 message_line(const struct line *, size_t, size_t);
static size_t	 indent(const struct line *);
static size_t	 item_head(const struct line *, size_t, size_t);
static int	 prose_line(const struct line *);
static size_t	 code_after(const struct line *, size_t, size_t);
static int	 field(const struct line *);
static int	 stanza(const struct line *, size_t, size_t, size_t *,
		    size_t *);
static int	 record_head(const struct line *, size_t, size_t, size_t *,
		    size_t *);
static int	 diff_header(const struct line *, size_t, size_t);
static int	 diff_changed(const struct line *, size_t, size_t);
static int	 diff_file_asked(const struct search *, const struct line *,
		    size_t, size_t *, size_t *);
static void	 diff_weigh(const struct search *, const struct line *, size_t,
		    double *, size_t *, size_t *);
static void	 order_add(struct line *, size_t, size_t *, size_t *, size_t);
static size_t	 order_below(const struct search *, struct line *, size_t,
		    size_t *, size_t, size_t);
static size_t	 order_around(struct line *, size_t, size_t, size_t, size_t *,
		    size_t);
static size_t	 order_wide(struct line *, size_t, const double *, size_t,
		    size_t *, size_t);
static int	 name_sep(int);
static int	 marked(const struct search *, size_t, size_t, size_t);
static uint64_t	 key_terms(const struct search *, const struct line *,
		    size_t);
static void	 md_headings(const struct line *, size_t, double *);
static int	 diff_side(const struct search *);
static int	 tie_better(const struct search *, const struct line *,
		    size_t, size_t, int, const size_t *, size_t);
static double	 snap_density(const struct line *);
static size_t	 snap_under(const struct line *, size_t, size_t);
static size_t	 snap_field(const struct line *, size_t, size_t);
static void	 literal_weigh(const struct search *, const struct line *,
		    size_t, double *);
static void	 key_weigh(const struct search *, const struct line *,
		    size_t, double *);
static uint64_t	 snap_sig(const char *, size_t);
static void	 snap_weigh(struct search *, const struct line *, size_t,
		    double *, double *);
static size_t	 snap_more(struct line *, size_t, const double *,
		    const double *, const double *, size_t *, size_t);
static void	 line_sigs(struct search *, struct line *, size_t);
static int	 sig_taken(const struct line *, size_t, const size_t *,
		    size_t, uint64_t);

/*
 * Signatures: lines that say one thing with other numbers or ids share
 * one (fmt-log.c's masked form, hashed), so that the hits and lines
 * shown are different facts.  ofl_snippet_signature() is the one rule,
 * for a line alone; 0 is never a signature.
 */
uint64_t
ofl_snippet_lines_sig(struct ofl_buf *b, const char *line, size_t n)
{
	uint64_t	h = 14695981039346656037ULL;
	size_t		i;

	ofl_buf_reset(b);
	ofl_fmt_log_mask(b, line, n);
	for (i = 0; i < b->len; i++) {
		h ^= (unsigned char)b->data[i];
		h *= 1099511628211ULL;
	}
	return h == 0 ? 1 : h;
}

/*
 * The signature of a JSON member whose value is on its line, the line
 * itself but for its indent and comma (values with other numbers are
 * other facts); 0 for a line that opens an object or an array.
 */
uint64_t
ofl_snippet_lines_json_sig(const struct line *l)
{
	uint64_t	 h = 14695981039346656037ULL;
	size_t		 a = 0, z = l->n;

	while (a < z && (l->s[a] == ' ' || l->s[a] == '\t'))
		a++;
	while (z > a && (l->s[z - 1] == ' ' || l->s[z - 1] == '\t' ||
	    l->s[z - 1] == '\r' || l->s[z - 1] == ','))
		z--;
	if (z == a || l->s[z - 1] == '{' || l->s[z - 1] == '[' ||
	    memchr(l->s + a, ':', z - a) == NULL)
		return 0;
	for (; a < z; a++) {
		h ^= (unsigned char)l->s[a];
		h *= 1099511628211ULL;
	}
	return h == 0 ? 1 : h;
}

/*
 * A browser snapshot line's signature: its role, name and value, with
 * no number masked (two links differ by their names, which a log's
 * mask would take for variables) and its ref left out, so that only
 * the same element repeated folds.
 */
static uint64_t
snap_sig(const char *line, size_t n)
{
	struct ofl_fmt_snapshot_el e;
	uint64_t	h = 14695981039346656037ULL;
	const char	*part[3];
	size_t		 len[3], i, k;

	if (!ofl_fmt_snapshot_parse(line, n, &e)) {
		part[0] = line;
		len[0] = n;
		part[1] = part[2] = NULL;
		len[1] = len[2] = 0;
	} else {
		part[0] = e.role;
		len[0] = e.rolelen;
		part[1] = e.name;
		len[1] = e.namelen;
		part[2] = e.value;
		len[2] = e.valuelen;
	}
	for (k = 0; k < 3; k++) {
		for (i = 0; i < len[k]; i++) {
			h ^= (unsigned char)part[k][i];
			h *= 1099511628211ULL;
		}
		h ^= 0xff;
		h *= 1099511628211ULL;
	}
	return h == 0 ? 1 : h;
}

/*
 * The signature of a line of the hit being shown: in a browser
 * snapshot, its element's words; in a log whose
 * templates are known (s->curtm), its template's, so that lines of one
 * template fold whatever their variables (a user name, a host); else,
 * or when no template has it or its template is variables alone, the
 * masked form's.
 */
uint64_t
ofl_snippet_lines_tsig(struct search *s, const char *line, size_t n)
{
	char		id[OFL_TMPL_ID];
	uint64_t	h = 0;
	size_t		i;

	if (s->cursnap)
		return snap_sig(line, n);
	if (s->curtm == NULL ||
	    ofl_schema_log_map_line(s->curtm, line, n, id) != 1)
		return ofl_snippet_lines_sig(&s->sigbuf, line, n);
	for (i = 0; id[i] != '\0'; i++)
		h = h << 4 | (uint64_t)(id[i] <= '9' ? id[i] - '0' :
		    id[i] - 'a' + 10);
	/* Apart from the masked forms' hashes: the top bits are free. */
	return h | 0xa5ULL << 56;
}

/* The signature of each line with a match. */
static void
line_sigs(struct search *s, struct line *l, size_t nl)
{
	size_t	i;

	for (i = 0; i < nl; i++)
		if (l[i].nmarks > 0 && l[i].sig == 0)
			l[i].sig = ofl_snippet_lines_tsig(s, l[i].s, l[i].n);
}

/* 1 if a line of order[0..n) has signature sig. */
static int
sig_taken(const struct line *l, size_t nl, const size_t *order, size_t n,
    uint64_t sig)
{
	size_t	j;

	for (j = 0; j < n; j++)
		if (order[j] < nl && l[order[j]].sig == sig)
			return 1;
	return 0;
}

/*
 * For each line shown, the lines with a match not shown that share its
 * signature (counted under the first line shown of a signature).
 */
void
ofl_snippet_lines_similar(struct line *l, size_t nl, size_t from)
{
	size_t	i, j;

	for (i = from; i < nl; i++) {
		l[i].nsim = 0;
		if (!l[i].chosen || l[i].sig == 0)
			continue;
		for (j = 0; j < i; j++)
			if (l[j].chosen && l[j].sig == l[i].sig)
				break;
		if (j < i)
			continue;
		for (j = 0; j < nl; j++) {
			if (l[j].chosen || l[j].sig != l[i].sig)
				continue;
			if (l[i].nsim < SIM_SHOW)
				l[i].sim[l[i].nsim] = l[j].no;
			l[i].nsim++;
		}
	}
}

/* "  x3 similar: lines 120, 388, 1204" and "..." past SIM_SHOW. */
void
ofl_snippet_lines_add_similar(struct ofl_buf *out, size_t n, const uint64_t *no)
{
	size_t	i;

	ofl_buf_addf(out, "  x%zu similar: line%s", n, n > 1 ? "s" : "");
	for (i = 0; i < n && i < SIM_SHOW; i++)
		ofl_buf_addf(out, "%s %llu", i > 0 ? "," : "",
		    (unsigned long long)no[i]);
	if (n > SIM_SHOW)
		ofl_buf_adds(out, ", ...");
	ofl_buf_addc(out, '\n');
}

/*
 * The weight of each term in a hit: rarer in its lines, worth more (a
 * term on every line tells which line answers least).
 */
static void
term_weights(const struct line *l, size_t nl, const double *hitw, double *w)
{
	size_t	df[64], i, t;
	double	r, x;

	memset(df, 0, sizeof df);
	for (i = 0; i < nl; i++)
		for (t = 0; t < 64; t++)
			if (l[i].mask & ((uint64_t)1 << t))
				df[t]++;
	for (t = 0; t < 64; t++) {
		if (df[t] == 0) {
			w[t] = 0;
			continue;
		}
		/* 1 + log2(nl / df), piecewise linear. */
		r = (double)nl / (double)df[t];
		for (x = 1; r >= 2; r /= 2)
			x++;
		w[t] = (x + (r - 1)) * (hitw != NULL ? hitw[t] : 1);
	}
}

/* The weight of the terms of mask. */
static double
mask_weight(uint64_t mask, const double *w)
{
	double	sum = 0;
	size_t	t;

	for (t = 0; t < 64 && mask != 0; t++, mask >>= 1)
		if (mask & 1)
			sum += w[t];
	return sum;
}

/*
 * What a line's terms not yet covered are worth, WHOLE more for those
 * it holds as words of their own rather than inside an identifier
 * (snippet.c): of lines that name TestFailedWithStderr, the one that
 * says "stderr" is the one about it.
 */
static double
line_worth(const struct line *l, const double *w, uint64_t covered,
    uint64_t wcovered)
{
	return mask_weight(l->mask & ~covered, w) + WHOLE *
	    mask_weight(l->wmask & ~wcovered, w);
}

/*
 * A line whose answer is below it: it opens an object or a list (JSON,
 * YAML), ends in a colon, or is a Markdown heading.
 */
static int
line_opens(const struct line *l)
{
	size_t	n = l->n, i = 0;

	while (n > 0 && (l->s[n - 1] == ' ' || l->s[n - 1] == '\t' ||
	    l->s[n - 1] == ','))
		n--;
	while (i < n && (l->s[i] == ' ' || l->s[i] == '\t'))
		i++;
	if (n == i)
		return 0;
	if (l->s[i] == '#' && i == 0)
		return 1;
	return l->s[n - 1] == '{' || l->s[n - 1] == '[' || l->s[n - 1] == ':';
}

/*
 * The line under line c that says something: past empty lines and a
 * fence that opens code, at most three lines down.  nl if none.
 */
static size_t
below(const struct line *l, size_t nl, size_t c)
{
	size_t	k, i;

	for (k = c + 1; k < nl && k - c <= 3; k++) {
		for (i = 0; i < l[k].n && l[k].s[i] == ' '; i++)
			;
		if (!ofl_snippet_records_blank(&l[k]) && (l[k].n - i < 3 ||
		    memcmp(l[k].s + i, "```", 3) != 0))
			return k;
	}
	return nl;
}

/*
 * Where the text of line l starts, past a diff's column of "+", "-" or
 * " " (in a diff's hit) and indentation.
 */
static size_t
code_start(const struct search *s, const struct line *l)
{
	size_t	i = 0;

	if (s != NULL && s->curdiff && l->n > 0 && ofl_in_set(l->s[0], "+- "))
		i = 1;
	while (i < l->n && (l->s[i] == ' ' || l->s[i] == '\t'))
		i++;
	return i;
}

/*
 * The line a doc comment documents, when line c is in one (a block
 * comment's lines that start with a star, or lines that start with
 * three slashes): the first line that is neither comment nor empty
 * after it, at most DOC_SCAN lines down.  nl if none.
 */
static size_t
doc_target(const struct search *s, const struct line *l, size_t nl,
    size_t c)
{
	size_t	k, i;
	int	block;

	if (c >= nl)
		return nl;
	i = code_start(s, &l[c]);
	if (l[c].n - i >= 3 && memcmp(l[c].s + i, "///", 3) == 0)
		block = 0;
	else if (i < l[c].n && l[c].s[i] == '*' && (i + 1 == l[c].n ||
	    l[c].s[i + 1] == ' ' || l[c].s[i + 1] == '/'))
		block = 1;
	else if (l[c].n - i >= 3 && memcmp(l[c].s + i, "/**", 3) == 0)
		block = 1;
	else
		return nl;
	for (k = c; k < nl && k - c <= DOC_SCAN; k++) {
		i = code_start(s, &l[k]);
		if (i == l[k].n)
			continue;
		if (block == 1 && memmem(l[k].s + i, l[k].n - i, "*/", 2) !=
		    NULL) {
			block = 2;
			continue;
		}
		if (block == 1 || (block == 0 && l[k].n - i >= 2 &&
		    memcmp(l[k].s + i, "//", 2) == 0))
			continue;
		return ofl_snippet_records_blank(&l[k]) ? nl : k;
	}
	return nl;
}

/* Columns of a line's indentation, a tab to the next multiple of 8. */
static size_t
indent(const struct line *l)
{
	size_t	i, col = 0;

	for (i = 0; i < l->n && (l->s[i] == ' ' || l->s[i] == '\t'); i++)
		col = l->s[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
	return i == l->n ? 0 : col;
}

/*
 * The line an indented line c goes on from: the nearest line above it,
 * with no empty line between and at most HEAD_SCAN up, that is indented
 * less (an option's name over its description, an exception over its
 * frames).  nl if none.
 */
static size_t
item_head(const struct line *l, size_t nl, size_t c)
{
	size_t	k, ind;

	if (c >= nl || (ind = indent(&l[c])) < HEAD_INDENT)
		return nl;
	for (k = c; k > 0 && c - k < HEAD_SCAN; k--) {
		if (ofl_snippet_records_blank(&l[k - 1]))
			return nl;
		if (indent(&l[k - 1]) < ind)
			return k - 1;
	}
	return nl;
}

/*
 * The title of an indented block that line c is in, when the block
 * starts below an empty line ("  ● Client › retries", an empty line,
 * then "    thrown: ..."): the nearest line above, at most BLOCK_SCAN
 * up, that is indented less than c and has an empty line under it.
 * nl if none.
 */
static size_t
block_title(const struct line *l, size_t nl, size_t c)
{
	size_t	k, ind;

	if (c >= nl || (ind = indent(&l[c])) == 0)
		return nl;
	for (k = c; k > 0 && c - k < BLOCK_SCAN; k--) {
		if (ofl_snippet_records_blank(&l[k - 1]) ||
		    indent(&l[k - 1]) >= ind)
			continue;
		return k < nl && ofl_snippet_records_blank(&l[k]) ? k - 1 : nl;
	}
	return nl;
}

/*
 * A line of a paragraph's text: not empty, not a heading, a fence, a
 * table's row, a quote, a list's item or code (indented 4 or more).
 */
static int
prose_line(const struct line *l)
{
	size_t	i = 0;

	while (i < l->n && l->s[i] == ' ')
		i++;
	if (i == l->n || i >= 4 || ofl_in_set(l->s[i], "#|>`\t"))
		return 0;
	if (ofl_in_set(l->s[i], "-*+") && i + 1 < l->n &&
	    l->s[i + 1] == ' ')
		return 0;
	while (i < l->n && isdigit((unsigned char)l->s[i]))
		i++;
	return i == l->n || l->s[i] != '.' || i + 1 >= l->n ||
	    l->s[i + 1] != ' ';
}

/*
 * The first line of the example that the paragraph of line c leads to:
 * code (in a fence, or indented 4 or more after an empty line or a line
 * that ends in a colon) at most CODE_SCAN lines below, before a heading
 * and within three paragraphs.  nl if none.
 */
static size_t
code_after(const struct line *l, size_t nl, size_t c)
{
	size_t	k, i, paras = 0;
	int	blank, fence, colon = 0;

	if (c >= nl || !prose_line(&l[c]))
		return nl;
	for (k = c + 1; k < nl && k - c <= CODE_SCAN; k++) {
		blank = ofl_snippet_records_blank(&l[k]);
		for (i = 0; i < l[k].n && l[k].s[i] == ' '; i++)
			;
		fence = l[k].n - i >= 3 && memcmp(l[k].s + i, "```", 3) == 0;
		if (!blank && l[k].s[0] == '#')
			return nl;
		if (fence) {
			if (k + 1 < nl && !ofl_snippet_records_blank(&l[k + 1]))
				return k + 1;
			return nl;
		}
		if (!blank && (i >= 4 || l[k].s[0] == '\t') &&
		    (colon || ofl_snippet_records_blank(&l[k - 1])))
			return k;
		if (blank && !ofl_snippet_records_blank(&l[k - 1]) &&
		    ++paras > 3)
			return nl;
		if (!blank) {
			i = l[k].n;
			while (i > 0 && l[k].s[i - 1] == ' ')
				i--;
			colon = i > 0 && l[k].s[i - 1] == ':';
		}
	}
	return nl;
}

/*
 * The heading of the Markdown section line c is in, when it is not the
 * hit's first line (the hit's title names that one): in a hit of
 * several sections, which one answers.  nl if none.
 */
static size_t
section_head(const struct line *l, size_t nl, size_t c)
{
	size_t	i, head = nl;
	int	code = 0;

	if (c >= nl || c >= ORDER_SCAN)
		return nl;
	for (i = 0; i < c; i++)
		if (ofl_fmt_md_heading(&code, (const unsigned char *)l[i].s,
		    l[i].n))
			head = i;
	return head > 0 ? head : nl;
}

/* A field of a record: "Start-Date: 2026-05-20", unindented. */
static int
field(const struct line *l)
{
	return ofl_fmt_field_key(l->s, l->n) > 0;
}

/*
 * 1 if line b is a field of a record of fields between empty lines (an
 * apt history entry, a package's control stanza, an e-mail's header),
 * of at most STANZA_MAX lines: its first line and its last, where it
 * says what and when, in *first and *last.
 */
static int
stanza(const struct line *l, size_t nl, size_t b, size_t *first,
    size_t *last)
{
	size_t	a, z;

	if (b >= nl || !field(&l[b]))
		return 0;
	for (a = b; a > 0 && b - a < STANZA_MAX && l[a - 1].n > 0; a--)
		;
	for (z = b; z + 1 < nl && z - a < STANZA_MAX && l[z + 1].n > 0; z++)
		;
	if (z - a + 1 > STANZA_MAX || z == a || (a > 0 && l[a - 1].n > 0) ||
	    (z + 1 < nl && l[z + 1].n > 0) || !field(&l[a]) || !field(&l[z]))
		return 0;
	*first = a;
	*last = z;
	return 1;
}

/*
 * 1 if line c is in the indented body of a record whose head is a few
 * lines at the margin, fields but for the first, over an empty line (a
 * commit of a git log: "commit", "Author:", "Date:", then the message
 * and the files indented): the head's first line in *first, its last in
 * *last.  Who and when, for a line that says what.
 */
static int
record_head(const struct line *l, size_t nl, size_t c, size_t *first,
    size_t *last)
{
	const char	*p[STANZA_MAX];
	size_t		 n[STANZA_MAX], a, z, k;

	if (c >= nl || ofl_snippet_records_blank(&l[c]) || indent(&l[c]) == 0)
		return 0;
	for (k = c; k > 0 && c - k < RECORD_SCAN; k--)
		if (!ofl_snippet_records_blank(&l[k - 1]) && indent(&l[k - 1]) == 0)
			break;
	if (k == 0 || c - k >= RECORD_SCAN || !ofl_snippet_records_blank(&l[k]))
		return 0;
	z = k - 1;
	for (a = z; a > 0 && !ofl_snippet_records_blank(&l[a - 1]) && z - a + 1 < STANZA_MAX; a--)
		;
	if (a > 0 && !ofl_snippet_records_blank(&l[a - 1]))
		return 0;
	for (k = a; k <= z; k++) {
		p[k - a] = l[k].s;
		n[k - a] = l[k].n;
	}
	if (!ofl_fmt_record_head(p, n, z - a + 1))
		return 0;
	*first = a;
	*last = z;
	return 1;
}

/*
 * 1 if line i of a diff's hit is a file's header: "--- " before "+++ "
 * (or last, where the hit cuts the pair), "+++ " after "--- " or before
 * "@@".  A removed "-- comment" is "--- comment" too, an added "++i;"
 * "+++i;" or so: their neighbours tell them apart.
 */
static int
diff_header(const struct line *l, size_t nl, size_t i)
{
	if (l[i].n < 4)
		return 0;
	if (memcmp(l[i].s, "--- ", 4) == 0)
		return i + 1 == nl || (l[i + 1].n >= 4 &&
		    memcmp(l[i + 1].s, "+++ ", 4) == 0);
	if (memcmp(l[i].s, "+++ ", 4) == 0)
		return (i > 0 && l[i - 1].n >= 4 &&
		    memcmp(l[i - 1].s, "--- ", 4) == 0) || i + 1 == nl ||
		    (l[i + 1].n >= 2 && memcmp(l[i + 1].s, "@@", 2) == 0);
	return 0;
}

/* Line i of a diff's hit adds or removes a line; it is not a header. */
static int
diff_changed(const struct line *l, size_t nl, size_t i)
{
	if (l[i].n == 0 || (l[i].s[0] != '+' && l[i].s[0] != '-'))
		return 0;
	return !diff_header(l, nl, i);
}

/*
 * The lines of the file of a diff that the question names as typed, its
 * path or its base name ("go.mod", not the go.sum lines that hold
 * "/go.mod"): from its "+++ " line to the next file's, in *from and *to.
 * 0 if the question names no file of the hit.
 */
static int
diff_file_asked(const struct search *s, const struct line *l, size_t nl,
    size_t *from, size_t *to)
{
	const char	*p, *path, *base;
	size_t		 i, k, n, np, nb;

	for (i = 0; i < nl; i++) {
		if (l[i].n <= 4 || l[i].s[0] != '+' || !diff_header(l, nl, i))
			continue;
		path = l[i].s + 4;
		for (np = 0; 4 + np < l[i].n && path[np] != '\t' &&
		    path[np] != ' '; np++)
			;
		for (nb = np; nb > 0 && path[nb - 1] != '/'; nb--)
			;
		base = path + nb;
		nb = np - nb;
		for (k = 0; k < s->nt; k++) {
			if (!ofl_query_terms_typed(s, k, &p, &n))
				continue;
			if ((n == nb && memcmp(p, base, n) == 0) || (n < np &&
			    path[np - n - 1] == '/' &&
			    memcmp(p, path + np - n, n) == 0))
				break;
		}
		if (k == s->nt)
			continue;
		*from = i;
		for (i++; i < nl; i++)
			if ((l[i].n >= 5 && memcmp(l[i].s, "diff ", 5) == 0) ||
			    (l[i].n > 0 && l[i].s[0] == '-' &&
			    diff_header(l, nl, i)))
				break;
		*to = i;
		return 1;
	}
	return 0;
}

/*
 * A diff's weights: what changed is the answer, its context less, the
 * side the question asks more, the file it names more; that file's
 * lines in [*fa, *fb) (both 0 if none).
 */
static void
diff_weigh(const struct search *s, const struct line *l, size_t nl,
    double *d, size_t *fa, size_t *fb)
{
	size_t	i;
	int	side = diff_side(s);

	for (i = 0; i < nl && i < ORDER_SCAN; i++)
		if (diff_changed(l, nl, i))
			d[i] = DIFF_CHANGED * (l[i].s[0] == side ? DIFF_ASKED :
			    1);
	if (!diff_file_asked(s, l, nl, fa, fb)) {
		*fa = *fb = 0;
		return;
	}
	for (i = *fa; i < *fb && i < ORDER_SCAN; i++)
		d[i] *= DIFF_FILE;
}

/*
 * If a line is a member of a JSON object ("key": ...), the offset just
 * past its colon, else 0; its indentation in *ind.
 */
static size_t
json_member(const struct line *l, size_t *ind)
{
	size_t	i;

	for (i = 0; i < l->n && (l->s[i] == ' ' || l->s[i] == '\t'); i++)
		;
	*ind = i;
	if (i >= l->n || l->s[i++] != '"')
		return 0;
	for (; i < l->n && l->s[i] != '"'; i++)
		if (l->s[i] == '\\')
			i++;
	return i + 1 < l->n && l->s[i + 1] == ':' ? i + 2 : 0;
}

/*
 * The index in keys of the key of a member line (any case), when its
 * value is on the line (not an object or a list); -1 if none.  Its
 * indentation in *ind.
 */
static int
json_key(const struct line *l, const char *const *keys, size_t *ind)
{
	size_t	j, k, klen;

	if ((j = json_member(l, ind)) == 0)
		return -1;
	klen = j - *ind - 3;
	for (k = 0; keys[k] != NULL; k++)
		if (strlen(keys[k]) == klen &&
		    strncasecmp(l->s + *ind + 1, keys[k], klen) == 0)
			break;
	if (keys[k] == NULL)
		return -1;
	while (j < l->n && l->s[j] == ' ')
		j++;
	return j >= l->n || l->s[j] == '{' || l->s[j] == '[' ? -1 : (int)k;
}

/*
 * The line of a JSON record that names it: a "name", "title", "id" or
 * like key with a value on its line, the least indented (the record's
 * own, not a nested object's), the likeliest key first.  nl if none.
 */
static size_t
identity_line(const struct line *l, size_t nl)
{
	static const char *const keys[] = { "name", "title", "alertname",
		"alert", "tag_name", "key", "login", "full_name", "slug", "id",
		NULL };
	size_t	i, ind, best = nl, bind = SIZE_MAX;
	int	k, bk = INT_MAX;

	for (i = 0; i < nl; i++) {
		if ((k = json_key(&l[i], keys, &ind)) < 0)
			continue;
		if (ind < bind || (ind == bind && k < bk)) {
			best = i;
			bind = ind;
			bk = k;
		}
	}
	return best;
}

/*
 * The line of the JSON object line b is a member of that says what
 * happened, its "message", "description" or like key, the likeliest
 * first: for the "reason": "FailedScheduling" that matched, the message
 * that says why.  nl if none but b, or if b is no member with a value
 * on its line.
 */
static size_t
message_line(const struct line *l, size_t nl, size_t b)
{
	static const char *const keys[] = { "message", "msg", "description",
		"detail", "details", "error", "summary", "reason", NULL };
	size_t	a, z, i, ind, bind;
	size_t	best = nl;
	int	k, bk = INT_MAX;

	if (b >= nl || !json_member(&l[b], &bind) || line_opens(&l[b]))
		return nl;
	for (a = b; a > 0 && b - a < JSON_SCAN && indent(&l[a - 1]) >= bind;
	    a--)
		;
	for (z = b; z + 1 < nl && z - b < JSON_SCAN &&
	    indent(&l[z + 1]) >= bind; z++)
		;
	for (i = a; i <= z; i++) {
		if (i == b || (k = json_key(&l[i], keys, &ind)) < 0 ||
		    ind != bind)
			continue;
		if (k < bk) {
			best = i;
			bk = k;
		}
	}
	return best;
}

/*
 * The factor of each line of a snapshot's hit with a match: its
 * density, and SNAP_CONTROL more for a line one acts on (a link, a
 * button, a field, or the code or URL inside a link), which is what an
 * agent looks for, SNAP_TERM more for a line in the term of a
 * description list (where a function or an option is defined, not
 * where it is named in passing), and up to 1 + SNAP_NAMED times more
 * for an element whose name is the question's words
 * (fmt-snapshot-name.c).
 */
static void
snap_weigh(struct search *s, const struct line *l, size_t nl, double *d,
    double *nf)
{
	const struct ofl_fmt_snapshot_words *q = ofl_snippet_snap_words(s);
	const char	**p;
	size_t		 *n, i;
	double		 v, w;

	if (nl > ORDER_SCAN)
		nl = ORDER_SCAN;
	p = ofl_xcalloc(nl + 1, sizeof *p);
	n = ofl_xcalloc(nl + 1, sizeof *n);
	for (i = 0; i < nl; i++) {
		p[i] = l[i].s;
		n[i] = l[i].n;
	}
	for (i = 0; i < nl; i++) {
		if (l[i].nmarks == 0)
			continue;
		d[i] = snap_density(&l[i]);
		if (ofl_fmt_snapshot_control(p, n, nl, i))
			d[i] *= SNAP_CONTROL;
		else if (ofl_fmt_snapshot_in_term(p, n, nl, i))
			d[i] *= SNAP_TERM;
		v = ofl_fmt_snapshot_named(l[i].s, l[i].n, q);
		/* The text that names the heading above it. */
		if (i > 0 && (w = ofl_fmt_snapshot_named_by(l[i - 1].s,
		    l[i - 1].n, l[i].s, l[i].n, q)) > v)
			v = w;
		nf[i] = 1 + SNAP_NAMED * v;
		d[i] *= nf[i] * (1 + SNAP_PHRASE * l[i].adj);
	}
	free(p);
	free(n);
}

/*
 * A snapshot's lines after those that cover the terms: the other lines
 * that match, the most weight for their length first, one a signature,
 * while worth SNAP_KEEP of the best one's weight, names left out (nf):
 * a name puts a line first, not the others out.
 */
static size_t
snap_more(struct line *l, size_t nl, const double *w, const double *d,
    const double *nf, size_t *order, size_t norder)
{
	double	bv, v, top = 0;
	size_t	i, j, c;

	for (j = 0; j < norder; j++) {
		i = order[j];
		v = mask_weight(l[i].mask, w) * (i < ORDER_SCAN ? d[i] /
		    nf[i] : 1);
		if (v > top)
			top = v;
	}
	for (j = 0; j < SNAP_MORE; j++) {
		c = nl;
		bv = 0;
		for (i = 0; i < nl; i++) {
			if (l[i].chosen || l[i].nmarks == 0 ||
			    (l[i].sig != 0 && sig_taken(l, nl, order, norder,
			    l[i].sig)))
				continue;
			v = mask_weight(l[i].mask, w) * (i < ORDER_SCAN ?
			    d[i] : 1);
			if (v > 0 && (c == nl || v > bv)) {
				c = i;
				bv = v;
			}
		}
		if (c == nl || bv / (c < ORDER_SCAN ? nf[c] : 1) <
		    top * SNAP_KEEP)
			break;
		order_add(l, nl, order, &norder, c);
	}
	for (i = 0; i < nl; i++)
		l[i].chosen = 0;
	return norder;
}

/*
 * In a snapshot, the first element one acts on in the SNAP_UNDER lines
 * under heading c (fmt-snapshot.c says which); nl if none.
 */
static size_t
snap_under(const struct line *l, size_t nl, size_t c)
{
	const char	*p[SNAP_UNDER + 1];
	size_t		 n[SNAP_UNDER + 1], k, u;

	for (k = 0; k <= SNAP_UNDER && c + k < nl; k++) {
		p[k] = l[c + k].s;
		n[k] = l[c + k].n;
	}
	return (u = ofl_fmt_snapshot_under(p, n, k)) < k ? c + u : nl;
}

/* The field a button line c goes with (fmt-snapshot.c); nl if none. */
static size_t
snap_field(const struct line *l, size_t nl, size_t c)
{
	const char	*p[SNAP_UNDER + 1];
	size_t		 n[SNAP_UNDER + 1], k, a, f;

	a = c > SNAP_UNDER ? c - SNAP_UNDER : 0;
	for (k = 0; a + k <= c; k++) {
		p[k] = l[a + k].s;
		n[k] = l[a + k].n;
	}
	return (f = ofl_fmt_snapshot_field(p, n, k)) < k ? a + f : nl;
}

/*
 * A term typed with punctuation inside ("${parameter:-word}", "5.0.0",
 * "-Wl,--as-needed") is matched by its words, which other lines hold as
 * well ("${parameter:=word}", "5.0.0-alpha.5"): a line that holds it as
 * typed, not inside a longer name, weighs LITERAL more.
 */
static void
literal_weigh(const struct search *s, const struct line *l, size_t nl,
    double *d)
{
	const char	*p;
	size_t		 i, k, n;

	for (k = 0; s != NULL && k < s->nt; k++) {
		if (!ofl_query_terms_typed(s, k, &p, &n))
			continue;
		for (i = 0; i < nl && i < ORDER_SCAN; i++)
			if (l[i].nmarks > 0 &&
			    ofl_query_terms_literal(l[i].s, l[i].n, p, n))
				d[i] *= LITERAL;
	}
}

/*
 * A row of a CSV or TSV hit whose first field holds a term: the row of
 * the thing asked about ("application/pdf" for "the icon of a PDF"), not
 * one that names it in another column.
 */
static void
key_weigh(const struct search *s, const struct line *l, size_t nl,
    double *d)
{
	size_t	i, end, off;

	if (s == NULL || s->cursep == 0)
		return;
	for (i = 0; i < nl && i < ORDER_SCAN; i++) {
		if (l[i].nmarks == 0)
			continue;
		end = ofl_fmt_csv_field_end(l[i].s, l[i].n, s->cursep);
		off = (size_t)(l[i].s - s->mtext);
		if (s->m[l[i].mark0].start < off + end)
			d[i] *= KEY_FIELD;
	}
}

static void
order_add(struct line *l, size_t nl, size_t *order, size_t *norder, size_t i)
{
	/* A blank line is shown only as a hit's one line. */
	if (i >= nl || l[i].chosen || *norder >= ORDER_MAX ||
	    (*norder > 0 && ofl_snippet_records_blank(&l[i])))
		return;
	l[i].chosen = 2;
	order[(*norder)++] = i;
}

/*
 * In a browser snapshot, what a line's terms are worth for its length:
 * an element named by the words asked for ("heading "The LIMIT
 * clause"") is the answer, a long paragraph that holds them in passing
 * much less.  1 up to SNAP_SHORT bytes of words, then falling.
 */
static double
snap_density(const struct line *l)
{
	size_t	n = ofl_fmt_snapshot_words(l->s, l->n);

	if (n <= SNAP_SHORT)
		return 1;
	return 1 / (1 + (double)(n - SNAP_SHORT) / SNAP_SHORT);
}

/*
 * The side of a diff the query asks for: '+' for what is new ("new
 * flags", "added", "now"), '-' for what is gone ("removed", "no
 * longer"), 0 for neither or both.  Whole words only.
 */
static int
diff_side(const struct search *s)
{
	static const char *const added[] = { "new", "newly", "added", "add",
		"adds", "now", "introduced", "introduces", NULL };
	static const char *const gone[] = { "removed", "remove", "removes",
		"deleted", "delete", "dropped", "drop", "old", "no longer",
		"anymore", NULL };
	int	 add = ofl_snippet_asks(s, added, 1);
	int	 del = ofl_snippet_asks(s, gone, 1);

	return add == del ? 0 : add ? '+' : '-';
}

/*
 * A snapshot's order after the lines that cover terms: what to act on
 * under a heading that answers, right after the heading (before lines
 * that only cover a word left, "link"), then snap_more's.
 */
static size_t
snap_order(struct line *l, size_t nl, const double *w, const double *d,
    const double *nf, size_t *order, size_t norder)
{
	uint64_t all = 0;
	size_t	 j, b, c, ncover;

	for (j = 0; j < norder; j++)
		all |= l[order[j]].mask;
	for (j = 0, ncover = norder; j < ncover; j++) {
		b = norder;
		order_add(l, nl, order, &norder, snap_field(l, nl, order[j]));
		if (norder > b)
			continue;
		order_add(l, nl, order, &norder, snap_under(l, nl, order[j]));
		/*
		 * Right after the heading unless the lines found hold a
		 * word it lacks that weighs a quarter of its own: then
		 * that line ("accuracy" under "Table of Contents") first.
		 */
		if (norder > b && b > j + 1 &&
		    mask_weight(all & ~l[order[j]].mask, w) <
		    mask_weight(all & l[order[j]].mask, w) * SNAP_UNDER_LACK) {
			c = order[b];
			memmove(order + j + 2, order + j + 1,
			    (b - j - 1) * sizeof *order);
			order[j + 1] = c;
			j++;
			ncover++;
		}
	}
	return snap_more(l, nl, w, d, nf, order, norder);
}

/* Lines between two lines. */
static size_t
gap(size_t a, size_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * The words of two letters or more of the name mark j is in (bytes of
 * words joined by '-', '_', '.', '/' or ':', in the line from p to e)
 * that no mark holds: of "install postgresql-15:amd64" and "install
 * postgresql-client-common:all", asked for "postgresql", the first
 * names it with less besides (1, "amd", against 3).
 */
int
ofl_snippet_lines_other(const struct search *s, const char *text, size_t j,
    size_t mark0, const char *p, const char *e)
{
	const char	*a = text + s->m[j].start, *z = text + s->m[j].end;
	const char	*w;
	int		 n = 0;

	/* A name is short: a longer run of name bytes is not looked at. */
	while (a > p && (size_t)(text + s->m[j].start - a) < NAME_SPAN &&
	    (ofl_snippet_lines_word_byte(a[-1]) || name_sep(a[-1])))
		a--;
	while (z < e && (size_t)(z - (text + s->m[j].end)) < NAME_SPAN &&
	    (ofl_snippet_lines_word_byte(*z) || name_sep(*z)))
		z++;
	while (a < z) {
		if (!isalpha((unsigned char)*a)) {
			a++;
			continue;
		}
		for (w = a; a < z && isalpha((unsigned char)*a); a++)
			;
		if (a - w >= 2 && !marked(s, mark0, (size_t)(w - text),
		    (size_t)(e - text)))
			n++;
	}
	return n;
}

/* 1 if a mark of the line whose marks start at mark0 holds byte off. */
static int
marked(const struct search *s, size_t mark0, size_t off, size_t end)
{
	size_t	k;

	for (k = mark0; k < s->nm && s->m[k].start < end; k++)
		if (s->m[k].start <= off && off < s->m[k].end)
			return 1;
	return 0;
}

static int
name_sep(int c)
{
	return c == '-' || c == '_' || c == '.' || c == '/' || c == ':';
}

/* A byte of a word: a letter, a digit, a byte of UTF-8. */
int
ofl_snippet_lines_word_byte(int c)
{
	return isalnum((unsigned char)c) || (unsigned char)c >= 0x80;
}

/*
 * The factor of a Markdown heading inside a hit (not its first line, its
 * title already), outside code blocks, where "# To install" is a comment.
 */
static void
md_headings(const struct line *l, size_t nl, double *d)
{
	size_t	i;
	int	code = 0;

	for (i = 0; i < nl && i < ORDER_SCAN; i++)
		if (ofl_fmt_md_heading(&code, (const unsigned char *)l[i].s,
		    l[i].n) && i > 0)
			d[i] = MD_HEADING;
}

/*
 * The terms a JSON member's key holds ("build:wasm" of a question on
 * the wasm build), as a mask; 0 for a line that is no member.
 */
static uint64_t
key_terms(const struct search *s, const struct line *l, size_t i)
{
	size_t		 k, base, colon, ind;
	uint64_t	 mask = 0;

	if ((colon = json_member(&l[i], &ind)) == 0)
		return 0;
	base = (size_t)(l[i].s - l[0].s);
	for (k = l[i].mark0; k < s->nm && s->m[k].start < base + colon; k++)
		if (s->m[k].start >= base && s->m[k].target >= 0 &&
		    s->m[k].target < 64)
			mask |= (uint64_t)1 << s->m[k].target;
	return mask;
}

/*
 * Of lines i and c, worth as much, 1 if i goes first: in JSON, the
 * member whose key holds more of the terms (the member named by the
 * question more than one that names it in its value); the one whose
 * names hold fewer words the query does not ask (in records, where a
 * name is what a line is about: "python3" more than "python3-pip"; in
 * prose, "--download-archive" is as much about downloads), the one with
 * more spans of marks, the one nearer the best line.
 */
static int
tie_better(const struct search *s, const struct line *l, size_t i, size_t c,
    int snap, const size_t *order, size_t norder)
{
	int	ki, kc;

	if (s != NULL && s->curjson && (ki = __builtin_popcountll(key_terms(s,
	    l, i))) != (kc = __builtin_popcountll(key_terms(s, l, c))))
		return ki > kc;
	if (s != NULL && !s->curprose && l[i].other != l[c].other)
		return l[i].other < l[c].other;
	if (l[i].nspans != l[c].nspans)
		return l[i].nspans > l[c].nspans;
	return !snap && norder > 0 && gap(i, order[0]) < gap(c, order[0]);
}

/*
 * The lines of a hit in the order they are worth showing: the line with
 * the most weight of distinct terms, then lines that add terms not yet
 * covered (of lines worth as much, the nearest the first: the count of
 * the record that matched, not of the one before), then what is under
 * a line that opens something (a heading, an object) and the line after
 * the best, then two lines that repeat terms (of lines worth as much,
 * the shortest: more of them fit), each with the line below it when it
 * opens, then the line above the best and more of its surroundings.  A
 * browser snapshot's lines are weighed for their length too, and shown
 * without their surroundings: the element lines that match, each with
 * its ref, are the answer (snippet.c adds the element that holds a
 * child line), and more of them fit.
 */
size_t
ofl_snippet_lines_order(struct search *s, struct line *l, size_t nl, size_t *order)
{
	double		 w[64], d[ORDER_SCAN], nf[ORDER_SCAN], g, bg, bv, v;
	uint64_t	 covered = 0, wcovered = 0;
	size_t		 norder = 0, ncover, i, j, b, c, id, fa = 0, fb = 0;
	int		 snap = s != NULL && s->cursnap;

	term_weights(l, nl, s != NULL ? s->hitw : NULL, w);
	if (s != NULL)
		line_sigs(s, l, nl);
	for (i = 0; i < nl && i < ORDER_SCAN; i++)
		d[i] = nf[i] = 1;
	if (snap)
		snap_weigh(s, l, nl, d, nf);
	if (s != NULL && s->curdiff)
		diff_weigh(s, l, nl, d, &fa, &fb);
	if (s != NULL && s->curmd)
		md_headings(l, nl, d);
	if (s != NULL && !snap && s->m != NULL)
		ofl_snippet_ask_weigh(s, l, nl, d);
	literal_weigh(s, l, nl, d);
	key_weigh(s, l, nl, d);
	for (j = 0; j < 5; j++) {
		c = nl;
		bg = bv = 0;
		for (i = 0; i < nl; i++) {
			if (l[i].chosen || l[i].nmarks == 0)
				continue;
			g = line_worth(&l[i], w, covered, wcovered);
			v = line_worth(&l[i], w, 0, 0);
			if (g <= 0 && j > 0)
				continue;
			if (i < ORDER_SCAN) {
				g *= d[i];
				v *= d[i];
			}
			if (c == nl || g > bg || (g == bg && (v > bv ||
			    (v == bv && tie_better(s, l, i, c, snap, order,
			    norder))))) {
				c = i;
				bg = g;
				bv = v;
			}
		}
		if (c == nl)
			break;
		if (j == 0 && s != NULL && !snap && s->m != NULL)
			c = ofl_snippet_ask_why_best(s, l, nl, c);
		covered |= l[c].mask;
		wcovered |= l[c].wmask;
		order_add(l, nl, order, &norder, c);
		if (j == 0 && s != NULL && !snap && s->m != NULL)
			order_add(l, nl, order, &norder,
			    ofl_snippet_ask_why_after(s, l, nl, c));
	}
	if (norder == 0)
		order_add(l, nl, order, &norder, 0);
	if (snap)
		return snap_order(l, nl, w, d, nf, order, norder);
	b = norder > 0 ? order[0] : 0;
	ncover = norder;
	/* The failure a traceback ends with, what it is about. */
	for (j = 0; j < ncover; j++)
		order_add(l, nl, order, &norder, ofl_snippet_records_end(l, nl,
		    order[j]));
	/* The error a log line is the detail of. */
	for (j = 0; j < ncover; j++)
		order_add(l, nl, order, &norder, ofl_snippet_records_head(l, nl, order[j]));
	/* The head of an item a line continues (an option's name). */
	for (j = 0; j < ncover; j++)
		order_add(l, nl, order, &norder, item_head(l, nl, order[j]));
	/* The title of the block a line is in (a test's failure). */
	for (j = 0; j < ncover && s != NULL && !s->curmd; j++)
		order_add(l, nl, order, &norder, block_title(l, nl, order[j]));
	/* What changed in the file the question names, marked or not. */
	for (i = fa, j = 0; i < fb && j < DIFF_FILE_SHOW; i++)
		if (diff_changed(l, nl, i) &&
		    ofl_snippet_has_alnum(l[i].s, l[i].n)) {
			order_add(l, nl, order, &norder, i);
			j++;
		}
	/* The example the best line leads to ("use:"), its section. */
	if (s != NULL && s->curmd && ncover > 0) {
		order_add(l, nl, order, &norder, code_after(l, nl, order[0]));
		order_add(l, nl, order, &norder, section_head(l, nl, b));
	}
	/* A record of fields: where it starts and where it ends. */
	if (stanza(l, nl, b, &c, &id)) {
		order_add(l, nl, order, &norder, c);
		order_add(l, nl, order, &norder, id);
	}
	/* The head of a record a line is the body of: whole when short. */
	for (j = 0; j < ncover; j++) {
		if (!record_head(l, nl, order[j], &c, &id))
			continue;
		for (i = c; i <= id; i++)
			if (id - c < RECORD_HEAD || i == c || i == id)
				order_add(l, nl, order, &norder, i);
	}
	norder = order_below(s, l, nl, order, norder, ncover);
	/* What the JSON object of the best line says happened. */
	if (s != NULL && s->curjson)
		order_add(l, nl, order, &norder, message_line(l, nl, b));
	/* A JSON record's name, first when it is short. */
	if (s != NULL && s->curjson && (id = identity_line(l, nl)) < nl) {
		order_add(l, nl, order, &norder, id);
		if (l[id].n < 100 && order[norder - 1] == id) {
			memmove(order + 1, order, (norder - 1) * sizeof *order);
			order[0] = id;
		}
	}
	/* Lines that repeat terms, the most weight first, one a signature. */
	for (j = 0; j < 2; j++) {
		c = nl;
		bv = 0;
		for (i = 0; i < nl; i++) {
			if (l[i].chosen || l[i].nmarks == 0 ||
			    (l[i].sig != 0 && sig_taken(l, nl, order, norder,
			    l[i].sig)))
				continue;
			v = line_worth(&l[i], w, 0, 0) * (i < ORDER_SCAN ?
			    d[i] : 1);
			/* Of lines worth as much, the shortest: more fit. */
			if (v > 0 && (c == nl || v > bv || (v == bv &&
			    l[i].n < l[c].n))) {
				c = i;
				bv = v;
			}
		}
		if (c == nl)
			break;
		order_add(l, nl, order, &norder, c);
		/* Its answer below it ("# To install with pip:"). */
		if (line_opens(&l[c]) && c + 1 < nl && !ofl_snippet_records_blank(&l[c + 1]))
			order_add(l, nl, order, &norder, c + 1);
		order_add(l, nl, order, &norder, ofl_snippet_records_end(l, nl, c));
	}
	norder = order_around(l, nl, b, AROUND, order, norder);
	if (s != NULL && s->curwide)
		norder = order_wide(l, nl, w, b, order, norder);
	for (i = 0; i < nl; i++)
		l[i].chosen = 0;
	return norder;
}

/*
 * What the first ncover lines of order lead to: the answer under a line
 * that introduces it, the line after the best, the code a doc comment
 * is about.
 */
static size_t
order_below(const struct search *s, struct line *l, size_t nl,
    size_t *order, size_t norder, size_t ncover)
{
	size_t	j, c;

	for (j = 0; j < ncover; j++) {
		c = order[j];
		if (line_opens(&l[c])) {
			c = below(l, nl, c);
			order_add(l, nl, order, &norder, c);
			/* Two of it, or what it introduces in turn. */
			if (j == 0 || (c < nl && l[c].n > 0 &&
			    l[c].s[l[c].n - 1] == ':'))
				order_add(l, nl, order, &norder,
				    below(l, nl, c));
		} else if (j == 0)
			order_add(l, nl, order, &norder, c + 1);
		/* What a doc comment the line is in documents. */
		order_add(l, nl, order, &norder, doc_target(s, l, nl,
		    order[j]));
	}
	return norder;
}

/* The lines around line b out to k lines, the line above first. */
static size_t
order_around(struct line *l, size_t nl, size_t b, size_t k, size_t *order,
    size_t norder)
{
	size_t	j;

	if (b > 0)
		order_add(l, nl, order, &norder, b - 1);
	for (j = 1; j <= k; j++) {
		order_add(l, nl, order, &norder, b + j);
		if (b >= j)
			order_add(l, nl, order, &norder, b - j);
	}
	return norder;
}

/*
 * With the room other hits left (snippet.c), the other lines with a term,
 * most worth first, then those around the best out to WIDE: an answer in
 * other words than the question's is often next to the line with them.
 */
static size_t
order_wide(struct line *l, size_t nl, const double *w, size_t b,
    size_t *order, size_t norder)
{
	size_t	i, c;
	double	v, bv;

	while (norder < ORDER_MAX) {
		c = nl;
		bv = 0;
		for (i = 0; i < nl; i++)
			if (!l[i].chosen && l[i].nmarks > 0 && (l[i].sig == 0 ||
			    !sig_taken(l, nl, order, norder, l[i].sig)) &&
			    (v = line_worth(&l[i], w, 0, 0)) > bv) {
				c = i;
				bv = v;
			}
		if (c == nl)
			break;
		order_add(l, nl, order, &norder, c);
	}
	/* Not a line like one shown: that one's note says where it is. */
	for (i = 0; i < nl; i++)
		if (!l[i].chosen && l[i].sig != 0 && sig_taken(l, nl, order,
		    norder, l[i].sig))
			l[i].chosen = 3;
	return order_around(l, nl, b, WIDE, order, norder);
}

