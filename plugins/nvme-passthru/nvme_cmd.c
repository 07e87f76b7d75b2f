/*
 * NVMe Read, Write and Flush commands as the kernel's passthrough interface takes them, and what
 * their results mean. The rule that matters most lives here: the data length is derived from the
 * block count, never given separately.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nvme_passthru_internal.h"

/* 512-byte to 64 KiB logical blocks: the range NVMe LBA formats (LBADS 9..16) allow. */
#define LBA_SHIFT_MIN 9
#define LBA_SHIFT_MAX 16

int nvme_cmd_encode(const struct nvme_io *io, struct nvme_passthru_cmd64 *cmd_p)
{
    if (io->lba_shift < LBA_SHIFT_MIN || io->lba_shift > LBA_SHIFT_MAX)
        return -EINVAL;
    bool has_data = io->opcode != NVME_OP_FLUSH;
    if (has_data && (io->blocks == 0 || io->blocks > NVME_MAX_BLOCKS_PER_CMD || io->buf == NULL))
        return -EINVAL;
    if (!has_data && io->blocks != 0)
        return -EINVAL;
    uint64_t data_len = (uint64_t)io->blocks << io->lba_shift;
    if (data_len > UINT32_MAX)
        return -EINVAL;
    struct nvme_passthru_cmd64 cmd;
    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = io->opcode;
    cmd.nsid = io->nsid;
    if (has_data) {
        cmd.addr = (uint64_t)(uintptr_t)io->buf;
        cmd.data_len = (uint32_t)data_len;
        cmd.cdw10 = (uint32_t)io->slba;
        cmd.cdw11 = (uint32_t)(io->slba >> 32);
        /* NLB is 0-based; DTYPE, PRINFO, FUA and LR stay 0. */
        cmd.cdw12 = io->blocks - 1;
    }
    *cmd_p = cmd;
    return 0;
}

int nvme_status_to_errno(int result)
{
    if (result == 0)
        return 0;
    if (result < 0)
        return result;
    return -EREMOTEIO;
}

/* Names of the generic status codes a read or write is likely to meet (NVMe base spec 1.4+). */
static const char *generic_status_name(unsigned sc)
{
    switch (sc) {
    case 0x02:
        return "invalid field in command";
    case 0x04:
        return "data transfer error";
    case 0x06:
        return "internal error";
    case 0x0b:
        return "invalid namespace or format";
    case 0x0f:
        return "data SGL length invalid";
    case 0x80:
        return "LBA out of range";
    case 0x81:
        return "capacity exceeded";
    case 0x82:
        return "namespace not ready";
    default:
        return "generic status";
    }
}

const char *nvme_status_text(int status, char *text, size_t size)
{
    unsigned sc = (unsigned)status & 0xffu;
    unsigned sct = ((unsigned)status >> 8) & 0x7u;
    bool dnr = ((unsigned)status & 0x4000u) != 0;
    const char *what = sct == 0   ? generic_status_name(sc)
                       : sct == 1 ? "command specific status"
                       : sct == 2 ? "media or data integrity error"
                       : sct == 3 ? "path related status"
                                  : "vendor specific status";
    snprintf(text, size, "NVMe status 0x%x (SCT %u, SC 0x%02x: %s%s)", (unsigned)status, sct, sc,
             what, dnr ? ", do not retry" : "");
    return text;
}
