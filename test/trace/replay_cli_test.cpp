// SPDX-License-Identifier: MIT
// replay_cli_test.cpp - tlsf-replay as a user runs it: bad input gets a clear message and its
// exit status (never a crash), the live-byte curve is the recorder's own, the smallest heap
// of every TLSF configuration is tight, and the instruction counts are exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <random>
#include <sstream>

#include "trace_support.hpp"

#ifndef TLSF_REPLAY_PROGRAM
#error "TLSF_REPLAY_PROGRAM must name the tlsf-replay executable"
#endif
#ifndef TLSF_TRACE_TESTDATA
#error "TLSF_TRACE_TESTDATA must name tools/replay/testdata"
#endif

using namespace trace_test;

namespace {

struct result {
    int status = -1;
    std::string output;
};

result replay(const std::string &arguments) {
    result r;
    const std::string command = std::string(TLSF_REPLAY_PROGRAM) + " " + arguments + " 2>&1";
    std::FILE *pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return r;
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
        r.output.append(buffer, n);
    const int status = pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

std::string temporary(const std::string &name) {
    return ::testing::TempDir() + "tlsf_replay_" + std::to_string(getpid()) + "_" + name;
}

std::string write_trace(const std::string &name, const std::vector<unsigned char> &bytes) {
    const std::string path = temporary(name);
    EXPECT_TRUE(write_file(path, bytes));
    return path;
}

// A program-like workload: blocks of many sizes, reallocs, aligned blocks, frees in random
// order. `totals` gets the recorder's live bytes after each call.
std::vector<unsigned char> workload_trace(unsigned seed, int steps,
                                          std::vector<std::uint64_t> *totals = nullptr) {
    memory_recorder r(1u << 14);
    std::mt19937_64 random(seed);
    std::vector<std::uintptr_t> live;
    std::uintptr_t next = 0x100000;
    auto fresh = [&](std::size_t size) {
        const std::uintptr_t a = next;
        next += 64 * (1 + size / 64);
        return a;
    };
    for (int step = 0; step < steps; ++step) {
        const unsigned choice = static_cast<unsigned>(random() % 100);
        const std::size_t size =
            random() % 8 == 0 ? random() % 20000 : random() % 256; // mostly small
        if (live.size() < 50 || choice < 40) {
            const std::uintptr_t a = fresh(size);
            if (choice % 10 == 0)
                tlsf_trace_memalign(r.trace, std::size_t{64} << (random() % 4), size, fake(a));
            else if (choice % 10 == 1)
                tlsf_trace_calloc(r.trace, 1, size, fake(a));
            else
                tlsf_trace_malloc(r.trace, size, fake(a));
            live.push_back(a);
        } else if (choice < 55) {
            const std::size_t k = random() % live.size();
            const std::uintptr_t a = fresh(size);
            tlsf_trace_realloc(r.trace, fake(live[k]), size, fake(a));
            live[k] = a;
        } else {
            const std::size_t k = random() % live.size();
            tlsf_trace_free(r.trace, fake(live[k]));
            live[k] = live.back();
            live.pop_back();
        }
        if (totals != nullptr) totals->push_back(r.stats().live_bytes);
    }
    EXPECT_EQ(tlsf_trace_finish(r.trace), 0);
    return r.bytes;
}

// The smallest_bytes column of the CSV's first heap.
std::uint64_t smallest_from_csv(const std::string &path) {
    std::ifstream in(path);
    std::string header, line;
    std::getline(in, header);
    std::getline(in, line);
    // heap,spec,smallest_bytes,...: the first two fields are quoted names.
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (char c : line) {
        if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            fields.push_back(field), field.clear();
        else
            field += c;
    }
    fields.push_back(field);
    return fields.size() > 2 && !fields[2].empty() ? std::stoull(fields[2]) : 0;
}

std::vector<std::string> testdata_traces() {
    std::vector<std::string> paths;
    DIR *dir = opendir(TLSF_TRACE_TESTDATA);
    if (dir == nullptr) return paths;
    while (dirent *entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name.size() > 6 && name.substr(name.size() - 6) == ".trace")
            paths.push_back(std::string(TLSF_TRACE_TESTDATA) + "/" + name);
    }
    closedir(dir);
    std::sort(paths.begin(), paths.end());
    return paths;
}

} // namespace

