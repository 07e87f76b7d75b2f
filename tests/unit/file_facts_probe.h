/* Test probe: a copy of what the core recorded about a registered file. */
#ifndef HF_TEST_FILE_FACTS_PROBE_H
#define HF_TEST_FILE_FACTS_PROBE_H

#include <hipfile.h>

#include "hipfile/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Copy the record of @p fh into *info_p; 0, or -1 for an unknown handle. */
int hf_probe_file_info(hipFileHandle_t fh, struct hf_file_info *info_p);

#ifdef __cplusplus
}
#endif

#endif
