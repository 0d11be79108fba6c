// SPDX-License-Identifier: MIT
// <tlsf/global_new.hpp> in a program built with or without a sanitizer: it compiles,
// links and runs in every configuration, and replaces the global operator new exactly
// where the build can have it replaced (TLSF_CPP_REPLACE_GLOBAL_NEW, <tlsf/config.hpp>).
// CMakeLists.txt passes what it expects as TLSF_TEST_EXPECT_REPLACED: 0 for clang with
// ThreadSanitizer or MemorySanitizer (whose runtimes define operator new), 1 otherwise.
//
// Under ThreadSanitizer (the clang-tsan configuration of scripts/test-all.sh) the threads
// below also race new/delete against the default heap's allocator and a shared
// tlsf::heap_resource, so that TSan checks the layer's locking.
#include <tlsf/global_new.hpp>

#include <tlsf/tlsf.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

#ifndef TLSF_TEST_EXPECT_REPLACED
#error "CMakeLists.txt defines TLSF_TEST_EXPECT_REPLACED"
#endif

TEST(GlobalNewUnderSanitizers, ReplacedExactlyWhereTheRuntimeAllowsIt) {
    EXPECT_EQ(tlsf::replaces_global_new, TLSF_TEST_EXPECT_REPLACED != 0);
    auto number = std::make_unique<int>(42);
    EXPECT_EQ(*number, 42);
    EXPECT_EQ(tlsf::default_heap().contains(number.get()), tlsf::replaces_global_new);
    // The default heap itself works either way.
    tlsf::vector<int> on_default(100, 1);
    EXPECT_TRUE(tlsf::default_heap().contains(on_default.data()));
}

TEST(GlobalNewUnderSanitizers, ThreadsShareNewTheDefaultHeapAndALockedResource) {
    constexpr int kThreads = 4;
    constexpr int kRounds = 2000;
    std::mutex arena_lock;
    tlsf::heap_resource arena;
    arena.get_heap().set_lock(tlsf::lock_hooks_for(arena_lock));
    std::atomic<std::string *> mailbox{nullptr};
    std::atomic<int> checked{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            tlsf::map<int, tlsf::string> mine;
            std::pmr::vector<std::pmr::string> shared(&arena);
            for (int i = 0; i < kRounds; ++i) {
                mine[i % 64] = std::string(static_cast<std::size_t>(40 + i % 50), 'a').c_str();
                shared.emplace_back(static_cast<std::size_t>(40 + t), 'b');
                // Hand a block made by new to another thread, which deletes it.
                auto *text = new std::string(static_cast<std::size_t>(50 + t), 'c');
                if (std::string *previous = mailbox.exchange(text)) {
                    if (previous->size() >= 50) checked.fetch_add(1);
                    delete previous;
                }
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    delete mailbox.exchange(nullptr);
    EXPECT_EQ(checked.load(), kThreads * kRounds - 1);
    EXPECT_TRUE(tlsf::default_heap().check());
    EXPECT_TRUE(arena.get_heap().check());
}

} // namespace
