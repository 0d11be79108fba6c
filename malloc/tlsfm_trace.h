/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_trace.h - the drop-in malloc's recording hook (docs/trace.md): with
 * TLSF_MALLOC_TRACE=1 (the library libtlsf_malloc_trace.so) every call of the malloc family
 * is recorded through trace/ into the file the environment names,
 *
 *   TLSF_MALLOC_TRACE=prog.trace LD_PRELOAD=.../libtlsf_malloc_trace.so prog args
 *
 * and without it (libtlsf_malloc.so, the default) the macros below are empty: not one
 * instruction is added to malloc or free.
 *
 * Environment, read once by the library's constructor: TLSF_MALLOC_TRACE=<path> records
 * ("%p" becomes the pid; without it a second process recording at the same time writes
 * <path>.<pid>: trace/sinks/tlsf_trace_file.h), naming blocks by address (tlsf_trace.h: no
 * table, the cheapest recording); TLSF_MALLOC_TRACE_IDS=1 names them by id instead, with the
 * recorder's own totals in the trace, at the price of a table of the live blocks
 * (TLSF_MALLOC_TRACE_SLOTS=<n> slots, default 4194304: 64 MiB of address space for up to
 * about 2 million live blocks; only the pages it touches take memory) and of a table lookup
 * per call; TLSF_MALLOC_TRACE_TIME=1 adds a time stamp to each record (CLOCK_MONOTONIC, ns);
 * TLSF_MALLOC_TRACE_ADDRESSES=1 adds the addresses to a recording by id. Without
 * TLSF_MALLOC_TRACE nothing is recorded and each call pays one load and a branch.
 *
 * Order across threads (tlsf_trace.h, "Threads"): one spinlock serialises the records; a free
 * is recorded before the block is freed, an allocation after it returned, and a realloc holds
 * the lock across the call and its record. A forked child stops recording (its blocks are the
 * parent's); a program it execs records into its own file.
 */
#ifndef TLSFM_TRACE_H
#define TLSFM_TRACE_H

#include <stddef.h>

#if defined(TLSF_MALLOC_TRACE) && TLSF_MALLOC_TRACE

void tlsfm_trace_start(void);
void tlsfm_trace_malloc(size_t bytes, const void *result);
void tlsfm_trace_calloc(size_t count, size_t size, const void *result);
void tlsfm_trace_memalign(size_t align, size_t bytes, const void *result);
void tlsfm_trace_free(const void *ptr);
/* The realloc's lock: held from before the call until its record (begin says whether it
 * took it, for end). */
int tlsfm_trace_realloc_begin(void);
void tlsfm_trace_realloc_end(int held, const void *old, size_t bytes, const void *result);

#define TLSFM_TRACE_START() tlsfm_trace_start()
#define TLSFM_TRACE_MALLOC(bytes, result) tlsfm_trace_malloc(bytes, result)
#define TLSFM_TRACE_CALLOC(count, size, result) tlsfm_trace_calloc(count, size, result)
#define TLSFM_TRACE_MEMALIGN(align, bytes, result) tlsfm_trace_memalign(align, bytes, result)
#define TLSFM_TRACE_FREE(ptr) tlsfm_trace_free(ptr)
#define TLSFM_TRACE_REALLOC_BEGIN() int tlsfm_trace_held = tlsfm_trace_realloc_begin()
#define TLSFM_TRACE_REALLOC_END(old, bytes, result)                                                \
    tlsfm_trace_realloc_end(tlsfm_trace_held, old, bytes, result)

#else

#define TLSFM_TRACE_START() ((void)0)
#define TLSFM_TRACE_MALLOC(bytes, result) ((void)0)
#define TLSFM_TRACE_CALLOC(count, size, result) ((void)0)
#define TLSFM_TRACE_MEMALIGN(align, bytes, result) ((void)0)
#define TLSFM_TRACE_FREE(ptr) ((void)0)
#define TLSFM_TRACE_REALLOC_BEGIN() ((void)0)
#define TLSFM_TRACE_REALLOC_END(old, bytes, result) ((void)0)

#endif

#endif /* TLSFM_TRACE_H */
