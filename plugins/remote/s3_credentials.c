/* Credentials and settings for S3 requests, looked up where the AWS SDKs look, in their order, so
 * that a machine set up for the AWS CLI works unchanged. */
#include "s3_credentials.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "s3_error.h"
#include "s3_profile_file.h"

static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

static int copy_field(char *dest, size_t size, const char *value)
{
    int n = snprintf(dest, size, "%s", value);
    return n >= 0 && (size_t)n < size ? 0 : -EINVAL;
}

/* The default profile is "[default]" in both files; a named one is "[NAME]" in the credentials
 * file and "[profile NAME]" in the config file, where "[profile default]" also names the default.
 */
static int read_profile(int config, const char *profile, const char *path,
                        struct s3_profile_values *v, char *err, size_t err_size)
{
    char section[200];
    snprintf(section, sizeof(section), "%s%.128s", config ? "profile " : "", profile);
    if (config && strcmp(profile, "default") == 0) {
        int rc = s3_profile_file_read(path, "default", v, err, err_size);
        if (rc != 0)
            return rc;
    }
    return s3_profile_file_read(path, section, v, err, err_size);
}

static void set_source(struct s3_credentials *out, const char *what, const char *path,
                       const char *profile)
{
    int n = snprintf(out->source, sizeof(out->source), "%s %s [%s]", what, path, profile);
    if (n < 0 || (size_t)n >= sizeof(out->source))
        snprintf(out->source, sizeof(out->source), "%s [%.64s]", what, profile);
}

/* 1 when the profile held a key pair (copied to out), 0 when it held none, -EINVAL otherwise. */
static int take_profile_keys(const struct s3_profile_values *v, const char *path,
                             const char *profile, struct s3_credentials *out, char *err,
                             size_t err_size)
{
    bool has_id = v->access_key_id[0], has_secret = v->secret_access_key[0];
    if (!has_id && !has_secret)
        return 0;
    if (has_id != has_secret)
        return s3_fail(-EINVAL, err, err_size, "%s [%s] sets %s but not %s", path, profile,
                       has_id ? "aws_access_key_id" : "aws_secret_access_key",
                       has_id ? "aws_secret_access_key" : "aws_access_key_id");
    memcpy(out->access_key_id, v->access_key_id, sizeof(out->access_key_id));
    memcpy(out->secret_access_key, v->secret_access_key, sizeof(out->secret_access_key));
    memcpy(out->session_token, v->session_token, sizeof(out->session_token));
    return 1;
}

