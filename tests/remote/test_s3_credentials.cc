// Where credentials and settings come from, in the AWS SDK order: environment before the shared
// credentials file before the config file, profiles, options over environment over files, and the
// messages a user sees when something is missing or malformed. Each test gets its own HOME.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "hf_harness.h"
#include "s3_credentials.h"

namespace
{

const char *const kAwsVariables[] = {
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",      "AWS_SESSION_TOKEN", "AWS_PROFILE",
    "AWS_REGION",        "AWS_DEFAULT_REGION",         "AWS_ENDPOINT_URL",  "AWS_ENDPOINT_URL_S3",
    "AWS_CONFIG_FILE",   "AWS_SHARED_CREDENTIALS_FILE"};

class S3Credentials : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        for (const char *name : kAwsVariables)
            unsetenv(name);
        // Unique per test, so the suite also runs in one process.
        std::string name =
            std::string("home-") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
        char *home = hf_test_path(name.c_str());
        home_ = home;
        free(home);
        ASSERT_EQ(mkdir(home_.c_str(), 0700), 0);
        ASSERT_EQ(mkdir((home_ + "/.aws").c_str(), 0700), 0);
        setenv("HOME", home_.c_str(), 1);
    }

    void WriteCredentials(const char *text)
    {
        ASSERT_EQ(hf_test_write_text((home_ + "/.aws/credentials").c_str(), text), 0);
    }

    void WriteConfig(const char *text)
    {
        ASSERT_EQ(hf_test_write_text((home_ + "/.aws/config").c_str(), text), 0);
    }

    std::string home_;
    s3_credentials cred_{};
    s3_settings st_{};
    char err_[512] = "";
};

} // namespace

TEST_F(S3Credentials, EnvironmentComesFirst)
{
    WriteCredentials(
        "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = filesecret\n");
    setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
    setenv("AWS_SESSION_TOKEN", "envtoken", 1);
    ASSERT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "ENVKEY");
    EXPECT_STREQ(cred_.secret_access_key, "envsecret");
    EXPECT_STREQ(cred_.session_token, "envtoken");
    EXPECT_STREQ(cred_.source, "environment");
}

TEST_F(S3Credentials, HalfAnEnvironmentPairIsAnError)
{
    setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
    EXPECT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), -EINVAL);
    EXPECT_STREQ(err_, "AWS_ACCESS_KEY_ID is set in the environment but AWS_SECRET_ACCESS_KEY is "
                       "not");
    EXPECT_STREQ(cred_.access_key_id, "");
}

TEST_F(S3Credentials, SharedCredentialsFileDefaultProfile)
{
    WriteCredentials("# comment\n; other comment\n[other]\naws_access_key_id = OTHER\n"
                     "aws_secret_access_key = o\n\n[default]\n  aws_access_key_id=FILEKEY  \n"
                     "aws_secret_access_key = file/secret+x\naws_session_token = tok==\n");
    ASSERT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "FILEKEY");
    EXPECT_STREQ(cred_.secret_access_key, "file/secret+x");
    EXPECT_STREQ(cred_.session_token, "tok==");
    EXPECT_EQ(std::string(cred_.source),
              "shared credentials file " + home_ + "/.aws/credentials [default]");
}

