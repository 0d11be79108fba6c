// SPDX-License-Identifier: MIT
// tlsf::heap's policies: the front cache's budget, the exact largest request, what the
// statistics count, giving memory back (trim, release, destruction), the leak report, the
// per-heap failure handler and the checked free_sized.
#include <tlsf/allocator.hpp>
#include <tlsf/containers.hpp>
#include <tlsf/heap.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace {

using support::buffer;

constexpr std::size_t kSmallHeap = 256 * 1024;

// ---- The front cache ------------------------------------------------------------------

template <class H, class = void>
struct largest_callable_on_const : std::false_type {};
template <class H>
struct largest_callable_on_const<
    H, std::void_t<decltype(std::declval<const H &>().largest_allocatable())>> : std::true_type {};
// largest_allocatable() drains the cache: it is not const, so it cannot pass for a
// read-only O(1) query.
static_assert(!largest_callable_on_const<tlsf::heap>::value);

// The budget the automatic policy gives a heap with `pool_bytes` of pools.
std::size_t automatic_budget(std::size_t pool_bytes) {
    if (!TLSF_CACHE) return 0;
    return std::min<std::size_t>(pool_bytes / 16, TLSF_CACHE_BYTES);
}

// The issue: a 256 KiB heap had a 512 KiB budget, so that one large request after a
// container's teardown drained thousands of cached blocks.
TEST(HeapCache, ASmallHeapGetsABudgetInProportion) {
    auto heap = std::make_unique<tlsf::static_heap<kSmallHeap>>();
    const std::size_t pools = heap->stats().pool_bytes;
    EXPECT_EQ(heap->cache_limit(), automatic_budget(pools));
    EXPECT_LE(heap->cache_limit(), kSmallHeap / 16);
    tlsf::heap empty;
    EXPECT_EQ(empty.cache_limit(), 0u);
}

TEST(HeapCache, TheBudgetFollowsThePoolsUpToTheCeiling) {
    if (!TLSF_CACHE) GTEST_SKIP() << "no front cache in this configuration";
    const std::size_t part = std::min<std::size_t>(tlsf_block_size_max() / 2, 4 * 1024 * 1024);
    std::vector<std::unique_ptr<buffer>> memory;
    tlsf::heap heap;
    std::size_t previous = 0;
    for (int i = 0; i < 8; ++i) {
        memory.push_back(std::make_unique<buffer>(part));
        ASSERT_TRUE(heap.add_pool(memory.back()->data(), memory.back()->size()));
        const std::size_t now = heap.cache_limit();
        EXPECT_EQ(now, automatic_budget(heap.stats().pool_bytes));
        EXPECT_GE(now, previous);
        previous = now;
    }
    if (heap.stats().pool_bytes / 16 >= TLSF_CACHE_BYTES) {
        EXPECT_EQ(previous, std::size_t(TLSF_CACHE_BYTES));
    }
}

// A budget as the core clamps it: at most TLSF_CACHE_BYTES, 0 without the cache.
std::size_t ceiling(std::size_t bytes) {
    return TLSF_CACHE ? std::min<std::size_t>(bytes, TLSF_CACHE_BYTES) : 0;
}

TEST(HeapCache, SetCacheLimitOverridesUntilSetBackToAutomatic) {
    auto heap = std::make_unique<tlsf::static_heap<kSmallHeap>>();
    const std::size_t automatic = heap->cache_limit();
    EXPECT_EQ(heap->set_cache_limit(0), 0u);
    EXPECT_EQ(heap->cache_limit(), 0u);
    EXPECT_EQ(heap->set_cache_limit(SIZE_MAX), TLSF_CACHE ? std::size_t(TLSF_CACHE_BYTES) : 0u);
    EXPECT_EQ(heap->set_cache_limit(512), ceiling(512)); // 32-bit hosts: at most 1 KiB
    EXPECT_EQ(heap->set_cache_limit_automatic(), automatic);
    // Set on an empty heap, it applies to the control structure made later.
    buffer memory(kSmallHeap); // outlives the heap
    tlsf::heap later;
    EXPECT_EQ(later.set_cache_limit(8192), 0u);
    ASSERT_TRUE(later.add_pool(memory.data(), memory.size()));
    EXPECT_EQ(later.cache_limit(), ceiling(8192));
}

