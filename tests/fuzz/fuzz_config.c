/*
 * libFuzzer target: the config loader on arbitrary file contents. Each input is written to a
 * private file that HIPFILE_CONFIG names, loaded, and the settings read back; a malformed file
 * must be refused with the defaults left in force.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "base/log.h"
#include "fuzz_scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char config_path[4096];

static void config_file_init(void)
{
    char dir[3800];
    fuzz_scratch_dir("config", dir, sizeof(dir));
    snprintf(config_path, sizeof(config_path), "%s/fuzz.conf", dir);
    setenv("HIPFILE_CONFIG", config_path, 1);
    /* Refusals are expected by the thousand; only crashes and leaks matter here. */
    setenv("HIPFILE_LOG_LEVEL", "error", 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (config_path[0] == '\0')
        config_file_init();
    int fd = open(config_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        abort();
    if (size > 0 && write(fd, data, size) != (ssize_t)size)
        abort();
    close(fd);
    hf_config_reset();
    /* Whatever was loaded or refused, every reader answers. */
    int rc = hf_config_load();
    (void)rc;
    (void)hf_setting_string(HF_SETTING_PLUGINS_DIRECTORY);
    (void)hf_setting_string(HF_SETTING_GPU_RUNTIME);
    (void)hf_setting_int(HF_SETTING_MAX_IO_THREADS);
    (void)hf_setting_bool(HF_SETTING_ALLOW_SYSTEM_MEMORY);
    (void)hf_config_compat_mode();
    (void)hf_config_plugin_enabled("fallback");
    int64_t value;
    (void)hf_config_plugin_int("fallback", "chunk_size_kb", &value);
    return 0;
}
