/*
 * Submission queues for NVMe passthrough commands: an io_uring ring with 128-byte entries and
 * 32-byte completions (the kernel refuses URING_CMD for NVMe on any other ring), or the
 * synchronous NVME_IOCTL_IO64_CMD where io_uring is missing or disabled. Debian 12's liburing 2.3
 * has no io_uring_prep_uring_cmd, so commands are laid into the entry by hand.
 *
 * Each ring has a thread of its own, the only one that makes, enters and closes it. A thread that
 * makes a ring or submits to it is tied to it in the kernel, and when the ring is closed (by any
 * thread) the kernel queues work on every thread tied to it; that work cuts the thread's next
 * interruptible system call short (a read of /dev/urandom returns part of its count), and the
 * threads that request I/O are the application's. So the requesting thread only lays commands
 * into the ring's shared memory and hands the system calls to the ring's thread.
 */
#include <errno.h>
#include <liburing.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/plugin_thread.h"
#include "nvme_passthru_internal.h"

/* What the ring's thread is asked to do next. */
enum ring_order {
    RING_START, /* make the ring */
    RING_IDLE,  /* nothing */
    RING_WORK,  /* submit what is laid out, reap down to `keep` */
    RING_DONE,  /* the last order is carried out; `result` holds its outcome */
    RING_EXIT,  /* close the ring and end */
};

struct nvme_queue {
    int mechanism;
    unsigned depth;
    unsigned in_flight; /* laid out or submitted, not reaped */
    int (*ioctl_fn)(int, unsigned long, void *);
    struct io_uring ring;
    /* The ring's thread, and what it and the requesting thread tell each other under lock. */
    pthread_t thread;
    pid_t thread_id;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    enum ring_order order;
    unsigned keep;
    int result;
    int status;
    bool broken; /* entries the kernel did not take are left in the ring: never submit again */
};

static atomic_ulong rings_made;

unsigned long nvme_rings_made(void)
{
    return atomic_load(&rings_made);
}

