/*
 * Whole numbers, byte counts and words as the tools' command lines write them, and the default
 * of --progress. Refusing a leading '-' matters: strtoull would take "-1" as the largest number.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/cmdline.h"

const struct tool_size_syntax tool_size_syntax_kmg = {.base = 0, .units = "KMG"};

int tool_parse_uint(const char *text, int base, uint64_t *value_p, const char **end_p)
{
    char *end;
    if (text[0] == '-')
        return -1;
    errno = 0;
    unsigned long long value = strtoull(text, &end, base);
    if (end == text || errno != 0)
        return -1;
    *value_p = value;
    *end_p = end;
    return 0;
}

enum tool_size_status tool_parse_size(const char *text, const struct tool_size_syntax *syntax,
                                      uint64_t max, uint64_t *bytes_p)
{
    uint64_t value;
    const char *end;
    if (tool_parse_uint(text, syntax->base, &value, &end) != 0)
        return TOOL_SIZE_NOT_A_NUMBER;
    unsigned shift = 0;
    if (*end != '\0') {
        const char *unit = strchr(syntax->units, toupper((unsigned char)*end));
        if (unit == NULL)
            return TOOL_SIZE_UNKNOWN_UNIT;
        shift = 10u * (unsigned)(unit - syntax->units + 1);
        end++;
        if (syntax->byte_suffix && (strcasecmp(end, "iB") == 0 || strcasecmp(end, "B") == 0))
            end += strlen(end);
    }
    if (*end != '\0')
        return TOOL_SIZE_TRAILING;
    if (value > (max >> shift))
        return TOOL_SIZE_TOO_LARGE;
    *bytes_p = value << shift;
    return TOOL_SIZE_OK;
}

int tool_word_index(const char *word, const char *const *words, unsigned n_words)
{
    for (unsigned i = 0; i < n_words; i++)
        if (strcmp(word, words[i]) == 0)
            return (int)i;
    return -1;
}

bool tool_progress_wanted(int setting)
{
    return setting == 1 || (setting < 0 && isatty(STDERR_FILENO));
}
