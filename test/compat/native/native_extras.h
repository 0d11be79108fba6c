/* SPDX-License-Identifier: MIT */
/*
 * native_extras.h - the interface between the compatibility tests (which see only the
 * layer's tlsf.h) and native_extras.c (which sees only the core's, with the layer's
 * settings: tlsf::mattconte_native). Nothing here names a type of either header.
 */
#ifndef TLSF_COMPAT_NATIVE_EXTRAS_H
#define TLSF_COMPAT_NATIVE_EXTRAS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* This library's additions, called on a heap of the layer. */
struct native_report {
    size_t live_blocks, used_bytes, pool_bytes, pool_count; /* tlsf_get_stats */
    size_t usable_size;                                     /* tlsf_usable_size(heap, ptr) */
    size_t largest_allocatable;                             /* tlsf_largest_allocatable(heap) */
    int calloc_zeroed;                                      /* tlsf_calloc gave 100 zero bytes */
    int handler_calls; /* errors the handler installed by native_catch_errors heard */
    int last_error_was_double_free;
};
void native_read(void *heap, void *ptr, struct native_report *report);

/* Install an error handler on `heap` that counts into native_read's report. */
void native_catch_errors(void *heap);

#ifdef __cplusplus
}
#endif

#endif /* TLSF_COMPAT_NATIVE_EXTRAS_H */
