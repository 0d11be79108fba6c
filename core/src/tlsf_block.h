/* SPDX-License-Identifier: MIT */
/*
 * tlsf_block.h - the layout of a block inside a pool.
 *
 * A pool is a chain of blocks in address order, ended by a zero-size sentinel. A block
 * starting at address b looks like this (W = one machine word):
 *
 *   b + 0   prev_phys  the previous block, valid only while that block is free
 *   b + W   size word  the block's span (bytes from b to the next block) | flags
 *                      (| the seal in the high bits, TLSF_SEAL_IN_WORD)
 *   b + 2W  user data  ... (the pointer tlsf_malloc returns)
 *           next_free  } only while the block is free: its links in the
 *           prev_free  } doubly linked list of its size class
 *
 * The next block's prev_phys word lies just past this block's span. While this block is
 * in use nobody needs a pointer back to it, so that word belongs to its user data:
 * usable size = span - W, and the overhead of an allocated block is the one size word.
 *
 * Invariants (checked by tlsf_check_pool):
 *   - every span is a multiple of TLSF_ALIGN and at least MIN_SPAN (the sentinel: 0);
 *   - every block's user pointer, b + HEADER_SIZE, is aligned to TLSF_ALIGN;
 *   - no two free blocks are adjacent: free coalesces at once, so a free block's
 *     neighbours are both in use and its size word has no PREV_FREE flag;
 *   - a block's PREV_FREE flag is set exactly when the block before it is free, and then
 *     its prev_phys points at that block;
 *   - the sentinel is "in use", so coalescing never runs off the end of a pool.
 *
 * Memory is accessed through typed slots (block_t ** and size_t *), not struct members,
 * so that a free-list head in the control structure and a link inside a block are the
 * same C type and the compiler may not assume they never alias.
 */
#ifndef TLSF_BLOCK_H
#define TLSF_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "tlsf_sanitize.h"

/* A block, only ever addressed through the slot accessors below. */
typedef struct tlsf_block block_t;

#define TLSF_WORD ((size_t)sizeof(size_t))
#define TLSF_ALIGN ((size_t)1 << TLSF_ALIGN_LOG2)

enum {
    /* Flags in the low bits of the size word (spans are multiples of TLSF_ALIGN >= 8). */
    BLOCK_FREE = 1,      /* this block is free (in a free list) */
    BLOCK_PREV_FREE = 2, /* the block before this one is free */
    BLOCK_ALIGNED = 4,   /* made by memalign: its last word records the alignment */
    /* Reserved for the layer above (tlsf_slab.h), where 16-byte alignment leaves a fourth
     * flag bit and the configuration has slabs (TLSF_SLABS): the block is a slab, or an
     * object cut from one, whose insides that layer owns. 0 elsewhere: every test of it
     * then folds away. TLSF itself only keeps such blocks out of its lists. */
    BLOCK_CARVED = TLSF_SLABS ? 8 : 0
};
#define BLOCK_FLAGS (TLSF_ALIGN - 1)

/*
 * BLOCK_PARKED: the block is in use to its neighbours (BLOCK_FREE is clear, so nothing
 * merges with it) but its user gave it back: a layer above TLSF holds it (the front cache,
 * tlsf_cache.h; a slab's free list, tlsf_slab.h). It is the bit just above the largest span
 * (spans stay below 2^TLSF_MAX_BLOCK_LOG2 <= 2^(TLSF_PTR_BITS - 2)), out of reach of an
 * overflow of a byte or two into the header. Only blocks in use carry it, so word_span
 * never sees it outside those layers and the walks.
 */
#define BLOCK_PARKED ((size_t)1 << TLSF_MAX_BLOCK_LOG2)

/* Sealed headers (TLSF_CHECKS >= 2, see tlsf_seal.h for the seal itself): where the size
 * word has at least 16 bits above the largest span and BLOCK_PARKED, the seal fills them
 * (TLSF_SEAL_IN_WORD, tlsf_config.h) and the header keeps its two words; elsewhere it takes
 * a word of its own after the size word, padded to the alignment. */
