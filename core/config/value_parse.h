/*
 * One value read from where settings come from, checked against its row: the config file (as
 * libconfig parsed it) or an environment variable, for the core's table and the keys plugins
 * declare alike. Also what the messages about them share: where a key sits in the file, what a
 * libconfig type is called, the closest known name to a misspelled one. Private to core/config/.
 */
#ifndef HF_CORE_VALUE_PARSE_H
#define HF_CORE_VALUE_PARSE_H

#include <libconfig.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/kept.h"
#include "config/settings.h"

/** A config file as libconfig parsed it, with where it was read from. Never freed once published.
 */
struct hf_config_file {
    config_t cfg;     /**< the parsed file (empty without one) */
    bool parsed;      /**< cfg holds a file */
    const char *path; /**< the file, NULL for defaults */
    const char *dir;  /**< its directory, where @include paths and relative paths start */
};

/** Room for "file:line" in messages. */
struct hf_config_where {
    char text[PATH_MAX + 32]; /**< the formatted location */
};

/** "file:line" of @p cs, naming included files by the path that was opened. */
const char *hf_config_where(const config_setting_t *cs, const struct hf_config_file *file,
                            struct hf_config_where *where);
/** Path of @p name (as libconfig recorded an included file) relative to @p file's directory. */
const char *hf_config_join_dir(const struct hf_config_file *file, const char *name, char *buf,
                               size_t size);
/** "an integer", "a string", ... for a libconfig type. */
const char *hf_config_type_phrase(int config_type);

/**
 * The candidate closest to @p word when it is close enough to be a likely misspelling (a few
 * letters added, dropped, changed or swapped), else NULL. For "did you mean" hints.
 */
const char *hf_config_suggest(const char *word, const char *const *candidates, size_t count);

/**
 * Check the file's value @p cs of row @p s (int, bool, string or enum: the core's table or a
 * plugin's declaration) into *num_p (int, bool 0/1, enum index) or *text_p (string; a relative
 * path of a path setting is joined to the file's directory). Returns 0, or -EINVAL after an error
 * line naming file:line, the key and what it accepts.
 */
int hf_setting_value_from_file(const struct hf_setting *s, const config_setting_t *cs,
                               const struct hf_config_file *file, int64_t *num_p,
                               const char **text_p);
/**
 * Check @p value of row @p s's variable as hf_setting_value_from_file does the file's; an error
 * names the variable and records it as what the load failed on.
 */
int hf_setting_value_from_env(const struct hf_setting *s, const char *value, int64_t *num_p,
                              const char **text_p);

/** Log that the file gives @p cs, of row @p s, a value of the wrong type; returns -EINVAL. */
int hf_setting_file_type_error(const struct hf_setting *s, const config_setting_t *cs,
                               const struct hf_config_file *file);
/** Log that variable @p s->decl.env holds a value @p s does not accept, record it as what the load
 * failed on; returns -EINVAL. */
int hf_setting_env_error(const struct hf_setting *s, const char *value);

#endif
