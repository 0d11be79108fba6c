// SPDX-License-Identifier: MIT
// recorder_test.cpp - the recorder's contract (trace/include/tlsf_trace.h), case by case, and
// the format as the decoder reads it back.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <unordered_map>

#include "trace_support.hpp"

using namespace trace_test;

namespace {

std::uint64_t ticking_clock(void *user) {
    auto *now = static_cast<std::uint64_t *>(user);
    *now += 7;
    return *now;
}

} // namespace

TEST(TraceRecorder, MemoryBytesRoundsSlotsUpAndRefusesNonsense) {
    EXPECT_EQ(tlsf_trace_memory_bytes(SIZE_MAX, 0), 0u);
    EXPECT_EQ(tlsf_trace_memory_bytes((std::size_t{1} << 31) + 1, 0), 0u);
    // No table (blocks named by address): the state and the buffer only.
    EXPECT_GT(tlsf_trace_memory_bytes(0, 0), 0u);
    EXPECT_LT(tlsf_trace_memory_bytes(0, 0), tlsf_trace_memory_bytes(16, 0));
    EXPECT_EQ(tlsf_trace_memory_bytes(1u << 20, SIZE_MAX), 0u);
    // 17 slots round up to 32: the memory for 17 equals the memory for 32.
    EXPECT_EQ(tlsf_trace_memory_bytes(17, 0), tlsf_trace_memory_bytes(32, 0));
    EXPECT_LT(tlsf_trace_memory_bytes(16, 0), tlsf_trace_memory_bytes(32, 0));
    // What it says is enough is enough: the table gets the slots asked for.
    for (std::size_t slots : {16u, 100u, 4096u}) {
        memory_recorder r(slots, 300);
        ASSERT_NE(r.trace, nullptr);
        EXPECT_GE(r.stats().table_slots, slots);
    }
}

TEST(TraceRecorder, CreateRefusesMissingPiecesAndTooLittleMemory) {
    std::vector<unsigned char> memory(tlsf_trace_memory_bytes(64, 0));
    tlsf_trace_config_t config = {};
    config.sink = &memory_recorder::sink;
    EXPECT_EQ(tlsf_trace_create(nullptr, memory.size(), &config), nullptr);
    EXPECT_EQ(tlsf_trace_create(memory.data(), memory.size(), nullptr), nullptr);
    tlsf_trace_config_t no_sink = {};
    EXPECT_EQ(tlsf_trace_create(memory.data(), memory.size(), &no_sink), nullptr);
    tlsf_trace_config_t small_buffer = config;
    small_buffer.buffer_bytes = TLSF_TRACE_RECORD_MAX - 1;
    EXPECT_EQ(tlsf_trace_create(memory.data(), memory.size(), &small_buffer), nullptr);
    EXPECT_EQ(tlsf_trace_create(memory.data(), 64, &config), nullptr);
    // Any alignment: an odd start address is rounded up inside the memory.
    std::vector<unsigned char> odd(tlsf_trace_memory_bytes(64, 0) + 1);
    EXPECT_NE(tlsf_trace_create(odd.data() + 1, odd.size() - 1, &config), nullptr);
}

TEST(TraceRecorder, NullRecorderIsIgnoredEverywhere) {
    tlsf_trace_malloc(nullptr, 8, fake(0x1000));
    tlsf_trace_calloc(nullptr, 2, 8, fake(0x1000));
    tlsf_trace_memalign(nullptr, 64, 8, fake(0x1000));
    tlsf_trace_realloc(nullptr, fake(0x1000), 8, fake(0x2000));
    tlsf_trace_free(nullptr, fake(0x1000));
    tlsf_trace_mark(nullptr, "x");
    EXPECT_EQ(tlsf_trace_flush(nullptr), -1);
    EXPECT_EQ(tlsf_trace_finish(nullptr), -1);
    tlsf_trace_stats_t stats{};
    tlsf_trace_get_stats(nullptr, &stats);
    memory_recorder r;
    tlsf_trace_get_stats(r.trace, nullptr);
}

