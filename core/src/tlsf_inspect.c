/* SPDX-License-Identifier: MIT */
/*
 * tlsf_inspect.c - what a heap can tell about itself: constants, statistics, the largest
 * allocatable request, consistency checks and error reporting.
 */
#include "tlsf_cache.h"
#include "tlsf_heap.h"
#include "tlsf_slab.h"

#if TLSF_DEFAULT_ERROR_HANDLER
/* Hosted builds only (see tlsf_config.h): the default error handler's message and abort. */
#include <stdio.h>
#include <stdlib.h>
#endif

/* The compile-time sizes of tlsf_config.h agree with the layout. */
typedef char
    tlsf_check_control_bytes[(TLSF_CONTROL_BYTES ==
                              ((sizeof(struct tlsf_heap) + TLSF_ALIGN - 1) & ~(TLSF_ALIGN - 1)))
                                 ? 1
                                 : -1];
typedef char tlsf_check_pool_bytes[(TLSF_POOL_OVERHEAD_BYTES == POOL_START_OFFSET + SENTINEL_SIZE &&
                                    TLSF_MIN_SPAN_BYTES == MIN_SPAN)
                                       ? 1
                                       : -1];

TLSF_NO_ASAN size_t tlsf_size(void) {
    return (sizeof(struct tlsf_heap) + TLSF_ALIGN - 1) & ~(TLSF_ALIGN - 1);
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
static TLSF_NO_ASAN size_t largest_in_lists(tlsf_t heap) {
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
    tlsf_cache_flush(heap);
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

/* Check one free list: links, flags, class membership, physical neighbours. */
static TLSF_NO_ASAN int check_list(tlsf_t heap, unsigned index) {
    block_t *head = list_head(heap, index);
    block_t *prev = head;
    block_t *block = *slot_next_free(head);
    size_t limit = heap->pool_bytes / MIN_SPAN + 1; /* more blocks than fit: a cycle */
    int errors = block == head;                     /* bit set, list empty */
    for (; block != head; prev = block, block = *slot_next_free(block)) {
        size_t word = *slot_size(block);
        size_t span = word_span(word);
        block_t *after = block_at(block, span);
        if (limit-- == 0) return errors + 1;
        errors += !block_header_intact(heap, block);
        errors += (word & BLOCK_FLAGS) != BLOCK_FREE;
        errors += *slot_prev_free(block) != prev;
        if (span < MIN_SPAN || span > MAX_SPAN) { /* do not follow a damaged size */
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
    unsigned word, slot;
    if (heap == NULL) return 1;
    for (word = 0; word < CLASS_WORDS; ++word)
        errors += ((heap->word_bits & bitmap_bit(word)) != 0) != (heap->class_bits[word] != 0);
    if (CLASS_WORDS < 32) errors += (heap->word_bits & bitmap_after(CLASS_WORDS - 1)) != 0;
    /* Every set position is a class's slot; each such list is checked. */
    for (slot = 0; slot < 32 * CLASS_WORDS; ++slot) {
        if (!(heap->class_bits[slot >> 5] & bitmap_bit(slot & 31u))) continue;
        if (slot < FIRST_SLOT || slot >= FIRST_SLOT + LIST_COUNT)
            errors++;
        else
            errors += check_list(heap, slot - FIRST_SLOT);
    }
#if TLSF_CACHE
    errors += tlsf_cache_check(heap);
#endif
#if TLSF_SLABS
    errors += tlsf_slab_check_lists(heap);
#endif
    return errors;
}

TLSF_NO_ASAN void tlsf_set_error_handler(tlsf_t heap, tlsf_error_handler_t handler, void *user) {
    if (heap == NULL) return;
    heap->on_error = handler;
    heap->on_error_user = user;
}

#if TLSF_DEFAULT_ERROR_HANDLER
/* One line, written at once (stderr is unbuffered), then abort: the program's memory can
 * no longer be trusted, and a core dump at the faulty call is the most useful outcome. */
TLSF_NO_ASAN void tlsf_default_error_handler(tlsf_t heap, tlsf_error_t reason, const void *ptr,
                                             void *user) {
    (void)user;
    fprintf(stderr, "tlsf: %s (pointer %p, heap %p); aborting\n", tlsf_error_string(reason),
            (void *)(uintptr_t)ptr, (void *)heap);
    abort();
}
#endif

/*
 * The rule for misuse (tlsf.h, tlsf_error_handler_t): an installed handler hears of every
 * case. With none, only misuse of blocks reaches the default handler (which aborts in
 * hosted builds): a bad free or realloc has no result to report failure through, and the
 * program's memory can no longer be trusted. A bad pool argument is reported by a NULL
 * result (or, for tlsf_remove_pool, by the pool staying in the heap) and never aborts on
 * its own.
 */
TLSF_NO_ASAN void tlsf_report(tlsf_t heap, tlsf_error_t reason, const void *ptr) {
    if (heap == NULL) return;
#if TLSF_CHECKS >= 2
    if (reason == MISUSE_UNSEALED) {
        reason = block_header_absorbed(heap, block_from_ptr(ptr)) ? TLSF_ERROR_DOUBLE_FREE
                                                                  : TLSF_ERROR_BAD_POINTER;
    }
#endif
    if (heap->on_error) heap->on_error(heap, reason, ptr, heap->on_error_user);
#if TLSF_DEFAULT_ERROR_HANDLER
    else if (reason != TLSF_ERROR_BAD_POOL && reason != TLSF_ERROR_POOL_IN_USE)
        tlsf_default_error_handler(heap, reason, ptr, NULL);
#endif
}

TLSF_NO_ASAN const char *tlsf_error_string(tlsf_error_t reason) {
    switch (reason) {
    case TLSF_ERROR_NONE:
        return "no error";
    case TLSF_ERROR_DOUBLE_FREE:
        return "double free: the block is already free";
    case TLSF_ERROR_BAD_POINTER:
        return "bad pointer: not the start of a block of this heap";
    case TLSF_ERROR_CORRUPT_BLOCK:
        return "corrupt block header (overflow from the block before?)";
    case TLSF_ERROR_BAD_POOL:
        return "bad pool: memory misaligned, too small or too large";
    case TLSF_ERROR_POOL_IN_USE:
        return "pool still holds allocations";
    }
    return "unknown error";
}
