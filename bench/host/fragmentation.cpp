// SPDX-License-Identifier: MIT
// fragmentation.cpp - workload 7: how full a fixed heap gets before a request fails.
//
// Random sizes of 8..1024 bytes (workload 2's distribution) go into a fixed 1 MiB TLSF
// heap (control structure included) until the first allocation fails; the figure is
// the bytes the program asked for and still holds at that moment, as a fraction of the
// heap. Two growth patterns:
//   fill    allocate only: the cost of headers, alignment and size-class rounding
//   mixed   each step frees a random live block with probability 1/3, else allocates:
//           the live set grows while holes open and close, so fragmentation adds in
// Each runs over 20 seeds; min, mean and max are reported. With slabs (64-bit builds) the
// same heap with 4 KiB slabs (tlsf-slab) shows what a fixed heap gives up for them.
//
// Peers: glibc, jemalloc and tcmalloc cannot be confined to a caller-given region
// through their public interfaces (jemalloc could through custom extent hooks, but its
// metadata would still live outside), so they are not measured. mimalloc 2.x can: an
// exclusive arena (mi_manage_os_memory_ex) with a heap bound to it, but it refuses
// arenas smaller than one 32 MiB segment, so the tool tries 1 MiB (and says that it was
// refused) and also runs both allocators in a 32 MiB region as a side-by-side figure.
//
//   tlsf_fragmentation [--out DIR]    writes DIR/fragmentation.csv
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fragmentation_loop.hpp"
#include "page_heap.h"
#include "raw_heaps.hpp"
#include "rng.hpp"

namespace {

constexpr int kSeeds = 20;
using bench::failure_point;
using bench::grow_until_failure;
using bench::kMaxSize;
using bench::kMinSize;

// A mimalloc heap confined to an exclusive arena over a region this tool owns.
class mimalloc_arena {
  public:
    using manage_fn = bool (*)(void *, std::size_t, bool, bool, bool, int, bool, int *);
    using heap_new_fn = void *(*)(int);
    using heap_malloc_fn = void *(*)(void *, std::size_t);
    using heap_destroy_fn = void (*)(void *);
    using free_fn = void (*)(void *);

    // Empty (usable() false) when mimalloc is absent or refuses the region; why() says.
    mimalloc_arena(const bench::peer_api *mimalloc, std::size_t bytes) : bytes_(bytes) {
        if (mimalloc == nullptr) {
            why_ = "mimalloc not loaded";
            return;
        }
        auto manage =
            reinterpret_cast<manage_fn>(dlsym(mimalloc->handle, "mi_manage_os_memory_ex"));
        heap_new_ = reinterpret_cast<heap_new_fn>(dlsym(mimalloc->handle, "mi_heap_new_in_arena"));
        heap_malloc_ = reinterpret_cast<heap_malloc_fn>(dlsym(mimalloc->handle, "mi_heap_malloc"));
        heap_destroy_ =
            reinterpret_cast<heap_destroy_fn>(dlsym(mimalloc->handle, "mi_heap_destroy"));
        free_ = reinterpret_cast<free_fn>(dlsym(mimalloc->handle, "mi_free"));
        if (!manage || !heap_new_ || !heap_malloc_ || !heap_destroy_ || !free_) {
            why_ = "this mimalloc has no arena API";
            return;
        }
        // Segment-aligned, as mimalloc wants its arenas. The arena cannot be handed back to
        // the operating system, so the region lives until the process ends.
        constexpr std::size_t kSegment = std::size_t{32} << 20;
        region_ = std::aligned_alloc(kSegment, (bytes + kSegment - 1) / kSegment * kSegment);
        if (region_ == nullptr || !manage(region_, bytes, true, false, false, -1, true, &arena_)) {
            why_ = "mi_manage_os_memory_ex refused a " + std::to_string(bytes >> 10) + " KiB arena";
            return;
        }
        usable_ = true;
    }

    bool usable() const { return usable_; }
    const std::string &why() const { return why_; }
    const char *name() const { return "mimalloc"; }
    std::size_t bytes() const { return bytes_; }

