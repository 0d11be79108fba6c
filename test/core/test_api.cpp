// SPDX-License-Identifier: MIT
// Unit tests of every public function of tlsf.h and every documented bad-input case.
#include "tlsf_test_support.h"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>

using namespace tlsf_test;

namespace {

constexpr bool kStats = TLSF_STATS != 0;
constexpr bool kChecks = TLSF_CHECKS >= 1;

// A pool size every configuration can hold (small configs have a small block_size_max).
std::size_t SmallPool() {
    return std::min<std::size_t>(std::size_t(1) << 16, tlsf_block_size_max() / 4);
}
std::size_t MediumPool() {
    return std::min<std::size_t>(std::size_t(1) << 18, tlsf_block_size_max() / 4);
}
std::size_t BigPool() {
    return std::min<std::size_t>(std::size_t(1) << 22, tlsf_block_size_max() / 2);
}

// Requests no heap in these tests can satisfy: near SIZE_MAX, and around block_size_max.
std::vector<std::size_t> HugeSizes() {
    const std::size_t m = SIZE_MAX, w = Word(), a = Align(), b = tlsf_block_size_max();
    SizeClasses c;
    return {m,
            m - 1,
            m - w,
            m - a,
            m - 2 * a + 1,
            m / 2,
            m / 2 + 1,
            b - w - 1,
            b - w,
            b - w + 1,
            b - 1,
            b,
            b + 1,
            2 * b,
            c.MaxRequest(),
            c.MaxRequest() + 1,
            BigPool() * 4};
}

std::vector<std::size_t> BadAlignments() {
    const std::size_t a = Align();
    return {0,
            3,
            5,
            6,
            7,
            9,
            12,
            24,
            a + 1,
            3 * a,
            a * 2 + a / 2,
            1000,
            (std::size_t(1) << 20) | 1,
            SIZE_MAX / 2,
            SIZE_MAX,
            SIZE_MAX - 1};
}

#define TLSF_TEST_STR_(x) #x
#define TLSF_TEST_STR(x) TLSF_TEST_STR_(x)

} // namespace

// ---- Constants -------------------------------------------------------------------------------

TEST(Constants, AlignmentIsAPowerOfTwoOfAtLeastTwoWords) {
    EXPECT_TRUE(IsPowerOfTwo(tlsf_align_size()));
    EXPECT_GE(tlsf_align_size(), 2 * sizeof(void *));
    EXPECT_EQ(tlsf_align_size(), std::size_t(1) << TLSF_ALIGN_LOG2);
}

// tlsf.h: "Every pointer returned is aligned to tlsf_align_size() (alignof(max_align_t) by
// default". Every other test checks tlsf_align_size(); this one checks that it covers
// max_align_t, so memory from the heap suits any object type.
TEST(Constants, AlignmentCoversMaxAlignT) {
#if defined(__i386__) && TLSF_ALIGN_LOG2 == 3
    GTEST_SKIP() << "the Cortex-M4 layout on a 32-bit host (scripts/test-all.sh m32-m4layout): "
                    "8-byte alignment, ARM's max_align_t, below the host's on purpose";
#endif
    EXPECT_GE(tlsf_align_size(), alignof(std::max_align_t))
        << "pointers from the heap are not suitably aligned for every type on this target";
}

TEST(Constants, SizesAreConsistent) {
    EXPECT_GT(tlsf_size(), 0u);
    EXPECT_EQ(tlsf_size() % Align(), 0u);
    // "one machine word" (TLSF_CHECKS >= 2 adds a seal word to every header, unless the seal
    // fits in the size word's spare high bits: 64-bit targets).
    const bool seal_in_word =
        TLSF_CHECKS >= 2 && sizeof(std::size_t) * 8 - TLSF_MAX_BLOCK_LOG2 - 1 >= 16;
    if (TLSF_CHECKS < 2 || seal_in_word) {
        EXPECT_EQ(tlsf_alloc_overhead(), sizeof(std::size_t));
    } else {
        EXPECT_GT(tlsf_alloc_overhead(), sizeof(std::size_t));
    }
    // A free block holds two list links.
    EXPECT_GE(tlsf_block_size_min(), 2 * sizeof(void *));
    // The size-class model of these tests: the smallest block with its header is aligned.
    EXPECT_GT(MinUsable(), 0u);
    EXPECT_EQ(MinSpan() % Align(), 0u);
    EXPECT_EQ(tlsf_block_size_max(), std::size_t(1) << TLSF_MAX_BLOCK_LOG2);
    EXPECT_GT(tlsf_pool_overhead(), 0u);
    EXPECT_LT(MinPoolBytes(), tlsf_block_size_max());
}

TEST(Constants, AbiTagNamesTheConfiguration) {
    const std::string tag =
        "_a" + std::to_string(TLSF_ALIGN_LOG2) + "_s" + std::to_string(TLSF_SL_INDEX_LOG2) + "_m" +
        std::to_string(TLSF_MAX_BLOCK_LOG2) + "_t" + std::to_string(TLSF_STATS) + "_c" +
        std::to_string(TLSF_CHECKS) + "_k" + std::to_string(TLSF_CACHE ? TLSF_CACHE_BYTES : 0) +
        (TLSF_CACHE && TLSF_CACHE_DRAIN_STALE ? "s" : "") + (TLSF_CACHE && TLSF_SLABS ? "l" : "");
    EXPECT_EQ(std::string(TLSF_TEST_STR(tlsf_malloc)), "tlsf_malloc" + tag);
    EXPECT_EQ(std::string(TLSF_TEST_STR(tlsf_create)), "tlsf_create" + tag);
    EXPECT_EQ(std::string(TLSF_TEST_STR(tlsf_free)), "tlsf_free" + tag);
    EXPECT_EQ(std::string(TLSF_TEST_STR(tlsf_error_string)), "tlsf_error_string" + tag);
    // Calling through the macro names reaches the tagged symbols.
    void *(*malloc_fn)(tlsf_t, std::size_t) = &tlsf_malloc;
    void (*free_fn)(tlsf_t, void *) = &tlsf_free;
    Heap h(SmallPool());
    void *p = malloc_fn(h, 10);
    ASSERT_NE(p, nullptr);
    free_fn(h, p);
    EXPECT_EQ(h.Errors(), 0);
}

// ---- tlsf_create / tlsf_create_with_pool / tlsf_destroy / tlsf_get_pool ------------------------

TEST(Create, RejectsNullAndMisalignedMemory) {
    EXPECT_EQ(tlsf_create(nullptr), nullptr);
    Region r(tlsf_size() + 64, 64, 64);
    r.Poison();
    for (std::size_t off = 1; off < Align(); ++off)
        EXPECT_EQ(tlsf_create(r.data() + off), nullptr);
    EXPECT_TRUE(r.PayloadIs(Region::kGuard)) << "a refused tlsf_create wrote to the memory";
    EXPECT_TRUE(r.GuardsIntact());
}

TEST(Create, EmptyHeapHasNoPoolsAndAllocatesNothing) {
    Region control(tlsf_size(), 64, 64);
    tlsf_t h = tlsf_create(control.data());
    ASSERT_EQ(static_cast<void *>(h), control.data());
    EXPECT_TRUE(control.GuardsIntact());
    EXPECT_EQ(tlsf_check(h), 0);
    EXPECT_EQ(tlsf_largest_allocatable(h), 0u);
    tlsf_stats_t s = Stats(h);
    EXPECT_EQ(s.pool_count, 0u);
    EXPECT_EQ(s.pool_bytes, 0u);
    EXPECT_EQ(s.used_bytes, 0u);
    EXPECT_EQ(s.largest_allocatable, 0u);
    EXPECT_EQ(tlsf_malloc(h, 0), nullptr);
    EXPECT_EQ(tlsf_malloc(h, 1), nullptr);
    EXPECT_EQ(tlsf_calloc(h, 1, 1), nullptr);
    EXPECT_EQ(tlsf_memalign(h, 4 * Align(), 1), nullptr);
    EXPECT_EQ(tlsf_aligned_alloc(h, Align(), 1), nullptr);
    EXPECT_EQ(tlsf_realloc(h, nullptr, 1), nullptr);
    if (kStats) {
        EXPECT_EQ(Stats(h).failed_count, 6u);
    }
    EXPECT_EQ(tlsf_check(h), 0);
}

TEST(Create, DestroyIsANoOpAndTheMemoryCanBeReused) {
    Region control(tlsf_size(), 64);
    Region pool(SmallPool(), 64);
    tlsf_t h = tlsf_create(control.data());
    ASSERT_NE(tlsf_add_pool(h, pool.data(), pool.size()), nullptr);
    ASSERT_NE(tlsf_malloc(h, 100), nullptr);
    tlsf_destroy(h);
    tlsf_destroy(nullptr);
    // Reuse both regions for a fresh heap.
    tlsf_t again = tlsf_create(control.data());
    ASSERT_NE(again, nullptr);
    ASSERT_NE(tlsf_add_pool(again, pool.data(), pool.size()), nullptr);
    tlsf_stats_t s = Stats(again);
    EXPECT_EQ(s.pool_count, 1u);
    EXPECT_EQ(s.used_bytes, 0u);
    EXPECT_EQ(s.alloc_count, 0u);
    EXPECT_EQ(tlsf_largest_allocatable(again), SizeClasses().LargestFor(PoolSpan(SmallPool())));
    EXPECT_EQ(tlsf_check(again), 0);
}

TEST(CreateWithPool, PlacesThePoolAfterTheControlStructure) {
    const std::size_t bytes = tlsf_size() + SmallPool();
    Region r(bytes, 64, 64);
    tlsf_t h = tlsf_create_with_pool(r.data(), bytes);
    ASSERT_EQ(static_cast<void *>(h), r.data());
    pool_t pool = tlsf_get_pool(h);
    EXPECT_EQ(static_cast<void *>(pool), r.data() + tlsf_size());
    tlsf_stats_t s = Stats(h);
    EXPECT_EQ(s.pool_count, 1u);
    EXPECT_EQ(s.pool_bytes, PoolSpan(SmallPool()));
    EXPECT_EQ(tlsf_check(h), 0);
    EXPECT_EQ(tlsf_check_pool(pool), 0);
    EXPECT_TRUE(LargestIsExact(h));
    void *p = tlsf_malloc(h, 1000);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(r.Contains(p, tlsf_block_size(p)));
    tlsf_free(h, p);
    tlsf_remove_pool(h, pool);
    EXPECT_EQ(Stats(h).pool_count, 0u);
    EXPECT_EQ(tlsf_malloc(h, 1), nullptr);
    EXPECT_TRUE(r.GuardsIntact());
}

TEST(CreateWithPool, RejectsNullMisalignedAndTooSmall) {
    const std::size_t exact = tlsf_size() + MinPoolBytes();
    Region r(exact + 64, 64, 64);
    EXPECT_EQ(tlsf_create_with_pool(nullptr, exact), nullptr);
    for (std::size_t off = 1; off < Align(); ++off)
        EXPECT_EQ(tlsf_create_with_pool(r.data() + off, exact), nullptr);
    EXPECT_EQ(tlsf_create_with_pool(r.data(), exact - 1), nullptr);
    EXPECT_EQ(tlsf_create_with_pool(r.data(), tlsf_size()), nullptr);
    tlsf_t h = tlsf_create_with_pool(r.data(), exact);
    ASSERT_NE(h, nullptr);
    void *p = tlsf_malloc(h, MinUsable());
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(r.Contains(p, tlsf_block_size(p)));
    EXPECT_EQ(tlsf_check(h), 0);
    EXPECT_EQ(tlsf_check_pool(tlsf_get_pool(h)), 0);
    EXPECT_TRUE(r.GuardsIntact());
}

// tlsf_create_with_pool(mem, bytes) with bytes < tlsf_size() must fail without writing past
// `bytes`: the caller only owns `bytes` bytes at `mem`.
TEST(CreateWithPool, DoesNotWriteBeyondBytesWhenTooSmallForTheControlStructure) {
    for (std::size_t bytes :
         {std::size_t(0), Align(), tlsf_size() / 2 & ~(Align() - 1), tlsf_size() - Align()}) {
        Region r(bytes, 64, tlsf_size() + 64);
        EXPECT_EQ(tlsf_create_with_pool(r.data(), bytes), nullptr) << "bytes " << bytes;
        EXPECT_TRUE(r.GuardsIntact())
            << "tlsf_create_with_pool(mem, " << bytes << ") wrote beyond mem + bytes";
    }
}

