/*
 * Scatter-gather reads and writes: an extension of hipfile's own (AMD's hipFile has none; cuFile
 * 1.19 has cuFileReadv/cuFileWritev, which libcufile.so.0 serves through these). One contiguous
 * range of the file moves to or from a list of memory ranges, device or host, registered or not;
 * the pieces run at once on the library's I/O workers (docs/api-extensions.rst).
 */
#ifndef HIPFILE_VECTOR_H
#define HIPFILE_VECTOR_H

#include <hipfile.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One memory range of a vector read or write. */
typedef struct hipFileIOVec {
    void *base; /**< start of the range: device memory, or host memory where it is allowed */
    size_t len; /**< bytes in the range; 0 is allowed and moves nothing */
} hipFileIOVec_t;

/** Most entries one hipFileReadv or hipFileWritev takes (as Linux's IOV_MAX). */
#define HIPFILE_IOV_MAX 1024

/**
 * Read the file range that starts at @p file_offset into @p iovcnt memory ranges, in order: the
 * first iov[0].len bytes into iov[0].base, the next into iov[1].base, and so on. Returns the bytes
 * read, counted in order up to the first range that came back short (end of file) or failed: a
 * short count is end of file or an error after some bytes, which the log names, as preadv(2)
 * does. With nothing read, returns -1 with errno set (as hipFileRead), or a negated
 * hipFileOpError_t: hipFileInvalidValue for a NULL @p iov with @p iovcnt > 0, a NULL base with a
 * length, more than HIPFILE_IOV_MAX entries, lengths whose sum overflows, or @p flags other than
 * 0; hipFileHandleNotRegistered for an unknown @p fh. @p iovcnt 0 returns 0.
 */
ssize_t hipFileReadv(hipFileHandle_t fh, const hipFileIOVec_t *iov, size_t iovcnt,
                     hoff_t file_offset, unsigned flags);

/**
 * Write @p iovcnt memory ranges, in order, to the file range that starts at @p file_offset.
 * Returns the bytes written, counted as hipFileReadv counts them; the ranges run at once, so after
 * a failure bytes past the count returned may have been written too. Errors as hipFileReadv.
 */
ssize_t hipFileWritev(hipFileHandle_t fh, const hipFileIOVec_t *iov, size_t iovcnt,
                      hoff_t file_offset, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif
