/*
 * The system-call table handed to backends (struct hf_sys_ops). Tests swap it to inject faults,
 * in the manner of SQLite's replaceable system calls.
 */
#ifndef HF_CORE_SYS_H
#define HF_CORE_SYS_H

#include <sys/stat.h>

#include "hipfile/backend.h"

/** The table to hand out: forwards every call to the one in force. */
const struct hf_sys_ops *hf_sys(void);
/** Replace the table (NULL restores the real system calls). For tests. */
void hf_sys_override(const struct hf_sys_ops *ops);
/** The real system calls. */
const struct hf_sys_ops *hf_sys_default(void);

struct statx;

/**
 * System calls the core itself makes while registering a file, outside the plugin ABI so that
 * adding one never changes struct hf_sys_ops. Each member has the signature of the call it names.
 */
struct hf_core_sys_ops {
    int (*open)(const char *path, int flags);            /**< open(2) without O_CREAT */
    int (*fstat)(int fd, struct stat *st);               /**< fstat(2) */
    int (*statx)(int dirfd, const char *path, int flags, /**< statx(2) */
                 unsigned int mask, struct statx *stx);
};

/** The core's own system calls, through the table in force. */
const struct hf_core_sys_ops *hf_core_sys(void);
/** Replace the core's table (NULL restores the real calls). For tests. */
void hf_core_sys_override(const struct hf_core_sys_ops *ops);
/** The core's real system calls. */
const struct hf_core_sys_ops *hf_core_sys_default(void);

#endif
