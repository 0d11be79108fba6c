/* SPDX-License-Identifier: MIT */
/*
 * tlsf.h - a constant-time memory allocator: Two-Level Segregated Fit.
 *
 * A heap (tlsf_t) is a control structure placed in memory the caller provides, plus one or
 * more pools (pool_t): regions of memory the caller hands over for the heap to carve up.
 * tlsf_malloc, tlsf_free, tlsf_realloc and tlsf_memalign run in bounded time: their code
 * has no loop whose trip count depends on the number of blocks, pools or the pool size.
 *
 * The names and meanings follow the widespread C TLSF API (tlsf_create ... tlsf_check),
 * so a program written against it switches by changing its include path. Additions:
 * tlsf_calloc, tlsf_aligned_alloc, tlsf_memalign_offset, statistics, the largest request
 * that is sure to succeed, and an error handler that hears about misuse.
 *
 * Guarantees that hold for every call:
 *   - Every pointer returned is aligned to tlsf_align_size() (alignof(max_align_t) by
 *     default: 8 on 32-bit ARM, 16 on x86-64).
 *   - "Good fit": a request is rounded up to the lower bound of its size class, so the
 *     first block of the chosen free list always fits and no list is searched. The block
 *     keeps that rounded size, so a size that was just freed can always be allocated
 *     again. The rounding wastes less than 1/2^TLSF_SL_INDEX_LOG2 of the request
 *     (6.25% with 16 second-level lists, 3.1% with 32) plus the alignment padding.
 *   - No call on a valid heap corrupts it when given bad arguments: each case below has
 *     a stated result.
 *   - A NULL heap makes every function return NULL, 0 or 1 (tlsf_check) or do nothing,
 *     except that tlsf_malloc, tlsf_free and tlsf_realloc skip that test when the library
 *     is built with TLSF_CHECKS=0 (the fastest configuration), which requires a valid heap.
 *
 * Threads: a heap is not locked internally. Calls on one heap must not overlap: describe
 * your lock once as a tlsf_lock_t and call the tlsf_locked_* wrappers (tlsf_lock.h; the
 * FreeRTOS port and the C++ layer use the same type), or use the C++ layer's locked
 * default heap, or the malloc shim's per-thread heaps (malloc/).
 *
 * Dependencies: <stddef.h>, <stdint.h>, <stdbool.h>, memcpy and memset. No stdio; every
 * heap lives in the caller's memory. The one word of global state is a count of the heaps
 * created, with sealed headers (TLSF_CHECKS 2), so that each creation gets a key of its own
 * (tlsf_create). (Hosted builds with the default error handler also use fprintf and abort;
 * see TLSF_DEFAULT_ERROR_HANDLER.)
 *
 * Debugging aids, chosen when the library is built (tlsf_config.h): TLSF_FILL fills fresh
 * blocks with 0xCD and freed ones with 0xDD; TLSF_MEMCHECK lets valgrind's memcheck see
 * TLSF blocks as heap blocks (leaks, use after free, uninitialised reads).
 */
#ifndef TLSF_H
#define TLSF_H

#include <stddef.h>
#include <stdint.h>

#include "tlsf_abi.h"
#include "tlsf_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A heap. Distinct from pool_t: passing one where the other is expected does not compile. */
typedef struct tlsf_heap *tlsf_t;
/* A pool: a region of memory added to a heap. */
typedef struct tlsf_pool *pool_t;

/* What the heap detected. Passed to the error handler. */
typedef enum tlsf_error {
    TLSF_ERROR_NONE = 0,
    TLSF_ERROR_DOUBLE_FREE,   /* the block is already free */
    TLSF_ERROR_BAD_POINTER,   /* misaligned, or not the start of a block of this heap */
    TLSF_ERROR_CORRUPT_BLOCK, /* a block header does not hold what the heap wrote */
    TLSF_ERROR_BAD_POOL,      /* pool memory misaligned, too small or too large */
    TLSF_ERROR_POOL_IN_USE,   /* tlsf_remove_pool on a pool that holds allocations */
    TLSF_ERROR_CORRUPT_LIST   /* a link of the heap's lists, cache or slabs was overwritten */
} tlsf_error_t;
/* With TLSF_CHECKS 2 the heap also checks its own metadata where it relies on it: a free
 * block's header and list links before it is taken or merged (each list neighbour a head
 * or a sealed free block pointing back), a cached block's or a freed slab object's link on
 * every pop (stored encoded with its address, its block's header word and the heap's key,
 * so that the pop also catches a changed header), the header after a block before the
 * drain, a slab's release or a realloc trusts or updates it. A detection is reported
 * (TLSF_ERROR_CORRUPT_BLOCK or TLSF_ERROR_CORRUPT_LIST) and the call fails (NULL, or
 * nothing freed) without handing out memory that overlaps a live block. Strength: a
 * damaged header passes for one the heap sealed with a chance of 2^-27 on 64-bit targets
 * (2^-32 on 32-bit ones), a damaged link with 2^-21 for pools below 2^47 (on 32-bit
 * targets: the share of the address space the pools span, over 2^(alignment bits)); for a
 * program that does not know the key. docs/reliability.md lists what each level catches
 * and the limits. */

