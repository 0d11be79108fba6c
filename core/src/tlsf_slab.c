/* SPDX-License-Identifier: MIT */
/*
 * tlsf_slab.c - the slabs' slow operations: making a slab current, creating and releasing
 * slabs, the walk and the checks. The pop and push are inline in
 * tlsf_slab.h, which states the layout and the invariants.
 */
#include "tlsf_slab.h"

#if TLSF_SLABS
/* The tag of the end of slab `slab` (see the layout in tlsf_slab.h). */
static TLSF_NO_ASAN char *slab_end(tlsf_t heap, struct tlsf_slab *slab) {
    return (char *)slab + heap->slabs.bytes - TLSF_WORD;
}

/* The block of the slab whose state is at `slab`. */
static TLSF_NO_ASAN block_t *slab_block(struct tlsf_slab *slab) {
    return block_from_ptr(slab);
}

/* A new slab for objects of span `span`, or NULL if the lists have no room for one. */
static TLSF_NO_ASAN struct tlsf_slab *slab_create(tlsf_t heap, size_t span) {
    size_t bytes = heap->slabs.bytes, count;
    /* A block of the slab size at its own alignment, which plain TLSF takes without telling
     * the tools (the slab's memory stays the heap's for ASan and valgrind; its objects are
     * handed out one by one) and without counting it (the statistics count objects). */
    void *memory = tlsfi_take_aligned(heap, bytes, bytes - HEADER_SIZE);
    struct tlsf_slab *slab = (struct tlsf_slab *)memory;
    block_t *block;
    char *end, *first;
    if (memory == NULL) return NULL;
    block = block_from_ptr(memory);
    end = slab_end(heap, slab);
    /* The block is exactly the slab size, or one TLSF_ALIGN more when the tail behind it
     * was too small to split off; then the word at `end` is inside it, and gets a sealed
     * word for the top object's check of its next header. */
    if (word_span(*slot_size(block)) != bytes)
        slab_set_tag(heap, block_from_ptr(end + TLSF_WORD), MIN_SPAN | BLOCK_SLAB);
    block_set_word(heap, block, (*slot_size(block) & WORD_LOW_MASK) | BLOCK_SLAB);
    heap->slabs.count++;
    valgrind_undefined(slab, sizeof *slab); /* the state is the heap's; objects stay unseen */
    first = (char *)slab + sizeof *slab;
    count = (size_t)(end - first) / span;
    slab->free = NULL;
    slab->heap = heap;
    slab->end = end;
    slab->floor = slab->fresh = end - count * span;
    slab->live = 0;
    slab->span = span;
    slab->next = slab->prev = NULL;
    slab->held = 0;
    block = block_from_ptr(slab->fresh + TLSF_WORD);
    slab_set_tag(heap, block, span | BLOCK_SLAB | SLAB_FREED);
    slab->fresh_tag = *slot_size(block);
    return slab;
}

/* Give the empty slab `slab`, neither current nor listed, back to the lists: its block
 * becomes an ordinary block in use again and is freed (merged with free neighbours). */
static TLSF_NO_ASAN void slab_release(tlsf_t heap, struct tlsf_slab *slab) {
    block_t *block = slab_block(slab);
    size_t word = *slot_size(block) & WORD_LOW_MASK & ~(size_t)(BLOCK_SLAB | BLOCK_ALIGNED);
    /* With sealed headers, the slab's own header and its neighbours are checked before the
     * merge trusts them: an overflow from the block before may have reached the header
     * (it is then reported, and the slab stays out of use). */
    if (!block_header_intact(heap, block)) {
        tlsfi_report(heap, TLSF_ERROR_CORRUPT_BLOCK, slab);
        return;
    }
    if (!block_check_neighbours(heap, slab, word)) return;
    block_set_word(heap, block, word);
    valgrind_no_access(slab, sizeof *slab);
    heap->slabs.count--;
    tlsfi_release(heap, slab, *slot_size(block));
}

