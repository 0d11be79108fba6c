/* SPDX-License-Identifier: MIT */
/*
 * workloads.c - see workloads.h.
 *
 * The constructions reason about TLSF's size classes (core/src/tlsf_classes.h): a block's
 * span is its size word's value (user bytes + one 4-byte word, rounded up to the
 * alignment, at least 16), and a request is rounded up to the lower bound of its class
 * ("good fit"). A request of `span - 4` bytes therefore gets exactly `span` when `span` is
 * such a lower bound; the helpers below pick spans that are. Consecutive allocations from
 * a fresh pool are adjacent in address order; the OP_ADJACENT steps check that, so a
 * change in the core that breaks a construction's premise is reported instead of silently
 * measuring something else.
 */
#include "workloads.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const workload_groups[] = {"random",      "mixed",         "sweep-fresh", "sweep-frag",
                                       "sweep-align", "sweep-realloc", "construct"};
const size_t workload_group_count = sizeof workload_groups / sizeof workload_groups[0];

/* A block's header overhead and the smallest span, of the configuration being built for
 * (set by workloads_build: a seal word makes both larger). */
static uint32_t WORD = 4, MIN_SPAN = 16;

/* ---- Deterministic random numbers (splitmix64) ---- */

static uint64_t rng_state;

static uint32_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* Uniform in [lo, hi]. */
static uint32_t rnd_range(uint32_t lo, uint32_t hi) {
    return lo + rnd() % (hi - lo + 1u);
}

/* ---- TLSF's size classes, as in core/src/tlsf_classes.h ---- */

static unsigned fls32(uint32_t x) {
    unsigned i = 0;
    while (x >>= 1)
        ++i;
    return i;
}

static unsigned class_shift(const tlsf_params_t *p, uint32_t span) {
    uint32_t small = 1u << (p->sl_index_log2 + p->align_log2);
    return fls32(span | small) - p->sl_index_log2;
}

/* The class index of a free block of this span. */
static unsigned class_of(const tlsf_params_t *p, uint32_t span) {
    unsigned shift = class_shift(p, span);
    return ((shift - p->align_log2) << p->sl_index_log2) + (span >> shift);
}

/* The row (first-level index) of a span. */
static unsigned row_of(const tlsf_params_t *p, uint32_t span) {
    return class_of(p, span) >> p->sl_index_log2;
}

/* The lower bound of the class of `span` (good-fit rounding goes up to the next one). */
static uint32_t class_floor(const tlsf_params_t *p, uint32_t span) {
    unsigned shift = class_shift(p, span);
    return span & ~((1u << shift) - 1u);
}

/* Is `span` a block size an allocation can have: aligned, at least MIN_SPAN, and the
 * lower bound of its class? */
static int is_class_bound(const tlsf_params_t *p, uint32_t span) {
    return span >= MIN_SPAN && (span & ((1u << p->align_log2) - 1u)) == 0 &&
           class_floor(p, span) == span;
}

/* The request that gets a block of exactly `span` bytes. */
static uint32_t req(uint32_t span) {
    return span - WORD;
}

/* ---- Heaps ---- */

uint32_t heap_pools(const tlsf_params_t *p, heap_kind_t kind, uint32_t *pool_bytes) {
    const uint32_t standard = 2u << 20, single = 1u << 20;
    switch (kind) {
    case HEAP_STANDARD:
        if (p->largest_pool >= standard) {
            *pool_bytes = standard;
            return 1;
        }
        *pool_bytes = p->largest_pool;
        return (standard + p->largest_pool - 1) / p->largest_pool;
    case HEAP_SINGLE:
        *pool_bytes = p->largest_pool / 2 < single ? p->largest_pool / 2 : single;
        return 1;
    case HEAP_LARGEST:
        break;
    }
    *pool_bytes = p->largest_pool;
    return 1;
}

/* The span of the one free block a fresh pool of `bytes` holds. */
static uint32_t pool_block(const tlsf_params_t *p, uint32_t bytes) {
    return (bytes - p->pool_overhead) & ~((1u << p->align_log2) - 1u);
}

/* ---- Building ---- */

static int premise_failed;

