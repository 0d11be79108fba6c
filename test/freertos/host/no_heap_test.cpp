// SPDX-License-Identifier: MIT
//
// no_heap_test.cpp - heap_tlsf.c built without configTOTAL_HEAP_SIZE (heap_5 style), used
// before vPortDefineHeapRegions: the heap has no memory at all, and an allocation fails
// configASSERT, as heap_5's does, instead of failing quietly into the malloc-failed hook.
#include <gtest/gtest.h>

#include <cstdint>

#include "FreeRTOS.h"
#include "heap_tlsf.h"

#ifdef configTOTAL_HEAP_SIZE
#error "no_heap_test.cpp is built with FAKE_NO_UCHEAP: no configTOTAL_HEAP_SIZE"
#endif

namespace {

alignas(64) std::uint8_t region[32 * 1024];

TEST(PortWithoutMemory, AllocationBeforeTheRegionsFailsTheAssertion) {
    vPortHeapResetState();
    fake_kernel = fake_kernel_log_t{};
    EXPECT_EQ(pxPortGetTlsfHeap(), nullptr); // nothing to build it in: a query, no assertion
    EXPECT_EQ(fake_kernel.assert_failures, 0u);

    EXPECT_EQ(pvPortMalloc(16), nullptr);
    EXPECT_EQ(fake_kernel.assert_failures, 1u);
    EXPECT_EQ(fake_kernel.hook_calls, 1u); // and the hook still runs, outside the lock
    EXPECT_EQ(fake_kernel.hook_lock_depth, 0);
    EXPECT_EQ(pvPortCalloc(4, 4), nullptr);
    EXPECT_EQ(fake_kernel.assert_failures, 2u);
    EXPECT_EQ(pvPortMalloc(0), nullptr); // zero asks for nothing: no assertion, as before
    EXPECT_EQ(fake_kernel.assert_failures, 2u);
    EXPECT_EQ(fake_kernel.locks, fake_kernel.unlocks);
    EXPECT_EQ(fake_kernel.lock_depth, 0);
    EXPECT_EQ(xPortGetFreeHeapSize(), 0u);

    // Once the regions are defined, the same calls succeed without an assertion.
    const HeapRegion_t regions[] = {{region, sizeof region}, {nullptr, 0}};
    vPortDefineHeapRegions(regions);
    ASSERT_NE(pxPortGetTlsfHeap(), nullptr);
    void *block = pvPortMalloc(16);
    EXPECT_NE(block, nullptr);
    vPortFree(block);
    EXPECT_EQ(fake_kernel.assert_failures, 2u);
    EXPECT_EQ(xPortCheckHeap(), 0u);
    vPortHeapResetState();
}

} // namespace