TEST(TraceRecorder, HeaderSaysWhatTheRecorderWasGiven) {
    std::uint64_t now = 100;
    memory_recorder r(64, 0, ticking_clock, &now, 1);
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    ASSERT_GE(r.bytes.size(), std::size_t{TLSF_TRACE_HEADER_BYTES});
    EXPECT_EQ(std::memcmp(r.bytes.data(), "TLSFtrc\x01", 8), 0);
    tlsf_trace_read_status_t status;
    tlsf_trace_header_t header{};
    decode(r.bytes, status, &header);
    EXPECT_EQ(status, TLSF_TRACE_READ_DONE);
    EXPECT_EQ(header.flags, TLSF_TRACE_TIMES | TLSF_TRACE_ADDRESSES);
    EXPECT_EQ(header.pointer_bytes, sizeof(void *));
    EXPECT_EQ(header.heap_align_log2, 4u);
    EXPECT_EQ(header.slots, r.stats().table_slots);
    EXPECT_EQ(header.ticks_per_second, 1000000u);
}

TEST(TraceRecorder, EveryCallRoundTripsWithItsFields) {
    std::uint64_t now = 0;
    memory_recorder r(64, 0, ticking_clock, &now, 1);
    tlsf_trace_malloc(r.trace, 24, fake(0x10000));
    tlsf_trace_calloc(r.trace, 3, 10, fake(0x10040));
    tlsf_trace_memalign(r.trace, 4096, 100, fake(0x20000));
    tlsf_trace_malloc(r.trace, 1u << 30, nullptr); // failed
    tlsf_trace_realloc(r.trace, fake(0x10000), 200, fake(0x30000));
    tlsf_trace_realloc(r.trace, fake(0x30000), 1u << 30, nullptr); // failed: old stays
    tlsf_trace_mark(r.trace, "phase two");
    tlsf_trace_free(r.trace, fake(0x10040));
    tlsf_trace_free(r.trace, fake(0x20000));
    tlsf_trace_free(r.trace, fake(0x30000));
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);

    tlsf_trace_read_status_t status;
    const auto e = decode(r.bytes, status);
    ASSERT_EQ(status, TLSF_TRACE_READ_DONE);
    ASSERT_EQ(e.size(), 11u);
    EXPECT_EQ(e[0].op, unsigned{TLSF_TRACE_MALLOC});
    EXPECT_EQ(e[0].size, 24u);
    EXPECT_EQ(e[0].address, 0x10000u);
    EXPECT_EQ(e[1].op, unsigned{TLSF_TRACE_CALLOC});
    EXPECT_EQ(e[1].size, 30u);
    EXPECT_EQ(e[1].address, 0x10040u);
    EXPECT_EQ(e[2].op, unsigned{TLSF_TRACE_MEMALIGN});
    EXPECT_EQ(e[2].align_log2, 12u);
    EXPECT_EQ(e[2].address, 0x20000u);
    EXPECT_EQ(e[3].op, unsigned{TLSF_TRACE_MALLOC});
    EXPECT_TRUE(e[3].failed);
    EXPECT_EQ(e[3].size, 1u << 30);
    EXPECT_EQ(e[4].op, unsigned{TLSF_TRACE_REALLOC});
    EXPECT_EQ(e[4].old_id, e[0].id);
    EXPECT_EQ(e[4].size, 200u);
    EXPECT_EQ(e[4].address, 0x30000u);
    EXPECT_TRUE(e[5].failed);
    EXPECT_EQ(e[5].old_id, e[4].id);
    EXPECT_EQ(e[6].op, unsigned{TLSF_TRACE_MARK});
    EXPECT_EQ(std::string(e[6].label, e[6].label_length), "phase two");
    EXPECT_EQ(e[7].id, e[1].id);
    EXPECT_EQ(e[8].id, e[2].id);
    EXPECT_EQ(e[9].id, e[4].id);
    // Times: the clock advances 7 per reading; each record carries one reading.
    for (std::size_t i = 1; i < e.size(); ++i)
        EXPECT_EQ(e[i].time, e[i - 1].time + 7) << i;
    EXPECT_EQ(e[10].op, unsigned{TLSF_TRACE_END});
    EXPECT_EQ(e[10].end_calls, 9u);
    EXPECT_EQ(e[10].end_live_blocks, 0u);
    EXPECT_EQ(e[10].end_live_bytes, 0u);
    EXPECT_EQ(e[10].end_peak_live_bytes, 30u + 100 + 200); // after the realloc
    EXPECT_EQ(e[10].end_untracked_frees, 0u);
    EXPECT_FALSE(e[10].table_full);
}

