/*
 * SPDX-License-Identifier: MIT
 *
 * image_freertos.c - FreeRTOS's heap_4 in the count harness: pvPortMalloc and vPortFree,
 * the heap most FreeRTOS applications use, as a contestant beside newlib's malloc.
 *
 * heap_4.c comes unmodified from FREERTOS_KERNEL_PATH, configured by
 * freertos/FreeRTOSConfig.h, with freertos/freertos_kernel_stubs.c standing in for the
 * scheduler calls it makes. Its heap (ucHeap) is placed at the start of the arena by the
 * link (--defsym), its state lives in .bss, so the host starts a fresh heap by running
 * Reset_Handler again, as for newlib. heap_4 has no realloc and no memalign: the host
 * runs only the workloads made of malloc and free on it.
 */
#include <stddef.h>

#include "FreeRTOS.h"
#include "bench_api.h"

const bench_api_t bench_api BENCH_API_SECTION = {
    BENCH_PLATFORM_FIELDS,
    .kind = BENCH_KIND_NEWLIB, /* run like newlib's: malloc(size), free(ptr), reset */
    .allocator = "freertos-heap4",
    .opt = BENCH_OPT,
    .config = "-",
    .fn_malloc = (bench_fn_t)pvPortMalloc,
    .fn_free = (bench_fn_t)vPortFree,
};

int main(void) {
    return 0; /* the host does the rest */
}
