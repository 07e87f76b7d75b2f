/*
 * The error conventions of reference/errors.rst, checked: each call below must fail the way the
 * page says, or the program exits 1 naming the one that did not.
 */
#include <errno.h>
#include <fcntl.h>
#include <hipfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

static void expect_status(const char *what, hipFileError_t got, hipFileOpError_t want)
{
    if (got.err != want) {
        printf("FAIL %s: %d (%s), expected %d\n", what, got.err, hipFileGetOpErrorString(got.err),
               want);
        failures++;
    } else {
        printf("ok   %s: %s\n", what, hipFileGetOpErrorString(got.err));
    }
}

/* How to report the result of hipFileRead or hipFileWrite. */
static void report_io(const char *what, ssize_t n)
{
    if (n >= 0)
        printf("%s: %zd bytes\n", what, n);
    else if (IS_HIPFILE_ERR(n))
        printf("%s: hipfile error %lld: %s\n", what, -(long long)n, HIPFILE_ERRSTR(n));
    else
        printf("%s: system error: %s\n", what, strerror(errno));
}

int main(void)
{
    FILE *scratch = tmpfile();
    int fd = scratch ? fileno(scratch) : -1;
    if (fd < 0 || write(fd, "0123456789", 10) != 10)
        return 2;

    /* Closing a driver that is not open. */
    expect_status("hipFileDriverClose at count 0", hipFileDriverClose(),
                  hipFileDriverNotInitialized);

    /* A pipe is not a file the library can serve. */
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
        return 2;
    hipFileHandle_t fh;
    hipFileDescr_t descr = {.type = hipFileHandleTypeOpaqueFD, .handle.fd = pipe_fds[0]};
    expect_status("register a pipe", hipFileHandleRegister(&fh, &descr), hipFileInvalidFileType);

    /* Host memory is not device memory (unless properties.allow_system_memory is set): memory the
     * runtime does not know at all is an invalid value, pinned host memory the wrong type. */
    static char pageable[4096];
    expect_status("register pageable memory", hipFileBufRegister(pageable, sizeof pageable, 0),
                  hipFileInvalidValue);
    void *pinned = NULL;
    if (hipHostMalloc(&pinned, 4096, 0) != hipSuccess)
        return 2;
    expect_status("register pinned host memory", hipFileBufRegister(pinned, 4096, 0),
                  hipFileHipMemoryTypeInvalid);

    descr.handle.fd = fd;
    expect_status("register the file", hipFileHandleRegister(&fh, &descr), hipFileSuccess);
    void *gpu = NULL;
    if (hipMalloc(&gpu, 4096) != hipSuccess)
        return 2;

    /* Reading into pinned host memory: the same code, negated. */
    ssize_t n = hipFileRead(fh, pinned, 10, 0, 0);
    report_io("read into pinned host memory", n);
    if (!(n < 0 && IS_HIPFILE_ERR(n) && -n == hipFileHipMemoryTypeInvalid))
        failures++;
    /* A size past the end of the buffer: a negated hipfile code. */
    n = hipFileRead(fh, gpu, 8192, 0, 0);
    report_io("read past the buffer", n);
    if (!(n < 0 && IS_HIPFILE_ERR(n) && -n == hipFileInvalidValue))
        failures++;
    /* A negative file offset: -1 with errno. */
    n = hipFileRead(fh, gpu, 10, -1, 0);
    report_io("read at offset -1", n);
    if (!(n == -1 && errno == EINVAL))
        failures++;
    /* Reading at the end of the file is not an error: 0 bytes. */
    n = hipFileRead(fh, gpu, 10, 10, 0);
    report_io("read at end of file", n);
    if (n != 0)
        failures++;

    hipFileHandleDeregister(fh);
    hipFree(gpu);
    hipHostFree(pinned);
    expect_status("hipFileDriverClose", hipFileDriverClose(), hipFileSuccess);
    /* With the driver closed, reads fail with -1 and EINVAL. */
    n = hipFileRead(fh, gpu, 10, 0, 0);
    report_io("read with the driver closed", n);
    if (!(n == -1 && errno == EINVAL))
        failures++;

    fclose(scratch);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    printf("%s\n", failures ? "some calls did not fail as documented" : "all as documented");
    return failures ? 1 : 0;
}
