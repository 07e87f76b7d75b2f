/* Error messages of the S3 pieces: every function that fails writes one line saying what was
 * wrong into the caller's err buffer, through this one formatter. */
#ifndef HF_REMOTE_S3_ERROR_H
#define HF_REMOTE_S3_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Format a message into err (when err and err_size allow) and return rc, a -errno. */
int s3_fail(int rc, char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif

#endif
