/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_heap.h - internal to malloc/: the thread heap and chunk structures, shared by
 * the heaps' own paths (tlsfm_thread.c) and their inspection (tlsfm_inspect.c).
 *
 * Who touches what: a heap's TLSF structure and chunks belong to its owning thread (or,
 * for an orphaned heap, to whoever holds the lock); the chunk list changes only under the
 * lock, so a lock holder may walk any heap's list and read the owner-written counters
 * (relaxed atomics); only the owner or the lock holder of an orphan may walk a heap's
 * blocks (tlsfm_heap_is_inspectable_locked).
 */
#ifndef TLSFM_HEAP_H
#define TLSFM_HEAP_H

#include <stdatomic.h>
#include <stddef.h>

#include "tlsf.h"
#include "tlsf_remote_stack.h"
#include "tlsfm_os.h"

/* An ordinary pool: requests above a quarter of it get a large mapping of their own. */
#define CHUNK_BYTES TLSFM_REGION_BYTES
#define CHUNK_HEADER_BYTES ((size_t)128)

typedef struct thread_heap thread_heap_t;

typedef struct chunk {
    tlsfm_mapping_t map; /* first: what the region map points at; map.owner is the heap */
    pool_t pool;
    /* Blocks handed out and not freed into the heap yet: written by the heap's owner only
     * (relaxed load and store), read by tlsfm_heap_get_info under the lock. */
    atomic_size_t live;
    struct chunk *prev, *next; /* the heap's chunks (linked and unlinked under the lock) */
} chunk_t;

enum heap_state { HEAP_OWNED, HEAP_ORPHAN, HEAP_ABANDONED };

struct thread_heap {
    /* Written by other threads: on a cache line of its own. */
    _Alignas(64) tlsf_remote_stack_t remote;
    /* The owner's (or, for an orphan, the lock holder's). */
    _Alignas(64) tlsf_t tlsf;
    void *pending;           /* taken from `remote`, not yet freed */
    chunk_t *chunks;         /* every chunk of the heap (changed under the lock) */
    const char *doing;       /* the malloc function a core error names ("free" by default) */
    tlsf_error_t pool_error; /* what tlsf_add_pool or tlsf_remove_pool reported */
    size_t big_requests;     /* requests of BIG_REQUEST bytes or more (tlsfm_thread.c) */
    size_t allocations_seen; /* the core's alloc_count when the budget was last decided */
    size_t cache_budget;     /* the core's front-cache budget in force (0: no cache) */
    /* Written by the owner only, read by tlsfm_heap_get_info from any thread. */
    atomic_size_t chunk_count, empty_chunks;
    /* Changed under the lock; read without it on the remote-free path. */
    atomic_int state;
    thread_heap_t *next_heap;   /* all heaps, newest first (lock) */
    thread_heap_t *next_orphan; /* orphaned heaps (lock) */
};

_Static_assert(sizeof(chunk_t) <= CHUNK_HEADER_BYTES, "chunk header too big");

/* All heaps ever made, newest first (linked through next_heap; guarded by the lock). */
extern thread_heap_t *tlsfm_all_heaps;

/* The size of a chunk: 4 MiB, or less if the core's largest pool is smaller. */
size_t tlsfm_chunk_bytes(void);

/* With the lock held: whether the calling thread may walk `heap`'s blocks (its own heap,
 * or an orphaned one). */
int tlsfm_heap_is_inspectable_locked(thread_heap_t *heap);

/* The front-cache budget of the calling thread's heap (0 without a heap or a cache). */
size_t tlsfm_heap_cache_budget(void);

/* Free every block other threads pushed onto `heap`'s remote list (its owner, or the lock
 * holder of an orphan; `locked`: the caller holds the lock). */
void tlsfm_heap_take_back_all(thread_heap_t *heap, int locked);

/* Owner-only counters that other threads read: a relaxed load and store, no RMW. */
static inline void counter_add(atomic_size_t *counter, size_t delta) {
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + delta,
                          memory_order_relaxed);
}

static inline void counter_sub(atomic_size_t *counter, size_t delta) {
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) - delta,
                          memory_order_relaxed);
}

static inline size_t counter(atomic_size_t *counter) {
    return atomic_load_explicit(counter, memory_order_relaxed);
}

static inline void counter_set(atomic_size_t *counter, size_t value) {
    atomic_store_explicit(counter, value, memory_order_relaxed);
}

static inline int heap_state(thread_heap_t *heap) {
    return atomic_load_explicit(&heap->state, memory_order_acquire);
}

#endif /* TLSFM_HEAP_H */
