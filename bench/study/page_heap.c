/* SPDX-License-Identifier: MIT */
/* page_heap.c - the design study of page_heap.h. */
#include "page_heap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef PAGE_HEAP_STATS
#define PAGE_HEAP_STATS 1 /* counted as the library counts (TLSF_STATS) */
#endif
/* A guard word at the end of every object, its address xor a key: free finds a write past
 * the object's end there, as the library finds one in the next block's sealed header
 * (TLSF_CHECKS 2). It takes a word of each object, as a header does. */
#ifndef PAGE_HEAP_GUARD
#define PAGE_HEAP_GUARD 1
#endif
/* How malloc finds a free object of a page:
 *   0  the bitmap of free objects: the lowest one, two bit scans (the first version);
 *   1  a free list through the freed objects (LIFO, as the library's slabs), its links
 *      encoded as the library encodes its cache's and slabs' links (a multiply by the key,
 *      checked on every pop), and a bump pointer for the objects never handed out; the
 *      bitmap then only marks the objects in use, so that a double free is still refused
 *      (a freed object's own bytes are the user's to damage: they cannot tell).
 * Both keep every check; 1 asks what the bit scans and the eager bitmap cost (and measures
 * more: docs/benchmarks.md, "A design study"). */
#ifndef PAGE_HEAP_LISTS
#define PAGE_HEAP_LISTS 0
#endif

enum {
    PAGE_LOG2 = 14,
    PAGE_BYTES = 1 << PAGE_LOG2,
    SPAN_STEP = 16,
    CLASS_COUNT = (PAGE_HEAP_SMALL_MAX + SPAN_STEP) / SPAN_STEP + 1, /* room for the guard */
    BITMAP_WORDS = PAGE_BYTES / SPAN_STEP / 64
};

/*
 * A page's descriptor: 256 bytes on 64-bit targets, so that the table is indexed by a
 * shift. Invariants:
 * span == 0 for a stretch of the pool that is no page; otherwise used counts the objects
 * in use, and the page is on its class's list (current, next, prev) iff it has a free
 * object. With the bitmap (PAGE_HEAP_LISTS 0) bit i of bits is set iff object i
 * (i < capacity) is free, never for i >= capacity, and bit w of summary is set iff
 * bits[w] != 0. With free lists, bit i of bits is set iff object i is in use; `free` lists
 * the freed objects (each holds the encoded link to the next, link_encode), and the
 * objects from `fresh` up to `end` were never handed out.
 */
typedef struct page {
    uint64_t summary;
    uint32_t span;
    uint32_t magic; /* ceil(2^32 / span): see object_index */
    uint32_t capacity;
    uint32_t used;
    struct page *next, *prev;
    unsigned char *start;
    uint32_t cls;
    uint32_t unused;
    void *free;                 /* PAGE_HEAP_LISTS: the last freed object, or NULL */
    unsigned char *fresh, *end; /* PAGE_HEAP_LISTS: the objects never handed out */
    uint64_t bits[BITMAP_WORDS];
    uint64_t pad[(256 - 80 - 8 * BITMAP_WORDS) / 8];
} page;
typedef char page_size_check[(sizeof(void *) != 8 || sizeof(page) == 256) ? 1 : -1];

struct page_heap {
    uintptr_t base;    /* the pool's start rounded down to PAGE_BYTES */
    size_t span_bytes; /* the table covers [base, base + span_bytes) */
    page *pages;
    page *current[CLASS_COUNT]; /* each class's list of pages with a free object */
    tlsf_t tlsf;
    uintptr_t key;
    uintptr_t key_inverse; /* PAGE_HEAP_LISTS: key * key_inverse == 1 (mod 2^64) */
    uintptr_t link_mask;   /* PAGE_HEAP_LISTS: the bits no sound link has (link_decode) */
    size_t refusals;
    size_t used_bytes, peak_bytes, malloc_count, free_count;
};

enum { GUARD_BYTES = PAGE_HEAP_GUARD ? sizeof(uintptr_t) : 0 };

/* The guard word of the object at `object` of span `span`: its last word. */
static inline uintptr_t *guard_word(void *object, size_t span) {
    return (uintptr_t *)((unsigned char *)object + span) - 1;
}
static inline void *guarded(page_heap *heap, unsigned char *object, size_t span) {
#if PAGE_HEAP_GUARD
    *guard_word(object, span) = (uintptr_t)object ^ heap->key;
#else
    (void)heap;
    (void)span;
#endif
    return object;
}
static inline int guard_intact(const page_heap *heap, void *object, size_t span) {
#if PAGE_HEAP_GUARD
    return *guard_word(object, span) == ((uintptr_t)object ^ heap->key);
#else
    (void)heap;
    (void)object;
    (void)span;
    return 1;
#endif
}

