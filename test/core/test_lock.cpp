// SPDX-License-Identifier: MIT
//
// The C lock hook (tlsf_lock.h): every tlsf_locked_* call takes the lock exactly once and
// gives it back exactly once, on success, on failure (NULL returned) and on misuse
// reported to the error handler; the core call runs in between (the heap as seen by the
// lock function differs from the heap seen by the unlock function exactly when the call
// changes it); NULL locks, null halves and NULL heaps behave as documented.
#include <tlsf_lock.h>

#include "tlsf_test_support.h"

#include <cstdint>
#include <vector>

namespace {

using tlsf_test::Heap;

// What the lock functions see: nesting depth, counts, and the heap's used blocks at each
// acquire and release (read through tlsf_walk_pool, which works in every configuration,
// TLSF_STATS=0 included). The heaps of these tests run without the front cache, so that a
// freed block is free in the walk at once (a cached one is still a block in use there).
struct LockProbe {
    Heap *heap = nullptr;
    int depth = 0;
    int max_depth = 0;
    int acquires = 0;
    int releases = 0;
    std::vector<std::size_t> used_at_acquire;
    std::vector<std::size_t> used_at_release;

    std::size_t UsedBlocks() const {
        std::size_t used = 0;
        if (heap == nullptr) return 0;
        for (pool_t pool : heap->pools())
            for (const auto &block : tlsf_test::Walk(pool))
                used += block.used ? 1 : 0;
        return used;
    }
    static void Lock(void *context) {
        auto *probe = static_cast<LockProbe *>(context);
        probe->used_at_acquire.push_back(probe->UsedBlocks());
        ++probe->acquires;
        if (++probe->depth > probe->max_depth) probe->max_depth = probe->depth;
    }
    static void Unlock(void *context) {
        auto *probe = static_cast<LockProbe *>(context);
        --probe->depth;
        ++probe->releases;
        probe->used_at_release.push_back(probe->UsedBlocks());
    }
    tlsf_lock_t AsLock() { return tlsf_lock_t{&Lock, &Unlock, this}; }

