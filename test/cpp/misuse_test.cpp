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
#include <memory_resource>
#include <new>
#include <string>

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

#endif

// TLSF_CPP_SIZE_CHECKS is on in this program (CMakeLists.txt): a deallocation with a size
// the block cannot have been allocated for is caught, through every layer.
static_assert(TLSF_CPP_SIZE_CHECKS == 1, "this program is built with TLSF_CPP_SIZE_CHECKS=1");

TEST(MisuseDeathTest, AllocatorDeallocateWithTheWrongCountIsReported) {
    auto heap = std::make_unique<tlsf::static_heap<64 * 1024>>();
    tlsf::allocator<double> alloc(*heap);
    double *values = alloc.allocate(100);
    EXPECT_DEATH(alloc.deallocate(values, 1000), "deallocation size mismatch");
    EXPECT_DEATH(alloc.deallocate(values, 1), "deallocation size mismatch");
    alloc.deallocate(values, 100);
    // On the default heap too.
    tlsf::allocator<double> on_default;
    values = on_default.allocate(100);
    EXPECT_DEATH(on_default.deallocate(values, 300), "deallocation size mismatch");
    on_default.deallocate(values, 100);
}

TEST(MisuseDeathTest, ResourceDeallocateWithTheWrongSizeIsReported) {
    auto heap = std::make_unique<tlsf::static_heap<64 * 1024>>();
    tlsf::memory_resource resource(*heap);
    void *block = resource.allocate(512, 64);
    EXPECT_DEATH(resource.deallocate(block, 4096, 64), "deallocation size mismatch");
    resource.deallocate(block, 512, 64);
    tlsf::heap_resource arena;
    block = arena.allocate(512);
    EXPECT_DEATH(arena.deallocate(block, 8), "deallocation size mismatch");
    arena.deallocate(block, 512);
}

// Correct sizes pass, whatever the containers ask for.
TEST(Misuse, ContainersDeallocateWithTheirSizes) {
    auto heap = std::make_unique<tlsf::static_heap<1024 * 1024>>();
    {
        tlsf::vector<tlsf::string> lines(*heap);
        for (int i = 0; i < 500; ++i)
            lines.emplace_back(static_cast<std::size_t>(i % 200), 'x');
        tlsf::map<int, tlsf::list<int>> table(*heap);
        for (int i = 0; i < 300; ++i)
            table[i % 37].push_back(i);
        tlsf::unordered_map<int, int> hashed(*heap);
        for (int i = 0; i < 1000; ++i)
            hashed.emplace(i, i);
        tlsf::heap_resource arena;
        std::pmr::vector<std::pmr::string> pmr_lines(&arena);
        for (int i = 0; i < 500; ++i)
            pmr_lines.emplace_back(static_cast<std::size_t>(i % 200), 'y');
    }
    EXPECT_TRUE(heap->check());
}

#if TLSF_CHECKS < 2

TEST(Misuse, SealedHeadersAreOff) {
    GTEST_SKIP() << "TLSF_CHECKS < 2: foreign pointers are not caught in this build";
}

#endif

} // namespace
