/* SPDX-License-Identifier: MIT */
/*
 * tlsf_backend.c - the table of one TLSF configuration for tlsf-replay (tlsf_backend.h),
 * compiled together with the core's sources into one shared library per configuration.
 */
#include "tlsf_backend.h"

#include "tlsf.h"

static void backend_get_stats(struct tlsf_heap *heap, tlsf_replay_stats_t *out) {
    tlsf_stats_t stats;
    tlsf_get_stats(heap, &stats);
    out->used_bytes = stats.used_bytes;
    out->free_bytes = stats.free_bytes;
    out->largest_allocatable = stats.largest_allocatable;
    out->peak_used_bytes = stats.peak_used_bytes;
}

static void backend_walk(struct tlsf_heap *heap, tlsf_replay_walker_t walker, void *user) {
    tlsf_walk_pool(tlsf_get_pool(heap), walker, user);
}

static int backend_check(struct tlsf_heap *heap) {
    return tlsf_check(heap) + tlsf_check_pool(tlsf_get_pool(heap));
}

__attribute__((visibility("default"))) const tlsf_replay_backend_t tlsf_replay_backend = {
    TLSF_REPLAY_BACKEND_VERSION,
    TLSF_SL_INDEX_LOG2,
    TLSF_CHECKS,
    TLSF_STATS,
    TLSF_CACHE,
    TLSF_SLABS,
    TLSF_ALIGN_LOG2,
    TLSF_CACHE ? TLSF_CACHE_BYTES : 0,
    TLSF_CONTROL_BYTES,
    TLSF_HEAP_MIN_BYTES,
    (size_t)1 << TLSF_MAX_BLOCK_LOG2,
    (size_t)1 << TLSF_ALIGN_LOG2,
    tlsf_create_with_pool,
    tlsf_malloc,
    tlsf_calloc,
    tlsf_memalign,
    tlsf_realloc,
    tlsf_free,
    tlsf_cache_set_limit,
    tlsf_slabs_enable,
    backend_get_stats,
    backend_walk,
    backend_check,
};
