// SPDX-License-Identifier: MIT
// The paths of <tlsf/global_new.hpp> that the configuration selects, beyond what
// global_new_test.cpp (a fixed heap, 16-byte new alignment) reaches. Built twice (see
// CMakeLists.txt):
//
//   tlsf_cpp_global_new_grow_test         the hosted default heap: no memory until first
//                                         use, grows from the OS, std::mutex. The inline
//                                         attempt of operator new finds no block, the
//                                         heap grows, and the request succeeds without
//                                         the new_handler - counting one failure, not two.
//   tlsf_cpp_global_new_overaligned_test  compiled with a default new alignment of 64
//                                         (-faligned-new=64), larger than TLSF's: the
//                                         plain forms must go through memalign, and the
//                                         new_handler loop, std::bad_alloc and nothrow
//                                         nullptr must still hold on that path.
//
// Both: the default heap is usable from static constructors, and threads sharing it
// through new and delete leave it consistent.
#include <tlsf/global_new.hpp>

#include <tlsf/default_heap.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {

tlsf::heap &heap() {
    return tlsf::default_heap();
}

using support::keep;
using support::sink;

using support::aligned;

// Allocated by a static constructor, before main and before any test touched the heap.
void *const allocated_before_main = ::operator new(24);

TEST(GlobalNewPaths, TheDefaultHeapServesStaticConstructors) {
    EXPECT_TRUE(heap().contains(allocated_before_main));
    EXPECT_TRUE(aligned(allocated_before_main, __STDCPP_DEFAULT_NEW_ALIGNMENT__));
    // One object at one address: what the inline paths use is what default_heap() gives.
    EXPECT_EQ(&tlsf::detail::default_heap_object(), &heap());
}

int handler_calls = 0;

#if TLSF_DEFAULT_HEAP_GROW

TEST(GlobalNewPaths, GrowsWhenTheInlineAttemptFindsNoBlock) {
    static_assert(tlsf::detail::plain_new_is_malloc);
    handler_calls = 0;
    std::set_new_handler([] { ++handler_calls; });
    struct form {
        const char *name;
        void *(*allocate)(std::size_t);
    };
    const form forms[] = {
        {"new", [](std::size_t n) { return ::operator new(n); }},
        {"new[]", [](std::size_t n) { return ::operator new[](n); }},
        {"new nothrow", [](std::size_t n) { return ::operator new(n, std::nothrow); }},
        {"new[] nothrow", [](std::size_t n) { return ::operator new[](n, std::nothrow); }},
    };
    for (const form &f : forms) {
        SCOPED_TRACE(f.name);
        keep(::operator new(1)); // the heap has memory: the inline attempt searches it
        const tlsf::heap_stats before = heap().stats();
        const std::size_t bytes = heap().largest_allocatable() + 1024 * 1024;
        void *block = f.allocate(bytes);
        const tlsf::heap_stats after = heap().stats();
        ASSERT_NE(block, nullptr);
        EXPECT_TRUE(heap().contains(block));
        EXPECT_GE(heap().usable_size(block), bytes);
        EXPECT_GT(after.pool_count, before.pool_count);
        if constexpr (support::stats) {
            // Served after growing: not a failure (a second search would show as one).
            EXPECT_EQ(after.failed_count, before.failed_count);
            EXPECT_EQ(after.alloc_count - before.alloc_count, 1u);
        }
        ::operator delete(block);
        ::operator delete(sink);
    }
    EXPECT_EQ(handler_calls, 0);
    std::set_new_handler(nullptr);
    EXPECT_TRUE(heap().check());
}

#else // a fixed heap and a default new alignment above TLSF's

constexpr std::size_t kNewAlignment = __STDCPP_DEFAULT_NEW_ALIGNMENT__;
static_assert(kNewAlignment == 64, "compile this test with -faligned-new=64");
static_assert(kNewAlignment > tlsf::alignment);
static_assert(!tlsf::detail::plain_new_is_malloc);

constexpr std::size_t kTooBig = 2 * TLSF_DEFAULT_HEAP_SIZE;