TEST(CreateWithPool, RejectsATooLargeRestWithoutTouchingIt) {
    const std::size_t b = tlsf_block_size_max(), o = tlsf_pool_overhead();
    Region r(tlsf_size() + 4096, 64, 4096);
    for (std::size_t bytes : {tlsf_size() + b + o, tlsf_size() + b + o + Align(),
                              tlsf_size() + 2 * b, SIZE_MAX / 2, SIZE_MAX - Align(), SIZE_MAX}) {
        r.Poison();
        EXPECT_EQ(tlsf_create_with_pool(r.data(), bytes), nullptr) << "bytes " << bytes;
        EXPECT_TRUE(AllBytes(r.data() + tlsf_size(), 4096, Region::kGuard))
            << "a refused pool was written to (bytes " << bytes << ")";
        EXPECT_TRUE(r.GuardsIntact());
    }
}

TEST(GetPool, NullHeap) {
    EXPECT_EQ(tlsf_get_pool(nullptr), nullptr);
}

// ---- tlsf_add_pool / tlsf_remove_pool ------------------------------------------------------

TEST(AddPool, NullArgumentsAreRefused) {
    Region r(4096, 64, 64);
    r.Poison();
    EXPECT_EQ(tlsf_add_pool(nullptr, r.data(), r.size()), nullptr);
    EXPECT_TRUE(r.PayloadIs(Region::kGuard));
    Heap h;
    Snapshot before = Take(h);
    EXPECT_EQ(tlsf_add_pool(h, nullptr, 4096), nullptr);
    EXPECT_EQ(tlsf_add_pool(h, nullptr, 0), nullptr);
    ASSERT_EQ(h.log().events.size(), 2u);
    for (const ErrorEvent &e : h.log().events) {
        EXPECT_EQ(e.heap, h.get());
        EXPECT_EQ(e.reason, TLSF_ERROR_BAD_POOL);
        EXPECT_EQ(e.ptr, nullptr);
    }
    EXPECT_TRUE(SameHeap(before, Take(h)));
}

TEST(AddPool, MisalignedMemoryIsReportedAndTheHeapUnchanged) {
    Heap h(SmallPool());
    void *live = tlsf_malloc(h, 100);
    ASSERT_NE(live, nullptr);
    Fill(live, tlsf_block_size(live), 1);
    Region r(8192, 64, 64);
    r.Poison();
    Snapshot before = Take(h);
    for (std::size_t off = 1; off < Align(); ++off) {
        h.log().Clear();
        EXPECT_EQ(tlsf_add_pool(h, r.data() + off, 4096), nullptr);
        ASSERT_EQ(h.log().events.size(), 1u);
        EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_BAD_POOL);
        EXPECT_EQ(h.log().events[0].ptr, r.data() + off);
        EXPECT_EQ(h.log().events[0].heap, h.get());
    }
    EXPECT_TRUE(SameHeap(before, Take(h)));
    EXPECT_TRUE(r.PayloadIs(Region::kGuard));
    EXPECT_TRUE(Holds(live, tlsf_block_size(live), 1));
    EXPECT_EQ(h.Errors(), 0);
}

TEST(AddPool, SeveralPoolsServeAllocations) {
    SizeClasses c;
    Heap h;
    const std::vector<std::size_t> sizes = {MinPoolBytes() * 4, 3000 + Align() / 2, SmallPool() / 2,
                                            SmallPool()};
    const std::vector<std::size_t> offsets = {0, Align(), 2 * Align(), 0};
    std::size_t total = 0, largest = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        ASSERT_NE(h.AddPool(sizes[i], offsets[i]), nullptr);
        total += PoolSpan(sizes[i]);
        largest = std::max(largest, c.LargestFor(PoolSpan(sizes[i])));
    }
    tlsf_stats_t s = Stats(h);
    EXPECT_EQ(s.pool_count, sizes.size());
    EXPECT_EQ(s.pool_bytes, total);
    EXPECT_EQ(tlsf_largest_allocatable(h), largest);
    EXPECT_TRUE(LargestIsExact(h));
    std::vector<void *> blocks = Exhaust(h);
    EXPECT_EQ(tlsf_largest_allocatable(h), 0u);
    for (pool_t pool : h.pools()) {
        std::vector<WalkedBlock> walk = Walk(pool);
        ASSERT_FALSE(walk.empty());
        for (const WalkedBlock &b : walk)
            EXPECT_TRUE(b.used) << "a free block is left";
    }
    EXPECT_EQ(h.Errors(), 0);
    for (void *p : blocks)
        tlsf_free(h, p);
    EXPECT_EQ(tlsf_largest_allocatable(h), largest);
    for (pool_t pool : h.pools())
        EXPECT_EQ(Walk(pool).size(), 1u);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(RemovePool, EmptyPoolIsRemovedAndNeverUsedAgain) {
    SizeClasses c;
    Heap h(SmallPool());
    const std::size_t fresh = tlsf_largest_allocatable(h);
    Region r(MediumPool(), 64);
    pool_t pool = tlsf_add_pool(h, r.data(), r.size());
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(Stats(h).pool_count, 2u);
    EXPECT_EQ(tlsf_largest_allocatable(h), c.LargestFor(PoolSpan(MediumPool())));
    tlsf_remove_pool(h, pool);
    EXPECT_TRUE(h.log().events.empty());
    tlsf_stats_t s = Stats(h);
    EXPECT_EQ(s.pool_count, 1u);
    EXPECT_EQ(s.pool_bytes, PoolSpan(SmallPool()));
    EXPECT_EQ(tlsf_largest_allocatable(h), fresh);
    EXPECT_EQ(h.Errors(), 0);
    // The heap must not touch the removed memory any more.
    r.Poison(0xEE);
    std::vector<void *> blocks = Exhaust(h);
    for (void *p : blocks)
        EXPECT_FALSE(r.Contains(p)) << "allocation from a removed pool";
    for (void *p : blocks)
        tlsf_free(h, p);
    EXPECT_TRUE(r.PayloadIs(0xEE));
    EXPECT_EQ(h.Errors(), 0);
    // It can be added again.
    ASSERT_NE(tlsf_add_pool(h, r.data(), r.size()), nullptr);
    EXPECT_EQ(Stats(h).pool_count, 2u);
    EXPECT_EQ(tlsf_check(h), 0);
    EXPECT_EQ(tlsf_check_pool(pool), 0);
}

TEST(RemovePool, PoolInUseIsReportedAndKept) {
    Heap h;
    Region r(SmallPool(), 64);
    pool_t pool = tlsf_add_pool(h, r.data(), r.size());
    ASSERT_NE(pool, nullptr);
    void *a = tlsf_malloc(h, 100);
    void *b = tlsf_malloc(h, 200);
    ASSERT_TRUE(a && b);
    Fill(a, tlsf_block_size(a), 1);
    Fill(b, tlsf_block_size(b), 2);
    auto expect_refused = [&](const char *what) {
        tlsf_cache_flush(h); // tlsf_remove_pool flushes the cache before it looks
        Snapshot before = Take(h);
        std::vector<WalkedBlock> walk = Walk(pool);
        h.log().Clear();
        tlsf_remove_pool(h, pool);
        ASSERT_EQ(h.log().events.size(), 1u) << what;
        EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_POOL_IN_USE) << what;
        EXPECT_EQ(h.log().events[0].ptr, static_cast<const void *>(pool)) << what;
        EXPECT_EQ(h.log().events[0].heap, h.get()) << what;
        EXPECT_EQ(Stats(h).pool_count, 1u) << what;
        EXPECT_EQ(tlsf_check(h), 0) << what;
        EXPECT_EQ(tlsf_check_pool(pool), 0) << what;
        EXPECT_EQ(Walk(pool).size(), walk.size()) << what;
        (void)before;
    };
    expect_refused("first and second block in use");
    tlsf_free(h, a); // first block free, a later one in use
    expect_refused("first block free, second in use");
    EXPECT_TRUE(Holds(b, tlsf_block_size(b), 2));
    void *c = tlsf_malloc(h, 50);
    ASSERT_NE(c, nullptr);
    tlsf_free(h, b); // only c in use
    expect_refused("one block in use");
    tlsf_free(h, c);
    h.log().Clear();
    tlsf_remove_pool(h, pool);
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(Stats(h).pool_count, 0u);
    EXPECT_EQ(Stats(h).pool_bytes, 0u);
    EXPECT_EQ(tlsf_malloc(h, 1), nullptr);
    EXPECT_EQ(tlsf_check(h), 0);
}

// After tlsf_remove_pool the caller owns all `bytes` again, including the unaligned tail
// beyond the last block (under ASan: nothing of it may stay poisoned).
TEST(RemovePool, GivesAllTheMemoryBack) {
    for (std::size_t bytes : {std::size_t(4096), 4096 + Align() / 2, 4096 + Align() - 1,
                              std::size_t(4101), MinPoolBytes() + 3}) {
        Heap h;
        Region r(bytes, 64, 64);
        pool_t pool = tlsf_add_pool(h, r.data(), bytes);
        ASSERT_NE(pool, nullptr);
        void *p = tlsf_malloc(h, 10);
        ASSERT_NE(p, nullptr);
        tlsf_free(h, p);
        tlsf_remove_pool(h, pool);
        ASSERT_TRUE(h.log().events.empty());
        const void *poisoned = FirstPoisoned(r.data(), bytes);
        EXPECT_EQ(poisoned, nullptr) << "byte " << (Addr(poisoned) - Addr(r.data())) << " of "
                                     << bytes << " is still poisoned after tlsf_remove_pool";
        if (!poisoned) std::memset(r.data(), 0, bytes);
        EXPECT_TRUE(r.GuardsIntact());
    }
}

TEST(RemovePool, NullArgumentsAreIgnored) {
    Heap h(SmallPool());
    Snapshot before = Take(h);
    tlsf_remove_pool(h, nullptr);
    tlsf_remove_pool(nullptr, h.pools()[0]);
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_TRUE(SameHeap(before, Take(h)));
    EXPECT_EQ(h.Errors(), 0);
}

TEST(RemovePool, PoolOfCreateWithPool) {
    const std::size_t bytes = tlsf_size() + SmallPool();
    Region r(bytes, 64);
    tlsf_t h = tlsf_create_with_pool(r.data(), bytes);
    ASSERT_NE(h, nullptr);
    Region extra(SmallPool(), 64);
    ASSERT_NE(tlsf_add_pool(h, extra.data(), extra.size()), nullptr);
    tlsf_remove_pool(h, tlsf_get_pool(h));
    EXPECT_EQ(Stats(h).pool_count, 1u);
    std::vector<void *> blocks = Exhaust(h);
    ASSERT_FALSE(blocks.empty());
    for (void *p : blocks)
        EXPECT_TRUE(extra.Contains(p, tlsf_block_size(p)));
    EXPECT_EQ(tlsf_check(h), 0);
}

// ---- tlsf_malloc ---------------------------------------------------------------------------

// TLSF_CHECKS >= 1: "a NULL heap is refused" (without checks it is the caller's promise).
TEST(Malloc, NullHeapReturnsNull) {
    if (!kChecks) GTEST_SKIP() << "TLSF_CHECKS == 0";
    EXPECT_EQ(tlsf_malloc(nullptr, 0), nullptr);
    EXPECT_EQ(tlsf_malloc(nullptr, 16), nullptr);
    EXPECT_EQ(tlsf_malloc(nullptr, SIZE_MAX), nullptr);
}

TEST(Malloc, ZeroReturnsUniqueMinimumBlocks) {
    Heap h(SmallPool());
    std::vector<void *> blocks;
    std::set<void *> unique;
    void *one = tlsf_malloc(h, 1);
    ASSERT_NE(one, nullptr);
    EXPECT_EQ(tlsf_block_size(one), MinUsable()) << "malloc(1) and malloc(0) differ";
    tlsf_free(h, one);
    for (int i = 0; i < 64; ++i) {
        void *p = tlsf_malloc(h, 0);
        ASSERT_NE(p, nullptr);
        EXPECT_TRUE(IsAligned(p, Align()));
        EXPECT_EQ(tlsf_block_size(p), MinUsable());
        EXPECT_TRUE(unique.insert(p).second) << "malloc(0) returned a live block again";
        Fill(p, tlsf_block_size(p), static_cast<std::uint64_t>(i));
        blocks.push_back(p);
    }
    for (std::size_t i = 0; i < blocks.size(); ++i)
        EXPECT_TRUE(Holds(blocks[i], tlsf_block_size(blocks[i]), i));
    // Disjoint, each block's header word between them.
    for (auto it = unique.begin(); std::next(it) != unique.end(); ++it)
        EXPECT_LE(Addr(*it) + tlsf_block_size(*it) + Word(), Addr(*std::next(it)));
    if (kStats) {
        EXPECT_EQ(Stats(h).live_blocks, 64u);
    }
    for (void *p : blocks)
        tlsf_free(h, p);
    EXPECT_EQ(h.Errors(), 0);
    if (kStats) {
        EXPECT_EQ(Stats(h).used_bytes, 0u);
    }
}

