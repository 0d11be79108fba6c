/* SPDX-License-Identifier: MIT */
/*
 * image_tlsf.c - the TLSF benchmark image: the core's entry points for the host to call.
 *
 * Built once per optimisation level and configuration (BENCH_OPT, BENCH_CONFIG and the
 * TLSF_* settings come from the command line, see CMakeLists.txt). The host calls the
 * functions in the table directly, with the heap as first argument, so a count covers
 * exactly the core's own code and whatever it calls.
 */
#include "bench_api.h"
#include "tlsf.h"

const bench_api_t bench_api BENCH_API_SECTION = {
    BENCH_PLATFORM_FIELDS,
    .kind = BENCH_KIND_TLSF,
    .allocator = "tlsf",
    .opt = BENCH_OPT,
    .config = BENCH_CONFIG,
    .fn_malloc = (bench_fn_t)tlsf_malloc,
    .fn_free = (bench_fn_t)tlsf_free,
    .fn_realloc = (bench_fn_t)tlsf_realloc,
    .fn_memalign = (bench_fn_t)tlsf_memalign,
    .fn_create = (bench_fn_t)tlsf_create,
    .fn_add_pool = (bench_fn_t)tlsf_add_pool,
    .fn_check = (bench_fn_t)tlsf_check,
    .fn_check_pool = (bench_fn_t)tlsf_check_pool,
    .fn_size = (bench_fn_t)tlsf_size,
    .fn_align_size = (bench_fn_t)tlsf_align_size,
    .fn_block_size = (bench_fn_t)tlsf_block_size,
    .fn_block_size_max = (bench_fn_t)tlsf_block_size_max,
    .fn_pool_overhead = (bench_fn_t)tlsf_pool_overhead,
    .cfg_align_log2 = TLSF_ALIGN_LOG2,
    .cfg_sl_index_log2 = TLSF_SL_INDEX_LOG2,
    .cfg_max_block_log2 = TLSF_MAX_BLOCK_LOG2,
    .cfg_stats = TLSF_STATS,
    .cfg_checks = TLSF_CHECKS,
    .cfg_cache_bytes = TLSF_CACHE ? TLSF_CACHE_BYTES : 0,
    .fn_cache_set_limit = (bench_fn_t)tlsf_cache_set_limit,
    .fn_alloc_overhead = (bench_fn_t)tlsf_alloc_overhead,
    .fn_block_size_min = (bench_fn_t)tlsf_block_size_min,
};

int main(void) {
    return 0; /* the host does the rest */
}
