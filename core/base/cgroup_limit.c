/* The walk over the process's cgroup paths that the CPU and memory budgets share. */
#include "base/cgroup_limit.h"

#include <stdio.h>
#include <string.h>

/* A cgroup path of /proc/self/cgroup fits in this; a longer one bounds nothing. */
#define PATH_MAX_LEN 4096

/* The smallest limit on the path from @p root + @p cgroup up to @p root (inclusive), 0 for none. */
static uint64_t smallest_on_path(const char *root, const char *cgroup, bool v2,
                                 hf_cgroup_reader read)
{
    char dir[PATH_MAX_LEN];
    if (snprintf(dir, sizeof(dir), "%s%s", root, cgroup) >= (int)sizeof(dir))
        return 0;
    size_t root_len = strlen(root);
    uint64_t best = 0;
    for (;;) {
        uint64_t limit = read(dir, v2);
        if (limit > 0 && (best == 0 || limit < best))
            best = limit;
        char *slash = strrchr(dir, '/');
        if (slash == NULL || (size_t)(slash - dir) < root_len)
            break;
        *slash = '\0';
    }
    return best;
}

/* Whether the comma-separated @p controllers name @p controller. */
static bool lists(const char *controllers, const char *controller)
{
    char list[256];
    snprintf(list, sizeof(list), "%s", controllers);
    for (char *save = NULL, *c = strtok_r(list, ",", &save); c != NULL;
         c = strtok_r(NULL, ",", &save)) {
        if (strcmp(c, controller) == 0)
            return true;
    }
    return false;
}

uint64_t hf_cgroup_smallest_limit(const char *proc_cgroup, const char *cgroup_root,
                                  const char *controller, const char *const *v1_mounts,
                                  hf_cgroup_reader read)
{
    FILE *f = fopen(proc_cgroup, "re");
    if (f == NULL)
        return 0;
    uint64_t best = 0;
    char line[PATH_MAX_LEN + 128];
    while (fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        /* hierarchy-ID:controllers:path; v2 is "0::/path". */
        char *first = strchr(line, ':');
        char *second = first != NULL ? strchr(first + 1, ':') : NULL;
        if (second == NULL || second[1] != '/')
            continue;
        *second = '\0';
        const char *controllers = first + 1;
        const char *path = strcmp(second + 1, "/") == 0 ? "" : second + 1;
        uint64_t limit = 0;
        if (controllers[0] == '\0') {
            limit = smallest_on_path(cgroup_root, path, true, read);
        } else if (lists(controllers, controller)) {
            for (size_t i = 0; v1_mounts[i] != NULL && limit == 0; i++) {
                char root[PATH_MAX_LEN];
                if (snprintf(root, sizeof(root), "%s/%s", cgroup_root, v1_mounts[i]) <
                    (int)sizeof(root))
                    limit = smallest_on_path(root, path, false, read);
            }
        }
        if (limit > 0 && (best == 0 || limit < best))
            best = limit;
    }
    fclose(f);
    return best;
}
