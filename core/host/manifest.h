/*
 * Backend manifests: one XML file per plugin, validated against the schema compiled into the core
 * (config/backend-manifest.xsd), turned into a struct the loader and selector read. Nothing here
 * logs: each failure is described in the caller's buffer so the loader can write the one line
 * that names the plugin, the file and the reason.
 */
#ifndef HF_CORE_MANIFEST_H
#define HF_CORE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

/** Longest plugin name plus its terminator (the schema allows 63 characters). */
#define HF_MANIFEST_NAME_SIZE 64
/** Most errnos a manifest may list as retryable (the schema's limit). */
#define HF_MAX_RETRY_ERRNOS 16
/** Largest manifest file the core reads; real ones are well under 2 KiB. */
#define HF_MANIFEST_MAX_BYTES (64 * 1024)
/** Room for a description of why a manifest was rejected. */
#define HF_MANIFEST_WHY_SIZE 512

/** A manifest as validated. */
struct hf_manifest {
    char name[HF_MANIFEST_NAME_SIZE]; /**< plugin name, [a-z0-9][a-z0-9-]* */
    char library[256];                /**< library file name as written, relative to the manifest */
    unsigned abi_major;               /**< ABI major the plugin was built for */
    unsigned abi_minor;               /**< ABI minor the plugin was built for */
    char version[64];                 /**< the plugin's own version string */
    char description[256];            /**< one line for people; may be empty */
    int priority;                     /**< default priority, -1000..1000 */
    uint32_t mem_types;  /**< bit (1 << enum hf_mem_type) per memory type the plugin accepts */
    uint32_t file_kinds; /**< bit (1 << enum hf_file_kind) per file kind the plugin accepts */
    int retry_errnos[HF_MAX_RETRY_ERRNOS]; /**< errnos after which the next backend may retry */
    unsigned retry_errno_count;            /**< entries used in retry_errnos */
};

/**
 * Read the manifest at @p path, check it against the built-in schema and fill *manifest_p.
 * Returns 0; -EINVAL for malformed XML or a schema violation; -EFBIG for a file larger than
 * HF_MANIFEST_MAX_BYTES; another -errno when the file cannot be read. On failure @p why (of
 * @p why_size bytes) says what was wrong, with the line number where libxml2 gives one.
 */
int hf_manifest_read(const char *path, struct hf_manifest *manifest_p, char *why, size_t why_size);

/**
 * hf_manifest_read on @p size bytes at @p text already in memory; @p label names them in
 * libxml2's messages. The same results, except that nothing is opened.
 */
int hf_manifest_parse(const char *text, size_t size, const char *label,
                      struct hf_manifest *manifest_p, char *why, size_t why_size);

/**
 * Resolve @p manifest's library against the plugin directory @p plugin_dir (where the manifest
 * lies) into an absolute path in @p path_p (@p path_size bytes). The library must be named
 * relative to the directory, without ".." components, and its real path (symbolic links
 * followed) must be a regular file inside the real path of @p plugin_dir. Returns 0, -EPERM for
 * a path that leaves the directory, or the -errno of the failed look-up; @p why says which.
 */
int hf_manifest_library_path(const struct hf_manifest *manifest, const char *plugin_dir,
                             char *path_p, size_t path_size, char *why, size_t why_size);

/** Symbolic name of @p err ("ENODEV"), or NULL for an errno manifests cannot name. */
const char *hf_manifest_errno_name(int err);
/** Errno named @p name ("EREMOTEIO"), or -1 for a name manifests cannot use. */
int hf_manifest_errno_parse(const char *name);
/** Manifest spelling of memory type @p mem_type (enum hf_mem_type): "device", "host"... */
const char *hf_manifest_mem_name(int mem_type);
/** Manifest spelling of file kind @p kind (enum hf_file_kind): "regular", "block". */
const char *hf_manifest_file_kind_name(int kind);

#endif