static int credentials_from_environment(struct s3_credentials *out, char *err, size_t err_size)
{
    const char *id = env_value("AWS_ACCESS_KEY_ID");
    const char *secret = env_value("AWS_SECRET_ACCESS_KEY");
    const char *token = env_value("AWS_SESSION_TOKEN");
    if (!id && !secret)
        return 0;
    if (!id || !secret)
        return s3_fail(-EINVAL, err, err_size, "%s is set in the environment but %s is not",
                       id ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
                       id ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID");
    if (copy_field(out->access_key_id, sizeof(out->access_key_id), id) < 0 ||
        copy_field(out->secret_access_key, sizeof(out->secret_access_key), secret) < 0 ||
        copy_field(out->session_token, sizeof(out->session_token), token ? token : "") < 0)
        return s3_fail(-EINVAL, err, err_size,
                       "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or AWS_SESSION_TOKEN in the "
                       "environment is too long");
    snprintf(out->source, sizeof(out->source), "environment");
    return 1;
}

int s3_credentials_resolve(const char *profile, struct s3_credentials *out, char *err,
                           size_t err_size)
{
    memset(out, 0, sizeof(*out));
    if (err_size > 0)
        err[0] = '\0';
    bool named = profile && profile[0];
    if (!named)
        profile = env_value("AWS_PROFILE") ? env_value("AWS_PROFILE") : "default";
    if (strlen(profile) >= sizeof(((struct s3_settings *)0)->profile))
        return s3_fail(-EINVAL, err, err_size, "profile name '%.32s...' is too long", profile);

    int rc = 0;
    if (!named) {
        rc = credentials_from_environment(out, err, err_size);
        if (rc != 0)
            return rc < 0 ? rc : 0;
    }

    char paths[2][PATH_MAX];
    bool found[2] = {false, false};
    char unsupported[64] = "";
    static const char *const what[2] = {"shared credentials file", "config file"};
    for (int config = 0; config < 2; config++) {
        rc = s3_profile_file_path(config, paths[config], sizeof(paths[config]));
        if (rc < 0)
            return s3_fail(rc, err, err_size, "cannot locate the AWS %s: %s", what[config],
                           strerror(-rc));
        struct s3_profile_values *v = malloc(sizeof(*v));
        if (!v)
            return s3_fail(-ENOMEM, err, err_size, "out of memory reading %s", paths[config]);
        rc = read_profile(config, profile, paths[config], v, err, err_size);
        if (rc > 0) {
            found[config] = true;
            rc = take_profile_keys(v, paths[config], profile, out, err, err_size);
            if (!unsupported[0])
                memcpy(unsupported, v->unsupported_key, sizeof(unsupported));
        }
        free(v);
        if (rc < 0) {
            memset(out, 0, sizeof(*out));
            return rc;
        }
        if (rc > 0) {
            set_source(out, what[config], paths[config], profile);
            return 0;
        }
    }
    if (strcmp(profile, "default") != 0 && !found[0] && !found[1])
        return s3_fail(-EINVAL, err, err_size, "AWS profile '%s' is in neither %s nor %s", profile,
                       paths[0], paths[1]);
    if (unsupported[0])
        return s3_fail(-ENOENT, err, err_size,
                       "AWS profile '%s' gets its credentials through %s, which is not "
                       "supported; set aws_access_key_id and aws_secret_access_key, or the "
                       "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY environment variables",
                       profile, unsupported);
    return s3_fail(-ENOENT, err, err_size,
                   "no S3 credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set, "
                   "and profile '%s' has no aws_access_key_id in %s or %s",
                   profile, paths[0], paths[1]);
}

/* Options given with the file: NULL fields were not given; path_style -1 when not given. */
struct s3_options {
    char profile[128];
    char region[64];
    char endpoint[512];
    int path_style;
    bool has_profile, has_region, has_endpoint;
};

static int parse_bool(const char *v)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return 1;
        if (strcasecmp(v, no[i]) == 0)
            return 0;
    }
    return -1;
}

static char *trim_blanks(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

static int parse_options(const char *options, struct s3_options *o, char *err, size_t err_size)
{
    memset(o, 0, sizeof(*o));
    o->path_style = -1;
    if (!options || !options[0])
        return 0;
    char *copy = strdup(options);
    if (!copy)
        return s3_fail(-ENOMEM, err, err_size, "out of memory parsing S3 options");
    int rc = 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) {
            if (trim_blanks(item)[0] == '\0')
                continue;
            rc = s3_fail(-EINVAL, err, err_size, "S3 option '%s' is not key=value",
                         trim_blanks(item));
            break;
        }
        *eq = '\0';
        char *key = trim_blanks(item), *value = trim_blanks(eq + 1);
        char *dest = NULL;
        size_t size = 0;
        if (strcmp(key, "profile") == 0) {
            dest = o->profile, size = sizeof(o->profile), o->has_profile = true;
        } else if (strcmp(key, "region") == 0) {
            dest = o->region, size = sizeof(o->region), o->has_region = true;
        } else if (strcmp(key, "endpoint") == 0) {
            dest = o->endpoint, size = sizeof(o->endpoint), o->has_endpoint = true;
        } else if (strcmp(key, "path_style") == 0) {
            o->path_style = parse_bool(value);
            if (o->path_style < 0) {
                rc = s3_fail(-EINVAL, err, err_size,
                             "S3 option path_style='%s' is not a boolean (true or false)", value);
                break;
            }
            continue;
        } else {
            rc = s3_fail(-EINVAL, err, err_size,
                         "unknown S3 option '%s' (known: profile, region, endpoint, path_style)",
                         key);
            break;
        }
        if (copy_field(dest, size, value) < 0) {
            rc = s3_fail(-EINVAL, err, err_size, "S3 option %s is longer than %zu bytes", key,
                         size - 1);
            break;
        }
    }
    free(copy);
    return rc;
}

