/*
 * test-kind.c: kind detection, line statistics, safe rendering and the
 * notice (over a private store in a temporary directory).  The corpus of
 * real outputs, when present next to the source tree, must classify as
 * expected and give notices of about a kilobyte.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <fnmatch.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <jv.h>

#include "ofl.h"
#include "tap.h"
#include "banned.h"

/* A text notice for default options stays within this. */
#define NOTICE_MAX	1600

static struct ofl_store	*store;
static char		 tmpdir[4096];

static enum ofl_kind	 detect(const char *);
static void		 check_names(void);
static void		 check_inline(void);
static void		 check_window(void);
static void		 check_archives(void);
static void		 check_corpus_kinds(const char *);
static void		 check_render(void);
static void		 check_linestat(void);
static void		 check_linestat_corpus(const char *);
static void		 check_linestat_runs(const char *);
static void		 check_refline(void);
static void		 check_notices(void);
static void		 check_notice_corpus(const char *);
static const char	*corpus_dir(void);

static enum ofl_kind
detect(const char *s)
{
	return ofl_kind_detect((const unsigned char *)s, strlen(s), 1);
}

#define is_kind(s, k, title) do {					\
	enum ofl_kind got_ = detect(s);					\
	ok(got_ == (k), "%s: %s", title, ofl_kind_name(k));		\
	if (got_ != (k))						\
		printf("#   got: %s\n", ofl_kind_name(got_));		\
} while (0)

static void
check_names(void)
{
	int	k, bad = 0;

	for (k = 0; k < OFL_KIND_COUNT; k++) {
		if (ofl_kind_from_name(ofl_kind_name(k)) != k)
			bad++;
	}
	ok(bad == 0, "every kind name maps back to its kind");
	ok(ofl_kind_from_name("JSON") == OFL_KIND_JSON, "names ignore case");
	ok(ofl_kind_from_name("jsonl") == OFL_KIND_NDJSON, "jsonl alias");
	ok(ofl_kind_from_name("md") == OFL_KIND_MARKDOWN, "md alias");
	ok(ofl_kind_from_name("nonsense") == -1, "unknown name is -1");
	ok(ofl_kind_from_name(NULL) == -1, "NULL name is -1");
	is_str(ofl_kind_name(OFL_KIND_COUNT), "unknown", "out of range kind");
}

