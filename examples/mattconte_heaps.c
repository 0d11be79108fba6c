/* SPDX-License-Identifier: MIT */
/*
 * Two heaps written against mattconte/tlsf 3.1's API, the way the projects that carry it
 * use it, built unchanged against this library's layer (compat/mattconte): the only change
 * is the include path, or in CMake the target (tlsf::mattconte instead of mattconte's
 * tlsf.c). docs/mattconte.md walks through the swap.
 *
 *   ui_heap     a GUI library's heap (as LVGL's built-in allocator): one static buffer
 *               made a heap with tlsf_create_with_pool, more memory added later as a pool,
 *               a monitor that walks the pool for the free total, the largest free block
 *               and the fragmentation, and a self-test with tlsf_check / tlsf_check_pool;
 *   region      a region heap (as ESP-IDF's multi_heap over TLSF): a small header of its
 *               own at the start of the region and the TLSF heap after it, a count of free
 *               bytes kept from tlsf_block_size() + tlsf_alloc_overhead(), aligned
 *               allocations, and an info walk counting blocks.
 *
 * Every step checks what it claims; the program prints "mattconte_heaps: PASS" and returns
 * 0 only if all hold (ctest example_mattconte_heaps).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tlsf.h"

static int failures;

static void check(int condition, const char *what) {
    printf("  %-58s %s\n", what, condition ? "ok" : "FAILED");
    if (!condition) ++failures;
}

/* ---- A GUI library's heap ----------------------------------------------------------- */

#define UI_HEAP_BYTES (64u * 1024u)

/* The buffer is only as aligned as an array of words: mattconte asks for no more. */
static uint32_t ui_memory[UI_HEAP_BYTES / sizeof(uint32_t)];
static uint32_t ui_more_memory[16u * 1024u / sizeof(uint32_t)];
static tlsf_t ui_tlsf;

struct ui_monitor {
    size_t total_size, free_size, free_biggest_size, free_count, used_count;
    unsigned used_pct, frag_pct;
};

static void ui_monitor_walker(void *ptr, size_t size, int used, void *user) {
    struct ui_monitor *mon = (struct ui_monitor *)user;
    (void)ptr;
    if (used) {
        ++mon->used_count;
        return;
    }
    ++mon->free_count;
    mon->free_size += size;
    if (size > mon->free_biggest_size) mon->free_biggest_size = size;
}

static void ui_init(void) {
    ui_tlsf = tlsf_create_with_pool(ui_memory, sizeof ui_memory);
}

static void *ui_malloc(size_t size) {
    return tlsf_malloc(ui_tlsf, size);
}
static void *ui_realloc(void *ptr, size_t size) {
    return tlsf_realloc(ui_tlsf, ptr, size);
}
static void ui_free(void *ptr) {
    tlsf_free(ui_tlsf, ptr);
}

static pool_t ui_add_pool(void *mem, size_t bytes) {
    return tlsf_add_pool(ui_tlsf, mem, bytes);
}

static void ui_monitor(struct ui_monitor *mon) {
    memset(mon, 0, sizeof *mon);
    tlsf_walk_pool(tlsf_get_pool(ui_tlsf), ui_monitor_walker, mon);
    mon->total_size = sizeof ui_memory;
    mon->used_pct = (unsigned)(100 - 100 * mon->free_size / mon->total_size);
    mon->frag_pct =
        mon->free_size == 0 ? 0 : (unsigned)(100 - 100 * mon->free_biggest_size / mon->free_size);
}

/* The self-test: 0 when the heap is sound. */
static int ui_test(void) {
    if (tlsf_check(ui_tlsf)) return -1;
    if (tlsf_check_pool(tlsf_get_pool(ui_tlsf))) return -2;
    return 0;
}

static void ui_heap_example(void) {
    struct ui_monitor mon;
    char *label, *list[64];
    pool_t more;
    size_t i;
    printf("ui_heap: a GUI library's heap in a static buffer\n");
    ui_init();
    check(ui_tlsf != NULL, "tlsf_create_with_pool over a word-aligned buffer");

    label = (char *)ui_malloc(16);
    strcpy(label, "Hello");
    label = (char *)ui_realloc(label, 200);
    check(label != NULL && strcmp(label, "Hello") == 0, "realloc keeps the text");
    for (i = 0; i < 64; ++i)
        list[i] = (char *)ui_malloc(24 + i * 8);
    for (i = 0; i < 64; i += 2)
        ui_free(list[i]);
    ui_monitor(&mon);
    printf("  monitor: %zu bytes free in %zu blocks (largest %zu), %zu used, %u%% used, "
           "%u%% fragmented\n",
           mon.free_size, mon.free_count, mon.free_biggest_size, mon.used_count, mon.used_pct,
           mon.frag_pct);
    check(mon.used_count == 33 && mon.free_count == 33, "every other block freed: 33 holes");
    check(mon.frag_pct > 0, "the holes show as fragmentation");
    for (i = 1; i < 64; i += 2)
        ui_free(list[i]);
    ui_free(label);
    ui_monitor(&mon);
    check(mon.used_count == 0 && mon.free_count == 1 && mon.frag_pct == 0,
          "all freed: one free block again, nothing fragmented");
    check(ui_malloc(0) == NULL, "malloc(0) is NULL, as mattconte's");
    check(ui_test() == 0, "self-test: tlsf_check and tlsf_check_pool say 0");

    more = ui_add_pool(ui_more_memory, sizeof ui_more_memory);
    check(more != NULL, "a second buffer added as a pool");
    label = (char *)ui_malloc(40u * 1024u); /* only the first buffer has room for it */
    list[0] = (char *)ui_malloc(12u * 1024u);
    check(label != NULL && list[0] != NULL, "allocations from both pools");
    ui_free(label);
    ui_free(list[0]);
    tlsf_remove_pool(ui_tlsf, more);
    check(ui_test() == 0, "the second pool removed, the heap sound");
}