// Freed small blocks wait in the cache: the O(1) statistic does not count them into the
// largest free block; largest_allocatable() does, by flushing, and so does flush_cache().
TEST(HeapCache, LargestAllocatableIsExactAndStatsAreALowerBound) {
    buffer memory(kSmallHeap);
    tlsf::heap heap(memory.data(), memory.size());
    std::vector<void *> blocks;
    while (void *block = heap.malloc(48))
        blocks.push_back(block);
    for (void *block : blocks)
        heap.free(block);
    const std::size_t cheap = heap.stats().largest_allocatable;
    const std::size_t exact = heap.largest_allocatable();
    EXPECT_LE(cheap, exact);
    EXPECT_EQ(heap.stats().largest_allocatable, exact); // the flush merged them
    EXPECT_EQ(heap.malloc(exact + 1), nullptr);
    void *whole = heap.malloc(exact);
    ASSERT_NE(whole, nullptr);
    heap.free(whole);
    // The same through flush_cache().
    blocks.clear();
    for (int i = 0; i < 200; ++i)
        blocks.push_back(heap.malloc(64));
    for (void *block : blocks)
        heap.free(block);
    heap.flush_cache();
    EXPECT_EQ(heap.stats().largest_allocatable, exact);
    support::expect_empty(heap);
}

// ---- Statistics -----------------------------------------------------------------------

// A pool source over buffers it owns; with give_back set, it takes them back and records
// what it got.
struct recording_source {
    std::vector<std::unique_ptr<buffer>> live;
    std::vector<tlsf::region> given_back;
    std::size_t requests = 0;
    bool refuse = false;
    std::size_t extra = 0; // bytes added to each region (0: exactly what was needed)

    static tlsf::region obtain(std::size_t needed, void *context) {
        auto &self = *static_cast<recording_source *>(context);
        ++self.requests;
        if (self.refuse) return {};
        const std::size_t bytes = (needed + self.extra + 63) / 64 * 64;
        self.live.push_back(std::make_unique<buffer>(bytes));
        return {self.live.back()->data(), bytes};
    }
    static void give_back(tlsf::region memory, void *context) {
        auto &self = *static_cast<recording_source *>(context);
        const auto owned = std::find_if(self.live.begin(), self.live.end(),
                                        [&](const auto &b) { return b->data() == memory.memory; });
        ASSERT_NE(owned, self.live.end()) << "a region the source never gave";
        EXPECT_EQ(memory.bytes % 64, 0u);
        self.given_back.push_back(memory);
        self.live.erase(owned);
    }
    tlsf::pool_source source() { return {&obtain, this, &give_back}; }
    tlsf::pool_source source_without_give_back() { return {&obtain, this}; }
};

TEST(HeapStats, FailedCountLeavesOutMissesThatGrowingServed) {
    if (!support::stats) GTEST_SKIP() << "statistics compiled out (TLSF_STATS=0)";
    recording_source source;
    buffer memory(tlsf_size() + 16 * 1024);
    tlsf::heap heap(memory.data(), memory.size());
    heap.set_pool_source(source.source());
    void *grown[4] = {heap.malloc(40 * 1024), heap.memalign(4096, 40 * 1024), heap.calloc(1000, 40),
                      heap.realloc(nullptr, 40 * 1024)};
    for (void *block : grown)
        EXPECT_NE(block, nullptr);
    EXPECT_GE(source.requests, 4u);
    EXPECT_EQ(heap.stats().failed_count, 0u); // each was served
    source.refuse = true;
    EXPECT_EQ(heap.malloc(1024 * 1024), nullptr);
    EXPECT_EQ(heap.stats().failed_count, 1u); // this one failed
    for (void *block : grown)
        heap.free(block);
}

// ---- Giving memory back ---------------------------------------------------------------

