// SPDX-License-Identifier: MIT
// bench_stl.cpp - workload 3: standard containers on each allocator.
//
//   stl_map/<allocator>            std::map<int,int>: insert 100k random keys, erase them
//                                  all in another random order
//   stl_unordered_map/<allocator>  the same with std::unordered_map
//   stl_list/<allocator>           std::list<int>: push_back 100k, pop_front them all
//   stl_vector/<allocator>         1,000 std::vector<int> grown together by push_back to
//                                  1,000 elements each (their reallocations interleave)
//   stl_string/<allocator>         100k strings of 16..128 chars (past the small-string
//                                  buffer) made into a vector, then destroyed
// One iteration builds and destroys the container; the keys are drawn beforehand. Every
// iteration ends with end_of_round(), where the monotonic arena is released (nothing for
// the other allocators; see stl_allocators.hpp).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rng.hpp"
#include "stl_allocators.hpp"
#include "suites.hpp"

namespace bench {
namespace {

constexpr std::uint32_t kElements = 100000;

template <class Alloc, class T>
using rebind = typename std::allocator_traits<Alloc>::template rebind_alloc<T>;

struct key_plan {
    std::vector<int> insert_order;
    std::vector<int> erase_order;
};

const key_plan &keys() {
    static const key_plan plan = [] {
        rng gen(0x5EED0003u);
        key_plan p;
        for (std::uint32_t i = 0; i < kElements; ++i)
            p.insert_order.push_back(static_cast<int>(gen.next() >> 33));
        p.erase_order = p.insert_order;
        for (std::size_t i = p.erase_order.size() - 1; i > 0; --i) { // Fisher-Yates
            std::swap(p.erase_order[i],
                      p.erase_order[gen.below(static_cast<std::uint32_t>(i + 1))]);
        }
        return p;
    }();
    return plan;
}

template <class Alloc>
void stl_map(benchmark::State &state, const Alloc &alloc) {
    using map = std::map<int, int, std::less<int>, rebind<Alloc, std::pair<const int, int>>>;
    const key_plan &k = keys();
    for (auto _ : state) {
        {
            map m{typename map::allocator_type(alloc)};
            for (int key : k.insert_order)
                m.emplace(key, key);
            for (int key : k.erase_order)
                m.erase(key);
            benchmark::DoNotOptimize(m.size());
        }
        end_of_round(alloc);
    }
}

template <class Alloc>
void stl_unordered_map(benchmark::State &state, const Alloc &alloc) {
    using map = std::unordered_map<int, int, std::hash<int>, std::equal_to<int>,
                                   rebind<Alloc, std::pair<const int, int>>>;
    const key_plan &k = keys();
    for (auto _ : state) {
        {
            map m{typename map::allocator_type(alloc)};
            for (int key : k.insert_order)
                m.emplace(key, key);
            for (int key : k.erase_order)
                m.erase(key);
            benchmark::DoNotOptimize(m.size());
        }
        end_of_round(alloc);
    }
}

template <class Alloc>
void stl_list(benchmark::State &state, const Alloc &alloc) {
    using list = std::list<int, rebind<Alloc, int>>;
    for (auto _ : state) {
        {
            list l{typename list::allocator_type(alloc)};
            for (std::uint32_t i = 0; i < kElements; ++i)
                l.push_back(static_cast<int>(i));
            while (!l.empty())
                l.pop_front();
            benchmark::DoNotOptimize(l.size());
        }
        end_of_round(alloc);
    }
}

template <class Alloc>
void stl_vector(benchmark::State &state, const Alloc &alloc) {
    using vector = std::vector<int, rebind<Alloc, int>>;
    using outer = std::vector<vector, rebind<Alloc, vector>>;
    constexpr int kVectors = 1000;
    constexpr int kLength = 1000;
    for (auto _ : state) {
        {
            outer all{typename outer::allocator_type(alloc)};
            all.reserve(kVectors);
            // push_back of a temporary rather than emplace_back(alloc): a pmr container
            // passes its own allocator to elements, which would then receive two.
            for (int v = 0; v < kVectors; ++v)
                all.push_back(vector(typename vector::allocator_type(alloc)));
            for (int i = 0; i < kLength; ++i) {
                for (vector &v : all)
                    v.push_back(i);
            }
            benchmark::DoNotOptimize(all.back().data());
        }
        end_of_round(alloc);
    }
}

template <class Alloc>
void stl_string(benchmark::State &state, const Alloc &alloc) {
    using string = std::basic_string<char, std::char_traits<char>, rebind<Alloc, char>>;
    using vector = std::vector<string, rebind<Alloc, string>>;
    static const std::vector<std::uint32_t> lengths = [] {
        rng gen(0x5EED0005u);
        std::vector<std::uint32_t> l;
        for (std::uint32_t i = 0; i < kElements; ++i)
            l.push_back(gen.between(16, 128));
        return l;
    }();
    const typename string::allocator_type string_alloc(alloc);
    // The vector's 3 MiB array is allocated once, outside the timed loop: it is one large
    // block that each allocator would hand to the OS and back, and that is not what this
    // benchmark is about. Timed: creating and destroying the 100k strings.
    std::optional<vector> all;
    const auto make_array = [&] {
        all.emplace(typename vector::allocator_type(alloc));
        all->reserve(lengths.size());
    };
    make_array();
    for (auto _ : state) {
        for (std::uint32_t length : lengths) {
            all->push_back(string(length, static_cast<char>('a' + length % 26), string_alloc));
        }
        benchmark::DoNotOptimize(all->back().data());
        all->clear(); // destroys the strings, keeps the array
        if (releases_per_round(alloc)) {
            // The arena's release() takes the array with the strings: it is made again
            // untimed, as every other allocator keeps its array untimed.
            state.PauseTiming();
            all.reset();
            end_of_round(alloc);
            make_array();
            state.ResumeTiming();
        }
    }
}

template <class Alloc, class Run>
void add(const char *workload, const char *allocator, const Alloc &alloc, Run run) {
    const std::string name = std::string(workload) + "/" + allocator;
    benchmark::RegisterBenchmark(name.c_str(), [alloc, run](benchmark::State &state) {
        run(state, alloc);
    })->Unit(benchmark::kMillisecond);
}

} // namespace

void register_stl_benchmarks(heap_set &heaps) {
    // One workload at a time, every allocator in turn, so that --benchmark_filter=stl_map
    // selects a complete comparison.
    for_each_stl_allocator(heaps, [](const char *name, const auto &alloc) {
        add("stl_map", name, alloc, [](benchmark::State &s, const auto &a) { stl_map(s, a); });
    });
    for_each_stl_allocator(heaps, [](const char *name, const auto &alloc) {
        add("stl_unordered_map", name, alloc,
            [](benchmark::State &s, const auto &a) { stl_unordered_map(s, a); });
    });
    for_each_stl_allocator(heaps, [](const char *name, const auto &alloc) {
        add("stl_list", name, alloc, [](benchmark::State &s, const auto &a) { stl_list(s, a); });
    });
    for_each_stl_allocator(heaps, [](const char *name, const auto &alloc) {
        add("stl_vector", name, alloc,
            [](benchmark::State &s, const auto &a) { stl_vector(s, a); });
    });
    for_each_stl_allocator(heaps, [](const char *name, const auto &alloc) {
        add("stl_string", name, alloc,
            [](benchmark::State &s, const auto &a) { stl_string(s, a); });
    });
}

} // namespace bench
