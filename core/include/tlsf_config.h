/* SPDX-License-Identifier: MIT */
/*
 * tlsf_config.h - every compile-time choice of the TLSF heap, in one place.
 *
 * Each setting can be given on the compiler command line (-DTLSF_SL_INDEX_LOG2=4) or in a
 * header named by TLSF_USER_CONFIG (-DTLSF_USER_CONFIG='"my_tlsf_config.h"'). The CMake
 * target `tlsf::tlsf` exports the settings it was built with to everything that links it,
 * so a program and the library always agree.
 *
 * A translation unit compiled with settings different from the library's does not link:
 * every public symbol carries a tag naming the configuration (see TLSF_ABI_TAG below).
 * A mismatch is therefore a link error, never a heap laid out two ways at run time.
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
 * O(1). What each level catches and costs is measured in the README ("Reliability").
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
 * With TLSF_CACHE 1, a freed block of an exact size class (the classes below
 * 2 << (TLSF_SL_INDEX_LOG2 + TLSF_ALIGN_LOG2) bytes of span: 256 on 32-bit ARM, 1 KiB on
 * x86-64) goes onto a LIFO stack of its class instead of being merged, as long as the
 * cached blocks' charges stay within TLSF_CACHE_BYTES (a block's charge is twice its span,
 * so the cache holds at most half the budget in blocks, and at most TLSF_CACHE_BYTES /
 * (2 * the smallest span) of them); malloc of that class pops it back. Both are O(1) and
 * much shorter than the list paths (on a Cortex-M4 a pop is 16 instructions and a push 15
 * without the checks and statistics, 28 and 29 with them).
 * Cached blocks count as free in the statistics; they are given back to the lists by
 * tlsf_cache_flush, tlsf_remove_pool, tlsf_largest_allocatable and by a request the
 * lists cannot serve, which drains the cache (at most TLSF_CACHE_BYTES / (2 * the
 * smallest span) blocks, each an ordinary O(1) free) and searches once more, so a heap
 * fails only when it truly has no room. A cached block is never merged, so half the budget
 * is also the most memory the cache can keep from coalescing.
 * Default: 1 on 64-bit targets with 512 KiB, 0 on 32-bit ones (1 KiB when switched on),
 * so that bare-metal builds keep every call at its list-path bound unless they choose
 * the cache; the CMake build switches it on for hosted targets. 512 KiB holds up to 256 KiB
 * of blocks, about what glibc's per-thread cache can hold of blocks up to 1 KiB (7 of each
 * of its 64 sizes), and it is where workload 2 (random sizes up to 1 KiB over 1,000 live
 * blocks) stops gaining: instructions per malloc+free under callgrind (scripts/callgrind.sh
 * with -DTLSF_CACHE_BYTES=N), hosted default (checks level 2): 111.1 at 256 KiB, 95.6 at
 * 512 KiB (glibc: 156.8). The price is the drain of a failing request: at most
 * 512 KiB / 64 = 8,192 list frees. Larger budgets do not pay: with 4 and 8 MiB the STL
 * suite's list row, run after the map rows on the same heap, took 1.6-2.1 times glibc's
 * time, against 0.87-0.98 at 512 KiB (a budget full of one container's nodes outlasts its
 * teardown; README, "Benchmarks").
 */
#ifndef TLSF_CACHE
#if TLSF_PTR_BITS == 64
#define TLSF_CACHE 1
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
 * TLSF_CACHE_DRAIN_STALE: whether a cache that no longer serves the program is drained
 * before a failing request drains it. Without it the cache keeps what it holds until a
 * request the lists cannot serve (or tlsf_cache_flush): after a burst of map nodes, a
 * burst of list nodes finds the budget full of map nodes, cannot cache one node of its
 * own, and is allocated in the gaps between the cached map nodes, which stay scattered
 * over memory for good; and after a container of one class is destroyed, the next
 * container of that class gets the cached nodes first, scattered where the old one's last
 * frees left them. With it, once the cache has refused as many frees in a row as its
 * budget holds blocks, without a block cached or taken in between (a cache in use is
 * pushed or popped far more often than that), it is drained by the next request that
 * misses its exact class and finds no room in the budget for a block of it, or by the next
 * free of a block at least as large as the budget (the end of a phase: as the C library
 * merges its fast bins when a large chunk is freed). A malloc's worst case already
 * includes a drain; a free's grows to the same bound. Over time it costs at most one list
 * free per cached block (each drained block was pushed by a free since the last drain);
 * the fast paths do not change, a free the cache refuses pays a few loads and stores to
 * count. Default: 1 where the cache is on by default (64-bit targets), 0 elsewhere, so
 * that bare-metal builds see a drain only when they run out of memory.
 */
