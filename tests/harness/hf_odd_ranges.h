/*
 * Ranges no alignment rule favours, shared by the suites that check I/O byte for byte: sizes of one
 * byte to a few MiB, file and buffer offsets off every granule. All of them end within the first
 * 4 MiB of a file and 4 MiB of a buffer.
 */
#ifndef HF_TEST_ODD_RANGES_H
#define HF_TEST_ODD_RANGES_H

#include <stddef.h>
#include <stdint.h>

/** One transfer: @c size bytes at @c file_offset, to or from buffer offset @c buf_offset. */
struct hf_test_range {
    size_t size;         /**< bytes */
    int64_t file_offset; /**< offset in the file */
    int64_t buf_offset;  /**< offset in the buffer */
};

/** The ranges, smallest first. */
static const struct hf_test_range hf_test_odd_ranges[] = {
    {1, 0, 0},
    {13, 4093, 1},
    {4097, 3, 5},
    {65537, 12345, 4095},
    {(1 << 20) + 13, 999, 77},
    {(3 << 20) + 4099, 4096 * 3 + 1, 3},
};

/** Entries of hf_test_odd_ranges. */
#define HF_TEST_ODD_RANGE_COUNT (sizeof(hf_test_odd_ranges) / sizeof(hf_test_odd_ranges[0]))

#endif
