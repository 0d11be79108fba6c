// SPDX-License-Identifier: MIT
// Stateless allocator that goes straight to the C library's malloc/free
// (the "libc" baseline of the benchmark, bypassing operator new).
#ifndef CHESS_MALLOC_ALLOCATOR_HPP
#define CHESS_MALLOC_ALLOCATOR_HPP

#include <cstddef>
#include <cstdlib>

namespace chess {

template <class T>
class malloc_allocator {
  public:
    using value_type = T;

    malloc_allocator() noexcept = default;
    template <class U>
    malloc_allocator(const malloc_allocator<U> &) noexcept {}

    T *allocate(std::size_t n) {
        void *p = std::malloc(n * sizeof(T));
        if (p == nullptr) std::abort(); // usable with and without exceptions
        return static_cast<T *>(p);
    }

    void deallocate(T *p, std::size_t) noexcept { std::free(p); }
};

template <class T, class U>
bool operator==(const malloc_allocator<T> &, const malloc_allocator<U> &) noexcept {
    return true;
}
template <class T, class U>
bool operator!=(const malloc_allocator<T> &, const malloc_allocator<U> &) noexcept {
    return false;
}

} // namespace chess

#endif // CHESS_MALLOC_ALLOCATOR_HPP
