/*
 * test-store.c: the store API (writer and reader round trips, seeking by
 * byte and by line across frame boundaries, deduplication, salvage of a
 * dead writer, references), BLAKE2b and the parsing and formatting
 * helpers.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ofl.h"
#include "tap.h"
#include "banned.h"

#define FRAME	(1024 * 1024)	/* the store's frame size */

struct content {
	unsigned char	*data;
	size_t		 len;
	size_t		 cap;
};

static char	 tmpdir[4096];

static void	 test_hash(void);
static void	 test_fmt(void);
static void	 test_parse(void);
static void	 test_ids(void);
static void	 test_open(void);
static void	 test_roundtrip(void);
static void	 test_flush_busy(void);
static void	 test_empty(void);
static void	 test_dedup(void);
static void	 test_salvage(void);
static void	 test_resolve(void);
static int	 names_first_two(const char *, char [][OFL_ID_MAX + 1], int,
		    char);
static int	 pair_first(char [][OFL_ID_MAX + 1], int);
static void	 test_modes(void);
static char	*subdir(const char *);
static void	 content_add(struct content *, const void *, size_t);
static void	 content_line(struct content *, size_t, int);
static void	 hash_hex(const void *, size_t, char [OFL_HASH_HEX]);
static void	 collide(struct ofl_store *, const char *, unsigned char *,
		    size_t, int64_t, size_t);
static int	 write_all(struct ofl_writer *, const unsigned char *,
		    size_t);
static struct ofl_writer *begin(struct ofl_store *, const char *);
static int	 store_bytes(struct ofl_store *, const void *, size_t,
		    const char *, struct ofl_meta *);
static int	 reads_back(struct ofl_store *, const char *, const void *,
		    size_t);
static uint64_t	 line_start(const struct content *, uint64_t);
static uint64_t	 line_at(const struct content *, uint64_t);
static size_t	 count_files(const char *);

/* A fresh path under the test's temporary directory. */
static char *
subdir(const char *name)
{
	struct ofl_buf	b;

	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s/%s", tmpdir, name);
	return ofl_buf_str(&b);
}

static void
content_add(struct content *c, const void *p, size_t n)
{
	if (c->len + n > c->cap) {
		c->cap = (c->len + n) * 2;
		c->data = ofl_xrealloc(c->data, c->cap);
	}
	memcpy(c->data + c->len, p, n);
	c->len += n;
}

/* A line of exactly len bytes (newline included when nl). */
static void
content_line(struct content *c, size_t len, int nl)
{
	char	head[32];
	size_t	i, n;

	n = (size_t)snprintf(head, sizeof head, "L%zu ", c->len);
	for (i = 0; i < len - (nl ? 1 : 0); i++) {
		char	ch;

		ch = i < n ? head[i] : (char)('a' + (c->len + i) % 26);

		content_add(c, &ch, 1);
	}
	if (nl)
		content_add(c, "\n", 1);
}

static void
hash_hex(const void *p, size_t n, char out[OFL_HASH_HEX])
{
	struct ofl_hash	h;

	ofl_hash_init(&h);
	ofl_hash_update(&h, p, n);
	ofl_hash_final_hex(&h, out);
}

/*
 * A flush right after a full frame, while the worker threads compress and
 * commit it: each flush commits all written so far (the threads' commits
 * hold the lock a moment, which a flush must wait out, not take for
 * another process's).  The race is narrow: a number of rounds.
 */
static void
test_flush_busy(void)
{
	struct ofl_store	*st;
	struct ofl_writer	*w;
	struct ofl_reader	*r;
	unsigned char		*frame;
	char			 id[OFL_ID_MAX + 1], *p;
	uint64_t		 written = 0, seen;
	size_t			 i;
	int			 bad = 0;

	p = subdir("flushbusy");
	st = ofl_store_open(p, OFL_RDWR);
	free(p);
	ok(st != NULL, "flush race: open a store");
	if (st == NULL)
		return;
	w = begin(st, "flush");
	frame = ofl_xmalloc(FRAME + 100);
	for (i = 0; i < FRAME + 100; i++)
		frame[i] = i % 61 == 60 ? '\n' : 'a' + (i * 7 + i / 61) % 26;
	snprintf(id, sizeof id, "%s", w != NULL ? ofl_writer_id(w) : "");
	for (i = 0; w != NULL && i < 48 && !bad; i++) {
		if (ofl_writer_write(w, frame, FRAME + 100) == -1 ||
		    ofl_writer_flush(w) == -1) {
			bad = 1;
			break;
		}
		written += FRAME + 100;
		r = ofl_reader_open(st, id);
		seen = r != NULL ? ofl_reader_bytes(r) : 0;
		ofl_reader_close(r);
		if (seen != written) {
			printf("# round %zu: %" PRIu64 " bytes written and"
			    " flushed, %" PRIu64 " committed\n", i, written,
			    seen);
			bad = 1;
		}
	}
	ok(w != NULL && !bad, "flush race: every flush commits all written"
	    " (%zu rounds)", i);
	if (w != NULL)
		ofl_writer_finish(w, NULL, NULL);
	free(frame);
	ofl_store_close(st);
}

/* Write in pieces of varying size, to exercise the writer's buffering. */
static int
write_all(struct ofl_writer *w, const unsigned char *p, size_t n)
{
	static const size_t	sizes[] = { 1, 4093, 65536, 300001, 7 };
	size_t			i = 0, take;

	while (n > 0) {
		take = sizes[i++ % 5];
		if (take > n)
			take = n;
		if (ofl_writer_write(w, p, take) == -1)
			return -1;
		p += take;
		n -= take;
	}
	return 0;
}

static struct ofl_writer *
begin(struct ofl_store *st, const char *label)
{
	struct ofl_meta	init;

	memset(&init, 0, sizeof init);
	init.label = (char *)label;
	return ofl_writer_begin(st, &init);
}

static int
store_bytes(struct ofl_store *st, const void *p, size_t n, const char *label,
    struct ofl_meta *out)
{
	struct ofl_writer	*w;

	if ((w = begin(st, label)) == NULL)
		return -1;
	if (n > 0 && ofl_writer_write(w, p, n) == -1) {
		ofl_writer_finish(w, NULL, NULL);
		return -1;
	}
	return ofl_writer_finish(w, NULL, out);
}

/* 1 if the artifact's content is exactly p[0..n). */
static int
reads_back(struct ofl_store *st, const char *id, const void *p, size_t n)
{
	struct ofl_reader	*r;
	unsigned char		*buf;
	ssize_t			 got;
	int			 same;

	if ((r = ofl_reader_open(st, id)) == NULL)
		return 0;
	buf = ofl_xmalloc(n + 1);
	got = ofl_reader_read_full(r, buf, n + 1);
	same = got == (ssize_t)n && memcmp(buf, p, n) == 0;
	free(buf);
	ofl_reader_close(r);
	return same;
}

/* Byte offset where 1-based line k starts. */
static uint64_t
line_start(const struct content *c, uint64_t k)
{
	size_t	i;

	if (k <= 1)
		return 0;
	for (i = 0; i < c->len; i++)
		if (c->data[i] == '\n' && --k == 1)
			return i + 1;
	return UINT64_MAX;
}

/* 1-based line holding byte offset off. */
static uint64_t
line_at(const struct content *c, uint64_t off)
{
	uint64_t	n = 1;
	size_t		i;

	for (i = 0; i < off && i < c->len; i++)
		if (c->data[i] == '\n')
			n++;
	return n;
}

static size_t
count_files(const char *dir)
{
	DIR		*d, *sd;
	struct dirent	*e, *f;
	struct ofl_buf	 b;
	size_t		 n = 0;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		ofl_buf_init(&b);
		ofl_buf_addf(&b, "%s/%s", dir, e->d_name);
		if ((sd = opendir(ofl_buf_str(&b))) != NULL) {
			while ((f = readdir(sd)) != NULL)
				if (f->d_name[0] != '.')
					n++;
			closedir(sd);
		}
		ofl_buf_free(&b);
	}
	closedir(d);
	return n;
}