static TLSF_NO_ASAN void partial_link(tlsf_t heap, struct tlsf_slab *slab) {
    struct tlsf_slab **head = &slab_class(heap, slab->span)->partial;
    slab->prev = NULL;
    slab->next = *head;
    if (*head != NULL) (*head)->prev = slab;
    *head = slab;
    slab->held = 1;
}

static TLSF_NO_ASAN void partial_unlink(tlsf_t heap, struct tlsf_slab *slab) {
    if (slab->prev != NULL)
        slab->prev->next = slab->next;
    else
        slab_class(heap, slab->span)->partial = slab->next;
    if (slab->next != NULL) slab->next->prev = slab->prev;
    slab->held = 0;
}

TLSF_NO_ASAN struct tlsf_slab *tlsfi_slab_refill(tlsf_t heap, size_t span) {
    struct tlsf_slab_class *class_of_span = slab_class(heap, span);
    struct tlsf_slab *old = class_of_span->current;
    struct tlsf_slab *slab = class_of_span->partial;
    if (slab != NULL)
        partial_unlink(heap, slab);
    else if ((slab = slab_create(heap, span)) == NULL)
        return NULL;
    /* The old current slab is full: unheld, so that its next free lists it. */
    if (old != NULL) old->held = 0;
    slab->held = 1;
    class_of_span->current = slab;
    return slab; /* a listed slab has a free object, a new one fresh ones */
}

TLSF_NO_ASAN void tlsfi_slab_settle(tlsf_t heap, struct tlsf_slab *slab) {
    if (slab->live == 0) {
        if (slab == slab_current(heap, slab->span)) return;
        if (slab->held) partial_unlink(heap, slab);
        slab_release(heap, slab);
    } else if (!slab->held) {
        partial_link(heap, slab);
    }
}
#endif

TLSF_NO_ASAN int tlsfi_slab_release_empty(tlsf_t heap) {
    int released = 0;
#if TLSF_SLABS
    unsigned index;
    for (index = 0; index < SLAB_CLASSES; ++index) {
        struct tlsf_slab *slab = heap->slabs.classes[index].current;
        if (slab == NULL || slab->live != 0) continue;
        heap->slabs.classes[index].current = NULL;
        slab->held = 0;
        slab_release(heap, slab);
        released = 1;
    }
#else
    (void)heap;
#endif
    return released;
}

#if TLSF_SLABS

/* The slab's size from its block: the mask the objects use is the largest power of two
 * that does not exceed the block's span (the span is the size, or one TLSF_ALIGN more). */
static TLSF_NO_ASAN size_t slab_bytes_of(block_t *block) {
    size_t span = word_span(*slot_size(block));
    return (size_t)1 << bits_fls_size(span);
}
#endif

#if TLSF_SLABS
/* The state of the slab whose block is `block` if its layout is sound (so that a walk or a
 * check may follow it), otherwise NULL: a size word that only claims to be a slab's (an
 * overflow into a header can set the flags) leads nowhere. */
static TLSF_NO_ASAN struct tlsf_slab *slab_sound(block_t *block) {
    struct tlsf_slab *slab = (struct tlsf_slab *)block_to_ptr(block);
    size_t word = *slot_size(block), bytes = slab_bytes_of(block), span;
    char *end = (char *)slab + bytes - TLSF_WORD;
    if ((word & (BLOCK_SLAB | BLOCK_ALIGNED | BLOCK_FREE)) != (BLOCK_SLAB | BLOCK_ALIGNED) ||
        bytes < SLAB_BYTES_MIN || bytes > SLAB_BYTES_MAX || ((uintptr_t)slab & (bytes - 1)) != 0)
        return NULL;
    (void)metadata_word(slab); /* valgrind: the state is the heap's */
    span = slab->span;
    if (span < SLAB_SPAN_MIN || span > SLAB_SPAN_MAX || (span & (TLSF_ALIGN - 1)) != 0 ||
        slab->end != end || slab->floor < (char *)slab + sizeof *slab || slab->floor > end - span ||
        (size_t)(end - slab->floor) % span != 0 || slab->fresh < slab->floor || slab->fresh > end ||
        (size_t)(end - slab->fresh) % span != 0)
        return NULL;
    return slab;
}
#endif

