/*
 * hipfile-check: what the parts of the tool share. The tool links the core's static archive and
 * asks the core what the library would do through core/introspect/introspect.h alone, so the report cannot
 * drift from the library's behaviour.
 */
#ifndef HF_CHECK_H
#define HF_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "introspect/introspect.h"

/**
 * The HIP provider this build links ("hip-cuda", "libamdhip64"), or "none": gpu.runtime = "auto"
 * prefers a provider the program has loaded, so the build decides what auto finds.
 */
#ifndef HF_CHECK_PROVIDER
#define HF_CHECK_PROVIDER "none"
#endif

/** Program name in messages. */
#define CHECK_NAME "hipfile-check"

/** Exit status: GPU I/O is usable (with --explain: a backend would serve the request). */
#define CHECK_EXIT_USABLE 0
/** Exit status: GPU I/O is not usable (with --explain: no backend would serve the request). */
#define CHECK_EXIT_UNUSABLE 1
/** Exit status: bad command line, or the file named by --explain cannot be opened. */
#define CHECK_EXIT_USAGE 2

/* ---- command line ---- */

/** Memory the --explain buffer is allocated in. */
enum check_mem {
    CHECK_MEM_DEVICE, /**< hipMalloc */
    CHECK_MEM_PINNED, /**< hipHostMalloc */
    CHECK_MEM_HOST,   /**< malloc */
};

/** Kinds of enum check_mem. */
#define CHECK_MEM_KINDS 3

/** Indexed by enum check_mem: the words --mem takes, as the report writes them (explain.c). */
extern const char *const check_mem_names[CHECK_MEM_KINDS];

/** What the command line asked for. */
struct check_options {
    bool json;           /**< --json */
    bool verbose;        /**< --verbose: every captured log line, info included */
    const char *explain; /**< --explain FILE, or NULL for the platform report */
    size_t size;         /**< --size (bytes) */
    int64_t offset;      /**< --offset (bytes) */
    enum check_mem mem;  /**< --mem */
    bool write;          /**< --write */
};

/**
 * Parse @p argv into *opts_p. Returns 0 to go on, 1 when --help or --version was printed (exit
 * 0), or -EINVAL after printing what was wrong to stderr (exit CHECK_EXIT_USAGE).
 */
int check_options_parse(int argc, char **argv, struct check_options *opts_p);

/* ---- text or JSON output (emit.c) ---- */

/** Deepest nesting of sections and lists. */
#define EMIT_MAX_DEPTH 16

/**
 * One writer for both output forms, so --json carries the same content as the text report. In
 * JSON every call writes a member (keys) or an element (inside lists); in text, sections and
 * list items become headings and fields become "label: value" lines. A NULL label keeps a field
 * out of the text form (its content is already part of a text line nearby).
 */
struct emit {
    FILE *out;                        /**< where to write */
    bool json;                        /**< JSON instead of text */
    int depth;                        /**< open sections and lists */
    bool in_list[EMIT_MAX_DEPTH];     /**< whether level d is a list (no keys) */
    bool has_members[EMIT_MAX_DEPTH]; /**< whether level d has a member yet (JSON commas) */
    bool text_hidden[EMIT_MAX_DEPTH]; /**< level d has no text form (a NULL title) */
    int indent[EMIT_MAX_DEPTH];       /**< text indentation (spaces) of level d's members */
};

/** Start the document: the top-level JSON object, nothing in text. */
void emit_begin(struct emit *e, FILE *out, bool json);
/** Close every open level and the document. */
void emit_finish(struct emit *e);
/**
 * Open an object member @p key. In text: the heading @p title, its members indented below it; ""
 * gives no heading and no indentation; NULL keeps the whole section out of the text form.
 */
