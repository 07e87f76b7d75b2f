/* Where S3 requests go and who signs them: credentials and settings found in the same places and
 * the same order as the AWS SDKs (environment, shared credentials file, config file), and the
 * options string a remote file is opened with. */
#ifndef HF_REMOTE_S3_CREDENTIALS_H
#define HF_REMOTE_S3_CREDENTIALS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An access key pair, an optional session token, and where they were found. */
struct s3_credentials {
    char access_key_id[128];     /**< AWS access key id */
    char secret_access_key[128]; /**< secret key; never logged */
    char session_token[4096];    /**< temporary-credential session token, "" when none */
    /** Where they came from, for logs (never the secret), e.g. "environment" or
     *  "shared credentials file /home/u/.aws/credentials [default]". */
    char source[128];
};

/** Where requests go: profile, region, endpoint and addressing style, resolved. */
struct s3_settings {
    char profile[128]; /**< options' profile, else AWS_PROFILE, else "default" */
    /** The profile was named in the options: pass it to s3_credentials_resolve, which then
     *  skips the environment; otherwise pass NULL. */
    bool profile_from_options;
    char region[64];    /**< options, AWS_REGION, AWS_DEFAULT_REGION, config file, else us-east-1 */
    char endpoint[512]; /**< "" for AWS; else "http[s]://host[:port]" from the options,
                             AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or the config file */
    /** Path-style addressing (http://host/bucket/key). From the options' path_style, else the
     *  config file's "s3 = / addressing_style = path|virtual", else on exactly when an endpoint
     *  is set (S3-compatible stores on an IP address or without wildcard DNS need it). */
    bool path_style;
};

/**
 * Resolve credentials in the AWS SDK order: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with
 * AWS_SESSION_TOKEN) from the environment; then the [profile] section of the shared credentials
 * file (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials); then the "[profile NAME]" section
 * ("[default]" for the default profile) of the config file (AWS_CONFIG_FILE, else ~/.aws/config).
 * profile NULL or "" means AWS_PROFILE, else "default", and starts with the environment; a profile
 * named here (the options' profile, s3_settings.profile_from_options) skips the environment, as the
 * AWS CLI's --profile and the SDKs' explicit profile do. Returns 0; -EINVAL when only half of a key
 * pair is set somewhere, a named profile exists in neither file, or a file cannot be parsed;
 * -ENOENT when nothing was found. err then says what was tried.
 */
int s3_credentials_resolve(const char *profile, struct s3_credentials *out, char *err,
                           size_t err_size);

/**
 * Fill settings from the options string ("key=value;key=value", keys profile, region, endpoint,
 * path_style), the environment and the config file, in that order of precedence. NULL or ""
 * options mean none. Returns 0, or -EINVAL with a message in err for an unknown key, a malformed
 * pair, a bad boolean, an endpoint without http:// or https:// or with a path, or a value too long.
 */
int s3_settings_resolve(const char *options, struct s3_settings *out, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
