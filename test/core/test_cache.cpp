// SPDX-License-Identifier: MIT
// The bounded front cache (TLSF_CACHE, core/src/tlsf_cache.h): a freed block of an exact
// class is kept whole and handed out again first, within a hard byte budget; cached
// blocks count as free, are never merged while cached, and go back to the lists on a
// flush, a pool removal, an exact largest-allocatable query, or a request the lists
// cannot serve.
#include "tlsf_test_support.h"

using namespace tlsf_test;

namespace {

constexpr std::size_t kPool = 64 * 1024;

// A request whose block has an exact (cached) class: the smallest block's usable size.
std::size_t SmallRequest() {
    return tlsf_block_size_min();
}

std::size_t FreeBlocksIn(pool_t pool) {
    std::size_t n = 0;
    for (const WalkedBlock &w : Walk(pool))
        n += !w.used;
    return n;
}

} // namespace

TEST(Cache, LimitIsClampedAndZeroWithoutTheCache) {
    Heap h(kPool);
    if (!TLSF_CACHE) {
        EXPECT_EQ(tlsf_cache_set_limit(h, 4096), 0u);
        tlsf_cache_flush(h); // does nothing
        tlsf_cache_flush(nullptr);
        EXPECT_EQ(h.Errors(), 0);
        return;
    }
    EXPECT_EQ(tlsf_cache_set_limit(h, std::size_t(-1)), std::size_t(TLSF_CACHE_BYTES));
    EXPECT_EQ(tlsf_cache_set_limit(h, 100), 100u);
    EXPECT_EQ(tlsf_cache_set_limit(nullptr, 100), 0u);
    tlsf_cache_flush(nullptr);
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Cache, AFreedBlockIsHandedOutAgainFirstAndCountsAsFree) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    Heap h(kPool);
    void *a = tlsf_malloc(h, SmallRequest());
    void *b = tlsf_malloc(h, SmallRequest());
    void *c = tlsf_malloc(h, SmallRequest());
    ASSERT_TRUE(a && b && c);
    const tlsf_stats_t with_b = Stats(h);
    tlsf_free(h, b);
    const tlsf_stats_t without_b = Stats(h);
    if (TLSF_STATS) {
        EXPECT_EQ(without_b.live_blocks, with_b.live_blocks - 1);
        EXPECT_EQ(without_b.used_bytes, with_b.used_bytes - (tlsf_block_size(a) + Word()));
        EXPECT_EQ(without_b.free_count, with_b.free_count + 1);
    }
    // b's neighbours are in use, and it is reported free by the walk.
    EXPECT_EQ(FreeBlocksIn(h.pools()[0]), 2u);    // b and the pool's rest
    EXPECT_EQ(tlsf_malloc(h, SmallRequest()), b); // LIFO: b first
    tlsf_free(h, a);
    tlsf_free(h, b);
    EXPECT_EQ(tlsf_malloc(h, SmallRequest()), b);
    EXPECT_EQ(tlsf_malloc(h, SmallRequest()), a);
    EXPECT_EQ(h.Errors(), 0);
    tlsf_free(h, a);
    tlsf_free(h, b);
    tlsf_free(h, c);
}

TEST(Cache, CachedBlocksAreNotMergedUntilFlushed) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    Heap h(kPool);
    std::vector<void *> blocks;
    for (int i = 0; i < 8; ++i)
        blocks.push_back(tlsf_malloc(h, SmallRequest()));
    for (void *p : blocks)
        tlsf_free(h, p);
    EXPECT_EQ(FreeBlocksIn(h.pools()[0]), 9u); // eight cached, side by side, and the rest
    EXPECT_EQ(h.Errors(), 0);
    const tlsf_stats_t before = Stats(h);
    tlsf_cache_flush(h);
    std::vector<WalkedBlock> walk = Walk(h.pools()[0]);
    ASSERT_EQ(walk.size(), 1u); // everything merged back into one free block
    EXPECT_EQ(walk[0].size + Word(), PoolSpan(kPool));
    const tlsf_stats_t after = Stats(h);
    EXPECT_EQ(after.used_bytes, before.used_bytes); // already counted as free
    EXPECT_EQ(after.free_count, before.free_count);
    EXPECT_EQ(h.Errors(), 0);
}

