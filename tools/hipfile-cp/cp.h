/*
 * hipfile-cp: copies a file through GPU memory with hipFileRead and hipFileWrite. Shared
 * declarations of its parts: options, the copy itself, verification and the progress line.
 */
#ifndef HIPFILE_CP_H
#define HIPFILE_CP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef CP_NAME
#define CP_NAME "hipfile-cp"
#endif

/** Default bytes per hipFileRead/hipFileWrite, and so the size of the GPU buffer. */
#define CP_DEFAULT_CHUNK (64ull << 20)
/** Largest accepted --chunk: the most one hipFileRead can move (0x7ffff000) rounded down. */
#define CP_MAX_CHUNK (1ull << 30)

/** The command line, parsed. */
struct cp_options {
    const char *src; /**< source path */
    const char *dst; /**< destination path, or a directory to copy into */
    uint64_t chunk;  /**< bytes per call, a multiple of 4096 */
    bool verify;     /**< compare the destination with the source afterwards */
    int progress;    /**< 1 on, 0 off, -1 when standard error is a terminal */
    bool quiet;      /**< no summary line */
    int device;      /**< GPU index for the buffer */
};

/**
 * Parse argv into @p opts. Returns 0, 1 when --help or --version was handled (exit 0), or -1
 * after printing why the command line is wrong (exit 2).
 */
int cp_parse_options(int argc, char **argv, struct cp_options *opts);

/** A progress line on standard error, redrawn at most a few times a second. */
struct cp_progress {
    bool enabled;     /**< draw anything at all */
    uint64_t total;   /**< bytes expected */
    double started;   /**< monotonic seconds at the start */
    double last_draw; /**< when the line was last drawn */
    const char *what; /**< "copy" or "verify" */
};

/** Monotonic time in seconds. */
double cp_now(void);

/** Start a progress line for @p total bytes of @p what. */
void cp_progress_start(struct cp_progress *p, bool enabled, const char *what, uint64_t total);

/** Show that @p done bytes are finished; draws only when enough time has passed. */
void cp_progress_update(struct cp_progress *p, uint64_t done);

/** Erase the progress line, so what follows starts on a clean line. */
void cp_progress_finish(struct cp_progress *p);

/**
 * Copy @p size bytes from @p src_fd to @p dst_fd through a registered GPU buffer of @p chunk
 * bytes on @p device. Returns 0, or -1 after printing what failed.
 */
int cp_copy(const char *src_path, int src_fd, const char *dst_path, int dst_fd, uint64_t size,
            uint64_t chunk, int device, struct cp_progress *progress);

/**
 * Compare the two files byte for byte, each read to its end with pread (not through hipfile, so
 * the check does not trust the path it checks). Returns 0 when they are equal, 1 after printing
 * the first difference, or -1 after printing a read error.
 */
int cp_verify(const char *src_path, int src_fd, const char *dst_path, int dst_fd, uint64_t chunk,
              uint64_t expected, struct cp_progress *progress);

#endif
