/*
 * Backend manifests: reads one XML file, validates it against the schema compiled into the core,
 * and extracts the fields the loader and selector use; resolves the library path without letting
 * it leave the plugin directory.
 */
#include "host/manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>

#include "base/why.h"
#include "common/regular_file.h"
#include "hipfile/backend.h"
#include "host/plugin_trust.h"
#include "manifest_schema.h"

/*
 * The errnos a manifest may name: the schema's enumeration. EOPNOTSUPP comes before its Linux alias
 * ENOTSUP so that logs use the name the kernel's headers use.
 */
static const struct {
    const char *name;
    int value;
} manifest_errnos[] = {
    {"EACCES", EACCES},
    {"EAGAIN", EAGAIN},
    {"EBUSY", EBUSY},
    {"EFAULT", EFAULT},
    {"EINTR", EINTR},
    {"EINVAL", EINVAL},
    {"EIO", EIO},
    {"ENODEV", ENODEV},
    {"ENOMEM", ENOMEM},
    {"ENOSYS", ENOSYS},
    {"EOPNOTSUPP", EOPNOTSUPP},
    {"ENOTSUP", ENOTSUP},
    {"ENXIO", ENXIO},
    {"EPERM", EPERM},
    {"EREMOTEIO", EREMOTEIO},
    {"ETIMEDOUT", ETIMEDOUT},
    {"EXDEV", EXDEV},
};

static const char *const mem_names[] = {
    [HF_MEM_UNKNOWN] = "host",    [HF_MEM_DEVICE] = "device", [HF_MEM_HOST_PINNED] = "host-pinned",
    [HF_MEM_MANAGED] = "managed", [HF_MEM_ARRAY] = "array",
};

static const char *const file_kind_names[] = {
    [HF_FILE_REGULAR] = "regular",
    [HF_FILE_BLOCK] = "block",
    [HF_FILE_USERSPACE_FS] = "userspace-fs",
    [HF_FILE_REMOTE] = "remote",
};

const char *hf_manifest_errno_name(int err)
{
    for (size_t i = 0; i < sizeof(manifest_errnos) / sizeof(manifest_errnos[0]); i++) {
        if (manifest_errnos[i].value == err)
            return manifest_errnos[i].name;
    }
    return NULL;
}

int hf_manifest_errno_parse(const char *name)
{
    for (size_t i = 0; name != NULL && i < sizeof(manifest_errnos) / sizeof(manifest_errnos[0]);
         i++) {
        if (strcmp(manifest_errnos[i].name, name) == 0)
            return manifest_errnos[i].value;
    }
    return -1;
}

const char *hf_manifest_mem_name(int mem_type)
{
    if (mem_type < 0 || (size_t)mem_type >= sizeof(mem_names) / sizeof(mem_names[0]))
        return "unknown";
    return mem_names[mem_type];
}

const char *hf_manifest_file_kind_name(int kind)
{
    if (kind < 0 || (size_t)kind >= sizeof(file_kind_names) / sizeof(file_kind_names[0]) ||
        file_kind_names[kind] == NULL)
        return "unknown";
    return file_kind_names[kind];
}

/* The first error libxml2 reports while parsing or validating one manifest. */
struct xml_capture {
    bool seen;
    int line;
    char message[HF_MANIFEST_WHY_SIZE];
};

static void xml_capture_error(void *data, xmlErrorPtr error)
{
    struct xml_capture *capture = data;
    if (capture == NULL || capture->seen || error == NULL)
        return;
    capture->seen = true;
    capture->line = error->line;
    snprintf(capture->message, sizeof(capture->message), "%s",
             error->message ? error->message : "unknown XML error");
    size_t len = strlen(capture->message);
    /* The line ends in "; skipped" after this, so no newline or full stop of libxml2's own. */
    while (len > 0 && strchr("\n .", capture->message[len - 1]) != NULL)
        capture->message[--len] = '\0';
}

/* The parser hands its serror hook ctxt->userData, which is the context itself by default. */
static void xml_parser_error(void *data, xmlErrorPtr error)
{
    xmlParserCtxtPtr ctxt = data;
    xml_capture_error(ctxt ? ctxt->_private : NULL, error);
}

static pthread_once_t schema_once = PTHREAD_ONCE_INIT;
static xmlSchemaPtr schema;
static struct xml_capture schema_failure;

