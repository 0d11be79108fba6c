// SPDX-License-Identifier: MIT
// tlsf::exchange_lock (<tlsf/lock.hpp>), the hosted default heap's lock: exclusion between
// threads, including the paths where a waiter yields and sleeps, try_lock, and a private
// heap locked with it through lock_hooks_for. Every assertion is about what happened, none
// about how long it took.
#include <tlsf/heap.hpp>
#include <tlsf/lock.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace {

TEST(ExchangeLock, TryLockTakesOnlyAFreeLock) {
    tlsf::exchange_lock lock;
    EXPECT_FALSE(lock.is_locked());
    EXPECT_TRUE(lock.try_lock());
    EXPECT_TRUE(lock.is_locked());
    EXPECT_FALSE(lock.try_lock()); // not recursive
    bool other_took_it = true;
    std::thread([&] { other_took_it = lock.try_lock(); }).join();
    EXPECT_FALSE(other_took_it);
    lock.unlock();
    EXPECT_FALSE(lock.is_locked());
    lock.unlock(); // a free lock given back stays free (the default heap's skipped lock)
    EXPECT_FALSE(lock.is_locked());
    EXPECT_TRUE(lock.try_lock());
    lock.unlock();
    std::thread([&] {
        other_took_it = lock.try_lock();
        if (other_took_it) lock.unlock();
    }).join();
    EXPECT_TRUE(other_took_it);
}

// Several threads increment a plain counter under the lock, and count how many of them
// are inside at once: exclusion holds iff nobody ever sees another thread inside and no
// increment is lost. (Under ThreadSanitizer a missing acquire or release is a report.)
TEST(ExchangeLock, ExcludesContendingThreads) {
    constexpr int kThreads = 4;
    constexpr int kRounds = 20000;
    tlsf::exchange_lock lock;
    std::uint64_t counter = 0; // guarded by `lock`
    std::atomic<int> inside{0};
    std::atomic<int> overlaps{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            for (int round = 0; round < kRounds; ++round) {
                std::lock_guard<tlsf::exchange_lock> hold(lock);
                if (inside.fetch_add(1, std::memory_order_relaxed) != 0) ++overlaps;
                counter = counter + 1;
                inside.fetch_sub(1, std::memory_order_relaxed);
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    EXPECT_EQ(overlaps.load(), 0);
    EXPECT_EQ(counter, std::uint64_t{kThreads} * kRounds);
    EXPECT_FALSE(lock.is_locked());
}

// A waiter that cannot have the lock for a long while goes through every stage - spinning,
// yielding, sleeping - and still gets it once it is released, and not before.
TEST(ExchangeLock, ALongWaitEndsWithTheRelease) {
    tlsf::exchange_lock lock;
    lock.lock();
    std::atomic<bool> waiting{false};
    std::atomic<bool> released{false};
    std::atomic<bool> got_it_before_release{false};
    std::thread waiter([&] {
        waiting = true;
        lock.lock();
        if (!released.load()) got_it_before_release = true;
        lock.unlock();
    });
    while (!waiting.load())
        std::this_thread::yield();
    // Long enough for the waiter to reach its sleeps on any machine that runs it at all;
    // nothing below depends on whether it did.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    released = true;
    lock.unlock();
    waiter.join();
    EXPECT_FALSE(got_it_before_release.load());
    EXPECT_FALSE(lock.is_locked());
}

// A private heap shared by threads with the exchange lock as its hooks: every block
// written and checked by the thread that owns it, the heap sound and empty at the end.
TEST(ExchangeLock, GuardsASharedHeapThroughItsHooks) {
    constexpr int kThreads = 4;
    constexpr int kRounds = 2000;
    alignas(tlsf::alignment) static unsigned char memory[1 << 20];
    tlsf::exchange_lock lock;
    tlsf::heap heap(memory, sizeof memory);
    heap.set_lock(tlsf::lock_hooks_for(lock));
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            std::vector<unsigned char *> blocks;
            for (int round = 0; round < kRounds; ++round) {
                const std::size_t bytes = 16 + static_cast<std::size_t>((round * 7 + t) % 200);
                auto *block = static_cast<unsigned char *>(heap.malloc(bytes));
                if (block == nullptr) {
                    ++errors;
                    continue;
                }
                block[0] = static_cast<unsigned char>(t);
                block[bytes - 1] = static_cast<unsigned char>(t);
                blocks.push_back(block);
                if (blocks.size() > 16) {
                    unsigned char *oldest = blocks.front();
                    if (oldest[0] != t) ++errors;
                    heap.free(oldest);
                    blocks.erase(blocks.begin());
                }
            }
            for (unsigned char *block : blocks) {
                if (block[0] != t) ++errors;
                heap.free(block);
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    EXPECT_EQ(errors.load(), 0);
    EXPECT_TRUE(heap.check());
    if (TLSF_STATS) {
        EXPECT_EQ(heap.stats().live_blocks, 0u);
    }
    EXPECT_FALSE(lock.is_locked());
    heap.set_lock(tlsf::lock_hooks{});
}

} // namespace