/* Make the ring and check that this kernel takes URING_CMD on it (Linux 5.19+). */
static int ring_make(struct nvme_queue *q)
{
    int rc = io_uring_queue_init(q->depth, &q->ring, IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
    if (rc < 0)
        return rc;
    atomic_fetch_add(&rings_made, 1);
    struct io_uring_probe *probe = io_uring_get_probe_ring(&q->ring);
    bool supported = probe != NULL && io_uring_opcode_supported(probe, IORING_OP_URING_CMD);
    if (probe != NULL)
        io_uring_free_probe(probe);
    if (!supported) {
        io_uring_queue_exit(&q->ring);
        return -EOPNOTSUPP;
    }
    return 0;
}

/* Record @p result as the failure to report unless an earlier one is already there. */
static void note_result(int result, int *first_p, int *status_p)
{
    if (result == 0 || *first_p != 0)
        return;
    *first_p = nvme_status_to_errno(result);
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

/* On the ring's thread: submit the entries laid out, then reap until at most @p keep remain. */
static void ring_work(struct nvme_queue *q, unsigned keep)
{
    int rc = 0;
    while (!q->broken && rc == 0 && io_uring_sq_ready(&q->ring) > 0) {
        rc = io_uring_submit(&q->ring);
        rc = rc > 0 ? 0 : rc == 0 ? -EIO : rc;
    }
    if (rc < 0) {
        /* Entries the kernel did not take never complete; they stay in the ring, so it is done. */
        q->in_flight -= io_uring_sq_ready(&q->ring);
        q->broken = true;
    }
    int first = 0;
    int status = 0;
    while (q->in_flight > keep) {
        int reap = reap_one(q, &first, &status);
        if (reap < 0) {
            /* No telling when the rest finish: the queue must not be used again. */
            q->broken = true;
            if (rc == 0)
                rc = reap;
            break;
        }
    }
    q->result = rc < 0 ? rc : first;
    q->status = rc < 0 ? 0 : status;
}

static void *ring_main(void *arg)
{
    struct nvme_queue *q = arg;
    int rc = ring_make(q);
    pthread_mutex_lock(&q->lock);
    q->thread_id = gettid();
    q->result = rc;
    q->order = RING_DONE;
    pthread_cond_broadcast(&q->changed);
    while (rc == 0) {
        while (q->order != RING_WORK && q->order != RING_EXIT)
            pthread_cond_wait(&q->changed, &q->lock);
        if (q->order == RING_EXIT)
            break;
        unsigned keep = q->keep;
        pthread_mutex_unlock(&q->lock);
        ring_work(q, keep);
        pthread_mutex_lock(&q->lock);
        q->order = RING_DONE;
        pthread_cond_broadcast(&q->changed);
    }
    pthread_mutex_unlock(&q->lock);
    if (rc == 0)
        io_uring_queue_exit(&q->ring);
    return NULL;
}

/* Have the ring's thread carry out @p order and wait for it; returns its result. */
static int ring_call(struct nvme_queue *q, enum ring_order order, unsigned keep, int *status_p)
{
    pthread_mutex_lock(&q->lock);
    q->order = order;
    q->keep = keep;
    pthread_cond_broadcast(&q->changed);
    while (q->order != RING_DONE)
        pthread_cond_wait(&q->changed, &q->lock);
    q->order = RING_IDLE;
    int result = q->result;
    if (status_p != NULL)
        *status_p = q->status;
    pthread_mutex_unlock(&q->lock);
    return result;
}

static void queue_free(struct nvme_queue *q)
{
    pthread_cond_destroy(&q->changed);
    pthread_mutex_destroy(&q->lock);
    free(q);
}

/* Start the ring's thread and wait until it has made the ring. */
static int ring_start(struct nvme_queue *q)
{
    q->order = RING_START;
    int rc = hfp_thread_start(&q->thread, ring_main, q);
    if (rc < 0)
        return rc;
    pthread_mutex_lock(&q->lock);
    while (q->order != RING_DONE)
        pthread_cond_wait(&q->changed, &q->lock);
    q->order = RING_IDLE;
    rc = q->result;
    pthread_mutex_unlock(&q->lock);
    if (rc < 0)
        pthread_join(q->thread, NULL);
    return rc;
}

int nvme_queue_create(int mechanism, unsigned depth, int (*ioctl_fn)(int, unsigned long, void *),
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
    if (pthread_mutex_init(&q->lock, NULL) != 0) {
        free(q);
        return -ENOMEM;
    }
    if (pthread_cond_init(&q->changed, NULL) != 0) {
        pthread_mutex_destroy(&q->lock);
        free(q);
        return -ENOMEM;
    }
    if (mechanism == NVME_MECH_URING) {
        int rc = ring_start(q);
        if (rc < 0) {
            queue_free(q);
            return rc;
        }
    }
    *queue_p = q;
    return 0;
}

void nvme_queue_destroy(struct nvme_queue *queue)
{
    if (queue == NULL)
        return;
    if (queue->mechanism == NVME_MECH_URING) {
        pthread_mutex_lock(&queue->lock);
        queue->order = RING_EXIT;
        pthread_cond_broadcast(&queue->changed);
        pthread_mutex_unlock(&queue->lock);
        pthread_join(queue->thread, NULL);
    }
    queue_free(queue);
}

bool nvme_queue_usable(const struct nvme_queue *queue)
{
    return !queue->broken;
}

pid_t nvme_queue_thread_id(const struct nvme_queue *queue)
{
    return queue->mechanism == NVME_MECH_URING ? queue->thread_id : 0;
}

/* Lay @p cmd into the ring; the ring's thread submits it with the next call. */
static int uring_submit(struct nvme_queue *q, int fd, const struct nvme_passthru_cmd64 *cmd,
                        int *status_p)
{
    if (q->broken)
        return -EIO;
    int first = 0;
    struct io_uring_sqe *sqe = q->in_flight < q->depth ? io_uring_get_sqe(&q->ring) : NULL;
    if (sqe == NULL) {
        first = ring_call(q, RING_WORK, q->depth - 1, status_p);
        if (q->broken)
            return first;
        sqe = io_uring_get_sqe(&q->ring);
        if (sqe == NULL)
            return first != 0 ? first : -EBUSY;
    }
    io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
    sqe->cmd_op = NVME_URING_CMD_IO;
    /* prep_rw clears the first 64 bytes only; the command spills into the second half. */
    struct nvme_uring_cmd *ucmd = (struct nvme_uring_cmd *)sqe->cmd;
    memset(ucmd, 0, sizeof(*ucmd));
    memcpy(ucmd, cmd, sizeof(*ucmd));
    q->in_flight++;
    return first;
}

int nvme_queue_submit(struct nvme_queue *queue, int fd, const struct nvme_io *io, int *status_p)
{
    struct nvme_passthru_cmd64 cmd;
    *status_p = 0;
    int rc = nvme_cmd_encode(io, &cmd);
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

int nvme_queue_drain(struct nvme_queue *queue, int *status_p)
{
    *status_p = 0;
    if (queue->mechanism != NVME_MECH_URING || queue->in_flight == 0)
        return 0;
    return ring_call(queue, RING_WORK, 0, status_p);
}
