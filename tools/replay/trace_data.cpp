// SPDX-License-Identifier: MIT
// trace_data.cpp - see trace_data.hpp.
#include "trace_data.hpp"

#include <cstdio>
#include <fstream>
#include <unordered_map>

namespace replay {
namespace {

std::string hex(std::uint64_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
    return text;
}

std::string where(std::uint64_t record, std::size_t offset) {
    return " (record " + std::to_string(record + 1) + ", byte offset " + std::to_string(offset) +
           ")";
}

// The recorder's id (or, by address, the block's address) -> the dense block number, for
// the live blocks; and the free numbers.
class block_map {
  public:
    bool live(std::uint64_t key) const { return numbers_.count(key) != 0; }
    std::uint32_t number_of(std::uint64_t key) const { return numbers_.at(key); }
    std::uint64_t size_of(std::uint64_t key) const { return sizes_.at(key); }

    std::uint32_t add(std::uint64_t key, std::uint64_t size) {
        std::uint32_t number;
        if (!free_numbers_.empty()) {
            number = free_numbers_.back();
            free_numbers_.pop_back();
        } else {
            number = next_++;
        }
        numbers_[key] = number;
        sizes_[key] = size;
        return number;
    }

    void remove(std::uint64_t key) {
        free_numbers_.push_back(numbers_.at(key));
        numbers_.erase(key);
        sizes_.erase(key);
    }

    std::uint32_t numbers_used() const { return next_; }
    std::size_t live_count() const { return numbers_.size(); }

  private:
    std::unordered_map<std::uint64_t, std::uint32_t> numbers_;
    std::unordered_map<std::uint64_t, std::uint64_t> sizes_;
    std::vector<std::uint32_t> free_numbers_; // a stack: the lowest recently freed first
    std::uint32_t next_ = 0;
};

} // namespace

bool load_trace(const std::string &path, trace_data &out, std::string &error) {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) {
        error = path + ": cannot open";
        return false;
    }
    const std::streamoff length = file.tellg();
    std::vector<unsigned char> bytes(length > 0 ? static_cast<std::size_t>(length) : 0);
    file.seekg(0);
    if (length < 0 || !file.read(reinterpret_cast<char *>(bytes.data()), length)) {
        error = path + ": read error";
        return false;
    }
    out = trace_data{};
    out.path = path;
    out.file_bytes = bytes.size();

    tlsf_trace_reader_t reader;
    tlsf_trace_read_status_t status = tlsf_trace_reader_open(&reader, bytes.data(), bytes.size());
    if (status != TLSF_TRACE_READ_OK) {
        error = path + ": " + tlsf_trace_read_error_string(status) + " (header)";
        return false;
    }
    out.header = reader.header;

