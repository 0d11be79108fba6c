// SPDX-License-Identifier: MIT
// The process default heap in its hosted configuration (no memory configured: it grows
// from the OS, locked with tlsf::exchange_lock, the hosted default), and its thread
// safety. Built a second time with TLSF_DEFAULT_HEAP_LOCK=TLSF_LOCK_STD_MUTEX
// (tlsf_cpp_default_heap_std_mutex_test).
#include <tlsf/allocator.hpp>
#include <tlsf/containers.hpp>
#include <tlsf/default_heap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {

static_assert(TLSF_DEFAULT_HEAP_GROW == 1, "this executable tests the growing default heap");
static_assert(TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_EXCHANGE ||
              TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_STD_MUTEX);

// Used during static initialisation, before main and before any test: the default heap is
// built on first use, whichever translation unit asks first.
const bool used_before_main = [] {
    static tlsf::vector<int> early(1000, 7);
    return tlsf::default_heap().contains(early.data()) && early.back() == 7;
}();

TEST(DefaultHeap, IsOneObjectBuiltOnFirstUse) {
    EXPECT_EQ(&tlsf::default_heap(), &tlsf::default_heap());
    EXPECT_TRUE(used_before_main);
    EXPECT_TRUE(tlsf::default_heap());
    EXPECT_TRUE(tlsf::default_heap().check());
}

TEST(DefaultHeap, GrowsFromTheOperatingSystem) {
    tlsf::heap &heap = tlsf::default_heap();
    const tlsf::heap_stats before = heap.stats();
    // Large blocks (64 MiB, or half the largest pool where pools are small) until the heap
    // has had to grow.
    const std::size_t big = std::min<std::size_t>(64 * 1024 * 1024, tlsf_block_size_max() / 2);
    std::vector<void *> blocks; // std::allocator: not the heap under test
    while (heap.stats().pool_count == before.pool_count && blocks.size() < 1000) {
        void *block = heap.malloc(big);
        ASSERT_NE(block, nullptr);
        std::memset(block, 1, big);
        EXPECT_TRUE(heap.contains(block));
        blocks.push_back(block);
    }
    const tlsf::heap_stats grown = heap.stats();
    EXPECT_GT(grown.pool_count, before.pool_count);
    EXPECT_GT(grown.pool_bytes, before.pool_bytes);
    for (void *block : blocks)
        heap.free(block);
    // The pools stay (memory from the OS is reused, not returned) and serve again.
    void *again = heap.malloc(big);
    EXPECT_NE(again, nullptr);
    EXPECT_EQ(heap.stats().pool_count, grown.pool_count);
    heap.free(again);
    // Beyond what any pool can be (tlsf_block_size_max()): null, not a huge mapping.
    EXPECT_EQ(heap.malloc(tlsf_block_size_max()), nullptr);
    EXPECT_EQ(heap.stats().pool_count, grown.pool_count);
    EXPECT_TRUE(heap.check());
}

// tlsf::allocator on the default heap takes its inline fast path (detail::heap_malloc): a
// failed search of the free lists grows the heap and searches once more
// (heap::malloc_after_miss). The request did not fail, so failed_count does not move: the
// core's miss is left out, and a second search before growing would show as one failure.
TEST(DefaultHeap, AnAllocatorOnItGrowsItWithOneFailedSearchPerPool) {
    tlsf::heap &heap = tlsf::default_heap();
    const tlsf::heap_stats before = heap.stats();
    const std::size_t big = std::min<std::size_t>(64 * 1024 * 1024, tlsf_block_size_max() / 2);
    tlsf::allocator<char> on_default;
    std::vector<char *> blocks; // std::allocator: not the heap under test
    while (heap.stats().pool_count < before.pool_count + 2 && blocks.size() < 1000) {
        char *block = on_default.allocate(big);
        ASSERT_NE(block, nullptr);
        block[big - 1] = 1;
        EXPECT_TRUE(heap.contains(block));
        blocks.push_back(block);
    }
    const tlsf::heap_stats grown = heap.stats();
    ASSERT_EQ(grown.pool_count, before.pool_count + 2);
    if constexpr (support::stats) {
        EXPECT_EQ(grown.failed_count, before.failed_count); // served after growing
        EXPECT_EQ(grown.live_blocks, before.live_blocks + blocks.size());
    }
    for (char *block : blocks)
        on_default.deallocate(block, big);
    if constexpr (support::stats) {
        EXPECT_EQ(heap.stats().live_blocks, before.live_blocks);
    }
    EXPECT_TRUE(heap.check());
}

TEST(DefaultHeap, ManySmallAllocationsKeepGrowingIt) {
    tlsf::heap &heap = tlsf::default_heap();
    std::vector<void *> blocks; // std::allocator: not the heap under test
    for (int i = 0; i < 20000; ++i) {
        void *block = heap.malloc(1000);
        ASSERT_NE(block, nullptr);
        blocks.push_back(block);
    }
    EXPECT_TRUE(heap.check());
    for (void *block : blocks)
        heap.free(block);
}

// The pools the default heap took from the OS go back when trim() finds them empty; the
// rest (and memory installed by the program) stays.
TEST(DefaultHeap, TrimUnmapsThePoolsThatHoldNoBlock) {
    tlsf::heap &heap = tlsf::default_heap();
    const std::size_t pools = heap.stats().pool_count;
    const std::size_t big = std::min<std::size_t>(16 * 1024 * 1024, tlsf_block_size_max() / 4);
    std::vector<void *> blocks; // std::allocator: not the heap under test
    while (heap.stats().pool_count < pools + 2 && blocks.size() < 1000) {
        void *block = heap.malloc(big);
        ASSERT_NE(block, nullptr);
        blocks.push_back(block);
    }
    ASSERT_EQ(heap.stats().pool_count, pools + 2);
    for (void *block : blocks)
        heap.free(block);
    const std::size_t given = heap.trim();
    EXPECT_GE(given, 2 * big);
    EXPECT_LE(heap.stats().pool_count, pools);
    EXPECT_TRUE(heap.check());
    void *again = heap.malloc(big); // and it grows again
    ASSERT_NE(again, nullptr);
    static_cast<char *>(again)[big - 1] = 1;
    heap.free(again);
}

