/* SPDX-License-Identifier: MIT */
/*
 * tlsf_alloc.c - the front end: the public malloc, memalign, realloc and free, assembled
 * from the layers below, and the only file that decides where their code is placed.
 *
 *   malloc   slab (tlsf_slab.h; heaps with slabs) -> cache (tlsf_cache.h) -> lists
 *            (tlsf_core.h: core_take); when the lists have no block large enough, the cache
 *            is drained and the empty slabs released (a bounded loop, stated in tlsf.h) and
 *            the lists searched once more.
 *   free     a slab object (told by its word's flags, then checked: free_object) ->
 *            checks (tlsf_checks.h) -> cache -> lists (core_release).
 *   realloc  in place (core_grow, core_trim) or malloc + copy + free of this file.
 *   memalign the lists (core_take_aligned), with the same drain and retry.
 *
 * What the user sees of a block is told here, not below: the statistics count it
 * (tlsf_stats.h) and the tools hear of it (block_hand_out, memory_given_back).
 *
 * Why each is O(1): none of the layers below loops, except the drain of a request that
 * the lists cannot serve, bounded by the cache's budget. The only work proportional to a
 * size is the memcpy of a realloc that has to move and the memset of calloc.
 */
#include <string.h>

#include "tlsf_cache.h"
#include "tlsf_checks.h"
#include "tlsf_core.h"
#include "tlsf_slab.h"
#include "tlsf_stats.h"

/* ---- Code placement ---- */

/* Whether speed comes before code size: not with TLSF_CODE 0, nor where the compiler
 * optimises for size (-Os). Where it does, a few list paths exist in two copies, each
 * specialised for its caller. */
#if CODE_SMALL || defined(__OPTIMIZE_SIZE__)
#define TLSF_SPEED_OVER_SIZE 0
#else
#define TLSF_SPEED_OVER_SIZE 1
#endif

/*
 * With the front cache, the list paths run out of line (TLSF_LIST_PATH), reached by a tail
 * call: a cache hit then runs in a function that saves no registers, which the list
 * paths' register pressure would otherwise make every call pay (on x86-64 12 instructions
 * per malloc and 13 per free, each saved register a push and a pop; on Cortex-M a push,
 * a pop and the stack adjustments). The list paths pay one branch for it. Without the
 * cache they stay inline.
 */
#if defined(__GNUC__) || defined(__clang__)
#define TLSF_NOINLINE __attribute__((noinline))
#if TLSF_CACHE
#define TLSF_LIST_PATH __attribute__((noinline))
#else
#define TLSF_LIST_PATH inline __attribute__((always_inline))
#endif
#else
#define TLSF_NOINLINE
#define TLSF_LIST_PATH inline
#endif

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

/*
 * The merging of a freed block (core_release) has two callers with the cache: free's list
 * path and the cache's drain. The drain calls one out-of-line instance (release_block).
 * free's list path has it inline as well, so that it is one function that saves its
 * registers once (and its worst case pays no second call); the price is a second copy of
 * the merging code (about 370 bytes on a Cortex-M4), so where code size comes first free
 * calls the one instance too. Without the cache there is only free's, inline.
 */
#if TLSF_CACHE
static TLSF_NOINLINE TLSF_NO_ASAN void release_block(tlsf_t heap, void *ptr, size_t word) {
    core_release(heap, ptr, word);
}
#endif

static TLSF_ALWAYS_INLINE TLSF_NO_ASAN void free_merge(tlsf_t heap, void *ptr, size_t word) {
#if TLSF_CACHE && !TLSF_SPEED_OVER_SIZE
    release_block(heap, ptr, word);
#else
    core_release(heap, ptr, word);
#endif
}

#if TLSF_CACHE
#if TLSF_CHECKS >= 2
/* The drain's merge with sealed headers: the cached block's neighbours are checked first
 * (block_check_neighbours); a damaged neighbour is reported and the block stays out of
 * use. */
