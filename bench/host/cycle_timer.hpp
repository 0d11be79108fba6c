// SPDX-License-Identifier: MIT
// cycle_timer.hpp - the finest clock the CPU offers, for timing single calls.
//
// On x86 this is the time-stamp counter, fenced so that the call being timed cannot
// move across the reads (LFENCE waits for earlier instructions to finish, and keeps later
// ones from starting, before RDTSC samples the counter). With constant_tsc the counter
// runs at a fixed rate whatever the clock speed, so ticks convert to nanoseconds with
// one calibrated factor. Elsewhere CLOCK_MONOTONIC stands in, counting nanoseconds.
#ifndef TLSF_BENCH_CYCLE_TIMER_HPP
#define TLSF_BENCH_CYCLE_TIMER_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <vector>

#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
#include <x86intrin.h>
#define TLSF_BENCH_HAVE_TSC 1
#else
#define TLSF_BENCH_HAVE_TSC 0
#endif

namespace bench {

inline std::uint64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

inline std::uint64_t ticks_now() {
#if TLSF_BENCH_HAVE_TSC
    _mm_lfence();
    const std::uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
#else
    return monotonic_ns();
#endif
}

inline const char *ticks_source() {
#if TLSF_BENCH_HAVE_TSC
    return "rdtsc";
#else
    return "clock_gettime(CLOCK_MONOTONIC)";
#endif
}

// Ticks per nanosecond, measured against CLOCK_MONOTONIC over about 50 ms.
inline double ticks_per_ns() {
#if TLSF_BENCH_HAVE_TSC
    const std::uint64_t ns0 = monotonic_ns();
    const std::uint64_t t0 = ticks_now();
    while (monotonic_ns() - ns0 < 50000000u) {
    }
    const std::uint64_t ns1 = monotonic_ns();
    const std::uint64_t t1 = ticks_now();
    return static_cast<double>(t1 - t0) / static_cast<double>(ns1 - ns0);
#else
    return 1.0;
#endif
}

// The smallest interval two back-to-back reads report: the cost of timing itself, which
// is taken off every measurement.
inline std::uint64_t timer_overhead_ticks() {
    std::uint64_t best = ~std::uint64_t{0};
    for (int i = 0; i < 100000; ++i) {
        const std::uint64_t t0 = ticks_now();
        const std::uint64_t t1 = ticks_now();
        if (t1 - t0 < best) best = t1 - t0;
    }
    return best;
}

// The step the clock usually advances by: the most frequent non-zero difference between
// back-to-back reads. Some virtual machines advance the TSC in coarse steps (21 ticks,
// 10 ns, on the machine this was written on); no single call can be resolved more finely
// than that. Read without fences, so that the reads come faster than the steps.
inline std::uint64_t timer_step_ticks() {
    auto raw = [] {
#if TLSF_BENCH_HAVE_TSC
        return static_cast<std::uint64_t>(__rdtsc());
#else
        return monotonic_ns();
#endif
    };
    constexpr std::size_t kBins = 1024;
    std::vector<std::uint32_t> count(kBins, 0);
    std::uint64_t previous = raw();
    for (int i = 0; i < 1000000; ++i) {
        const std::uint64_t now = raw();
        if (now != previous && now - previous < kBins) ++count[now - previous];
        previous = now;
    }
    return static_cast<std::uint64_t>(std::max_element(count.begin(), count.end()) - count.begin());
}

} // namespace bench

#endif // TLSF_BENCH_CYCLE_TIMER_HPP
