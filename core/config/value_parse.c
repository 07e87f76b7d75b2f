/*
 * Values from the file and the environment, checked against their rows: the one place every key,
 * the core's or a plugin's, is parsed and every mistake about a value is worded.
 */
#include "config/value_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "config/kept.h"

/* ---- words for messages -------------------------------------------------------------------- */

const char *hf_config_type_phrase(int config_type)
{
    switch (config_type) {
    case CONFIG_TYPE_GROUP:
        return "a group";
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
        return "an integer";
    case CONFIG_TYPE_FLOAT:
        return "a floating-point number";
    case CONFIG_TYPE_STRING:
        return "a string";
    case CONFIG_TYPE_BOOL:
        return "a boolean";
    case CONFIG_TYPE_ARRAY:
        return "an array";
    case CONFIG_TYPE_LIST:
        return "a list";
    }
    return "empty";
}

/*
 * libconfig records an included file by the name written after @include, which is relative to the
 * config file's directory; messages name the path it actually opened.
 */
const char *hf_config_join_dir(const struct hf_config_file *file, const char *name, char *buf,
                               size_t size)
{
    if (name == NULL)
        return file->path;
    if (name[0] == '/' || file->dir == NULL)
        return name;
    snprintf(buf, size, "%s/%s", file->dir, name);
    return buf;
}

const char *hf_config_where(const config_setting_t *cs, const struct hf_config_file *file,
                            struct hf_config_where *where)
{
    char path[PATH_MAX];
    const char *name = hf_config_join_dir(file, config_setting_source_file(cs), path, sizeof(path));
    snprintf(where->text, sizeof(where->text), "%s:%u", name, config_setting_source_line(cs));
    return where->text;
}

/* Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return SIZE_MAX;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

const char *hf_config_suggest(const char *word, const char *const *candidates, size_t count)
{
    /* A few edits for long names, fewer for short ones, where a few edits make any other word. */
    size_t len = strlen(word);
    size_t limit = len >= 8 ? 3 : len >= 4 ? 2 : 1;
    const char *best = NULL;
    size_t best_distance = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
        size_t distance = edit_distance(word, candidates[i]);
        if (distance > 0 && distance <= limit && distance < best_distance) {
            best = candidates[i];
            best_distance = distance;
        }
    }
    return best;
}

/* ---- the config file ----------------------------------------------------------------------- */

int hf_setting_file_type_error(const struct hf_setting *s, const config_setting_t *cs,
                               const struct hf_config_file *file)
{
    struct hf_config_where w;
    char allowed[256];
    hf_error("%s: %s is %s; expected %s", hf_config_where(cs, file, &w), s->decl.key,
             hf_config_type_phrase(config_setting_type(cs)),
             hf_setting_describe(s, allowed, sizeof(allowed)));
    return -EINVAL;
}

static int file_value_error(const struct hf_setting *s, const config_setting_t *cs,
                            const struct hf_config_file *file)
{
    struct hf_config_where w;
    char allowed[256];
    char value[128];
    if (config_setting_type(cs) == CONFIG_TYPE_STRING)
        snprintf(value, sizeof(value), "\"%s\"", config_setting_get_string(cs));
    else
        snprintf(value, sizeof(value), "%lld", config_setting_get_int64(cs));
    hf_error("%s: %s = %s is out of range; expected %s", hf_config_where(cs, file, &w), s->decl.key,
             value, hf_setting_describe(s, allowed, sizeof(allowed)));
    return -EINVAL;
}

/* A relative path in the file names a place beside the file, never one in the current directory. */
static int file_path_resolve(const struct hf_setting *s, const config_setting_t *cs,
                             const struct hf_config_file *file, const char **text_p)
{
    char joined[PATH_MAX];
    if (snprintf(joined, sizeof(joined), "%s/%s", file->dir != NULL ? file->dir : "", *text_p) >=
        (int)sizeof(joined)) {
        struct hf_config_where w;
        hf_error("%s: %s: the path is too long once joined to %s", hf_config_where(cs, file, &w),
                 s->decl.key, file->dir);
        return -ENAMETOOLONG;
    }
    *text_p = hf_config_keep_string(joined);
    return *text_p != NULL ? 0 : -ENOMEM;
}

int hf_setting_value_from_file(const struct hf_setting *s, const config_setting_t *cs,
                               const struct hf_config_file *file, int64_t *num_p,
                               const char **text_p)
{
    int type = config_setting_type(cs);
    enum hf_setting_type want = hf_setting_type(s);
    bool fits = want == HF_TYPE_INT    ? type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64
                : want == HF_TYPE_BOOL ? type == CONFIG_TYPE_BOOL
                                       : type == CONFIG_TYPE_STRING;
    if (!fits || want == HF_TYPE_LIST || want == HF_TYPE_MAP)
        return hf_setting_file_type_error(s, cs, file);
    switch (want) {
    case HF_TYPE_INT:
        *num_p = config_setting_get_int64(cs);
        return hf_setting_int_ok(s, *num_p) ? 0 : file_value_error(s, cs, file);
    case HF_TYPE_BOOL:
        *num_p = config_setting_get_bool(cs);
        return 0;
    case HF_TYPE_ENUM:
        *num_p = hf_setting_parse_enum(s, config_setting_get_string(cs));
        return *num_p >= 0 ? 0 : file_value_error(s, cs, file);
    default:
        *text_p = config_setting_get_string(cs);
        if (!hf_setting_string_ok(s, *text_p))
            return file_value_error(s, cs, file);
        return hf_setting_path_is_relative(s, *text_p) ? file_path_resolve(s, cs, file, text_p) : 0;
    }
}

/* ---- the environment ----------------------------------------------------------------------- */

int hf_setting_env_error(const struct hf_setting *s, const char *value)
{
    char allowed[256];
    hf_config_failure_set("the environment variable", s->decl.env);
    hf_error("environment %s=\"%s\" is not valid for %s; expected %s", s->decl.env, value,
             s->decl.key, hf_setting_describe(s, allowed, sizeof(allowed)));
    return -EINVAL;
}

int hf_setting_value_from_env(const struct hf_setting *s, const char *value, int64_t *num_p,
                              const char **text_p)
{
    switch (hf_setting_type(s)) {
    case HF_TYPE_INT: {
        char *end;
        errno = 0;
        long long v = strtoll(value, &end, 0);
        if (errno != 0 || end == value || *end != '\0' || !hf_setting_int_ok(s, v))
            return hf_setting_env_error(s, value);
        *num_p = v;
        return 0;
    }
    case HF_TYPE_BOOL:
        *num_p = hf_setting_parse_bool(value);
        return *num_p >= 0 ? 0 : hf_setting_env_error(s, value);
    case HF_TYPE_ENUM:
        *num_p = hf_setting_parse_enum(s, value);
        return *num_p >= 0 ? 0 : hf_setting_env_error(s, value);
    case HF_TYPE_STRING:
        if (!hf_setting_string_ok(s, value))
            return hf_setting_env_error(s, value);
        if (hf_setting_path_is_relative(s, value)) {
            hf_config_failure_set("the environment variable", s->decl.env);
            hf_error("environment %s=\"%s\" is a relative path; %s needs an absolute one",
                     s->decl.env, value, s->decl.key);
            return -EINVAL;
        }
        *text_p = hf_config_keep_string(value);
        return *text_p != NULL ? 0 : -ENOMEM;
    default:
        return -EINVAL;
    }
}