#if PAGE_HEAP_LISTS
/* A freed object's link, as the library stores its cache's and slabs' (tlsf_seal.h):
 * multiplied by the key and bound to its own address, so that a use-after-free write that
 * changes it decodes, but for a chance of 2^-(masked bits), to an address with a masked
 * bit set, which the pop refuses. */
static inline uintptr_t link_encode(const page_heap *heap, void *slot, void *next) {
    return ((uintptr_t)next * heap->key) ^ (uintptr_t)slot;
}
static inline void *link_decode(const page_heap *heap, void *slot, int *sound) {
    uintptr_t next = (*(uintptr_t *)slot ^ (uintptr_t)slot) * heap->key_inverse;
    *sound = (next & heap->link_mask) == 0;
    return (void *)next;
}

/* With free lists, the bit of an object in use is that of its first 16-byte granule of the
 * page: no division to find it, and a pointer into an object (or between objects) names a
 * granule whose bit is clear, so the test that refuses a double free refuses it too. */
static inline uint32_t granule(uintptr_t address) {
    return (uint32_t)((address & (PAGE_BYTES - 1)) / SPAN_STEP);
}

#else
static inline unsigned lowest_bit(uint64_t word) {
    return (unsigned)__builtin_ctzll(word);
}

/* The index of the object at `offset` bytes into page `pg`, or `pg->capacity` if no object
 * starts there: offset * ceil(2^32 / span) has the quotient in its high half and a low half
 * below the multiplier exactly when the span divides the offset (the multiplier exceeds
 * 2^32 / span by less than 1, and 2^32 / span exceeds every offset, below 2^14, for spans
 * below 2^18). */
static inline uint32_t object_index(const page *pg, uint32_t offset) {
    uint64_t product = (uint64_t)offset * pg->magic;
    uint32_t index = (uint32_t)(product >> 32);
    return (uint32_t)product < pg->magic && index < pg->capacity ? index : pg->capacity;
}
#endif

page_heap *page_heap_create(void *memory, size_t bytes) {
    page_heap *heap = (page_heap *)calloc(1, sizeof(page_heap));
    uintptr_t start = (uintptr_t)memory, end = start + bytes;
    if (heap == NULL) return NULL;
    heap->base = start & ~(uintptr_t)(PAGE_BYTES - 1);
    heap->span_bytes = end - heap->base;
    heap->pages = (page *)calloc((heap->span_bytes >> PAGE_LOG2) + 1, sizeof(page));
    heap->tlsf = tlsf_create_with_pool(memory, bytes);
    heap->key = (uintptr_t)heap * (uintptr_t)0x9E3779B1u | 1; /* odd, differs per heap */
#if PAGE_HEAP_LISTS                                           /* the links' key inverse and mask */
    /* Newton's iteration for the inverse modulo 2^64: each step doubles the correct low
     * bits, from the 3 that key * key == 1 (mod 8) gives (5 steps: 96 > 64). */
    heap->key_inverse = heap->key;
    for (int step = 0; step < 5; ++step)
        heap->key_inverse *= 2 - heap->key * heap->key_inverse;
    {
        uintptr_t above = 1;
        while (above != 0 && above < end)
            above <<= 1;
        heap->link_mask = (above != 0 ? ~(above - 1) : 0) | (uintptr_t)(SPAN_STEP - 1);
    }
#endif
    if (heap->pages == NULL || heap->tlsf == NULL) {
        page_heap_destroy(heap);
        return NULL;
    }
    return heap;
}

void page_heap_destroy(page_heap *heap) {
    if (heap == NULL) return;
    free(heap->pages);
    free(heap);
}

size_t page_heap_refusals(const page_heap *heap) {
    return heap->refusals;
}

size_t page_heap_overhead_bytes(const page_heap *heap) {
    return sizeof(page_heap) + ((heap->span_bytes >> PAGE_LOG2) + 1) * sizeof(page);
}

