/* SPDX-License-Identifier: MIT */
/*
 * tlsf_internal.h - every function one file of the core calls in another, and nothing else.
 *
 * The public API is tlsf.h (names tlsf_*); everything here is internal (names tlsfi_*),
 * reached only from inside the core, and never part of the API. Internal names carry the
 * configuration tag too (tlsf_abi.h), so that two builds of the library with different
 * settings in one program cannot resolve each other's internals.
 *
 * The files, from the bottom up; each calls only files listed before it:
 *   tlsf_report.c    misuse reports (integrity)
 *   tlsf_core.c      plain TLSF: out-of-line instances of tlsf_core.h's operations
 *   tlsf_slab.c      slabs (policy): memory from tlsf_core.c
 *   tlsf_cache.c     the front cache (policy): marks and checks; its drain is an inline
 *                    loop (tlsf_cache.h) that the front end instantiates with its merge
 *   tlsf_alloc.c     the front end: the public malloc, free, realloc, memalign, the drain
 *   tlsf_configure.c the run-time switches of the cache and slabs
 *   tlsf_pool.c      heaps and pools
 *   tlsf_inspect.c   sizes, statistics, walk and checks
 */
#ifndef TLSF_INTERNAL_H
#define TLSF_INTERNAL_H

#include "tlsf_control.h"

#define TLSF_INTERNAL(name) TLSF_ABI_NAME(name)

/* ---- tlsf_report.c ---- */

/* A reason the checks pass to tlsfi_report, never to a handler: the header before the
 * pointer does not carry this heap's seal (TLSF_CHECKS >= 2). tlsfi_report names it: a
 * double free if a merge left that header (block_header_absorbed), otherwise a bad
 * pointer. Deciding there, out of line, keeps the checks' fast path free of the values
 * the decision needs (on x86-64 an inline decision made free save two registers). */
#define MISUSE_UNSEALED ((tlsf_error_t)(TLSF_ERROR_CORRUPT_LIST + 1))

/* Report misuse to the heap's handler (or the default one; see tlsf.h). */
#define tlsfi_report TLSF_INTERNAL(tlsfi_report)
TLSF_NO_ASAN void tlsfi_report(tlsf_t heap, tlsf_error_t reason, const void *ptr);

/* ---- tlsf_core.c: plain TLSF (tlsf_core.h) ---- */

/* core_release out of line, for the slabs: the block with user pointer `ptr` and size word
 * `word`, in use to its neighbours, joins the lists, merged with its free neighbours. (The
 * front end keeps its own instance, which the cache's drain uses: tlsf_alloc.c.) */
#define tlsfi_release TLSF_INTERNAL(tlsfi_release)
TLSF_NO_ASAN void tlsfi_release(tlsf_t heap, void *ptr, size_t word);

/* A block of at least `bytes` usable bytes whose user pointer is a multiple of `align`
 * (a power of two above TLSF_ALIGN), taken from the lists as they are: never drains,
 * counts nothing, tells no tool. Returns its user pointer, or NULL. */
#define tlsfi_take_aligned TLSF_INTERNAL(tlsfi_take_aligned)
TLSF_NO_ASAN void *tlsfi_take_aligned(tlsf_t heap, size_t align, size_t bytes);

/* ---- tlsf_slab.c: slabs (tlsf_slab.h) ---- */

struct tlsf_slab;
#define tlsfi_slab_refill TLSF_INTERNAL(tlsfi_slab_refill)
TLSF_NO_ASAN struct tlsf_slab *tlsfi_slab_refill(tlsf_t heap, size_t span);
#define tlsfi_slab_settle TLSF_INTERNAL(tlsfi_slab_settle)
TLSF_NO_ASAN void tlsfi_slab_settle(tlsf_t heap, struct tlsf_slab *slab);
#define tlsfi_slab_release_empty TLSF_INTERNAL(tlsfi_slab_release_empty)
TLSF_NO_ASAN int tlsfi_slab_release_empty(tlsf_t heap);
#define tlsfi_slab_walk TLSF_INTERNAL(tlsfi_slab_walk)
TLSF_NO_ASAN int tlsfi_slab_walk(block_t *block, tlsf_walker walker, void *user);
#define tlsfi_slab_check_block TLSF_INTERNAL(tlsfi_slab_check_block)
TLSF_NO_ASAN int tlsfi_slab_check_block(block_t *block);
#define tlsfi_slab_check_lists TLSF_INTERNAL(tlsfi_slab_check_lists)
TLSF_NO_ASAN int tlsfi_slab_check_lists(tlsf_t heap);

/* ---- tlsf_cache.c: the front cache (tlsf_cache.h) ---- */

/* Set (on != 0) or clear BLOCK_CACHED on every cached block, for a walk where cached blocks
 * carry no mark (TLSF_CACHE_MARKS == 0). Linear in the number of cached blocks, which the
 * budget bounds. */
#define tlsfi_cache_mark TLSF_INTERNAL(tlsfi_cache_mark)
TLSF_NO_ASAN void tlsfi_cache_mark(tlsf_t heap, int on);
/* The number of the cache's invariants (tlsf_cache.h) that fail. */
#define tlsfi_cache_check TLSF_INTERNAL(tlsfi_cache_check)
TLSF_NO_ASAN int tlsfi_cache_check(tlsf_t heap);

/* ---- tlsf_alloc.c: the front end ---- */

/* Give every cached block back to the lists, with the front end's merge
 * (cache_drain_with, tlsf_cache.h). Returns 1 if there was one. Bounded by the budget. */
#define tlsfi_cache_drain TLSF_INTERNAL(tlsfi_cache_drain)
TLSF_NO_ASAN int tlsfi_cache_drain(tlsf_t heap);

/* free_list_insert out of line, for the pools (defined beside malloc and free, so that a
 * small image carries one copy: see there). */
#define tlsfi_insert TLSF_INTERNAL(tlsfi_insert)
TLSF_NO_ASAN void tlsfi_insert(tlsf_t heap, block_t *block, size_t span);

/* ---- tlsf_configure.c ---- */

/* Give back everything the cache and the slabs hold unused: the cache drained, the empty
 * slabs released (tlsf_cache_flush, and before a pool is removed, a heap destroyed or the
 * largest request computed). Bounded as the drain. */
#define tlsfi_flush TLSF_INTERNAL(tlsfi_flush)
TLSF_NO_ASAN void tlsfi_flush(tlsf_t heap);

#endif /* TLSF_INTERNAL_H */