/*
 * The error handler. Called when a heap detects misuse, with the heap, the reason and
 * the pointer involved, and the user value given to tlsf_set_error_handler. When it
 * returns, the call that detected the misuse does nothing further (free leaves the heap
 * as it was, realloc and tlsf_usable_size return NULL or 0, add_pool returns NULL): the
 * heap and its statistics stay exactly as they were.
 * When no handler is installed: misuse of a block (TLSF_ERROR_DOUBLE_FREE, _BAD_POINTER,
 * _CORRUPT_BLOCK) goes where the library's build decides (TLSF_DEFAULT_ERROR_HANDLER,
 * tlsf_config.h): hosted builds made with CMake run tlsf_default_error_handler, which
 * prints one line on stderr and aborts; freestanding builds (and the header's default)
 * do nothing further, silently. Bad pool arguments (TLSF_ERROR_BAD_POOL,
 * _POOL_IN_USE) never abort on their own: the call's result says it failed (NULL, or the
 * pool stays in the heap), and only an installed handler hears of them. The C++ layer
 * and the malloc shim install handlers of their own, which abort.
 */
typedef void (*tlsf_error_handler_t)(tlsf_t tlsf, tlsf_error_t reason, const void *ptr, void *user);

/* Called by tlsf_walk_pool for each block: its user pointer, usable size and state. */
typedef void (*tlsf_walker)(void *ptr, size_t size, int used, void *user);

/* Statistics of a heap (see tlsf_get_stats). Byte counts include block headers. */
typedef struct tlsf_stats {
    size_t pool_bytes;          /* bytes the pools provide for blocks */
    size_t used_bytes;          /* bytes in allocated blocks, headers included */
    size_t free_bytes;          /* pool_bytes - used_bytes */
    size_t peak_used_bytes;     /* the highest used_bytes seen (since create or reset) */
    size_t live_blocks;         /* allocations not yet freed */
    size_t alloc_count;         /* successful allocations, reallocations that moved included */
    size_t free_count;          /* blocks freed */
    size_t failed_count;        /* allocation requests that returned NULL */
    size_t largest_allocatable; /* served without draining the cache (see tlsf_get_stats) */
    size_t pool_count;          /* pools currently in the heap */
} tlsf_stats_t;

