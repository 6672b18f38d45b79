/*
 * arc.h: libarchive, loaded when first used.
 *
 * Linking libarchive pulls in libxml2, ICU and libstdc++, whose loading
 * costs every process over a millisecond; most ofl commands never touch
 * an archive.  So the library opens libarchive with dlopen(3) on first
 * use, and the archive_* names used in ofl become calls through a table.
 * Include this instead of <archive.h>.
 */
#ifndef OFL_ARC_H
#define OFL_ARC_H

#include <archive.h>
#include <archive_entry.h>

struct ofl_src;

#define OFL_ARC_FUNCS \
	X(archive_read_support_format_tar) \
	X(archive_read_support_format_zip) \
	X(archive_read_support_format_7zip) \
	X(archive_read_support_format_cpio) \
	X(archive_read_support_format_ar) \
	X(archive_read_support_format_iso9660) \
	X(archive_entry_filetype) \
	X(archive_entry_is_encrypted) \
	X(archive_entry_pathname) \
	X(archive_entry_pathname_utf8) \
	X(archive_entry_size) \
	X(archive_entry_size_is_set) \
	X(archive_error_string) \
	X(archive_filter_bytes) \
	X(archive_filter_code) \
	X(archive_filter_count) \
	X(archive_filter_name) \
	X(archive_format) \
	X(archive_format_name) \
	X(archive_read_data) \
	X(archive_read_data_block) \
	X(archive_read_free) \
	X(archive_read_new) \
	X(archive_read_next_header) \
	X(archive_read_open1) \
	X(archive_read_open_memory) \
	X(archive_read_set_callback_data) \
	X(archive_read_set_read_callback) \
	X(archive_read_set_seek_callback) \
	X(archive_read_set_skip_callback) \
	X(archive_read_support_filter_all) \
	X(archive_read_support_filter_bzip2) \
	X(archive_read_support_filter_compress) \
	X(archive_read_support_filter_gzip) \
	X(archive_read_support_filter_lz4) \
	X(archive_read_support_filter_lzip) \
	X(archive_read_support_filter_lzma) \
	X(archive_read_support_filter_xz) \
	X(archive_read_support_filter_zstd) \
	X(archive_read_support_format_all) \
	X(archive_read_support_format_raw) \
	X(archive_set_error) \
	/* end */

struct ofl_arc_api {
#define X(name)	__typeof__(name) *name;
	OFL_ARC_FUNCS
#undef X
};
extern struct ofl_arc_api ofl_arc_api;
extern int ofl_arc_loaded;

/*
 * Load libarchive (once).  0, or -1 with ofl_errmsg() set when it cannot
 * be loaded: the library never exits, the caller reports it.  Every
 * archive_* call below goes through the table, so a caller loads first:
 * ofl_arc_open() does.
 */
int	ofl_arc_load(void);
/*
 * The archive formats ofl reads: not all of libarchive's, since some
 * (mtree) take plain text for an archive.
 */
void	ofl_arc_formats(struct archive *);
/*
 * The filters for the compressed streams kind detection knows, none that
 * would run an external program.
 */
void	ofl_arc_filters(struct archive *);

/*
 * libarchive reading through a struct ofl_src: the one adapter.  With
 * OFL_ARC_SEEK the source is seekable (an artifact) and libarchive may
 * seek and skip; without, it is read once from where it stands (a member
 * of an archive).  OFL_ARC_FILTERS_ALL enables every filter libarchive
 * has, else only ofl_arc_filters(); OFL_ARC_RAW_ONLY reads the stream as
 * one raw member, no archive format tried.
 */
#define OFL_ARC_SEEK		0x1
#define OFL_ARC_FILTERS_ALL	0x2
#define OFL_ARC_RAW_ONLY	0x4

struct ofl_arc {
	struct archive		*a;	/* NULL when libarchive is missing */
	const struct ofl_src	*src;
	void			*buf;
	int			 ioerr;	/* the source failed, not the archive */
};

/*
 * Open an archive over src.  0; -1 when libarchive is missing or cannot
 * start (arc->a is NULL) or when it cannot read the start of the stream
 * (arc->a is set: archive_error_string() says why).  Either way
 * ofl_errmsg() has the message and ofl_arc_close() must follow.
 */
int	ofl_arc_open(struct ofl_arc *, const struct ofl_src *, int);
void	ofl_arc_close(struct ofl_arc *);

