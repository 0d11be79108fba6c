// SPDX-License-Identifier: MIT
// sinks_test.cpp - the ring-buffer sink (tlsf_trace_ring.h) and the file sink
// (tlsf_trace_file.h), each case of their contracts.
#include <gtest/gtest.h>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "tlsf_trace_file.h"
#include "tlsf_trace_ring.h"
#include "trace_support.hpp"

using namespace trace_test;

namespace {

struct drained {
    std::vector<unsigned char> bytes;
    int calls = 0;
    bool give_up = false;
};

int drain_all(void *user, tlsf_trace_ring_t *ring, std::size_t needed) {
    auto *d = static_cast<drained *>(user);
    ++d->calls;
    if (d->give_up) return -1;
    unsigned char chunk[7]; // odd on purpose: the reads wrap in every way
    std::size_t n, total = 0;
    while ((n = tlsf_trace_ring_read(ring, chunk, sizeof chunk)) > 0) {
        d->bytes.insert(d->bytes.end(), chunk, chunk + n);
        total += n;
    }
    EXPECT_GE(total, needed);
    return 0;
}

std::string temporary_path(const char *name) {
    return ::testing::TempDir() + "tlsf_trace_" + name + "_" + std::to_string(getpid());
}

} // namespace

TEST(TraceRing, InitRefusesBadArguments) {
    tlsf_trace_ring_t ring;
    unsigned char storage[64];
    EXPECT_EQ(tlsf_trace_ring_init(nullptr, storage, 64, nullptr, nullptr), -1);
    EXPECT_EQ(tlsf_trace_ring_init(&ring, nullptr, 64, nullptr, nullptr), -1);
    EXPECT_EQ(tlsf_trace_ring_init(&ring, storage, 48, nullptr, nullptr), -1);
    EXPECT_EQ(tlsf_trace_ring_init(&ring, storage, 1, nullptr, nullptr), -1);
    EXPECT_EQ(tlsf_trace_ring_init(&ring, storage, 64, nullptr, nullptr), 0);
    EXPECT_EQ(tlsf_trace_ring_sink(nullptr, storage, 1), -1);
    EXPECT_EQ(tlsf_trace_ring_used(nullptr), 0u);
    EXPECT_EQ(tlsf_trace_ring_read(nullptr, storage, 1), 0u);
    EXPECT_EQ(tlsf_trace_ring_read(&ring, nullptr, 1), 0u);
}

TEST(TraceRing, BytesComeOutInOrderAcrossTheWrap) {
    tlsf_trace_ring_t ring;
    unsigned char storage[16];
    ASSERT_EQ(tlsf_trace_ring_init(&ring, storage, sizeof storage, nullptr, nullptr), 0);
    std::vector<unsigned char> out;
    for (unsigned round = 0; round < 50; ++round) {
        unsigned char piece[5];
        for (unsigned k = 0; k < 5; ++k)
            piece[k] = static_cast<unsigned char>(round * 5 + k);
        ASSERT_EQ(tlsf_trace_ring_sink(&ring, piece, sizeof piece), 0);
        EXPECT_EQ(tlsf_trace_ring_used(&ring), 5u);
        unsigned char back[16];
        const std::size_t n = tlsf_trace_ring_read(&ring, back, sizeof back);
        out.insert(out.end(), back, back + n);
    }
    ASSERT_EQ(out.size(), 250u);
    for (std::size_t k = 0; k < out.size(); ++k)
        EXPECT_EQ(out[k], static_cast<unsigned char>(k));
}

TEST(TraceRing, AFullRingWithoutRoomMakerFails) {
    tlsf_trace_ring_t ring;
    unsigned char storage[8], bytes[6] = {1, 2, 3, 4, 5, 6};
    ASSERT_EQ(tlsf_trace_ring_init(&ring, storage, sizeof storage, nullptr, nullptr), 0);
    EXPECT_EQ(tlsf_trace_ring_sink(&ring, bytes, 6), 0);
    EXPECT_EQ(tlsf_trace_ring_sink(&ring, bytes, 6), -1);
    EXPECT_EQ(ring.overflows, 1u);
    drained d;
    d.give_up = true;
    ASSERT_EQ(tlsf_trace_ring_init(&ring, storage, sizeof storage, drain_all, &d), 0);
    EXPECT_EQ(tlsf_trace_ring_sink(&ring, bytes, 6), 0);
    EXPECT_EQ(tlsf_trace_ring_sink(&ring, bytes, 6), -1);
    EXPECT_EQ(d.calls, 1);
}

