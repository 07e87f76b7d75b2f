// Must NOT compile as C++17 with -Werror=unused-result: hipFileError_t is nodiscard there, so a
// status dropped on the floor has to be diagnosed. header.cmake runs this check at build time.
#include <hipfile.h>

void hf_drop_status(void);

void hf_drop_status(void)
{
    hipFileDriverOpen();
}
