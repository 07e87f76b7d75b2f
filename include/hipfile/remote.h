/*
 * Remote objects as hipFile handles: an extension of hipfile's own (AMD's hipFile has no URL API).
 * hipfileRemoteOpen registers an object named by a URL and returns an ordinary hipFileHandle_t, so
 * hipFileRead, hipFileReadAsync and the batch API work on it unchanged; hipFileHandleDeregister
 * releases it. The `remote` backend plugin serves these handles (docs/backends/remote.rst).
 */
#ifndef HIPFILE_REMOTE_H
#define HIPFILE_REMOTE_H

#include <hipfile.h>

#ifdef __cplusplus
extern "C" {
#endif

/** hipfileRemoteOpen flag: open the object for reading (the object must exist). */
#define HIPFILE_REMOTE_READ 0
/**
 * hipfileRemoteOpen flag: open the object for writing. Only s3:// URLs may be written; the object
 * is written whole by one hipFileWrite at offset 0 (docs/backends/remote.rst).
 */
#define HIPFILE_REMOTE_WRITE 1

/**
 * Register the object at @p url: "http://host[:port]/path" or "https://..." (any server that
 * answers ranged GETs), or "s3://bucket/key". @p options is NULL or "key=value" pairs separated by
 * ';', each key one of the remote plugin's settings, overriding it for this handle (for example
 * "retries=2;request_timeout_ms=5000"). @p flags is HIPFILE_REMOTE_READ or HIPFILE_REMOTE_WRITE.
 * A read opens the object (an HTTP HEAD) and pins its size and ETag; a later change of the object
 * makes reads fail rather than mix two versions. Returns hipFileSuccess with the handle in *fh,
 * hipFileInvalidValue for a bad argument or option, hipFileIONotSupported when no loaded backend
 * serves remote objects (the remote plugin is not installed or not enabled), or the error the
 * server's answer maps to (a missing object: hipFileInvalidValue with errno-style cause in the
 * log; denied: hipFilePermissionDenied; unreachable or failing: hipFileDriverError).
 */
hipFileError_t hipfileRemoteOpen(const char *url, const char *options, int flags,
                                 hipFileHandle_t *fh);

#ifdef __cplusplus
}
#endif

#endif /* HIPFILE_REMOTE_H */
