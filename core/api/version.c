/*
 * hipFileGetVersion: reports the HIPFILE_VERSION_* numbers of the header this library was built
 * with. Needs no driver, no configuration and no GPU.
 */
#include <hipfile.h>

#include "base/error.h"

/* The build passes project()'s version as HF_VERSION_*; the header must agree with it. */
#if defined(HF_VERSION_MAJOR) && defined(HF_VERSION_MINOR) && defined(HF_VERSION_PATCH)
_Static_assert(HF_VERSION_MAJOR == HIPFILE_VERSION_MAJOR &&
                   HF_VERSION_MINOR == HIPFILE_VERSION_MINOR &&
                   HF_VERSION_PATCH == HIPFILE_VERSION_PATCH,
               "HIPFILE_VERSION_* in hipfile.h differ from the project version");
#endif

hipFileError_t hipFileGetVersion(unsigned *major, unsigned *minor, unsigned *patch)
{
    if (major != NULL)
        *major = HIPFILE_VERSION_MAJOR;
    if (minor != NULL)
        *minor = HIPFILE_VERSION_MINOR;
    if (patch != NULL)
        *patch = HIPFILE_VERSION_PATCH;
    return hf_status(hipFileSuccess);
}
