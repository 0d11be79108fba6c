// SPDX-License-Identifier: MIT
// reader_test.cpp - the decoder (trace/include/tlsf_trace_read.h): every malformed input gives
// its status, never a read out of bounds (the sanitizer configuration runs this too).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <cstring>
#include <random>

#include "trace_support.hpp"

using namespace trace_test;

namespace {

// A small valid trace: header, a few calls, END.
std::vector<unsigned char> sample_trace() {
    memory_recorder r(64, 0, nullptr, nullptr, 1);
    tlsf_trace_malloc(r.trace, 300, fake(0x4000));
    tlsf_trace_memalign(r.trace, 64, 10, fake(0x8000));
    tlsf_trace_mark(r.trace, "m");
    tlsf_trace_realloc(r.trace, fake(0x4000), 100000, fake(0x10000));
    tlsf_trace_free(r.trace, fake(0x8000));
    tlsf_trace_free(r.trace, fake(0x10000));
    EXPECT_EQ(tlsf_trace_finish(r.trace), 0);
    return r.bytes;
}

// The header of `sample_trace` and then `records`.
std::vector<unsigned char> with_records(std::initializer_list<unsigned char> records) {
    std::vector<unsigned char> bytes = sample_trace();
    bytes.resize(TLSF_TRACE_HEADER_BYTES);
    bytes.insert(bytes.end(), records);
    return bytes;
}

tlsf_trace_read_status_t first_error(const std::vector<unsigned char> &bytes) {
    tlsf_trace_read_status_t status;
    decode(bytes, status);
    return status;
}

} // namespace

TEST(TraceReader, OpenRefusesBadArguments) {
    tlsf_trace_reader_t reader;
    const unsigned char byte = 0;
    EXPECT_EQ(tlsf_trace_reader_open(nullptr, &byte, 1), TLSF_TRACE_READ_BAD_ARGUMENT);
    EXPECT_EQ(tlsf_trace_reader_open(&reader, nullptr, 1), TLSF_TRACE_READ_BAD_ARGUMENT);
    EXPECT_EQ(tlsf_trace_reader_open(&reader, nullptr, 0), TLSF_TRACE_READ_TRUNCATED);
    tlsf_trace_event_t event;
    EXPECT_EQ(tlsf_trace_read(nullptr, &event), TLSF_TRACE_READ_BAD_ARGUMENT);
    EXPECT_EQ(tlsf_trace_read(&reader, nullptr), TLSF_TRACE_READ_BAD_ARGUMENT);
}

TEST(TraceReader, HeaderProblemsEachHaveTheirStatus) {
    std::vector<unsigned char> good = sample_trace();
    tlsf_trace_reader_t reader;
    EXPECT_EQ(tlsf_trace_reader_open(&reader, good.data(), 5), TLSF_TRACE_READ_TRUNCATED);
    EXPECT_EQ(tlsf_trace_reader_open(&reader, good.data(), 20), TLSF_TRACE_READ_TRUNCATED);
    const char text[] = "hello, world, this is not a trace";
    EXPECT_EQ(tlsf_trace_reader_open(&reader, text, sizeof text), TLSF_TRACE_READ_NOT_A_TRACE);
    EXPECT_EQ(tlsf_trace_reader_open(&reader, text, 3), TLSF_TRACE_READ_NOT_A_TRACE);
    std::vector<unsigned char> bad = good;
    bad[7] = 2;
    EXPECT_EQ(first_error(bad), TLSF_TRACE_READ_VERSION);
    bad = good;
    bad[8] |= 0x80;
    EXPECT_EQ(first_error(bad), TLSF_TRACE_READ_BAD_HEADER);
    bad = good;
    bad[9] = 5;
    EXPECT_EQ(first_error(bad), TLSF_TRACE_READ_BAD_HEADER);
    bad = good;
    std::memset(&bad[12], 0, 4);
    EXPECT_EQ(first_error(bad), TLSF_TRACE_READ_BAD_HEADER);
    bad = good; // by address, but with a table's id width and slots
    bad[8] |= TLSF_TRACE_BY_ADDRESS;
    EXPECT_EQ(first_error(bad), TLSF_TRACE_READ_BAD_HEADER);
    bad[11] = 0;
    std::memset(&bad[12], 0, 4);
    bad[8] &= static_cast<unsigned char>(~TLSF_TRACE_ADDRESSES); // by address needs addresses
    EXPECT_EQ(first_error(bad), TLSF_TRACE_READ_BAD_HEADER);
    bad = good; // an id width of 0, of 5, and one too narrow for the slots
    bad[11] = 0;
    EXPECT_EQ(first_error(bad), TLSF_TRACE_READ_BAD_HEADER);
    bad[11] = 5;
    EXPECT_EQ(first_error(bad), TLSF_TRACE_READ_BAD_HEADER);
    bad[11] = 1;
    bad[13] = 1; // 64 + 256 slots
    EXPECT_EQ(first_error(bad), TLSF_TRACE_READ_BAD_HEADER);
}

TEST(TraceReader, EveryCutIsTruncatedOrARecordBoundary) {
    const std::vector<unsigned char> good = sample_trace();
    ASSERT_EQ(first_error(good), TLSF_TRACE_READ_DONE);
    // Where the records end, from a full decode.
    std::vector<std::size_t> boundaries;
    tlsf_trace_reader_t reader;
    ASSERT_EQ(tlsf_trace_reader_open(&reader, good.data(), good.size()), TLSF_TRACE_READ_OK);
    tlsf_trace_event_t event;
    boundaries.push_back(reader.offset);
    while (tlsf_trace_read(&reader, &event) == TLSF_TRACE_READ_OK)
        boundaries.push_back(reader.offset);
    for (std::size_t cut = TLSF_TRACE_HEADER_BYTES; cut < good.size(); ++cut) {
        std::vector<unsigned char> prefix(good.begin(), good.begin() + static_cast<long>(cut));
        const bool boundary =
            std::find(boundaries.begin(), boundaries.end(), cut) != boundaries.end();
        EXPECT_EQ(first_error(prefix), boundary ? TLSF_TRACE_READ_DONE : TLSF_TRACE_READ_TRUNCATED)
            << "cut at " << cut;
    }
}

