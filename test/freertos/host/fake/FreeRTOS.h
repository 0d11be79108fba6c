/*
 * SPDX-License-Identifier: MIT
 *
 * fake/FreeRTOS.h - just enough of the FreeRTOS kernel's headers for heap_tlsf.c to build
 * on the host, with every kernel call it makes recorded (fake_kernel.h), so that the
 * GoogleTest suite can check the port's locking, hooks, trace calls and assertions. The
 * names and types follow FreeRTOS's portable.h; the behaviour is the test's.
 */
#ifndef FAKE_FREERTOS_H
#define FAKE_FREERTOS_H

#include <stddef.h>
#include <stdint.h>

#include "fake_kernel.h"

typedef long BaseType_t;
typedef unsigned long UBaseType_t;
#define pdFALSE ((BaseType_t)0)
#define pdTRUE ((BaseType_t)1)

#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configAPPLICATION_ALLOCATED_HEAP 0
#define configUSE_MALLOC_FAILED_HOOK 1
/* heap_4 style, unless a test builds the port without any memory (heap_5 style, before
 * vPortDefineHeapRegions: no_heap_test.cpp). */
#ifndef FAKE_NO_UCHEAP
#define configTOTAL_HEAP_SIZE (64 * 1024)
#endif
#define configTLSF_MAX_HEAP_REGIONS 4
#define configHEAP_CLEAR_MEMORY_ON_FREE 1
#define portBYTE_ALIGNMENT 8
#define portBYTE_ALIGNMENT_MASK 0x0007
#define PRIVILEGED_DATA
#define PRIVILEGED_FUNCTION

/* The interrupt mask: a counter of the masking depth; the "mask" is that depth. */
#define portHAS_NESTED_INTERRUPTS 1
#define portSET_INTERRUPT_MASK_FROM_ISR() fake_set_interrupt_mask()
#define portCLEAR_INTERRUPT_MASK_FROM_ISR(saved) fake_clear_interrupt_mask(saved)

#define configASSERT(x)                                                                            \
    if (!(x)) fake_assert_failed(__LINE__)
#define traceMALLOC(address, size) fake_trace_malloc((address), (size))
#define traceFREE(address, size) fake_trace_free((address), (size))

typedef struct HeapRegion {
    uint8_t *pucStartAddress;
    size_t xSizeInBytes;
} HeapRegion_t;

typedef struct xHeapStats {
    size_t xAvailableHeapSpaceInBytes;
    size_t xSizeOfLargestFreeBlockInBytes;
    size_t xSizeOfSmallestFreeBlockInBytes;
    size_t xNumberOfFreeBlocks;
    size_t xMinimumEverFreeBytesRemaining;
    size_t xNumberOfSuccessfulAllocations;
    size_t xNumberOfSuccessfulFrees;
} HeapStats_t;

#ifdef __cplusplus
extern "C" {
#endif
void vPortDefineHeapRegions(const HeapRegion_t *const pxHeapRegions);
void vPortGetHeapStats(HeapStats_t *pxHeapStats);
void *pvPortMalloc(size_t xWantedSize);
void *pvPortCalloc(size_t xNum, size_t xSize);
void vPortFree(void *pv);
void vPortInitialiseBlocks(void);
size_t xPortGetFreeHeapSize(void);
size_t xPortGetMinimumEverFreeHeapSize(void);
void xPortResetHeapMinimumEverFreeHeapSize(void);
void vPortHeapResetState(void);
void vApplicationMallocFailedHook(void);
#ifdef __cplusplus
}
#endif

#endif /* FAKE_FREERTOS_H */
