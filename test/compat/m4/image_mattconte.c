/* SPDX-License-Identifier: MIT */
/*
 * image_mattconte.c - the layer as the Cortex-M4 harness runs it (bench/cortex-m4): the
 * table of bench_api.h filled with mattconte's functions as the layer defines them, so a
 * count covers what a mattconte program calls. The image is built with the core's default
 * Cortex-M4 settings (the layer's choice there: no cache, level-1 checks), whose image
 * tlsf-O2-default it is compared with (compare_m4.py). The harness's label: "mattconte".
 */
#include "bench_api.h"
#include "tlsf.h"
#include "tlsf_abi.h"

#ifndef TLSF_MATTCONTE_H
#error "the image is built against the layer's tlsf.h"
#endif

const bench_api_t bench_api BENCH_API_SECTION = {
    BENCH_PLATFORM_FIELDS,
    .kind = BENCH_KIND_TLSF,
    .allocator = "tlsf",
    .opt = BENCH_OPT,
    .config = "mattconte",
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
    .cfg_cache_bytes = 0,
    .fn_alloc_overhead = (bench_fn_t)tlsf_alloc_overhead,
    .fn_block_size_min = (bench_fn_t)tlsf_block_size_min,
};

int main(void) {
    return 0; /* the host does the rest */
}
