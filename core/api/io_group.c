/*
 * Serving prepared calls together (io_group.h): rank each call's backends, hand the calls whose
 * first choice agrees to that backend at once, and send any it gives back down their own chains.
 */
#include "api/io_group.h"

#include "host/backend_call.h"

void hf_io_serve_group(struct hf_io_call *calls, bool *open, unsigned n, ssize_t *results)
{
    struct hf_chain chains[HF_IO_GROUP_MAX];
    struct hf_backend *first[HF_IO_GROUP_MAX];
    for (unsigned i = 0; i < n; i++)
        first[i] = open[i] && n > 1 ? hf_io_chain(&calls[i], &chains[i]) : NULL;
    for (unsigned i = 0; i < n; i++) {
        if (!open[i])
            continue;
        struct hf_backend *b = first[i];
        const struct hf_io_request *reqs[HF_IO_GROUP_MAX];
        unsigned members[HF_IO_GROUP_MAX];
        unsigned count = 0;
        for (unsigned j = i; b != NULL && j < n; j++) {
            if (open[j] && first[j] == b) {
                members[count] = j;
                reqs[count++] = &calls[j].req;
            }
        }
        if (count < 2) {
            /* A lone call was ranked only when it shared its group with others. */
            results[i] = hf_io_event_result(n > 1 ? hf_io_serve(&calls[i], &chains[i], 0)
                                                  : hf_io_submit(&calls[i]));
            open[i] = false;
            continue;
        }
        ssize_t rcs[HF_IO_GROUP_MAX];
        hf_call_submit_many(b, reqs, count, rcs);
        for (unsigned m = 0; m < count; m++) {
            unsigned j = members[m];
            ssize_t rc = rcs[m];
            if (hf_selector_next(&chains[j], 0, &calls[j].req, &rc))
                results[j] = hf_io_event_result(hf_io_serve(&calls[j], &chains[j], 1));
            else
                results[j] = hf_io_event_result(hf_io_finish(&calls[j], rc, b));
            open[j] = false;
        }
    }
}
