/*
 * SPDX-License-Identifier: MIT
 *
 * heap_tlsf.h - what the TLSF heap port adds to FreeRTOS's own heap API (portable.h).
 *
 * heap_tlsf.c implements every function portable.h declares for a heap (pvPortMalloc,
 * vPortFree, pvPortCalloc, vPortDefineHeapRegions, vPortGetHeapStats, ...). Those need no
 * header but FreeRTOS.h. This header is only for code that wants more: the TLSF heap
 * itself and its lock (to share them: the C++ default heap adopts them in
 * tlsf_freertos.cpp, newlib's malloc uses them in newlib_malloc.c), an O(1) "largest
 * request that will succeed", and a consistency check for tests and debug builds.
 *
 * Include after FreeRTOS.h.
 */
#ifndef HEAP_TLSF_H
#define HEAP_TLSF_H

#include <stddef.h>

#include "tlsf.h"
#include "tlsf_lock.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * pxPortGetTlsfHeap: the TLSF heap behind pvPortMalloc. If no heap exists yet it is built
 * in ucHeap (configTOTAL_HEAP_SIZE), as the first allocation would build it; NULL only
 * when there is no memory yet (no configTOTAL_HEAP_SIZE, vPortDefineHeapRegions not
 * called) or after vPortHeapResetState until the next allocation. Calls on the heap must
 * hold pxPortGetHeapLock(), e.g. through the tlsf_locked_* wrappers; blocks allocated so
 * may be freed with vPortFree and the other way round, and with the core's statistics
 * (TLSF_STATS = 1) xPortGetFreeHeapSize() and vPortGetHeapStats() count them too. Takes
 * the lock only to build the heap, so call it from where pvPortMalloc may be called.
 */
tlsf_t pxPortGetTlsfHeap(void);

/*
 * pxPortGetHeapLock: the lock pvPortMalloc and vPortFree take (the scheduler suspended by
 * default; interrupts masked with configTLSF_HEAP_LOCK_MASKS_INTERRUPTS = 1). Never NULL.
 * Code that calls the TLSF heap directly takes this lock, so it excludes the port's calls.
 */
const tlsf_lock_t *pxPortGetHeapLock(void);

/*
 * xPortGetLargestAllocatableSize: the largest xWantedSize for which pvPortMalloc would
 * succeed now (tlsf_largest_allocatable, O(1)); 0 before the heap exists. Unlike
 * HeapStats_t's xSizeOfLargestFreeBlockInBytes this accounts for the block header and
 * TLSF's size-class rounding, so it is the figure to compare a request with.
 */
size_t xPortGetLargestAllocatableSize(void);

/*
 * xPortCheckHeap: tlsf_check on the heap and tlsf_check_pool on each of its pools, under
 * the heap's lock. Returns 0 when every check holds (or before the heap exists), otherwise
 * the number of failed checks. Linear in the number of blocks: for tests and debug
 * builds, not for real-time paths (the lock is held throughout).
 */
size_t xPortCheckHeap(void);

#if defined(configTLSF_HEAP_TRACE) && (configTLSF_HEAP_TRACE == 1)
#include "tlsf_trace.h"
/*
 * vPortSetHeapTrace (configTLSF_HEAP_TRACE = 1): record every later pvPortMalloc (a
 * pvPortCalloc as the malloc it makes) and vPortFree with `pxRecorder` (NULL: stop), under
 * the heap's lock, so the records keep the calls' order (docs/trace.md). The recorder's sink
 * then runs inside the lock: with the scheduler suspended it may poll a UART but must not
 * wait for a task. Blocks allocated before are left out of the trace.
 */
void vPortSetHeapTrace(tlsf_trace_t *pxRecorder);
#endif

#ifdef __cplusplus
}
#endif

#endif /* HEAP_TLSF_H */
