/* SPDX-License-Identifier: MIT */
/*
 * replay_main.c - the fuzz interpreter as a plain regression test: replays the files of
 * the committed corpus (and any crash files given), then a number of pseudo-random inputs
 * from a fixed seed, through the same checks as the fuzzer (fuzz_ops.c).
 *
 *   fuzz_replay [--verbose] [--adversary] [--random N] [--seed S] [--keep FILE]
 *               [FILE|DIRECTORY]...
 *
 * --adversary runs every input with the adversary (fuzz_ops.h): writes into the heap's own
 * metadata, each reported or harmless. --keep writes each random input to FILE before it
 * runs, so that after a failure FILE holds the input that failed (replay it as a file).
 *
 * Exit status 0 when every input passes; a failed check aborts with a message.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_ops.h"

static size_t inputs, operations;
static const char *keep_path; /* --keep */

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    unsigned char *data;
    long size;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
        if (f) fclose(f);
        return 0;
    }
    data = (unsigned char *)malloc((size_t)size + 1);
    if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
        free(data);
        fclose(f);
        return 0;
    }
    fclose(f);
    if (tlsf_fuzz_verbose) fprintf(stderr, "%s (%ld bytes)\n", path, size);
    operations += tlsf_fuzz_run(data, (size_t)size);
    inputs++;
    free(data);
    return 1;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of a directory, in name order (so runs are reproducible). */
static int replay_directory(const char *path) {
    DIR *dir = opendir(path);
    struct dirent *entry;
    char **names = NULL;
    size_t count = 0, capacity = 0, i;
    int ok = 1;
    if (dir == NULL) return 0;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.') continue;
        if (count == capacity) {
            char **grown;
            capacity = capacity ? capacity * 2 : 64;
            grown = (char **)realloc(names, capacity * sizeof *names);
            if (grown == NULL) break;
            names = grown;
        }
        names[count] = (char *)malloc(strlen(path) + strlen(entry->d_name) + 2);
        if (names[count] == NULL) break;
        sprintf(names[count], "%s/%s", path, entry->d_name);
        count++;
    }
    closedir(dir);
    if (count) qsort(names, count, sizeof *names, compare_names);
    for (i = 0; i < count; ++i) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) ok &= replay_file(names[i]);
        free(names[i]);
    }
    free(names);
    return ok;
}

/* Random inputs: bytes from xorshift, lengths 1..2048. */
static void replay_random(unsigned long count, uint32_t seed) {
    unsigned char buffer[2048];
    uint32_t x = seed ? seed : 1;
    unsigned long n;
    for (n = 0; n < count; ++n) {
        size_t length, i;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        length = 1 + x % sizeof buffer;
        for (i = 0; i < length; ++i) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            buffer[i] = (unsigned char)(x >> 24);
        }
        if (tlsf_fuzz_verbose) fprintf(stderr, "random input %lu (%zu bytes)\n", n, length);
        if (keep_path != NULL) {
            FILE *f = fopen(keep_path, "wb");
            if (f == NULL || fwrite(buffer, 1, length, f) != length) perror(keep_path);
            if (f != NULL) fclose(f);
        }
        operations += tlsf_fuzz_run(buffer, length);
        inputs++;
    }
}

int main(int argc, char **argv) {
    unsigned long random_count = 0;
    uint32_t seed = 12345;
    int i, ok = 1;
    for (i = 1; i < argc; ++i) {
        struct stat st;
        if (strcmp(argv[i], "--verbose") == 0) {
            tlsf_fuzz_verbose = 1;
        } else if (strcmp(argv[i], "--adversary") == 0) {
            tlsf_fuzz_adversary = 1;
        } else if (strcmp(argv[i], "--random") == 0 && i + 1 < argc) {
            random_count = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc) {
            keep_path = argv[++i];
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            ok &= replay_directory(argv[i]);
        } else {
            ok &= replay_file(argv[i]);
        }
    }
    replay_random(random_count, seed);
    printf("fuzz_replay: %zu inputs, %zu operations, all checks passed\n", inputs, operations);
    if (tlsf_fuzz_adversary) {
        const struct tlsf_fuzz_adversary_counts *c = &tlsf_fuzz_adversary_counts;
        printf("fuzz_replay: adversary: %zu heaps damaged: %zu reported to the handler, %zu "
               "harmless to the end; %zu counted by tlsf_check\n",
               c->damaged, c->reported, c->unnoticed, c->found_by_check);
    }
    return ok && inputs > 0 ? 0 : 1;
}
