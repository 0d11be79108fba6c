/* SPDX-License-Identifier: MIT */
/*
 * tlsf_slab.h - slabs (64-bit builds with the cache, TLSF_SLABS in tlsf_abi.h; switched on
 * per heap by tlsf_slabs_enable): small
 * blocks cut from larger ones, each of which holds objects of a single span.
 *
 * Why: the front cache keeps at most its budget of freed blocks whole. A burst of nodes
 * far beyond it (a std::list of 100,000 ints, freed in order) takes the lists' paths, where
 * every free merges with the run freed before it. A slab never merges its objects: a free
 * pushes the object on its slab's free list, a malloc pops one, and only a slab whose last
 * object is freed goes back to the lists, as one block. The cost is memory: a slab's free
 * objects serve only its own span (docs/design.md has the figures).
 *
 * Layout. A slab is a block of the heap, taken with the alignment of the slab size
 * (heap->slabs.bytes, a power of two), so that an object finds its slab by masking its
 * address; its size word carries BLOCK_SLAB and BLOCK_ALIGNED. Its user area starts with
 * the slab's state (struct tlsf_slab); the objects fill the rest up to its end:
 *
 *   slab ........ state | unused | object 0 | object 1 | ... | object n-1 | end
 *   object i      its header word (tag) at floor + i * span, then its user bytes
 *
 * where `end` is slab + slab size - TLSF_WORD: there lies the size word of the block that
 * follows the slab (or, when the slab's block kept a tail too small to split off, a sealed
 * word the slab writes there). An object thus looks to the rest of the heap like a block of
 * its span in use: its header word is where a block's size word would be, and the next
 * object's tag (or that following size word) is where the next block's would be. So the
 * misuse checks of tlsf_checks.h work on objects (seal, double free, the next header
 * intact; a header they check may be an object's, HEADER_OF_ANY), tlsf_block_size and
 * tlsf_usable_size read the usable bytes (span - one word) from the tag, and the tools
 * hear of objects as of blocks (block_hand_out, memory_given_back). Objects are handed
 * out in address order, and each hand-out writes the tag of the next fresh object
 * (slab_seal_next), so the object after a handed-out one always has a tag to check.
 *
 * Tags are sealed at the slab's site, not at their own addresses (tlsf_seal.h, seal_site),
 * so all the objects of a slab have one tag, SLAB_FREED aside: the slab keeps it
 * (fresh_tag, with SLAB_FREED) and a hand-out copies it to the next fresh object, a
 * fresh object's hand-out compares its tag with it, and a free compares the tag after
 * the object with its own (slab_next_is_sibling) - plain loads and stores, where a seal
 * costs two multiplies. Only after the top object is the next header's seal computed.
 *
 * Invariants (checked by tlsf_check and tlsf_check_pool):
 *   - an object's tag is its span | BLOCK_SLAB sealed at the slab's site, with SLAB_FREED
 *     once freed (below): fresh_tag, with or without SLAB_FREED; a slab's objects all have
 *     its span, a multiple of TLSF_ALIGN in [SLAB_SPAN_MIN, SLAB_SPAN_MAX];
 *   - a slab's free list holds exactly its freed objects (linked through their first user
 *     word); `live` counts the others it handed out; the objects from `floor` up to
 *     `fresh` have been handed out, and unless `fresh` is `end` its tag is fresh_tag, a
 *     freed object's;
 *   - slabs.classes[i].current is the slab objects of span i * TLSF_ALIGN are cut from
 *     (or NULL); slabs.classes[i].partial lists the other slabs of that span that have a
 *     free object; a slab is `held` exactly when it is current or listed; a slab with no
 *     live object is current (any other goes back to the lists at its last free);
 *   - the statistics count an object as a block of its span in use and the rest of a slab
 *     as free; the slab's own block is not counted.
 *
 * Slabs and the front cache. A request a slab serves goes to its slab before the cache,
 * and the cache takes no object (its mask refuses BLOCK_SLAB): slabs keep their spans'
 * freed objects on their own, so a burst of nodes freed in order empties whole slabs, which
 * go back at once, instead of leaving the cache full of one container's nodes for the next
 * one to start in their gaps (docs/benchmarks.md, "Losses"). The cache serves the exact
 * classes above the slabs', and the slabs' spans only when no slab can be had. The pop of
 * a freed object and the hand-out of a fresh one are inline in malloc and call nothing
 * (slab_pop, slab_take_fresh), the rest is out of line (slab_malloc).
 *
 * Why every operation is O(1): a malloc pops a free list or takes the fresh object of its
 * span's current slab; when there is neither, it makes the first partial slab current, or
 * takes a new slab from the lists (one O(1) aligned take of plain TLSF, tlsfi_take_aligned,
 * which never drains and counts nothing) and computes its layout (one division). A free pushes the
 * object and at most lists its slab (two links) or gives the empty slab back (one O(1) free). Only
 * the flush of empty current slabs loops, over the SLAB_CLASSES spans.
 *
 * Below: plain TLSF only (tlsfi_take_aligned for a slab's memory, tlsfi_release to give an
 * empty slab back). The door, from above: tlsf_alloc.c calls slab_serves,
 * slab_request_span, slab_current, slab_pop, slab_take_fresh and slab_malloc at the top of
 * malloc, slab_object, slab_tag_intact, slab_next_is_sibling and slab_free at the top of
 * free, slab_object in realloc and tlsf_usable_size, and
 * slab_release_empty where a request the lists cannot serve drains the cache;
 * tlsf_configure.c switches slabs on and off; tlsf_inspect.c calls the walk and the checks.
 */
