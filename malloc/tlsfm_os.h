/*
 * SPDX-License-Identifier: MIT
 *
 * tlsfm_os.h - the drop-in malloc's memory from the system: region-aligned mappings, the
 * region map that names the mapping of any address in O(1), and large blocks (one mapping
 * each) with a bounded cache of freed ones.
 *
 * Regions. Every mapping starts at a multiple of TLSFM_REGION_BYTES (4 MiB) and no two
 * mappings share a region, so the region of an address names at most one mapping. A
 * two-level table (the region map) holds, per region, the header at the base of the
 * mapping that covers it: finding the mapping of a pointer is two dependent loads and a
 * range check, and a pointer that no mapping covers is known not to be ours - without
 * ever reading memory at a guessed address.
 *
 * Functions named *_locked must be called with tlsfm_lock() held (tlsfm_lock.h);
 * tlsfm_os_lookup takes no lock.
 */
#ifndef TLSFM_OS_H
#define TLSFM_OS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define TLSFM_REGION_LOG2 22
#define TLSFM_REGION_BYTES ((size_t)1 << TLSFM_REGION_LOG2)

enum tlsfm_mapping_kind {
    TLSFM_CHUNK = 1, /* a pool of one thread heap (tlsfm_thread.c) */
    TLSFM_LARGE = 2  /* one large block */
};

/* The header at the base of every mapping the region map knows. */
typedef struct tlsfm_mapping {
    uintptr_t base;                    /* the address of this header: the mapping's first byte */
    size_t map_bytes;                  /* the mapping is [base, base + map_bytes) */
    unsigned kind;                     /* enum tlsfm_mapping_kind */
    void *owner;                       /* TLSFM_CHUNK: the thread heap it belongs to */
    size_t payload_offset;             /* TLSFM_LARGE: the block starts at base + payload_offset */
    struct tlsfm_mapping *prev, *next; /* TLSFM_LARGE: the live large blocks (locked) */
} tlsfm_mapping_t;

/* Figures of the system memory in use (tlsfm_os_get_stats_locked). */
typedef struct tlsfm_os_stats {
    size_t mapped_bytes;      /* chunks and large blocks now */
    size_t peak_mapped_bytes; /* the most of that ever */
    size_t maps, unmaps;      /* mmap and munmap of chunks and large blocks */
    size_t large_blocks;      /* live large blocks */
    size_t cached_bytes;      /* freed large mappings kept for reuse (not in mapped_bytes) */
    size_t cache_hits;        /* large blocks served from the cache */
} tlsfm_os_stats_t;

/* A freed large mapping left unused this long (milliseconds) is unmapped at the next
 * large-block call (tlsfm_os.c). A variable so that the tests can set it (under the lock,
 * or before any large block). */
#define TLSFM_LARGE_DECAY_MS 100
extern long tlsfm_large_decay_ms;

/* The system's page size (set on first use; needs no lock). */
size_t tlsfm_page_bytes(void);

/* The region map's layout (tlsfm_os.c); inline here because free asks it on every call. */
#define TLSFM_LEAF_LOG2 13
#define TLSFM_TOP_ENTRIES ((size_t)1 << 13)
typedef _Atomic(tlsfm_mapping_t *) tlsfm_region_slot_t;
extern _Atomic(tlsfm_region_slot_t *) tlsfm_region_top[TLSFM_TOP_ENTRIES];

/* The mapping that covers `ptr`, or NULL if none does: two dependent loads and a range
 * check. Lock-free: the entry of a mapping is written (release) before any of its blocks
 * is handed out and cleared after its last one is freed. */
static inline tlsfm_mapping_t *tlsfm_os_lookup(const void *ptr) {
    uintptr_t region = (uintptr_t)ptr >> TLSFM_REGION_LOG2;
    size_t top = (size_t)(region >> TLSFM_LEAF_LOG2);
    tlsfm_region_slot_t *slots;
    tlsfm_mapping_t *mapping;
    if (top >= TLSFM_TOP_ENTRIES) return NULL;
    slots = atomic_load_explicit(&tlsfm_region_top[top], memory_order_acquire);
    if (slots == NULL) return NULL;
    mapping = atomic_load_explicit(&slots[region & (((uintptr_t)1 << TLSFM_LEAF_LOG2) - 1)],
                                   memory_order_acquire);
    if (mapping == NULL || (uintptr_t)ptr - mapping->base >= mapping->map_bytes) return NULL;
    return mapping;
}

/* `bytes` (at most TLSFM_REGION_BYTES) of fresh zeroed memory at a region boundary, with
 * its header filled (kind TLSFM_CHUNK, `owner`) and entered in the region map; NULL when
 * the system has no memory. */
tlsfm_mapping_t *tlsfm_os_map_chunk_locked(size_t bytes, void *owner);

/* Take a chunk out of the region map and give it back to the system. */
void tlsfm_os_unmap_chunk_locked(tlsfm_mapping_t *chunk);

/* Plain page-aligned mapping for the allocator's own structures (no lock, not in the region
 * map, never given back); NULL on failure. */
void *tlsfm_os_map_pages(size_t bytes);

/*
 * A large block of `bytes` aligned to `align` (0: 16 bytes; else a power of two): from the
 * cache of freed large mappings if one holds it (the smallest; its head cut at the 4 MiB
 * region boundary above the size needed, the tail staying cached), else the
 * largest cached one grown with mremap, else a fresh mapping. *fresh (if not NULL) tells
 * whether its memory came zeroed from the system. NULL when the size cannot be mapped.
 * Takes the lock for the cache and the region map only, not around mmap or mremap.
 */
void *tlsfm_os_large_alloc(size_t bytes, size_t align, int *fresh);

/* Grow the large block of mapping `large` (default alignment) to `bytes` without copying:
 * its mapping is extended in place, or its pages move (mremap) to a fresh region-aligned
 * range. Returns the block's (maybe new) address, or NULL (the block unchanged, still at its
 * address) if the block has another alignment, `bytes` fits its mapping already, or the
 * system refuses. Takes the lock for the region map only. */
void *tlsfm_os_large_grow(tlsfm_mapping_t *large, size_t bytes);

/* Free the large block at `ptr` of mapping `large` (the lock is taken inside). Aborts with
 * a message naming `function` if ptr is not the block's start. */
void tlsfm_os_large_free(tlsfm_mapping_t *large, void *ptr, const char *function);

/* Bytes usable at the large block of mapping `large`. */
size_t tlsfm_os_large_usable(const tlsfm_mapping_t *large);

/* The bytes of the largest request tlsfm_os_large_alloc tries to map. */
size_t tlsfm_os_max_request(void);

void tlsfm_os_get_stats_locked(tlsfm_os_stats_t *stats);

/* Number of failed checks of the live large blocks (each in the region map, sizes sound). */
int tlsfm_os_check_locked(void);

#endif /* TLSFM_OS_H */
