/* SPDX-License-Identifier: MIT */
/*
 * tlsf_alloc.c - the real-time paths: malloc, memalign, realloc and free.
 *
 * Why each is O(1): none of them contains a loop. A request is mapped to a size class
 * with one bit scan (class_round_up), a free block is found with at most two more
 * (find_free_class), and a block is split or merged with its physical neighbours through
 * the links in its header: a fixed number of list and bitmap updates whatever the number
 * of blocks, pools or the pool size. The only work proportional to a size is the memcpy
 * of a realloc that has to move and the memset of calloc.
 *
 * With the front cache (TLSF_CACHE, tlsf_cache.h), malloc first pops a cached block of
 * its exact class and free first pushes a small block; both skip the lists. When the lists
 * cannot serve a request the cache is drained, a bounded loop, and the search runs once
 * more: the only loop, with its bound stated in tlsf.h. (With TLSF_CACHE_DRAIN_STALE a
 * cache gone stale is drained too, by a malloc's miss or a large free: cache_note_miss,
 * cache_note_refusal.)
 *
 * With slabs (TLSF_SLABS, tlsf_slab.h, on the heaps that ask), a small request the cache
 * misses pops an object of its span's slab, and a free the cache refuses pushes an object
 * on its slab's free list: neither touches the lists, except to take a new slab (one
 * memalign) or give an empty one back (one free of a block).
 */
#include <string.h>

#include "tlsf_cache.h"
#include "tlsf_checks.h"
#include "tlsf_heap.h"
#include "tlsf_slab.h"

/* A NULL heap is refused by the checked builds (TLSF_CHECKS >= 1); without checks the
 * caller promises a valid heap and the test costs nothing. */
static inline TLSF_NO_ASAN int heap_usable(tlsf_t heap) {
#if TLSF_CHECKS >= 1
    return heap != NULL;
#else
    (void)heap;
    return 1;
#endif
}

/* Count a failed request; returns NULL for the caller to pass on. */
static TLSF_NO_ASAN void *alloc_failed(tlsf_t heap) {
#if TLSF_STATS
    if (heap) heap->failed_count++;
#else
    (void)heap;
#endif
    return NULL;
}

/*
 * Hand the first `span` bytes of the unlinked free block `block` (span `have`) to the
 * user, with size-word flags `flags`, and return the rest to the heap when it is large
 * enough to be a block. Otherwise the user gets the whole block: the leftover is smaller
 * than MIN_SPAN, so it could never be allocated on its own anyway.
 */
static inline TLSF_NO_ASAN void block_use_front(tlsf_t heap, block_t *block, size_t have,
                                                size_t span, size_t flags) {
    size_t rest = have - span;
    if (WORST_CASE(rest >= MIN_SPAN)) {
        block_t *tail = block_at(block, span);
        block_set_word(heap, tail, rest | BLOCK_FREE);
        *slot_prev_phys(block_at(tail, rest)) = tail; /* its PREV_FREE flag is still set */
        free_list_insert(heap, tail, rest);
    } else {
        block_t *next = block_at(block, have);
        span = have;
        block_set_exempt_flags(next, *slot_size(next) & ~(size_t)BLOCK_PREV_FREE);
    }
    block_set_word(heap, block, span | flags);
    stats_on_alloc(heap, span);
}

/* Find the first non-empty class at or above the one of slot *slot (as find_free_class); if there
 * is none, drain the cache (its blocks may merge into a large enough one) and search once more.
 * Returns 0 when the heap has no block large enough. */
static inline TLSF_NO_ASAN int find_class_or_drain(tlsf_t heap, unsigned *slot) {
    return find_free_class(heap, slot) ||
           ((cache_drain(heap) | slab_release_empty(heap)) && find_free_class(heap, slot));
}

/*
 * With the front cache, the list paths run out of line (TLSF_LIST_PATH), reached by a tail
 * call: a cache hit then runs in a function that saves no registers, which the list
 * paths' register pressure would otherwise make every call pay (on x86-64 12 instructions
 * per malloc and 13 per free, each saved register a push and a pop; on Cortex-M a push,
 * a pop and the stack adjustments). The list paths pay one branch for it. Without the
 * cache they stay inline.
 */
#if defined(__GNUC__) || defined(__clang__)
#if TLSF_CACHE
#define TLSF_LIST_PATH __attribute__((noinline))
#else
#define TLSF_LIST_PATH inline __attribute__((always_inline))
#endif
#else
#define TLSF_LIST_PATH inline
#endif

