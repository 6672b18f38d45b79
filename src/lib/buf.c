/*
 * buf.c: a growable byte buffer.  Allocation failure is fatal here, as in
 * tmux's xmalloc: the buffers hold small things (notices, queries).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

void
ofl_buf_init(struct ofl_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void
ofl_buf_free(struct ofl_buf *b)
{
	free(b->data);
	ofl_buf_init(b);
}

void
ofl_buf_reset(struct ofl_buf *b)
{
	b->len = 0;
}

static void
buf_grow(struct ofl_buf *b, size_t more)
{
	size_t	need = b->len + more + 1;

	if (need <= b->cap)
		return;
	if (b->cap == 0)
		b->cap = 256;
	while (b->cap < need)
		b->cap *= 2;
	b->data = ofl_xrealloc(b->data, b->cap);
}

void
ofl_buf_add(struct ofl_buf *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	buf_grow(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void
ofl_buf_addc(struct ofl_buf *b, int c)
{
	buf_grow(b, 1);
	b->data[b->len++] = (char)c;
}

void
ofl_buf_adds(struct ofl_buf *b, const char *s)
{
	ofl_buf_add(b, s, strlen(s));
}

void
ofl_buf_addf(struct ofl_buf *b, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	/* Try in the room there is, then grow once if it was not enough. */
	buf_grow(b, 128);
	va_start(ap, fmt);
	n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		buf_grow(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/*
 * s as a JSON string, quotes included, as jq writes it; a byte that is not
 * part of valid UTF-8 becomes U+FFFD, so the result is always valid JSON.
 */
void
ofl_buf_add_json_str(struct ofl_buf *b, const char *s, size_t n)
{
	static const char	hex[] = "0123456789abcdef";
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, start = 0, k;
	unsigned char		 c;

	ofl_buf_addc(b, '"');
	while (i < n) {
		c = p[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80 && (k = ofl_utf8_len(p + i, n - i)) > 0) {
			i += k;
			continue;
		}
		ofl_buf_add(b, s + start, i - start);
		switch (c) {
		case '"':
			ofl_buf_adds(b, "\\\"");
			break;
		case '\\':
			ofl_buf_adds(b, "\\\\");
			break;
		case '\b':
			ofl_buf_adds(b, "\\b");
			break;
		case '\f':
			ofl_buf_adds(b, "\\f");
			break;
		case '\n':
			ofl_buf_adds(b, "\\n");
			break;
		case '\r':
			ofl_buf_adds(b, "\\r");
			break;
		case '\t':
			ofl_buf_adds(b, "\\t");
			break;
		default:
			if (c >= 0x80)
				ofl_buf_adds(b, "\\ufffd");
			else {
				ofl_buf_adds(b, "\\u00");
				ofl_buf_addc(b, hex[c >> 4]);
				ofl_buf_addc(b, hex[c & 0xf]);
			}
			break;
		}
		i++;
		start = i;
	}
	ofl_buf_add(b, s + start, n - start);
	ofl_buf_addc(b, '"');
}

char *
ofl_buf_str(struct ofl_buf *b)
{
	buf_grow(b, 0);
	b->data[b->len] = '\0';
	return b->data;
}

/* p[0..n) as an FTS5 string: in double quotes, each of its own doubled. */
void
ofl_buf_add_fts_string(struct ofl_buf *b, const char *p, size_t n)
{
	size_t	i;

	ofl_buf_addc(b, '"');
	for (i = 0; i < n; i++) {
		if (p[i] == '"')
			ofl_buf_addc(b, '"');
		ofl_buf_addc(b, p[i]);
	}
	ofl_buf_addc(b, '"');
}

/* s quoted for a POSIX shell, as it is when that is safe. */
char *
ofl_shquote(const char *s)
{
	struct ofl_buf	 b;
	const char	*p;
	int		 plain = *s != '\0';

	for (p = s; *p != '\0'; p++) {
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789-_./:=@%+,", *p) == NULL) {
			plain = 0;
			break;
		}
	}
	if (plain)
		return ofl_xstrdup(s);
	ofl_buf_init(&b);
	ofl_buf_addc(&b, '\'');
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'')
			ofl_buf_adds(&b, "'\\''");
		else
			ofl_buf_addc(&b, *p);
	}
	ofl_buf_addc(&b, '\'');
	return ofl_buf_str(&b);
}

void
ofl_buf_add_count(struct ofl_buf *b, uint64_t n)
{
	char	s[32];

	ofl_fmt_count(s, sizeof s, n);
	ofl_buf_adds(b, s);
}

void
ofl_buf_add_size(struct ofl_buf *b, uint64_t n)
{
	char	s[32];

	ofl_fmt_size(s, sizeof s, n);
	ofl_buf_adds(b, s);
}

void
ofl_buf_add_json_cstr(struct ofl_buf *b, const char *s)
{
	if (s == NULL)
		ofl_buf_adds(b, "null");
	else
		ofl_buf_add_json_str(b, s, strlen(s));
}
