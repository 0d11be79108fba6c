// SPDX-License-Identifier: MIT
// Compact heaps: tlsf::static_heap<N> and tlsf::heap(memory, bytes, tlsf::compact), whose
// control structure holds only the size classes of the memory they are built over
// (tlsf_create_compact), so that a small heap keeps most of its bytes for blocks.
#include "test_support.hpp"

#include <memory>
#include <stdexcept>
#include <vector>

#include <tlsf/heap.hpp>

namespace {

using support::buffer;

// What a heap with the full control structure would keep for blocks of `bytes` at an
// aligned address: the control structure, the first pool's link and its overheads off.
std::size_t FullHeapPoolBytes(std::size_t bytes) {
    const std::size_t link = (2 * sizeof(void *) + tlsf::alignment - 1) & ~(tlsf::alignment - 1);
    return bytes - tlsf_size() - link - tlsf_pool_overhead();
}

TEST(CompactHeap, StaticHeapOf64KiBKeepsMostOfItsBytes) {
    constexpr std::size_t kBytes = 64 * 1024;
    if (tlsf_block_size_max() < kBytes) GTEST_SKIP() << "blocks below 64 KiB here";
    auto heap = std::make_unique<tlsf::static_heap<kBytes>>();
    ASSERT_TRUE(*heap);
    const std::size_t pool = heap->stats().pool_bytes;
    // The control structure is the compact one for this storage: far less than tlsf_size().
    EXPECT_GE(pool + tlsf_size_for(pool) + 64, kBytes);
    EXPECT_GT(pool, FullHeapPoolBytes(kBytes));
    EXPECT_EQ(heap->stats().pool_count, 1u);
    // It serves a block of nearly all of it, and every size class up to that.
    const std::size_t largest = heap->largest_allocatable();
    EXPECT_GT(largest, pool - pool / 8);
    void *all = heap->malloc(largest);
    ASSERT_NE(all, nullptr);
    EXPECT_TRUE(heap->contains(all));
    heap->free(all);
    std::vector<void *> blocks;
    for (std::size_t bytes = 1; bytes < largest / 4; bytes = bytes * 3 / 2 + 1)
        if (void *p = heap->malloc(bytes)) blocks.push_back(p);
    EXPECT_TRUE(heap->check());
    for (void *p : blocks)
        heap->free(p);
    support::expect_empty(*heap);
}

TEST(CompactHeap, OverMemoryAndItsMinimum) {
    buffer memory(256 * 1024);
    tlsf::heap heap(memory.data(), memory.size(), tlsf::compact);
    ASSERT_TRUE(heap);
    EXPECT_GT(heap.stats().pool_bytes, FullHeapPoolBytes(memory.size()));
    EXPECT_TRUE(heap.check());
    // Unusable memory: an exception, or an empty heap with std::nothrow.
    EXPECT_THROW(tlsf::heap(nullptr, memory.size(), tlsf::compact), std::invalid_argument);
    EXPECT_THROW(tlsf::heap(memory.data(), tlsf::heap::compact_minimum_bytes - 1, tlsf::compact),
                 std::invalid_argument);
    tlsf::heap empty(memory.data(), 64, tlsf::compact, std::nothrow);
    EXPECT_FALSE(empty);
    // The minimum holds one smallest block.
    tlsf::heap least(memory.data(), tlsf::heap::compact_minimum_bytes, tlsf::compact);
    void *p = least.malloc(tlsf_block_size_min());
    EXPECT_NE(p, nullptr);
    EXPECT_EQ(least.malloc(1), nullptr);
    least.free(p);
    EXPECT_TRUE(least.check());
}

TEST(CompactHeap, LaterMemoryBecomesPoolsNoLargerThanTheFirst) {
    buffer first(16 * 1024);
    buffer more(256 * 1024); // before the heap: its destructor reads the pools' links
    tlsf::heap heap(first.data(), first.size(), tlsf::compact);
    ASSERT_TRUE(heap);
    const std::size_t first_pool = heap.stats().pool_bytes;
    const std::size_t largest = heap.largest_allocatable();
    ASSERT_TRUE(heap.add_pool(more.data(), more.size()));
    EXPECT_GT(heap.stats().pool_count, 2u) << "cut into several pools";
    EXPECT_GT(heap.stats().pool_bytes, first_pool + more.size() * 3 / 4);
    EXPECT_TRUE(heap.check());
    // No block is larger than the first pool could hold, but every pool serves.
    EXPECT_LE(heap.largest_allocatable(), largest + tlsf::alignment);
    EXPECT_EQ(heap.malloc(64 * 1024), nullptr);
    std::vector<void *> blocks;
    while (void *p = heap.malloc(largest / 2))
        blocks.push_back(p);
    EXPECT_GT(blocks.size(), more.size() / largest);
    for (void *p : blocks)
        heap.free(p);
    support::expect_empty(heap);
}

// A pool source that records what it was asked for and hands out memory it owns.
struct recording_source {
    std::vector<std::unique_ptr<buffer>> given;
    std::vector<std::size_t> requests;
    static tlsf::region obtain(std::size_t needed, void *context) {
        auto &self = *static_cast<recording_source *>(context);
        self.requests.push_back(needed);
        self.given.push_back(std::make_unique<buffer>(needed));
        return {self.given.back()->data(), self.given.back()->size()};
    }
};

TEST(CompactHeap, GrowsOnlyForRequestsItsPoolsCanServe) {
    recording_source source; // outlives the heap: it owns the pools
    buffer memory(8 * 1024);
    tlsf::heap heap(memory.data(), memory.size(), tlsf::compact);
    heap.set_pool_source(tlsf::pool_source{&recording_source::obtain, &source});
    const std::size_t largest = heap.largest_allocatable();
    // Larger than any pool of this heap can be: refused without asking the source.
    EXPECT_EQ(heap.malloc(64 * 1024), nullptr);
    EXPECT_TRUE(source.requests.empty());
    // Room runs out for requests a pool can serve: the heap grows.
    std::vector<void *> blocks;
    for (int i = 0; i < 8; ++i) {
        void *p = heap.malloc(largest / 2);
        ASSERT_NE(p, nullptr) << i;
        blocks.push_back(p);
    }
    EXPECT_FALSE(source.requests.empty());
    EXPECT_TRUE(heap.check());
    for (void *p : blocks)
        heap.free(p);
    support::expect_empty(heap);
}

TEST(CompactHeap, AHeapOverMemoryWithoutTheTagKeepsTheFullControlStructure) {
    // heap(memory, bytes) may grow from a pool source to blocks of any size: the full one.
    recording_source source;
    buffer memory(tlsf_size() + 16 * 1024);
    tlsf::heap heap(memory.data(), memory.size());
    EXPECT_LE(heap.stats().pool_bytes, FullHeapPoolBytes(memory.size()));
    heap.set_pool_source(tlsf::pool_source{&recording_source::obtain, &source});
    void *big = heap.malloc(256 * 1024);
    ASSERT_NE(big, nullptr);
    heap.free(big);
    EXPECT_TRUE(heap.check());
}

} // namespace
