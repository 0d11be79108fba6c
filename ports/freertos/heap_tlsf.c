/*
 * SPDX-License-Identifier: MIT
 *
 * heap_tlsf.c - a FreeRTOS heap (the portable.h memory API) on a TLSF heap.
 *
 * A drop-in replacement for heap_4.c or heap_5.c: build this file instead of one of them
 * (see README.md). What changes for the application is the allocator's timing: where
 * heap_4 walks its free list first-fit (time grows with the number of free blocks),
 * pvPortMalloc and vPortFree here are O(1) - a few dozen instructions whatever the heap
 * holds - so the time the scheduler stays suspended for an allocation is bounded.
 *
 * Memory, as the two heaps it replaces provide it:
 *   - heap_4 style: when configTOTAL_HEAP_SIZE is defined, a static array ucHeap of that
 *     size (or the application's own ucHeap with configAPPLICATION_ALLOCATED_HEAP = 1)
 *     becomes the heap at the first allocation, unless regions were defined before.
 *   - heap_5 style: vPortDefineHeapRegions(regions) before the first allocation makes the
 *     listed regions the heap (any order; they must not overlap). TLSF can grow, so a
 *     later call adds its regions to the existing heap as further pools.
 * The TLSF control structure (tlsf_size() bytes) lives at the start of the first region
 * (or of ucHeap), as heap_4's own bookkeeping lives in its array.
 *
 * Locking: every entry point runs under one tlsf_lock_t (tlsf_lock.h), the same lock type
 * the C and C++ layers use. By default it suspends the scheduler (vTaskSuspendAll /
 * xTaskResumeAll), as heap_4 does: tasks may allocate, interrupt handlers must not. With
 * configTLSF_HEAP_LOCK_MASKS_INTERRUPTS = 1 it masks interrupts up to
 * configMAX_SYSCALL_INTERRUPT_PRIORITY instead (portSET_INTERRUPT_MASK_FROM_ISR), so
 * handlers at or below that priority may call pvPortMalloc/vPortFree too; the mask is held
 * for the O(1) operation only (vPortGetHeapStats and xPortCheckHeap walk the heap and
 * hold it longer).
 *
 * Bookkeeping, in heap_4's units: a block counts with its header (its span,
 * tlsf_block_size + tlsf_alloc_overhead), a pool counts the bytes it provides for blocks,
 * so xPortGetFreeHeapSize() is the sum of the free blocks' spans, exactly. With the core's
 * statistics (TLSF_STATS = 1, the default) the counts are the TLSF heap's own, so every
 * block counts, whoever allocated it: pvPortMalloc, newlib's malloc (newlib_malloc.c), the
 * C++ default heap adopting this heap (tlsf_freertos.cpp), or C code calling the heap
 * under pxPortGetHeapLock(). With TLSF_STATS = 0 this file counts its own calls only.
 *
 * No memory: without configTOTAL_HEAP_SIZE, an allocation before vPortDefineHeapRegions
 * fails configASSERT (as heap_5's does) and returns NULL.
 */

#include <stdint.h>
#include <string.h>

/* Keeps task.h from redirecting the calls below to the MPU wrappers, as the kernel's own
 * heaps do: this file is part of the kernel. */
#define MPU_WRAPPERS_INCLUDED_FROM_API_FILE
#include "FreeRTOS.h"
#include "task.h"
#undef MPU_WRAPPERS_INCLUDED_FROM_API_FILE

#include "heap_tlsf.h"
#include "tlsf.h"
#include "tlsf_lock.h"

/* configTLSF_HEAP_TRACE = 1: vPortSetHeapTrace records every call (docs/trace.md). */
#if defined(configTLSF_HEAP_TRACE) && (configTLSF_HEAP_TRACE == 1)
#define heapTLSF_TRACE(call) call
static tlsf_trace_t *heap_trace;
#else
#define heapTLSF_TRACE(call)
#endif

#if (configSUPPORT_DYNAMIC_ALLOCATION == 0)
#error heap_tlsf.c is a dynamic allocator: it needs configSUPPORT_DYNAMIC_ALLOCATION = 1
#endif