TEST(Malloc, HugeSizesFailWithoutWrappingAround) {
    Heap h(SmallPool());
    void *live = tlsf_malloc(h, 100);
    ASSERT_NE(live, nullptr);
    Fill(live, tlsf_block_size(live), 9);
    Snapshot before = Take(h);
    std::size_t calls = 0;
    for (std::size_t n : HugeSizes()) {
        EXPECT_EQ(tlsf_malloc(h, n), nullptr) << "malloc(" << n << ")";
        ++calls;
    }
    if (kStats) {
        EXPECT_EQ(Stats(h).failed_count, before.stats.failed_count + calls);
    }
    EXPECT_TRUE(SameHeap(before, Take(h), true));
    EXPECT_TRUE(Holds(live, tlsf_block_size(live), 9));
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Malloc, BlocksAreAlignedDisjointAndLargeEnough) {
    Heap h(BigPool());
    std::vector<std::size_t> sizes;
    for (std::size_t n = 0; n <= 600; ++n)
        sizes.push_back(n);
    for (std::size_t p2 = 1024; p2 <= BigPool() / 16; p2 <<= 1)
        for (std::size_t n : {p2 - Word() - 1, p2 - Word(), p2 - 1, p2, p2 + 1})
            sizes.push_back(n);
    std::map<std::uintptr_t, std::size_t> live; // address -> index into sizes
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        std::size_t largest = tlsf_largest_allocatable(h);
        void *p = tlsf_malloc(h, sizes[i]);
        if (!Fits(sizes[i], largest)) {
            EXPECT_EQ(p, nullptr);
            continue;
        }
        ASSERT_NE(p, nullptr) << "malloc(" << sizes[i] << ") with largest " << largest;
        ASSERT_TRUE(IsAligned(p, Align()));
        ASSERT_GE(tlsf_block_size(p), sizes[i]);
        Fill(p, tlsf_block_size(p), i);
        live[Addr(p)] = i;
    }
    std::uintptr_t end = 0;
    for (auto &[addr, i] : live) {
        void *p = reinterpret_cast<void *>(addr);
        EXPECT_LE(end + (end ? Word() : 0), addr) << "blocks overlap";
        end = addr + tlsf_block_size(p);
        EXPECT_TRUE(Holds(p, tlsf_block_size(p), i)) << "block " << i << " was overwritten";
    }
    EXPECT_EQ(h.Errors(), 0);
    for (auto &entry : live)
        tlsf_free(h, reinterpret_cast<void *>(entry.first));
    EXPECT_EQ(h.Errors(), 0);
    EXPECT_EQ(tlsf_largest_allocatable(h), SizeClasses().LargestFor(PoolSpan(BigPool())));
}

// "Good fit": the usable size is the request rounded up to its class's lower bound, and the
// rounding wastes less than 1/2^SL of the request plus the alignment padding.
TEST(Malloc, GoodFitRounding) {
    SizeClasses c;
    Heap h(BigPool());
    const std::size_t span = PoolSpan(BigPool());
    std::vector<std::size_t> sizes;
    for (std::size_t n = 0; n <= 2 * c.linear_end + 64; ++n)
        sizes.push_back(n);
    for (std::size_t n = 2 * c.linear_end; n < span / 2; n += n / 7 + 1)
        sizes.push_back(n);
    for (std::size_t n : sizes) {
        void *p = tlsf_malloc(h, n);
        ASSERT_NE(p, nullptr) << n;
        std::size_t usable = tlsf_block_size(p);
        EXPECT_EQ(usable, c.MallocUsable(n)) << "malloc(" << n << ")";
        EXPECT_GE(usable, n);
        if (n >= MinUsable()) {
            EXPECT_LT(usable - n, ((n + Word() + Align()) >> TLSF_SL_INDEX_LOG2) + Align())
                << "malloc(" << n << ") wasted too much";
        }
        tlsf_free(h, p);
    }
    EXPECT_EQ(h.Errors(), 0);
}

// "The block keeps that rounded size, so a size that was just freed can always be allocated
// again": in a heap where the freed block is the only free block, the same request succeeds.
TEST(Malloc, AFreedSizeCanAlwaysBeAllocatedAgain) {
    SizeClasses c;
    const std::size_t pool_bytes = MediumPool();
    Region control(tlsf_size(), 64);
    Region pool(pool_bytes, 64);
    std::vector<std::size_t> sizes;
    for (std::size_t n = 0; n <= c.linear_end + 40; n += 1)
        sizes.push_back(n);
    for (std::size_t n = c.linear_end; n < pool_bytes / 2; n += n / 5 + 3)
        sizes.push_back(n);
    enum Way { kMalloc, kCalloc, kShrunk, kGrown, kMemalign, kWays };
    for (int way = kMalloc; way < kWays; ++way) {
        for (std::size_t n : sizes) {
            SCOPED_TRACE("way " + std::to_string(way) + " size " + std::to_string(n));
            tlsf_t h = tlsf_create(control.data());
            ASSERT_NE(tlsf_add_pool(h, pool.data(), pool.size()), nullptr);
            void *p = nullptr;
            switch (way) {
            case kMalloc:
                p = tlsf_malloc(h, n);
                break;
            case kCalloc:
                p = tlsf_calloc(h, 1, n);
                break;
            case kShrunk:
                p = tlsf_malloc(h, 2 * n + 4 * c.min_span);
                p = tlsf_realloc(h, p, n ? n : 1);
                break;
            case kGrown:
                p = tlsf_malloc(h, n / 2);
                p = tlsf_realloc(h, p, n ? n : 1);
                break;
            case kMemalign:
                p = tlsf_memalign(h, 4 * Align(), n);
                break;
            }
            ASSERT_NE(p, nullptr);
            std::vector<void *> rest = Exhaust(h);
            ASSERT_EQ(tlsf_largest_allocatable(h), 0u);
            tlsf_free(h, p);
            void *q = tlsf_malloc(h, n);
            EXPECT_NE(q, nullptr);
            EXPECT_EQ(q, p);
            ASSERT_EQ(tlsf_check(h), 0);
            ASSERT_EQ(tlsf_check_pool(static_cast<pool_t>(static_cast<void *>(pool.data()))), 0);
        }
    }
}

// A block keeps its rounded size even when what is left of the free block is exactly one
// minimum block: that remainder is split off and can be allocated.
TEST(Malloc, ARemainderOfOneMinimumBlockIsSplitOff) {
    SizeClasses c;
    Region control(tlsf_size(), 64);
    Region pool(std::size_t(1) << 16, 64);
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(100), c.linear_end,
                          3 * c.linear_end + 5, std::size_t(20000)}) {
        const std::size_t bytes = tlsf_pool_overhead() + c.MallocSpan(n) + c.min_span;
        ASSERT_LE(bytes, pool.size());
        tlsf_t h = tlsf_create(control.data());
        ASSERT_NE(tlsf_add_pool(h, pool.data(), bytes), nullptr) << n;
        void *p = tlsf_malloc(h, n);
        ASSERT_NE(p, nullptr) << n;
        EXPECT_EQ(tlsf_block_size(p), c.MallocUsable(n)) << n;
        EXPECT_EQ(tlsf_largest_allocatable(h), MinUsable()) << n;
        void *q = tlsf_malloc(h, MinUsable());
        EXPECT_NE(q, nullptr) << "the minimum-size remainder was not split off (request " << n
                              << ")";
        EXPECT_EQ(tlsf_check(h), 0);
    }
}

TEST(Malloc, FreeingInAnyOrderCoalescesBackToOneBlock) {
    SizeClasses c;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        Rng rng(seed);
        Heap h(SmallPool(), Align() * (seed % 4));
        std::vector<void *> blocks;
        for (;;) {
            void *p = tlsf_malloc(h, rng.Below(seed % 2 ? 300 : 3000));
            if (!p) break;
            blocks.push_back(p);
        }
        for (std::size_t i = blocks.size(); i > 1; --i)
            std::swap(blocks[i - 1], blocks[rng.Below(i)]);
        for (void *p : blocks) {
            tlsf_free(h, p);
            ASSERT_EQ(h.Errors(), 0);
        }
        tlsf_cache_flush(h); // cached blocks merge when they go back to the lists
        std::vector<WalkedBlock> walk = Walk(h.pools()[0]);
        ASSERT_EQ(walk.size(), 1u);
        EXPECT_FALSE(walk[0].used);
        EXPECT_EQ(walk[0].size + Word(), PoolSpan(SmallPool()));
        EXPECT_EQ(tlsf_largest_allocatable(h), c.LargestFor(PoolSpan(SmallPool())));
    }
}

// ---- tlsf_calloc ---------------------------------------------------------------------------

TEST(Calloc, ZeroesReusedMemory) {
    Heap h(MediumPool());
    Rng rng(7);
    std::vector<void *> kept; // a few live blocks vary the layout
    for (int round = 0; round < 200; ++round) {
        // Dirty a region, free it, then calloc over it.
        void *dirty = tlsf_malloc(h, rng.Between(1, 8000));
        ASSERT_NE(dirty, nullptr);
        std::memset(dirty, 0xFF, tlsf_block_size(dirty));
        tlsf_free(h, dirty);
        std::size_t count = rng.Between(1, 64), size = rng.Between(1, 120);
        unsigned char *p = static_cast<unsigned char *>(tlsf_calloc(h, count, size));
        ASSERT_NE(p, nullptr);
        EXPECT_GE(tlsf_block_size(p), count * size);
        EXPECT_TRUE(AllBytes(p, count * size, 0)) << count << " x " << size;
        kept.push_back(p);
        if (kept.size() > 4 || round % 3) {
            std::size_t i = rng.Below(kept.size());
            tlsf_free(h, kept[i]);
            kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
        }
    }
    for (void *p : kept)
        tlsf_free(h, p);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Calloc, OverflowingProductFails) {
    Heap h(SmallPool());
    const std::size_t half = std::size_t(1) << (sizeof(std::size_t) * CHAR_BIT / 2);
    const std::pair<std::size_t, std::size_t> cases[] = {
        {SIZE_MAX, 2},        {2, SIZE_MAX},    {SIZE_MAX / 2 + 1, 2}, {2, SIZE_MAX / 2 + 1},
        {half, half},         {half + 1, half}, {SIZE_MAX, SIZE_MAX},  {3, SIZE_MAX / 3 + 1},
        {half - 1, half + 1}, // no overflow (SIZE_MAX - 1... fits), but far too large
    };
    Snapshot before = Take(h);
    std::size_t calls = 0;
    for (auto [count, size] : cases) {
        EXPECT_EQ(tlsf_calloc(h, count, size), nullptr) << count << " x " << size;
        ++calls;
    }
    if (kStats) {
        EXPECT_EQ(Stats(h).failed_count, calls);
    }
    EXPECT_TRUE(SameHeap(before, Take(h), true));
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Calloc, ZeroCountOrSizeReturnsUniqueBlocks) {
    Heap h(SmallPool());
    std::set<void *> unique;
    const std::pair<std::size_t, std::size_t> cases[] = {{0, 0},        {0, 1},        {1, 0},
                                                         {0, SIZE_MAX}, {SIZE_MAX, 0}, {0, 0}};
    for (auto [count, size] : cases) {
        void *p = tlsf_calloc(h, count, size);
        ASSERT_NE(p, nullptr) << count << " x " << size;
        EXPECT_EQ(tlsf_block_size(p), MinUsable());
        EXPECT_TRUE(unique.insert(p).second);
    }
    for (void *p : unique)
        tlsf_free(h, p);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Calloc, HugeSizesFail) {
    Heap h(SmallPool());
    Snapshot before = Take(h);
    std::size_t calls = 0;
    for (std::size_t n : HugeSizes()) {
        EXPECT_EQ(tlsf_calloc(h, 1, n), nullptr) << n;
        EXPECT_EQ(tlsf_calloc(h, n, 1), nullptr) << n;
        calls += 2;
    }
    if (kStats) {
        EXPECT_EQ(Stats(h).failed_count, calls);
    }
    EXPECT_TRUE(SameHeap(before, Take(h), true));
    if (kChecks) {
        EXPECT_EQ(tlsf_calloc(nullptr, 1, 1), nullptr);
    }
}

