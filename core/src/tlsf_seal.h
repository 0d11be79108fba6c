/* SPDX-License-Identifier: MIT */
/*
 * tlsf_seal.h - sealed headers (TLSF_CHECKS >= 2): every size word the heap writes carries
 * a hash of itself, the block's address and the heap's key, so that a header the heap did
 * not write is recognised. Below level 2 writing a header is a plain store and every header
 * counts as intact.
 *
 * Every write of a size word goes through block_set_word (or, for the two flags the seal
 * leaves out, block_set_exempt_flags); every question "did this heap write this header"
 * through block_header_intact.
 */
#ifndef TLSF_SEAL_H
#define TLSF_SEAL_H

#include "tlsf_control.h"

/*
 * The seal of a header (TLSF_CHECKS >= 2): a hash of the block's address, the span and
 * flags of its size word, and the heap's key. Two flags are left out (SEAL_EXEMPT), so
 * that the frequent changes of a neighbour's PREV_FREE and of a block's PARKED are plain
 * stores, not a new seal: BLOCK_PREV_FREE is only ever trusted after the previous block's
 * own seal and adjacency are checked (tlsf_checks.h), and BLOCK_PARKED sits next to span
 * bits, so no overflow reaches it without changing a sealed bit. A pointer into another heap, into
 * the middle of a block, to memory no heap wrote, or a header changed by an overflow fails the
 * check unless the hash collides (2^-27 with the seal in a 64-bit word, 2^-32 with a seal word).
 * One multiply by an odd constant carries every input bit into the high bits, which are
 * the ones kept when the seal shares the size word.
 */
#if TLSF_PTR_BITS == 64
#define SEAL_MULTIPLIER ((size_t)0x9E3779B97F4A7C15u)
#else
#define SEAL_MULTIPLIER ((size_t)0x9E3779B9u)
#endif
#define SEAL_EXEMPT ((size_t)BLOCK_PREV_FREE | BLOCK_PARKED)
#if TLSF_SEAL_IN_WORD
/*
 * The seal in the size word's top SEAL_BITS bits. The span and flags below BLOCK_PARKED
 * are shifted to the top of the word first (which drops the seal bits and BLOCK_PARKED
 * without a mask constant), so that after the multiply every one of them, the address and
 * the key reach the top bits kept as the seal.
 */
#define SEAL_SHIFT (TLSF_MAX_BLOCK_LOG2 + 1) /* the seal's lowest bit */
#define SEAL_BITS (TLSF_PTR_BITS - SEAL_SHIFT)
static inline TLSF_NO_ASAN size_t seal_of(tlsf_t heap, block_t *block, size_t word) {
    size_t sealed_low = (word << (TLSF_PTR_BITS - TLSF_MAX_BLOCK_LOG2)) &
                        ~((size_t)BLOCK_PREV_FREE << (TLSF_PTR_BITS - TLSF_MAX_BLOCK_LOG2));
    return ((sealed_low ^ (size_t)(uintptr_t)block ^ heap->seal_key) * SEAL_MULTIPLIER) >>
           SEAL_SHIFT;
}
#elif TLSF_CHECKS >= 2
/* The seal word of the size word `word`. */
static inline TLSF_NO_ASAN size_t seal_of(tlsf_t heap, block_t *block, size_t word) {
    return ((size_t)(uintptr_t)block ^ heap->seal_key ^ (word & ~SEAL_EXEMPT)) * SEAL_MULTIPLIER;
}
#endif

/* Write a block's size word: span and flags (any seal bits in `word` are dropped), sealed
 * in checked builds. */
static inline TLSF_NO_ASAN void block_set_word(tlsf_t heap, block_t *block, size_t word) {
#if TLSF_SEAL_IN_WORD
    size_t low = word & WORD_LOW_MASK;
    *slot_size(block) = low | (seal_of(heap, block, low) << SEAL_SHIFT);
#elif TLSF_CHECKS >= 2
    *slot_size(block) = word;
    *slot_seal(block) = seal_of(heap, block, word);
#else
    (void)heap;
    *slot_size(block) = word;
#endif
}

/* Change only the flags of SEAL_EXEMPT in a size word: `word` is the word as read from the
 * block's header (seal bits included) with those flags changed, so the seal still holds. */
static inline TLSF_NO_ASAN void block_set_exempt_flags(block_t *block, size_t word) {
    *slot_size(block) = word;
}

/* Does the block's header hold what this heap wrote? Always true below TLSF_CHECKS 2. */
static inline TLSF_NO_ASAN int block_header_intact(tlsf_t heap, block_t *block) {
#if TLSF_SEAL_IN_WORD
    size_t word = *slot_size(block);
    return seal_of(heap, block, word) == word >> SEAL_SHIFT;
#elif TLSF_CHECKS >= 2
    return *slot_seal(block) == seal_of(heap, block, *slot_size(block));
#else
    (void)heap;
    (void)block;
    return 1;
#endif
}

#if TLSF_CHECKS >= 2
/* Is the block's header, which failed block_header_intact, one a merge left inside the
 * free block before it: the word the block had in use with BLOCK_FREE added, under the
 * seal made for that word (core_release)? For the checks' error path (tlsfi_report), to
 * name a second free of a merged block a double free. */
static inline TLSF_NO_ASAN int block_header_absorbed(tlsf_t heap, block_t *block) {
    size_t word = *slot_size(block);
#if TLSF_SEAL_IN_WORD
    return (word & BLOCK_FREE) &&
           seal_of(heap, block, word & ~(size_t)BLOCK_FREE) == word >> SEAL_SHIFT;
#else
    return (word & BLOCK_FREE) &&
           *slot_seal(block) == seal_of(heap, block, word & ~(size_t)BLOCK_FREE);
#endif
}
#endif

#endif /* TLSF_SEAL_H */