/* ---- Configuration (FreeRTOSConfig.h may set these) ------------------------------------ */

/* 1: lock by masking interrupts (ISR-callable heap); 0: suspend the scheduler (default). */
#ifndef configTLSF_HEAP_LOCK_MASKS_INTERRUPTS
#define configTLSF_HEAP_LOCK_MASKS_INTERRUPTS 0
#endif

/* How many pools the heap can hold (regions plus ucHeap): vPortGetHeapStats and
 * xPortCheckHeap walk them. A region beyond this is not added (configASSERT fails). */
#ifndef configTLSF_MAX_HEAP_REGIONS
#define configTLSF_MAX_HEAP_REGIONS 8
#endif

#if (configTLSF_HEAP_LOCK_MASKS_INTERRUPTS == 1) && (portHAS_NESTED_INTERRUPTS == 0)
#error configTLSF_HEAP_LOCK_MASKS_INTERRUPTS needs a port with portSET_INTERRUPT_MASK_FROM_ISR
#endif

/* Kernel versions that declare the newer heap functions in portable.h. */
#define heapTLSF_KERNEL_AT_LEAST(major, minor)                                                     \
    ((tskKERNEL_VERSION_MAJOR > (major)) ||                                                        \
     ((tskKERNEL_VERSION_MAJOR == (major)) && (tskKERNEL_VERSION_MINOR >= (minor))))

/* ---- The default memory: heap_4's ucHeap ---------------------------------------------- */

#if defined(configTOTAL_HEAP_SIZE)
#define heapTLSF_HAVE_UCHEAP 1
#if (configAPPLICATION_ALLOCATED_HEAP == 1)
extern uint8_t ucHeap[configTOTAL_HEAP_SIZE];
#else
PRIVILEGED_DATA static uint8_t ucHeap[configTOTAL_HEAP_SIZE];
#endif
#else
#define heapTLSF_HAVE_UCHEAP 0
#endif

/* ---- State ------------------------------------------------------------------------------- */

/* 1: this file counts the bytes and calls itself (the core keeps no statistics). */
#if TLSF_STATS
#define heapTLSF_OWN_COUNTS 0
#else
#define heapTLSF_OWN_COUNTS 1
#endif

/* The counts FreeRTOS asks for. Invariants, whenever the lock is free:
 *   free_bytes == sum over pools of the free blocks' spans;
 *   minimum_ever_free_bytes <= free_bytes. */
typedef struct heap_counts {
    size_t free_bytes;
    size_t minimum_ever_free_bytes;
    size_t successful_allocations;
    size_t successful_frees;
} heap_counts_t;

/* Invariant: heap == NULL  <=>  pool_count == 0 (and, with own counts, every count is 0). */
typedef struct heap_state {
    tlsf_t heap;
    pool_t pools[configTLSF_MAX_HEAP_REGIONS];
    size_t pool_count;
#if heapTLSF_OWN_COUNTS
    heap_counts_t counts;
#endif
    /* Set by the error handler: the current call was refused by the heap's checks. */
    BaseType_t misuse_reported;
} heap_state_t;

PRIVILEGED_DATA static heap_state_t state;

/* ---- The lock ---------------------------------------------------------------------------- */

#if (configTLSF_HEAP_LOCK_MASKS_INTERRUPTS == 1)
/* The mask found by the holder of the lock. One variable suffices: while it is held, no
 * other code that could take the lock runs (single core, interrupts masked). */
PRIVILEGED_DATA static UBaseType_t saved_interrupt_mask;

static void mask_interrupts(void *context) {
    UBaseType_t found = portSET_INTERRUPT_MASK_FROM_ISR();
    *(UBaseType_t *)context = found;
}

static void restore_interrupts(void *context) {
    portCLEAR_INTERRUPT_MASK_FROM_ISR(*(UBaseType_t *)context);
}

