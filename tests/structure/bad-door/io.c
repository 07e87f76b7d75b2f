/* A core file that calls a backend op itself: the one-door check must refuse it. */
#include "backend_call.h"

long serve(const struct hf_backend *b, const struct hf_io_request *req)
{
    return b->complete.read(b->state, req);
}
