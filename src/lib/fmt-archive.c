/*
 * fmt-archive.c: archives (tar, zip, 7z, cpio, ar, ISO 9660) and single
 * compressed streams.  Their detection by magic number, the notice's
 * summary of their members, and how ofl-extract --member finds one
 * member; the chunking of members stays with the chunk dispatcher, which
 * chunks each member by its own kind.  All reading goes through
 * libarchive over a struct ofl_src (arc.c), never through the store.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "ofl.h"
#include "banned.h"

#define MEMBERS_SHOWN	10
#define MEMBERS_COUNTED	10000
#define MEMBERS_BYTES	((int64_t)64 * 1024 * 1024)

static enum ofl_kind	 compressed_kind(const unsigned char *, size_t);

/*
 * Containers and compressed streams by their magic numbers; a compressed
 * stream is an archive when what it decompresses to is one.
 */
int
ofl_fmt_archive_magic(const unsigned char *p, size_t n, enum ofl_kind *kind)
{
	*kind = OFL_KIND_ARCHIVE;
	if (n >= 262 && memcmp(p + 257, "ustar", 5) == 0)
		return 1;
	if (n >= 4 && (memcmp(p, "PK\003\004", 4) == 0 ||
	    memcmp(p, "PK\005\006", 4) == 0 ||
	    memcmp(p, "PK\007\010", 4) == 0))
		return 1;
	if (n >= 6 && memcmp(p, "7z\274\257\047\034", 6) == 0)
		return 1;
	if (n >= 8 && memcmp(p, "!<arch>\n", 8) == 0)
		return 1;
	if (n >= 6 && (memcmp(p, "070701", 6) == 0 ||
	    memcmp(p, "070702", 6) == 0 || memcmp(p, "070707", 6) == 0))
		return 1;
	if (n >= 26 && ((p[0] == 0xc7 && p[1] == 0x71) ||
	    (p[0] == 0x71 && p[1] == 0xc7)))
		return 1;
	if (n >= 6 && memcmp(p, "Rar!\032\007", 6) == 0)
		return 1;
	if (n >= 4 && memcmp(p, "xar!", 4) == 0)
		return 1;
	if (n >= 4 && memcmp(p, "MSCF", 4) == 0)
		return 1;
	if (n >= 32774 && memcmp(p + 32769, "CD001", 5) == 0)
		return 1;

	if ((n >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 0x08) ||
	    (n >= 6 && memcmp(p, "\3757zXZ\0", 6) == 0) ||
	    (n >= 4 && memcmp(p, "\050\265\057\375", 4) == 0) ||
	    (n >= 4 && memcmp(p, "BZh", 3) == 0 && p[3] >= '1' &&
	    p[3] <= '9') ||
	    (n >= 4 && memcmp(p, "\004\042\115\030", 4) == 0) ||
	    (n >= 4 && memcmp(p, "LZIP", 4) == 0) ||
	    (n >= 3 && p[0] == 0x1f && p[1] == 0x9d)) {
		*kind = compressed_kind(p, n);
		return 1;
	}

	*kind = OFL_KIND_BINARY;
	if (n >= 5 && memcmp(p, "%PDF-", 5) == 0)
		return 1;
	return 0;
}

/*
 * Decompress the start of a stream with libarchive and see whether an
 * archive format recognises it.  Only the filters for the magic numbers
 * above are enabled, none that would run an external program.  The
 * filters decompress 64 KiB at a time, so a head that is cut short must
 * expand to that much: true of tarballs of text, not of a tar.bz2 (whose
 * blocks are larger) or of data that does not compress; those stay
 * "compressed".
 */
