/* What the core recorded about a registered file (fault_file_facts.c). */
#ifndef HF_TEST_FAULT_FILE_FACTS_H
#define HF_TEST_FAULT_FILE_FACTS_H

#include <hipfile.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The facts the fault suites check. */
struct fault_file_facts {
    int direct_fd;             /**< the O_DIRECT descriptor, -1 when there is no direct path */
    unsigned dio_mem_align;    /**< memory alignment for direct I/O */
    unsigned dio_offset_align; /**< file offset alignment for direct I/O */
};

/** Fill *facts_p for registered file @p fh. Returns 0, or -1 for an unknown handle. */
int fault_file_facts(hipFileHandle_t fh, struct fault_file_facts *facts_p);

#ifdef __cplusplus
}
#endif

#endif