/* Every public symbol carries the configuration tag; see tlsf_abi.h. */
#define tlsf_create TLSF_ABI_NAME(tlsf_create)
#define tlsf_create_with_pool TLSF_ABI_NAME(tlsf_create_with_pool)
#define tlsf_create_sized TLSF_ABI_NAME(tlsf_create_sized)
#define tlsf_create_compact TLSF_ABI_NAME(tlsf_create_compact)
#define tlsf_size_for TLSF_ABI_NAME(tlsf_size_for)
#define tlsf_compact_pool_bytes TLSF_ABI_NAME(tlsf_compact_pool_bytes)
#define tlsf_destroy TLSF_ABI_NAME(tlsf_destroy)
#define tlsf_get_pool TLSF_ABI_NAME(tlsf_get_pool)
#define tlsf_add_pool TLSF_ABI_NAME(tlsf_add_pool)
#define tlsf_remove_pool TLSF_ABI_NAME(tlsf_remove_pool)
#define tlsf_malloc TLSF_ABI_NAME(tlsf_malloc)
#define tlsf_calloc TLSF_ABI_NAME(tlsf_calloc)
#define tlsf_memalign TLSF_ABI_NAME(tlsf_memalign)
#define tlsf_memalign_offset TLSF_ABI_NAME(tlsf_memalign_offset)
#define tlsf_aligned_alloc TLSF_ABI_NAME(tlsf_aligned_alloc)
#define tlsf_realloc TLSF_ABI_NAME(tlsf_realloc)
#define tlsf_free TLSF_ABI_NAME(tlsf_free)
#define tlsf_block_size TLSF_ABI_NAME(tlsf_block_size)
#define tlsf_usable_size TLSF_ABI_NAME(tlsf_usable_size)
#define tlsf_cache_flush TLSF_ABI_NAME(tlsf_cache_flush)
#define tlsf_cache_set_limit TLSF_ABI_NAME(tlsf_cache_set_limit)
#define tlsf_slabs_enable TLSF_ABI_NAME(tlsf_slabs_enable)
#define tlsf_slabs_size TLSF_ABI_NAME(tlsf_slabs_size)
#define tlsf_size TLSF_ABI_NAME(tlsf_size)
#define tlsf_align_size TLSF_ABI_NAME(tlsf_align_size)
#define tlsf_block_size_min TLSF_ABI_NAME(tlsf_block_size_min)
#define tlsf_block_size_max TLSF_ABI_NAME(tlsf_block_size_max)
#define tlsf_pool_overhead TLSF_ABI_NAME(tlsf_pool_overhead)
#define tlsf_alloc_overhead TLSF_ABI_NAME(tlsf_alloc_overhead)
#define tlsf_walk_pool TLSF_ABI_NAME(tlsf_walk_pool)
#define tlsf_check TLSF_ABI_NAME(tlsf_check)
#define tlsf_check_pool TLSF_ABI_NAME(tlsf_check_pool)
#define tlsf_get_stats TLSF_ABI_NAME(tlsf_get_stats)
#define tlsf_reset_peak TLSF_ABI_NAME(tlsf_reset_peak)
#define tlsf_largest_allocatable TLSF_ABI_NAME(tlsf_largest_allocatable)
#define tlsf_set_error_handler TLSF_ABI_NAME(tlsf_set_error_handler)
#define tlsf_error_string TLSF_ABI_NAME(tlsf_error_string)
#define tlsf_default_error_handler TLSF_ABI_NAME(tlsf_default_error_handler)

/* ---- Heaps -------------------------------------------------------------------------- */

/*
 * tlsf_create: build an empty heap (no pools) in `mem`, which must hold tlsf_size()
 * bytes and be aligned to tlsf_align_size(). Touches only the bitmaps and statistics,
 * not the free-list heads (a head's words are used only while its bitmap bit says its
 * list has blocks), so it takes a few dozen stores whatever the configuration. Returns
 * the heap, or NULL if `mem` is NULL or misaligned. The heap lives entirely inside `mem`.
 * With sealed headers (TLSF_CHECKS 2) each creation gets a new key for its seals, from
 * its address and a count of the heaps created: a pointer from an earlier heap made in the
 * same memory is refused by the new one (a bad pointer), except with the probability of a
 * seal collision, about 2^-27 on 64-bit targets and 2^-32 on 32-bit ones.
 */
tlsf_t tlsf_create(void *mem);

/*
 * tlsf_create_with_pool: tlsf_create on the start of `mem`, then tlsf_add_pool with the
 * remaining `bytes - tlsf_size()` bytes. Returns the heap, or NULL if `mem` is NULL or
 * misaligned, or if the rest is not a valid pool (too small, too large; see
 * tlsf_add_pool). tlsf_get_pool returns that pool.
 */
tlsf_t tlsf_create_with_pool(void *mem, size_t bytes);

/*
 * Sized heaps. The control structure holds two list-head words for every size class up to
 * tlsf_block_size_max(): about 15 KiB on 64-bit targets and 3 KiB on 32-bit ones, most of
 * them heads of classes that a small heap's blocks never reach. A sized heap holds the heads
 * of the rows of classes its pools can use and no more (a row: the classes of one power of
 * two of block sizes, 2^TLSF_SL_INDEX_LOG2 of them): it is told the largest pool it will
 * get, and tlsf_add_pool refuses a pool whose block would fall in a row it lacks. Every
 * other call, its bounds, the misuse checks, the front cache and the slabs behave as on a
 * heap of tlsf_create. With the default configuration on x86-64 the control structure
 * takes 3,152 bytes for pools of 4 KiB, 5,200 for 64 KiB and 7,248 for 1 MiB, against
 * tlsf_size()'s 15,440 (docs/design.md, "The control structure").
 */

