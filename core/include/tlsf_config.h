/* SPDX-License-Identifier: MIT */
/*
 * tlsf_config.h - every compile-time choice of the TLSF heap, in one place.
 *
 * Each setting can be given on the compiler command line (-DTLSF_SL_INDEX_LOG2=4) or in a
 * header named by TLSF_USER_CONFIG (-DTLSF_USER_CONFIG='"my_tlsf_config.h"'). The CMake
 * target `tlsf::tlsf` exports the settings it was built with to everything that links it,
 * so a program and the library always agree.
 *
 * This file holds the settings and their checks only. What follows from them (the sizes of
 * the control structure and of a header, and the configuration tag) is in tlsf_abi.h: a
 * translation unit compiled with settings different from the library's does not link,
 * because every symbol carries a tag naming the configuration, so a mismatch is a link
 * error, never a heap laid out two ways at run time.
 *
 * The settings (14):
 *   layout       TLSF_ALIGN_LOG2, TLSF_SL_INDEX_LOG2, TLSF_MAX_BLOCK_LOG2
 *   work per call TLSF_STATS, TLSF_CHECKS, TLSF_CACHE (with TLSF_CACHE_BYTES)
 *   code         TLSF_CODE, TLSF_USE_BUILTIN_BITSCAN
 *   reactions    TLSF_DEFAULT_ERROR_HANDLER
 *   debugging    TLSF_FILL (TLSF_FILL_ALLOC_BYTE, TLSF_FILL_FREE_BYTE), TLSF_MEMCHECK
 */
#ifndef TLSF_CONFIG_H
#define TLSF_CONFIG_H

#include <stdint.h>

#ifdef TLSF_USER_CONFIG
#include TLSF_USER_CONFIG
#endif

/* Pointer width, known to the preprocessor. */
#if UINTPTR_MAX > 0xFFFFFFFFu
#define TLSF_PTR_BITS 64
#else
#define TLSF_PTR_BITS 32
#endif

/*
 * TLSF_ALIGN_LOG2: every pointer the heap returns is aligned to 1 << TLSF_ALIGN_LOG2, and
 * every block size is a multiple of it. Default: two machine words, which is
 * alignof(max_align_t) on the targets we serve (8 on 32-bit ARM EABI, 16 on x86-64), and
 * 16 on 32-bit x86, where GCC's max_align_t is 16 bytes.
 * Must be at least log2 of two words; larger values are allowed.
 */
#ifndef TLSF_ALIGN_LOG2
#if TLSF_PTR_BITS == 64 || defined(__i386__)
#define TLSF_ALIGN_LOG2 4
#else
#define TLSF_ALIGN_LOG2 3
#endif
#endif

/*
 * TLSF_SL_INDEX_LOG2: log2 of the number of second-level lists per power of two. More
 * lists mean a closer fit (a request is rounded up by at most 1/2^SL of its size) and a
 * larger control structure. 1..5.
 */
#ifndef TLSF_SL_INDEX_LOG2
#if TLSF_PTR_BITS == 64
#define TLSF_SL_INDEX_LOG2 5
#else
#define TLSF_SL_INDEX_LOG2 4
#endif
#endif

/*
 * TLSF_MAX_BLOCK_LOG2: every block, and so every pool, is smaller than
 * 1 << TLSF_MAX_BLOCK_LOG2 bytes. Larger pools are refused by tlsf_add_pool. Each extra
 * bit costs one row of 2^SL list heads in the control structure.
 */
#ifndef TLSF_MAX_BLOCK_LOG2
#if TLSF_PTR_BITS == 64
#define TLSF_MAX_BLOCK_LOG2 36
#else
#define TLSF_MAX_BLOCK_LOG2 28
#endif
#endif

/*
 * TLSF_STATS: 1 keeps the statistics of tlsf_get_stats up to date on every call (a few
 * loads and stores per call); 0 removes that work and tlsf_get_stats reports only what
 * can be derived from the bitmaps.
 */
#ifndef TLSF_STATS
#define TLSF_STATS 1
#endif