static void
test_hash(void)
{
	static const struct {
		const char	*name;
		size_t		 len;
		int		 pattern;	/* 0: 'a', 1: i*7 + i/256 */
		const char	*hex;
	} known[] = {
		/* Digests from xxh128sum: every path of XXH3-128. */
		{ "empty", 0, 0, "99aa06d3014798d86001c324468d497f" },
		{ "16 x a", 16, 0, "ff9f5054066830d0245750ddc4828d15" },
		{ "17 x a", 17, 0, "c77749c0e343aac52d27c0235c9dd6e1" },
		{ "128 x a", 128, 0, "134e2a91815f3105ef354c1b9e35d99d" },
		{ "129 x a", 129, 0, "a7758bdd09a0b20fd53a57a017f40a2f" },
		{ "240 x a", 240, 0, "0163721cdafde206ea57d24533760a39" },
		{ "241 x a", 241, 0, "3e7bebe4a2c07b0bf6cfef5c5aca1930" },
		{ "1025 x a", 1025, 0, "c91deb339ee4dc16d46a63acfb8da1ea" },
		{ "100000 pattern bytes", 100000, 1,
		    "4e53faeda1b5812bb25cea78018497ff" },
		{ "3000000 pattern bytes", 3000000, 1,
		    "59759458ea6b4e69ed965a1b2513b83e" }
	};
	/* Stores made before keep BLAKE2b-256 (b2sum -l 256). */
	static const struct {
		const char	*name;
		size_t		 len;
		const char	*hex;
	} old[] = {
		{ "empty", 0, "0e5751c026e543b2e8ab2eb06099daa1"
		    "d1e5df47778f7787faab45cdf12fe3a8" },
		{ "128 x a (one full block)", 128,
		    "ae2aa48507885c4c950fb809b2076f95"
		    "9cde9f8ea6da260d9a3587df33dac450" },
		{ "129 x a", 129, "2f64744a6de0d2c0b56e64cf6e29a5aa"
		    "a255010d415d51c75ccc82f73dccd865" },
		{ "100000 pattern bytes", 100000,
		    "c78a250eae2dcf122d0452fe67cd4851"
		    "a975146239a4fbd425869f4773a7916b" }
	};
	unsigned char	*buf;
	struct ofl_hash	 h;
	char		 hex[OFL_HASH_HEX];
	size_t		 i, j, off, step, len;

	hash_hex("abc", 3, hex);
	is_str(hex, "06b05ab6733a618578af5f94892f3950", "xxh128 of \"abc\"");
	buf = ofl_xmalloc(3000000);
	for (i = 0; i < sizeof known / sizeof known[0]; i++) {
		for (j = 0; j < known[i].len; j++)
			buf[j] = known[i].pattern ? (unsigned char)(j * 7 +
			    j / 256) : 'a';
		hash_hex(buf, known[i].len, hex);
		is_str(hex, known[i].hex, "xxh128 of %s", known[i].name);
	}
	for (i = 0; i < sizeof old / sizeof old[0]; i++) {
		for (j = 0; j < old[i].len; j++)
			buf[j] = old[i].len == 100000 ? (unsigned char)(j * 7 +
			    j / 256) : 'a';
		ofl_hash_init_like(&h, old[i].hex);
		ofl_hash_update(&h, buf, old[i].len);
		ofl_hash_final_hex(&h, hex);
		is_str(hex, old[i].hex, "a 64-digit hash is checked as "
		    "blake2b-256: %s", old[i].name);
	}
	ofl_hash_init_like(&h, known[0].hex);
	ofl_hash_final_hex(&h, hex);
	is_str(hex, known[0].hex, "a 32-digit hash is checked as xxh128");

	/* Fed in pieces of every size up to 300, the same digest. */
	for (j = 0; j < 3000000; j++)
		buf[j] = (unsigned char)(j * 7 + j / 256);
	for (step = 1; step <= 300; step++) {
		len = step < 100 ? 100000 : 3000000;
		ofl_hash_init(&h);
		for (off = 0; off < len; off += step)
			ofl_hash_update(&h, buf + off, off + step > len ?
			    len - off : step);
		ofl_hash_final_hex(&h, hex);
		if (strcmp(hex, known[len == 100000 ? 8 : 9].hex) != 0)
			break;
	}
	ok(step == 301, "incremental hashing in pieces of 1..300 bytes "
	    "(first bad piece size: %zu)", step);
	/* Zero-length updates change nothing. */
	ofl_hash_init(&h);
	ofl_hash_update(&h, "a", 0);
	ofl_hash_update(&h, "ab", 2);
	ofl_hash_update(&h, "", 0);
	ofl_hash_update(&h, "c", 1);
	ofl_hash_final_hex(&h, hex);
	is_str(hex, "06b05ab6733a618578af5f94892f3950",
	    "empty updates are no-ops");
	free(buf);
}

static void
test_fmt(void)
{
	static const struct {
		uint64_t	 n;
		const char	*size;
		const char	*count;
	} t[] = {
		{ 0, "0 B", "0" },
		{ 1, "1 B", "1" },
		{ 999, "999 B", "999" },
		{ 1000, "1.0 kB", "1,000" },
		{ 1049, "1.0 kB", "1,049" },
		{ 1051, "1.1 kB", "1,051" },
		{ 9940, "9.9 kB", "9,940" },
		{ 10000, "10 kB", "10,000" },
		{ 41230, "41 kB", "41,230" },
		{ 588895, "589 kB", "588,895" },
		{ 999999, "1.0 MB", "999,999" },
		{ 2400000, "2.4 MB", "2,400,000" },
		{ 1234567, "1.2 MB", "1,234,567" },
		{ 100000000, "100 MB", "100,000,000" },
		{ 5000000000ULL, "5.0 GB", "5,000,000,000" },
		{ 1000000000000ULL, "1.0 TB", "1,000,000,000,000" },
		{ UINT64_MAX, "18 EB", "18,446,744,073,709,551,615" }
	};
	char	buf[64], small[5];
	size_t	i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (t[i].n == UINT64_MAX) {
			/* Past PB: only check it is bounded and NUL-ended. */
			ofl_fmt_size(buf, sizeof buf, t[i].n);
			ok(strlen(buf) > 0 && strlen(buf) < 16,
			    "ofl_fmt_size(UINT64_MAX) is short: '%s'", buf);
		} else {
			ofl_fmt_size(buf, sizeof buf, t[i].n);
			is_str(buf, t[i].size, "ofl_fmt_size(%llu)",
			    (unsigned long long)t[i].n);
		}
		ofl_fmt_count(buf, sizeof buf, t[i].n);
		is_str(buf, t[i].count, "ofl_fmt_count(%llu)",
		    (unsigned long long)t[i].n);
	}
	memset(small, 'X', sizeof small);
	ofl_fmt_count(small, sizeof small, 1234567);
	ok(memchr(small, '\0', sizeof small) != NULL,
	    "ofl_fmt_count into 5 bytes stays NUL-terminated");
	memset(small, 'X', sizeof small);
	ofl_fmt_size(small, sizeof small, 2400000);
	ok(memchr(small, '\0', sizeof small) != NULL,
	    "ofl_fmt_size into 5 bytes stays NUL-terminated");
	ofl_fmt_duration(buf, sizeof buf, 85);
	is_str(buf, "85 ms", "ofl_fmt_duration(85)");
	ofl_fmt_duration(buf, sizeof buf, 1300);
	is_str(buf, "1.3 s", "ofl_fmt_duration(1300)");
	ofl_fmt_duration(buf, sizeof buf, 252000);
	is_str(buf, "4 min 12 s", "ofl_fmt_duration(252000)");
	ok(ofl_tokens(0) == 0 && ofl_tokens(1) == 1 && ofl_tokens(4) == 1 &&
	    ofl_tokens(5) == 2 && ofl_tokens(24000) == 6000 &&
	    ofl_tokens(24001) == 6001, "ofl_tokens is ceil(bytes / 4)");
}