/*
 * tlsf_size_for: the bytes of the control structure of a sized heap whose pools each hold
 * at most `pool_bytes` bytes (tlsf_add_pool's `bytes`): a multiple of tlsf_align_size(), at
 * most tlsf_size(), and equal to TLSF_CONTROL_BYTES_FOR(pool_bytes) (tlsf_abi.h). A
 * `pool_bytes` of 0, or too small for a block, gives the size for the smallest pool; one
 * whose block would reach tlsf_block_size_max() (SIZE_MAX included) gives tlsf_size().
 * O(1).
 */
size_t tlsf_size_for(size_t pool_bytes);

/*
 * tlsf_compact_pool_bytes: the pool tlsf_create_compact(mem, bytes) makes: the largest
 * `pool` for which tlsf_size_for(pool) + pool <= bytes (a multiple of the alignment). The
 * control structure takes the first tlsf_size_for(pool) bytes of `mem`, the pool follows
 * it, and any bytes left at the end (less than the alignment, or, for some small `bytes`,
 * what a pool of one more row of size classes could not use) stay unused. 0 if `bytes` is
 * below TLSF_COMPACT_MIN_BYTES (tlsf_abi.h). Bounded: one step per row of size classes.
 */
size_t tlsf_compact_pool_bytes(size_t bytes);

/*
 * tlsf_create_sized: tlsf_create for a sized heap whose pools each hold at most
 * `pool_bytes` bytes: `mem` need hold only tlsf_size_for(pool_bytes) bytes, aligned to
 * tlsf_align_size(). tlsf_add_pool then accepts a pool of up to `pool_bytes` bytes, and a
 * larger one while its block stays in the same row (below the same power of two), and
 * refuses the others as out of range (NULL; TLSF_ERROR_BAD_POOL to an installed handler).
 * No block grows beyond its pool, so a request larger than the largest block such pools
 * hold fails as on a full heap: tlsf_malloc returns NULL, after draining the front cache,
 * and counts it in failed_count; it is not misuse. `pool_bytes` of 0, or too small for a
 * pool, is taken as the smallest pool; one too large for any pool gives the heap
 * tlsf_create makes. Returns the heap, or NULL if `mem` is NULL or misaligned. O(1): the
 * stores of tlsf_create and one or two more.
 */
tlsf_t tlsf_create_sized(void *mem, size_t pool_bytes);

/*
 * tlsf_create_compact: a sized heap and its one pool in the `bytes` bytes at `mem`, for a
 * static buffer or an arena: the pool of tlsf_compact_pool_bytes(bytes) bytes right after
 * the control structure sized for it (tlsf_get_pool returns the pool). So a buffer of N bytes
 * loses about tlsf_size_for(N) bytes to the heap's state instead of tlsf_size(): on x86-64,
 * 5,200 of 64 KiB (8%) instead of 15,440 (24%). More pools may be added later, as large as
 * the rows the heap holds allow (tlsf_create_sized). Returns the heap, or NULL if `mem` is
 * NULL or misaligned or `bytes` is below TLSF_COMPACT_MIN_BYTES; nothing is written then.
 * (Beyond the largest block the configuration has, the pool stops there: tlsf_size() and a
 * pool of the largest size.) Bounded as tlsf_compact_pool_bytes.
 */
tlsf_t tlsf_create_compact(void *mem, size_t bytes);

/*
 * tlsf_destroy: end the use of a heap. The heap owns no resources: this only gives cached
 * blocks back to the lists (tlsf_cache_flush), and the caller may reuse the memory
 * afterwards. NULL is ignored.
 */
void tlsf_destroy(tlsf_t tlsf);

/*
 * tlsf_get_pool: the pool that tlsf_create_with_pool or tlsf_create_compact placed after
 * the control structure (its address is `tlsf + tlsf_size()`, or `tlsf +
 * tlsf_size_for(tlsf_compact_pool_bytes(bytes))` for tlsf_create_compact). Meaningful only
 * for heaps made that way; NULL for a NULL heap.
 */
pool_t tlsf_get_pool(tlsf_t tlsf);

/* ---- Pools -------------------------------------------------------------------------- */

