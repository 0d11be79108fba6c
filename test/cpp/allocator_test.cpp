// SPDX-License-Identifier: MIT
// tlsf::allocator<T> as a standard Allocator, and tlsf::memory_resource.
#include <tlsf/allocator.hpp>
#include <tlsf/containers.hpp>
#include <tlsf/default_heap.hpp>
#include <tlsf/heap.hpp>
#include <tlsf/memory_resource.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <memory_resource>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace {

constexpr std::size_t kHeapBytes = 256 * 1024;
using test_heap = tlsf::static_heap<kHeapBytes>;

using support::aligned;
using support::expect_empty;

// ---- The Allocator requirements, at compile time --------------------------------------

using int_allocator = tlsf::allocator<int>;
using int_traits = std::allocator_traits<int_allocator>;
static_assert(std::is_same_v<int_traits::value_type, int>);
static_assert(std::is_same_v<int_traits::pointer, int *>);
static_assert(std::is_same_v<int_traits::size_type, std::size_t>);
static_assert(std::is_same_v<int_traits::rebind_alloc<double>, tlsf::allocator<double>>);
static_assert(std::is_same_v<int_traits::rebind_traits<char>::value_type, char>);
static_assert(int_traits::propagate_on_container_copy_assignment::value);
static_assert(int_traits::propagate_on_container_move_assignment::value);
static_assert(int_traits::propagate_on_container_swap::value);
static_assert(!int_traits::is_always_equal::value);
static_assert(std::is_nothrow_default_constructible_v<int_allocator>);
static_assert(std::is_nothrow_copy_constructible_v<int_allocator>);
static_assert(std::is_nothrow_move_constructible_v<int_allocator>);
static_assert(std::is_nothrow_constructible_v<int_allocator, const tlsf::allocator<double> &>);
static_assert(std::is_nothrow_constructible_v<int_allocator, tlsf::heap &>);
static_assert(std::is_convertible_v<tlsf::static_heap<64 * 1024> &, int_allocator>);
static_assert(noexcept(std::declval<int_allocator &>().deallocate(nullptr, 1)));
static_assert(
    std::is_same_v<tlsf::string,
                   std::basic_string<char, std::char_traits<char>, tlsf::allocator<char>>>);
static_assert(std::is_same_v<tlsf::map<int, double>,
                             std::map<int, double, std::less<int>,
                                      tlsf::allocator<std::pair<const int, double>>>>);

TEST(Allocator, DefaultConstructedUsesTheDefaultHeap) {
    tlsf::allocator<int> a;
    EXPECT_EQ(&a.get_heap(), &tlsf::default_heap());
    EXPECT_TRUE(a == tlsf::allocator<int>(tlsf::default_heap()));
    // The declaration of the issue, with nothing else needed.
    std::map<int, std::string, std::less<int>, tlsf::allocator<std::pair<const int, std::string>>>
        names;
    const std::size_t before = tlsf::default_heap().stats().live_blocks;
    names[1] = "one";
    names[2] = "two";
    if constexpr (support::stats) {
        EXPECT_EQ(tlsf::default_heap().stats().live_blocks, before + 2);
    }
    EXPECT_TRUE(tlsf::default_heap().contains(&*names.begin()));
    EXPECT_EQ(names.at(2), "two");
}

TEST(Allocator, EqualityComparesTheHeap) {
    test_heap first;
    test_heap second;
    const tlsf::allocator<int> a(first);
    const tlsf::allocator<double> b(first);
    const tlsf::allocator<int> c(second);
    EXPECT_TRUE(a == b);
    EXPECT_FALSE(a != b);
    EXPECT_TRUE(a != c);
    EXPECT_FALSE(a == c);
    const tlsf::allocator<char> rebound(a);
    EXPECT_TRUE(rebound == a);
    EXPECT_EQ(&rebound.get_heap(), &first);
}