static TLSF_NOINLINE TLSF_NO_ASAN void release_checked(tlsf_t heap, void *ptr, size_t word) {
    if (block_check_neighbours(heap, ptr, word)) release_block(heap, ptr, word);
}
#define DRAIN_RELEASE release_checked
#else
#define DRAIN_RELEASE release_block
#endif

/* The cache's drain (cache_drain_with), with this file's instance of the merge; out of
 * line, a call on the paths that drain (the compiler would otherwise copy the loop into
 * each of them). */
TLSF_NOINLINE TLSF_NO_ASAN int tlsfi_cache_drain(tlsf_t heap) {
    return cache_drain_with(heap, DRAIN_RELEASE);
}
#endif

/*
 * The pools' insertion of their first block (tlsf_pool.c), here rather than in tlsf_core.c:
 * where code size comes first (-Os) the compiler keeps free_list_insert out of line as one
 * function of this file, which malloc and free call, and this then is that same copy (in
 * tlsf_core.c it would be a second one: about 80 bytes on a Cortex-M4).
 */
TLSF_NO_ASAN void tlsfi_insert(tlsf_t heap, block_t *block, size_t span) {
    free_list_insert(heap, block, span);
}

/* ---- Allocation ---- */

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

/* Find the first non-empty class at or above the one of slot *slot (find_free_class); if
 * there is none, drain the cache and release the empty slabs (their blocks may merge into a
 * large enough one) and search once more. Returns 0 when the heap has no block large
 * enough. */
static inline TLSF_NO_ASAN int cache_drain(tlsf_t heap) {
#if TLSF_CACHE
    return cache_holds_blocks(heap) && tlsfi_cache_drain(heap);
#else
    (void)heap;
    return 0;
#endif
}
static inline TLSF_NO_ASAN int find_class_or_drain(tlsf_t heap, unsigned *slot) {
    return find_free_class(heap, slot) ||
           ((cache_drain(heap) | slab_release_empty(heap)) && find_free_class(heap, slot));
}

/* The stale drain's notes (TLSF_CACHE 2, tlsf_cache.h): a request of an exact class that
 * missed the cache, a free the cache refused. */
static inline TLSF_NO_ASAN void note_miss(tlsf_t heap, size_t span) {
#if TLSF_CACHE
    if (cache_stale_after_miss(heap, span)) tlsfi_cache_drain(heap);
#else
    (void)heap;
    (void)span;
#endif
}
static inline TLSF_NO_ASAN void note_refusal(tlsf_t heap, size_t span) {
#if TLSF_CACHE
    if (cache_stale_after_refusal(heap, span)) tlsfi_cache_drain(heap);
#else
    (void)heap;
    (void)span;
#endif
}

/* The user's part of taking block `block` of span `span`: counted, told to the tools. */
static TLSF_ALWAYS_INLINE TLSF_NO_ASAN void *hand_out(tlsf_t heap, block_t *block, size_t span) {
    stats_on_alloc(heap, span);
    return block_hand_out(block);
}

/* Is the first block of the non-empty class of slot `slot` sound (free_block_sound)? If
 * not, the handler hears of a corrupt list, and the request fails. */
static inline TLSF_NO_ASAN int first_block_sound(tlsf_t heap, unsigned slot) {
    block_t *first = *slot_next_free(slot_head(heap, slot));
    if (free_block_sound(heap, first)) return 1;
    tlsfi_report(heap, TLSF_ERROR_CORRUPT_LIST, block_to_ptr(first));
    return 0;
}

/* The block for a request of span `span` from the non-empty class of slot `slot`. */
static TLSF_ALWAYS_INLINE TLSF_NO_ASAN void *take_from_class(tlsf_t heap, size_t span,
                                                             unsigned slot) {
    block_t *block;
    if (!first_block_sound(heap, slot)) return alloc_failed(heap);
    block = core_take(heap, slot, &span);
    return hand_out(heap, block, span);
}

/* malloc from the lists: a block of the request's class or of the first non-empty class
 * above it; a larger block is split. */
