// SPDX-License-Identifier: MIT
// random_workload.hpp - workload 2: random sizes over a fixed-size live set.
//
// The live set has `slots` blocks. Each operation frees the block in a random slot and
// allocates a new block of random size into it, so the number of live blocks stays
// constant while sizes and addresses churn. The whole sequence is generated up front
// from a fixed seed: the benchmarks time the allocator, not the random generator, and
// every allocator (and every pass of the latency tool) replays identical requests.
#ifndef TLSF_BENCH_RANDOM_WORKLOAD_HPP
#define TLSF_BENCH_RANDOM_WORKLOAD_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rng.hpp"

namespace bench {

struct replace_op {
    std::uint32_t slot; // the block to free, and where the new one goes
    std::uint32_t size; // bytes of the new block
};

struct random_workload {
    std::vector<std::uint32_t> initial_sizes; // one per slot, allocated before timing
    std::vector<replace_op> ops;
};

struct random_workload_shape {
    std::uint32_t slots = 1000;
    std::uint32_t ops = 1000000;
    std::uint32_t min_size = 8;
    std::uint32_t max_size = 1024;
    std::uint64_t seed = 0x715F5EEDull;
};

inline random_workload make_random_workload(const random_workload_shape &shape = {}) {
    rng gen(shape.seed);
    random_workload w;
    w.initial_sizes.reserve(shape.slots);
    for (std::uint32_t i = 0; i < shape.slots; ++i) {
        w.initial_sizes.push_back(gen.between(shape.min_size, shape.max_size));
    }
    w.ops.reserve(shape.ops);
    for (std::uint32_t i = 0; i < shape.ops; ++i) {
        const std::uint32_t slot = gen.below(shape.slots);
        w.ops.push_back({slot, gen.between(shape.min_size, shape.max_size)});
    }
    return w;
}

// Fill every slot, as each workload run starts.
template <class Heap>
void fill_slots(Heap &heap, const random_workload &w, std::vector<void *> &slots) {
    slots.assign(w.initial_sizes.size(), nullptr);
    for (std::size_t i = 0; i < slots.size(); ++i)
        slots[i] = heap.allocate(w.initial_sizes[i]);
}

template <class Heap>
void free_slots(Heap &heap, std::vector<void *> &slots) {
    for (void *&p : slots) {
        heap.deallocate(p);
        p = nullptr;
    }
}

} // namespace bench

#endif // TLSF_BENCH_RANDOM_WORKLOAD_HPP
