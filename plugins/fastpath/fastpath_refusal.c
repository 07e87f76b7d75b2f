/* The texts the engines give when they refuse a request, shared by all three. */
#include <string.h>

#include "common/align.h"
#include "fastpath_internal.h"

const char *fastpath_errno_text(int err)
{
    const char *text = strerrordesc_np(err);
    return text != NULL ? text : "unknown error";
}

const char *fastpath_alignment_refusal(const struct hf_io_request *req, uint64_t offset_align,
                                       uint64_t mem_align)
{
    if (!hfp_align_is_pow2(offset_align) || !hfp_align_is_pow2(mem_align))
        return "the file's O_DIRECT alignment is unknown";
    if (!hfp_align_is_aligned((uint64_t)req->file_offset, offset_align))
        return "the file offset is not a multiple of the O_DIRECT block size";
    if (!hfp_align_is_aligned(req->size, offset_align))
        return "the size is not a multiple of the O_DIRECT block size";
    const char *mem = (const char *)req->buf->base + req->buf_offset;
    if (!hfp_align_ptr_is_aligned(mem, mem_align))
        return "the buffer address is not aligned for O_DIRECT";
    return NULL;
}
