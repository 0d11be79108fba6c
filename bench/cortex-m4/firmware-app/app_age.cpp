// SPDX-License-Identifier: MIT
// app_age.cpp - heap age: what one operator new / delete costs as the heap fragments.
//
// One run per heap (the same image recipe as app_chess.cpp: newlib-nano, full newlib,
// TLSF, FreeRTOS heap_4). The live set grows in APP_AGE_LEVELS steps of 500 blocks of
// mixed sizes; each step allocates two blocks and frees a random one until the target is
// reached, so holes open all over the heap. At each level the program counts the heap's
// free blocks (outside the measurement, each heap its own way) and then, between
// app_mark_begin and app_mark_end, replaces 1,000 random live blocks (delete, then new of
// a fresh random size). The host records every new and delete between the marks
// (host/m4app.c, --age) and plots cost against free blocks.
#include <cstddef>
#include <cstdint>
#include <new>

#ifdef APP_TLSF
#include <tlsf.h>
#elif defined(APP_FREERTOS)
#include "FreeRTOS.h"
#include "portable.h"
#elif defined(APP_NEWLIB_NANO)
// newlib-nano's free list (nano-mallocr.c): address-ordered chunks, size then next.
struct nano_chunk {
    long size;
    nano_chunk *next;
};
extern "C" nano_chunk *__malloc_free_list;
#else
#include <malloc.h>
#endif

#include "app_report.h"

namespace {

constexpr std::uint32_t kStep = 500;      // live blocks added per level
constexpr std::uint32_t kReplaced = 1000; // measured delete + new pairs per level
constexpr std::uint32_t kMaxLive = kStep * APP_AGE_LEVELS;

void *live[kMaxLive + 1]; // + 1: a growth step may overshoot its target by one
std::uint32_t live_count;
std::uint32_t rng_state = 0x2545F491u;

std::uint32_t next_random() { // xorshift32: deterministic, the same for every heap
    std::uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

// Mixed sizes: mostly small (list and tree nodes), some medium, a few large buffers.
std::size_t random_size() {
    const std::uint32_t kind = next_random() % 100;
    if (kind < 70) return 8 + next_random() % 57;   // 8..64
    if (kind < 95) return 65 + next_random() % 448; // 65..512
    return 513 + next_random() % 3584;              // 513..4096
}

void *allocate() {
    void *p = ::operator new(random_size(), std::nothrow);
    if (p == nullptr) app_report.age_count_ok = 0; // the heap ran out: the run is invalid
    return p;
}

void release_random() {
    const std::uint32_t k = next_random() % live_count;
    ::operator delete(live[k]);
    live[k] = live[--live_count];
}

#ifdef APP_TLSF
// The default heap's one pool, found by <tlsf/heap.hpp>'s layout: the control structure
// at the start of the region, then one pool link (two words), then the pool. Checked:
// the walk must find exactly the program's live blocks in use.
extern "C" char __heap_start[];
struct walk_count {
    std::uint32_t free_blocks, used_blocks;
};
void count_block(void *, std::size_t, int used, void *user) {
    auto *count = static_cast<walk_count *>(user);
    if (used)
        ++count->used_blocks;
    else
        ++count->free_blocks;
}
std::uint32_t free_blocks(bool &ok) {
    walk_count count{0, 0};
    tlsf_walk_pool(reinterpret_cast<pool_t>(__heap_start + tlsf_size() + 2 * sizeof(void *)),
                   count_block, &count);
    ok = count.used_blocks == live_count;
    return count.free_blocks;
}
#elif defined(APP_FREERTOS)
std::uint32_t free_blocks(bool &ok) {
    HeapStats_t stats;
    vPortGetHeapStats(&stats);
    ok = true;
    return static_cast<std::uint32_t>(stats.xNumberOfFreeBlocks);
}
#elif defined(APP_NEWLIB_NANO)
std::uint32_t free_blocks(bool &ok) {
    std::uint32_t n = 0;
    for (const nano_chunk *c = __malloc_free_list; c != nullptr; c = c->next)
        ++n;
    ok = true;
    return n;
}
#else
std::uint32_t free_blocks(bool &ok) {
    ok = true;
    return static_cast<std::uint32_t>(mallinfo().ordblks); // free chunks, the top one included
}
#endif

} // namespace

int main() {
    app_report.magic = APP_REPORT_MAGIC;
    app_report.kind = 3;
    app_report.age_count_ok = 1;
    ::operator delete(::operator new(16)); // the heap's first use, not measured

    for (std::uint32_t level = 0; level < APP_AGE_LEVELS; ++level) {
        const std::uint32_t target = kStep * (level + 1);
        while (live_count < target) { // each step: two blocks in, a random one out
            live[live_count++] = allocate();
            live[live_count++] = allocate();
            release_random();
        }
        bool ok = false;
        app_report.age_free_blocks[level] = free_blocks(ok);
        app_report.age_live_blocks[level] = live_count;
        if (!ok) app_report.age_count_ok = 0;

        app_mark_begin();
        for (std::uint32_t i = 0; i < kReplaced; ++i) {
            const std::uint32_t k = next_random() % live_count;
            ::operator delete(live[k]);
            live[k] = allocate();
        }
        app_mark_end();
        app_report.age_levels = level + 1;
    }
    app_report.done = 1;
    return 0;
}
