// SPDX-License-Identifier: MIT
// A C++ consumer: the headers under <tlsf/...>, a container on a static heap.
#include <tlsf/tlsf.hpp>

#include <cstdio>

int main() {
    static tlsf::static_heap<256 * 1024> heap;
    bool ok;
    {
        tlsf::map<int, int> squares(heap);
        for (int i = 0; i < 100; ++i)
            squares[i] = i * i;
        ok = squares.size() == 100 && squares[9] == 81 && heap.stats().live_blocks == 100;
    }
    ok = ok && heap.stats().live_blocks == 0 && heap.check();
    std::printf("consumer_cpp: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