TEST(GlobalNewPaths, PlainFormsGiveTheDefaultNewAlignment) {
    std::vector<void *> blocks; // its own storage comes from operator new too
    blocks.reserve(4 * 64);
    for (std::size_t bytes = 1; bytes <= 64; ++bytes) {
        blocks.push_back(::operator new(bytes));
        blocks.push_back(::operator new[](bytes));
        blocks.push_back(::operator new(bytes, std::nothrow));
        blocks.push_back(::operator new[](bytes, std::nothrow));
    }
    for (void *block : blocks) {
        EXPECT_TRUE(aligned(block, kNewAlignment)) << block;
        EXPECT_TRUE(heap().contains(block));
    }
    for (void *block : blocks)
        ::operator delete(block);
    EXPECT_TRUE(aligned(blocks.data(), kNewAlignment));
    EXPECT_TRUE(heap().check());
}

TEST(GlobalNewPaths, OverAlignedNothrowReturnsNullAndCountsEachAttempt) {
    const tlsf::heap_stats before = heap().stats();
    EXPECT_EQ(::operator new(kTooBig, std::nothrow), nullptr);
    EXPECT_EQ(::operator new[](kTooBig, std::nothrow), nullptr);
    if constexpr (support::stats) {
        EXPECT_EQ(heap().stats().failed_count - before.failed_count, 2u);
    }
}

TEST(GlobalNewPaths, OverAlignedThrowingFormsRunTheHandlerThenThrow) {
    handler_calls = 0;
    std::set_new_handler([] {
        if (++handler_calls == 2) std::set_new_handler(nullptr);
    });
    EXPECT_THROW(keep(::operator new(kTooBig)), std::bad_alloc);
    EXPECT_EQ(handler_calls, 2);
    handler_calls = 0;
    EXPECT_THROW(keep(::operator new[](kTooBig)), std::bad_alloc);
    EXPECT_EQ(handler_calls, 0);
}

void *reserve = nullptr;

TEST(GlobalNewPaths, OverAlignedNewSucceedsOnceTheHandlerFreesMemory) {
    // Fill the heap, keeping one large block back as the handler's reserve: blocks of
    // falling sizes until not even 128 bytes fit, so no 1000-byte block is left.
    reserve = ::operator new(TLSF_DEFAULT_HEAP_SIZE / 4);
    std::vector<void *> filler;
    filler.reserve(4096);
    for (std::size_t size = TLSF_DEFAULT_HEAP_SIZE / 8; size >= 128; size /= 4) {
        while (filler.size() < filler.capacity()) {
            void *block = ::operator new(size, std::nothrow);
            if (block == nullptr) break;
            filler.push_back(block);
        }
    }
    ASSERT_LT(filler.size(), filler.capacity());
    handler_calls = 0;
    std::set_new_handler([] {
        ++handler_calls;
        ::operator delete(reserve);
        reserve = nullptr;
        std::set_new_handler(nullptr);
    });
    void *block = ::operator new(1000);
    EXPECT_EQ(handler_calls, 1);
    EXPECT_TRUE(heap().contains(block));
    EXPECT_TRUE(aligned(block, kNewAlignment));
    ::operator delete(block);
    for (void *filled : filler)
        ::operator delete(filled);
    EXPECT_TRUE(heap().check());
}

#endif

TEST(GlobalNewPaths, ThreadsShareTheHeapThroughNewAndDelete) {
    std::vector<std::thread> threads;
    threads.reserve(4); // before the snapshot: the vector outlives it
    const tlsf::heap_stats before = heap().stats();
    for (unsigned t = 0; t < 4; ++t) {
        threads.emplace_back([t] {
            std::uint32_t state = 12345u + t;
            void *held[32] = {};
            for (int i = 0; i < 20000; ++i) {
                state = state * 1664525u + 1013904223u;
                const std::size_t slot = state >> 27;
                ::operator delete(held[slot]);
                held[slot] = ::operator new(16 + (state >> 20) % 512);
            }
            for (void *block : held)
                ::operator delete(block);
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    const tlsf::heap_stats after = heap().stats();
    if constexpr (support::stats) {
        // std::thread's own state came and went through the heap as well.
        EXPECT_EQ(after.live_blocks, before.live_blocks);
    }
    EXPECT_TRUE(heap().check());
}

} // namespace
