// SPDX-License-Identifier: MIT
// report.cpp - see report.hpp.
#include "report.hpp"

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tlsf_trace.h"

#ifndef TLSF_REPLAY_PLOT_SCRIPT
#define TLSF_REPLAY_PLOT_SCRIPT "plot_replay.gp"
#endif
#ifndef TLSF_REPLAY_GNUPLOT
#define TLSF_REPLAY_GNUPLOT "gnuplot"
#endif

namespace replay {
namespace {

std::string with_commas(std::uint64_t value) {
    std::string digits = std::to_string(value), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string call_text(const trace_data &trace, std::size_t index) {
    if (index == no_call) return "-";
    return "#" + with_commas(index + 1) + " " + describe_call(trace, index);
}

std::string size_text(const heap_report &r) {
    switch (r.size.state) {
    case size_result::status::found:
        return human_bytes(r.size.smallest);
    case size_result::status::does_not_fit:
        return "> " + human_bytes(r.size.tried_max);
    case size_result::status::not_sized:
        return "(grows)";
    case size_result::status::error:
        return "error";
    }
    return "?";
}

std::string csv_quote(const std::string &text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string gnuplot_quote(const std::string &text) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'')
            out += "''";
        else if (c != '\n')
            out += c;
    }
    return out + "'";
}

} // namespace

std::string human_bytes(std::uint64_t bytes) {
    if (bytes < 10 * 1024) return with_commas(bytes) + " B";
    if (bytes < 10 * 1024 * 1024) return fixed(static_cast<double>(bytes) / 1024, 1) + " KiB";
    if (bytes < (std::uint64_t{10} << 30))
        return fixed(static_cast<double>(bytes) / (1024 * 1024), 1) + " MiB";
    return fixed(static_cast<double>(bytes) / (1024.0 * 1024 * 1024), 1) + " GiB";
}

void print_report(std::FILE *out, const trace_data &trace, const std::vector<heap_report> &rows) {
    std::size_t ops[8] = {0};
    for (const call &c : trace.calls)
        ops[c.op & 7u]++;
    std::fprintf(
        out, "trace %s: %s calls (malloc %s, calloc %s, memalign %s, realloc %s, free %s)\n",
        trace.path.c_str(), with_commas(trace.calls.size()).c_str(),
        with_commas(ops[TLSF_TRACE_MALLOC]).c_str(), with_commas(ops[TLSF_TRACE_CALLOC]).c_str(),
        with_commas(ops[TLSF_TRACE_MEMALIGN]).c_str(), with_commas(ops[TLSF_TRACE_REALLOC]).c_str(),
        with_commas(ops[TLSF_TRACE_FREE]).c_str());
    std::fprintf(out, "peak live %s (%s bytes requested) at call #%s%s%s; at most %s blocks live\n",
                 human_bytes(trace.peak_live).c_str(), with_commas(trace.peak_live).c_str(),
                 with_commas(trace.peak_call + 1).c_str(), trace.marks.empty() ? "" : ", in ",
                 trace.marks.empty() ? "" : mark_before(trace, trace.peak_call).c_str(),
                 with_commas(trace.block_numbers).c_str());
    if (trace.untracked_frees != 0)
        std::fprintf(out, "%s frees of blocks allocated before the recording started: left out\n",
                     with_commas(trace.untracked_frees).c_str());
    if (!trace.has_end)
        std::fprintf(out, "note: the trace has no END record: the recording lost its tail (the "
                          "program did not exit through its destructors)\n");
    std::fprintf(out, "\n%-34s %12s %6s  %-32s %10s %10s %5s  %8s %7s %8s  %s\n", "heap",
                 "smallest", "/peak", "worst moment (fails 1 unit below)", "free", "largest",
                 "frag", "instr", "p99", "max", "longest call");
    for (const heap_report &r : rows) {
        if (!r.error.empty()) {
            std::fprintf(out, "%-34s %s\n", r.name.c_str(), r.error.c_str());
            continue;
        }
        std::string ratio = "-";
        if (r.size.state == size_result::status::found && trace.peak_live > 0)
            ratio = fixed(
                static_cast<double>(r.size.smallest) / static_cast<double>(trace.peak_live), 2);
        std::string moment = r.size.state == size_result::status::found
                                 ? call_text(trace, r.size.binding_call)
                                 : "-";
        if (moment.size() > 32) moment = moment.substr(0, 31) + "~";
        std::string frag = "-";
        if (r.have_moment && r.moment_free > 0)
            frag = fixed(100.0 * (1.0 - static_cast<double>(r.moment_largest) /
                                            static_cast<double>(r.moment_free)),
                         0) +
                   "%";
        std::fprintf(out, "%-34s %12s %6s  %-32s %10s %10s %5s  ", r.name.c_str(),
                     size_text(r).c_str(), ratio.c_str(), moment.c_str(),
                     r.have_moment ? human_bytes(r.moment_free).c_str() : "-",
                     r.have_moment ? human_bytes(r.moment_largest).c_str() : "-", frag.c_str());
        if (r.counts.valid)
            std::fprintf(out, "%8s %7s %8s  %s\n", fixed(r.counts.mean, 1).c_str(),
                         with_commas(r.counts.p99).c_str(), with_commas(r.counts.max).c_str(),
                         call_text(trace, r.counts.max_call).c_str());
        else
            std::fprintf(out, "%8s %7s %8s  %s\n", "-", "-", "-", r.counts_note.c_str());
    }
    bool notes = false;
    for (const heap_report &r : rows) {
        std::string text = r.note;
        if (r.size.state == size_result::status::error)
            text += (text.empty() ? "" : "; ") + r.size.error;
        if (r.size.state == size_result::status::does_not_fit && r.size.binding_call != no_call)
            text += (text.empty() ? "" : "; ") + std::string("fails at ") +
                    call_text(trace, r.size.binding_call) + " in its largest heap";
        if (r.size.state == size_result::status::found && r.size.how != "")
            text += (text.empty() ? "" : "; ") + std::string("smallest heap: ") + r.size.how;
        if (text.empty() || !r.error.empty()) continue;
        if (!notes) std::fprintf(out, "\n");
        notes = true;
        std::fprintf(out, "%s: %s\n", r.name.c_str(), text.c_str());
    }
}