TEST(ReplayCli, UsageAndFileErrorsExitOne) {
    EXPECT_EQ(replay("").status, 1);
    EXPECT_EQ(replay("--no-such-option x").status, 1);
    const result missing = replay(temporary("does-not-exist"));
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.output.find("No such file"), std::string::npos) << missing.output;
    const std::string good = write_trace("good", workload_trace(1, 200));
    const result bad_spec = replay(good + " --no-counts --alloc tlsf:frobnicate=1");
    EXPECT_EQ(bad_spec.status, 1);
    EXPECT_NE(bad_spec.output.find("unknown setting"), std::string::npos) << bad_spec.output;
    const result no_backend = replay(good + " --no-counts --alloc tlsf:sl=2,checks=1");
    EXPECT_EQ(no_backend.status, 1);
    EXPECT_NE(no_backend.output.find("no backend"), std::string::npos) << no_backend.output;
}

TEST(ReplayCli, BadTracesExitTwoWithTheReason) {
    const std::vector<unsigned char> good = workload_trace(2, 300);
    struct bad_case {
        const char *name;
        std::vector<unsigned char> bytes;
        const char *says;
    };
    std::vector<bad_case> cases;
    cases.push_back({"empty", {}, "truncated"});
    cases.push_back(
        {"text", {'h', 'e', 'l', 'l', 'o', ',', ' ', 'w', 'o', 'r', 'l', 'd'}, "not a TLSF trace"});
    std::vector<unsigned char> truncated(good.begin(), good.end() - 3);
    cases.push_back({"truncated", truncated, "truncated"});
    std::vector<unsigned char> corrupt = good;
    corrupt[TLSF_TRACE_HEADER_BYTES] = 0x0C; // the first record's tag: no such operation
    cases.push_back({"corrupt", corrupt, "corrupt record"});
    // A free of an id no block has: the header of a good trace (ids of two bytes), then FREE
    // id 3.
    std::vector<unsigned char> unknown(good.begin(), good.begin() + TLSF_TRACE_HEADER_BYTES);
    ASSERT_EQ(good[11], 2);
    unknown.insert(unknown.end(), {TLSF_TRACE_FREE, 3, 0});
    cases.push_back({"unknown-free", unknown, "free of unknown id 3"});
    std::vector<unsigned char> unknown_realloc(good.begin(),
                                               good.begin() + TLSF_TRACE_HEADER_BYTES);
    unknown_realloc.insert(unknown_realloc.end(), {TLSF_TRACE_REALLOC, 5, 0, 16, 1, 0});
    cases.push_back({"unknown-realloc", unknown_realloc, "realloc of unknown id 5"});
    // An END whose totals disagree with the records.
    memory_recorder lying;
    tlsf_trace_malloc(lying.trace, 100, fake(0x1000));
    ASSERT_EQ(tlsf_trace_finish(lying.trace), 0);
    std::vector<unsigned char> lie = lying.bytes;
    lie[lie.size() - 4] = 99; // END: calls, blocks, live bytes (100 -> 99), peak, ...
    cases.push_back({"totals", lie, "totals disagree"});
    // A recording stopped by a full table.
    memory_recorder full(16);
    for (std::uintptr_t k = 0; k < 100; ++k)
        tlsf_trace_malloc(full.trace, 8, fake(0x1000 + 16 * k));
    ASSERT_EQ(tlsf_trace_finish(full.trace), 0);
    cases.push_back({"table-full", full.bytes, "table of live blocks was full"});

    for (const bad_case &c : cases) {
        const std::string path = write_trace(c.name, c.bytes);
        const result r = replay(path + " --no-counts");
        EXPECT_EQ(r.status, 2) << c.name << ": " << r.output;
        EXPECT_NE(r.output.find(c.says), std::string::npos) << c.name << ": " << r.output;
        EXPECT_EQ(r.output.find("Segmentation"), std::string::npos) << c.name;
        std::remove(path.c_str());
    }
}