static const tlsf_lock_t heap_lock = {mask_interrupts, restore_interrupts, &saved_interrupt_mask};
#else
static void suspend_scheduler(void *context) {
    (void)context;
    vTaskSuspendAll();
}

static void resume_scheduler(void *context) {
    (void)context;
    (void)xTaskResumeAll();
}

static const tlsf_lock_t heap_lock = {suspend_scheduler, resume_scheduler, NULL};
#endif

/* ---- Building the heap (under the lock) -------------------------------------------------- */

/* Misuse the heap detected (a double free, a foreign pointer, a region too small): it
 * left itself unchanged. Remember that the call did nothing, and fail configASSERT (the
 * reason is never TLSF_ERROR_NONE here), as heap_4 asserts on a bad vPortFree. Runs
 * under the lock. */
static void report_misuse(tlsf_t heap, tlsf_error_t reason, const void *ptr, void *user) {
    (void)heap;
    (void)ptr;
    (void)user;
    state.misuse_reported = pdTRUE;
    configASSERT(reason == TLSF_ERROR_NONE);
}

/* The span of a block: what it takes from the heap, header included. (Inline: with the
 * core's statistics and no trace macros nothing calls it.) */
static inline size_t block_span(void *block) {
    return tlsf_block_size(block) + tlsf_alloc_overhead();
}

#if heapTLSF_OWN_COUNTS
/* Walker: adds the span of each (free) block to *user. */
static void add_span(void *ptr, size_t size, int used, void *user) {
    (void)ptr;
    if (!used) *(size_t *)user += size + tlsf_alloc_overhead();
}
#endif

/* The counts now. Under the lock. */
static heap_counts_t counts_locked(void) {
#if heapTLSF_OWN_COUNTS
    return state.counts;
#else
    heap_counts_t counts = {0u, 0u, 0u, 0u};
    tlsf_stats_t stats;
    if (state.heap == NULL) return counts;
    tlsf_get_stats(state.heap, &stats);
    counts.free_bytes = stats.free_bytes;
    /* The peak of the used bytes is the low-water mark of the free ones; a pool added
     * later raises both the pool bytes and the mark, as heap_5's regions would. */
    counts.minimum_ever_free_bytes = stats.pool_bytes - stats.peak_used_bytes;
    counts.successful_allocations = stats.alloc_count;
    counts.successful_frees = stats.free_count;
    return counts;
#endif
}

/* The counts, under the lock. */
static heap_counts_t counts_now(void) {
    heap_counts_t counts;
    tlsf_lock_acquire(&heap_lock);
    counts = counts_locked();
    tlsf_lock_release(&heap_lock);
    return counts;
}

/* Round `*start` up to the heap's alignment, shrinking `*bytes` to match. False when
 * nothing is left. */
static BaseType_t align_region(uint8_t **start, size_t *bytes) {
    const uintptr_t mask = (uintptr_t)tlsf_align_size() - 1u;
    const size_t skip = (size_t)((((uintptr_t)*start + mask) & ~mask) - (uintptr_t)*start);
    if (*bytes <= skip) return pdFALSE;
    *start += skip;
    *bytes -= skip;
    return pdTRUE;
}

/* Give `bytes` at `start` to the heap, creating the heap in the region's first bytes if
 * there is none yet. Counts the new pool's bytes as free. */
static void add_region(uint8_t *start, size_t bytes) {
    pool_t pool;

    if (start == NULL || !align_region(&start, &bytes)) {
        configASSERT(pdFALSE); /* a region with no usable byte */
        return;
    }
    if (state.heap == NULL) {
        /* The control structure takes the first tlsf_size() bytes. */
        configASSERT(bytes > tlsf_size());
        if (bytes <= tlsf_size()) return;
        state.heap = tlsf_create(start);
        configASSERT(state.heap != NULL);
        if (state.heap == NULL) return;
        tlsf_set_error_handler(state.heap, report_misuse, NULL);
        start += tlsf_size();
        bytes -= tlsf_size();
    }
    configASSERT(state.pool_count < configTLSF_MAX_HEAP_REGIONS);
    if (state.pool_count >= configTLSF_MAX_HEAP_REGIONS) return;

    /* A region too small for one block, or too large for one pool (beyond
     * tlsf_block_size_max()), is refused and reported to report_misuse. */
    pool = tlsf_add_pool(state.heap, start, bytes);
    if (pool == NULL) return;
    state.pools[state.pool_count++] = pool;
#if heapTLSF_OWN_COUNTS
    {
        size_t pool_free = 0;
        tlsf_walk_pool(pool, add_span, &pool_free);
        state.counts.free_bytes += pool_free;
        state.counts.minimum_ever_free_bytes += pool_free;
    }
#endif
}

