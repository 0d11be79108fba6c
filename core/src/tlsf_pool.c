/* SPDX-License-Identifier: MIT */
/*
 * tlsf_pool.c - creating and destroying heaps, adding and removing pools.
 *
 * A pool is laid out as one free block followed by the end sentinel:
 *
 *   mem + POOL_START_OFFSET   first block: span | BLOCK_FREE
 *   first block + span        sentinel: span 0, "in use", prev_phys -> last block
 *
 * The sentinel is never free, so coalescing stops at it and never leaves the pool. The
 * first block's prev_phys word is never needed (nothing precedes it), so it records where
 * the sentinel is: the walk and the checks then know where the pool ends without trusting
 * the sizes they are checking.
 */
#include "tlsf_cache.h"
#include "tlsf_checks.h"
#include "tlsf_lists.h"

#define POOL_OVERHEAD (POOL_START_OFFSET + SENTINEL_SIZE)

#if TLSF_CHECKS >= 2
/*
 * A key of its own for each creation (tlsf_seal.h): the heap's address, spread over the
 * word, plus a count of the heaps created so far in the program, spread by another odd
 * multiplier. A heap made again in the same memory thus never gets the key it had (the
 * count differs), and every header of the earlier heap, and every pointer into it, fails
 * the new heap's checks. The count is the core's only state outside the caller's memory:
 * one word, read and written with relaxed atomic loads and stores where the compiler has
 * them (two heaps created at once may read the same count; they differ by address, and a
 * heap is made again in one place only after it was made there, so never at once).
 * Reading the memory's old key instead would spare the word, but reads memory the caller
 * may never have written, which valgrind rightly reports.
 */
static size_t heaps_created;

static TLSF_NO_ASAN size_t new_seal_key(tlsf_t heap) {
    size_t count;
#if defined(__ATOMIC_RELAXED)
    count = __atomic_load_n(&heaps_created, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&heaps_created, count, __ATOMIC_RELAXED);
#else
    count = ++heaps_created;
#endif
    /* Low bits not all zero: a link zeroed or overwritten with an aligned pointer decodes
     * to a misaligned one (link_decode, tlsf_checks.h). */
    return (((size_t)(uintptr_t)heap * SEAL_ADDRESS_MULTIPLIER) + count * SEAL_MULTIPLIER) | 1u;
}

/* The inverse of the odd `key` modulo 2^TLSF_PTR_BITS (link_decode multiplies by it). Newton's
 * step x -> x * (2 - key * x) doubles the low bits in which x is right, and x = key is right
 * in three (an odd square is 1 modulo 8): 3, 6, 12, 24, 48, 96 bits, so four steps serve 32
 * bits and five 64, written out (no loop for the static proof to bound). */
static TLSF_NO_ASAN size_t key_inverse(size_t key) {
    size_t x = key;
    x *= 2u - key * x;
    x *= 2u - key * x;
    x *= 2u - key * x;
    x *= 2u - key * x;
#if TLSF_PTR_BITS == 64
    x *= 2u - key * x;
#endif
    return x;
}
#endif

#if TLSF_CHECKS >= 2
/* Widen the range of addresses the pools span (heap_holds, tlsf_checks.h) to [low, high). */
static TLSF_NO_ASAN void pools_hull_add(tlsf_t heap, uintptr_t low, uintptr_t high) {
    if (heap->pools_span != 0) {
        uintptr_t old_high = heap->pools_low + heap->pools_span;
        if (heap->pools_low < low) low = heap->pools_low;
        if (old_high > high) high = old_high;
    }
    heap->pools_low = low;
    heap->pools_span = (size_t)(high - low);
    /* A sound link (link_decode) is NULL or a block start in the pools: aligned, and below
     * the power of two above the highest pool byte, so every bit from that power up is
     * clear as well. */
    heap->link_mask =
        (TLSF_ALIGN - 1) | ((~(uintptr_t)0 << bits_fls_size((size_t)(high - 1))) << 1);
}
#endif

