// SPDX-License-Identifier: MIT
// Misuse through the C++ layer, in the build users get (hosted: sealed headers,
// TLSF_CHECKS=2): a pointer the heap never gave out, handed to global operator delete,
// to tlsf::allocator::deallocate or to tlsf::memory_resource, is reported with its reason
// and stops the program (the layer's handler aborts: memory can no longer be trusted); with
// a handler of the program's own, the heap is left exactly as it was.
#include <tlsf/global_new.hpp> // this program's global new/delete are TLSF's

#include <tlsf/tlsf.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <new>

namespace {

#if TLSF_CHECKS >= 2

TEST(MisuseDeathTest, GlobalDeleteOfAStackPointerIsABadPointer) {
    EXPECT_DEATH(
        {
            alignas(64) unsigned char buffer[256] = {};
            ::operator delete(buffer + 64);
        },
        "bad pointer");
}

TEST(MisuseDeathTest, GlobalDeleteOfAMallocPointerIsABadPointer) {
    void *from_malloc = std::malloc(64);
    ASSERT_NE(from_malloc, nullptr);
    EXPECT_DEATH(::operator delete(from_malloc), "bad pointer");
    std::free(from_malloc);
}

TEST(MisuseDeathTest, GlobalDeleteOfAnInteriorPointerIsABadPointer) {
    auto *block = static_cast<unsigned char *>(::operator new(512));
    EXPECT_DEATH(::operator delete(block + 64), "bad pointer");
    ::operator delete(block);
}

TEST(MisuseDeathTest, AllocatorDeallocateOfAForeignPointerIsABadPointer) {
    auto heap = std::make_unique<tlsf::static_heap<64 * 1024>>();
    tlsf::allocator<int> alloc(*heap);
    int *other = tlsf::allocator<int>().allocate(4); // the default heap's, not this one's
    EXPECT_DEATH(alloc.deallocate(other, 4), "bad pointer");
    tlsf::allocator<int>().deallocate(other, 4);
}

TEST(MisuseDeathTest, MemoryResourceDeallocateOfAForeignPointerIsABadPointer) {
    auto heap = std::make_unique<tlsf::static_heap<64 * 1024>>();
    tlsf::memory_resource resource(*heap);
    alignas(64) static unsigned char outside[256];
    EXPECT_DEATH(resource.deallocate(outside + 64, 64, alignof(std::max_align_t)), "bad pointer");
}

// With a handler of its own the program hears the reason and goes on; nothing changed.
TEST(Misuse, AHandlerOfYourOwnHearsAndTheHeapIsUnchanged) {
    auto heap = std::make_unique<tlsf::static_heap<64 * 1024>>();
    static tlsf_error_t heard;
    heard = TLSF_ERROR_NONE;
    heap->set_error_handler(
        [](tlsf_t, tlsf_error_t reason, const void *, void *) { heard = reason; }, nullptr);
    void *kept = heap->malloc(100);
    ASSERT_NE(kept, nullptr);
    const tlsf::heap_stats before = heap->stats();
    alignas(64) unsigned char buffer[128] = {};
    heap->free(buffer + 64);
    EXPECT_EQ(heard, TLSF_ERROR_BAD_POINTER);
    heard = TLSF_ERROR_NONE;
    EXPECT_EQ(heap->usable_size(buffer + 64), 0u);
    EXPECT_EQ(heard, TLSF_ERROR_BAD_POINTER);
    heap->free(kept);
    heard = TLSF_ERROR_NONE;
    heap->free(kept);
    EXPECT_EQ(heard, TLSF_ERROR_DOUBLE_FREE);
    const tlsf::heap_stats after = heap->stats();
    EXPECT_EQ(after.live_blocks, before.live_blocks - 1);
    EXPECT_TRUE(heap->check());
}

#else

TEST(Misuse, SealedHeadersAreOff) {
    GTEST_SKIP() << "TLSF_CHECKS < 2: foreign pointers are not caught in this build";
}

#endif

} // namespace
