/*
 * test-sketch.c: a frame's sketch (sketch.c) never misses a string of
 * the frame, in either case, at any place, and seldom lets
 * through one that is not.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "tap.h"

#define TEXT	(1024 * 1024)

static uint32_t	seed = 12345;

static uint32_t
rnd(void)
{
	seed = seed * 1103515245U + 12345U;
	return seed >> 8;
}

int
main(void)
{
	static const char	*words[] = {
		"connection", "refused", "worker", "INFO", "ERROR", "timeout",
		"GET", "/api/v1/items", "status=200", "took", "ms", "retry",
		"2026-12-04T10:00:00Z", "pool", "NullPointerException"
	};
	unsigned char		 bits[OFL_SKETCH_BYTES], *text;
	char			 s[32];
	size_t			 len = 0, i, k, n, off;
	int			 miss = 0, fp = 0;

	text = malloc(TEXT);
	while (len < TEXT - 64) {
		const char *w = words[rnd() % (sizeof(words) / sizeof(words[0]))];

		n = strlen(w);
		memcpy(text + len, w, n);
		len += n;
		len += (size_t)snprintf((char *)text + len, 16, " %u%c",
		    rnd() % 100000, rnd() % 8 ? ' ' : '\n');
	}
	ofl_sketch_build(text, len, bits);
	/* Every substring is let through, in any case. */
	for (i = 0; i < 20000; i++) {
		n = 5 + rnd() % 20;
		off = rnd() % (len - n);
		for (k = 0; k < n; k++) {
			s[k] = (char)text[off + k];
			if (rnd() % 2 && s[k] >= 'a' && s[k] <= 'z')
				s[k] -= 32;
			else if (rnd() % 2 && s[k] >= 'A' && s[k] <= 'Z')
				s[k] += 32;
		}
		miss += !ofl_sketch_may_have(bits, s, n);
	}
	ok(miss == 0, "20,000 substrings of 5 to 24 bytes, case changed: "
	    "%d missed", miss);
	/* Strings of 6 letters not in the text: few let through. */
	for (i = 0; i < 10000; i++) {
		for (k = 0; k < 6; k++)
			s[k] = (char)('a' + rnd() % 26);
		s[6] = '\0';
		fp += ofl_sketch_may_have(bits, s, 6);
	}
	ok(fp < 500, "10,000 strings not there: %d let through", fp);
	ok(ofl_sketch_may_have(bits, "zqxw", 4) && ofl_sketch_may_have(bits,
	    "", 0), "shorter than 5: always let through");
	ofl_sketch_build((const unsigned char *)"ab", 2, bits);
	for (i = 0, n = 0; i < OFL_SKETCH_BYTES; i++)
		n += bits[i] != 0;
	ok(n == 0 && !ofl_sketch_may_have(bits, "abcde", 5),
	    "a text shorter than 3: an empty sketch");
	/* Odd and even places, and the last trigram of the text. */
	ofl_sketch_build((const unsigned char *)"xQuillharbour", 13, bits);
	ok(ofl_sketch_may_have(bits, "quillharbour", 12) &&
	    ofl_sketch_may_have(bits, "XQUILL", 6) &&
	    ofl_sketch_may_have(bits, "rbour", 5) &&
	    ofl_sketch_may_have(bits, "Quill", 5) &&
	    ofl_sketch_may_have(bits, "harbour", 7),
	    "a string at an odd place, in any case, up to the end");
	/*
	 * The bits of stores made before are the bits of now: each
	 * trigram at every third offset, its bytes or'ed with 0x20, hashed
	 * as sketch.c's first version did, byte by byte; for every length
	 * and alignment of the text.
	 */
	for (i = 0, n = 0; i < 64 * 8; i++) {
		unsigned char	ref[OFL_SKETCH_BYTES];
		const unsigned char *t = (const unsigned char *)text + i % 8;
		size_t		tlen = i / 8 * 7, j;
		uint32_t	v, h;

		memset(ref, 0, sizeof ref);
		for (j = 0; j + 3 <= tlen; j += 3) {
			v = (uint32_t)(t[j] | 0x20) | (uint32_t)(t[j + 1] |
			    0x20) << 8 | (uint32_t)(t[j + 2] | 0x20) << 16;
			h = (v * 0x9e3779b1U) >> (32 - OFL_SKETCH_LOG2);
			ref[h >> 3] |= (unsigned char)(1U << (h & 7));
		}
		ofl_sketch_build(t, tlen, bits);
		n += memcmp(ref, bits, sizeof ref) != 0;
	}
	ok(n == 0, "the same bits as byte by byte, at every length and "
	    "alignment: %zu differ", n);
	free(text);
	return done_testing();
}
