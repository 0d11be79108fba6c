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
#include <scoped_allocator>
#include <string>
#include <tuple>
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
// As std::pmr::polymorphic_allocator: a container stays on its heap.
static_assert(!int_traits::propagate_on_container_copy_assignment::value);
static_assert(!int_traits::propagate_on_container_move_assignment::value);
static_assert(!int_traits::propagate_on_container_swap::value);
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

// Propagation: never. After assignment or swap each container is on the heap it was built
// on, and its blocks are there.
TEST(Allocator, CopyAssignmentKeepsEachContainerOnItsHeap) {
    test_heap first;
    test_heap second;
    {
        tlsf::vector<int> a(first);
        tlsf::vector<int> b(second);
        a.assign(100, 1);
        b.assign(200, 2);
        a = b;
        EXPECT_EQ(&a.get_allocator().get_heap(), &first);
        EXPECT_TRUE(first.contains(a.data()));
        EXPECT_EQ(a, b);
        EXPECT_EQ(second.stats().live_blocks, 1u); // b's array only
    }
    expect_empty(first);
    expect_empty(second);
}

TEST(Allocator, MoveAssignmentOnOneHeapTakesTheBlocksWithoutAllocating) {
    test_heap heap;
    {
        tlsf::map<int, int> a(heap);
        tlsf::map<int, int> b(heap);
        for (int i = 0; i < 100; ++i)
            b.emplace(i, i);
        a.emplace(-1, -1);
        const std::size_t allocations = heap.stats().alloc_count;
        a = std::move(b);
        EXPECT_EQ(heap.stats().alloc_count, allocations); // O(1): nothing copied
        EXPECT_EQ(heap.stats().live_blocks, 100u);        // a's old node freed
        EXPECT_EQ(a.size(), 100u);
    }
    expect_empty(heap);
}

TEST(Allocator, MoveAssignmentBetweenHeapsMovesTheElementsIntoItsOwnHeap) {
    test_heap first;
    test_heap second;
    {
        tlsf::map<int, tlsf::string> a(first);
        tlsf::map<int, tlsf::string> b(second);
        for (int i = 0; i < 100; ++i)
            b.emplace(i, std::string(100, 'b'));
        a = std::move(b);
        EXPECT_EQ(&a.get_allocator().get_heap(), &first);
        EXPECT_EQ(a.size(), 100u);
        for (const auto &entry : a) {
            EXPECT_TRUE(first.contains(&entry));
            EXPECT_TRUE(first.contains(entry.second.data()));
            EXPECT_EQ(&entry.second.get_allocator().get_heap(), &first);
        }
    }
    expect_empty(first);
    expect_empty(second);
}

TEST(Allocator, SwapOnOneHeapExchangesTheBlocks) {
    test_heap heap;
    {
        tlsf::list<int> a(heap);
        tlsf::list<int> b(heap);
        a.assign(10, 1);
        b.assign(20, 2);
        const int *first_of_b = &b.front();
        const std::size_t allocations = heap.stats().alloc_count;
        a.swap(b);
        EXPECT_EQ(a.size(), 20u);
        EXPECT_EQ(&a.front(), first_of_b);
        using std::swap;
        swap(a, b);
        EXPECT_EQ(b.size(), 20u);
        EXPECT_EQ(heap.stats().alloc_count, allocations);
    }
    expect_empty(heap);
}

// A copy-constructed container is on the heap of the one it copies (pmr would choose the
// default resource), and its elements follow it.
TEST(Allocator, CopyConstructionStaysOnTheOriginalsHeap) {
    test_heap heap;
    test_heap other;
    {
        tlsf::vector<tlsf::string> original(heap);
        original.emplace_back(std::size_t{100}, 'x');
        const tlsf::vector<tlsf::string> copy = original;
        EXPECT_EQ(&copy.get_allocator().get_heap(), &heap);
        EXPECT_TRUE(heap.contains(copy.front().data()));
        const tlsf::vector<tlsf::string> elsewhere(original, other); // asked for explicitly
        EXPECT_TRUE(other.contains(elsewhere.data()));
        EXPECT_TRUE(other.contains(elsewhere.front().data()));
    }
    expect_empty(heap);
    expect_empty(other);
}

// ---- Scoped allocation: elements are built on their container's heap -------------------

// The program of the issue: m[i] = "..." on a map on a private heap put every string on
// the default heap.
TEST(ScopedAllocation, AMapOfStringsKeepsTheStringsOnItsHeap) {
    test_heap heap;
    {
        tlsf::map<int, tlsf::string> names(heap);
        const std::string text(100, 'n'); // longer than the small-string buffer
        for (int i = 0; i < 50; ++i)
            names[i] = text.c_str();
        names.emplace(100, text.c_str());
        names.try_emplace(101, std::size_t{80}, 'y');
        names.insert(
            {102, tlsf::string(text.c_str(), tlsf::default_heap())}); // moved in, copied here
        for (const auto &entry : names) {
            EXPECT_EQ(&entry.second.get_allocator().get_heap(), &heap) << entry.first;
            EXPECT_TRUE(heap.contains(entry.second.data())) << entry.first;
        }
        // An element assigned from a string on another heap stays on this one.
        const tlsf::string foreign(text.c_str(), tlsf::default_heap());
        names[0] = foreign;
        EXPECT_TRUE(heap.contains(names[0].data()));
    }
    expect_empty(heap);
}

