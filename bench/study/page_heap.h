/* SPDX-License-Identifier: MIT */
/*
 * page_heap.h - a design study for issue 28, measured by scripts/callgrind.sh, not part of
 * the library: small blocks without headers, in pages whose metadata lives apart from them.
 *
 * The library's front cache keeps a freed small block whole, with its header, on a stack
 * of its class; with the hosted default's checks a free then computes two seals (its own
 * header's and the next one's) and a pop decodes a link stored in the block. This study
 * asks what the same guarantees cost when small blocks have no header at all:
 *
 *   - requests up to PAGE_HEAP_SMALL_MAX bytes come from 16 KiB pages, each cut into
 *     objects of one span (a multiple of 16); a page is a block of an ordinary TLSF heap
 *     over the same memory, aligned to its size, so a pointer's page is its address
 *     rounded down;
 *   - each page's state is a descriptor in a table beside the pool (one per 16 KiB of
 *     pool), never in the pool: a write past the end of an object or after its free
 *     reaches user bytes only, no metadata the allocator trusts;
 *   - a descriptor holds a bitmap of free objects (1024 bits, the most a page holds) and a
 *     summary word (bit w: word w of the bitmap has a free object); malloc takes the lowest
 *     free object with two bit scans, free sets its bit; the variant built with
 *     PAGE_HEAP_LISTS=1 keeps a free list through the freed objects instead (links encoded
 *     and checked as the library's slabs keep theirs) and hands out never-used objects in
 *     address order, its bitmap marking the objects in use by their first 16 bytes;
 *   - free recognises what the library's checks recognise, in O(1): a pointer outside the
 *     pool or not at an object's start (interior, foreign: the offset in the page must be
 *     an exact multiple of the span, tested with one multiplication), and a double free
 *     (the object's bit is already set); everything else (larger requests, pointers that
 *     are not in a page) is the TLSF heap's, with its own checks.
 *
 * Every operation is bounded: malloc and free take two bit scans (with free lists: a pop or
 * a push), one bitmap word and one descriptor; a page that fills leaves its class's list of pages
 * with free objects, one that empties goes back to the TLSF heap (a doubly linked list: O(1) either
 * way); making a page sets at most 16 bitmap words, and a request the TLSF heap cannot serve first
 * gives back the empty pages kept one per class (a pass over the 66 classes).
 */
#ifndef PAGE_HEAP_H
#define PAGE_HEAP_H

#include <stddef.h>

#include "tlsf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAGE_HEAP_SMALL_MAX 1024

typedef struct page_heap page_heap;

/* A heap over `bytes` at `memory` (aligned to 16 KiB or not: the pages are aligned inside
 * it); its descriptor table comes from the C library. NULL if too small. */
page_heap *page_heap_create(void *memory, size_t bytes);
void page_heap_destroy(page_heap *heap);

void *page_heap_malloc(page_heap *heap, size_t bytes);
void page_heap_free(page_heap *heap, void *ptr);

/* The misuse the heap refused so far (bad pointers, double frees, damaged guard words). */
size_t page_heap_refusals(const page_heap *heap);

/* The bytes the heap keeps outside the memory it was given: its state and the descriptor
 * table (what a fixed heap's size must include, as a TLSF heap's control structure). */
size_t page_heap_overhead_bytes(const page_heap *heap);

#ifdef __cplusplus
}
#endif

#endif /* PAGE_HEAP_H */