// The budget is hard: each cached block is charged twice its span, so a
// budget of ten smallest spans has room for five smallest blocks; the sixth free goes to
// the lists and merges with its free neighbours as without the cache.
TEST(Cache, TheBudgetIsHard) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    Heap h(kPool);
    const std::size_t span = tlsf_block_size_min() + tlsf_alloc_overhead();
    ASSERT_EQ(tlsf_cache_set_limit(h, 10 * span - 1), 10 * span - 1);
    {
        // One byte short of five charges: only four fit.
        std::vector<void *> four;
        for (int i = 0; i < 5; ++i)
            four.push_back(tlsf_malloc(h, SmallRequest()));
        for (void *p : four)
            tlsf_free(h, p);
        std::vector<WalkedBlock> walk = Walk(h.pools()[0]);
        ASSERT_EQ(walk.size(), 5u); // four cached, then the fifth merged with the rest
        EXPECT_EQ(walk[4].ptr, four[4]);
        tlsf_cache_flush(h);
    }
    ASSERT_EQ(tlsf_cache_set_limit(h, 10 * span), 10 * span);
    std::vector<void *> blocks;
    for (int i = 0; i < 20; ++i)
        blocks.push_back(tlsf_malloc(h, SmallRequest()));
    for (void *p : blocks)
        tlsf_free(h, p);
    // blocks 0..4 cached; 5..19 merged with each other and the pool's rest.
    std::vector<WalkedBlock> walk = Walk(h.pools()[0]);
    ASSERT_EQ(walk.size(), 6u);
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(walk[static_cast<std::size_t>(i)].ptr, blocks[static_cast<std::size_t>(i)]);
    EXPECT_EQ(walk[5].ptr, blocks[5]);
    EXPECT_EQ(h.Errors(), 0);
    // Lowering the budget below what is cached flushes the cache.
    EXPECT_EQ(tlsf_cache_set_limit(h, 0), 0u);
    EXPECT_EQ(Walk(h.pools()[0]).size(), 1u);
    // With a zero budget, nothing is cached.
    void *p = tlsf_malloc(h, SmallRequest());
    tlsf_free(h, p);
    EXPECT_EQ(Walk(h.pools()[0]).size(), 1u);
    EXPECT_EQ(h.Errors(), 0);
}

// A request the lists cannot serve drains the cache: freed memory can always be
// allocated again, as one block if it is contiguous.
TEST(Cache, AFailingRequestDrainsTheCacheAndSearchesAgain) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    Heap h(kPool);
    std::vector<void *> blocks;
    while (void *p = tlsf_malloc(h, SmallRequest()))
        blocks.push_back(p);
    ASSERT_GT(blocks.size(), 100u);
    const std::size_t failed = Stats(h).failed_count;
    for (void *p : blocks)
        tlsf_free(h, p);
    // All memory is free again, part of it cached: a request of nearly the pool's size
    // succeeds only after the drain.
    const std::size_t whole = PoolSpan(kPool) - tlsf_alloc_overhead() - kPool / 16;
    void *big = tlsf_malloc(h, whole);
    EXPECT_NE(big, nullptr);
    if (TLSF_STATS) {
        EXPECT_EQ(Stats(h).failed_count, failed);
    }
    tlsf_free(h, big);
    EXPECT_EQ(h.Errors(), 0);
}

// A cache that holds blocks of one size after the program moved on to another is drained
// (TLSF_CACHE_DRAIN_STALE): when it has refused as many frees in a row as its budget can
// hold blocks (budget / (2 * the smallest span)), without a push or a pop in between, a
// request of another class that finds no room in the budget drains it, so that class can
// be cached and the memory around the old blocks merges. One refused free fewer, or
// without TLSF_CACHE_DRAIN_STALE, the cache keeps its blocks.
TEST(Cache, AStaleCacheIsDrainedWhenAnotherClassFindsNoRoom) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    const std::size_t min_span = tlsf_block_size_min() + tlsf_alloc_overhead();
    const std::size_t small = SmallRequest(), large = SmallRequest() + 4 * Align();
    const std::size_t large_span = AlignUp(large + Word(), Align());
    const std::size_t limit = 4 * 2 * large_span; // four large blocks
    const std::size_t stale_frees = limit / (2 * min_span);
    for (std::size_t refused : {stale_frees - 1, stale_frees}) {
        Heap h(kPool);
        ASSERT_EQ(tlsf_cache_set_limit(h, limit), limit);
        std::vector<void *> blocks;
        for (std::size_t i = 0; i < 4 + refused; ++i)
            blocks.push_back(tlsf_malloc(h, large));
        for (void *p : blocks)
            tlsf_free(h, p);             // four cached, then `refused` frees merged with each other
        void *p = tlsf_malloc(h, small); // the budget has no room for its class either
        const bool drained = TLSF_CACHE_DRAIN_STALE && refused == stale_frees;
        EXPECT_EQ(p, drained ? blocks[0] : blocks[4]) << refused;
        // Drained: the small block, then all the rest merged; kept: the four cached blocks
        // (free to the walk), the small block, the rest.
        EXPECT_EQ(Walk(h.pools()[0]).size(), drained ? 2u : 6u) << refused;
        tlsf_free(h, p);
        EXPECT_EQ(h.Errors(), 0);
    }
}