/* Check a construction's premise about the size classes; report and remember failures. */
static void premise(int holds, const char *format, ...) {
    va_list args;
    if (holds) return;
    va_start(args, format);
    fprintf(stderr, "workloads: construction premise does not hold: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    premise_failed = 1;
}

typedef struct list {
    workload_t *items;
    size_t count, capacity;
} list_t;

static void *xrealloc(void *ptr, size_t size) {
    void *fresh = realloc(ptr, size);
    if (fresh == NULL) {
        fprintf(stderr, "workloads: out of memory\n");
        exit(2);
    }
    return fresh;
}

static workload_t *begin(list_t *list, const char *group, heap_kind_t heap, uint32_t slots,
                         const char *name) {
    workload_t *w;
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? 2 * list->capacity : 64;
        list->items = xrealloc(list->items, list->capacity * sizeof *list->items);
    }
    w = &list->items[list->count++];
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "%s", name);
    w->group = group;
    w->heap = heap;
    w->slots = slots;
    /* The constructions aim at the list paths; those of the cache set their own budget. */
    w->cache_limit = strcmp(group, "construct") == 0 ? 0 : CACHE_LIMIT_DEFAULT;
    return w;
}

static op_t *add(workload_t *w, op_kind_t kind, uint32_t slot, uint32_t size, uint32_t align,
                 const char *label) {
    op_t *op;
    if (w->count == w->capacity) {
        w->capacity = w->capacity ? 2 * w->capacity : 64;
        w->ops = xrealloc(w->ops, w->capacity * sizeof *w->ops);
    }
    op = &w->ops[w->count++];
    memset(op, 0, sizeof *op);
    op->kind = (uint8_t)kind;
    op->slot = slot;
    op->size = size;
    op->align = align;
    op->label = label;
    return op;
}

static void do_malloc(workload_t *w, uint32_t slot, uint32_t size, const char *label) {
    add(w, OP_MALLOC, slot, size, 0, label);
}
static void do_free(workload_t *w, uint32_t slot, const char *label) {
    add(w, OP_FREE, slot, 0, 0, label);
}
static void do_realloc(workload_t *w, uint32_t slot, uint32_t size, const char *label) {
    add(w, OP_REALLOC, slot, size, 0, label);
}
static void do_memalign(workload_t *w, uint32_t slot, uint32_t align, uint32_t size,
                        const char *label) {
    add(w, OP_MEMALIGN, slot, size, align, label);
}
/* Block `second` starts where block `first` ends. */
static void adjacent(workload_t *w, uint32_t first, uint32_t second) {
    add(w, OP_ADJACENT, first, 0, second, NULL);
}
/* The same when `first` came from memalign (its last word records the alignment). */
static void adjacent_aligned(workload_t *w, uint32_t first, uint32_t second) {
    add(w, OP_ADJACENT, first, 4 /* the alignment record, one word */, second, NULL);
}
static void expect_null(workload_t *w) {
    w->ops[w->count - 1].flags |= OPF_EXPECT_NULL;
}

/* ---- Workloads on random sizes ---- */

static void build_random(list_t *list) {
    enum { SLOTS = 1000, REPLACEMENTS = 20000 };
    workload_t *w = begin(list, "random", HEAP_STANDARD, SLOTS, "random");
    uint32_t s, i;
    rng_state = 0x5EED0001u;
    for (s = 0; s < SLOTS; ++s)
        do_malloc(w, s, rnd_range(8, 1024), NULL);
    for (i = 0; i < REPLACEMENTS; ++i) {
        s = rnd() % SLOTS;
        do_free(w, s, NULL);
        do_malloc(w, s, rnd_range(8, 1024), NULL);
    }
    for (s = 0; s < SLOTS; ++s)
        do_free(w, s, NULL);
}

static void build_mixed(list_t *list) {
    enum { SLOTS = 1000, OPS = 30000 };
    workload_t *w = begin(list, "mixed", HEAP_STANDARD, SLOTS, "mixed");
    static uint8_t live[SLOTS];
    uint32_t s, i;
    rng_state = 0x5EED0002u;
    memset(live, 0, sizeof live);
    for (i = 0; i < OPS; ++i) {
        uint32_t r;
        s = rnd() % SLOTS;
        r = rnd() % 100;
        if (!live[s]) {
            if (r < 80)
                do_malloc(w, s, rnd_range(8, 1024), NULL);
            else
                do_memalign(w, s, 16u << (rnd() % 6), rnd_range(8, 1024), NULL);
            live[s] = 1;
        } else if (r < 65) {
            do_free(w, s, NULL);
            live[s] = 0;
        } else {
            do_realloc(w, s, rnd_range(8, 2048), NULL);
        }
    }
    for (s = 0; s < SLOTS; ++s)
        if (live[s]) do_free(w, s, NULL);
}