/*
 * TLSF_CHECKS: how much the heap verifies on free, realloc and tlsf_usable_size, always in
 * O(1). What each level catches and costs is measured in docs/reliability.md.
 *   0  nothing: the fastest; misuse is undefined behaviour.
 *   1  a NULL heap is refused; a misaligned pointer and a double free (the block is
 *      already free, or in the front cache) are reported to the error handler and the
 *      call does nothing. A pointer that is not a block start goes unnoticed.
 *   2  also: every block header is sealed with a hash of its address, its size word and
 *      a key of the heap, so free and realloc recognise a pointer that is not the start
 *      of a live block of this heap (interior, foreign, stack, another heap's: reported
 *      as a bad pointer), and a header overwritten by a write past the end of the block
 *      before it (checked on the block and on the neighbours free reads anyway: a corrupt
 *      block). Where a word has 16 or more bits above the largest span (64-bit targets)
 *      the seal lives in those bits and costs no memory; elsewhere it takes a word of its
 *      own in every header (padded to TLSF_ALIGN: 8 bytes per block on 32-bit ARM).
 * Default: 2 on 64-bit targets (free of memory there), 1 on 32-bit ones; the CMake build
 * uses 2 for every hosted target and in Debug builds.
 */
#ifndef TLSF_CHECKS
#if TLSF_PTR_BITS == 64
#define TLSF_CHECKS 2
#else
#define TLSF_CHECKS 1
#endif
#endif

/*
 * TLSF_CACHE and TLSF_CACHE_BYTES: the bounded front cache (core/src/tlsf_cache.h).
 *   0  no cache: every malloc and free takes the segregated lists.
 *   1  a freed block of an exact size class (the classes below
 *      2 << (TLSF_SL_INDEX_LOG2 + TLSF_ALIGN_LOG2) bytes of span: 256 on 32-bit ARM, 1 KiB
 *      on x86-64) goes onto a LIFO stack of its class instead of being merged, as long as
 *      the cached blocks' charges stay within TLSF_CACHE_BYTES (a block's charge is twice
 *      its span, so the cache holds at most half the budget in blocks, and at most
 *      TLSF_CACHE_BYTES / (2 * the smallest span) of them); malloc of that class pops it
 *      back. Both are O(1) and much shorter than the list paths (on a Cortex-M4 a pop is
 *      16 instructions and a push 15 without the checks and statistics, 28 and 29 with
 *      them). Cached blocks count as free in the statistics; they are given back to the
 *      lists by tlsf_cache_flush, tlsf_remove_pool, tlsf_largest_allocatable and by a
 *      request the lists cannot serve, which drains the cache (at most TLSF_CACHE_BYTES /
 *      (2 * the smallest span) blocks, each an ordinary O(1) free) and searches once more,
 *      so a heap fails only when it truly has no room. A cached block is never merged, so
 *      half the budget is also the most memory the cache can keep from coalescing.
 *   2  as 1, and a cache that no longer serves the program is drained before a failing
 *      request drains it (the stale drain). Without it the cache keeps what it holds until
 *      a request the lists cannot serve: after a burst of map nodes, a burst of list nodes
 *      finds the budget full of map nodes and is allocated in the gaps between them, which
 *      stay scattered over memory for good. With it, once the cache has refused as many
 *      frees in a row as its budget holds blocks, with no block cached or taken in
 *      between, it is drained by the next request that misses its exact class and finds
 *      no room for a block of it, or by the next free of a block at least as large as the
 *      budget (the end of a phase, as the C library merges its fast bins when a large
 *      chunk is freed). A free's worst case then grows to a malloc's (which includes a
 *      drain already); the fast paths do not change, a refused free pays a few loads and
 *      stores to count. On 64-bit targets with level 1 or 2 the cache also serves the
 *      slabs' door (tlsf_slabs_enable, core/src/tlsf_slab.h).
 * Default: 2 on 64-bit targets with 512 KiB, 0 on 32-bit ones (1 KiB when switched on), so
 * that bare-metal builds keep every call at its list-path bound unless they choose the
 * cache; the CMake build switches it on (1) for 32-bit hosted targets too. 512 KiB holds
 * up to 256 KiB of blocks, about what glibc's per-thread cache can hold of blocks up to
 * 1 KiB (7 of each of its 64 sizes), and it is where workload 2 (random sizes up to 1 KiB
 * over 1,000 live blocks) stops gaining: instructions per malloc+free under callgrind
 * (scripts/callgrind.sh with -DTLSF_CACHE_BYTES=N), hosted default (checks level 2): 111.1
 * at 256 KiB, 95.6 at 512 KiB (glibc: 156.8). The price is the drain of a failing request:
 * at most 512 KiB / 64 = 8,192 list frees. Larger budgets do not pay: with 4 and 8 MiB the
 * STL suite's list row, run after the map rows on the same heap, took 1.6-2.1 times glibc's
 * time, against 0.87-0.98 at 512 KiB (a budget full of one container's nodes outlasts its
 * teardown; docs/benchmarks.md).
 */