/*
 * tlsf_add_pool: give the `bytes` bytes at `mem` to the heap, as one free block. `mem`
 * must be aligned to tlsf_align_size(); `bytes` must be at least tlsf_pool_overhead() +
 * tlsf_alloc_overhead() + tlsf_block_size_min() (one smallest block) and the part for
 * blocks below tlsf_block_size_max() (bytes beyond
 * a multiple of the alignment are left unused). Any number of pools may be added; they
 * must not overlap each other or the control structure. O(1). Returns the pool, or NULL
 * if `tlsf` or `mem` is NULL, `mem` is misaligned, or `bytes` is out of range (on a sized
 * heap, also beyond the rows of classes it holds: tlsf_create_sized); the heap is then
 * unchanged and an installed handler hears TLSF_ERROR_BAD_POOL (the default handler does
 * not: this never aborts).
 */
pool_t tlsf_add_pool(tlsf_t tlsf, void *mem, size_t bytes);

/*
 * tlsf_remove_pool: take a pool back from the heap. The cache is flushed first (bounded,
 * see tlsf_cache_flush); then the pool must hold no allocation (it is a single free
 * block). If it does, nothing changes and an installed handler hears
 * TLSF_ERROR_POOL_IN_USE (the default handler does not: this never aborts). With sealed
 * headers (TLSF_CHECKS 2) a pool that is not this heap's (another heap's, memory outside
 * the range of this heap's pools, a misaligned pointer) is refused before anything
 * changes, and an installed handler hears TLSF_ERROR_BAD_POOL; below level 2 the pool must
 * be this heap's (another heap's is undefined behaviour). O(1) besides the flush. NULL
 * arguments are ignored.
 */
void tlsf_remove_pool(tlsf_t tlsf, pool_t pool);

/* ---- Allocation ----------------------------------------------------------------------- */

/*
 * tlsf_malloc: a block of at least `bytes` usable bytes, aligned to tlsf_align_size(),
 * or NULL if no free block is large enough (counted in failed_count). `bytes == 0`
 * returns a unique minimum-size block, like glibc. Sizes beyond what the highest size
 * class can serve (a little below tlsf_block_size_max()), SIZE_MAX included, return NULL
 * without wrapping around. O(1): one size-class computation, then with the front cache
 * a pop of the class's cached block when there is one; otherwise at most two bitmap
 * searches, one list removal and at most one split. When no list can serve the request
 * and the cache holds blocks, the cache is drained first (at most TLSF_CACHE_BYTES /
 * (4 * tlsf_alloc_overhead() + 4 * sizeof(void *)) ordinary frees; see tlsf_cache_flush)
 * and the search runs once more: a request fails only when the heap truly has no room. With
 * TLSF_CACHE=2 (the stale drain, 64-bit default) a request that misses its cached class, finds no
 * room in the budget for it and follows a run of frees the cache refused, as many as it
 * can hold blocks, with no push or pop among them, drains it first too (same bound). On a
 * heap with slabs (tlsf_slabs_enable) a request a slab serves skips the cache: it pops the
 * last freed object of its span's current slab, or takes the slab's next fresh one; when the
 * slab has neither, another one is made current, or a new one is taken with one memalign
 * (the same search, drain included), and when there is no room for a slab the request takes
 * the cache and the lists as above; a drain also gives back the empty slabs (a pass over the
 * 17 object spans). With TLSF_FILL the block's usable bytes hold
 * TLSF_FILL_ALLOC_BYTE (0xCD); this, and the same for memalign and realloc's added bytes,
 * costs a memset of the block.
 */
void *tlsf_malloc(tlsf_t tlsf, size_t bytes);

/*
 * tlsf_calloc: tlsf_malloc(count * size) with the block zeroed (the requested bytes, also
 * with TLSF_FILL). Returns NULL if the product overflows size_t or the allocation fails.
 * O(1) plus the memset.
 */
void *tlsf_calloc(tlsf_t tlsf, size_t count, size_t size);

/*
 * tlsf_memalign: a block of at least `bytes` usable bytes whose address is a multiple of
 * `align`. `align` must be a power of two; any power of two up to the pool size works.
 * Alignments not above tlsf_align_size() behave as tlsf_malloc. Returns NULL if `align`
 * is zero or not a power of two, or if no block is large enough; the heap is unchanged.
 * O(1): like tlsf_malloc, plus at most one extra split for the leading gap. A later
 * tlsf_realloc keeps the alignment.
 */
void *tlsf_memalign(tlsf_t tlsf, size_t align, size_t bytes);

