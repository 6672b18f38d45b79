/*
 * redact.c: mask common secrets in what ofl prints.
 *
 * A line at a time, with hand-written matchers (no regular expressions on
 * the hot path): each secret becomes "[redacted: KIND]" and line breaks
 * stay where they were, so line numbers still hold.  A private key block
 * spans lines: the redactor remembers that it is inside one.
 *
 * What is printed is often a window that starts inside a key (a notice's
 * tail, a line range, a snippet), so the BEGIN line is never seen.  The
 * body of a PEM block has a shape of its own: lines of exactly 64 (70 for
 * OpenSSH keys) base64 characters, then a shorter last one.  Outside a
 * block known to be public (a certificate, a public key), such a line and
 * the base64 lines after it are masked as "pem-body".  A certificate body
 * seen without its BEGIN line is masked too: the redactor cannot tell it
 * from a key's.  Base64 wrapped at other widths (base64(1) writes 76) and
 * base64 inside quotes or among other words is left alone.
 *
 * Extra patterns (POSIX extended regular expressions) come from the file
 * ${XDG_CONFIG_HOME:-$HOME/.config}/ofl/redact, one per line as
 * "NAME<TAB>REGEX"; lines starting with # are comments.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

struct extra {
	char	*name;
	regex_t	 re;
};

struct ofl_redactor {
	int		 in_key;	/* inside a private key block */
	int		 in_pub;	/* inside a public PEM block */
	int		 in_run;	/* after a masked PEM body line */
	struct extra	*extra;
	size_t		 nextra;
	uint64_t	 masked;
	struct seen	*seen;		/* number each secret: those seen */
};

/* The hashes of the secrets numbered, in order; shared by redactors. */
struct seen {
	char		(*h)[OFL_HASH_HEX];
	size_t		  n;
	int		  refs;
};

#define DISTINCT_MAX	4096		/* secrets numbered, at most */

/*
 * Assignment keys whose value is a secret (matched as a word suffix).
 * "pwd" counts only after a separator: MYSQL_PWD is a password, PWD and
 * OLDPWD are directories.
 */
#define KEY(s)	{ s, sizeof(s) - 1 }
static const struct {
	const char	*s;
	size_t		 n;
} secret_keys[] = {
	KEY("password"), KEY("passwd"), KEY("_pwd"), KEY("-pwd"),
	KEY("passphrase"), KEY("secret"), KEY("token"), KEY("apikey"),
	KEY("api_key"), KEY("api-key"), KEY("access_key"), KEY("accesskey"),
	KEY("secret_key"), KEY("secretkey"), KEY("private_key"), KEY("auth"),
	KEY("credentials"), KEY("accountkey"), { NULL, 0 }
};
#undef KEY

/*
 * Values that name no secret: placeholders, types (a schema's shape says
 * "password: string"), nsswitch.conf's "passwd: files".
 */
static const char *not_secrets[] = {
	"null", "true", "false", "none", "nil", "undefined", "string",
	"files", "compat", "required", "optional", NULL
};

/*
 * Byte classes, looked up: the redactor sees every byte ofl prints.
 * ASCII only, whatever the locale.
 */
#define C_ALNUM		0x01	/* [A-Za-z0-9] */
#define C_TOK		0x02	/* and _ - */
#define C_B64STD	0x04	/* and + / */
#define C_B64		0x08	/* and + / = _ - */
#define C_B64TOKEN	0x10	/* and + / = _ - . ~ */
static const unsigned char cclass[256] = {
	 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
	 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
	 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 28,  0, 26, 16, 28,
	31, 31, 31, 31, 31, 31, 31, 31, 31, 31,  0,  0,  0, 24,  0,  0,
	 0, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
	31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,  0,  0,  0,  0, 26,
	 0, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
	31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,  0,  0,  0, 16,  0,
	 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
	 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
	 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
	 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
	 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
	 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
	 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
	 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
};

static int
is_alnum(int c)
{
	return cclass[(unsigned char)c] & C_ALNUM;
}

