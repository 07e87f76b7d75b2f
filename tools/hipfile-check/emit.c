/*
 * The output writer: the same calls produce the text report or the JSON document, so the two
 * forms carry the same content. JSON is pretty-printed with two spaces per level. Every string it
 * writes passes hipFileRedactUrls first: settings, quoted log lines and the file explained may
 * hold a URL, and the report is made to be pasted into a bug report.
 */
#include <hipfile/remote.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/*
 * @p s with its URLs redacted: in @p small when it fits, else in memory the caller frees (or, out
 * of memory, cut to @p small, which still holds no secret).
 */
static char *redacted(const char *s, char *small, size_t small_size)
{
    size_t len = hipFileRedactUrls(s, small, small_size);
    char *text = len < small_size ? NULL : malloc(len + 1);
    if (text == NULL)
        return small;
    hipFileRedactUrls(s, text, len + 1);
    return text;
}

static void put_redacted(FILE *out, const char *s)
{
    char small[1024];
    char *text = redacted(s, small, sizeof(small));
    fputs(text, out);
    if (text != small)
        free(text);
}

/* printf whole, then put_redacted: a cut before redacting could keep a password's start. */
static void put_redactedv(FILE *out, const char *fmt, va_list ap)
{
    char small[1024];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    char *text = n >= (int)sizeof(small) ? malloc((size_t)n + 1) : NULL;
    if (text != NULL)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    put_redacted(out, text != NULL ? text : small);
    free(text);
}

/* Column where text values start, so fields of one section line up. */
#define TEXT_VALUE_COLUMN 30

static void json_string(FILE *out, const char *raw)
{
    char small[1024];
    char *s = redacted(raw, small, sizeof(small));
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
    if (s != small)
        free(s);
}

/* Comma, newline and indentation before a JSON member or element, then the key if any. */
static void json_member(struct emit *e, const char *key)
{
    int d = e->depth;
    fputs(e->has_members[d] ? ",\n" : "\n", e->out);
    e->has_members[d] = true;
    fprintf(e->out, "%*s", 2 * (d + 1), "");
    if (!e->in_list[d]) {
        json_string(e->out, key != NULL ? key : "");
        fputs(": ", e->out);
    }
}

static bool text_shown(const struct emit *e)
{
    return !e->json && !e->text_hidden[e->depth];
}

static void text_field(struct emit *e, const char *label, const char *value)
{
    int indent = e->indent[e->depth];
    int used = fprintf(e->out, "%*s%s:", indent, "", label);
    int pad = used < TEXT_VALUE_COLUMN ? TEXT_VALUE_COLUMN - used : 1;
    fprintf(e->out, "%*s", pad, "");
    put_redacted(e->out, value);
    fputc('\n', e->out);
}

/* Open level depth+1; @p shown says whether its text form appears, @p indent where. */
static void level_push(struct emit *e, bool list, bool shown, int indent)
{
    if (e->depth + 1 >= EMIT_MAX_DEPTH)
        return;
    e->depth++;
    e->in_list[e->depth] = list;
    e->has_members[e->depth] = false;
    e->text_hidden[e->depth] = !shown;
    e->indent[e->depth] = indent;
}

void emit_begin(struct emit *e, FILE *out, bool json)
{
    memset(e, 0, sizeof(*e));
    e->out = out;
    e->json = json;
    if (json)
        fputc('{', out);
}

void emit_finish(struct emit *e)
{
    while (e->depth > 0)
        emit_end(e);
    if (e->json)
        fputs(e->has_members[0] ? "\n}\n" : "}\n", e->out);
    fflush(e->out);
}

static void open_container(struct emit *e, const char *key, const char *title, bool list)
{
    bool shown = text_shown(e) && title != NULL;
    int indent = e->indent[e->depth];
    if (e->json) {
        json_member(e, key);
        fputc(list ? '[' : '{', e->out);
    } else if (shown && title[0] != '\0') {
        if (e->depth == 0)
            fprintf(e->out, "\n%s\n", title);
        else
            fprintf(e->out, "%*s%s:\n", indent, "", title);
        indent += 2;
    }
    level_push(e, list, shown, indent);
}

void emit_section(struct emit *e, const char *key, const char *title)
{
    open_container(e, key, title, false);
}

void emit_list(struct emit *e, const char *key, const char *title)
{
    open_container(e, key, title, true);
}

void emit_item(struct emit *e, const char *fmt, ...)
{
    bool shown = text_shown(e);
    int indent = e->indent[e->depth];
    if (e->json) {
        json_member(e, NULL);
        fputc('{', e->out);
    } else if (shown) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(e->out, "%*s- ", indent, "");
        put_redactedv(e->out, fmt, ap);
        fputc('\n', e->out);
        va_end(ap);
    }
    level_push(e, false, shown, indent + 2);
}

void emit_end(struct emit *e)
{
    if (e->depth == 0)
        return;
    if (e->json) {
        if (e->has_members[e->depth])
            fprintf(e->out, "\n%*s", 2 * e->depth, "");
        fputc(e->in_list[e->depth] ? ']' : '}', e->out);
    }
    e->depth--;
}

void emit_str(struct emit *e, const char *key, const char *label, const char *value)
{
    if (e->json && key == NULL)
        return;
    if (e->json) {
        json_member(e, key);
        if (value != NULL)
            json_string(e->out, value);
        else
            fputs("null", e->out);
    } else if (text_shown(e) && label != NULL) {
        text_field(e, label, value != NULL ? value : "none");
    }
}

void emit_strf(struct emit *e, const char *key, const char *label, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    emit_str(e, key, label, text);
}

void emit_int(struct emit *e, const char *key, const char *label, long long value)
{
    if (e->json) {
        json_member(e, key);
        fprintf(e->out, "%lld", value);
    } else if (text_shown(e) && label != NULL) {
        char text[32];
        snprintf(text, sizeof(text), "%lld", value);
        text_field(e, label, text);
    }
}

void emit_bool(struct emit *e, const char *key, const char *label, bool value)
{
    if (e->json) {
        json_member(e, key);
        fputs(value ? "true" : "false", e->out);
    } else if (text_shown(e) && label != NULL) {
        text_field(e, label, value ? "yes" : "no");
    }
}

void emit_elem(struct emit *e, const char *value)
{
    if (e->json) {
        json_member(e, NULL);
        json_string(e->out, value);
    } else if (text_shown(e)) {
        fprintf(e->out, "%*s- ", e->indent[e->depth], "");
        put_redacted(e->out, value);
        fputc('\n', e->out);
    }
}

void emit_text(struct emit *e, const char *fmt, ...)
{
    if (!text_shown(e))
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(e->out, "%*s", e->indent[e->depth], "");
    put_redactedv(e->out, fmt, ap);
    fputc('\n', e->out);
    va_end(ap);
}
