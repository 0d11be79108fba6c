/* SPDX-License-Identifier: MIT */
/*
 * tlsf_cache.h - the bounded front cache (TLSF_CACHE): a LIFO stack of freed blocks for
 * each exact size class, in front of the segregated lists.
 *
 * Why: the common pattern of container code, a burst of equal nodes cut from a large free
 * block and then freed, is the TLSF lists' most expensive one (every free merges and moves
 * the merged block to another class). A freed small block kept whole, and handed out
 * again by the next request of its class, skips both the merge and the split.
 *
 * Invariants (checked by tlsf_check):
 *   - every block on stack i is a plain block (not memalign'd) of span i * TLSF_ALIGN
 *     (i < CACHE_CLASSES: the classes of rows 0 and 1, each one span wide), marked
 *     BLOCK_CACHED and not BLOCK_FREE: to its neighbours it is in use, so it is never
 *     merged while cached;
 *   - its first user word (the next_free slot) links to the block below it, NULL at the
 *     bottom;
 *   - cache.limit - cache.room is the sum of the cached spans (so cache.room <=
 *     cache.limit: the budget is never exceeded), and cache.limit <= TLSF_CACHE_BYTES;
 *   - the statistics count cached blocks as free; the tools (ASan, valgrind, the fill
 *     patterns) saw them freed.
 *
 * Why every operation is O(1) or bounded: a push or a pop touches one stack top, one
 * header and one link. A drain gives back at most cache.limit / MIN_SPAN blocks (the
 * budget over the smallest span), each with the O(1) merging of an ordinary free, plus one
 * pass over the CACHE_CLASSES stack tops.
 *
 * The door: tlsf_alloc.c calls cache_take at the top of malloc, cache_takes and cache_put
 * in free, and cache_drain when the lists cannot serve a request; it does not know this
 * layout.
 */
#ifndef TLSF_CACHE_H
#define TLSF_CACHE_H

#include "tlsf_heap.h"

/* Spans below this are cached (the exact classes). */
#define CACHE_SPAN_LIMIT ((size_t)CACHE_CLASSES << TLSF_ALIGN_LOG2)

/* Give every cached block back to the lists (defined in tlsf_cache.c). Returns 1 if there
 * was one, 0 if the cache was empty. Bounded: see the top of this file. */
#define tlsf_cache_drain TLSF_ABI_NAME(tlsf_cache_drain)
TLSF_NO_ASAN int tlsf_cache_drain(tlsf_t heap);

/*
 * malloc's first step: for a request of `bytes` whose class is cached, the last cached
 * block of that class, taken off its stack and marked in use again, with its span in
 * *span; otherwise NULL. The exact classes need no bit scan: a request's span is its
 * bytes plus the header rounded up to TLSF_ALIGN (at least MIN_SPAN), and the class index
 * is that span over TLSF_ALIGN; the size test comes first, so no sum wraps.
 */
static inline TLSF_NO_ASAN block_t *cache_take(tlsf_t heap, size_t bytes, size_t *span) {
#if TLSF_CACHE
    size_t index;
    block_t *block;
    if (bytes >= CACHE_SPAN_LIMIT - (BLOCK_OVERHEAD + TLSF_ALIGN - 1)) return NULL;
    index = (bytes + (BLOCK_OVERHEAD + TLSF_ALIGN - 1)) >> TLSF_ALIGN_LOG2;
    if (index < MIN_SPAN / TLSF_ALIGN) index = MIN_SPAN / TLSF_ALIGN;
    block = heap->cache.top[index];
    if (block == NULL) return NULL;
    *span = index << TLSF_ALIGN_LOG2;
    heap->cache.room += *span;
    heap->cache.top[index] = *slot_next_free(block);
    block_set_exempt_flags(block, *slot_size(block) & ~BLOCK_CACHED);
    return block;
#else
    (void)heap;
    (void)bytes;
    (void)span;
    return NULL;
#endif
}

/* Does the cache take the block of size word `word` and span `span` now? A plain block of
 * an exact class: no bit of the word at or above CACHE_SPAN_LIMIT (the seal's aside), and
 * not BLOCK_ALIGNED, which one mask tests together; and room for it in the budget. */
static inline TLSF_NO_ASAN int cache_takes(tlsf_t heap, size_t word, size_t span) {
#if TLSF_CACHE
    return (word & WORD_LOW_MASK & (~(CACHE_SPAN_LIMIT - 1) | BLOCK_ALIGNED)) == 0 &&
           span <= heap->cache.room;
#else
    (void)heap;
    (void)word;
    (void)span;
    return 0;
#endif
}

/* free's shortcut: push the checked block at `block` (size word `word` as read, span
 * `span`), which cache_takes accepted, onto its class's stack. */
static inline TLSF_NO_ASAN void cache_put(tlsf_t heap, block_t *block, size_t word, size_t span) {
#if TLSF_CACHE
    block_t **top = &heap->cache.top[span >> TLSF_ALIGN_LOG2];
    heap->cache.room -= span;
    *slot_next_free(block) = *top;
    *top = block;
    block_set_exempt_flags(block, word | BLOCK_CACHED);
#else
    (void)heap;
    (void)block;
    (void)word;
    (void)span;
#endif
}

/* The failure path's second chance: drain the cache if it holds anything. */
static inline TLSF_NO_ASAN int cache_drain(tlsf_t heap) {
#if TLSF_CACHE
    return heap->cache.room != heap->cache.limit && tlsf_cache_drain(heap);
#else
    (void)heap;
    return 0;
#endif
}

#endif /* TLSF_CACHE_H */
