/* Reading one profile from an AWS shared credentials or config file (INI with "key = value",
 * '#' and ';' comment lines, and indented sub-keys under a key with no value, as in
 * "s3 =\n  addressing_style = path"). */
#ifndef HF_REMOTE_S3_PROFILE_FILE_H
#define HF_REMOTE_S3_PROFILE_FILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The keys of one profile section that S3 requests use; "" when absent. */
struct s3_profile_values {
    char access_key_id[128];     /**< aws_access_key_id */
    char secret_access_key[128]; /**< aws_secret_access_key */
    char session_token[4096];    /**< aws_session_token */
    char region[64];             /**< region */
    char endpoint_url[512];      /**< s3 sub-key endpoint_url, else endpoint_url */
    char addressing_style[16];   /**< s3 sub-key addressing_style: path, virtual or auto */
    /** A key naming a credential source this reader does not follow (role_arn,
     *  credential_process, sso_session, ...), for the error message; "" when none. */
    char unsupported_key[64];
};

/**
 * Read section [section] of the file at path into out (zeroed first). section is compared with
 * runs of blanks collapsed, so "profile  dev" matches "[profile dev]". Returns 1 when the section
 * exists, 0 when the file or the section does not; -EINVAL (message in err) for a malformed line
 * or a value too long, -errno when the file exists but cannot be read.
 */
int s3_profile_file_read(const char *path, const char *section, struct s3_profile_values *out,
                         char *err, size_t err_size);

/**
 * The path of the shared credentials file (config == 0: AWS_SHARED_CREDENTIALS_FILE, else
 * ~/.aws/credentials) or the config file (config != 0: AWS_CONFIG_FILE, else ~/.aws/config), with
 * a leading "~/" expanded from HOME (or the password database). 0, or -ENOENT when there is no
 * home directory to expand, -ENAMETOOLONG.
 */
int s3_profile_file_path(int config, char *path, size_t path_size);

#ifdef __cplusplus
}
#endif

#endif
