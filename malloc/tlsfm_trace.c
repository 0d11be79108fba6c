/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_trace.c - the drop-in malloc's recorder (tlsfm_trace.h), compiled only into
 * libtlsf_malloc_trace.so. Everything it uses comes from the system directly: the recorder's
 * memory from mmap, the file through the file sink's write(2), so that recording never calls
 * the malloc it records.
 */
#define _GNU_SOURCE 1

#include "tlsfm_trace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h> /* glibc 2.32 and later: __libc_single_threaded */
#define TLSFM_TRACE_SINGLE_THREADED_FLAG 1
#endif
#endif

#include "tlsf.h"
#include "tlsf_trace.h"
#include "tlsf_trace_file.h"

#define DEFAULT_SLOTS ((size_t)1 << 22)
#define BUFFER_BYTES ((size_t)64 << 10)

/* NULL while not recording: the one test every hook makes first. */
static tlsf_trace_t *_Atomic recorder;
static atomic_flag recorder_lock = ATOMIC_FLAG_INIT;
static tlsf_trace_file_t file = {-1, {0}};

/* The lock of the records. A process with one thread takes none: no other thread can race
 * it, and a thread it starts later sees the flag cleared before its first call (glibc clears
 * __libc_single_threaded before the thread exists). `held` tells unlock what lock did. */
static int lock(void) {
#ifdef TLSFM_TRACE_SINGLE_THREADED_FLAG
    if (__libc_single_threaded) return 0;
#endif
    while (atomic_flag_test_and_set_explicit(&recorder_lock, memory_order_acquire)) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    return 1;
}

static void unlock(int held) {
    if (held) atomic_flag_clear_explicit(&recorder_lock, memory_order_release);
}

static tlsf_trace_t *current(void) {
    return atomic_load_explicit(&recorder, memory_order_acquire);
}

static uint64_t monotonic_ns(void *user) {
    struct timespec now;
    (void)user;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static size_t parse_size(const char *text, size_t fallback) {
    size_t value = 0;
    if (text == NULL || *text == '\0') return fallback;
    for (; *text >= '0' && *text <= '9'; ++text)
        value = value * 10 + (size_t)(*text - '0');
    return *text == '\0' && value > 0 ? value : fallback;
}

static int flag_set(const char *name) {
    const char *value = getenv(name);
    return value != NULL && value[0] == '1';
}

/* The child of a fork holds the parent's blocks: its frees would name blocks its own trace
 * never saw allocated, so it records nothing (an exec starts a recording of its own). The
 * parent's file descriptor is left to the parent. */
static void stop_in_child(void) {
    atomic_store_explicit(&recorder, NULL, memory_order_release);
    atomic_flag_clear_explicit(&recorder_lock, memory_order_release);
}

/* The end of the process: the END record (the recorder's totals), and the file closed. Calls
 * after this (other libraries' destructors) are not recorded. */
__attribute__((destructor)) static void tlsfm_trace_stop(void) {
    tlsf_trace_t *trace = current();
    int held;
    if (trace == NULL) return;
    held = lock();
    atomic_store_explicit(&recorder, NULL, memory_order_release);
    tlsf_trace_finish(trace);
    unlock(held);
    tlsf_trace_file_close(&file);
}

void tlsfm_trace_start(void) {
    const char *path = getenv("TLSF_MALLOC_TRACE");
    tlsf_trace_config_t config = {0};
    size_t slots, bytes;
    void *memory;
    tlsf_trace_t *trace;
    if (path == NULL || path[0] == '\0') return;
    /* By address unless ids are asked for: no table, the least work per call. */
    config.name_by_address = !flag_set("TLSF_MALLOC_TRACE_IDS");
    slots =
        config.name_by_address ? 0 : parse_size(getenv("TLSF_MALLOC_TRACE_SLOTS"), DEFAULT_SLOTS);
    bytes = tlsf_trace_memory_bytes(slots, BUFFER_BYTES);
    if (bytes == 0) return;
    memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                  -1, 0);
    if (memory == MAP_FAILED) return;
    /* Huge pages where the system gives them: the table is read at random, and with 4 KiB
     * pages nearly every call would also miss the TLB. */
    madvise(memory, bytes, MADV_HUGEPAGE);
    if (tlsf_trace_file_open(&file, path) != 0) {
        munmap(memory, bytes);
        return;
    }
    config.sink = tlsf_trace_file_sink;
    config.sink_user = &file;
    config.buffer_bytes = BUFFER_BYTES;
    config.memory_is_zero = 1; /* fresh anonymous pages */
    config.record_addresses = flag_set("TLSF_MALLOC_TRACE_ADDRESSES");
    if (flag_set("TLSF_MALLOC_TRACE_TIME")) {
        config.clock = monotonic_ns;
        config.ticks_per_second = 1000000000u;
    }
    {
        size_t align = tlsf_align_size();
        while (((size_t)1 << config.heap_align_log2) < align)
            config.heap_align_log2++;
    }
    trace = tlsf_trace_create(memory, bytes, &config);
    if (trace == NULL) {
        tlsf_trace_file_close(&file);
        munmap(memory, bytes);
        return;
    }
    pthread_atfork(NULL, NULL, stop_in_child);
    atomic_store_explicit(&recorder, trace, memory_order_release);
}

void tlsfm_trace_malloc(size_t bytes, const void *result) {
    tlsf_trace_t *trace = current();
    int held;
    if (trace == NULL) return;
    held = lock();
    tlsf_trace_malloc(trace, bytes, result);
    unlock(held);
}

void tlsfm_trace_calloc(size_t count, size_t size, const void *result) {
    tlsf_trace_t *trace = current();
    int held;
    if (trace == NULL) return;
    held = lock();
    tlsf_trace_calloc(trace, count, size, result);
    unlock(held);
}

void tlsfm_trace_memalign(size_t align, size_t bytes, const void *result) {
    tlsf_trace_t *trace = current();
    int held;
    if (trace == NULL) return;
    held = lock();
    tlsf_trace_memalign(trace, align, bytes, result);
    unlock(held);
}

void tlsfm_trace_free(const void *ptr) {
    tlsf_trace_t *trace = current();
    int held;
    if (trace == NULL) return;
    held = lock();
    tlsf_trace_free(trace, ptr);
    unlock(held);
}

int tlsfm_trace_realloc_begin(void) {
    return current() != NULL ? lock() : 0;
}

void tlsfm_trace_realloc_end(int held, const void *old, size_t bytes, const void *result) {
    tlsf_trace_t *trace = current();
    /* No recorder here (but one at begin) only in a forked child, which cleared the lock. */
    if (trace != NULL) tlsf_trace_realloc(trace, old, bytes, result);
    unlock(held);
}
