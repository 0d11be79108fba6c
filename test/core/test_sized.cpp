// SPDX-License-Identifier: MIT
// Sized heaps (tlsf.h, "Sized heaps"): tlsf_size_for, tlsf_create_sized, tlsf_create_compact
// and TLSF_CONTROL_BYTES_FOR. A sized heap holds the list heads of the rows of size classes
// its pools can use and no more; everything else behaves as on a heap of tlsf_create, which
// these tests check on compact heaps of several sizes, and the limit itself: tlsf_add_pool
// refuses a pool whose block would fall in a row the heap lacks, a request no block can
// serve fails as on a full heap.
#include "tlsf_test_support.h"

#include <vector>

using namespace tlsf_test;

namespace {

constexpr bool kStats = TLSF_STATS != 0;

// The spans of a row of size classes end at a power of two: row 0 below
// 2^(TLSF_SL_INDEX_LOG2 + TLSF_ALIGN_LOG2), each later row at the next power of two.
std::size_t RowsStart() {
    return std::size_t(1) << (TLSF_SL_INDEX_LOG2 + TLSF_ALIGN_LOG2);
}

// The largest span the first block of a pool may have on a heap sized for `pool_bytes`: the
// last span of the row that pool's block falls in (the heap holds every class of it).
std::size_t LargestSpanFor(std::size_t pool_bytes) {
    std::size_t span = pool_bytes < MinPoolBytes() ? MinSpan() : PoolSpan(pool_bytes);
    if (span >= tlsf_block_size_max()) return tlsf_block_size_max() - Align();
    std::size_t end = RowsStart();
    while (end <= span)
        end <<= 1;
    return end - Align();
}

// The largest `bytes` tlsf_add_pool accepts on a heap sized for `pool_bytes`.
std::size_t LargestPoolFor(std::size_t pool_bytes) {
    return LargestSpanFor(pool_bytes) + tlsf_pool_overhead() + Align() - 1;
}

// Pool sizes every configuration holds (the small ones stop at 2^17 or 2^20).
std::size_t Capped(std::size_t bytes) {
    return std::min(bytes, tlsf_block_size_max() / 2);
}

// A compact heap in memory of its own, with an error log.
class Compact {
  public:
    explicit Compact(std::size_t bytes) : memory_(bytes) {
        heap_ = tlsf_create_compact(memory_.data(), bytes);
        if (heap_ != nullptr) tlsf_set_error_handler(heap_, &ErrorLog::Handler, &log_);
    }
    tlsf_t get() const { return heap_; }
    operator tlsf_t() const { return heap_; }
    unsigned char *memory() const { return memory_.data(); }
    ErrorLog &log() { return log_; }
    int Errors() const { return tlsf_check(heap_) + tlsf_check_pool(tlsf_get_pool(heap_)); }