/*
 * fmt-archive.c: open the archive in src and read up to the data of its
 * member (any name, for a compressed stream); 0, or -1 with the error
 * set ("ofl:ID: no member ...") and x closed.
 */
int	ofl_fmt_archive_member(struct ofl_arc *, const struct ofl_src *,
	    const char *, const char *);

#ifndef OFL_ARC_REAL
#define archive_read_support_format_tar \
	(ofl_arc_api.archive_read_support_format_tar)
#define archive_read_support_format_zip \
	(ofl_arc_api.archive_read_support_format_zip)
#define archive_read_support_format_7zip \
	(ofl_arc_api.archive_read_support_format_7zip)
#define archive_read_support_format_cpio \
	(ofl_arc_api.archive_read_support_format_cpio)
#define archive_read_support_format_ar \
	(ofl_arc_api.archive_read_support_format_ar)
#define archive_read_support_format_iso9660 \
	(ofl_arc_api.archive_read_support_format_iso9660)
#define archive_entry_filetype \
	(ofl_arc_api.archive_entry_filetype)
#define archive_entry_is_encrypted \
	(ofl_arc_api.archive_entry_is_encrypted)
#define archive_entry_pathname \
	(ofl_arc_api.archive_entry_pathname)
#define archive_entry_pathname_utf8 \
	(ofl_arc_api.archive_entry_pathname_utf8)
#define archive_entry_size \
	(ofl_arc_api.archive_entry_size)
#define archive_entry_size_is_set \
	(ofl_arc_api.archive_entry_size_is_set)
#define archive_error_string \
	(ofl_arc_api.archive_error_string)
#define archive_filter_bytes \
	(ofl_arc_api.archive_filter_bytes)
#define archive_filter_code \
	(ofl_arc_api.archive_filter_code)
#define archive_filter_count \
	(ofl_arc_api.archive_filter_count)
#define archive_filter_name \
	(ofl_arc_api.archive_filter_name)
#define archive_format \
	(ofl_arc_api.archive_format)
#define archive_format_name \
	(ofl_arc_api.archive_format_name)
#define archive_read_data \
	(ofl_arc_api.archive_read_data)
#define archive_read_data_block \
	(ofl_arc_api.archive_read_data_block)
#define archive_read_free \
	(ofl_arc_api.archive_read_free)
#define archive_read_new \
	(ofl_arc_api.archive_read_new)
#define archive_read_next_header \
	(ofl_arc_api.archive_read_next_header)
#define archive_read_open1 \
	(ofl_arc_api.archive_read_open1)
#define archive_read_open_memory \
	(ofl_arc_api.archive_read_open_memory)
#define archive_read_set_callback_data \
	(ofl_arc_api.archive_read_set_callback_data)
#define archive_read_set_read_callback \
	(ofl_arc_api.archive_read_set_read_callback)
#define archive_read_set_seek_callback \
	(ofl_arc_api.archive_read_set_seek_callback)
#define archive_read_set_skip_callback \
	(ofl_arc_api.archive_read_set_skip_callback)
#define archive_read_support_filter_all \
	(ofl_arc_api.archive_read_support_filter_all)
#define archive_read_support_filter_bzip2 \
	(ofl_arc_api.archive_read_support_filter_bzip2)
#define archive_read_support_filter_compress \
	(ofl_arc_api.archive_read_support_filter_compress)
#define archive_read_support_filter_gzip \
	(ofl_arc_api.archive_read_support_filter_gzip)
#define archive_read_support_filter_lz4 \
	(ofl_arc_api.archive_read_support_filter_lz4)
#define archive_read_support_filter_lzip \
	(ofl_arc_api.archive_read_support_filter_lzip)
#define archive_read_support_filter_lzma \
	(ofl_arc_api.archive_read_support_filter_lzma)
#define archive_read_support_filter_xz \
	(ofl_arc_api.archive_read_support_filter_xz)
#define archive_read_support_filter_zstd \
	(ofl_arc_api.archive_read_support_filter_zstd)
#define archive_read_support_format_all \
	(ofl_arc_api.archive_read_support_format_all)
#define archive_read_support_format_raw \
	(ofl_arc_api.archive_read_support_format_raw)
#define archive_set_error \
	(ofl_arc_api.archive_set_error)
#endif /* OFL_ARC_REAL */

/* Why a read failed: libarchive's message, which may be none. */
static inline const char *
ofl_arc_why(struct archive *a)
{
	const char	*e = archive_error_string(a);

	return e != NULL ? e : "truncated or damaged";
}

#endif /* OFL_ARC_H */
