/*
 * store-intake.c: the bytes a writer is given, as both engines take
 * them (store-int.h).
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

void
store_intake_init(struct store_intake *in)
{
	memset(in, 0, sizeof *in);
	in->head = ofl_xmalloc(HEAD_MAX);
	in->buf = ofl_xmalloc(FRAME_MAX);
	ofl_hash_init(&in->hash);
	in->last_byte = -1;
	in->lf.lineno = 1;
}

void
store_intake_free(struct store_intake *in)
{
	free(in->head);
	free(in->buf);
}

int
store_intake(struct store_intake *in, const void *data, size_t n,
    int (*frame)(void *), void *arg)
{
	const unsigned char	*p = data;
	size_t			 take;

	if (n == 0)
		return 0;
	if (in->headlen < HEAD_MAX) {
		take = HEAD_MAX - in->headlen;
		if (take > n)
			take = n;
		memcpy(in->head + in->headlen, p, take);
		in->headlen += take;
	}
	ofl_hash_update(&in->hash, p, n);
	in->bytes += n;
	in->last_byte = p[n - 1];
	while (n > 0) {
		take = FRAME_MAX - in->len;
		if (take > n)
			take = n;
		memcpy(in->buf + in->len, p, take);
		in->nl_pending += ofl_linefeed_add(&in->lf, p, take);
		in->len += take;
		p += take;
		n -= take;
		if (in->len == FRAME_MAX && frame(arg) == -1)
			return -1;
	}
	return 0;
}

uint64_t
store_intake_end(struct store_intake *in, uint64_t lines, struct ofl_meta *m,
    char *hash)
{
	ofl_linefeed_end(&in->lf);
	if (in->bytes > 0 && in->last_byte != '\n')
		lines++;
	ofl_hash_final_hex(&in->hash, hash);
	m->kind = ofl_kind_detect(in->head, in->headlen,
	    in->bytes == in->headlen);
	m->errors = in->lf.ls.errors;
	m->warnings = in->lf.ls.warnings;
	m->first_error = in->lf.ls.first_error;
	return lines;
}