TLSF_NO_ASAN int tlsfi_slab_walk(block_t *block, tlsf_walker walker, void *user) {
#if TLSF_SLABS
    struct tlsf_slab *slab = slab_sound(block);
    char *tag;
    if (slab == NULL) return 0;
    /* The state (and what no object fills before the first): free to the user, as a
     * cached block; then the objects handed out; then those not yet handed out, free. */
    walker(slab, (size_t)(slab->floor - (char *)slab), 0, user);
    for (tag = slab->floor; tag < slab->fresh; tag += slab->span) {
        size_t word = *slot_size(block_from_ptr(tag + TLSF_WORD));
        walker(tag + TLSF_WORD, slab->span - TLSF_WORD, (word & SLAB_FREED) == 0, user);
    }
    if (slab->fresh != slab->end)
        walker(slab->fresh + TLSF_WORD, (size_t)(slab->end - slab->fresh) - TLSF_WORD, 0, user);
    return 1;
#else
    (void)block;
    (void)walker;
    (void)user;
    return 0;
#endif
}

TLSF_NO_ASAN int tlsfi_slab_check_block(block_t *block) {
#if TLSF_SLABS
    struct tlsf_slab *slab = slab_sound(block);
    size_t span, marked = 0, listed = 0, handed;
    char *tag;
    void *ptr;
    int sound = 1;
    if (slab == NULL) return 1; /* do not follow a damaged layout */
    span = slab->span;
    handed = (size_t)(slab->fresh - slab->floor) / span;
    for (tag = slab->floor; tag < slab->fresh; tag += span) {
        size_t word = *slot_size(block_from_ptr(tag + TLSF_WORD));
        marked += (word & SLAB_FREED) != 0;
        if ((word & BLOCK_FLAGS) != BLOCK_SLAB || word_span_any(word) != span) return 1;
    }
    /* Every listed object is a freed one of this slab (a longer list is a cycle). */
    for (ptr = slab->free; ptr != NULL;
         ptr = link_decode(slab->heap, slot_slab_link(ptr), link_binding(block_from_ptr(ptr)),
                           &sound)) {
        char *at;
        if (!sound) return 1; /* before the damaged link is used at all */
        at = (char *)ptr - TLSF_WORD;
        if (listed++ == handed || at < slab->floor || at >= slab->fresh ||
            (size_t)(at - slab->floor) % span != 0 ||
            !(*slot_size(block_from_ptr(ptr)) & SLAB_FREED))
            return 1;
    }
    /* Objects in the front cache carry the mark too (where cached blocks carry one), and
     * are live to their slab. */
    return (marked < listed || (TLSF_CACHE_MARKS == 0 && marked != listed)) +
           (slab->live != handed - listed);
#else
    (void)block;
    return 0;
#endif
}

TLSF_NO_ASAN int tlsfi_slab_check_lists(tlsf_t heap) {
    int errors = 0;
#if TLSF_SLABS
    unsigned index;
    for (index = 0; index < SLAB_CLASSES; ++index) {
        size_t span = (size_t)index << TLSF_ALIGN_LOG2;
        size_t allowed = heap->slabs.count;
        struct tlsf_slab *slab = heap->slabs.classes[index].current, *prev = NULL;
        if (slab != NULL) errors += slab->span != span || !slab->held;
        for (slab = heap->slabs.classes[index].partial; slab != NULL;
             prev = slab, slab = slab->next) {
            if (allowed-- == 0) return errors + 1; /* more slabs than the heap holds: a cycle */
            errors += slab->span != span || !slab->held || slab->prev != prev ||
                      slab == heap->slabs.classes[index].current || slab->live == 0 ||
                      (slab->free == NULL && slab->fresh == slab->end);
        }
    }
    errors += heap->slabs.request_end != 0 && heap->slabs.request_end != SLAB_REQUEST_END;
#else
    (void)heap;
#endif
    return errors;
}
