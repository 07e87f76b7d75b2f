/*
 * hipGetProcAddress for the providers: resolves a name among the provider's own exports, so a
 * caller holding one provider never reaches another runtime's symbol of the same name.
 */
#include <stddef.h>
#include <string.h>

#include "hip_provider.h"

struct proc_entry {
    const char *name;
    void *fn;
};

/* Taking the address inside the library binds to our own definition (-Bsymbolic-functions). */
#define HF_RT_EXPORT(fn_name) {#fn_name, (void *)fn_name},
static const struct proc_entry proc_entries[] = {
#include "hip_exports.h"
};
#undef HF_RT_EXPORT

hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                             hipDriverProcAddressQueryResult *symbolStatus)
{
    (void)hipVersion; /* one ABI per provider build: every export serves every version asked */
    if (symbol == NULL || symbol[0] == '\0' || pfn == NULL)
        return hf_rt_result(hipErrorInvalidValue);
    if (flags != HIP_GET_PROC_ADDRESS_DEFAULT && flags != HIP_GET_PROC_ADDRESS_LEGACY_STREAM &&
        flags != HIP_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
        return hf_rt_result(hipErrorInvalidValue);

    for (size_t i = 0; i < sizeof(proc_entries) / sizeof(proc_entries[0]); i++) {
        if (strcmp(proc_entries[i].name, symbol) == 0) {
            *pfn = proc_entries[i].fn;
            if (symbolStatus != NULL)
                *symbolStatus = HIP_GET_PROC_ADDRESS_SUCCESS;
            return hipSuccess;
        }
    }
    /* ROCm clears the pointer and reports the status along with the error. */
    *pfn = NULL;
    if (symbolStatus != NULL)
        *symbolStatus = HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return hf_rt_result(hipErrorInvalidValue);
}
