/* SPDX-License-Identifier: MIT */
/*
 * tlsf_core.h - plain TLSF: take a block from a class (splitting it), give a block back
 * (merging it with its free neighbours), take an aligned block, resize a block in place.
 *
 * This is the whole algorithm; everything else in core/src is built on it or checks it.
 * Its contract: it works on the lists (tlsf_lists.h) and the headers (tlsf_seal.h) only.
 * It never drains a cache, never calls a layer above, counts no statistics and tells no
 * tool (ASan, valgrind, the fill patterns): the front end (tlsf_alloc.c) does that for the
 * blocks it gives the user, and the slabs take blocks for themselves with nothing to undo.
 * A request the lists cannot serve is the caller's business (the front end drains the
 * cache and searches once more).
 *
 * Why every operation is O(1): none contains a loop. A request is mapped to a class with
 * one bit scan (class_round_up), a non-empty class is found with at most two more
 * (find_free_class, the caller's), and a block is split or merged through the links in its
 * header and its neighbours': a fixed number of list and bitmap updates whatever the
 * number of blocks, pools or the pool size.
 *
 * The operations are inline building blocks (TLSF_ALWAYS_INLINE): the front end places
 * them (tlsf_alloc.c decides what runs inline and what out of line), and tlsf_core.c holds
 * the out-of-line instances the other layers call (tlsf_internal.h).
 */
#ifndef TLSF_CORE_H
#define TLSF_CORE_H

#include "tlsf_lists.h"
#include "tlsf_seal.h"

/* ---- Taking ---- */

/*
 * Give the first `span` bytes of the unlinked free block `block` (span `have`) the size
 * word span | `flags` (in use), and return the rest to the lists when it is large enough
 * to be a block. Otherwise the block keeps the whole span: the leftover is smaller than
 * MIN_SPAN, so it could never be allocated on its own anyway. Returns the span kept.
 */
static TLSF_ALWAYS_INLINE TLSF_NO_ASAN size_t block_use_front(tlsf_t heap, block_t *block,
                                                              size_t have, size_t span,
                                                              size_t flags) {
    size_t rest = have - span;
    if (WORST_CASE(rest >= MIN_SPAN)) {
        block_t *tail = block_at(block, span);
        block_set_word(heap, tail, rest | BLOCK_FREE);
        *slot_prev_phys(block_at(tail, rest)) = tail; /* its PREV_FREE flag is still set */
        free_list_insert(heap, tail, rest);
    } else {
        block_t *next = block_at(block, have);
        span = have;
        block_set_prev_free_if_intact(heap, next, *slot_size(next), 0);
    }
    block_set_word(heap, block, span | flags);
    return span;
}

/*
 * Take a block of span *span (a class's lower bound, class_round_up) from the non-empty
 * class of slot `slot` (found by the caller: at or above the request's class, so its first
 * block fits): that block, split when larger. Returns it in use; *span becomes the span it
 * kept (the request's, or the whole block's when the rest is too small to be a block).
 */
static TLSF_ALWAYS_INLINE TLSF_NO_ASAN block_t *core_take(tlsf_t heap, unsigned slot,
                                                          size_t *span) {
    unsigned rest_slot;
    size_t have, rest, want = *span;
    block_t *block = *slot_next_free(slot_head(heap, slot));
    /* A free block's flags are only BLOCK_FREE: its neighbours are in use, and
     * BLOCK_ALIGNED is only ever set on blocks in use. */
    have = word_span(*slot_size(block));
    if (CODE_SMALL) { /* one split for malloc and memalign */
        free_list_pop(heap, slot, block);
        *span = block_use_front(heap, block, have, want, 0);
        return block;
    }
    rest = have - want;
    if (WORST_CASE(rest >= MIN_SPAN)) {
        /* Split; the rest stays free. If it is still of the block's class (a small piece
         * cut from a large block), it simply takes the block's place in the list. */
        block_t *tail = block_at(block, want);
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
        /* The leftover could never be allocated on its own: the block keeps it. */
        block_t *next = block_at(block, have);
        free_list_pop(heap, slot, block);
        want = have;
        block_set_prev_free_if_intact(heap, next, *slot_size(next), 0);
    }
    block_set_word(heap, block, want);
    *span = want;
    return block;
}

/*
 * The span of a block for `bytes` user bytes aligned to `align` (above TLSF_ALIGN) in
 * *want, and in *slot the slot of the class whose blocks are all large enough to cut such
 * a block from at any address: room for the block plus the largest leading gap (a gap is 0
 * or at least MIN_SPAN, since it must become a free block, so it is below align +
 * MIN_SPAN). One more word records the alignment for realloc (slot_alignment_log2).
 * Returns 0 when no block of the heap could ever be that large.
 */
static inline TLSF_NO_ASAN int aligned_request(size_t align, size_t bytes, size_t *want,
                                               unsigned *slot) {
    size_t room;
    if (align > MAX_SPAN || bytes > MAX_REQUEST - TLSF_WORD) return 0;
    *want = class_round_up(request_last(bytes + TLSF_WORD), slot);
    room = *want + align + MIN_SPAN - TLSF_ALIGN;
    if (room > TOP_CLASS_SPAN) return 0;
    class_round_up(room - 1, slot);
    return 1;
}

