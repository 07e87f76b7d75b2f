/*
 * --explain: registers the file and a buffer through the core's own registration (so every
 * backend accepts or declines them as it would for an application), builds the request exactly
 * as hipFileRead/hipFileWrite build it, and prints the selector's verdict for each backend.
 */
#include <errno.h>
#include <fcntl.h>
#include <hipfile.h>
#include <hipfile/remote.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

int explain_open(const struct check_options *opts)
{
    int fd = open(opts->explain, (opts->write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        /* A URL given for a file is named without its password or signature. */
        char shown[1024];
        hipFileRedactUrls(opts->explain, shown, sizeof(shown));
        fprintf(stderr, CHECK_NAME ": --explain %s: cannot open it %s: %s\n", shown,
                opts->write ? "for reading and writing" : "for reading", strerror(err));
        return -err;
    }
    return fd;
}

/* ---- the buffer ---------------------------------------------------------------------------- */

/* A buffer of the memory type asked for, allocated through the runtime the core bound. */
struct explain_buffer {
    enum check_mem mem;
    void *base;
    size_t size;
    int (*device_free)(void *ptr);
};

/*
 * Allocating through the bound runtime's own functions keeps the buffer known to the core even
 * when gpu.runtime names another provider than the one this program links. Returns 0, or the
 * runtime's error code (or ENOMEM for malloc) with *what_p naming the call.
 */
static int buffer_alloc(struct explain_buffer *b, enum check_mem mem, size_t size,
                        const char **what_p)
{
    int rc = 0;
    b->mem = mem;
    b->size = size;
    b->base = NULL;
    switch (mem) {
    case CHECK_MEM_DEVICE: {
        int (*device_malloc)(void **ptr_p, size_t size);
        *what_p = "hipMalloc";
        *(void **)&device_malloc = hf_introspect_runtime_symbol("hipMalloc");
        *(void **)&b->device_free = hf_introspect_runtime_symbol("hipFree");
        if (device_malloc == NULL || b->device_free == NULL)
            return ENOSYS;
        rc = device_malloc(&b->base, size);
        break;
    }
    case CHECK_MEM_PINNED:
        *what_p = "hipHostMalloc";
        rc = hf_introspect_host_malloc(&b->base, size);
        break;
    case CHECK_MEM_HOST:
        *what_p = "malloc";
        b->base = malloc(size);
        rc = b->base != NULL ? 0 : ENOMEM;
        break;
    }
    if (rc != 0)
        b->base = NULL;
    return rc;
}

static void buffer_free(struct explain_buffer *b)
{
    if (b->base == NULL)
        return;
    switch (b->mem) {
    case CHECK_MEM_DEVICE:
        b->device_free(b->base);
        break;
    case CHECK_MEM_PINNED:
        hf_introspect_host_free(b->base);
        break;
    case CHECK_MEM_HOST:
        free(b->base);
        break;
    }
    b->base = NULL;
}

/* ---- what the core recorded ---------------------------------------------------------------- */

static const char *file_kind_words(int kind)
{
    switch (kind) {
    case HF_FILE_BLOCK:
        return "block device";
    case HF_FILE_USERSPACE_FS:
        return "user-space filesystem file";
    case HF_FILE_REMOTE:
        return "remote object";
    default:
        return "regular file";
    }
}

static void emit_file_facts(struct emit *e, const struct hf_file_info *info)
{
    emit_section(e, "file_facts", "File as registered");
    emit_str(e, "kind", "kind", file_kind_words(info->kind));
    emit_str(e, "fs", "file system", info->fs_name);
    emit_strf(e, "fs_magic", NULL, "0x%llx", (unsigned long long)info->fs_magic);
    emit_str(e, "ext4_data_mode", info->ext4_data_mode[0] ? "ext4 data mode" : NULL,
             info->ext4_data_mode);
    emit_int(e, "size", "size at registration", (long long)info->size_at_register);
    emit_bool(e, "direct_fd", "O_DIRECT descriptor", info->direct_fd >= 0);
    if (info->direct_fd < 0)
        emit_text(e, "(the file system refuses O_DIRECT: only buffered I/O is possible)");
    emit_int(e, "dio_mem_align", NULL, info->dio_mem_align);
    emit_int(e, "dio_offset_align", NULL, info->dio_offset_align);
    if (info->direct_fd >= 0)
        emit_strf(e, NULL, "O_DIRECT alignment", "memory %u bytes, offset and size %u bytes",
                  info->dio_mem_align, info->dio_offset_align);
    emit_end(e);
}

static void emit_buffer_facts(struct emit *e, const struct hf_buf_info *info)
{
    emit_str(e, "mem_type", "memory type", hf_introspect_buffer_mem_name(info->mem_type));
    emit_int(e, "device", info->device >= 0 ? "device" : NULL, info->device);
    emit_int(e, "length", "length", (long long)info->length);
    emit_bool(e, "host_accessible", "CPU can address it", info->host_accessible);
    emit_bool(e, "registered", "registered", info->registered);
}

/* ---- the verdict --------------------------------------------------------------------------- */

struct explain_state {
    struct hf_introspect_file *file;
    struct hf_introspect_buffer *buffer;
};

static void emit_candidates(struct emit *e, const struct hf_introspect_candidate *c, size_t n)
{
    emit_list(e, "backends", "Backends, in the order they would be tried");
    if (n == 0)
        emit_text(e, "none: no backend is loaded");
    for (size_t i = 0; i < n; i++) {
        bool file_declined = c[i].declined_file;
        bool buffer_declined = c[i].declined_buffer;
        bool candidate = c[i].score >= 0;
        const char *declined = file_declined && buffer_declined ? " (declined file and buffer)"
                               : file_declined                  ? " (declined the file)"
                               : buffer_declined                ? " (declined the buffer)"
                                                                : "";
        if (candidate)
            emit_item(e, "%zu. %s: score %d: %s", i + 1, c[i].name, c[i].score, c[i].reason);
        else
            emit_item(e, "refused by %s: %s%s", c[i].name, c[i].reason, declined);
        emit_str(e, "name", NULL, c[i].name);
        emit_bool(e, "candidate", NULL, candidate);
        if (candidate)
            emit_int(e, "rank", NULL, (long long)i + 1);
        else
            emit_str(e, "rank", NULL, NULL);
        emit_int(e, "score", NULL, c[i].score);
        emit_str(e, "reason", NULL, c[i].reason);
        emit_bool(e, "declined_file", NULL, file_declined);
        emit_bool(e, "declined_buffer", NULL, buffer_declined);
        emit_int(e, "priority", NULL, c[i].priority);
        emit_end(e);
    }
    emit_end(e);
}

/* What happens after the first candidate fails, as hf_selector_submit does it. */
static void emit_retry_rule(struct emit *e, const struct hf_introspect_candidate *c, size_t usable)
{
    char text[1024];
    enum hf_introspect_compat mode = hf_introspect_compat_mode();
    if (usable == 0)
        snprintf(text, sizeof(text),
                 "no backend would serve it: hipFileRead/hipFileWrite "
                 "would fail with hipFileInternalError");
    else if (usable == 1)
        snprintf(text, sizeof(text), "%s is the only candidate: its result is final", c[0].name);
    else if (mode == HF_INTROSPECT_COMPAT_OFF)
        snprintf(text, sizeof(text),
                 "properties.compat_mode is off: %s's result is final, no other backend is tried",
                 c[0].name);
    else
        snprintf(text, sizeof(text),
                 "if %s fails with ENODEV, EREMOTEIO or an errno its manifest lists, having moved "
                 "nothing, %s serves the request next, and so on down the list",
                 c[0].name, c[1].name);
    emit_str(e, "fallback", "fallback chain", text);
}

static void emit_rank(struct emit *e, const struct check_options *opts,
                      const struct explain_state *st, size_t *usable_p)
{
    size_t size = opts->size;
    if (size > HF_INTROSPECT_IO_MAX_BYTES) {
        size = HF_INTROSPECT_IO_MAX_BYTES;
        emit_text(e,
                  "(a backend call moves at most %zu bytes; the core serves the request in pieces "
                  "of that size, each ranked like this one)",
                  (size_t)HF_INTROSPECT_IO_MAX_BYTES);
    }
    emit_int(e, "request_size", NULL, (long long)size);
    struct hf_introspect_candidate candidates[HF_INTROSPECT_MAX_BACKENDS];
    size_t n = hf_introspect_rank(st->file, st->buffer, opts->write, size, opts->offset, candidates,
                                  HF_INTROSPECT_MAX_BACKENDS);
    size_t usable = 0;
    while (usable < n && candidates[usable].score >= 0)
        usable++;

    emit_candidates(e, candidates, n);
    emit_list(e, "order", NULL);
    for (size_t i = 0; i < usable; i++)
        emit_elem(e, candidates[i].name);
    emit_end(e);
    if (usable > 0) {
        emit_str(e, "served_by", NULL, candidates[0].name);
        emit_int(e, "served_score", NULL, candidates[0].score);
        emit_strf(e, NULL, "would be served by", "%s (score %d)", candidates[0].name,
                  candidates[0].score);
    } else {
        emit_str(e, "served_by", "would be served by", NULL);
        emit_str(e, "served_score", NULL, NULL);
    }
    struct hf_introspect_setting compat;
    hf_introspect_setting_of(HF_INTROSPECT_COMPAT_MODE, &compat);
    emit_str(e, "compat_mode", "compat mode", compat.text);
    emit_retry_rule(e, candidates, usable);
    *usable_p = usable;
}

const char *const check_mem_names[CHECK_MEM_KINDS] = {
    [CHECK_MEM_DEVICE] = "device", [CHECK_MEM_PINNED] = "pinned", [CHECK_MEM_HOST] = "host"};

/* ---- the whole explanation ----------------------------------------------------------------- */

static void emit_request(struct emit *e, const struct check_options *opts)
{
    emit_str(e, "file", "file", opts->explain);
    emit_str(e, "op", "operation", opts->write ? "write" : "read");
    emit_int(e, "size", "size", (long long)opts->size);
    emit_int(e, "offset", "file offset", (long long)opts->offset);
    emit_str(e, "mem", "memory", check_mem_names[opts->mem]);
}

/* The core's last error line since @p from, or @p fallback. */
static const char *logged_error(struct check_setup *s, off_t from, const char *fallback, char *buf,
                                size_t size)
{
    char *log = capture_text(&s->capture, from);
    const char *why = log != NULL ? log_last_error(log, buf, size) : NULL;
    free(log);
    return why != NULL ? why : fallback;
}

/*
 * The "buffer" section: a buffer of opts->mem allocated and registered as the request's. Returns
 * 0 with it in *buffer and st->buffer, or -1 after emitting why (the allocation already freed).
 */
static int register_buffer(struct emit *e, struct check_setup *s, const struct check_options *opts,
                           off_t from, struct explain_buffer *buffer, struct explain_state *st)
{
    char why[2048];
    const char *what = "";
    int rc = buffer_alloc(buffer, opts->mem, opts->size, &what);
    emit_section(e, "buffer", "Buffer as registered");
    if (rc != 0) {
        const char *text = opts->mem == CHECK_MEM_HOST || rc == ENOSYS
                               ? strerror(rc)
                               : hf_introspect_runtime_error(rc);
        emit_strf(e, "error", "error", "%s of %zu bytes failed: %s", what, opts->size, text);
        emit_end(e);
        return -1;
    }
    hipFileError_t status_buf =
        hf_introspect_buffer_register(buffer->base, opts->size, &st->buffer);
    if (st->buffer == NULL) {
        const char *core_says =
            logged_error(s, from, hipFileGetOpErrorString(status_buf.err), why, sizeof(why));
        /* Say what to change unless the core's own line already does. */
        struct hf_introspect_setting system_memory;
        hf_introspect_setting_of(HF_INTROSPECT_ALLOW_SYSTEM_MEMORY, &system_memory);
        bool hint = opts->mem != CHECK_MEM_DEVICE && !system_memory.num &&
                    strstr(core_says, "allow_system_memory") == NULL;
        emit_strf(e, "error", "error",
                  "the core refuses this buffer before any backend sees it: %s%s", core_says,
                  hint ? " (host memory is accepted only with properties.allow_system_memory = "
                         "true)"
                       : "");
        emit_end(e);
        buffer_free(buffer);
        return -1;
    }
    emit_buffer_facts(e, hf_introspect_buffer_info(st->buffer));
    emit_str(e, "error", NULL, NULL);
    emit_end(e);
    return 0;
}

int explain_request(struct emit *e, struct check_setup *s, const struct check_options *opts, int fd)
{
    char why[2048];
    int status = CHECK_EXIT_UNUSABLE;
    off_t from = capture_mark(&s->capture);
    struct explain_state st = {NULL, NULL};
    struct explain_buffer buffer = {.base = NULL};
    bool ranked = false;
    bool failed = false; /* "error" of the explanation itself is set */

    emit_section(e, "explain", "Request");
    emit_request(e, opts);

    if (check_setup_problem(s, why, sizeof(why)) != NULL) {
        emit_strf(e, "error", "error", "the library cannot be set up: %s", why);
        failed = true;
        goto out;
    }
    /* Registration opens the driver, which loads the config again: capture from then on. */
    hipFileOpError_t err = hf_introspect_driver_open();
    capture_resume(&s->capture, HF_LOG_DEBUG);
    if (err != hipFileSuccess) {
        emit_strf(e, "error", "error", "the library cannot be set up: %s",
                  logged_error(s, from, hipFileGetOpErrorString(err), why, sizeof(why)));
        failed = true;
        goto out;
    }

    hipFileError_t status_fh = hf_introspect_file_register(fd, &st.file);
    if (status_fh.err != hipFileSuccess) {
        emit_strf(e, "error", "error", "the core refuses the file: %s",
                  logged_error(s, from, hipFileGetOpErrorString(status_fh.err), why, sizeof(why)));
        failed = true;
        goto out;
    }
    emit_file_facts(e, hf_introspect_file_info(st.file));

    if (register_buffer(e, s, opts, from, &buffer, &st) != 0)
        goto release_file;

    size_t usable = 0;
    emit_rank(e, opts, &st, &usable);
    ranked = true;
    status = usable > 0 ? CHECK_EXIT_USABLE : CHECK_EXIT_UNUSABLE;

    hf_introspect_buffer_release(st.buffer);
    buffer_free(&buffer);
release_file:
    hf_introspect_file_release(st.file);
out:
    if (!ranked) {
        /* Scripts find the same members whether or not the request got as far as the selector. */
        emit_list(e, "backends", NULL);
        emit_end(e);
        emit_list(e, "order", NULL);
        emit_end(e);
        emit_str(e, "served_by", "would be served by", NULL);
    }
    if (!failed)
        emit_str(e, "error", NULL, NULL);
    emit_end(e);
    s->explain_log = capture_text(&s->capture, from);
    return status;
}
