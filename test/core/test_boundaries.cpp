// SPDX-License-Identifier: MIT
// Boundaries: pool sizes around the minimum and the maximum, requests at every first- and
// second-level size-class boundary, the largest block. Every constant comes from the API or
// tlsf_config.h, so the same tests hold for 32-bit, 64-bit and small configurations.
#include "tlsf_test_support.h"

using namespace tlsf_test;

namespace {

constexpr std::size_t kPage = 4096;

// Memory for a pool at tlsf_block_size_max(): a lazily committed reservation, which only
// has the pages the heap touches (block headers) backed by memory.
struct MaxPoolMemory {
    HugeRegion region{tlsf_block_size_max() + 16 * kPage};
    // The largest accepted pool: its usable part is the largest aligned span below the max.
    std::size_t bytes = tlsf_block_size_max() - 1 + tlsf_pool_overhead();
    bool valid() const { return region.valid(); }
};

// A fallback when the reservation is refused: as large as is reasonable to allocate.
std::size_t FallbackPoolBytes() {
    return std::min<std::size_t>(std::size_t(1) << 24, tlsf_block_size_max() / 2);
}

} // namespace

// ---- Pool sizes ------------------------------------------------------------------------------

TEST(PoolBounds, SizesAroundTheMinimum) {
    SizeClasses c;
    const std::size_t min = MinPoolBytes();
    for (std::size_t bytes = 0; bytes <= min + 3 * Align(); ++bytes) {
        SCOPED_TRACE("bytes " + std::to_string(bytes) + " (minimum " + std::to_string(min) + ")");
        Heap h;
        Region r(bytes, 64, 64);
        r.Poison();
        pool_t pool = tlsf_add_pool(h, r.data(), bytes);
        EXPECT_TRUE(r.GuardsIntact()) << "add_pool wrote outside [mem, mem + bytes)";
        if (bytes < min) {
            EXPECT_EQ(pool, nullptr);
            ASSERT_EQ(h.log().events.size(), 1u);
            EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_BAD_POOL);
            EXPECT_EQ(h.log().events[0].ptr, r.data());
            EXPECT_TRUE(r.PayloadIs(Region::kGuard)) << "a refused pool was written to";
            EXPECT_EQ(Stats(h).pool_count, 0u);
            EXPECT_EQ(tlsf_check(h), 0);
            continue;
        }
        ASSERT_NE(pool, nullptr);
        EXPECT_TRUE(h.log().events.empty());
        tlsf_stats_t s = Stats(h);
        EXPECT_EQ(s.pool_count, 1u);
        EXPECT_EQ(s.pool_bytes, PoolSpan(bytes));
        EXPECT_EQ(tlsf_largest_allocatable(h), c.LargestFor(PoolSpan(bytes)));
        EXPECT_GE(tlsf_largest_allocatable(h), MinUsable());
        EXPECT_EQ(tlsf_check(h), 0);
        EXPECT_EQ(tlsf_check_pool(pool), 0);
        EXPECT_TRUE(LargestIsExact(h));
        // The smallest block fits, and so does malloc(0); the block lies inside the pool.
        void *p = tlsf_malloc(h, MinUsable());
        ASSERT_NE(p, nullptr);
        EXPECT_TRUE(r.Contains(p, tlsf_block_size(p)));
        Fill(p, tlsf_block_size(p), bytes);
        EXPECT_EQ(tlsf_check_pool(pool), 0);
        EXPECT_TRUE(r.GuardsIntact());
        tlsf_free(h, p);
        p = tlsf_malloc(h, 0);
        ASSERT_NE(p, nullptr);
        tlsf_free(h, p);
        tlsf_remove_pool(h, pool);
        EXPECT_TRUE(h.log().events.empty());
        EXPECT_EQ(Stats(h).pool_count, 0u);
    }
}

