// SPDX-License-Identifier: MIT
// tlsf_walk_pool: the blocks it visits match the live set, in address order.
#include "tlsf_test_support.h"

#include <map>

using namespace tlsf_test;

namespace {

std::size_t PoolBytes() {
    return std::min<std::size_t>(std::size_t(1) << 17, tlsf_block_size_max() / 4);
}

struct Counter {
    int calls = 0;
};

} // namespace

TEST(Walk, NullPoolOrWalkerDoesNothing) {
    Heap h(PoolBytes());
    Counter c;
    tlsf_walk_pool(
        nullptr, [](void *, std::size_t, int, void *u) { ++static_cast<Counter *>(u)->calls; }, &c);
    tlsf_walk_pool(h.pools()[0], nullptr, &c);
    EXPECT_EQ(c.calls, 0);
    EXPECT_EQ(tlsf_check_pool(nullptr), 1);
    EXPECT_EQ(tlsf_check(nullptr), 1);
}

TEST(Walk, PassesTheUserValue) {
    Heap h(PoolBytes());
    void *p = tlsf_malloc(h, 10);
    ASSERT_NE(p, nullptr);
    Counter c;
    tlsf_walk_pool(
        h.pools()[0], [](void *, std::size_t, int, void *u) { ++static_cast<Counter *>(u)->calls; },
        &c);
    EXPECT_EQ(c.calls, 2); // the block and the free rest
}

TEST(Walk, FreshPoolIsOneFreeBlock) {
    for (std::size_t bytes :
         {MinPoolBytes(), MinPoolBytes() + Align() - 1, std::size_t(5000), PoolBytes()}) {
        for (std::size_t misalign : {std::size_t(0), Align()}) {
            Heap h;
            Region r(bytes + misalign, 64);
            unsigned char *mem = r.data() + misalign;
            pool_t pool = tlsf_add_pool(h, mem, bytes);
            ASSERT_NE(pool, nullptr);
            std::vector<WalkedBlock> walk = Walk(pool);
            ASSERT_EQ(walk.size(), 1u) << bytes;
            EXPECT_FALSE(walk[0].used);
            EXPECT_EQ(walk[0].size + Word(), PoolSpan(bytes));
            EXPECT_TRUE(IsAligned(walk[0].ptr, Align()));
            EXPECT_GE(Addr(walk[0].ptr), Addr(mem));
            EXPECT_LE(Addr(walk[0].ptr) + walk[0].size, Addr(mem) + bytes);
        }
    }
}

// Blocks in address order, one header word apart from the previous block's usable end (for
// blocks that malloc made), never two free blocks in a row, and the used ones are exactly
// the live set.
TEST(Walk, UsedBlocksMatchTheLiveSet) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        Rng rng(seed * 31337);
        const bool aligned_too = seed % 2 == 0;
        Heap h(PoolBytes());
        h.AddPool(PoolBytes() / 3, Align());
        h.AddPool(MinPoolBytes() * 5);
        std::map<std::uintptr_t, std::size_t> live; // address -> usable size
        for (int step = 0; step < 4000; ++step) {
            if (live.empty() || rng.Chance(52)) {
                std::size_t n = rng.Chance(85) ? rng.Below(200) : rng.Below(6000);
                void *p = aligned_too && rng.Chance(30)
                              ? tlsf_memalign(h, std::size_t(1) << rng.Between(0, 10), n)
                              : tlsf_malloc(h, n);
                if (p) live[Addr(p)] = tlsf_block_size(p);
            } else {
                auto it = live.begin();
                std::advance(it, static_cast<std::ptrdiff_t>(rng.Below(live.size())));
                if (rng.Chance(20)) {
                    const std::size_t n = rng.Below(3000);
                    void *q = tlsf_realloc(h, reinterpret_cast<void *>(it->first), n);
                    if (q || n == 0) live.erase(it); // a failed realloc keeps the block
                    if (q) live[Addr(q)] = tlsf_block_size(q);
                } else {
                    tlsf_free(h, reinterpret_cast<void *>(it->first));
                    live.erase(it);
                }
            }
            if (step % 97 != 0 && step != 3999) continue;

            std::size_t used_seen = 0, free_span = 0;
            for (pool_t pool : h.pools()) {
                std::vector<WalkedBlock> walk = Walk(pool);
                ASSERT_FALSE(walk.empty());
                for (std::size_t i = 0; i < walk.size(); ++i) {
                    const WalkedBlock &b = walk[i];
                    ASSERT_TRUE(IsAligned(b.ptr, Align()));
                    if (i > 0) {
                        const WalkedBlock &prev = walk[i - 1];
                        ASSERT_LE(Addr(prev.ptr) + prev.size + Word(), Addr(b.ptr)) << "overlap";
                        // Cached blocks are free to the walk but never merged (tlsf_cache.h);
                        // the lists' blocks never lie side by side (checked after a flush).
                        ASSERT_FALSE(!TLSF_CACHE && prev.used == false && b.used == false)
                            << "adjacent free blocks";
                        if (!aligned_too) {
                            ASSERT_EQ(Addr(prev.ptr) + prev.size + Word(), Addr(b.ptr)) << "gap";
                        }
                    }
                    if (b.used) {
                        auto it = live.find(Addr(b.ptr));
                        ASSERT_NE(it, live.end()) << "walk shows a block that is not live";
                        ASSERT_EQ(it->second, b.size);
                        ++used_seen;
                    } else {
                        ASSERT_GE(b.size, MinUsable());
                        free_span += b.size + Word();
                    }
                }
            }
            ASSERT_EQ(used_seen, live.size()) << "walk missed live blocks";
            if (TLSF_CACHE) {
                tlsf_cache_flush(h);
                for (pool_t pool : h.pools()) {
                    std::vector<WalkedBlock> walk = Walk(pool);
                    for (std::size_t i = 1; i < walk.size(); ++i)
                        ASSERT_FALSE(!walk[i - 1].used && !walk[i].used) << "adjacent free blocks";
                }
            }
            tlsf_stats_t s = Stats(h);
            if (TLSF_STATS) {
                ASSERT_EQ(s.live_blocks, live.size());
                ASSERT_EQ(s.used_bytes + free_span, s.pool_bytes);
            }
            ASSERT_EQ(h.Errors(), 0);
        }
        for (auto &entry : live)
            tlsf_free(h, reinterpret_cast<void *>(entry.first));
        tlsf_cache_flush(h);
        // Everything coalesces back: one free block per pool.
        for (pool_t pool : h.pools()) {
            std::vector<WalkedBlock> walk = Walk(pool);
            ASSERT_EQ(walk.size(), 1u);
            EXPECT_FALSE(walk[0].used);
        }
        EXPECT_EQ(h.Errors(), 0);
    }
}
