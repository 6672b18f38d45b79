/*
 * render.c: bytes made safe to show.  Valid UTF-8 passes, and so do tab
 * and newline unless the output must stay on one line; any other byte
 * becomes \xNN.  Every tool that shows stored content (the notice, the
 * snippets of a search, the error signatures of the index) renders it
 * here, so a hostile artifact cannot drive the reader's terminal.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

size_t
ofl_render(struct ofl_buf *out, const unsigned char *p, size_t n, size_t max,
    int flags, size_t *used)
{
	static const char	hex[] = "0123456789abcdef";
	size_t			i = 0, len = 0, run = 0, l;
	unsigned char		c;

	while (i < n) {
		c = p[i];
		if ((c >= 0x20 && c < 0x7f) ||
		    (!(flags & OFL_RENDER_ONELINE) &&
		    (c == '\t' || c == '\n')))
			l = 1;
		else if (c >= 0x80)
			l = ofl_utf8_len(p + i, n - i);
		else
			l = 0;
		if (l > 0) {
			if (len + l > max)
				break;
			len += l;
			i += l;
			run += l;
			continue;
		}
		if (len + 4 > max)
			break;
		if (out != NULL) {
			ofl_buf_add(out, p + i - run, run);
			ofl_buf_addc(out, '\\');
			ofl_buf_addc(out, 'x');
			ofl_buf_addc(out, hex[c >> 4]);
			ofl_buf_addc(out, hex[c & 0xf]);
		}
		run = 0;
		len += 4;
		i++;
	}
	if (out != NULL)
		ofl_buf_add(out, p + i - run, run);
	if (used != NULL)
		*used = i;
	return len;
}

void
ofl_render_safe(struct ofl_buf *out, const unsigned char *p, size_t n,
    size_t max)
{
	ofl_render(out, p, n, max, 0, NULL);
}

size_t
ofl_render_oneline(struct ofl_buf *out, const unsigned char *p, size_t n,
    size_t max)
{
	size_t	used;

	ofl_render(out, p, n, max, OFL_RENDER_ONELINE, &used);
	return used;
}