/*
 * tlsf_memalign_offset: like tlsf_memalign, but it is `(char *)result + offset` that is a
 * multiple of `align` (for a prefix header before aligned data, as EASTL-style allocators
 * and DMA descriptors need). `offset` must be a multiple of min(align,
 * tlsf_align_size()), since every block starts at such a multiple, and smaller than
 * `bytes` unless `bytes` is 0; otherwise the result is NULL. A later tlsf_realloc keeps
 * the address's natural alignment, not the offset relation.
 */
void *tlsf_memalign_offset(tlsf_t tlsf, size_t align, size_t bytes, size_t offset);

/*
 * tlsf_aligned_alloc: C11 aligned_alloc on this heap: tlsf_memalign(tlsf, align, bytes).
 * Unlike some C libraries it does not require `bytes` to be a multiple of `align`.
 */
void *tlsf_aligned_alloc(tlsf_t tlsf, size_t align, size_t bytes);

/*
 * tlsf_realloc: resize the block at `ptr` to at least `bytes` usable bytes, keeping its
 * contents up to the smaller size. Shrinks in place (returning the tail to the heap);
 * grows in place when the next block is free and large enough; otherwise allocates a new
 * block (with the same alignment if `ptr` came from tlsf_memalign), copies and frees the
 * old one. `ptr == NULL` is tlsf_malloc(bytes); `bytes == 0` with a non-NULL `ptr` frees
 * it and returns NULL. On failure returns NULL and the old block is untouched. A `ptr`
 * that fails the free-time checks (see TLSF_CHECKS) is reported and NULL is returned.
 * O(1) apart from the copy.
 */
void *tlsf_realloc(tlsf_t tlsf, void *ptr, size_t bytes);

/*
 * tlsf_free: return a block to the heap: with the front cache (TLSF_CACHE), a plain block
 * of an exact small class is kept whole on its class's stack while the budget allows;
 * a slab's object (tlsf_slabs_enable) goes on its slab's free list, and the slab back to
 * the lists if it was its last in use and the slab is not its span's current one;
 * otherwise the block is merged with its free physical neighbours. NULL is ignored. Misuse is
 * reported to the error handler and the heap and its statistics are left untouched:
 *   TLSF_CHECKS >= 1: a misaligned pointer (TLSF_ERROR_BAD_POINTER); a block already
 *     free or cached (TLSF_ERROR_DOUBLE_FREE);
 *   TLSF_CHECKS >= 2 (the default of hosted and 64-bit builds): any pointer that is not
 *     the start of a live block of this heap - interior, another heap's, the C
 *     library's, a stack or static buffer - (TLSF_ERROR_BAD_POINTER), and a block whose
 *     own or neighbours' header was overwritten, e.g. by a write past the end of the
 *     block (TLSF_ERROR_CORRUPT_BLOCK). The header before `ptr` must be readable memory.
 * Below level 2 a foreign pointer is undefined behaviour. O(1): at most two list removals
 * and one insertion. With TLSF_CACHE=2 (64-bit default) the free of a block at
 * least as large as the cache's budget that follows a run of frees the cache refused, as
 * many as it can hold blocks, with no push or pop among them, drains the cache afterwards
 * (the bound of tlsf_malloc's drain), so that the blocks cached before merge. With
 * TLSF_FILL the block's bytes are overwritten with TLSF_FILL_FREE_BYTE (0xDD), except the
 * words the heap keeps in a free block (see tlsf_config.h), before it is merged or cached.
 */
void tlsf_free(tlsf_t tlsf, void *ptr);

/* ---- Sizes and constants ------------------------------------------------------------ */

/*
 * tlsf_block_size: the usable size of the block at `ptr` (at least what was asked for;
 * the rounding of "good fit" may add a little). 0 for NULL. Kept with the widespread
 * API's signature, which names no heap, so it cannot check `ptr`: it must be a live
 * block, its header is read unchecked. tlsf_usable_size is the checked form. Though it
 * takes no heap, it is a call on the block's heap (the header word it reads changes when
 * a neighbour is allocated or freed): under the same lock as the others.
 */
size_t tlsf_block_size(void *ptr);

/*
 * tlsf_usable_size: tlsf_block_size with the free-time checks of `heap`: 0 for NULL
 * arguments, and for a pointer that tlsf_free would refuse (misaligned, freed, cached,
 * not a live block of this heap, a corrupt header: see tlsf_free and TLSF_CHECKS), which
 * is reported to the error handler like a bad free. O(1).
 */