void emit_section(struct emit *e, const char *key, const char *title);
/** Open a list member @p key; @p title as for emit_section. */
void emit_list(struct emit *e, const char *key, const char *title);
/** Open an object element of the current list; in text a "- <title>" line. */
void emit_item(struct emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Close the innermost section, list or item. */
void emit_end(struct emit *e);
/** A string member (NULL value: JSON null, text "none"; NULL key: text only). */
void emit_str(struct emit *e, const char *key, const char *label, const char *value);
/** A formatted string member. */
void emit_strf(struct emit *e, const char *key, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** An integer member. */
void emit_int(struct emit *e, const char *key, const char *label, long long value);
/** A boolean member (text: yes/no). */
void emit_bool(struct emit *e, const char *key, const char *label, bool value);
/** A string element of the current list (text: "- value"). */
void emit_elem(struct emit *e, const char *value);
/** A line of text only: says in words what the surrounding members already carry. */
void emit_text(struct emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the core's log, captured (capture.c) ---- */

/** The log pointed at an unlinked temporary file, so the tool can quote what the core said. */
struct capture {
    int fd;        /**< the temporary file, -1 when not capturing */
    char path[64]; /**< /proc/self/fd/<fd>, the name handed to hf_log_set_file */
};

/**
 * Point the core's log at a fresh unlinked temporary file (under $TMPDIR or /tmp) and lower the
 * threshold to @p level. Returns 0 or -errno (logging then stays where it was).
 */
int capture_start(struct capture *c, int level);
/**
 * Point the log back at the capture after something (a config load) may have moved it, and set
 * the threshold to @p level again.
 */
void capture_resume(const struct capture *c, int level);
/** Bytes captured so far: marks where a step's lines begin. */
off_t capture_mark(const struct capture *c);
/**
 * The captured text from @p from to the current end, NUL-terminated, in a malloc'd buffer the
 * caller frees; NULL without memory or capture.
 */
char *capture_text(const struct capture *c, off_t from);
/** Send the log back to standard error and drop the file. */
void capture_stop(struct capture *c);

/** One parsed log line: "hipfile[<tag>] <level>: <message>". */
struct log_line {
    const char *text;    /**< the whole line */
    size_t text_len;     /**< its length, without the newline */
    const char *tag;     /**< start of the tag */
    size_t tag_len;      /**< its length */
    int level;           /**< enum hf_log_level, -1 when the line has another form */
    const char *message; /**< start of the message */
    size_t message_len;  /**< its length, without the newline */
};

/**
 * Parse the line starting at *cursor_p (inside a NUL-terminated text, or NULL) and advance the
 * cursor past it. Returns false at the end of the text.
 */
bool log_line_next(const char **cursor_p, struct log_line *line_p);

/* ---- setting up (setup.c) and the platform report (settings.c, report.c) ---- */

/** What setting up the library the way hipFileDriverOpen does gave. */
struct check_setup {
    struct capture capture; /**< the core's log lines */
    int config_rc;          /**< hf_introspect_config_load */
    char *config_log;       /**< what the core logged while loading the config */
    int gpu_rc;             /**< hf_introspect_gpu_bind, or 1 when not attempted */
    char *gpu_log;          /**< what the core logged while binding the runtime */
    /**
     * gpu.runtime was "auto", no runtime reported a device, and this plain build (which links no
     * provider) bound the host emulation built beside it instead, as a program linked with
     * libhip-host would. The library never does this by itself (docs/decisions.rst).
     */
    bool host_fallback;
    char *auto_log;          /**< what "auto" logged before the fallback, NULL without one */
    char host_library[4096]; /**< the file of the host provider the fallback bound */
    int loader_rc;           /**< hf_introspect_plugins_load, or 1 when not attempted */
    char *loader_log;        /**< what the core and the plugins logged while loading */
    char *explain_log;       /**< what was logged while explaining a request */
};

/** Load the config, bind the runtime and load the plugins, capturing the core's log. */
void check_setup_run(struct check_setup *s);
/** Stop capturing and free what check_setup_run kept. */
void check_setup_free(struct check_setup *s);
/**
 * Why the library could not be set up (config, runtime or plugin directory), in one sentence in
 * @p buf; NULL when setup succeeded.
 */
const char *check_setup_problem(const struct check_setup *s, char *buf, size_t size);
/** Whether a device memory request could be served: runtime with a device, a backend for it. */
bool check_gpu_io_usable(const struct check_setup *s);
/** The library version, the configuration and the runtime (settings.c). */
void report_platform(struct emit *e, const struct check_setup *s);
/** Every setting of the table with its value and where the value came from (settings.c). */
void report_settings(struct emit *e, const struct check_setup *s);
/**
 * Every key each loaded backend declares, with its value and where the value came from
 * (settings.c); a backend that declares no table says so.
 */
void report_plugin_settings(struct emit *e, const struct check_setup *s);
/** Every manifest in the plugin directory and what became of it. */
void report_plugins(struct emit *e, const struct check_setup *s);
/** Each loaded backend. */
void report_backends(struct emit *e, const struct check_setup *s);
/** What became of one manifest of the plugin directory (report.c). */
struct manifest_result {
    char file[256];                            /**< its file name */
    char path[4096];                           /**< its path */
    bool valid;                                /**< it parsed and matched the schema */
    struct hf_introspect_manifest m;           /**< what it says, when valid */
    bool enabled;                              /**< plugins.enable lets it load */
    bool loaded;                               /**< its backend is loaded */
    char reason[HF_INTROSPECT_WHY_SIZE + 256]; /**< why not, when not loaded */
};
/**
 * Every manifest of plugin directory @p dir, in the loader's order, into *results_p (malloc'd,
 * the caller frees). Returns the count, or -errno when the directory cannot be read.
 */
int manifest_results(const struct check_setup *s, const char *dir,
                     struct manifest_result **results_p);
/** "off", "allow" or "force". */
const char *compat_mode_name(enum hf_introspect_compat mode);
/** Warnings and errors the core logged (with @p verbose, every line). */
void report_messages(struct emit *e, const struct check_setup *s, bool verbose);
/** The conclusion, with every problem and its fix (verdict.c); returns the exit status. */
int report_verdict(struct emit *e, const struct check_setup *s);

/* ---- --explain (explain.c) ---- */

/**
 * Open opts->explain as a request of its kind would need it (read-only, or read-write for
 * --write). Returns the descriptor, or -errno after saying why on stderr.
 */
int explain_open(const struct check_options *opts);
/**
 * Register the file open at @p fd and a buffer of opts->mem, build the request the core would
 * build and print the selector's verdict for every backend. Returns the exit status.
 */
int explain_request(struct emit *e, struct check_setup *s, const struct check_options *opts,
                    int fd);

/* ---- log helpers (setup.c) ---- */

/** The message of the last error line in @p log (the core's own words), copied to @p buf; NULL
 * when @p log has no error line. */
char *log_last_error(const char *log, char *buf, size_t size);

#endif