static void schema_compile(void)
{
    xmlInitParser();
    xmlSchemaParserCtxtPtr pctxt =
        xmlSchemaNewMemParserCtxt((const char *)hf_manifest_schema, sizeof(hf_manifest_schema));
    if (pctxt == NULL) {
        snprintf(schema_failure.message, sizeof(schema_failure.message), "out of memory");
        return;
    }
    xmlSchemaSetParserStructuredErrors(pctxt, xml_capture_error, &schema_failure);
    schema = xmlSchemaParse(pctxt);
    xmlSchemaFreeParserCtxt(pctxt);
    if (schema == NULL && !schema_failure.seen)
        snprintf(schema_failure.message, sizeof(schema_failure.message), "schema did not compile");
}

/* Reads the whole file, refusing anything bigger than a manifest can reasonably be. */
static int file_slurp(const char *path, char **text_p, size_t *size_p, char *why, size_t why_size)
{
    struct stat st;
    int fd = hfp_open_regular(path, O_RDONLY, 0, &st, why, why_size);
    if (fd < 0)
        return fd;
    int rc;
    /* Checked on the open descriptor: what is validated is what is read. */
    rc = hf_plugin_trust_stat(path, &st, why, why_size);
    if (rc < 0)
        goto close_fd;
    if (st.st_size > HF_MANIFEST_MAX_BYTES) {
        rc = -EFBIG;
        hf_why_set(why, why_size, "%lld bytes is larger than the %d a manifest may have",
                   (long long)st.st_size, HF_MANIFEST_MAX_BYTES);
        goto close_fd;
    }
    char *text = malloc((size_t)st.st_size + 1);
    if (text == NULL) {
        rc = -ENOMEM;
        hf_why_set(why, why_size, "out of memory");
        goto close_fd;
    }
    size_t size = 0;
    while (size < (size_t)st.st_size) {
        ssize_t n = read(fd, text + size, (size_t)st.st_size - size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            hf_why_set(why, why_size, "cannot read: %s", strerror(-rc));
            goto free_text;
        }
        if (n == 0)
            break;
        size += (size_t)n;
    }
    text[size] = '\0';
    *text_p = text;
    *size_p = size;
    close(fd);
    return 0;

free_text:
    free(text);
close_fd:
    close(fd);
    return rc;
}

/* Element content with surrounding white space removed, copied into @p out. */
static bool node_text(xmlNodePtr node, char *out, size_t out_size)
{
    xmlChar *content = xmlNodeGetContent(node);
    if (content == NULL)
        return false;
    const char *start = (const char *)content;
    while (*start == ' ' || *start == '\t' || *start == '\n' || *start == '\r')
        start++;
    size_t len = strlen(start);
    while (len > 0 && (start[len - 1] == ' ' || start[len - 1] == '\t' || start[len - 1] == '\n' ||
                       start[len - 1] == '\r'))
        len--;
    bool fits = len < out_size;
    if (fits) {
        memcpy(out, start, len);
        out[len] = '\0';
    }
    xmlFree(content);
    return fits;
}

static bool node_is(xmlNodePtr node, const char *name)
{
    return node->type == XML_ELEMENT_NODE && node->ns == NULL &&
           xmlStrcmp(node->name, (const xmlChar *)name) == 0;
}

static bool text_to_long(const char *text, long min, long max, long *value_p)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max)
        return false;
    *value_p = value;
    return true;
}

static bool attr_to_unsigned(xmlNodePtr node, const char *name, unsigned *value_p)
{
    xmlChar *attr = xmlGetProp(node, (const xmlChar *)name);
    if (attr == NULL)
        return false;
    char text[32];
    long value;
    bool ok = snprintf(text, sizeof(text), "%s", (const char *)attr) < (int)sizeof(text);
    xmlFree(attr);
    /* The schema allows white space around an attribute's number; strtol skips the leading part. */
    size_t len = strlen(text);
    while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\n'))
        text[--len] = '\0';
    ok = ok && text_to_long(text, 0, 65535, &value);
    if (ok)
        *value_p = (unsigned)value;
    return ok;
}

static int mem_type_parse(const char *text)
{
    for (int i = 0; i < (int)(sizeof(mem_names) / sizeof(mem_names[0])); i++) {
        if (i != HF_MEM_ARRAY && strcmp(mem_names[i], text) == 0)
            return i;
    }
    return -1;
}

static int file_kind_parse(const char *text)
{
    for (int i = 0; i < (int)(sizeof(file_kind_names) / sizeof(file_kind_names[0])); i++) {
        if (file_kind_names[i] != NULL && strcmp(file_kind_names[i], text) == 0)
            return i;
    }
    return -1;
}