/*
 * The merging of a freed block (block_release) has two callers with the cache: free's list
 * path and the cache's drain. Inline in each, free's list path is one function that saves
 * its registers once (and its worst case pays no second call); the price is a second copy
 * of the merging code (about 370 bytes on a Cortex-M4), so where code size comes first
 * (TLSF_SPEED_OVER_SIZE 0: TLSF_SMALL_CODE or -Os) it stays one function.
 */
#if (defined(__GNUC__) || defined(__clang__)) && TLSF_SPEED_OVER_SIZE
#define TLSF_MERGE_PATH inline __attribute__((always_inline))
#else
#define TLSF_MERGE_PATH TLSF_LIST_PATH
#endif

/* The block malloc takes from the non-empty class of slot `slot` (find_class_or_drain) for
 * a request of span `span`: the class's first block, split when larger. */
static TLSF_ALWAYS_INLINE TLSF_NO_ASAN void *take_from_class(tlsf_t heap, size_t span,
                                                             unsigned slot) {
    unsigned rest_slot;
    size_t have, rest;
    block_t *block;
    block = *slot_next_free(slot_head(heap, slot));
    /* A free block's flags are only BLOCK_FREE: its neighbours are in use, and
     * BLOCK_ALIGNED is only ever set on blocks in use. */
    have = word_span(*slot_size(block));
    if (TLSF_SMALL_CODE) { /* one split for malloc and memalign */
        free_list_pop(heap, slot, block);
        block_use_front(heap, block, have, span, 0);
        return block_hand_out(block);
    }
    rest = have - span;
    if (WORST_CASE(rest >= MIN_SPAN)) {
        /* Split; the rest stays free. If it is still of the block's class (a small piece
         * cut from a large block), it simply takes the block's place in the list. */
        block_t *tail = block_at(block, span);
        block_set_word(heap, tail, rest | BLOCK_FREE);
        *slot_prev_phys(block_at(tail, rest)) = tail; /* its PREV_FREE flag is still set */
        rest_slot = slot_of_span(rest);
        if (!WORST_CASE(rest_slot != slot)) {
            free_list_replace(block, tail);
        } else {
            free_list_pop(heap, slot, block);
            free_list_insert_at(heap, tail, rest_slot);
        }
    } else {
        /* The leftover could never be allocated on its own: the user gets it too. */
        block_t *next = block_at(block, have);
        free_list_pop(heap, slot, block);
        span = have;
        block_set_exempt_flags(next, *slot_size(next) & ~(size_t)BLOCK_PREV_FREE);
    }
    block_set_word(heap, block, span);
    stats_on_alloc(heap, span);
    return block_hand_out(block);
}

/*
 * free's list path (free_to_lists) is inline in tlsf_free, so that free's worst case pays
 * no second call and saves its registers once: on a Cortex-M4 the worst free is then 4
 * instructions above the cache-off one, not 7. Except with sealed headers (TLSF_CHECKS >=
 * 2): their checks keep so many values live that an inline list path makes every push save
 * registers too (workload 2 on x86-64, hosted default: 104.3 instructions per malloc+free
 * instead of 95.0).
 */
#if TLSF_CHECKS >= 2
#define TLSF_FREE_LIST_PATH TLSF_LIST_PATH
#else
#define TLSF_FREE_LIST_PATH TLSF_ALWAYS_INLINE
#endif

/* malloc from the lists: a block of the request's class or of the first non-empty class
 * above it; a larger block is split. */
static TLSF_LIST_PATH TLSF_NO_ASAN void *malloc_from_lists(tlsf_t heap, size_t bytes) {
    unsigned slot;
    /* The class first: for a request above MAX_REQUEST it is meaningless but harmless (the
     * sum wraps in unsigned arithmetic), and the test below refuses it. */
    size_t span = class_round_up(request_last(bytes), &slot);
    /* (With TLSF_SPEED_OVER_SIZE malloc_exact_class notes the exact classes' misses. A
     * request above MAX_REQUEST may be noted too: at worst a stale cache drains early.) */
    if (!TLSF_SPEED_OVER_SIZE && span < CACHE_SPAN_LIMIT) cache_note_miss(heap, span);
    if (bytes > MAX_REQUEST || !find_class_or_drain(heap, &slot)) return alloc_failed(heap);
    return take_from_class(heap, span, slot);
}

