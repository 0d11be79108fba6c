/* SPDX-License-Identifier: MIT */
/*
 * tlsf_control.h - the control structure: one struct holding the state of every layer,
 * and how its list heads are numbered.
 *
 * One struct, because the list heads are addressed from the start of the control
 * structure (see "Slots"), so the size of everything before them is part of TLSF's
 * arithmetic. Each layer's state is described and used by that layer's own file: the
 * bitmaps and heads by tlsf_lists.h, the statistics by tlsf_stats.h, the seal key by
 * tlsf_seal.h, the cache by tlsf_cache.h, the slabs by tlsf_slab.h.
 *
 * Slots. Class i's list head is a pair of words at a fixed place in the control
 * structure; its slot is FIRST_SLOT + i, where FIRST_SLOT is chosen so that the head node
 * of slot s (tlsf_lists.h) is exactly heap + s * HEAD_BYTES. So a head's address is one
 * shifted add from its slot and back, and the bitmaps are numbered by slot: going from a
 * head to its bitmap position, or from a found position to its head, takes no further
 * arithmetic (the constant FIRST_SLOT folds into the class computations, tlsf_classes.h).
 *
 * Sized heaps. The heads end the struct, so a heap may hold only those of its first rows of
 * classes and end there (tlsf_create_sized: control_bytes_for). That is safe because a head
 * is touched only for a class whose bitmap bit is set, and a bit is set only when a block of
 * that class is listed: every search reads the bitmaps alone, and no block is larger than
 * its pool's first one (merges stop at the pool's end sentinel), which tlsf_add_pool keeps
 * within the heap's rows by its range test against pool_span_room. That one field tells the
 * rows (heap_rows: its bit length); with sealed headers the class count and the first
 * head's address sit beside it for the head test of list_node_head (tlsf_checks.h).
 */
#ifndef TLSF_CONTROL_H
#define TLSF_CONTROL_H

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

/* The exact classes: rows 0 and 1, one span per class (span = index * TLSF_ALIGN), so a
 * block of such a class fits every request of it exactly. The front cache and the slabs
 * serve only these. */
#define EXACT_CLASSES (2u * SL_COUNT)
#define EXACT_SPAN_LIMIT ((size_t)EXACT_CLASSES << TLSF_ALIGN_LOG2)

/* Compile-time checks of the configuration (C99 has no static_assert). */
typedef char tlsf_check_align[(TLSF_ALIGN >= 2 * sizeof(void *)) ? 1 : -1];
typedef char tlsf_check_word[(sizeof(size_t) == sizeof(void *)) ? 1 : -1];
typedef char tlsf_check_rows[(ROW_COUNT >= 2 && ROW_COUNT <= 32) ? 1 : -1];
typedef char tlsf_check_words[(CLASS_WORDS <= 32) ? 1 : -1];

/*
 * The front cache's state (operations and invariants: tlsf_cache.h). Classes below
 * CACHE_CLASSES are the exact ones (rows 0 and 1: one span per class, span = index *
 * TLSF_ALIGN), so a cached block always fits any request of its class exactly.
 */
#define CACHE_CLASSES EXACT_CLASSES
struct tlsf_cache {
    void *top[CACHE_CLASSES]; /* the user pointer of each class's last cached block, or NULL */
    size_t room;              /* limit minus the charges of all cached blocks */
    size_t limit;             /* the budget in force, at most TLSF_CACHE_BYTES */
#if TLSF_CACHE_DRAIN_STALE
    size_t idle_frees; /* frees in a row the cache did not take, ... */
    size_t idle_room;  /* ... while its room stayed this (cache_stale_after_refusal) */
#endif
};

/*
 * The slabs' state (operations and invariants: tlsf_slab.h). Slab objects have the spans
 * of the exact classes up to SLAB_SPAN_MAX, one list of slabs each; index = span /
 * TLSF_ALIGN, as the cache's.
 */
#define SLAB_CLASSES ((unsigned)TLSF_SLAB_CLASSES_)
struct tlsf_slab;
/* One span's slabs. Two pointers are TLSF_ALIGN bytes (tlsf_slab.h checks it), so the entry
 * of span s lies s bytes into slabs.classes: malloc finds it with no shift. */
