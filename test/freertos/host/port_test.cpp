// SPDX-License-Identifier: MIT
//
// port_test.cpp - heap_tlsf.c on the host, against the recording fake kernel (fake/): the
// paths the firmware cannot provoke without stopping - misuse caught by configASSERT, bad
// regions, too many regions - and exact bookkeeping: every call takes the lock once and
// releases it, the hook runs outside the lock, the trace macros see the block and its
// span under the lock, the byte counts equal the TLSF heap's own statistics and the
// HeapStats_t walk. Built twice: with the scheduler-suspending lock and with
// configTLSF_HEAP_LOCK_MASKS_INTERRUPTS = 1 (the fake checks the saved mask is restored).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "FreeRTOS.h"
#include "heap_tlsf.h"

namespace {

class Port : public ::testing::Test {
  protected:
    Port() {
        vPortHeapResetState();
        fake_kernel = fake_kernel_log_t{};
    }
    ~Port() override { vPortHeapResetState(); }

    // Lock taken and released the same number of times, never nested, free now.
    static ::testing::AssertionResult Balanced() {
        if (fake_kernel.locks != fake_kernel.unlocks || fake_kernel.lock_depth != 0 ||
            fake_kernel.max_lock_depth > 1)
            return ::testing::AssertionFailure()
                   << "locks " << fake_kernel.locks << ", unlocks " << fake_kernel.unlocks
                   << ", depth " << fake_kernel.lock_depth << ", max "
                   << fake_kernel.max_lock_depth;
        return ::testing::AssertionSuccess();
    }
    static tlsf_stats_t CoreStats() {
        tlsf_stats_t stats{};
        tlsf_get_stats(pxPortGetTlsfHeap(), &stats);
        return stats;
    }
    static HeapStats_t Stats() {
        HeapStats_t stats;
        std::memset(&stats, 0xAB, sizeof stats);
        vPortGetHeapStats(&stats);
        return stats;
    }
    static std::size_t Span(void *block) { return tlsf_block_size(block) + tlsf_alloc_overhead(); }
};

TEST_F(Port, FirstAllocationBuildsTheHeapInUcHeap) {
    EXPECT_EQ(xPortGetFreeHeapSize(), 0u); // no heap yet
    EXPECT_EQ(xPortGetLargestAllocatableSize(), 0u);
    void *block = pvPortMalloc(100);
    ASSERT_NE(block, nullptr);
    ASSERT_NE(pxPortGetTlsfHeap(), nullptr);
    EXPECT_EQ(CoreStats().pool_count, 1u);
    // ucHeap less the control structure and the pool's own overhead.
    EXPECT_LT(CoreStats().pool_bytes, std::size_t{configTOTAL_HEAP_SIZE} - tlsf_size());
    EXPECT_GT(CoreStats().pool_bytes, std::size_t{configTOTAL_HEAP_SIZE} - tlsf_size() - 64u);
    EXPECT_EQ(xPortGetFreeHeapSize(), CoreStats().pool_bytes - Span(block));
    vPortFree(block);
    EXPECT_EQ(xPortGetFreeHeapSize(), CoreStats().pool_bytes);
    EXPECT_TRUE(Balanced());
    EXPECT_EQ(fake_kernel.assert_failures, 0u);
}

TEST_F(Port, AskingForTheTlsfHeapBuildsItInUcHeapLikeAnAllocation) {
    tlsf_t heap = pxPortGetTlsfHeap();
    ASSERT_NE(heap, nullptr);
    EXPECT_EQ(fake_kernel.locks, 1u); // built under the lock
    EXPECT_TRUE(Balanced());
    EXPECT_EQ(pxPortGetTlsfHeap(), heap);
    EXPECT_EQ(fake_kernel.locks, 1u); // there: no lock needed
    EXPECT_EQ(CoreStats().pool_count, 1u);
    EXPECT_EQ(xPortGetFreeHeapSize(), CoreStats().pool_bytes);
    void *block = pvPortMalloc(100); // the same heap
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(CoreStats().pool_count, 1u);
    vPortFree(block);
    EXPECT_EQ(fake_kernel.assert_failures, 0u);
}

// With the core's statistics, the port's counts are the heap's: blocks allocated on the
// TLSF heap directly (the C++ layer, newlib's malloc) count like pvPortMalloc's, and a
// block from either side may be freed by the other.
TEST_F(Port, DirectAllocationsCountWithTheCoresStatistics) {
    if (!TLSF_STATS) GTEST_SKIP() << "TLSF_STATS == 0: the port counts its own calls only";
    tlsf_t heap = pxPortGetTlsfHeap();
    const tlsf_lock_t *lock = pxPortGetHeapLock();
    const std::size_t free_at_start = xPortGetFreeHeapSize();
    const HeapStats_t start = Stats();
    void *direct = tlsf_locked_malloc(lock, heap, 300);
    void *ported = pvPortMalloc(200);
    ASSERT_NE(direct, nullptr);
    ASSERT_NE(ported, nullptr);
    EXPECT_EQ(xPortGetFreeHeapSize(), free_at_start - Span(direct) - Span(ported));
    EXPECT_EQ(Stats().xAvailableHeapSpaceInBytes, xPortGetFreeHeapSize());
    EXPECT_EQ(Stats().xNumberOfSuccessfulAllocations, start.xNumberOfSuccessfulAllocations + 2u);
    EXPECT_EQ(xPortGetMinimumEverFreeHeapSize(), xPortGetFreeHeapSize());
    vPortFree(direct);                    // a direct block back through the port
    tlsf_locked_free(lock, heap, ported); // and the other way round
    EXPECT_EQ(xPortGetFreeHeapSize(), free_at_start);
    EXPECT_EQ(Stats().xNumberOfSuccessfulFrees, start.xNumberOfSuccessfulFrees + 2u);
    EXPECT_LT(xPortGetMinimumEverFreeHeapSize(), free_at_start);
    xPortResetHeapMinimumEverFreeHeapSize();
    EXPECT_EQ(xPortGetMinimumEverFreeHeapSize(), free_at_start);
    // An over-aligned block (its alignment gap stays a free block): counted, walked alike.
    void *aligned = tlsf_locked_memalign(lock, heap, 64, 300);
    ASSERT_NE(aligned, nullptr);
    EXPECT_LT(xPortGetFreeHeapSize(), free_at_start - 300u);
    EXPECT_EQ(Stats().xAvailableHeapSpaceInBytes, xPortGetFreeHeapSize());
    vPortFree(aligned);
    EXPECT_EQ(xPortGetFreeHeapSize(), free_at_start);
    EXPECT_EQ(fake_kernel.assert_failures, 0u);
    EXPECT_TRUE(Balanced());
}

TEST_F(Port, EachCallLocksOnceAndTracesUnderTheLock) {
    void *block = pvPortMalloc(200);
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(fake_kernel.locks, 1u);
    EXPECT_TRUE(Balanced());
    EXPECT_EQ(fake_kernel.trace_mallocs, 1u);
    EXPECT_EQ(fake_kernel.last_malloc, block);
    EXPECT_EQ(fake_kernel.last_malloc_size, Span(block));
    EXPECT_EQ(fake_kernel.trace_lock_depth, 1);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % portBYTE_ALIGNMENT, 0u);

