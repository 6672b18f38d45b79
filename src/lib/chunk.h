/*
 * chunk.h: what the text and diff chunkers share with chunk.c; the
 * plumbing itself is chunk-io.c's, declared in ofl.h.
 */

#ifndef OFL_CHUNK_H
#define OFL_CHUNK_H

#define HAS(p, n, s)	((n) >= sizeof(s) - 1 &&			\
			    memcmp((p), (s), sizeof(s) - 1) == 0)

int	 ofl_fmt_text_chunk(struct ofl_chunker *, struct ofl_chunk_in *,
	    uint64_t, uint64_t, int);
int	 ofl_fmt_text_chunk_outline(struct ofl_chunker *,
	    struct ofl_chunk_in *);
int	 ofl_fmt_diff_chunk(struct ofl_chunker *, struct ofl_chunk_in *);

#endif /* OFL_CHUNK_H */
