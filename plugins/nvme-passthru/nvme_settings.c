/*
 * The nvme-passthru backend's settings: the declaration of its config group's keys (units,
 * defaults, ranges) and reading them. A bad value is logged and replaced by its declared default,
 * as in the fallback backend.
 */
#include "hipfile/plugin_kit.h"
#include "common/plugin_settings.h"
#include "nvme_backend.h"

/*
 * 32 commands in flight: enough to keep a PCIe NVMe namespace busy with 128 KiB to 1 MiB commands
 * from one request, small against the 1023-entry queues Linux gives each CPU.
 */
#define QUEUE_DEPTH_DEFAULT 32
#define QUEUE_DEPTH_MAX 1024

/*
 * 1 MiB staging buffers: two per slot, so the device fills one while the other is copied to the
 * GPU; a multiple of every logical block size (up to 64 KiB) and of the usual transfer limits.
 */
#define CHUNK_KIB_DEFAULT 1024
#define CHUNK_KIB_MIN 64
#define CHUNK_KIB_MAX (256 * 1024)
#define CHUNK_KIB_MULTIPLE 64

#define SLOTS_DEFAULT 4
#define SLOTS_MAX 256

static const char *const mechanism_names[] = {
    [NVME_MECH_AUTO] = "auto",
    [NVME_MECH_URING] = "io_uring",
    [NVME_MECH_IOCTL] = "ioctl",
    NULL,
};

/* Indices of nvme_setting_decls, so that each read names its declaration. */
enum {
    SET_WRITES,
    SET_MECHANISM,
    SET_QUEUE_DEPTH,
    SET_CHUNK_SIZE,
    SET_SLOTS,
};

const struct hf_setting_decl nvme_setting_decls[NVME_SETTING_COUNT] = {
    [SET_WRITES] = {HFP_BOOL_SETTING("writes", false,
                                     "serve writes with NVMe Write commands over written extents")},
    [SET_MECHANISM] = {HFP_STRING_SETTING("mechanism", "auto", mechanism_names,
                                          "how commands reach the device: io_uring passthrough "
                                          "or the ioctl")},
    [SET_QUEUE_DEPTH] = {HFP_INT_SETTING("queue_depth", QUEUE_DEPTH_DEFAULT, 1, QUEUE_DEPTH_MAX,
                                         "commands", "commands in flight per request")},
    [SET_CHUNK_SIZE] = {HFP_INT_SETTING("chunk_size_kb", CHUNK_KIB_DEFAULT, CHUNK_KIB_MIN,
                                        CHUNK_KIB_MAX, "KiB", "bytes per staging buffer"),
                        .multiple = CHUNK_KIB_MULTIPLE},
    [SET_SLOTS] = {HFP_INT_SETTING("staging_slots_per_device", SLOTS_DEFAULT, 1, SLOTS_MAX, "slots",
                                   "staging slots (two buffers each) per GPU")},
};

const char *nvme_mechanism_name(int mechanism)
{
    return mechanism >= 0 && mechanism <= NVME_MECH_IOCTL ? mechanism_names[mechanism] : "?";
}

void nvme_settings_read(const struct hf_host_api *host, struct nvme_settings *set_p)
{
    const struct hf_setting_decl *decls = nvme_setting_decls;
    struct nvme_settings set = {
        .writes = hfp_setting_bool(host, &decls[SET_WRITES]),
        .mechanism = hfp_setting_choice(host, &decls[SET_MECHANISM]),
        .queue_depth = (unsigned)hfp_setting_int(host, &decls[SET_QUEUE_DEPTH]),
        .chunk_size = (size_t)hfp_setting_int(host, &decls[SET_CHUNK_SIZE]) * 1024,
        .slots_per_device = (unsigned)hfp_setting_int(host, &decls[SET_SLOTS]),
    };
    *set_p = set;
}
