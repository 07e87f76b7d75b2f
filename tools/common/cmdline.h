/*
 * What the command lines of hipfile-bench, hipfile-cp and hipfile-check share: whole numbers,
 * byte counts with K/M/G suffixes, words of a fixed list, the --version text and
 * --progress/--no-progress. Each tool keeps its own words for what is wrong; these functions only
 * say which way a text is wrong.
 */
#ifndef HIPFILE_TOOLS_COMMON_CMDLINE_H
#define HIPFILE_TOOLS_COMMON_CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

/**
 * The --help sentence on where the configuration comes from, as every tool says it; a tool's own
 * text goes on after it on the same line.
 */
#define TOOL_HELP_CONFIG_SEARCH                                                                    \
    "The configuration is the file HIPFILE_CONFIG names, else the first that exists of the\n"      \
    "installation's own hipfile.conf (<prefix>/etc/hipfile.conf; in the build tree, the build's\n" \
    "hipfile.conf) and /etc/hipfile.conf."

/** The end of --help of the tools other than hipfile-check: the configuration and environment. */
#define TOOL_HELP_CONFIG                                                                           \
    TOOL_HELP_CONFIG_SEARCH " HIPFILE_GPU_RUNTIME and the other variables apply as\n"              \
                            "for any hipfile program; hipfile-check shows what they resolve to.\n"

/** How a tool writes byte counts on its command line. */
struct tool_size_syntax {
    int base;          /**< strtoull's base: 10, or 0 to take 0x (hex) and leading-0 (octal) too */
    const char *units; /**< unit letters, each 1024 times the one before ("KMG"), either case */
    bool byte_suffix;  /**< "B" or "iB" may follow the letter, either case ("4KiB", "4kb") */
};

/** hipfile-cp's and hipfile-check's sizes: decimal, 0x hex or leading-0 octal, then K, M or G. */
extern const struct tool_size_syntax tool_size_syntax_kmg;

/** What tool_parse_size made of a text. */
enum tool_size_status {
    TOOL_SIZE_OK,           /**< a byte count */
    TOOL_SIZE_NOT_A_NUMBER, /**< no digits, a leading '-', or more than 64 bits */
    TOOL_SIZE_UNKNOWN_UNIT, /**< the digits are followed by something that is not a unit */
    TOOL_SIZE_TRAILING,     /**< the unit is followed by something */
    TOOL_SIZE_TOO_LARGE,    /**< above the maximum once the unit is applied */
};

/**
 * The whole number at the start of @p text, in @p base (as strtoull takes it). Returns 0 with
 * *end_p after its digits, or -1 when there are no digits, @p text starts with '-', or the number
 * needs more than 64 bits.
 */
int tool_parse_uint(const char *text, int base, uint64_t *value_p, const char **end_p);

/**
 * A byte count written as @p syntax says: digits, then at most one unit letter. Stores it in
 * *bytes_p when it is at most @p max; otherwise says what is wrong with the text.
 */
enum tool_size_status tool_parse_size(const char *text, const struct tool_size_syntax *syntax,
                                      uint64_t max, uint64_t *bytes_p);

/** The index of @p word among @p n_words @p words, or -1 when it is none of them. */
int tool_word_index(const char *word, const char *const *words, unsigned n_words);

/**
 * Whether to draw a progress line, for a setting of 1 (--progress), 0 (--no-progress) or -1
 * (neither given: when standard error is a terminal).
 */
bool tool_progress_wanted(int setting);

/**
 * --version: "<program> <version built against>", then "hipfile library <version loaded>" when
 * the library can say. The program links the hipfile library.
 */
void tool_print_version(const char *program);

#endif