static void
check_inline(void)
{
	static const char latin1[] = "Caf\xe9 au lait, cr\xe8me br\xfbl\xe9"
	    "e and other things people order in a long sentence that goes "
	    "on for a while so that the few bad bytes are rare.\n";
	char	 buf[4096];
	size_t	 i;

	is_kind("", OFL_KIND_EMPTY, "nothing");
	is_kind("hello world\n", OFL_KIND_TEXT, "a line of prose");
	is_kind("   \n\n  \n", OFL_KIND_TEXT, "blank lines");
	is_kind("{\n  this is not json\n}\n", OFL_KIND_TEXT,
	    "a text with one { line");
	is_kind("{\"a\": 1, \"b\": [true, false, null, -1.5e3]}",
	    OFL_KIND_JSON, "an object");
	is_kind("[1, 2, 3]\n", OFL_KIND_JSON, "an array");
	is_kind("  {\n  \"k\": \"v\\u00e9\\n\"\n}\n", OFL_KIND_JSON,
	    "pretty JSON with escapes");
	is_kind("{\"a\": 1} trailing words\n", OFL_KIND_TEXT,
	    "JSON followed by prose");
	is_kind("{\"a\": 01}\n", OFL_KIND_TEXT, "a bad number");
	is_kind("{\"a\": tru}\n", OFL_KIND_TEXT, "a bad literal");
	is_kind("[1, 2,]\n", OFL_KIND_TEXT, "a trailing comma");
	is_kind("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n", OFL_KIND_NDJSON,
	    "JSON lines");
	is_kind("{\"a\":1}\r\n[2]\r\n", OFL_KIND_NDJSON, "JSON lines, CRLF");
	is_kind("{\n \"a\": 1\n}\n{\n \"a\": 2\n}\n", OFL_KIND_JSON,
	    "a sequence of pretty values (jq '.[]') is json");
	is_kind("{\"a\":1}\n{\"b\":2}\n{\n \"c\": 3\n}\n", OFL_KIND_JSON,
	    "records, then a pretty value: json");
	is_kind("{\"a\":1}\n42\n", OFL_KIND_TEXT, "a scalar among records");
	ok(ofl_kind_detect((const unsigned char *)"{\"a\": [1, 2", 11, 0) ==
	    OFL_KIND_JSON, "a JSON start, incomplete: json");
	ok(ofl_kind_detect((const unsigned char *)"{\"a\": [1, 2", 11, 1) ==
	    OFL_KIND_TEXT, "the same, complete: not json");
	ok(ofl_kind_detect((const unsigned char *)"{\"a\":1}\n{\"b\": \"x",
	    16, 0) == OFL_KIND_NDJSON, "records, cut in the second");

	is_kind("name,age,city\nann,31,Oslo\nbob,42,\"Rome, Italy\"\n",
	    OFL_KIND_CSV, "CSV with a quoted comma");
	is_kind("id,text\n1,\"two\nlines\"\n2,plain\n3,\"say \"\"hi\"\"\"\n",
	    OFL_KIND_CSV, "CSV with a newline and quotes in a field");
	is_kind("a,b\r\n1,2\r\n3,4\r\n", OFL_KIND_CSV, "CSV with CRLF");
	is_kind("First, we open the file.\nThen, we read it.\n"
	    "Finally, we close it.\n", OFL_KIND_TEXT, "CSV-looking prose");
	is_kind("a,b\n1,2\n", OFL_KIND_TEXT, "two lines of two fields");
	is_kind("a,b,c\n1,2\n3,4,5\n", OFL_KIND_TEXT, "ragged commas");
	is_kind("name\tsize\nfoo\t12\nbar\t7\n", OFL_KIND_TSV, "TSV");
	is_kind("LineId,Time,Level\n1,Sun Dec 04 04:47:44 2005,notice\n"
	    "2,Sun Dec 04 04:47:45 2005,error\n", OFL_KIND_CSV,
	    "CSV of log fields");

	is_kind("# Title\n\nSome text with a [link](http://x).\n\n## Sub\n\n"
	    "- one\n- two\n", OFL_KIND_MARKDOWN, "Markdown");
	is_kind("Intro\n\n```sh\n# not a heading\nmake\n```\n\n"
	    "## Usage\n\nRun it.\n", OFL_KIND_MARKDOWN,
	    "Markdown with a fence");
	is_kind("#!/bin/sh\n# build it\nmake\n\n# install\nmake install\n",
	    OFL_KIND_TEXT, "a shell script with comments");
	is_kind("# settings\nname: x\nitems:\n  - a\n  - b\n# more\n"
	    "port: 80\n", OFL_KIND_TEXT, "YAML with comments and lists");

	is_kind("<!DOCTYPE html>\n<html><body>hi</body></html>\n",
	    OFL_KIND_HTML, "HTML with a doctype");
	is_kind("<div class=\"a\">\n<p>one</p>\n<p>two</p>\n<ul><li>x</li>"
	    "</ul>\n</div>\n", OFL_KIND_HTML, "a fragment of tags");
	is_kind("Use <b>bold</b> with care.\nNothing else here.\n",
	    OFL_KIND_TEXT, "prose with a tag");
	is_kind("<?xml version=\"1.0\"?>\n<a>\n<b>1</b>\n<b>2</b>\n<c/>\n"
	    "</a>\n", OFL_KIND_TEXT, "XML is a text");
	is_kind("<?xml version=\"1.0\"?>\n<!DOCTYPE html>\n<html xmlns=\"x\">"
	    "\n<body>\n<p>hi</p>\n</body>\n</html>\n", OFL_KIND_HTML,
	    "XHTML is HTML");

	is_kind("diff --git a/x.c b/x.c\nindex 1..2 100644\n--- a/x.c\n"
	    "+++ b/x.c\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n", OFL_KIND_DIFF,
	    "a git diff");
	is_kind("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", OFL_KIND_DIFF,
	    "a unified diff");
	is_kind("commit 0123abcd\nAuthor: A <a@b>\nDate:   today\n\n"
	    "    message\n\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n"
	    "@@ -1 +1 @@\n-a\n+b\n", OFL_KIND_DIFF, "git log -p");
	is_kind("The patch below:\n--- a/f\nwas removed and\n"
	    "nothing else.\nMore prose here.\n", OFL_KIND_TEXT,
	    "prose that mentions --- a/");

	is_kind("2024-01-02 10:00:00 INFO start\n2024-01-02 10:00:01 WARN "
	    "slow\n2024-01-02 10:00:02 ERROR boom\n", OFL_KIND_LOG,
	    "ISO time stamps");
	is_kind("Jun 14 15:16:01 combo sshd[1]: a\r\nJun 14 15:16:02 combo "
	    "sshd[2]: b\r\nJun 14 15:16:03 combo sshd[3]: c\r\n",
	    OFL_KIND_LOG, "syslog with CRLF");
	is_kind("[2024-01-02T10:00:00Z] one\n[2024-01-02T10:00:01Z] two\n",
	    OFL_KIND_LOG, "bracketed time stamps");
	is_kind("[task 2019-04-30T12:00:00.000Z] one\n[task "
	    "2019-04-30T12:00:01.000Z] two\n[taskcluster 2019-04-30T12:00:02"
	    ".000Z] three\n", OFL_KIND_LOG, "CI task lines");
	is_kind("INFO starting\nDEBUG x=1\nERROR failed\nINFO done\n",
	    OFL_KIND_LOG, "level tokens");
	is_kind("2024-01-02 10:00:00 UTC [7] LOG:  statement: SELECT a\n"
	    "\t  FROM t\n\t  WHERE b = 1\n\t  ORDER BY a;\n"
	    "2024-01-02 10:00:01 UTC [7] ERROR:  division by zero\n"
	    "2024-01-02 10:00:02 UTC [9] LOG:  automatic vacuum of t\n"
	    "\tpages: 0 removed\n\ttuples: 3 removed\n", OFL_KIND_LOG,
	    "a log whose records go on in indented lines");
	is_kind("2024-01-02 10:00:00 report\n    one\n    two\n    three\n"
	    "    four\n2024-01-02 10:00:09 end\n    five\n    six\n"
	    "    seven\n    eight\n", OFL_KIND_TEXT,
	    "two time stamps over an indented text");
	is_kind("I0102 12:00:00.000000 1 main.go:1] a\nW0102 12:00:01.000000 "
	    "1 main.go:2] b\n", OFL_KIND_LOG, "glog");
	is_kind("[Sun Dec 04 04:47:44 2005] [notice] a\n[Sun Dec 04 04:47:44 "
	    "2005] [error] b\n", OFL_KIND_LOG, "Apache error log");
	is_kind("11-02 09:14:07.120  812  930 I Scheduler: job 4 queued\n"
	    "11-02 09:14:07.388  812  931 D Scheduler: job 4 started\n"
	    "11-02 09:14:09.002  812  931 W Scheduler: job 4 slow\n",
	    OFL_KIND_LOG, "month-day and a time, then pids");
	is_kind("[02.11 09:14:07] worker.exe - open 10.0.0.7:443\n"
	    "[02.11 09:14:08] worker.exe - close 10.0.0.7:443\n",
	    OFL_KIND_LOG, "a bracketed day.month and time (not JSON)");
	is_kind("20241102-09:14:07:120|Sync|4411|pulled 3 rows\n"
	    "20241102-09:14:07:455|Sync|4411|pushed 2 rows\n",
	    OFL_KIND_LOG, "a date and time joined by a dash, then fields");
	is_kind("- 1730538847 2024.11.02 n17 sched[7]: job 4 queued\n"
	    "APP 1730538848 2024.11.02 n17 sched[7]: job 4 failed\n"
	    "- 1730538849 2024.11.02 n18 sched[9]: job 5 queued\n",
	    OFL_KIND_LOG, "an alert flag, then epoch seconds");
	is_kind("40112 n-17 app.sched queue.add 1730538847 1 job 4 queued\n"
	    "40113 n-17 app.sched queue.run 1730538848 1 job 4 started\n",
	    OFL_KIND_LOG, "epoch seconds after four fields");
	is_kind("The build took 0:01:12 on the first try.\nThen 12 minutes."
	    "\nNobody knew why.\nIt was late.\nThe end.\n", OFL_KIND_TEXT,
	    "prose with a duration on one line");
	is_kind("We met on 2024-01-02 and talked.\nIt went well.\n"
	    "Then we left.\nERROR is a word too.\nThe end.\n", OFL_KIND_TEXT,
	    "prose with one log-like line");

	is_kind("\x7f" "ELF\x02\x01\x01", OFL_KIND_BINARY,
	    "control bytes, no NUL");
	ok(ofl_kind_detect((const unsigned char *)"ab\0cd", 5, 1) ==
	    OFL_KIND_BINARY, "a NUL byte: binary");
	for (i = 0; i < sizeof buf; i++)
		buf[i] = (char)(0x80 + (i * 7919) % 0x7f);
	ok(ofl_kind_detect((const unsigned char *)buf, sizeof buf, 1) ==
	    OFL_KIND_BINARY, "high bytes that are not UTF-8: binary");
	is_kind(latin1, OFL_KIND_TEXT, "Latin-1 text with a few bad bytes");
	is_kind("%PDF-1.7\n1 0 obj\n", OFL_KIND_BINARY, "a PDF");
	is_kind("\xef\xbb\xbf{\"a\": 1}\n", OFL_KIND_JSON, "JSON after a BOM");
	is_kind("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n", OFL_KIND_TEXT,
	    "UTF-8 text");
	is_kind("x error \xf0\x90\x80\n", OFL_KIND_TEXT,
	    "a line that ends in a character cut short: text");
	is_kind("\xe2\x82 error one\n", OFL_KIND_TEXT,
	    "a line that starts with a character cut short: text");
	is_kind("\x1b[32mok\x1b[0m  test one\n\x1b[31mFAIL\x1b[0m test two\n",
	    OFL_KIND_TEXT, "colour escapes stay text");
}

/* A JSON document longer than the detection window. */
static void
check_window(void)
{
	struct ofl_buf	b;
	int		i;

	ofl_buf_init(&b);
	ofl_buf_adds(&b, "{\"items\": [");
	for (i = 0; i < 20000; i++)
		ofl_buf_addf(&b, "%s{\"n\": %d}", i ? ", " : "", i);
	ofl_buf_adds(&b, "]}");
	ok(b.len > 65536, "document is longer than 64 KiB");
	ok(ofl_kind_detect((unsigned char *)b.data, b.len, 1) ==
	    OFL_KIND_JSON, "a long complete JSON document is json");
	ok(ofl_kind_detect((unsigned char *)b.data, 65536, 0) ==
	    OFL_KIND_JSON, "its first 64 KiB are json");
	ofl_buf_free(&b);
}

