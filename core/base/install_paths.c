/*
 * The installation's own paths, from the file that holds the core: the dynamic loader names it,
 * and the installed layout (bin, lib, etc relative to one another, as configured) gives the rest.
 * Nothing here depends on the prefix, so `cmake --install --prefix DIR` and a moved tree both work.
 */
#include "base/install_paths.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The configured layout, relative where it follows the prefix (core/CMakeLists.txt sets both). */
#ifndef HF_INSTALL_BINDIR_TO_LIBDIR
#define HF_INSTALL_BINDIR_TO_LIBDIR "../lib"
#endif
#ifndef HF_INSTALL_CONFDIR_FROM_LIBDIR
#define HF_INSTALL_CONFDIR_FROM_LIBDIR "../etc"
#endif
/* Plugins are always installed in hipfile/plugins under the library directory. */
#define LIBDIR_TO_PLUGIN_DIR "hipfile/plugins"

static pthread_once_t layout_once = PTHREAD_ONCE_INIT;
static char libdir[PATH_MAX];
static char plugin_dir[PATH_MAX];
static char config_path[PATH_MAX];
static bool layout_found;

/*
 * The file holding this code, resolved: libhipfile.so.0, or the program when the core is linked
 * into it. The main program's link map has no name (dladdr would report argv[0], which the caller
 * chose), so the kernel's /proc/self/exe names it instead.
 */
static bool self_file(char *path, bool *is_program_p)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (dladdr1((void *)hf_install_libdir, &info, (void **)&map, RTLD_DL_LINKMAP) == 0 ||
        map == NULL)
        return false;
    bool is_program = map->l_name == NULL || map->l_name[0] == '\0';
    if (realpath(is_program ? "/proc/self/exe" : map->l_name, path) == NULL)
        return false;
    *is_program_p = is_program;
    return true;
}

/*
 * @p base (absolute, no symbolic links) joined with the relative @p rel, ".." taken lexically, into
 * @p out of PATH_MAX bytes. Lexical ".." is exact here because the base has no links.
 */
static bool path_join(const char *base, const char *rel, char *out)
{
    if (snprintf(out, PATH_MAX, "%s", base) >= PATH_MAX)
        return false;
    char parts[PATH_MAX];
    if (snprintf(parts, sizeof(parts), "%s", rel) >= (int)sizeof(parts))
        return false;
    char *save = NULL;
    for (char *part = strtok_r(parts, "/", &save); part != NULL;
         part = strtok_r(NULL, "/", &save)) {
        if (strcmp(part, ".") == 0)
            continue;
        if (strcmp(part, "..") == 0) {
            char *slash = strrchr(out, '/');
            if (slash != NULL)
                slash[slash == out ? 1 : 0] = '\0';
            continue;
        }
        size_t len = strlen(out);
        if (snprintf(out + len, PATH_MAX - len, "%s%s", out[len - 1] == '/' ? "" : "/", part) >=
            (int)(PATH_MAX - len))
            return false;
    }
    return true;
}

static void layout_find(void)
{
    char self[PATH_MAX];
    bool is_program = false;
    if (!self_file(self, &is_program))
        return;
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return;
    slash[slash == self ? 1 : 0] = '\0';
    if (!is_program) {
        snprintf(libdir, sizeof(libdir), "%s", self);
    } else {
        /* A program in <prefix>/bin: the library directory must exist beside it to be believed. */
        char joined[PATH_MAX];
        if (!path_join(self, HF_INSTALL_BINDIR_TO_LIBDIR, joined) ||
            realpath(joined, libdir) == NULL)
            return;
    }
    if (!path_join(libdir, LIBDIR_TO_PLUGIN_DIR, plugin_dir))
        return;
    const char *confdir = HF_INSTALL_CONFDIR_FROM_LIBDIR;
    char dir[PATH_MAX];
    if (confdir[0] == '/')
        snprintf(dir, sizeof(dir), "%s", confdir);
    else if (!path_join(libdir, confdir, dir))
        return;
    if (!path_join(dir, "hipfile.conf", config_path))
        return;
    layout_found = true;
}

const char *hf_install_libdir(void)
{
    pthread_once(&layout_once, layout_find);
    return layout_found ? libdir : NULL;
}

const char *hf_install_plugin_dir(void)
{
    pthread_once(&layout_once, layout_find);
    return layout_found ? plugin_dir : NULL;
}

const char *hf_install_config_path(void)
{
    pthread_once(&layout_once, layout_find);
    return layout_found ? config_path : NULL;
}
