/*
 * The log sink redacts every line before it is written: at each level, for lines a thread held
 * back, and for messages longer than the sink's formatting buffer, whose URL must be redacted
 * whole before the line is cut to its size.
 */
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "hf_harness.h"
extern "C" {
#include "base/log.h"
}

namespace
{

const char kMarker[] = "S3CR3TMARK";

class LogRedact : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        char *path = hf_test_path("log-redact.log");
        path_ = path;
        free(path);
        std::remove(path_.c_str());
        ASSERT_EQ(hf_log_set_file(path_.c_str()), 0);
        saved_level_ = hf_log_level();
        hf_log_set_level(HF_LOG_DEBUG);
    }
    void TearDown() override
    {
        hf_log_set_file(nullptr);
        hf_log_set_level(saved_level_);
    }
    std::string Logged() const
    {
        std::ifstream in(path_);
        std::stringstream all;
        all << in.rdbuf();
        return all.str();
    }
    std::string path_;
    int saved_level_ = HF_LOG_WARN;
};

TEST_F(LogRedact, EveryLevelIsRedacted)
{
    const std::string url = std::string("http://user:") + kMarker + "@127.0.0.1:9/obj?X-Amz-" +
                            "Signature=" + kMarker + "&X-Amz-Credential=" + kMarker;
    for (int level = HF_LOG_ERROR; level <= HF_LOG_DEBUG; level++)
        hf_log(level, "remote", "HEAD %s: HTTP 500 (level %d)", url.c_str(), level);
    std::string text = Logged();
    EXPECT_EQ(text.find(kMarker), std::string::npos) << text;
    for (int level = HF_LOG_ERROR; level <= HF_LOG_DEBUG; level++) {
        EXPECT_NE(text.find("HEAD http://***@127.0.0.1:9/obj?X-Amz-Signature=***&X-Amz-"
                            "Credential=***: HTTP 500 (level " +
                            std::to_string(level) + ")"),
                  std::string::npos)
            << text;
    }
}

TEST_F(LogRedact, HeldLinesAreRedacted)
{
    hf_log_hold();
    hf_log(HF_LOG_INFO, "core", "loading http://a:%s@h/", kMarker);
    hf_log_release();
    std::string text = Logged();
    EXPECT_EQ(text.find(kMarker), std::string::npos) << text;
    EXPECT_NE(text.find("loading http://***@h/"), std::string::npos) << text;
}

TEST_F(LogRedact, LongMessageIsRedactedBeforeItIsCut)
{
    /* A token as the user name, longer than the sink's buffer: cut there, it would look like a
     * host and be written out. */
    std::string token(3000, 'T');
    hf_error("open https://%s@h/obj failed", token.c_str());
    std::string text = Logged();
    EXPECT_EQ(text.find("TTTTTTTTTT"), std::string::npos) << text.substr(0, 200);
    EXPECT_NE(text.find("open https://***@h/obj failed"), std::string::npos) << text;
}

TEST_F(LogRedact, LinesStayWithinTheirSize)
{
    std::string filler(5000, 'x');
    hf_error("%s", filler.c_str());
    std::string text = Logged();
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n');
    EXPECT_LE(text.size(), 1023u);
}

} // namespace