#ifndef TLSF_SLAB_H
#define TLSF_SLAB_H

#include "tlsf_checks.h"
#include "tlsf_classes.h"
#include "tlsf_stats.h"

/* An object's or a slab's header word carries the flag the block layer reserves for this
 * layer (tlsf_block.h); a freed object's is parked. */
#define BLOCK_SLAB BLOCK_CARVED

/* The largest object span: 256 bytes, or less where the exact classes (whose spans objects
 * have) end below that (TLSF_SL_INDEX_LOG2 3: 240). */
#define SLAB_SPAN_MAX ((size_t)TLSF_SLAB_SPAN_MAX_)
/* Requests below this get objects (slabs.request_end while slabs are on): the largest has
 * the span SLAB_SPAN_MAX. */
#define SLAB_REQUEST_END ((size_t)TLSF_SLAB_REQUEST_MAX + 1)
/* The smallest object span: a tag and the link a freed object keeps in its first user
 * word (16 bytes on 64-bit targets, half a block's MIN_SPAN: a free block needs two links). */
#define SLAB_SPAN_MIN CARVED_MIN_SPAN
/* The slab sizes tlsf_slabs_enable accepts. */
#define SLAB_BYTES_MIN ((size_t)TLSF_SLAB_BYTES_MIN)
#define SLAB_BYTES_MAX ((size_t)TLSF_SLAB_BYTES_MAX)

#if TLSF_SLABS
/* An object's tag must sit where a block's size word does: no seal word of its own. Every
 * object span is an exact class's, and has a place in the slab lists. */
typedef char tlsf_check_slab_header[(HEADER_SIZE == 2 * TLSF_WORD) ? 1 : -1];
typedef char tlsf_check_slab_span_min[(SLAB_SPAN_MIN >= TLSF_WORD + sizeof(void *)) ? 1 : -1];
typedef char tlsf_check_slab_class[(sizeof(struct tlsf_slab_class) == TLSF_ALIGN) ? 1 : -1];
typedef char tlsf_check_slab_spans[(SLAB_SPAN_MAX < EXACT_SPAN_LIMIT &&
                                    SLAB_SPAN_MAX <= (size_t)(SLAB_CLASSES - 1) << TLSF_ALIGN_LOG2)
                                       ? 1
                                       : -1];

/* A slab's state, at the start of its user area. */
struct tlsf_slab {
    void *free;                    /* the user pointer of the last freed object, or NULL */
    tlsf_t heap;                   /* the heap (its key decodes the free list's links) */
    char *fresh;                   /* the tag of the next object never handed out, or `end` */
    char *end;                     /* the end of the last object (see the layout above) */
    char *floor;                   /* the tag of the first object */
    size_t live;                   /* objects handed out and not freed */
    size_t span;                   /* every object's span */
    struct tlsf_slab *next, *prev; /* links in slabs.classes[span / TLSF_ALIGN].partial */
    size_t held;                   /* 1 when current or listed */
    size_t fresh_tag;              /* the sealed tag of a fresh object (every one's the same) */
};

