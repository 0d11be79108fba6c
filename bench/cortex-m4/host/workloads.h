/* SPDX-License-Identifier: MIT */
/*
 * workloads.h - the operation sequences the harness runs on every allocator.
 *
 * A workload is a list of operations on numbered slots (a slot holds one live block) and
 * the kind of heap it starts from. Every allocator runs exactly the same list. All
 * sequences are deterministic: fixed seeds, no dependence on the allocator's answers.
 *
 * Groups:
 *   random         ~1000 live blocks of 8..1024 bytes, 20000 free+malloc replacements
 *   mixed          the same with realloc (8..2048 bytes) and memalign (16..512) mixed in
 *   sweep-fresh    malloc(n) + free for every n in 1..4096, on a fresh heap
 *   sweep-frag     the same on a heap fragmented by 2000 blocks, every other one freed
 *   sweep-align    memalign(2^k, n) + free for 2^k in 16..64 KiB, a few sizes
 *   sweep-realloc  one block realloc'd through 1..4096 bytes and back down
 *   construct      small sequences built to reach each branch of TLSF's paths; their
 *                  measured call carries a label (see workloads.c)
 *
 * The constructions depend on TLSF's size classes, so they are built for a given
 * configuration (tlsf_params_t); the newlib images run the ones of the default
 * configuration.
 */
#ifndef WORKLOADS_H
#define WORKLOADS_H

#include <stddef.h>
#include <stdint.h>

typedef enum op_kind {
    OP_MALLOC,   /* slot = malloc(size) */
    OP_FREE,     /* free(slot); slot empty afterwards */
    OP_REALLOC,  /* slot = realloc(slot, size) */
    OP_MEMALIGN, /* slot = memalign(align, size) */
    OP_ADJACENT  /* not a call: check (TLSF only) that block `align` starts where block
                    `slot` ends (its usable size + 4 + `size` bytes on), the premise of a
                    construction */
} op_kind_t;

enum op_flags {
    OPF_EXPECT_NULL = 1, /* TLSF must return NULL (newlib may have more memory) */
    OPF_DRAIN = 2        /* the malloc drains the front cache: counted as "malloc-drain" */
};

typedef struct op {
    uint8_t kind;  /* op_kind_t */
    uint8_t flags; /* enum op_flags */
    uint32_t slot;
    uint32_t size;     /* request in bytes */
    uint32_t align;    /* OP_MEMALIGN: the alignment; OP_ADJACENT: the other slot */
    const char *label; /* a construction's measured call: what it exercises; else NULL */
} op_t;

typedef enum heap_kind {
    HEAP_STANDARD, /* 2 MiB: one pool, or as many pools of the largest size as needed */
    HEAP_SINGLE,   /* one pool of 1 MiB, or of half the largest size if that is less */
    HEAP_LARGEST   /* one pool of the largest size the configuration accepts */
} heap_kind_t;

/* workload_t.cache_limit: leave the heap's front cache at its default budget. */
#define CACHE_LIMIT_DEFAULT 0xFFFFFFFFu

typedef struct workload {
    char name[64];     /* unique: appears in "where the max was hit" */
    const char *group; /* see above */
    heap_kind_t heap;
    /* The front cache's budget for this workload (tlsf_cache_set_limit on the fresh heap,
     * TLSF images with the cache only): CACHE_LIMIT_DEFAULT, or 0 for the constructions of
     * the list paths, whose premises need every free to reach the lists. */
    uint32_t cache_limit;
    uint32_t slots;
    op_t *ops;
    size_t count, capacity;
} workload_t;

/* The TLSF configuration the constructions are built for. */
typedef struct tlsf_params {
    unsigned align_log2;     /* TLSF_ALIGN_LOG2 */
    unsigned sl_index_log2;  /* TLSF_SL_INDEX_LOG2 */
    unsigned max_block_log2; /* TLSF_MAX_BLOCK_LOG2 */
    uint32_t pool_overhead;  /* tlsf_pool_overhead() */
    uint32_t largest_pool;   /* the largest pool tlsf_add_pool accepts, in bytes */
    uint32_t cache_bytes;    /* TLSF_CACHE_BYTES, 0 without the front cache */
    uint32_t overhead;       /* tlsf_alloc_overhead(): 4, or more with a seal word */
    uint32_t min_span;       /* the smallest block's span */
} tlsf_params_t;

/* The groups, in report order. */
extern const char *const workload_groups[];
extern const size_t workload_group_count;

/* The pools of a heap of this kind: returns their number and each one's size in bytes
 * (*pool_bytes). */
uint32_t heap_pools(const tlsf_params_t *params, heap_kind_t kind, uint32_t *pool_bytes);

/* Build every workload for configuration `params`. Returns the array (count in *count),
 * or NULL with a message on stderr if a construction's premise does not hold for this
 * configuration. */
workload_t *workloads_build(const tlsf_params_t *params, size_t *count);
void workloads_free(workload_t *workloads, size_t count);

#endif /* WORKLOADS_H */
