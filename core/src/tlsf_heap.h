/* SPDX-License-Identifier: MIT */
/*
 * tlsf_heap.h - the control structure: size classes, bitmaps and segregated free lists.
 *
 * Size classes. Spans below 2 * SMALL_SPAN are split linearly into classes TLSF_ALIGN
 * apart (rows 0 and 1). Above that, each power of two [2^k, 2^(k+1)) is one row, split
 * into SL_COUNT equal classes. Class index = row * SL_COUNT + column; it is computed with
 * one "highest set bit" and no branch (class_of_span).
 *
 * Slots. Class i's list head is a pair of words at a fixed place in the control
 * structure; its slot is FIRST_SLOT + i, where FIRST_SLOT is chosen so that the head node
 * of slot s (see "Free lists") is exactly heap + s * HEAD_BYTES. So a head's address is
 * one shifted add from its slot and back, and the bitmaps are numbered by slot: going
 * from a head to its bitmap position, or from a found position to its head, takes no
 * further arithmetic (the constant FIRST_SLOT folds into the class computations).
 *
 * Bitmaps. Slots are taken 32 at a time: slot s is position s % 32 of
 * class_bits[s / 32] (positions: tlsf_bits.h; on Arm position 0 is the top bit, so that a
 * scan is one CLZ). A position is set exactly when its class's list is non-empty (slots
 * below FIRST_SLOT, which are no class's, are never set), and position w of word_bits
 * exactly when class_bits[w] is non-zero. Finding the first non-empty class at or above a
 * given one therefore takes at most two scans (find_free_class): the rest of its word,
 * then the first non-empty word after it. The bitmap words sit at offset 0 of the control
 * structure, so reaching one is a single load or store with a scaled index.
 *
 * Free lists. Each class has a circular doubly linked list through the blocks'
 * next_free/prev_free slots. Its head is a pair of words in `heads` that acts as a node
 * of the list (a "pseudo-block" whose link slots are that pair). Because the head is a
 * node, unlinking any block is two stores with no special case, and the list just became
 * empty exactly when the unlinked block's two neighbours are the same node - the head,
 * whose slot is then known from its address. A head's words are used only while its
 * bitmap bit is set (TLSF_BRANCHLESS_LISTS may read a stale one, then discard it), so
 * creating a heap does not need to initialise the heads.
 */
#ifndef TLSF_HEAP_H
#define TLSF_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "tlsf.h"
#include "tlsf_bits.h"
#include "tlsf_block.h"

#define SL_COUNT (1u << TLSF_SL_INDEX_LOG2)
#define SL_MASK (SL_COUNT - 1u)
/* Spans below SMALL_SPAN * 2 use linear classes. */
#define FL_SHIFT (TLSF_SL_INDEX_LOG2 + TLSF_ALIGN_LOG2)
#define SMALL_SPAN ((size_t)1 << FL_SHIFT)
#define ROW_COUNT (TLSF_MAX_BLOCK_LOG2 - FL_SHIFT + 1)
#define LIST_COUNT (ROW_COUNT * SL_COUNT)
/* The bitmap words (see "Bitmaps" and FIRST_SLOT). */
#define CLASS_WORDS ((unsigned)TLSF_CLASS_WORDS_)
/* Every span stays below this. */
#define MAX_SPAN (((size_t)1 << TLSF_MAX_BLOCK_LOG2) - TLSF_ALIGN)
/* The smallest span of the highest class: the largest span a request may round up to. */
#define TOP_CLASS_SPAN                                                                             \
    (((size_t)1 << TLSF_MAX_BLOCK_LOG2) -                                                          \
     ((size_t)1 << (TLSF_MAX_BLOCK_LOG2 - 1 - TLSF_SL_INDEX_LOG2)))
/* The largest request tlsf_malloc can ever satisfy. */
#define MAX_REQUEST (TOP_CLASS_SPAN - BLOCK_OVERHEAD)

