/*
 * tlsf_malloc.h - the drop-in malloc of this project (libtlsf_malloc.so): what it adds to
 * the C library's interface.
 *
 * The library defines malloc, free, calloc, realloc, memalign, posix_memalign,
 * aligned_alloc, valloc, pvalloc and malloc_usable_size on one TLSF heap. Programs use them
 * through <stdlib.h> and <malloc.h> as usual, whether the library is preloaded
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

/* A snapshot of the heap (tlsfm_get_info). */
struct tlsfm_info {
    size_t pools;             /* pools in the heap: chunks and dedicated pools */
    size_t dedicated_pools;   /* pools made for one large request */
    size_t empty_chunks;      /* chunks kept mapped with no allocation (0 or 1) */
    size_t mapped_bytes;      /* bytes mapped for pools now */
    size_t peak_mapped_bytes; /* the most that was ever mapped for pools */
    size_t maps;              /* pools mapped so far */
    size_t unmaps;            /* pools returned to the system so far */
    size_t live_blocks;       /* allocations not yet freed */
    size_t used_bytes;        /* bytes in allocated blocks (0 if TLSF_STATS == 0) */
    size_t chunk_bytes;       /* the size of an ordinary pool */
    size_t max_request;       /* the largest malloc that can succeed (the configuration's
                                 TLSF_MAX_BLOCK_LOG2 bounds a pool) */
};

/* Fill *info (NULL is ignored). Takes the heap's lock (and sets the heap up if no
 * allocation did yet). */
void tlsfm_get_info(struct tlsfm_info *info);

/*
 * Verify the whole heap: tlsf_check, tlsf_check_pool on every pool, and that the blocks in
 * use in each pool are exactly those the allocator counted there. Returns 0 when all holds,
 * otherwise the number of failed checks. Linear in the number of blocks; takes the lock.
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
