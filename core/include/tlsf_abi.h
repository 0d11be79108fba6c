/* SPDX-License-Identifier: MIT */
/*
 * tlsf_abi.h - what follows from the settings of tlsf_config.h: the sizes a program can
 * know at compile time, and the configuration tag every symbol carries.
 *
 * Nothing here is a choice: change a setting in tlsf_config.h (or on the command line),
 * never a value here. tlsf.h includes this file.
 */
#ifndef TLSF_ABI_H
#define TLSF_ABI_H

#include "tlsf_config.h"

/*
 * Sizes that follow from the settings, known at compile time (each equals what the
 * function of the same meaning returns; the library checks that when it is built):
 *   TLSF_CONTROL_BYTES   tlsf_size(): the control structure;
 *   TLSF_POOL_OVERHEAD_BYTES  tlsf_pool_overhead(): a pool's bytes outside its blocks;
 *   TLSF_MIN_SPAN_BYTES  the span of the smallest block (tlsf_block_size_min() +
 *                        tlsf_alloc_overhead());
 *   TLSF_HEAP_MIN_BYTES  the least memory tlsf_create_with_pool accepts: the control
 *                        structure and a pool of one smallest block;
 *   TLSF_CONTROL_BYTES_FOR(n)  tlsf_size_for(n): a sized heap's control structure (below);
 *   TLSF_COMPACT_MIN_BYTES  the least memory tlsf_create_compact accepts (what
 *                        tlsf::static_heap<N> asserts at compile time).
 * The seal shares the size word when 16 bits or more are left above the largest span and
 * the cache flag (TLSF_SEAL_IN_WORD), otherwise it takes a header word of its own.
 */
#define TLSF_WORD_BYTES_ (TLSF_PTR_BITS / 8)
/* Whether the stale drain is on (TLSF_CACHE 2, tlsf_config.h). Derived: not a setting. */
#define TLSF_CACHE_DRAIN_STALE (TLSF_CACHE >= 2)
/*
 * Whether a heap may cut its small blocks from slabs (core/src/tlsf_slab.h), switched on
 * per heap at run time by tlsf_slabs_enable: where the cache is on (the slab door sits on
 * its miss path), words are 64 bits and blocks 16-byte aligned (an object's header word
 * carries a fourth flag). A slab is one block of the heap (4 to 64 KiB, aligned to its
 * size) cut into objects of one span; a freed object goes on its slab's free list and never
 * merges. The price is memory, which is why no heap has slabs until it asks
 * (docs/design.md). Elsewhere (bare-metal builds) no slab code is compiled in and
 * tlsf_slabs_enable refuses. Derived: not a setting (tlsf_config.h refuses it as one).
 */
#if TLSF_CACHE && TLSF_PTR_BITS == 64 && TLSF_ALIGN_LOG2 >= 4
#define TLSF_SLABS 1
#else
#define TLSF_SLABS 0
#endif
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
/*
 * The control structure (core/src/tlsf_control.h): bitmap words, the state words between them
 * and the list heads, and the heads, the last of which ends it. The bitmaps cover every
 * class plus the slots the words before the heads take (FIRST_SLOT): the fewest words that
 * do, found by iterating from one word (each bitmap word moves the heads by at most half a
 * slot, so three rounds reach the fixed point; the library checks it).
 */
#define TLSF_STATE_WORDS_                                                                          \
    (5 * TLSF_STATS + 5 + 7 * (TLSF_CHECKS >= 2) +                                                 \
     (TLSF_CACHE != 0) * ((2 << TLSF_SL_INDEX_LOG2) + 2 + 2 * TLSF_CACHE_DRAIN_STALE) +            \
     TLSF_SLABS * (2 * TLSF_SLAB_CLASSES_ + 3))
#define TLSF_HEAD_BYTES_ (2 * TLSF_WORD_BYTES_)
#define TLSF_LIST_COUNT_ (TLSF_ROWS_ << TLSF_SL_INDEX_LOG2)
#define TLSF_HEADS_OFFSET_AT_(class_words)                                                         \
    (TLSF_ROUND_UP_(4 * (1 + (class_words)), TLSF_WORD_BYTES_) +                                   \
     TLSF_WORD_BYTES_ * TLSF_STATE_WORDS_)