/* The heap, built from ucHeap if nothing built it before. NULL if there is no memory. */
static tlsf_t the_heap(void) {
#if heapTLSF_HAVE_UCHEAP
    if (state.heap == NULL) add_region(ucHeap, sizeof ucHeap);
#endif
    return state.heap;
}

/* ---- portable.h -------------------------------------------------------------------------- */

void vPortDefineHeapRegions(const HeapRegion_t *const pxHeapRegions) {
    const HeapRegion_t *region;
    configASSERT(pxHeapRegions != NULL);
    if (pxHeapRegions == NULL) return;
    tlsf_lock_acquire(&heap_lock);
    for (region = pxHeapRegions; region->xSizeInBytes > 0; ++region)
        add_region(region->pucStartAddress, region->xSizeInBytes);
    tlsf_lock_release(&heap_lock);
}

/* A block of at least `bytes`, aligned to portBYTE_ALIGNMENT, or NULL. Under the lock. */
static void *allocate_locked(size_t bytes) {
    void *block = NULL;
    tlsf_t heap = the_heap();
    if (heap == NULL) {
        /* No configTOTAL_HEAP_SIZE and no vPortDefineHeapRegions yet: the heap has no
         * memory at all, which heap_5 reports the same way. */
        configASSERT(heap != NULL);
        return NULL;
    }
    block = portBYTE_ALIGNMENT > tlsf_align_size() ? tlsf_memalign(heap, portBYTE_ALIGNMENT, bytes)
                                                   : tlsf_malloc(heap, bytes);
#if heapTLSF_OWN_COUNTS
    if (block != NULL) {
        state.counts.free_bytes -= block_span(block);
        if (state.counts.free_bytes < state.counts.minimum_ever_free_bytes)
            state.counts.minimum_ever_free_bytes = state.counts.free_bytes;
        ++state.counts.successful_allocations;
    }
#endif
    return block;
}

#if defined(configHEAP_CLEAR_MEMORY_ON_FREE) && (configHEAP_CLEAR_MEMORY_ON_FREE == 1)
/*
 * configHEAP_CLEAR_MEMORY_ON_FREE: zero a block's bytes before it is freed, except the
 * words a free block keeps (tlsf_config.h, TLSF_FILL): its two list links at the start and
 * its last word. Those are left alone so that clearing a block that is already free (a
 * double free, which tlsf_free then rejects) cannot break the heap's links. Once the block
 * is free, they hold the heap's own links - unless it merged with a free neighbour, in
 * which case up to three words of old data stay until the memory is reused.
 */
static void clear_block_contents(void *block, size_t usable) {
    const size_t word = sizeof(void *);
    if (usable > 3u * word) (void)memset((uint8_t *)block + 2u * word, 0, usable - 3u * word);
}
#endif

/*
 * pvPortMalloc: a block of at least xWantedSize bytes aligned to portBYTE_ALIGNMENT, or
 * NULL (then, with configUSE_MALLOC_FAILED_HOOK = 1, vApplicationMallocFailedHook runs,
 * outside the lock). xWantedSize == 0 returns NULL, as heap_4 does. O(1).
 */