// ---- tlsf_memalign / tlsf_aligned_alloc / tlsf_memalign_offset -------------------------------

TEST(Memalign, BadAlignmentsFailAndLeaveTheHeapUnchanged) {
    Heap h(SmallPool());
    Snapshot before = Take(h);
    std::size_t calls = 0;
    for (std::size_t align : BadAlignments()) {
        for (std::size_t bytes : {std::size_t(0), std::size_t(16), std::size_t(1000)}) {
            EXPECT_EQ(tlsf_memalign(h, align, bytes), nullptr) << "align " << align;
            EXPECT_EQ(tlsf_aligned_alloc(h, align, bytes), nullptr) << "align " << align;
            EXPECT_EQ(tlsf_memalign_offset(h, align, bytes, 0), nullptr) << "align " << align;
            calls += 3;
        }
    }
    if (kStats) {
        EXPECT_EQ(Stats(h).failed_count, calls);
    }
    EXPECT_TRUE(SameHeap(before, Take(h), true));
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(tlsf_memalign(nullptr, 64, 16), nullptr);
    EXPECT_EQ(tlsf_aligned_alloc(nullptr, 64, 16), nullptr);
    EXPECT_EQ(tlsf_memalign_offset(nullptr, 64, 16, 0), nullptr);
}

TEST(Memalign, HugeSizesAndAlignmentsFail) {
    Heap h(SmallPool());
    Snapshot before = Take(h);
    for (std::size_t align : {std::size_t(1), Align(), 2 * Align(), std::size_t(4096)}) {
        for (std::size_t n : HugeSizes()) {
            EXPECT_EQ(tlsf_memalign(h, align, n), nullptr) << align << " " << n;
            EXPECT_EQ(tlsf_aligned_alloc(h, align, n), nullptr) << align << " " << n;
            EXPECT_EQ(tlsf_memalign_offset(h, align, n, 0), nullptr) << align << " " << n;
        }
    }
    // Powers of two too large for the pool, up to the highest bit of size_t.
    for (std::size_t align = SmallPool(); align != 0; align <<= 1) {
        EXPECT_EQ(tlsf_memalign(h, align, 1), nullptr) << align;
        EXPECT_EQ(tlsf_memalign_offset(h, align, 0, 0), nullptr) << align;
    }
    EXPECT_TRUE(SameHeap(before, Take(h), true));
    EXPECT_EQ(h.Errors(), 0);
}

// Every power of two from 1 up to the pool size: up to a quarter of the pool it must succeed
// (whatever the pool's own alignment); above, it may fail, but a result must be aligned.
TEST(Memalign, EveryPowerOfTwoAlignment) {
    SizeClasses c;
    const std::size_t pool_bytes = BigPool();
    for (std::size_t misalign : {std::size_t(0), Align(), 3 * Align()}) {
        Heap h(pool_bytes, misalign);
        const std::size_t fresh = tlsf_largest_allocatable(h);
        std::size_t largest_ok = 0;
        for (std::size_t align = 1; align <= pool_bytes; align <<= 1) {
            for (std::size_t bytes : {std::size_t(0), std::size_t(1), std::size_t(100),
                                      3 * Align() + Word(), pool_bytes / 8}) {
                SCOPED_TRACE("misalign " + std::to_string(misalign) + " align " +
                             std::to_string(align) + " bytes " + std::to_string(bytes));
                void *p = tlsf_memalign(h, align, bytes);
                if (align <= pool_bytes / 4) {
                    ASSERT_NE(p, nullptr);
                }
                if (!p) {
                    EXPECT_EQ(tlsf_largest_allocatable(h), fresh);
                    continue;
                }
                largest_ok = std::max(largest_ok, align);
                EXPECT_TRUE(IsAligned(p, align));
                EXPECT_TRUE(IsAligned(p, Align()));
                EXPECT_GE(tlsf_block_size(p), bytes);
                if (bytes <= 4096) Fill(p, tlsf_block_size(p), align);
                ASSERT_EQ(h.Errors(), 0);
                if (bytes <= 4096) {
                    EXPECT_TRUE(Holds(p, tlsf_block_size(p), align));
                }
                tlsf_free(h, p);
                ASSERT_EQ(h.Errors(), 0);
                ASSERT_EQ(tlsf_largest_allocatable(h), fresh) << "free did not coalesce";
            }
        }
        EXPECT_GE(largest_ok, pool_bytes / 4);
        (void)c;
    }
}