bool write_csv(const std::string &path, const trace_data &trace,
               const std::vector<heap_report> &rows) {
    std::ofstream out(path);
    if (!out) return false;
    out << "heap,spec,smallest_bytes,sizing,peak_live_bytes,smallest_over_peak,binding_call,"
           "binding_op,moment_free_bytes,moment_largest_free_bytes,fragmentation,calls_counted,"
           "mean_instructions,p99_instructions,max_instructions,max_call,max_op,max_mark,note\n";
    for (const heap_report &r : rows) {
        const bool found = r.size.state == size_result::status::found;
        out << csv_quote(r.name) << ',' << csv_quote(r.spec) << ',';
        out << (found ? std::to_string(r.size.smallest) : "") << ',';
        out << csv_quote(r.error.empty() ? r.size.how : r.error) << ',' << trace.peak_live << ',';
        out << (found && trace.peak_live ? fixed(static_cast<double>(r.size.smallest) /
                                                     static_cast<double>(trace.peak_live),
                                                 4)
                                         : "")
            << ',';
        out << (r.have_moment ? std::to_string(r.size.binding_call + 1) : "") << ',';
        out << csv_quote(r.have_moment ? describe_call(trace, r.size.binding_call) : "") << ',';
        out << (r.have_moment ? std::to_string(r.moment_free) : "") << ',';
        out << (r.have_moment ? std::to_string(r.moment_largest) : "") << ',';
        out << (r.have_moment && r.moment_free ? fixed(1.0 - static_cast<double>(r.moment_largest) /
                                                                 static_cast<double>(r.moment_free),
                                                       4)
                                               : "")
            << ',';
        if (r.counts.valid) {
            out << r.counts.calls << ',' << fixed(r.counts.mean, 2) << ',' << r.counts.p99 << ','
                << r.counts.max << ',' << r.counts.max_call + 1 << ','
                << csv_quote(describe_call(trace, r.counts.max_call)) << ','
                << csv_quote(mark_before(trace, r.counts.max_call)) << ',';
        } else {
            out << ",,,,,,,";
        }
        out << csv_quote(!r.counts_note.empty() && !r.note.empty() ? r.note + "; " + r.counts_note
                                                                   : r.note + r.counts_note)
            << '\n';
    }
    return static_cast<bool>(out);
}

bool write_curve(const std::string &path, const trace_data &trace) {
    std::ofstream out(path);
    if (!out) return false;
    out << "call,live_bytes\n";
    for (std::size_t i = 0; i < trace.calls.size(); ++i)
        out << i + 1 << ',' << trace.live_after[i] << '\n';
    return static_cast<bool>(out);
}

