// SPDX-License-Identifier: MIT
// app_demo.cpp - C library and C++ on one TLSF heap: printf, strdup, std::map, a thrown
// and caught exception, calloc/realloc/memalign. Each step reads the default heap's
// statistics before and after and records the deltas in app_report, which the host
// (host/m4app.c --demo) checks. Built with exceptions, newlib-nano, tlsf_newlib.cpp and
// _sbrk as a trap (../firmware/syscalls.c with BENCH_SBRK_SERVES=0).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <map>
#include <stdexcept>

#include <tlsf/default_heap.hpp>

#include "app_report.h"

extern "C" {
void *_sbrk(std::ptrdiff_t increment);
extern char __heap_start[], __heap_end[];
extern std::uint32_t tlsf_newlib_calls, tlsf_newlib_locks, tlsf_newlib_lock_depth;
}

namespace {

#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_INTERRUPTS
// The inline lock (interrupts masked) cannot count itself. Instead, code that runs inside
// the heap's lock reads PRIMASK there: the error handler, reached from operator delete's
// inline path, and the pool source, reached from heap::malloc through the lock hooks.
std::uint32_t masked_inside_lock;

std::uint32_t primask() {
    std::uint32_t value;
    __asm__ volatile("mrs %0, primask" : "=r"(value));
    return value;
}

void note_mask_in_error_handler(tlsf_t, tlsf_error_t, const void *, void *) {
    if (primask() & 1u) ++masked_inside_lock;
}

tlsf::region note_mask_in_pool_source(std::size_t, void *) {
    if (primask() & 1u) ++masked_inside_lock;
    return tlsf::region{}; // nothing to give: the allocation fails
}

// Runs both probes; returns how many saw interrupts masked (2 when the lock works).
std::uint32_t probe_interrupt_lock() {
    tlsf::heap &heap = tlsf::default_heap();
    heap.set_error_handler(&note_mask_in_error_handler, nullptr);
    char *block = static_cast<char *>(::operator new(64));
    char *volatile misaligned = block + 1; // the core reports it and changes nothing
    ::operator delete(misaligned);
    ::operator delete(block);
    heap.set_error_handler(&tlsf::heap::abort_on_misuse, nullptr);

    // Through heap::malloc, not std::malloc: the compiler takes malloc for a function that
    // reads no program memory, and would drop the source set just before the call.
    heap.set_pool_source(tlsf::pool_source{&note_mask_in_pool_source, nullptr});
    volatile std::size_t too_big = std::size_t{8} << 20; // more than the region
    void *none = heap.malloc(too_big);
    heap.set_pool_source(tlsf::pool_source{});
    return none == nullptr ? masked_inside_lock : 0;
}
#endif

bool in_heap(const void *pointer) {
    const char *p = static_cast<const char *>(pointer);
    return p >= __heap_start && p < __heap_end;
}

tlsf::heap_stats snapshot() {
    return tlsf::default_heap().stats();
}

void record(int step, const tlsf::heap_stats &before, bool ok, bool inside) {
    const tlsf::heap_stats after = snapshot();
    app_report.steps[step].alloc_delta =
        static_cast<std::uint32_t>(after.alloc_count - before.alloc_count);
    app_report.steps[step].free_delta =
        static_cast<std::uint32_t>(after.free_count - before.free_count);
    app_report.steps[step].ok = ok ? 1u : 0u;
    app_report.steps[step].in_heap = inside ? 1u : 0u;
}

} // namespace

int main() {
    app_report.magic = APP_REPORT_MAGIC;
    app_report.kind = 1;
    // libstdc++'s emergency exception pool was allocated by a static constructor, before
    // main: that first malloc built the heap.
    app_report.allocs_before_main = static_cast<std::uint32_t>(snapshot().alloc_count);

    { // printf: newlib allocates stdout's buffer on the first output (_malloc_r).
        const tlsf::heap_stats before = snapshot();
        int n = std::printf("hello %d from printf on the TLSF heap\n", 42);
        std::fflush(stdout);
        record(APP_STEP_PRINTF, before, n > 0,
               stdout->_bf._base != nullptr && in_heap(stdout->_bf._base));
    }
    { // strdup: _strdup_r -> _malloc_r.
        const tlsf::heap_stats before = snapshot();
        char *copy = strdup("duplicated by newlib");
        bool ok = copy != nullptr && std::strcmp(copy, "duplicated by newlib") == 0;
        bool inside = in_heap(copy);
        std::free(copy);
        record(APP_STEP_STRDUP, before, ok, inside);
    }
    { // std::map: operator new -> tlsf::default_heap().
        const tlsf::heap_stats before = snapshot();
        bool ok, inside;
        {
            std::map<int, int> squares;
            for (int i = 0; i < 100; ++i)
                squares[i] = i * i;
            long sum = 0;
            for (const auto &entry : squares)
                sum += entry.second;
            ok = squares.size() == 100 && sum == 328350;
            inside = in_heap(&squares.begin()->second) && in_heap(&squares.rbegin()->second);
        }
        record(APP_STEP_MAP, before, ok, inside);
    }
    { // An exception: __cxa_allocate_exception -> malloc; the message -> operator new.
        const tlsf::heap_stats before = snapshot();
        bool ok = false, inside = false;
        try {
            throw std::runtime_error("thrown through the TLSF heap");
        } catch (const std::runtime_error &error) {
            ok = std::strcmp(error.what(), "thrown through the TLSF heap") == 0;
            inside = in_heap(&error) && in_heap(error.what());
        }
        record(APP_STEP_EXCEPTION, before, ok, inside);
    }
    { // calloc, realloc, memalign.
        const tlsf::heap_stats before = snapshot();
        bool ok = true;
        auto *words = static_cast<std::uint32_t *>(std::calloc(64, sizeof(std::uint32_t)));
        for (int i = 0; words != nullptr && i < 64; ++i)
            ok = ok && words[i] == 0;
        words = static_cast<std::uint32_t *>(std::realloc(words, 4096));
        void *aligned = memalign(256, 100);
        ok = ok && words != nullptr && aligned != nullptr &&
             (reinterpret_cast<std::uintptr_t>(aligned) & 255u) == 0;
        bool inside = in_heap(words) && in_heap(aligned);
        std::free(words);
        std::free(aligned);
        record(APP_STEP_CALLOC, before, ok, inside);
    }

#if TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_INTERRUPTS
    app_report.lock_calls = probe_interrupt_lock();
    // Released: interrupts enabled again, and no hook left a lock open.
    app_report.lock_depth = primask() + tlsf::detail::interrupt_lock_nesting.depth;
#else
    app_report.lock_calls = tlsf_newlib_locks;
    app_report.lock_depth = tlsf_newlib_lock_depth;
#endif
    const tlsf::heap_stats end = snapshot();
    app_report.retarget_calls = tlsf_newlib_calls;
    app_report.heap_check = tlsf::default_heap().check() ? 1u : 0u;
    app_report.live_blocks_end = static_cast<std::uint32_t>(end.live_blocks);
#ifdef APP_PROBE_SBRK
    // The negative test: reaching newlib's heap must stop the program, loudly.
    (void)_sbrk(64);
#endif
    app_report.done = 1;
    return 0;
}