static enum ofl_kind
compressed_kind(const unsigned char *p, size_t n)
{
	struct archive		*a;
	struct archive_entry	*ae;
	enum ofl_kind		 kind = OFL_KIND_COMPRESSED;
	int			 r, fmt;

	/* Without libarchive a compressed stream stays "compressed". */
	if (ofl_arc_load() == -1) {
		ofl_clearerr();
		return kind;
	}
	if ((a = archive_read_new()) == NULL)
		return kind;
	ofl_arc_filters(a);
	ofl_arc_formats(a);
	if (archive_read_open_memory(a, p, n) == ARCHIVE_OK) {
		r = archive_read_next_header(a, &ae);
		if (r == ARCHIVE_OK || r == ARCHIVE_WARN) {
			fmt = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
			if (fmt != ARCHIVE_FORMAT_RAW &&
			    fmt != ARCHIVE_FORMAT_EMPTY &&
			    fmt != ARCHIVE_FORMAT_MTREE)
				kind = OFL_KIND_ARCHIVE;
		}
	}
	archive_read_free(a);
	return kind;
}

/* One member of the list: its path, its size, in text and JSON. */
static void
list_member(struct ofl_summary *s, struct ofl_buf *list, struct ofl_buf *js,
    struct archive_entry *ae, const char *path, uint64_t count)
{
	size_t	used, len = strlen(path);
	int	dir = archive_entry_filetype(ae) == AE_IFDIR;

	ofl_buf_adds(list, "  ");
	used = ofl_render_oneline(list, (const unsigned char *)path, len, 70);
	if (used < len)
		ofl_buf_adds(list, "...");
	if (dir && (len == 0 || path[len - 1] != '/'))
		ofl_buf_addc(list, '/');
	if (!dir && archive_entry_size_is_set(ae)) {
		ofl_buf_adds(list, "  ");
		ofl_buf_add_size(list, (uint64_t)archive_entry_size(ae));
	}
	ofl_buf_addc(list, '\n');
	ofl_buf_adds(js, count > 1 ? "," : "[");
	ofl_buf_adds(js, "{\"path\":");
	ofl_buf_add_json_str(js, path, strlen(path));
	if (!dir && archive_entry_size_is_set(ae))
		ofl_buf_addf(js, ",\"size\":%lld",
		    (long long)archive_entry_size(ae));
	ofl_buf_addf(js, ",\"type\":\"%s\"}", dir ? "dir" :
	    archive_entry_filetype(ae) == AE_IFREG ? "file" : "other");
	if (s->member == NULL && !dir &&
	    archive_entry_filetype(ae) == AE_IFREG)
		s->member = ofl_xstrdup(path);
}

/*
 * Archives: the first members with their sizes, and how many more; a
 * compressed stream: its filter and decompressed size.  Nothing is
 * written anywhere; at most 64 MiB are decompressed.
 */
int
ofl_fmt_archive_summary(const struct ofl_src *src, const struct ofl_meta *m,
    struct ofl_summary *s)
{
	struct ofl_arc		 x;
	struct archive		*a;
	struct archive_entry	*ae;
	struct ofl_buf		 list, js, start;
	const char		*path, *err = NULL;
	const void		*blk;
	size_t			 bsz, used;
	la_int64_t		 boff;
	uint64_t		 count = 0;
	int			 r, capped = 0, raw = 0, fmt, opened;

	(void)m;
	if (ofl_src_seek(src, 0) == -1)
		return -1;
	opened = ofl_arc_open(&x, src, OFL_ARC_SEEK);
	if (x.a == NULL) {
		/* No libarchive: an error for the caller to report. */
		ofl_arc_close(&x);
		return -1;
	}
	a = x.a;
	ofl_buf_init(&list);
	ofl_buf_init(&js);
	ofl_buf_init(&start);
	if (opened == -1) {
		/* Not readable as an archive: the summary says so. */
		ofl_clearerr();
		err = archive_error_string(a);
		goto done;
	}
	while (count < MEMBERS_COUNTED) {
		r = archive_read_next_header(a, &ae);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			err = archive_error_string(a);
			break;
		}
		fmt = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
		raw = fmt == ARCHIVE_FORMAT_RAW;
		count++;
		path = archive_entry_pathname_utf8(ae);
		if (path == NULL)
			path = archive_entry_pathname(ae);
		if (path == NULL)
			path = "?";
		if (count <= MEMBERS_SHOWN && !raw)
			list_member(s, &list, &js, ae, path, count);
		/*
		 * Read through data only when it must be decompressed, and
		 * only so far; a seekable archive skips it for free.
		 */
		if (raw || archive_filter_count(a) > 1) {
			while ((r = archive_read_data_block(a, &blk, &bsz,
			    &boff)) == ARCHIVE_OK) {
				if (raw && start.len < 160)
					ofl_buf_add(&start, blk, bsz < 160 ?
					    bsz : 160);
				if (archive_filter_bytes(a, 0) >
				    MEMBERS_BYTES) {
					capped = 1;
					break;
				}
			}
			if (capped)
				break;
			if (r != ARCHIVE_EOF) {
				err = archive_error_string(a);
				break;
			}
		}
		if (raw)
			break;
	}
