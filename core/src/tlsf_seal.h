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
 * The seal of a header (TLSF_CHECKS >= 2): a keyed hash of the block's address and of the
 * span and flags of its size word. One flag is left out (SEAL_EXEMPT): BLOCK_PARKED, which
 * the cache and the slabs set and clear on every push and pop, so that those are plain
 * stores; it sits next to span bits, so no overflow of a byte or two reaches it without
 * changing a sealed bit. Every other bit is sealed, BLOCK_PREV_FREE included: a write that
 * changes only that flag of the next header (the last byte a one-byte overflow reaches on
 * a little-endian machine) breaks the seal like any other.
 *
 * The hash: the address, mixed with the heap's key, is multiplied by one odd constant; the
 * size word's bits are added (xor) to that product and the sum multiplied by a second odd
 * constant, whose high bits are the seal. Address and word never meet before a multiply,
 * so no change of an address bit can be cancelled by a change of a word bit (a hash of
 * their xor could be: the same header copied to an address that differs in bit 28 + k,
 * with bit k of its word flipped, kept its seal). And the key enters through carries, so
 * without it no one can compute which headers a copy to another address would need.
 *
 * Strength (the promise of tlsf.h): a header this heap did not write for this address -
 * a pointer into another heap (or an earlier heap in the same memory, whose key differs,
 * tlsf_create), into the middle of a block, to memory no heap wrote, a header changed by an
 * overflow or copied elsewhere - passes only if the seal collides: with probability about
 * 2^-(SEAL_BITS) (2^-27 with the seal in a 64-bit word) or 2^-32 with a seal word, for a
 * program that does not know the key. A deliberate attacker who can read the heap's
 * memory can learn the key and forge headers: the seal detects bugs and makes blind
 * corruption fail, it is no defence against an attacker with a read primitive.
 */
#if TLSF_PTR_BITS == 64
#define SEAL_ADDRESS_MULTIPLIER ((size_t)0x9E3779B97F4A7C15u)
#define SEAL_MULTIPLIER ((size_t)0xD6E8FEB86659FD93u)
#else
#define SEAL_ADDRESS_MULTIPLIER ((size_t)0x9E3779B9u)
#define SEAL_MULTIPLIER ((size_t)0x85EBCA6Bu)
#endif
#define SEAL_EXEMPT ((size_t)BLOCK_PARKED)

#if TLSF_CHECKS >= 2
/* The address part of every seal of `block`: its address and the key, mixed. */
static inline TLSF_NO_ASAN size_t seal_address(tlsf_t heap, block_t *block) {
    return ((size_t)(uintptr_t)block ^ heap->seal_key) * SEAL_ADDRESS_MULTIPLIER;
}
#endif

#if TLSF_SEAL_IN_WORD
/*
 * The seal in the size word's top SEAL_BITS bits. The span and flags below BLOCK_PARKED
 * are shifted to the top of the word first (which drops the seal bits and BLOCK_PARKED
 * without a mask constant), so that after the multiply every one of them reaches the top
 * bits kept as the seal.
 */
#define SEAL_SHIFT (TLSF_MAX_BLOCK_LOG2 + 1) /* the seal's lowest bit */
#define SEAL_BITS (TLSF_PTR_BITS - SEAL_SHIFT)
static inline TLSF_NO_ASAN size_t seal_of(tlsf_t heap, block_t *block, size_t word) {
    size_t sealed_low = word << (TLSF_PTR_BITS - TLSF_MAX_BLOCK_LOG2);
    return ((seal_address(heap, block) ^ sealed_low) * SEAL_MULTIPLIER) >> SEAL_SHIFT;
}
#elif TLSF_CHECKS >= 2
/* The seal word of the size word `word`. */
static inline TLSF_NO_ASAN size_t seal_of(tlsf_t heap, block_t *block, size_t word) {
    return (seal_address(heap, block) ^ (word & ~SEAL_EXEMPT)) * SEAL_MULTIPLIER;
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

/* Set or clear BLOCK_PREV_FREE in the header of `block`, whose size word as read is
 * `word`: a plain store below TLSF_CHECKS 2, a new seal with it. */
static inline TLSF_NO_ASAN void block_set_prev_free(tlsf_t heap, block_t *block, size_t word,
                                                    int prev_free) {
    size_t changed = prev_free ? word | BLOCK_PREV_FREE : word & ~(size_t)BLOCK_PREV_FREE;
#if TLSF_CHECKS >= 2
    block_set_word(heap, block, changed);
#else
    (void)heap;
    block_set_exempt_flags(block, changed);
#endif
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
    /* Only a block that merged into the free block before it leaves such a header, and its
     * word in use said so (BLOCK_PREV_FREE): an overflow that set BLOCK_FREE in the header
     * of a block after one in use is no double free. */
    if (!(word & BLOCK_PREV_FREE)) return 0;
#if TLSF_SEAL_IN_WORD
    return (word & BLOCK_FREE) &&
           seal_of(heap, block, word & ~(size_t)BLOCK_FREE) == word >> SEAL_SHIFT;
#else
    return (word & BLOCK_FREE) &&
           *slot_seal(block) == seal_of(heap, block, word & ~(size_t)BLOCK_FREE);
#endif
}
#endif

#if TLSF_CHECKS >= 2
/* Is the header of `block`, which failed block_header_intact, one this heap sealed with one
 * flag changed since: BLOCK_FREE, BLOCK_PREV_FREE, BLOCK_ALIGNED or BLOCK_CARVED flipped,
 * as a write of one byte past the end of the block before does? For the checks' error path
 * (tlsfi_report), to name it a corrupt block rather than a bad pointer. */
static inline TLSF_NO_ASAN int seal_holds_for(tlsf_t heap, block_t *block, size_t original) {
#if TLSF_SEAL_IN_WORD
    return seal_of(heap, block, original & WORD_LOW_MASK) == *slot_size(block) >> SEAL_SHIFT;
#else
    return *slot_seal(block) == seal_of(heap, block, original);
#endif
}
static inline TLSF_NO_ASAN int block_header_flag_changed(tlsf_t heap, block_t *block) {
    size_t word = *slot_size(block);
    /* Four fixed tests (no loop: the static proof follows every path of the checks). */
    return seal_holds_for(heap, block, word ^ BLOCK_FREE) ||
           seal_holds_for(heap, block, word ^ BLOCK_PREV_FREE) ||
           seal_holds_for(heap, block, word ^ BLOCK_ALIGNED) ||
           (BLOCK_CARVED != 0 && seal_holds_for(heap, block, word ^ (size_t)BLOCK_CARVED));
}
#endif

#endif /* TLSF_SEAL_H */