/*
 * Branch layout for the bound: WORST_CASE(c) tells the compiler that the costlier side of
 * a test is the likely one, so that the longest path through malloc and free runs as a
 * straight line and the cheaper side pays the taken branch. On Cortex-M, whose bounds are
 * the ones stated (bench/cortex-m4/bounds.h), a side laid out of line costs an extra
 * branch back, so this lowers the worst case by that much and leaves the other paths'
 * counts as they were. Elsewhere the compiler's own layout, tuned for the common paths,
 * is kept.
 */
#if defined(__arm__) && (defined(__GNUC__) || defined(__clang__))
#define WORST_CASE(condition) __builtin_expect(!!(condition), 1)
#else
#define WORST_CASE(condition) (condition)
#endif

/* Compile-time checks of the configuration (C99 has no static_assert). */
typedef char tlsf_check_align[(TLSF_ALIGN >= 2 * sizeof(void *)) ? 1 : -1];
typedef char tlsf_check_word[(sizeof(size_t) == sizeof(void *)) ? 1 : -1];
typedef char tlsf_check_sl[(TLSF_SL_INDEX_LOG2 >= 1 && TLSF_SL_INDEX_LOG2 <= 5) ? 1 : -1];
typedef char tlsf_check_rows[(ROW_COUNT >= 2 && ROW_COUNT <= 32) ? 1 : -1];
typedef char tlsf_check_words[(CLASS_WORDS <= 32) ? 1 : -1];
typedef char tlsf_check_max[(TLSF_MAX_BLOCK_LOG2 <= TLSF_PTR_BITS - 2) ? 1 : -1];

/*
 * The front cache's state (operations and invariants: tlsf_cache.h). Classes below
 * CACHE_CLASSES are the exact ones (rows 0 and 1: one span per class, span = index *
 * TLSF_ALIGN), so a cached block always fits any request of its class exactly.
 */
#define CACHE_CLASSES (2u * SL_COUNT)
struct tlsf_cache {
    void *top[CACHE_CLASSES]; /* the user pointer of each class's last cached block, or NULL */
    size_t room;              /* limit minus the charges of all cached blocks */
    size_t limit;             /* the budget in force, at most TLSF_CACHE_BYTES */
#if TLSF_CACHE_DRAIN_STALE
    size_t idle_frees; /* frees in a row the cache did not take, ... */
    size_t idle_room;  /* ... while its room stayed this (cache_note_refusal) */
#endif
};

/*
 * The slabs' state (operations and invariants: tlsf_slab.h). Slab objects have the spans
 * of the exact classes up to SLAB_SPAN_MAX, one list of slabs each; index = span /
 * TLSF_ALIGN, as the cache's.
 */
#define SLAB_CLASSES ((unsigned)TLSF_SLAB_CLASSES_)
struct tlsf_slab;
struct tlsf_slabs {
    struct tlsf_slab *current[SLAB_CLASSES]; /* the slab each span is cut from, or NULL */
    struct tlsf_slab *partial[SLAB_CLASSES]; /* other slabs with a free object */
    size_t bytes;    /* the slab size (a power of two), 0 until slabs are enabled */
    size_t span_max; /* spans up to this are cut from slabs: 0 while they are off */
    size_t count;    /* slabs the heap holds */
    size_t taking;   /* 1 while a slab's memory is taken (memalign_hand_out) */
};

struct tlsf_heap {
    uint32_t class_bits[CLASS_WORDS]; /* first: see "Bitmaps" above */
    uint32_t word_bits;
#if TLSF_STATS
    /* alloc_count next to used_bytes: malloc updates both (one LDRD on Arm). free_count
     * is kept apart from used_bytes, which free updates with it: as a pair, x86-64
     * compilers turn the two scalar updates into eight vector instructions. */
    size_t free_count;
    size_t alloc_count;
    size_t used_bytes; /* spans of allocated blocks (cached blocks count as free) */
    size_t peak_used_bytes;
    size_t failed_count;
#endif
    size_t pool_bytes; /* spans of the pools' first blocks */
    size_t pool_count;
    tlsf_error_handler_t on_error;
    void *on_error_user;
#if TLSF_CHECKS >= 2
    size_t seal_key; /* this heap's part of every seal (see seal_of) */
#endif
#if TLSF_CACHE
    struct tlsf_cache cache;
#endif
#if TLSF_SLABS
    struct tlsf_slabs slabs;
#endif
    /* The link words of the head nodes (list_head): two per class, valid only while the
     * class's bitmap bit is set, plus one so that the first head can start at a multiple
     * of HEAD_BYTES. The fields above give the head pseudo-blocks room for their (never
     * used) prev_phys and size words. */
    block_t *heads[2 * LIST_COUNT + 1];
};

