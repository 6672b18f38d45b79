/*
 * diff-myers.c: the shortest edit script between two sequences of line
 * hashes (Myers, "An O(ND) Difference Algorithm and Its Variations",
 * 1986), for the line diff of diff.c.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofl.h"
#include "banned.h"

/*
 * Myers' O(ND) search, the V of each step kept for the way back; ops
 * gets 'E', 'D' and 'I' from the start.  -1 past maxd differences.
 */
int
ofl_diff_myers(const uint64_t *a, size_t n, const uint64_t *b, size_t m, size_t maxd,
    char **opsp, size_t *nops)
{
	int32_t		**trace;
	int32_t		 *v, x, y;
	long		  k, dd, d, off = (long)maxd + 1;
	size_t		  len = n + m, i;
	char		 *ops;
	int		  found = 0;

	trace = ofl_xcalloc(maxd + 1, sizeof *trace);
	v = ofl_xcalloc(2 * maxd + 3, sizeof *v);
	for (d = 0; d <= (long)maxd && !found; d++) {
		for (k = -d; k <= d; k += 2) {
			if (k == -d || (k != d && v[off + k - 1] <
			    v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - (int32_t)k;
			while ((size_t)x < n && (size_t)y < m && a[x] == b[y]) {
				x++;
				y++;
			}
			v[off + k] = x;
			if ((size_t)x >= n && (size_t)y >= m) {
				found = 1;
				break;
			}
		}
		trace[d] = ofl_xmalloc((2 * d + 1) * sizeof **trace);
		memcpy(trace[d], v + off - d, (2 * d + 1) * sizeof **trace);
	}
	free(v);
	if (!found) {
		for (dd = 0; dd < d; dd++)
			free(trace[dd]);
		free(trace);
		return -1;
	}
	/* Back from the end. */
	ops = ofl_xmalloc(len + 1);
	i = len;
	x = (int32_t)n;
	y = (int32_t)m;
	for (dd = d - 1; dd >= 0; dd--) {
		int32_t	 px, py;
		long	 pk;

		k = x - y;
		if (dd == 0) {
			while (x > 0 && y > 0) {
				ops[--i] = 'E';
				x--;
				y--;
			}
			break;
		}
		if (k == -dd || (k != dd && trace[dd - 1][k - 1 + dd - 1] <
		    trace[dd - 1][k + 1 + dd - 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = trace[dd - 1][pk + dd - 1];
		py = px - (int32_t)pk;
		while (x > px && y > py) {
			ops[--i] = 'E';
			x--;
			y--;
		}
		if (x > px) {
			ops[--i] = 'D';
			x--;
		} else {
			ops[--i] = 'I';
			y--;
		}
	}
	for (dd = 0; dd < d; dd++)
		free(trace[dd]);
	free(trace);
	memmove(ops, ops + i, len - i);
	*nops = len - i;
	*opsp = ops;
	return 0;
}
