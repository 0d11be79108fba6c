// SPDX-License-Identifier: MIT
// tlsf::heap and tlsf::static_heap: construction, the C API wrappers, pools, locks, growth
// and error handling.
#include <tlsf/heap.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "test_support.hpp"

namespace {

constexpr std::size_t kHeapBytes = 256 * 1024;

using support::aligned;
using support::buffer;

static_assert(!std::is_copy_constructible_v<tlsf::heap>);
static_assert(!std::is_move_constructible_v<tlsf::heap>);
static_assert(!std::is_copy_assignable_v<tlsf::heap>);
static_assert(std::is_base_of_v<tlsf::heap, tlsf::static_heap<64 * 1024>>);
static_assert(alignof(tlsf::static_heap<64 * 1024>) >= tlsf::alignment);
static_assert(tlsf::static_heap<64 * 1024>::capacity == 64 * 1024);
static_assert(tlsf::static_heap<64 * 1024>::minimum == tlsf::heap::compact_minimum_bytes);
static_assert(tlsf::heap::minimum_bytes > TLSF_HEAP_MIN_BYTES);
static_assert(tlsf::heap::compact_minimum_bytes > TLSF_COMPACT_MIN_BYTES);
static_assert(tlsf::heap::compact_minimum_bytes < tlsf::heap::minimum_bytes);
// A size below the minimum does not compile: test/cpp/static_heap_too_small.cpp (ctest
// tlsf_cpp_static_heap_too_small_fails_to_compile).

TEST(Heap, BuildsOverCallerMemory) {
    buffer memory(kHeapBytes);
    tlsf::heap heap(memory.data(), memory.size());
    ASSERT_TRUE(heap);
    EXPECT_EQ(tlsf::alignment, tlsf_align_size());
    EXPECT_NE(heap.native_handle(), nullptr);
    const tlsf::heap_stats stats = heap.stats();
    EXPECT_EQ(stats.pool_count, 1u);
    // memory.size(), not kHeapBytes: the buffer is whole max_align_t words (48 bytes on
    // i386), so it may be a little larger than asked.
    EXPECT_GT(stats.pool_bytes, memory.size() - tlsf_size() - 256);
    EXPECT_LT(stats.pool_bytes, memory.size() - tlsf_size());
    EXPECT_EQ(stats.used_bytes, 0u);
    EXPECT_EQ(stats.live_blocks, 0u);
    EXPECT_TRUE(heap.check());
}

TEST(Heap, AlignsMisalignedMemory) {
    buffer memory(kHeapBytes);
    tlsf::heap heap(memory.data() + 1, memory.size() - 1);
    void *block = heap.malloc(100);
    ASSERT_NE(block, nullptr);
    EXPECT_TRUE(aligned(block, tlsf::alignment));
    EXPECT_TRUE(heap.contains(block));
    heap.free(block);
    EXPECT_TRUE(heap.check());
}

TEST(Heap, ConstructorRejectsUnusableMemory) {
    buffer memory(kHeapBytes);
    EXPECT_THROW(tlsf::heap(nullptr, kHeapBytes), std::invalid_argument);
    EXPECT_THROW(tlsf::heap(memory.data(), 64), std::invalid_argument);
    // Room for the control structure but not for a pool.
    EXPECT_THROW(tlsf::heap(memory.data(), tlsf_size()), std::invalid_argument);
}

// The compile-time minimums are exact: a static heap of the compact minimum, and a heap over
// memory of the full one, work and serve the smallest block, and the C layer agrees with
// the constants.
TEST(Heap, StaticHeapOfTheMinimumSizeWorks) {
    EXPECT_EQ(std::size_t(TLSF_CONTROL_BYTES), tlsf_size());
    EXPECT_EQ(std::size_t(TLSF_HEAP_MIN_BYTES),
              tlsf_size() + tlsf_pool_overhead() + tlsf_alloc_overhead() + tlsf_block_size_min());
    EXPECT_EQ(std::size_t(TLSF_COMPACT_MIN_BYTES), tlsf_size_for(0) + tlsf_pool_overhead() +
                                                       tlsf_alloc_overhead() +
                                                       tlsf_block_size_min());
    auto heap = std::make_unique<tlsf::static_heap<tlsf::heap::compact_minimum_bytes>>();
    ASSERT_TRUE(*heap);
    void *p = heap->malloc(tlsf_block_size_min());
    EXPECT_NE(p, nullptr);
    EXPECT_EQ(heap->malloc(1), nullptr);
    heap->free(p);
    EXPECT_TRUE(heap->check());

    buffer memory(tlsf::heap::minimum_bytes);
    tlsf::heap full(memory.data(), tlsf::heap::minimum_bytes);
    void *q = full.malloc(tlsf_block_size_min());
    EXPECT_NE(q, nullptr);
    EXPECT_EQ(full.malloc(1), nullptr);
    full.free(q);
    EXPECT_THROW(tlsf::heap(memory.data(), tlsf::heap::minimum_bytes - 1), std::invalid_argument);
}

TEST(Heap, FailureHandlerRunsBeforeTheException) {
    static tlsf::failure reason;
    static std::size_t bytes;
    const tlsf::failure_handler previous =
        tlsf::set_failure_handler([](tlsf::failure why, std::size_t size) {
            reason = why;
            bytes = size;
        });
    EXPECT_THROW(tlsf::heap(nullptr, 1234), std::invalid_argument);
    EXPECT_EQ(reason, tlsf::failure::bad_memory);
    EXPECT_EQ(bytes, 1234u);
    EXPECT_NE(tlsf::set_failure_handler(previous), nullptr);
}

TEST(Heap, NothrowConstructorLeavesTheHeapEmpty) {
    tlsf::heap heap(nullptr, kHeapBytes, std::nothrow);
    EXPECT_FALSE(heap);
    EXPECT_EQ(heap.native_handle(), nullptr);
    EXPECT_EQ(heap.malloc(1), nullptr);
    EXPECT_EQ(heap.memalign(64, 1), nullptr);
    heap.free(nullptr);
    EXPECT_EQ(heap.stats().pool_bytes, 0u);
    EXPECT_EQ(heap.largest_allocatable(), 0u);
    EXPECT_TRUE(heap.check());
}

TEST(Heap, EmptyHeapTakesItsControlStructureFromTheFirstPool) {
    buffer memory(kHeapBytes);
    tlsf::heap heap;
    EXPECT_FALSE(heap);
    EXPECT_FALSE(heap.add_pool(nullptr, kHeapBytes));
    EXPECT_FALSE(heap.add_pool(memory.data(), 100));
    EXPECT_FALSE(heap);
    ASSERT_TRUE(heap.add_pool(memory.data(), memory.size()));
    EXPECT_TRUE(heap);
    void *block = heap.malloc(1000);
    EXPECT_NE(block, nullptr);
    heap.free(block);
    EXPECT_EQ(heap.stats().pool_count, 1u);
}

TEST(Heap, MallocAndFreeReturnTheStatisticsToZero) {
    buffer memory(kHeapBytes);
    tlsf::heap heap(memory.data(), memory.size());
    std::vector<void *> blocks;
    for (std::size_t size = 1; size < 4000; size = size * 3 + 1) {
        void *block = heap.malloc(size);
        ASSERT_NE(block, nullptr);
        EXPECT_GE(heap.usable_size(block), size);
        std::memset(block, 0x5a, size);
        blocks.push_back(block);
    }
    if constexpr (support::stats) {
        EXPECT_EQ(heap.stats().live_blocks, blocks.size());
    }
    support::expect_in_use(heap);
    EXPECT_TRUE(heap.check());
    for (void *block : blocks)
        heap.free(block);
    support::expect_empty(heap);
    if constexpr (support::stats) {
        EXPECT_EQ(heap.stats().alloc_count, blocks.size());
    }
    EXPECT_EQ(heap.usable_size(nullptr), 0u);
}

TEST(Heap, MallocZeroGivesUniqueBlocks) {
    buffer memory(kHeapBytes);
    tlsf::heap heap(memory.data(), memory.size());
    void *a = heap.malloc(0);
    void *b = heap.malloc(0);
    EXPECT_NE(a, nullptr);
    EXPECT_NE(b, nullptr);
    EXPECT_NE(a, b);
    heap.free(a);
    heap.free(b);
}

TEST(Heap, CallocZeroesAndChecksOverflow) {
    buffer memory(kHeapBytes);
    tlsf::heap heap(memory.data(), memory.size());
    void *dirty = heap.malloc(1000);
    ASSERT_NE(dirty, nullptr);
    std::memset(dirty, 0xff, 1000);
    heap.free(dirty);
    auto *zeroed = static_cast<unsigned char *>(heap.calloc(250, 4));
    ASSERT_NE(zeroed, nullptr);
    for (std::size_t i = 0; i < 1000; ++i)
        ASSERT_EQ(zeroed[i], 0u) << i;
    heap.free(zeroed);
    EXPECT_EQ(heap.calloc(SIZE_MAX / 2, 4), nullptr);
    support::expect_empty(heap);
}

TEST(Heap, MemalignAlignsAndRejectsBadAlignments) {
    buffer memory(kHeapBytes);
    tlsf::heap heap(memory.data(), memory.size());
    for (std::size_t align : {std::size_t{1}, std::size_t{8}, tlsf::alignment, std::size_t{64},
                              std::size_t{256}, std::size_t{4096}}) {
        void *block = heap.memalign(align, 100);
        ASSERT_NE(block, nullptr) << align;
        EXPECT_TRUE(aligned(block, align)) << align;
        EXPECT_TRUE(heap.contains(block));
        heap.free(block);
    }
    EXPECT_EQ(heap.memalign(0, 16), nullptr);
    EXPECT_EQ(heap.memalign(3, 16), nullptr);
    EXPECT_EQ(heap.memalign(96, 16), nullptr);
    support::expect_empty(heap);
}

TEST(Heap, ReallocKeepsContents) {
    buffer memory(kHeapBytes);
    tlsf::heap heap(memory.data(), memory.size());
    auto *bytes = static_cast<unsigned char *>(heap.realloc(nullptr, 100));
    ASSERT_NE(bytes, nullptr);
    for (unsigned i = 0; i < 100; ++i)
        bytes[i] = static_cast<unsigned char>(i);
    void *blocker = heap.malloc(16); // keeps the block from growing in place
    bytes = static_cast<unsigned char *>(heap.realloc(bytes, 5000));
    ASSERT_NE(bytes, nullptr);
    for (unsigned i = 0; i < 100; ++i)
        ASSERT_EQ(bytes[i], i);
    bytes = static_cast<unsigned char *>(heap.realloc(bytes, 50));
    ASSERT_NE(bytes, nullptr);
    for (unsigned i = 0; i < 50; ++i)
        ASSERT_EQ(bytes[i], i);
    EXPECT_EQ(heap.realloc(bytes, kHeapBytes * 2), nullptr); // fails, block untouched
    EXPECT_EQ(bytes[49], 49u);
    EXPECT_EQ(heap.realloc(bytes, 0), nullptr); // frees
    heap.free(blocker);
    support::expect_empty(heap);
}

TEST(Heap, LargestAllocatableIsExact) {
    buffer memory(kHeapBytes);
    tlsf::heap heap(memory.data(), memory.size());
    void *small = heap.malloc(1000);
    const std::size_t largest = heap.largest_allocatable();
    ASSERT_GT(largest, 0u);
    EXPECT_EQ(heap.malloc(largest + 1), nullptr);
    void *big = heap.malloc(largest);
    EXPECT_NE(big, nullptr);
    heap.free(big);
    heap.free(small);
}

TEST(Heap, PeakCanBeReset) {
    if (!support::stats) GTEST_SKIP() << "statistics compiled out (TLSF_STATS=0)";
    buffer memory(kHeapBytes);
    tlsf::heap heap(memory.data(), memory.size());
    heap.free(heap.malloc(10000));
    EXPECT_GT(heap.stats().peak_used_bytes, 10000u);
    heap.reset_peak();
    EXPECT_EQ(heap.stats().peak_used_bytes, 0u);
}

TEST(Heap, AddPoolExtendsTheHeap) {
    buffer first(tlsf_size() + 32 * 1024);
    buffer second(64 * 1024);
    tlsf::heap heap(first.data(), first.size());
    EXPECT_EQ(heap.malloc(48 * 1024), nullptr);
    EXPECT_FALSE(heap.add_pool(second.data(), 8)); // refused, but not misuse: no abort
    ASSERT_TRUE(heap.add_pool(second.data(), second.size()));
    EXPECT_EQ(heap.stats().pool_count, 2u);
    void *block = heap.malloc(48 * 1024);
    ASSERT_NE(block, nullptr);
    EXPECT_TRUE(heap.contains(block));
    EXPECT_GE(static_cast<unsigned char *>(block), second.data());
    EXPECT_LT(static_cast<unsigned char *>(block), second.data() + second.size());
    EXPECT_FALSE(heap.contains(&heap));
    EXPECT_TRUE(heap.check());
    heap.free(block);
    EXPECT_TRUE(heap.check());
}

TEST(Heap, RegionLargerThanAPoolBecomesSeveralPools) {
    // Only affordable where pools are small (TLSF_MAX_BLOCK_LOG2=20 in the small
    // configuration); the default 64-bit limit is 64 GiB.
    const std::size_t pool_limit = tlsf_block_size_max();
    if (pool_limit > 16 * 1024 * 1024) GTEST_SKIP() << "pools may be as large as " << pool_limit;
    buffer memory(pool_limit * 5 / 2);
    tlsf::heap heap(memory.data(), memory.size());
    EXPECT_EQ(heap.stats().pool_count, 3u);
    EXPECT_GT(heap.stats().pool_bytes, memory.size() - tlsf_size() - 3 * 256);
    // A block of half a pool (which rounds up to exactly half) fits once in each of the
    // two full-sized pools: the second pool is in use.
    std::vector<void *> halves;
    for (int i = 0; i < 2; ++i)
        halves.push_back(heap.malloc(pool_limit / 2 - 1024));
    for (void *half : halves) {
        EXPECT_NE(half, nullptr);
        EXPECT_TRUE(heap.contains(half));
    }
    EXPECT_TRUE(heap.check());
    for (void *half : halves)
        heap.free(half);
    support::expect_empty(heap);
}

TEST(Heap, StaticHeapOwnsAlignedStorage) {
    auto heap = std::make_unique<tlsf::static_heap<64 * 1024>>();
    ASSERT_TRUE(*heap);
    EXPECT_TRUE(aligned(heap.get(), tlsf::alignment));
    tlsf::heap &base = *heap;
    void *block = base.malloc(1000);
    ASSERT_NE(block, nullptr);
    EXPECT_TRUE(heap->contains(block));
    EXPECT_GT(block, static_cast<void *>(heap.get()));
    EXPECT_LT(block, static_cast<void *>(heap.get() + 1));
    base.free(block);
    EXPECT_LT(heap->stats().pool_bytes, 64u * 1024u);
}

// A BasicLockable that records how it is used.
struct recording_mutex {
    int depth = 0;
    int deepest = 0;
    int locks = 0;
    int unlocks = 0;
    void lock() {
        ++locks;
        if (++depth > deepest) deepest = depth;
    }
    void unlock() {
        ++unlocks;
        --depth;
    }
};

TEST(Heap, LockWrapsEveryOperation) {
    recording_mutex mutex; // outlives the heap it guards
    buffer memory(kHeapBytes);
    tlsf::heap heap(memory.data(), memory.size());
    heap.set_lock(tlsf::lock_hooks_for(mutex));
    void *a = heap.malloc(10);
    void *b = heap.memalign(256, 10);
    void *c = heap.calloc(3, 10);
    c = heap.realloc(c, 1000);
    (void)heap.stats();
    (void)heap.check();
    (void)heap.largest_allocatable();
    (void)heap.contains(a);
    heap.free(a);
    heap.free(b);
    heap.free(c);
    EXPECT_EQ(mutex.locks, 11);
    EXPECT_EQ(mutex.unlocks, 11);
    EXPECT_EQ(mutex.depth, 0);
    EXPECT_EQ(mutex.deepest, 1);
    heap.free(nullptr); // no lock for nothing
    EXPECT_EQ(mutex.locks, 11);
    heap.set_lock(tlsf::lock_hooks{});
    heap.free(heap.malloc(1));
    EXPECT_EQ(mutex.locks, 11);
}

// A pool source that hands out buffers and records the requests.
struct buffer_source {
    std::vector<std::unique_ptr<buffer>> given;
    std::vector<std::size_t> requests;
    recording_mutex *mutex = nullptr;
    int depth_seen = -1;
    bool refuse = false;