/* Whether speed comes before code size: not with TLSF_SMALL_CODE, nor where the compiler
 * optimises for size (-Os). Where it does, a few list paths exist in two copies, each
 * specialised for its caller. */
#if TLSF_SMALL_CODE || defined(__OPTIMIZE_SIZE__)
#define TLSF_SPEED_OVER_SIZE 0
#else
#define TLSF_SPEED_OVER_SIZE 1
#endif

/* The size of a head node's pair of link words, and the slot of class 0 (see "Slots"):
 * the first multiple of HEAD_BYTES at which a head node's link words fall inside heads. */
#define HEAD_BYTES (2 * sizeof(block_t *))
#define FIRST_SLOT                                                                                 \
    ((unsigned)((offsetof(struct tlsf_heap, heads) - HEADER_SIZE + HEAD_BYTES - 1) / HEAD_BYTES))
/* slot_of_span and class_round_up compute a slot as column + SLOT_BASE - (zeros << SL),
 * where zeros counts the leading zero bits of the span: the slot is
 * ((shift - TLSF_ALIGN_LOG2) << SL) + column + FIRST_SLOT with shift = the index of the
 * highest bit - SL, and every constant of that sum gathered here (so that on Arm it is one
 * subtract of a shifted register and one add). */
#define SLOT_BASE                                                                                  \
    (FIRST_SLOT +                                                                                  \
     ((TLSF_PTR_BITS - 1u - TLSF_SL_INDEX_LOG2 - TLSF_ALIGN_LOG2) << TLSF_SL_INDEX_LOG2))
typedef char tlsf_check_slots[(FIRST_SLOT + LIST_COUNT <= 32 * CLASS_WORDS) ? 1 : -1];

/* ---- Size classes ---- */

/* The slot of the class a free block of this span belongs to: its span is at least the
 * class's lower bound and below the next class's. */
static inline TLSF_NO_ASAN unsigned class_shift(size_t span) {
    return bits_fls_size(span | SMALL_SPAN) - TLSF_SL_INDEX_LOG2;
}
static inline TLSF_NO_ASAN unsigned slot_of_span(size_t span) {
    unsigned zeros = bits_clz_size(span | SMALL_SPAN);
    return (unsigned)(span >> (TLSF_PTR_BITS - 1u - TLSF_SL_INDEX_LOG2 - zeros)) + SLOT_BASE -
           (zeros << TLSF_SL_INDEX_LOG2);
}
/* Are spans `smaller` <= `larger` in the same class? Class bounds of `larger`'s row are
 * multiples of 1 << class_shift(larger), so yes exactly when no bit at or above that shift
 * differs. (Used to leave a block in its list when it grows or shrinks within its class.) */
static inline TLSF_NO_ASAN int same_class(size_t smaller, size_t larger) {
    return ((smaller ^ larger) >> class_shift(larger)) == 0;
}

/*
 * The span for a request whose block must reach `last` bytes past its start (user bytes
 * plus the size word, minus one), rounded up to the lower bound of its class ("good fit");
 * that class's slot is returned in *slot. Every block in that class or above is large enough,
 * so the first block of the first non-empty list found will do. Bounds of classes are
 * multiples of 1 << shift, so (last >> shift) + 1 is the rounded-up column (plus SL_COUNT
 * above row 0). When it carries into the next power of two it becomes 2 * SL_COUNT, which
 * is exactly the index of the next row's first class, so no second bit scan is needed.
 * (Taking the shift from `last` rather than last + 1 changes it only where last + 1 is a
 * power of two, and there the carry gives the same class and span.) The result is a
 * multiple of TLSF_ALIGN because shift >= TLSF_ALIGN_LOG2.
 */
