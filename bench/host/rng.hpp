// SPDX-License-Identifier: MIT
// rng.hpp - a small fixed-seed random generator (splitmix64).
//
// Every allocator must see exactly the same request sequence, on every machine and with
// every standard library, so the workloads do not use <random>'s distributions (whose
// output is implementation-defined) but this generator with an explicit range mapping.
#ifndef TLSF_BENCH_RNG_HPP
#define TLSF_BENCH_RNG_HPP

#include <cstdint>

namespace bench {

class rng {
  public:
    explicit rng(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // Uniform in [0, bound), bound > 0 (Lemire's multiply-shift; the bias is far below
    // anything a benchmark can see).
    std::uint32_t below(std::uint32_t bound) {
        const std::uint64_t high = next() >> 32;
        return static_cast<std::uint32_t>((high * bound) >> 32);
    }

    // Uniform in [low, high].
    std::uint32_t between(std::uint32_t low, std::uint32_t high) {
        return low + below(high - low + 1);
    }

  private:
    std::uint64_t state_;
};

} // namespace bench

#endif // TLSF_BENCH_RNG_HPP
