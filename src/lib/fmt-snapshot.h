/*
 * fmt-snapshot.h: what fmt-snapshot.c (detection, chunks, the map, the
 * queries) shares with fmt-snapshot-diff.c (the comparison) and
 * fmt-snapshot-hit.c (the lines beside a hit's): the walk over a
 * snapshot's lines with the ancestors of each, and what an element is.
 * Not part of the library's interface: only these files include it.
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
/* 1 if an element line has a ref: what an agent acts on. */
int	 ofl_fmt_snapshot_acts(const struct ofl_fmt_snapshot_el *);
/* A line's words: no indent, no ref, no cursor. */
void	 ofl_fmt_snapshot_clean(struct ofl_buf *, const char *, size_t,
	    const struct ofl_fmt_snapshot_el *, int);

/*
 * fmt-map.c: a page's map, fed the elements of a snapshot or of an HTML
 * page.  An element's mark says where it is: "ref=e16", "line 40".
 */
struct ofl_fmt_map;
struct ofl_fmt_map_el {
	const char	*role;
	const char	*name;		/* "" if none */
	const char	*mark;		/* "" if none */
};
struct ofl_fmt_map *ofl_fmt_map_new(void);
void	 ofl_fmt_map_free(struct ofl_fmt_map *);
void	 ofl_fmt_map_role(struct ofl_fmt_map *, const char *);
void	 ofl_fmt_map_heading(struct ofl_fmt_map *, int, const char *);
/* A field or button of the form known by key (form NULL: none). */
void	 ofl_fmt_map_field(struct ofl_fmt_map *,
	    const struct ofl_fmt_map_el *, const struct ofl_fmt_map_el *,
	    uint64_t);
void	 ofl_fmt_map_landmark(struct ofl_fmt_map *,
	    const struct ofl_fmt_map_el *);
/* The role worth querying next. */
const char *ofl_fmt_map_suggest(const struct ofl_fmt_map *);
/* The map's lines into sum's text, its members into sum's JSON. */
void	 ofl_fmt_map_text(struct ofl_fmt_map *, const char *, const char *,
	    struct ofl_summary *);
int	 ofl_fmt_map_is_field(const char *);
/* role "name", the name cut to max bytes. */
void	 ofl_fmt_map_label(struct ofl_buf *, const char *, const char *,
	    size_t);

#endif /* OFL_FMT_SNAPSHOT_H */
