/* The one formatter behind the S3 pieces' error messages. */
#include "s3_error.h"

#include <stdarg.h>
#include <stdio.h>

int s3_fail(int rc, char *err, size_t err_size, const char *fmt, ...)
{
    if (err && err_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
    }
    return rc;
}
