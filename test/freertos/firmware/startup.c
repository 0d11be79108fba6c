/*
 * SPDX-License-Identifier: MIT
 *
 * startup.c - reset and vector table of the test firmware (Cortex-M4F on mps2-an386).
 * The reset handler copies .data, zeroes .bss, turns the FPU on (the ARM_CM4F port saves
 * FPU context, and the compiler may use FPU registers anywhere), runs the C++ static
 * constructors and calls main. The kernel's handlers are installed directly (SVCall,
 * PendSV, SysTick), as the ARM_CM4F port expects; any other exception is a failure.
 *
 * The image links with -nostartfiles and no system-call library, so this file also
 * defines what the C and C++ runtime would otherwise find in crti.o, crtbegin.o and
 * libnosys (docs/firmware.md, "Symbols a firmware provides"): _init and _fini, and
 * __dso_handle for libstdc++'s std::pmr objects. abort is test_main.cpp's.
 */
#include <stdint.h>
#include <string.h>

#include "semihosting.h"

extern uint32_t data_start[], data_end[], data_load[], bss_start[], bss_end[];
extern uint32_t boot_stack_top[];

extern int main(void);
extern void __libc_init_array(void);
extern void vPortSVCHandler(void);
extern void xPortPendSVHandler(void);
extern void xPortSysTickHandler(void);

void reset_handler(void);
void fault_handler(void);

/* __libc_init_array calls these around the constructors; crti.o is not linked. */
void _init(void);
void _fini(void);
void _init(void) {
}
void _fini(void) {
}

/* What crtbegin.o defines: the handle under which static objects register their
 * destructors. tlsf registers none; libstdc++'s memory_resource.o (std::pmr) does. */
void *__dso_handle = &__dso_handle;

void fault_handler(void) {
    semihosting_write("freertos-heap-test: FAIL (unexpected exception)\n");
    semihosting_exit(0);
}

void reset_handler(void) {
    volatile uint32_t *const cpacr = (volatile uint32_t *)0xE000ED88u;
    memcpy(data_start, data_load, (size_t)((char *)data_end - (char *)data_start));
    memset(bss_start, 0, (size_t)((char *)bss_end - (char *)bss_start));
    *cpacr |= 0xFu << 20; /* CP10 and CP11: full access */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    __libc_init_array();
    (void)main();
    semihosting_write("freertos-heap-test: FAIL (main returned)\n");
    semihosting_exit(0);
}

typedef void (*vector_t)(void);

/* The initial main stack pointer, then the exception and interrupt vectors. */
typedef struct vector_table {
    uint32_t *initial_stack_pointer;
    vector_t vectors[31];
} vector_table_t;

/* 15 system exceptions after the stack pointer, then the first 16 interrupts (unused). */
__attribute__((section(".vectors"), used)) static const vector_table_t vector_table = {
    boot_stack_top,
    {
        reset_handler,
        fault_handler, /* NMI */
        fault_handler, /* HardFault */
        fault_handler, /* MemManage */
        fault_handler, /* BusFault */
        fault_handler, /* UsageFault */
        0,
        0,
        0,
        0,
        vPortSVCHandler,
        fault_handler, /* DebugMonitor */
        0,
        xPortPendSVHandler,
        xPortSysTickHandler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
        fault_handler,
    },
};
