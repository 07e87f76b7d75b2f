/*
 * The fastpath backend's settings: the declaration of its config group's keys (units, defaults,
 * ranges) and reading them. A bad value is logged and replaced by the declared default, as in the
 * fallback: a typo should cost speed, never the backend.
 */
#include "hipfile/plugin_kit.h"
#include "common/plugin_settings.h"
#include "fastpath_internal.h"

/*
 * Coherent-engine requests up to 1 MiB stay on the calling thread, larger ones are cut into
 * pieces of at least 1 MiB across the core's workers: the same trade as the fallback's (waking
 * workers costs about what one thread moves in that time), and NVMe needs several O_DIRECT
 * requests in flight to reach its bandwidth.
 */
#define INLINE_MAX_KIB_DEFAULT 1024
#define SPLIT_THRESHOLD_KIB_DEFAULT 1024
#define THRESHOLD_KIB_MAX (1024 * 1024)
#define SIZE_KIB_MULTIPLE 4

/* Indices of fastpath_setting_decls, so that each read names its declaration. */
enum {
    SET_AIS,
    SET_COHERENT,
    SET_GDS,
    SET_UNSUPPORTED_FILE_SYSTEMS,
    SET_GDS_LIBRARY,
    SET_INLINE_MAX,
    SET_SPLIT_THRESHOLD,
};

const struct hf_setting_decl fastpath_setting_decls[FASTPATH_SETTING_COUNT] = {
    [SET_AIS] = {HFP_BOOL_SETTING("ais", true, "the AMD AIS engine (hipAmdFileRead) may serve")},
    [SET_COHERENT] = {HFP_BOOL_SETTING("coherent", true,
                                       "the coherent-memory engine (O_DIRECT into "
                                       "CPU-addressable GPU memory) may serve")},
    [SET_GDS] = {HFP_BOOL_SETTING("gds", false, "the NVIDIA GDS engine (cuFile) may serve")},
    [SET_UNSUPPORTED_FILE_SYSTEMS] = {HFP_BOOL_SETTING("unsupported_file_systems", false,
                                                       "let fastpath serve file systems besides "
                                                       "ext4 (data=ordered) and xfs"),
                                      .env = "HIPFILE_UNSUPPORTED_FILE_SYSTEMS"},
    [SET_GDS_LIBRARY] = {HFP_STRING_SETTING("gds_library", "libcufile.so.0", NULL,
                                            "the libcufile the GDS engine opens")},
    [SET_INLINE_MAX] = {HFP_INT_SETTING("inline_max_kb", INLINE_MAX_KIB_DEFAULT, 0,
                                        THRESHOLD_KIB_MAX, "KiB",
                                        "largest coherent-engine request served on the caller")},
    [SET_SPLIT_THRESHOLD] = {HFP_INT_SETTING("split_threshold_kb", SPLIT_THRESHOLD_KIB_DEFAULT,
                                             SIZE_KIB_MULTIPLE, THRESHOLD_KIB_MAX, "KiB",
                                             "smallest piece of a split coherent-engine request"),
                             .multiple = SIZE_KIB_MULTIPLE},
};

void fastpath_settings_read(const struct hf_host_api *host, struct fastpath_settings *set_p)
{
    const struct hf_setting_decl *decls = fastpath_setting_decls;
    int64_t inline_kib = hfp_setting_int(host, &decls[SET_INLINE_MAX]);
    int64_t split_kib = hfp_setting_int(host, &decls[SET_SPLIT_THRESHOLD]);
    struct fastpath_settings set = {
        .ais = hfp_setting_bool(host, &decls[SET_AIS]),
        .coherent = hfp_setting_bool(host, &decls[SET_COHERENT]),
        .gds = hfp_setting_bool(host, &decls[SET_GDS]),
        .unsupported_file_systems = hfp_setting_bool(host, &decls[SET_UNSUPPORTED_FILE_SYSTEMS]),
        .gds_library = hfp_setting_string(host, &decls[SET_GDS_LIBRARY]),
        .split_threshold = (size_t)split_kib * 1024,
        .inline_max = (size_t)inline_kib * 1024,
    };
    host->log(host, HF_LOG_INFO,
              "engines: AIS %s, GDS %s, coherent memory %s; AIS on other file systems %s; "
              "coherent requests over %lld KiB split into pieces of at least %lld KiB",
              set.ais ? "on" : "off", set.gds ? "on" : "off", set.coherent ? "on" : "off",
              set.unsupported_file_systems ? "allowed" : "refused", (long long)inline_kib,
              (long long)split_kib);
    *set_p = set;
}