    const std::size_t span = Span(block);
    vPortFree(block);
    EXPECT_EQ(fake_kernel.locks, 2u);
    EXPECT_TRUE(Balanced());
    EXPECT_EQ(fake_kernel.trace_frees, 1u);
    EXPECT_EQ(fake_kernel.last_free, block);
    EXPECT_EQ(fake_kernel.last_free_size, span);
    EXPECT_EQ(fake_kernel.trace_lock_depth, 1);
}

TEST_F(Port, FailuresReturnNullAndCallTheHookOutsideTheLock) {
    EXPECT_EQ(pvPortMalloc(0), nullptr); // as heap_4: NULL, and the hook runs
    EXPECT_EQ(fake_kernel.hook_calls, 1u);
    EXPECT_EQ(fake_kernel.hook_lock_depth, 0);
    EXPECT_EQ(fake_kernel.last_malloc, nullptr);
    EXPECT_EQ(fake_kernel.last_malloc_size, 0u);

    EXPECT_EQ(xPortGetLargestAllocatableSize(), 0u); // no heap yet: pvPortMalloc(0) built none
    vPortFree(pvPortMalloc(1));                      // now there is one
    const std::size_t largest = xPortGetLargestAllocatableSize();
    ASSERT_GT(largest, 0u);
    const std::size_t free_before = xPortGetFreeHeapSize();
    EXPECT_EQ(pvPortMalloc(largest + 1u), nullptr);
    EXPECT_EQ(pvPortMalloc(SIZE_MAX), nullptr);
    EXPECT_EQ(pvPortCalloc(SIZE_MAX / 2u, 3u), nullptr); // overflow
    EXPECT_EQ(fake_kernel.hook_calls, 4u);
    EXPECT_EQ(fake_kernel.hook_lock_depth, 0);
    EXPECT_EQ(xPortGetFreeHeapSize(), free_before);
    EXPECT_TRUE(Balanced());

    void *block = pvPortMalloc(largest); // exactly the largest: succeeds
    ASSERT_NE(block, nullptr);
    vPortFree(block);
    EXPECT_EQ(fake_kernel.hook_calls, 4u);
    EXPECT_EQ(fake_kernel.assert_failures, 0u);
}