/* The class list: O(1) push, pop and unlink. */
static void list_push(page_heap *heap, page *pg) {
    page *head = heap->current[pg->cls];
    pg->prev = NULL;
    pg->next = head;
    if (head) head->prev = pg;
    heap->current[pg->cls] = pg;
}
static void list_unlink(page_heap *heap, page *pg) {
    if (pg->prev)
        pg->prev->next = pg->next;
    else
        heap->current[pg->cls] = pg->next;
    if (pg->next) pg->next->prev = pg->prev;
    pg->next = pg->prev = NULL;
}

static void count_malloc(page_heap *heap, size_t span) {
#if PAGE_HEAP_STATS
    heap->used_bytes += span;
    if (heap->used_bytes > heap->peak_bytes) heap->peak_bytes = heap->used_bytes;
    heap->malloc_count++;
#else
    (void)heap;
    (void)span;
#endif
}
static void count_free(page_heap *heap, size_t span) {
#if PAGE_HEAP_STATS
    heap->used_bytes -= span;
    heap->free_count++;
#else
    (void)heap;
    (void)span;
#endif
}

/* Give back the empty pages kept one per class (page_emptied): a pass over the classes,
 * when the TLSF heap cannot serve a request (as the library drains its cache). Returns 1
 * if a page went back. */
static int release_kept_pages(page_heap *heap) {
    unsigned cls;
    int released = 0;
    for (cls = 0; cls < CLASS_COUNT; ++cls) {
        page *pg = heap->current[cls];
        if (pg != NULL && pg->used == 0 && pg->next == NULL) {
            list_unlink(heap, pg);
            pg->span = 0;
            tlsf_free(heap->tlsf, pg->start);
            released = 1;
        }
    }
    return released;
}

/* A request the pages do not serve, from the TLSF heap; once more after the kept pages
 * went back if it fails. */
static __attribute__((noinline)) void *malloc_large(page_heap *heap, size_t bytes) {
    void *ptr = tlsf_malloc(heap->tlsf, bytes);
    if (ptr == NULL && release_kept_pages(heap)) ptr = tlsf_malloc(heap->tlsf, bytes);
    return ptr;
}

/* A new page for class `cls` from the TLSF heap, all objects free, on its class's list. */
static __attribute__((noinline)) page *page_new(page_heap *heap, unsigned cls) {
    unsigned char *memory = (unsigned char *)tlsf_memalign(heap->tlsf, PAGE_BYTES, PAGE_BYTES);
    page *pg;
    if (memory == NULL && release_kept_pages(heap))
        memory = (unsigned char *)tlsf_memalign(heap->tlsf, PAGE_BYTES, PAGE_BYTES);
    if (memory == NULL) return NULL;
    pg = &heap->pages[((uintptr_t)memory - heap->base) >> PAGE_LOG2];
    memset(pg, 0, sizeof *pg);
    pg->span = cls * SPAN_STEP;
    pg->magic = (uint32_t)(UINT64_C(0xFFFFFFFF) / pg->span + 1);
    pg->capacity = PAGE_BYTES / pg->span;
    pg->start = memory;
    pg->cls = cls;
#if PAGE_HEAP_LISTS
    /* Every object fresh, none in use: no bit to set. */
    pg->fresh = memory;
    pg->end = memory + (size_t)pg->capacity * pg->span;
#else
    for (uint32_t i = 0; i < pg->capacity; i += 64) {
        uint32_t left = pg->capacity - i;
        pg->bits[i / 64] = left >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << left) - 1;
        pg->summary |= UINT64_C(1) << (i / 64);
    }
#endif
    list_push(heap, pg);
    return pg;
}

static __attribute__((noinline)) void refuse(page_heap *heap) {
    heap->refusals++;
}

#if PAGE_HEAP_LISTS
/* The free list of page `pg` has a damaged link (a write after free): refused, and the
 * list dropped (its objects stay out of use, as the library's slabs leave them); the
 * request takes the page's fresh objects or another page. */
static __attribute__((noinline)) void *malloc_damaged(page_heap *heap, page *pg, unsigned cls) {
    refuse(heap);
    pg->free = NULL;
    if (pg->fresh == pg->end) list_unlink(heap, pg);
    return page_heap_malloc(heap, cls * SPAN_STEP - GUARD_BYTES);
}
#endif

static __attribute__((noinline)) void *malloc_new_page(page_heap *heap, unsigned cls) {
    size_t bytes = cls * SPAN_STEP - GUARD_BYTES;
    if (page_new(heap, cls) == NULL) return malloc_large(heap, bytes);
    return page_heap_malloc(heap, bytes);
}

