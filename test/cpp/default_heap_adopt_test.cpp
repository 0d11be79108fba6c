// SPDX-License-Identifier: MIT
// The default heap adopting a C heap (TLSF_DEFAULT_HEAP_ADOPT=1), with the global operator
// new and delete replaced: every C++ path - new/delete, tlsf::allocator, the memory
// resource - allocates from the C heap this program defines in default_heap_adopt(),
// under that heap's lock, once per operation; C code shares the blocks and the counts.
// The C heap is created on the first call (GoogleTest allocates before main). Plain
// program parts that must run before any allocation (a null handle first) are in
// default_heap_adopt_late_test.cpp.
#include <tlsf/global_new.hpp>
#include <tlsf/tlsf.hpp>

#include <gtest/gtest.h>

#include <map>
#include <new>
#include <string>
#include <vector>

#include "test_support.hpp"

static_assert(TLSF_DEFAULT_HEAP_ADOPT == 1);
static_assert(TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_ADOPTED);
static_assert(TLSF_DEFAULT_HEAP_GROW == 0, "an adopted heap does not grow by itself");

namespace {

// The C side: a heap in a static 4 MiB buffer and its lock, which counts.
struct c_side {
    alignas(16) unsigned char memory[4 * 1024 * 1024];
    tlsf_t heap = nullptr;
    int locks = 0;
    int unlocks = 0;
    int depth = 0;
    bool nested = false;
    int adoptions = 0; // default_heap_adopt() calls
};
c_side c;

void take(void *) {
    ++c.locks;
    if (++c.depth > 1) c.nested = true;
}
void give(void *) {
    ++c.unlocks;
    --c.depth;
}
const tlsf_lock_t c_lock{take, give, nullptr};

} // namespace

tlsf::adopted_heap tlsf::default_heap_adopt() noexcept {
    ++c.adoptions;
    if (c.heap == nullptr) c.heap = tlsf_create_with_pool(c.memory, sizeof c.memory);
    return adopted_heap{c.heap, lock_hooks{c_lock}};
}

namespace {

TEST(AdoptedDefaultHeap, IsTheCHeapAdoptedOnce) {
    tlsf::heap &heap = tlsf::default_heap();
    ASSERT_NE(c.heap, nullptr);
    EXPECT_EQ(heap.native_handle(), c.heap);
    EXPECT_TRUE(heap.adopted());
    EXPECT_EQ(c.adoptions, 1); // GoogleTest's first allocation built it; never again
    EXPECT_EQ(heap.get_lock().lock, &take);
}

TEST(AdoptedDefaultHeap, EveryCppPathTakesTheCLockOnce) {
    (void)tlsf::default_heap();
    tlsf::allocator<int> allocator;
    tlsf::memory_resource resource;
    // Counted first, asserted after: a failing assertion would allocate in between.
    const int before = c.locks;
    void *single = ::operator new(40);
    const int after_new = c.locks;
    ::operator delete(single);
    int *numbers = allocator.allocate(8);
    allocator.deallocate(numbers, 8);
    void *aligned = resource.allocate(64, 64);
    resource.deallocate(aligned, 64, 64);
    void *over = ::operator new (100, std::align_val_t{128});
    ::operator delete (over, std::align_val_t{128});
    ::operator delete(nullptr); // nothing to do: no lock
    const int at_end = c.locks;
    EXPECT_EQ(after_new, before + 1);
    EXPECT_EQ(at_end, before + 8);
    EXPECT_EQ(c.locks, c.unlocks);
    EXPECT_EQ(c.depth, 0);
    EXPECT_FALSE(c.nested);
    EXPECT_TRUE(support::aligned(aligned, 64));
    EXPECT_TRUE(support::aligned(over, 128));
}

TEST(AdoptedDefaultHeap, CAndCppShareBlocksAndCounts) {
    if (!support::stats) GTEST_SKIP() << "TLSF_STATS == 0";
    tlsf_stats_t before{};
    tlsf_locked_get_stats(&c_lock, c.heap, &before);
    auto *text = new std::string(200, 'x'); // two blocks: the string and its characters
    void *from_c = tlsf_locked_malloc(&c_lock, c.heap, 64);
    tlsf_stats_t during{};
    tlsf_locked_get_stats(&c_lock, c.heap, &during);
    EXPECT_EQ(during.live_blocks, before.live_blocks + 3u);
    EXPECT_EQ(tlsf::default_heap().stats().live_blocks, during.live_blocks);
    ::operator delete(from_c); // C's block back through C++
    delete text;
    tlsf_stats_t after{};
    tlsf_locked_get_stats(&c_lock, c.heap, &after);
    EXPECT_EQ(after.live_blocks, before.live_blocks);
    EXPECT_EQ(after.used_bytes, before.used_bytes);
    EXPECT_EQ(tlsf_locked_check(&c_lock, c.heap), 0);
}

TEST(AdoptedDefaultHeap, ContainersLiveInTheCHeap) {
    std::vector<std::map<int, std::string>> tables(4);
    for (int i = 0; i < 200; ++i)
        tables[static_cast<std::size_t>(i % 4)][i] =
            std::string(40, static_cast<char>('a' + i % 26));
    const char *inside = tables[1].at(5).data();
    const auto *begin = c.memory;
    const auto *end = c.memory + sizeof c.memory;
    const auto *byte = reinterpret_cast<const unsigned char *>(inside);
    EXPECT_TRUE(byte >= begin && byte < end);
}

TEST(AdoptedDefaultHeap, OutOfMemoryThrowsAndTheHeapDoesNotGrow) {
    const std::size_t too_big = 8 * 1024 * 1024; // the C heap has 4 MiB
    EXPECT_THROW((void)::operator new(too_big), std::bad_alloc);
    EXPECT_EQ(::operator new(too_big, std::nothrow), nullptr);
    EXPECT_FALSE(tlsf::default_heap().grow(too_big));
    EXPECT_EQ(c.locks, c.unlocks);
}

} // namespace