static inline TLSF_NO_ASAN size_t class_round_up(size_t last, unsigned *slot) {
    unsigned zeros = bits_clz_size(last | SMALL_SPAN);
    unsigned shift = TLSF_PTR_BITS - 1u - TLSF_SL_INDEX_LOG2 - zeros;
    size_t below = last >> shift; /* the column below the rounded-up one */
    *slot = (unsigned)below + (SLOT_BASE + 1u) - (zeros << TLSF_SL_INDEX_LOG2);
    return (below + 1) << shift;
}
/* The smallest span of class `index`. */
static inline TLSF_NO_ASAN size_t class_lower_bound(unsigned index) {
    unsigned row = index >> TLSF_SL_INDEX_LOG2;
    if (row == 0) return (size_t)index << TLSF_ALIGN_LOG2;
    return (size_t)(SL_COUNT + (index & SL_MASK)) << (row - 1 + TLSF_ALIGN_LOG2);
}

/* The last byte a request of `bytes` needs from a block, counted from the block's start:
 * user bytes plus the header, at least MIN_SPAN in all, minus one (class_round_up's
 * argument). Callers check bytes <= MAX_REQUEST first, so nothing overflows. */
static inline TLSF_NO_ASAN size_t request_last(size_t bytes) {
    size_t last = bytes + (BLOCK_OVERHEAD - 1);
    return last < MIN_SPAN - 1 ? MIN_SPAN - 1 : last;
}

/* ---- Block headers ---- */

/*
 * The seal of a header (TLSF_CHECKS >= 2): a hash of the block's address, the span and
 * flags of its size word, and the heap's key. Two flags are left out (SEAL_EXEMPT), so
 * that the frequent changes of a neighbour's PREV_FREE and of a block's CACHED are plain
 * stores, not a new seal: BLOCK_PREV_FREE is only ever trusted after the previous block's
 * own seal and adjacency are checked (tlsf_checks.h), and BLOCK_CACHED sits next to span
 * bits, so no overflow reaches it without changing a sealed bit. A pointer into another heap, into
 * the middle of a block, to memory no heap wrote, or a header changed by an overflow fails the
 * check unless the hash collides (2^-27 with the seal in a 64-bit word, 2^-32 with a seal word).
 * One multiply by an odd constant carries every input bit into the high bits, which are
 * the ones kept when the seal shares the size word.
 */
#if TLSF_PTR_BITS == 64
#define SEAL_MULTIPLIER ((size_t)0x9E3779B97F4A7C15u)
#else
#define SEAL_MULTIPLIER ((size_t)0x9E3779B9u)
#endif
#define SEAL_EXEMPT ((size_t)BLOCK_PREV_FREE | BLOCK_CACHED)
#if TLSF_SEAL_IN_WORD
/*
 * The seal in the size word's top SEAL_BITS bits. The span and flags below BLOCK_CACHED
 * are shifted to the top of the word first (which drops the seal bits and BLOCK_CACHED
 * without a mask constant), so that after the multiply every one of them, the address and
 * the key reach the top bits kept as the seal.
 */
#define SEAL_SHIFT (TLSF_MAX_BLOCK_LOG2 + 1) /* the seal's lowest bit */
#define SEAL_BITS (TLSF_PTR_BITS - SEAL_SHIFT)
static inline TLSF_NO_ASAN size_t seal_of(tlsf_t heap, block_t *block, size_t word) {
    size_t sealed_low = (word << (TLSF_PTR_BITS - TLSF_MAX_BLOCK_LOG2)) &
                        ~((size_t)BLOCK_PREV_FREE << (TLSF_PTR_BITS - TLSF_MAX_BLOCK_LOG2));
    return ((sealed_low ^ (size_t)(uintptr_t)block ^ heap->seal_key) * SEAL_MULTIPLIER) >>
           SEAL_SHIFT;
}
#elif TLSF_CHECKS >= 2
/* The seal word of the size word `word`. */
static inline TLSF_NO_ASAN size_t seal_of(tlsf_t heap, block_t *block, size_t word) {
    return ((size_t)(uintptr_t)block ^ heap->seal_key ^ (word & ~SEAL_EXEMPT)) * SEAL_MULTIPLIER;
}
#endif

