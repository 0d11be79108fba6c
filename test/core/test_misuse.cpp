// SPDX-License-Identifier: MIT
// Misuse of blocks and pools: every case is reported to the error handler with the right
// reason, and the heap, its statistics and its blocks are exactly as they were; nothing
// crashes. Sealed headers (TLSF_CHECKS >= 2, the default of hosted builds) catch foreign
// pointers and overflows; level 1 catches misaligned pointers and double frees.
#include "tlsf_test_support.h"

#include <cstdlib>
#include <functional>

using namespace tlsf_test;

namespace {

constexpr std::size_t kPool = 64 * 1024;
constexpr bool kSealed = TLSF_CHECKS >= 2;

// A heap with some live blocks around the ones a test abuses, so that a wrong merge or a
// wrong unlink would change something the snapshot sees.
struct Scene {
    Heap h{kPool};
    std::vector<void *> live;
    Scene() {
        for (std::size_t n : {24u, 200u, 24u, 1000u, 40u, 3000u, 24u})
            live.push_back(tlsf_malloc(h, n));
        tlsf_free(h, live[2]); // a free (or cached) block among the live ones
        live.erase(live.begin() + 2);
        for (std::size_t i = 0; i < live.size(); ++i)
            Fill(live[i], tlsf_block_size(live[i]), i + 1);
    }
    // The misuse `call` is reported once, with `reason` and `ptr`, and changes nothing (the
    // heap checks find what they found before: nothing, unless the test damaged a header).
    ::testing::AssertionResult Refuses(tlsf_error_t reason, const void *ptr,
                                       const std::function<void()> &call) {
        ::testing::AssertionResult refused = RefusedOnce(h, reason, ptr, call);
        if (!refused) return refused;
        for (std::size_t i = 0; i < live.size(); ++i)
            if (!Holds(live[i], tlsf_block_size(live[i]), i + 1))
                return ::testing::AssertionFailure() << "block " << i << " changed";
        return ::testing::AssertionSuccess();
    }
    // free, realloc and tlsf_usable_size all refuse `ptr` for `reason`.
    ::testing::AssertionResult AllRefuse(tlsf_error_t reason, void *ptr) {
        ::testing::AssertionResult r = Refuses(reason, ptr, [&] { tlsf_free(h, ptr); });
        if (!r) return r << " (free)";
        r = Refuses(reason, ptr, [&] {
            if (tlsf_realloc(h, ptr, 10) != nullptr) ADD_FAILURE() << "realloc returned a block";
        });
        if (!r) return r << " (realloc)";
        r = Refuses(reason, ptr, [&] {
            if (tlsf_usable_size(h, ptr) != 0) ADD_FAILURE() << "usable size of a bad pointer";
        });
        if (!r) return r << " (usable_size)";
        return ::testing::AssertionSuccess();
    }
    // The heap still serves and takes back blocks normally.
    void StillWorks() {
        void *p = tlsf_malloc(h, 100);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(tlsf_usable_size(h, p), tlsf_block_size(p));
        tlsf_free(h, p);
        for (void *q : live)
            tlsf_free(h, q);
        EXPECT_TRUE(h.log().events.empty());
        EXPECT_EQ(h.Errors(), 0);
        if (TLSF_STATS) {
            EXPECT_EQ(Stats(h).live_blocks, 0u);
        }
    }
};

} // namespace

TEST(Misuse, MisalignedPointer) {
    if (TLSF_CHECKS < 1) GTEST_SKIP() << "TLSF_CHECKS == 0";
    Scene s;
    EXPECT_TRUE(s.AllRefuse(TLSF_ERROR_BAD_POINTER, static_cast<char *>(s.live[1]) + 1));
    s.StillWorks();
}

TEST(Misuse, DoubleFreeOfAFreshlyFreedBlock) {
    if (TLSF_CHECKS < 1) GTEST_SKIP() << "TLSF_CHECKS == 0";
    Scene s;
    void *p = tlsf_malloc(s.h, 24);     // an exact class: with the cache, it is cached when freed
    void *big = tlsf_malloc(s.h, 5000); // never cached
    ASSERT_TRUE(p && big);
    tlsf_free(s.h, p);
    tlsf_free(s.h, big);
    EXPECT_TRUE(s.AllRefuse(TLSF_ERROR_DOUBLE_FREE, p));
    EXPECT_TRUE(s.AllRefuse(TLSF_ERROR_DOUBLE_FREE, big));
    s.StillWorks();
}

TEST(Misuse, InteriorPointer) {
    if (!kSealed) GTEST_SKIP() << "TLSF_CHECKS < 2";
    Scene s;
    char *p = static_cast<char *>(s.live[3]); // 1000 bytes
    for (std::size_t off = Align(); off + Align() <= tlsf_block_size(p); off += 7 * Align())
        EXPECT_TRUE(s.AllRefuse(TLSF_ERROR_BAD_POINTER, p + off)) << off;
    s.StillWorks();
}

TEST(Misuse, ZeroedStackBuffer) {
    if (!kSealed) GTEST_SKIP() << "TLSF_CHECKS < 2";
    Scene s;
    alignas(64) unsigned char buffer[256] = {};
    EXPECT_TRUE(s.AllRefuse(TLSF_ERROR_BAD_POINTER, buffer + 64));
    s.StillWorks();
}

