/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_os.c - memory from the system for the drop-in malloc (see tlsfm_os.h).
 *
 * Alignment. mmap gives page alignment only; a region-aligned mapping is made by mapping
 * `bytes + alignment - page` and unmapping the head and tail around the aligned part
 * (three system calls, on the rare path that maps memory at all).
 *
 * Region map. Addresses up to 2^48 (2^32 on 32-bit systems) in 4 MiB regions: 2^26
 * entries as a top array of 2^13 leaf pointers (static, 64 KiB of .bss, touched only where
 * used) and leaves of 2^13 entries mapped on demand (64 KiB each, one per 32 GiB of address
 * space in use, never freed). Writers hold the lock; readers load with acquire and take
 * no lock. A mapping above 2^48 (which Linux does not hand out unasked) is refused.
 *
 * Large blocks. A request that a thread heap does not serve (tlsfm_thread.c: above a
 * quarter of a chunk) gets a mapping of its own: header at the base, block at
 * max(64, alignment) bytes in. Freed, the mapping goes to a cache instead of munmap, so a
 * program that reuses large blocks does not fault in fresh pages every time (the cost the
 * issue measured: 2.5x glibc's time on blocks of 5-25 MiB).
 *
 * Reuse costs no system call in the common case. A request takes the smallest cached
 * mapping that holds it: its head, cut at the region boundary above the need (whole if
 * it ends before that); the tail stays in the cache as a mapping of its own (it starts at a region,
 * so the region map's rule holds) with its pages resident. Freed pieces join their cached
 * neighbours again, so a program cycling through sizes keeps reusing one range. With nothing large
 * enough cached, the largest smaller mapping grows (mremap: in place if the addresses after it are
 * free, else its pages move to a fresh aligned range): only the added pages are new.
 *
 * Bounds (the resident memory large blocks cost beyond what the program asked for):
 * - the cache holds at most LARGE_CACHE_SLOTS (16) ranges and LARGE_CACHE_BYTES (64 MiB);
 *   a range that would exceed either evicts the oldest ones (munmap), and one larger than
 *   the byte cap is unmapped at once;
 * - a live large block's mapping is at most its need rounded up to 4 MiB, where need =
 *   request + header, rounded to the page.
 * So RSS <= live large requests (each + 4 MiB) + 64 MiB, whatever the sequence.
 * - a range left unused for tlsfm_large_decay_ms (TLSFM_LARGE_DECAY_MS, 100 ms) is unmapped
 *   at the next large-block call, so a program whose large blocks are not reused soon
 *   does not keep them resident (CPython's dict tables and JSON strings: 16 MB less peak
 *   RSS on test/shim/workloads/python_heavy.py 300000; a program that reuses them within
 *   the decay keeps every benefit). The clock is CLOCK_MONOTONIC_COARSE (vDSO, no system
 *   call), read on the large-block calls only.
 */
#define _GNU_SOURCE 1

#include "tlsfm_os.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tlsfm_diag.h"
#include "tlsfm_lock.h"

#define LEAF_LOG2 TLSFM_LEAF_LOG2
#define LEAF_ENTRIES ((size_t)1 << LEAF_LOG2)
#define TOP_ENTRIES TLSFM_TOP_ENTRIES
#define LARGE_HEADER_BYTES ((size_t)64)
#define LARGE_CACHE_SLOTS 16
#define LARGE_CACHE_BYTES ((size_t)64 << 20)

_Atomic(tlsfm_region_slot_t *) tlsfm_region_top[TOP_ENTRIES];
static atomic_size_t page_size_cached;

/* Guarded by the lock. */
static tlsfm_mapping_t *large_live;
static struct cached_mapping {
    uintptr_t base;
    size_t map_bytes;
    long cached_ms;               /* when it entered the cache (coarse monotonic clock) */
} large_cache[LARGE_CACHE_SLOTS]; /* oldest first */
static size_t large_cache_count;
long tlsfm_large_decay_ms = TLSFM_LARGE_DECAY_MS;

/* Milliseconds of the coarse monotonic clock (a few ms of resolution, no system call). */
static long now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return (long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}
static tlsfm_os_stats_t stats;

_Static_assert(sizeof(tlsfm_mapping_t) <= LARGE_HEADER_BYTES, "large header too big");

size_t tlsfm_page_bytes(void) {
    size_t page = atomic_load_explicit(&page_size_cached, memory_order_relaxed);
    if (page == 0) {
        long got = sysconf(_SC_PAGESIZE);
        page = got > 0 ? (size_t)got : 4096;
        atomic_store_explicit(&page_size_cached, page, memory_order_relaxed);
    }
    return page;
}

static size_t round_up(size_t value, size_t align) {
    return (value + align - 1) & ~(align - 1);
}

/* munmap that leaves errno alone (free must not change it). */
static void unmap(void *mem, size_t bytes) {
    int saved_errno = errno;
    munmap(mem, bytes);
    errno = saved_errno;
}

void *tlsfm_os_map_pages(size_t bytes) {
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return mem == MAP_FAILED ? NULL : mem;
}

/* `bytes` (a multiple of the page) at a multiple of `align` (a power of two, at least a
 * region); 0 on failure. */
static uintptr_t map_aligned(size_t bytes, size_t align) {
    size_t page = tlsfm_page_bytes();
    size_t span;
    uintptr_t raw, start;
    if (bytes > SIZE_MAX / 2 - align) return 0;
    span = bytes + align - page;
    raw = (uintptr_t)tlsfm_os_map_pages(span);
    if (raw == 0) return 0;
    start = (raw + align - 1) & ~(uintptr_t)(align - 1);
    if (start > raw) unmap((void *)raw, start - raw);
    if (raw + span > start + bytes) unmap((void *)(start + bytes), raw + span - start - bytes);
    return start;
}

/* ---- The region map ------------------------------------------------------------------ */

static int region_index(uintptr_t address, size_t *top, size_t *leaf) {
    uintptr_t region = address >> TLSFM_REGION_LOG2;
    *top = (size_t)(region >> LEAF_LOG2);
    *leaf = (size_t)(region & (LEAF_ENTRIES - 1));
    return *top < TOP_ENTRIES;
}

/* Point every region of [base, base + bytes) at `mapping` (NULL: clear them). Returns 0
 * if a leaf could not be mapped or the range lies beyond the map (nothing is set then). */
static int set_regions_locked(uintptr_t base, size_t bytes, tlsfm_mapping_t *mapping) {
    uintptr_t address;
    size_t top, leaf;
    if (bytes == 0 || !region_index(base + bytes - 1, &top, &leaf)) return 0;
    for (address = base; address < base + bytes; address += TLSFM_REGION_BYTES) {
        region_index(address, &top, &leaf);
        if (atomic_load_explicit(&tlsfm_region_top[top], memory_order_relaxed) == NULL) {
            tlsfm_region_slot_t *slots;
            if (mapping == NULL) continue;
            slots = (tlsfm_region_slot_t *)tlsfm_os_map_pages(LEAF_ENTRIES * sizeof *slots);
            if (slots == NULL) return 0;
            atomic_store_explicit(&tlsfm_region_top[top], slots, memory_order_release);
        }
    }
    for (address = base; address < base + bytes; address += TLSFM_REGION_BYTES) {
        tlsfm_region_slot_t *slots;
        region_index(address, &top, &leaf);
        slots = atomic_load_explicit(&tlsfm_region_top[top], memory_order_relaxed);
        if (slots != NULL) atomic_store_explicit(&slots[leaf], mapping, memory_order_release);
    }
    return 1;
}

static void count_map_locked(size_t bytes) {
    stats.mapped_bytes += bytes;
    if (stats.mapped_bytes > stats.peak_mapped_bytes) stats.peak_mapped_bytes = stats.mapped_bytes;
    stats.maps++;
}

/* ---- Chunks ---------------------------------------------------------------------------- */

tlsfm_mapping_t *tlsfm_os_map_chunk_locked(size_t bytes, void *owner) {
    uintptr_t base = map_aligned(round_up(bytes, tlsfm_page_bytes()), TLSFM_REGION_BYTES);
    tlsfm_mapping_t *chunk = (tlsfm_mapping_t *)base;
    if (base == 0) return NULL;
    bytes = round_up(bytes, tlsfm_page_bytes());
    chunk->base = base;
    chunk->map_bytes = bytes;
    chunk->kind = TLSFM_CHUNK;
    chunk->owner = owner;
    if (!set_regions_locked(base, bytes, chunk)) {
        unmap((void *)base, bytes);
        return NULL;
    }
    count_map_locked(bytes);
    return chunk;
}

void tlsfm_os_unmap_chunk_locked(tlsfm_mapping_t *chunk) {
    uintptr_t base = chunk->base;
    size_t bytes = chunk->map_bytes;
    set_regions_locked(base, bytes, NULL);
    unmap((void *)base, bytes);
    stats.mapped_bytes -= bytes;
    stats.unmaps++;
}

/* ---- Large blocks -------------------------------------------------------------------- */

static size_t large_offset(size_t align) {
    return align > LARGE_HEADER_BYTES ? align : LARGE_HEADER_BYTES;
}

size_t tlsfm_os_max_request(void) {
    return SIZE_MAX / 2 - 2 * TLSFM_REGION_BYTES;
}

/* The mapping bytes a large request needs; 0 if it cannot be mapped. */
static size_t large_map_bytes(size_t bytes, size_t align) {
    size_t offset = large_offset(align);
    if (bytes > tlsfm_os_max_request() || offset > tlsfm_os_max_request() - bytes) return 0;
    return round_up(offset + bytes, tlsfm_page_bytes());
}

/* The cached mapping (its base aligned to `base_align`) to serve `need` bytes with; the slot
 * or -1. First choice: the smallest that holds `need` (used whole, or its head cut off).
 * Else the largest smaller one (grown, so that only the added pages are new). */
static int cache_pick_locked(size_t need, size_t base_align) {
    int fit = -1, smaller = -1;
    size_t i;
    for (i = 0; i < large_cache_count; ++i) {
        size_t bytes = large_cache[i].map_bytes;
        if ((large_cache[i].base & (base_align - 1)) != 0) continue;
        if (bytes >= need) {
            if (fit < 0 || bytes < large_cache[fit].map_bytes) fit = (int)i;
        } else if (smaller < 0 || bytes > large_cache[smaller].map_bytes) {
            smaller = (int)i;
        }
    }
    return fit >= 0 ? fit : smaller;
}

static void cache_remove_locked(size_t slot) {
    stats.cached_bytes -= large_cache[slot].map_bytes;
    memmove(&large_cache[slot], &large_cache[slot + 1],
            (large_cache_count - slot - 1) * sizeof large_cache[0]);
    large_cache_count--;
}

/* Unmap the oldest cached range (slot 0). */
static void cache_evict_oldest_locked(void) {
    unmap((void *)large_cache[0].base, large_cache[0].map_bytes);
    stats.unmaps++;
    cache_remove_locked(0);
}

/* Unmap the ranges that have waited in the cache longer than tlsfm_large_decay_ms. The
 * slots are in the order they were cached, so the expired ones are at the front. */
static void cache_decay_locked(void) {
    long now = now_ms();
    while (large_cache_count > 0 && now - large_cache[0].cached_ms > tlsfm_large_decay_ms)
        cache_evict_oldest_locked();
}

/* The bytes of a cached mapping of `bytes` that a block needing `need` keeps: the need
 * rounded up to a region, the rest staying cached as a mapping of its own (it must start at
 * a region boundary); all of it when that is not more. So a live large block holds at most
 * its need rounded up to 4 MiB. */
static size_t cache_keep(size_t bytes, size_t need) {
    size_t keep = round_up(need, TLSFM_REGION_BYTES);
    return keep >= bytes ? bytes : keep;
}

/* Take the cached mapping in `slot` for a block needing `need` bytes: whole, or its head
 * (the tail stays in the slot, with its age). Costs no system call. */
static struct cached_mapping cache_take_locked(size_t slot, size_t need) {
    struct cached_mapping taken = large_cache[slot];
    size_t keep = cache_keep(taken.map_bytes, need);
    if (taken.map_bytes >= need && keep < taken.map_bytes) {
        large_cache[slot].base += keep;
        large_cache[slot].map_bytes -= keep;
        stats.cached_bytes -= keep;
        taken.map_bytes = keep;
    } else {
        cache_remove_locked(slot);
    }
    stats.cache_hits++;
    return taken;
}

/* Make `mapping` (header written) a live large block: region map, list, counters.
 * Returns 0 (and unmaps it) if the region map cannot take it. */
static int large_enter_locked(tlsfm_mapping_t *mapping) {
    if (!set_regions_locked(mapping->base, mapping->map_bytes, mapping)) {
        unmap((void *)mapping->base, mapping->map_bytes);
        return 0;
    }
    mapping->prev = NULL;
    mapping->next = large_live;
    if (large_live != NULL) large_live->prev = mapping;
    large_live = mapping;
    stats.large_blocks++;
    stats.mapped_bytes += mapping->map_bytes;
    if (stats.mapped_bytes > stats.peak_mapped_bytes) stats.peak_mapped_bytes = stats.mapped_bytes;
    return 1;
}

/* The range [base, base + bytes) grown to `need` bytes at `base_align`: in place if the
 * addresses after it are free, else by moving its pages (mremap) into a fresh aligned range.
 * Only the added pages are new. Returns the base, or 0 if the system refuses (e.g. the range
 * joins two mappings of the system); the range is then as it was. Sets *moved when the
 * address changed. */
static uintptr_t grow_range(uintptr_t base, size_t bytes, size_t need, size_t base_align,
                            int *moved) {
    uintptr_t target;
    *moved = 0;
    if (mremap((void *)base, bytes, need, 0) != MAP_FAILED) return base;
    target = map_aligned(need, base_align);
    if (target == 0) return 0;
    if (mremap((void *)base, bytes, need, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)target) !=
        MAP_FAILED) {
        *moved = 1;
        return target;
    }
    unmap((void *)target, need);
    return 0;
}

/* A cached range grown as grow_range does; 0 if it could not be (the range is unmapped). */
static uintptr_t grow_cached(uintptr_t base, size_t bytes, size_t need, size_t base_align,
                             int *moved) {
    uintptr_t grown = grow_range(base, bytes, need, base_align, moved);
    if (grown == 0) unmap((void *)base, bytes);
    return grown;
}

void *tlsfm_os_large_alloc(size_t bytes, size_t align, int *fresh) {
    size_t need = large_map_bytes(bytes, align), map_bytes = need;
    size_t base_align = align > TLSFM_REGION_BYTES ? align : TLSFM_REGION_BYTES;
    tlsfm_mapping_t *mapping = NULL;
    struct cached_mapping cached = {0, 0, 0};
    uintptr_t base = 0;
    int slot, moved = 0, unmapped = 0;
    if (fresh != NULL) *fresh = 0;
    if (need == 0) return NULL;
    tlsfm_lock();
    cache_decay_locked();
    slot = cache_pick_locked(need, base_align);
    if (slot >= 0) cached = cache_take_locked((size_t)slot, need);
    tlsfm_unlock();
    if (slot >= 0) {
        base = cached.base;
        map_bytes = cached.map_bytes;
        if (map_bytes < need) {
            base = grow_cached(base, map_bytes, need, base_align, &moved);
            map_bytes = need;
            unmapped = base == 0;
        }
    }
    if (base == 0) {
        map_bytes = need;
        base = map_aligned(need, base_align);
        if (base == 0) return NULL;
        moved = 1;
        if (fresh != NULL) *fresh = 1;
    }
    mapping = (tlsfm_mapping_t *)base;
    mapping->base = base;
    mapping->map_bytes = map_bytes;
    mapping->kind = TLSFM_LARGE;
    mapping->owner = NULL;
    mapping->payload_offset = large_offset(align);
    tlsfm_lock();
    stats.maps += (size_t)moved;
    stats.unmaps += (size_t)unmapped;
    if (!large_enter_locked(mapping)) mapping = NULL;
    tlsfm_unlock();
    return mapping ? (void *)(base + mapping->payload_offset) : NULL;
}

/* Join the cached mapping [*base, *base + *bytes) with the cached ones right before and
 * after it (pieces of one mapping cut by cache_take_locked, or neighbouring mappings):
 * they leave the cache and the range grows over them. */
static void cache_absorb_neighbours_locked(uintptr_t *base, size_t *bytes) {
    size_t i = 0;
    while (i < large_cache_count) {
        struct cached_mapping other = large_cache[i];
        if (other.base + other.map_bytes == *base || *base + *bytes == other.base) {
            cache_remove_locked(i);
            if (other.base < *base) *base = other.base;
            *bytes += other.map_bytes;
            i = 0; /* the grown range may now touch one seen before */
        } else {
            ++i;
        }
    }
}

/* Keep the freed mapping for reuse, joined with its cached neighbours, evicting the oldest
 * others beyond the caps; a range larger than the byte cap by itself is unmapped. */
static void cache_insert_locked(uintptr_t base, size_t map_bytes) {
    if (map_bytes <= LARGE_CACHE_BYTES) cache_absorb_neighbours_locked(&base, &map_bytes);
    cache_decay_locked();
    while (large_cache_count > 0 && (large_cache_count == LARGE_CACHE_SLOTS ||
                                     stats.cached_bytes + map_bytes > LARGE_CACHE_BYTES))
        cache_evict_oldest_locked();
    if (map_bytes > LARGE_CACHE_BYTES) {
        unmap((void *)base, map_bytes);
        stats.unmaps++;
        return;
    }
    large_cache[large_cache_count].base = base;
    large_cache[large_cache_count].map_bytes = map_bytes;
    large_cache[large_cache_count].cached_ms = now_ms();
    large_cache_count++;
    stats.cached_bytes += map_bytes;
}

/* Take a live large block out of the region map, the list and the counters. */
static void large_leave_locked(tlsfm_mapping_t *large) {
    set_regions_locked(large->base, large->map_bytes, NULL);
    if (large->prev != NULL)
        large->prev->next = large->next;
    else
        large_live = large->next;
    if (large->next != NULL) large->next->prev = large->prev;
    stats.large_blocks--;
    stats.mapped_bytes -= large->map_bytes;
}

void *tlsfm_os_large_grow(tlsfm_mapping_t *large, size_t bytes) {
    size_t need = large_map_bytes(bytes, 0), old_bytes = large->map_bytes;
    uintptr_t base = large->base, grown;
    int moved = 0;
    if (need == 0 || large->payload_offset != large_offset(0) || need <= old_bytes) return NULL;
    tlsfm_lock();
    large_leave_locked(large);
    tlsfm_unlock();
    grown = grow_range(base, old_bytes, need, TLSFM_REGION_BYTES, &moved);
    if (grown != 0) { /* the header moved with the pages */
        large = (tlsfm_mapping_t *)grown;
        large->base = grown;
        large->map_bytes = need;
    }
    tlsfm_lock();
    stats.maps += (size_t)moved;
    /* Only a moved block can fail here (a leaf of the region map for its new regions not
     * mapped): its old range is gone, so there is nothing to fall back to. */
    if (!large_enter_locked(large))
        tlsfm_die("realloc", "out of memory for the region map", (void *)grown);
    tlsfm_unlock();
    return grown != 0 ? (void *)(grown + large->payload_offset) : NULL;
}

void tlsfm_os_large_free(tlsfm_mapping_t *large, void *ptr, const char *function) {
    uintptr_t base = large->base;
    size_t map_bytes = large->map_bytes;
    if ((uintptr_t)ptr != base + large->payload_offset)
        tlsfm_die(function, "invalid pointer: not the start of a block", ptr);
    tlsfm_lock();
    large_leave_locked(large);
    cache_insert_locked(base, map_bytes);
    tlsfm_unlock();
}

size_t tlsfm_os_large_usable(const tlsfm_mapping_t *large) {
    return large->map_bytes - large->payload_offset;
}

void tlsfm_os_get_stats_locked(tlsfm_os_stats_t *out) {
    *out = stats;
}

int tlsfm_os_check_locked(void) {
    int errors = 0;
    size_t count = 0, i, cached = 0;
    const tlsfm_mapping_t *mapping;
    for (mapping = large_live; mapping != NULL; mapping = mapping->next) {
        const void *block = (const void *)(mapping->base + mapping->payload_offset);
        errors += tlsfm_os_lookup(block) != mapping;
        errors += mapping->kind != TLSFM_LARGE || mapping->payload_offset >= mapping->map_bytes;
        ++count;
    }
    errors += count != stats.large_blocks;
    for (i = 0; i < large_cache_count; ++i) { /* out of the map, at a region, disjoint */
        const struct cached_mapping *one = &large_cache[i];
        size_t j;
        errors += tlsfm_os_lookup((const void *)one->base) != NULL;
        errors += (one->base & (TLSFM_REGION_BYTES - 1)) != 0 || one->map_bytes == 0;
        for (j = i + 1; j < large_cache_count; ++j)
            errors += one->base < large_cache[j].base + large_cache[j].map_bytes &&
                      large_cache[j].base < one->base + one->map_bytes;
        cached += one->map_bytes;
    }
    errors += cached != stats.cached_bytes || cached > LARGE_CACHE_BYTES;
    return errors;
}
