/*
 * fuzz-query.c: the query rewriter and the tokenizer.
 *
 * A small fixed store is indexed once; each input is a query (after one
 * byte of flags) run against one artifact or the whole store.  Contract:
 * any text is a valid query, so without --fts a search never fails; with
 * --fts a bad query is a usage error, never anything else.  The
 * tokenizer's offsets stay within the text it was given.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "fuzz.h"
#include "banned.h"

const char	fuzz_target[] = "query";

static const char *docs[] = {
	"# Install\n\nRun `make install` as root.\n\n## Errors\n\n"
	"```\nmake: *** [Makefile:12: all] Error 2\n```\n"
	"See CVE-2023-1234 and foo.bar() in src/lib/store.c:412.\n",
	"{\"items\":[{\"name\":\"pod-7f9c\",\"status\":{\"phase\":\"Running\"}},"
	"{\"name\":\"db-0\",\"status\":{\"phase\":\"CrashLoopBackOff\"}}],"
	"\"kind\":\"List\",\"hex\":\"0xdeadbeef\",\"n\":3.14e-2}\n",
	"2024-01-01 12:00:00 INFO started pid=4242\n"
	"2024-01-01 12:00:01 ERROR connection refused to 10.0.0.7:5432\n"
	"Traceback (most recent call last):\n"
	"  File \"app.py\", line 3, in <module>\n"
	"ValueError: unbalanced \"quote\n"
	"2024-01-01 12:00:02 WARN retry 3/5 user_id=abc_def-ghi\n",
	"id,name,score\n1,alice,9.5\n2,bob,-3\n3,\"c, d\",NaN\n",
	"--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n int\n-main(void)\n"
	"+main(int argc, char *argv[])\n {\n",
	NULL
};
static char		 ids[8][OFL_ID_MAX + 1];
static size_t		 nids;
static struct ofl_tok	*tok;

struct tokctx {
	size_t	len;
	int	count;
};

static void	setup(void);
static int	on_token(void *, int, const char *, int, int, int);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void
setup(void)
{
	struct ofl_index_stats	stats;
	size_t			i;

	if (nids > 0)
		return;
	if (ofl_index_init(fuzz_store()) == -1)
		fuzz_fail("index init: %s", ofl_errmsg());
	for (i = 0; docs[i] != NULL; i++) {
		fuzz_put(docs[i], strlen(docs[i]), ids[nids]);
		if (ofl_index_artifact(fuzz_store(), ids[nids], NULL, NULL,
		    &stats) == -1)
			fuzz_fail("index: %s", ofl_errmsg());
		nids++;
	}
	if ((tok = ofl_store_fts_tok(fuzz_store())) == NULL)
		fuzz_fail("tokenizer: %s", ofl_errmsg());
}

static int
on_token(void *arg, int flags, const char *t, int n, int start, int end)
{
	struct tokctx	*x = arg;

	(void)flags;
	x->count++;
	if (n < 0 || (n > 0 && t == NULL))
		fuzz_fail("token of length %d", n);
	if (n > 0)
		(void)((volatile const char *)t)[n - 1];
	if (start < 0 || end < start || (size_t)end > x->len)
		fuzz_fail("token offsets %d-%d outside a text of %zu bytes",
		    start, end, x->len);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofl_search_opts	 o;
	struct ofl_buf		 out;
	struct tokctx		 tc;
	const char		*one[1];
	char			*q;
	int			 flags, rv, mode;

	if (size < 1)
		return 0;
	setup();
	flags = data[0];
	q = fuzz_str(data + 1, size - 1);

	for (mode = 0; mode < 3; mode++) {
		memset(&tc, 0, sizeof tc);
		tc.len = size - 1;
		if (ofl_tok_run(tok, mode, q, size - 1, on_token, &tc) == -1)
			fuzz_fail("tokenizer failed in mode %d", mode);
	}

	ofl_search_opts_init(&o);
	o.query = q;
	o.fts = flags & 1;
	o.json = (flags & 2) != 0;
	o.quiet = (flags & 4) != 0;
	o.budget = (flags & 8) ? 200 : 0;
	o.limit = (flags & 16) ? 1 : 0;
	one[0] = ids[(flags >> 5) % nids];
	ofl_buf_init(&out);
	rv = ofl_search(fuzz_store(), (flags & 0x80) ? NULL : one,
	    (flags & 0x80) ? 0 : 1, &o, &out);
	if (rv == -1 && !o.fts)
		fuzz_fail("query \"%s\" failed: %s", q, ofl_errmsg());
	if (rv == -1 && ofl_errcode() != OFL_EXIT_USAGE)
		fuzz_fail("FTS query \"%s\" failed with %d: %s", q,
		    ofl_errcode(), ofl_errmsg());
	ofl_buf_free(&out);
	free(q);
	return 0;
}
