/*
 * SPDX-License-Identifier: MIT
 *
 * newlib_malloc.c - newlib's malloc family on the FreeRTOS heap (heap_tlsf.c), so that the
 * C library (printf's buffers, strdup, ...) and the application's malloc use the same heap
 * as pvPortMalloc, under the same lock, and newlib's own allocator - a second heap growing
 * through _sbrk - is never linked.
 *
 * newlib calls the reentrant forms (_malloc_r, ...), programs the plain ones; both are
 * defined here, so no object of newlib's allocator is pulled into the link (a program
 * that still needs one - mallinfo, malloc_stats - fails to link with duplicate symbols
 * instead of getting a second heap silently). CMake: link tlsf::freertos_newlib.
 *
 *   malloc, calloc, free    pvPortMalloc, pvPortCalloc, vPortFree: the port's lock, its
 *                           checks (a double free fails configASSERT), trace macros and
 *                           malloc-failed hook. malloc(0) is a smallest block, not NULL.
 *   realloc, memalign       tlsf_realloc and tlsf_memalign on pxPortGetTlsfHeap(), under
 *                           pxPortGetHeapLock() (no trace call, no hook). realloc(p, 0)
 *                           frees p and returns NULL; realloc(NULL, n) is malloc(n).
 *
 * Any block may be freed with free() or vPortFree(). A failure returns NULL with errno set
 * to ENOMEM. Like every heap call of a FreeRTOS program, these may be called from tasks
 * (and from interrupt handlers only with configTLSF_HEAP_LOCK_MASKS_INTERRUPTS = 1), not
 * before the heap has memory when it is built from regions (see heap_tlsf.h). Statistics:
 * with TLSF_STATS = 1 (the default, required here) the port's counts include every block.
 */
#include <errno.h>
#include <reent.h>
#include <stddef.h>
#include <stdlib.h>

#include "FreeRTOS.h"
#include "heap_tlsf.h"

#if !defined(__NEWLIB__)
#error "newlib_malloc.c replaces newlib's allocator: build it with newlib (arm-none-eabi-gcc)"
#endif
#if !TLSF_STATS
#error                                                                                             \
    "newlib_malloc.c needs TLSF_STATS=1: the port counts realloc and memalign blocks through the core's statistics"
#endif

void *_malloc_r(struct _reent *reent, size_t bytes);
void _free_r(struct _reent *reent, void *block);
void *_calloc_r(struct _reent *reent, size_t count, size_t size);
void *_realloc_r(struct _reent *reent, void *block, size_t bytes);
void *_memalign_r(struct _reent *reent, size_t align, size_t bytes);
void *memalign(size_t align, size_t bytes);

/* NULL, with errno set for the failed call. */
static void *out_of_memory(struct _reent *reent) {
    reent->_errno = ENOMEM;
    return NULL;
}

void *_malloc_r(struct _reent *reent, size_t bytes) {
    /* pvPortMalloc(0) is NULL (heap_4's rule); C's malloc(0) may be a unique pointer. */
    void *block = pvPortMalloc(bytes != 0u ? bytes : 1u);
    return block != NULL ? block : out_of_memory(reent);
}

void _free_r(struct _reent *reent, void *block) {
    (void)reent;
    vPortFree(block); /* NULL is ignored */
}

void *_calloc_r(struct _reent *reent, size_t count, size_t size) {
    void *block;
    if (count == 0u || size == 0u) return _malloc_r(reent, 1u);
    block = pvPortCalloc(count, size); /* NULL when count * size overflows */
    return block != NULL ? block : out_of_memory(reent);
}

void *_realloc_r(struct _reent *reent, void *block, size_t bytes) {
    void *moved;
    if (block == NULL) return _malloc_r(reent, bytes);
    if (bytes == 0u) {
        vPortFree(block);
        return NULL;
    }
    moved = tlsf_locked_realloc(pxPortGetHeapLock(), pxPortGetTlsfHeap(), block, bytes);
    return moved != NULL ? moved : out_of_memory(reent); /* the old block is untouched */
}

void *_memalign_r(struct _reent *reent, size_t align, size_t bytes) {
    /* tlsf_memalign: NULL for an alignment that is not a power of two. */
    void *block = tlsf_locked_memalign(pxPortGetHeapLock(), pxPortGetTlsfHeap(), align,
                                       bytes != 0u ? bytes : 1u);
    return block != NULL ? block : out_of_memory(reent);
}

void *malloc(size_t bytes) {
    return _malloc_r(_REENT, bytes);
}

void free(void *block) {
    _free_r(_REENT, block);
}

void *calloc(size_t count, size_t size) {
    return _calloc_r(_REENT, count, size);
}

void *realloc(void *block, size_t bytes) {
    return _realloc_r(_REENT, block, bytes);
}

void *memalign(size_t align, size_t bytes) {
    return _memalign_r(_REENT, align, bytes);
}