#ifndef TLSF_CACHE_DRAIN_STALE
#if TLSF_PTR_BITS == 64
#define TLSF_CACHE_DRAIN_STALE 1
#else
#define TLSF_CACHE_DRAIN_STALE 0
#endif
#endif

/*
 * TLSF_SLABS: whether a heap may cut its small blocks from slabs (core/src/tlsf_slab.h),
 * switched on per heap at run time by tlsf_slabs_enable. A slab is one block of the heap
 * (4 to 64 KiB, aligned to its size) cut into objects of one span; a freed object goes on
 * its slab's free list and never merges, and a slab whose last object is freed goes back to
 * the lists. Requests of up to 248 bytes then cost a pop or a push of a slab's list, where
 * a burst of list nodes freed in order would make every free merge (README, "Benchmarks":
 * the STL suite's list row). The price is memory: a slab's unused objects serve only its
 * own span, so a fixed heap with slabs fails earlier (the fragmentation benchmark: at
 * about 91% live instead of 96% with 4 KiB slabs), which is why no heap has slabs until
 * it asks. Every call stays O(1). Needs the front cache (the slab door sits on its miss
 * path) and 16-byte alignment (an object's header word carries a flag of its own).
 * Default: 1 on 64-bit targets with the cache, 0 elsewhere (bare-metal builds carry no
 * slab code, and their bounds do not change); with 0 tlsf_slabs_enable refuses.
 */
