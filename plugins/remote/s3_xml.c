/* Reading S3's InitiateMultipartUploadResult and Error documents with libxml2, and writing a
 * CompleteMultipartUpload document. Elements are matched by local name, so the S3 namespace (which
 * some S3-compatible stores leave out) does not matter. */
#include "s3_xml.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

/* No network, no entity expansion, no DTD loading: bodies come from a server, not from us. */
static xmlDocPtr parse_body(const char *body, size_t size)
{
    if (!body || size == 0 || size > (size_t)INT_MAX)
        return NULL;
    return xmlReadMemory(body, (int)size, "s3-response.xml", NULL,
                         XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

static xmlNodePtr root_named(xmlDocPtr doc, const char *name)
{
    xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (!root || xmlStrcmp(root->name, (const xmlChar *)name) != 0)
        return NULL;
    return root;
}

static xmlNodePtr child_named(xmlNodePtr parent, const char *name)
{
    for (xmlNodePtr c = parent->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && xmlStrcmp(c->name, (const xmlChar *)name) == 0)
            return c;
    return NULL;
}

/* Copies the element's text; 0, -ENOENT when there is no such element, -ENOSPC when truncated. */
static int copy_text(xmlNodePtr parent, const char *name, char *out, size_t out_size)
{
    if (out_size > 0)
        out[0] = '\0';
    xmlNodePtr node = child_named(parent, name);
    if (!node)
        return -ENOENT;
    xmlChar *text = xmlNodeGetContent(node);
    if (!text)
        return -ENOMEM;
    int n = snprintf(out, out_size, "%s", (const char *)text);
    xmlFree(text);
    return n >= 0 && (size_t)n < out_size ? 0 : -ENOSPC;
}

int s3_xml_upload_id(const char *body, size_t size, char *upload_id, size_t id_size)
{
    if (id_size > 0)
        upload_id[0] = '\0';
    xmlDocPtr doc = parse_body(body, size);
    xmlNodePtr root = root_named(doc, "InitiateMultipartUploadResult");
    int rc = -EBADMSG;
    if (root) {
        rc = copy_text(root, "UploadId", upload_id, id_size);
        if (rc == -ENOENT || (rc == 0 && upload_id[0] == '\0'))
            rc = -EBADMSG;
        if (rc < 0 && id_size > 0)
            upload_id[0] = '\0';
    }
    xmlFreeDoc(doc);
    return rc;
}

int s3_xml_error(const char *body, size_t size, char *code, size_t code_size, char *message,
                 size_t message_size, char *request_id, size_t request_id_size)
{
    if (code_size > 0)
        code[0] = '\0';
    if (message_size > 0)
        message[0] = '\0';
    if (request_id_size > 0)
        request_id[0] = '\0';
    xmlDocPtr doc = parse_body(body, size);
    xmlNodePtr root = root_named(doc, "Error");
    if (!root) {
        xmlFreeDoc(doc);
        return -EBADMSG;
    }
    /* A truncated field is still worth logging, so only absence and memory count here. */
    copy_text(root, "Code", code, code_size);
    copy_text(root, "Message", message, message_size);
    copy_text(root, "RequestId", request_id, request_id_size);
    xmlFreeDoc(doc);
    return 0;
}

static void write_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

char *s3_xml_complete_body(const char *const *etags, unsigned n, size_t *size_p)
{
    if (!etags || n == 0) {
        errno = EINVAL;
        return NULL;
    }
    for (unsigned i = 0; i < n; i++) {
        if (!etags[i] || !etags[i][0]) {
            errno = EINVAL;
            return NULL;
        }
    }
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f) {
        errno = ENOMEM;
        return NULL;
    }
    fputs("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">", f);
    for (unsigned i = 0; i < n; i++) {
        fprintf(f, "<Part><PartNumber>%u</PartNumber><ETag>", i + 1);
        write_escaped(f, etags[i]);
        fputs("</ETag></Part>", f);
    }
    fputs("</CompleteMultipartUpload>", f);
    if (fclose(f) != 0) {
        free(buf);
        errno = ENOMEM;
        return NULL;
    }
    if (size_p)
        *size_p = size;
    return buf;
}
