/*
 * fmt-csv.c: CSV and TSV.  How a table is told from other texts (every
 * record with as many fields as the header), how it is cut into chunks
 * (groups of rows, each starting with the header) and what its notice
 * says (the header's fields).
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define KIND_CSVRECS	200		/* records detection looks at */
#define CSV_TARGET	2048		/* a chunk: bytes */
#define CSV_ROWS	50		/* ... or rows */
#define CSV_RECORD_MAX	(64 * 1024)	/* an unbalanced quote ends here */
#define SCAN_SMALL	(64 * 1024)	/* the header is read from this */
#define SUMMARY_MAX	300		/* bytes of one summary line */

static int	 csv_emit(struct ofl_chunker *, struct ofl_chunk_win *,
		    struct ofl_buf *, uint64_t, uint64_t);
static size_t	 csv_field(const char *, size_t, size_t, int,
		    struct ofl_buf *);

/*
 * Detection.
 */

/*
 * CSV (delim ',') or TSV (delim '\t'): at least two records, the first
 * with at least two fields, every later record with as many.  Quotes
 * count only at the start of a field, as in RFC 4180.  Prose that
 * happens to have one comma per line is not a table: there nearly every
 * comma is followed by a space.
 */
int
ofl_fmt_csv_detect(const unsigned char *p, size_t n, int complete, int delim,
    size_t *cols)
{
	size_t	i = 0, fields, records = 0, ndelim = 0, spaced = 0;
	size_t	first = 0, end, lastrec, rend;
	int	inq, atstart;

	*cols = 0;
	end = n;
	if (!complete) {
		/* Drop the last, partial line. */
		while (end > 0 && p[end - 1] != '\n')
			end--;
	}
	while (i < end && records < KIND_CSVRECS) {
		/* One record. */
		fields = 1;
		inq = 0;
		atstart = 1;
		lastrec = i;
		for (; i < end; i++) {
			unsigned char c = p[i];

			if (inq) {
				if (c == '"') {
					if (i + 1 < end && p[i + 1] == '"')
						i++;
					else
						inq = 0;
				}
				continue;
			}
			if (c == '"' && atstart) {
				inq = 1;
				atstart = 0;
				continue;
			}
			if (c == delim) {
				fields++;
				ndelim++;
				if (i + 1 < end && p[i + 1] == ' ')
					spaced++;
				atstart = 1;
				continue;
			}
			if (c == '\n')
				break;
			if (c != '\r')
				atstart = 0;
		}
		if (inq)
			return 0;	/* an unclosed quote */
		rend = i;
		if (i < end)
			i++;		/* the newline */
		if (fields == 1 && ofl_blank(p + lastrec, rend - lastrec -
		    (rend > lastrec && p[rend - 1] == '\r'))) {
			/* Blank lines may only end the text. */
			while (i < end && (p[i] == '\n' || p[i] == '\r' ||
			    p[i] == ' ' || p[i] == '\t'))
				i++;
			if (i < end)
				return 0;
			break;
		}
		if (records == 0 && fields < 2)
			return 0;
		if (records == 0)
			first = fields;
		else if (fields != first)
			return 0;
		records++;
	}
	if (records < 2 || first < 2)
		return 0;
	if (delim == ',' && spaced * 10 >= ndelim * 9 && first <= 3)
		return 0;
	if (first == 2 && records < 3)
		return 0;
	*cols = first;
	return 1;
}

/*
 * Chunking.
 */

/*
 * CSV and TSV: groups of CSV_ROWS records or CSV_TARGET bytes, each
 * chunk's text starting with the header record (a table's: the lines up
 * to hdr_last, what is over its header and the rule under it).  A
 * quoted CSV field may hold newlines: records are kept whole.
 */

static int
csv_emit(struct ofl_chunker *ck, struct ofl_chunk_win *w, struct ofl_buf *t,
    uint64_t a, uint64_t b)
{
	ofl_buf_reset(t);
	if (a == b)
		ofl_buf_addf(t, "row %llu", (unsigned long long)a);
	else
		ofl_buf_addf(t, "rows %llu-%llu", (unsigned long long)a,
		    (unsigned long long)b);
	return ofl_chunk_win_emit(ck, w, t->data, t->len);
}

