/* SPDX-License-Identifier: MIT */
/*
 * tlsf_checks.h - the misuse checks, one question each: "is this the start of a live block
 * of this heap, whose neighbours are intact?" All O(1): a few loads of the headers that
 * free reads anyway, and a hash per header with sealed headers.
 *
 * What each TLSF_CHECKS level catches (tlsf_config.h):
 *   1  a misaligned pointer (bad pointer); a block already free or cached (double free).
 *   2  also a pointer whose header does not carry this heap's seal for its address: an
 *      interior pointer, another heap's block, the C library's, a stack buffer (bad
 *      pointer); and a header of the block's neighbours that lost its seal, which is what
 *      a write past the end of the block does to the next one (corrupt block).
 *      (A write that changes nothing but the next block's PREV_FREE flag, which is not
 *      sealed, is harmless until that flag is relied on, and block_check_prev catches it
 *      there.)
 * The order matters for the reason reported: a foreign pointer often sits behind a word
 * with the "free" bit set (glibc's chunk sizes are odd), so the seal is checked before the
 * free bit, and a double free is named only for a header this heap sealed.
 *
 * On misuse the handler hears the reason and the pointer, and the caller leaves the heap
 * exactly as it was.
 */
#ifndef TLSF_CHECKS_H
#define TLSF_CHECKS_H

#include "tlsf_internal.h"
#include "tlsf_seal.h"

/* The flags that say a block is no longer the user's: free, or parked by the cache or a
 * slab (only those layers park blocks, and they need the cache). */
#if TLSF_CACHE
#define BLOCK_GIVEN_BACK (BLOCK_FREE | BLOCK_PARKED)
#else
#define BLOCK_GIVEN_BACK ((size_t)BLOCK_FREE)
#endif

/*
 * What a checked header may be: a block's, or also a slab object's tag, which is sealed at
 * its slab's site (tlsf_seal.h). A pointer from the user may be either, and so may the
 * header after an object; free's paths know that a word they hold is no object's (objects
 * went their own way first) and check the block's own site only, without testing the word
 * for it. Without slabs the two are the same.
 */
enum header_kind { HEADER_OF_BLOCK, HEADER_OF_ANY };

static inline TLSF_NO_ASAN int header_check(tlsf_t heap, block_t *block, enum header_kind kind) {
    return kind == HEADER_OF_ANY ? header_intact(heap, block) : block_header_intact(heap, block);
}

/* The parts of block_misuse, which free takes in another order (free_check_pointer below). */

/* Why `ptr` cannot be a live block's user pointer: misaligned, or (TLSF_CHECKS 2) its header
 * does not carry this heap's seal for its address. TLSF_ERROR_NONE if it can be. (free's
 * test of a pointer whose word is no slab object's: block_misuse tests any pointer.) */
static inline TLSF_NO_ASAN tlsf_error_t pointer_misuse(tlsf_t heap, const void *ptr) {
#if TLSF_CHECKS >= 1
    if ((uintptr_t)ptr & (TLSF_ALIGN - 1)) return TLSF_ERROR_BAD_POINTER;
#if TLSF_CHECKS >= 2
    if (!block_header_intact(heap, block_from_ptr(ptr))) return MISUSE_UNSEALED;
#endif
#else
    (void)ptr;
#endif
    (void)heap;
    return TLSF_ERROR_NONE;
}

/* Why the block `block`, whose header pointer_misuse vouched for and whose size word is
 * `word` with no BLOCK_GIVEN_BACK bit, is not a block in use with an intact next block
 * (TLSF_CHECKS 2): a span below the smallest block's (an object's, for a slab object's tag
 * where `kind` allows one) is the sentinel's (a bad pointer), and the next header must carry
 * its seal (else a corrupt block: what a write past this block's end does). TLSF_ERROR_NONE
 * if it is. */
static inline TLSF_NO_ASAN tlsf_error_t neighbour_misuse(tlsf_t heap, block_t *block, size_t word,
                                                         enum header_kind kind) {
#if TLSF_CHECKS >= 2
    /* A block's next header is a block's; an object's is another object's tag, or the
     * header after its slab. */
    int object = kind == HEADER_OF_ANY && sealed_per_slab(word);
    enum header_kind next_kind = object ? HEADER_OF_ANY : HEADER_OF_BLOCK;
    if (word_span(word) < (object ? CARVED_MIN_SPAN : MIN_SPAN)) return TLSF_ERROR_BAD_POINTER;
    if (!header_check(heap, block_at(block, word_span(word)), next_kind))
        return TLSF_ERROR_CORRUPT_BLOCK;
#else
    (void)heap;
    (void)block;
    (void)word;
    (void)kind;
#endif
    return TLSF_ERROR_NONE;
}

