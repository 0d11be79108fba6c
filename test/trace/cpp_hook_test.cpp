// SPDX-License-Identifier: MIT
// cpp_hook_test.cpp - the C++ layer's recording hook (TLSF_CPP_TRACE=1, <tlsf/config.hpp>):
// global new and delete on the default heap, over-aligned new, containers on tlsf::allocator
// and a heap of the program's own, each recorded with heap::set_trace; the trace's totals are
// the recorder's and the records add up to them.
#include <gtest/gtest.h>

#include <tlsf/tlsf.hpp>

#include <tlsf/global_new.hpp>

#include <map>
#include <memory>
#include <vector>

#include "trace_support.hpp"

using namespace trace_test;

#if !TLSF_CPP_TRACE
#error "this test is built with TLSF_CPP_TRACE=1"
#endif

namespace {

struct alignas(128) over_aligned {
    char bytes[200];
};

// Replays the records' live bytes and returns them, with the END record's own figure.
void check_totals(const std::vector<unsigned char> &bytes, std::uint64_t &calls) {
    tlsf_trace_read_status_t status;
    const auto events = decode(bytes, status);
    ASSERT_EQ(status, TLSF_TRACE_READ_DONE);
    ASSERT_FALSE(events.empty());
    const tlsf_trace_event_t &end = events.back();
    ASSERT_EQ(end.op, unsigned{TLSF_TRACE_END});
    std::map<std::uint32_t, std::uint64_t> sizes;
    std::uint64_t live = 0, peak = 0;
    calls = 0;
    for (const auto &e : events) {
        if (e.op == TLSF_TRACE_END || e.op == TLSF_TRACE_MARK) continue;
        ++calls;
        if (e.op == TLSF_TRACE_FREE) {
            ASSERT_EQ(sizes.count(e.id), 1u) << "a free of a block the trace never had";
            live -= sizes[e.id];
            sizes.erase(e.id);
            continue;
        }
        if (e.op == TLSF_TRACE_REALLOC && !e.failed) {
            live -= sizes[e.old_id];
            sizes.erase(e.old_id);
        }
        if (!e.failed) {
            sizes[e.id] = e.size;
            live += e.size;
        }
        peak = std::max(peak, live);
    }
    EXPECT_EQ(calls, end.end_calls);
    EXPECT_EQ(live, end.end_live_bytes);
    EXPECT_EQ(peak, end.end_peak_live_bytes);
}

} // namespace

TEST(CppHook, GlobalNewAndDeleteOnTheDefaultHeapAreRecorded) {
    memory_recorder r(1u << 12);
    tlsf::default_heap().set_trace(r.trace);
    {
        auto one = std::make_unique<int>(42);
        std::vector<int> grows;
        for (int k = 0; k < 1000; ++k)
            grows.push_back(k);
        auto aligned = std::make_unique<over_aligned>();
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned.get()) % 128, 0u);
        std::vector<int, tlsf::allocator<int>> on_allocator(500, 7);
        EXPECT_EQ(on_allocator[499], 7);
    }
    tlsf::default_heap().set_trace(nullptr);
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    const tlsf_trace_stats_t stats = r.stats();
    EXPECT_GE(stats.calls, 2u * (1 + 11 + 1 + 1)); // new and delete of each, vector growths
    EXPECT_EQ(stats.live_bytes, 0u);               // everything made in the block is gone
    std::uint64_t calls = 0;
    check_totals(r.bytes, calls);
    tlsf_trace_read_status_t status;
    bool saw_aligned = false;
    for (const auto &e : decode(r.bytes, status))
        saw_aligned |= e.op == TLSF_TRACE_MEMALIGN && e.align_log2 == 7;
    EXPECT_TRUE(saw_aligned) << "the over-aligned new is a memalign of 128";
}

TEST(CppHook, AHeapOfTheProgramsOwnRecordsEveryKindOfCall) {
    static unsigned char memory[64 * 1024];
    tlsf::heap heap(memory, sizeof memory);
    memory_recorder r;
    heap.set_trace(r.trace);
    EXPECT_EQ(heap.trace(), r.trace);
    void *a = heap.malloc(100);
    void *b = heap.calloc(10, 10);
    void *c = heap.memalign(256, 50);
    a = heap.realloc(a, 3000);
    void *none = heap.malloc(1u << 20); // fails: recorded as failed
    EXPECT_EQ(none, nullptr);
    EXPECT_EQ(heap.realloc(b, 0), nullptr); // frees b: recorded as a free
    heap.free(c);
    heap.free(a);
    heap.set_trace(nullptr);
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    tlsf_trace_read_status_t status;
    const auto e = decode(r.bytes, status);
    ASSERT_EQ(status, TLSF_TRACE_READ_DONE);
    ASSERT_EQ(e.size(), 9u);
    const unsigned ops[] = {TLSF_TRACE_MALLOC,  TLSF_TRACE_CALLOC, TLSF_TRACE_MEMALIGN,
                            TLSF_TRACE_REALLOC, TLSF_TRACE_MALLOC, TLSF_TRACE_FREE,
                            TLSF_TRACE_FREE,    TLSF_TRACE_FREE,   TLSF_TRACE_END};
    for (std::size_t k = 0; k < 9; ++k)
        EXPECT_EQ(e[k].op, ops[k]) << k;
    EXPECT_TRUE(e[4].failed);
    std::uint64_t calls = 0;
    check_totals(r.bytes, calls);
    EXPECT_EQ(calls, 8u);
}
