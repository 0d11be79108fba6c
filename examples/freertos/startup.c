/*
 * SPDX-License-Identifier: MIT
 *
 * startup.c - vector table and reset handler of the example firmware (Cortex-M4 on
 * mps2-an386), linked with -nostartfiles. The symbols come from mps2-an386.ld.
 *
 * Reset_Handler prepares what C and C++ assume: .data copied from flash, .bss zeroed, the
 * FPU enabled when the code is built for it (TLSF_M4_FLOAT_ABI=hard: the GCC_ARM_CM4F
 * port saves FPU registers, and the compiler may use them anywhere), the static
 * constructors run; then main, which starts the scheduler. The kernel's three handlers
 * sit in the vector table directly, as the GCC_ARM_CM3 and GCC_ARM_CM4F ports expect.
 */
#include <stdint.h>

#include "syscalls.h"

extern uint32_t __data_load__[], __data_start__[], __data_end__[];
extern uint32_t __bss_start__[], __bss_end__[];
extern char __stack_top[];
typedef void (*constructor_t)(void);
extern constructor_t __preinit_array_start[], __preinit_array_end[];
extern constructor_t __init_array_start[], __init_array_end[];

int main(void);
void Reset_Handler(void);
extern void vPortSVCHandler(void);
extern void xPortPendSVHandler(void);
extern void xPortSysTickHandler(void);

/* Any fault or unexpected interrupt: say so and stop with status 128 + its number. */
static void unexpected_exception(void) {
    uint32_t ipsr;
    __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    firmware_panic("unexpected exception", 128 + (int)(ipsr & 0x1ffu));
}

/* The vector table: the initial stack pointer, then the 15 system exceptions (reset, NMI,
 * HardFault, MemManage, BusFault, UsageFault, 4 reserved, SVCall, DebugMonitor, reserved,
 * PendSV, SysTick). This program uses no peripheral interrupts. */
typedef void (*vector_t)(void);
__attribute__((used, section(".isr_vector"))) const struct {
    char *initial_sp;
    vector_t vectors[15];
} vector_table = {__stack_top,
                  {Reset_Handler, unexpected_exception, unexpected_exception, unexpected_exception,
                   unexpected_exception, unexpected_exception, 0, 0, 0, 0, vPortSVCHandler,
                   unexpected_exception, 0, xPortPendSVHandler, xPortSysTickHandler}};

/* Coprocessors CP10 and CP11 (the FPU): full access. Any FPU instruction before this
 * would fault. */
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
    firmware_uart_init();
    /* The constructors, without newlib's __libc_init_array (which would need _init). */
    for (constructor = __preinit_array_start; constructor < __preinit_array_end; ++constructor)
        (*constructor)();
    for (constructor = __init_array_start; constructor < __init_array_end; ++constructor)
        (*constructor)();
    firmware_exit(main());
}
