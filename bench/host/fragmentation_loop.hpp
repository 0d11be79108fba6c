// SPDX-License-Identifier: MIT
// fragmentation_loop.hpp - the growth loop of workload 7 (tlsf_fragmentation): random
// sizes of 8..1024 bytes go into a fixed heap until a request fails. The same sequence for
// every heap the tool measures (TLSF with and without slabs, mimalloc).
#ifndef TLSF_BENCH_FRAGMENTATION_LOOP_HPP
#define TLSF_BENCH_FRAGMENTATION_LOOP_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rng.hpp"

namespace bench {

inline constexpr std::uint32_t kMinSize = 8;
inline constexpr std::uint32_t kMaxSize = 1024;

struct live_block {
    void *ptr;
    std::uint32_t size;
};

struct failure_point {
    std::size_t live_bytes = 0; // requested bytes still held when the request failed
    std::size_t live_blocks = 0;
    std::uint32_t failed_size = 0; // the request that failed
};

// Grows a live set in `heap` until an allocation fails, then frees everything.
template <class Heap>
failure_point grow_until_failure(Heap &heap, std::uint64_t seed, std::uint32_t free_one_in) {
    rng gen(seed);
    std::vector<live_block> live;
    failure_point at;
    for (;;) {
        if (free_one_in != 0 && !live.empty() && gen.below(free_one_in) == 0) {
            const std::size_t victim = gen.below(static_cast<std::uint32_t>(live.size()));
            heap.deallocate(live[victim].ptr);
            at.live_bytes -= live[victim].size;
            live[victim] = live.back();
            live.pop_back();
            continue;
        }
        const std::uint32_t size = gen.between(kMinSize, kMaxSize);
        void *p = heap.allocate(size);
        if (p == nullptr) {
            at.failed_size = size;
            break;
        }
        live.push_back({p, size});
        at.live_bytes += size;
    }
    at.live_blocks = live.size();
    for (const live_block &b : live)
        heap.deallocate(b.ptr);
    return at;
}

} // namespace bench

#endif // TLSF_BENCH_FRAGMENTATION_LOOP_HPP
