/*
 * A hipfile extension of the cuFile API (cuFile has no URL API): an object named by a URL as a
 * CUfileHandle_t, so cuFileRead, cuFileReadAsync and the batch calls work on it unchanged and
 * cuFileHandleDeregister releases it. It is hipFileRemoteOpen (<hipfile/remote.h>) with cuFile's
 * status type; the remote backend serves the handle (docs/backends/remote.rst).
 */
#ifndef HIPFILE_CUFILE_REMOTE_H
#define HIPFILE_CUFILE_REMOTE_H

#include "cufile.h"

#ifdef __cplusplus
extern "C" {
#endif

/** cuFileRemoteOpen flag: read the object. */
#define CU_FILE_REMOTE_READ 0
/** cuFileRemoteOpen flag: write the object whole, by one cuFileWrite at offset 0 (s3:// only). */
#define CU_FILE_REMOTE_WRITE 1

/**
 * Register the object at @p url ("http://", "https://" or "s3://bucket/key") with @p options
 * ("key=value;..." of the remote backend, or NULL) for @p flags (CU_FILE_REMOTE_READ or
 * CU_FILE_REMOTE_WRITE), the handle in *fh. Returns CU_FILE_SUCCESS or the cuFile code of
 * hipFileRemoteOpen's error: CU_FILE_INVALID_VALUE for a bad argument or a missing object,
 * CU_FILE_PERMISSION_DENIED for refused access or a write to an HTTP URL,
 * CU_FILE_IO_NOT_SUPPORTED without the remote plugin, CU_FILE_DRIVER_ERROR for a failing server.
 */
CUfileError_t cuFileRemoteOpen(const char *url, const char *options, int flags, CUfileHandle_t *fh);

#ifdef __cplusplus
}
#endif

#endif /* HIPFILE_CUFILE_REMOTE_H */
