/* SPDX-License-Identifier: MIT */
// mattconte's conventions where the core's own API answers differently (compat/mattconte/
// src/mattconte.c): zero sizes, the sign of the checks, a heap whose memory holds no pool,
// memory aligned only to a word, NULL arguments; and the sizes a mattconte program does its
// arithmetic with.
#include "compat_test_support.h"

#include <climits>
#include <cstdint>

#if defined(__unix__)
#include <sys/mman.h>
#endif

using namespace compat_test;

namespace {

constexpr std::size_t kPoolBytes = 64 * 1024;

// A heap of tlsf_create_with_pool over an arena.
struct Heap {
    explicit Heap(std::size_t pool_bytes = kPoolBytes, std::size_t offset = 0)
        : arena(tlsf_size() + pool_bytes + tlsf_align_size(), offset),
          heap(tlsf_create_with_pool(arena.start(), arena.size())), pool(tlsf_get_pool(heap)) {}
    Arena arena;
    tlsf_t heap;
    pool_t pool;
};

TEST(CompatConventions, ZeroSizesReturnNull) {
    Heap h;
    ASSERT_NE(h.heap, nullptr);
    Census before = Walk(h.pool);
    EXPECT_EQ(tlsf_malloc(h.heap, 0), nullptr);
    EXPECT_EQ(tlsf_memalign(h.heap, 64, 0), nullptr);
    EXPECT_EQ(tlsf_memalign(h.heap, 0, 0), nullptr);
    EXPECT_EQ(tlsf_realloc(h.heap, nullptr, 0), nullptr);
    // Nothing was taken: the pool is still one free block.
    Census after = Walk(h.pool);
    EXPECT_EQ(after.blocks.size(), 1u);
    EXPECT_EQ(after.free_bytes, before.free_bytes);
    EXPECT_TRUE(Sound(h.heap, h.pool));
}

TEST(CompatConventions, ReallocToZeroFreesAndNullReallocAllocates) {
    Heap h;
    void *p = tlsf_realloc(h.heap, nullptr, 50);
    ASSERT_NE(p, nullptr);
    EXPECT_GE(tlsf_block_size(p), 50u);
    EXPECT_EQ(Walk(h.pool).used_blocks, 1u);
    EXPECT_EQ(tlsf_realloc(h.heap, p, 0), nullptr);
    Census census = Walk(h.pool);
    EXPECT_EQ(census.used_blocks, 0u);
    EXPECT_EQ(census.free_blocks, 1u);
    EXPECT_TRUE(Sound(h.heap, h.pool));
}

TEST(CompatConventions, HugeRequestsFailAndLeaveTheBlock) {
    Heap h;
    EXPECT_EQ(tlsf_malloc(h.heap, SIZE_MAX), nullptr);
    EXPECT_EQ(tlsf_malloc(h.heap, tlsf_block_size_max()), nullptr);
    EXPECT_EQ(tlsf_malloc(h.heap, kPoolBytes), nullptr); // larger than the pool's block
    EXPECT_EQ(tlsf_memalign(h.heap, 64, SIZE_MAX), nullptr);
    void *p = tlsf_malloc(h.heap, 100);
    ASSERT_NE(p, nullptr);
    Fill(p, 100, 1);
    EXPECT_EQ(tlsf_realloc(h.heap, p, SIZE_MAX), nullptr);
    EXPECT_EQ(tlsf_realloc(h.heap, p, kPoolBytes), nullptr);
    EXPECT_TRUE(Holds(p, 100, 1)); // untouched, still live
    tlsf_free(h.heap, p);
    EXPECT_TRUE(Sound(h.heap, h.pool));
}

TEST(CompatConventions, MemalignOfASmallAlignmentIsMalloc) {
    Heap h;
    for (std::size_t align : {std::size_t(1), std::size_t(2), tlsf_align_size()}) {
        void *p = tlsf_memalign(h.heap, align, 40);
        ASSERT_NE(p, nullptr) << "align " << align;
        EXPECT_TRUE(IsAligned(p, tlsf_align_size()));
        EXPECT_GE(tlsf_block_size(p), 40u);
        tlsf_free(h.heap, p);
    }
    // Not a power of two, 0 included: refused (mattconte asserts).
    EXPECT_EQ(tlsf_memalign(h.heap, 0, 40), nullptr);
    EXPECT_EQ(tlsf_memalign(h.heap, 48, 40), nullptr);
    EXPECT_EQ(tlsf_memalign(h.heap, SIZE_MAX, 40), nullptr);
    EXPECT_TRUE(Sound(h.heap, h.pool));
}

TEST(CompatConventions, ChecksCountDownFromZero) {
    EXPECT_EQ(tlsf_check(nullptr), -1);
    EXPECT_EQ(tlsf_check_pool(nullptr), -1);
#ifdef COMPAT_TEST_ASAN
    GTEST_SKIP() << "writes block headers, which AddressSanitizer poisons";
#else
    Heap h;
    void *a = tlsf_malloc(h.heap, 64);
    void *b = tlsf_malloc(h.heap, 64);
    void *c = tlsf_malloc(h.heap, 64);
    ASSERT_TRUE(a && b && c);
    tlsf_free(h.heap, b); // b is a free block between two in use
    ASSERT_TRUE(Sound(h.heap, h.pool));

    // A free block's second link (its back link, the word after the first) pointing
    // elsewhere: the lists no longer agree.
    void **links = static_cast<void **>(b);
    void *saved_link = links[1];
    links[1] = a;
    EXPECT_LT(tlsf_check(h.heap), 0);
    links[1] = saved_link;
    EXPECT_EQ(tlsf_check(h.heap), 0);

    // c's header word (just before it) without its "previous block is free" flag: the
    // chain of blocks no longer agrees.
    std::size_t *c_word = static_cast<std::size_t *>(c) - 1;
    std::size_t saved_word = *c_word;
    *c_word &= ~std::size_t(2);
    EXPECT_LT(tlsf_check_pool(h.pool), 0);
    *c_word = saved_word;
    EXPECT_TRUE(Sound(h.heap, h.pool));
    tlsf_free(h.heap, a);
    tlsf_free(h.heap, c);
#endif
}

TEST(CompatConventions, CreateWithPoolTooSmallForAPoolGivesAHeapWithout) {
    Arena arena(tlsf_size() + tlsf_align_size());
    tlsf_t heap = tlsf_create_with_pool(arena.start(), arena.size());
    ASSERT_EQ(heap, static_cast<void *>(arena.start()));
    EXPECT_EQ(tlsf_malloc(heap, 1), nullptr);
    EXPECT_EQ(tlsf_check(heap), 0);
    // It takes a pool later, as any heap.
    Arena more(kPoolBytes);
    pool_t pool = tlsf_add_pool(heap, more.start(), more.size());
    ASSERT_EQ(pool, static_cast<void *>(more.start()));
    void *p = tlsf_malloc(heap, 100);
    EXPECT_TRUE(more.Holds(p, 100));
    tlsf_free(heap, p);
    EXPECT_TRUE(Sound(heap, pool));
}

TEST(CompatConventions, CreateWithPoolTooSmallForTheHeapWritesNothing) {
    Arena arena(tlsf_size() - 1);
    EXPECT_EQ(tlsf_create_with_pool(arena.start(), arena.size()), nullptr);
    EXPECT_TRUE(arena.Untouched(0, arena.size()));
    EXPECT_EQ(tlsf_create_with_pool(arena.start(), 0), nullptr);
    // Misaligned memory whose alignment gap leaves too little.
    Arena odd(tlsf_size() + 1, 1);
    EXPECT_EQ(tlsf_create_with_pool(odd.start(), odd.size()), nullptr);
    EXPECT_TRUE(odd.Untouched(0, odd.size()));
}

TEST(CompatConventions, MemoryAlignedToAWordOrLessIsRoundedUp) {
    const std::size_t align = tlsf_align_size();
    for (std::size_t offset = 1; offset < align; ++offset) {
        Heap h(kPoolBytes, offset);
        const std::size_t gap = align - offset;
        ASSERT_EQ(h.heap, static_cast<void *>(h.arena.start() + gap)) << "offset " << offset;
        EXPECT_EQ(h.pool, static_cast<void *>(static_cast<char *>(h.heap) + tlsf_size()));
        EXPECT_TRUE(h.arena.Untouched(0, gap)); // the bytes before the heap stay unused
        void *p = tlsf_malloc(h.heap, 1000);
        ASSERT_NE(p, nullptr);
        EXPECT_TRUE(IsAligned(p, align));
        EXPECT_TRUE(h.arena.Holds(p, 1000));

        Arena extra(kPoolBytes, offset);
        pool_t pool = tlsf_add_pool(h.heap, extra.start(), extra.size());
        ASSERT_EQ(pool, static_cast<void *>(extra.start() + gap));
        EXPECT_TRUE(Walk(pool).Accounted() == PoolBytes(extra.size() - gap));
        tlsf_free(h.heap, p);
        EXPECT_TRUE(Sound(h.heap, h.pool));
        EXPECT_TRUE(Sound(h.heap, pool));
        tlsf_remove_pool(h.heap, pool);
    }
}

TEST(CompatConventions, CreateRefusesMisalignedMemory) {
    Arena arena(tlsf_size(), sizeof(void *));
    EXPECT_EQ(tlsf_create(arena.start()), nullptr);
    EXPECT_TRUE(arena.Untouched(0, arena.size()));
    Arena aligned(tlsf_size());
    EXPECT_EQ(tlsf_create(aligned.start()), static_cast<void *>(aligned.start()));
}

TEST(CompatConventions, NullArguments) {
    Heap h;
    Arena arena(kPoolBytes);
    EXPECT_EQ(tlsf_create(nullptr), nullptr);
    EXPECT_EQ(tlsf_create_with_pool(nullptr, kPoolBytes), nullptr);
    EXPECT_EQ(tlsf_add_pool(h.heap, nullptr, kPoolBytes), nullptr);
    EXPECT_EQ(tlsf_add_pool(nullptr, arena.start(), kPoolBytes), nullptr);
    EXPECT_TRUE(arena.Untouched(0, arena.size()));
    EXPECT_EQ(tlsf_get_pool(nullptr), nullptr);
    EXPECT_EQ(tlsf_malloc(nullptr, 10), nullptr);
    EXPECT_EQ(tlsf_memalign(nullptr, 64, 10), nullptr);
    EXPECT_EQ(tlsf_realloc(nullptr, nullptr, 10), nullptr);
    EXPECT_EQ(tlsf_block_size(nullptr), 0u);
    tlsf_destroy(nullptr);
    tlsf_free(h.heap, nullptr);
    tlsf_remove_pool(nullptr, h.pool);
    tlsf_remove_pool(h.heap, nullptr);
    Census census;
    tlsf_walk_pool(nullptr, CountBlock, &census);
    EXPECT_TRUE(census.blocks.empty());
    EXPECT_TRUE(Sound(h.heap, h.pool));
    EXPECT_EQ(Walk(h.pool).blocks.size(), 1u); // the pool is still there
}

TEST(CompatConventions, SizesAddUp) {
    const std::size_t align = tlsf_align_size();
    EXPECT_EQ(align & (align - 1), 0u);
    EXPECT_GE(align, alignof(std::max_align_t));
    EXPECT_GE(align, 2 * sizeof(void *));
    EXPECT_EQ(tlsf_size() % align, 0u);
    EXPECT_EQ(tlsf_alloc_overhead(), sizeof(std::size_t)); // one word, as mattconte's
    EXPECT_GT(tlsf_block_size_max(), std::size_t(1) << 20);

    // The smallest pool: exactly one smallest block.
    const std::size_t least = tlsf_pool_overhead() + tlsf_alloc_overhead() + tlsf_block_size_min();
    Arena control(tlsf_size());
    tlsf_t heap = tlsf_create(control.start());
    ASSERT_NE(heap, nullptr);
    Arena small(least + align);
    EXPECT_EQ(tlsf_add_pool(heap, small.start(), least - 1), nullptr);
    pool_t pool = tlsf_add_pool(heap, small.start(), least);
    ASSERT_NE(pool, nullptr);
    Census census = Walk(pool);
    ASSERT_EQ(census.blocks.size(), 1u);
    EXPECT_EQ(census.free_bytes, tlsf_block_size_min());
    EXPECT_EQ(census.Accounted(), least);
    void *p = tlsf_malloc(heap, tlsf_block_size_min());
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(tlsf_block_size(p), tlsf_block_size_min());
    EXPECT_EQ(tlsf_malloc(heap, 1), nullptr);
    tlsf_free(heap, p);
    EXPECT_TRUE(Sound(heap, pool));
    tlsf_remove_pool(heap, pool);
    EXPECT_EQ(tlsf_malloc(heap, 1), nullptr);

    // tlsf_get_pool is the address after the control structure.
    Heap h;
    EXPECT_EQ(h.pool, static_cast<void *>(static_cast<char *>(h.heap) + tlsf_size()));
    EXPECT_EQ(Walk(h.pool).Accounted(), PoolBytes(h.arena.size() - tlsf_size()));
}

#if defined(__unix__) && defined(MAP_NORESERVE)
// The largest pool: reserved address space, of which the heap touches only the ends.
TEST(CompatConventions, LargestPool) {
    const std::size_t most = tlsf_pool_overhead() + tlsf_block_size_max() - tlsf_align_size();
#ifdef COMPAT_TEST_ASAN
    GTEST_SKIP() << "AddressSanitizer would poison the whole pool's shadow";
#endif
    if (sizeof(void *) < 8 && most > (std::size_t(1) << 29)) GTEST_SKIP() << "address space";
    void *mem = mmap(nullptr, most + tlsf_align_size(), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) GTEST_SKIP() << "cannot reserve " << most << " bytes";
    Arena control(tlsf_size());
    tlsf_t heap = tlsf_create(control.start());
    EXPECT_EQ(tlsf_add_pool(heap, mem, most + tlsf_align_size()), nullptr);
    pool_t pool = tlsf_add_pool(heap, mem, most);
    ASSERT_EQ(pool, mem);
    Census census = Walk(pool);
    ASSERT_EQ(census.blocks.size(), 1u);
    EXPECT_LT(census.free_bytes, tlsf_block_size_max());
    EXPECT_EQ(census.Accounted(), most);
    tlsf_remove_pool(heap, pool);
    munmap(mem, most + tlsf_align_size());
}
#endif

TEST(CompatConventions, RemovePoolInUseKeepsIt) {
    Arena control(tlsf_size());
    tlsf_t heap = tlsf_create(control.start());
    Arena memory(kPoolBytes);
    pool_t pool = tlsf_add_pool(heap, memory.start(), memory.size());
    void *p = tlsf_malloc(heap, 100);
    ASSERT_TRUE(memory.Holds(p, 100));
    tlsf_remove_pool(heap, pool); // in use: stays
    EXPECT_EQ(Walk(pool).used_blocks, 1u);
    EXPECT_TRUE(Sound(heap, pool));
    void *q = tlsf_malloc(heap, 100);
    EXPECT_TRUE(memory.Holds(q, 100));
    tlsf_free(heap, p);
    tlsf_free(heap, q);
    tlsf_remove_pool(heap, pool);
    EXPECT_EQ(tlsf_malloc(heap, 100), nullptr);
    EXPECT_EQ(tlsf_check(heap), 0);
}

TEST(CompatConventions, WalkReportsUsedAsOneOrZero) {
    Heap h;
    void *p = tlsf_malloc(h.heap, 200);
    void *q = tlsf_memalign(h.heap, 256, 300);
    ASSERT_TRUE(p && q);
    Census census = Walk(h.pool);
    for (const Block &block : census.blocks) {
        EXPECT_TRUE(block.used == 0 || block.used == 1);
        if (block.used) {
            EXPECT_EQ(block.size, tlsf_block_size(block.ptr));
        }
    }
    EXPECT_EQ(census.used_blocks, 2u);
    // Every byte is accounted for, with one word more for q: the record of its alignment.
    EXPECT_EQ(census.Accounted() + sizeof(void *), PoolBytes(h.arena.size() - tlsf_size()));
    tlsf_free(h.heap, p);
    tlsf_free(h.heap, q);
    EXPECT_EQ(Walk(h.pool).blocks.size(), 1u);
}

// Hosted builds report misuse and abort, as mattconte's assertions do in its default build.
TEST(CompatConventionsDeathTest, DoubleFreeAborts) {
    Heap h;
    void *p = tlsf_malloc(h.heap, 100);
    tlsf_free(h.heap, p);
    EXPECT_DEATH(tlsf_free(h.heap, p), "double free");
}

} // namespace
