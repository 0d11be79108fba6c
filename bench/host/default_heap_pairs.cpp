// SPDX-License-Identifier: MIT
// default_heap_pairs.cpp - what the process default heap costs per allocate+deallocate
// pair, against a private heap, on the STL rows; to be counted by callgrind.
//
//   tlsf_default_heap_pairs <list|map|list-after-map> <heap> [elements [rounds]]
//
// <heap> is one of
//   default           tlsf::allocator<T>() on a single-threaded process: the default heap
//   default-threaded  the same while a second thread exists (it waits, doing nothing), so
//                     the default heap's lock is really taken, as in any threaded program
//   slabs             tlsf::allocator<T>(heap) on a private 64 MiB heap with 4 KiB slabs
//                     and no lock (the tlsf::allocator(slabs) row of tlsf_bench)
//   plain             the same without slabs (the tlsf::allocator row)
//   std               std::allocator (the C++ library's operator new: glibc's malloc)
// and `elements` (default 100,000) the number of list or map nodes. With `rounds`, the
// measured round is repeated that many times and the fastest one's time per node printed
// (wall clock; for side-by-side comparisons, not for callgrind).
//
// One round (std::list: push_back every element, pop_front them all; std::map: insert
// every key in a shuffled order, erase them in another) warms the heap up - the default
// heap grows from the OS, the slabs are cut - then measured_round() runs it again, and
// only that is counted. list-after-map warms the heap up with a map round first, then a
// list round, and counts a list round: the STL rows of tlsf_bench run in that order, on
// one heap per allocator. Then:
//
//   valgrind --tool=callgrind --toggle-collect='*measured_round*'
//            build/<dir>/bench/host/tlsf_default_heap_pairs list default
//
// Callgrind's total (the "summary" line of callgrind.out.*) divided by `elements` is the
// instructions per node: the container's own work plus one allocate and one deallocate.
// The container's work is the same for every heap, so the difference between two heaps is
// the difference of their pairs. Built a second time as tlsf_default_heap_pairs_threads,
// with the per-thread default heaps (tlsf::cpp_thread_heaps): `default` there is
// tlsf::allocator<T>() on the calling thread's heap.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <tlsf/tlsf.hpp>

namespace {

using key_order = std::vector<int>;

// 0..n-1 in an order fixed by a small linear congruential generator (Fisher-Yates).
key_order shuffled(std::size_t n, std::uint64_t seed) {
    key_order keys(n);
    for (std::size_t i = 0; i < n; ++i)
        keys[i] = static_cast<int>(i);
    std::uint64_t state = seed;
    for (std::size_t i = n - 1; i > 0; --i) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        const std::size_t j = static_cast<std::size_t>((state >> 33) % (i + 1));
        std::swap(keys[i], keys[j]);
    }
    return keys;
}

struct plan {
    std::size_t elements;
    unsigned timed_rounds; // 0: the one measured round only
    key_order insert_order;
    key_order erase_order;
};

template <class Alloc>
std::size_t list_round(const plan &p, const Alloc &alloc) {
    std::list<int, typename std::allocator_traits<Alloc>::template rebind_alloc<int>> l{alloc};
    for (std::size_t i = 0; i < p.elements; ++i)
        l.push_back(static_cast<int>(i));
    std::size_t popped = 0;
    while (!l.empty()) {
        l.pop_front();
        ++popped;
    }
    return popped;
}

template <class Alloc>
std::size_t map_round(const plan &p, const Alloc &alloc) {
    using pair = std::pair<const int, int>;
    std::map<int, int, std::less<int>,
             typename std::allocator_traits<Alloc>::template rebind_alloc<pair>>
        m{alloc};
    for (int key : p.insert_order)
        m.emplace(key, key);
    std::size_t erased = 0;
    for (int key : p.erase_order)
        erased += m.erase(key);
    return erased;
}

enum class workload { list, map, list_after_map };

// The round callgrind counts (--toggle-collect), kept out of line so that it has a name.
template <class Alloc>
__attribute__((noinline)) std::size_t measured_round(workload w, const plan &p,
                                                     const Alloc &alloc) {
    return w == workload::map ? map_round(p, alloc) : list_round(p, alloc);
}

