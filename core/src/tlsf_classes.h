/* SPDX-License-Identifier: MIT */
/*
 * tlsf_classes.h - size classes: from a span or a request to the slot of its class.
 *
 * Spans below 2 * SMALL_SPAN are split linearly into classes TLSF_ALIGN apart (rows 0 and
 * 1: the exact classes). Above that, each power of two [2^k, 2^(k+1)) is one row, split
 * into SL_COUNT equal classes. Class index = row * SL_COUNT + column; it is computed with
 * one "highest set bit" and no branch, and the result is a slot (tlsf_control.h), the
 * number the bitmaps and list heads use.
 */
#ifndef TLSF_CLASSES_H
#define TLSF_CLASSES_H

#include "tlsf_control.h"

/* The slot of the class a free block of this span belongs to: its span is at least the
 * class's lower bound and below the next class's. */
static inline TLSF_NO_ASAN unsigned class_shift(size_t span) {
    return bits_fls_size(span | SMALL_SPAN) - TLSF_SL_INDEX_LOG2;
}
static inline TLSF_NO_ASAN unsigned slot_of_span(size_t span) {
    unsigned zeros = bits_clz_size(span | SMALL_SPAN);
    return (unsigned)(span >> (TLSF_PTR_BITS - 1u - TLSF_SL_INDEX_LOG2 - zeros)) + SLOT_BASE -
           (zeros << TLSF_SL_INDEX_LOG2);
}
/* Are spans `smaller` <= `larger` in the same class? Class bounds of `larger`'s row are
 * multiples of 1 << class_shift(larger), so yes exactly when no bit at or above that shift
 * differs. (Used to leave a block in its list when it grows or shrinks within its class.) */
static inline TLSF_NO_ASAN int same_class(size_t smaller, size_t larger) {
    return ((smaller ^ larger) >> class_shift(larger)) == 0;
}

/*
 * The span for a request whose block must reach `last` bytes past its start (user bytes
 * plus the size word, minus one), rounded up to the lower bound of its class ("good fit");
 * that class's slot is returned in *slot. Every block in that class or above is large enough,
 * so the first block of the first non-empty list found will do. Bounds of classes are
 * multiples of 1 << shift, so (last >> shift) + 1 is the rounded-up column (plus SL_COUNT
 * above row 0). When it carries into the next power of two it becomes 2 * SL_COUNT, which
 * is exactly the index of the next row's first class, so no second bit scan is needed.
 * (Taking the shift from `last` rather than last + 1 changes it only where last + 1 is a
 * power of two, and there the carry gives the same class and span.) The result is a
 * multiple of TLSF_ALIGN because shift >= TLSF_ALIGN_LOG2.
 */
static inline TLSF_NO_ASAN size_t class_round_up(size_t last, unsigned *slot) {
    unsigned zeros = bits_clz_size(last | SMALL_SPAN);
    unsigned shift = TLSF_PTR_BITS - 1u - TLSF_SL_INDEX_LOG2 - zeros;
    size_t below = last >> shift; /* the column below the rounded-up one */
    *slot = (unsigned)below + (SLOT_BASE + 1u) - (zeros << TLSF_SL_INDEX_LOG2);
    return (below + 1) << shift;
}
/* The smallest span of class `index`. */
static inline TLSF_NO_ASAN size_t class_lower_bound(unsigned index) {
    unsigned row = index >> TLSF_SL_INDEX_LOG2;
    if (row == 0) return (size_t)index << TLSF_ALIGN_LOG2;
    return (size_t)(SL_COUNT + (index & SL_MASK)) << (row - 1 + TLSF_ALIGN_LOG2);
}

/* The last byte a request of `bytes` needs from a block, counted from the block's start:
 * user bytes plus the header, at least MIN_SPAN in all, minus one (class_round_up's
 * argument). Callers check bytes <= MAX_REQUEST first, so nothing overflows. */
static inline TLSF_NO_ASAN size_t request_last(size_t bytes) {
    size_t last = bytes + (BLOCK_OVERHEAD - 1);
    return last < MIN_SPAN - 1 ? MIN_SPAN - 1 : last;
}

/* The span of the exact class of a request of `bytes` (one whose class is exact; the caller
 * has checked its size): its last byte (request_last) plus one, rounded up to TLSF_ALIGN.
 * MIN_SPAN is a multiple of TLSF_ALIGN, so the smallest requests get MIN_SPAN. */
static inline TLSF_NO_ASAN size_t request_exact_span(size_t bytes) {
    return (request_last(bytes) | (TLSF_ALIGN - 1)) + 1;
}

/* The slot of the exact class of span `span` (below EXACT_SPAN_LIMIT): rows 0 and 1 are
 * one span per class, so the class is the span over TLSF_ALIGN, with no bit scan. */
static inline TLSF_NO_ASAN unsigned exact_class_slot(size_t span) {
    return (unsigned)(span >> TLSF_ALIGN_LOG2) + FIRST_SLOT;
}

#endif /* TLSF_CLASSES_H */
