// SPDX-License-Identifier: MIT
//
// cpp_share_test.cpp - the C++ default heap adopting the FreeRTOS port's heap
// (ports/freertos/tlsf_freertos.cpp, TLSF_DEFAULT_HEAP_ADOPT=1) on the host, against the
// recording fake kernel: the default heap is the port's TLSF heap, every C++ operation
// takes the port's lock exactly once, C and C++ blocks share the port's statistics and may
// be freed by either side, and misuse reaches the port's own error handler (configASSERT).
// Built with both port locks, as port_test.cpp. The global operator new is not replaced
// here (GoogleTest's own allocations stay on the C library); the firmware test on QEMU
// covers it (test/freertos/firmware).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory_resource>
#include <new>

#include "FreeRTOS.h"
#include "heap_tlsf.h"

#include <tlsf/allocator.hpp>
#include <tlsf/containers.hpp>
#include <tlsf/default_heap.hpp>
#include <tlsf/memory_resource.hpp>

static_assert(TLSF_DEFAULT_HEAP_ADOPT == 1, "built with TLSF_DEFAULT_HEAP_ADOPT=1");
static_assert(TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_ADOPTED, "the adopted heap's lock");

namespace {

class Shared : public ::testing::Test {
  protected:
    // One heap for the whole program (the default heap adopts it once): each test leaves
    // it as it found it, and starts with fresh kernel records.
    Shared() : free_at_start_((tlsf::default_heap(), xPortGetFreeHeapSize())) {
        fake_kernel = fake_kernel_log_t{};
    }
    ~Shared() override {
        EXPECT_EQ(xPortGetFreeHeapSize(), free_at_start_);
        EXPECT_EQ(xPortCheckHeap(), 0u);
    }

    static ::testing::AssertionResult Balanced() {
        if (fake_kernel.locks != fake_kernel.unlocks || fake_kernel.lock_depth != 0 ||
            fake_kernel.max_lock_depth > 1)
            return ::testing::AssertionFailure()
                   << "locks " << fake_kernel.locks << ", unlocks " << fake_kernel.unlocks
                   << ", depth " << fake_kernel.lock_depth << ", max "
                   << fake_kernel.max_lock_depth;
        return ::testing::AssertionSuccess();
    }
    static std::size_t Span(void *block) { return tlsf_block_size(block) + tlsf_alloc_overhead(); }
    static HeapStats_t Stats() {
        HeapStats_t stats{};
        vPortGetHeapStats(&stats);
        return stats;
    }

  private:
    std::size_t free_at_start_;
};

TEST_F(Shared, TheDefaultHeapIsThePortsHeapUnderThePortsLock) {
    tlsf::heap &heap = tlsf::default_heap();
    ASSERT_TRUE(heap);
    EXPECT_TRUE(heap.adopted());
    EXPECT_EQ(heap.native_handle(), pxPortGetTlsfHeap());
    const tlsf_lock_t *port_lock = pxPortGetHeapLock();
    EXPECT_EQ(heap.get_lock().lock, port_lock->lock);
    EXPECT_EQ(heap.get_lock().unlock, port_lock->unlock);
    EXPECT_EQ(heap.get_lock().context, port_lock->context);
    EXPECT_EQ(&tlsf::default_heap(), &heap); // built once
    EXPECT_EQ(fake_kernel.assert_failures, 0u);
}

TEST_F(Shared, EachCppOperationTakesThePortsLockOnce) {
    tlsf::allocator<std::uint32_t> allocator;
    tlsf::memory_resource resource;
    fake_kernel = fake_kernel_log_t{};
    std::uint32_t *numbers = allocator.allocate(10); // the inline fast path
    EXPECT_EQ(fake_kernel.locks, 1u);
    allocator.deallocate(numbers, 10);
    EXPECT_EQ(fake_kernel.locks, 2u);
    void *aligned = resource.allocate(100, 64); // memalign, through the heap's hooks
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned) % 64u, 0u);
    EXPECT_EQ(fake_kernel.locks, 3u);
    resource.deallocate(aligned, 100, 64);
    EXPECT_EQ(fake_kernel.locks, 4u);
    void *block = tlsf::default_heap().malloc(24);
    tlsf::default_heap().free(block);
    EXPECT_EQ(fake_kernel.locks, 6u);
    EXPECT_TRUE(Balanced()); // never nested: the port's lock is taken once per operation
}

