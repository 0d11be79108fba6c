/* SPDX-License-Identifier: MIT */
/*
 * tlsf_configure.c - the run-time switches of the policies: the cache's budget and flush,
 * the slabs on or off. None of them is on a real-time path; each is bounded by the drain
 * (the front end's, tlsfi_cache_drain).
 */
#include "tlsf_cache.h"
#include "tlsf_slab.h"

TLSF_NO_ASAN void tlsfi_flush(tlsf_t heap) {
#if TLSF_CACHE
    if (cache_holds_blocks(heap)) tlsfi_cache_drain(heap);
    slab_release_empty(heap);
#else
    (void)heap;
#endif
}

TLSF_NO_ASAN void tlsf_cache_flush(tlsf_t heap) {
    if (heap != NULL) tlsfi_flush(heap);
}

TLSF_NO_ASAN size_t tlsf_cache_set_limit(tlsf_t heap, size_t bytes) {
#if TLSF_CACHE
    if (heap == NULL) return 0;
    if (bytes > TLSF_CACHE_BYTES) bytes = TLSF_CACHE_BYTES;
    if (heap->cache.limit - heap->cache.room > bytes) tlsfi_cache_drain(heap);
    heap->cache.room = bytes - (heap->cache.limit - heap->cache.room);
    heap->cache.limit = bytes;
    return bytes;
#else
    (void)heap;
    (void)bytes;
    return 0;
#endif
}

TLSF_NO_ASAN int tlsf_slabs_enable(tlsf_t heap, size_t bytes) {
    if (heap == NULL) return -1;
#if TLSF_SLABS
    if (bytes == 0) {
        /* No new request gets an object; empty slabs go back at once. */
        heap->slabs.request_end = 0;
        tlsfi_flush(heap);
        return 0;
    }
    if (bytes < SLAB_BYTES_MIN || bytes > SLAB_BYTES_MAX || (bytes & (bytes - 1)) != 0 ||
        (heap->slabs.count != 0 && bytes != heap->slabs.bytes))
        return -1;
    heap->slabs.bytes = bytes;
    heap->slabs.request_end = SLAB_REQUEST_END;
    /* Blocks of the slabs' spans that the cache holds would wait there for a drain: from
     * now on those requests take objects, and the cache is consulted only when no slab
     * can be had. */
    tlsfi_flush(heap);
    return 0;
#else
    return bytes == 0 ? 0 : -1;
#endif
}

TLSF_NO_ASAN size_t tlsf_slabs_size(tlsf_t heap) {
#if TLSF_SLABS
    return heap != NULL && heap->slabs.request_end != 0 ? heap->slabs.bytes : 0;
#else
    (void)heap;
    return 0;
#endif
}
