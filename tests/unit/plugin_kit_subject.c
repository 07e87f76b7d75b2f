/*
 * A backend built with nothing but the plugin kit, for test_plugin_kit.cc: its entry point comes
 * from HFP_BACKEND_ENTRY and its ops header and settings table from the kit's initializers, as
 * in the in-tree plugins.
 */
#include "plugin_kit_subject.h"

#include <stddef.h>

#include "hipfile/plugin_kit.h"

static const char *const colour_names[] = {"red", "green", NULL};

const struct hf_setting_decl kit_subject_decls[KIT_SUBJECT_SETTING_COUNT] = {
    [KIT_SUBJECT_DEPTH] = {HFP_INT_SETTING("depth", 32, 1, 1024, "commands", "commands in flight"),
                           .multiple = 2},
    [KIT_SUBJECT_FAST] = {HFP_BOOL_SETTING("fast", true, "go fast"), .env = "KIT_SUBJECT_FAST"},
    [KIT_SUBJECT_COLOUR] = {HFP_STRING_SETTING("colour", "green", colour_names, "the colour")},
};

static int subject_init(const struct hf_host_api *host, void **backend_p)
{
    (void)host;
    *backend_p = NULL;
    return 0;
}

static void subject_fini(void *backend)
{
    (void)backend;
}

static int subject_probe(void *backend)
{
    (void)backend;
    return 0;
}

static int subject_score(void *backend, const struct hf_io_request *req, const char **reason_p)
{
    (void)backend;
    (void)req;
    (void)reason_p;
    return 1;
}

static ssize_t subject_read(void *backend, const struct hf_io_request *req)
{
    (void)backend;
    return (ssize_t)req->size;
}

const struct hf_backend_ops kit_subject_ops = {
    HFP_OPS_HEADER("kit-subject"), /* magic, ABI version, struct size, name */
    .caps = HF_CAP_READ,
    .init = subject_init,
    .fini = subject_fini,
    .probe = subject_probe,
    .score = subject_score,
    .read = subject_read,
    HFP_OPS_SETTINGS(kit_subject_decls),
};

HFP_BACKEND_ENTRY(kit_subject_ops, KIT_SUBJECT_MIN_MINOR)