TEST(TraceRecorder, CallocOverflowIsRecordedWithTheLargestSize) {
    memory_recorder r;
    tlsf_trace_calloc(r.trace, SIZE_MAX / 2, 3, nullptr);
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    tlsf_trace_read_status_t status;
    const auto e = decode(r.bytes, status);
    ASSERT_GE(e.size(), 1u);
    EXPECT_TRUE(e[0].failed);
    EXPECT_EQ(e[0].size, std::uint64_t{SIZE_MAX});
}

TEST(TraceRecorder, MemalignRoundsBadAlignmentsUp) {
    memory_recorder r;
    tlsf_trace_memalign(r.trace, 0, 8, fake(0x1000));
    tlsf_trace_memalign(r.trace, 1, 8, fake(0x2000));
    tlsf_trace_memalign(r.trace, 24, 8, fake(0x3000));
    tlsf_trace_memalign(r.trace, SIZE_MAX, 8, nullptr);
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    tlsf_trace_read_status_t status;
    const auto e = decode(r.bytes, status);
    ASSERT_EQ(e.size(), 5u);
    EXPECT_EQ(e[0].align_log2, 0u);
    EXPECT_EQ(e[1].align_log2, 0u);
    EXPECT_EQ(e[2].align_log2, 5u);
    EXPECT_EQ(e[3].align_log2, 8 * sizeof(std::size_t) - 1);
}

TEST(TraceRecorder, ReallocOfNullOrUnknownIsAMalloc) {
    memory_recorder r;
    tlsf_trace_realloc(r.trace, nullptr, 40, fake(0x1000));
    tlsf_trace_realloc(r.trace, fake(0x9000), 50, fake(0x2000)); // never recorded
    tlsf_trace_realloc(r.trace, fake(0xA000), 60, nullptr);      // unknown, failed
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    tlsf_trace_read_status_t status;
    const auto e = decode(r.bytes, status);
    ASSERT_EQ(e.size(), 4u);
    EXPECT_EQ(e[0].op, unsigned{TLSF_TRACE_MALLOC});
    EXPECT_EQ(e[1].op, unsigned{TLSF_TRACE_MALLOC});
    EXPECT_EQ(e[1].size, 50u);
    EXPECT_EQ(e[2].op, unsigned{TLSF_TRACE_MALLOC});
    EXPECT_TRUE(e[2].failed);
    EXPECT_EQ(r.stats().untracked_frees, 1u);
    EXPECT_EQ(r.stats().live_bytes, 90u);
}

TEST(TraceRecorder, FreeOfNullIsIgnoredAndOfUnknownIsCountedNotWritten) {
    memory_recorder r;
    tlsf_trace_free(r.trace, nullptr);
    tlsf_trace_free(r.trace, fake(0x5000));
    EXPECT_EQ(r.stats().calls, 0u);
    EXPECT_EQ(r.stats().untracked_frees, 1u);
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    tlsf_trace_read_status_t status;
    const auto e = decode(r.bytes, status);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0].op, unsigned{TLSF_TRACE_END});
    EXPECT_EQ(e[0].end_untracked_frees, 1u);
}

TEST(TraceRecorder, MarkKeepsAtMostTheLabelMaximumAndTakesNull) {
    memory_recorder r;
    const std::string long_label(400, 'x');
    tlsf_trace_mark(r.trace, long_label.c_str());
    tlsf_trace_mark(r.trace, nullptr);
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    tlsf_trace_read_status_t status;
    const auto e = decode(r.bytes, status);
    ASSERT_EQ(e.size(), 3u);
    EXPECT_EQ(e[0].label_length, std::size_t{TLSF_TRACE_LABEL_MAX});
    EXPECT_EQ(e[1].label_length, 0u);
    EXPECT_EQ(r.stats().calls, 0u);
}

