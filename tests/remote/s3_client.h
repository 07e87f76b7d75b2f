// A minimal S3 client for tests: one signed request at a time over libcurl, built from the
// hipfile_remote_s3 pieces (request URL, SigV4 headers), returning status, headers and body.
#ifndef HF_TEST_S3_CLIENT_H
#define HF_TEST_S3_CLIENT_H

#include <ctime>
#include <string>
#include <vector>

#include "s3_credentials.h"
#include "s3_url.h"

// One response: HTTP status (0 when the transfer failed), lowercased header names with their
// values, and the body.
struct S3Response {
    long status = 0;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::string error; // curl's or the signer's message when status is 0
    std::string url;   // where the request went

    // Value of the first header with this lowercase name, "" when absent.
    std::string Header(const std::string &name) const;
};

// What to send. query and headers as s3_request_url and s3_sign take them.
struct S3Request {
    const char *method = "GET";
    std::string key;
    std::string query;
    std::vector<std::string> headers; // extra signed headers, "Name: value"
    std::string body;
    bool sign_payload = true;   // hash the body into x-amz-content-sha256, else UNSIGNED-PAYLOAD
    std::string claimed_sha256; // sent and signed instead of the body's hash when not empty
    time_t now = 0;             // signing time; 0 means the current time
};

// Sends req to the bucket at the settings' endpoint, signed with cred.
S3Response S3Send(const s3_settings &st, const char *bucket, const s3_credentials &cred,
                  const S3Request &req);

#endif
