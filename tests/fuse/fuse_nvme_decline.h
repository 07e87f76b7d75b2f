/* Test helper: what the nvme-passthru backend answers when offered a file (fuse_nvme_decline.c). */
#ifndef HF_TEST_FUSE_NVME_DECLINE_H
#define HF_TEST_FUSE_NVME_DECLINE_H

#include <stddef.h>

#include "hipfile/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Offer @p file to the nvme-passthru backend's registration check. Returns what its
 * file_register would (0, or -EOPNOTSUPP when it declines), with the last line it logged in
 * @p line. Only for files that are not on ext4 or XFS: for those the check asks the system.
 */
int fuse_nvme_decline(const struct hf_file_info *file, char *line, size_t line_size);

#ifdef __cplusplus
}
#endif

#endif