TEST(TraceReader, BadTagsAreCorrupt) {
    EXPECT_EQ(first_error(with_records({0x00})), TLSF_TRACE_READ_BAD_TAG);
    EXPECT_EQ(first_error(with_records({0x08})), TLSF_TRACE_READ_BAD_TAG);
    EXPECT_EQ(first_error(with_records({0x0F})), TLSF_TRACE_READ_BAD_TAG);
    EXPECT_EQ(first_error(with_records({0x41, 1, 1})), TLSF_TRACE_READ_BAD_TAG); // reserved bit
    EXPECT_EQ(first_error(with_records({0x15, 1})), TLSF_TRACE_READ_BAD_TAG);    // failed free
    EXPECT_EQ(first_error(with_records({0x21, 1, 1})), TLSF_TRACE_READ_BAD_TAG); // full malloc
}

TEST(TraceReader, BadNumbersAreCorrupt) {
    // A malloc whose size has eleven bytes.
    EXPECT_EQ(first_error(with_records(
                  {0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})),
              TLSF_TRACE_READ_BAD_VARINT);
    // Ten bytes, the last one beyond bit 63.
    EXPECT_EQ(first_error(with_records(
                  {0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0x01})),
              TLSF_TRACE_READ_BAD_VARINT);
    // A redundant zero byte.
    EXPECT_EQ(first_error(with_records({0x01, 0x85, 0x00, 0x01})), TLSF_TRACE_READ_BAD_VARINT);
    // An id at the slot count (64 slots in sample_trace's recorder).
    EXPECT_EQ(first_error(with_records({0x01, 0x08, 0x40})), TLSF_TRACE_READ_BAD_ID);
    EXPECT_EQ(first_error(with_records({0x05, 0x40})), TLSF_TRACE_READ_BAD_ID);
    // An alignment of 2^64.
    EXPECT_EQ(first_error(with_records({0x03, 64, 0x08, 0x01})), TLSF_TRACE_READ_BAD_ALIGN);
    // A label longer than the data.
    EXPECT_EQ(first_error(with_records({0x06, 10, 'a'})), TLSF_TRACE_READ_TRUNCATED);
}

TEST(TraceReader, NothingMayFollowEndAndErrorsStick) {
    std::vector<unsigned char> bytes = sample_trace();
    bytes.push_back(0x05);
    bytes.push_back(0x01);
    EXPECT_EQ(first_error(bytes), TLSF_TRACE_READ_AFTER_END);

    const std::vector<unsigned char> corrupt = with_records({0x00, 0x05, 0x01});
    tlsf_trace_reader_t reader;
    ASSERT_EQ(tlsf_trace_reader_open(&reader, corrupt.data(), corrupt.size()), TLSF_TRACE_READ_OK);
    tlsf_trace_event_t event;
    EXPECT_EQ(tlsf_trace_read(&reader, &event), TLSF_TRACE_READ_BAD_TAG);
    EXPECT_EQ(reader.offset, std::size_t{TLSF_TRACE_HEADER_BYTES}); // where the bad record is
    EXPECT_EQ(tlsf_trace_read(&reader, &event), TLSF_TRACE_READ_BAD_TAG);
}

TEST(TraceReader, GarbageNeverReadsOutOfBounds) {
    // Random bytes after a valid header, in many lengths: each decode ends with a status.
    const std::vector<unsigned char> good = sample_trace();
    std::mt19937 random(3);
    for (int round = 0; round < 3000; ++round) {
        std::vector<unsigned char> bytes(good.begin(), good.begin() + TLSF_TRACE_HEADER_BYTES);
        const std::size_t length = random() % 64;
        for (std::size_t k = 0; k < length; ++k)
            bytes.push_back(static_cast<unsigned char>(random()));
        // An exact-size heap copy, so that a sanitizer sees any overread.
        std::unique_ptr<unsigned char[]> copy(new unsigned char[bytes.size()]);
        std::memcpy(copy.get(), bytes.data(), bytes.size());
        tlsf_trace_reader_t reader;
        ASSERT_EQ(tlsf_trace_reader_open(&reader, copy.get(), bytes.size()), TLSF_TRACE_READ_OK);
        tlsf_trace_event_t event;
        tlsf_trace_read_status_t status;
        int records = 0;
        while ((status = tlsf_trace_read(&reader, &event)) == TLSF_TRACE_READ_OK)
            ASSERT_LT(++records, 100);
        EXPECT_NE(status, TLSF_TRACE_READ_BAD_ARGUMENT);
    }
}

TEST(TraceReader, EveryStatusAndOperationHasAName) {
    for (int status = -10; status <= 1; ++status)
        EXPECT_NE(tlsf_trace_read_error_string(static_cast<tlsf_trace_read_status_t>(status)),
                  nullptr);
    EXPECT_STREQ(tlsf_trace_op_name(TLSF_TRACE_REALLOC), "realloc");
    EXPECT_STREQ(tlsf_trace_op_name(0), "?");
    EXPECT_STREQ(tlsf_trace_op_name(99), "?");
}