/* The bits of a size word below the seal: span, flags and BLOCK_PARKED. */
#if TLSF_SEAL_IN_WORD
#define WORD_LOW_MASK ((BLOCK_PARKED << 1) - 1)
#else
#define WORD_LOW_MASK (~(size_t)0)
#endif

/* From the block start to the user pointer: prev_phys and the size word, and a seal word
 * (padded to the alignment) when the seal does not fit in the size word. */
#define HEADER_SIZE ((size_t)TLSF_HEADER_BYTES)
/* Offset of the first block in an aligned pool, so that its user pointer is aligned. */
#define POOL_START_OFFSET ((TLSF_ALIGN - HEADER_SIZE % TLSF_ALIGN) % TLSF_ALIGN)
/* Header bytes an allocated block costs: its header less the next block's prev_phys
 * word, which the block borrows for user data. */
#define BLOCK_OVERHEAD (HEADER_SIZE - TLSF_WORD)
/* The end sentinel needs its prev_phys and size words, and without cache marks a word for
 * the heap that owns the pool (TLSF_CACHE_MARKS, tlsf_config.h). */
#define SENTINEL_SIZE ((size_t)TLSF_SENTINEL_BYTES_)
/* A free block must hold its header and two list links. */
#define MIN_SPAN ((HEADER_SIZE + 2 * TLSF_WORD + TLSF_ALIGN - 1) & ~(TLSF_ALIGN - 1))
/* A block carved by the layer above (BLOCK_CARVED without BLOCK_ALIGNED: a slab object,
 * tlsf_slab.h) needs only its size word and one link: 16 bytes on 64-bit targets. */
#define CARVED_MIN_SPAN ((size_t)TLSF_ALIGN)

/* Each accessor passes its word through metadata_word (tlsf_sanitize.h), which under
 * valgrind makes it accessible first: all of the heap's accesses to headers and links go
 * through these, so none of them is an error for memcheck. */
static inline TLSF_NO_ASAN block_t **slot_prev_phys(block_t *block) {
    return (block_t **)metadata_word(block);
}
static inline TLSF_NO_ASAN size_t *slot_size(block_t *block) {
    return (size_t *)metadata_word((char *)block + TLSF_WORD);
}
/* Only with a seal word of its own (TLSF_CHECKS >= 2, !TLSF_SEAL_IN_WORD): the seal. */
static inline TLSF_NO_ASAN size_t *slot_seal(block_t *block) {
    return (size_t *)metadata_word((char *)block + 2 * TLSF_WORD);
}
static inline TLSF_NO_ASAN block_t **slot_next_free(block_t *block) {
    return (block_t **)metadata_word((char *)block + HEADER_SIZE);
}
static inline TLSF_NO_ASAN block_t **slot_prev_free(block_t *block) {
    return (block_t **)metadata_word((char *)block + HEADER_SIZE + TLSF_WORD);
}
/* The heap that owns the pool of the end sentinel `sentinel` (only where cached blocks carry
 * no mark: TLSF_CACHE_MARKS == 0, see SENTINEL_SIZE). */
static inline TLSF_NO_ASAN tlsf_t *slot_pool_owner(block_t *sentinel) {
    return (tlsf_t *)metadata_word((char *)sentinel + HEADER_SIZE);
}
/* The span recorded in the size word of a block that is not parked. With sealed headers
 * BLOCK_PARKED is left out as well: it is the one bit the seal does not cover
 * (tlsf_seal.h), so a write that sets it in the header of a block in use or a free one must
 * not make the span the checks vouched for larger. (Where the seal shares the word, the
 * mask that drops the seal drops it too; below level 2 nothing is sealed and nothing
 * vouched for.) */
static inline TLSF_NO_ASAN size_t word_span(size_t word) {
#if TLSF_SEAL_IN_WORD
    return word & (BLOCK_PARKED - 1) & ~BLOCK_FLAGS;
#elif TLSF_CHECKS >= 2
    return word & ~(BLOCK_FLAGS | BLOCK_PARKED);
#else
    return word & ~BLOCK_FLAGS;
#endif
}

/* The span recorded in any size word, a parked block's included (walks and checks). */
static inline TLSF_NO_ASAN size_t word_span_any(size_t word) {
    return word_span(word & ~BLOCK_PARKED);
}