/* Write a block's size word: span and flags (any seal bits in `word` are dropped), sealed
 * in checked builds. */
static inline TLSF_NO_ASAN void block_set_word(tlsf_t heap, block_t *block, size_t word) {
#if TLSF_SEAL_IN_WORD
    size_t low = word & WORD_LOW_MASK;
    *slot_size(block) = low | (seal_of(heap, block, low) << SEAL_SHIFT);
#elif TLSF_CHECKS >= 2
    *slot_size(block) = word;
    *slot_seal(block) = seal_of(heap, block, word);
#else
    (void)heap;
    *slot_size(block) = word;
#endif
}

/* Change only the flags of SEAL_EXEMPT in a size word: `word` is the word as read from the
 * block's header (seal bits included) with those flags changed, so the seal still holds. */
static inline TLSF_NO_ASAN void block_set_exempt_flags(block_t *block, size_t word) {
    *slot_size(block) = word;
}

/* Does the block's header hold what this heap wrote? Always true below TLSF_CHECKS 2. */
static inline TLSF_NO_ASAN int block_header_intact(tlsf_t heap, block_t *block) {
#if TLSF_SEAL_IN_WORD
    size_t word = *slot_size(block);
    return seal_of(heap, block, word) == word >> SEAL_SHIFT;
#elif TLSF_CHECKS >= 2
    return *slot_seal(block) == seal_of(heap, block, *slot_size(block));
#else
    (void)heap;
    (void)block;
    return 1;
#endif
}

#if TLSF_CHECKS >= 2
/* Is the block's header, which failed block_header_intact, one a merge left inside the
 * free block before it: the word the block had in use with BLOCK_FREE added, under the
 * seal made for that word (block_release)? For the checks' error path (tlsf_report), to
 * name a second free of a merged block a double free. */
static inline TLSF_NO_ASAN int block_header_absorbed(tlsf_t heap, block_t *block) {
    size_t word = *slot_size(block);
#if TLSF_SEAL_IN_WORD
    return (word & BLOCK_FREE) &&
           seal_of(heap, block, word & ~(size_t)BLOCK_FREE) == word >> SEAL_SHIFT;
#else
    return (word & BLOCK_FREE) &&
           *slot_seal(block) == seal_of(heap, block, word & ~(size_t)BLOCK_FREE);
#endif
}
#endif

/* ---- Free lists ---- */

/* The head node of slot `slot`, seen as a block whose link slots are its two words. */
static inline TLSF_NO_ASAN block_t *slot_head(tlsf_t heap, unsigned slot) {
    return (block_t *)(void *)((char *)heap + (size_t)slot * HEAD_BYTES);
}

/* The head node of class `index`. */
static inline TLSF_NO_ASAN block_t *list_head(tlsf_t heap, unsigned index) {
    return slot_head(heap, index + FIRST_SLOT);
}

/* The slot whose head node is `head`. */
static inline TLSF_NO_ASAN unsigned head_slot(tlsf_t heap, block_t *head) {
    return (unsigned)(((uintptr_t)head - (uintptr_t)heap) / HEAD_BYTES);
}

/* Record that slot `slot`'s list has become empty if `emptied` is 1; change nothing if
 * it is 0, so that a caller may pass the test on instead of branching on it. The word's
 * position in word_bits goes with its last slot. */
