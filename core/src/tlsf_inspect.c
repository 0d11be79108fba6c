/* SPDX-License-Identifier: MIT */
/*
 * tlsf_inspect.c - what a heap can tell about itself: constants, statistics, the largest
 * allocatable request, the walk of a pool and the consistency checks. None of these is on
 * a real-time path: the walk and the checks are linear in the blocks they visit.
 */
#include "tlsf_cache.h"
#include "tlsf_slab.h"
#include "tlsf_checks.h"
#include "tlsf_lists.h"

/* The compile-time sizes of tlsf_config.h agree with the layout. */
typedef char
    tlsf_check_control_bytes[(TLSF_CONTROL_BYTES ==
                              ((sizeof(struct tlsf_heap) + TLSF_ALIGN - 1) & ~(TLSF_ALIGN - 1)))
                                 ? 1
                                 : -1];
typedef char tlsf_check_heads_offset[(TLSF_HEADS_OFFSET_ == offsetof(struct tlsf_heap, heads) &&
                                      TLSF_FIRST_SLOT_ == FIRST_SLOT &&
                                      TLSF_CLASS_WORDS_NEXT_(CLASS_WORDS) == CLASS_WORDS)
                                         ? 1
                                         : -1];
typedef char tlsf_check_pool_bytes[(TLSF_POOL_OVERHEAD_BYTES == POOL_START_OFFSET + SENTINEL_SIZE &&
                                    TLSF_MIN_SPAN_BYTES == MIN_SPAN)
                                       ? 1
                                       : -1];

TLSF_NO_ASAN size_t tlsf_size(void) {
    return control_bytes();
}
TLSF_NO_ASAN size_t tlsf_align_size(void) {
    return TLSF_ALIGN;
}
TLSF_NO_ASAN size_t tlsf_block_size_min(void) {
    return MIN_SPAN - BLOCK_OVERHEAD; /* the usable bytes of the smallest block */
}
TLSF_NO_ASAN size_t tlsf_block_size_max(void) {
    return (size_t)1 << TLSF_MAX_BLOCK_LOG2;
}
TLSF_NO_ASAN size_t tlsf_pool_overhead(void) {
    return POOL_START_OFFSET + SENTINEL_SIZE;
}
TLSF_NO_ASAN size_t tlsf_alloc_overhead(void) {
    return BLOCK_OVERHEAD;
}

/* The largest request the lists serve as they are: every block of the highest non-empty
 * class is at least that class's lower bound, and a request rounds up to exactly that
 * bound, so it succeeds and one more byte does not. */
static TLSF_SHARED_HELPER TLSF_NO_ASAN size_t largest_in_lists(tlsf_t heap) {
    unsigned word, index;
    if (heap->word_bits == 0) return 0;
    word = bitmap_last(heap->word_bits);
    index = (word << 5) + bitmap_last(heap->class_bits[word]) - FIRST_SLOT;
    return class_lower_bound(index) - BLOCK_OVERHEAD;
}

/* The largest request served without draining the cache: the lists' answer, or the
 * largest cached class if that is larger (a fixed pass over the cached classes). */
static TLSF_NO_ASAN size_t largest_without_drain(tlsf_t heap) {
    size_t largest = largest_in_lists(heap);
#if TLSF_CACHE
    unsigned index;
    for (index = CACHE_CLASSES; index-- > 0;) {
        if (heap->cache.top[index] == NULL) continue;
        if (((size_t)index << TLSF_ALIGN_LOG2) - BLOCK_OVERHEAD > largest)
            largest = ((size_t)index << TLSF_ALIGN_LOG2) - BLOCK_OVERHEAD;
        break;
    }
#endif
    return largest;
}

TLSF_NO_ASAN size_t tlsf_largest_allocatable(tlsf_t heap) {
    if (heap == NULL) return 0;
    /* A malloc that the lists cannot serve drains the cache and searches again, so the
     * exact answer is the lists' answer once the cache is drained (bounded work). */
    tlsfi_flush(heap);
    return largest_in_lists(heap);
}