bool write_pictures(const std::string &dir, const trace_data &trace,
                    const std::vector<heap_report> &rows, std::string &note) {
    mkdir(dir.c_str(), 0755);
    if (!write_csv(dir + "/summary.csv", trace, rows)) return false;
    std::ostringstream variables;
    variables << "dir=" << gnuplot_quote(dir) << "\ntrace=" << gnuplot_quote(trace.path) << "\n";

    // Heap use over time, and the map at the worst moment: the first heap that has them.
    for (const heap_report &r : rows) {
        if (r.use.empty()) continue;
        std::ofstream use(dir + "/use.dat");
        use << "# call live used free largest_free (" << r.name << ", heap " << r.size.smallest
            << " bytes)\n";
        for (const use_point &p : r.use)
            use << p.call + 1 << ' ' << p.live << ' ' << p.used << ' ' << p.free << ' ' << p.largest
                << '\n';
        variables << "use_heap=" << gnuplot_quote(r.name + ", " + human_bytes(r.size.smallest))
                  << "\n";
        if (r.have_moment) variables << "worst_call=" << r.size.binding_call + 1 << "\n";
        break;
    }
    for (const heap_report &r : rows) {
        if (!r.have_moment || r.moment_map.empty()) continue;
        // The heap's bytes wrapped into rows, top to bottom: one box per block piece.
        const std::uint64_t row_count = 64;
        const std::uint64_t width =
            std::max<std::uint64_t>(1, (r.heap_bytes + row_count - 1) / row_count);
        std::ofstream map(dir + "/map.dat");
        map << "# x_center row half_width half_height used (" << r.name << ", row of " << width
            << " bytes)\n";
        for (const map_block &b : r.moment_map) {
            std::uint64_t at = b.offset, left = b.size;
            while (left > 0) {
                const std::uint64_t row = at / width, in_row = at % width;
                const std::uint64_t piece = std::min(left, width - in_row);
                map << static_cast<double>(in_row) + static_cast<double>(piece) / 2 << ' ' << row
                    << ' ' << static_cast<double>(piece) / 2 << " 0.45 " << (b.used ? 1 : 0)
                    << '\n';
                at += piece;
                left -= piece;
            }
        }
        variables << "map_heap=" << gnuplot_quote(r.name) << "\nmap_width=" << width
                  << "\nmap_title="
                  << gnuplot_quote("before " + call_text(trace, r.size.binding_call) + ": " +
                                   human_bytes(r.moment_free) + " free, largest " +
                                   human_bytes(r.moment_largest))
                  << "\n";
        break;
    }
    // Per-call cost: one CCDF file per heap with counts.
    int curves = 0;
    for (const heap_report &r : rows) {
        if (!r.counts.valid) continue;
        ++curves;
        std::vector<std::uint32_t> sorted = r.count_values;
        std::sort(sorted.begin(), sorted.end());
        std::ofstream ccdf(dir + "/ccdf-" + std::to_string(curves) + ".dat");
        ccdf << "# instructions fraction_of_calls_at_least (" << r.name << ")\n";
        const double n = static_cast<double>(sorted.size());
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            if (i > 0 && sorted[i] == sorted[i - 1]) continue;
            ccdf << sorted[i] << ' ' << (n - static_cast<double>(i)) / n << '\n';
        }
        variables << "t" << curves << "=" << gnuplot_quote(r.name) << "\n";
    }
    variables << "curves=" << curves << "\n";

    // The variables in a file of their own, so that the pictures can be drawn again (or
    // restyled) without replaying: gnuplot -e "load 'DIR/plot-variables.gp'" plot_replay.gp
    const std::string variables_path = dir + "/plot-variables.gp";
    {
        std::ofstream file(variables_path);
        std::string text = variables.str();
        file << "# tlsf-replay's values for tools/replay/plot_replay.gp\n" << text;
        if (!file) return false;
    }
    const std::string command = std::string(TLSF_REPLAY_GNUPLOT) + " -e \"load '" + variables_path +
                                "'\" " + TLSF_REPLAY_PLOT_SCRIPT + " 2>&1";
    const int status = std::system(command.c_str());
    if (status != 0)
        note = "gnuplot did not draw the pictures (" + command + " exited with " +
               std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
    return true;
}

} // namespace replay
