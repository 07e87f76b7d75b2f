/*
 * Several prepared calls served together: the batch API's entries and the pieces of a vector
 * read or write. Calls whose first choice is the same backend reach it through one submit_many,
 * so it can overlap one call's file I/O with another's GPU copy.
 */
#ifndef HF_CORE_IO_GROUP_H
#define HF_CORE_IO_GROUP_H

#include <stdbool.h>
#include <sys/types.h>

#include "api/io.h"

/**
 * Most calls one group serves at once: enough for a backend to overlap them, few enough that
 * work split into groups still spreads across every worker.
 */
#define HF_IO_GROUP_MAX 8

/**
 * Serve the @p n (at most HF_IO_GROUP_MAX) calls of @p calls for which @p open is true, each
 * prepared by hf_io_prepare, and finish every one (hf_io_finish). A call that comes back with an
 * errno its backend says another may retry goes on down its selector chain, as hipFileRead and
 * hipFileWrite would. results[i] gets call i's public result with -1 turned into -errno; entries
 * whose @p open is false are left as they are. @p open is cleared as calls finish.
 */
void hf_io_serve_group(struct hf_io_call *calls, bool *open, unsigned n, ssize_t *results);

#endif
