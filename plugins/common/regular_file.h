/*
 * Opening a file named by a path (a config file, a manifest, a log, a credentials file) so that
 * the caller never blocks and never reads or writes something that is not a plain file: a FIFO
 * would block the open until another process came, a device node or a file of /proc acts on the
 * kernel or a process instead of holding bytes. The core and the plugins share this one way.
 */
#ifndef HF_PLUGIN_COMMON_REGULAR_FILE_H
#define HF_PLUGIN_COMMON_REGULAR_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Size of a buffer that holds any refusal hfp_open_regular writes, path excluded. */
#define HFP_REGULAR_WHY_SIZE 160

/**
 * Open @p path with @p flags (O_RDONLY, or O_WRONLY with O_CREAT and O_APPEND; @p mode for a file
 * O_CREAT makes), adding O_CLOEXEC and O_NOCTTY. Anything but a regular file is refused without
 * ever being opened where the path can be looked at first, and the descriptor is checked with
 * fstat either way: the open itself never waits (O_NONBLOCK, cleared before returning). A regular
 * file of a kernel interface (procfs, sysfs, debugfs, tracefs: /proc/self/mem) is refused too.
 * Returns the descriptor, with its status in @p st when not NULL; or -EINVAL for a file of
 * another type, with @p why (of @p why_size bytes, may be NULL) saying what it is ("a FIFO (named
 * pipe), not a regular file"), or the -errno of a failed open or fstat with why saying so.
 */
int hfp_open_regular(const char *path, int flags, mode_t mode, struct stat *st, char *why,
                     size_t why_size);

/**
 * hfp_open_regular for reading, as a stdio stream ("re"). NULL with errno set (EINVAL for a file
 * of another type) and @p why as hfp_open_regular writes it.
 */
FILE *hfp_fopen_regular(const char *path, char *why, size_t why_size);

/**
 * For a file that another call opens by path (dlopen): 0 when @p path names a regular file, else
 * -EINVAL with @p why saying what it is, or the -errno of a failed stat. It leaves a window
 * between the check and that open, which a program's own files do not need closed.
 */
int hfp_check_regular(const char *path, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