static void
test_parse(void)
{
	static const struct {
		const char	*s;
		int64_t		 ms;
	} dur[] = {
		{ "0", 0 },
		{ "45", 45000 },
		{ "30s", 30000 },
		{ "15m", 900000 },
		{ "3h", 10800000 },
		{ "7d", 604800000 },
		{ "2w", 1209600000 }
	};
	static const char *bad_dur[] = {
		"", "s", "x", "-1", "+1", "1.5h", "3ms", "3y", "1hh", " 1",
		"99999999999999999999", "999999999999999999w"
	};
	static const struct {
		const char	*s;
		uint64_t	 n;
	} size[] = {
		{ "0", 0 },
		{ "512", 512 },
		{ "64k", 65536 },
		{ "64K", 65536 },
		{ "64kB", 65536 },
		{ "2M", 2097152 },
		{ "2MiB", 2097152 },
		{ "1G", 1073741824 },
		{ "1T", 1099511627776ULL }
	};
	static const char *bad_size[] = {
		"", "k", "x", "-1", "1.5M", "2X", "2MBx", "2 M", "20000000000T",
		"99999999999999999999"
	};
	int64_t		ms;
	uint64_t	n;
	long long	v;
	size_t		i;

	for (i = 0; i < sizeof dur / sizeof dur[0]; i++) {
		ms = -1;
		ok(ofl_parse_duration(dur[i].s, &ms) == 0 && ms == dur[i].ms,
		    "ofl_parse_duration(\"%s\") = %lld", dur[i].s,
		    (long long)dur[i].ms);
	}
	for (i = 0; i < sizeof bad_dur / sizeof bad_dur[0]; i++) {
		ofl_clearerr();
		ok(ofl_parse_duration(bad_dur[i], &ms) == -1 &&
		    ofl_errcode() == OFL_EXIT_USAGE,
		    "ofl_parse_duration(\"%s\") is a usage error", bad_dur[i]);
	}
	for (i = 0; i < sizeof size / sizeof size[0]; i++) {
		n = 1;
		ok(ofl_parse_size(size[i].s, &n) == 0 && n == size[i].n,
		    "ofl_parse_size(\"%s\") = %llu", size[i].s,
		    (unsigned long long)size[i].n);
	}
	for (i = 0; i < sizeof bad_size / sizeof bad_size[0]; i++) {
		ofl_clearerr();
		ok(ofl_parse_size(bad_size[i], &n) == -1 &&
		    ofl_errcode() == OFL_EXIT_USAGE,
		    "ofl_parse_size(\"%s\") is a usage error", bad_size[i]);
	}
	ok(ofl_parse_num("17", 0, 100, &v) == 0 && v == 17,
	    "ofl_parse_num(17)");
	ok(ofl_parse_num("101", 0, 100, &v) == -1 &&
	    ofl_errcode() == OFL_EXIT_USAGE, "ofl_parse_num over max");
	ok(ofl_parse_num("1x", 0, 100, &v) == -1, "ofl_parse_num(\"1x\")");
	/* a, then e acute in two bytes, then b. */
	ok(ofl_utf8_cut("a\xc3\xa9" "b", 2) == 1,
	    "ofl_utf8_cut inside a character");
	ok(ofl_utf8_cut("a\xc3\xa9" "b", 3) == 3,
	    "ofl_utf8_cut after a character");
	ok(ofl_utf8_cut("\xc3\xa9" "b", 1) == 0,
	    "ofl_utf8_cut of the first character");
	ok(ofl_utf8_cut("a\x80\x80\x80\x80" "b", 4) == 4,
	    "ofl_utf8_cut in bytes that are no UTF-8");
	ok(ofl_utf8_whole("a\xc3\xa9", 3) == 3 &&
	    ofl_utf8_whole("a\xc3", 2) == 1 &&
	    ofl_utf8_whole("ab", 2) == 2 &&
	    ofl_utf8_whole("a\xe2\x82", 3) == 1 &&
	    ofl_utf8_whole("\x80\x80\x80\x80", 4) == 4,
	    "ofl_utf8_whole: a last character whole, cut, or no UTF-8");
	setenv("OFL_TEST_SIZE", "2k", 1);
	ok(ofl_env_size("OFL_TEST_SIZE", &n) == 1 && n == 2048,
	    "ofl_env_size(2k)");
	setenv("OFL_TEST_SIZE", "", 1);
	n = 7;
	ok(ofl_env_size("OFL_TEST_SIZE", &n) == 0 && n == 7,
	    "ofl_env_size of an empty value");
	setenv("OFL_TEST_SIZE", "2q", 1);
	ok(ofl_env_size("OFL_TEST_SIZE", &n) == -1, "ofl_env_size(2q)");
	unsetenv("OFL_TEST_SIZE");
}

/* A library opened when first used, and one that is not there. */
static void
test_dl(void)
{
	static const char *none[] = { "libofl-none.so.9", NULL };
	static const char *libc[] = { "libofl-none.so.9", "libc.so.6", NULL };
	void	*h;

	ofl_clearerr();
	ok(ofl_dl_open("libnone", none, &h) == -1 && h == NULL &&
	    ofl_errcode() == OFL_EXIT_FAIL && strncmp(ofl_errmsg(),
	    "cannot load libnone: libofl-none.so.9: ", 39) == 0,
	    "a library not there: one line, names the first name");
	ok(ofl_dl_open("libc", libc, &h) == 0 && h != NULL,
	    "the first of the names that opens");
	ok(h != NULL && ofl_dl_sym(h, "libc", "libc.so.6", "strlen") != NULL,
	    "a symbol it has");
	ofl_clearerr();
	ok(h != NULL && ofl_dl_sym(h, "libc", "libc.so.6",
	    "ofl_no_such_symbol") == NULL && strcmp(ofl_errmsg(),
	    "cannot load libc: libc.so.6: ofl_no_such_symbol") == 0,
	    "a symbol it lacks: one line, and closed");
}