/* ---- A region heap ------------------------------------------------------------------- */

#define REGION_BYTES (64u * 1024u)

/* What the region heap keeps before the TLSF heap. */
struct region_heap {
    size_t free_bytes;         /* what is left, counted from the sizes the API reports */
    size_t minimum_free_bytes; /* the least it has been */
    size_t pool_size;          /* the bytes given to TLSF */
    tlsf_t tlsf;
};

struct region_info {
    size_t total_free_bytes, largest_free_block, allocated_blocks, free_blocks, total_blocks;
};

static uint64_t region_memory[REGION_BYTES / sizeof(uint64_t)];

static struct region_heap *region_register(void *start, size_t size) {
    struct region_heap *heap = (struct region_heap *)start;
    if (size < sizeof *heap + tlsf_size() + tlsf_pool_overhead() + tlsf_block_size_min())
        return NULL;
    size -= sizeof *heap;
    heap->tlsf = tlsf_create_with_pool((char *)start + sizeof *heap, size);
    if (heap->tlsf == NULL) return NULL;
    heap->pool_size = size;
    heap->free_bytes = size - tlsf_size();
    heap->minimum_free_bytes = heap->free_bytes;
    return heap;
}

static void region_took(struct region_heap *heap, void *ptr) {
    heap->free_bytes -= tlsf_block_size(ptr) + tlsf_alloc_overhead();
    if (heap->free_bytes < heap->minimum_free_bytes) heap->minimum_free_bytes = heap->free_bytes;
}

static void *region_malloc(struct region_heap *heap, size_t size) {
    void *ptr;
    if (size == 0) return NULL;
    ptr = tlsf_malloc(heap->tlsf, size);
    if (ptr != NULL) region_took(heap, ptr);
    return ptr;
}

static void region_free(struct region_heap *heap, void *ptr) {
    if (ptr == NULL) return;
    heap->free_bytes += tlsf_block_size(ptr) + tlsf_alloc_overhead();
    tlsf_free(heap->tlsf, ptr);
}

static void region_info_walker(void *ptr, size_t size, int used, void *user) {
    struct region_info *info = (struct region_info *)user;
    (void)ptr;
    ++info->total_blocks;
    if (used) {
        ++info->allocated_blocks;
    } else {
        ++info->free_blocks;
        if (size > info->largest_free_block) info->largest_free_block = size;
    }
}

static void region_get_info(struct region_heap *heap, struct region_info *info) {
    memset(info, 0, sizeof *info);
    tlsf_walk_pool(tlsf_get_pool(heap->tlsf), region_info_walker, info);
    info->total_free_bytes = heap->free_bytes;
}

static int region_check(struct region_heap *heap) {
    return tlsf_check(heap->tlsf) == 0 && tlsf_check_pool(tlsf_get_pool(heap->tlsf)) == 0;
}

static void region_example(void) {
    struct region_heap *heap;
    struct region_info info;
    void *small[32], *dma;
    size_t i, start_free;
    printf("region: a region heap with its own header before the TLSF heap\n");
    heap = region_register(region_memory, sizeof region_memory);
    check(heap != NULL, "registered");
    start_free = heap->free_bytes;
    for (i = 0; i < 32; ++i)
        small[i] = region_malloc(heap, 40 + i);
    /* A buffer for a DMA engine that wants 64-byte lines: the count takes it in too. */
    dma = tlsf_memalign(heap->tlsf, 64, 512);
    check(dma != NULL && (uintptr_t)dma % 64 == 0, "a 64-byte aligned buffer");
    region_get_info(heap, &info);
    printf("  info: %zu blocks, %zu allocated, %zu free; %zu bytes free, largest %zu\n",
           info.total_blocks, info.allocated_blocks, info.free_blocks, info.total_free_bytes,
           info.largest_free_block);
    check(info.allocated_blocks == 33, "the walk counts 33 allocations");
    check(heap->free_bytes < start_free && heap->minimum_free_bytes == heap->free_bytes,
          "the free-byte count went down");
    for (i = 0; i < 32; ++i)
        region_free(heap, small[i]);
    tlsf_free(heap->tlsf, dma);
    check(heap->free_bytes == start_free, "all freed: the count is back where it started");
    region_get_info(heap, &info);
    check(info.free_blocks == 1 && info.allocated_blocks == 0, "one free block again");
    check(region_check(heap), "tlsf_check and tlsf_check_pool say 0");
    check(region_malloc(heap, sizeof region_memory) == NULL, "a request too large: NULL");
}

int main(void) {
    printf("tlsf_size() %zu, tlsf_align_size() %zu, tlsf_block_size_min() %zu, "
           "tlsf_pool_overhead() %zu, tlsf_alloc_overhead() %zu\n",
           tlsf_size(), tlsf_align_size(), tlsf_block_size_min(), tlsf_pool_overhead(),
           tlsf_alloc_overhead());
    ui_heap_example();
    region_example();
    if (failures != 0) {
        printf("mattconte_heaps: %d FAILED\n", failures);
        return 1;
    }
    printf("mattconte_heaps: PASS\n");
    return 0;
}
