// SPDX-License-Identifier: MIT
// app_chess.cpp - perft from the start position on a Cortex-M4, every allocation through
// std::allocator: operator new, then whatever heap the image links (newlib-nano, full
// newlib, TLSF with tlsf_newlib.cpp, or FreeRTOS's heap_4 with freertos_new.cpp). The
// host counts the instructions between app_mark_begin and app_mark_end. One allocation
// before the mark takes the heap's first-use work (TLSF: building the heap; newlib: the
// first _sbrk; heap_4: prvHeapInit) out of the count.
//
// The depth and the table mode come from app_request (app_report.h), which the host
// writes into its copy of the flash before the run: one image serves perft 1-5 in both
// modes. The defaults are depth 3, bounded table.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include <chess/chess.hpp>
#ifdef APP_TLSF
#include <tlsf/default_heap.hpp>
#endif

#include "app_report.h"

namespace {
constexpr std::uint32_t kDefaultDepth = 3;

// The table-everything mode's guard for the 8 MiB heap: a map entry takes 40 bytes on
// every heap here (a 16-byte tree node header, the 16-byte pair, the heap's header and
// rounding), so 160,000 entries are 6.4 MB and leave 1.6 MB for the move lists and for
// fragmentation. perft(5) from the start records 109,263 entries (4.4 MB): it never
// binds up to depth 5 (the host checks that it refused nothing).
constexpr std::uint32_t kEverythingCapacity = 160000;
} // namespace

int main() {
    const bool requested = app_request.magic == APP_REQUEST_MAGIC;
    const std::uint32_t depth =
        requested && app_request.perft_depth != 0 ? app_request.perft_depth : kDefaultDepth;
    const bool everything = requested && app_request.tt_mode == 1;
    std::uint32_t capacity =
        everything ? kEverythingCapacity : static_cast<std::uint32_t>(chess::kDefaultTtCapacity);
    if (requested && app_request.tt_capacity != 0) capacity = app_request.tt_capacity;

    app_report.magic = APP_REPORT_MAGIC;
    app_report.kind = 2;
    app_report.perft_depth = depth;
    app_report.tt_mode = everything ? 1 : 0;
    app_report.tt_capacity = capacity;

    ::operator delete(::operator new(16)); // the heap's first use, not measured
#ifdef APP_TLSF
    const std::uint32_t allocs =
        static_cast<std::uint32_t>(tlsf::default_heap().stats().alloc_count);
#endif

    // The measured section is one perft call as a user makes it: the engine is built,
    // searches and is destroyed (its table freed entry by entry), as chess::perft does.
    // app_mark_split marks the end of the search, so the host can also give the search
    // alone.
    std::uint64_t nodes = 0;
    app_mark_begin();
    {
        chess::basic_engine<std::allocator<char>> engine(std::allocator<char>(), capacity,
                                                         everything ? chess::tt_mode::everything
                                                                    : chess::tt_mode::bounded);
        nodes = engine.perft(static_cast<int>(depth));
        app_mark_split();
        app_report.tt_entries = static_cast<std::uint32_t>(engine.tt_size());
        app_report.tt_refused = static_cast<std::uint32_t>(engine.stats().tt_refused);
    }
    app_mark_end();

#ifdef APP_TLSF
    app_report.perft_allocs =
        static_cast<std::uint32_t>(tlsf::default_heap().stats().alloc_count) - allocs;
#endif
    app_report.perft_lo = static_cast<std::uint32_t>(nodes);
    app_report.perft_hi = static_cast<std::uint32_t>(nodes >> 32);
    app_report.done = 1;
    return 0;
}
