/* The few S3 XML bodies a remote file reads and writes: InitiateMultipartUploadResult, Error and
 * CompleteMultipartUpload. */
#ifndef HF_REMOTE_S3_XML_H
#define HF_REMOTE_S3_XML_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * UploadId from an InitiateMultipartUploadResult body. 0; -EBADMSG when the body is not XML, not
 * that document, or has no UploadId; -ENOSPC when id_size is too small.
 */
int s3_xml_upload_id(const char *body, size_t size, char *upload_id, size_t id_size);

/**
 * Code, Message and RequestId of an S3 <Error> body; missing fields become "", values too long
 * are truncated. 0; -EBADMSG when the body is not XML or its root is not Error (all three are
 * then "").
 */
int s3_xml_error(const char *body, size_t size, char *code, size_t code_size, char *message,
                 size_t message_size, char *request_id, size_t request_id_size);

/**
 * A CompleteMultipartUpload body listing parts 1..n with the ETags the parts' uploads returned
 * (quotes kept as S3 sent them, escaped as XML needs). Returns a malloc'd, NUL-terminated body the
 * caller frees and its length in *size_p; NULL (errno EINVAL for n == 0 or a NULL ETag, ENOMEM).
 */
char *s3_xml_complete_body(const char *const *etags, unsigned n, size_t *size_p);

#ifdef __cplusplus
}
#endif

#endif
