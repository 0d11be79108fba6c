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
 *     (i < CACHE_CLASSES: the classes of rows 0 and 1, each one span wide), not BLOCK_FREE:
 *     to its neighbours it is in use, so it is never merged while cached; it carries
 *     BLOCK_CACHED where blocks carry a mark (TLSF_CACHE_MARKS: with the misuse checks;
 *     without them a walk marks the cached blocks for its duration, tlsf_cache_mark); the
 *     stacks below MIN_SPAN / TLSF_ALIGN are always empty;
 *   - a stack holds user pointers: cache.top[i] is the user pointer of the block on top,
 *     and each block's first user word (its next_free slot) that of the block below it,
 *     NULL at the bottom. (A pop then returns the top as it is, and a push stores the
 *     pointer free was given: neither computes a header address.)
 *   - cache.limit - cache.room is the sum of the cached blocks' charges, a charge being
 *     twice the block's span (so cache.room <= cache.limit: the budget is never exceeded),
 *     and cache.limit <= TLSF_CACHE_BYTES. The budget thus bounds both the bytes kept from
 *     merging (at most half of it) and the number of cached blocks, which is what a drain
 *     costs: at most limit / (2 * MIN_SPAN), whatever their sizes. (Twice the span rather
 *     than the span plus MIN_SPAN, which bounds the same count: on a Cortex-M4 the charge
 *     is then one shifted operand of the add or subtract that updates the room.)
 *   - the statistics count cached blocks as free; the tools (ASan, valgrind, the fill
 *     patterns) saw them freed.
 *
 * Which blocks a free caches: a plain block of an exact class whose size word has no flag
 * set, where the word carries no seal (not free, not memalign'd, and its predecessor not
 * free: such a block goes to the lists and merges, as TLSF would). The word is then the
 * span itself, which spares the push a mask and a register. Where the seal shares the word
 * (TLSF_SEAL_IN_WORD) the span must be masked out anyway, and a free predecessor is allowed.
 * A slab object (TLSF_SLABS: BLOCK_SLAB) is never taken: it goes to its slab, which serves
 * its span before the cache does (tlsf_slab.h).
 *
 * Why every operation is O(1) or bounded: a push or a pop touches one stack top, one
 * header and one link. A drain gives back at most cache.limit / (2 * MIN_SPAN) blocks (the
 * budget over the smallest charge), each with the O(1) merging of an ordinary free, plus one
 * pass over the CACHE_CLASSES stack tops.
 *
 * Below: the integrity checks and the size classes; the merge of a drained block is the
 * caller's (cache_drain_with). The door, from above: tlsf_alloc.c calls cache_take at the
 * top of malloc (after the slabs, on a heap with them), cache_span, cache_takes and
 * cache_put in free, the stale notes (cache_stale_after_miss, cache_stale_after_refusal),
 * and instantiates the drain (tlsfi_cache_drain) for a request the lists cannot serve;
 * tlsf_configure.c sets the budget and flushes; none of them knows this layout.
 */
#ifndef TLSF_CACHE_H
#define TLSF_CACHE_H

#include "tlsf_checks.h"
#include "tlsf_classes.h"

/* A cached block is parked (tlsf_block.h): in use to its neighbours, freed to its user. */
#define BLOCK_CACHED BLOCK_PARKED

/* The cache's link in a cached block, addressed by its user pointer `ptr` (the same word as
 * its next_free slot): the user pointer of the block below it on its stack. */
static inline TLSF_NO_ASAN void **slot_cache_link(void *ptr) {
    return (void **)metadata_word(ptr);
}

/* What a cached block's size word carries besides its span and BLOCK_PREV_FREE: the mark,
 * or nothing where cached blocks carry none (TLSF_CACHE_MARKS, tlsf_config.h). */
#define CACHE_MARK (TLSF_CACHE_MARKS ? BLOCK_CACHED : 0)

/* Spans below this are cached (the exact classes). */
#define CACHE_SPAN_LIMIT EXACT_SPAN_LIMIT

/*
 * Whether a request too small for any block (its bytes plus the overhead below MIN_SPAN)
 * is served from the cache: its index is raised to the smallest block's. On Arm that
 * clamp is three instructions (compare, IT, move) on every hit, and such requests (4
 * bytes or less on 32-bit Arm) are rare in C and C++ code, so there the clamp is left
 * out and they take the list path (their index names an empty stack). On x86-64 it is two
 * (compare, conditional move), and requests of 8 bytes or less are common (short strings,
 * single pointers), so they are cached.
 */
