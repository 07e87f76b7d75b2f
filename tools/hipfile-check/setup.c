/*
 * Setting the library up the way the first hipFileDriverOpen does (config, GPU runtime, plugins),
 * one step at a time so each step's log lines are kept apart, and the one-sentence reason when a
 * step failed. One difference: where gpu.runtime = "auto" finds no GPU, the plain hipfile-check
 * takes the host emulation beside it, and says so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"

/* Everything is captured; the report shows warnings and errors unless --verbose. */
#define CAPTURE_LEVEL HF_LOG_DEBUG

/* The host runtime provider's file (runtimes/host). */
#define HOST_PROVIDER_SONAME "libhip-host.so.0"

static char *step_log(const struct check_setup *s, off_t from)
{
    return capture_text(&s->capture, from);
}

/* The file that holds the bound runtime, into @p buf. */
static void bound_library(char *buf, size_t size)
{
    struct hf_introspect_runtime rt;
    snprintf(buf, size, "%s", HOST_PROVIDER_SONAME);
    if (hf_introspect_runtime(&rt) && rt.library != NULL)
        snprintf(buf, size, "%s", rt.library);
}

void check_setup_run(struct check_setup *s)
{
    memset(s, 0, sizeof(*s));
    s->gpu_rc = 1;
    s->loader_rc = 1;
    /* Without a capture the report still works; it only cannot quote the core's reasons. */
    if (capture_start(&s->capture, CAPTURE_LEVEL) < 0)
        fprintf(stderr, CHECK_NAME ": cannot capture the library's log; reasons will be missing\n");

    /* The same steps, in the same order, as the setup behind the first hipFileDriverOpen. */
    off_t from = capture_mark(&s->capture);
    s->config_rc = hf_introspect_config_load();
    capture_resume(&s->capture, CAPTURE_LEVEL);
    s->config_log = step_log(s, from);
    if (s->config_rc < 0)
        return;

    from = capture_mark(&s->capture);
    struct hf_introspect_setting runtime_setting;
    hf_introspect_setting_of(HF_INTROSPECT_GPU_RUNTIME, &runtime_setting);
    const char *runtime = runtime_setting.text;
    s->gpu_rc = hf_introspect_gpu_bind(runtime);
    s->gpu_log = step_log(s, from);
    /*
     * This build links no provider, so it stands for the machine rather than for one kind of
     * program. Where "auto" finds no GPU, the machine's answer is the host emulation that was
     * built or installed with the tool: programs linked with libhip-host get exactly that.
     */
    if (s->gpu_rc == -ENODEV && runtime != NULL && strcasecmp(runtime, "auto") == 0 &&
        strcmp(HF_CHECK_PROVIDER, "none") == 0) {
        s->auto_log = s->gpu_log;
        from = capture_mark(&s->capture);
        /* By name: this program's run path is the directory the tools' libraries are in. */
        s->gpu_rc = hf_introspect_gpu_bind("host");
        s->gpu_log = step_log(s, from);
        s->host_fallback = s->gpu_rc == 0;
        bound_library(s->host_library, sizeof(s->host_library));
    }
    if (s->gpu_rc < 0)
        return;

    from = capture_mark(&s->capture);
    s->loader_rc = hf_introspect_plugins_load();
    s->loader_log = step_log(s, from);
}

void check_setup_free(struct check_setup *s)
{
    capture_stop(&s->capture);
    free(s->config_log);
    free(s->gpu_log);
    free(s->loader_log);
    free(s->explain_log);
    free(s->auto_log);
    s->config_log = s->gpu_log = s->loader_log = s->explain_log = s->auto_log = NULL;
}

char *log_last_error(const char *log, char *buf, size_t size)
{
    const char *cursor = log;
    struct log_line line;
    bool found = false;
    while (log_line_next(&cursor, &line)) {
        if (line.level != HF_LOG_ERROR)
            continue;
        snprintf(buf, size, "%.*s", (int)line.message_len, line.message);
        found = true;
    }
    return found ? buf : NULL;
}
const char *check_setup_problem(const struct check_setup *s, char *buf, size_t size)
{
    char error[2048];
    if (s->config_rc < 0) {
        const char *why = log_last_error(s->config_log, error, sizeof(error));
        snprintf(buf, size, "the configuration does not load: %s",
                 why != NULL ? why : strerror(-s->config_rc));
    } else if (!hf_introspect_runtime(&(struct hf_introspect_runtime){0})) {
        const char *why = log_last_error(s->gpu_log, error, sizeof(error));
        const char *prefix = "GPU runtime: ";
        if (why != NULL && strncmp(why, prefix, strlen(prefix)) == 0)
            why += strlen(prefix);
        snprintf(buf, size, "no GPU runtime: %s", why != NULL ? why : strerror(-s->gpu_rc));
    } else if (s->loader_rc < 0) {
        const char *why = log_last_error(s->loader_log, error, sizeof(error));
        snprintf(buf, size, "the plugins cannot be loaded: %s",
                 why != NULL ? why : strerror(-s->loader_rc));
    } else {
        return NULL;
    }
    return buf;
}
