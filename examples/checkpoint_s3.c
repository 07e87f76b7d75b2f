/*
 * Save a checkpoint from GPU memory to S3, and read it back into GPU memory, with hipfile's
 * remote objects (docs/howto/read-checkpoint-from-s3.rst).
 *
 *   checkpoint-s3 save s3://BUCKET/KEY SIZE [OPTIONS]   write SIZE bytes of a pattern
 *   checkpoint-s3 load s3://BUCKET/KEY SIZE [OPTIONS]   read them back and check them
 *
 * OPTIONS are the remote backend's open options, e.g. "endpoint=http://127.0.0.1:9000" for an
 * S3-compatible store; credentials come from the environment or ~/.aws as for the AWS CLI.
 */
#include <errno.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <hipfile/remote.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stand-in for a model's weights: byte i is a function of i. */
static uint8_t weight_byte(size_t i)
{
    return (uint8_t)(i * 2654435761u >> 13);
}

/* 1. Open the object: HIPFILE_REMOTE_READ, or HIPFILE_REMOTE_WRITE to create or replace it. */
static hipFileHandle_t open_object(const char *url, const char *options, int flags)
{
    hipFileHandle_t fh = NULL;
    hipFileError_t e = hipFileRemoteOpen(url, options, flags, &fh);
    if (e.err != hipFileSuccess) {
        /* The library's log line names the URL, the HTTP status and the request id. */
        fprintf(stderr, "cannot open %s: %s\n", url, hipFileGetOpErrorString(e.err));
        return NULL;
    }
    return fh;
}

/* 2. Save: the whole checkpoint in one hipFileWrite at offset 0 (a multipart upload when large). */
static int save(const char *url, const char *options, void *weights, size_t size)
{
    hipFileHandle_t fh = open_object(url, options, HIPFILE_REMOTE_WRITE);
    if (fh == NULL)
        return 1;
    ssize_t written = hipFileWrite(fh, weights, size, 0, 0);
    hipFileHandleDeregister(fh);
    if (written != (ssize_t)size) {
        fprintf(stderr, "saving %s failed: %s\n", url,
                written == -1 ? strerror(errno)
                              : hipFileGetOpErrorString((hipFileOpError_t)-written));
        return 1;
    }
    printf("saved %zu bytes to %s\n", size, url);
    return 0;
}

/* 3. Load: parallel ranged GETs straight into GPU memory; short only if the object is smaller. */
static int load(const char *url, const char *options, void *weights, size_t size)
{
    hipFileHandle_t fh = open_object(url, options, HIPFILE_REMOTE_READ);
    if (fh == NULL)
        return 1;
    ssize_t got = hipFileRead(fh, weights, size, 0, 0);
    hipFileHandleDeregister(fh);
    if (got < 0) {
        fprintf(stderr, "loading %s failed: %s\n", url,
                got == -1 ? strerror(errno) : hipFileGetOpErrorString((hipFileOpError_t)-got));
        return 1;
    }
    if ((size_t)got != size) {
        fprintf(stderr, "%s holds %zd bytes, not the %zu expected\n", url, got, size);
        return 1;
    }
    printf("loaded %zu bytes from %s\n", size, url);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5 || (strcmp(argv[1], "save") != 0 && strcmp(argv[1], "load") != 0)) {
        fprintf(stderr, "usage: %s save|load s3://BUCKET/KEY SIZE [OPTIONS]\n", argv[0]);
        return 2;
    }
    const char *url = argv[2];
    size_t size = strtoull(argv[3], NULL, 10);
    const char *options = argc == 5 ? argv[4] : NULL;
    uint8_t *host = malloc(size);
    void *weights = NULL;
    if (host == NULL || hipMalloc(&weights, size) != hipSuccess) {
        fprintf(stderr, "out of memory for %zu bytes\n", size);
        return 1;
    }
    int rc;
    if (strcmp(argv[1], "save") == 0) {
        for (size_t i = 0; i < size; i++)
            host[i] = weight_byte(i);
        rc = hipMemcpy(weights, host, size, hipMemcpyHostToDevice) == hipSuccess
                 ? save(url, options, weights, size)
                 : 1;
    } else {
        rc = load(url, options, weights, size);
        if (rc == 0 && hipMemcpy(host, weights, size, hipMemcpyDeviceToHost) == hipSuccess) {
            for (size_t i = 0; i < size && rc == 0; i++)
                rc = host[i] == weight_byte(i) ? 0 : 1;
            printf("%s\n", rc == 0 ? "checkpoint intact" : "checkpoint differs");
        }
    }
    (void)hipFree(weights);
    free(host);
    hipFileDriverClose();
    return rc;
}