static void
test_ids(void)
{
	static const struct {
		const char	*line;
		size_t		 n;	/* 0: strlen */
		size_t		 want;	/* bytes consumed */
		const char	*id;
	} ref[] = {
		{ "ofl:k7m2q9xd json 2.4 MB 41,230 lines", 0, 12, "k7m2q9xd" },
		{ "ofl:k7m2q9xd", 0, 12, "k7m2q9xd" },
		{ "ofl:K7M2Q9XD\n", 0, 12, "k7m2q9xd" },
		{ "ofl:ab12\tx", 0, 8, "ab12" },
		{ "ofl:ab12: stored only in part", 0, 8, "ab12" },
		{ "ofl:ab12\r\n", 0, 8, "ab12" },
		{ "ofl:0123456789ab rest", 0, 16, "0123456789ab" },
		{ "ofl:k7m2q9xd json", 6, 6, "k7" },
		{ "ofl:0123456789abc", 0, 0, NULL },	/* 13 characters */
		{ "ofl:", 0, 0, NULL },
		{ "ofl: k7m2", 0, 0, NULL },
		{ "ofl:k7m2!", 0, 0, NULL },
		{ "ofl:k7m2/x", 0, 0, NULL },
		{ "ofl:abci", 0, 0, NULL },	/* i is not an ID letter */
		{ "xofl:k7m2", 0, 0, NULL },
		{ "OFL:k7m2", 0, 0, NULL },
		{ " ofl:k7m2", 0, 0, NULL },
		{ "ofl:../x", 0, 0, NULL }
	};
	char	id[OFL_ID_MAX + 1], id2[OFL_ID_MAX + 1];
	size_t	i, n, got;

	for (i = 0; i < sizeof ref / sizeof ref[0]; i++) {
		n = ref[i].n != 0 ? ref[i].n : strlen(ref[i].line);
		memset(id, 'Q', sizeof id);
		got = ofl_ref_parse(ref[i].line, n, id);
		if (ref[i].id == NULL)
			ok(got == 0, "ofl_ref_parse rejects \"%s\"",
			    ref[i].line);
		else
			ok(got == ref[i].want && strcmp(id, ref[i].id) == 0,
			    "ofl_ref_parse, case %zu: %zu bytes, %s", i,
			    ref[i].want, ref[i].id);
	}
	/* Reference lines of a stream: exactly what ofl prints. */
	{
		static const struct {
			const char	*line;
			const char	*ref;	/* NULL: not a reference line */
			uint64_t	 from, to;
		} rl[] = {
			{ "ofl:k7m2q9xd", "k7m2q9xd", 0, 0 },
			{ "ofl:K7M2Q9XD\r", "k7m2q9xd", 0, 0 },
			{ "ofl:k7m2q9xd:120-180", "k7m2q9xd", 120, 180 },
			{ "ofl:k7m2q9xd:17", "k7m2q9xd", 17, 17 },
			{ "ofl:k7m2:3-9  (4.2)", "k7m2", 3, 9 },
			{ "ofl:k7m2:3-9  [a/b.c]  # Install  (12.0)", "k7m2", 3,
			    9 },
			{ "ofl:k7m2:3  (substring)", "k7m2", 3, 3 },
			{ "ofl:k7m2q9xd json 2.4 MB 41,230 lines", "k7m2q9xd", 0,
			    0 },
			{ "ofl:k7m2q9xd text 0 B 0 lines  $ true  exit 0",
			    "k7m2q9xd", 0, 0 },
			{ "ofl:k7m2q9xd  log   8.1 MB  96004  4m  2  -  -  make",
			    "k7m2q9xd", 0, 0 },
			{ "ofl:k7m2q9xd\tjson\t14 B\t1", "k7m2q9xd", 0, 0 },
			{ "ofl:abc something happened", NULL, 0, 0 },
			{ "ofl:abc text", NULL, 0, 0 },
			{ "ofl:abc text 12 apples", NULL, 0, 0 },
			{ "ofl:abc json 2.4MB", NULL, 0, 0 },
			{ "ofl:abc:12 seconds", NULL, 0, 0 },
			{ "ofl:abc:12-  (1.0)", NULL, 0, 0 },
			{ "ofl:abc:9-3", NULL, 0, 0 },
			{ "ofl:abc:0", NULL, 0, 0 },
			{ "ofl:abc:3-9 (4.2)", NULL, 0, 0 },
			{ "ofl:abc:3-9  title", NULL, 0, 0 },
			{ "ofl:abc: stored only in part", NULL, 0, 0 },
			{ "ofl:abci", NULL, 0, 0 },
			{ "ofl:", NULL, 0, 0 },
			{ " ofl:abc", NULL, 0, 0 }
		};
		struct ofl_ref	r;
		int		is;

		for (i = 0; i < sizeof rl / sizeof rl[0]; i++) {
			is = ofl_ref_line(rl[i].line, strlen(rl[i].line), &r);
			if (rl[i].ref == NULL)
				ok(is == 0, "ofl_ref_line: data: \"%s\"",
				    rl[i].line);
			else
				ok(is == 1 && strcmp(r.ref, rl[i].ref) == 0 &&
				    r.from == rl[i].from && r.to == rl[i].to,
				    "ofl_ref_line: a reference: \"%s\"",
				    rl[i].line);
		}
		ok(ofl_ref_line("ofl:k7m2:3-9  [a/b.c]", 21, &r) == 1 &&
		    r.from == 3 && r.to == 9 && strcmp(r.tag, "a/b.c") == 0,
		    "ofl_ref_line: a hit in a member as -q prints it");
		ok(ofl_ref_line("ofl:k7m2:3-9  [a/b.c]  # Install  (12.0)", 40,
		    &r) == 1 && strcmp(r.tag, "a/b.c") == 0,
		    "ofl_ref_line: a member's hit with a title: its member");
		ok(ofl_ref_line("ofl:k7m2:3-9  [x] then  (1.0)", 29, &r) == 1 &&
		    r.tag[0] == '\0', "ofl_ref_line: a title in brackets is no member");
		ok(ofl_ref_line("ofl:k7m2:3-9  [x]y", 18, &r) == 0,
		    "ofl_ref_line: a bracket and text after it: data");
		ok(ofl_ref_line("ofl:k7m2:3-9  (4.2)", 19, &r) == 1 &&
		    r.tag[0] == '\0', "ofl_ref_line: no member, no tag");
		ok(ofl_ref_arg("ofl:k7m2:3-5", &r) == 0 &&
		    strcmp(r.ref, "k7m2") == 0 && r.from == 3 && r.to == 5 &&
		    strcmp(ofl_ref_name(&r), "k7m2") == 0,
		    "ofl_ref_arg: ofl:ID:A-B");
		ok(ofl_ref_arg("@2", &r) == 0 && strcmp(r.ref, "@2") == 0 &&
		    r.from == 0 && strcmp(ofl_ref_name(&r), "@2") == 0,
		    "ofl_ref_arg: @2, no range");
		ok(ofl_ref_arg("ofl:k7m2", &r) == 0 &&
		    strcmp(ofl_ref_name(&r), "ofl:k7m2") == 0,
		    "ofl_ref_arg: the name of a plain reference is as given");
		ok(ofl_ref_arg("k7m2:5-3", &r) == -1 &&
		    ofl_errcode() == OFL_EXIT_USAGE &&
		    ofl_ref_arg("k7m2:", &r) == -1 &&
		    ofl_ref_arg("k7m2:x", &r) == -1 &&
		    ofl_ref_arg(":3", &r) == -1,
		    "ofl_ref_arg: malformed ranges are usage errors");
	}
	ofl_id_new(id);
	ofl_id_new(id2);
	ok(strlen(id) == OFL_ID_LEN && ofl_id_valid(id, strlen(id)),
	    "ofl_id_new gives %d ID characters: %s", OFL_ID_LEN, id);
	ok(strcmp(id, id2) != 0, "two new IDs differ");
	ok(ofl_id_valid("k7m2", 4) && ofl_id_valid("K7M2", 4) &&
	    ofl_id_valid("0123456789ab", 12), "valid IDs");
	ok(!ofl_id_valid("", 0) && !ofl_id_valid("0123456789abc", 13) &&
	    !ofl_id_valid("../x", 4) && !ofl_id_valid("ab c", 4) &&
	    !ofl_id_valid("abil", 4) && !ofl_id_valid("ab\0c", 4) &&
	    !ofl_id_valid("@", 1), "invalid IDs");
}

static void
test_open(void)
{
	struct ofl_store	*st;
	char			*p;

	p = subdir("nostore");
	ofl_clearerr();
	st = ofl_store_open(p, OFL_RDONLY);
	ok(st == NULL && ofl_errcode() == OFL_EXIT_FAIL &&
	    access(p, F_OK) == -1,
	    "read-only open of a missing store fails and creates nothing");
	st = ofl_store_open(p, OFL_RDWR);
	ok(st != NULL, "read-write open creates the store");
	if (st != NULL)
		is_str(ofl_store_path(st), p, "ofl_store_path");
	ofl_store_close(st);
	st = ofl_store_open(p, OFL_RDONLY);
	ok(st != NULL, "read-only open of an existing store");
	if (st != NULL) {
		ofl_clearerr();
		ok(ofl_writer_begin(st, NULL) == NULL &&
		    ofl_errcode() == OFL_EXIT_FAIL,
		    "no writer on a read-only store");
	} else
		ok(0, "no writer on a read-only store");
	ofl_store_close(st);

	/* Group-writable stores are refused. */
	chmod(p, 0770);
	st = ofl_store_open(p, OFL_RDWR);
	ok(st == NULL && strstr(ofl_errmsg(), "writable by group") != NULL,
	    "a group-writable store is refused: %s", ofl_errmsg());
	ofl_store_close(st);
	chmod(p, 0700);
	free(p);

	/* A file where the store should be. */
	p = subdir("afile");
	close(creat(p, 0600));
	st = ofl_store_open(p, OFL_RDWR);
	ok(st == NULL, "a plain file is not a store: %s", ofl_errmsg());
	ofl_store_close(st);
	free(p);
}

