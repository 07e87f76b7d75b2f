/*
 * libFuzzer target: random sequences of public API calls on the host runtime. Each input byte
 * picks a call (driver open/close, file and buffer registration and deregistration, reads and
 * writes with arbitrary sizes and offsets, stale and forged handles and pointers); later bytes
 * are its arguments. At the end of an input everything is given back, so a leak is a bug.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include "fuzz_scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FILES = 2, HANDLES = 4, BUFFERS = 2, BUFFER_BYTES = 64 * 1024, FILE_BYTES = 64 * 1024 };

static char file_paths[FILES][4096];
static void *buffers[BUFFERS];
static uint8_t host_buffer[BUFFER_BYTES];

struct input {
    const uint8_t *data;
    size_t size;
};

static uint64_t take(struct input *in, size_t bytes)
{
    uint64_t value = 0;
    for (size_t i = 0; i < bytes && in->size > 0; i++) {
        value = (value << 8) | in->data[0];
        in->data++;
        in->size--;
    }
    return value;
}

static void setup_once(void)
{
    char dir[3800];
    fuzz_scratch_dir("api", dir, sizeof(dir));
    char config[4096];
    snprintf(config, sizeof(config), "%s/fuzz.conf", dir);
    FILE *f = fopen(config, "w");
    if (f == NULL)
        abort();
    fprintf(f, "log = { level = \"error\"; };\nplugins = { directory = \"%s\"; };\n",
            HF_FUZZ_PLUGIN_DIR);
    fclose(f);
    setenv("HIPFILE_CONFIG", config, 1);
    setenv("HIPFILE_GPU_RUNTIME", "host", 1);
    for (int i = 0; i < FILES; i++) {
        snprintf(file_paths[i], sizeof(file_paths[i]), "%s/file-%d", dir, i);
        int fd = open(file_paths[i], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || ftruncate(fd, FILE_BYTES) != 0)
            abort();
        close(fd);
    }
    for (int i = 0; i < BUFFERS; i++) {
        if (hipMalloc(&buffers[i], BUFFER_BYTES) != hipSuccess)
            abort();
    }
}

/* A buffer pointer: one of ours at an offset, pageable host memory, or any value at all. */
static void *pick_pointer(struct input *in)
{
    uint8_t which = (uint8_t)take(in, 1);
    uint32_t offset = (uint32_t)take(in, 2) % (BUFFER_BYTES + 1);
    switch (which % 4) {
    case 0:
    case 1:
        return (char *)buffers[which % BUFFERS] + offset;
    case 2:
        return host_buffer + offset % BUFFER_BYTES;
    default:
        return (void *)(uintptr_t)take(in, 8);
    }
}

static hipFileHandle_t pick_handle(struct input *in, const hipFileHandle_t *handles)
{
    uint8_t which = (uint8_t)take(in, 1);
    if (which < 0xf0)
        return handles[which % HANDLES];
    return (hipFileHandle_t)(uintptr_t)take(in, 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (buffers[0] == NULL)
        setup_once();
    struct input in = {data, size};
    int fds[FILES + 1];
    for (int i = 0; i < FILES; i++)
        fds[i] = open(file_paths[i], (i == 0 ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    fds[FILES] = -1;
    hipFileHandle_t handles[HANDLES] = {0};
    int64_t opens = 0;
    hipFileDescr_t descr;

    while (in.size > 0) {
        uint8_t op = (uint8_t)take(&in, 1);
        switch (op % 8) {
        case 0:
            if (hipFileDriverOpen().err == hipFileSuccess)
                opens++;
            break;
        case 1:
            if (hipFileDriverClose().err == hipFileSuccess)
                opens--;
            break;
        case 2: {
            unsigned slot = (unsigned)take(&in, 1) % HANDLES;
            memset(&descr, 0, sizeof(descr));
            descr.type = (hipFileFileHandleType_t)(take(&in, 1) % 3 == 0 ? 2 : 1);
            descr.handle.fd = fds[take(&in, 1) % (FILES + 1)];
            hipFileHandle_t fh = NULL;
            if (hipFileHandleRegister(&fh, &descr).err == hipFileSuccess) {
                if (handles[slot] != NULL)
                    hipFileHandleDeregister(handles[slot]);
                handles[slot] = fh;
            }
            break;
        }
        case 3: {
            hipFileHandle_t fh = pick_handle(&in, handles);
            hipFileHandleDeregister(fh);
            break;
        }
        case 4: {
            void *ptr = pick_pointer(&in);
            size_t length = (size_t)take(&in, 3);
            (void)hipFileBufRegister(ptr, length, (int)take(&in, 1));
            break;
        }
        case 5:
            (void)hipFileBufDeregister(pick_pointer(&in));
            break;
        case 6:
        case 7: {
            hipFileHandle_t fh = pick_handle(&in, handles);
            void *ptr = pick_pointer(&in);
            size_t bytes = (size_t)take(&in, 3);
            hoff_t file_offset = (hoff_t)take(&in, 8);
            hoff_t buffer_offset =
                (hoff_t)take(&in, 1) % 4 == 0 ? (hoff_t)take(&in, 8) : (hoff_t)take(&in, 2);
            if (op % 8 == 6)
                (void)hipFileRead(fh, ptr, bytes, file_offset, buffer_offset);
            else
                (void)hipFileWrite(fh, ptr, bytes, file_offset, buffer_offset);
            break;
        }
        }
    }

    /* Give everything back: registrations end with the last close. */
    for (int i = 0; i < HANDLES; i++)
        hipFileHandleDeregister(handles[i]);
    for (int i = 0; i < BUFFERS; i++)
        (void)hipFileBufDeregister(buffers[i]);
    while (hipFileUseCount() > 0)
        (void)hipFileDriverClose();
    (void)opens;
    for (int i = 0; i < FILES; i++)
        close(fds[i]);
    return 0;
}