TEST(TraceRecorder, TotalsFollowTheLiveBlocks) {
    memory_recorder r;
    tlsf_trace_malloc(r.trace, 100, fake(0x1000));
    tlsf_trace_malloc(r.trace, 50, fake(0x2000));
    EXPECT_EQ(r.stats().live_bytes, 150u);
    EXPECT_EQ(r.stats().live_blocks, 2u);
    tlsf_trace_free(r.trace, fake(0x1000));
    EXPECT_EQ(r.stats().live_bytes, 50u);
    EXPECT_EQ(r.stats().peak_live_bytes, 150u);
    tlsf_trace_realloc(r.trace, fake(0x2000), 500, fake(0x2000)); // in place
    EXPECT_EQ(r.stats().live_bytes, 500u);
    EXPECT_EQ(r.stats().live_blocks, 1u);
    EXPECT_EQ(r.stats().calls, 4u);
}

TEST(TraceRecorder, IdsAreBelowTheSlotCountUniqueAmongLiveAndReused) {
    memory_recorder r(256);
    std::mt19937 random(1);
    std::unordered_map<std::uintptr_t, std::uint32_t> live; // address -> id
    std::vector<std::uintptr_t> addresses;
    tlsf_trace_read_status_t status;
    for (int step = 0; step < 20000; ++step) {
        if (addresses.size() < 100 && (addresses.empty() || random() % 2 == 0)) {
            std::uintptr_t a = 0x100000 + 16 * (random() % 100000);
            if (live.count(a)) continue;
            tlsf_trace_malloc(r.trace, 16, fake(a));
            live[a] = 0;
            addresses.push_back(a);
        } else {
            const std::size_t k = random() % addresses.size();
            tlsf_trace_free(r.trace, fake(addresses[k]));
            live.erase(addresses[k]);
            addresses[k] = addresses.back();
            addresses.pop_back();
        }
    }
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    const auto e = decode(r.bytes, status);
    ASSERT_EQ(status, TLSF_TRACE_READ_DONE);
    std::set<std::uint32_t> live_ids, ever;
    for (const auto &event : e) {
        if (event.op == TLSF_TRACE_MALLOC) {
            EXPECT_LT(event.id, 256u);
            EXPECT_TRUE(live_ids.insert(event.id).second) << "id " << event.id << " reused live";
            ever.insert(event.id);
        } else if (event.op == TLSF_TRACE_FREE) {
            EXPECT_EQ(live_ids.erase(event.id), 1u);
        }
    }
    EXPECT_LE(ever.size(), 256u); // ids come back: 10,000 blocks in at most 256 ids
    EXPECT_FALSE(r.stats().table_full);
}

TEST(TraceRecorder, AFullTableStopsTheRecordingAndSaysSo) {
    memory_recorder r(16);
    const std::uint64_t slots = r.stats().table_slots;
    std::uint64_t recorded = 0;
    for (std::uintptr_t k = 0; k < 4 * slots; ++k) {
        tlsf_trace_malloc(r.trace, 8, fake(0x1000 + 16 * k));
        if (!r.stats().table_full) ++recorded;
    }
    const tlsf_trace_stats_t stats = r.stats();
    EXPECT_TRUE(stats.table_full);
    EXPECT_LE(recorded, slots);
    EXPECT_EQ(stats.calls, recorded);
    EXPECT_EQ(stats.dropped_calls, 4 * slots - recorded);
    tlsf_trace_free(r.trace, fake(0x1000)); // ignored now
    EXPECT_EQ(r.stats().calls, recorded);
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    tlsf_trace_read_status_t status;
    const auto e = decode(r.bytes, status);
    ASSERT_EQ(status, TLSF_TRACE_READ_DONE);
    ASSERT_FALSE(e.empty());
    EXPECT_EQ(e.back().op, unsigned{TLSF_TRACE_END});
    EXPECT_TRUE(e.back().table_full);
}

