// SPDX-License-Identifier: MIT
// tlsf/allocator.hpp - tlsf::allocator<T>: a standard Allocator over a tlsf::heap.
//
// An allocator is the address of a heap. Default-constructed it names the process default
// heap, so std::map<K, V, std::less<K>, tlsf::allocator<std::pair<const K, V>>> works with
// no further code; tlsf::allocator<T>{heap} names another heap. With
// TLSF_CPP_DEFAULT_HEAP_PER_THREAD=1 a default-constructed allocator names the per-thread
// heaps instead (<tlsf/thread_heaps.hpp>): each thread allocates from its own, any thread
// may deallocate, and uses_thread_heaps() is true.
//
// It behaves as std::pmr::polymorphic_allocator does, the other allocator that names a
// memory source at run time, so that a container stays on the heap it was given:
//
//   - Scoped: a container hands its heap to the elements it builds (uses-allocator
//     construction, see construct below). In a tlsf::map<int, tlsf::string> on a heap,
//     `m[1] = "..."` puts the string on that heap too, at any depth of nesting.
//   - Not propagated: assignment and swap leave each container on its own heap (see the
//     propagate_on_* traits below).
//   - A copy-constructed container is on the heap of the one it copies (this is where
//     pmr differs: it picks the default resource; see select_on_container_copy_construction).
#ifndef TLSF_ALLOCATOR_HPP
#define TLSF_ALLOCATOR_HPP

#include <cstddef>
#include <limits>
#include <memory>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tlsf/default_heap.hpp"
#include "tlsf/failure.hpp"
#include "tlsf/heap.hpp"
#include "tlsf/thread_heaps.hpp"