#if defined(__arm__)
#define CACHE_TINY_REQUESTS 0
#else
#define CACHE_TINY_REQUESTS 1
#endif

/*
 * malloc's first step: for a request of `bytes` whose class is cached, the user pointer of
 * the last cached block of that class, taken off its stack and in use again, with its span
 * in *span. Otherwise NULL, with *span the span of the request's exact class if it has one
 * (so that the lists need not compute it again: exact_class_slot), or 0 if its class is
 * above them. The exact classes need no bit scan: a request's span is its bytes plus the
 * overhead rounded up to TLSF_ALIGN (at least MIN_SPAN), and the class index is that span
 * over TLSF_ALIGN; the size test comes first, so no sum wraps.
 */
static inline TLSF_NO_ASAN void *cache_take(tlsf_t heap, size_t bytes, size_t *span) {
#if TLSF_CACHE
    size_t index;
    void *ptr, **top;
    block_t *block;
    *span = 0;
    if (bytes >= CACHE_SPAN_LIMIT - (BLOCK_OVERHEAD + TLSF_ALIGN - 1)) return NULL;
    index = (bytes + (BLOCK_OVERHEAD + TLSF_ALIGN - 1)) >> TLSF_ALIGN_LOG2;
    if (CACHE_TINY_REQUESTS && index < MIN_SPAN / TLSF_ALIGN) index = MIN_SPAN / TLSF_ALIGN;
    top = &heap->cache.top[index];
    ptr = *top;
    if (ptr != NULL) {
        /* The block below becomes the top if the link is sound, which with TLSF_CHECKS 2
         * also vouches for the header it is decoded with (link_decode). A damaged link or
         * header is left for the miss path to report (cache_damaged_after_miss), out of
         * this one. */
        int sound = 1;
        size_t binding;
        void *below;
        block = block_from_ptr(ptr);
        binding = link_binding(block);
        below = link_decode(heap, slot_cache_link(ptr), binding, &sound);
        if (sound) {
            *top = below;
            *span = index << TLSF_ALIGN_LOG2;
            heap->cache.room += 2 * *span; /* the block's charge */
            if (TLSF_CACHE_MARKS)
                block_set_exempt_flags(block, (TLSF_CHECKS >= 2 ? binding : *slot_size(block)) &
                                                  ~BLOCK_CACHED);
            return ptr;
        }
    }
    /* Without CACHE_TINY_REQUESTS a tiny request's index is below the smallest block's:
     * raised here, on the way to the lists only. */
    if (index < MIN_SPAN / TLSF_ALIGN) index = MIN_SPAN / TLSF_ALIGN;
    *span = index << TLSF_ALIGN_LOG2;
    return NULL;
#else
    (void)heap;
    (void)bytes;
    *span = 0;
    return NULL;
#endif
}

/* On malloc's way to the lists after cache_take found no block of span `span` (an exact
 * class): if the stack is not empty, the top's link or header was damaged (TLSF_CHECKS 2).
 * That is reported (a corrupt block if its header lost its seal, else a corrupt list), the
 * stack ends (its blocks stay out of use; tlsf_check counts them) and 1 is returned: the
 * request then fails. 0 otherwise. */
static inline TLSF_NO_ASAN int cache_damaged_after_miss(tlsf_t heap, size_t span) {
#if TLSF_CACHE && TLSF_CHECKS >= 2
    void **top = &heap->cache.top[span >> TLSF_ALIGN_LOG2];
    if (*top == NULL) return 0;
    tlsfi_report(heap,
                 block_header_intact(heap, block_from_ptr(*top)) ? TLSF_ERROR_CORRUPT_LIST
                                                                 : TLSF_ERROR_CORRUPT_BLOCK,
                 *top);
    *top = NULL;
    return 1;
#else
    (void)heap;
    (void)span;
    return 0;
#endif
}

/* The flag a cacheable size word may carry (see the top of this file): BLOCK_PREV_FREE,
 * only where the seal shares the word. */
#if TLSF_SEAL_IN_WORD
#define CACHE_PREV_FREE BLOCK_PREV_FREE
#else
#define CACHE_PREV_FREE 0
#endif