TEST_F(Shared, CAndCppBlocksShareTheStatistics) {
    const std::size_t free_before = xPortGetFreeHeapSize();
    const HeapStats_t before = Stats();
    void *from_cpp = tlsf::allocator<char>{}.allocate(300);
    void *from_c = pvPortMalloc(200);
    ASSERT_NE(from_c, nullptr);
    EXPECT_EQ(xPortGetFreeHeapSize(), free_before - Span(from_cpp) - Span(from_c));
    const HeapStats_t during = Stats();
    EXPECT_EQ(during.xNumberOfSuccessfulAllocations, before.xNumberOfSuccessfulAllocations + 2u);
    EXPECT_EQ(during.xAvailableHeapSpaceInBytes, xPortGetFreeHeapSize());
    EXPECT_EQ(tlsf::default_heap().stats().free_bytes, xPortGetFreeHeapSize());
    EXPECT_EQ(tlsf::default_heap().stats().live_blocks,
              during.xNumberOfSuccessfulAllocations - during.xNumberOfSuccessfulFrees);
    // Either side frees the other's block.
    vPortFree(from_cpp);
    tlsf::default_heap().free(from_c);
    EXPECT_EQ(xPortGetFreeHeapSize(), free_before);
    EXPECT_EQ(Stats().xNumberOfSuccessfulFrees, before.xNumberOfSuccessfulFrees + 2u);
    EXPECT_TRUE(tlsf::default_heap().check());
    EXPECT_EQ(fake_kernel.assert_failures, 0u);
    EXPECT_TRUE(Balanced());
}

TEST_F(Shared, ContainersOnEveryCppPathLiveInThePortsHeap) {
    const std::size_t free_before = xPortGetFreeHeapSize();
    tlsf::memory_resource resource;
    {
        tlsf::map<int, tlsf::vector<int>> squares;
        std::pmr::map<int, std::pmr::vector<int>> cubes{&resource};
        for (int i = 0; i < 50; ++i) {
            squares[i].assign(3, i * i);
            cubes[i].assign(3, i * i * i);
        }
        EXPECT_LT(xPortGetFreeHeapSize(), free_before - 200u * tlsf_alloc_overhead());
        EXPECT_EQ(squares.at(7).at(2), 49);
        EXPECT_EQ(cubes.at(3).at(1), 27);
    }
    EXPECT_EQ(xPortGetFreeHeapSize(), free_before);
    EXPECT_TRUE(Balanced());
}

TEST_F(Shared, OutOfMemoryThrowsAndLeavesTheHeapAlone) {
    const std::size_t free_before = xPortGetFreeHeapSize();
    tlsf::allocator<char> allocator;
    EXPECT_THROW((void)allocator.allocate(xPortGetLargestAllocatableSize() + 1u), std::bad_alloc);
    EXPECT_EQ(xPortGetFreeHeapSize(), free_before);
    EXPECT_FALSE(tlsf::default_heap().grow(64)); // no pool source: the port owns the memory
    EXPECT_TRUE(Balanced());
}

TEST_F(Shared, MisuseReachesThePortsErrorHandler) {
    if (TLSF_CHECKS < 1) GTEST_SKIP() << "TLSF_CHECKS == 0: a double free is not detected";
    void *block = tlsf::default_heap().malloc(48);
    tlsf::default_heap().free(block);
    tlsf::default_heap().free(block); // the port's handler: configASSERT, nothing changed
    EXPECT_EQ(fake_kernel.assert_failures, 1u);
    EXPECT_TRUE(Balanced());
}

} // namespace