// tlsf.h, tlsf_add_pool: "`bytes` must be at least tlsf_pool_overhead() +
// tlsf_alloc_overhead() + tlsf_block_size_min()": the smallest size it accepts is exactly that.
TEST(PoolBounds, SmallestAcceptedPoolIsTheDocumentedMinimum) {
    Region r(MinPoolBytes() + 4 * Align(), 64, 64);
    std::size_t smallest = 0;
    for (std::size_t bytes = 0; bytes <= r.size() && smallest == 0; ++bytes) {
        Heap h;
        if (tlsf_add_pool(h, r.data(), bytes)) smallest = bytes;
    }
    EXPECT_EQ(smallest, MinPoolBytes())
        << "tlsf_add_pool accepts " << smallest
        << " bytes and up; tlsf.h documents tlsf_pool_overhead() + "
        << "tlsf_alloc_overhead() + tlsf_block_size_min() = " << MinPoolBytes();
    EXPECT_TRUE(r.GuardsIntact());
}

TEST(PoolBounds, TooLargeIsRejectedBeforeWriting) {
    const std::size_t b = tlsf_block_size_max(), o = tlsf_pool_overhead(), a = Align();
    Heap h(std::min<std::size_t>(1 << 16, b / 4));
    void *live = tlsf_malloc(h, 100);
    ASSERT_NE(live, nullptr);
    Fill(live, tlsf_block_size(live), 3);
    // The memory is small; the sizes claim far more. Nothing may be written before refusing.
    Region r(kPage, 64, kPage);
    r.Poison();
    Snapshot before = Take(h);
    for (std::size_t bytes :
         {b + o, b + o + 1, b + o + a - 1, b + o + a, 2 * b, 2 * b + o, SIZE_MAX / 2,
          SIZE_MAX / 2 + 1, SIZE_MAX - o, SIZE_MAX - a, SIZE_MAX - 1, SIZE_MAX}) {
        h.log().Clear();
        EXPECT_EQ(tlsf_add_pool(h, r.data(), bytes), nullptr) << bytes;
        ASSERT_EQ(h.log().events.size(), 1u) << bytes;
        EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_BAD_POOL);
        EXPECT_EQ(h.log().events[0].ptr, r.data());
        EXPECT_TRUE(r.PayloadIs(Region::kGuard))
            << "a refused pool was written to (bytes " << bytes << ")";
        EXPECT_TRUE(r.GuardsIntact());
    }
    EXPECT_TRUE(SameHeap(before, Take(h)));
    EXPECT_TRUE(Holds(live, tlsf_block_size(live), 3));
    EXPECT_EQ(h.Errors(), 0);
}

TEST(PoolBounds, LargestPoolWithRealMemory) {
    SizeClasses c;
    MaxPoolMemory m;
    if (!m.valid()) GTEST_SKIP() << "cannot reserve " << m.region.size() << " bytes";
    const std::size_t b = tlsf_block_size_max();
    Heap h;
    pool_t pool = tlsf_add_pool(h, m.region.data(), m.bytes);
    ASSERT_NE(pool, nullptr);
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(Stats(h).pool_bytes, b - Align());
    EXPECT_EQ(tlsf_largest_allocatable(h), c.MaxRequest());
    EXPECT_TRUE(LargestIsExact(h));
    EXPECT_EQ(tlsf_check(h), 0);
    EXPECT_EQ(tlsf_check_pool(pool), 0);

    // The largest request, and nothing above it.
    void *p = tlsf_malloc(h, c.MaxRequest());
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(tlsf_block_size(p), c.MaxRequest());
    EXPECT_EQ(tlsf_check_pool(pool), 0);
    tlsf_free(h, p);
    for (std::size_t n : {c.MaxRequest() + 1, b - Align(), b - Word(), b - 1, b, b + 1, SIZE_MAX}) {
        EXPECT_EQ(tlsf_malloc(h, n), nullptr) << n;
        EXPECT_EQ(tlsf_calloc(h, 1, n), nullptr) << n;
        EXPECT_EQ(tlsf_memalign(h, 2 * Align(), n), nullptr) << n;
    }
    // Alignments up to half the pool work in a pool this large; the max does not.
    for (std::size_t align = 2 * Align(); align <= b / 2; align <<= 1) {
        void *q = tlsf_memalign(h, align, 64);
        ASSERT_NE(q, nullptr) << align;
        EXPECT_TRUE(IsAligned(q, align)) << align;
        Fill(q, 64, align);
        EXPECT_TRUE(Holds(q, 64, align));
        tlsf_free(h, q);
        ASSERT_EQ(tlsf_largest_allocatable(h), c.MaxRequest());
    }
    EXPECT_EQ(tlsf_memalign(h, b, 64), nullptr);
    // Growing in place up to the largest request.
    void *r = tlsf_malloc(h, 100);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(tlsf_realloc(h, r, c.MaxRequest()), r);
    EXPECT_EQ(tlsf_block_size(r), c.MaxRequest());
    EXPECT_EQ(tlsf_realloc(h, r, c.MaxRequest() + 1), nullptr);
    EXPECT_EQ(tlsf_realloc(h, r, 100), r);
    tlsf_free(h, r);
    EXPECT_EQ(h.Errors(), 0);

    // One alignment unit more is refused (with real memory behind it, to be safe).
    h.RemovePool(pool);
    EXPECT_EQ(Stats(h).pool_count, 0u);
    for (std::size_t bytes : {m.bytes + 1, b + tlsf_pool_overhead() + Align()}) {
        h.log().Clear();
        EXPECT_EQ(tlsf_add_pool(h, m.region.data(), bytes), nullptr) << bytes;
        ASSERT_EQ(h.log().events.size(), 1u);
        EXPECT_EQ(h.log().events[0].reason, TLSF_ERROR_BAD_POOL);
    }
    EXPECT_EQ(Stats(h).pool_count, 0u);
}