static inline TLSF_NO_ASAN void bitmap_clear(tlsf_t heap, unsigned slot, uint32_t emptied) {
    unsigned word = slot >> 5;
    uint32_t slots = heap->class_bits[word] & ~bitmap_bit_if(slot & 31u, emptied);
    heap->class_bits[word] = slots;
    if (WORST_CASE(slots == 0)) heap->word_bits &= ~bitmap_bit(word);
}

/* Put a free block at the front of the list of slot `slot`. */
static inline TLSF_NO_ASAN void free_list_insert_at(tlsf_t heap, block_t *block, unsigned slot) {
    unsigned word = slot >> 5;
    uint32_t bit = bitmap_bit(slot & 31u);
    uint32_t slots = heap->class_bits[word];
    block_t *head = slot_head(heap, slot);
    /* An empty list's head words are stale: the head is then its own neighbour. */
    block_t *first;
    if (TLSF_BRANCHLESS_LISTS) {
        block_t *stale_or_first = *slot_next_free(head); /* read either way, then chosen */
        first = (slots & bit) ? stale_or_first : head;
    } else {
        first = (slots & bit) ? *slot_next_free(head) : head;
    }
    *slot_next_free(block) = first;
    *slot_prev_free(block) = head;
    *slot_prev_free(first) = block;
    *slot_next_free(head) = block;
    heap->class_bits[word] = slots | bit;
    heap->word_bits |= bitmap_bit(word);
}

/* Put a free block at the front of the list of its class. */
static inline TLSF_NO_ASAN void free_list_insert(tlsf_t heap, block_t *block, size_t span) {
    free_list_insert_at(heap, block, slot_of_span(span));
}

/* Unlink a free block from whichever list holds it. */
static inline TLSF_NO_ASAN void free_list_remove(tlsf_t heap, block_t *block) {
    block_t *next = *slot_next_free(block);
    block_t *prev = *slot_prev_free(block);
    *slot_prev_free(next) = prev;
    *slot_next_free(prev) = next;
    if (WORST_CASE(next == prev)) /* only the head is left */
        bitmap_clear(heap, head_slot(heap, prev), 1);
}

/* Let `fresh` take the list place of free block `old`, whose class it shares: no bitmap
 * changes, the cheap case of a split or merge that stays within a class. */
static inline TLSF_NO_ASAN void free_list_replace(block_t *old, block_t *fresh) {
    block_t *next = *slot_next_free(old);
    block_t *prev = *slot_prev_free(old);
    *slot_next_free(fresh) = next;
    *slot_prev_free(fresh) = prev;
    *slot_prev_free(next) = fresh;
    *slot_next_free(prev) = fresh;
}

/*
 * Find the first non-empty class at or above the one of slot *slot: store its slot in
 * *slot and return 1, or return 0 if there is none. Two scans at most: the rest of the
 * slot's bitmap word, then the first non-empty word after it (see "Bitmaps" at the top).
 */
static inline TLSF_NO_ASAN int find_free_class(tlsf_t heap, unsigned *slot) {
    unsigned word = *slot >> 5;
    uint32_t here = bitmap_from(heap->class_bits[word], *slot & 31u);
    uint32_t after;
    if (!WORST_CASE(here == 0)) {
        *slot += bitmap_first(here);
        return 1;
    }
    after = heap->word_bits & bitmap_after(word);
    if (after == 0) return 0;
    word = bitmap_first(after);
    *slot = (word << 5) + bitmap_first(heap->class_bits[word]);
    return 1;
}

/* Unlink the first block of slot `slot`'s list (it is `block`): free_list_remove, knowing
 * the block's list (with TLSF_SMALL_CODE, free_list_remove itself). */
static inline TLSF_NO_ASAN void free_list_pop(tlsf_t heap, unsigned slot, block_t *block) {
    block_t *head = slot_head(heap, slot);
    block_t *next;
    if (TLSF_SMALL_CODE) {
        free_list_remove(heap, block);
        return;
    }
    next = *slot_next_free(block);
    *slot_next_free(head) = next;
    *slot_prev_free(next) = head;
    /* With TLSF_BRANCHLESS_LISTS the test is passed on rather than branched on. */
    if (TLSF_BRANCHLESS_LISTS || WORST_CASE(next == head))
        bitmap_clear(heap, slot, (uint32_t)(next == head));
}

