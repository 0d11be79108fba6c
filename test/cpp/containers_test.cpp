// SPDX-License-Identifier: MIT
// Every standard container through tlsf::allocator (the tlsf:: aliases), through
// tlsf::memory_resource (std::pmr containers) and on the default heap: contents are
// right, and when the containers die the heap has no live block and no used byte left.
// Then the number of heap operations of each container against std::allocator.
#include <tlsf/allocator.hpp>
#include <tlsf/containers.hpp>
#include <tlsf/default_heap.hpp>
#include <tlsf/heap.hpp>
#include <tlsf/memory_resource.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <memory_resource>
#include <type_traits>
#include <utility>

#include "container_cases.hpp"
#include "test_support.hpp"

namespace {

constexpr int kCount = 1000;
constexpr std::size_t kHeapBytes = 1024 * 1024;
using test_heap = tlsf::static_heap<kHeapBytes>;

using support::expect_empty;
using support::expect_in_use;

// ---- tlsf::allocator on a heap of its own ---------------------------------------------

template <class Case>
class AllocatorContainers : public ::testing::Test {};
TYPED_TEST_SUITE(AllocatorContainers, cases::all, cases::names);

TYPED_TEST(AllocatorContainers, HoldTheirContentsAndReturnEveryBlock) {
    using Case = TypeParam;
    using allocator = tlsf::allocator<typename Case::value_type>;
    using container = typename Case::template container<allocator>;
    static_assert(std::is_same_v<container, typename Case::alias>);

    auto heap = std::make_unique<test_heap>();
    {
        container c(allocator{*heap});
        Case::fill(c, kCount);
        EXPECT_EQ(Case::read(c), cases::expected_for<Case>(kCount, false));
        expect_in_use(*heap);

        container copy(c); // the copy stays on the same heap
        EXPECT_TRUE(copy.get_allocator() == c.get_allocator());
        EXPECT_EQ(&copy.get_allocator().get_heap(), heap.get());
        container moved(std::move(copy));
        Case::thin(c);
        EXPECT_EQ(Case::read(c), cases::expected_for<Case>(kCount, true));
        EXPECT_EQ(Case::read(moved), cases::expected_for<Case>(kCount, false));
        EXPECT_TRUE(heap->check());
    }
    expect_empty(*heap);
}

// ---- std::pmr containers on tlsf::memory_resource -------------------------------------

template <class Case>
class PmrContainers : public ::testing::Test {};
TYPED_TEST_SUITE(PmrContainers, cases::all, cases::names);

TYPED_TEST(PmrContainers, HoldTheirContentsAndReturnEveryBlock) {
    using Case = TypeParam;
    using container = typename Case::template container<
        std::pmr::polymorphic_allocator<typename Case::value_type>>;

    auto heap = std::make_unique<test_heap>();
    tlsf::memory_resource resource(*heap);
    {
        container c(&resource);
        Case::fill(c, kCount);
        EXPECT_EQ(Case::read(c), cases::expected_for<Case>(kCount, false));
        expect_in_use(*heap);

        container copy(c, &resource);
        container moved(std::move(copy));
        EXPECT_EQ(moved.get_allocator().resource(), &resource);
        Case::thin(c);
        EXPECT_EQ(Case::read(c), cases::expected_for<Case>(kCount, true));
        EXPECT_EQ(Case::read(moved), cases::expected_for<Case>(kCount, false));
        EXPECT_TRUE(heap->check());
    }
    expect_empty(*heap);
}

// ---- The aliases, default-constructed: the default heap --------------------------------

template <class Case>
class DefaultHeapContainers : public ::testing::Test {};
TYPED_TEST_SUITE(DefaultHeapContainers, cases::all, cases::names);

TYPED_TEST(DefaultHeapContainers, UseTheDefaultHeapWithNoFurtherCode) {
    using Case = TypeParam;
    tlsf::heap &heap = tlsf::default_heap();
    const tlsf::heap_stats before = heap.stats();
    {
        typename Case::alias c;
        EXPECT_EQ(&c.get_allocator().get_heap(), &heap);
        Case::fill(c, kCount);
        EXPECT_EQ(Case::read(c), cases::expected_for<Case>(kCount, false));
        EXPECT_TRUE(heap.contains(&*c.begin()));
        if constexpr (support::stats) {
            EXPECT_GT(heap.stats().live_blocks, before.live_blocks);
        }
        Case::thin(c);
        EXPECT_EQ(Case::read(c), cases::expected_for<Case>(kCount, true));
    }
    const tlsf::heap_stats after = heap.stats();
    EXPECT_EQ(after.live_blocks, before.live_blocks);
    EXPECT_EQ(after.used_bytes, before.used_bytes);
    if constexpr (support::stats) {
        EXPECT_GT(after.alloc_count, before.alloc_count);
    }
    EXPECT_TRUE(heap.check());
}

// ---- Heap operations against std::allocator -------------------------------------------

struct op_counts {
    std::size_t allocations = 0;
    std::size_t deallocations = 0;
};

// Counts the calls to allocate and deallocate, forwarding them to Base<T>.
template <class T, template <class> class Base>
class counting_allocator {
  public:
    using value_type = T;
    using base_type = Base<T>;
    using propagate_on_container_copy_assignment =
        typename std::allocator_traits<base_type>::propagate_on_container_copy_assignment;
    using propagate_on_container_move_assignment =
        typename std::allocator_traits<base_type>::propagate_on_container_move_assignment;
    using propagate_on_container_swap =
        typename std::allocator_traits<base_type>::propagate_on_container_swap;
    using is_always_equal = std::false_type;
    template <class U>
    struct rebind {
        using other = counting_allocator<U, Base>;
    };

