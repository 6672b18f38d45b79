/*
 * src.c: the formats layer's view of an artifact's bytes.
 *
 * A struct ofl_src is a table of operations over something seekable by
 * byte and by line.  The formats never see the store: they are handed a
 * source, and the store's reader is one kind of source.
 */

#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

uint64_t
ofl_src_bytes(const struct ofl_src *s)
{
	return s->bytes(s->arg);
}

uint64_t
ofl_src_lines(const struct ofl_src *s)
{
	return s->lines(s->arg);
}

int
ofl_src_seek(const struct ofl_src *s, uint64_t off)
{
	return s->seek(s->arg, off);
}

int64_t
ofl_src_seek_line(const struct ofl_src *s, uint64_t line)
{
	return s->seek_line(s->arg, line);
}

ssize_t
ofl_src_read(const struct ofl_src *s, void *buf, size_t n)
{
	return s->read(s->arg, buf, n);
}

ssize_t
ofl_src_read_full(const struct ofl_src *s, void *buf, size_t n)
{
	unsigned char	*p = buf;
	size_t		 got = 0;
	ssize_t		 k;

	while (got < n) {
		if ((k = s->read(s->arg, p + got, n - got)) == -1)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

ssize_t
ofl_src_pread(const struct ofl_src *s, void *buf, size_t n, uint64_t off)
{
	if (s->seek(s->arg, off) == -1)
		return -1;
	return ofl_src_read_full(s, buf, n);
}

uint64_t
ofl_src_tell(const struct ofl_src *s)
{
	return s->tell(s->arg);
}

int64_t
ofl_src_line_of(const struct ofl_src *s, uint64_t off)
{
	return s->line_of(s->arg, off);
}

void
ofl_summary_init(struct ofl_summary *s)
{
	ofl_buf_init(&s->text);
	ofl_buf_init(&s->json);
	s->filter = NULL;
	s->member = NULL;
	s->prose_errors = 0;
}

void
ofl_summary_free(struct ofl_summary *s)
{
	ofl_buf_free(&s->text);
	ofl_buf_free(&s->json);
	free(s->filter);
	free(s->member);
	s->filter = NULL;
	s->member = NULL;
	s->prose_errors = 0;
}

void
ofl_summary_key(struct ofl_summary *s, const char *k)
{
	if (s->json.len > 0)
		ofl_buf_addc(&s->json, ',');
	ofl_buf_add_json_str(&s->json, k, strlen(k));
	ofl_buf_addc(&s->json, ':');
}

unsigned char *
ofl_src_head(const struct ofl_src *src, size_t n, size_t *len)
{
	unsigned char	*buf;
	ssize_t		 k;

	if (n > ofl_src_bytes(src))
		n = (size_t)ofl_src_bytes(src);
	buf = ofl_xmalloc(n + 1);
	if ((k = ofl_src_pread(src, buf, n, 0)) == -1) {
		free(buf);
		return NULL;
	}
	*len = (size_t)k;
	return buf;
}