/* Why the block `block` with the vouched-for size word `word` is not the user's: already
 * free or parked (a double free), or neighbour_misuse. TLSF_ERROR_NONE if it is. */
static inline TLSF_NO_ASAN tlsf_error_t word_misuse(tlsf_t heap, block_t *block, size_t word,
                                                    enum header_kind kind) {
#if TLSF_CHECKS >= 1
    if (word & BLOCK_GIVEN_BACK) return TLSF_ERROR_DOUBLE_FREE;
#endif
    return neighbour_misuse(heap, block, word, kind);
}

/* Why `ptr` is not a live block of `heap` with an intact next block, or TLSF_ERROR_NONE.
 * (The previous block is checked only where free merges with it: block_check_prev.) The
 * pointer's tests are pointer_misuse's written out: built on pointer_misuse, free's and
 * realloc's worst cases on a Cortex-M4 with sealed headers grew by 17 and 16 instructions
 * (GCC 12 keeps more registers live; bench/cortex-m4/run-counts.sh --check). */
static inline TLSF_NO_ASAN tlsf_error_t block_misuse(tlsf_t heap, const void *ptr) {
#if TLSF_CHECKS >= 1
    block_t *block = block_from_ptr(ptr);
    size_t word;
    if ((uintptr_t)ptr & (TLSF_ALIGN - 1)) return TLSF_ERROR_BAD_POINTER;
#if TLSF_CHECKS >= 2
    if (!header_intact(heap, block)) return MISUSE_UNSEALED;
#endif
    word = *slot_size(block);
    return word_misuse(heap, block, word, HEADER_OF_ANY);
#else
    (void)heap;
    (void)ptr;
    return TLSF_ERROR_NONE;
#endif
}

/* 1 if `reason` is TLSF_ERROR_NONE; otherwise the handler hears it with `ptr`, and 0. */
static inline TLSF_NO_ASAN int misuse_reported(tlsf_t heap, tlsf_error_t reason, const void *ptr) {
    if (reason == TLSF_ERROR_NONE) return 1;
    tlsfi_report(heap, reason, ptr);
    return 0;
}

/* 1 if `ptr` may be freed or resized; otherwise the handler hears why and 0 is returned. */
static inline TLSF_NO_ASAN int block_check_in_use(tlsf_t heap, const void *ptr) {
    return misuse_reported(heap, block_misuse(heap, ptr), ptr);
}

/*
 * free's version of block_check_in_use, in steps around the front cache's push. The
 * double-free test reads nothing but the size word, and cache_takes refuses every word with
 * a BLOCK_GIVEN_BACK bit (its mask holds them), so with the cache the test waits until the
 * block is found not to be cacheable: a push pays for no test of its own, and the other
 * paths pay the same tests in another order. What a push needs is checked before it: the
 * pointer and its header's seal (free_check_pointer, first: a word is trusted only once its
 * header is vouched for) and the next header (free_check_push). A block the cache refuses
 * gets the rest on its way to the lists or its slab (free_check_word). Without the cache
 * every check comes first. Each returns 1 if free may go on; otherwise the handler hears
 * why and 0 is returned. The reasons reported are block_misuse's, in its order. They
 * check headers as blocks' (HEADER_OF_BLOCK): free sends slab objects their own way
 * first (tlsf_alloc.c, free_object).
 */
static inline TLSF_NO_ASAN int free_check_pointer(tlsf_t heap, const void *ptr) {
#if TLSF_CHECKS == 1 && TLSF_CACHE
    if (((uintptr_t)ptr & (TLSF_ALIGN - 1)) == 0) return 1;
    tlsfi_report(heap, TLSF_ERROR_BAD_POINTER, ptr);
    return 0;
#elif TLSF_CACHE
    return misuse_reported(heap, pointer_misuse(heap, ptr), ptr);
#else
    return block_check_in_use(heap, ptr);
#endif
}

