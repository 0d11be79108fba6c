// SPDX-License-Identifier: MIT
// freertos_hook_test.cpp - the FreeRTOS port's recording hook (configTLSF_HEAP_TRACE = 1,
// ports/freertos/heap_tlsf.h): pvPortMalloc, pvPortCalloc and vPortFree recorded under the
// heap's lock, against the fake kernel of test/freertos/host.
#include <gtest/gtest.h>

extern "C" {
#include "FreeRTOS.h"
#include "heap_tlsf.h"
void *pvPortMalloc(size_t xWantedSize);
void *pvPortCalloc(size_t xNum, size_t xSize);
void vPortFree(void *pv);
void vPortHeapResetState(void);
}

#include "trace_support.hpp"

using namespace trace_test;

TEST(FreeRtosHook, EveryCallIsRecordedInOrderUnderTheLock) {
    vPortHeapResetState();
    memory_recorder r;
    void *before = pvPortMalloc(10); // before the recorder: left out
    vPortSetHeapTrace(r.trace);
    void *a = pvPortMalloc(100);
    void *b = pvPortCalloc(4, 25);
    void *none = pvPortMalloc(1u << 30);
    EXPECT_EQ(none, nullptr);
    vPortFree(a);
    vPortFree(before); // allocated before recording: counted, not written
    vPortFree(b);
    vPortSetHeapTrace(nullptr);
    vPortFree(pvPortMalloc(5)); // after: not recorded
    ASSERT_EQ(tlsf_trace_finish(r.trace), 0);
    tlsf_trace_read_status_t status;
    const auto e = decode(r.bytes, status);
    ASSERT_EQ(status, TLSF_TRACE_READ_DONE);
    ASSERT_EQ(e.size(), 6u);
    EXPECT_EQ(e[0].op, unsigned{TLSF_TRACE_MALLOC});
    EXPECT_EQ(e[0].size, 100u);
    EXPECT_EQ(e[1].op, unsigned{TLSF_TRACE_MALLOC}); // pvPortCalloc's malloc
    EXPECT_EQ(e[1].size, 100u);
    EXPECT_TRUE(e[2].failed);
    EXPECT_EQ(e[3].op, unsigned{TLSF_TRACE_FREE});
    EXPECT_EQ(e[3].id, e[0].id);
    EXPECT_EQ(e[4].id, e[1].id);
    EXPECT_EQ(e[5].op, unsigned{TLSF_TRACE_END});
    EXPECT_EQ(e[5].end_untracked_frees, 1u);
    EXPECT_EQ(e[5].end_live_bytes, 0u);
    EXPECT_EQ(fake_kernel.lock_depth, 0);
    vPortHeapResetState();
}