TEST(Allocator, AllocatesFromItsHeap) {
    test_heap heap;
    tlsf::allocator<std::uint64_t> a(heap);
    std::uint64_t *values = a.allocate(100);
    ASSERT_NE(values, nullptr);
    EXPECT_TRUE(heap.contains(values));
    EXPECT_GE(heap.usable_size(values), 100 * sizeof(std::uint64_t));
    if constexpr (support::stats) {
        EXPECT_EQ(heap.stats().live_blocks, 1u);
    }
    a.deallocate(values, 100);
    expect_empty(heap);
}

struct alignas(64) cache_line {
    unsigned char bytes[64];
};
struct alignas(512) page_part {
    int value;
};

TEST(Allocator, OverAlignedTypesGetTheirAlignment) {
    static_assert(alignof(cache_line) > tlsf::alignment);
    test_heap heap;
    tlsf::allocator<cache_line> lines(heap);
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{17}}) {
        cache_line *block = lines.allocate(n);
        EXPECT_TRUE(aligned(block, 64)) << n;
        lines.deallocate(block, n);
    }
    tlsf::vector<page_part> parts(heap);
    for (int i = 0; i < 100; ++i) {
        parts.push_back(page_part{i});
        ASSERT_TRUE(aligned(parts.data(), 512));
    }
    tlsf::list<cache_line> nodes(heap); // list nodes rebind, and keep the alignment
    for (int i = 0; i < 10; ++i)
        EXPECT_TRUE(aligned(&nodes.emplace_back(), 64));
    parts = tlsf::vector<page_part>(heap);
    nodes.clear();
    expect_empty(heap);
}

TEST(Allocator, SizeOverflowThrowsBadArrayNewLength) {
    test_heap heap;
    tlsf::allocator<std::uint64_t> a(heap);
    const std::size_t too_many =
        std::numeric_limits<std::size_t>::max() / sizeof(std::uint64_t) + 1;
    EXPECT_EQ(a.max_size(), too_many - 1);
    EXPECT_THROW((void)a.allocate(too_many), std::bad_array_new_length);
    EXPECT_THROW((void)a.allocate(std::numeric_limits<std::size_t>::max()), std::bad_alloc);
    EXPECT_EQ(heap.stats().alloc_count, 0u);
}

TEST(Allocator, ExhaustionThrowsBadAlloc) {
    test_heap heap;
    tlsf::allocator<char> a(heap);
    EXPECT_THROW((void)a.allocate(kHeapBytes), std::bad_alloc);
    tlsf::vector<int> grows(heap);
    EXPECT_THROW(
        {
            for (;;)
                grows.push_back(1);
        },
        std::bad_alloc);
    EXPECT_GT(grows.size(), 1000u);
    if constexpr (support::stats) {
        EXPECT_GT(heap.stats().failed_count, 1u);
    }
    grows = tlsf::vector<int>(heap);
    expect_empty(heap);
}

TEST(Allocator, FailureHandlerRunsBeforeBadAlloc) {
    static tlsf::failure reason;
    static std::size_t bytes;
    const tlsf::failure_handler previous =
        tlsf::set_failure_handler([](tlsf::failure why, std::size_t size) {
            reason = why;
            bytes = size;
        });
    test_heap heap;
    tlsf::allocator<char> a(heap);
    EXPECT_THROW((void)a.allocate(kHeapBytes), std::bad_alloc);
    EXPECT_EQ(reason, tlsf::failure::out_of_memory);
    EXPECT_EQ(bytes, kHeapBytes);
    tlsf::allocator<std::uint32_t> words(heap);
    EXPECT_THROW((void)words.allocate(std::numeric_limits<std::size_t>::max()),
                 std::bad_array_new_length);
    EXPECT_EQ(reason, tlsf::failure::array_too_long);
    tlsf::set_failure_handler(previous);
}

// Propagation: after assignment or swap, each container is on the heap of the allocator
// it received, and its blocks are there.
TEST(Allocator, CopyAssignmentPropagatesTheHeap) {
    test_heap first;
    test_heap second;
    {
        tlsf::vector<int> a(first);
        tlsf::vector<int> b(second);
        a.assign(100, 1);
        b.assign(200, 2);
        a = b;
        EXPECT_EQ(&a.get_allocator().get_heap(), &second);
        EXPECT_TRUE(second.contains(a.data()));
        EXPECT_EQ(a, b);
        EXPECT_EQ(first.stats().live_blocks, 0u);
    }
    expect_empty(first);
    expect_empty(second);
}

