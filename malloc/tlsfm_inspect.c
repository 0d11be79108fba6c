/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_inspect.c - the drop-in malloc's statistics (tlsfm_get_info) and heap check
 * (tlsfm_check, the exit report), over the thread heaps of tlsfm_thread.c.
 *
 * A heap's blocks can be walked only by its owner (no lock on its paths), so the check
 * covers the caller's heap, the orphaned heaps and the large blocks; heaps of other live
 * threads are counted (unchecked_heaps), not walked. Everything here takes the lock, under
 * which the chunk lists and the owners' counters (chunks, live blocks, empty chunks) of
 * every heap are readable, so those figures cover all heaps.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "tlsf.h"
#include "tlsfm_heap.h"
#include "tlsfm_lock.h"
#include "tlsfm_os.h"
#include "tlsfm_thread.h"

void tlsfm_heap_get_info(struct tlsfm_info *info) {
    tlsfm_os_stats_t os;
    thread_heap_t *heap;
    chunk_t *chunk;
    if (info == NULL) return;
    memset(info, 0, sizeof *info);
    tlsfm_lock();
    tlsfm_os_get_stats_locked(&os);
    for (heap = tlsfm_all_heaps; heap != NULL; heap = heap->next_heap) {
        info->heaps++;
        info->orphan_heaps += heap_state(heap) == HEAP_ORPHAN;
        info->pools += counter(&heap->chunk_count);
        info->empty_chunks += counter(&heap->empty_chunks);
        for (chunk = heap->chunks; chunk != NULL; chunk = chunk->next) /* lock: list stays */
            info->live_blocks += counter(&chunk->live);
        if (tlsfm_heap_is_inspectable_locked(heap)) {
            tlsf_stats_t stats;
            tlsf_get_stats(heap->tlsf, &stats);
            info->used_bytes += stats.used_bytes;
        } else {
            info->unchecked_heaps++;
        }
    }
    info->pools += os.large_blocks;
    info->dedicated_pools = os.large_blocks;
    info->live_blocks += os.large_blocks;
    info->mapped_bytes = os.mapped_bytes;
    info->peak_mapped_bytes = os.peak_mapped_bytes;
    info->maps = os.maps;
    info->unmaps = os.unmaps;
    info->cached_bytes = os.cached_bytes;
    info->cache_hits = os.cache_hits;
    tlsfm_unlock();
    info->cache_budget = tlsfm_heap_cache_budget();
    info->chunk_bytes = tlsfm_chunk_bytes();
    info->max_request = tlsfm_os_max_request();
}

static void count_used(void *ptr, size_t size, int used, void *user) {
    (void)ptr;
    (void)size;
    if (used) ++*(size_t *)user;
}

static int check_heap_locked(thread_heap_t *heap) {
    int errors = tlsf_check(heap->tlsf) != 0;
    size_t live = 0, empty = 0, count = 0;
    chunk_t *chunk;
    for (chunk = heap->chunks; chunk != NULL; chunk = chunk->next) {
        size_t used = 0, chunk_live = counter(&chunk->live);
        errors += tlsf_check_pool(chunk->pool) != 0;
        tlsf_walk_pool(chunk->pool, count_used, &used);
        errors += used != chunk_live;
        errors += tlsfm_os_lookup(chunk) != &chunk->map || chunk->map.owner != heap;
        live += chunk_live;
        empty += chunk_live == 0;
        ++count;
    }
    errors += count != counter(&heap->chunk_count);
    (void)live; /* compared with the core's count below when TLSF_STATS is on */
    errors += empty != counter(&heap->empty_chunks) || empty > 1;
#if TLSF_STATS
    {
        tlsf_stats_t stats;
        tlsf_get_stats(heap->tlsf, &stats);
        errors += stats.live_blocks != live || stats.pool_count != count;
    }
#endif
    return errors;
}

int tlsfm_heap_check(void) {
    int errors = 0;
    thread_heap_t *heap;
    tlsfm_lock();
    for (heap = tlsfm_all_heaps; heap != NULL; heap = heap->next_heap) {
        if (!tlsfm_heap_is_inspectable_locked(heap)) continue;
        tlsfm_heap_take_back_all(heap, 1);
        errors += check_heap_locked(heap);
    }
    errors += tlsfm_os_check_locked();
    tlsfm_unlock();
    return errors;
}