#define TLSF_FIRST_SLOT_AT_(class_words)                                                           \
    ((TLSF_HEADS_OFFSET_AT_(class_words) - TLSF_HEADER_BYTES + TLSF_HEAD_BYTES_ - 1) /             \
     TLSF_HEAD_BYTES_)
#define TLSF_CLASS_WORDS_NEXT_(class_words)                                                        \
    ((TLSF_FIRST_SLOT_AT_(class_words) + TLSF_LIST_COUNT_ + 31) / 32)
#define TLSF_CLASS_WORDS_ TLSF_CLASS_WORDS_NEXT_(TLSF_CLASS_WORDS_NEXT_(TLSF_CLASS_WORDS_NEXT_(1)))
#define TLSF_HEADS_OFFSET_ TLSF_HEADS_OFFSET_AT_(TLSF_CLASS_WORDS_)
#define TLSF_FIRST_SLOT_ TLSF_FIRST_SLOT_AT_(TLSF_CLASS_WORDS_)
/* The words between the state and the first head's link words: 0 or 1. */
#define TLSF_HEADS_GAP_WORDS_                                                                      \
    ((TLSF_FIRST_SLOT_ * TLSF_HEAD_BYTES_ + TLSF_HEADER_BYTES - TLSF_HEADS_OFFSET_) /              \
     TLSF_WORD_BYTES_)
/* The bytes of a control structure that holds the heads of `classes` classes. */
#define TLSF_CONTROL_BYTES_AT_(classes)                                                            \
    TLSF_ROUND_UP_((TLSF_FIRST_SLOT_ + (classes)) * TLSF_HEAD_BYTES_ + TLSF_HEADER_BYTES,          \
                   TLSF_ALIGN_BYTES_)
#define TLSF_CONTROL_BYTES TLSF_CONTROL_BYTES_AT_(TLSF_LIST_COUNT_)
#define TLSF_HEAP_MIN_BYTES (TLSF_CONTROL_BYTES + TLSF_POOL_OVERHEAD_BYTES + TLSF_MIN_SPAN_BYTES)

/*
 * TLSF_CONTROL_BYTES_FOR(pool_bytes): tlsf_size_for(pool_bytes) as a constant expression,
 * for a static buffer: the control structure of a sized heap whose pools each hold at most
 * `pool_bytes` bytes (tlsf.h, "Sized heaps"), which holds the heads of every row of size
 * classes up to the row of the largest block such a pool holds. The tests compare it with
 * tlsf_size_for. A buffer of TLSF_CONTROL_BYTES_FOR(n) + n bytes holds a sized heap and a
 * pool of n bytes (tlsf_create_sized, tlsf_add_pool). TLSF_COMPACT_MIN_BYTES is the least
 * `bytes` tlsf_create_compact accepts: a pool of one smallest block and the control
 * structure for it. `pool_bytes` is evaluated many times: pass a constant.
 */
/* floor(log2(x)) of a non-zero unsigned long long constant. */
#define TLSF_LOG2_1_(x) ((x) >= 2u ? 1 : 0)
#define TLSF_LOG2_2_(x) ((x) >= 4u ? 2 + TLSF_LOG2_1_((x) >> 2) : TLSF_LOG2_1_(x))
#define TLSF_LOG2_4_(x) ((x) >= 16u ? 4 + TLSF_LOG2_2_((x) >> 4) : TLSF_LOG2_2_(x))
#define TLSF_LOG2_8_(x) ((x) >= 256u ? 8 + TLSF_LOG2_4_((x) >> 8) : TLSF_LOG2_4_(x))
#define TLSF_LOG2_16_(x) ((x) >= 65536u ? 16 + TLSF_LOG2_8_((x) >> 16) : TLSF_LOG2_8_(x))
#define TLSF_LOG2_(x) (((x) >> 16 >> 16) ? 32 + TLSF_LOG2_16_((x) >> 16 >> 16) : TLSF_LOG2_16_(x))
/* The first block's span in a pool of n bytes, at least the smallest block's (a smaller
 * pool is taken as the smallest one) and at most the largest span (every row). */
