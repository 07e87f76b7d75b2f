#include "common/stream_copy.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>

bool hfp_stream_copy_available(void)
{
    return true;
}

/*
 * SSE2 is in every x86-64 CPU. The copy is bound by memory, not by the width of a store, so wider
 * vectors would only add a dispatch.
 */
void hfp_stream_copy(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    /* Non-temporal stores of 16 bytes need 16-byte-aligned destinations: the head goes plainly. */
    size_t head = (size_t)(-(uintptr_t)d & 15);
    if (head > n)
        head = n;
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    size_t body = n & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
        _mm_stream_si128((__m128i *)(void *)(d + i), a);
        _mm_stream_si128((__m128i *)(void *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(void *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(void *)(d + i + 48), e);
    }
    memcpy(d + body, s + body, n - body);
    /* Non-temporal stores are weakly ordered: without the fence a later release store could be
     * seen before them. */
    _mm_sfence();
}

#else

bool hfp_stream_copy_available(void)
{
    return false;
}

void hfp_stream_copy(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

#endif
