// SPDX-License-Identifier: MIT
// latency.cpp - workload 6: how long each single malloc and free of workload 2 takes.
//
// Every call is timed on its own with the cycle counter. Interrupts, page faults and a
// busy neighbour on a shared machine only ever add time, so workload 2 is replayed in
// three identical passes and each call keeps the smallest of its three timings: what
// remains is the allocator's own variation, which is what a real-time budget is about.
// The passes are interleaved across allocators (pass 1 of all, then pass 2 of all...),
// so a noisy moment hurts all of them alike. The TLSF heap is re-created before each
// pass, so its passes are bit-for-bit identical; the others free everything between
// passes and keep whatever state they keep.
//
//   tlsf_latency [--out DIR] [--ops N] [--no-per-op]
//
// Prints p50, p99, p99.9, p99.99 and max per allocator for malloc and for free, and
// writes into DIR: latency_summary.csv, latency_ccdf.csv (the distribution, for
// plotting) and latency_ops_<allocator>.csv (every call, unless --no-per-op).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cycle_timer.hpp"
#include "random_workload.hpp"
#include "raw_heaps.hpp"

namespace {

constexpr int kPasses = 3;

struct options {
    std::string out_dir = ".";
    std::uint32_t ops = 1000000;
    bool per_op = true;
};

options parse(int argc, char **argv) {
    options opt;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            opt.out_dir = argv[++i];
        } else if (std::strcmp(argv[i], "--ops") == 0 && i + 1 < argc) {
            opt.ops = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
        } else if (std::strcmp(argv[i], "--no-per-op") == 0) {
            opt.per_op = false;
        } else {
            std::fprintf(stderr, "usage: %s [--out DIR] [--ops N] [--no-per-op]\n", argv[0]);
            std::exit(2);
        }
    }
    return opt;
}

// Per call, the smallest time seen over the passes, in ticks. The timer's own cost is
// left in and printed: on a clock that advances in coarse steps, taking it off would
// turn the fastest calls into zeros.
struct call_times {
    std::string allocator;
    std::vector<std::uint32_t> malloc_ticks;
    std::vector<std::uint32_t> free_ticks;
};

template <class Heap>
void begin_pass(Heap &) {
}
void begin_pass(bench::tlsf_c_heap &heap) {
    heap.reset();
}

void keep_smallest(std::uint32_t &slot, std::uint64_t ticks) {
    const std::uint32_t clamped =
        ticks > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<std::uint32_t>(ticks);
    if (clamped < slot) slot = clamped;
}

template <class Heap>
void run_pass(Heap &heap, const bench::random_workload &w, call_times &out) {
    begin_pass(heap);
    std::vector<void *> slots;
    bench::fill_slots(heap, w, slots);
    for (std::size_t i = 0; i < w.ops.size(); ++i) {
        const bench::replace_op op = w.ops[i];
        const std::uint64_t t0 = bench::ticks_now();
        heap.deallocate(slots[op.slot]);
        const std::uint64_t t1 = bench::ticks_now();
        void *p = heap.allocate(op.size);
        const std::uint64_t t2 = bench::ticks_now();
        if (p == nullptr) {
            std::fprintf(stderr, "%s: allocation failed at op %zu\n", heap.name(), i);
            std::exit(1);
        }
        *static_cast<unsigned char *>(p) = static_cast<unsigned char>(op.size); // as workload 2
        slots[op.slot] = p;
        keep_smallest(out.free_ticks[i], t1 - t0);
        keep_smallest(out.malloc_ticks[i], t2 - t1);
    }
    bench::free_slots(heap, slots);
}

// Nearest-rank quantile of sorted data: the smallest value with at least q of the data
// at or below it.
double quantile(const std::vector<std::uint32_t> &sorted, double q) {
    const double rank = std::ceil(q * static_cast<double>(sorted.size()));
    const std::size_t index = rank < 1.0 ? 0 : static_cast<std::size_t>(rank) - 1;
    return sorted[std::min(index, sorted.size() - 1)];
}

struct distribution {
    std::string allocator;
    std::string call; // "malloc" or "free"
    std::vector<std::uint32_t> sorted;
};

FILE *open_or_die(const std::string &path) {
    FILE *f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        std::perror(path.c_str());
        std::exit(1);
    }
    return f;
}

} // namespace