TEST(Misuse, BlockOfAnotherHeap) {
    if (!kSealed) GTEST_SKIP() << "TLSF_CHECKS < 2";
    Scene s;
    Heap other(kPool);
    void *q = tlsf_malloc(other, 24);
    void *r = tlsf_malloc(other, 2000);
    ASSERT_TRUE(q && r);
    const Snapshot other_before = Take(other);
    EXPECT_TRUE(s.AllRefuse(TLSF_ERROR_BAD_POINTER, q));
    EXPECT_TRUE(s.AllRefuse(TLSF_ERROR_BAD_POINTER, r));
    EXPECT_TRUE(SameHeap(other_before, Take(other)));
    tlsf_free(other, q);
    tlsf_free(other, r);
    EXPECT_TRUE(other.log().events.empty());
    s.StillWorks();
}

// Under valgrind the C library's malloc is memcheck's, whose red zone makes the header
// read an error of its own (the synthetic chunk below runs there too).
static bool UnderValgrind() {
    const char *preload = std::getenv("LD_PRELOAD");
    return preload != nullptr && std::strstr(preload, "vgpreload") != nullptr;
}

TEST(Misuse, PointerFromTheCLibrary) {
    if (!kSealed) GTEST_SKIP() << "TLSF_CHECKS < 2";
    if (kAsan || UnderValgrind()) GTEST_SKIP() << "the tool forbids reading libc's header";
    Scene s;
    for (std::size_t n : {16u, 64u, 1000u}) {
        void *m = std::malloc(n);
        ASSERT_NE(m, nullptr);
        // glibc's chunk size word is odd (its "previous in use" bit): not a double free.
        EXPECT_TRUE(s.AllRefuse(TLSF_ERROR_BAD_POINTER, m)) << n;
        std::free(m);
    }
    s.StillWorks();
}

// The same without the C library: a glibc-style chunk (an odd size word, its "previous in
// use" bit) is a bad pointer, not a double free.
TEST(Misuse, GlibcStyleChunk) {
    if (!kSealed) GTEST_SKIP() << "TLSF_CHECKS < 2";
    Scene s;
    alignas(64) std::size_t chunk[16] = {};
    for (int i = 0; i < 8; ++i)
        chunk[i] = 0x21; // glibc's size word of a 32-byte chunk after one in use
    EXPECT_TRUE(s.AllRefuse(TLSF_ERROR_BAD_POINTER, chunk + 8));
    s.StillWorks();
}

// A write of a few bytes past the end of a block reaches the next block's header; the
// free of the block reads that header (to merge, or before it caches the block) and
// reports a corrupt block instead of following it.
TEST(Misuse, OverflowIntoTheNextHeaderThenFree) {
    if (!kSealed) GTEST_SKIP() << "TLSF_CHECKS < 2";
    if (kAsan) GTEST_SKIP() << "ASan reports the overflow itself";
    for (std::size_t n : {24u, 100u, 5000u}) { // cached, and list paths
        Scene s;
        void *hole = tlsf_malloc(s.h, 24); // takes the scene's freed block: p and after are
        unsigned char *p = static_cast<unsigned char *>(tlsf_malloc(s.h, n)); // cut in turn
        void *after = tlsf_malloc(s.h, 24);
        ASSERT_TRUE(hole && p && after);
        ASSERT_EQ(static_cast<void *>(p + tlsf_block_size(p) + tlsf_alloc_overhead()), after);
        s.live.push_back(hole);
        Fill(hole, tlsf_block_size(hole), s.live.size());
        unsigned char *past = p + tlsf_block_size(p);
        unsigned char saved[3];
        std::memcpy(saved, past, sizeof saved);
        std::memset(past, 'A', sizeof saved);
        EXPECT_TRUE(s.Refuses(TLSF_ERROR_CORRUPT_BLOCK, p, [&] { tlsf_free(s.h, p); })) << n;
        EXPECT_TRUE(s.Refuses(TLSF_ERROR_CORRUPT_BLOCK, p, [&] {
            if (tlsf_realloc(s.h, p, 2 * n) != nullptr) ADD_FAILURE();
        })) << n;
        // The damaged block itself is not a block any more.
        EXPECT_TRUE(s.Refuses(TLSF_ERROR_BAD_POINTER, after, [&] { tlsf_free(s.h, after); })) << n;
        std::memcpy(past, saved, sizeof saved);
        tlsf_free(s.h, p);
        tlsf_free(s.h, after);
        s.StillWorks();
    }
}

// Pool functions never abort on their own: a bad argument is a NULL result (or the pool
// stays), and an installed handler hears of it.
TEST(Misuse, PoolArguments) {
    Scene s;
    Region memory(16 * 1024, 64);
    const Snapshot before = Take(s.h);
    auto refused_pool = [&](void *mem, std::size_t bytes) {
        s.h.log().Clear();
        EXPECT_EQ(tlsf_add_pool(s.h, mem, bytes), nullptr);
        ASSERT_EQ(s.h.log().events.size(), 1u);
        EXPECT_EQ(s.h.log().events[0].reason, TLSF_ERROR_BAD_POOL);
    };
    refused_pool(nullptr, 4096);
    refused_pool(memory.data() + 1, 4096);
    refused_pool(memory.data(), 8);
    EXPECT_EQ(tlsf_add_pool(nullptr, memory.data(), 4096), nullptr);
    EXPECT_EQ(tlsf_create_with_pool(memory.data() + 1, memory.size() - 64), nullptr);
    EXPECT_EQ(tlsf_create_with_pool(nullptr, memory.size()), nullptr);
    EXPECT_TRUE(SameHeap(before, Take(s.h)));
    s.h.log().Clear();
    tlsf_remove_pool(s.h, s.h.pools()[0]); // holds the live blocks
    ASSERT_EQ(s.h.log().events.size(), 1u);
    EXPECT_EQ(s.h.log().events[0].reason, TLSF_ERROR_POOL_IN_USE);
    EXPECT_EQ(Stats(s.h).pool_count, 1u);
    s.h.log().Clear();
    s.StillWorks();
}