/* Build an archive in memory; format and filter are libarchive codes. */
static size_t
make_archive(unsigned char *out, size_t cap, int format, int filter,
    int nfiles)
{
	static const char	*words[] = { "alpha", "beta", "gamma", "delta",
	    "epsilon", "zeta", "eta", "theta" };
	struct archive		*a = archive_write_new();
	struct archive_entry	*e;
	struct ofl_buf		 data;
	size_t			 used = 0;
	unsigned int		 seed = 1;
	char			 name[64];
	int			 i, j;

	if (format == ARCHIVE_FORMAT_AR_GNU)
		archive_write_set_format_ar_svr4(a);
	else
		archive_write_set_format(a, format);
	if (filter != ARCHIVE_FILTER_NONE)
		archive_write_add_filter(a, filter);
	archive_write_open_memory(a, out, cap, &used);
	ofl_buf_init(&data);
	for (i = 0; i < nfiles; i++) {
		/* ar keeps plain names only. */
		snprintf(name, sizeof name, "%sfile%02d.txt",
		    format == ARCHIVE_FORMAT_AR_GNU ? "" : "dir/", i);
		ofl_buf_reset(&data);
		ofl_buf_addf(&data, "line one of %d\nline two\n", i);
		/* Later members are big: lines of words, as in logs. */
		for (j = 0; i >= 12 && j < 20000; j++) {
			seed = seed * 1103515245 + 12345;
			ofl_buf_addf(&data, "%s %u%s", words[(seed >> 16) % 8],
			    seed >> 22, j % 9 == 8 ? "\n" : "");
		}
		e = archive_entry_new();
		archive_entry_set_pathname(e, name);
		archive_entry_set_size(e, (la_int64_t)data.len);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_write_header(a, e);
		archive_write_data(a, data.data, data.len);
		archive_entry_free(e);
	}
	ofl_buf_free(&data);
	archive_write_close(a);
	archive_write_free(a);
	return used;
}

/* A single compressed stream of text. */
static size_t
make_stream(unsigned char *out, size_t cap, int filter)
{
	struct archive		*a = archive_write_new();
	struct archive_entry	*e;
	size_t			 used = 0;
	static const char	 text[] = "2024-01-01 INFO hello\n"
	    "2024-01-01 INFO world\n";

	archive_write_set_format_raw(a);
	archive_write_add_filter(a, filter);
	archive_write_open_memory(a, out, cap, &used);
	e = archive_entry_new();
	archive_entry_set_filetype(e, AE_IFREG);
	archive_write_header(a, e);
	archive_write_data(a, text, sizeof text - 1);
	archive_entry_free(e);
	archive_write_close(a);
	archive_write_free(a);
	return used;
}

static void
check_archives(void)
{
	static unsigned char	buf[4 * 1024 * 1024];
	static const struct {
		int		 format;
		int		 filter;
		const char	*name;
	} arcs[] = {
		{ ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_NONE, "tar" },
		{ ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, ARCHIVE_FILTER_GZIP,
		    "tar.gz" },
		{ ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_XZ, "tar.xz" },
		{ ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_ZSTD, "tar.zst" },
		{ ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_BZIP2, "tar.bz2" },
		{ ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, "zip" },
		{ ARCHIVE_FORMAT_7ZIP, ARCHIVE_FILTER_NONE, "7z" },
		{ ARCHIVE_FORMAT_CPIO_SVR4_NOCRC, ARCHIVE_FILTER_NONE, "cpio" },
		{ ARCHIVE_FORMAT_AR_GNU, ARCHIVE_FILTER_NONE, "ar" },
	};
	static const struct {
		int		 filter;
		const char	*name;
	} streams[] = {
		{ ARCHIVE_FILTER_GZIP, "gzip" },
		{ ARCHIVE_FILTER_XZ, "xz" },
		{ ARCHIVE_FILTER_ZSTD, "zstd" },
		{ ARCHIVE_FILTER_BZIP2, "bzip2" },
	};
	size_t			n, i;
	enum ofl_kind		k;

	for (i = 0; i < sizeof arcs / sizeof arcs[0]; i++) {
		n = make_archive(buf, sizeof buf, arcs[i].format,
		    arcs[i].filter, 3);
		k = ofl_kind_detect(buf, n, 1);
		ok(n > 0 && k == OFL_KIND_ARCHIVE, "%s is an archive (%s)",
		    arcs[i].name, ofl_kind_name(k));
	}
	for (i = 0; i < sizeof streams / sizeof streams[0]; i++) {
		n = make_stream(buf, sizeof buf, streams[i].filter);
		k = ofl_kind_detect(buf, n, 1);
		ok(n > 0 && k == OFL_KIND_COMPRESSED, "%s of text is "
		    "compressed (%s)", streams[i].name, ofl_kind_name(k));
	}
	/* Only the start of a compressed tar is needed to tell. */
	/* The 64 KiB head of a big tarball of text is enough. */
	n = make_archive(buf, sizeof buf, ARCHIVE_FORMAT_TAR_USTAR,
	    ARCHIVE_FILTER_GZIP, 40);
	ok(n > 65536 && ofl_kind_detect(buf, 65536, 0) == OFL_KIND_ARCHIVE,
	    "the head of a tar.gz of %zu bytes is an archive", n);
	n = make_archive(buf, sizeof buf, ARCHIVE_FORMAT_TAR_USTAR,
	    ARCHIVE_FILTER_ZSTD, 40);
	ok(n > 65536 && ofl_kind_detect(buf, 65536, 0) == OFL_KIND_ARCHIVE,
	    "the head of a tar.zst of %zu bytes is an archive", n);
}

/* Expected kinds of the corpus files, by path pattern. */
static const struct {
	const char	*pattern;
	enum ofl_kind	 kind;
} corpus_kinds[] = {
	{ "LICENSES/*", OFL_KIND_TEXT },
	{ "README.md", OFL_KIND_MARKDOWN },
	{ "ci/gotestsum-go-test-json.out", OFL_KIND_NDJSON },
	{ "ci/treeherder-taskcluster-timeout.log", OFL_KIND_LOG },
	{ "ci/treeherder-taskcluster-timeout.logview.json", OFL_KIND_JSON },
	{ "diff/*.diff", OFL_KIND_DIFF },
	{ "docs/*.md", OFL_KIND_MARKDOWN },
	{ "json/*.json", OFL_KIND_JSON },
	/*
	 * Two JSON lines, then a pretty-printed body: a sequence of values
	 * that jq reads one after another, so json, not ndjson (whose
	 * records are lines).
	 */
	{ "json/holmesgpt-list_prometheus_rules.txt", OFL_KIND_JSON },
	{ "logs/*.log", OFL_KIND_LOG },
	{ "logs/*.csv", OFL_KIND_CSV },
};

static const char *
corpus_dir(void)
{
	static char	 path[4096];
	const char	*e;
	struct stat	 sb;

	if ((e = getenv("OFL_CORPUS")) != NULL && *e != '\0')
		snprintf(path, sizeof path, "%s", e);
	else if ((e = getenv("OFL_SRCDIR")) != NULL && *e != '\0')
		snprintf(path, sizeof path, "%s/../shared/corpus", e);
	else {
		/* The source file's directory, up two levels. */
		snprintf(path, sizeof path, "%s", __FILE__);
		if ((e = strstr(path, "tests/unit/test-kind.c")) == NULL)
			return NULL;
		snprintf(path + (e - path), sizeof path - (e - path),
		    "../shared/corpus");
	}
	if (stat(path, &sb) == -1 || !S_ISDIR(sb.st_mode))
		return NULL;
	return path;
}

/* "a/b" in a fresh string. */
static char *
pathcat(const char *a, const char *b)
{
	struct ofl_buf	p;

	ofl_buf_init(&p);
	ofl_buf_addf(&p, "%s/%s", a, b);
	return ofl_buf_str(&p);
}