    counting_allocator(base_type base, op_counts *counts) : base_(base), counts_(counts) {}
    template <class U>
    counting_allocator(const counting_allocator<U, Base> &other)
        : base_(other.base()), counts_(other.counts()) {}

    T *allocate(std::size_t n) {
        ++counts_->allocations;
        return base_.allocate(n);
    }
    void deallocate(T *pointer, std::size_t n) {
        ++counts_->deallocations;
        base_.deallocate(pointer, n);
    }
    base_type base() const { return base_; }
    op_counts *counts() const { return counts_; }

    friend bool operator==(const counting_allocator &a, const counting_allocator &b) {
        return a.base_ == b.base_ && a.counts_ == b.counts_;
    }
    friend bool operator!=(const counting_allocator &a, const counting_allocator &b) {
        return !(a == b);
    }

  private:
    base_type base_;
    op_counts *counts_;
};

// The same workload for every container and allocator: fill, thin, copy (onto the same
// allocator), move-construct, destroy everything.
template <class Case, class Container>
void workload(const typename Container::allocator_type &allocator) {
    Container c(allocator);
    Case::fill(c, kCount);
    Case::thin(c);
    Container copy(c, allocator);
    Container moved(std::move(copy));
    ASSERT_EQ(Case::read(moved), cases::expected_for<Case>(kCount, true));
}

template <class Case>
class HeapOperations : public ::testing::Test {};
TYPED_TEST_SUITE(HeapOperations, cases::all, cases::names);

TYPED_TEST(HeapOperations, MatchStdAllocator) {
    using Case = TypeParam;
    using value_type = typename Case::value_type;

    op_counts with_std;
    using std_counting = counting_allocator<value_type, std::allocator>;
    workload<Case, typename Case::template container<std_counting>>(
        std_counting(std::allocator<value_type>{}, &with_std));

    auto heap = std::make_unique<test_heap>();
    op_counts with_tlsf;
    using tlsf_counting = counting_allocator<value_type, tlsf::allocator>;
    workload<Case, typename Case::template container<tlsf_counting>>(
        tlsf_counting(tlsf::allocator<value_type>(*heap), &with_tlsf));
    const tlsf::heap_stats via_allocator = heap->stats();
    expect_empty(*heap);

    tlsf::memory_resource resource(*heap);
    workload<Case, typename Case::template container<std::pmr::polymorphic_allocator<value_type>>>(
        &resource);
    const tlsf::heap_stats after_pmr = heap->stats();
    const std::size_t pmr_allocations = after_pmr.alloc_count - via_allocator.alloc_count;
    const std::size_t pmr_frees = after_pmr.free_count - via_allocator.free_count;
    expect_empty(*heap);

    // tlsf::allocator adds no operation: the container asks for exactly what it asks of
    // std::allocator, and each request is exactly one heap operation.
    EXPECT_EQ(with_tlsf.allocations, with_std.allocations);
    EXPECT_EQ(with_tlsf.deallocations, with_std.deallocations);
    EXPECT_EQ(with_std.allocations, with_std.deallocations);
    if (!support::stats) GTEST_SKIP() << "heap operations uncounted (TLSF_STATS=0)";
    EXPECT_EQ(via_allocator.alloc_count, with_tlsf.allocations);
    EXPECT_EQ(via_allocator.free_count, with_tlsf.deallocations);
    EXPECT_EQ(via_allocator.failed_count, 0u);
    EXPECT_EQ(pmr_allocations, with_std.allocations);
    EXPECT_EQ(pmr_frees, with_std.deallocations);

    std::printf("[ heap ops ] %-14s std::allocator %5zu/%5zu  tlsf::allocator %5zu/%5zu  "
                "heap %5zu/%5zu  pmr heap %5zu/%5zu  (allocations/deallocations, peak %zu B)\n",
                Case::name, with_std.allocations, with_std.deallocations, with_tlsf.allocations,
                with_tlsf.deallocations, via_allocator.alloc_count, via_allocator.free_count,
                pmr_allocations, pmr_frees, via_allocator.peak_used_bytes);
    ::testing::Test::RecordProperty("std_allocations", static_cast<int>(with_std.allocations));
    ::testing::Test::RecordProperty("tlsf_heap_allocations",
                                    static_cast<int>(via_allocator.alloc_count));
}

} // namespace