#if TLSF_CACHE && TLSF_SPEED_OVER_SIZE
/* The same for a request of an exact class that missed the cache: cache_take computed its
 * span, and the class's slot follows from it (cache_exact_slot), so the list path repeats
 * neither the size test nor the class computation, and the cache adds to the worst malloc
 * no more than its own tests. (A second copy of take_from_class: not where code size comes
 * first.) */
static TLSF_LIST_PATH TLSF_NO_ASAN void *malloc_exact_class(tlsf_t heap, size_t span) {
    unsigned slot = cache_exact_slot(span);
    cache_note_miss(heap, span);
    if (!find_class_or_drain(heap, &slot)) return alloc_failed(heap);
    return take_from_class(heap, span, slot);
}
#endif

#if TLSF_SLABS
/* A request of an exact class that missed the cache, on a heap with slabs (slab_serves): an
 * object of a slab, or a block from the lists if no slab can be had. */
static TLSF_LIST_PATH TLSF_NO_ASAN void *malloc_from_slab(tlsf_t heap, size_t bytes, size_t span) {
    void *ptr = slab_malloc(heap, span);
    if (ptr != NULL) return ptr;
#if TLSF_SPEED_OVER_SIZE
    (void)bytes;
    return malloc_exact_class(heap, span);
#else
    return malloc_from_lists(heap, bytes);
#endif
}
#endif

TLSF_NO_ASAN void *tlsf_malloc(tlsf_t heap, size_t bytes) {
    void *ptr;
    size_t span;
    if (!heap_usable(heap)) return alloc_failed(heap);
    ptr = cache_take(heap, bytes, &span);
    if (ptr != NULL) {
        stats_on_alloc(heap, span);
        return block_hand_out(block_from_ptr(ptr));
    }
#if TLSF_SLABS
    if (slab_serves(heap, span)) return malloc_from_slab(heap, bytes, span);
#endif
#if TLSF_CACHE && TLSF_SPEED_OVER_SIZE
    if (span != 0) return malloc_exact_class(heap, span);
#endif
    return malloc_from_lists(heap, bytes);
}

TLSF_NO_ASAN void *tlsf_calloc(tlsf_t heap, size_t count, size_t size) {
    size_t bytes;
    void *ptr;
    if (size != 0 && count > SIZE_MAX / size) return alloc_failed(heap);
    bytes = count * size;
    ptr = tlsf_malloc(heap, bytes);
    if (ptr) memset(ptr, 0, bytes);
    return ptr;
}

/* log2 of the largest power of two dividing `address`, at most `limit_log2`. */
static TLSF_NO_ASAN unsigned natural_alignment_log2(uintptr_t address, unsigned limit_log2) {
    uintptr_t lowest = address & (~address + 1u);
    unsigned log2 = lowest ? bits_fls_size((size_t)lowest) : limit_log2;
    return log2 < limit_log2 ? log2 : limit_log2;
}

/* memalign's block `block` for its user: handed out to the tools, except while a slab's
 * memory is taken (TLSF_SLABS: the slab's objects are handed out one by one instead). */
static inline TLSF_NO_ASAN void *memalign_hand_out(tlsf_t heap, block_t *block) {
#if TLSF_SLABS
    if (heap->slabs.taking) return block_to_ptr(block);
#else
    (void)heap;
#endif
    return block_hand_out(block);
}

