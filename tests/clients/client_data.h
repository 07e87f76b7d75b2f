/*
 * What the client programs share: putting the test pattern into GPU memory and checking GPU
 * memory and files against it, a chunk at a time through the HIP runtime, as a user's own
 * program would check its data.
 */
#ifndef HF_CLIENTS_CLIENT_DATA_H
#define HF_CLIENTS_CLIENT_DATA_H

#include <stddef.h>
#include <stdint.h>

/** Write stream @p seed into @p n bytes of GPU memory at @p dev. Returns 0, or 1 (reported). */
int client_fill_device(void *dev, size_t n, uint64_t seed);

/** Check @p n bytes of GPU memory at @p dev against stream @p seed. 0 if equal, 1 (reported). */
int client_check_device(const void *dev, size_t n, uint64_t seed, const char *what);

/** Check @p n bytes of @p fd at @p offset against stream @p seed. 0 if equal, 1 (reported). */
int client_check_file(int fd, uint64_t offset, size_t n, uint64_t seed, const char *what);

/**
 * The command line every client takes: FILE [@p size_name] (a count of MiB, @p default_mib when
 * left out). Returns 0, or 2 after printing the usage.
 */
int client_args(int argc, char **argv, const char *size_name, size_t default_mib,
                const char **path_p, size_t *mib_p);

/** Seconds on a monotonic clock. */
double client_now_s(void);

#endif
