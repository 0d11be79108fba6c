/*
 * SPDX-License-Identifier: MIT
 *
 * fake_kernel.h - what the fake kernel records (fake_kernel.cpp defines it): how often and
 * how deep the heap's lock was taken, configASSERT failures, trace calls and malloc-failed
 * hook calls, each with the lock depth at the time.
 */
#ifndef FAKE_KERNEL_H
#define FAKE_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fake_kernel_log {
    int lock_depth;     /* scheduler suspensions or interrupt masks now held */
    int max_lock_depth; /* the deepest seen */
    size_t locks;       /* lock acquisitions */
    size_t unlocks;     /* lock releases */
    size_t assert_failures;
    int last_assert_line;
    size_t hook_calls;   /* vApplicationMallocFailedHook */
    int hook_lock_depth; /* lock depth during the last hook call */
    size_t trace_mallocs;
    void *last_malloc;
    size_t last_malloc_size;
    int trace_lock_depth; /* lock depth during the last trace call */
    size_t trace_frees;
    void *last_free;
    size_t last_free_size;
} fake_kernel_log_t;

extern fake_kernel_log_t fake_kernel;

void fake_assert_failed(int line);
void fake_trace_malloc(void *address, size_t size);
void fake_trace_free(void *address, size_t size);
unsigned long fake_set_interrupt_mask(void);
void fake_clear_interrupt_mask(unsigned long saved);

#ifdef __cplusplus
}
#endif

#endif /* FAKE_KERNEL_H */
