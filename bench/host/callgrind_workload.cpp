// SPDX-License-Identifier: MIT
// callgrind_workload.cpp - workload 2 for one allocator, to be counted by callgrind.
//
//   tlsf_callgrind_workload <libc|tlsf|jemalloc|mimalloc|tcmalloc|page-study> [ops]
//
// Fills the 1,000-slot live set, replays `ops` replacements (default 200,000) and frees
// everything, then prints how many times it called the allocator's malloc and free.
// scripts/callgrind.sh divides callgrind's inclusive instruction counts of the entry
// points by these. Only the peer asked for is loaded, and none for libc and tlsf, so no
// other allocator's start-up code runs in the measured process.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "random_workload.hpp"
#include "raw_heaps.hpp"

namespace {

template <class Heap>
void run(Heap &heap, const bench::random_workload &w) {
    std::vector<void *> slots;
    bench::fill_slots(heap, w, slots);
    for (const bench::replace_op &op : w.ops) {
        heap.deallocate(slots[op.slot]);
        void *p = heap.allocate(op.size);
        if (p == nullptr) std::abort();
        *static_cast<unsigned char *>(p) = static_cast<unsigned char>(op.size);
        slots[op.slot] = p;
    }
    bench::free_slots(heap, slots);
    const std::size_t calls = w.initial_sizes.size() + w.ops.size();
    std::printf("allocator=%s mallocs=%zu frees=%zu\n", heap.name(), calls, calls);
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s <libc|tlsf|jemalloc|mimalloc|tcmalloc|page-study> [ops]\n",
                     argv[0]);
        return 2;
    }
    const std::string which = argv[1];
    bench::random_workload_shape shape;
    shape.ops = argc == 3 ? static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 200000;
    const bench::random_workload w = bench::make_random_workload(shape);

    if (which == "libc") {
        bench::libc_heap heap;
        run(heap, w);
        return 0;
    }
    if (which == "tlsf") {
        bench::tlsf_c_heap heap(std::size_t{4} << 20);
        run(heap, w);
        return 0;
    }
    const bench::peer_set peers = bench::load_peers(which.c_str());
    for (const bench::peer_api &api : peers.loaded) {
        if (api.name == which) {
            bench::peer_heap heap(api);
            run(heap, w);
            return 0;
        }
    }
    for (const std::string &note : peers.notes)
        std::fprintf(stderr, "note: %s\n", note.c_str());
    std::fprintf(stderr, "%s: not available\n", which.c_str());
    return 3;
}
