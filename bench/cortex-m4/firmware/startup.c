/* SPDX-License-Identifier: MIT */
/*
 * startup.c - minimal bare-metal startup for the Cortex-M4 benchmark images (no OS).
 *
 * The vector table holds the initial stack pointer and the reset handler; every other
 * exception lands in bench_panic so that the host sees it at once. Reset_Handler copies
 * .data from flash, zeroes .bss, runs the C/C++ constructors, calls main and then parks
 * in bench_trap, where the host takes over and calls individual functions.
 *
 * The symbols used here come from m4.ld.
 */
#include <stdint.h>

#include "bench_api.h"

extern uint32_t __data_load__[], __data_start__[], __data_end__[];
extern uint32_t __bss_start__[], __bss_end__[];
typedef void (*bench_ctor_t)(void);
extern bench_ctor_t __preinit_array_start[], __preinit_array_end[];
extern bench_ctor_t __init_array_start[], __init_array_end[];

int main(void);

/* Every exception but reset. */
static void fault_handler(void) {
    bench_panic(BENCH_PANIC_FAULT);
}

/* The Cortex-M vector table: initial SP, then the 15 system exception vectors. */
typedef struct vector_table {
    char *initial_sp;
    bench_fn_t vectors[15];
} vector_table_t;

__attribute__((used, section(".isr_vector"))) const vector_table_t bench_vectors = {
    __stack_top,
    {Reset_Handler, fault_handler, fault_handler, fault_handler, fault_handler, fault_handler, 0, 0,
     0, 0, fault_handler, fault_handler, 0, fault_handler, fault_handler}};

void Reset_Handler(void) {
    uint32_t *src = __data_load__;
    uint32_t *dst;
    bench_ctor_t *ctor;
    /* volatile: keep GCC from turning these loops into calls of memcpy/memset, which
     * would pull library code into the code-size probes. */
    for (dst = __data_start__; dst < __data_end__;)
        *(volatile uint32_t *)dst++ = *src++;
    for (dst = __bss_start__; dst < __bss_end__;)
        *(volatile uint32_t *)dst++ = 0;
    for (ctor = __preinit_array_start; ctor < __preinit_array_end; ++ctor)
        (*ctor)();
    for (ctor = __init_array_start; ctor < __init_array_end; ++ctor)
        (*ctor)();
    (void)main();
    bench_trap();
}