#if TLSF_CHECKS >= 2
/* Does the word a pool's first block keeps for its end (pool_sentinel) lead to a sentinel
 * this heap sealed (span 0)? Any other block of a pool has there the last word of the block
 * before it, which its user may have written: only a real first block passes. */
static TLSF_NO_ASAN int pool_end_sound(tlsf_t heap, block_t *first) {
    block_t *sentinel = pool_sentinel(first);
    return heap_holds(heap, sentinel) && sentinel > first &&
           ((uintptr_t)sentinel - (uintptr_t)first) % TLSF_ALIGN == 0 &&
           block_header_intact(heap, sentinel) && word_span(*slot_size(sentinel)) == 0;
}
#endif

/* The words tlsf_create zeroes: everything before the heads but the pool limit it sets,
 * two at a time (on 32-bit Arm one STRD or two stores per pass, half the passes of a word
 * at a time: the budget for that store); an odd count takes in the limit's word too, which
 * is set afterwards. */
#define CREATE_WORDS (((offsetof(struct tlsf_heap, pool_span_room) / sizeof(size_t)) + 1) & ~1u)
typedef char tlsf_check_create_words[(CREATE_WORDS * sizeof(size_t) <=
                                      offsetof(struct tlsf_heap, pool_span_room) + sizeof(size_t))
                                         ? 1
                                         : -1];

/* (The other creations call tlsf_create rather than carry a copy of its loop.) The
 * alignment test shifts the address rather than masks it: on Arm one 16-bit instruction,
 * whose zero result the loop then stores. */
TLSF_SHARED_HELPER TLSF_NO_ASAN tlsf_t tlsf_create(void *mem) {
    tlsf_t heap = (tlsf_t)mem;
    size_t *word;
    if (mem == NULL || ((uintptr_t)mem << (TLSF_PTR_BITS - TLSF_ALIGN_LOG2)) != 0) return NULL;
    word = (size_t *)mem + CREATE_WORDS; /* (not before the test: no offset from NULL) */
    /* Bitmaps, statistics and handler only: a list head's words are used only while its
     * bitmap bit is set, so the heads need no initialisation. A plain loop of a fixed
     * count rather than memset keeps the C library's memset out of small images. */
    do {
        word -= 2;
        word[0] = 0;
        word[1] = 0;
    } while (word != (size_t *)mem);
    heap->pool_span_room = MAX_SPAN - MIN_SPAN; /* heap_set_rows(heap, ROW_COUNT) */
#if TLSF_CHECKS >= 2
    heap->first_head = (uintptr_t)heap + FIRST_SLOT * HEAD_BYTES;
    heap->class_count = LIST_COUNT;
    heap->seal_key = new_seal_key(heap);
    heap->link_inverse = key_inverse(heap->seal_key);
    heap->link_mask = TLSF_ALIGN - 1; /* no pool yet: pools_hull_add */
#endif
#if TLSF_CACHE
    heap->cache.limit = heap->cache.room = TLSF_CACHE_BYTES;
#endif
    return heap;
}

TLSF_NO_ASAN tlsf_t tlsf_create_with_pool(void *mem, size_t bytes) {
    tlsf_t heap;
    if (bytes < control_bytes()) return NULL; /* before tlsf_create writes anything */
    heap = tlsf_create(mem);
    if (heap == NULL ||
        tlsf_add_pool(heap, (char *)mem + control_bytes(), bytes - control_bytes()) == NULL)
        return NULL;
    return heap;
}

/* The rows of classes a heap needs whose pools hold at most `pool_bytes` bytes
 * (tlsf_add_pool's argument): those up to the row of the largest first block such a pool
 * can have (a pool too small for a block is taken as the smallest one). */
