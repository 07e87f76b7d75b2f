/*
 * What the core recorded about a registered file, for the fault suites (C++ cannot include the
 * core's registry header, which uses C11 atomics).
 */
#include "fault_file_facts.h"

#include "api/registry.h"

int fault_file_facts(hipFileHandle_t fh, struct fault_file_facts *facts_p)
{
    struct hf_file *file = hf_file_acquire(fh);
    if (file == NULL)
        return -1;
    facts_p->direct_fd = file->info.direct_fd;
    facts_p->dio_mem_align = file->info.dio_mem_align;
    facts_p->dio_offset_align = file->info.dio_offset_align;
    hf_file_release(file);
    return 0;
}