TLSF_NO_ASAN void tlsf_get_stats(tlsf_t heap, tlsf_stats_t *stats) {
    if (heap == NULL || stats == NULL) return;
    stats->pool_bytes = heap->pool_bytes;
    stats->pool_count = heap->pool_count;
    stats->largest_allocatable = largest_without_drain(heap);
#if TLSF_STATS
    stats->used_bytes = heap->used_bytes;
    stats->free_bytes = heap->pool_bytes - heap->used_bytes;
    stats->peak_used_bytes = heap->peak_used_bytes;
    stats->live_blocks = heap->alloc_count - heap->free_count;
    stats->alloc_count = heap->alloc_count;
    stats->free_count = heap->free_count;
    stats->failed_count = heap->failed_count;
#else
    stats->used_bytes = stats->free_bytes = stats->peak_used_bytes = 0;
    stats->live_blocks = stats->alloc_count = stats->free_count = stats->failed_count = 0;
#endif
}

TLSF_NO_ASAN void tlsf_reset_peak(tlsf_t heap) {
#if TLSF_STATS
    if (heap) heap->peak_used_bytes = heap->used_bytes;
#else
    (void)heap;
#endif
}

/* May the check read the block at `node`, reached through a link or a span it is checking?
 * With sealed headers, only inside the pools' range (a damaged link is then an error, not a
 * fault); below level 2 the heap keeps no range, and the check trusts the links. */
static inline TLSF_NO_ASAN int node_readable(tlsf_t heap, block_t *node) {
#if TLSF_CHECKS >= 2
    return heap_holds(heap, node) && ((uintptr_t)block_to_ptr(node) & (TLSF_ALIGN - 1)) == 0;
#else
    (void)heap;
    (void)node;
    return 1;
#endif
}

/* Check one free list: links, flags, class membership, physical neighbours. */
static TLSF_NO_ASAN int check_list(tlsf_t heap, unsigned index) {
    block_t *head = list_head(heap, index);
    block_t *prev = head;
    block_t *block = *slot_next_free(head);
    size_t limit = heap->pool_bytes / MIN_SPAN + 1; /* more blocks than fit: a cycle */
    int errors = block == head;                     /* bit set, list empty */
    for (; block != head; prev = block, block = *slot_next_free(block)) {
        size_t word, span;
        block_t *after;
        if (!node_readable(heap, block)) return errors + 1;
        word = *slot_size(block);
        span = word_span(word);
        after = block_at(block, span);
        if (limit-- == 0) return errors + 1;
        errors += !block_header_intact(heap, block);
        errors += (word & BLOCK_FLAGS) != BLOCK_FREE;
        errors += *slot_prev_free(block) != prev;
        if (span < MIN_SPAN || span > MAX_SPAN || !node_readable(heap, after)) {
            /* do not follow a damaged size (or one leading out of the pools) */
            errors++;
            continue;
        }
        errors += slot_of_span(span) != index + FIRST_SLOT;
        errors += !(*slot_size(after) & BLOCK_PREV_FREE) || *slot_prev_phys(after) != block;
    }
    return errors + (*slot_prev_free(head) != prev);
}

