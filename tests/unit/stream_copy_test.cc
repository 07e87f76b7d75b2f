// The non-temporal copy staged reads use (plugins/common/stream_copy.c): every length and
// alignment moves exactly the bytes asked for and touches nothing around them.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/stream_copy.h"

namespace
{

TEST(StreamCopy, EveryLengthAndAlignmentCopiesExactlyTheBytesAskedFor)
{
    std::vector<uint8_t> src(4096 + 64), dst(4096 + 128);
    for (size_t i = 0; i < src.size(); i++)
        src[i] = static_cast<uint8_t>(i * 7 + 3);
    const size_t lengths[] = {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 200, 1000, 4096};
    for (size_t len : lengths) {
        for (size_t dst_off = 0; dst_off < 33; dst_off++) {
            for (size_t src_off = 0; src_off < 3; src_off++) {
                std::fill(dst.begin(), dst.end(), 0xEE);
                hfp_stream_copy(dst.data() + dst_off, src.data() + src_off, len);
                for (size_t i = 0; i < dst.size(); i++) {
                    uint8_t want =
                        i >= dst_off && i < dst_off + len ? src[src_off + i - dst_off] : 0xEE;
                    ASSERT_EQ(dst[i], want) << "len " << len << " dst+" << dst_off << " src+"
                                            << src_off << " byte " << i;
                }
            }
        }
    }
}

TEST(StreamCopy, IsAvailableOn64BitX86Only)
{
#if defined(__x86_64__)
    EXPECT_TRUE(hfp_stream_copy_available());
#else
    EXPECT_FALSE(hfp_stream_copy_available());
#endif
}

} // namespace