static int
is_tok(int c)
{
	return cclass[(unsigned char)c] & C_TOK;
}

static int
is_b64(int c)
{
	return cclass[(unsigned char)c] & C_B64;
}

static int
is_b64token(int c)
{
	return cclass[(unsigned char)c] & C_B64TOKEN;
}

/* The standard base64 alphabet, no padding. */
static int
is_b64std(int c)
{
	return cclass[(unsigned char)c] & C_B64STD;
}

/* Length of a run of bytes accepted by fn, starting at p. */
static size_t
span(const char *p, const char *end, int (*fn)(int))
{
	const char	*s = p;

	while (p < end && fn((unsigned char)*p))
		p++;
	return (size_t)(p - s);
}

/* Upper and lower case letters and digits, as random keys have. */
static int
mixed(const char *p, size_t n)
{
	int	u = 0, l = 0, d = 0;
	size_t	i;

	for (i = 0; i < n && !(u && l && d); i++) {
		if (p[i] >= 'A' && p[i] <= 'Z')
			u = 1;
		else if (p[i] >= 'a' && p[i] <= 'z')
			l = 1;
		else if (p[i] >= '0' && p[i] <= '9')
			d = 1;
	}
	return u && l && d;
}

static int
upper_alnum(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * A secret's mask, "[redacted: KIND]".  A redactor told to tell them
 * apart numbers each secret (v, n bytes) by the order it was first seen,
 * "[redacted: KIND #2]", so that a line whose secret changed does not
 * print as the line it replaced; its hash is kept, never the secret.
 */
static void
mask(struct ofl_redactor *r, struct ofl_buf *out, const char *kind,
    const char *v, size_t n)
{
	struct ofl_hash	 h;
	struct seen	*sn;
	char		 hex[OFL_HASH_HEX];
	size_t		 i;

	if (r != NULL)
		r->masked++;
	if (r == NULL || (sn = r->seen) == NULL || v == NULL || n == 0) {
		ofl_buf_addf(out, "[redacted: %s]", kind);
		return;
	}
	ofl_hash_init(&h);
	ofl_hash_update(&h, v, n);
	ofl_hash_final_hex(&h, hex);
	for (i = 0; i < sn->n; i++)
		if (strcmp(sn->h[i], hex) == 0)
			break;
	if (i == sn->n && sn->n < DISTINCT_MAX) {
		if ((sn->n & (sn->n - 1)) == 0)
			sn->h = ofl_xrealloc(sn->h, (sn->n == 0 ? 1 :
			    sn->n * 2) * sizeof *sn->h);
		memcpy(sn->h[sn->n++], hex, sizeof hex);
	}
	if (i < sn->n)
		ofl_buf_addf(out, "[redacted: %s #%zu]", kind, i + 1);
	else
		ofl_buf_addf(out, "[redacted: %s]", kind);
}

void
ofl_redactor_distinct(struct ofl_redactor *r)
{
	if (r->seen != NULL)
		return;
	r->seen = ofl_xcalloc(1, sizeof *r->seen);
	r->seen->refs++;
}

struct ofl_redactor *
ofl_redactor_new_like(struct ofl_redactor *like)
{
	struct ofl_redactor	*r;

	r = ofl_redactor_new();
	if ((r->seen = like->seen) != NULL)
		r->seen->refs++;
	return r;
}

/*
 * A token secret starting at p (at a word boundary): returns its length
 * and sets *kind, or 0.
 */
static size_t
token_at(const char *p, const char *end, const char **kind)
{
	size_t	left = (size_t)(end - p), n;

	/* Most words start with none of the prefixes below. */
	switch (*p) {
	case 'A': case 'g': case 'x': case 's': case 'r': case 'n': case 'e':
	case 'h': case 'S':
		break;
	default:
		return 0;
	}
#define PREFIX(s)	(left > sizeof(s) - 1 && memcmp(p, s, sizeof(s) - 1) == 0)
	if (PREFIX("sk-ant-") && (n = span(p + 7, end, is_tok)) >= 32) {
		*kind = "anthropic-key";
		return 7 + n;
	}
	if (PREFIX("sk-") && (n = span(p + 3, end, is_tok)) >= 32 &&
	    mixed(p + 3, n)) {
		*kind = "openai-key";
		return 3 + n;
	}
	if (PREFIX("hf_") && (n = span(p + 3, end, is_alnum)) >= 30 &&
	    mixed(p + 3, n)) {
		*kind = "huggingface-token";
		return 3 + n;
	}
	if (PREFIX("SG.") && (n = span(p + 3, end, is_tok)) >= 16 &&
	    p + 3 + n < end && p[3 + n] == '.') {
		size_t	m = span(p + 4 + n, end, is_tok);

		if (m >= 30) {
			*kind = "sendgrid-key";
			return 4 + n + m;
		}
	}
	if ((PREFIX("AKIA") || PREFIX("ASIA") || PREFIX("ABIA") ||
	    PREFIX("ACCA")) && left >= 20 &&
	    span(p + 4, end, upper_alnum) == 16 &&
	    (left == 20 || !is_alnum(p[20]))) {
		*kind = "aws-access-key";
		return 20;
	}
	if ((PREFIX("ghp_") || PREFIX("gho_") || PREFIX("ghu_") ||
	    PREFIX("ghs_") || PREFIX("ghr_")) &&
	    (n = span(p + 4, end, is_alnum)) >= 30) {
		*kind = "github-token";
		return 4 + n;
	}
	if (PREFIX("github_pat_") && (n = span(p + 11, end, is_tok)) >= 22) {
		*kind = "github-token";
		return 11 + n;
	}
	if (PREFIX("glpat-") && (n = span(p + 6, end, is_tok)) >= 20) {
		*kind = "gitlab-token";
		return 6 + n;
	}
	if (PREFIX("xox") && left > 5 && ofl_in_set(p[3], "baprso") &&
	    p[4] == '-' && (n = span(p + 5, end, is_tok)) >= 10) {
		*kind = "slack-token";
		return 5 + n;
	}
	if ((PREFIX("sk_live_") || PREFIX("sk_test_") || PREFIX("rk_live_") ||
	    PREFIX("rk_test_")) && (n = span(p + 8, end, is_alnum)) >= 16) {
		*kind = "stripe-key";
		return 8 + n;
	}
	if (PREFIX("npm_") && (n = span(p + 4, end, is_alnum)) >= 36) {
		*kind = "npm-token";
		return 4 + n;
	}
	if (PREFIX("AIza") && (n = span(p + 4, end, is_tok)) >= 35) {
		*kind = "gcp-api-key";
		return 4 + n;
	}
	if (PREFIX("eyJ")) {
		/* A JWT: three base64url parts, the first two JSON. */
		const char	*q = p;
		size_t		 a, b, c;

		a = span(q, end, is_tok);
		q += a;
		if (a >= 10 && q < end && *q == '.' && q + 3 < end &&
		    memcmp(q + 1, "eyJ", 3) == 0) {
			b = span(q + 1, end, is_tok);
			q += 1 + b;
			if (b >= 10 && q < end && *q == '.') {
				c = span(q + 1, end, is_tok);
				if (c >= 10) {
					*kind = "jwt";
					return (size_t)(q + 1 + c - p);
				}
			}
		}
	}
	if (PREFIX("https://hooks.slack.com/services/")) {
		n = 33 + span(p + 33, end, is_b64);
		if (n > 45) {
			*kind = "slack-webhook";
			return n;
		}
	}
#undef PREFIX
	return 0;
}

/* Case-insensitive: does the identifier ending at e end with a key? */
static int
secret_key_before(const char *s, const char *e)
{
	size_t	i, n, len = (size_t)(e - s);

	/* Most keys (user=, status=) end in a letter no secret's key does. */
	if (len == 0 || !ofl_in_set(e[-1], "dentyhsDENTYHS"))
		return 0;
	for (i = 0; secret_keys[i].s != NULL; i++) {
		n = secret_keys[i].n;
		if (n <= len && (e[-1] | 0x20) == secret_keys[i].s[n - 1] &&
		    strncasecmp(e - n, secret_keys[i].s, n) == 0)
			return 1;
	}
	return 0;
}

int
ofl_redact_secret_key(const char *key, size_t n)
{
	return n > 0 && secret_key_before(key, key + n);
}

/* Is the value v (n bytes) a placeholder rather than a secret? */
static int
not_secret(const char *v, size_t n)
{
	size_t	i;

	if (n < 3 || *v == '$' || *v == '<' || *v == '{' || *v == '[' ||
	    *v == '%' || memmem(v, n, "[redacted", 9) != NULL)
		return 1;
	for (i = 0; not_secrets[i] != NULL; i++)
		if (strlen(not_secrets[i]) == n &&
		    strncasecmp(v, not_secrets[i], n) == 0)
			return 1;
	for (i = 0; i < n && (v[i] == '*' || v[i] == 'x' || v[i] == 'X');
	    i++)
		;
	return i == n;	/* "****", "xxxx": masked already */
}

/*
 * Past the backslashes before a quote: a string in JSON that is itself
 * in a JSON string (\"key\"), or deeper (\\\"key\\\").
 */
static const char *
escapes(const char *q, const char *end)
{
	const char	*e = q;

	while (e < end && *e == '\\')
		e++;
	return e > q && e < end && (*e == '"' || *e == '\'') ? e : q;
}

/* Cheaply: does an '=' or ':' follow (after a quote and spaces)? */
static int
assigned(const char *q, const char *end)
{
	q = escapes(q, end);
	if (q < end && (*q == '"' || *q == '\''))
		q++;
	while (q < end && *q == ' ')
		q++;
	return q < end && (*q == '=' || *q == ':');
}

/*
 * The value of an assignment "KEY = VALUE", "KEY: VALUE", "KEY=VALUE",
 * '"key": "value"' whose key names a secret: p points after the key.
 * Returns the offset and length of the value to mask.
 */
static int
assignment_value(const char *p, const char *end, size_t *off, size_t *len)
{
	const char	*q = p, *v;
	char		 quote = 0;
	int		 esc = 0;

	q = escapes(q, end);
	if (q < end && (*q == '"' || *q == '\''))
		q++;
	while (q < end && *q == ' ')
		q++;
	if (q >= end || (*q != '=' && *q != ':'))
		return 0;
	q++;
	if (q < end && *q == '=')
		return 0;	/* "==": a comparison */
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (escapes(q, end) != q) {
		esc = 1;	/* \"value\" */
		q = escapes(q, end);
	}
	if (q < end && (*q == '"' || *q == '\'')) {
		quote = *q;
		q++;
	}
	v = q;
	if (esc)
		while (q < end && *q != '\\' && *q != quote)
			q++;
	else if (quote)
		while (q < end && *q != quote)
			q++;
	else
		while (q < end && *q != ' ' && *q != '\t' && *q != ',' &&
		    *q != ';' && *q != '&' && *q != '"' && *q != '\'' &&
		    *q != '}' && *q != ')' && *q != '\\')
			q++;
	/* Too short to be a secret, or obviously not one (a mask of an
	 * earlier pass is left as it is). */
	if (not_secret(v, (size_t)(q - v)))
		return 0;
	*off = (size_t)(v - p);
	*len = (size_t)(q - v);
	return 1;
}

struct ofl_redactor *
ofl_redactor_new(void)
{
	struct ofl_redactor	*r;
	struct ofl_buf		 path;
	const char		*e;
	FILE			*f;
	char			*line = NULL, *tab;
	size_t			 cap = 0;
	ssize_t			 n;

	r = ofl_xcalloc(1, sizeof *r);
	ofl_buf_init(&path);
	if ((e = getenv("XDG_CONFIG_HOME")) != NULL && *e == '/')
		ofl_buf_addf(&path, "%s/ofl/redact", e);
	else if ((e = getenv("HOME")) != NULL && *e != '\0')
		ofl_buf_addf(&path, "%s/.config/ofl/redact", e);
	if (path.len > 0 && (f = fopen(ofl_buf_str(&path), "r")) != NULL) {
		while ((n = getline(&line, &cap, f)) != -1) {
			if (n > 0 && line[n - 1] == '\n')
				line[--n] = '\0';
			if (n == 0 || line[0] == '#' ||
			    (tab = strchr(line, '\t')) == NULL)
				continue;
			*tab = '\0';
			r->extra = ofl_xrealloc(r->extra, (r->nextra + 1) *
			    sizeof *r->extra);
			if (regcomp(&r->extra[r->nextra].re, tab + 1,
			    REG_EXTENDED) != 0)
				continue;
			r->extra[r->nextra++].name = ofl_xstrdup(line);
		}
		free(line);
		fclose(f);
	}
	ofl_buf_free(&path);
	return r;
}

void
ofl_redactor_free(struct ofl_redactor *r)
{
	size_t	i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nextra; i++) {
		regfree(&r->extra[i].re);
		free(r->extra[i].name);
	}
	free(r->extra);
	if (r->seen != NULL && --r->seen->refs == 0) {
		free(r->seen->h);
		free(r->seen);
	}
	free(r);
}