/*
 * A freed object's tag is the tag it had in use with SLAB_FREED: BLOCK_PARKED, as a block in
 * the front cache carries it, which the seal leaves out (SEAL_EXEMPT), so that a free and a
 * reuse change the tag with a plain store and only an object's first hand-out computes a
 * seal; a sealed tag is vouched for in use or freed alike. It is one of the flags that say
 * "given back" (BLOCK_GIVEN_BACK), so the misuse checks name a second free a double free
 * as they do for a cached block.
 */
#define SLAB_FREED BLOCK_PARKED

/* The link of a freed object `ptr`: the user pointer of the object freed before it. */
static inline TLSF_NO_ASAN void **slot_slab_link(void *ptr) {
    return (void **)metadata_word(ptr);
}

/* The slab that holds the object `ptr` (slabs are aligned to their size). */
static inline TLSF_NO_ASAN struct tlsf_slab *slab_of(tlsf_t heap, const void *ptr) {
    return (struct tlsf_slab *)(uintptr_t)((uintptr_t)ptr & ~(uintptr_t)(heap->slabs.bytes - 1));
}

/* Write the tag of the slab's next fresh object, as a freed object's (a copy of fresh_tag):
 * the object before it, now handed out, has a next header to check, and a free of the
 * fresh one is refused as a double free. */
static inline TLSF_NO_ASAN void slab_seal_next(struct tlsf_slab *slab) {
    *slot_size(block_from_ptr(slab->fresh + TLSF_WORD)) = slab->fresh_tag;
}

/* The slow half of slab_malloc (tlsfi_slab_refill, tlsf_slab.c): make another slab, one
 * with a free or fresh object, current for span `span` and return it; NULL if the lists
 * have no room for one. The slow half of slab_put (tlsfi_slab_settle): list slab `slab`,
 * which has a free object again, or give it back to the lists if it has no live object and
 * is not current. */
#endif

/* The span of an object for a request of `bytes` (one slab_serves): its bytes and the tag,
 * rounded up to TLSF_ALIGN, at least SLAB_SPAN_MIN (what a request of 0 gets). */
static inline TLSF_NO_ASAN size_t slab_request_span(size_t bytes) {
    return (bytes + TLSF_WORD + TLSF_ALIGN - 1) & ~(size_t)(TLSF_ALIGN - 1);
}

/* Does a slab serve a request of `bytes`? Those below slabs.request_end do, which is 0
 * while slabs are off, so that one compare refuses every request then. */
static inline TLSF_NO_ASAN int slab_serves(tlsf_t heap, size_t bytes) {
#if TLSF_SLABS
    return bytes < heap->slabs.request_end;
#else
    (void)heap;
    (void)bytes;
    return 0;
#endif
}

#if TLSF_SLABS
/* The slabs of span `span`: its current one and its partial list (the invariants above). */
static inline TLSF_NO_ASAN struct tlsf_slab_class *slab_class(tlsf_t heap, size_t span) {
    return &heap->slabs.classes[span >> TLSF_ALIGN_LOG2];
}

/* The slab objects of span `span` are cut from now, or NULL. */
static inline TLSF_NO_ASAN struct tlsf_slab *slab_current(tlsf_t heap, size_t span) {
    return slab_class(heap, span)->current;
}

/* Write the tag `word` of the object `block` (or the word after a slab's top object),
 * sealed at its slab's site (tlsf_seal.h). */
static inline TLSF_NO_ASAN void slab_set_tag(tlsf_t heap, block_t *block, size_t word) {
    header_set_word(heap, block, word, slab_site(heap, block));
}

/* Does the tag `word` of the object `block`, as the caller read it, carry its slab's seal
 * (always, below TLSF_CHECKS 2)? (An object's tag fails block_header_intact, which seals at
 * the block's own address.) */
static inline TLSF_NO_ASAN int slab_tag_intact(tlsf_t heap, block_t *block, size_t word) {
    return word_sealed_at(heap, block, word, slab_site(heap, block));
}