static TLSF_NO_ASAN unsigned rows_for_pool(size_t pool_bytes) {
    size_t span = MIN_SPAN;
    if (pool_bytes >= POOL_OVERHEAD + MIN_SPAN)
        span = (pool_bytes - POOL_OVERHEAD) & ~(TLSF_ALIGN - 1);
    if (span > MAX_SPAN) return ROW_COUNT;
    return bits_fls_size(span | (SMALL_SPAN >> 1)) + 2u - FL_SHIFT;
}

TLSF_NO_ASAN size_t tlsf_size_for(size_t pool_bytes) {
    return control_bytes_for((size_t)rows_for_pool(pool_bytes) << TLSF_SL_INDEX_LOG2);
}

TLSF_NO_ASAN tlsf_t tlsf_create_sized(void *mem, size_t pool_bytes) {
    tlsf_t heap = tlsf_create(mem);
    unsigned rows = rows_for_pool(pool_bytes);
    if (heap == NULL) return NULL;
    heap_set_rows(heap, rows);
    return heap;
}

/* The largest pool a heap of `rows` rows takes (tlsf_add_pool's `bytes`, a multiple of the
 * alignment): the last span of its last row, and the pool's overhead. */
static TLSF_NO_ASAN size_t rows_pool_bytes(unsigned rows) {
    return ((size_t)1 << (FL_SHIFT + rows - 1)) - TLSF_ALIGN + POOL_OVERHEAD;
}

/* The smallest pool of a compact heap: one smallest block, its size rounded up to the
 * alignment as every compact pool's is (the pool overhead is no multiple of it where the
 * sentinel records its heap, TLSF_CACHE_MARKS 0). */
#define COMPACT_POOL_MIN ((POOL_OVERHEAD + MIN_SPAN + TLSF_ALIGN - 1) & ~(TLSF_ALIGN - 1))

/*
 * The pool of a compact heap of `bytes` bytes: the largest one that fits after its control
 * structure. With r rows that is bytes - control_bytes_for(r rows), or the largest pool r
 * rows take if that is less; the first shrinks and the second grows with r, so the best r
 * is where they cross: every row count is tried (ROW_COUNT steps at most, each O(1)).
 * 0 when not even one smallest block fits.
 */
TLSF_NO_ASAN size_t tlsf_compact_pool_bytes(size_t bytes) {
    size_t best = 0;
    unsigned rows;
    for (rows = 1; rows <= ROW_COUNT; ++rows) {
        size_t control = control_bytes_for((size_t)rows << TLSF_SL_INDEX_LOG2);
        /* (Rounded up: the largest aligned pool whose block still fits the rows; see
         * COMPACT_POOL_MIN.) */
        size_t pool, cap = (rows_pool_bytes(rows) + TLSF_ALIGN - 1) & ~(TLSF_ALIGN - 1);
        if (bytes < control + COMPACT_POOL_MIN) break; /* and with more rows */
        pool = (bytes - control) & ~(TLSF_ALIGN - 1);
        if (pool > cap) pool = cap;
        if (pool > best) best = pool;
    }
    return best;
}

TLSF_NO_ASAN tlsf_t tlsf_create_compact(void *mem, size_t bytes) {
    size_t pool = tlsf_compact_pool_bytes(bytes);
    tlsf_t heap;
    if (pool == 0) return NULL; /* before anything is written */
    heap = tlsf_create_sized(mem, pool);
    if (heap == NULL || tlsf_add_pool(heap, (char *)mem + tlsf_size_for(pool), pool) == NULL)
        return NULL;
    return heap;
}

TLSF_NO_ASAN void tlsf_destroy(tlsf_t heap) {
    /* The heap owns nothing but the caller's memory; cached blocks go back to the lists so
     * that a pool walked afterwards shows what the user freed as free. */
    if (heap != NULL) tlsfi_flush(heap);
}