TEST_F(S3Credentials, ProfileFromArgumentOrAwsProfile)
{
    WriteCredentials("[default]\naws_access_key_id = D\naws_secret_access_key = d\n"
                     "[dev]\naws_access_key_id = DEV\naws_secret_access_key = dev\n"
                     "[ci]\naws_access_key_id = CI\naws_secret_access_key = ci\n");
    ASSERT_EQ(s3_credentials_resolve("dev", &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "DEV");
    setenv("AWS_PROFILE", "ci", 1);
    ASSERT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "CI");
    ASSERT_EQ(s3_credentials_resolve("dev", &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "DEV");
}

TEST_F(S3Credentials, NamedProfileSkipsEnvironmentAwsProfileDoesNot)
{
    WriteCredentials("[dev]\naws_access_key_id = DEV\naws_secret_access_key = dev\n");
    setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
    setenv("AWS_PROFILE", "dev", 1);
    ASSERT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "ENVKEY");
    ASSERT_EQ(s3_credentials_resolve("dev", &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "DEV");
    EXPECT_EQ(std::string(cred_.source),
              "shared credentials file " + home_ + "/.aws/credentials [dev]");

    ASSERT_EQ(s3_settings_resolve("profile=dev", &st_, err_, sizeof(err_)), 0) << err_;
    EXPECT_TRUE(st_.profile_from_options);
    ASSERT_EQ(s3_settings_resolve(nullptr, &st_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(st_.profile, "dev");
    EXPECT_FALSE(st_.profile_from_options);
}

TEST_F(S3Credentials, ConfigFileProfileSectionAfterCredentialsFile)
{
    WriteCredentials("[dev]\nregion = us-west-2\n");
    WriteConfig("[default]\naws_access_key_id = CFGDEFAULT\naws_secret_access_key = x\n"
                "[dev]\naws_access_key_id = WRONGSECTION\naws_secret_access_key = x\n"
                "[profile   dev]\naws_access_key_id = CFGDEV\naws_secret_access_key = y\n");
    ASSERT_EQ(s3_credentials_resolve("dev", &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "CFGDEV");
    EXPECT_EQ(std::string(cred_.source), "config file " + home_ + "/.aws/config [dev]");
    ASSERT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "CFGDEFAULT");
}

TEST_F(S3Credentials, CredentialsFileBeatsConfigFile)
{
    WriteCredentials("[default]\naws_access_key_id = CREDS\naws_secret_access_key = a\n");
    WriteConfig("[default]\naws_access_key_id = CONFIG\naws_secret_access_key = b\n");
    ASSERT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "CREDS");
}

TEST_F(S3Credentials, FileLocationsFromEnvironment)
{
    std::string creds = home_ + "/elsewhere-credentials";
    ASSERT_EQ(hf_test_write_text(creds.c_str(), "[default]\naws_access_key_id = MOVED\n"
                                                "aws_secret_access_key = m\n"),
              0);
    WriteCredentials("[default]\naws_access_key_id = HOME\naws_secret_access_key = h\n");
    setenv("AWS_SHARED_CREDENTIALS_FILE", creds.c_str(), 1);
    ASSERT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "MOVED");

    std::string config = home_ + "/elsewhere-config";
    ASSERT_EQ(hf_test_write_text(config.c_str(), "[profile p]\naws_access_key_id = CFG\n"
                                                 "aws_secret_access_key = c\n"),
              0);
    setenv("AWS_CONFIG_FILE", config.c_str(), 1);
    ASSERT_EQ(s3_credentials_resolve("p", &cred_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(cred_.access_key_id, "CFG");
}

TEST_F(S3Credentials, MissingProfileNamesBothFiles)
{
    WriteCredentials("[default]\naws_access_key_id = D\naws_secret_access_key = d\n");
    EXPECT_EQ(s3_credentials_resolve("nosuch", &cred_, err_, sizeof(err_)), -EINVAL);
    EXPECT_EQ(std::string(err_), "AWS profile 'nosuch' is in neither " + home_ +
                                     "/.aws/credentials nor " + home_ + "/.aws/config");
}

TEST_F(S3Credentials, NothingAnywhereIsEnoent)
{
    EXPECT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), -ENOENT);
    EXPECT_NE(std::string(err_).find("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set"),
              std::string::npos)
        << err_;
    EXPECT_NE(std::string(err_).find(home_ + "/.aws/credentials"), std::string::npos) << err_;
}

TEST_F(S3Credentials, HalfAFilePairIsAnError)
{
    WriteCredentials("[default]\naws_access_key_id = ONLYID\n");
    EXPECT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), -EINVAL);
    EXPECT_EQ(std::string(err_), home_ + "/.aws/credentials [default] sets aws_access_key_id but "
                                         "not aws_secret_access_key");
}

TEST_F(S3Credentials, UnsupportedCredentialSourceIsNamed)
{
    WriteConfig("[profile role]\nrole_arn = arn:aws:iam::123456789012:role/x\n"
                "source_profile = default\n");
    EXPECT_EQ(s3_credentials_resolve("role", &cred_, err_, sizeof(err_)), -ENOENT);
    EXPECT_NE(std::string(err_).find("through role_arn, which is not supported"), std::string::npos)
        << err_;
}

TEST_F(S3Credentials, MalformedFileSaysWhere)
{
    WriteCredentials("[default]\naws_access_key_id = A\nthis line is wrong\n");
    EXPECT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), -EINVAL);
    EXPECT_EQ(std::string(err_),
              home_ + "/.aws/credentials line 3: expected 'key = value' or '[section]'");
    WriteCredentials("[default\n");
    EXPECT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), -EINVAL);
    EXPECT_NE(std::string(err_).find("line 1: unterminated [section]"), std::string::npos);
}

TEST_F(S3Credentials, OverlongValueIsRefused)
{
    std::string text =
        "[default]\naws_access_key_id = " + std::string(200, 'A') + "\naws_secret_access_key = s\n";
    WriteCredentials(text.c_str());
    EXPECT_EQ(s3_credentials_resolve(nullptr, &cred_, err_, sizeof(err_)), -EINVAL);
    EXPECT_NE(std::string(err_).find("value of aws_access_key_id is longer than 127 bytes"),
              std::string::npos)
        << err_;
}

