// bench_chess.cpp - workload 4: the chess perft engine (bench/chess) on each allocator.
//
//   chess_perft/<allocator>   perft of the start position to depth 4 (197,281 nodes).
//
// The engine builds a std::list of moves at every node, edits std::list piece lists on
// captures and keeps a std::map transposition table, all through the allocator it is
// given. The node count is checked once before timing: a wrong count means the engine
// (or an allocator) is broken, and its time would mean nothing. Reported as nodes/s.
#include <benchmark/benchmark.h>

#include <chess/chess.hpp>
#include <chess/malloc_allocator.hpp>

#include <cstdint>
#include <string>

#include "stl_allocators.hpp"
#include "suites.hpp"

namespace bench {
namespace {

constexpr int kDepth = 4;
constexpr std::uint64_t kExpectedNodes = 197281; // perft(4) of the start position

template <class Alloc>
void chess_perft(benchmark::State &state, const Alloc &alloc) {
    const std::uint64_t checked = chess::perft(chess::kStartFen, kDepth, alloc);
    if (checked != kExpectedNodes) {
        state.SkipWithError(
            ("perft(4) = " + std::to_string(checked) + ", expected 197281").c_str());
        return;
    }
    std::uint64_t nodes = 0;
    for (auto _ : state) {
        nodes += chess::perft(chess::kStartFen, kDepth, alloc);
    }
    state.counters["nodes_per_s"] =
        benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsRate);
}

template <class Alloc>
void add(const char *allocator, const Alloc &alloc) {
    const std::string name = std::string("chess_perft/") + allocator;
    benchmark::RegisterBenchmark(name.c_str(), [alloc](benchmark::State &state) {
        chess_perft(state, alloc);
    })->Unit(benchmark::kMillisecond);
}

} // namespace

void register_chess_benchmarks(heap_set &heaps) {
    for_each_stl_allocator(heaps, [](const char *name, const auto &alloc) { add(name, alloc); });
    // The engine's own baseline: malloc/free without operator new in between.
    add("chess::malloc_allocator", chess::malloc_allocator<char>());
}

} // namespace bench
