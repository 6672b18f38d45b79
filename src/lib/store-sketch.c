/*
 * store-sketch.c: the sketches of frames not yet indexed.
 *
 *	frame_sketch	one row per frame that has one: its blob, where it
 *			starts, and its sketch (sketch.c)
 *
 * A writer sketches the frames of a large artifact that start and end
 * at a line's end, past the first SKETCH_FROM (store-write.c), so that a
 * search that comes before the index reads only the frames that may
 * hold its terms.  Once the blob is indexed they are dropped, and they
 * go with their blob.  The table is made by the first writer that needs
 * it: a store made before it, and an older ofl on a store that has it,
 * work as before (an older gc leaves rows of removed blobs behind, which
 * the next sweep of orphans here removes: blob numbers are never used
 * twice).
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ofl.h"
#include "store-int.h"
#include "banned.h"

#define SKETCH_SQL	"CREATE TABLE IF NOT EXISTS frame_sketch ("	\
			" blob INTEGER NOT NULL,"			\
			" raw_off INTEGER NOT NULL,"			\
			" bits BLOB NOT NULL,"				\
			" PRIMARY KEY (blob, raw_off)) WITHOUT ROWID"

/*
 * Keep a frame's sketch, on the connection of *ins (prepared on first
 * use, on db).  A sketch is a help, not content: -1 only tells the
 * caller that none was kept.
 */
int
store_sketch_put(sqlite3 *db, sqlite3_stmt **ins, int64_t blob,
    uint64_t raw_off, const unsigned char *bits)
{
	int	rc;

	if (*ins != NULL && sqlite3_db_handle(*ins) != db) {
		sqlite3_finalize(*ins);
		*ins = NULL;
	}
	if (*ins == NULL && (sqlite3_exec(db, SKETCH_SQL, NULL, NULL,
	    NULL) != SQLITE_OK || sqlite3_prepare_v2(db, "INSERT OR REPLACE"
	    " INTO frame_sketch (blob, raw_off, bits) VALUES (?1, ?2, ?3)",
	    -1, ins, NULL) != SQLITE_OK))
		return -1;
	sqlite3_bind_int64(*ins, 1, blob);
	sqlite3_bind_int64(*ins, 2, (int64_t)raw_off);
	sqlite3_bind_blob(*ins, 3, bits, OFL_SKETCH_BYTES, SQLITE_STATIC);
	rc = sqlite3_step(*ins);
	sqlite3_reset(*ins);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Drop a blob's sketches (indexed, or removed); 0 when there are none. */
int
store_sketch_drop(sqlite3 *db, int64_t blob)
{
	sqlite3_stmt	*s;
	int		 rc;

	if (store_stmt(db, "DELETE FROM frame_sketch WHERE blob = ?1",
	    &s) == -1)
		return 0;	/* no table: no sketches */
	sqlite3_bind_int64(s, 1, blob);
	rc = sqlite3_step(s);
	store_stmt_done(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Drop the sketches of frames that are gone (a blob's, or a cut one's). */
int
store_sketch_sweep(sqlite3 *db)
{
	if (sqlite3_exec(db, "DELETE FROM frame_sketch WHERE NOT EXISTS"
	    " (SELECT 1 FROM frame f WHERE f.blob = frame_sketch.blob AND"
	    " f.raw_off = frame_sketch.raw_off)", NULL, NULL, NULL) !=
	    SQLITE_OK &&
	    sqlite3_errcode(db) != SQLITE_ERROR)
		return -1;
	return 0;
}

int
ofl_store_frame_sketches(struct ofl_store *st, int64_t blob, uint64_t from,
    int (*cb)(uint64_t, uint64_t, uint64_t, const unsigned char *, void *),
    void *arg)
{
	sqlite3_stmt		*s;
	const unsigned char	*bits;
	int			 rc, any = 0;

	if (st->pg != NULL)
		return 0;
	if (sqlite3_prepare_v2(st->db, "SELECT f.raw_off, f.raw_len,"
	    " f.line_off, k.bits FROM frame f LEFT JOIN frame_sketch k"
	    " ON k.blob = f.blob AND k.raw_off = f.raw_off"
	    " WHERE f.blob = ?1 AND f.raw_off + f.raw_len > ?2"
	    " ORDER BY f.raw_off", -1, &s, NULL) != SQLITE_OK)
		return 0;	/* no sketches in this store */
	sqlite3_bind_int64(s, 1, blob);
	sqlite3_bind_int64(s, 2, (int64_t)from);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		bits = sqlite3_column_blob(s, 3);
		if (bits != NULL &&
		    sqlite3_column_bytes(s, 3) != OFL_SKETCH_BYTES)
			bits = NULL;
		any |= bits != NULL;
		if (cb((uint64_t)sqlite3_column_int64(s, 0),
		    (uint64_t)sqlite3_column_int64(s, 1),
		    (uint64_t)sqlite3_column_int64(s, 2), bits, arg) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_fail(st, "frame sketches");
	return any;
}
