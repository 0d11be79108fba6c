/* SPDX-License-Identifier: MIT */
/*
 * tlsf_malloc.h - the drop-in malloc of this project (libtlsf_malloc.so): what it adds to
 * the C library's interface.
 *
 * The library defines malloc, free, calloc, realloc, memalign, posix_memalign,
 * aligned_alloc, valloc, pvalloc and malloc_usable_size on TLSF heaps, one per thread. Programs use
 * them through <stdlib.h> and <malloc.h> as usual, whether the library is preloaded
 * (LD_PRELOAD=libtlsf_malloc.so) or linked. This header declares the two functions only it
 * has: a consistency check and a summary of the heap.
 *
 * Built with TLSF_MALLOC_PREFIXED=1 (the static library tlsf_malloc_prefixed, used by the
 * tests that run under ThreadSanitizer, which brings its own malloc), the same functions
 * are named tlsfm_malloc, tlsfm_free, ... and the C library's malloc stays in place.
 */
#ifndef TLSF_MALLOC_H
#define TLSF_MALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A snapshot of the allocator (tlsfm_get_info). Counts from the heaps of other running
 * threads are read without stopping them: exact when those threads are between calls. */
struct tlsfm_info {
    size_t pools;             /* chunks of all heaps plus large blocks (a mapping each) */
    size_t dedicated_pools;   /* large blocks: requests above a quarter of a chunk */
    size_t empty_chunks;      /* chunks kept mapped with no allocation (at most 1 per heap) */
    size_t mapped_bytes;      /* bytes mapped for chunks and large blocks now */
    size_t peak_mapped_bytes; /* the most that was ever mapped for them */
    size_t maps;              /* mappings made so far */
    size_t unmaps;            /* mappings (or tails of cached ones) unmapped so far */
    size_t live_blocks;       /* allocations not yet freed (including those freed by
                                 another thread that the owner has not taken back yet) */
    size_t used_bytes;        /* bytes in allocated blocks of the heaps the caller may
                                 inspect: its own and orphaned ones (0 if TLSF_STATS == 0) */
    size_t chunk_bytes;       /* the size of a chunk (4 MiB, or the configuration's largest
                                 pool if that is less) */
    size_t max_request;       /* the largest request the allocator tries to map (the system
                                 refuses far less) */
    size_t heaps;             /* thread heaps made so far (they are reused, never freed) */
    size_t orphan_heaps;      /* heaps of exited threads, waiting for a new thread */
    size_t unchecked_heaps;   /* heaps of other running threads (or, in a forked child,
                                 of threads that did not survive fork): not inspected */
    size_t cached_bytes;      /* freed large mappings kept for reuse (at most 64 MiB) */
    size_t cache_hits;        /* large requests served from that cache */
    size_t cache_budget;      /* the calling thread's heap: its front-cache budget (each
                                 small freed block kept unmerged for reuse is charged twice
                                 its span): 256 KiB (at most TLSF_CACHE_BYTES), or 64 KiB
                                 while its requests are mixed (1 in 16 or more of at least
                                 1 KiB); 0 without a cache */
};

/* Fill *info (NULL is ignored). Takes the allocator's lock briefly. */
void tlsfm_get_info(struct tlsfm_info *info);

/*
 * Verify the heaps the calling thread may inspect - its own, those of exited threads - and
 * the large blocks: tlsf_check, tlsf_check_pool on every chunk, that the blocks in use in
 * each chunk are exactly those counted there, and that the region map names each chunk
 * and large block. Blocks other threads freed into those heaps are taken back first.
 * Returns 0 when all holds, otherwise the number of failed checks. Linear in the number of
 * blocks; takes the lock (other threads' allocations on their own heaps go on).
 */
int tlsfm_check(void);

#if defined(TLSF_MALLOC_PREFIXED) && TLSF_MALLOC_PREFIXED
void *tlsfm_malloc(size_t bytes);
void tlsfm_free(void *ptr);
void *tlsfm_calloc(size_t count, size_t size);
void *tlsfm_realloc(void *ptr, size_t bytes);
void *tlsfm_memalign(size_t align, size_t bytes);
int tlsfm_posix_memalign(void **out, size_t align, size_t bytes);
void *tlsfm_aligned_alloc(size_t align, size_t bytes);
void *tlsfm_valloc(size_t bytes);
void *tlsfm_pvalloc(size_t bytes);
size_t tlsfm_malloc_usable_size(void *ptr);
#endif

#ifdef __cplusplus
}
#endif

#endif /* TLSF_MALLOC_H */