void *pvPortMalloc(size_t xWantedSize) {
    void *block = NULL;
    tlsf_lock_acquire(&heap_lock);
    if (xWantedSize > 0) block = allocate_locked(xWantedSize);
    heapTLSF_TRACE(tlsf_trace_malloc(heap_trace, xWantedSize, block));
    traceMALLOC(block, block != NULL ? block_span(block) : 0u);
    tlsf_lock_release(&heap_lock);
#if (configUSE_MALLOC_FAILED_HOOK == 1)
    if (block == NULL) vApplicationMallocFailedHook();
#endif
    configASSERT(((uintptr_t)block & (uintptr_t)portBYTE_ALIGNMENT_MASK) == 0u);
    return block;
}

/*
 * pvPortCalloc: xNum * xSize zeroed bytes, or NULL if the product overflows or the
 * allocation fails (the hook as for pvPortMalloc). The zeroing runs outside the lock.
 */
void *pvPortCalloc(size_t xNum, size_t xSize) {
    void *block;
    if (xSize != 0u && xNum > SIZE_MAX / xSize) {
#if (configUSE_MALLOC_FAILED_HOOK == 1)
        vApplicationMallocFailedHook();
#endif
        return NULL;
    }
    block = pvPortMalloc(xNum * xSize);
    if (block != NULL) (void)memset(block, 0, xNum * xSize);
    return block;
}

/*
 * vPortFree: return a block from pvPortMalloc. NULL is ignored. A pointer the heap's
 * checks reject (a double free, a misaligned or foreign pointer; see TLSF_CHECKS) fails
 * configASSERT and otherwise changes nothing. With configHEAP_CLEAR_MEMORY_ON_FREE = 1
 * the block's bytes are zeroed first (see clear_block_contents). O(1) (plus the clearing).
 */
void vPortFree(void *pv) {
    size_t span;
    if (pv == NULL) return;
    configASSERT(state.heap != NULL); /* no heap yet: pv cannot come from pvPortMalloc */
    if (state.heap == NULL) return;
    tlsf_lock_acquire(&heap_lock);
    state.misuse_reported = pdFALSE;
    /* The checked size first: nothing is read through, or cleared at, a pointer the heap
     * refuses (it is reported once, here, and tlsf_free is not called). */
    span = tlsf_usable_size(state.heap, pv) + tlsf_alloc_overhead();
    if (state.misuse_reported == pdFALSE) {
#if defined(configHEAP_CLEAR_MEMORY_ON_FREE) && (configHEAP_CLEAR_MEMORY_ON_FREE == 1)
        clear_block_contents(pv, span - tlsf_alloc_overhead());
#endif
        heapTLSF_TRACE(tlsf_trace_free(heap_trace, pv));
        tlsf_free(state.heap, pv);
#if heapTLSF_OWN_COUNTS
        state.counts.free_bytes += span;
        ++state.counts.successful_frees;
#endif
        traceFREE(pv, span);
        (void)span; /* for the trace macro and the own counts, which may both be absent */
    }
    tlsf_lock_release(&heap_lock);
}

#if defined(configTLSF_HEAP_TRACE) && (configTLSF_HEAP_TRACE == 1)
void vPortSetHeapTrace(tlsf_trace_t *pxRecorder) {
    tlsf_lock_acquire(&heap_lock);
    heap_trace = pxRecorder;
    tlsf_lock_release(&heap_lock);
}
#endif

/* The sum of the free blocks' spans. Takes the lock (with the core's statistics: their
 * fields must be read together). */
size_t xPortGetFreeHeapSize(void) {
    return counts_now().free_bytes;
}

size_t xPortGetMinimumEverFreeHeapSize(void) {
    return counts_now().minimum_ever_free_bytes;
}

#if heapTLSF_KERNEL_AT_LEAST(11, 0)
void xPortResetHeapMinimumEverFreeHeapSize(void) {
    tlsf_lock_acquire(&heap_lock);
#if heapTLSF_OWN_COUNTS
    state.counts.minimum_ever_free_bytes = state.counts.free_bytes;
#else
    if (state.heap != NULL) tlsf_reset_peak(state.heap);
#endif
    tlsf_lock_release(&heap_lock);
}
#endif

