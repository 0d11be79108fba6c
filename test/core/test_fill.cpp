// SPDX-License-Identifier: MIT
// The fill patterns (TLSF_FILL, tlsf_config.h): fresh blocks hold TLSF_FILL_ALLOC_BYTE, freed
// ones TLSF_FILL_FREE_BYTE except the words the heap keeps in a free block, calloc still
// returns zeros. Without TLSF_FILL the heap writes nothing into the user's bytes.
// CI builds one configuration with TLSF_FILL=1 (scripts/test-all.sh, asan-ubsan-checked).
#include "tlsf_test_support.h"

#include <cstddef>
#include <cstring>
#include <vector>

using namespace tlsf_test;

namespace {

std::size_t SmallPool() {
    return std::min<std::size_t>(std::size_t(1) << 16, tlsf_block_size_max() / 4);
}

} // namespace

#if TLSF_FILL

namespace {
// The free block of the pool that starts at `ptr`'s block end, as the walk reports it.
WalkedBlock FreeBlockAfter(pool_t pool, const void *ptr) {
    std::vector<WalkedBlock> blocks = Walk(pool);
    for (std::size_t i = 0; i + 1 < blocks.size(); ++i)
        if (blocks[i].ptr == ptr) return blocks[i + 1];
    return {nullptr, 0, true};
}

} // namespace

TEST(Fill, PatternsAreDistinct) {
    EXPECT_NE(TLSF_FILL_ALLOC_BYTE, TLSF_FILL_FREE_BYTE);
    EXPECT_NE(TLSF_FILL_ALLOC_BYTE, 0);
    EXPECT_NE(TLSF_FILL_FREE_BYTE, 0);
}

TEST(Fill, FreshBlocksHoldTheAllocPattern) {
    Heap h;
    ASSERT_NE(h.AddPool(SmallPool(), 0, 0x00), nullptr); // pool memory starts as zeros
    for (int round = 0; round < 2; ++round) {            // round 1 reuses freed memory
        std::vector<void *> blocks;
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(10), std::size_t(100),
                              std::size_t(1000)}) {
            void *p = tlsf_malloc(h, n);
            ASSERT_NE(p, nullptr);
            EXPECT_TRUE(BytesAre(p, 0, tlsf_block_size(p), TLSF_FILL_ALLOC_BYTE)) << n;
            blocks.push_back(p);
        }
        void *a = tlsf_memalign(h, 256, 100);
        ASSERT_NE(a, nullptr);
        EXPECT_TRUE(BytesAre(a, 0, tlsf_block_size(a), TLSF_FILL_ALLOC_BYTE));
        blocks.push_back(a);
        for (void *p : blocks) {
            std::memset(p, 0, tlsf_block_size(p));
            tlsf_free(h, p);
        }
        EXPECT_EQ(h.Errors(), 0);
    }
}

TEST(Fill, CallocStillReturnsZeros) {
    Heap h(SmallPool());
    void *p = tlsf_malloc(h, 200);
    ASSERT_NE(p, nullptr);
    tlsf_free(h, p); // the next block reuses this memory, now full of the free pattern
    void *z = tlsf_calloc(h, 20, 10);
    ASSERT_NE(z, nullptr);
    EXPECT_TRUE(BytesAre(z, 0, 200, 0));
    tlsf_free(h, z);
}

TEST(Fill, FreedBlocksHoldTheFreePatternBeyondTheHeapWords) {
    Heap h(SmallPool());
    const std::size_t w = Word();
    void *before = tlsf_malloc(h, 300);
    void *p = tlsf_malloc(h, 300);
    void *after = tlsf_malloc(h, 16); // in use: p's last word becomes its back-link
    ASSERT_TRUE(before && p && after);
    const std::size_t usable = tlsf_block_size(p), usable_before = tlsf_block_size(before);
    std::memset(p, 0x11, usable);
    std::memset(before, 0x22, usable_before);
    tlsf_free(h, p);
    // The first two words are p's list links, the last one the next block's back-link.
    EXPECT_TRUE(BytesAre(p, 2 * w, usable - w, TLSF_FILL_FREE_BYTE));
    // Freed into a free neighbour: its bytes are filled too (the merged block's links sit
    // at its start, p's old header in its last words).
    tlsf_free(h, before);
    EXPECT_TRUE(BytesAre(before, 2 * w, usable_before - w, TLSF_FILL_FREE_BYTE));
    EXPECT_EQ(h.Errors(), 0);
    tlsf_free(h, after);
}

TEST(Fill, ReallocGrowingInPlaceFillsOnlyTheAddedBytes) {
    Heap h(SmallPool());
    void *p = tlsf_malloc(h, 64); // the first block; a large free block follows
    ASSERT_NE(p, nullptr);
    const std::size_t old_usable = tlsf_block_size(p);
    std::memset(p, 0x11, old_usable);
    void *q = tlsf_realloc(h, p, 1000);
    ASSERT_EQ(q, p) << "expected to grow in place";
    EXPECT_TRUE(BytesAre(q, 0, old_usable, 0x11));
    EXPECT_TRUE(BytesAre(q, old_usable, tlsf_block_size(q), TLSF_FILL_ALLOC_BYTE));
    EXPECT_EQ(h.Errors(), 0);
    tlsf_free(h, q);
}

TEST(Fill, ReallocShrinkingInPlaceFillsTheBytesGivenBack) {
    Heap h(SmallPool());
    const std::size_t w = Word();
    void *p = tlsf_malloc(h, 1000);
    void *guard = tlsf_malloc(h, 16); // keeps the freed tail from merging
    ASSERT_TRUE(p && guard);
    std::memset(p, 0x11, tlsf_block_size(p));
    void *q = tlsf_realloc(h, p, 100);
    ASSERT_EQ(q, p);
    EXPECT_TRUE(BytesAre(q, 0, tlsf_block_size(q), 0x11)); // what the block keeps
    WalkedBlock tail = FreeBlockAfter(h.pools()[0], q);
    ASSERT_NE(tail.ptr, nullptr);
    ASSERT_FALSE(tail.used);
    // The tail's links and its last word (the guard's back-link) are the heap's.
    EXPECT_TRUE(BytesAre(tail.ptr, 2 * w, tail.size - w, TLSF_FILL_FREE_BYTE));
    EXPECT_EQ(h.Errors(), 0);
    tlsf_free(h, q);
    tlsf_free(h, guard);
}

#else // !TLSF_FILL

// Off (the default): the heap writes nothing into the bytes it hands out beyond the two
// list links of the free block it came from.
TEST(Fill, OffLeavesTheUsersBytesAlone) {
    const std::size_t w = Word();
    Heap h;
    ASSERT_NE(h.AddPool(SmallPool(), 0, 0x5A), nullptr);
    void *p = tlsf_malloc(h, 500);
    void *guard = tlsf_malloc(h, 16);
    ASSERT_TRUE(p && guard);
    const std::size_t usable = tlsf_block_size(p);
    EXPECT_TRUE(BytesAre(p, 2 * w, usable - w, 0x5A));
    std::memset(p, 0x11, usable);
    tlsf_free(h, p);
    EXPECT_TRUE(BytesAre(p, 2 * w, usable - w, 0x11));
    void *again = tlsf_malloc(h, 500);
    ASSERT_EQ(again, p);
    EXPECT_TRUE(BytesAre(again, 2 * w, usable - w, 0x11));
    tlsf_free(h, again);
    tlsf_free(h, guard);
}

#endif
