/* SPDX-License-Identifier: MIT */
/*
 * image_size.c - code-size probes. Never run: the host reads their symbol tables.
 *
 * The table references only the functions being measured; --gc-sections then drops the
 * rest of the core, so the image holds exactly those functions plus the static helpers
 * and library routines (memset, ...) they pull in, plus the startup code. A probe with
 * BENCH_SIZE_PART == BENCH_SIZE_BASELINE references nothing: its functions are the
 * startup, which the host subtracts from the others.
 */
#include "bench_api.h"
#if BENCH_SIZE_PART != BENCH_SIZE_BASELINE
#include "tlsf.h"
#endif

const bench_api_t bench_api BENCH_API_SECTION = {
    BENCH_PLATFORM_FIELDS,
    .kind = BENCH_KIND_SIZE,
    .part = BENCH_SIZE_PART,
    .allocator = "tlsf",
    .opt = BENCH_OPT,
    .config = BENCH_CONFIG,
#if BENCH_SIZE_PART != BENCH_SIZE_BASELINE
    /* init + malloc + free */
    .fn_create = (bench_fn_t)tlsf_create,
    .fn_add_pool = (bench_fn_t)tlsf_add_pool,
    .fn_malloc = (bench_fn_t)tlsf_malloc,
    .fn_free = (bench_fn_t)tlsf_free,
#endif
#if BENCH_SIZE_PART == BENCH_SIZE_CORE
    .fn_realloc = (bench_fn_t)tlsf_realloc,
    .fn_memalign = (bench_fn_t)tlsf_memalign,
#endif
};

#if BENCH_SIZE_PART == BENCH_SIZE_CORE
/* The rest of the public API, so that the whole core is linked. */
typedef struct bench_rest {
    bench_fn_t fn[22];
} bench_rest_t;
__attribute__((used, section(".bench_api")))
const bench_rest_t bench_rest = {{(bench_fn_t)tlsf_create_with_pool,
                                  (bench_fn_t)tlsf_destroy,
                                  (bench_fn_t)tlsf_get_pool,
                                  (bench_fn_t)tlsf_remove_pool,
                                  (bench_fn_t)tlsf_calloc,
                                  (bench_fn_t)tlsf_memalign_offset,
                                  (bench_fn_t)tlsf_aligned_alloc,
                                  (bench_fn_t)tlsf_block_size,
                                  (bench_fn_t)tlsf_size,
                                  (bench_fn_t)tlsf_align_size,
                                  (bench_fn_t)tlsf_block_size_min,
                                  (bench_fn_t)tlsf_block_size_max,
                                  (bench_fn_t)tlsf_pool_overhead,
                                  (bench_fn_t)tlsf_alloc_overhead,
                                  (bench_fn_t)tlsf_walk_pool,
                                  (bench_fn_t)tlsf_check,
                                  (bench_fn_t)tlsf_check_pool,
                                  (bench_fn_t)tlsf_get_stats,
                                  (bench_fn_t)tlsf_reset_peak,
                                  (bench_fn_t)tlsf_largest_allocatable,
                                  (bench_fn_t)tlsf_set_error_handler,
                                  (bench_fn_t)tlsf_error_string}};
#endif

int main(void) {
    return 0;
}