void *page_heap_malloc(page_heap *heap, size_t bytes) {
    if (bytes <= PAGE_HEAP_SMALL_MAX) {
        unsigned cls = (unsigned)((bytes + GUARD_BYTES + SPAN_STEP - 1) / SPAN_STEP);
        page *pg;
        cls += cls == 0;
        pg = heap->current[cls];
#if PAGE_HEAP_LISTS
        if (pg != NULL) {
            /* The last freed object, else the next fresh one: a page on the list has one. */
            unsigned char *object = (unsigned char *)pg->free;
            uint32_t index;
            if (object != NULL) {
                int sound;
                void *below = link_decode(heap, object, &sound);
                if (!sound) return malloc_damaged(heap, pg, cls);
                pg->free = below;
            } else {
                object = pg->fresh;
                pg->fresh = object + pg->span;
            }
            if (pg->free == NULL && pg->fresh == pg->end) list_unlink(heap, pg); /* full */
            index = granule((uintptr_t)object);
            pg->bits[index >> 6] |= UINT64_C(1) << (index & 63);
            pg->used++;
            count_malloc(heap, pg->span);
            return guarded(heap, object, pg->span);
        }
#else
        if (pg != NULL) {
            /* The lowest free object: a page on the list has one (summary != 0). */
            uint64_t summary = pg->summary;
            unsigned w = lowest_bit(summary);
            uint64_t word = pg->bits[w];
            unsigned b = lowest_bit(word);
            word &= word - 1;
            pg->bits[w] = word;
            if (word == 0) {
                summary &= summary - 1;
                pg->summary = summary;
                if (summary == 0) list_unlink(heap, pg); /* full */
            }
            pg->used++;
            count_malloc(heap, pg->span);
            return guarded(heap, pg->start + (size_t)((w << 6) | b) * pg->span, pg->span);
        }
#endif
        return malloc_new_page(heap, cls);
    }
    return malloc_large(heap, bytes);
}

/* An emptied page goes back to the TLSF heap, unless it is its class's only page with a
 * free object (kept, so that a class used one object at a time does not take and give
 * back a page on every call). */
static __attribute__((noinline)) void page_emptied(page_heap *heap, page *pg) {
    if (pg->prev == NULL && pg->next == NULL) return;
    list_unlink(heap, pg);
    pg->span = 0;
    tlsf_free(heap->tlsf, pg->start);
}

void page_heap_free(page_heap *heap, void *ptr) {
    uintptr_t off = (uintptr_t)ptr - heap->base;
    page *pg;
    uint64_t word, bit;
    uint32_t index;
    if (off >= heap->span_bytes) {
        if (ptr != NULL) refuse(heap); /* foreign */
        return;
    }
    pg = &heap->pages[off >> PAGE_LOG2];
    if (pg->span == 0) {
        tlsf_free(heap->tlsf, ptr); /* a TLSF block: its header is checked there */
        return;
    }
#if PAGE_HEAP_LISTS
    index = granule((uintptr_t)ptr);
    word = pg->bits[index >> 6];
    bit = UINT64_C(1) << (index & 63);
    if ((off & (SPAN_STEP - 1)) != 0 || !(word & bit)) {
        refuse(heap); /* no object in use starts there: interior, a double free, never handed out */
        return;
    }
#else
    index = object_index(pg, (uint32_t)(off & (PAGE_BYTES - 1)));
    if (index == pg->capacity) {
        refuse(heap); /* not an object's start */
        return;
    }
    word = pg->bits[index >> 6];
    bit = UINT64_C(1) << (index & 63);
    if (word & bit) {
        refuse(heap); /* double free */
        return;
    }
#endif
    if (!guard_intact(heap, ptr, pg->span)) {
        refuse(heap); /* written past its end */
        return;
    }
    pg->bits[index >> 6] = word ^ bit;
#if PAGE_HEAP_LISTS
    if (pg->free == NULL && pg->fresh == pg->end) list_push(heap, pg); /* was full */
    *(uintptr_t *)ptr = link_encode(heap, ptr, pg->free);
    pg->free = ptr;
#else
    if (word == 0) {
        if (pg->summary == 0) list_push(heap, pg); /* was full */
        pg->summary |= UINT64_C(1) << (index >> 6);
    }
#endif
    count_free(heap, pg->span);
    if (--pg->used == 0) page_emptied(heap, pg);
}
