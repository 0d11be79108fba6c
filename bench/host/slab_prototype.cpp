// SPDX-License-Identifier: MIT
// slab_prototype.cpp - a design experiment, not part of the library: would a slab front
// end over a TLSF heap meet the std::list and std::map targets of the front-cache issue
// (at most 0.8 of glibc's time), and what would it cost in fragmentation?
//
// The front cache keeps at most its budget of freed blocks whole; a burst of 100,000 list
// nodes, far beyond it, takes TLSF's merging paths. A slab front end never merges small
// blocks: requests up to 256 bytes are cut from slabs of one size class each (a slab is
// one TLSF block, aligned to its size, so a pointer finds its slab with a mask), freed
// ones go on their slab's free list, and an empty slab that is not its class's current
// one goes back to TLSF. Every call is still O(1). Each object carries one word before
// it, as a TLSF block does: bit 0 set (a live TLSF block never has it: it is the free
// flag) tells slab objects from TLSF blocks, bit 1 says whether the object is free (a
// double free is seen). It has none of the library's checks, statistics or tools.
//
//   tlsf_slab_prototype [SLAB_BYTES]   (default 4096; a power of two, 4 KiB to 64 KiB)
//
// Prints (1) the list and map rows of bench_stl.cpp, each allocator in turn per
// repetition, medians as ratios to glibc; (2) the live fraction at the first failure in a
// 1 MiB heap, as tlsf_fragmentation measures it (same sizes, seeds and patterns).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <tlsf/tlsf.hpp>

#include "fragmentation_loop.hpp"
#include "rng.hpp"

namespace {

constexpr std::size_t kGrain = 16;    // object sizes are multiples of this
constexpr std::size_t kLargest = 256; // larger requests go to TLSF
constexpr std::size_t kWord = sizeof(std::uintptr_t);
constexpr std::size_t kClasses = kLargest / kGrain + 2;
constexpr std::uintptr_t kSlabObject = 1; // bit 0 of the word before an object
constexpr std::uintptr_t kFreeObject = 2; // bit 1

struct slab {
    void *free_list;  // freed objects, linked through their first word
    char *bump, *end; // never used space
    std::size_t live, slot;
    std::size_t size_class;
    slab *next, *prev; // the class's partial slabs (room left, not current)
    bool partial;
};

class slab_heap {
  public:
    slab_heap(tlsf_t heap, std::size_t slab_bytes) : tlsf_(heap), slab_bytes_(slab_bytes) {}

    void *allocate(std::size_t bytes) {
        if (bytes > kLargest) return tlsf_malloc(tlsf_, bytes);
        const std::size_t c = (bytes + kWord + kGrain - 1) / kGrain;
        if (slab *s = current_[c]) {
            if (void *p = take(s)) return p;
        }
        return refill(c);
    }

    void deallocate(void *p) {
        if (p == nullptr) return;
        std::uintptr_t &tag = word_before(p);
        if ((tag & kSlabObject) == 0) return tlsf_free(tlsf_, p);
        if (tag & kFreeObject) std::abort(); // double free
        tag |= kFreeObject;
        slab *s = reinterpret_cast<slab *>(reinterpret_cast<std::uintptr_t>(p) &
                                           ~static_cast<std::uintptr_t>(slab_bytes_ - 1));
        *static_cast<void **>(p) = s->free_list;
        s->free_list = p;
        if (--s->live == 0 && s != current_[s->size_class]) {
            if (s->partial) unlink(s);
            tlsf_free(tlsf_, s);
        } else if (!s->partial && s != current_[s->size_class]) {
            link(s);
        }
    }

  private:
    static constexpr std::size_t round_up(std::size_t n) {
        return (n + kGrain - 1) / kGrain * kGrain;
    }

    static std::uintptr_t &word_before(void *p) {
        return *reinterpret_cast<std::uintptr_t *>(static_cast<char *>(p) - kWord);
    }

    static void *take(slab *s) {
        void *p = s->free_list;
        if (p != nullptr) {
            s->free_list = *static_cast<void **>(p);
            word_before(p) &= ~kFreeObject;
        } else if (s->bump + s->slot <= s->end) {
            p = s->bump + kWord;
            word_before(p) = kSlabObject;
            s->bump += s->slot;
        } else {
            return nullptr;
        }
        ++s->live;
        return p;
    }

