/* An application of the installed library: <hipfile.h>, libhipfile and a HIP runtime. */
#include <hipfile.h>
#include <stdio.h>

int main(void)
{
    unsigned major, minor, patch;
    int devices = 0;
    hipFileError_t status = hipFileGetVersion(&major, &minor, &patch);
    if (status.err != hipFileSuccess || major != HIPFILE_VERSION_MAJOR ||
        minor != HIPFILE_VERSION_MINOR || patch != HIPFILE_VERSION_PATCH)
        return 1;
    if (hipGetDeviceCount(&devices) != hipSuccess)
        return 1;
    printf("hipfile %u.%u.%u with %d device(s) (%s)\n", major, minor, patch, devices,
           HIPFILE_ERRSTR(-hipFileInvalidValue));
    return 0;
}
