// The S3 XML bodies: UploadId and Error parsing (with and without the S3 namespace, malformed
// and foreign documents) and the CompleteMultipartUpload body.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "s3_xml.h"

namespace
{

int UploadId(const std::string &body, char *id, size_t size)
{
    return s3_xml_upload_id(body.data(), body.size(), id, size);
}

} // namespace

TEST(S3Xml, UploadIdFromInitiateResult)
{
    char id[128];
    const std::string body =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<InitiateMultipartUploadResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<Bucket>b</Bucket><Key>k</Key><UploadId>VXBsb2FkIElE.&amp;x</UploadId>"
        "</InitiateMultipartUploadResult>";
    ASSERT_EQ(UploadId(body, id, sizeof(id)), 0);
    EXPECT_STREQ(id, "VXBsb2FkIElE.&x");
    // Without the namespace, as some S3-compatible stores send it.
    ASSERT_EQ(UploadId("<InitiateMultipartUploadResult><UploadId>u2</UploadId>"
                       "</InitiateMultipartUploadResult>",
                       id, sizeof(id)),
              0);
    EXPECT_STREQ(id, "u2");
}

TEST(S3Xml, UploadIdErrors)
{
    char id[8] = "junk";
    EXPECT_EQ(UploadId("", id, sizeof(id)), -EBADMSG);
    EXPECT_STREQ(id, "");
    EXPECT_EQ(UploadId("not xml at all", id, sizeof(id)), -EBADMSG);
    EXPECT_EQ(UploadId("<InitiateMultipartUploadResult><UploadId>x", id, sizeof(id)), -EBADMSG);
    EXPECT_EQ(UploadId("<Error><UploadId>x</UploadId></Error>", id, sizeof(id)), -EBADMSG);
    EXPECT_EQ(UploadId("<InitiateMultipartUploadResult/>", id, sizeof(id)), -EBADMSG);
    EXPECT_EQ(UploadId("<InitiateMultipartUploadResult><UploadId></UploadId>"
                       "</InitiateMultipartUploadResult>",
                       id, sizeof(id)),
              -EBADMSG);
    EXPECT_EQ(UploadId("<InitiateMultipartUploadResult><UploadId>0123456789</UploadId>"
                       "</InitiateMultipartUploadResult>",
                       id, sizeof(id)),
              -ENOSPC);
    EXPECT_STREQ(id, "");
    EXPECT_EQ(s3_xml_upload_id(nullptr, 10, id, sizeof(id)), -EBADMSG);
}

TEST(S3Xml, ErrorFields)
{
    char code[64], message[256], request_id[64];
    const std::string body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                             "<Error><Code>SignatureDoesNotMatch</Code>"
                             "<Message>The request signature we calculated does not match</Message>"
                             "<StringToSign>AWS4-HMAC-SHA256</StringToSign>"
                             "<RequestId>4442587FB7D0A2F9</RequestId></Error>";
    ASSERT_EQ(s3_xml_error(body.data(), body.size(), code, sizeof(code), message, sizeof(message),
                           request_id, sizeof(request_id)),
              0);
    EXPECT_STREQ(code, "SignatureDoesNotMatch");
    EXPECT_STREQ(message, "The request signature we calculated does not match");
    EXPECT_STREQ(request_id, "4442587FB7D0A2F9");
}

TEST(S3Xml, ErrorMissingFieldsAreEmptyAndLongOnesTruncated)
{
    char code[8], message[64] = "old", request_id[64] = "old";
    const std::string body = "<Error><Code>NoSuchKeyAtAll</Code></Error>";
    ASSERT_EQ(s3_xml_error(body.data(), body.size(), code, sizeof(code), message, sizeof(message),
                           request_id, sizeof(request_id)),
              0);
    EXPECT_STREQ(code, "NoSuchK");
    EXPECT_STREQ(message, "");
    EXPECT_STREQ(request_id, "");
}

TEST(S3Xml, ErrorFromMalformedOrForeignBody)
{
    char code[64] = "x", message[64] = "x", request_id[64] = "x";
    const char *bodies[] = {"", "<html><body>502 Bad Gateway</body></html>", "<Error><Code>",
                            "\xff\xfe garbage"};
    for (const char *b : bodies) {
        EXPECT_EQ(s3_xml_error(b, strlen(b), code, sizeof(code), message, sizeof(message),
                               request_id, sizeof(request_id)),
                  -EBADMSG)
            << b;
        EXPECT_STREQ(code, "");
        EXPECT_STREQ(message, "");
        EXPECT_STREQ(request_id, "");
    }
}

TEST(S3Xml, EntitiesAreNotExpanded)
{
    char code[64], message[64], request_id[64];
    const std::string body = "<!DOCTYPE Error [<!ENTITY x SYSTEM \"file:///etc/hostname\">]>"
                             "<Error><Code>&x;</Code></Error>";
    s3_xml_error(body.data(), body.size(), code, sizeof(code), message, sizeof(message), request_id,
                 sizeof(request_id));
    EXPECT_STREQ(code, "");
}

TEST(S3Xml, CompleteBodyListsPartsInOrder)
{
    const char *etags[] = {"\"a54357aff0632cce46d942af68356b38\"", "\"0c78aef8\"", "x&<y>"};
    size_t size = 0;
    char *body = s3_xml_complete_body(etags, 3, &size);
    ASSERT_NE(body, nullptr);
    EXPECT_EQ(size, strlen(body));
    EXPECT_STREQ(body, "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                       "<Part><PartNumber>1</PartNumber>"
                       "<ETag>\"a54357aff0632cce46d942af68356b38\"</ETag></Part>"
                       "<Part><PartNumber>2</PartNumber><ETag>\"0c78aef8\"</ETag></Part>"
                       "<Part><PartNumber>3</PartNumber><ETag>x&amp;&lt;y&gt;</ETag></Part>"
                       "</CompleteMultipartUpload>");
    free(body);
}

TEST(S3Xml, CompleteBodyRefusesNoPartsOrMissingEtag)
{
    size_t size = 7;
    errno = 0;
    EXPECT_EQ(s3_xml_complete_body(nullptr, 1, &size), nullptr);
    EXPECT_EQ(errno, EINVAL);
    const char *etags[] = {"\"a\"", nullptr};
    EXPECT_EQ(s3_xml_complete_body(etags, 0, &size), nullptr);
    EXPECT_EQ(s3_xml_complete_body(etags, 2, &size), nullptr);
    const char *empty[] = {""};
    EXPECT_EQ(s3_xml_complete_body(empty, 1, &size), nullptr);
    EXPECT_EQ(errno, EINVAL);
}