TLSF_NO_ASAN void *tlsf_memalign_offset(tlsf_t heap, size_t align, size_t bytes, size_t offset) {
    unsigned slot;
    size_t want, room, have, gap, flags = BLOCK_ALIGNED;
    block_t *block;
    uintptr_t first, target;
    if (heap == NULL || align == 0 || (align & (align - 1)) != 0 || (bytes != 0 && offset >= bytes))
        return alloc_failed(heap);
    if (align <= TLSF_ALIGN) {
        /* Every block already has this alignment; the offset must keep it. */
        if (offset & (align - 1)) return alloc_failed(heap);
        return tlsf_malloc(heap, bytes);
    }
    if ((offset & (TLSF_ALIGN - 1)) || align > MAX_SPAN || bytes > MAX_REQUEST - TLSF_WORD)
        return alloc_failed(heap);
    /* One more word records the alignment for realloc (see slot_alignment_log2). */
    want = class_round_up(request_last(bytes + TLSF_WORD), &slot);
    /* Room for the block plus the largest leading gap: a gap is 0 or at least MIN_SPAN
     * (it must become a free block), so it is below align + MIN_SPAN. */
    room = want + align + MIN_SPAN - TLSF_ALIGN;
    if (room > TOP_CLASS_SPAN) return alloc_failed(heap);
    class_round_up(room - 1, &slot);
    if (!find_class_or_drain(heap, &slot)) return alloc_failed(heap);
    block = *slot_next_free(slot_head(heap, slot));
    free_list_pop(heap, slot, block);
    have = word_span(*slot_size(block));

    /* The smallest gap that puts user pointer + offset on a multiple of align. */
    first = (uintptr_t)block_to_ptr(block);
    target = (uintptr_t)0 - (uintptr_t)offset;
    gap = (size_t)((target - first) & (align - 1));
    if (gap != 0 && gap < MIN_SPAN) gap += align;
    if (gap != 0) {
        /* The gap becomes a free block of its own; the block before it is in use. */
        block_t *aligned = block_at(block, gap);
        block_set_word(heap, block, gap | BLOCK_FREE);
        *slot_prev_phys(aligned) = block;
        free_list_insert(heap, block, gap);
        block = aligned;
        have -= gap;
        flags |= BLOCK_PREV_FREE;
    }
    block_use_front(heap, block, have, want, flags);
    *slot_alignment_log2(block, word_span(*slot_size(block))) =
        natural_alignment_log2((uintptr_t)block_to_ptr(block), bits_fls_size(align));
    return memalign_hand_out(heap, block);
}

TLSF_NO_ASAN void *tlsf_memalign(tlsf_t heap, size_t align, size_t bytes) {
    return tlsf_memalign_offset(heap, align, bytes, 0);
}

TLSF_NO_ASAN void *tlsf_aligned_alloc(tlsf_t heap, size_t align, size_t bytes) {
    return tlsf_memalign_offset(heap, align, bytes, 0);
}

TLSF_NO_ASAN void tlsf_insert_free_block(tlsf_t heap, block_t *block, size_t span) {
    free_list_insert(heap, block, span);
}

/* ---- Freeing ---- */

/*
 * Write the header of free block `block` and point the block after it back at it. That
 * block's BLOCK_PREV_FREE is the caller's business: it is set already when that block
 * followed a free block that `block` absorbed, and otherwise the caller sets it from the
 * size word it read anyway (tell_next_prev_free), which saves reading it again here.
 */
static inline TLSF_NO_ASAN void mark_free(tlsf_t heap, block_t *block, size_t span) {
    block_set_word(heap, block, span | BLOCK_FREE);
    *slot_prev_phys(block_at(block, span)) = block;
}

/* Tell the block `next`, whose size word (as read) is `next_word`, that the block before
 * it is now free. */
static inline TLSF_NO_ASAN void tell_next_prev_free(block_t *next, size_t next_word) {
    block_set_exempt_flags(next, next_word | BLOCK_PREV_FREE);
}

/* Make the `span` bytes at `block` a free block in its class's list (mark_free). */
static inline TLSF_NO_ASAN void publish_free(tlsf_t heap, block_t *block, size_t span) {
    mark_free(heap, block, span);
    free_list_insert(heap, block, span);
}

/*
 * Give the in-use block with user pointer `ptr` and size word `word` (already checked,
 * counted and handed back to the tools) to the lists, merging it with free physical
 * neighbours. A merged block that stays in the class of the free neighbour it grew from
 * keeps that neighbour's list place. (It takes the user pointer, as free and the cache
 * have it, so that free's push computes no header address; see TLSF_MERGE_PATH for where
 * its code lives.)
 */
