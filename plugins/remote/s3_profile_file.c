/* AWS shared credentials and config files: the INI dialect the AWS CLI writes, read one profile
 * section at a time. */
#include "s3_profile_file.h"
#include "s3_error.h"

#include "common/regular_file.h"

#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Copies with runs of blanks made one space, so "[profile   dev]" names profile dev. */
static void collapse_blanks(const char *in, char *out, size_t out_size)
{
    size_t o = 0;
    bool blank = false;
    for (; *in && o + 1 < out_size; in++) {
        if (isspace((unsigned char)*in)) {
            blank = true;
            continue;
        }
        if (blank && o > 0)
            out[o++] = ' ';
        blank = false;
        if (o + 1 < out_size)
            out[o++] = *in;
    }
    out[o] = '\0';
}

struct key_slot {
    const char *key;
    size_t offset;
    size_t size;
};

#define SLOT(k, field)                                                                             \
    {                                                                                              \
        k, offsetof(struct s3_profile_values, field),                                              \
            sizeof(((struct s3_profile_values *)0)->field)                                         \
    }

/* Keys kept from a profile. The s3 sub-key endpoint_url is more specific than the profile's
 * endpoint_url wherever either stands in the file, so store_value keeps it apart. */
static const struct key_slot slots[] = {
    SLOT("aws_access_key_id", access_key_id), SLOT("aws_secret_access_key", secret_access_key),
    SLOT("aws_session_token", session_token), SLOT("region", region),
    SLOT("endpoint_url", endpoint_url),       SLOT("s3.addressing_style", addressing_style),
};

static const char *const unsupported_keys[] = {
    "role_arn",      "credential_process",      "sso_session",
    "sso_start_url", "web_identity_token_file", "credential_source",
};

static int store_value(struct s3_profile_values *out, const char *key, const char *value,
                       char *s3_endpoint, size_t s3_endpoint_size, const char *path,
                       unsigned line_no, char *err, size_t err_size)
{
    char *dest = NULL;
    size_t size = 0;
    if (strcmp(key, "s3.endpoint_url") == 0) {
        dest = s3_endpoint;
        size = s3_endpoint_size;
    }
    for (size_t i = 0; !dest && i < sizeof(slots) / sizeof(slots[0]); i++) {
        if (strcmp(key, slots[i].key) == 0) {
            dest = (char *)out + slots[i].offset;
            size = slots[i].size;
        }
    }
    for (size_t i = 0; i < sizeof(unsupported_keys) / sizeof(unsupported_keys[0]); i++)
        if (strcmp(key, unsupported_keys[i]) == 0 && !out->unsupported_key[0])
            snprintf(out->unsupported_key, sizeof(out->unsupported_key), "%.40s", key);
    if (!dest)
        return 0;
    if (strlen(value) >= size)
        return s3_fail(-EINVAL, err, err_size, "%s line %u: value of %s is longer than %zu bytes",
                       path, line_no, key, size - 1);
    memcpy(dest, value, strlen(value) + 1);
    return 0;
}

int s3_profile_file_read(const char *path, const char *section, struct s3_profile_values *out,
                         char *err, size_t err_size)
{
    memset(out, 0, sizeof(*out));
    /* The paths come from the environment: a FIFO there must not hang the first S3 open. */
    char why[HFP_REGULAR_WHY_SIZE];
    FILE *f = hfp_fopen_regular(path, why, sizeof(why));
    if (!f) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        int e = errno;
        if (e == EINVAL)
            return s3_fail(-e, err, err_size, "%s is %s", path, why);
        return s3_fail(-e, err, err_size, "cannot read %s: %s", path, strerror(e));
    }
    char wanted[256];
    collapse_blanks(section, wanted, sizeof(wanted));
    char s3_endpoint[512] = "";
    char parent[64] = ""; /* key with an empty value, whose indented lines are its sub-keys */
    bool in_section = false, found = false;
    char *line = NULL;
    size_t cap = 0;
    unsigned line_no = 0;
    int rc = 0;
    while (getline(&line, &cap, f) >= 0) {
        line_no++;
        bool indented = isspace((unsigned char)line[0]) && line[0] != '\n' && line[0] != '\r';
        char *s = trim(line);
        if (*s == '\0' || *s == '#' || *s == ';')
            continue;
        if (*s == '[') {
            char *close = strrchr(s, ']');
            if (!close || close[1] != '\0') {
                rc = s3_fail(-EINVAL, err, err_size, "%s line %u: unterminated [section]", path,
                             line_no);
                break;
            }
            *close = '\0';
            char name[256];
            collapse_blanks(s + 1, name, sizeof(name));
            in_section = strcmp(name, wanted) == 0;
            /* A repeated section continues the first, as the AWS CLI reads it. */
            found = found || in_section;
            parent[0] = '\0';
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = s3_fail(-EINVAL, err, err_size,
                         "%s line %u: expected 'key = value' or '[section]'", path, line_no);
            break;
        }
        if (!in_section)
            continue;
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        char full[160];
        if (indented && parent[0]) {
            snprintf(full, sizeof(full), "%s.%.64s", parent, key);
        } else {
            snprintf(full, sizeof(full), "%.64s", key);
            if (*value == '\0')
                snprintf(parent, sizeof(parent), "%.60s", key);
            else
                parent[0] = '\0';
        }
        rc = store_value(out, full, value, s3_endpoint, sizeof(s3_endpoint), path, line_no, err,
                         err_size);
        if (rc < 0)
            break;
    }
    free(line);
    fclose(f);
    if (rc < 0) {
        memset(out, 0, sizeof(*out));
        return rc;
    }
    if (s3_endpoint[0])
        memcpy(out->endpoint_url, s3_endpoint, sizeof(out->endpoint_url));
    return found ? 1 : 0;
}

static int home_dir(char *out, size_t out_size)
{
    const char *home = getenv("HOME");
    if (home && home[0]) {
        int n = snprintf(out, out_size, "%s", home);
        return n >= 0 && (size_t)n < out_size ? 0 : -ENAMETOOLONG;
    }
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res) != 0 || !res || !pw.pw_dir)
        return -ENOENT;
    int n = snprintf(out, out_size, "%s", pw.pw_dir);
    return n >= 0 && (size_t)n < out_size ? 0 : -ENAMETOOLONG;
}

int s3_profile_file_path(int config, char *path, size_t path_size)
{
    const char *given = getenv(config ? "AWS_CONFIG_FILE" : "AWS_SHARED_CREDENTIALS_FILE");
    const char *p = given && given[0] ? given : config ? "~/.aws/config" : "~/.aws/credentials";
    int n;
    if (strncmp(p, "~/", 2) == 0) {
        char home[2048];
        int rc = home_dir(home, sizeof(home));
        if (rc < 0)
            return rc;
        n = snprintf(path, path_size, "%s/%s", home, p + 2);
    } else {
        n = snprintf(path, path_size, "%s", p);
    }
    return n >= 0 && (size_t)n < path_size ? 0 : -ENAMETOOLONG;
}
