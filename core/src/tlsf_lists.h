/* SPDX-License-Identifier: MIT */
/*
 * tlsf_lists.h - the segregated free lists and their bitmaps: insert, remove, replace and
 * find, each a fixed number of loads, stores and bit scans.
 *
 * Bitmaps. Slots are taken 32 at a time: slot s is position s % 32 of
 * class_bits[s / 32] (positions: tlsf_bits.h; on Arm position 0 is the top bit, so that a
 * scan is one CLZ). A position is set exactly when its class's list is non-empty (slots
 * below FIRST_SLOT, which are no class's, are never set), and position w of word_bits
 * exactly when class_bits[w] is non-zero. Finding the first non-empty class at or above a
 * given one therefore takes at most two scans (find_free_class): the rest of its word,
 * then the first non-empty word after it. The bitmap words sit at offset 0 of the control
 * structure, so reaching one is a single load or store with a scaled index.
 *
 * Free lists. Each class has a circular doubly linked list through the blocks'
 * next_free/prev_free slots. Its head is a pair of words in `heads` that acts as a node
 * of the list (a "pseudo-block" whose link slots are that pair). Because the head is a
 * node, unlinking any block is two stores with no special case, and the list just became
 * empty exactly when the unlinked block's two neighbours are the same node - the head,
 * whose slot is then known from its address. A head's words are used only while its
 * bitmap bit is set (with LISTS_BRANCHLESS a stale one may be read, then discarded), so
 * creating a heap does not need to initialise the heads.
 */
#ifndef TLSF_LISTS_H
#define TLSF_LISTS_H

#include "tlsf_classes.h"

/* The head node of slot `slot`, seen as a block whose link slots are its two words. */
static inline TLSF_NO_ASAN block_t *slot_head(tlsf_t heap, unsigned slot) {
    return (block_t *)(void *)((char *)heap + (size_t)slot * HEAD_BYTES);
}

/* The head node of class `index`. */
static inline TLSF_NO_ASAN block_t *list_head(tlsf_t heap, unsigned index) {
    return slot_head(heap, index + FIRST_SLOT);
}

/* The slot whose head node is `head`. */
static inline TLSF_NO_ASAN unsigned head_slot(tlsf_t heap, block_t *head) {
    return (unsigned)(((uintptr_t)head - (uintptr_t)heap) / HEAD_BYTES);
}

/* Record that slot `slot`'s list has become empty if `emptied` is 1; change nothing if
 * it is 0, so that a caller may pass the test on instead of branching on it. The word's
 * position in word_bits goes with its last slot. */
static inline TLSF_NO_ASAN void bitmap_clear(tlsf_t heap, unsigned slot, uint32_t emptied) {
    unsigned word = slot >> 5;
    uint32_t slots = heap->class_bits[word] & ~bitmap_bit_if(slot & 31u, emptied);
    heap->class_bits[word] = slots;
    if (WORST_CASE(slots == 0)) heap->word_bits &= ~bitmap_bit(word);
}

/* Put a free block at the front of the list of slot `slot`. */
static inline TLSF_NO_ASAN void free_list_insert_at(tlsf_t heap, block_t *block, unsigned slot) {
    unsigned word = slot >> 5;
    uint32_t bit = bitmap_bit(slot & 31u);
    uint32_t slots = heap->class_bits[word];
    block_t *head = slot_head(heap, slot);
    /* An empty list's head words are stale: the head is then its own neighbour. */
    block_t *first;
    if (LISTS_BRANCHLESS) {
        block_t *stale_or_first = *slot_next_free(head); /* read either way, then chosen */
        first = (slots & bit) ? stale_or_first : head;
    } else {
        first = (slots & bit) ? *slot_next_free(head) : head;
    }
    *slot_next_free(block) = first;
    *slot_prev_free(block) = head;
    *slot_prev_free(first) = block;
    *slot_next_free(head) = block;
    heap->class_bits[word] = slots | bit;
    heap->word_bits |= bitmap_bit(word);
}

/* Put a free block at the front of the list of its class. */
static inline TLSF_NO_ASAN void free_list_insert(tlsf_t heap, block_t *block, size_t span) {
    free_list_insert_at(heap, block, slot_of_span(span));
}

/* Unlink a free block from whichever list holds it. */
static inline TLSF_NO_ASAN void free_list_remove(tlsf_t heap, block_t *block) {
    block_t *next = *slot_next_free(block);
    block_t *prev = *slot_prev_free(block);
    *slot_prev_free(next) = prev;
    *slot_next_free(prev) = next;
    if (WORST_CASE(next == prev)) /* only the head is left */
        bitmap_clear(heap, head_slot(heap, prev), 1);
}

/* Let `fresh` take the list place of free block `old`, whose class it shares: no bitmap
 * changes, the cheap case of a split or merge that stays within a class. */
static inline TLSF_NO_ASAN void free_list_replace(block_t *old, block_t *fresh) {
    block_t *next = *slot_next_free(old);
    block_t *prev = *slot_prev_free(old);
    *slot_next_free(fresh) = next;
    *slot_prev_free(fresh) = prev;
    *slot_prev_free(next) = fresh;
    *slot_next_free(prev) = fresh;
}

/*
 * Find the first non-empty class at or above the one of slot *slot: store its slot in
 * *slot and return 1, or return 0 if there is none. Two scans at most: the rest of the
 * slot's bitmap word, then the first non-empty word after it (see "Bitmaps" at the top).
 */
static inline TLSF_NO_ASAN int find_free_class(tlsf_t heap, unsigned *slot) {
    unsigned word = *slot >> 5;
    uint32_t here = bitmap_from(heap->class_bits[word], *slot & 31u);
    uint32_t after;
    if (!WORST_CASE(here == 0)) {
        *slot += bitmap_first(here);
        return 1;
    }
    after = heap->word_bits & bitmap_after(word);
    if (after == 0) return 0;
    word = bitmap_first(after);
    *slot = (word << 5) + bitmap_first(heap->class_bits[word]);
    return 1;
}

/* Unlink the first block of slot `slot`'s list (it is `block`): free_list_remove, knowing
 * the block's list (with CODE_SMALL, free_list_remove itself). */
static inline TLSF_NO_ASAN void free_list_pop(tlsf_t heap, unsigned slot, block_t *block) {
    block_t *head = slot_head(heap, slot);
    block_t *next;
    if (CODE_SMALL) {
        free_list_remove(heap, block);
        return;
    }
    next = *slot_next_free(block);
    *slot_next_free(head) = next;
    *slot_prev_free(next) = head;
    /* With LISTS_BRANCHLESS the test is passed on rather than branched on. */
    if (LISTS_BRANCHLESS || WORST_CASE(next == head))
        bitmap_clear(heap, slot, (uint32_t)(next == head));
}

#endif /* TLSF_LISTS_H */
