/* SPDX-License-Identifier: MIT */
// This library's additions on a heap a mattconte program made through the layer: a file
// compiled against the core's own tlsf.h with the layer's settings (native/native_extras.c,
// tlsf::mattconte_native) reads the statistics, the checked usable size and the largest
// request, allocates with tlsf_calloc and installs an error handler that hears a double
// free instead of the hosted default's abort.
#include "compat_test_support.h"

#include "native_extras.h"

using namespace compat_test;

namespace {

TEST(CompatNative, AdditionsWorkOnALayersHeap) {
    Arena arena(tlsf_size() + 64 * 1024);
    tlsf_t heap = tlsf_create_with_pool(arena.start(), arena.size());
    void *p = tlsf_malloc(heap, 1000);
    void *q = tlsf_memalign(heap, 512, 100);
    ASSERT_TRUE(p && q);
    native_report report{};
    native_read(heap, p, &report);
    EXPECT_EQ(report.live_blocks, 2u);
    EXPECT_EQ(report.pool_count, 1u);
    EXPECT_EQ(report.pool_bytes, Walk(tlsf_get_pool(heap)).Accounted() + sizeof(void *) -
                                     tlsf_pool_overhead()); // (q's alignment record)
    EXPECT_EQ(report.usable_size, tlsf_block_size(p));
    EXPECT_TRUE(report.calloc_zeroed);
    // The largest request that succeeds, exactly.
    EXPECT_LE(report.largest_allocatable, Walk(tlsf_get_pool(heap)).largest_free);
    void *largest = tlsf_malloc(heap, report.largest_allocatable);
    EXPECT_NE(largest, nullptr);
    tlsf_free(heap, largest);
    EXPECT_EQ(tlsf_malloc(heap, report.largest_allocatable + 1), nullptr);
    tlsf_free(heap, p);
    tlsf_free(heap, q);
    EXPECT_TRUE(Sound(heap, tlsf_get_pool(heap)));
}

TEST(CompatNative, AHandlerHearsMisuse) {
    Arena arena(tlsf_size() + 16 * 1024);
    tlsf_t heap = tlsf_create_with_pool(arena.start(), arena.size());
    native_catch_errors(heap);
    void *p = tlsf_malloc(heap, 100);
    tlsf_free(heap, p);
    tlsf_free(heap, p); // heard, not aborted: the heap is unchanged
    native_report report{};
    native_read(heap, nullptr, &report);
    EXPECT_EQ(report.handler_calls, 1);
    EXPECT_TRUE(report.last_error_was_double_free);
    EXPECT_EQ(report.live_blocks, 0u);
    EXPECT_TRUE(Sound(heap, tlsf_get_pool(heap)));
}

} // namespace