TEST(Allocator, MoveAssignmentTakesTheBlocksWithoutAllocating) {
    test_heap first;
    test_heap second;
    {
        tlsf::map<int, int> a(first);
        tlsf::map<int, int> b(second);
        for (int i = 0; i < 100; ++i)
            b.emplace(i, i);
        a.emplace(-1, -1);
        const std::size_t second_allocations = second.stats().alloc_count;
        a = std::move(b);
        EXPECT_EQ(&a.get_allocator().get_heap(), &second);
        EXPECT_EQ(second.stats().alloc_count, second_allocations); // O(1): nothing copied
        EXPECT_EQ(first.stats().live_blocks, 0u);                  // a's old node freed
        EXPECT_EQ(a.size(), 100u);
    }
    expect_empty(first);
    expect_empty(second);
}

TEST(Allocator, SwapExchangesTheHeaps) {
    test_heap first;
    test_heap second;
    {
        tlsf::list<int> a(first);
        tlsf::list<int> b(second);
        a.assign(10, 1);
        b.assign(20, 2);
        a.swap(b);
        EXPECT_EQ(&a.get_allocator().get_heap(), &second);
        EXPECT_EQ(&b.get_allocator().get_heap(), &first);
        EXPECT_EQ(a.size(), 20u);
        EXPECT_TRUE(second.contains(&a.front()));
        a.push_back(3); // each keeps allocating where its blocks are
        EXPECT_TRUE(second.contains(&a.back()));
        using std::swap;
        swap(a, b);
        EXPECT_EQ(&a.get_allocator().get_heap(), &first);
    }
    expect_empty(first);
    expect_empty(second);
}

TEST(Allocator, AllocateShared) {
    test_heap heap;
    {
        auto number = std::allocate_shared<int>(tlsf::allocator<int>(heap), 42);
        auto line = std::allocate_shared<cache_line>(tlsf::allocator<cache_line>(heap));
        EXPECT_EQ(*number, 42);
        EXPECT_TRUE(aligned(line.get(), 64));
        EXPECT_TRUE(heap.contains(number.get()));
        if constexpr (support::stats) {
            EXPECT_EQ(heap.stats().live_blocks, 2u); // object and control block together
            auto copy = number;
            EXPECT_EQ(heap.stats().live_blocks, 2u);
        }
    }
    expect_empty(heap);
}

TEST(Allocator, StringsAndNestedContainers) {
    test_heap heap;
    {
        tlsf::string text(heap);
        text.assign(1000, 'x');
        EXPECT_TRUE(heap.contains(text.data()));
        tlsf::unordered_map<int, tlsf::vector<int>> table(heap);
        for (int i = 0; i < 50; ++i) {
            auto &row = table.try_emplace(i, tlsf::vector<int>(heap)).first->second;
            row.assign(static_cast<std::size_t>(i), i);
        }
        EXPECT_TRUE(heap.contains(table.at(49).data()));
        tlsf::deque<tlsf::string> lines(heap);
        for (int i = 0; i < 100; ++i)
            lines.emplace_back(std::string(100, 'a'), heap);
        EXPECT_TRUE(heap.contains(lines.back().data()));
    }
    expect_empty(heap);
}

// ---- tlsf::memory_resource ---------------------------------------------------------

TEST(MemoryResource, HonoursAlignment) {
    test_heap heap;
    tlsf::memory_resource resource(heap);
    EXPECT_EQ(&resource.get_heap(), &heap);
    for (std::size_t align : {std::size_t{1}, std::size_t{8}, tlsf::alignment, std::size_t{64},
                              std::size_t{256}, std::size_t{4096}}) {
        void *block = resource.allocate(100, align);
        EXPECT_TRUE(aligned(block, align)) << align;
        EXPECT_TRUE(heap.contains(block));
        resource.deallocate(block, 100, align);
    }
    expect_empty(heap);
}