template <class Alloc>
int run(workload w, const char *workload_name, const plan &p, const Alloc &alloc,
        const char *name) {
    if (w == workload::list_after_map && map_round(p, alloc) != p.elements) return 1;
    const std::size_t warm = w == workload::map ? map_round(p, alloc) : list_round(p, alloc);
    const std::size_t counted = measured_round(w, p, alloc);
    if (warm != p.elements || counted != p.elements) {
        std::fprintf(stderr, "round lost elements: %zu, %zu of %zu\n", warm, counted, p.elements);
        return 1;
    }
    std::printf("workload=%s heap=%s elements=%zu", workload_name, name, p.elements);
    if (p.timed_rounds > 0) {
        double fastest = 0;
        for (unsigned round = 0; round < p.timed_rounds; ++round) {
            const auto start = std::chrono::steady_clock::now();
            const std::size_t done = measured_round(w, p, alloc);
            const std::chrono::duration<double, std::nano> took =
                std::chrono::steady_clock::now() - start;
            if (done != p.elements) return 1;
            const double per_node = took.count() / static_cast<double>(p.elements);
            if (round == 0 || per_node < fastest) fastest = per_node;
        }
        std::printf(" fastest_ns_per_node=%.2f", fastest);
    }
    std::printf("\n");
    return 0;
}

tlsf::heap &private_heap(bool slabs) {
    constexpr std::size_t bytes = std::size_t{64} << 20;
    static std::vector<std::max_align_t> memory(bytes / sizeof(std::max_align_t));
    static tlsf::heap heap(memory.data(), bytes);
    if (slabs && !heap.set_slabs(4096)) std::fprintf(stderr, "note: no slabs in this build\n");
    return heap;
}

// A thread that exists until release(): the process is then not single-threaded.
class idle_thread {
  public:
    idle_thread()
        : thread_([this] {
              std::unique_lock<std::mutex> hold(mutex_);
              wake_.wait(hold, [this] { return released_; });
          }) {}
    ~idle_thread() {
        {
            std::lock_guard<std::mutex> hold(mutex_);
            released_ = true;
        }
        wake_.notify_one();
        thread_.join();
    }
    idle_thread(const idle_thread &) = delete;
    idle_thread &operator=(const idle_thread &) = delete;

  private:
    std::mutex mutex_;
    std::condition_variable wake_;
    bool released_ = false;
    std::thread thread_; // last: started once the members it uses exist
};

} // namespace

int main(int argc, char **argv) {
    const std::string name = argc > 1 ? argv[1] : "";
    const workload w = name == "map"              ? workload::map
                       : name == "list-after-map" ? workload::list_after_map
                                                  : workload::list;
    if (argc < 3 || argc > 5 || (w == workload::list && name != "list")) {
        std::fprintf(stderr,
                     "usage: %s <list|map|list-after-map> "
                     "<default|default-threaded|slabs|plain|std> [elements [rounds]]\n",
                     argv[0]);
        return 2;
    }
    const std::string which = argv[2];
    plan p;
    p.elements = argc >= 4 ? std::strtoul(argv[3], nullptr, 10) : 100000;
    p.timed_rounds = argc == 5 ? static_cast<unsigned>(std::strtoul(argv[4], nullptr, 10)) : 0;
    if (p.elements == 0) return 2;
    p.insert_order = shuffled(p.elements, 1);
    p.erase_order = shuffled(p.elements, 2);

    if (which == "default") return run(w, argv[1], p, tlsf::allocator<char>(), argv[2]);
    if (which == "default-threaded") {
        idle_thread other;
        return run(w, argv[1], p, tlsf::allocator<char>(), argv[2]);
    }
    if (which == "slabs")
        return run(w, argv[1], p, tlsf::allocator<char>(private_heap(true)), argv[2]);
    if (which == "plain")
        return run(w, argv[1], p, tlsf::allocator<char>(private_heap(false)), argv[2]);
    if (which == "std") return run(w, argv[1], p, std::allocator<char>(), argv[2]);
    std::fprintf(stderr, "unknown heap: %s\n", argv[2]);
    return 2;
}
