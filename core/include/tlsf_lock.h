/*
 * SPDX-License-Identifier: MIT
 *
 * tlsf_lock.h - one lock concept for every user of a shared heap.
 *
 * A TLSF heap is not locked internally (see tlsf.h). A program whose heap is shared by
 * threads, tasks or interrupt handlers describes its lock once, as a tlsf_lock_t: two
 * functions and a context pointer. The same value serves
 *   - the C API, through the tlsf_locked_* wrappers below (bare metal, an RTOS);
 *   - the FreeRTOS heap port (ports/freertos/heap_tlsf.c), whose lock is one of these;
 *   - the C++ layer, whose tlsf::lock_hooks is a tlsf_lock_t (cpp/include/tlsf/lock.hpp);
 *   - a library built on the C API, e.g. the malloc shim (malloc/): its lock as a
 *     tlsf_lock_t, taken with tlsf_lock_acquire/release around its own critical sections.
 *
 * Header-only, C99, freestanding (<stddef.h> and tlsf.h only). The core is untouched: a
 * wrapper is tlsf_lock_acquire, the core call, tlsf_lock_release, all inline. The cost
 * of an unlocked heap (a NULL lock or null functions) is a predictable branch per half.
 *
 * Rules every lock must follow:
 *   - acquire blocks until the caller owns the heap; release gives it back. Both run in
 *     the context of the heap call (task, thread or, if the lock allows it, interrupt).
 *   - Neither may allocate from, or free to, the heap they guard (that would recurse).
 *   - The heap's error handler (tlsf_set_error_handler) runs while the lock is held, as
 *     does a tlsf_walk_pool walker: they must not call the locked heap either. A handler
 *     that does not return (abort, a fault loop) leaves the lock held.
 *   - A lock that masks interrupts must restore the mask it found (see the C++ layer's
 *     interrupt_lock_hooks for a nesting-safe PRIMASK pair on Cortex-M).
 */
#ifndef TLSF_LOCK_H
#define TLSF_LOCK_H

#include <stddef.h>

#include "tlsf.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A lock as plain data. `lock` takes it, `unlock` gives it back; each receives `context`
 * (a mutex handle, a saved interrupt mask, NULL...). A null function skips that half, so
 * the all-zero value {NULL, NULL, NULL} (TLSF_NO_LOCK) means "no lock". A value with
 * only one of the two is legal but rarely meant: the wrappers call what is there.
 * Plain data, so a lock can be a constant in flash and copied freely.
 */
typedef struct tlsf_lock {
    void (*lock)(void *context);
    void (*unlock)(void *context);
    void *context;
} tlsf_lock_t;

/* The absent lock, for initialising a tlsf_lock_t: `tlsf_lock_t l = TLSF_NO_LOCK;`. */
#define TLSF_NO_LOCK                                                                               \
    { NULL, NULL, NULL }

/*
 * tlsf_lock_acquire: take `lock`. A NULL `lock`, or one whose `lock` function is null,
 * does nothing. Every tlsf_lock_acquire must be matched by tlsf_lock_release with the
 * same value.
 */
static inline void tlsf_lock_acquire(const tlsf_lock_t *lock) {
    if (lock != NULL && lock->lock != NULL) lock->lock(lock->context);
}

/* tlsf_lock_release: give `lock` back. NULL, or a null `unlock` function, does nothing. */
static inline void tlsf_lock_release(const tlsf_lock_t *lock) {
    if (lock != NULL && lock->unlock != NULL) lock->unlock(lock->context);
}

/*
 * The locked calls. Each is the tlsf.h call of the same name with `lock` taken before and
 * released after, on every path: success, failure (NULL returned, misuse reported to the
 * error handler) and the NULL-heap case alike, so the lock is never left held. Arguments
 * other than `lock` are passed on unchanged and have exactly the contract stated in
 * tlsf.h (NULL heap, zero and huge sizes, bad alignment, foreign pointers). A NULL
 * `lock` means "no lock": the call is the plain tlsf.h call. `*lock` is read twice, once
 * per half, so it must not change while a call is in flight.
 */

