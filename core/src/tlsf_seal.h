/* SPDX-License-Identifier: MIT */
/*
 * tlsf_seal.h - sealed headers and encoded links (TLSF_CHECKS >= 2): every size word the
 * heap writes carries a hash of itself, the block's address and the heap's key, so that a
 * header the heap did not write is recognised; every link a user could overwrite (those of
 * the cache and the slabs) is stored encoded with the key and bound to its block's header.
 * Below level 2 writing a header is a plain store, every header counts as intact and links
 * are stored as they are.
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
 * The hash: the address is multiplied by the heap's key (odd, new at each creation); the
 * size word's bits are added (xor) to that product and the sum multiplied by an odd
 * constant, whose high bits are the seal. Address and word never meet before a multiply,
 * so no change of an address bit can be cancelled by a change of a word bit that does not
 * depend on the key (a hash of their xor could be: the same header copied to an address
 * that differs in bit 28 + k, with bit k of its word flipped, kept its seal). And since
 * the key is the multiplier, without it no one can compute which headers a copy to another
 * address would need. (One multiply by a value the heap holds: no key to mix in first.)
 *
 * Strength (the promise of tlsf.h): a header this heap did not write for this address (for
 * a slab object's tag: for this slab, seal_site below) - a pointer into another heap (or an earlier
 * heap in the same memory, whose key differs, tlsf_create), into the middle of a block, to memory
 * no heap wrote, a header changed by an overflow or copied elsewhere - passes only if the seal
 * collides: with probability about 2^-(SEAL_BITS) (2^-27 with the seal in a 64-bit word) or 2^-32
 * with a seal word, for a program that does not know the key. A deliberate attacker who can read
 * the heap's memory can learn the key and forge headers: the seal detects bugs and makes blind
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

/*
 * The site a seal binds a header to: the block's own address, except for a slab object's
 * tag (a carved word without BLOCK_ALIGNED, which the slab's own header has), which is
 * bound to its slab: the start of the region of heap->slabs.bytes (a power of two, fixed
 * while any slab exists) its user pointer lies in. Every object of a slab thus has the
 * same sealed tag, so that a fresh object's tag is a copy and the tag after an object is
 * checked by a comparison (tlsf_slab.h). What the seal still tells apart: a tag in another
 * slab or another heap, a tag changed by an overflow, a word no heap wrote; a copy of this
 * slab's tag at another place in it is a tag (the user never sees one, and objects lie at
 * fixed places in their slab).
 */
static inline TLSF_NO_ASAN int sealed_per_slab(size_t word) {
    return TLSF_SLABS && (word & (BLOCK_CARVED | BLOCK_ALIGNED)) == BLOCK_CARVED;
}
static inline TLSF_NO_ASAN uintptr_t slab_site(tlsf_t heap, block_t *block) {
#if TLSF_SLABS
    return ((uintptr_t)block + HEADER_SIZE) & ~(uintptr_t)(heap->slabs.bytes - 1);
#else
    (void)heap;
    return (uintptr_t)block;
#endif
}
static inline TLSF_NO_ASAN uintptr_t seal_site(tlsf_t heap, block_t *block, size_t word) {
    return sealed_per_slab(word) ? slab_site(heap, block) : (uintptr_t)block;
}

#if TLSF_SEAL_IN_WORD
/*
 * The seal in the size word's top SEAL_BITS bits. The span and flags below BLOCK_PARKED
 * are shifted to the top of the word first (which drops the seal bits and BLOCK_PARKED
 * without a mask constant), so that after the multiply every one of them reaches the top
 * bits kept as the seal.
 */
#define SEAL_SHIFT (TLSF_MAX_BLOCK_LOG2 + 1) /* the seal's lowest bit */
#define SEAL_BITS (TLSF_PTR_BITS - SEAL_SHIFT)
/* The hash whose top SEAL_BITS bits are the seal of `word` at `site`. */
static inline TLSF_NO_ASAN size_t seal_hash(tlsf_t heap, uintptr_t site, size_t word) {
    size_t sealed_low = word << (TLSF_PTR_BITS - TLSF_MAX_BLOCK_LOG2);
    return ((size_t)site * heap->seal_key ^ sealed_low) * SEAL_MULTIPLIER;
}
/* The seal of `word` at `site`, and of `word` as the header of `block`. */
static inline TLSF_NO_ASAN size_t seal_at(tlsf_t heap, uintptr_t site, size_t word) {
    return seal_hash(heap, site, word) >> SEAL_SHIFT;
}
static inline TLSF_NO_ASAN size_t seal_of(tlsf_t heap, block_t *block, size_t word) {
    return seal_at(heap, seal_site(heap, block, word), word);
}
/* Does the header of `block`, whose size word the caller read as `word`, carry the seal
 * of that word at `site`? */
