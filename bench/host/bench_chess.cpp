// SPDX-License-Identifier: MIT
// bench_chess.cpp - workload 4: the chess perft engine (bench/chess) on each allocator.
//
//   chess_perft/<allocator>   perft of the start position to depth 4 (197,281 nodes).
//
// The engine builds a std::list of moves at every node, edits std::list piece lists on
// captures and keeps a std::map transposition table, all through the allocator it is
// given. Before the first timing on each allocator, the engine must reproduce the
// reference counts of chess/reference.hpp (start position to depth 5, Kiwipete to 4,
// positions 3 and 4 to 5) on that allocator, and every timed search must count 197,281
// nodes: a wrong count means the engine or the allocator is broken, and a time would
// mean nothing. Reported as nodes/s. A perft is one round: its engine (moves, piece lists,
// table) is destroyed before the next, so pmr(monotonic) is released after each.
#include <benchmark/benchmark.h>

#include <chess/chess.hpp>
#include <chess/malloc_allocator.hpp>
#include <chess/reference.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "stl_allocators.hpp"
#include "suites.hpp"

namespace bench {
namespace {

constexpr int kDepth = 4;
constexpr std::uint64_t kExpectedNodes = 197281; // perft(4) of the start position

// "" when the engine reproduces every reference count on `alloc`, else what went wrong.
template <class Alloc>
std::string check_reference_counts(const Alloc &alloc) {
    for (const chess::reference::perft_check &check : chess::reference::kBenchmarkChecks) {
        const std::uint64_t nodes = chess::perft(check.fen, check.depth, alloc);
        end_of_round(alloc);
        if (nodes != check.nodes)
            return std::string(check.name) + ": perft(" + std::to_string(check.depth) +
                   ") = " + std::to_string(nodes) + ", expected " + std::to_string(check.nodes);
    }
    return "";
}

// `verdict` is shared by every run of one benchmark: empty until the reference counts
// were checked on its allocator, then the outcome.
template <class Alloc>
void chess_perft(benchmark::State &state, const Alloc &alloc, std::optional<std::string> &verdict) {
    if (!verdict) verdict = check_reference_counts(alloc);
    if (!verdict->empty()) {
        state.SkipWithError(verdict->c_str());
        return;
    }
    std::uint64_t nodes = 0;
    for (auto _ : state) {
        nodes += chess::perft(chess::kStartFen, kDepth, alloc);
        end_of_round(alloc); // the engine is gone: the arena is released (stl_allocators.hpp)
    }
    if (nodes != kExpectedNodes * static_cast<std::uint64_t>(state.iterations())) {
        state.SkipWithError("a timed perft(4) did not count 197281 nodes");
        return;
    }
    state.counters["nodes_per_s"] =
        benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsRate);
}

template <class Alloc>
void add(const char *allocator, const Alloc &alloc) {
    const std::string name = std::string("chess_perft/") + allocator;
    auto verdict = std::make_shared<std::optional<std::string>>();
    benchmark::RegisterBenchmark(name.c_str(), [alloc, verdict](benchmark::State &state) {
        chess_perft(state, alloc, *verdict);
    })->Unit(benchmark::kMillisecond);
}

} // namespace

void register_chess_benchmarks(heap_set &heaps) {
    for_each_stl_allocator(heaps, [](const char *name, const auto &alloc) { add(name, alloc); });
    // The engine's own baseline: malloc/free without operator new in between.
    add("chess::malloc_allocator", chess::malloc_allocator<char>());
}

} // namespace bench
