/* SPDX-License-Identifier: MIT */
/*
 * native_extras.c - this library's own API (the core's tlsf.h, compiled with the layer's
 * settings through tlsf::mattconte_native) on a heap that a mattconte program made through
 * the layer. With another configuration, these calls name symbols the layer's library does
 * not have, and the program does not link (the ctest compat_mismatch_fails_to_link).
 */
#include <string.h>

#include "tlsf.h"

#include "native_extras.h"

#ifdef TLSF_MATTCONTE_H
#error "native_extras.c is compiled against the core's tlsf.h, not the layer's"
#endif

static int handler_calls;
static int last_error_was_double_free;

static void count_error(tlsf_t heap, tlsf_error_t reason, const void *ptr, void *user) {
    (void)heap;
    (void)ptr;
    (void)user;
    ++handler_calls;
    last_error_was_double_free = reason == TLSF_ERROR_DOUBLE_FREE;
}

void native_catch_errors(void *heap) {
    handler_calls = 0;
    tlsf_set_error_handler((tlsf_t)heap, count_error, NULL);
}

void native_read(void *heap, void *ptr, struct native_report *report) {
    tlsf_stats_t stats;
    unsigned char *zeroed;
    tlsf_get_stats((tlsf_t)heap, &stats);
    report->live_blocks = stats.live_blocks;
    report->used_bytes = stats.used_bytes;
    report->pool_bytes = stats.pool_bytes;
    report->pool_count = stats.pool_count;
    report->usable_size = tlsf_usable_size((tlsf_t)heap, ptr);
    report->largest_allocatable = tlsf_largest_allocatable((tlsf_t)heap);
    zeroed = (unsigned char *)tlsf_calloc((tlsf_t)heap, 10, 10);
    report->calloc_zeroed =
        zeroed != NULL && zeroed[0] == 0 && zeroed[99] == 0 && memcmp(zeroed, zeroed + 1, 99) == 0;
    tlsf_free((tlsf_t)heap, zeroed);
    report->handler_calls = handler_calls;
    report->last_error_was_double_free = last_error_was_double_free;
}
