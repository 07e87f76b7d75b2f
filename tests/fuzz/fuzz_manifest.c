/*
 * libFuzzer target: the manifest reader on arbitrary bytes (XML parsing, schema validation,
 * field extraction). Anything but a clean accept or a described refusal is a bug.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hf_manifest m;
    char why[HF_MANIFEST_WHY_SIZE];
    why[0] = '\0';
    int rc = hf_manifest_parse((const char *)data, size, "fuzz.xml", &m, why, sizeof(why));
    if (rc == 0) {
        /* An accepted manifest holds terminated strings within their fields. */
        if (memchr(m.name, '\0', sizeof(m.name)) == NULL ||
            memchr(m.library, '\0', sizeof(m.library)) == NULL ||
            m.retry_errno_count > HF_MAX_RETRY_ERRNOS)
            abort();
    } else if (why[0] == '\0') {
        abort(); /* every refusal says why */
    }
    return 0;
}
