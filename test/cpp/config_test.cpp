// SPDX-License-Identifier: MIT
// A default heap configured as on a microcontroller: its memory is a region bounded by
// two linker symbols (TLSF_DEFAULT_HEAP_START/END; the end is defined with --defsym in
// CMakeLists.txt, as a linker script would) and its lock is the program's own
// (TLSF_DEFAULT_HEAP_LOCK=TLSF_LOCK_USER), standing in for an RTOS mutex.
//
// Built twice: tlsf_cpp_config_global_new_test (TLSF_TEST_GLOBAL_NEW=1) also replaces the
// global operator new and delete, whose inline paths take the program's lock only once
// the heap is built - GoogleTest's allocations before main come first.
#if TLSF_TEST_GLOBAL_NEW
#include <tlsf/global_new.hpp>
#endif

#include <tlsf/allocator.hpp>
#include <tlsf/containers.hpp>
#include <tlsf/default_heap.hpp>

#include <gtest/gtest.h>

#include <cstdint>

static_assert(TLSF_DEFAULT_HEAP_LOCK == TLSF_LOCK_USER);
static_assert(TLSF_DEFAULT_HEAP_GROW == 0, "a configured region turns growth off");

// The region. Its end, tlsf_test_region_end, comes from the linker.
constexpr std::size_t kRegionBytes = 1024 * 1024;
extern "C" {
alignas(64) char tlsf_test_region[kRegionBytes];
}

namespace {

// The "RTOS": a lock that counts and checks it is never taken twice.
struct rtos_lock {
    int locks = 0;
    int unlocks = 0;
    int depth = 0;
    bool nested = false;
};
rtos_lock the_lock;

void take(void *context) {
    auto &lock = *static_cast<rtos_lock *>(context);
    ++lock.locks;
    if (++lock.depth > 1) lock.nested = true;
}

void give(void *context) {
    auto &lock = *static_cast<rtos_lock *>(context);
    ++lock.unlocks;
    --lock.depth;
}

} // namespace

// Called by the default heap on first use.
tlsf::lock_hooks tlsf::default_heap_lock() noexcept {
    return lock_hooks{&take, &give, &the_lock};
}

namespace {

TEST(ConfiguredDefaultHeap, LivesInTheLinkerRegion) {
    EXPECT_EQ(tlsf_test_region_end - tlsf_test_region, static_cast<std::ptrdiff_t>(kRegionBytes));
    tlsf::heap &heap = tlsf::default_heap();
    const tlsf::heap_stats stats = heap.stats();
    EXPECT_EQ(stats.pool_count, 1u);
    EXPECT_GT(stats.pool_bytes, kRegionBytes - tlsf_size() - 256);
    // The control structure is at the start of the region.
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(heap.native_handle()),
              reinterpret_cast<std::uintptr_t>(tlsf_test_region));
    tlsf::vector<int> numbers(1000, 1);
    const char *first = reinterpret_cast<const char *>(numbers.data());
    EXPECT_GE(first, tlsf_test_region);
    EXPECT_LT(first, tlsf_test_region_end);
    EXPECT_TRUE(heap.contains(first));
}

TEST(ConfiguredDefaultHeap, DoesNotGrow) {
    tlsf::heap &heap = tlsf::default_heap();
    EXPECT_EQ(heap.malloc(2 * kRegionBytes), nullptr);
    EXPECT_EQ(heap.stats().pool_count, 1u);
    tlsf::allocator<char> bytes;
    EXPECT_THROW((void)bytes.allocate(2 * kRegionBytes), std::bad_alloc);
}

TEST(ConfiguredDefaultHeap, UsesTheProgramsLock) {
    (void)tlsf::default_heap(); // built first: building it takes the program's lock once too
    const int locks = the_lock.locks;
    {
        tlsf::map<int, int> squares;
        for (int i = 0; i < 100; ++i)
            squares.emplace(i, i * i);
    }
    EXPECT_EQ(the_lock.locks, locks + 200); // 100 nodes allocated, 100 freed
    EXPECT_EQ(the_lock.unlocks, the_lock.locks);
    EXPECT_EQ(the_lock.depth, 0);
    EXPECT_FALSE(the_lock.nested);
}

#if TLSF_TEST_GLOBAL_NEW
void *volatile sink;

TEST(ConfiguredDefaultHeap, GlobalNewAndDeleteTakeTheProgramsLock) {
    tlsf::heap &heap = tlsf::default_heap();
    // Allocated before main, before the program's lock was known: in the region as well.
    EXPECT_TRUE(heap.contains(::testing::UnitTest::GetInstance()->current_test_info()));
    // Counted first, asserted after: a failing assertion would allocate in between.
    const int locks = the_lock.locks;
    sink = ::operator new(40);
    const int after_new = the_lock.locks;
    const bool inside = heap.contains(sink); // takes the lock too
    ::operator delete(sink);
    const int after_delete = the_lock.locks;
    sink = ::operator new(40, std::nothrow);
    ::operator delete(sink, std::nothrow);
    ::operator delete(nullptr); // returns before the lock
    const int at_end = the_lock.locks;
    EXPECT_EQ(after_new, locks + 1);
    EXPECT_EQ(after_delete, locks + 3);
    EXPECT_EQ(at_end, locks + 5);
    EXPECT_TRUE(inside);
    EXPECT_EQ(the_lock.unlocks, the_lock.locks);
    EXPECT_EQ(the_lock.depth, 0);
    EXPECT_FALSE(the_lock.nested);
}
#endif

} // namespace
