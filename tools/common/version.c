/*
 * The --version text of the tools that link the hipfile library: the version they were built
 * against, and the one the dynamic linker loaded, which differ after an upgrade of the library
 * alone.
 */
#include <hipfile.h>
#include <stdio.h>

#include "common/cmdline.h"

void tool_print_version(const char *program)
{
    unsigned major = 0, minor = 0, patch = 0;
    hipFileError_t status = hipFileGetVersion(&major, &minor, &patch);
    printf("%s %d.%d.%d\n", program, HIPFILE_VERSION_MAJOR, HIPFILE_VERSION_MINOR,
           HIPFILE_VERSION_PATCH);
    if (status.err == hipFileSuccess)
        printf("hipfile library %u.%u.%u\n", major, minor, patch);
}