    // A fresh heap in the arena; destroying the previous one returns its pages.
    void reset() {
        if (heap_ != nullptr) heap_destroy_(heap_);
        heap_ = heap_new_(arena_);
    }
    void *allocate(std::size_t size) {
        void *p = heap_malloc_(heap_, size);
        const auto *base = static_cast<const unsigned char *>(region_);
        const auto *q = static_cast<const unsigned char *>(p);
        if (p != nullptr && (q < base || q >= base + bytes_)) {
            std::fprintf(stderr, "mimalloc: block outside the arena\n");
            std::exit(1);
        }
        return p;
    }
    void deallocate(void *p) { free_(p); }

  private:
    std::size_t bytes_;
    void *region_ = nullptr;
    int arena_ = 0;
    void *heap_ = nullptr;
    bool usable_ = false;
    std::string why_;
    heap_new_fn heap_new_ = nullptr;
    heap_malloc_fn heap_malloc_ = nullptr;
    heap_destroy_fn heap_destroy_ = nullptr;
    free_fn free_ = nullptr;
};

// The design study of bench/study/page_heap.h over a region of the given size; its size
// counts the descriptor table and state it keeps outside the region, as TLSF's counts the
// control structure. Only with TLSF_BENCH_STUDY set.
class page_study_heap {
  public:
    // The region starts at a multiple of the page size (16 KiB), so that how many pages fit
    // does not depend on where the C library placed the buffer.
    explicit page_study_heap(std::size_t bytes)
        : memory_((bytes + kPageBytes) / sizeof(std::max_align_t)), bytes_(bytes) {
        reset();
    }
    ~page_study_heap() { page_heap_destroy(heap_); }
    page_study_heap(const page_study_heap &) = delete;
    page_study_heap &operator=(const page_study_heap &) = delete;

    const char *name() const { return "page-study"; }
    void *allocate(std::size_t bytes) { return page_heap_malloc(heap_, bytes); }
    void deallocate(void *ptr) { page_heap_free(heap_, ptr); }
    void reset() {
        page_heap_destroy(heap_);
        const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(memory_.data());
        const std::uintptr_t aligned = (start + kPageBytes - 1) & ~std::uintptr_t{kPageBytes - 1};
        heap_ = page_heap_create(
            reinterpret_cast<unsigned char *>(memory_.data()) + (aligned - start), bytes_);
        if (heap_ == nullptr) std::abort();
    }
    std::size_t bytes() const { return bytes_ + page_heap_overhead_bytes(heap_); }

  private:
    static constexpr std::size_t kPageBytes = 16384;
    std::vector<std::max_align_t> memory_;
    std::size_t bytes_;
    page_heap *heap_ = nullptr;
};

struct row {
    std::string pattern;
    std::string allocator;
    std::size_t heap_bytes;
    double min, mean, max; // live fraction at the first failure
    double mean_blocks;
};

template <class Heap>
row measure(Heap &heap, const char *pattern, std::uint32_t free_one_in) {
    row r{pattern, heap.name(), heap.bytes(), 1.0, 0.0, 0.0, 0.0};
    for (int seed = 1; seed <= kSeeds; ++seed) {
        heap.reset();
        const failure_point at =
            grow_until_failure(heap, static_cast<std::uint64_t>(seed), free_one_in);
        const double fraction =
            static_cast<double>(at.live_bytes) / static_cast<double>(heap.bytes());
        r.min = std::min(r.min, fraction);
        r.max = std::max(r.max, fraction);
        r.mean += fraction / kSeeds;
        r.mean_blocks += static_cast<double>(at.live_blocks) / kSeeds;
    }
    return r;
}

// What TLSF itself accounts for at the first failure of one fill, to explain the gap:
// block headers and size-class rounding versus the control structure.
void explain_tlsf(bench::tlsf_c_heap &heap) {
    heap.reset();
    bench::rng gen(1);
    std::vector<void *> live;
    std::size_t requested = 0;
    for (;;) {
        const std::uint32_t size = gen.between(kMinSize, kMaxSize);
        void *p = heap.allocate(size);
        if (p == nullptr) break;
        live.push_back(p);
        requested += size;
    }
    tlsf_stats_t s{};
    tlsf_get_stats(heap.handle(), &s);
    const double total = static_cast<double>(heap.bytes());
    std::printf(
        "tlsf fill, seed 1: heap %zu B = control %zu B (%.1f%%) + pool %zu B; at the failure "
        "requested %zu B (%.1f%%), blocks incl. headers and rounding %zu B (%.1f%%), "
        "largest free request %zu B\n",
        heap.bytes(), tlsf_size(), 100.0 * static_cast<double>(tlsf_size()) / total, s.pool_bytes,
        requested, 100.0 * static_cast<double>(requested) / total, s.used_bytes,
        100.0 * static_cast<double>(s.used_bytes) / total, s.largest_allocatable);
    for (void *p : live)
        heap.deallocate(p);
}

} // namespace

