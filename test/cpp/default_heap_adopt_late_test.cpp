// SPDX-License-Identifier: MIT
// The default heap adopting a C heap that does not exist yet (TLSF_DEFAULT_HEAP_ADOPT=1):
// default_heap_adopt() returns a null handle at first, as a firmware's heap_5-style heap
// before its regions are defined. Until then the default heap is empty - allocations fail
// as out of memory, nothing is adopted for good - and it asks again at each use; once the
// C heap exists, the next use adopts it.
//
// A plain program with the global operator new replaced, so that nothing allocates through
// the default heap before main but what this file does (GoogleTest would). Exit status 0
// when every check passes.
#include <tlsf/global_new.hpp>
#include <tlsf/tlsf.hpp>

#include <cstdio>
#include <new>

static_assert(TLSF_DEFAULT_HEAP_ADOPT == 1);

namespace {

alignas(16) unsigned char memory[1024 * 1024];
tlsf_t c_heap = nullptr; // created by main, after a while
int adoptions = 0;
int locks = 0;

void take(void *) {
    ++locks;
}
void give(void *) {
}

int failed_checks = 0;

void check(bool holds, const char *what) {
    if (!holds) {
        ++failed_checks;
        std::printf("FAILED: %s\n", what);
    }
}

} // namespace

tlsf::adopted_heap tlsf::default_heap_adopt() noexcept {
    ++adoptions;
    return adopted_heap{c_heap, lock_hooks{take, give, nullptr}};
}

int main() {
    // Before the C heap exists: empty, every allocation fails, each use asks again.
    tlsf::heap &early = tlsf::default_heap();
    check(!early, "an empty default heap before there is a C heap");
    check(!early.adopted(), "nothing adopted yet");
    check(::operator new(64, std::nothrow) == nullptr, "new(nothrow) fails while there is no heap");
    check(tlsf::default_heap().malloc(64) == nullptr, "heap.malloc fails while there is no heap");
    check(adoptions >= 3, "asked again at each use");
    check(locks == 0, "no lock taken without a heap");
    ::operator delete(nullptr); // nothing to free, no lock

    // The C heap appears (vPortDefineHeapRegions, say): the next use adopts it.
    c_heap = tlsf_create_with_pool(memory, sizeof memory);
    check(c_heap != nullptr, "the C heap");
    void *block = ::operator new(64, std::nothrow);
    check(block != nullptr, "new(nothrow) succeeds once the C heap exists");
    tlsf::heap &adopted = tlsf::default_heap();
    check(&adopted == &early, "the same object, now adopting");
    check(adopted.adopted() && adopted.native_handle() == c_heap, "adopted the C heap");
    const auto *byte = static_cast<const unsigned char *>(block);
    check(byte >= memory && byte < memory + sizeof memory, "the block is in the C heap");
    const int adoptions_then = adoptions;
    ::operator delete(block);
    void *again = ::operator new(32);
    ::operator delete(again);
    check(adoptions == adoptions_then, "adopted once: not asked again");
    check(locks >= 3, "the C heap's lock is taken");
    check(tlsf_check(c_heap) == 0, "the C heap is consistent");

    if (failed_checks != 0) {
        std::printf("default_heap_adopt_late_test: %d checks FAILED\n", failed_checks);
        return 1;
    }
    std::printf("default_heap_adopt_late_test: PASS\n");
    return 0;
}