uint64_t
ofl_redactor_count(struct ofl_redactor *r)
{
	return r->masked;
}

const char *
ofl_redactor_note(struct ofl_redactor *r, char *buf, size_t size)
{
	if (r == NULL || r->masked == 0)
		return NULL;
	snprintf(buf, size, "%" PRIu64 " secret%s masked (OFL_REDACT=off"
	    " shows them)", r->masked, r->masked > 1 ? "s" : "");
	return buf;
}

void
ofl_redactor_add(struct ofl_redactor *r, uint64_t n)
{
	r->masked += n;
}

/*
 * Is the line (n bytes, leading blanks and a trailing CR aside) a full
 * line of a PEM body: 64 base64 characters (70 in OpenSSH keys), of mixed
 * case and digits as encoded random bytes are?
 */
static int
pem_body_line(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (n != 64 && n != 70)
		return 0;
	return span(s, s + n, is_b64std) == n && mixed(s, n);
}

/*
 * The base64 lines that go on a PEM body: 2 for a full line, 1 for the
 * short last one, 0 for none.
 */
static int
pem_more_line(const char *s, size_t n)
{
	size_t	k;

	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (n == 0 || n > 70)
		return 0;
	k = span(s, s + n, is_b64std);
	if (k == n && (n == 64 || n == 70))
		return 2;	/* a full line: more may follow */
	while (k < n && s[k] == '=')
		k++;
	/* The short last line: padded or random-looking (not "Done" or
	 * "1234" printed after a key). */
	return k == n && (s[n - 1] == '=' || mixed(s, n));
}

