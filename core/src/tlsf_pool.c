/* SPDX-License-Identifier: MIT */
/*
 * tlsf_pool.c - creating heaps, adding and removing pools, walking a pool's blocks.
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
#include "tlsf_heap.h"
#include "tlsf_slab.h"

#define POOL_OVERHEAD (POOL_START_OFFSET + SENTINEL_SIZE)

/* The sentinel of the pool whose first block is `first` (see the top of this file). */
static TLSF_NO_ASAN block_t *pool_sentinel(block_t *first) {
    return *slot_prev_phys(first);
}

TLSF_NO_ASAN tlsf_t tlsf_create(void *mem) {
    tlsf_t heap = (tlsf_t)mem;
    size_t *word = (size_t *)mem;
    size_t words = offsetof(struct tlsf_heap, heads) / sizeof(size_t);
    if (mem == NULL || ((uintptr_t)mem & (TLSF_ALIGN - 1))) return NULL;
    /* Bitmaps, statistics and handler only: a list head's words are used only while its
     * bitmap bit is set, so the heads need no initialisation. A plain loop of a fixed
     * count rather than memset keeps the C library's memset out of small images. */
    while (words--)
        *word++ = 0;
#if TLSF_CHECKS >= 2
    /* Any value that differs between heaps will do; the address does, and the multiply
     * spreads it over the whole word. */
    heap->seal_key = (size_t)(uintptr_t)heap * SEAL_MULTIPLIER ^ (size_t)0x5a17c0deu;
#endif
#if TLSF_CACHE
    heap->cache.limit = heap->cache.room = TLSF_CACHE_BYTES;
#endif
    return heap;
}

TLSF_NO_ASAN tlsf_t tlsf_create_with_pool(void *mem, size_t bytes) {
    tlsf_t heap;
    if (bytes < tlsf_size()) return NULL; /* before tlsf_create writes anything */
    heap = tlsf_create(mem);
    if (heap == NULL || tlsf_add_pool(heap, tlsf_get_pool(heap), bytes - tlsf_size()) == NULL)
        return NULL;
    return heap;
}

TLSF_NO_ASAN void tlsf_destroy(tlsf_t heap) {
    /* The heap owns nothing but the caller's memory; cached blocks go back to the lists so
     * that a pool walked afterwards shows what the user freed as free. */
    tlsf_cache_flush(heap);
}

TLSF_NO_ASAN pool_t tlsf_get_pool(tlsf_t heap) {
    return heap ? (pool_t)(void *)((char *)heap + tlsf_size()) : NULL;
}

TLSF_NO_ASAN pool_t tlsf_add_pool(tlsf_t heap, void *mem, size_t bytes) {
    size_t span;
    block_t *block, *sentinel;
    if (heap == NULL) return NULL;
    /* Too few bytes wrap the subtraction around to a huge span: one range test covers
     * both ends. */
    span = (bytes - POOL_OVERHEAD) & ~(TLSF_ALIGN - 1);
    if (mem == NULL || ((uintptr_t)mem & (TLSF_ALIGN - 1)) ||
        span - MIN_SPAN > MAX_SPAN - MIN_SPAN) {
        tlsf_report(heap, TLSF_ERROR_BAD_POOL, mem);
        return NULL;
    }
    block = pool_first_block(mem);
    sentinel = block_at(block, span);
    block_set_word(heap, block, span | BLOCK_FREE);
    *slot_prev_phys(sentinel) = block;
    *slot_prev_phys(block) = sentinel;
    block_set_word(heap, sentinel, BLOCK_PREV_FREE);
#if TLSF_CACHE && !TLSF_CACHE_MARKS
    *slot_pool_owner(sentinel) = heap;
#endif
    tlsf_insert_free_block(heap, block, span);
    heap->pool_bytes += span;
    heap->pool_count++;
    /* Nothing in the pool is the user's yet (the bytes past the sentinel stay theirs). */
    asan_poison(mem, (size_t)((char *)sentinel + SENTINEL_SIZE - (char *)mem));
    valgrind_no_access(mem, (size_t)((char *)sentinel + SENTINEL_SIZE - (char *)mem));
    return (pool_t)mem;
}

TLSF_NO_ASAN void tlsf_remove_pool(tlsf_t heap, pool_t pool) {
    block_t *block;
    size_t word, bytes;
    if (heap == NULL || pool == NULL) return;
    tlsf_cache_flush(heap); /* cached blocks may be all that keeps the pool from being empty */
    block = pool_first_block(pool);
    word = *slot_size(block);
    /* Empty means: the first block is free and the sentinel follows it. */
    if (!(word & BLOCK_FREE) || block_at(block, word_span(word)) != pool_sentinel(block)) {
        tlsf_report(heap, TLSF_ERROR_POOL_IN_USE, pool);
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
    tlsf_cache_mark(*slot_pool_owner(sentinel), 1);
#endif
    while (block != sentinel) {
        size_t word = *slot_size(block);
        size_t span = word_span_any(word);
        if (!span_fits(block, span, sentinel)) break; /* damage: stop rather than run off */
        if (word & (BLOCK_FREE | BLOCK_CACHED))       /* a cached block is free to its user */
            walker(block_to_ptr(block), span - HEADER_SIZE + TLSF_WORD, 0, user);
        else if (!slab_object(word) ||
                 !tlsf_slab_walk(block, walker, user)) /* a slab: its objects */
            walker(block_to_ptr(block), block_usable(word), 1, user);
        block = block_at(block, span);
    }
#if TLSF_CACHE && !TLSF_CACHE_MARKS
    tlsf_cache_mark(*slot_pool_owner(sentinel), 0);
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
        errors += is_free && (word & (BLOCK_ALIGNED | BLOCK_CACHED | BLOCK_SLAB)) != 0;
        if (!is_free && slab_object(word)) errors += tlsf_slab_check_block(block);
        prev_free = is_free;
        prev = block;
        block = block_at(block, span);
    }
    return errors;
}
