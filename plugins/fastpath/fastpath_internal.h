/*
 * Internals of the fastpath backend shared by its source files: the backend's state and settings,
 * and what each engine (AMD AIS, coherent memory, NVIDIA GDS) offers the ops in fastpath.c.
 * Nothing here is exported; the plugin's version script keeps every symbol but the entry point
 * private.
 */
#ifndef HF_PLUGIN_FASTPATH_INTERNAL_H
#define HF_PLUGIN_FASTPATH_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hipfile/backend.h"

/** Most GPUs whose engine verdicts the backend keeps; memory of a GPU beyond is declined. */
#define FASTPATH_MAX_DEVICES 64

/** Largest byte count one hipAmdFileRead/Write moves (the kernel's MAX_RW_COUNT). */
#define FASTPATH_AIS_MAX_CALL ((size_t)0x7ffff000)

/** Scores: every engine outranks the fallback (10); AIS and GDS outrank the CPU-driven engine. */
enum fastpath_score {
    FASTPATH_SCORE_AIS = 100,
    FASTPATH_SCORE_GDS = 90,
    FASTPATH_SCORE_COHERENT = 50,
};

/** The engines, in the order a request is offered to them. */
enum fastpath_engine {
    FASTPATH_ENGINE_AIS = 0,
    FASTPATH_ENGINE_GDS = 1,
    FASTPATH_ENGINE_COHERENT = 2,
    FASTPATH_ENGINE_COUNT = 3,
};

/**
 * The plugin ABI minor fastpath needs: minor 7's transfer op, and with it minor 5's declared
 * settings, the executor, preadv2 and the device attributes and hipGetProcAddress of minor 2. Its
 * manifest says the same.
 */
#define FASTPATH_ABI_MINOR 7

/** Keys fastpath declares for its config group (fastpath_settings.c). */
#define FASTPATH_SETTING_COUNT 7

/** The declaration of every key of the backend's config group, hung on its ops table. */
extern const struct hf_setting_decl fastpath_setting_decls[FASTPATH_SETTING_COUNT];

/** The backend's settings, read once at init (fastpath_settings.c). */
struct fastpath_settings {
    bool ais;                      /**< the AMD AIS engine may serve */
    bool coherent;                 /**< the coherent-memory engine may serve */
    bool gds;                      /**< the NVIDIA GDS engine may serve (off by default) */
    bool unsupported_file_systems; /**< AIS on file systems besides ext4 (ordered) and xfs */
    const char *gds_library;       /**< the libcufile to open */
    size_t split_threshold;        /**< coherent engine: smallest piece of a split request */
    size_t inline_max;             /**< coherent engine: largest request served on the caller */
};

/** hipAmdFileHandle_t: eight bytes, a descriptor on Linux. */
typedef union {
    void *handle;
    int fd;
    uint8_t pad[8];
} fastpath_ais_handle;

/** hipAmdFileRead and hipAmdFileWrite share this signature. */
typedef int (*fastpath_ais_fn)(fastpath_ais_handle handle, void *device_ptr, uint64_t size,
                               int64_t file_offset, uint64_t *size_copied_p, int32_t *status_p);

struct fastpath_gds;

/** The backend's state, one per init. */
struct fastpath {
    const struct hf_host_api *host;      /**< what the core handed over */
    struct fastpath_settings set;        /**< settings */
    int device_count;                    /**< GPUs the runtime reported at init (capped) */
    fastpath_ais_fn ais_read;            /**< hipAmdFileRead, or NULL */
    fastpath_ais_fn ais_write;           /**< hipAmdFileWrite, or NULL */
    const char *ais_absent;              /**< why AIS cannot serve anywhere, or NULL */
    struct fastpath_gds *gds;            /**< the GDS engine, or NULL */
    const char *gds_absent;              /**< why GDS cannot serve anywhere, or NULL */
    bool coherent[FASTPATH_MAX_DEVICES]; /**< the CPU addresses this GPU's memory (attributes) */
    /** Per GPU: why AIS stopped serving it after a failure (static text), or NULL. */
    _Atomic(const char *) ais_off[FASTPATH_MAX_DEVICES];
    /** Per GPU: why the coherent engine stopped serving it after a failure, or NULL. */
    _Atomic(const char *) coherent_off[FASTPATH_MAX_DEVICES];
    /** Per GPU: why no engine can serve it at all, built at init. */
    char *no_engine[FASTPATH_MAX_DEVICES];
};

/** Log through the core, tagged with the backend's name. */
#define fastpath_log(fp, level, ...) (fp)->host->log((fp)->host, (level), __VA_ARGS__)

/** Read the settings from the backend's config group, logging each bad value and its default. */
void fastpath_settings_read(const struct hf_host_api *host, struct fastpath_settings *set_p);

/** Text of an errno value, never NULL. */
const char *fastpath_errno_text(int err);

/**
 * Whether file offset, size and memory address of @p req fall on @p offset_align and @p mem_align
 * (powers of two); NULL when they do, else a static text naming the first that does not.
 */
const char *fastpath_alignment_refusal(const struct hf_io_request *req, uint64_t offset_align,
                                       uint64_t mem_align);

/* ---- AMD AIS (fastpath_ais.c) ---- */

/** Resolve hipAmdFileRead/Write through the runtime's hipGetProcAddress; sets ais_absent if not. */
void fastpath_ais_setup(struct fastpath *fp);
/** NULL when AIS may serve @p req, else why not (static text). */
const char *fastpath_ais_refusal(const struct fastpath *fp, const struct hf_io_request *req);
/** Serve an eligible request; bytes moved (short only at end of file) or -errno. */
ssize_t fastpath_ais_transfer(struct fastpath *fp, const struct hf_io_request *req);

/* ---- Coherent memory (fastpath_coherent.c) ---- */

/** Ask the runtime which GPUs' memory the CPU addresses directly; fills fp->coherent. */
void fastpath_coherent_setup(struct fastpath *fp);
/** NULL when the coherent engine may serve @p req, else why not (static text). */
const char *fastpath_coherent_refusal(const struct fastpath *fp, const struct hf_io_request *req);
/**
 * Serve an eligible request; bytes moved (short only at end of file) or -errno. Reads copy what
 * the page cache holds and go O_DIRECT for the rest; writes go O_DIRECT.
 */
ssize_t fastpath_coherent_transfer(struct fastpath *fp, const struct hf_io_request *req);

/* ---- NVIDIA GDS (fastpath_gds.c) ---- */

/** Open libcufile when the settings ask for it and nvidia-fs is loaded; sets gds_absent if not. */
void fastpath_gds_setup(struct fastpath *fp);
/** Close what fastpath_gds_setup opened. */
void fastpath_gds_teardown(struct fastpath *fp);
/** Register a file with cuFile (context in *ctx_p, NULL when GDS is absent); 0 or -errno. */
int fastpath_gds_file_register(struct fastpath *fp, const struct hf_file_info *file, void **ctx_p);
/** Deregister what fastpath_gds_file_register registered. */
void fastpath_gds_file_deregister(struct fastpath *fp, void *ctx);
/** NULL when GDS may serve @p req, else why not (static text). */
const char *fastpath_gds_refusal(const struct fastpath *fp, const struct hf_io_request *req);
/** Serve an eligible request; bytes moved or -errno. */
ssize_t fastpath_gds_transfer(struct fastpath *fp, const struct hf_io_request *req);

#endif
