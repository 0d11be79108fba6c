// SPDX-License-Identifier: MIT
// stl_allocators.hpp - the standard allocators the STL and chess suites compare.
//
//   std::allocator            operator new -> glibc malloc: the baseline
//   tlsf::allocator           bound to a tlsf::heap of its own (no lock, as on one core)
//   tlsf::allocator(slabs)    the same with slabs (set_slabs(4096); 64-bit builds)
//   tlsf::allocator(default)  the process default heap (std::mutex, grows by mmap)
//   pmr(tlsf)                 std::pmr::polymorphic_allocator on tlsf::memory_resource
//   pmr(new_delete)           std::pmr::polymorphic_allocator on new_delete_resource(),
//                             to separate the cost of pmr's virtual calls from TLSF's
//   jemalloc, mimalloc, ...   the dlopen()ed peers, through peer_allocator below
#ifndef TLSF_BENCH_STL_ALLOCATORS_HPP
#define TLSF_BENCH_STL_ALLOCATORS_HPP

#include <cstddef>
#include <memory>
#include <memory_resource>
#include <new>
#include <vector>

#include <tlsf/tlsf.hpp>

#include "raw_heaps.hpp"

namespace bench {

// A standard Allocator over a peer's malloc/free.
template <class T>
class peer_allocator {
  public:
    using value_type = T;

    explicit peer_allocator(const peer_api &api) noexcept : api_(&api) {}
    template <class U>
    peer_allocator(const peer_allocator<U> &other) noexcept : api_(&other.api()) {}

    T *allocate(std::size_t n) {
        void *p = api_->allocate(n * sizeof(T));
        if (p == nullptr) throw std::bad_alloc();
        return static_cast<T *>(p);
    }
    void deallocate(T *p, std::size_t) noexcept { api_->deallocate(p); }

    const peer_api &api() const noexcept { return *api_; }

  private:
    const peer_api *api_;
};

template <class T, class U>
bool operator==(const peer_allocator<T> &a, const peer_allocator<U> &b) noexcept {
    return &a.api() == &b.api();
}
template <class T, class U>
bool operator!=(const peer_allocator<T> &a, const peer_allocator<U> &b) noexcept {
    return !(a == b);
}

// The TLSF heap of the C++ suites: 64 MiB, zeroed up front so that no page fault lands
// in a timed region, and without a lock. Every benchmark frees all it allocated, so they
// can share it.
inline tlsf::heap &cpp_suite_heap() {
    constexpr std::size_t kBytes = std::size_t{64} << 20;
    static std::vector<std::max_align_t> memory(kBytes / sizeof(std::max_align_t));
    static tlsf::heap heap(memory.data(), kBytes);
    return heap;
}

// The same with slabs (tlsf::heap::set_slabs, 4 KiB): what a heap that opts in gets.
inline tlsf::heap &cpp_suite_slab_heap() {
    constexpr std::size_t kBytes = std::size_t{64} << 20;
    static std::vector<std::max_align_t> memory(kBytes / sizeof(std::max_align_t));
    static tlsf::heap heap(memory.data(), kBytes);
    static const bool with_slabs = heap.set_slabs(4096);
    (void)with_slabs;
    return heap;
}

inline tlsf::memory_resource &cpp_suite_resource() {
    static tlsf::memory_resource resource(cpp_suite_heap());
    return resource;
}

// Calls visit(name, allocator) for every allocator above, std::allocator first. The
// allocators are for `char`; the suites rebind them.
template <class Visit>
void for_each_stl_allocator(heap_set &heaps, Visit &&visit) {
    visit("std::allocator", std::allocator<char>());
    visit("tlsf::allocator", tlsf::allocator<char>(cpp_suite_heap()));
    if (TLSF_SLABS) visit("tlsf::allocator(slabs)", tlsf::allocator<char>(cpp_suite_slab_heap()));
    visit("tlsf::allocator(default)", tlsf::allocator<char>());
    visit("pmr(tlsf)", std::pmr::polymorphic_allocator<char>(&cpp_suite_resource()));
    visit("pmr(new_delete)",
          std::pmr::polymorphic_allocator<char>(std::pmr::new_delete_resource()));
    for (const peer_heap &peer : heaps.peers())
        visit(peer.name(), peer_allocator<char>(peer.api()));
}

} // namespace bench

#endif // TLSF_BENCH_STL_ALLOCATORS_HPP