    block_map blocks;
    std::uint64_t live = 0, heap_records = 0;
    const bool by_address = (out.header.flags & TLSF_TRACE_BY_ADDRESS) != 0;
    tlsf_trace_event_t event;
    for (;;) {
        const std::size_t offset = reader.offset;
        const std::uint64_t record = reader.records;
        status = tlsf_trace_read(&reader, &event);
        if (status == TLSF_TRACE_READ_DONE) break;
        if (status != TLSF_TRACE_READ_OK) {
            error = path + ": " + tlsf_trace_read_error_string(status) + where(record, offset);
            return false;
        }
        auto bad = [&](const std::string &what) {
            error = path + ": " + what + where(record, offset);
            return false;
        };
        if (event.op != TLSF_TRACE_MARK && event.op != TLSF_TRACE_END) ++heap_records;
        // By address, a block is its address; otherwise its id.
        const std::uint64_t key = by_address ? event.address : event.id;
        const std::uint64_t old_key = by_address ? event.old_address : event.old_id;
        const std::string named =
            by_address ? "address 0x" + hex(key) : "id " + std::to_string(key);
        call c;
        c.op = static_cast<std::uint8_t>(event.op);
        c.failed = event.failed != 0;
        c.size = event.size;
        c.align_log2 = static_cast<std::uint8_t>(event.align_log2);
        switch (event.op) {
        case TLSF_TRACE_MARK:
            out.marks.push_back({out.calls.size(), std::string(event.label, event.label_length)});
            continue;
        case TLSF_TRACE_END: {
            out.has_end = true;
            if (!by_address) out.untracked_frees = event.end_untracked_frees;
            if (event.table_full)
                return bad("the recording stopped early: the recorder's table of live blocks was "
                           "full after " +
                           std::to_string(event.end_calls) +
                           " calls (give the recorder more memory)");
            std::string totals;
            if (event.end_calls != heap_records)
                totals = "calls " + std::to_string(event.end_calls) + " against " +
                         std::to_string(heap_records);
            else if (by_address)
                totals = ""; // the recorder kept no table: it knows only its calls
            else if (event.end_live_blocks != blocks.live_count())
                totals = "live blocks " + std::to_string(event.end_live_blocks) + " against " +
                         std::to_string(blocks.live_count());
            else if (event.end_live_bytes != live)
                totals = "live bytes " + std::to_string(event.end_live_bytes) + " against " +
                         std::to_string(live);
            else if (event.end_peak_live_bytes != out.peak_live)
                totals = "peak live bytes " + std::to_string(event.end_peak_live_bytes) +
                         " against " + std::to_string(out.peak_live);
            if (!totals.empty())
                return bad("corrupt trace: the recorder's totals disagree with its records (" +
                           totals + ")");
            continue;
        }
        case TLSF_TRACE_FREE:
            if (!blocks.live(key)) {
                // By address, a block allocated before the recording started; with ids the
                // recorder never writes such a free: the trace is wrong.
                if (by_address) {
                    out.untracked_frees++;
                    continue;
                }
                return bad("free of unknown " + named + " (no live block has it)");
            }
            c.block = blocks.number_of(key);
            c.size = blocks.size_of(key);
            live -= blocks.size_of(key);
            blocks.remove(key);
            break;
        case TLSF_TRACE_REALLOC:
            if (!blocks.live(old_key)) {
                if (!by_address)
                    return bad("realloc of unknown id " + std::to_string(old_key) +
                               " (no live block has it)");
                // A block from before the recording: its new size is a new block.
                out.untracked_frees++;
                c.op = TLSF_TRACE_MALLOC;
                if (!event.failed) {
                    c.block = blocks.add(key, event.size);
                    live += event.size;
                }
                break;
            }
            c.old_block = blocks.number_of(old_key);
            if (!event.failed) {
                live -= blocks.size_of(old_key);
                blocks.remove(old_key);
                if (blocks.live(key))
                    return bad("realloc returns " + named + ", which is still live");
                c.block = blocks.add(key, event.size);
                live += event.size;
            }
            break;
        default: // MALLOC, CALLOC, MEMALIGN
            if (!event.failed) {
                if (blocks.live(key))
                    return bad(std::string(tlsf_trace_op_name(event.op)) + " returns " + named +
                               ", which is still live");
                c.block = blocks.add(key, event.size);
                live += event.size;
            }
            break;
        }
        out.calls.push_back(c);
        out.live_after.push_back(live);
        if (live > out.peak_live) {
            out.peak_live = live;
            out.peak_call = out.calls.size() - 1;
        }
    }
    out.records = reader.records;
    out.block_numbers = blocks.numbers_used();
    return true;
}

std::string mark_before(const trace_data &trace, std::size_t index) {
    std::string label;
    for (const mark &m : trace.marks) {
        if (m.before_call > index) break;
        label = m.label;
    }
    return label;
}

std::string describe_call(const trace_data &trace, std::size_t index) {
    const call &c = trace.calls.at(index);
    const std::string size = std::to_string(c.size);
    switch (c.op) {
    case TLSF_TRACE_MALLOC:
        return "malloc(" + size + ")";
    case TLSF_TRACE_CALLOC:
        return "calloc(" + size + ")";
    case TLSF_TRACE_MEMALIGN:
        return "memalign(" + std::to_string(std::uint64_t{1} << c.align_log2) + ", " + size + ")";
    case TLSF_TRACE_REALLOC:
        return "realloc(#" + std::to_string(c.old_block) + ", " + size + ")";
    case TLSF_TRACE_FREE:
        return "free(#" + std::to_string(c.block) + ", " + size + " bytes)";
    }
    return "?";
}

} // namespace replay