static void
test_roundtrip(void)
{
	struct content		 c;
	struct ofl_store	*st;
	struct ofl_writer	*w;
	struct ofl_reader	*r;
	struct ofl_meta		 init, fin, m;
	const struct ofl_meta	*rm;
	unsigned char		*buf;
	char			 hex[OFL_HASH_HEX], id[OFL_ID_MAX + 1], *p;
	size_t			 i, flush_at, frame2;
	uint64_t		 lines, k, off, badline = 0, badoff = 0;
	uint64_t		 offs[16];
	int64_t			 got;
	int			 same;

	/*
	 * Content: short lines until a newline is the last byte of the first
	 * frame, a line longer than a frame, a flush (so frames stop being
	 * aligned), more lines, and a last line without a newline.
	 */
	memset(&c, 0, sizeof c);
	for (i = 0; c.len < FRAME - 300; i++)
		content_line(&c, 20 + (i * 37) % 211, 1);
	content_line(&c, FRAME - c.len, 1);
	content_line(&c, 40, 1);
	content_line(&c, FRAME + FRAME / 2, 1);
	flush_at = c.len + 12345;
	while (c.len < 4 * FRAME + FRAME / 2)
		content_line(&c, 1 + (c.len * 13) % 97, 1);
	content_line(&c, 777, 0);
	lines = line_at(&c, c.len - 1);

	p = subdir("rt");
	st = ofl_store_open(p, OFL_RDWR);
	free(p);
	ok(st != NULL, "open a store");
	if (st == NULL)
		return;
	memset(&init, 0, sizeof init);
	init.label = "big";
	init.command = "gen --big";
	init.cwd = "/some/where";
	init.session = "s1";
	init.expires = 4102444800000LL;
	w = ofl_writer_begin(st, &init);
	ok(w != NULL, "begin a writer");
	if (w == NULL)
		return;
	snprintf(id, sizeof id, "%s", ofl_writer_id(w));
	ok(ofl_id_valid(id, strlen(id)) && strlen(id) == OFL_ID_LEN,
	    "writer has an ID: %s", id);
	ok(write_all(w, c.data, flush_at) == 0, "write %zu bytes", flush_at);
	ok(ofl_writer_flush(w) == 0, "flush mid-frame");
	ok(ofl_writer_bytes(w) == flush_at, "ofl_writer_bytes");

	/* Committed bytes are visible while the writer goes on. */
	r = ofl_reader_open(st, id);
	ok(r != NULL && ofl_reader_meta(r)->state == OFL_STATE_WRITING &&
	    ofl_reader_bytes(r) == flush_at,
	    "a reader sees the committed bytes of an artifact being written");
	if (r != NULL) {
		buf = ofl_xmalloc(flush_at);
		ok(ofl_reader_read_full(r, buf, flush_at) == (ssize_t)flush_at &&
		    memcmp(buf, c.data, flush_at) == 0,
		    "and they read back byte-identical");
		free(buf);
	}
	ofl_reader_close(r);

	ok(write_all(w, c.data + flush_at, c.len - flush_at) == 0,
	    "write the rest");
	memset(&fin, 0, sizeof fin);
	fin.has_exit = 1;
	fin.exit_status = 42;
	fin.duration_ms = 1234;
	memset(&m, 0, sizeof m);
	ok(ofl_writer_finish(w, &fin, &m) == 0, "finish");
	hash_hex(c.data, c.len, hex);
	is_str(m.id, id, "finish reports the ID");
	is_str(m.hash, hex, "the hash is XXH3-128 of the content");
	ok(m.bytes == c.len, "bytes: %llu", (unsigned long long)m.bytes);
	ok(m.lines == lines, "lines: %llu (want %llu)",
	    (unsigned long long)m.lines, (unsigned long long)lines);
	ok(m.state == OFL_STATE_COMPLETE && !m.incomplete,
	    "complete and not cut short");
	ok(m.stored > 0 && m.stored < c.len, "stored compressed: %llu",
	    (unsigned long long)m.stored);
	ok(m.has_exit && m.exit_status == 42 && m.duration_ms == 1234,
	    "exit status and duration kept");
	ok(m.label != NULL && strcmp(m.label, "big") == 0 &&
	    m.command != NULL && strcmp(m.command, "gen --big") == 0 &&
	    m.cwd != NULL && strcmp(m.cwd, "/some/where") == 0 &&
	    m.session != NULL && strcmp(m.session, "s1") == 0 &&
	    m.expires == 4102444800000LL, "label, command, cwd, session, "
	    "expires kept");
	ok(m.created > 0 && m.used >= m.created, "created and used set");
	ofl_meta_free(&m);
	ok(ofl_store_meta(st, id, &m) == 0 && m.bytes == c.len &&
	    m.lines == lines && strcmp(m.hash, hex) == 0,
	    "ofl_store_meta agrees");
	ofl_meta_free(&m);

	r = ofl_reader_open(st, id);
	ok(r != NULL, "open a reader");
	if (r == NULL)
		goto out;
	rm = ofl_reader_meta(r);
	ok(ofl_reader_bytes(r) == c.len && ofl_reader_lines(r) == lines &&
	    rm->state == OFL_STATE_COMPLETE,
	    "reader: bytes, lines and state");
	/* Whole content, in odd-sized reads. */
	buf = ofl_xmalloc(c.len + 1);
	{
		size_t	got_n = 0;
		ssize_t	n;

		while ((n = ofl_reader_read(r, buf + got_n, got_n + 7777 >
		    c.len + 1 ? c.len + 1 - got_n : 7777)) > 0)
			got_n += (size_t)n;
		ok(n == 0 && got_n == c.len && memcmp(buf, c.data, c.len) == 0,
		    "round trip of %zu bytes in 7777-byte reads", c.len);
		ok(ofl_reader_tell(r) == c.len, "tell at the end");
		ok(ofl_reader_read(r, buf, 10) == 0, "read at the end gives 0");
	}

	/* Seek by byte, around frame boundaries. */
	frame2 = flush_at;	/* the short frame ends here */
	offs[0] = 0;
	offs[1] = FRAME - 1;
	offs[2] = FRAME;
	offs[3] = FRAME + 1;
	offs[4] = 2 * FRAME - 3;
	offs[5] = frame2 - 1;
	offs[6] = frame2;
	offs[7] = frame2 + FRAME - 2;
	offs[8] = frame2 + FRAME;
	offs[9] = c.len - 1;
	offs[10] = c.len - 5000;
	offs[11] = 12345;
	same = 1;
	for (i = 0; i < 12; i++) {
		unsigned char	small[4096];
		size_t		want = c.len - offs[i] < sizeof small ?
				    c.len - offs[i] : sizeof small;

		if (ofl_reader_seek(r, offs[i]) == -1 ||
		    ofl_reader_tell(r) != offs[i] ||
		    ofl_reader_read_full(r, small, sizeof small) != (ssize_t)want ||
		    memcmp(small, c.data + offs[i], want) != 0) {
			same = 0;
			badoff = offs[i];
			break;
		}
	}
	ok(same, "seek by byte and read 4 kB across frame boundaries "
	    "(first bad offset %llu)", (unsigned long long)badoff);
	ok(ofl_reader_seek(r, c.len) == 0 && ofl_reader_read(r, buf, 1) == 0,
	    "seek to the end, read gives 0");
	ofl_clearerr();
	ok(ofl_reader_seek(r, c.len + 1) == -1 &&
	    ofl_errcode() == OFL_EXIT_NOMATCH, "seek beyond the end fails");

	/* Seek by line: every 101st line, and the lines at the boundaries. */
	same = 1;
	for (k = 1; k <= lines && same; k += 101) {
		if (ofl_reader_seek_line(r, k) != (int64_t)line_start(&c, k)) {
			same = 0;
			badline = k;
		}
	}
	ok(same, "seek by line, every 101st line (first bad: %llu)",
	    (unsigned long long)badline);
	k = line_at(&c, FRAME);
	ok(line_start(&c, k) == FRAME &&
	    ofl_reader_seek_line(r, k) == FRAME,
	    "the line starting exactly at the frame boundary (line %llu)",
	    (unsigned long long)k);
	ok(ofl_reader_seek_line(r, k - 1) == (int64_t)line_start(&c, k - 1),
	    "the line ending at the frame boundary");
	ok(ofl_reader_seek_line(r, k + 1) == (int64_t)line_start(&c, k + 1),
	    "the line after it");
	ok(ofl_reader_seek_line(r, k + 2) == (int64_t)line_start(&c, k + 2),
	    "the line after the line longer than a frame");
	k = line_at(&c, frame2);
	ok(ofl_reader_seek_line(r, k) == (int64_t)line_start(&c, k) &&
	    ofl_reader_seek_line(r, k + 1) == (int64_t)line_start(&c, k + 1),
	    "the lines around the flushed frame's end (line %llu)",
	    (unsigned long long)k);
	got = ofl_reader_seek_line(r, lines);
	ok(got == (int64_t)line_start(&c, lines) && got > 0 &&
	    ofl_reader_read_full(r, buf, 1000) == 777 &&
	    memcmp(buf, c.data + c.len - 777, 777) == 0,
	    "seek to the last line (no newline) and read it");
	ok(ofl_reader_seek_line(r, 1) == 0 && ofl_reader_tell(r) == 0,
	    "seek to line 1");
	ofl_clearerr();
	ok(ofl_reader_seek_line(r, lines + 1) == -1 &&
	    ofl_errcode() == OFL_EXIT_NOMATCH, "seek past the last line fails");
	ok(ofl_reader_seek_line(r, lines + 1000000) == -1,
	    "seek far past the last line fails");

	/* ofl_reader_line_of: offsets in, at and after newlines. */
	same = 1;
	for (off = 0; off < c.len && same; off += 9973) {
		if (ofl_reader_line_of(r, off) != (int64_t)line_at(&c, off)) {
			same = 0;
			badoff = off;
		}
	}
	ok(same, "ofl_reader_line_of every 9973rd byte (first bad: %llu)",
	    (unsigned long long)badoff);
	k = line_at(&c, FRAME);
	ok(ofl_reader_line_of(r, FRAME - 1) == (int64_t)k - 1 &&
	    ofl_reader_line_of(r, FRAME) == (int64_t)k,
	    "a newline belongs to the line it ends, at the frame boundary");
	ok(ofl_reader_line_of(r, 0) == 1, "byte 0 is on line 1");
	ok(ofl_reader_line_of(r, c.len - 1) == (int64_t)lines,
	    "the last byte is on the last line");
	ok(ofl_reader_line_of(r, frame2) == (int64_t)line_at(&c, frame2) &&
	    ofl_reader_line_of(r, frame2 - 1) ==
	    (int64_t)line_at(&c, frame2 - 1),
	    "line of the bytes around the flushed frame's end");
	ofl_reader_close(r);
	free(buf);

out:
	ofl_store_close(st);
	free(c.data);
}

