// SPDX-License-Identifier: MIT
// new_delete_cost: a workload to count instructions of the global operator new and delete
// under valgrind's callgrind, built twice: new_delete_cost_thread_heaps (per-thread default
// heaps, tlsf::cpp_thread_heaps) and new_delete_cost_locked (the single default heap behind
// its std::mutex). Only the functions named measure_* are meant to be collected:
//
//   valgrind --tool=callgrind --toggle-collect='measure_*' <binary> single 200000
//   valgrind --tool=callgrind --toggle-collect='measure_*' <binary> cross 200000
//
// single: one thread, `count` pairs of new[] and delete[] (sizes 16..527 bytes, a fixed
//         sequence), with 64 blocks kept live so that the free lists are not trivially hot.
// cross:  a producer thread news `count` blocks in batches of 256, a consumer thread deletes
//         each batch (every delete a remote free); the threads alternate through a flag.
// Instructions per pair = callgrind's total Ir / count. Not a ctest (a figure, no verdict).
#include <tlsf/global_new.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

constexpr std::size_t kBatch = 256;

std::size_t size_of(std::size_t i) {
    return 16 + (i * 2654435761u >> 7) % 512;
}

extern "C" __attribute__((noinline)) void measure_single(std::size_t count) {
    char *kept[64] = {};
    for (std::size_t i = 0; i < count; ++i) {
        char *block = new char[size_of(i)];
        block[0] = 1;
        char *&slot = kept[i % 64];
        delete[] slot;
        slot = block;
    }
    for (char *block : kept)
        delete[] block;
}

extern "C" __attribute__((noinline)) void measure_allocate_batch(char **batch, std::size_t base) {
    for (std::size_t i = 0; i < kBatch; ++i)
        batch[i] = new char[size_of(base + i)];
}

extern "C" __attribute__((noinline)) void measure_free_batch(char **batch) {
    for (std::size_t i = 0; i < kBatch; ++i)
        delete[] batch[i];
}

void cross(std::size_t count) {
    static char *batch[kBatch];
    std::atomic<int> turn{0}; // 0: producer fills, 1: consumer frees, 2: done
    const std::size_t batches = count / kBatch;
    std::thread consumer([&] {
        for (;;) {
            int t;
            while ((t = turn.load(std::memory_order_acquire)) == 0)
                std::this_thread::yield();
            if (t == 2) return;
            measure_free_batch(batch);
            turn.store(0, std::memory_order_release);
        }
    });
    for (std::size_t b = 0; b < batches; ++b) {
        measure_allocate_batch(batch, b * kBatch);
        turn.store(1, std::memory_order_release);
        while (turn.load(std::memory_order_acquire) != 0)
            std::this_thread::yield();
    }
    turn.store(2, std::memory_order_release);
    consumer.join();
}

} // namespace

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "single";
    const std::size_t count = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 200000;
    if (std::strcmp(mode, "cross") == 0)
        cross(count);
    else
        measure_single(count);
    std::printf("new_delete_cost %s %zu pairs\n", mode, count);
    return 0;
}
