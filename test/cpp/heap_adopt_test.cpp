// SPDX-License-Identifier: MIT
// tlsf::heap adopting a C heap someone else owns (heap(tlsf::adopt, handle, lock)): every
// operation on the C heap under the owner's lock, blocks shared both ways, the owner's
// error handler kept, nothing done to the C heap when the view ends, a null handle as an
// empty heap.
#include <tlsf/allocator.hpp>
#include <tlsf/heap.hpp>
#include <tlsf/memory_resource.hpp>

#include <gtest/gtest.h>

#include <map>
#include <type_traits>

#include "test_support.hpp"

namespace {

using support::aligned;
using support::buffer;

static_assert(std::is_nothrow_constructible_v<tlsf::heap, tlsf::adopt_t, tlsf_t>);
static_assert(
    std::is_nothrow_constructible_v<tlsf::heap, tlsf::adopt_t, tlsf_t, const tlsf::lock_hooks &>);
static_assert(!std::is_convertible_v<tlsf_t, tlsf::heap>, "adoption is explicit: tlsf::adopt");

// The owner's lock, as a C tlsf_lock_t: counts and checks that it never nests.
struct counting_lock {
    int locks = 0;
    int unlocks = 0;
    int depth = 0;
    bool nested = false;

    tlsf_lock_t c_lock() {
        return tlsf_lock_t{[](void *self) {
                               auto *lock = static_cast<counting_lock *>(self);
                               ++lock->locks;
                               if (++lock->depth > 1) lock->nested = true;
                           },
                           [](void *self) {
                               auto *lock = static_cast<counting_lock *>(self);
                               ++lock->unlocks;
                               --lock->depth;
                           },
                           this};
    }
};

// A C heap and its owner's lock, as a C library or an RTOS port would have them.
class Adopted : public ::testing::Test {
  protected:
    Adopted()
        : memory_(256 * 1024), c_heap_(tlsf_create_with_pool(memory_.data(), memory_.size())) {
        c_lock_ = lock_.c_lock();
    }
    ~Adopted() override { tlsf_destroy(c_heap_); }

