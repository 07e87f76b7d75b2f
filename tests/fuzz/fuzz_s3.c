/*
 * libFuzzer target: the remote backend's S3 pieces on arbitrary bytes. Each input is read as an
 * s3:// URL (then turned into request URLs and signed), as a URL path and query to sign, as an
 * options string, as an S3 XML response body, and as an AWS config and credentials file. Bad
 * input must be refused with an error, never crash, leak or read out of bounds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "s3_credentials.h"
#include "s3_sigv4.h"
#include "s3_status.h"
#include "s3_url.h"
#include "s3_xml.h"
#include "fuzz_scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char profile_path[4096];

/* An empty HOME and one private file named by both AWS file variables, so nothing of the machine
 * running the fuzzer is read and every input is read as both files. */
static void files_init(void)
{
    char dir[3800];
    fuzz_scratch_dir("s3", dir, sizeof(dir));
    snprintf(profile_path, sizeof(profile_path), "%s/aws", dir);
    setenv("HOME", dir, 1);
    setenv("AWS_CONFIG_FILE", profile_path, 1);
    setenv("AWS_SHARED_CREDENTIALS_FILE", profile_path, 1);
    static const char *const cleared[] = {
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
        "AWS_REGION",        "AWS_DEFAULT_REGION",    "AWS_ENDPOINT_URL",  "AWS_ENDPOINT_URL_S3"};
    for (size_t i = 0; i < sizeof(cleared) / sizeof(cleared[0]); i++)
        unsetenv(cleared[i]);
}

static void sign_url(const char *url, const char *header)
{
    struct s3_credentials cred = {0};
    snprintf(cred.access_key_id, sizeof(cred.access_key_id), "AKIDFUZZ");
    snprintf(cred.secret_access_key, sizeof(cred.secret_access_key), "secret");
    const char *headers[] = {header, NULL};
    struct s3_sign_input in = {.method = "GET",
                               .url = url,
                               .headers = headers,
                               .payload_sha256 = S3_UNSIGNED_PAYLOAD,
                               .region = "us-east-1",
                               .service = "s3",
                               .now = 1369353600};
    struct s3_signed_headers out;
    (void)s3_sign(&in, &cred, &out);
}

static void parse_and_sign(const char *text)
{
    char err[256];
    struct s3_location loc;
    if (s3_parse_url(text, &loc, err, sizeof(err)) == 0) {
        struct s3_settings st = {0};
        snprintf(st.region, sizeof(st.region), "us-east-1");
        char url[8192], host[512];
        for (int path_style = 0; path_style < 2; path_style++) {
            st.path_style = path_style;
            if (s3_request_url(&st, &loc, "partNumber=1&uploadId=x y", url, sizeof(url), host,
                               sizeof(host)) == 0)
                sign_url(url, "Range: bytes=0-9");
        }
    }
    /* The text as a path and query after a fixed host, and as a header line. */
    char *url = malloc(strlen(text) + 32);
    if (url == NULL)
        abort();
    sprintf(url, "https://b.example.com/%s", text);
    sign_url(url, text);
    free(url);
}

static void read_files(const uint8_t *data, size_t size)
{
    FILE *f = fopen(profile_path, "w");
    if (f == NULL)
        abort();
    if (size > 0 && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    char err[512];
    struct s3_credentials cred;
    struct s3_settings st;
    (void)s3_credentials_resolve(NULL, &cred, err, sizeof(err));
    (void)s3_credentials_resolve("dev", &cred, err, sizeof(err));
    (void)s3_settings_resolve(NULL, &st, err, sizeof(err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (profile_path[0] == '\0')
        files_init();
    char *text = malloc(size + 1);
    if (text == NULL)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';

    parse_and_sign(text);
    char err[256];
    struct s3_settings st;
    (void)s3_settings_resolve(text, &st, err, sizeof(err));

    char code[32], message[64], request_id[32], upload_id[64];
    (void)s3_xml_error((const char *)data, size, code, sizeof(code), message, sizeof(message),
                       request_id, sizeof(request_id));
    (void)s3_xml_upload_id((const char *)data, size, upload_id, sizeof(upload_id));
    struct s3_failure failure;
    s3_failure_read(503, (const char *)data, size, text, &failure);
    char line[256];
    (void)s3_failure_describe(&failure, "GET", text, line, sizeof(line));

    read_files(data, size);
    free(text);
    return 0;
}
