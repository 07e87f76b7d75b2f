// The backend plugin_kit_subject.c builds with the plugin kit, as test_plugin_kit.cc sees it.
#ifndef HF_TEST_PLUGIN_KIT_SUBJECT_H
#define HF_TEST_PLUGIN_KIT_SUBJECT_H

#include "hipfile/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI minor the subject's entry point asks of the core. */
#define KIT_SUBJECT_MIN_MINOR 3

/** Indices of kit_subject_decls. */
enum {
    KIT_SUBJECT_DEPTH = 0,         /**< int "depth": default 32, [1, 1024], multiple of 2 */
    KIT_SUBJECT_FAST = 1,          /**< bool "fast": default true */
    KIT_SUBJECT_COLOUR = 2,        /**< string "colour": "red" or "green", default "green" */
    KIT_SUBJECT_SETTING_COUNT = 3, /**< entries */
};

/** The subject's declared settings. */
extern const struct hf_setting_decl kit_subject_decls[KIT_SUBJECT_SETTING_COUNT];

/** The subject's ops table, the one its entry point hands over. */
extern const struct hf_backend_ops kit_subject_ops;

#ifdef __cplusplus
}
#endif

#endif