struct tlsf_slab_class {
    struct tlsf_slab *current; /* the slab the span's objects are cut from, or NULL */
    struct tlsf_slab *partial; /* the span's other slabs with a free object */
};
struct tlsf_slabs {
    struct tlsf_slab_class classes[SLAB_CLASSES]; /* index: span / TLSF_ALIGN */
    size_t bytes;       /* the slab size (a power of two), 0 until slabs are enabled */
    size_t request_end; /* requests below this many bytes get objects: 0 while slabs are off */
    size_t count;       /* slabs the heap holds */
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
    size_t seal_key;     /* this heap's part of every seal (tlsf_seal.h), new at each creation */
    uintptr_t pools_low; /* the lowest address of the heap's pools, and the bytes from there */
    size_t pools_span;   /* past the end of the highest (heap_holds, tlsf_checks.h) */
    size_t link_inverse; /* seal_key^-1, and the bits no sound link has (link_decode, */
    uintptr_t link_mask; /* tlsf_checks.h) */
#endif
#if TLSF_CACHE
    struct tlsf_cache cache;
#endif
#if TLSF_SLABS
    struct tlsf_slabs slabs;
#endif
    /* The largest span a pool's block may have, less MIN_SPAN: tlsf_add_pool's one range
     * test, against the configuration's limit or a sized heap's, which also tells how many
     * rows of classes the heap holds (see "Sized heaps"). */
    size_t pool_span_room;
#if TLSF_CHECKS >= 2
    /* The address of class 0's head node and the classes whose heads the heap holds, side
     * by side for the head test of list_node_head (one LDRD on Arm). */
    uintptr_t first_head;
    size_t class_count;
#endif
    /* The link words of the head nodes (list_head): two per class, valid only while the
     * class's bitmap bit is set, after the word that puts the first head node at a
     * multiple of HEAD_BYTES when there is one (TLSF_HEADS_GAP_WORDS_, tlsf_abi.h). The
     * fields above give the head pseudo-blocks room for their (never used) prev_phys and
     * size words. A sized heap's control structure ends after its last class's head. */
    block_t *heads[2 * LIST_COUNT + TLSF_HEADS_GAP_WORDS_];
};

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
/* The heads end with the struct: its size is what the last class's head needs. */
typedef char tlsf_check_heads_end
    [(sizeof(struct tlsf_heap) == (FIRST_SLOT + LIST_COUNT) * HEAD_BYTES + HEADER_SIZE) ? 1 : -1];
#define HEAD_BYTES_LOG2 (TLSF_PTR_BITS == 64 ? 4u : 3u)
typedef char tlsf_check_head_bytes[(HEAD_BYTES == (size_t)1 << HEAD_BYTES_LOG2) ? 1 : -1];

/* The class whose head node lies `offset` bytes after class 0's (list_head), or, where no
 * head node starts, a number above every class count: the offset rotated right by
 * log2(HEAD_BYTES) is the class when it is a multiple of HEAD_BYTES, and otherwise has one
 * of its top bits set. (One rotation: a single instruction on Arm and x86.) */
static inline TLSF_NO_ASAN uintptr_t class_of_head_offset(uintptr_t offset) {
    return (offset >> HEAD_BYTES_LOG2) | (offset << (TLSF_PTR_BITS - HEAD_BYTES_LOG2));
}

/* The bytes of the control structure, rounded up so that a pool can follow it (tlsf_size). */
static inline TLSF_NO_ASAN size_t control_bytes(void) {
    return (sizeof(struct tlsf_heap) + TLSF_ALIGN - 1) & ~(TLSF_ALIGN - 1);
}

/* The bytes of the control structure of a heap that holds the heads of its first `classes`
 * classes (see "Sized heaps"): up to the last head's link words, rounded up so that a pool
 * can follow; with every class, control_bytes(). */
static inline TLSF_NO_ASAN size_t control_bytes_for(size_t classes) {
    return ((FIRST_SLOT + classes) * HEAD_BYTES + HEADER_SIZE + TLSF_ALIGN - 1) & ~(TLSF_ALIGN - 1);
}

/* The rows of classes whose heads `heap`'s control structure holds: its pools' spans are
 * below 2^(FL_SHIFT + rows - 1), the lower bound of the first row it lacks, which
 * pool_span_room + MIN_SPAN + TLSF_ALIGN is (see "Sized heaps"). */
static inline TLSF_NO_ASAN unsigned heap_rows(tlsf_t heap) {
    return bits_fls_size(heap->pool_span_room + MIN_SPAN + TLSF_ALIGN) + 1u - FL_SHIFT;
}

/* The classes whose heads `heap`'s control structure holds. */
static inline TLSF_NO_ASAN size_t heap_class_count(tlsf_t heap) {
#if TLSF_CHECKS >= 2
    return heap->class_count;
#else
    return (size_t)heap_rows(heap) << TLSF_SL_INDEX_LOG2;
#endif
}

/* Make `heap` hold the heads of its first `rows` rows of classes (1 to ROW_COUNT). */
static inline TLSF_NO_ASAN void heap_set_rows(tlsf_t heap, unsigned rows) {
    heap->pool_span_room = ((size_t)1 << (FL_SHIFT + rows - 1)) - TLSF_ALIGN - MIN_SPAN;
#if TLSF_CHECKS >= 2
    heap->class_count = (size_t)rows << TLSF_SL_INDEX_LOG2;
#endif
}

/* The bytes of `heap`'s control structure (control_bytes_for its classes). Where a head
 * node's bytes are a multiple of the alignment, each row left out takes its heads' bytes
 * off control_bytes(): a subtraction the compiler folds with heap_rows' bit scan. */
static inline TLSF_NO_ASAN size_t heap_control_bytes(tlsf_t heap) {
    if (HEAD_BYTES % TLSF_ALIGN == 0)
        return control_bytes() - (size_t)(ROW_COUNT - heap_rows(heap)) * SL_COUNT * HEAD_BYTES;
    return control_bytes_for((size_t)heap_rows(heap) << TLSF_SL_INDEX_LOG2);
}

#endif /* TLSF_CONTROL_H */
