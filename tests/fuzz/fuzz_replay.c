/*
 * Runs a libFuzzer target without libFuzzer: every file in the directories named on the command
 * line is passed to LLVMFuzzerTestOneInput once. ctest uses it to replay the seed corpus and
 * every crash kept as a regression input, in ordinary builds and with any compiler.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, size = 0;
    uint8_t *data = malloc(cap);
    size_t n;
    while (data != NULL && (n = fread(data + size, 1, cap - size, f)) > 0) {
        size += n;
        if (size == cap) {
            uint8_t *grown = realloc(data, cap * 2);
            if (grown == NULL)
                break;
            data = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (data == NULL)
        return -1;
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int name_compare(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_hidden(const struct dirent *entry)
{
    return entry->d_name[0] != '.';
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR [REGRESSION_DIR...]\n", argv[0]);
        return 2;
    }
    int total = 0;
    for (int d = 1; d < argc; d++) {
        struct dirent **names;
        int n = scandir(argv[d], &names, not_hidden, name_compare);
        if (n < 0) {
            perror(argv[d]);
            return 1;
        }
        for (int i = 0; i < n; i++) {
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s", argv[d], names[i]->d_name);
            if (replay_file(path) == 0)
                total++;
            free(names[i]);
        }
        free(names);
        if (d == 1 && n == 0) {
            fprintf(stderr, "%s holds no inputs\n", argv[d]);
            return 1;
        }
    }
    printf("replayed %d inputs\n", total);
    return 0;
}
