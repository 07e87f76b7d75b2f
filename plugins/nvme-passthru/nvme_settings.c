/*
 * The nvme-passthru backend's settings: its config group's keys, units, defaults and ranges. A
 * bad value is logged and replaced by its default, as in the fallback backend.
 */
#include <errno.h>
#include <string.h>

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
};

static int setting_mechanism(const struct hf_host_api *host)
{
    const char *value;
    int rc = host->config_string(host, "mechanism", &value);
    if (rc == -ENOENT)
        return NVME_MECH_AUTO;
    for (int i = 0; rc == 0 && i < (int)(sizeof(mechanism_names) / sizeof(mechanism_names[0]));
         i++) {
        if (value != NULL && strcmp(value, mechanism_names[i]) == 0)
            return i;
    }
    host->log(host, HF_LOG_WARN,
              "mechanism must be \"auto\", \"io_uring\" or \"ioctl\"; using the default \"auto\"");
    return NVME_MECH_AUTO;
}

const char *hf_nvme_mechanism_name(int mechanism)
{
    return mechanism >= 0 && mechanism <= NVME_MECH_IOCTL ? mechanism_names[mechanism] : "?";
}

void hf_nvme_settings_read(const struct hf_host_api *host, struct nvme_settings *set_p)
{
    struct nvme_settings set = {
        .writes = hf_plugin_setting_bool(host, "writes", false),
        .mechanism = setting_mechanism(host),
        .queue_depth = (unsigned)hf_plugin_setting_int(host, "queue_depth", QUEUE_DEPTH_DEFAULT, 1,
                                                       QUEUE_DEPTH_MAX, 1),
        .chunk_size =
            (size_t)hf_plugin_setting_int(host, "chunk_size_kb", CHUNK_KIB_DEFAULT, CHUNK_KIB_MIN,
                                          CHUNK_KIB_MAX, CHUNK_KIB_MULTIPLE) *
            1024,
        .slots_per_device = (unsigned)hf_plugin_setting_int(host, "staging_slots_per_device",
                                                            SLOTS_DEFAULT, 1, SLOTS_MAX, 1),
    };
    *set_p = set;
}
