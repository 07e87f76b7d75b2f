/*
 * The system-call table handed to backends (struct hf_sys_ops). Tests swap it to inject faults,
 * in the manner of SQLite's replaceable system calls.
 */
#ifndef HF_CORE_SYS_H
#define HF_CORE_SYS_H

#include "hipfile/backend.h"

/** The table to hand out: forwards every call to the one in force. */
const struct hf_sys_ops *hf_sys(void);
/** Replace the table (NULL restores the real system calls). For tests. */
void hf_sys_override(const struct hf_sys_ops *ops);
/** The real system calls. */
const struct hf_sys_ops *hf_sys_default(void);

#endif