    buffer memory_;
    tlsf_t c_heap_;
    counting_lock lock_;
    tlsf_lock_t c_lock_{};
};

TEST_F(Adopted, EveryOperationWorksOnTheCHeapUnderItsLock) {
    ASSERT_NE(c_heap_, nullptr);
    tlsf::heap view(tlsf::adopt, c_heap_, c_lock_);
    ASSERT_TRUE(view);
    EXPECT_TRUE(view.adopted());
    EXPECT_EQ(view.native_handle(), c_heap_);
    EXPECT_EQ(view.get_lock().context, &lock_);

    void *a = view.malloc(100);
    void *b = view.calloc(10, 10);
    void *c = view.memalign(256, 64);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(aligned(c, 256));
    a = view.realloc(a, 1000);
    ASSERT_NE(a, nullptr);
    EXPECT_GE(view.usable_size(a), 1000u);
    if (support::stats) {
        tlsf_stats_t c_stats{};
        tlsf_get_stats(c_heap_, &c_stats);
        EXPECT_EQ(c_stats.live_blocks, 3u); // the C heap's own counts: the same blocks
        EXPECT_EQ(view.stats().live_blocks, 3u);
        EXPECT_EQ(view.stats().used_bytes, c_stats.used_bytes);
    }
    view.free(a);
    view.free(b);
    view.free(c);
    EXPECT_TRUE(view.check());
    EXPECT_EQ(lock_.locks, lock_.unlocks);
    EXPECT_GE(lock_.locks, 11); // each call above once (check and stats included)
    EXPECT_FALSE(lock_.nested);
    EXPECT_EQ(lock_.depth, 0);
}

TEST_F(Adopted, BlocksCrossBetweenCAndCpp) {
    tlsf::heap view(tlsf::adopt, c_heap_, c_lock_);
    void *from_c = tlsf_locked_malloc(&c_lock_, c_heap_, 64);
    void *from_cpp = view.malloc(64);
    ASSERT_NE(from_c, nullptr);
    ASSERT_NE(from_cpp, nullptr);
    view.free(from_c);
    tlsf_locked_free(&c_lock_, c_heap_, from_cpp);
    if (support::stats) {
        tlsf_stats_t c_stats{};
        tlsf_get_stats(c_heap_, &c_stats);
        EXPECT_EQ(c_stats.live_blocks, 0u);
        EXPECT_EQ(c_stats.alloc_count, 2u);
    }
    EXPECT_EQ(tlsf_check(c_heap_), 0);
}

TEST_F(Adopted, ContainersAllocatorsAndResourcesUseIt) {
    tlsf::heap view(tlsf::adopt, c_heap_, c_lock_);
    {
        std::map<int, int, std::less<int>, tlsf::allocator<std::pair<const int, int>>> squares{
            tlsf::allocator<std::pair<const int, int>>(view)};
        for (int i = 0; i < 100; ++i)
            squares.emplace(i, i * i);
        if (support::stats) {
            EXPECT_EQ(view.stats().live_blocks, 100u);
        }
#if defined(__cpp_lib_memory_resource)
        tlsf::memory_resource resource{view};
        void *block = resource.allocate(40, 128);
        EXPECT_TRUE(aligned(block, 128));
        resource.deallocate(block, 40, 128);
#endif
    }
    support::expect_empty(view);
    EXPECT_EQ(lock_.locks, lock_.unlocks);
    EXPECT_FALSE(lock_.nested);
}

TEST_F(Adopted, TheViewsEndLeavesTheCHeapAsItWas) {
    void *survivor = nullptr;
    {
        tlsf::heap view(tlsf::adopt, c_heap_, c_lock_);
        survivor = view.malloc(500);
        ASSERT_NE(survivor, nullptr);
        view.free(view.malloc(24)); // with the front cache, it may stay cached
    }
    // The block is still allocated in the C heap, which still works.
    EXPECT_EQ(tlsf_check(c_heap_), 0);
    EXPECT_GE(tlsf_usable_size(c_heap_, survivor), 500u);
    if (support::stats) {
        tlsf_stats_t c_stats{};
        tlsf_get_stats(c_heap_, &c_stats);
        EXPECT_EQ(c_stats.live_blocks, 1u);
    }
    tlsf_free(c_heap_, survivor);
    void *again = tlsf_malloc(c_heap_, 100);
    EXPECT_NE(again, nullptr);
    tlsf_free(c_heap_, again);
}

// The error handler: the owner's stays until the view replaces it.
struct misuse_log {
    int reports = 0;
    tlsf_error_t last = TLSF_ERROR_NONE;
    static void record(tlsf_t, tlsf_error_t reason, const void *, void *user) {
        auto *log = static_cast<misuse_log *>(user);
        ++log->reports;
        log->last = reason;
    }
};

TEST_F(Adopted, TheOwnersErrorHandlerStaysUntilReplaced) {
    if (TLSF_CHECKS < 1) GTEST_SKIP() << "TLSF_CHECKS == 0: a double free is not detected";
    misuse_log owner;
    tlsf_set_error_handler(c_heap_, &misuse_log::record, &owner);
    tlsf::heap view(tlsf::adopt, c_heap_, c_lock_);
    void *block = view.malloc(32);
    view.free(block);
    view.free(block); // a double free: the owner hears of it, nothing aborts
    EXPECT_EQ(owner.reports, 1);
    EXPECT_NE(owner.last, TLSF_ERROR_NONE);

    misuse_log mine;
    view.set_error_handler(&misuse_log::record, &mine);
    view.free(block);
    EXPECT_EQ(mine.reports, 1);
    EXPECT_EQ(owner.reports, 1);
    EXPECT_EQ(tlsf_check(c_heap_), 0);
}

TEST_F(Adopted, CheckSeesTheControlStructureNotTheOwnersPools) {
    tlsf::heap view(tlsf::adopt, c_heap_, c_lock_);
    void *block = view.malloc(64);
    EXPECT_TRUE(view.check());
    EXPECT_FALSE(view.contains(block)); // the pools are the owner's: documented
    view.free(block);
}

TEST_F(Adopted, AddPoolGivesTheCHeapMoreMemory) {
    buffer more(64 * 1024); // outlives the view, which unpoisons its pools when it ends
    tlsf::heap view(tlsf::adopt, c_heap_, c_lock_);
    const std::size_t largest = view.largest_allocatable();
    ASSERT_TRUE(view.add_pool(more.data(), more.size()));
    EXPECT_TRUE(view.contains(more.data() + 4096)); // this pool the view knows
    EXPECT_EQ(tlsf_check(c_heap_), 0);
    EXPECT_GE(view.largest_allocatable(), largest);
    if (support::stats) {
        tlsf_stats_t c_stats{};
        tlsf_get_stats(c_heap_, &c_stats);
        EXPECT_EQ(c_stats.pool_count, 2u);
    }
}

TEST(AdoptedNull, IsAnEmptyHeapThatOwnsWhatItIsGiven) {
    buffer memory(128 * 1024); // outlives the heap
    tlsf::heap view(tlsf::adopt, nullptr);
    EXPECT_FALSE(view);
    EXPECT_FALSE(view.adopted());
    EXPECT_EQ(view.malloc(16), nullptr);
    EXPECT_TRUE(view.check());
    ASSERT_TRUE(view.add_pool(memory.data(), memory.size())); // its own control structure
    EXPECT_TRUE(view);
    EXPECT_FALSE(view.adopted());
    void *block = view.malloc(16);
    EXPECT_TRUE(view.contains(block));
    view.free(block);
}

} // namespace