/* Read a whole file; NULL on failure. */
static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE		*f;
	unsigned char	*buf = NULL;
	size_t		 cap = 0, n = 0, k;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = ofl_xrealloc(buf, cap);
		}
		if ((k = fread(buf + n, 1, cap - n, f)) == 0)
			break;
		n += k;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* The corpus files, relative to the corpus, sorted. */
static char	**files;
static size_t	  nfiles;

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
list_files(const char *root, const char *rel)
{
	char		*path, *sub;
	DIR		*d;
	struct dirent	*de;
	struct stat	 sb;

	path = pathcat(root, rel);
	d = opendir(path);
	free(path);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		sub = *rel ? pathcat(rel, de->d_name) : ofl_xstrdup(de->d_name);
		path = pathcat(root, sub);
		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
			list_files(root, sub);
		else if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
			files = ofl_xrealloc(files, (nfiles + 1) *
			    sizeof *files);
			files[nfiles++] = sub;
			sub = NULL;
		}
		free(sub);
		free(path);
	}
	closedir(d);
}

static int
expected_kind(const char *rel)
{
	size_t	i;
	int	k = -1;

	/* The last matching pattern wins. */
	for (i = 0; i < sizeof corpus_kinds / sizeof corpus_kinds[0]; i++) {
		if (fnmatch(corpus_kinds[i].pattern, rel, FNM_PATHNAME) == 0)
			k = corpus_kinds[i].kind;
	}
	return k;
}

static void
check_corpus_kinds(const char *dir)
{
	unsigned char	*buf;
	char		*path;
	size_t		 i, len;
	int		 want;
	enum ofl_kind	 got, head;

	for (i = 0; i < nfiles; i++) {
		want = expected_kind(files[i]);
		if (want == -1) {
			printf("ok %d # SKIP %s: no expected kind\n", ++tap_n,
			    files[i]);
			continue;
		}
		path = pathcat(dir, files[i]);
		buf = slurp(path, &len);
		free(path);
		if (buf == NULL) {
			ok(0, "read %s", files[i]);
			continue;
		}
		got = ofl_kind_detect(buf, len, 1);
		ok(got == (enum ofl_kind)want, "corpus %s: %s (got %s)",
		    files[i], ofl_kind_name(want), ofl_kind_name(got));
		if (len > 65536) {
			head = ofl_kind_detect(buf, 65536, 0);
			ok(head == (enum ofl_kind)want, "corpus %s, first 64 "
			    "KiB: %s (got %s)", files[i], ofl_kind_name(want),
			    ofl_kind_name(head));
		}
		free(buf);
	}
}

static void
render_is(const char *in, size_t n, size_t max, const char *want,
    const char *title)
{
	struct ofl_buf	b;

	ofl_buf_init(&b);
	ofl_render_safe(&b, (const unsigned char *)in, n, max);
	is_str(ofl_buf_str(&b), want, "render: %s", title);
	ofl_buf_free(&b);
}

/* Is the whole of p valid UTF-8 with no control bytes but \t and \n? */
static int
clean_utf8(const unsigned char *p, size_t n)
{
	size_t	i = 0, l, k;

	while (i < n) {
		if (p[i] < 0x80) {
			if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n') ||
			    p[i] == 0x7f)
				return 0;
			i++;
			continue;
		}
		if (p[i] >= 0xc2 && p[i] <= 0xdf)
			l = 2;
		else if (p[i] >= 0xe0 && p[i] <= 0xef)
			l = 3;
		else if (p[i] >= 0xf0 && p[i] <= 0xf4)
			l = 4;
		else
			return 0;
		if (i + l > n)
			return 0;
		for (k = 1; k < l; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return 0;
		}
		if ((p[i] == 0xe0 && p[i + 1] < 0xa0) ||
		    (p[i] == 0xed && p[i + 1] >= 0xa0) ||
		    (p[i] == 0xf0 && p[i + 1] < 0x90) ||
		    (p[i] == 0xf4 && p[i + 1] >= 0x90))
			return 0;
		i += l;
	}
	return 1;
}

static void
check_render(void)
{
	struct ofl_buf	b;
	unsigned char	in[64];
	unsigned int	seed = 12345;
	size_t		i, j, n, max, bad = 0;

	render_is("plain text", 10, 100, "plain text", "ASCII passes");
	render_is("a\tb\nc", 5, 100, "a\tb\nc", "tab and newline pass");
	render_is("a\0b", 3, 100, "a\\x00b", "NUL is escaped");
	render_is("x\r\ny", 4, 100, "x\\x0d\ny", "CR is escaped");
	render_is("\x1b[31mred", 8, 100, "\\x1b[31mred", "escape is escaped");
	render_is("\x7f", 1, 100, "\\x7f", "DEL is escaped");
	render_is("caf\xc3\xa9", 5, 100, "caf\xc3\xa9", "UTF-8 passes");
	render_is("\xf0\x9f\x98\x80", 4, 100, "\xf0\x9f\x98\x80",
	    "a 4-byte sequence passes");
	render_is("a\xff" "b", 3, 100, "a\\xffb", "an invalid byte");
	render_is("\xc0\xaf", 2, 100, "\\xc0\\xaf", "an overlong slash");
	render_is("\xe0\x80\xaf", 3, 100, "\\xe0\\x80\\xaf",
	    "an overlong 3-byte form");
	render_is("\xed\xa0\x80", 3, 100, "\\xed\\xa0\\x80", "a surrogate");
	render_is("\xf4\x90\x80\x80", 4, 100, "\\xf4\\x90\\x80\\x80",
	    "past U+10FFFF");
	render_is("ab\xe2\x82", 4, 100, "ab\\xe2\\x82",
	    "a sequence cut by the end of the input");
	render_is("ab\xe2\x82\xac", 5, 4, "ab",
	    "a 3-byte sequence at the budget is not cut");
	render_is("ab\xe2\x82\xac", 5, 5, "ab\xe2\x82\xac",
	    "a 3-byte sequence that fits");
	render_is("\x01\x01", 2, 7, "\\x01", "an escape is never cut");
	render_is("abcdef", 6, 0, "", "a budget of zero");

	/* Random bytes: never over the budget, always clean UTF-8. */
	ofl_buf_init(&b);
	for (i = 0; i < 20000; i++) {
		seed = seed * 1103515245 + 12345;
		n = (seed >> 8) % sizeof in;
		max = (seed >> 16) % 80;
		for (j = 0; j < n; j++) {
			seed = seed * 1103515245 + 12345;
			in[j] = (unsigned char)(seed >> 16);
			if ((seed >> 28) < 8)
				in[j] &= 0x7f;
		}
		ofl_buf_reset(&b);
		ofl_render_safe(&b, in, n, max);
		if (b.len > max || !clean_utf8((unsigned char *)b.data, b.len))
			bad++;
	}
	ok(bad == 0, "render: 20,000 random inputs stay in budget and clean");
	ofl_buf_free(&b);
}

static int
line_kind(const char *s)
{
	struct ofl_linestat	ls;

	memset(&ls, 0, sizeof ls);
	ofl_linestat_line(&ls, s, strlen(s), 7);
	if (ls.errors == 1 && ls.first_error == 7 && ls.warnings == 0)
		return 2;
	if (ls.warnings == 1 && ls.errors == 0 && ls.first_error == 0)
		return 1;
	if (ls.errors == 0 && ls.warnings == 0 && ls.first_error == 0)
		return 0;
	return -1;
}