static int
list_cb(const struct ofl_meta *m, void *arg)
{
	struct ofl_buf	*b = arg;

	ofl_buf_addf(b, "%s:%s ", m->label ? m->label : "-",
	    ofl_kind_name(m->kind));
	return 0;
}

static void
test_empty(void)
{
	struct ofl_store	*st;
	struct ofl_writer	*w;
	struct ofl_reader	*r;
	struct ofl_meta		 m;
	struct ofl_filter	 f;
	struct ofl_buf		 b;
	unsigned char		 buf[16];
	char			 hex[OFL_HASH_HEX], *p;

	p = subdir("empty");
	st = ofl_store_open(p, OFL_RDWR);
	free(p);
	if (st == NULL) {
		ok(0, "open a store: %s", ofl_errmsg());
		return;
	}
	w = begin(st, "nothing");
	ok(w != NULL && ofl_writer_finish(w, NULL, &m) == 0,
	    "an empty artifact");
	hash_hex("", 0, hex);
	ok(m.bytes == 0 && m.lines == 0 && m.kind == OFL_KIND_EMPTY &&
	    strcmp(m.hash, hex) == 0 && !m.incomplete && !m.has_exit &&
	    m.duration_ms == -1, "empty: 0 bytes, 0 lines, kind %s",
	    ofl_kind_name(m.kind));
	r = ofl_reader_open(st, m.id);
	ok(r != NULL && ofl_reader_read(r, buf, sizeof buf) == 0 &&
	    ofl_reader_bytes(r) == 0 && ofl_reader_lines(r) == 0 &&
	    ofl_reader_seek_line(r, 1) == 0,
	    "reading an empty artifact gives nothing");
	ofl_reader_close(r);
	ofl_meta_free(&m);

	ok(store_bytes(st, "one", 3, "one", &m) == 0 && m.lines == 1 &&
	    m.bytes == 3, "no trailing newline: 1 line");
	ofl_meta_free(&m);
	ok(store_bytes(st, "\n\n", 2, "two", &m) == 0 && m.lines == 2,
	    "two newlines: 2 lines");
	ofl_meta_free(&m);
	ok(store_bytes(st, "{\"a\": [1, 2]}\n", 14, "json", &m) == 0 &&
	    m.kind == OFL_KIND_JSON, "kind detected at finish: %s",
	    ofl_kind_name(m.kind));
	ofl_meta_free(&m);

	ofl_buf_init(&b);
	ofl_filter_init(&f);
	ok(ofl_store_list(st, &f, list_cb, &b) == 4 &&
	    strcmp(ofl_buf_str(&b),
	    "json:json two:text one:text nothing:empty ") == 0,
	    "list, newest first: %s", ofl_buf_str(&b));
	ofl_buf_reset(&b);
	f.label = "one";
	ok(ofl_store_list(st, &f, list_cb, &b) == 1 &&
	    strcmp(ofl_buf_str(&b), "one:text ") == 0, "list by label");
	ofl_buf_reset(&b);
	ofl_filter_init(&f);
	f.limit = 2;
	ok(ofl_store_list(st, &f, list_cb, &b) == 2, "list with a limit");
	ofl_buf_free(&b);
	ofl_store_close(st);
}