  private:
    Region memory_;
    tlsf_t heap_ = nullptr;
    ErrorLog log_;
};

// The sizes of compact heaps the tests run on: the smallest allowed, 4 KiB, 64 KiB, 1 MiB
// (where the configuration's blocks reach that far).
std::vector<std::size_t> CompactSizes() {
    return {std::size_t(TLSF_COMPACT_MIN_BYTES), 4096, Capped(65536), Capped(1 << 20)};
}

// ---- Sizes --------------------------------------------------------------------------------

TEST(SizedHeap, SizeForIsAnAlignedPartOfTheFullControlStructure) {
    std::size_t previous = 0;
    for (std::size_t bytes = 0; bytes < (std::size_t(1) << 16); bytes += 7) {
        std::size_t size = tlsf_size_for(bytes);
        ASSERT_EQ(size % Align(), 0u) << bytes;
        ASSERT_LE(size, tlsf_size()) << bytes;
        ASSERT_GE(size, previous) << bytes << ": never less for a larger pool";
        previous = size;
    }
    EXPECT_LT(tlsf_size_for(4096), tlsf_size());
    EXPECT_EQ(tlsf_size_for(SIZE_MAX), tlsf_size());
    EXPECT_EQ(tlsf_size_for(tlsf_block_size_max() + tlsf_pool_overhead()), tlsf_size());
    // Zero and pools too small for a block are taken as the smallest pool.
    EXPECT_EQ(tlsf_size_for(0), tlsf_size_for(MinPoolBytes()));
    EXPECT_EQ(tlsf_size_for(1), tlsf_size_for(MinPoolBytes()));
}

TEST(SizedHeap, EachRowOfClassesAddsItsHeads) {
    // Pools whose blocks fall in the same row need the same control structure; the next row
    // adds the heads of its 2^TLSF_SL_INDEX_LOG2 classes, two words each.
    const std::size_t row = (std::size_t(2) << TLSF_SL_INDEX_LOG2) * sizeof(void *);
    for (std::size_t end = RowsStart(); end < tlsf_block_size_max(); end <<= 1) {
        const std::size_t first = end / 2 + tlsf_pool_overhead();      // a span in the row
        const std::size_t last = end - Align() + tlsf_pool_overhead(); // its last span
        const std::size_t next = end + tlsf_pool_overhead();           // the next row's first
        EXPECT_EQ(tlsf_size_for(first), tlsf_size_for(last)) << "row ending at " << end;
        EXPECT_EQ(tlsf_size_for(next), tlsf_size_for(last) + row) << "row ending at " << end;
    }
}

TEST(SizedHeap, TheMacroEqualsTheFunction) {
    // Constants, as a static buffer would use the macro.
    static_assert(TLSF_CONTROL_BYTES_FOR(0) == TLSF_CONTROL_BYTES_FOR(1), "");
    static_assert(TLSF_CONTROL_BYTES_FOR(4096) <= TLSF_CONTROL_BYTES, "");
    static_assert(TLSF_CONTROL_BYTES_FOR(~std::size_t(0)) == TLSF_CONTROL_BYTES, "");
    EXPECT_EQ(std::size_t(TLSF_CONTROL_BYTES_FOR(0)), tlsf_size_for(0));
    EXPECT_EQ(std::size_t(TLSF_CONTROL_BYTES_FOR(4096)), tlsf_size_for(4096));
    EXPECT_EQ(std::size_t(TLSF_CONTROL_BYTES_FOR(65536)), tlsf_size_for(65536));
    EXPECT_EQ(std::size_t(TLSF_CONTROL_BYTES_FOR(1048576)), tlsf_size_for(1048576));
    EXPECT_EQ(std::size_t(TLSF_CONTROL_BYTES_FOR(~std::size_t(0))), tlsf_size_for(SIZE_MAX));
    // Every size near the rows' ends, and a sweep of small ones.
    std::vector<std::size_t> sizes;
    for (std::size_t b = 0; b < 2048; ++b)
        sizes.push_back(b);
    for (unsigned k = 3; k < sizeof(std::size_t) * 8; ++k)
        for (std::size_t d = 0; d < 3 * Align(); d += 1)
            for (std::size_t base : {std::size_t(1) << k, (std::size_t(1) << k) - d})
                sizes.push_back(base + d);
    sizes.push_back(SIZE_MAX);
    for (std::size_t b : sizes)
        ASSERT_EQ(std::size_t(TLSF_CONTROL_BYTES_FOR(b)), tlsf_size_for(b)) << b;
}

TEST(SizedHeap, CompactPoolIsTheLargestThatFitsWithItsControlStructure) {
    for (std::size_t bytes = TLSF_COMPACT_MIN_BYTES; bytes < Capped(std::size_t(1) << 21);
         bytes += bytes / 64 + 3) {
        const std::size_t pool = tlsf_compact_pool_bytes(bytes);
        ASSERT_GE(pool, MinPoolBytes()) << bytes;
        ASSERT_EQ(pool % Align(), 0u) << bytes;
        ASSERT_LE(pool + tlsf_size_for(pool), bytes) << bytes << ": it fits";
        // One alignment unit more does not.
        ASSERT_GT(pool + Align() + tlsf_size_for(pool + Align()), bytes) << bytes;
    }
    // The smallest pool: one smallest block, rounded up to the alignment as every compact
    // pool (the pool overhead is no multiple of it where the sentinel records its heap).
    const std::size_t min_pool = (MinPoolBytes() + Align() - 1) / Align() * Align();
    EXPECT_EQ(tlsf_compact_pool_bytes(TLSF_COMPACT_MIN_BYTES), min_pool);
    EXPECT_EQ(tlsf_compact_pool_bytes(TLSF_COMPACT_MIN_BYTES - 1), 0u);
    EXPECT_EQ(tlsf_compact_pool_bytes(0), 0u);
    EXPECT_EQ(std::size_t(TLSF_COMPACT_MIN_BYTES), tlsf_size_for(0) + min_pool);
    // Beyond the largest block: the full control structure and the largest pool.
    const std::size_t huge = tlsf_compact_pool_bytes(SIZE_MAX);
    EXPECT_EQ(tlsf_size_for(huge), tlsf_size());
    EXPECT_EQ(PoolSpan(huge), tlsf_block_size_max() - Align());
}

// ---- Creation -----------------------------------------------------------------------------

TEST(SizedHeap, CreateSizedRefusesNullAndMisalignedMemory) {
    Region memory(tlsf_size_for(4096) + Align());
    EXPECT_EQ(tlsf_create_sized(nullptr, 4096), nullptr);
    EXPECT_EQ(tlsf_create_sized(memory.data() + 1, 4096), nullptr);
    EXPECT_EQ(tlsf_create_sized(memory.data() + Align() / 2, 4096), nullptr);
    tlsf_t heap = tlsf_create_sized(memory.data(), 4096);
    ASSERT_NE(heap, nullptr);
    EXPECT_EQ(tlsf_check(heap), 0);
    EXPECT_EQ(tlsf_malloc(heap, 0), nullptr) << "no pool yet";
}

TEST(SizedHeap, CreateSizedForAHugePoolIsAFullHeap) {
    Region memory(tlsf_size());
    tlsf_t heap = tlsf_create_sized(memory.data(), SIZE_MAX);
    ASSERT_NE(heap, nullptr);
    Region pool(Capped(std::size_t(1) << 20));
    ASSERT_NE(tlsf_add_pool(heap, pool.data(), pool.size()), nullptr);
    EXPECT_EQ(tlsf_check(heap), 0);
}

TEST(SizedHeap, CompactRefusesNullMisalignedAndTooLittleMemory) {
    Region memory(TLSF_COMPACT_MIN_BYTES + Align());
    EXPECT_EQ(tlsf_create_compact(nullptr, 65536), nullptr);
    EXPECT_EQ(tlsf_create_compact(memory.data() + 1, TLSF_COMPACT_MIN_BYTES), nullptr);
    EXPECT_EQ(tlsf_create_compact(memory.data(), 0), nullptr);
    EXPECT_EQ(tlsf_create_compact(memory.data(), TLSF_COMPACT_MIN_BYTES - 1), nullptr);
    tlsf_t heap = tlsf_create_compact(memory.data(), TLSF_COMPACT_MIN_BYTES);
    ASSERT_NE(heap, nullptr);
    void *p = tlsf_malloc(heap, 0);
    ASSERT_NE(p, nullptr) << "the smallest compact heap serves one smallest block";
    EXPECT_EQ(tlsf_malloc(heap, 0), nullptr);
    tlsf_free(heap, p);
    EXPECT_EQ(tlsf_check(heap), 0);
}

TEST(SizedHeap, CompactPlacesItsPoolRightAfterItsControlStructure) {
    for (std::size_t bytes : CompactSizes()) {
        Compact h(bytes);
        ASSERT_NE(h.get(), nullptr) << bytes;
        // The pool right after its control structure.
        const std::size_t pool = tlsf_compact_pool_bytes(bytes);
        const std::size_t control = tlsf_size_for(pool);
        EXPECT_EQ(Addr(tlsf_get_pool(h)), Addr(h.memory()) + control) << bytes;
        EXPECT_EQ(Stats(h).pool_bytes, PoolSpan(pool)) << bytes;
        EXPECT_LE(control + pool, bytes);
        EXPECT_EQ(Stats(h).pool_count, 1u);
        EXPECT_LE(control, tlsf_size_for(bytes));
        EXPECT_LE(tlsf_size_for(Stats(h).pool_bytes + tlsf_pool_overhead()), control);
        EXPECT_EQ(h.Errors(), 0);
    }
}

TEST(SizedHeap, CompactHeapsLoseLittleToTheirControlStructure) {
    // The point of it: a 64 KiB buffer keeps most of its bytes for blocks, where a full
    // control structure takes a quarter of them on 64-bit targets.
    Compact h(65536);
    ASSERT_NE(h.get(), nullptr);
    EXPECT_GT(Stats(h).pool_bytes, 65536 - tlsf_size_for(65536) - 64);
    if (tlsf_block_size_max() >= 65536) {
        EXPECT_LT(tlsf_size_for(65536), tlsf_size());
    }
}

// ---- The limit ----------------------------------------------------------------------------

TEST(SizedHeap, AddPoolRefusesAPoolBeyondTheHeapsRows) {
    const std::size_t sized_for = Capped(4096);
    Region control(tlsf_size_for(sized_for));
    tlsf_t heap = tlsf_create_sized(control.data(), sized_for);
    ASSERT_NE(heap, nullptr);
    ErrorLog log;
    tlsf_set_error_handler(heap, &ErrorLog::Handler, &log);
    const std::size_t largest = LargestPoolFor(sized_for);
    Region big(largest + 2 * Align());
    // One alignment unit more than the largest span: its block would be the next row's.
    const std::size_t too_big = largest + 1;
    EXPECT_EQ(tlsf_add_pool(heap, big.data(), too_big), nullptr);
    ASSERT_EQ(log.events.size(), 1u);
    EXPECT_EQ(log.events[0].reason, TLSF_ERROR_BAD_POOL);
    EXPECT_EQ(log.events[0].ptr, big.data());
    EXPECT_EQ(Stats(heap).pool_count, 0u) << "the heap is unchanged";
    EXPECT_EQ(tlsf_check(heap), 0);
    // The largest is accepted, and pools of the size it was made for.
    pool_t pool = tlsf_add_pool(heap, big.data(), largest);
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(Stats(heap).pool_bytes, LargestSpanFor(sized_for));
    Region second(sized_for);
    ASSERT_NE(tlsf_add_pool(heap, second.data(), sized_for), nullptr);
    EXPECT_EQ(log.events.size(), 1u);
    EXPECT_EQ(tlsf_check(heap) + tlsf_check_pool(pool), 0);
    // Both pools serve blocks; no block spans two pools (each stays within its own).
    std::vector<void *> blocks = Exhaust(heap);
    EXPECT_FALSE(blocks.empty());
    for (void *p : blocks)
        tlsf_free(heap, p);
    EXPECT_EQ(tlsf_check(heap), 0);
    EXPECT_EQ(Stats(heap).free_bytes, kStats ? Stats(heap).pool_bytes : 0);
}

TEST(SizedHeap, RequestsBeyondTheLargestBlockFailAsOnAFullHeap) {
    for (std::size_t bytes : CompactSizes()) {
        Compact h(bytes);
        ASSERT_NE(h.get(), nullptr);
        const std::size_t largest = tlsf_largest_allocatable(h);
        ASSERT_GT(largest, 0u);
        EXPECT_TRUE(LargestIsExact(h)) << bytes;
        const std::size_t failed = Stats(h).failed_count;
        EXPECT_EQ(tlsf_malloc(h, largest + 1), nullptr);
        EXPECT_EQ(tlsf_malloc(h, 2 * bytes), nullptr);
        EXPECT_EQ(tlsf_malloc(h, tlsf_block_size_max() / 2), nullptr);
        EXPECT_EQ(tlsf_malloc(h, SIZE_MAX), nullptr);
        if (kStats) {
            EXPECT_EQ(Stats(h).failed_count, failed + 4);
        }
        EXPECT_TRUE(h.log().events.empty()) << "running out is no misuse";
        // Right at the limit: the largest block the pool holds.
        void *all = tlsf_malloc(h, largest);
        ASSERT_NE(all, nullptr);
        EXPECT_GE(tlsf_block_size(all), largest);
        EXPECT_LT(tlsf_largest_allocatable(h), largest);
        tlsf_free(h, all);
        EXPECT_EQ(h.Errors(), 0);
    }
}

TEST(SizedHeap, MemalignAndReallocNearTheLimit) {
    for (std::size_t bytes : {std::size_t(4096), Capped(65536)}) {
        Compact h(bytes);
        ASSERT_NE(h.get(), nullptr);
        const std::size_t largest = tlsf_largest_allocatable(h);
        // An alignment larger than the pool, or a block that with its gap no longer fits.
        EXPECT_EQ(tlsf_memalign(h, CeilPowerOfTwo(bytes) * 2, 16), nullptr);
        EXPECT_EQ(tlsf_memalign(h, 256, largest), nullptr);
        void *aligned = tlsf_memalign(h, 256, largest / 2);
        ASSERT_NE(aligned, nullptr);
        EXPECT_TRUE(IsAligned(aligned, 256));
        tlsf_free(h, aligned);
        EXPECT_EQ(tlsf_memalign(h, Align(), largest + 1), nullptr);
        // realloc grows a block in place up to the whole pool, and refuses one byte more
        // without touching the block.
        unsigned char *p = static_cast<unsigned char *>(tlsf_malloc(h, 100));
        ASSERT_NE(p, nullptr);
        Fill(p, 100, 7);
        EXPECT_EQ(tlsf_realloc(h, p, largest + 1), nullptr);
        EXPECT_TRUE(Holds(p, 100, 7));
        void *grown = tlsf_realloc(h, p, largest);
        ASSERT_EQ(grown, p) << "grown in place into the rest of the pool";
        EXPECT_TRUE(Holds(grown, 100, 7));
        void *shrunk = tlsf_realloc(h, grown, 64);
        ASSERT_NE(shrunk, nullptr);
        tlsf_free(h, shrunk);
        EXPECT_EQ(h.Errors(), 0);
        EXPECT_EQ(tlsf_largest_allocatable(h), largest);
    }
}

// ---- Everything else as on a full heap ----------------------------------------------------

// Fill the heap with blocks of sizes drawn by `rng` (some memalign'd), free every other one,
// fill again, then drain it; the checks stay clean and the contents intact throughout.
void FillAndDrain(Compact &h, Rng &rng) {
    struct Held {
        unsigned char *ptr;
        std::size_t bytes;
        std::uint64_t seed;
    };
    std::vector<Held> held;
    const std::size_t cap = std::max<std::size_t>(tlsf_largest_allocatable(h) / 8, 1);
    std::uint64_t seed = 1;
    auto fill = [&] {
        for (int misses = 0; misses < 8;) {
            std::size_t bytes =
                rng.Between(0, rng.Chance(80) ? std::min<std::size_t>(cap, 300) : cap);
            void *p = rng.Chance(10) ? tlsf_memalign(h, std::size_t(64) << rng.Below(3), bytes)
                                     : tlsf_malloc(h, bytes);
            if (p == nullptr) {
                ++misses;
                continue;
            }
            Fill(p, bytes, seed);
            held.push_back({static_cast<unsigned char *>(p), bytes, seed++});
        }
    };
    fill();
    ASSERT_FALSE(held.empty());
    ASSERT_EQ(h.Errors(), 0);
    for (std::size_t i = 0; i < held.size(); i += 2)
        tlsf_free(h, held[i].ptr);
    std::vector<Held> kept;
    for (std::size_t i = 1; i < held.size(); i += 2)
        kept.push_back(held[i]);
    held.swap(kept);
    ASSERT_EQ(h.Errors(), 0);
    fill();
    ASSERT_EQ(h.Errors(), 0);
    for (const Held &b : held) {
        ASSERT_TRUE(Holds(b.ptr, b.bytes, b.seed));
        tlsf_free(h, b.ptr);
    }
    tlsf_cache_flush(h);
    EXPECT_EQ(h.Errors(), 0);
    // Drained: one free block again, the whole pool.
    EXPECT_EQ(tlsf_largest_allocatable(h), SizeClasses().LargestFor(Stats(h).pool_bytes));
}

TEST(SizedHeap, CompactHeapsFillAndDrainCleanly) {
    Rng rng(2024);
    for (std::size_t bytes : CompactSizes()) {
        Compact h(bytes);
        ASSERT_NE(h.get(), nullptr);
        FillAndDrain(h, rng);
        EXPECT_TRUE(h.log().events.empty());
    }
}

TEST(SizedHeap, CacheAndSlabsWorkOnACompactHeap) {
    Compact h(Capped(65536));
    ASSERT_NE(h.get(), nullptr);
    if (TLSF_SLABS) {
        ASSERT_EQ(tlsf_slabs_enable(h, 4096), 0);
    }
    if (TLSF_CACHE) {
        EXPECT_GT(tlsf_cache_set_limit(h, 4096), 0u);
    }
    Rng rng(77);
    FillAndDrain(h, rng);
    // Small blocks freed and taken again go through the cache and the slabs.
    std::vector<void *> small;
    for (int i = 0; i < 200; ++i)
        if (void *p = tlsf_malloc(h, rng.Between(1, 200))) small.push_back(p);
    for (std::size_t i = 0; i < small.size(); i += 3)
        tlsf_free(h, small[i]);
    EXPECT_EQ(h.Errors(), 0);
    for (std::size_t i = 0; i < small.size(); ++i)
        if (i % 3 != 0) tlsf_free(h, small[i]);
    tlsf_slabs_enable(h, 0);
    tlsf_cache_flush(h);
    EXPECT_EQ(h.Errors(), 0);
    EXPECT_EQ(tlsf_largest_allocatable(h), SizeClasses().LargestFor(Stats(h).pool_bytes));
    EXPECT_TRUE(h.log().events.empty());
}

TEST(SizedHeap, RandomSequencesKeepACompactHeapConsistent) {
    // malloc, memalign, realloc and free in a random mix, checked against tlsf_check and the
    // blocks' contents every few operations; deterministic seeds.
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        Rng rng(seed);
        Compact h(seed == 3 ? Capped(1 << 20) : Capped(65536));
        ASSERT_NE(h.get(), nullptr);
        const std::size_t largest = tlsf_largest_allocatable(h);
        struct Held {
            void *ptr;
            std::size_t bytes;
            std::uint64_t seed;
        };
        std::vector<Held> held;
        std::uint64_t next_seed = 1;
        for (int op = 0; op < 4000; ++op) {
            const unsigned what = static_cast<unsigned>(rng.Below(10));
            const std::size_t bytes =
                rng.Chance(3) ? rng.Between(largest / 2, largest + 64) : rng.Between(0, 512);
            if (what < 4 || held.empty()) {
                void *p = what == 0 ? tlsf_memalign(h, std::size_t(32) << rng.Below(5), bytes)
                                    : tlsf_malloc(h, bytes);
                if (p != nullptr) {
                    ASSERT_LE(bytes, largest) << "no block beyond the heap's classes";
                    Fill(p, bytes, next_seed);
                    held.push_back({p, bytes, next_seed++});
                }
            } else if (what < 6) {
                Held &b = held[rng.Below(held.size())];
                void *moved = tlsf_realloc(h, b.ptr, bytes == 0 ? 1 : bytes);
                if (moved != nullptr) {
                    const std::size_t kept = std::min(b.bytes, bytes == 0 ? 1 : bytes);
                    ASSERT_TRUE(Holds(moved, kept, b.seed));
                    b.ptr = moved;
                    b.bytes = bytes == 0 ? 1 : bytes;
                    Fill(b.ptr, b.bytes, b.seed);
                } else {
                    ASSERT_TRUE(Holds(b.ptr, b.bytes, b.seed)) << "a failed realloc keeps it";
                }
            } else {
                std::size_t i = rng.Below(held.size());
                ASSERT_TRUE(Holds(held[i].ptr, held[i].bytes, held[i].seed));
                tlsf_free(h, held[i].ptr);
                held[i] = held.back();
                held.pop_back();
            }
            if (op % 100 == 0) {
                ASSERT_EQ(h.Errors(), 0) << "seed " << seed << " op " << op;
            }
        }
        for (const Held &b : held)
            tlsf_free(h, b.ptr);
        tlsf_cache_flush(h);
        EXPECT_EQ(h.Errors(), 0);
        EXPECT_EQ(tlsf_largest_allocatable(h), largest);
        EXPECT_TRUE(h.log().events.empty());
    }
}

TEST(SizedHeap, WalkAndRemovePoolSeeTheCompactPool) {
    Compact h(4096);
    ASSERT_NE(h.get(), nullptr);
    void *p = tlsf_malloc(h, 100);
    ASSERT_NE(p, nullptr);
    std::vector<WalkedBlock> blocks = Walk(tlsf_get_pool(h));
    ASSERT_EQ(blocks.size(), 2u);
    EXPECT_EQ(blocks[0].ptr, p);
    EXPECT_TRUE(blocks[0].used);
    EXPECT_FALSE(blocks[1].used);
    tlsf_free(h, p);
    tlsf_remove_pool(h, tlsf_get_pool(h));
    EXPECT_TRUE(h.log().events.empty());
    EXPECT_EQ(Stats(h).pool_count, 0u);
    EXPECT_EQ(tlsf_malloc(h, 0), nullptr);
    EXPECT_EQ(tlsf_check(h), 0);
}

} // namespace
