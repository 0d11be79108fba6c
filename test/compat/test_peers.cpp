/* SPDX-License-Identifier: MIT */
// The cases of other TLSF projects' test suites, written again for this layer: what those
// suites ask of mattconte's API, asked through it here (their cases, not their code).
//   - a random mix of malloc, memalign, realloc and free with both heap checks after every
//     call (tlsf-bsd's random test of mattconte's API);
//   - sweeps of alignments, of memalign and of realloc sizes, and pools added and removed
//     (the unit tests submitted with mattconte's pull requests);
//   - free blocks merging at once, free-byte accounting from tlsf_block_size and
//     tlsf_alloc_overhead, a heap filled with the smallest blocks, a write past a block
//     caught by the checks (ESP-IDF's multi_heap host tests over its TLSF).
#include "compat_test_support.h"

#include <algorithm>
#include <cstdint>
#include <map>

using namespace compat_test;

namespace {

struct Live {
    std::size_t size; // the bytes asked for (the pattern covers them)
    std::size_t id;
    std::size_t align; // what memalign asked for, 0 for malloc
};

// A heap over one arena, with the blocks the test holds and their patterns.
class Workload {
  public:
    explicit Workload(std::size_t bytes)
        : arena_(bytes), heap_(tlsf_create_with_pool(arena_.start(), bytes)),
          pool_(tlsf_get_pool(heap_)) {}
    tlsf_t heap() const { return heap_; }
    pool_t pool() const { return pool_; }
    const Arena &arena() const { return arena_; }
    std::map<void *, Live> &live() { return live_; }

    // Record a block the heap returned, after checking what the API promises of it.
    void Took(void *p, std::size_t size, std::size_t align) {
        ASSERT_NE(p, nullptr);
        ASSERT_TRUE(arena_.Holds(p, size));
        ASSERT_TRUE(IsAligned(p, std::max(align, tlsf_align_size())));
        ASSERT_GE(tlsf_block_size(p), size);
        // No overlap with the neighbours held.
        auto next = live_.lower_bound(p);
        if (next != live_.end()) {
            ASSERT_LE(Addr(p) + size, Addr(next->first));
        }
        if (next != live_.begin()) {
            auto prev = std::prev(next);
            ASSERT_LE(Addr(prev->first) + prev->second.size, Addr(p));
        }
        Fill(p, size, ++ids_);
        live_[p] = Live{size, ids_, align};
    }
    void Free(void *p) {
        ASSERT_TRUE(Holds(p, live_[p].size, live_[p].id)) << "a block's contents changed";
        live_.erase(p);
        tlsf_free(heap_, p);
    }
    void FreeAll() {
        while (!live_.empty())
            Free(live_.begin()->first);
    }

  private:
    Arena arena_;
    tlsf_t heap_;
    pool_t pool_;
    std::map<void *, Live> live_;
    std::size_t ids_ = 0;
};

// After everything is freed the pool is one free block again: every free merged.
void ExpectOneFreeBlock(pool_t pool) {
    Census census = Walk(pool);
    EXPECT_EQ(census.used_blocks, 0u);
    EXPECT_EQ(census.free_blocks, 1u);
}

TEST(CompatPeers, RandomCallsWithBothChecksAfterEach) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        Workload w(256 * 1024);
        Random random(seed);
        const std::size_t largest = 16 * 1024;
        std::size_t failures = 0;
        for (int step = 0; step < 20000; ++step) {
            std::size_t choice = random.Below(10);
            if (choice < 4 || w.live().empty()) {
                std::size_t size = random.Size(largest);
                void *p = tlsf_malloc(w.heap(), size);
                if (p == nullptr)
                    ++failures;
                else
                    w.Took(p, size, 0);
            } else if (choice < 5) {
                std::size_t align = std::size_t(1) << random.Below(12);
                std::size_t size = random.Size(largest / 4);
                void *p = tlsf_memalign(w.heap(), align, size);
                if (p == nullptr)
                    ++failures;
                else
                    w.Took(p, size, align);
            } else if (choice < 7) {
                auto it = w.live().begin();
                std::advance(it, static_cast<long>(random.Below(w.live().size())));
                void *old = it->first;
                Live was = it->second;
                std::size_t size = random.Size(largest);
                void *p = tlsf_realloc(w.heap(), old, size);
                if (p == nullptr) {
                    ++failures;
                    ASSERT_TRUE(Holds(old, was.size, was.id)); // the old block is untouched
                } else {
                    ASSERT_TRUE(Holds(p, std::min(size, was.size), was.id));
                    if (was.align != 0) {
                        EXPECT_TRUE(IsAligned(p, was.align));
                    }
                    w.live().erase(old);
                    w.Took(p, size, was.align);
                }
            } else {
                auto it = w.live().begin();
                std::advance(it, static_cast<long>(random.Below(w.live().size())));
                w.Free(it->first);
            }
            ASSERT_TRUE(Sound(w.heap(), w.pool())) << "seed " << seed << " step " << step;
        }
        EXPECT_GT(failures, 0u); // the heap was driven full
        w.FreeAll();
        EXPECT_TRUE(Sound(w.heap(), w.pool()));
        ExpectOneFreeBlock(w.pool());
    }
}

