/*
 * fuzz-archive.c: archive and compressed-stream reading.
 *
 * The input is stored and chunked as an archive and as a compressed
 * stream (libarchive, through the chunker's limits), then its first
 * member and a missing one are extracted.  Nothing may ever be written
 * to disk: the working directory must stay empty whatever the member
 * names say (../x, /abs).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fuzz.h"
#include "banned.h"

const char	fuzz_target[] = "archive";

static FILE	*devnull;

struct ctx {
	char	*first;		/* first member seen */
	uint64_t chunks;
};

static int	on_chunk(const struct ofl_chunk *, void *);
static void	extract(const char *, const char *, int);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ofl_chunk_limits(8 * 1024 * 1024, 2000);
	return 0;
}

static int
on_chunk(const struct ofl_chunk *c, void *arg)
{
	struct ctx	*x = arg;

	x->chunks++;
	if (c->byte_start > c->byte_end || c->line_start > c->line_end)
		fuzz_fail("chunk ranges reversed");
	if (c->member != NULL && x->first == NULL)
		x->first = ofl_xstrdup(c->member);
	return 0;
}

static void
extract(const char *id, const char *member, int mode)
{
	struct ofl_extract	o;
	struct ofl_span		span;

	if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
		fuzz_fail("/dev/null");
	ofl_extract_init(&o);
	o.member = member;
	o.out = devnull;
	o.max_bytes = 4096;
	/*
	 * No address-space limit on the regex child: a sanitizer build maps
	 * terabytes of shadow memory, which a 1 GiB limit refuses.  The
	 * limit has tests of its own (t3050).
	 */
	o.mem_limit = 0;
	if (mode == 1) {
		o.mode = OFL_EXTRACT_REGEX;
		o.regex = "[eE]rror|x";
		o.context = 1;
	} else if (mode == 2) {
		if (ofl_span_parse("-3", OFL_SPAN_LINES, &span) == -1)
			fuzz_fail("span: %s", ofl_errmsg());
		o.spans = &span;
		o.nspans = 1;
	}
	if (ofl_extract_check(&o) == -1)
		fuzz_fail("extract check: %s", ofl_errmsg());
	(void)ofl_extract(fuzz_store(), id, &o);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_reader	*r;
	struct ctx		 x;
	char			 id[OFL_ID_MAX + 1];
	int			 rv;

	fuzz_put(data, size, id);
	if ((r = ofl_reader_open(fuzz_store(), id)) == NULL)
		fuzz_fail("reader: %s", ofl_errmsg());
	memset(&x, 0, sizeof x);
	rv = ofl_reader_chunks(r, OFL_KIND_ARCHIVE, on_chunk, &x);
	if (rv != 0 && rv != -1)
		fuzz_fail("archive: returned %d", rv);
	rv = ofl_reader_chunks(r, OFL_KIND_COMPRESSED, on_chunk, &x);
	if (rv != 0 && rv != -1)
		fuzz_fail("compressed: returned %d", rv);
	ofl_reader_close(r);
	if (x.first != NULL) {
		extract(id, x.first, (int)(size % 3));
		free(x.first);
	}
	extract(id, "no/such/member", 0);
	fuzz_drop(id);
	if (!fuzz_cwd_clean())
		fuzz_fail("a file appeared in the working directory");
	return 0;
}
