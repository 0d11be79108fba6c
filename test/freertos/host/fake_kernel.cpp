// SPDX-License-Identifier: MIT
//
// fake_kernel.cpp - the recording fake of the kernel calls heap_tlsf.c makes (see
// fake/FreeRTOS.h). Both lock flavours count into the same depth, so a test reads the
// same fields whichever lock the port was built with.
#include "FreeRTOS.h"
#include "task.h"

fake_kernel_log_t fake_kernel;

namespace {
void take() {
    ++fake_kernel.locks;
    if (++fake_kernel.lock_depth > fake_kernel.max_lock_depth)
        fake_kernel.max_lock_depth = fake_kernel.lock_depth;
}
void give() {
    ++fake_kernel.unlocks;
    --fake_kernel.lock_depth;
}
} // namespace

extern "C" {

void vTaskSuspendAll(void) {
    take();
}
BaseType_t xTaskResumeAll(void) {
    give();
    return pdFALSE;
}

unsigned long fake_set_interrupt_mask(void) {
    take();
    return static_cast<unsigned long>(fake_kernel.lock_depth -
                                      1); // the mask found: the depth before
}
void fake_clear_interrupt_mask(unsigned long saved) {
    give();
    // The port must restore exactly the mask it found.
    if (saved != static_cast<unsigned long>(fake_kernel.lock_depth)) fake_assert_failed(-1);
}

void fake_assert_failed(int line) {
    ++fake_kernel.assert_failures;
    fake_kernel.last_assert_line = line;
}
void fake_trace_malloc(void *address, size_t size) {
    ++fake_kernel.trace_mallocs;
    fake_kernel.last_malloc = address;
    fake_kernel.last_malloc_size = size;
    fake_kernel.trace_lock_depth = fake_kernel.lock_depth;
}
void fake_trace_free(void *address, size_t size) {
    ++fake_kernel.trace_frees;
    fake_kernel.last_free = address;
    fake_kernel.last_free_size = size;
    fake_kernel.trace_lock_depth = fake_kernel.lock_depth;
}
void vApplicationMallocFailedHook(void) {
    ++fake_kernel.hook_calls;
    fake_kernel.hook_lock_depth = fake_kernel.lock_depth;
}

} // extern "C"