/* The span of size word `word` if cache_takes accepts it: the word itself where it carries
 * no seal (no flag is set then), word_span where it does (which free's checks have
 * computed already). */
static inline TLSF_NO_ASAN size_t cache_span(size_t word) {
#if TLSF_SEAL_IN_WORD
    return word_span(word);
#else
    return word;
#endif
}

/* Does the cache take the block of size word `word` and span `span` (cache_span) now? A
 * plain block of an exact class, neither free nor cached: no bit of the word at or above
 * CACHE_SPAN_LIMIT (the seal's aside; BLOCK_CACHED is one) and no flag (but
 * CACHE_PREV_FREE), which one mask tests together - so free may test for a double free
 * after this (free_check_word); and room for its charge (twice its span) in the budget. If
 * so, *left is the room that remains after the charge, for cache_put. The charge is
 * subtracted first and the sign of the rest tested (room and charges are far below half
 * the address space): one subtraction serves the test and the update. */
static inline TLSF_NO_ASAN int cache_takes(tlsf_t heap, size_t word, size_t span, size_t *left) {
#if TLSF_CACHE
    if ((word & WORD_LOW_MASK & ~(CACHE_SPAN_LIMIT - TLSF_ALIGN + CACHE_PREV_FREE)) != 0) return 0;
    *left = heap->cache.room - 2 * span;
    return (ptrdiff_t)*left >= 0;
#else
    (void)heap;
    (void)word;
    (void)span;
    (void)left;
    return 0;
#endif
}

/* free's shortcut: push the checked block with user pointer `ptr` (size word `word` as
 * read, span `span`), which cache_takes accepted leaving `left` room, onto its class's
 * stack. */
static inline TLSF_NO_ASAN void cache_put(tlsf_t heap, void *ptr, size_t word, size_t span,
                                          size_t left) {
#if TLSF_CACHE
    void **top = &heap->cache.top[span >> TLSF_ALIGN_LOG2];
    heap->cache.room = left;
    *slot_cache_link(ptr) = link_encode(heap, slot_cache_link(ptr), *top, word | CACHE_MARK);
    *top = ptr;
    if (TLSF_CACHE_MARKS) block_set_exempt_flags(block_from_ptr(ptr), word | BLOCK_CACHED);
#else
    (void)heap;
    (void)ptr;
    (void)word;
    (void)span;
    (void)left;
#endif
}

/*
 * free's note of a block of span `span` the cache did not take (TLSF_CACHE 2):
 * counted while the room stays what it was at the last such free, so the count is of frees
 * in a row with no block cached or taken in between (a pop and a push of equal charges in
 * between go unseen; the drain they may cause is only early). When the block is at least
 * as large as the budget and the count has reached the most blocks the budget holds, the
 * cache is drained: a large free after a run of refused frees marks the end of a phase (a
 * container destroyed, its nodes freed), and the blocks cached in that phase would
 * otherwise be the next phase's first blocks, scattered over memory (as the C library
 * merges its fast bins when a large chunk is freed). The drain gives back no more blocks
 * than frees were refused in the run, and no more bytes than the freed block holds. A few
 * loads and stores, on the list path only, after the merge, when nothing else is live.
 * Returns 1 when the cache is to be drained now (the front end does it).
 */
static inline TLSF_NO_ASAN int cache_stale_after_refusal(tlsf_t heap, size_t span) {
#if TLSF_CACHE_DRAIN_STALE
    size_t room = heap->cache.room, limit = heap->cache.limit;
    if (room != heap->cache.idle_room) {
        heap->cache.idle_room = room;
        heap->cache.idle_frees = 0;
    }
    heap->cache.idle_frees++;
    return span >= limit && room != limit && heap->cache.idle_frees >= limit / (2 * MIN_SPAN);
#else
    (void)heap;
    (void)span;
    return 0;
#endif
}

