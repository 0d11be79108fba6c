// SPDX-License-Identifier: MIT
// trace_data.hpp - a trace file read, checked and made ready to replay.
//
// load_trace decodes every record (trace/include/tlsf_trace_read.h) and checks what the
// decoder cannot: that every FREE and REALLOC names a live block, that no allocation returns
// an id that is still live, and that the END record's totals (the recorder's own) equal what
// the records add up to. Any failure is a message naming the record and its byte offset.
//
// The recorder's ids are slots of its table: unique among the live blocks, reused after. The
// replay gives each block a dense number instead (the lowest number free when it is
// allocated), so a heap's handles fit in an array as long as the peak live block count.
#ifndef TLSF_REPLAY_TRACE_DATA_HPP
#define TLSF_REPLAY_TRACE_DATA_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "tlsf_trace_read.h"

namespace replay {

// One heap call, ready to replay.
struct call {
    std::uint64_t size = 0;      // requested bytes (calloc: the product)
    std::uint32_t block = 0;     // the block allocated (allocations) or freed (free)
    std::uint32_t old_block = 0; // realloc: the block given
    std::uint8_t op = 0;         // TLSF_TRACE_MALLOC ... TLSF_TRACE_FREE
    std::uint8_t align_log2 = 0;
    bool failed = false; // the recorded call returned NULL
};

struct mark {
    std::size_t before_call; // the index of the first call after the mark
    std::string label;
};

struct trace_data {
    std::string path;
    tlsf_trace_header_t header{};
    std::vector<call> calls;
    std::vector<mark> marks;
    std::vector<std::uint64_t> live_after; // requested bytes live after each call
    std::uint64_t peak_live = 0;           // the highest of live_after
    std::size_t peak_call = 0;             // the first call that reached it
    std::uint32_t block_numbers = 0;       // blocks live at once at most: handles needed
    std::uint64_t records = 0;             // records of any kind
    bool has_end = false;                  // the recording ended with its summary
    std::uint64_t untracked_frees = 0;     // frees of blocks from before the recording (the END
                                           // record's count, or by address the loader's)
    std::uint64_t file_bytes = 0;
};

// Reads and checks `path`. Returns true, or false with `error` saying what is wrong and
// where ("truncated: the data ends inside a record (record 1234, byte offset 5678)").
bool load_trace(const std::string &path, trace_data &out, std::string &error);

// The label of the last mark at or before call `index`, or "".
std::string mark_before(const trace_data &trace, std::size_t index);

// "malloc(128)", "memalign(64, 4096)", "realloc(#12, 300)", "free(#12)" for call `index`.
std::string describe_call(const trace_data &trace, std::size_t index);

} // namespace replay

#endif // TLSF_REPLAY_TRACE_DATA_HPP