TEST(TraceRecorder, ASinkThatFailsStopsTheRecording) {
    memory_recorder r(64, TLSF_TRACE_RECORD_MAX);
    r.refuse_after = 1; // the first buffer goes through, the second does not
    for (std::uintptr_t k = 0; k < 1000; ++k) {
        tlsf_trace_malloc(r.trace, 8, fake(0x1000 + 16 * k));
        tlsf_trace_free(r.trace, fake(0x1000 + 16 * k));
    }
    EXPECT_TRUE(r.stats().sink_failed);
    EXPECT_GT(r.stats().dropped_calls, 0u);
    EXPECT_EQ(tlsf_trace_flush(r.trace), -1);
    EXPECT_EQ(tlsf_trace_finish(r.trace), -1);
    // What did go out is whole records: a trace without END, not a truncated one.
    tlsf_trace_read_status_t status;
    decode(r.bytes, status);
    EXPECT_EQ(status, TLSF_TRACE_READ_DONE);
}

TEST(TraceRecorder, FinishIsOnceAndAfterItNothingIsRecorded) {
    memory_recorder r;
    tlsf_trace_malloc(r.trace, 8, fake(0x1000));
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    const std::size_t length = r.bytes.size();
    EXPECT_EQ(tlsf_trace_finish(r.trace), 0);
    tlsf_trace_malloc(r.trace, 8, fake(0x2000));
    tlsf_trace_mark(r.trace, "late");
    EXPECT_EQ(tlsf_trace_flush(r.trace), 0);
    EXPECT_EQ(r.bytes.size(), length);
    EXPECT_EQ(r.stats().dropped_calls, 1u);
    EXPECT_TRUE(r.stats().finished);
}

TEST(TraceRecorder, TheSinkHearsWholeRecordsOnly) {
    // A small buffer flushes often; every chunk the sink gets must end at a record boundary.
    memory_recorder r(64, TLSF_TRACE_RECORD_MAX);
    std::vector<std::size_t> chunk_ends;
    for (std::uintptr_t k = 0; k < 300; ++k) {
        tlsf_trace_malloc(r.trace, k * 1000, fake(0x1000 + 16 * (k % 20)));
        tlsf_trace_free(r.trace, fake(0x1000 + 16 * (k % 20)));
        const std::size_t now = r.bytes.size();
        if (now != 0 && (chunk_ends.empty() || chunk_ends.back() != now)) chunk_ends.push_back(now);
    }
    EXPECT_GT(chunk_ends.size(), 3u);
    for (std::size_t end : chunk_ends) {
        std::vector<unsigned char> prefix(r.bytes.begin(),
                                          r.bytes.begin() + static_cast<std::ptrdiff_t>(end));
        tlsf_trace_read_status_t status;
        decode(prefix, status);
        EXPECT_EQ(status, TLSF_TRACE_READ_DONE) << "chunk ending at " << end;
    }
}

// The recorder's own live-byte total after every call equals what the records add up to.
TEST(TraceRecorder, LiveBytesOfTheRecordsMatchTheRecorderAfterEveryCall) {
    memory_recorder r(4096);
    std::mt19937_64 random(7);
    std::vector<std::uintptr_t> live;
    std::uintptr_t next = 0x10000;
    std::vector<std::uint64_t> totals;
    for (int step = 0; step < 5000; ++step) {
        const unsigned choice = static_cast<unsigned>(random() % 10);
        if (live.empty() || choice < 4) {
            const std::size_t size = random() % 5000;
            tlsf_trace_malloc(r.trace, size, fake(next));
            live.push_back(next);
            next += 16 * (1 + size / 16);
        } else if (choice < 6) {
            const std::size_t k = random() % live.size();
            const std::size_t size = random() % 9000;
            tlsf_trace_realloc(r.trace, fake(live[k]), size, fake(next));
            live[k] = next;
            next += 16 * (1 + size / 16);
        } else {
            const std::size_t k = random() % live.size();
            tlsf_trace_free(r.trace, fake(live[k]));
            live[k] = live.back();
            live.pop_back();
        }
        totals.push_back(r.stats().live_bytes);
    }
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    tlsf_trace_read_status_t status;
    const auto e = decode(r.bytes, status);
    ASSERT_EQ(status, TLSF_TRACE_READ_DONE);
    std::unordered_map<std::uint32_t, std::uint64_t> sizes;
    std::uint64_t livebytes = 0;
    std::size_t call = 0;
    for (const auto &event : e) {
        if (event.op == TLSF_TRACE_END || event.op == TLSF_TRACE_MARK) continue;
        if (event.op == TLSF_TRACE_FREE) {
            livebytes -= sizes.at(event.id);
            sizes.erase(event.id);
        } else if (event.op == TLSF_TRACE_REALLOC) {
            livebytes -= sizes.at(event.old_id);
            sizes.erase(event.old_id);
            sizes[event.id] = event.size;
            livebytes += event.size;
        } else {
            sizes[event.id] = event.size;
            livebytes += event.size;
        }
        ASSERT_LT(call, totals.size());
        EXPECT_EQ(livebytes, totals[call]) << "call " << call;
        ++call;
    }
    EXPECT_EQ(call, totals.size());
}