/*
 * An option that takes a secret: "--password X", "--password=X",
 * "--token X", curl's "-u user:pass" and "--user user:pass", mysql's
 * "-pSECRET".  p is at the first '-'.  Returns 1 with the value's
 * offset and length from p, or 0.
 */
static int
option_secret(const char *s, const char *p, const char *end, size_t *off,
    size_t *len)
{
	const char	*k, *v, *q;
	size_t		 klen;

	if (p > s && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '"' &&
	    p[-1] != '\'')
		return 0;
	if (end - p > 3 && p[1] == '-' && is_alnum(p[2])) {
		k = p + 2;
		klen = span(k, end, is_tok);
		v = k + klen;
		if (v >= end || (*v != ' ' && *v != '='))
			return 0;
		if (klen == 4 && strncmp(k, "user", 4) == 0 && *v == ' ' &&
		    memmem(s, (size_t)(p - s), "curl", 4) != NULL)
			goto userpass;
		if (!secret_key_before(k, k + klen) || (*v == ' ' &&
		    ((klen >= 4 && strncasecmp(k + klen - 4, "auth", 4) == 0) ||
		    (klen >= 11 &&
		    strncasecmp(k + klen - 11, "credentials", 11) == 0))))
			return 0;	/* "--auth basic" names no secret */
		v++;
		goto value;
	}
	if (end - p > 3 && p[1] == 'u' && p[2] == ' ' &&
	    memmem(s, (size_t)(p - s), "curl", 4) != NULL) {
		v = p + 2;
		goto userpass;
	}
	if (end - p > 2 && p[1] == 'p' && p[2] != ' ' && p[2] != '-' &&
	    (memmem(s, (size_t)(p - s), "mysql", 5) != NULL ||
	    memmem(s, (size_t)(p - s), "mariadb", 7) != NULL)) {
		v = p + 2;
		goto value;
	}
	return 0;
userpass:
	while (v < end && *v == ' ')
		v++;
	for (q = v; q < end && *q != ' ' && *q != ':' && *q != '@'; q++)
		;
	if (q >= end || *q != ':')
		return 0;
	v = q + 1;
value:
	if (v < end && (*v == '"' || *v == '\'')) {
		for (q = v + 1; q < end && *q != *v; q++)
			;
		v++;
	} else
		for (q = v; q < end && *q != ' ' && *q != '\t' && *q != '"' &&
		    *q != '\''; q++)
			;
	if (not_secret(v, (size_t)(q - v)) || *v == '-')
		return 0;
	*off = (size_t)(v - p);
	*len = (size_t)(q - v);
	return 1;
}