TEST(Memalign, SmallAlignmentsBehaveAsMalloc) {
    SizeClasses c;
    Heap h(MediumPool());
    for (std::size_t align = 1; align <= Align(); align <<= 1) {
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(17), std::size_t(500),
                              std::size_t(5000)}) {
            void *p = tlsf_memalign(h, align, n);
            ASSERT_NE(p, nullptr);
            EXPECT_EQ(tlsf_block_size(p), c.MallocUsable(n)) << align << " " << n;
            void *q = tlsf_aligned_alloc(h, align, n);
            ASSERT_NE(q, nullptr);
            EXPECT_EQ(tlsf_block_size(q), c.MallocUsable(n)) << align << " " << n;
            tlsf_free(h, p);
            tlsf_free(h, q);
        }
    }
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Memalign, ZeroBytesGivesUniqueAlignedBlocks) {
    Heap h(MediumPool());
    std::set<void *> unique;
    for (std::size_t align : {Align(), 4 * Align(), std::size_t(256), std::size_t(4096)}) {
        for (int i = 0; i < 8; ++i) {
            void *p = tlsf_memalign(h, align, 0);
            ASSERT_NE(p, nullptr);
            EXPECT_TRUE(IsAligned(p, align));
            EXPECT_TRUE(unique.insert(p).second);
            Fill(p, tlsf_block_size(p), Addr(p));
        }
    }
    for (void *p : unique)
        EXPECT_TRUE(Holds(p, tlsf_block_size(p), Addr(p)));
    for (void *p : unique)
        tlsf_free(h, p);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(AlignedAlloc, AllowsSizesThatAreNotMultiplesOfTheAlignment) {
    Heap h(MediumPool());
    std::vector<void *> keep;
    for (std::size_t align : {Align(), 2 * Align(), std::size_t(256), std::size_t(4096)}) {
        for (std::size_t bytes :
             {std::size_t(1), std::size_t(3), align - 1, align + 1, 3 * align - 1}) {
            void *p = tlsf_aligned_alloc(h, align, bytes);
            ASSERT_NE(p, nullptr) << align << " " << bytes;
            EXPECT_TRUE(IsAligned(p, align));
            EXPECT_GE(tlsf_block_size(p), bytes);
            Fill(p, tlsf_block_size(p), bytes);
            keep.push_back(p);
        }
    }
    EXPECT_EQ(h.Errors(), 0);
    for (void *p : keep)
        tlsf_free(h, p);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(MemalignOffset, PlacesPointerPlusOffsetOnTheAlignment) {
    Heap h(BigPool());
    std::vector<void *> keep;
    std::uint64_t seed = 0;
    for (std::size_t align = 1; align <= std::min<std::size_t>(1 << 16, BigPool() / 8);
         align <<= 1) {
        const std::size_t step = std::min(align, Align());
        for (std::size_t bytes : {8 * Align(), std::size_t(300), std::size_t(1000)}) {
            const std::size_t last = (bytes - 1) / step * step;
            for (std::size_t offset : {std::size_t(0), step, 2 * step, 3 * step, last}) {
                if (offset >= bytes) continue;
                void *p = tlsf_memalign_offset(h, align, bytes, offset);
                ASSERT_NE(p, nullptr) << align << " " << bytes << " " << offset;
                EXPECT_EQ((Addr(p) + offset) % align, 0u) << align << " " << bytes << " " << offset;
                EXPECT_TRUE(IsAligned(p, Align()));
                EXPECT_GE(tlsf_block_size(p), bytes);
                Fill(p, tlsf_block_size(p), ++seed);
                keep.push_back(p);
                if (align > BigPool() / 64) { // keep only small alignments: the pool is finite
                    ASSERT_TRUE(Holds(p, tlsf_block_size(p), seed));
                    tlsf_free(h, p);
                    keep.pop_back();
                }
            }
        }
        ASSERT_EQ(h.Errors(), 0);
        for (std::size_t i = 0; i < keep.size(); ++i) {
            ASSERT_TRUE(Holds(keep[i], tlsf_block_size(keep[i]), seed - keep.size() + 1 + i));
            tlsf_free(h, keep[i]);
        }
        keep.clear();
    }
    EXPECT_EQ(h.Errors(), 0);
    EXPECT_EQ(tlsf_largest_allocatable(h), SizeClasses().LargestFor(PoolSpan(BigPool())));
}

TEST(MemalignOffset, OffsetsThatAreNotMultiplesOfTheBaseAlignmentFail) {
    Heap h(SmallPool());
    Snapshot before = Take(h);
    std::size_t calls = 0;
    for (std::size_t align :
         {std::size_t(2), std::size_t(4), Align(), 2 * Align(), std::size_t(4096)}) {
        const std::size_t step = std::min(align, Align());
        for (std::size_t offset = 1; offset < 3 * step; ++offset) {
            if (offset % step == 0) continue;
            EXPECT_EQ(tlsf_memalign_offset(h, align, 256, offset), nullptr)
                << align << " " << offset;
            ++calls;
        }
    }
    if (kStats) {
        EXPECT_EQ(Stats(h).failed_count, calls);
    }
    EXPECT_TRUE(SameHeap(before, Take(h), true));
}

// tlsf.h: "`offset` must be ... smaller than `bytes` unless `bytes` is 0; otherwise the
// result is NULL."
TEST(MemalignOffset, OffsetNotBelowBytesFails) {
    Heap h(SmallPool());
    for (std::size_t align : {Align(), 4 * Align(), std::size_t(256)}) {
        for (std::size_t bytes : {Align(), 4 * Align()}) {
            for (std::size_t offset : {bytes, bytes + Align(), 16 * bytes}) {
                void *p = tlsf_memalign_offset(h, align, bytes, offset);
                EXPECT_EQ(p, nullptr)
                    << "align " << align << " bytes " << bytes << " offset " << offset;
                if (p) tlsf_free(h, p);
            }
        }
    }
    EXPECT_EQ(h.Errors(), 0);
}

TEST(MemalignOffset, ZeroBytesAcceptsAnyValidOffset) {
    Heap h(SmallPool());
    for (std::size_t align : {Align(), 4 * Align(), std::size_t(256)}) {
        for (std::size_t offset : {std::size_t(0), Align(), 4096 + Align()}) {
            void *p = tlsf_memalign_offset(h, align, 0, offset);
            ASSERT_NE(p, nullptr) << align << " " << offset;
            EXPECT_EQ((Addr(p) + offset) % align, 0u);
            tlsf_free(h, p);
        }
    }
    EXPECT_EQ(h.Errors(), 0);
}

// ---- tlsf_realloc --------------------------------------------------------------------------

TEST(Realloc, NullPointerActsAsMalloc) {
    SizeClasses c;
    Heap h(SmallPool());
    void *p = tlsf_realloc(h, nullptr, 100);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(tlsf_block_size(p), c.MallocUsable(100));
    void *z = tlsf_realloc(h, nullptr, 0);
    ASSERT_NE(z, nullptr);
    EXPECT_EQ(tlsf_block_size(z), MinUsable());
    EXPECT_NE(z, p);
    EXPECT_EQ(tlsf_realloc(h, nullptr, SIZE_MAX), nullptr);
    if (kChecks) {
        EXPECT_EQ(tlsf_realloc(nullptr, nullptr, 16), nullptr);
    }
    tlsf_free(h, p);
    tlsf_free(h, z);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Realloc, ZeroBytesFreesAndReturnsNull) {
    Heap h(SmallPool());
    const std::size_t fresh = tlsf_largest_allocatable(h);
    void *p = tlsf_malloc(h, 100);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(tlsf_realloc(h, p, 0), nullptr);
    tlsf_stats_t s = Stats(h);
    if (kStats) {
        EXPECT_EQ(s.live_blocks, 0u);
        EXPECT_EQ(s.free_count, 1u);
        EXPECT_EQ(s.failed_count, 0u);
        EXPECT_EQ(s.used_bytes, 0u);
    }
    EXPECT_EQ(tlsf_largest_allocatable(h), fresh);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Realloc, ShrinksInPlaceAndReturnsTheTail) {
    SizeClasses c;
    Heap h(MediumPool());
    void *a = tlsf_malloc(h, 8000);
    void *guard = tlsf_malloc(h, 100);
    ASSERT_TRUE(a && guard);
    Fill(a, tlsf_block_size(a), 5);
    Fill(guard, tlsf_block_size(guard), 6);
    std::size_t used = Stats(h).used_bytes;
    for (std::size_t n : {std::size_t(7000), std::size_t(4000), std::size_t(1000), std::size_t(100),
                          std::size_t(1)}) {
        void *q = tlsf_realloc(h, a, n);
        ASSERT_EQ(q, a) << "shrinking to " << n << " moved the block";
        EXPECT_GE(tlsf_block_size(q), n);
        EXPECT_LT(tlsf_block_size(q), c.MallocUsable(n) + c.min_span);
        EXPECT_TRUE(Holds(q, n, 5)) << "contents lost shrinking to " << n;
        if (kStats) {
            EXPECT_LE(Stats(h).used_bytes, used);
            used = Stats(h).used_bytes;
        }
        ASSERT_EQ(h.Errors(), 0);
    }
    // The tail went back to the heap, between a and guard.
    void *t = tlsf_malloc(h, 6000);
    ASSERT_NE(t, nullptr);
    EXPECT_GT(Addr(t), Addr(a));
    EXPECT_LT(Addr(t), Addr(guard));
    EXPECT_TRUE(Holds(guard, tlsf_block_size(guard), 6));
    // Same size, or any size the block already holds: unchanged.
    const std::size_t usable = tlsf_block_size(a);
    EXPECT_EQ(tlsf_realloc(h, a, usable), a);
    EXPECT_EQ(tlsf_block_size(a), usable);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Realloc, GrowsInPlaceWhenTheNextBlockIsFree) {
    Heap h(MediumPool());
    void *a = tlsf_malloc(h, 100);
    void *b = tlsf_malloc(h, 3000);
    void *c = tlsf_malloc(h, 100);
    ASSERT_TRUE(a && b && c);
    Fill(a, tlsf_block_size(a), 1);
    Fill(c, tlsf_block_size(c), 3);
    const std::size_t old = tlsf_block_size(a);
    tlsf_free(h, b);
    void *q = tlsf_realloc(h, a, 2500);
    ASSERT_EQ(q, a) << "the free neighbour was not used";
    EXPECT_GE(tlsf_block_size(q), 2500u);
    EXPECT_TRUE(Holds(q, old, 1));
    EXPECT_TRUE(Holds(c, tlsf_block_size(c), 3));
    EXPECT_EQ(h.Errors(), 0);
    // The last block grows into the rest of the pool.
    Fill(c, tlsf_block_size(c), 3);
    void *r = tlsf_realloc(h, c, 50000);
    ASSERT_EQ(r, c);
    EXPECT_TRUE(Holds(r, 100, 3));
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Realloc, MovesWhenTheNextBlockIsInUse) {
    Heap h(MediumPool());
    void *a = tlsf_malloc(h, 100);
    void *b = tlsf_malloc(h, 100);
    ASSERT_TRUE(a && b);
    const std::size_t old = tlsf_block_size(a);
    Fill(a, old, 11);
    Fill(b, tlsf_block_size(b), 12);
    void *q = tlsf_realloc(h, a, 5000);
    ASSERT_NE(q, nullptr);
    EXPECT_NE(q, a);
    EXPECT_GE(tlsf_block_size(q), 5000u);
    EXPECT_TRUE(Holds(q, old, 11)) << "contents were not copied";
    EXPECT_TRUE(Holds(b, tlsf_block_size(b), 12));
    if (kStats) {
        EXPECT_EQ(Stats(h).live_blocks, 2u);
    }
    // The old block was freed: it can be allocated again.
    void *again = tlsf_malloc(h, 100);
    EXPECT_EQ(again, a);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Realloc, FailureLeavesTheBlockIntact) {
    Heap h(SmallPool());
    void *p = tlsf_malloc(h, 1000);
    ASSERT_NE(p, nullptr);
    const std::size_t usable = tlsf_block_size(p);
    Fill(p, usable, 21);
    Snapshot before = Take(h);
    std::size_t calls = 0;
    std::vector<std::size_t> sizes = HugeSizes();
    sizes.push_back(SmallPool());
    sizes.push_back(PoolSpan(SmallPool()) + 1);
    for (std::size_t n : sizes) {
        EXPECT_EQ(tlsf_realloc(h, p, n), nullptr) << n;
        ++calls;
        ASSERT_EQ(tlsf_block_size(p), usable);
        ASSERT_TRUE(Holds(p, usable, 21)) << "realloc(" << n << ") damaged the block";
    }
    if (kStats) {
        EXPECT_EQ(Stats(h).failed_count, calls);
    }
    EXPECT_TRUE(SameHeap(before, Take(h), true));
    // Neither in place nor elsewhere: the heap is full.
    std::vector<void *> rest = Exhaust(h);
    EXPECT_EQ(tlsf_realloc(h, p, usable + 1), nullptr);
    EXPECT_TRUE(Holds(p, usable, 21));
    EXPECT_EQ(tlsf_block_size(p), usable);
    EXPECT_EQ(h.Errors(), 0);
    tlsf_free(h, p);
    for (void *q : rest)
        tlsf_free(h, q);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Realloc, MemalignedBlockKeepsItsAlignmentWhenMoving) {
    for (std::size_t align = 2 * Align(); align <= std::min<std::size_t>(1 << 16, SmallPool() / 4);
         align <<= 1) {
        SCOPED_TRACE("align " + std::to_string(align));
        Heap h;
        ASSERT_NE(h.AddPool(2 * align + 4096 + MinPoolBytes()), nullptr);
        void *p = tlsf_memalign(h, align, 100);
        ASSERT_NE(p, nullptr);
        ASSERT_TRUE(IsAligned(p, align));
        const std::size_t old = tlsf_block_size(p);
        Fill(p, old, align);
        std::vector<void *> rest = Exhaust(h); // nothing can grow in place now
        ASSERT_NE(h.AddPool(8 * align + 65536), nullptr);
        void *q = tlsf_realloc(h, p, 3000);
        ASSERT_NE(q, nullptr);
        EXPECT_NE(q, p);
        EXPECT_TRUE(IsAligned(q, align)) << "the move lost the alignment";
        EXPECT_GE(tlsf_block_size(q), 3000u);
        EXPECT_TRUE(Holds(q, old, align));
        Fill(q, tlsf_block_size(q), align);
        // Shrinking in place keeps the pointer, and a second move keeps the alignment too.
        EXPECT_EQ(tlsf_realloc(h, q, 200), q);
        void *blocker = tlsf_malloc(h, 5000);
        (void)blocker;
        std::vector<void *> rest2 = Exhaust(h);
        for (void *r : rest)
            tlsf_free(h, r); // room only in the first pool
        void *m = tlsf_realloc(h, q, 1000);
        ASSERT_NE(m, nullptr);
        EXPECT_TRUE(IsAligned(m, align));
        EXPECT_TRUE(Holds(m, 200, align));
        EXPECT_EQ(h.Errors(), 0);
    }
}

TEST(Realloc, MemalignedBlockGrowsAndShrinksInPlace) {
    Heap h(MediumPool());
    for (std::size_t align : {2 * Align(), std::size_t(256), std::size_t(4096)}) {
        void *p = tlsf_memalign(h, align, 64);
        ASSERT_NE(p, nullptr);
        Fill(p, 64, align);
        void *q = tlsf_realloc(h, p, 3000); // the rest of the pool follows
        ASSERT_EQ(q, p);
        EXPECT_GE(tlsf_block_size(q), 3000u);
        EXPECT_TRUE(Holds(q, 64, align));
        Fill(q, tlsf_block_size(q), align + 1);
        void *r = tlsf_realloc(h, q, 10);
        ASSERT_EQ(r, p);
        EXPECT_TRUE(Holds(r, 10, align + 1));
        ASSERT_EQ(h.Errors(), 0);
        tlsf_free(h, r);
    }
    EXPECT_EQ(h.Errors(), 0);
}

// "A later tlsf_realloc keeps the address's natural alignment, not the offset relation."
TEST(Realloc, OffsetBlockKeepsItsNaturalAlignment) {
    const std::size_t align = 16 * Align(), offset = align / 4; // p is exactly align/4-aligned
    Heap h;
    ASSERT_NE(h.AddPool(4 * align + 4096), nullptr);
    void *p = tlsf_memalign_offset(h, align, 200, offset);
    ASSERT_NE(p, nullptr);
    ASSERT_EQ((Addr(p) + offset) % align, 0u);
    ASSERT_EQ(NaturalAlignment(p), offset);
    Fill(p, 200, 3);
    std::vector<void *> rest = Exhaust(h);
    ASSERT_NE(h.AddPool(65536), nullptr);
    void *q = tlsf_realloc(h, p, 4000);
    ASSERT_NE(q, nullptr);
    EXPECT_NE(q, p);
    EXPECT_TRUE(IsAligned(q, offset));
    EXPECT_TRUE(Holds(q, 200, 3));
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Realloc, NullHeapLeavesTheBlockAlone) {
    Heap h(SmallPool());
    void *p = tlsf_malloc(h, 100);
    ASSERT_NE(p, nullptr);
    Fill(p, 100, 4);
    if (!kChecks) GTEST_SKIP() << "TLSF_CHECKS == 0";
    Snapshot before = Take(h);
    EXPECT_EQ(tlsf_realloc(nullptr, p, 200), nullptr);
    EXPECT_EQ(tlsf_realloc(nullptr, p, 10), nullptr);
    EXPECT_TRUE(SameHeap(before, Take(h)));
    EXPECT_TRUE(Holds(p, 100, 4));
}

// ---- tlsf_free and the error handler -------------------------------------------------------

TEST(Free, NullIsIgnored) {
    Heap h(SmallPool());
    void *p = tlsf_malloc(h, 100);
    ASSERT_NE(p, nullptr);
    Snapshot before = Take(h);
    tlsf_free(h, nullptr);
    tlsf_free(nullptr, nullptr);
    if (kChecks) tlsf_free(nullptr, p); // a NULL heap is refused by the checked builds
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_TRUE(SameHeap(before, Take(h)));
}

namespace {

// Five neighbouring blocks a..e followed by the rest of the pool (free).
struct Row {
    Heap h{SmallPool()};
    void *b[5];
    Row() {
        for (int i = 0; i < 5; ++i) {
            b[i] = tlsf_malloc(h, 64 + 16 * static_cast<std::size_t>(i));
            Fill(b[i], tlsf_block_size(b[i]), static_cast<std::uint64_t>(i));
        }
    }
    bool Intact(int i) { return Holds(b[i], tlsf_block_size(b[i]), static_cast<std::uint64_t>(i)); }
};

// Free `ptr` a second time: one DOUBLE_FREE report naming it, nothing else changes.
::testing::AssertionResult DoubleFreeIsHarmless(Heap &h, void *ptr) {
    Snapshot before = Take(h);
    h.log().Clear();
    tlsf_free(h, ptr);
    if (h.log().events.size() != 1)
        return ::testing::AssertionFailure() << h.log().events.size() << " reports";
    const ErrorEvent &e = h.log().events[0];
    if (e.reason != TLSF_ERROR_DOUBLE_FREE || e.ptr != ptr || e.heap != h.get())
        return ::testing::AssertionFailure() << "wrong report: " << tlsf_error_string(e.reason);
    ::testing::AssertionResult same = SameHeap(before, Take(h));
    if (!same) return same;
    if (h.Errors() != 0) return ::testing::AssertionFailure() << "tlsf_check failed";
    // realloc of the freed pointer is reported too and returns NULL.
    h.log().Clear();
    if (tlsf_realloc(h, ptr, 100) != nullptr)
        return ::testing::AssertionFailure() << "realloc worked";
    if (h.log().events.size() != 1 || h.log().events[0].reason != TLSF_ERROR_DOUBLE_FREE)
        return ::testing::AssertionFailure() << "realloc not reported";
    h.log().Clear();
    if (tlsf_realloc(h, ptr, 0) != nullptr) return ::testing::AssertionFailure() << "realloc(0)";
    if (h.log().events.size() != 1 || h.log().events[0].reason != TLSF_ERROR_DOUBLE_FREE)
        return ::testing::AssertionFailure() << "realloc(p, 0) not reported";
    h.log().Clear();
    same = SameHeap(before, Take(h), true);
    if (!same) return same;
    return ::testing::AssertionSuccess();
}

} // namespace

TEST(Free, DoubleFreeIsReportedAndHarmless) {
    if (!kChecks) GTEST_SKIP() << "TLSF_CHECKS == 0";
    SizeClasses c;
    const std::size_t fresh = c.LargestFor(PoolSpan(SmallPool()));
    {
        SCOPED_TRACE("isolated block");
        Row r;
        tlsf_free(r.h, r.b[1]);
        EXPECT_TRUE(DoubleFreeIsHarmless(r.h, r.b[1]));
        EXPECT_TRUE(r.Intact(0) && r.Intact(2));
    }
    {
        SCOPED_TRACE("merged with the next block");
        Row r;
        tlsf_free(r.h, r.b[2]);
        tlsf_free(r.h, r.b[1]);
        EXPECT_TRUE(DoubleFreeIsHarmless(r.h, r.b[1]));
        EXPECT_TRUE(DoubleFreeIsHarmless(r.h, r.b[2]));
        EXPECT_TRUE(r.Intact(0) && r.Intact(3));
    }
    {
        SCOPED_TRACE("merged into the previous block");
        Row r;
        tlsf_free(r.h, r.b[1]);
        tlsf_free(r.h, r.b[2]);
        EXPECT_TRUE(DoubleFreeIsHarmless(r.h, r.b[2]));
        EXPECT_TRUE(DoubleFreeIsHarmless(r.h, r.b[1]));
        EXPECT_TRUE(r.Intact(0) && r.Intact(3));
    }
    {
        SCOPED_TRACE("merged with both neighbours");
        Row r;
        tlsf_free(r.h, r.b[1]);
        tlsf_free(r.h, r.b[3]);
        tlsf_free(r.h, r.b[2]);
        for (int i : {1, 2, 3})
            EXPECT_TRUE(DoubleFreeIsHarmless(r.h, r.b[i])) << i;
        EXPECT_TRUE(r.Intact(0) && r.Intact(4));
    }
    {
        SCOPED_TRACE("merged with the rest of the pool, then everything freed");
        Row r;
        for (int i = 4; i >= 0; --i)
            tlsf_free(r.h, r.b[i]);
        for (int i = 0; i < 5; ++i)
            EXPECT_TRUE(DoubleFreeIsHarmless(r.h, r.b[i])) << i;
        EXPECT_EQ(tlsf_largest_allocatable(r.h), fresh);
        if (kStats) {
            EXPECT_EQ(Stats(r.h).used_bytes, 0u);
        }
    }
    {
        SCOPED_TRACE("memaligned block");
        Heap h(SmallPool());
        void *p = tlsf_memalign(h, 256, 100);
        void *q = tlsf_malloc(h, 100);
        ASSERT_TRUE(p && q);
        Fill(q, tlsf_block_size(q), 8);
        tlsf_free(h, p);
        EXPECT_TRUE(DoubleFreeIsHarmless(h, p));
        EXPECT_TRUE(Holds(q, tlsf_block_size(q), 8));
    }
}

TEST(Free, MisalignedPointerIsReportedAndHarmless) {
    if (!kChecks) GTEST_SKIP() << "TLSF_CHECKS == 0";
    Heap h(SmallPool());
    void *p = tlsf_malloc(h, 100);
    void *q = tlsf_malloc(h, 100);
    ASSERT_TRUE(p && q);
    Fill(p, tlsf_block_size(p), 1);
    Fill(q, tlsf_block_size(q), 2);
    Snapshot before = Take(h);
    for (std::size_t off = 1; off < Align(); ++off) {
        for (char *bad : {static_cast<char *>(p) + off, static_cast<char *>(q) - off}) {
            h.log().Clear();
            tlsf_free(h, bad);
            ASSERT_EQ(h.log().events.size(), 1u);
            EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_BAD_POINTER);
            EXPECT_EQ(h.log().events[0].ptr, bad);
            EXPECT_EQ(h.log().events[0].heap, h.get());
            h.log().Clear();
            EXPECT_EQ(tlsf_realloc(h, bad, 500), nullptr);
            ASSERT_EQ(h.log().events.size(), 1u);
            EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_BAD_POINTER);
            EXPECT_EQ(h.log().events[0].ptr, bad);
            h.log().Clear();
            EXPECT_EQ(tlsf_realloc(h, bad, 0), nullptr);
            ASSERT_EQ(h.log().events.size(), 1u);
            EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_BAD_POINTER);
        }
    }
    EXPECT_TRUE(SameHeap(before, Take(h)));
    EXPECT_EQ(h.Errors(), 0);
    EXPECT_TRUE(Holds(p, tlsf_block_size(p), 1));
    EXPECT_TRUE(Holds(q, tlsf_block_size(q), 2));
    h.log().Clear();
    tlsf_free(h, p);
    tlsf_free(h, q);
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(h.Errors(), 0);
}

