/*
 * Remote objects as hipFile handles: an extension of hipfile's own (AMD's hipFile has no URL API).
 * hipFileRemoteOpen registers an object named by a URL and returns an ordinary hipFileHandle_t, so
 * hipFileRead, hipFileReadAsync and the batch API work on it unchanged; hipFileHandleDeregister
 * releases it. The `remote` backend plugin serves these handles (docs/backends/remote.rst).
 */
#ifndef HIPFILE_REMOTE_H
#define HIPFILE_REMOTE_H

#include <hipfile.h>

#ifdef __cplusplus
extern "C" {
#endif

/** hipFileRemoteOpen flag: open the object for reading (the object must exist). */
#define HIPFILE_REMOTE_READ 0
/**
 * hipFileRemoteOpen flag: open the object for writing. Only s3:// URLs may be written; the object
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
hipFileError_t hipFileRemoteOpen(const char *url, const char *options, int flags,
                                 hipFileHandle_t *fh);

/**
 * The size in bytes of the object @p fh stands for, as its open found it: the Content-Length that
 * hipFileRemoteOpen pinned with the ETag, so the size of what reads serve. Returns hipFileSuccess
 * with *size_p set; hipFileInvalidValue for a NULL @p size_p, a handle that is not a remote
 * object's, or one opened for writing (its size is what its one write makes);
 * hipFileHandleNotRegistered for an unknown @p fh.
 */
hipFileError_t hipFileRemoteGetSize(hipFileHandle_t fh, uint64_t *size_p);

/**
 * Copy @p text to @p out with every URL in it redacted: the userinfo of "scheme://user:pass@host"
 * becomes "***@", and the value of each query or fragment parameter that signs the request or
 * carries a credential becomes "***" (names matched without regard to case: sig, key, apikey,
 * api_key, x-api-key, AWSAccessKeyId, and any name containing signature, credential, token,
 * secret, password or passwd, such as X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token
 * and X-Goog-Signature). The rest of the text is kept byte for byte. This is what the library's
 * own log lines and messages go through (docs/reliability.rst, "Secrets in URLs").
 * @p out gets at most @p out_size - 1 bytes and a NUL (nothing when @p out_size is 0; @p out may
 * then be NULL); a cut leaves a prefix of the redacted text, never part of a secret. @p text and
 * @p out must not overlap; a NULL @p text is the empty text. Returns the length of the whole
 * redacted text, as snprintf does: a result of @p out_size or more means it was cut.
 */
size_t hipFileRedactUrls(const char *text, char *out, size_t out_size);

/** Marks a symbol kept only for programs written against an older spelling; using it warns. */
#if defined(__GNUC__) || defined(__clang__)
#define HIPFILE_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define HIPFILE_DEPRECATED(msg)
#endif

/**
 * The first spelling of hipFileRemoteOpen, before the public API took the hipFile prefix
 * everywhere: the same call, kept in the header and the symbol table so that programs written
 * for it build and run unchanged. New code calls hipFileRemoteOpen.
 */
HIPFILE_DEPRECATED("use hipFileRemoteOpen")
hipFileError_t hipfileRemoteOpen(const char *url, const char *options, int flags,
                                 hipFileHandle_t *fh);

#ifdef __cplusplus
}
#endif

#endif /* HIPFILE_REMOTE_H */
