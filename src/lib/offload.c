/*
 * offload.c: the offload rule, written once for ofl-capture and ofl-mcp.
 * Output of at most the threshold (in estimated tokens) passes through
 * whole; anything larger is stored and a notice takes its place.  With
 * several outputs made together (ofl-capture -e, MCP calls in flight at
 * once) the largest are offloaded until the rest fits a combined budget.
 * When storing fails, a large output is never shown raw: a safe preview
 * of its head and tail stands in for it.
 */
#include "config.h"

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

uint64_t
ofl_offload_max_bytes(uint64_t threshold)
{
	return threshold * 4;
}

int
ofl_offload_over(uint64_t threshold, uint64_t bytes)
{
	return ofl_tokens(bytes) > threshold;
}

int
ofl_offload_why(uint64_t threshold, uint64_t max_binary, uint64_t bytes,
    uint64_t binary)
{
	if (ofl_offload_over(threshold, bytes))
		return OFL_OFFLOAD_SIZE;
	if (binary > max_binary)
		return OFL_OFFLOAD_BINARY;
	return OFL_OFFLOAD_NONE;
}

ssize_t
ofl_offload_next(const struct ofl_offload_item *it, size_t n, uint64_t base,
    uint64_t combined)
{
	uint64_t	kept = base;
	size_t		i;
	ssize_t		big = -1;

	for (i = 0; i < n; i++) {
		kept += it[i].tokens;
		if (it[i].movable && (big == -1 || it[i].size > it[big].size))
			big = (ssize_t)i;
	}
	if (kept <= combined)
		return -1;
	return big;
}

void
ofl_offload_preview(struct ofl_buf *out, const void *head, size_t hn,
    size_t hmax, const void *tail, size_t tn, size_t tmax)
{
	ofl_buf_adds(out, "--- head (not stored) ---\n");
	ofl_render_safe(out, head, hn, hmax);
	ofl_buf_adds(out, "\n--- tail (not stored) ---\n");
	if (tn > 0)
		ofl_render_safe(out, tail, tn, tmax);
	ofl_buf_adds(out, "\n--- end of preview ---\n");
}
