/*
 * Capturing the core's log: the loader, the runtime binding and the config loader each say in one
 * line why something was skipped or failed, and those lines are the reasons the report quotes.
 * The log goes to an unlinked temporary file, so nothing is left behind whatever happens.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

int capture_start(struct capture *c, int level)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    c->fd = -1;
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    if (snprintf(path, sizeof(path), "%s/hipfile-check-XXXXXX", dir) >= (int)sizeof(path))
        return -ENAMETOOLONG;
    int fd = mkstemp(path);
    if (fd < 0)
        return -errno;
    unlink(path);
    snprintf(c->path, sizeof(c->path), "/proc/self/fd/%d", fd);
    int rc = hf_introspect_log_to(c->path);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    c->fd = fd;
    hf_introspect_log_level(level);
    return 0;
}

void capture_resume(const struct capture *c, int level)
{
    if (c->fd < 0)
        return;
    /* A config file naming log.file moves the log on every load; this moves it back. */
    if (hf_introspect_log_to(c->path) == 0)
        hf_introspect_log_level(level);
}

off_t capture_mark(const struct capture *c)
{
    struct stat st;
    if (c->fd < 0 || fstat(c->fd, &st) != 0)
        return 0;
    return st.st_size;
}

char *capture_text(const struct capture *c, off_t from)
{
    off_t end = capture_mark(c);
    if (c->fd < 0 || end < from)
        return NULL;
    size_t len = (size_t)(end - from);
    char *text = malloc(len + 1);
    if (text == NULL)
        return NULL;
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(c->fd, text + got, len - got, from + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    text[got] = '\0';
    return text;
}

void capture_stop(struct capture *c)
{
    if (c->fd < 0)
        return;
    hf_introspect_log_to(NULL);
    close(c->fd);
    c->fd = -1;
}

bool log_line_next(const char **cursor_p, struct log_line *line_p)
{
    static const char *const levels[] = {"error", "warn", "info", "debug"};
    const char *start = *cursor_p;
    if (start == NULL || *start == '\0')
        return false;
    const char *end = strchr(start, '\n');
    if (end == NULL)
        end = start + strlen(start);
    *cursor_p = *end == '\n' ? end + 1 : end;

    struct log_line line = {.text = start,
                            .text_len = (size_t)(end - start),
                            .level = -1,
                            .message = start,
                            .message_len = (size_t)(end - start)};
    const char *prefix = "hipfile[";
    const char *close = memchr(start, ']', (size_t)(end - start));
    if (strncmp(start, prefix, strlen(prefix)) == 0 && close != NULL && close + 1 < end &&
        close[1] == ' ') {
        const char *level = close + 2;
        for (int i = 0; i < (int)(sizeof(levels) / sizeof(levels[0])); i++) {
            size_t n = strlen(levels[i]);
            if ((size_t)(end - level) > n + 1 && strncmp(level, levels[i], n) == 0 &&
                level[n] == ':' && level[n + 1] == ' ') {
                line.tag = start + strlen(prefix);
                line.tag_len = (size_t)(close - line.tag);
                line.level = i;
                line.message = level + n + 2;
                line.message_len = (size_t)(end - line.message);
                break;
            }
        }
    }
    *line_p = line;
    return true;
}
