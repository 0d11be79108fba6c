// SPDX-License-Identifier: MIT
// raw_heaps.hpp - one small interface over every allocator's malloc/free entry points.
//
// A raw heap has name(), allocate(bytes) and deallocate(ptr). The workloads are templates
// over it, so the libc and TLSF calls are direct calls (as in a program that uses them)
// and only the dlopen()ed peers go through a function pointer (as through a PLT).
#ifndef TLSF_BENCH_RAW_HEAPS_HPP
#define TLSF_BENCH_RAW_HEAPS_HPP

#include <cstddef>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "peers.hpp"
#include "tlsf.h"

namespace bench {

// glibc's malloc and free: the baseline every ratio is relative to.
class libc_heap {
  public:
    const char *name() const { return "libc"; }
    void *allocate(std::size_t bytes) { return std::malloc(bytes); }
    void deallocate(void *ptr) { std::free(ptr); }
};

// A TLSF heap through the C API, over memory it owns. The memory is zeroed when the
// heap is made, so no page fault lands in a timed region: a real-time system prepares
// its pool the same way.
class tlsf_c_heap {
  public:
    // With `slab_bytes`, the heap has slabs of that size (tlsf_slabs_enable).
    explicit tlsf_c_heap(std::size_t bytes, std::size_t slab_bytes = 0)
        : memory_(words_for(bytes)), slab_bytes_(slab_bytes) {
        reset();
    }
    tlsf_c_heap(const tlsf_c_heap &) = delete;
    tlsf_c_heap &operator=(const tlsf_c_heap &) = delete;

    const char *name() const { return slab_bytes_ ? "tlsf-slab" : "tlsf"; }
    void *allocate(std::size_t bytes) { return tlsf_malloc(heap_, bytes); }
    void deallocate(void *ptr) { tlsf_free(heap_, ptr); }

    // Start over with an empty heap: the state every pass of a repeated run begins in.
    void reset() {
        heap_ = tlsf_create_with_pool(memory_.data(), memory_.size() * sizeof(std::max_align_t));
        if (heap_ == nullptr || tlsf_slabs_enable(heap_, slab_bytes_) != 0) throw std::bad_alloc();
    }

    tlsf_t handle() const { return heap_; }
    std::size_t bytes() const { return memory_.size() * sizeof(std::max_align_t); }

  private:
    static std::size_t words_for(std::size_t bytes) {
        return (bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
    }

    std::vector<std::max_align_t> memory_; // aligned to tlsf_align_size() on every target
    std::size_t slab_bytes_;
    tlsf_t heap_ = nullptr;
};

// A peer allocator (jemalloc, mimalloc, tcmalloc) through the entry points load_peers()
// found.
class peer_heap {
  public:
    explicit peer_heap(const peer_api &api) : api_(api) {}
    const char *name() const { return api_.name.c_str(); }
    void *allocate(std::size_t bytes) { return api_.allocate(bytes); }
    void deallocate(void *ptr) { api_.deallocate(ptr); }
    const peer_api &api() const { return api_; }

  private:
    peer_api api_;
};

// glibc adapts two thresholds the first time it frees a block it got from mmap(): blocks
// up to that size then come from the heap, and the heap is trimmed (its top given back
// to the OS, to be faulted in again on next use) only beyond twice that size. Until
// then it trims above 128 KiB, so a workload that frees a few MiB pays thousands of page
// faults per iteration - or not, depending on which benchmark happened to run before.
// Freeing one 16 MiB block up front puts glibc in the state of a program that has done
// so once (most long-running programs have), and makes the libc figures independent of
// the order the benchmarks run in.
inline void settle_libc_thresholds() {
    void *volatile block = std::malloc(std::size_t{16} << 20); // volatile: not elided
    std::free(block);
}

// Every raw heap of one run: libc, TLSF and the peers that loaded.
class heap_set {
  public:
    explicit heap_set(std::size_t tlsf_bytes) : tlsf_(tlsf_bytes) {
        settle_libc_thresholds();
        peer_set peers = load_peers();
        notes_ = peers.notes;
        for (const peer_api &api : peers.loaded)
            peers_.emplace_back(api);
    }

    // Calls visit(heap) for each heap, libc first.
    template <class Visit>
    void for_each(Visit &&visit) {
        visit(libc_);
        visit(tlsf_);
        for (peer_heap &peer : peers_)
            visit(peer);
    }

    libc_heap &libc() { return libc_; }
    tlsf_c_heap &tlsf() { return tlsf_; }
    std::vector<peer_heap> &peers() { return peers_; }
    const std::vector<std::string> &notes() const { return notes_; }

  private:
    libc_heap libc_;
    tlsf_c_heap tlsf_;
    std::vector<peer_heap> peers_;
    std::vector<std::string> notes_;
};

} // namespace bench

#endif // TLSF_BENCH_RAW_HEAPS_HPP
