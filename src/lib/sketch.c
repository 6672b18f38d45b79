/*
 * sketch.c: a frame's sketch.  The byte trigrams that start at every
 * STRIDE-th offset of a frame, each byte or'ed with 0x20 (so ASCII
 * letters are folded to lower case), as a bitmap of OFL_SKETCH_BYTES
 * bytes with one bit per trigram (a multiplicative hash).  A string of
 * STRIDE + 2 bytes or more is in a frame only if, for one of its offsets
 * r below STRIDE, every trigram starting at r, r + STRIDE, ... is in the
 * frame's sketch: the scan of content not yet indexed reads only the
 * frames whose sketch may hold a term.  A bit set by another trigram
 * costs a frame read for nothing; a string in the frame is never
 * missed.  The stride divides the cost of sketching, which a capture
 * pays.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

#define SKETCH_SHIFT	(32 - OFL_SKETCH_LOG2)
#define STRIDE		3

/* Two trigrams from each load of eight bytes, where they load in order. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    STRIDE == 3
#define WIDE		1
#else
#define WIDE		0
#endif

/* The bit of v's low three bytes, each already or'ed with 0x20. */
static inline uint32_t
tri_bit_of(uint64_t v)
{
	return ((uint32_t)v & 0xffffff) * 0x9e3779b1U >> SKETCH_SHIFT;
}

/* The bit of the trigram at p. */
static inline uint32_t
tri_bit(const unsigned char *p)
{
	return tri_bit_of((uint32_t)(p[0] | 0x20) | (uint32_t)(p[1] | 0x20) <<
	    8 | (uint32_t)(p[2] | 0x20) << 16);
}

static inline void
bit_set(unsigned char bits[OFL_SKETCH_BYTES], uint32_t h)
{
	bits[h >> 3] |= (unsigned char)(1U << (h & 7));
}

void
ofl_sketch_build(const unsigned char *p, size_t n,
    unsigned char bits[OFL_SKETCH_BYTES])
{
	uint64_t	x;
	size_t		i = 0;

	memset(bits, 0, OFL_SKETCH_BYTES);
	/* Bytes 0-2 and 3-5 of each eight. */
	for (; WIDE && i + 8 <= n; i += 2 * STRIDE) {
		memcpy(&x, p + i, sizeof x);
		x |= 0x2020202020202020ULL;
		bit_set(bits, tri_bit_of(x));
		bit_set(bits, tri_bit_of(x >> 24));
	}
	for (; i + 3 <= n; i += STRIDE)
		bit_set(bits, tri_bit(p + i));
}

/* 1 when s[0..n) may be in the frame of the sketch: always if short. */
int
ofl_sketch_may_have(const unsigned char bits[OFL_SKETCH_BYTES],
    const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	uint32_t		 h;
	size_t			 i, r;

	if (n < STRIDE + 2)
		return 1;
	for (r = 0; r < STRIDE; r++) {
		for (i = r; i + 3 <= n; i += STRIDE) {
			h = tri_bit(p + i);
			if (!(bits[h >> 3] & (1U << (h & 7))))
				break;
		}
		if (i + 3 > n)
			return 1;
	}
	return 0;
}