static inline TLSF_NO_ASAN int word_sealed_at(tlsf_t heap, block_t *block, size_t word,
                                              uintptr_t site) {
    /* The hash and the word agree in their top bits: one xor and one shift to compare. */
    (void)block;
    return ((seal_hash(heap, site, word) ^ word) >> SEAL_SHIFT) == 0;
}
#elif TLSF_CHECKS >= 2
/* The seal word of the size word `word` at `site`, and of `word` as the header of `block`. */
static inline TLSF_NO_ASAN size_t seal_at(tlsf_t heap, uintptr_t site, size_t word) {
    return ((size_t)site * heap->seal_key ^ (word & ~SEAL_EXEMPT)) * SEAL_MULTIPLIER;
}
static inline TLSF_NO_ASAN size_t seal_of(tlsf_t heap, block_t *block, size_t word) {
    return seal_at(heap, seal_site(heap, block, word), word);
}
/* Does the header of `block`, whose size word the caller read as `word`, carry the seal
 * of that word at `site`? */
static inline TLSF_NO_ASAN int word_sealed_at(tlsf_t heap, block_t *block, size_t word,
                                              uintptr_t site) {
    return *slot_seal(block) == seal_at(heap, site, word);
}
#else
/* Below level 2 no header carries a seal, and every header counts as intact. */
static inline TLSF_NO_ASAN int word_sealed_at(tlsf_t heap, block_t *block, size_t word,
                                              uintptr_t site) {
    (void)heap;
    (void)block;
    (void)word;
    (void)site;
    return 1;
}
#endif

/* Does the header of `block` carry the seal of its word at `site`? */
static inline TLSF_NO_ASAN int header_sealed_at(tlsf_t heap, block_t *block, uintptr_t site) {
    return word_sealed_at(heap, block, *slot_size(block), site);
}

/* Write the size word of the header of `block`: span and flags (any seal bits in `word` are
 * dropped), sealed at `site` in checked builds. */
static inline TLSF_NO_ASAN void header_set_word(tlsf_t heap, block_t *block, size_t word,
                                                uintptr_t site) {
#if TLSF_SEAL_IN_WORD
    size_t low = word & WORD_LOW_MASK;
    *slot_size(block) = low | (seal_at(heap, site, low) << SEAL_SHIFT);
#elif TLSF_CHECKS >= 2
    *slot_size(block) = word;
    *slot_seal(block) = seal_at(heap, site, word);
#else
    (void)heap;
    (void)site;
    *slot_size(block) = word;
#endif
}

/* Write a block's size word (not a slab object's tag: tlsf_slab.h writes those), sealed at
 * the block's own address. */
static inline TLSF_NO_ASAN void block_set_word(tlsf_t heap, block_t *block, size_t word) {
    header_set_word(heap, block, word, (uintptr_t)block);
}

/* Change only the flags of SEAL_EXEMPT in a size word: `word` is the word as read from the
 * block's header (seal bits included) with those flags changed, so the seal still holds. */
static inline TLSF_NO_ASAN void block_set_exempt_flags(block_t *block, size_t word) {
    *slot_size(block) = word;
}

/*
 * Links that a user could overwrite: the first word of a cached block or of a freed slab
 * object (a write after free reaches it first), whose header word lies just before it
 * (an overflow from the block before reaches that first). With TLSF_CHECKS 2 a link is
 * stored encoded, and every pop decodes it and checks the result before it keeps it:
 *
 *   stored = (next * key) ^ slot ^ word        next = (stored ^ slot ^ word) * key^-1
 *
 * where `slot` is the link's own address, `word` the header word of the block that holds
 * it as it is while the block is parked (cache mark or SLAB_FREED included), and `key` the
 * heap's key (odd, so the multiply is a bijection; key^-1 is its inverse modulo the word,
 * kept beside it, tlsf_pool.c). A sound link decodes to NULL or to an aligned address below
 * the power of two above the pools: link_mask, the alignment bits and every bit above that
 * power, must all be clear (one test, no special case for NULL). On 32-bit targets, where
 * few bits or none lie above the pools, it must lie inside the pools' range instead.
 *
 * Why a multiply: every other change to the link's inputs - a bit of the stored link
 * flipped, the link zeroed, the link of another block copied in, the block's header word
 * changed by an overflow - changes the product's input, and the multiply by key^-1 carries
 * any change at bit k into every bit above k, pseudo-randomly, so the decoded link lands on
 * an address with some masked bit set but for a chance of 2^-(masked bits): 2^-21 for
 * pools below 2^47 on a 64-bit machine; on a 32-bit one, the share of the address space
 * the pools' range covers over 2^(alignment bits) (xor alone, as glibc's lists since 2.32,
 * passes any change above the alignment bits). A
 * header changed while its block sat in the cache or on a slab's free list is thus caught
 * by the pop that hands the block out, at the price of one xor and one multiply in place
 * of an xor on each of the push and the pop (the header word is read there anyway).
 *
 * The header word goes in whole, seal included: the only change the heap makes to the
 * header of a parked block while it is parked, BLOCK_PREV_FREE when the block before it is
 * freed or taken, moves the link along with it (block_set_prev_free below, which xors the
 * old and the new word into it).
 *
 * Below level 2 links are stored as they are and always sound.
 */
