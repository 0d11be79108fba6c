// SPDX-License-Identifier: MIT
// shim_record_test.cpp - recording a whole program with the drop-in malloc's recording build
// (libtlsf_malloc_trace.so): threads racing on the same addresses, a fork without exec, a
// child that execs; the trace replays, by address and by id; the plain library records
// nothing.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "trace_support.hpp"

#if !defined(TLSF_TRACE_SHIM) || !defined(TLSF_PLAIN_SHIM) || !defined(TLSF_SHIM_WORKLOAD) ||      \
    !defined(TLSF_REPLAY_PROGRAM)
#error "the paths of the libraries, the workload and tlsf-replay come from CMake"
#endif

using namespace trace_test;

namespace {

int run(const std::string &command, std::string *output = nullptr) {
    std::FILE *pipe = popen((command + " 2>&1").c_str(), "r");
    if (pipe == nullptr) return -1;
    char buffer[4096];
    std::size_t n;
    std::string text;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
        text.append(buffer, n);
    const int status = pclose(pipe);
    if (output != nullptr) *output = text;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// A fresh directory for one test's traces.
std::string fresh_directory(const char *name) {
    std::string dir = ::testing::TempDir() + "tlsf_shim_" + name + "_" + std::to_string(getpid());
    run("rm -rf '" + dir + "' && mkdir -p '" + dir + "'");
    return dir;
}

std::vector<std::string> files_in(const std::string &dir) {
    std::vector<std::string> names;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (e->d_name[0] != '.') names.push_back(e->d_name);
        closedir(d);
    }
    return names;
}

std::string record(const std::string &dir, const std::string &environment) {
    const std::string command = "env " + environment + " TLSF_MALLOC_TRACE='" + dir +
                                "/w.trace' LD_PRELOAD=" TLSF_TRACE_SHIM " " TLSF_SHIM_WORKLOAD
                                " 4 20000 /bin/true";
    std::string output;
    EXPECT_EQ(run(command, &output), 0) << output;
    EXPECT_NE(output.find("done"), std::string::npos) << output;
    return dir + "/w.trace";
}

} // namespace

TEST(ShimRecording, ThreadsForkAndExecGiveTracesThatReplay) {
    const std::string dir = fresh_directory("threads");
    const std::string trace = record(dir, "");
    // The program and the child it exec'd; not the child that forked without exec.
    const std::vector<std::string> files = files_in(dir);
    EXPECT_EQ(files.size(), 2u);
    std::string output;
    ASSERT_EQ(run(TLSF_REPLAY_PROGRAM " " + trace + " --no-counts --alloc tlsf", &output), 0)
        << output;
    tlsf_trace_read_status_t status;
    tlsf_trace_header_t header{};
    const auto events = decode(read_file(trace), status, &header);
    EXPECT_EQ(status, TLSF_TRACE_READ_DONE);
    EXPECT_EQ(header.flags, TLSF_TRACE_BY_ADDRESS | TLSF_TRACE_ADDRESSES);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back().op, unsigned{TLSF_TRACE_END});
    EXPECT_GT(events.back().end_calls, 4u * 20000); // every call of the four threads
    for (const std::string &name : files) {
        if (name != "w.trace") {
            EXPECT_EQ(name.rfind("w.trace.", 0), 0u) << name; // the exec'd child's
        }
    }
}

TEST(ShimRecording, ByIdTheRecordersTotalsMatchTheReplay) {
    const std::string dir = fresh_directory("ids");
    const std::string trace = record(dir, "TLSF_MALLOC_TRACE_IDS=1 TLSF_MALLOC_TRACE_TIME=1");
    tlsf_trace_read_status_t status;
    tlsf_trace_header_t header{};
    decode(read_file(trace), status, &header);
    EXPECT_EQ(status, TLSF_TRACE_READ_DONE);
    EXPECT_EQ(header.flags, TLSF_TRACE_TIMES);
    EXPECT_EQ(header.ticks_per_second, 1000000000u);
    // The replay checks the END record's totals against the records (exit 2 if they differ).
    std::string output;
    EXPECT_EQ(run(TLSF_REPLAY_PROGRAM " " + trace + " --no-counts --alloc tlsf", &output), 0)
        << output;
}

TEST(ShimRecording, ThePlainLibraryRecordsNothing) {
    const std::string dir = fresh_directory("plain");
    std::string output;
    EXPECT_EQ(run("env TLSF_MALLOC_TRACE='" + dir +
                      "/w.trace' LD_PRELOAD=" TLSF_PLAIN_SHIM " " TLSF_SHIM_WORKLOAD " 2 1000",
                  &output),
              0)
        << output;
    EXPECT_TRUE(files_in(dir).empty());
}