    static tlsf::region obtain(std::size_t needed, void *context) {
        auto &self = *static_cast<buffer_source *>(context);
        self.requests.push_back(needed);
        if (self.mutex) self.depth_seen = self.mutex->depth;
        if (self.refuse) return {};
        self.given.push_back(std::make_unique<buffer>(needed));
        return {self.given.back()->data(), self.given.back()->size()};
    }
};

TEST(Heap, PoolSourceGrowsTheHeap) {
    // The source owns the pools it gives and the mutex guards the heap: both outlive it.
    recording_mutex mutex;
    buffer_source source;
    source.mutex = &mutex;
    buffer memory(tlsf_size() + 16 * 1024);
    tlsf::heap heap(memory.data(), memory.size());
    heap.set_lock(tlsf::lock_hooks_for(mutex));
    heap.set_pool_source(tlsf::pool_source{&buffer_source::obtain, &source});

    void *big = heap.malloc(100 * 1024);
    ASSERT_NE(big, nullptr);
    ASSERT_EQ(source.requests.size(), 1u);
    EXPECT_GT(source.requests[0], 100u * 1024u);
    EXPECT_EQ(source.depth_seen, 1); // the source runs under the heap's lock
    EXPECT_EQ(heap.stats().pool_count, 2u);

    void *aligned_block = heap.memalign(64 * 1024, 64 * 1024);
    ASSERT_NE(aligned_block, nullptr);
    EXPECT_TRUE(aligned(aligned_block, 64 * 1024));
    void *zeroed = heap.calloc(1000, 100);
    ASSERT_NE(zeroed, nullptr);
    void *grown = heap.realloc(heap.malloc(10), 200 * 1024);
    ASSERT_NE(grown, nullptr);
    const std::size_t asked = source.requests.size();
    EXPECT_GE(asked, 2u); // the first pool grew at least once more
    EXPECT_TRUE(heap.check());

    source.refuse = true;
    EXPECT_EQ(heap.malloc(500 * 1024), nullptr);
    EXPECT_EQ(source.requests.size(), asked + 1);
    // A request no pool could hold is not passed on.
    EXPECT_EQ(heap.malloc(SIZE_MAX / 2), nullptr);
    EXPECT_EQ(source.requests.size(), asked + 1);

    for (void *block : {big, aligned_block, zeroed, grown})
        heap.free(block);
    support::expect_empty(heap);
}

TEST(Heap, EmptyHeapGrowsFromItsSource) {
    buffer_source source; // owns the pool memory, so it outlives the heap
    tlsf::heap heap;
    heap.set_pool_source(tlsf::pool_source{&buffer_source::obtain, &source});
    void *block = heap.malloc(100);
    ASSERT_NE(block, nullptr);
    ASSERT_EQ(source.requests.size(), 1u);
    EXPECT_GT(source.requests[0], tlsf_size());
    EXPECT_TRUE(heap);
    heap.free(block);
    EXPECT_TRUE(heap.check());
}

#if TLSF_CHECKS >= 1 // without checks, misuse is not detected
TEST(Heap, CustomErrorHandlerHearsMisuse) {
    buffer memory(kHeapBytes);
    tlsf::heap heap(memory.data(), memory.size());
    static tlsf_error_t heard;
    static const void *where;
    heap.set_error_handler(
        [](tlsf_t, tlsf_error_t reason, const void *pointer, void *) {
            heard = reason;
            where = pointer;
        },
        nullptr);
    void *block = heap.malloc(64);
    void *keep = heap.malloc(64);
    heap.free(block);
    heap.free(block);
    EXPECT_EQ(heard, TLSF_ERROR_DOUBLE_FREE);
    EXPECT_EQ(where, block);
    heap.free(static_cast<char *>(keep) + 1);
    EXPECT_EQ(heard, TLSF_ERROR_BAD_POINTER);
    EXPECT_TRUE(heap.check());
    heap.free(keep);
    support::expect_empty(heap);
}

TEST(HeapDeathTest, DoubleFreeAbortsByDefault) {
    EXPECT_DEATH(
        {
            buffer memory(kHeapBytes);
            tlsf::heap heap(memory.data(), memory.size());
            void *block = heap.malloc(64);
            heap.free(block);
            heap.free(block);
        },
        "double free");
}
#endif

} // namespace