TEST(HeapTrim, GivesBackThePoolsFromTheSourceThatHoldNoBlock) {
    recording_source source;
    tlsf::heap heap;
    heap.set_pool_source(source.source());
    heap.set_cache_limit(0); // keep the test about pools
    std::vector<void *> blocks;
    while (heap.stats().pool_count < 4)
        blocks.push_back(heap.malloc(100 * 1024));
    const std::size_t pools = heap.stats().pool_count;
    // Free the blocks of the last pool only: it holds no block then.
    void *last = blocks.back();
    blocks.pop_back();
    heap.free(last);
    const std::size_t given = heap.trim();
    ASSERT_EQ(source.given_back.size(), 1u);
    EXPECT_EQ(given, source.given_back[0].bytes);
    EXPECT_EQ(heap.stats().pool_count, pools - 1);
    EXPECT_FALSE(heap.contains(last));
    EXPECT_TRUE(heap.check());
    for (void *block : blocks)
        EXPECT_TRUE(heap.contains(block));
    EXPECT_EQ(heap.trim(), 0u); // nothing more is empty
    for (void *block : blocks)
        heap.free(block);
    // Now every pool but the one with the control structure goes back.
    heap.trim();
    EXPECT_EQ(heap.stats().pool_count, 1u);
    EXPECT_EQ(source.live.size(), 1u);
    EXPECT_TRUE(heap.check());
    void *again = heap.malloc(200 * 1024); // and it grows again
    EXPECT_NE(again, nullptr);
    heap.free(again);
}

TEST(HeapTrim, CachedBlocksDoNotKeepAPool) {
    if (!TLSF_CACHE) GTEST_SKIP() << "no front cache in this configuration";
    recording_source source;
    tlsf::heap heap;
    heap.set_pool_source(source.source());
    heap.set_cache_limit(SIZE_MAX);
    void *first = heap.malloc(64);
    std::vector<void *> small;
    const std::size_t pools = heap.stats().pool_count;
    void *big = heap.malloc(200 * 1024); // a second pool
    ASSERT_GT(heap.stats().pool_count, pools);
    heap.free(big);
    for (int i = 0; i < 100; ++i)
        small.push_back(heap.malloc(32));
    for (void *block : small)
        heap.free(block); // into the cache
    EXPECT_GT(heap.trim(), 0u);
    EXPECT_EQ(heap.stats().pool_count, pools);
    heap.free(first);
    EXPECT_TRUE(heap.check());
}

TEST(HeapTrim, KeepsMemoryItCannotGiveBack) {
    recording_source source;
    buffer mine(kSmallHeap);
    tlsf::heap heap(mine.data(), mine.size()); // add_pool memory is the caller's
    heap.set_pool_source(source.source_without_give_back());
    heap.free(heap.malloc(512 * 1024));
    EXPECT_EQ(heap.trim(), 0u);
    // With give_back, a region the heap could not use whole (here: misaligned) stays too.
    recording_source odd;
    buffer theirs(kSmallHeap);
    tlsf::heap other(theirs.data(), theirs.size());
    other.set_pool_source({[](std::size_t needed, void *context) {
                               tlsf::region r = recording_source::obtain(needed + 64, context);
                               return tlsf::region{static_cast<char *>(r.memory) + 1, needed + 60};
                           },
                           &odd, &recording_source::give_back});
    other.free(other.malloc(512 * 1024));
    EXPECT_EQ(other.stats().pool_count, 2u);
    EXPECT_EQ(other.trim(), 0u);
    other.release();
    EXPECT_TRUE(odd.given_back.empty());
}

TEST(HeapRelease, GivesEverythingBackAndTheHeapStartsOver) {
    recording_source source;
    tlsf::heap heap;
    heap.set_pool_source(source.source());
    for (int i = 0; i < 5; ++i)
        (void)heap.malloc(100 * 1024); // never freed: release drops them
    const std::size_t regions = source.live.size();
    ASSERT_GE(regions, 2u);
    heap.release();
    EXPECT_FALSE(heap);
    EXPECT_EQ(source.given_back.size(), regions);
    EXPECT_TRUE(source.live.empty());
    EXPECT_EQ(heap.stats().pool_count, 0u);
    void *again = heap.malloc(1000);
    ASSERT_NE(again, nullptr);
    EXPECT_TRUE(heap.check());
    heap.free(again);
}

TEST(HeapRelease, TheDestructorGivesThePoolsBack) {
    recording_source source;
    {
        tlsf::heap heap;
        heap.set_pool_source(source.source());
        heap.free(heap.malloc(100 * 1024));
        heap.free(heap.malloc(300 * 1024));
        EXPECT_FALSE(source.live.empty());
    }
    EXPECT_TRUE(source.live.empty());
}

// ---- An adopted C heap is its owner's -------------------------------------------------

