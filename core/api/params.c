/*
 * hipFileGet/SetParameter* and hipFileDriverSet*: the public face of the settings table. Each
 * parameter names one row of core/settings.c; values set here outlive later config reloads.
 */
#include <errno.h>
#include <hipfile.h>
#include <hipfile/params.h>
#include <stdint.h>
#include <string.h>

#include "api/driver.h"
#include "base/error.h"
#include "base/log.h"
#include "config/config.h"
#include "config/settings.h"

/*
 * Parameters read what the config file says even before the driver opens. A file that fails to
 * load was already logged; reads then report the built-in defaults and the driver open that
 * follows reports the failure.
 */
static void params_config_ready(void)
{
    (void)hf_config_ensure_loaded();
}

/*
 * Settings that only setup reads (threads, buffer sizes) cannot change once it ran; accepting
 * the call would report a value the library does not use. cuFile refuses such calls the same way,
 * and refuses its string parameters and use_pci_p2pdma while the driver is open: those follow it,
 * and may change again once the driver is closed.
 */
static bool settable_now(const struct hf_setting *s, const char *func)
{
    if (s->decl.live)
        return true;
    if (s->closed_only) {
        if (!hf_driver_is_open())
            return true;
        hf_error("%s: %s cannot change while the driver is open; set it before hipFileDriverOpen "
                 "or after the last hipFileDriverClose",
                 func, s->decl.key);
        return false;
    }
    if (!hf_driver_was_set_up())
        return true;
    hf_error("%s: %s is read when the driver first opens; set it before hipFileDriverOpen", func,
             s->decl.key);
    return false;
}

/*
 * The row parameter @p param of @p kind names, once every check a call of @p func makes before
 * acting has passed, in the order the calls make them: a known parameter, then the argument
 * @p arg (named @p arg_name; none when NULL) not NULL, then, for a set (@p to_set), a setting that
 * may change now. NULL with *status_p set when one fails.
 */
static const struct hf_setting *param_row(enum hf_param_kind kind, int param, const char *func,
                                          const void *arg, const char *arg_name, bool to_set,
                                          hipFileError_t *status_p)
{
    const struct hf_setting *s = hf_setting_by_param(kind, param);
    *status_p = hf_status(hipFileInvalidValue);
    if (s == NULL) {
        hf_error("%s: unknown parameter %d", func, param);
        return NULL;
    }
    if (arg_name != NULL && arg == NULL) {
        hf_error("%s: %s is NULL", func, arg_name);
        return NULL;
    }
    params_config_ready();
    if (to_set && !settable_now(s, func)) {
        *status_p = hf_status(hipFileDriverAlreadyOpen);
        return NULL;
    }
    *status_p = hf_status(hipFileSuccess);
    return s;
}

HIPFILE_API hipFileError_t hipFileGetParameterSizeT(hipFileSizeTConfigParameter_t param,
                                                    size_t *value)
{
    hipFileError_t status;
    const struct hf_setting *s =
        param_row(HF_PARAM_SIZE_T, (int)param, __func__, value, "value", false, &status);
    if (s != NULL)
        *value = (size_t)hf_setting_int(hf_setting_id_of(s));
    return status;
}

HIPFILE_API hipFileError_t hipFileGetParameterBool(hipFileBoolConfigParameter_t param, bool *value)
{
    hipFileError_t status;
    const struct hf_setting *s =
        param_row(HF_PARAM_BOOL, (int)param, __func__, value, "value", false, &status);
    if (s != NULL)
        *value = hf_setting_bool(hf_setting_id_of(s));
    return status;
}

HIPFILE_API hipFileError_t hipFileGetParameterString(hipFileStringConfigParameter_t param,
                                                     char *desc_str, int len)
{
    hipFileError_t status;
    const struct hf_setting *s =
        param_row(HF_PARAM_STRING, (int)param, __func__, desc_str, "desc_str", false, &status);
    if (s == NULL)
        return status;
    const char *text = hf_setting_string(hf_setting_id_of(s));
    size_t need = strlen(text) + 1;
    if (len <= 0 || (size_t)len < need) {
        hf_error("%s: %s needs %zu bytes including the NUL; len is %d", __func__, s->decl.key, need,
                 len);
        return hf_status(hipFileInvalidValue);
    }
    memcpy(desc_str, text, need);
    return status;
}

/* What hf_setting_set_* returned, as the parameter calls report it. */
static hipFileError_t set_status(int rc)
{
    return hf_status(rc < 0 ? hipFileInvalidValue : hipFileSuccess);
}