/* The built-in pass over one line. */
/*
 * A line inside a PEM block that an earlier line began, or a PEM body line
 * on its own: 1 when the line is masked whole, else 0 with *pp where the
 * rest of the line starts.
 */
static int
pem_carry(struct ofl_redactor *r, const char *s, size_t n,
    struct ofl_buf *out, const char **pp)
{
	const char	*end;
	int		 more;

	if (r->in_key) {
		if ((end = memmem(s, n, "-----END ", 9)) == NULL) {
			if (n > 0)
				mask(r, out, "private-key", NULL, 0);
			return 1;
		}
		r->in_key = 0;
		if (end > s)
			mask(r, out, "private-key", NULL, 0);
		*pp = end;
	} else if (r->in_pub) {
		if (memmem(s, n, "-----END ", 9) != NULL)
			r->in_pub = 0;
	} else if (n >= 64 && n <= 80 && pem_body_line(s, n)) {
		/* The body of a PEM block whose BEGIN line was not seen. */
		r->in_run = 1;
		mask(r, out, "pem-body", NULL, 0);
		return 1;
	} else if (r->in_run) {
		if ((more = pem_more_line(s, n)) != 0) {
			r->in_run = more == 2;
			mask(r, out, "pem-body", NULL, 0);
			return 1;
		}
		r->in_run = 0;
	}
	return 0;
}