// set_slabs: the sizes tlsf_slabs_enable accepts, before and after the control structure
// exists; small requests then come from one slab (masked addresses agree), large ones not.
TEST(Heap, SetSlabsAcceptsWhatTheCoreAcceptsAndCutsSmallRequestsFromSlabs) {
    buffer memory(kHeapBytes);
    tlsf::heap empty;
    EXPECT_TRUE(empty.set_slabs(0));
    EXPECT_FALSE(empty.set_slabs(3000));   // not a power of two
    EXPECT_FALSE(empty.set_slabs(2048));   // below 4 KiB
    EXPECT_FALSE(empty.set_slabs(131072)); // above 64 KiB
    EXPECT_EQ(empty.set_slabs(8192), TLSF_SLABS != 0);
    EXPECT_EQ(empty.slabs(), TLSF_SLABS ? 8192u : 0u);
    // Given memory later, the control structure takes the size set before.
    ASSERT_TRUE(empty.add_pool(memory.data(), memory.size()));
    EXPECT_EQ(tlsf_slabs_size(empty.native_handle()), TLSF_SLABS ? 8192u : 0u);
    if (!TLSF_SLABS) GTEST_SKIP() << "TLSF_SLABS == 0";
    const std::size_t whole = empty.largest_allocatable();
    void *a = empty.malloc(24);
    void *b = empty.malloc(24);
    void *large = empty.malloc(TLSF_SLAB_REQUEST_MAX + 1);
    ASSERT_TRUE(a && b && large);
    const auto slab_of = [](const void *p) {
        return reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{8191};
    };
    EXPECT_EQ(slab_of(a), slab_of(b));
    EXPECT_GE(empty.usable_size(a), 24u);
    // A slab exists: its size cannot change now, and the heap keeps the old one.
    EXPECT_FALSE(empty.set_slabs(4096));
    EXPECT_EQ(empty.slabs(), 8192u);
    EXPECT_TRUE(empty.check());
    empty.free(a);
    empty.free(b);
    empty.free(large);
    EXPECT_TRUE(empty.set_slabs(0)); // off: empty slabs go back
    EXPECT_EQ(empty.stats().used_bytes, 0u);
    EXPECT_EQ(empty.largest_allocatable(), whole); // one free block again
    EXPECT_TRUE(empty.check());
}