/* tlsf_locked_malloc: tlsf_malloc(tlsf, bytes) under `lock`. */
static inline void *tlsf_locked_malloc(const tlsf_lock_t *lock, tlsf_t tlsf, size_t bytes) {
    void *block;
    tlsf_lock_acquire(lock);
    block = tlsf_malloc(tlsf, bytes);
    tlsf_lock_release(lock);
    return block;
}

/* tlsf_locked_calloc: tlsf_calloc(tlsf, count, size) under `lock` (the zeroing too). */
static inline void *tlsf_locked_calloc(const tlsf_lock_t *lock, tlsf_t tlsf, size_t count,
                                       size_t size) {
    void *block;
    tlsf_lock_acquire(lock);
    block = tlsf_calloc(tlsf, count, size);
    tlsf_lock_release(lock);
    return block;
}

/* tlsf_locked_memalign: tlsf_memalign(tlsf, align, bytes) under `lock`. */
static inline void *tlsf_locked_memalign(const tlsf_lock_t *lock, tlsf_t tlsf, size_t align,
                                         size_t bytes) {
    void *block;
    tlsf_lock_acquire(lock);
    block = tlsf_memalign(tlsf, align, bytes);
    tlsf_lock_release(lock);
    return block;
}

/* tlsf_locked_memalign_offset: tlsf_memalign_offset(tlsf, align, bytes, offset) under `lock`. */
static inline void *tlsf_locked_memalign_offset(const tlsf_lock_t *lock, tlsf_t tlsf, size_t align,
                                                size_t bytes, size_t offset) {
    void *block;
    tlsf_lock_acquire(lock);
    block = tlsf_memalign_offset(tlsf, align, bytes, offset);
    tlsf_lock_release(lock);
    return block;
}

/* tlsf_locked_aligned_alloc: tlsf_aligned_alloc(tlsf, align, bytes) under `lock`. */
static inline void *tlsf_locked_aligned_alloc(const tlsf_lock_t *lock, tlsf_t tlsf, size_t align,
                                              size_t bytes) {
    void *block;
    tlsf_lock_acquire(lock);
    block = tlsf_aligned_alloc(tlsf, align, bytes);
    tlsf_lock_release(lock);
    return block;
}

/* tlsf_locked_realloc: tlsf_realloc(tlsf, ptr, bytes) under `lock` (the copy too). */
static inline void *tlsf_locked_realloc(const tlsf_lock_t *lock, tlsf_t tlsf, void *ptr,
                                        size_t bytes) {
    void *block;
    tlsf_lock_acquire(lock);
    block = tlsf_realloc(tlsf, ptr, bytes);
    tlsf_lock_release(lock);
    return block;
}

/* tlsf_locked_free: tlsf_free(tlsf, ptr) under `lock`. */
static inline void tlsf_locked_free(const tlsf_lock_t *lock, tlsf_t tlsf, void *ptr) {
    tlsf_lock_acquire(lock);
    tlsf_free(tlsf, ptr);
    tlsf_lock_release(lock);
}

/*
 * tlsf_locked_block_size: tlsf_block_size(ptr) under `lock`. It takes the lock of the
 * block's heap because the header word it reads changes when a neighbour is allocated or
 * freed (see tlsf.h).
 */
static inline size_t tlsf_locked_block_size(const tlsf_lock_t *lock, void *ptr) {
    size_t size;
    tlsf_lock_acquire(lock);
    size = tlsf_block_size(ptr);
    tlsf_lock_release(lock);
    return size;
}

/* tlsf_locked_add_pool: tlsf_add_pool(tlsf, mem, bytes) under `lock`. */
static inline pool_t tlsf_locked_add_pool(const tlsf_lock_t *lock, tlsf_t tlsf, void *mem,
                                          size_t bytes) {
    pool_t pool;
    tlsf_lock_acquire(lock);
    pool = tlsf_add_pool(tlsf, mem, bytes);
    tlsf_lock_release(lock);
    return pool;
}

