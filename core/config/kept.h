/*
 * What outlives a load: copies of strings that readers may hold (setting values, plugin group
 * strings, "file:line" of a value), and what the last failed load failed on.
 */
#ifndef HF_CORE_KEPT_H
#define HF_CORE_KEPT_H

/** A copy of @p text that lives as long as the process (readers may hold it), or NULL. */
const char *hf_config_keep_string(const char *text);

/** Record "<what> <name>" ("the config file /etc/hipfile.conf") as what the load failed on. */
void hf_config_failure_set(const char *what, const char *name);
/**
 * What the last failed hf_config_load failed on, for the line that reports the failure: "the
 * environment variable HIPFILE_LOG_LEVEL", "the config file /etc/hipfile.conf", or NULL after a
 * load that succeeded.
 */
const char *hf_config_failure(void);
/** Forget the recorded failure, at the start of a load. */
void hf_config_failure_clear(void);

#endif
