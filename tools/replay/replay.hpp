// SPDX-License-Identifier: MIT
// replay.hpp - run a trace on a heap, find the smallest heap that holds it, count.
#ifndef TLSF_REPLAY_REPLAY_HPP
#define TLSF_REPLAY_REPLAY_HPP

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "heaps.hpp"
#include "trace_data.hpp"

namespace replay {

constexpr std::size_t no_call = std::numeric_limits<std::size_t>::max();

// Called after each call of a run (the heap's state and last_count are the call's).
class run_observer {
  public:
    virtual ~run_observer() = default;
    virtual void after_call(std::size_t index, heap &h) = 0;
};

struct run_result {
    bool completed = false;            // every call that succeeded when recorded succeeded
    std::size_t failed_call = no_call; // the first that did not (no_call: the heap refused
                                       // to start at that size)
    std::string error;                 // the heap faulted (an emulator error): not a result
};

// Replays `trace` on a fresh heap of `bytes` (heap::start), stopping before call `stop` (the
// whole trace with no_call). A call that failed when recorded is replayed too; if it succeeds
// here, its block is freed at once, outside any count. With `h.counting` the calls leave
// their counts for the observer; frees of that kind are never counted.
run_result run_trace(heap &h, const trace_data &trace, std::uint64_t bytes,
                     std::size_t stop = no_call, run_observer *observer = nullptr);

struct size_result {
    enum class status { found, does_not_fit, not_sized, error } state = status::not_sized;
    std::uint64_t smallest = 0;         // the heap (bytes given to the heap) that holds the trace
    std::uint64_t tried_max = 0;        // the largest heap tried
    std::size_t binding_call = no_call; // the call that fails one unit below (bisect)
    std::string how;                    // "bisection, N runs" / "highest break" / ...
    std::string error;
};

// The smallest heap of `h` for `trace`: by bisection over its sizes in steps of h.unit() (the
// result holds the trace, one unit less fails at binding_call), or from the high-water mark
// of one run, or not at all (sizing::none).
size_result find_smallest(heap &h, const trace_data &trace);

struct count_stats {
    bool valid = false;
    std::uint64_t calls = 0;
    double mean = 0;
    std::uint64_t p99 = 0, max = 0;
    std::size_t max_call = no_call; // the first call that took max
};

count_stats summarize_counts(const std::vector<std::uint32_t> &counts);

// Instructions per call of a run at `bytes` (0 for unbounded heaps), in this process: the
// heap must count in process (the emulator) or this process must run under insncount.
bool count_run(heap &h, const trace_data &trace, std::uint64_t bytes,
               std::vector<std::uint32_t> &counts, std::string &error);

} // namespace replay

#endif // TLSF_REPLAY_REPLAY_HPP
