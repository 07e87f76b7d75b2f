/*
 * register-file-and-buffer: the full life of a hipfile program, in C++ as AMD's own examples are:
 * open the driver, register a file and a GPU buffer, read the file into the buffer, check every
 * byte against a plain POSIX read, then tear everything down in reverse order. Usage:
 * register-file-and-buffer [FILE]. Without FILE it writes and reads a temporary pattern file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "common.h"

#include <hip/hip_runtime_api.h>
#include <hipfile.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace
{

/* The GPU buffer holds at most this much of the file at a time. */
constexpr size_t kChunkBytes = 8u << 20;
/* Size of the file made when none is given: several chunks and a partial page. */
constexpr size_t kPatternFileBytes = 3 * kChunkBytes + 1234;

/* Write a pattern file under $TMPDIR (or /tmp); returns its path, or an empty string. */
std::string make_pattern_file()
{
    const char *dir = std::getenv("TMPDIR");
    std::string path =
        std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/hipfile-register-XXXXXX";
    std::vector<char> name(path.begin(), path.end());
    name.push_back('\0');
    int fd = mkstemp(name.data());
    if (fd < 0) {
        std::fprintf(stderr, "cannot create %s: %s\n", path.c_str(), std::strerror(errno));
        return std::string();
    }
    std::vector<unsigned char> bytes(kPatternFileBytes);
    example_pattern_fill(bytes.data(), bytes.size(), 0, 42);
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) {
            std::fprintf(stderr, "cannot write %s: %s\n", name.data(), std::strerror(errno));
            close(fd);
            unlink(name.data());
            return std::string();
        }
        done += static_cast<size_t>(n);
    }
    close(fd);
    return std::string(name.data());
}

/* Read [offset, offset+size) with pread from a second, ordinary descriptor. */
bool read_plain(int fd, std::vector<unsigned char> &out, size_t size, off_t offset)
{
    out.resize(size);
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, out.data() + done, size - done, offset + static_cast<off_t>(done));
        if (n <= 0)
            return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

} // namespace