TEST(CompatPeers, AlignmentSweep) {
    Workload w(4 * 1024 * 1024);
    const std::size_t sizes[] = {1, 7, 8, 15, 16, 17, 100, 255, 1000, 4097};
    for (std::size_t align = 1; align <= 64 * 1024; align *= 2) {
        for (std::size_t size : sizes) {
            void *p = tlsf_memalign(w.heap(), align, size);
            w.Took(p, size, align);
            // A small block between the aligned ones, so that the gaps differ.
            void *q = tlsf_malloc(w.heap(), 1 + size % 24);
            w.Took(q, 1 + size % 24, 0);
        }
        ASSERT_TRUE(Sound(w.heap(), w.pool())) << "align " << align;
    }
    // Free in an order unrelated to the addresses: every other, then the rest.
    std::vector<void *> order;
    for (const auto &block : w.live())
        order.push_back(block.first);
    for (std::size_t i = 0; i < order.size(); i += 2)
        w.Free(order[i]);
    EXPECT_TRUE(Sound(w.heap(), w.pool()));
    w.FreeAll();
    EXPECT_TRUE(Sound(w.heap(), w.pool()));
    ExpectOneFreeBlock(w.pool());
}

TEST(CompatPeers, MemalignSweepInAFragmentedHeap) {
    Workload w(512 * 1024);
    Random random(7);
    // Holes of every size between live blocks.
    std::vector<void *> holes;
    for (int i = 0; i < 200; ++i) {
        std::size_t size = random.Size(512);
        void *p = tlsf_malloc(w.heap(), size);
        w.Took(p, size, 0);
        if (i % 2 == 0) holes.push_back(p);
    }
    for (void *p : holes)
        w.Free(p);
    ASSERT_TRUE(Sound(w.heap(), w.pool()));
    for (std::size_t align = 2 * tlsf_align_size(); align <= 8192; align *= 2) {
        for (std::size_t size = 1; size <= 2048; size = size * 3 + 1) {
            void *p = tlsf_memalign(w.heap(), align, size);
            w.Took(p, size, align);
            ASSERT_TRUE(Sound(w.heap(), w.pool())) << "align " << align << " size " << size;
        }
    }
    w.FreeAll();
    EXPECT_TRUE(Sound(w.heap(), w.pool()));
    ExpectOneFreeBlock(w.pool());
}

TEST(CompatPeers, ReallocSweep) {
    Workload w(512 * 1024);
    const std::size_t sizes[] = {1, 8, 24, 25, 100, 512, 1000, 4000, 20000};
    for (std::size_t from : sizes) {
        for (std::size_t to : sizes) {
            void *p = tlsf_malloc(w.heap(), from);
            w.Took(p, from, 0);
            std::size_t id = w.live()[p].id;
            void *fence = tlsf_malloc(w.heap(), 16); // a block after p: growth must move...
            w.Took(fence, 16, 0);
            void *q = tlsf_realloc(w.heap(), p, to);
            ASSERT_NE(q, nullptr);
            ASSERT_TRUE(Holds(q, std::min(from, to), id)) << from << " -> " << to;
            EXPECT_GE(tlsf_block_size(q), to);
            if (to <= from) {
                EXPECT_EQ(q, p) << "a shrink stays in place";
            }
            w.live().erase(p);
            w.Took(q, to, 0);
            w.Free(fence); // ... or, with the next block free, stay in place
            std::size_t grown = to + 64;
            std::size_t next_id = w.live()[q].id;
            void *r = tlsf_realloc(w.heap(), q, grown);
            EXPECT_EQ(r, q) << "grows in place into the free block after it";
            ASSERT_NE(r, nullptr);
            ASSERT_TRUE(Holds(r, to, next_id));
            w.live().erase(q);
            w.Took(r, grown, 0);
            ASSERT_TRUE(Sound(w.heap(), w.pool()));
            w.FreeAll();
        }
    }
    // A block that was free behind p lets p grow in place.
    void *p = tlsf_malloc(w.heap(), 100);
    void *after = tlsf_malloc(w.heap(), 1000);
    void *fence = tlsf_malloc(w.heap(), 16);
    tlsf_free(w.heap(), after);
    EXPECT_EQ(tlsf_realloc(w.heap(), p, 900), p);
    // A memalign'd block keeps its alignment when realloc moves it.
    void *aligned = tlsf_memalign(w.heap(), 4096, 100);
    ASSERT_TRUE(IsAligned(aligned, 4096));
    void *blocker = tlsf_malloc(w.heap(), 16);
    void *moved = tlsf_realloc(w.heap(), aligned, 20000);
    ASSERT_NE(moved, nullptr);
    EXPECT_TRUE(IsAligned(moved, 4096));
    for (void *q : {p, fence, blocker, moved})
        tlsf_free(w.heap(), q);
    EXPECT_TRUE(Sound(w.heap(), w.pool()));
    ExpectOneFreeBlock(w.pool());
}