namespace {
struct UserRecord {
    int calls = 0;
    tlsf_t heap = nullptr;
    tlsf_error_t reason = TLSF_ERROR_NONE;
    const void *ptr = nullptr;
    void *user = nullptr;
};
void RecordingHandler(tlsf_t heap, tlsf_error_t reason, const void *ptr, void *user) {
    UserRecord *r = static_cast<UserRecord *>(user);
    ++r->calls;
    r->heap = heap;
    r->reason = reason;
    r->ptr = ptr;
    r->user = user;
}
} // namespace

TEST(ErrorHandler, ReceivesHeapReasonPointerAndUserValue) {
    if (!kChecks) GTEST_SKIP() << "TLSF_CHECKS == 0";
    Heap h1(SmallPool()), h2(SmallPool());
    UserRecord r1, r2;
    tlsf_set_error_handler(h1, &RecordingHandler, &r1);
    tlsf_set_error_handler(h2, &RecordingHandler, &r2);
    void *p = tlsf_malloc(h2, 10);
    tlsf_free(h2, p);
    tlsf_free(h2, p);
    EXPECT_EQ(r1.calls, 0);
    EXPECT_EQ(r2.calls, 1);
    EXPECT_EQ(r2.heap, h2.get());
    EXPECT_EQ(r2.reason, TLSF_ERROR_DOUBLE_FREE);
    EXPECT_EQ(r2.ptr, p);
    EXPECT_EQ(r2.user, &r2);
    tlsf_remove_pool(h1, h1.pools()[0]); // empty: no report
    EXPECT_EQ(r1.calls, 0);
    EXPECT_EQ(tlsf_add_pool(h1, nullptr, 4096), nullptr);
    EXPECT_EQ(r1.calls, 1);
    EXPECT_EQ(r1.reason, TLSF_ERROR_BAD_POOL);
}

#if !TLSF_DEFAULT_ERROR_HANDLER
// Freestanding builds (and any build with TLSF_DEFAULT_ERROR_HANDLER=0): no handler means
// the faulty call does nothing further, silently.
TEST(ErrorHandler, NullRestoresTheSilentDefault) {
    if (!kChecks) GTEST_SKIP() << "TLSF_CHECKS == 0";
    Heap h(SmallPool());
    void *p = tlsf_malloc(h, 10);
    void *q = tlsf_malloc(h, 10);
    tlsf_free(h, p);
    tlsf_set_error_handler(h, nullptr, nullptr);
    Snapshot before = Take(h);
    tlsf_free(h, p);                          // double free, silently ignored
    tlsf_free(h, static_cast<char *>(q) + 1); // misaligned, silently ignored
    EXPECT_EQ(tlsf_add_pool(h, nullptr, 4096), nullptr);
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_TRUE(SameHeap(before, Take(h)));
    EXPECT_EQ(h.Errors(), 0);
    tlsf_set_error_handler(nullptr, &ErrorLog::Handler, &h.log()); // ignored
}

TEST(ErrorHandler, DefaultOfAFreshHeapIsSilent) {
    if (!kChecks) GTEST_SKIP() << "TLSF_CHECKS == 0";
    Region control(tlsf_size(), 64);
    Region pool(SmallPool(), 64);
    tlsf_t h = tlsf_create(control.data());
    ASSERT_NE(tlsf_add_pool(h, pool.data(), pool.size()), nullptr);
    void *p = tlsf_malloc(h, 10);
    tlsf_free(h, p);
    tlsf_free(h, p);
    tlsf_free(h, static_cast<char *>(p) + 1);
    EXPECT_EQ(tlsf_check(h), 0);
    EXPECT_EQ(tlsf_add_pool(h, pool.data() + 1, 4096), nullptr);
    EXPECT_EQ(tlsf_check(h), 0);
}
#else
// Hosted builds (TLSF_DEFAULT_ERROR_HANDLER=1): with no handler installed, misuse prints
// "tlsf: <reason> (pointer <p>, heap <h>); aborting" on stderr and aborts. The heap and
// its blocks are made before the death statement, whose child process (a fork) sees them
// at the same addresses, so the message can be matched with the exact pointers.
namespace {
// `text` as a POSIX extended regular expression matching itself.
std::string Literal(const char *text) {
    std::string pattern;
    for (const char *c = text; *c; ++c) {
        if (std::strchr("()[]{}.*+?^$|\\", *c)) pattern += '\\';
        pattern += *c;
    }
    return pattern;
}

// The expected message, as a regular expression. (%p prints "(nil)" for NULL on glibc.)
std::string DefaultMessage(tlsf_error_t reason, const void *ptr, tlsf_t heap) {
    char pointer[64], control[64];
    std::snprintf(pointer, sizeof pointer, "%p", const_cast<void *>(ptr));
    std::snprintf(control, sizeof control, "%p", static_cast<void *>(heap));
    return "tlsf: " + Literal(tlsf_error_string(reason)) + " \\(pointer " + Literal(pointer) +
           ", heap " + Literal(control) + "\\); aborting";
}

// A heap with one pool and no error handler: what tlsf_create leaves.
struct BareHeap {
    Region control{tlsf_size(), 64};
    Region pool{SmallPool(), 64};
    tlsf_t heap = tlsf_create(control.data());
    BareHeap() { EXPECT_NE(tlsf_add_pool(heap, pool.data(), pool.size()), nullptr); }
};
} // namespace

TEST(DefaultErrorHandlerDeathTest, DoubleFreePrintsReasonAndPointerThenAborts) {
    if (!kChecks) GTEST_SKIP() << "TLSF_CHECKS == 0";
    BareHeap b;
    void *p = tlsf_malloc(b.heap, 10);
    ASSERT_NE(p, nullptr);
    tlsf_free(b.heap, p);
    EXPECT_DEATH(tlsf_free(b.heap, p), DefaultMessage(TLSF_ERROR_DOUBLE_FREE, p, b.heap));
    EXPECT_EQ(tlsf_check(b.heap), 0); // the parent's heap is untouched
}

TEST(DefaultErrorHandlerDeathTest, MisalignedPointerPrintsAndAborts) {
    if (!kChecks) GTEST_SKIP() << "TLSF_CHECKS == 0";
    BareHeap b;
    char *p = static_cast<char *>(tlsf_malloc(b.heap, 10));
    ASSERT_NE(p, nullptr);
    EXPECT_DEATH(tlsf_free(b.heap, p + 1), DefaultMessage(TLSF_ERROR_BAD_POINTER, p + 1, b.heap));
    EXPECT_DEATH(tlsf_realloc(b.heap, p + 1, 20),
                 DefaultMessage(TLSF_ERROR_BAD_POINTER, p + 1, b.heap));
    tlsf_free(b.heap, p);
}

// Bad pool arguments are reported by the result, never by an abort (tlsf.h): with no
// handler installed, the default handler does not hear of them.
TEST(DefaultErrorHandler, BadPoolAndPoolInUseNeverAbort) {
    BareHeap b;
    void *p = tlsf_malloc(b.heap, 10);
    ASSERT_NE(p, nullptr);
    tlsf_stats_t before{}, after{};
    tlsf_get_stats(b.heap, &before);
    EXPECT_EQ(tlsf_add_pool(b.heap, b.pool.data() + 1, 4096), nullptr);
    pool_t pool = reinterpret_cast<pool_t>(b.pool.data()); // holds p
    tlsf_remove_pool(b.heap, pool);
    tlsf_get_stats(b.heap, &after);
    EXPECT_EQ(after.pool_count, before.pool_count);
    EXPECT_EQ(after.pool_bytes, before.pool_bytes);
    EXPECT_EQ(after.live_blocks, before.live_blocks);
    EXPECT_EQ(tlsf_check(b.heap), 0);
    EXPECT_EQ(tlsf_check_pool(pool), 0);
    tlsf_free(b.heap, p);
}

