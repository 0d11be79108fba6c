/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_thread.h - the drop-in malloc's heaps: one TLSF heap per thread, remote frees,
 * orphaned heaps, fork. The malloc API (tlsf_malloc.c) calls only these functions; they
 * implement the allocator's semantics minus errno and the C library's argument rules.
 *
 * Cost per call, on the calling thread's own heap (no lock, no atomic read-modify-write):
 * the core's bounded tlsf_malloc / tlsf_free, a compare with the thread's hot chunk on free
 * (else a region-map lookup: two loads), and taking back at most TLSFM_REMOTE_BATCH blocks
 * that other threads freed into this heap (each one a tlsf_free). A request of 1 KiB or
 * more is counted for the heap's cache budget; every 64th reads the core's statistics and
 * may lower the budget, which flushes the cache (bounded: the drain of tlsf.h). Only the rare paths
 * take the lock or call the system: a thread's first call, mapping or unmapping a 4 MiB chunk,
 * large blocks, a free into the heap of a thread that has exited, thread exit, the heap
 * check and fork.
 */
#ifndef TLSFM_THREAD_H
#define TLSFM_THREAD_H

#include <stddef.h>

#include "tlsf_malloc.h"

/* Blocks freed by other threads that a heap's owner takes back per malloc or free. The
 * path that would otherwise map a new chunk takes back all of them first. */
#define TLSFM_REMOTE_BATCH 16

/*
 * A block of `bytes` aligned to `align` (0: the default alignment; else a power of two
 * above tlsf_align_size())
 * from the calling thread's heap, or a large mapping of its own above a quarter of a chunk.
 * NULL when there is no memory. *fresh (if not NULL) tells whether the block's memory came
 * zeroed from the system and was not written since (calloc may then skip its memset).
 */
void *tlsfm_heap_alloc(size_t bytes, size_t align, int *fresh);

/* Free `ptr` (not NULL): into the caller's heap, onto the owning heap's remote-free list
 * (lock-free push), into an orphaned heap under the lock, or a large mapping into the
 * cache. A pointer in no mapping of ours aborts with a message naming `function`; a
 * double free or a bad pointer inside a chunk is reported by the core's checks (at once
 * on the owner's heap, when the owner takes it back otherwise). */
void tlsfm_heap_free(void *ptr, const char *function);

/* Resize the block at `ptr` (not NULL, bytes > 0) in place when its own heap can, else
 * move it; NULL (ptr untouched) when there is no memory. Misuse as tlsfm_heap_free. */
void *tlsfm_heap_realloc(void *ptr, size_t bytes, const char *function);

/* Usable bytes of the block at `ptr` (not NULL). Misuse as tlsfm_heap_free. */
size_t tlsfm_heap_usable_size(void *ptr, const char *function);

/* The fields of tlsfm_info (tlsf_malloc.h) and the check (tlsfm_check). */
void tlsfm_heap_get_info(struct tlsfm_info *info);
int tlsfm_heap_check(void);

/* pthread_atfork handlers and the thread-exit hook; registered by tlsfm_heap_start. */
void tlsfm_heap_start(void);

#endif /* TLSFM_THREAD_H */
