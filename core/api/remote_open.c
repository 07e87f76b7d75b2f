/*
 * hipFileRemoteOpen: checks the URL and flags, describes the object as a file without a
 * descriptor (HF_FILE_REMOTE) and registers it like any file, so the remote backend's
 * file_register opens the object and the handle works with every I/O API. hipFileRemoteGetSize
 * asks the backend that opened it for the size it pinned.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "hipfile/remote.h"

#include "api/driver.h"
#include "api/registry.h"
#include "base/error.h"
#include "base/log.h"
#include "host/backend_call.h"
#include "host/backends.h"
#include "services/stats.h"

/* Longer URLs are refused before they reach a log line or a request. */
#define REMOTE_URL_MAX 8192

static bool url_scheme_known(const char *url)
{
    static const char *const schemes[] = {"http://", "https://", "s3://"};
    for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
        if (strncmp(url, schemes[i], strlen(schemes[i])) == 0 && url[strlen(schemes[i])] != '\0')
            return true;
    }
    return false;
}

/*
 * The public table maps errnos of local files. A network open adds a few that it leaves unmapped
 * (docs/decisions.rst): no object at the URL is a bad argument, and a server that cannot be
 * reached, times out, answers nonsense or a header above the remote backend's limit is the I/O
 * path failing.
 */
static hipFileOpError_t remote_open_error(int err)
{
    switch (err) {
    case ENOENT:
        return hipFileInvalidValue;
    case ETIMEDOUT:
    case ECONNREFUSED:
    case EHOSTUNREACH:
    case EPROTO:
    case EMSGSIZE:
    case ESTALE:
        return hipFileDriverError;
    default:
        return hf_error_from_errno(err);
    }
}

static hipFileOpError_t remote_open(const char *url, const char *options, int flags,
                                    hipFileHandle_t *fh)
{
    if (fh == NULL || url == NULL) {
        hf_error("hipFileRemoteOpen: %s is NULL", fh == NULL ? "fh" : "url");
        return hipFileInvalidValue;
    }
    if (flags != HIPFILE_REMOTE_READ && flags != HIPFILE_REMOTE_WRITE) {
        hf_error("hipFileRemoteOpen: flags %d: use HIPFILE_REMOTE_READ or HIPFILE_REMOTE_WRITE",
                 flags);
        return hipFileInvalidFileOpenFlag;
    }
    if (strnlen(url, REMOTE_URL_MAX + 1) > REMOTE_URL_MAX || !url_scheme_known(url)) {
        /* Redacted before it is cut: a cut could fall inside the password, before its '@'. */
        char shown[201];
        hipFileRedactUrls(url, shown, sizeof(shown));
        hf_error("hipFileRemoteOpen: \"%s\" is not an http://, https:// or s3:// URL (at most %d "
                 "bytes)",
                 shown, REMOTE_URL_MAX);
        return hipFileInvalidValue;
    }
    hf_driver_on_last_close(HF_TEARDOWN_FILES, hf_file_drop_all);
    hipFileOpError_t err = hf_driver_ensure_open();
    if (err != hipFileSuccess)
        return err;

    bool writable = flags == HIPFILE_REMOTE_WRITE;
    struct hf_file_info info = {
        .struct_size = sizeof(info),
        .fd = -1,
        .direct_fd = -1,
        .kind = HF_FILE_REMOTE,
        .status_flags = writable ? O_WRONLY : O_RDONLY,
        .url = url,
        .remote_options = options,
        .remote_writable = writable,
    };
    snprintf(info.fs_name, sizeof(info.fs_name), "remote");
    int rc = hf_file_register_info(&info, fh);
    if (rc == -EOPNOTSUPP) {
        hf_error("hipFileRemoteOpen: %s: no loaded backend serves remote objects; the remote "
                 "plugin is not loaded or not enabled (hipfile-check lists the plugins)",
                 url);
        return hipFileIONotSupported;
    }
    if (rc != 0) {
        /* The backend logged the status and request id; this line ties the failure to the call. */
        hf_error("hipFileRemoteOpen: %s: cannot open for %s: %s", url,
                 writable ? "writing" : "reading", strerror(-rc));
        return remote_open_error(-rc);
    }
    hf_debug("hipFileRemoteOpen: %s registered for %s", url, writable ? "writing" : "reading");
    return hipFileSuccess;
}

HIPFILE_API hipFileError_t hipFileRemoteOpen(const char *url, const char *options, int flags,
                                             hipFileHandle_t *fh)
{
    hipFileOpError_t err = remote_open(url, options, flags, fh);
    hf_stats_file_register(err == hipFileSuccess);
    return hf_status(err);
}

/* The deprecated spelling stays an exported function of its own (not an alias of the symbol), so
 * a stack trace or an ltrace of an old program names what it called. */
HIPFILE_API hipFileError_t hipfileRemoteOpen(const char *url, const char *options, int flags,
                                             hipFileHandle_t *fh)
{
    return hipFileRemoteOpen(url, options, flags, fh);
}

HIPFILE_API hipFileError_t hipFileRemoteGetSize(hipFileHandle_t fh, uint64_t *size_p)
{
    if (size_p == NULL) {
        hf_error("hipFileRemoteGetSize: size_p is NULL");
        return hf_status(hipFileInvalidValue);
    }
    struct hf_file *file = hf_file_acquire(fh);
    if (file == NULL) {
        hf_error("hipFileRemoteGetSize: handle %p is not registered", fh);
        return hf_status(hipFileHandleNotRegistered);
    }
    hipFileOpError_t err = hipFileInvalidValue;
    if (file->info.kind != HF_FILE_REMOTE) {
        hf_error("hipFileRemoteGetSize: handle %p is not a remote object's (hipFileRemoteOpen)",
                 fh);
    } else if (file->info.remote_writable) {
        hf_error("hipFileRemoteGetSize: %s was opened for writing: its size is what its write "
                 "makes",
                 file->info.url);
    } else {
        int rc = -EOPNOTSUPP;
        for (unsigned i = 0; i < HF_MAX_BACKENDS && rc == -EOPNOTSUPP; i++) {
            struct hf_backend *b = hf_backend_at(i);
            if (b != NULL && file->backend_ctx[i] != NULL)
                rc = hf_call_file_size(b, file->backend_ctx[i], size_p);
        }
        if (rc == 0)
            err = hipFileSuccess;
        else
            hf_error("hipFileRemoteGetSize: the backend serving %s does not report its size "
                     "(plugin ABI minor 9)",
                     file->info.url);
    }
    hf_file_release(file);
    return hf_status(err);
}
