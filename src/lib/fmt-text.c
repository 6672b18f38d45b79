/*
 * fmt-text.c: plain text, and the text of a log: chunks are windows of
 * OFL_CHUNK_TEXT_TARGET bytes or TEXT_LINES lines, cut where the log's rules
 * (ofl_fmt_log_class(), fmt-log.c) allow, so that no stack trace,
 * traceback or panic is split and each titles its chunk.  Text is what
 * detection falls back to (kind.c); it has no summary of its own.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <string.h>

#include "ofl.h"
#include "chunk.h"
#include "banned.h"

#define TEXT_LINES	40		/* a window's lines at most */
#define SOFT_MAX	(16 * 1024)	/* split a block only at a sub-block */
#define RECORD_MIN	4		/* lines of a window a record closes */

/*
 * Logs and plain text: windows of OFL_CHUNK_TEXT_TARGET bytes or TEXT_LINES lines
 * that do not end inside a stack trace, a traceback or a panic.  The
 * log's rules (ofl_fmt_log_class(), fmt-log.c) say how much each line
 * holds on to the line before: OFL_BRK_FREE lines may start a window,
 * OFL_BRK_PARA and OFL_BRK_BLOCK lines start one early (a block always
 * when the window holds one already, so that each crash gets a chunk
 * and a title of its own), an OFL_BRK_RECORD line starts one when the
 * window holds RECORD_MIN lines (a record's head and its body stay in
 * one chunk: a commit's message with its author and date), an
 * OFL_BRK_SOFT line splits only past
 * SOFT_MAX and an OFL_BRK_HARD line only past OFL_CHUNK_HARD_MAX.  The first frame
 * of a Java-like trace splits before the line above it, the exception's
 * own line.
 */

int
ofl_fmt_text_chunk(struct ofl_chunker *ck, struct ofl_chunk_in *s, uint64_t off, uint64_t lineno,
    int midline)
{
	struct ofl_chunk_lines	 it;
	struct ofl_chunk_line	 l;
	struct ofl_chunk_win	 w;
	struct ofl_logst ls;
	struct ofl_buf	 title;
	size_t		 raw;
	int		 r, cls, split, rv = 0;

	ofl_chunk_lines_init(&it, s, off, lineno, midline);
	ofl_chunk_win_init(&w);
	ofl_buf_init(&title);
	memset(&ls, 0, sizeof ls);
	ls.prevblank = 1;
	while ((r = ofl_chunk_lines_next(&it, &l)) == 1) {
		cls = l.first ? ofl_fmt_log_class(&ls, l.p, l.len) :
		    OFL_BRK_HARD;
		raw = ofl_chunk_win_raw(&w);
		switch (cls) {
		case OFL_BRK_FREE:
			split = raw + l.len > OFL_CHUNK_TEXT_TARGET ||
			    w.nlines >= TEXT_LINES;
			break;
		case OFL_BRK_BLOCK:
		case OFL_BRK_PARA:
			split = raw >= OFL_CHUNK_TEXT_TARGET / 2 ||
			    raw + l.len > OFL_CHUNK_TEXT_TARGET ||
			    w.nlines >= TEXT_LINES / 2 ||
			    (cls == OFL_BRK_BLOCK && title.len > 0);
			break;
		case OFL_BRK_RECORD:
			split = w.nlines >= RECORD_MIN ||
			    raw + l.len > OFL_CHUNK_TEXT_TARGET;
			break;
		case OFL_BRK_SOFT:
			split = raw >= SOFT_MAX;
			break;
		default:
			split = raw + l.len > OFL_CHUNK_HARD_MAX;
			break;
		}
		if (ls.hl == 2 && w.nlines > 1 && (title.len > 0 ||
		    w.last >= OFL_CHUNK_TEXT_TARGET / 2)) {
			/* Split before the exception line above the frame. */
			if (ofl_chunk_win_emit_last(ck, &w, title.data,
			    title.len)) {
				rv = 1;
				goto out;
			}
			title.len = 0;
		} else if (w.nlines > 0 && split) {
			if (ofl_chunk_win_emit(ck, &w, title.data, title.len)) {
				rv = 1;
				goto out;
			}
			title.len = 0;
		}
		if (ls.hl == 2 && w.nlines > 0 && title.len == 0)
			ofl_fmt_log_headline(&title, w.text.data + w.last,
			    w.text.len - w.last, 0);
		ofl_chunk_win_add(&w, &l);
		if (ls.hl == 1 && title.len == 0)
			ofl_fmt_log_headline(&title, l.p, l.len, ls.hloff);
	}
	if (r < 0)
		rv = -1;
	else if (ofl_chunk_win_emit(ck, &w, title.data, title.len))
		rv = 1;
out:
	ofl_buf_free(&title);
	ofl_chunk_win_free(&w);
	ofl_chunk_lines_free(&it);
	return rv;
}