TEST(ScopedAllocation, EveryLevelOfNestingFollowsTheOutermostHeap) {
    test_heap heap;
    {
        tlsf::vector<tlsf::map<tlsf::string, tlsf::list<tlsf::string>>> table(heap);
        table.resize(3);
        table[1]["a rather long key, past the small-string buffer"].emplace_back(std::size_t{64},
                                                                                 'v');
        table.emplace_back();
        table.back()[tlsf::string(std::size_t{40}, 'k')].resize(2);
        for (const auto &level : table) {
            EXPECT_EQ(&level.get_allocator().get_heap(), &heap);
            for (const auto &entry : level) {
                EXPECT_TRUE(heap.contains(&entry));
                EXPECT_TRUE(heap.contains(entry.first.data()));
                for (const tlsf::string &leaf : entry.second) {
                    EXPECT_EQ(&leaf.get_allocator().get_heap(), &heap);
                    if (leaf.size() > 32) {
                        EXPECT_TRUE(heap.contains(leaf.data()));
                    }
                }
            }
        }
        if constexpr (support::stats) {
            EXPECT_GT(heap.stats().live_blocks, 6u);
        }
    }
    expect_empty(heap);
}

// Elements that cannot take the allocator are built from their arguments as given; so are
// arguments that already bring one (a std::scoped_allocator_adaptor keeps working).
struct no_allocator {
    int value;
    explicit no_allocator(int v) : value(v) {}
};
struct allocator_first {
    using allocator_type = tlsf::allocator<char>;
    allocator_type where;
    allocator_first(std::allocator_arg_t, const allocator_type &a) : where(a) {}
};
struct allocator_last {
    using allocator_type = tlsf::allocator<char>;
    allocator_type where;
    int value;
    allocator_last(int v, const allocator_type &a) : where(a), value(v) {}
};

TEST(ScopedAllocation, BothConventionsPairsAndPlainTypes) {
    test_heap heap;
    {
        tlsf::vector<no_allocator> plain(heap);
        plain.emplace_back(7);
        EXPECT_EQ(plain[0].value, 7);
        tlsf::vector<allocator_first> first(heap);
        first.emplace_back();
        EXPECT_EQ(&first[0].where.get_heap(), &heap);
        tlsf::list<allocator_last> last(heap);
        last.emplace_back(3);
        EXPECT_EQ(&last.back().where.get_heap(), &heap);
        EXPECT_EQ(last.back().value, 3);
        tlsf::vector<std::pair<tlsf::string, std::pair<int, tlsf::string>>> pairs(heap);
        pairs.emplace_back();
        pairs.emplace_back(std::piecewise_construct, std::forward_as_tuple(std::size_t{50}, 'p'),
                           std::forward_as_tuple(1, "a string long enough to need a block"));
        const std::pair<tlsf::string, std::pair<int, tlsf::string>> on_default(
            tlsf::string(60, 'd'), std::pair<int, tlsf::string>(2, tlsf::string(60, 'e')));
        pairs.push_back(on_default);
        pairs.emplace_back(on_default.first, on_default.second);
        for (const auto &entry : pairs) {
            EXPECT_EQ(&entry.first.get_allocator().get_heap(), &heap);
            EXPECT_EQ(&entry.second.second.get_allocator().get_heap(), &heap);
        }
        EXPECT_TRUE(heap.contains(pairs[1].second.second.data()));
        EXPECT_TRUE(heap.contains(pairs[2].first.data()));
        EXPECT_TRUE(heap.contains(pairs[3].second.second.data()));
        // Explicitly on another heap: built as asked, as a scoped_allocator_adaptor does.
        tlsf::deque<tlsf::string> explicit_heap(heap);
        explicit_heap.emplace_back(std::string(100, 'a'), tlsf::default_heap());
        EXPECT_TRUE(tlsf::default_heap().contains(explicit_heap.back().data()));
        using scoped = std::scoped_allocator_adaptor<tlsf::allocator<tlsf::string>>;
        std::vector<tlsf::string, scoped> adapted{scoped(heap)};
        adapted.emplace_back(std::size_t{100}, 's');
        EXPECT_TRUE(heap.contains(adapted.back().data()));
    }
    expect_empty(heap);
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
            lines.emplace_back(std::string(100, 'a')); // the deque gives it the heap
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