TEST(TraceRing, ARecorderThroughASmallRingLosesNothing) {
    // A chunk larger than the whole ring goes in pieces, the room maker draining between.
    unsigned char storage[64];
    drained d;
    tlsf_trace_ring_t ring;
    ASSERT_EQ(tlsf_trace_ring_init(&ring, storage, sizeof storage, drain_all, &d), 0);
    std::vector<unsigned char> memory(tlsf_trace_memory_bytes(256, 1024));
    tlsf_trace_config_t config = {};
    config.sink = tlsf_trace_ring_sink;
    config.sink_user = &ring;
    config.buffer_bytes = 1024;
    config.heap_align_log2 = 4; // as memory_recorder's
    tlsf_trace_t *trace = tlsf_trace_create(memory.data(), memory.size(), &config);
    memory_recorder reference(256, 1024);
    for (std::uintptr_t k = 0; k < 3000; ++k) {
        for (tlsf_trace_t *t : {trace, reference.trace}) {
            tlsf_trace_malloc(t, k * 3, fake(0x1000 + 16 * (k % 50)));
            tlsf_trace_free(t, fake(0x1000 + 16 * (k % 50)));
        }
    }
    ASSERT_EQ(tlsf_trace_finish(trace), 0);
    ASSERT_EQ(tlsf_trace_finish(reference.trace), 0);
    drain_all(&d, &ring, 0);
    EXPECT_EQ(d.bytes, reference.bytes);
    EXPECT_EQ(ring.overflows, 0u);
}

TEST(TraceFile, OpenRefusesNullEmptyAndTooLong) {
    tlsf_trace_file_t file;
    errno = 0;
    EXPECT_EQ(tlsf_trace_file_open(nullptr, "x"), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(tlsf_trace_file_open(&file, nullptr), -1);
    EXPECT_EQ(file.fd, -1);
    EXPECT_EQ(tlsf_trace_file_open(&file, ""), -1);
    EXPECT_EQ(errno, EINVAL);
    const std::string long_path(TLSF_TRACE_FILE_PATH_MAX + 10, 'a');
    EXPECT_EQ(tlsf_trace_file_open(&file, long_path.c_str()), -1);
    EXPECT_EQ(errno, ENAMETOOLONG);
    EXPECT_EQ(tlsf_trace_file_open(&file, "/nonexistent-directory/trace"), -1);
    EXPECT_EQ(tlsf_trace_file_sink(nullptr, "x", 1), -1);
    EXPECT_EQ(tlsf_trace_file_sink(&file, "x", 1), -1); // closed
    tlsf_trace_file_close(nullptr);
    tlsf_trace_file_close(&file);
}

TEST(TraceFile, PercentPBecomesThePid) {
    const std::string pattern = temporary_path("pid") + ".%p.trace";
    tlsf_trace_file_t file;
    ASSERT_EQ(tlsf_trace_file_open(&file, pattern.c_str()), 0);
    const std::string expected = temporary_path("pid") + "." + std::to_string(getpid()) + ".trace";
    EXPECT_EQ(std::string(file.path), expected);
    EXPECT_EQ(tlsf_trace_file_sink(&file, "abc", 3), 0);
    tlsf_trace_file_close(&file);
    EXPECT_EQ(read_file(expected), (std::vector<unsigned char>{'a', 'b', 'c'}));
    unlink(expected.c_str());
}

TEST(TraceFile, ATakenPathGivesAFileOfItsOwnAndAFreeOneIsTruncated) {
    const std::string path = temporary_path("lock");
    ASSERT_TRUE(write_file(path, {1, 2, 3, 4, 5}));
    tlsf_trace_file_t first, second;
    ASSERT_EQ(tlsf_trace_file_open(&first, path.c_str()), 0);
    EXPECT_EQ(std::string(first.path), path);
    EXPECT_EQ(read_file(path).size(), 0u); // truncated
    // Another open file description: the lock is taken, as by another process.
    ASSERT_EQ(tlsf_trace_file_open(&second, path.c_str()), 0);
    EXPECT_EQ(std::string(second.path), path + "." + std::to_string(getpid()));
    EXPECT_EQ(tlsf_trace_file_sink(&second, "zz", 2), 0);
    tlsf_trace_file_close(&first);
    tlsf_trace_file_close(&second);
    EXPECT_EQ(read_file(path + "." + std::to_string(getpid())).size(), 2u);
    unlink(path.c_str());
    unlink((path + "." + std::to_string(getpid())).c_str());
}

TEST(TraceFile, TheSinkKeepsErrno) {
    const std::string path = temporary_path("errno");
    tlsf_trace_file_t file;
    ASSERT_EQ(tlsf_trace_file_open(&file, path.c_str()), 0);
    errno = 1234;
    EXPECT_EQ(tlsf_trace_file_sink(&file, "x", 1), 0);
    EXPECT_EQ(errno, 1234);
    close(file.fd); // a write error now
    EXPECT_EQ(tlsf_trace_file_sink(&file, "x", 1), -1);
    EXPECT_EQ(errno, 1234);
    file.fd = -1;
    unlink(path.c_str());
}
