/* SPDX-License-Identifier: MIT */
/*
 * tlsf_backend.h - one TLSF configuration as tlsf-replay sees it: a table of the core's entry
 * points and settings, exported by a shared library built from the core with that
 * configuration's compile-time settings (tools/replay/CMakeLists.txt builds one per
 * TLSF_REPLAY_VARIANTS entry). The replay dlopen()s each with RTLD_LOCAL, so several copies
 * of the core live in one process without their symbols meeting.
 *
 * The function pointers are the core's functions themselves (no wrapper), so an instruction
 * count taken around a call through them is the core's own.
 */
#ifndef TLSF_REPLAY_BACKEND_H
#define TLSF_REPLAY_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TLSF_REPLAY_BACKEND_VERSION 1
#define TLSF_REPLAY_BACKEND_SYMBOL "tlsf_replay_backend"

struct tlsf_heap; /* tlsf_t of the variant (the ABI tag is the library's business) */

typedef struct tlsf_replay_stats {
    size_t used_bytes, free_bytes, largest_allocatable, peak_used_bytes;
} tlsf_replay_stats_t;

typedef void (*tlsf_replay_walker_t)(void *ptr, size_t size, int used, void *user);

typedef struct tlsf_replay_backend {
    unsigned version; /* TLSF_REPLAY_BACKEND_VERSION */
    /* The compile-time settings (tlsf_config.h). */
    unsigned sl_index_log2, checks, stats, cache, slabs, align_log2;
    size_t cache_bytes;    /* TLSF_CACHE_BYTES, 0 without the cache */
    size_t control_bytes;  /* tlsf_size() */
    size_t heap_min_bytes; /* the least tlsf_create_with_pool accepts */
    size_t block_max;      /* tlsf_block_size_max() */
    size_t align;          /* tlsf_align_size() */

    struct tlsf_heap *(*create_with_pool)(void *memory, size_t bytes);
    void *(*malloc)(struct tlsf_heap *heap, size_t bytes);
    void *(*calloc)(struct tlsf_heap *heap, size_t count, size_t bytes);
    void *(*memalign)(struct tlsf_heap *heap, size_t align, size_t bytes);
    void *(*realloc)(struct tlsf_heap *heap, void *ptr, size_t bytes);
    void (*free)(struct tlsf_heap *heap, void *ptr);
    size_t (*cache_set_limit)(struct tlsf_heap *heap, size_t bytes);
    int (*slabs_enable)(struct tlsf_heap *heap, size_t slab_bytes);
    void (*get_stats)(struct tlsf_heap *heap, tlsf_replay_stats_t *stats);
    /* Every block of the heap's pool in address order (tlsf_walk_pool). */
    void (*walk)(struct tlsf_heap *heap, tlsf_replay_walker_t walker, void *user);
    int (*check)(struct tlsf_heap *heap); /* tlsf_check + tlsf_check_pool: 0 when sound */
} tlsf_replay_backend_t;

#ifdef __cplusplus
}
#endif

#endif /* TLSF_REPLAY_BACKEND_H */