static int requirements_extract(xmlNodePtr node, struct hf_manifest *m, char *why, size_t why_size)
{
    char text[64];
    for (xmlNodePtr child = node->children; child != NULL; child = child->next) {
        int value = 0;
        if (node_is(child, "memory")) {
            value = node_text(child, text, sizeof(text)) ? mem_type_parse(text) : -1;
            if (value >= 0)
                m->mem_types |= 1u << value;
        } else if (node_is(child, "file")) {
            value = node_text(child, text, sizeof(text)) ? file_kind_parse(text) : -1;
            if (value >= 0)
                m->file_kinds |= 1u << value;
        }
        if (value < 0) {
            hf_why_set(why, why_size, "line %ld: unknown requirement", xmlGetLineNo(child));
            return -EINVAL;
        }
    }
    return 0;
}

static int retry_extract(xmlNodePtr node, struct hf_manifest *m, char *why, size_t why_size)
{
    char text[32];
    for (xmlNodePtr child = node->children; child != NULL; child = child->next) {
        if (!node_is(child, "errno"))
            continue;
        int err = node_text(child, text, sizeof(text)) ? hf_manifest_errno_parse(text) : -1;
        if (err < 0 || m->retry_errno_count >= HF_MAX_RETRY_ERRNOS) {
            hf_why_set(why, why_size, "line %ld: unusable retry errno", xmlGetLineNo(child));
            return -EINVAL;
        }
        m->retry_errnos[m->retry_errno_count++] = err;
    }
    return 0;
}

/*
 * The schema has already vouched for the shape; these checks only guard the C side (buffer sizes,
 * number ranges) so a schema edit cannot turn into an overflow here.
 */
static int manifest_extract(xmlNodePtr root, struct hf_manifest *m, char *why, size_t why_size)
{
    long value;
    char text[32];
    for (xmlNodePtr node = root->children; node != NULL; node = node->next) {
        bool ok = true;
        if (node_is(node, "name"))
            ok = node_text(node, m->name, sizeof(m->name));
        else if (node_is(node, "library"))
            ok = node_text(node, m->library, sizeof(m->library));
        else if (node_is(node, "abi"))
            ok = attr_to_unsigned(node, "major", &m->abi_major) &&
                 attr_to_unsigned(node, "minor", &m->abi_minor);
        else if (node_is(node, "version"))
            ok = node_text(node, m->version, sizeof(m->version));
        else if (node_is(node, "description"))
            ok = node_text(node, m->description, sizeof(m->description));
        else if (node_is(node, "priority")) {
            ok = node_text(node, text, sizeof(text)) && text_to_long(text, -1000, 1000, &value);
            if (ok)
                m->priority = (int)value;
        } else if (node_is(node, "requirements")) {
            if (requirements_extract(node, m, why, why_size) < 0)
                return -EINVAL;
        } else if (node_is(node, "retry")) {
            if (retry_extract(node, m, why, why_size) < 0)
                return -EINVAL;
        }
        if (!ok) {
            hf_why_set(why, why_size, "line %ld: element '%s' has an unusable value",
                       xmlGetLineNo(node), (const char *)node->name);
            return -EINVAL;
        }
    }
    return 0;
}

int hf_manifest_parse(const char *text, size_t size, const char *label,
                      struct hf_manifest *manifest_p, char *why, size_t why_size)
{
    pthread_once(&schema_once, schema_compile);
    if (schema == NULL) {
        hf_why_set(why, why_size, "the built-in manifest schema is unusable: %s",
                   schema_failure.message);
        return -EINVAL;
    }
    if (size > HF_MANIFEST_MAX_BYTES) {
        hf_why_set(why, why_size, "%zu bytes is larger than the %d a manifest may have", size,
                   HF_MANIFEST_MAX_BYTES);
        return -EFBIG;
    }
    int rc;
    struct xml_capture capture = {0};
    xmlParserCtxtPtr pctxt = xmlNewParserCtxt();
    if (pctxt == NULL) {
        hf_why_set(why, why_size, "out of memory");
        return -ENOMEM;
    }
    pctxt->_private = &capture;
    pctxt->sax->serror = xml_parser_error;
    /* No network, no external DTD, no entity substitution: a manifest is plain data. */
    xmlDocPtr doc = xmlCtxtReadMemory(pctxt, text, (int)size, label, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOWARNING);
    if (doc == NULL || !pctxt->wellFormed) {
        rc = -EINVAL;
        if (capture.seen)
            hf_why_set(why, why_size, "malformed XML: line %d: %s", capture.line, capture.message);
        else
            hf_why_set(why, why_size, "malformed XML");
        goto free_doc;
    }