// The default resource takes the default heap's inline fast path up to tlsf::alignment
// (detail::heap_memalign); larger alignments and ones that are not a power of two go to
// heap::memalign, which serves the first and refuses the second.
TEST(MemoryResource, OnTheDefaultHeapHonoursAlignmentAndRefusesABadOne) {
    tlsf::memory_resource resource;
    tlsf::heap &heap = tlsf::default_heap();
    for (std::size_t align : {std::size_t{1}, std::size_t{8}, tlsf::alignment, std::size_t{256}}) {
        void *block = resource.allocate(100, align);
        EXPECT_TRUE(aligned(block, align)) << align;
        EXPECT_TRUE(heap.contains(block));
        resource.deallocate(block, 100, align);
    }
    // (From a loop: a constant bad alignment is a compile-time warning with clang.)
    for (std::size_t bad : {std::size_t{3}, std::size_t{0}})
        EXPECT_THROW((void)resource.allocate(100, bad), std::bad_alloc) << bad;
    EXPECT_TRUE(heap.check());
}

TEST(MemoryResource, ExhaustionThrowsBadAlloc) {
    test_heap heap;
    tlsf::memory_resource resource(heap);
    EXPECT_THROW((void)resource.allocate(kHeapBytes), std::bad_alloc);
    EXPECT_THROW((void)resource.allocate(1000, std::size_t{1} << 20), std::bad_alloc);
    std::pmr::vector<int> grows(&resource);
    EXPECT_THROW(
        {
            for (;;)
                grows.push_back(1);
        },
        std::bad_alloc);
    grows = std::pmr::vector<int>(&resource);
    expect_empty(heap);
}

TEST(MemoryResource, EqualOnlyToResourcesOnTheSameHeap) {
    test_heap first;
    test_heap second;
    tlsf::memory_resource a(first);
    tlsf::memory_resource b(first);
    tlsf::memory_resource c(second);
    EXPECT_TRUE(a == a);
    EXPECT_TRUE(a == b); // b can free what a allocated
    EXPECT_FALSE(a == c);
    EXPECT_FALSE(a == *std::pmr::new_delete_resource());
    EXPECT_FALSE(*std::pmr::new_delete_resource() == a);
    void *block = a.allocate(64);
    b.deallocate(block, 64);
    expect_empty(first);
}

TEST(MemoryResource, PmrContainersPassTheResourceToTheirElements) {
    test_heap heap;
    tlsf::memory_resource resource(heap);
    {
        std::pmr::vector<std::pmr::string> lines(&resource);
        for (int i = 0; i < 20; ++i)
            lines.emplace_back(200, 'z');
        for (const auto &line : lines) {
            EXPECT_EQ(line.get_allocator().resource(), &resource);
            EXPECT_TRUE(heap.contains(line.data()));
        }
        // pmr allocators do not propagate: an assigned container stays on its resource.
        std::pmr::vector<std::pmr::string> elsewhere(std::pmr::new_delete_resource());
        elsewhere = lines;
        EXPECT_EQ(elsewhere.get_allocator().resource(), std::pmr::new_delete_resource());
    }
    expect_empty(heap);
}

TEST(MemoryResource, DefaultResourceUsesTheDefaultHeap) {
    tlsf::memory_resource *resource = tlsf::default_resource();
    EXPECT_EQ(resource, tlsf::default_resource());
    EXPECT_EQ(&resource->get_heap(), &tlsf::default_heap());
    EXPECT_TRUE(*resource == tlsf::memory_resource());
    std::pmr::memory_resource *previous = std::pmr::set_default_resource(resource);
    {
        const std::size_t before = tlsf::default_heap().stats().live_blocks;
        std::pmr::vector<int> numbers; // no resource given: the default one
        numbers.assign(100, 7);
        EXPECT_TRUE(tlsf::default_heap().contains(numbers.data()));
        if constexpr (support::stats) {
            EXPECT_EQ(tlsf::default_heap().stats().live_blocks, before + 1);
        }
    }
    std::pmr::set_default_resource(previous);
}

} // namespace