/* Is the header after the object `ptr`, whose tag `word` is intact, the tag of another
 * object of its slab, in use or freed? It is then intact as well: every object of a slab
 * has the same sealed tag, SLAB_FREED aside (the seal binds it to the slab, tlsf_seal.h). */
static inline TLSF_NO_ASAN int slab_next_is_sibling(const void *ptr, size_t word) {
    size_t next = *slot_size(block_at(block_from_ptr(ptr), word_span(word)));
    return ((next ^ word) & ~(size_t)SLAB_FREED) == 0;
}
#endif

/* Is the size word `word` (of a block in use) a slab object's, or a slab's? */
static inline TLSF_NO_ASAN int slab_object(size_t word) {
#if TLSF_SLABS
    return (word & BLOCK_SLAB) != 0;
#else
    (void)word;
    return 0;
#endif
}

#if TLSF_SLABS
/* Why the pop of the freed object `block` found its link unsound: its tag lost its seal (a
 * corrupt block), or the link itself was damaged (a corrupt list). */
static inline TLSF_NO_ASAN tlsf_error_t slab_pop_damage(tlsf_t heap, block_t *block) {
    return slab_tag_intact(heap, block, *slot_size(block)) ? TLSF_ERROR_CORRUPT_LIST
                                                           : TLSF_ERROR_CORRUPT_BLOCK;
}

/* The object `block` of slab `slab` (span `span`), popped or fresh, whose tag is `tag`,
 * handed out: its tag in use again, counted, the tools told. */
static inline TLSF_NO_ASAN void *slab_hand_out(tlsf_t heap, struct tlsf_slab *slab, block_t *block,
                                               size_t tag, size_t span) {
    block_set_exempt_flags(block, tag & ~SLAB_FREED);
    slab->live++;
    stats_on_alloc(heap, span);
    return block_hand_out(block);
}

/* malloc's fast path on a heap with slabs, for span `span` (slab_serves), when its current
 * slab `slab` has a freed object: the most recently freed one (LIFO: still in the
 * processor's caches), in use again; NULL when its link is damaged (slab_malloc, which the
 * caller tries next, reports the damage). It calls nothing and computes no seal, so that
 * the compiler keeps this path free of saved registers. */
static inline TLSF_NO_ASAN void *slab_pop(tlsf_t heap, struct tlsf_slab *slab, size_t span) {
    int sound = 1;
    void *ptr = slab->free, *below;
    block_t *block = block_from_ptr(ptr);
    below = link_decode(heap, slot_slab_link(ptr), link_binding(block), &sound);
    if (!sound) return NULL;
    slab->free = below;
    return slab_hand_out(heap, slab, block, *slot_size(block), span);
}

/* malloc's step when the current slab `slab` of span `span` has no freed object: its next
 * fresh object, in use; NULL when it has none, or when that object's tag is not fresh_tag
 * (slab_malloc, which the caller tries next, reports that). Its tag was written, as a freed
 * object's, when the one before it was handed out (slab_seal_next); an overflow from that
 * one may have reached it since, so with TLSF_CHECKS 2 it is compared (the pop of a freed
 * one checks its tag with its link). The next one's tag is written now. It calls nothing
 * either. */
static inline TLSF_NO_ASAN void *slab_take_fresh(tlsf_t heap, struct tlsf_slab *slab, size_t span) {
    block_t *block;
    size_t tag;
    if (slab->fresh == slab->end) return NULL;
    block = block_from_ptr(slab->fresh + TLSF_WORD);
    tag = *slot_size(block);
    if (TLSF_CHECKS >= 2 && tag != slab->fresh_tag) return NULL;
    slab->fresh += span;
    if (slab->fresh != slab->end) slab_seal_next(slab);
    return slab_hand_out(heap, slab, block, tag, span);
}

/* The current slab `slab` has a freed object or a fresh one, and neither slab_pop nor
 * slab_take_fresh would hand it out: the link of the freed one or the tag of the fresh one
 * is damaged. The handler hears of it, and the free list or the fresh objects stay out of
 * use (tlsf_check_pool counts them). */
static inline TLSF_NO_ASAN void slab_report_damage(tlsf_t heap, struct tlsf_slab *slab) {
    if (slab->free != NULL) {
        tlsfi_report(heap, slab_pop_damage(heap, block_from_ptr(slab->free)), slab->free);
        slab->free = NULL;
    } else {
        tlsfi_report(heap, TLSF_ERROR_CORRUPT_BLOCK, slab->fresh + TLSF_WORD);
        slab->fresh = slab->end;
    }
}

