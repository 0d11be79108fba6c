// SPDX-License-Identifier: MIT
// tlsf/allocate_unique.hpp - std::unique_ptr to objects on a tlsf::heap.
//
//   auto sensor = tlsf::allocate_unique<reading>(heap, 42);       // tlsf::unique_ptr<reading>
//   auto samples = tlsf::allocate_unique<float[]>(heap, 256);      // 256 value-initialised
//
// What std::allocate_shared is for shared ownership: the object is built on the heap of
// an allocator (or a heap given directly), with that heap handed to it if it takes an
// allocator (uses-allocator construction, as tlsf::allocator::construct), and the
// deleter destroys it and frees it there. The deleter holds the allocator: one pointer
// beside the object's (two for arrays, which keep their length).
//
// Unlike std::default_delete, tlsf::deleter<Derived> does not convert to
// tlsf::deleter<Base>: the deleter frees the object as the type it was built as (its size
// is checked with TLSF_CPP_SIZE_CHECKS), so a tlsf::unique_ptr<Base> holds a Base.
#ifndef TLSF_ALLOCATE_UNIQUE_HPP
#define TLSF_ALLOCATE_UNIQUE_HPP

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "tlsf/allocator.hpp"
#include "tlsf/heap.hpp"

namespace tlsf {

// Destroys and frees one T built by allocate_unique.
template <class T>
class deleter {
  public:
    // A deleter on the default heap: what a default-constructed (empty) unique_ptr holds.
    deleter() noexcept = default;
    explicit deleter(const allocator<T> &alloc) noexcept : alloc_(alloc) {}

    void operator()(T *object) const noexcept {
        allocator<T> alloc = alloc_;
        std::allocator_traits<allocator<T>>::destroy(alloc, object);
        alloc.deallocate(object, 1);
    }

    const allocator<T> &get_allocator() const noexcept { return alloc_; }

  private:
    allocator<T> alloc_;
};

// Destroys and frees an array of T built by allocate_unique<T[]>, last element first.
template <class T>
class deleter<T[]> {
  public:
    deleter() noexcept = default;
    deleter(const allocator<T> &alloc, std::size_t count) noexcept : alloc_(alloc), count_(count) {}

    void operator()(T *first) const noexcept {
        allocator<T> alloc = alloc_;
        for (std::size_t i = count_; i > 0; --i)
            std::allocator_traits<allocator<T>>::destroy(alloc, first + (i - 1));
        alloc.deallocate(first, count_);
    }

    const allocator<T> &get_allocator() const noexcept { return alloc_; }
    std::size_t size() const noexcept { return count_; }

  private:
    allocator<T> alloc_;
    std::size_t count_ = 0;
};

// A unique_ptr that owns an object (or array) on a TLSF heap.
template <class T>
using unique_ptr = std::unique_ptr<T, deleter<T>>;

// One T built from `args` on the heap of `alloc`. Throws what the allocation throws
// (std::bad_alloc when the heap is full; see tlsf::allocator::allocate) and what T's
// constructor throws, after freeing the memory.
template <class T, class U, class... Args>
std::enable_if_t<!std::is_array<T>::value, unique_ptr<T>> allocate_unique(const allocator<U> &alloc,
                                                                          Args &&...args) {
    allocator<T> typed(alloc);
    T *object = typed.allocate(1);
#if TLSF_CPP_EXCEPTIONS
    try {
        typed.construct(object, std::forward<Args>(args)...);
    } catch (...) {
        typed.deallocate(object, 1);
        throw;
    }
#else
    typed.construct(object, std::forward<Args>(args)...);
#endif
    return unique_ptr<T>(object, deleter<T>(typed));
}

// `count` value-initialised elements of E (T is E[]) on the heap of `alloc`; elements
// already built are destroyed, and the memory freed, if one constructor throws. A count of
// 0 gives a non-null pointer to no element.
template <class T, class U>
std::enable_if_t<std::is_array<T>::value && std::extent<T>::value == 0, unique_ptr<T>>
allocate_unique(const allocator<U> &alloc, std::size_t count) {
    using element = std::remove_extent_t<T>;
    allocator<element> typed(alloc);
    element *first = typed.allocate(count);
    std::size_t built = 0;
#if TLSF_CPP_EXCEPTIONS
    try {
        for (; built < count; ++built)
            typed.construct(first + built);
    } catch (...) {
        while (built > 0)
            std::allocator_traits<allocator<element>>::destroy(typed, first + --built);
        typed.deallocate(first, count);
        throw;
    }
#else
    for (; built < count; ++built)
        typed.construct(first + built);
#endif
    return unique_ptr<T>(first, deleter<T>(typed, count));
}

// The same on `h` directly.
template <class T, class... Args>
std::enable_if_t<!std::is_array<T>::value, unique_ptr<T>> allocate_unique(heap &h, Args &&...args) {
    return allocate_unique<T>(allocator<char>(h), std::forward<Args>(args)...);
}
template <class T>
std::enable_if_t<std::is_array<T>::value && std::extent<T>::value == 0, unique_ptr<T>>
allocate_unique(heap &h, std::size_t count) {
    return allocate_unique<T>(allocator<char>(h), count);
}

} // namespace tlsf

#endif // TLSF_ALLOCATE_UNIQUE_HPP