/* ---- Sweeps ---- */

static void build_sweeps(list_t *list) {
    workload_t *w;
    uint32_t n, s, k, pass;
    static const uint32_t align_sizes[] = {1, 24, 100, 1000, 4000};

    w = begin(list, "sweep-fresh", HEAP_STANDARD, 1, "sweep-fresh");
    for (n = 1; n <= 4096; ++n) {
        do_malloc(w, 0, n, NULL);
        do_free(w, 0, NULL);
    }

    /* 2000 blocks of 8..512 bytes, every other one freed: free blocks of many classes,
     * each between two blocks in use. */
    w = begin(list, "sweep-frag", HEAP_STANDARD, 2001, "sweep-frag");
    rng_state = 0x5EED0003u;
    for (s = 1; s <= 2000; ++s)
        do_malloc(w, s, rnd_range(8, 512), NULL);
    for (s = 1; s <= 2000; s += 2)
        do_free(w, s, NULL);
    for (n = 1; n <= 4096; ++n) {
        do_malloc(w, 0, n, NULL);
        do_free(w, 0, NULL);
    }

    /* memalign over alignments 16 .. 64 KiB; the second pass shifts the free block's
     * start by keeping a 40-byte block in front of it. */
    w = begin(list, "sweep-align", HEAP_STANDARD, 2, "sweep-align");
    for (pass = 0; pass < 2; ++pass) {
        if (pass == 1) do_malloc(w, 1, 40, NULL);
        for (k = 4; k <= 16; ++k)
            for (s = 0; s < sizeof align_sizes / sizeof align_sizes[0]; ++s) {
                do_memalign(w, 0, 1u << k, align_sizes[s], NULL);
                do_free(w, 0, NULL);
            }
    }

    /* One block grown one byte at a time to 4096 and shrunk back. */
    w = begin(list, "sweep-realloc", HEAP_STANDARD, 1, "sweep-realloc");
    do_malloc(w, 0, 1, NULL);
    for (n = 2; n <= 4096; ++n)
        do_realloc(w, 0, n, NULL);
    for (n = 4095; n >= 1; --n)
        do_realloc(w, 0, n, NULL);
    do_free(w, 0, NULL);
}

/* ---- Constructions ---- */

/* The lower bound of the last class of the row that `span` is in. */
static uint32_t row_last_class(const tlsf_params_t *p, uint32_t span) {
    unsigned shift = class_shift(p, span);
    uint32_t row_start = span & ~((1u << (shift + p->sl_index_log2)) - 1u);
    return row_start + (((1u << p->sl_index_log2) - 1u) << shift);
}

