/*
 * mcp-item.c: the binary items of MCP results (images, audio, blobs of
 * embedded resources) that ofl-mcp keeps out of a reply.  Each is stored
 * whole, decoded from base64, with its content type and MIME type in the
 * artifact's label, "SERVER/TOOL (TYPE MIME)", so that ofl_extract can
 * hand it back later as the same kind of content block.
 */
#include "config.h"

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "ofl.h"
#include "banned.h"

/* Most bytes of a stored item that ofl_extract hands back whole. */
#define ITEM_MAX	(256ULL * 1024 * 1024)

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int
ofl_mcp_b64_decode(const char *s, size_t n, struct ofl_buf *out)
{
	unsigned int	acc = 0;
	int		bits = 0, v;
	size_t		i;

	for (i = 0; i < n; i++) {
		unsigned char	c = (unsigned char)s[i];

		if (c >= 'A' && c <= 'Z')
			v = c - 'A';
		else if (c >= 'a' && c <= 'z')
			v = c - 'a' + 26;
		else if (c >= '0' && c <= '9')
			v = c - '0' + 52;
		else if (c == '+' || c == '-')
			v = 62;
		else if (c == '/' || c == '_')
			v = 63;
		else if (c == '=' || isspace(c))
			continue;
		else
			return -1;
		acc = (acc << 6) | (unsigned int)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			ofl_buf_addc(out, (int)((acc >> bits) & 0xff));
		}
	}
	return 0;
}

void
ofl_mcp_b64_encode(const unsigned char *p, size_t n, struct ofl_buf *out)
{
	size_t		i;
	unsigned int	v;
	char		q[4];

	for (i = 0; i + 2 < n; i += 3) {
		v = (unsigned int)p[i] << 16 | (unsigned int)p[i + 1] << 8 |
		    p[i + 2];
		q[0] = b64[v >> 18];
		q[1] = b64[(v >> 12) & 63];
		q[2] = b64[(v >> 6) & 63];
		q[3] = b64[v & 63];
		ofl_buf_add(out, q, 4);
	}
	if (i < n) {
		v = (unsigned int)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned int)p[i + 1] << 8;
		q[0] = b64[v >> 18];
		q[1] = b64[(v >> 12) & 63];
		q[2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		q[3] = '=';
		ofl_buf_add(out, q, 4);
	}
}

/*
 * The label of a stored item: "SERVER/TOOL (TYPE MIME)".  Types and MIME
 * types with spaces or parentheses are left out (they cannot be read
 * back).
 */
void
ofl_mcp_item_label(struct ofl_buf *b, const char *server, const char *tool,
    const char *type, const char *mime)
{
	ofl_buf_addf(b, "%s/%s", server, tool);
	if (type == NULL || mime == NULL || *type == '\0' || *mime == '\0' ||
	    strpbrk(type, " ()") != NULL || strpbrk(mime, " ()") != NULL)
		return;
	ofl_buf_addf(b, " (%s %s)", type, mime);
}

/* The type and MIME type of a label made above; 0 if it has none. */
static int
label_item(const char *label, char *type, size_t tlen, char *mime,
    size_t mlen)
{
	const char	*open, *sp;
	size_t		 n;

	if (label == NULL || (n = strlen(label)) < 5 || label[n - 1] != ')')
		return 0;
	if ((open = strrchr(label, '(')) == NULL || open == label ||
	    open[-1] != ' ')
		return 0;
	if ((sp = strchr(open, ' ')) == NULL || sp - open - 1 == 0 ||
	    (size_t)(sp - open - 1) >= tlen ||
	    (size_t)(label + n - 1 - sp - 1) >= mlen || label + n - 1 -
	    sp - 1 == 0)
		return 0;
	memcpy(type, open + 1, (size_t)(sp - open - 1));
	type[sp - open - 1] = '\0';
	memcpy(mime, sp + 1, (size_t)(label + n - 1 - sp - 1));
	mime[label + n - 1 - sp - 1] = '\0';
	return strcmp(type, "image") == 0 || strcmp(type, "audio") == 0 ||
	    strcmp(type, "resource") == 0 || strcmp(type, "blob") == 0;
}

int
ofl_mcp_item_get(struct ofl_store *st, const char *ref, jv *out)
{
	struct ofl_reader	*r = NULL;
	const struct ofl_meta	*m;
	struct ofl_buf		 raw, enc;
	char			 id[OFL_ID_MAX + 1], type[32], mime[128];
	char			 uri[OFL_ID_MAX + 8];
	uint64_t		 n;
	int			 rv = -1;

	*out = jv_invalid();
	ofl_buf_init(&raw);
	ofl_buf_init(&enc);
	if (st == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "no store");
		return -1;
	}
	if (ofl_store_resolve(st, ref, id) == -1)
		return -1;
	if ((r = ofl_reader_open(st, id)) == NULL)
		return -1;
	m = ofl_reader_meta(r);
	if (!label_item(m->label, type, sizeof type, mime, sizeof mime)) {
		rv = 0;
		goto out;
	}
	n = ofl_reader_bytes(r);
	if (n > ITEM_MAX) {
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s is too large to hand back "
		    "whole", id);
		goto out;
	}
	for (;;) {
		char	 chunk[65536];
		ssize_t	 got;

		if ((got = ofl_reader_read(r, chunk, sizeof chunk)) == -1)
			goto out;
		if (got == 0)
			break;
		ofl_buf_add(&raw, chunk, (size_t)got);
	}
	ofl_mcp_b64_encode((const unsigned char *)raw.data, raw.len, &enc);
	if (strcmp(type, "image") == 0 || strcmp(type, "audio") == 0)
		*out = JV_OBJECT(jv_string("type"), jv_string(type),
		    jv_string("data"), jv_string_sized(enc.data,
		    (int)enc.len), jv_string("mimeType"), jv_string(mime));
	else {
		snprintf(uri, sizeof uri, "ofl:%s", id);
		*out = JV_OBJECT(jv_string("type"), jv_string("resource"),
		    jv_string("resource"), JV_OBJECT(jv_string("uri"),
		    jv_string(uri), jv_string("mimeType"), jv_string(mime),
		    jv_string("blob"), jv_string_sized(enc.data,
		    (int)enc.len)));
	}
	ofl_store_touch(st, id);
	rv = 1;
out:
	ofl_reader_close(r);
	ofl_buf_free(&raw);
	ofl_buf_free(&enc);
	return rv;
}
