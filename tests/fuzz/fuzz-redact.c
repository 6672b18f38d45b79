/*
 * fuzz-redact.c: the secret masking pass.
 *
 * Invariants: line structure is kept (as many newlines out as in); the
 * first line masked alone is masked as it is at the start of the text;
 * masking what was masked changes nothing (the masks themselves are
 * never taken for secrets; OFL_FUZZ_LAX=1 in the environment leaves this
 * check out, to fuzz past a finding of it).  A redactor keeps state
 * across lines (a private key block), so each pass gets a fresh one.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fuzz.h"
#include "banned.h"

const char	fuzz_target[] = "redact";

static size_t	count_nl(const char *, size_t);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static size_t
count_nl(const char *p, size_t n)
{
	size_t	i, k = 0;

	for (i = 0; i < n; i++)
		if (p[i] == '\n')
			k++;
	return k;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_buf	 out, line, again;
	struct ofl_redactor	*red;
	const char		*p = (const char *)data, *nl;
	char			*copy;
	size_t			 first;

	(void)fuzz_dir();	/* no user configuration */
	red = ofl_redactor_new();
	copy = ofl_xmalloc(size > 0 ? size : 1);
	if (size > 0)
		memcpy(copy, data, size);
	ofl_buf_init(&out);
	ofl_redact(red, copy, size, &out);
	if (count_nl(out.data, out.len) != count_nl(copy, size))
		fuzz_fail("%zu newlines in, %zu out", count_nl(copy, size),
		    count_nl(out.data, out.len));

	/* The first line alone, as ofl_redact_line sees it. */
	nl = size > 0 ? memchr(p, '\n', size) : NULL;
	first = nl != NULL ? (size_t)(nl - p) : size;
	ofl_redactor_free(red);
	red = ofl_redactor_new();
	ofl_buf_init(&line);
	ofl_redact_line(red, copy, first, &line);
	if (memchr(line.data != NULL ? line.data : "", '\n', line.len) != NULL)
		fuzz_fail("a masked line holds a newline");
	if (out.len < line.len || (line.len > 0 && memcmp(out.data, line.data,
	    line.len) != 0) || (out.len > line.len && nl != NULL &&
	    out.data[line.len] != '\n'))
		fuzz_fail("the first line is masked differently alone");

	/* A second pass leaves the masks alone. */
	ofl_redactor_free(red);
	red = ofl_redactor_new();
	ofl_buf_init(&again);
	ofl_redact(red, out.data != NULL ? out.data : "", out.len, &again);
	if (getenv("OFL_FUZZ_LAX") == NULL && (again.len != out.len ||
	    (out.len > 0 && memcmp(again.data, out.data, out.len) != 0)))
		fuzz_fail("masking twice changes the text: %.*s => %.*s",
		    (int)(out.len > 200 ? 200 : out.len), out.data,
		    (int)(again.len > 200 ? 200 : again.len), again.data);
	ofl_redactor_free(red);
	ofl_buf_free(&again);
	ofl_buf_free(&line);
	ofl_buf_free(&out);
	free(copy);
	return 0;
}
