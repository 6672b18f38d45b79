/*
 * store-int.h: what the files of the store share and nothing above the
 * store sees: the store's and a reader's structs, a frame of the frame
 * table, and the few helpers that run SQL for them.  The store is
 * store.c (open, schema, settings, size, locks, blob numbers),
 * store-write.c (the writer), store-read.c (metadata and the reader)
 * and store-gc.c (what expiry and checking need); they alone include
 * sqlite3.h.
 */
#ifndef OFL_STORE_INT_H
#define OFL_STORE_INT_H

#include <sqlite3.h>
#include <zstd.h>

#define FRAME_MAX	(1024 * 1024)	/* raw bytes per frame */
#define BUSY_MS		30000
#define WAL_PAGES	128		/* checkpoint the WAL at this size */

struct ofl_store {
	char		*path;
	char		*dbpath;
	char		*blobdir;
	sqlite3		*db;
	int		 rdwr;
	int		 level;		/* zstd level */
	int		 fast;		/* level when behind, or level */
	int		 writers;	/* writers open on db */
};

/* A row of the frame table: one zstd frame of a blob file. */
struct frame {
	uint64_t	raw_off;
	uint64_t	raw_len;
	uint64_t	line_off;	/* newlines before this frame */
	uint64_t	nl;		/* newlines in this frame */
	uint64_t	comp_off;
	uint64_t	comp_len;
};

struct ofl_reader {
	struct ofl_store	*st;
	struct ofl_meta		 meta;
	int			 fd;
	struct frame		*frames;
	size_t			 nframes;
	uint64_t		 bytes;
	uint64_t		 newlines;
	ZSTD_DCtx		*dctx;
	unsigned char		*fbuf;		/* decompressed frame */
	size_t			 fcap;
	ssize_t			 cur;		/* frame in fbuf, -1: none */
	unsigned char		*cbuf;
	size_t			 ccap;
	uint64_t		 pos;
};

/* store.c */
int	 store_fail(struct ofl_store *, const char *);
int	 store_exec(struct ofl_store *, const char *);
int	 store_prepare(struct ofl_store *, const char *, sqlite3_stmt **);
/* Column i of the current row as a string to free, or NULL. */
char	*store_col_strdup(sqlite3_stmt *, int);
/* The path of blob file name ("ab/abcd2345"), to free. */
char	*store_blob_path(struct ofl_store *, const char *);
/*
 * A new blob row for file name, created now, inside the caller's
 * transaction; its number (never one used before), or -1.
 */
int64_t	 store_blob_new(struct ofl_store *, const char *, int64_t);

/* store-write.c */
/* Salvage the artifacts whose writer died (on a read-write open). */
void	 writer_recover(struct ofl_store *);

/* store-read.c */
/*
 * 1 if artifacts a and b hold the same bytes.  With mem, a's bytes are
 * those (its whole content, as small content is kept in memory).
 */
int	 reader_same(struct ofl_store *, const char *, const unsigned char *,
	    size_t, const char *);

#endif
