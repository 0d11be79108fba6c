// app_chess.cpp - perft from the start position on a Cortex-M4, every allocation through
// std::allocator: operator new, then whatever heap the image links (newlib-nano, full
// newlib, or TLSF with tlsf_newlib.cpp). The host counts the instructions between
// app_mark_begin and app_mark_end. One allocation before the mark takes the heap's
// first-use work (TLSF: building the heap; newlib: the first _sbrk) out of the count.
#include <cstdint>
#include <memory>
#include <new>

#include <chess/chess.hpp>
#ifdef APP_TLSF
#include <tlsf/default_heap.hpp>
#endif

#include "app_report.h"

#ifndef APP_PERFT_DEPTH
#define APP_PERFT_DEPTH 3
#endif

namespace {
const char kStart[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
}

int main() {
    app_report.magic = APP_REPORT_MAGIC;
    app_report.kind = 2;
    app_report.perft_depth = APP_PERFT_DEPTH;

    ::operator delete(::operator new(16)); // the heap's first use, not measured
#ifdef APP_TLSF
    const std::uint32_t allocs =
        static_cast<std::uint32_t>(tlsf::default_heap().stats().alloc_count);
#endif

    app_mark_begin();
    const std::uint64_t nodes = chess::perft(kStart, APP_PERFT_DEPTH, std::allocator<char>());
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
