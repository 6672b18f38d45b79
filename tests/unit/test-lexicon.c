/*
 * test-lexicon.c: the lexicon's groups (lexicon.tsv, compiled in): a
 * query's words find the group of the longest form they start with, any
 * case, plural and tense endings aside; each group has other forms.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "tap.h"

/* 1 if group g has form f. */
static int
has_form(int g, const char *f)
{
	const char	*x;
	size_t		 i;

	for (i = 0; (x = ofl_lexicon_form(g, i)) != NULL; i++)
		if (strcmp(x, f) == 0)
			return 1;
	return 0;
}

static int
match(const char *q, size_t *len)
{
	static char	 buf[256];
	const char	*w[16];
	char		*p;
	size_t		 n = 0;

	snprintf(buf, sizeof buf, "%s", q);
	for (p = strtok(buf, " "); p != NULL && n < 16; p = strtok(NULL, " "))
		w[n++] = p;
	return ofl_lexicon_match(w, n, len);
}

int
main(void)
{
	size_t	len, i, k;
	int	g, bad = 0;

	g = match("disk full on a node", &len);
	ok(g >= 0 && len == 2, "\"disk full\": a group, two words");
	ok(has_form(g, "no space left on device") && has_form(g, "enospc"),
	    "its forms: what the kernel and the C library say");
	g = match("ran", &len);
	ok(g >= 0 && len == 1 && has_form(g, "run"), "ran: run");
	g = match("Wrote", &len);
	ok(g >= 0 && has_form(g, "write") && has_form(g, "written"),
	    "any case: Wrote, write, written");
	g = match("OOM", &len);
	ok(g >= 0 && has_form(g, "out of memory") &&
	    has_form(g, "killed process"), "OOM: out of memory, killed process");
	g = match("permission denied", &len);
	ok(g >= 0 && len == 2 && has_form(g, "eacces") &&
	    has_form(g, "not permitted"), "permission denied: EACCES");
	g = match("ECONNREFUSED", &len);
	ok(g >= 0 && has_form(g, "refused"), "ECONNREFUSED: refused");
	g = match("successful logins", &len);
	ok(g < 0, "a word not at the start: no group");
	g = match("logins today", &len);
	ok(g >= 0 && len == 1 && has_form(g, "accepted password"),
	    "a plural: the group of its singular");
	g = match("primary", &len);
	ok(g >= 0 && has_form(g, "master"), "primary: master");
	g = match("replica", &len);
	ok(g >= 0 && has_form(g, "slave"), "replica: slave");
	g = match("compiler", &len);
	ok(g >= 0 && has_form(g, "gcc") && has_form(g, "clang"),
	    "compiler: gcc, clang");
	g = match("executable", &len);
	ok(g >= 0 && has_form(g, "bin"), "executable: bin");
	g = match("unexpectedly passed", &len);
	ok(g >= 0 && len == 2 && has_form(g, "xpass"),
	    "unexpectedly passed: XPASS");
	g = match("regular expressions", &len);
	ok(g >= 0 && len == 2 && has_form(g, "regex"),
	    "regular expressions: regex");
	g = match("denial of service", &len);
	ok(g >= 0 && len == 3 && has_form(g, "dos"), "denial of service: DoS");
	g = match("previous", &len);
	ok(g >= 0 && has_form(g, "prev"), "previous: prev");
	g = match("following page", &len);
	ok(g >= 0 && len == 1 && has_form(g, "next"), "following: next");
	g = match("how long to wait when connecting", &len);
	ok(g >= 0 && len == 4 && has_form(g, "timeout"),
	    "how long to wait: timeout");
	g = match("skipped tests", &len);
	ok(g >= 0 && len == 1 && has_form(g, "pending"),
	    "skipped: pending (mocha)");
	g = match("only some of the benchmarks", &len);
	ok(g >= 0 && len == 2 && has_form(g, "filter"), "only some: filter");
	g = match("banana split", &len);
	ok(g < 0 && len == 0, "no form: -1");
	g = match("connection reset by peer", &len);
	ok(g >= 0 && len == 2 && has_form(g, "econnreset"),
	    "the longest form wins");
	g = match("peak memory", &len);
	ok(g >= 0 && len == 1 && has_form(g, "maximum"),
	    "peak: maximum, as a manual says it");
	g = match("turn off autosuggestions", &len);
	ok(g >= 0 && len == 2 && has_form(g, "disable"),
	    "turn off: disable");
	g = match("db config", &len);
	ok(g >= 0 && len == 1 && has_form(g, "database"),
	    "a short form: the word it stands for");
	g = match("which commit was tested", &len);
	ok(g < 0, "which: no group");
	g = match("commit tested", &len);
	ok(g >= 0 && len == 1 && has_form(g, "rev") &&
	    has_form(g, "revision"), "commit: rev, as GECKO_HEAD_REV says it");
	g = match("first published", &len);
	ok(g >= 0 && len == 2 && has_form(g, "created"),
	    "first published: created, as a registry's times say it");
	g = match("newest release", &len);
	ok(g >= 0 && len == 1 && has_form(g, "latest"), "newest: latest");
	g = match("skip slow tests", &len);
	ok(g >= 0 && len == 1 && has_form(g, "exclude") &&
	    has_form(g, "ignore"), "skip: exclude, ignore, as options say it");
	g = match("configuration", &len);
	ok(g >= 0 && has_form(g, "cfg") && has_form(g, "conf"),
	    "a word: the short forms code and configs use");
	g = match("unknown user root", &len);
	ok(g >= 0 && len == 2 && has_form(g, "invalid user"),
	    "unknown user: what sshd says");
	g = match("slow tests", &len);
	ok(g >= 0 && len == 1 && has_form(g, "slowest"), "slow: slowest");
	g = match("hang", &len);
	ok(g >= 0 && has_form(g, "timed out") && has_form(g, "hung"),
	    "hang: its irregular form and what a timeout says");
	{
		const char *l1 = "application timed out after 370 s";
		const char *l2 = "the output went out to the log";
		const char *l3 = "session opened for user root";

		ok(ofl_lexicon_around(g, l1, strlen(l1), 12, 17),
		    "around: \"timed\" of \"timed out\" is the form");
		ok(!ofl_lexicon_around(g, l2, strlen(l2), 4, 10),
		    "around: \"output\" without \"no\" is not");
		g = match("logins", &len);
		ok(ofl_lexicon_around(g, l3, strlen(l3), 0, 7) &&
		    ofl_lexicon_around(g, l3, strlen(l3), 8, 14),
		    "around: \"session opened\", from either word");
		ok(!ofl_lexicon_around(g, l3, 5, 0, 7),
		    "around: not past the line's end");
	}
	g = match("misspelled variable", &len);
	ok(g >= 0 && len == 1 && has_form(g, "undeclared"),
	    "misspelled: undeclared, as a compiler says it");
	g = match("connection limit reached", &len);
	ok(g >= 0 && len == 2 && has_form(g, "too many clients"),
	    "connection limit: too many clients");
	g = match("below zero", &len);
	ok(g >= 0 && len == 2 && has_form(g, "negative"), "below zero: negative");
	g = match("address already in use", &len);
	ok(g >= 0 && len == 4 && has_form(g, "eaddrinuse"),
	    "address already in use: EADDRINUSE");
	g = match("formatter added", &len);
	ok(g >= 0 && len == 1 && has_form(g, "prettier") &&
	    has_form(g, "gofmt"), "formatter: the names formatters go by");
	g = match("too many requests", &len);
	ok(g >= 0 && len == 3 && has_form(g, "429"), "too many requests: 429");
	g = match("oversized message", &len);
	ok(g >= 0 && len == 1 && has_form(g, "too large"),
	    "oversized: too large, as a broker says it");
	g = match("french translation", &len);
	ok(g >= 0 && len == 1 && has_form(g, "fr"),
	    "french: fr, as a page's language links say it");
	g = match("missing parenthesis", &len);
	ok(g < 0, "missing: no group (a missing parenthesis is no ENOENT)");
	g = match("ignore case", &len);
	ok(g >= 0 && len == 2 && has_form(g, "case insensitive"),
	    "ignore case: case insensitive");
	g = match("toc entry", &len);
	ok(g >= 0 && len == 1 && has_form(g, "table of contents") &&
	    !has_form(g, "contents"), "toc: table of contents, not content");
	ok(ofl_lexicon_form(-1, 0) == NULL && ofl_lexicon_form(100000, 0) ==
	    NULL, "no such group: NULL");
	/* Every group has two forms or more, each lowercase words. */
	for (g = 0; ofl_lexicon_form(g, 0) != NULL; g++) {
		for (i = 0; ofl_lexicon_form(g, i) != NULL; i++) {
			const char *f = ofl_lexicon_form(g, i);

			for (k = 0; f[k] != '\0'; k++)
				if (!((f[k] >= 'a' && f[k] <= 'z') ||
				    (f[k] >= '0' && f[k] <= '9') || f[k] == ' '))
					bad++;
		}
		if (i < 2)
			bad++;
	}
	ok(g > 50 && bad == 0, "%d groups, each of lowercase forms, two or more",
	    g);
	return done_testing();
}
