/* SPDX-License-Identifier: MIT */
/*
 * tlsf.h - this library behind the API of mattconte/tlsf 3.1, the TLSF that LVGL, ESP-IDF,
 * the Flipper Zero firmware, RIOT and NuttX carry.
 *
 * A program written against that header switches by putting this directory first on its
 * include path instead of mattconte's (or by linking the CMake target tlsf::mattconte
 * instead of compiling tlsf.c): the same 20 functions with the same arguments, `void *`
 * handles, plain link symbols (objects compiled against mattconte's header, hand-written
 * prototypes and dlsym find them), and mattconte's results where this library's own API
 * (core/include/tlsf.h) answers differently. docs/mattconte.md lists what changes, what
 * cannot be the same and why, and the figures.
 *
 * Underneath is this library's core, built for this layer with the front cache off (every
 * free merges at once, so walks and free-block counts are mattconte's) and the checks of
 * its target's default (TLSF_CHECKS: 1 on 32-bit targets, where a block's header stays one
 * word; 2 on 64-bit ones, where the seal costs no memory). So tlsf_malloc, tlsf_free,
 * tlsf_realloc and tlsf_memalign keep the core's bounds (docs/cortex-m4.md), and misuse of
 * tlsf_free (a block freed twice, a misaligned pointer; with level 2 also a foreign or
 * interior pointer and an overwritten header) is refused, never corrupting the heap:
 * hosted builds print one line and abort, as mattconte's assertions do in its default
 * build; bare-metal builds ignore the call.
 *
 * Every pointer returned is aligned to tlsf_align_size(): alignof(max_align_t) (8 on 32-bit
 * Arm, 16 on x86-64 and i386), where mattconte aligns to a machine word.
 *
 * This header declares nothing beyond mattconte's API, so a program's own helpers named
 * after this library's additions (tlsf_calloc, tlsf_usable_size, ...) keep their names; the
 * additions are reached from a file compiled against this library's own header with the
 * layer's settings (CMake target tlsf::mattconte_native; docs/mattconte.md).
 *
 * Threads: a heap is not locked; calls on one heap must not overlap (as with mattconte).
 */
#ifndef TLSF_MATTCONTE_H
#define TLSF_MATTCONTE_H

#include <stddef.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* A heap: the control structure at the start of the memory given to tlsf_create. */
typedef void *tlsf_t;
/* A pool: memory added to a heap; the handle is the (aligned) start of that memory. */
typedef void *pool_t;

/* ---- Heaps ---------------------------------------------------------------------------- */

/*
 * tlsf_create: build a heap with no pool in `mem`, which must hold tlsf_size() bytes and
 * be aligned to tlsf_align_size(). Returns the heap (== mem). A misaligned `mem` returns
 * NULL, as mattconte's does, and hosted builds print why on stdout; a NULL `mem` returns
 * NULL. O(1).
 */
tlsf_t tlsf_create(void *mem);

/*
 * tlsf_create_with_pool: a heap at the start of the `bytes` bytes at `mem`, and the rest
 * of them added as its pool (tlsf_add_pool). `mem` may have any alignment: the heap starts
 * at the first multiple of tlsf_align_size() in it, and the few bytes before are unused.
 * Returns the heap. As with mattconte, a rest too small or too large to be a pool leaves
 * the heap without a pool (tlsf_malloc returns NULL until tlsf_add_pool gives it one) and
 * hosted builds print why. Where mattconte would write its control structure past the end
 * of `bytes`, this returns NULL and writes nothing; NULL `mem` returns NULL. O(1).
 */
tlsf_t tlsf_create_with_pool(void *mem, size_t bytes);

/* tlsf_destroy: end the use of a heap. It owns nothing but the caller's memory, so this
 * does nothing; NULL is ignored. */
void tlsf_destroy(tlsf_t tlsf);

/* tlsf_get_pool: the pool tlsf_create_with_pool added: the address `tlsf + tlsf_size()`.
 * Meaningful only for a heap made that way with a pool; NULL for a NULL heap. */
pool_t tlsf_get_pool(tlsf_t tlsf);

/* ---- Pools ---------------------------------------------------------------------------- */

/*
 * tlsf_add_pool: give the `bytes` bytes at `mem` to the heap as one free block. `mem` may
 * have any alignment: the pool starts at the first multiple of tlsf_align_size() in it.
 * The pool, less its alignment gap, must hold at least tlsf_pool_overhead() +
 * tlsf_alloc_overhead() + tlsf_block_size_min() bytes and at most tlsf_pool_overhead() +
 * tlsf_block_size_max() - tlsf_align_size() (bytes beyond a multiple of the alignment are
 * left unused); pools must not overlap each other or a heap.
 * Returns the pool (the aligned start, == mem when mem is aligned), or NULL when `bytes` is
 * out of range (hosted builds print the range, as mattconte does) or an argument is NULL.
 * O(1).
 */
pool_t tlsf_add_pool(tlsf_t tlsf, void *mem, size_t bytes);

