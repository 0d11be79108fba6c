// SPDX-License-Identifier: MIT
// report.hpp - what tlsf-replay found for each heap, printed as a table, written as CSV, and
// drawn (data files for tools/replay/plot_replay.gp).
#ifndef TLSF_REPLAY_REPORT_HPP
#define TLSF_REPLAY_REPORT_HPP

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "heaps.hpp"
#include "replay.hpp"
#include "trace_data.hpp"

namespace replay {

// A point of the heap-use curve: the extremes over a run of calls ending at `call`.
struct use_point {
    std::size_t call;
    std::uint64_t live, used, free, largest;
};

struct heap_report {
    std::string spec, name, note, error;
    size_result size;
    // The worst moment: before the binding call, in the smallest heap.
    bool have_moment = false;
    std::uint64_t moment_free = 0, moment_largest = 0, moment_request = 0;
    std::vector<map_block> moment_map;
    std::uint64_t heap_bytes = 0; // of the map
    std::vector<use_point> use;   // at the smallest heap, when the heap tells its shape
    count_stats counts;
    std::string counts_note; // why there are no counts
    std::vector<std::uint32_t> count_values;
};

// The table on `out`.
void print_report(std::FILE *out, const trace_data &trace, const std::vector<heap_report> &rows);

// One line per heap; false when the file cannot be written.
bool write_csv(const std::string &path, const trace_data &trace,
               const std::vector<heap_report> &rows);

// DIR/use.dat, map.dat, ccdf.dat, summary.csv, and the PNGs when gnuplot is there (its
// absence is reported in `note`). False when DIR cannot be written.
bool write_pictures(const std::string &dir, const trace_data &trace,
                    const std::vector<heap_report> &rows, std::string &note);

// Call index and live bytes after it, one line per call (the recorder's curve to compare).
bool write_curve(const std::string &path, const trace_data &trace);

std::string human_bytes(std::uint64_t bytes);

} // namespace replay

#endif // TLSF_REPLAY_REPORT_HPP
