/*
 * Test harness shared by every suite: a per-process scratch directory, files with known byte
 * patterns, config files, and reading back what a test produced. Plain C so C tests can use it.
 */
#ifndef HF_TEST_HARNESS_H
#define HF_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** This process's scratch directory (created on first use, removed with its contents at exit). */
const char *hf_test_tmpdir(void);
/** Join the scratch directory and @p name into a malloc'd path. */
char *hf_test_path(const char *name);
/** The byte at @p offset of the pattern with @p seed: different seeds give different streams. */
uint8_t hf_test_pattern_byte(uint64_t offset, uint32_t seed);
/** Fill @p buf with the pattern bytes at [offset, offset+size). */
void hf_test_pattern_fill(void *buf, size_t size, uint64_t offset, uint32_t seed);
/** Index of the first byte of @p buf that differs from the pattern at @p offset, or -1. */
int64_t hf_test_pattern_check(const void *buf, size_t size, uint64_t offset, uint32_t seed);
/** Create (truncate) @p path holding @p size pattern bytes. Returns 0 or -errno. */
int hf_test_pattern_file(const char *path, uint64_t size, uint32_t seed);
/** Write @p text to @p path (truncating). Returns 0 or -errno. */
int hf_test_write_text(const char *path, const char *text);
/** Read a whole file into a NUL-terminated malloc'd buffer; *size_p gets its length. NULL on error.
 */
char *hf_test_read_all(const char *path, size_t *size_p);
/** Whether the file at @p path contains @p needle. */
int hf_test_file_contains(const char *path, const char *needle);

#ifdef __cplusplus
}
#endif

#endif