static TLSF_MERGE_PATH TLSF_NO_ASAN void block_release(tlsf_t heap, void *ptr, size_t word) {
    block_t *block = block_from_ptr(ptr);
    size_t span = word_span(word);
    block_t *next = block_at(block, span);
    size_t next_word = *slot_size(next);
    if (WORST_CASE(word & BLOCK_PREV_FREE)) {
        /* Merge into the free block before; it keeps its list place if its class holds. */
        block_t *prev = *slot_prev_phys(block);
        size_t prev_word = *slot_size(prev), prev_span = word_span(prev_word);
        /* The block's header now lies inside a free block; it must say "free" so that a
         * second free of ptr is caught as a double free. Sealed headers keep their seal,
         * made for the word in use, and only gain BLOCK_FREE: no new seal to compute here,
         * and the checks tell such a header by the seal it has without that flag
         * (block_header_absorbed, on their error path only). Otherwise any word with
         * BLOCK_FREE will do, and the previous block's, just read, costs no instruction. */
#if TLSF_CHECKS >= 2
        block_set_exempt_flags(block, word | BLOCK_FREE);
#elif TLSF_CHECKS >= 1
        block_set_exempt_flags(block, prev_word);
#endif
        span += prev_span;
        if (WORST_CASE(next_word & BLOCK_FREE)) {
            free_list_remove(heap, next);
            span += word_span(next_word);
        } else {
            tell_next_prev_free(next, next_word);
        }
        if (!TLSF_SMALL_CODE && !WORST_CASE(!same_class(prev_span, span))) {
            mark_free(heap, prev, span);
            return;
        }
        free_list_remove(heap, prev);
        block = prev;
    } else if (next_word & BLOCK_FREE) {
        /* Absorb the free block after; take its list place if its class holds. */
        size_t next_span = word_span(next_word);
        span += next_span;
        if (!TLSF_SMALL_CODE && same_class(next_span, span)) {
            free_list_replace(next, block);
            mark_free(heap, block, span);
            return;
        }
        free_list_remove(heap, next);
    } else {
        tell_next_prev_free(next, next_word);
    }
    publish_free(heap, block, span);
}

#if TLSF_CACHE
TLSF_NO_ASAN void tlsf_release_block(tlsf_t heap, void *ptr, size_t word) {
    block_release(heap, ptr, word);
}
#endif

/* The user's part of freeing: the tools hear of it and the statistics count it. */
static inline TLSF_NO_ASAN void block_given_back(tlsf_t heap, void *ptr, size_t word, size_t span) {
    memory_given_back(ptr, block_usable(word));
    stats_on_free(heap, span);
}

/* free's list path: the checks the cache's mask let wait, the statistics, the merge. */
static TLSF_FREE_LIST_PATH TLSF_NO_ASAN void free_to_lists(tlsf_t heap, void *ptr, size_t word) {
    if (!free_check_word(heap, ptr, word) || !block_check_prev(heap, ptr, word)) return;
    block_given_back(heap, ptr, word, word_span(word));
    block_release(heap, ptr, word);
    cache_note_refusal(heap, word_span(word)); /* last: nothing else is live then */
}

#if TLSF_SLABS
/* 1 if the slab object `ptr` with tag `word`, which block_misuse passed, may be freed or
 * resized; otherwise the handler hears why (slab_misuse) and 0 is returned. */
static inline TLSF_NO_ASAN int slab_check(tlsf_t heap, const void *ptr, size_t word) {
    tlsf_error_t misuse = slab_misuse(word);
    if (misuse == TLSF_ERROR_NONE) return 1;
    tlsf_report(heap, misuse, ptr);
    return 0;
}

/* free's slab path, for an object the cache did not take; out of line for the same reason
 * as the list path. */
static TLSF_LIST_PATH TLSF_NO_ASAN void free_slab_object(tlsf_t heap, void *ptr, size_t word) {
    if (slab_check(heap, ptr, word)) slab_free(heap, ptr, word);
}
#endif

TLSF_NO_ASAN void tlsf_free(tlsf_t heap, void *ptr) {
    size_t word, span, left;
    if (ptr == NULL || !heap_usable(heap) || !free_check_pointer(heap, ptr)) return;
    word = *slot_size(block_from_ptr(ptr));
    span = cache_span(word);
    if (cache_takes(heap, word, span, &left)) {
        /* The tools first (a fill must not cover the link), the statistics last (fewer
         * registers live across the push). */
        memory_given_back(ptr, block_usable(word));
        cache_put(heap, ptr, word, span, left);
        stats_on_free(heap, span);
        return;
    }
#if TLSF_SLABS
    if (slab_object(word)) {
        free_slab_object(heap, ptr, word);
        return;
    }
#endif
    free_to_lists(heap, ptr, word);
}

/* ---- Reallocation ---- */

/* Return the part of the in-use block beyond `want` bytes of span to the heap, if that
 * part is large enough to be a block. want <= the block's span. */
