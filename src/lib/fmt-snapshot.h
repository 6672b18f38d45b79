/*
 * fmt-snapshot.h: what fmt-snapshot.c (detection, chunks, the map, the
 * queries) shares with fmt-snapshot-diff.c (the comparison): the walk
 * over a snapshot's lines with the ancestors of each.  Not part of the
 * library's interface: only these files include it.
 */
#ifndef OFL_FMT_SNAPSHOT_H
#define OFL_FMT_SNAPSHOT_H

#define WALK_DEPTH	64		/* ancestors kept */
#define ROLE_MAX	32
#define NAME_MAX_	96
#define REF_MAX		24

/* An element of the tree, copied out of its line. */
struct snode {
	size_t		 depth;
	char		 role[ROLE_MAX];
	char		 name[NAME_MAX_];
	char		 ref[REF_MAX];
	int		 level;
	uint64_t	 lineno;
};

/* A walk over the lines of a snapshot, with the ancestors of each. */
struct walk {
	struct ofl_chunk_in	 in;
	struct ofl_chunk_lines	 it;
	struct ofl_chunk_line	 l;	/* the current line */
	struct ofl_fmt_snapshot_el e;	/* its parse */
	int			 elem;	/* it is an element */
	int			 push;	/* push it before the next line */
	struct snode		 st[WALK_DEPTH];
	size_t			 nst;
	size_t			 over;	/* ancestors past WALK_DEPTH */
	char			 url[256];
	char			 title[256];
	struct snode		 head;	/* the last heading */
	int			 hashead;
	int			 headopen;	/* its name may be a child's */
	int			 headnew;	/* it is complete: take it */
	int			 wrap;		/* "### Page": a wrapper */
	int			 tree;		/* inside its "```yaml" */
};

/* An ofl_chunk_in read function over a struct ofl_src. */
ssize_t	 ofl_fmt_snapshot_read(void *, void *, size_t);
void	 ofl_fmt_snapshot_walk_init(struct walk *, struct ofl_chunk_in *);
/* 1: a line (w->elem: an element; w->st: its ancestors), 0, -1. */
int	 ofl_fmt_snapshot_walk_next(struct walk *);
void	 ofl_fmt_snapshot_walk_free(struct walk *);
/* The path of the current line; with the heading before it if 1. */
void	 ofl_fmt_snapshot_path(const struct walk *, struct ofl_buf *, int);
/* A line's words: no indent, no ref, no cursor. */
void	 ofl_fmt_snapshot_clean(struct ofl_buf *, const char *, size_t,
	    const struct ofl_fmt_snapshot_el *, int);

#endif /* OFL_FMT_SNAPSHOT_H */
