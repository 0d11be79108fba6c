/* SPDX-License-Identifier: MIT */
/*
 * mattconte.c - the nine functions of mattconte's API whose conventions differ from the
 * core's, each a few tests around the core's own function (core_calls.h). The other eleven
 * are the core's functions under their plain names (plain_names.h).
 *
 * What differs, and where it is handled:
 *   memory     mattconte wants a word's alignment, the core its own (tlsf_align_size()):
 *              where the size is known (tlsf_create_with_pool, tlsf_add_pool) the start is
 *              rounded up and the bytes before it left unused; tlsf_create, which is given
 *              no size, refuses misaligned memory as mattconte's does, and says so.
 *   zero       mattconte's malloc(0), memalign(a, 0) and realloc(NULL, 0) return NULL, the
 *              core's a smallest block.
 *   a heap without a pool  mattconte's tlsf_create_with_pool returns the heap when the
 *              memory left is no pool; the core's returns NULL.
 *   checks     mattconte's tlsf_check and tlsf_check_pool count failures down from 0, the
 *              core's up.
 *   no walker  mattconte's tlsf_walk_pool prints each block; the core's does nothing.
 *   messages   mattconte prints why it refused a heap or a pool (print.h).
 *
 * On the real-time paths (malloc, memalign, realloc) the difference is one test of the
 * size before a tail call of the core's function: on a Cortex-M4 two instructions, which
 * test/compat/m4 counts. The other functions' usual paths are tail calls too.
 */
#include <stdint.h>

#include "tlsf.h"

#include "core_calls.h"
#include "print.h"

#ifndef TLSF_MATTCONTE_H
#error "this file implements the layer's tlsf.h (compat/mattconte/include), not the core's"
#endif

/* The bytes from `mem` up to the next multiple of the core's alignment. */
static size_t alignment_gap(const void *mem) {
    return (size_t)(0u - (uintptr_t)mem) & (CORE_ALIGN - 1);
}

/* The refusals, out of line (and reached by tail calls), so that the paths that reach the
 * core save no register for them. */
#if defined(__GNUC__) || defined(__clang__)
#define REFUSAL __attribute__((noinline, cold))
#else
#define REFUSAL
#endif
static REFUSAL tlsf_t refuse_misaligned(void *mem) {
    tlsfmc_print_misaligned("tlsf_create", mem, CORE_ALIGN);
    return NULL;
}
static REFUSAL pool_t refuse_pool(size_t bytes, size_t gap) {
    tlsfmc_print_pool_size("tlsf_add_pool", bytes > gap ? bytes - gap : 0, CORE_POOL_LEAST,
                           CORE_POOL_OVERHEAD + CORE_MAX_SPAN);
    return NULL;
}

tlsf_t tlsf_create(void *mem) {
    /* (NULL is aligned: the core refuses it.) */
    if (alignment_gap(mem) != 0) return refuse_misaligned(mem);
    return core_create(mem);
}

pool_t tlsf_add_pool(tlsf_t tlsf, void *mem, size_t bytes) {
    size_t gap = alignment_gap(mem);
    /* The core's own range test (tlsf_add_pool, core/src/tlsf_pool.c), made here first so
     * that a pool out of range can be named; fewer bytes than the gap wrap around, out of
     * range too. */
    if (((bytes - gap - CORE_POOL_LEAST) & ~(CORE_ALIGN - 1)) > CORE_MAX_SPAN - CORE_MIN_SPAN)
        return refuse_pool(bytes, gap);
    return core_add_pool((struct tlsf_heap *)tlsf, (char *)mem + gap, bytes - gap);
}

tlsf_t tlsf_create_with_pool(void *mem, size_t bytes) {
    size_t gap;
    char *start;
    tlsf_t tlsf;
    if (mem == NULL) return NULL;
    gap = alignment_gap(mem);
    if (bytes < gap || bytes - gap < CORE_CONTROL_BYTES) {
        /* mattconte's would write its control structure past the end of `bytes`. */
        tlsfmc_print_no_control(bytes, CORE_CONTROL_BYTES);
        return NULL;
    }
    start = (char *)mem + gap;
    tlsf = core_create(start);
    /* The pool is aligned (the control structure's size is a multiple of the alignment);
     * if the rest is no pool, the heap has none, and tlsf_add_pool has said why. */
    tlsf_add_pool(tlsf, start + CORE_CONTROL_BYTES, bytes - gap - CORE_CONTROL_BYTES);
    return tlsf;
}

void *tlsf_malloc(tlsf_t tlsf, size_t bytes) {
    if (bytes == 0) return NULL;
    return core_malloc((struct tlsf_heap *)tlsf, bytes);
}

void *tlsf_memalign(tlsf_t tlsf, size_t align, size_t bytes) {
    if (bytes == 0) return NULL;
    return core_memalign((struct tlsf_heap *)tlsf, align, bytes);
}

void *tlsf_realloc(tlsf_t tlsf, void *ptr, size_t size) {
    if (size == 0) {
        /* A free, or nothing for ptr == NULL (the core's would allocate a block). */
        tlsf_free(tlsf, ptr);
        return NULL;
    }
    return core_realloc((struct tlsf_heap *)tlsf, ptr, size);
}

void tlsf_walk_pool(pool_t pool, tlsf_walker walker, void *user) {
    core_walk_pool((struct tlsf_pool *)pool, walker != NULL ? walker : tlsfmc_print_block, user);
}

int tlsf_check(tlsf_t tlsf) {
    return -core_check((struct tlsf_heap *)tlsf);
}

int tlsf_check_pool(pool_t pool) {
    return -core_check_pool((struct tlsf_pool *)pool);
}
