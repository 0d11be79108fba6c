// SPDX-License-Identifier: MIT
// The C++ layer with per-thread default heaps (TLSF_CPP_DEFAULT_HEAP_PER_THREAD=1, CMake
// target tlsf::cpp_thread_heaps): every form of the global operator new, the default
// tlsf::allocator and the default tlsf::memory_resource allocate from the thread heaps of
// the malloc shim (counted by tlsfm_get_info), the new_handler loop and the nothrow forms
// behave as the standard requires, explicit heaps are unaffected, and blocks outlive the
// thread that allocated them. The thread stress is test/threads/thread_heaps_stress.cpp.
#include <tlsf/global_new.hpp>
#include <tlsf/tlsf.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory_resource>
#include <new>
#include <thread>
#include <vector>

static_assert(TLSF_CPP_DEFAULT_HEAP_PER_THREAD == 1, "built with tlsf::cpp_thread_heaps");

namespace {

std::size_t live_blocks() {
    tlsfm_info info{};
    tlsfm_get_info(&info);
    return info.live_blocks;
}

bool aligned_to(const void *p, std::size_t align) {
    return reinterpret_cast<std::uintptr_t>(p) % align == 0;
}

struct alignas(128) wide {
    unsigned char bytes[128];
};

// Larger than any system will map: every heap must refuse it.
constexpr std::size_t kHuge = std::numeric_limits<std::size_t>::max() / 2;

TEST(ThreadHeaps, EveryNewFormAllocatesFromTheThreadHeaps) {
    const std::size_t before = live_blocks();
    void *plain = ::operator new(100);
    void *array = ::operator new[](100);
    void *nothrow = ::operator new(100, std::nothrow);
    void *aligned = ::operator new (100, std::align_val_t{256});
    void *aligned_nothrow = ::operator new[](100, std::align_val_t{512}, std::nothrow);
    EXPECT_EQ(live_blocks(), before + 5);
    for (void *p : {plain, array, nothrow, aligned, aligned_nothrow}) {
        ASSERT_NE(p, nullptr);
        EXPECT_GE(tlsf::thread_heaps_usable_size(p), 100u);
        EXPECT_TRUE(aligned_to(p, __STDCPP_DEFAULT_NEW_ALIGNMENT__));
    }
    EXPECT_TRUE(aligned_to(aligned, 256));
    EXPECT_TRUE(aligned_to(aligned_nothrow, 512));
    ::operator delete(plain);
    ::operator delete[](array, std::size_t{100});
    ::operator delete(nothrow, std::nothrow);
    ::operator delete (aligned, std::size_t{100}, std::align_val_t{256});
    ::operator delete[](aligned_nothrow, std::align_val_t{512});
    EXPECT_EQ(live_blocks(), before);
    EXPECT_EQ(tlsfm_check(), 0);
}

TEST(ThreadHeaps, NewExpressionsOfOverAlignedTypes) {
    const std::size_t before = live_blocks();
    auto *one = new wide;
    auto *many = new wide[3];
    EXPECT_TRUE(aligned_to(one, alignof(wide)) && aligned_to(many, alignof(wide)));
    EXPECT_EQ(live_blocks(), before + 2);
    delete one;
    delete[] many;
    EXPECT_EQ(live_blocks(), before);
}

TEST(ThreadHeaps, NewOfZeroBytesIsUniqueAndDeleteOfNullDoesNothing) {
    void *a = ::operator new(0);
    void *b = ::operator new(0);
    EXPECT_NE(a, nullptr);
    EXPECT_NE(a, b);
    ::operator delete(a);
    ::operator delete(b);
    const std::size_t before = live_blocks();
    ::operator delete(nullptr);
    delete static_cast<int *>(nullptr);
    EXPECT_EQ(live_blocks(), before);
}

TEST(ThreadHeaps, NothrowFormsReturnNullWhenTheSystemRefuses) {
    EXPECT_EQ(::operator new(kHuge, std::nothrow), nullptr);
    EXPECT_EQ(::operator new[](kHuge, std::align_val_t{64}, std::nothrow), nullptr);
}

int handler_calls = 0;
void give_up_handler() {
    ++handler_calls;
    std::set_new_handler(nullptr); // the next failure throws
}

TEST(ThreadHeaps, ThrowingFormsRunTheNewHandlerThenThrow) {
    handler_calls = 0;
    std::set_new_handler(&give_up_handler);
    EXPECT_THROW((void)::operator new(kHuge), std::bad_alloc);
    EXPECT_EQ(handler_calls, 1);
    EXPECT_THROW((void)::operator new (kHuge, std::align_val_t{64}), std::bad_alloc);
}

TEST(ThreadHeaps, DefaultAllocatorAndResourceUseTheThreadHeaps) {
    const std::size_t before = live_blocks();
    tlsf::allocator<int> a;
    EXPECT_TRUE(a.uses_thread_heaps());
    EXPECT_EQ(a.heap_or_null(), nullptr);
    EXPECT_TRUE(a == tlsf::allocator<long>());
    {
        tlsf::vector<int> numbers{1, 2, 3};
        EXPECT_EQ(live_blocks(), before + 1);
    }
    tlsf::memory_resource resource;
    EXPECT_TRUE(resource.uses_thread_heaps());
    EXPECT_TRUE(resource.is_equal(*tlsf::default_resource()));
    void *block = resource.allocate(40, 1024);
    EXPECT_TRUE(aligned_to(block, 1024));
    EXPECT_EQ(live_blocks(), before + 1);
    resource.deallocate(block, 40, 1024);
    EXPECT_THROW((void)resource.allocate(kHuge, 8), std::bad_alloc);
    EXPECT_THROW((void)a.allocate(kHuge / sizeof(int)), std::bad_alloc);
    EXPECT_EQ(live_blocks(), before);
}

TEST(ThreadHeaps, ExplicitHeapsAreUnaffected) {
    tlsf::static_heap<64 * 1024> own;
    tlsf::allocator<int> on_own(own);
    EXPECT_FALSE(on_own.uses_thread_heaps());
    EXPECT_FALSE(on_own == tlsf::allocator<int>());
    tlsf::vector<int> numbers(on_own);
    numbers.assign(100, 7);
    EXPECT_TRUE(own.contains(numbers.data()));
    // The single default heap still exists, as an ordinary locked heap.
    tlsf::allocator<int> on_default(tlsf::default_heap());
    EXPECT_EQ(&on_default.get_heap(), &tlsf::default_heap());
    int *p = on_default.allocate(4);
    EXPECT_TRUE(tlsf::default_heap().contains(p));
    on_default.deallocate(p, 4);
}

TEST(ThreadHeaps, BlocksOutliveTheirThreadAndAreFreedElsewhere) {
    std::vector<int *> made(64);
    std::thread worker([&] {
        for (std::size_t i = 0; i < made.size(); ++i)
            made[i] = new int(static_cast<int>(i));
    });
    worker.join();
    // The check takes back frees still queued for this thread (std::thread's own state,
    // freed on the worker), which the live-block count includes until then.
    ASSERT_EQ(tlsfm_check(), 0);
    const std::size_t after_exit = live_blocks();
    bool intact = true;
    for (std::size_t i = 0; i < made.size(); ++i) {
        intact = intact && *made[i] == static_cast<int>(i);
        delete made[i]; // into the exited thread's heap
    }
    EXPECT_TRUE(intact);
    ASSERT_EQ(tlsfm_check(), 0);
    EXPECT_EQ(live_blocks(), after_exit - made.size());
}

} // namespace
