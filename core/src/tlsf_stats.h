/* SPDX-License-Identifier: MIT */
/*
 * tlsf_stats.h - the statistics (TLSF_STATS): what the front end counts when a block is
 * handed out, given back or resized. The plain TLSF layer (tlsf_core.h) counts nothing, so
 * the layers that take blocks for themselves (slabs) need not undo a count.
 *
 * Invariant: used_bytes is the sum of the spans of blocks in use by the user (a cached
 * block, a slab's free objects and a slab's own block do not count; a slab object in use
 * counts as a block of its span), peak_used_bytes the largest used_bytes since creation or
 * tlsf_reset_peak, alloc_count - free_count the live blocks.
 */
#ifndef TLSF_STATS_H
#define TLSF_STATS_H

#include "tlsf_control.h"

static inline TLSF_NO_ASAN void stats_on_alloc(tlsf_t heap, size_t span) {
#if TLSF_STATS
#if defined(__arm__)
    /* Both counters read at once: alloc_count sits next to used_bytes, one LDRD. */
    size_t count = heap->alloc_count, used = heap->used_bytes + span;
    heap->alloc_count = count + 1;
    heap->used_bytes = used;
#else
    /* The count last, as an increment in memory: one instruction on x86-64, where read
     * early it is three, and where stores to neighbours in one block get vectorised. */
    size_t used = heap->used_bytes + span;
    heap->used_bytes = used;
#endif
    if (used > heap->peak_used_bytes) heap->peak_used_bytes = used;
#if !defined(__arm__)
    heap->alloc_count++;
#endif
#else
    (void)heap;
    (void)span;
#endif
}

static inline TLSF_NO_ASAN void stats_on_free(tlsf_t heap, size_t span) {
#if TLSF_STATS
    heap->used_bytes -= span;
    heap->free_count++;
#else
    (void)heap;
    (void)span;
#endif
}

/* A block in use changed span in place (realloc). The peak is left to stats_on_settle,
 * since a growing realloc briefly takes more than it keeps. */
static inline TLSF_NO_ASAN void stats_on_resize(tlsf_t heap, size_t old_span, size_t new_span) {
#if TLSF_STATS
    heap->used_bytes = heap->used_bytes - old_span + new_span;
#else
    (void)heap;
    (void)old_span;
    (void)new_span;
#endif
}

/* After a realloc in place: record the peak of what it kept. */
static inline TLSF_NO_ASAN void stats_on_settle(tlsf_t heap) {
#if TLSF_STATS
    if (heap->used_bytes > heap->peak_used_bytes) heap->peak_used_bytes = heap->used_bytes;
#else
    (void)heap;
#endif
}

#endif /* TLSF_STATS_H */
