/*
 * The data the client programs write and check: a byte pattern that is a pure function of the
 * stream (seed) and the offset, so multi-GiB buffers are made and checked a chunk at a time without
 * a second copy in host memory, and a byte landing at the wrong offset never matches by chance.
 */
#ifndef HF_CLIENTS_PATTERN_H
#define HF_CLIENTS_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/** The 8-byte word that holds offsets [8 * @p word, 8 * @p word + 8) of stream @p seed. */
static inline uint64_t pattern_word(uint64_t seed, uint64_t word)
{
    uint64_t x = word * 0x9e3779b97f4a7c15ull ^ (seed + 1) * 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 29);
}

/** The byte at @p offset of stream @p seed. */
static inline unsigned char pattern_byte(uint64_t seed, uint64_t offset)
{
    return (unsigned char)(pattern_word(seed, offset >> 3) >> (8 * (offset & 7)));
}

/** Fill @p n bytes at @p dst with stream @p seed from @p offset on. */
static inline void pattern_fill(unsigned char *dst, size_t n, uint64_t seed, uint64_t offset)
{
    size_t i = 0;
    for (; i < n && ((offset + i) & 7) != 0; i++)
        dst[i] = pattern_byte(seed, offset + i);
    for (; i + 8 <= n; i += 8) {
        uint64_t w = pattern_word(seed, (offset + i) >> 3);
        for (unsigned b = 0; b < 8; b++)
            dst[i + b] = (unsigned char)(w >> (8 * b));
    }
    for (; i < n; i++)
        dst[i] = pattern_byte(seed, offset + i);
}

/** Index of the first of @p n bytes that differs from stream @p seed at @p offset, or @p n. */
static inline size_t pattern_mismatch(const unsigned char *src, size_t n, uint64_t seed,
                                      uint64_t offset)
{
    unsigned char expect[4096];
    for (size_t done = 0; done < n;) {
        size_t part = n - done < sizeof(expect) ? n - done : sizeof(expect);
        pattern_fill(expect, part, seed, offset + done);
        for (size_t i = 0; i < part; i++)
            if (src[done + i] != expect[i])
                return done + i;
        done += part;
    }
    return n;
}

#endif