/* ---- Statistics ---- */

static inline TLSF_NO_ASAN void stats_on_alloc(tlsf_t heap, size_t span) {
#if TLSF_STATS
#if defined(__arm__)
    /* Both counters read at once: alloc_count sits next to used_bytes, one LDRD. */
    size_t count = heap->alloc_count, used = heap->used_bytes + span;
    heap->alloc_count = count + 1;
    heap->used_bytes = used;
#else
    /* The count last, as an increment in memory: one instruction on x86-64, where read
     * early it is three, and where stores to neighbours in one block get vectorised. */
    size_t used = heap->used_bytes + span;
    heap->used_bytes = used;
#endif
    if (used > heap->peak_used_bytes) heap->peak_used_bytes = used;
#if !defined(__arm__)
    heap->alloc_count++;
#endif
#else
    (void)heap;
    (void)span;
#endif
}

static inline TLSF_NO_ASAN void stats_on_free(tlsf_t heap, size_t span) {
#if TLSF_STATS
    heap->used_bytes -= span;
    heap->free_count++;
#else
    (void)heap;
    (void)span;
#endif
}

/* A block in use changed span in place (realloc). The peak is left to stats_on_settle,
 * since a growing realloc briefly takes more than it keeps. */
static inline TLSF_NO_ASAN void stats_on_resize(tlsf_t heap, size_t old_span, size_t new_span) {
#if TLSF_STATS
    heap->used_bytes = heap->used_bytes - old_span + new_span;
#else
    (void)heap;
    (void)old_span;
    (void)new_span;
#endif
}

/* free_list_insert out of line (defined in tlsf_alloc.c), for the pool functions: a small
 * image then carries one copy of the insertion, shared with malloc and free. */
#define tlsf_insert_free_block TLSF_ABI_NAME(tlsf_insert_free_block)
TLSF_NO_ASAN void tlsf_insert_free_block(tlsf_t heap, block_t *block, size_t span);

/* The merging part of tlsf_free, out of line (defined in tlsf_alloc.c), for the cache's
 * drain: the block with user pointer `ptr` and size word `word` as if in use (not cached,
 * not free) joins the lists, merged with its free neighbours. */
#define tlsf_release_block TLSF_ABI_NAME(tlsf_release_block)
TLSF_NO_ASAN void tlsf_release_block(tlsf_t heap, void *ptr, size_t word);

/* The front cache's invariants (tlsf_cache.c): the number that fail. */
#define tlsf_cache_check TLSF_ABI_NAME(tlsf_cache_check)
TLSF_NO_ASAN int tlsf_cache_check(tlsf_t heap);

/* After a realloc in place: record the peak of what it kept. */
static inline TLSF_NO_ASAN void stats_on_settle(tlsf_t heap) {
#if TLSF_STATS
    if (heap->used_bytes > heap->peak_used_bytes) heap->peak_used_bytes = heap->used_bytes;
#else
    (void)heap;
#endif
}

/* A reason the checks pass to tlsf_report, never to a handler: the header before the
 * pointer does not carry this heap's seal (TLSF_CHECKS >= 2). tlsf_report names it: a
 * double free if a merge left that header (block_header_absorbed), otherwise a bad
 * pointer. Deciding there, out of line, keeps the checks' fast path free of the values
 * the decision needs (on x86-64 an inline decision made free save two registers). */
#define MISUSE_UNSEALED ((tlsf_error_t)(TLSF_ERROR_POOL_IN_USE + 1))

/* Report misuse to the heap's handler (defined in tlsf_inspect.c, out of the hot path). */
#define tlsf_report TLSF_ABI_NAME(tlsf_report)
TLSF_NO_ASAN void tlsf_report(tlsf_t heap, tlsf_error_t reason, const void *ptr);

#endif /* TLSF_HEAP_H */