TEST(DefaultHeap, InstalledMemoryBecomesAPool) {
    alignas(64) static unsigned char region[128 * 1024];
    tlsf::heap &heap = tlsf::default_heap();
    const std::size_t pools = heap.stats().pool_count;
    ASSERT_TRUE(tlsf::install_default_heap(region, sizeof region));
    EXPECT_EQ(heap.stats().pool_count, pools + 1);
    EXPECT_TRUE(heap.contains(region + sizeof region / 2));
    EXPECT_FALSE(tlsf::install_default_heap(nullptr, 1024));
    EXPECT_TRUE(heap.check());
}

// A few threads allocating and freeing through maps on the default heap, including maps
// built on one thread and destroyed on another.
TEST(DefaultHeapThreads, MapsOnSeveralThreads) {
    constexpr int kThreads = 4;
    constexpr int kRounds = 40;
    constexpr int kKeys = 500;
    tlsf::heap &heap = tlsf::default_heap();
    const tlsf::heap_stats before = heap.stats();

    std::mutex handoff_mutex;
    std::vector<std::unique_ptr<tlsf::map<int, tlsf::string>>> handoff; // std::allocator
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int round = 0; round < kRounds; ++round) {
                auto map = std::make_unique<tlsf::map<int, tlsf::string>>();
                for (int key = 0; key < kKeys; ++key)
                    map->emplace(key, tlsf::string(static_cast<std::size_t>(20 + key % 50),
                                                   static_cast<char>('a' + t)));
                for (int key = 0; key < kKeys; key += 2)
                    map->erase(key);
                for (const auto &entry : *map)
                    if (entry.second.front() != 'a' + t || entry.first % 2 == 0) ++errors;
                // Leave this map for another thread; destroy one left by another.
                std::unique_ptr<tlsf::map<int, tlsf::string>> other;
                {
                    std::lock_guard<std::mutex> lock(handoff_mutex);
                    handoff.push_back(std::move(map));
                    if (handoff.size() > 1) {
                        other = std::move(handoff.front());
                        handoff.erase(handoff.begin());
                    }
                }
                other.reset();
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    handoff.clear();
    EXPECT_EQ(errors.load(), 0);
    const tlsf::heap_stats after = heap.stats(); // all zero without TLSF_STATS
    EXPECT_EQ(after.live_blocks, before.live_blocks);
    EXPECT_EQ(after.used_bytes, before.used_bytes);
    EXPECT_TRUE(heap.check());
}

} // namespace

// The default heap's lock is skipped only while the process has a single thread (the C
// library's flag, tlsf::detail::process_single_threaded). Once a thread has been started
// the flag is down for good and the lock is taken: another thread cannot take it while
// this one holds the heap's lock, and can again once it is released.
// (Whether the flag was up before cannot be asserted here: other tests start threads.)
TEST(DefaultHeapThreads, TheMutexIsTakenOnceAThreadExists) {
    std::thread([] {}).join();
#ifdef TLSF_DETAIL_SINGLE_THREADED_FLAG
    EXPECT_FALSE(tlsf::detail::process_single_threaded());
#endif
    tlsf::detail::default_heap_mutex &lock =
        tlsf::detail::default_heap_storage_instance.state.mutex;
    lock.lock();
    EXPECT_TRUE(lock.held());
    bool taken_by_other = true;
    std::thread([&] {
        taken_by_other = lock.mutex.try_lock();
        if (taken_by_other) lock.mutex.unlock();
    }).join();
    EXPECT_FALSE(taken_by_other);
    lock.unlock();
    EXPECT_FALSE(lock.held());
    std::thread([&] {
        taken_by_other = lock.mutex.try_lock();
        if (taken_by_other) lock.mutex.unlock();
    }).join();
    EXPECT_TRUE(taken_by_other);
    // And the heap works through it.
    tlsf::vector<int> v(100, 3);
    EXPECT_EQ(v.back(), 3);
    EXPECT_TRUE(tlsf::default_heap().check());
}

// On a 64-bit host the default heap cuts small requests from 4 KiB slabs
// (TLSF_DEFAULT_HEAP_SLABS), set before its control structure exists (it grows from the OS);
// a burst of nodes through the allocator leaves it sound. (What slabs do: test_slab.cpp.)
TEST(DefaultHeap, HasSlabsWhereTheCoreBuildsThem) {
    tlsf::heap &heap = tlsf::default_heap();
    EXPECT_EQ(heap.slabs(), std::size_t{TLSF_DEFAULT_HEAP_SLABS});
    EXPECT_EQ(tlsf_slabs_size(heap.native_handle()), std::size_t{TLSF_DEFAULT_HEAP_SLABS});
    if (TLSF_DEFAULT_HEAP_SLABS == 0) GTEST_SKIP() << "no slabs in this build";
    const tlsf::heap_stats before = heap.stats();
    std::vector<std::uint64_t *> nodes;
    for (int i = 0; i < 1000; ++i)
        nodes.push_back(tlsf::allocator<std::uint64_t>().allocate(3));
    EXPECT_TRUE(heap.check());
    for (std::uint64_t *p : nodes)
        tlsf::allocator<std::uint64_t>().deallocate(p, 3);
    EXPECT_EQ(heap.stats().live_blocks, before.live_blocks);
    EXPECT_TRUE(heap.check());
}
