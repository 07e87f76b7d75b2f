/*
 * Log sink and threshold. Lines are formatted into one buffer and written with a single write(2)
 * so that lines from concurrent threads never interleave.
 */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static atomic_int log_threshold = HF_LOG_WARN;
static atomic_int log_fd = STDERR_FILENO;

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

int hf_log_set_file(const char *path)
{
    int fd = STDERR_FILENO;
    if (path != NULL && path[0] != '\0') {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0)
            return -errno;
    }
    int old = atomic_exchange(&log_fd, fd);
    if (old != STDERR_FILENO)
        close(old);
    return 0;
}

void hf_logv(int level, const char *tag, const char *fmt, va_list ap)
{
    if (level > atomic_load(&log_threshold))
        return;
    if (level < HF_LOG_ERROR)
        level = HF_LOG_ERROR;
    if (level > HF_LOG_DEBUG)
        level = HF_LOG_DEBUG;
    int saved_errno = errno;
    char line[1024];
    int n = snprintf(line, sizeof(line), "hipfile[%s] %s: ", tag ? tag : "?", level_names[level]);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof(line)) {
        int m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
        if (m > 0)
            n += m;
    }
    if ((size_t)n >= sizeof(line) - 1)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    ssize_t w = write(atomic_load(&log_fd), line, (size_t)n);
    (void)w;
    errno = saved_errno;
}

void hf_log(int level, const char *tag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hf_logv(level, tag, fmt, ap);
    va_end(ap);
}
