/*
 * fuzz-chunk.c: every chunker, on content stored in a real store.
 *
 * The input is written with ofl_writer_*(), then chunked as each kind in
 * turn.  Invariants for chunks of the artifact itself (not of archive
 * members): ranges are ordered and within the content, the line range
 * agrees with the bytes, titles are NUL-terminated at their length.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fuzz.h"
#include "banned.h"

const char	fuzz_target[] = "chunk";

struct ctx {
	const uint8_t	*data;
	size_t		 size;
	int		 kind;
	uint64_t	 chunks;
	uint64_t	 last_start;
};

static int	on_chunk(const struct ofl_chunk *, void *);
static uint64_t	line_at(const uint8_t *, uint64_t);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Small archive limits keep every run quick. */
	ofl_chunk_limits(8 * 1024 * 1024, 2000);
	return 0;
}

/* The 1-based line holding byte off. */
static uint64_t
line_at(const uint8_t *p, uint64_t off)
{
	uint64_t	i, n = 1;

	for (i = 0; i < off; i++)
		if (p[i] == '\n')
			n++;
	return n;
}

static int
on_chunk(const struct ofl_chunk *c, void *arg)
{
	struct ctx	*x = arg;

	x->chunks++;
	if (c->title != NULL && c->title[c->title_len] != '\0')
		fuzz_fail("kind %s: title not NUL-terminated at its length",
		    ofl_kind_name(x->kind));
	if (c->text == NULL && c->len > 0)
		fuzz_fail("kind %s: NULL text of %zu bytes",
		    ofl_kind_name(x->kind), c->len);
	if (c->len > 0)
		(void)((volatile const char *)c->text)[c->len - 1];
	if (c->byte_start > c->byte_end)
		fuzz_fail("kind %s: byte range %llu-%llu reversed",
		    ofl_kind_name(x->kind), (unsigned long long)c->byte_start,
		    (unsigned long long)c->byte_end);
	if (c->line_start > c->line_end)
		fuzz_fail("kind %s: line range %llu-%llu reversed",
		    ofl_kind_name(x->kind), (unsigned long long)c->line_start,
		    (unsigned long long)c->line_end);
	if (c->member != NULL)
		return 0;
	if (c->byte_end > x->size)
		fuzz_fail("kind %s: byte range %llu-%llu beyond the end (%zu)",
		    ofl_kind_name(x->kind), (unsigned long long)c->byte_start,
		    (unsigned long long)c->byte_end, x->size);
	if (c->line_start != line_at(x->data, c->byte_start))
		fuzz_fail("kind %s: chunk at byte %llu says line %llu, it is "
		    "line %llu", ofl_kind_name(x->kind),
		    (unsigned long long)c->byte_start,
		    (unsigned long long)c->line_start,
		    (unsigned long long)line_at(x->data, c->byte_start));
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_reader	*r;
	struct ctx		 x;
	char			 id[OFL_ID_MAX + 1];
	int			 kind, rv;

	fuzz_put(data, size, id);
	if ((r = ofl_reader_open(fuzz_store(), id)) == NULL)
		fuzz_fail("reader: %s", ofl_errmsg());
	for (kind = 0; kind < OFL_KIND_COUNT; kind++) {
		memset(&x, 0, sizeof x);
		x.data = data;
		x.size = size;
		x.kind = kind;
		rv = ofl_reader_chunks(r, kind, on_chunk, &x);
		if (rv == -1 && ofl_errcode() == OFL_EXIT_USAGE)
			fuzz_fail("kind %s refused: %s", ofl_kind_name(kind),
			    ofl_errmsg());
		if (rv != 0 && rv != -1)
			fuzz_fail("kind %s: returned %d", ofl_kind_name(kind),
			    rv);
	}
	ofl_reader_close(r);
	fuzz_drop(id);
	if (!fuzz_cwd_clean())
		fuzz_fail("a file appeared in the working directory");
	return 0;
}