    // Exactly one acquire and one release, not nested, lock free again.
    ::testing::AssertionResult TakenOnceAndReleased() const {
        if (acquires != 1 || releases != 1 || depth != 0 || max_depth != 1)
            return ::testing::AssertionFailure()
                   << "acquires " << acquires << ", releases " << releases << ", depth " << depth
                   << ", max depth " << max_depth;
        return ::testing::AssertionSuccess();
    }
    // The call changed the number of used blocks by `delta` between acquire and release.
    ::testing::AssertionResult UsedChangedUnderLock(long delta) const {
        if (used_at_acquire.size() != 1 || used_at_release.size() != 1)
            return ::testing::AssertionFailure() << "not exactly one acquire and release";
        const long change =
            static_cast<long>(used_at_release[0]) - static_cast<long>(used_at_acquire[0]);
        if (change != delta)
            return ::testing::AssertionFailure() << "used blocks changed by " << change;
        return ::testing::AssertionSuccess();
    }
    void Reset() {
        acquires = releases = max_depth = 0;
        used_at_acquire.clear();
        used_at_release.clear();
    }
};

// An error handler that records the lock depth it ran at (it must run under the lock).
struct HandlerProbe {
    LockProbe *lock = nullptr;
    std::vector<int> depths;
    std::vector<tlsf_error_t> reasons;
    static void Handler(tlsf_t, tlsf_error_t reason, const void *, void *user) {
        auto *self = static_cast<HandlerProbe *>(user);
        self->depths.push_back(self->lock->depth);
        self->reasons.push_back(reason);
    }
};

class LockedCalls : public ::testing::Test {
  protected:
    LockedCalls() : heap_(64 * 1024) {
        tlsf_cache_set_limit(heap_, 0);
        probe_.heap = &heap_;
        lock_ = probe_.AsLock();
        handler_.lock = &probe_;
        tlsf_set_error_handler(heap_, &HandlerProbe::Handler, &handler_);
    }
    Heap heap_;
    LockProbe probe_;
    HandlerProbe handler_;
    tlsf_lock_t lock_{};
};

// ---- Allocation: success and failure --------------------------------------------------------

TEST_F(LockedCalls, MallocTakesTheLockAroundTheAllocation) {
    void *p = tlsf_locked_malloc(&lock_, heap_, 100);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_TRUE(probe_.UsedChangedUnderLock(+1));
    tlsf_free(heap_, p);
}

TEST_F(LockedCalls, MallocFailureStillReleases) {
    EXPECT_EQ(tlsf_locked_malloc(&lock_, heap_, SIZE_MAX), nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_TRUE(probe_.UsedChangedUnderLock(0));
    probe_.Reset();
    // Larger than the pool, but a size the classes can represent.
    EXPECT_EQ(tlsf_locked_malloc(&lock_, heap_, 1024 * 1024), nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
}

TEST_F(LockedCalls, MallocZeroIsAMinimumBlockUnderTheLock) {
    void *p = tlsf_locked_malloc(&lock_, heap_, 0);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(probe_.UsedChangedUnderLock(+1));
    tlsf_free(heap_, p);
}

TEST_F(LockedCalls, CallocZeroesUnderTheLockAndReleasesOnOverflow) {
    auto *p = static_cast<unsigned char *>(tlsf_locked_calloc(&lock_, heap_, 10, 10));
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_TRUE(probe_.UsedChangedUnderLock(+1));
    EXPECT_TRUE(tlsf_test::AllBytes(p, 100, 0));
    probe_.Reset();
    EXPECT_EQ(tlsf_locked_calloc(&lock_, heap_, SIZE_MAX / 2, 3), nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_TRUE(probe_.UsedChangedUnderLock(0));
    tlsf_free(heap_, p);
}

TEST_F(LockedCalls, MemalignFamilyAndItsBadArguments) {
    void *a = tlsf_locked_memalign(&lock_, heap_, 256, 40);
    ASSERT_NE(a, nullptr);
    EXPECT_TRUE(tlsf_test::IsAligned(a, 256));
    EXPECT_TRUE(probe_.UsedChangedUnderLock(+1));
    probe_.Reset();

    void *b = tlsf_locked_aligned_alloc(&lock_, heap_, 128, 8);
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(tlsf_test::IsAligned(b, 128));
    EXPECT_TRUE(probe_.UsedChangedUnderLock(+1));
    probe_.Reset();

    const std::size_t offset = tlsf_align_size();
    void *c = tlsf_locked_memalign_offset(&lock_, heap_, 64, 100, offset);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(tlsf_test::IsAligned(static_cast<char *>(c) + offset, 64));
    EXPECT_TRUE(probe_.UsedChangedUnderLock(+1));

    // Not a power of two, zero, and an offset past the block: NULL, the heap unchanged,
    // the lock released each time.
    for (std::size_t align : {std::size_t(0), std::size_t(3), std::size_t(48)}) {
        probe_.Reset();
        EXPECT_EQ(tlsf_locked_memalign(&lock_, heap_, align, 16), nullptr) << align;
        EXPECT_TRUE(probe_.TakenOnceAndReleased()) << align;
        EXPECT_TRUE(probe_.UsedChangedUnderLock(0)) << align;
        probe_.Reset();
        EXPECT_EQ(tlsf_locked_aligned_alloc(&lock_, heap_, align, 16), nullptr) << align;
        EXPECT_TRUE(probe_.TakenOnceAndReleased()) << align;
    }
    probe_.Reset();
    EXPECT_EQ(tlsf_locked_memalign_offset(&lock_, heap_, 64, 16, 64), nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_TRUE(probe_.UsedChangedUnderLock(0));

    for (void *p : {a, b, c})
        tlsf_free(heap_, p);
}

// ---- realloc: every branch ----------------------------------------------------------------

TEST_F(LockedCalls, ReallocNullPointerAllocates) {
    void *p = tlsf_locked_realloc(&lock_, heap_, nullptr, 64);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_TRUE(probe_.UsedChangedUnderLock(+1));
    tlsf_free(heap_, p);
}

TEST_F(LockedCalls, ReallocGrowsShrinksAndFreesUnderTheLock) {
    void *p = tlsf_malloc(heap_, 64);
    void *pin = tlsf_malloc(heap_, 64); // keeps p from growing in place
    ASSERT_NE(p, nullptr);
    ASSERT_NE(pin, nullptr);
    void *q = tlsf_locked_realloc(&lock_, heap_, p, 4096);
    ASSERT_NE(q, nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_TRUE(probe_.UsedChangedUnderLock(0)); // moved: one allocated, one freed
    probe_.Reset();

    void *r = tlsf_locked_realloc(&lock_, heap_, q, 16);
    EXPECT_EQ(r, q);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    probe_.Reset();

    EXPECT_EQ(tlsf_locked_realloc(&lock_, heap_, r, 0), nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_TRUE(probe_.UsedChangedUnderLock(-1));
    tlsf_free(heap_, pin);
}

TEST_F(LockedCalls, ReallocFailureKeepsTheBlockAndReleases) {
    void *p = tlsf_malloc(heap_, 64);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(tlsf_locked_realloc(&lock_, heap_, p, SIZE_MAX), nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_TRUE(probe_.UsedChangedUnderLock(0));
    EXPECT_GE(tlsf_block_size(p), 64u);
    tlsf_free(heap_, p);
}

// ---- free and misuse ------------------------------------------------------------------------

TEST_F(LockedCalls, FreeTakesTheLockAroundTheFree) {
    void *p = tlsf_malloc(heap_, 200);
    ASSERT_NE(p, nullptr);
    tlsf_locked_free(&lock_, heap_, p);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_TRUE(probe_.UsedChangedUnderLock(-1));
    EXPECT_EQ(heap_.Errors(), 0);
}

TEST_F(LockedCalls, FreeOfNullIsIgnoredButBalanced) {
    tlsf_locked_free(&lock_, heap_, nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_TRUE(probe_.UsedChangedUnderLock(0));
}

// The error handler hears misuse while the lock is held, and the lock is released after.
TEST_F(LockedCalls, DoubleFreeIsReportedUnderTheLockThenReleased) {
    if (TLSF_CHECKS < 1) GTEST_SKIP() << "TLSF_CHECKS == 0: a double free is not detected";
    void *keep = tlsf_malloc(heap_, 32); // so the freed block stays a block of its own
    void *p = tlsf_malloc(heap_, 32);
    void *after = tlsf_malloc(heap_, 32);
    tlsf_free(heap_, p);
    tlsf_locked_free(&lock_, heap_, p);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    ASSERT_EQ(handler_.reasons.size(), 1u);
    EXPECT_EQ(handler_.reasons[0], TLSF_ERROR_DOUBLE_FREE);
    EXPECT_EQ(handler_.depths[0], 1);
    EXPECT_EQ(heap_.Errors(), 0);
    tlsf_free(heap_, keep);
    tlsf_free(heap_, after);
}

TEST_F(LockedCalls, MisalignedFreeAndReallocAreReportedUnderTheLock) {
    if (TLSF_CHECKS < 1) GTEST_SKIP() << "TLSF_CHECKS == 0: a misaligned pointer is not detected";
    void *p = tlsf_malloc(heap_, 64);
    ASSERT_NE(p, nullptr);
    void *bad = static_cast<char *>(p) + 1;
    tlsf_locked_free(&lock_, heap_, bad);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    probe_.Reset();
    EXPECT_EQ(tlsf_locked_realloc(&lock_, heap_, bad, 128), nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    ASSERT_EQ(handler_.reasons.size(), 2u);
    EXPECT_EQ(handler_.reasons[0], TLSF_ERROR_BAD_POINTER);
    EXPECT_EQ(handler_.reasons[1], TLSF_ERROR_BAD_POINTER);
    EXPECT_EQ(handler_.depths[0], 1);
    EXPECT_EQ(handler_.depths[1], 1);
    tlsf_free(heap_, p);
}

// ---- Pools and inspection ------------------------------------------------------------------

TEST_F(LockedCalls, AddAndRemovePoolUnderTheLock) {
    tlsf_test::Region region(16 * 1024);
    pool_t pool = tlsf_locked_add_pool(&lock_, heap_, region.data(), region.size());
    ASSERT_NE(pool, nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_EQ(tlsf_check_pool(pool), 0);
    probe_.Reset();
    tlsf_locked_remove_pool(&lock_, heap_, pool);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_EQ(tlsf_check(heap_), 0);
}

TEST_F(LockedCalls, BadPoolIsReportedUnderTheLockAndReleased) {
    tlsf_test::Region region(4096);
    // Misaligned memory and a size too small for one block: NULL, reported, released.
    EXPECT_EQ(tlsf_locked_add_pool(&lock_, heap_, region.data() + 1, 1024), nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    probe_.Reset();
    EXPECT_EQ(tlsf_locked_add_pool(&lock_, heap_, region.data(), 1), nullptr);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    ASSERT_EQ(handler_.reasons.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(handler_.reasons[i], TLSF_ERROR_BAD_POOL);
        EXPECT_EQ(handler_.depths[i], 1);
    }
}

TEST_F(LockedCalls, PoolInUseIsReportedUnderTheLock) {
    pool_t pool = heap_.pools().front();
    void *p = tlsf_malloc(heap_, 64);
    ASSERT_NE(p, nullptr);
    tlsf_locked_remove_pool(&lock_, heap_, pool);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    ASSERT_EQ(handler_.reasons.size(), 1u);
    EXPECT_EQ(handler_.reasons[0], TLSF_ERROR_POOL_IN_USE);
    EXPECT_EQ(handler_.depths[0], 1);
    tlsf_free(heap_, p);
}

TEST_F(LockedCalls, InspectionCallsAreBalancedAndAgreeWithThePlainCalls) {
    void *p = tlsf_malloc(heap_, 300);
    ASSERT_NE(p, nullptr);

    EXPECT_EQ(tlsf_locked_block_size(&lock_, p), tlsf_block_size(p));
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    probe_.Reset();

    EXPECT_EQ(tlsf_locked_largest_allocatable(&lock_, heap_), tlsf_largest_allocatable(heap_));
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    probe_.Reset();

    tlsf_stats_t locked_stats = tlsf_test::Stats(heap_);
    std::memset(&locked_stats, 0xAB, sizeof locked_stats);
    tlsf_locked_get_stats(&lock_, heap_, &locked_stats);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    const tlsf_stats_t plain = tlsf_test::Stats(heap_);
    EXPECT_EQ(locked_stats.pool_bytes, plain.pool_bytes);
    EXPECT_EQ(locked_stats.used_bytes, plain.used_bytes);
    EXPECT_EQ(locked_stats.live_blocks, plain.live_blocks);
    probe_.Reset();

    tlsf_locked_cache_flush(&lock_, heap_);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    probe_.Reset();

    EXPECT_EQ(tlsf_locked_cache_set_limit(&lock_, heap_, 0), 0u);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    probe_.Reset();

    tlsf_locked_reset_peak(&lock_, heap_);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_EQ(tlsf_test::Stats(heap_).peak_used_bytes, tlsf_test::Stats(heap_).used_bytes);
    probe_.Reset();

    EXPECT_EQ(tlsf_locked_check(&lock_, heap_), 0);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    probe_.Reset();

    EXPECT_EQ(tlsf_locked_check_pool(&lock_, heap_.pools().front()), 0);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    tlsf_free(heap_, p);
}

TEST_F(LockedCalls, WalkerRunsUnderTheLock) {
    struct Seen {
        LockProbe *probe;
        int blocks = 0;
        int unlocked_calls = 0;
    } seen{&probe_};
    tlsf_locked_walk_pool(
        &lock_, heap_.pools().front(),
        [](void *, std::size_t, int, void *user) {
            auto *s = static_cast<Seen *>(user);
            ++s->blocks;
            if (s->probe->depth != 1) ++s->unlocked_calls;
        },
        &seen);
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
    EXPECT_GE(seen.blocks, 1);
    EXPECT_EQ(seen.unlocked_calls, 0);
    probe_.Reset();
    tlsf_locked_walk_pool(&lock_, heap_.pools().front(), nullptr, nullptr); // NULL walker
    EXPECT_TRUE(probe_.TakenOnceAndReleased());
}

// With the front cache on, a locked free that caches the block and a locked malloc that
// pops it back are still one acquire and one release each, and the flush that gives the
// block back to the lists runs under the lock too.
TEST(LockHook, CachedFreeAndFlushAreLocked) {
    Heap heap(64 * 1024);
    LockProbe probe;
    const tlsf_lock_t lock{&LockProbe::Lock, &LockProbe::Unlock, &probe};
    void *keep = tlsf_malloc(heap, 16); // so the block below is not at the pool's end
    void *p = tlsf_malloc(heap, 16);
    void *after = tlsf_malloc(heap, 16);
    ASSERT_NE(p, nullptr);
    tlsf_locked_free(&lock, heap, p);
    void *again = tlsf_locked_malloc(&lock, heap, 16);
    if (TLSF_CACHE) {
        EXPECT_EQ(again, p); // popped from the cache: the same block
    }
    tlsf_locked_free(&lock, heap, again);
    tlsf_locked_cache_flush(&lock, heap);
    EXPECT_EQ(probe.acquires, 4);
    EXPECT_EQ(probe.releases, 4);
    EXPECT_EQ(probe.max_depth, 1);
    EXPECT_EQ(tlsf_locked_check(&lock, heap), 0);
    tlsf_free(heap, keep);
    tlsf_free(heap, after);
    EXPECT_EQ(heap.Errors(), 0);
}

// ---- NULL and partial locks, NULL heaps ----------------------------------------------------

TEST(LockHook, NullLockIsThePlainCall) {
    Heap heap(16 * 1024);
    void *p = tlsf_locked_malloc(nullptr, heap, 64);
    ASSERT_NE(p, nullptr);
    p = tlsf_locked_realloc(nullptr, heap, p, 256);
    ASSERT_NE(p, nullptr);
    tlsf_locked_free(nullptr, heap, p);
    EXPECT_EQ(tlsf_locked_check(nullptr, heap), 0);
    tlsf_lock_acquire(nullptr);
    tlsf_lock_release(nullptr);
    EXPECT_EQ(heap.Errors(), 0);
}

TEST(LockHook, NoneLockHasNoFunctions) {
    Heap heap(16 * 1024);
    const tlsf_lock_t none = TLSF_NO_LOCK;
    EXPECT_EQ(none.lock, nullptr);
    EXPECT_EQ(none.unlock, nullptr);
    EXPECT_EQ(none.context, nullptr);
    void *p = tlsf_locked_calloc(&none, heap, 4, 8);
    ASSERT_NE(p, nullptr);
    tlsf_locked_free(&none, heap, p);
    EXPECT_EQ(heap.Errors(), 0);
}

TEST(LockHook, EachHalfIsCalledWhenPresent) {
    Heap heap(16 * 1024);
    LockProbe probe;
    const tlsf_lock_t lock_only{&LockProbe::Lock, nullptr, &probe};
    tlsf_locked_free(&lock_only, heap, nullptr);
    EXPECT_EQ(probe.acquires, 1);
    EXPECT_EQ(probe.releases, 0);
    const tlsf_lock_t unlock_only{nullptr, &LockProbe::Unlock, &probe};
    tlsf_locked_free(&unlock_only, heap, nullptr);
    EXPECT_EQ(probe.acquires, 1);
    EXPECT_EQ(probe.releases, 1);
    EXPECT_EQ(probe.depth, 0);
}

// A NULL heap (refused by the core when TLSF_CHECKS >= 1) still leaves the lock balanced.
TEST(LockHook, NullHeapReturnsNullAndReleases) {
    if (TLSF_CHECKS < 1) GTEST_SKIP() << "TLSF_CHECKS == 0: a NULL heap is the caller's promise";
    LockProbe probe;
    const tlsf_lock_t lock{&LockProbe::Lock, &LockProbe::Unlock, &probe};
    EXPECT_EQ(tlsf_locked_malloc(&lock, nullptr, 16), nullptr);
    EXPECT_EQ(tlsf_locked_calloc(&lock, nullptr, 1, 16), nullptr);
    EXPECT_EQ(tlsf_locked_memalign(&lock, nullptr, 64, 16), nullptr);
    EXPECT_EQ(tlsf_locked_memalign_offset(&lock, nullptr, 64, 16, 0), nullptr);
    EXPECT_EQ(tlsf_locked_aligned_alloc(&lock, nullptr, 64, 16), nullptr);
    EXPECT_EQ(tlsf_locked_realloc(&lock, nullptr, nullptr, 16), nullptr);
    tlsf_locked_free(&lock, nullptr, nullptr);
    EXPECT_EQ(tlsf_locked_add_pool(&lock, nullptr, nullptr, 1024), nullptr);
    tlsf_locked_remove_pool(&lock, nullptr, nullptr);
    EXPECT_EQ(tlsf_locked_largest_allocatable(&lock, nullptr), 0u);
    EXPECT_EQ(tlsf_locked_check(&lock, nullptr), 1);
    tlsf_locked_reset_peak(&lock, nullptr);
    tlsf_locked_get_stats(&lock, nullptr, nullptr);
    EXPECT_EQ(tlsf_locked_block_size(&lock, nullptr), 0u);
    tlsf_locked_cache_flush(&lock, nullptr);
    EXPECT_EQ(tlsf_locked_cache_set_limit(&lock, nullptr, 100), 0u);
    EXPECT_EQ(probe.acquires, 16);
    EXPECT_EQ(probe.releases, 16);
    EXPECT_EQ(probe.max_depth, 1);
    EXPECT_EQ(probe.depth, 0);
}

// Many calls in a row: never nested, always balanced, heap consistent.
TEST_F(LockedCalls, ManyCallsStayBalanced) {
    tlsf_test::Rng rng(14);
    std::vector<void *> live;
    for (int i = 0; i < 2000; ++i) {
        if (live.empty() || !rng.Chance(33)) {
            if (void *p = tlsf_locked_malloc(&lock_, heap_, rng.Below(512))) live.push_back(p);
        } else {
            const std::size_t k = rng.Below(live.size());
            tlsf_locked_free(&lock_, heap_, live[k]);
            live[k] = live.back();
            live.pop_back();
        }
    }
    EXPECT_EQ(probe_.acquires, 2000);
    EXPECT_EQ(probe_.releases, 2000);
    EXPECT_EQ(probe_.max_depth, 1);
    EXPECT_EQ(probe_.depth, 0);
    for (void *p : live)
        tlsf_free(heap_, p);
    EXPECT_EQ(heap_.Errors(), 0);
}

} // namespace