/* The block `offset` bytes after `block` (the next one, when offset is its span). */
static inline TLSF_NO_ASAN block_t *block_at(block_t *block, size_t offset) {
    return (block_t *)(void *)((char *)block + offset);
}

static inline TLSF_NO_ASAN void *block_to_ptr(block_t *block) {
    return (char *)block + HEADER_SIZE;
}
static inline TLSF_NO_ASAN block_t *block_from_ptr(const void *ptr) {
    return (block_t *)(void *)((char *)(uintptr_t)ptr - HEADER_SIZE);
}

/* The first block of the pool whose (aligned) memory starts at `mem`. */
static inline TLSF_NO_ASAN block_t *pool_first_block(void *mem) {
    return (block_t *)(void *)((char *)mem + POOL_START_OFFSET);
}

/* The end sentinel of the pool whose first block is `first`: nothing precedes a pool's
 * first block, so its prev_phys word records where the pool ends (tlsf_pool.c), and the
 * walk and the checks need not trust the sizes they are checking to find it. */
static inline TLSF_NO_ASAN block_t *pool_sentinel(block_t *first) {
    return *slot_prev_phys(first);
}

/*
 * A memalign'd block keeps log2 of its alignment in its last usable word (the slot that
 * is the next block's prev_phys), so realloc can keep the alignment when it moves the
 * block. Such a block offers one word less to its user.
 */
static inline TLSF_NO_ASAN size_t *slot_alignment_log2(block_t *block, size_t span) {
    return (size_t *)metadata_word((char *)block + span);
}

/* Usable bytes of an allocated block with size word `word`: its span from the user
 * pointer on, plus the next block's prev_phys word, less the alignment record. */
static inline TLSF_NO_ASAN size_t block_usable(size_t word) {
    return word_span(word) - BLOCK_OVERHEAD - ((word & BLOCK_ALIGNED) ? TLSF_WORD : 0);
}

/* The bytes of an allocated block that valgrind tracks as a heap block: up to the next
 * block's start (see tlsf_sanitize.h). */
static inline TLSF_NO_ASAN size_t block_tracked(size_t word) {
    return word_span(word) - HEADER_SIZE;
}

/* The user pointer of a block being handed out (malloc, memalign): its usable bytes become
 * the user's for ASan and valgrind (everything else in a pool stays theirs), then get the
 * fresh pattern (TLSF_FILL). */
static inline TLSF_NO_ASAN void *block_hand_out(block_t *block) {
    void *ptr = block_to_ptr(block);
    size_t word = *slot_size(block);
    size_t usable = block_usable(word);
    asan_unpoison(ptr, usable);
    valgrind_block_alloc(ptr, block_tracked(word), usable);
    fill_fresh(ptr, usable);
    return ptr;
}

/*
 * The user pointer of a block that realloc resized in place from size word `old_word` (its
 * header now holds the new one). Growing: the added bytes become the user's and get the
 * fresh pattern. Shrinking: the bytes given up are now the start of the free block that
 * follows; the part of them the heap does not use (after that block's header and links)
 * gets the free pattern, and they stop being the user's. The contents kept are untouched.
 */
static inline TLSF_NO_ASAN void *block_resized(block_t *block, size_t old_word) {
    void *ptr = block_to_ptr(block);
    size_t word = *slot_size(block);
    size_t old_usable = block_usable(old_word);
    size_t usable = block_usable(word);
    if (usable < old_usable) {
        /* The free tail starts at the new span; the old span's end is where the user's
         * bytes ended (the word after is the next block's, or the tail's back-link). */
        char *tail = (char *)block + word_span(word);
        char *end = (char *)block + word_span(old_word);
        fill_freed(tail + HEADER_SIZE + 2 * TLSF_WORD,
                   (size_t)(end - (tail + HEADER_SIZE + 2 * TLSF_WORD)));
    }
    asan_poison(ptr, old_usable);
    asan_unpoison(ptr, usable);
    valgrind_block_resize(ptr, block_tracked(old_word), old_usable, block_tracked(word), usable);
    if (usable > old_usable) fill_fresh((char *)ptr + old_usable, usable - old_usable);
    return ptr;
}

#endif /* TLSF_BLOCK_H */
