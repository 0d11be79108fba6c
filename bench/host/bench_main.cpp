// SPDX-License-Identifier: MIT
// bench_main.cpp - the Google Benchmark runner: every allocator in one process.
//
// The machine is shared and noisy, so comparisons are only meaningful side by side:
// run with --benchmark_repetitions and --benchmark_enable_random_interleaving (as
// scripts/bench.sh does) and compare medians as ratios to libc.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "raw_heaps.hpp"
#include "suites.hpp"

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

    // The C API suites' TLSF heap; workload 2 keeps about 0.6 MiB live. (The STL and chess
    // suites have their own, see stl_allocators.hpp.)
    static bench::heap_set heaps(16u << 20);
    for (const std::string &note : heaps.notes()) {
        std::fprintf(stderr, "note: %s\n", note.c_str());
        benchmark::AddCustomContext("skipped_" + note.substr(0, note.find(':')), note);
    }

    bench::register_c_api_benchmarks(heaps);
#ifdef TLSF_BENCH_HAVE_STL
    bench::register_stl_benchmarks(heaps);
#endif
#ifdef TLSF_BENCH_HAVE_CHESS
    bench::register_chess_benchmarks(heaps);
#endif

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