size_t tlsf_usable_size(tlsf_t tlsf, const void *ptr);

/* tlsf_size: bytes needed for a heap's control structure (a multiple of the alignment): of
 * every heap tlsf_create makes; a sized heap needs only tlsf_size_for(pool bytes). */
size_t tlsf_size(void);
/* tlsf_align_size: the alignment of every returned pointer and of pool memory. */
size_t tlsf_align_size(void);
/* tlsf_block_size_min: the usable size of the smallest block (a slab object can be smaller:
 * one word, the usable size of a slab's smallest objects; tlsf_slabs_enable). */
size_t tlsf_block_size_min(void);
/* tlsf_block_size_max: the size every block, and a pool's usable part, stays below. */
size_t tlsf_block_size_max(void);
/* tlsf_pool_overhead: bytes of a pool outside its blocks (start padding, end sentinel; one
 * word more with the cache and without the checks, see TLSF_CACHE_MARKS). */
size_t tlsf_pool_overhead(void);
/* tlsf_alloc_overhead: bytes of header per allocated block (one machine word; more with
 * TLSF_CHECKS >= 2). A block's span is its usable size plus this. */
size_t tlsf_alloc_overhead(void);

/* ---- Inspection ------------------------------------------------------------------- */

/*
 * tlsf_walk_pool: call `walker(ptr, usable_size, used, user)` for each block of the pool
 * in address order; a block in the front cache is reported free (used 0); a slab
 * (tlsf_slabs_enable) is reported as its unused part (free) and each object it handed out. A NULL
 * walker does nothing. The walker must not allocate from or free into the heap. Linear in the
 * pool's block count plus, without the checks (TLSF_CHECKS 0, where cached blocks carry no
 * mark and the walk marks them for its duration), twice the number of cached blocks; not
 * for real-time paths.
 */
void tlsf_walk_pool(pool_t pool, tlsf_walker walker, void *user);

/*
 * tlsf_check: verify the heap's bitmaps and free lists: every bitmap bit matches a
 * non-empty list, every listed block is free, links are consistent and the block sits in
 * the list its size maps to. Returns 0 when all holds, otherwise the number of failed
 * checks. Linear in the number of free blocks. NULL returns 1.
 */
int tlsf_check(tlsf_t tlsf);

/*
 * tlsf_check_pool: verify a pool's physical chain: sizes in range, no two free blocks
 * adjacent, the "previous is free" flags and back-links right, the sentinel in place.
 * Returns 0 or the number of failed checks. Linear in the pool's block count.
 */
int tlsf_check_pool(pool_t pool);

/*
 * tlsf_get_stats: fill `*stats` with the heap's statistics. O(1), and it changes nothing
 * (the cache is not flushed): largest_allocatable is the largest request served without
 * draining the cache, which equals tlsf_largest_allocatable() when the cache is empty or
 * compiled out and is never above it. On a heap with slabs it may be above it by a cached
 * slab object (at most 248 bytes: a flush gives that to its slab, not the lists), and
 * below it while a slab has no object in use (a flush gives the slab back). Cached blocks count as
 * free. With TLSF_STATS == 0 only pool_bytes, pool_count and largest_allocatable are filled; the
 * rest are 0. NULL arguments are ignored.
 */
void tlsf_get_stats(tlsf_t tlsf, tlsf_stats_t *stats);

/* tlsf_reset_peak: set peak_used_bytes to the current used_bytes. NULL is ignored. */
void tlsf_reset_peak(tlsf_t tlsf);

/*
 * tlsf_largest_allocatable: the largest `bytes` for which tlsf_malloc(tlsf, bytes) would
 * succeed right now (0 if none would). Exact, not an estimate: computed in O(1) from the
 * bitmaps, using the same size-class rounding as tlsf_malloc, after flushing the front
 * cache (a malloc the lists cannot serve drains it too, so the answer is the same). On a
 * heap with slabs (tlsf_slabs_enable) a request of up to 248 bytes may also be served by
 * a free object of a slab of its span when this says 0.
 */
size_t tlsf_largest_allocatable(tlsf_t tlsf);