HIPFILE_API hipFileError_t hipFileSetParameterSizeT(hipFileSizeTConfigParameter_t param,
                                                    size_t value)
{
    hipFileError_t status;
    const struct hf_setting *s =
        param_row(HF_PARAM_SIZE_T, (int)param, __func__, NULL, NULL, true, &status);
    if (s == NULL)
        return status;
    if (value > (size_t)INT64_MAX) {
        hf_error("%s: %s = %zu is out of range; expected at most %lld", __func__, s->decl.key,
                 value, (long long)s->decl.max);
        return hf_status(hipFileInvalidValue);
    }
    return set_status(hf_setting_set_int(hf_setting_id_of(s), (int64_t)value));
}

HIPFILE_API hipFileError_t hipFileSetParameterBool(hipFileBoolConfigParameter_t param, bool value)
{
    hipFileError_t status;
    const struct hf_setting *s =
        param_row(HF_PARAM_BOOL, (int)param, __func__, NULL, NULL, true, &status);
    return s == NULL ? status : set_status(hf_setting_set_bool(hf_setting_id_of(s), value));
}

HIPFILE_API hipFileError_t hipFileSetParameterString(hipFileStringConfigParameter_t param,
                                                     const char *desc_str)
{
    hipFileError_t status;
    const struct hf_setting *s =
        param_row(HF_PARAM_STRING, (int)param, __func__, desc_str, "desc_str", true, &status);
    return s == NULL ? status : set_status(hf_setting_set_string(hf_setting_id_of(s), desc_str));
}

/*
 * hipFileDriverSet*: a size the table's range rejects is a limit the driver cannot honour. Every
 * setting these reach is live: the fallback re-reads the staging bounds each time its pools grow
 * or take a slot back, so a lower cache or pinned limit frees slots as they come back.
 */
static hipFileError_t driver_set_kib(enum hf_setting_id id, size_t size_kib, const char *func)
{
    params_config_ready();
    if (size_kib > (size_t)INT64_MAX) {
        hf_error("%s: %zu KiB is out of range for %s", func, size_kib, hf_settings[id].decl.key);
        return hf_status(hipFileDriverUnsupportedLimit);
    }
    int rc = hf_setting_set_int(id, (int64_t)size_kib);
    if (rc == -ERANGE)
        return hf_status(hipFileDriverUnsupportedLimit);
    return hf_status(rc < 0 ? hipFileInternalError : hipFileSuccess);
}

HIPFILE_API hipFileError_t hipFileDriverSetPollMode(bool poll, size_t poll_threshold_size)
{
    /* The threshold goes first so that a rejected call leaves the mode as it was. */
    hipFileError_t status =
        driver_set_kib(HF_SETTING_POLL_MODE_MAX_SIZE_KB, poll_threshold_size, __func__);
    if (status.err != hipFileSuccess)
        return status;
    if (hf_setting_set_bool(HF_SETTING_USE_POLL_MODE, poll) < 0)
        return hf_status(hipFileInternalError);
    return hf_status(hipFileSuccess);
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxDirectIOSize(size_t max_direct_io_size)
{
    return driver_set_kib(HF_SETTING_MAX_DIRECT_IO_SIZE_KB, max_direct_io_size, __func__);
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxCacheSize(size_t max_cache_size)
{
    return driver_set_kib(HF_SETTING_MAX_DEVICE_CACHE_SIZE_KB, max_cache_size, __func__);
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxPinnedMemSize(size_t max_pinned_size)
{
    return driver_set_kib(HF_SETTING_MAX_DEVICE_PINNED_MEM_SIZE_KB, max_pinned_size, __func__);
}

HIPFILE_API hipFileError_t hipFileGetParameterSizeTRange(hipFileSizeTConfigParameter_t param,
                                                         size_t *min_value, size_t *max_value)
{
    hipFileError_t status;
    const struct hf_setting *s =
        param_row(HF_PARAM_SIZE_T, (int)param, __func__, min_value, "min_value", false, &status);
    if (s == NULL)
        return status;
    if (max_value == NULL) {
        hf_error("%s: max_value is NULL", __func__);
        return hf_status(hipFileInvalidValue);
    }
    int64_t lo = s->decl.min < 0 ? 0 : s->decl.min;
    int64_t hi = s->decl.max;
    int64_t step = s->decl.multiple;
    if (step > 1) {
        lo = (lo + step - 1) / step * step;
        hi = hi / step * step;
    }
    *min_value = (size_t)lo;
    *max_value = (size_t)hi;
    return status;
}