// The other end of a phase (TLSF_CACHE_DRAIN_STALE): after a run of refused frees as long
// as the budget can hold blocks, the free of a block at least as large as the budget drains
// the cache, so that the blocks cached before merge with the memory around them (the next
// container of their class would otherwise get them first, scattered). One refused free
// fewer, a freed block smaller than the budget, or without TLSF_CACHE_DRAIN_STALE, the
// cache keeps its blocks.
TEST(Cache, AStaleCacheIsDrainedWhenABlockAsLargeAsTheBudgetIsFreed) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    const std::size_t min_span = tlsf_block_size_min() + tlsf_alloc_overhead();
    const std::size_t small = SmallRequest();
    const std::size_t small_span = AlignUp(small + Word(), Align());
    const std::size_t limit = 4 * 2 * small_span; // four small blocks
    const std::size_t stale_frees = limit / (2 * min_span);
    struct Case {
        std::size_t refused; // frees the cache refuses before the large one
        std::size_t large;   // the large block's request
        bool drained;
    };
    const Case cases[] = {
        {stale_frees - 1, limit, TLSF_CACHE_DRAIN_STALE != 0}, // the large free is the last
        {stale_frees - 2, limit, false},                       // one refusal short
        {stale_frees - 1, limit - 4 * small_span, false},      // a block below the budget
    };
    for (const Case &c : cases) {
        Heap h(kPool);
        ASSERT_EQ(tlsf_cache_set_limit(h, limit), limit);
        std::vector<void *> blocks;
        for (std::size_t i = 0; i < 4 + c.refused; ++i)
            blocks.push_back(tlsf_malloc(h, small));
        void *large = tlsf_malloc(h, c.large);
        ASSERT_NE(large, nullptr);
        ASSERT_EQ(tlsf_block_size(large) + Word() >= limit, c.large == limit);
        for (void *p : blocks)
            tlsf_free(h, p); // four cached, then `refused` frees merged with each other
        tlsf_free(h, large); // merges with them and with the pool's rest
        // Drained: the whole pool is one free block; kept: the four cached blocks and it.
        EXPECT_EQ(Walk(h.pools()[0]).size(), c.drained ? 1u : 5u) << c.refused << " " << c.large;
        EXPECT_EQ(tlsf_malloc(h, small), c.drained ? blocks[0] : blocks[3]); // a pop if kept
        EXPECT_EQ(h.Errors(), 0);
    }
}

TEST(Cache, LargestAllocatableIsExactWithCachedBlocks) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    Heap h(kPool);
    std::vector<void *> blocks;
    while (void *p = tlsf_malloc(h, 3 * SmallRequest()))
        blocks.push_back(p);
    for (std::size_t i = 0; i < blocks.size(); i += 2)
        tlsf_free(h, blocks[i]); // cached, or merged once the budget is spent
    const tlsf_stats_t s = Stats(h);
    EXPECT_GT(s.largest_allocatable, 0u); // a cached class serves without a drain
    EXPECT_LE(s.largest_allocatable, tlsf_largest_allocatable(h));
    EXPECT_TRUE(LargestIsExact(h));
    EXPECT_EQ(h.Errors(), 0);
}

TEST(Cache, RemovingAPoolGivesCachedBlocksBackFirst) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    Heap h(kPool);
    pool_t second = h.AddPool(kPool);
    ASSERT_NE(second, nullptr);
    std::vector<void *> blocks;
    while (void *p = tlsf_malloc(h, SmallRequest()))
        blocks.push_back(p);
    for (void *p : blocks)
        tlsf_free(h, p);
    h.log().Clear();
    h.RemovePool(second);
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(Stats(h).pool_count, 1u);
    EXPECT_EQ(h.Errors(), 0);
}

// Blocks from memalign keep their alignment record and are never cached: freeing one
// merges it at once.
TEST(Cache, AlignedBlocksAreNotCached) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    Heap h(kPool);
    void *guard = tlsf_malloc(h, 100);
    void *q = tlsf_memalign(h, 256, SmallRequest());
    void *after = tlsf_malloc(h, 100);
    ASSERT_TRUE(guard && q && after);
    tlsf_free(h, after); // merges with the pool's rest (not an exact class)
    const std::size_t before = Walk(h.pools()[0]).size();
    tlsf_free(h, q);
    EXPECT_LT(Walk(h.pools()[0]).size(), before); // q merged with its free neighbours
    EXPECT_EQ(h.Errors(), 0);
    tlsf_free(h, guard);
}

