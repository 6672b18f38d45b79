/*
 * arc.c: open libarchive on first use (see arc.h), and the one adapter
 * that lets libarchive read an artifact, or a member of one, through a
 * struct ofl_src.  Nothing here exits: a missing libarchive is an error
 * the caller reports.
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OFL_ARC_REAL	/* the real names here, not arc.h's macros */
#include "arc.h"
#include "ofl.h"
#include "banned.h"

#define ARC_READ_SIZE	(64 * 1024)	/* bytes handed to libarchive */

struct ofl_arc_api	ofl_arc_api;
int			ofl_arc_loaded;

int
ofl_arc_load(void)
{
	static const char	*names[] = { LIBARCHIVE_SONAME,
	    "libarchive.so.13", "libarchive.so", NULL };
	void			*h;

	if (ofl_arc_loaded)
		return 0;
	if (ofl_dl_open("libarchive", names, &h) == -1)
		return -1;
#define X(name)								\
	if ((ofl_arc_api.name = (__typeof__(name) *)ofl_dl_sym(h,	\
	    "libarchive", LIBARCHIVE_SONAME, #name)) == NULL)		\
		return -1;
	OFL_ARC_FUNCS
#undef X
	ofl_arc_loaded = 1;
	return 0;
}

void
ofl_arc_formats(struct archive *a)
{
	ofl_arc_api.archive_read_support_format_tar(a);
	ofl_arc_api.archive_read_support_format_zip(a);
	ofl_arc_api.archive_read_support_format_7zip(a);
	ofl_arc_api.archive_read_support_format_cpio(a);
	ofl_arc_api.archive_read_support_format_ar(a);
	ofl_arc_api.archive_read_support_format_iso9660(a);
}

void
ofl_arc_filters(struct archive *a)
{
	ofl_arc_api.archive_read_support_filter_gzip(a);
	ofl_arc_api.archive_read_support_filter_bzip2(a);
	ofl_arc_api.archive_read_support_filter_xz(a);
	ofl_arc_api.archive_read_support_filter_lzma(a);
	ofl_arc_api.archive_read_support_filter_lzip(a);
	ofl_arc_api.archive_read_support_filter_zstd(a);
	ofl_arc_api.archive_read_support_filter_lz4(a);
	ofl_arc_api.archive_read_support_filter_compress(a);
}

static la_ssize_t
arc_read(struct archive *a, void *arg, const void **out)
{
	struct ofl_arc	*x = arg;
	ssize_t		 n;

	if ((n = ofl_src_read(x->src, x->buf, ARC_READ_SIZE)) < 0) {
		x->ioerr = 1;
		ofl_arc_api.archive_set_error(a, EIO, "%s", ofl_errmsg());
		return ARCHIVE_FATAL;
	}
	*out = x->buf;
	return n;
}

/* Seeks past the end stop at the end. */
static la_int64_t
arc_seek(struct archive *a, void *arg, la_int64_t off, int whence)
{
	struct ofl_arc	*x = arg;
	uint64_t	 size = ofl_src_bytes(x->src);
	int64_t		 to;

	switch (whence) {
	case SEEK_SET:
		to = off;
		break;
	case SEEK_CUR:
		to = (int64_t)ofl_src_tell(x->src) + off;
		break;
	case SEEK_END:
		to = (int64_t)size + off;
		break;
	default:
		return ARCHIVE_FATAL;
	}
	if (to < 0)
		return ARCHIVE_FATAL;
	if ((uint64_t)to > size)
		to = (int64_t)size;
	if (ofl_src_seek(x->src, (uint64_t)to) == -1) {
		x->ioerr = 1;
		ofl_arc_api.archive_set_error(a, EIO, "%s", ofl_errmsg());
		return ARCHIVE_FATAL;
	}
	return to;
}

static la_int64_t
arc_skip(struct archive *a, void *arg, la_int64_t n)
{
	struct ofl_arc	*x = arg;
	uint64_t	 pos = ofl_src_tell(x->src), size;

	(void)a;
	size = ofl_src_bytes(x->src);
	if (n <= 0 || pos > size)
		return 0;
	if ((uint64_t)n > size - pos)
		n = (la_int64_t)(size - pos);
	if (ofl_src_seek(x->src, pos + (uint64_t)n) == -1)
		return 0;
	return n;
}

int
ofl_arc_open(struct ofl_arc *x, const struct ofl_src *src, int flags)
{
	struct archive	*a;
	const char	*e;

	memset(x, 0, sizeof *x);
	x->src = src;
	if (ofl_arc_load() == -1)
		return -1;
	if ((a = ofl_arc_api.archive_read_new()) == NULL) {
		ofl_seterr(OFL_EXIT_FAIL, "cannot start libarchive");
		return -1;
	}
	x->a = a;
	x->buf = ofl_xmalloc(ARC_READ_SIZE);
	if (flags & OFL_ARC_FILTERS_ALL)
		ofl_arc_api.archive_read_support_filter_all(a);
	else
		ofl_arc_filters(a);
	if (!(flags & OFL_ARC_RAW_ONLY))
		ofl_arc_formats(a);
	ofl_arc_api.archive_read_support_format_raw(a);
	ofl_arc_api.archive_read_set_callback_data(a, x);
	ofl_arc_api.archive_read_set_read_callback(a, arc_read);
	if (flags & OFL_ARC_SEEK) {
		ofl_arc_api.archive_read_set_seek_callback(a, arc_seek);
		ofl_arc_api.archive_read_set_skip_callback(a, arc_skip);
	}
	if (ofl_arc_api.archive_read_open1(a) != ARCHIVE_OK) {
		e = ofl_arc_api.archive_error_string(a);
		ofl_seterr(OFL_EXIT_FAIL, "%s", e != NULL ? e :
		    "cannot read the archive");
		return -1;
	}
	return 0;
}

void
ofl_arc_close(struct ofl_arc *x)
{
	if (x->a != NULL)
		ofl_arc_api.archive_read_free(x->a);
	free(x->buf);
	x->a = NULL;
	x->buf = NULL;
}
