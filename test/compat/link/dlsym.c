/* SPDX-License-Identifier: MIT */
/*
 * libtlsf_mattconte.so through dlopen and dlsym, as a program that loads its allocator at
 * run time: each of mattconte's 20 names is found as a plain symbol, this library's
 * additions are not (under the names a program's own helpers may have), and a heap made
 * through the pointers works. The path of the library is the first argument. Prints
 * "dlsym: PASS" when every check holds.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = {
    "tlsf_create",        "tlsf_create_with_pool", "tlsf_destroy",
    "tlsf_get_pool",      "tlsf_add_pool",         "tlsf_remove_pool",
    "tlsf_malloc",        "tlsf_memalign",         "tlsf_realloc",
    "tlsf_free",          "tlsf_block_size",       "tlsf_size",
    "tlsf_align_size",    "tlsf_block_size_min",   "tlsf_block_size_max",
    "tlsf_pool_overhead", "tlsf_alloc_overhead",   "tlsf_walk_pool",
    "tlsf_check",         "tlsf_check_pool"};
static const char *const additions[] = {"tlsf_calloc", "tlsf_usable_size", "tlsf_get_stats",
                                        "tlsf_aligned_alloc", "tlsfi_report"};

typedef void *(*create_with_pool_fn)(void *, size_t);
typedef void *(*malloc_fn)(void *, size_t);
typedef void (*free_fn)(void *, void *);
typedef int (*check_fn)(void *);

static union {
    long long align;
    unsigned char bytes[64 * 1024];
} memory;

int main(int argc, char **argv) {
    void *library, *heap, *p;
    create_with_pool_fn create_with_pool;
    malloc_fn malloc_;
    free_fn free_;
    check_fn check;
    size_t i;
    int failures = 0;
    if (argc < 2) return 2;
    library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        printf("dlsym: FAILED: dlopen: %s\n", dlerror());
        return 1;
    }
    for (i = 0; i < sizeof names / sizeof names[0]; ++i) {
        if (dlsym(library, names[i]) == NULL) {
            printf("dlsym: FAILED: %s not found\n", names[i]);
            ++failures;
        }
    }
    for (i = 0; i < sizeof additions / sizeof additions[0]; ++i) {
        if (dlsym(library, additions[i]) != NULL) {
            printf("dlsym: FAILED: %s is exported under a plain name\n", additions[i]);
            ++failures;
        }
    }
    /* (memcpy: ISO C has no conversion from void * to a function pointer; POSIX promises
     * that dlsym's result converts.) */
    p = dlsym(library, "tlsf_create_with_pool");
    memcpy(&create_with_pool, &p, sizeof p);
    p = dlsym(library, "tlsf_malloc");
    memcpy(&malloc_, &p, sizeof p);
    p = dlsym(library, "tlsf_free");
    memcpy(&free_, &p, sizeof p);
    p = dlsym(library, "tlsf_check");
    memcpy(&check, &p, sizeof p);
    if (failures == 0) {
        heap = create_with_pool(memory.bytes, sizeof memory.bytes);
        p = heap != NULL ? malloc_(heap, 100) : NULL;
        if (p == NULL || malloc_(heap, 0) != NULL || check(heap) != 0) {
            printf("dlsym: FAILED: a heap through the symbols\n");
            ++failures;
        } else {
            free_(heap, p);
        }
    }
    dlclose(library);
    if (failures == 0) printf("dlsym: PASS\n");
    return failures != 0;
}