static TLSF_NO_ASAN void block_trim_used(tlsf_t heap, block_t *block, size_t want) {
    size_t word = *slot_size(block);
    size_t have = word_span(word), rest = have - want;
    block_t *next = block_at(block, have);
    size_t next_word = *slot_size(next);
    if (rest < MIN_SPAN) return;
    block_set_word(heap, block, word - rest);
    stats_on_resize(heap, have, want);
    if (next_word & BLOCK_FREE) { /* the tail absorbs it */
        free_list_remove(heap, next);
        rest += word_span(next_word);
    } else {
        tell_next_prev_free(next, next_word);
    }
    publish_free(heap, block_at(block, want), rest);
}

/* realloc that cannot stay in place: allocate (with the same alignment), copy, free. */
static TLSF_NO_ASAN void *realloc_move(tlsf_t heap, void *ptr, size_t bytes, size_t word) {
    void *fresh;
    size_t keep = block_usable(word);
    if (word & BLOCK_ALIGNED) {
        size_t log2 = *slot_alignment_log2(block_from_ptr(ptr), word_span(word));
        fresh = tlsf_memalign(heap, (size_t)1 << log2, bytes);
    } else {
        fresh = tlsf_malloc(heap, bytes);
    }
    if (fresh == NULL) return NULL;
    memcpy(fresh, ptr, bytes < keep ? bytes : keep);
    tlsf_free(heap, ptr);
    return fresh;
}

#if TLSF_SLABS
/* realloc of a slab object (tag `word`): it stays where it is while the request fits its
 * usable bytes, and moves otherwise. A freed object or a slab's own pointer is refused as
 * free refuses it. */
static TLSF_NO_ASAN void *realloc_slab_object(tlsf_t heap, void *ptr, size_t bytes, size_t word) {
    if (!slab_check(heap, ptr, word)) return NULL;
    if (bytes <= block_usable(word)) return ptr;
    return realloc_move(heap, ptr, bytes, word);
}
#endif

TLSF_NO_ASAN void *tlsf_realloc(tlsf_t heap, void *ptr, size_t bytes) {
    block_t *block;
    size_t word, have, want, record = 0, extra;
    unsigned slot;
    if (ptr == NULL) return tlsf_malloc(heap, bytes);
    if (bytes == 0) {
        tlsf_free(heap, ptr);
        return NULL;
    }
    if (heap == NULL || !block_check_in_use(heap, ptr)) return NULL;
    block = block_from_ptr(ptr);
    word = *slot_size(block);
#if TLSF_SLABS
    if (slab_object(word)) return realloc_slab_object(heap, ptr, bytes, word);
#endif
    have = word_span(word);
    extra = (word & BLOCK_ALIGNED) ? TLSF_WORD : 0;
    if (bytes > MAX_REQUEST - extra) return alloc_failed(heap);
    if (extra) record = *slot_alignment_log2(block, have);
    want = class_round_up(request_last(bytes + extra), &slot);

    if (want > have) {
        block_t *next = block_at(block, have);
        size_t next_word = *slot_size(next);
        size_t grown = have + word_span(next_word);
        if (!(next_word & BLOCK_FREE) || grown < want) return realloc_move(heap, ptr, bytes, word);
        /* Absorb the free block that follows. */
        free_list_remove(heap, next);
        block_t *after = block_at(block, grown);
        block_set_exempt_flags(after, *slot_size(after) & ~(size_t)BLOCK_PREV_FREE);
        block_set_word(heap, block, word + (grown - have));
        stats_on_resize(heap, have, grown);
    }
    block_trim_used(heap, block, want);
    stats_on_settle(heap);
    if (extra) *slot_alignment_log2(block, word_span(*slot_size(block))) = record;
    return block_resized(block, word);
}

TLSF_NO_ASAN size_t tlsf_block_size(void *ptr) {
    return ptr ? block_usable(*slot_size(block_from_ptr(ptr))) : 0;
}

TLSF_NO_ASAN size_t tlsf_usable_size(tlsf_t heap, const void *ptr) {
    size_t word;
    if (ptr == NULL || heap == NULL || !block_check_in_use(heap, ptr)) return 0;
    word = *slot_size(block_from_ptr(ptr));
#if TLSF_SLABS
    if (slab_object(word) && !slab_check(heap, ptr, word)) return 0;
#endif
    return block_usable(word);
}
