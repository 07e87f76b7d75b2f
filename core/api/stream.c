/*
 * hipFileStreamRegister/Deregister: a small table of stream handle values and the flags they were
 * given. Handles are never dereferenced or passed to the runtime here, so a stream destroyed while
 * registered leaves only a stale entry for the caller to deregister.
 */
#include "api/stream.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/log.h"

struct stream_entry {
    hipStream_t stream;
    unsigned flags;
};

static pthread_mutex_t stream_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stream_entry *streams;
static size_t stream_len;
static size_t stream_cap;

/* Called with stream_lock held. */
static ssize_t stream_find(hipStream_t stream)
{
    for (size_t i = 0; i < stream_len; i++) {
        if (streams[i].stream == stream)
            return (ssize_t)i;
    }
    return -1;
}

unsigned hf_stream_flags(hipStream_t stream)
{
    pthread_mutex_lock(&stream_lock);
    ssize_t at = stream_find(stream);
    unsigned flags = at >= 0 ? streams[at].flags : 0;
    pthread_mutex_unlock(&stream_lock);
    return flags;
}

HIPFILE_API hipFileError_t hipFileStreamRegister(hipStream_t stream, unsigned flags)
{
    if (flags & ~(unsigned)HIPFILE_STREAM_FLAGS_MASK) {
        hf_error("hipFileStreamRegister: flags 0x%x have bits outside 0x%x", flags,
                 (unsigned)HIPFILE_STREAM_FLAGS_MASK);
        return hf_status(hipFileInvalidValue);
    }
    pthread_mutex_lock(&stream_lock);
    hipFileOpError_t err = hipFileSuccess;
    if (stream_find(stream) >= 0) {
        hf_error("hipFileStreamRegister: stream %p is already registered", (void *)stream);
        err = hipFileInvalidValue;
        goto unlock;
    }
    if (stream_len == stream_cap) {
        size_t cap = stream_cap ? stream_cap * 2 : 8;
        struct stream_entry *grown = realloc(streams, cap * sizeof(*grown));
        if (grown == NULL) {
            hf_error("hipFileStreamRegister: out of memory");
            err = hipFileInternalError;
            goto unlock;
        }
        streams = grown;
        stream_cap = cap;
    }
    streams[stream_len++] = (struct stream_entry){.stream = stream, .flags = flags};
unlock:
    pthread_mutex_unlock(&stream_lock);
    return hf_status(err);
}

/*
 * Detaches rather than waits: operations in flight copied what their stream's flags fixed when they
 * were submitted, so they no longer need the entry, and a caller holding the stream cannot
 * deadlock here.
 */
HIPFILE_API hipFileError_t hipFileStreamDeregister(hipStream_t stream)
{
    pthread_mutex_lock(&stream_lock);
    ssize_t at = stream_find(stream);
    if (at >= 0)
        streams[at] = streams[--stream_len];
    pthread_mutex_unlock(&stream_lock);
    if (at < 0) {
        hf_error("hipFileStreamDeregister: stream %p is not registered", (void *)stream);
        return hf_status(hipFileInvalidValue);
    }
    return hf_status(hipFileSuccess);
}