/*
 * malloc's note of a request of span `span` (an exact class) that missed the cache
 * (TLSF_CACHE 2). If the budget has no room for a block of its class (so a free
 * of it would not be cached either), could hold one, and has not changed over the last
 * frees of exact classes, all of which it refused, as many as it can hold blocks
 * (the budget over 2 * MIN_SPAN), the cache is drained: it holds blocks of sizes the program
 * stopped asking for (the nodes of one container, when another's are allocated), which would
 * otherwise keep the budget, and the memory around them scattered, for good. The drain
 * gives back no more blocks than frees were refused since the cache last changed, so it
 * costs at most one list free per refused free; a program that uses the cache pushes or
 * pops far more often, which starts the count again. Bounded by the drain, which a
 * malloc's bound already includes; the fast paths pay nothing for it. Returns 1 when the
 * cache is to be drained now (the front end does it).
 */
static inline TLSF_NO_ASAN int cache_stale_after_miss(tlsf_t heap, size_t span) {
#if TLSF_CACHE_DRAIN_STALE
    size_t room = heap->cache.room;
    if (room >= 2 * span || 2 * span > heap->cache.limit) return 0;
    /* The most blocks the budget holds, each charged at least 2 * MIN_SPAN. */
    return room == heap->cache.idle_room &&
           heap->cache.idle_frees >= heap->cache.limit / (2 * MIN_SPAN);
#else
    (void)heap;
    (void)span;
    return 0;
#endif
}

/* Does the cache hold a block? (The budget has room taken.) */
static inline TLSF_NO_ASAN int cache_holds_blocks(tlsf_t heap) {
#if TLSF_CACHE
    return heap->cache.room != heap->cache.limit;
#else
    (void)heap;
    return 0;
#endif
}

#if TLSF_CACHE
/* Does the cached block `block` on stack `index` still have the header the cache left
 * (TLSF_CHECKS 2: sealed, marked, of the stack's span)? An overflow from the block before
 * may have changed it since the push; the drain trusts its span only after this. */
static inline TLSF_NO_ASAN int cached_header_sound(tlsf_t heap, block_t *block, unsigned index) {
#if TLSF_CHECKS >= 2
    size_t word = *slot_size(block);
    return block_header_intact(heap, block) && (word & BLOCK_CACHED) &&
           word_span_any(word) == ((size_t)index << TLSF_ALIGN_LOG2);
#else
    (void)heap;
    (void)block;
    (void)index;
    return 1;
#endif
}

/*
 * The drain: give every cached block back, a block to the lists with `release` (the
 * merging of an ordinary free, which the caller places: the front end passes its own
 * out-of-line instance, tlsfi_cache_drain). The cached blocks left the statistics and the
 * tools when they were freed, so only the lists change. Returns 1 if there was a block, 0
 * if the cache was empty.
 *
 * The one loop of the real-time paths, bounded by design: it visits CACHE_CLASSES stack
 * tops and gives back at most limit / (2 * MIN_SPAN) blocks (the budget over the smallest
 * charge), each an O(1) merge or push. Inline with a constant `release`, the call is a
 * direct one.
 */
static TLSF_ALWAYS_INLINE TLSF_NO_ASAN int
cache_drain_with(tlsf_t heap, void (*release)(tlsf_t, void *, size_t)) {
    unsigned index;
    if (heap->cache.room == heap->cache.limit) return 0;
    for (index = 0; index < CACHE_CLASSES; ++index) {
        void *ptr = heap->cache.top[index];
        heap->cache.top[index] = NULL;
        while (ptr != NULL) {
            block_t *block = block_from_ptr(ptr);
            int sound = 1;
            size_t word = *slot_size(block);
            /* Read before the release links the block. */
            void *below = link_decode(heap, slot_cache_link(ptr), word, &sound);
            word &= ~BLOCK_CACHED; /* in use again */
            if (!cached_header_sound(heap, block, index)) {
                /* Its span cannot be trusted: the block stays out of use, the rest of the
                 * stack with it (tlsf_check counts them). */
                tlsfi_report(heap, TLSF_ERROR_CORRUPT_BLOCK, ptr);
                break;
            }
            if (!sound) {
                tlsfi_report(heap, TLSF_ERROR_CORRUPT_LIST, ptr);
                below = NULL;
            }
            if (TLSF_CACHE_MARKS) block_set_exempt_flags(block, word);
            release(heap, ptr, word);
            ptr = below;
        }
    }
    heap->cache.room = heap->cache.limit;
#if TLSF_CACHE_DRAIN_STALE
    heap->cache.idle_frees = 0;
#endif
    return 1;
}
#endif

#endif /* TLSF_CACHE_H */
