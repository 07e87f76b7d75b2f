/* Scratch directory, known-pattern files and small file helpers for the test suites. */
#include "hf_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch_dir[4096];
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static pid_t scratch_owner;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void scratch_remove(void)
{
    /* A forked child must not delete the parent's directory when it exits. */
    if (scratch_dir[0] != '\0' && getpid() == scratch_owner)
        nftw(scratch_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void scratch_create(void)
{
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    snprintf(scratch_dir, sizeof(scratch_dir), "%s/hipfile-test-XXXXXX", base);
    if (mkdtemp(scratch_dir) == NULL) {
        perror("mkdtemp");
        abort();
    }
    scratch_owner = getpid();
    atexit(scratch_remove);
}

const char *hf_test_tmpdir(void)
{
    pthread_once(&scratch_once, scratch_create);
    return scratch_dir;
}

char *hf_test_path(const char *name)
{
    const char *dir = hf_test_tmpdir();
    size_t len = strlen(dir) + 1 + strlen(name) + 1;
    char *path = malloc(len);
    if (path != NULL)
        snprintf(path, len, "%s/%s", dir, name);
    return path;
}

uint8_t hf_test_pattern_byte(uint64_t offset, uint32_t seed)
{
    /* A cheap hash of (offset, seed): shifted or misplaced data never matches by accident. */
    uint64_t x = offset * 0x9E3779B97F4A7C15ull + (uint64_t)seed * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (uint8_t)x;
}

void hf_test_pattern_fill(void *buf, size_t size, uint64_t offset, uint32_t seed)
{
    uint8_t *p = buf;
    for (size_t i = 0; i < size; i++)
        p[i] = hf_test_pattern_byte(offset + i, seed);
}

int64_t hf_test_pattern_check(const void *buf, size_t size, uint64_t offset, uint32_t seed)
{
    const uint8_t *p = buf;
    for (size_t i = 0; i < size; i++) {
        if (p[i] != hf_test_pattern_byte(offset + i, seed))
            return (int64_t)i;
    }
    return -1;
}

int hf_test_pattern_file(const char *path, uint64_t size, uint32_t seed)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    int rc = 0;
    size_t chunk_size = 1u << 20;
    uint8_t *chunk = malloc(chunk_size);
    if (chunk == NULL) {
        rc = -ENOMEM;
        goto close_fd;
    }
    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < chunk_size ? (size_t)(size - off) : chunk_size;
        hf_test_pattern_fill(chunk, n, off, seed);
        ssize_t w = pwrite(fd, chunk, n, (off_t)off);
        if (w <= 0) {
            rc = w < 0 ? -errno : -EIO;
            goto free_chunk;
        }
        off += (uint64_t)w;
    }
free_chunk:
    free(chunk);
close_fd:
    close(fd);
    return rc;
}

int hf_test_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -errno;
    size_t len = strlen(text);
    int rc = fwrite(text, 1, len, f) == len ? 0 : -EIO;
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

char *hf_test_read_all(const char *path, size_t *size_p)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, len = 0;
    char *data = malloc(cap + 1);
    while (data != NULL) {
        size_t n = fread(data + len, 1, cap - len, f);
        len += n;
        if (len < cap)
            break;
        cap *= 2;
        char *bigger = realloc(data, cap + 1);
        if (bigger == NULL) {
            free(data);
            data = NULL;
        }
        data = bigger;
    }
    fclose(f);
    if (data == NULL)
        return NULL;
    data[len] = '\0';
    if (size_p != NULL)
        *size_p = len;
    return data;
}

int hf_test_file_contains(const char *path, const char *needle)
{
    char *text = hf_test_read_all(path, NULL);
    if (text == NULL)
        return 0;
    int found = strstr(text, needle) != NULL;
    free(text);
    return found;
}