TEST(DefaultErrorHandlerDeathTest, NullHandlerRestoresTheDefault) {
    if (!kChecks) GTEST_SKIP() << "TLSF_CHECKS == 0";
    Heap h(SmallPool()); // installs a logging handler
    void *p = tlsf_malloc(h, 10);
    tlsf_free(h, p);
    tlsf_free(h, p); // logged, not fatal
    ASSERT_EQ(h.log().events.size(), 1u);
    tlsf_set_error_handler(h, nullptr, nullptr);
    EXPECT_DEATH(tlsf_free(h, p), DefaultMessage(TLSF_ERROR_DOUBLE_FREE, p, h));
    tlsf_set_error_handler(nullptr, &ErrorLog::Handler, &h.log()); // ignored, no report
}

TEST(DefaultErrorHandlerDeathTest, CanBeCalledByAHandlerOfYourOwn) {
    int dummy = 0;
    EXPECT_DEATH(tlsf_default_error_handler(nullptr, TLSF_ERROR_CORRUPT_BLOCK, &dummy, nullptr),
                 DefaultMessage(TLSF_ERROR_CORRUPT_BLOCK, &dummy, nullptr));
}

#endif

// A pool refused by tlsf_create_with_pool is not misuse: that function promises NULL, and
// the heap it was building has no handler yet, so the default handler must not hear of it.
TEST(ErrorHandler, CreateWithPoolTooSmallReturnsNullWithoutReport) {
    const std::size_t smallest =
        tlsf_pool_overhead() + tlsf_alloc_overhead() + tlsf_block_size_min();
    Region memory(tlsf_size() + smallest, 64);
    EXPECT_EQ(tlsf_create_with_pool(memory.data(), tlsf_size() + smallest - Align()), nullptr);
    EXPECT_EQ(tlsf_create_with_pool(memory.data(), tlsf_size() + Align()), nullptr);
    EXPECT_EQ(tlsf_create_with_pool(memory.data(), tlsf_size()), nullptr);
    EXPECT_NE(tlsf_create_with_pool(memory.data(), tlsf_size() + smallest), nullptr);
}

TEST(ErrorString, DescribesEveryReason) {
    const tlsf_error_t all[] = {TLSF_ERROR_NONE,        TLSF_ERROR_DOUBLE_FREE,
                                TLSF_ERROR_BAD_POINTER, TLSF_ERROR_CORRUPT_BLOCK,
                                TLSF_ERROR_BAD_POOL,    TLSF_ERROR_POOL_IN_USE};
    std::set<std::string> seen;
    for (tlsf_error_t e : all) {
        const char *s = tlsf_error_string(e);
        ASSERT_NE(s, nullptr) << e;
        EXPECT_GT(std::strlen(s), 0u) << e;
        EXPECT_TRUE(seen.insert(s).second) << "two reasons share \"" << s << "\"";
    }
    // A value outside the enumerators (but representable in the enum) is not NULL either.
    const char *unknown = tlsf_error_string(static_cast<tlsf_error_t>(7));
    ASSERT_NE(unknown, nullptr);
    EXPECT_GT(std::strlen(unknown), 0u);
}

// ---- Statistics ----------------------------------------------------------------------------

TEST(Stats, FreshHeap) {
    SizeClasses c;
    Heap h(MediumPool());
    tlsf_stats_t s = Stats(h);
    EXPECT_EQ(s.pool_bytes, PoolSpan(MediumPool()));
    EXPECT_EQ(s.pool_count, 1u);
    EXPECT_EQ(s.largest_allocatable, c.LargestFor(PoolSpan(MediumPool())));
    EXPECT_EQ(s.largest_allocatable, tlsf_largest_allocatable(h));
    EXPECT_EQ(s.used_bytes, 0u);
    EXPECT_EQ(s.free_bytes, kStats ? s.pool_bytes : 0u);
    EXPECT_EQ(s.peak_used_bytes, 0u);
    EXPECT_EQ(s.live_blocks, 0u);
    EXPECT_EQ(s.alloc_count, 0u);
    EXPECT_EQ(s.free_count, 0u);
    EXPECT_EQ(s.failed_count, 0u);
}

TEST(Stats, CountAllocationsFreesAndFailuresExactly) {
    if (!kStats) GTEST_SKIP() << "TLSF_STATS == 0";
    Heap h(MediumPool());
    const std::size_t pool = PoolSpan(MediumPool());
    std::vector<void *> live;
    std::size_t used = 0, allocs = 0, frees = 0, fails = 0, peak = 0;
    auto span = [](void *p) { return tlsf_block_size(p) + Word(); };
    auto expect = [&](const char *when) {
        tlsf_stats_t s = Stats(h);
        EXPECT_EQ(s.used_bytes, used) << when;
        EXPECT_EQ(s.free_bytes, pool - used) << when;
        EXPECT_EQ(s.live_blocks, live.size()) << when;
        EXPECT_EQ(s.alloc_count, allocs) << when;
        EXPECT_EQ(s.free_count, frees) << when;
        EXPECT_EQ(s.failed_count, fails) << when;
        EXPECT_EQ(s.peak_used_bytes, peak) << when;
        EXPECT_EQ(s.pool_bytes, pool) << when;
        // The statistics leave the cache alone; the exact answer flushes it.
        EXPECT_LE(s.largest_allocatable, tlsf_largest_allocatable(h)) << when;
        EXPECT_EQ(Stats(h).largest_allocatable, tlsf_largest_allocatable(h)) << when;
    };
    for (std::size_t n :
         {std::size_t(0), std::size_t(1), std::size_t(100), std::size_t(1000), std::size_t(5000)}) {
        void *p = tlsf_malloc(h, n);
        live.push_back(p);
        used += span(p);
        ++allocs;
        peak = std::max(peak, used);
    }
    expect("after mallocs");
    void *z = tlsf_calloc(h, 10, 10);
    live.push_back(z);
    used += span(z);
    ++allocs;
    peak = std::max(peak, used);
    expect("after calloc");
    EXPECT_EQ(tlsf_malloc(h, SIZE_MAX), nullptr);
    EXPECT_EQ(tlsf_calloc(h, SIZE_MAX, 2), nullptr);
    EXPECT_EQ(tlsf_memalign(h, 3, 10), nullptr);
    EXPECT_EQ(tlsf_malloc(h, pool), nullptr);
    fails += 4;
    expect("after failures");
    used -= span(live[2]);
    tlsf_free(h, live[2]);
    live.erase(live.begin() + 2);
    ++frees;
    expect("after a free");
    // In place (shrinking; growth in place is PeakIsNotInflatedByGrowingInPlace): counts
    // unchanged, used follows the block.
    void *big = live[3]; // the malloc(5000) block
    used -= span(big);
    void *shrunk = tlsf_realloc(h, big, 1000);
    ASSERT_EQ(shrunk, big);
    used += span(shrunk);
    expect("after realloc in place");
    // Moving: one allocation and one free more; both blocks exist during the copy.
    void *first = live[0];
    const std::size_t old_span = span(first);
    void *moved = tlsf_realloc(h, first, 20000);
    ASSERT_NE(moved, first);
    live[0] = moved;
    peak = std::max(peak, used + span(moved));
    used = used - old_span + span(moved);
    ++allocs;
    ++frees;
    expect("after realloc that moved");
    // A failing realloc counts one failure and changes nothing else.
    EXPECT_EQ(tlsf_realloc(h, live[1], SIZE_MAX / 2), nullptr);
    ++fails;
    expect("after a failed realloc");
    // realloc(p, 0) is a free, not a failure.
    used -= span(live[1]);
    EXPECT_EQ(tlsf_realloc(h, live[1], 0), nullptr);
    live.erase(live.begin() + 1);
    ++frees;
    expect("after realloc(p, 0)");
    for (void *p : live)
        tlsf_free(h, p);
    frees += live.size();
    live.clear();
    used = 0;
    expect("after freeing everything");
}

TEST(Stats, PeakAndResetPeak) {
    if (!kStats) GTEST_SKIP() << "TLSF_STATS == 0";
    Heap h(MediumPool());
    void *a = tlsf_malloc(h, 10000);
    void *b = tlsf_malloc(h, 20000);
    const std::size_t high = Stats(h).used_bytes;
    EXPECT_EQ(Stats(h).peak_used_bytes, high);
    tlsf_free(h, b);
    EXPECT_EQ(Stats(h).peak_used_bytes, high);
    EXPECT_LT(Stats(h).used_bytes, high);
    tlsf_reset_peak(h);
    EXPECT_EQ(Stats(h).peak_used_bytes, Stats(h).used_bytes);
    void *c = tlsf_malloc(h, 100);
    EXPECT_EQ(Stats(h).peak_used_bytes, Stats(h).used_bytes);
    tlsf_free(h, a);
    tlsf_free(h, c);
    EXPECT_EQ(Stats(h).used_bytes, 0u);
    EXPECT_GT(Stats(h).peak_used_bytes, 0u);
    tlsf_reset_peak(h);
    EXPECT_EQ(Stats(h).peak_used_bytes, 0u);
    tlsf_reset_peak(nullptr);
}

// peak_used_bytes is "the highest used_bytes seen": growing a block in place by a few bytes
// must not report the whole free neighbour it absorbed and split again.
TEST(Stats, PeakIsNotInflatedByGrowingInPlace) {
    if (!kStats) GTEST_SKIP() << "TLSF_STATS == 0";
    Heap h(MediumPool());
    void *p = tlsf_malloc(h, 16);
    ASSERT_NE(p, nullptr);
    tlsf_reset_peak(h);
    void *q = tlsf_realloc(h, p, 1000); // the rest of the pool follows p
    ASSERT_EQ(q, p);
    tlsf_stats_t s = Stats(h);
    EXPECT_EQ(s.used_bytes, tlsf_block_size(q) + Word());
    EXPECT_EQ(s.peak_used_bytes, s.used_bytes)
        << "peak counts the whole absorbed neighbour (" << s.pool_bytes << " pool bytes)";
}

TEST(Stats, NullArgumentsAreIgnored) {
    tlsf_stats_t s;
    std::memset(&s, 0x5A, sizeof s);
    tlsf_stats_t copy = s;
    tlsf_get_stats(nullptr, &s);
    EXPECT_EQ(std::memcmp(&s, &copy, sizeof s), 0);
    Heap h(SmallPool());
    tlsf_get_stats(h, nullptr);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Stats, DisabledStatsReportOnlyPoolFigures) {
    if (kStats) GTEST_SKIP() << "TLSF_STATS == 1";
    Heap h(SmallPool());
    void *p = tlsf_malloc(h, 100);
    ASSERT_NE(p, nullptr);
    tlsf_stats_t s = Stats(h);
    EXPECT_EQ(s.pool_bytes, PoolSpan(SmallPool()));
    EXPECT_EQ(s.pool_count, 1u);
    EXPECT_EQ(s.largest_allocatable, tlsf_largest_allocatable(h));
    EXPECT_EQ(s.used_bytes, 0u);
    EXPECT_EQ(s.live_blocks, 0u);
    EXPECT_EQ(s.alloc_count, 0u);
}

// ---- tlsf_largest_allocatable ----------------------------------------------------------------

TEST(Largest, NullAndEmptyHeapsAreZero) {
    EXPECT_EQ(tlsf_largest_allocatable(nullptr), 0u);
    Heap h;
    EXPECT_EQ(tlsf_largest_allocatable(h), 0u);
    EXPECT_TRUE(LargestIsExact(h));
}

TEST(Largest, ExactInFreshHeapsOfManySizes) {
    SizeClasses c;
    const std::size_t max_bytes = MediumPool();
    Region control(tlsf_size(), 64);
    Region pool(max_bytes, 64);
    std::vector<std::size_t> sizes;
    for (std::size_t b = MinPoolBytes(); b < MinPoolBytes() + 2 * c.linear_end + 64; ++b)
        sizes.push_back(b);
    for (std::size_t b = 2 * c.linear_end; b <= max_bytes; b += b / 11 + 1)
        sizes.push_back(b);
    for (std::size_t bytes : sizes) {
        tlsf_t h = tlsf_create(control.data());
        ASSERT_NE(tlsf_add_pool(h, pool.data(), bytes), nullptr) << bytes;
        ASSERT_EQ(tlsf_largest_allocatable(h), c.LargestFor(PoolSpan(bytes))) << bytes;
        ASSERT_TRUE(LargestIsExact(h)) << bytes;
    }
}

