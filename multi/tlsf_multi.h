/*
 * SPDX-License-Identifier: MIT
 *
 * tlsf_multi.h - one TLSF heap per core, for multi-core microcontrollers that share RAM
 * (dual Cortex-M parts): each core allocates from its own heap with no lock and no
 * interrupt masking; a block freed on another core goes onto its owner's remote-free
 * list with a lock-free push and is taken back by the owner in bounded batches.
 *
 * Setup: a tlsf_multi_t (static storage), tlsf_multi_init with a function that names the
 * calling core (0 .. TLSF_MULTI_MAX_CORES - 1: e.g. the SIO CPUID register of an RP2040,
 * the core's ID register elsewhere), then tlsf_multi_add_core once per core with that
 * core's memory (one contiguous region each; any core may run the setup, before the
 * others allocate).
 *
 * Cost (what to add to the core's own bounds, tlsf.h):
 *   tlsf_multi_malloc   the core's tlsf_malloc, plus taking back at most
 *                       TLSF_MULTI_BATCH blocks other cores freed (each an ordinary
 *                       tlsf_free), plus reading the core number. When the heap cannot
 *                       serve the request, everything pending is taken back and the
 *                       request retried once: that path is bounded by the number of
 *                       blocks other cores freed since, which the program bounds.
 *   tlsf_multi_free     finding the owner: a comparison with each core's region (at most
 *                       TLSF_MULTI_MAX_CORES); then, on the owner, tlsf_free plus the
 *                       same batch; on another core, a compare-and-swap loop on the
 *                       owner's list head (lock-free: it retries only when another core
 *                       pushed onto the same list in between, so at most once per
 *                       concurrent push).
 * The list link is the freed block's first word: no memory is added per block.
 *
 * Requirements and limits:
 *   - lock-free compare-and-swap on pointers (C11 atomics): ARMv7-M and later (Cortex-M3,
 *     M4, M7, M33, ...) have it; ARMv6-M (Cortex-M0/M0+) does not, and this file refuses
 *     to compile there (tlsf_remote_stack.h, the remote-free list it shares with the
 *     malloc shim).
 *   - calls on one core must not nest: an interrupt handler that allocates must not
 *     interrupt an allocation of its own core (mask interrupts around the thread-level
 *     calls, or keep allocation out of handlers). Other cores need no such care.
 *   - the memory of the heaps must be coherent between the cores (shared SRAM without
 *     data caches, or caches kept coherent by the hardware).
 * Misuse is the core's to report (double free, bad pointer: the owner heap's error handler,
 * when the owner frees the block); a pointer in no core's region is not followed: the free
 * is ignored and counted in foreign_frees.
 */
#ifndef TLSF_MULTI_H
#define TLSF_MULTI_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tlsf.h"
#include "tlsf_remote_stack.h"

#ifndef TLSF_MULTI_MAX_CORES
#define TLSF_MULTI_MAX_CORES 2
#endif
#ifndef TLSF_MULTI_BATCH
#define TLSF_MULTI_BATCH 4
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The calling core's number, 0 .. TLSF_MULTI_MAX_CORES - 1. */
typedef unsigned (*tlsf_multi_core_fn)(void *user);

/* One core's heap. The fields are the library's; read them only through the functions. */
typedef struct tlsf_multi_core {
    tlsf_remote_stack_t remote; /* blocks other cores freed, pushed here */
    void *pending;              /* taken from `remote`, not yet freed (owner only) */
    tlsf_t heap;                /* NULL until tlsf_multi_add_core */
    uintptr_t start, end;       /* the core's region */
} tlsf_multi_core_t;

typedef struct tlsf_multi {
    tlsf_multi_core_fn current_core;
    void *user;
    atomic_size_t foreign_frees; /* frees of pointers in no core's region (ignored) */
    tlsf_multi_core_t cores[TLSF_MULTI_MAX_CORES];
} tlsf_multi_t;

/* Prepare `multi` (not NULL) with the function that names the calling core. Returns 0 if
 * a pointer is NULL, else 1. */
int tlsf_multi_init(tlsf_multi_t *multi, tlsf_multi_core_fn current_core, void *user);

/* Give core `core` its heap: a TLSF heap created in `bytes` at `memory` (as
 * tlsf_create_with_pool). Returns 0 - and changes nothing - if the core number is out of
 * range, the core already has a heap, the memory is NULL, overlaps another core's region
 * or is too small or too large for one pool; else 1. Not to be called while the cores
 * allocate. */
int tlsf_multi_add_core(tlsf_multi_t *multi, unsigned core, void *memory, size_t bytes);

/* `bytes` from the calling core's heap (see the cost above); NULL when it has no room or
 * the calling core has no heap. Zero bytes: a minimum-size block, as tlsf_malloc. */
void *tlsf_multi_malloc(tlsf_multi_t *multi, size_t bytes);

/* As tlsf_multi_malloc, aligned to `align` (as tlsf_memalign: a power of two). */
void *tlsf_multi_memalign(tlsf_multi_t *multi, size_t align, size_t bytes);

/* Free a block of any core's heap from any core. NULL is ignored; so is a pointer in no
 * core's region (counted in foreign_frees). */
void tlsf_multi_free(tlsf_multi_t *multi, void *ptr);

/* Take back at most `limit` blocks other cores freed into the calling core's heap (the
 * malloc and free of that core do this by TLSF_MULTI_BATCH already; an idle core may call
 * it to return memory sooner). Returns how many were taken back: fewer than `limit` only
 * when nothing freed by another core before the call is left waiting, so SIZE_MAX empties
 * both the batch being worked through and whatever arrived since. 0 for a NULL `multi` or
 * a core with no heap. */
size_t tlsf_multi_take_back(tlsf_multi_t *multi, size_t limit);

/* The core whose heap holds `ptr`, or -1 for a pointer in no core's region. */
int tlsf_multi_owner(const tlsf_multi_t *multi, const void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* TLSF_MULTI_H */
