// SPDX-License-Identifier: MIT
// A C++ consumer with strict warnings (CMakeLists.txt: -Wzero-as-null-pointer-constant,
// -Wold-style-cast, gcc's -Wuseless-cast, -Wpadded, ...). tlsf's headers are system headers
// to it, so its build must show no warning at all: the test driver checks the output.
// (-Wpadded is the probe: tlsf's classes have padding, so the headers would warn if they
// were included as ordinary headers.)
#include <tlsf/tlsf.hpp>

#include <cstdio>
#include <memory_resource>

int main() {
    static tlsf::static_heap<256 * 1024> heap;
    bool ok;
    {
        tlsf::map<int, tlsf::string> names(heap);
        names[1] = "a name long enough to need a block of its own";
        tlsf::heap_resource arena;
        std::pmr::vector<int> numbers(&arena);
        numbers.push_back(41);
        const tlsf::unique_ptr<int> one = tlsf::allocate_unique<int>(heap, 1);
        ok = heap.contains(names[1].data()) && *one + numbers[0] == 42;
    }
    ok = ok && heap.stats().live_blocks == 0 && heap.check();
    std::printf("consumer_strict: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