TEST(HeapAdopted, TrimReleaseTheCacheBudgetAndTheLeakReportLeaveTheCHeapAlone) {
    buffer memory(kSmallHeap);
    tlsf_t c_heap = tlsf_create_with_pool(memory.data(), memory.size());
    ASSERT_NE(c_heap, nullptr);
    tlsf_cache_set_limit(c_heap, 4096); // the owner's budget
    void *c_block = tlsf_malloc(c_heap, 100);
    int leaks = 0;
    {
        tlsf::heap view(tlsf::adopt, c_heap);
        view.set_leak_handler([](const tlsf::heap &, std::size_t, std::size_t,
                                 void *user) { ++*static_cast<int *>(user); },
                              &leaks);
        EXPECT_EQ(view.cache_limit(), 0u); // not set by this object
        void *mine = view.malloc(200);
        ASSERT_NE(mine, nullptr);
        EXPECT_EQ(view.trim(), 0u);
        view.release();
        EXPECT_TRUE(view); // still the C heap, with its blocks
        view.free(mine);
    } // the C block is the owner's: no leak report
    EXPECT_EQ(leaks, 0);
    EXPECT_EQ(tlsf_check(c_heap), 0);
    tlsf_free(c_heap, c_block);
    tlsf_destroy(c_heap);
}

// ---- The leak report ------------------------------------------------------------------

struct heard_leak {
    const tlsf::heap *heap = nullptr;
    std::size_t blocks = 0;
    std::size_t bytes = 0;
    int calls = 0;
};

void record_leak(const tlsf::heap &leaking, std::size_t blocks, std::size_t bytes, void *user) {
    auto &heard = *static_cast<heard_leak *>(user);
    heard.heap = &leaking;
    heard.blocks = blocks;
    heard.bytes = bytes;
    ++heard.calls;
}

TEST(HeapLeaks, DestructionWithLiveBlocksIsReported) {
    if (!support::stats) GTEST_SKIP() << "live blocks are not counted (TLSF_STATS=0)";
    buffer memory(kSmallHeap);
    heard_leak heard;
    const tlsf::heap *address = nullptr;
    {
        tlsf::heap heap(memory.data(), memory.size());
        heap.set_leak_handler(&record_leak, &heard);
        address = &heap;
        (void)heap.malloc(100);
        (void)heap.malloc(200);
        heap.free(heap.malloc(300));
    }
    EXPECT_EQ(heard.calls, 1);
    EXPECT_EQ(heard.heap, address);
    EXPECT_EQ(heard.blocks, 2u);
    EXPECT_GE(heard.bytes, 300u);
}

TEST(HeapLeaks, NoReportWhenEverythingIsFreedOrReleasedOrSilenced) {
    buffer memory(kSmallHeap);
    heard_leak heard;
    {
        tlsf::heap heap(memory.data(), memory.size());
        heap.set_leak_handler(&record_leak, &heard);
        heap.free(heap.malloc(100));
    }
    {
        tlsf::heap heap(memory.data(), memory.size());
        heap.set_leak_handler(&record_leak, &heard);
        (void)heap.malloc(100);
        heap.release(); // on purpose
    }
    {
        tlsf::heap heap(memory.data(), memory.size());
        heap.set_leak_handler(nullptr);
        (void)heap.malloc(100);
    }
    EXPECT_EQ(heard.calls, 0);
}

TEST(HeapLeaks, TheDefaultReportIsALineOnStderr) {
    if (!support::stats) GTEST_SKIP() << "live blocks are not counted (TLSF_STATS=0)";
    buffer memory(kSmallHeap);
    testing::internal::CaptureStderr();
    {
        tlsf::heap heap(memory.data(), memory.size());
        (void)heap.malloc(10);
    }
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("destroyed with 1 live blocks"), std::string::npos) << said;
}

// ---- The heap's own failure handler ---------------------------------------------------

struct heard_failure {
    tlsf::heap *heap = nullptr;
    tlsf::failure reason = tlsf::failure::bad_memory;
    std::size_t bytes = 0;
    int order = 0;
};
int failure_calls = 0;