#ifndef TLSF_SLABS
#if TLSF_CACHE && TLSF_PTR_BITS == 64 && TLSF_ALIGN_LOG2 >= 4
#define TLSF_SLABS 1
#else
#define TLSF_SLABS 0
#endif
#endif
#if TLSF_SLABS && (!TLSF_CACHE || TLSF_ALIGN_LOG2 < 4)
#error "TLSF_SLABS needs TLSF_CACHE and TLSF_ALIGN_LOG2 >= 4"
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
 * TLSF_BRANCHLESS_LISTS: how the heap deals with a list that is empty when a block goes
 * in, or becomes empty when malloc takes its first block.
 *   1  without a branch: the head's link is read either way and chosen by a conditional
 *      move, and the list's bitmap word is updated either way, with a bit that may be
 *      zero (the word's own bit still only when the word empties). Whether a list is or
 *      becomes empty follows the request sizes, so on a core that predicts branches
 *      (x86, Cortex-A) a branch there is mispredicted often: this halved the
 *      mispredictions of the benchmarks' workload 2 on x86-64 (cachegrind) and took its
 *      time from 2.15 to 1.57 times glibc's (README, "Benchmarks").
 *   0  with branches that skip that work when it is not needed. On Cortex-M4, which does
 *      not predict branches, this makes malloc 3 to 4 instructions shorter on average
 *      and init+malloc+free 6 to 58 bytes smaller, with the same worst cases (at -Os,
 *      free is 1 instruction shorter) (bench/cortex-m4/run-counts.sh).
 * Default: 0 on M-profile ARM (Cortex-M), 1 elsewhere. Not part of the configuration
 * tag: it changes no layout.
 */
#ifndef TLSF_BRANCHLESS_LISTS
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define TLSF_BRANCHLESS_LISTS 0
#else
#define TLSF_BRANCHLESS_LISTS 1
#endif
#endif

/*
 * TLSF_SMALL_CODE: 1 chooses the smallest code over the shortest common paths. A split or
 * merge whose block stays in the same size class then unlinks it and links it again
 * (instead of letting the new block take the old one's list place), and taking the first
 * block of a list is an ordinary unlink. Every call keeps its bound (the worst paths are
 * the ones that change class, which both settings take alike); common paths get a few
 * instructions longer. Measured with bench/cortex-m4/run-counts.sh ("size" configuration,
 * README). Default 0. Not part of the configuration tag: it changes no layout.
 */
#ifndef TLSF_SMALL_CODE
#define TLSF_SMALL_CODE 0
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

/*
 * Sizes that follow from the settings, known at compile time (each equals what the
 * function of the same meaning returns; the library checks that when it is built):
 *   TLSF_CONTROL_BYTES   tlsf_size(): the control structure;
 *   TLSF_POOL_OVERHEAD_BYTES  tlsf_pool_overhead(): a pool's bytes outside its blocks;
 *   TLSF_MIN_SPAN_BYTES  the span of the smallest block (tlsf_block_size_min() +
 *                        tlsf_alloc_overhead());
 *   TLSF_HEAP_MIN_BYTES  the least memory tlsf_create_with_pool accepts: the control
 *                        structure and a pool of one smallest block (what
 *                        tlsf::static_heap<N> asserts at compile time).
 * The seal shares the size word when 16 bits or more are left above the largest span and
 * the cache flag (TLSF_SEAL_IN_WORD), otherwise it takes a header word of its own.
 */
#define TLSF_WORD_BYTES_ (TLSF_PTR_BITS / 8)
#define TLSF_ALIGN_BYTES_ (1 << TLSF_ALIGN_LOG2)
#if TLSF_CHECKS >= 2 && TLSF_PTR_BITS - TLSF_MAX_BLOCK_LOG2 - 1 >= 16
#define TLSF_SEAL_IN_WORD 1
#else
#define TLSF_SEAL_IN_WORD 0
#endif
#if TLSF_CHECKS >= 2 && !TLSF_SEAL_IN_WORD
#define TLSF_HEADER_BYTES (2 * TLSF_WORD_BYTES_ + TLSF_ALIGN_BYTES_)
#else
#define TLSF_HEADER_BYTES (2 * TLSF_WORD_BYTES_)
#endif
/* Whether a block in the front cache carries a mark in its size word (BLOCK_CACHED): with
 * the misuse checks, which tell a double free of a cached block by it. Without them
 * nothing on the fast paths needs it, so it is left out (a pop then writes no header, a
 * push one word fewer), and the end sentinel of each pool records the heap instead, one
 * word more per pool, so that tlsf_walk_pool can find the cached blocks. */
#if TLSF_CACHE && TLSF_CHECKS == 0
#define TLSF_CACHE_MARKS 0
#define TLSF_SENTINEL_BYTES_ (TLSF_HEADER_BYTES + TLSF_WORD_BYTES_)
#else
#define TLSF_CACHE_MARKS 1
#define TLSF_SENTINEL_BYTES_ TLSF_HEADER_BYTES
#endif
#define TLSF_ROUND_UP_(n, a) (((n) + (a)-1) / (a) * (a))
#define TLSF_POOL_OVERHEAD_BYTES                                                                   \
    ((TLSF_ALIGN_BYTES_ - TLSF_HEADER_BYTES % TLSF_ALIGN_BYTES_) % TLSF_ALIGN_BYTES_ +             \
     TLSF_SENTINEL_BYTES_)
#define TLSF_MIN_SPAN_BYTES                                                                        \
    TLSF_ROUND_UP_(TLSF_HEADER_BYTES + 2 * TLSF_WORD_BYTES_, TLSF_ALIGN_BYTES_)
/* The slabs' object spans: TLSF_ALIGN apart, up to 256 bytes where the exact size classes
 * reach that far (tlsf_slab.h), and TLSF_SLAB_REQUEST_MAX, the largest request a slab serves
 * (an object's header is one word): 248 bytes on 64-bit targets by default. */
#define TLSF_SLAB_CLASSES_ ((256 >> TLSF_ALIGN_LOG2) + 1)
#define TLSF_SLAB_SPAN_MAX_                                                                        \
    (256 < (2 << (TLSF_SL_INDEX_LOG2 + TLSF_ALIGN_LOG2))                                           \
         ? 256                                                                                     \
         : (2 << (TLSF_SL_INDEX_LOG2 + TLSF_ALIGN_LOG2)) - TLSF_ALIGN_BYTES_)
#define TLSF_SLAB_REQUEST_MAX (TLSF_SLAB_SPAN_MAX_ - TLSF_WORD_BYTES_)
/* The slab sizes tlsf_slabs_enable accepts: powers of two in this range. */
#define TLSF_SLAB_BYTES_MIN 4096
#define TLSF_SLAB_BYTES_MAX 65536
#define TLSF_ROWS_ (TLSF_MAX_BLOCK_LOG2 - TLSF_SL_INDEX_LOG2 - TLSF_ALIGN_LOG2 + 1)
/* The control structure (core/src/tlsf_heap.h): bitmap words, the state words between them
 * and the list heads, and the heads. The bitmaps cover every class plus the slots the
 * words before the heads take (at most 34 bitmap words and the state, see FIRST_SLOT). */
#define TLSF_STATE_WORDS_                                                                          \
    (5 * TLSF_STATS + 4 + (TLSF_CHECKS >= 2) +                                                     \
     TLSF_CACHE * ((2 << TLSF_SL_INDEX_LOG2) + 2 + 2 * TLSF_CACHE_DRAIN_STALE) +                   \
     TLSF_SLABS * (2 * TLSF_SLAB_CLASSES_ + 4))
#define TLSF_CLASS_WORDS_                                                                          \
    (((4 * 34 + TLSF_WORD_BYTES_ * TLSF_STATE_WORDS_) / (2 * TLSF_WORD_BYTES_) + 1 +               \
      (TLSF_ROWS_ << TLSF_SL_INDEX_LOG2) + 31) /                                                   \
     32)
#define TLSF_CONTROL_BYTES                                                                         \
    TLSF_ROUND_UP_(TLSF_ROUND_UP_(4 * (1 + TLSF_CLASS_WORDS_), TLSF_WORD_BYTES_) +                 \
                       TLSF_WORD_BYTES_ *                                                          \
                           (TLSF_STATE_WORDS_ + 2 * (TLSF_ROWS_ << TLSF_SL_INDEX_LOG2) + 1),       \
                   TLSF_ALIGN_BYTES_)
#define TLSF_HEAP_MIN_BYTES (TLSF_CONTROL_BYTES + TLSF_POOL_OVERHEAD_BYTES + TLSF_MIN_SPAN_BYTES)

/* The cache's budget as it enters the tag: 0 when the cache is off, followed by an `s` with
 * TLSF_CACHE_DRAIN_STALE (the control structure has two words more), and by an `l` with
 * TLSF_SLABS (the slabs' state, and a size-word flag older builds do not know). */
#define TLSF_PASTE_RAW_(a, b) a##b
#define TLSF_PASTE_(a, b) TLSF_PASTE_RAW_(a, b)
#if TLSF_CACHE && TLSF_CACHE_DRAIN_STALE && TLSF_SLABS
#define TLSF_CACHE_TAG_ TLSF_PASTE_(TLSF_PASTE_(TLSF_CACHE_BYTES, s), l)
#elif TLSF_CACHE && TLSF_SLABS
#define TLSF_CACHE_TAG_ TLSF_PASTE_(TLSF_CACHE_BYTES, l)
#elif TLSF_CACHE && TLSF_CACHE_DRAIN_STALE
#define TLSF_CACHE_TAG_ TLSF_PASTE_(TLSF_CACHE_BYTES, s)
#elif TLSF_CACHE
#define TLSF_CACHE_TAG_ TLSF_CACHE_BYTES
#else
#define TLSF_CACHE_TAG_ 0
#endif

/* Configuration tag appended to every public symbol (see the top of this file). */
#define TLSF_CAT6_(a, b, c, d, e, f) a##b##c##d##e##f
#define TLSF_TAG_(p, a, s, m, st, ck, ca) TLSF_CAT6_(p##a, _s##s, _m##m, _t##st, _c##ck, _k##ca)
#define TLSF_ABI_TAG_(p, a, s, m, st, ck, ca) TLSF_TAG_(p, a, s, m, st, ck, ca)
#define TLSF_ABI_NAME(name)                                                                        \
    TLSF_ABI_TAG_(name##_a, TLSF_ALIGN_LOG2, TLSF_SL_INDEX_LOG2, TLSF_MAX_BLOCK_LOG2, TLSF_STATS,  \
                  TLSF_CHECKS, TLSF_CACHE_TAG_)

#endif /* TLSF_CONFIG_H */