namespace tlsf {

template <class T>
class allocator;

namespace detail {

template <class T>
struct is_std_pair : std::false_type {};
template <class First, class Second>
struct is_std_pair<std::pair<First, Second>> : std::true_type {};

template <class T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;

template <class T, class Alloc, class... Args>
auto uses_allocator_args(const Alloc &alloc, Args &&...args);

// The arguments of std::pair's piecewise constructor, each element's own arguments given
// the allocator in turn.
template <class Pair, class Alloc, class FirstArgs, class SecondArgs>
auto piecewise_args(const Alloc &alloc, FirstArgs &&first, SecondArgs &&second) {
    return std::make_tuple(std::piecewise_construct,
                           std::apply(
                               [&alloc](auto &&...xs) {
                                   return uses_allocator_args<typename Pair::first_type>(
                                       alloc, std::forward<decltype(xs)>(xs)...);
                               },
                               std::forward<FirstArgs>(first)),
                           std::apply(
                               [&alloc](auto &&...ys) {
                                   return uses_allocator_args<typename Pair::second_type>(
                                       alloc, std::forward<decltype(ys)>(ys)...);
                               },
                               std::forward<SecondArgs>(second)));
}

// The pair forms of uses-allocator construction (std::uses_allocator_construction_args):
// every way to build a pair becomes the piecewise one.
template <class Pair, class Alloc, class... Args>
auto pair_args(const Alloc &alloc, Args &&...args) {
    if constexpr (sizeof...(Args) == 0) {
        return piecewise_args<Pair>(alloc, std::tuple<>(), std::tuple<>());
    } else if constexpr (sizeof...(Args) == 3) {
        return [&alloc](std::piecewise_construct_t, auto &&first, auto &&second) {
            return piecewise_args<Pair>(alloc, std::forward<decltype(first)>(first),
                                        std::forward<decltype(second)>(second));
        }(std::forward<Args>(args)...);
    } else if constexpr (sizeof...(Args) == 2) {
        return [&alloc](auto &&first, auto &&second) {
            return piecewise_args<Pair>(
                alloc, std::forward_as_tuple(std::forward<decltype(first)>(first)),
                std::forward_as_tuple(std::forward<decltype(second)>(second)));
        }(std::forward<Args>(args)...);
    } else if constexpr (sizeof...(Args) == 1 &&
                         is_std_pair<
                             remove_cvref_t<std::tuple_element_t<0, std::tuple<Args...>>>>::value) {
        return [&alloc](auto &&pair) {
            using P = decltype(pair);
            return piecewise_args<Pair>(alloc,
                                        std::forward_as_tuple(std::get<0>(std::forward<P>(pair))),
                                        std::forward_as_tuple(std::get<1>(std::forward<P>(pair))));
        }(std::forward<Args>(args)...);
    } else {
        return std::tuple<Args &&...>(std::forward<Args>(args)...); // anything else: as given
    }
}

// The arguments that build a T from `args` with `alloc` (uses-allocator construction): the
// allocator added in front (std::allocator_arg) or at the end, for a T that uses an
// allocator it converts to and accepts it there; pairs element by element; otherwise
// `args` as given - also when they already carry an allocator the element cannot take a
// second one with (std::scoped_allocator_adaptor's calls, or a string built explicitly
// on a heap), where std::pmr would not compile.
template <class T, class Alloc, class... Args>
auto uses_allocator_args(const Alloc &alloc, Args &&...args) {
    if constexpr (is_std_pair<T>::value) {
        return pair_args<T>(alloc, std::forward<Args>(args)...);
    } else if constexpr (std::uses_allocator<T, Alloc>::value &&
                         std::is_constructible<T, std::allocator_arg_t, const Alloc &,
                                               Args...>::value) {
        return std::tuple<std::allocator_arg_t, const Alloc &, Args &&...>(
            std::allocator_arg, alloc, std::forward<Args>(args)...);
    } else if constexpr (std::uses_allocator<T, Alloc>::value &&
                         std::is_constructible<T, Args..., const Alloc &>::value) {
        return std::tuple<Args &&..., const Alloc &>(std::forward<Args>(args)..., alloc);
    } else {
        return std::tuple<Args &&...>(std::forward<Args>(args)...);
    }
}

template <class T>
struct is_tlsf_allocator : std::false_type {};
template <class T>
struct is_tlsf_allocator<tlsf::allocator<T>> : std::true_type {};

// Whether building a T from `Args` copies or moves an element of the same type that uses a
// tlsf::allocator (a container, a string): one that carries a heap of its own, which may
// be the one wanted.
template <class T, class Arg, class = void>
struct copies_element_with_tlsf_allocator : std::false_type {};
template <class T, class Arg>
struct copies_element_with_tlsf_allocator<
    T, Arg,
    std::void_t<typename T::allocator_type, decltype(std::declval<const T &>().get_allocator())>>
    : std::bool_constant<std::is_same<remove_cvref_t<Arg>, T>::value &&
                         is_tlsf_allocator<typename T::allocator_type>::value> {};
template <class T, class... Args>
struct is_copy_with_tlsf_allocator : std::false_type {};
template <class T, class Arg>
struct is_copy_with_tlsf_allocator<T, Arg> : copies_element_with_tlsf_allocator<T, Arg> {};

// Build a T at `where` from `args` with `alloc` (see uses_allocator_args).
template <class T, class Alloc, class... Args>
void construct_with_uses_allocator_args(T *where, const Alloc &alloc, Args &&...args) {
    std::apply(
        [where](auto &&...final_args) {
            ::new (static_cast<void *>(where)) T(std::forward<decltype(final_args)>(final_args)...);
        },
        uses_allocator_args<T>(alloc, std::forward<Args>(args)...));
}

// The copy or move of an element from another heap: rare, and out of line, so that the
// common case below stays short enough to inline.
template <class T, class Alloc, class Arg>
TLSF_DETAIL_COLD void construct_from_another_heap(T *where, const Alloc &alloc, Arg &&arg) {
    construct_with_uses_allocator_args(where, alloc, std::forward<Arg>(arg));
}

// Whether uses-allocator construction can hand `Alloc` to a T or, for a pair, to one of
// its elements. When not (ints, pairs of ints, ...), construction is plain placement new,
// exactly what std::allocator_traits does without a construct member.
template <class T, class Alloc>
struct takes_allocator_somewhere : std::uses_allocator<T, Alloc> {};
template <class First, class Second, class Alloc>
struct takes_allocator_somewhere<std::pair<First, Second>, Alloc>
    : std::bool_constant<takes_allocator_somewhere<std::remove_cv_t<First>, Alloc>::value ||
                         takes_allocator_somewhere<std::remove_cv_t<Second>, Alloc>::value> {};

// Build a T at `where` from `args` with `alloc`: uses-allocator construction.
template <class T, class Alloc, class... Args>
void construct_using_allocator(T *where, const Alloc &alloc, Args &&...args) {
    if constexpr (!takes_allocator_somewhere<T, Alloc>::value) {
        (void)alloc;
        ::new (static_cast<void *>(where)) T(std::forward<Args>(args)...);
    } else if constexpr (is_copy_with_tlsf_allocator<T, Args...>::value) {
        // A copy or move of an element on this heap (the common case: a container's own
        // elements, as a vector grows or a string is pushed): its plain copy or move
        // constructor gives the new element that heap too, and is cheaper than the
        // allocator-extended one, which libstdc++ does not inline (12 instructions more
        // per string in the benchmark's string row).
        const auto &from = std::get<0>(std::forward_as_tuple(args...));
        if (from.get_allocator() == alloc)
            ::new (static_cast<void *>(where)) T(std::forward<Args>(args)...);
        else
            construct_from_another_heap(where, alloc, std::forward<Args>(args)...);
    } else {
        construct_with_uses_allocator_args(where, alloc, std::forward<Args>(args)...);
    }
}

} // namespace detail

template <class T>
class allocator {
  public:
    using value_type = T;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;

