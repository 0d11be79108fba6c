// SPDX-License-Identifier: MIT
// page_heap_test.cpp - the design study's allocator does what its header says: blocks that
// do not overlap, pages given back, and the misuse it claims to refuse refused.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "page_heap.h"

namespace {

class PageHeap : public ::testing::Test {
  protected:
    static constexpr std::size_t kBytes = std::size_t{4} << 20;
    void SetUp() override {
        heap = page_heap_create(memory.data(), kBytes);
        ASSERT_NE(heap, nullptr);
    }
    void TearDown() override { page_heap_destroy(heap); }

    std::vector<std::max_align_t> memory =
        std::vector<std::max_align_t>(kBytes / sizeof(std::max_align_t));
    page_heap *heap = nullptr;
};

TEST_F(PageHeap, BlocksOfEverySmallSizeAreAlignedAndDisjoint) {
    std::vector<unsigned char *> blocks;
    std::vector<std::size_t> sizes;
    for (std::size_t round = 0; round < 8; ++round) {
        for (std::size_t bytes = 0; bytes <= PAGE_HEAP_SMALL_MAX + 64; bytes += 8) {
            auto *p = static_cast<unsigned char *>(page_heap_malloc(heap, bytes));
            ASSERT_NE(p, nullptr) << bytes;
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 16, 0u);
            std::memset(p, static_cast<int>(blocks.size() & 0xFF), bytes);
            blocks.push_back(p);
            sizes.push_back(bytes);
        }
    }
    for (std::size_t i = 0; i < blocks.size(); ++i)
        for (std::size_t k = 0; k < sizes[i]; ++k)
            ASSERT_EQ(blocks[i][k], static_cast<unsigned char>(i & 0xFF)) << i << " " << k;
    for (unsigned char *p : blocks)
        page_heap_free(heap, p);
    EXPECT_EQ(page_heap_refusals(heap), 0u);
}

TEST_F(PageHeap, EmptiedPagesGoBackSoThatALargeBlockFitsAgain) {
    std::vector<void *> blocks;
    for (int i = 0; i < 5000; ++i) // about 1.7 MiB
        blocks.push_back(page_heap_malloc(heap, 48 + static_cast<std::size_t>(i % 7) * 100));
    for (void *p : blocks)
        ASSERT_NE(p, nullptr);
    for (void *p : blocks)
        page_heap_free(heap, p);
    // At most one page per class stays; the rest of the pool is one free block again.
    void *large = page_heap_malloc(heap, std::size_t{3} << 20);
    EXPECT_NE(large, nullptr);
    page_heap_free(heap, large);
    EXPECT_EQ(page_heap_refusals(heap), 0u);
}

TEST_F(PageHeap, AnInteriorPointerIsRefusedAndTheBlockStaysLive) {
    auto *p = static_cast<unsigned char *>(page_heap_malloc(heap, 64));
    ASSERT_NE(p, nullptr);
    page_heap_free(heap, p + 16);
    EXPECT_EQ(page_heap_refusals(heap), 1u);
    // Had the interior pointer been taken, the next request of the class would get it.
    void *q = page_heap_malloc(heap, 64);
    EXPECT_NE(q, static_cast<void *>(p + 16));
    EXPECT_NE(q, static_cast<void *>(p));
    page_heap_free(heap, q);
    page_heap_free(heap, p);
    EXPECT_EQ(page_heap_refusals(heap), 1u);
}

TEST_F(PageHeap, ADoubleFreeIsRefusedAndTheBlockIsHandedOutOnce) {
    void *p = page_heap_malloc(heap, 100);
    ASSERT_NE(p, nullptr);
    page_heap_free(heap, p);
    page_heap_free(heap, p);
    EXPECT_EQ(page_heap_refusals(heap), 1u);
    void *a = page_heap_malloc(heap, 100);
    void *b = page_heap_malloc(heap, 100);
    EXPECT_NE(a, b);
    page_heap_free(heap, a);
    page_heap_free(heap, b);
    EXPECT_EQ(page_heap_refusals(heap), 1u);
}

TEST_F(PageHeap, APointerOffTheGranulesOrToAnObjectNeverHandedOutIsRefused) {
    // 64 bytes and the guard word take a span of 80: the first object of a new page, and
    // the next one never handed out yet.
    auto *p = static_cast<unsigned char *>(page_heap_malloc(heap, 64));
    ASSERT_NE(p, nullptr);
    page_heap_free(heap, p + 8);
    page_heap_free(heap, p + 80);
    EXPECT_EQ(page_heap_refusals(heap), 2u);
    void *q = page_heap_malloc(heap, 64);
    EXPECT_EQ(q, static_cast<void *>(p + 80));
    page_heap_free(heap, q);
    page_heap_free(heap, p);
    EXPECT_EQ(page_heap_refusals(heap), 2u);
}

#if PAGE_HEAP_LISTS
TEST_F(PageHeap, AWriteAfterFreeIntoALinkIsRefusedByThePop) {
    auto *a = static_cast<unsigned char *>(page_heap_malloc(heap, 40));
    auto *b = static_cast<unsigned char *>(page_heap_malloc(heap, 40));
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    page_heap_free(heap, a);
    page_heap_free(heap, b); // b heads the free list; its first word links to a
    b[3] ^= 0x10;
    void *c = page_heap_malloc(heap, 40);
    EXPECT_EQ(page_heap_refusals(heap), 1u);
    // The damaged list is dropped: neither of its objects is handed out again.
    EXPECT_NE(c, static_cast<void *>(a));
    EXPECT_NE(c, static_cast<void *>(b));
    page_heap_free(heap, c);
    EXPECT_EQ(page_heap_refusals(heap), 1u);
}
#endif

TEST_F(PageHeap, ForeignPointersAreRefusedAndNullIsIgnored) {
    int on_stack = 0;
    std::vector<int> elsewhere(16);
    page_heap_free(heap, &on_stack);
    page_heap_free(heap, elsewhere.data());
    page_heap_free(heap, nullptr);
    EXPECT_EQ(page_heap_refusals(heap), 2u);
}

TEST_F(PageHeap, AWriteIntoTheGuardWordIsFoundOnFree) {
    // 24 bytes take a span of 32: 24 usable, the guard word after them.
    auto *p = static_cast<unsigned char *>(page_heap_malloc(heap, 24));
    ASSERT_NE(p, nullptr);
    p[24] ^= 1;
    page_heap_free(heap, p);
    EXPECT_EQ(page_heap_refusals(heap), 1u);
}

TEST_F(PageHeap, RandomSequencesKeepEveryBlocksBytes) {
    std::mt19937 gen(7);
    std::uniform_int_distribution<std::size_t> size(1, 2048), slot(0, 499);
    std::vector<unsigned char *> blocks(500, nullptr);
    std::vector<std::size_t> sizes(500, 0);
    for (int op = 0; op < 50000; ++op) {
        const std::size_t i = slot(gen);
        if (blocks[i] != nullptr) {
            for (std::size_t k = 0; k < sizes[i]; ++k)
                ASSERT_EQ(blocks[i][k], static_cast<unsigned char>(i)) << op;
            page_heap_free(heap, blocks[i]);
        }
        sizes[i] = size(gen);
        blocks[i] = static_cast<unsigned char *>(page_heap_malloc(heap, sizes[i]));
        ASSERT_NE(blocks[i], nullptr);
        std::memset(blocks[i], static_cast<int>(i), sizes[i]);
    }
    for (unsigned char *p : blocks)
        page_heap_free(heap, p);
    EXPECT_EQ(page_heap_refusals(heap), 0u);
}

} // namespace
