/* One private scratch directory per fuzz process, created the same way for every target. */
#include "fuzz_scratch.h"

#include <stdio.h>
#include <stdlib.h>

void fuzz_scratch_dir(const char *tag, char *dir, size_t dir_size)
{
    const char *base = getenv("TMPDIR");
    int n = snprintf(dir, dir_size, "%s/hipfile-fuzz-%s-XXXXXX", base != NULL ? base : "/tmp", tag);
    if (n < 0 || (size_t)n >= dir_size || mkdtemp(dir) == NULL)
        abort();
}
