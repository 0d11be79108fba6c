// SPDX-License-Identifier: MIT
// bench_c_api.cpp - workloads 1 and 2 through each allocator's C entry points.
//
//   fixed_pair/<size>/<allocator>  one malloc and one free of `size` bytes per iteration
//   random_live/<allocator>        one pass of workload 2 (1M replacements over a live
//                                  set of 1,000 blocks of 8..1024 bytes) per iteration
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "random_workload.hpp"
#include "suites.hpp"

namespace bench {
namespace {

constexpr std::size_t kFixedSizes[] = {16, 64, 256, 4096};

// The same block is taken and given back: the allocator's fast path, nothing else.
template <class Heap>
void fixed_pair(benchmark::State &state, Heap &heap, std::size_t size) {
    for (auto _ : state) {
        void *p = heap.allocate(size);
        benchmark::DoNotOptimize(p);
        heap.deallocate(p);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

const random_workload &workload_2() {
    static const random_workload w = make_random_workload();
    return w;
}

// The live set carries over from one iteration to the next, as in a long-running
// program; it is filled before and emptied after the timed loop. Each new block gets its
// first byte written, as a program would, so an allocator that hands out memory it has
// not touched yet pays for that here rather than later.
template <class Heap>
void random_live(benchmark::State &state, Heap &heap) {
    const random_workload &w = workload_2();
    std::vector<void *> slots;
    fill_slots(heap, w, slots);
    for (auto _ : state) {
        for (const replace_op &op : w.ops) {
            heap.deallocate(slots[op.slot]);
            void *p = heap.allocate(op.size);
            if (p == nullptr) {
                state.SkipWithError("allocation failed");
                break;
            }
            *static_cast<unsigned char *>(p) = static_cast<unsigned char>(op.size);
            slots[op.slot] = p;
        }
    }
    free_slots(heap, slots);
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(w.ops.size()));
}

} // namespace

void register_c_api_benchmarks(heap_set &heaps) {
    for (std::size_t size : kFixedSizes) {
        heaps.for_each([size](auto &heap) {
            const std::string name = "fixed_pair/" + std::to_string(size) + "/" + heap.name();
            benchmark::RegisterBenchmark(name.c_str(), [&heap, size](benchmark::State &state) {
                fixed_pair(state, heap, size);
            });
        });
    }
    heaps.for_each([](auto &heap) {
        const std::string name = std::string("random_live/") + heap.name();
        benchmark::RegisterBenchmark(name.c_str(), [&heap](benchmark::State &state) {
            random_live(state, heap);
        })->Unit(benchmark::kMillisecond);
    });
}

} // namespace bench
