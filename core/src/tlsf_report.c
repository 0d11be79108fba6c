/* SPDX-License-Identifier: MIT */
/*
 * tlsf_report.c - misuse reports: the error handler, its default, and the names of the
 * reasons. Called by the checks (tlsf_checks.h) and the pool functions when they refuse an
 * argument; it calls nothing of the heap but the seal's test of a header.
 */
#include "tlsf_internal.h"
#include "tlsf_seal.h"

#if TLSF_DEFAULT_ERROR_HANDLER
/* Hosted builds only (see tlsf_config.h): the default error handler's message and abort. */
#include <stdio.h>
#include <stdlib.h>
#endif

TLSF_NO_ASAN void tlsf_set_error_handler(tlsf_t heap, tlsf_error_handler_t handler, void *user) {
    if (heap == NULL) return;
    heap->on_error = handler;
    heap->on_error_user = user;
}

#if TLSF_DEFAULT_ERROR_HANDLER
/* One line, written at once (stderr is unbuffered), then abort: the program's memory can
 * no longer be trusted, and a core dump at the faulty call is the most useful outcome. */
TLSF_NO_ASAN void tlsf_default_error_handler(tlsf_t heap, tlsf_error_t reason, const void *ptr,
                                             void *user) {
    (void)user;
    fprintf(stderr, "tlsf: %s (pointer %p, heap %p); aborting\n", tlsf_error_string(reason),
            (void *)(uintptr_t)ptr, (void *)heap);
    abort();
}
#endif

/*
 * The rule for misuse (tlsf.h, tlsf_error_handler_t): an installed handler hears of every
 * case. With none, only misuse of blocks reaches the default handler (which aborts in
 * hosted builds): a bad free or realloc has no result to report failure through, and the
 * program's memory can no longer be trusted. A bad pool argument is reported by a NULL
 * result (or, for tlsf_remove_pool, by the pool staying in the heap) and never aborts on
 * its own.
 */
TLSF_NO_ASAN void tlsfi_report(tlsf_t heap, tlsf_error_t reason, const void *ptr) {
    if (heap == NULL) return;
#if TLSF_CHECKS >= 2
    if (reason == MISUSE_UNSEALED) {
        block_t *block = block_from_ptr(ptr);
        if (block_header_absorbed(heap, block))
            reason = TLSF_ERROR_DOUBLE_FREE;
        else if (block_header_flag_changed(heap, block))
            reason = TLSF_ERROR_CORRUPT_BLOCK;
        else
            reason = TLSF_ERROR_BAD_POINTER;
    }
#endif
    if (heap->on_error) heap->on_error(heap, reason, ptr, heap->on_error_user);
#if TLSF_DEFAULT_ERROR_HANDLER
    else if (reason != TLSF_ERROR_BAD_POOL && reason != TLSF_ERROR_POOL_IN_USE)
        tlsf_default_error_handler(heap, reason, ptr, NULL);
#endif
}

TLSF_NO_ASAN const char *tlsf_error_string(tlsf_error_t reason) {
    switch (reason) {
    case TLSF_ERROR_NONE:
        return "no error";
    case TLSF_ERROR_DOUBLE_FREE:
        return "double free: the block is already free";
    case TLSF_ERROR_BAD_POINTER:
        return "bad pointer: not the start of a block of this heap";
    case TLSF_ERROR_CORRUPT_BLOCK:
        return "corrupt block header (overflow from the block before?)";
    case TLSF_ERROR_BAD_POOL:
        return "bad pool: not this heap's, or memory misaligned, too small or too large";
    case TLSF_ERROR_POOL_IN_USE:
        return "pool still holds allocations";
    case TLSF_ERROR_CORRUPT_LIST:
        return "corrupt list: a link of a freed block was overwritten (use after free?)";
    }
    return "unknown error";
}
