/* SPDX-License-Identifier: MIT */
/*
 * memcheck_demo.c - small programs on a TLSF heap built with TLSF_MEMCHECK=1, run under
 * valgrind by run-memcheck.sh, which checks what memcheck says about each:
 *
 *   clean   every allocation function, realloc growing and shrinking in place and moving,
 *           all bytes written and read back, everything freed: no error, nothing lost
 *   leak    one block's only pointer is dropped: "definitely lost"
 *   uaf     a byte of a freed block is read: "Invalid read", inside a block "free'd"
 *   uninit  a fresh block's byte decides a branch before anything was written to it:
 *           "depends on uninitialised value" (also with TLSF_FILL, whose pattern must
 *           not count as written)
 *
 * With a second argument `slabs` the heap has 4 KiB slabs (tlsf_slabs_enable, where
 * TLSF_SLABS builds them): the small blocks are then slab objects, which memcheck must see
 * as heap blocks just the same.
 *
 * The pool is a static array, as in firmware: memory valgrind knows nothing about until the
 * heap describes it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tlsf.h"

static unsigned char arena[256 * 1024] __attribute__((aligned(64)));

/* Written through a volatile, so the compiler keeps every load and store below. */
static volatile unsigned char sink;
static void *volatile kept;

static tlsf_t make_heap(void) {
    tlsf_t heap = tlsf_create_with_pool(arena, sizeof arena);
    if (heap == NULL) {
        fprintf(stderr, "memcheck_demo: no heap\n");
        return NULL;
    }
    return heap;
}

/* Fill `bytes` at `p` with a pattern derived from `seed`; check them. */
static void put(void *p, size_t bytes, unsigned seed) {
    size_t i;
    for (i = 0; i < bytes; ++i)
        ((unsigned char *)p)[i] = (unsigned char)(seed + i);
}
static int same(const void *p, size_t bytes, unsigned seed) {
    size_t i;
    for (i = 0; i < bytes; ++i)
        if (((const unsigned char *)p)[i] != (unsigned char)(seed + i)) return 0;
    return 1;
}

/* 1 (and a message naming the line) if `ok` is false. */
static int fails(int ok, int line) {
    if (!ok) fprintf(stderr, "memcheck_demo.c:%d: check failed\n", line);
    return !ok;
}

static int run_clean(tlsf_t heap) {
    int failures = 0;
    size_t n;
    /* Grow in place (g is the first block: the free rest of the pool follows it), keep the
     * old contents, write the new part; shrink in place, keep what is left. (Above the
     * largest slab object, so a block of the lists also with slabs.) */
    unsigned char *g = tlsf_malloc(heap, 300);
    unsigned char *a, *b, *c, *z;
    if (g == NULL) return 1;
    n = tlsf_block_size(g);
    put(g, n, 3);
    z = tlsf_realloc(heap, g, 2000);
    failures += fails(z == g && same(z, n, 3), __LINE__);
    put(z, tlsf_block_size(z), 4);
    g = tlsf_realloc(heap, z, 500);
    failures += fails(g == z && same(g, tlsf_block_size(g), 4), __LINE__);

    a = tlsf_malloc(heap, 100);
    b = tlsf_calloc(heap, 30, 10);
    c = tlsf_memalign(heap, 256, 300);
    if (a == NULL || b == NULL || c == NULL) return 1;
    /* Every usable byte is the user's, the last word included. */
    put(a, tlsf_block_size(a), 1);
    for (n = 0; n < 300; ++n)
        failures += fails(b[n] == 0, __LINE__);
    put(c, tlsf_block_size(c), 2);
    failures += fails(same(a, tlsf_block_size(a), 1) && same(c, tlsf_block_size(c), 2), __LINE__);
    /* Move: a block after it keeps it from growing in place. */
    z = tlsf_malloc(heap, 16);
    if (z == NULL) return 1;
    put(z, tlsf_block_size(z), 5);
    n = tlsf_block_size(a);
    a = tlsf_realloc(heap, a, 4000);
    failures += fails(a != NULL && same(a, n, 1), __LINE__);
    c = tlsf_realloc(heap, c, 5000); /* aligned block, moved with its alignment */
    failures += fails(c != NULL && ((uintptr_t)c & 255) == 0, __LINE__);

    tlsf_free(heap, a);
    tlsf_free(heap, b);
    tlsf_free(heap, c);
    tlsf_free(heap, g);
    tlsf_free(heap, z);
    failures += fails(tlsf_check(heap) == 0 && tlsf_check_pool(tlsf_get_pool(heap)) == 0, __LINE__);
    /* Everything is free again: the pool can be taken back. */
    tlsf_remove_pool(heap, tlsf_get_pool(heap));
    if (failures) fprintf(stderr, "memcheck_demo: %d failures\n", failures);
    return failures != 0;
}

static int run_leak(tlsf_t heap) {
    unsigned char *keep = tlsf_malloc(heap, 64);
    kept = tlsf_malloc(heap, 200);
    put(kept, 200, 6);
    kept = NULL; /* the only pointer to the 200-byte block is gone */
    tlsf_free(heap, keep);
    return 0;
}

static int run_uaf(tlsf_t heap) {
    unsigned char *p = tlsf_malloc(heap, 100);
    unsigned char *guard = tlsf_malloc(heap, 16);
    put(p, 100, 7);
    tlsf_free(heap, p);
    sink = p[50]; /* use after free */
    tlsf_free(heap, guard);
    return 0;
}

static int run_uninit(tlsf_t heap) {
    unsigned char *p = tlsf_malloc(heap, 100);
    if (p[40] == 0x42) sink = 1; /* nothing was written to p[40] */
    tlsf_free(heap, p);
    return 0;
}

int main(int argc, char **argv) {
    tlsf_t heap;
    if (argc != 2 && !(argc == 3 && strcmp(argv[2], "slabs") == 0)) {
        fprintf(stderr, "usage: memcheck_demo clean|leak|uaf|uninit [slabs]\n");
        return 2;
    }
    heap = make_heap();
    if (heap == NULL) return 1;
    if (argc == 3 && tlsf_slabs_enable(heap, 4096) != (TLSF_SLABS ? 0 : -1)) {
        fprintf(stderr, "memcheck_demo: tlsf_slabs_enable disagrees with TLSF_SLABS\n");
        return 1;
    }
    if (strcmp(argv[1], "clean") == 0) return run_clean(heap);
    if (strcmp(argv[1], "leak") == 0) return run_leak(heap);
    if (strcmp(argv[1], "uaf") == 0) return run_uaf(heap);
    if (strcmp(argv[1], "uninit") == 0) return run_uninit(heap);
    fprintf(stderr, "memcheck_demo: unknown mode %s\n", argv[1]);
    return 2;
}