// Named by address (the drop-in malloc's way): a free of a block the trace never allocated
// is one from before the recording, left out and counted; an address handed out twice
// while live is a corrupt trace.
TEST(ReplayCli, ByAddressLeavesOutEarlierBlocksAndRefusesTwiceLive) {
    std::vector<unsigned char> memory(tlsf_trace_memory_bytes(0, 0));
    struct sink_state {
        std::vector<unsigned char> bytes;
        static int sink(void *user, const void *data, std::size_t length) {
            auto *self = static_cast<sink_state *>(user);
            const auto *p = static_cast<const unsigned char *>(data);
            self->bytes.insert(self->bytes.end(), p, p + length);
            return 0;
        }
    };
    auto record = [&](bool twice) {
        sink_state out;
        tlsf_trace_config_t config = {};
        config.sink = &sink_state::sink;
        config.sink_user = &out;
        config.name_by_address = 1;
        tlsf_trace_t *t = tlsf_trace_create(memory.data(), memory.size(), &config);
        tlsf_trace_free(t, fake(0x123450));                        // from before the recording
        tlsf_trace_realloc(t, fake(0x223450), 64, fake(0x323450)); // likewise
        tlsf_trace_malloc(t, 100, fake(0x10000));
        if (twice) tlsf_trace_malloc(t, 100, fake(0x10000));
        tlsf_trace_free(t, fake(0x10000));
        tlsf_trace_free(t, fake(0x323450));
        EXPECT_EQ(tlsf_trace_finish(t), 0);
        return out.bytes;
    };
    const std::string good = write_trace("by-address", record(false));
    const result fine = replay(good + " --no-counts --alloc tlsf");
    EXPECT_EQ(fine.status, 0) << fine.output;
    EXPECT_NE(fine.output.find("2 frees of blocks allocated before the recording started"),
              std::string::npos)
        << fine.output;
    const std::string bad = write_trace("by-address-twice", record(true));
    const result twice = replay(bad + " --no-counts --alloc tlsf");
    EXPECT_EQ(twice.status, 2) << twice.output;
    EXPECT_NE(twice.output.find("malloc returns address 0x10000, which is still live"),
              std::string::npos)
        << twice.output;
    std::remove(good.c_str());
    std::remove(bad.c_str());
}

TEST(ReplayCli, ATraceNoHeapCanHoldExitsThree) {
    memory_recorder r;
    tlsf_trace_malloc(r.trace, std::size_t{1} << 40, fake(0x1000)); // 1 TiB, and it succeeded
    tlsf_trace_free(r.trace, fake(0x1000));
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    const std::string path = write_trace("huge", r.bytes);
    const result huge = replay(path + " --no-counts --alloc tlsf --alloc tlsf:sl=4,checks=0");
    EXPECT_EQ(huge.status, 3) << huge.output;
    EXPECT_NE(huge.output.find("needs more memory than any candidate heap"), std::string::npos)
        << huge.output;
    EXPECT_NE(huge.output.find("malloc(1099511627776)"), std::string::npos) << huge.output;

    // The same with a modest trace and a small --max-heap.
    const std::string modest = write_trace("modest", workload_trace(3, 2000));
    const result small = replay(modest + " --no-counts --alloc tlsf --max-heap 4k");
    EXPECT_EQ(small.status, 3) << small.output;
    std::remove(path.c_str());
    std::remove(modest.c_str());
}