TEST(CompatPeers, PoolsAddedAndRemoved) {
    Arena control(tlsf_size());
    tlsf_t heap = tlsf_create(control.start());
    ASSERT_NE(heap, nullptr);
    // Pools of several sizes, at every misalignment a word allows.
    std::vector<std::unique_ptr<Arena>> arenas;
    std::vector<pool_t> pools;
    for (std::size_t i = 0; i < 6; ++i) {
        arenas.emplace_back(new Arena(4096u << i, (i * sizeof(void *)) % tlsf_align_size()));
        pool_t pool = tlsf_add_pool(heap, arenas.back()->start(), arenas.back()->size());
        ASSERT_NE(pool, nullptr);
        pools.push_back(pool);
        ASSERT_EQ(tlsf_check(heap), 0);
        ASSERT_EQ(tlsf_check_pool(pool), 0);
    }
    for (std::size_t round = 0; round < 3; ++round) {
        // Fill the heap with small blocks: each lies in exactly one pool.
        std::vector<void *> blocks;
        std::vector<std::size_t> per_pool(pools.size());
        for (void *p; (p = tlsf_malloc(heap, 48)) != nullptr;) {
            blocks.push_back(p);
            std::size_t owners = 0;
            for (std::size_t i = 0; i < arenas.size(); ++i)
                if (pools[i] != nullptr && arenas[i]->Holds(p, 48)) ++per_pool[i], ++owners;
            ASSERT_EQ(owners, 1u);
        }
        for (std::size_t i = 0; i < pools.size(); ++i)
            if (pools[i] != nullptr) {
                EXPECT_GT(per_pool[i], 0u) << "pool " << i;
            }
        for (void *p : blocks)
            tlsf_free(heap, p);
        EXPECT_EQ(tlsf_check(heap), 0);
        // Remove every other pool (a different half each round), then add them back.
        for (std::size_t i = round % 2; i < pools.size(); i += 2) {
            ASSERT_EQ(Walk(pools[i]).blocks.size(), 1u);
            tlsf_remove_pool(heap, pools[i]);
            pools[i] = nullptr;
            ASSERT_EQ(tlsf_check(heap), 0);
        }
        // No block comes from a removed pool.
        blocks.clear();
        for (void *p; (p = tlsf_malloc(heap, 64)) != nullptr;) {
            blocks.push_back(p);
            for (std::size_t i = 0; i < pools.size(); ++i)
                if (pools[i] == nullptr) {
                    EXPECT_FALSE(arenas[i]->Holds(p));
                }
        }
        for (void *p : blocks)
            tlsf_free(heap, p);
        for (std::size_t i = 0; i < pools.size(); ++i) {
            if (pools[i] != nullptr) continue;
            pools[i] = tlsf_add_pool(heap, arenas[i]->start(), arenas[i]->size());
            ASSERT_NE(pools[i], nullptr);
            ASSERT_EQ(tlsf_check_pool(pools[i]), 0);
        }
        EXPECT_EQ(tlsf_check(heap), 0);
    }
}

TEST(CompatPeers, FreeBlocksMergeAtOnce) {
    Workload w(128 * 1024);
    std::vector<void *> blocks;
    for (int i = 0; i < 64; ++i) {
        void *p = tlsf_malloc(w.heap(), 100);
        w.Took(p, 100, 0);
        blocks.push_back(p);
    }
    // Every other block freed: each is a free block of its own between two in use.
    for (std::size_t i = 0; i < blocks.size(); i += 2)
        w.Free(blocks[i]);
    Census half = Walk(w.pool());
    EXPECT_EQ(half.free_blocks, 32u + 1u); // and the rest of the pool after the last
    EXPECT_EQ(half.used_blocks, 32u);
    // Freeing the others merges everything into one block the size of the pool.
    for (std::size_t i = 1; i < blocks.size(); i += 2)
        w.Free(blocks[i]);
    Census all = Walk(w.pool());
    EXPECT_EQ(all.free_blocks, 1u);
    EXPECT_EQ(all.used_blocks, 0u);
    EXPECT_EQ(all.Accounted(), PoolBytes(w.arena().size() - tlsf_size()));
    EXPECT_TRUE(Sound(w.heap(), w.pool()));
}

