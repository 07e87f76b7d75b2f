/*
 * Batch I/O contexts (hipFileBatchIO*). Each context holds up to max_nr outstanding entries and
 * the completion events not yet collected.
 */
#ifndef HF_CORE_BATCH_H
#define HF_CORE_BATCH_H

/** Destroy every batch context (driver count reached 0). */
void hf_batch_drop_all(void);

#endif
