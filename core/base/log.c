/*
 * Log sink and threshold. Lines are formatted into one buffer and written with a single write(2)
 * so that lines from concurrent threads never interleave. A thread may hold its lines back while it
 * changes the threshold itself (a config load), so they are judged against the level it sets.
 */
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/regular_file.h"
#include "hipfile/remote.h"

static atomic_int log_threshold = HF_LOG_WARN;
static atomic_int log_fd = STDERR_FILENO;

/* Lines this thread holds back (hf_log_hold), in the order they were logged. */
struct held_line {
    struct held_line *next;
    int level;
    size_t len;
    char text[];
};
static _Thread_local bool holding;
static _Thread_local int held_threshold;
static _Thread_local struct held_line *held_first;
static _Thread_local struct held_line *held_last;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

int hf_log_level(void)
{
    return atomic_load(&log_threshold);
}

void hf_log_set_level(int level)
{
    if (level < HF_LOG_ERROR)
        level = HF_LOG_ERROR;
    if (level > HF_LOG_DEBUG)
        level = HF_LOG_DEBUG;
    atomic_store(&log_threshold, level);
}

int hf_log_level_parse(const char *text)
{
    if (text == NULL)
        return -1;
    for (int i = 0; i < (int)(sizeof(level_names) / sizeof(level_names[0])); i++) {
        if (strcasecmp(text, level_names[i]) == 0)
            return i;
    }
    if (strcasecmp(text, "warning") == 0)
        return HF_LOG_WARN;
    if (text[0] >= '0' && text[0] <= '3' && text[1] == '\0')
        return text[0] - '0';
    return -1;
}

int hf_log_set_file_why(const char *path, char *why, size_t why_size)
{
    int fd = STDERR_FILENO;
    if (path != NULL && path[0] != '\0') {
        /*
         * Every line is one write(2) from whichever thread logs, so a FIFO without a reader would
         * block the open, and a reader that stops would block the program; a device or a /proc
         * file (/proc/self/mem) is no place for text either.
         */
        fd = hfp_open_regular(path, O_WRONLY | O_CREAT | O_APPEND, 0644, NULL, why, why_size);
        if (fd < 0)
            return fd;
    }
    int old = atomic_exchange(&log_fd, fd);
    if (old != STDERR_FILENO)
        close(old);
    return 0;
}

int hf_log_set_file(const char *path)
{
    return hf_log_set_file_why(path, NULL, 0);
}

/* Keep a formatted line for hf_log_release; false without memory (the line is written now). */
static bool line_hold(int level, const char *line, size_t len)
{
    struct held_line *held = malloc(sizeof(*held) + len);
    if (held == NULL)
        return false;
    held->next = NULL;
    held->level = level;
    held->len = len;
    memcpy(held->text, line, len);
    if (held_last != NULL)
        held_last->next = held;
    else
        held_first = held;
    held_last = held;
    return true;
}

/*
 * Every line is redacted here, whoever wrote it: a URL a backend or the core logs keeps its host
 * and path but not its password or signature (hipFileRedactUrls), at every level and to every
 * destination. The message is formatted whole before it is redacted and cut to the line's size,
 * so a limit cannot cut a URL before the mark that shows where its secret ends.
 */
void hf_logv(int level, const char *tag, const char *fmt, va_list ap)
{
    if (level > atomic_load(&log_threshold) && !holding)
        return;
    if (level < HF_LOG_ERROR)
        level = HF_LOG_ERROR;
    if (level > HF_LOG_DEBUG)
        level = HF_LOG_DEBUG;
    int saved_errno = errno;
    char raw[2048];
    char *text = raw;
    va_list again;
    va_copy(again, ap);
    int n = snprintf(raw, sizeof(raw), "hipfile[%s] %s: ", tag ? tag : "?", level_names[level]);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof(raw)) {
        size_t prefix = (size_t)n;
        int m = vsnprintf(raw + prefix, sizeof(raw) - prefix, fmt, ap);
        char *whole = NULL;
        if (m > 0 && prefix + (size_t)m >= sizeof(raw))
            whole = malloc(prefix + (size_t)m + 1);
        /* Without memory for the whole message the cut one is redacted: still no secret. */
        if (whole != NULL) {
            memcpy(whole, raw, prefix);
            vsnprintf(whole + prefix, (size_t)m + 1, fmt, again);
            text = whole;
        }
    }
    va_end(again);
    char line[1024];
    size_t len = hipFileRedactUrls(text, line, sizeof(line) - 1);
    if (text != raw)
        free(text);
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    if (!holding || !line_hold(level, line, len)) {
        ssize_t w = write(atomic_load(&log_fd), line, len);
        (void)w;
    }
    errno = saved_errno;
}

void hf_log_hold(void)
{
    if (holding)
        return;
    holding = true;
    held_threshold = atomic_load(&log_threshold);
}

void hf_log_release(void)
{
    if (!holding)
        return;
    holding = false;
    int threshold = atomic_load(&log_threshold);
    if (threshold < held_threshold)
        threshold = held_threshold;
    struct held_line *held = held_first;
    held_first = NULL;
    held_last = NULL;
    while (held != NULL) {
        struct held_line *next = held->next;
        if (held->level <= threshold) {
            ssize_t w = write(atomic_load(&log_fd), held->text, held->len);
            (void)w;
        }
        free(held);
        held = next;
    }
}

void hf_log(int level, const char *tag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hf_logv(level, tag, fmt, ap);
    va_end(ap);
}
