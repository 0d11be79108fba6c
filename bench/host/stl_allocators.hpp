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
//   pmr(pool)                 std::pmr::unsynchronized_pool_resource on
//                             new_delete_resource(): the standard's own pooling
//                             resource, as a C++ program on one thread would use it
//   pmr(monotonic)            std::pmr::monotonic_buffer_resource on a 64 MiB buffer
//                             (new_delete_resource() beyond it), released at the end of
//                             every benchmark round (see end_of_round below)
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

// The standard's pooling resource with its default options on the standard's default
// upstream (new_delete_resource(), i.e. glibc): what `std::pmr` offers a single-threaded
// program that wants its containers fast. It keeps the chunks it took from upstream until
// it is destroyed, as the TLSF heap keeps its pool, so it is shared by every benchmark.
inline std::pmr::unsynchronized_pool_resource &cpp_suite_pool() {
    static std::pmr::unsynchronized_pool_resource pool(std::pmr::new_delete_resource());
    return pool;
}

// The standard's arena: allocation bumps a pointer and deallocation does nothing, so it
// serves a task whose memory all dies at one moment, and release() at that moment is its
// free. Its fair use here: one benchmark round (a container built and destroyed, one
// perft) is that task, so every round ends with release() (end_of_round below, timed with
// the round). It starts from a 64 MiB buffer zeroed up front, as the TLSF heap above does,
// so that neither pays page faults in a timed region; every round here needs under 16 MiB
// (perft(4): 5 MiB). Beyond the buffer it takes more from new_delete_resource() (the
// untimed reference perfts of the chess suite do), which release() gives back.
class monotonic_arena {
  public:
    monotonic_arena()
        : buffer_(kBytes / sizeof(std::max_align_t)),
          resource_(buffer_.data(), kBytes, std::pmr::new_delete_resource()) {}
    monotonic_arena(const monotonic_arena &) = delete;
    monotonic_arena &operator=(const monotonic_arena &) = delete;

    std::pmr::memory_resource *resource() noexcept { return &resource_; }
    void release() noexcept { resource_.release(); }

  private:
    static constexpr std::size_t kBytes = std::size_t{64} << 20;
    std::vector<std::max_align_t> buffer_; // declared first: it outlives the resource
    std::pmr::monotonic_buffer_resource resource_;
};

inline monotonic_arena &cpp_suite_arena() {
    static monotonic_arena arena;
    return arena;
}

// Whether `alloc` is the monotonic arena's, whose rounds end with release().
template <class Alloc>
bool releases_per_round(const Alloc &) noexcept {
    return false;
}
template <class T>
bool releases_per_round(const std::pmr::polymorphic_allocator<T> &alloc) noexcept {
    return alloc.resource() == cpp_suite_arena().resource();
}

// Called by every suite where a round's memory is all dead (its containers destroyed):
// nothing for an allocator that frees block by block, release() for the arena.
template <class Alloc>
void end_of_round(const Alloc &alloc) noexcept {
    if (releases_per_round(alloc)) cpp_suite_arena().release();
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
    visit("pmr(pool)", std::pmr::polymorphic_allocator<char>(&cpp_suite_pool()));
    visit("pmr(monotonic)", std::pmr::polymorphic_allocator<char>(cpp_suite_arena().resource()));
    for (const peer_heap &peer : heaps.peers())
        visit(peer.name(), peer_allocator<char>(peer.api()));
}

} // namespace bench

#endif // TLSF_BENCH_STL_ALLOCATORS_HPP