done:
	if (raw) {
		ofl_buf_addf(&s->text, "stream: %s, ", archive_filter_name(a,
		    0));
		if (capped)
			ofl_buf_adds(&s->text, "more than ");
		ofl_buf_add_size(&s->text, (uint64_t)archive_filter_bytes(a, 0));
		ofl_buf_adds(&s->text, " decompressed");
		if (start.len > 0) {
			ofl_buf_adds(&s->text, ", starts: ");
			used = ofl_render_oneline(&s->text,
			    (unsigned char *)start.data,
			    start.len, 120);
			if (used < start.len)
				ofl_buf_adds(&s->text, "...");
		}
		ofl_buf_addc(&s->text, '\n');
		ofl_summary_key(s, "filter");
		ofl_buf_add_json_cstr(&s->json, archive_filter_name(a, 0));
		ofl_summary_key(s, "decompressed");
		ofl_buf_addf(&s->json, "%lld", (long long)
		    archive_filter_bytes(a, 0));
		ofl_summary_key(s, "decompressed_partial");
		ofl_buf_adds(&s->json, capped ? "true" : "false");
	} else if (count > 0) {
		ofl_buf_adds(&s->text, "members: ");
		if (count > MEMBERS_SHOWN) {
			ofl_buf_addf(&s->text, "%d of %s", MEMBERS_SHOWN,
			    capped || err != NULL ||
			    count >= MEMBERS_COUNTED ? "at least " : "");
			ofl_buf_add_count(&s->text, count);
		} else
			ofl_buf_add_count(&s->text, count);
		ofl_buf_addf(&s->text, " (%s", archive_format_name(a));
		if (archive_filter_count(a) > 1)
			ofl_buf_addf(&s->text, ", %s", archive_filter_name(a,
			    0));
		ofl_buf_adds(&s->text, ")\n");
		ofl_buf_add(&s->text, list.data, list.len);
		ofl_buf_addc(&js, ']');
		ofl_summary_key(s, "members");
		ofl_buf_add(&s->json, js.data, js.len);
		ofl_summary_key(s, "members_total");
		ofl_buf_addf(&s->json, "%llu", (unsigned long long)count);
		ofl_summary_key(s, "members_partial");
		ofl_buf_adds(&s->json, capped || err != NULL ||
		    count >= MEMBERS_COUNTED ? "true" : "false");
	}
	if (err != NULL) {
		ofl_buf_adds(&s->text, "archive: ");
		(void)ofl_render_oneline(&s->text, (const unsigned char *)err,
		    strlen(err), 120);
		ofl_buf_addc(&s->text, '\n');
	}
	ofl_arc_close(&x);
	ofl_buf_free(&list);
	ofl_buf_free(&js);
	ofl_buf_free(&start);
	return 0;
}


/*
 * 1 if the member called name is the one asked for: the same name, or
 * the name as a hit line prints it, a tab or a newline in it a space.
 */
static int
member_is(const char *name, const char *asked)
{
	for (; *name != '\0' && (*name == *asked || (*asked == ' ' &&
	    (*name == '\t' || *name == '\n'))); name++, asked++)
		;
	return *name == '\0' && *asked == '\0';
}

/* "./a/b" and "a/b" name the same member. */
static const char *
member_name(const char *s)
{
	while (s[0] == '.' && s[1] == '/')
		s += 2;
	while (s[0] == '/')
		s++;
	return s;
}