/* tlsf_locked_remove_pool: tlsf_remove_pool(tlsf, pool) under `lock`. */
static inline void tlsf_locked_remove_pool(const tlsf_lock_t *lock, tlsf_t tlsf, pool_t pool) {
    tlsf_lock_acquire(lock);
    tlsf_remove_pool(tlsf, pool);
    tlsf_lock_release(lock);
}

/* tlsf_locked_get_stats: tlsf_get_stats(tlsf, stats) under `lock`: a consistent snapshot. */
static inline void tlsf_locked_get_stats(const tlsf_lock_t *lock, tlsf_t tlsf,
                                         tlsf_stats_t *stats) {
    tlsf_lock_acquire(lock);
    tlsf_get_stats(tlsf, stats);
    tlsf_lock_release(lock);
}

/* tlsf_locked_largest_allocatable: tlsf_largest_allocatable(tlsf) under `lock`. */
static inline size_t tlsf_locked_largest_allocatable(const tlsf_lock_t *lock, tlsf_t tlsf) {
    size_t largest;
    tlsf_lock_acquire(lock);
    largest = tlsf_largest_allocatable(tlsf);
    tlsf_lock_release(lock);
    return largest;
}

/* tlsf_locked_cache_flush: tlsf_cache_flush(tlsf) under `lock` (bounded; see tlsf.h). */
static inline void tlsf_locked_cache_flush(const tlsf_lock_t *lock, tlsf_t tlsf) {
    tlsf_lock_acquire(lock);
    tlsf_cache_flush(tlsf);
    tlsf_lock_release(lock);
}

/* tlsf_locked_cache_set_limit: tlsf_cache_set_limit(tlsf, bytes) under `lock`. */
static inline size_t tlsf_locked_cache_set_limit(const tlsf_lock_t *lock, tlsf_t tlsf,
                                                 size_t bytes) {
    size_t limit;
    tlsf_lock_acquire(lock);
    limit = tlsf_cache_set_limit(tlsf, bytes);
    tlsf_lock_release(lock);
    return limit;
}

/* tlsf_locked_reset_peak: tlsf_reset_peak(tlsf) under `lock`. */
static inline void tlsf_locked_reset_peak(const tlsf_lock_t *lock, tlsf_t tlsf) {
    tlsf_lock_acquire(lock);
    tlsf_reset_peak(tlsf);
    tlsf_lock_release(lock);
}

/*
 * tlsf_locked_check: tlsf_check(tlsf) under `lock`. Linear in the free blocks: the lock
 * is held that long, so keep it out of real-time paths.
 */
static inline int tlsf_locked_check(const tlsf_lock_t *lock, tlsf_t tlsf) {
    int failures;
    tlsf_lock_acquire(lock);
    failures = tlsf_check(tlsf);
    tlsf_lock_release(lock);
    return failures;
}

/*
 * tlsf_locked_check_pool: tlsf_check_pool(pool) under `lock` (the lock of the pool's
 * heap). Linear in the pool's blocks, like tlsf_locked_check.
 */
static inline int tlsf_locked_check_pool(const tlsf_lock_t *lock, pool_t pool) {
    int failures;
    tlsf_lock_acquire(lock);
    failures = tlsf_check_pool(pool);
    tlsf_lock_release(lock);
    return failures;
}

/*
 * tlsf_locked_walk_pool: tlsf_walk_pool(pool, walker, user) under `lock`. The walker runs
 * with the lock held and must not call the heap through it.
 */
static inline void tlsf_locked_walk_pool(const tlsf_lock_t *lock, pool_t pool, tlsf_walker walker,
                                         void *user) {
    tlsf_lock_acquire(lock);
    tlsf_walk_pool(pool, walker, user);
    tlsf_lock_release(lock);
}

#ifdef __cplusplus
}
#endif

#endif /* TLSF_LOCK_H */