static void	 redact_span(struct ofl_redactor *, const char *,
		    const char *, const char *, struct ofl_buf *);

/*
 * At p, "://": a URL's user:password@ masked, the password whole and
 * the tokens in the user part; returns where the host starts, or NULL
 * (nothing added) when no password is there.
 */
static const char *
url_creds(struct ofl_redactor *r, struct ofl_buf *out, const char *p,
    const char *end)
{
	const char	*u = p + 3, *q = u, *colon = NULL, *m;

	if (end - p <= 3 || p[1] != '/' || p[2] != '/')
		return NULL;
	while (q < end && *q != '@' && *q != '/' && *q != ' ' && *q != '"' &&
	    *q != '\'') {
		/* A mask of a first pass is one piece of the user part. */
		if (*q == '[' && (size_t)(end - q) > 11 &&
		    memcmp(q, "[redacted: ", 11) == 0 &&
		    (m = memchr(q, ']', (size_t)(end - q))) != NULL) {
			q = m + 1;
			continue;
		}
		if (*q == ':' && colon == NULL)
			colon = q;
		q++;
	}
	if (q == end || *q != '@' || colon == NULL || q - colon <= 1)
		return NULL;
	ofl_buf_add(out, p, 3);
	/* The user part is masked as a line of its own would be. */
	redact_span(r, u, u, colon, out);
	ofl_buf_addc(out, ':');
	mask(r, out, "url-password", colon + 1, (size_t)(q - colon - 1));
	return q;
}