static void build_constructions(list_t *list, const tlsf_params_t *p) {
    workload_t *w;
    /* Spans used throughout, in distinct rows: P (row 0), X, N, and the pool's remainder
     * (much higher). */
    const uint32_t P = 32, X = 512, N = 2048, G = 32;
    uint32_t single_pool, largest_pool, single_class, top_class, s1, s2 = 0, leftover_block;
    heap_pools(p, HEAP_SINGLE, &single_pool);
    heap_pools(p, HEAP_LARGEST, &largest_pool);
    single_class = class_floor(p, pool_block(p, single_pool));
    top_class = class_floor(p, pool_block(p, largest_pool));

    premise(row_of(p, P) == 0 && row_of(p, X) > row_of(p, P) && row_of(p, N) > row_of(p, X) &&
                row_of(p, single_pool / 2) > row_of(p, N + X + P),
            "spans %u, %u, %u and the pool's remainder must be in increasing rows", P, X, N);
    premise(is_class_bound(p, P) && is_class_bound(p, X) && is_class_bound(p, N),
            "spans %u, %u, %u must be class lower bounds", P, X, N);

    /* -- malloc -- */
    w = begin(list, "construct", HEAP_SINGLE, 1, "c-malloc-first");
    do_malloc(w, 0, req(P),
              "malloc: first call on an untouched pool (row search, sole block, split)");

    w = begin(list, "construct", HEAP_LARGEST, 1, "c-malloc-first-largest");
    do_malloc(w, 0, req(P), "malloc: first call on an untouched pool of the largest size");
    do_free(w, 0, "free: merge with next = the rest of a largest pool");

    w = begin(list, "construct", HEAP_LARGEST, 2, "c-malloc-largest");
    do_malloc(w, 1, req(top_class) + 1,
              "malloc: 1 byte above the largest request (rejected up front)");
    expect_null(w);
    do_malloc(w, 0, req(top_class), "malloc: the largest request a largest pool serves");
    do_free(w, 0, "free: a block of the largest class");

    /* One byte more than the pool's block serves: its class is above every free block,
     * so both bit scans come back empty. */
    w = begin(list, "construct", HEAP_SINGLE, 1, "c-malloc-fail");
    do_malloc(w, 0, req(single_class) + 1,
              "malloc: fails after the row search (no block large enough)");
    expect_null(w);

    w = begin(list, "construct", HEAP_SINGLE, 1, "c-malloc-huge");
    do_malloc(w, 0, 0xFFFFFFFFu, "malloc: SIZE_MAX (rejected up front)");
    expect_null(w);
    w = begin(list, "construct", HEAP_SINGLE, 1, "c-malloc-zero");
    do_malloc(w, 0, 0, "malloc: 0 bytes (a minimum block)");

    /* Two free blocks of span N in one class, well below the remainder's row: the search
     * leaves row 0 for N's row, takes one, the class stays non-empty. */
    w = begin(list, "construct", HEAP_SINGLE, 6, "c-malloc-row-shared");
    do_malloc(w, 0, req(P), NULL);
    do_malloc(w, 1, req(N), NULL);
    do_malloc(w, 2, req(G), NULL);
    do_malloc(w, 3, req(N), NULL);
    do_malloc(w, 4, req(G), NULL);
    adjacent(w, 1, 2);
    adjacent(w, 2, 3);
    do_free(w, 1, NULL);
    do_free(w, 3, NULL);
    do_malloc(w, 5, req(P), "malloc: class empty, next row's block shares its list, split");

    w = begin(list, "construct", HEAP_SINGLE, 4, "c-malloc-row-sole");
    do_malloc(w, 0, req(P), NULL);
    do_malloc(w, 1, req(N), NULL);
    do_malloc(w, 2, req(G), NULL);
    adjacent(w, 1, 2);
    do_free(w, 1, NULL);
    do_malloc(w, 3, req(P),
              "malloc: class empty, next row's block is sole (bitmaps cleared), split");

    /* The request's class is empty but a higher class of the same row is not: found by
     * the first bit scan. */
    w = begin(list, "construct", HEAP_SINGLE, 4, "c-malloc-same-row");
    premise(row_last_class(p, X) > X + MIN_SPAN && is_class_bound(p, row_last_class(p, X)),
            "row of %u must have a higher class", X);
    do_malloc(w, 0, req(P), NULL);
    do_malloc(w, 1, req(row_last_class(p, X)), NULL);
    do_malloc(w, 2, req(G), NULL);
    adjacent(w, 1, 2);
    do_free(w, 1, NULL);
    do_malloc(w, 3, req(X), "malloc: class empty, higher class in the same row, split");

    w = begin(list, "construct", HEAP_SINGLE, 4, "c-malloc-exact");
    do_malloc(w, 0, req(P), NULL);
    do_malloc(w, 1, req(X), NULL);
    do_malloc(w, 2, req(G), NULL);
    adjacent(w, 1, 2);
    do_free(w, 1, NULL);
    do_malloc(w, 3, req(X), "malloc: exact fit, sole in its class (bitmaps cleared), no split");

    /* A free block of span X + 8: same class as X, and the 8 bytes left over are below
     * MIN_SPAN, so the user gets the whole block. Made by freeing two adjacent blocks
     * whose spans (both class bounds) add up to X + 8. */
    leftover_block = X + (1u << p->align_log2);
    for (s1 = MIN_SPAN; s1 < leftover_block - MIN_SPAN; s1 += 1u << p->align_log2) {
        s2 = leftover_block - s1;
        if (is_class_bound(p, s1) && is_class_bound(p, s2) && row_of(p, s1) != row_of(p, X) &&
            row_of(p, s2) != row_of(p, X))
            break;
    }
    premise(s1 < leftover_block - MIN_SPAN && class_of(p, leftover_block) == class_of(p, X),
            "no pair of spans adds up to %u", leftover_block);
    w = begin(list, "construct", HEAP_SINGLE, 5, "c-malloc-leftover");
    do_malloc(w, 0, req(P), NULL);
    do_malloc(w, 1, req(s1), NULL);
    do_malloc(w, 2, req(s2), NULL);
    do_malloc(w, 3, req(G), NULL);
    adjacent(w, 1, 2);
    adjacent(w, 2, 3);
    do_free(w, 1, NULL);
    do_free(w, 2, NULL);
    do_malloc(w, 4, req(X), "malloc: leftover below the minimum block stays with it (no split)");

    /* -- free: [P][X][N][G][remainder], X freed last -- */
    {
        static const struct {
            const char *name;
            int free_prev, free_next;
            const char *label;
        } cases[] = {
            {"c-free-none", 0, 0, "free: no free neighbour (insert into an empty list)"},
            {"c-free-next", 0, 1, "free: merge with next, sole in its list (bitmaps cleared)"},
            {"c-free-prev", 1, 0, "free: merge with previous, sole in its list (bitmaps cleared)"},
            {"c-free-both", 1, 1, "free: merge with both, each sole in its list (bitmaps cleared)"},
        };
        size_t i;
        for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
            w = begin(list, "construct", HEAP_SINGLE, 4, cases[i].name);
            do_malloc(w, 0, req(P), NULL);
            /* 128: in the front cache's classes, so that a cache image pays its tests on
             * the longest free path (bench/cortex-m4/wcet found the gap). */
            do_malloc(w, 1, req(128), NULL);
            do_malloc(w, 2, req(N), NULL);
            do_malloc(w, 3, req(G), NULL);
            adjacent(w, 0, 1);
            adjacent(w, 1, 2);
            adjacent(w, 2, 3);
            if (cases[i].free_prev) do_free(w, 0, NULL);
            if (cases[i].free_next) do_free(w, 2, NULL);
            do_free(w, 1, cases[i].label);
        }
    }
    /* The same with a second block in each neighbour's class: no bitmap changes. */
    w = begin(list, "construct", HEAP_SINGLE, 8, "c-free-both-shared");
    do_malloc(w, 0, req(P), NULL);
    do_malloc(w, 1, req(X), NULL);
    do_malloc(w, 2, req(N), NULL);
    do_malloc(w, 3, req(G), NULL);
    do_malloc(w, 4, req(P), NULL);
    do_malloc(w, 5, req(G), NULL);
    do_malloc(w, 6, req(N), NULL);
    do_malloc(w, 7, req(G), NULL);
    adjacent(w, 0, 1);
    adjacent(w, 1, 2);
    adjacent(w, 2, 3);
    do_free(w, 4, NULL);
    do_free(w, 6, NULL);
    do_free(w, 0, NULL);
    do_free(w, 2, NULL);
    do_free(w, 1, "free: merge with both, their lists keep other blocks");

    w = begin(list, "construct", HEAP_SINGLE, 2, "c-free-into-rest");
    do_malloc(w, 0, req(P), NULL);
    do_malloc(w, 1, req(X), NULL);
    adjacent(w, 0, 1);
    do_free(w, 1, "free: merge with next = the pool's remainder (sole in its row)");

    /* -- realloc -- */
    w = begin(list, "construct", HEAP_SINGLE, 1, "c-realloc-shrink-merge");
    do_malloc(w, 0, req(N), NULL);
    do_realloc(w, 0, req(X), "realloc: shrink in place, tail merges with the free block after");

    w = begin(list, "construct", HEAP_SINGLE, 2, "c-realloc-shrink");
    do_malloc(w, 0, req(N), NULL);
    do_malloc(w, 1, req(G), NULL);
    adjacent(w, 0, 1);
    do_realloc(w, 0, req(X), "realloc: shrink in place, tail becomes a free block");

    w = begin(list, "construct", HEAP_SINGLE, 2, "c-realloc-same");
    do_malloc(w, 0, req(X), NULL);
    do_malloc(w, 1, req(G), NULL);
    do_realloc(w, 0, req(X) - 8, "realloc: same class, nothing to do");

    premise(is_class_bound(p, X + N), "span %u must be a class lower bound", X + N);
    w = begin(list, "construct", HEAP_SINGLE, 3, "c-realloc-grow-split");
    do_malloc(w, 0, req(X), NULL);
    do_malloc(w, 1, req(N), NULL);
    do_malloc(w, 2, req(G), NULL);
    adjacent(w, 0, 1);
    adjacent(w, 1, 2);
    do_free(w, 1, NULL);
    do_realloc(w, 0, req(2 * X), "realloc: grow in place into the free block after (sole), split");

    w = begin(list, "construct", HEAP_SINGLE, 3, "c-realloc-grow-all");
    do_malloc(w, 0, req(X), NULL);
    do_malloc(w, 1, req(N), NULL);
    do_malloc(w, 2, req(G), NULL);
    adjacent(w, 0, 1);
    adjacent(w, 1, 2);
    do_free(w, 1, NULL);
    do_realloc(w, 0, req(X + N), "realloc: grow in place taking the whole free block after");

    /* [P free][X][N free, too small][G][remainder]: X must move; the new block comes
     * from the remainder (sole in its row, split); freeing X merges both neighbours, each
     * sole in its list. */
    w = begin(list, "construct", HEAP_SINGLE, 4, "c-realloc-move");
    do_malloc(w, 0, req(P), NULL);
    do_malloc(w, 1, req(X), NULL);
    do_malloc(w, 2, req(N), NULL);
    do_malloc(w, 3, req(G), NULL);
    adjacent(w, 0, 1);
    adjacent(w, 1, 2);
    adjacent(w, 2, 3);
    do_free(w, 0, NULL);
    do_free(w, 2, NULL);
    do_realloc(w, 1, req(4 * N), "realloc: move (malloc + copy + free merging both, all sole)");

    /* [gap, free][A, memalign'd][N free, too small][N][448][remainder]: A moves; the new
     * block takes the memalign path from the remainder (sole in its row), whose user
     * pointer the 448-byte block puts off the alignment, so that a leading gap is split
     * off as well as the tail; freeing A merges the gap before it and N after it, each
     * sole in its list, and empties a row (its bit cleared: the static bound's path,
     * bench/cortex-m4/wcet). Blocks after A are larger than the gap, so they do not go
     * there. */
    w = begin(list, "construct", HEAP_SINGLE, 4, "c-realloc-move-aligned");
    do_memalign(w, 0, 256, 500, NULL);
    do_malloc(w, 1, req(N), NULL); /* larger than the gap: comes from after A */
    do_malloc(w, 2, req(N), NULL);
    do_malloc(w, 3, req(448), NULL);
    premise(is_class_bound(p, 448), "span 448 must be a class bound");
    adjacent_aligned(w, 0, 1);
    adjacent(w, 1, 2);
    adjacent(w, 2, 3);
    do_free(w, 1, NULL);
    do_realloc(w, 0, 3000,
               "realloc: move a memalign'd block (memalign with gap + copy + free merging both)");

    w = begin(list, "construct", HEAP_SINGLE, 2, "c-realloc-fail");
    do_malloc(w, 0, req(X), NULL);
    do_malloc(w, 1, req(G), NULL);
    do_realloc(w, 0, 4u << 20, "realloc: cannot grow, no block large enough (NULL)");
    expect_null(w);

    w = begin(list, "construct", HEAP_SINGLE, 1, "c-realloc-null");
    do_realloc(w, 0, 100, "realloc: NULL pointer (malloc)");
    w = begin(list, "construct", HEAP_SINGLE, 1, "c-realloc-zero");
    do_malloc(w, 0, 100, NULL);
    do_realloc(w, 0, 0, "realloc: 0 bytes (free)");

    /* -- memalign: pools are 4 KiB aligned; the first user pointer is pool + 8 -- */
    w = begin(list, "construct", HEAP_SINGLE, 1, "c-memalign-gap");
    do_memalign(w, 0, 256, 100, "memalign: leading gap becomes a free block, tail split");

    w = begin(list, "construct", HEAP_SINGLE, 2, "c-memalign-small-gap");
    do_malloc(w, 0, req(48), NULL); /* the next user pointer is 56 mod 64: gap 8 < MIN_SPAN */
    do_memalign(w, 1, 64, 100, "memalign: gap below the minimum block, one alignment more");

    w = begin(list, "construct", HEAP_SINGLE, 2, "c-memalign-no-gap");
    do_malloc(w, 0, req(56), NULL); /* the next user pointer is 64-aligned */
    do_memalign(w, 1, 64, 100, "memalign: already aligned, no gap, tail split");

    w = begin(list, "construct", HEAP_SINGLE, 1, "c-memalign-4k");
    do_memalign(w, 0, 4096, 1000, "memalign: 4096-byte alignment");

    w = begin(list, "construct", HEAP_SINGLE, 1, "c-memalign-8");
    do_memalign(w, 0, 8, 100, "memalign: alignment 8 (as malloc)");

    w = begin(list, "construct", HEAP_SINGLE, 1, "c-memalign-bad");
    do_memalign(w, 0, 24, 100, "memalign: alignment not a power of two (NULL)");
    expect_null(w);
}

