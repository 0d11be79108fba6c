// SPDX-License-Identifier: MIT
// freertos_new.cpp - a C++ program on FreeRTOS's heap_4, as FreeRTOS applications do it:
// the global operator new and delete call pvPortMalloc and vPortFree, and so do malloc
// and free (newlib's own heap is never used: _sbrk is the harness's trap). Built with
// -fno-exceptions, so a failed plain new stops the program (bench_panic) instead of
// throwing.
#include <cstddef>
#include <cstdlib>
#include <new>

extern "C" {
#include "FreeRTOS.h"
#include "bench_api.h"
}

namespace {
void *allocate_or_stop(std::size_t bytes) noexcept {
    void *p = pvPortMalloc(bytes);
    if (p == nullptr) bench_panic(BENCH_PANIC_FAULT);
    return p;
}
} // namespace

void *operator new(std::size_t bytes) {
    return allocate_or_stop(bytes);
}
void *operator new[](std::size_t bytes) {
    return allocate_or_stop(bytes);
}
void *operator new(std::size_t bytes, const std::nothrow_t &) noexcept {
    return pvPortMalloc(bytes);
}
void *operator new[](std::size_t bytes, const std::nothrow_t &) noexcept {
    return pvPortMalloc(bytes);
}
void operator delete(void *p) noexcept {
    vPortFree(p);
}
void operator delete[](void *p) noexcept {
    vPortFree(p);
}
void operator delete(void *p, std::size_t) noexcept {
    vPortFree(p);
}
void operator delete[](void *p, std::size_t) noexcept {
    vPortFree(p);
}

extern "C" {
void *malloc(std::size_t bytes) {
    return pvPortMalloc(bytes);
}
void free(void *p) {
    vPortFree(p);
}
void *_malloc_r(struct _reent *, std::size_t bytes) {
    return pvPortMalloc(bytes);
}
void _free_r(struct _reent *, void *p) {
    vPortFree(p);
}
}
