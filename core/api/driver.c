/*
 * hipFileDriverOpen/Close/UseCount and the one-time setup behind the first open. The count rules
 * are AMD's (API.md section 8.1); setup (config, GPU runtime, plugins) runs on the first 0 -> 1
 * transition and, if it fails, again on the next one.
 */
#include "api/driver.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "base/log.h"
#include "config/config.h"
#include "host/backends.h"
#include "host/loader.h"
#include "services/gpu.h"

static pthread_mutex_t driver_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int64_t driver_refcount;
static bool driver_set_up;

typedef void (*driver_hook)(void);
static _Atomic driver_hook last_close_hooks[HF_TEARDOWN_COUNT];

void hf_driver_on_last_close(enum hf_driver_teardown step, void (*drop)(void))
{
    if ((unsigned)step < HF_TEARDOWN_COUNT)
        atomic_store(&last_close_hooks[step], drop);
}

/* What to do when gpu.runtime = @p runtime could not be bound (-@p err), into @p buf. */
static const char *runtime_fix(const char *runtime, int err, char *buf, size_t size)
{
    const char *where;
    enum hf_setting_origin origin = hf_setting_origin(HF_SETTING_GPU_RUNTIME, &where);
    if (err == ENODEV && runtime != NULL && strcasecmp(runtime, "auto") == 0)
        snprintf(buf, size,
                 "no GPU runtime reports a device; without a GPU, link the program with the host "
                 "emulation (libhip-host) or set HIPFILE_GPU_RUNTIME=host");
    else if (origin == HF_ORIGIN_ENV)
        snprintf(buf, size,
                 "set HIPFILE_GPU_RUNTIME to auto, hip, cuda, host or the path of a HIP runtime "
                 "library, or unset it");
    else if (origin == HF_ORIGIN_FILE)
        snprintf(buf, size,
                 "change gpu.runtime at %s to auto, hip, cuda, host or the path of a HIP runtime "
                 "library",
                 where);
    else
        snprintf(buf, size, "set gpu.runtime (or HIPFILE_GPU_RUNTIME) to a runtime that is there");
    return buf;
}

/* Called with driver_lock held. */
static hipFileOpError_t driver_setup_locked(void)
{
    if (driver_set_up)
        return hipFileSuccess;
    int rc = hf_config_load();
    if (rc < 0) {
        /* The load named the key and line, or the variable; this says which source to fix. */
        const char *what = hf_config_failure();
        hf_error("driver setup failed: %s is not usable (see the line above)",
                 what != NULL ? what : "the configuration");
        return hipFileDriverSetupError;
    }
    const char *runtime = hf_setting_string(HF_SETTING_GPU_RUNTIME);
    rc = hf_gpu_bind(runtime);
    if (rc < 0) {
        char origin[PATH_MAX + 64];
        char fix[PATH_MAX + 160];
        hf_error("driver setup failed: no usable GPU runtime (gpu.runtime = \"%s\", from %s); %s",
                 runtime != NULL ? runtime : "",
                 hf_setting_origin_text(HF_SETTING_GPU_RUNTIME, origin, sizeof(origin)),
                 runtime_fix(runtime, -rc, fix, sizeof(fix)));
        return rc == -ENODEV ? hipFilePlatformNotSupported : hipFileDriverSetupError;
    }
    rc = hf_loader_load_all();
    if (rc < 0) {
        hf_error("driver setup failed: cannot load plugins: %s", strerror(-rc));
        return hipFileDriverSetupError;
    }
    driver_set_up = true;
    return hipFileSuccess;
}

/*
 * Backends make the current GPU's staging for stream-ordered I/O at open, while (as a rule) no
 * stream of the program is held: CUDA was seen blocking stream creation for good while a host
 * function or stream wait held another stream (docs/async.rst).
 */
static void stream_prepare_current_device(void)
{
    const struct hf_gpu_runtime *rt = hf_gpu_runtime();
    int device = -1;
    if (hf_setting_bool(HF_SETTING_STREAM_PREPARE_AT_OPEN) && rt != NULL &&
        rt->get_device(&device) == 0)
        hf_backends_stream_prepare(device);
}

bool hf_driver_was_set_up(void)
{
    pthread_mutex_lock(&driver_lock);
    bool set_up = driver_set_up;
    pthread_mutex_unlock(&driver_lock);
    return set_up;
}

hipFileOpError_t hf_driver_setup(void)
{
    pthread_mutex_lock(&driver_lock);
    hipFileOpError_t err = driver_setup_locked();
    pthread_mutex_unlock(&driver_lock);
    return err;
}

hipFileOpError_t hf_driver_ensure_open(void)
{
    if (atomic_load(&driver_refcount) > 0)
        return hipFileSuccess;
    pthread_mutex_lock(&driver_lock);
    hipFileOpError_t err = hipFileSuccess;
    if (atomic_load(&driver_refcount) == 0) {
        err = driver_setup_locked();
        if (err == hipFileSuccess) {
            stream_prepare_current_device();
            atomic_store(&driver_refcount, 1);
        }
    }
    pthread_mutex_unlock(&driver_lock);
    return err;
}

int64_t hf_driver_count(void)
{
    return atomic_load(&driver_refcount);
}

bool hf_driver_is_open(void)
{
    return atomic_load(&driver_refcount) > 0;
}

HIPFILE_API hipFileError_t hipFileDriverOpen(void)
{
    pthread_mutex_lock(&driver_lock);
    hipFileOpError_t err = driver_setup_locked();
    if (err == hipFileSuccess) {
        stream_prepare_current_device();
        atomic_fetch_add(&driver_refcount, 1);
    }
    pthread_mutex_unlock(&driver_lock);
    return hf_status(err);
}

HIPFILE_API hipFileError_t hipFileDriverClose(void)
{
    pthread_mutex_lock(&driver_lock);
    int64_t count = atomic_load(&driver_refcount);
    if (count <= 0) {
        pthread_mutex_unlock(&driver_lock);
        hf_warn("hipFileDriverClose: driver is not open");
        return hf_status(hipFileDriverNotInitialized);
    }
    atomic_store(&driver_refcount, count - 1);
    if (count == 1) {
        /* Registrations do not outlive the last close (AMD); the caller's fds stay open. */
        for (unsigned step = 0; step < HF_TEARDOWN_COUNT; step++) {
            driver_hook drop = atomic_load(&last_close_hooks[step]);
            if (drop != NULL)
                drop();
        }
        /* cuFile's close resets the parameters; the next open starts from the file's values. */
        hf_config_drop_api_values();
    }
    pthread_mutex_unlock(&driver_lock);
    return hf_status(hipFileSuccess);
}

HIPFILE_API int64_t hipFileUseCount(void)
{
    return atomic_load(&driver_refcount);
}