/* log2 of the largest power of two dividing `address`, at most `limit_log2`. */
static inline TLSF_NO_ASAN unsigned natural_alignment_log2(uintptr_t address, unsigned limit_log2) {
    uintptr_t lowest = address & (~address + 1u);
    unsigned log2 = lowest ? bits_fls_size((size_t)lowest) : limit_log2;
    return log2 < limit_log2 ? log2 : limit_log2;
}

/*
 * Take a block of span `want` whose user pointer + `offset` is a multiple of `align` from
 * the non-empty class of slot `slot` (aligned_request's, found by the caller). The leading
 * gap, if any, becomes a free block of its own; the block gets BLOCK_ALIGNED and records
 * its natural alignment in its last word. Returns it in use, its span in *span.
 */
static TLSF_ALWAYS_INLINE TLSF_NO_ASAN block_t *core_take_aligned(tlsf_t heap, unsigned slot,
                                                                  size_t want, size_t align,
                                                                  size_t offset, size_t *span) {
    size_t have, gap, flags = BLOCK_ALIGNED;
    uintptr_t first, target;
    block_t *block = *slot_next_free(slot_head(heap, slot));
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
    *span = block_use_front(heap, block, have, want, flags);
    *slot_alignment_log2(block, *span) =
        natural_alignment_log2((uintptr_t)block_to_ptr(block), bits_fls_size(align));
    return block;
}

/* ---- Giving back ---- */

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
static inline TLSF_NO_ASAN void tell_next_prev_free(tlsf_t heap, block_t *next, size_t next_word) {
    block_set_prev_free(heap, next, next_word, 1);
}

/* Make the `span` bytes at `block` a free block in its class's list (mark_free). */
static inline TLSF_NO_ASAN void publish_free(tlsf_t heap, block_t *block, size_t span) {
    mark_free(heap, block, span);
    free_list_insert(heap, block, span);
}

/*
 * Give the block with user pointer `ptr` and size word `word`, in use to its neighbours
 * (already checked, counted and handed back to the tools by the caller), to the lists,
 * merging it with free physical neighbours. A merged block that stays in the class of the
 * free neighbour it grew from keeps that neighbour's list place. (It takes the user
 * pointer, as free and the cache have it, so that free's push computes no header address.)
 */
static TLSF_ALWAYS_INLINE TLSF_NO_ASAN void core_release(tlsf_t heap, void *ptr, size_t word) {
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
            tell_next_prev_free(heap, next, next_word);
        }
        if (!CODE_SMALL && !WORST_CASE(!same_class(prev_span, span))) {
            mark_free(heap, prev, span);
            return;
        }
        free_list_remove(heap, prev);
        block = prev;
    } else if (next_word & BLOCK_FREE) {
        /* Absorb the free block after; take its list place if its class holds. */
        size_t next_span = word_span(next_word);
        span += next_span;
        if (!CODE_SMALL && same_class(next_span, span)) {
            free_list_replace(next, block);
            mark_free(heap, block, span);
            return;
        }
        free_list_remove(heap, next);
    } else {
        tell_next_prev_free(heap, next, next_word);
    }
    publish_free(heap, block, span);
}

/* ---- Resizing in place ---- */

/*
 * Grow the block in use `block` (span `have`) to at least span `want` by absorbing the free
 * block after it. Returns 0, changing nothing, when that block is not free or the two
 * together are too small.
 */
static inline TLSF_NO_ASAN int core_grow(tlsf_t heap, block_t *block, size_t have, size_t want) {
    block_t *next = block_at(block, have);
    size_t next_word = *slot_size(next);
    size_t next_span = word_span(next_word);
    block_t *after;
    if (!(next_word & BLOCK_FREE) || next_span < want - have) return 0;
    free_list_remove(heap, next);
    after = block_at(next, next_span);
    block_set_prev_free_if_intact(heap, after, *slot_size(after), 0);
    block_set_word(heap, block, *slot_size(block) + next_span);
    return 1;
}

/*
 * Return the part of the block in use `block` beyond span `want` (at most its span) to the
 * lists, merged with a free block after it, if that part is large enough to be a block.
 * Returns the span the block keeps.
 */
static inline TLSF_NO_ASAN size_t core_trim(tlsf_t heap, block_t *block, size_t want) {
    size_t word = *slot_size(block);
    size_t have = word_span(word), rest = have - want;
    block_t *next = block_at(block, have);
    size_t next_word = *slot_size(next);
    if (rest < MIN_SPAN) return have;
    block_set_word(heap, block, word - rest);
    if (next_word & BLOCK_FREE) { /* the tail absorbs it */
        free_list_remove(heap, next);
        rest += word_span(next_word);
    } else {
        tell_next_prev_free(heap, next, next_word);
    }
    publish_free(heap, block_at(block, want), rest);
    return want;
}

#endif /* TLSF_CORE_H */
