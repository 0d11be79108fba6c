// SPDX-License-Identifier: MIT
// stl_rows_probe: the workloads of the C++ rows of bench/host/bench_stl.cpp (tlsf_bench),
// once each, for counting instructions with callgrind - deterministic where wall-clock
// time on a shared machine is not. Built on request, not run by ctest:
//
//   cmake --build <build> --target tlsf_cpp_stl_rows_probe
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null
//       --toggle-collect='*measured_round*' <build>/test/cpp/tlsf_cpp_stl_rows_probe map heap
//   (one command line; callgrind's summary line "Collected" is the count)
//
// Rows (first argument): map, unordered_map, list, vector, string - the same containers,
// sizes and key orders as the benchmark's. Allocators (second argument): heap (a 64 MiB
// tlsf::heap of its own, no lock, as the "tlsf::allocator" row), slabs (the same with 4 KiB
// slabs), default (tlsf::default_heap()), pmr (std::pmr containers on a
// tlsf::memory_resource over the 64 MiB heap). One round runs untimed first, so that the
// counted round (measured_round) starts from a warm heap, as the benchmark's iterations do.
#include <tlsf/containers.hpp>
#include <tlsf/default_heap.hpp>
#include <tlsf/heap.hpp>
#include <tlsf/memory_resource.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <memory_resource>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

constexpr std::uint32_t kElements = 100000;

// A small deterministic generator (xorshift64*), for the keys and lengths.
struct generator {
    std::uint64_t state;
    std::uint64_t next() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return state * 0x2545F4914F6CDD1DULL;
    }
    std::uint32_t below(std::uint32_t bound) {
        return static_cast<std::uint32_t>(next() >> 32) % bound;
    }
};

struct key_plan {
    std::vector<int> insert_order;
    std::vector<int> erase_order;
};

key_plan make_keys() {
    generator random{0x5EED0003u};
    key_plan plan;
    for (std::uint32_t i = 0; i < kElements; ++i)
        plan.insert_order.push_back(static_cast<int>(random.next() >> 33));
    plan.erase_order = plan.insert_order;
    for (std::size_t i = plan.erase_order.size() - 1; i > 0; --i)
        std::swap(plan.erase_order[i],
                  plan.erase_order[random.below(static_cast<std::uint32_t>(i + 1))]);
    return plan;
}

template <class Alloc, class T>
using rebind = typename std::allocator_traits<Alloc>::template rebind_alloc<T>;

template <class Alloc>
void map_round(const Alloc &alloc, const key_plan &keys) {
    using map = std::map<int, int, std::less<int>, rebind<Alloc, std::pair<const int, int>>>;
    map m{typename map::allocator_type(alloc)};
    for (int key : keys.insert_order)
        m.emplace(key, key);
    for (int key : keys.erase_order)
        m.erase(key);
}

template <class Alloc>
void unordered_map_round(const Alloc &alloc, const key_plan &keys) {
    using map = std::unordered_map<int, int, std::hash<int>, std::equal_to<int>,
                                   rebind<Alloc, std::pair<const int, int>>>;
    map m{typename map::allocator_type(alloc)};
    for (int key : keys.insert_order)
        m.emplace(key, key);
    for (int key : keys.erase_order)
        m.erase(key);
}

template <class Alloc>
void list_round(const Alloc &alloc) {
    using list = std::list<int, rebind<Alloc, int>>;
    list l{typename list::allocator_type(alloc)};
    for (std::uint32_t i = 0; i < kElements; ++i)
        l.push_back(static_cast<int>(i));
    while (!l.empty())
        l.pop_front();
}

template <class Alloc>
void vector_round(const Alloc &alloc) {
    using vector = std::vector<int, rebind<Alloc, int>>;
    using outer = std::vector<vector, rebind<Alloc, vector>>;
    outer all{typename outer::allocator_type(alloc)};
    all.reserve(1000);
    for (int v = 0; v < 1000; ++v)
        all.push_back(vector(typename vector::allocator_type(alloc)));
    for (int i = 0; i < 1000; ++i) {
        for (vector &v : all)
            v.push_back(i);
    }
}

template <class Alloc>
void string_round(const Alloc &alloc, const std::vector<std::uint32_t> &lengths) {
    using string = std::basic_string<char, std::char_traits<char>, rebind<Alloc, char>>;
    using vector = std::vector<string, rebind<Alloc, string>>;
    const typename string::allocator_type string_alloc(alloc);
    static vector all{typename vector::allocator_type(alloc)};
    all.reserve(lengths.size());
    for (std::uint32_t length : lengths)
        all.push_back(string(length, static_cast<char>('a' + length % 26), string_alloc));
    all.clear();
}

struct workload {
    const char *row;
    key_plan keys;
    std::vector<std::uint32_t> lengths;
};

template <class Alloc>
void round_of(const workload &w, const Alloc &alloc) {
    if (std::strcmp(w.row, "map") == 0) map_round(alloc, w.keys);
    if (std::strcmp(w.row, "unordered_map") == 0) unordered_map_round(alloc, w.keys);
    if (std::strcmp(w.row, "list") == 0) list_round(alloc);
    if (std::strcmp(w.row, "vector") == 0) vector_round(alloc);
    if (std::strcmp(w.row, "string") == 0) string_round(alloc, w.lengths);
}

// The counted round: callgrind --toggle-collect='*measured_round*'.
template <class Alloc>
__attribute__((noinline)) void measured_round(const workload &w, const Alloc &alloc) {
    round_of(w, alloc);
}

template <class Alloc>
void run(const workload &w, const Alloc &alloc) {
    round_of(w, alloc);
    measured_round(w, alloc);
}

tlsf::heap &suite_heap(bool slabs) {
    constexpr std::size_t kBytes = std::size_t{64} << 20;
    static std::vector<std::max_align_t> memory(kBytes / sizeof(std::max_align_t));
    static tlsf::heap heap(memory.data(), kBytes);
    if (slabs) heap.set_slabs(4096);
    return heap;
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr,
                     "usage: %s map|unordered_map|list|vector|string heap|slabs|default|pmr\n",
                     argv[0]);
        return 2;
    }
    workload w{argv[1], make_keys(), {}};
    generator random{0x5EED0005u};
    for (std::uint32_t i = 0; i < kElements; ++i)
        w.lengths.push_back(16 + random.below(113));
    const std::string allocator = argv[2];
    if (allocator == "heap" || allocator == "slabs") {
        run(w, tlsf::allocator<char>(suite_heap(allocator == "slabs")));
    } else if (allocator == "default") {
        run(w, tlsf::allocator<char>());
    } else if (allocator == "pmr") {
        static tlsf::memory_resource resource(suite_heap(false));
        run(w, std::pmr::polymorphic_allocator<char>(&resource));
    } else {
        return 2;
    }
    std::printf("%s/%s: done\n", argv[1], argv[2]);
    return 0;
}
