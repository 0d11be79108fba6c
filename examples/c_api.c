/* SPDX-License-Identifier: MIT */
/*
 * The C API in one program: a heap with two pools, statistics, walking a pool, and an
 * error handler that hears a double free.
 *
 * The heap's control structure and its pools are memory the program owns (static arrays
 * here, aligned at run time to tlsf_align_size()); the library never calls malloc. Every
 * step checks what it claims and the program returns 0 only if all checks hold, so CI
 * (ctest example_c_api) notices when the API stops working as shown.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tlsf.h"

#define POOL_BYTES (64u * 1024u)

/* Room for the control structure (tlsf_size(): 14.5 KB on 64-bit, 3 KB on 32-bit in the
 * default configuration, twice that with twice the second-level lists) and two pools,
 * plus slack for aligning each. */
static unsigned char control_memory[32u * 1024u + 64u];
static unsigned char first_pool_memory[POOL_BYTES + 64u];
static unsigned char second_pool_memory[POOL_BYTES + 64u];

static int failures;

static void check(int condition, const char *what) {
    printf("  %-52s %s\n", what, condition ? "ok" : "FAILED");
    if (!condition) ++failures;
}

/* The first address in `memory` that is a multiple of tlsf_align_size(). */
static void *aligned(unsigned char *memory) {
    const uintptr_t align = (uintptr_t)tlsf_align_size();
    const uintptr_t address = (uintptr_t)memory;
    return memory + ((align - address % align) % align);
}

/* What the error handler heard: the last reason and pointer, and how often. */
struct error_log {
    int calls;
    tlsf_error_t reason;
    const void *ptr;
};

static void log_error(tlsf_t heap, tlsf_error_t reason, const void *ptr, void *user) {
    struct error_log *log = (struct error_log *)user;
    (void)heap;
    ++log->calls;
    log->reason = reason;
    log->ptr = ptr;
    printf("  error handler: %s at %p\n", tlsf_error_string(reason), ptr);
}

/* A walk over a pool: counts the blocks in use and the free ones. */
struct block_census {
    size_t used_blocks, used_bytes, free_blocks, free_bytes;
};

static void count_block(void *ptr, size_t size, int used, void *user) {
    struct block_census *census = (struct block_census *)user;
    (void)ptr;
    if (used) {
        ++census->used_blocks;
        census->used_bytes += size;
    } else {
        ++census->free_blocks;
        census->free_bytes += size;
    }
}

static struct block_census walk(pool_t pool) {
    struct block_census census;
    memset(&census, 0, sizeof census);
    tlsf_walk_pool(pool, count_block, &census);
    return census;
}

int main(void) {
    void *blocks[40];
    struct error_log errors;
    struct block_census census;
    tlsf_stats_t stats;
    tlsf_t heap;
    pool_t first, second;
    size_t i;

    printf("tlsf %s: control structure %u bytes, alignment %u\n", TLSF_VERSION,
           (unsigned)tlsf_size(), (unsigned)tlsf_align_size());
    if (tlsf_size() > sizeof control_memory - 64u) {
        printf("control_memory is too small for this configuration\n");
        return 1;
    }

    /* A heap, then its pools: any number, anywhere, added at any time. */
    printf("pools:\n");
    heap = tlsf_create(aligned(control_memory));
    first = tlsf_add_pool(heap, aligned(first_pool_memory), POOL_BYTES);
    second = tlsf_add_pool(heap, aligned(second_pool_memory), POOL_BYTES);
    check(heap != NULL && first != NULL && second != NULL, "heap created, two pools added");

    /* 40 blocks of 3 KiB do not fit in one 64 KiB pool: both pools serve them. */
    for (i = 0; i < 40; ++i) {
        blocks[i] = tlsf_malloc(heap, 3u * 1024u);
        if (blocks[i] != NULL) memset(blocks[i], (int)i, 3u * 1024u);
    }
    check(blocks[39] != NULL, "40 blocks of 3 KiB allocated");

    /* Statistics, kept on every call (TLSF_STATS, the default). */
    printf("statistics:\n");
    tlsf_get_stats(heap, &stats);
    printf("  %u bytes in %u pools, %u used in %u blocks, largest free request %u\n",
           (unsigned)stats.pool_bytes, (unsigned)stats.pool_count, (unsigned)stats.used_bytes,
           (unsigned)stats.live_blocks, (unsigned)stats.largest_allocatable);
#if TLSF_STATS
    check(stats.pool_count == 2 && stats.live_blocks == 40 && stats.alloc_count == 40,
          "2 pools, 40 live blocks, 40 allocations");
    check(stats.used_bytes + stats.free_bytes == stats.pool_bytes, "used + free == pool bytes");
#endif

    /* Walking a pool: every block in address order, with its size and state. */
    printf("walk:\n");
    census = walk(first);
    printf("  first pool:  %u used (%u bytes), %u free (%u bytes)\n", (unsigned)census.used_blocks,
           (unsigned)census.used_bytes, (unsigned)census.free_blocks, (unsigned)census.free_bytes);
    {
        struct block_census other = walk(second);
        printf("  second pool: %u used (%u bytes), %u free (%u bytes)\n",
               (unsigned)other.used_blocks, (unsigned)other.used_bytes, (unsigned)other.free_blocks,
               (unsigned)other.free_bytes);
        check(census.used_blocks > 0 && other.used_blocks > 0 &&
                  census.used_blocks + other.used_blocks == 40,
              "the walks find all 40 blocks, in both pools");
    }

    /* An error handler: told about misuse, the heap left as it was. */
    printf("error handler:\n");
    memset(&errors, 0, sizeof errors);
    tlsf_set_error_handler(heap, log_error, &errors);
    tlsf_free(heap, blocks[0]);
#if TLSF_CHECKS >= 1
    tlsf_free(heap, blocks[0]); /* the second free of the same block */
    check(errors.calls == 1 && errors.reason == TLSF_ERROR_DOUBLE_FREE && errors.ptr == blocks[0],
          "the handler heard the double free");
#else
    printf("  (TLSF_CHECKS=0: double frees are not detected)\n");
#endif
    check(tlsf_check(heap) == 0 && tlsf_check_pool(first) == 0, "heap consistent afterwards");

    /* Free everything; an empty pool can be taken back and the memory reused. */
    printf("cleanup:\n");
    for (i = 1; i < 40; ++i)
        tlsf_free(heap, blocks[i]);
    tlsf_remove_pool(heap, second);
    tlsf_get_stats(heap, &stats);
    check(stats.pool_count == 1 && errors.calls <= 1, "second pool removed");
#if TLSF_STATS
    check(stats.live_blocks == 0, "no block live");
#endif
    census = walk(first);
    check(census.used_blocks == 0 && census.free_blocks == 1, "first pool is one free block");
    tlsf_destroy(heap);

    printf("c_api: %s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