TLSF_NO_ASAN pool_t tlsf_get_pool(tlsf_t heap) {
    return heap ? (pool_t)(void *)((char *)heap + heap_control_bytes(heap)) : NULL;
}

TLSF_NO_ASAN pool_t tlsf_add_pool(tlsf_t heap, void *mem, size_t bytes) {
    size_t span, room;
    block_t *block, *sentinel;
    /* The first block's span less MIN_SPAN (a multiple of the alignment, as MIN_SPAN is).
     * Too few bytes wrap the subtraction around to a huge value: one range test covers
     * both ends. (A NULL heap is reported too: tlsfi_report ignores it.) */
    room = (bytes - POOL_OVERHEAD - MIN_SPAN) & ~(TLSF_ALIGN - 1);
    if (heap == NULL || mem == NULL || ((uintptr_t)mem & (TLSF_ALIGN - 1)) ||
        room > heap->pool_span_room) {
        tlsfi_report(heap, TLSF_ERROR_BAD_POOL, mem);
        return NULL;
    }
    span = room + MIN_SPAN;
    block = pool_first_block(mem);
    sentinel = block_at(block, span);
    block_set_word(heap, block, span | BLOCK_FREE);
    *slot_prev_phys(sentinel) = block;
    *slot_prev_phys(block) = sentinel;
    block_set_word(heap, sentinel, BLOCK_PREV_FREE);
#if TLSF_CACHE && !TLSF_CACHE_MARKS
    *slot_pool_owner(sentinel) = heap;
#endif
    tlsfi_insert(heap, block, span);
    heap->pool_bytes += span;
    heap->pool_count++;
#if TLSF_CHECKS >= 2
    pools_hull_add(heap, (uintptr_t)mem, (uintptr_t)sentinel + SENTINEL_SIZE);
#endif
    /* Nothing in the pool is the user's yet (the bytes past the sentinel stay theirs). */
    asan_poison(mem, (size_t)((char *)sentinel + SENTINEL_SIZE - (char *)mem));
    valgrind_no_access(mem, (size_t)((char *)sentinel + SENTINEL_SIZE - (char *)mem));
    return (pool_t)mem;
}

TLSF_NO_ASAN void tlsf_remove_pool(tlsf_t heap, pool_t pool) {
    block_t *block;
    size_t word, bytes;
    if (heap == NULL || pool == NULL) return;
#if TLSF_CHECKS >= 2
    /* A pool of this heap lies in its pools' range and starts with a block it sealed;
     * another heap's pool, or memory that is no pool, is refused before anything changes. */
    if (!heap_holds(heap, pool) || ((uintptr_t)pool & (TLSF_ALIGN - 1)) ||
        !block_header_intact(heap, pool_first_block(pool)) ||
        !pool_end_sound(heap, pool_first_block(pool))) {
        tlsfi_report(heap, TLSF_ERROR_BAD_POOL, pool);
        return;
    }
#endif
    tlsfi_flush(heap); /* cached blocks may be all that keeps the pool from being empty */
    block = pool_first_block(pool);
    word = *slot_size(block);
    /* Empty means: the first block is free and the sentinel follows it. */
    if (!(word & BLOCK_FREE) || block_at(block, word_span(word)) != pool_sentinel(block)) {
        tlsfi_report(heap, TLSF_ERROR_POOL_IN_USE, pool);
        return;
    }
    if (!free_links_sound(heap, block)) {
        tlsfi_report(heap, TLSF_ERROR_CORRUPT_LIST, pool);
        return;
    }
    free_list_remove(heap, block);
    *slot_prev_phys(block) = NULL; /* a second removal of this pool is then reported */
    bytes = (size_t)((char *)block + word_span(word) + SENTINEL_SIZE - (char *)pool);
    asan_unpoison(pool, bytes);
    valgrind_undefined(pool, bytes); /* the caller's again, contents unspecified */
    heap->pool_bytes -= word_span(word);
    heap->pool_count--;
}