static inline TLSF_NO_ASAN void *link_encode(tlsf_t heap, void **slot, void *next, size_t word) {
#if TLSF_CHECKS >= 2
    return (void *)(((uintptr_t)next * heap->seal_key) ^ (uintptr_t)slot ^ word);
#else
    (void)heap;
    (void)slot;
    (void)word;
    return next;
#endif
}

/* The word a parked block's link is bound to, as link_decode takes it: its header word with
 * TLSF_CHECKS 2, nothing below (the header is then not read for it). */
static inline TLSF_NO_ASAN size_t link_binding(block_t *block) {
#if TLSF_CHECKS >= 2
    return *slot_size(block);
#else
    (void)block;
    return 0;
#endif
}

/* The link stored at `slot` (link_encode's) in the block whose header word is now `word`;
 * NULL at the end of a list. *sound becomes 0 when the decoded link cannot be one the heap
 * stored (see above); it is left alone otherwise. */
static inline TLSF_NO_ASAN void *link_decode(tlsf_t heap, void **slot, size_t word, int *sound) {
    void *stored = *slot;
#if TLSF_CHECKS >= 2
    uintptr_t next = ((uintptr_t)stored ^ (uintptr_t)slot ^ word) * heap->link_inverse;
#if TLSF_PTR_BITS == 64
    if (next & heap->link_mask) *sound = 0;
#else
    /* A 32-bit address space has few bits above the pools (none for memory near its top):
     * a sound link lies inside the pools' range instead, or is NULL. */
    if ((next & (TLSF_ALIGN - 1)) != 0 || (next != 0 && next - heap->pools_low >= heap->pools_span))
        *sound = 0;
#endif
    return (void *)next;
#else
    (void)heap;
    (void)word;
    (void)sound;
    return stored;
#endif
}

/* Set or clear BLOCK_PREV_FREE in the header of `block`, whose size word as read is
 * `word` and which the caller vouched for (block_header_intact): a plain store below
 * TLSF_CHECKS 2, a new seal with it. A parked block (the cache's or a slab's, which it may
 * be while the block before it changes) has its first user word bound to its header word
 * (link_encode, tlsf_checks.h: the word enters the link by xor), so with TLSF_CHECKS 2 the
 * change of the word is xor-ed into that link as well. */
static inline TLSF_NO_ASAN void block_set_prev_free(tlsf_t heap, block_t *block, size_t word,
                                                    int prev_free) {
    size_t changed = prev_free ? word | BLOCK_PREV_FREE : word & ~(size_t)BLOCK_PREV_FREE;
#if TLSF_CHECKS >= 2
    block_set_word(heap, block, changed);
    /* (Only the cache and the slabs park blocks, and slabs need the cache.) */
    if (TLSF_CACHE && (word & BLOCK_PARKED)) {
        /* BLOCK_PARKED is outside the seal: a block in use whose flag an overflow set must
         * not have its user's first word changed. Only a link that decodes sound with the
         * word it was bound to is moved along (a chance of 2^-(masked bits) for user data,
         * link_decode). */
        void **link = (void **)slot_next_free(block);
        int sound = 1;
        (void)link_decode(heap, link, word, &sound);
        if (sound) *link = (void *)((uintptr_t)*link ^ (uintptr_t)(word ^ *slot_size(block)));
    }
#else
    (void)heap;
    block_set_exempt_flags(block, changed);
#endif
}

/* Does the header of `block` hold what this heap wrote there for a block (not a slab
 * object: an object's tag fails this test, see header_intact)? Always true below
 * TLSF_CHECKS 2. */
static inline TLSF_NO_ASAN int block_header_intact(tlsf_t heap, block_t *block) {
    return header_sealed_at(heap, block, (uintptr_t)block);
}

/* Does the header of `block` hold what this heap wrote, a block's or a slab object's? For
 * a pointer a user hands in, and the header after an object. */
static inline TLSF_NO_ASAN int header_intact(tlsf_t heap, block_t *block) {
    return header_sealed_at(heap, block, seal_site(heap, block, *slot_size(block)));
}

/* block_set_prev_free for a header no check has vouched for yet (the block after one the
 * lists hand out whole, or after the free block realloc absorbs): with TLSF_CHECKS 2 a
 * header that lost its seal is left as it is rather than sealed again, so that the damage
 * stays visible to the next check of that block (its free, its neighbour's free, the walk)
 * and nothing comes to trust its span. */
static inline TLSF_NO_ASAN void block_set_prev_free_if_intact(tlsf_t heap, block_t *block,
                                                              size_t word, int prev_free) {
#if TLSF_CHECKS >= 2
    if (!block_header_intact(heap, block)) return;
#endif
    block_set_prev_free(heap, block, word, prev_free);
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