int main(int argc, char *argv[])
{
    /* Line-buffered, so our lines stay in order with the library's log lines on stderr. */
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    if (argc > 2) {
        std::fprintf(stderr, "usage: %s [FILE]\n", argv[0]);
        return 2;
    }
    std::string made;
    if (argc == 1) {
        made = make_pattern_file();
        if (made.empty())
            return EXIT_FAILURE;
    }
    const char *path = argc == 2 ? argv[1] : made.c_str();

    int exit_status = EXIT_FAILURE;
    int fd = -1, plain_fd = -1;
    hipFileHandle_t handle = nullptr;
    void *devbuf = nullptr;
    size_t file_size = 0, buffer_size = 0, checked = 0;
    hipError_t hip_err;
    hipFileError_t status;
    std::vector<unsigned char> from_gpu, from_file;

    /* 1. Open the driver explicitly (registration would open it implicitly, too). */
    example_enable_stats();
    status = hipFileDriverOpen();
    if (status.err != hipFileSuccess) {
        example_print_error("hipFileDriverOpen", status);
        goto remove_made;
    }
    std::printf("driver open, use count %lld\n", static_cast<long long>(hipFileUseCount()));
    example_report_runtime();

    /* 2. Open the file (O_DIRECT where the filesystem allows it) and register it. */
    fd = open(path, O_RDONLY | O_DIRECT);
    if (fd < 0 && errno == EINVAL)
        fd = open(path, O_RDONLY);
    if (fd < 0) {
        std::fprintf(stderr, "cannot open %s: %s\n", path, std::strerror(errno));
        goto close_driver;
    }
    {
        hipFileDescr_t descr{};
        descr.type = hipFileHandleTypeOpaqueFD;
        descr.handle.fd = fd;
        status = hipFileHandleRegister(&handle, &descr);
        if (status.err != hipFileSuccess) {
            example_print_error("hipFileHandleRegister", status);
            goto close_fd;
        }
    }
    {
        struct stat st;
        if (fstat(fd, &st) != 0) {
            std::fprintf(stderr, "cannot stat %s: %s\n", path, std::strerror(errno));
            goto deregister_file;
        }
        file_size = static_cast<size_t>(st.st_size);
    }
    std::printf("registered %s (%zu bytes)\n", path, file_size);

    /* 3. Allocate GPU memory and register it, rounded up to whole pages. */
    buffer_size = (std::min(std::max(file_size, size_t{1}), kChunkBytes) + 4095) & ~size_t{4095};
    hip_err = hipMalloc(&devbuf, buffer_size);
    if (hip_err != hipSuccess) {
        std::fprintf(stderr, "hipMalloc(%zu) failed: %s\n", buffer_size,
                     hipGetErrorString(hip_err));
        goto deregister_file;
    }
    status = hipFileBufRegister(devbuf, buffer_size, 0);
    if (status.err != hipFileSuccess) {
        example_print_error("hipFileBufRegister", status);
        goto free_devbuf;
    }
    std::printf("registered a %zu-byte GPU buffer\n", buffer_size);

    /* 4. Read the file chunk by chunk into the GPU and compare with what POSIX reads. */
    plain_fd = open(path, O_RDONLY);
    if (plain_fd < 0) {
        std::fprintf(stderr, "cannot open %s: %s\n", path, std::strerror(errno));
        goto deregister_buf;
    }
    while (checked < file_size) {
        size_t want = std::min(buffer_size, file_size - checked);
        ssize_t nread = hipFileRead(handle, devbuf, want, static_cast<hoff_t>(checked), 0);
        if (nread < 0) {
            example_print_io_error("hipFileRead", nread);
            goto close_plain;
        }
        if (nread == 0) {
            std::fprintf(stderr, "unexpected end of file at %zu\n", checked);
            goto close_plain;
        }
        size_t got = static_cast<size_t>(nread);
        from_gpu.resize(got);
        hip_err = hipMemcpy(from_gpu.data(), devbuf, got, hipMemcpyDeviceToHost);
        if (hip_err != hipSuccess) {
            std::fprintf(stderr, "hipMemcpy failed: %s\n", hipGetErrorString(hip_err));
            goto close_plain;
        }
        if (!read_plain(plain_fd, from_file, got, static_cast<off_t>(checked))) {
            std::fprintf(stderr, "pread of %s failed at %zu\n", path, checked);
            goto close_plain;
        }
        auto diff = std::mismatch(from_gpu.begin(), from_gpu.end(), from_file.begin());
        if (diff.first != from_gpu.end()) {
            size_t at = checked + static_cast<size_t>(diff.first - from_gpu.begin());
            std::fprintf(stderr, "MISMATCH at byte %zu: GPU has 0x%02x, file has 0x%02x\n", at,
                         *diff.first, *diff.second);
            goto close_plain;
        }
        checked += got;
    }
    std::printf("read %zu bytes into GPU memory; every byte matches the file\n", checked);
    example_report_path();
    exit_status = EXIT_SUCCESS;

    /* 5. Tear down in reverse order, checking each step. */
close_plain:
    close(plain_fd);
deregister_buf:
    status = hipFileBufDeregister(devbuf);
    if (status.err != hipFileSuccess) {
        example_print_error("hipFileBufDeregister", status);
        exit_status = EXIT_FAILURE;
    }
free_devbuf:
    hip_err = hipFree(devbuf);
    if (hip_err != hipSuccess) {
        std::fprintf(stderr, "hipFree failed: %s\n", hipGetErrorString(hip_err));
        exit_status = EXIT_FAILURE;
    }
deregister_file:
    hipFileHandleDeregister(handle);
close_fd:
    if (close(fd) != 0) {
        std::fprintf(stderr, "cannot close %s: %s\n", path, std::strerror(errno));
        exit_status = EXIT_FAILURE;
    }
close_driver:
    status = hipFileDriverClose();
    if (status.err != hipFileSuccess) {
        example_print_error("hipFileDriverClose", status);
        exit_status = EXIT_FAILURE;
    }
    if (hipFileUseCount() != 0) {
        std::fprintf(stderr, "driver use count is %lld after close, expected 0\n",
                     static_cast<long long>(hipFileUseCount()));
        exit_status = EXIT_FAILURE;
    }
    std::printf("torn down: driver use count %lld\n", static_cast<long long>(hipFileUseCount()));
remove_made:
    if (!made.empty())
        unlink(made.c_str());
    return exit_status;
}