TEST_F(Port, CallocZeroesAndFreeIgnoresNull) {
    auto *bytes = static_cast<unsigned char *>(pvPortMalloc(64));
    ASSERT_NE(bytes, nullptr);
    std::memset(bytes, 0xEE, 64);
    vPortFree(bytes); // with configHEAP_CLEAR_MEMORY_ON_FREE the block is cleared first
    auto *zeroed = static_cast<unsigned char *>(pvPortCalloc(8, 8));
    ASSERT_NE(zeroed, nullptr);
    for (int i = 0; i < 64; ++i)
        EXPECT_EQ(zeroed[i], 0u);
    const std::size_t locks = fake_kernel.locks;
    vPortFree(nullptr);
    EXPECT_EQ(fake_kernel.locks, locks); // nothing to do, no lock taken
    vPortFree(zeroed);
    EXPECT_TRUE(Balanced());
}

TEST_F(Port, DoubleFreeFailsTheAssertionAndChangesNothing) {
    if (TLSF_CHECKS < 1) GTEST_SKIP() << "TLSF_CHECKS == 0: a double free is not detected";
    void *keep = pvPortMalloc(32);
    void *block = pvPortMalloc(32);
    void *after = pvPortMalloc(32);
    vPortFree(block);
    const HeapStats_t before = Stats();
    vPortFree(block);
    EXPECT_EQ(fake_kernel.assert_failures, 1u);
    const HeapStats_t now = Stats();
    EXPECT_EQ(now.xNumberOfSuccessfulFrees, before.xNumberOfSuccessfulFrees);
    EXPECT_EQ(now.xAvailableHeapSpaceInBytes, before.xAvailableHeapSpaceInBytes);
    EXPECT_EQ(xPortGetFreeHeapSize(), before.xAvailableHeapSpaceInBytes);
    EXPECT_EQ(xPortCheckHeap(), 0u);
    EXPECT_TRUE(Balanced());
    vPortFree(keep);
    vPortFree(after);
}

TEST_F(Port, FreeBeforeTheHeapExistsFailsTheAssertion) {
    int not_from_the_heap = 0;
    vPortFree(&not_from_the_heap);
    EXPECT_EQ(fake_kernel.assert_failures, 1u);
    EXPECT_EQ(xPortGetFreeHeapSize(), 0u); // and built no heap
}

