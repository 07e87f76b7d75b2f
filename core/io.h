/*
 * The synchronous data path shared by hipFileRead/Write and the async and batch front ends:
 * validation, buffer resolution, selection and the mapping of backend errors to the public
 * return convention (API.md section 8.4).
 */
#ifndef HF_CORE_IO_H
#define HF_CORE_IO_H

#include <stdint.h>
#include <sys/types.h>

#include <hipfile.h>

#include "hipfile/backend.h"

/** Most bytes one call moves: INT_MAX rounded down to the 4 KiB page, as Linux read(2) does. */
#define HF_IO_MAX_BYTES ((size_t)0x7ffff000)

/**
 * Run one request with the public conventions: returns bytes (>= 0), -1 with errno set, or a
 * negated hipFileOpError_t. @p what names the caller in log lines.
 */
ssize_t hf_io_run(int op, hipFileHandle_t fh, void *buffer_base, size_t size, int64_t file_offset,
                  int64_t buffer_offset, const char *what);

#endif