static void
check_linestat(void)
{
	static const char *errors[] = {
		"ERROR: something broke",
		"2024-01-01 12:00:00 ERROR [main] boom",
		"foo.c:12:5: error: expected ';' before '}' token",
		"error[E0308]: mismatched types",
		"FAILED tests/test_x.py::test_a - assert 1 == 2",
		"--- FAIL: TestSearch (0.01s)",
		"FAIL\tgithub.com/x/y\t0.012s",
		"Traceback (most recent call last):",
		"panic: runtime error: index out of range",
		"11:53:22 INFO - TEST-UNEXPECTED-TIMEOUT | a.py | timed out",
		"==123==ERROR: AddressSanitizer: heap-buffer-overflow",
		"Exception in thread \"main\" java.lang.NullPointerException",
		"Caused by: java.io.IOException: disk full",
		"ValueError: invalid literal for int()",
		"FATAL: could not open file",
		"make: *** [Makefile:12: all] Error 2",
		"Segmentation fault (core dumped)",
		"[error] mod_jk child workerEnv in error state 6",
		"build failed with 3 errors",
		"an error and a warning on one line",
		"[taskcluster:error] Task aborted",
		"1 failure, 2 errors",
	};
	static const char *warnings[] = {
		"WARNING: deprecated option",
		"warn: disk almost full",
		"[warn] slow response",
		"foo.c:3:1: warning: unused variable 'x'",
		"2024-01-01 WARN something",
	};
	static const char *clean[] = {
		"",
		"all good here",
		"0 errors, 0 warnings",
		"no errors found",
		"errors: 0",
		"failed=0 changed=3",
		"RemoteAgent TRACE has error=false url=about:blank",
		"'--screenshot-on-fail',",
		"a non-fatal condition",
		"compiling src/error.c",
		"error_count=5 warning_level=2",
		"terrorism and failing and forewarned",
		"Errorless Failsafe Warnings_x",
		"{'substr': 'not found or a compiler error:', 'level': 3}",
		"'level': 'error'",
		"mozilla::dom::Error::Create()",
		"The word 'error' in quotes",
	};
	struct ofl_linestat	 ls;
	struct ofl_buf		 b;
	size_t			 i, k, pad, tailpad, bad;
	static const char	*kw[] = { "error", "FAIL", "ValueError: x",
	    "Traceback (most", "AddressSanitizer" };

	for (i = 0; i < sizeof errors / sizeof errors[0]; i++)
		ok(line_kind(errors[i]) == 2, "linestat error: %s", errors[i]);
	for (i = 0; i < sizeof warnings / sizeof warnings[0]; i++)
		ok(line_kind(warnings[i]) == 1, "linestat warning: %s",
		    warnings[i]);
	for (i = 0; i < sizeof clean / sizeof clean[0]; i++)
		ok(line_kind(clean[i]) == 0, "linestat clean: %s", clean[i]);

	/* Counts and the first error over several lines. */
	memset(&ls, 0, sizeof ls);
	ofl_linestat_line(&ls, "ok", 2, 1);
	ofl_linestat_line(&ls, "WARNING x", 9, 2);
	ofl_linestat_line(&ls, "ERROR y", 7, 3);
	ofl_linestat_line(&ls, "ERROR z", 7, 4);
	ofl_linestat_line(&ls, "warn", 4, 5);
	ok(ls.errors == 2 && ls.warnings == 2 && ls.first_error == 3,
	    "linestat counts 2 errors, 2 warnings, first at 3");

	/* Every alignment of a keyword in a long line, both ends. */
	ofl_buf_init(&b);
	bad = 0;
	for (i = 0; i < sizeof kw / sizeof kw[0]; i++) {
		for (pad = 0; pad < 40; pad++) {
			for (tailpad = 0; tailpad < 40; tailpad += 13) {
				ofl_buf_reset(&b);
				for (k = 0; k < pad; k++)
					ofl_buf_addc(&b, k % 7 == 6 ? ' ' :
					    'a' + (char)(k % 5));
				ofl_buf_addc(&b, ' ');
				ofl_buf_adds(&b, kw[i]);
				for (k = 0; k < tailpad; k++)
					ofl_buf_addc(&b, k == 0 ? ' ' : 'z');
				memset(&ls, 0, sizeof ls);
				ofl_linestat_line(&ls, b.data, b.len, 1);
				if (ls.errors != 1)
					bad++;
				/* Glued to a word, it is no keyword. */
				b.data[pad] = 'q';
				memset(&ls, 0, sizeof ls);
				ofl_linestat_line(&ls, b.data, b.len, 1);
				if (ls.errors != 0 && i != 2)
					bad++;
			}
		}
	}
	ok(bad == 0, "linestat finds keywords at every offset");
	ofl_buf_free(&b);
}

/* The Treeherder log: the nine lines its parser must find are errors. */
static void
check_linestat_corpus(const char *dir)
{
	static const uint64_t	 truth[] = { 1527, 1698, 1854, 2024, 2196,
	    2352, 2522, 2682, 2701 };
	struct ofl_linestat	 ls, one;
	unsigned char		*buf, *p, *nl, *end;
	char			*path;
	size_t			 len, i, found = 0;
	uint64_t		 line = 0;

	path = pathcat(dir, "ci/treeherder-taskcluster-timeout.log");
	buf = slurp(path, &len);
	free(path);
	if (buf == NULL) {
		printf("ok %d # SKIP no Treeherder log\n", ++tap_n);
		return;
	}
	memset(&ls, 0, sizeof ls);
	end = buf + len;
	for (p = buf; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		line++;
		ofl_linestat_line(&ls, (char *)p, nl - p, line);
		for (i = 0; i < sizeof truth / sizeof truth[0]; i++) {
			if (truth[i] != line)
				continue;
			memset(&one, 0, sizeof one);
			ofl_linestat_line(&one, (char *)p, nl - p, line);
			found += one.errors;
		}
	}
	ok(found == 9, "Treeherder: all 9 known error lines count (%zu)",
	    found);
	ok(ls.first_error == 1527, "Treeherder: first error at line 1527 "
	    "(got %llu)", (unsigned long long)ls.first_error);
	ok(ls.errors < 60, "Treeherder: few false errors (%llu lines)",
	    (unsigned long long)ls.errors);
	free(buf);
}

/* Statistics of a run of lines, one line at a time. */
static uint64_t
runs_by_line(struct ofl_linestat *ls, const char *p, size_t n, size_t cap)
{
	const char	*nl, *end = p + n;
	uint64_t	 k = 0;

	memset(ls, 0, sizeof *ls);
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		k++;
		ofl_linestat_line(ls, p, (size_t)(nl - p) > cap ? cap :
		    (size_t)(nl - p), k);
	}
	return k;
}

static int
runs_agree(const char *p, size_t n, size_t cap)
{
	struct ofl_linestat	a, b;
	uint64_t		ka, kb;

	ka = runs_by_line(&a, p, n, cap);
	memset(&b, 0, sizeof b);
	kb = ofl_linestat_lines(&b, p, n, 1, cap);
	return ka == kb && a.errors == b.errors && a.warnings == b.warnings &&
	    a.first_error == b.first_error;
}

/*
 * ofl_linestat_lines skips lines without a candidate block: it must
 * count exactly what ofl_linestat_line counts, line by line.
 */
