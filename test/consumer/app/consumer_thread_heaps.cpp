// SPDX-License-Identifier: MIT
// A C++ consumer of tlsf::cpp_thread_heaps: global new/delete and the default allocator on
// the malloc shim's per-thread heaps, as find_package(tlsf) exports them.
#include <tlsf/global_new.hpp>
#include <tlsf/tlsf.hpp>

#include <cstdio>
#include <memory>
#include <thread>

int main() {
    bool ok = tlsf::allocator<int>().uses_thread_heaps();
    tlsf::vector<int> numbers(100, 7);
    auto number = std::make_unique<int>(5);
    std::thread other([&] { number.reset(); }); // freed on another thread
    other.join();
    tlsfm_info info{};
    tlsfm_get_info(&info);
    ok = ok && numbers[99] == 7 && info.live_blocks > 0;
    std::printf("consumer_thread_heaps: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
