/*
 * SPDX-License-Identifier: MIT
 *
 * startup.c - reset and exception vectors for a Cortex-M4 (linked with -nostartfiles).
 *
 * Reset_Handler prepares what C and C++ assume - .data copied from flash, .bss zeroed,
 * the FPU enabled when the code uses it, the static constructors run - then calls main
 * and passes its result to exit(), which flushes stdio and ends in _exit (syscalls.c).
 * The symbols come from mps2-an386.ld.
 */
#include <stdint.h>
#include <stdlib.h>

#include "board.h"

extern uint32_t __data_load__[], __data_start__[], __data_end__[];
extern uint32_t __bss_start__[], __bss_end__[];
extern char __stack_top[];
typedef void (*constructor_t)(void);
extern constructor_t __preinit_array_start[], __preinit_array_end[];
extern constructor_t __init_array_start[], __init_array_end[];

int main(void);
void Reset_Handler(void);
void _fini(void);

/* What crtbegin.o would define (-nostartfiles leaves it out): the handle under which C++
 * registers the destructors of static objects. */
void *__dso_handle = &__dso_handle;

/* Also from crti.o: what the full newlib's exit() calls after the static destructors.
 * Nothing to do here; the destructors themselves are registered with __cxa_atexit. */
void _fini(void) {
}

/* Any fault or unexpected interrupt: say so and stop with status 128 + exception number. */
static void unexpected_exception(void) {
    uint32_t ipsr;
    const char *text = "\nfirmware: unexpected exception\n";
    __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    while (*text)
        board_uart_putc(*text++);
    board_exit(128 + (int)(ipsr & 0x1ffu));
}

/* The vector table: the initial stack pointer, then the 15 system exceptions (reset,
 * NMI, HardFault, MemManage, BusFault, UsageFault, 4 reserved, SVCall, DebugMonitor,
 * reserved, PendSV, SysTick). This program uses no peripheral interrupts. */
typedef void (*vector_t)(void);
__attribute__((used, section(".isr_vector"))) const struct {
    char *initial_sp;
    vector_t vectors[15];
} vector_table = {__stack_top,
                  {Reset_Handler, unexpected_exception, unexpected_exception, unexpected_exception,
                   unexpected_exception, unexpected_exception, 0, 0, 0, 0, unexpected_exception,
                   unexpected_exception, 0, unexpected_exception, unexpected_exception}};

/* Enable the FPU (coprocessors CP10 and CP11, full access) when the code is compiled for
 * it (-mfloat-abi=hard or softfp); any FPU instruction before this would fault. */
static void enable_fpu(void) {
#if defined(__ARM_FP) && !defined(__SOFTFP__)
    volatile uint32_t *const cpacr = (volatile uint32_t *)0xE000ED88u;
    *cpacr |= 0xFu << 20;
    __asm volatile("dsb\n\tisb" ::: "memory");
#endif
}

void Reset_Handler(void) {
    const uint32_t *from = __data_load__;
    uint32_t *to;
    constructor_t *constructor;
    for (to = __data_start__; to < __data_end__;)
        *to++ = *from++;
    for (to = __bss_start__; to < __bss_end__;)
        *to++ = 0;
    enable_fpu();
    board_uart_init();
    for (constructor = __preinit_array_start; constructor < __preinit_array_end; ++constructor)
        (*constructor)();
    for (constructor = __init_array_start; constructor < __init_array_end; ++constructor)
        (*constructor)();
    exit(main());
}
