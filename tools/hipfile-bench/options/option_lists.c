/*
 * hipfile-bench's options that take a comma-separated list. A list names each thing once and
 * names at least one (but --baselines none), so a typo cannot turn into a run of nothing.
 */
#include <stdio.h>
#include <string.h>

#include "options/option_lists.h"
#include "options/option_values.h"

/* One word of a comma-separated option and the bits it stands for. */
struct name_bits {
    const char *name;
    unsigned bits;
};

/*
 * Comma-separated words of @p names into the union of their bits; @p known lists the words for
 * the message. An empty result is refused with @p empty_why, unless that is NULL ("none").
 */
static int parse_name_list(const char *option, const char *text, const struct name_bits *names,
                           size_t n_names, const char *known, const char *empty_why,
                           unsigned *bits_p)
{
    char copy[256];
    if (strlen(text) >= sizeof(copy))
        return bench_option_refused(option, text, "too long");
    strcpy(copy, text);
    unsigned bits = 0;
    char *save = NULL;
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        size_t i;
        for (i = 0; i < n_names; i++)
            if (strcmp(name, names[i].name) == 0)
                break;
        if (i == n_names)
            return bench_option_refused(option, name, known);
        bits |= names[i].bits;
    }
    if (bits == 0 && empty_why != NULL)
        return bench_option_refused(option, text, empty_why);
    *bits_p = bits;
    return 0;
}

int bench_parse_workloads(const char *text, unsigned *bits_p)
{
    struct name_bits names[5];
    for (unsigned i = 0; i < 4; i++)
        names[i] = (struct name_bits){bench_workloads[i].name, 1u << i};
    names[4] = (struct name_bits){"all", (1u << 4) - 1};
    return parse_name_list("workload", text, names, 5,
                           "unknown workload (seq-read, seq-write, rand-read, rand-write, all)",
                           "names no workload", bits_p);
}

int bench_parse_baselines(const char *text, unsigned *bits_p)
{
    static const struct name_bits names[] = {
        {"raw", BENCH_BL_RAW},
        {"pread", BENCH_BL_RAW},
        {"pwrite", BENCH_BL_RAW},
        {"odirect", BENCH_BL_ODIRECT},
        {"naive", BENCH_BL_NAIVE},
        {"amd", BENCH_BL_AMD},
        {"pinned", BENCH_BL_PINNED},
        {"pread-copy", BENCH_BL_PREAD_COPY},
        {"ceiling", BENCH_BL_CEILING},
        {"sync-seq", BENCH_BL_SYNC_SEQ},
        {"durable", BENCH_BL_DURABLE},
        {"all", BENCH_BL_ALL}, /* every one but sync-seq, which only a batch is judged by */
        {"none", 0},
    };
    return parse_name_list("baselines", text, names, sizeof(names) / sizeof(names[0]),
                           "unknown baseline (raw, odirect, durable, naive, amd, pinned, "
                           "ceiling, pread-copy, sync-seq, all, none)",
                           NULL, bits_p);
}

int bench_parse_apis(const char *text, unsigned *bits_p)
{
    static const struct name_bits names[] = {
        {"sync", BENCH_API_SYNC},
        {"async", BENCH_API_ASYNC},
        {"batch", BENCH_API_BATCH},
        {"all", BENCH_API_SYNC | BENCH_API_ASYNC | BENCH_API_BATCH},
    };
    return parse_name_list("api", text, names, sizeof(names) / sizeof(names[0]),
                           "unknown API (sync, async, batch, all)", "names nothing", bits_p);
}

/* Backend names as plugins.enable takes them; each at most once. */
int bench_parse_backends(const char *text, struct bench_options *o)
{
    char copy[BENCH_MAX_BACKENDS * BENCH_BACKEND_NAME];
    if (strlen(text) >= sizeof(copy))
        return bench_option_refused("backends", text, "too long");
    strcpy(copy, text);
    o->n_backends = 0;
    char *save = NULL;
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (strlen(name) >= BENCH_BACKEND_NAME)
            return bench_option_refused("backends", name, "name too long");
        if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
            strlen(name))
            return bench_option_refused("backends", name,
                                        "not a backend name (letters, digits, . _ -)");
        for (unsigned i = 0; i < o->n_backends; i++)
            if (strcmp(o->backends[i], name) == 0)
                return bench_option_refused("backends", name, "named twice");
        if (o->n_backends == BENCH_MAX_BACKENDS)
            return bench_option_refused("backends", text, "more than 8 backends");
        strcpy(o->backends[o->n_backends++], name);
    }
    if (o->n_backends == 0)
        return bench_option_refused("backends", text, "names no backend");
    return 0;
}

/* Device indexes, each at most once, or "all" (resolved once the runtime is up). */
int bench_parse_devices(const char *text, struct bench_options *o)
{
    char copy[256];
    if (strlen(text) >= sizeof(copy))
        return bench_option_refused("devices", text, "too long");
    strcpy(copy, text);
    o->n_devices = 0;
    o->all_devices = strcmp(text, "all") == 0;
    if (o->all_devices)
        return 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        uint64_t v;
        if (bench_parse_count("devices", item, 0, BENCH_MAX_DEVICES - 1, &v) != 0)
            return -1;
        for (unsigned i = 0; i < o->n_devices; i++)
            if (o->devices[i] == (int)v)
                return bench_option_refused("devices", item, "named twice");
        o->devices[o->n_devices++] = (int)v;
    }
    if (o->n_devices == 0)
        return bench_option_refused("devices", text, "names no device (give indexes, or all)");
    return 0;
}

/* Call sizes, each at most once; an empty item is a mistake, not a size to skip. */
int bench_parse_sweep(const char *text, struct bench_options *o)
{
    const char *item = text;
    o->n_sweep = 0;
    for (;;) {
        size_t len = strcspn(item, ",");
        char size_text[64];
        uint64_t size;
        if (len == 0)
            return bench_option_refused("sweep", text,
                                        "an empty call size (give sizes such as 4M,16M,64M)");
        if (len >= sizeof(size_text))
            return bench_option_refused("sweep", text, "a size is too long");
        memcpy(size_text, item, len);
        size_text[len] = '\0';
        if (bench_parse_size("sweep", size_text, &size) != 0)
            return -1;
        for (unsigned i = 0; i < o->n_sweep; i++)
            if (o->sweep_sizes[i] == size)
                return bench_option_refused("sweep", size_text, "named twice");
        if (o->n_sweep == BENCH_MAX_SWEEP)
            return bench_option_refused("sweep", text, "more than 32 sizes");
        o->sweep_sizes[o->n_sweep++] = (size_t)size;
        if (item[len] == '\0')
            return 0;
        item += len + 1;
    }
}