static int check_region(const char *region, char *err, size_t err_size)
{
    if (!region[0])
        return s3_fail(-EINVAL, err, err_size, "S3 region is empty");
    for (const char *p = region; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
            return s3_fail(-EINVAL, err, err_size,
                           "S3 region '%s' may hold only lowercase letters, digits and '-'",
                           region);
    return 0;
}

/* http[s]://host[:port] with at most a trailing '/', which is dropped. */
static int check_endpoint(char *endpoint, const char *from, char *err, size_t err_size)
{
    size_t skip;
    if (strncmp(endpoint, "https://", 8) == 0)
        skip = 8;
    else if (strncmp(endpoint, "http://", 7) == 0)
        skip = 7;
    else
        return s3_fail(-EINVAL, err, err_size,
                       "S3 endpoint '%s' (from %s) must begin with http:// or https://", endpoint,
                       from);
    char *rest = endpoint + skip;
    size_t host = strcspn(rest, "/?#");
    if (host == 0 || (rest[host] && strcmp(rest + host, "/") != 0))
        return s3_fail(-EINVAL, err, err_size,
                       "S3 endpoint '%s' (from %s) must be scheme://host[:port] with no path",
                       endpoint, from);
    rest[host] = '\0';
    return 0;
}

/* The first set value of a precedence list, with the name of where it came from. */
static const char *first_of(const char *const *values, const char *const *names, size_t n,
                            const char **from)
{
    for (size_t i = 0; i < n; i++) {
        if (values[i] && values[i][0]) {
            *from = names[i];
            return values[i];
        }
    }
    return NULL;
}

int s3_settings_resolve(const char *options, struct s3_settings *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof(*out));
    if (err_size > 0)
        err[0] = '\0';
    struct s3_options o;
    int rc = parse_options(options, &o, err, err_size);
    if (rc < 0)
        return rc;

    out->profile_from_options = o.has_profile && o.profile[0];
    const char *profile = out->profile_from_options ? o.profile : env_value("AWS_PROFILE");
    if (copy_field(out->profile, sizeof(out->profile), profile ? profile : "default") < 0)
        return s3_fail(-EINVAL, err, err_size, "AWS_PROFILE is too long");

    char path[PATH_MAX];
    struct s3_profile_values *v = calloc(1, sizeof(*v));
    if (!v)
        return s3_fail(-ENOMEM, err, err_size, "out of memory reading the AWS config file");
    rc = s3_profile_file_path(1, path, sizeof(path));
    if (rc == 0)
        rc = read_profile(1, out->profile, path, v, err, err_size);
    else
        rc = 0; /* no home directory: the config file is simply absent */
    if (rc < 0)
        goto out;

    const char *from = NULL;
    const char *regions[] = {o.region, env_value("AWS_REGION"), env_value("AWS_DEFAULT_REGION"),
                             v->region};
    static const char *const region_names[] = {"options", "AWS_REGION", "AWS_DEFAULT_REGION",
                                               "config file"};
    const char *region = first_of(regions, region_names, 4, &from);
    if (copy_field(out->region, sizeof(out->region), region ? region : "us-east-1") < 0) {
        rc = s3_fail(-EINVAL, err, err_size, "S3 region from %s is too long", from);
        goto out;
    }
    if ((rc = check_region(out->region, err, err_size)) < 0)
        goto out;

    const char *endpoints[] = {o.endpoint, env_value("AWS_ENDPOINT_URL_S3"),
                               env_value("AWS_ENDPOINT_URL"), v->endpoint_url};
    static const char *const endpoint_names[] = {"options", "AWS_ENDPOINT_URL_S3",
                                                 "AWS_ENDPOINT_URL", "config file"};
    const char *endpoint = first_of(endpoints, endpoint_names, 4, &from);
    if (endpoint) {
        if (copy_field(out->endpoint, sizeof(out->endpoint), endpoint) < 0) {
            rc = s3_fail(-EINVAL, err, err_size, "S3 endpoint from %s is too long", from);
            goto out;
        }
        if ((rc = check_endpoint(out->endpoint, from, err, err_size)) < 0)
            goto out;
    }

    if (o.path_style >= 0) {
        out->path_style = o.path_style;
    } else if (strcmp(v->addressing_style, "path") == 0) {
        out->path_style = true;
    } else if (strcmp(v->addressing_style, "virtual") == 0) {
        out->path_style = false;
    } else if (v->addressing_style[0] && strcmp(v->addressing_style, "auto") != 0) {
        rc = s3_fail(-EINVAL, err, err_size,
                     "addressing_style '%s' in %s is not path, virtual or auto",
                     v->addressing_style, path);
        goto out;
    } else {
        out->path_style = out->endpoint[0] != '\0';
    }
    rc = 0;
out:
    free(v);
    if (rc < 0) {
        struct s3_settings keep = *out;
        memset(out, 0, sizeof(*out));
        memcpy(out->profile, keep.profile, sizeof(out->profile));
        out->profile_from_options = keep.profile_from_options;
    }
    return rc;
}