int
ofl_fmt_csv_chunk(struct ofl_chunker *ck, struct ofl_chunk_in *s, int sep,
    uint64_t hdr_last)
{
	struct ofl_chunk_lines	 it;
	struct ofl_chunk_line	 l;
	struct ofl_chunk_win	 w;
	struct ofl_buf	 t;
	const char	*q, *e;
	uint64_t	 row = 0, first = 0, hoff = 0, hline = 1, hlend = 1;
	size_t		 rows = 0, rec = 0, hlen = 0;
	int		 r, inq = 0, header = 1, rv = 0;

	ofl_chunk_lines_init(&it, s, 0, 1, 0);
	ofl_chunk_win_init(&w);
	ofl_buf_init(&t);
	while ((r = ofl_chunk_lines_next(&it, &l)) == 1) {
		if (l.first && !inq) {
			rec = 0;
			if (header && hlen > 0 && l.lineno > hdr_last) {
				header = 0;
				w.hdr = w.text.len;
			}
			if (!header) {
				if (rows > 0 && (ofl_chunk_win_raw(&w) + l.len >
				    CSV_TARGET || rows >= CSV_ROWS)) {
					if (csv_emit(ck, &w, &t, first, row))
						goto stop;
					rows = 0;
				}
				row++;
				if (rows++ == 0)
					first = row;
			}
		} else if (!header && w.nlines > 0 &&
		    ofl_chunk_win_raw(&w) + l.len > OFL_CHUNK_HARD_MAX) {
			if (csv_emit(ck, &w, &t, first, row))
				goto stop;
			rows = 1;
			first = row;
		}
		if (header) {
			/* The header goes to the text only, at most 16 KB. */
			if (hlen == 0) {
				hoff = l.off;
				hline = l.lineno;
			}
			hlend = l.lineno;
			hlen += l.len;
			if (w.text.len < OFL_CHUNK_HEADER_MAX)
				ofl_buf_add(&w.text, l.p, l.len <
				    OFL_CHUNK_HEADER_MAX - w.text.len ? l.len :
				    OFL_CHUNK_HEADER_MAX - w.text.len);
		} else
			ofl_chunk_win_add(&w, &l);
		rec += l.len;
		if (sep == ',') {
			for (q = l.p, e = l.p + l.len; q < e &&
			    (q = memchr(q, '"', (size_t)(e - q))) != NULL; q++)
				inq = !inq;
			if (inq && rec > CSV_RECORD_MAX)
				inq = 0;
		}
	}
	if (r < 0) {
		rv = -1;
		goto out;
	}
	if (rows > 0) {
		if (csv_emit(ck, &w, &t, first, row))
			goto stop;
	} else if (header && hlen > 0) {
		/* A header and no rows: the header is all there is. */
		if (ofl_chunk_emit(ck, "header", 6, w.text.data, w.text.len,
		    hoff, hoff + hlen, hline, hlend))
			goto stop;
	}
	goto out;
stop:
	rv = 1;
out:
	ofl_buf_free(&t);
	ofl_chunk_win_free(&w);
	ofl_chunk_lines_free(&it);
	return rv;
}

/*
 * The summary.
 */