int main(int argc, char **argv) {
    const options opt = parse(argc, argv);
    bench::random_workload_shape shape;
    shape.ops = opt.ops;
    const bench::random_workload w = bench::make_random_workload(shape);

    bench::heap_set heaps(16u << 20);
    for (const std::string &note : heaps.notes())
        std::fprintf(stderr, "note: %s\n", note.c_str());

    const double per_ns = bench::ticks_per_ns();
    const std::uint64_t overhead = bench::timer_overhead_ticks();
    const std::uint64_t step = bench::timer_step_ticks();

    std::vector<call_times> times;
    heaps.for_each([&](auto &heap) {
        call_times t;
        t.allocator = heap.name();
        t.malloc_ticks.assign(w.ops.size(), 0xFFFFFFFFu);
        t.free_ticks.assign(w.ops.size(), 0xFFFFFFFFu);
        times.push_back(std::move(t));
    });
    for (int pass = 0; pass < kPasses; ++pass) {
        std::size_t index = 0;
        heaps.for_each([&](auto &heap) { run_pass(heap, w, times[index++]); });
    }

    auto to_ns = [per_ns](double ticks) { return ticks / per_ns; };

    if (opt.per_op) {
        for (const call_times &t : times) {
            FILE *f = open_or_die(opt.out_dir + "/latency_ops_" + t.allocator + ".csv");
            std::fprintf(f, "op,malloc_ns,free_ns\n");
            for (std::size_t i = 0; i < w.ops.size(); ++i) {
                std::fprintf(f, "%zu,%.0f,%.0f\n", i, to_ns(t.malloc_ticks[i]),
                             to_ns(t.free_ticks[i]));
            }
            std::fclose(f);
        }
    }

    std::vector<distribution> dists;
    for (call_times &t : times) {
        dists.push_back({t.allocator, "malloc", std::move(t.malloc_ticks)});
        dists.push_back({t.allocator, "free", std::move(t.free_ticks)});
    }
    for (distribution &d : dists)
        std::sort(d.sorted.begin(), d.sorted.end());

    std::printf("workload 2: %zu ops (1 free + 1 malloc each), live set %zu, sizes 8..1024\n",
                w.ops.size(), w.initial_sizes.size());
    std::printf("timer: %s, %.3f ticks/ns, resolution %.1f ns; min of %d passes per call; the\n"
                "times include the timer's own %.1f ns (two back-to-back reads)\n",
                bench::ticks_source(), per_ns, static_cast<double>(step) / per_ns, kPasses,
                static_cast<double>(overhead) / per_ns);
    std::printf("%-10s %-6s %9s %9s %9s %9s %9s   (ns)\n", "allocator", "call", "p50", "p99",
                "p99.9", "p99.99", "max");

    FILE *summary = open_or_die(opt.out_dir + "/latency_summary.csv");
    std::fprintf(summary, "allocator,call,p50_ns,p99_ns,p99_9_ns,p99_99_ns,max_ns\n");
    for (const distribution &d : dists) {
        const double p50 = to_ns(quantile(d.sorted, 0.50));
        const double p99 = to_ns(quantile(d.sorted, 0.99));
        const double p999 = to_ns(quantile(d.sorted, 0.999));
        const double p9999 = to_ns(quantile(d.sorted, 0.9999));
        const double max = to_ns(d.sorted.back());
        std::printf("%-10s %-6s %9.1f %9.1f %9.1f %9.1f %9.1f\n", d.allocator.c_str(),
                    d.call.c_str(), p50, p99, p999, p9999, max);
        std::fprintf(summary, "%s,%s,%.1f,%.1f,%.1f,%.1f,%.1f\n", d.allocator.c_str(),
                     d.call.c_str(), p50, p99, p999, p9999, max);
    }
    std::fclose(summary);

    // The complementary distribution: for a fraction f of calls slower than x, one row per
    // f from 1/2 down to 1/N on a log scale, one column per allocator and call.
    FILE *ccdf = open_or_die(opt.out_dir + "/latency_ccdf.csv");
    std::fprintf(ccdf, "fraction_slower");
    for (const distribution &d : dists)
        std::fprintf(ccdf, ",%s_%s", d.allocator.c_str(), d.call.c_str());
    std::fprintf(ccdf, "\n");
    const double smallest = 1.0 / static_cast<double>(w.ops.size());
    for (double exponent = std::log10(0.5);; exponent -= 0.05) {
        const double fraction = std::max(std::pow(10.0, exponent), smallest);
        std::fprintf(ccdf, "%.3g", fraction);
        for (const distribution &d : dists)
            std::fprintf(ccdf, ",%.1f", to_ns(quantile(d.sorted, 1.0 - fraction)));
        std::fprintf(ccdf, "\n");
        if (fraction <= smallest) break;
    }
    std::fclose(ccdf);
    return 0;
}