// A cached block is charged twice its span: a budget one byte short of that does not take
// a block of a larger exact class, a budget of exactly that does. (Told apart by the
// block's neighbour, which is never cached: freed after it, it merges with a block in
// the lists and not with a cached one.)
TEST(Cache, EachBlockIsChargedTwiceItsSpan) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    for (const std::size_t extra : {std::size_t{1}, std::size_t{0}}) {
        Heap h(kPool);
        void *guard = tlsf_malloc(h, 2048);
        void *p = tlsf_malloc(h, 4 * SmallRequest()); // an exact class above the smallest
        void *after = tlsf_malloc(h, 2048);           // too large to be cached
        ASSERT_TRUE(guard && p && after);
        const std::size_t span = tlsf_block_size(p) + Word();
        ASSERT_EQ(tlsf_cache_set_limit(h, 2 * span - extra), 2 * span - extra);
        tlsf_free(h, p);
        tlsf_free(h, after);
        // Cached: guard, p, and after merged with the rest; in the lists: guard, and p,
        // after and the rest merged.
        EXPECT_EQ(Walk(h.pools()[0]).size(), extra ? 2u : 3u) << "budget 2 * span - " << extra;
        EXPECT_EQ(h.Errors(), 0);
        tlsf_free(h, guard);
    }
}

// Where the size word carries no seal, a block whose predecessor is free goes to the lists
// and merges with it (its word carries a flag, and a cacheable word is its span alone);
// where the seal shares the word, it is cached.
TEST(Cache, ABlockAfterAFreeBlockIsCachedOnlyWithTheSealInTheWord) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    Heap h(kPool);
    void *before = tlsf_malloc(h, 2048); // too large to be cached
    void *p = tlsf_malloc(h, SmallRequest());
    void *after = tlsf_malloc(h, 2048);
    ASSERT_TRUE(before && p && after);
    tlsf_free(h, before); // a free block in the lists, before p
    tlsf_free(h, p);
    // before and p merged, after, the rest; or before, p (cached), after, the rest.
    EXPECT_EQ(Walk(h.pools()[0]).size(), TLSF_SEAL_IN_WORD ? 4u : 3u);
    EXPECT_EQ(h.Errors(), 0);
    tlsf_free(h, after);
}

// A request of an exact class that misses the cache takes a block of exactly that class
// from the lists (the list path for such misses reuses the class the cache computed): the
// span is the request plus the overhead rounded up to the alignment, at least the
// smallest block's. With a zero budget every request misses. (Above the exact classes a
// request is rounded up to its class, as without the cache.)
TEST(Cache, AMissOfAnExactClassGetsABlockOfThatClass) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    Heap h(kPool);
    ASSERT_EQ(tlsf_cache_set_limit(h, 0), 0u);
    const std::size_t min_span = tlsf_block_size_min() + Word();
    const std::size_t exact_limit = std::size_t{2} << (TLSF_SL_INDEX_LOG2 + TLSF_ALIGN_LOG2);
    for (std::size_t bytes = 0; AlignUp(bytes + Word(), Align()) < exact_limit; ++bytes) {
        void *p = tlsf_malloc(h, bytes);
        ASSERT_NE(p, nullptr) << bytes;
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % Align(), 0u) << bytes;
        const std::size_t span = std::max(AlignUp(bytes + Word(), Align()), min_span);
        EXPECT_EQ(tlsf_block_size(p), span - Word()) << bytes;
        tlsf_free(h, p);
    }
    EXPECT_EQ(h.Errors(), 0);
    EXPECT_EQ(Walk(h.pools()[0]).size(), 1u); // every block merged back
}

// A walk reports cached blocks free (without the checks, by marking them for its
// duration) and leaves them as they were: the heap checks clean and the stacks hand the
// blocks out again in LIFO order.
TEST(Cache, AWalkLeavesCachedBlocksAsTheyWere) {
    if (!TLSF_CACHE) GTEST_SKIP() << "TLSF_CACHE == 0";
    Heap h(kPool);
    void *a = tlsf_malloc(h, SmallRequest());
    void *b = tlsf_malloc(h, SmallRequest());
    void *c = tlsf_malloc(h, SmallRequest());
    ASSERT_TRUE(a && b && c);
    tlsf_free(h, a);
    tlsf_free(h, b);
    for (int i = 0; i < 2; ++i) {
        std::vector<WalkedBlock> walk = Walk(h.pools()[0]);
        ASSERT_EQ(walk.size(), 4u);
        EXPECT_FALSE(walk[0].used);
        EXPECT_FALSE(walk[1].used);
        EXPECT_TRUE(walk[2].used);
        EXPECT_EQ(h.Errors(), 0);
    }
    EXPECT_EQ(tlsf_malloc(h, SmallRequest()), b);
    EXPECT_EQ(tlsf_malloc(h, SmallRequest()), a);
    EXPECT_EQ(h.Errors(), 0);
    tlsf_free(h, a);
    tlsf_free(h, b);
    tlsf_free(h, c);
}