static void
redact_builtin(struct ofl_redactor *r, const char *s, size_t n,
    struct ofl_buf *out)
{
	const char	*p = s;

	if (!pem_carry(r, s, n, out, &p))
		redact_span(r, s, p, s + n, out);
}

/*
 * The secrets of a line s from p to end masked into out (s: where the
 * line starts, for what comes before p).
 */
static void
redact_span(struct ofl_redactor *r, const char *s, const char *p,
    const char *end, struct ofl_buf *out)
{
	const char	*begin, *kind;
	size_t		 len, off, vlen;

	while (p < end) {
		/*
		 * Every match starts at a word's first byte, a '-' or a ':':
		 * copy what lies between in one go.
		 */
		if (p > s && *p != '-' && *p != ':' &&
		    (is_tok(p[-1]) || !is_tok(*p))) {
			begin = p++;
			while (p < end && *p != '-' && *p != ':' &&
			    (is_tok(p[-1]) || !is_tok(*p)))
				p++;
			ofl_buf_add(out, begin, (size_t)(p - begin));
			continue;
		}
		/* A PEM block, whole on this line or starting here. */
		if (*p == '-' && (size_t)(end - p) > 16 &&
		    memcmp(p, "-----BEGIN ", 11) == 0 &&
		    (begin = memmem(p + 11, (size_t)(end - p - 11), "-----",
		    5)) != NULL) {
			const char *stop = memmem(begin, (size_t)(end - begin),
			    "-----END ", 9);

			if (memmem(p + 11, (size_t)(begin - p - 11),
			    "PRIVATE KEY", 11) == NULL) {
				/* A certificate or public key: no secret. */
				r->in_pub = stop == NULL;
				r->in_run = 0;
				ofl_buf_add(out, p, (size_t)(begin + 5 - p));
				p = begin + 5;
				continue;
			}
			if (stop == NULL) {
				/*
				 * The block goes on below when its header
				 * ends the line; else (a key in a string cut
				 * short) the rest of this line is masked, up
				 * to a quote that ends the string: base64 has
				 * none, and a JSON record stays whole.
				 */
				mask(r, out, "private-key", NULL, 0);
				begin += 5;
				if ((stop = memchr(begin, '"',
				    (size_t)(end - begin))) != NULL) {
					r->in_run = 0;
					p = stop;
					continue;
				}
				while (begin < end && isspace((unsigned char)*begin))
					begin++;
				r->in_key = begin == end;
				return;
			}
			stop = memmem(stop + 9, (size_t)(end - stop - 9),
			    "-----", 5);
			mask(r, out, "private-key", NULL, 0);
			p = stop != NULL ? stop + 5 : end;
			continue;
		}
		/* scheme://user:password@host */
		if (*p == ':' && (begin = url_creds(r, out, p, end)) != NULL) {
			p = begin;
			continue;
		}
		/* Authorization: Bearer/Basic CREDENTIALS */
		if ((*p == 'B' || *p == 'b') && (p == s || !is_alnum(p[-1]))) {
			size_t	k = 0;

			if ((size_t)(end - p) > 7 &&
			    strncasecmp(p, "bearer ", 7) == 0)
				k = 7;
			else if ((size_t)(end - p) > 6 &&
			    strncasecmp(p, "basic ", 6) == 0 &&
			    memmem(s, (size_t)(p - s), "uthorization", 12) !=
			    NULL)
				k = 6;
			if (k > 0 && (len = span(p + k, end,
			    is_b64token)) >= 12) {
				ofl_buf_add(out, p, k);
				mask(r, out, k == 7 ? "bearer-token" :
				    "basic-auth", p + k, len);
				p += k + len;
				continue;
			}
		}
		if (*p == '-' && option_secret(s, p, end, &off, &vlen)) {
			const char *v = p + off;

			ofl_buf_add(out, p, off);
			if (token_at(v, v + vlen, &kind) == 0)
				kind = "secret";
			mask(r, out, kind, v, vlen);
			p = v + vlen;
			continue;
		}
		if (p == s || !is_tok(p[-1])) {
			if ((len = token_at(p, end, &kind)) > 0) {
				mask(r, out, kind, p, len);
				p += len;
				continue;
			}
			/* KEY=VALUE with a secret-sounding key. */
			if (is_alnum(*p) || *p == '_') {
				const char *k = p;

				len = span(p, end, is_tok);
				if (len > 0 && assigned(k + len, end) &&
				    secret_key_before(k, k + len) &&
				    assignment_value(k + len, end, &off,
				    &vlen)) {
					const char *v = k + len + off;

					ofl_buf_add(out, k, len + off);
					if (token_at(v, v + vlen, &kind) == 0)
						kind = memmem(v, vlen,
						    "PRIVATE KEY", 11) != NULL ?
						    "private-key" : "secret";
					mask(r, out, kind, v, vlen);
					p = k + len + off + vlen;
					continue;
				}
				ofl_buf_add(out, p, len > 0 ? len : 1);
				p += len > 0 ? len : 1;
				continue;
			}
		}
		ofl_buf_addc(out, *p);
		p++;
	}
}

