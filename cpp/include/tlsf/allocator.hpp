// SPDX-License-Identifier: MIT
// tlsf/allocator.hpp - tlsf::allocator<T>: a standard Allocator over a tlsf::heap.
//
// An allocator is the address of a heap. Default-constructed it names the process default
// heap, so std::map<K, V, std::less<K>, tlsf::allocator<std::pair<const K, V>>> works with
// no further code; tlsf::allocator<T>{heap} names another heap. With
// TLSF_CPP_DEFAULT_HEAP_PER_THREAD=1 a default-constructed allocator names the per-thread
// heaps instead (<tlsf/thread_heaps.hpp>): each thread allocates from its own, any thread
// may deallocate, and uses_thread_heaps() is true.
#ifndef TLSF_ALLOCATOR_HPP
#define TLSF_ALLOCATOR_HPP

#include <cstddef>
#include <limits>
#include <type_traits>

#include "tlsf/default_heap.hpp"
#include "tlsf/failure.hpp"
#include "tlsf/heap.hpp"
#include "tlsf/thread_heaps.hpp"

namespace tlsf {

template <class T>
class allocator {
  public:
    using value_type = T;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;

    // Propagation: the allocator travels with the memory. A container's blocks belong to
    // the heap its allocator names, so when a container takes over another's blocks (move
    // assignment, swap) it must take over that heap too; otherwise move assignment
    // between heaps would copy element by element (and could throw), and swapping
    // containers on different heaps would be undefined behaviour. Copy assignment
    // propagates as well, so that `a = b` and `a = std::move(b)` leave `a` on the same
    // heap. A container that must stay on its heap whatever is assigned to it is what
    // std::pmr containers over a tlsf::memory_resource give (their allocator never
    // propagates).
    using propagate_on_container_copy_assignment = std::true_type;
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;
    // Two allocators are equal only when they name the same heap.
    using is_always_equal = std::false_type;

    // An allocator on the process default heap (tlsf::default_heap()).
    // With TLSF_CPP_DEFAULT_HEAP_PER_THREAD=1: on the calling thread's heap at each call.
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD
    allocator() noexcept : heap_(nullptr) {
    }
#else
    allocator() noexcept : heap_(&default_heap()) {
    }
#endif

    // An allocator on `heap`, which must outlive every container using it. Implicit, like
    // std::pmr::polymorphic_allocator's constructor from a resource, so that a container
    // can be given a heap directly: tlsf::vector<int> v(heap).
    allocator(heap &h) noexcept : heap_(&h) {
    }

    // Rebinding: the allocator for U on the same heap (what std::allocator_traits and
    // node-based containers use).
    template <class U>
    allocator(const allocator<U> &other) noexcept : heap_(other.heap_or_null()) {
    }

    // Room for `n` objects of type T, aligned for T: tlsf_memalign when alignof(T) exceeds
    // tlsf::alignment, tlsf_malloc otherwise. Throws std::bad_array_new_length if
    // n * sizeof(T) overflows and std::bad_alloc if the heap has no block large enough
    // (without exceptions: the failure handler, see <tlsf/failure.hpp>). O(1).
    [[nodiscard]] T *allocate(std::size_t n) {
        if (n > max_size()) detail::fail(failure::array_too_long, n);
        const std::size_t bytes = n * sizeof(T);
        void *block;
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD
        if (heap_ == nullptr) {
            block = thread_heaps_allocate(bytes, alignof(T));
            if (block == nullptr) detail::fail(failure::out_of_memory, bytes);
            return static_cast<T *>(block);
        }
#endif
        if constexpr (alignof(T) > alignment)
            block = heap_->memalign(alignof(T), bytes);
        else
            block = detail::heap_malloc(*heap_, bytes); // inline lock on the default heap
        if (block == nullptr) detail::fail(failure::out_of_memory, bytes);
        return static_cast<T *>(block);
    }

    // Return memory obtained from allocate on an equal allocator. O(1).
    void deallocate(T *pointer, std::size_t) noexcept {
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD
        if (heap_ == nullptr) return thread_heaps_free(pointer);
#endif
        detail::heap_free(*heap_, pointer);
    }

    // The largest n for which n * sizeof(T) does not overflow.
    std::size_t max_size() const noexcept {
        return std::numeric_limits<std::size_t>::max() / sizeof(T);
    }

    // The heap this allocator allocates from. Not for an allocator on the per-thread heaps
    // (uses_thread_heaps()), which has no single heap object.
    heap &get_heap() const noexcept {
        return *heap_;
    }

    // True for a default-constructed allocator when TLSF_CPP_DEFAULT_HEAP_PER_THREAD=1.
    bool uses_thread_heaps() const noexcept {
        return heap_ == nullptr;
    }

    // The heap's address, or null for the per-thread heaps (what equality compares).
    heap *heap_or_null() const noexcept {
        return heap_;
    }

  private:
    heap *heap_;
};

// Equal when both name the same heap, or both the per-thread heaps: then each can free
// what the other allocated.
template <class T, class U>
bool operator==(const allocator<T> &a, const allocator<U> &b) noexcept {
    return a.heap_or_null() == b.heap_or_null();
}

template <class T, class U>
bool operator!=(const allocator<T> &a, const allocator<U> &b) noexcept {
    return !(a == b);
}

} // namespace tlsf

#endif // TLSF_ALLOCATOR_HPP