// ---- Size classes ----------------------------------------------------------------------------

// For every class lower bound L (a span), requests of L - W - 1, L - W and L - W + 1 bytes
// (W: the header word) get exactly the class's usable size, in a pool as large as allowed.
TEST(SizeClasses, RequestsAtEveryClassBoundary) {
    SizeClasses c;
    MaxPoolMemory m;
    std::unique_ptr<Region> fallback;
    unsigned char *mem = m.region.data();
    std::size_t bytes = m.bytes;
    if (!m.valid()) {
        fallback = std::make_unique<Region>(FallbackPoolBytes(), 64);
        mem = fallback->data();
        bytes = fallback->size();
    }
    Heap h;
    pool_t pool = tlsf_add_pool(h, mem, bytes);
    ASSERT_NE(pool, nullptr);
    const std::size_t span = PoolSpan(bytes);
    const std::size_t fresh = tlsf_largest_allocatable(h);
    std::size_t tested = 0;
    for (std::size_t lower : c.LowerBounds()) {
        const std::size_t exact = lower - Word();
        for (std::size_t n : {exact - 1, exact, exact + 1}) {
            SCOPED_TRACE("class " + std::to_string(lower) + " request " + std::to_string(n));
            void *p = tlsf_malloc(h, n);
            if (n > fresh) {
                ASSERT_EQ(p, nullptr);
                continue;
            }
            ASSERT_NE(p, nullptr);
            ++tested;
            ASSERT_TRUE(IsAligned(p, Align()));
            const std::size_t expect =
                span - c.MallocSpan(n) >= c.min_span ? c.MallocUsable(n) : span - Word();
            ASSERT_EQ(tlsf_block_size(p), expect);
            ASSERT_GE(tlsf_block_size(p), n);
            if (n == exact) {
                ASSERT_EQ(tlsf_block_size(p), exact) << "a lower bound was rounded up";
            }
            // Grow in place across the boundary (up to the largest request) and shrink back.
            if (n + 1 > fresh) {
                ASSERT_EQ(tlsf_realloc(h, p, n + 1), nullptr);
                tlsf_free(h, p);
                continue;
            }
            void *q = tlsf_realloc(h, p, n + 1);
            ASSERT_EQ(q, p);
            ASSERT_GE(tlsf_block_size(q), n + 1);
            if (span - c.MallocSpan(n + 1) >= c.min_span) {
                ASSERT_EQ(tlsf_block_size(q), c.MallocUsable(n + 1));
            }
            q = tlsf_realloc(h, q, n ? n : 1);
            ASSERT_EQ(q, p);
            ASSERT_GE(tlsf_block_size(q), n);
            ASSERT_LT(tlsf_block_size(q), c.MallocUsable(n ? n : 1) + c.min_span);
            ASSERT_EQ(tlsf_check_pool(pool), 0);
            tlsf_free(h, q);
            // calloc and memalign at the same boundary (zeroing only the smaller ones).
            if (n <= (std::size_t(1) << 16)) {
                unsigned char *z = static_cast<unsigned char *>(tlsf_calloc(h, 1, n));
                ASSERT_NE(z, nullptr);
                ASSERT_EQ(tlsf_block_size(z), expect);
                ASSERT_TRUE(AllBytes(z, n, 0));
                tlsf_free(h, z);
            }
            if (n < fresh / 2) {
                void *a = tlsf_memalign(h, 4 * Align(), n);
                ASSERT_NE(a, nullptr);
                ASSERT_TRUE(IsAligned(a, 4 * Align()));
                ASSERT_GE(tlsf_block_size(a), n);
                tlsf_free(h, a);
            }
            ASSERT_EQ(tlsf_largest_allocatable(h), fresh);
        }
        ASSERT_EQ(tlsf_check(h), 0);
    }
    EXPECT_GT(tested, 3u * (std::size_t(1) << TLSF_SL_INDEX_LOG2));
    EXPECT_EQ(h.Errors(), 0);
}