/* CSV and TSV: the header's fields. */
int
ofl_fmt_csv_summary(const struct ofl_src *src, const struct ofl_meta *m,
    int delim, struct ofl_summary *sum)
{
	unsigned char	*buf;
	struct ofl_buf	 f, js;
	size_t		 len, i = 0, ncols = 0, shown = 0, used;
	int		 inq, more = 0;

	(void)m;
	if ((buf = ofl_src_head(src, SCAN_SMALL, &len)) == NULL)
		return -1;
	ofl_buf_init(&f);
	ofl_buf_init(&js);
	i = ofl_bom(buf, len);
	ofl_buf_adds(&js, "[");
	while (i < len) {
		/* One field. */
		ofl_buf_reset(&f);
		inq = i < len && buf[i] == '"';
		if (inq)
			i++;
		for (; i < len; i++) {
			if (inq) {
				if (buf[i] == '"') {
					if (i + 1 < len && buf[i + 1] == '"')
						i++;
					else {
						inq = 0;
						continue;
					}
				}
			} else if (buf[i] == delim || buf[i] == '\n' ||
			    buf[i] == '\r')
				break;
			ofl_buf_addc(&f, buf[i]);
		}
		ncols++;
		if (!more && (shown == 0 || sum->text.len + f.len + 32 <=
		    SUMMARY_MAX)) {
			ofl_buf_adds(&sum->text, shown == 0 ? "" : ", ");
			ofl_render(&sum->text, (unsigned char *)f.data, f.len,
			    40, OFL_RENDER_ONELINE, &used);
			if (used < f.len)
				ofl_buf_adds(&sum->text, "...");
			if (shown > 0)
				ofl_buf_addc(&js, ',');
			ofl_buf_add_json_str(&js, f.data ? f.data : "", f.len);
			shown++;
		} else
			more = 1;
		if (i >= len || buf[i] != delim)
			break;
		i++;
	}
	ofl_buf_addc(&js, ']');
	if (shown > 0) {
		/* Put the count in front of the names. */
		struct ofl_buf hdr;

		ofl_buf_init(&hdr);
		ofl_buf_addf(&hdr, "columns (%zu): ", ncols);
		ofl_buf_add(&hdr, sum->text.data, sum->text.len);
		if (ncols > shown)
			ofl_buf_addf(&hdr, " (+%zu more)", ncols - shown);
		ofl_buf_addc(&hdr, '\n');
		ofl_buf_free(&sum->text);
		sum->text = hdr;
		ofl_summary_key(sum, "columns");
		ofl_buf_add(&sum->json, js.data, js.len);
	}
	ofl_buf_free(&f);
	ofl_buf_free(&js);
	free(buf);
	return 0;
}

/*
 * Records.
 */

/*
 * 1 if a record (the lines joined so far, n bytes) ends here: its
 * quotes are balanced.  Quotes count only in CSV.
 */
int
ofl_fmt_csv_complete(const char *p, size_t n, int delim)
{
	size_t	i, q = 0;

	if (delim != ',')
		return 1;
	for (i = 0; i < n; i++)
		if (p[i] == '"')
			q++;
	return q % 2 == 0;
}

/*
 * The field that starts at byte i of a record of n bytes: where it ends
 * (its delimiter, or n), its bytes appended to out (when not NULL) with
 * its quotes undone ("a ""b""" is a "b").  Quotes count only in CSV.
 */
static size_t
csv_field(const char *p, size_t n, size_t i, int delim, struct ofl_buf *out)
{
	int	inq = delim == ',' && i < n && p[i] == '"';

	if (inq)
		i++;
	for (; i < n; i++) {
		if (inq && p[i] == '"') {
			if (i + 1 < n && p[i + 1] == '"')
				i++;
			else {
				inq = 0;
				continue;
			}
		} else if (!inq && p[i] == delim)
			break;
		if (out != NULL)
			ofl_buf_addc(out, p[i]);
	}
	return i;
}

size_t
ofl_fmt_csv_field_end(const char *p, size_t n, int delim)
{
	return csv_field(p, n, 0, delim, NULL);
}

/*
 * A record's fields, quotes undone, appended to out one after another;
 * off[i] and len[i] say where each is in out.  Returns the number of
 * fields; past max of them, the rest are counted but not kept.
 */
size_t
ofl_fmt_csv_split(const char *p, size_t n, int delim, struct ofl_buf *out,
    size_t *off, size_t *len, size_t max)
{
	size_t	i = 0, nf = 0, start;

	ofl_buf_reset(out);
	while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == '\n'))
		n--;
	for (;;) {
		start = out->len;
		i = csv_field(p, n, i, delim, out);
		if (nf < max) {
			off[nf] = start;
			len[nf] = out->len - start;
		} else
			out->len = start;	/* not kept */
		nf++;
		if (i >= n)
			break;
		i++;		/* the delimiter */
	}
	return nf;
}
