/*
 * Helpers the example programs share: opening and registering a file, printing hipfile errors,
 * and reporting which GPU runtime and which I/O path served a program.
 */
#ifndef HIPFILE_EXAMPLES_COMMON_H
#define HIPFILE_EXAMPLES_COMMON_H

#include <hipfile.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Open @p path with @p flags (plus O_DIRECT where the filesystem accepts it) and register it.
 * On success stores the descriptor in *fd_p and the handle in *handle_p and returns 0; otherwise
 * prints why and returns -1.
 */
int example_open_registered(const char *path, int flags, mode_t mode, int *fd_p,
                            hipFileHandle_t *handle_p);

/** Deregister @p handle and close @p fd. Returns 0, or -1 after printing why close failed. */
int example_close_registered(const char *path, int fd, hipFileHandle_t handle);

/** Print "<what>: <hipfile message>" (and the HIP error for hipFileHipDriverError) to stderr. */
void example_print_error(const char *what, hipFileError_t status);

/** Print why hipFileRead or hipFileWrite returned the negative value @p ret (errno or code). */
void example_print_io_error(const char *what, ssize_t ret);

/**
 * Ask for per-GPU statistics before the driver opens, so example_report_path can tell which path
 * served the I/O. A library that refuses is not an error for the examples; it is reported.
 */
void example_enable_stats(void);

/**
 * Print what the program can learn about where it runs: hipfile's version, the GPU runtime asked
 * for (HIPFILE_GPU_RUNTIME), the HIP runtime this program linked and its devices, and whether a
 * direct storage path is available. Call after the driver is open.
 */
void example_report_runtime(void);

/** Print how many reads and writes the direct path and the compat path served so far. */
void example_report_path(void);

/** Fill @p buf with bytes that depend on their file offset and on @p seed. */
void example_pattern_fill(unsigned char *buf, size_t size, uint64_t file_offset, unsigned seed);

#ifdef __cplusplus
}
#endif

#endif