    void *refill(std::size_t c) {
        slab *s = partial_[c];
        if (s != nullptr) {
            unlink(s);
        } else {
            s = static_cast<slab *>(tlsf_memalign(tlsf_, slab_bytes_, slab_bytes_));
            if (s == nullptr) return nullptr;
            s->free_list = nullptr;
            // The first object's word ends where a kGrain boundary begins.
            s->bump = reinterpret_cast<char *>(s) + round_up(sizeof(slab) + kWord) - kWord;
            s->end = reinterpret_cast<char *>(s) + slab_bytes_;
            s->live = 0;
            s->slot = c * kGrain;
            s->size_class = c;
            s->partial = false;
        }
        // The slab it replaces is full: its frees will put it on the partial list.
        current_[c] = s;
        return take(s);
    }

    void link(slab *s) {
        s->prev = nullptr;
        s->next = partial_[s->size_class];
        if (s->next != nullptr) s->next->prev = s;
        partial_[s->size_class] = s;
        s->partial = true;
    }
    void unlink(slab *s) {
        if (s->prev != nullptr)
            s->prev->next = s->next;
        else
            partial_[s->size_class] = s->next;
        if (s->next != nullptr) s->next->prev = s->prev;
        s->partial = false;
    }

    tlsf_t tlsf_;
    std::size_t slab_bytes_;
    slab *current_[kClasses] = {};
    slab *partial_[kClasses] = {};
};

template <class T>
struct slab_allocator {
    using value_type = T;
    explicit slab_allocator(slab_heap &h) noexcept : heap(&h) {}
    template <class U>
    slab_allocator(const slab_allocator<U> &other) noexcept : heap(other.heap) {}
    T *allocate(std::size_t n) {
        void *p = heap->allocate(n * sizeof(T));
        if (p == nullptr) throw std::bad_alloc();
        return static_cast<T *>(p);
    }
    void deallocate(T *p, std::size_t) noexcept { heap->deallocate(p); }
    slab_heap *heap;
};
template <class T, class U>
bool operator==(const slab_allocator<T> &a, const slab_allocator<U> &b) {
    return a.heap == b.heap;
}
template <class T, class U>
bool operator!=(const slab_allocator<T> &a, const slab_allocator<U> &b) {
    return a.heap != b.heap;
}

template <class Alloc, class T>
using rebind = typename std::allocator_traits<Alloc>::template rebind_alloc<T>;

using seconds = std::chrono::duration<double>;

template <class Alloc>
double time_list(const Alloc &alloc) {
    const auto start = std::chrono::steady_clock::now();
    {
        std::list<int, rebind<Alloc, int>> l{rebind<Alloc, int>(alloc)};
        for (int i = 0; i < 100000; ++i)
            l.push_back(i);
        while (!l.empty())
            l.pop_front();
    }
    return seconds(std::chrono::steady_clock::now() - start).count();
}

struct map_keys {
    std::vector<int> insert, erase;
};

template <class Alloc>
double time_map(const Alloc &alloc, const map_keys &keys) {
    using value = std::pair<const int, int>;
    const auto start = std::chrono::steady_clock::now();
    {
        std::map<int, int, std::less<int>, rebind<Alloc, value>> m{rebind<Alloc, value>(alloc)};
        for (int k : keys.insert)
            m.emplace(k, k);
        for (int k : keys.erase)
            m.erase(k);
    }
    return seconds(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// A fixed heap of `bytes`, through TLSF alone or through the slab front end.
class fixed_heap {
  public:
    fixed_heap(std::size_t bytes, std::size_t slab_bytes)
        : memory_(bytes / sizeof(std::max_align_t)), bytes_(bytes), slab_bytes_(slab_bytes) {}
    void reset() {
        tlsf_ = tlsf_create_with_pool(memory_.data(), bytes_);
        slabs_ = std::make_unique<slab_heap>(tlsf_, slab_bytes_);
    }
    void *allocate(std::size_t n) {
        return slab_bytes_ ? slabs_->allocate(n) : tlsf_malloc(tlsf_, n);
    }
    void deallocate(void *p) {
        if (slab_bytes_)
            slabs_->deallocate(p);
        else
            tlsf_free(tlsf_, p);
    }
    std::size_t bytes() const { return bytes_; }

  private:
    std::vector<std::max_align_t> memory_;
    std::size_t bytes_, slab_bytes_;
    tlsf_t tlsf_ = nullptr;
    std::unique_ptr<slab_heap> slabs_;
};

double mean_live_fraction(fixed_heap &heap, std::uint32_t free_one_in) {
    constexpr int kSeeds = 20;
    double sum = 0;
    for (int seed = 1; seed <= kSeeds; ++seed) {
        heap.reset();
        const bench::failure_point at =
            bench::grow_until_failure(heap, static_cast<std::uint64_t>(seed), free_one_in);
        sum += static_cast<double>(at.live_bytes) / static_cast<double>(heap.bytes());
    }
    return sum / kSeeds;
}

} // namespace

int main(int argc, char **argv) {
    const std::size_t slab_bytes = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 4096;
    if (slab_bytes < 4096 || slab_bytes > 65536 || (slab_bytes & (slab_bytes - 1)) != 0) {
        std::fprintf(stderr,
                     "usage: tlsf_slab_prototype [SLAB_BYTES: a power of two, 4096..65536]\n");
        return 2;
    }

    map_keys keys;
    bench::rng gen(0x5EED0003u);
    for (int i = 0; i < 100000; ++i)
        keys.insert.push_back(static_cast<int>(gen.next() >> 33));
    keys.erase = keys.insert;
    for (std::size_t i = keys.erase.size() - 1; i > 0; --i)
        std::swap(keys.erase[i], keys.erase[gen.below(static_cast<std::uint32_t>(i + 1))]);

    constexpr std::size_t kHeapBytes = std::size_t{64} << 20;
    std::vector<std::max_align_t> plain_memory(kHeapBytes / sizeof(std::max_align_t));
    std::vector<std::max_align_t> slab_memory(kHeapBytes / sizeof(std::max_align_t));
    tlsf::heap plain(plain_memory.data(), kHeapBytes);
    slab_heap slabs(tlsf_create_with_pool(slab_memory.data(), kHeapBytes), slab_bytes);

    const char *names[] = {"glibc (std::allocator)", "tlsf::allocator", "slabs over TLSF"};
    std::vector<double> list_times[3], map_times[3];
    for (int rep = 0; rep < 41; ++rep) { // the list row alone, as in the suite
        list_times[0].push_back(time_list(std::allocator<char>()));
        list_times[1].push_back(time_list(tlsf::allocator<char>(plain)));
        list_times[2].push_back(time_list(slab_allocator<char>(slabs)));
    }
    for (int rep = 0; rep < 21; ++rep) {
        map_times[0].push_back(time_map(std::allocator<char>(), keys));
        map_times[1].push_back(time_map(tlsf::allocator<char>(plain), keys));
        map_times[2].push_back(time_map(slab_allocator<char>(slabs), keys));
    }
    std::printf("slabs of %zu bytes; medians of 41 (list) and 21 (map) interleaved runs\n",
                slab_bytes);
    std::printf("%-24s %12s %8s %12s %8s\n", "allocator", "list ms", "/ glibc", "map ms",
                "/ glibc");
    for (int a = 0; a < 3; ++a) {
        std::printf("%-24s %12.3f %8.2f %12.3f %8.2f\n", names[a], median(list_times[a]) * 1e3,
                    median(list_times[a]) / median(list_times[0]), median(map_times[a]) * 1e3,
                    median(map_times[a]) / median(map_times[0]));
    }

    fixed_heap tlsf_only(std::size_t{1} << 20, 0), with_slabs(std::size_t{1} << 20, slab_bytes);
    std::printf("live bytes at the first failure in a 1 MiB heap (mean of 20 seeds): "
                "fill %.1f%% / %.1f%%, mixed %.1f%% / %.1f%% (TLSF / slabs over TLSF)\n",
                100 * mean_live_fraction(tlsf_only, 0), 100 * mean_live_fraction(with_slabs, 0),
                100 * mean_live_fraction(tlsf_only, 3), 100 * mean_live_fraction(with_slabs, 3));
    return 0;
}