TEST_F(Port, HeapStatsAreExactAndAgreeWithTheCore) {
    std::vector<void *> blocks;
    for (int i = 0; i < 20; ++i)
        blocks.push_back(pvPortMalloc(static_cast<std::size_t>(16 + 40 * i)));
    std::size_t smallest_hole = SIZE_MAX;
    std::size_t holes = 0;
    for (std::size_t i = 0; i < blocks.size(); i += 2) { // holes between live blocks
        ASSERT_NE(blocks[i], nullptr);
        smallest_hole = std::min(smallest_hole, Span(blocks[i]));
        holes += Span(blocks[i]);
        vPortFree(blocks[i]);
    }
    const HeapStats_t stats = Stats();
    const tlsf_stats_t core = CoreStats();
    EXPECT_EQ(stats.xAvailableHeapSpaceInBytes, xPortGetFreeHeapSize());
    if (TLSF_STATS) {
        EXPECT_EQ(stats.xAvailableHeapSpaceInBytes, core.free_bytes);
    }
    // Ten holes (the blocks were carved in address order, so no two freed ones touch) and
    // the untouched tail, which is the largest.
    EXPECT_EQ(stats.xNumberOfFreeBlocks, 11u);
    EXPECT_EQ(stats.xSizeOfSmallestFreeBlockInBytes, smallest_hole);
    EXPECT_EQ(stats.xSizeOfLargestFreeBlockInBytes, stats.xAvailableHeapSpaceInBytes - holes);
    EXPECT_EQ(stats.xNumberOfSuccessfulAllocations, 20u);
    EXPECT_EQ(stats.xNumberOfSuccessfulFrees, 10u);
    EXPECT_EQ(stats.xMinimumEverFreeBytesRemaining, xPortGetMinimumEverFreeHeapSize());
    EXPECT_LT(xPortGetMinimumEverFreeHeapSize(), xPortGetFreeHeapSize());

    xPortResetHeapMinimumEverFreeHeapSize();
    EXPECT_EQ(xPortGetMinimumEverFreeHeapSize(), xPortGetFreeHeapSize());
    for (std::size_t i = 1; i < blocks.size(); i += 2)
        vPortFree(blocks[i]);
    EXPECT_EQ(Stats().xNumberOfFreeBlocks, 1u);
    EXPECT_EQ(Stats().xSizeOfLargestFreeBlockInBytes, xPortGetFreeHeapSize());
    EXPECT_EQ(xPortCheckHeap(), 0u);
    EXPECT_TRUE(Balanced());
}

TEST_F(Port, StatsWithNoFreeBlockReportZeroSmallest) {
    while (pvPortMalloc(xPortGetLargestAllocatableSize() > 0 ? xPortGetLargestAllocatableSize()
                                                             : 1) != nullptr) {
    }
    const HeapStats_t stats = Stats();
    if (stats.xNumberOfFreeBlocks == 0u) {
        EXPECT_EQ(stats.xSizeOfSmallestFreeBlockInBytes, 0u);
        EXPECT_EQ(stats.xSizeOfLargestFreeBlockInBytes, 0u);
    }
    EXPECT_EQ(stats.xAvailableHeapSpaceInBytes, xPortGetFreeHeapSize());
    EXPECT_EQ(xPortGetLargestAllocatableSize(), 0u);
}

// region_c comes first in the tests, so it holds the control structure (tlsf_size(): about
// 3 KB on 32-bit targets, 14.5 KB on x86-64) as well as a pool.
alignas(64) std::uint8_t region_a[16 * 1024];
alignas(64) std::uint8_t region_b[8 * 1024];
alignas(64) std::uint8_t region_c[32 * 1024];

bool In(const void *p, const std::uint8_t *region, std::size_t bytes) {
    const auto *c = static_cast<const std::uint8_t *>(p);
    return c >= region && c < region + bytes;
}

TEST_F(Port, RegionsInAnyOrderMisalignedStartsAllUsed) {
    // Out of address order, one start misaligned (the port rounds it up).
    const HeapRegion_t regions[] = {{region_c, sizeof region_c},
                                    {region_a + 3, sizeof region_a - 3},
                                    {region_b, sizeof region_b},
                                    {nullptr, 0}};
    vPortDefineHeapRegions(regions);
    EXPECT_EQ(fake_kernel.assert_failures, 0u);
    ASSERT_NE(pxPortGetTlsfHeap(), nullptr);
    EXPECT_TRUE(In(pxPortGetTlsfHeap(), region_c, sizeof region_c)); // control in the first
    EXPECT_EQ(CoreStats().pool_count, 3u);
    EXPECT_EQ(xPortGetFreeHeapSize(), Stats().xAvailableHeapSpaceInBytes);
    EXPECT_EQ(Stats().xNumberOfFreeBlocks, 3u);

    // Fill the heap: every region serves blocks, ucHeap none (it is not part of this heap).
    std::vector<void *> blocks;
    bool used[3] = {false, false, false};
    while (void *p = pvPortMalloc(512)) {
        blocks.push_back(p);
        used[0] = used[0] || In(p, region_a, sizeof region_a);
        used[1] = used[1] || In(p, region_b, sizeof region_b);
        used[2] = used[2] || In(p, region_c, sizeof region_c);
        ASSERT_TRUE(In(p, region_a, sizeof region_a) || In(p, region_b, sizeof region_b) ||
                    In(p, region_c, sizeof region_c));
    }
    EXPECT_TRUE(used[0] && used[1] && used[2]);
    for (void *p : blocks)
        vPortFree(p);
    EXPECT_EQ(xPortGetFreeHeapSize(), CoreStats().pool_bytes);
    EXPECT_EQ(xPortCheckHeap(), 0u);
    EXPECT_TRUE(Balanced());
}

