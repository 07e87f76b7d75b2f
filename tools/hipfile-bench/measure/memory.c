/*
 * Buffers of each kind of memory a method can use (--mem for the library, fixed kinds for the
 * baselines), zeroed when made so that no measured call pays for faulting their pages in.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int bench_alloc(enum bench_mem mem, size_t size, void **ptr_p)
{
    void *ptr = NULL;
    hipError_t err = hipSuccess;
    switch (mem) {
    case BENCH_MEM_DEVICE:
        err = hipMalloc(&ptr, size);
        if (err == hipSuccess)
            err = hipMemset(ptr, 0, size);
        break;
    case BENCH_MEM_PINNED:
        err = hipHostMalloc(&ptr, size, hipHostMallocDefault);
        if (err == hipSuccess)
            memset(ptr, 0, size);
        break;
    case BENCH_MEM_PAGEABLE:
        /* 4 KiB alignment keeps O_DIRECT possible; the pages are touched so no call faults them. */
        if (posix_memalign(&ptr, 4096, size) != 0) {
            fprintf(stderr, BENCH_NAME ": no memory for a %zu-byte buffer\n", size);
            return -1;
        }
        memset(ptr, 0, size);
        break;
    }
    if (err != hipSuccess) {
        if (ptr != NULL)
            bench_free(mem, ptr);
        return bench_hip_error(mem == BENCH_MEM_DEVICE ? "hipMalloc" : "hipHostMalloc", err);
    }
    *ptr_p = ptr;
    return 0;
}

void bench_free(enum bench_mem mem, void *ptr)
{
    if (ptr == NULL)
        return;
    if (mem == BENCH_MEM_DEVICE)
        (void)hipFree(ptr);
    else if (mem == BENCH_MEM_PINNED)
        (void)hipHostFree(ptr);
    else
        free(ptr);
}