static inline TLSF_NO_ASAN int free_check_push(tlsf_t heap, const void *ptr, size_t word) {
    return misuse_reported(heap, neighbour_misuse(heap, block_from_ptr(ptr), word, HEADER_OF_BLOCK),
                           ptr);
}

static inline TLSF_NO_ASAN int free_check_word(tlsf_t heap, const void *ptr, size_t word) {
#if TLSF_CHECKS == 1 && TLSF_CACHE
    if ((word & BLOCK_GIVEN_BACK) == 0) return 1;
    tlsfi_report(heap, TLSF_ERROR_DOUBLE_FREE, ptr);
    return 0;
#elif TLSF_CACHE
    return misuse_reported(heap, word_misuse(heap, block_from_ptr(ptr), word, HEADER_OF_BLOCK),
                           ptr);
#else
    (void)heap;
    (void)ptr;
    (void)word;
    return 1;
#endif
}

#if TLSF_CHECKS >= 2
/* Is `address` inside the range of addresses the heap's pools span? A pointer read from
 * memory a user could have written (a back-link, a link of a free list or of the cache) is
 * tested with this before it is followed, so that a damaged one is reported instead of
 * read. (Between two pools far apart the range holds addresses that are no pool's: a link
 * damaged to point there is then read; with one pool, or pools side by side, never.) */
static inline TLSF_NO_ASAN int heap_holds(tlsf_t heap, const void *address) {
    return (uintptr_t)address - heap->pools_low < heap->pools_span;
}
#endif

#if TLSF_CHECKS >= 2
/*
 * Is `node`, read from a link of a free block, exactly the head node of one of the heap's
 * classes (a sized heap holds fewer: tlsf_control.h)? Tested before the node is read. The
 * test is one comparison: the node's offset from the first head, rotated right by
 * log2(HEAD_BYTES), is its class when the offset is a multiple of HEAD_BYTES, and has a top
 * bit set otherwise, above any class count; an address below the first head wraps around to
 * a huge offset.
 */
static inline TLSF_NO_ASAN int list_node_head(tlsf_t heap, block_t *node) {
    return class_of_head_offset((uintptr_t)node - heap->first_head) < heap->class_count;
}
#endif

#if TLSF_CHECKS >= 2
/* Is `node`, read from a link of a free block, a live node of this heap's free lists, so
 * that its links may be read and trusted: exactly a list head (told first: the pools' range
 * may take in the control structure, between two pools, and a compact heap's pool lies
 * within the size of a full one; a head's words are never read as a header), or an aligned
 * block start in the pools whose header this heap sealed as free? Free memory keeps the
 * links of the blocks it once held, so a node that merely points back could be such a
 * leftover, which a damaged link leads to; a sealed free header is what no leftover inside
 * a free block has (a merged block's header keeps the seal of its word in use,
 * block_header_absorbed). */
static inline TLSF_NO_ASAN int list_node_live(tlsf_t heap, block_t *node) {
    if (list_node_head(heap, node)) return 1;
    return heap_holds(heap, node) && (((uintptr_t)node + HEADER_SIZE) & (TLSF_ALIGN - 1)) == 0 &&
           (*slot_size(node) & BLOCK_FREE) && block_header_intact(heap, node);
}
#endif

/* Are the list links of the free block `block` intact (TLSF_CHECKS 2): both neighbours live
 * nodes (a list head or a sealed free block) that point back at it? A block is unlinked only
 * after this. */
static inline TLSF_NO_ASAN int free_links_sound(tlsf_t heap, block_t *block) {
#if TLSF_CHECKS >= 2
    block_t *next = *slot_next_free(block), *prev = *slot_prev_free(block);
    return list_node_live(heap, next) && list_node_live(heap, prev) &&
           *slot_prev_free(next) == block && *slot_next_free(prev) == block;
#else
    (void)heap;
    (void)block;
    return 1;
#endif
}

/* A free block about to be taken from its list or merged (TLSF_CHECKS 2): its header sealed
 * and free, its links intact. Always true below level 2. */
static inline TLSF_NO_ASAN int free_block_sound(tlsf_t heap, block_t *block) {
#if TLSF_CHECKS >= 2
    return (*slot_size(block) & BLOCK_FREE) && block_header_intact(heap, block) &&
           free_links_sound(heap, block);
#else
    (void)heap;
    (void)block;
    return 1;
#endif
}