static TLSF_LIST_PATH TLSF_NO_ASAN void *malloc_from_lists(tlsf_t heap, size_t bytes) {
    unsigned slot;
    /* The class first: for a request above MAX_REQUEST it is meaningless but harmless (the
     * sum wraps in unsigned arithmetic), and the test below refuses it. */
    size_t span = class_round_up(request_last(bytes), &slot);
    /* (With TLSF_SPEED_OVER_SIZE malloc_exact_class notes the exact classes' misses. A
     * request above MAX_REQUEST may be noted too: at worst a stale cache drains early.) */
    if (!TLSF_SPEED_OVER_SIZE && span < CACHE_SPAN_LIMIT) {
        if (cache_damaged_after_miss(heap, span)) return alloc_failed(heap);
        note_miss(heap, span);
    }
    if (bytes > MAX_REQUEST || !find_class_or_drain(heap, &slot)) return alloc_failed(heap);
    return take_from_class(heap, span, slot);
}

#if TLSF_CACHE && TLSF_SPEED_OVER_SIZE
/* The same for a request of an exact class that missed the cache: cache_take computed its
 * span, and the class's slot follows from it (exact_class_slot), so the list path repeats
 * neither the size test nor the class computation, and the cache adds to the worst malloc
 * no more than its own tests. (A second copy of take_from_class: not where code size comes
 * first.) */
static TLSF_LIST_PATH TLSF_NO_ASAN void *malloc_exact_class(tlsf_t heap, size_t span) {
    unsigned slot = exact_class_slot(span);
    if (cache_damaged_after_miss(heap, span)) return alloc_failed(heap);
    note_miss(heap, span);
    if (!find_class_or_drain(heap, &slot)) return alloc_failed(heap);
    return take_from_class(heap, span, slot);
}
#endif

/* malloc on a heap without slabs, or of a request no slab serves now: the cache, then the
 * lists. */
static TLSF_ALWAYS_INLINE TLSF_NO_ASAN void *malloc_unslabbed(tlsf_t heap, size_t bytes) {
    size_t span;
    void *ptr = cache_take(heap, bytes, &span);
    if (ptr != NULL) {
        stats_on_alloc(heap, span);
        return block_hand_out(block_from_ptr(ptr));
    }
#if TLSF_CACHE && TLSF_SPEED_OVER_SIZE
    if (span != 0) return malloc_exact_class(heap, span);
#endif
    return malloc_from_lists(heap, bytes);
}

#if TLSF_SLABS
/*
 * A request of `bytes` a slab serves (slab_serves), of span `span`, that its current slab's
 * free list did not serve. Two steps out of line, each reached by a tail call, for the
 * reason the list paths are (TLSF_LIST_PATH): the pop in tlsf_malloc then saves no
 * registers, and neither does the hand-out of a fresh object, which calls nothing. (On
 * x86-64 a malloc that pops runs 31 instructions, and one that takes a fresh object 43.)
 * malloc_slab_fresh takes the next fresh object of the current slab `slab`, which has no
 * freed object; malloc_slab_refill makes another slab current (slab_malloc, which also
 * reports a damaged free list or fresh tag of the current one) or, if no slab can be had,
 * serves the request as a heap without slabs would.
 */
static TLSF_LIST_PATH TLSF_NO_ASAN void *malloc_slab_refill(tlsf_t heap, size_t bytes,
                                                            size_t span) {
    void *ptr = slab_malloc(heap, span);
    if (ptr != NULL) return ptr;
    return malloc_unslabbed(heap, bytes);
}
static TLSF_LIST_PATH TLSF_NO_ASAN void *malloc_slab_fresh(tlsf_t heap, size_t bytes, size_t span,
                                                           struct tlsf_slab *slab) {
    void *ptr = slab_take_fresh(heap, slab, span);
    if (ptr != NULL) return ptr;
    return malloc_slab_refill(heap, bytes, span);
}
#endif

