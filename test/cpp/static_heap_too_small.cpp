// SPDX-License-Identifier: MIT
// Must not compile: a tlsf::static_heap smaller than its (compact) control structure and one
// block (TLSF_COMPACT_MIN_BYTES). The ctest tlsf_cpp_static_heap_too_small_fails_to_compile
// expects the compiler to stop here with the static_assert's message.
#include <tlsf/heap.hpp>

int main() {
    static tlsf::static_heap<64> heap;
    return heap ? 0 : 1;
}