// ---- Blocks named by address --------------------------------------------------------------------

namespace {

struct address_recorder {
    std::vector<unsigned char> bytes, memory;
    tlsf_trace_t *trace = nullptr;
    address_recorder() {
        memory.resize(tlsf_trace_memory_bytes(0, 0));
        tlsf_trace_config_t config = {};
        config.sink = &address_recorder::sink;
        config.sink_user = this;
        config.name_by_address = 1;
        trace = tlsf_trace_create(memory.data(), memory.size(), &config);
    }
    static int sink(void *user, const void *data, std::size_t length) {
        auto *self = static_cast<address_recorder *>(user);
        const auto *p = static_cast<const unsigned char *>(data);
        self->bytes.insert(self->bytes.end(), p, p + length);
        return 0;
    }
};

} // namespace

TEST(TraceByAddress, NeedsNoTableAndRecordsEveryCallWithItsAddresses) {
    std::vector<unsigned char> bytes;
    std::vector<unsigned char> memory(tlsf_trace_memory_bytes(0, 0));
    tlsf_trace_config_t config = {};
    config.sink = &address_recorder::sink;
    address_recorder r;
    ASSERT_NE(r.trace, nullptr);
    // The memory for a table of 16 slots is not needed: less than that is enough.
    config.sink_user = &r;
    config.name_by_address = 1;
    EXPECT_NE(tlsf_trace_create(memory.data(), memory.size(), &config), nullptr);

    tlsf_trace_malloc(r.trace, 40, fake(0x7000));
    tlsf_trace_memalign(r.trace, 256, 8, fake(0x9000));
    tlsf_trace_free(r.trace, fake(0x5555)); // never allocated: recorded all the same
    tlsf_trace_realloc(r.trace, fake(0x7000), 400, fake(0x7000));
    tlsf_trace_realloc(r.trace, fake(0x9000), 1u << 30, nullptr);
    tlsf_trace_free(r.trace, fake(0x7000));
    tlsf_trace_free(r.trace, nullptr); // ignored
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    tlsf_trace_read_status_t status;
    tlsf_trace_header_t header{};
    const auto e = decode(r.bytes, status, &header);
    ASSERT_EQ(status, TLSF_TRACE_READ_DONE);
    EXPECT_EQ(header.flags, TLSF_TRACE_BY_ADDRESS | TLSF_TRACE_ADDRESSES);
    EXPECT_EQ(header.slots, 0u);
    EXPECT_EQ(header.id_bytes, 0u);
    ASSERT_EQ(e.size(), 7u);
    EXPECT_EQ(e[0].address, 0x7000u);
    EXPECT_EQ(e[1].align_log2, 8u);
    EXPECT_EQ(e[1].address, 0x9000u);
    EXPECT_EQ(e[2].op, unsigned{TLSF_TRACE_FREE});
    EXPECT_EQ(e[2].address, 0x5555u);
    EXPECT_EQ(e[3].old_address, 0x7000u);
    EXPECT_EQ(e[3].address, 0x7000u);
    EXPECT_EQ(e[3].size, 400u);
    EXPECT_TRUE(e[4].failed);
    EXPECT_EQ(e[4].old_address, 0x9000u);
    EXPECT_EQ(e[5].address, 0x7000u);
    EXPECT_EQ(e[6].op, unsigned{TLSF_TRACE_END});
    EXPECT_EQ(e[6].end_calls, 6u);
    EXPECT_EQ(e[6].end_live_bytes, 0u); // the recorder kept no table: it does not know
}
