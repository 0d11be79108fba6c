/* SPDX-License-Identifier: MIT */
/*
 * tlsf_core.c - the out-of-line instances of plain TLSF (tlsf_core.h) that the slabs call:
 * they take their memory here and give empty slabs back here. The front end places its
 * own copies (tlsf_alloc.c: inline, or out of line in its own file where code size comes
 * first, where one copy then serves malloc, free and the cache's drain).
 */
#include "tlsf_checks.h"
#include "tlsf_core.h"
#include "tlsf_internal.h"

TLSF_NO_ASAN void tlsfi_release(tlsf_t heap, void *ptr, size_t word) {
    core_release(heap, ptr, word);
}

TLSF_NO_ASAN void *tlsfi_take_aligned(tlsf_t heap, size_t align, size_t bytes) {
    unsigned slot;
    size_t want, span;
    block_t *first;
    if (!aligned_request(align, bytes, &want, &slot) || !find_free_class(heap, &slot)) return NULL;
    /* As the front end's takes: the block is taken only if it is sound (free_block_sound). */
    first = *slot_next_free(slot_head(heap, slot));
    if (!free_block_sound(heap, first)) {
        tlsfi_report(heap, TLSF_ERROR_CORRUPT_LIST, block_to_ptr(first));
        return NULL;
    }
    return block_to_ptr(core_take_aligned(heap, slot, want, align, 0, &span));
}