int main(int argc, char **argv) {
    std::string out_dir = ".";
    if (argc == 3 && std::strcmp(argv[1], "--out") == 0) {
        out_dir = argv[2];
    } else if (argc != 1) {
        std::fprintf(stderr, "usage: %s [--out DIR]\n", argv[0]);
        return 2;
    }

    const bench::peer_set peers = bench::load_peers();
    const bench::peer_api *mimalloc = nullptr;
    for (const bench::peer_api &p : peers.loaded) {
        if (p.name == "mimalloc") mimalloc = &p;
    }

    std::vector<row> rows;
    bench::tlsf_c_heap small(std::size_t{1} << 20);
    rows.push_back(measure(small, "fill", 0));
    rows.push_back(measure(small, "mixed", 3));
    if (TLSF_SLABS) { // what a fixed heap gives up for slabs (tlsf_slabs_enable, 4 KiB)
        bench::tlsf_c_heap slabs(std::size_t{1} << 20, 4096);
        rows.push_back(measure(slabs, "fill", 0));
        rows.push_back(measure(slabs, "mixed", 3));
    }

    if (std::getenv("TLSF_BENCH_STUDY") != nullptr) { // the design study, same region size
        page_study_heap pages(std::size_t{1} << 20);
        rows.push_back(measure(pages, "fill", 0));
        rows.push_back(measure(pages, "mixed", 3));
        page_study_heap large_pages(std::size_t{32} << 20);
        rows.push_back(measure(large_pages, "mixed", 3));
    }

    std::vector<std::string> notes = {
        "libc, jemalloc, tcmalloc, scudo: no way to confine them to a fixed region, not measured"};
    mimalloc_arena mi_small(mimalloc, std::size_t{1} << 20);
    if (!mi_small.usable()) notes.push_back("mimalloc at 1 MiB: " + mi_small.why());

    bench::tlsf_c_heap large(std::size_t{32} << 20);
    mimalloc_arena mi_large(mimalloc, std::size_t{32} << 20);
    if (mi_large.usable()) {
        rows.push_back(measure(large, "mixed", 3));
        rows.push_back(measure(mi_large, "mixed", 3));
    } else {
        notes.push_back("mimalloc at 32 MiB: " + mi_large.why());
    }

    std::printf("live bytes at the first failed allocation / heap size, sizes %u..%u, %d seeds\n",
                kMinSize, kMaxSize, kSeeds);
    std::printf("%-7s %-9s %9s %8s %8s %8s %12s\n", "pattern", "allocator", "heap KiB", "min",
                "mean", "max", "live blocks");
    FILE *csv = std::fopen((out_dir + "/fragmentation.csv").c_str(), "w");
    if (csv == nullptr) {
        std::perror("fragmentation.csv");
        return 1;
    }
    std::fprintf(
        csv,
        "pattern,allocator,heap_bytes,min_fraction,mean_fraction,max_fraction,mean_live_blocks\n");
    for (const row &r : rows) {
        std::printf("%-7s %-9s %9zu %7.1f%% %7.1f%% %7.1f%% %12.0f\n", r.pattern.c_str(),
                    r.allocator.c_str(), r.heap_bytes >> 10, 100 * r.min, 100 * r.mean, 100 * r.max,
                    r.mean_blocks);
        std::fprintf(csv, "%s,%s,%zu,%.4f,%.4f,%.4f,%.0f\n", r.pattern.c_str(), r.allocator.c_str(),
                     r.heap_bytes, r.min, r.mean, r.max, r.mean_blocks);
    }
    std::fclose(csv);
    explain_tlsf(small);
    for (const std::string &n : peers.notes)
        notes.push_back(n);
    for (const std::string &n : notes)
        std::printf("note: %s\n", n.c_str());
    return 0;
}
