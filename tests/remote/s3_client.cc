// libcurl transport for the test client: the URL and Host from s3_request_url, the signed headers
// from s3_sign, the body from memory, and the response collected into an S3Response.
#include "s3_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "s3_sigv4.h"

std::string S3Response::Header(const std::string &name) const
{
    for (const auto &h : headers)
        if (h.first == name)
            return h.second;
    return "";
}

namespace
{

size_t CollectBody(char *data, size_t size, size_t n, void *user)
{
    static_cast<std::string *>(user)->append(data, size * n);
    return size * n;
}

size_t CollectHeader(char *data, size_t size, size_t n, void *user)
{
    std::string line(data, size * n);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return (char)std::tolower(c); });
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(" \t"));
        value.erase(value.find_last_not_of(" \t\r\n") + 1);
        static_cast<S3Response *>(user)->headers.emplace_back(name, value);
    }
    return size * n;
}

} // namespace

S3Response S3Send(const s3_settings &st, const char *bucket, const s3_credentials &cred,
                  const S3Request &req)
{
    S3Response res;
    s3_location loc{};
    snprintf(loc.bucket, sizeof(loc.bucket), "%s", bucket);
    snprintf(loc.key, sizeof(loc.key), "%s", req.key.c_str());
    char url[8192], host[512];
    int rc = s3_request_url(&st, &loc, req.query.empty() ? nullptr : req.query.c_str(), url,
                            sizeof(url), host, sizeof(host));
    if (rc < 0) {
        res.error = std::string("s3_request_url: ") + strerror(-rc);
        return res;
    }
    res.url = url;
    char payload[65];
    if (!req.claimed_sha256.empty())
        snprintf(payload, sizeof(payload), "%s", req.claimed_sha256.c_str());
    else if (req.sign_payload)
        s3_sha256_hex(req.body.data(), req.body.size(), payload);
    else
        snprintf(payload, sizeof(payload), "%s", S3_UNSIGNED_PAYLOAD);
    std::vector<const char *> extra;
    for (const auto &h : req.headers)
        extra.push_back(h.c_str());
    extra.push_back(nullptr);
    s3_sign_input in{};
    in.method = req.method;
    in.url = url;
    in.headers = extra.data();
    in.payload_sha256 = payload;
    in.region = st.region;
    in.service = "s3";
    in.now = req.now ? req.now : time(nullptr);
    s3_signed_headers sig;
    rc = s3_sign(&in, &cred, &sig);
    if (rc < 0) {
        res.error = std::string("s3_sign: ") + strerror(-rc);
        return res;
    }

    CURL *curl = curl_easy_init();
    if (!curl) {
        res.error = "curl_easy_init failed";
        return res;
    }
    curl_slist *list = nullptr;
    for (const auto &h : req.headers)
        list = curl_slist_append(list, h.c_str());
    for (unsigned i = 0; i < sig.count; i++)
        list = curl_slist_append(list, sig.lines[i]);
    // curl would otherwise add these on its own for bodies; they are not signed.
    list = curl_slist_append(list, "Expect:");
    list = curl_slist_append(list, "Content-Type:");
    curl_easy_setopt(curl, CURLOPT_URL, url);
    // Keys may hold "." and ".." segments; curl would drop them from the path that was signed.
    curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req.method);
    if (strcmp(req.method, "HEAD") == 0)
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    if (strcmp(req.method, "PUT") == 0 || strcmp(req.method, "POST") == 0) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req.body.data());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req.body.size());
    }
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, CollectBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &res.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, CollectHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &res);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    CURLcode cc = curl_easy_perform(curl);
    if (cc == CURLE_OK)
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &res.status);
    else
        res.error = curl_easy_strerror(cc);
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
    return res;
}
