/*
 * schema-int.h: what schema.c (the tree built from the content) and
 * schema-out.c (its three writers) share.  Not part of the library's
 * interface.
 */
#ifndef OFL_SCHEMA_INT_H
#define OFL_SCHEMA_INT_H

/* Value types, in the order the shape shows them. */
enum {
	T_OBJ, T_ARR, T_STR, T_INT, T_REAL, T_BOOL, T_NULL, T_COUNT
};

/* String formats. */
enum {
	F_DATETIME = 1 << 0,
	F_DATE = 1 << 1,
	F_TIME = 1 << 2,
	F_UUID = 1 << 3,
	F_EMAIL = 1 << 4,
	F_URI = 1 << 5,
	F_IPV4 = 1 << 6,
	F_IPV6 = 1 << 7,
	F_ALL = (1 << 8) - 1
};

/* CSV column types (a column keeps the ones every value matched). */
enum {
	C_INT = 1 << 0,
	C_NUM = 1 << 1,
	C_BOOL = 1 << 2,
	C_DATE = 1 << 3,
	C_DATETIME = 1 << 4,
	C_TIME = 1 << 5,
	C_ALL = (1 << 6) - 1
};

#define ENUM_MAX	8	/* distinct strings kept per position */
#define ENUM_LEN	40	/* longest string kept */
#define SECRET_MASK	"[redacted: secret]"
#define EXAMPLES	3	/* CSV examples per column */
#define EXAMPLE_WHOLE	64	/* longest example shown whole */
#define MAX_COLS	1000
#define FIELD_MAX	1024	/* CSV field bytes kept for typing */
#define MAP_KEYS	24	/* shape: more keys than this may be a map */
#define ENUM_SHOW	6	/* shape: most values of an enum shown */
#define ENUM_SHOW_BYTES	80	/* and their total length */

/* A few distinct short strings in first-seen order. */
struct strset {
	size_t		 n;
	int		 over;		/* more, or longer, were seen */
	uint64_t	 count[ENUM_MAX];
	unsigned char	 len[ENUM_MAX];
	unsigned short	 off[ENUM_MAX];
	char		*data;		/* the strings, one after another */
};
#define SS_STR(e, i)	((e)->data + (e)->off[i])

struct snode {
	struct snode	*parent;
	struct snode	*props;		/* properties in first-seen order */
	struct snode	*lastprop;
	struct snode	*next;
	struct snode	*items;
	struct snode	*hnext;		/* hash chain */
	char		*key;
	size_t		 keylen;
	uint32_t	 hash;
	size_t		 nprops;
	uint64_t	 present;	/* parent objects holding this key */
	uint64_t	 lastobj;
	uint64_t	 n[T_COUNT];
	uint64_t	 ntrue;
	int		 arrfirst;	/* arrays were seen before objects */
	int		 cut;		/* children beyond the depth limit */
	double		 min;
	double		 max;
	uint64_t	 lmin;		/* array lengths */
	uint64_t	 lmax;
	unsigned int	 fmt;
	struct strset	*en;
	int		 secret;	/* 0 not known, 1 no, 2 a secret's key */
};

struct sframe {
	struct snode	*node;		/* NULL: not recorded */
	int		 obj;
	uint64_t	 serial;	/* which object of node this is */
	uint64_t	 len;		/* array elements so far */
};

struct column {
	char		*name;
	size_t		 namelen;
	uint64_t	 count;		/* non-empty, non-null values */
	uint64_t	 empty;
	uint64_t	 nulls;
	unsigned int	 types;		/* C_* every value matched */
	double		 min;
	double		 max;
	size_t		 maxlen;
	struct strset	 en;
	size_t		 nex;
	char		*ex[EXAMPLES];
	unsigned int	 excut;		/* bit i: ex[i] kept in part */
	int		 secret;	/* the name says its values are secrets */
};

struct ofl_schema {
	int		 kind;
	uint64_t	 values;
	int		 failed;
	int		 redact;	/* mask the values of secrets' keys */

	/* JSON */
	struct ofl_json	*parser;
	struct snode	*root;
	struct sframe	 stack[OFL_SCHEMA_MAX_DEPTH + 1];
	struct snode	**htab;
	size_t		 hsize;
	size_t		 nnodes;
	size_t		 open;		/* containers open */
	uint64_t	 cutdepth;	/* values left out: too deep */
	uint64_t	 cutkeys;	/* values left out: too many paths */

	/* CSV, TSV */
	int		 sep;
	int		 cst;
	struct ofl_buf	 field;
	size_t		 fieldlen;	/* whole length, kept or not */
	size_t		 col;
	int		 header;	/* the header row is done */
	int		 rowempty;
	struct column	*cols;
	size_t		 ncols;
	uint64_t	 ragged;
	uint64_t	 extracols;	/* fields past MAX_COLS columns */
	uint64_t	 extrafields;	/* fields past the header's */
	size_t		 hdrfields;	/* the header's, MAX_COLS or not */
	int		 bomdone;	/* past a byte order mark, or none */
	size_t		 bomheld;	/* its bytes held so far */

	/* Tables (fmt-table.c): read as CSV once the layout is known. */
	struct ofl_fmt_table tab;
	int		 tlayout;	/* tab is found */
	int		 tdone;		/* past the table's end */
	int		 tcut;		/* in the cut part of a long line */
	uint64_t	 tlineno;
	struct ofl_buf	 thead;		/* bytes before the layout */
	struct ofl_buf	 tline;		/* a partial line */

	struct ofl_buf	 warning;
};

void	ofl_schema_node_free(struct snode *);
void	ofl_schema_strset_add(struct strset *, const char *, size_t,
	    uint64_t);

#endif /* OFL_SCHEMA_INT_H */
