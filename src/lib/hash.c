/*
 * hash.c: the content hash.  XXH3-128 over the whole content, printed
 * as xxh128sum prints it.  It finds duplicates fast; the store compares
 * the content itself before two artifacts share it, so a crafted
 * collision costs a comparison, never a wrong answer.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ofl.h"
#include "banned.h"

_Static_assert(sizeof(XXH3_state_t) + 64 <= sizeof(((struct ofl_hash *)0)->xs),
    "struct ofl_hash has no room for an XXH3 state");

/* The state must be 64-byte aligned: find it inside xs on every call. */
static XXH3_state_t *
xstate(struct ofl_hash *h)
{
	uintptr_t	p = (uintptr_t)h->xs;

	return (XXH3_state_t *)(void *)((p + 63) & ~(uintptr_t)63);
}

void
ofl_hash_init(struct ofl_hash *h)
{
	h->legacy = 0;
	(void)XXH3_128bits_reset(xstate(h));
}

void
ofl_hash_init_like(struct ofl_hash *h, const char *hex)
{
	if (hex != NULL && strlen(hex) == 64) {
		h->legacy = 1;
		ofl_b2_init(&h->b2);
	} else
		ofl_hash_init(h);
}

void
ofl_hash_update(struct ofl_hash *h, const void *p, size_t n)
{
	if (h->legacy)
		ofl_b2_update(&h->b2, p, n);
	else if (n > 0)
		(void)XXH3_128bits_update(xstate(h), p, n);
}

void
ofl_hash_final_hex(struct ofl_hash *h, char out[OFL_HASH_HEX])
{
	static const char	hex[] = "0123456789abcdef";
	XXH128_canonical_t	c;
	size_t			i;

	if (h->legacy) {
		ofl_b2_final_hex(&h->b2, out);
		return;
	}
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(xstate(h)));
	for (i = 0; i < sizeof c.digest; i++) {
		out[2 * i] = hex[c.digest[i] >> 4];
		out[2 * i + 1] = hex[c.digest[i] & 0xf];
	}
	out[2 * sizeof c.digest] = '\0';
}