#ifndef TLSF_CACHE
#if TLSF_PTR_BITS == 64
#define TLSF_CACHE 2
#else
#define TLSF_CACHE 0
#endif
#endif
#ifndef TLSF_CACHE_BYTES
#if TLSF_PTR_BITS == 64
#define TLSF_CACHE_BYTES 524288
#else
#define TLSF_CACHE_BYTES 1024
#endif
#endif

/*
 * TLSF_USE_BUILTIN_BITSCAN: 1 uses the compiler's count-leading/trailing-zeros builtins
 * (one CLZ instruction on Cortex-M3/M4/M7, BSR/LZCNT on x86); 0 uses a portable,
 * branch-bounded fallback. Defaults to 1 with GCC and Clang.
 */
#ifndef TLSF_USE_BUILTIN_BITSCAN
#if defined(__GNUC__) || defined(__clang__)
#define TLSF_USE_BUILTIN_BITSCAN 1
#else
#define TLSF_USE_BUILTIN_BITSCAN 0
#endif
#endif

/*
 * TLSF_CODE: what the code is tuned for. Every call keeps its bound either way; only the
 * common paths and the code size change (bench/cortex-m4/run-counts.sh, docs/cortex-m4.md).
 *   0  the smallest code: a split or merge whose block stays in its size class unlinks it
 *      and links it again (instead of letting the new block take the old one's list
 *      place), taking the first block of a list is an ordinary unlink, and the list
 *      updates branch as in 1. Common paths get a few instructions longer.
 *   1  the shortest paths on a core that does not predict branches (Cortex-M): a list that
 *      is empty when a block goes in, or becomes empty when malloc takes its first block,
 *      is dealt with by branches that skip the work when it is not needed (on Cortex-M4
 *      malloc is 3 to 4 instructions shorter on average than with 2, and init+malloc+free
 *      6 to 58 bytes smaller).
 *   2  the fastest on a core that predicts branches (x86, Cortex-A): those list updates
 *      without a branch (the head's link is read either way and chosen by a conditional
 *      move, the bitmap word written either way). Whether a list is or becomes empty
 *      follows the request sizes, so a branch there is mispredicted often: this halved the
 *      mispredictions of workload 2 on x86-64 (cachegrind) and took its time from 2.15 to
 *      1.57 times glibc's (docs/history.md).
 * Where the compiler optimises for size (-Os), the few paths that exist in two copies for
 * speed keep one copy whatever this says. Default: 1 on M-profile ARM (Cortex-M), 2
 * elsewhere. Not part of the configuration tag: it changes no layout.
 */
#ifndef TLSF_CODE
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define TLSF_CODE 1
#else
#define TLSF_CODE 2
#endif
#endif

/*
 * TLSF_DEFAULT_ERROR_HANDLER: what happens when a heap detects misuse (see TLSF_CHECKS and
 * tlsf_error_handler_t in tlsf.h) and no handler is installed.
 *   0  the call that detected it does nothing further, silently. The core then needs no C
 *      library beyond memcpy and memset, so this is the default of the header, for
 *      freestanding builds.
 *   1  tlsf_default_error_handler runs: it prints one line naming the reason, the pointer
 *      and the heap on stderr and calls abort(). Needs <stdio.h> and <stdlib.h>. The CMake
 *      build sets 1 for every target system but "Generic" (bare metal).
 * It is not part of the configuration tag: it changes no layout, only the library's
 * reaction, and a program compiled with another value links and behaves as the library.
 */