TEST_F(Port, RegionsAddedLaterGrowTheHeap) {
    void *block = pvPortMalloc(64); // builds the heap in ucHeap
    ASSERT_NE(block, nullptr);
    const std::size_t free_before = xPortGetFreeHeapSize();
    const HeapRegion_t more[] = {{region_b, sizeof region_b}, {nullptr, 0}};
    vPortDefineHeapRegions(more);
    EXPECT_EQ(CoreStats().pool_count, 2u);
    EXPECT_GT(xPortGetFreeHeapSize(), free_before + sizeof region_b - 64u);
    EXPECT_EQ(xPortGetFreeHeapSize(), Stats().xAvailableHeapSpaceInBytes);
    vPortFree(block);
    EXPECT_EQ(fake_kernel.assert_failures, 0u);
}

TEST_F(Port, BadRegionsFailTheAssertionAndAreSkipped) {
    const HeapRegion_t first[] = {{region_a, sizeof region_a}, {nullptr, 0}};
    vPortDefineHeapRegions(first);
    ASSERT_EQ(fake_kernel.assert_failures, 0u);
    // Too small for a block; no memory at all; NULL start.
    const HeapRegion_t bad[] = {{region_b, 8}, {region_c + 1, 3}, {nullptr, 100}, {nullptr, 0}};
    vPortDefineHeapRegions(bad);
    EXPECT_EQ(fake_kernel.assert_failures, 3u);
    EXPECT_EQ(CoreStats().pool_count, 1u);
    vPortDefineHeapRegions(nullptr);
    EXPECT_EQ(fake_kernel.assert_failures, 4u);
    EXPECT_TRUE(Balanced());
}

TEST_F(Port, MoreRegionsThanConfiguredAreRefused) {
    static_assert(configTLSF_MAX_HEAP_REGIONS == 4, "the fake config's limit");
    alignas(64) static std::uint8_t small[4][2048];
    const HeapRegion_t regions[] = {{region_c, sizeof region_c}, {small[0], sizeof small[0]},
                                    {small[1], sizeof small[1]}, {small[2], sizeof small[2]},
                                    {small[3], sizeof small[3]}, {nullptr, 0}};
    vPortDefineHeapRegions(regions);
    EXPECT_EQ(CoreStats().pool_count, 4u);
    EXPECT_EQ(fake_kernel.assert_failures, 1u);
    EXPECT_EQ(xPortGetFreeHeapSize(), Stats().xAvailableHeapSpaceInBytes);
}

TEST_F(Port, TheSharedLockGuardsDirectTlsfCalls) {
    void *block = pvPortMalloc(16); // the heap exists
    const tlsf_lock_t *lock = pxPortGetHeapLock();
    ASSERT_NE(lock, nullptr);
    const std::size_t locks = fake_kernel.locks;
    void *direct = tlsf_locked_malloc(lock, pxPortGetTlsfHeap(), 100);
    ASSERT_NE(direct, nullptr);
    tlsf_locked_free(lock, pxPortGetTlsfHeap(), direct);
    EXPECT_EQ(fake_kernel.locks, locks + 2u);
    EXPECT_TRUE(Balanced());
    vPortFree(block);
}

TEST_F(Port, ResetForgetsEverything) {
    void *block = pvPortMalloc(16);
    ASSERT_NE(block, nullptr);
    vPortHeapResetState();
    EXPECT_EQ(xPortGetFreeHeapSize(), 0u);
    EXPECT_EQ(xPortGetMinimumEverFreeHeapSize(), 0u);
    EXPECT_EQ(xPortCheckHeap(), 0u);
    const HeapStats_t stats = Stats();
    EXPECT_EQ(stats.xNumberOfFreeBlocks, 0u);
    EXPECT_EQ(stats.xNumberOfSuccessfulAllocations, 0u);
    vPortInitialiseBlocks();              // does nothing
    EXPECT_NE(pvPortMalloc(16), nullptr); // a fresh heap in ucHeap
    EXPECT_EQ(Stats().xNumberOfSuccessfulAllocations, 1u);
}

} // namespace