/* Make blob victim claim the hash of data with one bit changed; store it. */
static void
collide(struct ofl_store *st, const char *blobs, unsigned char *data,
    size_t n, int64_t victim, size_t files)
{
	sqlite3_stmt	*stmt;
	struct ofl_meta	 d;
	char		 hex[OFL_HASH_HEX];
	int64_t		 bd;

	data[0] ^= 1;
	hash_hex(data, n, hex);
	if (sqlite3_prepare_v2(ofl_store_db(st), "UPDATE blob SET hash = ?1"
	    " WHERE id = ?2", -1, &stmt, NULL) == SQLITE_OK) {
		sqlite3_bind_text(stmt, 1, hex, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(stmt, 2, victim);
		(void)sqlite3_step(stmt);
		sqlite3_finalize(stmt);
	}
	memset(&d, 0, sizeof d);
	ok(store_bytes(st, data, n, "collision", &d) == 0,
	    "%zu bytes whose hash another blob claims are stored", n);
	bd = ofl_store_blob(st, d.id);
	ok(bd > 0 && bd != victim && count_files(blobs) == files &&
	    d.hash[0] == '\0', "in a blob of their own, without the hash "
	    "(blob %lld, hash \"%s\")", (long long)bd, d.hash);
	ok(reads_back(st, d.id, data, n), "they read back");
	data[0] ^= 1;
	ofl_meta_free(&d);
}

static void
test_dedup(void)
{
	struct ofl_store	*st;
	struct ofl_meta		 a, b, c;
	unsigned char		*data;
	char			*p, *blobs;
	size_t			 i, n = 2 * FRAME + 1000;
	int64_t			 ba, bb, bc;

	p = subdir("dedup");
	st = ofl_store_open(p, OFL_RDWR);
	blobs = subdir("dedup/blobs");
	free(p);
	if (st == NULL) {
		ok(0, "open a store: %s", ofl_errmsg());
		free(blobs);
		return;
	}
	data = ofl_xmalloc(n);
	for (i = 0; i < n; i++)
		data[i] = (unsigned char)((i * 2654435761U) >> 13);
	ok(store_bytes(st, data, n, "first", &a) == 0 &&
	    store_bytes(st, data, n, "second", &b) == 0,
	    "the same 2 MB stored twice");
	ok(strcmp(a.id, b.id) != 0 && strcmp(a.hash, b.hash) == 0,
	    "two artifacts, one hash");
	ba = ofl_store_blob(st, a.id);
	bb = ofl_store_blob(st, b.id);
	ok(ba > 0 && ba == bb, "one blob: %lld %lld", (long long)ba,
	    (long long)bb);
	ok(count_files(blobs) == 1, "one blob file on disk (%zu)",
	    count_files(blobs));
	ok(reads_back(st, a.id, data, n) && reads_back(st, b.id, data, n),
	    "both read back");
	{
		struct ofl_store	*st9;
		struct ofl_writer	*w;
		struct ofl_meta		 l9, fl;

		/* Compressed otherwise: compared decompressed, shared. */
		memset(&l9, 0, sizeof l9);
		setenv("OFL_LEVEL", "9", 1);
		p = subdir("dedup");
		st9 = ofl_store_open(p, OFL_RDWR);
		free(p);
		unsetenv("OFL_LEVEL");
		ok(st9 != NULL && store_bytes(st9, data, n, "level 9",
		    &l9) == 0 && ofl_store_blob(st9, l9.id) == ba &&
		    count_files(blobs) == 1, "the same bytes at another "
		    "zstd level: one blob");
		ofl_meta_free(&l9);
		ofl_store_close(st9);

		/* Frames cut elsewhere (a flush): compared as streams. */
		memset(&fl, 0, sizeof fl);
		ok((w = begin(st, "flushed")) != NULL &&
		    ofl_writer_write(w, data, 1000) == 0 &&
		    ofl_writer_flush(w) == 0 &&
		    ofl_writer_write(w, data + 1000, n - 1000) == 0 &&
		    ofl_writer_finish(w, NULL, &fl) == 0 &&
		    ofl_store_blob(st, fl.id) == ba &&
		    count_files(blobs) == 1, "the same bytes in other "
		    "frames: one blob");
		ofl_meta_free(&fl);
	}
	data[n - 1] ^= 1;
	ok(store_bytes(st, data, n, "third", &c) == 0 &&
	    strcmp(c.hash, a.hash) != 0, "one byte changed: another hash");
	bc = ofl_store_blob(st, c.id);
	ok(bc > 0 && bc != ba && count_files(blobs) == 2,
	    "and another blob");
	ok(reads_back(st, c.id, data, n), "which reads back");

	/*
	 * A collision: blob c made to claim the hash of other content
	 * (as crafted input might), large and small (compared from
	 * memory).  That content must get a blob of its own, without the
	 * taken hash, and both read back as they were.
	 */
	collide(st, blobs, data, n, bc, 3);
	collide(st, blobs, data, 1000, bc, 4);
	ok(reads_back(st, c.id, data, n), "the other blob reads back as it was");
	{
		struct ofl_meta	s1, s2;

		memset(&s1, 0, sizeof s1);
		memset(&s2, 0, sizeof s2);
		ok(store_bytes(st, data + 7, 1000, "small", &s1) == 0 &&
		    store_bytes(st, data + 7, 1000, "small again", &s2) == 0 &&
		    ofl_store_blob(st, s1.id) == ofl_store_blob(st, s2.id) &&
		    count_files(blobs) == 5, "small content stored twice: "
		    "one blob (compared from memory)");
		ofl_meta_free(&s1);
		ofl_meta_free(&s2);
	}
	ofl_clearerr();
	ok(ofl_store_blob(st, "zzzzzzzz") == -1 &&
	    ofl_errcode() == OFL_EXIT_FAIL, "no blob for an unknown ID");
	ofl_meta_free(&a);
	ofl_meta_free(&b);
	ofl_meta_free(&c);
	free(data);
	free(blobs);
	ofl_store_close(st);
}

/* A writer that dies: its committed frames are salvaged by the next open. */
static void
test_salvage(void)
{
	struct ofl_store	*st;
	struct ofl_meta		 m;
	struct content		 c;
	char			*p, hex[65], id[OFL_ID_MAX + 1];
	int			 fds[2], status;
	pid_t			 pid;
	size_t			 committed;

	memset(&c, 0, sizeof c);
	while (c.len < FRAME + 5000)
		content_line(&c, 1 + (c.len * 7) % 120, 1);
	committed = c.len + 150;	/* ends inside the next line */
	content_line(&c, 300, 1);	/* the rest is never committed */

	p = subdir("salvage");
	if (pipe(fds) == -1 || (pid = fork()) == -1) {
		ok(0, "fork");
		free(p);
		return;
	}
	if (pid == 0) {
		struct ofl_writer	*w;

		close(fds[0]);
		if ((st = ofl_store_open(p, OFL_RDWR)) == NULL ||
		    (w = begin(st, "dies")) == NULL ||
		    ofl_writer_write(w, c.data, committed) == -1 ||
		    ofl_writer_flush(w) == -1 ||
		    ofl_writer_write(w, c.data + committed,
		    c.len - committed) == -1)
			_exit(1);
		(void)!write(fds[1], ofl_writer_id(w), OFL_ID_LEN);
		_exit(0);	/* no finish: as if killed */
	}
	close(fds[1]);
	memset(id, 0, sizeof id);
	ok(read(fds[0], id, OFL_ID_LEN) == OFL_ID_LEN &&
	    waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "a writer dies after a flush: %s", id);
	close(fds[0]);

	st = ofl_store_open(p, OFL_RDWR);
	ok(st != NULL, "the next read-write open");
	if (st == NULL) {
		free(p);
		free(c.data);
		return;
	}
	hash_hex(c.data, committed, hex);
	ok(ofl_store_meta(st, id, &m) == 0 && m.state == OFL_STATE_COMPLETE &&
	    m.incomplete && m.bytes == committed && strcmp(m.hash, hex) == 0,
	    "salvaged: complete, incomplete, %zu bytes, hash of the prefix",
	    committed);
	{
		struct content	pre = c;

		pre.len = committed;
		ok(m.lines == line_at(&pre, committed - 1) &&
		    m.kind == OFL_KIND_TEXT, "salvaged: %llu lines (the last "
		    "one cut), kind text", (unsigned long long)m.lines);
	}
	ok(reads_back(st, id, c.data, committed),
	    "the committed prefix reads back byte-identical");
	ofl_meta_free(&m);
	ofl_store_close(st);
	free(p);
	free(c.data);
}

/*
 * 1 if msg is printable ASCII and names the two smallest of the n IDs
 * that start with c.
 */
static int
names_first_two(const char *msg, char ids[][OFL_ID_MAX + 1], int n, char c)
{
	const char	*first = NULL, *second = NULL, *q;
	int		 j;

	for (q = msg; *q != '\0'; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e)
			return 0;
	for (j = 0; j < n; j++) {
		if (ids[j][0] != c)
			continue;
		if (first == NULL || strcmp(ids[j], first) < 0) {
			second = first;
			first = ids[j];
		} else if (second == NULL || strcmp(ids[j], second) < 0)
			second = ids[j];
	}
	return first != NULL && second != NULL && strstr(msg, first) != NULL &&
	    strstr(msg, second) != NULL;
}

/* The first of n IDs whose first character exactly one other has, or -1. */
static int
pair_first(char ids[][OFL_ID_MAX + 1], int n)
{
	int	i, j, k;

	for (i = 0; i < n; i++) {
		for (j = k = 0; j < n; j++)
			if (ids[j][0] == ids[i][0])
				k++;
		if (k == 2)
			return i;
	}
	return -1;
}

static void
test_resolve(void)
{
	struct ofl_store	*st;
	struct ofl_meta		 m;
	char			 ids[70][OFL_ID_MAX + 1];
	char			 id[OFL_ID_MAX + 1];
	char			 ref[64], *p;
	int			 n, i, j, a = -1, b = -1;

	p = subdir("resolve");
	st = ofl_store_open(p, OFL_RDWR);
	free(p);
	if (st == NULL) {
		ok(0, "open a store: %s", ofl_errmsg());
		return;
	}
	ofl_clearerr();
	ok(ofl_store_resolve(st, "@", id) == -1 &&
	    ofl_errcode() == OFL_EXIT_FAIL, "@ in an empty store: failure");
	/*
	 * Store artifacts until three IDs share a first character, and on
	 * until exactly two share one (a bucket of three stays).
	 */
	for (n = 0; n < 70 && (b == -1 || pair_first(ids, n) == -1); n++) {
		char	text[32];
		int	same = 0;

		snprintf(text, sizeof text, "artifact %d\n", n);
		if (store_bytes(st, text, strlen(text), NULL, &m) == -1)
			break;
		snprintf(ids[n], sizeof ids[n], "%s", m.id);
		ofl_meta_free(&m);
		if (b != -1)
			continue;
		for (j = 0; j < n; j++)
			if (ids[j][0] == ids[n][0] && ++same == 1)
				a = j;
		if (same == 2)
			b = n;
		else
			a = -1;
	}
	ok(a != -1 && b != -1, "%d artifacts, three share a first character",
	    n);
	if (a == -1)
		goto out;
	ok(ofl_store_resolve(st, ids[a], id) == 0 && strcmp(id, ids[a]) == 0,
	    "a full ID");
	snprintf(ref, sizeof ref, "ofl:%s", ids[b]);
	ok(ofl_store_resolve(st, ref, id) == 0 && strcmp(id, ids[b]) == 0,
	    "ofl:ID");
	for (i = 0; ids[a][i] != '\0'; i++)
		ref[i] = (char)(ids[a][i] >= 'a' && ids[a][i] <= 'z' ?
		    ids[a][i] - 32 : ids[a][i]);
	ref[i] = '\0';
	ok(ofl_store_resolve(st, ref, id) == 0 && strcmp(id, ids[a]) == 0,
	    "an upper-case ID: %s", ref);
	/* The shortest prefix of ids[a] that no other ID has. */
	for (i = 1; i <= OFL_ID_LEN; i++) {
		for (j = 0; j < n; j++)
			if (j != a && strncmp(ids[j], ids[a], (size_t)i) == 0)
				break;
		if (j == n)
			break;
	}
	snprintf(ref, sizeof ref, "%.*s", i, ids[a]);
	ok(ofl_store_resolve(st, ref, id) == 0 && strcmp(id, ids[a]) == 0,
	    "a unique prefix: %s", ref);
	snprintf(ref, sizeof ref, "ofl:%.*s", i, ids[a]);
	ok(ofl_store_resolve(st, ref, id) == 0 && strcmp(id, ids[a]) == 0,
	    "ofl: and a unique prefix: %s", ref);
	snprintf(ref, sizeof ref, "%.1s", ids[a]);
	ofl_clearerr();
	ok(ofl_store_resolve(st, ref, id) == -1 &&
	    ofl_errcode() == OFL_EXIT_USAGE &&
	    strstr(ofl_errmsg(), "ambiguous") != NULL,
	    "an ambiguous prefix: usage error");
	ok(names_first_two(ofl_errmsg(), ids, n, ids[a][0]),
	    "the message names the two first candidates");
	/* A prefix exactly two IDs share. */
	if ((i = pair_first(ids, n)) != -1) {
		snprintf(ref, sizeof ref, "%.1s", ids[i]);
		ok(ofl_store_resolve(st, ref, id) == -1 &&
		    ofl_errcode() == OFL_EXIT_USAGE &&
		    names_first_two(ofl_errmsg(), ids, n, ids[i][0]),
		    "two candidates: both named, in clean text");
	} else
		ok(0, "no first character shared by exactly two of %d IDs", n);
	ok(ofl_store_resolve(st, "@", id) == 0 && strcmp(id, ids[n - 1]) == 0,
	    "@ is the latest");
	ok(ofl_store_resolve(st, "ofl:@", id) == 0 &&
	    strcmp(id, ids[n - 1]) == 0, "ofl:@");
	ok(ofl_store_resolve(st, "@1", id) == 0 &&
	    strcmp(id, ids[n - 1]) == 0, "@1 is the latest");
	ok(ofl_store_resolve(st, "@2", id) == 0 &&
	    strcmp(id, ids[n - 2]) == 0, "@2 the one before");
	snprintf(ref, sizeof ref, "@%d", n);
	ok(ofl_store_resolve(st, ref, id) == 0 && strcmp(id, ids[0]) == 0,
	    "%s the first", ref);
	snprintf(ref, sizeof ref, "@%d", n + 1);
	ofl_clearerr();
	ok(ofl_store_resolve(st, ref, id) == -1 &&
	    ofl_errcode() == OFL_EXIT_FAIL, "%s: no such artifact", ref);
	{
		static const char *bad[] = {
			"@0", "@x", "@-1", "@1x", "../x", "", "ofl:",
			"0123456789abc", "ab/cd", "ab cd", "a;b", "abil",
			"ofl:ofl:ab"
		};
		size_t	k;

		for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
			ofl_clearerr();
			ok(ofl_store_resolve(st, bad[k], id) == -1 &&
			    ofl_errcode() == OFL_EXIT_USAGE,
			    "\"%s\" is malformed: usage error", bad[k]);
		}
	}
	/* An ID nobody has: the first character nobody's ID starts with. */
	{
		static const char alpha[] = "0123456789abcdefghjkmnpqrstvwxyz";
		size_t	k;

		for (k = 0; alpha[k] != '\0'; k++) {
			for (j = 0; j < n; j++)
				if (ids[j][0] == alpha[k])
					break;
			if (j == n)
				break;
		}
		snprintf(ref, sizeof ref, "%c234567", alpha[k]);
		ofl_clearerr();
		ok(ofl_store_resolve(st, ref, id) == -1 &&
		    ofl_errcode() == OFL_EXIT_FAIL &&
		    strstr(ofl_errmsg(), "unknown") != NULL,
		    "an unknown ID: failure (%s)", ofl_errmsg());
		ofl_clearerr();
		ok(ofl_store_meta(st, ref, &m) == -1 &&
		    ofl_errcode() == OFL_EXIT_FAIL, "no metadata for it");
		ok(ofl_reader_open(st, ref) == NULL, "no reader for it");
	}
out:
	ofl_store_close(st);
}