/*
 * The front cache (TLSF_CACHE images only): a push, a hit, and the longest call there is,
 * a malloc that fails after draining a full cache. The drain gives back budget / (2 *
 * smallest span) blocks (each is charged twice its span, at least twice the smallest); each
 * is placed between two free blocks of the lists, so that every one of them merges with
 * both neighbours: C0 F0 C1 F1 ... C(n-1) F(n-1) guard, the C blocks freed first (cached:
 * they fill the budget exactly), then the F blocks (the budget is full, so they go to the
 * lists, and their neighbours are cached, so they do not merge).
 */
static void build_cache_constructions(list_t *list, const tlsf_params_t *p) {
    const uint32_t n = p->cache_bytes / (2 * MIN_SPAN); /* a block's charge: span + MIN_SPAN */
    uint32_t single_pool, i;
    workload_t *w;
    heap_pools(p, HEAP_SINGLE, &single_pool);

    w = begin(list, "construct", HEAP_SINGLE, 2, "c-cache-hit");
    w->cache_limit = CACHE_LIMIT_DEFAULT;
    do_malloc(w, 0, req(MIN_SPAN), NULL);
    do_malloc(w, 1, req(MIN_SPAN), NULL);
    do_free(w, 0, "free: into the front cache");
    do_malloc(w, 0, req(MIN_SPAN), "malloc: front cache hit");

    w = begin(list, "construct", HEAP_SINGLE, 2 * n + 2, "c-cache-drain");
    w->cache_limit = CACHE_LIMIT_DEFAULT;
    for (i = 0; i <= 2 * n; ++i)
        do_malloc(w, i, req(MIN_SPAN), NULL);
    for (i = 0; i < 2 * n; ++i)
        adjacent(w, i, i + 1);
    for (i = 0; i < 2 * n; i += 2)
        do_free(w, i, NULL);
    for (i = 1; i < 2 * n; i += 2)
        do_free(w, i, i == 1 ? "free: the front cache is full (lists)" : NULL);
    do_malloc(w, 2 * n + 1, req(class_floor(p, pool_block(p, single_pool))) + 1,
              "malloc: fails after draining a full front cache (every block merges both ways)");
    expect_null(w);
    w->ops[w->count - 1].flags |= OPF_DRAIN;
}

workload_t *workloads_build(const tlsf_params_t *params, size_t *count) {
    list_t list = {NULL, 0, 0};
    premise_failed = 0;
    WORD = params->overhead;
    MIN_SPAN = params->min_span;
    build_random(&list);
    build_mixed(&list);
    build_sweeps(&list);
    build_constructions(&list, params);
    if (params->cache_bytes != 0) build_cache_constructions(&list, params);
    if (premise_failed) {
        workloads_free(list.items, list.count);
        return NULL;
    }
    *count = list.count;
    return list.items;
}

void workloads_free(workload_t *workloads, size_t count) {
    size_t i;
    for (i = 0; i < count; ++i)
        free(workloads[i].ops);
    free(workloads);
}
