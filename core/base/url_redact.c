/*
 * hipFileRedactUrls: every URL inside a text loses its userinfo and the values of its signing and
 * credential query parameters, so a log line or error message can name the object a request went
 * to without handing out the password or the presigned signature that reaches it. The rules are
 * in docs/reliability.rst ("Secrets in URLs").
 */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "hipfile/remote.h"

#define REDACTED "***"

/*
 * A URL nested in another's path or query is redacted too, to this depth; deeper, the whole
 * value is replaced, so a text built to nest without end costs no stack and leaks nothing.
 */
#define NEST_MAX 8

/* Everything written so far counts, including what did not fit: the result says how much room a
 * complete copy needs, as snprintf's does. */
struct writer {
    char *out;
    size_t size;
    size_t len;
};

static void put(struct writer *w, const char *s, size_t n)
{
    if (w->size > 0 && w->len < w->size - 1) {
        size_t room = w->size - 1 - w->len;
        memcpy(w->out + w->len, s, n < room ? n : room);
    }
    w->len += n;
}

static void put_str(struct writer *w, const char *s)
{
    put(w, s, strlen(s));
}

static bool is_scheme_char(char c)
{
    return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

/* A URL runs until a character no URL may hold unescaped, which in text is where it stops. */
static bool ends_url(char c)
{
    return c == '\0' || isspace((unsigned char)c) || c == '"' || c == '\'' || c == '<' ||
           c == '>' || c == '`';
}

/* Whether the "://" at text[i] follows a scheme that starts at or after @p begin. */
static bool scheme_before(const char *text, size_t begin, size_t i)
{
    size_t s = i;
    while (s > begin && is_scheme_char(text[s - 1]))
        s--;
    /* A scheme begins with a letter; "1.2://" or "-://" is not one. */
    while (s < i && !isalpha((unsigned char)text[s]))
        s++;
    return s < i;
}

/*
 * Query parameter names whose values are secrets: whatever signs the request or names a
 * credential, in any provider's spelling (AWS SigV4 and SigV2, Google, Azure SAS, OAuth, API
 * keys). A substring match catches the prefixed forms (X-Amz-Security-Token, X-Goog-Signature).
 */
static bool name_is_secret(const char *name, size_t len)
{
    static const char *const exact[] = {"sig",     "key",       "apikey",
                                        "api_key", "x-api-key", "awsaccesskeyid"};
    static const char *const within[] = {"signature", "credential", "token",
                                         "secret",    "password",   "passwd"};
    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
        if (strlen(exact[i]) == len && strncasecmp(name, exact[i], len) == 0)
            return true;
    }
    for (size_t i = 0; i < sizeof(within) / sizeof(within[0]); i++) {
        size_t n = strlen(within[i]);
        for (size_t at = 0; at + n <= len; at++) {
            if (strncasecmp(name + at, within[i], n) == 0)
                return true;
        }
    }
    return false;
}

static void redact_range(struct writer *w, const char *text, size_t begin, size_t end, int depth);

/* A run of the path or of a parameter value may hold a URL of its own. */
static void put_nested(struct writer *w, const char *text, size_t begin, size_t end, int depth)
{
    if (depth >= NEST_MAX)
        put_str(w, REDACTED);
    else
        redact_range(w, text, begin, end, depth + 1);
}

/* The query and fragment, from the '?' or '#' at @p i to @p end: name=value pairs split by '&'. */
static void redact_params(struct writer *w, const char *text, size_t i, size_t end, int depth)
{
    while (i < end) {
        put(w, text + i, 1); /* '?', '&' or '#' */
        i++;
        size_t name = i;
        while (i < end && text[i] != '=' && text[i] != '&' && text[i] != '#')
            i++;
        put(w, text + name, i - name);
        if (i >= end || text[i] != '=')
            continue;
        bool secret = name_is_secret(text + name, i - name);
        put(w, "=", 1);
        size_t value = ++i;
        while (i < end && text[i] != '&' && text[i] != '#')
            i++;
        if (secret)
            put_str(w, REDACTED);
        else
            put_nested(w, text, value, i, depth);
    }
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
    }
    return true;
}

/* One URL: text[a] is the first character after "://", @p e where the URL stops. */
static void redact_url(struct writer *w, const char *text, size_t a, size_t e, int depth)
{
    size_t auth_end = a;
    while (auth_end < e && text[auth_end] != '/' && text[auth_end] != '?' && text[auth_end] != '#')
        auth_end++;
    /* RFC 3986: the userinfo ends at the authority's last '@'. */
    size_t at = auth_end;
    while (at > a && text[at - 1] != '@')
        at--;
    if (at > a) {
        put_str(w, REDACTED "@");
        a = at;
    } else {
        /*
         * No '@': "host:port", unless what follows the colon is no port. Then it is a password,
         * whole (its '@' is further on, after a '/' or '?' it holds unescaped) or cut off by a
         * length limit before its '@' (a "%.60s").
         */
        size_t colon = auth_end;
        size_t host = a;
        if (text[host] == '[') {
            while (host < auth_end && text[host] != ']')
                host++;
        }
        while (colon > host && text[colon - 1] != ':')
            colon--;
        if (colon > host && !all_digits(text + colon, auth_end - colon)) {
            size_t later = auth_end;
            while (later < e && text[later] != '@')
                later++;
            if (later < e) {
                put_str(w, REDACTED "@");
                a = later + 1;
                auth_end = a;
                while (auth_end < e && text[auth_end] != '/' && text[auth_end] != '?' &&
                       text[auth_end] != '#')
                    auth_end++;
            } else {
                put(w, text + a, colon - a);
                put_str(w, REDACTED);
                a = auth_end;
            }
        }
    }
    put(w, text + a, auth_end - a);
    size_t path_end = auth_end;
    while (path_end < e && text[path_end] != '?' && text[path_end] != '#')
        path_end++;
    put_nested(w, text, auth_end, path_end, depth);
    redact_params(w, text, path_end, e, depth);
}

static void redact_range(struct writer *w, const char *text, size_t begin, size_t end, int depth)
{
    size_t copied = begin;
    size_t i = begin;
    while (i + 3 <= end) {
        if (memcmp(text + i, "://", 3) != 0 || !scheme_before(text, copied, i)) {
            i++;
            continue;
        }
        put(w, text + copied, i + 3 - copied);
        size_t a = i + 3;
        size_t e = a;
        while (e < end && !ends_url(text[e]))
            e++;
        /* "HEAD http://h/o?sig=...: HTTP 500": punctuation that ends the URL ends the sentence. */
        while (e > a && strchr(":,;.)!", text[e - 1]) != NULL)
            e--;
        redact_url(w, text, a, e, depth);
        copied = i = e;
    }
    put(w, text + copied, end - copied);
}

HIPFILE_API size_t hipFileRedactUrls(const char *text, char *out, size_t out_size)
{
    struct writer w = {.out = out, .size = out != NULL ? out_size : 0, .len = 0};
    if (text != NULL)
        redact_range(&w, text, 0, strlen(text), 0);
    if (w.size > 0)
        w.out[w.len < w.size ? w.len : w.size - 1] = '\0';
    return w.len;
}