static void
check_linestat_runs(const char *dir)
{
	static const char *kw[] = { "error", "ERROR:", "Exception:",
	    "failed", "FATAL", "warning", "WARN", "panic:", "Traceback",
	    "ValueError: x", "Segmentation fault", "0 errors", "errors=0" };
	struct ofl_buf	 b;
	unsigned char	*buf;
	const char	*nl;
	char		*path;
	size_t		 i, len, k, bad = 0, runs = 0;

	for (i = 0; i < nfiles; i++) {
		path = pathcat(dir, files[i]);
		buf = slurp(path, &len);
		free(path);
		if (buf == NULL)
			continue;
		/* Whole lines only: up to the last newline. */
		nl = len > 0 ? memrchr(buf, '\n', len) : NULL;
		if (nl != NULL) {
			len = (size_t)(nl - (const char *)buf) + 1;
			runs++;
			if (!runs_agree((char *)buf, len, 4096) ||
			    !runs_agree((char *)buf, len, 40))
				bad++;
		}
		free(buf);
	}
	ok(runs > 0 && bad == 0, "linestat runs agree line by line on %zu "
	    "corpus files (%zu differ)", runs, bad);

	/* Keywords at every offset, in lines of every short length. */
	ofl_buf_init(&b);
	for (i = 0; i < sizeof kw / sizeof kw[0]; i++) {
		for (k = 0; k < 60; k++) {
			ofl_buf_reset(&b);
			ofl_buf_addf(&b, "%.*s%s\n\n%.*sx %s y\n", (int)(k % 23),
			    "abc def ghi jkl mno pqr", kw[i], (int)k,
			    "...............................................\
.............", kw[k % (sizeof kw / sizeof kw[0])]);
			if (!runs_agree(b.data, b.len, 4096) ||
			    !runs_agree(b.data + 1, b.len - 1, 4096) ||
			    !runs_agree(b.data, b.len, 8))
				bad++;
		}
	}
	ok(bad == 0, "linestat runs agree at every offset (%zu differ)", bad);
	ofl_buf_free(&b);
}

static void
check_refline(void)
{
	struct ofl_meta	m;
	struct ofl_buf	b;
	char		cmd[200];

	memset(&m, 0, sizeof m);
	snprintf(m.id, sizeof m.id, "k7m2q9xd");
	m.kind = OFL_KIND_LOG;
	m.bytes = 8100000;
	m.lines = 96004;
	m.duration_ms = -1;
	ofl_buf_init(&b);
	ofl_notice_refline(&b, &m);
	is_str(ofl_buf_str(&b), "ofl:k7m2q9xd log 8.1 MB 96,004 lines",
	    "refline");
	ok(ofl_ref_parse(b.data, b.len, cmd) == 12 &&
	    strcmp(cmd, "k7m2q9xd") == 0, "refline parses as a reference");

	ofl_buf_reset(&b);
	m.incomplete = 1;
	m.command = "make check";
	m.has_exit = 1;
	m.exit_status = 2;
	m.duration_ms = 252000;
	ofl_notice_refline(&b, &m);
	is_str(ofl_buf_str(&b), "ofl:k7m2q9xd log 8.1 MB 96,004 lines "
	    "(incomplete)  $ make check  exit 2  4 min 12 s",
	    "refline with a command");

	ofl_buf_reset(&b);
	m.incomplete = 0;
	m.has_exit = 0;
	m.duration_ms = -1;
	m.lines = 1;
	m.bytes = 5;
	memset(cmd, 'x', sizeof cmd - 1);
	cmd[sizeof cmd - 1] = '\0';
	cmd[3] = '\n';
	m.command = cmd;
	ofl_notice_refline(&b, &m);
	ok(memchr(b.data, '\n', b.len) == NULL && b.len < 140 &&
	    strstr(b.data, "xxx\\x0axxx") != NULL &&
	    b.len >= 3 && memcmp(b.data + b.len - 3, "...", 3) == 0,
	    "a long command is cut, its newline escaped");
	ok(strncmp(b.data, "ofl:k7m2q9xd log 5 B 1 line  $ ", 31) == 0,
	    "one line is 'line'");
	m.command = NULL;
	ofl_buf_free(&b);
}

/* Store content; fills m.  Returns 0 on success. */
static int
put(const void *p, size_t n, const char *command, struct ofl_meta *m)
{
	struct ofl_writer	*w;
	struct ofl_meta		 init, fin;

	memset(&init, 0, sizeof init);
	init.command = (char *)command;
	init.duration_ms = -1;
	memset(&fin, 0, sizeof fin);
	fin.duration_ms = command != NULL ? 1300 : -1;
	fin.has_exit = command != NULL;
	memset(m, 0, sizeof *m);
	if ((w = ofl_writer_begin(store, &init)) == NULL)
		return -1;
	if (n > 0 && ofl_writer_write(w, p, n) == -1)
		return -1;
	return ofl_writer_finish(w, &fin, m);
}

static int
notice_of(const void *p, size_t n, int json, struct ofl_meta *m,
    struct ofl_buf *out)
{
	struct ofl_notice_opts	o;

	ofl_buf_reset(out);
	if (put(p, n, NULL, m) == -1) {
		printf("# put: %s\n", ofl_errmsg());
		return -1;
	}
	ofl_notice_opts_init(&o);
	o.json = json;
	if (ofl_notice(store, m, &o, out) == -1) {
		printf("# notice: %s\n", ofl_errmsg());
		return -1;
	}
	ofl_buf_str(out);
	return 0;
}