TEST(ReplayCli, LiveCurveIsTheRecordersOwn) {
    std::vector<std::uint64_t> totals;
    const std::string path = write_trace("curve", workload_trace(4, 20000, &totals));
    const std::string curve = temporary("curve.csv");
    const result r = replay(path + " --no-counts --alloc tlsf --curve " + curve);
    ASSERT_EQ(r.status, 0) << r.output;
    std::ifstream in(curve);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "call,live_bytes");
    std::size_t calls = 0;
    while (std::getline(in, line)) {
        const std::size_t comma = line.find(',');
        ASSERT_NE(comma, std::string::npos);
        ASSERT_LT(calls, totals.size());
        EXPECT_EQ(std::stoull(line.substr(0, comma)), calls + 1);
        EXPECT_EQ(std::stoull(line.substr(comma + 1)), totals[calls]) << "call " << calls + 1;
        ++calls;
    }
    EXPECT_EQ(calls, totals.size());
    std::remove(path.c_str());
    std::remove(curve.c_str());
}

// The smallest heap the bisection reports holds the trace, and one alignment unit less
// does not: for each TLSF configuration, on a synthetic trace and on every real one kept.
TEST(ReplayCli, SmallestHeapIsTightForTlsf) {
    std::vector<std::string> traces = testdata_traces();
    EXPECT_GE(traces.size(), 4u) << "tools/replay/testdata holds the real traces";
    traces.push_back(write_trace("tight", workload_trace(5, 5000)));
    for (const std::string &trace : traces) {
        for (const char *spec : {"tlsf", "tlsf:sl=4,checks=0,cache=0", "tlsf:slabs=4k",
                                 "tlsf:sl=3,checks=2,cache=64k"}) {
            const std::string csv = temporary("tight.csv");
            const result found = replay(trace + " --no-counts --alloc " + spec + " --csv " + csv);
            ASSERT_EQ(found.status, 0) << trace << " " << spec << ": " << found.output;
            const std::uint64_t smallest = smallest_from_csv(csv);
            ASSERT_GT(smallest, 0u) << trace << " " << spec;
            const std::uint64_t unit = 16; // the host's alignment
            const result at =
                replay(trace + " --alloc " + spec + " --heap " + std::to_string(smallest));
            EXPECT_EQ(at.status, 0) << trace << " " << spec << ": " << at.output;
            const result below =
                replay(trace + " --alloc " + spec + " --heap " + std::to_string(smallest - unit));
            EXPECT_EQ(below.status, 3) << trace << " " << spec << ": " << below.output;
            std::remove(csv.c_str());
        }
    }
    std::remove(traces.back().c_str());
}

TEST(ReplayCli, HostCountsAreExactOrSaidToBeMissing) {
    const result r = replay("--check-counter");
    if (r.output.find("no host instruction counts") != std::string::npos) GTEST_SKIP() << r.output;
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("five-instruction function: 5 and 5; empty function: 1"),
              std::string::npos)
        << r.output;
}

TEST(ReplayCli, TheReportCountsEveryHeapAndDrawsThePictures) {
    const std::vector<std::string> traces = testdata_traces();
    ASSERT_FALSE(traces.empty());
    std::string smallest_trace = traces.front();
    for (const std::string &t : traces)
        if (read_file(t).size() < read_file(smallest_trace).size()) smallest_trace = t;
    const std::string out = temporary("report");
    const result r = replay(smallest_trace + " --alloc tlsf --alloc glibc --out " + out);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("peak live"), std::string::npos) << r.output;
    const bool counted = replay("--check-counter").status == 0;
    const std::vector<unsigned char> summary = read_file(out + "/summary.csv");
    EXPECT_FALSE(summary.empty());
    if (counted) {
        EXPECT_FALSE(read_file(out + "/ccdf-2.dat").empty()) << r.output;
    }
    EXPECT_FALSE(read_file(out + "/use.dat").empty());
    if (access("/usr/bin/gnuplot", X_OK) == 0) {
        EXPECT_FALSE(read_file(out + "/use.png").empty()) << r.output;
        EXPECT_FALSE(read_file(out + "/map.png").empty()) << r.output;
        if (counted) {
            EXPECT_FALSE(read_file(out + "/ccdf.png").empty()) << r.output;
        }
    }
}
