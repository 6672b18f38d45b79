/*
 * blake2b.c: BLAKE2b (RFC 7693) with a 256-bit digest: the content hash
 * of stores written before XXH3-128 (see hash.c), still checked.
 */
#include "config.h"

#include <string.h>

#include "ofl.h"
#include "banned.h"

static const uint64_t iv[8] = {
	0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL,
	0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
	0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
	0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL
};

static const unsigned char sigma[12][16] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
	{ 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
	{ 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
	{ 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
	{ 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
	{ 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
	{ 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
	{ 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
	{ 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 }
};

#define ROTR64(x, n)	(((x) >> (n)) | ((x) << (64 - (n))))
#define G(a, b, c, d, x, y) do {					\
	a = a + b + (x);						\
	d = ROTR64(d ^ a, 32);						\
	c = c + d;							\
	b = ROTR64(b ^ c, 24);						\
	a = a + b + (y);						\
	d = ROTR64(d ^ a, 16);						\
	c = c + d;							\
	b = ROTR64(b ^ c, 63);						\
} while (0)

static uint64_t
load64(const unsigned char *p)
{
	uint64_t	v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static void
compress(struct ofl_b2 *s, const unsigned char *block, int last)
{
	uint64_t	v[16], m[16];
	int		i;

	for (i = 0; i < 16; i++)
		m[i] = load64(block + 8 * i);
	for (i = 0; i < 8; i++) {
		v[i] = s->h[i];
		v[i + 8] = iv[i];
	}
	v[12] ^= s->t[0];
	v[13] ^= s->t[1];
	if (last)
		v[14] = ~v[14];
	for (i = 0; i < 12; i++) {
		const unsigned char *z = sigma[i];

		G(v[0], v[4], v[8], v[12], m[z[0]], m[z[1]]);
		G(v[1], v[5], v[9], v[13], m[z[2]], m[z[3]]);
		G(v[2], v[6], v[10], v[14], m[z[4]], m[z[5]]);
		G(v[3], v[7], v[11], v[15], m[z[6]], m[z[7]]);
		G(v[0], v[5], v[10], v[15], m[z[8]], m[z[9]]);
		G(v[1], v[6], v[11], v[12], m[z[10]], m[z[11]]);
		G(v[2], v[7], v[8], v[13], m[z[12]], m[z[13]]);
		G(v[3], v[4], v[9], v[14], m[z[14]], m[z[15]]);
	}
	for (i = 0; i < 8; i++)
		s->h[i] ^= v[i] ^ v[i + 8];
}

static void
counter_add(struct ofl_b2 *s, uint64_t n)
{
	s->t[0] += n;
	if (s->t[0] < n)
		s->t[1]++;
}

void
ofl_b2_init(struct ofl_b2 *s)
{
	int	i;

	memset(s, 0, sizeof *s);
	s->outlen = 32;
	for (i = 0; i < 8; i++)
		s->h[i] = iv[i];
	s->h[0] ^= 0x01010000ULL ^ s->outlen;
}

void
ofl_b2_update(struct ofl_b2 *s, const void *data, size_t n)
{
	const unsigned char	*p = data;
	size_t			 take;

	/* Keep the last block buffered: it may be the final one. */
	while (n > 0) {
		if (s->c == 128) {
			counter_add(s, 128);
			compress(s, s->b, 0);
			s->c = 0;
		}
		if (s->c == 0) {
			while (n > 128) {
				counter_add(s, 128);
				compress(s, p, 0);
				p += 128;
				n -= 128;
			}
		}
		take = 128 - s->c;
		if (take > n)
			take = n;
		memcpy(s->b + s->c, p, take);
		s->c += take;
		p += take;
		n -= take;
	}
}

void
ofl_b2_final_hex(struct ofl_b2 *s, char out[65])
{
	static const char	hex[] = "0123456789abcdef";
	unsigned char		b;
	size_t			i;

	counter_add(s, s->c);
	memset(s->b + s->c, 0, 128 - s->c);
	compress(s, s->b, 1);
	for (i = 0; i < s->outlen; i++) {
		b = (unsigned char)(s->h[i / 8] >> (8 * (i % 8)));
		out[2 * i] = hex[b >> 4];
		out[2 * i + 1] = hex[b & 0xf];
	}
	out[2 * s->outlen] = '\0';
}