/* Print a notice as TAP comments, for failures. */
static void
show(const struct ofl_buf *b)
{
	const char	*p = b->data, *e = b->data + b->len, *nl;

	while (p < e) {
		if ((nl = memchr(p, '\n', e - p)) == NULL)
			nl = e;
		printf("#   | %.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
}

#define has(b, s) (strstr((b)->data, (s)) != NULL)

/* Parse "--- NAME (lines A-B of N) ---" for a section; 0 if absent. */
static int
range_of(const struct ofl_buf *b, const char *name, unsigned long *a,
    unsigned long *z)
{
	char		 pat[64];
	const char	*p;
	char		*q;

	snprintf(pat, sizeof pat, "--- %s (line", name);
	if ((p = strstr(b->data, pat)) == NULL)
		return 0;
	p += strlen(pat);
	if (*p == 's')
		p++;
	*a = strtoul(p, &q, 10);
	while (*q == ',') {
		/* Thousands separators. */
		unsigned long more = strtoul(q + 1, &q, 10);

		*a = *a * 1000 + more;
	}
	*z = *a;
	if (*q == '-') {
		*z = strtoul(q + 1, &q, 10);
		while (*q == ',') {
			unsigned long more = strtoul(q + 1, &q, 10);

			*z = *z * 1000 + more;
		}
	}
	return 1;
}

static void
check_notices(void)
{
	struct ofl_buf	 b, c, out;
	struct ofl_meta	 m;
	unsigned char	 arc[64 * 1024];
	unsigned long	 ha = 0, hz = 0, ta = 0, tz = 0;
	size_t		 n, i;
	char		 want[128];
	const char	*p;
	jv		 v;
	int		 okay;

	ofl_buf_init(&b);
	ofl_buf_init(&c);
	ofl_buf_init(&out);

	/* A small text is shown once, whole. */
	okay = notice_of("one\ntwo\nthree\n", 14, 0, &m, &out) == 0;
	ok(okay && has(&out, "--- all (lines 1-3 of 3) ---\n1| one\n2| two\n"
	    "3| three\n--- end of preview ---\n") && !has(&out, "tail"),
	    "small text: shown once");
	if (okay) {
		snprintf(want, sizeof want, "ofl:%s text 14 B 3 lines\n", m.id);
		ok(strncmp(out.data, want, strlen(want)) == 0,
		    "small text: reference line");
		snprintf(want, sizeof want, "next: ofl-extract %s -n 1-3\n"
		    "      ofl-search %s 'QUERY'\n", m.id, m.id);
		ok(has(&out, want), "small text: next commands");
	}
	if (!okay || !has(&out, "--- all"))
		show(&out);
	ofl_meta_free(&m);

	/* A log with CRLF and one error in the middle. */
	ofl_buf_reset(&b);
	for (i = 1; i <= 3000; i++) {
		if (i == 1500)
			ofl_buf_addf(&b, "2024-01-01T00:00:00Z ERROR disk full "
			    "on /dev/sda1\r\n");
		else
			ofl_buf_addf(&b, "2024-01-01T00:00:00Z INFO step %zu "
			    "of the job\r\n", i);
	}
	okay = notice_of(b.data, b.len, 0, &m, &out) == 0;
	ok(okay && m.kind == OFL_KIND_LOG, "log: kind log");
	ok(okay && has(&out, "errors: 1 line (first at line 1,500), "
	    "warnings: none\n"), "log: error summary");
	ok(okay && has(&out, "--- first error (line 1,500 of 3,000) ---\n"
	    "1500| 2024-01-01T00:00:00Z ERROR disk full on /dev/sda1\n"),
	    "log: the first error line is shown");
	ok(okay && !has(&out, "\r") && !has(&out, "\\x0d"),
	    "log: CR at line ends is dropped");
	ok(okay && range_of(&out, "head", &ha, &hz) &&
	    range_of(&out, "tail", &ta, &tz) && ha == 1 && hz > 3 &&
	    hz < ta && tz == 3000, "log: head %lu-%lu and tail %lu-%lu "
	    "do not overlap", ha, hz, ta, tz);
	snprintf(want, sizeof want, "ofl-extract %s -n 1480-1520\n", m.id);
	ok(okay && has(&out, want), "log: next range around the error");
	ok(okay && out.len <= NOTICE_MAX, "log: notice of %zu bytes", out.len);
	if (!okay || out.len > NOTICE_MAX || !has(&out, "first error"))
		show(&out);
	ofl_meta_free(&m);

	/* One long line: cut in the head, its end in the tail. */
	ofl_buf_reset(&b);
	ofl_buf_addc(&b, '[');
	for (i = 0; i < 20000; i++)
		ofl_buf_addf(&b, "%s%zu", i ? "," : "", i);
	ofl_buf_adds(&b, "]\n");
	okay = notice_of(b.data, b.len, 0, &m, &out) == 0;
	ok(okay && m.kind == OFL_KIND_JSON, "long line: kind json");
	ok(okay && has(&out, "--- head (line 1 of 1) ---\n1| [0,1,2,3,") &&
	    has(&out, "--- tail (line 1 of 1) ---\n1| ") &&
	    has(&out, ",19998,19999]\n--- end of preview ---"),
	    "long line: head and tail of the same line");
	if (okay && (p = strstr(out.data, "1| [")) != NULL) {
		/* shown + left out + shown = the line. */
		const char	*cut = strstr(p, " [... ");
		const char	*t = strstr(p, "--- tail (line 1 of 1) ---\n"
		    "1| ");
		unsigned long	 skipped = 0;
		char		*q;

		if (cut != NULL && t != NULL) {
			skipped = strtoul(cut + 6, &q, 10);
			while (*q == ',')
				skipped = skipped * 1000 +
				    strtoul(q + 1, &q, 10);
			t += strlen("--- tail (line 1 of 1) ---\n1| ");
			n = (size_t)(cut - (p + 3)) + skipped +
			    (size_t)(strchr(t, '\n') - t);
		} else
			n = 0;
		ok(n == b.len - 1, "long line: shown and left out add up "
		    "(%zu of %zu)", n, b.len - 1);
	} else
		ok(0, "long line: shown and left out add up");
	ok(okay && out.len <= NOTICE_MAX, "long line: notice of %zu bytes",
	    out.len);
	snprintf(want, sizeof want, "ofl-extract %s '.[0]'", m.id);
	ok(okay && has(&out, want) && has(&out,
	    "shape: [integer 0..19999] x20,000\n"),
	    "long line: shape and filter");
	if (!okay || !has(&out, "--- tail"))
		show(&out);
	ofl_meta_free(&m);

	/* Multi-byte text is never cut inside a character. */
	ofl_buf_reset(&b);
	for (i = 0; i < 3000; i++)
		ofl_buf_adds(&b, i % 3 == 0 ? "\xc3\xa9" : i % 3 == 1 ?
		    "\xe2\x82\xac" : "\xf0\x9f\x98\x80");
	ofl_buf_adds(&b, "\nsecond line\n");
	okay = notice_of(b.data, b.len, 0, &m, &out) == 0;
	ok(okay && clean_utf8((unsigned char *)out.data, out.len) &&
	    has(&out, " [... "), "UTF-8: cut at character boundaries");
	ofl_meta_free(&m);

	/* Control characters are escaped. */
	okay = notice_of("\x1b[31mred\x1b[0m\x07 bell\n", 19, 0, &m,
	    &out) == 0;
	ok(okay && has(&out, "1| \\x1b[31mred\\x1b[0m\\x07 bell\n"),
	    "control characters are escaped");
	ofl_meta_free(&m);

	/* Binary content: hex of both ends. */
	ofl_buf_reset(&b);
	for (i = 0; i < 1024; i++)
		ofl_buf_addc(&b, (int)(i & 0xff));
	okay = notice_of(b.data, b.len, 0, &m, &out) == 0;
	ok(okay && m.kind == OFL_KIND_BINARY, "binary: kind binary");
	ok(okay && has(&out, "--- head (bytes 0-127 of 1,024) ---\n"
	    "00000000: 0001 0203 0405 0607 0809 0a0b 0c0d 0e0f  "
	    "................\n") && has(&out, "--- tail (bytes 896-1,023 of "
	    "1,024) ---\n00000380: 8081 8283") && has(&out, "00000070: "
	    "7071 7273 7475 7677 7879 7a7b 7c7d 7e7f  pqrstuvwxyz{|}~.\n"),
	    "binary: hex dump of head and tail");
	ok(okay && out.len <= NOTICE_MAX, "binary: notice of %zu bytes",
	    out.len);
	if (!okay || !has(&out, "00000000: 0001"))
		show(&out);
	ofl_meta_free(&m);

	/* A tar.gz: its members. */
	n = make_archive(arc, sizeof arc, ARCHIVE_FORMAT_TAR_USTAR,
	    ARCHIVE_FILTER_GZIP, 12);
	okay = notice_of(arc, n, 0, &m, &out) == 0;
	ok(okay && m.kind == OFL_KIND_ARCHIVE, "tar.gz: kind archive");
	ok(okay && has(&out, "members: 10 of 12 (POSIX ustar format, gzip)\n"
	    "  dir/file00.txt  23 B\n") && has(&out, "  dir/file09.txt  23 B\n"
	    "--- "), "tar.gz: first 10 members with sizes");
	snprintf(want, sizeof want, "ofl-extract %s --member "
	    "dir/file00.txt\n", m.id);
	ok(okay && has(&out, want), "tar.gz: next extracts a member");
	if (!okay || !has(&out, "members: 10 of 12"))
		show(&out);
	ofl_meta_free(&m);

	/* A gzip stream of text. */
	n = make_stream(arc, sizeof arc, ARCHIVE_FILTER_GZIP);
	okay = notice_of(arc, n, 0, &m, &out) == 0;
	ok(okay && m.kind == OFL_KIND_COMPRESSED && has(&out,
	    "stream: gzip, 44 B decompressed, starts: 2024-01-01 INFO "
	    "hello\\x0a2024"), "gzip: filter, size and start");
	if (!okay || !has(&out, "stream: gzip"))
		show(&out);
	ofl_meta_free(&m);

	/* Markdown: headings outside fences. */
	ofl_buf_reset(&b);
	ofl_buf_adds(&b, "# Title #\n\nIntro with a [link](x).\n\n```\n"
	    "# not a heading\n```\n\n## Install\n\n- a\n- b\n\n### Deep\n");
	okay = notice_of(b.data, b.len, 0, &m, &out) == 0;
	ok(okay && m.kind == OFL_KIND_MARKDOWN && has(&out,
	    "headings: # Title | ## Install | ### Deep\n"),
	    "markdown: headings outside fences");
	if (!okay || !has(&out, "headings: # Title"))
		show(&out);
	ofl_meta_free(&m);

	/* JSON: the shape and a real key in the filter. */
	ofl_buf_reset(&b);
	ofl_buf_adds(&b, "{\"apiVersion\": \"v1\", \"items\": [{\"a\": 1}, "
	    "{\"a\": 2}], \"kind\": \"List\", \"meta-data\": {}}\n");
	okay = notice_of(b.data, b.len, 0, &m, &out) == 0;
	ok(okay && has(&out, "shape: {apiVersion: \"v1\", items: [{a: integer "
	    "1..2}] x2, kind: \"List\", meta-data: {}}\n"), "json: shape");
	snprintf(want, sizeof want, "ofl-schema %s\n      ofl-extract %s "
	    "'.items[0]'\n", m.id, m.id);
	ok(okay && has(&out, want), "json: schema and filter suggested");
	if (!okay || !has(&out, "shape: {apiVersion"))
		show(&out);
	ofl_meta_free(&m);

	/* CSV: the header. */
	p = "id,\"full name\",age\n1,\"A, B\",3\n2,C,4\n5,D,6\n";
	okay = notice_of(p, strlen(p), 0, &m, &out) == 0;
	ok(okay && m.kind == OFL_KIND_CSV && has(&out,
	    "columns (3): id, full name, age\n"), "csv: columns");
	ofl_meta_free(&m);

	/* An empty artifact. */
	okay = notice_of("", 0, 0, &m, &out) == 0;
	ok(okay && m.kind == OFL_KIND_EMPTY && has(&out, " empty 0 B 0 lines"
	    "\n(no content)\n"), "empty: no content");
	if (!okay || !has(&out, "(no content)"))
		show(&out);
	ofl_meta_free(&m);

	/* JSON mode: one valid object on one line. */
	okay = notice_of("one\ntwo\n", 8, 1, &m, &out) == 0;
	v = okay ? jv_parse_sized(out.data, (int)out.len) : jv_invalid();
	ok(okay && jv_is_valid(v) &&
	    memchr(out.data, '\n', out.len) == out.data + out.len - 1,
	    "json mode: one valid line");
	if (jv_is_valid(v)) {
		jv	id = jv_object_get(jv_copy(v), jv_string("id"));
		jv	head = jv_object_get(jv_copy(v), jv_string("head"));
		jv	next = jv_object_get(jv_copy(v), jv_string("next"));
		jv	sum = jv_object_get(jv_copy(v), jv_string("summary"));

		ok(jv_get_kind(id) == JV_KIND_STRING &&
		    strcmp(jv_string_value(id), m.id) == 0, "json mode: id");
		ok(jv_get_kind(head) == JV_KIND_STRING &&
		    strcmp(jv_string_value(head), "one\ntwo") == 0,
		    "json mode: head");
		ok(jv_get_kind(next) == JV_KIND_ARRAY &&
		    jv_array_length(jv_copy(next)) == 2, "json mode: next");
		ok(jv_get_kind(sum) == JV_KIND_OBJECT, "json mode: summary");
		jv_free(id);
		jv_free(head);
		jv_free(next);
		jv_free(sum);
	}
	jv_free(v);

	/* The metadata as JSON. */
	ofl_buf_reset(&c);
	ofl_meta_json(&c, &m);
	ofl_buf_str(&c);
	v = jv_parse_sized(c.data, (int)c.len);
	ok(jv_is_valid(v) && c.data[c.len - 1] == '\n',
	    "meta json: valid, ends in a newline");
	if (jv_is_valid(v)) {
		static const char *keys[] = { "id", "ref", "kind", "bytes",
		    "lines", "stored", "hash", "created", "used", "expires",
		    "label", "command", "cwd", "session", "exit",
		    "duration_ms", "incomplete", "errors", "warnings" };
		size_t missing = 0;

		for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			if (!jv_object_has(jv_copy(v), jv_string(keys[i])))
				missing++;
		}
		ok(missing == 0, "meta json: every field");
		snprintf(want, sizeof want, "\"ref\":\"ofl:%s\"", m.id);
		ok(strstr(c.data, want) != NULL && strstr(c.data,
		    "\"exit\":null") != NULL && strstr(c.data,
		    "\"expires\":null") != NULL && strstr(c.data,
		    "\"kind\":\"text\"") != NULL, "meta json: values");
		p = strstr(c.data, "\"created\":\"");
		ok(p != NULL && strlen(p) > 31 && p[15] == '-' &&
		    p[21] == 'T' && p[30] == 'Z', "meta json: ISO 8601 time");
	}
	jv_free(v);
	ofl_meta_free(&m);

	/* No preview when both budgets are zero. */
	if (put("a\nb\n", 4, "printf 'a\\nb\\n'", &m) == 0) {
		struct ofl_notice_opts o;

		ofl_notice_opts_init(&o);
		ok(o.head_bytes == 600 && o.tail_bytes == 400 && o.json == 0,
		    "default options");
		o.head_bytes = o.tail_bytes = 0;
		ofl_buf_reset(&out);
		ok(ofl_notice(store, &m, &o, &out) == 0 &&
		    !has(&out, "---") && has(&out, "  $ printf 'a\\nb\\n'  "
		    "exit 0  1.3 s\n"), "no preview with zero budgets");
		ofl_meta_free(&m);
	} else
		ok(0, "store a command's output");

	ofl_buf_free(&b);
	ofl_buf_free(&c);
	ofl_buf_free(&out);
}

/* Every corpus file: a notice of about a kilobyte. */
static void
check_notice_corpus(const char *dir)
{
	struct ofl_buf	 out;
	struct ofl_meta	 m;
	unsigned char	*buf;
	char		*path;
	size_t		 i, len;
	int		 okay;

	ofl_buf_init(&out);
	for (i = 0; i < nfiles; i++) {
		path = pathcat(dir, files[i]);
		buf = slurp(path, &len);
		free(path);
		if (buf == NULL)
			continue;
		okay = notice_of(buf, len, 0, &m, &out) == 0;
		ok(okay && out.len <= NOTICE_MAX &&
		    clean_utf8((unsigned char *)out.data, out.len) &&
		    has(&out, "--- end of preview ---\n") &&
		    has(&out, "\nnext: "), "corpus notice %s: %zu bytes",
		    files[i], out.len);
		if (!okay || out.len > NOTICE_MAX)
			show(&out);
		ofl_meta_free(&m);
		free(buf);
	}
	ofl_buf_free(&out);
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	return remove(path);
}

int
main(void)
{
	const char	*dir;
	char		*path;
	size_t		 i;

	check_names();
	check_inline();
	check_window();
	check_archives();
	check_render();
	check_linestat();
	check_refline();

	dir = corpus_dir();
	if (dir != NULL) {
		list_files(dir, "");
		qsort(files, nfiles, sizeof *files, cmpstr);
		check_corpus_kinds(dir);
		check_linestat_corpus(dir);
		check_linestat_runs(dir);
	} else
		printf("ok %d # SKIP no corpus\n", ++tap_n);

	snprintf(tmpdir, sizeof tmpdir, "%s/ofl-test-kind.XXXXXX",
	    getenv("TMPDIR") != NULL && *getenv("TMPDIR") != '\0' ?
	    getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		ok(0, "make a temporary directory");
		return done_testing();
	}
	/* No user settings: a private store, no extra redaction rules. */
	setenv("XDG_CONFIG_HOME", tmpdir, 1);
	unsetenv("OFL_REDACT");
	path = pathcat(tmpdir, "store");
	store = ofl_store_open(path, OFL_RDWR);
	free(path);
	if (store == NULL)
		ok(0, "open a store: %s", ofl_errmsg());
	else {
		check_notices();
		if (dir != NULL)
			check_notice_corpus(dir);
		ofl_store_close(store);
	}
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	return done_testing();
}