/* malloc of span `span` after slab_pop and slab_take_fresh returned NULL: the user
 * pointer of an object in use, from a slab made current (tlsfi_slab_refill); NULL if the
 * lists have no room for one, or if an object is damaged (slab_report_damage; the request
 * then takes the cache and the lists). */
static inline TLSF_NO_ASAN void *slab_malloc(tlsf_t heap, size_t span) {
    struct tlsf_slab *slab = slab_current(heap, span);
    if (slab == NULL || (slab->free == NULL && slab->fresh == slab->end)) {
        void *ptr;
        slab = tlsfi_slab_refill(heap, span);
        if (slab == NULL) return NULL;
        ptr = slab->free != NULL ? slab_pop(heap, slab, span) : slab_take_fresh(heap, slab, span);
        if (ptr != NULL) return ptr;
    }
    slab_report_damage(heap, slab);
    return NULL;
}

/* The flags of a tag that make freeing the object a misuse (free_check_word's and
 * slab_misuse's): given back (a double free) or BLOCK_ALIGNED (a slab's own pointer). free
 * tests them together, and only a tag with one of them takes the tests one by one, to
 * report the reason in their order. */
#define SLAB_MISUSE_FLAGS (BLOCK_GIVEN_BACK | BLOCK_ALIGNED)

/* What is wrong with freeing (or resizing) the slab object or slab `ptr` with tag `word`,
 * beyond what block_misuse checks: TLSF_ERROR_DOUBLE_FREE for a freed object,
 * TLSF_ERROR_BAD_POINTER for a slab's own pointer, which no malloc returned (with
 * TLSF_CHECKS >= 1; TLSF_ERROR_NONE without). */
static inline TLSF_NO_ASAN tlsf_error_t slab_misuse(size_t word) {
#if TLSF_CHECKS >= 1
    /* (free_check_word's test, which free's slab path comes before.) */
    if (word & SLAB_FREED) return TLSF_ERROR_DOUBLE_FREE;
    if (word & BLOCK_ALIGNED) return TLSF_ERROR_BAD_POINTER;
#else
    (void)word;
#endif
    return TLSF_ERROR_NONE;
}

/* Put the slab object `ptr` with tag `word` (as read, or as the cache kept it), which the
 * user has given back (the tools and the statistics know), on its slab's free list. */
static inline TLSF_NO_ASAN void slab_put(tlsf_t heap, void *ptr, size_t word) {
    struct tlsf_slab *slab = slab_of(heap, ptr);
    block_set_exempt_flags(block_from_ptr(ptr), word | SLAB_FREED);
    *slot_slab_link(ptr) = link_encode(heap, slot_slab_link(ptr), slab->free, word | SLAB_FREED);
    slab->free = ptr;
    if (--slab->live == 0 || !slab->held) tlsfi_slab_settle(heap, slab);
}

/* free of the slab object `ptr` with tag `word`, checked (block_misuse, slab_misuse), that
 * the front cache did not take: it goes on its slab's free list. */
static inline TLSF_NO_ASAN void slab_free(tlsf_t heap, void *ptr, size_t word) {
    size_t span = word_span(word);
    /* The tools first (a fill must not cover the link). */
    memory_given_back(ptr, span - TLSF_WORD);
    stats_on_free(heap, span);
    slab_put(heap, ptr, word);
}
#endif

/* Give every slab with no live object back to the lists (only current slabs can be
 * empty): a pass over the SLAB_CLASSES spans, each an O(1) free. Returns 1 if one went back.
 * Nothing at all without slabs. */
static inline TLSF_NO_ASAN int slab_release_empty(tlsf_t heap) {
#if TLSF_SLABS
    return tlsfi_slab_release_empty(heap);
#else
    (void)heap;
    return 0;
#endif
}

/* (For the walk, tlsfi_slab_walk reports the objects of a slab; for the checks,
 * tlsfi_slab_check_block and tlsfi_slab_check_lists count what fails: tlsf_internal.h.) */

#endif /* TLSF_SLAB_H */