TLSF_NO_ASAN int tlsf_check(tlsf_t heap) {
    int errors = 0;
    unsigned word;
    size_t classes;
    if (heap == NULL) return 1;
    classes = heap_class_count(heap);
#if TLSF_CHECKS >= 2
    errors += heap->class_count != (size_t)heap_rows(heap) << TLSF_SL_INDEX_LOG2;
#endif
    if (CLASS_WORDS < 32) errors += (heap->word_bits & bitmap_after(CLASS_WORDS - 1)) != 0;
    for (word = 0; word < CLASS_WORDS; ++word) {
        uint32_t slots = heap->class_bits[word];
        errors += ((heap->word_bits & bitmap_bit(word)) != 0) != (slots != 0);
        /* Every set position is the slot of a class whose head the heap holds (not one
         * below the first slot, nor one a sized heap left out): that list is checked. */
        while (slots != 0) {
            unsigned position = bitmap_first(slots);
            unsigned index = (word << 5) + position - FIRST_SLOT;
            slots &= ~bitmap_bit(position);
            if (index >= classes)
                errors++;
            else
                errors += check_list(heap, index);
        }
    }
#if TLSF_CACHE
    errors += tlsfi_cache_check(heap);
#endif
#if TLSF_SLABS
    errors += tlsfi_slab_check_lists(heap);
#endif
    return errors;
}

/* A span that a walk may step over without leaving the pool: stepping must not pass the
 * sentinel. */
static TLSF_NO_ASAN int span_fits(block_t *block, size_t span, block_t *sentinel) {
    return span >= MIN_SPAN && (span & (TLSF_ALIGN - 1)) == 0 &&
           span <= (size_t)((char *)sentinel - (char *)block);
}

TLSF_NO_ASAN void tlsf_walk_pool(pool_t pool, tlsf_walker walker, void *user) {
    block_t *block, *sentinel;
    if (pool == NULL || walker == NULL) return;
    block = pool_first_block(pool);
    sentinel = pool_sentinel(block);
#if TLSF_CACHE && !TLSF_CACHE_MARKS
    /* Cached blocks carry no mark: they get one for the walk (the owner is recorded where
     * the sentinel is, which the pool's first block records). */
    tlsfi_cache_mark(*slot_pool_owner(sentinel), 1);
#endif
    while (block != sentinel) {
        size_t word = *slot_size(block);
        size_t span = word_span_any(word);
        if (!span_fits(block, span, sentinel)) break; /* damage: stop rather than run off */
        if (word & (BLOCK_FREE | BLOCK_PARKED))       /* a parked block is free to its user */
            walker(block_to_ptr(block), span - HEADER_SIZE + TLSF_WORD, 0, user);
        else if (!slab_object(word) ||
                 !tlsfi_slab_walk(block, walker, user)) /* a slab: its objects */
            walker(block_to_ptr(block), block_usable(word), 1, user);
        block = block_at(block, span);
    }
#if TLSF_CACHE && !TLSF_CACHE_MARKS
    tlsfi_cache_mark(*slot_pool_owner(sentinel), 0);
#endif
}

TLSF_NO_ASAN int tlsf_check_pool(pool_t pool) {
    int errors = 0;
    int prev_free = 0;
    block_t *prev = NULL;
    block_t *block, *sentinel;
    if (pool == NULL) return 1;
    block = pool_first_block(pool);
    sentinel = pool_sentinel(block);
    if ((uintptr_t)sentinel <= (uintptr_t)block ||
        ((uintptr_t)sentinel - (uintptr_t)block) & (TLSF_ALIGN - 1))
        return 1;
    for (;;) {
        size_t word = *slot_size(block);
        size_t span = word_span_any(word);
        int is_free = (word & BLOCK_FREE) != 0;
        errors += ((word & BLOCK_PREV_FREE) != 0) != prev_free;
        if (prev_free) errors += *slot_prev_phys(block) != prev;
        if (block == sentinel) {
            errors += is_free || span != 0; /* the sentinel: size 0, in use */
            break;
        }
        if (!span_fits(block, span, sentinel)) return errors + 1;
        errors += is_free && prev_free; /* free blocks are always coalesced */
        errors += is_free && (word & (BLOCK_ALIGNED | BLOCK_PARKED | BLOCK_CARVED)) != 0;
        if (!is_free && slab_object(word)) errors += tlsfi_slab_check_block(block);
        prev_free = is_free;
        prev = block;
        block = block_at(block, span);
    }
    return errors;
}