TEST_F(S3Credentials, SettingsDefaults)
{
    ASSERT_EQ(s3_settings_resolve(nullptr, &st_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(st_.profile, "default");
    EXPECT_STREQ(st_.region, "us-east-1");
    EXPECT_STREQ(st_.endpoint, "");
    EXPECT_FALSE(st_.path_style);
}

TEST_F(S3Credentials, SettingsFromConfigFile)
{
    WriteConfig("[profile dev]\nregion = eu-central-1\nendpoint_url = http://plain:1\n"
                "s3 =\n  addressing_style = virtual\n  endpoint_url = http://s3specific:2/\n"
                "other = x\n");
    setenv("AWS_PROFILE", "dev", 1);
    ASSERT_EQ(s3_settings_resolve("", &st_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(st_.profile, "dev");
    EXPECT_STREQ(st_.region, "eu-central-1");
    EXPECT_STREQ(st_.endpoint, "http://s3specific:2");
    EXPECT_FALSE(st_.path_style);
}

TEST_F(S3Credentials, SettingsEnvironmentBeatsFileAndOptionsBeatEnvironment)
{
    WriteConfig("[default]\nregion = eu-central-1\nendpoint_url = http://file:1\n"
                "[profile opt]\nregion = ap-south-1\n");
    setenv("AWS_DEFAULT_REGION", "us-west-1", 1);
    setenv("AWS_ENDPOINT_URL", "http://env:2", 1);
    ASSERT_EQ(s3_settings_resolve(nullptr, &st_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(st_.region, "us-west-1");
    EXPECT_STREQ(st_.endpoint, "http://env:2");
    EXPECT_TRUE(st_.path_style); // on by default with an endpoint

    setenv("AWS_REGION", "us-west-2", 1);
    setenv("AWS_ENDPOINT_URL_S3", "https://envs3:3", 1);
    ASSERT_EQ(s3_settings_resolve(nullptr, &st_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(st_.region, "us-west-2");
    EXPECT_STREQ(st_.endpoint, "https://envs3:3");

    ASSERT_EQ(s3_settings_resolve(" region = sa-east-1 ;endpoint=http://opt:4;path_style=false;",
                                  &st_, err_, sizeof(err_)),
              0)
        << err_;
    EXPECT_STREQ(st_.region, "sa-east-1");
    EXPECT_STREQ(st_.endpoint, "http://opt:4");
    EXPECT_FALSE(st_.path_style);

    unsetenv("AWS_REGION");
    unsetenv("AWS_DEFAULT_REGION");
    ASSERT_EQ(s3_settings_resolve("profile=opt", &st_, err_, sizeof(err_)), 0) << err_;
    EXPECT_STREQ(st_.profile, "opt");
    EXPECT_STREQ(st_.region, "ap-south-1");
}

TEST_F(S3Credentials, PathStyleFromConfigOrOption)
{
    WriteConfig("[default]\ns3 =\n    addressing_style = path\n");
    ASSERT_EQ(s3_settings_resolve(nullptr, &st_, err_, sizeof(err_)), 0) << err_;
    EXPECT_TRUE(st_.path_style);
    ASSERT_EQ(s3_settings_resolve("path_style=no", &st_, err_, sizeof(err_)), 0) << err_;
    EXPECT_FALSE(st_.path_style);
    WriteConfig("[default]\ns3 =\n    addressing_style = sideways\n");
    EXPECT_EQ(s3_settings_resolve(nullptr, &st_, err_, sizeof(err_)), -EINVAL);
    EXPECT_NE(std::string(err_).find("addressing_style 'sideways'"), std::string::npos) << err_;
}

TEST_F(S3Credentials, BadOptionsSayWhatIsWrong)
{
    struct Case {
        const char *options;
        const char *message;
    } cases[] = {
        {"colour=blue",
         "unknown S3 option 'colour' (known: profile, region, endpoint, path_style)"},
        {"region", "S3 option 'region' is not key=value"},
        {"path_style=maybe", "S3 option path_style='maybe' is not a boolean (true or false)"},
        {"endpoint=127.0.0.1:9000",
         "S3 endpoint '127.0.0.1:9000' (from options) must begin with http:// or https://"},
        {"endpoint=http://host:1/bucket",
         "S3 endpoint 'http://host:1/bucket' (from options) must be scheme://host[:port] with no "
         "path"},
        {"region=US_EAST", "S3 region 'US_EAST' may hold only lowercase letters, digits and '-'"},
    };
    for (const Case &c : cases) {
        EXPECT_EQ(s3_settings_resolve(c.options, &st_, err_, sizeof(err_)), -EINVAL) << c.options;
        EXPECT_STREQ(err_, c.message);
    }
    std::string long_region = "region=" + std::string(100, 'a');
    EXPECT_EQ(s3_settings_resolve(long_region.c_str(), &st_, err_, sizeof(err_)), -EINVAL);
    EXPECT_STREQ(err_, "S3 option region is longer than 63 bytes");
}

TEST_F(S3Credentials, BadEndpointFromEnvironmentNamesTheVariable)
{
    setenv("AWS_ENDPOINT_URL_S3", "localhost:9000", 1);
    EXPECT_EQ(s3_settings_resolve(nullptr, &st_, err_, sizeof(err_)), -EINVAL);
    EXPECT_STREQ(err_, "S3 endpoint 'localhost:9000' (from AWS_ENDPOINT_URL_S3) must begin with "
                       "http:// or https://");
}