TEST(Largest, ExactInFragmentedHeapsWithSeveralPools) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        Rng rng(seed * 977);
        Heap h(SmallPool());
        std::vector<void *> live;
        for (int step = 0; step < 3000; ++step) {
            if (step == 1000) h.AddPool(SmallPool() / 2, Align());
            if (step == 2000) h.AddPool(MinPoolBytes() * 3);
            if (live.empty() || rng.Chance(55)) {
                std::size_t n = rng.Chance(90) ? rng.Below(400) : rng.Below(SmallPool() / 2);
                std::size_t largest = tlsf_largest_allocatable(h);
                void *p = tlsf_malloc(h, n);
                ASSERT_EQ(p != nullptr, Fits(n, largest)) << "n " << n << " largest " << largest;
                if (p) live.push_back(p);
            } else {
                std::size_t i = rng.Below(live.size());
                tlsf_free(h, live[i]);
                live[i] = live.back();
                live.pop_back();
            }
            if (step % 7 == 0) {
                ASSERT_TRUE(LargestIsExact(h)) << "step " << step;
            }
        }
        EXPECT_EQ(h.Errors(), 0);
    }
}

TEST(Largest, ZeroWhenExhausted) {
    Heap h(SmallPool());
    h.AddPool(MinPoolBytes());
    std::vector<void *> blocks = Exhaust(h);
    EXPECT_EQ(tlsf_largest_allocatable(h), 0u);
    EXPECT_EQ(tlsf_malloc(h, 0), nullptr);
    EXPECT_EQ(h.Errors(), 0);
    for (void *p : blocks)
        tlsf_free(h, p);
    EXPECT_EQ(tlsf_largest_allocatable(h), SizeClasses().LargestFor(PoolSpan(SmallPool())));
}

// ---- tlsf_block_size -----------------------------------------------------------------------

TEST(BlockSize, NullIsZero) {
    EXPECT_EQ(tlsf_block_size(nullptr), 0u);
}

TEST(BlockSize, AtLeastTheRequestForEveryAllocationFunction) {
    Heap h(MediumPool());
    for (std::size_t n : {std::size_t(1), std::size_t(31), std::size_t(300), std::size_t(3000)}) {
        void *ps[] = {tlsf_malloc(h, n),
                      tlsf_calloc(h, n, 1),
                      tlsf_memalign(h, 128, n),
                      tlsf_aligned_alloc(h, 64, n),
                      tlsf_memalign_offset(h, 256, n, n > Align() ? Align() : 0),
                      tlsf_realloc(h, nullptr, n)};
        for (void *p : ps) {
            ASSERT_NE(p, nullptr);
            EXPECT_GE(tlsf_block_size(p), n);
            Fill(p, tlsf_block_size(p), n);
        }
        for (void *p : ps)
            EXPECT_TRUE(Holds(p, tlsf_block_size(p), n));
        for (void *p : ps)
            tlsf_free(h, p);
    }
    EXPECT_EQ(h.Errors(), 0);
}

// ---- tlsf_check / tlsf_check_pool ------------------------------------------------------------

// A write just past the end of block a lands in the next block's header. For each bit of
// that byte flipped: if the walk of the pool no longer visits the same blocks (or sees one of
// them change between free and used), the heap is damaged and the checks must say so; undone,
// they must be back to 0. `fill` is what the pool's memory and b's data hold (what a span
// changed by the overflow lands on).
namespace {
::testing::AssertionResult OverflowIsDetected(bool next_free, unsigned char fill) {
    Heap h;
    if (!h.AddPool(SmallPool(), 0, fill)) return ::testing::AssertionFailure() << "add_pool failed";
    void *a = tlsf_malloc(h, 100);
    void *b = tlsf_malloc(h, 100);
    void *c = tlsf_malloc(h, 100);
    if (!a || !b || !c) return ::testing::AssertionFailure() << "malloc failed";
    std::memset(b, fill, tlsf_block_size(b));
    std::memset(c, fill, tlsf_block_size(c));
    if (next_free) tlsf_free(h, b);
    auto shape = [&] {
        std::vector<std::pair<void *, bool>> out;
        for (const WalkedBlock &w : Walk(h.pools()[0]))
            out.emplace_back(w.ptr, w.used);
        return out;
    };
    const auto before = shape();
    unsigned char *past = static_cast<unsigned char *>(a) + tlsf_block_size(a);
    const unsigned char saved = *past;
    for (unsigned bit = 0; bit < 8; ++bit) {
        *past = static_cast<unsigned char>(saved ^ (1u << bit));
        const bool damaged = shape() != before;
        const int errors = h.Errors();
        *past = saved;
        if (damaged && errors == 0)
            return ::testing::AssertionFailure()
                   << "flipping bit " << bit << " of the byte after a block "
                   << "breaks the pool's chain, yet tlsf_check and "
                   << "tlsf_check_pool report nothing";
        if (h.Errors() != 0)
            return ::testing::AssertionFailure() << "errors remain after undoing bit " << bit;
    }
    return ::testing::AssertionSuccess();
}
} // namespace

TEST(Check, DetectsAnOverflowIntoTheNextHeader) {
    if (kAsan) GTEST_SKIP() << "ASan reports the overflow itself";
    EXPECT_TRUE(OverflowIsDetected(false, 0xA5));
    EXPECT_TRUE(OverflowIsDetected(true, 0xA5));
}

// tlsf_check_pool verifies "the sentinel in place". A span shrunk by an overflow that lands
// on zeroed user data (calloc'd memory, say) must not pass for the end of the pool.
TEST(Check, ZeroedDataIsNotTakenForTheEndOfThePool) {
    if (kAsan) GTEST_SKIP() << "ASan reports the overflow itself";
    EXPECT_TRUE(OverflowIsDetected(false, 0x00));
}

// ---- TLSF_CHECKS >= 2: sealed headers ------------------------------------------------------

TEST(SealedHeaders, PointerIntoABlockIsReported) {
    if (TLSF_CHECKS < 2) GTEST_SKIP() << "TLSF_CHECKS < 2";
    Heap h(SmallPool());
    void *p = tlsf_malloc(h, 1000);
    void *q = tlsf_malloc(h, 100);
    ASSERT_TRUE(p && q);
    Fill(p, tlsf_block_size(p), 1);
    Fill(q, tlsf_block_size(q), 2);
    Snapshot before = Take(h);
    for (std::size_t off = Align(); off + Align() <= tlsf_block_size(p); off += Align()) {
        char *bad = static_cast<char *>(p) + off;
        h.log().Clear();
        tlsf_free(h, bad);
        ASSERT_EQ(h.log().events.size(), 1u) << off;
        EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_BAD_POINTER) << off;
        EXPECT_EQ(h.log().events[0].ptr, bad);
        h.log().Clear();
        EXPECT_EQ(tlsf_realloc(h, bad, 10), nullptr);
        ASSERT_EQ(h.log().events.size(), 1u) << off;
        EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_BAD_POINTER) << off;
    }
    EXPECT_TRUE(SameHeap(before, Take(h)));
    EXPECT_TRUE(Holds(p, tlsf_block_size(p), 1));
    EXPECT_TRUE(Holds(q, tlsf_block_size(q), 2));
    EXPECT_EQ(h.Errors(), 0);
}

TEST(SealedHeaders, PointerOfAnotherHeapIsReported) {
    if (TLSF_CHECKS < 2) GTEST_SKIP() << "TLSF_CHECKS < 2";
    Heap h1(SmallPool()), h2(SmallPool());
    void *p = tlsf_malloc(h2, 100);
    ASSERT_NE(p, nullptr);
    Snapshot b1 = Take(h1), b2 = Take(h2);
    tlsf_free(h1, p);
    ASSERT_EQ(h1.log().events.size(), 1u);
    EXPECT_EQ(h1.log().events[0].reason, TLSF_ERROR_BAD_POINTER);
    EXPECT_EQ(h1.log().events[0].ptr, p);
    EXPECT_TRUE(SameHeap(b1, Take(h1)));
    EXPECT_TRUE(SameHeap(b2, Take(h2)));
    tlsf_free(h2, p);
    EXPECT_TRUE(h2.log().events.empty());
    EXPECT_EQ(h1.Errors() + h2.Errors(), 0);
}

TEST(SealedHeaders, OverflowIntoTheNextHeaderIsReported) {
    if (TLSF_CHECKS < 2) GTEST_SKIP() << "TLSF_CHECKS < 2";
    if (kAsan) GTEST_SKIP() << "ASan reports the overflow itself";
    Heap h(SmallPool());
    void *p = tlsf_malloc(h, 100);
    void *q = tlsf_malloc(h, 100);
    ASSERT_TRUE(p && q);
    unsigned char *past = static_cast<unsigned char *>(p) + tlsf_block_size(p); // q's header
    const unsigned char saved = *past;
    *past = static_cast<unsigned char>(saved ^ 0x40);
    tlsf_free(h, p);
    ASSERT_EQ(h.log().events.size(), 1u);
    EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_CORRUPT_BLOCK);
    EXPECT_EQ(h.log().events[0].ptr, p);
    h.log().Clear();
    tlsf_free(h, q);
    ASSERT_EQ(h.log().events.size(), 1u);
    EXPECT_TRUE(h.log().events[0].reason == TLSF_ERROR_BAD_POINTER ||
                h.log().events[0].reason == TLSF_ERROR_CORRUPT_BLOCK);
    *past = saved;
    h.log().Clear();
    tlsf_free(h, p);
    tlsf_free(h, q);
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(h.Errors(), 0);
}

// ---- AddressSanitizer cooperation ----------------------------------------------------------

// What ASan itself reports: a read of a freed TLSF block, and a write past a block's usable
// end into the next block's header, each stop the program at the faulting access with
// ASan's report on an access to poisoned memory.
TEST(AsanDeathTest, UseAfterFreeIsReported) {
    if (!kAsan) GTEST_SKIP() << "not an ASan build";
    Heap h(SmallPool());
    auto *p = static_cast<volatile unsigned char *>(tlsf_malloc(h, 64));
    ASSERT_NE(p, nullptr);
    tlsf_free(h, const_cast<unsigned char *>(p));
    EXPECT_DEATH((void)p[8], "AddressSanitizer: use-after-poison");
}

TEST(AsanDeathTest, OverflowIntoTheNextHeaderIsReported) {
    if (!kAsan) GTEST_SKIP() << "not an ASan build";
    Heap h(SmallPool());
    auto *p = static_cast<volatile unsigned char *>(tlsf_malloc(h, 64));
    ASSERT_NE(p, nullptr);
    void *q = tlsf_malloc(h, 64);
    ASSERT_NE(q, nullptr);
    const std::size_t usable = tlsf_block_size(const_cast<unsigned char *>(p));
    EXPECT_DEATH(p[usable] = 0xff, "AddressSanitizer: use-after-poison");
    tlsf_free(h, q);
    tlsf_free(h, const_cast<unsigned char *>(p));
}

TEST(Asan, OnlyLiveBlocksAreTheUsers) {
    if (!kAsan) GTEST_SKIP() << "not an ASan build";
    Heap h(SmallPool());
    void *p = tlsf_malloc(h, 100);
    void *q = tlsf_memalign(h, 256, 300);
    ASSERT_TRUE(p && q);
    EXPECT_EQ(FirstPoisoned(p, tlsf_block_size(p)), nullptr);
    EXPECT_EQ(FirstPoisoned(q, tlsf_block_size(q)), nullptr);
    EXPECT_NE(FirstPoisoned(static_cast<char *>(p) - 1, 1), nullptr) << "header not poisoned";
    void *r = tlsf_realloc(h, p, 2000);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(FirstPoisoned(r, tlsf_block_size(r)), nullptr);
    r = tlsf_realloc(h, r, 50);
    EXPECT_EQ(FirstPoisoned(r, tlsf_block_size(r)), nullptr);
    EXPECT_NE(FirstPoisoned(static_cast<char *>(r) + tlsf_block_size(r), 1), nullptr);
    tlsf_free(h, q);
    EXPECT_NE(FirstPoisoned(q, 1), nullptr) << "a freed block is not poisoned";
    unsigned char *z = static_cast<unsigned char *>(tlsf_calloc(h, 10, 10));
    ASSERT_NE(z, nullptr);
    EXPECT_EQ(FirstPoisoned(z, tlsf_block_size(z)), nullptr);
    EXPECT_TRUE(AllBytes(z, 100, 0));
    EXPECT_EQ(h.Errors(), 0);
}