/* Before the block at `ptr` (size word `word`, header checked) is merged with its free
 * neighbours: the block after it, if free, is a sound free block (TLSF_CHECKS 2). 1 if so,
 * or the handler hears of a corrupt list and 0 is returned. */
static inline TLSF_NO_ASAN int block_check_next(tlsf_t heap, const void *ptr, size_t word) {
#if TLSF_CHECKS >= 2
    block_t *next = block_at(block_from_ptr(ptr), word_span(word));
    if (!(*slot_size(next) & BLOCK_FREE) || free_links_sound(heap, next)) return 1;
    tlsfi_report(heap, TLSF_ERROR_CORRUPT_LIST, ptr);
    return 0;
#else
    (void)heap;
    (void)ptr;
    (void)word;
    return 1;
#endif
}

/* realloc's block_check_next: also, when the block after is free, the header of the block
 * after that one (TLSF_CHECKS 2), which a growth that absorbs the free block whole changes
 * (BLOCK_PREV_FREE) and a trim after it trusts. */
static inline TLSF_NO_ASAN int block_check_growth(tlsf_t heap, const void *ptr, size_t word) {
#if TLSF_CHECKS >= 2
    block_t *next = block_at(block_from_ptr(ptr), word_span(word));
    size_t next_word = *slot_size(next);
    if (!block_check_next(heap, ptr, word)) return 0;
    if (!(next_word & BLOCK_FREE) ||
        block_header_intact(heap, block_at(next, word_span(next_word))))
        return 1;
    tlsfi_report(heap, TLSF_ERROR_CORRUPT_BLOCK, ptr);
    return 0;
#else
    return block_check_next(heap, ptr, word);
#endif
}

/* Before a block that free did not check (block_misuse) is merged - a cached block the
 * drain gives back, an empty slab - with its neighbours: the header of the block after it
 * is sealed (TLSF_CHECKS 2), so that neither its span nor its flags are trusted, nor sealed
 * again (tell_next_prev_free), when an overflow changed them. Then the neighbours as free
 * checks them (block_check_prev, block_check_next). 1 if all hold; otherwise the handler
 * hears why and 0 is returned. */
static inline TLSF_NO_ASAN int block_check_prev(tlsf_t heap, const void *ptr, size_t word);
static inline TLSF_NO_ASAN int block_check_neighbours(tlsf_t heap, const void *ptr, size_t word) {
#if TLSF_CHECKS >= 2
    if (!block_header_intact(heap, block_at(block_from_ptr(ptr), word_span(word)))) {
        tlsfi_report(heap, TLSF_ERROR_CORRUPT_BLOCK, ptr);
        return 0;
    }
#endif
    return block_check_prev(heap, ptr, word) && block_check_next(heap, ptr, word);
}

/* Before free merges the block at `ptr` (size word `word`, whose seal block_misuse checked,
 * BLOCK_PREV_FREE included) with the free block before it (TLSF_CHECKS >= 2): the back-link
 * lies in that free block, where a use after free could have written it, so it must point
 * into the heap's pools, at a block start below this one, whose header is sealed, free, and
 * whose span leads here (else a corrupt block), with intact list links (else a corrupt
 * list). 1 if so, or the handler hears why and 0 is returned. */
static inline TLSF_NO_ASAN int block_check_prev(tlsf_t heap, const void *ptr, size_t word) {
#if TLSF_CHECKS >= 2
    block_t *block = block_from_ptr(ptr);
    block_t *prev;
    size_t prev_word;
    if (!(word & BLOCK_PREV_FREE)) return 1;
    prev = *slot_prev_phys(block);
    if (heap_holds(heap, prev) && prev < block &&
        (((uintptr_t)block - (uintptr_t)prev) & (TLSF_ALIGN - 1)) == 0) {
        prev_word = *slot_size(prev);
        if ((prev_word & BLOCK_FREE) && block_header_intact(heap, prev) &&
            block_at(prev, word_span(prev_word)) == block) {
            if (free_links_sound(heap, prev)) return 1;
            tlsfi_report(heap, TLSF_ERROR_CORRUPT_LIST, ptr);
            return 0;
        }
    }
    tlsfi_report(heap, TLSF_ERROR_CORRUPT_BLOCK, ptr);
    return 0;
#else
    (void)heap;
    (void)ptr;
    (void)word;
    return 1;
#endif
}

#endif /* TLSF_CHECKS_H */