static int
member_find(struct ofl_arc *x, const struct ofl_src *src, const char *id,
    const char *member, int raw, int *ended)
{
	struct archive		*a;
	struct archive_entry	*e;
	struct ofl_buf		 names;
	const char		*name;
	int			 rv, n = 0, headers = 0;

	if (ofl_src_seek(src, 0) == -1)
		return -1;
	if (ofl_arc_open(x, src, OFL_ARC_SEEK | OFL_ARC_FILTERS_ALL |
	    (raw ? OFL_ARC_RAW_ONLY : 0)) == -1) {
		if (x->a != NULL)
			ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: not an archive: %s",
			    id, ofl_arc_why(x->a));
		ofl_arc_close(x);
		return -1;
	}
	a = x->a;
	ofl_buf_init(&names);
	while ((rv = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		headers++;
		name = archive_entry_pathname(e);
		if (name == NULL)
			continue;
		/* A compressed stream has one member: any name is it. */
		if (archive_format(a) == ARCHIVE_FORMAT_RAW &&
		    archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE) {
			ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: not an archive or "
			    "a compressed stream", id);
			ofl_buf_free(&names);
			ofl_arc_close(x);
			return -1;
		}
		if (archive_format(a) == ARCHIVE_FORMAT_RAW ||
		    member_is(member_name(name), member_name(member))) {
			ofl_buf_free(&names);
			return 0;
		}
		if (archive_entry_filetype(e) == AE_IFDIR)
			continue;
		if (n < 10)
			ofl_buf_addf(&names, "%s%s", n > 0 ? ", " : "", name);
		else if (n == 10)
			ofl_buf_adds(&names, ", ...");
		n++;
	}
	if (rv == ARCHIVE_EOF && headers == 0 && !raw &&
	    archive_filter_code(a, 0) != ARCHIVE_FILTER_NONE)
		/*
		 * A compressed stream of NUL bytes reads as a tar archive
		 * of no entry: it is one member, read as a raw stream.
		 */
		ofl_seterr(OFL_EXIT_USAGE, "ofl:%s: no entry", id);
	else if (rv == ARCHIVE_EOF)
		ofl_seterr(OFL_EXIT_FAIL, "ofl:%s: no member %s (%s%s)", id,
		    member, n > 0 ? "members: " : "no members",
		    n > 0 ? ofl_buf_str(&names) : "");
	else if ((*ended = headers > 0))
		/*
		 * Members, then the archive's cut (or damage): said so; an
		 * archive, so ofl_fmt_archive_member() does not read it
		 * again as a raw stream.
		 */
		ofl_seterr(raw ? OFL_EXIT_FAIL : OFL_EXIT_USAGE, "ofl:%s: no "
		    "member %s before the archive ends (%s; %s%s)", id, member,
		    ofl_arc_why(a), n > 0 ? "members: " : "no members",
		    n > 0 ? ofl_buf_str(&names) : "");
	else
		/* A format error: worth trying as a raw stream. */
		ofl_seterr(raw ? OFL_EXIT_FAIL : OFL_EXIT_USAGE, "ofl:%s: %s",
		    id, ofl_arc_why(a));
	ofl_buf_free(&names);
	ofl_arc_close(x);
	return -1;
}

/*
 * Open the archive in src and read up to the member's data.  Text in a
 * compressed stream can look like an archive format (mtree): when
 * reading as one fails, the stream is read again as one raw member.
 */
int
ofl_fmt_archive_member(struct ofl_arc *x, const struct ofl_src *src,
    const char *id, const char *member)
{
	int	ended = 0;

	if (member_find(x, src, id, member, 0, &ended) == 0)
		return 0;
	if (ofl_errcode() != OFL_EXIT_USAGE)
		return -1;
	/*
	 * Unless members were read before the archive ended: an archive,
	 * cut, not text misread as one; as a raw stream it would be the
	 * whole archive's bytes under any name.
	 */
	if (!ended && member_find(x, src, id, member, 1, &ended) == 0)
		return 0;
	if (ofl_errcode() == OFL_EXIT_USAGE)
		ofl_seterr(OFL_EXIT_FAIL, "%s", ofl_errmsg());
	return -1;
}
