/*
 * test-tok.c: the tokenizer's rules over a stand-in word tokenizer
 * (ASCII words, lowercased, no stemming): identifiers joined by
 * punctuation as one colocated token, CamelCase words with their parts
 * colocated, queries left whole.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "tap.h"

/* The stand-in word tokenizer: runs of ASCII letters and digits. */
static int
words_run(void *ctx, void *arg, int flags, const char *text, int len,
    int (*cb)(void *, int, const char *, int, int, int))
{
	char	buf[128];
	int	i = 0, j, k, rc;

	(void)ctx;
	(void)flags;
	while (i < len) {
		while (i < len && !((text[i] | 0x20) >= 'a' &&
		    (text[i] | 0x20) <= 'z') && !(text[i] >= '0' &&
		    text[i] <= '9'))
			i++;
		for (j = i, k = 0; j < len && (((text[j] | 0x20) >= 'a' &&
		    (text[j] | 0x20) <= 'z') || (text[j] >= '0' &&
		    text[j] <= '9')); j++)
			if (k < (int)sizeof buf)
				buf[k++] = (char)(text[j] >= 'A' &&
				    text[j] <= 'Z' ? text[j] + 32 : text[j]);
		if (j > i && (rc = cb(arg, 0, buf, k, i, j)) != 0)
			return rc;
		i = j;
	}
	return 0;
}

/* Each token as "text@start-end", a colocated one as "+text@...". */
static int
record(void *arg, int flags, const char *tok, int n, int start, int end)
{
	char	*out = arg;
	size_t	 len = strlen(out);

	snprintf(out + len, 1024 - len, "%s%s%.*s@%d-%d", len > 0 ? " " : "",
	    (flags & OFL_TOK_COLOCATED) ? "+" : "", n, tok, start, end);
	return 0;
}

static const char *
toks(struct ofl_tok *tk, int mode, const char *text)
{
	static char	out[1024];

	out[0] = '\0';
	(void)ofl_tok_run(tk, mode, text, strlen(text), record, out);
	return out;
}

int
main(void)
{
	struct ofl_tok_words	 w = { words_run, NULL, NULL };
	struct ofl_tok		*tk = ofl_tok_new(&w);

	is_str(toks(tk, 0, "maxRetries"),
	    "maxretries@0-10 +max@0-3 +retries@3-10",
	    "camelCase: the word, then its parts");
	is_str(toks(tk, 0, "ConnectionPoolTimeoutException"),
	    "connectionpooltimeoutexception@0-30 +connection@0-10 "
	    "+pool@10-14 +timeout@14-21 +exception@21-30",
	    "CamelCase: four parts");
	is_str(toks(tk, 0, "HTTPServer2Go"),
	    "httpserver2go@0-13 +http@0-4 +server2@4-11 +go@11-13",
	    "capitals then a word: the last capital starts the word");
	is_str(toks(tk, 0, "log4j UPPER lower Ab"),
	    "log4j@0-5 upper@6-11 lower@12-17 ab@18-20",
	    "no humps, or too short: no parts");
	is_str(toks(tk, 0, "2023-11-14T12:34:56.789Z X509Certificate"),
	    "2023@0-4 11@5-7 14t12@8-13 34@14-16 56@17-19 789z@20-24 "
	    "x509certificate@25-40 +x509@25-29 +certificate@29-40",
	    "a timestamp's 14T12 and 789Z: no parts without a word");
	is_str(toks(tk, 0, "max_retries=3"),
	    "max@0-3 +max_retries@0-11 retries@4-11 3@12-13",
	    "snake_case: the words and the whole as an identifier");
	is_str(toks(tk, 0, "at org.example.PoolManager.get"),
	    "at@0-2 org@3-6 +org.example.poolmanager.get@3-30 example@7-14 "
	    "poolmanager@15-26 +pool@15-19 +manager@19-26 get@27-30",
	    "a dotted name: its CamelCase part split too");
	is_str(toks(tk, 0, "libjq1 python3 libarchive-dev eth0 library"),
	    "libjq1@0-6 +libjq@0-5 +jq@3-5 python3@7-14 +python@7-13 "
	    "libarchive@15-25 +archive@18-25 +libarchive-dev@15-29 dev@26-29 "
	    "eth0@30-34 +eth@30-33 library@35-42",
	    "a package's name: without lib, without the digits after it");
	is_str(toks(tk, 0, "libsystemd0:amd64 libsqlite3-dev"),
	    "libsystemd0@0-11 +libsystemd@0-10 +systemd@3-10 amd64@12-17 +amd@12-15 "
	    "libsqlite3@18-28 +libsqlite@18-27 +sqlite@21-27 "
	    "+libsqlite3-dev@18-32 dev@29-32",
	    "a library's name without its digits, with and without lib");
	is_str(toks(tk, 0, "md5 x86 lib2 libc6 ab12"),
	    "md5@0-3 x86@4-7 lib2@8-12 libc6@13-18 ab12@19-23",
	    "too short a name inside: none");
	is_str(toks(tk, 1, "maxRetries"), "maxretries@0-10",
	    "a query keeps a CamelCase word whole");
	is_str(toks(tk, 2, "maxRetries pool-size"),
	    "maxretries@0-10 pool@11-15 size@16-20",
	    "words only: no parts, no identifiers");
	ok(ofl_tok_is_ident("max_retries", 11) && ofl_tok_is_ident("a.b", 3),
	    "identifiers have punctuation");
	ok(!ofl_tok_is_ident("retries", 7), "a part has none");
	ofl_tok_free(tk);
	return done_testing();
}
