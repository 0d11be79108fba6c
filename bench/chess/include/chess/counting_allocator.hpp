// SPDX-License-Identifier: MIT
// Stateful malloc-based allocator that records every call in a shared
// AllocationStats object. Used by the tests (to prove that all engine memory
// goes through the supplied allocator and is returned) and by the perft CLI
// (to report allocations per node and peak heap use).
//
// It is deliberately not default-constructible: it checks that the engine
// really passes allocator instances along instead of conjuring new ones.
#ifndef CHESS_COUNTING_ALLOCATOR_HPP
#define CHESS_COUNTING_ALLOCATOR_HPP

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace chess {

struct AllocationStats {
    std::uint64_t allocations = 0;
    std::uint64_t deallocations = 0;
    std::uint64_t bytes_allocated = 0; // cumulative
    std::size_t bytes_in_use = 0;
    std::size_t peak_bytes_in_use = 0;
};

template <class T>
class counting_allocator {
  public:
    using value_type = T;

    explicit counting_allocator(AllocationStats &stats) noexcept : stats_(&stats) {}
    template <class U>
    counting_allocator(const counting_allocator<U> &other) noexcept : stats_(other.stats()) {}

    T *allocate(std::size_t n) {
        const std::size_t bytes = n * sizeof(T);
        void *p = std::malloc(bytes);
        if (p == nullptr) std::abort();
        ++stats_->allocations;
        stats_->bytes_allocated += bytes;
        stats_->bytes_in_use += bytes;
        if (stats_->bytes_in_use > stats_->peak_bytes_in_use) {
            stats_->peak_bytes_in_use = stats_->bytes_in_use;
        }
        return static_cast<T *>(p);
    }

    void deallocate(T *p, std::size_t n) noexcept {
        ++stats_->deallocations;
        stats_->bytes_in_use -= n * sizeof(T);
        std::free(p);
    }

    AllocationStats *stats() const noexcept { return stats_; }

  private:
    AllocationStats *stats_;
};

template <class T, class U>
bool operator==(const counting_allocator<T> &a, const counting_allocator<U> &b) noexcept {
    return a.stats() == b.stats();
}
template <class T, class U>
bool operator!=(const counting_allocator<T> &a, const counting_allocator<U> &b) noexcept {
    return !(a == b);
}

} // namespace chess

#endif // CHESS_COUNTING_ALLOCATOR_HPP
