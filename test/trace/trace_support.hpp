// SPDX-License-Identifier: MIT
// trace_support.hpp - helpers of the trace tests: a recorder writing into a vector, the
// decoded records of a trace, and files.
#ifndef TLSF_TEST_TRACE_SUPPORT_HPP
#define TLSF_TEST_TRACE_SUPPORT_HPP

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tlsf_trace.h"
#include "tlsf_trace_read.h"

namespace trace_test {

// A recorder whose sink appends to `bytes`, in memory sized for `slots` slots.
struct memory_recorder {
    std::vector<unsigned char> bytes;
    std::vector<unsigned char> memory;
    tlsf_trace_t *trace = nullptr;
    int refuse_after = -1; // the sink fails from this call on (-1: never)
    int sink_calls = 0;

    explicit memory_recorder(std::size_t slots = 1024, std::size_t buffer = 0,
                             tlsf_trace_clock_t clock = nullptr, void *clock_user = nullptr,
                             int addresses = 0) {
        memory.resize(tlsf_trace_memory_bytes(slots, buffer));
        tlsf_trace_config_t config = {};
        config.sink = &memory_recorder::sink;
        config.sink_user = this;
        config.clock = clock;
        config.clock_user = clock_user;
        config.ticks_per_second = clock ? 1000000 : 0;
        config.buffer_bytes = buffer;
        config.record_addresses = addresses;
        config.heap_align_log2 = 4;
        trace = tlsf_trace_create(memory.data(), memory.size(), &config);
    }
    memory_recorder(const memory_recorder &) = delete;
    memory_recorder &operator=(const memory_recorder &) = delete;

    static int sink(void *user, const void *data, std::size_t length) {
        auto *self = static_cast<memory_recorder *>(user);
        if (self->refuse_after >= 0 && self->sink_calls >= self->refuse_after) return -1;
        ++self->sink_calls;
        const auto *p = static_cast<const unsigned char *>(data);
        self->bytes.insert(self->bytes.end(), p, p + length);
        return 0;
    }

    tlsf_trace_stats_t stats() {
        tlsf_trace_stats_t s{};
        tlsf_trace_get_stats(trace, &s);
        return s;
    }
};

// Every record of `bytes`; `status` gets the reader's last status (DONE when all is well).
inline std::vector<tlsf_trace_event_t> decode(const std::vector<unsigned char> &bytes,
                                              tlsf_trace_read_status_t &status,
                                              tlsf_trace_header_t *header = nullptr) {
    std::vector<tlsf_trace_event_t> events;
    tlsf_trace_reader_t reader;
    status = tlsf_trace_reader_open(&reader, bytes.data(), bytes.size());
    if (status != TLSF_TRACE_READ_OK) return events;
    if (header != nullptr) *header = reader.header;
    tlsf_trace_event_t event;
    while ((status = tlsf_trace_read(&reader, &event)) == TLSF_TRACE_READ_OK)
        events.push_back(event);
    return events;
}

inline bool write_file(const std::string &path, const std::vector<unsigned char> &bytes) {
    std::FILE *f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return false;
    // (fwrite's pointer must not be null, even for no bytes: an empty vector's may be.)
    const bool ok = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    return std::fclose(f) == 0 && ok;
}

inline std::vector<unsigned char> read_file(const std::string &path) {
    std::vector<unsigned char> bytes;
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return bytes;
    int c;
    while ((c = std::fgetc(f)) != EOF)
        bytes.push_back(static_cast<unsigned char>(c));
    std::fclose(f);
    return bytes;
}

// A pointer-like value the recorder accepts as a block address (never dereferenced).
inline const void *fake(std::uintptr_t address) {
    return reinterpret_cast<const void *>(address);
}

} // namespace trace_test

#endif // TLSF_TEST_TRACE_SUPPORT_HPP
