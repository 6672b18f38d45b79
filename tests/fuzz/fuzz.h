/*
 * fuzz.h: what every fuzz harness shares.
 *
 * A harness defines fuzz_target (its name, the directory of its inputs
 * under tests/data/fuzz/) and the two libFuzzer entry points.  Built with
 * clang -fsanitize=fuzzer it is a fuzzer; linked with replay.c it is a
 * test that replays tests/data/fuzz/<target>/ (make check).
 */
#ifndef OFL_FUZZ_H
#define OFL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "ofl.h"

extern const char	 fuzz_target[];

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/*
 * A private store in a temporary directory, made on first use and
 * removed at exit; the working directory is an empty directory beside it
 * (fuzz_cwd_clean() checks that it stays empty).
 */
struct ofl_store	*fuzz_store(void);
const char		*fuzz_dir(void);
int			 fuzz_cwd_clean(void);
/* Store bytes as a new artifact; its ID goes to id.  Aborts on failure. */
void			 fuzz_put(const void *, size_t, char [OFL_ID_MAX + 1]);
/* Remove an artifact (and its content and index rows). */
void			 fuzz_drop(const char *);
/* A NUL-terminated copy of the input. */
char			*fuzz_str(const uint8_t *, size_t);
/* Abort with a message: an invariant of the library was broken. */
void			 fuzz_fail(const char *, ...) OFL_PRINTF(1, 2) OFL_DEAD;

#endif