// ESP-IDF's multi_heap keeps a count of free bytes from the sizes the API reports:
// tlsf_size() and the pool are taken at creation, each block costs its usable size and
// tlsf_alloc_overhead(). The count must agree with the walk after every call. (A block of
// tlsf_memalign with an alignment above tlsf_align_size() costs one word more: the record
// of its alignment, which realloc keeps; docs/mattconte.md.)
TEST(CompatPeers, FreeByteAccountingAgreesWithTheWalk) {
    const std::size_t bytes = 200 * 1024;
    Workload w(bytes);
    const std::size_t overhead = tlsf_alloc_overhead();
    std::size_t free_bytes = bytes - tlsf_size();
    auto walked_free = [&]() {
        Census census = Walk(w.pool());
        return census.free_bytes + census.free_blocks * overhead + tlsf_pool_overhead();
    };
    ASSERT_EQ(free_bytes, walked_free());
    Random random(11);
    struct Held {
        void *ptr;
        std::size_t cost;
    };
    std::vector<Held> held;
    for (int step = 0; step < 3000; ++step) {
        if (held.empty() || random.Below(3) != 0) {
            std::size_t size = random.Size(4096);
            bool aligned = random.Below(4) == 0;
            void *p = aligned ? tlsf_memalign(w.heap(), 256, size) : tlsf_malloc(w.heap(), size);
            if (p == nullptr) continue;
            std::size_t cost = tlsf_block_size(p) + overhead + (aligned ? sizeof(void *) : 0);
            free_bytes -= cost;
            held.push_back(Held{p, cost});
        } else if (random.Below(2) == 0) {
            Held &block = held[random.Below(held.size())];
            std::size_t record = block.cost - tlsf_block_size(block.ptr) - overhead;
            void *p = tlsf_realloc(w.heap(), block.ptr, random.Size(4096));
            if (p == nullptr) continue;
            free_bytes += block.cost;
            block = Held{p, tlsf_block_size(p) + overhead + record};
            free_bytes -= block.cost;
        } else {
            std::size_t i = random.Below(held.size());
            free_bytes += held[i].cost;
            tlsf_free(w.heap(), held[i].ptr);
            held[i] = held.back();
            held.pop_back();
        }
        ASSERT_EQ(free_bytes, walked_free()) << "step " << step;
    }
    for (const Held &block : held)
        tlsf_free(w.heap(), block.ptr);
    EXPECT_EQ(bytes - tlsf_size(), walked_free());
}

TEST(CompatPeers, FilledWithTheSmallestBlocks) {
    Workload w(64 * 1024);
    std::vector<void *> blocks;
    for (void *p; (p = tlsf_malloc(w.heap(), 1)) != nullptr;) {
        EXPECT_EQ(tlsf_block_size(p), tlsf_block_size_min());
        blocks.push_back(p);
    }
    // Every byte of the pool is in a smallest block or its header, but for less than one.
    const std::size_t span = tlsf_block_size_min() + tlsf_alloc_overhead();
    const std::size_t pool = PoolBytes(w.arena().size() - tlsf_size()) - tlsf_pool_overhead();
    EXPECT_EQ(blocks.size(), pool / span);
    std::sort(blocks.begin(), blocks.end());
    for (std::size_t i = 1; i < blocks.size(); ++i)
        EXPECT_EQ(Addr(blocks[i]) - Addr(blocks[i - 1]), span);
    EXPECT_TRUE(Sound(w.heap(), w.pool()));
    for (void *p : blocks)
        tlsf_free(w.heap(), p);
    ExpectOneFreeBlock(w.pool());
}

TEST(CompatPeers, WritePastABlockIsCaughtByTheChecks) {
#ifdef COMPAT_TEST_ASAN
    GTEST_SKIP() << "AddressSanitizer stops the write itself";
#else
    Workload w(64 * 1024);
    void *a = tlsf_malloc(w.heap(), 64);
    void *b = tlsf_malloc(w.heap(), 64);
    ASSERT_TRUE(a && b);
    tlsf_free(w.heap(), b); // merges with the rest of the pool: a's neighbour is free
    const std::size_t usable = tlsf_block_size(a);
    // Overwrite the free block's header word after a's usable bytes with a smaller span
    // (which ends inside the block), then put it back.
    std::size_t *next_word = reinterpret_cast<std::size_t *>(Bytes(a) + usable);
    std::size_t saved = *next_word;
    *next_word = saved - 2 * tlsf_align_size();
    EXPECT_LT(tlsf_check(w.heap()), 0);
    EXPECT_LT(tlsf_check_pool(w.pool()), 0);
    *next_word = saved;
    EXPECT_TRUE(Sound(w.heap(), w.pool()));
    tlsf_free(w.heap(), a);
#endif
}

} // namespace