#define TLSF_POOL_SPAN_(n)                                                                         \
    ((n) + 0ull < TLSF_POOL_OVERHEAD_BYTES + TLSF_MIN_SPAN_BYTES ? TLSF_MIN_SPAN_BYTES + 0ull      \
     : (n) + 0ull - TLSF_POOL_OVERHEAD_BYTES >= (1ull << TLSF_MAX_BLOCK_LOG2)                      \
         ? (1ull << TLSF_MAX_BLOCK_LOG2) - TLSF_ALIGN_BYTES_                                       \
         : ((n) + 0ull - TLSF_POOL_OVERHEAD_BYTES) & ~(TLSF_ALIGN_BYTES_ - 1ull))
/* The rows up to the one of span s: row 0 holds the spans below 2^(SL + ALIGN), row r >= 1
 * those in [2^(SL + ALIGN + r - 1), 2^(SL + ALIGN + r)). */
#define TLSF_ROWS_FOR_SPAN_(s)                                                                     \
    (TLSF_LOG2_((s) | (1ull << (TLSF_SL_INDEX_LOG2 + TLSF_ALIGN_LOG2 - 1))) + 2 -                  \
     TLSF_SL_INDEX_LOG2 - TLSF_ALIGN_LOG2)
#define TLSF_CONTROL_BYTES_FOR(pool_bytes)                                                         \
    TLSF_CONTROL_BYTES_AT_(TLSF_ROWS_FOR_SPAN_(TLSF_POOL_SPAN_(pool_bytes)) << TLSF_SL_INDEX_LOG2)
#define TLSF_COMPACT_MIN_BYTES                                                                     \
    (TLSF_CONTROL_BYTES_FOR(TLSF_POOL_OVERHEAD_BYTES + TLSF_MIN_SPAN_BYTES) +                      \
     TLSF_ROUND_UP_(TLSF_POOL_OVERHEAD_BYTES + TLSF_MIN_SPAN_BYTES, TLSF_ALIGN_BYTES_))

/* The cache's budget as it enters the tag: 0 when the cache is off, followed by an `s` with
 * TLSF_CACHE 2 (the control structure has two words more), and by an `l` with
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

/*
 * TLSF_ABI_VARIANT: the name of a build of the core for another API, which ends the tag of
 * every symbol it keeps tagged with `_v<name>`. compat/mattconte compiles the core with
 * mattconte/tlsf's plain link symbols and sets `mc` (docs/mattconte.md): its other symbols
 * (the additions of tlsf.h, the internals) then never clash with the library's, even where
 * both have the same settings, so one program may link both. Not defined: the library
 * itself, no variant in the tag.
 */
#ifdef TLSF_ABI_VARIANT
#define TLSF_LAST_TAG_ TLSF_PASTE_(TLSF_PASTE_(TLSF_CACHE_TAG_, _v), TLSF_ABI_VARIANT)
#else
#define TLSF_LAST_TAG_ TLSF_CACHE_TAG_
#endif

/* Configuration tag appended to every symbol of the library, public (tlsf.h) and internal
 * (core/src/tlsf_internal.h): a program and a library built with different settings do
 * not link (see tlsf_config.h). */
#define TLSF_CAT6_(a, b, c, d, e, f) a##b##c##d##e##f
#define TLSF_TAG_(p, a, s, m, st, ck, ca) TLSF_CAT6_(p##a, _s##s, _m##m, _t##st, _c##ck, _k##ca)
#define TLSF_ABI_TAG_(p, a, s, m, st, ck, ca) TLSF_TAG_(p, a, s, m, st, ck, ca)
#define TLSF_ABI_NAME(name)                                                                        \
    TLSF_ABI_TAG_(name##_a, TLSF_ALIGN_LOG2, TLSF_SL_INDEX_LOG2, TLSF_MAX_BLOCK_LOG2, TLSF_STATS,  \
                  TLSF_CHECKS, TLSF_LAST_TAG_)

#endif /* TLSF_ABI_H */
