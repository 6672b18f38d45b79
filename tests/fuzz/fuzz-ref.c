/*
 * fuzz-ref.c: IDs and references, and the little parsers of arguments.
 *
 * Each line of the input is parsed as a reference line (ofl_ref_parse),
 * resolved against a store whose IDs share prefixes, and parsed as a
 * duration, a size, a number and a span; the whole input is also read as
 * a tool's standard input (ofl_index_input).  Invariants: a parsed or
 * resolved ID is a valid ID of at most OFL_ID_MAX characters, a resolved
 * one exists, and anything with a path character in it is refused as a
 * usage error.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ofl.h"
#include "fuzz.h"
#include "banned.h"

const char	fuzz_target[] = "ref";

/* Fixed IDs, so that inputs mean the same in every run. */
static const char *fixed[] = {
	"abc12345", "abc12399", "abd00000", "zz", "0", "k7m2q9xd", NULL
};
static int	ready;

static void	setup(void);
static void	one_line(const char *, size_t);
static int	is_fixed(const char *);

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
	sqlite3_stmt	*stmt;
	sqlite3		*db;
	char		 id[OFL_ID_MAX + 1];
	int		 i;

	if (ready)
		return;
	db = ofl_store_db(fuzz_store());
	for (i = 0; fixed[i] != NULL; i++) {
		fuzz_put(fixed[i], strlen(fixed[i]), id);
		if (sqlite3_prepare_v2(db, "UPDATE artifact SET id = ?1 WHERE"
		    " id = ?2", -1, &stmt, NULL) != SQLITE_OK)
			fuzz_fail("prepare: %s", sqlite3_errmsg(db));
		sqlite3_bind_text(stmt, 1, fixed[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(stmt, 2, id, -1, SQLITE_STATIC);
		if (sqlite3_step(stmt) != SQLITE_DONE)
			fuzz_fail("rename: %s", sqlite3_errmsg(db));
		sqlite3_finalize(stmt);
	}
	ready = 1;
}

static int
is_fixed(const char *id)
{
	int	i;

	for (i = 0; fixed[i] != NULL; i++)
		if (strcmp(fixed[i], id) == 0)
			return 1;
	return 0;
}

static void
one_line(const char *s, size_t n)
{
	char		 id[OFL_ID_MAX + 1], full[OFL_ID_MAX + 1];
	struct ofl_meta	 m;
	struct ofl_span	 span;
	int64_t		 ms;
	uint64_t	 sz;
	long long	 v;
	size_t		 k;

	memset(id, 'X', sizeof id);
	if ((k = ofl_ref_parse(s, n, id)) > 0) {
		if (k > n)
			fuzz_fail("ofl_ref_parse consumed %zu of %zu bytes", k, n);
		if (memchr(id, '\0', sizeof id) == NULL ||
		    !ofl_id_valid(id, strlen(id)))
			fuzz_fail("ofl_ref_parse gave an invalid ID");
	}
	if (strlen(s) != n)
		return;		/* a NUL inside: not an argument */
	memset(full, 'X', sizeof full);
	if (ofl_store_resolve(fuzz_store(), s, full) == 0) {
		if (memchr(full, '\0', sizeof full) == NULL ||
		    !ofl_id_valid(full, strlen(full)))
			fuzz_fail("\"%s\" resolved to an invalid ID", s);
		if (ofl_store_meta(fuzz_store(), full, &m) == -1)
			fuzz_fail("\"%s\" resolved to %s, which is unknown: %s",
			    s, full, ofl_errmsg());
		ofl_meta_free(&m);
		if (strchr(s, '/') != NULL || strchr(s, '.') != NULL)
			fuzz_fail("\"%s\", a path, resolved to %s", s, full);
	} else if ((strchr(s, '/') != NULL || strstr(s, "..") != NULL) &&
	    ofl_errcode() != OFL_EXIT_USAGE)
		fuzz_fail("\"%s\", a path, refused with %d, not a usage error",
		    s, ofl_errcode());
	(void)ofl_parse_duration(s, &ms);
	(void)ofl_parse_size(s, &sz);
	(void)ofl_parse_num(s, 0, 1000000, &v);
	(void)ofl_parse_num(s, -5, 5, &v);
	if (ofl_span_parse(s, OFL_SPAN_LINES, &span) == 0 && span.unit !=
	    OFL_SPAN_LINES)
		fuzz_fail("line span of another unit");
	(void)ofl_span_parse(s, OFL_SPAN_BYTES, &span);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		*s, *p, *nl, **ids = NULL, path[4200];
	size_t		 nids = 0, i, len;
	struct ofl_meta	 m;
	int		 fd;

	setup();
	s = fuzz_str(data, size);
	for (p = s; p < s + size; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(s + size - p))) == NULL)
			nl = s + size;
		len = (size_t)(nl - p);
		*nl = '\0';
		one_line(p, len);
	}
	free(s);

	/* The pipe protocol, as a tool given no ID reads its input. */
	snprintf(path, sizeof path, "%s/input", fuzz_dir());
	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) == -1)
		fuzz_fail("%s", path);
	if (size > 0 && ofl_write_all(fd, data, size) == -1)
		fuzz_fail("write %s", path);
	if (lseek(fd, 0, SEEK_SET) == -1)
		fuzz_fail("lseek");
	if (ofl_index_input(fuzz_store(), fd, &ids, &nids) == -1)
		fuzz_fail("ofl_index_input: %s", ofl_errmsg());
	close(fd);
	for (i = 0; i < nids; i++) {
		if (!ofl_id_valid(ids[i], strlen(ids[i])))
			fuzz_fail("ofl_index_input gave an invalid ID");
		/* Drop what it captured, keep the fixed artifacts. */
		if (!is_fixed(ids[i]) && ofl_store_meta(fuzz_store(), ids[i],
		    &m) == 0) {
			ofl_meta_free(&m);
			fuzz_drop(ids[i]);
		}
		free(ids[i]);
	}
	free(ids);
	return 0;
}