// A free block whose span is just below, at or just above a class lower bound is listed in the
// right class: largest_allocatable reports exactly what it can serve.
TEST(SizeClasses, FreeBlocksAtEveryClassBoundary) {
    SizeClasses c;
    MaxPoolMemory m;
    std::unique_ptr<Region> fallback;
    unsigned char *mem = m.region.data();
    std::size_t room = m.region.size();
    if (!m.valid()) {
        fallback = std::make_unique<Region>(FallbackPoolBytes(), 64);
        mem = fallback->data();
        room = fallback->size();
    }
    Region control(tlsf_size(), 64);
    for (std::size_t lower : c.LowerBounds()) {
        for (std::size_t span : {lower - Align(), lower, lower + Align()}) {
            const std::size_t bytes = span + tlsf_pool_overhead();
            if (span < c.min_span || span >= c.max_block || bytes > room) continue;
            SCOPED_TRACE("span " + std::to_string(span));
            tlsf_t h = tlsf_create(control.data());
            pool_t pool = tlsf_add_pool(h, mem, bytes);
            ASSERT_NE(pool, nullptr);
            ASSERT_EQ(Stats(h).pool_bytes, span);
            ASSERT_EQ(tlsf_largest_allocatable(h), c.LargestFor(span));
            ASSERT_TRUE(LargestIsExact(h));
            ASSERT_EQ(tlsf_check(h), 0);
            ASSERT_EQ(tlsf_check_pool(pool), 0);
        }
    }
}

// Every class below the top one is used by some block: allocate one block per class (from the
// smallest upward) and check all of them stay consistent, then free in reverse.
TEST(SizeClasses, OneBlockInEveryClass) {
    SizeClasses c;
    const std::size_t bytes =
        std::min<std::size_t>(std::size_t(1) << 23, tlsf_block_size_max() / 2);
    Heap h(bytes);
    std::vector<std::pair<void *, std::size_t>> blocks; // block, request (the pattern seed)
    for (std::size_t lower : c.LowerBounds()) {
        const std::size_t n = lower - Word();
        std::size_t largest = tlsf_largest_allocatable(h);
        void *p = tlsf_malloc(h, n);
        ASSERT_EQ(p != nullptr, Fits(n, largest)) << n;
        if (!p) break;
        EXPECT_GE(tlsf_block_size(p), n);
        Fill(p, tlsf_block_size(p), n);
        blocks.emplace_back(p, n);
    }
    EXPECT_GT(blocks.size(), 2u * (std::size_t(1) << TLSF_SL_INDEX_LOG2));
    EXPECT_EQ(h.Errors(), 0);
    // Free every other block: free blocks of many classes at once.
    for (std::size_t i = 0; i < blocks.size(); i += 2)
        tlsf_free(h, blocks[i].first);
    EXPECT_EQ(h.Errors(), 0);
    EXPECT_TRUE(LargestIsExact(h));
    for (std::size_t i = 1; i < blocks.size(); i += 2) {
        void *p = blocks[i].first;
        EXPECT_TRUE(Holds(p, tlsf_block_size(p), blocks[i].second)) << blocks[i].second;
        tlsf_free(h, p);
    }
    EXPECT_EQ(h.Errors(), 0);
    EXPECT_EQ(tlsf_largest_allocatable(h), c.LargestFor(PoolSpan(bytes)));
}
