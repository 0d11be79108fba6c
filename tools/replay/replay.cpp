// SPDX-License-Identifier: MIT
// replay.cpp - see replay.hpp.
#include "replay.hpp"

#include <algorithm>

#include "tlsf_trace.h"

namespace replay {

run_result run_trace(heap &h, const trace_data &trace, std::uint64_t bytes, std::size_t stop,
                     run_observer *observer) {
    run_result result;
    if (!h.start(bytes)) {
        if (h.faulted()) result.error = h.error();
        return result; // the heap refuses this size: it does not hold the trace
    }
    // Handles by block number; the trace's loader made the numbers dense.
    std::vector<std::uint64_t> handles(trace.block_numbers, 0);
    const std::size_t end = std::min(stop, trace.calls.size());
    for (std::size_t i = 0; i < end; ++i) {
        const call &c = trace.calls[i];
        std::uint64_t got = 0;
        switch (c.op) {
        case TLSF_TRACE_MALLOC:
            got = h.allocate(c.size);
            break;
        case TLSF_TRACE_CALLOC:
            got = h.allocate_zeroed(c.size);
            break;
        case TLSF_TRACE_MEMALIGN:
            got = h.allocate_aligned(std::uint64_t{1} << c.align_log2, c.size);
            break;
        case TLSF_TRACE_REALLOC:
            // realloc(p, 0) frees p on glibc and TLSF, and hands out a block elsewhere: a
            // recorded one that returned a block is replayed as a realloc to 1 byte, which
            // every heap serves with its smallest block.
            got = h.reallocate(handles[c.old_block], c.size == 0 ? 1 : c.size);
            break;
        default: // TLSF_TRACE_FREE
            h.release(handles[c.block]);
            handles[c.block] = 0;
            break;
        }
        if (h.faulted()) {
            result.error = h.error();
            result.failed_call = i;
            return result;
        }
        if (c.op != TLSF_TRACE_FREE) {
            if (c.failed) {
                // NULL when recorded: the program went on without the block.
                if (got != 0 && c.op == TLSF_TRACE_REALLOC) {
                    handles[c.old_block] = got; // moved here, still the program's old block
                } else if (got != 0) {
                    const bool counting = h.counting;
                    const std::uint64_t count = h.last_count;
                    h.counting = false;
                    h.release(got);
                    h.counting = counting;
                    h.last_count = count;
                }
            } else if (got == 0) {
                result.failed_call = i;
                return result;
            } else {
                if (c.op == TLSF_TRACE_REALLOC) handles[c.old_block] = 0;
                handles[c.block] = got;
            }
        }
        if (observer != nullptr) observer->after_call(i, h);
    }
    result.completed = true;
    return result;
}

namespace {

std::uint64_t round_up(std::uint64_t value, std::uint64_t unit) {
    return (value + unit - 1) / unit * unit;
}

} // namespace

size_result find_smallest(heap &h, const trace_data &trace) {
    size_result out;
    switch (h.how_sized()) {
    case sizing::none:
        out.state = size_result::status::not_sized;
        out.how = "grows from the system";
        return out;
    case sizing::high_water: {
        const run_result run = run_trace(h, trace, 0);
        out.tried_max = h.max_bytes();
        if (!run.error.empty()) {
            out.state = size_result::status::error;
            out.error = run.error;
        } else if (!run.completed) {
            out.state = size_result::status::does_not_fit;
            out.binding_call = run.failed_call;
        } else {
            out.state = size_result::status::found;
            out.smallest = h.high_water_bytes();
        }
        out.how = "high-water mark of one run";
        return out;
    }
    case sizing::bisect:
        break;
    }

    const std::uint64_t unit = h.unit();
    const std::uint64_t largest = h.max_bytes() / unit * unit;
    unsigned runs = 0;
    auto attempt = [&](std::uint64_t bytes, std::size_t &failed) {
        ++runs;
        const run_result run = run_trace(h, trace, bytes);
        if (!run.error.empty()) {
            out.state = size_result::status::error;
            out.error = run.error;
        }
        failed = run.failed_call;
        return run.completed;
    };
    out.tried_max = largest;

    // lo fails (or is where the heap starts), hi holds the trace.
    std::uint64_t lo = h.min_bytes() / unit * unit;
    std::size_t lo_failed = no_call, failed = no_call;
    if (lo == 0) lo = unit;
    if (attempt(lo, lo_failed)) {
        out.state = size_result::status::found;
        out.smallest = lo;
        out.how = "the smallest heap the allocator accepts";
        return out;
    }
    if (out.state == size_result::status::error) return out;
    std::uint64_t hi = round_up(std::max<std::uint64_t>(2 * trace.peak_live, 2 * lo), unit);
    for (;;) {
        if (hi >= largest) {
            hi = largest;
            if (!attempt(hi, failed)) {
                if (out.state == size_result::status::error) return out;
                out.state = size_result::status::does_not_fit;
                out.binding_call = failed;
                return out;
            }
            break;
        }
        if (attempt(hi, failed)) break;
        if (out.state == size_result::status::error) return out;
        lo = hi;
        lo_failed = failed;
        hi = hi > largest / 2 ? largest : round_up(2 * hi, unit);
    }
    while (hi - lo > unit) {
        const std::uint64_t mid = lo + (hi - lo) / unit / 2 * unit;
        if (attempt(mid, failed)) {
            hi = mid;
        } else {
            if (out.state == size_result::status::error) return out;
            lo = mid;
            lo_failed = failed;
        }
    }
    out.state = size_result::status::found;
    out.smallest = hi;
    out.binding_call = lo_failed;
    out.how = "bisection, " + std::to_string(runs) + " runs";
    return out;
}

count_stats summarize_counts(const std::vector<std::uint32_t> &counts) {
    count_stats s;
    if (counts.empty()) return s;
    s.valid = true;
    s.calls = counts.size();
    double sum = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        sum += counts[i];
        if (counts[i] > s.max || s.max_call == no_call) {
            s.max = counts[i];
            s.max_call = i;
        }
    }
    s.mean = sum / static_cast<double>(counts.size());
    std::vector<std::uint32_t> sorted = counts;
    // p99: the smallest count that at least 99% of the calls do not exceed.
    const std::size_t rank = (sorted.size() * 99 + 99) / 100 - 1;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(rank),
                     sorted.end());
    s.p99 = sorted[rank];
    return s;
}

namespace {

class count_collector : public run_observer {
  public:
    explicit count_collector(std::vector<std::uint32_t> &counts) : counts_(counts) {}
    void after_call(std::size_t index, heap &h) override {
        counts_[index] =
            h.last_count > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(h.last_count);
    }

  private:
    std::vector<std::uint32_t> &counts_;
};

} // namespace

bool count_run(heap &h, const trace_data &trace, std::uint64_t bytes,
               std::vector<std::uint32_t> &counts, std::string &error) {
    counts.assign(trace.calls.size(), 0);
    count_collector collector(counts);
    h.counting = true;
    const run_result run = run_trace(h, trace, bytes, no_call, &collector);
    h.counting = false;
    if (!run.error.empty()) {
        error = run.error;
        return false;
    }
    if (!run.completed) {
        error = "call " + std::to_string(run.failed_call + 1) + " (" +
                describe_call(trace, run.failed_call) + ") failed";
        return false;
    }
    return true;
}

} // namespace replay