/* Nothing to initialise: the heap is built on first use. Kept for the linker, as in heap_4. */
void vPortInitialiseBlocks(void) {
}

#if heapTLSF_KERNEL_AT_LEAST(11, 1)
/* Forget the heap and every count, so that the next allocation starts afresh in ucHeap
 * (for applications that restart the scheduler; with regions, call
 * vPortDefineHeapRegions again first). No block may be in use by then. */
void vPortHeapResetState(void) {
    (void)memset(&state, 0, sizeof state);
}
#endif

/* Walker for vPortGetHeapStats: the free blocks' count, sum, largest and smallest span. */
typedef struct free_block_census {
    size_t count;
    size_t total;
    size_t largest;
    size_t smallest;
} free_block_census_t;

static void count_free_block(void *ptr, size_t size, int used, void *user) {
    free_block_census_t *census = (free_block_census_t *)user;
    const size_t span = size + tlsf_alloc_overhead();
    (void)ptr;
    if (used) return;
    ++census->count;
    census->total += span;
    if (span > census->largest) census->largest = span;
    if (census->smallest == 0u || span < census->smallest) census->smallest = span;
}

/*
 * vPortGetHeapStats: every HeapStats_t field, from a walk of the pools (block sizes are
 * spans, header included, as heap_4 reports them; the smallest is 0 when no block is
 * free). Linear in the number of blocks, with the lock held, as heap_4's walk of its free
 * list is. Flushes the core's front cache first, if it is compiled in.
 */
void vPortGetHeapStats(HeapStats_t *pxHeapStats) {
    free_block_census_t census = {0u, 0u, 0u, 0u};
    heap_counts_t counts;
    size_t i;
    configASSERT(pxHeapStats != NULL);
    if (pxHeapStats == NULL) return;
    tlsf_lock_acquire(&heap_lock);
    /* A block in the core's front cache (TLSF_CACHE) is free to the port's counts but a
     * block in use to the walk: give the cache back to the lists first (bounded). */
    tlsf_cache_flush(state.heap);
    for (i = 0; i < state.pool_count; ++i)
        tlsf_walk_pool(state.pools[i], count_free_block, &census);
    pxHeapStats->xAvailableHeapSpaceInBytes = census.total;
    pxHeapStats->xSizeOfLargestFreeBlockInBytes = census.largest;
    pxHeapStats->xSizeOfSmallestFreeBlockInBytes = census.smallest;
    pxHeapStats->xNumberOfFreeBlocks = census.count;
    counts = counts_locked();
    pxHeapStats->xMinimumEverFreeBytesRemaining = counts.minimum_ever_free_bytes;
    pxHeapStats->xNumberOfSuccessfulAllocations = counts.successful_allocations;
    pxHeapStats->xNumberOfSuccessfulFrees = counts.successful_frees;
    tlsf_lock_release(&heap_lock);
}

/* ---- heap_tlsf.h ------------------------------------------------------------------------- */

/* Builds the heap in ucHeap if nothing built it yet, as the first allocation would. */
tlsf_t pxPortGetTlsfHeap(void) {
    tlsf_t heap = state.heap; /* set once: read without the lock when it is there */
    if (heap != NULL) return heap;
    tlsf_lock_acquire(&heap_lock);
    heap = the_heap();
    tlsf_lock_release(&heap_lock);
    return heap;
}

const tlsf_lock_t *pxPortGetHeapLock(void) {
    return &heap_lock;
}

size_t xPortGetLargestAllocatableSize(void) {
    return tlsf_locked_largest_allocatable(&heap_lock, state.heap);
}

size_t xPortCheckHeap(void) {
    size_t failures = 0;
    size_t i;
    tlsf_lock_acquire(&heap_lock);
    if (state.heap != NULL) {
        failures += (size_t)tlsf_check(state.heap);
        for (i = 0; i < state.pool_count; ++i)
            failures += (size_t)tlsf_check_pool(state.pools[i]);
    }
    tlsf_lock_release(&heap_lock);
    return failures;
}
