// Runs the probes that header.cmake compiled from hipfile.h in each language mode; each returns 0,
// or the line of its first failed check.
#include <gtest/gtest.h>

extern "C" {
int hf_header_probe_c99(void);
int hf_header_probe_c17(void);
int hf_header_probe_cxx11(void);
int hf_header_probe_cxx17(void);
}

TEST(Header, MacrosAndTypesWorkInC99)
{
    EXPECT_EQ(hf_header_probe_c99(), 0) << "failed at header_c99.c line";
}

TEST(Header, MacrosAndTypesWorkInC17)
{
    EXPECT_EQ(hf_header_probe_c17(), 0) << "failed at header_c99.c line";
}

TEST(Header, MacrosAndTypesWorkInCxx11)
{
    EXPECT_EQ(hf_header_probe_cxx11(), 0) << "failed at header_cxx11.cc line";
}

TEST(Header, MacrosAndTypesWorkInCxx17)
{
    EXPECT_EQ(hf_header_probe_cxx17(), 0) << "failed at header_cxx11.cc line";
}
