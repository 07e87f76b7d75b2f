/* C side of the file-facts test: reads the registry's record of a handle (C++ cannot include the
 * registry header, which uses C11 atomics). */
#include "file_facts_probe.h"

#include "api/registry.h"

int hf_probe_file_info(hipFileHandle_t fh, struct hf_file_info *info_p)
{
    struct hf_file *file = hf_file_acquire(fh);
    if (file == NULL)
        return -1;
    *info_p = file->info;
    hf_file_release(file);
    return 0;
}
