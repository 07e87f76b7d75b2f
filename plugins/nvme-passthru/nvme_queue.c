/*
 * Submission queues for NVMe passthrough commands: an io_uring ring with 128-byte entries and
 * 32-byte completions (the kernel refuses URING_CMD for NVMe on any other ring), or the
 * synchronous NVME_IOCTL_IO64_CMD where io_uring is missing or disabled. Debian 12's liburing 2.3
 * has no io_uring_prep_uring_cmd, so commands are laid into the entry by hand.
 */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#include "nvme_passthru.h"

struct nvme_queue {
    int mechanism;
    unsigned depth;
    unsigned in_flight;
    int (*ioctl_fn)(int, unsigned long, void *);
    struct io_uring ring;
};

int hf_nvme_queue_create(int mechanism, unsigned depth, int (*ioctl_fn)(int, unsigned long, void *),
                         struct nvme_queue **queue_p)
{
    if ((mechanism != NVME_MECH_URING && mechanism != NVME_MECH_IOCTL) || depth == 0)
        return -EINVAL;
    struct nvme_queue *q = calloc(1, sizeof(*q));
    if (q == NULL)
        return -ENOMEM;
    q->mechanism = mechanism;
    q->depth = depth;
    q->ioctl_fn = ioctl_fn;
    if (mechanism == NVME_MECH_URING) {
        int rc = io_uring_queue_init(depth, &q->ring, IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
        if (rc < 0) {
            free(q);
            return rc;
        }
    }
    *queue_p = q;
    return 0;
}

void hf_nvme_queue_destroy(struct nvme_queue *queue)
{
    if (queue == NULL)
        return;
    if (queue->mechanism == NVME_MECH_URING)
        io_uring_queue_exit(&queue->ring);
    free(queue);
}

/* Record @p result as the failure to report unless an earlier one is already there. */
static void note_result(int result, int *first_p, int *status_p)
{
    if (result == 0 || *first_p != 0)
        return;
    *first_p = hf_nvme_status_to_errno(result);
    *status_p = result > 0 ? result : 0;
}

/* Reap one completion, waiting for it. */
static int reap_one(struct nvme_queue *q, int *first_p, int *status_p)
{
    struct io_uring_cqe *cqe;
    int rc;
    do
        rc = io_uring_wait_cqe(&q->ring, &cqe);
    while (rc == -EINTR);
    if (rc < 0)
        return rc;
    note_result(cqe->res, first_p, status_p);
    io_uring_cqe_seen(&q->ring, cqe);
    q->in_flight--;
    return 0;
}

static int uring_submit(struct nvme_queue *q, int fd, const struct nvme_passthru_cmd64 *cmd,
                        int *status_p)
{
    int first = 0;
    struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);
    while (sqe == NULL || q->in_flight >= q->depth) {
        if (sqe == NULL) {
            int rc = io_uring_submit(&q->ring);
            if (rc < 0)
                return rc;
        }
        if (q->in_flight > 0) {
            int rc = reap_one(q, &first, status_p);
            if (rc < 0)
                return rc;
        }
        if (sqe == NULL)
            sqe = io_uring_get_sqe(&q->ring);
        if (sqe == NULL && q->in_flight == 0)
            return -EBUSY;
    }
    io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
    sqe->cmd_op = NVME_URING_CMD_IO;
    /* prep_rw clears the first 64 bytes only; the command spills into the second half. */
    struct nvme_uring_cmd *ucmd = (struct nvme_uring_cmd *)sqe->cmd;
    memset(ucmd, 0, sizeof(*ucmd));
    memcpy(ucmd, cmd, sizeof(*ucmd));
    q->in_flight++;
    int rc = io_uring_submit(&q->ring);
    if (rc < 0)
        return rc;
    return first;
}

int hf_nvme_queue_submit(struct nvme_queue *queue, int fd, const struct nvme_io *io, int *status_p)
{
    struct nvme_passthru_cmd64 cmd;
    *status_p = 0;
    int rc = hf_nvme_cmd_encode(io, &cmd);
    if (rc < 0)
        return rc;
    if (queue->mechanism == NVME_MECH_URING)
        return uring_submit(queue, fd, &cmd, status_p);
    int result;
    do
        result = queue->ioctl_fn(fd, NVME_IOCTL_IO64_CMD, &cmd);
    while (result < 0 && errno == EINTR);
    if (result < 0)
        result = -errno;
    int first = 0;
    note_result(result, &first, status_p);
    return first;
}

int hf_nvme_queue_drain(struct nvme_queue *queue, int *status_p)
{
    int first = 0;
    *status_p = 0;
    while (queue->mechanism == NVME_MECH_URING && queue->in_flight > 0) {
        int rc = reap_one(queue, &first, status_p);
        if (rc < 0)
            return rc;
    }
    return first;
}