#ifndef TLSF_DEFAULT_ERROR_HANDLER
#define TLSF_DEFAULT_ERROR_HANDLER 0
#endif

/*
 * TLSF_FILL: 1 fills memory with recognisable bytes, so that a use of uninitialised or
 * freed memory shows up as these values instead of plausible old data:
 *   TLSF_FILL_ALLOC_BYTE (0xCD)  every byte of a block that malloc, memalign or
 *                                aligned_alloc hands out, and the bytes a realloc in place
 *                                adds beyond the old size (calloc still returns zeros);
 *   TLSF_FILL_FREE_BYTE (0xDD)   every byte of a freed block (and of the part a realloc
 *                                gives back), except the words the heap keeps in a free
 *                                block: its two list links at the start (and, when it
 *                                merged with a free neighbour, that neighbour's old
 *                                header and links), and its last word (the next block's
 *                                link back to it); in the part a realloc gives back,
 *                                also the header of the free block it becomes.
 * A word of either pattern is not a valid pointer on x86-64 (not canonical) nor a small
 * count. Costs a memset of the block on every malloc and free, so those calls are then
 * proportional to the block size. 0 (default): no filling.
 */
#ifndef TLSF_FILL
#define TLSF_FILL 0
#endif
#ifndef TLSF_FILL_ALLOC_BYTE
#define TLSF_FILL_ALLOC_BYTE 0xCD
#endif
#ifndef TLSF_FILL_FREE_BYTE
#define TLSF_FILL_FREE_BYTE 0xDD
#endif

/*
 * TLSF_MEMCHECK: 1 tells valgrind's memcheck about every block (client requests of
 * <valgrind/memcheck.h>, Debian package valgrind), so that it treats TLSF blocks like
 * malloc's: a block leaked is reported as lost, a read or write of a freed block as an
 * invalid access, a read of a fresh block's bytes before any write as uninitialised. The
 * requests cost a few instructions each when the program does not run under valgrind; the
 * heap's own accesses to its headers and links each make their word accessible first (see
 * core/src/tlsf_sanitize.h), which is slow under valgrind. 0 (default): nothing is
 * compiled in, and the core does not include the valgrind headers.
 */
#ifndef TLSF_MEMCHECK
#define TLSF_MEMCHECK 0
#endif

/* ---- Checks of the settings ---- */
/* Settings of earlier versions, now folded into the ones above. */
#ifdef TLSF_CACHE_DRAIN_STALE
#error "TLSF_CACHE_DRAIN_STALE is now TLSF_CACHE=2 (the cache with its stale drain)"
#endif
#ifdef TLSF_SLABS
#error "TLSF_SLABS is no longer a setting: 64-bit builds with the cache have slabs (tlsf_abi.h)"
#endif
#if defined(TLSF_SMALL_CODE) || defined(TLSF_BRANCHLESS_LISTS)
#error "TLSF_SMALL_CODE and TLSF_BRANCHLESS_LISTS are now TLSF_CODE (0: small code, 2: branchless)"
#endif
#if TLSF_CACHE < 0 || TLSF_CACHE > 2
#error "TLSF_CACHE must be 0, 1 or 2"
#endif
#if TLSF_CODE < 0 || TLSF_CODE > 2
#error "TLSF_CODE must be 0, 1 or 2"
#endif
#if TLSF_CHECKS < 0 || TLSF_CHECKS > 2
#error "TLSF_CHECKS must be 0, 1 or 2"
#endif
#if TLSF_SL_INDEX_LOG2 < 1 || TLSF_SL_INDEX_LOG2 > 5
#error "TLSF_SL_INDEX_LOG2 must be 1..5"
#endif
#if TLSF_MAX_BLOCK_LOG2 > TLSF_PTR_BITS - 2
#error "TLSF_MAX_BLOCK_LOG2 must leave two bits of a word above the largest span"
#endif

#endif /* TLSF_CONFIG_H */