/*
 * tlsf_remove_pool: take back a pool that holds no allocation. A pool still in use stays
 * in the heap, unchanged (mattconte asserts); on 64-bit targets a pool that is not this
 * heap's is refused too. NULL arguments are ignored. O(1).
 */
void tlsf_remove_pool(tlsf_t tlsf, pool_t pool);

/* ---- Allocation ----------------------------------------------------------------------- */

/*
 * tlsf_malloc: a block of at least `bytes` usable bytes, aligned to tlsf_align_size(), or
 * NULL when no free block is large enough. `bytes == 0` returns NULL (as mattconte's); so
 * do sizes beyond tlsf_block_size_max(), SIZE_MAX included, and a NULL heap. O(1): no loop
 * whose trip count depends on the heap.
 */
void *tlsf_malloc(tlsf_t tlsf, size_t bytes);

/*
 * tlsf_memalign: a block of at least `bytes` usable bytes whose address is a multiple of
 * `align`, a power of two: up to tlsf_align_size() this is tlsf_malloc, and any larger one
 * works up to the pool size. An `align` that is not a power of two, 0 included, returns
 * NULL (mattconte asserts, and takes 0 as its own alignment). `bytes == 0` returns NULL. A
 * later tlsf_realloc keeps the alignment (one word of the block records it). O(1).
 */
void *tlsf_memalign(tlsf_t tlsf, size_t align, size_t bytes);

/*
 * tlsf_realloc: resize the block at `ptr` to at least `bytes` usable bytes, keeping its
 * contents up to the smaller size: in place when it shrinks or the next block is free and
 * large enough, otherwise by a new block, a copy and a free. `ptr == NULL` is
 * tlsf_malloc(bytes) (NULL for 0); `bytes == 0` frees `ptr` and returns NULL. On failure
 * returns NULL and the block is untouched. A `ptr` tlsf_free would refuse (below) is
 * refused the same way and NULL returned. O(1) apart from the copy.
 */
void *tlsf_realloc(tlsf_t tlsf, void *ptr, size_t size);

/*
 * tlsf_free: return a block to the heap, merged at once with its free neighbours. NULL is
 * ignored. A block already free or a misaligned pointer (and on 64-bit targets any
 * pointer that is not the start of a live block of this heap, or a block whose header a
 * write past the block before it overwrote) is refused with the heap unchanged: hosted
 * builds print the reason and abort, bare-metal builds return. O(1).
 */
void tlsf_free(tlsf_t tlsf, void *ptr);

/* tlsf_block_size: the usable size of the live block at `ptr` (at least what was asked
 * for); 0 for NULL. Reads the header unchecked: `ptr` must be a live block. O(1). */
size_t tlsf_block_size(void *ptr);

/* ---- Sizes ---------------------------------------------------------------------------- */

/* tlsf_size: the bytes of a heap's control structure (a multiple of tlsf_align_size()). */
size_t tlsf_size(void);
/* tlsf_align_size: the alignment of every block returned and of a heap's memory. */
size_t tlsf_align_size(void);
/* tlsf_block_size_min: the usable size of the smallest block. */
size_t tlsf_block_size_min(void);
/* tlsf_block_size_max: every block, and a pool's usable part, stays below this. */
size_t tlsf_block_size_max(void);
/* tlsf_pool_overhead: the bytes of a pool outside its blocks. */
size_t tlsf_pool_overhead(void);
/* tlsf_alloc_overhead: the header bytes of an allocated block, beyond its usable size. */
size_t tlsf_alloc_overhead(void);

/* ---- Debugging ------------------------------------------------------------------------ */

/* Called by tlsf_walk_pool for each block: its pointer, usable size, 1 if in use (0 if
 * free), and the caller's `user`. */
typedef void (*tlsf_walker)(void *ptr, size_t size, int used, void *user);

/*
 * tlsf_walk_pool: call `walker` for each block of `pool` in address order. A NULL walker
 * prints one line per block on stdout in mattconte's format (hosted builds; bare-metal
 * builds print nothing unless built with TLSF_MATTCONTE_PRINT). A NULL pool does nothing.
 * The walker must not allocate from or free into the heap. Linear in the pool's blocks.
 */
void tlsf_walk_pool(pool_t pool, tlsf_walker walker, void *user);

/*
 * tlsf_check: verify the heap's free lists and bitmaps. Returns 0 when all holds,
 * otherwise a negative number: minus the count of failed checks (as mattconte's). A NULL
 * heap returns -1. Linear in the free blocks.
 */
int tlsf_check(tlsf_t tlsf);

/*
 * tlsf_check_pool: verify a pool's chain of blocks (sizes, flags, links back, no two free
 * blocks side by side, the end marker). Returns 0, or minus the count of failed checks;
 * -1 for a NULL pool. Linear in the pool's blocks.
 */
int tlsf_check_pool(pool_t pool);

#if defined(__cplusplus)
}
#endif

#endif /* TLSF_MATTCONTE_H */