/*
 * tlsf_cache_flush: give every block of the front cache back to the lists, merging each
 * with its free neighbours, as a free without the cache would have. Bounded: at most
 * TLSF_CACHE_BYTES / (2 * smallest block span) blocks, each an O(1) free, plus a pass over
 * the cached classes (2 << TLSF_SL_INDEX_LOG2 of them): the budget charges every cached
 * block twice its span, so it bounds the number of blocks too. On a heap with slabs it
 * also gives back every slab with no object in use (at most one per object span: 15 more
 * O(1) frees). Nothing without the cache; NULL is ignored. The statistics do not change
 * (cached blocks and unused slab space already count as free).
 */
void tlsf_cache_flush(tlsf_t tlsf);

/*
 * tlsf_cache_set_limit: set the heap's cache budget to `bytes`, at most TLSF_CACHE_BYTES
 * (larger values are clamped: the drain bound rests on it); 0 turns the cache off for this
 * heap. If the cache holds more than the new budget, it is flushed first. Returns the
 * budget now in force (0 without the cache, or for a NULL heap). A new heap starts with
 * TLSF_CACHE_BYTES.
 */
size_t tlsf_cache_set_limit(tlsf_t tlsf, size_t bytes);

/*
 * tlsf_slabs_enable: cut this heap's requests of up to TLSF_SLAB_REQUEST_MAX bytes (248 on
 * 64-bit targets, 232 with TLSF_SL_INDEX_LOG2 3, where the exact size classes end) with an
 * alignment of at most tlsf_align_size() from slabs of `slab_bytes` bytes from now on
 * (64-bit builds with the cache: TLSF_SLABS, tlsf_abi.h). A slab is one block of the heap, aligned
 * to its size, holding objects of one span; a free pushes the object on its slab's free list
 * instead of merging it (the front cache keeps no objects: slabs serve their spans first,
 * and switching slabs on flushes the cache), and a slab goes back to the lists when its last
 * object is freed. An object spans its request and a one-word tag, rounded up to
 * tlsf_align_size(): a request of up to one word takes tlsf_align_size() bytes (16 on 64-bit
 * targets, half an ordinary block's least). Every call stays O(1); the price is that a slab's free
 * objects serve only its span, so a full heap fails somewhat earlier (docs/benchmarks.md, "Losses":
 * the fragmentation figures). When no slab can be taken from the lists, a request gets an ordinary
 * block. `slab_bytes` must be a power of two from TLSF_SLAB_BYTES_MIN to TLSF_SLAB_BYTES_MAX (4 to
 * 64 KiB), and while the heap holds slabs it cannot change (objects find their slab by its
 * alignment); 0 switches slabs off for new requests (the cache is flushed, objects in use
 * stay valid, and empty slabs go back at once). Objects are blocks to every other call:
 * tlsf_free, tlsf_realloc (in place while the new size fits the object), tlsf_usable_size,
 * the misuse checks, ASan, valgrind and the fill patterns treat them as such;
 * tlsf_walk_pool reports a slab's objects one by one and the rest of the slab as free; the
 * statistics count each object as a block of its span and the rest of a slab as free.
 * Returns 0 on success, -1 for a NULL heap, a bad `slab_bytes`, a change of size while slabs
 * exist, or a build without TLSF_SLABS (where 0 still succeeds).
 */
int tlsf_slabs_enable(tlsf_t tlsf, size_t slab_bytes);

/* tlsf_slabs_size: the slab size of a heap with slabs switched on, 0 otherwise (and for a
 * NULL heap). */
size_t tlsf_slabs_size(tlsf_t tlsf);

/*
 * tlsf_set_error_handler: install `handler` (NULL restores the default: see
 * tlsf_error_handler_t) and the `user` value passed back to it. A NULL heap is ignored.
 */
void tlsf_set_error_handler(tlsf_t tlsf, tlsf_error_handler_t handler, void *user);

#if TLSF_DEFAULT_ERROR_HANDLER
/*
 * tlsf_default_error_handler: what a heap with no handler installed calls on misuse, in
 * builds with TLSF_DEFAULT_ERROR_HANDLER=1 (hosted). Writes one line to stderr,
 *   tlsf: <tlsf_error_string(reason)> (pointer <ptr>, heap <tlsf>); aborting
 * and calls abort(); never returns. `user` is ignored. A handler of your own may call it
 * after its own reporting.
 */
void tlsf_default_error_handler(tlsf_t tlsf, tlsf_error_t reason, const void *ptr, void *user);
#endif

/* tlsf_error_string: a short English description of `reason`; never NULL. */
const char *tlsf_error_string(tlsf_error_t reason);

#ifdef __cplusplus
}
#endif

#endif /* TLSF_H */