void
ofl_redact_line(struct ofl_redactor *r, const char *s, size_t n,
    struct ofl_buf *out)
{
	struct ofl_buf	 tmp, next;
	size_t		 i;
	regmatch_t	 m;

	if (r->nextra == 0) {
		redact_builtin(r, s, n, out);
		return;
	}
	ofl_buf_init(&tmp);
	redact_builtin(r, s, n, &tmp);
	for (i = 0; i < r->nextra; i++) {
		const char	*p;
		size_t		 left;

		ofl_buf_init(&next);
		p = ofl_buf_str(&tmp);
		left = tmp.len;
		while (left > 0 && regexec(&r->extra[i].re, p, 1, &m,
		    0) == 0 && m.rm_eo > m.rm_so) {
			ofl_buf_add(&next, p, (size_t)m.rm_so);
			mask(r, &next, r->extra[i].name, p + m.rm_so,
			    (size_t)(m.rm_eo - m.rm_so));
			p += m.rm_eo;
			left -= (size_t)m.rm_eo;
		}
		ofl_buf_add(&next, p, left);
		ofl_buf_free(&tmp);
		tmp = next;
	}
	ofl_buf_add(out, tmp.data, tmp.len);
	ofl_buf_free(&tmp);
}

void
ofl_redact(struct ofl_redactor *r, const char *s, size_t n,
    struct ofl_buf *out)
{
	const char	*nl, *end = s + n;

	while (s < end) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL) {
			ofl_redact_line(r, s, (size_t)(end - s), out);
			return;
		}
		ofl_redact_line(r, s, (size_t)(nl - s), out);
		ofl_buf_addc(out, '\n');
		s = nl + 1;
	}
}

static int	redact_forced = -1;	/* --no-redact */
static int	redact_store = 1;	/* the store's "redact" setting */

void
ofl_redact_force(int on)
{
	redact_forced = on != 0;
}

void
ofl_redact_store_default(int on)
{
	redact_store = on != 0;
}

/* An option wins, then OFL_REDACT, then the store's setting. */
int
ofl_redact_wanted(void)
{
	const char	*e = getenv("OFL_REDACT");

	if (redact_forced >= 0)
		return redact_forced;
	if (e != NULL && *e != '\0')
		return strcmp(e, "off") != 0 && strcmp(e, "0") != 0 &&
		    strcmp(e, "no") != 0;
	return redact_store;
}