    // Propagation: never, as std::pmr::polymorphic_allocator. A container stays on the
    // heap it was built on: `a = b` copies b's elements into a's heap, `a = std::move(b)`
    // takes b's blocks when both are on one heap (O(1)) and otherwise moves the elements
    // into a's heap one by one (so it may allocate, and throw), and a.swap(b) exchanges
    // the blocks of two containers on one heap. Swapping containers on DIFFERENT heaps is
    // undefined behaviour, as for pmr containers on different resources: move through a
    // temporary instead. Why not propagate, as allocators often do: a container assigned
    // from another on a short-lived heap would otherwise end up on that heap and outlive
    // it, and an element assigned into a container (m[k] = value) would leave the
    // container's heap - what a container on a private heap must never do.
    // Measured: no cost on the STL rows of bench/host (docs/cpp.md, "Propagation").
    using propagate_on_container_copy_assignment = std::false_type;
    using propagate_on_container_move_assignment = std::false_type;
    using propagate_on_container_swap = std::false_type;
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

    // A copy-constructed container is on the heap of the container it copies (a snapshot
    // usually lives beside its original). std::pmr gives the copy the default resource
    // instead; here that would be the default heap, the silent escape from a private heap
    // that scoped allocation exists to prevent. To copy onto another heap, say so:
    // tlsf::vector<int> copy(original, other_heap).
    allocator select_on_container_copy_construction() const noexcept {
        return *this;
    }

    // Room for `n` objects of type T, aligned for T: tlsf_memalign when alignof(T) exceeds
    // tlsf::alignment, tlsf_malloc otherwise. Throws std::bad_array_new_length if
    // n * sizeof(T) overflows and std::bad_alloc if the heap has no block large enough
    // (without exceptions: the failure handler, see <tlsf/failure.hpp>); the heap's own
    // failure handler hears it first (heap::set_failure_handler). O(1).
    [[nodiscard]] T *allocate(std::size_t n) {
        heap *const on = heap_; // one copy, kept for the failure path as well
        if (n > max_size()) fail(on, failure::array_too_long, n);
        const std::size_t bytes = n * sizeof(T);
        void *block;
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD
        if (on == nullptr) {
            block = thread_heaps_allocate(bytes, alignof(T));
            if (block == nullptr) detail::fail(failure::out_of_memory, bytes);
            return static_cast<T *>(block);
        }
#endif
        if constexpr (alignof(T) > alignment)
            block = on->memalign(alignof(T), bytes);
        else
            block = detail::heap_malloc(*on, bytes); // inline lock on the default heap
        if (block == nullptr) fail(on, failure::out_of_memory, bytes);
        return static_cast<T *>(block);
    }

    // Return memory obtained from allocate(n) on an equal allocator. O(1). With
    // TLSF_CPP_SIZE_CHECKS (<tlsf/config.hpp>; on in builds without NDEBUG) `n` is checked
    // against the block (heap::free_sized): a mismatch is reported as misuse and aborts.
    // Without, `n` is not needed: every block records its size.
    void deallocate(T *pointer, std::size_t n) noexcept {
#if TLSF_CPP_DEFAULT_HEAP_PER_THREAD
        if (heap_ == nullptr) return thread_heaps_free(pointer);
#endif
#if TLSF_CPP_SIZE_CHECKS
        heap_->free_sized(pointer, n * sizeof(T), alignof(T));
#else
        (void)n;
        detail::heap_free(*heap_, pointer);
#endif
    }

    // Build a U at `where` from `args`, handing this allocator's heap to it when U takes
    // an allocator it converts to (uses-allocator construction: std::allocator_arg first,
    // or the allocator last; std::pair element by element) - what std::pmr containers do
    // for their elements. Arguments that already bring an allocator U cannot take a
    // second one with are used as given. Containers call it for every element they
    // build; for a U without an allocator it is plain placement new.
    template <class U, class... Args>
    void construct(U *where, Args &&...args) {
        detail::construct_using_allocator(where, *this, std::forward<Args>(args)...);
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
    // The heap's failure handler (null: the per-thread heaps), then the process-wide one
    // and the exception. Out of line: allocate's common path only tests for null.
    [[noreturn]] TLSF_DETAIL_COLD static void fail(heap *on, failure reason, std::size_t bytes) {
        if (on != nullptr) on->report_failure(reason, bytes);
        detail::fail(reason, bytes);
    }

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