    /* Entities could pull in other files; a manifest is plain data and never needs a DTD. */
    if (doc->intSubset != NULL || doc->extSubset != NULL) {
        rc = -EINVAL;
        hf_why_set(why, why_size, "has a DOCTYPE declaration, which manifests may not have");
        goto free_doc;
    }

    xmlSchemaValidCtxtPtr vctxt = xmlSchemaNewValidCtxt(schema);
    if (vctxt == NULL) {
        rc = -ENOMEM;
        hf_why_set(why, why_size, "out of memory");
        goto free_doc;
    }
    xmlSchemaSetValidStructuredErrors(vctxt, xml_capture_error, &capture);
    int invalid = xmlSchemaValidateDoc(vctxt, doc);
    xmlSchemaFreeValidCtxt(vctxt);
    if (invalid != 0) {
        rc = -EINVAL;
        if (capture.seen)
            hf_why_set(why, why_size, "does not match the manifest schema: line %d: %s",
                       capture.line, capture.message);
        else
            hf_why_set(why, why_size, "does not match the manifest schema");
        goto free_doc;
    }

    struct hf_manifest manifest = {0};
    rc = manifest_extract(xmlDocGetRootElement(doc), &manifest, why, why_size);
    if (rc < 0)
        goto free_doc;
    *manifest_p = manifest;

free_doc:
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(pctxt);
    return rc;
}

int hf_manifest_read(const char *path, struct hf_manifest *manifest_p, char *why, size_t why_size)
{
    char *text = NULL;
    size_t size = 0;
    int rc = file_slurp(path, &text, &size, why, why_size);
    if (rc < 0)
        return rc;
    rc = hf_manifest_parse(text, size, path, manifest_p, why, why_size);
    free(text);
    return rc;
}

static bool has_dotdot_component(const char *path)
{
    for (const char *p = path; *p != '\0';) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 2 && p[0] == '.' && p[1] == '.')
            return true;
        if (slash == NULL)
            break;
        p = slash + 1;
    }
    return false;
}

int hf_manifest_library_path(const struct hf_manifest *manifest, const char *plugin_dir,
                             char *path_p, size_t path_size, char *why, size_t why_size)
{
    const char *library = manifest->library;
    if (library[0] == '/') {
        hf_why_set(why, why_size,
                   "library '%s' is an absolute path; it must be relative to the plugin directory",
                   library);
        return -EPERM;
    }
    if (has_dotdot_component(library)) {
        hf_why_set(why, why_size,
                   "library '%s' has a '..' component; it must stay in the plugin directory",
                   library);
        return -EPERM;
    }
    char dir_real[PATH_MAX];
    if (realpath(plugin_dir, dir_real) == NULL) {
        int err = errno;
        hf_why_set(why, why_size, "plugin directory '%s': %s", plugin_dir, strerror(err));
        return -err;
    }
    char joined[PATH_MAX];
    if (snprintf(joined, sizeof(joined), "%s/%s", dir_real, library) >= (int)sizeof(joined)) {
        hf_why_set(why, why_size, "library path '%s/%s' is too long", dir_real, library);
        return -ENAMETOOLONG;
    }
    char real[PATH_MAX];
    if (realpath(joined, real) == NULL) {
        int err = errno;
        hf_why_set(why, why_size, "library '%s': %s", library, strerror(err));
        return -err;
    }
    /* Symbolic links are followed: what counts is where the file really is. */
    size_t dir_len = strlen(dir_real);
    bool inside = strncmp(real, dir_real, dir_len) == 0 &&
                  (real[dir_len] == '/' || (dir_len == 1 && dir_real[0] == '/'));
    if (!inside) {
        hf_why_set(why, why_size,
                   "library '%s' resolves to '%s', outside the plugin directory '%s'", library,
                   real, dir_real);
        return -EPERM;
    }
    /* dlopen opens it by path, and would wait for ever on a FIFO. */
    char what[HFP_REGULAR_WHY_SIZE];
    int rc = hfp_check_regular(real, what, sizeof(what));
    if (rc < 0) {
        hf_why_set(why, why_size, "library '%s': %s", library, what);
        return rc;
    }
    if (strlen(real) >= path_size) {
        hf_why_set(why, why_size, "library path '%s' is too long", real);
        return -ENAMETOOLONG;
    }
    memcpy(path_p, real, strlen(real) + 1);
    return 0;
}