TLSF_NO_ASAN void *tlsf_malloc(tlsf_t heap, size_t bytes) {
    if (!heap_usable(heap)) return alloc_failed(heap);
#if TLSF_SLABS
    /* A small request on a heap with slabs takes an object, before the cache: the cache
     * keeps no object (tlsf_slab.h, "Slabs and the front cache"). */
    if (slab_serves(heap, bytes)) {
        size_t span = slab_request_span(bytes);
        struct tlsf_slab *slab = slab_current(heap, span);
        void *ptr;
        if (slab == NULL) return malloc_slab_refill(heap, bytes, span);
        if (slab->free == NULL) return malloc_slab_fresh(heap, bytes, span, slab);
        if ((ptr = slab_pop(heap, slab, span)) != NULL) return ptr;
        return malloc_slab_refill(heap, bytes, span); /* a damaged link: slab_malloc says so */
    }
#endif
    return malloc_unslabbed(heap, bytes);
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

TLSF_NO_ASAN void *tlsf_memalign_offset(tlsf_t heap, size_t align, size_t bytes, size_t offset) {
    unsigned slot;
    size_t want, span;
    block_t *block;
    if (heap == NULL || align == 0 || (align & (align - 1)) != 0 || (bytes != 0 && offset >= bytes))
        return alloc_failed(heap);
    if (align <= TLSF_ALIGN) {
        /* Every block already has this alignment; the offset must keep it. */
        if (offset & (align - 1)) return alloc_failed(heap);
        return tlsf_malloc(heap, bytes);
    }
    if ((offset & (TLSF_ALIGN - 1)) || !aligned_request(align, bytes, &want, &slot) ||
        !find_class_or_drain(heap, &slot))
        return alloc_failed(heap);
    if (!first_block_sound(heap, slot)) return alloc_failed(heap);
    block = core_take_aligned(heap, slot, want, align, offset, &span);
    return hand_out(heap, block, span);
}

TLSF_NO_ASAN void *tlsf_memalign(tlsf_t heap, size_t align, size_t bytes) {
    return tlsf_memalign_offset(heap, align, bytes, 0);
}

TLSF_NO_ASAN void *tlsf_aligned_alloc(tlsf_t heap, size_t align, size_t bytes) {
    return tlsf_memalign_offset(heap, align, bytes, 0);
}

/* ---- Freeing ---- */

/* The user's part of freeing: the tools hear of it and the statistics count it. */
static inline TLSF_NO_ASAN void block_given_back(tlsf_t heap, void *ptr, size_t word, size_t span) {
    memory_given_back(ptr, block_usable(word));
    stats_on_free(heap, span);
}

/* free's list path: the checks the cache's mask let wait, the statistics, the merge. */
static TLSF_FREE_LIST_PATH TLSF_NO_ASAN void free_to_lists(tlsf_t heap, void *ptr, size_t word) {
    if (!free_check_word(heap, ptr, word) || !block_check_prev(heap, ptr, word) ||
        !block_check_next(heap, ptr, word))
        return;
    block_given_back(heap, ptr, word, word_span(word));
    free_merge(heap, ptr, word);
    note_refusal(heap, word_span(word)); /* last: nothing else is live then */
}

#if TLSF_SLABS
/* 1 if the slab object `ptr` with tag `word`, which block_misuse passed, may be freed or
 * resized; otherwise the handler hears why (slab_misuse) and 0 is returned. */
static inline TLSF_NO_ASAN int slab_check(tlsf_t heap, const void *ptr, size_t word) {
    tlsf_error_t misuse = slab_misuse(word);
    if (misuse == TLSF_ERROR_NONE) return 1;
    tlsfi_report(heap, misuse, ptr);
    return 0;
}

/* free of a slab object whose tag `word` has a SLAB_MISUSE_FLAGS bit (a second free, or
 * the pointer of a slab's own block): every check, in block_misuse's order, and
 * slab_check's. */
static TLSF_NOINLINE TLSF_NO_ASAN void free_object_misused(tlsf_t heap, void *ptr, size_t word) {
    if (block_check_in_use(heap, ptr) && slab_check(heap, ptr, word)) slab_free(heap, ptr, word);
}

/* free of a slab object whose tag is intact and not followed by another object's tag: the
 * slab's top object (the header after the slab follows), or one whose next tag an
 * overflow reached. The full check of the header after it. */
static TLSF_NOINLINE TLSF_NO_ASAN void free_object_checking_next(tlsf_t heap, void *ptr,
                                                                 size_t word) {
    block_t *block = block_from_ptr(ptr);
    if (misuse_reported(heap, neighbour_misuse(heap, block, word, HEADER_OF_ANY), ptr))
        slab_free(heap, ptr, word);
}

/*
 * free of `ptr`, whose header word `word` says it is a slab object: the object goes on its
 * slab's free list (the cache takes no object). The word is not trusted until its seal is
 * checked. A tag without SLAB_MISUSE_FLAGS is an object's, sealed at its slab's site, and
 * passes every test of free_check_word and slab_check but the next header's, which is a
 * comparison when the next object's tag is there (slab_next_is_sibling). The rarer cases
 * run out of line, reached by tail calls, as this function is from tlsf_free: so that none
 * of these paths saves a register for another.
 */
static TLSF_LIST_PATH TLSF_NO_ASAN void free_object(tlsf_t heap, void *ptr, size_t word) {
    if (TLSF_CHECKS >= 1 && (word & SLAB_MISUSE_FLAGS) != 0) {
        free_object_misused(heap, ptr, word);
    } else if (!slab_tag_intact(heap, block_from_ptr(ptr), word)) {
        tlsfi_report(heap, MISUSE_UNSEALED, ptr);
    } else if (!slab_next_is_sibling(ptr, word)) {
        free_object_checking_next(heap, ptr, word);
    } else {
        slab_free(heap, ptr, word);
    }
}
#endif

TLSF_NO_ASAN void tlsf_free(tlsf_t heap, void *ptr) {
    size_t word, span, left;
    if (ptr == NULL || !heap_usable(heap)) return;
#if TLSF_SLABS
    /* Objects first, before the cache's tests, which would only refuse them. */
    if (((uintptr_t)ptr & (TLSF_ALIGN - 1)) == 0 &&
        slab_object(word = *slot_size(block_from_ptr(ptr)))) {
        free_object(heap, ptr, word);
        return;
    }
#endif
    if (!free_check_pointer(heap, ptr)) return;
    word = *slot_size(block_from_ptr(ptr));
    span = cache_span(word);
    if (cache_takes(heap, word, span, &left)) {
        if (!free_check_push(heap, ptr, word)) return;
        /* The tools first (a fill must not cover the link), the statistics last (fewer
         * registers live across the push). */
        memory_given_back(ptr, block_usable(word));
        cache_put(heap, ptr, word, span, left);
        stats_on_free(heap, span);
        return;
    }
    free_to_lists(heap, ptr, word);
}

/* ---- Reallocation ---- */

/* realloc that cannot stay in place: allocate (with the same alignment), copy, free. */
static TLSF_NO_ASAN void *realloc_move(tlsf_t heap, void *ptr, size_t bytes, size_t word) {
    void *fresh;
    size_t keep = block_usable(word);
    if (word & BLOCK_ALIGNED) {
        size_t log2 = *slot_alignment_log2(block_from_ptr(ptr), word_span(word));
#if TLSF_CHECKS >= 2
        /* The record lies in the block's last word, where a write one past the user's bytes
         * lands. memalign records the natural alignment of the user pointer, at least
         * TLSF_ALIGN and below the largest block; any other value is reported rather than
         * used as a shift. */
        if (log2 < TLSF_ALIGN_LOG2 || log2 >= TLSF_MAX_BLOCK_LOG2) {
            tlsfi_report(heap, TLSF_ERROR_CORRUPT_BLOCK, ptr);
            return NULL;
        }
#endif
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
    size_t word, have, want, kept, record = 0, extra;
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
    if (!block_check_growth(heap, ptr, word)) return NULL;
    if (want > have && !core_grow(heap, block, have, want))
        return realloc_move(heap, ptr, bytes, word);
    kept = core_trim(heap, block, want);
    /* One update for the growth and the trim; the peak counts only what the block kept. */
    stats_on_resize(heap, have, kept);
    stats_on_settle(heap);
    if (extra) *slot_alignment_log2(block, kept) = record;
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
