/*
 * SPDX-License-Identifier: MIT
 *
 * board.c - UART0 and program exit on the mps2-an386 board (see board.h).
 *
 * UART0 is an Arm CMSDK APB UART at 0x40004000 (the board's first serial port, which QEMU
 * connects to its terminal with -nographic). Exit uses Arm semihosting: `bkpt 0xab` with
 * the operation in r0 and its argument in r1.
 */
#include <stdint.h>

#include "board.h"

/* CMSDK APB UART registers. */
typedef struct cmsdk_uart {
    volatile uint32_t data;  /* write: the byte to send */
    volatile uint32_t state; /* bit 0: transmit buffer full */
    volatile uint32_t ctrl;  /* bit 0: transmitter enabled */
    volatile uint32_t intstatus;
    volatile uint32_t bauddiv; /* clock / baud rate; must be at least 16 */
} cmsdk_uart_t;

#define UART0 ((cmsdk_uart_t *)0x40004000u)
#define UART_STATE_TX_FULL 1u
#define UART_CTRL_TX_ENABLE 1u

/* Semihosting operation SYS_EXIT_EXTENDED and the reason "the application exited": its
 * parameter block also carries the exit status (plain SYS_EXIT cannot on 32-bit Arm). */
#define SEMIHOSTING_SYS_EXIT_EXTENDED 0x20u
#define SEMIHOSTING_APPLICATION_EXIT 0x20026u

void board_uart_init(void) {
    /* 25 MHz / 16 = a valid divisor; QEMU ignores the rate but requires a valid one. */
    UART0->bauddiv = 16u;
    UART0->ctrl = UART_CTRL_TX_ENABLE;
}

void board_uart_putc(char c) {
    while (UART0->state & UART_STATE_TX_FULL) {
    }
    UART0->data = (uint8_t)c;
}

static void semihosting_call(uint32_t operation, const void *argument) {
    register uint32_t r0 __asm("r0") = operation;
    register const void *r1 __asm("r1") = argument;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

void board_exit(int status) {
    const uint32_t block[2] = {SEMIHOSTING_APPLICATION_EXIT, (uint32_t)status};
    semihosting_call(SEMIHOSTING_SYS_EXIT_EXTENDED, block);
    for (;;) /* no debugger took the call */
        __asm volatile("bkpt 0");
}
