// SPDX-License-Identifier: MIT
//
// tlsf_freertos.cpp - the C++ default heap is the FreeRTOS heap: one heap for C and C++.
//
// Compiled with TLSF_DEFAULT_HEAP_ADOPT=1 (<tlsf/config.hpp>), as is every translation unit
// of the program that includes a tlsf C++ header - the CMake target tlsf::freertos_cpp puts
// the definition on its consumers. The default heap (tlsf::default_heap(): the global
// operator new and delete of <tlsf/global_new.hpp>, a default tlsf::allocator, a default
// tlsf::memory_resource) then adopts the port's TLSF heap and takes the port's lock around
// each operation, so C++ blocks and pvPortMalloc blocks share the memory, the lock and the
// statistics (xPortGetFreeHeapSize, vPortGetHeapStats: the port reads the core's counts).
#include "FreeRTOS.h"

#include "heap_tlsf.h"

#include <tlsf/default_heap.hpp>

#if !TLSF_DEFAULT_HEAP_ADOPT
#error                                                                                             \
    "tlsf_freertos.cpp needs TLSF_DEFAULT_HEAP_ADOPT=1 on the whole program (tlsf::freertos_cpp sets it)"
#endif
#if !TLSF_STATS
#error                                                                                             \
    "tlsf_freertos.cpp needs TLSF_STATS=1: the port counts the C++ blocks through the core's statistics"
#endif

// The port's heap and lock. pxPortGetTlsfHeap() builds the heap in ucHeap on the first
// call (configTOTAL_HEAP_SIZE), so the first C++ allocation may come before any
// pvPortMalloc - from a static constructor, say. Without ucHeap (heap_5 style) the regions
// must be defined before the first allocation, C++ or C: an allocation before then fails
// configASSERT here, as pvPortMalloc does, and (if the assertion returns) fails as out of
// memory; the default heap asks again at its next use.
tlsf::adopted_heap tlsf::default_heap_adopt() noexcept {
    tlsf_t heap = pxPortGetTlsfHeap();
    configASSERT(heap != nullptr);
    return adopted_heap{heap, lock_hooks{*pxPortGetHeapLock()}};
}
