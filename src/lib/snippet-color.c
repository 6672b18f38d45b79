/*
 * snippet-color.c: the color of ofl-search's output on a terminal.  The
 * printer (snippet.c) writes plain bytes and records, while it writes,
 * the spans to color (a match, a line number, a reference); the spans
 * are put in once the output is complete, so that every cut and every
 * budget counts the bytes a pipe would get.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "search.h"
#include "banned.h"

#define COLOR_END	"\033[m"

/* Record a span of the output to color, when spans are recorded. */
void
ofl_snippet_span_add(struct search *s, size_t off, size_t len,
    const char *color)
{
	if (!s->record || len == 0)
		return;
	if (s->nsp == s->capsp) {
		s->capsp = s->capsp == 0 ? 64 : s->capsp * 2;
		s->sp = ofl_xrealloc(s->sp, s->capsp * sizeof *s->sp);
	}
	s->sp[s->nsp].off = off;
	s->sp[s->nsp].len = len;
	s->sp[s->nsp].color = color;
	s->nsp++;
}

/* The output was cut back to len: forget the spans past it. */
void
ofl_snippet_span_cut(struct search *s, size_t len)
{
	while (s->nsp > 0 && s->sp[s->nsp - 1].off + s->sp[s->nsp - 1].len >
	    len)
		s->nsp--;
}

/* Color the spans of out (from start on), in order. */
void
ofl_snippet_colorize(struct search *s, struct ofl_buf *out, size_t start)
{
	struct ofl_buf	c;
	size_t		i, pos = start;

	if (s->nsp == 0)
		return;
	ofl_buf_init(&c);
	for (i = 0; i < s->nsp; i++) {
		if (s->sp[i].off < pos || s->sp[i].off + s->sp[i].len >
		    out->len)
			continue;
		ofl_buf_add(&c, out->data + pos, s->sp[i].off - pos);
		ofl_buf_adds(&c, s->sp[i].color);
		ofl_buf_add(&c, out->data + s->sp[i].off, s->sp[i].len);
		ofl_buf_adds(&c, COLOR_END);
		pos = s->sp[i].off + s->sp[i].len;
	}
	ofl_buf_add(&c, out->data + pos, out->len - pos);
	out->len = start;
	ofl_buf_add(out, c.data, c.len);
	ofl_buf_free(&c);
	s->nsp = 0;
}
