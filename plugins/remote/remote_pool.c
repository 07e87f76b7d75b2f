/*
 * Sessions of reusable connections. A read runs its ranged GETs in one session's multi handle;
 * when the session comes back to the pool its connections stay open, so the next request skips
 * the TCP (and TLS) handshakes.
 */
#include <errno.h>
#include <stdlib.h>

#include "remote_internal.h"

struct remote_pool {
    pthread_mutex_t lock;
    struct remote_session *free_list;
};

int remote_pool_create(struct remote_pool **pool_p)
{
    struct remote_pool *pool = calloc(1, sizeof(*pool));
    if (pool == NULL)
        return -ENOMEM;
    pthread_mutex_init(&pool->lock, NULL);
    *pool_p = pool;
    return 0;
}

static void session_destroy(struct remote_session *session)
{
    for (unsigned i = 0; i < session->easy_count; i++)
        curl_easy_cleanup(session->easy[i]);
    free(session->easy);
    curl_multi_cleanup(session->multi);
    free(session);
}

void remote_pool_destroy(struct remote_pool *pool)
{
    if (pool == NULL)
        return;
    while (pool->free_list != NULL) {
        struct remote_session *s = pool->free_list;
        pool->free_list = s->next;
        session_destroy(s);
    }
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

struct remote_session *remote_pool_take(struct remote_pool *pool)
{
    pthread_mutex_lock(&pool->lock);
    struct remote_session *s = pool->free_list;
    if (s != NULL)
        pool->free_list = s->next;
    pthread_mutex_unlock(&pool->lock);
    if (s != NULL)
        return s;
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->multi = curl_multi_init();
    if (s->multi == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

void remote_pool_give(struct remote_pool *pool, struct remote_session *session)
{
    pthread_mutex_lock(&pool->lock);
    session->next = pool->free_list;
    pool->free_list = session;
    pthread_mutex_unlock(&pool->lock);
}

CURL *remote_session_easy(struct remote_session *session, unsigned index)
{
    if (index >= session->easy_cap) {
        unsigned cap = index + 8;
        CURL **grown = realloc(session->easy, cap * sizeof(*grown));
        if (grown == NULL)
            return NULL;
        session->easy = grown;
        session->easy_cap = cap;
    }
    while (session->easy_count <= index) {
        CURL *easy = curl_easy_init();
        if (easy == NULL)
            return NULL;
        session->easy[session->easy_count++] = easy;
    }
    /* Reset keeps the handle's connection; every request sets all the options it needs. */
    curl_easy_reset(session->easy[index]);
    return session->easy[index];
}

CURLcode remote_session_perform(struct remote_session *session, CURL *easy)
{
    CURLMcode mrc = curl_multi_add_handle(session->multi, easy);
    if (mrc != CURLM_OK)
        return CURLE_OUT_OF_MEMORY;
    CURLcode result = CURLE_OK;
    int running = 1;
    while (running > 0) {
        mrc = curl_multi_perform(session->multi, &running);
        if (mrc == CURLM_OK && running > 0)
            mrc = curl_multi_poll(session->multi, NULL, 0, 1000, NULL);
        if (mrc != CURLM_OK) {
            result = CURLE_RECV_ERROR;
            break;
        }
    }
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(session->multi, &left)) != NULL) {
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy)
            result = msg->data.result;
    }
    curl_multi_remove_handle(session->multi, easy);
    return result;
}
