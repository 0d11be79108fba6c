/* SPDX-License-Identifier: MIT */
/*
 * tlsf_cache.c - the front cache's slow operations: draining it into the lists, its
 * public controls, and its consistency check. The fast push and pop are inline in
 * tlsf_cache.h.
 */
#include "tlsf_cache.h"
#include "tlsf_slab.h"

#if TLSF_CACHE
/*
 * The one loop of the real-time paths, bounded by design: it visits CACHE_CLASSES stack
 * tops and gives back at most limit / (2 * MIN_SPAN) blocks (the budget over the smallest
 * charge), each with the O(1) merging of an ordinary free (tlsf_release_block), or, for a slab
 * object, the O(1) push on its slab's free list (slab_put). The cached blocks left the
 * statistics and the tools when they were freed, so only the lists and slabs change.
 */
TLSF_NO_ASAN int tlsf_cache_drain(tlsf_t heap) {
    unsigned index;
    if (heap->cache.room == heap->cache.limit) return 0;
    for (index = 0; index < CACHE_CLASSES; ++index) {
        void *ptr = heap->cache.top[index];
        heap->cache.top[index] = NULL;
        while (ptr != NULL) {
            block_t *block = block_from_ptr(ptr);
            void *below = *slot_cache_link(ptr); /* read before the release links the block */
            size_t word = *slot_size(block) & ~BLOCK_CACHED; /* in use again */
#if TLSF_SLABS
            if (slab_object(word)) {
                slab_put(heap, ptr, word); /* to its slab's free list (tlsf_slab.h) */
                ptr = below;
                continue;
            }
#endif
            if (TLSF_CACHE_MARKS) block_set_exempt_flags(block, word);
            tlsf_release_block(heap, ptr, word);
            ptr = below;
        }
    }
    heap->cache.room = heap->cache.limit;
#if TLSF_CACHE_DRAIN_STALE
    heap->cache.idle_frees = 0;
#endif
    return 1;
}

/* Bounded like the check: at most the budget's number of blocks, so that a damaged chain
 * (a cycle) ends the marking rather than the walk that asked for it. */
TLSF_NO_ASAN void tlsf_cache_mark(tlsf_t heap, int on) {
    size_t allowed = heap->cache.limit / (2 * MIN_SPAN);
    unsigned index;
    for (index = 0; index < CACHE_CLASSES; ++index) {
        void *ptr;
        for (ptr = heap->cache.top[index]; ptr != NULL; ptr = *slot_cache_link(ptr)) {
            block_t *block = block_from_ptr(ptr);
            size_t word = *slot_size(block) & ~BLOCK_CACHED;
            if (allowed-- == 0) return;
            block_set_exempt_flags(block, on ? word | BLOCK_CACHED : word);
        }
    }
}

/* The cache's invariants (tlsf_cache.h); returns the number that fail. Linear in the
 * number of cached blocks, which the budget bounds (a longer chain is a cycle). */
TLSF_NO_ASAN int tlsf_cache_check(tlsf_t heap) {
    int errors = heap->cache.room > heap->cache.limit || heap->cache.limit > TLSF_CACHE_BYTES;
    size_t bytes = 0;
    unsigned index;
    for (index = 0; index < CACHE_CLASSES; ++index) {
        size_t allowed = heap->cache.limit / (2 * MIN_SPAN) + 1;
        void *ptr;
        for (ptr = heap->cache.top[index]; ptr != NULL; ptr = *slot_cache_link(ptr)) {
            block_t *block = block_from_ptr(ptr);
            size_t word = *slot_size(block);
            if (allowed-- == 0) return errors + 1;
            errors += !block_header_intact(heap, block);
            errors += (word & (BLOCK_CACHED | BLOCK_FREE | BLOCK_ALIGNED)) != CACHE_MARK;
            errors += word_span_any(word) != ((size_t)index << TLSF_ALIGN_LOG2);
            bytes += 2 * word_span_any(word); /* its charge */
        }
    }
    return errors + (bytes != heap->cache.limit - heap->cache.room);
}
#endif

TLSF_NO_ASAN void tlsf_cache_flush(tlsf_t heap) {
#if TLSF_CACHE
    if (heap == NULL) return;
    cache_drain(heap);
    slab_release_empty(heap);
#else
    (void)heap;
#endif
}

TLSF_NO_ASAN size_t tlsf_cache_set_limit(tlsf_t heap, size_t bytes) {
#if TLSF_CACHE
    if (heap == NULL) return 0;
    if (bytes > TLSF_CACHE_BYTES) bytes = TLSF_CACHE_BYTES;
    if (heap->cache.limit - heap->cache.room > bytes) cache_drain(heap);
    heap->cache.room = bytes - (heap->cache.limit - heap->cache.room);
    heap->cache.limit = bytes;
    return bytes;
#else
    (void)heap;
    (void)bytes;
    return 0;
#endif
}
