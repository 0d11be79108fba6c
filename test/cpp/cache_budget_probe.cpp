// SPDX-License-Identifier: MIT
// cache_budget_probe: what the front cache's budget does on a small private heap - the
// figures behind the automatic budget of tlsf::heap (docs/cpp.md, "The front cache").
// Built on request, not run by ctest (wall-clock figures):
//
//   cmake --build <build> --target tlsf_cpp_cache_budget_probe
//   <build>/test/cpp/tlsf_cpp_cache_budget_probe [heap bytes...]
//
// For each heap size and budget (none, the automatic one, TLSF_CACHE_BYTES): the time per
// operation of a std::map<int, int> that fills half the heap, is emptied and filled again,
// and of a std::list<int> push_back/pop_front of as many nodes; then, after a map's
// teardown, the time of one request for 60% of the heap, which the free lists can serve
// only once the cache is drained. Best of 30 rounds.
#include <tlsf/containers.hpp>
#include <tlsf/heap.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double nanoseconds(clock_type::time_point from, clock_type::time_point to) {
    return std::chrono::duration<double, std::nano>(to - from).count();
}

void probe(std::size_t heap_bytes) {
    std::vector<std::max_align_t> memory(heap_bytes / sizeof(std::max_align_t));
    const int nodes = static_cast<int>(heap_bytes / 2 / 64); // map nodes: about half the heap
    std::mt19937 random(1);
    std::vector<int> keys(static_cast<std::size_t>(nodes));
    for (int &key : keys)
        key = static_cast<int>(random());
    struct choice {
        const char *name;
        std::size_t budget; // SIZE_MAX: automatic
    };
    for (const choice c :
         {choice{"none", 0}, choice{"automatic", SIZE_MAX},
          choice{"TLSF_CACHE_BYTES", static_cast<std::size_t>(TLSF_CACHE_BYTES)}}) {
        tlsf::heap heap(memory.data(), heap_bytes);
        const std::size_t budget =
            c.budget == SIZE_MAX ? heap.cache_limit() : heap.set_cache_limit(c.budget);
        double best_map = 1e30, best_list = 1e30, best_drain = 1e30;
        for (int round = 0; round < 30; ++round) {
            const auto t0 = clock_type::now();
            {
                tlsf::map<int, int> map(heap);
                for (int key : keys)
                    map.emplace(key, key);
                for (int key : keys)
                    map.erase(key);
                for (int key : keys)
                    map.emplace(key, key);
            }
            const auto t1 = clock_type::now();
            {
                tlsf::list<int> list(heap);
                for (int i = 0; i < nodes; ++i)
                    list.push_back(i);
                while (!list.empty())
                    list.pop_front();
            }
            const auto t2 = clock_type::now();
            {
                tlsf::map<int, int> map(heap);
                for (int key : keys)
                    map.emplace(key, key);
            }
            const auto t3 = clock_type::now();
            void *large = heap.malloc(heap_bytes * 6 / 10);
            const auto t4 = clock_type::now();
            heap.free(large);
            best_map = std::min(best_map, nanoseconds(t0, t1) / (3.0 * nodes));
            best_list = std::min(best_list, nanoseconds(t1, t2) / nodes);
            best_drain = std::min(best_drain, nanoseconds(t3, t4));
        }
        std::printf("heap %8zu  budget %-16s %7zu  map %5.1f ns/op  list %5.1f ns/op  "
                    "large request after teardown %8.0f ns\n",
                    heap_bytes, c.name, budget, best_map, best_list, best_drain);
    }
}

} // namespace

int main(int argc, char **argv) {
    if (argc > 1) {
        for (int i = 1; i < argc; ++i)
            probe(std::strtoul(argv[i], nullptr, 0));
    } else {
        for (std::size_t bytes : {std::size_t{64} << 10, std::size_t{256} << 10,
                                  std::size_t{1} << 20, std::size_t{8} << 20})
            probe(bytes);
    }
}
