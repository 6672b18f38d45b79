/*
 * fuzz-kind.c: kind detection, line statistics and the safe preview.
 *
 * Invariants: a kind is one of the enum and its name maps back to it;
 * detection on a prefix never reads past it; the safe rendering stays
 * within its budget and is valid UTF-8 without control characters other
 * than tab and newline.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fuzz.h"
#include "banned.h"

const char	fuzz_target[] = "kind";

static void	check_kind(enum ofl_kind);
static void	check_utf8(const unsigned char *, size_t);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void
check_kind(enum ofl_kind k)
{
	const char	*name;

	if ((int)k < 0 || k >= OFL_KIND_COUNT)
		fuzz_fail("kind %d out of range", (int)k);
	if ((name = ofl_kind_name(k)) == NULL)
		fuzz_fail("kind %d has no name", (int)k);
	if (ofl_kind_from_name(name) != (int)k)
		fuzz_fail("kind name %s does not map back to %d", name, (int)k);
}

static void
check_utf8(const unsigned char *p, size_t n)
{
	size_t	i = 0, len, j;

	while (i < n) {
		if (p[i] < 0x80) {
			if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n')
				fuzz_fail("control character 0x%02x in a safe "
				    "rendering", p[i]);
			i++;
			continue;
		}
		if ((p[i] & 0xe0) == 0xc0)
			len = 2;
		else if ((p[i] & 0xf0) == 0xe0)
			len = 3;
		else if ((p[i] & 0xf8) == 0xf0)
			len = 4;
		else
			fuzz_fail("invalid UTF-8 lead byte 0x%02x at %zu", p[i],
			    i);
		if (i + len > n)
			fuzz_fail("UTF-8 sequence cut at %zu", i);
		for (j = 1; j < len; j++)
			if ((p[i + j] & 0xc0) != 0x80)
				fuzz_fail("bad UTF-8 continuation at %zu",
				    i + j);
		i += len;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_linestat	 ls;
	struct ofl_buf		 out;
	const unsigned char	*p, *nl, *end;
	unsigned char		*copy;
	uint64_t		 lineno = 1;
	size_t			 max;

	/* A private copy of exactly size bytes: ASan sees any overread. */
	copy = ofl_xmalloc(size > 0 ? size : 1);
	if (size > 0)
		memcpy(copy, data, size);
	check_kind(ofl_kind_detect(copy, size, 1));
	check_kind(ofl_kind_detect(copy, size, 0));
	if (size > 1)
		check_kind(ofl_kind_detect(copy, size / 2, 0));

	memset(&ls, 0, sizeof ls);
	p = copy;
	end = copy + size;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		ofl_linestat_line(&ls, (const char *)p, (size_t)(nl - p),
		    lineno++);
		p = nl + 1;
	}
	if (ls.errors + ls.warnings > lineno)
		fuzz_fail("more error and warning lines than lines");
	if (ls.first_error > lineno)
		fuzz_fail("first error line beyond the end");

	max = size > 0 ? (size_t)data[0] * 4 : 16;
	ofl_buf_init(&out);
	ofl_render_safe(&out, copy, size, max);
	if (out.len > max)
		fuzz_fail("safe rendering of %zu bytes over its budget %zu",
		    out.len, max);
	check_utf8((const unsigned char *)out.data, out.len);
	ofl_buf_free(&out);
	free(copy);
	return 0;
}