TEST(HeapFailure, TheHeapsHandlerHearsWhichHeapFailedBeforeTheProcessHandler) {
    static heard_failure from_heap;
    static int process_order;
    failure_calls = 0;
    process_order = 0;
    const tlsf::failure_handler previous = tlsf::set_failure_handler(
        [](tlsf::failure, std::size_t) { process_order = ++failure_calls; });
    buffer memory(kSmallHeap);
    tlsf::heap heap(memory.data(), memory.size());
    heap.set_failure_handler(
        [](tlsf::heap &where, tlsf::failure reason, std::size_t bytes, void *user) {
            auto &heard = *static_cast<heard_failure *>(user);
            heard = {&where, reason, bytes, ++failure_calls};
        },
        &from_heap);
    tlsf::allocator<char> alloc(heap);
    EXPECT_THROW((void)alloc.allocate(2 * kSmallHeap), std::bad_alloc);
    EXPECT_EQ(from_heap.heap, &heap);
    EXPECT_EQ(from_heap.reason, tlsf::failure::out_of_memory);
    EXPECT_EQ(from_heap.bytes, 2 * kSmallHeap);
    EXPECT_EQ(from_heap.order, 1);
    EXPECT_EQ(process_order, 2);
    tlsf::allocator<std::uint64_t> words(heap);
    EXPECT_THROW((void)words.allocate(SIZE_MAX), std::bad_array_new_length);
    EXPECT_EQ(from_heap.reason, tlsf::failure::array_too_long);
    tlsf::set_failure_handler(previous);
}

// ---- free_sized -----------------------------------------------------------------------

// Every size a request can have is accepted back, whatever block it got: plain, aligned,
// from slabs, after the cache.
TEST(HeapFreeSized, AcceptsTheSizeOfEveryCorrectRequest) {
    for (const std::size_t slabs : {std::size_t{0}, std::size_t{4096}}) {
        buffer memory(4 * 1024 * 1024);
        tlsf::heap heap(memory.data(), memory.size());
        heap.set_slabs(slabs);
        heap.set_error_handler([](tlsf_t, tlsf_error_t, const void *, void *) { FAIL(); }, nullptr);
        std::mt19937 random(7);
        struct request {
            void *block;
            std::size_t bytes;
            std::size_t align;
        };
        std::vector<request> live;
        for (int i = 0; i < 20000; ++i) {
            if (!live.empty() && random() % 3 == 0) {
                const std::size_t at = random() % live.size();
                heap.free_sized(live[at].block, live[at].bytes, live[at].align);
                live[at] = live.back();
                live.pop_back();
                continue;
            }
            const std::size_t bytes = random() % 4 == 0 ? random() % 20000 : random() % 300;
            const std::size_t align = random() % 5 == 0 ? std::size_t{1} << (random() % 13) : 0;
            void *block = align ? heap.memalign(align, bytes) : heap.malloc(bytes);
            if (block == nullptr) continue;
            live.push_back({block, bytes, align ? align : tlsf::alignment});
        }
        for (const request &r : live)
            heap.free_sized(r.block, r.bytes, r.align);
        support::expect_empty(heap);
    }
}

TEST(HeapFreeSized, AWrongSizeIsMisuseAndTheBlockStays) {
    buffer memory(kSmallHeap);
    tlsf::heap heap(memory.data(), memory.size());
    static tlsf_error_t heard;
    heard = TLSF_ERROR_NONE;
    heap.set_error_handler(
        [](tlsf_t, tlsf_error_t reason, const void *, void *) { heard = reason; }, nullptr);
    void *block = heap.malloc(1000);
    ASSERT_NE(block, nullptr);
    testing::internal::CaptureStderr();
    heap.free_sized(block, 2000); // more than the block holds
    EXPECT_EQ(heard, TLSF_ERROR_BAD_POINTER);
    heard = TLSF_ERROR_NONE;
    heap.free_sized(block, 10); // far less than it was made for
    EXPECT_EQ(heard, TLSF_ERROR_BAD_POINTER);
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("deallocation size mismatch"), std::string::npos) << said;
    EXPECT_TRUE(heap.contains(block));
    if constexpr (support::stats) {
        EXPECT_EQ(heap.stats().live_blocks, 1u);
    }
    heard = TLSF_ERROR_NONE;
    heap.free_sized(block, 1000);
    EXPECT_EQ(heard, TLSF_ERROR_NONE);
    support::expect_empty(heap);
}

#if TLSF_CHECKS >= 1
TEST(HeapFreeSizedDeathTest, AWrongSizeAbortsByDefault) {
    EXPECT_DEATH(
        {
            buffer memory(kSmallHeap);
            tlsf::heap heap(memory.data(), memory.size());
            heap.free_sized(heap.malloc(64), 4096);
        },
        "deallocation size mismatch");
}
#endif

} // namespace
