// SPDX-License-Identifier: MIT
// suites.hpp - the Google Benchmark suites; each registers its benchmarks at run time,
// one per allocator that is present, named "<workload>/<allocator>".
#ifndef TLSF_BENCH_SUITES_HPP
#define TLSF_BENCH_SUITES_HPP

#include "raw_heaps.hpp"

namespace bench {

// Workloads 1 and 2 through the C entry points (bench_c_api.cpp).
void register_c_api_benchmarks(heap_set &heaps);

// Workload 3: STL containers with std::allocator, tlsf::allocator and pmr (bench_stl.cpp).
void register_stl_benchmarks(heap_set &heaps);

// Workload 4: the chess perft engine (bench_chess.cpp).
void register_chess_benchmarks(heap_set &heaps);

} // namespace bench

#endif // TLSF_BENCH_SUITES_HPP
