// SPDX-License-Identifier: MIT
//
// main.cpp - a firmware program whose every allocation comes from one TLSF heap.
//
// The heap is the RAM the linker script leaves after the stack (__heap_start ..
// __heap_end); CMakeLists.txt configures the default heap with it and with the
// interrupt-masking lock. Including <tlsf/global_new.hpp> here (in one file only)
// replaces the global operator new and delete, so std::vector and std::map allocate from
// TLSF; newlib_heap.cpp does the same for malloc, which printf uses.
//
// The program sieves the primes below 10,000 into a std::vector, counts the last digits
// in a std::map, prints the results and the heap's statistics, checks that everything
// was freed and that the heap is consistent, and returns 0 only if all of it holds. The
// CI stage scripts/test-stages/firmware-example.sh runs it in QEMU and compares the output.
#include <tlsf/global_new.hpp>

#include <tlsf/tlsf.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

extern "C" char __heap_start[], __heap_end[];

namespace {

// Out of memory (or a corrupt heap) in a program without exceptions: report and stop.
[[noreturn]] void on_heap_failure(tlsf::failure, std::size_t bytes) {
    std::printf("firmware: heap failure (%u bytes)\n", static_cast<unsigned>(bytes));
    std::exit(2);
}

bool in_heap(const void *p) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    return address >= reinterpret_cast<std::uintptr_t>(__heap_start) &&
           address < reinterpret_cast<std::uintptr_t>(__heap_end);
}

// The primes below `limit`, by the sieve of Eratosthenes.
std::vector<unsigned> primes_below(unsigned limit) {
    std::vector<bool> composite(limit, false);
    std::vector<unsigned> primes;
    for (unsigned n = 2; n < limit; ++n) {
        if (composite[n]) continue;
        primes.push_back(n);
        for (unsigned multiple = n * n; multiple < limit; multiple += n)
            composite[multiple] = true;
    }
    return primes;
}

bool check(bool condition, const char *what) {
    std::printf("%-40s %s\n", what, condition ? "ok" : "FAILED");
    return condition;
}

} // namespace

int main() {
    tlsf::set_failure_handler(&on_heap_failure);
    tlsf::heap &heap = tlsf::default_heap();
    std::printf("tlsf %s on mps2-an386: heap of %u KiB at %p\n", TLSF_VERSION,
                static_cast<unsigned>((__heap_end - __heap_start) / 1024),
                static_cast<void *>(__heap_start));
    const tlsf_stats_t before = heap.stats();

    bool ok = true;
    {
        const std::vector<unsigned> primes = primes_below(10000);
        std::map<unsigned, unsigned> last_digits;
        for (unsigned p : primes)
            ++last_digits[p % 10];
        std::printf("primes below 10000: %u, the largest %u\n",
                    static_cast<unsigned>(primes.size()), primes.back());
        for (const auto &[digit, count] : last_digits)
            std::printf("  ending in %u: %u\n", digit, count);

        ok &= check(primes.size() == 1229 && primes.back() == 9973, "std::vector: 1229 primes");
        ok &= check(last_digits.size() == 6 && last_digits[1] == 306, "std::map: 6 last digits");
        ok &= check(in_heap(primes.data()), "the vector's memory is in the TLSF heap");
        const tlsf_stats_t during = heap.stats();
        std::printf("heap: %u allocations so far, %u blocks live, peak %u bytes\n",
                    static_cast<unsigned>(during.alloc_count),
                    static_cast<unsigned>(during.live_blocks),
                    static_cast<unsigned>(during.peak_used_bytes));
        ok &= check(during.live_blocks > before.live_blocks, "containers allocate from TLSF");
    }
    void *c_block = std::malloc(100);
    ok &= check(in_heap(c_block), "malloc uses the same heap");
    std::free(c_block);

    const tlsf_stats_t after = heap.stats();
    ok &= check(after.live_blocks == before.live_blocks, "everything freed");
    ok &= check(heap.check(), "heap consistent (tlsf_check)");
    std::printf("firmware: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
