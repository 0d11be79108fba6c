/* SPDX-License-Identifier: MIT */
/*
 * tlsf_cache.c - the front cache's inspection: marking its blocks for a walk, and its
 * consistency check. The push, the pop and the drain are inline in tlsf_cache.h.
 */
#include "tlsf_cache.h"

#if TLSF_CACHE
/* Stands for a damaged link in the walks below: never a block. */
static char damaged_link;

/* The block below `ptr` on its stack, &damaged_link if the link is damaged (the mark stops
 * there, the check counts it). */
static inline TLSF_NO_ASAN void *next_cached(tlsf_t heap, void *ptr) {
    int sound = 1;
    void *below =
        link_decode(heap, slot_cache_link(ptr), link_binding(block_from_ptr(ptr)), &sound);
#if TLSF_CHECKS >= 2
    /* The walks follow a link only into the pools (a pop needs no more than alignment: it
     * keeps the link, and the next pop of it checks it again). */
    if (below != NULL && !heap_holds(heap, below)) sound = 0;
#endif
    return sound ? below : &damaged_link;
}

/* Is `ptr`, from next_cached, the mark of a damaged link? (Never below TLSF_CHECKS 2, whose
 * links are not checked.) */
static inline TLSF_NO_ASAN int link_damaged(const void *ptr) {
    return TLSF_CHECKS >= 2 && ptr == &damaged_link;
}

/* Bounded like the check: at most the budget's number of blocks, so that a damaged chain
 * (a cycle) ends the marking rather than the walk that asked for it. */
TLSF_NO_ASAN void tlsfi_cache_mark(tlsf_t heap, int on) {
    size_t allowed = heap->cache.limit / (2 * MIN_SPAN);
    unsigned index;
    for (index = 0; index < CACHE_CLASSES; ++index) {
        void *ptr;
        for (ptr = heap->cache.top[index]; ptr != NULL; ptr = next_cached(heap, ptr)) {
            block_t *block = block_from_ptr(ptr);
            size_t word;
            if (allowed-- == 0 || link_damaged(ptr)) return;
            word = *slot_size(block) & ~BLOCK_CACHED;
            block_set_exempt_flags(block, on ? word | BLOCK_CACHED : word);
        }
    }
}

/* The cache's invariants (tlsf_cache.h); returns the number that fail. Linear in the
 * number of cached blocks, which the budget bounds (a longer chain is a cycle). */
TLSF_NO_ASAN int tlsfi_cache_check(tlsf_t heap) {
    int errors = heap->cache.room > heap->cache.limit || heap->cache.limit > TLSF_CACHE_BYTES;
    size_t bytes = 0;
    unsigned index;
    for (index = 0; index < CACHE_CLASSES; ++index) {
        size_t allowed = heap->cache.limit / (2 * MIN_SPAN) + 1;
        void *ptr;
        for (ptr = heap->cache.top[index]; ptr != NULL; ptr = next_cached(heap, ptr)) {
            block_t *block = block_from_ptr(ptr);
            size_t word;
            if (allowed-- == 0 || link_damaged(ptr)) return errors + 1;
            word = *slot_size(block);
            errors += !block_header_intact(heap, block);
            errors += (word & (BLOCK_CACHED | BLOCK_FREE | BLOCK_ALIGNED)) != CACHE_MARK;
            errors += word_span_any(word) != ((size_t)index << TLSF_ALIGN_LOG2);
            bytes += 2 * word_span_any(word); /* its charge */
        }
    }
    return errors + (bytes != heap->cache.limit - heap->cache.room);
}
#endif
