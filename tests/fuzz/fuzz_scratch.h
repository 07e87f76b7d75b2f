/* Scratch directories for fuzz targets that go through files. */
#ifndef HF_FUZZ_SCRATCH_H
#define HF_FUZZ_SCRATCH_H

#include <stddef.h>

/** Create a private directory "$TMPDIR/hipfile-fuzz-<tag>-XXXXXX" (TMPDIR defaulting to /tmp)
 *  and write its path into dir; aborts when it cannot, since no input could then be run. */
void fuzz_scratch_dir(const char *tag, char *dir, size_t dir_size);

#endif
