/*
 * A user-space file system served through callbacks (userspace-fs.rst): a file kept in memory,
 * registered with hipFileHandleTypeUserspaceFS, written and read back through a GPU buffer.
 * Exits 0 when the bytes come back as written, 1 otherwise.
 */
#include <errno.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The file system's own object for one file; hipfile hands it back to every callback. */
struct mem_file {
    pthread_mutex_t lock; /* callbacks of one request run on several threads at once */
    char data[1 << 20];
    size_t size;
};

static const char *mem_fs_type(void *handle)
{
    (void)handle;
    return "memfs";
}

/* buf is host memory; rdma_info is always NULL. Returns bytes read, short only at the end. */
static ssize_t mem_read(void *handle, char *buf, size_t size, hoff_t offset,
                        hipFileRDMAInfo_t *rdma_info)
{
    struct mem_file *f = handle;
    (void)rdma_info;
    pthread_mutex_lock(&f->lock);
    size_t n = (size_t)offset < f->size ? f->size - (size_t)offset : 0;
    if (n > size)
        n = size;
    memcpy(buf, f->data + offset, n);
    pthread_mutex_unlock(&f->lock);
    return (ssize_t)n;
}

/* Returns bytes written, or -errno: hipFileWrite then fails with that errno. */
static ssize_t mem_write(void *handle, const char *buf, size_t size, hoff_t offset,
                         hipFileRDMAInfo_t *rdma_info)
{
    struct mem_file *f = handle;
    (void)rdma_info;
    if (size > sizeof(f->data) || (size_t)offset > sizeof(f->data) - size)
        return -ENOSPC;
    pthread_mutex_lock(&f->lock);
    memcpy(f->data + offset, buf, size);
    if ((size_t)offset + size > f->size)
        f->size = (size_t)offset + size;
    pthread_mutex_unlock(&f->lock);
    return (ssize_t)size;
}

static const hipFileFSOps_t mem_fs_ops = {
    .fs_type = mem_fs_type,
    .read = mem_read,
    .write = mem_write, /* NULL would make every file of this table read-only */
};

static struct mem_file file = {.lock = PTHREAD_MUTEX_INITIALIZER};

int main(void)
{
    hipFileDescr_t descr = {
        .type = hipFileHandleTypeUserspaceFS,
        .handle.hFile = &file, /* passed back to every callback */
        .fs_ops = &mem_fs_ops, /* must stay valid until the handle is deregistered */
    };
    hipFileHandle_t fh;
    hipFileError_t e = hipFileHandleRegister(&fh, &descr);
    if (e.err != hipFileSuccess) {
        printf("register: %s\n", hipFileGetOpErrorString(e.err));
        return 1;
    }

    const size_t size = 300001; /* any size and offset: no alignment is needed */
    char out[300001], back[300001];
    for (size_t i = 0; i < size; i++)
        out[i] = (char)(i * 7);
    void *gpu = NULL;
    if (hipMalloc(&gpu, size) != hipSuccess ||
        hipMemcpy(gpu, out, size, hipMemcpyHostToDevice) != hipSuccess)
        return 1;

    ssize_t wrote = hipFileWrite(fh, gpu, size, 4097, 0);
    if (hipMemset(gpu, 0, size) != hipSuccess)
        return 1;
    ssize_t read = hipFileRead(fh, gpu, size, 4097, 0);
    if (hipMemcpy(back, gpu, size, hipMemcpyDeviceToHost) != hipSuccess)
        return 1;
    printf("wrote %zd, read %zd bytes, file size %zu\n", wrote, read, file.size);

    hipFileHandleDeregister(fh);
    (void)hipFree(gpu);
    (void)hipFileDriverClose();
    return wrote == (ssize_t)size && read == (ssize_t)size && memcmp(out, back, size) == 0 ? 0 : 1;
}