/* Files 0600 and directories 0700, whatever the umask. */
static void
test_modes(void)
{
	struct ofl_store	*st;
	struct ofl_meta		 m;
	struct stat		 sb;
	char			*p, *q;
	struct ofl_buf		 b;
	int			 good;

	umask(0);
	p = subdir("modes/deep/store");
	st = ofl_store_open(p, OFL_RDWR);
	ok(st != NULL, "create a store under umask 000");
	if (st == NULL) {
		free(p);
		return;
	}
	ok(store_bytes(st, "secret\n", 7, NULL, &m) == 0, "store something");
	ofl_store_close(st);
	good = stat(p, &sb) == 0 && (sb.st_mode & 0777) == 0700;
	q = subdir("modes/deep");
	good = good && stat(q, &sb) == 0 && (sb.st_mode & 0777) == 0700;
	free(q);
	ok(good, "the store and its new parents are 0700");
	ofl_buf_init(&b);
	ofl_buf_addf(&b, "%s/ofl.db", p);
	ok(stat(ofl_buf_str(&b), &sb) == 0 && (sb.st_mode & 0777) == 0600,
	    "ofl.db is 0600 (%03o)", (unsigned)(sb.st_mode & 0777));
	ofl_buf_reset(&b);
	ofl_buf_addf(&b, "%s/blobs", p);
	ok(stat(ofl_buf_str(&b), &sb) == 0 && (sb.st_mode & 0777) == 0700,
	    "blobs/ is 0700");
	ofl_buf_reset(&b);
	ofl_buf_addf(&b, "%s/blobs/%.2s", p, m.id);
	ok(stat(ofl_buf_str(&b), &sb) == 0 && (sb.st_mode & 0777) == 0700,
	    "blobs/%.2s is 0700", m.id);
	ofl_buf_reset(&b);
	ofl_buf_addf(&b, "%s/blobs/%.2s/%s", p, m.id, m.id);
	ok(stat(ofl_buf_str(&b), &sb) == 0 && (sb.st_mode & 0777) == 0600,
	    "the blob file is 0600");
	ofl_buf_free(&b);
	ofl_meta_free(&m);
	free(p);
	umask(022);
}

int
main(void)
{
	if (tap_tmpdir(tmpdir, sizeof tmpdir, "ofl-test-store") == -1)
		return 0;
	unsetenv("OFL_STORE");
	unsetenv("OFL_LEVEL");
	test_hash();
	test_fmt();
	test_parse();
	test_dl();
	test_ids();
	test_open();
	test_roundtrip();
	test_flush_busy();
	test_empty();
	test_dedup();
	test_salvage();
	test_resolve();
	test_modes();
	tap_rmtree(tmpdir);
	return done_testing();
}
